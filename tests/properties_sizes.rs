//! The engine against the naive reference (`tests/reference`) on boards of every size 1..=64 in
//! each dimension: 64-wide rows (the top bit of a 64-bit row mask), 64-tall columns, 1-wide
//! columns and 1-high rows, with two to four colours so that runs and groups are frequent, and
//! empty cells wherever the API takes them.
//!
//! Every check runs three ways: as a proptest property on random sizes biased toward the edges
//! (a failure shrinks toward a small board), as a deterministic sweep in which every size
//! 1..=64 is once the width and once the height, and on fixed extreme shapes (64x64, 64x1,
//! 1x64, 1x1, 64x2, 2x64, 63x64, 64x63).
//!
//! Swap family: `find_groups`, `matched_positions`, `has_run`, `is_stable` on any board;
//! `valid_swaps`, `count_valid_swaps`, `is_dead` and `judge_swap` (every adjacent pair in both
//! orders, plus same-cell, diagonal, distant and off-board pairs) on stable boards; whole
//! cascades of `resolve_board` and `resolve_swap` step by step (groups, falls, spawns, score,
//! board) with `Refill::None`, and with `Refill::Random` replayed in the reference from the
//! colours the engine reports. Collapse family: `legal_groups` and `is_game_over` for every rule
//! and `min_group` 2..=4, and chains of taps (legal or not) compared field by field.

mod prop_support;
mod reference;

use matchgrid::engine::{
    self, CascadeOptions, CascadeOutcome, EngineError, Position, Refill, ScoringRule, SettledBoard,
    StableBoard, Swap, SwapVerdict, TapRejection,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use prop_support::{SplitMix, config, min_group_of, repair_stable};
use reference::collapse::{self as collapse_ref, Rule};
use reference::convert::{cell, cells, falls_of, groups_of, pos, spawns_of, swaps_of};
use reference::swap::{self as swap_ref, Verdict};
use reference::{Cell, Grid};

/// The shapes every family is checked on explicitly.
const EXTREMES: [(usize, usize); 8] = [
    (64, 64),
    (64, 1),
    (1, 64),
    (1, 1),
    (64, 2),
    (2, 64),
    (63, 64),
    (64, 63),
];

/// Steps no cascade of these tests comes near; the engine and the reference get the same.
const MAX_STEPS: u32 = 10_000;

const RULES: [(ScoringRule, Rule); 4] = [
    (ScoringRule::PopStar, Rule::PopStar),
    (ScoringRule::SameGame, Rule::SameGame),
    (ScoringRule::Clickomania, Rule::Clickomania),
    (ScoringRule::BubbleBreaker, Rule::BubbleBreaker),
];

// ---------------------------------------------------------------------------------------------
// Engine values as reference values
// ---------------------------------------------------------------------------------------------

fn verdict_of(verdict: SwapVerdict) -> Verdict {
    match verdict {
        SwapVerdict::Ok => Verdict::Ok,
        SwapVerdict::OutOfBounds => Verdict::OutOfBounds,
        SwapVerdict::Hole | SwapVerdict::Blocked => {
            unreachable!("plain boards have no holes and no fixed cells")
        }
        SwapVerdict::NotAdjacent => Verdict::NotAdjacent,
        SwapVerdict::EmptyCell => Verdict::EmptyCell,
        SwapVerdict::NoMatch => Verdict::NoMatch,
    }
}

// ---------------------------------------------------------------------------------------------
// Boards
// ---------------------------------------------------------------------------------------------

/// A side length: anything in 1..=64, often one at the edges of a row word.
fn side() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 1usize..=64,
        1 => prop::sample::select(vec![1usize, 2, 3, 4, 31, 32, 33, 62, 63, 64]),
    ]
}

/// A grid of `side() x side()` cells in `2..=4` colours, each cell empty with probability `p`%
/// (`p` drawn per grid from `0..=max_empty_percent`).
fn grid(max_empty_percent: u32) -> impl Strategy<Value = Grid> {
    (side(), side(), 2u32..=4, 0..=max_empty_percent).prop_flat_map(|(w, h, k, p)| {
        vec((0u32..100, 1..=k), w * h).prop_map(move |v| {
            let cells = v
                .into_iter()
                .map(|(roll, c)| if roll < p { 0 } else { c })
                .collect();
            Grid::new(w, h, cells)
        })
    })
}

