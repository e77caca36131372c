//! Boards with level layers (docs/rules.md section 8): jelly, blockers, locks, ingredients and
//! exits on top of a level board's holes and kinds. Their cascades clear as section 6 does
//! (the same clearing, sparing locked tiles), hit the cells they reach, settle with fixed cells
//! (falls in segments, refill of top segments, diagonal slides), and collect ingredients at
//! exits, in the one cascade loop. Boards without these layers never come here.

mod arrange;
mod cascade;
mod gravity;
mod judge;
mod prepared;
#[cfg(test)]
mod tests;

use std::fmt;

pub(crate) use super::level_layers::ObstacleBoard;
pub(crate) use arrange::{generate_on_layout, shuffle_obstacles};
pub use cascade::LevelTally;
pub(crate) use cascade::{
    certain_obstacle_outcome, obstacle_swap, obstacle_swap_keeping_bits,
    resolve_obstacle_board_into,
};
pub(crate) use judge::{
    count_obstacle_swaps, first_obstacle_swap_from, has_obstacle_swap, judge_obstacle_swap,
    preview_obstacle_swap,
};
pub(crate) use prepared::Prepared;

use crate::error::EngineError;
use crate::moves::Swap;
use crate::runs::{has_run, matched_positions};
use crate::swap::level::Combination;

/// A board with level layers that is stable (docs/rules.md section 8): no run, no ingredient on
/// an exit, and settling it under RANDOM refill would change nothing (an empty slot no piece
/// can reach may stay empty). Like the other stable boards, it keeps the bitboards of its cells
/// (colour planes, kind masks, the fixed, movable, ingredient and exit masks, the locked tiles)
/// for the cascade and the valid-swap count to start from.
pub(crate) struct StableObstacles {
    board: ObstacleBoard,
    bits: Box<Prepared>,
}

impl StableObstacles {
    /// The board.
    pub(crate) fn board(&self) -> &ObstacleBoard {
        &self.board
    }

    /// The board and its bitboards.
    pub(crate) fn into_parts(self) -> (ObstacleBoard, Box<Prepared>) {
        (self.board, self.bits)
    }

    /// Gives the board back (its bitboards go back to this thread's spares).
    pub(crate) fn into_board(self) -> ObstacleBoard {
        Prepared::recycle(self.bits);
        self.board
    }

    /// Wraps a board the engine knows to be stable, with its bitboards when they are at hand
    /// (built otherwise).
    pub(crate) fn with_bits(board: ObstacleBoard, bits: Option<Box<Prepared>>) -> Self {
        let Some(bits) = bits else {
            return Self::new_unchecked(board);
        };
        debug_assert!(is_obstacle_stable(&board));
        debug_assert!(bits.describes(&board));
        Self { board, bits }
    }

    /// Wraps a board the engine knows to be stable.
    pub(crate) fn new_unchecked(board: ObstacleBoard) -> Self {
        debug_assert!(is_obstacle_stable(&board));
        let bits = Prepared::reused_for(&board);
        Self { board, bits }
    }

    /// The board's bitboards.
    pub(crate) fn bits(&self) -> &Prepared {
        &self.bits
    }

    /// Every valid swap of the board, as `judge::obstacle_valid_swaps` lists them, from its
    /// bitboards.
    pub(crate) fn valid_swaps(&self) -> Vec<(Swap, Option<Combination>)> {
        self.bits.valid_swaps(&self.board)
    }

    /// Valid swaps of the board, as [`count_obstacle_swaps`] counts them, from its bitboards.
    pub(crate) fn valid_swap_count(&self) -> usize {
        self.bits.count_swaps(&self.board)
    }
}

/// A copy takes its bitboards' storage from this thread's spares when there are some.
impl Clone for StableObstacles {
    fn clone(&self) -> Self {
        Self {
            board: self.board.clone(),
            bits: self.bits.reused_copy(),
        }
    }
}

/// Equal when the boards are (the bitboards follow from them).
impl PartialEq for StableObstacles {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
    }
}

impl Eq for StableObstacles {}

impl fmt::Debug for StableObstacles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StableObstacles").field(&self.board).finish()
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
        let bits = Prepared::reused_for(&board);
        if bits.is_stable(&board) {
            return Ok(Self { board, bits });
        }
        Prepared::recycle(bits);
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
