//! Load generator: `ValidateSwap` on a 9x9 board through the real `matchgrid serve
//! --worker-threads 1` against a bare tonic echo server, with the same client, in one run.
//!
//! `cargo bench --bench rpc_load`
//!
//! - **Echo baseline**: a `SwapPuzzle` whose `ValidateSwap` returns a pre-built copy of the
//!   response matchgrid gives for the same request (same request and reply bytes); no layers, no
//!   compression settings, a 1-worker multi-thread tokio runtime (the runtime shape of `matchgrid
//!   serve --worker-threads 1`). It runs as a child process (this bench binary started again with
//!   `RPC_LOAD_ROLE=echo`), so both servers are scheduled alike: in the client's process it
//!   measured slower than matchgrid in some rounds.
//! - **matchgrid**: the built binary (`target/release/matchgrid`, which cargo builds for the
//!   bench) run as a child process with `serve --worker-threads 1` and otherwise default
//!   settings (log level `info`, metrics endpoint on, limits and timeout on).
//! - **RSS**: each server's VmRSS (and peak, VmHWM) from `/proc/PID/status`, read near the end of
//!   each measured window, under load.
//! - **Client**: 64 calls in flight (16 tasks on each of 4 HTTP/2 connections, each task calling
//!   in a loop), on its own tokio runtime; loopback only. Each measurement is a warm-up on fresh
//!   connections, then a fixed measured window; per-call latency goes into an HDR histogram.
//! - **Server CPU per call**: the CPU time of the server's threads (`/proc/.../schedstat`) over
//!   the measured window divided by the calls: the cost of one call on the server, which machine
//!   noise and a client-bound run blur far less than calls/s do.
//! - **Rounds**: the servers are measured alternately (the order flips every round) to cancel
//!   machine noise; every round is printed, then the round with the median matchgrid/echo
//!   throughput ratio (the result), then the median over rounds of each per-round ratio
//!   (throughput, p99, server CPU per call).
//!
//! - **matchgrid TLS**: the same binary and settings with `--tls-cert`/`--tls-key` (an ECDSA
//!   P-256 certificate made with rcgen at start), called over TLS 1.3 by the same client; the
//!   last lines compare it with plaintext matchgrid in the same rounds (`RPC_LOAD_TLS=0` skips
//!   it). Connections are made once per measurement, so this is the per-call cost of TLS on open
//!   connections, not of handshakes.
//!
//! Settings (environment variables): `RPC_LOAD_ROUNDS` (default 5), `RPC_LOAD_SECS` (measured
//! seconds per server per round, default 3), `RPC_LOAD_WARMUP_SECS` (default 1),
//! `RPC_LOAD_CLIENT_THREADS` (client runtime workers, default 1), and `RPC_LOAD_COMPARE`: the
//! path of another `matchgrid` binary (e.g. a build of an earlier commit) measured as a third
//! server in the same rounds, for before/after figures side by side. `RPC_LOAD_ECHO_LISTEN`
//! (echo role only) pins the echo server's address, so that an echo server run by hand, under
//! valgrind say, can stand in as that third server (docs/performance.md gives the commands).

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::swap_puzzle_server::{SwapPuzzle, SwapPuzzleServer};
use matchgrid::proto::{self, ValidateSwapRequest, ValidateSwapResponse};
use prost::Message;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::{Request, Response, Status};

/// Connections per measurement.
const CONNECTIONS: usize = 4;
/// Calls in flight per connection (64 in all).
const CALLS_PER_CONNECTION: usize = 16;
/// Bound on server start-up and on connecting.
const START_TIMEOUT: Duration = Duration::from_secs(20);

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name}={value:?} is not a valid value")),
        Err(_) => default,
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A stable 9x9 board and a swap that makes one run of three: a 97-byte request and a 22-byte
/// reply (verdict OK and one group), the sizes of issue 7's measurement.
fn request() -> ValidateSwapRequest {
    let board = matchgrid::engine::Board::parse(
        "RPRBBGORY/BRRPBYBYB/RGPGYBOGO/YRPYBPRBB/YBOOGBYBP/GYGGYOOPR/BPYYPBPOG/BOYPRBORR/YGORYOPPO",
    )
    .unwrap();
    ValidateSwapRequest {
        board: Some((&board).into()),
        swap: Some(proto::Swap {
            a: Some(proto::Position { row: 0, col: 0 }),
            b: Some(proto::Position { row: 1, col: 0 }),
        }),
    }
}

