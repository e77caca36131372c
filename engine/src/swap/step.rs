//! What a swap-family resolution is asked and what it gives back (docs/rules.md sections 2 and
//! 6): the options, one step of a cascade, the outcome, and the sink that takes steps as they
//! are made. Plain boards and boards with layers share every one of these types; on a plain
//! board the lists of specials are simply empty.

use std::ops::ControlFlow;

use super::board::SwapBoard;
use super::pieces::Special;
use crate::bitboard::ColorPlanes;
use crate::board::Position;
use crate::gravity::{Fall, Spawn};
use crate::runs::Group;

/// How empty cells are filled after gravity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refill {
    /// Each empty cell, in row-major order, gets a colour drawn uniformly from `1..=colors`
    /// (`colors` in `1..=16`).
    Random {
        /// Number of colours to draw from.
        colors: u8,
    },
    /// Empty cells stay empty (LeetCode 723 semantics).
    None,
}

/// Options of one cascade resolution: how it refills, whether it shuffles, how long it may
/// run, and which rules it plays by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CascadeOptions {
    /// Refill mode.
    pub refill: Refill,
    /// Shuffle a dead final board (only under [`Refill::Random`]).
    pub auto_shuffle: bool,
    /// Maximum number of steps, at least 1.
    pub max_steps: u32,
    /// Create special pieces (docs/rules.md section 6: a run of 4 makes a striped piece, an L
    /// or T a wrapped one, a run of 5 a colour bomb). Off, the cascade only clears runs, as in
    /// sections 1-2; special pieces already on the board fire either way. A plain board played
    /// with specials on gains a piece-kind layer.
    pub specials: bool,
}

/// One cascade step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CascadeStep {
    /// 1-based step number k.
    pub index: u32,
    /// Groups cleared, ordered by first cell (empty for a settling step and for the step 1 of
    /// a combination).
    pub groups: Vec<Group>,
    /// Specials fired, in queue order, with the kind each fired as (empty on a board without
    /// special pieces).
    pub fired: Vec<Special>,
    /// Specials created, ordered by position (empty unless [`CascadeOptions::specials`]).
    pub created: Vec<Special>,
    /// Cells cleared outside the groups (by a combination or a firing), row-major.
    pub effect_cleared: Vec<Position>,
    /// The hit cells that carry a layer (docs/rules.md section 8: jelly before the hit, a
    /// blocker or a lock), row-major; empty on a board without level layers.
    pub hits: Vec<Hit>,
    /// Pieces moved by gravity, ordered by `from` in row-major order; on a board with level
    /// layers, in time order (each settling round's straight falls by `from`, then its
    /// diagonal slide; then those of re-settling after ingredients leave).
    pub falls: Vec<Fall>,
    /// Cells filled by refill, in draw order (row-major; on a board with level layers,
    /// row-major within each refill pass).
    pub spawns: Vec<Spawn>,
    /// Ingredients collected at exits (docs/rules.md section 8), in time order, row-major
    /// within one pass; empty on a board without level layers.
    pub collected: Vec<Position>,
    /// `10 * k * (cells cleared)`: the groups' cells and `effect_cleared`.
    pub score: u64,
    /// The board after the step.
    pub board: SwapBoard,
}

/// A hit on a cell that carries a layer (docs/rules.md section 8), after the hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hit {
    /// The cell.
    pub position: Position,
    /// Jelly layers left under it, `0..=2`.
    pub jelly_left: u8,
    /// The blocker's hit points left, `0..=5`: 0 when the hit destroyed it, and where there
    /// was no blocker.
    pub blocker_left: u8,
    /// True when the hit removed the cell's lock.
    pub lock_removed: bool,
}

