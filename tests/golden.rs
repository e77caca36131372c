//! Determinism pinned (docs/rules.md section 1): fixed requests whose exact responses are stored here as
//! literals. The values were produced once by the server and then checked by hand (and by the
//! independent reference in `tests/reference`) against the rules; any change to generation, refill,
//! shuffle or the RNG stream shows up here. Each request is also sent twice to one server and
//! once to a second server process, and the encoded response bytes must be identical.
mod api_support;
mod common;
mod reference;

use common::{TestServer, board, level, level_text, swap, text};
use matchgrid::proto::{
    Board, CollapseCheckDeadStateRequest, CollapseGenerateBoardRequest, CollapseSolveRequest,
    RefillMode, ResolveCascadeRequest, ResolveCascadeResponse, ShuffleRequest, SolveMethod,
    SolveSchedule, SwapCheckDeadStateRequest, SwapGenerateBoardRequest, TapRequest,
};
use prost::Message;
use reference::Cell;
use reference::collapse::Rule;
use reference::convert::{cell, grid, groups_of, spawns_of, swaps_of};

/// Sends `request` twice to `first` and once to `second`; the three encodings must be equal.
macro_rules! same_bytes_everywhere {
    ($first:expr, $second:expr, $method:ident, $request:expr) => {{
        let request = $request;
        let one = $first.$method(request.clone()).await.unwrap().into_inner();
        let two = $first.$method(request.clone()).await.unwrap().into_inner();
        let other = $second.$method(request).await.unwrap().into_inner();
        let bytes = one.encode_to_vec();
        assert!(!bytes.is_empty());
        assert_eq!(two.encode_to_vec(), bytes, "second call, same server");
        assert_eq!(other.encode_to_vec(), bytes, "another server process");
        one
    }};
}

fn board_text(b: &Option<Board>) -> String {
    text(b.as_ref().expect("board"))
}

// ---------------------------------------------------------------------------------------------
// SwapPuzzle
// ---------------------------------------------------------------------------------------------

const GENERATED_9X9: &str = "RRGGBPRPR/YPBGRGOBB/BOBBPBYYO/GBYGYPGOR/PGRGGYGPB/RRGYGYYGO/\
                             PRRGYORPB/BOYBBRBGY/YGGROYYBR";

#[tokio::test]
async fn golden_swap_generate_board_9x9_6_colours_seed_7() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let response = same_bytes_everywhere!(
        first,
        second,
        generate_board,
        SwapGenerateBoardRequest {
            width: 9,
            height: 9,
            colors: 6,
            seed: 7,
            min_moves: Some(3),
            ..Default::default()
        }
    );
    assert_eq!(board_text(&response.board), GENERATED_9X9);
    assert_eq!(response.valid_swap_count, 23);
    // Checked against the rules: stable, colours 1..=6, the 23 moves the reference finds.
    let generated = response.board.unwrap();
    assert!(reference::swap::is_stable(&grid(&generated)));
    assert!(generated.cells.iter().all(|&c| (1..=6).contains(&c)));
    assert_eq!(reference::swap::valid_swaps(&grid(&generated)).len(), 23);

    let listed = same_bytes_everywhere!(
        first,
        second,
        check_dead_state,
        SwapCheckDeadStateRequest {
            board: Some(generated.clone()),
        }
    );
    let pairs = swaps_of(&listed.valid_swaps);
    let expected: Vec<(Cell, Cell)> = [
        (1, 3, 2, 3),
        (2, 0, 2, 1),
        (2, 1, 3, 1),
        (2, 3, 3, 3),
        (2, 4, 2, 5),
        (3, 1, 3, 2),
        (3, 3, 3, 4),
        (3, 4, 3, 5),
        (4, 1, 4, 2),
        (4, 2, 5, 2),
        (4, 3, 5, 3),
        (4, 5, 4, 6),
        (5, 0, 6, 0),
        (5, 1, 5, 2),
        (5, 2, 5, 3),
        (5, 2, 6, 2),
        (5, 3, 5, 4),
        (5, 3, 6, 3),
        (5, 4, 6, 4),
        (5, 6, 5, 7),
        (6, 3, 6, 4),
        (6, 4, 6, 5),
        (7, 5, 7, 6),
    ]
    .iter()
    .map(|&(r1, c1, r2, c2)| ((r1, c1), (r2, c2)))
    .collect();
    assert_eq!(pairs, expected);
    assert_eq!(pairs, reference::swap::valid_swaps(&grid(&generated)));
    assert!(!listed.dead);
}

