//! Gravity with fixed cells (docs/rules.md section 8): falls within a column's segments, refill
//! of the top segments, one diagonal slide per round, repeated until nothing changes; then the
//! ingredients standing on exits leave and the board settles again. On row masks (bit `c` of
//! row `r` is cell `(r, c)`): holes, fixed cells and pieces, with each column's segments read
//! as one column word.

use rand::Rng;

use crate::bitboard::{BitIter, CellSet, ColorPlanes};
use crate::board::{EMPTY, Position};
use crate::gravity::{Fall, Spawn};
use crate::swap::level::KindMasks;
use crate::swap::level_layers::ObstacleBoard;
use crate::swap::pieces::PieceKind;

/// What settling a board did, in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Settled {
    /// When false, `falls` and `spawns` stay empty (the moves are still made and drawn).
    pub(crate) record: bool,
    /// Every move: each round's straight falls (by source cell, row-major), then its slide.
    pub(crate) falls: Vec<Fall>,
    /// The spawns, in draw order.
    pub(crate) spawns: Vec<Spawn>,
    /// The ingredients collected at exits, in time order (row-major within one pass).
    pub(crate) collected: Vec<Position>,
    /// True when anything fell, slid or spawned.
    pub(crate) moved: bool,
    /// One past the deepest row a piece moved to or spawned in (0 when none).
    pub(crate) changed_rows: usize,
    /// The colours of the pieces that moved or spawned (bit `c` for colour `c`).
    pub(crate) changed_colors: u32,
}

impl Settled {
    /// A record of settling, with its moves when `record`.
    pub(crate) fn new(record: bool) -> Self {
        Self {
            record,
            ..Self::default()
        }
    }

    /// Notes that a piece of `color` arrived in row `row`.
    fn note(&mut self, row: usize, color: u8) {
        self.changed_rows = self.changed_rows.max(row + 1);
        self.changed_colors |= 1 << color;
    }

    /// True when nothing fell, spawned or left.
    pub(crate) fn is_empty(&self) -> bool {
        !self.moved && self.collected.is_empty()
    }
}

/// An upper bound on the rounds of one settling, far above what the rules allow (each slide
/// moves an empty slot one row up); reaching it would be an engine bug, and stops the loop
/// rather than hanging.
const MAX_ROUNDS: usize = 64 * 64 * 64;

/// The board's cells as row masks, for one settling (fixed cells and holes do not change
/// while a board settles).
#[derive(Clone, Debug)]
pub(super) struct Masks {
    width: usize,
    height: usize,
    /// Bits `0..width`.
    full: u64,
    holes: [u64; 64],
    fixed: [u64; 64],
    /// Cells holding a piece that moves: a tile that is not locked, or an ingredient.
    movable: [u64; 64],
    /// The cells with a fixed cell above them in their column, as row masks.
    below_fixed: [u64; 64],
    /// Cells holding an ingredient.
    ingredients: [u64; 64],
    /// Exit cells.
    exits: [u64; 64],
    /// The columns where a piece may fall: those changed since gravity last settled them.
    dirty: u64,
}

/// Equal when they describe the same cells (which columns are still to settle aside).
impl PartialEq for Masks {
    fn eq(&self, other: &Self) -> bool {
        let rows = |m: &Self| {
            let h = m.height;
            [
                m.holes[..h].to_vec(),
                m.fixed[..h].to_vec(),
                m.movable[..h].to_vec(),
                m.below_fixed[..h].to_vec(),
                m.ingredients[..h].to_vec(),
                m.exits[..h].to_vec(),
            ]
        };
        (self.width, self.height) == (other.width, other.height) && rows(self) == rows(other)
    }
}

impl Masks {
    /// The masks of `board`.
    pub(super) fn of(board: &ObstacleBoard) -> Self {
        let mut masks = Self {
            width: 0,
            height: 0,
            full: 0,
            holes: [0; 64],
            fixed: [0; 64],
            movable: [0; 64],
            below_fixed: [0; 64],
            ingredients: [0; 64],
            exits: [0; 64],
            dirty: 0,
        };
        masks.refresh(board);
        masks
    }

