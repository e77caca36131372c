//! `ReplayGame` of the swap family (docs/rules.md section 7): a game's moves replayed in one
//! call, each answered as the ResolveCascade call of its fields would be: swaps on stable
//! boards on the engine directly, anything else through ResolveCascade's own function.

use tonic::Status;

use super::super::ServiceLimits;
use super::{cascade_options, generate_board, level, resolve_cascade_within};
use crate::engine::{self, CascadeOptions, EngineError, StableBoard};
use crate::proto;
use crate::transport::convert::{swap_board_from_proto, swap_from_proto};
use crate::transport::status::engine_status;

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
    Ok(swap_board_from_proto(Some(board.clone()))?.digest())
}

/// ReplayGame, engine side: each move is the ResolveCascade request made of its fields on the
/// board the previous one returned, answered as ResolveCascade would answer it within `limits`
/// (so its reply-size refusal is the same too). A swap on a stable board is played on the
/// engine ([`engine::play_swap`]) when its reply could not pass the limit; any other move (no
/// swap, an unstable board, a refusal, a reply that could be too large) goes through
/// ResolveCascade's own function.
///
/// # Errors
/// INVALID_ARGUMENT for more than [`MAX_REPLAY_MOVES`] moves (naming `moves`), a missing start,
/// a malformed board, or a generation request GenerateBoard refuses. Refused moves are not
/// errors: the first is reported in the response.
pub fn replay_game(
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
    if request.level.is_some() {
        if request.start.is_some() {
            return Err(EngineError::InvalidParameter {
                field: "level",
                reason: "a replay starts from `start` or from `level`, not both".to_owned(),
            });
        }
        return replay_level(request);
    }
    let (start, generated) = match request.start {
        Some(Start::Board(board)) => (board, false),
        Some(Start::Generate(generate)) => {
            let board = generate_board(generate)
                .map_err(crate::transport::convert::in_generate_start)?
                .board
                .ok_or_else(|| crate::transport::convert::required("board"))?;
            (board, true)
        }
        None => return Err(crate::transport::convert::required("start")),
    };
    // Malformed boards fail the whole call; stability is the first move's business.
    let mut board = ReplayBoard::of(swap_board_from_proto(Some(start.clone()))?);
    // The proto board of the last move ResolveCascade answered; the start until one is.
    let mut last: Option<proto::Board> = None;
    let mut moves = Vec::with_capacity(request.moves.len());
    let mut total_score = 0u64;
    let mut rejected = None;
    for (index, play) in request.moves.iter().enumerate() {
        let on_engine = match &board {
            ReplayBoard::Stable(stable) => engine_move(stable, play, limits.max_response_bytes),
            ReplayBoard::Unstable(_) => None,
        };
        if let Some((reported, next)) = on_engine {
            total_score = total_score.saturating_add(reported.score);
            moves.push(reported);
            board = next;
            last = None;
            continue;
        }
        let current = match last.take() {
            Some(current) => current,
            None if moves.is_empty() => start.clone(),
            None => board.to_proto(),
        };
        match resolve_cascade_within(
            move_request(current.clone(), play),
            limits.max_response_bytes,
        ) {
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
                let next = response.board.unwrap_or(current);
                board = ReplayBoard::of(swap_board_from_proto(Some(next.clone()))?);
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
                last = Some(current);
                break;
            }
        }
    }
    let board = match last {
        Some(board) => board,
        None if moves.is_empty() => start.clone(),
        None => board.to_proto(),
    };
    Ok(proto::SwapReplayGameResponse {
        moves,
        total_score,
        board_digest: swap_board_digest(&board)?.to_vec(),
        board: Some(board),
        rejected,
        start_board: generated.then_some(start),
        level: None,
    })
}

/// ReplayGame of a level: StartLevel's state for `level_seed`, then each move as PlayMove
/// plays it with the move's swap and seed (its other options are the level's). The first move
/// PlayMove refuses (or a move without a swap) is reported in `rejected`; a level generated on
/// a layout answers its start in `start_board`.
///
/// # Errors
/// As StartLevel for the level and its start.
/// Counts the steps of a cascade, keeping none of them.
struct StepCount(u32);

impl engine::StepSink for StepCount {
    fn accept(&mut self, _step: engine::CascadeStep) -> std::ops::ControlFlow<()> {
        self.0 += 1;
        std::ops::ControlFlow::Continue(())
    }
}

