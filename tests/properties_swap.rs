//! Property tests of the swap family (docs/rules.md section 2).
//!
//! Every property compares the engine with the naive reference of `tests/reference` (runs by
//! scanning lines, groups by flood fill over matched cells, valid swaps by swapping on a copy and
//! reading the lines through the two cells, gravity by rebuilding each column), or checks an
//! invariant the rules state (tile conservation, stability, determinism by seed). The last properties feed random,
//! often malformed requests to the transport functions, which must answer `Ok` or `Err` and
//! never panic.

mod prop_support;
mod reference;

use std::ops::RangeInclusive;

use matchgrid::engine::{
    self, Board, CascadeOptions, CascadeOutcome, EngineError, Fall, Position, Refill, StableBoard,
    Swap, SwapVerdict,
};
use matchgrid::proto;
use matchgrid::transport::swap as rpc;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use prop_support::{
    Fault, SplitMix, board_faults, check_faults, config, raw_grid, repair_stable, well_formed,
    wild_wire_board,
};
use reference::convert::{pos, pos_at};
use reference::swap as naive;
use reference::{Grid, gravity};

// ---------------------------------------------------------------------------------------------
// The reference (tests/reference/swap.rs) in the engine's vocabulary
// ---------------------------------------------------------------------------------------------

/// The engine's stable board for a grid that is stable.
fn stable_board(g: &Grid) -> StableBoard {
    StableBoard::try_from(g.board()).unwrap()
}

/// The empty cells, row-major.
fn empty_positions(g: &Grid) -> Vec<Position> {
    g.empty_cells().into_iter().map(pos).collect()
}

fn swapped(g: &Grid, a: Position, b: Position) -> Grid {
    g.swapped((a.row, a.col), (b.row, b.col))
}

fn naive_matched_positions(g: &Grid) -> Vec<Position> {
    naive::matched_cells(g).into_iter().map(pos).collect()
}

fn naive_has_run(g: &Grid) -> bool {
    naive::has_run(g)
}

fn naive_stable(g: &Grid) -> bool {
    naive::is_stable(g)
}

/// Groups as `(colour, cells)`, ordered by first cell, cells row-major.
fn naive_groups(g: &Grid) -> Vec<(u32, Vec<Position>)> {
    naive::groups(g)
        .into_iter()
        .map(|(color, cells)| (color, cells.into_iter().map(pos).collect()))
        .collect()
}

fn engine_groups(groups: &[engine::Group]) -> Vec<(u32, Vec<Position>)> {
    groups
        .iter()
        .map(|g| (u32::from(g.color), g.cells.clone()))
        .collect()
}

/// Every valid swap `(a, b)`, `b` the right or lower neighbour of `a`, sorted by `a` then `b`.
fn naive_valid_swaps(g: &Grid) -> Vec<(Position, Position)> {
    naive::valid_swaps(g)
        .into_iter()
        .map(|(a, b)| (pos(a), pos(b)))
        .collect()
}

/// The verdict the rules give, checked in their order.
fn naive_verdict(g: &Grid, a: Position, b: Position) -> SwapVerdict {
    match naive::verdict(g, (a.row, a.col), (b.row, b.col)) {
        naive::Verdict::Ok => SwapVerdict::Ok,
        naive::Verdict::OutOfBounds => SwapVerdict::OutOfBounds,
        naive::Verdict::NotAdjacent => SwapVerdict::NotAdjacent,
        naive::Verdict::EmptyCell => SwapVerdict::EmptyCell,
        naive::Verdict::NoMatch => SwapVerdict::NoMatch,
    }
}

/// The falls of naive gravity as engine positions.
fn naive_gravity(g: &Grid) -> (Grid, Vec<(Position, Position)>) {
    let (fallen, falls) = gravity(g);
    let falls = falls.into_iter().map(|(f, t)| (pos(f), pos(t))).collect();
    (fallen, falls)
}

/// Whether some stable `w x h` arrangement with at least `min_swaps` valid swaps exists, drawing
/// either from a fixed multiset (`counts[c]` tiles of colour `c`) or freely from `1..=colors`
/// (`counts` = None). Exhaustive over arrangements, pruning those that already contain a run;
/// for small boards only.
fn naive_arrangement_exists(
    w: usize,
    h: usize,
    counts: Option<[usize; 17]>,
    colors: u32,
    min_swaps: usize,
) -> bool {
    fn fill(
        g: &mut Grid,
        index: usize,
        counts: &mut Option<[usize; 17]>,
        colors: u32,
        min_swaps: usize,
    ) -> bool {
        if index == g.cells.len() {
            return naive_valid_swaps(g).len() >= min_swaps;
        }
        let (r, c) = (index / g.w, index % g.w);
        for color in 1..=colors {
            if counts.is_some_and(|n| n[color as usize] == 0) {
                continue;
            }
            let left_run = c >= 2 && g.at(r, c - 1) == color && g.at(r, c - 2) == color;
            let up_run = r >= 2 && g.at(r - 1, c) == color && g.at(r - 2, c) == color;
            if left_run || up_run {
                continue;
            }
            if let Some(n) = counts.as_mut() {
                n[color as usize] -= 1;
            }
            g.cells[index] = color;
            if fill(g, index + 1, counts, colors, min_swaps) {
                return true;
            }
            g.cells[index] = 0;
            if let Some(n) = counts.as_mut() {
                n[color as usize] += 1;
            }
        }
        false
    }
    let mut counts = counts;
    let mut scratch = Grid::new(w, h, vec![0; w * h]);
    fill(&mut scratch, 0, &mut counts, colors, min_swaps)
}

/// Whether any permutation of `g`'s tiles is stable with a valid swap.
fn naive_shuffle_exists(g: &Grid) -> bool {
    naive_arrangement_exists(g.w, g.h, Some(g.color_counts()), 16, 1)
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// A stable grid (no run, no empty cell) with `3..=max_colors` colours.
fn stable_grid(min_side: usize, max_side: usize, max_colors: u32) -> impl Strategy<Value = Grid> {
    (min_side..=max_side, min_side..=max_side, 3..=max_colors).prop_flat_map(|(w, h, k)| {
        vec(1..=k, w * h).prop_map(move |cells| {
            let g = repair_stable(Grid::new(w, h, cells), k);
            assert!(naive_stable(&g), "repair failed: {g:?}");
            g
        })
    })
}

/// A full grid of at most `max_cells` cells, any shape, with `k` colours drawn from `colors`:
/// each cell is drawn from `1..=max_drawn` and folded into `1..=k`.
fn small_full_grid(
    max_cells: usize,
    colors: RangeInclusive<u32>,
    max_drawn: u32,
) -> impl Strategy<Value = Grid> {
    (
        (1..=max_cells).prop_flat_map(move |w| (Just(w), 1..=max_cells / w)),
        colors,
        vec(1..=max_drawn, max_cells),
    )
        .prop_map(|((w, h), k, drawn)| {
            let cells = drawn[..w * h].iter().map(|c| (c - 1) % k + 1).collect();
            Grid::new(w, h, cells)
        })
}

/// A coordinate: mostly small, sometimes huge.
fn coordinate() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 0u32..70,
        1 => any::<u32>(),
        1 => Just(u32::MAX),
        1 => (u32::MAX - 2)..=u32::MAX,
    ]
}

