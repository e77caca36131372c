//! Raw HTTP/2 gRPC calls (with `h2`, bypassing tonic's client) for the abuse tests: any body
//! bytes and headers, and the status read back from headers (trailers-only) or trailers.
#![allow(dead_code)] // each test binary uses a different part

use std::net::SocketAddr;

use bytes::Bytes;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// What came back from a raw call.
#[derive(Debug)]
pub struct RawReply {
    /// The status (from the trailers-only headers or the trailers).
    pub status: Status,
    /// The response headers.
    pub headers: http::HeaderMap,
    /// The response body bytes.
    pub body: Vec<u8>,
}

impl RawReply {
    /// The ErrorInfo reason, if any.
    pub fn reason(&self) -> Option<String> {
        self.status.get_details_error_info().map(|info| info.reason)
    }

    /// The status code.
    pub fn code(&self) -> Code {
        self.status.code()
    }
}

/// A gRPC frame: flag byte, big-endian length, payload.
pub fn frame(flag: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![flag];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// Sends one POST to `path` with `body` (None: END_STREAM on the headers) and the extra
/// `headers`; reads the whole reply.
pub async fn raw_call(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Vec<u8>>,
) -> Result<RawReply, h2::Error> {
    let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (client, connection) = h2::client::handshake(tcp).await?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let mut client = client.ready().await?;
    let mut request = http::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(()).unwrap();
    let (response, mut send) = client.send_request(request, body.is_none())?;
    if let Some(body) = body {
        // A server may answer before it reads the body (a call refused at once, such as one
        // whose deadline has passed) and close the stream: the body then cannot be sent
        // (`InactiveStreamId`), but the answer is there to read below. Any other fault of the
        // stream fails that read too.
        let _ = send.send_data(Bytes::from(body), true);
    }
    let response = response.await?;
    let (parts, mut received) = response.into_parts();
    let mut bytes = Vec::new();
    while let Some(chunk) = received.data().await {
        let chunk = chunk?;
        let _ = received.flow_control().release_capacity(chunk.len());
        bytes.extend_from_slice(&chunk);
    }
    let trailers = received.trailers().await?;
    driver.abort();
    let status = Status::from_header_map(&parts.headers)
        .or_else(|| trailers.as_ref().and_then(Status::from_header_map))
        .expect("a grpc-status in the headers or trailers");
    Ok(RawReply {
        status,
        headers: parts.headers,
        body: bytes,
    })
}
