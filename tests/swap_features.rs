//! SwapPuzzle.ReplayGame, Hint and Simulate (issue 9): the replay equals `ResolveCascade` calls
//! in sequence on random games of plain and level boards (property test, through the transport
//! functions), Hint's ranking checked by hand on a small board and against `NONE`-refill
//! cascades, Simulate's determinism and summary, and the RPCs end to end through the real
//! server (results, field errors, the limits).

mod common;
mod reference;

use reference::features;

use matchgrid::proto::{
    self, Board, ResolveCascadeRequest, SwapGenerateBoardRequest, SwapMove, SwapReplayGameRequest,
    SwapReplayGameResponse, swap_replay_game_request::Start,
};
use matchgrid::transport::{ServiceLimits, swap as rpc};
use proptest::prelude::*;
use tonic::{Code, Status};

use common::{TestServer, bad_request_fields, board, swap};

/// The `google.rpc.ErrorInfo` reason of a status; empty without one.
fn reason(status: &Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .error_info()
        .map(|i| i.reason.clone())
        .unwrap_or_default()
}

/// SHA-256 of the documented bytes, computed here independently of the server.
fn digest(board: &Board) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&board.width.to_le_bytes());
    bytes.extend_from_slice(&board.height.to_le_bytes());
    bytes.extend(board.cells.iter().map(|&c| c as u8));
    if !board.holes.is_empty() || !board.kinds.is_empty() {
        for i in 0..board.cells.len() {
            let hole = board.holes.get(i).copied().unwrap_or(false);
            let kind = board.kinds.get(i).copied().unwrap_or(0);
            bytes.push(if hole {
                255
            } else if kind == 1 {
                0
            } else {
                kind as u8
            });
        }
    }
    Sha256::digest(&bytes).to_vec()
}

use features::move_request as request;

/// The moves' ResolveCascade calls in sequence (the server's function, default limits), each on
/// the board the previous one returned, stopping at the first error: (responses, the error's
/// index and status, final board).
fn cascades_in_sequence(
    start: &Board,
    moves: &[SwapMove],
) -> (
    Vec<proto::ResolveCascadeResponse>,
    Option<(usize, Status)>,
    Board,
) {
    let mut board = start.clone();
    let mut responses = Vec::new();
    for (index, play) in moves.iter().enumerate() {
        match rpc::resolve_cascade_bounded(request(&board, play), ServiceLimits::default()) {
            Ok(response) => {
                board = response.board.clone().unwrap();
                responses.push(response);
            }
            Err(status) => return (responses, Some((index, status)), board),
        }
    }
    (responses, None, board)
}

/// The verdict a refusal is about: OUT_OF_BOUNDS for an off-board swap position (checked
/// before stability, so the board may be unstable), ValidateSwap's verdict on the refused swap
/// for ILLEGAL_SWAP, UNSPECIFIED otherwise.
fn expected_verdict(board: &Board, play: &SwapMove, status: &Status) -> i32 {
    if bad_request_fields(status)
        .iter()
        .any(|f| f == "swap.a" || f == "swap.b")
    {
        return proto::SwapVerdict::OutOfBounds as i32;
    }
    if reason(status) != "ILLEGAL_SWAP" {
        return proto::SwapVerdict::Unspecified as i32;
    }
    rpc::validate_swap(proto::ValidateSwapRequest {
        board: Some(board.clone()),
        swap: play.swap,
    })
    .unwrap()
    .verdict
}

fn check_replay_equals_cascades(
    start: &Board,
    moves: &[SwapMove],
    replay: &SwapReplayGameResponse,
) {
    let (responses, refused, final_board) = cascades_in_sequence(start, moves);
    assert_eq!(replay.moves.len(), responses.len());
    for ((m, r), play) in replay.moves.iter().zip(&responses).zip(moves) {
        assert_eq!(m.swap, play.swap);
        assert_eq!(m.score, r.total_score);
        assert_eq!(m.steps as usize, r.steps.len());
        assert_eq!(m.shuffled, r.shuffled);
        assert_eq!(m.dead, r.dead);
        assert_eq!(m.stable, r.stable);
        assert_eq!(m.valid_swap_count, r.valid_swap_count);
    }
    let total: u64 = responses.iter().map(|r| r.total_score).sum();
    assert_eq!(replay.total_score, total);
    assert_eq!(replay.board.as_ref(), Some(&final_board));
    assert_eq!(replay.board_digest, digest(&final_board));
    match (&replay.rejected, refused) {
        (None, None) => {}
        (Some(r), Some((index, status))) => {
            assert_eq!(r.index as usize, index);
            assert_eq!(r.swap, moves[index].swap);
            assert_eq!(r.code, status.code() as u32);
            assert_eq!(r.reason, reason(&status));
            assert_eq!(r.message, status.message());
            assert_eq!(
                r.verdict,
                expected_verdict(&final_board, &moves[index], &status)
            );
        }
        (replayed, sequential) => panic!(
            "rejection differs: replay {replayed:?}, sequence {:?}",
            sequential.map(|(i, s)| (i, s.code()))
        ),
    }
}

