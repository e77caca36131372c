//! The one mapping from [`EngineError`] to `tonic::Status` (docs/rules.md section 4).
//!
//! Every status carries a `google.rpc.ErrorInfo` (domain `matchgrid.v1`, a stable `reason` such
//! as `INVALID_BOARD`, `UNSTABLE_BOARD`, `ILLEGAL_SWAP`) so clients can branch without parsing
//! messages, plus a `google.rpc.BadRequest` naming the field for INVALID_ARGUMENT or a
//! `google.rpc.PreconditionFailure` naming the cells or verdict for FAILED_PRECONDITION.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::engine::{
    BoardError, EngineError, LevelError, Position, SwapVerdict, TapRejection, Unsettled,
};

/// `google.rpc.ErrorInfo.domain` of every matchgrid error.
pub const ERROR_DOMAIN: &str = "matchgrid.v1";

/// Most cells named in one PreconditionFailure; the message still gives the totals.
const MAX_NAMED_CELLS: usize = 64;

/// The proto name of a swap verdict, e.g. `SWAP_VERDICT_NO_MATCH`.
pub fn swap_verdict_name(verdict: SwapVerdict) -> &'static str {
    match verdict {
        SwapVerdict::Ok => "SWAP_VERDICT_OK",
        SwapVerdict::OutOfBounds => "SWAP_VERDICT_OUT_OF_BOUNDS",
        SwapVerdict::Hole => "SWAP_VERDICT_HOLE",
        SwapVerdict::Blocked => "SWAP_VERDICT_BLOCKED",
        SwapVerdict::NotAdjacent => "SWAP_VERDICT_NOT_ADJACENT",
        SwapVerdict::EmptyCell => "SWAP_VERDICT_EMPTY_CELL",
        SwapVerdict::NoMatch => "SWAP_VERDICT_NO_MATCH",
    }
}

fn cell_subject(position: Position) -> String {
    format!("board.cells[{}][{}]", position.row, position.col)
}

fn invalid_argument(reason: &str, field: String, description: String) -> Status {
    let mut details = ErrorDetails::with_bad_request_violation(field.clone(), description.clone());
    details.set_error_info(
        reason,
        ERROR_DOMAIN,
        HashMap::from([("field".to_owned(), field.clone())]),
    );
    Status::with_error_details(
        Code::InvalidArgument,
        format!("{field}: {description}"),
        details,
    )
}

fn failed_precondition(
    reason: &str,
    message: String,
    violations: impl IntoIterator<Item = (String, String)>,
) -> Status {
    let mut details = ErrorDetails::new();
    details.set_error_info(reason, ERROR_DOMAIN, HashMap::new());
    for (subject, description) in violations {
        details.add_precondition_failure_violation(reason, subject, description);
    }
    Status::with_error_details(Code::FailedPrecondition, message, details)
}