    /// Makes these masks a copy of `other`, copying only the rows either uses (the rows past
    /// a board's height are zero).
    pub(super) fn copy_from(&mut self, other: &Self) {
        let rows = self.height.max(other.height);
        for (mine, theirs) in [
            (&mut self.holes, &other.holes),
            (&mut self.fixed, &other.fixed),
            (&mut self.movable, &other.movable),
            (&mut self.below_fixed, &other.below_fixed),
            (&mut self.ingredients, &other.ingredients),
            (&mut self.exits, &other.exits),
        ] {
            mine[..rows].copy_from_slice(&theirs[..rows]);
        }
        self.width = other.width;
        self.height = other.height;
        self.full = other.full;
        self.dirty = other.dirty;
    }

    /// Rewrites the masks for `board`, of any size: the same masks as [`Masks::of`] gives.
    pub(super) fn refresh(&mut self, board: &ObstacleBoard) {
        let level = board.level();
        let (width, height) = (level.width(), level.height());
        // Rows past the new height are kept zero, as on fresh masks.
        let stale = height..self.height.max(height);
        for rows in [
            &mut self.holes,
            &mut self.fixed,
            &mut self.movable,
            &mut self.below_fixed,
            &mut self.ingredients,
            &mut self.exits,
        ] {
            rows[stale.clone()].fill(0);
        }
        self.width = width;
        self.height = height;
        self.full = u64::MAX >> (64 - width);
        self.dirty = self.full;
        let cells = level.board().cells();
        let rows = level
            .holes()
            .chunks_exact(width)
            .zip(board.blockers().chunks_exact(width))
            .zip(board.locks().chunks_exact(width))
            .zip(cells.chunks_exact(width))
            .zip(level.kinds().chunks_exact(width))
            .zip(board.exits().chunks_exact(width));
        let mut above = 0u64;
        for (row, (((((holes, blockers), locks), colors), kinds), exits)) in rows.enumerate() {
            let (mut hole_line, mut fixed_line, mut piece_line) = (0u64, 0u64, 0u64);
            let (mut ingredient_line, mut exit_line) = (0u64, 0u64);
            for col in 0..width {
                let bit = 1u64 << col;
                let ingredient = kinds[col] == PieceKind::Ingredient;
                let piece = colors[col] != EMPTY || kinds[col] != PieceKind::Normal;
                hole_line |= bit * u64::from(holes[col]);
                fixed_line |= bit * u64::from(blockers[col] > 0 || locks[col] != 0);
                piece_line |= bit * u64::from(piece);
                ingredient_line |= bit * u64::from(ingredient);
                exit_line |= bit * u64::from(exits[col]);
            }
            self.holes[row] = hole_line;
            self.fixed[row] = fixed_line;
            self.movable[row] = piece_line & !fixed_line & !hole_line;
            self.ingredients[row] = ingredient_line;
            self.exits[row] = exit_line;
            self.below_fixed[row] = above;
            above |= fixed_line;
        }
    }

    /// Brings the masks up to date after a step's clearing: the cells of `cleared` no longer
    /// hold a piece and those of `placed` (created specials) do; the tiles of `unlocked` lost
    /// their lock (they move from now on) and the blockers of `destroyed` are gone (empty
    /// slots).
    pub(super) fn after_clearing(
        &mut self,
        cleared: &CellSet,
        placed: impl Iterator<Item = Position>,
        (unlocked, destroyed): (&CellSet, &CellSet),
    ) {
        let mut fixed_changed = false;
        for row in 0..self.height {
            let (unlocked, destroyed) = (unlocked.row(row), destroyed.row(row));
            self.dirty |= cleared.row(row) | unlocked | destroyed;
            self.movable[row] = (self.movable[row] & !cleared.row(row)) | unlocked;
            if unlocked | destroyed != 0 {
                self.fixed[row] &= !(unlocked | destroyed);
                fixed_changed = true;
            }
        }
        for position in placed {
            self.movable[position.row as usize] |= 1 << position.col;
        }
        if fixed_changed {
            let mut above = 0u64;
            for row in 0..self.height {
                self.below_fixed[row] = above;
                above |= self.fixed[row];
            }
        }
    }