#[tokio::test]
async fn golden_resolve_cascade_random_refill_four_steps() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let start = "RBBRYG/YRYBGY/GRBRBG/YGBYGY/GGRBYY/RRBRRB";
    let request = ResolveCascadeRequest {
        board: Some(board(start)),
        swap: Some(swap((0, 0), (0, 1))),
        colors: 4,
        seed: 2,
        refill: RefillMode::Random as i32,
        include_step_boards: true,
        ..Default::default()
    };
    let response: ResolveCascadeResponse =
        same_bytes_everywhere!(first, second, resolve_cascade, request.clone());
    // Without include_step_boards the steps are the same but carry no boards.
    let lean = a
        .swap_client()
        .await
        .resolve_cascade(ResolveCascadeRequest {
            include_step_boards: false,
            ..request
        })
        .await
        .unwrap()
        .into_inner();
    assert!(lean.steps.iter().all(|step| step.board.is_none()));
    let mut stripped = response.clone();
    stripped.steps.iter_mut().for_each(|step| step.board = None);
    assert_eq!(lean, stripped);

    type Step = (Vec<(u32, Vec<Cell>)>, Vec<(Cell, u32)>, u64, &'static str);
    let expected: [Step; 4] = [
        (
            vec![(1, vec![(0, 1), (1, 1), (2, 1)])],
            vec![((0, 1), 1), ((1, 1), 4), ((2, 1), 3)],
            30,
            "BRBRYG/YYYBGY/GBBRBG/YGBYGY/GGRBYY/RRBRRB",
        ),
        (
            vec![(4, vec![(1, 0), (1, 1), (1, 2)])],
            vec![((0, 0), 3), ((0, 1), 1), ((0, 2), 4)],
            60,
            "BRYRYG/BRBBGY/GBBRBG/YGBYGY/GGRBYY/RRBRRB",
        ),
        (
            vec![(3, vec![(1, 2), (2, 2), (3, 2)])],
            vec![((0, 2), 1), ((1, 2), 4), ((2, 2), 1)],
            90,
            "BRRRYG/BRYBGY/GBRRBG/YGYYGY/GGRBYY/RRBRRB",
        ),
        (
            vec![(1, vec![(0, 1), (0, 2), (0, 3)])],
            vec![((0, 1), 1), ((0, 2), 4), ((0, 3), 3)],
            120,
            "BRYBYG/BRYBGY/GBRRBG/YGYYGY/GGRBYY/RRBRRB",
        ),
    ];
    assert_eq!(response.steps.len(), expected.len());
    for (k, (step, (groups, spawns, score, after))) in
        response.steps.iter().zip(expected.iter()).enumerate()
    {
        assert_eq!(step.index as usize, k + 1);
        assert_eq!(&groups_of(&step.groups), groups, "step {}", k + 1);
        assert_eq!(&spawns_of(&step.spawns), spawns, "step {}", k + 1);
        assert_eq!(step.score, *score, "step {}", k + 1);
        assert_eq!(board_text(&step.board), *after, "step {}", k + 1);
    }
    let falls: Vec<usize> = response.steps.iter().map(|s| s.falls.len()).collect();
    assert_eq!(falls, vec![0, 3, 1, 0]);
    assert_eq!(
        board_text(&response.board),
        "BRYBYG/BRYBGY/GBRRBG/YGYYGY/GGRBYY/RRBRRB"
    );
    assert_eq!(response.total_score, 300);
    assert!(response.stable && !response.dead && !response.shuffled);
    assert_eq!(response.valid_swap_count, 15);
    let last = response.board.as_ref().unwrap();
    assert!(reference::swap::is_stable(&grid(last)));
    assert_eq!(reference::swap::valid_swaps(&grid(last)).len(), 15);
}

/// docs/rules.md section 1: one RNG stream advances across the whole call, never re-seeded per step. The
/// spawn colours of all steps, in order, are consecutive draws of the seed's stream (the
/// engine's documented generator, `rng_from_seed`, drawing uniformly from `1..=colors`).
#[tokio::test]
async fn golden_refill_draws_one_stream_across_steps() {
    use rand::Rng;
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let request = ResolveCascadeRequest {
        board: Some(board("RBBRYG/YRYBGY/GRBRBG/YGBYGY/GGRBYY/RRBRRB")),
        swap: Some(swap((0, 0), (0, 1))),
        colors: 4,
        seed: 2,
        refill: RefillMode::Random as i32,
        ..Default::default()
    };
    let response = client.resolve_cascade(request).await.unwrap().into_inner();
    let drawn: Vec<u32> = response
        .steps
        .iter()
        .flat_map(|s| s.spawns.iter().map(|x| x.color))
        .collect();
    assert_eq!(drawn.len(), 12);
    let mut rng = matchgrid::engine::rng_from_seed(2);
    let stream: Vec<u32> = (0..drawn.len())
        .map(|_| u32::from(rng.random_range(1..=4u8)))
        .collect();
    assert_eq!(drawn, stream);
}

#[tokio::test]
async fn golden_resolve_cascade_on_the_generated_board() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let response = same_bytes_everywhere!(
        first,
        second,
        resolve_cascade,
        ResolveCascadeRequest {
            board: Some(board(GENERATED_9X9)),
            swap: Some(swap((1, 3), (2, 3))),
            colors: 6,
            seed: 2024,
            refill: RefillMode::Random as i32,
            ..Default::default()
        }
    );
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert_eq!(
        groups_of(&step.groups),
        vec![(2, vec![(2, 3), (3, 3), (4, 3)])]
    );
    assert_eq!(
        spawns_of(&step.spawns),
        vec![((0, 3), 5), ((1, 3), 2), ((2, 3), 6)]
    );
    assert_eq!(step.score, 30);
    let after = "RRGPBPRPR/YPBGRGOBB/BOBOPBYYO/GBYGYPGOR/PGRBGYGPB/RRGYGYYGO/PRRGYORPB/\
                 BOYBBRBGY/YGGROYYBR";
    assert_eq!(board_text(&response.board), after);
    assert_eq!(response.total_score, 30);
    assert_eq!(response.valid_swap_count, 16);
    assert!(response.stable && !response.shuffled);
    assert_eq!(
        reference::swap::valid_swaps(&grid(response.board.as_ref().unwrap())).len(),
        16
    );
}

#[tokio::test]
async fn golden_shuffles() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    for (input, seed, output, moves) in [
        ("RGB/GBR/BRG", 7, "RGB/BGR/RBG", 1),
        (
            "RRRRGG/GGGBBB/BBYYYY/RRGGBB",
            42,
            "BYGGRR/GBBRBY/YGBRGR/GRGBYB",
            7,
        ),
    ] {
        let response = same_bytes_everywhere!(
            first,
            second,
            shuffle,
            ShuffleRequest {
                board: Some(board(input)),
                seed,
            }
        );
        assert_eq!(board_text(&response.board), output, "{input} seed {seed}");
        assert_eq!(response.valid_swap_count, moves, "{input} seed {seed}");
        let out = board(output);
        assert_eq!(
            grid(&out).color_counts(),
            grid(&board(input)).color_counts()
        );
        assert!(reference::swap::is_stable(&grid(&out)));
        assert_eq!(
            reference::swap::valid_swaps(&grid(&out)).len(),
            moves as usize
        );
    }

    // The automatic shuffle of a dead board resolved under RANDOM refill.
    let response = same_bytes_everywhere!(
        first,
        second,
        resolve_cascade,
        ResolveCascadeRequest {
            board: Some(board("RGB/GBR/BRG")),
            colors: 3,
            seed: 11,
            refill: RefillMode::Random as i32,
            ..Default::default()
        }
    );
    assert!(response.shuffled && response.steps.is_empty());
    assert_eq!(board_text(&response.board_before_shuffle), "RGB/GBR/BRG");
    assert_eq!(board_text(&response.board), "GRB/GRB/RBG");
    assert_eq!(response.valid_swap_count, 2);
    assert_eq!(
        reference::swap::valid_swaps(&grid(&board("GRB/GRB/RBG"))).len(),
        2
    );
}

