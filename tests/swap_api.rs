//! SwapPuzzle over gRPC against the real server: every RPC, every swap example of docs/rules.md section 5,
//! and the documented properties of generation, cascades, shuffles and verdicts, each checked
//! against the independent reference rules in `tests/reference`.
mod api_support;
mod common;
mod reference;

use common::{TestServer, board, spec_swap_example, swap, text};
use matchgrid::proto::swap_puzzle_client::SwapPuzzleClient;
use matchgrid::proto::{
    Board, CascadeStep, RefillMode, ResolveCascadeRequest, ResolveCascadeResponse, ShuffleRequest,
    SwapCheckDeadStateRequest, SwapGenerateBoardRequest, SwapVerdict, ValidateSwapRequest,
};
use reference::convert::{cell, falls_of, grid, groups_of, swaps_of};
use reference::{Cell, gravity};
use tonic::transport::Channel;

type Client = SwapPuzzleClient<Channel>;

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

fn final_board(response: &ResolveCascadeResponse) -> &Board {
    response.board.as_ref().expect("final board")
}

fn step_board(step: &CascadeStep) -> &Board {
    step.board.as_ref().expect("step board")
}

/// A ResolveCascade request under NONE refill.
fn resolve_none(text_board: &str, swap_cells: Option<(Cell, Cell)>) -> ResolveCascadeRequest {
    ResolveCascadeRequest {
        board: Some(board(text_board)),
        swap: swap_cells.map(|(a, b)| swap(a, b)),
        refill: RefillMode::None as i32,
        ..Default::default()
    }
}

/// A ResolveCascade request under RANDOM refill.
fn resolve_random(
    start: &Board,
    swap_cells: Option<(Cell, Cell)>,
    colors: u32,
    seed: u64,
) -> ResolveCascadeRequest {
    ResolveCascadeRequest {
        board: Some(start.clone()),
        swap: swap_cells.map(|(a, b)| swap(a, b)),
        colors,
        seed,
        refill: RefillMode::Random as i32,
        ..Default::default()
    }
}

/// ResolveCascade with every step's board included (the checks below replay them).
async fn resolve(
    client: &mut Client,
    mut request: ResolveCascadeRequest,
) -> ResolveCascadeResponse {
    request.include_step_boards = true;
    client
        .resolve_cascade(request)
        .await
        .expect("ResolveCascade")
        .into_inner()
}

async fn dead_state(client: &mut Client, b: &Board) -> Vec<(Cell, Cell)> {
    let response = client
        .check_dead_state(SwapCheckDeadStateRequest {
            board: Some(b.clone()),
        })
        .await
        .expect("CheckDeadState")
        .into_inner();
    let pairs = swaps_of(&response.valid_swaps);
    assert_eq!(response.dead, pairs.is_empty(), "dead flag vs list");
    pairs
}

