//! [`solve`]: the best tap sequence found for a collapse-family board within a node budget, by
//! Nested Monte-Carlo Search with TabuColorRandom playouts, optionally with simulation
//! reduction.
//!
//! **Method.** Nested Monte-Carlo Search (NMCS; T. Cazenave, "Nested Monte-Carlo Search",
//! IJCAI 2009, pp. 456-461). A level-0 search is one random playout to game over. A level-`L`
//! search from a position tries every legal move, runs a level-`L - 1` search after each, and
//! plays the first move of the best sequence found so far (memorised across the steps, so the
//! score never drops), until the game is over. The playouts are TabuColorRandom (M. Schadd, M.
//! Winands, H. van den Herik, G. Chaslot, J. Uiterwijk, "Single-Player Monte-Carlo Tree
//! Search", Computers and Games 2008, LNCS 5131): the colour with the most tiles when the
//! playout starts is tabu, so the playout taps uniformly among the legal groups of the other
//! colours and taps a tabu-coloured group only when nothing else is legal; tiles of that colour
//! pile up into a large group, which pays under the quadratic rules. Under `CLICKOMANIA`
//! (linear scores) the playouts are uniformly random.
//!
//! **Schedule.** The search runs levels 1, 2, ..., `level` in turn from the starting board, each
//! starting from the best game found so far (so a level never ends below the previous one), and
//! stops when the last level completes ([`SolveStop::Completed`]) or a limit is reached. One
//! playout always runs first, so even a search stopped at once returns a whole game. With
//! [`SolveSchedule::Restarts`] the whole schedule then runs again from scratch (a fresh first
//! playout, not the best game so far) with the next draws of the same random stream, again and
//! again until a limit stops the search, and the best game of all runs is returned: the
//! random-restart meta-search Schadd et al. 2008 ran SP-MCTS with. A level-2 run on 15x15
//! completes in 1.5-4.3*10^7 nodes and its result depends on the draws, so a budget of a few
//! 10^8 nodes is better spent on several runs than on a level 3 that gets a few steps in (on
//! the 20 standard positions, restarts from scratch also scored a little better than restarts
//! that start from the best game so far).
//!
//! **Simulation reduction.** With [`SolveMethod::Screened`] a step of a level of 2 or more
//! first runs one playout after every legal move, then runs the level below only after the
//! `width` moves whose playouts scored highest (the earlier move in the scan on a tie); the
//! move of the best sequence so far is still followed when none of them beats it. This is the
//! idea of H. Akiyama, K. Komiya, Y. Kotani, "Nested Monte-Carlo Search with simulation
//! reduction" (Knowledge-Based Systems 34, 2012): most of a level-2 step's effort goes to
//! level-1 searches after moves a cheap look already shows to be poor. A screened level-2 run
//! (width 16) on 15x15 costs about 40% of a plain one, so restarts fit about 2.3 times as many
//! runs in a budget; on the 20 standard SameGame positions that scored 1.8% higher on the same
//! budget (README). [`SolveMethod::Nmcs`] is the plain search and answers exactly as before the
//! method existed.
//!
//! **Effort and determinism.** A *node* is one tap applied by the search, in the tree or in a
//! playout. Limits are checked before every playout: the node budget (the search stops at the
//! first check with `nodes >= max_nodes`, so it overshoots by at most one playout, at most
//! `tiles / min_group` taps), the wall-clock limits and the cancel flag. All randomness comes
//! from one ChaCha8 stream seeded with the request's seed, so a search stopped by its node budget
//! (or completed) gives the same sequence on every run and every machine. A search stopped by a
//! clock ([`SolveStop::TimeLimit`], [`SolveStop::Deadline`]) or cancelled returns the best game
//! found so far, which depends on the machine's speed: the clocks are the one non-deterministic
//! input.
//!
//! **Speed.** Boards of at most 16x16 run on [`CompactGame`] planes (about 6 to 6.6 million
//! nodes a second on one core on the 15x15 standard SameGame positions); larger boards on
//! [`CollapseGame`] with [`CollapsePlayout`] playouts, several times slower per node.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand::Rng;

use crate::error::EngineError;
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::bitboard::TapGroup;
use super::compact::KnownGroups;
use super::{CollapseGame, CollapsePlayout, CompactGame};