// ---------------------------------------------------------------------------------------------
// CollapsePuzzle
// ---------------------------------------------------------------------------------------------

const COLLAPSE_10X10: &str = "BBPRGBGGPG/PYBBYRRPRY/RBPBPRPGBB/BGRPYPYPGR/RGGBRGPRYR/\
                              GRPBPGGRRR/RPGYGRRBRY/BYGGBPPRRY/BPPBRPBGYB/YPRGYYRGGG";

#[tokio::test]
async fn golden_collapse_generate_board_10x10_5_colours_seed_1() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.collapse_client().await, b.collapse_client().await);
    let response = same_bytes_everywhere!(
        first,
        second,
        generate_board,
        CollapseGenerateBoardRequest {
            width: 10,
            height: 10,
            colors: 5,
            seed: 1,
            min_group: 0,
            clearable: false,
            ..Default::default()
        }
    );
    assert!(response.clearing_line.is_empty());
    assert_eq!(board_text(&response.board), COLLAPSE_10X10);
    assert_eq!(response.legal_group_count, 17);
    let generated = response.board.unwrap();
    assert!(generated.cells.iter().all(|&c| (1..=5).contains(&c)));
    assert_eq!(
        reference::collapse::legal_groups(&grid(&generated), 2).len(),
        17
    );

    let listed = same_bytes_everywhere!(
        first,
        second,
        check_dead_state,
        CollapseCheckDeadStateRequest {
            board: Some(generated.clone()),
            scoring: Rule::SameGame.wire(),
            min_group: 0,
        }
    );
    assert_eq!(listed.groups.len(), 17);
    assert_eq!(listed.tiles_left, 100);
}

#[tokio::test]
async fn golden_collapse_game_first_group_each_move() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.collapse_client().await, b.collapse_client().await);
    let mut current = board(COLLAPSE_10X10);
    let mut scores = Vec::new();
    loop {
        let listed = first
            .check_dead_state(CollapseCheckDeadStateRequest {
                board: Some(current.clone()),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let at = cell(listed.groups[0].representative);
        let response = same_bytes_everywhere!(
            first,
            second,
            tap,
            TapRequest {
                board: Some(current.clone()),
                position: Some(common::pos(at.0, at.1)),
                ..Default::default()
            }
        );
        scores.push(response.move_score);
        current = response.board.clone().unwrap();
        if response.game_over {
            assert_eq!(
                (scores.len(), response.tiles_left, response.end_bonus),
                GAME_END
            );
            break;
        }
    }
    assert_eq!(scores, GAME_SCORES);
    assert_eq!(text(&current), GAME_FINAL);
}

/// First legal group every move, POPSTAR: 29 moves, 16 tiles left (bonus 2000 - 20 * 256 < 0,
/// so 0). Move scores are 5 * n^2 for n = 2, 3, 5, 9.
const GAME_END: (usize, u32, i64) = (29, 16, 0);
const GAME_SCORES: &[u64] = &[
    20, 20, 45, 20, 45, 20, 20, 45, 405, 20, 45, 20, 20, 125, 45, 125, 45, 20, 125, 20, 45, 20,
    125, 20, 20, 20, 20, 20, 20,
];
const GAME_FINAL: &str = "........../........../........../........../P........./R........./\
                          BY......../RB......../GR....G.../RPRPBRB...";

/// Solve with the screened method (simulation reduction, width 4) and restarts on the
/// generated 10x10 board, SAMEGAME, seed 3, 200,000 nodes: the same answer from two server
/// processes (bytes equal once the wall-clock `elapsed_micros` is zeroed), the taps pinned, and
/// the sequence replayed by the independent reference to the claimed score.
#[tokio::test]
async fn golden_collapse_solve_screened_restarts() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.collapse_client().await, b.collapse_client().await);
    let request = CollapseSolveRequest {
        board: Some(board(COLLAPSE_10X10)),
        scoring: Rule::SameGame.wire(),
        min_group: 2,
        seed: 3,
        max_nodes: 200_000,
        max_millis: 0,
        level: 2,
        schedule: SolveSchedule::Restarts as i32,
        method: SolveMethod::Screened as i32,
        screen_width: 4,
        ..Default::default()
    };
    let mut answers = Vec::new();
    for from_first in [true, true, false] {
        let client = if from_first { &mut first } else { &mut second };
        let mut response = client.solve(request.clone()).await.unwrap().into_inner();
        response.elapsed_micros = 0;
        answers.push(response);
    }
    let bytes = answers[0].encode_to_vec();
    assert!(answers.iter().all(|r| r.encode_to_vec() == bytes));
    let solved = &answers[0];
    let taps: Vec<Cell> = solved.moves.iter().map(|m| cell(m.position)).collect();
    let mut grid = grid(&board(COLLAPSE_10X10));
    let mut score = 0i64;
    for &at in &taps {
        let tapped = reference::collapse::tap(&grid, at);
        assert!(tapped.cleared.len() >= 2, "{at:?}");
        score += Rule::SameGame.move_score(tapped.cleared.len() as u64) as i64;
        grid = tapped.board;
    }
    assert!(reference::collapse::is_game_over(&grid, 2));
    assert_eq!(
        Rule::SameGame.end_bonus(i64::from(solved.tiles_left)),
        solved.end_bonus
    );
    assert_eq!(
        (solved.score, solved.nodes, solved.tiles_left),
        SOLVE_SCREENED
    );
    assert_eq!(taps, SOLVE_SCREENED_TAPS);
    assert_eq!(score + solved.end_bonus, solved.score);
}

