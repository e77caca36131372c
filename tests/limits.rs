//! Configured limits against the real binary: message size (RESOURCE_EXHAUSTED, remapped from
//! tonic's OUT_OF_RANGE) and the concurrency limit (excess requests shed with
//! RESOURCE_EXHAUSTED and counted in /metrics).
mod common;
mod ops_support;

use common::{TestServer, spec_swap_example, swap};
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{Board, SwapGenerateBoardRequest, SwapVerdict, ValidateSwapRequest};
use ops_support::{
    STEP, parse_metrics, scrape, slow_request, validate, value, wait_for_in_flight, within,
};
use tonic::Code;
use tonic::codec::CompressionEncoding;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

const VALIDATE: &str = "/matchgrid.v1.SwapPuzzle/ValidateSwap";

/// A 64x64 board (4096 cells, about 4.1 KB encoded) with no run: colours 1..=4 in a pattern
/// whose rows and columns never repeat a colour three times.
fn big_board() -> Board {
    let (width, height) = (64u32, 64u32);
    let cells = (0..height)
        .flat_map(|row| (0..width).map(move |col| (row + 2 * col) % 4 + 1))
        .collect();
    Board {
        width,
        height,
        cells,
        ..Default::default()
    }
}

/// A 64x64 ValidateSwap request: about 4.1 KB encoded.
fn oversized_request() -> ValidateSwapRequest {
    ValidateSwapRequest {
        board: Some(big_board()),
        swap: Some(swap((0, 0), (0, 1))),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_under_max_message_bytes_are_served() {
    let server = TestServer::start(&["--max-message-bytes", "1024"]);
    let mut client = server.swap_client().await;
    let small = validate(&mut client, spec_swap_example())
        .await
        .expect("small");
    assert_eq!(small.verdict(), SwapVerdict::Ok);
    // A 30x30 board is about 910 bytes: response and request both fit in 1024.
    let generated = within(
        "GenerateBoard 30x30",
        STEP,
        client.generate_board(SwapGenerateBoardRequest {
            width: 30,
            height: 30,
            colors: 5,
            seed: 3,
            min_moves: Some(1),
            ..Default::default()
        }),
    )
    .await
    .expect("a 30x30 board fits in 1024 bytes")
    .into_inner();
    let near_limit = validate(
        &mut client,
        ValidateSwapRequest {
            board: generated.board,
            swap: Some(swap((0, 0), (0, 1))),
        },
    )
    .await
    .expect("a request just under the limit");
    assert_ne!(near_limit.verdict(), SwapVerdict::Unspecified);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn response_over_max_message_bytes_is_resource_exhausted_before_encoding() {
    use tonic_types::StatusExt;
    let server = TestServer::start(&["--max-message-bytes", "1024"]);
    let mut client = server.swap_client().await;
    // The request is tiny; a 40x40 board in the response is about 1.6 KB.
    let status = within(
        "GenerateBoard 40x40",
        STEP,
        client.generate_board(SwapGenerateBoardRequest {
            width: 40,
            height: 40,
            colors: 5,
            seed: 3,
            min_moves: Some(1),
            ..Default::default()
        }),
    )
    .await
    .expect_err("a 40x40 board does not fit in 1024 bytes");
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(
        status.get_details_error_info().map(|info| info.reason),
        Some("RESPONSE_TOO_LARGE".to_owned())
    );
    assert!(status.message().contains("1024"), "{}", status.message());
    // The connection still serves.
    let small = validate(&mut client, spec_swap_example())
        .await
        .expect("small");
    assert_eq!(small.verdict(), SwapVerdict::Ok);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_over_max_message_bytes_is_resource_exhausted() {
    let server = TestServer::start(&["--max-message-bytes", "1024"]);
    let mut client = server.swap_client().await;
    let status = validate(&mut client, oversized_request())
        .await
        .expect_err("a 4 KB request with a 1024-byte limit");
    assert_eq!(
        status.code(),
        Code::ResourceExhausted,
        "oversized request (tonic says OUT_OF_RANGE; the server must remap it): {status:?}"
    );
    assert!(status.message().contains("1024"), "{status:?}");

    // The connection stays usable, and the metrics count the code the client saw.
    let again = validate(&mut client, spec_swap_example())
        .await
        .expect("after");
    assert_eq!(again.verdict(), SwapVerdict::Ok);
    let metrics = parse_metrics(&scrape(server.metrics_addr).await);
    let counted = |code: &str| {
        value(
            &metrics,
            "matchgrid_requests_total",
            &[("method", VALIDATE), ("code", code)],
        )
    };
    assert_eq!(counted("RESOURCE_EXHAUSTED"), Some(1.0));
    assert_eq!(counted("OUT_OF_RANGE"), None);
    assert_eq!(counted("OK"), Some(1.0));
}

/// Compressed below the limit but over it once inflated: also RESOURCE_EXHAUSTED (tonic's own
/// decompression limit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_request_inflating_over_max_message_bytes_is_resource_exhausted() {
    let server = TestServer::start(&["--max-message-bytes", "1024"]);
    for encoding in [CompressionEncoding::Gzip, CompressionEncoding::Zstd] {
        let mut client = server.swap_client().await.send_compressed(encoding);
        let status = validate(&mut client, oversized_request())
            .await
            .expect_err("a compressed request that inflates past the limit");
        assert_eq!(
            status.code(),
            Code::ResourceExhausted,
            "{encoding:?}: {status:?}"
        );
        let small = validate(&mut client, spec_swap_example())
            .await
            .expect("small");
        assert_eq!(small.verdict(), SwapVerdict::Ok, "{encoding:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_beyond_the_concurrency_limit_are_shed_with_resource_exhausted() {
    let server = TestServer::start(&["--concurrency-limit", "1"]);
    let channel = server.channel().await;
    let mut shed = 0u32;
    let mut served_fast = 0u32;
    // A round: one slow call holds the only slot; fast calls arriving meanwhile are shed at
    // once. Retried a few times in case a loaded machine lets the slow call finish first.
    for _round in 0..5 {
        let mut slow_client = SwapPuzzleClient::new(channel.clone());
        let slow = tokio::spawn(async move { slow_client.generate_board(slow_request()).await });
        if !wait_for_in_flight(server.metrics_addr, 1.0, STEP).await {
            panic!("the slow call never showed up in matchgrid_requests_in_flight");
        }
        // Health checks skip the limit: an overloaded server still answers its probes.
        let mut health = HealthClient::new(channel.clone());
        let check = within(
            "health check while the only slot is taken",
            STEP,
            health.check(HealthCheckRequest {
                service: String::new(),
            }),
        )
        .await
        .expect("health checks are never shed");
        assert_eq!(check.into_inner().status(), ServingStatus::Serving);
        let fast = (0..8).map(|_| {
            let mut client = SwapPuzzleClient::new(channel.clone());
            async move { validate(&mut client, spec_swap_example()).await }
        });
        let outcomes = futures_util::future::join_all(fast).await;
        let slow_status = within("slow call", STEP, slow)
            .await
            .expect("slow task")
            .expect_err("GenerateBoard with an unreachable min_moves");
        assert_eq!(
            slow_status.code(),
            Code::InvalidArgument,
            "the call holding the slot is served normally: {slow_status:?}"
        );
        for outcome in outcomes {
            match outcome {
                Ok(response) => {
                    assert_eq!(response.verdict(), SwapVerdict::Ok);
                    served_fast += 1;
                }
                Err(status) => {
                    assert_eq!(
                        status.code(),
                        Code::ResourceExhausted,
                        "a call over the limit: {status:?}"
                    );
                    assert!(
                        status.message().contains("concurrency limit of 1"),
                        "the message should say why: {status:?}"
                    );
                    assert_eq!(
                        tonic_types::StatusExt::get_details_error_info(&status)
                            .map(|info| info.reason),
                        Some("OVERLOADED".to_owned())
                    );
                    shed += 1;
                }
            }
        }
        if shed > 0 {
            break;
        }
    }
    assert!(shed > 0, "no call was shed at --concurrency-limit 1");

    // Once the slow call is done the slot is free again.
    let mut client = SwapPuzzleClient::new(channel.clone());
    validate(&mut client, spec_swap_example())
        .await
        .expect("a call after the overload");

    let metrics = parse_metrics(&scrape(server.metrics_addr).await);
    assert_eq!(
        value(&metrics, "matchgrid_requests_shed_total", &[]),
        Some(f64::from(shed)),
        "shed counter vs RESOURCE_EXHAUSTED answers seen"
    );
    assert_eq!(
        value(
            &metrics,
            "matchgrid_requests_total",
            &[("method", VALIDATE), ("code", "RESOURCE_EXHAUSTED")]
        ),
        Some(f64::from(shed))
    );
    assert_eq!(
        value(
            &metrics,
            "matchgrid_requests_total",
            &[("method", VALIDATE), ("code", "OK")]
        ),
        Some(f64::from(served_fast + 1))
    );
    assert_eq!(
        value(&metrics, "matchgrid_requests_in_flight", &[]),
        Some(0.0)
    );
}

/// `--request-timeout`: a request still running when it elapses is answered
/// DEADLINE_EXCEEDED (config.rs).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_running_past_the_timeout_is_deadline_exceeded() {
    let server = TestServer::start(&["--request-timeout", "20ms"]);
    let mut client = server.swap_client().await;
    let started = std::time::Instant::now();
    let status = within("slow call", STEP, client.generate_board(slow_request()))
        .await
        .expect_err("slow call");
    let took = started.elapsed();
    assert_eq!(
        status.code(),
        Code::DeadlineExceeded,
        "a {took:?} call with --request-timeout 20ms: {status:?}"
    );
}