/// Node budget when a request leaves `max_nodes` at 0: one million taps, about 0.2 s on one core
/// on a 15x15 board.
pub const DEFAULT_SOLVE_NODES: u64 = 1_000_000;
/// Largest node budget accepted: ten billion taps (about half an hour on one core on 15x15).
pub const MAX_SOLVE_NODES: u64 = 10_000_000_000;
/// NMCS level when a request leaves `level` at 0.
pub const DEFAULT_SOLVE_LEVEL: u32 = 2;
/// Highest NMCS level accepted. Each level multiplies the work of a complete search by roughly
/// the number of moves times the length of a game (hundreds to thousands on 15x15), so level 3
/// does not complete within practical budgets on 15x15 and levels 4 and 5 are only for small
/// boards; an incomplete level still returns the best game found.
pub const MAX_SOLVE_LEVEL: u32 = 5;
/// Children searched further per step of a screened level when a request leaves the width at
/// 0 ([`SolveMethod::Screened`]).
pub const DEFAULT_SCREEN_WIDTH: u32 = 16;
/// Largest screening width accepted. A width at least the number of legal groups is plain
/// NMCS; a larger value is refused rather than capped, so a request means what it says.
pub const MAX_SCREEN_WIDTH: u32 = 256;
/// Largest wall-clock limit accepted, in milliseconds (one hour).
pub const MAX_SOLVE_MILLIS: u32 = 3_600_000;

/// The NMCS level of a search, `1..=`[`MAX_SOLVE_LEVEL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SolveLevel(u8);

impl SolveLevel {
    /// Parses a request value: 0 means [`DEFAULT_SOLVE_LEVEL`]; otherwise `1..=5`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `level`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        match value {
            0 => Ok(Self(DEFAULT_SOLVE_LEVEL as u8)),
            1..=MAX_SOLVE_LEVEL => Ok(Self(value as u8)),
            _ => Err(EngineError::InvalidParameter {
                field: "level",
                reason: format!(
                    "must be 1..={MAX_SOLVE_LEVEL} (0 means {DEFAULT_SOLVE_LEVEL}), got {value}"
                ),
            }),
        }
    }

    /// The level, `1..=5`.
    pub fn get(self) -> u32 {
        u32::from(self.0)
    }
}

/// A search's node budget: `1..=`[`MAX_SOLVE_NODES`] taps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeBudget(u64);

impl NodeBudget {
    /// Parses a request value: 0 means [`DEFAULT_SOLVE_NODES`]; otherwise `1..=10^10`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `max_nodes`.
    pub fn parse(value: u64) -> Result<Self, EngineError> {
        match value {
            0 => Ok(Self(DEFAULT_SOLVE_NODES)),
            1..=MAX_SOLVE_NODES => Ok(Self(value)),
            _ => Err(EngineError::InvalidParameter {
                field: "max_nodes",
                reason: format!(
                    "must be 1..={MAX_SOLVE_NODES} (0 means {DEFAULT_SOLVE_NODES}), got {value}"
                ),
            }),
        }
    }

    /// The budget in taps.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// How many children a screened level searches further per step:
/// `1..=`[`MAX_SCREEN_WIDTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScreenWidth(u16);

impl ScreenWidth {
    /// Parses a request value: 0 means [`DEFAULT_SCREEN_WIDTH`]; otherwise `1..=256`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `screen_width`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        match value {
            0 => Ok(Self(DEFAULT_SCREEN_WIDTH as u16)),
            1..=MAX_SCREEN_WIDTH => Ok(Self(value as u16)),
            _ => Err(EngineError::InvalidParameter {
                field: "screen_width",
                reason: format!(
                    "must be 1..={MAX_SCREEN_WIDTH} (0 means {DEFAULT_SCREEN_WIDTH}), got {value}"
                ),
            }),
        }
    }

    /// The width, `1..=256`.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

/// Parses a request's wall-clock limit in milliseconds: 0 means none; otherwise
/// `1..=`[`MAX_SOLVE_MILLIS`].
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `max_millis`.
pub fn parse_time_limit(max_millis: u32) -> Result<Option<Duration>, EngineError> {
    match max_millis {
        0 => Ok(None),
        1..=MAX_SOLVE_MILLIS => Ok(Some(Duration::from_millis(u64::from(max_millis)))),
        _ => Err(EngineError::InvalidParameter {
            field: "max_millis",
            reason: format!("must be 0 (no limit) or 1..={MAX_SOLVE_MILLIS}, got {max_millis}"),
        }),
    }
}

/// What to search for: the rules, the seed and the deterministic budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Scoring rule the search maximises (moves plus the end adjustment).
    pub rule: ScoringRule,
    /// Smallest legal group.
    pub min_group: MinGroup,
    /// Seed of the ChaCha8 stream of the playouts.
    pub seed: u64,
    /// Highest NMCS level run.
    pub level: SolveLevel,
    /// Node budget.
    pub max_nodes: NodeBudget,
    /// One run of the levels, or restarts until a limit.
    pub schedule: SolveSchedule,
    /// Which children each step of a level searches further.
    pub method: SolveMethod,
}