/// A start board: generated plain (mode 0), generated with holes (mode 1), or generated plain
/// and given kinds (mode 2); modes 1 and 2 then get specials sprinkled on random tiles
/// (striped, wrapped, or a colour bomb replacing the tile: the board stays stable).
fn start_board(
    width: u32,
    height: u32,
    colors: u32,
    seed: u64,
    mode: u8,
    hole_picks: &[u32],
    special_picks: &[(u32, i32)],
) -> Option<Board> {
    let cells = (width * height) as usize;
    let holes = if mode == 1 {
        let mut holes = vec![false; cells];
        for &pick in hole_picks {
            holes[pick as usize % cells] = true;
        }
        holes
    } else {
        Vec::new()
    };
    let mut board = rpc::generate_board(SwapGenerateBoardRequest {
        width,
        height,
        colors,
        seed,
        min_moves: Some(0),
        holes,
        layout: None,
    })
    .ok()?
    .board?;
    if mode == 0 {
        return Some(board);
    }
    if board.kinds.is_empty() {
        board.kinds = vec![0; cells];
    }
    for &(pick, kind) in special_picks {
        let i = pick as usize % cells;
        if board.holes.get(i).copied().unwrap_or(false) {
            continue;
        }
        if kind == proto::PieceKind::ColorBomb as i32 {
            board.cells[i] = 0;
        } else if board.cells[i] == 0 {
            continue;
        }
        board.kinds[i] = kind;
    }
    Some(board)
}

/// A move's options from random picks: mostly RANDOM refill with 3..=6 colours and the
/// default step limit; sometimes NONE refill, one colour (an endless cascade), a tiny
/// `max_steps`, auto_shuffle off, or an out-of-range field.
fn options(pick: u8, seed: u64) -> SwapMove {
    let mut play = SwapMove {
        swap: None,
        colors: 3 + u32::from(pick % 4),
        seed,
        refill: proto::RefillMode::Random as i32,
        auto_shuffle: None,
        max_steps: 0,
    };
    match pick / 4 {
        0 => play.refill = proto::RefillMode::None as i32,
        1 => play.colors = 1,
        2 => play.max_steps = 1,
        3 => play.auto_shuffle = Some(false),
        4 => play.colors = 17,
        5 => play.max_steps = 1001,
        _ => {}
    }
    play
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// On random plain and level boards (holes, striped, wrapped, bombs), with swaps mostly
    /// picked from CheckDeadState's list (sometimes any pair of cells, sometimes no swap) and
    /// random options, ReplayGame equals ResolveCascade calls in sequence: every move's fields,
    /// the total, the final board and its digest, and the first refusal's index, verdict, code,
    /// reason and message.
    #[test]
    fn replay_equals_cascades_in_sequence(
        width in 2u32..=9,
        height in 2u32..=9,
        colors in 2u32..=6,
        seed in any::<u64>(),
        mode in 0u8..3,
        hole_picks in proptest::collection::vec(any::<u32>(), 0..8),
        special_picks in proptest::collection::vec((any::<u32>(), 2i32..=5), 0..6),
        picks in proptest::collection::vec(
            (0u8..20, any::<prop::sample::Index>(), 0u32..10, 0u32..10, 0u8..4, 0u8..60, any::<u64>()),
            0..25,
        ),
    ) {
        let start = start_board(width, height, colors, seed, mode, &hole_picks, &special_picks);
        prop_assume!(start.is_some());
        let start = start.unwrap();
        let mut board = start.clone();
        let mut moves = Vec::new();
        for (kind, index, row, col, direction, option, move_seed) in picks {
            let mut play = options(option, move_seed);
            let listed = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
                board: Some(board.clone()),
            }).map(|r| r.valid_swaps).unwrap_or_default();
            play.swap = if kind < 16 && !listed.is_empty() {
                Some(listed[index.index(listed.len())])
            } else if kind < 19 {
                let (dr, dc) = [(0, 1), (1, 0), (1, 1), (0, 2)][direction as usize];
                Some(swap((row, col), (row + dr, col + dc)))
            } else {
                None
            };
            if let Ok(r) = rpc::resolve_cascade_bounded(request(&board, &play), ServiceLimits::default()) {
                board = r.board.unwrap();
            }
            moves.push(play);
        }
        let replay = rpc::replay_game(
            SwapReplayGameRequest { start: Some(Start::Board(start.clone())), moves: moves.clone(), level: None, level_seed: 0 },
            ServiceLimits::default(),
        ).unwrap();
        check_replay_equals_cascades(&start, &moves, &replay);
    }
}

