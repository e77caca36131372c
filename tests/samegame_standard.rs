//! The 20 standard 15x15, 5-colour SameGame positions of the research literature
//! (`data/samegame-standard-20.txt`), through the gRPC-facing transport functions.
//!
//! For each position: `CheckDeadState` (SAMEGAME rule, min_group 2) reports exactly the legal
//! groups a brute-force flood fill finds (count, representatives, colours, sizes, scores); then
//! the position is played to the end with a deterministic greedy policy (tap the largest group,
//! ties by first cell in row-major order) through `Tap`, every move checked against a naive
//! model, and the final score checked to be the sum of the moves plus the end bonus. A few
//! absolute numbers computed by the brute force are pinned. The flood fill and the naive tap are
//! the reference rules (`tests/reference`); the positions are loaded by `api_support`.

mod api_support;
mod reference;

use matchgrid::proto::{self, Board};
use matchgrid::transport::collapse as rpc;
use reference::Cell;
use reference::collapse::Rule;
use reference::convert::grid;

const SIDE: usize = 15;

/// Brute-force legal groups (size >= 2): (first cell, colour, size), by first cell.
fn legal_groups(board: &Board) -> Vec<(Cell, u32, usize)> {
    reference::collapse::legal_groups(&grid(board), 2)
}

fn samegame_score(n: usize) -> u64 {
    Rule::SameGame.move_score(n as u64)
}

fn check_dead_state(board: &Board) -> proto::CollapseCheckDeadStateResponse {
    rpc::check_dead_state(proto::CollapseCheckDeadStateRequest {
        board: Some(board.clone()),
        scoring: proto::ScoringRule::Samegame as i32,
        min_group: 2,
    })
    .expect("a standard position is a well-formed, settled board")
}

/// Checks CheckDeadState's groups against the brute force; returns the brute-force groups.
fn check_groups(label: &str, board: &Board) -> Vec<(Cell, u32, usize)> {
    let expected = legal_groups(board);
    let response = check_dead_state(board);
    let actual: Vec<(Cell, u32, usize)> = response
        .groups
        .iter()
        .map(|g| {
            let p = g.representative.unwrap();
            ((p.row, p.col), g.color, g.size as usize)
        })
        .collect();
    assert_eq!(actual, expected, "{label}: legal groups");
    for g in &response.groups {
        assert_eq!(
            g.score,
            samegame_score(g.size as usize),
            "{label}: group score"
        );
    }
    assert_eq!(
        response.game_over,
        expected.is_empty(),
        "{label}: game over"
    );
    let tiles = grid(board).tiles();
    assert_eq!(response.tiles_left as usize, tiles, "{label}: tiles");
    let bonus = if response.game_over && tiles == 0 {
        1000
    } else {
        0
    };
    assert_eq!(response.end_bonus, bonus, "{label}: end bonus");
    expected
}

/// The result of one greedy game.
#[derive(Debug)]
struct Game {
    moves: usize,
    move_sum: u64,
    end_bonus: i64,
    total: i64,
    tiles_left: usize,
}

/// Plays greedily (largest group, ties by first cell) through the transport `Tap` to the end.
fn play_greedy(label: &str, start: &Board) -> Game {
    let mut board = start.clone();
    let (mut moves, mut move_sum, mut wire_total) = (0usize, 0u64, 0i64);
    loop {
        let groups = check_groups(&format!("{label} before move {}", moves + 1), &board);
        if groups.is_empty() {
            panic!("{label}: no legal group left but the last tap did not report game over");
        }
        let &(first, color, size) = groups
            .iter()
            .max_by(|a, b| a.2.cmp(&b.2).then(b.0.cmp(&a.0)))
            .unwrap();
        let expected = reference::collapse::tap(&grid(&board), first);
        assert_eq!(expected.cleared.len(), size);
        let response = rpc::tap(proto::TapRequest {
            board: Some(board.clone()),
            position: Some(proto::Position {
                row: first.0,
                col: first.1,
            }),
            scoring: proto::ScoringRule::Samegame as i32,
            min_group: 2,
        })
        .unwrap_or_else(|e| panic!("{label}: tap {moves}: {e:?}"));
        let next = expected.board.proto();
        let ctx = format!("{label} move {}", moves + 1);
        let cleared: Vec<Cell> = response.cleared.iter().map(|p| (p.row, p.col)).collect();
        assert_eq!(cleared, expected.cleared, "{ctx}: cleared group");
        assert_eq!(response.color, color, "{ctx}: colour");
        assert_eq!(response.board.as_ref(), Some(&next), "{ctx}: board after");
        let tiles_left = grid(&next).tiles();
        assert_eq!(
            grid(&board).tiles() - size,
            tiles_left,
            "{ctx}: tiles conserved"
        );
        assert_eq!(
            response.tiles_left as usize, tiles_left,
            "{ctx}: tiles left"
        );
        assert_eq!(
            response.move_score,
            samegame_score(size),
            "{ctx}: move score"
        );
        let over = legal_groups(&next).is_empty();
        assert_eq!(response.game_over, over, "{ctx}: game over");
        let bonus = if over && tiles_left == 0 { 1000 } else { 0 };
        assert_eq!(response.end_bonus, bonus, "{ctx}: end bonus");
        assert_eq!(
            response.total_score,
            response.move_score as i64 + response.end_bonus,
            "{ctx}: total"
        );
        moves += 1;
        move_sum += response.move_score;
        wire_total += response.total_score;
        board = next;
        if over {
            let end = check_dead_state(&board);
            assert!(
                end.game_over && end.groups.is_empty(),
                "{label}: final state"
            );
            assert_eq!(end.end_bonus, bonus, "{label}: final end bonus");
            let total = move_sum as i64 + bonus;
            assert_eq!(
                wire_total, total,
                "{label}: final score = moves + end bonus"
            );
            return Game {
                moves,
                move_sum,
                end_bonus: bonus,
                total,
                tiles_left,
            };
        }
        assert!(moves < SIDE * SIDE, "{label}: more moves than tiles");
    }
}

