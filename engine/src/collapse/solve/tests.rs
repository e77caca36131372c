//! [`solve`](super::solve) against brute force on small boards, its determinism, its limits
//! and its methods.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rand::Rng;

use super::*;
use crate::board::Board;
use crate::params::MinGroup;
use crate::scoring::ScoringRule;

fn settled(text: &str) -> SettledBoard {
    SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
}

fn options(rule: ScoringRule, level: u32, max_nodes: u64) -> SolveOptions {
    SolveOptions {
        rule,
        min_group: MinGroup::DEFAULT,
        seed: 1,
        level: SolveLevel::parse(level).unwrap(),
        max_nodes: NodeBudget::parse(max_nodes).unwrap(),
        schedule: SolveSchedule::Single,
        method: SolveMethod::Nmcs,
        threads: SolveThreads::ONE,
    }
}

/// Plays `solution` through `tap` and checks its score, sizes and final board.
fn check_replays(board: &SettledBoard, options: &SolveOptions, solution: &Solution) {
    let mut current = board.clone();
    let mut score = 0;
    for m in &solution.moves {
        let outcome =
            crate::collapse::tap(&current, m.position, options.rule, options.min_group).unwrap();
        assert_eq!(outcome.cleared[0], m.position);
        assert_eq!((outcome.color, outcome.cleared.len()), (m.color, m.size));
        score += outcome.total_score();
        current = outcome.board;
    }
    assert!(crate::collapse::is_game_over(&current, options.min_group));
    assert_eq!(current, solution.board);
    assert_eq!(score, solution.score);
}

#[test]
fn finds_the_clearing_order() {
    // The best order is not the greedy one; checked against a brute force.
    let board = settled("ACB/ACB/BCA");
    for rule in [ScoringRule::SameGame, ScoringRule::PopStar] {
        let options = options(rule, 2, 10_000);
        let solution = solve(&board, &options, &SolveControl::default());
        check_replays(&board, &options, &solution);
        assert_eq!(solution.score, brute_force(&board, rule), "{rule:?}");
        assert_eq!(solution.stop, SolveStop::Completed);
        assert_eq!(solution.levels_completed, 2);
        assert!(solution.nodes > 0 && solution.playouts > 0);
    }
}

#[test]
fn a_board_with_no_group_is_scored_as_it_is() {
    let board = settled("AB/BA");
    let solution = solve(
        &board,
        &options(ScoringRule::PopStar, 1, 1),
        &SolveControl::default(),
    );
    assert_eq!(solution.moves, Vec::new());
    assert_eq!(solution.score, 2000 - 20 * 16);
    assert_eq!((solution.nodes, solution.playouts), (0, 0));
    assert_eq!(solution.stop, SolveStop::Completed);
}

#[test]
fn small_boards_are_solved_exactly() {
    // Against a brute force over every tap order.
    for (text, rule) in [
        ("AAB/BBA", ScoringRule::SameGame),
        ("ABAB/BABA/AABB", ScoringRule::PopStar),
        ("ABCA/ABCA/CBAA", ScoringRule::BubbleBreaker),
        ("ABCA/ABCA/CBAA", ScoringRule::Clickomania),
    ] {
        let board = settled(text);
        let options = options(rule, 3, 1_000_000);
        let solution = solve(&board, &options, &SolveControl::default());
        check_replays(&board, &options, &solution);
        assert_eq!(solution.score, brute_force(&board, rule), "{text} {rule:?}");
    }
}

fn brute_force(board: &SettledBoard, rule: ScoringRule) -> i64 {
    let groups = crate::collapse::legal_groups(board, rule, MinGroup::DEFAULT);
    if groups.is_empty() {
        return rule.end_bonus(board.board().tile_count());
    }
    groups
        .iter()
        .map(|g| {
            let outcome =
                crate::collapse::tap(board, g.representative, rule, MinGroup::DEFAULT).unwrap();
            outcome.move_score as i64 + brute_force(&outcome.board, rule)
        })
        .max()
        .unwrap()
}

