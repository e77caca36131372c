//! Gravity and refill on level boards (docs/rules.md section 6): tiles fall through holes to
//! the lowest free slots of their column, keeping their order; refill fills the empty non-hole
//! cells row-major.

use rand::Rng;

use super::bits::KindMasks;
use super::{LevelBoard, PieceKind};
use crate::bitboard::{BitIter, CellSet, ColorPlanes};
use crate::board::{EMPTY, Position};
use crate::gravity::{Fall, Spawn};

/// Gravity through holes: in each column the non-hole cells, top to bottom, are its slots;
/// tiles move to the lowest slots keeping their order. Returns the falls ordered by `from` in
/// row-major order.
pub(super) fn level_gravity(level: &mut LevelBoard) -> Vec<Fall> {
    let mut everywhere = CellSet::new();
    for row in 0..level.height() {
        everywhere.set_row(row, u64::MAX);
    }
    settle_cleared(level, &everywhere, &mut SettleBuffers::new())
}

/// Buffers [`settle_cleared`] and [`settle_cleared_with`] reuse between calls, and what they
/// leave for refill: the empty cells, and (`settle_cleared_with` only) their count and the
/// colours of the tiles that moved.
pub(super) struct SettleBuffers {
    /// The cells whose tile moved.
    moved: CellSet,
    /// After [`settle_cleared`]: the empty non-hole cells of the cleared columns (the cells
    /// refill fills).
    pub(super) empty: CellSet,
    /// After [`settle_cleared_with`]: the colours of the tiles that moved, bit `c` for colour
    /// `c` (bit 0 for a colour bomb).
    pub(super) moved_colors: u32,
    /// After [`settle_cleared_with`]: the number of cells in `empty`.
    pub(super) empty_count: usize,
    /// By column, the rows the moved tiles landed in (see [`falls_to_landings`]); all zero
    /// between calls.
    landed: [u64; 64],
}

impl SettleBuffers {
    /// Empty buffers.
    #[inline]
    pub(super) fn new() -> Self {
        Self {
            moved: CellSet::new(),
            empty: CellSet::new(),
            moved_colors: 0,
            empty_count: 0,
            landed: [0; 64],
        }
    }

    /// Empties the first `rows` rows of the moved and empty cells (`landed` is all zero
    /// between calls already).
    pub(super) fn clear_rows(&mut self, rows: usize) {
        self.moved.clear_rows(rows);
        self.empty.clear_rows(rows);
    }
}

/// [`level_gravity`] after the cells of `cleared` were emptied, on a board that was settled
/// before (every non-hole cell below a column's lowest cleared cell holds a tile, so only the
/// rows above it move). Returns the falls, ordered by `from` in row-major order, and leaves in
/// `buffers.empty` the empty non-hole cells of the cleared columns afterwards. Cell by cell;
/// the cascade uses [`settle_cleared_with`], which keeps its masks up to date.
pub(super) fn settle_cleared(
    level: &mut LevelBoard,
    cleared: &CellSet,
    buffers: &mut SettleBuffers,
) -> Vec<Fall> {
    let (width, height) = (level.width(), level.height());
    let SettleBuffers { moved, empty, .. } = buffers;
    let mut columns = 0;
    for row in 0..height {
        columns |= cleared.row(row);
        moved.set_row(row, 0);
        empty.set_row(row, 0);
    }
    let columns = columns & (u64::MAX >> (64 - width));
    let lowest = lowest_cleared_rows(&cleared.rows()[..height], columns);
    // By column, the rows the moved tiles landed in: tiles keep their order, so the k-th
    // moved tile from the top lands in the k-th of these rows from the top.
    let mut landed = [0u64; 64];
    let mut fallen = 0;
    let (colors, kinds, holes) = level.parts_mut();
    for col in BitIter(columns) {
        let col = col as usize;
        let lowest = usize::from(lowest[col]);
        // The next tile up lands in the lowest free slot at or above row `target - 1`: never
        // above the tile, so nothing is overwritten.
        let mut target = lowest + 1;
        for row in (0..=lowest).rev() {
            let from = row * width + col;
            let is_tile = colors[from] != EMPTY || kinds[from] == PieceKind::ColorBomb;
            if holes[from] || !is_tile {
                continue;
            }
            target -= 1;
            while holes[target * width + col] {
                target -= 1;
            }
            if target != row {
                let cells = (&mut *colors, &mut *kinds);
                move_tile(cells, width, (row, target, col), (moved, &mut landed));
                fallen += 1;
            }
        }
        // Every slot above the last one filled is now empty.
        for row in 0..target {
            if !holes[row * width + col] {
                empty.insert(row, col);
            }
        }
    }
    falls_to_landings(&moved.rows()[..height], &mut landed, fallen)
}

