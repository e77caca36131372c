//! A fixed workload for instruction counts (valgrind --tool=callgrind), so two builds can be
//! compared exactly: the bench's 64 boards of each kind, each turn played `rounds` times with
//! the same seeds, one named function per turn kind.
//!
//! ```sh
//! cargo build --release -p matchgrid-engine --example turns
//! valgrind --tool=callgrind --toggle-collect='turns::level_recorded_turn' \
//!     target/release/examples/turns level 20
//! ```
//! `KIND` is `plain` (the recorded turn, `resolve_swap`), `simulated` (`play_swap`), `level`
//! (the recorded turn on a level board: 10% holes, 10% specials), `layered` (the plain kind's
//! boards and turns on the layered path: empty hole and kind layers, specials off, so the
//! same cascades as `plain`; function `turns::layered_recorded_turn`), `obstacles` (the recorded
//! turn on boards with level layers: 20% jelly, 10% blockers, 5% locks, 2 ingredients;
//! `turns::obstacle_recorded_turn`), `plain-checked` and `obstacles-checked` (the `plain` and
//! `obstacles` turns from a board not yet known stable, the stability check included, as a
//! server plays them; `turns::checked_turn`, `turns::obstacle_checked_turn`), `validate` (the
//! `plain-checked` boards' stability check and swap preview, as ValidateSwap runs them;
//! `turns::validated_swap`), `greedy` (`rounds` greedy games of 30 moves on their
//! layout; `turns::greedy_game`, divide by `rounds` only), `hint` (the NONE-refill
//! outcomes of every valid swap, `certain_outcomes`), or `plain-steps-N` and `level-steps-N`
//! (the first 64 turns of exactly `N` cascade steps among 20,000 boards of the `plain` or
//! `level` kind, so the two paths compare on equal steps; fewer turns when the boards hold
//! fewer, as the selection prints), or `plain-steps-N-cells-M` and `level-steps-N-cells-M`
//! (the same, of turns that also clear exactly `M` cells and end without a shuffle, so the two
//! paths compare on equal work); the total divided by `64 * rounds` is the count of one
//! turn. `census` (no rounds) prints the `plain` and `level` kinds' turns by number of steps.

use std::hint::black_box;

use matchgrid_engine::{self as engine, CascadeOptions, Refill, StableBoard, Swap};

mod fixtures;

const OPTIONS: CascadeOptions = CascadeOptions {
    refill: Refill::Random { colors: 6 },
    auto_shuffle: true,
    max_steps: 1000,
    specials: false,
};

/// A level's options: special pieces created.
const LEVEL_OPTIONS: CascadeOptions = CascadeOptions {
    specials: true,
    ..OPTIONS
};

#[inline(never)]
fn recorded_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

#[inline(never)]
fn simulated_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::play_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

#[inline(never)]
fn level_recorded_turn(level: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(level, swap, LEVEL_OPTIONS, &mut rng).unwrap());
}

/// [`recorded_turn`] on the layered path (the board has empty layers; no specials).
#[inline(never)]
fn layered_recorded_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

/// [`level_recorded_turn`] on a board with level layers (jelly, blockers, locks, ingredients).
#[inline(never)]
fn obstacle_recorded_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, LEVEL_OPTIONS, &mut rng).unwrap());
}