#[test]
fn the_node_budget_makes_it_deterministic_and_bounds_it() {
    let mut rng = crate::rng_from_seed(5);
    for (width, height) in [(12, 12), (20, 18)] {
        let cells: Vec<u32> = (0..width * height)
            .map(|_| rng.random_range(1..=4))
            .collect();
        let board =
            SettledBoard::try_from(Board::from_raw(width, height, &cells).unwrap()).unwrap();
        let options = options(ScoringRule::SameGame, 2, 20_000);
        let first = solve(&board, &options, &SolveControl::default());
        let again = solve(&board, &options, &SolveControl::default());
        assert_eq!(first.moves, again.moves);
        assert_eq!((first.nodes, first.playouts), (again.nodes, again.playouts));
        assert_eq!(first.stop, SolveStop::NodeBudget);
        // The overshoot is at most one playout.
        let cells = (width * height) as u64;
        assert!(first.nodes >= 20_000 && first.nodes < 20_000 + cells / 2 + 1);
        check_replays(&board, &options, &first);
        // A larger budget never scores lower: the search is anytime with the same draws.
        let more = solve(
            &board,
            &SolveOptions {
                max_nodes: NodeBudget::parse(60_000).unwrap(),
                ..options
            },
            &SolveControl::default(),
        );
        assert!(
            more.score >= first.score,
            "{} < {}",
            more.score,
            first.score
        );
    }
}

#[test]
fn clocks_and_cancel_stop_with_a_whole_game() {
    let mut rng = crate::rng_from_seed(9);
    let cells: Vec<u32> = (0..15 * 15).map(|_| rng.random_range(1..=5)).collect();
    let board = SettledBoard::try_from(Board::from_raw(15, 15, &cells).unwrap()).unwrap();
    let options = options(ScoringRule::SameGame, 3, MAX_SOLVE_NODES);
    let cancel = AtomicBool::new(true);
    let past = Instant::now();
    for (control, stop) in [
        (
            SolveControl {
                cancel: Some(&cancel),
                ..SolveControl::default()
            },
            SolveStop::Cancelled,
        ),
        (
            SolveControl {
                time_limit: Some(past),
                ..SolveControl::default()
            },
            SolveStop::TimeLimit,
        ),
        (
            SolveControl {
                deadline: Some(past),
                ..SolveControl::default()
            },
            SolveStop::Deadline,
        ),
    ] {
        let solution = solve(&board, &options, &control);
        assert_eq!(solution.stop, stop);
        assert_eq!(solution.playouts, 1);
        assert!(!solution.moves.is_empty());
        check_replays(&board, &options, &solution);
    }
    let soon = SolveControl {
        time_limit: Some(Instant::now() + Duration::from_millis(50)),
        ..SolveControl::default()
    };
    let solution = solve(&board, &options, &soon);
    assert_eq!(solution.stop, SolveStop::TimeLimit);
    assert!(
        solution.elapsed < Duration::from_secs(2),
        "{:?}",
        solution.elapsed
    );
    check_replays(&board, &options, &solution);
}

#[test]
fn min_group_three_is_respected() {
    let board = settled("AAAB/ABBB/CCAC");
    let options = SolveOptions {
        min_group: MinGroup::parse(3).unwrap(),
        ..options(ScoringRule::PopStar, 2, 10_000)
    };
    let solution = solve(&board, &options, &SolveControl::default());
    assert!(solution.moves.iter().all(|m| m.size >= 3));
    check_replays(&board, &options, &solution);
}

#[test]
fn screening_keeps_the_search_whole_and_deterministic() {
    // On 12x12 (compact) and 20x18 (general) random boards: a screened search replays to
    // its score and repeats itself; with a width above every step's move count it is plain
    // NMCS, draw for draw.
    let mut rng = crate::rng_from_seed(11);
    for (width, height) in [(12, 12), (20, 18)] {
        let cells: Vec<u32> = (0..width * height)
            .map(|_| rng.random_range(1..=4))
            .collect();
        let board =
            SettledBoard::try_from(Board::from_raw(width, height, &cells).unwrap()).unwrap();
        let plain = SolveOptions {
            schedule: SolveSchedule::Restarts,
            ..options(ScoringRule::SameGame, 2, 30_000)
        };
        let screened = SolveOptions {
            method: SolveMethod::Screened(ScreenWidth::parse(3).unwrap()),
            ..plain
        };
        let first = solve(&board, &screened, &SolveControl::default());
        check_replays(&board, &screened, &first);
        assert_eq!(first.stop, SolveStop::NodeBudget);
        let again = solve(&board, &screened, &SolveControl::default());
        assert_eq!((&first.moves, first.nodes), (&again.moves, again.nodes));
        let wide = SolveOptions {
            method: SolveMethod::Screened(ScreenWidth::parse(MAX_SCREEN_WIDTH).unwrap()),
            ..plain
        };
        let (a, b) = (
            solve(&board, &wide, &SolveControl::default()),
            solve(&board, &plain, &SolveControl::default()),
        );
        assert_eq!(
            (a.moves, a.nodes, a.playouts),
            (b.moves, b.nodes, b.playouts)
        );
    }
}

