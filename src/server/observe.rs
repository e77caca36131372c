//! One tower layer around every RPC: the concurrency limit (a request holds its slot until
//! its response body is fully written, compression included); the call's span
//! ([`super::span`]) and metrics ([`super::call_metrics`]); panics, middleware errors and
//! tonic's codec errors turned into proper gRPC statuses, every one with a
//! `google.rpc.ErrorInfo` ([`super::codec_errors`]); and, at shutdown, the end of long-lived
//! health `Watch` streams. The response body is a [`CallBody`].
//!
//! Shed and timed-out requests are logged at most once per
//! [`LOG_INTERVAL`](super::log_throttle::LOG_INTERVAL) each, with the
//! number of events since the previous line (the metrics count every one).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::future::Either;
use futures_util::{FutureExt, TryFutureExt};
use tokio::sync::{Semaphore, watch};
use tonic::Status;
use tower::{BoxError, Layer, Service};
use tracing::Instrument;

use super::call_body::{CallBody, ShutdownSignal};
use super::call_metrics::{CallMetrics, CallRecord, METHOD_LABELS, method_index};
use super::codec_errors::remap_codec_errors;
use super::grpc_code::{GRPC_STATUS, header_code};
use super::log_throttle::LogThrottle;
use super::span::call_span;
use crate::transport::status;

/// The layer. `concurrency_limit` slots are shared by every service it wraps (and every
/// connection); `request_timeout` only words the DEADLINE_EXCEEDED message; the metric handles
/// are shared too.
#[derive(Clone, Debug)]
pub struct ObserveLayer {
    settings: Settings,
    metrics: Arc<CallMetrics>,
    logs: Arc<LogThrottles>,
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
            logs: Arc::default(),
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
            logs: Arc::clone(&self.logs),
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
    logs: Arc<LogThrottles>,
    slots: Arc<Semaphore>,
    exempt: &'static [&'static str],
    shutdown: watch::Sender<bool>,
    trace_context: bool,
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
        let span = call_span(METHOD_LABELS[method], request.headers(), self.trace_context);
        let settings = self.settings;
        let metrics = Arc::clone(&self.metrics);
        let logs = Arc::clone(&self.logs);
        let mut record = CallRecord::start(Arc::clone(&metrics), method, span.clone());
        let permit = if exempt {
            None
        } else {
            match Arc::clone(&self.slots).try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    let overloaded = tower::load_shed::error::Overloaded::new().into();
                    let response = error_response::<RB>(overloaded, settings, &metrics, &logs);
                    record.code_on_drop = header_code(&response);
                    return Box::pin(std::future::ready(Ok(
                        response.map(|body| CallBody::new(body, record, None, None))
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
                response.map(|body| CallBody::new(body, record, permit, None))
            )));
        }
        let shutdown = long_lived.then(|| {
            let mut receiver = self.shutdown.subscribe();
            Box::pin(async move {
                if receiver.wait_for(|stop| *stop).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }) as ShutdownSignal
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
                        Ok(Err(error)) => error_response(error, settings, &metrics, &logs),
                        Err(_panic) => {
                            tracing::error!("handler panicked; answered INTERNAL");
                            status::handler_panicked().into_http()
                        }
                    };
                    if response.headers().contains_key(GRPC_STATUS) {
                        // Trailers-only: the call is complete with its headers.
                        record.code_on_drop = remap_codec_errors(response.headers_mut());
                    }
                    Ok(response.map(|inner| CallBody::new(inner, record, permit, shutdown)))
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
    logs: &LogThrottles,
) -> http::Response<RB> {
    let status = if error.is::<tower::load_shed::error::Overloaded>() {
        metrics.count_shed();
        if let Some(shed) = logs.shed.event() {
            tracing::warn!(
                shed,
                "requests shed at the concurrency limit since the last line"
            );
        }
        status::overloaded(settings.concurrency_limit)
    } else if error.is::<tower::timeout::error::Elapsed>() {
        if let Some(timed_out) = logs.timeout.event() {
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
    use tonic::Code;
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
}