fn plain_move(a: (u32, u32), b: (u32, u32), seed: u64) -> SwapMove {
    SwapMove {
        swap: Some(swap(a, b)),
        colors: 4,
        seed,
        ..Default::default()
    }
}

/// A hand-checked replay: the rules' example swap scores 60 (two groups of three at step 1),
/// then a non-adjacent swap is refused with its verdict, and nothing after it is applied.
#[test]
fn replay_reports_the_first_refused_move() {
    let start = board("RRG/GGR");
    let moves = vec![
        SwapMove {
            refill: proto::RefillMode::None as i32,
            ..plain_move((0, 2), (1, 2), 1)
        },
        plain_move((0, 0), (1, 1), 2),
        plain_move((0, 0), (0, 1), 3),
    ];
    let replay = rpc::replay_game(
        SwapReplayGameRequest {
            start: Some(Start::Board(start.clone())),
            moves: moves.clone(),
            level: None,
            level_seed: 0,
        },
        ServiceLimits::default(),
    )
    .unwrap();
    assert_eq!(replay.moves.len(), 1);
    assert_eq!(replay.moves[0].score, 60);
    assert_eq!(replay.moves[0].steps, 1);
    assert!(!replay.moves[0].stable);
    assert_eq!(replay.total_score, 60);
    let rejected = replay.rejected.clone().unwrap();
    assert_eq!(rejected.index, 1);
    // The board is empty after the NONE-refill clear: the next swap finds an unstable board.
    assert_eq!(rejected.code, Code::FailedPrecondition as u32);
    assert_eq!(rejected.reason, "UNSTABLE_BOARD");
    assert_eq!(rejected.verdict, proto::SwapVerdict::Unspecified as i32);
    check_replay_equals_cascades(&start, &moves, &replay);

    // On a stable board, a diagonal swap is ILLEGAL_SWAP with its verdict.
    let start = board("RGB/GBR/BRG");
    let moves = vec![plain_move((0, 0), (1, 1), 1), plain_move((0, 0), (0, 1), 2)];
    let replay = rpc::replay_game(
        SwapReplayGameRequest {
            start: Some(Start::Board(start.clone())),
            moves: moves.clone(),
            level: None,
            level_seed: 0,
        },
        ServiceLimits::default(),
    )
    .unwrap();
    let rejected = replay.rejected.clone().unwrap();
    assert_eq!(
        (rejected.index, rejected.verdict, rejected.reason.as_str()),
        (0, proto::SwapVerdict::NotAdjacent as i32, "ILLEGAL_SWAP")
    );
    assert_eq!(replay.moves, vec![]);
    assert_eq!(replay.board, Some(start.clone()));
    assert_eq!(replay.board_digest, digest(&start));
    check_replay_equals_cascades(&start, &moves, &replay);
}

