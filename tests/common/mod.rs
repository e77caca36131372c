//! Shared harness for integration tests: runs the real `matchgrid serve` binary on free
//! loopback ports and connects tonic clients to it.
#![allow(dead_code)] // each test binary uses a different part of the harness

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpListener};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use matchgrid::proto::collapse_puzzle_client::CollapsePuzzleClient;
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use tonic::transport::Channel;

/// How long a server may take to start listening.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A free loopback port (bound then released; the server binds it right after).
/// Runs the `matchgrid` binary with `args`, no `MATCHGRID_*` variable of this process but
/// those of `env`, and no stdin; returns (exit code, stdout, stderr).
pub fn run_cli(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_matchgrid"));
    for (key, _) in std::env::vars() {
        if key.starts_with("MATCHGRID_") {
            command.env_remove(key);
        }
    }
    let output = command
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run the CLI");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The address in the `listen=HOST:PORT` field of a text-format log line.
fn listen_address(line: &str) -> Option<SocketAddr> {
    let start = line.find("listen=")? + "listen=".len();
    line[start..].split_whitespace().next()?.parse().ok()
}

/// A running `matchgrid serve` process, killed on drop.
pub struct TestServer {
    pub child: Child,
    pub addr: SocketAddr,
    pub metrics_addr: SocketAddr,
    /// Server log lines (stderr), as they arrive.
    pub log: mpsc::Receiver<String>,
}

impl TestServer {
    /// Starts a server with default settings plus `extra_args`, waiting until it serves.
    ///
    /// The gRPC port is chosen by the server (`--listen 127.0.0.1:0`) and read back from its
    /// "matchgrid serving" log line; the metrics port is picked free beforehand, so a start that
    /// loses that port to another test is retried.
    pub fn start(extra_args: &[&str]) -> Self {
        Self::start_with_env(extra_args, &[])
    }

    /// [`TestServer::start`] with these environment variables set for the server.
    pub fn start_with_env(extra_args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut failures = Vec::new();
        for _ in 0..3 {
            match Self::try_start(extra_args, env) {
                Ok(server) => return server,
                Err(failure) => failures.push(failure),
            }
        }
        panic!("matchgrid serve did not start: {failures:#?}");
    }

    fn try_start(extra_args: &[&str], env: &[(&str, &str)]) -> Result<Self, String> {
        let metrics_addr: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_matchgrid"))
            .arg("serve")
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--metrics-listen")
            .arg(metrics_addr.to_string())
            .args(extra_args)
            .env_remove("RUST_LOG")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn matchgrid serve");
        let stderr = child.stderr.take().unwrap();
        let (tx, log) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = std::time::Instant::now() + START_TIMEOUT;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            let Ok(line) = log.recv_timeout(left) else {
                break;
            };
            if line.contains("matchgrid serving") {
                let addr = listen_address(&line)
                    .unwrap_or_else(|| panic!("no listen= address in {line:?}"));
                return Ok(Self {
                    child,
                    addr,
                    metrics_addr,
                    log,
                });
            }
            seen.push(line);
        }
        let _ = child.kill();
        let _ = child.wait();
        Err(seen.join("\n"))
    }

    /// Waits for a log line containing `needle`; panics with the lines seen on timeout.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) -> String {
        let deadline = std::time::Instant::now() + timeout;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.log.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(line) => seen.push(line),
                Err(_) => break,
            }
        }
        panic!("no log line containing {needle:?} within {timeout:?}; saw: {seen:#?}");
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(self.url())
            .unwrap()
            .connect()
            .await
            .expect("connect to test server")
    }

    pub async fn swap_client(&self) -> SwapPuzzleClient<Channel> {
        SwapPuzzleClient::new(self.channel().await)
    }

    pub async fn collapse_client(&self) -> CollapsePuzzleClient<Channel> {
        CollapsePuzzleClient::new(self.channel().await)
    }

    /// Sends SIGTERM (via the `kill` command, so the tests need no libc bindings).
    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("run kill");
        assert!(status.success());
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A proto board from the text form (`RRG/GGR`).
pub fn board(text: &str) -> matchgrid::proto::Board {
    (&matchgrid::engine::Board::parse(text).unwrap()).into()
}

/// The text form of a proto board.
pub fn text(board: &matchgrid::proto::Board) -> String {
    matchgrid::engine::Board::from_raw(board.width, board.height, &board.cells)
        .unwrap()
        .to_string()
}

/// A proto position.
pub fn pos(row: u32, col: u32) -> matchgrid::proto::Position {
    matchgrid::proto::Position { row, col }
}

/// A proto swap.
pub fn swap(a: (u32, u32), b: (u32, u32)) -> matchgrid::proto::Swap {
    matchgrid::proto::Swap {
        a: Some(pos(a.0, a.1)),
        b: Some(pos(b.0, b.1)),
    }
}

/// The the rules' ValidateSwap example (section 5): swapping (0, 2) with (1, 2) on `RRG/GGR` is OK
/// and clears two groups.
pub fn spec_swap_example() -> matchgrid::proto::ValidateSwapRequest {
    matchgrid::proto::ValidateSwapRequest {
        board: Some(board("RRG/GGR")),
        swap: Some(swap((0, 2), (1, 2))),
    }
}

/// The the rules' Tap example (section 5): tapping (0, 1) on `ABBC/ABBC` under POPSTAR clears the
/// four B tiles for 80 points, leaving `AC../AC..`.
pub fn spec_tap_example() -> matchgrid::proto::TapRequest {
    matchgrid::proto::TapRequest {
        board: Some(board("ABBC/ABBC")),
        position: Some(pos(0, 1)),
        scoring: matchgrid::proto::ScoringRule::Popstar.into(),
        min_group: 2,
    }
}

/// The field names of a status's google.rpc.BadRequest.
pub fn bad_request_fields(status: &tonic::Status) -> Vec<String> {
    use tonic_types::StatusExt;
    status
        .get_details_bad_request()
        .map(|b| b.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default()
}

/// The subjects of a status's google.rpc.PreconditionFailure.
pub fn precondition_subjects(status: &tonic::Status) -> Vec<String> {
    precondition_violations(status)
        .into_iter()
        .map(|(subject, _)| subject)
        .collect()
}

/// The (subject, description) pairs of a status's google.rpc.PreconditionFailure.
pub fn precondition_violations(status: &tonic::Status) -> Vec<(String, String)> {
    use tonic_types::StatusExt;
    status
        .get_details_precondition_failure()
        .map(|p| {
            p.violations
                .into_iter()
                .map(|v| (v.subject, v.description))
                .collect()
        })
        .unwrap_or_default()
}

/// A wire board from the level text form (`#` hole, `*` colour bomb, `R-` / `R|` / `R+`
/// striped along the row, striped along the column, wrapped; docs/rules.md section 6).
pub fn level(text: &str) -> matchgrid::proto::Board {
    (&matchgrid::engine::SwapBoard::parse_with_layers(text).unwrap()).into()
}

/// The level text form of a wire board.
pub fn level_text(board: &matchgrid::proto::Board) -> String {
    let kinds = board
        .kinds
        .iter()
        .map(|&k| matchgrid::transport::convert::kind_from_proto(k).unwrap())
        .collect();
    let plain =
        matchgrid::engine::Board::from_raw(board.width, board.height, &board.cells).unwrap();
    matchgrid::engine::SwapBoard::with_layers(plain, board.holes.clone(), kinds)
        .unwrap()
        .to_string()
}
