//! Helpers for the operational integration tests (lifecycle, limits, observability, protocol,
//! config): bounded awaits, a bounded ValidateSwap, scraping `/metrics`, the slow request,
//! waiting for the process to exit and reading its log.
#![allow(dead_code)] // each test binary uses a different part

use std::collections::BTreeMap;
use std::future::Future;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{SwapGenerateBoardRequest, ValidateSwapRequest, ValidateSwapResponse};
use tonic::transport::Channel;

/// Bound on a single RPC or step that should be quick; generous so a loaded CI machine passes,
/// short enough that a hung server fails the test instead of hanging CI.
pub const STEP: Duration = Duration::from_secs(20);

/// Awaits `future`, failing the test with `what` if it takes longer than `limit`.
pub async fn within<F: Future>(what: &str, limit: Duration, future: F) -> F::Output {
    match tokio::time::timeout(limit, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what}: nothing within {limit:?} (server hung?)"),
    }
}

/// ValidateSwap, failing the test if it takes longer than [`STEP`].
pub async fn validate(
    client: &mut SwapPuzzleClient<Channel>,
    request: ValidateSwapRequest,
) -> Result<ValidateSwapResponse, tonic::Status> {
    within("ValidateSwap", STEP, client.validate_swap(request))
        .await
        .map(tonic::Response::into_inner)
}

/// A plain HTTP/1.1 GET; returns the status code, the headers block and the body.
pub fn http_get(addr: SocketAddr, path: &str) -> std::io::Result<(u16, String, String)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    stream.set_write_timeout(Some(Duration::from_secs(10)))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/plain\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw
        .split_once("\r\n\r\n")
        .ok_or_else(|| std::io::Error::other(format!("no HTTP header end in {raw:?}")))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line in {head:?}")))?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Ok((status, head.to_owned(), body))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// GET /metrics from the server's metrics listener; panics unless it answers 200.
pub async fn scrape(metrics_addr: SocketAddr) -> String {
    let fetch = tokio::task::spawn_blocking(move || http_get(metrics_addr, "/metrics"));
    let (status, head, body) = within("GET /metrics", STEP, fetch)
        .await
        .expect("metrics fetch task")
        .unwrap_or_else(|e| panic!("GET http://{metrics_addr}/metrics failed: {e}"));
    assert_eq!(status, 200, "GET /metrics answered {head}\n{body}");
    body
}

/// One sample of the Prometheus text format.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// Parses the Prometheus text exposition format (comments skipped).
pub fn parse_metrics(text: &str) -> Vec<Sample> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| parse_sample(line).unwrap_or_else(|| panic!("unparsable sample {line:?}")))
        .collect()
}

fn parse_sample(line: &str) -> Option<Sample> {
    let (name, labels, rest) = match line.find('{') {
        Some(open) if open < line.find(' ').unwrap_or(usize::MAX) => {
            let mut labels = BTreeMap::new();
            let mut chars = line[open + 1..].char_indices();
            let mut key = String::new();
            let end;
            loop {
                let (i, c) = chars.next()?;
                match c {
                    '}' => {
                        end = open + 1 + i;
                        break;
                    }
                    ',' | ' ' => {}
                    '=' => {
                        if chars.next()?.1 != '"' {
                            return None;
                        }
                        let mut value = String::new();
                        loop {
                            match chars.next()?.1 {
                                '\\' => match chars.next()?.1 {
                                    'n' => value.push('\n'),
                                    other => value.push(other),
                                },
                                '"' => break,
                                other => value.push(other),
                            }
                        }
                        labels.insert(std::mem::take(&mut key), value);
                    }
                    other => key.push(other),
                }
            }
            (line[..open].to_owned(), labels, &line[end + 1..])
        }
        _ => {
            let (name, rest) = line.split_once(' ')?;
            (name.to_owned(), BTreeMap::new(), rest)
        }
    };
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => v.parse().ok()?,
    };
    Some(Sample {
        name,
        labels,
        value,
    })
}

/// Samples named `name` whose labels include every `(key, value)` of `labels`.
pub fn samples<'a>(all: &'a [Sample], name: &str, labels: &[(&str, &str)]) -> Vec<&'a Sample> {
    all.iter()
        .filter(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .collect()
}

/// The value of the single sample matching `name` and `labels`, if there is one.
pub fn value(all: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let found = samples(all, name, labels);
    assert!(
        found.len() <= 1,
        "several samples match {name} {labels:?}: {found:#?}"
    );
    found.first().map(|s| s.value)
}

/// A slow but legal request: SwapPuzzle.GenerateBoard 64x64 with 2 colours and an unreachable
/// `min_moves`. The generator spends its whole bounded search budget, then answers
/// INVALID_ARGUMENT naming `min_moves`: measured 0.11-0.27 s in a debug build on the 2-core
/// CI machine. Tests never rely on the duration: they watch `matchgrid_requests_in_flight`.
pub fn slow_request() -> SwapGenerateBoardRequest {
    SwapGenerateBoardRequest {
        width: 64,
        height: 64,
        colors: 2,
        seed: 0,
        min_moves: Some(5000),
        ..Default::default()
    }
}

/// Polls `matchgrid_requests_in_flight` until it is at least `at_least`; false if it is not
/// within `limit`.
pub async fn wait_for_in_flight(metrics_addr: SocketAddr, at_least: f64, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        let all = parse_metrics(&scrape(metrics_addr).await);
        if value(&all, "matchgrid_requests_in_flight", &[]).unwrap_or(0.0) >= at_least {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    false
}

/// Polls the child until it exits; None if it is still running after `limit`.
pub async fn wait_exit(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait on the server process") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every log line received so far (after the process exited: all of them, once the reader
/// thread hit EOF; waits up to `limit` for that).
pub fn drain_log(log: &mpsc::Receiver<String>, limit: Duration) -> Vec<String> {
    let deadline = Instant::now() + limit;
    let mut lines = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match log.recv_timeout(left) {
            Ok(line) => lines.push(line),
            Err(_) => break,
        }
    }
    lines
}

/// Index of the first line containing every needle.
pub fn find_line(lines: &[String], needles: &[&str]) -> Option<usize> {
    lines
        .iter()
        .position(|l| needles.iter().all(|n| l.contains(n)))
}

/// Sends `signal` (e.g. "INT") to `pid` with the `kill` command.
pub fn send_signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}
