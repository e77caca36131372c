//! Memory soak: the resident memory (VmRSS) of a real `matchgrid serve` while it answers
//! 20,000 `Hint` calls and then 20,000 `Simulate` calls, the traffic that runs on tokio's
//! blocking pool (where glibc's per-thread malloc arenas used to make RSS grow).
//!
//! `cargo bench --bench rss_soak` (builds `target/release/matchgrid` and measures it), or against
//! any binary: `RSS_SOAK_SERVER=path/to/matchgrid cargo bench --bench rss_soak`.
//!
//! - **Server**: `serve --listen 127.0.0.1:0 --heavy-work-wait 30s` (so that no call is shed
//!   while others hold the heavy-work slots) with otherwise default settings, as a child process; its VmRSS and peak (VmHWM) are read from `/proc/PID/status`.
//! - **Calls**: `Hint` with 4 sampled refills per swap (a blocking-pool call), then greedy
//!   `Simulate` of 4 games of 10 moves, each on one of 9 generated boards of 6 colours taken in
//!   turn, from 9x9 up to 32x32 (`RSS_SOAK_SIDE`); 64 calls in flight over 4
//!   connections. Every answer must be OK.
//! - **Output**: one line every 2,000 calls and at the end of each phase: calls so far, VmRSS
//!   and VmHWM in MB, calls per second.
//!
//! Settings (environment variables): `RSS_SOAK_CALLS` (calls per phase, default 20000),
//! `RSS_SOAK_SIDE` (board side, default 32),
//! `RSS_SOAK_SERVER` (the binary; default `target/release/matchgrid`), and `RSS_SOAK_ENV`
//! (`NAME=VALUE` pairs separated by spaces, set for the server, e.g. `MALLOC_ARENA_MAX=1`).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{self, SwapGenerateBoardRequest, SwapHintRequest, SwapSimulateRequest};
use tonic::transport::{Channel, Endpoint};

/// Connections to the server.
const CONNECTIONS: usize = 4;
/// Calls in flight per connection (64 in all).
const CALLS_PER_CONNECTION: usize = 16;
/// A progress line every this many calls.
const REPORT_EVERY: u64 = 2_000;

/// A server child process, killed on drop.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free loopback port (bound then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Starts `binary serve` and waits for its "listen=ADDR" log line.
fn start(binary: &str, env: &[(String, String)]) -> Server {
    let mut child = Command::new(binary)
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--heavy-work-wait",
            "30s",
        ])
        .arg("--metrics-listen")
        .arg(format!("127.0.0.1:{}", free_port()))
        .env_remove("RUST_LOG")
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {binary}: {e}"));
    let stderr = child.stderr.take().expect("server stderr");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(addr) = line
                .split("listen=")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|a| a.parse::<SocketAddr>().ok())
            {
                let _ = sender.send(addr);
            }
        }
    });
    let addr = receiver
        .recv_timeout(Duration::from_secs(20))
        .expect("the server's listen line");
    Server { child, addr }
}

/// VmRSS and VmHWM of process `pid`, in MB, and its thread count.
fn rss_mb(pid: u32) -> (f64, f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"), field("Threads:") * 1024.0)
}

/// One phase's call.
#[derive(Clone, Copy, Debug)]
enum Phase {
    Hint,
    Simulate,
}

/// The size of each call: Hint's samples, Simulate's games and moves.
#[derive(Clone, Copy, Debug)]
struct Shape {
    samples: u32,
    games: u32,
    moves: u32,
}

async fn call(
    client: &mut SwapPuzzleClient<Channel>,
    phase: Phase,
    shape: Shape,
    boards: &[proto::Board],
    i: u64,
) {
    let board = &boards[i as usize % boards.len()];
    let answer = match phase {
        Phase::Hint => client
            .hint(SwapHintRequest {
                board: Some(board.clone()),
                top_n: 0,
                samples: shape.samples,
                seed: i,
                colors: 6,
                max_steps: 0,
            })
            .await
            .map(|_| ()),
        Phase::Simulate => client
            .simulate(SwapSimulateRequest {
                start: Some(proto::swap_simulate_request::Start::Board(board.clone())),
                games: shape.games,
                moves: shape.moves,
                seed: i,
                policy: proto::SwapPolicy::HintGreedy as i32,
                colors: 6,
                max_steps: 0,
                level: None,
                level_policy: 0,
                search_candidates: 0,
                search_rollouts: 0,
                search_depth: None,
            })
            .await
            .map(|_| ()),
    };
    if let Err(status) = answer {
        panic!("{phase:?} call {i}: {status:?}");
    }
}

