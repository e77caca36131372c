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
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use tonic::{Code, Status};
use tower::{BoxError, Layer, Service};
use tracing::Instrument;

use crate::transport::status;

/// Histogram buckets of `matchgrid_request_duration_seconds`, in seconds.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1.0, 2.5, 5.0,
];

/// The layer; `request_timeout` is only used to word DEADLINE_EXCEEDED messages.
#[derive(Clone, Copy, Debug)]
pub struct ObserveLayer {
    /// The configured per-request timeout.
    pub request_timeout: Duration,
    /// The configured concurrency limit.
    pub concurrency_limit: u32,
}

impl<S> Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Observe {
            inner,
            settings: *self,
        }
    }
}

/// See [`ObserveLayer`].
#[derive(Clone, Debug)]
pub struct Observe<S> {
    inner: S,
    settings: ObserveLayer,
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

/// The method label: the path of a known RPC, `other` for anything else, so a client cannot
/// blow up label cardinality with made-up paths.
fn method_label(path: &str) -> &'static str {
    KNOWN_METHODS
        .iter()
        .copied()
        .find(|&known| known == path)
        .unwrap_or("other")
}

/// One call's metrics: in flight from creation; counted and timed by [`CallRecord::finish`],
/// or, if the call is dropped first (the client's deadline passed or it cancelled), counted as
/// CANCELLED when dropped.
struct CallRecord {
    method: &'static str,
    started: Instant,
    finished: bool,
}

impl CallRecord {
    fn start(method: &'static str) -> Self {
        metrics::gauge!("matchgrid_requests_in_flight").increment(1.0);
        Self {
            method,
            started: Instant::now(),
            finished: false,
        }
    }

    fn finish(&mut self, code: Code) -> Duration {
        let elapsed = self.started.elapsed();
        metrics::counter!("matchgrid_requests_total", "method" => self.method, "code" => code_name(code))
            .increment(1);
        metrics::histogram!("matchgrid_request_duration_seconds", "method" => self.method)
            .record(elapsed.as_secs_f64());
        self.finished = true;
        elapsed
    }
}

impl Drop for CallRecord {
    fn drop(&mut self) {
        if !self.finished {
            self.finish(Code::Cancelled);
        }
        metrics::gauge!("matchgrid_requests_in_flight").decrement(1.0);
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

/// The gRPC code in a response's headers (trailers-only responses carry it there); a response
/// without one is OK so far (unary success puts OK in the trailers).
fn header_code<B>(response: &http::Response<B>) -> Code {
    response
        .headers()
        .get("grpc-status")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .map_or(Code::Ok, Code::from_i32)
}

/// The response's `grpc-message`, percent-decoded as the gRPC wire format requires.
fn grpc_message<B>(response: &http::Response<B>) -> String {
    response
        .headers()
        .get("grpc-message")
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
fn remap_codec_errors<B>(response: &mut http::Response<B>) {
    let code = header_code(response);
    if code != Code::OutOfRange && code != Code::Internal {
        return;
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
        _ => return,
    };
    response
        .headers_mut()
        .insert("grpc-status", http::HeaderValue::from(remapped as i32));
}

impl<S, B, RB> Service<http::Request<B>> for Observe<S>
where
    S: Service<http::Request<B>, Response = http::Response<RB>>,
    S::Error: Into<BoxError>,
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
        let method = method_label(request.uri().path());
        let span = tracing::debug_span!(
            "rpc",
            method,
            code = tracing::field::Empty,
            latency_us = tracing::field::Empty,
        );
        let settings = self.settings;
        let mut record = CallRecord::start(method);
        // A panic while building the future is caught like one while polling it.
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request)));
        Box::pin(
            async move {
                let outcome = match call {
                    Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
                    Err(panic) => Err(panic),
                };
                let response = match outcome {
                    Ok(Ok(mut response)) => {
                        remap_codec_errors(&mut response);
                        response
                    }
                    Ok(Err(error)) => error_response(error.into(), settings),
                    Err(_panic) => {
                        tracing::error!("handler panicked; answered INTERNAL");
                        status::handler_panicked().into_http()
                    }
                };
                let code = header_code(&response);
                let elapsed = record.finish(code);
                let span = tracing::Span::current();
                span.record("code", code_name(code));
                span.record("latency_us", elapsed.as_micros() as u64);
                tracing::debug!("rpc finished");
                Ok(response)
            }
            .instrument(span),
        )
    }
}

/// Middleware errors (shed, timeout) as gRPC responses, so every outcome is counted here.
fn error_response<RB: Default>(error: BoxError, settings: ObserveLayer) -> http::Response<RB> {
    let status = if error.is::<tower::load_shed::error::Overloaded>() {
        metrics::counter!("matchgrid_requests_shed_total").increment(1);
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

    const LAYER: ObserveLayer = ObserveLayer {
        request_timeout: Duration::from_secs(5),
        concurrency_limit: 8,
    };

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
            .block_on(LAYER.layer(panics_when_polled).oneshot(request()))
            .unwrap();
        assert_eq!(header_code(&response), Code::Internal);

        let panics_when_called = tower::service_fn(
            |_: http::Request<()>| -> std::future::Ready<Result<http::Response<()>, BoxError>> {
                panic!("handler bug before any future")
            },
        );
        let response = runtime()
            .block_on(LAYER.layer(panics_when_called).oneshot(request()))
            .unwrap();
        assert_eq!(header_code(&response), Code::Internal);
    }

    #[test]
    fn middleware_errors_become_statuses() {
        let shed = tower::service_fn(|_: http::Request<()>| async {
            Err::<http::Response<()>, BoxError>(tower::load_shed::error::Overloaded::new().into())
        });
        let response = runtime()
            .block_on(LAYER.layer(shed).oneshot(request()))
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
            remap_codec_errors(&mut response);
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
        assert_eq!(method_label("/matchgrid.v1.Bogus/X"), "other");
        assert_eq!(method_label("/matchgrid.v1.SwapPuzzle/Nope"), "other");
    }
}
