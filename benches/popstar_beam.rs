//! PopStar baseline: matchgrid's [`engine::solve`] with a wall-clock cap against a beam search
//! with a static evaluation and duplicate merging, written here (issue 23).
//!
//! The boards are the 8 that `collapse generate --seed 1..8` gives for 10x10, 5 colours,
//! `min_group` 2 (GenerateBoard: `rng_from_seed(seed)`, `GenerationSize::for_collapse`,
//! `generate_collapse_board`), under the POPSTAR rule: `5 * n^2` for a move clearing `n` tiles,
//! and at game over a bonus of `max(0, 2000 - 20 * k^2)` for `k` tiles left.
//!
//! ```sh
//! cargo bench --bench popstar_beam                        # width 5000, Solve 3 s a board
//! cargo bench --bench popstar_beam -- --width 500 --seconds 1 --boards 1,2
//! cargo bench --bench popstar_beam -- --solve-method nmcs  # Solve as NMCS instead
//! ```
//!
//! # The beam search
//!
//! Layer by layer from the starting board: every state of the beam is expanded by every legal
//! group (one tap each); a child with no legal group is a finished game, scored with its end
//! bonus and kept if it is the best seen; the others are merged and ranked, and the best
//! `--width` of them form the next layer. The answer is the best finished game once no state
//! is left. No randomness: ties are broken by the order of generation (parent rank, then the
//! order of [`CollapseGame::legal_groups_into`]).
//!
//! **Duplicate merging.** Children with identical boards (many move orders reach the same
//! board) are merged into the one with the highest score so far: a 64-bit hash of the board's
//! cells sorts them, and boards with equal hashes are compared exactly.
//!
//! **Evaluation** of a state: its score so far plus a static estimate of what is still to
//! come, read from its legal groups and its tile count per colour. For colour `k` with `c_k`
//! tiles, `g_k` legal groups (two or more tiles) and `o_k` orphans (tiles with no
//! same-colour 4-neighbour: `c_k` less the tiles in its groups):
//!
//! ```text
//! estimate = potential * sum_k 5 * c_k^2 / 100         each colour's worth if gathered
//!          - orphan * sum_k o_k                         orphans are hard to gather (and
//!                                                       likely left at the end, costing bonus)
//!          - fragment * sum_k max(0, g_k - 1)           a colour split into several groups
//! ```
//!
//! Defaults: potential 80 (%), orphan 100, fragment 300, tuned on these 8 boards by the beam's
//! total alone (no Solve): about 320 weight triples at width 500 (0.1 s a board), the best
//! dozen again at widths 2000 and 5000. At width 5000 the defaults sit on a plateau (totals
//! 47,775-48,065 for potential 70-90, orphan 75-125, fragment 300-400). At width 500 the best
//! triple without the fragment term totals about 5% less, without the potential term about
//! 13% less. `--potential`, `--orphan` and `--fragment` change them. Scores and estimates are
//! integers, so the search is exactly reproducible.
//!
//! # Solve
//!
//! By default `SolveMethod::Beam` (first width 2000, `--solve-width`), restarts, seed 1, one
//! thread (the calling one, so the CPU time printed is this thread's): the engine's beam with
//! the same evaluation (its group count by Euler number), then refinement passes along the
//! best line. `--solve-method nmcs` runs NMCS level 2, screened (width 16), restarts instead.
//! Node budget `MAX_SOLVE_NODES`, stopped by a wall-clock cap of `--seconds` (3 by default) a
//! board: on a loaded machine it gets less CPU than that.
//!
//! Both answers are replayed through [`engine::replay`] and must score what they claim. A tie
//! is not a win for Solve. CI only builds it (`cargo bench --no-run`).

use std::time::{Duration, Instant};

use clap::Parser;
use cpu_time::ThreadTime;
use matchgrid::engine::{
    self, BeamOptions, BeamWidth, CollapseGame, MinGroup, NodeBudget, Position, ScoringRule,
    ScreenWidth, SettledBoard, SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule,
    SolveThreads, TapGroup,
};

const RULE: ScoringRule = ScoringRule::PopStar;
/// Colour values run `1..=16`; index 0 is unused.
const COLOURS: usize = 17;

