//! matchgrid-engine: the rules of matchgrid's tile-matching puzzles, with no transport. A Rust
//! game server can embed it to run the same rules in-process that the matchgrid gRPC service
//! runs (the service crate is a thin layer over this one).
//!
//! Two families (docs/rules.md in the repository is the contract):
//! - **swap** (match-3): [`generate_swap_board`], [`judge_swap`], [`resolve_swap`] and
//!   [`play_swap`] (swap, clear runs, gravity, refill, repeat), [`is_dead`], [`shuffle()`],
//!   hints ([`ranked_swaps`]) and simulated games ([`play_game`]), on
//!   one [`SwapBoard`] that may carry a hole layer and a piece-kind layer (special pieces,
//!   created when [`CascadeOptions::specials`] is on);
//! - **collapse** (SameGame, PopStar): [`generate_collapse_board`], [`tap()`], [`legal_groups()`],
//!   [`is_game_over`], [`replay()`], [`solve()`].
//!
//! Boards are parsed into types that are valid by construction ([`Board`], [`SwapBoard`],
//! [`StableBoard`], [`SettledBoard`]); every operation returns a domain result or an [`EngineError`].
//!
//! All randomness comes from one caller-supplied RNG stream ([`rng_from_seed`]) that advances
//! across a whole call, so the same request gives the same result on every run.
//!
//! # Example
//!
//! Generate a seeded 8x8 board with 5 colours, play its first valid swap and read the cascade:
//!
//! ```
//! use matchgrid_engine::{
//!     CascadeOptions, GenerationSize, Refill, first_valid_swap_from, generate_swap_board,
//!     resolve_swap, rng_from_seed,
//! };
//!
//! let mut rng = rng_from_seed(7);
//! let size = GenerationSize::for_swap(8, 8, 5)?;
//! // A stable board (no run of 3) with at least 3 valid swaps, and how many it has.
//! let (board, valid_swaps) = generate_swap_board(size, 3, &mut rng)?;
//! assert!(valid_swaps >= 3);
//!
//! let swap = first_valid_swap_from(&board, 0).expect("a generated board has a valid swap");
//! let options = CascadeOptions {
//!     refill: Refill::Random { colors: 5 },
//!     auto_shuffle: true,
//!     max_steps: 1000,
//!     specials: false,
//! };
//! let outcome = resolve_swap(board, swap, options, &mut rng)?;
//!
//! // Step 1 clears the run the swap made; later steps are the cascade's chain reactions.
//! let first = &outcome.steps[0];
//! assert_eq!(first.index, 1);
//! assert!(!first.groups.is_empty());
//! assert_eq!(outcome.total_score, outcome.steps.iter().map(|step| step.score).sum::<u64>());
//! for step in &outcome.steps {
//!     println!("step {}: {} group(s), {} fall(s), {} spawn(s), {} points",
//!         step.index, step.groups.len(), step.falls.len(), step.spawns.len(), step.score);
//! }
//! println!("{}", outcome.board);
//! # Ok::<(), matchgrid_engine::EngineError>(())
//! ```

#![warn(missing_docs)]

mod arrange;
mod bitboard;
mod board;
mod cellset;
mod collapse;
mod error;
mod generate;
mod gravity;
mod moves;
mod params;
mod position;
mod runs;
mod scoring;
mod settled;
mod shuffle;
mod stable;
mod swap;

// Boards and their parts.
pub use board::{Board, BoardError, COLOR_LETTERS, EMPTY, MAX_COLOR, MAX_SIDE, Position};
pub use error::{
    EngineError, Layer, LevelError, LevelStatus, SwapRejection, TapRejection, Unsettled,
};
pub use params::{GenerationSize, MinGroup};
pub use settled::SettledBoard;

// The swap family.
pub use generate::generate_collapse_board;
pub use gravity::{Fall, Spawn};
pub use moves::{Swap, SwapVerdict};
pub use runs::{Group, find_groups, has_run, matched_positions};
pub use swap::{
    CascadeOptions, CascadeOutcome, CascadeStep, CascadeSummary, CertainOutcome, Combination,
    GameTotals, Goal, GoalProgress, Hit, Level, LevelLayers, LevelMove, LevelPolicy,
    LevelSimulation, LevelStart, LevelState, LevelTally, MovesLeft, PieceKind, PlayedMove, Policy,
    RankedSwap, Refill, Special, StableBoard, StepSink, SwapBoard, SwapPreview, best_swap,
    cell_text, certain_outcomes, certain_outcomes_while, check_and_preview_swap,
    check_swap_positions, count_valid_swaps, first_valid_swap_from, generate_on_layout,
    generate_swap_board, generate_swap_board_with_holes, is_dead, is_stable, judge_swap, play_game,
    play_level_move, play_level_move_into, play_swap, preview_swap, ranked_swaps, resolve_board,
    resolve_board_into, resolve_swap, resolve_swap_into, shuffle, simulate_level,
    simulate_level_reporting, valid_swaps, valid_swaps_with_combinations,
};

// The collapse family.
pub use collapse::{
    BeamOptions, BeamWidth, COMPACT_SIDE, ClearProof, ClearSolution, Clearability, ClearableBoard,
    CollapseGame, CollapsePlayout, ColumnShift, CompactGame, DEFAULT_BEAM_WIDTH,
    DEFAULT_REFINE_FACTOR, DEFAULT_SCREEN_WIDTH, DEFAULT_SOLVE_LEVEL, DEFAULT_SOLVE_NODES,
    LegalGroup, MAX_BEAM_WIDTH, MAX_CLEAR_TABLE_BYTES, MAX_REFINE_FACTOR, MAX_REPLAY_TAPS,
    MAX_SCREEN_WIDTH, MAX_SOLVE_LEVEL, MAX_SOLVE_MILLIS, MAX_SOLVE_NODES, MAX_SOLVE_THREADS,
    NodeBudget, RefineFactor, RefusedTap, Replay, ReplayedMove, ScreenWidth, Solution,
    SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule, SolveStop, SolveThreads,
    SolvedMove, TapGroup, TapOutcome, TapRefusal, board_digest, generate_clearable_collapse_board,
    is_game_over, legal_groups, parse_time_limit, replay, solve, solve_clear, tap,
};
pub use scoring::ScoringRule;

/// The RNG every seeded operation draws from: ChaCha8 seeded with `seed_from_u64(seed)`.
/// Its output is portable and fixed for a given seed, which the golden tests pin.
pub type SeededRng = rand_chacha::ChaCha8Rng;

/// The RNG stream for a request's `seed`.
pub fn rng_from_seed(seed: u64) -> SeededRng {
    rand::SeedableRng::seed_from_u64(seed)
}
