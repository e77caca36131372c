//! [`checked`]: the gRPC length-prefixed framing of a request body, checked as tonic reads it
//! (before it decodes), so a malformed frame is INVALID_ARGUMENT with a stable ErrorInfo reason
//! (docs/rules.md section 4: "malformed request") instead of tonic's INTERNAL, and a unary
//! request carrying a second message is refused instead of having it silently ignored. The
//! call layer ([`super::observe`]) applies it to every call.
//!
//! A frame is a 1-byte compressed flag (0, or 1 when the request's `grpc-encoding` names a
//! compression), a 4-byte big-endian length and that many bytes
//! ([gRPC over HTTP/2](https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md)).
//! Reasons: `EMPTY_REQUEST` (a unary request with no message), `TRUNCATED_MESSAGE` (the body
//! ends inside a frame), `COMPRESSED_WITHOUT_ENCODING` (flag 1 with no or `identity`
//! encoding), `INVALID_COMPRESSION_FLAG` (any other flag), `EXTRA_MESSAGE` (a second message
//! on a unary request). Message size limits and decompression stay with tonic.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use tonic::Status;
use tonic::body::Body;

use super::grpc_code::GRPC_ENCODING;
use crate::transport::status;

/// Paths whose requests are client streams (any number of messages, possibly none).
const STREAMING_REQUEST_PREFIXES: &[&str] = &["/grpc.reflection."];

/// `request` with its body checked as it is read, when it is a gRPC request
/// (`content-type: application/grpc...`); any other request as it is. A malformed body ends
/// with the INVALID_ARGUMENT status of its first fault (see the module docs).
pub fn checked(request: http::Request<Body>) -> http::Request<Body> {
    let grpc = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
    if !grpc {
        return request;
    }
    let unary = !STREAMING_REQUEST_PREFIXES
        .iter()
        .any(|prefix| request.uri().path().starts_with(prefix));
    let compressed_allowed = request
        .headers()
        .get(&GRPC_ENCODING)
        .is_some_and(|v| !v.is_empty() && v.as_bytes() != b"identity");
    request.map(|body| {
        Body::new(CheckedBody {
            inner: body,
            checker: FrameChecker::new(unary, compressed_allowed),
            done: false,
        })
    })
}

/// Follows the frames of a request body as its bytes arrive.
#[derive(Clone, Debug)]
pub struct FrameChecker {
    unary: bool,
    compressed_allowed: bool,
    /// Bytes of the current frame's 5-byte prefix seen so far.
    prefix: [u8; 5],
    prefix_len: usize,
    /// Payload bytes of the current frame still to come.
    payload_left: u64,
    payload_len: u64,
    messages: u64,
}

impl FrameChecker {
    /// A checker for a unary request (exactly one message) or a client stream, where
    /// compressed frames are allowed or not (the request's `grpc-encoding`).
    pub fn new(unary: bool, compressed_allowed: bool) -> Self {
        Self {
            unary,
            compressed_allowed,
            prefix: [0; 5],
            prefix_len: 0,
            payload_left: 0,
            payload_len: 0,
            messages: 0,
        }
    }

    /// Follows `data`, the next bytes of the body.
    ///
    /// # Errors
    /// The INVALID_ARGUMENT status for the first malformed frame.
    pub fn feed(&mut self, mut data: &[u8]) -> Result<(), Status> {
        while !data.is_empty() {
            if self.payload_left > 0 {
                let n = self.payload_left.min(data.len() as u64);
                self.payload_left -= n;
                data = &data[n as usize..];
                continue;
            }
            if self.prefix_len == 0 {
                if self.unary && self.messages >= 1 {
                    return Err(status::malformed_frame(
                        "EXTRA_MESSAGE",
                        "a unary request carries more than one message".to_owned(),
                    ));
                }
                // The usual case: the whole prefix in this chunk, read where it is.
                if let Some((prefix, rest)) = data.split_first_chunk::<5>() {
                    self.start_message(*prefix)?;
                    data = rest;
                    continue;
                }
            }
            let n = (5 - self.prefix_len).min(data.len());
            self.prefix[self.prefix_len..self.prefix_len + n].copy_from_slice(&data[..n]);
            self.prefix_len += n;
            data = &data[n..];
            if self.prefix_len == 5 {
                self.prefix_len = 0;
                self.start_message(self.prefix)?;
            }
        }
        Ok(())
    }

