//! The server under abuse (issue 11), against the real binary: malformed gRPC framing, error
//! details on every error, response compression bounds, memory per ResolveCascade, heavy work
//! shed instead of queued, client deadlines, and throttled shed logging. Raw HTTP/2 requests
//! go through `h2` directly.
mod abuse_support;
mod common;
mod ops_support;

use abuse_support::{frame, raw_call};
use common::{TestServer, spec_swap_example};
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{Board, RefillMode, ResolveCascadeRequest};
use ops_support::{STEP, drain_log, slow_request, validate, wait_for_in_flight, within};
use prost::Message;
use tonic::Code;
use tonic::codec::CompressionEncoding;
use tonic_types::StatusExt;

const VALIDATE: &str = "/matchgrid.v1.SwapPuzzle/ValidateSwap";
const HEALTH_CHECK: &str = "/grpc.health.v1.Health/Check";

/// The heavy request: ResolveCascade on 64x64, every cell colour 1, 2 colours, seed 9,
/// max_steps 1000 (the cascade never settles).
fn endless_cascade() -> ResolveCascadeRequest {
    ResolveCascadeRequest {
        board: Some(Board {
            width: 64,
            height: 64,
            cells: vec![1; 64 * 64],
            ..Default::default()
        }),
        colors: 2,
        seed: 9,
        refill: RefillMode::Random as i32,
        max_steps: 1000,
        ..Default::default()
    }
}

/// What a framing case is called, its extra headers, its body (None: no body at all) and the
/// ErrorInfo reason expected.
type FramingCase = (
    &'static str,
    Vec<(&'static str, &'static str)>,
    Option<Vec<u8>>,
    &'static str,
);

/// Fault 1: every kind of malformed framing is INVALID_ARGUMENT with its own reason, on a
/// puzzle method and on health alike (tonic says INTERNAL, or OK for a second message).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_framing_is_invalid_argument_with_a_reason() {
    let server = TestServer::start(&[]);
    let valid = spec_swap_example().encode_to_vec();
    let mut two = frame(0, &valid);
    two.extend(frame(0, &valid));
    let mut long_prefix = frame(0, &valid);
    long_prefix.truncate(long_prefix.len() - 2);
    let cases: Vec<FramingCase> = vec![
        ("no body at all", vec![], None, "EMPTY_REQUEST"),
        ("an empty DATA frame", vec![], Some(vec![]), "EMPTY_REQUEST"),
        (
            "a 3-byte prefix",
            vec![],
            Some(vec![0, 0, 0]),
            "TRUNCATED_MESSAGE",
        ),
        (
            "a length past the body",
            vec![],
            Some(long_prefix),
            "TRUNCATED_MESSAGE",
        ),
        (
            "compressed flag, no grpc-encoding",
            vec![],
            Some(frame(1, &valid)),
            "COMPRESSED_WITHOUT_ENCODING",
        ),
        (
            "compressed flag, grpc-encoding identity",
            vec![("grpc-encoding", "identity")],
            Some(frame(1, &valid)),
            "COMPRESSED_WITHOUT_ENCODING",
        ),
        (
            "flag byte 2",
            vec![],
            Some(frame(2, &valid)),
            "INVALID_COMPRESSION_FLAG",
        ),
        ("two messages", vec![], Some(two), "EXTRA_MESSAGE"),
    ];
    for path in [VALIDATE, HEALTH_CHECK] {
        for (what, headers, body, reason) in &cases {
            let reply = within(
                what,
                STEP,
                raw_call(server.addr, path, headers, body.clone()),
            )
            .await
            .unwrap_or_else(|e| panic!("{path} {what}: transport error {e}"));
            assert_eq!(
                reply.code(),
                Code::InvalidArgument,
                "{path} {what}: {:?}",
                reply.status
            );
            assert_eq!(
                reply.reason().as_deref(),
                Some(*reason),
                "{path} {what}: {:?}",
                reply.status
            );
        }
    }
    // The server still serves.
    let mut client = server.swap_client().await;
    validate(&mut client, spec_swap_example())
        .await
        .expect("a valid call after the malformed ones");
}

