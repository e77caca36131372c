//! Searches keep their documented answer under CPU contention: with a short server request
//! timeout and no client deadline, 8 concurrent Solve calls beside 24 ValidateSwap callers all
//! answer OK with their best-so-far (`stop = SOLVE_STOP_DEADLINE`), never the call layer's
//! `SERVER_TIMEOUT`; a greedy Simulate too large for the timeout answers `WORK_DEADLINE`.
//!
//! Busy threads, one per CPU, stand for the other work of a loaded machine: without the grace
//! the call layer gives searches past the request timeout, some of the Solve calls here get
//! `SERVER_TIMEOUT` (2 runs in 3 on a 2-core machine with a debug build).

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::TestServer;
use matchgrid::proto::{self, CollapseSolveRequest, SwapSimulateRequest};

/// The server's request timeout in these tests: short, so CPU contention is a large share of it.
const REQUEST_TIMEOUT: &str = "300ms";

/// The `google.rpc.ErrorInfo` reason of a status, if any.
fn reason(status: &tonic::Status) -> Option<String> {
    tonic_types::StatusExt::get_details_error_info(status).map(|info| info.reason)
}

/// A 20x20 board of 5 colours (the search cannot finish it within the timeout at level 3).
fn big_board(seed: u64) -> proto::Board {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let cells = (0..400)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u32 % 5 + 1
        })
        .collect();
    proto::Board {
        width: 20,
        height: 20,
        cells,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_solves_beside_validate_callers_answer_ok_with_their_best_so_far() {
    // A wait for a heavy-work slot long enough that no Solve is shed: 8 calls, and twice the
    // CPUs of slots, so on a small machine some wait for others to answer.
    let server = TestServer::start(&[
        "--request-timeout",
        REQUEST_TIMEOUT,
        "--heavy-work-wait",
        "20s",
    ]);
    let stop = Arc::new(AtomicBool::new(false));
    let validated = Arc::new(AtomicU64::new(0));
    let mut callers = Vec::new();
    for _ in 0..24 {
        let mut client = server.swap_client().await;
        let (stop, validated) = (Arc::clone(&stop), Arc::clone(&validated));
        callers.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let answer = client.validate_swap(common::spec_swap_example()).await;
                assert!(answer.is_ok(), "ValidateSwap: {answer:?}");
                validated.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    // And busy threads, as other work on the machine: as many as it has CPUs.
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let hogs: Vec<_> = (0..cpus)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for i in 0..10_000u64 {
                        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
                    }
                }
                x
            })
        })
        .collect();
    // Let the callers load the CPU first.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let mut solves = Vec::new();
    for seed in 0..8 {
        let mut client = server.collapse_client().await;
        solves.push(tokio::spawn(async move {
            let request = CollapseSolveRequest {
                board: Some(big_board(seed)),
                scoring: proto::ScoringRule::Samegame as i32,
                min_group: 2,
                seed,
                max_nodes: 10_000_000_000,
                max_millis: 0,
                level: 3,
                schedule: proto::SolveSchedule::Restarts as i32,
                method: 0,
                screen_width: 0,
                ..Default::default()
            };
            let begun = Instant::now();
            let answer = client.solve(request).await;
            (seed, answer, begun.elapsed())
        }));
    }
    let mut answers = Vec::new();
    for solve in solves {
        answers.push(solve.await.expect("Solve task"));
    }
    let all_solved = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    for caller in callers {
        caller.await.expect("ValidateSwap caller");
    }
    for hog in hogs {
        hog.join().expect("busy thread");
    }
    assert!(
        validated.load(Ordering::Relaxed) > 24,
        "the ValidateSwap callers ran beside the searches"
    );
    for (seed, answer, took) in answers {
        let response = match answer {
            Ok(response) => response.into_inner(),
            Err(status) => panic!(
                "Solve {seed} after {took:?}: {:?} {:?} {}",
                status.code(),
                reason(&status),
                status.message()
            ),
        };
        assert_eq!(
            response.stop,
            proto::SolveStop::Deadline as i32,
            "Solve {seed}: stopped by the deadline"
        );
        // Answered within the timeout and its grace (the call layer's own answer after that
        // would be SERVER_TIMEOUT).
        let grace = matchgrid::server::admission::search_grace(Duration::from_millis(300));
        assert!(
            took < Duration::from_millis(300) + grace,
            "Solve {seed} took {took:?}"
        );
        assert!(response.nodes > 0, "Solve {seed} searched: {response:?}");
        // The best-so-far is a real game: its taps are legal (replayed by the server).
        let replay = server
            .collapse_client()
            .await
            .replay_game(proto::CollapseReplayGameRequest {
                start: Some(proto::collapse_replay_game_request::Start::Board(
                    big_board(seed),
                )),
                scoring: proto::ScoringRule::Samegame as i32,
                min_group: 2,
                taps: response
                    .moves
                    .iter()
                    .map(|m| m.position.expect("a tap's position"))
                    .collect(),
            })
            .await
            .expect("ReplayGame")
            .into_inner();
        assert!(replay.rejected.is_none(), "Solve {seed}: {replay:?}");
        assert_eq!(replay.total_score, response.score, "Solve {seed}");
    }
    assert!(all_solved < Duration::from_secs(20), "{all_solved:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_greedy_simulate_past_the_timeout_answers_work_deadline_not_server_timeout() {
    let server = TestServer::start(&["--request-timeout", REQUEST_TIMEOUT]);
    let mut client = server.swap_client().await;
    let request = SwapSimulateRequest {
        start: Some(proto::swap_simulate_request::Start::Generate(
            proto::SwapGenerateBoardRequest {
                width: 64,
                height: 64,
                colors: 6,
                seed: 1,
                ..Default::default()
            },
        )),
        games: 100,
        moves: 1000,
        seed: 0,
        policy: proto::SwapPolicy::HintGreedy as i32,
        colors: 6,
        max_steps: 0,
        level: None,
        level_policy: 0,
        search_candidates: 0,
        search_rollouts: 0,
        search_depth: None,
    };
    for _ in 0..2 {
        let status = client
            .simulate(request.clone())
            .await
            .expect_err("100 games of 1000 moves on 64x64 take more than 300 ms");
        assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
        assert_eq!(
            reason(&status).as_deref(),
            Some("WORK_DEADLINE"),
            "{status:?}"
        );
    }
}
