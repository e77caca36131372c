//! A set of cells of a swap-family board as one `u64` mask per row, and the bit iterator the
//! bitboard code walks masks with.

use crate::board::{MAX_SIDE, Position};

/// A set of cells as one `u64` mask per row (bit `c` of row `r` is cell `(r, c)`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellSet {
    rows: [u64; MAX_SIDE as usize],
}

impl CellSet {
    pub(crate) const fn new() -> Self {
        Self {
            rows: [0; MAX_SIDE as usize],
        }
    }

    #[inline]
    pub(crate) fn row(&self, row: usize) -> u64 {
        self.rows[row]
    }

    /// Every row mask (all 64; rows past the board's height are 0).
    #[inline]
    pub(crate) fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// Every row mask, to write (all 64; rows past the board's height must stay 0).
    #[inline]
    pub(crate) fn rows_mut(&mut self) -> &mut [u64] {
        &mut self.rows
    }

    #[inline]
    pub(crate) fn set_row(&mut self, row: usize, mask: u64) {
        self.rows[row] = mask;
    }

    /// Adds cell `(row, col)`.
    #[inline]
    pub(crate) fn insert(&mut self, row: usize, col: usize) {
        self.rows[row] |= 1 << col;
    }

    /// Adds the cells of `mask` to row `row`.
    #[inline]
    pub(crate) fn union_row(&mut self, row: usize, mask: u64) {
        self.rows[row] |= mask;
    }

    /// Removes the cells of `mask` from row `row`.
    #[inline]
    pub(crate) fn remove_from_row(&mut self, row: usize, mask: u64) {
        self.rows[row] &= !mask;
    }

    /// Copies the first `rows` rows of `other` (the same set as `other` when both are empty
    /// from row `rows` on).
    #[inline]
    pub(crate) fn copy_rows_from(&mut self, other: &Self, rows: usize) {
        self.rows[..rows].copy_from_slice(&other.rows[..rows]);
    }

    /// Empties the first `height` rows.
    #[inline]
    pub(crate) fn clear_rows(&mut self, height: usize) {
        self.rows[..height].fill(0);
    }

    /// Number of cells in the first `height` rows.
    pub(crate) fn len_within(&self, height: usize) -> usize {
        self.rows[..height]
            .iter()
            .map(|r| r.count_ones() as usize)
            .sum()
    }

    /// The cells of the first `height` rows in row-major order.
    pub(crate) fn positions(&self, height: usize) -> impl Iterator<Item = Position> + '_ {
        self.rows[..height]
            .iter()
            .enumerate()
            .flat_map(|(row, &mask)| BitIter(mask).map(move |col| Position::new(row as u32, col)))
    }
}

/// The set bits of a word, lowest first.
#[derive(Clone, Copy)]
pub(crate) struct BitIter(pub(crate) u64);

impl Iterator for BitIter {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(bit)
    }
}
