//! Admission: where each call's engine work runs and whether it may start. Small work runs on
//! the async worker; heavy work (large boards, searches) takes one of a fixed number of
//! heavy-work slots and runs on tokio's blocking pool; a call whose client deadline has passed
//! is not started; a response over the message limit is refused; a long search is told when
//! to answer (the client's deadline or the server's request timeout, less a margin that grows
//! with the load) and stopped when its call is dropped; the call layer gives a search a grace
//! period past the request timeout so that its answer is not replaced by `SERVER_TIMEOUT`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::{Request, Response, Status};

use super::grpc_code::GRPC_TIMEOUT;
use super::log_throttle::LogThrottle;
use crate::proto;
use crate::transport::status::{self, IntoStatus};
use crate::transport::{SearchContext, ServiceLimits};

/// Boards of at most this many cells are resolved or generated on the async worker: that takes
/// microseconds. Larger ones (up to 64x64, where a long cascade can take tens or hundreds of
/// milliseconds) go to tokio's blocking pool, so they cannot stall health checks or other calls.
pub const INLINE_CELL_LIMIT: u64 = 256;

/// Searches (swap `GenerateBoard`, `Shuffle`) on boards of at most this many cells run on the
/// async worker: a few milliseconds at worst (a search that gives up), microseconds usually, so
/// small requests never wait behind 64x64 ones for a blocking-pool slot.
pub const SEARCH_INLINE_CELL_LIMIT: u64 = 100;

/// Replays of at most this many moves on a board of at most [`INLINE_CELL_LIMIT`] cells run
/// on the async worker.
pub const INLINE_REPLAY_MOVES: usize = 64;

/// Largest response, in encoded bytes, that is compressed when the client accepts gzip or
/// zstd (32 KiB: every board and most cascades). Larger ones go uncompressed: gzip costs about
/// 70 ns a byte on the async worker that writes the response (62 ms for a 910 KB cascade
/// against 11 ms to compute it), which would stall every other call on that worker.
pub const COMPRESS_MAX_BYTES: usize = 32 * 1024;

/// Default longest wait for a heavy-work slot (the server's `--heavy-work-wait`).
pub const DEFAULT_HEAVY_WORK_WAIT: Duration = Duration::from_millis(100);

/// Where a call's engine work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// On the async worker: bounded, microsecond work (verdicts, dead-state checks, taps).
    Inline,
    /// On the blocking pool, holding a heavy-work slot: searches on boards above
    /// [`SEARCH_INLINE_CELL_LIMIT`] cells and other work above [`INLINE_CELL_LIMIT`] cells.
    Blocking,
}

impl Placement {
    /// Inline for at most `inline_limit` cells ([`INLINE_CELL_LIMIT`] for work that grows with
    /// the board, [`SEARCH_INLINE_CELL_LIMIT`] for searches), on the blocking pool above.
    pub fn for_cells(cells: u64, inline_limit: u64) -> Self {
        if cells <= inline_limit {
            Self::Inline
        } else {
            Self::Blocking
        }
    }

    /// A replay's placement: inline for a start of at most [`INLINE_CELL_LIMIT`] cells (a
    /// board, or a generation request's size) and at most [`INLINE_REPLAY_MOVES`] moves.
    pub fn for_replay(start_cells: u64, moves: usize) -> Self {
        if moves <= INLINE_REPLAY_MOVES {
            Self::for_cells(start_cells, INLINE_CELL_LIMIT)
        } else {
            Self::Blocking
        }
    }
}

/// The cell count of raw (unvalidated) dimensions.
pub fn cells(width: u32, height: u32) -> u64 {
    u64::from(width) * u64::from(height)
}

/// The cell count of a request's optional board; 0 when absent (the request fails at once).
pub fn board_cells(board: Option<&proto::Board>) -> u64 {
    board.map_or(0, |b| cells(b.width, b.height))
}

/// The heavy-work slots and waits of one server, shared by its services (cloning shares the
/// slots).
#[derive(Clone, Debug)]
pub struct Admission {
    /// What a handler applies to its own work and answer (the response size limit, the
    /// server's request timeout).
    pub limits: ServiceLimits,
    /// Longest a heavy request waits for a heavy-work slot before it is answered
    /// RESOURCE_EXHAUSTED (reason `HEAVY_WORK_BUSY`); less when the client's deadline is
    /// nearer.
    pub heavy_work_wait: Duration,
    slots: Arc<Semaphore>,
    slot_count: usize,
    shed_log: Arc<LogThrottle>,
}

