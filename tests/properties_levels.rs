//! Level boards against the naive reference (`tests/reference/level.rs`, docs/rules.md section
//! 6) on random boards with random holes and kinds: verdicts and combinations of every swap,
//! the valid-swap list, full cascades under NONE refill (from a swap and from a raw board), and
//! cascades under RANDOM refill re-simulated with the spawns the engine reported.
mod reference;

use matchgrid::engine::{self, CascadeOptions, Position, Refill, Swap, SwapVerdict};
use matchgrid::engine::{Combination, LevelBoard, LevelStep, PieceKind, StableLevel};
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use reference::Cell;
use reference::level::{self as naive, Combo, Level, Verdict};

fn kind_code(kind: PieceKind) -> u32 {
    match kind {
        PieceKind::Normal => naive::NORMAL,
        PieceKind::StripedH => naive::STRIPED_H,
        PieceKind::StripedV => naive::STRIPED_V,
        PieceKind::Wrapped => naive::WRAPPED,
        PieceKind::ColorBomb => naive::BOMB,
    }
}

fn kind_of(code: u32) -> PieceKind {
    match code {
        naive::STRIPED_H => PieceKind::StripedH,
        naive::STRIPED_V => PieceKind::StripedV,
        naive::WRAPPED => PieceKind::Wrapped,
        naive::BOMB => PieceKind::ColorBomb,
        _ => PieceKind::Normal,
    }
}

fn engine_level(l: &Level) -> LevelBoard {
    let board = engine::Board::from_raw(l.w as u32, l.h as u32, &l.cells).unwrap();
    let kinds = l.kinds.iter().map(|&k| kind_of(k)).collect();
    LevelBoard::new(board, l.holes.clone(), kinds).unwrap()
}

fn naive_level(l: &LevelBoard) -> Level {
    Level {
        w: l.width(),
        h: l.height(),
        cells: l.board().cells().iter().map(|&c| u32::from(c)).collect(),
        holes: l.holes().to_vec(),
        kinds: l.kinds().iter().map(|&k| kind_code(k)).collect(),
    }
}

fn combo_of(c: Option<Combination>) -> Option<Combo> {
    c.map(|c| match c {
        Combination::BombNormal => Combo::BombNormal,
        Combination::BombStriped => Combo::BombStriped,
        Combination::BombWrapped => Combo::BombWrapped,
        Combination::BombBomb => Combo::BombBomb,
        Combination::StripedStriped => Combo::StripedStriped,
        Combination::StripedWrapped => Combo::StripedWrapped,
        Combination::WrappedWrapped => Combo::WrappedWrapped,
    })
}

fn verdict_of(v: SwapVerdict) -> Verdict {
    match v {
        SwapVerdict::Ok => Verdict::Ok,
        SwapVerdict::OutOfBounds => Verdict::OutOfBounds,
        SwapVerdict::Hole => Verdict::Hole,
        SwapVerdict::NotAdjacent => Verdict::NotAdjacent,
        SwapVerdict::EmptyCell => Verdict::EmptyCell,
        SwapVerdict::NoMatch => Verdict::NoMatch,
    }
}

fn cell(p: Position) -> Cell {
    (p.row, p.col)
}

/// The engine's step in the naive model's terms.
fn step_of(step: &LevelStep) -> naive::Step {
    naive::Step {
        groups: step
            .groups
            .iter()
            .map(|g| {
                (
                    u32::from(g.color),
                    g.cells.iter().map(|&p| cell(p)).collect(),
                )
            })
            .collect(),
        fired: step
            .fired
            .iter()
            .map(|s| (cell(s.position), kind_code(s.kind)))
            .collect(),
        created: step
            .created
            .iter()
            .map(|s| (cell(s.position), kind_code(s.kind), u32::from(s.color)))
            .collect(),
        effect_cleared: step.effect_cleared.iter().map(|&p| cell(p)).collect(),
        falls: step
            .falls
            .iter()
            .map(|f| (cell(f.from), cell(f.to)))
            .collect(),
        spawns: step
            .spawns
            .iter()
            .map(|s| (cell(s.position), u32::from(s.color)))
            .collect(),
        score: step.score,
    }
}

