//! Solve's CLEAR goal, Solve on several threads and GenerateBoard's par, through gRPC and the
//! CLI: every line is replayed through ReplayGame, answers repeat byte for byte, the server's
//! `--solve-threads` caps a request, and out-of-range fields are INVALID_ARGUMENT naming them.

mod common;

use matchgrid::proto::{self, CollapseGenerateBoardRequest, CollapseSolveRequest};
use matchgrid::transport::SearchContext;
use matchgrid::transport::collapse as rpc;
use prost::Message;
use tonic::Code;

use common::{TestServer, bad_request_fields};

fn clear_request(board: proto::Board, max_nodes: u64) -> CollapseSolveRequest {
    CollapseSolveRequest {
        board: Some(board),
        max_nodes,
        seed: 3,
        goal: proto::SolveGoal::Clear.into(),
        ..Default::default()
    }
}

fn generate(width: u32, height: u32, colors: u32, seed: u64) -> CollapseGenerateBoardRequest {
    CollapseGenerateBoardRequest {
        width,
        height,
        colors,
        seed,
        ..Default::default()
    }
}

fn no_limits() -> SearchContext {
    SearchContext {
        deadline: None,
        cancel: Default::default(),
        progress: None,
    }
}

/// ReplayGame of `moves` on `board` under `scoring`: (total score, tiles left), checking no
/// tap is refused.
async fn replayed(
    client: &mut proto::collapse_puzzle_client::CollapsePuzzleClient<tonic::transport::Channel>,
    board: &proto::Board,
    taps: Vec<proto::Position>,
    scoring: proto::ScoringRule,
) -> (i64, u32) {
    let replay = client
        .replay_game(proto::CollapseReplayGameRequest {
            start: Some(proto::collapse_replay_game_request::Start::Board(
                board.clone(),
            )),
            scoring: scoring.into(),
            taps,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replay.rejected, None);
    (replay.total_score, replay.tiles_left)
}

/// GenerateBoard's board for `request`.
async fn board_of(
    client: &mut proto::collapse_puzzle_client::CollapsePuzzleClient<tonic::transport::Channel>,
    request: CollapseGenerateBoardRequest,
) -> proto::Board {
    let response = client.generate_board(request).await.unwrap();
    response.into_inner().board.unwrap()
}

fn taps_of(response: &proto::CollapseSolveResponse) -> Vec<proto::Position> {
    response.moves.iter().map(|m| m.position.unwrap()).collect()
}

#[tokio::test]
async fn the_clear_goal_finds_lines_proves_and_says_when_it_does_not_know() {
    // A debug build on a loaded machine may take longer than the default 5 s per search: a
    // deadline would end it early and make the repeat differ.
    let server = TestServer::start(&["--request-timeout", "120s"]);
    let mut client = server.collapse_client().await;
    // A board built to clear, and a uniform PopStar board: both are found clearable.
    let built = board_of(
        &mut client,
        CollapseGenerateBoardRequest {
            clearable: true,
            ..generate(10, 10, 5, 4)
        },
    )
    .await;
    let uniform = board_of(&mut client, generate(10, 10, 5, 1)).await;
    for board in [built, uniform] {
        let answer = client
            .solve(clear_request(board.clone(), 0))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(answer.clearability(), proto::Clearability::Clearable);
        assert_eq!(answer.stop(), proto::SolveStop::Completed);
        assert_eq!((answer.tiles_left, answer.end_bonus), (0, 2000));
        let (score, tiles) = replayed(
            &mut client,
            &board,
            taps_of(&answer),
            proto::ScoringRule::Popstar,
        )
        .await;
        assert_eq!((score, tiles), (answer.score, 0));
        // Deterministic: the same request, the same bytes (the time aside).
        let again = client
            .solve(clear_request(board, 0))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(again.stop(), proto::SolveStop::Completed);
        assert_eq!(
            (again.moves, again.nodes),
            (answer.moves.clone(), answer.nodes)
        );
    }
    // A colour with one tile: proven at once.
    let stranded = client
        .solve(clear_request(common::board("RRG/BBR"), 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(stranded.clearability(), proto::Clearability::NotClearable);
    assert_eq!(stranded.clear_proof(), proto::ClearProof::StrandedColor);
    assert_eq!((stranded.stranded_color, stranded.nodes), (2, 0));
    assert!(stranded.moves.is_empty());
    // Every colour has two tiles, but no order clears it: proven by exhausting the taps.
    let exhausted = client
        .solve(clear_request(common::board("RG/GR/RG"), 0))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(exhausted.clearability(), proto::Clearability::NotClearable);
    assert_eq!(exhausted.clear_proof(), proto::ClearProof::Exhausted);
    assert_eq!(exhausted.stranded_color, 0);
    // A 15x15 board on a tiny budget: unknown, with the game leaving the fewest tiles found.
    let large = board_of(&mut client, generate(15, 15, 6, 2)).await;
    let unknown = client
        .solve(clear_request(large.clone(), 2_000))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(unknown.clearability(), proto::Clearability::Unknown);
    assert_eq!(unknown.stop(), proto::SolveStop::NodeBudget);
    assert_eq!(unknown.clear_proof(), proto::ClearProof::Unspecified);
    let (_, tiles) = replayed(
        &mut client,
        &large,
        taps_of(&unknown),
        proto::ScoringRule::Popstar,
    )
    .await;
    assert!(tiles > 0 && tiles == unknown.tiles_left, "{tiles}");
}

#[tokio::test]
async fn threads_are_capped_by_the_server_and_deterministic_per_count() {
    let server = TestServer::start(&["--solve-threads", "2"]);
    let mut client = server.collapse_client().await;
    let board = board_of(&mut client, generate(12, 12, 5, 9)).await;
    let request = |threads| CollapseSolveRequest {
        board: Some(board.clone()),
        scoring: proto::ScoringRule::Samegame.into(),
        max_nodes: 300_000,
        seed: 2,
        schedule: proto::SolveSchedule::Restarts.into(),
        method: proto::SolveMethod::Screened.into(),
        threads,
        ..Default::default()
    };
    // Eight asked, two allowed: the answer is the two-thread one, and says so.
    let capped = client.solve(request(8)).await.unwrap().into_inner();
    assert_eq!(capped.threads, 2);
    let two = rpc::solve(request(2), &no_limits()).unwrap();
    assert_eq!((&capped.moves, capped.nodes), (&two.moves, two.nodes));
    let (score, _) = replayed(
        &mut client,
        &board,
        taps_of(&capped),
        proto::ScoringRule::Samegame,
    )
    .await;
    assert_eq!(score, capped.score);
    assert!(capped.nodes >= 300_000 && capped.nodes < 301_000);
    // Unset: one thread, and `threads` is not in the answer (its old bytes).
    let unset = client.solve(request(0)).await.unwrap().into_inner();
    let one = client.solve(request(1)).await.unwrap().into_inner();
    assert_eq!((unset.threads, one.threads), (0, 1));
    assert_eq!((&unset.moves, unset.nodes), (&one.moves, one.nodes));
    // Thread 0 of two is one thread on half the budget, so two never score lower than that.
    let half = rpc::solve(
        CollapseSolveRequest {
            max_nodes: 150_000,
            ..request(1)
        },
        &no_limits(),
    )
    .unwrap();
    assert!(
        capped.score >= half.score,
        "{} < {}",
        capped.score,
        half.score
    );
    let status = client.solve(request(65)).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(bad_request_fields(&status), ["threads"]);
    let status = client
        .solve(CollapseSolveRequest {
            goal: 9,
            ..request(0)
        })
        .await
        .unwrap_err();
    assert_eq!(bad_request_fields(&status), ["goal"]);
}

#[tokio::test]
async fn a_par_is_a_replayable_best_known_game_and_leaves_the_board_alone() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let plain = client
        .generate_board(generate(10, 10, 5, 6))
        .await
        .unwrap()
        .into_inner();
    let with_par = CollapseGenerateBoardRequest {
        par_nodes: 200_000,
        ..generate(10, 10, 5, 6)
    };
    let par = client.generate_board(with_par).await.unwrap().into_inner();
    assert_eq!(par.board, plain.board);
    assert_eq!(par.legal_group_count, plain.legal_group_count);
    assert_eq!(par.par_stop(), proto::SolveStop::NodeBudget);
    let (score, _) = replayed(
        &mut client,
        plain.board.as_ref().unwrap(),
        par.par_line.clone(),
        proto::ScoringRule::Popstar,
    )
    .await;
    assert_eq!(score, par.par_score);
    // The par is what Solve finds with the stated settings.
    let solved = rpc::solve(
        CollapseSolveRequest {
            board: plain.board.clone(),
            seed: 6,
            max_nodes: 200_000,
            level: 2,
            schedule: proto::SolveSchedule::Restarts.into(),
            method: proto::SolveMethod::Screened.into(),
            ..Default::default()
        },
        &no_limits(),
    )
    .unwrap();
    assert_eq!(solved.score, par.par_score);
    assert_eq!(taps_of(&solved), par.par_line);
    // Same request, same bytes; without par_nodes, the old bytes.
    let again = client.generate_board(with_par).await.unwrap().into_inner();
    assert_eq!(again.encode_to_vec(), par.encode_to_vec());
    assert_eq!(
        plain.encode_to_vec(),
        rpc::generate_board(generate(10, 10, 5, 6))
            .unwrap()
            .encode_to_vec()
    );
    assert!(plain.par_line.is_empty() && plain.par_score == 0);
    // Another rule's par, replayed under that rule.
    let samegame = client
        .generate_board(CollapseGenerateBoardRequest {
            par_nodes: 50_000,
            par_scoring: proto::ScoringRule::Samegame.into(),
            ..generate(10, 10, 5, 6)
        })
        .await
        .unwrap()
        .into_inner();
    let (score, _) = replayed(
        &mut client,
        plain.board.as_ref().unwrap(),
        samegame.par_line,
        proto::ScoringRule::Samegame,
    )
    .await;
    assert_eq!(score, samegame.par_score);
    for (request, field) in [
        (
            CollapseGenerateBoardRequest {
                par_nodes: rpc::MAX_PAR_NODES + 1,
                ..generate(10, 10, 5, 6)
            },
            "par_nodes",
        ),
        (
            CollapseGenerateBoardRequest {
                par_nodes: 10,
                par_scoring: 42,
                ..generate(10, 10, 5, 6)
            },
            "par_scoring",
        ),
    ] {
        let status = client.generate_board(request).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        assert_eq!(bad_request_fields(&status), [field]);
    }
}

#[test]
fn the_cli_asks_the_clear_question_and_prints_a_par() {
    let server = TestServer::start(&[]);
    let url = server.url();
    let (code, stdout, stderr) = common::run_cli(
        &[
            "--server", &url, "collapse", "solve", "--board", "RG/GR/RG", "--goal", "clear",
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("NOT CLEARABLE: every reachable position was searched"),
        "{stdout}"
    );
    let (code, stdout, stderr) = common::run_cli(
        &[
            "--server",
            &url,
            "collapse",
            "generate",
            "--seed",
            "6",
            "--par-nodes",
            "200000",
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let expected = rpc::generate_board(CollapseGenerateBoardRequest {
        par_nodes: 200_000,
        ..generate(10, 10, 5, 6)
    })
    .unwrap();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("par "))
        .expect("a par line");
    assert!(
        line.starts_with(&format!(
            "par {} (best known, 200000 nodes; {} taps): ",
            expected.par_score,
            expected.par_line.len()
        )),
        "{line}"
    );
}
