//! One tower layer around every RPC: the concurrency limit (a request holds its slot until
//! its response body is fully written, compression included); a tracing span with method,
//! gRPC code and latency; Prometheus metrics; panics, middleware errors and tonic's codec
//! errors turned into proper gRPC statuses, every one with a `google.rpc.ErrorInfo`; and, at
//! shutdown, the end of long-lived health `Watch` streams.
//!
//! Metrics (names are stable):
//! - `matchgrid_requests_total{method, code}`: finished requests by gRPC code name;
//! - `matchgrid_request_duration_seconds{method}`: latency histogram, to the end of the
//!   response body (the last byte handed to the connection, trailers included);
//! - `matchgrid_requests_in_flight`: requests being served;
//! - `matchgrid_requests_shed_total`: requests refused at the concurrency limit.
//!
//! Shed and timed-out requests are logged at most once per
//! [`LOG_INTERVAL`](super::log_throttle::LOG_INTERVAL) each, with the
//! number of events since the previous line (the metrics count every one).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::future::Either;
use futures_util::{FutureExt, TryFutureExt};
use http::{HeaderMap, HeaderName};
use http_body::{Body as HttpBody, Frame, SizeHint};
use metrics::{Counter, Gauge, Histogram};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tonic::{Code, Status};
use tower::{BoxError, Layer, Service};
use tracing::Instrument;

use super::log_throttle::LogThrottle;
use crate::transport::status;

/// Histogram buckets of `matchgrid_request_duration_seconds`, in seconds.
pub const LATENCY_BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1.0, 2.5, 5.0,
];

/// The layer. `concurrency_limit` slots are shared by every service it wraps (and every
/// connection); `request_timeout` only words the DEADLINE_EXCEEDED message; the metric handles
/// are shared too.
#[derive(Clone, Debug)]
pub struct ObserveLayer {
    settings: Settings,
    metrics: Arc<CallMetrics>,
    slots: Arc<Semaphore>,
    exempt: &'static [&'static str],
    shutdown: watch::Sender<bool>,
    trace_context: bool,
}

/// Ends the health `Watch` streams of an [`ObserveLayer`] (see [`ObserveLayer::stream_shutdown`]).
#[derive(Clone, Debug)]
pub struct StreamShutdown(watch::Sender<bool>);

impl StreamShutdown {
    /// Ends every open `Watch` stream once it has sent what it has ready (call it after setting
    /// the health entries NOT_SERVING, so that status goes out first), with UNAVAILABLE and
    /// reason `SHUTTING_DOWN`; streams opened afterwards end the same way.
    pub fn end_streams(&self) {
        self.0.send_replace(true);
    }
}

/// Server-streaming paths that stay open until the client leaves, ended at shutdown.
const LONG_LIVED_PATHS: &[&str] = &["/grpc.health.v1.Health/Watch"];

/// Shared per-layer throttles.
#[derive(Debug, Default)]
struct LogThrottles {
    shed: LogThrottle,
    timeout: LogThrottle,
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
            slots: Arc::new(Semaphore::new(concurrency_limit as usize)),
            exempt: &[],
            shutdown: watch::Sender::new(false),
            trace_context: false,
        }
    }

    /// With `on`, each call's span continues the caller's W3C trace context (`traceparent`
    /// and `tracestate` metadata) and carries the OpenTelemetry RPC attributes (see
    /// [`super::otlp`]); for a server that exports spans. Off by default: the metadata is not
    /// read.
    pub fn trace_context(mut self, on: bool) -> Self {
        self.trace_context = on;
        self
    }

    /// Requests whose path starts with one of `prefixes` skip the concurrency limit (health
    /// checks must answer truthfully under overload).
    pub fn exempt(mut self, prefixes: &'static [&'static str]) -> Self {
        self.exempt = prefixes;
        self
    }

    /// The handle that ends this layer's long-lived streams at shutdown.
    pub fn stream_shutdown(&self) -> StreamShutdown {
        StreamShutdown(self.shutdown.clone())
    }
}

impl<S> Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Observe {
            inner,
            settings: self.settings,
            metrics: Arc::clone(&self.metrics),
            slots: Arc::clone(&self.slots),
            exempt: self.exempt,
            shutdown: self.shutdown.clone(),
            trace_context: self.trace_context,
        }
    }
}

