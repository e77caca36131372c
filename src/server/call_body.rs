//! [`CallBody`]: the response body of every observed call.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::HeaderMap;
use http_body::{Body as HttpBody, Frame, SizeHint};
use tonic::Code;

use super::call::Call;
use super::codec_errors::remap_codec_errors;
use crate::transport::status;

/// A future that resolves when a long-lived stream must end (the server is shutting down).
pub type ShutdownSignal = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A response body that keeps its [`Call`] (its concurrency slot and metrics record) until it
/// is fully written (so response encoding and compression count against the limit and the
/// latency), adds an ErrorInfo to an error status in its trailers, and ends a long-lived stream
/// at shutdown.
pub struct CallBody<B> {
    inner: B,
    call: Call,
    shutdown: Option<ShutdownSignal>,
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
    /// `inner`, finishing `call` at its end (and dropping it with the body); with `shutdown`,
    /// ended with UNAVAILABLE (`SHUTTING_DOWN`) once that resolves.
    pub fn new(inner: B, call: Call, shutdown: Option<ShutdownSignal>) -> Self {
        Self {
            inner,
            call,
            shutdown,
            ended: false,
        }
    }

    fn finish(&mut self, code: Code) {
        self.call.finish(code);
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