/// Runs `calls` calls of `phase`, printing the server's RSS every [`REPORT_EVERY`] calls.
async fn run_phase(
    channels: &[Channel],
    pid: u32,
    phase: Phase,
    shape: Shape,
    boards: &Arc<Vec<proto::Board>>,
    calls: u64,
) {
    let next = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for channel in channels {
        for _ in 0..CALLS_PER_CONNECTION {
            let mut client = SwapPuzzleClient::new(channel.clone());
            let (next, done, boards) = (Arc::clone(&next), Arc::clone(&done), Arc::clone(boards));
            tasks.push(tokio::spawn(async move {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= calls {
                        break;
                    }
                    call(&mut client, phase, shape, &boards, i).await;
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished % REPORT_EVERY == 0 || finished == calls {
                        let (rss, hwm, threads) = rss_mb(pid);
                        println!(
                            "{phase:?} {finished:>6} calls: VmRSS {rss:6.1} MB, VmHWM {hwm:6.1} \
                             MB, {threads} threads, {:.0} calls/s",
                            finished as f64 / started.elapsed().as_secs_f64()
                        );
                    }
                }
            }));
        }
    }
    for task in tasks {
        task.await.expect("a client task");
    }
}

fn main() {
    // `cargo bench` passes `--bench`; this harness takes no arguments.
    let calls: u64 = std::env::var("RSS_SOAK_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let binary = std::env::var("RSS_SOAK_SERVER").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/matchgrid").to_owned()
    });
    let env: Vec<(String, String)> = std::env::var("RSS_SOAK_ENV")
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let side: u32 = std::env::var("RSS_SOAK_SIDE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let number = |name: &str, default: u32| -> u32 {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let shape = Shape {
        samples: number("RSS_SOAK_SAMPLES", 4),
        games: number("RSS_SOAK_GAMES", 4),
        moves: number("RSS_SOAK_MOVES", 10),
    };
    let server = start(&binary, &env);
    let pid = server.child.id();
    println!(
        "server {binary} (pid {pid}) env {env:?}, {side}x{side}, {shape:?}, {calls} calls a phase"
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");
    runtime.block_on(async {
        let url = format!("http://{}", server.addr);
        let mut channels = Vec::new();
        for _ in 0..CONNECTIONS {
            let channel = Endpoint::from_shared(url.clone())
                .expect("URL")
                .connect()
                .await
                .expect("connect");
            channels.push(channel);
        }
        // Boards of several sizes, 9x9 up to the largest side, taken in turn: calls of
        // different sizes, as real traffic has.
        let mut boards = Vec::new();
        for (k, side) in (9..=side)
            .step_by(((side - 8) / 8).max(1) as usize)
            .enumerate()
        {
            let board = SwapPuzzleClient::new(channels[0].clone())
                .generate_board(SwapGenerateBoardRequest {
                    width: side,
                    height: side,
                    colors: 6,
                    seed: k as u64,
                    min_moves: Some(3),
                    holes: Vec::new(),
                    layout: None,
                })
                .await
                .expect("GenerateBoard")
                .into_inner()
                .board
                .expect("a board");
            boards.push(board);
        }
        let boards = Arc::new(boards);
        let (rss, hwm, threads) = rss_mb(pid);
        println!("start: VmRSS {rss:6.1} MB, VmHWM {hwm:6.1} MB, {threads} threads");
        run_phase(&channels, pid, Phase::Hint, shape, &boards, calls).await;
        run_phase(&channels, pid, Phase::Simulate, shape, &boards, calls).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let (rss, hwm, threads) = rss_mb(pid);
        println!("end (1 s idle): VmRSS {rss:6.1} MB, VmHWM {hwm:6.1} MB, {threads} threads");
    });
}