/// The same kind of grid from the test's own RNG, for the sweeps.
fn random_grid(rng: &mut SplitMix, w: usize, h: usize, max_empty_percent: u64) -> Grid {
    let colors = 2 + rng.below(3) as u32;
    let p = rng.below(max_empty_percent + 1);
    let cells = (0..w * h)
        .map(|_| {
            if rng.below(100) < p {
                0
            } else {
                1 + rng.below(u64::from(colors)) as u32
            }
        })
        .collect();
    Grid::new(w, h, cells)
}

/// A stable board from a full grid: two-colour grids are replaced by the engine's generator
/// (`min_moves` 0, so dead boards come too), others repaired by the test's own helper in their
/// colours (at least 3). The result is checked stable by the reference.
fn stable_from(g: &Grid, seed: u64) -> Grid {
    let colors = *g.cells.iter().max().unwrap_or(&1);
    let made = if colors <= 2 {
        engine::GenerationSize::for_swap(g.w as u32, g.h as u32, 2)
            .and_then(|size| engine::generate_swap_board(size, 0, &mut engine::rng_from_seed(seed)))
            .ok()
            .map(|(board, _)| Grid::of(board.colors()))
    } else {
        None
    };
    let full = Grid::new(
        g.w,
        g.h,
        g.cells
            .iter()
            .map(|&c| if c == 0 { 1 } else { c })
            .collect(),
    );
    let stable = made.unwrap_or_else(|| repair_stable(full, colors.max(3)));
    assert!(swap_ref::is_stable(&stable), "not stable: {stable:?}");
    stable
}

/// A settled collapse board: the reference's gravity and column closing.
fn settled_from(g: &Grid) -> Grid {
    collapse_ref::settle(g)
}

/// Runs `check` on a board of every width 1..=64 (with a random height) and of every height
/// 1..=64 (with a random width); a failure panics with its message (which names the board).
fn every_size(seed: u64, mut check: impl FnMut(&mut SplitMix, usize, usize) -> TestCaseResult) {
    let mut rng = SplitMix(seed);
    for s in 1..=64 {
        let other = 1 + rng.below(64) as usize;
        for (w, h) in [(s, other), (other, s)] {
            if let Err(e) = check(&mut rng, w, h) {
                panic!("{w}x{h}: {e}");
            }
        }
    }
}

