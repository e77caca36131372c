//! The swap family (match-3; docs/rules.md sections 1, 2 and 6): one board type that may carry
//! layers, one step and outcome, and the moves on them. Each call takes one path: a board
//! without layers played without special pieces runs on colour planes alone (`cascade`), any
//! other with the hole, piece-kind and special masks (`level`).

mod arrange;
mod board;
mod cascade;
mod cascade_loop;
mod judge;
mod layered;
mod level;
mod level_game;
mod level_layers;
mod obstacles;
mod pieces;
mod policy;
mod resolve;
mod stable;
mod step;
#[cfg(test)]
mod test_support;

pub use arrange::{generate_swap_board, generate_swap_board_with_holes, shuffle};
pub use board::SwapBoard;
pub use judge::{
    count_valid_swaps, first_valid_swap_from, is_dead, judge_swap, valid_swaps,
    valid_swaps_with_combinations,
};
pub use level::Combination;
pub use level_game::{
    Goal, GoalProgress, Level, LevelMove, LevelPolicy, LevelSimulation, LevelStart, LevelState,
    MovesLeft, generate_on_layout, play_level_move, play_level_move_into, simulate_level,
    simulate_level_reporting,
};
pub use level_layers::LevelLayers;
pub use obstacles::LevelTally;
pub use pieces::{PieceKind, Special, cell_text};
pub use policy::{GameTotals, Policy, RankedSwap, best_swap, play_game, ranked_swaps};
pub use resolve::{
    SwapPreview, certain_outcomes, certain_outcomes_while, check_and_preview_swap,
    check_swap_positions, play_swap, preview_swap, resolve_board, resolve_board_into, resolve_swap,
    resolve_swap_into,
};
pub use stable::{StableBoard, is_stable};
pub use step::{
    CascadeOptions, CascadeOutcome, CascadeStep, CascadeSummary, CertainOutcome, Hit, PlayedMove,
    Refill, StepSink,
};