// ---------------------------------------------------------------------------------------------
// Cascade checker
// ---------------------------------------------------------------------------------------------

fn check_refill(
    fallen: &Grid,
    spawns: &[engine::Spawn],
    refill: Refill,
) -> Result<Grid, TestCaseError> {
    match refill {
        Refill::None => {
            prop_assert!(spawns.is_empty(), "NONE refill spawned {spawns:?}");
            Ok(fallen.clone())
        }
        Refill::Random { colors } => {
            let empties = empty_positions(fallen);
            let spawned: Vec<Position> = spawns.iter().map(|s| s.position).collect();
            prop_assert_eq!(
                &spawned,
                &empties,
                "spawns must fill exactly the empty cells, row-major"
            );
            let mut filled = fallen.clone();
            for spawn in spawns {
                prop_assert!(
                    (1..=colors).contains(&spawn.color),
                    "spawn colour {} outside 1..={colors}",
                    spawn.color
                );
                let i = filled.index((spawn.position.row, spawn.position.col));
                filled.cells[i] = u32::from(spawn.color);
            }
            prop_assert!(!filled.has_empty());
            Ok(filled)
        }
    }
}

fn check_falls(engine_falls: &[Fall], expected: &[(Position, Position)]) -> TestCaseResult {
    let actual: Vec<(Position, Position)> = engine_falls.iter().map(|f| (f.from, f.to)).collect();
    prop_assert_eq!(
        &actual,
        &expected.to_vec(),
        "falls differ from naive gravity"
    );
    // Falls stay in their column, go down, and keep the column's order.
    for f in engine_falls {
        prop_assert_eq!(f.from.col, f.to.col);
        prop_assert!(f.to.row > f.from.row, "fall {f:?} does not go down");
    }
    for x in engine_falls {
        for y in engine_falls {
            if x.from.col == y.from.col && x.from.row < y.from.row {
                prop_assert!(
                    x.to.row < y.to.row,
                    "falls {x:?} and {y:?} reorder a column"
                );
            }
        }
    }
    Ok(())
}

/// Checks a cascade outcome step by step against the naive model. `start` is the board the
/// cascade starts from (after the swap, if any).
fn check_cascade(
    start: &Grid,
    had_swap: bool,
    options: CascadeOptions,
    out: &CascadeOutcome,
) -> TestCaseResult {
    let mut prev = start.clone();
    let mut total_cleared = 0usize;
    let mut total_spawned = 0usize;
    let mut steps = out.steps.iter().peekable();

    // Settling step: only without a swap, only when the board arrived with empty cells and
    // settling changes something.
    if !had_swap && start.has_empty() {
        let (fallen, falls) = naive_gravity(start);
        let expect_settle = !falls.is_empty() || matches!(options.refill, Refill::Random { .. });
        if expect_settle {
            let step = steps.next();
            prop_assert!(step.is_some(), "expected a settling step for {start:?}");
            let step = step.unwrap();
            prop_assert_eq!(step.index, 1);
            prop_assert!(step.groups.is_empty(), "settling step cleared groups");
            prop_assert_eq!(step.score, 0);
            check_falls(&step.falls, &falls)?;
            let after = check_refill(&fallen, &step.spawns, options.refill)?;
            prop_assert_eq!(Grid::of(step.board.colors()), after.clone());
            prop_assert_eq!(
                prev.tiles() + step.spawns.len(),
                after.tiles(),
                "settling conserves tiles"
            );
            total_spawned += step.spawns.len();
            prev = after;
        }
    }
    if had_swap {
        prop_assert!(!out.steps.is_empty(), "a valid swap must clear something");
    }
    for step in steps {
        let k = step.index;
        let expected_groups = naive_groups(&prev);
        prop_assert!(
            !expected_groups.is_empty(),
            "step {k} on a board without runs: {prev:?}"
        );
        prop_assert_eq!(
            engine_groups(&step.groups),
            expected_groups.clone(),
            "groups of step {}",
            k
        );
        let mut cleared = prev.clone();
        let mut n_cleared = 0;
        let mut expected_score = 0u64;
        for (_, cells) in &expected_groups {
            expected_score += naive::group_score(cells.len(), k);
            n_cleared += cells.len();
            for &p in cells {
                let i = cleared.index((p.row, p.col));
                cleared.cells[i] = 0;
            }
        }
        prop_assert_eq!(step.score, expected_score, "score of step {} is 10*n*k", k);
        let (fallen, falls) = naive_gravity(&cleared);
        check_falls(&step.falls, &falls)?;
        let after = check_refill(&fallen, &step.spawns, options.refill)?;
        prop_assert_eq!(
            Grid::of(step.board.colors()),
            after.clone(),
            "board after step {}",
            k
        );
        prop_assert_eq!(
            prev.tiles() - n_cleared + step.spawns.len(),
            after.tiles(),
            "tiles before - cleared + spawned = tiles after (step {})",
            k
        );
        total_cleared += n_cleared;
        total_spawned += step.spawns.len();
        prev = after;
    }
    for (i, step) in out.steps.iter().enumerate() {
        prop_assert_eq!(step.index as usize, i + 1, "steps are numbered 1, 2, ...");
    }
    prop_assert_eq!(
        out.total_score,
        out.steps.iter().map(|s| s.score).sum::<u64>()
    );
    prop_assert!(
        naive_groups(&prev).is_empty(),
        "cascade stopped with runs left: {prev:?}"
    );
    let before_shuffle = Grid::of(
        out.board_before_shuffle
            .as_ref()
            .unwrap_or(&out.board)
            .colors(),
    );
    prop_assert_eq!(&before_shuffle, &prev);
    prop_assert_eq!(
        prev.tiles(),
        start.tiles() + total_spawned - total_cleared,
        "whole-cascade tile balance"
    );
    match options.refill {
        Refill::None => {
            prop_assert_eq!(total_spawned, 0);
            prop_assert_eq!(prev.tiles(), start.tiles() - total_cleared);
            prop_assert!(
                out.board_before_shuffle.is_none(),
                "NONE refill never shuffles"
            );
            prop_assert!(
                naive::columns_settled(&prev),
                "tiles left floating: {prev:?}"
            );
            let stable = naive_stable(&prev);
            prop_assert_eq!(out.stable, stable);
            if stable {
                let swaps = naive_valid_swaps(&prev).len();
                prop_assert_eq!(out.valid_swap_count, swaps);
                prop_assert_eq!(out.dead, swaps == 0);
            } else {
                prop_assert_eq!(out.valid_swap_count, 0);
                prop_assert!(!out.dead);
            }
        }
        Refill::Random { .. } => {
            prop_assert!(
                naive_stable(&prev),
                "RANDOM refill left an unstable board: {prev:?}"
            );
            prop_assert!(out.stable);
            let swaps_before = naive_valid_swaps(&prev).len();
            match &out.board_before_shuffle {
                Some(_) => {
                    prop_assert!(options.auto_shuffle, "shuffled without auto_shuffle");
                    prop_assert_eq!(swaps_before, 0, "shuffled a board that was not dead");
                    let shuffled = Grid::of(out.board.colors());
                    prop_assert_eq!(shuffled.color_counts(), prev.color_counts());
                    prop_assert!(
                        naive_stable(&shuffled),
                        "shuffled board unstable: {shuffled:?}"
                    );
                    let swaps = naive_valid_swaps(&shuffled).len();
                    prop_assert!(swaps >= 1);
                    prop_assert_eq!(out.valid_swap_count, swaps);
                    prop_assert!(!out.dead);
                }
                None => {
                    prop_assert_eq!(out.valid_swap_count, swaps_before);
                    prop_assert_eq!(out.dead, swaps_before == 0);
                }
            }
        }
    }
    Ok(())
}

