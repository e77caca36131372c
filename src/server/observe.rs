//! One tower layer around every RPC: a tracing span with method, gRPC code and latency;
//! Prometheus metrics; panics and middleware errors turned into proper gRPC statuses.
//!
//! Metrics (names are stable):
//! - `matchgrid_requests_total{method, code}`: finished requests by gRPC code name;
//! - `matchgrid_request_duration_seconds{method}`: latency histogram, to response headers;
//! - `matchgrid_requests_in_flight`: requests being served;
//! - `matchgrid_requests_shed_total`: requests refused at the concurrency limit.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::future::Either;
use futures_util::{FutureExt, TryFutureExt};
use http::HeaderName;
use metrics::{Counter, Gauge, Histogram};
use tonic::{Code, Status};
use tower::{BoxError, Layer, Service};
use tracing::Instrument;

use crate::transport::status;

/// Histogram buckets of `matchgrid_request_duration_seconds`, in seconds.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1.0, 2.5, 5.0,
];

/// The layer. `request_timeout` and `concurrency_limit` only word the DEADLINE_EXCEEDED and
/// RESOURCE_EXHAUSTED messages; the metric handles are shared by every service it wraps.
#[derive(Clone, Debug)]
pub struct ObserveLayer {
    settings: Settings,
    metrics: Arc<CallMetrics>,
}

/// What error messages need to know about the configuration.
#[derive(Clone, Copy, Debug)]
struct Settings {
    request_timeout: Duration,
    concurrency_limit: u32,
}

impl ObserveLayer {
    /// A layer for a server with this per-request timeout and concurrency limit. Metric handles
    /// are taken from the recorder installed at the time of each label set's first use (the
    /// same recorder the `metrics` macros would use), so install the recorder first.
    pub fn new(request_timeout: Duration, concurrency_limit: u32) -> Self {
        Self {
            settings: Settings {
                request_timeout,
                concurrency_limit,
            },
            metrics: Arc::new(CallMetrics::new()),
        }
    }
}

impl<S> Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Observe {
            inner,
            settings: self.settings,
            metrics: Arc::clone(&self.metrics),
        }
    }
}

/// See [`ObserveLayer`].
#[derive(Clone, Debug)]
pub struct Observe<S> {
    inner: S,
    settings: Settings,
    metrics: Arc<CallMetrics>,
}

/// Every RPC this server serves, as gRPC paths: the only values of the `method` label.
pub const KNOWN_METHODS: &[&str] = &[
    "/matchgrid.v1.SwapPuzzle/GenerateBoard",
    "/matchgrid.v1.SwapPuzzle/ValidateSwap",
    "/matchgrid.v1.SwapPuzzle/ResolveCascade",
    "/matchgrid.v1.SwapPuzzle/CheckDeadState",
    "/matchgrid.v1.SwapPuzzle/Shuffle",
    "/matchgrid.v1.CollapsePuzzle/GenerateBoard",
    "/matchgrid.v1.CollapsePuzzle/Tap",
    "/matchgrid.v1.CollapsePuzzle/CheckDeadState",
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
];

/// Every value of the `method` label: [`KNOWN_METHODS`], then `other` for any other path, so a
/// client cannot blow up label cardinality with made-up paths.
const METHOD_LABELS: [&str; KNOWN_METHODS.len() + 1] = {
    let mut labels = ["other"; KNOWN_METHODS.len() + 1];
    let mut i = 0;
    while i < KNOWN_METHODS.len() {
        labels[i] = KNOWN_METHODS[i];
        i += 1;
    }
    labels
};

/// The index of `path`'s method label in [`METHOD_LABELS`].
fn method_index(path: &str) -> usize {
    KNOWN_METHODS
        .iter()
        .position(|&known| known == path)
        .unwrap_or(KNOWN_METHODS.len())
}

/// gRPC codes are 0..=16.
const CODE_COUNT: usize = 17;

/// The per-call metric handles, registered once per label set instead of once per call (a
/// registration builds the key, hashes it and looks it up in the recorder's registry). A label
/// set is registered on its first event, as the `metrics` macros would, so a series is exported
/// from its first event on, not before.
#[derive(Debug)]
struct CallMetrics {
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

impl CallMetrics {
    fn new() -> Self {
        Self {
            in_flight: metrics::gauge!("matchgrid_requests_in_flight"),
            shed: metrics::counter!("matchgrid_requests_shed_total"),
            methods: std::array::from_fn(|_| MethodMetrics::default()),
        }
    }

