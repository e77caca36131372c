//! Bitboards of the swap family: a [`CellSet`] holds one `u64` per row (bit `c` of row `r` is
//! cell `(r, c)`, so a 64-wide row uses every bit), and [`ColorPlanes`] holds one such set per
//! colour. Runs, matched cells, groups and valid swaps are computed on these words with shifts
//! and masks, as chess engines do with piece bitboards, instead of cell by cell.

mod valid_swaps;

pub(crate) use super::cellset::{BitIter, CellSet};
pub(crate) use valid_swaps::pack_sparse_rows;

use super::board::{Board, EMPTY, MAX_COLOR, Position};

/// Zero rows kept above row 0 of each plane, so patterns may look two rows up unchecked.
const PAD_ABOVE: usize = 2;
/// Zero rows kept below the last row of each plane, so patterns may look three rows down.
const PAD_BELOW: usize = 3;

/// One [`CellSet`]-like plane of row masks per colour `1..=colors` of a board, each padded with
/// zero rows above and below so that vertical patterns need no bounds checks.
#[derive(Clone, Debug)]
pub(crate) struct ColorPlanes {
    width: usize,
    height: usize,
    /// Planes exist for colours `1..=colors`, `0..=16`: at least the highest colour present
    /// (more after [`ColorPlanes::reserve_colors`]).
    colors: usize,
    /// Rows per plane: `PAD_ABOVE + height + PAD_BELOW`.
    stride: usize,
    /// Plane of colour `c` is `words[(c - 1) * stride..c * stride]`; row `r` is at
    /// `PAD_ABOVE + r` within it.
    words: Vec<u64>,
}

impl ColorPlanes {
    /// The colour planes of `cells`, a row-major `width x height` board (values `0..=16`).
    pub(crate) fn new(cells: &[u8], width: usize, height: usize) -> Self {
        let mut planes = Self {
            width,
            height,
            colors: 0,
            stride: PAD_ABOVE + height + PAD_BELOW,
            words: Vec::new(),
        };
        planes.rebuild(cells, width);
        planes
    }

    /// Rebuilds the planes for new `cells` of the same `width` and height, reusing the storage
    /// (the cascade does this after every step).
    pub(crate) fn rebuild(&mut self, cells: &[u8], width: usize) {
        let height = self.height;
        debug_assert_eq!(cells.len(), width * height);
        let colors = usize::from(cells.iter().copied().max().unwrap_or(EMPTY));
        let stride = self.stride;
        self.colors = colors;
        let words = &mut self.words;
        words.clear();
        words.resize(colors * stride, 0);
        if width <= 8 {
            // Narrow rows: compare all of a row's cells with each colour at once (SWAR), no
            // stores in the inner loop.
            for (row, line) in cells.chunks_exact(width).enumerate() {
                let chunk = load_chunk(line);
                for color in 1..=colors {
                    words[(color - 1) * stride + PAD_ABOVE + row] =
                        byte_equality_mask(chunk, color as u8);
                }
            }
        } else if width <= NARROW {
            // Rows of 9 to 16 cells: one bit set per cell is cheaper than comparing two chunks
            // with every colour (1,150 fewer instructions a 9x9 board of 6 colours).
            for (row, line) in cells.chunks_exact(width).enumerate() {
                for (col, &cell) in line.iter().enumerate() {
                    if cell != EMPTY {
                        words[(usize::from(cell) - 1) * stride + PAD_ABOVE + row] |= 1 << col;
                    }
                }
            }
        } else {
            for (row, line) in cells.chunks_exact(width).enumerate() {
                // Gather the row's masks in a table indexed by colour (empty cells land in
                // entry 0), then store each colour's mask once.
                let mut by_color = [0u64; MAX_COLOR as usize + 1];
                for (col, &cell) in line.iter().enumerate() {
                    by_color[usize::from(cell).min(MAX_COLOR as usize)] |= 1 << col;
                }
                for (color, &mask) in by_color[1..=colors].iter().enumerate() {
                    words[color * stride + PAD_ABOVE + row] = mask;
                }
            }
        }
    }

