//! Valid swaps on colour planes: the masks of the swaps that complete a line of three, row by
//! row or on the whole board packed into one 128-bit word.

use super::{ColorPlanes, PAD_ABOVE};

impl ColorPlanes {
    /// The valid swaps of row `row` of a full, run-free board, as two masks: bit `c` of the
    /// first is the swap `(row, c)-(row, c + 1)`, bit `c` of the second `(row, c)-(row + 1, c)`.
    ///
    /// A swap is valid when the tile moving into a cell completes a line of three there with
    /// two tiles of its colour: beside it in the line it moves along, or on both sides or on
    /// one side of the line across it. Each such pattern is a few shifts and ANDs of the
    /// moving colour's plane, so one row costs a few dozen word operations per colour.
    #[inline]
    pub(crate) fn swap_masks(&self, row: usize) -> (u64, u64) {
        let i = PAD_ABOVE + row;
        let (mut right, mut down) = (0u64, 0u64);
        for color in 1..=self.colors {
            let window = &self.plane(color)[i - 2..i + 4];
            let (up2, up1, line, down1, down2, down3) = (
                window[0], window[1], window[2], window[3], window[4], window[5],
            );
            if line == 0 && down1 == 0 {
                continue;
            }
            // Cells where a tile of this colour would be the middle or an end of a vertical
            // line of three through this row...
            let across_vertical = (up1 & up2) | (down1 & down2) | (up1 & down1);
            // ...and of a horizontal line of three in this row and in the row below.
            let across_here = across_horizontal(line);
            let across_below = across_horizontal(down1);
            // Right swaps: the tile at c moves to c + 1, the tile at c + 1 moves to c.
            let moves_right = line & (((line >> 2) & (line >> 3)) | (across_vertical >> 1));
            let moves_left = (line >> 1) & (((line << 1) & (line << 2)) | across_vertical);
            right |= (moves_right | moves_left) & !(line & (line >> 1));
            // Down swaps: the tile at row moves to row + 1, the tile at row + 1 moves up.
            let moves_down = line & (across_below | (down2 & down3));
            let moves_up = down1 & (across_here | (up1 & up2));
            down |= (moves_down | moves_up) & !(line & down1);
        }
        (right, down)
    }

    /// Number of valid swaps of the (full, run-free) board.
    pub(crate) fn count_valid_swaps(&self) -> usize {
        if let Some((right, down, _)) = self.packed_swap_masks() {
            return (right.count_ones() + down.count_ones()) as usize;
        }
        (0..self.height)
            .map(|row| {
                let (right, down) = self.swap_masks(row);
                (right.count_ones() + down.count_ones()) as usize
            })
            .sum()
    }

    /// The valid swaps of a whole (run-free) board at once, for a board whose rows, each
    /// followed by one zero column, fit one `u128` (up to 10x10, 8x14, ...): the masks of
    /// [`ColorPlanes::swap_masks`] packed with row `r`, column `c` at bit `r * (width + 1) +
    /// c` (the zero column keeps horizontal shifts from pairing cells of different rows; bits
    /// naming no swap are cleared), and the cells holding any colour packed the same way.
    /// `None` when the board does not fit that packing.
    pub(crate) fn packed_swap_masks(&self) -> Option<(u128, u128, u128)> {
        let (width, height) = (self.width, self.height);
        let stride = width + 1;
        // The pattern shifts reach three rows down, so three strides must stay inside the word.
        if stride * height > 128 || 3 * stride >= 128 {
            return None;
        }
        let row_cells = (1u128 << width) - 1;
        let (mut right_origins, mut down_origins) = (0u128, 0u128);
        for row in 0..height {
            right_origins |= (row_cells >> 1) << (row * stride);
            if row + 1 < height {
                down_origins |= row_cells << (row * stride);
            }
        }
        let (mut right, mut down, mut occupied) = (0u128, 0u128, 0u128);
        for color in 1..=self.colors {
            let plane = &self.plane(color)[PAD_ABOVE..PAD_ABOVE + height];
            let line = pack_rows(plane, stride);
            occupied |= line;
            let (up1, up2) = (line << stride, line << (2 * stride));
            let (down1, down2, down3) =
                (line >> stride, line >> (2 * stride), line >> (3 * stride));
            let across_vertical = (up1 & up2) | (down1 & down2) | (up1 & down1);
            let across_here = across_horizontal_packed(line);
            let across_below = across_horizontal_packed(down1);
            let moves_right = line & (((line >> 2) & (line >> 3)) | (across_vertical >> 1));
            let moves_left = (line >> 1) & (((line << 1) & (line << 2)) | across_vertical);
            right |= (moves_right | moves_left) & !(line & (line >> 1));
            let moves_down = line & (across_below | (down2 & down3));
            let moves_up = down1 & (across_here | (up1 & up2));
            down |= (moves_down | moves_up) & !(line & down1);
        }
        Some((right & right_origins, down & down_origins, occupied))
    }

    /// Number of valid swaps of the (full, run-free) board, counted row by row until `limit`
    /// is reached: the result is `min(count, limit)` or a little more.
    pub(crate) fn count_valid_swaps_up_to(&self, limit: usize) -> usize {
        let mut count = 0;
        for row in 0..self.height {
            if count >= limit {
                break;
            }
            let (right, down) = self.swap_masks(row);
            count += (right.count_ones() + down.count_ones()) as usize;
        }
        count
    }

    /// True when the (full, run-free) board has a valid swap; stops at the first row with one.
    pub(crate) fn has_valid_swap(&self) -> bool {
        (0..self.height).any(|row| self.swap_masks(row) != (0, 0))
    }
}

/// Bit `c` set when a tile at `c` would complete a horizontal line of three with the tiles of
/// `line` at `c - 2, c - 1`, at `c - 1, c + 1`, or at `c + 1, c + 2`.
#[inline]
fn across_horizontal(line: u64) -> u64 {
    let (left1, left2, right1, right2) = (line << 1, line << 2, line >> 1, line >> 2);
    (left1 & left2) | (right1 & right2) | (left1 & right1)
}

/// The first `rows.len()` row masks packed into one word, row `r` at bit `r * stride` (the
/// caller checks that they fit).
#[inline]
pub(crate) fn pack_rows(rows: &[u64], stride: usize) -> u128 {
    rows.iter().enumerate().fold(0u128, |packed, (row, &mask)| {
        packed | u128::from(mask) << (row * stride)
    })
}

/// [`pack_rows`] for sparse sets: an empty row costs a test, no shift.
#[inline]
pub(crate) fn pack_sparse_rows(rows: &[u64], stride: usize) -> u128 {
    let mut packed = 0u128;
    for (row, &mask) in rows.iter().enumerate() {
        if mask != 0 {
            packed |= u128::from(mask) << (row * stride);
        }
    }
    packed
}

/// [`across_horizontal`] on a packed board (see [`ColorPlanes::packed_swap_masks`]).
#[inline]
fn across_horizontal_packed(line: u128) -> u128 {
    let (left1, left2, right1, right2) = (line << 1, line << 2, line >> 1, line >> 2);
    (left1 & left2) | (right1 & right2) | (left1 & right1)
}
