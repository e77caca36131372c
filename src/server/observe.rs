//! The call layer, around every RPC: the concurrency limit (a request that finds no free slot
//! is shed, never queued, and a request holds its slot until its response body is fully
//! written, compression included); a client deadline that has already passed answered at once;
//! the request's framing checked ([`super::framing`]); the server's request timeout (with a
//! grace period for the searches of [`super::admission::SEARCH_PATHS`]); panics
//! caught; the call's span ([`super::span`]) and metrics ([`super::call_metrics`]); error
//! statuses brought in line with the contract, every one with a `google.rpc.ErrorInfo`
//! ([`super::codec_errors`]); and, at shutdown, the end of long-lived health `Watch` streams.
//! Health checks skip the concurrency limit, the deadline check and the timeout, so an
//! overloaded pod still answers its probes truthfully.
//!
//! The response future is a [`CallFuture`] (no allocation; a timer only once the service has
//! not answered on first poll); the response body a [`CallBody`].
//!
//! Shed and timed-out requests are logged at most once per
//! [`LOG_INTERVAL`](super::log_throttle::LOG_INTERVAL) each, with the
//! number of events since the previous line (the metrics count every one).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tonic::body::Body;
use tower::{BoxError, Layer, Service};

use super::call::{Call, Calls};
use super::call_body::{CallBody, ShutdownSignal};
use super::call_future::{CallFuture, overloaded_response};
use super::call_metrics::{METHOD_LABELS, method_index};
use super::framing;
use super::grpc_code::{GRPC_TIMEOUT, header_code};
use super::span::call_span;
use crate::transport::status;

/// The layer. The concurrency slots, the metric handles and the stream shutdown are shared by
/// every service it wraps (and every connection, and every clone of the layer).
#[derive(Clone, Debug)]
pub struct ObserveLayer {
    calls: Arc<Calls>,
    exempt: &'static [&'static str],
    trace_context: bool,
}

/// Ends the health `Watch` streams of an [`ObserveLayer`] (see [`ObserveLayer::stream_shutdown`]).
#[derive(Clone, Debug)]
pub struct StreamShutdown(Arc<Calls>);

impl StreamShutdown {
    /// Ends every open `Watch` stream once it has sent what it has ready (call it after setting
    /// the health entries NOT_SERVING, so that status goes out first), with UNAVAILABLE and
    /// reason `SHUTTING_DOWN`; streams opened afterwards end the same way.
    pub fn end_streams(&self) {
        self.0.shutdown.send_replace(true);
    }
}

/// Server-streaming paths that stay open until the client leaves, ended at shutdown.
const LONG_LIVED_PATHS: &[&str] = &["/grpc.health.v1.Health/Watch"];

impl ObserveLayer {
    /// A layer for a server with this per-request timeout and concurrency limit. Metric handles
    /// are taken from the recorder installed now (the same recorder the `metrics` macros would
    /// use), so install the recorder first.
    pub fn new(request_timeout: Duration, concurrency_limit: u32) -> Self {
        Self {
            calls: Arc::new(Calls::new(request_timeout, concurrency_limit)),
            exempt: &[],
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

    /// Requests whose path starts with one of `prefixes` skip the concurrency limit, the
    /// deadline check and the timeout (health checks must answer truthfully under overload, and
    /// Watch streams are long-lived by design).
    pub fn exempt(mut self, prefixes: &'static [&'static str]) -> Self {
        self.exempt = prefixes;
        self
    }

    /// The handle that ends this layer's long-lived streams at shutdown.
    pub fn stream_shutdown(&self) -> StreamShutdown {
        StreamShutdown(Arc::clone(&self.calls))
    }
}

impl<S> Layer<S> for ObserveLayer {
    type Service = Observe<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Observe {
            inner,
            calls: Arc::clone(&self.calls),
            exempt: self.exempt,
            trace_context: self.trace_context,
        }
    }
}

/// See [`ObserveLayer`].
#[derive(Clone, Debug)]
pub struct Observe<S> {
    inner: S,
    calls: Arc<Calls>,
    exempt: &'static [&'static str],
    trace_context: bool,
}