fn replay_level(
    request: proto::SwapReplayGameRequest,
) -> Result<proto::SwapReplayGameResponse, EngineError> {
    let level = level::level_from_proto(request.level)?;
    let mut state = level::first_state(&level, request.level_seed)?;
    let mut status = level.status(&state);
    let start_board = matches!(level.start(), engine::LevelStart::Layout(_))
        .then(|| proto::Board::from(&state.board));
    let mut decided_at = None;
    let mut moves = Vec::with_capacity(request.moves.len());
    let mut rejected = None;
    for (index, play) in request.moves.iter().enumerate() {
        let Some(wire_swap) = play.swap else {
            rejected = Some(proto::SwapReplayRejection {
                index: index as u32,
                swap: None,
                verdict: proto::SwapVerdict::Unspecified.into(),
                code: tonic::Code::InvalidArgument as u32,
                reason: "INVALID_ARGUMENT".to_owned(),
                message: format!("moves[{index}].swap: a move of a level needs a swap"),
            });
            break;
        };
        let mut steps = StepCount(0);
        let played = swap_from_proto(Some(wire_swap))
            .and_then(|swap| level::play_level(&level, &state, swap, play.seed, &mut steps));
        match played {
            Ok(played) => {
                let valid_swap_count = StableBoard::try_from(played.state.board.clone())
                    .map_or(0, |board| engine::count_valid_swaps(&board) as u32);
                moves.push(proto::SwapReplayMove {
                    swap: play.swap,
                    score: played.state.score.saturating_sub(state.score),
                    steps: steps.0,
                    shuffled: played.board_before_shuffle.is_some(),
                    dead: played.status == engine::LevelStatus::LostDead,
                    stable: true,
                    valid_swap_count,
                });
                if status == engine::LevelStatus::Playing
                    && played.status != engine::LevelStatus::Playing
                {
                    decided_at = Some(index as u32);
                }
                state = played.state;
                status = played.status;
            }
            Err(error) => {
                let verdict = refusal_verdict(&error);
                let status = engine_status(error);
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
    let board = proto::Board::from(&state.board);
    let wire_state = level::state_to_proto(&level, &state, status);
    Ok(proto::SwapReplayGameResponse {
        moves,
        total_score: state.score,
        board_digest: swap_board_digest(&board)?.to_vec(),
        board: Some(board),
        rejected,
        start_board,
        level: Some(proto::LevelReplay {
            status: wire_state.status,
            decided_at,
            moves_left: state.moves_left,
            score: state.score,
            progress: wire_state.progress.clone(),
            state: Some(wire_state),
        }),
    })
}

/// An upper bound on the encoded bytes one cascade step (without its board) of a board of
/// `cells` cells adds to a ResolveCascade reply: each cell is at most once in a group (a
/// position is at most 6 bytes, a group's own fields at most 6 more), once a fall (14) and
/// once a spawn (10); on a board with layers also at most once in `effect_cleared` (8), once
/// fired and once created (a special is at most 16 bytes each); the index, score and the
/// step's own tag and length fit in 64.
fn step_bytes_bound(cells: usize, layers: bool) -> u64 {
    let per_cell = if layers { 112 } else { 64 };
    per_cell * cells as u64 + 64
}

/// A replay's board between moves: stable, or not (NONE refill left empty cells).
enum ReplayBoard {
    Stable(StableBoard),
    Unstable(engine::SwapBoard),
}

impl ReplayBoard {
    fn of(board: engine::SwapBoard) -> Self {
        match StableBoard::try_from(board.clone()) {
            Ok(stable) => Self::Stable(stable),
            Err(_) => Self::Unstable(board),
        }
    }

    fn to_proto(&self) -> proto::Board {
        match self {
            Self::Stable(stable) => stable.into(),
            Self::Unstable(board) => board.into(),
        }
    }
}

/// One replayed move played on the engine directly: `None` when the move is not a swap with
/// valid options, when the engine refuses it, or when its reply could pass `limit` bytes —
/// the cases ResolveCascade itself must answer. Special pieces are created on a board with
/// layers, as ResolveCascade creates them.
fn engine_move(
    board: &StableBoard,
    play: &proto::SwapMove,
    limit: usize,
) -> Option<(proto::SwapReplayMove, ReplayBoard)> {
    let options = cascade_options(&proto::ResolveCascadeRequest {
        colors: play.colors,
        refill: play.refill,
        auto_shuffle: play.auto_shuffle,
        max_steps: play.max_steps,
        ..Default::default()
    })
    .ok()?;
    let options = CascadeOptions {
        specials: board.has_layers(),
        ..options
    };
    let swap = swap_from_proto(Some(play.swap?)).ok()?;
    let mut rng = engine::rng_from_seed(play.seed);
    let played = engine::play_swap(board.clone(), swap, options, &mut rng).ok()?;
    let cells = board.colors().cells().len();
    let bound = step_bytes_bound(cells, board.has_layers());
    if u64::from(played.steps).saturating_mul(bound) > limit as u64 {
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
        ReplayBoard::Stable(stable)
    } else {
        ReplayBoard::Unstable(played.board)
    };
    Some((reported, next))
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
