//! Server lifecycle against the real binary: health entries across start and SIGTERM/SIGINT,
//! graceful shutdown with open Watch streams (sent NOT_SERVING, then ended) and in-flight
//! calls, bounded by the grace period.
mod common;
mod ops_support;

use std::time::{Duration, Instant};

use common::{TestServer, spec_swap_example};
use matchgrid::proto::SwapVerdict;
use ops_support::{
    STEP, drain_log, find_line, send_signal, slow_request, validate, wait_exit, wait_for_in_flight,
    within,
};
use tonic::Code;
use tonic::codec::Streaming;
use tonic::transport::Channel;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

/// Every health entry the server reports.
const ENTRIES: [&str; 3] = ["", "matchgrid.v1.SwapPuzzle", "matchgrid.v1.CollapsePuzzle"];

/// Slack on top of the grace period for the process to be gone (runtime teardown, a loaded
/// machine).
const EXIT_SLACK: Duration = Duration::from_secs(5);

async fn check(client: &mut HealthClient<Channel>, service: &str) -> Result<ServingStatus, Code> {
    within(
        "Health/Check",
        STEP,
        client.check(HealthCheckRequest {
            service: service.to_owned(),
        }),
    )
    .await
    .map(|r| r.into_inner().status())
    .map_err(|s| s.code())
}

async fn watch(
    client: &mut HealthClient<Channel>,
    service: &str,
) -> Streaming<HealthCheckResponse> {
    within(
        "Health/Watch",
        STEP,
        client.watch(HealthCheckRequest {
            service: service.to_owned(),
        }),
    )
    .await
    .unwrap_or_else(|s| panic!("Watch({service:?}) failed: {s:?}"))
    .into_inner()
}

/// The next status on a Watch stream; panics if the stream ends or fails first.
async fn next_status(stream: &mut Streaming<HealthCheckResponse>, service: &str) -> ServingStatus {
    match within("next Watch message", STEP, stream.message()).await {
        Ok(Some(response)) => response.status(),
        Ok(None) => panic!("Watch({service:?}) ended before the expected status"),
        Err(status) => panic!("Watch({service:?}) failed before the expected status: {status:?}"),
    }
}

/// Opens a Watch per entry and checks each starts SERVING.
async fn watch_all_serving(
    client: &mut HealthClient<Channel>,
) -> Vec<(&'static str, Streaming<HealthCheckResponse>)> {
    let mut streams = Vec::new();
    for service in ENTRIES {
        let mut stream = watch(client, service).await;
        assert_eq!(
            next_status(&mut stream, service).await,
            ServingStatus::Serving,
            "Watch({service:?}) first status while serving"
        );
        streams.push((service, stream));
    }
    streams
}