/// ReplayGame end to end: a generated start comes back as `start_board`, the move limit and a
/// missing start are INVALID_ARGUMENT naming the field.
#[tokio::test]
async fn replay_game_over_grpc() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let generate = SwapGenerateBoardRequest {
        width: 8,
        height: 8,
        colors: 5,
        seed: 11,
        ..Default::default()
    };
    let generated = rpc::generate_board(generate.clone())
        .unwrap()
        .board
        .unwrap();
    let first = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
        board: Some(generated.clone()),
    })
    .unwrap()
    .valid_swaps[0];
    let moves = vec![SwapMove {
        swap: Some(first),
        colors: 5,
        seed: 3,
        ..Default::default()
    }];
    let replay = client
        .replay_game(SwapReplayGameRequest {
            start: Some(Start::Generate(generate)),
            moves: moves.clone(),
            level: None,
            level_seed: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replay.start_board.as_ref(), Some(&generated));
    assert_eq!(replay.rejected, None);
    assert!(replay.moves[0].score >= 30);
    check_replay_equals_cascades(&generated, &moves, &replay);

    let too_many = client
        .replay_game(SwapReplayGameRequest {
            start: Some(Start::Board(generated.clone())),
            moves: vec![SwapMove::default(); rpc::MAX_REPLAY_MOVES + 1],
            level: None,
            level_seed: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(too_many.code(), Code::InvalidArgument);
    assert_eq!(bad_request_fields(&too_many), vec!["moves".to_owned()]);
    let no_start = client
        .replay_game(SwapReplayGameRequest {
            start: None,
            moves,
            level: None,
            level_seed: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(no_start.code(), Code::InvalidArgument);
    assert_eq!(bad_request_fields(&no_start), vec!["start".to_owned()]);
}

fn hint_of(
    board: &Board,
    top_n: u32,
    samples: u32,
    seed: u64,
) -> Result<proto::SwapHintResponse, Status> {
    rpc::hint(
        proto::SwapHintRequest {
            board: Some(board.clone()),
            top_n,
            samples,
            seed,
            colors: 4,
            max_steps: 0,
        },
        None,
    )
}

/// A hand-checked ranking. On
///
/// ```text
/// R G R R
/// B R B B
/// G B G G
/// ```
///
/// the two vertical swaps in column 1 each make a run of four (40 points, 4 cells), the three
/// horizontal swaps in column 0-1 each a run of three (30 points, 3 cells); no other swap is
/// valid. Ties keep row-major order by a, then b.
#[test]
fn hint_ranks_a_small_board_as_checked_by_hand() {
    let start = board("RGRR/BRBB/GBGG");
    let hints = hint_of(&start, 0, 0, 0).unwrap();
    let got: Vec<_> = hints
        .hints
        .iter()
        .map(|h| {
            let s = h.swap.unwrap();
            let (a, b) = (s.a.unwrap(), s.b.unwrap());
            ((a.row, a.col), (b.row, b.col), h.score, h.cleared, h.steps)
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ((0, 1), (1, 1), 40, 4, 1),
            ((1, 1), (2, 1), 40, 4, 1),
            ((0, 0), (0, 1), 30, 3, 1),
            ((1, 0), (1, 1), 30, 3, 1),
            ((2, 0), (2, 1), 30, 3, 1),
        ]
    );
    assert_eq!(hints.valid_swap_count, 5);
    assert!(
        hints
            .hints
            .iter()
            .all(|h| h.specials_created == 0 && h.mean_sampled_score == 0.0)
    );
    // top_n keeps the head of the ranking; the count stays the whole list's.
    let top = hint_of(&start, 2, 0, 0).unwrap();
    assert_eq!(top.hints, hints.hints[..2].to_vec());
    assert_eq!(top.valid_swap_count, 5);
    // Samples: the mean of ResolveCascade with seed + i (wrapping), computed here.
    let seed = u64::MAX - 1;
    let sampled = hint_of(&start, 1, 3, seed).unwrap();
    let mut sum = 0u64;
    for i in 0..3u64 {
        sum += rpc::resolve_cascade(ResolveCascadeRequest {
            board: Some(start.clone()),
            swap: hints.hints[0].swap,
            colors: 4,
            seed: seed.wrapping_add(i),
            refill: proto::RefillMode::Random as i32,
            ..Default::default()
        })
        .unwrap()
        .total_score;
    }
    assert_eq!(sampled.hints[0].mean_sampled_score, sum as f64 / 3.0);
    assert!(sampled.hints[0].mean_sampled_score >= 40.0);
    assert_eq!(sampled, hint_of(&start, 1, 3, seed).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// On random plain and level boards, Hint lists exactly CheckDeadState's valid swaps (with
    /// their combinations), each with what a NONE-refill ResolveCascade of it gives, in the
    /// documented order.
    #[test]
    fn hint_is_the_none_refill_cascade_of_every_valid_swap(
        width in 2u32..=8,
        height in 2u32..=8,
        colors in 3u32..=6,
        seed in any::<u64>(),
        mode in 0u8..3,
        hole_picks in proptest::collection::vec(any::<u32>(), 0..6),
        special_picks in proptest::collection::vec((any::<u32>(), 2i32..=5), 0..6),
    ) {
        let start = start_board(width, height, colors, seed, mode, &hole_picks, &special_picks);
        prop_assume!(start.is_some());
        let start = start.unwrap();
        let listed = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
            board: Some(start.clone()),
        }).unwrap();
        let hints = hint_of(&start, 0, 0, 0).unwrap();
        prop_assert_eq!(hints.valid_swap_count as usize, listed.valid_swaps.len());
        let mut expected = Vec::new();
        for (i, swap) in listed.valid_swaps.iter().enumerate() {
            let r = rpc::resolve_cascade(ResolveCascadeRequest {
                board: Some(start.clone()),
                swap: Some(*swap),
                refill: proto::RefillMode::None as i32,
                ..Default::default()
            }).unwrap();
            let cleared: usize = r.steps.iter()
                .map(|s| s.groups.iter().map(|g| g.cells.len()).sum::<usize>() + s.effect_cleared.len())
                .sum();
            let created: usize = r.steps.iter().map(|s| s.created.len()).sum();
            expected.push(proto::SwapHint {
                swap: Some(*swap),
                combination: listed.combinations.get(i).copied().unwrap_or(0),
                score: r.total_score,
                cleared: cleared as u32,
                specials_created: created as u32,
                steps: r.steps.len() as u32,
                mean_sampled_score: 0.0,
            });
        }
        // Row-major order is CheckDeadState's; a stable sort by the keys gives the ranking.
        expected.sort_by_key(|h| std::cmp::Reverse((h.score, h.cleared, h.specials_created)));
        prop_assert_eq!(hints.hints, expected);
    }
}

/// Hint end to end: the ranking over gRPC, and the sampling bounds naming `samples`.
#[tokio::test]
async fn hint_over_grpc() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let start = board("RGRR/BRBB/GBGG");
    let request = proto::SwapHintRequest {
        board: Some(start.clone()),
        top_n: 1,
        samples: 2,
        seed: 5,
        colors: 4,
        max_steps: 0,
    };
    let reply = client.hint(request.clone()).await.unwrap().into_inner();
    assert_eq!(reply, hint_of(&start, 1, 2, 5).unwrap());
    assert_eq!(reply.hints[0].score, 40);
    for samples in [rpc::MAX_HINT_SAMPLES + 1, 50_000] {
        let refused = client
            .hint(proto::SwapHintRequest {
                samples,
                ..request.clone()
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert_eq!(bad_request_fields(&refused), vec!["samples".to_owned()]);
    }
    // Past samples x valid swaps = 100000 with samples itself in range.
    let big = rpc::generate_board(SwapGenerateBoardRequest {
        width: 16,
        height: 16,
        colors: 4,
        seed: 1,
        ..Default::default()
    })
    .unwrap();
    let samples = 100_000 / big.valid_swap_count + 1;
    assert!(samples <= rpc::MAX_HINT_SAMPLES, "{samples}");
    let refused = client
        .hint(proto::SwapHintRequest {
            board: big.board,
            samples,
            ..request.clone()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_request_fields(&refused), vec!["samples".to_owned()]);
    let no_colors = client
        .hint(proto::SwapHintRequest {
            colors: 0,
            ..request
        })
        .await
        .unwrap_err();
    assert_eq!(bad_request_fields(&no_colors), vec!["colors".to_owned()]);
}

fn simulate_request(
    start: &Board,
    games: u32,
    moves: u32,
    seed: u64,
    policy: proto::SwapPolicy,
) -> proto::SwapSimulateRequest {
    proto::SwapSimulateRequest {
        start: Some(proto::swap_simulate_request::Start::Board(start.clone())),
        games,
        moves,
        seed,
        policy: policy as i32,
        colors: 4,
        max_steps: 0,
        level: None,
        level_policy: 0,
        search_candidates: 0,
        search_rollouts: 0,
        search_depth: None,
    }
}

/// Simulate's games replayed here from the documented derivation (game g's ChaCha8 seeded
/// with seed + g, the policy's pick, then `next_u64()` as the move's ResolveCascade seed):
/// (score, moves, steps, shuffles, dead) per game.
fn simulate_by_hand(
    request: &proto::SwapSimulateRequest,
    start: &Board,
) -> Vec<(u64, u64, u64, u64, bool)> {
    use rand::{Rng, RngCore};
    (0..request.games)
        .map(|g| {
            let mut rng = matchgrid::engine::rng_from_seed(request.seed.wrapping_add(u64::from(g)));
            let mut board = start.clone();
            let (mut score, mut moves, mut steps, mut shuffles, mut dead) = (0, 0, 0, 0, false);
            for _ in 0..request.moves {
                let listed = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
                    board: Some(board.clone()),
                })
                .unwrap()
                .valid_swaps;
                if listed.is_empty() {
                    dead = true;
                    break;
                }
                let swap = if request.policy == proto::SwapPolicy::Random as i32 {
                    listed[rng.random_range(0..listed.len())]
                } else {
                    hint_of(&board, 1, 0, 0).unwrap().hints[0].swap.unwrap()
                };
                let r = rpc::resolve_cascade(ResolveCascadeRequest {
                    board: Some(board.clone()),
                    swap: Some(swap),
                    colors: request.colors,
                    seed: rng.next_u64(),
                    refill: proto::RefillMode::Random as i32,
                    auto_shuffle: Some(true),
                    ..Default::default()
                })
                .unwrap();
                score += r.total_score;
                moves += 1;
                steps += r.steps.len() as u64;
                shuffles += u64::from(r.shuffled);
                board = r.board.unwrap();
                if r.dead {
                    dead = true;
                    break;
                }
            }
            (score, moves, steps, shuffles, dead)
        })
        .collect()
}

/// Simulate equals the documented derivation game by game, for both policies, and its summary
/// is the documented statistics of the games (nearest-rank percentiles).
#[test]
fn simulate_follows_the_documented_derivation() {
    let start = rpc::generate_board(SwapGenerateBoardRequest {
        width: 6,
        height: 6,
        colors: 4,
        seed: 3,
        ..Default::default()
    })
    .unwrap()
    .board
    .unwrap();
    for policy in [proto::SwapPolicy::Random, proto::SwapPolicy::HintGreedy] {
        let request = simulate_request(&start, 12, 8, u64::MAX - 3, policy);
        let reply = rpc::simulate(request.clone(), None).unwrap();
        let games = simulate_by_hand(&request, &start);
        let scores: Vec<u64> = games.iter().map(|g| g.0).collect();
        assert_eq!(reply.game_scores, scores);
        let moves: u64 = games.iter().map(|g| g.1).sum();
        let steps: u64 = games.iter().map(|g| g.2).sum();
        assert_eq!(reply.moves_played, moves);
        assert_eq!(reply.shuffles, games.iter().map(|g| g.3).sum::<u64>());
        assert_eq!(
            reply.dead_games as usize,
            games.iter().filter(|g| g.4).count()
        );
        assert_eq!(reply.mean_cascade_depth, steps as f64 / moves as f64);
        assert!(reply.mean_cascade_depth >= 1.0);
        let mut sorted = scores.clone();
        sorted.sort_unstable();
        // N = 12: ranks ceil(1.2) = 2, ceil(6) = 6, ceil(10.8) = 11.
        assert_eq!(reply.p10_score, sorted[1]);
        assert_eq!(reply.p50_score, sorted[5]);
        assert_eq!(reply.p90_score, sorted[10]);
        assert_eq!((reply.min_score, reply.max_score), (sorted[0], sorted[11]));
        assert_eq!(reply.mean_score, scores.iter().sum::<u64>() as f64 / 12.0);
        assert_eq!(reply, rpc::simulate(request, None).unwrap());
    }
    // Greedy play scores at least 30 a move here (every move clears a run).
    let greedy = rpc::simulate(
        simulate_request(&start, 3, 5, 1, proto::SwapPolicy::HintGreedy),
        None,
    )
    .unwrap();
    assert!(
        greedy.game_scores.iter().all(|&s| s >= 150),
        "{:?}",
        greedy.game_scores
    );
}

/// A dead start board: every game is dead at once and plays nothing.
#[test]
fn simulate_counts_dead_games() {
    let reply = rpc::simulate(
        simulate_request(&board("RG"), 5, 10, 0, proto::SwapPolicy::Random),
        None,
    )
    .unwrap();
    assert_eq!(reply.dead_games, 5);
    assert_eq!(reply.moves_played, 0);
    assert_eq!(reply.game_scores, vec![0; 5]);
    assert_eq!(reply.mean_cascade_depth, 0.0);
}

/// Simulate end to end: a generated start, and the limits naming the field beyond.
#[tokio::test]
async fn simulate_over_grpc() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let generate = SwapGenerateBoardRequest {
        width: 7,
        height: 7,
        colors: 5,
        seed: 2,
        ..Default::default()
    };
    let request = proto::SwapSimulateRequest {
        start: Some(proto::swap_simulate_request::Start::Generate(
            generate.clone(),
        )),
        games: 4,
        moves: 6,
        seed: 8,
        policy: proto::SwapPolicy::HintGreedy as i32,
        colors: 0,
        max_steps: 0,
        level: None,
        level_policy: 0,
        search_candidates: 0,
        search_rollouts: 0,
        search_depth: None,
    };
    let reply = client.simulate(request.clone()).await.unwrap().into_inner();
    let start = rpc::generate_board(generate).unwrap().board.unwrap();
    assert_eq!(reply.start_board.as_ref(), Some(&start));
    let mut by_board = simulate_request(&start, 4, 6, 8, proto::SwapPolicy::HintGreedy);
    by_board.colors = 5;
    let expected = rpc::simulate(by_board, None).unwrap();
    assert_eq!(reply.game_scores, expected.game_scores);
    for (games, moves, field) in [
        (1001, 1, "games"),
        (0, 1, "games"),
        (1, 1001, "moves"),
        (1000, 101, "moves"),
    ] {
        let refused = client
            .simulate(proto::SwapSimulateRequest {
                games,
                moves,
                ..request.clone()
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert_eq!(bad_request_fields(&refused), vec![field.to_owned()]);
    }
}

/// A simulation (or sampled hint) whose deadline has passed, or whose call was cancelled,
/// stops with DEADLINE_EXCEEDED, reason WORK_DEADLINE.
#[test]
fn long_work_honours_the_deadline_and_cancellation() {
    use matchgrid::transport::SearchContext;
    let start = board("RGRR/BRBB/GBGG");
    let past = SearchContext {
        deadline: Some(std::time::Instant::now()),
        cancel: Default::default(),
        progress: None,
    };
    let cancelled = SearchContext {
        deadline: None,
        cancel: std::sync::Arc::new(true.into()),
        progress: None,
    };
    for context in [&past, &cancelled] {
        let stopped = rpc::simulate(
            simulate_request(&start, 10, 10, 0, proto::SwapPolicy::Random),
            Some(context),
        )
        .unwrap_err();
        assert_eq!(stopped.code(), Code::DeadlineExceeded);
        assert_eq!(reason(&stopped), "WORK_DEADLINE");
        let request = proto::SwapHintRequest {
            board: Some(start.clone()),
            samples: 4,
            colors: 4,
            ..Default::default()
        };
        let stopped = rpc::hint(request, Some(context)).unwrap_err();
        assert_eq!(reason(&stopped), "WORK_DEADLINE");
    }
}

/// The same result, or the same status (code, message, details), from two paths.
fn assert_same<T: PartialEq + std::fmt::Debug>(
    fast: Result<T, Status>,
    reference: Result<T, Status>,
) {
    match (fast, reference) {
        (Ok(fast), Ok(reference)) => assert_eq!(fast, reference),
        (Err(fast), Err(reference)) => {
            assert_eq!(fast.code(), reference.code());
            assert_eq!(fast.message(), reference.message());
            assert_eq!(fast.details(), reference.details());
        }
        (fast, reference) => panic!("paths differ: fast {fast:?}, reference {reference:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On random boards with and without layers (holes, specials), ReplayGame answers exactly
    /// what the ResolveCascade calls in sequence do: moves mostly valid swaps, some NONE refills
    /// (unstable boards, then moves without a swap or refused swaps), tiny step limits, bad
    /// options, and reply limits from a few hundred bytes (reply-size refusals) to the default.
    #[test]
    fn replay_equals_the_reference(
        width in 2u32..=9,
        height in 2u32..=9,
        colors in 2u32..=6,
        seed in any::<u64>(),
        mode in 0u8..3,
        hole_picks in proptest::collection::vec(0u32..81, 0..8),
        special_picks in proptest::collection::vec((0u32..81, 2i32..=5), 0..8),
        limit_pick in 0u32..4,
        limit_bytes in 100usize..20_000,
        picks in proptest::collection::vec(
            (0u8..20, any::<prop::sample::Index>(), 0u32..10, 0u32..10, 0u8..4, 0u8..40, any::<u64>()),
            0..30,
        ),
    ) {
        let start = start_board(width, height, colors, seed, mode, &hole_picks, &special_picks);
        prop_assume!(start.is_some());
        let start = start.unwrap();
        let limits = ServiceLimits {
            max_response_bytes: if limit_pick == 0 { limit_bytes } else { ServiceLimits::default().max_response_bytes },
            ..ServiceLimits::default()
        };
        let mut board = start.clone();
        let mut moves = Vec::new();
        for (kind, index, row, col, direction, option, move_seed) in picks {
            let mut play = options(option, move_seed);
            let listed = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
                board: Some(board.clone()),
            }).map(|r| r.valid_swaps).unwrap_or_default();
            play.swap = if kind < 15 && !listed.is_empty() {
                Some(listed[index.index(listed.len())])
            } else if kind < 18 {
                let (dr, dc) = [(0, 1), (1, 0), (1, 1), (0, 2)][direction as usize];
                Some(swap((row, col), (row + dr, col + dc)))
            } else {
                None
            };
            if let Ok(r) = rpc::resolve_cascade_bounded(request(&board, &play), limits) {
                board = r.board.unwrap();
            }
            moves.push(play);
        }
        for generate in [false, true] {
            let start = if generate {
                Start::Generate(SwapGenerateBoardRequest {
                    width, height, colors, seed, min_moves: Some(0), holes: start.holes.clone(), layout: None,
                })
            } else {
                Start::Board(start.clone())
            };
            let request = SwapReplayGameRequest { start: Some(start), moves: moves.clone(), level: None, level_seed: 0 };
            let fast = rpc::replay_game(request.clone(), limits);
            let reference = features::replay_game_reference(request, limits);
            prop_assert_eq!(fast, reference);
        }
    }

    /// On random boards with and without layers (holes, specials), Hint on the engine equals
    /// Hint rebuilt from ResolveCascade and CheckDeadState: the ranking, top_n, sampled means,
    /// and the errors (a step limit some cascades pass).
    #[test]
    fn hint_equals_the_reference(
        width in 2u32..=9,
        height in 2u32..=9,
        colors in 2u32..=6,
        seed in any::<u64>(),
        mode in 0u8..3,
        hole_picks in proptest::collection::vec(0u32..81, 0..8),
        special_picks in proptest::collection::vec((0u32..81, 2i32..=5), 0..8),
        top_n in 0u32..4,
        samples in 0u32..4,
        sample_seed in any::<u64>(),
        sample_colors in 1u32..=6,
        max_steps in prop::sample::select(vec![0u32, 1, 2, 3, 1000]),
    ) {
        let start = start_board(width, height, colors, seed, mode, &hole_picks, &special_picks);
        prop_assume!(start.is_some());
        let request = proto::SwapHintRequest {
            board: start,
            top_n,
            samples,
            seed: sample_seed,
            colors: sample_colors,
            max_steps,
        };
        assert_same(rpc::hint(request.clone(), None), features::hint_reference(request));
    }

    /// On random boards with and without layers, Simulate on the engine equals Simulate rebuilt
    /// from ResolveCascade and CheckDeadState for both policies: every game's score and the
    /// summary, and the errors (tiny step limits).
    #[test]
    fn simulate_equals_the_reference(
        width in 2u32..=8,
        height in 2u32..=8,
        colors in 2u32..=6,
        seed in any::<u64>(),
        mode in 0u8..3,
        hole_picks in proptest::collection::vec(0u32..64, 0..6),
        special_picks in proptest::collection::vec((0u32..64, 2i32..=5), 0..6),
        games in 1u32..5,
        moves in 1u32..12,
        sim_seed in any::<u64>(),
        sim_colors in 0u32..=6,
        random_policy in any::<bool>(),
        max_steps in prop::sample::select(vec![0u32, 1, 2, 5]),
        generate in any::<bool>(),
    ) {
        let start = start_board(width, height, colors, seed, mode, &hole_picks, &special_picks);
        prop_assume!(start.is_some());
        let holes = start.as_ref().map(|board| board.holes.clone()).unwrap_or_default();
        let start = if generate && mode != 2 {
            proto::swap_simulate_request::Start::Generate(SwapGenerateBoardRequest {
                width, height, colors, seed, min_moves: Some(0), holes, layout: None,
            })
        } else {
            proto::swap_simulate_request::Start::Board(start.unwrap())
        };
        let request = proto::SwapSimulateRequest {
            start: Some(start),
            games,
            moves,
            seed: sim_seed,
            policy: if random_policy { proto::SwapPolicy::Random } else { proto::SwapPolicy::HintGreedy } as i32,
            colors: sim_colors,
            max_steps, level: None, level_policy: 0, search_candidates: 0, search_rollouts: 0, search_depth: None,
        };
        assert_same(rpc::simulate(request.clone(), None), features::simulate_reference(request));
    }
}