/// The bench's flags (cargo passes `--bench`, which is accepted and ignored).
#[derive(Parser)]
#[command(about = "PopStar: Solve with a time cap against a static-evaluation beam search")]
struct Args {
    /// Beam width: states kept per layer.
    #[arg(long, default_value_t = 5000)]
    width: usize,
    /// Solve's wall-clock cap per board, in seconds.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Boards (generator seeds) to play, comma-separated; 1..=8 when absent.
    #[arg(long, value_delimiter = ',')]
    boards: Vec<u64>,
    /// Evaluation: percent of `sum_k 5 * c_k^2` (tiles per colour) counted as potential.
    #[arg(long, default_value_t = 80)]
    potential: i64,
    /// Evaluation: penalty per orphan tile.
    #[arg(long, default_value_t = 100)]
    orphan: i64,
    /// Evaluation: penalty per legal group beyond the first of each colour.
    #[arg(long, default_value_t = 300)]
    fragment: i64,
    /// Solve's method: `beam` (SolveMethod::Beam with restarts: a beam of `--solve-width`,
    /// then refinement passes until the time cap) or `nmcs` (level 2, screened, restarts).
    #[arg(long, default_value = "beam")]
    solve_method: String,
    /// Solve's first beam width (`--solve-method beam`); 0 means the default, 2000.
    #[arg(long, default_value_t = 0)]
    solve_width: u32,
    /// Run only the beam search (for tuning the evaluation).
    #[arg(long)]
    beam_only: bool,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
    /// Benchmark-name filters `cargo bench` may pass; ignored.
    #[arg(hide = true)]
    filters: Vec<String>,
}

/// The weights of the static estimate (see the module docs).
#[derive(Clone, Copy)]
struct Weights {
    potential: i64,
    orphan: i64,
    fragment: i64,
}

/// The board GenerateBoard returns for 10x10, 5 colours, `min_group` 2 and `seed`.
fn generate(seed: u64) -> SettledBoard {
    let mut rng = engine::rng_from_seed(seed);
    let size = engine::GenerationSize::for_collapse(10, 10, 5).expect("a valid size");
    let min_group = MinGroup::parse(2).expect("min_group 2");
    engine::generate_collapse_board(size, min_group, &mut rng)
        .expect("a generated board")
        .0
}

/// A beam state, or a child before the merge and the cut.
struct State {
    game: CollapseGame,
    /// Move scores so far (no end bonus).
    score: i64,
    /// Tiles per colour.
    counts: [u16; COLOURS],
    /// The legal groups of `game`.
    groups: Vec<TapGroup>,
    /// Score so far plus the static estimate.
    eval: i64,
    /// 64-bit hash of the board's cells.
    hash: u64,
    /// The taps that led here: an index into [`Trail`], or [`Trail::ROOT`].
    trail: u32,
}

/// The taps of every state ever kept, as a tree of parent links.
struct Trail {
    links: Vec<(u32, Position)>,
}

impl Trail {
    /// The starting board: no taps.
    const ROOT: u32 = u32::MAX;

    /// Adds the tap `at` after the taps `parent`; returns the new link.
    fn push(&mut self, parent: u32, at: Position) -> u32 {
        self.links.push((parent, at));
        (self.links.len() - 1) as u32
    }

    /// The taps from the start to `link`, in order.
    fn taps(&self, mut link: u32) -> Vec<Position> {
        let mut taps = Vec::new();
        while link != Self::ROOT {
            let (parent, at) = self.links[link as usize];
            taps.push(at);
            link = parent;
        }
        taps.reverse();
        taps
    }
}

/// FNV-1a-style hash of a board's cells, eight at a time.
fn hash_cells(cells: &[u8]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for chunk in cells.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        hash = (hash ^ u64::from_le_bytes(word)).wrapping_mul(0x0100_0000_01b3);
        hash ^= hash >> 29;
    }
    hash
}

/// The static estimate of a position with `counts` tiles per colour and legal `groups`.
fn estimate(counts: &[u16; COLOURS], groups: &[TapGroup], weights: Weights) -> i64 {
    let mut grouped = [0u16; COLOURS];
    let mut pieces = [0i64; COLOURS];
    for group in groups {
        grouped[usize::from(group.color)] += group.size as u16;
        pieces[usize::from(group.color)] += 1;
    }
    let (mut potential, mut orphans, mut fragments) = (0i64, 0i64, 0i64);
    for colour in 1..COLOURS {
        let tiles = i64::from(counts[colour]);
        if tiles == 0 {
            continue;
        }
        let alone = i64::from(counts[colour] - grouped[colour]);
        potential += 5 * tiles * tiles;
        orphans += alone;
        fragments += (pieces[colour] - 1).max(0);
    }
    weights.potential * potential / 100 - weights.orphan * orphans - weights.fragment * fragments
}

