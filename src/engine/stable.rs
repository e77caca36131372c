//! [`StableBoard`]: a swap-family board with no run and no empty cell (docs/rules.md section 2).

use super::board::{Board, EMPTY, Position};
use super::error::EngineError;
use super::runs::{has_run, matched_positions};

/// A board with no run and no empty cell; the only board the swap rules judge moves on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StableBoard(Board);

impl StableBoard {
    /// The underlying board.
    pub fn board(&self) -> &Board {
        &self.0
    }

    /// Gives the board back.
    pub fn into_board(self) -> Board {
        self.0
    }

    /// Wraps a board the engine produced and already knows to be stable.
    pub(crate) fn new_unchecked(board: Board) -> Self {
        debug_assert!(is_stable(&board));
        Self(board)
    }
}

/// True when `board` has no empty cell and no run.
pub fn is_stable(board: &Board) -> bool {
    !board.has_empty_cell() && !has_run(board)
}

impl TryFrom<Board> for StableBoard {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnstableBoard`] listing the empty cells and the matched cells, each in
    /// row-major order.
    fn try_from(board: Board) -> Result<Self, Self::Error> {
        if is_stable(&board) {
            return Ok(Self(board));
        }
        let empty_cells: Vec<Position> = (0..board.cells().len())
            .filter(|&i| board.at(i) == EMPTY)
            .map(|i| board.position_of(i))
            .collect();
        Err(EngineError::UnstableBoard {
            empty_cells,
            matched_cells: matched_positions(&board),
        })
    }
}
