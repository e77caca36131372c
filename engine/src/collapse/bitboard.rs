//! The collapse family's rules on column bitboards: [`CollapseGame`].
//!
//! A board of `width` columns by `height` rows (both `1..=64`) is held column by column: for each
//! colour present and each column one `u64`, where bit `r` is the cell `r` rows above the
//! bottom, i.e. board row `height - 1 - r` (row 0 is the top row, docs/rules.md section 1). On a
//! settled board every column is a run of tiles from bit 0 up to its height, and the non-empty
//! columns are the leftmost ones, so gravity is compaction of a column word toward bit 0 and
//! closing empty columns is moving whole column words left.
//!
//! Groups are found by bitset flood fill: a column's member word grows by one-bit shifts within
//! the column's colour word and spreads into a neighbouring column by an AND with that column's
//! colour word, column by column, until nothing grows. The recording API of
//! [`tap`](super::tap) runs the same group search and the same removal (`CollapseGame::remove`)
//! with a recorder that lists falls and column shifts; a playout runs it with no recorder.

#![allow(
    clippy::needless_range_loop,
    reason = "column loops index several per-column arrays in step"
)]

use crate::board::{Board, EMPTY, MAX_SIDE};
use crate::error::{EngineError, TapRejection};
use crate::params::MinGroup;
use crate::position::Position;
use crate::settled::SettledBoard;

/// Columns of the largest board.
const MAX_COLUMNS: usize = MAX_SIDE as usize;

/// One member word per column of the largest board: bit `r` of entry `c` is the cell `r` rows
/// above the bottom of column `c`.
pub(crate) type ColumnMask = [u64; MAX_COLUMNS];

/// The low `n` bits set, `n` in `0..=64`.
#[inline]
pub(crate) fn low_bits(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1 << n) - 1 }
}

/// The columns a group occupies: `lo..=hi`; member words outside are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Leftmost column of the group.
    pub(crate) lo: usize,
    /// Rightmost column of the group.
    pub(crate) hi: usize,
}

/// What a removal reports to its caller, beyond the new position; the playout uses `()`,
/// which records nothing and compiles away.
pub(crate) trait TapRecorder {
    /// Column `col` lost the cells of `removed` (bits from the bottom); `before` was its
    /// occupancy. Called in increasing `col` order, before any column moves.
    fn column_compacted(&mut self, col: usize, removed: u64, before: u64);
    /// The non-empty column `from` moved left to `to` when empty columns closed; called in
    /// increasing `from` order.
    fn column_moved(&mut self, from: usize, to: usize);
}

impl TapRecorder for () {
    #[inline]
    fn column_compacted(&mut self, _: usize, _: u64, _: u64) {}
    #[inline]
    fn column_moved(&mut self, _: usize, _: usize) {}
}

/// A legal group found by [`CollapseGame::legal_groups_into`] or
/// [`CollapsePlayout::group`](super::CollapsePlayout::group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TapGroup {
    /// A cell of the group to tap (row 0 is the top): from `legal_groups_into` its lowest cell
    /// in its leftmost column, from `CollapsePlayout::group` the group's seed cell. This is not
    /// the row-major representative that [`legal_groups`](super::legal_groups) reports; any
    /// cell of a group names the whole group.
    pub position: Position,
    /// The group's colour, `1..=16`.
    pub color: u8,
    /// Its size in cells, `>= min_group`.
    pub size: usize,
}

/// A settled collapse-family position as column bitboards, for fast play: list the legal
/// groups, apply a tap, read the tiles left, with no per-move allocation and no record of
/// cleared cells or falls (the recording API is [`tap`](super::tap), built on the same core).
///
/// Sizes: `width` and `height` `1..=64`, colours `1..=16`; memory is one `u64` per column per
/// colour present on the starting board, plus 64 column heights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollapseGame {
    width: u8,
    height: u8,
    /// Non-empty columns; they are columns `0..columns` (settled).
    columns: u8,
    /// Colours present on the starting board: `planes` has `slots` words per column.
    slots: u8,
    tiles: u16,
    /// `palette[slot]` is the colour of plane `slot`.
    palette: [u8; 16],
    /// Tiles in each column; a column's occupancy is its low `heights[col]` bits.
    heights: [u8; MAX_COLUMNS],
    /// `planes[col * slots + slot]`: the cells of colour `palette[slot]` in column `col`.
    planes: Vec<u64>,
}

impl CollapseGame {
    /// The position of a settled board.
    pub fn new(board: &SettledBoard) -> Self {
        Self::from_settled(board.board())
    }