async fn generate(
    client: &mut Client,
    width: u32,
    height: u32,
    colors: u32,
    seed: u64,
    min_moves: Option<u32>,
) -> (Board, u32) {
    let response = client
        .generate_board(SwapGenerateBoardRequest {
            width,
            height,
            colors,
            seed,
            min_moves,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("GenerateBoard {width}x{height}/{colors}/{seed}: {e}"))
        .into_inner();
    (response.board.expect("board"), response.valid_swap_count)
}

/// Checks every documented property of a resolution against the reference rules: each step's
/// groups, falls, spawns, board and score, the scores' sum, the final flags and any shuffle.
/// Returns the number of steps.
fn check_resolution(
    start: &Board,
    swap_cells: Option<(Cell, Cell)>,
    random_colors: Option<u32>,
    response: &ResolveCascadeResponse,
) -> usize {
    let context = format!("start {} swap {swap_cells:?}", text(start));
    let mut previous = match swap_cells {
        Some((a, b)) => grid(start).swapped(a, b).proto(),
        None => start.clone(),
    };
    let mut score_sum = 0;
    for (k, step) in response.steps.iter().enumerate() {
        let index = k as u32 + 1;
        assert_eq!(step.index, index, "{context}: step numbering");
        let (after_gravity, falls) = if step.groups.is_empty() {
            assert!(
                k == 0 && swap_cells.is_none() && previous.cells.contains(&0),
                "{context}: a step without groups is only the settling step 1 of a board \
                 with empty cells"
            );
            let (fallen, falls) = gravity(&grid(&previous));
            (fallen.proto(), falls)
        } else {
            let expected = reference::swap::groups(&grid(&previous));
            assert_eq!(
                groups_of(&step.groups),
                expected,
                "{context}: groups of step {index}"
            );
            let all: Vec<Cell> = expected.iter().flat_map(|(_, c)| c.clone()).collect();
            let (fallen, falls) = gravity(&grid(&previous).cleared(&all));
            (fallen.proto(), falls)
        };
        assert_eq!(
            falls_of(&step.falls),
            falls,
            "{context}: falls of step {index}"
        );
        let cleared: usize = step.groups.iter().map(|g| g.cells.len()).sum();
        let expected_score: u64 = step
            .groups
            .iter()
            .map(|g| 10 * g.cells.len() as u64 * u64::from(index))
            .sum();
        assert_eq!(
            step.score, expected_score,
            "{context}: score of step {index}"
        );
        score_sum += step.score;
        let mut expected_board = after_gravity.clone();
        match random_colors {
            Some(colors) => {
                let holes = grid(&after_gravity).empty_cells();
                let spawned: Vec<Cell> = step.spawns.iter().map(|s| cell(s.position)).collect();
                assert_eq!(spawned, holes, "{context}: spawns of step {index}");
                if !step.groups.is_empty() {
                    assert_eq!(
                        step.spawns.len(),
                        cleared,
                        "{context}: tiles conserved in step {index}"
                    );
                }
                for s in &step.spawns {
                    assert!(
                        (1..=colors).contains(&s.color),
                        "{context}: spawn colour {} outside 1..={colors}",
                        s.color
                    );
                    let (r, c) = cell(s.position);
                    expected_board.cells[(r * expected_board.width + c) as usize] = s.color;
                }
                assert_eq!(
                    grid(step_board(step)).tiles(),
                    grid(&previous).tiles() + step.spawns.len() - cleared,
                    "{context}: tile count after step {index}"
                );
            }
            None => assert!(step.spawns.is_empty(), "{context}: NONE refill spawned"),
        }
        assert_eq!(
            text(step_board(step)),
            text(&expected_board),
            "{context}: board after step {index}"
        );
        previous = step_board(step).clone();
    }
    assert!(
        reference::swap::groups(&grid(&previous)).is_empty(),
        "{context}: cascade stopped with a run on {}",
        text(&previous)
    );
    assert_eq!(response.total_score, score_sum, "{context}: total score");
    let last = previous;
    let result = final_board(response);
    if response.shuffled {
        assert!(random_colors.is_some(), "{context}: shuffled under NONE");
        let before = response
            .board_before_shuffle
            .as_ref()
            .expect("board_before_shuffle when shuffled");
        assert_eq!(text(before), text(&last), "{context}: board before shuffle");
        assert!(
            reference::swap::is_stable(&grid(before)),
            "{context}: shuffled a non-stable board"
        );
        assert!(
            reference::swap::valid_swaps(&grid(before)).is_empty(),
            "{context}: shuffled a live board"
        );
        assert_eq!(
            grid(result).color_counts(),
            grid(before).color_counts(),
            "{context}: shuffle is a permutation"
        );
    } else {
        assert!(response.board_before_shuffle.is_none(), "{context}");
        assert_eq!(text(result), text(&last), "{context}: final board");
    }
    let stable = reference::swap::is_stable(&grid(result));
    let moves = if stable {
        reference::swap::valid_swaps(&grid(result)).len()
    } else {
        0
    };
    assert_eq!(response.stable, stable, "{context}: stable flag");
    assert_eq!(
        response.valid_swap_count as usize, moves,
        "{context}: moves"
    );
    assert_eq!(response.dead, stable && moves == 0, "{context}: dead flag");
    if random_colors.is_some() {
        assert!(stable, "{context}: RANDOM refill must end stable");
    }
    response.steps.len()
}

// ---------------------------------------------------------------------------------------------
// docs/rules.md section 5 examples
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn spec_rrg_ggr_swap_clears_two_groups_in_step_one() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let expected = vec![
        (1, vec![(0, 0), (0, 1), (0, 2)]),
        (2, vec![(1, 0), (1, 1), (1, 2)]),
    ];

    let preview = client
        .validate_swap(spec_swap_example())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(preview.verdict(), SwapVerdict::Ok);
    assert_eq!(groups_of(&preview.groups), expected);

    let request = resolve_none("RRG/GGR", Some(((0, 2), (1, 2))));
    let response = resolve(&mut client, request).await;
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert_eq!(step.index, 1);
    assert_eq!(groups_of(&step.groups), expected);
    assert!(step.falls.is_empty() && step.spawns.is_empty());
    assert_eq!(step.score, 60);
    assert_eq!(text(step_board(step)), ".../...");
    assert_eq!(text(final_board(&response)), ".../...");
    assert_eq!(response.total_score, 60);
    assert!(!response.stable && !response.dead && !response.shuffled);
    assert_eq!(response.valid_swap_count, 0);
    check_resolution(&board("RRG/GGR"), Some(((0, 2), (1, 2))), None, &response);

    // The order of a and b does not matter to the rules.
    let reversed = resolve(&mut client, resolve_none("RRG/GGR", Some(((1, 2), (0, 2))))).await;
    assert_eq!(reversed.steps, response.steps);
    assert_eq!(reversed.board, response.board);
}

