//! The 20 standard 15x15, 5-colour SameGame positions of the research literature
//! (`shared/data/samegame-standard-20.txt`), through the gRPC-facing transport functions.
//!
//! For each position: `CheckDeadState` (SAMEGAME rule, min_group 2) reports exactly the legal
//! groups a brute-force flood fill finds (count, representatives, colours, sizes, scores); then
//! the position is played to the end with a deterministic greedy policy (tap the largest group,
//! ties by first cell in row-major order) through `Tap`, every move checked against a naive
//! model, and the final score checked to be the sum of the moves plus the end bonus. A few
//! absolute numbers computed by the brute force are pinned.

use std::collections::VecDeque;

use matchgrid::proto;
use matchgrid::transport::collapse as rpc;

const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/data/samegame-standard-20.txt"
);

const SIDE: usize = 15;

/// A 15x15 position, row-major, colours `1..=5` (file value + 1), 0 for empty.
type Cells = Vec<u8>;

/// Parses the data file: 20 blocks of 15 lines of 15 integers `0..=4`, blank lines between.
fn load_positions() -> Vec<Cells> {
    let text = std::fs::read_to_string(DATA).unwrap_or_else(|e| panic!("reading {DATA}: {e}"));
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.lines() {
        if line.trim().is_empty() {
            if !blocks.last().unwrap().is_empty() {
                blocks.push(Vec::new());
            }
        } else {
            blocks.last_mut().unwrap().push(line);
        }
    }
    if blocks.last().unwrap().is_empty() {
        blocks.pop();
    }
    assert_eq!(blocks.len(), 20, "the file holds 20 positions");
    blocks
        .iter()
        .enumerate()
        .map(|(b, lines)| {
            assert_eq!(lines.len(), SIDE, "position {} has 15 rows", b + 1);
            let mut cells = Vec::with_capacity(SIDE * SIDE);
            for line in lines {
                let row: Vec<u8> = line
                    .split_whitespace()
                    .map(|v| v.parse::<u8>().unwrap())
                    .collect();
                assert_eq!(row.len(), SIDE, "position {} has 15 columns", b + 1);
                assert!(row.iter().all(|&v| v <= 4), "values are 0..=4");
                cells.extend(row.iter().map(|&v| v + 1));
            }
            cells
        })
        .collect()
}

fn wire(cells: &Cells) -> proto::Board {
    proto::Board {
        width: SIDE as u32,
        height: SIDE as u32,
        cells: cells.iter().map(|&c| u32::from(c)).collect(),
    }
}

fn tiles(cells: &Cells) -> usize {
    cells.iter().filter(|&&c| c != 0).count()
}

/// The component of non-empty cell `start`, row-major (BFS).
fn component(cells: &Cells, start: usize) -> Vec<usize> {
    let color = cells[start];
    let mut seen = vec![false; cells.len()];
    let mut members = vec![start];
    let mut queue = VecDeque::from([start]);
    seen[start] = true;
    while let Some(i) = queue.pop_front() {
        let (r, c) = (i / SIDE, i % SIDE);
        let mut next = Vec::new();
        if r > 0 {
            next.push(i - SIDE);
        }
        if r + 1 < SIDE {
            next.push(i + SIDE);
        }
        if c > 0 {
            next.push(i - 1);
        }
        if c + 1 < SIDE {
            next.push(i + 1);
        }
        for j in next {
            if !seen[j] && cells[j] == color {
                seen[j] = true;
                members.push(j);
                queue.push_back(j);
            }
        }
    }
    members.sort_unstable();
    members
}

/// Brute-force legal groups (size >= 2): (first cell, colour, size), by first cell.
fn legal_groups(cells: &Cells) -> Vec<(usize, u8, usize)> {
    let mut done = vec![false; cells.len()];
    let mut out = Vec::new();
    for i in 0..cells.len() {
        if cells[i] == 0 || done[i] {
            continue;
        }
        let members = component(cells, i);
        for &j in &members {
            done[j] = true;
        }
        if members.len() >= 2 {
            out.push((i, cells[i], members.len()));
        }
    }
    out
}

/// Clears `members`, applies gravity, closes empty columns.
fn apply(cells: &Cells, members: &[usize]) -> Cells {
    let mut cleared = cells.clone();
    for &i in members {
        cleared[i] = 0;
    }
    let mut columns: Vec<Vec<u8>> = Vec::new();
    for c in 0..SIDE {
        let column: Vec<u8> = (0..SIDE)
            .map(|r| cleared[r * SIDE + c])
            .filter(|&v| v != 0)
            .collect();
        if !column.is_empty() {
            columns.push(column);
        }
    }
    let mut out = vec![0; SIDE * SIDE];
    for (c, column) in columns.iter().enumerate() {
        let top = SIDE - column.len();
        for (k, &v) in column.iter().enumerate() {
            out[(top + k) * SIDE + c] = v;
        }
    }
    out
}

fn samegame_score(n: usize) -> u64 {
    let n = n as u64;
    (n - 2) * (n - 2)
}

