//! [`LevelBoard`]: the colours of a swap board with its hole and piece-kind layers, consistent
//! by construction. Inside the engine only: the public board is [`super::SwapBoard`].

use std::fmt;
use std::sync::Arc;

use super::pieces::{PieceKind, read_kind_suffix, write_cell};
use crate::board::{Board, COLOR_LETTERS, EMPTY, Position, color_from_char};
use crate::error::{BoardError, EngineError, LevelError};

/// A swap-family board with a hole mask and piece kinds, consistent by construction: a hole
/// holds no tile and has kind NORMAL; a colour bomb's colour is 0; striped and wrapped pieces
/// have a colour.
#[derive(PartialEq, Eq, Hash)]
pub struct LevelBoard {
    board: Board,
    /// Shared between copies: a cascade never changes the holes, and each step's board is a
    /// copy.
    holes: Arc<[bool]>,
    kinds: Vec<PieceKind>,
}

impl Clone for LevelBoard {
    fn clone(&self) -> Self {
        Self {
            board: self.board.clone(),
            holes: Arc::clone(&self.holes),
            kinds: self.kinds.clone(),
        }
    }

    /// Reuses the storage of the colours and kinds.
    fn clone_from(&mut self, source: &Self) {
        self.board.clone_from(&source.board);
        self.holes = Arc::clone(&source.holes);
        self.kinds.clone_from(&source.kinds);
    }
}

impl LevelBoard {
    /// Combines a parsed board with its hole mask and kinds; an empty list means "no holes" or
    /// "every kind NORMAL".
    ///
    /// # Errors
    /// The [`LevelError`] of the first fault: counts first, then cells in row-major order.
    pub fn new(board: Board, holes: Vec<bool>, kinds: Vec<PieceKind>) -> Result<Self, LevelError> {
        let size = board.cells().len();
        let holes = match holes.len() {
            0 => vec![false; size],
            n if n == size => holes,
            actual => {
                return Err(LevelError::HoleCountMismatch {
                    expected: size,
                    actual,
                });
            }
        };
        let kinds = match kinds.len() {
            0 => vec![PieceKind::Normal; size],
            n if n == size => kinds,
            actual => {
                return Err(LevelError::KindCountMismatch {
                    expected: size,
                    actual,
                });
            }
        };
        for index in 0..size {
            let (color, kind) = (board.at(index), kinds[index]);
            if holes[index] {
                if color != EMPTY {
                    return Err(LevelError::TileOnHole { index, color });
                }
                if kind != PieceKind::Normal {
                    return Err(LevelError::KindOnHole { index });
                }
            } else if kind == PieceKind::ColorBomb {
                if color != EMPTY {
                    return Err(LevelError::ColorOnBomb { index, color });
                }
            } else if kind == PieceKind::Ingredient {
                if color != EMPTY {
                    return Err(LevelError::ColorOnIngredient { index, color });
                }
            } else if kind.is_special() && color == EMPTY {
                return Err(LevelError::KindOnEmpty { index });
            }
        }
        Ok(Self {
            board,
            holes: holes.into(),
            kinds,
        })
    }

    /// Builds a level board from parts the engine produced itself (already consistent).
    pub(crate) fn from_parts(board: Board, holes: Vec<bool>, kinds: Vec<PieceKind>) -> Self {
        debug_assert!(Self::new(board.clone(), holes.clone(), kinds.clone()).is_ok());
        Self {
            board,
            holes: holes.into(),
            kinds,
        }
    }

