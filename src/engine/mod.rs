//! The puzzle engine: pure rules, no transport. Boards are parsed into types that are valid by
//! construction ([`Board`], [`StableBoard`], [`SettledBoard`]); every operation returns a
//! domain result or an [`EngineError`].
//!
//! All randomness comes from one caller-supplied RNG stream ([`rng_from_seed`]) that advances
//! across a whole call, so the same request gives the same result on every run.

mod arrange;
mod bitboard;
pub mod board;
pub mod cascade;
pub mod collapse;
pub mod error;
pub mod generate;
pub mod gravity;
pub mod level;
pub mod moves;
pub mod params;
pub mod position;
pub mod runs;
pub mod scoring;
pub mod settled;
pub mod shuffle;
pub mod stable;

pub use board::{Board, BoardError, EMPTY, MAX_COLOR, MAX_SIDE, Position};
pub use cascade::{
    CascadeOptions, CascadeOutcome, CascadeStep, CascadeSummary, CertainOutcome, PlayedMove,
    Refill, StepSink, certain_outcomes, check_swap_positions, play_swap, preview_swap,
    resolve_board, resolve_board_into, resolve_swap, resolve_swap_into,
};
pub use collapse::{
    ColumnShift, LegalGroup, NodeBudget, RefusedTap, Replay, ReplayedMove, ScreenWidth, Solution,
    SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule, SolveStop, SolvedMove,
    TapOutcome, TapRefusal, board_digest, is_game_over, legal_groups, replay, solve, tap,
};
pub use error::{EngineError, LevelError, SwapRejection, TapRejection, Unsettled};
pub use generate::{generate_collapse_board, generate_swap_board};
pub use gravity::{Fall, Spawn};
pub use moves::{
    Swap, SwapVerdict, count_valid_swaps, first_valid_swap_from, is_dead, judge_swap, valid_swaps,
};
pub use params::{GenerationSize, MinGroup};
pub use runs::{Group, find_groups, has_run, matched_positions};
pub use scoring::ScoringRule;
pub use settled::SettledBoard;
pub use shuffle::shuffle;
pub use stable::{StableBoard, is_stable};

/// The RNG every seeded operation draws from: ChaCha8 seeded with `seed_from_u64(seed)`.
/// Its output is portable and fixed for a given seed, which the golden tests pin.
pub type SeededRng = rand_chacha::ChaCha8Rng;

/// The RNG stream for a request's `seed`.
pub fn rng_from_seed(seed: u64) -> SeededRng {
    rand::SeedableRng::seed_from_u64(seed)
}