#[test]
fn standard_positions_load_and_report_their_groups() {
    let positions = api_support::standard_positions();
    for (p, board) in positions.iter().enumerate() {
        assert_eq!(
            grid(board).tiles(),
            SIDE * SIDE,
            "position {} is full",
            p + 1
        );
        assert!(
            (1..=5).all(|c| board.cells.contains(&c)),
            "position {} uses 5 colours",
            p + 1
        );
        let groups = check_groups(&format!("position {}", p + 1), board);
        assert!(!groups.is_empty(), "position {} has moves", p + 1);
    }
    // Pinned from the brute force: position 1.
    let groups = legal_groups(&positions[0]);
    assert_eq!(groups.len(), POSITION_1_LEGAL_GROUPS);
    assert_eq!(
        groups.iter().map(|g| g.2).max(),
        Some(POSITION_1_LARGEST_GROUP)
    );
    assert_eq!(
        groups.iter().map(|g| g.2).sum::<usize>(),
        POSITION_1_TILES_IN_GROUPS
    );
    let total: usize = positions.iter().map(|c| legal_groups(c).len()).sum();
    assert_eq!(total, ALL_POSITIONS_LEGAL_GROUPS);
}

#[test]
fn standard_positions_play_greedily_to_the_end() {
    let positions = api_support::standard_positions();
    let mut games = Vec::new();
    for (p, board) in positions.iter().enumerate() {
        let game = play_greedy(&format!("position {}", p + 1), board);
        assert_eq!(game.total, game.move_sum as i64 + game.end_bonus);
        assert_eq!(game.end_bonus, if game.tiles_left == 0 { 1000 } else { 0 });
        games.push(game);
    }
    // Pinned from the brute-force model.
    let first = &games[0];
    assert_eq!(
        (first.moves, first.tiles_left, first.total),
        POSITION_1_GREEDY
    );
    let sum: i64 = games.iter().map(|g| g.total).sum();
    assert_eq!(sum, ALL_POSITIONS_GREEDY_TOTAL);
}

// Pinned numbers, computed by the reference brute force (see `brute_force_reproduces_the_pinned_numbers`) and
// cross-checked with an independent script. Position 1 has 44 groups of 2+ tiles, the largest
// of 5; the greedy policy plays 67 moves there and leaves 34 tiles.
const POSITION_1_LEGAL_GROUPS: usize = 44;
const POSITION_1_LARGEST_GROUP: usize = 5;
const POSITION_1_TILES_IN_GROUPS: usize = 113;
const ALL_POSITIONS_LEGAL_GROUPS: usize = 895;
/// (moves, tiles left, final score) of the greedy game on position 1.
const POSITION_1_GREEDY: (usize, usize, i64) = (67, 34, 111);
const ALL_POSITIONS_GREEDY_TOTAL: i64 = 4502;

/// Recomputes the pinned numbers from the brute force alone, without the engine, and checks
/// them (run with `--nocapture` to see them).
#[test]
fn brute_force_reproduces_the_pinned_numbers() {
    let positions = api_support::standard_positions();
    let groups = legal_groups(&positions[0]);
    println!(
        "position 1: {} legal groups, largest {}, {} tiles in groups",
        groups.len(),
        groups.iter().map(|g| g.2).max().unwrap(),
        groups.iter().map(|g| g.2).sum::<usize>()
    );
    println!(
        "all positions: {} legal groups",
        positions
            .iter()
            .map(|c| legal_groups(c).len())
            .sum::<usize>()
    );
    let mut sum = 0i64;
    for (p, start) in positions.iter().enumerate() {
        let mut board = start.clone();
        let (mut moves, mut score) = (0usize, 0i64);
        loop {
            let groups = legal_groups(&board);
            let Some(&(first, _, size)) = groups
                .iter()
                .max_by(|a, b| a.2.cmp(&b.2).then(b.0.cmp(&a.0)))
            else {
                break;
            };
            board = reference::collapse::tap(&grid(&board), first).board.proto();
            moves += 1;
            score += samegame_score(size) as i64;
        }
        if grid(&board).tiles() == 0 {
            score += 1000;
        }
        println!(
            "position {}: greedy {moves} moves, {} left, score {score}",
            p + 1,
            grid(&board).tiles()
        );
        if p == 0 {
            assert_eq!((moves, grid(&board).tiles(), score), POSITION_1_GREEDY);
        }
        sum += score;
    }
    println!("all positions greedy total {sum}");
    assert_eq!(sum, ALL_POSITIONS_GREEDY_TOTAL);
    assert_eq!(groups.len(), POSITION_1_LEGAL_GROUPS);
}