impl Default for Admission {
    /// [`ServiceLimits::default`], [`DEFAULT_HEAVY_WORK_WAIT`] and
    /// [`default_heavy_work_slots`] slots.
    fn default() -> Self {
        Self::new(
            ServiceLimits::default(),
            DEFAULT_HEAVY_WORK_WAIT,
            default_heavy_work_slots(),
        )
    }
}

/// Twice the CPUs this process may use: blocking-pool computations allowed at once. A further
/// one waits at most [`Admission::heavy_work_wait`] for a slot, then is shed, so a burst of
/// heavy requests cannot oversubscribe the CPU or queue past their callers' deadlines.
pub fn default_heavy_work_slots() -> usize {
    2 * std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

impl Admission {
    /// An admission with `slot_count` heavy-work slots (at least 1).
    pub fn new(limits: ServiceLimits, heavy_work_wait: Duration, slot_count: usize) -> Self {
        let slot_count = slot_count.max(1);
        Self {
            limits,
            heavy_work_wait,
            slots: Arc::new(Semaphore::new(slot_count)),
            slot_count,
            shed_log: Arc::new(LogThrottle::new()),
        }
    }

    /// Runs `handler` on `request`'s message where `placement` says, maps its error to its
    /// status ([`IntoStatus`]), and refuses a response over the message limit. A panic on the
    /// blocking pool is INTERNAL.
    ///
    /// Blocking work first takes a heavy-work slot, waiting at most
    /// [`Admission::heavy_work_wait`] or until the client's deadline (`grpc-timeout`),
    /// whichever is sooner, else answers RESOURCE_EXHAUSTED (`HEAVY_WORK_BUSY`) at once; work
    /// whose client deadline has passed is not started (DEADLINE_EXCEEDED, `CLIENT_DEADLINE`).
    /// Responses over [`COMPRESS_MAX_BYTES`] are sent uncompressed.
    pub async fn run<Req, Resp, E>(
        &self,
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
        let limits = self.limits;
        let result = match placement {
            Placement::Inline => handler(request, limits),
            Placement::Blocking => {
                let permit = self.heavy_work_slots(deadline, 1).await?;
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

    /// Runs a long search: `handler` on the blocking pool, holding `slots` heavy-work slots
    /// (one a thread of the search; at least 1, at most the server's slot count) as
    /// [`Admission::run`]'s blocking work holds one, with a [`SearchContext`] telling it when to
    /// answer (the client's deadline or the server's request timeout, less [`answer_margin`])
    /// and a cancel flag set if the call is dropped before it ends. Errors and responses as in
    /// [`Admission::run`].
    pub async fn run_search<Req, Resp, E>(
        &self,
        request: Request<Req>,
        slots: usize,
        handler: fn(Req, ServiceLimits, SearchContext) -> Result<Resp, E>,
    ) -> Result<Response<Resp>, Status>
    where
        Req: Send + 'static,
        Resp: prost::Message + Send + 'static,
        E: IntoStatus + Send + 'static,
    {
        self.run_search_reporting(request, slots, None, handler)
            .await
    }

    /// [`Admission::run_search`], the search counting its finished work in `progress` (its
    /// [`SearchContext::progress`]) for the caller to report while it runs.
    pub async fn run_search_reporting<Req, Resp, E>(
        &self,
        request: Request<Req>,
        slots: usize,
        progress: Option<Arc<AtomicU32>>,
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
        let server = self
            .limits
            .request_timeout
            .and_then(|timeout| started.checked_add(timeout));
        let deadline = match (client, server) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let load = self.load();
        let deadline = deadline.map(|d| {
            d.checked_sub(answer_margin(d.saturating_duration_since(started), load))
                .unwrap_or(d)
        });
        let request = request.into_inner();
        let permit = self.heavy_work_slots(client, slots).await?;
        let cancel = Arc::new(AtomicBool::new(false));
        let _guard = CancelOnDrop(Arc::clone(&cancel));
        let context = SearchContext {
            deadline,
            cancel,
            progress,
        };
        let limits = self.limits;
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

    /// The heavy computations running now per CPU (slots in use over half the slot count, the
    /// CPUs [`default_heavy_work_slots`] counts): 0 on an idle server, 2 with every slot taken.
    pub fn load(&self) -> f64 {
        let busy = self.slot_count - self.slots.available_permits().min(self.slot_count);
        let cpus = (self.slot_count / 2).max(1);
        busy as f64 / cpus as f64
    }

    /// Takes `count` heavy-work slots at once (`1..=` the slot count; clamped), waiting at
    /// most [`Admission::heavy_work_wait`] or until the client's `deadline`, whichever is
    /// sooner.
    ///
    /// # Errors
    /// RESOURCE_EXHAUSTED (`HEAVY_WORK_BUSY`) when none frees up in time; DEADLINE_EXCEEDED
    /// (`CLIENT_DEADLINE`) when the deadline passed meanwhile; UNAVAILABLE at shutdown.
    async fn heavy_work_slots(
        &self,
        deadline: Option<Instant>,
        count: usize,
    ) -> Result<OwnedSemaphorePermit, Status> {
        let count = count.clamp(1, self.slot_count) as u32;
        let wait = deadline.map_or(self.heavy_work_wait, |d| {
            d.saturating_duration_since(Instant::now())
                .min(self.heavy_work_wait)
        });
        // The permit moves into the task, so work abandoned by a timed-out or cancelled call
        // still counts until it really ends.
        let permit = match Arc::clone(&self.slots).try_acquire_many_owned(count) {
            Ok(permit) => permit,
            Err(_) => {
                let acquire = Arc::clone(&self.slots).acquire_many_owned(count);
                match tokio::time::timeout(wait, acquire).await {
                    Ok(Ok(permit)) => permit,
                    Ok(Err(_)) => return Err(Status::unavailable("server is shutting down")),
                    Err(_) => {
                        if let Some(shed) = self.shed_log.event() {
                            tracing::warn!(
                                shed,
                                "heavy requests shed with no heavy-work slot free since the \
                                 last line"
                            );
                        }
                        return Err(status::heavy_work_busy(self.slot_count, wait));
                    }
                }
            }
        };
        if passed(deadline) {
            return Err(status::client_deadline());
        }
        Ok(permit)
    }
}

/// The time kept back before a deadline `remaining` away for the search to notice it, finish
/// its step, and encode and send its answer: on a server with CPU to spare (`load`, heavy
/// computations per CPU, at most 1) a tenth of it, at most 50 ms; under load that time
/// stretches with the queue for the CPU, so the margin grows with the load (a tenth of the
/// remaining time and 50 ms both times `load`) up to a quarter of the remaining time, at most
/// 1 s. The server's own timeout also yields to a search that is answering
/// ([`search_grace`]); a client's deadline cannot, so this margin is what keeps its answer.
pub fn answer_margin(remaining: Duration, load: f64) -> Duration {
    let factor = if load.is_finite() {
        load.clamp(1.0, 8.0)
    } else {
        1.0
    };
    let margin = (remaining / 10)
        .mul_f64(factor)
        .min(Duration::from_millis(50).mul_f64(factor));
    margin.min(remaining / 4).min(Duration::from_secs(1))
}

/// Paths whose handlers answer by a deadline they are given ([`Admission::run_search`]):
/// Solve's best-so-far (`stop = SOLVE_STOP_DEADLINE`), Simulate's and sampled Hint's
/// `WORK_DEADLINE`. The server's request timeout on them is extended by [`search_grace`].
pub const SEARCH_PATHS: &[&str] = &[
    "/matchgrid.v1.CollapsePuzzle/Solve",
    "/matchgrid.v1.SwapPuzzle/Simulate",
    "/matchgrid.v1.SwapPuzzle/SimulateWithProgress",
    "/matchgrid.v1.SwapPuzzle/Hint",
];

/// How long past the server's request timeout the call layer waits for a search path
/// ([`SEARCH_PATHS`]) before answering `SERVER_TIMEOUT` itself: half the timeout, at least
/// 1 s and at most 10 s. The search itself aims at the timeout less [`answer_margin`], so the
/// grace only matters when the CPU is so contended that the search's answer is late; without
/// it that late answer, best-so-far included, would be thrown away.
pub fn search_grace(request_timeout: Duration) -> Duration {
    (request_timeout / 2).clamp(Duration::from_secs(1), Duration::from_secs(10))
}

/// Sets the cancel flag when dropped: held by the call's future, so a cancelled or timed-out
/// call stops its search on the blocking pool.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// The client's deadline from a request's `grpc-timeout` header (at most 8 digits and a unit:
/// `H`, `M`, `S`, `m`, `u`, `n`), measured from now; None without a valid one.
pub fn client_deadline<T>(request: &Request<T>) -> Option<Instant> {
    let headers: &http::HeaderMap = request.metadata().as_ref();
    deadline_from_grpc_timeout(headers.get(&GRPC_TIMEOUT)?.to_str().ok()?)
}

/// The deadline a `grpc-timeout` header value (at most 8 digits and a unit: `H`, `M`, `S`, `m`,
/// `u`, `n`) sets, measured from now; None for an invalid value.
pub fn deadline_from_grpc_timeout(value: &str) -> Option<Instant> {
    Instant::now().checked_add(grpc_timeout(value)?)
}

/// The time a `grpc-timeout` header value (at most 8 digits and a unit: `H`, `M`, `S`, `m`,
/// `u`, `n`) gives the call; None for an invalid value.
pub fn grpc_timeout(value: &str) -> Option<Duration> {
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    let amount: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(amount.saturating_mul(3600)),
        "M" => Duration::from_secs(amount.saturating_mul(60)),
        "S" => Duration::from_secs(amount),
        "m" => Duration::from_millis(amount),
        "u" => Duration::from_micros(amount),
        "n" => Duration::from_nanos(amount),
        _ => return None,
    })
}

/// True when `deadline` has passed.
fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
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

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_answer_margin_grows_with_the_load() {
        // Idle or up to one heavy computation per CPU: a tenth, at most 50 ms.
        assert_eq!(answer_margin(300 * MS, 0.0), 30 * MS);
        assert_eq!(answer_margin(300 * MS, 1.0), 30 * MS);
        assert_eq!(answer_margin(5000 * MS, 0.5), 50 * MS);
        // Two per CPU (every slot taken): twice that.
        assert_eq!(answer_margin(300 * MS, 2.0), 60 * MS);
        assert_eq!(answer_margin(5000 * MS, 2.0), 100 * MS);
        // Never more than a quarter of the time left, nor 1 s.
        assert_eq!(answer_margin(300 * MS, 8.0), 75 * MS);
        assert_eq!(answer_margin(60_000 * MS, 8.0), 400 * MS);
        assert_eq!(answer_margin(20 * MS, f64::NAN), 2 * MS);
    }

    #[test]
    fn searches_get_half_the_timeout_of_grace_within_1_to_10_s() {
        assert_eq!(search_grace(300 * MS), 1000 * MS);
        assert_eq!(search_grace(5000 * MS), 2500 * MS);
        assert_eq!(search_grace(60_000 * MS), 10_000 * MS);
    }

    #[tokio::test]
    async fn the_load_counts_heavy_slots_in_use_per_cpu() {
        let admission = Admission::new(ServiceLimits::default(), DEFAULT_HEAVY_WORK_WAIT, 4);
        assert_eq!(admission.load(), 0.0);
        let first = admission.heavy_work_slots(None, 1).await.unwrap();
        assert_eq!(admission.load(), 0.5);
        let rest: Vec<_> = [(); 3]
            .iter()
            .map(|_| Arc::clone(&admission.slots).try_acquire_owned().unwrap())
            .collect();
        assert_eq!(admission.load(), 2.0);
        drop((first, rest));
        assert_eq!(admission.load(), 0.0);
    }

    #[tokio::test]
    async fn a_search_takes_one_slot_a_thread_and_never_more_than_all() {
        let wait = Duration::from_millis(10);
        let admission = Admission::new(ServiceLimits::default(), wait, 4);
        let two = admission.heavy_work_slots(None, 2).await.unwrap();
        assert_eq!(admission.load(), 1.0);
        // Three more do not fit beside the two: shed after the wait.
        let status = admission.heavy_work_slots(None, 3).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}");
        drop(two);
        // Asking for more than there are takes them all.
        let all = admission.heavy_work_slots(None, 64).await.unwrap();
        assert_eq!(admission.load(), 2.0);
        drop(all);
        assert_eq!(admission.load(), 0.0);
    }
}
