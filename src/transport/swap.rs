//! `matchgrid.v1.SwapPuzzle`: thin handlers over the swap engine.

use std::ops::ControlFlow;
use std::time::Instant;

use prost::Message;
use tonic::{Request, Response, Status};

use super::{
    INLINE_CELL_LIMIT, Placement, SEARCH_INLINE_CELL_LIMIT, SearchContext, ServiceLimits,
    board_cells, cells, run_engine, run_search,
};

use super::convert::{
    SwapBoard, cascade_step_to_proto, level_step_to_proto, swap_board_from_proto, swap_from_proto,
    unknown_enum,
};
use crate::engine::level::{self, LevelBoard, StableLevel};
use crate::engine::{self, CascadeOptions, EngineError, Refill, StableBoard};
use crate::proto::{self, swap_puzzle_server::SwapPuzzle};

/// Default `max_steps` of ResolveCascade.
pub const DEFAULT_MAX_STEPS: u32 = 200;
/// Largest accepted `max_steps`.
pub const MAX_MAX_STEPS: u32 = 1_000;

/// The stateless SwapPuzzle service.
#[derive(Clone, Copy, Debug, Default)]
pub struct SwapService {
    /// Response size limit.
    pub limits: ServiceLimits,
}

/// A stable swap-family board: plain (sections 1-2) or a level board (section 6).
enum Stable {
    Plain(StableBoard),
    Level(StableLevel),
}

fn stable_board(board: Option<proto::Board>) -> Result<Stable, EngineError> {
    Ok(match swap_board_from_proto(board)? {
        SwapBoard::Plain(board) => Stable::Plain(StableBoard::try_from(board)?),
        SwapBoard::Level(level) => Stable::Level(StableLevel::try_from(level)?),
    })
}

/// Parses a ResolveCascadeRequest's options.
fn cascade_options(request: &proto::ResolveCascadeRequest) -> Result<CascadeOptions, EngineError> {
    let refill = match proto::RefillMode::try_from(request.refill)
        .map_err(|_| unknown_enum("refill", request.refill))?
    {
        proto::RefillMode::Unspecified | proto::RefillMode::Random => {
            if !(1..=u32::from(engine::MAX_COLOR)).contains(&request.colors) {
                return Err(EngineError::InvalidParameter {
                    field: "colors",
                    reason: format!("must be 1..=16 for RANDOM refill, got {}", request.colors),
                });
            }
            Refill::Random {
                colors: request.colors as u8,
            }
        }
        proto::RefillMode::None => Refill::None,
    };
    let max_steps = match request.max_steps {
        0 => DEFAULT_MAX_STEPS,
        n @ 1..=MAX_MAX_STEPS => n,
        n => {
            return Err(EngineError::InvalidParameter {
                field: "max_steps",
                reason: format!("must be 1..=1000 (0 means 200), got {n}"),
            });
        }
    };
    Ok(CascadeOptions {
        refill,
        auto_shuffle: request.auto_shuffle.unwrap_or(true),
        max_steps,
    })
}

/// GenerateBoard, engine side.
pub fn generate_board(
    request: proto::SwapGenerateBoardRequest,
) -> Result<proto::SwapGenerateBoardResponse, EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    let size = engine::GenerationSize::for_swap(request.width, request.height, request.colors)?;
    let min_moves = request.min_moves.unwrap_or(1);
    if !request.holes.is_empty() {
        let (level, count) = level::generate_level_board(size, min_moves, request.holes, &mut rng)?;
        return Ok(proto::SwapGenerateBoardResponse {
            board: Some(level.level().into()),
            valid_swap_count: count as u32,
        });
    }
    let (board, count) = engine::generate_swap_board(size, min_moves, &mut rng)?;
    Ok(proto::SwapGenerateBoardResponse {
        board: Some(board.board().into()),
        valid_swap_count: count as u32,
    })
}

/// ValidateSwap, engine side.
pub fn validate_swap(
    request: proto::ValidateSwapRequest,
) -> Result<proto::ValidateSwapResponse, EngineError> {
    let swap = swap_from_proto(request.swap)?;
    let (verdict, combination, groups) = match stable_board(request.board)? {
        Stable::Plain(board) => {
            let (verdict, groups) = engine::preview_swap(&board, swap);
            (verdict, None, groups)
        }
        Stable::Level(level) => level::preview_level_swap(&level, swap),
    };
    Ok(proto::ValidateSwapResponse {
        verdict: proto::SwapVerdict::from(verdict).into(),
        groups: groups.into_iter().map(Into::into).collect(),
        combination: proto::Combination::from(combination).into(),
    })
}

