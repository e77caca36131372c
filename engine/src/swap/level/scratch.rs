//! The scratch of a level cascade: the colour planes and kind masks it keeps up to date, and
//! the row sets it works in, which each thread keeps from one cascade to the next.

use std::cell::RefCell;

use super::LevelBoard;
use super::bits::KindMasks;
use super::clearing::StepCells;
use super::gravity::SettleBuffers;
use crate::bitboard::{CellSet, ColorPlanes};
use crate::swap::cascade_loop::RunSearch;

/// What a cascade keeps from step to step: the colour planes and kind masks of the board at
/// the start of the step (updated after each step where it changed), and reused buffers.
pub(super) struct Scratch<'a> {
    /// Colour planes of the board being resolved.
    pub(super) planes: ColorPlanes,
    /// Tile, special and bomb masks of the board being resolved.
    pub(super) masks: &'a mut KindMasks,
    /// Where the board's runs can be (runs can only appear where cells changed).
    pub(super) search: RunSearch,
    /// The holes and the buffers of the steps.
    pub(super) sets: Box<RowSets>,
}

/// The row sets a cascade works in (about 4.5 KiB): kept boxed by each thread for its next
/// cascade, so a turn neither zeroes them whole nor moves them.
pub(super) struct RowSets {
    /// The holes, as row masks.
    pub(super) holes: CellSet,
    /// Buffers of gravity (see [`settle_cleared_with`]).
    pub(super) settle: SettleBuffers,
    /// The cells cleared in the current step, and those of its groups.
    pub(super) cells: StepCells,
    /// The rows of the board these sets were taken for: every set is zero below them.
    height: usize,
}

thread_local! {
    /// The row sets of this thread's last finished cascade, for its next one.
    static SPARE_ROW_SETS: RefCell<Option<Box<RowSets>>> = const { RefCell::new(None) };
}

impl RowSets {
    /// Empty sets for a board of `height` rows: this thread's spare, emptied, when it has one.
    #[inline]
    pub(super) fn take(height: usize) -> Box<Self> {
        let Some(mut sets) = SPARE_ROW_SETS.with_borrow_mut(Option::take) else {
            return Box::new(Self {
                holes: CellSet::new(),
                settle: SettleBuffers::new(),
                cells: StepCells::new(),
                height,
            });
        };
        // The last board wrote no row from its height on.
        let stale_rows = sets.height;
        sets.holes.clear_rows(stale_rows);
        sets.settle.clear_rows(stale_rows);
        sets.cells.clear_rows(stale_rows);
        sets.height = height;
        sets
    }

    /// Hands `sets` back for this thread's next cascade.
    #[inline]
    pub(super) fn recycle(sets: Box<Self>) {
        SPARE_ROW_SETS.with_borrow_mut(|spare| *spare = Some(sets));
    }
}

impl<'a> Scratch<'a> {
    /// The scratch for `board`, whose colour planes are `planes`, whose kind masks are
    /// `masks` and whose runs are all within `search`. When `stable` (every non-hole cell
    /// holds a tile), the holes are read off the tile mask.
    #[inline]
    pub(super) fn new(
        board: &LevelBoard,
        planes: ColorPlanes,
        masks: &'a mut KindMasks,
        stable: bool,
        search: RunSearch,
    ) -> Self {
        debug_assert!(planes.describes(board.board()));
        debug_assert!(*masks == KindMasks::of(board, &planes));
        let mut sets = RowSets::take(board.height());
        if stable {
            let full = u64::MAX >> (64 - board.width());
            for row in 0..board.height() {
                sets.holes.set_row(row, full & !masks.tiles.row(row));
            }
        } else {
            add_hole_masks(board, &mut sets.holes);
        }
        debug_assert!(sets.holes == hole_masks(board));
        Self {
            masks,
            planes,
            search,
            sets,
        }
    }
}

/// The holes of `board`, as row masks.
pub(super) fn hole_masks(board: &LevelBoard) -> CellSet {
    let mut holes = CellSet::new();
    add_hole_masks(board, &mut holes);
    holes
}

/// Adds the holes of `board` to `holes`.
fn add_hole_masks(board: &LevelBoard, holes: &mut CellSet) {
    let width = board.width();
    for (index, &hole) in board.holes().iter().enumerate() {
        if hole {
            holes.insert(index / width, index % width);
        }
    }
}
