//! The cascade (docs/rules.md section 2): clear every group at once, apply gravity, refill, repeat while
//! any run exists; then, if the board is dead, optionally shuffle it.

mod play;
mod preview;

pub(crate) use play::{certain_outcomes_while, play_swap};
pub(crate) use preview::{preview_swap, preview_swap_on_cells};

use rand::Rng;

use super::board::SwapBoard;
use super::cascade_loop::{
    self, CascadeBoard, RunSearch, SplitSettling, StepClearing, StepSettling, settle_then_refill,
};
use super::step::{CascadeOptions, CascadeSummary, Refill, StepSink};
use crate::bitboard::{BitIter, CellSet, ColorPlanes};
use crate::board::{Board, EMPTY, MAX_SIDE};
use crate::error::EngineError;
use crate::gravity::{Fall, Spawn, refill_tops, settle_columns};
use crate::moves::{Swap, count_valid_swaps, judge_swap};
use crate::runs::{Group, groups_of};
use crate::shuffle::shuffle;
use crate::stable::StablePlain;

/// Applies `swap` to a stable board without layers and resolves the cascade it triggers,
/// handing each step to `sink` as it is made (the plain board's path of
/// [`crate::resolve_swap_into`]).
///
/// # Errors
/// As [`crate::resolve_swap_into`].
pub(crate) fn resolve_swap_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: StablePlain,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    if let Some(rejection) = judge_swap(&board, swap).rejection() {
        return Err(EngineError::IllegalSwap(rejection));
    }
    // OK or OUT_OF_BOUNDS: name the off-board position's field in the latter case.
    check_swap_positions(board.board(), swap)?;
    let (after, planes, search) = swapped(board, swap);
    run_cascade(after, planes, search, 0, options, rng, sink)
}

/// `board` with `swap` (valid) applied, its colour planes, and where its runs can be: every
/// run passes through `a` or `b`.
fn swapped(board: StablePlain, swap: Swap) -> (Board, ColorPlanes, RunSearch) {
    let (mut board, mut planes) = board.into_parts();
    let search = swap_tiles(&mut board, &mut planes, swap);
    (board, planes, search)
}

/// Exchanges the tiles of `swap` (valid) on `board` and in its colour `planes`; returns where
/// the runs it makes can be.
fn swap_tiles(board: &mut Board, planes: &mut ColorPlanes, swap: Swap) -> RunSearch {
    let (Some(a), Some(b)) = (board.index_of(swap.a), board.index_of(swap.b)) else {
        unreachable!("swap_tiles is only called after judge_swap accepted the positions")
    };
    let colors = [board.at(a), board.at(b)];
    board.cells_mut().swap(a, b);
    planes.swap_cells(swap.a, swap.b, colors[0], colors[1]);
    RunSearch::after_swap(swap, colors)
}

/// Checks that both positions of a swap lie on `board`, naming `swap.a` or `swap.b` if not.
/// RPCs that apply a swap call this before anything else about the board, so a malformed
/// request is INVALID_ARGUMENT whatever the board's state.
///
/// # Errors
/// [`EngineError::PositionOffBoard`].
pub(crate) fn check_swap_positions(board: &Board, swap: Swap) -> Result<(), EngineError> {
    board.checked_index("swap.a", swap.a)?;
    board.checked_index("swap.b", swap.b)?;
    Ok(())
}

/// Resolves a board without layers as given (the plain board's path of
/// [`crate::resolve_board_into`]): first settles empty cells (a step with no groups, only falls
/// and spawns, when anything changes), then cascades.
///
/// # Errors
/// As [`crate::resolve_board_into`].
pub(crate) fn resolve_board_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    mut board: Board,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    let mut settling_steps = 0;
    if board.has_empty_cell() {
        let mut falls = Vec::new();
        let settled = settle_columns(&mut board, u64::MAX, Some(&mut falls));
        let mut spawns = Vec::new();
        if let Refill::Random { colors } = options.refill {
            refill_tops(
                &mut board,
                &settled.empty_on_top,
                colors,
                rng,
                Some(&mut spawns),
            );
        }
        settling_steps =
            cascade_loop::hand_settling_step(sink, (falls, spawns, Vec::new()), || {
                board.clone().into()
            })?;
    }
    let planes = ColorPlanes::of(&board);
    let search = RunSearch::everywhere(board.height());
    run_cascade(board, planes, search, settling_steps, options, rng, sink)
}