/// ResolveCascade, engine side, with no bound on the reply's size (see
/// [`resolve_cascade_bounded`] for the server's).
pub fn resolve_cascade(
    request: proto::ResolveCascadeRequest,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    resolve_cascade_within(request, usize::MAX)
}

/// Builds a reply's steps as the engine makes them: each step is converted to its message at
/// once (its board kept only when the request asked for step boards) and its encoded size
/// added up, and the cascade is stopped as soon as the steps pass `limit` bytes, or once
/// `deadline` has passed (the call's time is up: the work stops with it). Memory for the steps
/// is therefore at most `limit` plus one step.
struct ReplySteps {
    steps: Vec<proto::CascadeStep>,
    include_step_boards: bool,
    /// Encoded bytes of `steps` inside the reply (each with its field tag and length).
    bytes: usize,
    limit: usize,
    deadline: Option<Instant>,
    /// True when the deadline, not the size, stopped the cascade.
    timed_out: bool,
}

impl ReplySteps {
    fn new(include_step_boards: bool, limit: usize, deadline: Option<Instant>) -> Self {
        Self {
            steps: Vec::new(),
            include_step_boards,
            bytes: 0,
            limit,
            deadline,
            timed_out: false,
        }
    }

    fn take(&mut self, step: proto::CascadeStep) -> ControlFlow<()> {
        let length = step.encoded_len();
        // Field tag (1 byte for field numbers up to 15) and length prefix of a repeated message.
        self.bytes = self
            .bytes
            .saturating_add(1 + prost::length_delimiter_len(length) + length);
        self.steps.push(step);
        if self.bytes > self.limit {
            return ControlFlow::Break(());
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.timed_out = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

impl engine::StepSink for ReplySteps {
    fn accept(&mut self, step: engine::CascadeStep) -> ControlFlow<()> {
        let step = cascade_step_to_proto(step, self.include_step_boards);
        self.take(step)
    }
}

impl level::LevelStepSink for ReplySteps {
    fn accept(&mut self, step: level::LevelStep) -> ControlFlow<()> {
        let step = level_step_to_proto(step, self.include_step_boards);
        self.take(step)
    }
}

/// ResolveCascade, engine side, stopping with [`EngineError::CascadeStopped`] as soon as the
/// reply's steps pass `limit` encoded bytes.
fn resolve_cascade_within(
    request: proto::ResolveCascadeRequest,
    limit: usize,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    let mut reply_steps = ReplySteps::new(request.include_step_boards, limit, None);
    resolve_cascade_into(request, &mut reply_steps)
}

/// ResolveCascade, engine side, with its steps built by `reply_steps` (which may stop the
/// cascade: [`EngineError::CascadeStopped`]).
fn resolve_cascade_into(
    request: proto::ResolveCascadeRequest,
    reply_steps: &mut ReplySteps,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    let options = cascade_options(&request)?;
    let mut rng = engine::rng_from_seed(request.seed);
    let summary = match request.swap {
        Some(swap) => {
            let swap = swap_from_proto(Some(swap))?;
            match swap_board_from_proto(request.board)? {
                SwapBoard::Plain(board) => {
                    engine::check_swap_positions(&board, swap)?;
                    engine::resolve_swap_into(
                        StableBoard::try_from(board)?,
                        swap,
                        options,
                        &mut rng,
                        reply_steps,
                    )?
                }
                SwapBoard::Level(level) => {
                    engine::check_swap_positions(level.board(), swap)?;
                    let level = StableLevel::try_from(level)?;
                    let outcome = level::resolve_level_swap_into(
                        level,
                        swap,
                        options,
                        &mut rng,
                        reply_steps,
                    )?;
                    return Ok(level_response(
                        outcome,
                        std::mem::take(&mut reply_steps.steps),
                    ));
                }
            }
        }
        None => match swap_board_from_proto(request.board)? {
            SwapBoard::Plain(board) => {
                engine::resolve_board_into(board, options, &mut rng, reply_steps)?
            }
            SwapBoard::Level(level) => {
                let outcome =
                    level::resolve_level_board_into(level, options, &mut rng, reply_steps)?;
                return Ok(level_response(
                    outcome,
                    std::mem::take(&mut reply_steps.steps),
                ));
            }
        },
    };
    Ok(proto::ResolveCascadeResponse {
        steps: std::mem::take(&mut reply_steps.steps),
        board: Some((&summary.board).into()),
        total_score: summary.total_score,
        shuffled: summary.board_before_shuffle.is_some(),
        board_before_shuffle: summary.board_before_shuffle.as_ref().map(Into::into),
        dead: summary.dead,
        valid_swap_count: summary.valid_swap_count as u32,
        stable: summary.stable,
    })
}

/// A level cascade's outcome on the wire, with the steps its sink built.
fn level_response(
    outcome: level::LevelOutcome,
    steps: Vec<proto::CascadeStep>,
) -> proto::ResolveCascadeResponse {
    proto::ResolveCascadeResponse {
        steps,
        board: Some((&outcome.board).into()),
        total_score: outcome.total_score,
        shuffled: outcome.board_before_shuffle.is_some(),
        board_before_shuffle: outcome
            .board_before_shuffle
            .as_ref()
            .map(|b: &LevelBoard| b.into()),
        dead: outcome.dead,
        valid_swap_count: outcome.valid_swap_count as u32,
        stable: outcome.stable,
    }
}

/// ResolveCascade within the server's reply limit and request timeout: the steps are
/// converted and measured as the engine makes them, and a cascade whose steps pass
/// `max_response_bytes` is stopped there with RESOURCE_EXHAUSTED, reason `CASCADE_TOO_LARGE` (it
/// could never be sent), whether or not it would have settled within `max_steps`. Memory per
/// call is thereby about the message limit plus one step (a 64x64 board is 4 KiB), whatever
/// `max_steps` asks. A cascade still running when the server's `--request-timeout` has passed
/// (long cascades of special pieces on large level boards) is stopped at its next step with
/// DEADLINE_EXCEEDED, reason `WORK_DEADLINE`, instead of running on after its caller was
/// answered.
///
/// # Errors
/// As [`resolve_cascade`], plus `CASCADE_TOO_LARGE` and `WORK_DEADLINE`.
pub fn resolve_cascade_bounded(
    request: proto::ResolveCascadeRequest,
    limits: ServiceLimits,
) -> Result<proto::ResolveCascadeResponse, Status> {
    let limit = limits.max_response_bytes;
    let include_step_boards = request.include_step_boards;
    let deadline = limits
        .request_timeout
        .and_then(|timeout| Instant::now().checked_add(timeout));
    let mut reply_steps = ReplySteps::new(include_step_boards, limit, deadline);
    match resolve_cascade_into(request, &mut reply_steps) {
        Err(EngineError::CascadeStopped { .. }) if reply_steps.timed_out => {
            Err(super::status::work_deadline())
        }
        Err(EngineError::CascadeStopped { steps }) => Err(super::status::cascade_too_large(
            steps,
            limit,
            include_step_boards,
        )),
        other => other.map_err(Status::from),
    }
}

/// CheckDeadState, engine side.
pub fn check_dead_state(
    request: proto::SwapCheckDeadStateRequest,
) -> Result<proto::SwapCheckDeadStateResponse, EngineError> {
    let (valid_swaps, combinations): (Vec<proto::Swap>, Vec<i32>) =
        match stable_board(request.board)? {
            Stable::Plain(board) => (
                engine::valid_swaps(&board)
                    .into_iter()
                    .map(Into::into)
                    .collect(),
                Vec::new(),
            ),
            Stable::Level(level) => level::level_valid_swaps(&level)
                .into_iter()
                .map(|(swap, combination)| {
                    (
                        proto::Swap::from(swap),
                        proto::Combination::from(combination) as i32,
                    )
                })
                .unzip(),
        };
    Ok(proto::SwapCheckDeadStateResponse {
        dead: valid_swaps.is_empty(),
        valid_swaps,
        combinations,
    })
}

/// Shuffle, engine side.
pub fn shuffle(request: proto::ShuffleRequest) -> Result<proto::ShuffleResponse, EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    let board = match swap_board_from_proto(request.board)? {
        SwapBoard::Plain(board) => board,
        SwapBoard::Level(level) => {
            let shuffled = level::shuffle_level(&level, &mut rng)?;
            return Ok(proto::ShuffleResponse {
                valid_swap_count: level::count_level_valid_swaps(&shuffled) as u32,
                board: Some(shuffled.level().into()),
            });
        }
    };
    let shuffled = engine::shuffle(&board, &mut rng)?;
    Ok(proto::ShuffleResponse {
        valid_swap_count: engine::count_valid_swaps(&shuffled) as u32,
        board: Some(shuffled.board().into()),
    })
}

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
            super::status::cascade_too_large(steps, limits.max_response_bytes, false)
        }
        other => Status::from(other),
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
        SwapBoard::Level(level) => level::level_board_digest(&level),
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
                .map_err(super::convert::in_generate_start)?
                .board
                .ok_or_else(|| super::convert::required("board"))?;
            (board, true)
        }
        None => return Err(super::convert::required("start")),
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
                .map_err(super::convert::in_generate_start)?
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