    /// Builds the bitboards of `board`, which must be settled.
    pub(crate) fn from_settled(board: &Board) -> Self {
        let (width, height) = (board.width(), board.height());
        let cells = board.cells();
        let present = cells.iter().fold(0u32, |mask, &c| mask | 1 << c) >> 1;
        let mut palette = [0u8; 16];
        let mut slots = 0usize;
        for color in 1..=16u8 {
            if present >> (color - 1) & 1 == 1 {
                palette[slots] = color;
                slots += 1;
            }
        }
        let mut planes = vec![0u64; width * slots];
        let mut heights = [0u8; MAX_COLUMNS];
        let mut columns = 0;
        let mut tiles = 0u16;
        let full = low_bits(height as u32);
        for col in 0..width {
            // Colour-indexed words of this column; entry 0 collects the empty cells.
            let mut words = [0u64; 17];
            let mut bit = 1u64 << (height - 1);
            for row in 0..height {
                words[usize::from(cells[row * width + col]).min(16)] |= bit;
                bit >>= 1;
            }
            for (slot, &color) in palette[..slots].iter().enumerate() {
                planes[col * slots + slot] = words[usize::from(color)];
            }
            let occupied = (full & !words[0]).count_ones();
            heights[col] = occupied as u8;
            tiles += occupied as u16;
            if occupied != 0 {
                columns = col + 1;
            }
        }
        debug_assert!(heights[..columns].iter().all(|&h| h > 0));
        Self {
            width: width as u8,
            height: height as u8,
            columns: columns as u8,
            slots: slots as u8,
            tiles,
            palette,
            heights,
            planes,
        }
    }

    /// Board width in columns, `1..=64`.
    #[inline]
    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    /// Board height in rows, `1..=64`.
    #[inline]
    pub fn height(&self) -> usize {
        usize::from(self.height)
    }

    /// Tiles on the board, `0..=4096`.
    #[inline]
    pub fn tiles_left(&self) -> usize {
        usize::from(self.tiles)
    }