impl<S, RB> Service<http::Request<Body>> for Observe<S>
where
    S: Service<http::Request<Body>, Response = http::Response<RB>>,
    S::Error: Into<BoxError>,
    S::Future: Unpin,
    RB: Default + Unpin,
{
    type Response = http::Response<CallBody<RB>>;
    type Error = BoxError;
    type Future = CallFuture<S::Future, RB>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let path = request.uri().path();
        let method = method_index(path);
        let exempt = self.exempt.iter().any(|prefix| path.starts_with(prefix));
        let long_lived = LONG_LIVED_PATHS.contains(&path);
        let span = call_span(METHOD_LABELS[method], request.headers(), self.trace_context);
        // The one clock reading of the call's start: its latency and its timeout run from here.
        let now = Instant::now();
        let mut call = Call::start(Arc::clone(&self.calls), method, now, span.clone());
        if !exempt && !call.take_slot() {
            return CallFuture::answered(overloaded_response(call), span);
        }
        // A call whose client deadline has already passed is answered at once, before its body
        // is read: tonic's own grpc-timeout check would otherwise race the handler's and answer
        // CANCELLED ("Timeout expired") when the body arrives a little later.
        let deadline_passed = !exempt
            && request
                .headers()
                .get(&GRPC_TIMEOUT)
                .and_then(|value| value.to_str().ok())
                .and_then(super::admission::grpc_timeout)
                .is_some_and(|timeout| now.elapsed() >= timeout);
        if deadline_passed {
            let response = status::client_deadline().into_http::<RB>();
            call.code_on_drop = header_code(&response);
            return CallFuture::answered(
                response.map(|body| CallBody::new(body, call, None)),
                span,
            );
        }
        let shutdown = long_lived.then(|| {
            let mut receiver = self.calls.shutdown.subscribe();
            Box::pin(async move {
                if receiver.wait_for(|stop| *stop).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }) as ShutdownSignal
        });
        // A search answers by its own deadline (the request timeout less a margin); past the
        // timeout its answer is waited for a grace period more, so contention that makes it
        // late does not turn its best-so-far into SERVER_TIMEOUT.
        let timeout = if super::admission::SEARCH_PATHS.contains(&path) {
            self.calls.request_timeout + super::admission::search_grace(self.calls.request_timeout)
        } else {
            self.calls.request_timeout
        };
        let timeout_at = (!exempt).then(|| now.checked_add(timeout)).flatten();
        let request = framing::checked(request);
        // A panic while building the future is caught like one while polling it.
        let inner = std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(request))).ok();
        CallFuture::calling(inner, timeout_at, call, shutdown, span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::pin::Pin;
    use tonic::Code;
    use tower::ServiceExt;

    type Answer = Pin<Box<dyn Future<Output = Result<http::Response<Body>, BoxError>> + Send>>;

    fn layer() -> ObserveLayer {
        ObserveLayer::new(Duration::from_secs(5), 8)
    }

    fn request(path: &str) -> http::Request<Body> {
        http::Request::builder()
            .uri(path)
            .body(Body::empty())
            .unwrap()
    }

    const SHUFFLE: &str = "/matchgrid.v1.SwapPuzzle/Shuffle";

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
    }

    fn ok() -> Answer {
        Box::pin(async { Ok(http::Response::new(Body::empty())) })
    }

    #[test]
    fn a_panicking_handler_is_answered_internal() {
        let panics_when_polled = tower::service_fn(|_: http::Request<Body>| -> Answer {
            Box::pin(async {
                if true {
                    panic!("handler bug");
                }
                Ok(http::Response::new(Body::empty()))
            })
        });
        let response = runtime()
            .block_on(layer().layer(panics_when_polled).oneshot(request(SHUFFLE)))
            .unwrap();
        assert_eq!(header_code(&response), Code::Internal);

        let panics_when_called = tower::service_fn(|_: http::Request<Body>| -> Answer {
            panic!("handler bug before any future")
        });
        let response = runtime()
            .block_on(layer().layer(panics_when_called).oneshot(request(SHUFFLE)))
            .unwrap();
        assert_eq!(header_code(&response), Code::Internal);
    }

    #[test]
    fn middleware_errors_become_statuses() {
        let shed = tower::service_fn(|_: http::Request<Body>| -> Answer {
            Box::pin(async { Err(tower::load_shed::error::Overloaded::new().into()) })
        });
        let response = runtime()
            .block_on(layer().layer(shed).oneshot(request(SHUFFLE)))
            .unwrap();
        assert_eq!(header_code(&response), Code::ResourceExhausted);
    }

    #[test]
    fn a_slow_call_times_out_unless_exempt() {
        let slow = tower::service_fn(|_: http::Request<Body>| -> Answer {
            Box::pin(async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(http::Response::new(Body::empty()))
            })
        });
        let layer = ObserveLayer::new(Duration::from_millis(20), 8).exempt(&["/grpc.health."]);
        let runtime = runtime();
        let response = runtime
            .block_on(layer.layer(slow).oneshot(request(SHUFFLE)))
            .unwrap();
        assert_eq!(header_code(&response), Code::DeadlineExceeded);
        let response = runtime
            .block_on(
                layer
                    .layer(slow)
                    .oneshot(request("/grpc.health.v1.Health/Check")),
            )
            .unwrap();
        assert_eq!(
            header_code(&response),
            Code::Ok,
            "health checks have no timeout"
        );
    }

    #[test]
    fn a_search_gets_a_grace_period_past_the_timeout() {
        // 200 ms against a 20 ms timeout: within the search paths' grace (at least 1 s).
        let slow = tower::service_fn(|_: http::Request<Body>| -> Answer {
            Box::pin(async {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok(http::Response::new(Body::empty()))
            })
        });
        let layer = ObserveLayer::new(Duration::from_millis(20), 8);
        let runtime = runtime();
        for path in super::super::admission::SEARCH_PATHS {
            let response = runtime
                .block_on(layer.layer(slow).oneshot(request(path)))
                .unwrap();
            assert_eq!(header_code(&response), Code::Ok, "{path}");
        }
        // Past the grace too, the call layer answers.
        let stuck = tower::service_fn(|_: http::Request<Body>| -> Answer {
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                Ok(http::Response::new(Body::empty()))
            })
        });
        let response = runtime
            .block_on(
                layer
                    .layer(stuck)
                    .oneshot(request("/matchgrid.v1.CollapsePuzzle/Solve")),
            )
            .unwrap();
        assert_eq!(header_code(&response), Code::DeadlineExceeded);
    }

    #[test]
    fn a_call_holds_its_slot_until_its_body_is_dropped() {
        let layer = ObserveLayer::new(Duration::from_secs(5), 1).exempt(&["/grpc.health."]);
        let service = tower::service_fn(|_: http::Request<Body>| ok());
        let runtime = runtime();
        let call = |path| runtime.block_on(layer.layer(service).oneshot(request(path)));
        let first = call(SHUFFLE).unwrap();
        assert_eq!(header_code(&first), Code::Ok);
        let shed = call(SHUFFLE).unwrap();
        assert_eq!(header_code(&shed), Code::ResourceExhausted);
        drop(shed);
        let health = call("/grpc.health.v1.Health/Check").unwrap();
        assert_eq!(
            header_code(&health),
            Code::Ok,
            "health checks skip the limit"
        );
        drop(first);
        assert_eq!(header_code(&call(SHUFFLE).unwrap()), Code::Ok);
    }

    #[test]
    fn a_passed_client_deadline_is_answered_at_once() {
        let service = tower::service_fn(|_: http::Request<Body>| ok());
        let mut expired = request(SHUFFLE);
        expired
            .headers_mut()
            .insert("grpc-timeout", http::HeaderValue::from_static("0n"));
        let response = runtime()
            .block_on(layer().layer(service).oneshot(expired))
            .unwrap();
        assert_eq!(header_code(&response), Code::DeadlineExceeded);
    }
}