fn run_cascade<R: Rng + ?Sized, S: StepSink + ?Sized>(
    mut board: Board,
    planes: ColorPlanes,
    search: RunSearch,
    first_index: u32,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    let mut cascading = PlainCascade::new(&mut board, planes, search, options);
    let totals = cascade_loop::run_cascade::<true, _, R, S>(
        &mut cascading,
        first_index,
        options,
        rng,
        sink,
    )?;
    let planes = cascading.planes;
    let ending = end_of_move(board, planes, options, true, rng);
    Ok(CascadeSummary {
        steps: totals.last_index,
        board: ending.board.into(),
        total_score: totals.score,
        board_before_shuffle: ending.board_before_shuffle.map(Into::into),
        dead: ending.dead,
        valid_swap_count: ending.valid_swap_count,
        stable: ending.stable,
    })
}

/// A board without layers in the middle of a cascade (docs/rules.md section 2): every matched
/// cell is cleared at once, the columns that lost tiles fall, and the colour planes are
/// brought up to date once a step, over the changed columns and rows only.
pub(super) struct PlainCascade<'a> {
    board: &'a mut Board,
    /// The colour planes of the board at the start of the step.
    pub(super) planes: ColorPlanes,
    /// Where the board's runs can be.
    search: RunSearch,
    /// The cells the step clears.
    matched: CellSet,
    /// The number of cells in `matched`.
    cleared: usize,
    /// The columns that lost tiles this step (bit `c` for column `c`).
    columns: u64,
    /// One past the lowest row that lost a tile this step.
    rows: usize,
    /// Per column, the empty cells at its top after gravity.
    empty_on_top: [u8; MAX_SIDE as usize],
}

impl<'a> PlainCascade<'a> {
    /// The cascade of `board`, whose colour planes are `planes` and whose runs all lie within
    /// `search`.
    #[inline]
    pub(super) fn new(
        board: &'a mut Board,
        mut planes: ColorPlanes,
        search: RunSearch,
        options: CascadeOptions,
    ) -> Self {
        if let Refill::Random { colors } = options.refill {
            planes.reserve_colors(colors);
        }
        Self {
            board,
            planes,
            search,
            matched: CellSet::new(),
            cleared: 0,
            columns: 0,
            rows: 0,
            empty_on_top: [0; MAX_SIDE as usize],
        }
    }
}

impl CascadeBoard for PlainCascade<'_> {
    const NEEDS_GROUPS: bool = false;

    #[inline]
    fn find_clearing(&mut self) -> bool {
        let height = self.board.height();
        self.matched.clear_rows(height);
        self.search.add_matched(&self.planes, &mut self.matched);
        debug_assert!(
            self.matched == self.planes.matched(),
            "a run outside {:?}",
            self.search
        );
        self.cleared = self.matched.len_within(height);
        self.cleared > 0
    }

    #[inline]
    fn groups(&self) -> Vec<Group> {
        groups_of(&self.planes, &self.matched)
    }

    #[inline]
    fn clear(&mut self, _groups: &[Group], _specials: bool) -> StepClearing {
        let (width, height) = (self.board.width(), self.board.height());
        let mut columns = 0u64;
        let mut rows = 0;
        let cells = self.board.cells_mut();
        for row in 0..height {
            let mask = self.matched.row(row);
            if mask != 0 {
                columns |= mask;
                // Every cell that moves or spawns ends at or above the deepest cleared row,
                // and every new run passes through one of them.
                rows = row + 1;
            }
            for col in BitIter(mask) {
                cells[row * width + col as usize] = EMPTY;
            }
        }
        (self.columns, self.rows) = (columns, rows);
        StepClearing {
            count: self.cleared,
            rows,
            fired: Vec::new(),
            created: Vec::new(),
            effect_cleared: Vec::new(),
            hits: Vec::new(),
        }
    }

    #[inline]
    fn settle_and_refill<R: Rng + ?Sized>(
        &mut self,
        refill: Refill,
        rng: &mut R,
        record: bool,
    ) -> StepSettling {
        settle_then_refill(self, refill, rng, record)
    }

    #[inline]
    fn end_step(&mut self, search: RunSearch) {
        let width = self.board.width();
        self.planes
            .update_columns(self.board.cells(), width, self.columns, self.rows);
        self.search = search;
        debug_assert!(self.planes.describes(self.board));
    }

    fn to_board(&self) -> SwapBoard {
        self.board.clone().into()
    }
}