    /// The board as cells (a settled board).
    pub fn to_settled_board(&self) -> SettledBoard {
        let (width, height) = (self.width(), self.height());
        let mut cells = vec![EMPTY; width * height];
        self.write_columns(&mut cells, 0, self.columns());
        SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells))
    }

    #[inline]
    pub(crate) fn columns(&self) -> usize {
        usize::from(self.columns)
    }

    #[inline]
    fn slots(&self) -> usize {
        usize::from(self.slots)
    }

    /// Number of colour planes: the colours present on the starting board.
    #[inline]
    pub(crate) fn slot_count(&self) -> usize {
        self.slots()
    }

    /// Tiles in column `col`, `0..=height`.
    #[inline]
    pub(crate) fn column_height(&self, col: usize) -> u32 {
        u32::from(self.heights[col])
    }

    /// Tiles of plane `slot`'s colour on the board (`slot < slot_count`).
    pub(crate) fn slot_tiles(&self, slot: usize) -> u32 {
        (0..self.columns())
            .map(|col| self.plane(col, slot).count_ones())
            .sum()
    }

    /// The cells of plane `slot` in column `col` (`col < columns`).
    #[inline]
    pub(crate) fn plane(&self, col: usize, slot: usize) -> u64 {
        self.planes[col * self.slots() + slot]
    }

    /// Writes columns `from..to` of row-major `cells` (`width * height` of them) from the
    /// bitboards; empty cells become [`EMPTY`].
    pub(crate) fn write_columns(&self, cells: &mut [u8], from: usize, to: usize) {
        let (width, height) = (self.width(), self.height());
        for col in from..to {
            for row in 0..height {
                cells[row * width + col] = EMPTY;
            }
            if col >= self.columns() {
                continue;
            }
            for slot in 0..self.slots() {
                let mut word = self.plane(col, slot);
                while word != 0 {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    cells[(height - 1 - bit) * width + col] = self.palette[slot];
                }
            }
        }
    }

    /// The plane and bitboard address `(slot, col, bit)` of the tile at `position`.
    ///
    /// # Errors
    /// [`EngineError::PositionOffBoard`] (`position`) off the board;
    /// [`EngineError::IllegalTap`] ([`TapRejection::EmptyCell`]) for an empty cell.
    pub(crate) fn locate(&self, position: Position) -> Result<(usize, usize, u32), EngineError> {
        let (row, col) = (position.row as usize, position.col as usize);
        if row >= self.height() || col >= self.width() {
            return Err(EngineError::PositionOffBoard {
                field: "position",
                position,
                width: self.width(),
                height: self.height(),
            });
        }
        let bit = (self.height() - 1 - row) as u32;
        if col < self.columns() {
            for slot in 0..self.slots() {
                if self.plane(col, slot) >> bit & 1 == 1 {
                    return Ok((slot, col, bit));
                }
            }
        }
        Err(EngineError::IllegalTap(TapRejection::EmptyCell))
    }

    /// Colour `1..=16` of plane `slot`.
    #[inline]
    pub(crate) fn color_of(&self, slot: usize) -> u8 {
        self.palette[slot]
    }

    /// Floods the group of plane `slot` that holds the cells `seed` of column `col` (`seed`
    /// non-empty and within the plane) into `members`, whose words must be zero on entry.
    /// Returns the columns it spans; words outside them stay zero.
    pub(crate) fn flood(
        &self,
        slot: usize,
        col: usize,
        seed: u64,
        members: &mut ColumnMask,
    ) -> Span {
        debug_assert!(seed != 0 && seed & !self.plane(col, slot) == 0);
        let last = self.columns() - 1;
        members[col] = seed;
        let mut pending = 1u64 << col;
        let (mut lo, mut hi) = (col, col);
        while pending != 0 {
            let c = pending.trailing_zeros() as usize;
            pending &= pending - 1;
            let color = self.plane(c, slot);
            let mut grown = members[c];
            loop {
                let next = (grown | grown << 1 | grown >> 1) & color;
                if next == grown {
                    break;
                }
                grown = next;
            }
            members[c] = grown;
            if c > 0 {
                let spill = grown & self.plane(c - 1, slot) & !members[c - 1];
                if spill != 0 {
                    members[c - 1] |= spill;
                    pending |= 1 << (c - 1);
                    lo = lo.min(c - 1);
                }
            }
            if c < last {
                let spill = grown & self.plane(c + 1, slot) & !members[c + 1];
                if spill != 0 {
                    members[c + 1] |= spill;
                    pending |= 1 << (c + 1);
                    hi = hi.max(c + 1);
                }
            }
        }
        Span { lo, hi }
    }

    /// Calls `visit(slot, members, span, size)` for every group of at least `min_group` cells
    /// (`min_group >= 2`), plane by plane, then by its lowest cell in its leftmost column
    /// (columns left to right, cells bottom up), until `visit` returns false. `members` holds
    /// the group's words (zero outside `span`) during the call.
    pub(crate) fn scan_groups(
        &self,
        min_group: usize,
        mut visit: impl FnMut(usize, &ColumnMask, Span, usize) -> bool,
    ) {
        debug_assert!(min_group >= 2);
        if self.tiles_left() < min_group {
            return;
        }
        let columns = self.columns();
        let mut candidates: ColumnMask = [0; MAX_COLUMNS];
        let mut members: ColumnMask = [0; MAX_COLUMNS];
        for slot in 0..self.slots() {
            // A cell with no same-colour neighbour is a group of one: never a legal group.
            let mut left = 0;
            let mut here = self.plane(0, slot);
            for col in 0..columns {
                let right = if col + 1 < columns {
                    self.plane(col + 1, slot)
                } else {
                    0
                };
                candidates[col] = here & (here << 1 | here >> 1 | left | right);
                (left, here) = (here, right);
            }
            for col in 0..columns {
                while candidates[col] != 0 {
                    let seed = candidates[col] & candidates[col].wrapping_neg();
                    let span = self.flood(slot, col, seed, &mut members);
                    let mut size = 0;
                    for c in span.lo..=span.hi {
                        size += members[c].count_ones() as usize;
                        candidates[c] &= !members[c];
                    }
                    let go_on = size < min_group || visit(slot, &members, span, size);
                    members[span.lo..=span.hi].fill(0);
                    if !go_on {
                        return;
                    }
                }
            }
        }
    }

    /// True when some group has at least `min_group` cells.
    pub fn has_legal_group(&self, min_group: MinGroup) -> bool {
        let min_group = min_group.get();
        if min_group <= 2 {
            // A group of two or more exists iff two neighbours share a colour.
            let columns = self.columns();
            for col in 0..columns {
                for slot in 0..self.slots() {
                    let here = self.plane(col, slot);
                    let right = if col + 1 < columns {
                        self.plane(col + 1, slot)
                    } else {
                        0
                    };
                    if here & (here >> 1 | right) != 0 {
                        return true;
                    }
                }
            }
            return false;
        }
        let mut found = false;
        self.scan_groups(min_group, |_, _, _, _| {
            found = true;
            false
        });
        found
    }

    /// The number of legal groups (at least `min_group` cells), `0..=2048`.
    pub fn count_legal_groups(&self, min_group: MinGroup) -> usize {
        let mut count = 0;
        self.scan_groups(min_group.get(), |_, _, _, _| {
            count += 1;
            true
        });
        count
    }

    /// Replaces `out`'s contents with every legal group (at least `min_group` cells) once, by
    /// colour (in increasing colour order), then by the column of its leftmost cell, then from
    /// the bottom. Reuse `out` across moves to avoid allocating.
    pub fn legal_groups_into(&self, min_group: MinGroup, out: &mut Vec<TapGroup>) {
        out.clear();
        let height = self.height();
        self.scan_groups(min_group.get(), |slot, members, span, size| {
            let bit = members[span.lo].trailing_zeros() as usize;
            out.push(TapGroup {
                position: Position::new((height - 1 - bit) as u32, span.lo as u32),
                color: self.color_of(slot),
                size,
            });
            true
        });
    }

    /// Taps the tile at `position`: clears its group, applies gravity and closes empty columns
    /// (docs/rules.md section 3). Returns the number of cells cleared; score it with
    /// [`ScoringRule::move_score`](crate::ScoringRule::move_score).
    ///
    /// # Errors
    /// [`EngineError::PositionOffBoard`] (`position`) off the board;
    /// [`EngineError::IllegalTap`] for an empty cell or a group smaller than `min_group`. The
    /// position is unchanged on error.
    pub fn apply_tap(
        &mut self,
        position: Position,
        min_group: MinGroup,
    ) -> Result<usize, EngineError> {
        let (slot, col, bit) = self.locate(position)?;
        let mut members: ColumnMask = [0; MAX_COLUMNS];
        let span = self.flood(slot, col, 1 << bit, &mut members);
        let size = members[span.lo..=span.hi]
            .iter()
            .map(|w| w.count_ones() as usize)
            .sum();
        if size < min_group.get() {
            return Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                size,
                min_group: min_group.get(),
            }));
        }
        self.remove(&members, span, &mut ());
        Ok(size)
    }

    /// Removes the group `members` (spanning `span`): clears it, compacts each touched column
    /// toward the bottom (gravity) and closes the columns it emptied (column collapse), telling
    /// `recorder` what moved. Returns true when some column closed.
    pub(crate) fn remove<R: TapRecorder>(
        &mut self,
        members: &ColumnMask,
        span: Span,
        recorder: &mut R,
    ) -> bool {
        let slots = self.slots();
        let mut emptied = false;
        for col in span.lo..=span.hi {
            let removed = members[col];
            if removed == 0 {
                continue;
            }
            let height = u32::from(self.heights[col]);
            recorder.column_compacted(col, removed, low_bits(height));
            let words = &mut self.planes[col * slots..(col + 1) * slots];
            // Remove runs of cleared cells from the top down, so lower runs keep their bits.
            let mut rest = removed;
            while rest != 0 {
                let top = 63 - rest.leading_zeros();
                let run = (!(rest << (63 - top))).leading_zeros();
                let start = top + 1 - run;
                let keep = low_bits(start);
                for word in words.iter_mut() {
                    *word = (*word & keep) | (word.checked_shr(run).unwrap_or(0) & !keep);
                }
                rest &= keep;
            }
            let cleared = removed.count_ones();
            self.heights[col] -= cleared as u8;
            self.tiles -= cleared as u16;
            emptied |= self.heights[col] == 0;
        }
        if emptied {
            let columns = self.columns();
            let mut target = span.lo;
            for col in span.lo..columns {
                if self.heights[col] == 0 {
                    continue;
                }
                if target != col {
                    self.planes
                        .copy_within(col * slots..(col + 1) * slots, target * slots);
                    self.heights[target] = self.heights[col];
                    recorder.column_moved(col, target);
                }
                target += 1;
            }
            self.planes[target * slots..columns * slots].fill(0);
            self.heights[target..columns].fill(0);
            self.columns = target as u8;
        }
        emptied
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn low_bits_covers_the_whole_range() {
        assert_eq!(low_bits(0), 0);
        assert_eq!(low_bits(1), 1);
        assert_eq!(low_bits(15), 0x7fff);
        assert_eq!(low_bits(63), u64::MAX >> 1);
        assert_eq!(low_bits(64), u64::MAX);
    }
}
