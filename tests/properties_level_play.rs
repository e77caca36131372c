//! Boards with level layers (docs/rules.md section 8) against the naive reference
//! (`tests/reference/level_play.rs`) on random boards with holes, specials, jelly, blockers,
//! locks, ingredients and exits: stability, the verdict of every adjacent pair, the valid-swap
//! list, and whole cascades (every step's groups, firings, creations, hits, falls and slides,
//! spawns and collections, and the final board) from a raw board and from a swap, under NONE
//! refill and under RANDOM refill re-simulated with the spawns the engine reported.
mod prop_support;
mod reference;

use matchgrid::engine::{
    self, CascadeOptions, CascadeStep, PieceKind, Refill, StableBoard, Swap, SwapBoard, SwapVerdict,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use prop_support::config;
use reference::Cell;
use reference::convert::{cell, cells, falls_of, groups_of, pos, spawns_of};
use reference::level_play::{self as naive, PlayLevel, PlayVerdict};

fn kind_code(kind: PieceKind) -> u32 {
    match kind {
        PieceKind::Normal => naive::NORMAL,
        PieceKind::StripedH => naive::STRIPED_H,
        PieceKind::StripedV => naive::STRIPED_V,
        PieceKind::Wrapped => naive::WRAPPED,
        PieceKind::ColorBomb => naive::COLOR_BOMB,
        PieceKind::Ingredient => naive::INGREDIENT,
    }
}

fn verdict_of(verdict: SwapVerdict) -> PlayVerdict {
    match verdict {
        SwapVerdict::Ok => PlayVerdict::Ok,
        SwapVerdict::OutOfBounds => PlayVerdict::OutOfBounds,
        SwapVerdict::Hole => PlayVerdict::Hole,
        SwapVerdict::Blocked => PlayVerdict::Blocked,
        SwapVerdict::NotAdjacent => PlayVerdict::NotAdjacent,
        SwapVerdict::EmptyCell => PlayVerdict::EmptyCell,
        SwapVerdict::NoMatch => PlayVerdict::NoMatch,
    }
}

/// A step as both sides report it (the reference's per-colour clear counts aside).
type Reported = (
    Vec<(u32, Vec<Cell>)>,
    Vec<(Cell, u32)>,
    Vec<(Cell, u32, u32)>,
    Vec<Cell>,
    Vec<(Cell, u32, u32, bool)>,
    Vec<(Cell, Cell)>,
    Vec<(Cell, u32)>,
    Vec<Cell>,
    u64,
);

fn engine_step(step: &CascadeStep) -> Reported {
    (
        groups_of(&step.groups),
        step.fired
            .iter()
            .map(|s| (cell(s.position), kind_code(s.kind)))
            .collect(),
        step.created
            .iter()
            .map(|s| (cell(s.position), kind_code(s.kind), u32::from(s.color)))
            .collect(),
        cells(&step.effect_cleared),
        step.hits
            .iter()
            .map(|h| {
                let (jelly, blocker) = (u32::from(h.jelly_left), u32::from(h.blocker_left));
                (cell(h.position), jelly, blocker, h.lock_removed)
            })
            .collect(),
        falls_of(&step.falls),
        spawns_of(&step.spawns),
        cells(&step.collected),
        step.score,
    )
}

fn naive_step(step: &naive::PlayStep) -> Reported {
    (
        step.groups.clone(),
        step.fired.clone(),
        step.created.clone(),
        step.effect_cleared.clone(),
        step.hits
            .iter()
            .map(|h| (h.cell, h.jelly_left, h.blocker_left, h.lock_removed))
            .collect(),
        step.falls.clone(),
        step.spawns.clone(),
        step.collected.clone(),
        step.score,
    )
}

/// One cell of a random board, in the text form both sides parse.
fn cell_text(
    (base, color, kind, lock, jelly, hp): (u32, u32, u32, u32, u32, u32),
    exit: bool,
) -> String {
    let mut text = String::new();
    let letters = reference::LETTERS;
    let mut colored = false;
    match base {
        0 => return "#".to_owned(),
        1 => text.push_str(&format!("X{}", hp % 5 + 1)),
        2 => text.push('@'),
        3 => text.push('*'),
        4 => text.push('.'),
        _ => {
            colored = true;
            text.push(letters[color as usize - 1] as char);
            match kind {
                0 => text.push('-'),
                1 => text.push('|'),
                2 => text.push('+'),
                _ => {}
            }
        }
    }
    if colored && lock == 0 {
        text.push('~');
    }
    match jelly {
        0 => text.push('\''),
        1 => text.push('"'),
        _ => {}
    }
    if exit {
        text.push('_');
    }
    text
}

/// A random board with level layers as text: sides 2..=8, 3..=6 colours; about 1 cell in 12 a
/// hole, 1 in 8 a blocker, 1 in 16 an ingredient, 1 in 24 a bomb, 1 in 24 empty (when
/// `empties`); 1 coloured tile in 8 a special and 1 in 6 locked; jelly on 2 cells in 7; the
/// default exits, or in one board of four exits of its own.
fn level_text(empties: bool) -> impl Strategy<Value = String> {
    (2usize..=8, 2usize..=8, 3u32..=6, any::<bool>()).prop_flat_map(move |(w, h, colors, own)| {
        let cell = (
            0u32..48,
            1..=colors,
            0u32..24,
            0u32..6,
            0u32..7,
            0u32..5,
            0u32..5,
        );
        proptest::collection::vec(cell, w * h).prop_map(move |raw| {
            let rows: Vec<String> = raw
                .chunks(w)
                .map(|row| {
                    row.iter()
                        .map(|&(base, color, kind, lock, jelly, hp, exit)| {
                            let base = match base {
                                0..=3 => 0,
                                4..=9 => 1,
                                10..=12 => 2,
                                13..=14 => 3,
                                15..=16 if empties => 4,
                                _ => 5,
                            };
                            cell_text((base, color, kind, lock, jelly, hp), own && exit == 0)
                        })
                        .collect()
                })
                .collect();
            rows.join("/")
        })
    })
}

const NONE: CascadeOptions = CascadeOptions {
    refill: Refill::None,
    auto_shuffle: true,
    max_steps: 1000,
    specials: true,
};

const RANDOM: CascadeOptions = CascadeOptions {
    refill: Refill::Random { colors: 5 },
    ..NONE
};

/// The engine's board for `text`, or `None` when the text makes no board with level layers
/// (an exit drawn on a hole, a blocker everywhere...).
fn boards(text: &str) -> Option<(SwapBoard, PlayLevel)> {
    let board = SwapBoard::parse(text).ok()?;
    if !board.has_level_layers() {
        return None;
    }
    Some((board, PlayLevel::parse(text)))
}

/// Checks the engine's cascade against the reference's from the same start, the reference
/// drawing the engine's spawns in order.
fn check_cascade(
    naive_board: &PlayLevel,
    swap: Option<(Cell, Cell)>,
    outcome: &engine::CascadeOutcome,
) -> TestCaseResult {
    let spawns: Vec<u32> = outcome
        .steps
        .iter()
        .flat_map(|step| step.spawns.iter().map(|s| u32::from(s.color)))
        .collect();
    let mut colours = spawns.into_iter();
    let random = outcome.steps.iter().any(|step| !step.spawns.is_empty());
    let (steps, last) = naive_board.resolve(
        swap,
        random.then_some(&mut colours as &mut dyn Iterator<Item = u32>),
    );
    let expected: Vec<Reported> = steps.iter().map(naive_step).collect();
    let actual: Vec<Reported> = outcome.steps.iter().map(engine_step).collect();
    prop_assert_eq!(
        actual,
        expected,
        "board {} swap {:?}",
        naive_board.text(),
        swap
    );
    let before = outcome
        .board_before_shuffle
        .as_ref()
        .unwrap_or(&outcome.board);
    prop_assert_eq!(before.to_string(), last.text());
    Ok(())
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn a_raw_board_cascades_as_the_reference_says(text in level_text(true)) {
        let Some((board, naive_board)) = boards(&text) else { return Ok(()) };
        let none = engine::resolve_board(board.clone(), NONE, &mut engine::rng_from_seed(1));
        check_cascade(&naive_board, None, &none.unwrap())?;
        if naive_board.is_stable(false) {
            // Nothing to settle and no run: no step at all.
            let again = engine::resolve_board(board.clone(), NONE, &mut engine::rng_from_seed(1));
            prop_assert!(again.unwrap().steps.is_empty());
        }
        let random = engine::resolve_board(board, RANDOM, &mut engine::rng_from_seed(2));
        check_cascade(&naive_board, None, &random.unwrap())?;
    }

    #[test]
    fn swaps_judge_and_cascade_as_the_reference_says(text in level_text(true), pick in any::<usize>()) {
        let Some((raw, _)) = boards(&text) else { return Ok(()) };
        // A stable start: the board resolved under RANDOM refill.
        let settled = engine::resolve_board(raw, RANDOM, &mut engine::rng_from_seed(3)).unwrap();
        let start = settled.board_before_shuffle.unwrap_or(settled.board);
        let naive_board = PlayLevel::parse(&start.to_string());
        prop_assert_eq!(engine::is_stable(&start), naive_board.is_stable(true));
        prop_assert!(naive_board.is_stable(true), "{}", start);
        let stable = StableBoard::try_from(start).unwrap();
        let (w, h) = (naive_board.w as u32, naive_board.h as u32);
        for row in 0..h {
            for col in 0..w {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1)] {
                    let (a, b) = ((row, col), (row + dr, col + dc));
                    let verdict = engine::judge_swap(&stable, Swap::new(pos(a), pos(b)));
                    prop_assert_eq!(verdict_of(verdict), naive_board.verdict(a, b), "{:?} {:?}", a, b);
                }
            }
        }
        let swaps: Vec<(Cell, Cell)> = engine::valid_swaps(&stable)
            .into_iter()
            .map(|swap| (cell(swap.a), cell(swap.b)))
            .collect();
        prop_assert_eq!(&swaps, &naive_board.valid_swaps());
        prop_assert_eq!(engine::is_dead(&stable), swaps.is_empty());
        let Some(&(a, b)) = swaps.get(pick % swaps.len().max(1)) else { return Ok(()) };
        let swap = Swap::new(pos(a), pos(b));
        for (options, seed) in [(NONE, 4), (RANDOM, 5)] {
            let outcome = engine::resolve_swap(stable.clone(), swap, options, &mut engine::rng_from_seed(seed));
            check_cascade(&naive_board, Some((a, b)), &outcome.unwrap())?;
            let played = engine::play_swap(stable.clone(), swap, options, &mut engine::rng_from_seed(seed)).unwrap();
            let full = engine::resolve_swap(stable.clone(), swap, options, &mut engine::rng_from_seed(seed)).unwrap();
            prop_assert_eq!(played.board, full.board);
            prop_assert_eq!(played.score, full.total_score);
        }
    }
}

