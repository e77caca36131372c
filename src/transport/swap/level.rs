//! Level play of the swap family (docs/rules.md section 8): the wire `Level`, `Goal` and
//! `LevelState` as engine values and back, and the `StartLevel` and `PlayMove` handlers. The
//! service keeps nothing: the client sends the level and its game's state with every move.

use tonic::Status;

use super::{MAX_MAX_STEPS, ReplySteps, within_reply_bounds};
use crate::engine::{self, EngineError, StableBoard};
use crate::proto;
use crate::transport::ServiceLimits;
use crate::transport::convert::{
    is_layout, layout_from_proto, required, swap_board_from_proto, swap_from_proto, unknown_enum,
};

/// Most moves a level may have.
pub const MAX_LEVEL_MOVES: u32 = 1_000;
/// Most goals a level may have.
pub const MAX_LEVEL_GOALS: usize = 8;
/// The cascade limit of a level's moves.
pub const LEVEL_MAX_STEPS: u32 = MAX_MAX_STEPS;

fn invalid(field: &'static str, reason: String) -> EngineError {
    EngineError::InvalidParameter { field, reason }
}

/// A wire goal as an engine goal, naming `level.goals`.
fn goal_from_proto(index: usize, goal: &proto::Goal) -> Result<engine::Goal, EngineError> {
    let kind = proto::GoalKind::try_from(goal.kind).map_err(|_| {
        invalid(
            "level.goals",
            format!("goal {index}: unknown goal kind {}", goal.kind),
        )
    })?;
    // Colours past a byte are out of range anyway; 255 keeps them out of range.
    let color = u8::try_from(goal.color).unwrap_or(u8::MAX);
    Ok(match kind {
        proto::GoalKind::Unspecified => {
            return Err(invalid(
                "level.goals",
                format!("goal {index}: the kind is required"),
            ));
        }
        proto::GoalKind::Score => engine::Goal::Score(goal.target),
        proto::GoalKind::ClearJelly => engine::Goal::ClearJelly,
        proto::GoalKind::Collect => engine::Goal::Collect {
            color,
            count: goal.target,
        },
        proto::GoalKind::ClearBlockers => engine::Goal::ClearBlockers,
        proto::GoalKind::BringDown => engine::Goal::BringDown(goal.target),
    })
}

/// Parses the required `level` of a request. Checks `level.colors`, `level.move_limit`,
/// `level.goals` (count, then each goal), then `level.board`: a layout when every cell is 0
/// ([`is_layout`]), else a board that must be stable.
///
/// # Errors
/// INVALID_ARGUMENT naming the field (`level`, `level.board` when either is absent; the
/// board's own fields as for any board); FAILED_PRECONDITION for an unstable board.
pub(super) fn level_from_proto(level: Option<proto::Level>) -> Result<engine::Level, EngineError> {
    let level = level.ok_or_else(|| required("level"))?;
    if !(2..=u32::from(engine::MAX_COLOR)).contains(&level.colors) {
        return Err(invalid(
            "level.colors",
            format!("must be 2..=16, got {}", level.colors),
        ));
    }
    if !(1..=MAX_LEVEL_MOVES).contains(&level.move_limit) {
        return Err(invalid(
            "level.move_limit",
            format!("must be 1..={MAX_LEVEL_MOVES}, got {}", level.move_limit),
        ));
    }
    if !(1..=MAX_LEVEL_GOALS).contains(&level.goals.len()) {
        return Err(invalid(
            "level.goals",
            format!(
                "a level has 1..={MAX_LEVEL_GOALS} goals, got {}",
                level.goals.len()
            ),
        ));
    }
    let goals = level
        .goals
        .iter()
        .enumerate()
        .map(|(index, goal)| goal_from_proto(index, goal))
        .collect::<Result<Vec<_>, _>>()?;
    let board = level.board.ok_or_else(|| required("level.board"))?;
    let start = if is_layout(&board) {
        engine::LevelStart::Layout(layout_from_proto(board)?)
    } else {
        engine::LevelStart::Board(StableBoard::try_from(swap_board_from_proto(Some(board))?)?)
    };
    engine::Level::new(start, level.colors as u8, level.move_limit, goals)
}

