//! [`StablePlain`]: a swap-family board with no run and no empty cell (docs/rules.md section 2).

use std::fmt;

use super::bitboard::ColorPlanes;
use super::board::{Board, EMPTY, Position};
use super::error::EngineError;
use super::runs::{has_run, matched_positions};

/// A board with no run and no empty cell; the only board the swap rules judge moves on.
///
/// It carries the colour planes (one row-mask bitboard per colour) it was checked with, so
/// move generation and the dead check on it are word operations only.
#[derive(Clone)]
pub struct StablePlain {
    board: Board,
    planes: ColorPlanes,
}

impl StablePlain {
    /// The underlying board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Gives the board back.
    pub fn into_board(self) -> Board {
        self.board
    }

    /// The board and its colour planes, for a move that works in their storage.
    pub(crate) fn into_parts(self) -> (Board, ColorPlanes) {
        (self.board, self.planes)
    }

    /// The board's colour planes.
    pub(crate) fn planes(&self) -> &ColorPlanes {
        &self.planes
    }

    /// Wraps a board the engine produced and already knows to be stable.
    pub(crate) fn new_unchecked(board: Board) -> Self {
        let planes = ColorPlanes::of(&board);
        Self::with_planes(board, planes)
    }

    /// Wraps a board the engine knows to be stable, with its colour planes already built.
    pub(crate) fn with_planes(board: Board, planes: ColorPlanes) -> Self {
        debug_assert!(is_stable(&board));
        debug_assert!(planes.describes(&board));
        Self { board, planes }
    }
}

/// Two stable boards are equal when their cells are (the planes are derived from them).
impl PartialEq for StablePlain {
    fn eq(&self, other: &Self) -> bool {
        self.board == other.board
    }
}

impl Eq for StablePlain {}

impl fmt::Debug for StablePlain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StablePlain({:?})", self.board)
    }
}

/// True when `board` has no empty cell and no run.
pub fn is_stable(board: &Board) -> bool {
    !board.has_empty_cell() && !has_run(board)
}

impl TryFrom<Board> for StablePlain {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnstableBoard`] listing the empty cells and the matched cells, each in
    /// row-major order.
    fn try_from(board: Board) -> Result<Self, Self::Error> {
        if !board.has_empty_cell() {
            let planes = ColorPlanes::of(&board);
            if !planes.has_run() {
                return Ok(Self { board, planes });
            }
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