    /// Counts one finished call of the method at `method` (an index into [`METHOD_LABELS`]).
    fn finish(&self, method: usize, code: Code, elapsed: Duration) {
        let label = METHOD_LABELS[method];
        let slots = &self.methods[method];
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
    }
}

/// One call's metrics: in flight from creation; counted and timed by [`CallRecord::finish`],
/// or, if the call is dropped first (the client's deadline passed or it cancelled), counted as
/// CANCELLED when dropped.
struct CallRecord {
    metrics: Arc<CallMetrics>,
    method: usize,
    started: Instant,
    finished: bool,
}

impl CallRecord {
    fn start(metrics: Arc<CallMetrics>, method: usize) -> Self {
        metrics.in_flight.increment(1.0);
        Self {
            metrics,
            method,
            started: Instant::now(),
            finished: false,
        }
    }

    fn finish(&mut self, code: Code) -> Duration {
        let elapsed = self.started.elapsed();
        self.metrics.finish(self.method, code, elapsed);
        self.finished = true;
        elapsed
    }
}

impl Drop for CallRecord {
    fn drop(&mut self) {
        if !self.finished {
            self.finish(Code::Cancelled);
        }
        self.metrics.in_flight.decrement(1.0);
    }
}

fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

const GRPC_STATUS: HeaderName = HeaderName::from_static("grpc-status");
const GRPC_MESSAGE: HeaderName = HeaderName::from_static("grpc-message");

/// The gRPC code in a response's headers (trailers-only responses carry it there); a response
/// without one is OK so far (unary success puts OK in the trailers).
fn header_code<B>(response: &http::Response<B>) -> Code {
    response
        .headers()
        .get(GRPC_STATUS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .map_or(Code::Ok, Code::from_i32)
}

/// The response's `grpc-message`, percent-decoded as the gRPC wire format requires.
fn grpc_message<B>(response: &http::Response<B>) -> String {
    response
        .headers()
        .get(GRPC_MESSAGE)
        .map(|v| {
            percent_encoding::percent_decode(v.as_bytes())
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_default()
}

/// Brings tonic's own codec errors in line with docs/rules.md section 4 (no matchgrid handler returns
/// either of these codes, so the rewrite is exact):
/// - a message over the configured size limit is OUT_OF_RANGE in tonic, RESOURCE_EXHAUSTED here
///   ("a request exceeds a configured limit");
/// - a body that is not a valid protobuf message, or not valid data for its declared
///   compression, is INTERNAL in tonic (following gRPC's library convention), INVALID_ARGUMENT
///   here ("malformed request"; INTERNAL is kept for our bugs).
///
/// Returns the response's code after the rewrite.
fn remap_codec_errors<B>(response: &mut http::Response<B>) -> Code {
    let code = header_code(response);
    if code != Code::OutOfRange && code != Code::Internal {
        return code;
    }
    let message = grpc_message(response);
    let remapped = match code {
        Code::OutOfRange if message.contains("message length too large") => Code::ResourceExhausted,
        Code::Internal
            if message.starts_with("failed to decode Protobuf message")
                || message.starts_with("Error decompressing") =>
        {
            Code::InvalidArgument
        }
        _ => return code,
    };
    response
        .headers_mut()
        .insert(GRPC_STATUS, http::HeaderValue::from(remapped as i32));
    remapped
}

impl<S, B, RB> Service<http::Request<B>> for Observe<S>
where
    S: Service<http::Request<B>, Response = http::Response<RB>>,
    S::Error: Into<BoxError> + 'static,
    S::Future: Send + 'static,
    RB: Default + Send + 'static,
{
    type Response = http::Response<RB>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let method = method_index(request.uri().path());
        let span = tracing::debug_span!(
            "rpc",
            method = METHOD_LABELS[method],
            code = tracing::field::Empty,
            latency_us = tracing::field::Empty,
        );
        let settings = self.settings;
        let metrics = Arc::clone(&self.metrics);
        let mut record = CallRecord::start(Arc::clone(&metrics), method);
        // A panic while building the future is caught like one while polling it.
        let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request)))
        {
            Ok(future) => Either::Left(AssertUnwindSafe(future.map_err(Into::into)).catch_unwind()),
            Err(panic) => Either::Right(std::future::ready(Err(panic))),
        };
        let instrumented = span.clone();
        // A combinator rather than an async block: the block would hold the inner future
        // twice (as a captured value and as the awaited one), which every call then copies.
        Box::pin(
            outcome
                .map(move |outcome| {
                    let (response, code) = match outcome {
                        Ok(Ok(mut response)) => {
                            let code = remap_codec_errors(&mut response);
                            (response, code)
                        }
                        Ok(Err(error)) => {
                            let response = error_response(error, settings, &metrics);
                            let code = header_code(&response);
                            (response, code)
                        }
                        Err(_panic) => {
                            tracing::error!("handler panicked; answered INTERNAL");
                            (status::handler_panicked().into_http(), Code::Internal)
                        }
                    };
                    let elapsed = record.finish(code);
                    // Skips formatting the fields when the span is filtered out (the default).
                    if !span.is_disabled() {
                        span.record("code", code_name(code));
                        span.record("latency_us", elapsed.as_micros() as u64);
                    }
                    tracing::debug!("rpc finished");
                    Ok(response)
                })
                .instrument(instrumented),
        )
    }
}

