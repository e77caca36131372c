//! The collapse family: PopStar (消灭星星), SameGame, Clickomania, Bubble Breaker (docs/rules.md section 3).
//!
//! The group of a tapped cell is its 4-connected component of one colour. A tap is legal iff
//! the cell is non-empty and its group has at least `min_group` cells. Applying it clears the
//! whole group, applies gravity within each column, then removes every entirely empty column,
//! sliding the columns to its right left in order. The game is over when no legal group remains.
//!
//! The rules run on column bitboards ([`CollapseGame`], in [`bitboard`]) for every size, and on
//! 256-bit planes ([`Plane`](plane::Plane), in [`plane`]; [`CompactGame`], in [`compact`]) for
//! boards of at most 16x16: [`tap`], [`legal_groups`] and [`is_game_over`] build the planes
//! straight from the row-major [`SettledBoard`] when it fits (only the tapped colour and the
//! occupied cells for a tap, in [`plane_tap`]), else the column bitboards (in [`column_api`]),
//! and record what the API reports (cleared cells, falls, column shifts). The property tests
//! (`tests/collapse_bitboards.rs` in the repository) hold both paths to the naive reference of
//! `tests/reference/collapse.rs` on every size 1..=64.
//!
//! On top of the rules: [`solve()`] (Nested Monte-Carlo Search with TabuColorRandom playouts, in
//! [`solve`](mod@solve), its parameters in `solve::options`) and [`replay()`] (a whole game
//! checked at once, with [`board_digest`]).

mod bitboard;
mod clearable;
mod column_api;
mod compact;
mod plane;
mod plane_tap;
mod playout;
mod replay;
mod solve;

pub use bitboard::{CollapseGame, TapGroup};
pub use clearable::{ClearableBoard, generate_clearable_collapse_board};
pub use compact::{COMPACT_SIDE, CompactGame};
pub use playout::CollapsePlayout;
pub use replay::{
    MAX_REPLAY_TAPS, RefusedTap, Replay, ReplayedMove, TapRefusal, board_digest, replay,
};
pub use solve::{
    BeamOptions, BeamWidth, ClearProof, ClearSolution, Clearability, DEFAULT_BEAM_WIDTH,
    DEFAULT_REFINE_FACTOR, DEFAULT_SCREEN_WIDTH, DEFAULT_SOLVE_LEVEL, DEFAULT_SOLVE_NODES,
    MAX_BEAM_WIDTH, MAX_CLEAR_TABLE_BYTES, MAX_REFINE_FACTOR, MAX_SCREEN_WIDTH, MAX_SOLVE_LEVEL,
    MAX_SOLVE_MILLIS, MAX_SOLVE_NODES, MAX_SOLVE_THREADS, NodeBudget, RefineFactor, ScreenWidth,
    Solution, SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule, SolveStop,
    SolveThreads, SolvedMove, parse_time_limit, solve, solve_clear,
};

use super::board::{Board, Position};
use super::error::EngineError;
use super::gravity::Fall;
use super::params::MinGroup;
use super::scoring::ScoringRule;
use super::settled::SettledBoard;

/// A column that moved left when empty columns closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnShift {
    /// Column index before the collapse, `1..width`.
    pub from_col: u32,
    /// Column index after the collapse (`< from_col`).
    pub to_col: u32,
}

/// The result of a legal tap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapOutcome {
    /// The cleared group, row-major: at least `min_group` cells.
    pub cleared: Vec<Position>,
    /// Its colour, `1..=16`.
    pub color: u8,
    /// Gravity moves within columns, ordered by `from` row-major (before the column collapse).
    pub falls: Vec<Fall>,
    /// Columns that moved left, ordered by `from_col`.
    pub column_shifts: Vec<ColumnShift>,
    /// The settled board after the move.
    pub board: SettledBoard,
    /// Score of this move alone under the rule (docs/rules.md section 3).
    pub move_score: u64,
    /// Tiles left on `board`.
    pub tiles_left: usize,
    /// True when `board` has no legal group.
    pub game_over: bool,
    /// End adjustment when `game_over`, else 0.
    pub end_bonus: i64,
}

impl TapOutcome {
    /// `move_score + end_bonus`.
    pub fn total_score(&self) -> i64 {
        self.move_score as i64 + self.end_bonus
    }
}

/// A legal group, as `CheckDeadState` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegalGroup {
    /// The group's first cell in row-major order.
    pub representative: Position,
    /// Its colour, `1..=16`.
    pub color: u8,
    /// Its size in cells, `>= min_group`.
    pub size: usize,
    /// What tapping it would score under the rule.
    pub score: u64,
}

/// Applies a tap at `position` (docs/rules.md section 3).
///
/// # Errors
/// [`EngineError::PositionOffBoard`] (`position`) off the board; [`EngineError::IllegalTap`] for
/// an empty cell or a group smaller than `min_group`. A `min_group` below 2 counts as 2 (a
/// single tile is never a legal group), as in [`legal_groups`] and [`is_game_over`].
pub fn tap(
    board: &SettledBoard,
    position: Position,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Result<TapOutcome, EngineError> {
    plane_tap::tap_cells(board.board(), position, rule, min_group)
        .unwrap_or_else(|| column_api::tap_columns(board, position, rule, min_group))
}

/// True when the game is over on `board`: no group of at least `min_group` cells remains.
pub fn is_game_over(board: &SettledBoard, min_group: MinGroup) -> bool {
    if min_group == MinGroup::DEFAULT {
        // A group of two exists iff two neighbours share a colour: on most boards a scan of the
        // cells finds such a pair within a few cells, sooner than the bitboards are built.
        return !has_adjacent_pair(board.board());
    }
    match CompactGame::from_cells(board.board()) {
        Some(game) => !game.has_legal_group(min_group),
        None => !CollapseGame::new(board).has_legal_group(min_group),
    }
}

/// True when two orthogonally adjacent cells hold the same colour.
pub(crate) fn has_adjacent_pair(board: &Board) -> bool {
    let (width, cells) = (board.width(), board.cells());
    cells.iter().enumerate().any(|(index, &cell)| {
        cell != super::board::EMPTY
            && ((index % width + 1 < width && cells[index + 1] == cell)
                || cells.get(index + width) == Some(&cell))
    })
}

/// Every legal group (at least `min_group` cells) once, scored under `rule`, ordered by
/// representative (first cell) in row-major order; empty when the game is over.
pub fn legal_groups(
    board: &SettledBoard,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Vec<LegalGroup> {
    match CompactGame::from_cells(board.board()) {
        Some(game) => game.legal_groups(rule, min_group),
        None => column_api::legal_groups_of(&CollapseGame::new(board), rule, min_group),
    }
}

#[cfg(test)]
mod tests;
