//! The one cascade loop of the swap family (docs/rules.md sections 2 and 6): while the board
//! has something to clear, clear it, apply gravity, refill, and hand the step on. What a step
//! clears and how tiles fall depend on the board: the colours alone (`cascade`, on colour
//! planes) or the colours with their layers (`level`, on planes and kind, hole and special
//! masks). Each is a [`CascadeBoard`], and the loop is compiled once for each, so a board
//! without layers pays nothing for the rules of layers.

use rand::Rng;

use super::board::SwapBoard;
use super::pieces::Special;
use super::step::{CascadeOptions, CascadeStep, Hit, Refill, StepSink};
use crate::bitboard::{CellSet, ColorPlanes};
use crate::board::Position;
use crate::error::EngineError;
use crate::gravity::{Fall, Spawn};
use crate::moves::Swap;
use crate::runs::Group;
use crate::scoring::cascade_group_score;

/// Where the next cascade step looks for runs. Every run of a board with no run before its
/// last change passes through a changed cell: it starts in the first `rows` rows (the deepest
/// changed row) and has the colour of a changed cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunSearch {
    pub(crate) rows: usize,
    /// The colours of the changed cells: bit `c` for colour `c` (`1..=16`; bit 0, an empty
    /// cell's or a colour bomb's, is ignored).
    pub(crate) colors: u32,
}

impl RunSearch {
    /// Every run of a `height`-row board.
    pub(crate) fn everywhere(height: usize) -> Self {
        Self {
            rows: height,
            colors: u32::MAX,
        }
    }

    /// The runs `swap` (valid, on a run-free board) can make, given the colours of its cells:
    /// they pass through `a` or `b`, so they start at or above the lower one.
    pub(crate) fn after_swap(swap: Swap, colors: [u8; 2]) -> Self {
        Self {
            rows: swap.a.row.max(swap.b.row) as usize + 1,
            colors: 1 << colors[0] | 1 << colors[1],
        }
    }

    /// The matched cells of `planes` this search covers.
    pub(crate) fn matched(self, planes: &ColorPlanes) -> CellSet {
        planes.matched_of_colors(self.rows, self.colors)
    }

    /// Adds the matched cells of `planes` this search covers to `matched`, in place.
    pub(crate) fn add_matched(self, planes: &ColorPlanes, matched: &mut CellSet) {
        planes.add_matched_of_colors(self.rows, self.colors, matched);
    }
}

/// What the clearing part of a step did.
pub(crate) struct StepClearing {
    /// Cells cleared: the groups' cells and every other cell the step cleared.
    pub(crate) count: usize,
    /// One past the lowest row holding a cleared cell.
    pub(crate) rows: usize,
    /// Specials fired, in queue order.
    pub(crate) fired: Vec<Special>,
    /// Specials created, ordered by position.
    pub(crate) created: Vec<Special>,
    /// Cells cleared outside the groups, row-major.
    pub(crate) effect_cleared: Vec<Position>,
    /// The hit cells that carry a level layer, row-major (docs/rules.md section 8).
    pub(crate) hits: Vec<Hit>,
}

/// What settling after a step's clearing did.
pub(crate) struct StepSettling {
    /// The moves, as [`CascadeStep::falls`].
    pub(crate) falls: Vec<Fall>,
    /// The spawns, as [`CascadeStep::spawns`].
    pub(crate) spawns: Vec<Spawn>,
    /// The ingredients collected, as [`CascadeStep::collected`].
    pub(crate) collected: Vec<Position>,
    /// The colours of the moved and spawned tiles (bit `c` for colour `c`).
    pub(crate) changed_colors: u32,
}

/// A board in the middle of a cascade, with what its rules keep from step to step.
pub(crate) trait CascadeBoard {
    /// Whether a step's groups are needed to clear it (special pieces are made from them)
    /// even when the steps are not recorded.
    const NEEDS_GROUPS: bool;

    /// Looks for what the next step clears; false when there is nothing (the cascade is over).
    fn find_clearing(&mut self) -> bool;

    /// The groups of the runs found, ordered by first cell (none in a combination's step).
    fn groups(&self) -> Vec<Group>;

    /// Clears the step found, creating special pieces when `specials`.
    fn clear(&mut self, groups: &[Group], specials: bool) -> StepClearing;

    /// Gravity and refill under `refill` after the step's clearing.
    fn settle_and_refill<R: Rng + ?Sized>(
        &mut self,
        refill: Refill,
        rng: &mut R,
        record: bool,
    ) -> StepSettling;

    /// Ends the step: where the next step's runs can be.
    fn end_step(&mut self, search: RunSearch);

    /// A copy of the board, for a recorded step.
    fn to_board(&self) -> SwapBoard;
}

/// A board whose gravity and refill are two separate passes (docs/rules.md sections 2 and 6):
/// every tile falls, then every empty cell is refilled.
pub(crate) trait SplitSettling {
    /// Gravity on the cleared columns; the falls when `record`, and the colours of the moved
    /// tiles (bit `c` for colour `c`).
    fn settle(&mut self, record: bool) -> (Vec<Fall>, u32);