    /// Records that the pieces of cells `a` and `b` (row-major indices, both movable) traded
    /// places.
    pub(super) fn exchange(&mut self, a: usize, b: usize) {
        let width = self.width;
        let (a, b) = ((a / width, a % width), (b / width, b % width));
        let ingredient_a = self.ingredients[a.0] >> a.1 & 1;
        let ingredient_b = self.ingredients[b.0] >> b.1 & 1;
        self.ingredients[a.0] = self.ingredients[a.0] & !(1 << a.1) | ingredient_b << a.1;
        self.ingredients[b.0] = self.ingredients[b.0] & !(1 << b.1) | ingredient_a << b.1;
    }

    /// The fixed cells, as row masks (`height` of them).
    pub(super) fn fixed_rows(&self) -> &[u64] {
        &self.fixed[..self.height]
    }

    /// The ingredients, as row masks (`height` of them).
    pub(super) fn ingredient_rows(&self) -> &[u64] {
        &self.ingredients[..self.height]
    }

    /// True when no slot is empty (holes and fixed cells aside) and no ingredient stands on an
    /// exit: then settling has nothing to fill, move or collect.
    pub(super) fn is_full_and_still(&self) -> bool {
        (0..self.height)
            .all(|row| self.empty(row) == 0 && self.ingredients[row] & self.exits[row] == 0)
    }

    /// About how many falls and spawns settling makes: the movable pieces with an empty slot
    /// below them in their column, and the empty slots (for the records' capacities).
    fn expected_moves(&self) -> (usize, usize) {
        let (mut falls, mut spawns, mut empty_below) = (0, 0, 0u64);
        for row in (0..self.height).rev() {
            falls += (self.movable[row] & empty_below).count_ones() as usize;
            let empty = self.empty(row);
            spawns += empty.count_ones() as usize;
            empty_below |= empty;
        }
        (falls, spawns)
    }

    /// The empty slots of row `row`.
    fn empty(&self, row: usize) -> u64 {
        self.full & !self.holes[row] & !self.fixed[row] & !self.movable[row]
    }

    /// Records the move of the piece of `(from_row, from_col)` to the empty `(to_row, to_col)`.
    fn shift(&mut self, from_row: usize, to_row: usize, from_col: usize, to_col: usize) {
        let (from, to) = (1u64 << from_col, 1u64 << to_col);
        self.movable[from_row] &= !from;
        self.movable[to_row] |= to;
        if self.ingredients[from_row] & from != 0 {
            self.ingredients[from_row] &= !from;
            self.ingredients[to_row] |= to;
        }
    }

    /// Column `col` of `rows` as a word, bit `r` for row `r`.
    fn column(&self, rows: &[u64; 64], col: usize) -> u64 {
        (0..self.height).fold(0, |word, row| word | (rows[row] >> col & 1) << row)
    }
}

/// Settles `board`: rounds of falls, refill (from `1..=colors` with `refill`, none without)
/// and one slide, until nothing changes; then collects the ingredients on exits and settles
/// again, until none stands on an exit. Appends what happened to `settled`.
pub(crate) fn settle<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    refill: Option<(u8, &mut R)>,
    settled: &mut Settled,
) {
    let mut masks = Masks::of(board);
    settle_with(board, (&mut masks, None), refill, settled);
}

/// The colour planes and kind masks of a board, kept up to date as its pieces move.
pub(super) type Bits<'a> = Option<(&'a mut ColorPlanes, &'a mut KindMasks)>;