/// Which children a step of an NMCS level of 2 or more searches with the level below.
///
/// Level 1 always runs one playout after every legal move; the methods differ above it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SolveMethod {
    /// Plain NMCS (Cazenave 2009): every legal move.
    #[default]
    Nmcs,
    /// NMCS with simulation reduction (after H. Akiyama, K. Komiya, Y. Kotani, "Nested
    /// Monte-Carlo Search with simulation reduction", Knowledge-Based Systems 34, 2012): a step
    /// of a level of 2 or more first runs one playout after every legal move, then runs the
    /// level below only after the `width` moves whose playouts scored highest (the earlier
    /// move on a tie). The screening playouts count as nodes and can improve the best game
    /// like any other. A level-2 run costs a fraction of a plain one, so a budget fits several
    /// times more restarts; on the 20 standard SameGame positions restarts of screened level 2
    /// (width 16) score higher on the same budget than restarts of plain level 2 (README).
    Screened(ScreenWidth),
}

/// How the budget is spent: one run of the levels, or independent runs until a limit.
///
/// Restarts are the meta-search of Schadd et al. 2008 (SP-MCTS was run from several random
/// seeds and the best game kept): an NMCS level-`L` run spends most of its effort on the first
/// moves and its result varies a lot with the draws, so on a fixed budget several complete
/// runs with fresh draws usually find a better best game than one run plus an incomplete
/// higher level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SolveSchedule {
    /// Levels 1..=`level` once, each from the best game so far; stops when the last level
    /// completes ([`SolveStop::Completed`]) or at a limit.
    #[default]
    Single,
    /// The single schedule, then again from scratch with the next draws of the same stream
    /// (levels 1..=`level`, the first from a fresh playout), and so on until a limit stops the
    /// search ([`SolveStop::Completed`] never happens unless the board has no legal group);
    /// the best game over all runs is kept. The first run is exactly [`Self::Single`]'s, so a
    /// budget that ends inside it gives the same answer as `Single`.
    Restarts,
}

/// The non-deterministic limits of a search: clocks and a cancel flag, checked before every
/// playout. On any of them the search returns the best game found so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveControl<'a> {
    /// The caller's own wall-clock cap (a request's `max_millis`): [`SolveStop::TimeLimit`].
    pub time_limit: Option<Instant>,
    /// When the answer must be ready (a request's deadline, less a margin to send it):
    /// [`SolveStop::Deadline`].
    pub deadline: Option<Instant>,
    /// Set by the caller when nobody waits for the answer any more: [`SolveStop::Cancelled`].
    pub cancel: Option<&'a AtomicBool>,
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SolveStop {
    /// Every level up to the requested one ran to the end (or the board had no legal group).
    Completed,
    /// The node budget was spent.
    NodeBudget,
    /// The caller's wall-clock limit passed.
    TimeLimit,
    /// The request's deadline came near.
    Deadline,
    /// The cancel flag was set.
    Cancelled,
}

/// One tap of a solution, as the board is before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolvedMove {
    /// The group's first cell in row-major order (its representative, as `CheckDeadState`
    /// lists it); tapping it clears the group.
    pub position: Position,
    /// The group's colour, `1..=16`.
    pub color: u8,
    /// The group's size in cells, `>= min_group`.
    pub size: usize,
    /// The move's score under the rule.
    pub move_score: u64,
}

/// The best game a search found, and what the search cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The taps, in order, each legal on the board left by the ones before; the last leaves no
    /// legal group (empty when the starting board has none).
    pub moves: Vec<SolvedMove>,
    /// The sum of the move scores plus `end_bonus`: what `Tap` calls in sequence total.
    pub score: i64,
    /// The rule's end adjustment for the final board.
    pub end_bonus: i64,
    /// The board after the last tap (game over).
    pub board: SettledBoard,
    /// Tiles left on `board`.
    pub tiles_left: usize,
    /// Taps applied by the search (tree and playouts).
    pub nodes: u64,
    /// Playouts run.
    pub playouts: u64,
    /// Levels that ran to the end in the first run, `0..=level`.
    pub levels_completed: u32,
    /// Runs of the whole level schedule that ran to the end (with
    /// [`SolveSchedule::Restarts`], possibly more than one).
    pub runs_completed: u32,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// Why the search stopped.
    pub stop: SolveStop,
}

/// Searches for the highest-scoring tap sequence from `board` (see the module docs for the
/// method, its sources and its limits). Never fails: a board with no legal group gives an
/// empty sequence scored with its end adjustment.
pub fn solve(board: &SettledBoard, options: &SolveOptions, control: &SolveControl) -> Solution {
    let started = Instant::now();
    let (best, mut search) = match CompactGame::from_board(board) {
        Some(game) => run(game, options, control),
        None => run(CollapseGame::new(board), options, control),
    };
    search.elapsed = started.elapsed();
    finish(board, options, &best, search)
}

