//! The gRPC transport: thin handlers that convert a request (fallibly, naming the field), call
//! the engine and convert the result back. Engine errors become `tonic::Status` in exactly one
//! place, [`status`]. Where a handler runs, and whether it may start, is the server's
//! business (`crate::server::admission`); the services that wire the two are in
//! `crate::server::services`.

pub mod collapse;
pub mod convert;
pub mod status;
pub mod swap;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Default largest request and response message, in bytes (1 MiB; a 64x64 board is ~8 KB):
/// the server's `--max-message-bytes` default and [`ServiceLimits::default`].
pub const DEFAULT_MAX_MESSAGE_BYTES: u32 = 1024 * 1024;

/// What a handler applies to its own answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceLimits {
    /// Largest encoded response, in bytes; a larger one is RESOURCE_EXHAUSTED before it is
    /// built on the wire (the same value as the server's message size limit). ResolveCascade
    /// stops its cascade as soon as the reply would pass it.
    pub max_response_bytes: usize,
    /// The server's per-request timeout (`--request-timeout`), if any: long work (Solve,
    /// Hint, Simulate, long cascades) stops in time to answer before it. `None` means no such
    /// timeout.
    pub request_timeout: Option<Duration>,
    /// Most threads one Solve may run on (`--solve-threads`), `1..=64`: a request asking for
    /// more gets this many.
    pub max_solve_threads: usize,
}

impl Default for ServiceLimits {
    fn default() -> Self {
        Self {
            max_response_bytes: DEFAULT_MAX_MESSAGE_BYTES as usize,
            request_timeout: None,
            max_solve_threads: default_solve_threads(),
        }
    }
}

/// The CPUs this process may use, at most 64: the default of `--solve-threads`.
pub fn default_solve_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(crate::engine::MAX_SOLVE_THREADS as usize)
}

/// What a long search (Solve, Hint, Simulate) gets besides its request: when its answer must
/// be ready and whether anybody still waits for it.
#[derive(Clone, Debug)]
pub struct SearchContext {
    /// When the answer must be ready: the sooner of the client's deadline (`grpc-timeout`) and
    /// the server's request timeout, measured from the call's start, less a margin for sending
    /// the answer. `None` when neither is set.
    pub deadline: Option<Instant>,
    /// Set when the call is dropped (the client cancelled, or the server's timeout fired):
    /// the search should stop at once; its answer goes nowhere.
    pub cancel: Arc<AtomicBool>,
    /// Where the search counts the work it has finished, for a caller reporting progress:
    /// Simulate stores the games played so far. `None` when nobody reads it.
    pub progress: Option<Arc<AtomicU32>>,
}

impl SearchContext {
    /// Records that `done` units of the work are finished (Simulate: games), when the caller
    /// reads progress.
    pub fn report(&self, done: u32) {
        if let Some(progress) = &self.progress {
            progress.store(done, Ordering::Relaxed);
        }
    }
}