/// Runs `check` `times` times on each extreme shape.
fn extremes(
    seed: u64,
    times: usize,
    mut check: impl FnMut(&mut SplitMix, usize, usize) -> TestCaseResult,
) {
    let mut rng = SplitMix(seed);
    for (w, h) in EXTREMES {
        for _ in 0..times {
            if let Err(e) = check(&mut rng, w, h) {
                panic!("{w}x{h}: {e}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Swap family checks
// ---------------------------------------------------------------------------------------------

/// Runs, matched cells, groups and stability of any board.
fn check_runs(g: &Grid) -> TestCaseResult {
    let board = g.board();
    prop_assert_eq!(
        groups_of(&engine::find_groups(&board)),
        swap_ref::groups(g),
        "find_groups on {:?}",
        g
    );
    prop_assert_eq!(
        cells(&engine::matched_positions(&board)),
        swap_ref::matched_cells(g),
        "matched_positions on {:?}",
        g
    );
    prop_assert_eq!(
        engine::has_run(&board),
        swap_ref::has_run(g),
        "has_run on {:?}",
        g
    );
    prop_assert_eq!(
        engine::is_stable(&board.clone().into()),
        swap_ref::is_stable(g),
        "is_stable on {:?}",
        g
    );
    Ok(())
}

/// Valid swaps, their count, deadness, and the verdict on every adjacent pair (both orders) and
/// on same-cell, diagonal, distant and off-board pairs at the corners, of a stable board.
fn check_moves(g: &Grid) -> TestCaseResult {
    let stable = StableBoard::try_from(g.board());
    prop_assert!(stable.is_ok(), "StableBoard refused {:?}: {:?}", g, stable);
    let stable = stable.unwrap();
    let expected = swap_ref::valid_swaps(g);
    let listed = swaps_of(&engine::valid_swaps(&stable));
    prop_assert_eq!(&listed, &expected, "valid_swaps on {:?}", g);
    prop_assert_eq!(
        engine::count_valid_swaps(&stable),
        expected.len(),
        "count_valid_swaps on {:?}",
        g
    );
    prop_assert_eq!(
        engine::is_dead(&stable),
        expected.is_empty(),
        "is_dead on {:?}",
        g
    );
    let judge = |a: Cell, b: Cell| -> TestCaseResult {
        prop_assert_eq!(
            verdict_of(engine::judge_swap(&stable, Swap::new(pos(a), pos(b)))),
            swap_ref::verdict(g, a, b),
            "judge_swap {:?}-{:?} on {:?}",
            a,
            b,
            g
        );
        Ok(())
    };
    for i in 0..g.cells.len() {
        let a = g.cell(i);
        for b in [(a.0, a.1 + 1), (a.0 + 1, a.1)] {
            if g.contains(b) {
                judge(a, b)?;
                judge(b, a)?;
            }
        }
    }
    let (w, h) = (g.w as u32, g.h as u32);
    for a in [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)] {
        for b in [
            a,
            (a.0 + 1, a.1 + 1),
            (a.0, a.1 + 2),
            (a.0 + 2, a.1),
            (h, a.1),
            (a.0, w),
            (u32::MAX, a.1),
        ] {
            judge(a, b)?;
            judge(b, a)?;
        }
    }
    Ok(())
}

/// A cascade outcome against the reference cascade from `start` (the board after the swap when
/// `settle_first` is false, the request board otherwise). Under `Refill::Random` the reference
/// refills with the colours the engine reports, after checking they are in range.
fn check_outcome(
    start: &Grid,
    settle_first: bool,
    options: CascadeOptions,
    outcome: &CascadeOutcome,
) -> TestCaseResult {
    let context = format!("cascade from {start:?} ({options:?})");
    let drawn: Vec<Vec<u32>> = outcome
        .steps
        .iter()
        .map(|s| s.spawns.iter().map(|sp| u32::from(sp.color)).collect())
        .collect();
    let refill = match options.refill {
        Refill::None => swap_ref::Refill::None,
        Refill::Random { colors } => {
            for color in drawn.iter().flatten() {
                prop_assert!(
                    (1..=u32::from(colors)).contains(color),
                    "spawned colour {} outside 1..={}: {}",
                    color,
                    colors,
                    context
                );
            }
            swap_ref::Refill::Drawn(&drawn)
        }
    };
    let expected = swap_ref::cascade(start, settle_first, refill, MAX_STEPS as usize);
    prop_assert!(
        expected.is_ok(),
        "reference hit the step limit: {}",
        context
    );
    let expected = expected.unwrap();
    prop_assert_eq!(
        outcome.steps.len(),
        expected.len(),
        "number of steps: {}",
        context
    );
    for (step, want) in outcome.steps.iter().zip(&expected) {
        let k = want.index;
        prop_assert_eq!(step.index, k, "step index: {}", context);
        prop_assert_eq!(
            groups_of(&step.groups),
            want.groups.clone(),
            "groups of step {}: {}",
            k,
            context
        );
        prop_assert_eq!(
            falls_of(&step.falls),
            want.falls.clone(),
            "falls of step {}: {}",
            k,
            context
        );
        prop_assert_eq!(
            spawns_of(&step.spawns),
            want.spawns.clone(),
            "spawns of step {}: {}",
            k,
            context
        );
        prop_assert_eq!(step.score, want.score, "score of step {}: {}", k, context);
        prop_assert_eq!(
            Grid::of(step.board.colors()),
            want.board.clone(),
            "board after step {}: {}",
            k,
            context
        );
    }
    let last = expected.last().map_or(start, |s| &s.board);
    prop_assert_eq!(
        outcome.total_score,
        expected.iter().map(|s| s.score).sum::<u64>(),
        "total score: {}",
        context
    );
    let before_shuffle = Grid::of(
        outcome
            .board_before_shuffle
            .as_ref()
            .unwrap_or(&outcome.board)
            .colors(),
    );
    prop_assert_eq!(&before_shuffle, last, "final board: {}", context);
    let stable = swap_ref::is_stable(last);
    let swaps = if stable {
        swap_ref::valid_swaps(last).len()
    } else {
        0
    };
    match (&outcome.board_before_shuffle, options.refill) {
        (Some(_), Refill::Random { .. }) => {
            prop_assert!(
                options.auto_shuffle,
                "shuffled without auto_shuffle: {}",
                context
            );
            prop_assert!(stable && swaps == 0, "shuffled a live board: {}", context);
            let shuffled = Grid::of(outcome.board.colors());
            prop_assert_eq!(shuffled.color_counts(), last.color_counts(), "{}", context);
            prop_assert!(swap_ref::is_stable(&shuffled), "{}", context);
            let after = swap_ref::valid_swaps(&shuffled).len();
            prop_assert!(after >= 1, "shuffled board is dead: {}", context);
            prop_assert!(outcome.stable && !outcome.dead, "{}", context);
            prop_assert_eq!(outcome.valid_swap_count, after, "{}", context);
        }
        (Some(_), Refill::None) => {
            prop_assert!(false, "shuffled under NONE refill: {}", context);
        }
        (None, refill) => {
            if let Refill::Random { .. } = refill {
                prop_assert!(stable, "RANDOM refill ended unstable: {}", context);
            }
            prop_assert_eq!(outcome.stable, stable, "stable flag: {}", context);
            prop_assert_eq!(
                outcome.valid_swap_count,
                swaps,
                "valid swap count: {}",
                context
            );
            prop_assert_eq!(outcome.dead, stable && swaps == 0, "dead flag: {}", context);
        }
    }
    Ok(())
}

/// `resolve_board` on any board, under `refill`.
fn check_resolve_board(g: &Grid, refill: Refill, seed: u64) -> TestCaseResult {
    let options = CascadeOptions {
        refill,
        auto_shuffle: true,
        max_steps: MAX_STEPS,
        specials: false,
    };
    let outcome =
        engine::resolve_board(g.board().into(), options, &mut engine::rng_from_seed(seed));
    prop_assert!(outcome.is_ok(), "resolve_board {:?}: {:?}", g, outcome);
    check_outcome(g, true, options, &outcome.unwrap())
}

/// `resolve_swap` of the valid swap `pick` picks on a stable board (none on a dead board), in
/// the order given or reversed, under `refill`.
fn check_resolve_swap(
    g: &Grid,
    pick: usize,
    reversed: bool,
    refill: Refill,
    seed: u64,
) -> TestCaseResult {
    let swaps = swap_ref::valid_swaps(g);
    if swaps.is_empty() {
        return Ok(());
    }
    let (a, b) = swaps[pick % swaps.len()];
    let (a, b) = if reversed { (b, a) } else { (a, b) };
    let options = CascadeOptions {
        refill,
        auto_shuffle: true,
        max_steps: MAX_STEPS,
        specials: false,
    };
    let stable = StableBoard::try_from(g.board()).unwrap();
    let outcome = engine::resolve_swap(
        stable,
        Swap::new(pos(a), pos(b)),
        options,
        &mut engine::rng_from_seed(seed),
    );
    prop_assert!(
        outcome.is_ok(),
        "resolve_swap {:?}-{:?} on {:?}: {:?}",
        a,
        b,
        g,
        outcome
    );
    let outcome = outcome.unwrap();
    prop_assert!(!outcome.steps.is_empty(), "a valid swap clears something");
    check_outcome(&g.swapped(a, b), false, options, &outcome)
}

// ---------------------------------------------------------------------------------------------
// Collapse family checks
// ---------------------------------------------------------------------------------------------

/// Legal groups and game over for every rule and `min_group` 2..=4 on a settled board.
fn check_groups(g: &Grid) -> TestCaseResult {
    let settled = SettledBoard::try_from(g.board());
    prop_assert!(
        settled.is_ok(),
        "SettledBoard refused {:?}: {:?}",
        g,
        settled
    );
    let settled = settled.unwrap();
    for min_group in 2..=4 {
        let expected = collapse_ref::legal_groups(g, min_group);
        prop_assert_eq!(
            engine::is_game_over(&settled, min_group_of(min_group)),
            expected.is_empty(),
            "is_game_over on {:?}, min_group {}",
            g,
            min_group
        );
        for (rule, reference_rule) in RULES {
            let listed: Vec<(Cell, u32, usize, u64)> =
                engine::legal_groups(&settled, rule, min_group_of(min_group))
                    .iter()
                    .map(|l| (cell(l.representative), u32::from(l.color), l.size, l.score))
                    .collect();
            let want: Vec<(Cell, u32, usize, u64)> = expected
                .iter()
                .map(|&(first, color, n)| (first, color, n, reference_rule.move_score(n as u64)))
                .collect();
            prop_assert_eq!(
                listed,
                want,
                "legal_groups on {:?}, {:?}, min_group {}",
                g,
                rule,
                min_group
            );
        }
    }
    Ok(())
}

/// Taps a chain of cells: each pick is a cell index (even picks land on a legal group's first
/// cell when there is one, odd picks on any cell, legal or not); every tap is compared with the
/// reference field by field, and a legal tap continues on its result until the game is over.
fn check_taps(
    g: &Grid,
    rules: (ScoringRule, Rule),
    min_group: usize,
    picks: &[usize],
) -> TestCaseResult {
    let (rule, reference_rule) = rules;
    let mut board = g.clone();
    for (n, &pick) in picks.iter().enumerate() {
        let legal = collapse_ref::legal_groups(&board, min_group);
        let at = if n % 2 == 0 && !legal.is_empty() {
            legal[pick % legal.len()].0
        } else {
            board.cell(pick % board.cells.len())
        };
        let context = format!("tap {at:?} on {board:?} ({rule:?}, min_group {min_group})");
        let settled = SettledBoard::try_from(board.board());
        prop_assert!(settled.is_ok(), "unsettled: {}", context);
        let outcome = engine::tap(&settled.unwrap(), pos(at), rule, min_group_of(min_group));
        if board.get(at) == 0 {
            prop_assert_eq!(
                outcome,
                Err(EngineError::IllegalTap(TapRejection::EmptyCell)),
                "{}",
                context
            );
            continue;
        }
        let size = collapse_ref::component(&board, at).len();
        if size < min_group {
            prop_assert_eq!(
                outcome,
                Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                    size,
                    min_group
                })),
                "{}",
                context
            );
            continue;
        }
        prop_assert!(outcome.is_ok(), "{}: {:?}", context, outcome);
        let outcome = outcome.unwrap();
        let want = collapse_ref::tap(&board, at);
        prop_assert_eq!(
            cells(&outcome.cleared),
            want.cleared.clone(),
            "cleared: {}",
            context
        );
        prop_assert_eq!(u32::from(outcome.color), want.color, "colour: {}", context);
        prop_assert_eq!(
            falls_of(&outcome.falls),
            want.falls.clone(),
            "falls: {}",
            context
        );
        let shifts: Vec<(u32, u32)> = outcome
            .column_shifts
            .iter()
            .map(|s| (s.from_col, s.to_col))
            .collect();
        prop_assert_eq!(shifts, want.shifts.clone(), "column shifts: {}", context);
        prop_assert_eq!(
            Grid::of(outcome.board.board()),
            want.board.clone(),
            "board: {}",
            context
        );
        let tiles_left = want.board.tiles();
        let over = collapse_ref::is_game_over(&want.board, min_group);
        let bonus = if over {
            reference_rule.end_bonus(tiles_left as i64)
        } else {
            0
        };
        prop_assert_eq!(
            outcome.move_score,
            reference_rule.move_score(size as u64),
            "move score: {}",
            context
        );
        prop_assert_eq!(outcome.tiles_left, tiles_left, "tiles left: {}", context);
        prop_assert_eq!(outcome.game_over, over, "game over: {}", context);
        prop_assert_eq!(outcome.end_bonus, bonus, "end bonus: {}", context);
        prop_assert_eq!(
            outcome.total_score(),
            reference_rule.move_score(size as u64) as i64 + bonus,
            "total score: {}",
            context
        );
        if over {
            break;
        }
        board = want.board;
    }
    Ok(())
}

fn rules() -> impl Strategy<Value = (ScoringRule, Rule)> {
    prop::sample::select(RULES.to_vec())
}

/// `None`, or `Random` with 4 or 5 colours (with 3, a random refill of a 64x64 board cascades
/// for hundreds of steps, which a debug build takes seconds to resolve).
fn refill() -> impl Strategy<Value = Refill> {
    prop_oneof![
        Just(Refill::None),
        (4u8..=5).prop_map(|colors| Refill::Random { colors }),
    ]
}

// ---------------------------------------------------------------------------------------------
// Properties on random sizes
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(48))]

    /// find_groups, matched_positions, has_run and is_stable on any board.
    #[test]
    fn runs_and_groups_on_any_size(g in grid(30)) {
        check_runs(&g)?;
    }

    /// Valid swaps, deadness and every verdict on stable boards.
    #[test]
    fn moves_on_any_size(g in grid(0), seed in any::<u64>()) {
        check_moves(&stable_from(&g, seed))?;
    }

    /// legal_groups and is_game_over for every rule and min_group, and a chain of taps.
    #[test]
    fn collapse_on_any_size(
        g in grid(40), rules in rules(), min_group in 2usize..=4,
        picks in vec(any::<usize>(), 1..=6),
    ) {
        let g = settled_from(&g);
        check_groups(&g)?;
        check_taps(&g, rules, min_group, &picks)?;
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// resolve_board (settling, then the cascade) on any board.
    #[test]
    fn board_cascades_on_any_size(g in grid(30), refill in refill(), seed in any::<u64>()) {
        check_resolve_board(&g, refill, seed)?;
    }

    /// resolve_swap of a valid swap on a stable board.
    #[test]
    fn swap_cascades_on_any_size(
        g in grid(0), refill in refill(), seed in any::<u64>(),
        pick in any::<usize>(), reversed in any::<bool>(),
    ) {
        check_resolve_swap(&stable_from(&g, seed), pick, reversed, refill, seed)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Every size, and the extreme shapes
// ---------------------------------------------------------------------------------------------

/// Runs and groups of a board with empty cells, the moves of a stable board, and one cascade
/// (of either board, under either refill: cascades are the slow part in a debug build).
fn swap_checks(rng: &mut SplitMix, w: usize, h: usize) -> TestCaseResult {
    let any = random_grid(rng, w, h, 30);
    check_runs(&any)?;
    let seed = rng.next();
    let stable = stable_from(&random_grid(rng, w, h, 0), seed);
    check_moves(&stable)?;
    let refill = if rng.below(2) == 0 {
        Refill::None
    } else {
        Refill::Random {
            colors: 4 + rng.below(2) as u8,
        }
    };
    if rng.below(2) == 0 {
        check_resolve_board(&any, refill, seed)
    } else {
        let (pick, reversed) = (rng.next() as usize, rng.below(2) == 0);
        check_resolve_swap(&stable, pick, reversed, refill, seed)
    }
}

fn collapse_checks(rng: &mut SplitMix, w: usize, h: usize) -> TestCaseResult {
    let g = settled_from(&random_grid(rng, w, h, 40));
    check_groups(&g)?;
    let rules = RULES[rng.below(4) as usize];
    let min_group = 2 + rng.below(3) as usize;
    let picks: Vec<usize> = (0..4).map(|_| rng.next() as usize).collect();
    check_taps(&g, rules, min_group, &picks)
}

#[test]
fn swap_family_on_every_size() {
    every_size(1, swap_checks);
}

#[test]
fn swap_family_on_extreme_shapes() {
    extremes(2, 2, swap_checks);
}

#[test]
fn collapse_family_on_every_size() {
    every_size(3, collapse_checks);
}

#[test]
fn collapse_family_on_extreme_shapes() {
    extremes(4, 3, collapse_checks);
}

/// The checks are not vacuous on the shapes that matter: a full-width run on a 64-wide row and a
/// full-height run on a 64-tall column, groups ending in the last column and row, cascades of
/// several steps, and taps that close columns.
#[test]
fn the_sweeps_meet_runs_at_the_far_edges() {
    // A 64-wide board whose last row is one run across all 64 columns, and whose last column
    // is one run down all rows.
    let mut g = Grid::new(
        64,
        64,
        (0..64 * 64)
            .map(|i| 1 + ((i / 64 + i % 64) % 2) as u32 * 2)
            .collect(),
    );
    for c in 0..64 {
        g.cells[63 * 64 + c] = 4;
    }
    for r in 0..64 {
        g.cells[r * 64 + 63] = 4;
    }
    check_runs(&g).unwrap();
    let groups = swap_ref::groups(&g);
    assert_eq!(groups.len(), 1, "{g:?}");
    assert_eq!(groups[0].1.len(), 64 + 63);
    check_resolve_board(&g, Refill::None, 0).unwrap();
    check_resolve_board(&g, Refill::Random { colors: 4 }, 0).unwrap();

    // A 1-wide, 64-tall column and a 64-wide, 1-high row of one colour each.
    for (w, h) in [(1, 64), (64, 1)] {
        let line = Grid::new(w, h, vec![2; 64]);
        check_runs(&line).unwrap();
        assert_eq!(swap_ref::matched_cells(&line).len(), 64);
        check_resolve_board(&line, Refill::None, 0).unwrap();
        check_groups(&line).unwrap();
        check_taps(&line, RULES[0], 2, &[0]).unwrap();
    }

    // The sweeps see multi-step cascades and multi-column closes.
    let mut rng = SplitMix(5);
    let (mut multi_step, mut closes) = (0, 0);
    for s in 1..=64 {
        let h = 1 + rng.below(64) as usize;
        let g = random_grid(&mut rng, s, h, 30);
        let steps =
            swap_ref::cascade(&g, true, swap_ref::Refill::None, MAX_STEPS as usize).unwrap();
        if steps.iter().filter(|st| !st.groups.is_empty()).count() >= 2 {
            multi_step += 1;
        }
        let settled = settled_from(&g);
        for (first, _, n) in collapse_ref::legal_groups(&settled, 2) {
            if n >= 2 && !collapse_ref::tap(&settled, first).shifts.is_empty() {
                closes += 1;
                break;
            }
        }
    }
    assert!(multi_step >= 10, "multi-step cascades: {multi_step}");
    assert!(closes >= 5, "taps that close columns: {closes}");
}

/// The cascade check is not vacuous: it rejects outcomes with a dropped fall, a wrong score, a
/// missing step, a wrong final flag, a spawn colour out of range or a missing spawn.
#[test]
fn the_checks_reject_tampered_outcomes() {
    let g = Grid::parse("GRYY/YRRG/BGYY/BGGY");
    let start = g.swapped((0, 3), (1, 3));
    for refill in [Refill::None, Refill::Random { colors: 4 }] {
        let options = CascadeOptions {
            refill,
            auto_shuffle: false,
            max_steps: MAX_STEPS,
            specials: false,
        };
        let stable = StableBoard::try_from(g.board()).unwrap();
        let swap = Swap::new(Position::new(0, 3), Position::new(1, 3));
        let outcome =
            engine::resolve_swap(stable, swap, options, &mut engine::rng_from_seed(9)).unwrap();
        check_outcome(&start, false, options, &outcome).unwrap();
        assert!(outcome.steps.len() >= 2, "{outcome:?}");

        let mut wrong = outcome.clone();
        wrong.steps[0].falls.pop();
        assert!(
            check_outcome(&start, false, options, &wrong).is_err(),
            "falls"
        );
        let mut wrong = outcome.clone();
        wrong.steps[1].score += 10;
        wrong.total_score += 10;
        assert!(
            check_outcome(&start, false, options, &wrong).is_err(),
            "score"
        );
        let mut wrong = outcome.clone();
        wrong.steps.pop();
        assert!(
            check_outcome(&start, false, options, &wrong).is_err(),
            "steps"
        );
        let mut wrong = outcome.clone();
        wrong.stable = !wrong.stable;
        assert!(
            check_outcome(&start, false, options, &wrong).is_err(),
            "flag"
        );
        if let Refill::Random { .. } = refill {
            // The reference replays the reported colours, so a colour is only checked for its
            // range and against the boards it lands on.
            let mut wrong = outcome.clone();
            wrong.steps[0].spawns[0].color = 5;
            assert!(
                check_outcome(&start, false, options, &wrong).is_err(),
                "colour"
            );
            let mut wrong = outcome.clone();
            wrong.steps[0].spawns.pop();
            assert!(
                check_outcome(&start, false, options, &wrong).is_err(),
                "spawns"
            );
        }
    }
}