/// A random level: sides 1..=7 with 2..=5 colours or, one time in four when `large`, sides
/// 8..=20 (past the engine's one-word packed boards) with 4..=16 colours; about 1 in 8 cells a
/// hole, 1 in 6 tiles a special (a bomb has no colour), some cells empty when `empties`.
fn raw_level(empties: bool, large: bool) -> impl Strategy<Value = Level> {
    let sizes = prop_oneof![
        3 => (1usize..=7, 1usize..=7, 2u32..=5),
        u32::from(large) => (8usize..=20, 8usize..=20, 4u32..=16),
    ];
    sizes.prop_flat_map(move |(w, h, colors)| {
        proptest::collection::vec((0u32..8, 1..=colors, 0u32..12, 0u32..10), w * h).prop_map(
            move |raw| {
                let mut level = Level {
                    w,
                    h,
                    cells: Vec::new(),
                    holes: Vec::new(),
                    kinds: Vec::new(),
                };
                for (hole, color, kind, empty) in raw {
                    let hole = hole == 0;
                    let kind = if hole {
                        naive::NORMAL
                    } else {
                        match kind {
                            0 => naive::STRIPED_H,
                            1 => naive::STRIPED_V,
                            2 => naive::WRAPPED,
                            3 => naive::BOMB,
                            _ => naive::NORMAL,
                        }
                    };
                    let empty = empties && empty == 0 && kind == naive::NORMAL;
                    let color = if hole || empty || kind == naive::BOMB {
                        0
                    } else {
                        color
                    };
                    level.cells.push(color);
                    level.holes.push(hole);
                    level.kinds.push(kind);
                }
                level
            },
        )
    })
}

/// A random stable level: a full raw level whose cells completing a run (left or above) take
/// the next colour until they do not.
fn stable_level(large: bool) -> impl Strategy<Value = Level> {
    raw_level(false, large).prop_map(|mut l| {
        for i in 0..l.cells.len() {
            let (r, c) = (i / l.w, i % l.w);
            let run_with = |l: &Level, color: u32| {
                let same = |j: usize| !l.holes[j] && l.cells[j] == color;
                (c >= 2 && same(i - 1) && same(i - 2))
                    || (r >= 2 && same(i - l.w) && same(i - 2 * l.w))
            };
            if l.cells[i] == 0 {
                continue;
            }
            for _ in 0..6 {
                if !run_with(&l, l.cells[i]) {
                    break;
                }
                l.cells[i] = l.cells[i] % 6 + 1;
            }
        }
        l
    })
}

const NONE: CascadeOptions = CascadeOptions {
    refill: Refill::None,
    auto_shuffle: true,
    max_steps: 1000,
};

