//! Hand-checked games of levels: goals met and unmet, the status order, a move after the end,
//! and simulations that are deterministic and monotone in the move limit.

use super::*;
use crate::error::{EngineError, LevelStatus};
use crate::swap::board::SwapBoard;
use crate::swap::level_layers::LevelLayers;
use crate::swap::stable::StableBoard;
use crate::swap::test_support::swap;

fn level(text: &str, move_limit: u32, goals: Vec<Goal>) -> Level {
    let board = StableBoard::try_from(SwapBoard::parse(text).unwrap()).unwrap();
    Level::new(LevelStart::Board(board), 4, move_limit, goals).unwrap()
}

fn first(level: &Level) -> LevelState {
    level.first_state(&mut crate::rng_from_seed(0)).unwrap()
}

/// Row 0 becomes G R R R after the swap: a run of three R over jelly.
const BOARD: &str = "RGR'R'/GBGB/BGBG";

#[test]
fn a_goal_met_by_the_move_wins_the_level() {
    let level = level(
        BOARD,
        5,
        vec![Goal::Score(30), Goal::Collect { color: 1, count: 3 }],
    );
    let state = first(&level);
    assert_eq!(level.status(&state), LevelStatus::Playing);
    let played = play_level_move(
        &level,
        &state,
        swap((0, 0), (0, 1)),
        100,
        &mut crate::rng_from_seed(1),
    )
    .unwrap();
    assert_eq!(played.status, LevelStatus::Won);
    assert_eq!(played.state.moves_left, 4);
    assert!(played.state.score >= 30);
    assert!(played.state.counts[1] >= 3);
    assert_eq!(played.steps[0].score, 30);
    let progress = level.progress(&played.state);
    assert!(progress.iter().all(|p| p.met));
}

#[test]
fn jelly_goals_count_the_layers_left() {
    let level = level(BOARD, 5, vec![Goal::ClearJelly]);
    let state = first(&level);
    assert_eq!(
        level.progress(&state),
        vec![GoalProgress {
            value: 2,
            met: false
        }]
    );
    let played = play_level_move(
        &level,
        &state,
        swap((0, 0), (0, 1)),
        100,
        &mut crate::rng_from_seed(1),
    )
    .unwrap();
    assert_eq!(
        level.progress(&played.state),
        vec![GoalProgress {
            value: 0,
            met: true
        }]
    );
    assert_eq!(played.status, LevelStatus::Won);
}

#[test]
fn an_unmet_goal_with_no_move_left_loses_and_a_win_on_the_last_move_wins() {
    let hard = level(BOARD, 1, vec![Goal::Score(100_000)]);
    let played = play_level_move(
        &hard,
        &first(&hard),
        swap((0, 0), (0, 1)),
        100,
        &mut crate::rng_from_seed(1),
    )
    .unwrap();
    assert_eq!(played.status, LevelStatus::LostOutOfMoves);
    assert_eq!(played.state.moves_left, 0);
    let last = level(BOARD, 1, vec![Goal::Score(30)]);
    let played = play_level_move(
        &last,
        &first(&last),
        swap((0, 0), (0, 1)),
        100,
        &mut crate::rng_from_seed(1),
    )
    .unwrap();
    assert_eq!(played.status, LevelStatus::Won);
    assert_eq!(played.state.moves_left, 0);
}

#[test]
fn a_move_after_the_end_is_refused_after_the_position_check() {
    let level = level(BOARD, 3, vec![Goal::Score(100_000)]);
    let over = LevelState {
        moves_left: 0,
        ..first(&level)
    };
    let err = play_level_move(
        &level,
        &over,
        swap((0, 0), (0, 1)),
        100,
        &mut crate::rng_from_seed(1),
    );
    assert_eq!(
        err.unwrap_err(),
        EngineError::LevelOver {
            status: LevelStatus::LostOutOfMoves
        }
    );
    let off = play_level_move(
        &level,
        &over,
        swap((0, 0), (9, 0)),
        100,
        &mut crate::rng_from_seed(1),
    );
    assert!(matches!(
        off.unwrap_err(),
        EngineError::PositionOffBoard {
            field: "swap.b",
            ..
        }
    ));
    // A board with no valid swap is LOST_DEAD once goals and moves are judged.
    let dead = level_with_start("RGB/GBR/BRG", vec![Goal::Score(10)]);
    assert_eq!(dead.status(&first(&dead)), LevelStatus::LostDead);
}

