//! The game-server features of the swap family (docs/rules.md section 7): `ReplayGame`,
//! `Hint` and `Simulate`. Plain boards take engine-level paths; level boards (and the
//! `*_reference` functions the fast paths are tested against) go through `ResolveCascade`'s
//! own function move by move, so every answer equals the calls in sequence.

use super::*;
use crate::transport::status::{CallError, engine_status};
/// Most moves one `ReplayGame` takes: 1000. More is INVALID_ARGUMENT naming `moves`.
pub const MAX_REPLAY_MOVES: usize = 1_000;

/// The ResolveCascade request of a replayed move on `board`.
fn move_request(board: proto::Board, play: &proto::SwapMove) -> proto::ResolveCascadeRequest {
    proto::ResolveCascadeRequest {
        board: Some(board),
        swap: play.swap,
        colors: play.colors,
        seed: play.seed,
        refill: play.refill,
        auto_shuffle: play.auto_shuffle,
        max_steps: play.max_steps,
        include_step_boards: false,
    }
}

/// The verdict an engine error says about a swap: OUT_OF_BOUNDS for an off-board swap
/// position, the illegal-swap verdict, UNSPECIFIED for anything else.
fn refusal_verdict(error: &EngineError) -> proto::SwapVerdict {
    match error {
        EngineError::PositionOffBoard {
            field: "swap.a" | "swap.b",
            ..
        } => proto::SwapVerdict::OutOfBounds,
        EngineError::IllegalSwap(rejection) => {
            proto::SwapVerdict::from(engine::SwapVerdict::from(*rejection))
        }
        _ => proto::SwapVerdict::Unspecified,
    }
}

/// The status ResolveCascade answers for `error` within `limits` (as
/// [`resolve_cascade_bounded`] maps it).
fn cascade_status(error: EngineError, limits: ServiceLimits) -> Status {
    match error {
        EngineError::CascadeStopped { steps } => {
            crate::transport::status::cascade_too_large(steps, limits.max_response_bytes, false)
        }
        other => engine_status(other),
    }
}

/// The SHA-256 digest of a swap-family board as ReplayGame documents it: the plain board
/// digest, or the level digest for a board carrying `holes`/`kinds`.
///
/// # Errors
/// As the board conversion (a malformed board).
pub fn swap_board_digest(board: &proto::Board) -> Result<[u8; 32], EngineError> {
    Ok(match swap_board_from_proto(Some(board.clone()))? {
        SwapBoard::Plain(board) => engine::board_digest(&board),
        SwapBoard::Level(level) => engine::level_board_digest(&level),
    })
}

/// ReplayGame, engine side: each move is the ResolveCascade request made of its fields on the
/// board the previous one returned, resolved by the same function as ResolveCascade within
/// `limits` (so its reply-size refusal is the same too).
///
/// # Errors
/// INVALID_ARGUMENT for more than [`MAX_REPLAY_MOVES`] moves (naming `moves`), a missing start,
/// a malformed board, or a generation request GenerateBoard refuses. Refused moves are not
/// errors: the first is reported in the response.
pub fn replay_game(
    request: proto::SwapReplayGameRequest,
    limits: ServiceLimits,
) -> Result<proto::SwapReplayGameResponse, EngineError> {
    if let Some(response) = plain_replay(&request, limits)? {
        return Ok(response);
    }
    replay_game_reference(request, limits)
}

