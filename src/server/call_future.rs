//! [`CallFuture`]: the response future of the call layer ([`super::observe`]). It polls the
//! service's future in place (no allocation), catches its panics, applies the server's request
//! timeout (a timer is set only if the service has not answered on first poll), turns errors
//! into gRPC statuses and wraps the response body in a [`CallBody`] that keeps the [`Call`].

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::time::Sleep;
use tonic::Status;
use tower::BoxError;

use super::call::{Call, Calls};
use super::call_body::{CallBody, ShutdownSignal};
use super::codec_errors::remap_codec_errors;
use super::grpc_code::{GRPC_STATUS, header_code};
use crate::transport::status;

/// The future of one call (see the module docs). `F` is the wrapped service's future, which
/// must be `Unpin` (tonic's routes future is), so it is polled where it lies.
pub struct CallFuture<F, RB> {
    step: Step<F, RB>,
    span: tracing::Span,
}

enum Step<F, RB> {
    /// Answered without calling the service (shed, or the client's deadline had passed).
    Answered(Option<http::Response<CallBody<RB>>>),
    /// Waiting for the service.
    Calling {
        /// None when building the future panicked.
        inner: Option<F>,
        /// When the server's request timeout ends the call (None for exempt paths).
        timeout_at: Option<Instant>,
        /// Set on the first poll that finds the service not ready.
        timer: Option<Pin<Box<Sleep>>>,
        /// Taken when the response is ready.
        call: Option<(Call, Option<ShutdownSignal>)>,
    },
}

impl<F, RB> std::fmt::Debug for CallFuture<F, RB> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallFuture").finish_non_exhaustive()
    }
}

impl<F, RB> CallFuture<F, RB> {
    /// A call answered at once with `response`.
    pub fn answered(response: http::Response<CallBody<RB>>, span: tracing::Span) -> Self {
        Self {
            step: Step::Answered(Some(response)),
            span,
        }
    }

    /// A call waiting for `inner` (None: building it panicked) until `timeout_at`.
    pub fn calling(
        inner: Option<F>,
        timeout_at: Option<Instant>,
        call: Call,
        shutdown: Option<ShutdownSignal>,
        span: tracing::Span,
    ) -> Self {
        Self {
            step: Step::Calling {
                inner,
                timeout_at,
                timer: None,
                call: Some((call, shutdown)),
            },
            span,
        }
    }
}

/// How the service's part of a call ended.
enum Outcome<R> {
    Response(R),
    Error(BoxError),
    Panicked,
    TimedOut,
}

impl<F, RB, E> std::future::Future for CallFuture<F, RB>
where
    F: std::future::Future<Output = Result<http::Response<RB>, E>> + Unpin,
    E: Into<BoxError>,
    RB: Default + Unpin,
{
    type Output = Result<http::Response<CallBody<RB>>, BoxError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Step::Calling {
            inner,
            timeout_at,
            timer,
            call,
        } = &mut this.step
        else {
            let Step::Answered(response) = &mut this.step else {
                unreachable!()
            };
            return Poll::Ready(Ok(response
                .take()
                .expect("CallFuture polled after it ended")));
        };
        let _entered = this.span.enter();
        let outcome = match inner.as_mut() {
            None => Outcome::Panicked,
            Some(future) => {
                match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(future).poll(cx))) {
                    Ok(Poll::Ready(Ok(response))) => Outcome::Response(response),
                    Ok(Poll::Ready(Err(error))) => Outcome::Error(error.into()),
                    Err(_panic) => Outcome::Panicked,
                    Ok(Poll::Pending) => {
                        let Some(at) = *timeout_at else {
                            return Poll::Pending;
                        };
                        let timer = timer.get_or_insert_with(|| {
                            Box::pin(tokio::time::sleep_until(tokio::time::Instant::from_std(at)))
                        });
                        if timer.as_mut().poll(cx).is_pending() {
                            return Poll::Pending;
                        }
                        Outcome::TimedOut
                    }
                }
            }
        };
        // The service's future ends here, whatever ended it.
        *inner = None;
        *timer = None;
        let (mut call, shutdown) = call.take().expect("CallFuture polled after it ended");
        let mut response = match outcome {
            Outcome::Response(response) => response,
            Outcome::Error(error) => error_response(error, call.calls()),
            Outcome::TimedOut => timeout_response(call.calls()),
            Outcome::Panicked => {
                tracing::error!(
                    target: super::otlp::SPAN_TARGET,
                    "handler panicked; answered INTERNAL"
                );
                status::handler_panicked().into_http()
            }
        };
        if response.headers().contains_key(GRPC_STATUS) {
            // Trailers-only: the call is complete with its headers.
            call.code_on_drop = remap_codec_errors(response.headers_mut());
        }
        Poll::Ready(Ok(
            response.map(|inner| CallBody::new(inner, call, shutdown))
        ))
    }
}

/// The answer to a request shed at the concurrency limit, counted and logged (throttled).
pub fn overloaded_response<RB: Default>(mut call: Call) -> http::Response<CallBody<RB>> {
    let calls = call.calls();
    calls.metrics.count_shed();
    if let Some(shed) = calls.shed_log.event() {
        tracing::warn!(
            target: super::otlp::SPAN_TARGET,
            shed,
            "requests shed at the concurrency limit since the last line"
        );
    }
    let response = status::overloaded(calls.concurrency_limit).into_http::<RB>();
    call.code_on_drop = header_code(&response);
    response.map(|body| CallBody::new(body, call, None))
}

/// The answer to a call past the server's request timeout, logged (throttled).
fn timeout_response<RB: Default>(calls: &Calls) -> http::Response<RB> {
    if let Some(timed_out) = calls.timeout_log.event() {
        tracing::warn!(
            target: super::otlp::SPAN_TARGET,
            timed_out,
            "requests past the server timeout since the last line"
        );
    }
    status::server_timeout(calls.request_timeout).into_http()
}

/// An error of the wrapped service as a gRPC response, so every outcome is counted: shedding
/// and timeouts of inner middleware as the call layer's own, anything else as tonic would.
fn error_response<RB: Default>(error: BoxError, calls: &Calls) -> http::Response<RB> {
    if error.is::<tower::load_shed::error::Overloaded>() {
        calls.metrics.count_shed();
        if let Some(shed) = calls.shed_log.event() {
            tracing::warn!(
                target: super::otlp::SPAN_TARGET,
                shed,
                "requests shed at the concurrency limit since the last line"
            );
        }
        return status::overloaded(calls.concurrency_limit).into_http();
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        return timeout_response(calls);
    }
    Status::from_error(error).into_http()
}