#[tokio::test]
async fn spec_parallel_runs_rrr_rrr_are_one_group_of_six() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let response = resolve(&mut client, resolve_none("RRR/RRR", None)).await;
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert_eq!(
        groups_of(&step.groups),
        vec![(1, vec![(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)])]
    );
    assert_eq!(step.score, 60);
    assert_eq!(text(final_board(&response)), ".../...");
    assert_eq!(response.total_score, 60);
    check_resolution(&board("RRR/RRR"), None, None, &response);
}

#[tokio::test]
async fn spec_l_shape_is_one_group_of_five() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let response = resolve(&mut client, resolve_none("RAB/RCD/RRR", None)).await;
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert_eq!(
        groups_of(&step.groups),
        vec![(1, vec![(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)])]
    );
    assert_eq!(step.score, 50);
    assert_eq!(
        falls_of(&step.falls),
        vec![
            ((0, 1), (1, 1)),
            ((0, 2), (1, 2)),
            ((1, 1), (2, 1)),
            ((1, 2), (2, 2)),
        ]
    );
    assert_eq!(text(final_board(&response)), ".../.AB/.CD");
    check_resolution(&board("RAB/RCD/RRR"), None, None, &response);
}

#[tokio::test]
async fn spec_dead_board_has_a_stable_playable_shuffle() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let dead = board("RGB/GBR/BRG");
    assert!(
        reference::swap::is_stable(&grid(&dead))
            && reference::swap::valid_swaps(&grid(&dead)).is_empty()
    );
    assert_eq!(dead_state(&mut client, &dead).await, vec![]);
    // The the rules' sample shuffle is itself a playable arrangement of the same tiles.
    let sample = board("BBG/BGR/RGR");
    assert_eq!(grid(&sample).color_counts(), grid(&dead).color_counts());
    assert!(!dead_state(&mut client, &sample).await.is_empty());

    for seed in [0, 1, 2, 3, 42, u64::MAX] {
        let response = client
            .shuffle(ShuffleRequest {
                board: Some(dead.clone()),
                seed,
            })
            .await
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"))
            .into_inner();
        let shuffled = response.board.expect("board");
        assert_eq!((shuffled.width, shuffled.height), (3, 3));
        assert_eq!(
            grid(&shuffled).color_counts(),
            grid(&dead).color_counts(),
            "seed {seed}: not a permutation: {}",
            text(&shuffled)
        );
        assert!(
            reference::swap::is_stable(&grid(&shuffled)),
            "seed {seed}: {}",
            text(&shuffled)
        );
        // CheckDeadState accepts it (so it is stable) and finds the moves the response counts.
        let moves = dead_state(&mut client, &shuffled).await;
        assert!(!moves.is_empty(), "seed {seed}: shuffle is dead");
        assert_eq!(moves, reference::swap::valid_swaps(&grid(&shuffled)));
        assert_eq!(response.valid_swap_count as usize, moves.len());
    }
}

#[tokio::test]
async fn spec_column_then_row_cascade_under_none_refill() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let start = "GRYY/YRRG/BGYY/BGGY";
    let response = resolve(&mut client, resolve_none(start, Some(((0, 3), (1, 3))))).await;
    assert_eq!(response.steps.len(), 2);
    let (one, two) = (&response.steps[0], &response.steps[1]);
    assert_eq!(
        groups_of(&one.groups),
        vec![(4, vec![(1, 3), (2, 3), (3, 3)])],
        "step 1 is the Y column"
    );
    assert_eq!(falls_of(&one.falls), vec![((0, 3), (3, 3))]);
    assert_eq!(one.score, 30);
    assert_eq!(text(step_board(one)), "GRY./YRR./BGY./BGGG");
    assert_eq!(
        groups_of(&two.groups),
        vec![(2, vec![(3, 1), (3, 2), (3, 3)])],
        "step 2 is the G row"
    );
    assert_eq!(two.score, 60, "step 2 scores 10 * 3 * 2");
    assert_eq!(text(final_board(&response)), "G.../YRY./BRR./BGY.");
    assert_eq!(response.total_score, 90);
    assert!(!response.stable && !response.dead && !response.shuffled);
    check_resolution(&board(start), Some(((0, 3), (1, 3))), None, &response);
}