/// A random goal list: each goal kind with probability 1/2 (at least one goal).
fn goals() -> impl Strategy<Value = Vec<engine::Goal>> {
    (
        proptest::option::of(30u64..800),
        any::<bool>(),
        proptest::option::of((1u8..=5, 2u64..15)),
        any::<bool>(),
        proptest::option::of(1u64..3),
    )
        .prop_map(|(score, jelly, collect, blockers, bring_down)| {
            let mut goals = Vec::new();
            goals.extend(score.map(engine::Goal::Score));
            if jelly {
                goals.push(engine::Goal::ClearJelly);
            }
            goals.extend(collect.map(|(color, count)| engine::Goal::Collect { color, count }));
            if blockers {
                goals.push(engine::Goal::ClearBlockers);
            }
            goals.extend(bring_down.map(engine::Goal::BringDown));
            if goals.is_empty() {
                goals.push(engine::Goal::Score(100));
            }
            goals
        })
}

fn naive_goal(goal: &engine::Goal) -> naive::Goal {
    match *goal {
        engine::Goal::Score(n) => naive::Goal::Score(n),
        engine::Goal::ClearJelly => naive::Goal::ClearJelly,
        engine::Goal::Collect { color, count } => naive::Goal::Collect {
            color: u32::from(color),
            count: count as u32,
        },
        engine::Goal::ClearBlockers => naive::Goal::ClearBlockers,
        engine::Goal::BringDown(n) => naive::Goal::BringDown(n as u32),
    }
}

