//! A log line at most once a second for events that can come thousands of times a second
//! (shed or timed-out requests), carrying the count since the previous line.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The least time between two log lines about shed, or timed-out, requests.
pub const LOG_INTERVAL: Duration = Duration::from_secs(1);

/// Logs an event at most once per [`LOG_INTERVAL`], with the count since the previous line.
#[derive(Debug)]
pub struct LogThrottle {
    origin: Instant,
    /// Milliseconds since `origin` of the last line, plus one (0: never logged).
    last_logged: AtomicU64,
    pending: AtomicU64,
}

impl Default for LogThrottle {
    fn default() -> Self {
        Self::new()
    }
}

impl LogThrottle {
    /// A throttle that has not logged yet.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
            last_logged: AtomicU64::new(0),
            pending: AtomicU64::new(0),
        }
    }

    /// Counts one event; returns the number of events to report when a line is due now (the
    /// caller logs it), None otherwise.
    pub fn event(&self) -> Option<u64> {
        self.pending.fetch_add(1, Ordering::Relaxed);
        let now = self.origin.elapsed().as_millis() as u64 + 1;
        let last = self.last_logged.load(Ordering::Relaxed);
        if last != 0 && now - last < LOG_INTERVAL.as_millis() as u64 {
            return None;
        }
        self.last_logged
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .ok()?;
        Some(self.pending.swap(0, Ordering::Relaxed))
    }
}
