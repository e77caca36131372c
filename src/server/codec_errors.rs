//! Error statuses from tonic or a library service (codec errors, unknown methods, health's
//! NOT_FOUND) rewritten to the contract of docs/rules.md section 4: the right code, and a
//! `google.rpc.ErrorInfo` on every error.

use http::HeaderMap;
use tonic::{Code, Status};

use super::grpc_code::{GRPC_MESSAGE, GRPC_STATUS_DETAILS, code_in, code_name};
use crate::transport::status;

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
/// line with docs/rules.md section 4: a message over the size limit is RESOURCE_EXHAUSTED
/// (`REQUEST_TOO_LARGE`); a body that is not a valid message, not valid data for its
/// compression, or not well framed is INVALID_ARGUMENT (`MALFORMED_MESSAGE`,
/// `MALFORMED_COMPRESSION`, `MALFORMED_FRAME`); any other error without details gets an
/// ErrorInfo whose reason is its code's name. No matchgrid handler returns OUT_OF_RANGE or
/// INTERNAL but for a panic, which carries details, so the rewrite is exact.
///
/// Returns the code after the rewrite; OK when `headers` carry no status.
pub fn remap_codec_errors(headers: &mut HeaderMap) -> Code {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::grpc_code::header_code;

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
    fn decode_errors_name_their_field() {
        assert_eq!(
            decode_error_field("Board.width: ValidateSwapRequest.board: invalid varint"),
            "board.width"
        );
        assert_eq!(decode_error_field("invalid wire type"), "request");
    }
}
