//! The swap family's moves (docs/rules.md sections 2 and 6): a swap and the cascade it
//! triggers, a board resolved as given, a move played for its outcome only, and the certain
//! outcomes a hint ranks. Each call takes one path for the whole call: a board without layers
//! played without special pieces runs on the colour planes alone; any other runs with the
//! hole, piece-kind and special masks.

use rand::Rng;

use super::board::SwapBoard;
use super::cascade;
use super::level;
use super::level::{Combination, StableLevel};
use super::stable::{Stable, StableBoard};
use super::step::{
    CascadeOptions, CascadeOutcome, CascadeStep, CascadeSummary, CertainOutcome, Refill, StepSink,
};
use crate::bitboard::ColorPlanes;
use crate::board::Board;
use crate::error::EngineError;
use crate::moves::{Swap, SwapVerdict};
use crate::runs::Group;
use crate::stable::StablePlain;

/// The path one call takes: the plain bitboards, or the layered ones.
enum Path {
    Plain(StablePlain),
    Layered(StableLevel),
}

impl Path {
    fn of(board: StableBoard, options: &CascadeOptions) -> Self {
        match board.0 {
            Stable::Plain(plain) if !options.specials => Self::Plain(plain),
            Stable::Plain(plain) => Self::Layered(StableBoard::from(plain).into_layered()),
            Stable::Layered(level) => Self::Layered(level),
        }
    }
}

/// Applies `swap` to a stable board and resolves the cascade it triggers.
///
/// # Errors
/// [`EngineError::PositionOffBoard`] (`swap.a` or `swap.b`) for an off-board position,
/// [`EngineError::IllegalSwap`] for a hole, non-adjacent, empty or non-matching swap,
/// [`EngineError::CascadeLimitExceeded`] when the cascade needs more than `max_steps` steps.
pub fn resolve_swap<R: Rng + ?Sized>(
    board: StableBoard,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<CascadeOutcome, EngineError> {
    let mut steps = Vec::new();
    let summary = resolve_swap_into(board, swap, options, rng, &mut steps)?;
    Ok(summary.with_steps(steps))
}

/// [`resolve_swap`] handing each step to `sink` as it is made: same steps, board, score and RNG
/// draws.
///
/// # Errors
/// As [`resolve_swap`], and [`EngineError::CascadeStopped`] when `sink` stops the cascade.
pub fn resolve_swap_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: StableBoard,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    match Path::of(board, &options) {
        Path::Plain(plain) => cascade::resolve_swap_into(plain, swap, options, rng, sink),
        Path::Layered(level) => level::resolve_level_swap_into(level, swap, options, rng, sink),
    }
}

/// Resolves a well-formed board as given: first settles empty cells (a step with no groups,
/// only falls and spawns, when anything changes; holes stay empty), then cascades.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] when the cascade needs more than `max_steps` steps.
pub fn resolve_board<R: Rng + ?Sized>(
    board: SwapBoard,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<CascadeOutcome, EngineError> {
    let mut steps = Vec::new();
    let summary = resolve_board_into(board, options, rng, &mut steps)?;
    Ok(summary.with_steps(steps))
}

/// [`resolve_board`] handing each step to `sink` as it is made: same steps, board, score and
/// RNG draws.
///
/// # Errors
/// As [`resolve_board`], and [`EngineError::CascadeStopped`] when `sink` stops the cascade.
pub fn resolve_board_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: SwapBoard,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    match board.into_storage() {
        Ok(plain) if !options.specials => cascade::resolve_board_into(plain, options, rng, sink),
        Ok(plain) => level::resolve_level_board_into(
            SwapBoard::from(plain).into_layered(),
            options,
            rng,
            sink,
        ),
        Err(layered) => level::resolve_level_board_into(layered, options, rng, sink),
    }
}

/// Checks that both positions of a swap lie on `board`, naming `swap.a` or `swap.b` if not.
/// RPCs that apply a swap call this before anything else about the board, so a malformed
/// request is INVALID_ARGUMENT whatever the board's state.
///
/// # Errors
/// [`EngineError::PositionOffBoard`].
pub fn check_swap_positions(board: &Board, swap: Swap) -> Result<(), EngineError> {
    cascade::check_swap_positions(board, swap)
}

/// What a swap would do, judged without playing it: see [`preview_swap`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwapPreview {
    /// The verdict ([`crate::judge_swap`]).
    pub verdict: SwapVerdict,
    /// The combination of an OK swap of a colour bomb or of two specials.
    pub combination: Option<Combination>,
    /// The groups cascade step 1 would clear, ordered by first cell: empty for any verdict
    /// but OK, and for a combination (its step 1 clears an area, not groups).
    pub groups: Vec<Group>,
}

