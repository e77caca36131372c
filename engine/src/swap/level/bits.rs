//! Bit masks of a level board (docs/rules.md section 6), one `u64` per row as in
//! [`crate::bitboard`]: which cells hold a tile, a special, a colour bomb. With the
//! colour planes of the board's colours (holes, empty cells and bombs carry no colour bit, so
//! every line breaks at them), they give the valid swaps of a whole row in a few word
//! operations.

use super::{LevelBoard, PieceKind};
use crate::bitboard::{CellSet, ColorPlanes, pack_sparse_rows};

/// The tile, special and bomb cells of a level board, as row masks (bit `c` of row `r` is cell
/// `(r, c)`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct KindMasks {
    /// Cells holding a tile: a colour, or a colour bomb.
    pub(super) tiles: CellSet,
    /// Cells holding a special (any kind but NORMAL).
    pub(super) specials: CellSet,
    /// Cells holding a colour bomb.
    pub(super) bombs: CellSet,
}

impl KindMasks {
    /// Copies the first `rows` rows of `other`'s masks (the same masks as `other` when both
    /// are empty from row `rows` on).
    pub(in crate::swap) fn copy_rows_from(&mut self, other: &Self, rows: usize) {
        self.tiles.copy_rows_from(&other.tiles, rows);
        self.specials.copy_rows_from(&other.specials, rows);
        self.bombs.copy_rows_from(&other.bombs, rows);
    }

    /// The masks of `level`, whose colour planes are `planes`.
    pub(in crate::swap) fn of(level: &LevelBoard, planes: &ColorPlanes) -> Self {
        let mut masks = Self {
            tiles: CellSet::new(),
            specials: CellSet::new(),
            bombs: CellSet::new(),
        };
        masks.refresh(level, planes, 0);
        masks
    }

    /// Makes these the masks of `level` (of any size), in place: the same masks as
    /// [`KindMasks::of`] gives, when no row from `stale_rows` on holds a bit (masks of a board
    /// at most `stale_rows` high).
    pub(in crate::swap) fn refresh(
        &mut self,
        level: &LevelBoard,
        planes: &ColorPlanes,
        stale_rows: usize,
    ) {
        let (width, height) = (level.width(), level.height());
        let masks = self;
        for (row, line) in level.kinds().chunks_exact(width).enumerate() {
            let (mut specials, mut bombs) = (0u64, 0u64);
            // Specials are few: one test per cell, work only for the specials.
            for (col, &kind) in line.iter().enumerate() {
                if kind.is_special() {
                    specials |= 1 << col;
                    if kind == PieceKind::ColorBomb {
                        bombs |= 1 << col;
                    }
                }
            }
            masks.specials.set_row(row, specials);
            masks.bombs.set_row(row, bombs);
        }
        for row in 0..height {
            masks
                .tiles
                .set_row(row, planes.occupied_row(row) | masks.bombs.row(row));
        }
        for set in [&mut masks.tiles, &mut masks.specials, &mut masks.bombs] {
            set.rows_mut()[height..stale_rows.max(height)].fill(0);
        }
    }

    /// Exchanges the tiles of cells `(a_row, a_col)` and `(b_row, b_col)`, both holding one.
    pub(in crate::swap) fn exchange(
        &mut self,
        (a_row, a_col): (usize, u32),
        (b_row, b_col): (usize, u32),
    ) {
        for set in [&mut self.specials, &mut self.bombs] {
            let a = set.row(a_row) >> a_col & 1;
            let b = set.row(b_row) >> b_col & 1;
            set.set_row(a_row, set.row(a_row) & !(1 << a_col) | b << a_col);
            set.set_row(b_row, set.row(b_row) & !(1 << b_col) | a << b_col);
        }
    }

    /// Sets the bits of cell `(row, col)` for what it holds: a tile (`tile`) of `kind`, or not.
    pub(in crate::swap) fn set_cell(
        &mut self,
        (row, col): (usize, u32),
        tile: bool,
        kind: PieceKind,
    ) {
        let bit = 1u64 << col;
        for (set, on) in [
            (&mut self.tiles, tile),
            (&mut self.specials, kind.is_special()),
            (&mut self.bombs, kind == PieceKind::ColorBomb),
        ] {
            set.set_row(row, set.row(row) & !bit | if on { bit } else { 0 });
        }
    }

    /// Empties the cells of row `row` in `cells` (a row mask).
    #[inline]
    pub(super) fn remove_row(&mut self, row: usize, cells: u64) {
        for set in [&mut self.tiles, &mut self.specials, &mut self.bombs] {
            set.remove_from_row(row, cells);
        }
    }

    /// Puts a tile of `kind` on the empty cell `(row, col)`.
    pub(in crate::swap) fn place(&mut self, row: usize, col: u32, kind: PieceKind) {
        let bit = 1u64 << col;
        self.tiles.union_row(row, bit);
        if kind.is_special() {
            self.specials.union_row(row, bit);
        }
        if kind == PieceKind::ColorBomb {
            self.bombs.union_row(row, bit);
        }
    }

    /// Moves the special, if any, of cell `(from, col)` down to the empty cell `(to, col)`
    /// (the tile mask is left to the caller).
    #[inline]
    pub(super) fn fall_special(&mut self, from: usize, to: usize, col: usize) {
        let bit = 1u64 << col;
        if self.specials.row(from) & bit != 0 {
            self.specials.remove_from_row(from, bit);
            self.specials.union_row(to, bit);
            if self.bombs.row(from) & bit != 0 {
                self.bombs.remove_from_row(from, bit);
                self.bombs.union_row(to, bit);
            }
        }
    }

