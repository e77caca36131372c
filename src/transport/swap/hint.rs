//! `Hint` of the swap family (docs/rules.md section 7): every valid swap ranked by its certain
//! (NONE-refill) outcome ([`engine::ranked_swaps`]), optionally with sampled refills
//! ([`engine::play_swap`]), on boards with or without layers alike.

use tonic::Status;

use super::super::SearchContext;
use super::{cascade_options, stable_board};
use crate::engine::{self, CascadeOptions, EngineError, StableBoard};
use crate::proto;
use crate::transport::convert::{plays_specials, swap_from_proto};
use crate::transport::status::CallError;

/// Most sampled refills per swap in `Hint`.
pub const MAX_HINT_SAMPLES: u32 = 1_000;
/// Most sampled cascades in one `Hint`: samples times valid swaps.
pub const MAX_HINT_SAMPLED_CASCADES: u64 = 100_000;

/// True when `context`'s deadline has passed or its call was cancelled.
pub(super) fn stopped(context: Option<&SearchContext>) -> bool {
    context.is_some_and(|context| {
        context.cancel.load(std::sync::atomic::Ordering::Relaxed)
            || context
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    })
}

/// `Err(WORK_DEADLINE)` when `context`'s deadline has passed or its call was cancelled.
pub(super) fn check_context(context: Option<&SearchContext>) -> Result<(), CallError> {
    if stopped(context) {
        return Err(crate::transport::status::work_deadline().into());
    }
    Ok(())
}

/// Hint, engine side; `context` (sampled hints on the blocking pool) stops the sampling when
/// its deadline passes or the call is cancelled. Checks `samples`, `colors` (when sampling),
/// `max_steps`, then the board.
///
/// # Errors
/// INVALID_ARGUMENT for an out-of-range field (`samples` also past
/// [`MAX_HINT_SAMPLED_CASCADES`]); FAILED_PRECONDITION for an unstable board;
/// RESOURCE_EXHAUSTED naming `max_steps` for a cascade past it; DEADLINE_EXCEEDED
/// (`WORK_DEADLINE`) when stopped by `context`.
pub fn hint(
    request: proto::SwapHintRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapHintResponse, Status> {
    Ok(hint_of(request, context)?)
}

/// The options of the NONE-refill cascades Hint ranks by (ResolveCascade's defaults), special
/// pieces created when `specials`.
pub(super) fn certain_options(
    max_steps: u32,
    specials: bool,
) -> Result<CascadeOptions, EngineError> {
    let options = cascade_options(&proto::ResolveCascadeRequest {
        refill: proto::RefillMode::None.into(),
        max_steps,
        ..Default::default()
    })?;
    Ok(CascadeOptions {
        specials,
        ..options
    })
}

/// The options of a RANDOM-refill cascade with `colors` (auto-shuffle on), special pieces
/// created when `specials`.
pub(super) fn random_options(
    colors: u32,
    max_steps: u32,
    specials: bool,
) -> Result<CascadeOptions, EngineError> {
    let options = cascade_options(&proto::ResolveCascadeRequest {
        colors,
        refill: proto::RefillMode::Random.into(),
        auto_shuffle: Some(true),
        max_steps,
        ..Default::default()
    })?;
    Ok(CascadeOptions {
        specials,
        ..options
    })
}

/// Every valid swap of `board` as a hint ranked by [`engine::ranked_swaps`] (the order
/// SwapHintResponse documents); `mean_sampled_score` left 0.
fn ranked_hints(
    board: &StableBoard,
    options: CascadeOptions,
    context: Option<&SearchContext>,
) -> Result<Vec<proto::SwapHint>, CallError> {
    let ranked = engine::ranked_swaps(board, options.specials, options.max_steps, || {
        !stopped(context)
    })?;
    let Some(ranked) = ranked else {
        return Err(crate::transport::status::work_deadline().into());
    };
    Ok(ranked
        .into_iter()
        .map(|ranked| proto::SwapHint {
            swap: Some(ranked.swap.into()),
            combination: proto::Combination::from(ranked.combination).into(),
            score: ranked.outcome.score,
            cleared: ranked.outcome.cleared as u32,
            specials_created: ranked.outcome.specials_created as u32,
            steps: ranked.outcome.steps,
            mean_sampled_score: 0.0,
        })
        .collect())
}

/// Hint on the engine: the certain outcome of every valid swap, then the sampled refills.
fn hint_of(
    request: proto::SwapHintRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapHintResponse, CallError> {
    if request.samples > MAX_HINT_SAMPLES {
        return Err(EngineError::InvalidParameter {
            field: "samples",
            reason: format!("must be 0..={MAX_HINT_SAMPLES}, got {}", request.samples),
        }
        .into());
    }
    // The sampled requests' options, checked once (the certain ones use NONE refill).
    cascade_options(&proto::ResolveCascadeRequest {
        colors: if request.samples > 0 {
            request.colors
        } else {
            1
        },
        max_steps: request.max_steps,
        ..Default::default()
    })?;
    let board = request
        .board
        .ok_or_else(|| crate::transport::convert::required("board"))?;
    let specials = plays_specials(&board);
    // The same board checks as CheckDeadState's.
    let stable = stable_board(Some(board))?;
    // The sample budget is checked before any cascade is run.
    let swap_count = engine::count_valid_swaps(&stable);
    if request.samples > 0 {
        let sampled = u64::from(request.samples) * swap_count as u64;
        if sampled > MAX_HINT_SAMPLED_CASCADES {
            return Err(EngineError::InvalidParameter {
                field: "samples",
                reason: format!(
                    "samples x valid swaps must be at most {MAX_HINT_SAMPLED_CASCADES}, got {} x {swap_count} = {sampled}",
                    request.samples,
                ),
            }
            .into());
        }
    }
    check_context(context)?;
    let certain = certain_options(request.max_steps, specials)?;
    let mut hints = ranked_hints(&stable, certain, context)?;
    let valid_swap_count = hints.len() as u32;
    if request.top_n > 0 {
        hints.truncate(request.top_n as usize);
    }
    if request.samples > 0 {
        let options = random_options(request.colors, request.max_steps, specials)?;
        for hint in &mut hints {
            let swap = swap_from_proto(hint.swap)?;
            let mut sum = 0f64;
            for i in 0..request.samples {
                check_context(context)?;
                let mut rng = engine::rng_from_seed(request.seed.wrapping_add(u64::from(i)));
                let played = engine::play_swap(stable.clone(), swap, options, &mut rng)?;
                sum += played.score as f64;
            }
            hint.mean_sampled_score = sum / f64::from(request.samples);
        }
    }
    Ok(proto::SwapHintResponse {
        hints,
        valid_swap_count,
    })
}
