//! Load scenarios of issue 11 (faults 3, 4 and 5), ignored by default: they take seconds and
//! print figures instead of asserting on them (timing and memory depend on the machine). Run
//! them on a release build:
//!
//! ```sh
//! cargo test --release --test overload -- --ignored --nocapture --test-threads 1
//! ```
mod common;
mod ops_support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::TestServer;
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{Board, RefillMode, ResolveCascadeRequest};
use tonic::codec::CompressionEncoding;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

/// How long each scenario runs.
const RUN: Duration = Duration::from_secs(10);
/// Concurrent heavy callers.
const CALLERS: usize = 32;

fn all_ones(colors: u32, max_steps: u32) -> ResolveCascadeRequest {
    ResolveCascadeRequest {
        board: Some(Board {
            width: 64,
            height: 64,
            cells: vec![1; 64 * 64],
            ..Default::default()
        }),
        colors,
        seed: 9,
        refill: RefillMode::Random as i32,
        max_steps,
        ..Default::default()
    }
}

/// Probes health at `url` every 10 ms until `stop`, on its own thread and runtime (so it
/// measures the server rather than queueing behind the callers' decoding in this process).
fn health_prober(
    url: String,
    stop: Instant,
) -> std::thread::JoinHandle<hdrhistogram::Histogram<u64>> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let channel = tonic::transport::Endpoint::from_shared(url)
                .unwrap()
                .connect()
                .await
                .expect("connect the health prober");
            let mut health = HealthClient::new(channel);
            let mut latencies = hdrhistogram::Histogram::<u64>::new(3).unwrap();
            while Instant::now() < stop {
                let started = Instant::now();
                health
                    .check(HealthCheckRequest {
                        service: String::new(),
                    })
                    .await
                    .expect("health check under overload");
                latencies
                    .record(started.elapsed().as_micros() as u64)
                    .unwrap();
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            latencies
        })
    })
}

/// Runs `CALLERS` loops of `request` (each caller on its own connection, gzip accepted, as
/// grpc-python does by default) for [`RUN`], probing health every 10 ms on another connection
/// to the gRPC port and, when given, to the health-only port (`--health-listen`); returns the
/// health latencies (gRPC port, health port) and the callers' outcomes by code.
async fn overload(
    server: &TestServer,
    request: ResolveCascadeRequest,
    health_port: Option<u16>,
) -> (
    hdrhistogram::Histogram<u64>,
    Option<hdrhistogram::Histogram<u64>>,
    BTreeMap<String, u64>,
) {
    let stop = Instant::now() + RUN;
    let mut callers = Vec::new();
    for _ in 0..CALLERS {
        let channel = server.channel().await;
        let request = request.clone();
        callers.push(tokio::spawn(async move {
            let mut client =
                SwapPuzzleClient::new(channel).accept_compressed(CompressionEncoding::Gzip);
            let mut codes = BTreeMap::<String, u64>::new();
            while Instant::now() < stop {
                let code = match client.resolve_cascade(request.clone()).await {
                    Ok(_) => "OK".to_owned(),
                    Err(status) => format!(
                        "{:?} {}",
                        status.code(),
                        tonic_types::StatusExt::get_details_error_info(&status)
                            .map(|i| i.reason)
                            .unwrap_or_default()
                    ),
                };
                *codes.entry(code).or_default() += 1;
            }
            codes
        }));
    }
    let prober = health_prober(server.url(), stop);
    let port_prober =
        health_port.map(|port| health_prober(format!("http://127.0.0.1:{port}"), stop));
    let (latencies, port_latencies) = tokio::task::spawn_blocking(move || {
        (
            prober.join().unwrap(),
            port_prober.map(|p| p.join().unwrap()),
        )
    })
    .await
    .unwrap();
    let mut codes = BTreeMap::new();
    for caller in callers {
        for (code, n) in caller.await.unwrap() {
            *codes.entry(code).or_default() += n;
        }
    }
    (latencies, port_latencies, codes)
}

/// Peak resident memory of a process (VmHWM), in KiB; 0 where /proc is unavailable.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn report(name: &str, latencies: &hdrhistogram::Histogram<u64>, codes: &BTreeMap<String, u64>) {
    let ms = |us: u64| us as f64 / 1000.0;
    println!(
        "{name}: health checks {} p50 {:.2} ms p99 {:.2} ms max {:.2} ms; heavy calls {codes:?}",
        latencies.len(),
        ms(latencies.value_at_quantile(0.5)),
        ms(latencies.value_at_quantile(0.99)),
        ms(latencies.max()),
    );
}

/// Fault 3: 32 callers of a 64x64 4-colour ResolveCascade (a ~910 KB reply) with gzip
/// accepted, `--concurrency-limit 8`; health p99 should stay under 50 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load scenario: run with --ignored --nocapture on a release build"]
async fn health_latency_under_compressed_overload() {
    let health_port = common::free_port();
    let health_listen = format!("127.0.0.1:{health_port}");
    let server = TestServer::start(&[
        "--concurrency-limit",
        "8",
        "--health-listen",
        &health_listen,
    ]);
    let (latencies, port_latencies, codes) =
        overload(&server, all_ones(4, 200), Some(health_port)).await;
    report(
        "concurrency-limit 8, 64x64 colours 4, gzip (health on the gRPC port)",
        &latencies,
        &codes,
    );
    report(
        "the same (health on the health-only port, --health-listen)",
        &port_latencies.expect("probed"),
        &codes,
    );
    println!("peak RSS {} KiB", peak_rss_kib(server.child.id()));
}

/// Faults 4 and 5: 32 callers of the issue's never-settling 64x64 cascade (colours 2,
/// max_steps 1000) at the default limits; prints peak RSS (was 637 MB for 16 callers) and
/// health latency.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "load scenario: run with --ignored --nocapture on a release build"]
async fn memory_and_health_under_endless_cascades() {
    let server = TestServer::start(&[]);
    let idle = peak_rss_kib(server.child.id());
    let (latencies, _, codes) = overload(&server, all_ones(2, 1000), None).await;
    report(
        "default limits, 64x64 colours 2 max_steps 1000",
        &latencies,
        &codes,
    );
    println!(
        "peak RSS {} KiB (idle {idle} KiB)",
        peak_rss_kib(server.child.id())
    );
}