/// Fault 2: decode errors, oversized requests and tonic's own errors carry details.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_carries_error_info() {
    let server = TestServer::start(&["--max-message-bytes", "1024"]);
    // The body: ValidateSwapRequest.board.width is a truncated varint.
    let reply = raw_call(
        server.addr,
        VALIDATE,
        &[],
        Some(frame(0, &[0x0a, 0x02, 0x08, 0xff])),
    )
    .await
    .expect("call");
    assert_eq!(reply.code(), Code::InvalidArgument, "{:?}", reply.status);
    assert_eq!(reply.reason().as_deref(), Some("MALFORMED_MESSAGE"));
    let fields: Vec<String> = reply
        .status
        .get_details_bad_request()
        .map(|b| b.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default();
    assert_eq!(fields, ["board.width"], "{:?}", reply.status);

    // Over --max-message-bytes: RESOURCE_EXHAUSTED with a QuotaFailure.
    let big = vec![0u8; 2048];
    let reply = raw_call(server.addr, VALIDATE, &[], Some(frame(0, &big)))
        .await
        .expect("call");
    assert_eq!(reply.code(), Code::ResourceExhausted, "{:?}", reply.status);
    assert_eq!(reply.reason().as_deref(), Some("REQUEST_TOO_LARGE"));
    assert!(
        reply.status.get_details_quota_failure().is_some(),
        "{:?}",
        reply.status
    );

    // An unknown method and an unknown health entry: ErrorInfo with the code's name.
    let body = Some(frame(0, &[]));
    let reply = raw_call(
        server.addr,
        "/matchgrid.v1.SwapPuzzle/Nope",
        &[],
        body.clone(),
    )
    .await
    .expect("call");
    assert_eq!(reply.code(), Code::Unimplemented, "{:?}", reply.status);
    assert_eq!(reply.reason().as_deref(), Some("UNIMPLEMENTED"));
    let unknown = tonic_health::pb::HealthCheckRequest {
        service: "nope".to_owned(),
    };
    let reply = raw_call(
        server.addr,
        HEALTH_CHECK,
        &[],
        Some(frame(0, &unknown.encode_to_vec())),
    )
    .await
    .expect("call");
    assert_eq!(reply.code(), Code::NotFound, "{:?}", reply.status);
    assert_eq!(reply.reason().as_deref(), Some("NOT_FOUND"));
}

/// Fault 3: a large response is sent uncompressed even when the client accepts gzip (its gzip
/// would run on an async worker, outside every limit); a small one is still compressed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_responses_are_not_compressed() {
    let server = TestServer::start(&[]);
    let accept = [("grpc-accept-encoding", "gzip")];
    // Every valid swap of a 64x64 3-colour board: a reply well over 32 KiB.
    let mut client = server.swap_client().await;
    let generated = within(
        "GenerateBoard",
        STEP,
        client.generate_board(matchgrid::proto::SwapGenerateBoardRequest {
            width: 64,
            height: 64,
            colors: 3,
            seed: 1,
            min_moves: Some(1),
            ..Default::default()
        }),
    )
    .await
    .expect("GenerateBoard 64x64")
    .into_inner();
    let big = matchgrid::proto::SwapCheckDeadStateRequest {
        board: generated.board,
    };
    let reply = raw_call(
        server.addr,
        "/matchgrid.v1.SwapPuzzle/CheckDeadState",
        &accept,
        Some(frame(0, &big.encode_to_vec())),
    )
    .await
    .expect("call");
    assert_eq!(reply.code(), Code::Ok, "{:?}", reply.status);
    assert!(
        reply.body.len() > matchgrid::server::COMPRESS_MAX_BYTES,
        "{} bytes",
        reply.body.len()
    );
    assert_eq!(reply.body[0], 0, "a large response must go uncompressed");

    let small = spec_swap_example().encode_to_vec();
    let reply = raw_call(server.addr, VALIDATE, &accept, Some(frame(0, &small)))
        .await
        .expect("call");
    assert_eq!(reply.code(), Code::Ok, "{:?}", reply.status);
    assert_eq!(
        reply.headers.get("grpc-encoding").map(|v| v.as_bytes()),
        Some(&b"gzip"[..])
    );
}

