//! Observability against the real binary: the Prometheus endpoint (plain HTTP/1.1 GET on the
//! metrics listener) and the per-RPC log lines.
mod common;
mod ops_support;

use std::time::Duration;

use common::{TestServer, board, spec_swap_example, spec_tap_example, swap};
use matchgrid::proto::ValidateSwapRequest;
use ops_support::{
    STEP, Sample, http_get, parse_metrics, samples, scrape, validate, value, within,
};
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

const VALIDATE: &str = "/matchgrid.v1.SwapPuzzle/ValidateSwap";
const TAP: &str = "/matchgrid.v1.CollapsePuzzle/Tap";
const HEALTH_CHECK: &str = "/grpc.health.v1.Health/Check";

/// `matchgrid_request_duration_seconds` buckets (call_metrics.rs `LATENCY_BUCKETS`), plus +Inf.
const BUCKETS: &[f64] = &[
    0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25, 0.5, 1.0, 2.5, 5.0,
];

/// A ValidateSwap on a board that already has a run: FAILED_PRECONDITION.
fn unstable_request() -> ValidateSwapRequest {
    ValidateSwapRequest {
        board: Some(board("RRR/GGB")),
        swap: Some(swap((0, 0), (1, 0))),
    }
}

/// Calls `path` with an empty message; the server knows no such method.
async fn call_unknown(channel: Channel, path: &'static str) -> tonic::Status {
    let mut grpc = tonic::client::Grpc::new(channel);
    within("ready", STEP, grpc.ready())
        .await
        .expect("channel ready");
    let codec = tonic_prost::ProstCodec::<(), ()>::default();
    within(
        path,
        STEP,
        grpc.unary(
            tonic::Request::new(()),
            http::uri::PathAndQuery::from_static(path),
            codec,
        ),
    )
    .await
    .expect_err("an unknown method")
}

