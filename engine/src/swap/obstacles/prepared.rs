//! [`Prepared`]: the bitboards of a board with level layers (colour planes, kind masks,
//! gravity masks, the locked tiles and the step buffers) that a cascade keeps up to date, and
//! the spares a thread keeps to reuse their storage.

use std::cell::RefCell;

use super::gravity::Masks;
use super::judge::{count_obstacle_swaps_with, obstacle_valid_swaps_with};
use crate::bitboard::{CellSet, ColorPlanes};
use crate::board::EMPTY;
use crate::moves::Swap;
use crate::swap::level::{Combination, KindMasks, StepCells};
use crate::swap::level_layers::ObstacleBoard;

/// The bitboards of a board with level layers at the start of a cascade: made once for a
/// board, and copied for each swap tried on it.
#[derive(Clone)]
pub(crate) struct Prepared {
    pub(super) planes: ColorPlanes,
    pub(super) masks: KindMasks,
    pub(super) gravity: Box<Masks>,
    /// The step buffers, with the board's locked tiles.
    pub(super) cells: Box<StepCells>,
    /// The colours of the board before a step's clearing (a buffer reused from step to step).
    pub(super) colors_before: Vec<u8>,
}

/// Spare bitboards a thread keeps at most.
const MAX_SPARES: usize = 4;

thread_local! {
    /// Bitboards of this thread's finished cascades and rankings, kept for the next ones to
    /// reuse their storage (about 7 KiB each) instead of allocating and zeroing it every turn.
    // Boxed: a `Prepared` holds 1.5 KiB of kind masks inline, and a spare moves in and out.
    #[allow(clippy::vec_box)]
    static SPARES: RefCell<Vec<Box<Prepared>>> = const { RefCell::new(Vec::new()) };
}

impl Prepared {
    /// The bitboards of `board`.
    pub(crate) fn of(board: &ObstacleBoard) -> Self {
        let planes = ColorPlanes::of(board.level().board());
        let masks = KindMasks::of(board.level(), &planes);
        let mut cells = Box::new(StepCells::new());
        Self::insert_locks(&mut cells.locked, board);
        Self {
            planes,
            masks,
            gravity: Box::new(Masks::of(board)),
            cells,
            colors_before: Vec::new(),
        }
    }

    /// The bitboards of `board`, in the storage of bitboards this thread handed back
    /// ([`Prepared::recycle`]) when it has some: the same bitboards as [`Prepared::of`] gives.
    pub(crate) fn reused_for(board: &ObstacleBoard) -> Box<Self> {
        let Some(mut bits) = SPARES.with_borrow_mut(Vec::pop) else {
            return Box::new(Self::of(board));
        };
        // Every set of the last board is zero from its height on.
        let stale_rows = bits.planes.height();
        bits.planes.rebuild_for(board.level().board());
        bits.masks.refresh(board.level(), &bits.planes, stale_rows);
        bits.gravity.refresh(board);
        bits.cells.clear_rows(stale_rows);
        Self::insert_locks(&mut bits.cells.locked, board);
        bits
    }

    /// Hands `bits` back for the next cascade or ranking on this thread to reuse.
    pub(crate) fn recycle(bits: Box<Self>) {
        SPARES.with_borrow_mut(|spares| {
            if spares.len() < MAX_SPARES {
                spares.push(bits);
            }
        });
    }

    /// A copy of these bitboards, in the storage of a spare this thread handed back when it has
    /// one: the same bitboards as `clone` gives.
    pub(crate) fn reused_copy(&self) -> Box<Self> {
        let Some(mut bits) = SPARES.with_borrow_mut(Vec::pop) else {
            return Box::new(self.clone());
        };
        bits.cells.clear_rows(bits.planes.height());
        bits.load(self);
        bits
    }

    /// Valid swaps of `board` (whose bitboards these are), as
    /// [`super::count_obstacle_swaps`] counts them.
    pub(crate) fn count_swaps(&self, board: &ObstacleBoard) -> usize {
        let rows = (self.gravity.fixed_rows(), self.gravity.ingredient_rows());
        count_obstacle_swaps_with(board, (&self.planes, &self.masks), rows)
    }

    /// True when `board` (whose bitboards these are) is stable, as
    /// [`super::is_obstacle_stable`] decides: from the bitboards alone when no slot is empty,
    /// else by settling a copy.
    pub(crate) fn is_stable(&self, board: &ObstacleBoard) -> bool {
        let stable = !self.planes.has_run()
            && (self.gravity.is_full_and_still() || super::gravity::settles_unchanged(board, true));
        debug_assert_eq!(stable, super::is_obstacle_stable(board));
        stable
    }

    /// Every valid swap of `board` (whose bitboards these are), as
    /// `judge::obstacle_valid_swaps` lists them.
    pub(crate) fn valid_swaps(&self, board: &ObstacleBoard) -> Vec<(Swap, Option<Combination>)> {
        let rows = (self.gravity.fixed_rows(), self.gravity.ingredient_rows());
        obstacle_valid_swaps_with(board, (&self.planes, &self.masks), rows)
    }

    /// True when these are the bitboards of `board` (for debug checks).
    pub(crate) fn describes(&self, board: &ObstacleBoard) -> bool {
        let mut locked = CellSet::new();
        Self::insert_locks(&mut locked, board);
        self.planes.describes(board.level().board())
            && self.masks == KindMasks::of(board.level(), &self.planes)
            && *self.gravity == Masks::of(board)
            && self.cells.locked == locked
    }

    /// Adds the locked tiles of `board` to `locked`.
    fn insert_locks(locked: &mut CellSet, board: &ObstacleBoard) {
        let width = board.level().width();
        for (index, _) in board
            .locks()
            .iter()
            .enumerate()
            .filter(|(_, lock)| **lock != 0)
        {
            locked.insert(index / width, index % width);
        }
    }

    /// Makes these bitboards a copy of `other`'s (of a board of any size; the step buffers
    /// aside), reusing their storage.
    pub(crate) fn load(&mut self, other: &Self) {
        // Every set is zero from its board's height on: the rows of either board suffice.
        let rows = self.planes.height().max(other.planes.height());
        self.planes.copy_from(&other.planes);
        self.masks.copy_rows_from(&other.masks, rows);
        self.gravity.copy_from(&other.gravity);
        self.cells.locked.copy_rows_from(&other.cells.locked, rows);
        debug_assert!(self.masks == other.masks && *self.gravity == *other.gravity);
        debug_assert!(self.cells.locked == other.cells.locked);
    }

    /// Records that the pieces of cells `a` and `b` of `board` (row-major indices) traded
    /// places; `board` is the board after the exchange.
    pub(super) fn exchange(&mut self, board: &ObstacleBoard, a: usize, b: usize) {
        let width = board.level().width();
        let cell = |i: usize| (i / width, (i % width) as u32);
        // Each cell's colour before the exchange is the other cell's now.
        for (from, to) in [(a, b), (b, a)] {
            let color = board.level().color(to);
            if color != EMPTY {
                self.planes.remove_cell(cell(from).0, cell(from).1, color);
            }
        }
        for i in [a, b] {
            let color = board.level().color(i);
            if color != EMPTY {
                self.planes.add_cell(cell(i).0, cell(i).1, color);
            }
            let level = board.level();
            self.masks
                .set_cell(cell(i), level.is_tile(i), level.kind(i));
        }
        self.gravity.exchange(a, b);
    }
}