/// Solves `board` with `one` on two threads (twice: the answers must agree) and with `one` on
/// half its budget; checks the two-thread answer replays and is no lower (thread 0 is the
/// one-thread search on half the budget). Returns both answers.
fn two_threads_against_one_on_half(
    board: &SettledBoard,
    one: SolveOptions,
) -> (Solution, Solution) {
    let two = SolveOptions {
        threads: SolveThreads::parse(2).unwrap(),
        ..one
    };
    let first = solve(board, &two, &SolveControl::default());
    check_replays(board, &two, &first);
    let again = solve(board, &two, &SolveControl::default());
    assert_eq!((&first.moves, first.nodes), (&again.moves, again.nodes));
    let half = solve(
        board,
        &SolveOptions {
            max_nodes: NodeBudget::parse(one.max_nodes.get() / 2).unwrap(),
            ..one
        },
        &SolveControl::default(),
    );
    assert!(
        first.score >= half.score,
        "{} < {}",
        first.score,
        half.score
    );
    (first, half)
}

#[test]
fn threads_share_the_budget_and_repeat_themselves() {
    let mut rng = crate::rng_from_seed(5);
    let cells: Vec<u32> = (0..14 * 14).map(|_| rng.random_range(1..=5)).collect();
    let board = SettledBoard::try_from(Board::from_raw(14, 14, &cells).unwrap()).unwrap();
    let one = SolveOptions {
        schedule: SolveSchedule::Restarts,
        method: SolveMethod::Screened(ScreenWidth::parse(0).unwrap()),
        ..options(ScoringRule::SameGame, 2, 200_000)
    };
    let (first, half) = two_threads_against_one_on_half(&board, one);
    assert_eq!(first.stop, SolveStop::NodeBudget);
    // Each thread overshoots its half by at most one playout.
    assert!(
        first.nodes >= 200_000 && first.nodes < 200_000 + 2 * 196,
        "{}",
        first.nodes
    );
    // Thread 1 draws another stream, so the effort is not twice thread 0's.
    assert_ne!(first.playouts, 2 * half.playouts);
}

fn beam(width: u32, schedule: SolveSchedule, options: SolveOptions) -> SolveOptions {
    refined_beam(width, DEFAULT_REFINE_FACTOR, schedule, options)
}

/// `options` with [`SolveMethod::Beam`] of `width` and refinement factor `factor`.
fn refined_beam(
    width: u32,
    factor: u32,
    schedule: SolveSchedule,
    options: SolveOptions,
) -> SolveOptions {
    SolveOptions {
        method: SolveMethod::Beam(BeamOptions {
            width: BeamWidth::parse(width).unwrap(),
            refine_factor: RefineFactor::parse(factor).unwrap(),
        }),
        schedule,
        ..options
    }
}

#[test]
fn beam_answers_stay_those_of_its_first_version_where_hashes_collide() {
    // Two boards of this search's layers share BEAM's first-version hash (the tile count is
    // mixed in first): the answer, effort and line are those the method gave before its
    // speed-ups (commit c71dfaa), which a merge that trusted the hash blindly changed.
    let board = settled("RBGB/BBGB/RGRG/BRGB/BBRR/BGRB/GRRB/RGRR");
    let searched = SolveOptions {
        seed: 492,
        min_group: MinGroup::parse(3).unwrap(),
        ..beam(
            8,
            SolveSchedule::Restarts,
            options(ScoringRule::SameGame, 2, 2_000),
        )
    };
    let solution = solve(&board, &searched, &SolveControl::default());
    check_replays(&board, &searched, &solution);
    let line: Vec<(u32, u32)> = solution
        .moves
        .iter()
        .map(|m| (m.position.row, m.position.col))
        .collect();
    assert_eq!(
        (solution.score, solution.nodes, solution.runs_completed),
        (1090, 2003, 4)
    );
    assert_eq!(line, [(3, 0), (4, 1), (3, 1), (4, 2), (3, 2), (5, 0)]);
}