    /// Parses the text form: rows top to bottom joined by `/`. Each cell is `#` (a hole), `.`
    /// or `0` (empty), `*` (a colour bomb), or a colour (a letter of [`COLOR_LETTERS`] or a
    /// digit, as in [`Board::parse`]) optionally followed by `-` (striped along its row,
    /// STRIPED_H), `|` (striped along its column, STRIPED_V) or `+` (wrapped). Example:
    /// `"R-GB/#*R+"`.
    ///
    /// # Errors
    /// [`BoardError::Text`] for ragged rows or unknown characters, and the size errors of
    /// [`Board::from_raw`].
    pub fn parse(text: &str) -> Result<Self, EngineError> {
        let mut cells = Vec::new();
        let mut holes = Vec::new();
        let mut kinds = Vec::new();
        let mut width = None;
        let mut height = 0u32;
        for (row_index, row) in text.trim().split('/').enumerate() {
            let mut count = 0usize;
            let mut chars = row.chars().peekable();
            while let Some(ch) = chars.next() {
                count += 1;
                let (color, hole, mut kind) = match ch {
                    '#' => (EMPTY, true, PieceKind::Normal),
                    '*' => (EMPTY, false, PieceKind::ColorBomb),
                    _ => {
                        let color = color_from_char(ch).ok_or_else(|| {
                            BoardError::Text(format!(
                                "unknown cell character {ch:?} in row {row_index}"
                            ))
                        })?;
                        (color, false, PieceKind::Normal)
                    }
                };
                if color != EMPTY {
                    kind = read_kind_suffix(&mut chars);
                }
                cells.push(u32::from(color));
                holes.push(hole);
                kinds.push(kind);
            }
            same_width(&mut width, count, row_index)?;
            height += 1;
        }
        let width = u32::try_from(width.unwrap_or(0)).unwrap_or(u32::MAX);
        let board = Board::from_raw(width, height, &cells)?;
        Ok(Self::new(board, holes, kinds)?)
    }

    /// The colours: 0 for empty cells, holes and colour bombs.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Hole flags, row-major, `width * height` of them.
    pub fn holes(&self) -> &[bool] {
        &self.holes
    }

    /// Piece kinds, row-major, `width * height` of them.
    pub fn kinds(&self) -> &[PieceKind] {
        &self.kinds
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.board.width()
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.board.height()
    }

    /// Number of cells, holes included.
    pub fn len(&self) -> usize {
        self.holes.len()
    }

    /// True when cell `index` is a hole.
    pub fn is_hole(&self, index: usize) -> bool {
        self.holes[index]
    }

    /// True when cell `index` holds a tile (a colour, or a colour bomb).
    pub fn is_tile(&self, index: usize) -> bool {
        self.board.at(index) != EMPTY || self.kinds[index] == PieceKind::ColorBomb
    }

    /// The colour of cell `index` (0 for empty cells, holes and bombs).
    pub fn color(&self, index: usize) -> u8 {
        self.board.at(index)
    }

    /// The kind of cell `index`.
    pub fn kind(&self, index: usize) -> PieceKind {
        self.kinds[index]
    }

    /// Non-hole cells without a tile, row-major.
    pub fn empty_cells(&self) -> Vec<Position> {
        (0..self.len())
            .filter(|&i| !self.holes[i] && !self.is_tile(i))
            .map(|i| self.board.position_of(i))
            .collect()
    }

    /// True when some non-hole cell holds no tile.
    pub fn has_empty_cell(&self) -> bool {
        (0..self.len()).any(|i| !self.holes[i] && !self.is_tile(i))
    }

    pub(crate) fn parts_mut(&mut self) -> (&mut [u8], &mut [PieceKind], &[bool]) {
        (self.board.cells_mut(), &mut self.kinds, &self.holes)
    }
}

impl fmt::Display for LevelBoard {
    /// The text form of [`LevelBoard::parse`], e.g. `R-GB/#*R+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.width();
        for index in 0..self.len() {
            if index > 0 && index % width == 0 {
                f.write_str("/")?;
            }
            write_cell(
                f,
                self.board.at(index),
                self.holes[index],
                self.kinds[index],
            )?;
        }
        Ok(())
    }
}

impl fmt::Debug for LevelBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LevelBoard({}x{} {self})", self.width(), self.height())
    }
}

