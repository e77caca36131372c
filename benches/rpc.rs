//! RPC benchmarks (criterion): `cargo bench --bench rpc`.
//!
//! - `rpc_layers`: the call layer the server puts around every call (`server::call_layers`:
//!   telemetry, panic catching, health exemption, framing checks, timeout, shedding, concurrency
//!   limit) around a service that answers at once, against that bare service: what the layer
//!   adds per call, without HTTP/2, protobuf or the engine. Metrics go to a Prometheus recorder and logs are at
//!   the server's default level, as in `matchgrid serve`.
//! - `rpc_handler`: the `ValidateSwap` handler alone (the transport's conversion and the
//!   engine, no gRPC) on `rpc_load`'s 9x9 board: the work a matchgrid call does that the bare
//!   echo server of `rpc_load` does not.
//! - `rpc_loopback`: round-trip latency through the real server over loopback. Starts
//!   `matchgrid serve` in-process on a free port and calls it with a tonic client, so the figure
//!   is per-call latency including HTTP/2, protobuf and the engine.
//!
//! The throughput of the whole server against a bare tonic server is `benches/rpc_load.rs`.

use std::convert::Infallible;
use std::hint::black_box;
use std::time::{Duration, Instant};

use clap::Parser;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use matchgrid::proto::{
    self, TapRequest, ValidateSwapRequest, collapse_puzzle_client::CollapsePuzzleClient,
    swap_puzzle_client::SwapPuzzleClient,
};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};
use tonic::body::Body;
use tower::{Layer, Service, ServiceExt};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn board(text: &str) -> proto::Board {
    (&matchgrid::engine::Board::parse(text).unwrap()).into()
}

fn serve_config(args: &[&str]) -> matchgrid::server::ServeConfig {
    let cli = matchgrid::cli::Cli::parse_from(["matchgrid", "serve"].iter().chain(args));
    let matchgrid::cli::Command::Serve(config) = cli.command else {
        unreachable!()
    };
    config
}

/// `iters` calls, one at a time, as a connection makes them: ready, then call.
async fn calls<S>(mut service: S, iters: u64) -> Duration
where
    S: Service<http::Request<Body>>,
    S::Error: std::fmt::Debug,
{
    let started = Instant::now();
    for _ in 0..iters {
        let request = http::Request::builder()
            .uri("/matchgrid.v1.SwapPuzzle/ValidateSwap")
            .header("content-type", "application/grpc")
            .body(Body::empty())
            .unwrap();
        let ready = service.ready().await.unwrap();
        black_box(ready.call(request).await.unwrap());
    }
    started.elapsed()
}

fn bench_layers(c: &mut Criterion) {
    let config = serve_config(&[]);
    matchgrid::server::init_logging(&config);
    let prometheus = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full("matchgrid_request_duration_seconds".to_owned()),
            matchgrid::server::call_metrics::LATENCY_BUCKETS,
        )
        .unwrap()
        .install_recorder()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let answer = tower::service_fn(|_: http::Request<Body>| {
        std::future::ready(Ok::<_, Infallible>(http::Response::new(Body::empty())))
    });
    let layered = matchgrid::server::call_layers(config.request_timeout, config.concurrency_limit)
        .layer(answer);

    let mut group = c.benchmark_group("rpc_layers");
    group.throughput(Throughput::Elements(1));
    group.bench_function("bare_service", |b| {
        b.iter_custom(|iters| runtime.block_on(calls(answer, iters)))
    });
    group.bench_function("call_layers", |b| {
        b.iter_custom(|iters| {
            let elapsed = runtime.block_on(calls(layered.clone(), iters));
            // Drains the recorded latencies, as the exporter does every few seconds.
            prometheus.run_upkeep();
            elapsed
        })
    });
    group.finish();
}

fn bench_handler(c: &mut Criterion) {
    // The board and swap of `benches/rpc_load.rs`.
    let request = ValidateSwapRequest {
        board: Some(board(
            "RPRBBGORY/BRRPBYBYB/RGPGYBOGO/YRPYBPRBB/YBOOGBYBP/GYGGYOOPR/BPYYPBPOG/BOYPRBORR/YGORYOPPO",
        )),
        swap: Some(proto::Swap {
            a: Some(proto::Position { row: 0, col: 0 }),
            b: Some(proto::Position { row: 1, col: 0 }),
        }),
    };
    let mut group = c.benchmark_group("rpc_handler");
    group.throughput(Throughput::Elements(1));
    group.bench_function("validate_swap_9x9", |b| {
        b.iter_batched(
            || request.clone(),
            |request| black_box(matchgrid::transport::swap::validate_swap(request).unwrap()),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn bench_rpc(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let metrics = format!("127.0.0.1:{}", free_port());
    let config = serve_config(&[
        "--listen",
        &listen,
        "--metrics-listen",
        &metrics,
        "--log-level",
        "warn",
    ]);
    runtime.spawn(matchgrid::server::serve(config));
    let url = format!("http://{listen}");
    let channel = runtime.block_on(async {
        for _ in 0..100 {
            if let Ok(channel) = tonic::transport::Channel::from_shared(url.clone())
                .unwrap()
                .connect()
                .await
            {
                return channel;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server did not start");
    });
    let mut swap = SwapPuzzleClient::new(channel.clone());
    let mut collapse = CollapsePuzzleClient::new(channel);

    let mut group = c.benchmark_group("rpc_loopback");
    group.throughput(Throughput::Elements(1));
    let validate = ValidateSwapRequest {
        board: Some(board(
            "RRGGBPRPR/YPBGRGOBB/BOBBPBYYO/GBYGYPGOR/PGRGGYGPB/RRGYGYYGO/PRRGYORPB/BOYBBRBGY/YGGROYYBR",
        )),
        swap: Some(proto::Swap {
            a: Some(proto::Position { row: 0, col: 3 }),
            b: Some(proto::Position { row: 1, col: 3 }),
        }),
    };
    group.bench_function("swap_validate_9x9", |b| {
        b.iter(|| {
            black_box(
                runtime
                    .block_on(swap.validate_swap(validate.clone()))
                    .unwrap(),
            )
        })
    });
    // 64 calls in flight at once on one HTTP/2 connection: throughput rather than latency.
    group.throughput(Throughput::Elements(64));
    group.bench_function("swap_validate_9x9_64_concurrent", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let calls = (0..64).map(|_| {
                    let mut client = swap.clone();
                    let request = validate.clone();
                    async move { client.validate_swap(request).await.unwrap() }
                });
                black_box(futures_util::future::join_all(calls).await)
            })
        })
    });
    group.throughput(Throughput::Elements(1));
    let tap = TapRequest {
        board: Some(board("ABBC/ABBC")),
        position: Some(proto::Position { row: 0, col: 1 }),
        ..Default::default()
    };
    group.bench_function("collapse_tap_4x2", |b| {
        b.iter(|| black_box(runtime.block_on(collapse.tap(tap.clone())).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench_layers, bench_handler, bench_rpc);
criterion_main!(benches);