#[test]
fn a_beam_wider_than_every_layer_is_exhaustive() {
    // With duplicates merged and no state cut, the beam visits every reachable position: the
    // answer is the brute force's, for every rule, on planes (up to 16x16) and on the column
    // bitboards of wider boards (17 columns, one row).
    for (text, rule) in [
        ("AAB/BBA", ScoringRule::SameGame),
        ("ABAB/BABA/AABB", ScoringRule::PopStar),
        ("ABCA/ABCA/CBAA", ScoringRule::BubbleBreaker),
        ("ABCA/ABCA/CBAA", ScoringRule::Clickomania),
        ("AABBCCAABBAACBBAA", ScoringRule::PopStar),
        ("ABBBACCAABBBACBBA", ScoringRule::SameGame),
    ] {
        let board = settled(text);
        let searched = beam(65_536, SolveSchedule::Single, options(rule, 2, 10_000_000));
        let solution = solve(&board, &searched, &SolveControl::default());
        check_replays(&board, &searched, &solution);
        assert_eq!(solution.score, brute_force(&board, rule), "{text} {rule:?}");
        assert_eq!(solution.stop, SolveStop::Completed);
        assert_eq!(solution.playouts, 0);
        assert_eq!(solution.levels_completed, 1);
    }
}

#[test]
fn the_beam_keeps_its_node_budget_and_repeats_itself() {
    let mut rng = crate::rng_from_seed(11);
    for (width, height, min_group) in [(12, 12, 2), (10, 10, 3), (20, 18, 2)] {
        let cells: Vec<u32> = (0..width * height)
            .map(|_| rng.random_range(1..=4))
            .collect();
        let board =
            SettledBoard::try_from(Board::from_raw(width, height, &cells).unwrap()).unwrap();
        let searched = SolveOptions {
            min_group: MinGroup::parse(min_group).unwrap(),
            ..beam(
                32,
                SolveSchedule::Restarts,
                options(ScoringRule::PopStar, 2, 40_000),
            )
        };
        let first = solve(&board, &searched, &SolveControl::default());
        check_replays(&board, &searched, &first);
        assert_eq!(first.stop, SolveStop::NodeBudget);
        // Checked before each state's expansion: over by at most a state's children, a layer
        // built after the check and a playout.
        let cells = (width * height) as u64;
        assert!(
            first.nodes >= 40_000 && first.nodes < 40_000 + cells + 32 * cells,
            "{}",
            first.nodes
        );
        let again = solve(&board, &searched, &SolveControl::default());
        assert_eq!((&first.moves, first.nodes), (&again.moves, again.nodes));
        // A larger budget runs the same schedule further (its answer may still be lower: a
        // stopped beam's playout is a matter of luck).
        let more = solve(
            &board,
            &SolveOptions {
                max_nodes: NodeBudget::parse(200_000).unwrap(),
                ..searched
            },
            &SolveControl::default(),
        );
        check_replays(&board, &searched, &more);
        assert!(more.runs_completed >= first.runs_completed);
    }
}

#[test]
fn a_beam_stopped_at_once_still_answers_a_whole_game() {
    let mut rng = crate::rng_from_seed(3);
    let cells: Vec<u32> = (0..15 * 15).map(|_| rng.random_range(1..=5)).collect();
    let board = SettledBoard::try_from(Board::from_raw(15, 15, &cells).unwrap()).unwrap();
    let stopped = beam(
        1000,
        SolveSchedule::Restarts,
        options(ScoringRule::SameGame, 2, 1),
    );
    let solution = solve(&board, &stopped, &SolveControl::default());
    check_replays(&board, &stopped, &solution);
    assert!(!solution.moves.is_empty());
    assert_eq!(solution.stop, SolveStop::NodeBudget);
    assert_eq!((solution.levels_completed, solution.runs_completed), (0, 0));
    let cancelled = AtomicBool::new(true);
    let control = SolveControl {
        cancel: Some(&cancelled),
        ..SolveControl::default()
    };
    let solution = solve(&board, &stopped, &control);
    check_replays(&board, &stopped, &solution);
    assert_eq!(solution.stop, SolveStop::Cancelled);
    // A large board stopped at once costs one playout, not a descent that scores every child.
    let cells: Vec<u32> = (0..64 * 64).map(|_| rng.random_range(1..=3)).collect();
    let board = SettledBoard::try_from(Board::from_raw(64, 64, &cells).unwrap()).unwrap();
    let wide = beam(
        65_536,
        SolveSchedule::Restarts,
        options(ScoringRule::SameGame, 2, 1),
    );
    let solution = solve(&board, &wide, &control);
    check_replays(&board, &wide, &solution);
    assert_eq!(solution.stop, SolveStop::Cancelled);
    assert!(solution.nodes <= 64 * 64 / 2, "{}", solution.nodes);
}