/// (score, nodes, tiles left) of [`golden_collapse_solve_screened_restarts`]: the board is
/// cleared (SAMEGAME's +1000).
const SOLVE_SCREENED: (i64, u64, u32) = (1526, 200_002, 0);
const SOLVE_SCREENED_TAPS: &[Cell] = &[
    (0, 6),
    (7, 5),
    (5, 4),
    (9, 4),
    (7, 0),
    (8, 3),
    (8, 1),
    (5, 3),
    (6, 9),
    (2, 0),
    (7, 2),
    (4, 2),
    (8, 1),
    (9, 0),
    (6, 0),
    (7, 1),
    (7, 3),
    (4, 7),
    (7, 8),
    (9, 1),
    (7, 5),
    (9, 2),
    (7, 3),
    (7, 2),
    (8, 1),
    (6, 3),
    (9, 0),
    (7, 2),
    (9, 0),
];

/// Solve with the beam method (first width 64) and restarts on the generated 10x10 board,
/// POPSTAR, 40,000 nodes (stopped by the budget inside the refinement passes, well inside the
/// request timeout): the same bytes from two server processes (`elapsed_micros` zeroed),
/// pinned by their SHA-256, and the line replayed by the independent reference to the claimed
/// score. At 300 nodes the first beam stops and a playout drawn from the seed finishes it:
/// pinned too.

#[tokio::test]
async fn golden_collapse_solve_beam() {
    use sha2::{Digest, Sha256};
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.collapse_client().await, b.collapse_client().await);
    let request = CollapseSolveRequest {
        board: Some(board(COLLAPSE_10X10)),
        scoring: Rule::PopStar.wire(),
        seed: 3,
        max_nodes: 40_000,
        schedule: SolveSchedule::Restarts as i32,
        method: SolveMethod::Beam as i32,
        beam_width: 64,
        ..Default::default()
    };
    let mut answers = Vec::new();
    for from_first in [true, false] {
        let client = if from_first { &mut first } else { &mut second };
        let mut response = client.solve(request.clone()).await.unwrap().into_inner();
        response.elapsed_micros = 0;
        answers.push(response.encode_to_vec());
    }
    assert_eq!(answers[0], answers[1]);
    let solved = matchgrid::proto::CollapseSolveResponse::decode(answers[0].as_slice()).unwrap();
    assert_eq!(solved.stop, matchgrid::proto::SolveStop::NodeBudget as i32);
    let mut grid = grid(&board(COLLAPSE_10X10));
    let mut score = 0i64;
    for m in &solved.moves {
        let tapped = reference::collapse::tap(&grid, cell(m.position));
        assert!(tapped.cleared.len() >= 2);
        score += Rule::PopStar.move_score(tapped.cleared.len() as u64) as i64;
        grid = tapped.board;
    }
    assert!(reference::collapse::is_game_over(&grid, 2));
    let bonus = Rule::PopStar.end_bonus(i64::from(solved.tiles_left));
    assert_eq!(score + bonus, solved.score);
    assert_eq!(
        (
            solved.score,
            solved.nodes,
            solved.moves.len(),
            solved.playouts
        ),
        SOLVE_BEAM
    );
    let digest: String = Sha256::digest(&answers[0])
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    assert_eq!(digest, SOLVE_BEAM_SHA256);
    let stopped = CollapseSolveRequest {
        max_nodes: 300,
        ..request
    };
    let mut answers = Vec::new();
    for client in [&mut first, &mut second] {
        let mut response = client.solve(stopped.clone()).await.unwrap().into_inner();
        response.elapsed_micros = 0;
        answers.push(response);
    }
    assert_eq!(answers[0], answers[1]);
    let finished = &answers[0];
    assert_eq!((finished.runs_completed, finished.levels_completed), (0, 0));
    assert_eq!(
        (finished.score, finished.nodes, finished.moves.len()),
        SOLVE_BEAM_STOPPED
    );
}

/// SameGame under the two beam methods, restarts, first width 64, 40,000 nodes, on the
/// generated 10x10 board, and TABU_BEAM with refinement factor 4 on 400,000 nodes: the same
/// bytes from two server processes (`elapsed_micros` zeroed), pinned by their SHA-256, each
/// line replayed by the independent reference to the claimed score. BEAM answers as it did
/// before TABU_BEAM existed (its SameGame weights are not the tabu-colour ones); TABU_BEAM is
/// pinned from its first version, and with factor 4 from the first version of
/// `refine_factor`.
#[tokio::test]
async fn golden_collapse_solve_samegame_beams() {
    use sha2::{Digest, Sha256};
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.collapse_client().await, b.collapse_client().await);
    for (method, refine_factor, max_nodes, expected, expected_digest) in [
        (
            SolveMethod::Beam,
            0,
            40_000,
            SAMEGAME_BEAM,
            SAMEGAME_BEAM_SHA256,
        ),
        (
            SolveMethod::TabuBeam,
            0,
            40_000,
            SAMEGAME_TABU_BEAM,
            SAMEGAME_TABU_BEAM_SHA256,
        ),
        (
            SolveMethod::TabuBeam,
            4,
            400_000,
            SAMEGAME_TABU_BEAM_FACTOR_4,
            SAMEGAME_TABU_BEAM_FACTOR_4_SHA256,
        ),
    ] {
        let request = CollapseSolveRequest {
            board: Some(board(COLLAPSE_10X10)),
            scoring: Rule::SameGame.wire(),
            seed: 3,
            max_nodes,
            schedule: SolveSchedule::Restarts as i32,
            method: method as i32,
            beam_width: 64,
            refine_factor,
            ..Default::default()
        };
        let mut answers = Vec::new();
        for client in [&mut first, &mut second] {
            let mut response = client.solve(request.clone()).await.unwrap().into_inner();
            response.elapsed_micros = 0;
            answers.push(response.encode_to_vec());
        }
        assert_eq!(answers[0], answers[1], "{method:?}");
        let solved =
            matchgrid::proto::CollapseSolveResponse::decode(answers[0].as_slice()).unwrap();
        let mut grid = grid(&board(COLLAPSE_10X10));
        let mut score = 0i64;
        for m in &solved.moves {
            let tapped = reference::collapse::tap(&grid, cell(m.position));
            assert!(tapped.cleared.len() >= 2, "{method:?}");
            score += Rule::SameGame.move_score(tapped.cleared.len() as u64) as i64;
            grid = tapped.board;
        }
        assert!(reference::collapse::is_game_over(&grid, 2), "{method:?}");
        let bonus = Rule::SameGame.end_bonus(i64::from(solved.tiles_left));
        assert_eq!(score + bonus, solved.score, "{method:?}");
        assert_eq!(
            (solved.score, solved.nodes, solved.moves.len(), solved.stop),
            expected,
            "{method:?} factor {refine_factor}"
        );
        let digest: String = Sha256::digest(&answers[0])
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(digest, expected_digest, "{method:?} factor {refine_factor}");
    }
}

