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

/// Runs `CALLERS` loops of `request` (each caller on its own connection, gzip accepted, as
/// grpc-python does by default) for [`RUN`], probing health every 10 ms on another connection;
/// returns the health latencies and the callers' outcomes by code.
async fn overload(
    server: &TestServer,
    request: ResolveCascadeRequest,
) -> (hdrhistogram::Histogram<u64>, BTreeMap<String, u64>) {
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
    // The prober runs on its own thread and runtime, so it measures the server rather than
    // queueing behind the callers' decoding in this process.
    let url = server.url();
    let prober = std::thread::spawn(move || {
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
    });
    let latencies = tokio::task::spawn_blocking(move || prober.join().unwrap())
        .await
        .unwrap();
    let mut codes = BTreeMap::new();
    for caller in callers {
        for (code, n) in caller.await.unwrap() {
            *codes.entry(code).or_default() += n;
        }
    }
    (latencies, codes)
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
    let server = TestServer::start(&["--concurrency-limit", "8"]);
    let (latencies, codes) = overload(&server, all_ones(4, 200)).await;
    report(
        "concurrency-limit 8, 64x64 colours 4, gzip",
        &latencies,
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
    let (latencies, codes) = overload(&server, all_ones(2, 1000)).await;
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