/// Reads each stream until NOT_SERVING; only SERVING may come before it (never UNKNOWN or
/// SERVICE_UNKNOWN).
async fn expect_not_serving(streams: &mut [(&'static str, Streaming<HealthCheckResponse>)]) {
    for (service, stream) in streams.iter_mut() {
        loop {
            match next_status(stream, service).await {
                ServingStatus::NotServing => break,
                ServingStatus::Serving => continue,
                other => panic!("Watch({service:?}) reported {other:?} during shutdown"),
            }
        }
    }
}

/// After the process is gone each Watch stream must end (error or end of stream) rather than
/// hang, and must never have gone back to SERVING.
async fn expect_streams_end(streams: &mut [(&'static str, Streaming<HealthCheckResponse>)]) {
    for (service, stream) in streams.iter_mut() {
        loop {
            match within("Watch stream end after exit", STEP, stream.message()).await {
                Ok(None) | Err(_) => break,
                Ok(Some(response)) => assert_ne!(
                    response.status(),
                    ServingStatus::Serving,
                    "Watch({service:?}) went back to SERVING after SIGTERM"
                ),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_health_entry_is_serving_once_started() {
    let server = TestServer::start(&[]);
    let mut health = HealthClient::new(server.channel().await);
    for service in ENTRIES {
        assert_eq!(
            check(&mut health, service).await,
            Ok(ServingStatus::Serving),
            "Check({service:?}) right after the server logged that it serves"
        );
    }
    assert_eq!(
        check(&mut health, "matchgrid.v1.NoSuchService").await,
        Err(Code::NotFound),
        "an unknown entry is NOT_FOUND"
    );
    // The entries stay SERVING while the server runs and answers calls.
    let mut swap_client = server.swap_client().await;
    validate(&mut swap_client, spec_swap_example())
        .await
        .expect("ValidateSwap while serving");
    for service in ENTRIES {
        assert_eq!(
            check(&mut health, service).await,
            Ok(ServingStatus::Serving)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_turns_every_entry_not_serving_then_exits_within_grace() {
    let grace = Duration::from_secs(5);
    let mut server = TestServer::start(&["--shutdown-grace", "5s"]);
    let mut health = HealthClient::new(server.channel().await);
    let mut streams = watch_all_serving(&mut health).await;

    let signalled = Instant::now();
    server.sigterm();
    // Every Watch stream sees NOT_SERVING before it ends (the server ends them at shutdown).
    expect_not_serving(&mut streams).await;

    let status = wait_exit(&mut server.child, grace + EXIT_SLACK)
        .await
        .unwrap_or_else(|| {
            panic!(
                "still running {:?} after SIGTERM (grace {grace:?})",
                signalled.elapsed()
            )
        });
    assert!(status.success(), "exit after SIGTERM: {status}");
    expect_streams_end(&mut streams).await;

    let log = drain_log(&server.log, STEP);
    let sigterm = find_line(&log, &["SIGTERM received"]).expect("a 'SIGTERM received' log line");
    let draining = find_line(&log, &["draining in-flight calls"]).expect("a 'draining' line");
    assert!(sigterm < draining, "log order: {log:#?}");
    // The Watch streams are ended at shutdown, so the drain completes instead of running out
    // the grace period (issue 11, fault 6).
    assert!(
        find_line(&log, &["drained; exiting"]).is_some()
            && find_line(&log, &["shutdown grace elapsed"]).is_none(),
        "open Watch streams must not hold the drain until the grace period ends: {log:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_also_turns_health_not_serving_and_exits() {
    let mut server = TestServer::start(&["--shutdown-grace", "3s"]);
    let mut health = HealthClient::new(server.channel().await);
    let mut streams = watch_all_serving(&mut health).await;

    send_signal(server.child.id(), "INT");
    expect_not_serving(&mut streams).await;
    let status = wait_exit(&mut server.child, Duration::from_secs(3) + EXIT_SLACK)
        .await
        .expect("still running after SIGINT and the grace period");
    assert!(status.success(), "exit after SIGINT: {status}");
    expect_streams_end(&mut streams).await;
    let log = drain_log(&server.log, STEP);
    assert!(find_line(&log, &["SIGINT received"]).is_some(), "{log:#?}");
}

/// The grace period is a cap, not a wait: with only an idle connection open, the server drains
/// and exits at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_only_idle_connections_exits_promptly_and_cleanly() {
    let mut server = TestServer::start(&["--shutdown-grace", "60s"]);
    let mut client = server.swap_client().await;
    let response = validate(&mut client, spec_swap_example())
        .await
        .expect("ValidateSwap");
    assert_eq!(response.verdict(), SwapVerdict::Ok);

    // `client` keeps its connection open, idle.
    server.sigterm();
    let status = wait_exit(&mut server.child, Duration::from_secs(15))
        .await
        .expect("an idle connection kept the server from exiting long before its 60 s grace");
    assert!(status.success(), "exit after SIGTERM: {status}");
    let log = drain_log(&server.log, STEP);
    assert!(
        find_line(&log, &["drained; exiting"]).is_some(),
        "expected a clean drain: {log:#?}"
    );
    drop(client);
}

/// Once the server says it serves (log line, health SERVING) it must also handle SIGTERM: a pod
/// stopped right after it turned ready still drains and exits 0 instead of dying by the
/// default signal action. Several attempts, as the window is short.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_right_after_the_serving_log_line_is_handled_gracefully() {
    for attempt in 1..=8 {
        let mut server = TestServer::start(&["--shutdown-grace", "5s"]);
        server.sigterm();
        let status = wait_exit(&mut server.child, Duration::from_secs(5) + EXIT_SLACK)
            .await
            .unwrap_or_else(|| panic!("attempt {attempt}: still running after SIGTERM"));
        let log = drain_log(&server.log, STEP);
        assert!(
            status.success() && find_line(&log, &["SIGTERM received"]).is_some(),
            "attempt {attempt}: SIGTERM sent right after 'matchgrid serving' ended the process \
             with {status} without a graceful drain (no SIGTERM handler yet?); log: {log:#?}"
        );
    }
}

/// One run of the drain scenario. Returns false when the slow call finished before SIGTERM
/// reached the server (a lost race, to be retried), after checking everything else.
async fn drain_scenario(attempt: u32) -> bool {
    let grace = Duration::from_secs(4);
    let mut server =
        TestServer::start(&["--shutdown-grace", "4s", "--log-level", "matchgrid=debug"]);
    let channel = server.channel().await;
    let mut health = HealthClient::new(channel.clone());
    let mut streams = vec![("", watch(&mut health, "").await)];
    assert_eq!(
        next_status(&mut streams[0].1, "").await,
        ServingStatus::Serving
    );

    let mut slow_client = matchgrid::proto::swap_puzzle_client::SwapPuzzleClient::new(channel);
    let slow = tokio::spawn(async move {
        let started = Instant::now();
        let outcome = slow_client.generate_board(slow_request()).await;
        (outcome, started.elapsed())
    });
    assert!(
        wait_for_in_flight(server.metrics_addr, 1.0, STEP).await || slow.is_finished(),
        "the slow call never showed up in matchgrid_requests_in_flight"
    );
    let signalled = Instant::now();
    server.sigterm();

    expect_not_serving(&mut streams).await;
    let (outcome, took) = within("the in-flight slow call", STEP, slow)
        .await
        .expect("slow call task");
    // The in-flight call completes with its normal answer, not a transport error.
    let status = outcome.expect_err("GenerateBoard with an unreachable min_moves");
    assert_eq!(
        status.code(),
        Code::InvalidArgument,
        "in-flight call during shutdown: {status:?}"
    );
    assert!(status.message().contains("min_moves"), "{status:?}");

    let exit = wait_exit(&mut server.child, grace + EXIT_SLACK)
        .await
        .unwrap_or_else(|| {
            panic!(
                "still running {:?} after SIGTERM with an open Watch stream (grace {grace:?})",
                signalled.elapsed()
            )
        });
    assert!(exit.success(), "exit after SIGTERM: {exit}");
    expect_streams_end(&mut streams).await;

    let log = drain_log(&server.log, STEP);
    let sigterm = find_line(&log, &["SIGTERM received"]).expect("a 'SIGTERM received' line");
    let finished = find_line(&log, &["GenerateBoard", "rpc finished"])
        .unwrap_or_else(|| panic!("no 'rpc finished' line for GenerateBoard: {log:#?}"));
    assert!(
        find_line(&log, &["drained; exiting"]).is_some()
            && find_line(&log, &["shutdown grace elapsed"]).is_none(),
        "the open Watch stream must not hold the drain until the grace period ends: {log:#?}"
    );
    if finished < sigterm {
        eprintln!(
            "attempt {attempt}: the slow call ({took:?}) finished before SIGTERM arrived; retrying"
        );
        return false;
    }
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_in_flight_call_finish_and_exits_within_grace_despite_open_watch() {
    for attempt in 1..=3 {
        if drain_scenario(attempt).await {
            return;
        }
    }
    panic!("in 3 attempts the slow call never was still in flight when SIGTERM arrived");
}