/// Search effort and outcome, before the sequence is written out.
struct Effort {
    nodes: u64,
    playouts: u64,
    levels_completed: u32,
    runs_completed: u32,
    elapsed: Duration,
    stop: SolveStop,
}

/// Replays the best sequence through the recording [`tap`](super::tap) to name each group by
/// its representative and score it as `Tap` does.
fn finish(
    board: &SettledBoard,
    options: &SolveOptions,
    best: &[Position],
    effort: Effort,
) -> Solution {
    let mut current = board.clone();
    let mut moves = Vec::with_capacity(best.len());
    let mut score = 0i64;
    for &at in best {
        match super::tap(&current, at, options.rule, options.min_group) {
            Ok(outcome) => {
                moves.push(SolvedMove {
                    position: outcome.cleared[0],
                    color: outcome.color,
                    size: outcome.cleared.len(),
                    move_score: outcome.move_score,
                });
                score += outcome.move_score as i64;
                current = outcome.board;
            }
            Err(error) => {
                debug_assert!(false, "the search played an illegal tap at {at}: {error}");
                break;
            }
        }
    }
    let tiles_left = current.board().tile_count();
    let end_bonus = if super::is_game_over(&current, options.min_group) {
        options.rule.end_bonus(tiles_left)
    } else {
        0
    };
    Solution {
        moves,
        score: score + end_bonus,
        end_bonus,
        board: current,
        tiles_left,
        nodes: effort.nodes,
        playouts: effort.playouts,
        levels_completed: effort.levels_completed,
        runs_completed: effort.runs_completed,
        elapsed: effort.elapsed,
        stop: effort.stop,
    }
}

/// A position the search can expand and play out.
trait SearchGame: Clone {
    /// Appends a cell of every legal group to `out`.
    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>);
    /// Taps the legal group holding `at`; returns its size.
    fn play(&mut self, at: Position, min_group: MinGroup) -> usize;
    /// Tiles on the board.
    fn tiles_left(&self) -> usize;
    /// Plays a (TabuColorRandom when `tabu`) random game to its end, appending the taps to
    /// `taps`; returns the score of the taps plus the end adjustment. Leaves `self` anywhere.
    fn playout(
        &mut self,
        rule: ScoringRule,
        min_group: MinGroup,
        tabu: bool,
        rng: &mut crate::SeededRng,
        taps: &mut Vec<Position>,
    ) -> i64;
}

impl SearchGame for CompactGame {
    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>) {
        self.representatives_into(min_group.get(), out);
    }

    fn play(&mut self, at: Position, _: MinGroup) -> usize {
        self.tap_at(at)
    }

    fn tiles_left(&self) -> usize {
        CompactGame::tiles_left(self)
    }

    fn playout(
        &mut self,
        rule: ScoringRule,
        min_group: MinGroup,
        tabu: bool,
        rng: &mut crate::SeededRng,
        taps: &mut Vec<Position>,
    ) -> i64 {
        let tabu = if tabu {
            self.most_frequent_slot()
        } else {
            None
        };
        let mut score = 0;
        let mut known = KnownGroups::new();
        while let Some(TapGroup { position, size, .. }) =
            self.tap_random_avoiding(min_group, tabu, rng, &mut known)
        {
            taps.push(position);
            score += rule.move_score(size) as i64;
        }
        score + rule.end_bonus(CompactGame::tiles_left(self))
    }
}

impl SearchGame for CollapseGame {
    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>) {
        let mut groups = Vec::new();
        self.legal_groups_into(min_group, &mut groups);
        out.extend(groups.iter().map(|g| g.position));
    }

    fn play(&mut self, at: Position, min_group: MinGroup) -> usize {
        self.apply_tap(at, min_group).unwrap_or(0)
    }

    fn tiles_left(&self) -> usize {
        CollapseGame::tiles_left(self)
    }

    fn playout(
        &mut self,
        rule: ScoringRule,
        min_group: MinGroup,
        tabu: bool,
        rng: &mut crate::SeededRng,
        taps: &mut Vec<Position>,
    ) -> i64 {
        // The tabu colour: the most tiles, the lowest colour on a tie.
        let tabu = tabu
            .then(|| {
                (0..self.slot_count())
                    .map(|slot| {
                        let tiles: u32 = (0..self.columns())
                            .map(|col| self.plane(col, slot).count_ones())
                            .sum();
                        (tiles, std::cmp::Reverse(slot))
                    })
                    .max()
                    .map(|(_, std::cmp::Reverse(slot))| self.color_of(slot))
            })
            .flatten();
        let mut game = CollapsePlayout::new(self.clone(), min_group);
        let mut score = 0;
        while game.group_count() > 0 {
            // Uniform among the groups of the other colours, among all only when every legal
            // group has the tabu colour. Rejection first (up to 16 draws, each uniform, so an
            // accepted draw is uniform among the allowed groups), then an exact scan: the
            // draw stays uniform among the allowed groups either way, as on CompactGame.
            let count = game.group_count();
            let mut index = rng.random_range(0..count);
            let mut tries = 0;
            while tabu.is_some() && Some(game.group(index).color) == tabu && tries < 16 {
                index = rng.random_range(0..count);
                tries += 1;
            }
            if tabu.is_some() && Some(game.group(index).color) == tabu {
                let allowed: Vec<usize> = (0..count)
                    .filter(|&i| Some(game.group(i).color) != tabu)
                    .collect();
                if !allowed.is_empty() {
                    index = allowed[rng.random_range(0..allowed.len())];
                }
            }
            taps.push(game.group(index).position);
            score += rule.move_score(game.tap_group(index)) as i64;
        }
        score + rule.end_bonus(game.game().tiles_left())
    }
}