/// Judges `swap` and, when it is valid, says what its step 1 would clear.
pub fn preview_swap(board: &StableBoard, swap: Swap) -> SwapPreview {
    let (verdict, combination, groups) = match &board.0 {
        Stable::Plain(plain) => {
            let (verdict, groups) = cascade::preview_swap(plain, swap);
            (verdict, None, groups)
        }
        Stable::Layered(level) => level::preview_level_swap(level, swap),
    };
    SwapPreview {
        verdict,
        combination,
        groups,
    }
}

/// What one move did, without its events: the result of [`play_swap`], for simulations that
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
    /// True when the cascade left a dead board that was shuffled.
    pub shuffled: bool,
    /// True when the final board is stable and has no valid swap.
    pub dead: bool,
    /// True when the final board is stable (always under [`Refill::Random`]).
    pub stable: bool,
    /// The colour planes of a final board without layers when it is stable, kept for
    /// [`PlayedMove::into_stable`].
    planes: Option<ColorPlanes>,
}

impl PlayedMove {
    /// The final board as a [`StableBoard`], when it is stable.
    pub fn into_stable(self) -> Option<StableBoard> {
        if !self.stable {
            return None;
        }
        Some(match self.board.into_storage() {
            Ok(plain) => StablePlain::with_planes(plain, self.planes?).into(),
            Err(layered) => StableLevel::new_unchecked(layered).into(),
        })
    }
}

/// Counts what a layered resolution's steps cleared, keeping nothing else.
struct ClearedCount(u64);

impl StepSink for ClearedCount {
    fn accept(&mut self, step: CascadeStep) -> std::ops::ControlFlow<()> {
        let in_groups: usize = step.groups.iter().map(|group| group.cells.len()).sum();
        self.0 += (in_groups + step.effect_cleared.len()) as u64;
        std::ops::ControlFlow::Continue(())
    }
}

/// Applies `swap` and resolves its cascade exactly as [`resolve_swap`] does (same board, score,
/// shuffle and RNG draws), keeping only the outcome: for simulations and replays. On a board
/// without layers played without specials the steps' events and boards are never built (about
/// an order of magnitude less work than [`resolve_swap`] on small boards); on any other the
/// steps are built and dropped.
///
/// # Errors
/// As [`resolve_swap`].
pub fn play_swap<R: Rng + ?Sized>(
    board: StableBoard,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<PlayedMove, EngineError> {
    match Path::of(board, &options) {
        Path::Plain(plain) => {
            let played = cascade::play_swap(plain, swap, options, rng)?;
            Ok(PlayedMove {
                board: played.board.into(),
                steps: played.steps,
                score: played.score,
                cleared: played.cleared,
                shuffled: played.shuffled,
                dead: played.dead,
                stable: played.stable,
                planes: played.planes,
            })
        }
        Path::Layered(level) => {
            let mut cleared = ClearedCount(0);
            let summary = level::resolve_level_swap_into(level, swap, options, rng, &mut cleared)?;
            Ok(PlayedMove {
                board: summary.board,
                steps: summary.steps,
                score: summary.total_score,
                cleared: cleared.0,
                shuffled: summary.board_before_shuffle.is_some(),
                dead: summary.dead,
                stable: summary.stable,
                planes: None,
            })
        }
    }
}

/// Every valid swap of `board` (in [`crate::valid_swaps`] order) with its [`Refill::None`]
/// cascade, played with or without special pieces as `specials` says: the same score, cells
/// cleared and steps as [`play_swap`] with NONE refill gives for each. On a board without
/// layers played without specials the swaps are worked in one scratch board instead of a copy
/// per swap, and the final boards are not judged (hints do not need them).
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] at the first swap (in that order) whose cascade needs
/// more than `max_steps` steps.
pub fn certain_outcomes(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
) -> Result<Vec<(Swap, CertainOutcome)>, EngineError> {
    certain_outcomes_while(board, specials, max_steps, || true)
}

/// [`certain_outcomes`], asking `go_on` before each swap: when it answers false (a search past
/// its deadline), the outcomes of the swaps before are returned, and the caller, who knows why
/// it stopped, says so.
///
/// # Errors
/// As [`certain_outcomes`], for the swaps played.
pub fn certain_outcomes_while(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
    mut go_on: impl FnMut() -> bool,
) -> Result<Vec<(Swap, CertainOutcome)>, EngineError> {
    if let (Stable::Plain(plain), false) = (&board.0, specials) {
        return cascade::certain_outcomes_while(plain, max_steps, go_on);
    }
    let options = CascadeOptions {
        refill: Refill::None,
        auto_shuffle: true,
        max_steps,
        specials,
    };
    // NONE refill draws nothing from it.
    let mut rng = crate::rng_from_seed(0);
    let mut outcomes = Vec::new();
    for swap in super::judge::valid_swaps(board) {
        if !go_on() {
            break;
        }
        let played = play_swap(board.clone(), swap, options, &mut rng)?;
        let outcome = CertainOutcome {
            score: played.score,
            cleared: played.cleared,
            steps: played.steps,
        };
        outcomes.push((swap, outcome));
    }
    Ok(outcomes)
}