impl SplitSettling for PlainCascade<'_> {
    #[inline]
    fn settle(&mut self, record: bool) -> (Vec<Fall>, u32) {
        let mut falls = Vec::new();
        let settled = settle_columns(self.board, self.columns, record.then_some(&mut falls));
        self.empty_on_top = settled.empty_on_top;
        (falls, settled.moved_colors)
    }

    #[inline]
    fn refill<R: Rng + ?Sized>(
        &mut self,
        colors: u8,
        rng: &mut R,
        record: bool,
    ) -> (Vec<Spawn>, u32) {
        let mut spawns = Vec::new();
        let drawn = refill_tops(
            self.board,
            &self.empty_on_top,
            colors,
            rng,
            record.then_some(&mut spawns),
        );
        (spawns, drawn)
    }
}

/// The state of a run-free board after its cascade, and the automatic shuffle.
struct Ending {
    board: Board,
    /// The colour planes of `board` when it is stable.
    planes: Option<ColorPlanes>,
    board_before_shuffle: Option<Board>,
    stable: bool,
    dead: bool,
    /// Valid swaps on the final board when counted (else 0 or 1: whether one exists).
    valid_swap_count: usize,
}

/// Judges the run-free `board` (whose colour planes are `planes`) after a cascade: stable when
/// it has no empty cell; then dead when it has no valid swap, and shuffled when dead under
/// RANDOM refill with `auto_shuffle`. With `count_swaps`, every valid swap is counted; without,
/// only whether one exists is checked.
fn end_of_move<R: Rng + ?Sized>(
    board: Board,
    planes: ColorPlanes,
    options: CascadeOptions,
    count_swaps: bool,
    rng: &mut R,
) -> Ending {
    let mut ending = Ending {
        stable: !board.has_empty_cell(),
        board,
        planes: None,
        board_before_shuffle: None,
        dead: false,
        valid_swap_count: 0,
    };
    if !ending.stable {
        return ending;
    }
    ending.valid_swap_count = if count_swaps {
        planes.count_valid_swaps()
    } else {
        usize::from(planes.has_valid_swap())
    };
    ending.planes = Some(planes);
    ending.dead = ending.valid_swap_count == 0;
    let may_shuffle = matches!(options.refill, Refill::Random { .. }) && options.auto_shuffle;
    if ending.dead && may_shuffle {
        // No playable permutation is not an error here: the move itself was legal.
        if let Ok(shuffled) = shuffle(&ending.board, rng) {
            ending.valid_swap_count = if count_swaps {
                count_valid_swaps(&shuffled)
            } else {
                1
            };
            ending.dead = false;
            ending.planes = Some(shuffled.planes().clone());
            ending.board_before_shuffle =
                Some(std::mem::replace(&mut ending.board, shuffled.into_board()));
        }
    }
    ending
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swap::resolve::{resolve_board, resolve_swap};
    use crate::swap::stable::StableBoard;
    use crate::swap::test_support::{NONE, swap};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(42)
    }

    #[test]
    fn spec_example_two_groups_in_step_one() {
        let board = StableBoard::try_from(Board::parse("RRG/GGR").unwrap()).unwrap();
        let outcome = resolve_swap(board, swap((0, 2), (1, 2)), NONE, &mut rng()).unwrap();
        assert_eq!(outcome.steps.len(), 1);
        let groups = &outcome.steps[0].groups;
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].color, 1);
        assert!(groups[0].cells.iter().all(|p| p.row == 0));
        assert_eq!(groups[1].color, 2);
        assert!(groups[1].cells.iter().all(|p| p.row == 1));
        assert_eq!(outcome.steps[0].score, 60);
        assert_eq!(outcome.board.to_string(), ".../...");
        assert!(!outcome.stable && !outcome.dead);
    }

    #[test]
    fn spec_example_column_then_row() {
        let board = StableBoard::try_from(Board::parse("GRYY/YRRG/BGYY/BGGY").unwrap()).unwrap();
        let outcome = resolve_swap(board, swap((0, 3), (1, 3)), NONE, &mut rng()).unwrap();
        assert_eq!(outcome.steps.len(), 2);
        assert_eq!(outcome.steps[0].groups.len(), 1);
        assert_eq!(outcome.steps[0].groups[0].color, 4);
        assert_eq!(outcome.steps[1].groups[0].color, 2);
        assert_eq!(outcome.board.to_string(), "G.../YRY./BRR./BGY.");
        // Step 1: 3 tiles * 10 * 1; step 2: 3 tiles * 10 * 2.
        assert_eq!(outcome.total_score, 30 + 60);
    }

    #[test]
    fn spec_example_resolve_as_given() {
        let board = Board::parse("13552/34331/32452/24455/14411").unwrap();
        let outcome = resolve_board(board.into(), NONE, &mut rng()).unwrap();
        assert_eq!(outcome.steps.len(), 2);
        assert_eq!(
            outcome.board.to_string(),
            Board::parse("13.../34.52/32.31/24.52/14311")
                .unwrap()
                .to_string()
        );
    }

    #[test]
    fn empty_cells_are_settled_in_a_step_without_groups() {
        let board = Board::parse("R.G/.GB/GBR").unwrap();
        let outcome = resolve_board(board.into(), NONE, &mut rng()).unwrap();
        assert_eq!(outcome.steps.len(), 1);
        assert!(outcome.steps[0].groups.is_empty());
        assert_eq!(outcome.steps[0].falls.len(), 1);
        assert_eq!(outcome.board.to_string(), "..G/RGB/GBR");
        // Nothing to settle, nothing to clear: no step.
        let settled = resolve_board(
            Board::parse("..G/RGB/GBR").unwrap().into(),
            NONE,
            &mut rng(),
        )
        .unwrap();
        assert!(settled.steps.is_empty());
    }

    #[test]
    fn random_refill_leaves_a_stable_board_and_conserves_tiles() {
        let options = CascadeOptions {
            refill: Refill::Random { colors: 4 },
            auto_shuffle: true,
            max_steps: 1000,
            specials: false,
        };
        let board = StableBoard::try_from(Board::parse("RRG/GGR/BYB").unwrap()).unwrap();
        let outcome = resolve_swap(board, swap((0, 2), (1, 2)), options, &mut rng()).unwrap();
        assert!(outcome.stable);
        for step in &outcome.steps {
            let cleared: usize = step.groups.iter().map(|g| g.cells.len()).sum();
            assert_eq!(cleared, step.spawns.len());
        }
    }

    #[test]
    fn one_colour_refill_hits_the_step_limit() {
        let options = CascadeOptions {
            refill: Refill::Random { colors: 1 },
            auto_shuffle: true,
            max_steps: 50,
            specials: false,
        };
        let board = Board::parse("RRR/GBG/BGB").unwrap();
        assert_eq!(
            resolve_board(board.into(), options, &mut rng()),
            Err(EngineError::CascadeLimitExceeded { max_steps: 50 })
        );
    }
}
