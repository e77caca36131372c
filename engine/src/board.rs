//! Board types shared by both families: a parsed [`Board`] is well-formed by construction.
//!
//! Conventions (docs/rules.md section 1): `width` columns by `height` rows, cells row-major, row 0 at the
//! top, gravity toward higher rows. A cell is [`EMPTY`] (0) or a colour `1..=16`.

use std::fmt;

pub use super::error::BoardError;
use super::error::EngineError;
pub use super::position::Position;

/// Smallest and largest board side, in cells (docs/rules.md section 1).
pub const MIN_SIDE: u32 = 1;
/// Largest board side, in cells; a row fits one `u64` mask.
pub const MAX_SIDE: u32 = 64;
/// Highest colour number; colours are `1..=MAX_COLOR`.
pub const MAX_COLOR: u8 = 16;
/// The value of an empty cell.
pub const EMPTY: u8 = 0;

/// Letters used to print and parse colours 1..=16, in colour order: `R` is 1, `G` is 2, ...
///
/// Chosen so the rules' example boards (`R`, `G`, `B`, `Y`, `A`, `C`, `D`) read naturally.
pub const COLOR_LETTERS: &[u8; 16] = b"RGBYPOCWKMADEFHI";

/// A well-formed board: sides in `1..=64`, `width * height` cells, each empty or `1..=16`.
#[derive(PartialEq, Eq, Hash)]
pub struct Board {
    width: u8,
    height: u8,
    cells: Vec<u8>,
}

impl Clone for Board {
    fn clone(&self) -> Self {
        Self {
            width: self.width,
            height: self.height,
            cells: self.cells.clone(),
        }
    }

    /// Reuses the cells' storage.
    fn clone_from(&mut self, source: &Self) {
        self.width = source.width;
        self.height = source.height;
        self.cells.clone_from(&source.cells);
    }
}

impl Board {
    /// Parses raw dimensions and row-major cells (as they arrive over the wire).
    ///
    /// Checks run before any arithmetic on the raw numbers, so no value can overflow, panic or
    /// cause an allocation proportional to it.
    ///
    /// # Errors
    /// [`BoardError::WidthOutOfRange`], [`BoardError::HeightOutOfRange`],
    /// [`BoardError::CellCountMismatch`], [`BoardError::ColorOutOfRange`] (first bad cell).
    pub fn from_raw(width: u32, height: u32, cells: &[u32]) -> Result<Self, BoardError> {
        check_dimensions(width, height)?;
        let expected = (width * height) as usize;
        if cells.len() != expected {
            return Err(BoardError::CellCountMismatch {
                expected,
                actual: cells.len(),
            });
        }
        // One branch-free pass for the common case, the first bad cell looked for only when
        // there is one.
        let highest = cells.iter().fold(0, |highest, &value| highest.max(value));
        if highest > u32::from(MAX_COLOR)
            && let Some((index, &value)) = cells
                .iter()
                .enumerate()
                .find(|&(_, &value)| value > u32::from(MAX_COLOR))
        {
            return Err(BoardError::ColorOutOfRange { index, value });
        }
        let parsed: Vec<u8> = cells.iter().map(|&value| value as u8).collect();
        Ok(Self {
            width: width as u8,
            height: height as u8,
            cells: parsed,
        })
    }

    /// Parses the text form: rows top to bottom joined by `/`; `.` or `0` is empty, `1`..`9` are
    /// those colours, and the letters of [`COLOR_LETTERS`] (either case) are colours 1..=16.
    /// Example: `"RRG/GGR"` is 3x2.
    ///
    /// # Errors
    /// [`BoardError::Text`] for ragged rows or unknown characters, and the size errors of
    /// [`Board::from_raw`].
    pub fn parse(text: &str) -> Result<Self, BoardError> {
        let rows: Vec<&str> = text.trim().split('/').collect();
        let width = rows[0].chars().count();
        let mut cells = Vec::with_capacity(width * rows.len());
        for (row_index, row) in rows.iter().enumerate() {
            if row.chars().count() != width {
                return Err(BoardError::Text(format!(
                    "row {row_index} has {} cells, row 0 has {width}",
                    row.chars().count()
                )));
            }
            for ch in row.chars() {
                cells.push(u32::from(color_from_char(ch).ok_or_else(|| {
                    BoardError::Text(format!("unknown cell character {ch:?} in row {row_index}"))
                })?));
            }
        }
        let width = u32::try_from(width).unwrap_or(u32::MAX);
        let height = u32::try_from(rows.len()).unwrap_or(u32::MAX);
        Self::from_raw(width, height, &cells)
    }

    /// Number of columns, `1..=64`.
    #[inline]
    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    /// Number of rows, `1..=64`.
    #[inline]
    pub fn height(&self) -> usize {
        usize::from(self.height)
    }

    /// Row-major cells, `width * height` of them, each [`EMPTY`] or `1..=16`.
    #[inline]
    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The cell at row-major `index`. Panics if `index >= width * height` (engine-internal use).
    #[inline]
    pub fn at(&self, index: usize) -> u8 {
        self.cells[index]
    }

    /// The row-major index of `position`, or `None` when it lies off the board.
    #[inline]
    pub fn index_of(&self, position: Position) -> Option<usize> {
        let (row, col) = (position.row as usize, position.col as usize);
        (position.row < u32::from(self.height) && position.col < u32::from(self.width))
            .then(|| row * self.width() + col)
    }

    /// The row-major index of `position`, or [`EngineError::PositionOffBoard`] naming the
    /// request `field` it came from (e.g. `swap.a`, `position`).
    ///
    /// # Errors
    /// [`EngineError::PositionOffBoard`] when `position` lies off the board.
    pub fn checked_index(
        &self,
        field: &'static str,
        position: Position,
    ) -> Result<usize, EngineError> {
        self.index_of(position)
            .ok_or(EngineError::PositionOffBoard {
                field,
                position,
                width: self.width(),
                height: self.height(),
            })
    }