/// (score, nodes, taps, stop) of [`golden_collapse_solve_samegame_beams`] under BEAM.
const SAMEGAME_BEAM: (i64, u64, usize, i32) = (
    622,
    40_012,
    22,
    matchgrid::proto::SolveStop::NodeBudget as i32,
);
/// SHA-256 of that response.
const SAMEGAME_BEAM_SHA256: &str =
    "fa74051b7b1d42e034b9e4411d3173191bf2a34f424ee7e75f2b05746fb8993b";
/// (score, nodes, taps, stop) of [`golden_collapse_solve_samegame_beams`] under TABU_BEAM.
const SAMEGAME_TABU_BEAM: (i64, u64, usize, i32) = (
    1544,
    40_018,
    23,
    matchgrid::proto::SolveStop::NodeBudget as i32,
);
/// SHA-256 of that response.
const SAMEGAME_TABU_BEAM_SHA256: &str =
    "fb34a666850ea207b69d965926dd03305ce6d4a1979782c4a548a48d8c3136f3";
/// (score, nodes, taps, stop) of [`golden_collapse_solve_samegame_beams`] under TABU_BEAM with
/// refinement factor 4: the budget ends in its first pass, of 16 (with factor 2 the first pass,
/// of 8, completes within it, so the two answers' nodes differ). Passes sized to the budget
/// need more nodes than a debug-build test affords.
const SAMEGAME_TABU_BEAM_FACTOR_4: (i64, u64, usize, i32) = (
    1544,
    400_011,
    23,
    matchgrid::proto::SolveStop::NodeBudget as i32,
);
/// SHA-256 of that response.
const SAMEGAME_TABU_BEAM_FACTOR_4_SHA256: &str =
    "62752a0341b7a6a3ccf46f6172fb0992081636cc48390993bb6c3afb8de9ee76";

/// (score, nodes, taps, playouts) of [`golden_collapse_solve_beam`].
const SOLVE_BEAM: (i64, u64, usize, u64) = (6265, 40_009, 25, 0);
/// (score, nodes, taps) of [`golden_collapse_solve_beam`] at 300 nodes.
const SOLVE_BEAM_STOPPED: (i64, u64, usize) = (2110, 402, 25);
/// SHA-256 of [`golden_collapse_solve_beam`]'s response bytes.
const SOLVE_BEAM_SHA256: &str = "599ef2a62aaa5f3aa05edcd4accee6dde9ab699c8553b08df2651c56bebc28ba";

/// Levels (docs/rules.md section 6), hand-checked: a horizontal 4 of R made by the swap
/// `(1,2)-(0,2)` scores 10 x 1 x 4 = 40 and leaves a `STRIPED_V` R at `b = (0,2)`, where `a`'s
/// tile moved; the three other cells of the top row are refilled (the seed's draws: G, G, G),
/// and the hole at (3,4) stays empty.
#[tokio::test]
async fn golden_level_horizontal_four_makes_a_striped_piece() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let response = same_bytes_everywhere!(
        first,
        second,
        resolve_cascade,
        ResolveCascadeRequest {
            board: Some(level("RRGRB/YBRGY/GYBYG/BGYB#")),
            swap: Some(swap((1, 2), (0, 2))),
            colors: 5,
            seed: 5,
            refill: RefillMode::Random as i32,
            ..Default::default()
        }
    );
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert_eq!(
        groups_of(&step.groups),
        vec![(1, vec![(0, 0), (0, 1), (0, 2), (0, 3)])]
    );
    assert_eq!(step.score, 40);
    let created: Vec<_> = step
        .created
        .iter()
        .map(|s| {
            let p = s.position.unwrap();
            ((p.row, p.col), s.kind, s.color)
        })
        .collect();
    assert_eq!(
        created,
        vec![((0, 2), matchgrid::proto::PieceKind::StripedV as i32, 1)]
    );
    assert!(step.fired.is_empty() && step.effect_cleared.is_empty());
    assert_eq!(
        spawns_of(&step.spawns),
        vec![((0, 0), 2), ((0, 1), 2), ((0, 3), 2)]
    );
    assert_eq!(
        level_text(response.board.as_ref().unwrap()),
        "GGR|GB/YBGGY/GYBYG/BGYB#"
    );
    assert_eq!(
        (response.total_score, response.stable, response.dead),
        (40, true, false)
    );
    assert_eq!(response.valid_swap_count, 6);
}

/// Levels, hand-checked: striped + striped at `b = (2,2)` clears the whole row 2 and column 2
/// (8 tiles: the hole at (0,2) is not a tile), fires nothing (the two swapped tiles are
/// consumed) and scores 10 x 1 x 8 = 80. The tiles above row 2 fall one slot, column 2 falls
/// through nothing and is refilled below its hole.
#[tokio::test]
async fn golden_level_striped_and_striped_combination_around_a_hole() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let response = same_bytes_everywhere!(
        first,
        second,
        resolve_cascade,
        ResolveCascadeRequest {
            board: Some(level("RG#YB/YBRGY/GR-G|BR/BYBRG/RGYBY")),
            swap: Some(swap((2, 1), (2, 2))),
            colors: 4,
            seed: 9,
            refill: RefillMode::Random as i32,
            ..Default::default()
        }
    );
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert!(step.groups.is_empty() && step.fired.is_empty() && step.created.is_empty());
    let cleared: Vec<Cell> = step.effect_cleared.iter().map(|p| (p.row, p.col)).collect();
    assert_eq!(
        cleared,
        vec![
            (1, 2),
            (2, 0),
            (2, 1),
            (2, 2),
            (2, 3),
            (2, 4),
            (3, 2),
            (4, 2)
        ]
    );
    assert_eq!(step.score, 80);
    assert_eq!(
        level_text(response.board.as_ref().unwrap()),
        "BR#YY/RGYYB/YBGGY/BYBRG/RGRBY"
    );
    assert_eq!(
        (
            response.total_score,
            response.stable,
            response.valid_swap_count
        ),
        (80, true, 7)
    );
}