/// Resolves the valid swap `(a, b)` on `g` and checks the cascade against the model.
fn resolve_and_check(
    g: &Grid,
    a: Position,
    b: Position,
    options: CascadeOptions,
    seed: u64,
) -> CascadeOutcome {
    let outcome = engine::resolve_swap(
        stable_board(g),
        Swap::new(a, b),
        options,
        &mut engine::rng_from_seed(seed),
    )
    .unwrap();
    check_cascade(&swapped(g, a, b), true, options, &outcome).unwrap();
    outcome
}

fn refill_strategy() -> impl Strategy<Value = Refill> {
    prop_oneof![
        2 => (3u8..=6).prop_map(|colors| Refill::Random { colors }),
        1 => Just(Refill::None),
    ]
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

fn check_generated(w: u32, h: u32, colors: u32, min_moves: u32, seed: u64) -> TestCaseResult {
    let first = engine::GenerationSize::for_swap(w, h, colors).and_then(|size| {
        engine::generate_swap_board(size, min_moves, &mut engine::rng_from_seed(seed))
    });
    let second = engine::GenerationSize::for_swap(w, h, colors).and_then(|size| {
        engine::generate_swap_board(size, min_moves, &mut engine::rng_from_seed(seed))
    });
    prop_assert_eq!(&first, &second, "same seed, same result");
    let wire = rpc::generate_board(proto::SwapGenerateBoardRequest {
        width: w,
        height: h,
        colors,
        seed,
        min_moves: Some(min_moves),
        ..Default::default()
    });
    let (wu, hu) = (w as usize, h as usize);
    let pairs = wu * (hu - 1) + hu * (wu - 1);
    let impossible =
        min_moves as usize > pairs || (min_moves > 0 && (wu.max(hu) < 3 || wu * hu == 3));
    match first {
        Ok((board, count)) => {
            prop_assert!(!impossible, "{w}x{h} min_moves {min_moves} cannot exist");
            let g = Grid::of(board.colors());
            prop_assert_eq!((g.w, g.h), (wu, hu));
            prop_assert!(g.cells.iter().all(|&c| (1..=colors).contains(&c)), "{g:?}");
            prop_assert!(naive_stable(&g), "generated board not stable: {g:?}");
            let swaps = naive_valid_swaps(&g).len();
            prop_assert_eq!(count, swaps);
            prop_assert!(
                swaps >= min_moves as usize,
                "{swaps} < min_moves {min_moves}: {g:?}"
            );
            let wire = wire.expect("transport agrees with the engine");
            prop_assert_eq!(wire.board, Some(g.proto()));
            prop_assert_eq!(wire.valid_swap_count as usize, count);
        }
        Err(error) => {
            prop_assert!(
                matches!(
                    error,
                    EngineError::InvalidParameter {
                        field: "min_moves",
                        ..
                    }
                ),
                "unexpected error {error:?}"
            );
            // Clearly feasible requests must succeed.
            prop_assert!(
                impossible || !(w >= 3 && h >= 3 && min_moves <= 1),
                "feasible request refused: {w}x{h} colors {colors} min_moves {min_moves}: {error:?}"
            );
            prop_assert!(wire.is_err());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(192))]

    /// Generated boards are stable, have at least min_moves valid swaps (counted by brute
    /// force), are reproducible by seed and agree with the transport function.
    #[test]
    fn generated_boards_are_stable_playable_and_reproducible(
        w in 1u32..=12, h in 1u32..=12, colors in 2u32..=8, min_moves in 0u32..=6, seed in any::<u64>()
    ) {
        check_generated(w, h, colors, min_moves, seed)?;
    }
}

proptest! {
    #![proptest_config(config(6))]

    #[test]
    fn generated_large_boards_are_stable_and_playable(
        w in 13u32..=64, h in 13u32..=64, colors in 3u32..=8, min_moves in 0u32..=3, seed in any::<u64>()
    ) {
        let result = engine::GenerationSize::for_swap(w, h, colors).and_then(|size| engine::generate_swap_board(size, min_moves, &mut engine::rng_from_seed(seed)));
        prop_assert!(result.is_ok(), "{result:?}");
        check_generated(w, h, colors, min_moves, seed)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Stability, runs, groups
// ---------------------------------------------------------------------------------------------

fn check_runs_and_groups(g: &Grid) -> TestCaseResult {
    let board = g.board();
    prop_assert_eq!(
        engine_groups(&engine::find_groups(&board)),
        naive_groups(g),
        "find_groups on {:?}",
        g
    );
    prop_assert_eq!(
        engine::matched_positions(&board),
        naive_matched_positions(g)
    );
    prop_assert_eq!(engine::has_run(&board), naive_has_run(g));
    prop_assert_eq!(engine::is_stable(&board.clone().into()), naive_stable(g));
    match StableBoard::try_from(board) {
        Ok(stable) => {
            prop_assert!(naive_stable(g), "accepted an unstable board {g:?}");
            prop_assert_eq!(Grid::of(stable.colors()), g.clone());
        }
        Err(EngineError::UnstableBoard {
            empty_cells,
            matched_cells,
        }) => {
            prop_assert!(!naive_stable(g), "refused a stable board {g:?}");
            prop_assert_eq!(empty_cells, empty_positions(g));
            prop_assert_eq!(matched_cells, naive_matched_positions(g));
        }
        Err(other) => prop_assert!(false, "unexpected error {other:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// find_groups, matched_positions, has_run and stability agree with line scanning plus
    /// flood fill (few colours, some empty cells: many runs, L/T/+ shapes, parallel runs).
    #[test]
    fn groups_and_stability_match_naive(g in raw_grid(12, 4, 30)) {
        check_runs_and_groups(&g)?;
    }

    /// Same on stable-ish boards with more colours, where the stable branch is common.
    #[test]
    fn stable_boards_are_recognised(g in stable_grid(1, 12, 8)) {
        prop_assert!(engine::find_groups(&g.board()).is_empty());
        check_runs_and_groups(&g)?;
    }
}

proptest! {
    #![proptest_config(config(16))]

    #[test]
    fn groups_match_naive_on_large_boards(g in raw_grid(64, 3, 20)) {
        check_runs_and_groups(&g)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Valid swaps, dead boards, verdicts
// ---------------------------------------------------------------------------------------------

fn check_swaps(g: &Grid) -> TestCaseResult {
    let stable = stable_board(g);
    let expected = naive_valid_swaps(g);
    let actual: Vec<(Position, Position)> = engine::valid_swaps(&stable)
        .into_iter()
        .map(|s| (s.a, s.b))
        .collect();
    prop_assert_eq!(&actual, &expected, "valid_swaps on {:?}", g);
    prop_assert_eq!(engine::count_valid_swaps(&stable), expected.len());
    prop_assert_eq!(engine::is_dead(&stable), expected.is_empty());
    let wire = rpc::check_dead_state(proto::SwapCheckDeadStateRequest {
        board: Some(g.proto()),
    });
    prop_assert!(wire.is_ok(), "{wire:?}");
    let wire = wire.unwrap();
    prop_assert_eq!(wire.dead, expected.is_empty());
    prop_assert_eq!(&swaps_of_wire(&wire.valid_swaps), &expected);
    Ok(())
}

/// The `(a, b)` pairs of a response's valid swaps.
fn swaps_of_wire(swaps: &[proto::Swap]) -> Vec<(Position, Position)> {
    swaps
        .iter()
        .map(|s| {
            let (a, b) = (s.a.unwrap(), s.b.unwrap());
            (Position::new(a.row, a.col), Position::new(b.row, b.col))
        })
        .collect()
}

fn check_verdict(g: &Grid, a: Position, b: Position) -> TestCaseResult {
    let expected = naive_verdict(g, a, b);
    let stable = stable_board(g);
    prop_assert_eq!(
        engine::judge_swap(&stable, Swap::new(a, b)),
        expected,
        "{:?} {} {}",
        g,
        a,
        b
    );
    let preview = engine::preview_swap(&stable, Swap::new(a, b));
    let (verdict, groups) = (preview.verdict, preview.groups);
    prop_assert_eq!(preview.combination, None);
    prop_assert_eq!(verdict, expected);
    let expected_groups = if expected == SwapVerdict::Ok {
        naive_groups(&swapped(g, a, b))
    } else {
        Vec::new()
    };
    prop_assert_eq!(engine_groups(&groups), expected_groups.clone());
    let wire = rpc::validate_swap(proto::ValidateSwapRequest {
        board: Some(g.proto()),
        swap: Some(proto::Swap {
            a: Some(proto::Position {
                row: a.row,
                col: a.col,
            }),
            b: Some(proto::Position {
                row: b.row,
                col: b.col,
            }),
        }),
    });
    prop_assert!(wire.is_ok(), "{wire:?}");
    let wire = wire.unwrap();
    prop_assert_eq!(wire.verdict(), proto::SwapVerdict::from(expected));
    prop_assert_eq!(wire.groups.len(), expected_groups.len());
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// valid_swaps, count_valid_swaps, is_dead and CheckDeadState agree with brute force; the
    /// verdict of every adjacent pair, in both orders, is OK exactly for the listed swaps.
    #[test]
    fn valid_swaps_match_brute_force(g in stable_grid(1, 12, 8)) {
        check_swaps(&g)?;
        let listed = naive_valid_swaps(&g);
        for i in 0..g.cells.len() {
            let a = pos_at(&g, i);
            for b in [Position::new(a.row, a.col + 1), Position::new(a.row + 1, a.col)] {
                if (b.row as usize) < g.h && (b.col as usize) < g.w {
                    let expected = if listed.contains(&(a, b)) { SwapVerdict::Ok } else { SwapVerdict::NoMatch };
                    prop_assert_eq!(engine::judge_swap(&stable_board(&g), Swap::new(a, b)), expected);
                    prop_assert_eq!(engine::judge_swap(&stable_board(&g), Swap::new(b, a)), expected);
                }
            }
        }
    }

    /// Arbitrary positions (off-board, huge, same cell, diagonal, far apart) get the rules'
    /// verdict, in the rules' order, from judge_swap, preview_swap and ValidateSwap.
    #[test]
    fn verdicts_match_naive(
        g in stable_grid(1, 8, 6),
        a in (coordinate(), coordinate()),
        offset in prop_oneof![
            3 => Just((0i64, 1i64)), 3 => Just((1, 0)), 2 => Just((0, -1)), 2 => Just((-1, 0)),
            1 => Just((0, 0)), 1 => Just((1, 1)), 1 => Just((0, 2)),
            1 => (-3i64..=3, -3i64..=3),
        ],
        far_b in prop::option::weighted(0.1, (coordinate(), coordinate())),
    ) {
        // Mostly pick `a` on the board so most verdicts are decided by the cells.
        let a = if a.0 < 70 && a.1 < 70 {
            Position::new(a.0 % g.h as u32, a.1 % g.w as u32)
        } else {
            Position::new(a.0, a.1)
        };
        let b = match far_b {
            Some((r, c)) => Position::new(r, c),
            None => {
                let r = (i64::from(a.row) + offset.0).clamp(0, i64::from(u32::MAX)) as u32;
                let c = (i64::from(a.col) + offset.1).clamp(0, i64::from(u32::MAX)) as u32;
                Position::new(r, c)
            }
        };
        check_verdict(&g, a, b)?;
    }
}

proptest! {
    #![proptest_config(config(4))]

    #[test]
    fn valid_swaps_match_brute_force_on_large_boards(g in stable_grid(13, 64, 6)) {
        check_swaps(&g)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Cascades
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(160))]

    /// A valid swap's cascade, step by step: groups as found naively on the board before the
    /// step, score 10*n*k, falls as naive gravity (keeping column order), spawns filling exactly
    /// the empty cells, tiles conserved, a stable final board under RANDOM (and a stable,
    /// playable, same-multiset board when it was shuffled); reproducible by seed.
    #[test]
    fn swap_cascades_match_the_model(
        w in 3u32..=10, h in 3u32..=10, colors in 3u32..=6, seed in any::<u64>(),
        pick in any::<prop::sample::Index>(), reversed in any::<bool>(),
        refill in refill_strategy(), auto_shuffle in any::<bool>(),
    ) {
        let (board, _) = engine::GenerationSize::for_swap(w, h, colors).and_then(|size| engine::generate_swap_board(size, 1, &mut engine::rng_from_seed(seed))).unwrap();
        let g = Grid::of(board.colors());
        let swaps = naive_valid_swaps(&g);
        prop_assert!(!swaps.is_empty());
        let (a, b) = swaps[pick.index(swaps.len())];
        let (a, b) = if reversed { (b, a) } else { (a, b) };
        let options = CascadeOptions { refill, auto_shuffle, max_steps: 10_000, specials: false };
        let run = || engine::resolve_swap(stable_board(&g), Swap::new(a, b), options, &mut engine::rng_from_seed(seed ^ 0x5eed));
        let outcome = run();
        prop_assert!(outcome.is_ok(), "{outcome:?}");
        let outcome = outcome.unwrap();
        prop_assert_eq!(&run().unwrap(), &outcome, "same seed, same cascade");
        check_cascade(&swapped(&g, a, b), true, options, &outcome)?;
    }

    /// Resolving a board as given (runs, empty cells anywhere): an optional settling step
    /// without groups, then the same step-by-step model.
    #[test]
    fn board_cascades_match_the_model(
        g in raw_grid(10, 4, 40), seed in any::<u64>(),
        refill in refill_strategy(), auto_shuffle in any::<bool>(),
    ) {
        let options = CascadeOptions { refill, auto_shuffle, max_steps: 10_000, specials: false };
        let outcome = engine::resolve_board(g.board().into(), options, &mut engine::rng_from_seed(seed));
        prop_assert!(outcome.is_ok(), "{outcome:?}");
        check_cascade(&g, false, options, &outcome.unwrap())?;
    }

    /// max_steps is a prefix cut: with a small limit the cascade either succeeds with at most
    /// that many steps (and equals the unlimited result) or fails with CascadeLimitExceeded, in
    /// which case the unlimited cascade needs more steps (or also fails).
    #[test]
    fn max_steps_cuts_the_same_cascade(
        g in raw_grid(8, 3, 30), seed in any::<u64>(), colors in 1u8..=3, max_steps in 1u32..=12,
    ) {
        let options = |max_steps| CascadeOptions { refill: Refill::Random { colors }, auto_shuffle: true, max_steps, specials: false };
        let limited = engine::resolve_board(g.board().into(), options(max_steps), &mut engine::rng_from_seed(seed));
        let unlimited = engine::resolve_board(g.board().into(), options(400), &mut engine::rng_from_seed(seed));
        match limited {
            Ok(outcome) => {
                prop_assert!(outcome.steps.len() <= max_steps as usize);
                prop_assert_eq!(Ok(outcome.clone()), unlimited);
                check_cascade(&g, false, options(max_steps), &outcome)?;
            }
            Err(error) => {
                prop_assert_eq!(error, EngineError::CascadeLimitExceeded { max_steps });
                match unlimited {
                    Ok(outcome) => prop_assert!(outcome.steps.len() > max_steps as usize),
                    Err(e) => prop_assert_eq!(e, EngineError::CascadeLimitExceeded { max_steps: 400 }),
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shuffle
// ---------------------------------------------------------------------------------------------

fn check_shuffle(g: &Grid, seed: u64, exhaustive: bool) -> TestCaseResult {
    let result = engine::shuffle(&g.board().into(), &mut engine::rng_from_seed(seed));
    prop_assert_eq!(
        &result,
        &engine::shuffle(&g.board().into(), &mut engine::rng_from_seed(seed)),
        "same seed, same shuffle"
    );
    let wire = rpc::shuffle(proto::ShuffleRequest {
        board: Some(g.proto()),
        seed,
    });
    match result {
        Ok(shuffled) => {
            let s = Grid::of(shuffled.colors());
            prop_assert_eq!((s.w, s.h), (g.w, g.h));
            prop_assert_eq!(
                s.color_counts(),
                g.color_counts(),
                "shuffle changed the tiles"
            );
            prop_assert!(naive_stable(&s), "shuffled board not stable: {s:?}");
            let swaps = naive_valid_swaps(&s).len();
            prop_assert!(swaps >= 1, "shuffled board is dead: {s:?}");
            let wire = wire.unwrap();
            prop_assert_eq!(wire.board, Some(s.proto()));
            prop_assert_eq!(wire.valid_swap_count as usize, swaps);
        }
        Err(error) => {
            prop_assert!(
                matches!(error, EngineError::NoShuffleExists { .. }),
                "{error:?}"
            );
            prop_assert!(wire.is_err());
            if exhaustive {
                prop_assert!(
                    !naive_shuffle_exists(g),
                    "a shuffle of {g:?} exists but none was found"
                );
            }
        }
    }
    if exhaustive && naive_shuffle_exists(g) {
        prop_assert!(
            engine::shuffle(&g.board().into(), &mut engine::rng_from_seed(seed)).is_ok(),
            "a shuffle of {g:?} exists"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(192))]

    /// On small full boards (up to 10 cells) the shuffle succeeds exactly when an exhaustive
    /// search finds a stable permutation with a valid swap; when it succeeds it keeps the
    /// colour multiset and is stable and playable.
    #[test]
    fn shuffle_small_boards_exhaustively(g in small_full_grid(10, 1..=5, 16), seed in any::<u64>()) {
        check_shuffle(&g, seed, true)?;
    }

    /// Larger full boards, runs allowed: multiset kept, stable, playable, reproducible.
    #[test]
    fn shuffle_keeps_tiles_and_is_playable(g in raw_grid(12, 6, 0), seed in any::<u64>()) {
        check_shuffle(&g, seed, false)?;
    }

    /// When a shuffle is known to exist (the tiles are a permutation of a generated stable
    /// board with a valid swap), Shuffle finds one, whatever the order the tiles arrive in.
    #[test]
    fn shuffle_succeeds_when_a_playable_permutation_exists(
        w in 1u32..=12, h in 1u32..=12, colors in 2u32..=6, seed in any::<u64>(),
        order in any::<u64>(),
    ) {
        let generated = engine::GenerationSize::for_swap(w, h, colors).and_then(|size| engine::generate_swap_board(size, 1, &mut engine::rng_from_seed(seed)));
        prop_assume!(generated.is_ok());
        let mut g = Grid::of(generated.unwrap().0.colors());
        // Permute the tiles with the test's own RNG (Fisher-Yates).
        let mut rng = SplitMix(order);
        for i in (1..g.cells.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            g.cells.swap(i, j);
        }
        let result = engine::shuffle(&g.board().into(), &mut engine::rng_from_seed(seed));
        prop_assert!(result.is_ok(), "no shuffle found for {g:?}, though one exists: {result:?}");
        check_shuffle(&g, seed, false)?;
    }

    /// A board with empty cells is refused, naming every empty cell.
    #[test]
    fn shuffle_refuses_boards_with_holes(
        g in raw_grid(12, 6, 30), hole in any::<prop::sample::Index>(), seed in any::<u64>(),
    ) {
        let mut g = g;
        let i = hole.index(g.cells.len());
        g.cells[i] = 0;
        prop_assert_eq!(
            engine::shuffle(&g.board().into(), &mut engine::rng_from_seed(seed)),
            Err(EngineError::BoardNotFull { empty_cells: empty_positions(&g) })
        );
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// Up to 16 cells with at most 3 colours (where the engine searches exhaustively), the
    /// shuffle succeeds exactly when an exhaustive search finds a playable permutation.
    #[test]
    fn shuffle_up_to_16_cells_exhaustively(g in small_full_grid(16, 2..=3, 6), seed in any::<u64>()) {
        check_shuffle(&g, seed, true)?;
    }

    /// On small boards, generation succeeds exactly when an exhaustive search finds a stable
    /// board with min_moves valid swaps (and is INVALID_ARGUMENT naming min_moves otherwise).
    #[test]
    fn generation_feasibility_matches_exhaustive_search(
        (w, h, colors) in prop_oneof![
            (1usize..=12).prop_flat_map(|w| (Just(w), 1..=12 / w, Just(2u32))),
            (1usize..=9).prop_flat_map(|w| (Just(w), 1..=9 / w, Just(3u32))),
        ],
        min_moves in 0u32..=4, seed in any::<u64>(),
    ) {
        let exists = naive_arrangement_exists(w, h, None, colors, min_moves as usize);
        let result = engine::GenerationSize::for_swap(w as u32, h as u32, colors).and_then(|size| engine::generate_swap_board(size, min_moves, &mut engine::rng_from_seed(seed)));
        prop_assert_eq!(result.is_ok(), exists, "{}x{} colors {} min_moves {}: {:?}", w, h, colors, min_moves, result);
        check_generated(w as u32, h as u32, colors, min_moves, seed)?;
    }
}

// ---------------------------------------------------------------------------------------------
// No input panics (transport functions)
// ---------------------------------------------------------------------------------------------

/// A raw wire board: sides 0..=70, a cell count sometimes off by a few, values up to 20, or a
/// stable board, or missing.
fn wire_board() -> impl Strategy<Value = Option<proto::Board>> {
    let full = (1u32..=70, 1u32..=70, 1u32..=4).prop_flat_map(|(w, h, k)| {
        vec(1..=k, (w * h) as usize).prop_map(move |cells| {
            Some(proto::Board {
                width: w,
                height: h,
                cells,
                ..Default::default()
            })
        })
    });
    prop_oneof![
        1 => Just(None),
        4 => wild_wire_board(),
        2 => full,
        3 => stable_grid(1, 12, 6).prop_map(|g| Some(g.proto())),
    ]
}

fn wire_position() -> impl Strategy<Value = Option<proto::Position>> {
    prop::option::weighted(
        0.9,
        (coordinate(), coordinate()).prop_map(|(row, col)| proto::Position { row, col }),
    )
}

/// How the no-panic property picks its swap: raw wire positions (possibly missing or huge), or
/// an on-board adjacent pair of the drawn board.
#[derive(Clone, Debug)]
enum SwapPick {
    Raw(Option<proto::Swap>),
    Adjacent {
        index: prop::sample::Index,
        vertical: bool,
    },
}

fn swap_pick() -> impl Strategy<Value = SwapPick> {
    prop_oneof![
        2 => wire_swap().prop_map(SwapPick::Raw),
        1 => Just(SwapPick::Raw(None)),
        3 => (any::<prop::sample::Index>(), any::<bool>())
            .prop_map(|(index, vertical)| SwapPick::Adjacent { index, vertical }),
    ]
}

/// An on-board swap of cell `index` with its lower (or right) neighbour; a 1x1 board gives the
/// same cell twice.
fn adjacent_swap(w: usize, h: usize, index: prop::sample::Index, vertical: bool) -> proto::Swap {
    let i = index.index(w * h);
    let (r, c) = (i / w, i % w);
    let (r2, c2) = if vertical && r + 1 < h {
        (r + 1, c)
    } else if c + 1 < w {
        (r, c + 1)
    } else if r + 1 < h {
        (r + 1, c)
    } else {
        (r, c)
    };
    let at = |r: usize, c: usize| {
        Some(proto::Position {
            row: r as u32,
            col: c as u32,
        })
    };
    proto::Swap {
        a: at(r, c),
        b: at(r2, c2),
    }
}

fn wire_swap() -> impl Strategy<Value = Option<proto::Swap>> {
    prop::option::weighted(
        0.9,
        (wire_position(), wire_position()).prop_map(|(a, b)| proto::Swap { a, b }),
    )
}

/// The fault of a board that is not stable where a stable one is required.
fn stability_faults(grid: &Option<Grid>) -> Vec<Fault> {
    match grid {
        Some(g) if !naive_stable(g) => vec![Fault::Exact(EngineError::UnstableBoard {
            empty_cells: empty_positions(g),
            matched_cells: naive_matched_positions(g),
        })],
        _ => Vec::new(),
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// Every swap-family transport function answers Ok or Err, never panics, on random and
    /// malformed requests. A request with faults (missing or malformed field, unstable board,
    /// off-board or illegal swap, bad option) gets one of its faults; a request without gets the
    /// naive model's answer.
    #[test]
    fn swap_transport_never_panics(
        board in wire_board(), pick in swap_pick(),
        colors in prop_oneof![6 => 1u32..=8, 2 => 0u32..=17, 1 => any::<u32>()],
        seed in any::<u64>(), refill in prop_oneof![4 => 0i32..=2, 1 => any::<i32>()],
        auto_shuffle in any::<Option<bool>>(),
        max_steps in prop_oneof![
            2 => 0u32..=50,
            1 => (rpc::MAX_MAX_STEPS - 5)..=(rpc::MAX_MAX_STEPS + 5),
            1 => any::<u32>(),
        ],
    ) {
        let swap = match pick {
            SwapPick::Raw(swap) => swap,
            SwapPick::Adjacent { index, vertical } => board
                .as_ref()
                .filter(|b| well_formed(b))
                .map(|b| adjacent_swap(b.width as usize, b.height as usize, index, vertical)),
        };
        let validate = rpc::validate_swap(proto::ValidateSwapRequest { board: board.clone(), swap });
        let resolve = rpc::resolve_cascade(proto::ResolveCascadeRequest {
            board: board.clone(), swap, colors, seed, refill, auto_shuffle, max_steps,
            include_step_boards: true,
        });
        let dead = rpc::check_dead_state(proto::SwapCheckDeadStateRequest { board: board.clone() });
        let shuffled = rpc::shuffle(proto::ShuffleRequest { board: board.clone(), seed });

        let (board_faults, grid) = board_faults(&board);
        let unstable = stability_faults(&grid);
        let mut swap_faults = Vec::new();
        let positions = match swap {
            None => {
                swap_faults.push(Fault::Param("swap"));
                None
            }
            Some(s) => {
                if s.a.is_none() {
                    swap_faults.push(Fault::Param("swap.a"));
                }
                if s.b.is_none() {
                    swap_faults.push(Fault::Param("swap.b"));
                }
                s.a.zip(s.b).map(|(a, b)| (Position::new(a.row, a.col), Position::new(b.row, b.col)))
            }
        };

        // CheckDeadState: board, then stability.
        let faults = [board_faults.clone(), unstable.clone()].concat();
        if check_faults("CheckDeadState", &dead, &faults)? {
            let g = grid.as_ref().unwrap();
            let expected = naive_valid_swaps(g);
            let dead = dead.unwrap();
            prop_assert_eq!(swaps_of_wire(&dead.valid_swaps), expected.clone());
            prop_assert_eq!(dead.dead, expected.is_empty());
        }

        // ValidateSwap: board, stability, swap fields; an off-board swap is a verdict.
        let faults = [board_faults.clone(), unstable.clone(), swap_faults.clone()].concat();
        if check_faults("ValidateSwap", &validate, &faults)? {
            let g = grid.as_ref().unwrap();
            let (a, b) = positions.unwrap();
            let verdict = naive_verdict(g, a, b);
            let validate = validate.unwrap();
            prop_assert_eq!(validate.verdict(), proto::SwapVerdict::from(verdict));
            let groups = if verdict == SwapVerdict::Ok { naive_groups(&swapped(g, a, b)) } else { Vec::new() };
            prop_assert_eq!(validate.groups.len(), groups.len());
        }

        // Shuffle: board, then a full board; NoShuffleExists is the only other error.
        let mut faults = board_faults.clone();
        if let Some(g) = grid.as_ref().filter(|g| g.has_empty()) {
            faults.push(Fault::Exact(EngineError::BoardNotFull { empty_cells: empty_positions(g) }));
        }
        if check_faults("Shuffle", &shuffled, &faults)? {
            let g = grid.as_ref().unwrap();
            match &shuffled {
                Ok(response) => {
                    let s = Grid::of_wire(response.board.as_ref().unwrap());
                    prop_assert_eq!(s.color_counts(), g.color_counts());
                    prop_assert!(naive_stable(&s), "{s:?}");
                    prop_assert!(response.valid_swap_count >= 1);
                }
                Err(error) => prop_assert!(matches!(error, EngineError::NoShuffleExists { .. }), "{error:?}"),
            }
        }

        // ResolveCascade: options, board, and with a swap: swap fields, off-board positions,
        // stability, then the verdict.
        let mut faults = board_faults.clone();
        match refill {
            0 | 1 if !(1..=16).contains(&colors) => faults.push(Fault::Param("colors")),
            0..=2 => {}
            _ => faults.push(Fault::Param("refill")),
        }
        if max_steps > rpc::MAX_MAX_STEPS {
            faults.push(Fault::Param("max_steps"));
        }
        if swap.is_some() {
            faults.extend(swap_faults.iter().cloned());
            faults.extend(unstable.iter().cloned());
            if let (Some(g), Some((a, b))) = (&grid, positions) {
                for (field, p) in [("swap.a", a), ("swap.b", b)] {
                    if p.row as usize >= g.h || p.col as usize >= g.w {
                        faults.push(Fault::OffBoard(field, p));
                    }
                }
                let verdict = naive_verdict(g, a, b);
                if naive_stable(g) && verdict != SwapVerdict::Ok && verdict != SwapVerdict::OutOfBounds {
                    faults.push(Fault::Exact(EngineError::IllegalSwap(verdict.rejection().unwrap())));
                }
            }
        }
        if check_faults("ResolveCascade", &resolve, &faults)? {
            let g = grid.as_ref().unwrap();
            match &resolve {
                Ok(r) => {
                    let out = Grid::of_wire(r.board.as_ref().unwrap());
                    prop_assert_eq!((out.w, out.h), (g.w, g.h));
                    if refill != 2 {
                        prop_assert!(r.stable && naive_stable(&out), "RANDOM refill left {out:?}");
                    } else {
                        prop_assert!(naive::columns_settled(&out) && !naive_has_run(&out), "{out:?}");
                    }
                    if swap.is_some() {
                        prop_assert!(!r.steps.is_empty(), "a valid swap clears something");
                    }
                }
                Err(error) => prop_assert!(
                    matches!(error, EngineError::CascadeLimitExceeded { .. }),
                    "ResolveCascade without faults: {error:?}"
                ),
            }
        }
    }

    /// GenerateBoard answers Ok or Err for any parameters; an Ok board has the requested size,
    /// colours in range, is stable and has enough valid swaps.
    #[test]
    fn swap_generate_never_panics(
        width in 0u32..=70, height in 0u32..=70, colors in prop_oneof![3 => 0u32..=20, 1 => any::<u32>()],
        seed in any::<u64>(),
        min_moves in prop_oneof![1 => Just(None), 3 => (0u32..=8).prop_map(Some), 1 => any::<u32>().prop_map(Some)],
    ) {
        let result = rpc::generate_board(proto::SwapGenerateBoardRequest { width, height, colors, seed, min_moves, ..Default::default() });
        match result {
            Ok(response) => {
                prop_assert!((1..=64).contains(&width) && (1..=64).contains(&height) && (2..=16).contains(&colors));
                let g = Grid::of_wire(response.board.as_ref().unwrap());
                prop_assert_eq!((g.w as u32, g.h as u32), (width, height));
                prop_assert!(g.cells.iter().all(|&c| c >= 1 && c <= colors));
                prop_assert!(naive_stable(&g));
                prop_assert!(response.valid_swap_count >= min_moves.unwrap_or(1));
            }
            Err(error) => {
                prop_assert!(matches!(error, EngineError::InvalidParameter { .. }), "{error:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Deterministic sweeps: the oracles are not vacuous
// ---------------------------------------------------------------------------------------------

#[test]
fn sweep_covers_dead_and_live_boards_and_big_groups() {
    let mut rng = SplitMix(2024);
    let (mut dead, mut live, mut shapes, mut merged_runs) = (0, 0, 0, 0);
    for _ in 0..400 {
        let (w, h) = (1 + rng.below(6) as usize, 1 + rng.below(6) as usize);
        let k = 3 + rng.below(4) as u32;
        let cells = (0..w * h)
            .map(|_| 1 + rng.below(u64::from(k)) as u32)
            .collect();
        let g = repair_stable(Grid::new(w, h, cells), k);
        let swaps = naive_valid_swaps(&g);
        assert_eq!(
            engine::is_dead(&stable_board(&g)),
            swaps.is_empty(),
            "{g:?}"
        );
        assert_eq!(
            engine::count_valid_swaps(&stable_board(&g)),
            swaps.len(),
            "{g:?}"
        );
        if swaps.is_empty() {
            dead += 1;
        } else {
            live += 1;
        }
        // Groups with cells in both several rows and several columns (L/T/+ or parallel runs).
        let raw = Grid::new(w, h, (0..w * h).map(|_| 1 + rng.below(2) as u32).collect());
        for (_, cells) in naive_groups(&raw) {
            let rows = cells
                .iter()
                .map(|p| p.row)
                .collect::<std::collections::BTreeSet<_>>();
            let cols = cells
                .iter()
                .map(|p| p.col)
                .collect::<std::collections::BTreeSet<_>>();
            if rows.len() > 1 && cols.len() > 1 {
                shapes += 1;
            }
            if cells.len() >= 6 {
                merged_runs += 1;
            }
        }
        assert_eq!(
            engine_groups(&engine::find_groups(&raw.board())),
            naive_groups(&raw),
            "{raw:?}"
        );
    }
    assert!(dead >= 20 && live >= 20, "dead {dead}, live {live}");
    assert!(
        shapes >= 20 && merged_runs >= 20,
        "shapes {shapes}, merged {merged_runs}"
    );
}

#[test]
fn sweep_covers_multi_step_cascades_and_shuffles() {
    let mut rng = SplitMix(7);
    let (mut multi_step, mut shuffled) = (0, 0);
    for seed in 0..300u64 {
        let (w, h) = (3 + rng.below(6) as u32, 3 + rng.below(6) as u32);
        let colors = 3 + rng.below(2) as u32;
        let (board, _) = engine::GenerationSize::for_swap(w, h, colors)
            .and_then(|size| engine::generate_swap_board(size, 1, &mut engine::rng_from_seed(seed)))
            .unwrap();
        let g = Grid::of(board.colors());
        let swaps = naive_valid_swaps(&g);
        let (a, b) = swaps[rng.below(swaps.len() as u64) as usize];
        let options = CascadeOptions {
            refill: Refill::Random {
                colors: colors as u8,
            },
            auto_shuffle: true,
            max_steps: 10_000,
            specials: false,
        };
        let outcome = resolve_and_check(&g, a, b, options, seed);
        if outcome.steps.len() >= 2 {
            multi_step += 1;
        }
        if outcome.board_before_shuffle.is_some() {
            shuffled += 1;
        }
    }
    assert!(multi_step >= 20, "multi-step cascades: {multi_step}");
    assert!(shuffled >= 1, "automatic shuffles: {shuffled}");
}

// ---------------------------------------------------------------------------------------------
// rules examples through the same oracles
// ---------------------------------------------------------------------------------------------

#[test]
fn spec_examples_agree_with_the_oracles() {
    let rrg = Grid::parse("RRG/GGR");
    assert_eq!(
        naive_valid_swaps(&rrg),
        vec![(Position::new(0, 2), Position::new(1, 2))]
    );
    check_swaps(&rrg).unwrap();
    assert_eq!(naive_groups(&Grid::parse("RRR/RRR"))[0].1.len(), 6);
    assert_eq!(
        engine_groups(&engine::find_groups(&Board::parse("RAB/RCD/RRR").unwrap())),
        naive_groups(&Grid::parse("RAB/RCD/RRR"))
    );
    let dead = Grid::parse("RGB/GBR/BRG");
    assert!(naive_valid_swaps(&dead).is_empty());
    assert!(engine::is_dead(&stable_board(&dead)));
    assert!(naive_shuffle_exists(&dead));
    check_shuffle(&dead, 1, true).unwrap();

    let none = CascadeOptions {
        refill: Refill::None,
        auto_shuffle: true,
        max_steps: 100,
        specials: false,
    };
    let g = Grid::parse("GRYY/YRRG/BGYY/BGGY");
    let (a, b) = (Position::new(0, 3), Position::new(1, 3));
    let outcome = resolve_and_check(&g, a, b, none, 0);
    assert_eq!(outcome.steps.len(), 2);
    assert_eq!(
        Grid::of(outcome.board.colors()),
        Grid::parse("G.../YRY./BRR./BGY.")
    );

    let g = Grid::parse("13552/34331/32452/24455/14411");
    let outcome =
        engine::resolve_board(g.board().into(), none, &mut engine::rng_from_seed(0)).unwrap();
    check_cascade(&g, false, none, &outcome).unwrap();
    assert_eq!(outcome.steps.len(), 2);
    assert_eq!(
        Grid::of(outcome.board.colors()),
        Grid::parse("13.../34.52/32.31/24.52/14311")
    );
}

/// Boards at the size limit (64 columns or rows): runs and swaps along the last row and column.
#[test]
fn boards_at_the_size_limit_match_the_oracles() {
    let mut rng = SplitMix(64);
    for (w, h) in [(64, 64), (64, 1), (1, 64), (64, 3), (3, 64)] {
        for colors in [1u32, 2, 3] {
            let raw = Grid::new(
                w,
                h,
                (0..w * h)
                    .map(|_| {
                        if rng.below(10) == 0 {
                            0
                        } else {
                            1 + rng.below(u64::from(colors)) as u32
                        }
                    })
                    .collect(),
            );
            check_runs_and_groups(&raw).unwrap();
        }
        let cells = (0..w * h).map(|_| 1 + rng.below(4) as u32).collect();
        let stable = repair_stable(Grid::new(w, h, cells), 4);
        check_swaps(&stable).unwrap();
        let swaps = naive_valid_swaps(&stable);
        assert!(!swaps.is_empty(), "{w}x{h}");
        // The last valid swap touches the far end of the board.
        let (a, b) = *swaps.last().unwrap();
        check_verdict(&stable, a, b).unwrap();
        for refill in [Refill::None, Refill::Random { colors: 4 }] {
            let options = CascadeOptions {
                refill,
                auto_shuffle: true,
                max_steps: 10_000,
                specials: false,
            };
            resolve_and_check(&stable, a, b, options, w as u64);
        }
    }
}

/// The cascade checker is not vacuous: it rejects outcomes with a wrong score, an extra fall, a
/// wrong step number, a missing spawn or a wrong final board.
#[test]
fn the_cascade_checker_rejects_tampered_outcomes() {
    let g = Grid::parse("GRYY/YRRG/BGYY/BGGY");
    let (a, b) = (Position::new(0, 3), Position::new(1, 3));
    let start = swapped(&g, a, b);
    for refill in [Refill::None, Refill::Random { colors: 4 }] {
        let options = CascadeOptions {
            refill,
            auto_shuffle: false,
            max_steps: 100,
            specials: false,
        };
        let outcome = resolve_and_check(&g, a, b, options, 3);

        let mut wrong = outcome.clone();
        wrong.steps[0].score += 10;
        wrong.total_score += 10;
        assert!(
            check_cascade(&start, true, options, &wrong).is_err(),
            "score"
        );

        let mut wrong = outcome.clone();
        let fall = wrong.steps[0].falls[0];
        wrong.steps[0].falls.push(fall);
        assert!(
            check_cascade(&start, true, options, &wrong).is_err(),
            "falls"
        );

        let mut wrong = outcome.clone();
        wrong.steps[0].index = 2;
        assert!(
            check_cascade(&start, true, options, &wrong).is_err(),
            "index"
        );

        let mut wrong = outcome.clone();
        wrong.board = Board::parse("..../..../..../....").unwrap().into();
        assert!(
            check_cascade(&start, true, options, &wrong).is_err(),
            "board"
        );

        if let Refill::Random { .. } = refill {
            let mut wrong = outcome.clone();
            wrong.steps[0].spawns.pop();
            assert!(
                check_cascade(&start, true, options, &wrong).is_err(),
                "spawns"
            );
        }
    }
}
