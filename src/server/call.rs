//! The accounting of a server's calls: [`Calls`], shared by every call (the metric handles, the
//! concurrency slots, the log throttles, the end of long-lived streams), and [`Call`], one
//! call's guard, which counts it when it ends and gives its slot back when it is dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tonic::Code;

use super::call_metrics::{CallMetrics, CallRecord};
use super::log_throttle::LogThrottle;

/// What every call of one server shares (cloning an `Arc<Calls>` shares it).
#[derive(Debug)]
pub struct Calls {
    /// The per-call metric handles.
    pub metrics: CallMetrics,
    /// Throttles the log lines about shed requests.
    pub shed_log: LogThrottle,
    /// Throttles the log lines about requests past the server timeout.
    pub timeout_log: LogThrottle,
    /// Set at shutdown: long-lived streams end.
    pub shutdown: watch::Sender<bool>,
    /// Requests holding a concurrency slot now.
    slots_taken: AtomicU32,
    /// The concurrency limit: slots in all.
    pub concurrency_limit: u32,
    /// The server's request timeout (for messages; the call layer applies it).
    pub request_timeout: Duration,
}

impl Calls {
    /// The shared state of a server with this request timeout and concurrency limit; metric
    /// handles come from the recorder installed now (install it first).
    pub fn new(request_timeout: Duration, concurrency_limit: u32) -> Self {
        Self {
            metrics: CallMetrics::new(),
            shed_log: LogThrottle::new(),
            timeout_log: LogThrottle::new(),
            shutdown: watch::Sender::new(false),
            slots_taken: AtomicU32::new(0),
            concurrency_limit,
            request_timeout,
        }
    }

    /// Takes a concurrency slot if one is free (a request that finds none is shed, never
    /// queued).
    fn try_take_slot(&self) -> bool {
        self.slots_taken
            .fetch_update(Ordering::Acquire, Ordering::Relaxed, |taken| {
                (taken < self.concurrency_limit).then_some(taken + 1)
            })
            .is_ok()
    }

    fn give_back_slot(&self) {
        self.slots_taken.fetch_sub(1, Ordering::Release);
    }
}

/// One call, from its arrival to the end of its response body: in flight from
/// [`Call::start`]; counted and timed once, by [`Call::finish`] or, if it is dropped first,
/// with [`Call::code_on_drop`]; its concurrency slot (if it took one) is given back when it is
/// dropped.
#[derive(Debug)]
pub struct Call {
    calls: Arc<Calls>,
    record: Option<CallRecord>,
    holds_slot: bool,
    /// The code counted when the call is dropped unfinished: the response's code once it was
    /// complete in its headers (trailers-only), else CANCELLED (the client's deadline passed
    /// or it cancelled before the end).
    pub code_on_drop: Code,
}

impl Call {
    /// A call of the method at `method` (an index into
    /// [`METHOD_LABELS`](super::call_metrics::METHOD_LABELS)) that arrived `now`.
    pub fn start(calls: Arc<Calls>, method: usize, now: Instant, span: tracing::Span) -> Self {
        let record = CallRecord::start(&calls.metrics, method, now, span);
        Self {
            calls,
            record: Some(record),
            holds_slot: false,
            code_on_drop: Code::Cancelled,
        }
    }

    /// Takes a concurrency slot, held until the call is dropped; false when none is free.
    pub fn take_slot(&mut self) -> bool {
        self.holds_slot = self.calls.try_take_slot();
        self.holds_slot
    }

    /// The server's shared call state.
    pub fn calls(&self) -> &Calls {
        &self.calls
    }

    /// Counts and times the call with `code`, once (later calls do nothing).
    pub fn finish(&mut self, code: Code) {
        if let Some(record) = self.record.take() {
            self.calls.metrics.finish(record, code);
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        self.finish(self.code_on_drop);
        if self.holds_slot {
            self.calls.give_back_slot();
        }
    }
}