/// Parses the required `state` of a PlayMove request for `level`: its board (required, named
/// `state.board`), moves left, score, and the COLLECT and BRING_DOWN counts from `progress`
/// (one entry per entry sent; the engine names `state.progress` when that is not one per goal).
///
/// # Errors
/// INVALID_ARGUMENT naming `state` or `state.board` when absent, the board's fields when it is
/// malformed.
pub(super) fn state_from_proto(
    level: &engine::Level,
    state: Option<proto::LevelState>,
) -> Result<engine::LevelState, EngineError> {
    let state = state.ok_or_else(|| required("state"))?;
    let board = state.board.ok_or_else(|| required("state.board"))?;
    let counts = state
        .progress
        .iter()
        .enumerate()
        .map(|(index, progress)| match level.goals().get(index) {
            Some(engine::Goal::Collect { .. } | engine::Goal::BringDown(_)) => progress.value,
            _ => 0,
        })
        .collect();
    Ok(engine::LevelState {
        board: swap_board_from_proto(Some(board))?,
        moves_left: state.moves_left,
        score: state.score,
        counts,
    })
}

/// A level status on the wire.
pub(super) fn status_to_proto(status: engine::LevelStatus) -> proto::LevelStatus {
    match status {
        engine::LevelStatus::Playing => proto::LevelStatus::Playing,
        engine::LevelStatus::Won => proto::LevelStatus::Won,
        engine::LevelStatus::LostOutOfMoves => proto::LevelStatus::LostOutOfMoves,
        engine::LevelStatus::LostDead => proto::LevelStatus::LostDead,
    }
}

/// Each goal's progress in `state`, on the wire.
pub(super) fn progress_to_proto(
    level: &engine::Level,
    state: &engine::LevelState,
) -> Vec<proto::GoalProgress> {
    level
        .progress(state)
        .into_iter()
        .map(|progress| proto::GoalProgress {
            value: progress.value,
            met: progress.met,
        })
        .collect()
}

/// A state of `level` on the wire, with `status`: the board with every layer list in full.
pub(super) fn state_to_proto(
    level: &engine::Level,
    state: &engine::LevelState,
    status: engine::LevelStatus,
) -> proto::LevelState {
    proto::LevelState {
        board: Some((&state.board).into()),
        moves_left: state.moves_left,
        score: state.score,
        progress: progress_to_proto(level, state),
        status: status_to_proto(status).into(),
    }
}

/// The first state of a game of `level` for `seed`: the start board, or one generated on the
/// layout with `rng_from_seed(seed)` (a layout no board can be generated on is named
/// `level.board`).
///
/// # Errors
/// As [`engine::Level::first_state`].
pub(super) fn first_state(
    level: &engine::Level,
    seed: u64,
) -> Result<engine::LevelState, EngineError> {
    let mut rng = engine::rng_from_seed(seed);
    level.first_state(&mut rng).map_err(in_level_board)
}

/// `error` of a generation on a level's layout, naming `level.board` instead of `layout`.
pub(super) fn in_level_board(error: EngineError) -> EngineError {
    match error {
        EngineError::InvalidParameter {
            field: "layout",
            reason,
        } => invalid("level.board", reason),
        other => other,
    }
}

/// StartLevel, engine side.
///
/// # Errors
/// As `level_from_proto` and `first_state` (the level and its start).
pub fn start_level(
    request: proto::StartLevelRequest,
) -> Result<proto::StartLevelResponse, EngineError> {
    let level = level_from_proto(request.level)?;
    let state = first_state(&level, request.seed)?;
    let status = level.status(&state);
    Ok(proto::StartLevelResponse {
        state: Some(state_to_proto(&level, &state, status)),
    })
}

/// Plays `swap` on `state` of `level` with `seed` ([`engine::play_level_move`]), checked in
/// the order PlayMoveRequest documents: a position off the board, the state's fit to the
/// level (`state.moves_left`, `state.progress`), a state already WON or LOST_OUT_OF_MOVES
/// (LEVEL_OVER), an unstable board (UNSTABLE_BOARD: a state whose board is not stable has no
/// status to speak of, so it is not called LOST_DEAD), a stable one with no valid swap
/// (LEVEL_OVER, LOST_DEAD), then the swap's verdict.
///
/// # Errors
/// As [`engine::play_level_move`].
pub(super) fn play_level<S: engine::StepSink + ?Sized>(
    level: &engine::Level,
    state: &engine::LevelState,
    swap: engine::Swap,
    seed: u64,
    sink: &mut S,
) -> Result<engine::LevelMove, EngineError> {
    engine::check_swap_positions(state.board.colors(), swap)?;
    if state.moves_left > level.move_limit() {
        return Err(invalid(
            "state.moves_left",
            format!(
                "{} moves left is more than the level's limit of {}",
                state.moves_left,
                level.move_limit()
            ),
        ));
    }
    let mut rng = engine::rng_from_seed(seed);
    match engine::play_level_move_into(level, state, swap, LEVEL_MAX_STEPS, (&mut rng, sink)) {
        // The engine calls an unstable board LOST_DEAD (it has no swap); the wire names the
        // board's trouble instead. Checked only on this refusal, so a move pays one check.
        Err(EngineError::LevelOver {
            status: engine::LevelStatus::LostDead,
        }) => {
            StableBoard::try_from(state.board.clone())?;
            Err(EngineError::LevelOver {
                status: engine::LevelStatus::LostDead,
            })
        }
        played => played,
    }
}