/// [`replay_game`] through ResolveCascade requests only: the path of level boards, and the
/// reference the engine-level path of plain boards is tested against (same response).
///
/// # Errors
/// As [`replay_game`].
pub fn replay_game_reference(
    request: proto::SwapReplayGameRequest,
    limits: ServiceLimits,
) -> Result<proto::SwapReplayGameResponse, EngineError> {
    use proto::swap_replay_game_request::Start;
    if request.moves.len() > MAX_REPLAY_MOVES {
        return Err(EngineError::InvalidParameter {
            field: "moves",
            reason: format!(
                "at most {MAX_REPLAY_MOVES} moves per replay, got {}",
                request.moves.len()
            ),
        });
    }
    let (start, generated) = match request.start {
        Some(Start::Board(board)) => {
            // Malformed boards fail the whole call; stability is the first move's business.
            swap_board_from_proto(Some(board.clone()))?;
            (board, false)
        }
        Some(Start::Generate(generate)) => {
            let board = generate_board(generate)
                .map_err(crate::transport::convert::in_generate_start)?
                .board
                .ok_or_else(|| crate::transport::convert::required("board"))?;
            (board, true)
        }
        None => return Err(crate::transport::convert::required("start")),
    };
    let mut board = start.clone();
    let mut moves = Vec::with_capacity(request.moves.len());
    let mut total_score = 0u64;
    let mut rejected = None;
    for (index, play) in request.moves.iter().enumerate() {
        match resolve_cascade_within(move_request(board.clone(), play), limits.max_response_bytes) {
            Ok(response) => {
                total_score = total_score.saturating_add(response.total_score);
                moves.push(proto::SwapReplayMove {
                    swap: play.swap,
                    score: response.total_score,
                    steps: response.steps.len() as u32,
                    shuffled: response.shuffled,
                    dead: response.dead,
                    stable: response.stable,
                    valid_swap_count: response.valid_swap_count,
                });
                if let Some(next) = response.board {
                    board = next;
                }
            }
            Err(error) => {
                let verdict = refusal_verdict(&error);
                let status = cascade_status(error, limits);
                rejected = Some(proto::SwapReplayRejection {
                    index: index as u32,
                    swap: play.swap,
                    verdict: verdict.into(),
                    code: status.code() as u32,
                    reason: error_reason(&status),
                    message: status.message().to_owned(),
                });
                break;
            }
        }
    }
    Ok(proto::SwapReplayGameResponse {
        moves,
        total_score,
        board_digest: swap_board_digest(&board)?.to_vec(),
        board: Some(board),
        rejected,
        start_board: generated.then_some(start),
    })
}

/// An upper bound on the encoded bytes one cascade step (without its board) of a plain board
/// of `cells` cells adds to a ResolveCascade reply: each cell is at most once in a group
/// (a position is at most 6 bytes, a group's own fields at most 6 more), once a fall (14) and
/// once a spawn (10); the index, score and the step's own tag and length fit in 64.
fn plain_step_bytes_bound(cells: usize) -> u64 {
    64 * cells as u64 + 64
}

/// A plain replay's board between moves: stable, or not (NONE refill left empty cells).
enum PlainBoard {
    Stable(StableBoard),
    Unstable(engine::Board),
}

impl PlainBoard {
    fn of(board: engine::Board) -> Self {
        match StableBoard::try_from(board.clone()) {
            Ok(stable) => Self::Stable(stable),
            Err(_) => Self::Unstable(board),
        }
    }

    fn board(&self) -> &engine::Board {
        match self {
            Self::Stable(stable) => stable.board(),
            Self::Unstable(board) => board,
        }
    }
}

/// One replayed move of a plain board played on the engine directly: `None` when the move is
/// not a swap on a stable board with valid options, when the engine refuses it, or when its
/// reply could pass `limit` bytes — the cases ResolveCascade itself must answer.
fn plain_move(
    board: &StableBoard,
    play: &proto::SwapMove,
    limit: usize,
) -> Option<(proto::SwapReplayMove, PlainBoard)> {
    let options = cascade_options(&proto::ResolveCascadeRequest {
        colors: play.colors,
        refill: play.refill,
        auto_shuffle: play.auto_shuffle,
        max_steps: play.max_steps,
        ..Default::default()
    })
    .ok()?;
    let swap = swap_from_proto(Some(play.swap?)).ok()?;
    let mut rng = engine::rng_from_seed(play.seed);
    let played = engine::play_swap(board.clone(), swap, options, &mut rng).ok()?;
    let cells = board.board().cells().len();
    if u64::from(played.steps).saturating_mul(plain_step_bytes_bound(cells)) > limit as u64 {
        return None;
    }
    let mut reported = proto::SwapReplayMove {
        swap: play.swap,
        score: played.score,
        steps: played.steps,
        shuffled: played.shuffled,
        dead: played.dead,
        stable: played.stable,
        valid_swap_count: 0,
    };
    let next = if played.stable {
        let stable = played.into_stable()?;
        reported.valid_swap_count = engine::count_valid_swaps(&stable) as u32;
        PlainBoard::Stable(stable)
    } else {
        PlainBoard::Unstable(played.board)
    };
    Some((reported, next))
}

