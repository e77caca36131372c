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

/// Requests whose board has at most this many cells run on the async worker: they take
/// microseconds. Larger ones (up to 64x64, where generation, shuffle or a long cascade can take
/// tens or hundreds of milliseconds) run on tokio's blocking pool, so they cannot stall health
/// checks or other calls.
pub const INLINE_CELL_LIMIT: u64 = 256;

/// Large-board computations allowed at once: twice the CPUs this process may use. Further ones
/// wait (within the request timeout), so a burst of 64x64 requests cannot oversubscribe the CPU
/// even after their callers gave up.
static LARGE_BOARD_SLOTS: LazyLock<Arc<Semaphore>> = LazyLock::new(|| {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    Arc::new(Semaphore::new(2 * cpus))
});

/// The cell count a request's work scales with, from raw (unvalidated) dimensions.
pub(crate) fn work_cells(width: u32, height: u32) -> u64 {
    u64::from(width) * u64::from(height)
}

/// Runs `handler` inline or on the blocking pool (see [`INLINE_CELL_LIMIT`]) and maps its error
/// through the one [`EngineError`] to `Status` mapping. A panic on the blocking pool is INTERNAL.
pub(crate) async fn run_engine<Req, Resp>(
    cells: u64,
    request: Req,
    handler: fn(Req) -> Result<Resp, EngineError>,
) -> Result<Response<Resp>, Status>
where
    Req: Send + 'static,
    Resp: Send + 'static,
{
    let result = if cells <= INLINE_CELL_LIMIT {
        handler(request)
    } else {
        // The permit moves into the task, so work abandoned by a timed-out or cancelled call
        // still counts until it really ends.
        let permit = Arc::clone(&LARGE_BOARD_SLOTS)
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
            Status::internal("internal error: the request handler panicked")
        })?
    };
    result.map(Response::new).map_err(Status::from)
}