/// [`recorded_turn`] from a board that is not yet known stable, as a server gets it: the
/// stability check (which builds the stable board's bitboards) and then the turn.
#[inline(never)]
fn checked_turn(board: engine::SwapBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    let board = StableBoard::try_from(board).unwrap();
    black_box(engine::resolve_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

/// [`obstacle_recorded_turn`] from a board that is not yet known stable, as
/// [`checked_turn`].
#[inline(never)]
fn obstacle_checked_turn(board: engine::SwapBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    let board = StableBoard::try_from(board).unwrap();
    black_box(engine::resolve_swap(board, swap, LEVEL_OPTIONS, &mut rng).unwrap());
}

/// What ValidateSwap asks of the engine: the stability check of a board not yet known stable,
/// then the swap's preview.
#[inline(never)]
fn validated_swap(board: engine::SwapBoard, swap: Swap) {
    black_box(engine::check_and_preview_swap(board, swap).unwrap());
}

/// One greedy game of 30 moves of the level-play bench's level.
#[inline(never)]
fn greedy_game(level: &engine::Level, seed: u64) {
    let policy = engine::LevelPolicy::Greedy;
    black_box(engine::simulate_level(level, policy, 1, seed, || true).unwrap());
}

#[inline(never)]
fn hint_outcomes(board: &StableBoard) {
    black_box(engine::certain_outcomes(board, false, 200).unwrap());
}

/// What a recorded turn did: its cascade steps, its cells cleared (the groups' cells and the
/// effects') and whether its final board was dead and shuffled.
struct TurnWork {
    steps: usize,
    cleared: usize,
    shuffled: bool,
}

/// The work of the recorded turn of `swap` on `board` with refill seed `seed`.
fn turn_work(board: &StableBoard, swap: Swap, seed: u64, options: CascadeOptions) -> TurnWork {
    let mut rng = engine::rng_from_seed(seed);
    let outcome = engine::resolve_swap(board.clone(), swap, options, &mut rng).unwrap();
    let cleared = outcome
        .steps
        .iter()
        .map(|step| {
            step.groups.iter().map(|g| g.cells.len()).sum::<usize>() + step.effect_cleared.len()
        })
        .sum();
    TurnWork {
        steps: outcome.steps.len(),
        cleared,
        shuffled: outcome.board_before_shuffle.is_some(),
    }
}

/// The `plain` and `level` kinds' 64 turns by number of cascade steps: prints, for each
/// family, the count of turns with 1, 2, ... steps and the mean steps and cells cleared.
fn census() {
    let families = [
        ("plain", fixtures::swap_boards(9, 9, 6, 64), OPTIONS),
        ("level", fixtures::level_boards(64), LEVEL_OPTIONS),
    ];
    for (family, boards, options) in families {
        let mut turns_by_steps = std::collections::BTreeMap::new();
        let (mut steps, mut cleared) = (0, 0);
        for (seed, (board, swap)) in boards.iter().enumerate() {
            let work = turn_work(board, *swap, seed as u64, options);
            *turns_by_steps.entry(work.steps).or_insert(0) += 1;
            steps += work.steps;
            cleared += work.cleared;
        }
        println!(
            "{family}: turns by steps {turns_by_steps:?}; {:.2} steps, {:.1} cells cleared a turn",
            steps as f64 / 64.0,
            cleared as f64 / 64.0
        );
    }
}

/// How many boards the step-count selections look through.
const SELECTION_BOARDS: usize = 20_000;

/// The boards and swaps of `family` (`plain`: as the `plain` kind's, `level`: as the `level`
/// kind's), seeds `0..count`: each board with its first valid swap.
fn family_boards(family: &str, count: usize) -> Vec<(StableBoard, Swap)> {
    match family {
        "level" => fixtures::level_boards(count),
        "plain" => fixtures::swap_boards(9, 9, 6, count as u64),
        other => panic!("unknown family {other}: plain or level"),
    }
}

/// The first 64 turns (fewer when the boards hold fewer) of `family` (the boards of
/// [`family_boards`], each with its first valid swap and, as in the `plain` and `level` kinds,
/// its index for refill seed) whose cascade has exactly `steps` steps and, when `cells` is
/// given, clears exactly `cells` cells and ends without a shuffle (a dead board's shuffle costs
/// tens of thousands of instructions, which would swamp a comparison of cascades). Printed one
/// board index per line, then their mean cells cleared a turn on stderr. `plain-steps-N` and
/// `level-steps-N` run this in a child process, so the selection's thousands of resolutions
/// leave nothing in the heap of the measured process.
fn select_turns(family: &str, steps: usize, cells: Option<usize>) {
    let options = if family == "level" {
        LEVEL_OPTIONS
    } else {
        OPTIONS
    };
    let (mut chosen, mut cleared) = (0u32, 0);
    for (index, (board, swap)) in family_boards(family, SELECTION_BOARDS).iter().enumerate() {
        let work = turn_work(board, *swap, index as u64, options);
        let same_work = |cells| work.cleared == cells && !work.shuffled;
        if work.steps == steps && cells.is_none_or(same_work) {
            println!("{index}");
            cleared += work.cleared;
            chosen += 1;
            if chosen == 64 {
                break;
            }
        }
    }
    assert!(
        chosen > 0,
        "no {family} turn of {steps} steps, {cells:?} cells"
    );
    eprintln!(
        "{chosen} {family} turns of {steps} step(s): {:.1} cells cleared a turn",
        cleared as f64 / f64::from(chosen)
    );
}

/// The turns [`select_turns`] picks, selected in a child process: each a board, its swap and
/// its refill seed.
fn turns_of_steps(
    family: &str,
    steps: usize,
    cells: Option<usize>,
) -> Vec<(StableBoard, Swap, u64)> {
    let exe = std::env::current_exe().expect("the example's path");
    let mut args = vec!["select".to_owned(), family.to_owned(), steps.to_string()];
    args.extend(cells.map(|cells| cells.to_string()));
    let output = std::process::Command::new(exe)
        .args(args)
        .stderr(std::process::Stdio::inherit())
        .output()
        .expect("the selection runs");
    assert!(output.status.success(), "the selection failed");
    let chosen: Vec<usize> = String::from_utf8(output.stdout)
        .expect("text")
        .lines()
        .map(|line| line.parse().expect("a board index"))
        .collect();
    let boards = family_boards(family, chosen.last().expect("a turn") + 1);
    chosen
        .iter()
        .map(|&index| (boards[index].0.clone(), boards[index].1, index as u64))
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "level".to_owned());
    if kind == "census" {
        return census();
    }
    if kind == "select" {
        let family = args.next().expect("plain or level");
        let steps = args
            .next()
            .expect("a step count")
            .parse()
            .expect("a number");
        let cells = args
            .next()
            .map(|cells| cells.parse().expect("a cell count"));
        return select_turns(&family, steps, cells);
    }
    let rounds: u64 = args.next().map_or(20, |r| r.parse().expect("rounds"));
    match kind.as_str() {
        "greedy" => {
            let level = engine::Level::new(
                engine::LevelStart::Layout(fixtures::obstacle_layout()),
                6,
                30,
                vec![engine::Goal::ClearJelly, engine::Goal::BringDown(2)],
            )
            .unwrap();
            for seed in 0..rounds {
                greedy_game(&level, seed);
            }
        }
        "obstacles" => {
            let boards = fixtures::obstacle_boards(64);
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    obstacle_recorded_turn(board.clone(), *swap, seed as u64);
                }
            }
        }
        "obstacles-checked" | "plain-checked" | "validate" => {
            let boards = if kind != "obstacles-checked" {
                fixtures::swap_boards(9, 9, 6, 64)
            } else {
                fixtures::obstacle_boards(64)
            };
            let boards: Vec<_> = boards
                .into_iter()
                .map(|(b, s)| (b.into_board(), s))
                .collect();
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    let seed = seed as u64;
                    match kind.as_str() {
                        "plain-checked" => checked_turn(board.clone(), *swap, seed),
                        "validate" => validated_swap(board.clone(), *swap),
                        _ => obstacle_checked_turn(board.clone(), *swap, seed),
                    }
                }
            }
        }
        "level" => {
            let boards = fixtures::level_boards(64);
            for _ in 0..rounds {
                for (seed, (level, swap)) in boards.iter().enumerate() {
                    level_recorded_turn(level.clone(), *swap, seed as u64);
                }
            }
        }
        "layered" => {
            let boards: Vec<(StableBoard, Swap)> = fixtures::swap_boards(9, 9, 6, 64)
                .into_iter()
                .map(|(board, swap)| {
                    let colors = board.colors().clone();
                    let layered = engine::SwapBoard::with_layers(colors, Vec::new(), Vec::new());
                    (StableBoard::try_from(layered.unwrap()).unwrap(), swap)
                })
                .collect();
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    layered_recorded_turn(board.clone(), *swap, seed as u64);
                }
            }
        }
        kind if kind.starts_with("plain-steps-") || kind.starts_with("level-steps-") => {
            let (family, steps) = kind.split_once("-steps-").expect("a family and a count");
            let (steps, cells) = match steps.split_once("-cells-") {
                Some((steps, cells)) => (steps, Some(cells.parse().expect("a cell count"))),
                None => (steps, None),
            };
            let turns = turns_of_steps(family, steps.parse().expect("a step count"), cells);
            for _ in 0..rounds {
                for (board, swap, seed) in &turns {
                    if family == "level" {
                        level_recorded_turn(board.clone(), *swap, *seed);
                    } else {
                        recorded_turn(board.clone(), *swap, *seed);
                    }
                }
            }
        }
        "plain" | "simulated" | "hint" => {
            let boards = fixtures::swap_boards(9, 9, 6, 64);
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    match kind.as_str() {
                        "plain" => recorded_turn(board.clone(), *swap, seed as u64),
                        "simulated" => simulated_turn(board.clone(), *swap, seed as u64),
                        _ => hint_outcomes(board),
                    }
                }
            }
        }
        other => panic!("unknown kind {other}: see the module documentation"),
    }
}