/// The state of one search.
struct Search<'c, G> {
    rule: ScoringRule,
    min_group: MinGroup,
    tabu: bool,
    /// Screening width of the levels of 2 or more (`None`: plain NMCS).
    width: Option<usize>,
    rng: crate::SeededRng,
    control: &'c SolveControl<'c>,
    max_nodes: u64,
    nodes: u64,
    playouts: u64,
    stop: Option<SolveStop>,
    /// The taps from the starting board to the position being searched, and their score.
    path: Vec<Position>,
    path_score: i64,
    /// The best whole game found, from the starting board, and its score.
    best: Vec<Position>,
    best_score: i64,
    /// The taps of the last playout.
    playout_taps: Vec<Position>,
    _game: std::marker::PhantomData<G>,
}

/// Runs the search on `root`: the best sequence and the effort.
fn run<G: SearchGame>(
    root: G,
    options: &SolveOptions,
    control: &SolveControl,
) -> (Vec<Position>, Effort) {
    let mut search = Search::<G> {
        rule: options.rule,
        min_group: options.min_group,
        tabu: options.rule != ScoringRule::Clickomania,
        width: match options.method {
            SolveMethod::Nmcs => None,
            SolveMethod::Screened(width) => Some(width.get()),
        },
        rng: crate::rng_from_seed(options.seed),
        control,
        max_nodes: options.max_nodes.get(),
        nodes: 0,
        playouts: 0,
        stop: None,
        path: Vec::new(),
        path_score: 0,
        best: Vec::new(),
        best_score: i64::MIN,
        playout_taps: Vec::new(),
        _game: std::marker::PhantomData,
    };
    let mut moves = Vec::new();
    root.moves_into(options.min_group, &mut moves);
    let (mut levels_completed, mut runs_completed) = (0, 0);
    if moves.is_empty() {
        search.best_score = options.rule.end_bonus(root.tiles_left());
        levels_completed = options.level.get();
        runs_completed = 1;
    } else {
        'runs: loop {
            // One playout whatever the limits, so there is always a whole game to return;
            // later runs check the limits first.
            if runs_completed > 0 && search.limit_reached() {
                break;
            }
            let score = search.run_playout(&root);
            // Each run starts from its own first playout, not the best game of earlier runs.
            let mut seed = (score, search.playout_taps.clone());
            for level in 1..=options.level.get() {
                match search.nested(&root, level, Some(seed)) {
                    Some(found) => seed = found,
                    None => break 'runs,
                }
                if runs_completed == 0 {
                    levels_completed = level;
                }
            }
            runs_completed += 1;
            if options.schedule == SolveSchedule::Single {
                break;
            }
        }
    }
    let effort = Effort {
        nodes: search.nodes,
        playouts: search.playouts,
        levels_completed,
        runs_completed,
        elapsed: Duration::ZERO,
        stop: search.stop.unwrap_or(SolveStop::Completed),
    };
    (search.best, effort)
}

