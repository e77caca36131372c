//! `Hint` of the swap family (docs/rules.md section 7): every valid swap ranked by its certain
//! (NONE-refill) outcome, optionally with sampled refills. Plain boards take the engine's
//! [`engine::certain_outcomes_while`]; level boards (and [`hint_reference`]) go through
//! `ResolveCascade`'s own function swap by swap.

use tonic::Status;

use super::super::SearchContext;
use super::{cascade_options, check_dead_state, resolve_cascade, stable_board};
use crate::engine::{self, CascadeOptions, EngineError, StableBoard};
use crate::proto;
use crate::transport::convert::swap_from_proto;
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

/// The valid swaps of a proto board with their combinations (UNSPECIFIED on plain boards), as
/// CheckDeadState lists them.
pub(super) fn listed_swaps(board: &proto::Board) -> Result<Vec<(proto::Swap, i32)>, EngineError> {
    let listed = check_dead_state(proto::SwapCheckDeadStateRequest {
        board: Some(board.clone()),
    })?;
    let combinations = listed.combinations;
    Ok(listed
        .valid_swaps
        .into_iter()
        .enumerate()
        .map(|(i, swap)| (swap, combinations.get(i).copied().unwrap_or(0)))
        .collect())
}

/// Every valid swap of `board` with its certain outcome (its NONE-refill cascade), ranked as
/// SwapHintResponse documents; `mean_sampled_score` left 0.
pub(super) fn ranked_hints(
    board: &proto::Board,
    listed: Vec<(proto::Swap, i32)>,
    max_steps: u32,
    context: Option<&SearchContext>,
) -> Result<Vec<proto::SwapHint>, CallError> {
    let mut hints = Vec::new();
    for (swap, combination) in listed {
        check_context(context)?;
        let outcome = resolve_cascade(proto::ResolveCascadeRequest {
            board: Some(board.clone()),
            swap: Some(swap),
            refill: proto::RefillMode::None.into(),
            max_steps,
            ..Default::default()
        })?;
        let cleared: usize = outcome
            .steps
            .iter()
            .map(|s| s.groups.iter().map(|g| g.cells.len()).sum::<usize>() + s.effect_cleared.len())
            .sum();
        let specials: usize = outcome.steps.iter().map(|s| s.created.len()).sum();
        hints.push(proto::SwapHint {
            swap: Some(swap),
            combination,
            score: outcome.total_score,
            cleared: cleared as u32,
            specials_created: specials as u32,
            steps: outcome.steps.len() as u32,
            mean_sampled_score: 0.0,
        });
    }
    // Stable: equal keys keep CheckDeadState's row-major order (by a, then b).
    hints.sort_by(|x, y| {
        (y.score, y.cleared, y.specials_created).cmp(&(x.score, x.cleared, x.specials_created))
    });
    Ok(hints)
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
    Ok(hint_with(request, context, true)?)
}