/// Moves the tile (colour and kind) of cell `(row, col)` of a `width`-column board down to the
/// empty cell `(target, col)`, and records the move: bit `col` of row `row` of `moved`, bit
/// `target` of `landed[col]`. Returns the tile's colour (0 for a colour bomb).
#[inline]
fn move_tile(
    (colors, kinds): (&mut [u8], &mut [PieceKind]),
    width: usize,
    (row, target, col): (usize, usize, usize),
    (moved, landed): (&mut CellSet, &mut [u64; 64]),
) -> u8 {
    let (from, to) = (row * width + col, target * width + col);
    let color = colors[from];
    colors[to] = color;
    kinds[to] = kinds[from];
    colors[from] = EMPTY;
    kinds[from] = PieceKind::Normal;
    moved.insert(row, col);
    landed[col] |= 1 << target;
    color
}

/// The falls of `fallen` moved tiles, ordered by `from` in row-major order: `moved` holds the
/// rows the tiles moved from (row masks, bit `c` for column `c`) and `landed[c]` the rows the
/// tiles of column `c` landed in; tiles keep their order, so the k-th moved tile of a column
/// from the top lands in the k-th landing row from the top. Empties `landed`.
fn falls_to_landings(moved: &[u64], landed: &mut [u64; 64], fallen: usize) -> Vec<Fall> {
    let mut falls = Vec::with_capacity(fallen);
    for (row, &line) in moved.iter().enumerate() {
        for col in BitIter(line) {
            let rows = &mut landed[col as usize];
            let to = rows.trailing_zeros();
            *rows &= *rows - 1;
            falls.push(Fall {
                from: Position::new(row as u32, col),
                to: Position::new(to, col),
            });
        }
    }
    falls
}

/// The lowest row of `cleared` (row masks, bit `c` for column `c`, rows from the top) holding
/// a cell of each column of `columns` (every one of them must have one): entry `c` for column
/// `c`, 0 for the columns outside `columns`.
fn lowest_cleared_rows(cleared: &[u64], columns: u64) -> [u8; 64] {
    let mut lowest = [0u8; 64];
    let mut pending = columns;
    for (row, &line) in cleared.iter().enumerate().rev() {
        let hit = line & pending;
        for col in BitIter(hit) {
            lowest[col as usize] = row as u8;
        }
        pending &= !hit;
        if pending == 0 {
            break;
        }
    }
    lowest
}

/// [`settle_cleared`] on the cascade's masks: `masks` and `planes` are the board's kind masks
/// and colour planes (the cleared cells already taken out), kept up to date, `holes` its holes
/// as row masks, and `rows` one past the lowest row holding a cleared cell (nothing below it
/// moves). Each cleared column is read from the masks as one column word (tiles, slots), so
/// finding where each tile lands is a bit scan, not a walk over the cells. Leaves in `buffers`
/// the empty cells, their count and the moved tiles' colours (`landed` must be all zero on
/// entry, as every call leaves it).
pub(super) fn settle_cleared_with(
    level: &mut LevelBoard,
    (cleared, rows): (&CellSet, usize),
    holes: &CellSet,
    buffers: &mut SettleBuffers,
    (masks, planes): (&mut KindMasks, &mut ColorPlanes),
) -> Vec<Fall> {
    let (width, height) = (level.width(), level.height());
    let SettleBuffers {
        moved,
        empty,
        moved_colors,
        empty_count,
        landed,
    } = buffers;
    debug_assert!(landed.iter().all(|&rows| rows == 0));
    moved.clear_rows(height);
    empty.clear_rows(height);
    *moved_colors = 0;
    *empty_count = 0;
    let cleared = &cleared.rows()[..rows];
    let holes = &holes.rows()[..rows];
    let columns = cleared.iter().fold(0, |columns, &line| columns | line);
    let columns = columns & (u64::MAX >> (64 - width));
    let lowest = lowest_cleared_rows(cleared, columns);
    let mut fallen = 0;
    let (colors, kinds, _) = level.parts_mut();
    for col in BitIter(columns) {
        let col = col as usize;
        let lowest = usize::from(lowest[col]);
        // The column down to its lowest cleared cell, bit `r` for row `r`: its tiles, and its
        // slots (non-hole cells).
        let (mut tiles, mut slots) = (0u64, 0u64);
        for (row, (&tile_line, &hole_line)) in masks.tiles.rows()[..=lowest]
            .iter()
            .zip(&holes[..=lowest])
            .enumerate()
        {
            tiles |= (tile_line >> col & 1) << row;
            slots |= (!hole_line >> col & 1) << row;
        }
        // Tiles keep their order: the k-th tile from the bottom lands in the k-th slot from
        // the bottom. Those below the lowest empty slot stay where they are.
        let mut free = slots;
        let gap = slots & !tiles;
        if gap != 0 {
            let below_gap = !(u64::MAX >> gap.leading_zeros());
            free &= !below_gap;
            tiles &= !below_gap;
        }
        while tiles != 0 {
            let row = 63 - tiles.leading_zeros() as usize;
            let target = 63 - free.leading_zeros() as usize;
            tiles &= !(1 << row);
            free &= !(1 << target);
            if target == row {
                continue;
            }
            let cells = (&mut *colors, &mut *kinds);
            let color = move_tile(cells, width, (row, target, col), (moved, landed));
            *moved_colors |= 1 << color;
            fallen += 1;
            masks.fall_special(row, target, col);
            if color != EMPTY {
                planes.move_cell(row, target, col, color);
            }
        }
        // Every slot above the last one filled is now empty.
        for row in BitIter(free) {
            let row = row as usize;
            empty.insert(row, col);
            *empty_count += 1;
        }
    }
    // In the cleared columns every slot is now a tile unless it is empty.
    for (row, &hole_line) in holes.iter().enumerate() {
        let settled = !hole_line & !empty.row(row) & columns;
        masks.set_tiles_row(row, masks.tiles.row(row) & !columns | settled);
    }
    falls_to_landings(&moved.rows()[..rows], landed, fallen)
}