/// A swap-family move with RANDOM refill from 6 colours.
fn golden_move(a: (u32, u32), b: (u32, u32), seed: u64) -> matchgrid::proto::SwapMove {
    matchgrid::proto::SwapMove {
        swap: Some(swap(a, b)),
        colors: 6,
        seed,
        refill: RefillMode::Random as i32,
        ..Default::default()
    }
}

#[tokio::test]
async fn golden_swap_replay_game() {
    use matchgrid::proto::{SwapReplayGameRequest, SwapVerdict, swap_replay_game_request::Start};
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let request = SwapReplayGameRequest {
        start: Some(Start::Board(board(GENERATED_9X9))),
        moves: vec![
            golden_move((1, 3), (2, 3), 2024),
            golden_move((5, 2), (6, 2), 7),
            golden_move((5, 1), (6, 1), 8),
            golden_move((0, 0), (2, 2), 9),
        ],
        level: None,
        level_seed: 0,
    };
    let response = same_bytes_everywhere!(first, second, replay_game, request.clone());
    // Move 1 is golden_resolve_cascade_on_the_generated_board's cascade.
    let moves: Vec<_> = response
        .moves
        .iter()
        .map(|m| {
            (
                m.score,
                m.steps,
                m.valid_swap_count,
                m.stable,
                m.dead,
                m.shuffled,
            )
        })
        .collect();
    assert_eq!(
        moves,
        vec![
            (30, 1, 16, true, false, false),
            (30, 1, 14, true, false, false),
            (30, 1, 19, true, false, false),
        ]
    );
    assert_eq!(response.total_score, 90);
    let after = "RGRRBPRPR/RRGPRGOBB/YRGGPBYYO/BPBOYPGOR/GOBGGYGPB/PBYBGYYGO/PRRYYORPB/\
                 BOYBBRBGY/YGGROYYBR";
    assert_eq!(board_text(&response.board), after);
    let digest: String = response
        .board_digest
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest,
        "88c1dc304b03cc1baf8d9a8f12fee583b23f590bdfc36fb77b9cee3f980b8a09"
    );
    let rejected = response.rejected.as_ref().unwrap();
    assert_eq!(rejected.index, 3);
    assert_eq!(rejected.swap, Some(swap((0, 0), (2, 2))));
    assert_eq!(rejected.verdict, SwapVerdict::NotAdjacent as i32);
    assert_eq!(rejected.code, tonic::Code::FailedPrecondition as u32);
    assert_eq!(rejected.reason, "ILLEGAL_SWAP");
    assert_eq!(rejected.message, "illegal swap: SWAP_VERDICT_NOT_ADJACENT");
    assert!(response.start_board.is_none());
    // The ResolveCascade path answers the same.
    let reference = reference::features::replay_game_reference(
        request,
        matchgrid::transport::ServiceLimits::default(),
    )
    .unwrap();
    assert_eq!(response, reference);
}

#[tokio::test]
async fn golden_swap_hint_with_samples() {
    use matchgrid::proto::SwapHintRequest;
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let request = SwapHintRequest {
        board: Some(board(GENERATED_9X9)),
        top_n: 3,
        samples: 4,
        seed: 5,
        colors: 6,
        max_steps: 0,
    };
    let response = same_bytes_everywhere!(first, second, hint, request.clone());
    let hints: Vec<_> = response
        .hints
        .iter()
        .map(|h| {
            let s = h.swap.unwrap();
            let (a, b) = (s.a.unwrap(), s.b.unwrap());
            (
                (a.row, a.col),
                (b.row, b.col),
                h.score,
                h.cleared,
                h.steps,
                h.specials_created,
                h.mean_sampled_score,
            )
        })
        .collect();
    assert_eq!(
        hints,
        vec![
            ((7, 5), (7, 6), 540, 18, 5, 0, 607.5),
            ((4, 3), (5, 3), 240, 12, 3, 0, 292.5),
            ((5, 4), (6, 4), 230, 12, 3, 0, 342.5),
        ]
    );
    // golden_resolve_cascade_on_the_generated_board's board before its swap has 23.
    assert_eq!(response.valid_swap_count, 23);
    let reference = reference::features::hint_reference(request).unwrap();
    assert_eq!(response, reference);
}

#[tokio::test]
async fn golden_swap_simulate_greedy() {
    use matchgrid::proto::{SwapPolicy, SwapSimulateRequest, swap_simulate_request::Start};
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let request = SwapSimulateRequest {
        start: Some(Start::Generate(SwapGenerateBoardRequest {
            width: 9,
            height: 9,
            colors: 6,
            seed: 7,
            ..Default::default()
        })),
        games: 5,
        moves: 10,
        seed: 1,
        policy: SwapPolicy::HintGreedy as i32,
        colors: 0,
        max_steps: 0,
        level: None,
        level_policy: 0,
        search_candidates: 0,
        search_rollouts: 0,
        search_depth: None,
    };
    let response = same_bytes_everywhere!(first, second, simulate, request.clone());
    assert_eq!(response.game_scores, vec![2280, 1830, 3210, 2840, 2660]);
    assert_eq!(response.moves_played, 50);
    assert_eq!((response.shuffles, response.dead_games), (0, 0));
    assert_eq!(response.mean_cascade_depth, 2.9);
    assert_eq!(response.mean_score, 2564.0);
    assert_eq!(
        (response.p10_score, response.p50_score, response.p90_score),
        (1830, 2660, 3210)
    );
    assert_eq!((response.min_score, response.max_score), (1830, 3210));
    // The start is golden_swap_generate_board_9x9_6_colours_seed_7's board.
    assert_eq!(board_text(&response.start_board), GENERATED_9X9);
    let reference = reference::features::simulate_reference(request).unwrap();
    assert_eq!(response, reference);
}

