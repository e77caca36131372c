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

/// Keeps the in-flight gauge right even when a call is cancelled mid-way.
struct InFlight;

impl InFlight {
    fn enter() -> Self {
        metrics::gauge!("matchgrid_requests_in_flight").increment(1.0);
        Self
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        metrics::gauge!("matchgrid_requests_in_flight").decrement(1.0);
    }
}

/// The method label: the gRPC path for our known services, `other` for anything else, so a
/// client cannot blow up label cardinality.
fn method_label(path: &str) -> String {
    const KNOWN: &[&str] = &["/matchgrid.v1.", "/grpc.health.v1.", "/grpc.reflection.v1"];
    if KNOWN.iter().any(|prefix| path.starts_with(prefix)) && path.len() <= 128 {
        path.to_owned()
    } else {
        "other".to_owned()
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

/// Brings tonic's own codec errors in line with SPEC section 4 (no matchgrid handler returns
/// either of these codes, so the rewrite is exact):
/// - a message over the configured size limit is OUT_OF_RANGE in tonic, RESOURCE_EXHAUSTED here
///   ("a request exceeds a configured limit");
/// - a body that is not a valid protobuf message is INTERNAL in tonic (following gRPC's library
///   convention), INVALID_ARGUMENT here ("malformed request"; INTERNAL is kept for our bugs).
fn remap_codec_errors<B>(response: &mut http::Response<B>) {
    let code = header_code(response);
    if code != Code::OutOfRange && code != Code::Internal {
        return;
    }
    let message = grpc_message(response);
    let remapped = match code {
        Code::OutOfRange if message.contains("message length too large") => Code::ResourceExhausted,
        Code::Internal if message.starts_with("failed to decode Protobuf message") => {
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
            method = %method,
            code = tracing::field::Empty,
            latency_us = tracing::field::Empty,
        );
        let settings = self.settings;
        let started = Instant::now();
        let in_flight = InFlight::enter();
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
                        crate::transport::status::handler_panicked().into_http()
                    }
                };
                let code = header_code(&response);
                let elapsed = started.elapsed();
                let span = tracing::Span::current();
                span.record("code", code_name(code));
                span.record("latency_us", elapsed.as_micros() as u64);
                metrics::counter!("matchgrid_requests_total", "method" => method.clone(), "code" => code_name(code))
                    .increment(1);
                metrics::histogram!("matchgrid_request_duration_seconds", "method" => method)
                    .record(elapsed.as_secs_f64());
                tracing::debug!("rpc finished");
                drop(in_flight);
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
        with_reason(
            Code::ResourceExhausted,
            "OVERLOADED",
            format!(
                "server is at its concurrency limit of {} requests; retry with backoff",
                settings.concurrency_limit
            ),
        )
    } else if error.is::<tower::timeout::error::Elapsed>() {
        with_reason(
            Code::DeadlineExceeded,
            "SERVER_TIMEOUT",
            format!(
                "request exceeded the server timeout of {:?}",
                settings.request_timeout
            ),
        )
    } else {
        Status::from_error(error)
    };
    status.into_http()
}

/// A status carrying `google.rpc.ErrorInfo{reason, domain: "matchgrid.v1"}` like every error
/// matchgrid makes itself.
fn with_reason(code: Code, reason: &str, message: String) -> Status {
    use tonic_types::{ErrorDetails, StatusExt};
    let details = ErrorDetails::with_error_info(
        reason,
        crate::transport::status::ERROR_DOMAIN,
        std::collections::HashMap::new(),
    );
    Status::with_error_details(code, message, details)
}
