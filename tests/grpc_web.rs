//! The playground page and gRPC-Web on the gRPC port, against the real binary: the embedded
//! page and script over HTTP/1.1, a gRPC-Web call over HTTP/1.1, and CORS (none by default,
//! the allow-list with `--cors-allow-origin`). The page itself is tested in a browser by
//! `.ci/playground-check`.
mod common;
mod ops_support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{TestServer, spec_swap_example};
use matchgrid::proto::{SwapVerdict, ValidateSwapResponse};
use ops_support::http_get;
use prost::Message;

/// One HTTP/1.1 request with these extra header lines and body; returns the status, the
/// header block (lower-cased) and the raw body.
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for header in headers {
        request.push_str(header);
        request.push_str("\r\n");
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head, raw[end + 4..].to_vec())
}

/// A gRPC-Web frame of `message`.
fn frame(message: &impl Message) -> Vec<u8> {
    let payload = message.encode_to_vec();
    let mut out = vec![0];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Undoes HTTP/1.1 chunked transfer encoding.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = body.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&body[..line_end]).unwrap().trim(), 16)
                .unwrap();
        if size == 0 {
            break;
        }
        let start = line_end + 2;
        out.extend_from_slice(&body[start..start + size]);
        body = &body[start + size + 2..];
    }
    out
}

#[test]
fn the_page_and_its_script_are_served_on_the_grpc_port() {
    let server = TestServer::start(&[]);
    let (status, head, body) = http_get(server.addr, "/").unwrap();
    assert_eq!(status, 200, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/html")
    );
    assert_eq!(body, matchgrid::server::playground::INDEX_HTML);
    let (status, head, body) = http_get(server.addr, "/playground.js").unwrap();
    assert_eq!(status, 200, "{head}");
    assert!(head.to_ascii_lowercase().contains("text/javascript"));
    assert_eq!(body, matchgrid::server::playground::PLAYGROUND_JS);
}

#[test]
fn the_page_can_be_turned_off() {
    let server = TestServer::start(&["--playground", "false"]);
    let (status, _, _) = http_get(server.addr, "/").unwrap();
    assert_ne!(status, 200);
}

#[test]
fn a_grpc_web_call_over_http1_is_answered() {
    let server = TestServer::start(&[]);
    let (status, head, body) = http(
        server.addr,
        "POST",
        "/matchgrid.v1.SwapPuzzle/ValidateSwap",
        &["Content-Type: application/grpc-web+proto", "X-Grpc-Web: 1"],
        &frame(&spec_swap_example()),
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("content-type: application/grpc-web"),
        "{head}"
    );
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(&body)
    } else {
        body
    };
    // A data frame (flag 0) with the response, then a trailers frame (flag 0x80).
    assert_eq!(body[0], 0);
    let len = u32::from_be_bytes(body[1..5].try_into().unwrap()) as usize;
    let response = ValidateSwapResponse::decode(&body[5..5 + len]).unwrap();
    assert_eq!(response.verdict(), SwapVerdict::Ok);
    assert_eq!(response.groups.len(), 2);
    let trailers = &body[5 + len..];
    assert_eq!(trailers[0], 0x80);
    let trailers = String::from_utf8_lossy(&trailers[5..]).to_ascii_lowercase();
    assert!(trailers.contains("grpc-status:0"), "{trailers}");
}

fn preflight(server: &TestServer, origin: &str) -> (u16, String) {
    let origin = format!("Origin: {origin}");
    let (status, head, _) = http(
        server.addr,
        "OPTIONS",
        "/matchgrid.v1.SwapPuzzle/ValidateSwap",
        &[
            &origin,
            "Access-Control-Request-Method: POST",
            "Access-Control-Request-Headers: content-type,x-grpc-web,x-user-agent",
        ],
        b"",
    );
    (status, head)
}

#[test]
fn cross_origin_calls_need_the_allow_list() {
    let closed = TestServer::start(&[]);
    let (_, head) = preflight(&closed, "https://levels.example.com");
    assert!(
        !head.contains("access-control-allow-origin"),
        "no CORS by default: {head}"
    );

    let open = TestServer::start(&[
        "--cors-allow-origin",
        "https://levels.example.com",
        "--cors-allow-origin",
        "http://localhost:5173",
    ]);
    let (status, head) = preflight(&open, "https://levels.example.com");
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("access-control-allow-origin: https://levels.example.com"),
        "{head}"
    );
    assert!(head.contains("x-grpc-web"), "{head}");
    let (_, head) = preflight(&open, "https://elsewhere.example.com");
    assert!(!head.contains("access-control-allow-origin"), "{head}");

    // The actual call exposes the gRPC status headers to the page.
    let (status, head, _) = http(
        open.addr,
        "POST",
        "/matchgrid.v1.SwapPuzzle/ValidateSwap",
        &[
            "Origin: http://localhost:5173",
            "Content-Type: application/grpc-web+proto",
        ],
        &frame(&spec_swap_example()),
    );
    assert_eq!(status, 200, "{head}");
    assert!(
        head.contains("access-control-allow-origin: http://localhost:5173"),
        "{head}"
    );
    assert!(head.contains("access-control-expose-headers"), "{head}");
    assert!(head.contains("grpc-status"), "{head}");
}

#[test]
fn a_bad_origin_is_refused_at_start() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_matchgrid"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--cors-allow-origin",
            "levels.example.com/x",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--cors-allow-origin"));
}