/// See [`ObserveLayer`].
#[derive(Clone, Debug)]
pub struct Observe<S> {
    inner: S,
    settings: Settings,
    metrics: Arc<CallMetrics>,
    slots: Arc<Semaphore>,
    exempt: &'static [&'static str],
    shutdown: watch::Sender<bool>,
    trace_context: bool,
}

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
    "/matchgrid.v1.CollapsePuzzle/GenerateBoard",
    "/matchgrid.v1.CollapsePuzzle/Tap",
    "/matchgrid.v1.CollapsePuzzle/CheckDeadState",
    "/matchgrid.v1.CollapsePuzzle/Solve",
    "/matchgrid.v1.CollapsePuzzle/ReplayGame",
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
    logs: LogThrottles,
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
            logs: LogThrottles::default(),
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

/// One call's metrics: in flight from creation; counted and timed by [`CallRecord::finish`]
/// at the end of the response body, or when dropped: with the response's code if it was
/// complete in its headers (trailers-only), else as CANCELLED (the client's deadline passed or
/// it cancelled before the end).
struct CallRecord {
    metrics: Arc<CallMetrics>,
    method: usize,
    started: Instant,
    finished: bool,
    /// The code to count when dropped.
    code_on_drop: Code,
    span: tracing::Span,
}

impl CallRecord {
    fn start(metrics: Arc<CallMetrics>, method: usize, span: tracing::Span) -> Self {
        metrics.in_flight.increment(1.0);
        Self {
            metrics,
            method,
            started: Instant::now(),
            finished: false,
            code_on_drop: Code::Cancelled,
            span,
        }
    }

    fn finish(&mut self, code: Code) {
        if self.finished {
            return;
        }
        let elapsed = self.started.elapsed();
        self.metrics.finish(self.method, code, elapsed);
        self.finished = true;
        // Skips formatting the fields when the span is filtered out (the default).
        if !self.span.is_disabled() {
            self.span.record("code", code_name(code));
            // i64: OpenTelemetry has no unsigned integers (a u64 would be exported as text).
            self.span.record("latency_us", elapsed.as_micros() as i64);
            // Fields only a traced span has (recording an undeclared field does nothing).
            self.span.record("rpc.grpc.status_code", code as i64);
            if server_fault(code) {
                self.span.record("otel.status_code", "error");
            }
        }
        self.span.in_scope(|| tracing::debug!("rpc finished"));
    }
}

impl Drop for CallRecord {
    fn drop(&mut self) {
        if !self.finished {
            self.finish(self.code_on_drop);
        }
        self.metrics.in_flight.decrement(1.0);
    }
}

/// A response body that keeps its call's concurrency slot and metrics record until it is fully
/// written (so response encoding and compression count against the limit and the latency),
/// adds an ErrorInfo to an error status in its trailers, and ends a long-lived stream at
/// shutdown.
pub struct CallBody<B> {
    inner: B,
    record: Option<CallRecord>,
    _permit: Option<OwnedSemaphorePermit>,
    shutdown: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    ended: bool,
}

impl<B: std::fmt::Debug> std::fmt::Debug for CallBody<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallBody")
            .field("inner", &self.inner)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl<B> CallBody<B> {
    fn new(inner: B, record: CallRecord, permit: Option<OwnedSemaphorePermit>) -> Self {
        Self {
            inner,
            record: Some(record),
            _permit: permit,
            shutdown: None,
            ended: false,
        }
    }

    fn finish(&mut self, code: Code) {
        if let Some(mut record) = self.record.take() {
            record.finish(code);
        }
    }
}

