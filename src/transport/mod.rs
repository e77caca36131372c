//! The gRPC transport: thin handlers that convert a request (fallibly, naming the field), call
//! the engine and convert the result back. Engine errors become `tonic::Status` in exactly one
//! place, [`status`].

pub mod collapse;
pub mod convert;
pub mod status;
pub mod swap;

pub use collapse::CollapseService;
pub use swap::SwapService;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use status::IntoStatus;
use tokio::sync::Semaphore;
use tonic::{Request, Response, Status};

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

/// Largest response, in encoded bytes, that is compressed when the client accepts gzip or
/// zstd (32 KiB: every board and most cascades). Larger ones go uncompressed: gzip costs about
/// 70 ns a byte on the async worker that writes the response (62 ms for a 910 KB cascade
/// against 11 ms to compute it), which would stall every other call on that worker.
pub const COMPRESS_MAX_BYTES: usize = 32 * 1024;

/// Default longest wait for a heavy-work slot (the server's `--heavy-work-wait`).
pub const DEFAULT_HEAVY_WORK_WAIT: Duration = Duration::from_millis(100);

/// Limits shared by both services.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceLimits {
    /// Largest encoded response, in bytes; a larger one is RESOURCE_EXHAUSTED before it is
    /// built on the wire (the same value as the server's message size limit).
    pub max_response_bytes: usize,
    /// Longest a heavy request waits for one of the heavy-work slots before it is answered
    /// RESOURCE_EXHAUSTED (reason `HEAVY_WORK_BUSY`); less when the client's deadline is
    /// nearer.
    pub heavy_work_wait: Duration,
    /// The server's per-request timeout (`--request-timeout`), if any: long searches
    /// (`CollapsePuzzle.Solve`) stop in time to answer before it. `None` means no such timeout.
    pub request_timeout: Option<Duration>,
}

impl Default for ServiceLimits {
    fn default() -> Self {
        Self {
            max_response_bytes: DEFAULT_MAX_MESSAGE_BYTES as usize,
            heavy_work_wait: DEFAULT_HEAVY_WORK_WAIT,
            request_timeout: None,
        }
    }
}

/// What a long search (`run_search`) gets besides its request: when its answer must be ready
/// and whether anybody still waits for it.
#[derive(Clone, Debug)]
pub struct SearchContext {
    /// When the answer must be ready: the sooner of the client's deadline (`grpc-timeout`) and
    /// the server's request timeout, measured from the call's start, less a margin for sending
    /// the answer ([`answer_margin`]). `None` when neither is set.
    pub deadline: Option<Instant>,
    /// Set when the call is dropped (the client cancelled, or the server's timeout fired):
    /// the search should stop at once; its answer goes nowhere.
    pub cancel: Arc<AtomicBool>,
}

/// The time kept back before a deadline `remaining` away for encoding and sending an answer:
/// a tenth of it, at most 50 ms.
pub fn answer_margin(remaining: Duration) -> Duration {
    (remaining / 10).min(Duration::from_millis(50))
}

/// Sets the cancel flag when dropped: held by the call's future, so a cancelled or timed-out
/// call stops its search on the blocking pool.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Blocking-pool computations allowed at once: twice the CPUs this process may use. A further
/// one waits at most [`ServiceLimits::heavy_work_wait`] for a slot, then is shed, so a burst of
/// heavy requests cannot oversubscribe the CPU or queue past their callers' deadlines.
static LARGE_WORK_SLOTS: LazyLock<Arc<Semaphore>> =
    LazyLock::new(|| Arc::new(Semaphore::new(heavy_work_slots())));

/// The client's deadline from a request's `grpc-timeout` header (at most 8 digits and a unit:
/// `H`, `M`, `S`, `m`, `u`, `n`), measured from now; None without a valid one.
pub(crate) fn client_deadline<T>(request: &Request<T>) -> Option<Instant> {
    deadline_from_grpc_timeout(request.metadata().get("grpc-timeout")?.to_str().ok()?)
}

/// The deadline a `grpc-timeout` header value (at most 8 digits and a unit: `H`, `M`, `S`, `m`,
/// `u`, `n`) sets, measured from now; None for an invalid value.
pub(crate) fn deadline_from_grpc_timeout(value: &str) -> Option<Instant> {
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    let amount: u64 = digits.parse().ok()?;
    let timeout = match unit {
        "H" => Duration::from_secs(amount.saturating_mul(3600)),
        "M" => Duration::from_secs(amount.saturating_mul(60)),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    };
    Instant::now().checked_add(timeout)
}

