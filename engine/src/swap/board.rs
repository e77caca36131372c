//! [`SwapBoard`]: the one board of the swap family. Its colours are an ordinary [`Board`];
//! a board may carry layers on top (a hole mask and a piece kind per cell, docs/rules.md
//! section 6), and a board without them takes the plain path of sections 1-2, which pays
//! nothing for layers it does not have.

use std::fmt;

use super::layered::{LevelBoard, level_board_digest};
use super::pieces::PieceKind;
use crate::board::{Board, Position};
use crate::collapse::board_digest;
use crate::error::{EngineError, LevelError};

/// A swap-family board: colours, and optionally a hole layer and a piece-kind layer.
///
/// Consistent by construction: a hole holds no tile and has kind NORMAL; a colour bomb's
/// colour is 0; striped and wrapped pieces have a colour. Whether a board carries layers is
/// part of its value (two boards with the same cells, one with an all-NORMAL kind layer, are
/// different boards): it decides how the board is shuffled and generated (a board with layers
/// shuffles its (colour, kind) tiles around its holes), and what a digest covers.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SwapBoard(Storage);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Storage {
    Plain(Board),
    Layered(LevelBoard),
}

impl From<Board> for SwapBoard {
    /// A board without layers.
    fn from(board: Board) -> Self {
        Self(Storage::Plain(board))
    }
}

impl SwapBoard {
    /// A board with a hole layer and a piece-kind layer over `colors`: `holes` and `kinds` are
    /// row-major, `width * height` of each; an empty list means "no holes" or "every kind
    /// NORMAL".
    ///
    /// # Errors
    /// The [`LevelError`] of the first fault: counts first, then cells in row-major order.
    pub fn with_layers(
        colors: Board,
        holes: Vec<bool>,
        kinds: Vec<PieceKind>,
    ) -> Result<Self, LevelError> {
        LevelBoard::new(colors, holes, kinds).map(Self::layered)
    }

    /// Parses the text form: rows top to bottom joined by `/`. Each cell is `#` (a hole), `.`
    /// or `0` (empty), `*` (a colour bomb), or a colour (a letter of [`crate::COLOR_LETTERS`]
    /// or a digit, as in [`Board::parse`]) optionally followed by `-` (striped along its row),
    /// `|` (striped along its column) or `+` (wrapped). Example: `"R-GB/#*R+"`. A text with a
    /// hole or a special piece gives a board with layers, any other a board without.
    ///
    /// # Errors
    /// [`crate::BoardError::Text`] for ragged rows or unknown characters, and the size errors
    /// of [`Board::from_raw`].
    pub fn parse(text: &str) -> Result<Self, EngineError> {
        if text.contains(['#', '*', '-', '|', '+']) {
            LevelBoard::parse(text).map(Self::layered)
        } else {
            Ok(Board::parse(text)?.into())
        }
    }

    /// [`SwapBoard::parse`], always giving a board with layers (for a text without holes or
    /// specials, both layers are empty).
    ///
    /// # Errors
    /// As [`SwapBoard::parse`].
    pub fn parse_with_layers(text: &str) -> Result<Self, EngineError> {
        LevelBoard::parse(text).map(Self::layered)
    }

    pub(crate) fn layered(level: LevelBoard) -> Self {
        Self(Storage::Layered(level))
    }

    /// The colours: 0 for empty cells, holes and colour bombs.
    pub fn colors(&self) -> &Board {
        match &self.0 {
            Storage::Plain(board) => board,
            Storage::Layered(level) => level.board(),
        }
    }

    /// True when the board carries a hole layer and a piece-kind layer.
    pub fn has_layers(&self) -> bool {
        matches!(self.0, Storage::Layered(_))
    }

    /// The hole flags, row-major, when the board has layers.
    pub fn holes(&self) -> Option<&[bool]> {
        self.as_layered().map(LevelBoard::holes)
    }

    /// The piece kinds, row-major, when the board has layers.
    pub fn kinds(&self) -> Option<&[PieceKind]> {
        self.as_layered().map(LevelBoard::kinds)
    }

    /// Number of columns, `1..=64`.
    pub fn width(&self) -> usize {
        self.colors().width()
    }

    /// Number of rows, `1..=64`.
    pub fn height(&self) -> usize {
        self.colors().height()
    }

    /// True when cell `index` (row-major, below `width * height`) is a hole.
    pub fn is_hole(&self, index: usize) -> bool {
        self.as_layered().is_some_and(|level| level.is_hole(index))
    }