/// Everything a resolution produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CascadeOutcome {
    /// Steps in order; empty when nothing happened.
    pub steps: Vec<CascadeStep>,
    /// The final board (after the shuffle, if any).
    pub board: SwapBoard,
    /// Sum of the steps' scores.
    pub total_score: u64,
    /// The dead board before the automatic shuffle, when one happened.
    pub board_before_shuffle: Option<SwapBoard>,
    /// True when the final board is stable and has no valid swap (combinations included).
    pub dead: bool,
    /// Valid swaps on the final board (0 unless it is stable).
    pub valid_swap_count: usize,
    /// True when the final board is stable.
    pub stable: bool,
}

/// Everything a resolution produced but its steps, which went to a [`StepSink`] as they
/// were made (see [`crate::resolve_swap_into`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CascadeSummary {
    /// Number of steps handed to the sink.
    pub steps: u32,
    /// The final board (after the shuffle, if any).
    pub board: SwapBoard,
    /// Sum of the steps' scores.
    pub total_score: u64,
    /// The dead board before the automatic shuffle, when one happened.
    pub board_before_shuffle: Option<SwapBoard>,
    /// True when the final board is stable and has no valid swap (combinations included).
    pub dead: bool,
    /// Valid swaps on the final board (0 unless it is stable).
    pub valid_swap_count: usize,
    /// True when the final board is stable.
    pub stable: bool,
}

impl CascadeSummary {
    /// The [`CascadeOutcome`] of this resolution, given the steps its sink kept.
    pub fn with_steps(self, steps: Vec<CascadeStep>) -> CascadeOutcome {
        CascadeOutcome {
            steps,
            board: self.board,
            total_score: self.total_score,
            board_before_shuffle: self.board_before_shuffle,
            dead: self.dead,
            valid_swap_count: self.valid_swap_count,
            stable: self.stable,
        }
    }
}

/// Where a recording resolution hands its steps, each as soon as it is made, so a caller can
/// convert, measure or stream them instead of holding the whole cascade: a reply builder keeps
/// the memory of a call bounded by its reply size this way.
pub trait StepSink {
    /// Takes the next step (steps come in order, numbered from 1).
    /// [`ControlFlow::Break`] stops the resolution at once with
    /// [`crate::EngineError::CascadeStopped`]; nothing after this step is computed.
    fn accept(&mut self, step: CascadeStep) -> ControlFlow<()>;
}

/// Keeps every step.
impl StepSink for Vec<CascadeStep> {
    fn accept(&mut self, step: CascadeStep) -> ControlFlow<()> {
        self.push(step);
        ControlFlow::Continue(())
    }
}

/// What a swap certainly gives: its cascade under [`Refill::None`], where nothing is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CertainOutcome {
    /// The cascade's score, as [`crate::PlayedMove::score`].
    pub score: u64,
    /// Cells cleared over all steps, as [`crate::PlayedMove::cleared`].
    pub cleared: u64,
    /// Number of cascade steps, at least 1.
    pub steps: u32,
    /// Special pieces created over all steps, as [`crate::PlayedMove::specials_created`].
    pub specials_created: u64,
}

/// What one move did, without its events: the result of [`crate::play_swap`], for simulations that
/// need the board and the score but not the groups, falls and spawns of every step.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    /// The final board (after the shuffle, if any).
    pub board: SwapBoard,
    /// Number of cascade steps, at least 1.
    pub steps: u32,
    /// The move's score: the sum of its steps' scores, as in [`CascadeOutcome::total_score`].
    pub score: u64,
    /// Cells cleared over all steps: the cells of the steps' groups and their
    /// `effect_cleared` cells.
    pub cleared: u64,
    /// Special pieces created over all steps (0 unless [`CascadeOptions::specials`]).
    pub specials_created: u64,
    /// True when the cascade left a dead board that was shuffled.
    pub shuffled: bool,
    /// True when the final board is stable and has no valid swap.
    pub dead: bool,
    /// True when the final board is stable (always under [`Refill::Random`]).
    pub stable: bool,
    /// The colour planes of a final board without layers when it is stable, kept for
    /// [`PlayedMove::into_stable`].
    pub(crate) plain_planes: Option<ColorPlanes>,
}