fn check_cascade(
    l: &Level,
    swap: Option<(Cell, Cell)>,
    outcome: &engine::LevelOutcome,
    spawns: Option<Vec<u32>>,
) -> TestCaseResult {
    let mut colours = spawns.map(|s| s.into_iter());
    let (steps, last) = l.resolve(
        swap,
        colours.as_mut().map(|c| c as &mut dyn Iterator<Item = u32>),
    );
    let engine_steps: Vec<naive::Step> = outcome.steps.iter().map(step_of).collect();
    prop_assert_eq!(engine_steps, steps, "board {:?} swap {:?}", l, swap);
    let before = outcome
        .board_before_shuffle
        .as_ref()
        .unwrap_or(&outcome.board);
    prop_assert_eq!(naive_level(before), last);
    // The final judgement (bit masks in the engine) against the naive verdicts.
    if outcome.stable {
        let final_board = naive_level(&outcome.board);
        prop_assert!(final_board.is_stable());
        let valid = final_board.valid_swaps().len();
        prop_assert_eq!(outcome.valid_swap_count, valid);
        prop_assert_eq!(outcome.dead, valid == 0);
    } else {
        prop_assert_eq!(outcome.valid_swap_count, 0);
    }
    prop_assert_eq!(
        outcome.total_score,
        outcome.steps.iter().map(|s| s.score).sum::<u64>()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn verdicts_and_valid_swaps_match_the_reference(l in stable_level(true)) {
        let level = engine_level(&l);
        for i in 0..l.cells.len() {
            let a = l.cell(i);
            for b in [(a.0, a.1 + 1), (a.0 + 1, a.1), (a.0 + 1, a.1 + 1), (a.0, a.1 + 2), a] {
                let swap = Swap::new(Position::new(a.0, a.1), Position::new(b.0, b.1));
                let (verdict, combination) = engine::judge_level_swap(&level, swap);
                prop_assert_eq!((verdict_of(verdict), combo_of(combination)), l.verdict(a, b));
            }
        }
        if l.is_stable() {
            let stable = StableLevel::try_from(level).unwrap();
            prop_assert_eq!(engine::count_level_valid_swaps(&stable), l.valid_swaps().len());
            let listed: Vec<((Cell, Cell), Option<Combo>)> = engine::level_valid_swaps(&stable)
                .into_iter()
                .map(|(s, c)| ((cell(s.a), cell(s.b)), combo_of(c)))
                .collect();
            prop_assert_eq!(listed, l.valid_swaps());
        } else {
            prop_assert!(StableLevel::try_from(level).is_err());
        }
    }

    #[test]
    fn swap_cascades_under_none_refill_match_the_reference(l in stable_level(true)) {
        prop_assume!(l.is_stable());
        let stable = StableLevel::try_from(engine_level(&l)).unwrap();
        for (swap, _) in l.valid_swaps().into_iter().take(6) {
            let s = Swap::new(Position::new(swap.0.0, swap.0.1), Position::new(swap.1.0, swap.1.1));
            let outcome = engine::resolve_level_swap(
                stable.clone(), s, NONE, &mut engine::rng_from_seed(1),
            ).unwrap();
            check_cascade(&l, Some(swap), &outcome, None)?;
        }
    }

    #[test]
    fn raw_board_cascades_under_none_refill_match_the_reference(l in raw_level(true, true)) {
        let outcome = engine::resolve_level_board(
            engine_level(&l), NONE, &mut engine::rng_from_seed(2),
        ).unwrap();
        check_cascade(&l, None, &outcome, None)?;
    }

    // Small levels only: with two refill colours a large board can cascade for hundreds of
    // steps, past the naive model's runaway guard.
    #[test]
    fn random_refill_cascades_resimulate_from_the_reported_spawns(
        l in stable_level(false), seed in 0u64..1000, colors in 2u8..=5,
    ) {
        prop_assume!(l.is_stable());
        let options = CascadeOptions { refill: Refill::Random { colors }, ..NONE };
        let stable = StableLevel::try_from(engine_level(&l)).unwrap();
        for (swap, _) in l.valid_swaps().into_iter().take(3) {
            let s = Swap::new(Position::new(swap.0.0, swap.0.1), Position::new(swap.1.0, swap.1.1));
            let outcome = engine::resolve_level_swap(
                stable.clone(), s, options, &mut engine::rng_from_seed(seed),
            );
            let Ok(outcome) = outcome else { continue }; // two colours may never settle
            let spawns: Vec<u32> = outcome
                .steps
                .iter()
                .flat_map(|st| st.spawns.iter().map(|sp| u32::from(sp.color)))
                .collect();
            check_cascade(&l, Some(swap), &outcome, Some(spawns))?;
            prop_assert!(outcome.stable);
            prop_assert_eq!(outcome.board.holes(), &l.holes[..]);
        }
    }
}