/// PlayMove, engine side: `level`, `state` and `swap` required, in that order.
///
/// # Errors
/// INVALID_ARGUMENT naming the missing or malformed field; the errors of `play_level`.
pub fn play_move(request: proto::PlayMoveRequest) -> Result<proto::PlayMoveResponse, EngineError> {
    let mut reply_steps = ReplySteps::new(request.include_step_boards, usize::MAX, None);
    play_move_into(request, &mut reply_steps)
}

/// PlayMove within the server's reply limit and request timeout, as ResolveCascade's
/// [`super::resolve_cascade_bounded`]: the steps are converted and measured as the engine
/// makes them; a cascade whose steps pass `max_response_bytes` stops there with
/// RESOURCE_EXHAUSTED (`CASCADE_TOO_LARGE`), one still running past the request timeout with
/// DEADLINE_EXCEEDED (`WORK_DEADLINE`).
///
/// # Errors
/// As [`play_move`], plus `CASCADE_TOO_LARGE` and `WORK_DEADLINE`.
pub fn play_move_bounded(
    request: proto::PlayMoveRequest,
    limits: ServiceLimits,
) -> Result<proto::PlayMoveResponse, Status> {
    let include_step_boards = request.include_step_boards;
    within_reply_bounds(include_step_boards, limits, |reply_steps| {
        play_move_into(request, reply_steps)
    })
}

/// PlayMove, its steps built by `reply_steps`.
fn play_move_into(
    request: proto::PlayMoveRequest,
    reply_steps: &mut ReplySteps,
) -> Result<proto::PlayMoveResponse, EngineError> {
    let level = level_from_proto(request.level)?;
    let state = state_from_proto(&level, request.state)?;
    let swap = swap_from_proto(request.swap)?;
    let played = play_level(&level, &state, swap, request.seed, reply_steps)?;
    Ok(proto::PlayMoveResponse {
        steps: std::mem::take(&mut reply_steps.steps),
        state: Some(state_to_proto(&level, &played.state, played.status)),
        shuffled: played.board_before_shuffle.is_some(),
        board_before_shuffle: played.board_before_shuffle.as_ref().map(Into::into),
    })
}

/// A `LevelPolicy` field and the search options of a Simulate request as the engine's policy:
/// GREEDY by default; SEARCH with `search_candidates` 1..=16 (0 means 4), `search_rollouts`
/// 1..=64 (0 means 8), `search_depth` 0..=30 (unset means 3).
///
/// # Errors
/// INVALID_ARGUMENT naming the field out of range (the search fields are checked only for
/// SEARCH).
pub(super) fn policy_from_proto(
    request: &proto::SwapSimulateRequest,
) -> Result<engine::LevelPolicy, EngineError> {
    let policy = proto::LevelPolicy::try_from(request.level_policy)
        .map_err(|_| unknown_enum("level_policy", request.level_policy))?;
    if policy != proto::LevelPolicy::Search {
        return Ok(engine::LevelPolicy::Greedy);
    }
    let candidates = match request.search_candidates {
        0 => 4,
        n @ 1..=16 => n,
        n => {
            return Err(invalid(
                "search_candidates",
                format!("must be 1..=16, got {n}"),
            ));
        }
    };
    let rollouts = match request.search_rollouts {
        0 => 8,
        n @ 1..=64 => n,
        n => {
            return Err(invalid(
                "search_rollouts",
                format!("must be 1..=64, got {n}"),
            ));
        }
    };
    let depth = match request.search_depth {
        None => 3,
        Some(n @ 0..=30) => n,
        Some(n) => return Err(invalid("search_depth", format!("must be 0..=30, got {n}"))),
    };
    Ok(engine::LevelPolicy::Search {
        candidates,
        rollouts,
        depth,
    })
}