#[test]
fn single_beams_refine_up_to_an_eighth_of_their_width() {
    let mut rng = crate::rng_from_seed(4);
    let cells: Vec<u32> = (0..8 * 8).map(|_| rng.random_range(1..=4)).collect();
    let board = SettledBoard::try_from(Board::from_raw(8, 8, &cells).unwrap()).unwrap();
    // Width 64: the beam, then passes at 8 (= 64 / 8): two runs, then completed.
    let searched = beam(
        64,
        SolveSchedule::Single,
        options(ScoringRule::PopStar, 2, 100_000_000),
    );
    let solution = solve(&board, &searched, &SolveControl::default());
    check_replays(&board, &searched, &solution);
    assert_eq!(solution.stop, SolveStop::Completed);
    assert_eq!(solution.runs_completed, 2);
    // Width 15: an eighth is below the first pass's 8 states, so the beam alone runs.
    let alone = beam(
        15,
        SolveSchedule::Single,
        options(ScoringRule::PopStar, 2, 100_000_000),
    );
    let solution = solve(&board, &alone, &SolveControl::default());
    check_replays(&board, &alone, &solution);
    assert_eq!(
        (solution.stop, solution.runs_completed),
        (SolveStop::Completed, 1)
    );
}

#[test]
fn beam_threads_split_the_budget_and_repeat_themselves() {
    let mut rng = crate::rng_from_seed(6);
    let cells: Vec<u32> = (0..10 * 10).map(|_| rng.random_range(1..=5)).collect();
    let board = SettledBoard::try_from(Board::from_raw(10, 10, &cells).unwrap()).unwrap();
    let one = beam(
        200,
        SolveSchedule::Restarts,
        options(ScoringRule::PopStar, 2, 400_000),
    );
    two_threads_against_one_on_half(&board, one);
}

#[test]
fn the_refinement_passes_widen_by_the_refine_factor() {
    // One beam of 512 and, with SINGLE, passes up to 512 / 8 = 64 wide: 8, 16, 32, 64 at
    // factor 2 (five runs), 9, 27 at 3, 16, 64 at 4 and 8, 64 at 8 (three runs each). Each
    // answer replays to its score.
    let board = settled("ABCAB/BCABC/CAACB/ABBCA/BCCAB/CABBC");
    for (factor, runs) in [(2, 5), (3, 3), (4, 3), (8, 3)] {
        let searched = refined_beam(
            512,
            factor,
            SolveSchedule::Single,
            options(ScoringRule::SameGame, 2, 10_000_000),
        );
        let solution = solve(&board, &searched, &SolveControl::default());
        check_replays(&board, &searched, &solution);
        assert_eq!(solution.stop, SolveStop::Completed, "factor {factor}");
        assert_eq!(solution.runs_completed, runs, "factor {factor}");
    }
    // With RESTARTS the passes go on to the width cap (62,601 states of this board), doubling
    // from the first at least 512 / 8: 16, 64, 128, 256, ..., 32768 and the capped 65536, so
    // 12 passes and the beam (by 4 all along it would be 7 passes).
    let searched = refined_beam(
        512,
        4,
        SolveSchedule::Restarts,
        options(ScoringRule::SameGame, 2, 100_000_000),
    );
    let solution = solve(&board, &searched, &SolveControl::default());
    check_replays(&board, &searched, &solution);
    assert_eq!(
        (solution.stop, solution.runs_completed),
        (SolveStop::Completed, 13)
    );
}