// ---------------------------------------------------------------------------------------------
// Level play (docs/rules.md section 8)
// ---------------------------------------------------------------------------------------------

/// A 6x6 layout: a 2-point blocker at (2, 2), a lock at (3, 2), two jelly layers along row 0.
fn golden_layout() -> Board {
    let mut jelly = vec![0; 36];
    jelly[..6].fill(2);
    let mut blockers = vec![0; 36];
    blockers[14] = 2;
    let mut locks = vec![false; 36];
    locks[20] = true;
    Board {
        width: 6,
        height: 6,
        cells: vec![0; 36],
        jelly,
        blockers,
        locks,
        ..Default::default()
    }
}

/// The golden layout as a level of 5 colours and 10 moves: clear the jelly and score 500.
fn golden_level() -> matchgrid::proto::Level {
    use matchgrid::proto::{Goal, GoalKind, Level};
    Level {
        board: Some(golden_layout()),
        colors: 5,
        move_limit: 10,
        goals: vec![
            Goal {
                kind: GoalKind::ClearJelly as i32,
                ..Default::default()
            },
            Goal {
                kind: GoalKind::Score as i32,
                target: 500,
                color: 0,
            },
        ],
    }
}

/// A wire board in the naive model's terms.
fn play_level_of(board: &Board) -> reference::level_play::PlayLevel {
    let size = board.cells.len();
    reference::level_play::PlayLevel {
        w: board.width as usize,
        h: board.height as usize,
        cells: board.cells.clone(),
        holes: if board.holes.is_empty() {
            vec![false; size]
        } else {
            board.holes.clone()
        },
        kinds: board.kinds.iter().map(|&k| k as u32).collect(),
        jelly: board.jelly.clone(),
        blockers: board.blockers.clone(),
        locks: board.locks.clone(),
        exits: board.exits.clone(),
    }
}

#[tokio::test]
async fn golden_level_play_start_on_a_layout_and_play_move() {
    use matchgrid::proto::{LevelStatus, PlayMoveRequest, StartLevelRequest};
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let started = same_bytes_everywhere!(
        first,
        second,
        start_level,
        StartLevelRequest {
            level: Some(golden_level()),
            seed: 42,
        }
    );
    let state = started.state.unwrap();
    let start = state.board.clone().unwrap();
    // Every cell but the blocker's coloured, the locked one included; the layers kept.
    assert_eq!(text(&start), "GYRPYB/GYYGYR/BG.RPY/YPGBBG/PBPYBP/YGRPYR");
    assert_eq!(start.jelly, golden_layout().jelly);
    assert_eq!(start.blockers, golden_layout().blockers);
    assert_eq!(start.locks, golden_layout().locks);
    assert!(play_level_of(&start).is_stable(true));
    let progress = |state: &matchgrid::proto::LevelState| -> Vec<(u64, bool)> {
        state.progress.iter().map(|p| (p.value, p.met)).collect()
    };
    assert_eq!(progress(&state), vec![(12, false), (0, false)]);
    assert_eq!(
        (state.moves_left, state.score, state.status),
        (10, 0, LevelStatus::Playing as i32)
    );
    let listed = first
        .check_dead_state(SwapCheckDeadStateRequest {
            board: Some(start.clone()),
        })
        .await
        .unwrap()
        .into_inner();
    let first_swap = listed.valid_swaps[0];
    assert_eq!(listed.valid_swaps.len(), 4);
    assert_eq!(swaps_of(&listed.valid_swaps)[0], ((1, 3), (1, 4)));
    let request = PlayMoveRequest {
        level: Some(golden_level()),
        state: Some(state.clone()),
        swap: Some(first_swap),
        seed: 9,
        include_step_boards: false,
    };
    let played = same_bytes_everywhere!(first, second, play_move, request);
    let next = played.state.clone().unwrap();
    // One run of yellow in row 1, next to the blocker: it loses a hit point.
    assert_eq!(played.steps.len(), 1);
    assert_eq!(played.steps[0].score, 30);
    let hits: Vec<_> = played.steps[0]
        .hits
        .iter()
        .map(|h| {
            (
                cell(h.position.unwrap()),
                h.jelly_left,
                h.blocker_left,
                h.lock_removed,
            )
        })
        .collect();
    assert_eq!(hits, vec![((2, 2), 0, 1, false)]);
    assert!(!played.shuffled);
    let end = next.board.clone().unwrap();
    assert_eq!(text(&end), "GBRPYB/GYRPGR/BG.RPY/YPGBBG/PBPYBP/YGRPYR");
    assert_eq!(end.blockers[14], 1);
    assert_eq!(end.jelly, start.jelly);
    assert_eq!(progress(&next), vec![(12, false), (30, false)]);
    assert_eq!(
        (next.moves_left, next.score, next.status),
        (9, 30, LevelStatus::Playing as i32)
    );
    // Checked against the naive model of level play, with the colours the server drew.
    let mut draws = played
        .steps
        .iter()
        .flat_map(|s| s.spawns.iter().map(|s| s.color))
        .collect::<Vec<_>>()
        .into_iter();
    let swap_cells = swaps_of(&[first_swap])[0];
    let (steps, after) = play_level_of(&start).resolve(Some(swap_cells), Some(&mut draws));
    assert_eq!(draws.next(), None);
    assert_eq!(
        steps.iter().map(|s| s.score).collect::<Vec<_>>(),
        played.steps.iter().map(|s| s.score).collect::<Vec<_>>()
    );
    for (model, step) in steps.iter().zip(&played.steps) {
        let hits: Vec<_> = step
            .hits
            .iter()
            .map(|h| {
                (
                    cell(h.position.unwrap()),
                    h.jelly_left,
                    h.blocker_left,
                    h.lock_removed,
                )
            })
            .collect();
        let expected: Vec<_> = model
            .hits
            .iter()
            .map(|h| (h.cell, h.jelly_left, h.blocker_left, h.lock_removed))
            .collect();
        assert_eq!(hits, expected);
    }
    assert_eq!(after.cells, end.cells);
    assert_eq!(after.jelly, end.jelly);
    assert_eq!(after.blockers, end.blockers);
    assert_eq!(after.locks, end.locks);
}