fn naive_status(status: engine::LevelStatus) -> naive::Status {
    match status {
        engine::LevelStatus::Playing => naive::Status::Playing,
        engine::LevelStatus::Won => naive::Status::Won,
        engine::LevelStatus::LostOutOfMoves => naive::Status::LostOutOfMoves,
        engine::LevelStatus::LostDead => naive::Status::LostDead,
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Whole games of random levels: after every move, the state's score, each goal's progress
    /// and the status are what the reference computes from the same cascade (re-simulated with
    /// the engine's spawns), a move after the end is refused, and the first state's status
    /// follows the same order.
    #[test]
    fn level_games_keep_score_goals_and_status_as_the_reference_says(
        text in level_text(false),
        goals in goals(),
        move_limit in 1u32..=6,
        picks in proptest::collection::vec(any::<usize>(), 6),
        seed in any::<u64>(),
    ) {
        let Some((raw, _)) = boards(&text) else { return Ok(()) };
        let settled = engine::resolve_board(raw, RANDOM, &mut engine::rng_from_seed(seed)).unwrap();
        let start = settled.board_before_shuffle.unwrap_or(settled.board);
        let stable = StableBoard::try_from(start).unwrap();
        let level = engine::Level::new(engine::LevelStart::Board(stable), 5, move_limit, goals.clone()).unwrap();
        let mut state = level.first_state(&mut engine::rng_from_seed(0)).unwrap();
        let naive_goals: Vec<naive::Goal> = goals.iter().map(naive_goal).collect();
        let (mut score, mut cleared, mut collected) = (0u64, vec![0u32; 17], 0u32);
        let progress_of = |board: &PlayLevel, score: u64, cleared: &[u32], collected: u32| {
            naive_goals
                .iter()
                .map(|goal| naive::goal_progress(goal, board, score, cleared, collected))
                .collect::<Vec<_>>()
        };
        let engine_progress = |state: &engine::LevelState| {
            level.progress(state).iter().map(|p| (p.value, p.met)).collect::<Vec<_>>()
        };
        let mut naive_board = PlayLevel::parse(&state.board.to_string());
        let first = progress_of(&naive_board, 0, &cleared, 0);
        prop_assert_eq!(engine_progress(&state), first.clone());
        let met = first.iter().all(|&(_, met)| met);
        let expected = naive::status(met, move_limit, !naive_board.valid_swaps().is_empty());
        let mut status = level.status(&state);
        prop_assert_eq!(naive_status(status), expected);
        for pick in picks {
            let swaps = naive_board.valid_swaps();
            let Some(&(a, b)) = swaps.get(pick % swaps.len().max(1)) else { break };
            let swap = Swap::new(pos(a), pos(b));
            let played = engine::play_level_move(&level, &state, swap, 1000, &mut engine::rng_from_seed(pick as u64));
            if status != engine::LevelStatus::Playing {
                let refused = matches!(played, Err(engine::EngineError::LevelOver { status: s }) if s == status);
                prop_assert!(refused, "{:?}", played);
                break;
            }
            let played = played.unwrap();
            let spawns: Vec<u32> = played
                .steps
                .iter()
                .flat_map(|step| step.spawns.iter().map(|s| u32::from(s.color)))
                .collect();
            let (steps, after) = naive_board.resolve(
                Some((a, b)),
                Some(&mut spawns.into_iter() as &mut dyn Iterator<Item = u32>),
            );
            for step in &steps {
                score += step.score;
                collected += step.collected.len() as u32;
                for (total, n) in cleared.iter_mut().zip(&step.cleared_by_color) {
                    *total += n;
                }
            }
            let before_shuffle = played.board_before_shuffle.as_ref().unwrap_or(&played.state.board);
            prop_assert_eq!(before_shuffle.to_string(), after.text());
            naive_board = PlayLevel::parse(&played.state.board.to_string());
            prop_assert_eq!(played.state.score, score);
            prop_assert_eq!(played.state.moves_left, state.moves_left - 1);
            let progress = progress_of(&naive_board, score, &cleared, collected);
            prop_assert_eq!(engine_progress(&played.state), progress.clone());
            let met = progress.iter().all(|&(_, met)| met);
            let expected = naive::status(met, played.state.moves_left, !naive_board.valid_swaps().is_empty());
            prop_assert_eq!(naive_status(played.status), expected);
            status = played.status;
            state = played.state;
        }
    }
}