/// [`replay_game`] of a plain start board on the engine directly: every swap on a stable
/// board is played with [`engine::play_swap`]; any other move (no swap, an unstable board, a
/// refusal, a reply that could be too large) is answered by ResolveCascade as in
/// [`replay_game_reference`], so the response is the same. `None` for a level board or a start
/// the reference must judge.
fn plain_replay(
    request: &proto::SwapReplayGameRequest,
    limits: ServiceLimits,
) -> Result<Option<proto::SwapReplayGameResponse>, EngineError> {
    use proto::swap_replay_game_request::Start;
    if request.moves.len() > MAX_REPLAY_MOVES {
        return Ok(None);
    }
    let (start, generated) = match &request.start {
        Some(Start::Board(board)) => (board.clone(), false),
        Some(Start::Generate(generate)) if generate.holes.is_empty() => {
            match generate_board(generate.clone())
                .map_err(crate::transport::convert::in_generate_start)?
                .board
            {
                Some(board) => (board, true),
                None => return Ok(None),
            }
        }
        _ => return Ok(None),
    };
    let SwapBoard::Plain(first) = swap_board_from_proto(Some(start.clone()))? else {
        return Ok(None);
    };
    let mut board = PlainBoard::of(first);
    // The proto board of the last answered move; the start until one is.
    let mut last: Option<proto::Board> = None;
    let mut moves = Vec::with_capacity(request.moves.len());
    let mut total_score = 0u64;
    let mut rejected = None;
    for (index, play) in request.moves.iter().enumerate() {
        let fast = match &board {
            PlainBoard::Stable(stable) => plain_move(stable, play, limits.max_response_bytes),
            PlainBoard::Unstable(_) => None,
        };
        if let Some((reported, next)) = fast {
            total_score = total_score.saturating_add(reported.score);
            moves.push(reported);
            board = next;
            last = None;
            continue;
        }
        let current = match last.take() {
            Some(current) => current,
            None if moves.is_empty() => start.clone(),
            None => board.board().into(),
        };
        match resolve_cascade_within(move_request(current, play), limits.max_response_bytes) {
            Ok(response) => {
                total_score = total_score.saturating_add(response.total_score);
                moves.push(proto::SwapReplayMove {
                    swap: play.swap,
                    score: response.total_score,
                    steps: response.steps.len() as u32,
                    shuffled: response.shuffled,
                    dead: response.dead,
                    stable: response.stable,
                    valid_swap_count: response.valid_swap_count,
                });
                let Some(next) = response.board else {
                    return Ok(None);
                };
                let SwapBoard::Plain(engine_board) = swap_board_from_proto(Some(next.clone()))?
                else {
                    return Ok(None);
                };
                board = PlainBoard::of(engine_board);
                last = Some(next);
            }
            Err(error) => {
                let verdict = refusal_verdict(&error);
                let status = cascade_status(error, limits);
                rejected = Some(proto::SwapReplayRejection {
                    index: index as u32,
                    swap: play.swap,
                    verdict: verdict.into(),
                    code: status.code() as u32,
                    reason: error_reason(&status),
                    message: status.message().to_owned(),
                });
                break;
            }
        }
    }
    let board = match last {
        Some(board) => board,
        None if moves.is_empty() => start.clone(),
        None => board.board().into(),
    };
    Ok(Some(proto::SwapReplayGameResponse {
        moves,
        total_score,
        board_digest: swap_board_digest(&board)?.to_vec(),
        board: Some(board),
        rejected,
        start_board: generated.then_some(start),
    }))
}

