//! Cell addresses, shared by every module of the engine.

use std::fmt;

/// A cell address `(row, col)`, zero-based; not tied to a board until checked with
/// [`Board::index_of`](super::Board::index_of).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Row, 0 is the top row.
    pub row: u32,
    /// Column, 0 is the leftmost column.
    pub col: u32,
}

impl Position {
    /// The position `(row, col)`.
    pub const fn new(row: u32, col: u32) -> Self {
        Self { row, col }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.row, self.col)
    }
}