fn check_dead_state(cells: &Cells) -> proto::CollapseCheckDeadStateResponse {
    rpc::check_dead_state(proto::CollapseCheckDeadStateRequest {
        board: Some(wire(cells)),
        scoring: proto::ScoringRule::Samegame as i32,
        min_group: 2,
    })
    .expect("a standard position is a well-formed, settled board")
}

/// Checks CheckDeadState's groups against the brute force; returns the brute-force groups.
fn check_groups(label: &str, cells: &Cells) -> Vec<(usize, u8, usize)> {
    let expected = legal_groups(cells);
    let response = check_dead_state(cells);
    let actual: Vec<(usize, u8, usize)> = response
        .groups
        .iter()
        .map(|g| {
            let p = g.representative.unwrap();
            (
                p.row as usize * SIDE + p.col as usize,
                g.color as u8,
                g.size as usize,
            )
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
    assert_eq!(response.tiles_left as usize, tiles(cells), "{label}: tiles");
    let bonus = if response.game_over && tiles(cells) == 0 {
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
fn play_greedy(label: &str, start: &Cells) -> Game {
    let mut cells = start.clone();
    let (mut moves, mut move_sum, mut wire_total) = (0usize, 0u64, 0i64);
    loop {
        let groups = check_groups(&format!("{label} before move {}", moves + 1), &cells);
        if groups.is_empty() {
            panic!("{label}: no legal group left but the last tap did not report game over");
        }
        let &(first, color, size) = groups
            .iter()
            .max_by(|a, b| a.2.cmp(&b.2).then(b.0.cmp(&a.0)))
            .unwrap();
        let members = component(&cells, first);
        assert_eq!(members.len(), size);
        let response = rpc::tap(proto::TapRequest {
            board: Some(wire(&cells)),
            position: Some(proto::Position {
                row: (first / SIDE) as u32,
                col: (first % SIDE) as u32,
            }),
            scoring: proto::ScoringRule::Samegame as i32,
            min_group: 2,
        })
        .unwrap_or_else(|e| panic!("{label}: tap {moves}: {e:?}"));
        let next = apply(&cells, &members);
        let ctx = format!("{label} move {}", moves + 1);
        let cleared: Vec<usize> = response
            .cleared
            .iter()
            .map(|p| p.row as usize * SIDE + p.col as usize)
            .collect();
        assert_eq!(cleared, members, "{ctx}: cleared group");
        assert_eq!(response.color, u32::from(color), "{ctx}: colour");
        assert_eq!(response.board, Some(wire(&next)), "{ctx}: board after");
        assert_eq!(tiles(&cells) - size, tiles(&next), "{ctx}: tiles conserved");
        assert_eq!(
            response.tiles_left as usize,
            tiles(&next),
            "{ctx}: tiles left"
        );
        assert_eq!(
            response.move_score,
            samegame_score(size),
            "{ctx}: move score"
        );
        let over = legal_groups(&next).is_empty();
        assert_eq!(response.game_over, over, "{ctx}: game over");
        let bonus = if over && tiles(&next) == 0 { 1000 } else { 0 };
        assert_eq!(response.end_bonus, bonus, "{ctx}: end bonus");
        assert_eq!(
            response.total_score,
            response.move_score as i64 + response.end_bonus,
            "{ctx}: total"
        );
        moves += 1;
        move_sum += response.move_score;
        wire_total += response.total_score;
        cells = next;
        if over {
            let end = check_dead_state(&cells);
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
                tiles_left: tiles(&cells),
            };
        }
        assert!(moves < SIDE * SIDE, "{label}: more moves than tiles");
    }
}

#[test]
fn standard_positions_load_and_report_their_groups() {
    let positions = load_positions();
    for (p, cells) in positions.iter().enumerate() {
        assert_eq!(tiles(cells), SIDE * SIDE, "position {} is full", p + 1);
        assert!(
            (1..=5).all(|c| cells.contains(&c)),
            "position {} uses 5 colours",
            p + 1
        );
        let groups = check_groups(&format!("position {}", p + 1), cells);
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
    let positions = load_positions();
    let mut games = Vec::new();
    for (p, cells) in positions.iter().enumerate() {
        let game = play_greedy(&format!("position {}", p + 1), cells);
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

// Pinned numbers, computed by this file's brute force (see `print_brute_force_numbers`) and
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
    let positions = load_positions();
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
        let mut cells = start.clone();
        let (mut moves, mut score) = (0usize, 0i64);
        loop {
            let groups = legal_groups(&cells);
            let Some(&(first, _, size)) = groups
                .iter()
                .max_by(|a, b| a.2.cmp(&b.2).then(b.0.cmp(&a.0)))
            else {
                break;
            };
            cells = apply(&cells, &component(&cells, first));
            moves += 1;
            score += samegame_score(size) as i64;
        }
        if tiles(&cells) == 0 {
            score += 1000;
        }
        println!(
            "position {}: greedy {moves} moves, {} left, score {score}",
            p + 1,
            tiles(&cells)
        );
        if p == 0 {
            assert_eq!((moves, tiles(&cells), score), POSITION_1_GREEDY);
        }
        sum += score;
    }
    println!("all positions greedy total {sum}");
    assert_eq!(sum, ALL_POSITIONS_GREEDY_TOTAL);
    assert_eq!(groups.len(), POSITION_1_LEGAL_GROUPS);
}
