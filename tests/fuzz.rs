//! A bounded fuzz of the real server over loopback (issue 11): arbitrary body bytes, framed or
//! not, compressed flag or not, to every method, and arbitrary field values in well-framed
//! requests. Every answer must be a gRPC status other than INTERNAL or UNKNOWN (those are our
//! bugs), and the server must keep serving. Cases: `MATCHGRID_FUZZ_CASES` (default 64).
mod abuse_support;
mod common;
mod ops_support;

use abuse_support::{frame, raw_call};
use common::TestServer;
use proptest::prelude::*;
use tonic::Code;

const PATHS: &[&str] = &[
    "/matchgrid.v1.SwapPuzzle/GenerateBoard",
    "/matchgrid.v1.SwapPuzzle/ValidateSwap",
    "/matchgrid.v1.SwapPuzzle/ResolveCascade",
    "/matchgrid.v1.SwapPuzzle/CheckDeadState",
    "/matchgrid.v1.SwapPuzzle/Shuffle",
    "/matchgrid.v1.SwapPuzzle/ReplayGame",
    "/matchgrid.v1.SwapPuzzle/Hint",
    "/matchgrid.v1.SwapPuzzle/StartLevel",
    "/matchgrid.v1.SwapPuzzle/PlayMove",
    "/matchgrid.v1.CollapsePuzzle/GenerateBoard",
    "/matchgrid.v1.CollapsePuzzle/Tap",
    "/matchgrid.v1.CollapsePuzzle/CheckDeadState",
    "/matchgrid.v1.CollapsePuzzle/ReplayGame",
    "/grpc.health.v1.Health/Check",
];

fn cases() -> u32 {
    std::env::var("MATCHGRID_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// A body: raw bytes, or one frame (flag 0..=2) around bytes that are either random or a
/// message of small varint fields (extreme values included).
fn body() -> impl Strategy<Value = (Vec<u8>, bool)> {
    let raw = prop::collection::vec(any::<u8>(), 0..64);
    let fields = prop::collection::vec(
        (
            1u32..12,
            prop_oneof![Just(0u64), Just(u64::MAX), 0u64..100, any::<u64>()],
        ),
        0..8,
    )
    .prop_map(|fields| {
        let mut out = Vec::new();
        for (tag, value) in fields {
            prost::encoding::encode_varint(u64::from(tag << 3), &mut out);
            prost::encoding::encode_varint(value, &mut out);
        }
        out
    });
    prop_oneof![
        (raw.clone(), any::<bool>()).prop_map(|(b, gzip)| (b, gzip)),
        (0u8..3, raw, any::<bool>()).prop_map(|(flag, b, gzip)| (frame(flag, &b), gzip)),
        fields.prop_map(|b| (frame(0, &b), false)),
    ]
}

#[test]
fn arbitrary_requests_never_get_internal_or_unknown() {
    let server = TestServer::start(&[]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let config = ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let count = std::sync::atomic::AtomicU64::new(0);
    runner
        .run(
            &(prop::sample::select(PATHS), body()),
            |(path, (body, gzip))| {
                count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let headers: &[(&str, &str)] = if gzip {
                    &[("grpc-encoding", "gzip")]
                } else {
                    &[]
                };
                let reply = runtime
                    .block_on(async {
                        tokio::time::timeout(
                            ops_support::STEP,
                            raw_call(server.addr, path, headers, Some(body.clone())),
                        )
                        .await
                    })
                    .expect("an answer within STEP")
                    .expect("an HTTP/2 answer");
                prop_assert!(
                    !matches!(reply.code(), Code::Internal | Code::Unknown),
                    "{path} {body:02x?}: {:?}",
                    reply.status
                );
                prop_assert!(reply.reason().is_some() || reply.code() == Code::Ok);
                Ok(())
            },
        )
        .unwrap();
    println!("fuzz: {} requests", count.into_inner());
}
