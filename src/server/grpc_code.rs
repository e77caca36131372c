//! gRPC's header names, and its status codes as the server reads them from response headers and
//! names them in metrics, logs and ErrorInfo reasons.

use http::{HeaderMap, HeaderName};
use tonic::Code;

/// The `grpc-status` header (or trailer).
pub const GRPC_STATUS: HeaderName = HeaderName::from_static("grpc-status");

/// The `grpc-message` header (or trailer).
pub const GRPC_MESSAGE: HeaderName = HeaderName::from_static("grpc-message");

/// The `grpc-status-details-bin` header (or trailer): an encoded `google.rpc.Status`.
pub const GRPC_STATUS_DETAILS: HeaderName = HeaderName::from_static("grpc-status-details-bin");

/// The `grpc-timeout` request header: the client's deadline.
pub const GRPC_TIMEOUT: HeaderName = HeaderName::from_static("grpc-timeout");

/// The `grpc-encoding` request header: the compression of the request's messages.
pub const GRPC_ENCODING: HeaderName = HeaderName::from_static("grpc-encoding");

/// gRPC codes are 0..=16.
pub const CODE_COUNT: usize = 17;

/// The gRPC code in a header map (`grpc-status`), if any.
pub fn code_in(headers: &HeaderMap) -> Option<Code> {
    let value = headers.get(GRPC_STATUS)?;
    if value.as_bytes() == b"0" {
        // Every successful call ends so.
        return Some(Code::Ok);
    }
    value
        .to_str()
        .ok()
        .and_then(|v| v.parse::<i32>().ok())
        .map(Code::from_i32)
}

/// The gRPC code in a response's headers (trailers-only responses carry it there); a response
/// without one is OK so far (unary success puts OK in the trailers).
pub fn header_code<B>(response: &http::Response<B>) -> Code {
    code_in(response.headers()).unwrap_or(Code::Ok)
}

/// A code's name as gRPC spells it (`INVALID_ARGUMENT`): the `code` label and log field, and
/// the ErrorInfo reason of an error that has no reason of its own.
pub fn code_name(code: Code) -> &'static str {
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
