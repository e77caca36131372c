//! The gRPC transport: thin handlers that convert a request (fallibly, naming the field), call
//! the engine and convert the result back. Engine errors become `tonic::Status` in exactly one
//! place, [`status`].

pub mod collapse;
pub mod convert;
pub mod status;
pub mod swap;

pub use collapse::CollapseService;
pub use swap::SwapService;

use std::sync::{Arc, LazyLock};

use tokio::sync::Semaphore;
use tonic::{Response, Status};

use crate::engine::EngineError;

/// Boards of at most this many cells are resolved or generated on the async worker: that takes
/// microseconds. Larger ones (up to 64x64, where a long cascade can take tens or hundreds of
/// milliseconds) go to tokio's blocking pool, so they cannot stall health checks or other calls.
pub const INLINE_CELL_LIMIT: u64 = 256;

/// Searches (swap `GenerateBoard`, `Shuffle`) on boards of at most this many cells run on the
/// async worker: a few milliseconds at worst (a search that gives up), microseconds usually, so
/// small requests never wait behind 64x64 ones for a blocking-pool slot.
pub const SEARCH_INLINE_CELL_LIMIT: u64 = 100;

/// Where a handler's engine work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// On the async worker: bounded, microsecond work (verdicts, dead-state checks, taps).
    Inline,
    /// On the blocking pool, holding one of [`LARGE_WORK_SLOTS`]: searches on boards above
    /// [`SEARCH_INLINE_CELL_LIMIT`] cells and other work above [`INLINE_CELL_LIMIT`] cells.
    Blocking,
}

impl Placement {
    /// Inline for at most `inline_limit` cells ([`INLINE_CELL_LIMIT`] for work that grows with
    /// the board, [`SEARCH_INLINE_CELL_LIMIT`] for searches), on the blocking pool above.
    pub(crate) fn for_cells(cells: u64, inline_limit: u64) -> Self {
        if cells <= inline_limit {
            Self::Inline
        } else {
            Self::Blocking
        }
    }
}

/// The cell count of raw (unvalidated) dimensions.
pub(crate) fn cells(width: u32, height: u32) -> u64 {
    u64::from(width) * u64::from(height)
}

/// The cell count of a request's optional board; 0 when absent (the request fails at once).
pub(crate) fn board_cells(board: Option<&crate::proto::Board>) -> u64 {
    board.map_or(0, |b| cells(b.width, b.height))
}

/// Default largest request and response message, in bytes (1 MiB; a 64x64 board is ~8 KB):
/// the server's `--max-message-bytes` default and [`ServiceLimits::default`].
pub const DEFAULT_MAX_MESSAGE_BYTES: u32 = 1024 * 1024;

/// Limits shared by both services.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceLimits {
    /// Largest encoded response, in bytes; a larger one is RESOURCE_EXHAUSTED before it is
    /// built on the wire (the same value as the server's message size limit).
    pub max_response_bytes: usize,
}

impl Default for ServiceLimits {
    fn default() -> Self {
        Self {
            max_response_bytes: DEFAULT_MAX_MESSAGE_BYTES as usize,
        }
    }
}

/// Blocking-pool computations allowed at once: twice the CPUs this process may use. Further
/// ones wait (within the request timeout), so a burst of heavy requests cannot oversubscribe the
/// CPU, even after their callers gave up.
static LARGE_WORK_SLOTS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    Arc::new(Semaphore::new(2 * cpus))
});

/// Runs `handler` where `placement` says, maps its error through the one [`EngineError`] to
/// `Status` mapping, and refuses a response over `limits.max_response_bytes`. A panic on the
/// blocking pool is INTERNAL.
pub(crate) async fn run_engine<Req, Resp>(
    limits: ServiceLimits,
    placement: Placement,
    request: Req,
    handler: fn(Req) -> Result<Resp, EngineError>,
) -> Result<Response<Resp>, Status>
where
    Req: Send + 'static,
    Resp: prost::Message + Send + 'static,
{
    let result = match placement {
        Placement::Inline => handler(request),
        Placement::Blocking => {
            // The permit moves into the task, so work abandoned by a timed-out or cancelled
            // call still counts until it really ends.
            let permit = Arc::clone(&LARGE_WORK_SLOTS)
                .acquire_owned()
                .await
                .map_err(|_| Status::unavailable("server is shutting down"))?;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                handler(request)
            })
            .await
            .map_err(|join_error| {
                tracing::error!(%join_error, "engine task failed");
                status::handler_panicked()
            })?
        }
    };
    let response = result.map_err(Status::from)?;
    let length = response.encoded_len();
    if length > limits.max_response_bytes {
        return Err(status::response_too_large(
            length,
            limits.max_response_bytes,
        ));
    }
    Ok(Response::new(response))
}
