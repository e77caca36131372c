//! [`SettledBoard`]: a collapse-family board with no tile over an empty cell and no empty column
//! left of a non-empty one (docs/rules.md section 3).

use super::board::{Board, EMPTY};
use super::error::{EngineError, Unsettled};

/// A collapse board with no tile over an empty cell and no empty column left of a non-empty one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettledBoard(Board);

impl SettledBoard {
    /// The underlying board.
    pub fn board(&self) -> &Board {
        &self.0
    }

    /// Gives the board back.
    pub fn into_board(self) -> Board {
        self.0
    }

    /// Wraps a board the engine produced and already knows to be settled.
    pub(crate) fn new_unchecked(board: Board) -> Self {
        debug_assert!(Self::try_from(board.clone()).is_ok());
        Self(board)
    }
}

impl TryFrom<Board> for SettledBoard {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnsettledBoard`] naming the first floating tile in row-major order, or else
    /// the leftmost gap column.
    fn try_from(board: Board) -> Result<Self, Self::Error> {
        let (width, height) = (board.width(), board.height());
        let cells = board.cells();
        for index in 0..width * (height - 1) {
            if cells[index] != EMPTY && cells[index + width] == EMPTY {
                return Err(EngineError::UnsettledBoard(Unsettled::FloatingTile(
                    board.position_of(index),
                )));
            }
        }
        // Settled columns are empty exactly when their bottom cell is.
        let bottom = &cells[width * (height - 1)..];
        if let Some(gap) = bottom.iter().position(|&c| c == EMPTY)
            && bottom[gap..].iter().any(|&c| c != EMPTY)
        {
            return Err(EngineError::UnsettledBoard(Unsettled::GapColumn(
                gap as u32,
            )));
        }
        Ok(Self(board))
    }
}
