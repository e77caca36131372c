//! Round-trip latency through the real server over loopback (criterion):
//! `cargo bench --bench rpc`. Starts `matchgrid serve` in-process on a free port and calls it
//! with a tonic client, one request at a time, so the figure is per-call latency including
//! HTTP/2, protobuf and the engine.

use std::hint::black_box;
use std::time::Duration;

use clap::Parser;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use matchgrid::proto::{
    self, TapRequest, ValidateSwapRequest, collapse_puzzle_client::CollapsePuzzleClient,
    swap_puzzle_client::SwapPuzzleClient,
};

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

fn bench_rpc(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let metrics = format!("127.0.0.1:{}", free_port());
    let cli = matchgrid::cli::Cli::parse_from([
        "matchgrid",
        "serve",
        "--listen",
        &listen,
        "--metrics-listen",
        &metrics,
        "--log-level",
        "warn",
    ]);
    let matchgrid::cli::Command::Serve(config) = cli.command else {
        unreachable!()
    };
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

criterion_group!(benches, bench_rpc);
criterion_main!(benches);