#[tokio::test]
async fn golden_level_play_replay_game() {
    use matchgrid::proto::{
        LevelStatus, PlayMoveRequest, StartLevelRequest, SwapMove, SwapReplayGameRequest,
        SwapVerdict,
    };
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let level_move = |a, b, seed| SwapMove {
        swap: Some(swap(a, b)),
        seed,
        ..Default::default()
    };
    let mut level = golden_level();
    level.move_limit = 3;
    let request = SwapReplayGameRequest {
        moves: vec![
            level_move((3, 1), (4, 1), 9),
            level_move((5, 1), (5, 2), 10),
            level_move((4, 4), (5, 4), 11),
            level_move((0, 0), (0, 1), 12),
        ],
        level: Some(level),
        level_seed: 42,
        ..Default::default()
    };
    let response = same_bytes_everywhere!(first, second, replay_game, request.clone());
    let moves: Vec<_> = response
        .moves
        .iter()
        .map(|m| {
            (
                m.score,
                m.steps,
                m.valid_swap_count,
                m.stable,
                m.dead,
                m.shuffled,
            )
        })
        .collect();
    // Move 2's vertical run holds the locked tile at (3, 2): unlocked, not cleared (20, not 30).
    assert_eq!(
        moves,
        vec![
            (30, 1, 5, true, false, false),
            (20, 1, 6, true, false, false),
            (30, 1, 2, true, false, false),
        ]
    );
    let replayed = response.level.clone().unwrap();
    assert_eq!(replayed.status, LevelStatus::LostOutOfMoves as i32);
    assert_eq!(replayed.decided_at, Some(2));
    assert_eq!((replayed.moves_left, replayed.score), (0, 80));
    let progress: Vec<_> = replayed.progress.iter().map(|p| (p.value, p.met)).collect();
    assert_eq!(progress, vec![(12, false), (80, false)]);
    assert_eq!(response.total_score, 80);
    assert_eq!(
        board_text(&response.board),
        "BPRGGB/GBYPYR/GG.GYY/BYPRPG/YBRBBP/YRGPBR"
    );
    let digest: String = response
        .board_digest
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        digest,
        "1618449ecccc4e08a5eca62a82752adf549b8e84637e3090d96f0b9fce762fd5"
    );
    // The layout's start: golden_level_start_on_a_layout_and_play_move's.
    assert_eq!(
        board_text(&response.start_board),
        "GYRPYB/GYYGYR/BG.RPY/YPGBBG/PBPYBP/YGRPYR"
    );
    let rejected = response.rejected.as_ref().unwrap();
    assert_eq!(rejected.index, 3);
    assert_eq!(rejected.verdict, SwapVerdict::Unspecified as i32);
    assert_eq!(rejected.code, tonic::Code::FailedPrecondition as u32);
    assert_eq!(rejected.reason, "LEVEL_OVER");
    assert_eq!(
        rejected.message,
        "the level is over (LOST_OUT_OF_MOVES): no move can be played"
    );
    // StartLevel and PlayMove, move by move, reach the same state.
    let mut state = first
        .start_level(StartLevelRequest {
            level: request.level.clone(),
            seed: 42,
        })
        .await
        .unwrap()
        .into_inner()
        .state;
    for play in &request.moves[..3] {
        state = first
            .play_move(PlayMoveRequest {
                level: request.level.clone(),
                state,
                swap: play.swap,
                seed: play.seed,
                include_step_boards: false,
            })
            .await
            .unwrap()
            .into_inner()
            .state;
    }
    assert_eq!(replayed.state, state);
    assert_eq!(response.board, state.unwrap().board);
}

#[tokio::test]
async fn golden_level_play_simulate() {
    use matchgrid::proto::{
        Goal, GoalKind, Level, LevelPolicy, LevelSimulation, SwapSimulateRequest,
        SwapSimulateResponse,
    };
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.swap_client().await, b.swap_client().await);
    let mut start = board(GENERATED_9X9);
    start.jelly = vec![1; 81];
    let level = Level {
        board: Some(start),
        colors: 6,
        move_limit: 6,
        goals: vec![
            Goal {
                kind: GoalKind::Score as i32,
                target: 1600,
                color: 0,
            },
            Goal {
                kind: GoalKind::Collect as i32,
                target: 12,
                color: 1,
            },
        ],
    };
    let request = SwapSimulateRequest {
        level: Some(level),
        games: 20,
        seed: 3,
        ..Default::default()
    };
    let greedy = same_bytes_everywhere!(first, second, simulate, request.clone());
    assert_eq!(
        greedy,
        SwapSimulateResponse {
            level: greedy.level.clone(),
            ..Default::default()
        },
        "only `level` is answered"
    );
    assert_eq!(
        greedy.level.unwrap(),
        LevelSimulation {
            games: 20,
            wins: 9,
            pass_rate: 0.45,
            pass_rate_low: 0.2581978582556243,
            pass_rate_high: 0.6579146575496577,
            attempts_per_success: 2.2222222222222223,
            moves_left_mean: 1.4444444444444444,
            moves_left_p10: 0,
            moves_left_p50: 2,
            moves_left_p90: 4,
            loss_progress: vec![0.8005681818181819, 0.8560606060606062],
            lost_dead: 0,
            lost_out_of_moves: 11,
        }
    );
    let search = same_bytes_everywhere!(
        first,
        second,
        simulate,
        SwapSimulateRequest {
            games: 4,
            level_policy: LevelPolicy::Search as i32,
            search_candidates: 2,
            search_rollouts: 2,
            search_depth: Some(2),
            ..request
        }
    );
    assert_eq!(
        search.level.unwrap(),
        LevelSimulation {
            games: 4,
            wins: 3,
            pass_rate: 0.75,
            pass_rate_low: 0.30064184258240184,
            pass_rate_high: 0.9544127391902995,
            attempts_per_success: 1.3333333333333333,
            moves_left_mean: 1.6666666666666667,
            moves_left_p10: 1,
            moves_left_p50: 1,
            moves_left_p90: 3,
            loss_progress: vec![0.8, 1.0],
            lost_dead: 0,
            lost_out_of_moves: 1,
        }
    );
}
