//! [`StableBoard`]: a swap board with no run and no empty cell (docs/rules.md sections 2 and
//! 6), the only board the swap rules judge moves on.

use std::fmt;

use super::board::SwapBoard;
use super::level::{LevelBoard, StableLevel};
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
}

impl StableBoard {
    /// The colours: 0 for holes and colour bombs.
    pub fn colors(&self) -> &Board {
        match &self.0 {
            Stable::Plain(plain) => plain.board(),
            Stable::Layered(level) => level.level().board(),
        }
    }

    /// True when the board carries a hole layer and a piece-kind layer.
    pub fn has_layers(&self) -> bool {
        matches!(self.0, Stable::Layered(_))
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
        }
    }

    fn as_layered(&self) -> Option<&LevelBoard> {
        match &self.0 {
            Stable::Plain(_) => None,
            Stable::Layered(level) => Some(level.level()),
        }
    }

    /// This board with layers (empty ones, when it had none), for a move played with
    /// [`crate::CascadeOptions::specials`] on.
    pub(crate) fn into_layered(self) -> StableLevel {
        match self.0 {
            Stable::Plain(plain) => {
                // The colours stay as they are: their planes serve the layered path too.
                let (colors, planes) = plain.into_parts();
                StableLevel::with_planes(SwapBoard::from(colors).into_layered(), planes)
            }
            Stable::Layered(level) => level,
        }
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
            Ok(plain) => StablePlain::try_from(plain).map(Self::from),
            Err(level) => StableLevel::try_from(level).map(Self::from),
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

/// True when `board` has no run and no empty cell (holes aside).
pub fn is_stable(board: &SwapBoard) -> bool {
    match board.as_layered() {
        None => crate::stable::is_stable(board.colors()),
        Some(level) => super::level::is_level_stable(level),
    }
}