/// [`settle`] with the board's `masks` already made (they are kept up to date), and its colour
/// planes and kind masks when given (kept up to date too).
pub(super) fn settle_with<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    (masks, mut bits): (&mut Masks, Bits<'_>),
    mut refill: Option<(u8, &mut R)>,
    settled: &mut Settled,
) {
    if settled.record {
        let (falls, spawns) = masks.expected_moves();
        settled.falls.reserve(falls);
        if refill.is_some() {
            settled.spawns.reserve(spawns);
        }
    }
    loop {
        settle_rounds(board, masks, &mut bits, &mut refill, settled);
        let width = masks.width;
        let mut any = false;
        for row in 0..masks.height {
            let leaving = masks.ingredients[row] & masks.exits[row];
            for col in BitIter(leaving) {
                let (_, kinds, _, _, _) = board.parts_mut();
                kinds[row * width + col as usize] = PieceKind::Normal;
                settled.collected.push(Position::new(row as u32, col));
                any = true;
            }
            masks.movable[row] &= !leaving;
            masks.ingredients[row] &= !leaving;
            masks.dirty |= leaving;
        }
        if !any {
            return;
        }
    }
}

/// The rounds of [`settle`], without the collection.
fn settle_rounds<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    masks: &mut Masks,
    bits: &mut Bits<'_>,
    refill: &mut Option<(u8, &mut R)>,
    settled: &mut Settled,
) {
    for _ in 0..MAX_ROUNDS {
        let mut changed = fall(board, masks, bits, settled);
        if let Some((colors, rng)) = refill {
            changed |= refill_top_segments(board, masks, bits, (*colors, &mut **rng), settled);
        }
        changed |= slide(board, masks, bits, settled);
        if !changed {
            return;
        }
        settled.moved = true;
    }
    debug_assert!(false, "settling did not end within {MAX_ROUNDS} rounds");
}

/// Moves the piece of `from` to the empty cell `to` (row-major indices of a `width`-column
/// board), on the colour planes and kind masks too when given.
fn move_piece(
    board: &mut ObstacleBoard,
    bits: &mut Bits<'_>,
    width: usize,
    from: usize,
    to: usize,
) -> u8 {
    let (colors, kinds, _, _, _) = board.parts_mut();
    let color = colors[from];
    colors[to] = color;
    kinds[to] = kinds[from];
    colors[from] = EMPTY;
    kinds[from] = PieceKind::Normal;
    if let Some((planes, kind_masks)) = bits {
        let (from, to) = (
            (from / width, (from % width) as u32),
            (to / width, (to % width) as u32),
        );
        if color != EMPTY {
            planes.remove_cell(from.0, from.1, color);
            planes.add_cell(to.0, to.1, color);
        }
        kind_masks.move_tile(from, to);
    }
    color
}

/// Step 1 of a round: in each segment of each column (its runs of non-fixed cells between fixed
/// cells; holes are passed through), the pieces move to the lowest empty slots keeping their
/// order. Records the falls, by source cell row-major; true when a piece moved.
fn fall(
    board: &mut ObstacleBoard,
    masks: &mut Masks,
    bits: &mut Bits<'_>,
    settled: &mut Settled,
) -> bool {
    let (width, height) = (masks.width, masks.height);
    // The changed columns with an empty slot: only they can move.
    let empty = (0..height).fold(0, |columns, row| columns | masks.empty(row));
    let columns = empty & masks.dirty;
    masks.dirty = 0;
    let first = settled.falls.len();
    let mut moved = false;
    for col in BitIter(columns) {
        let col = col as usize;
        let holes = masks.column(&masks.holes, col);
        let fixed = masks.column(&masks.fixed, col);
        // Read once: each segment moves only its own pieces.
        let pieces = masks.column(&masks.movable, col);
        let rows = u64::MAX >> (64 - height);
        // Segments from the bottom: bits between fixed cells.
        let mut rest = rows & !fixed;
        while rest != 0 {
            let bottom = 63 - rest.leading_zeros();
            // The segment: bits from `bottom` up to the next fixed cell above (or row 0).
            let above_fixed = fixed & ((1u64 << bottom) - 1);
            let top = if above_fixed == 0 {
                0
            } else {
                64 - above_fixed.leading_zeros()
            };
            let segment = ((1u64 << (bottom + 1)) - 1) & !((1u64 << top) - 1);
            rest &= !segment;
            let slots = segment & !holes;
            let mut free = slots;
            let mut falling = pieces & segment;
            // Pieces below the lowest empty slot stay where they are.
            let gap = slots & !falling;
            if gap == 0 {
                continue;
            }
            let below_gap = !(u64::MAX >> gap.leading_zeros());
            free &= !below_gap;
            falling &= !below_gap;
            while falling != 0 {
                let row = 63 - falling.leading_zeros() as usize;
                let target = 63 - free.leading_zeros() as usize;
                falling &= !(1 << row);
                free &= !(1 << target);
                if target == row {
                    continue;
                }
                let color = move_piece(board, bits, width, row * width + col, target * width + col);
                settled.note(target, color);
                masks.shift(row, target, col, col);
                moved = true;
                if settled.record {
                    settled.falls.push(Fall {
                        from: Position::new(row as u32, col as u32),
                        to: Position::new(target as u32, col as u32),
                    });
                }
            }
        }
    }
    settled.falls[first..].sort_unstable_by_key(|fall| fall.from);
    moved
}