fn level_with_start(text: &str, goals: Vec<Goal>) -> Level {
    level(text, 3, goals)
}

#[test]
fn goals_are_checked_against_the_level() {
    let board = StableBoard::try_from(SwapBoard::parse(BOARD).unwrap()).unwrap();
    let start = || LevelStart::Board(board.clone());
    let err = |result: Result<Level, EngineError>| match result.unwrap_err() {
        EngineError::InvalidParameter { field, .. } => field,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        err(Level::new(start(), 4, 0, vec![Goal::ClearJelly])),
        "level.move_limit"
    );
    assert_eq!(err(Level::new(start(), 4, 5, vec![])), "level.goals");
    assert_eq!(
        err(Level::new(start(), 0, 5, vec![Goal::ClearJelly])),
        "level.colors"
    );
    let collect = Goal::Collect { color: 5, count: 3 };
    assert_eq!(err(Level::new(start(), 4, 5, vec![collect])), "level.goals");
}

/// A 7x7 layout: jelly on the middle row, a blocker in each corner.
fn layout_level(move_limit: u32) -> Level {
    let size = 49;
    let jelly = (0..size).map(|i| u8::from(i / 7 == 3)).collect();
    let blockers = (0..size)
        .map(|i| if [0, 6, 42, 48].contains(&i) { 2 } else { 0 })
        .collect();
    let layout = SwapBoard::layout(
        7,
        7,
        Vec::new(),
        Vec::new(),
        LevelLayers {
            jelly,
            blockers,
            ..Default::default()
        },
    )
    .unwrap();
    Level::new(
        LevelStart::Layout(layout),
        5,
        move_limit,
        vec![Goal::ClearJelly, Goal::ClearBlockers],
    )
    .unwrap()
}

#[test]
fn boards_generated_on_a_layout_keep_its_layers_and_are_stable() {
    let level = layout_level(20);
    for seed in 0..10 {
        let state = level.first_state(&mut crate::rng_from_seed(seed)).unwrap();
        assert!(crate::swap::stable::is_stable(&state.board));
        assert_eq!(state.board.jelly_left(), 7);
        assert_eq!(state.board.blockers_left(), 4);
        assert!(state.board.empty_cells().is_empty());
    }
}

#[test]
fn simulations_are_deterministic_and_more_moves_never_lose_a_won_game() {
    let run = |limit, seed| {
        simulate_level(&layout_level(limit), LevelPolicy::Greedy, 1, seed, || true)
            .unwrap()
            .unwrap()
    };
    let mut won = 0;
    for seed in 0..12 {
        let short = run(12, seed);
        assert_eq!(short, run(12, seed));
        if short.wins == 1 {
            won += 1;
            let long = run(20, seed);
            assert_eq!(long.wins, 1, "seed {seed}");
            // The same moves: the longer game ends with the extra moves left.
            let (a, b) = (short.moves_left.unwrap(), long.moves_left.unwrap());
            assert_eq!(b.p50, a.p50 + 8);
        }
    }
    assert!(won > 0, "the layout level is passable with 12 moves");
    let many = simulate_level(&layout_level(15), LevelPolicy::Greedy, 30, 7, || true)
        .unwrap()
        .unwrap();
    assert_eq!(many.games, 30);
    assert_eq!(many.wins + many.lost_dead + many.lost_out_of_moves, 30);
    assert!(many.pass_rate_low <= many.pass_rate && many.pass_rate <= many.pass_rate_high);
}