    /// [`ColorPlanes::rebuild`] cell by cell: one bit set per non-empty cell, reusing the
    /// storage. Cheaper than the row-at-once comparisons when rows are short and colours many,
    /// as on the level boards' 9x9 turns.
    pub(crate) fn rebuild_by_cells(&mut self, cells: &[u8], width: usize) {
        debug_assert_eq!(cells.len(), width * self.height);
        let colors = usize::from(cells.iter().copied().max().unwrap_or(EMPTY));
        let stride = self.stride;
        self.colors = colors;
        self.words.clear();
        self.words.resize(colors * stride, 0);
        for (row, line) in cells.chunks_exact(width).enumerate() {
            for (col, &cell) in line.iter().enumerate() {
                if cell != EMPTY {
                    self.words[(usize::from(cell) - 1) * stride + PAD_ABOVE + row] |= 1 << col;
                }
            }
        }
    }

    /// The planes of a board, built by [`ColorPlanes::rebuild_by_cells`].
    pub(crate) fn of_by_cells(board: &Board) -> Self {
        let mut planes = Self {
            width: board.width(),
            height: board.height(),
            colors: 0,
            stride: PAD_ABOVE + board.height() + PAD_BELOW,
            words: Vec::new(),
        };
        planes.rebuild_by_cells(board.cells(), board.width());
        planes
    }

    /// Empties the cells of `cells` in the first `rows` rows, in the planes of the colours of
    /// `colors` (bit `c` for colour `c`, `1..=16`; `u32::MAX` for every plane): the cells must
    /// hold no other colour.
    pub(crate) fn remove_cells(&mut self, cells: &CellSet, rows: usize, colors: u32) {
        let (rows, stride) = (rows.min(self.height), self.stride);
        let planes = u64::from(colors >> 1) & ((1 << self.colors) - 1);
        for color in BitIter(planes) {
            let plane = &mut self.words[color as usize * stride + PAD_ABOVE..][..rows];
            for (line, &removed) in plane.iter_mut().zip(cells.rows()) {
                *line &= !removed;
            }
        }
    }

    /// Puts colour `color` (`1..=16`) on the empty cell `(row, col)`.
    #[inline]
    pub(crate) fn add_cell(&mut self, row: usize, col: u32, color: u8) {
        if usize::from(color) > self.colors {
            self.reserve_colors(color);
        }
        let index = (usize::from(color) - 1) * self.stride + PAD_ABOVE + row;
        self.words[index] |= 1 << col;
    }

    /// Takes colour `color` (`1..=16`, present in the planes) off the cell `(row, col)`.
    #[inline]
    pub(crate) fn remove_cell(&mut self, row: usize, col: u32, color: u8) {
        let index = (usize::from(color) - 1) * self.stride + PAD_ABOVE + row;
        self.words[index] &= !(1 << col);
    }

    /// Moves the tile of colour `color` (`1..=16`) at `(from, col)` to the empty cell
    /// `(to, col)`.
    #[inline]
    pub(crate) fn move_cell(&mut self, from: usize, to: usize, col: usize, color: u8) {
        let base = (usize::from(color) - 1) * self.stride + PAD_ABOVE;
        self.words[base + from] &= !(1 << col);
        self.words[base + to] |= 1 << col;
    }

    /// Row `row` (`0..height`) of every plane at once: the cells holding a colour.
    #[inline]
    pub(crate) fn occupied_row(&self, row: usize) -> u64 {
        (0..self.colors).fold(0, |line, color| {
            line | self.words[color * self.stride + PAD_ABOVE + row]
        })
    }

    /// The planes of a board.
    pub(crate) fn of(board: &Board) -> Self {
        Self::new(board.cells(), board.width(), board.height())
    }

    /// Makes these the planes of `board` (of any size), reusing the storage: the same planes
    /// as [`ColorPlanes::of`] gives.
    pub(crate) fn rebuild_for(&mut self, board: &Board) {
        self.width = board.width();
        self.height = board.height();
        self.stride = PAD_ABOVE + self.height + PAD_BELOW;
        self.rebuild(board.cells(), self.width);
    }