    /// Refills the empty cells with colours drawn from `1..=colors`; the spawns when `record`,
    /// and the colours drawn.
    fn refill<R: Rng + ?Sized>(
        &mut self,
        colors: u8,
        rng: &mut R,
        record: bool,
    ) -> (Vec<Spawn>, u32);
}

/// [`CascadeBoard::settle_and_refill`] of a [`SplitSettling`] board: gravity, then refill.
#[inline]
pub(crate) fn settle_then_refill<B: SplitSettling, R: Rng + ?Sized>(
    board: &mut B,
    refill: Refill,
    rng: &mut R,
    record: bool,
) -> StepSettling {
    let (falls, mut changed_colors) = board.settle(record);
    let spawns = match refill {
        Refill::Random { colors } => {
            let (spawns, drawn) = board.refill(colors, rng, record);
            changed_colors |= drawn;
            spawns
        }
        Refill::None => Vec::new(),
    };
    StepSettling {
        falls,
        spawns,
        collected: Vec::new(),
        changed_colors,
    }
}

/// What a cascade did, its steps aside.
#[derive(Clone, Copy)]
pub(crate) struct CascadeTotals {
    /// The number of the last step.
    pub(crate) last_index: u32,
    /// The score of the steps run here.
    pub(crate) score: u64,
    /// The cells they cleared.
    pub(crate) cleared: u64,
    /// The special pieces they created.
    pub(crate) specials_created: u64,
}

/// The cascade loop: while `board` has something to clear, clear it, apply gravity, refill.
/// Steps are numbered from `first_index + 1`. With `RECORD`, every step goes to `sink`, which
/// may stop the cascade; without, only the totals are kept (for simulations), and the same RNG
/// draws are made.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] past `options.max_steps`;
/// [`EngineError::CascadeStopped`] when `sink` stops it.
#[inline]
pub(crate) fn run_cascade<const RECORD: bool, B, R, S>(
    board: &mut B,
    first_index: u32,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeTotals, EngineError>
where
    B: CascadeBoard,
    R: Rng + ?Sized,
    S: StepSink + ?Sized,
{
    let mut totals = CascadeTotals {
        last_index: first_index,
        score: 0,
        cleared: 0,
        specials_created: 0,
    };
    loop {
        if !board.find_clearing() {
            return Ok(totals);
        }
        let index = totals.last_index + 1;
        if index > options.max_steps {
            return Err(EngineError::CascadeLimitExceeded {
                max_steps: options.max_steps,
            });
        }
        totals.last_index = index;
        let groups = if RECORD || B::NEEDS_GROUPS {
            board.groups()
        } else {
            Vec::new()
        };
        let clearing = board.clear(&groups, options.specials);
        let score = cascade_group_score(clearing.count, index);
        totals.score += score;
        totals.cleared += clearing.count as u64;
        totals.specials_created += clearing.created.len() as u64;
        let StepSettling {
            falls,
            spawns,
            collected,
            mut changed_colors,
        } = board.settle_and_refill(options.refill, rng, RECORD);
        // New runs hold a changed cell (a moved, spawned or created tile): they have its
        // colour and start no lower than the lowest cleared row. Every other cell is as it
        // was, and the step cleared every run of the board it started from.
        for special in &clearing.created {
            changed_colors |= 1 << special.color;
        }
        board.end_step(RunSearch {
            rows: clearing.rows,
            colors: changed_colors,
        });
        if RECORD {
            let step = CascadeStep {
                index,
                groups,
                fired: clearing.fired,
                created: clearing.created,
                effect_cleared: clearing.effect_cleared,
                hits: clearing.hits,
                falls,
                spawns,
                collected,
                score,
                board: board.to_board(),
            };
            if sink.accept(step).is_break() {
                return Err(EngineError::CascadeStopped { steps: index });
            }
        }
    }
}

/// Hands the settling step of a board resolved as given (docs/rules.md section 2: a step 1 with
/// no groups, only the falls and spawns of settling its empty cells) to `sink` when anything
/// fell or spawned; `board` is the board after it. Returns the number of steps handed on, 0
/// or 1.
///
/// # Errors
/// [`EngineError::CascadeStopped`] when `sink` stops the resolution there.
pub(crate) fn hand_settling_step<S: StepSink + ?Sized>(
    sink: &mut S,
    (falls, spawns, collected): (Vec<Fall>, Vec<Spawn>, Vec<Position>),
    board: impl FnOnce() -> SwapBoard,
) -> Result<u32, EngineError> {
    if falls.is_empty() && spawns.is_empty() && collected.is_empty() {
        return Ok(0);
    }
    let step = CascadeStep {
        index: 1,
        groups: Vec::new(),
        fired: Vec::new(),
        created: Vec::new(),
        effect_cleared: Vec::new(),
        hits: Vec::new(),
        falls,
        spawns,
        collected,
        score: 0,
        board: board(),
    };
    if sink.accept(step).is_break() {
        return Err(EngineError::CascadeStopped { steps: 1 });
    }
    Ok(1)
}