/// Runs `handler` on `request`'s message where `placement` says, maps its error through the one
/// [`EngineError`](crate::engine::EngineError) to `Status` mapping, and refuses a response over
/// `limits.max_response_bytes`. A panic on the blocking pool is INTERNAL.
///
/// Blocking work first takes one of [`LARGE_WORK_SLOTS`], waiting at most
/// `limits.heavy_work_wait` or until the client's deadline (`grpc-timeout`), whichever is
/// sooner, else answers RESOURCE_EXHAUSTED (`HEAVY_WORK_BUSY`) at once; work whose client
/// deadline has passed is not started (DEADLINE_EXCEEDED, `CLIENT_DEADLINE`). Responses over
/// [`COMPRESS_MAX_BYTES`] are sent uncompressed.
pub(crate) async fn run_engine<Req, Resp, E>(
    limits: ServiceLimits,
    placement: Placement,
    request: Request<Req>,
    handler: fn(Req, ServiceLimits) -> Result<Resp, E>,
) -> Result<Response<Resp>, Status>
where
    Req: Send + 'static,
    Resp: prost::Message + Send + 'static,
    E: IntoStatus + Send + 'static,
{
    let deadline = client_deadline(&request);
    if passed(deadline) {
        return Err(status::client_deadline());
    }
    let request = request.into_inner();
    let result = match placement {
        Placement::Inline => handler(request, limits),
        Placement::Blocking => {
            let permit = heavy_work_slot(limits, deadline).await?;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                handler(request, limits)
            })
            .await
            .map_err(|join_error| {
                tracing::error!(%join_error, "engine task failed");
                status::handler_panicked()
            })?
        }
    };
    respond(limits, result)
}

/// Runs a long search: `handler` on the blocking pool, holding a heavy-work slot as
/// [`run_engine`]'s blocking work does, with a [`SearchContext`] telling it when to answer
/// (the client's deadline or the server's request timeout, less [`answer_margin`]) and a cancel
/// flag set if the call is dropped before it ends. Errors and responses as in [`run_engine`].
pub(crate) async fn run_search<Req, Resp, E>(
    limits: ServiceLimits,
    request: Request<Req>,
    handler: fn(Req, ServiceLimits, SearchContext) -> Result<Resp, E>,
) -> Result<Response<Resp>, Status>
where
    Req: Send + 'static,
    Resp: prost::Message + Send + 'static,
    E: IntoStatus + Send + 'static,
{
    let started = Instant::now();
    let client = client_deadline(&request);
    if passed(client) {
        return Err(status::client_deadline());
    }
    let server = limits
        .request_timeout
        .and_then(|timeout| started.checked_add(timeout));
    let deadline = match (client, server) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
    .map(|d| {
        d.checked_sub(answer_margin(d.saturating_duration_since(started)))
            .unwrap_or(d)
    });
    let request = request.into_inner();
    let permit = heavy_work_slot(limits, client).await?;
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(Arc::clone(&cancel));
    let context = SearchContext { deadline, cancel };
    let result = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        handler(request, limits, context)
    })
    .await
    .map_err(|join_error| {
        tracing::error!(%join_error, "engine task failed");
        status::handler_panicked()
    })?;
    respond(limits, result)
}

/// True when `deadline` has passed.
fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// Takes one of [`LARGE_WORK_SLOTS`], waiting at most `limits.heavy_work_wait` or until the
/// client's `deadline`, whichever is sooner.
///
/// # Errors
/// RESOURCE_EXHAUSTED (`HEAVY_WORK_BUSY`) when none frees up in time; DEADLINE_EXCEEDED
/// (`CLIENT_DEADLINE`) when the deadline passed meanwhile; UNAVAILABLE at shutdown.
async fn heavy_work_slot(
    limits: ServiceLimits,
    deadline: Option<Instant>,
) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
    let wait = deadline.map_or(limits.heavy_work_wait, |d| {
        d.saturating_duration_since(Instant::now())
            .min(limits.heavy_work_wait)
    });
    // The permit moves into the task, so work abandoned by a timed-out or cancelled call still
    // counts until it really ends.
    let permit = match Arc::clone(&LARGE_WORK_SLOTS).try_acquire_owned() {
        Ok(permit) => permit,
        Err(_) => {
            match tokio::time::timeout(wait, Arc::clone(&LARGE_WORK_SLOTS).acquire_owned()).await {
                Ok(Ok(permit)) => permit,
                Ok(Err(_)) => return Err(Status::unavailable("server is shutting down")),
                Err(_) => {
                    if let Some(shed) = HEAVY_SHED_LOG.event() {
                        tracing::warn!(
                            shed,
                            "heavy requests shed with no heavy-work slot free since the last line"
                        );
                    }
                    return Err(status::heavy_work_busy(heavy_work_slots(), wait));
                }
            }
        }
    };
    if passed(deadline) {
        return Err(status::client_deadline());
    }
    Ok(permit)
}

/// The handler's result as the call's answer: errors mapped to `Status`, a response over
/// `limits.max_response_bytes` refused, one over [`COMPRESS_MAX_BYTES`] sent uncompressed.
fn respond<Resp: prost::Message, E: IntoStatus>(
    limits: ServiceLimits,
    result: Result<Resp, E>,
) -> Result<Response<Resp>, Status> {
    let response = result.map_err(IntoStatus::into_status)?;
    let length = response.encoded_len();
    if length > limits.max_response_bytes {
        return Err(status::response_too_large(
            length,
            limits.max_response_bytes,
        ));
    }
    let mut response = Response::new(response);
    if length > COMPRESS_MAX_BYTES {
        response.disable_compression();
    }
    Ok(response)
}

/// Logs heavy requests shed for want of a slot, at most once a second.
static HEAVY_SHED_LOG: LazyLock<crate::server::observe::LogThrottle> =
    LazyLock::new(crate::server::observe::LogThrottle::new);

/// The number of heavy-work slots.
fn heavy_work_slots() -> usize {
    2 * std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}