    /// Row `row` (`0..height`) of colour `color`'s plane: bit `c` set when cell `(row, c)`
    /// holds `color`; 0 for colours beyond [`ColorPlanes::colors`] and for colour 0.
    #[inline]
    pub(crate) fn row_of(&self, color: u8, row: usize) -> u64 {
        let color = usize::from(color);
        if color == 0 || color > self.colors || row >= self.height {
            return 0;
        }
        self.words[(color - 1) * self.stride + PAD_ABOVE + row]
    }

    /// The rows of colour `color` (`1..=colors`), `height` of them.
    #[inline]
    pub(crate) fn color_rows(&self, color: u8) -> &[u64] {
        &self.plane(usize::from(color))[PAD_ABOVE..PAD_ABOVE + self.height]
    }

    /// The padded rows of colour `color` (`1..=colors`).
    #[inline]
    fn plane(&self, color: usize) -> &[u64] {
        &self.words[(color - 1) * self.stride..color * self.stride]
    }

    /// Every matched cell: cells in a horizontal or vertical line of 3+ of one colour.
    pub(crate) fn matched(&self) -> CellSet {
        self.matched_from_rows(self.height)
    }

    /// The matched cells of the runs that start (leftmost or topmost cell) in the first `rows`
    /// rows. The cascade knows that every new run touches a row above the deepest cleared
    /// cell, and looks no further.
    pub(crate) fn matched_from_rows(&self, rows: usize) -> CellSet {
        let mut matched = CellSet::new();
        for color in 1..=self.colors {
            self.add_matched_of_color(color, rows, &mut matched);
        }
        matched
    }

    /// [`ColorPlanes::matched_from_rows`] for the runs of the colours in `colors` only (bit `c`
    /// for colour `c`; bits of colours without a plane are ignored). Right after a swap on a
    /// run-free board, for example, every run passes through one of the two swapped cells, so
    /// only their two colours can match.
    pub(crate) fn matched_of_colors(&self, rows: usize, colors: u32) -> CellSet {
        let mut matched = CellSet::new();
        self.add_matched_of_colors(rows, colors, &mut matched);
        matched
    }

    /// Adds [`ColorPlanes::matched_of_colors`] to `matched`, in place.
    #[inline]
    pub(crate) fn add_matched_of_colors(&self, rows: usize, colors: u32, matched: &mut CellSet) {
        for color in BitIter(u64::from(colors)) {
            let color = color as usize;
            if (1..=self.colors).contains(&color) {
                self.add_matched_of_color(color, rows, matched);
            }
        }
    }

    /// Adds to `matched` the cells of colour `color`'s runs that start in the first `rows`
    /// rows.
    #[inline]
    fn add_matched_of_color(&self, color: usize, rows: usize, matched: &mut CellSet) {
        let limit = rows.min(self.height);
        // Rows past `limit + 1` hold no cell of a run starting above `limit`.
        let last = (limit + 2).min(self.height);
        // The plane's rows slide through a window of five registers, each row loaded once:
        // the horizontal runs starting in this row, and the vertical runs starting in this row
        // or one or two above (the padding rows make the windows at the edges read zeros). A
        // run counts when its first row is above `limit`.
        // The rows above `limit` take every pattern; row `limit` only vertical runs from one or
        // two rows up, row `limit + 1` only from two rows up (three loops, no branch per row).
        let plane = self.plane(color);
        let (mut up2, mut up1, mut line, mut down1) = (plane[0], plane[1], plane[2], plane[3]);
        let full = &plane[PAD_ABOVE + 2..PAD_ABOVE + 2 + limit];
        let (full_out, tail_out) = matched.rows_mut()[..last].split_at_mut(limit);
        for (out, &down2) in full_out.iter_mut().zip(full) {
            let starts = line & (line >> 1) & (line >> 2);
            *out |= starts
                | (starts << 1)
                | (starts << 2)
                | (line & down1 & down2)
                | (up1 & line & down1)
                | (up2 & up1 & line);
            (up2, up1, line, down1) = (up1, line, down1, down2);
        }
        if let Some(out) = tail_out.first_mut() {
            *out |= (up1 & line & down1) | (up2 & up1 & line);
            (up2, up1, line) = (up1, line, down1);
        }
        if let Some(out) = tail_out.get_mut(1) {
            *out |= up2 & up1 & line;
        }
    }