impl<G: SearchGame> Search<'_, G> {
    /// True (and the reason recorded) when a limit is reached.
    fn limit_reached(&mut self) -> bool {
        if self.stop.is_some() {
            return true;
        }
        let control = self.control;
        self.stop = if self.nodes >= self.max_nodes {
            Some(SolveStop::NodeBudget)
        } else if control.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            Some(SolveStop::Cancelled)
        } else if control.time_limit.is_some() || control.deadline.is_some() {
            let now = Instant::now();
            if control.time_limit.is_some_and(|t| now >= t) {
                Some(SolveStop::TimeLimit)
            } else if control.deadline.is_some_and(|d| now >= d) {
                Some(SolveStop::Deadline)
            } else {
                None
            }
        } else {
            None
        };
        self.stop.is_some()
    }

    /// One playout from `game` (the position after `path`): its score from `game` on, with
    /// its taps in `playout_taps`; the best game updated.
    fn run_playout(&mut self, game: &G) -> i64 {
        let mut game = game.clone();
        self.playout_taps.clear();
        let score = game.playout(
            self.rule,
            self.min_group,
            self.tabu,
            &mut self.rng,
            &mut self.playout_taps,
        );
        self.nodes += self.playout_taps.len() as u64;
        self.playouts += 1;
        let total = self.path_score + score;
        if total > self.best_score {
            self.best_score = total;
            self.best.clear();
            self.best.extend_from_slice(&self.path);
            self.best.extend_from_slice(&self.playout_taps);
        }
        score
    }

    /// A level-`level` NMCS from `game` (the position after `path`), starting from the
    /// memorised sequence `seed` (score and taps from `game`) when given. Returns the best
    /// score and sequence from `game`, or `None` when a limit stopped it.
    fn nested(
        &mut self,
        game: &G,
        level: u32,
        seed: Option<(i64, Vec<Position>)>,
    ) -> Option<(i64, Vec<Position>)> {
        let (depth, path_score) = (self.path.len(), self.path_score);
        let result = self.nested_steps(game, level, seed);
        self.path.truncate(depth);
        self.path_score = path_score;
        result
    }

    fn nested_steps(
        &mut self,
        game: &G,
        level: u32,
        seed: Option<(i64, Vec<Position>)>,
    ) -> Option<(i64, Vec<Position>)> {
        let (mut best_score, mut best) = seed.unwrap_or((i64::MIN, Vec::new()));
        let mut position = game.clone();
        let (mut played, mut played_score) = (0usize, 0i64);
        let mut moves = Vec::new();
        loop {
            moves.clear();
            position.moves_into(self.min_group, &mut moves);
            if moves.is_empty() {
                let score = played_score + self.rule.end_bonus(position.tiles_left());
                if score > best_score {
                    best_score = score;
                    best.truncate(played);
                }
                return Some((best_score, best));
            }
            if let Some(width) = self.width.filter(|&w| level >= 2 && moves.len() > w) {
                // Simulation reduction: one playout after every move, then the level below
                // after the best `width` of them only.
                let mut ranked = Vec::with_capacity(moves.len());
                for (index, &at) in moves.iter().enumerate() {
                    if self.limit_reached() {
                        return None;
                    }
                    let mut child = position.clone();
                    let gain = self.rule.move_score(child.play(at, self.min_group)) as i64;
                    self.nodes += 1;
                    self.path.push(at);
                    self.path_score += gain;
                    let score = self.run_playout(&child);
                    self.path.pop();
                    self.path_score -= gain;
                    let total = played_score + gain + score;
                    if total > best_score {
                        best_score = total;
                        best.truncate(played);
                        best.push(at);
                        best.extend_from_slice(&self.playout_taps);
                    }
                    ranked.push((std::cmp::Reverse(total), index));
                }
                ranked.sort_unstable();
                moves = ranked[..width].iter().map(|&(_, i)| moves[i]).collect();
            }
            for &at in &moves {
                if self.limit_reached() {
                    return None;
                }
                let mut child = position.clone();
                let gain = self.rule.move_score(child.play(at, self.min_group)) as i64;
                self.nodes += 1;
                self.path.push(at);
                self.path_score += gain;
                let found = if level <= 1 {
                    let score = self.run_playout(&child);
                    Some((score, None))
                } else {
                    self.nested(&child, level - 1, None)
                        .map(|(score, taps)| (score, Some(taps)))
                };
                self.path.pop();
                self.path_score -= gain;
                let (score, taps) = found?;
                let total = played_score + gain + score;
                if total > best_score {
                    best_score = total;
                    best.truncate(played);
                    best.push(at);
                    best.extend_from_slice(taps.as_deref().unwrap_or(&self.playout_taps));
                }
            }
            // Follow the best sequence one step.
            let Some(&next) = best.get(played) else {
                return Some((best_score, best));
            };
            let gain = self.rule.move_score(position.play(next, self.min_group)) as i64;
            self.nodes += 1;
            self.path.push(next);
            self.path_score += gain;
            played += 1;
            played_score += gain;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn settled(text: &str) -> SettledBoard {
        SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
    }

    fn options(rule: ScoringRule, level: u32, max_nodes: u64) -> SolveOptions {
        SolveOptions {
            rule,
            min_group: MinGroup::DEFAULT,
            seed: 1,
            level: SolveLevel::parse(level).unwrap(),
            max_nodes: NodeBudget::parse(max_nodes).unwrap(),
            schedule: SolveSchedule::Single,
            method: SolveMethod::Nmcs,
        }
    }

    /// Plays `solution` through `tap` and checks its score, sizes and final board.
    fn check_replays(board: &SettledBoard, options: &SolveOptions, solution: &Solution) {
        let mut current = board.clone();
        let mut score = 0;
        for m in &solution.moves {
            let outcome =
                super::super::tap(&current, m.position, options.rule, options.min_group).unwrap();
            assert_eq!(outcome.cleared[0], m.position);
            assert_eq!((outcome.color, outcome.cleared.len()), (m.color, m.size));
            score += outcome.total_score();
            current = outcome.board;
        }
        assert!(super::super::is_game_over(&current, options.min_group));
        assert_eq!(current, solution.board);
        assert_eq!(score, solution.score);
    }

    #[test]
    fn finds_the_clearing_order() {
        // The best order is not the greedy one; checked against a brute force.
        let board = settled("ACB/ACB/BCA");
        for rule in [ScoringRule::SameGame, ScoringRule::PopStar] {
            let options = options(rule, 2, 10_000);
            let solution = solve(&board, &options, &SolveControl::default());
            check_replays(&board, &options, &solution);
            assert_eq!(solution.score, brute_force(&board, rule), "{rule:?}");
            assert_eq!(solution.stop, SolveStop::Completed);
            assert_eq!(solution.levels_completed, 2);
            assert!(solution.nodes > 0 && solution.playouts > 0);
        }
    }

    #[test]
    fn a_board_with_no_group_is_scored_as_it_is() {
        let board = settled("AB/BA");
        let solution = solve(
            &board,
            &options(ScoringRule::PopStar, 1, 1),
            &SolveControl::default(),
        );
        assert_eq!(solution.moves, Vec::new());
        assert_eq!(solution.score, 2000 - 20 * 16);
        assert_eq!((solution.nodes, solution.playouts), (0, 0));
        assert_eq!(solution.stop, SolveStop::Completed);
    }

    #[test]
    fn small_boards_are_solved_exactly() {
        // Against a brute force over every tap order.
        for (text, rule) in [
            ("AAB/BBA", ScoringRule::SameGame),
            ("ABAB/BABA/AABB", ScoringRule::PopStar),
            ("ABCA/ABCA/CBAA", ScoringRule::BubbleBreaker),
            ("ABCA/ABCA/CBAA", ScoringRule::Clickomania),
        ] {
            let board = settled(text);
            let options = options(rule, 3, 1_000_000);
            let solution = solve(&board, &options, &SolveControl::default());
            check_replays(&board, &options, &solution);
            assert_eq!(solution.score, brute_force(&board, rule), "{text} {rule:?}");
        }
    }

    fn brute_force(board: &SettledBoard, rule: ScoringRule) -> i64 {
        let groups = super::super::legal_groups(board, rule, MinGroup::DEFAULT);
        if groups.is_empty() {
            return rule.end_bonus(board.board().tile_count());
        }
        groups
            .iter()
            .map(|g| {
                let outcome =
                    super::super::tap(board, g.representative, rule, MinGroup::DEFAULT).unwrap();
                outcome.move_score as i64 + brute_force(&outcome.board, rule)
            })
            .max()
            .unwrap()
    }

    #[test]
    fn the_node_budget_makes_it_deterministic_and_bounds_it() {
        let mut rng = crate::rng_from_seed(5);
        for (width, height) in [(12, 12), (20, 18)] {
            let cells: Vec<u32> = (0..width * height)
                .map(|_| rng.random_range(1..=4))
                .collect();
            let board =
                SettledBoard::try_from(Board::from_raw(width, height, &cells).unwrap()).unwrap();
            let options = options(ScoringRule::SameGame, 2, 20_000);
            let first = solve(&board, &options, &SolveControl::default());
            let again = solve(&board, &options, &SolveControl::default());
            assert_eq!(first.moves, again.moves);
            assert_eq!((first.nodes, first.playouts), (again.nodes, again.playouts));
            assert_eq!(first.stop, SolveStop::NodeBudget);
            // The overshoot is at most one playout.
            let cells = (width * height) as u64;
            assert!(first.nodes >= 20_000 && first.nodes < 20_000 + cells / 2 + 1);
            check_replays(&board, &options, &first);
            // A larger budget never scores lower: the search is anytime with the same draws.
            let more = solve(
                &board,
                &SolveOptions {
                    max_nodes: NodeBudget::parse(60_000).unwrap(),
                    ..options
                },
                &SolveControl::default(),
            );
            assert!(
                more.score >= first.score,
                "{} < {}",
                more.score,
                first.score
            );
        }
    }

    #[test]
    fn clocks_and_cancel_stop_with_a_whole_game() {
        let mut rng = crate::rng_from_seed(9);
        let cells: Vec<u32> = (0..15 * 15).map(|_| rng.random_range(1..=5)).collect();
        let board = SettledBoard::try_from(Board::from_raw(15, 15, &cells).unwrap()).unwrap();
        let options = options(ScoringRule::SameGame, 3, MAX_SOLVE_NODES);
        let cancel = AtomicBool::new(true);
        let past = Instant::now();
        for (control, stop) in [
            (
                SolveControl {
                    cancel: Some(&cancel),
                    ..SolveControl::default()
                },
                SolveStop::Cancelled,
            ),
            (
                SolveControl {
                    time_limit: Some(past),
                    ..SolveControl::default()
                },
                SolveStop::TimeLimit,
            ),
            (
                SolveControl {
                    deadline: Some(past),
                    ..SolveControl::default()
                },
                SolveStop::Deadline,
            ),
        ] {
            let solution = solve(&board, &options, &control);
            assert_eq!(solution.stop, stop);
            assert_eq!(solution.playouts, 1);
            assert!(!solution.moves.is_empty());
            check_replays(&board, &options, &solution);
        }
        let soon = SolveControl {
            time_limit: Some(Instant::now() + Duration::from_millis(50)),
            ..SolveControl::default()
        };
        let solution = solve(&board, &options, &soon);
        assert_eq!(solution.stop, SolveStop::TimeLimit);
        assert!(
            solution.elapsed < Duration::from_secs(2),
            "{:?}",
            solution.elapsed
        );
        check_replays(&board, &options, &solution);
    }

    #[test]
    fn min_group_three_is_respected() {
        let board = settled("AAAB/ABBB/CCAC");
        let options = SolveOptions {
            min_group: MinGroup::parse(3).unwrap(),
            ..options(ScoringRule::PopStar, 2, 10_000)
        };
        let solution = solve(&board, &options, &SolveControl::default());
        assert!(solution.moves.iter().all(|m| m.size >= 3));
        check_replays(&board, &options, &solution);
    }

    #[test]
    fn screening_keeps_the_search_whole_and_deterministic() {
        // On 12x12 (compact) and 20x18 (general) random boards: a screened search replays to
        // its score and repeats itself; with a width above every step's move count it is plain
        // NMCS, draw for draw.
        let mut rng = crate::rng_from_seed(11);
        for (width, height) in [(12, 12), (20, 18)] {
            let cells: Vec<u32> = (0..width * height)
                .map(|_| rng.random_range(1..=4))
                .collect();
            let board =
                SettledBoard::try_from(Board::from_raw(width, height, &cells).unwrap()).unwrap();
            let plain = SolveOptions {
                schedule: SolveSchedule::Restarts,
                ..options(ScoringRule::SameGame, 2, 30_000)
            };
            let screened = SolveOptions {
                method: SolveMethod::Screened(ScreenWidth::parse(3).unwrap()),
                ..plain
            };
            let first = solve(&board, &screened, &SolveControl::default());
            check_replays(&board, &screened, &first);
            assert_eq!(first.stop, SolveStop::NodeBudget);
            let again = solve(&board, &screened, &SolveControl::default());
            assert_eq!((&first.moves, first.nodes), (&again.moves, again.nodes));
            let wide = SolveOptions {
                method: SolveMethod::Screened(ScreenWidth::parse(MAX_SCREEN_WIDTH).unwrap()),
                ..plain
            };
            let (a, b) = (
                solve(&board, &wide, &SolveControl::default()),
                solve(&board, &plain, &SolveControl::default()),
            );
            assert_eq!(
                (a.moves, a.nodes, a.playouts),
                (b.moves, b.nodes, b.playouts)
            );
        }
    }

    #[test]
    fn parameters_are_range_checked() {
        assert_eq!(SolveLevel::parse(0).map(SolveLevel::get), Ok(2));
        assert!(SolveLevel::parse(6).is_err());
        assert_eq!(NodeBudget::parse(0).map(NodeBudget::get), Ok(1_000_000));
        assert!(NodeBudget::parse(MAX_SOLVE_NODES + 1).is_err());
        assert_eq!(parse_time_limit(0), Ok(None));
        assert_eq!(parse_time_limit(5), Ok(Some(Duration::from_millis(5))));
        assert!(parse_time_limit(MAX_SOLVE_MILLIS + 1).is_err());
        assert_eq!(ScreenWidth::parse(0).map(ScreenWidth::get), Ok(16));
        assert_eq!(ScreenWidth::parse(256).map(ScreenWidth::get), Ok(256));
        assert!(ScreenWidth::parse(257).is_err());
    }
}