    /// Moves the tile of cell `from` (a `(row, col)` pair) to the empty cell `to`, in any
    /// direction.
    #[inline]
    pub(in crate::swap) fn move_tile(&mut self, from: (usize, u32), to: (usize, u32)) {
        let (from_bit, to_bit) = (1u64 << from.1, 1u64 << to.1);
        for set in [&mut self.tiles, &mut self.specials, &mut self.bombs] {
            if set.row(from.0) & from_bit != 0 {
                set.remove_from_row(from.0, from_bit);
                set.union_row(to.0, to_bit);
            }
        }
    }

    /// Sets row `row` of the tile mask.
    #[inline]
    pub(super) fn set_tiles_row(&mut self, row: usize, mask: u64) {
        self.tiles.set_row(row, mask);
    }

    /// Puts NORMAL tiles on the empty cells of `cells` (`height` rows).
    pub(super) fn fill(&mut self, cells: &CellSet, height: usize) {
        for row in 0..height {
            self.tiles.union_row(row, cells.row(row));
        }
    }
}

/// The valid swaps of row `row` of a stable level board (`height` rows) whose colours are
/// `planes` and kinds `masks`, as two masks: bit `c` of the first is the swap
/// `(row, c)-(row, c + 1)`, bit `c` of the second `(row, c)-(row + 1, c)`.
///
/// A swap of two tiles is valid when it is a combination (either tile a bomb, or both
/// specials) or when it makes a run: the plain patterns of [`ColorPlanes::swap_masks`] on the
/// colours, where holes and bombs carry no colour and so break every line. A swap touching a
/// hole or an empty cell is never valid.
///
/// `ingredients` holds the board's ingredients as row masks (empty when it has none; docs/rules.md
/// section 8): an ingredient has no colour and is no tile, and its swap with a tile is valid
/// when that tile makes a run where it lands, the same patterns on the same planes.
#[inline]
pub(in crate::swap) fn level_swap_masks(
    planes: &ColorPlanes,
    masks: &KindMasks,
    (row, height): (usize, usize),
    ingredients: &[u64],
) -> (u64, u64) {
    let (matching_right, matching_down) = planes.swap_masks(row);
    let below = |set: &CellSet| {
        if row + 1 < height {
            set.row(row + 1)
        } else {
            0
        }
    };
    let (tiles, tiles_below) = (masks.tiles.row(row), below(&masks.tiles));
    let (specials, specials_below) = (masks.specials.row(row), below(&masks.specials));
    let (bombs, bombs_below) = (masks.bombs.row(row), below(&masks.bombs));
    let combination_right = bombs | (bombs >> 1) | (specials & (specials >> 1));
    let combination_down = bombs | bombs_below | (specials & specials_below);
    let right = (matching_right | combination_right) & tiles & (tiles >> 1);
    let down = (matching_down | combination_down) & tiles & tiles_below;
    let ingredient = |row: usize| ingredients.get(row).copied().unwrap_or(0);
    let (line, line_below) = (ingredient(row), ingredient(row + 1));
    if line | line_below == 0 {
        return (right, down);
    }
    let (movers, movers_below) = (tiles | line, tiles_below | line_below);
    let ingredient_right = matching_right & movers & (movers >> 1) & (line | line >> 1);
    let ingredient_down = matching_down & movers & movers_below & (line | line_below);
    (right | ingredient_right, down | ingredient_down)
}

/// The number of valid swaps of a stable level board (colours `planes`, kinds `masks`) when
/// it fits one packed word (see [`ColorPlanes::packed_swap_masks`]): the masks of
/// [`level_swap_masks`] for the whole board at once. `None` when it does not fit.
pub(super) fn packed_valid_swap_count(
    planes: &ColorPlanes,
    masks: &KindMasks,
    (width, height): (usize, usize),
) -> Option<usize> {
    let (right, down) = packed_level_swap_masks(planes, masks, (width, height), &[])?;
    Some((right.count_ones() + down.count_ones()) as usize)
}

/// The masks of [`level_swap_masks`] for the whole board at once, packed as
/// [`ColorPlanes::packed_swap_masks`] packs them (row `r`, column `c` at bit
/// `r * (width + 1) + c`); `None` when the board does not fit that packing. `ingredients` as
/// for [`level_swap_masks`].
pub(in crate::swap) fn packed_level_swap_masks(
    planes: &ColorPlanes,
    masks: &KindMasks,
    (width, height): (usize, usize),
    ingredients: &[u64],
) -> Option<(u128, u128)> {
    let (matching_right, matching_down, colored) = planes.packed_swap_masks()?;
    let stride = width + 1;
    // Specials and bombs are few; the tiles are the coloured cells and the bombs.
    let pack = |set: &CellSet| pack_sparse_rows(&set.rows()[..height], stride);
    let (specials, bombs) = (pack(&masks.specials), pack(&masks.bombs));
    let tiles = colored | bombs;
    let combination_right = bombs | (bombs >> 1) | (specials & (specials >> 1));
    let combination_down = bombs | (bombs >> stride) | (specials & (specials >> stride));
    let right = (matching_right | combination_right) & tiles & (tiles >> 1);
    let down = (matching_down | combination_down) & tiles & (tiles >> stride);
    let ingredients = pack_sparse_rows(ingredients, stride);
    if ingredients == 0 {
        return Some((right, down));
    }
    let movers = tiles | ingredients;
    let ingredient_right =
        matching_right & movers & (movers >> 1) & (ingredients | ingredients >> 1);
    let ingredient_down =
        matching_down & movers & (movers >> stride) & (ingredients | ingredients >> stride);
    Some((right | ingredient_right, down | ingredient_down))
}