/// Checks that row `row_index` of a text board has `count` cells, as row 0 has (`width`, set
/// by row 0).
///
/// # Errors
/// [`BoardError::Text`] for a ragged row.
pub(crate) fn same_width(
    width: &mut Option<usize>,
    count: usize,
    row_index: usize,
) -> Result<(), BoardError> {
    match *width {
        None => *width = Some(count),
        Some(w) if w != count => {
            return Err(BoardError::Text(format!(
                "row {row_index} has {count} cells, row 0 has {w}"
            )));
        }
        Some(_) => {}
    }
    Ok(())
}

// Keeps the letter table in the docs above reachable for rustdoc links.
const _: &[u8; 16] = COLOR_LETTERS;

/// SHA-256 fingerprint of a level board, extending the plain board's digest
/// ([`crate::board_digest`]: width and height as 4-byte little-endian integers, then one
/// colour byte per cell, row-major) with one more byte per cell, row-major: 255 for a hole,
/// else the cell's kind as its `PieceKind` proto number with NORMAL as 0 (STRIPED_H 2,
/// STRIPED_V 3, WRAPPED 4, COLOR_BOMB 5).
pub(crate) fn level_board_digest(level: &LevelBoard) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update((level.width() as u32).to_le_bytes());
    hasher.update((level.height() as u32).to_le_bytes());
    hasher.update(level.board().cells());
    let kinds: Vec<u8> = (0..level.len())
        .map(|i| {
            if level.is_hole(i) {
                255
            } else {
                match level.kind(i) {
                    PieceKind::Normal => 0,
                    PieceKind::StripedH => 2,
                    PieceKind::StripedV => 3,
                    PieceKind::Wrapped => 4,
                    PieceKind::ColorBomb => 5,
                    PieceKind::Ingredient => 6,
                }
            }
        })
        .collect();
    hasher.update(kinds);
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_the_text_form() {
        let level = LevelBoard::parse("R-GB/#*R+/Y|.1").unwrap();
        assert_eq!((level.width(), level.height()), (3, 3));
        assert_eq!(level.board().cells(), &[1, 2, 3, 0, 0, 1, 4, 0, 1]);
        assert_eq!(
            level.holes(),
            &[false, false, false, true, false, false, false, false, false]
        );
        use PieceKind::*;
        assert_eq!(
            level.kinds(),
            &[
                StripedH, Normal, Normal, Normal, ColorBomb, Wrapped, StripedV, Normal, Normal
            ]
        );
        assert_eq!(level.to_string(), "R-GB/#*R+/Y|.R");
        assert!(level.is_tile(4) && !level.is_tile(3) && !level.is_tile(7));
        assert_eq!(level.empty_cells(), vec![Position::new(2, 1)]);
    }

    #[test]
    fn rejects_inconsistent_cells() {
        let board = Board::parse("RG/B.").unwrap();
        use PieceKind::*;
        assert_eq!(
            LevelBoard::new(board.clone(), vec![true, false, false, false], vec![]),
            Err(LevelError::TileOnHole { index: 0, color: 1 })
        );
        assert_eq!(
            LevelBoard::new(board.clone(), vec![false; 3], vec![]),
            Err(LevelError::HoleCountMismatch {
                expected: 4,
                actual: 3
            })
        );
        assert_eq!(
            LevelBoard::new(board.clone(), vec![], vec![Normal; 5]),
            Err(LevelError::KindCountMismatch {
                expected: 4,
                actual: 5
            })
        );
        assert_eq!(
            LevelBoard::new(
                board.clone(),
                vec![],
                vec![Normal, ColorBomb, Normal, Normal]
            ),
            Err(LevelError::ColorOnBomb { index: 1, color: 2 })
        );
        assert_eq!(
            LevelBoard::new(board.clone(), vec![], vec![Normal, Normal, Normal, Wrapped]),
            Err(LevelError::KindOnEmpty { index: 3 })
        );
        assert_eq!(
            LevelBoard::new(
                board.clone(),
                vec![false, false, false, true],
                vec![Normal, Normal, Normal, ColorBomb]
            ),
            Err(LevelError::KindOnHole { index: 3 })
        );
        assert!(LevelBoard::new(board, vec![], vec![Normal, Normal, Normal, ColorBomb]).is_ok());
    }
}