/// Fills every empty non-hole cell, in row-major order, with a NORMAL tile of a colour drawn
/// uniformly from `1..=colors`.
pub(super) fn level_refill<R: Rng + ?Sized>(
    level: &mut LevelBoard,
    colors: u8,
    rng: &mut R,
) -> Vec<Spawn> {
    let width = level.width();
    let mut empty = CellSet::new();
    for index in (0..level.len()).filter(|&i| !level.is_hole(i) && !level.is_tile(i)) {
        let row = index / width;
        empty.union_row(row, 1 << (index % width));
    }
    let count = empty.len_within(level.height());
    refill_cells(level, (&empty, count), colors, rng, None)
}

/// Fills the `count` cells of `empty` (empty non-hole cells of `level`), in row-major order,
/// with a NORMAL tile of a colour drawn uniformly from `1..=colors`, and puts each on `planes`
/// when given (the board's colour planes).
pub(super) fn refill_cells<R: Rng + ?Sized>(
    level: &mut LevelBoard,
    (empty, count): (&CellSet, usize),
    colors: u8,
    rng: &mut R,
    mut planes: Option<&mut ColorPlanes>,
) -> Vec<Spawn> {
    let (width, height) = (level.width(), level.height());
    debug_assert_eq!(count, empty.len_within(height));
    let mut spawns = Vec::with_capacity(count);
    let (cells, kinds, _) = level.parts_mut();
    for (row, &line) in empty.rows()[..height].iter().enumerate() {
        for col in BitIter(line) {
            let index = row * width + col as usize;
            let color = rng.random_range(1..=colors);
            cells[index] = color;
            kinds[index] = PieceKind::Normal;
            if let Some(planes) = planes.as_deref_mut() {
                planes.add_cell(row, col, color);
            }
            let position = Position::new(row as u32, col);
            spawns.push(Spawn { position, color });
        }
    }
    spawns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(text: &str) -> LevelBoard {
        LevelBoard::parse(text).unwrap()
    }

    #[test]
    fn tiles_fall_through_one_and_two_holes() {
        // Column 0: R over a hole over an empty cell: R falls through the hole to row 2.
        // Column 1: G, two holes, an empty cell: G falls through both holes to row 3.
        let mut board = level("RG/##/.#/B.");
        let falls = level_gravity(&mut board);
        assert_eq!(board.to_string(), "../##/R#/BG");
        assert_eq!(
            falls,
            vec![
                Fall {
                    from: Position::new(0, 0),
                    to: Position::new(2, 0)
                },
                Fall {
                    from: Position::new(0, 1),
                    to: Position::new(3, 1)
                },
            ]
        );
        // Kinds move with their tiles; refill fills the empty non-hole cells row-major.
        let mut board = level("R+G./#.#/..B");
        level_gravity(&mut board);
        assert_eq!(board.to_string(), ".../#.#/R+GB");
        let mut rng = crate::rng_from_seed(7);
        let spawns = level_refill(&mut board, 3, &mut rng);
        let positions: Vec<Position> = spawns.iter().map(|s| s.position).collect();
        assert_eq!(
            positions,
            vec![
                Position::new(0, 0),
                Position::new(0, 1),
                Position::new(0, 2),
                Position::new(1, 1)
            ]
        );
        assert!(!board.has_empty_cell());
    }
}