#[tokio::test]
async fn spec_board_resolved_as_given_under_none_refill() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let start = "13552/34331/32452/24455/14411";
    let response = resolve(&mut client, resolve_none(start, None)).await;
    assert_eq!(response.steps.len(), 2);
    assert_eq!(
        text(final_board(&response)),
        text(&board("13.../34.52/32.31/24.52/14311"))
    );
    assert_eq!(
        groups_of(&response.steps[0].groups),
        vec![(4, vec![(2, 2), (3, 2), (4, 2)])]
    );
    assert_eq!(
        groups_of(&response.steps[1].groups),
        vec![(5, vec![(3, 2), (3, 3), (3, 4)])]
    );
    assert_eq!((response.steps[0].score, response.steps[1].score), (30, 60));
    assert_eq!(response.total_score, 90);
    assert!(!response.stable && !response.dead);
    assert_eq!(response.valid_swap_count, 0);
    check_resolution(&board(start), None, None, &response);
}

// ---------------------------------------------------------------------------------------------
// GenerateBoard
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn generate_board_is_stable_with_counted_moves() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let cases: &[(u32, u32, u32, Option<u32>)] = &[
        (9, 9, 6, Some(3)),
        (9, 9, 6, None),
        (8, 8, 5, Some(10)),
        (9, 9, 4, Some(30)),
        (4, 1, 2, Some(1)),
        (1, 4, 2, Some(1)),
        (3, 2, 2, Some(1)),
        (5, 7, 16, Some(1)),
        (64, 64, 7, Some(5)),
        (16, 3, 3, Some(12)),
    ];
    for &(w, h, colors, min_moves) in cases {
        for seed in [0, 7, 1234] {
            let (b, count) = generate(&mut client, w, h, colors, seed, min_moves).await;
            let context = format!("{w}x{h}/{colors}/seed {seed}/min {min_moves:?}");
            assert_eq!((b.width, b.height), (w, h), "{context}");
            assert_eq!(b.cells.len(), (w * h) as usize, "{context}");
            assert!(
                b.cells.iter().all(|&c| (1..=colors).contains(&c)),
                "{context}: colour out of range"
            );
            assert!(
                reference::swap::is_stable(&grid(&b)),
                "{context}: {}",
                text(&b)
            );
            let listed = dead_state(&mut client, &b).await;
            assert_eq!(count as usize, listed.len(), "{context}");
            assert_eq!(listed, reference::swap::valid_swaps(&grid(&b)), "{context}");
            assert!(count >= min_moves.unwrap_or(1), "{context}: {count} moves");
        }
    }
}

#[tokio::test]
async fn generate_board_min_moves_zero_allows_any_stable_board() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    // 1x1 and 2x2 boards can never have a valid swap; min_moves 0 makes them feasible.
    for (w, h) in [(1, 1), (2, 2), (2, 1)] {
        let (b, count) = generate(&mut client, w, h, 3, 5, Some(0)).await;
        assert_eq!(count, 0);
        assert!(reference::swap::is_stable(&grid(&b)));
    }
    let (b, count) = generate(&mut client, 6, 6, 6, 5, Some(0)).await;
    assert!(reference::swap::is_stable(&grid(&b)));
    assert_eq!(
        count as usize,
        reference::swap::valid_swaps(&grid(&b)).len()
    );
}

#[tokio::test]
async fn generate_board_is_deterministic_by_seed() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let mut boards = Vec::new();
    for seed in 0..8 {
        let first = generate(&mut client, 9, 9, 6, seed, Some(3)).await;
        let again = generate(&mut client, 9, 9, 6, seed, Some(3)).await;
        assert_eq!(first, again, "seed {seed}");
        boards.push(text(&first.0));
    }
    boards.sort();
    boards.dedup();
    assert_eq!(
        boards.len(),
        8,
        "eight seeds gave only {} boards",
        boards.len()
    );
    // Extreme seeds are fine too.
    let (b, _) = generate(&mut client, 9, 9, 6, u64::MAX, None).await;
    assert!(reference::swap::is_stable(&grid(&b)));
}

// ---------------------------------------------------------------------------------------------
// ResolveCascade
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn resolve_cascade_random_refill_matches_the_rules_step_by_step() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let mut longest = 0;
    let mut runs = 0;
    for (w, h, colors) in [(8, 8, 3), (9, 9, 5), (6, 10, 4), (5, 5, 3)] {
        for seed in 0..12u64 {
            let (start, _) = generate(&mut client, w, h, colors, seed, Some(1)).await;
            let moves = dead_state(&mut client, &start).await;
            // A seeded choice among the valid swaps; both orders of a and b.
            let (a, b) = moves[(seed as usize * 7) % moves.len()];
            let chosen = if seed % 2 == 0 { (a, b) } else { (b, a) };
            let request = resolve_random(&start, Some(chosen), colors, seed * 31 + 5);
            let response = resolve(&mut client, request.clone()).await;
            let steps = check_resolution(&start, Some(chosen), Some(colors), &response);
            assert!(steps >= 1, "a valid swap always clears something");
            longest = longest.max(steps);
            runs += 1;
            // Same request, same response.
            assert_eq!(resolve(&mut client, request).await, response);
        }
    }
    assert_eq!(runs, 48);
    assert!(
        longest >= 3,
        "no cascade of 3+ steps in 48 runs (longest {longest}); step k>1 scoring not exercised"
    );
}

