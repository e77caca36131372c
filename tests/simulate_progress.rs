//! SimulateWithProgress against the real server: its reports rise to the game count, its last
//! message is Simulate's answer byte for byte, and its errors are Simulate's.
mod common;

use std::path::Path;

use common::{TestServer, bad_request_fields};
use matchgrid::cli::level_file::read_level_file;
use matchgrid::proto::{
    self, SimulateWithProgressRequest, SimulateWithProgressResponse, SwapGenerateBoardRequest,
    SwapSimulateRequest, swap_simulate_request::Start,
};
use prost::Message;
use tokio_stream::StreamExt;
use tonic::Code;

/// Every message of a SimulateWithProgress call, and the status it ended with (OK or not).
async fn stream_of(
    server: &TestServer,
    simulation: Option<SwapSimulateRequest>,
) -> (Vec<SimulateWithProgressResponse>, Result<(), tonic::Status>) {
    let mut client = server.swap_client().await;
    let request = SimulateWithProgressRequest { simulation };
    let mut stream = match client.simulate_with_progress(request).await {
        Ok(response) => response.into_inner(),
        Err(status) => return (Vec::new(), Err(status)),
    };
    let mut messages = Vec::new();
    while let Some(message) = stream.next().await {
        match message {
            Ok(message) => messages.push(message),
            Err(status) => return (messages, Err(status)),
        }
    }
    (messages, Ok(()))
}

/// The games of `simulation` as the reports count them: rising, at most the game count, the
/// answer in the last message only, which is Simulate's for the same request.
async fn check_against_simulate(server: &TestServer, simulation: SwapSimulateRequest) -> usize {
    let games = simulation.games;
    let (messages, end) = stream_of(server, Some(simulation.clone())).await;
    end.unwrap();
    let (last, reports) = messages.split_last().expect("at least the answer");
    let mut done = 0;
    for report in reports {
        assert_eq!(report.games, games);
        assert!(report.result.is_none(), "{report:?}");
        assert!(
            report.games_done >= done && report.games_done <= games,
            "{reports:?}"
        );
        done = report.games_done;
    }
    assert_eq!((last.games, last.games_done), (games, games));
    let simulated = server
        .swap_client()
        .await
        .simulate(simulation)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        last.result.as_ref().unwrap().encode_to_vec(),
        simulated.encode_to_vec()
    );
    reports.len()
}

#[tokio::test]
async fn a_level_simulation_reports_its_games_then_answers_as_simulate() {
    let server = TestServer::start(&["--request-timeout", "120s"]);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/levels/jelly_rows.json");
    let level = read_level_file(&file).unwrap().level;
    // The search policy plays slowly enough (seconds in a debug build) to be reported on.
    let simulation = SwapSimulateRequest {
        level: Some(level.clone()),
        games: 4,
        seed: 5,
        level_policy: proto::LevelPolicy::Search.into(),
        search_rollouts: 8,
        ..Default::default()
    };
    let reports = check_against_simulate(&server, simulation).await;
    assert!(reports > 0, "no report on a simulation of seconds");
    // Greedy, and a seed of its own.
    let greedy = SwapSimulateRequest {
        level: Some(level),
        games: 40,
        seed: 9,
        ..Default::default()
    };
    check_against_simulate(&server, greedy).await;
}

#[tokio::test]
async fn a_board_simulation_answers_as_simulate() {
    let server = TestServer::start(&[]);
    let simulation = SwapSimulateRequest {
        start: Some(Start::Generate(SwapGenerateBoardRequest {
            width: 8,
            height: 8,
            colors: 5,
            seed: 3,
            ..Default::default()
        })),
        games: 20,
        moves: 15,
        seed: 4,
        ..Default::default()
    };
    check_against_simulate(&server, simulation).await;
}

#[tokio::test]
async fn refusals_are_simulates_and_come_before_any_report() {
    let server = TestServer::start(&[]);
    let (messages, end) = stream_of(&server, None).await;
    assert!(messages.is_empty());
    let status = end.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(bad_request_fields(&status), ["simulation"]);

    let no_games = SwapSimulateRequest {
        games: 0,
        ..Default::default()
    };
    let (messages, end) = stream_of(&server, Some(no_games.clone())).await;
    assert!(messages.is_empty());
    let status = end.unwrap_err();
    let expected = server
        .swap_client()
        .await
        .simulate(no_games)
        .await
        .unwrap_err();
    assert_eq!(
        (status.code(), bad_request_fields(&status)),
        (expected.code(), bad_request_fields(&expected))
    );
    assert_eq!(status.code(), Code::InvalidArgument);
}