impl<B> HttpBody for CallBody<B>
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(mut frame))) => {
                if let Some(trailers) = frame.trailers_mut() {
                    let code = remap_codec_errors(trailers);
                    this.finish(code);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => {
                this.ended = true;
                this.finish(Code::Internal);
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(None) => {
                this.ended = true;
                // A body without trailers (none of ours): OK so far.
                this.finish(Code::Ok);
                Poll::Ready(None)
            }
            Poll::Pending => {
                let shutting_down = this
                    .shutdown
                    .as_mut()
                    .is_some_and(|shutdown| shutdown.as_mut().poll(cx).is_ready());
                if !shutting_down {
                    return Poll::Pending;
                }
                // Everything the stream had ready is sent; end it.
                this.ended = true;
                let status = status::shutting_down();
                let mut trailers = HeaderMap::new();
                let _ = status.add_header(&mut trailers);
                this.finish(status.code());
                Poll::Ready(Some(Ok(Frame::trailers(trailers))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
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

/// The codes that mark a server span as failed (OpenTelemetry's semantic conventions for gRPC
/// servers); the others are the caller's business.
fn server_fault(code: Code) -> bool {
    matches!(
        code,
        Code::Unknown
            | Code::DeadlineExceeded
            | Code::Unimplemented
            | Code::Internal
            | Code::Unavailable
            | Code::DataLoss
    )
}

/// The per-RPC span of a server that exports traces: the log span's fields plus the
/// OpenTelemetry RPC attributes, its parent taken from the request's `traceparent`.
fn traced_span(method: usize, headers: &HeaderMap) -> tracing::Span {
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    let label = METHOD_LABELS[method];
    let name = label.strip_prefix('/').unwrap_or(label);
    let (service, rpc) = name.split_once('/').unwrap_or(("other", "other"));
    let span = tracing::debug_span!(
        "rpc",
        method = label,
        code = tracing::field::Empty,
        latency_us = tracing::field::Empty,
        otel.name = name,
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        rpc.system = "grpc",
        rpc.service = service,
        rpc.method = rpc,
        rpc.grpc.status_code = tracing::field::Empty,
    );
    if let Some(parent) = super::otlp::parent_context(headers) {
        // Fails only when no OpenTelemetry layer is installed (a server started without
        // `run`), which leaves a plain log span.
        let _ = span.set_parent(parent);
    }
    span
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

const GRPC_STATUS_DETAILS: HeaderName = HeaderName::from_static("grpc-status-details-bin");

/// The gRPC code in a header map (`grpc-status`), if any.
fn code_in(headers: &HeaderMap) -> Option<Code> {
    headers
        .get(GRPC_STATUS)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i32>().ok())
        .map(Code::from_i32)
}

/// The field path in a prost decode error (`Board.width: ValidateSwapRequest.board: invalid
/// varint`, innermost first) as `board.width`; `request` when it names none.
fn decode_error_field(detail: &str) -> String {
    let parts: Vec<&str> = detail.split(": ").collect();
    let fields: Vec<&str> = parts[..parts.len().saturating_sub(1)]
        .iter()
        .rev()
        .filter_map(|part| part.rsplit_once('.').map(|(_, field)| field))
        .collect();
    if fields.is_empty() {
        "request".to_owned()
    } else {
        fields.join(".")
    }
}

/// The status that replaces an error status from tonic or a library service (codec errors,
/// unknown methods, health's NOT_FOUND), or None to keep it as it is:
/// - a message over the configured size limit is OUT_OF_RANGE in tonic, RESOURCE_EXHAUSTED here
///   ("a request exceeds a configured limit"), reason `REQUEST_TOO_LARGE` with a QuotaFailure;
/// - a body that is not a valid protobuf message, not valid data for its declared compression,
///   or not well framed is INTERNAL in tonic (following gRPC's library convention),
///   INVALID_ARGUMENT here ("malformed request"; INTERNAL is kept for our bugs), reason
///   `MALFORMED_MESSAGE` (with a BadRequest naming the field), `MALFORMED_COMPRESSION` or
///   `MALFORMED_FRAME`;
/// - any other error without details gets an ErrorInfo whose reason is its code's name.
fn replacement(code: Code, message: &str, has_details: bool) -> Option<Status> {
    const DECODE: &str = "failed to decode Protobuf message";
    match code {
        Code::Ok => None,
        Code::OutOfRange if message.contains("message length too large") => {
            Some(status::request_too_large(message.to_owned()))
        }
        Code::Internal if message.starts_with(DECODE) => {
            let detail = message[DECODE.len()..].trim_start_matches(':').trim();
            Some(status::malformed_message(
                decode_error_field(detail),
                message.to_owned(),
            ))
        }
        Code::Internal if message.starts_with("Error decompressing") => {
            Some(status::malformed_compression(message.to_owned()))
        }
        Code::Internal
            if message.starts_with("Missing request message")
                || message.starts_with("Unexpected EOF")
                || message.starts_with("protocol error") =>
        {
            Some(status::malformed_frame(
                "MALFORMED_FRAME",
                message.to_owned(),
            ))
        }
        _ if has_details => None,
        _ => Some(status::with_reason(
            code,
            code_name(code),
            message.to_owned(),
        )),
    }
}

/// Brings an error status in `headers` (a trailers-only response's headers, or trailers) in
/// line with docs/rules.md section 4 (see [`replacement`]; no matchgrid handler returns
/// OUT_OF_RANGE or INTERNAL but for a panic, which carries details, so the rewrite is exact).
///
/// Returns the code after the rewrite; OK when `headers` carry no status.
fn remap_codec_errors(headers: &mut HeaderMap) -> Code {
    let Some(code) = code_in(headers) else {
        return Code::Ok;
    };
    if code == Code::Ok {
        return code;
    }
    let message = headers
        .get(GRPC_MESSAGE)
        .map(|v| {
            percent_encoding::percent_decode(v.as_bytes())
                .decode_utf8_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    let Some(status) = replacement(code, &message, headers.contains_key(GRPC_STATUS_DETAILS))
    else {
        return code;
    };
    headers.remove(GRPC_STATUS_DETAILS);
    if status.add_header(headers).is_err() {
        return code;
    }
    status.code()
}

impl<S, B, RB> Service<http::Request<B>> for Observe<S>
where
    S: Service<http::Request<B>, Response = http::Response<RB>>,
    S::Error: Into<BoxError> + 'static,
    S::Future: Send + 'static,
    RB: Default + Send + 'static,
{
    type Response = http::Response<CallBody<RB>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let path = request.uri().path();
        let method = method_index(path);
        let exempt = self.exempt.iter().any(|prefix| path.starts_with(prefix));
        let long_lived = LONG_LIVED_PATHS.contains(&path);
        let span = if self.trace_context {
            traced_span(method, request.headers())
        } else {
            tracing::debug_span!(
                "rpc",
                method = METHOD_LABELS[method],
                code = tracing::field::Empty,
                latency_us = tracing::field::Empty,
            )
        };
        let settings = self.settings;
        let metrics = Arc::clone(&self.metrics);
        let mut record = CallRecord::start(Arc::clone(&metrics), method, span.clone());
        let permit = if exempt {
            None
        } else {
            match Arc::clone(&self.slots).try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    let overloaded = tower::load_shed::error::Overloaded::new().into();
                    let response = error_response::<RB>(overloaded, settings, &metrics);
                    record.code_on_drop = header_code(&response);
                    return Box::pin(std::future::ready(Ok(
                        response.map(|body| CallBody::new(body, record, None))
                    )));
                }
            }
        };
        // A call whose client deadline has already passed is answered at once, before its body
        // is read: tonic's own grpc-timeout check would otherwise race the handler's and answer
        // CANCELLED ("Timeout expired") when the body arrives a little later.
        let deadline_passed = !exempt
            && request
                .headers()
                .get("grpc-timeout")
                .and_then(|value| value.to_str().ok())
                .and_then(super::admission::deadline_from_grpc_timeout)
                .is_some_and(|deadline| Instant::now() >= deadline);
        if deadline_passed {
            let response = status::client_deadline().into_http::<RB>();
            record.code_on_drop = header_code(&response);
            return Box::pin(std::future::ready(Ok(
                response.map(|body| CallBody::new(body, record, permit))
            )));
        }
        let shutdown = long_lived.then(|| {
            let mut receiver = self.shutdown.subscribe();
            Box::pin(async move {
                if receiver.wait_for(|stop| *stop).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }) as Pin<Box<dyn Future<Output = ()> + Send>>
        });
        // A panic while building the future is caught like one while polling it.
        let outcome = match std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request)))
        {
            Ok(future) => Either::Left(AssertUnwindSafe(future.map_err(Into::into)).catch_unwind()),
            Err(panic) => Either::Right(std::future::ready(Err(panic))),
        };
        // A combinator rather than an async block: the block would hold the inner future
        // twice (as a captured value and as the awaited one), which every call then copies.
        Box::pin(
            outcome
                .map(move |outcome| {
                    let mut response = match outcome {
                        Ok(Ok(response)) => response,
                        Ok(Err(error)) => error_response(error, settings, &metrics),
                        Err(_panic) => {
                            tracing::error!("handler panicked; answered INTERNAL");
                            status::handler_panicked().into_http()
                        }
                    };
                    if response.headers().contains_key(GRPC_STATUS) {
                        // Trailers-only: the call is complete with its headers.
                        record.code_on_drop = remap_codec_errors(response.headers_mut());
                    }
                    let mut body = CallBody::new(RB::default(), record, permit);
                    body.shutdown = shutdown;
                    Ok(response.map(|inner| {
                        body.inner = inner;
                        body
                    }))
                })
                .instrument(span),
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
        if let Some(shed) = metrics.logs.shed.event() {
            tracing::warn!(
                shed,
                "requests shed at the concurrency limit since the last line"
            );
        }
        status::overloaded(settings.concurrency_limit)
    } else if error.is::<tower::timeout::error::Elapsed>() {
        if let Some(timed_out) = metrics.logs.timeout.event() {
            tracing::warn!(
                timed_out,
                "requests past the server timeout since the last line"
            );
        }
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
            assert_eq!(
                remap_codec_errors(response.headers_mut()),
                expected,
                "{message}"
            );
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