/// A deterministic pseudo-random board (simple LCG) with colours `1..=colors` and about one
/// cell in `holes` empty (none when `holes` is 0).
fn lcg_board(width: u32, height: u32, colors: u32, holes: u32, seed: u64) -> Board {
    let mut state = seed
        .wrapping_mul(2_862_933_555_777_941_757)
        .wrapping_add(3_037_000_493);
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as u32
    };
    let cells = (0..width * height)
        .map(|_| {
            if holes > 0 && next() % holes == 0 {
                0
            } else {
                1 + next() % colors
            }
        })
        .collect();
    Board {
        width,
        height,
        cells,
        ..Default::default()
    }
}

#[tokio::test]
async fn resolve_cascade_on_arbitrary_boards_up_to_the_edges() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    // Runs touching column 63 and row 63, boards larger than the inline-work threshold, holes.
    let shapes = [
        (64, 3, 3, 0),
        (3, 64, 3, 0),
        (64, 64, 3, 0),
        (63, 5, 2, 0),
        (64, 64, 4, 7),
        (17, 9, 3, 4),
        (1, 64, 2, 0),
        (64, 1, 2, 0),
    ];
    for (seed, &(w, h, colors, holes)) in shapes.iter().enumerate() {
        let start = lcg_board(w, h, colors, holes, seed as u64);
        let response = resolve(
            &mut client,
            ResolveCascadeRequest {
                board: Some(start.clone()),
                refill: RefillMode::None as i32,
                ..Default::default()
            },
        )
        .await;
        assert!(!response.steps.is_empty(), "{w}x{h}: nothing to resolve?");
        check_resolution(&start, None, None, &response);
        let response = resolve(&mut client, resolve_random(&start, None, colors + 2, 77)).await;
        check_resolution(&start, None, Some(colors + 2), &response);
    }
    // Generated large boards, a swap, RANDOM refill.
    for seed in 0..3 {
        let (start, _) = generate(&mut client, 64, 64, 4, seed, Some(1)).await;
        let moves = dead_state(&mut client, &start).await;
        let chosen = moves[moves.len() / 2];
        let response = resolve(&mut client, resolve_random(&start, Some(chosen), 4, seed)).await;
        check_resolution(&start, Some(chosen), Some(4), &response);
    }
}

#[tokio::test]
async fn resolve_cascade_without_swap_settles_empty_cells_first() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;

    // NONE: one settling step with only falls.
    let response = resolve(&mut client, resolve_none("R.G/.GB/GBR", None)).await;
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert_eq!(step.index, 1);
    assert!(step.groups.is_empty() && step.spawns.is_empty());
    assert_eq!(falls_of(&step.falls), vec![((0, 0), (1, 0))]);
    assert_eq!(step.score, 0);
    assert_eq!(text(final_board(&response)), "..G/RGB/GBR");
    assert!(!response.stable && !response.dead);
    check_resolution(&board("R.G/.GB/GBR"), None, None, &response);

    // Nothing to settle, nothing to clear: no step at all.
    let response = resolve(&mut client, resolve_none("..G/RGB/GBR", None)).await;
    assert!(response.steps.is_empty());
    assert_eq!(text(final_board(&response)), "..G/RGB/GBR");
    assert_eq!(response.total_score, 0);

    // `colors` is ignored under NONE, whatever its value.
    for colors in [0, 17, u32::MAX] {
        let request = ResolveCascadeRequest {
            colors,
            ..resolve_none("RRR/GBG", None)
        };
        let response = resolve(&mut client, request).await;
        assert_eq!(text(final_board(&response)), ".../GBG", "colors {colors}");
    }

    // A stable board without a swap: nothing happens under either refill.
    let stable = board("RRG/GGR/BYB");
    let response = resolve(&mut client, resolve_random(&stable, None, 4, 1)).await;
    assert!(response.steps.is_empty());
    assert_eq!(text(final_board(&response)), "RRG/GGR/BYB");
    assert!(response.stable && !response.dead && !response.shuffled);
    assert_eq!(
        response.valid_swap_count as usize,
        reference::swap::valid_swaps(&grid(&stable)).len()
    );

    // RANDOM: the settling step spawns into the holes, then any runs cascade.
    for seed in 0..10 {
        let start = board("R.G.B/.GB.Y/GBRYB/..Y../BYGRG");
        let response = resolve(&mut client, resolve_random(&start, None, 5, seed)).await;
        assert!(response.steps[0].groups.is_empty());
        assert_eq!(response.steps[0].spawns.len(), 8);
        check_resolution(&start, None, Some(5), &response);
    }

    // An all-empty board: settling is only spawns.
    let empty = board("..../..../....");
    let response = resolve(&mut client, resolve_random(&empty, None, 6, 3)).await;
    assert_eq!(response.steps[0].spawns.len(), 12);
    assert!(response.steps[0].falls.is_empty());
    check_resolution(&empty, None, Some(6), &response);
}