    /// True when these planes describe `board` exactly (planes beyond its colours empty).
    pub(crate) fn describes(&self, board: &Board) -> bool {
        let fresh = Self::of(board);
        (1..=self.colors.max(fresh.colors)).all(|color| {
            (0..self.height).all(|row| {
                let line = |planes: &Self| {
                    if color <= planes.colors {
                        planes.plane(color)[PAD_ABOVE + row]
                    } else {
                        0
                    }
                };
                line(self) == line(&fresh)
            })
        })
    }

    /// Makes room for colours up to `colors` (`..=16`): planes of colours not yet present are
    /// added, empty.
    pub(crate) fn reserve_colors(&mut self, colors: u8) {
        let colors = usize::from(colors);
        if colors > self.colors {
            self.words.resize(colors * self.stride, 0);
            self.colors = colors;
        }
    }

    /// Makes `self` a copy of `other`, reusing its storage (no allocation once the planes
    /// have the same size).
    pub(crate) fn copy_from(&mut self, other: &Self) {
        self.width = other.width;
        self.height = other.height;
        self.colors = other.colors;
        self.stride = other.stride;
        self.words.clone_from(&other.words);
    }

    /// Updates the planes after the tiles at `a` and `b` (on the board) traded places: colour
    /// `color_a` (`1..=colors`, the colour at `a` before) moves to `b` and `color_b` to `a`.
    /// Four word updates instead of rebuilding the two columns.
    pub(crate) fn swap_cells(&mut self, a: Position, b: Position, color_a: u8, color_b: u8) {
        let stride = self.stride;
        let word = |at: Position, color: u8| {
            (usize::from(color) - 1) * stride + PAD_ABOVE + at.row as usize
        };
        let (a_word, b_word) = (word(a, color_a), word(b, color_b));
        self.words[a_word] &= !(1 << a.col);
        self.words[b_word] &= !(1 << b.col);
        self.words[word(b, color_a)] |= 1 << b.col;
        self.words[word(a, color_b)] |= 1 << a.col;
    }

    /// Updates the planes after the cells of the columns in `columns` (bit `c` is column `c`)
    /// changed to `cells` (row-major, `width` wide) in the first `rows` rows; every other cell
    /// must be unchanged, and every colour in `cells` must have a plane (see
    /// [`ColorPlanes::reserve_colors`]). Word work in proportion to rows times colours, cell
    /// work only for the changed cells.
    pub(crate) fn update_columns(&mut self, cells: &[u8], width: usize, columns: u64, rows: usize) {
        let (height, stride) = (rows.min(self.height), self.stride);
        debug_assert!(cells.iter().all(|&cell| usize::from(cell) <= self.colors));
        for color in 0..self.colors {
            let plane = &mut self.words[color * stride + PAD_ABOVE..][..height];
            for line in plane {
                *line &= !columns;
            }
        }
        for row in 0..height {
            for col in BitIter(columns) {
                let cell = cells[row * width + col as usize];
                if cell != EMPTY {
                    self.words[(usize::from(cell) - 1) * stride + PAD_ABOVE + row] |= 1 << col;
                }
            }
        }
    }

    /// True when some line of 3+ cells has one colour.
    pub(crate) fn has_run(&self) -> bool {
        let height = self.height;
        (1..=self.colors).any(|color| {
            // Each row with the two below it (the padding rows below the board read zeros),
            // folded without a branch: a stable board, the common case, is scanned whole.
            let plane = &self.plane(color)[PAD_ABOVE..];
            let rows = plane[..height]
                .iter()
                .zip(&plane[1..=height])
                .zip(&plane[2..height + 2]);
            let runs = rows.fold(0, |runs, ((&line, &below), &below2)| {
                runs | line & (line >> 1) & (line >> 2) | line & below & below2
            });
            runs != 0
        })
    }