/// A finished beam search.
struct BeamResult {
    taps: Vec<Position>,
    score: i64,
    /// States expanded over all layers.
    expanded: u64,
    /// Children merged into an identical board.
    merged: u64,
    wall: Duration,
    cpu: Duration,
}

/// The beam search of the module docs from `board`.
fn beam_search(board: &SettledBoard, width: usize, weights: Weights) -> BeamResult {
    let (started, cpu_started) = (Instant::now(), ThreadTime::now());
    let min_group = MinGroup::DEFAULT;
    let mut trail = Trail { links: Vec::new() };
    let mut counts = [0u16; COLOURS];
    for &cell in board.board().cells() {
        counts[usize::from(cell)] += 1;
    }
    counts[0] = 0;
    let game = CollapseGame::new(board);
    let mut groups = Vec::new();
    game.legal_groups_into(min_group, &mut groups);
    let mut beam = vec![State {
        eval: 0,
        hash: 0,
        score: 0,
        counts,
        groups,
        game,
        trail: Trail::ROOT,
    }];
    // The best finished game: score with the end bonus, and its taps.
    let mut best: (i64, Vec<Position>) = (i64::MIN, Vec::new());
    if beam[0].groups.is_empty() {
        best = (RULE.end_bonus(board.board().tile_count()), Vec::new());
        beam.clear();
    }
    let (mut expanded, mut merged) = (0u64, 0u64);
    while !beam.is_empty() {
        // Expand: every state by every legal group. `parents[i]` is the trail link and tap
        // of `children[i]`, recorded in the trail only if the child survives the cut.
        let mut children = Vec::new();
        let mut parents = Vec::new();
        for state in &beam {
            expanded += 1;
            for group in &state.groups {
                let mut game = state.game.clone();
                let size = game
                    .apply_tap(group.position, min_group)
                    .expect("a legal group");
                let score = state.score + RULE.move_score(size) as i64;
                let mut counts = state.counts;
                counts[usize::from(group.color)] -= size as u16;
                let mut groups = Vec::new();
                game.legal_groups_into(min_group, &mut groups);
                if groups.is_empty() {
                    let total = score + RULE.end_bonus(game.tiles_left());
                    if total > best.0 {
                        let mut taps = trail.taps(state.trail);
                        taps.push(group.position);
                        best = (total, taps);
                    }
                    continue;
                }
                let eval = score + estimate(&counts, &groups, weights);
                let hash = hash_cells(game.to_settled_board().board().cells());
                children.push(State {
                    game,
                    score,
                    counts,
                    groups,
                    eval,
                    hash,
                    trail: 0,
                });
                parents.push((state.trail, group.position));
            }
        }
        // Merge: sort by hash, highest score first, then by generation order; of each run of
        // identical boards keep the first.
        let mut order: Vec<usize> = (0..children.len()).collect();
        order.sort_unstable_by_key(|&i| (children[i].hash, -children[i].score, i));
        let mut kept = Vec::with_capacity(order.len());
        let mut run_start = 0;
        for (at, &i) in order.iter().enumerate() {
            if at > 0 && children[order[at - 1]].hash != children[i].hash {
                run_start = at;
            }
            let duplicate = order[run_start..at]
                .iter()
                .any(|&j| children[j].game == children[i].game);
            if duplicate {
                merged += 1;
            } else {
                kept.push(i);
            }
        }
        // Cut: the `width` best evaluations, ties by generation order.
        kept.sort_unstable_by_key(|&i| (-children[i].eval, i));
        kept.truncate(width);
        let mut slots: Vec<Option<State>> = children.into_iter().map(Some).collect();
        beam = kept
            .into_iter()
            .map(|i| {
                let mut state = slots[i].take().expect("kept once");
                let (parent, at) = parents[i];
                state.trail = trail.push(parent, at);
                state
            })
            .collect();
    }
    BeamResult {
        taps: best.1,
        score: best.0,
        expanded,
        merged,
        wall: started.elapsed(),
        cpu: cpu_started.elapsed(),
    }
}

/// Replays `taps` on `board` and checks the game ends with `score`.
fn check(board: &SettledBoard, taps: &[Position], score: i64, what: &str) {
    let replayed = engine::replay(board, taps, RULE, MinGroup::DEFAULT).expect("replay");
    assert_eq!(replayed.refused, None, "{what}: a refused tap");
    assert!(replayed.game_over, "{what}: the game is not over");
    assert_eq!(replayed.total_score, score, "{what}: the replayed score");
}