#[tokio::test]
async fn resolve_cascade_random_refill_accepts_one_colour() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    // colors = 1 is accepted for RANDOM refill; a single-cell hole cannot form a run here.
    let start = board("RG./GRG/RGR");
    let response = resolve(&mut client, resolve_random(&start, None, 1, 9)).await;
    assert_eq!(response.steps.len(), 1);
    let spawns = &response.steps[0].spawns;
    assert_eq!(spawns.len(), 1);
    assert_eq!((cell(spawns[0].position), spawns[0].color), ((0, 2), 1));
    assert_eq!(text(step_board(&response.steps[0])), "RGR/GRG/RGR");
    check_resolution(&start, None, Some(1), &response);
}

#[tokio::test]
async fn auto_shuffle_replaces_a_dead_final_board() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let dead = board("RGB/GBR/BRG");

    // RANDOM refill, auto_shuffle unset (true): the dead board is shuffled.
    let response = resolve(&mut client, resolve_random(&dead, None, 3, 11)).await;
    assert!(response.steps.is_empty());
    assert!(response.shuffled);
    assert_eq!(
        text(response.board_before_shuffle.as_ref().unwrap()),
        "RGB/GBR/BRG"
    );
    assert!(response.stable && !response.dead);
    assert!(response.valid_swap_count >= 1);
    check_resolution(&dead, None, Some(3), &response);
    let explicit = resolve(
        &mut client,
        ResolveCascadeRequest {
            auto_shuffle: Some(true),
            ..resolve_random(&dead, None, 3, 11)
        },
    )
    .await;
    assert_eq!(explicit, response);

    // auto_shuffle = false: returned dead, unshuffled.
    let response = resolve(
        &mut client,
        ResolveCascadeRequest {
            auto_shuffle: Some(false),
            ..resolve_random(&dead, None, 3, 11)
        },
    )
    .await;
    assert!(!response.shuffled && response.board_before_shuffle.is_none());
    assert!(response.dead && response.stable);
    assert_eq!(response.valid_swap_count, 0);
    assert_eq!(text(final_board(&response)), "RGB/GBR/BRG");

    // NONE refill never shuffles, even with auto_shuffle on.
    let response = resolve(
        &mut client,
        ResolveCascadeRequest {
            auto_shuffle: Some(true),
            ..resolve_none("RGB/GBR/BRG", None)
        },
    )
    .await;
    assert!(!response.shuffled && response.dead);
    assert_eq!(text(final_board(&response)), "RGB/GBR/BRG");

    // No playable permutation exists: returned dead and unshuffled, not an error.
    let stuck = board("RG/GR");
    let response = resolve(&mut client, resolve_random(&stuck, None, 2, 1)).await;
    assert!(!response.shuffled && response.dead && response.stable);
    assert_eq!(text(final_board(&response)), "RG/GR");

    // After a real cascade: small boards with many colours often end dead; every run is
    // checked, and at least one must have cascaded into a shuffle.
    let start = board("RRG/GGR/BYB");
    let mut shuffled_after_cascade = 0;
    for seed in 0..40 {
        let request = resolve_random(&start, Some(((0, 2), (1, 2))), 9, seed);
        let response = resolve(&mut client, request).await;
        check_resolution(&start, Some(((0, 2), (1, 2))), Some(9), &response);
        if response.shuffled {
            shuffled_after_cascade += 1;
            let unshuffled = resolve(
                &mut client,
                ResolveCascadeRequest {
                    auto_shuffle: Some(false),
                    ..resolve_random(&start, Some(((0, 2), (1, 2))), 9, seed)
                },
            )
            .await;
            // Same RNG stream up to the shuffle: the same steps and the same dead board.
            assert_eq!(unshuffled.steps, response.steps, "seed {seed}");
            assert_eq!(
                unshuffled.board, response.board_before_shuffle,
                "seed {seed}"
            );
            assert!(unshuffled.dead && !unshuffled.shuffled);
        }
    }
    assert!(
        shuffled_after_cascade > 0,
        "no seed in 0..40 ended dead after the cascade"
    );
}

