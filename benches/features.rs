//! SwapPuzzle feature benchmarks (criterion, issue 9): `cargo bench --bench features`.
//!
//! On 9x9 boards with 6 colours, through the transport functions (no gRPC): ReplayGame of a
//! 100-move game, Hint without samples, and Simulate with the greedy policy (20 moves a game).
//! Each beside its `_reference` twin: the same RPC rebuilt from ResolveCascade calls (the
//! tests' reference, `tests/reference/features.rs`; ReplayGame's own fallback path).

use std::hint::black_box;

#[path = "../tests/reference/features.rs"]
mod features;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use matchgrid::proto::{self, swap_replay_game_request, swap_simulate_request};
use matchgrid::transport::{ServiceLimits, swap as rpc};

use rand::Rng;

fn board_9x9_6c(seed: u64) -> proto::Board {
    rpc::generate_board(proto::SwapGenerateBoardRequest {
        width: 9,
        height: 9,
        colors: 6,
        seed,
        ..Default::default()
    })
    .unwrap()
    .board
    .unwrap()
}

/// A 100-move game on 9x9/6: each move a random valid swap, RANDOM refill from 6 colours with
/// its own seed, every move accepted.
fn replay_request() -> proto::SwapReplayGameRequest {
    let start = board_9x9_6c(11);
    let mut rng = matchgrid::engine::rng_from_seed(99);
    let mut board = start.clone();
    let mut moves = Vec::new();
    for _ in 0..100 {
        let listed = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
            board: Some(board.clone()),
        })
        .unwrap()
        .valid_swaps;
        let play = proto::SwapMove {
            swap: Some(listed[rng.random_range(0..listed.len())]),
            colors: 6,
            seed: rng.random(),
            ..Default::default()
        };
        board = rpc::resolve_cascade(proto::ResolveCascadeRequest {
            board: Some(board),
            swap: play.swap,
            colors: 6,
            seed: play.seed,
            ..Default::default()
        })
        .unwrap()
        .board
        .unwrap();
        moves.push(play);
    }
    proto::SwapReplayGameRequest {
        start: Some(swap_replay_game_request::Start::Board(start)),
        moves,
        level: None,
        level_seed: 0,
    }
}

fn simulate_request(games: u32) -> proto::SwapSimulateRequest {
    proto::SwapSimulateRequest {
        start: Some(swap_simulate_request::Start::Board(board_9x9_6c(5))),
        games,
        moves: 20,
        seed: 3,
        policy: proto::SwapPolicy::HintGreedy as i32,
        colors: 6,
        max_steps: 0,
        level: None,
        level_policy: 0,
        search_candidates: 0,
        search_rollouts: 0,
        search_depth: None,
    }
}

fn bench_features(c: &mut Criterion) {
    let mut group = c.benchmark_group("swap_features_9x9_6c");
    let limits = ServiceLimits::default();

    let replay = replay_request();
    let replayed = rpc::replay_game(replay.clone(), limits).unwrap();
    assert!(replayed.rejected.is_none() && replayed.moves.len() == 100);
    for (name, fast) in [
        ("replay_100_moves_9x9_6c", true),
        ("replay_100_moves_9x9_6c_reference", false),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || replay.clone(),
                |request| {
                    black_box(if fast {
                        rpc::replay_game(request, limits)
                    } else {
                        features::replay_game_reference(request, limits)
                    })
                },
                BatchSize::SmallInput,
            )
        });
    }

    let hint = proto::SwapHintRequest {
        board: Some(board_9x9_6c(7)),
        ..Default::default()
    };
    assert!(!rpc::hint(hint.clone(), None).unwrap().hints.is_empty());
    for (name, fast) in [("hint_9x9_6c", true), ("hint_9x9_6c_reference", false)] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || hint.clone(),
                |request| {
                    black_box(if fast {
                        rpc::hint(request, None)
                    } else {
                        features::hint_reference(request)
                    })
                },
                BatchSize::SmallInput,
            )
        });
    }

    // The engine work alone: every valid swap's NONE-refill cascade (no proto conversion).
    let board = matchgrid::transport::convert::swap_board_from_proto(hint.board.clone())
        .and_then(matchgrid::engine::StableBoard::try_from)
        .expect("a stable board");
    group.bench_function("hint_9x9_6c_engine_only", |b| {
        b.iter(|| black_box(matchgrid::engine::certain_outcomes(&board, false, 200).unwrap()))
    });

    // Time per element = time per game (a request of several games, the summary included).
    for (name, fast, games) in [
        ("simulate_greedy_20_moves_9x9_6c", true, 50),
        ("simulate_greedy_20_moves_9x9_6c_reference", false, 5),
    ] {
        let request = simulate_request(games);
        group.throughput(Throughput::Elements(u64::from(games)));
        group.bench_function(name, |b| {
            b.iter_batched(
                || request.clone(),
                |request| {
                    black_box(if fast {
                        rpc::simulate(request, None)
                    } else {
                        features::simulate_reference(request)
                    })
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench_features
}
criterion_main!(benches);