fn main() {
    let mut args = Args::parse();
    if args.boards.is_empty() {
        args.boards = (1..=8).collect();
    }
    let weights = Weights {
        potential: args.potential,
        orphan: args.orphan,
        fragment: args.fragment,
    };
    println!(
        "PopStar 10x10, 5 colours, min_group 2, boards of `collapse generate --seed N`: beam \
         width {} (potential {}%, orphan {}, fragment {}) against Solve ({}, restarts, seed 1) \
         capped at {} s a board",
        args.width,
        args.potential,
        args.orphan,
        args.fragment,
        match args.solve_method.as_str() {
            "nmcs" => "NMCS level 2, screened".to_string(),
            _ => format!(
                "beam, first width {}",
                BeamWidth::parse(args.solve_width).map_or(0, BeamWidth::get)
            ),
        },
        args.seconds
    );
    println!(
        "| board seed | beam score | beam time (wall, CPU) | beam states | merged | Solve score \
         | Solve time (wall, CPU) | Solve runs | winner |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let (mut beam_total, mut solve_total, mut wins, mut ties) = (0i64, 0i64, 0, 0);
    let (mut beam_wall, mut beam_cpu) = (Duration::ZERO, Duration::ZERO);
    for &seed in &args.boards {
        let board = generate(seed);
        let beam = beam_search(&board, args.width, weights);
        check(
            &board,
            &beam.taps,
            beam.score,
            &format!("beam, board {seed}"),
        );
        beam_total += beam.score;
        beam_wall += beam.wall;
        beam_cpu += beam.cpu;
        let beam_cells = format!(
            "| {seed} | {} | {:.2} s, {:.2} s | {} | {} |",
            beam.score,
            beam.wall.as_secs_f64(),
            beam.cpu.as_secs_f64(),
            beam.expanded,
            beam.merged
        );
        if args.beam_only {
            println!("{beam_cells} | | | |");
            continue;
        }
        let options = SolveOptions {
            rule: RULE,
            min_group: MinGroup::DEFAULT,
            seed: 1,
            level: SolveLevel::parse(2).expect("level 2"),
            max_nodes: NodeBudget::parse(engine::MAX_SOLVE_NODES).expect("the largest budget"),
            schedule: SolveSchedule::Restarts,
            method: match args.solve_method.as_str() {
                "nmcs" => SolveMethod::Screened(ScreenWidth::parse(0).expect("the default width")),
                "beam" => SolveMethod::Beam(BeamOptions::doubling(
                    BeamWidth::parse(args.solve_width).expect("a width"),
                )),
                other => panic!("--solve-method is beam or nmcs, not {other}"),
            },
            threads: SolveThreads::ONE,
        };
        let control = SolveControl {
            time_limit: Some(Instant::now() + Duration::from_secs_f64(args.seconds)),
            ..SolveControl::default()
        };
        let cpu_started = ThreadTime::now();
        let solution = engine::solve(&board, &options, &control);
        let solve_cpu = cpu_started.elapsed();
        let taps: Vec<_> = solution.moves.iter().map(|m| m.position).collect();
        check(
            &board,
            &taps,
            solution.score,
            &format!("Solve, board {seed}"),
        );
        solve_total += solution.score;
        let winner = match solution.score.cmp(&beam.score) {
            std::cmp::Ordering::Greater => {
                wins += 1;
                "Solve"
            }
            std::cmp::Ordering::Equal => {
                ties += 1;
                "tie"
            }
            std::cmp::Ordering::Less => "beam",
        };
        println!(
            "{beam_cells} {} | {:.2} s, {:.2} s | {} | {winner} |",
            solution.score,
            solution.elapsed.as_secs_f64(),
            solve_cpu.as_secs_f64(),
            solution.runs_completed
        );
    }
    let n = args.boards.len().max(1) as f64;
    println!(
        "\nbeam total {beam_total} ({:.2} s wall, {:.2} s CPU a board on average)",
        beam_wall.as_secs_f64() / n,
        beam_cpu.as_secs_f64() / n
    );
    if !args.beam_only {
        println!(
            "Solve total {solve_total}\nSolve wins {wins} of {} ({ties} tie(s); a tie is not a \
             win for Solve)",
            args.boards.len()
        );
    }
}