    /// The position of row-major `index`.
    #[inline]
    pub fn position_of(&self, index: usize) -> Position {
        Position::new((index / self.width()) as u32, (index % self.width()) as u32)
    }

    /// Number of non-empty cells.
    pub fn tile_count(&self) -> usize {
        self.cells.iter().filter(|&&c| c != EMPTY).count()
    }

    /// True when some cell is empty.
    pub fn has_empty_cell(&self) -> bool {
        self.cells.contains(&EMPTY)
    }

    /// Per-colour tile counts: entry `c` is the number of cells of colour `c` (entry 0 counts
    /// empty cells).
    pub fn color_counts(&self) -> [usize; MAX_COLOR as usize + 1] {
        let mut counts = [0; MAX_COLOR as usize + 1];
        for &cell in &self.cells {
            counts[usize::from(cell)] += 1;
        }
        counts
    }

    /// Mutable cells for the engine's own moves; every write keeps values in `0..=16`.
    #[inline]
    pub(crate) fn cells_mut(&mut self) -> &mut [u8] {
        &mut self.cells
    }

    /// Builds a board from cells the engine produced itself (values already in range).
    pub(crate) fn from_engine_cells(width: usize, height: usize, cells: Vec<u8>) -> Self {
        debug_assert!((1..=64).contains(&width) && (1..=64).contains(&height));
        debug_assert_eq!(cells.len(), width * height);
        debug_assert!(cells.iter().all(|&c| c <= MAX_COLOR));
        Self {
            width: width as u8,
            height: height as u8,
            cells,
        }
    }

    /// Cells as `u32` for the wire.
    pub fn cells_u32(&self) -> Vec<u32> {
        self.cells.iter().map(|&c| u32::from(c)).collect()
    }
}

fn check_dimensions(width: u32, height: u32) -> Result<(), BoardError> {
    if !(MIN_SIDE..=MAX_SIDE).contains(&width) {
        return Err(BoardError::WidthOutOfRange(width));
    }
    if !(MIN_SIDE..=MAX_SIDE).contains(&height) {
        return Err(BoardError::HeightOutOfRange(height));
    }
    Ok(())
}

/// The colour a text-form character stands for, or `None` for an unknown character.
pub fn color_from_char(ch: char) -> Option<u8> {
    match ch {
        '.' | '0' => Some(EMPTY),
        '1'..='9' => Some(ch as u8 - b'0'),
        _ => {
            let upper = ch.to_ascii_uppercase();
            COLOR_LETTERS
                .iter()
                .position(|&l| char::from(l) == upper)
                .map(|i| i as u8 + 1)
        }
    }
}

/// The text-form character of a cell value: `.` for empty, else its letter in [`COLOR_LETTERS`].
pub fn color_char(cell: u8) -> char {
    match cell {
        EMPTY => '.',
        c => char::from(COLOR_LETTERS[usize::from(c - 1) % COLOR_LETTERS.len()]),
    }
}

impl fmt::Display for Board {
    /// The text form: rows joined by `/`, e.g. `RRG/GGR`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (row, chunk) in self.cells.chunks(self.width()).enumerate() {
            if row > 0 {
                f.write_str("/")?;
            }
            for &cell in chunk {
                write!(f, "{}", color_char(cell))?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({}x{} {self})", self.width, self.height)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_text_and_prints_it_back() {
        let board = Board::parse("RRG/GGR").unwrap();
        assert_eq!((board.width(), board.height()), (3, 2));
        assert_eq!(board.cells(), &[1, 1, 2, 2, 2, 1]);
        assert_eq!(board.to_string(), "RRG/GGR");
        assert_eq!(
            Board::parse("13552/3.331").unwrap().cells(),
            &[1, 3, 5, 5, 2, 3, 0, 3, 3, 1]
        );
    }

    #[test]
    fn rejects_malformed_raw_boards() {
        assert_eq!(
            Board::from_raw(0, 3, &[]),
            Err(BoardError::WidthOutOfRange(0))
        );
        assert_eq!(
            Board::from_raw(65, 1, &[0; 65]),
            Err(BoardError::WidthOutOfRange(65))
        );
        assert_eq!(
            Board::from_raw(3, 65, &[]),
            Err(BoardError::HeightOutOfRange(65))
        );
        assert_eq!(
            Board::from_raw(u32::MAX, u32::MAX, &[]),
            Err(BoardError::WidthOutOfRange(u32::MAX))
        );
        assert_eq!(
            Board::from_raw(2, 2, &[1, 2, 3]),
            Err(BoardError::CellCountMismatch {
                expected: 4,
                actual: 3
            })
        );
        assert_eq!(
            Board::from_raw(2, 1, &[1, 17]),
            Err(BoardError::ColorOutOfRange {
                index: 1,
                value: 17
            })
        );
        assert!(matches!(Board::parse("RR/G"), Err(BoardError::Text(_))));
        assert!(matches!(Board::parse("RZ"), Err(BoardError::Text(_))));
    }

    #[test]
    fn index_of_rejects_off_board_positions() {
        let board = Board::parse("RRG/GGR").unwrap();
        assert_eq!(board.index_of(Position::new(1, 2)), Some(5));
        assert_eq!(board.index_of(Position::new(2, 0)), None);
        assert_eq!(board.index_of(Position::new(0, 3)), None);
        assert_eq!(board.index_of(Position::new(u32::MAX, u32::MAX)), None);
        assert_eq!(board.position_of(4), Position::new(1, 1));
    }
}