/// Step 2 of a round: fills the empty slots of each column's top segment (no fixed cell above
/// them), row-major across the board, one draw from `1..=colors` each. True when any spawned.
fn refill_top_segments<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    masks: &mut Masks,
    bits: &mut Bits<'_>,
    (colors, rng): (u8, &mut R),
    settled: &mut Settled,
) -> bool {
    let width = masks.width;
    let mut spawned = false;
    for row in 0..masks.height {
        let empty = masks.empty(row) & !masks.below_fixed[row];
        for col in BitIter(empty) {
            let index = row * width + col as usize;
            let color = rng.random_range(1..=colors);
            let (cells, kinds, _, _, _) = board.parts_mut();
            cells[index] = color;
            kinds[index] = PieceKind::Normal;
            masks.movable[row] |= 1 << col;
            settled.note(row, color);
            if let Some((planes, kind_masks)) = bits {
                planes.add_cell(row, col, color);
                kind_masks.place(row, col, PieceKind::Normal);
            }
            spawned = true;
            if settled.record {
                settled.spawns.push(Spawn {
                    position: Position::new(row as u32, col),
                    color,
                });
            }
        }
    }
    spawned
}

/// Step 3 of a round: the first empty slot, scanning rows bottom to top and left to right, that
/// has a fixed cell above it in its column and a movable piece at its upper-left neighbour,
/// else at its upper-right one, takes that piece. True when a piece slid.
fn slide(
    board: &mut ObstacleBoard,
    masks: &mut Masks,
    bits: &mut Bits<'_>,
    settled: &mut Settled,
) -> bool {
    let width = masks.width;
    for row in (1..masks.height).rev() {
        let empty = masks.empty(row);
        if empty == 0 {
            continue;
        }
        let above = masks.movable[row - 1];
        for col in BitIter(empty & masks.below_fixed[row]) {
            let left = col.checked_sub(1).filter(|&c| above >> c & 1 == 1);
            let right = Some(col + 1).filter(|&c| (c as usize) < width && above >> c & 1 == 1);
            let Some(source) = left.or(right) else {
                continue;
            };
            let (from, to) = (
                (row - 1) * width + source as usize,
                row * width + col as usize,
            );
            let color = move_piece(board, bits, width, from, to);
            settled.note(row, color);
            masks.dirty |= 1 << source | 1 << col;
            masks.shift(row - 1, row, source as usize, col as usize);
            if settled.record {
                settled.falls.push(Fall {
                    from: Position::new(row as u32 - 1, source),
                    to: Position::new(row as u32, col),
                });
            }
            return true;
        }
    }
    false
}

/// True when settling `board` under the refill mode (`random`: RANDOM refill) would change
/// nothing: no piece can fall or slide, no top-segment slot is empty under RANDOM, and no
/// ingredient stands on an exit.
pub(crate) fn settles_unchanged(board: &ObstacleBoard, random: bool) -> bool {
    let mut copy = board.clone();
    let mut settled = Settled::new(false);
    // Any colour will do: only whether something spawns matters.
    let mut rng = crate::rng_from_seed(0);
    let refill = random.then_some((1u8, &mut rng));
    settle(&mut copy, refill, &mut settled);
    settled.is_empty()
}
