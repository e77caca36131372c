//! [`StableBoard`]: a swap board with no run and no empty cell (docs/rules.md sections 2 and
//! 6), the only board the swap rules judge moves on.

use std::fmt;

use super::board::{BoardStorage, SwapBoard, empty_layers};
use super::level::{LevelBoard, StableLevel};
use super::obstacles::StableObstacles;
use super::pieces::PieceKind;
use crate::board::Board;
use crate::error::EngineError;
use crate::stable::StablePlain;

/// A swap board with no run and no empty cell (holes aside).
///
/// It keeps the bitboards its check built (one row-mask plane per colour, and for a board with
/// layers the masks of its tiles, specials and bombs), so move generation and the dead check
/// on it are word operations only.
#[derive(Clone, PartialEq, Eq)]
pub struct StableBoard(pub(crate) Stable);

/// The two storages of a stable board, each with its bitboards.
#[derive(Clone, PartialEq, Eq)]
pub(crate) enum Stable {
    Plain(StablePlain),
    Layered(StableLevel),
    /// Boxed: much larger than the other two.
    Obstacles(Box<StableObstacles>),
}

impl StableBoard {
    /// The colours: 0 for holes and colour bombs.
    pub fn colors(&self) -> &Board {
        match &self.0 {
            Stable::Plain(plain) => plain.board(),
            Stable::Layered(level) => level.level().board(),
            Stable::Obstacles(board) => board.board().level().board(),
        }
    }

    /// True when the board carries a hole layer and a piece-kind layer.
    pub fn has_layers(&self) -> bool {
        !matches!(self.0, Stable::Plain(_))
    }

    /// True when the board carries the level layers of docs/rules.md section 8.
    pub fn has_level_layers(&self) -> bool {
        matches!(self.0, Stable::Obstacles(_))
    }

    /// The hole flags, row-major, when the board has layers.
    pub fn holes(&self) -> Option<&[bool]> {
        self.as_layered().map(LevelBoard::holes)
    }

    /// The piece kinds, row-major, when the board has layers.
    pub fn kinds(&self) -> Option<&[PieceKind]> {
        self.as_layered().map(LevelBoard::kinds)
    }

    /// A copy of the board.
    pub fn to_board(&self) -> SwapBoard {
        self.clone().into_board()
    }

    /// Gives the board back.
    pub fn into_board(self) -> SwapBoard {
        match self.0 {
            Stable::Plain(plain) => plain.into_board().into(),
            Stable::Layered(level) => SwapBoard::layered(level.into_level()),
            Stable::Obstacles(board) => SwapBoard::obstacles(board.into_board()),
        }
    }

    fn as_layered(&self) -> Option<&LevelBoard> {
        match &self.0 {
            Stable::Plain(_) => None,
            Stable::Layered(level) => Some(level.level()),
            Stable::Obstacles(board) => Some(board.board().level()),
        }
    }
}

impl StablePlain {
    /// This board with empty hole and kind layers, for a move played with
    /// [`crate::CascadeOptions::specials`] on.
    pub(crate) fn into_layered(self) -> StableLevel {
        // The colours stay as they are: their planes serve the layered path too.
        let (colors, planes) = self.into_parts();
        StableLevel::with_planes(empty_layers(colors), planes)
    }
}

impl From<StableObstacles> for StableBoard {
    fn from(board: StableObstacles) -> Self {
        Self(Stable::Obstacles(Box::new(board)))
    }
}

impl From<StablePlain> for StableBoard {
    fn from(plain: StablePlain) -> Self {
        Self(Stable::Plain(plain))
    }
}

impl From<StableLevel> for StableBoard {
    fn from(level: StableLevel) -> Self {
        Self(Stable::Layered(level))
    }
}

impl TryFrom<SwapBoard> for StableBoard {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnstableBoard`] listing the empty cells (holes aside) and the matched
    /// cells, each in row-major order.
    fn try_from(board: SwapBoard) -> Result<Self, Self::Error> {
        match board.into_storage() {
            BoardStorage::Plain(plain) => StablePlain::try_from(plain).map(Self::from),
            BoardStorage::Layered(level) => StableLevel::try_from(level).map(Self::from),
            BoardStorage::Obstacles(board) => StableObstacles::try_from(board).map(Self::from),
        }
    }
}

impl TryFrom<Board> for StableBoard {
    type Error = EngineError;

    /// The stable board without layers of these colours.
    ///
    /// # Errors
    /// As `TryFrom<SwapBoard>`.
    fn try_from(board: Board) -> Result<Self, Self::Error> {
        StablePlain::try_from(board).map(Self::from)
    }
}

impl fmt::Display for StableBoard {
    /// The text form of [`SwapBoard::parse`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Stable::Plain(plain) => plain.board().fmt(f),
            Stable::Layered(level) => level.level().fmt(f),
            Stable::Obstacles(board) => board.board().fmt(f),
        }
    }
}

impl fmt::Debug for StableBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layers = if self.has_layers() {
            " with layers"
        } else {
            ""
        };
        write!(f, "StableBoard({}{layers})", self)
    }
}

/// True when `board` has no run and no empty cell (holes aside); on a board with level layers
/// (docs/rules.md section 8), when it has no run, no ingredient on an exit, and settling it
/// under RANDOM refill would change nothing (an empty slot no piece can reach may stay empty).
pub fn is_stable(board: &SwapBoard) -> bool {
    if let Some(board) = board.as_obstacles() {
        return super::obstacles::is_obstacle_stable(board);
    }
    match board.as_layered() {
        None => crate::stable::is_stable(board.colors()),
        Some(level) => super::level::is_level_stable(level),
    }
}