    /// Number of rows.
    #[inline]
    pub(crate) fn height(&self) -> usize {
        self.height
    }

    /// The highest colour present, `0..=16`.
    #[inline]
    pub(crate) fn colors(&self) -> u8 {
        self.colors as u8
    }
}

/// Rows at most this wide are turned into planes eight cells at a time.
const NARROW: usize = 16;

/// Up to eight cells as the bytes of a word, little-endian (cell `i` is byte `i`), empty past
/// the end.
#[inline]
fn load_chunk(cells: &[u8]) -> u64 {
    let mut padded = [EMPTY; 8];
    padded[..cells.len()].copy_from_slice(cells);
    u64::from_le_bytes(padded)
}

/// Bit `i` set when byte `i` of `chunk` equals `color` (`1..=16`): the eight comparisons of a
/// chunk of cells in a few word operations.
#[inline]
fn byte_equality_mask(chunk: u64, color: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let difference = chunk ^ (0x0101_0101_0101_0101 * u64::from(color));
    // 0x80 in every byte of `difference` that is zero, nothing elsewhere (no false positives).
    let zero_bytes = !(((difference & LOW7) + LOW7) | difference | LOW7);
    // Gather the eight 0x80 bits into the top byte, byte i to bit 56 + i.
    (zero_bytes >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_equality_mask_matches_each_byte() {
        let bytes = [3u8, 0, 3, 16, 1, 3, 255, 3];
        let chunk = u64::from_le_bytes(bytes);
        for color in 1..=16u8 {
            let expected = bytes
                .iter()
                .enumerate()
                .filter(|&(_, &b)| b == color)
                .fold(0u64, |m, (i, _)| m | 1 << i);
            assert_eq!(byte_equality_mask(chunk, color), expected, "colour {color}");
        }
        assert_eq!(byte_equality_mask(u64::from_le_bytes([16; 8]), 16), 0xff);
    }

    #[test]
    fn narrow_and_wide_planes_agree_with_the_cells() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (width, height) in [(1, 1), (3, 5), (8, 8), (9, 9), (16, 3), (17, 4), (64, 2)] {
            let cells: Vec<u8> = (0..width * height)
                .map(|_| rng.random_range(0..=16))
                .collect();
            let planes = ColorPlanes::new(&cells, width, height);
            for color in 1..=16u8 {
                for row in 0..height {
                    let expected = (0..width)
                        .filter(|&col| cells[row * width + col] == color)
                        .fold(0u64, |m, col| m | 1 << col);
                    let actual = if usize::from(color) <= planes.colors {
                        planes.plane(usize::from(color))[PAD_ABOVE + row]
                    } else {
                        0
                    };
                    assert_eq!(
                        actual, expected,
                        "{width}x{height} colour {color} row {row}"
                    );
                }
            }
        }
    }

    #[test]
    fn packed_count_agrees_with_the_row_by_row_count() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut packed_sizes = 0;
        for width in 1..=41 {
            for height in 1..=64 {
                if (width + 1) * height > 128 {
                    continue;
                }
                packed_sizes += 1;
                for colors in [2u8, 3, 5, 16] {
                    let cells: Vec<u8> = (0..width * height)
                        .map(|_| rng.random_range(1..=colors))
                        .collect();
                    let planes = ColorPlanes::new(&cells, width, height);
                    let by_rows: usize = (0..height)
                        .map(|row| {
                            let (right, down) = planes.swap_masks(row);
                            (right.count_ones() + down.count_ones()) as usize
                        })
                        .sum();
                    let (right, down, _) = planes.packed_swap_masks().unwrap();
                    assert_eq!(
                        (right.count_ones() + down.count_ones()) as usize,
                        by_rows,
                        "{width}x{height}, {colors} colours"
                    );
                }
            }
        }
        assert_eq!(packed_sizes, 409);
    }
}