/// Where a replay runs: inline for a small board (or generation request) and at most 64
/// moves, on the blocking pool otherwise.
fn replay_placement(request: &proto::SwapReplayGameRequest) -> Placement {
    use proto::swap_replay_game_request::Start;
    let board = match &request.start {
        Some(Start::Board(board)) => board_cells(Some(board)),
        Some(Start::Generate(generate)) => cells(generate.width, generate.height),
        None => 0,
    };
    if request.moves.len() <= 64 {
        Placement::for_cells(board, INLINE_CELL_LIMIT)
    } else {
        Placement::Blocking
    }
}

/// Most sampled refills per swap in `Hint`.
pub const MAX_HINT_SAMPLES: u32 = 1_000;
/// Most sampled cascades in one `Hint`: samples times valid swaps.
pub const MAX_HINT_SAMPLED_CASCADES: u64 = 100_000;

/// `Err(WORK_DEADLINE)` when `context`'s deadline has passed or its call was cancelled.
fn check_context(context: Option<&SearchContext>) -> Result<(), Status> {
    match context {
        Some(context)
            if context.cancel.load(std::sync::atomic::Ordering::Relaxed)
                || context
                    .deadline
                    .is_some_and(|d| std::time::Instant::now() >= d) =>
        {
            Err(super::status::work_deadline())
        }
        _ => Ok(()),
    }
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
) -> Result<Vec<proto::SwapHint>, Status> {
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
    hint_with(request, context, true)
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
    hint_with(request, context, false)
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
) -> Result<Vec<proto::SwapHint>, EngineError> {
    let mut hints: Vec<proto::SwapHint> = engine::certain_outcomes(board, options.max_steps)?
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
) -> Result<Option<engine::Swap>, EngineError> {
    let mut best: Option<((u64, u64), engine::Swap)> = None;
    for (swap, outcome) in engine::certain_outcomes(board, options.max_steps)? {
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
) -> Result<proto::SwapHintResponse, Status> {
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
        .ok_or_else(|| super::convert::required("board"))?;
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
        (Some(stable), _) => plain_ranked_hints(stable, certain_options(request.max_steps)?)?,
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
) -> Result<GameTally, Status> {
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
) -> Result<GameTally, Status> {
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
                match plain_best_swap(&board, certain)? {
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

fn simulate_limit(field: &'static str, reason: String) -> Status {
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
    simulate_with(request, context, true)
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
    simulate_with(request, context, false)
}

/// Simulate by the engine-level path (`fast`, plain boards only) or through ResolveCascade.
fn simulate_with(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
    fast: bool,
) -> Result<proto::SwapSimulateResponse, Status> {
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
        .map_err(|_| Status::from(unknown_enum("policy", request.policy)))?;
    // The start first (a missing one, or a generation request's own fields, named as such),
    // then the moves' options.
    let (start, generated) = match &request.start {
        Some(Start::Board(board)) => (board.clone(), false),
        Some(Start::Generate(generate)) => (
            generate_board(generate.clone())
                .map_err(super::convert::in_generate_start)?
                .board
                .ok_or_else(|| Status::internal("generation without a board"))?,
            true,
        ),
        None => return Err(super::convert::required("start").into()),
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

#[tonic::async_trait]
impl SwapPuzzle for SwapService {
    async fn generate_board(
        &self,
        request: Request<proto::SwapGenerateBoardRequest>,
    ) -> Result<Response<proto::SwapGenerateBoardResponse>, Status> {
        let message = request.get_ref();
        let placement = Placement::for_cells(
            cells(message.width, message.height),
            SEARCH_INLINE_CELL_LIMIT,
        );
        run_engine(self.limits, placement, request, |r, _| generate_board(r)).await
    }

    async fn validate_swap(
        &self,
        request: Request<proto::ValidateSwapRequest>,
    ) -> Result<Response<proto::ValidateSwapResponse>, Status> {
        run_engine(self.limits, Placement::Inline, request, |r, _| {
            validate_swap(r)
        })
        .await
    }

    async fn resolve_cascade(
        &self,
        request: Request<proto::ResolveCascadeRequest>,
    ) -> Result<Response<proto::ResolveCascadeResponse>, Status> {
        let message = request.get_ref();
        let placement =
            Placement::for_cells(board_cells(message.board.as_ref()), INLINE_CELL_LIMIT);
        run_engine(self.limits, placement, request, resolve_cascade_bounded).await
    }

    async fn check_dead_state(
        &self,
        request: Request<proto::SwapCheckDeadStateRequest>,
    ) -> Result<Response<proto::SwapCheckDeadStateResponse>, Status> {
        run_engine(self.limits, Placement::Inline, request, |r, _| {
            check_dead_state(r)
        })
        .await
    }

    async fn shuffle(
        &self,
        request: Request<proto::ShuffleRequest>,
    ) -> Result<Response<proto::ShuffleResponse>, Status> {
        let message = request.get_ref();
        let placement = Placement::for_cells(
            board_cells(message.board.as_ref()),
            SEARCH_INLINE_CELL_LIMIT,
        );
        run_engine(self.limits, placement, request, |r, _| shuffle(r)).await
    }

    async fn replay_game(
        &self,
        request: Request<proto::SwapReplayGameRequest>,
    ) -> Result<Response<proto::SwapReplayGameResponse>, Status> {
        let placement = replay_placement(request.get_ref());
        run_engine(self.limits, placement, request, replay_game).await
    }

    async fn hint(
        &self,
        request: Request<proto::SwapHintRequest>,
    ) -> Result<Response<proto::SwapHintResponse>, Status> {
        let message = request.get_ref();
        // One NONE-refill cascade per valid swap: inline only on small boards without samples;
        // otherwise on the blocking pool, stopped at the deadline or when the call is dropped.
        let small = board_cells(message.board.as_ref()) <= SEARCH_INLINE_CELL_LIMIT;
        if message.samples == 0 && small {
            return run_engine(self.limits, Placement::Inline, request, |r, _| {
                hint(r, None)
            })
            .await;
        }
        run_search(self.limits, request, |r, _, context| {
            hint(r, Some(&context))
        })
        .await
    }

    async fn simulate(
        &self,
        request: Request<proto::SwapSimulateRequest>,
    ) -> Result<Response<proto::SwapSimulateResponse>, Status> {
        run_search(self.limits, request, |r, _, context| {
            simulate(r, Some(&context))
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The never-settling cascade of a 64x64 board of one colour refilled from 2 colours.
    fn endless_cascade(max_steps: u32) -> proto::ResolveCascadeRequest {
        proto::ResolveCascadeRequest {
            board: Some(proto::Board {
                width: 64,
                height: 64,
                cells: vec![1; 64 * 64],
                ..Default::default()
            }),
            colors: 2,
            seed: 9,
            refill: proto::RefillMode::Random as i32,
            max_steps,
            ..Default::default()
        }
    }

    /// The reply's steps are measured exactly: the cascade stops at the first step whose
    /// encoded steps pass the limit, not before and not after.
    #[test]
    fn a_cascade_stops_at_the_first_step_past_the_reply_limit() {
        // Every step of the first 60, recorded whatever happens after them.
        let request = endless_cascade(60);
        let mut all = Vec::new();
        let result = engine::resolve_board_into(
            super::super::convert::board_from_proto(request.board.clone()).unwrap(),
            cascade_options(&request).unwrap(),
            &mut engine::rng_from_seed(request.seed),
            &mut all,
        );
        assert!(matches!(
            result,
            Err(EngineError::CascadeLimitExceeded { max_steps: 60 })
        ));
        assert_eq!(all.len(), 60);
        let sizes: Vec<usize> = all
            .into_iter()
            .map(|step| {
                let length = cascade_step_to_proto(step, false).encoded_len();
                1 + prost::length_delimiter_len(length) + length
            })
            .collect();
        let limit = sizes[..20].iter().sum::<usize>() + sizes[20] / 2;
        match resolve_cascade_within(endless_cascade(1000), limit) {
            Err(EngineError::CascadeStopped { steps }) => assert_eq!(steps, 21),
            other => panic!(
                "expected a stop at step 21, got {:?}",
                other.map(|r| r.steps.len())
            ),
        }
        // The limit met exactly is not passed.
        let limit = sizes[..20].iter().sum::<usize>();
        match resolve_cascade_within(endless_cascade(1000), limit) {
            Err(EngineError::CascadeStopped { steps }) => assert_eq!(steps, 21),
            other => panic!(
                "expected a stop at step 21, got {:?}",
                other.map(|r| r.steps.len())
            ),
        }
    }

    /// A level cascade that outlives the server's request timeout (specials making specials on
    /// a large board can run for many seconds) is stopped at its next step with WORK_DEADLINE,
    /// not run on after its caller was answered.
    #[test]
    fn a_level_cascade_past_the_request_timeout_is_stopped() {
        use rand::Rng;
        let mut rng = engine::rng_from_seed(3);
        let cells: Vec<u32> = (0..64 * 64).map(|_| rng.random_range(1..=5)).collect();
        let request = proto::ResolveCascadeRequest {
            board: Some(proto::Board {
                width: 64,
                height: 64,
                cells,
                // All NORMAL: a level board, so groups of 4 or more make specials.
                kinds: vec![0; 64 * 64],
                ..Default::default()
            }),
            colors: 5,
            seed: 1,
            refill: proto::RefillMode::Random as i32,
            max_steps: 1000,
            ..Default::default()
        };
        let limits = ServiceLimits {
            request_timeout: Some(std::time::Duration::from_millis(1)),
            ..ServiceLimits::default()
        };
        let started = Instant::now();
        let status = resolve_cascade_bounded(request, limits).unwrap_err();
        assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
        assert!(status.message().contains("deadline"), "{status:?}");
        // One step of a 64x64 level cascade, not the whole cascade (many seconds).
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// The field a BadRequest names.
    fn field_named(status: &Status) -> String {
        use tonic_types::StatusExt;
        let violations = status.get_details_bad_request().unwrap().field_violations;
        assert_eq!(violations.len(), 1, "{status:?}");
        violations[0].field.clone()
    }

    /// A missing start is named `start`, before the moves' options are checked; errors inside
    /// a `generate` start carry its prefix.
    #[test]
    fn start_errors_name_the_start_field() {
        use proto::swap_simulate_request::Start;
        let simulate_with_start = |start| proto::SwapSimulateRequest {
            start,
            games: 1,
            moves: 1,
            ..Default::default()
        };
        let none = simulate(simulate_with_start(None), None).unwrap_err();
        assert_eq!(field_named(&none), "start");
        let generate = |width, colors| {
            Some(Start::Generate(proto::SwapGenerateBoardRequest {
                width,
                height: 8,
                colors,
                ..Default::default()
            }))
        };
        let too_many = simulate(simulate_with_start(generate(8, 17)), None).unwrap_err();
        assert_eq!(field_named(&too_many), "generate.colors");
        let too_wide = simulate(simulate_with_start(generate(65, 5)), None).unwrap_err();
        assert_eq!(field_named(&too_wide), "generate.width");
        let replay = replay_game(
            proto::SwapReplayGameRequest {
                start: Some(proto::swap_replay_game_request::Start::Generate(
                    proto::SwapGenerateBoardRequest {
                        width: 8,
                        height: 8,
                        colors: 17,
                        ..Default::default()
                    },
                )),
                ..Default::default()
            },
            ServiceLimits::default(),
        )
        .unwrap_err();
        assert_eq!(field_named(&Status::from(replay)), "generate.colors");
    }

    /// A cascade whose reply fits is answered in full, byte for byte as without a limit.
    #[test]
    fn a_cascade_within_the_limit_is_answered_in_full() {
        let request = proto::ResolveCascadeRequest {
            board: Some(proto::Board {
                width: 3,
                height: 3,
                cells: vec![1, 1, 1, 2, 3, 2, 3, 2, 3],
                ..Default::default()
            }),
            colors: 3,
            seed: 4,
            refill: proto::RefillMode::Random as i32,
            include_step_boards: true,
            ..Default::default()
        };
        let unbounded = resolve_cascade(request.clone()).unwrap();
        assert!(!unbounded.steps.is_empty());
        let limit = unbounded
            .steps
            .iter()
            .map(|s| {
                let length = s.encoded_len();
                1 + prost::length_delimiter_len(length) + length
            })
            .sum();
        let bounded = resolve_cascade_within(request, limit).unwrap();
        assert_eq!(bounded, unbounded);
    }
}