/// Fault 4: a cascade that would be recorded past the memory bound is refused as soon as it
/// passes the bound, not after max_steps (when it had taken ~112 MB).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cascade_past_the_memory_bound_is_resource_exhausted() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let status = within(
        "ResolveCascade",
        STEP,
        client.resolve_cascade(endless_cascade()),
    )
    .await
    .expect_err("a cascade that never settles");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(
        status.get_details_error_info().map(|i| i.reason).as_deref(),
        Some("CASCADE_TOO_LARGE"),
        "{status:?}"
    );
    // Small boards keep the request's own max_steps.
    let status = within(
        "ResolveCascade 3x3",
        STEP,
        client.resolve_cascade(ResolveCascadeRequest {
            board: Some(common::board("RRR/GBG/BGB")),
            colors: 1,
            max_steps: 50,
            ..Default::default()
        }),
    )
    .await
    .expect_err("one colour never settles");
    assert_eq!(
        status.get_details_error_info().map(|i| i.reason).as_deref(),
        Some("CASCADE_LIMIT_EXCEEDED")
    );
}

/// Fault 5: with every heavy-work slot busy, further heavy requests are shed with
/// RESOURCE_EXHAUSTED after `--heavy-work-wait` instead of queueing toward the timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heavy_work_is_shed_when_no_slot_comes_free() {
    let server = TestServer::start(&["--heavy-work-wait", "1ms"]);
    let channel = server.channel().await;
    let calls = (0..32).map(|_| {
        let mut client = SwapPuzzleClient::new(channel.clone());
        async move { client.generate_board(slow_request()).await }
    });
    let outcomes = within(
        "32 heavy calls",
        STEP * 3,
        futures_util::future::join_all(calls),
    )
    .await;
    let mut busy = 0;
    for outcome in outcomes {
        let status = outcome.expect_err("the slow request is always refused");
        match status.code() {
            Code::InvalidArgument => {}
            Code::ResourceExhausted => {
                assert_eq!(
                    status.get_details_error_info().map(|i| i.reason).as_deref(),
                    Some("HEAVY_WORK_BUSY"),
                    "{status:?}"
                );
                busy += 1;
            }
            _ => panic!("unexpected {status:?}"),
        }
    }
    assert!(busy > 0, "32 heavy calls on a few slots, none shed");
}

/// Fault 5: heavy work whose client deadline has already passed is not started
/// (DEADLINE_EXCEEDED, reason CLIENT_DEADLINE, before the work rather than tonic's CANCELLED
/// after it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heavy_work_past_the_client_deadline_is_not_started() {
    let server = TestServer::start(&[]);
    let body = frame(0, &slow_request().encode_to_vec());
    let reply = raw_call(
        server.addr,
        "/matchgrid.v1.SwapPuzzle/GenerateBoard",
        &[("grpc-timeout", "1n")],
        Some(body),
    )
    .await
    .expect("call");
    assert_eq!(reply.code(), Code::DeadlineExceeded, "{:?}", reply.status);
    assert_eq!(reply.reason().as_deref(), Some("CLIENT_DEADLINE"));
}

/// Fault 7: shed requests are logged in aggregate, not one line each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shed_requests_are_logged_in_aggregate() {
    let server = TestServer::start(&["--concurrency-limit", "1"]);
    let channel = server.channel().await;
    let mut shed = 0u32;
    for _round in 0..5 {
        let mut slow_client = SwapPuzzleClient::new(channel.clone());
        let slow = tokio::spawn(async move { slow_client.generate_board(slow_request()).await });
        assert!(wait_for_in_flight(server.metrics_addr, 1.0, STEP).await);
        let fast = (0..50).map(|_| {
            let mut client = SwapPuzzleClient::new(channel.clone());
            async move { validate(&mut client, spec_swap_example()).await }
        });
        for outcome in futures_util::future::join_all(fast).await {
            if outcome.is_err_and(|s| s.code() == Code::ResourceExhausted) {
                shed += 1;
            }
        }
        let _ = within("slow call", STEP, slow).await;
        if shed >= 10 {
            break;
        }
    }
    assert!(shed >= 10, "only {shed} calls shed");
    let mut server = server;
    server.sigterm();
    let _ = ops_support::wait_exit(&mut server.child, STEP).await;
    let log = drain_log(&server.log, STEP);
    let lines = log.iter().filter(|l| l.contains("shed")).count();
    assert!(
        lines < shed as usize,
        "{lines} log lines for {shed} shed calls: {log:#?}"
    );
}

/// Compression is still offered for small responses by a tonic client (a sanity check that
/// the size bound did not turn compression off).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_responses_are_still_compressed_for_tonic_clients() {
    let server = TestServer::start(&[]);
    let mut client = server
        .swap_client()
        .await
        .accept_compressed(CompressionEncoding::Gzip);
    validate(&mut client, spec_swap_example())
        .await
        .expect("a gzip-accepting call");
}