// ---------------------------------------------------------------------------------------------
// ValidateSwap and CheckDeadState
// ---------------------------------------------------------------------------------------------

async fn verdict(client: &mut Client, text_board: &str, a: Cell, b: Cell) -> SwapVerdict {
    let response = client
        .validate_swap(ValidateSwapRequest {
            board: Some(board(text_board)),
            swap: Some(swap(a, b)),
        })
        .await
        .unwrap_or_else(|e| panic!("{text_board} {a:?}-{b:?}: {e}"))
        .into_inner();
    if response.verdict() != SwapVerdict::Ok {
        assert!(response.groups.is_empty(), "groups only for OK");
    }
    response.verdict()
}

#[tokio::test]
async fn validate_swap_verdicts_are_answers_not_errors() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let b = "RRG/GGR";
    let cases: &[(Cell, Cell, SwapVerdict)] = &[
        ((0, 2), (1, 2), SwapVerdict::Ok),
        ((1, 2), (0, 2), SwapVerdict::Ok),
        // Off the board, in either position or both, including huge values.
        ((0, 2), (0, 3), SwapVerdict::OutOfBounds),
        ((2, 0), (1, 0), SwapVerdict::OutOfBounds),
        ((5, 5), (5, 6), SwapVerdict::OutOfBounds),
        ((u32::MAX, 0), (0, 0), SwapVerdict::OutOfBounds),
        ((0, 0), (0, u32::MAX), SwapVerdict::OutOfBounds),
        (
            (u32::MAX, u32::MAX),
            (u32::MAX, u32::MAX),
            SwapVerdict::OutOfBounds,
        ),
        // OUT_OF_BOUNDS is checked before adjacency.
        ((0, 0), (4, 4), SwapVerdict::OutOfBounds),
        // Same cell, diagonal, two apart, row wrap-around (row-major neighbours).
        ((0, 0), (0, 0), SwapVerdict::NotAdjacent),
        ((1, 1), (1, 1), SwapVerdict::NotAdjacent),
        ((0, 0), (1, 1), SwapVerdict::NotAdjacent),
        ((0, 2), (1, 1), SwapVerdict::NotAdjacent),
        ((0, 0), (0, 2), SwapVerdict::NotAdjacent),
        ((0, 2), (1, 0), SwapVerdict::NotAdjacent),
        ((1, 0), (0, 2), SwapVerdict::NotAdjacent),
        // Equal colours and swaps that form nothing.
        ((0, 0), (0, 1), SwapVerdict::NoMatch),
        ((1, 0), (1, 1), SwapVerdict::NoMatch),
        ((0, 0), (1, 0), SwapVerdict::NoMatch),
    ];
    for &(a, b_cell, expected) in cases {
        assert_eq!(
            verdict(&mut client, b, a, b_cell).await,
            expected,
            "{b} {a:?}-{b_cell:?}"
        );
    }
    // Every adjacent swap of the dead rules example board is NO_MATCH.
    for ((a, b_cell), expected) in [
        (((0, 0), (0, 1)), SwapVerdict::NoMatch),
        (((1, 1), (2, 1)), SwapVerdict::NoMatch),
        (((2, 1), (2, 2)), SwapVerdict::NoMatch),
    ] {
        assert_eq!(
            verdict(&mut client, "RGB/GBR/BRG", a, b_cell).await,
            expected
        );
    }
    // Column wrap-around on a 1-wide board is out of bounds, not adjacency.
    assert_eq!(
        verdict(&mut client, "R/G/B", (2, 0), (3, 0)).await,
        SwapVerdict::OutOfBounds
    );
    // A swap that makes a vertical run on a tall board; moving cell b is the matched one.
    assert_eq!(
        verdict(&mut client, "RG/RB/GR", (2, 0), (2, 1)).await,
        SwapVerdict::Ok
    );
}