/// The bare baseline: answers every ValidateSwap with a copy of one pre-built response.
struct Echo {
    reply: ValidateSwapResponse,
}

#[tonic::async_trait]
impl SwapPuzzle for Echo {
    type SimulateWithProgressStream = matchgrid::server::services::SimulateProgressStream;

    async fn simulate_with_progress(
        &self,
        _: Request<proto::SimulateWithProgressRequest>,
    ) -> Result<Response<Self::SimulateWithProgressStream>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn generate_board(
        &self,
        _: Request<proto::SwapGenerateBoardRequest>,
    ) -> Result<Response<proto::SwapGenerateBoardResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn validate_swap(
        &self,
        _: Request<ValidateSwapRequest>,
    ) -> Result<Response<ValidateSwapResponse>, Status> {
        Ok(Response::new(self.reply.clone()))
    }

    async fn resolve_cascade(
        &self,
        _: Request<proto::ResolveCascadeRequest>,
    ) -> Result<Response<proto::ResolveCascadeResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn check_dead_state(
        &self,
        _: Request<proto::SwapCheckDeadStateRequest>,
    ) -> Result<Response<proto::SwapCheckDeadStateResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn shuffle(
        &self,
        _: Request<proto::ShuffleRequest>,
    ) -> Result<Response<proto::ShuffleResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn replay_game(
        &self,
        _: Request<proto::SwapReplayGameRequest>,
    ) -> Result<Response<proto::SwapReplayGameResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn hint(
        &self,
        _: Request<proto::SwapHintRequest>,
    ) -> Result<Response<proto::SwapHintResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn simulate(
        &self,
        _: Request<proto::SwapSimulateRequest>,
    ) -> Result<Response<proto::SwapSimulateResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn start_level(
        &self,
        _: Request<proto::StartLevelRequest>,
    ) -> Result<Response<proto::StartLevelResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }

    async fn play_move(
        &self,
        _: Request<proto::PlayMoveRequest>,
    ) -> Result<Response<proto::PlayMoveResponse>, Status> {
        Err(Status::unimplemented("echo"))
    }
}

/// A server under test: a child process, killed when dropped.
struct Server {
    child: Child,
    /// How to reach it over TLS, if it serves TLS.
    tls: Option<ClientTlsConfig>,
}

impl Server {
    /// Starts the echo server: this binary again, in the echo role.
    fn echo() -> (Self, SocketAddr) {
        let exe = std::env::current_exe().unwrap();
        let mut child = Command::new(exe)
            .env(ROLE, "echo")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the echo server");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(START_TIMEOUT).expect("echo server address");
        let addr = line.trim().parse().expect("echo server address");
        (Self { child, tls: None }, addr)
    }

    fn matchgrid(binary: &str) -> (Self, SocketAddr) {
        Self::matchgrid_with(binary, &[])
    }