/// A response that would exceed the message size limit (RESOURCE_EXHAUSTED, reason
/// `RESPONSE_TOO_LARGE`), refused before it is encoded.
pub fn response_too_large(length: usize, limit: usize) -> Status {
    let mut details = ErrorDetails::with_quota_failure_violation(
        "max_message_bytes",
        format!("the response would be {length} bytes; the limit is {limit}"),
    );
    details.set_error_info("RESPONSE_TOO_LARGE", ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(
        Code::ResourceExhausted,
        format!(
            "response would be {length} bytes, over the server's {limit}-byte message limit; \
             ask for less (a smaller board; for ResolveCascade a lower max_steps or no per-step \
             boards)"
        ),
        details,
    )
}

/// A status whose only detail is `google.rpc.ErrorInfo{reason, domain: "matchgrid.v1"}`: the
/// least every error this server sends carries.
pub fn with_reason(code: Code, reason: &str, message: String) -> Status {
    let details = ErrorDetails::with_error_info(reason, ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(code, message, details)
}

/// A request whose gRPC framing is malformed (INVALID_ARGUMENT): `reason` names the fault
/// (`EMPTY_REQUEST`, `TRUNCATED_MESSAGE`, `COMPRESSED_WITHOUT_ENCODING`,
/// `INVALID_COMPRESSION_FLAG`, `EXTRA_MESSAGE`).
pub fn malformed_frame(reason: &str, message: String) -> Status {
    with_reason(Code::InvalidArgument, reason, message)
}

/// A request body that is not a valid protobuf message (INVALID_ARGUMENT, reason
/// `MALFORMED_MESSAGE`, with a BadRequest naming the field path prost reported, or `request`).
pub fn malformed_message(field: String, message: String) -> Status {
    let mut details = ErrorDetails::with_bad_request_violation(field.clone(), message.clone());
    details.set_error_info(
        "MALFORMED_MESSAGE",
        ERROR_DOMAIN,
        HashMap::from([("field".to_owned(), field)]),
    );
    Status::with_error_details(Code::InvalidArgument, message, details)
}

/// A compressed request that does not inflate (INVALID_ARGUMENT, reason
/// `MALFORMED_COMPRESSION`).
pub fn malformed_compression(message: String) -> Status {
    let mut details = ErrorDetails::with_bad_request_violation("grpc-encoding", message.clone());
    details.set_error_info("MALFORMED_COMPRESSION", ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(Code::InvalidArgument, message, details)
}

/// A request over the message size limit (RESOURCE_EXHAUSTED, reason `REQUEST_TOO_LARGE`, with
/// a QuotaFailure on `max_message_bytes`).
pub fn request_too_large(message: String) -> Status {
    let mut details =
        ErrorDetails::with_quota_failure_violation("max_message_bytes", message.clone());
    details.set_error_info("REQUEST_TOO_LARGE", ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(Code::ResourceExhausted, message, details)
}

/// No heavy-work slot came free within `waited` (RESOURCE_EXHAUSTED, reason `HEAVY_WORK_BUSY`,
/// with a QuotaFailure on `heavy_work_slots`): shed at once instead of queueing.
pub fn heavy_work_busy(slots: usize, waited: std::time::Duration) -> Status {
    let message =
        format!("all {slots} heavy-work slots are busy (waited {waited:?}); retry with backoff");
    let mut details =
        ErrorDetails::with_quota_failure_violation("heavy_work_slots", message.clone());
    details.set_error_info("HEAVY_WORK_BUSY", ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(Code::ResourceExhausted, message, details)
}

/// The client's deadline (`grpc-timeout`) passed before the work started (DEADLINE_EXCEEDED,
/// reason `CLIENT_DEADLINE`).
pub fn client_deadline() -> Status {
    with_reason(
        Code::DeadlineExceeded,
        "CLIENT_DEADLINE",
        "the client's deadline passed before the work started".to_owned(),
    )
}

/// A cascade whose reply passed the message limit while it was being resolved
/// (RESOURCE_EXHAUSTED, reason `CASCADE_TOO_LARGE`, with a QuotaFailure on
/// `max_message_bytes`): it was stopped at that step, since the reply could never be sent.
pub fn cascade_too_large(steps: u32, limit: usize, include_step_boards: bool) -> Status {
    let hint = if include_step_boards {
        "ask without include_step_boards, for a smaller board, or for a lower max_steps"
    } else {
        "ask for a smaller board or a lower max_steps"
    };
    let message = format!(
        "the cascade's reply passed the {limit}-byte message limit at step {steps}, before \
         the cascade settled; {hint}"
    );
    let mut details =
        ErrorDetails::with_quota_failure_violation("max_message_bytes", message.clone());
    details.set_error_info("CASCADE_TOO_LARGE", ERROR_DOMAIN, HashMap::new());
    Status::with_error_details(Code::ResourceExhausted, message, details)
}

/// A long-lived stream (health `Watch`) ended because the server is shutting down
/// (UNAVAILABLE, reason `SHUTTING_DOWN`): clients reconnect elsewhere.
pub fn shutting_down() -> Status {
    with_reason(
        Code::Unavailable,
        "SHUTTING_DOWN",
        "the server is shutting down".to_owned(),
    )
}

/// A request handler panicked (INTERNAL, reason `HANDLER_PANICKED`): a bug, never a dropped
/// connection.
pub fn handler_panicked() -> Status {
    with_reason(
        Code::Internal,
        "HANDLER_PANICKED",
        "internal error: the request handler panicked".to_owned(),
    )
}

/// A request shed at the concurrency limit (RESOURCE_EXHAUSTED, reason `OVERLOADED`).
pub fn overloaded(concurrency_limit: u32) -> Status {
    with_reason(
        Code::ResourceExhausted,
        "OVERLOADED",
        format!(
            "server is at its concurrency limit of {concurrency_limit} requests; retry with backoff"
        ),
    )
}

/// Long work (sampled Hint, Simulate) stopped because its deadline passed while it ran, or the
/// call was cancelled (DEADLINE_EXCEEDED, reason `WORK_DEADLINE`); it has no partial answer.
pub fn work_deadline() -> Status {
    with_reason(
        Code::DeadlineExceeded,
        "WORK_DEADLINE",
        "the deadline passed (or the call was cancelled) before the work ended; ask for less (a \
         smaller board or fewer steps, samples, games or moves) or allow more time"
            .to_owned(),
    )
}

/// A request that ran past the server's timeout (DEADLINE_EXCEEDED, reason `SERVER_TIMEOUT`).
pub fn server_timeout(timeout: std::time::Duration) -> Status {
    with_reason(
        Code::DeadlineExceeded,
        "SERVER_TIMEOUT",
        format!("request exceeded the server timeout of {timeout:?}"),
    )
}

/// A handler's error, turned into the call's status: a [`Status`] made at the edge as it is, an
/// [`EngineError`] by [`engine_status`].
pub trait IntoStatus {
    /// The call's status for this error.
    fn into_status(self) -> Status;
}

impl IntoStatus for Status {
    fn into_status(self) -> Status {
        self
    }
}

impl IntoStatus for EngineError {
    fn into_status(self) -> Status {
        engine_status(self)
    }
}

/// A handler's error where both kinds meet: an engine call's [`EngineError`] or a [`Status`]
/// made at the edge, so `?` takes either; [`IntoStatus`] maps it.
#[derive(Debug)]
pub enum CallError {
    /// A domain error, mapped by [`engine_status`].
    Engine(EngineError),
    /// A status made at the edge (a deadline, a limit), answered as it is.
    Status(Status),
}

impl From<EngineError> for CallError {
    fn from(error: EngineError) -> Self {
        Self::Engine(error)
    }
}

impl From<Status> for CallError {
    fn from(status: Status) -> Self {
        Self::Status(status)
    }
}

impl From<CallError> for Status {
    fn from(error: CallError) -> Self {
        error.into_status()
    }
}

impl IntoStatus for CallError {
    fn into_status(self) -> Status {
        match self {
            Self::Engine(error) => engine_status(error),
            Self::Status(status) => status,
        }
    }
}

/// The one mapping from a domain error to its gRPC status: the code, the `ErrorInfo` reason
/// and the field named in a `BadRequest` detail (docs/rules.md section 4).
pub fn engine_status(error: EngineError) -> Status {
    {
        let message = error.to_string();
        match error {
            EngineError::Board(board_error) => {
                let field = match board_error {
                    BoardError::WidthOutOfRange(_) => "board.width".to_owned(),
                    BoardError::HeightOutOfRange(_) => "board.height".to_owned(),
                    BoardError::CellCountMismatch { .. } | BoardError::Text(_) => {
                        "board.cells".to_owned()
                    }
                    BoardError::ColorOutOfRange { index, .. } => format!("board.cells[{index}]"),
                };
                invalid_argument("INVALID_BOARD", field, board_error.to_string())
            }
            EngineError::Level(level_error) => {
                let field = match level_error {
                    LevelError::HoleCountMismatch { .. } => "board.holes".to_owned(),
                    LevelError::KindCountMismatch { .. } => "board.kinds".to_owned(),
                    LevelError::UnknownKind { index, .. }
                    | LevelError::KindOnHole { index }
                    | LevelError::KindOnEmpty { index } => format!("board.kinds[{index}]"),
                    LevelError::TileOnHole { index, .. }
                    | LevelError::ColorOnBomb { index, .. }
                    | LevelError::ColorOnIngredient { index, .. } => {
                        format!("board.cells[{index}]")
                    }
                    LevelError::LayerCountMismatch { layer, .. } => format!("board.{layer}"),
                    LevelError::BadLayer { layer, index, .. } => format!("board.{layer}[{index}]"),
                };
                invalid_argument("INVALID_BOARD", field, level_error.to_string())
            }
            EngineError::InvalidParameter { field, reason } => {
                // A field of the board (such as `board.holes` sent to the collapse family) is
                // an invalid board, like the board errors above.
                let code = if field.starts_with("board.") {
                    "INVALID_BOARD"
                } else {
                    "INVALID_ARGUMENT"
                };
                invalid_argument(code, field.to_owned(), reason)
            }
            EngineError::PositionOffBoard {
                field,
                position,
                width,
                height,
            } => invalid_argument(
                "POSITION_OFF_BOARD",
                field.to_owned(),
                format!("position {position} is off the {width}x{height} board"),
            ),
            EngineError::UnstableBoard {
                empty_cells,
                matched_cells,
            } => {
                let empty = empty_cells
                    .into_iter()
                    .map(|p| (cell_subject(p), "cell is empty".to_owned()));
                let matched = matched_cells
                    .into_iter()
                    .map(|p| (cell_subject(p), "cell is part of a run".to_owned()));
                failed_precondition(
                    "UNSTABLE_BOARD",
                    message,
                    empty.chain(matched).take(MAX_NAMED_CELLS),
                )
            }
            EngineError::BoardNotFull { empty_cells } => failed_precondition(
                "BOARD_NOT_FULL",
                message,
                empty_cells
                    .into_iter()
                    .take(MAX_NAMED_CELLS)
                    .map(|p| (cell_subject(p), "cell is empty".to_owned())),
            ),
            EngineError::IllegalSwap(rejection) => {
                let verdict = SwapVerdict::from(rejection);
                failed_precondition(
                    "ILLEGAL_SWAP",
                    format!("illegal swap: {}", swap_verdict_name(verdict)),
                    [("swap".to_owned(), swap_verdict_name(verdict).to_owned())],
                )
            }
            EngineError::NoShuffleExists { .. } => failed_precondition(
                "NO_SHUFFLE_EXISTS",
                message,
                [(
                    "board".to_owned(),
                    "no playable permutation of these tiles".to_owned(),
                )],
            ),
            EngineError::LevelOver { status } => failed_precondition(
                "LEVEL_OVER",
                message,
                [("state".to_owned(), format!("LEVEL_STATUS_{status}"))],
            ),
            EngineError::CascadeStopped { steps } => {
                // Only the reply builder stops a cascade, on the message limit (its own
                // mapping, `cascade_too_large`, names the limit).
                let mut details = ErrorDetails::with_quota_failure_violation(
                    "max_message_bytes",
                    format!("the cascade's reply passed the message limit at step {steps}"),
                );
                details.set_error_info("CASCADE_TOO_LARGE", ERROR_DOMAIN, HashMap::new());
                Status::with_error_details(Code::ResourceExhausted, message, details)
            }
            EngineError::CascadeLimitExceeded { max_steps } => {
                let mut details = ErrorDetails::with_quota_failure_violation(
                    "max_steps",
                    format!("the cascade needed more than {max_steps} steps"),
                );
                details.set_error_info("CASCADE_LIMIT_EXCEEDED", ERROR_DOMAIN, HashMap::new());
                Status::with_error_details(Code::ResourceExhausted, message, details)
            }
            EngineError::UnsettledBoard(unsettled) => {
                let subject = match unsettled {
                    Unsettled::FloatingTile(p) => cell_subject(p),
                    Unsettled::GapColumn(col) => format!("board.column[{col}]"),
                };
                failed_precondition(
                    "UNSETTLED_BOARD",
                    message,
                    [(subject, unsettled.to_string())],
                )
            }
            EngineError::IllegalTap(rejection) => {
                let verdict = match rejection {
                    TapRejection::EmptyCell => "EMPTY_CELL",
                    TapRejection::GroupTooSmall { .. } => "GROUP_TOO_SMALL",
                };
                failed_precondition(
                    "ILLEGAL_TAP",
                    format!("illegal tap: {rejection}"),
                    [("position".to_owned(), verdict.to_owned())],
                )
            }
        }
    }
}