/// [`hint`] through ResolveCascade requests only: the path of level boards, and the reference
/// the engine-level path of plain boards is tested against (same response).
///
/// # Errors
/// As [`hint`].
pub fn hint_reference(
    request: proto::SwapHintRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapHintResponse, Status> {
    Ok(hint_with(request, context, false)?)
}

/// A request's board as a stable engine board when it is plain (no holes, no kinds); `None`
/// for a level board.
///
/// # Errors
/// As CheckDeadState's board checks (malformed, unstable).
pub(super) fn plain_stable(board: &proto::Board) -> Result<Option<StableBoard>, EngineError> {
    let board = stable_board(Some(board.clone()))?;
    Ok((!board.has_layers()).then_some(board))
}

/// The options of the NONE-refill cascades Hint ranks by (ResolveCascade's defaults).
pub(super) fn certain_options(max_steps: u32) -> Result<CascadeOptions, EngineError> {
    cascade_options(&proto::ResolveCascadeRequest {
        refill: proto::RefillMode::None.into(),
        max_steps,
        ..Default::default()
    })
}

/// The options of a RANDOM-refill cascade with `colors` (auto-shuffle on).
pub(super) fn random_options(colors: u32, max_steps: u32) -> Result<CascadeOptions, EngineError> {
    cascade_options(&proto::ResolveCascadeRequest {
        colors,
        refill: proto::RefillMode::Random.into(),
        auto_shuffle: Some(true),
        max_steps,
        ..Default::default()
    })
}

/// [`ranked_hints`] of a plain stable board on the engine directly: each valid swap's
/// NONE-refill cascade by [`engine::certain_outcomes`] (no specials on a plain board).
fn plain_ranked_hints(
    board: &StableBoard,
    options: CascadeOptions,
    context: Option<&SearchContext>,
) -> Result<Vec<proto::SwapHint>, CallError> {
    let outcomes =
        engine::certain_outcomes_while(board, options.specials, options.max_steps, || {
            !stopped(context)
        })?;
    check_context(context)?;
    let mut hints: Vec<proto::SwapHint> = outcomes
        .into_iter()
        .map(|(swap, outcome)| proto::SwapHint {
            swap: Some(swap.into()),
            combination: 0,
            score: outcome.score,
            cleared: outcome.cleared as u32,
            specials_created: 0,
            steps: outcome.steps,
            mean_sampled_score: 0.0,
        })
        .collect();
    hints.sort_by_key(|h| std::cmp::Reverse((h.score, h.cleared)));
    Ok(hints)
}

/// The first of [`plain_ranked_hints`] without ranking the rest: the first valid swap in
/// row-major order with the highest (score, cleared). Every swap is still played, so a cascade
/// past `max_steps` is the same error.
pub(super) fn plain_best_swap(
    board: &StableBoard,
    options: CascadeOptions,
    context: Option<&SearchContext>,
) -> Result<Option<engine::Swap>, CallError> {
    let outcomes =
        engine::certain_outcomes_while(board, options.specials, options.max_steps, || {
            !stopped(context)
        })?;
    check_context(context)?;
    let mut best: Option<((u64, u64), engine::Swap)> = None;
    for (swap, outcome) in outcomes {
        let key = (outcome.score, outcome.cleared);
        if best.is_none_or(|(top, _)| key > top) {
            best = Some((key, swap));
        }
    }
    Ok(best.map(|(_, swap)| swap))
}

/// Hint by the engine-level path (`fast`, plain boards only) or through ResolveCascade.
fn hint_with(
    request: proto::SwapHintRequest,
    context: Option<&SearchContext>,
    fast: bool,
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
    let plain = if fast {
        // The same board checks as the reference's first (CheckDeadState's).
        plain_stable(&board)?
    } else {
        None
    };
    // The swaps to rank, listed (and the sample budget checked) before any cascade is run.
    let listed = match &plain {
        Some(_) => None,
        None => Some(listed_swaps(&board)?),
    };
    let swap_count = match (&plain, &listed) {
        (Some(stable), _) => engine::count_valid_swaps(stable),
        (None, Some(listed)) => listed.len(),
        (None, None) => 0,
    };
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
    let mut hints = match (&plain, listed) {
        (Some(stable), _) => {
            plain_ranked_hints(stable, certain_options(request.max_steps)?, context)?
        }
        (None, listed) => ranked_hints(
            &board,
            listed.unwrap_or_default(),
            request.max_steps,
            context,
        )?,
    };
    let valid_swap_count = hints.len() as u32;
    if request.top_n > 0 {
        hints.truncate(request.top_n as usize);
    }
    for hint in &mut hints {
        if request.samples == 0 {
            break;
        }
        let mut sum = 0f64;
        if let Some(stable) = &plain {
            let options = random_options(request.colors, request.max_steps)?;
            let swap = swap_from_proto(hint.swap)?;
            for i in 0..request.samples {
                check_context(context)?;
                let mut rng = engine::rng_from_seed(request.seed.wrapping_add(u64::from(i)));
                let played = engine::play_swap(stable.clone(), swap, options, &mut rng)?;
                sum += played.score as f64;
            }
            hint.mean_sampled_score = sum / f64::from(request.samples);
            continue;
        }
        for i in 0..request.samples {
            check_context(context)?;
            let outcome = resolve_cascade(proto::ResolveCascadeRequest {
                board: Some(board.clone()),
                swap: hint.swap,
                colors: request.colors,
                seed: request.seed.wrapping_add(u64::from(i)),
                refill: proto::RefillMode::Random.into(),
                max_steps: request.max_steps,
                ..Default::default()
            })?;
            sum += outcome.total_score as f64;
        }
        hint.mean_sampled_score = sum / f64::from(request.samples);
    }
    Ok(proto::SwapHintResponse {
        hints,
        valid_swap_count,
    })
}