    /// matchgrid serving TLS with a fresh self-signed certificate for `localhost`, written to
    /// `dir`.
    fn matchgrid_tls(binary: &str, dir: &std::path::Path) -> (Self, SocketAddr) {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        std::fs::create_dir_all(dir).unwrap();
        let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
        std::fs::write(&cert, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        let (cert, key) = (cert.display().to_string(), key.display().to_string());
        let (mut server, addr) =
            Self::matchgrid_with(binary, &["--tls-cert", &cert, "--tls-key", &key]);
        server.tls = Some(
            ClientTlsConfig::new()
                .ca_certificate(Certificate::from_pem(made.cert.pem()))
                .domain_name("localhost"),
        );
        (server, addr)
    }

    fn matchgrid_with(binary: &str, extra: &[&str]) -> (Self, SocketAddr) {
        let listen: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
        let metrics = format!("127.0.0.1:{}", free_port());
        let child = Command::new(binary)
            .args(["serve", "--worker-threads", "1", "--listen"])
            .arg(listen.to_string())
            .args(["--metrics-listen", &metrics])
            .args(extra)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {binary}: {e}"));
        (Self { child, tls: None }, listen)
    }

    /// CPU time used so far by all the server's threads, in nanoseconds (`schedstat`).
    fn cpu_ns(&self) -> u64 {
        let Ok(threads) = std::fs::read_dir(format!("/proc/{}/task", self.child.id())) else {
            return 0;
        };
        threads
            .filter_map(|thread| {
                let stat = std::fs::read_to_string(thread.ok()?.path().join("schedstat")).ok()?;
                stat.split_whitespace().next()?.parse::<u64>().ok()
            })
            .sum()
    }

    /// Resident set size and its peak, in KiB.
    fn rss_kib(&self) -> Option<(u64, u64)> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let field = |name: &str| -> Option<u64> {
            let line = status.lines().find(|l| l.starts_with(name))?;
            line[name.len()..].split_whitespace().next()?.parse().ok()
        };
        Some((field("VmRSS:")?, field("VmHWM:")?))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The echo role: serves on a free loopback port, prints the address on stdout, and exits when
/// stdin closes (the parent ended, however it ended).
fn run_echo() {
    let request = request();
    let reply = matchgrid::transport::swap::validate_swap(request).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let address = std::env::var("RPC_LOAD_ECHO_LISTEN").unwrap_or("127.0.0.1:0".to_owned());
        let listener = tokio::net::TcpListener::bind(address).await.unwrap();
        println!("{}", listener.local_addr().unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
            let _ = stop.send(());
        });
        let incoming =
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        // Spawned, as `matchgrid serve` does, so it runs on the worker.
        let server = tonic::transport::Server::builder()
            .add_service(SwapPuzzleServer::new(Echo { reply }))
            .serve_with_incoming_shutdown(incoming, async {
                let _ = stopped.await;
            });
        tokio::spawn(server).await.unwrap().unwrap();
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
}

/// One server's figures for one measured window.
struct Measurement {
    calls_per_second: f64,
    p50_us: u64,
    p99_us: u64,
    /// Server CPU time per call (all its threads), in microseconds.
    cpu_us_per_call: f64,
    /// VmRSS and VmHWM in KiB, sampled under load.
    rss_kib: Option<(u64, u64)>,
}

async fn connect(addr: SocketAddr, tls: Option<ClientTlsConfig>) -> Vec<SwapPuzzleClient<Channel>> {
    let scheme = if tls.is_some() { "https" } else { "http" };
    let mut endpoint = Endpoint::from_shared(format!("{scheme}://{addr}"))
        .unwrap()
        .tcp_nodelay(true);
    if let Some(tls) = tls {
        endpoint = endpoint.tls_config(tls).unwrap();
    }
    let deadline = Instant::now() + START_TIMEOUT;
    let mut clients = Vec::with_capacity(CONNECTIONS);
    while clients.len() < CONNECTIONS {
        match endpoint.connect().await {
            // Each `connect` is its own HTTP/2 connection.
            Ok(channel) => clients.push(SwapPuzzleClient::new(channel)),
            Err(e) if Instant::now() > deadline => panic!("cannot connect to {addr}: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    clients
}

/// Keeps 64 calls in flight until `until`; returns the latency histogram (µs) and the errors.
async fn load(
    clients: &[SwapPuzzleClient<Channel>],
    request: &ValidateSwapRequest,
    until: Instant,
) -> (Histogram<u64>, u64) {
    let mut tasks = Vec::with_capacity(CONNECTIONS * CALLS_PER_CONNECTION);
    for client in clients {
        for _ in 0..CALLS_PER_CONNECTION {
            let mut client = client.clone();
            let request = request.clone();
            tasks.push(tokio::spawn(async move {
                let mut latencies = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
                let mut errors = 0u64;
                while Instant::now() < until {
                    let started = Instant::now();
                    match client.validate_swap(request.clone()).await {
                        Ok(_) => latencies
                            .record(started.elapsed().as_micros().max(1) as u64)
                            .unwrap(),
                        Err(_) => errors += 1,
                    }
                }
                (latencies, errors)
            }));
        }
    }
    let mut all = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).unwrap();
    let mut errors = 0;
    for task in tasks {
        let (latencies, task_errors) = task.await.unwrap();
        all.add(latencies).unwrap();
        errors += task_errors;
    }
    (all, errors)
}

async fn measure(
    server: &Server,
    addr: SocketAddr,
    request: &ValidateSwapRequest,
    warmup: Duration,
    window: Duration,
) -> Measurement {
    let clients = connect(addr, server.tls.clone()).await;
    let (_, errors) = load(&clients, request, Instant::now() + warmup).await;
    assert_eq!(errors, 0, "calls failed during warm-up against {addr}");
    let cpu_before = server.cpu_ns();
    let started = Instant::now();
    let sample_at = started + window.mul_f64(0.9);
    let (rss, (latencies, errors)) = tokio::join!(
        async {
            tokio::time::sleep_until(sample_at.into()).await;
            server.rss_kib()
        },
        load(&clients, request, started + window),
    );
    let elapsed = started.elapsed();
    // Saturating: a thread that ended during the window takes its CPU time with it.
    let cpu = server.cpu_ns().saturating_sub(cpu_before);
    assert_eq!(errors, 0, "calls failed against {addr}");
    Measurement {
        calls_per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50_us: latencies.value_at_quantile(0.50),
        p99_us: latencies.value_at_quantile(0.99),
        cpu_us_per_call: cpu as f64 / 1000.0 / latencies.len() as f64,
        rss_kib: rss,
    }
}

fn describe(m: &Measurement) -> String {
    let rss = m.rss_kib.map_or(String::new(), |(rss, peak)| {
        format!(
            "  RSS {:.1} MiB (peak {:.1})",
            rss as f64 / 1024.0,
            peak as f64 / 1024.0
        )
    });
    format!(
        "{:>8.0} calls/s  p50 {:>5} µs  p99 {:>5} µs  server CPU {:>5.1} µs/call{rss}",
        m.calls_per_second, m.p50_us, m.p99_us, m.cpu_us_per_call
    )
}

/// The environment variable that starts this binary in a server role.
const ROLE: &str = "RPC_LOAD_ROLE";

fn main() {
    if std::env::var(ROLE).as_deref() == Ok("echo") {
        run_echo();
        return;
    }
    let rounds: usize = env_or("RPC_LOAD_ROUNDS", 5);
    let window = Duration::from_secs_f64(env_or("RPC_LOAD_SECS", 3.0));
    let warmup = Duration::from_secs_f64(env_or("RPC_LOAD_WARMUP_SECS", 1.0));
    let client_threads: usize = env_or("RPC_LOAD_CLIENT_THREADS", 1);
    assert!(rounds > 0, "RPC_LOAD_ROUNDS must be at least 1");

    let request = request();
    let reply = matchgrid::transport::swap::validate_swap(request.clone()).unwrap();
    println!(
        "ValidateSwap 9x9: {}-byte request, {}-byte reply; {} calls in flight over {CONNECTIONS} \
         connections; {rounds} rounds of {window:?} per server after {warmup:?} warm-up; \
         client runtime {client_threads} worker(s)",
        request.encoded_len(),
        reply.encoded_len(),
        CONNECTIONS * CALLS_PER_CONNECTION,
    );

    let mut servers = Vec::new();
    let (echo, echo_addr) = Server::echo();
    servers.push(("echo (bare tonic)".to_owned(), echo, echo_addr));
    let (matchgrid, addr) = Server::matchgrid(env!("CARGO_BIN_EXE_matchgrid"));
    servers.push(("matchgrid".to_owned(), matchgrid, addr));
    let tls_dir = std::env::temp_dir().join(format!("matchgrid-rpc-load-{}", std::process::id()));
    let tls_index = (env_or("RPC_LOAD_TLS", 1) != 0).then(|| {
        let (server, addr) = Server::matchgrid_tls(env!("CARGO_BIN_EXE_matchgrid"), &tls_dir);
        servers.push(("matchgrid TLS".to_owned(), server, addr));
        servers.len() - 1
    });
    if let Ok(other) = std::env::var("RPC_LOAD_COMPARE") {
        let (server, addr) = Server::matchgrid(&other);
        println!("compare: {other}");
        servers.push(("compare".to_owned(), server, addr));
    }

    let client = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(client_threads)
        .enable_all()
        .build()
        .unwrap();
    // results[round][server]
    let mut results: Vec<Vec<Measurement>> = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..servers.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        let mut measured: Vec<Option<Measurement>> = (0..servers.len()).map(|_| None).collect();
        for index in order {
            let (_, server, addr) = &servers[index];
            measured[index] =
                Some(client.block_on(measure(server, *addr, &request, warmup, window)));
        }
        let measured: Vec<Measurement> = measured.into_iter().map(Option::unwrap).collect();
        println!("round {}:", round + 1);
        for ((name, _, _), m) in servers.iter().zip(&measured) {
            println!("  {name:<20} {}", describe(m));
        }
        results.push(measured);
    }

    let ratio = |round: &[Measurement], index: usize| {
        round[index].calls_per_second / round[0].calls_per_second
    };
    let mut by_ratio: Vec<usize> = (0..rounds).collect();
    by_ratio.sort_by(|&a, &b| ratio(&results[a], 1).total_cmp(&ratio(&results[b], 1)));
    let median = by_ratio[rounds / 2];
    let round = &results[median];
    println!(
        "median round ({} of {rounds}, by matchgrid/echo throughput):",
        median + 1
    );
    for (index, ((name, _, _), m)) in servers.iter().zip(round).enumerate() {
        println!("  {name:<20} {}", describe(m));
        if index > 0 {
            println!(
                "  {:<20} throughput {:.2}x echo, p99 {:.2}x echo, server CPU per call {:+.1} µs",
                "",
                ratio(round, index),
                m.p99_us as f64 / round[0].p99_us as f64,
                m.cpu_us_per_call - round[0].cpu_us_per_call
            );
        }
    }
    // Per-round ratios, then their median: steadier than any one round on a busy machine.
    println!("medians over the {rounds} rounds of each round's ratio to echo:");
    for (index, (name, _, _)) in servers.iter().enumerate().skip(1) {
        let median_of = |f: &dyn Fn(&[Measurement]) -> f64| {
            let mut values: Vec<f64> = results.iter().map(|round| f(round)).collect();
            values.sort_by(f64::total_cmp);
            values[rounds / 2]
        };
        println!(
            "  {name:<20} throughput {:.2}x, p99 {:.2}x, server CPU per call {:.2}x ({:+.1} µs)",
            median_of(&|r| ratio(r, index)),
            median_of(&|r| r[index].p99_us as f64 / r[0].p99_us as f64),
            median_of(&|r| r[index].cpu_us_per_call / r[0].cpu_us_per_call),
            median_of(&|r| r[index].cpu_us_per_call - r[0].cpu_us_per_call),
        );
    }
    if let Some(tls) = tls_index {
        let median_of = |f: &dyn Fn(&[Measurement]) -> f64| {
            let mut values: Vec<f64> = results.iter().map(|round| f(round)).collect();
            values.sort_by(f64::total_cmp);
            values[rounds / 2]
        };
        println!("TLS vs plaintext matchgrid, medians over the {rounds} rounds:");
        for (name, index) in [("plaintext", 1), ("TLS", tls)] {
            println!(
                "  {name:<10} {:>8.0} calls/s  p50 {:>5.0} µs  p99 {:>5.0} µs  server CPU {:>5.1} µs/call",
                median_of(&|r| r[index].calls_per_second),
                median_of(&|r| r[index].p50_us as f64),
                median_of(&|r| r[index].p99_us as f64),
                median_of(&|r| r[index].cpu_us_per_call),
            );
        }
        println!(
            "  TLS/plaintext per round: throughput {:.2}x, p50 {:.2}x, p99 {:.2}x, server CPU per call {:+.1} µs",
            median_of(&|r| r[tls].calls_per_second / r[1].calls_per_second),
            median_of(&|r| r[tls].p50_us as f64 / r[1].p50_us as f64),
            median_of(&|r| r[tls].p99_us as f64 / r[1].p99_us as f64),
            median_of(&|r| r[tls].cpu_us_per_call - r[1].cpu_us_per_call),
        );
    }
    drop(servers);
    let _ = std::fs::remove_dir_all(&tls_dir);
}