#[test]
fn the_wilson_interval_matches_its_formula() {
    let (low, high) = super::simulate::wilson_interval(8, 10);
    assert!((low - 0.4902).abs() < 1e-3, "{low}");
    assert!((high - 0.9433).abs() < 1e-3, "{high}");
    assert_eq!(super::simulate::wilson_interval(0, 0), (0.0, 1.0));
    // At a pass rate of 0 or 1 the bounds hold it exactly, whatever the rounding.
    assert_eq!(super::simulate::wilson_interval(30, 30).1, 1.0);
    assert_eq!(super::simulate::wilson_interval(0, 30).0, 0.0);
}

#[test]
fn blocker_and_ingredient_goals_are_met_when_the_last_one_goes() {
    // The swap makes the run G G G in row 1 next to the one-hit blocker below it: destroyed.
    let blockers = level("RBRB/GGBG/X1BRB", 3, vec![Goal::ClearBlockers]);
    let state = first(&blockers);
    assert_eq!(
        blockers.progress(&state),
        vec![GoalProgress {
            value: 1,
            met: false
        }]
    );
    let played = play_level_move(
        &blockers,
        &state,
        swap((1, 2), (1, 3)),
        100,
        &mut crate::rng_from_seed(1),
    )
    .unwrap();
    assert_eq!(played.steps[0].hits[0].blocker_left, 0);
    assert_eq!(
        blockers.progress(&played.state),
        vec![GoalProgress {
            value: 0,
            met: true
        }]
    );
    assert_eq!(played.status, LevelStatus::Won);
    // The column under the ingredient clears: it falls to the exit and is collected.
    let text = "@BG/RGB/RBG/GRB";
    let one = level(text, 3, vec![Goal::BringDown(1)]);
    let two = level(text, 1, vec![Goal::BringDown(2)]);
    let move_ = swap((3, 0), (3, 1));
    let played =
        play_level_move(&one, &first(&one), move_, 100, &mut crate::rng_from_seed(1)).unwrap();
    assert_eq!(
        played.steps[0].collected,
        vec![crate::board::Position::new(3, 0)]
    );
    assert_eq!(played.state.counts, vec![1]);
    assert_eq!(played.status, LevelStatus::Won);
    let played =
        play_level_move(&two, &first(&two), move_, 100, &mut crate::rng_from_seed(1)).unwrap();
    assert_eq!(
        two.progress(&played.state),
        vec![GoalProgress {
            value: 1,
            met: false
        }]
    );
    assert_eq!(played.status, LevelStatus::LostOutOfMoves);
}

#[test]
fn a_simulation_stops_inside_a_game_when_told_to() {
    let level = layout_level(30);
    let mut asked = 0;
    let stopped = simulate_level(&level, LevelPolicy::Greedy, 1, 3, || {
        asked += 1;
        asked <= 3
    });
    // One game of up to 30 moves: stopped at its third move, not after the game.
    assert_eq!(stopped.unwrap(), None);
    assert_eq!(asked, 4);
    let search = LevelPolicy::Search {
        candidates: 2,
        rollouts: 4,
        depth: 2,
    };
    let mut asked = 0;
    let stopped = simulate_level(&level, search, 1, 3, || {
        asked += 1;
        asked <= 2
    });
    assert_eq!(
        stopped.unwrap(),
        None,
        "stopped between rollouts of the first move"
    );
}

#[test]
fn a_layout_with_an_ingredient_on_an_exit_is_refused() {
    let layout = SwapBoard::layout(
        4,
        4,
        Vec::new(),
        [
            vec![crate::swap::pieces::PieceKind::Normal; 15],
            vec![crate::swap::pieces::PieceKind::Ingredient],
        ]
        .concat(),
        LevelLayers::default(),
    )
    .unwrap();
    let err = generate_on_layout(&layout, 4, 1, &mut crate::rng_from_seed(1)).unwrap_err();
    assert!(
        matches!(&err, EngineError::InvalidParameter { field: "layout", reason } if reason.contains("exit")),
        "{err:?}"
    );
}