    /// Starts a message at its 5-byte prefix: the compressed flag, then the length.
    fn start_message(&mut self, prefix: [u8; 5]) -> Result<(), Status> {
        match prefix[0] {
            0 => {}
            1 if self.compressed_allowed => {}
            1 => {
                return Err(status::malformed_frame(
                    "COMPRESSED_WITHOUT_ENCODING",
                    "a message has the compressed flag set but the request names no \
                     grpc-encoding (or identity)"
                        .to_owned(),
                ));
            }
            flag => {
                return Err(status::malformed_frame(
                    "INVALID_COMPRESSION_FLAG",
                    format!("invalid compressed flag {flag} (only 0 and 1 are defined)"),
                ));
            }
        }
        let length = u32::from_be_bytes([prefix[1], prefix[2], prefix[3], prefix[4]]);
        self.payload_len = u64::from(length);
        self.payload_left = u64::from(length);
        self.messages += 1;
        Ok(())
    }

    /// Checks the end of the body.
    ///
    /// # Errors
    /// The INVALID_ARGUMENT status when the body ends inside a frame, or holds no message for a
    /// unary request.
    pub fn finish(&self) -> Result<(), Status> {
        if self.prefix_len > 0 {
            return Err(status::malformed_frame(
                "TRUNCATED_MESSAGE",
                format!(
                    "the request ends inside a message prefix ({} of 5 bytes)",
                    self.prefix_len
                ),
            ));
        }
        if self.payload_left > 0 {
            return Err(status::malformed_frame(
                "TRUNCATED_MESSAGE",
                format!(
                    "the request ends inside a message ({} of {} bytes)",
                    self.payload_len - self.payload_left,
                    self.payload_len
                ),
            ));
        }
        if self.unary && self.messages == 0 {
            return Err(status::malformed_frame(
                "EMPTY_REQUEST",
                "the request holds no message; a unary call needs exactly one".to_owned(),
            ));
        }
        Ok(())
    }
}

/// A request body checked by a [`FrameChecker`] as it streams.
struct CheckedBody {
    inner: Body,
    checker: FrameChecker,
    done: bool,
}

impl HttpBody for CheckedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        let checked = match &polled {
            Poll::Pending => return polled,
            Poll::Ready(Some(Ok(frame))) => match frame.data_ref() {
                Some(data) => this.checker.feed(data),
                None => this.checker.finish(),
            },
            Poll::Ready(Some(Err(_))) => return polled,
            Poll::Ready(None) => this.checker.finish(),
        };
        match checked {
            Ok(()) => {
                if matches!(polled, Poll::Ready(None)) {
                    this.done = true;
                }
                polled
            }
            Err(status) => {
                this.done = true;
                Poll::Ready(Some(Err(status)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;
    use tonic_types::StatusExt;

    fn reason(result: Result<(), Status>) -> Option<String> {
        let status = result.err()?;
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        status.get_details_error_info().map(|info| info.reason)
    }

    fn check(unary: bool, compressed: bool, chunks: &[&[u8]]) -> Option<String> {
        let mut checker = FrameChecker::new(unary, compressed);
        for chunk in chunks {
            if let Some(reason) = reason(checker.feed(chunk)) {
                return Some(reason);
            }
        }
        reason(checker.finish())
    }

    #[test]
    fn well_formed_bodies_pass_in_any_chunking() {
        let body = [0u8, 0, 0, 0, 3, 8, 1, 16];
        for split in 0..=body.len() {
            assert_eq!(check(true, false, &[&body[..split], &body[split..]]), None);
        }
        assert_eq!(
            check(true, false, &[&[0, 0, 0, 0, 0]]),
            None,
            "empty message"
        );
        assert_eq!(check(true, true, &[&[1, 0, 0, 0, 0]]), None, "compressed");
        assert_eq!(check(false, false, &[]), None, "an empty client stream");
        let two = [0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(check(false, false, &[&two]), None, "a client stream");
    }

    #[test]
    fn each_malformed_body_has_its_reason() {
        let reason = |unary, compressed, body: &[u8]| check(unary, compressed, &[body]);
        assert_eq!(reason(true, false, b"").as_deref(), Some("EMPTY_REQUEST"));
        assert_eq!(
            reason(true, false, &[0, 0, 0]).as_deref(),
            Some("TRUNCATED_MESSAGE")
        );
        assert_eq!(
            reason(true, false, &[0, 0, 0, 0, 9, 1]).as_deref(),
            Some("TRUNCATED_MESSAGE")
        );
        assert_eq!(
            reason(true, false, &[1, 0, 0, 0, 0]).as_deref(),
            Some("COMPRESSED_WITHOUT_ENCODING")
        );
        assert_eq!(
            reason(true, true, &[2, 0, 0, 0, 0]).as_deref(),
            Some("INVALID_COMPRESSION_FLAG")
        );
        assert_eq!(
            reason(true, false, &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).as_deref(),
            Some("EXTRA_MESSAGE")
        );
    }
}