#[tokio::test]
async fn validate_swap_agrees_with_check_dead_state_and_reference() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    for (w, h, colors, seed) in [(9, 9, 6, 7), (7, 5, 4, 3), (4, 4, 3, 2)] {
        let (b, count) = generate(&mut client, w, h, colors, seed, Some(1)).await;
        let listed = dead_state(&mut client, &b).await;
        assert_eq!(listed.len(), count as usize);
        let mut from_validate = Vec::new();
        for r in 0..h {
            for c in 0..w {
                let mut neighbours = Vec::new();
                if c + 1 < w {
                    neighbours.push((r, c + 1));
                }
                if r + 1 < h {
                    neighbours.push((r + 1, c));
                }
                for n in neighbours {
                    let mut verdicts = Vec::new();
                    for (a, bb) in [((r, c), n), (n, (r, c))] {
                        let response = client
                            .validate_swap(ValidateSwapRequest {
                                board: Some(b.clone()),
                                swap: Some(swap(a, bb)),
                            })
                            .await
                            .unwrap()
                            .into_inner();
                        if response.verdict() == SwapVerdict::Ok {
                            assert_eq!(
                                groups_of(&response.groups),
                                reference::swap::groups(&grid(&b).swapped(a, bb)),
                                "groups of {a:?}-{bb:?} on {}",
                                text(&b)
                            );
                        } else {
                            assert!(response.groups.is_empty());
                        }
                        verdicts.push(response.verdict());
                    }
                    assert_eq!(verdicts[0], verdicts[1], "order of a and b matters");
                    match verdicts[0] {
                        SwapVerdict::Ok => from_validate.push(((r, c), n)),
                        SwapVerdict::NoMatch => {}
                        other => panic!("adjacent on-board swap judged {other:?}"),
                    }
                }
            }
        }
        from_validate.sort();
        assert_eq!(from_validate, listed, "{}", text(&b));
        assert_eq!(
            listed,
            reference::swap::valid_swaps(&grid(&b)),
            "{}",
            text(&b)
        );
    }
}

#[tokio::test]
async fn check_dead_state_lists_every_valid_swap_in_order() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    // RRG/GGR: (0,2)-(1,2) only.
    assert_eq!(
        dead_state(&mut client, &board("RRG/GGR")).await,
        vec![((0, 2), (1, 2))]
    );
    // A board where one tile completes runs both ways.
    let cases = [
        "RGRR/GRGG/BYBY",
        "RGBR/RGBG/GRRB/BYBY",
        "RRGRR",
        "R/R/G/R",
        "RGB/GBR/BRG",
        "RG/GR",
        "R",
    ];
    for t in cases {
        let b = board(t);
        assert_eq!(
            dead_state(&mut client, &b).await,
            reference::swap::valid_swaps(&grid(&b)),
            "{t}"
        );
    }
    assert_eq!(
        dead_state(&mut client, &board("RRGRR")).await,
        vec![((0, 1), (0, 2)), ((0, 2), (0, 3))]
    );
    assert_eq!(
        dead_state(&mut client, &board("R/R/G/R")).await,
        vec![((2, 0), (3, 0))]
    );
}

// ---------------------------------------------------------------------------------------------
// Shuffle
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn shuffle_permutes_into_a_stable_playable_board() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    // Full boards, runs allowed.
    let inputs = [
        "RGB/GBR/BRG",
        "RRRG/GGGB/BBBR",
        "RRRRR/GGGGG/BBBBB/YYYYY",
        "RGBYP/GBYPR/BYPRG",
        "RRRGGB",
    ];
    for t in inputs {
        let input = board(t);
        for seed in [0, 5, 99] {
            let request = ShuffleRequest {
                board: Some(input.clone()),
                seed,
            };
            let response = client
                .shuffle(request.clone())
                .await
                .unwrap_or_else(|e| panic!("{t} seed {seed}: {e}"))
                .into_inner();
            let out = response.board.clone().expect("board");
            assert_eq!((out.width, out.height), (input.width, input.height), "{t}");
            assert_eq!(
                grid(&out).color_counts(),
                grid(&input).color_counts(),
                "{t} seed {seed}: {}",
                text(&out)
            );
            assert!(
                reference::swap::is_stable(&grid(&out)),
                "{t} seed {seed}: {}",
                text(&out)
            );
            let moves = dead_state(&mut client, &out).await;
            assert!(!moves.is_empty(), "{t} seed {seed}: dead shuffle");
            assert_eq!(response.valid_swap_count as usize, moves.len());
            // Deterministic by seed.
            let again = client.shuffle(request).await.unwrap().into_inner();
            assert_eq!(again, response, "{t} seed {seed}");
        }
    }
    // Different seeds on a board with many arrangements give different shuffles.
    let big = board("RGBYPO/GBYPOR/BYPORG/YPORGB/PORGBY/ORGBYP");
    let mut seen = Vec::new();
    for seed in 0..6 {
        let out = client
            .shuffle(ShuffleRequest {
                board: Some(big.clone()),
                seed,
            })
            .await
            .unwrap()
            .into_inner()
            .board
            .unwrap();
        seen.push(text(&out));
    }
    seen.sort();
    seen.dedup();
    assert!(seen.len() >= 2, "six seeds gave one shuffle");
}
