//! Boards with level layers (docs/rules.md section 8): jelly, blockers, locks, ingredients and
//! exits on top of a level board's holes and kinds. Their cascades clear as section 6 does
//! (the same clearing, sparing locked tiles), hit the cells they reach, settle with fixed cells
//! (falls in segments, refill of top segments, diagonal slides), and collect ingredients at
//! exits, in the one cascade loop. Boards without these layers never come here.

mod arrange;
mod cascade;
mod gravity;
mod judge;
#[cfg(test)]
mod tests;

use std::fmt;

pub(crate) use super::level_layers::ObstacleBoard;
pub(crate) use arrange::{generate_on_layout, shuffle_obstacles};
pub use cascade::LevelTally;
pub(crate) use cascade::{
    Prepared, certain_obstacle_outcome, obstacle_swap, resolve_obstacle_board_into,
};
pub(crate) use judge::{
    count_obstacle_swaps, first_obstacle_swap_from, has_obstacle_swap, judge_obstacle_swap,
    obstacle_valid_swaps, preview_obstacle_swap,
};

use crate::error::EngineError;
use crate::runs::{has_run, matched_positions};

/// A board with level layers that is stable (docs/rules.md section 8): no run, no ingredient on
/// an exit, and settling it under RANDOM refill would change nothing (an empty slot no piece
/// can reach may stay empty).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct StableObstacles(ObstacleBoard);

impl StableObstacles {
    /// The board.
    pub(crate) fn board(&self) -> &ObstacleBoard {
        &self.0
    }

    /// Gives the board back.
    pub(crate) fn into_board(self) -> ObstacleBoard {
        self.0
    }

    /// Wraps a board the engine knows to be stable.
    pub(crate) fn new_unchecked(board: ObstacleBoard) -> Self {
        debug_assert!(is_obstacle_stable(&board));
        Self(board)
    }
}

impl fmt::Debug for StableObstacles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StableObstacles").field(&self.0).finish()
    }
}

/// True when `board` is stable in the sense of [`StableObstacles`].
pub(crate) fn is_obstacle_stable(board: &ObstacleBoard) -> bool {
    !has_run(board.level().board()) && gravity::settles_unchanged(board, true)
}

impl TryFrom<ObstacleBoard> for StableObstacles {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnstableBoard`] listing the empty slots settling would fill or move a
    /// piece into, and the matched cells.
    fn try_from(board: ObstacleBoard) -> Result<Self, Self::Error> {
        if is_obstacle_stable(&board) {
            return Ok(Self(board));
        }
        let mut settled = board.clone();
        let mut record = gravity::Settled::new(false);
        let mut rng = crate::rng_from_seed(0);
        gravity::settle(&mut settled, Some((1, &mut rng)), &mut record);
        let level = board.level();
        let empty_cells = (0..level.len())
            .filter(|&i| !level.is_hole(i) && !board.is_fixed(i) && !board.is_piece(i))
            .filter(|&i| settled.is_piece(i))
            .map(|i| level.board().position_of(i))
            .collect();
        Err(EngineError::UnstableBoard {
            empty_cells,
            matched_cells: matched_positions(level.board()),
        })
    }
}
