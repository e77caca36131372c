//! The per-call Prometheus metrics (names are stable):
//! - `matchgrid_requests_total{method, code}`: finished requests by gRPC code name;
//! - `matchgrid_request_duration_seconds{method}`: latency histogram, to the end of the
//!   response body (the last byte handed to the connection, trailers included);
//! - `matchgrid_requests_in_flight`: requests being served;
//! - `matchgrid_requests_shed_total`: requests refused at the concurrency limit.
//!
//! The `method` label takes only the values of [`KNOWN_METHODS`] and `other`, so a client
//! cannot blow up label cardinality with made-up paths.

use std::sync::OnceLock;
use std::time::Instant;

use metrics::{Counter, Gauge, Histogram};
use tonic::Code;

use super::grpc_code::{CODE_COUNT, code_name};
use super::span;

/// Histogram buckets of `matchgrid_request_duration_seconds`, in seconds.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1.0, 2.5, 5.0,
];

/// Every RPC this server serves, as gRPC paths: the only values of the `method` label.
pub const KNOWN_METHODS: &[&str] = &[
    "/matchgrid.v1.SwapPuzzle/GenerateBoard",
    "/matchgrid.v1.SwapPuzzle/ValidateSwap",
    "/matchgrid.v1.SwapPuzzle/ResolveCascade",
    "/matchgrid.v1.SwapPuzzle/CheckDeadState",
    "/matchgrid.v1.SwapPuzzle/Shuffle",
    "/matchgrid.v1.SwapPuzzle/ReplayGame",
    "/matchgrid.v1.SwapPuzzle/Hint",
    "/matchgrid.v1.SwapPuzzle/Simulate",
    "/matchgrid.v1.SwapPuzzle/StartLevel",
    "/matchgrid.v1.SwapPuzzle/PlayMove",
    "/matchgrid.v1.SwapPuzzle/SimulateWithProgress",
    "/matchgrid.v1.CollapsePuzzle/GenerateBoard",
    "/matchgrid.v1.CollapsePuzzle/Tap",
    "/matchgrid.v1.CollapsePuzzle/CheckDeadState",
    "/matchgrid.v1.CollapsePuzzle/Solve",
    "/matchgrid.v1.CollapsePuzzle/ReplayGame",
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
];

/// Every value of the `method` label: [`KNOWN_METHODS`], then `other` for any other path.
pub const METHOD_LABELS: [&str; KNOWN_METHODS.len() + 1] = {
    let mut labels = ["other"; KNOWN_METHODS.len() + 1];
    let mut i = 0;
    while i < KNOWN_METHODS.len() {
        labels[i] = KNOWN_METHODS[i];
        i += 1;
    }
    labels
};

/// The index of `path`'s method label in [`METHOD_LABELS`].
pub fn method_index(path: &str) -> usize {
    KNOWN_METHODS
        .iter()
        .position(|&known| known == path)
        .unwrap_or(KNOWN_METHODS.len())
}

/// The per-call metric handles, registered once per label set instead of once per call (a
/// registration builds the key, hashes it and looks it up in the recorder's registry). A label
/// set is registered on its first event, as the `metrics` macros would, so a series is exported
/// from its first event on, not before.
#[derive(Debug)]
pub struct CallMetrics {
    in_flight: Gauge,
    shed: Counter,
    /// Indexed like [`METHOD_LABELS`].
    methods: [MethodMetrics; METHOD_LABELS.len()],
}

/// `matchgrid_requests_total` by code and `matchgrid_request_duration_seconds` of one method.
#[derive(Debug, Default)]
struct MethodMetrics {
    /// Indexed by gRPC code number.
    requests: [OnceLock<Counter>; CODE_COUNT],
    duration: OnceLock<Histogram>,
}

impl Default for CallMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl CallMetrics {
    /// Handles on the recorder installed now (the one the `metrics` macros would use), so
    /// install the recorder first.
    pub fn new() -> Self {
        Self {
            in_flight: metrics::gauge!("matchgrid_requests_in_flight"),
            shed: metrics::counter!("matchgrid_requests_shed_total"),
            methods: std::array::from_fn(|_| MethodMetrics::default()),
        }
    }

    /// Counts one request refused at the concurrency limit.
    pub fn count_shed(&self) {
        self.shed.increment(1);
    }

    /// Counts and times a finished call with its code (and records both on its span); it is
    /// no longer in flight.
    pub fn finish(&self, record: CallRecord, code: Code) {
        let elapsed = record.started.elapsed();
        let label = METHOD_LABELS[record.method];
        let slots = &self.methods[record.method];
        slots.requests[code as usize]
            .get_or_init(|| {
                metrics::counter!(
                    "matchgrid_requests_total",
                    "method" => label,
                    "code" => code_name(code)
                )
            })
            .increment(1);
        slots
            .duration
            .get_or_init(
                || metrics::histogram!("matchgrid_request_duration_seconds", "method" => label),
            )
            .record(elapsed.as_secs_f64());
        span::record_finish(&record.span, code, elapsed);
        self.in_flight.decrement(1.0);
    }
}

/// One call's metrics and span, from [`CallRecord::start`] (in flight from then on) to
/// [`CallMetrics::finish`] (counted, timed, no longer in flight).
#[derive(Debug)]
pub struct CallRecord {
    method: usize,
    started: Instant,
    span: tracing::Span,
}

impl CallRecord {
    /// A call of the method at `method` (an index into [`METHOD_LABELS`]) that arrived at
    /// `now`, in flight from now on.
    pub fn start(metrics: &CallMetrics, method: usize, now: Instant, span: tracing::Span) -> Self {
        metrics.in_flight.increment(1.0);
        Self {
            method,
            started: now,
            span,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn every_served_rpc_has_its_own_method_label() {
        let mut paths = Vec::new();
        for set in [
            crate::proto::FILE_DESCRIPTOR_SET,
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
        ] {
            let set = prost_types::FileDescriptorSet::decode(set).unwrap();
            for file in set.file {
                for service in &file.service {
                    for method in &service.method {
                        paths.push(format!(
                            "/{}.{}/{}",
                            file.package(),
                            service.name(),
                            method.name()
                        ));
                    }
                }
            }
        }
        paths.sort();
        let mut known: Vec<String> = KNOWN_METHODS.iter().map(|m| (*m).to_owned()).collect();
        known.sort();
        assert_eq!(paths, known);
        for path in ["/matchgrid.v1.Bogus/X", "/matchgrid.v1.SwapPuzzle/Nope"] {
            assert_eq!(METHOD_LABELS[method_index(path)], "other");
        }
        for path in KNOWN_METHODS {
            assert_eq!(METHOD_LABELS[method_index(path)], *path);
        }
    }
}