/// Middleware errors (shed, timeout) as gRPC responses, so every outcome is counted here.
fn error_response<RB: Default>(
    error: BoxError,
    settings: Settings,
    metrics: &CallMetrics,
) -> http::Response<RB> {
    let status = if error.is::<tower::load_shed::error::Overloaded>() {
        metrics.shed.increment(1);
        tracing::warn!("request shed at the concurrency limit");
        status::overloaded(settings.concurrency_limit)
    } else if error.is::<tower::timeout::error::Elapsed>() {
        status::server_timeout(settings.request_timeout)
    } else {
        Status::from_error(error)
    };
    status.into_http()
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use tower::ServiceExt;

    fn layer() -> ObserveLayer {
        ObserveLayer::new(Duration::from_secs(5), 8)
    }

    fn request() -> http::Request<()> {
        http::Request::builder()
            .uri("/matchgrid.v1.SwapPuzzle/Shuffle")
            .body(())
            .unwrap()
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    #[test]
    fn a_panicking_handler_is_answered_internal() {
        let panics_when_polled = tower::service_fn(|_: http::Request<()>| async {
            if true {
                panic!("handler bug");
            }
            Ok::<_, BoxError>(http::Response::new(()))
        });
        let response = runtime()
            .block_on(layer().layer(panics_when_polled).oneshot(request()))
            .unwrap();
        assert_eq!(header_code(&response), Code::Internal);

        let panics_when_called = tower::service_fn(
            |_: http::Request<()>| -> std::future::Ready<Result<http::Response<()>, BoxError>> {
                panic!("handler bug before any future")
            },
        );
        let response = runtime()
            .block_on(layer().layer(panics_when_called).oneshot(request()))
            .unwrap();
        assert_eq!(header_code(&response), Code::Internal);
    }

    #[test]
    fn middleware_errors_become_statuses() {
        let shed = tower::service_fn(|_: http::Request<()>| async {
            Err::<http::Response<()>, BoxError>(tower::load_shed::error::Overloaded::new().into())
        });
        let response = runtime()
            .block_on(layer().layer(shed).oneshot(request()))
            .unwrap();
        assert_eq!(header_code(&response), Code::ResourceExhausted);
    }

    fn response_with(code: Code, message: &str) -> http::Response<()> {
        let mut response = Status::new(code, message).into_http::<()>();
        response.headers_mut().remove("grpc-status-details-bin");
        response
    }

    #[test]
    fn codec_errors_are_remapped_to_the_contract() {
        for (code, message, expected) in [
            (
                Code::OutOfRange,
                "Error, decoded message length too large: found 5 bytes",
                Code::ResourceExhausted,
            ),
            (
                Code::Internal,
                "failed to decode Protobuf message: invalid wire type",
                Code::InvalidArgument,
            ),
            (
                Code::Internal,
                "Error decompressing: corrupt deflate stream, while sending request",
                Code::InvalidArgument,
            ),
            (
                Code::Internal,
                "internal error: the request handler panicked",
                Code::Internal,
            ),
            (
                Code::OutOfRange,
                "some other range problem",
                Code::OutOfRange,
            ),
        ] {
            let mut response = response_with(code, message);
            assert_eq!(remap_codec_errors(&mut response), expected, "{message}");
            assert_eq!(header_code(&response), expected, "{message}");
        }
    }

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