    /// The kind of cell `index` (row-major, below `width * height`).
    pub fn kind(&self, index: usize) -> PieceKind {
        self.as_layered()
            .map_or(PieceKind::Normal, |level| level.kind(index))
    }

    /// True when cell `index` (row-major) holds a tile: a colour, or a colour bomb.
    pub fn is_tile(&self, index: usize) -> bool {
        match &self.0 {
            Storage::Plain(board) => board.at(index) != crate::board::EMPTY,
            Storage::Layered(level) => level.is_tile(index),
        }
    }

    /// The cells that are neither a hole nor hold a tile, row-major.
    pub fn empty_cells(&self) -> Vec<Position> {
        match &self.0 {
            Storage::Plain(board) => (0..board.cells().len())
                .filter(|&i| board.at(i) == crate::board::EMPTY)
                .map(|i| board.position_of(i))
                .collect(),
            Storage::Layered(level) => level.empty_cells(),
        }
    }

    /// True when some cell that is not a hole holds no tile.
    pub fn has_empty_cell(&self) -> bool {
        match &self.0 {
            Storage::Plain(board) => board.has_empty_cell(),
            Storage::Layered(level) => level.has_empty_cell(),
        }
    }

    /// SHA-256 fingerprint: width and height as 4-byte little-endian integers, then one colour
    /// byte per cell, row-major (the collapse family's [`crate::board_digest`]); a board with
    /// layers adds one more byte per cell, row-major: 255 for a hole, else the cell's kind as
    /// its `PieceKind` proto number with NORMAL as 0 (STRIPED_H 2, STRIPED_V 3, WRAPPED 4,
    /// COLOR_BOMB 5).
    pub fn digest(&self) -> [u8; 32] {
        match &self.0 {
            Storage::Plain(board) => board_digest(board),
            Storage::Layered(level) => level_board_digest(level),
        }
    }

    /// The board with layers, when it has them.
    pub(crate) fn as_layered(&self) -> Option<&LevelBoard> {
        match &self.0 {
            Storage::Plain(_) => None,
            Storage::Layered(level) => Some(level),
        }
    }

    /// The colours of a board without layers, or the board with layers.
    pub(crate) fn into_storage(self) -> Result<Board, LevelBoard> {
        match self.0 {
            Storage::Plain(board) => Ok(board),
            Storage::Layered(level) => Err(level),
        }
    }

    /// This board with layers (empty ones, when it had none).
    pub(crate) fn into_layered(self) -> LevelBoard {
        match self.0 {
            Storage::Plain(board) => {
                let cells = board.cells().len();
                LevelBoard::from_parts(board, vec![false; cells], vec![PieceKind::Normal; cells])
            }
            Storage::Layered(level) => level,
        }
    }
}

impl fmt::Display for SwapBoard {
    /// The text form of [`SwapBoard::parse`], e.g. `R-GB/#*R+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Storage::Plain(board) => board.fmt(f),
            Storage::Layered(level) => level.fmt(f),
        }
    }
}

impl fmt::Debug for SwapBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layers = if self.has_layers() {
            " with layers"
        } else {
            ""
        };
        write!(
            f,
            "SwapBoard({}x{}{layers} {self})",
            self.width(),
            self.height()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_gives_layers_only_to_a_text_with_holes_or_specials() {
        let plain = SwapBoard::parse("RRG/GGR").unwrap();
        assert!(!plain.has_layers());
        assert_eq!(plain.holes(), None);
        assert_eq!(plain.kind(0), PieceKind::Normal);
        let layered = SwapBoard::parse("R#G/G*R").unwrap();
        assert!(layered.has_layers());
        assert!(layered.holes().unwrap()[1]);
        assert_eq!(layered.kind(4), PieceKind::ColorBomb);
        assert_eq!(layered.to_string(), "R#G/G*R");
        let empty_layers = SwapBoard::parse_with_layers("RRG/GGR").unwrap();
        assert!(empty_layers.has_layers());
        assert_ne!(empty_layers, plain);
        assert_eq!(empty_layers.to_string(), plain.to_string());
        assert_ne!(empty_layers.digest(), plain.digest());
        assert_eq!(empty_layers.colors(), plain.colors());
    }

    #[test]
    fn empty_cells_skip_holes() {
        let board = SwapBoard::parse("R.#/*GB").unwrap();
        assert_eq!(board.empty_cells(), vec![Position::new(0, 1)]);
        assert!(board.has_empty_cell());
        assert!(board.is_hole(2) && !board.is_tile(2) && board.is_tile(3));
        let plain = SwapBoard::parse("R.G/BGB").unwrap();
        assert_eq!(plain.empty_cells(), vec![Position::new(0, 1)]);
    }
}