/// Makes a known mix of calls: ValidateSwap 3 OK, 1 INVALID_ARGUMENT, 1 FAILED_PRECONDITION;
/// Tap 1 OK; Health/Check 1 OK; 2 calls to unknown methods (UNIMPLEMENTED).
async fn make_calls(server: &TestServer) {
    let mut swap_client = server.swap_client().await;
    for _ in 0..3 {
        validate(&mut swap_client, spec_swap_example())
            .await
            .expect("ValidateSwap OK");
    }
    let missing_swap = validate(
        &mut swap_client,
        ValidateSwapRequest {
            swap: None,
            ..spec_swap_example()
        },
    )
    .await
    .expect_err("missing swap");
    assert_eq!(missing_swap.code(), Code::InvalidArgument);
    let unstable = validate(&mut swap_client, unstable_request())
        .await
        .expect_err("unstable board");
    assert_eq!(unstable.code(), Code::FailedPrecondition);

    let mut collapse_client = server.collapse_client().await;
    within("Tap", STEP, collapse_client.tap(spec_tap_example()))
        .await
        .expect("Tap OK");

    let mut health = HealthClient::new(server.channel().await);
    within(
        "Health/Check",
        STEP,
        health.check(HealthCheckRequest {
            service: String::new(),
        }),
    )
    .await
    .expect("Health/Check");

    let channel = server.channel().await;
    let unknown = call_unknown(channel.clone(), "/acme.v1.Nope/Call").await;
    assert_eq!(unknown.code(), Code::Unimplemented);
    // Known prefix but an over-long path: still folded into `other`.
    let long = call_unknown(
        channel,
        "/matchgrid.v1.SwapPuzzle/ValidateSwapAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    )
    .await;
    assert_eq!(long.code(), Code::Unimplemented);
}

fn requests_total(all: &[Sample], method: &str, code: &str) -> Option<f64> {
    value(
        all,
        "matchgrid_requests_total",
        &[("method", method), ("code", code)],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_endpoint_counts_requests_by_method_and_code() {
    let server = TestServer::start(&[]);
    make_calls(&server).await;

    let metrics_addr = server.metrics_addr;
    let (status, head, text) = within(
        "GET /metrics",
        STEP,
        tokio::task::spawn_blocking(move || http_get(metrics_addr, "/metrics")),
    )
    .await
    .unwrap()
    .expect("GET /metrics");
    assert_eq!(status, 200, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain"),
        "Prometheus text format: {head}"
    );
    for (name, kind) in [
        ("matchgrid_requests_total", "counter"),
        ("matchgrid_request_duration_seconds", "histogram"),
        ("matchgrid_requests_in_flight", "gauge"),
    ] {
        assert!(
            text.contains(&format!("# TYPE {name} {kind}")),
            "no `# TYPE {name} {kind}` in:\n{text}"
        );
    }
    let all = parse_metrics(&text);

    assert_eq!(requests_total(&all, VALIDATE, "OK"), Some(3.0), "{text}");
    assert_eq!(
        requests_total(&all, VALIDATE, "INVALID_ARGUMENT"),
        Some(1.0)
    );
    assert_eq!(
        requests_total(&all, VALIDATE, "FAILED_PRECONDITION"),
        Some(1.0)
    );
    assert_eq!(requests_total(&all, TAP, "OK"), Some(1.0));
    assert_eq!(requests_total(&all, HEALTH_CHECK, "OK"), Some(1.0));
    // Unknown methods share one label value, so clients cannot blow up cardinality.
    assert_eq!(requests_total(&all, "other", "UNIMPLEMENTED"), Some(2.0));
    for sample in samples(&all, "matchgrid_requests_total", &[]) {
        let method = &sample.labels["method"];
        assert!(
            method == "other" || method.len() <= 128,
            "unbounded method label {method:?}"
        );
        assert_eq!(
            sample.labels.keys().collect::<Vec<_>>(),
            ["code", "method"],
            "labels of {sample:?}"
        );
    }

    // Nothing is running once every answer is in.
    assert_eq!(
        value(&all, "matchgrid_requests_in_flight", &[]),
        Some(0.0),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_endpoint_exports_latency_histogram_buckets() {
    let server = TestServer::start(&[]);
    make_calls(&server).await;
    let all = parse_metrics(&scrape(server.metrics_addr).await);

    for (method, calls) in [(VALIDATE, 5.0), (TAP, 1.0), (HEALTH_CHECK, 1.0)] {
        let buckets = samples(
            &all,
            "matchgrid_request_duration_seconds_bucket",
            &[("method", method)],
        );
        let mut bounds: Vec<f64> = buckets
            .iter()
            .map(|s| match s.labels["le"].as_str() {
                "+Inf" => f64::INFINITY,
                le => le.parse().unwrap_or_else(|_| panic!("bad le {le:?}")),
            })
            .collect();
        bounds.sort_by(f64::total_cmp);
        let mut expected = BUCKETS.to_vec();
        expected.push(f64::INFINITY);
        assert_eq!(bounds, expected, "{method} buckets");

        // Cumulative: non-decreasing, ending at the call count.
        let mut by_bound: Vec<(f64, f64)> = buckets
            .iter()
            .map(|s| {
                let le = match s.labels["le"].as_str() {
                    "+Inf" => f64::INFINITY,
                    le => le.parse().unwrap(),
                };
                (le, s.value)
            })
            .collect();
        by_bound.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert!(
            by_bound.windows(2).all(|w| w[0].1 <= w[1].1),
            "{method}: buckets not cumulative: {by_bound:?}"
        );
        assert_eq!(by_bound.last().unwrap().1, calls, "{method} +Inf bucket");
        assert_eq!(
            value(
                &all,
                "matchgrid_request_duration_seconds_count",
                &[("method", method)]
            ),
            Some(calls),
            "{method} _count"
        );
        let sum = value(
            &all,
            "matchgrid_request_duration_seconds_sum",
            &[("method", method)],
        )
        .expect("a _sum sample");
        assert!(sum > 0.0 && sum < 60.0 * calls, "{method} _sum {sum}");
    }
}

/// Dashboards and alerts need the shed counter before the first shed (`rate()` of a series
/// that does not exist yet is no data, not zero).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shed_counter_is_exported_at_zero_after_ordinary_calls() {
    let server = TestServer::start(&[]);
    make_calls(&server).await;
    let text = scrape(server.metrics_addr).await;
    let all = parse_metrics(&text);
    assert_eq!(
        value(&all, "matchgrid_requests_shed_total", &[]),
        Some(0.0),
        "matchgrid_requests_shed_total missing or non-zero without overload:\n{text}"
    );
}

/// At debug level every RPC logs one line with its method, gRPC code and latency.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_rpc_logs_method_code_and_latency_at_debug_level() {
    let server = TestServer::start(&["--log-level", "matchgrid=debug"]);
    let mut client = server.swap_client().await;
    validate(&mut client, unstable_request())
        .await
        .expect_err("unstable board");
    let line = server.wait_for_log("rpc finished", Duration::from_secs(10));
    for needle in [VALIDATE, "FAILED_PRECONDITION", "latency_us="] {
        assert!(line.contains(needle), "{needle:?} not in {line:?}");
    }
}

/// A call the client gives up on (its deadline passes) is still counted, as CANCELLED, and the
/// in-flight gauge returns to 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_abandoned_by_the_client_are_counted_as_cancelled() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let mut request = tonic::Request::new(ops_support::slow_request());
    request.set_timeout(Duration::from_millis(20));
    let status = within(
        "slow call with a 20 ms deadline",
        STEP,
        client.generate_board(request),
    )
    .await
    .expect_err("the client's deadline passes first");
    assert!(
        matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{status:?}"
    );
    let method = "/matchgrid.v1.SwapPuzzle/GenerateBoard";
    let mut counted = None;
    for _ in 0..100 {
        let all = parse_metrics(&scrape(server.metrics_addr).await);
        counted = value(
            &all,
            "matchgrid_requests_total",
            &[("method", method), ("code", "CANCELLED")],
        );
        if counted.is_some() && value(&all, "matchgrid_requests_in_flight", &[]) == Some(0.0) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(counted, Some(1.0));
}