/// The `google.rpc.ErrorInfo` reason of a status this server made; empty without one.
fn error_reason(status: &Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .error_info()
        .map(|info| info.reason.clone())
        .unwrap_or_default()
}

/// Most sampled refills per swap in `Hint`.
pub const MAX_HINT_SAMPLES: u32 = 1_000;
/// Most sampled cascades in one `Hint`: samples times valid swaps.
pub const MAX_HINT_SAMPLED_CASCADES: u64 = 100_000;

/// True when `context`'s deadline has passed or its call was cancelled.
fn stopped(context: Option<&SearchContext>) -> bool {
    context.is_some_and(|context| {
        context.cancel.load(std::sync::atomic::Ordering::Relaxed)
            || context
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    })
}

/// `Err(WORK_DEADLINE)` when `context`'s deadline has passed or its call was cancelled.
fn check_context(context: Option<&SearchContext>) -> Result<(), CallError> {
    if stopped(context) {
        return Err(crate::transport::status::work_deadline().into());
    }
    Ok(())
}

/// The valid swaps of a proto board with their combinations (UNSPECIFIED on plain boards), as
/// CheckDeadState lists them.
fn listed_swaps(board: &proto::Board) -> Result<Vec<(proto::Swap, i32)>, EngineError> {
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
fn ranked_hints(
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
fn plain_stable(board: &proto::Board) -> Result<Option<StableBoard>, EngineError> {
    match stable_board(Some(board.clone()))? {
        Stable::Plain(board) => Ok(Some(board)),
        Stable::Level(_) => Ok(None),
    }
}

/// The options of the NONE-refill cascades Hint ranks by (ResolveCascade's defaults).
fn certain_options(max_steps: u32) -> Result<CascadeOptions, EngineError> {
    cascade_options(&proto::ResolveCascadeRequest {
        refill: proto::RefillMode::None.into(),
        max_steps,
        ..Default::default()
    })
}

/// The options of a RANDOM-refill cascade with `colors` (auto-shuffle on).
fn random_options(colors: u32, max_steps: u32) -> Result<CascadeOptions, EngineError> {
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
    let outcomes = engine::certain_outcomes_while(board, options.max_steps, || !stopped(context))?;
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
fn plain_best_swap(
    board: &StableBoard,
    options: CascadeOptions,
    context: Option<&SearchContext>,
) -> Result<Option<engine::Swap>, CallError> {
    let outcomes = engine::certain_outcomes_while(board, options.max_steps, || !stopped(context))?;
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

/// Most games in one `Simulate`.
pub const MAX_SIMULATE_GAMES: u32 = 1_000;
/// Most moves per game in one `Simulate`.
pub const MAX_SIMULATE_MOVES: u32 = 1_000;
/// Most moves in one `Simulate`: games times moves.
pub const MAX_SIMULATE_TOTAL_MOVES: u64 = 100_000;

/// One simulated game's tallies.
#[derive(Default)]
struct GameTally {
    score: u64,
    moves: u64,
    steps: u64,
    shuffles: u64,
    dead: bool,
}

/// Plays game `index` of a simulation as SwapSimulateRequest documents.
fn simulate_game(
    start: &proto::Board,
    request: &proto::SwapSimulateRequest,
    policy: proto::SwapPolicy,
    colors: u32,
    index: u32,
    context: Option<&SearchContext>,
) -> Result<GameTally, CallError> {
    use rand::{Rng, RngCore};
    let mut rng = engine::rng_from_seed(request.seed.wrapping_add(u64::from(index)));
    let mut board = start.clone();
    let mut tally = GameTally::default();
    for _ in 0..request.moves {
        check_context(context)?;
        let swap = match policy {
            proto::SwapPolicy::Random => {
                let listed = listed_swaps(&board)?;
                if listed.is_empty() {
                    tally.dead = true;
                    break;
                }
                listed[rng.random_range(0..listed.len())].0
            }
            proto::SwapPolicy::Unspecified | proto::SwapPolicy::HintGreedy => {
                match ranked_hints(&board, listed_swaps(&board)?, request.max_steps, context)?
                    .first()
                    .and_then(|h| h.swap)
                {
                    Some(swap) => swap,
                    None => {
                        tally.dead = true;
                        break;
                    }
                }
            }
        };
        let outcome = resolve_cascade(proto::ResolveCascadeRequest {
            board: Some(board),
            swap: Some(swap),
            colors,
            seed: rng.next_u64(),
            refill: proto::RefillMode::Random.into(),
            auto_shuffle: Some(true),
            max_steps: request.max_steps,
            include_step_boards: false,
        })?;
        tally.score = tally.score.saturating_add(outcome.total_score);
        tally.moves += 1;
        tally.steps += outcome.steps.len() as u64;
        tally.shuffles += u64::from(outcome.shuffled);
        board = outcome
            .board
            .ok_or_else(|| Status::internal("cascade without a board"))?;
        if outcome.dead {
            tally.dead = true;
            break;
        }
    }
    Ok(tally)
}

/// [`simulate_game`] on a plain stable start, on the engine directly: the same derivation
/// (game `index`'s RNG seeded with `seed + index`, the policy's pick from
/// [`engine::valid_swaps`] or the top hint, `next_u64()` as the move's seed), each move played
/// with [`engine::play_swap`].
fn simulate_plain_game(
    start: &StableBoard,
    request: &proto::SwapSimulateRequest,
    policy: proto::SwapPolicy,
    colors: u32,
    index: u32,
    context: Option<&SearchContext>,
) -> Result<GameTally, CallError> {
    use rand::{Rng, RngCore};
    let certain = certain_options(request.max_steps)?;
    let options = random_options(colors, request.max_steps)?;
    let mut rng = engine::rng_from_seed(request.seed.wrapping_add(u64::from(index)));
    let mut board = start.clone();
    let mut tally = GameTally::default();
    for played_moves in 0..request.moves {
        check_context(context)?;
        let swap = match policy {
            proto::SwapPolicy::Random => {
                let listed = engine::valid_swaps(&board);
                if listed.is_empty() {
                    tally.dead = true;
                    break;
                }
                listed[rng.random_range(0..listed.len())]
            }
            proto::SwapPolicy::Unspecified | proto::SwapPolicy::HintGreedy => {
                match plain_best_swap(&board, certain, context)? {
                    Some(swap) => swap,
                    None => {
                        tally.dead = true;
                        break;
                    }
                }
            }
        };
        let mut move_rng = engine::rng_from_seed(rng.next_u64());
        let played = engine::play_swap(board, swap, options, &mut move_rng)?;
        tally.score = tally.score.saturating_add(played.score);
        tally.moves += 1;
        tally.steps += u64::from(played.steps);
        tally.shuffles += u64::from(played.shuffled);
        if played.dead {
            tally.dead = true;
            break;
        }
        if !played.stable {
            // RANDOM refill leaves no empty cell; were one left, the next move's board check
            // would refuse it, as in the reference.
            if played_moves + 1 < request.moves {
                check_context(context)?;
                StableBoard::try_from(played.board)?;
            }
            break;
        }
        board = match played.into_stable() {
            Some(next) => next,
            None => break,
        };
    }
    Ok(tally)
}

/// The nearest-rank `p`-th percentile of ascending `sorted` (not empty): the element of rank
/// ceil(p * N / 100), 1-based.
fn nearest_rank(sorted: &[u64], p: usize) -> u64 {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or(0)
}

fn simulate_limit(field: &'static str, reason: String) -> CallError {
    EngineError::InvalidParameter { field, reason }.into()
}

/// Simulate, engine side; `context` stops it (DEADLINE_EXCEEDED, `WORK_DEADLINE`) when its
/// deadline passes or the call is cancelled. Checks `games`, `moves`, their product, `policy`,
/// `colors`, `max_steps`, then the start.
///
/// # Errors
/// INVALID_ARGUMENT naming the field out of range; FAILED_PRECONDITION for an unstable start
/// board; RESOURCE_EXHAUSTED naming `max_steps` for a cascade past it.
pub fn simulate(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapSimulateResponse, Status> {
    Ok(simulate_with(request, context, true)?)
}

/// [`simulate`] through ResolveCascade requests only: the path of level boards, and the
/// reference the engine-level path of plain boards is tested against (same response).
///
/// # Errors
/// As [`simulate`].
pub fn simulate_reference(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapSimulateResponse, Status> {
    Ok(simulate_with(request, context, false)?)
}

/// Simulate by the engine-level path (`fast`, plain boards only) or through ResolveCascade.
fn simulate_with(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
    fast: bool,
) -> Result<proto::SwapSimulateResponse, CallError> {
    use proto::swap_simulate_request::Start;
    if !(1..=MAX_SIMULATE_GAMES).contains(&request.games) {
        return Err(simulate_limit(
            "games",
            format!("must be 1..={MAX_SIMULATE_GAMES}, got {}", request.games),
        ));
    }
    if !(1..=MAX_SIMULATE_MOVES).contains(&request.moves) {
        return Err(simulate_limit(
            "moves",
            format!("must be 1..={MAX_SIMULATE_MOVES}, got {}", request.moves),
        ));
    }
    let total = u64::from(request.games) * u64::from(request.moves);
    if total > MAX_SIMULATE_TOTAL_MOVES {
        return Err(simulate_limit(
            "moves",
            format!(
                "games x moves must be at most {MAX_SIMULATE_TOTAL_MOVES}, got {} x {} = {total}",
                request.games, request.moves
            ),
        ));
    }
    let policy = proto::SwapPolicy::try_from(request.policy)
        .map_err(|_| unknown_enum("policy", request.policy))?;
    // The start first (a missing one, or a generation request's own fields, named as such),
    // then the moves' options.
    let (start, generated) = match &request.start {
        Some(Start::Board(board)) => (board.clone(), false),
        Some(Start::Generate(generate)) => (
            generate_board(generate.clone())
                .map_err(crate::transport::convert::in_generate_start)?
                .board
                .ok_or_else(|| Status::internal("generation without a board"))?,
            true,
        ),
        None => return Err(crate::transport::convert::required("start").into()),
    };
    let colors = match (&request.start, request.colors) {
        (Some(Start::Generate(generate)), 0) => generate.colors,
        (_, colors) => colors,
    };
    cascade_options(&proto::ResolveCascadeRequest {
        colors,
        max_steps: request.max_steps,
        ..Default::default()
    })?;
    // The start must be stable (the error CheckDeadState gives otherwise).
    let plain = if fast {
        plain_stable(&start)?
    } else {
        listed_swaps(&start)?;
        None
    };
    let mut scores = Vec::with_capacity(request.games as usize);
    let (mut moves_played, mut steps, mut shuffles, mut dead_games) = (0u64, 0u64, 0u64, 0u32);
    for index in 0..request.games {
        let tally = match &plain {
            Some(stable) => simulate_plain_game(stable, &request, policy, colors, index, context)?,
            None => simulate_game(&start, &request, policy, colors, index, context)?,
        };
        scores.push(tally.score);
        moves_played += tally.moves;
        steps += tally.steps;
        shuffles += tally.shuffles;
        dead_games += u32::from(tally.dead);
    }
    let mut sorted = scores.clone();
    sorted.sort_unstable();
    let games = f64::from(request.games);
    Ok(proto::SwapSimulateResponse {
        mean_score: scores.iter().map(|&s| s as f64).sum::<f64>() / games,
        p10_score: nearest_rank(&sorted, 10),
        p50_score: nearest_rank(&sorted, 50),
        p90_score: nearest_rank(&sorted, 90),
        min_score: sorted.first().copied().unwrap_or(0),
        max_score: sorted.last().copied().unwrap_or(0),
        game_scores: scores,
        moves_played,
        shuffles,
        mean_shuffles: shuffles as f64 / games,
        mean_cascade_depth: if moves_played == 0 {
            0.0
        } else {
            steps as f64 / moves_played as f64
        },
        dead_games,
        start_board: generated.then_some(start),
    })
}
