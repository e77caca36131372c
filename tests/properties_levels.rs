//! Level boards against the naive reference (`tests/reference/level.rs`, docs/rules.md section
//! 6) on random boards with random holes and kinds: verdicts and combinations of every swap,
//! the valid-swap list, full cascades under NONE refill (from a swap and from a raw board), and
//! cascades under RANDOM refill re-simulated with the spawns the engine reported; and shuffles
//! (a permutation of the tiles with their kinds, holes in place, stable, with a valid swap),
//! refused only where an exhaustive search of small boards finds no such arrangement.
mod prop_support;
mod reference;

use matchgrid::engine::{self, CascadeOptions, EngineError, Refill, Swap, SwapVerdict};
use matchgrid::engine::{CascadeStep, Combination, PieceKind, StableBoard, SwapBoard};
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use prop_support::config;
use reference::Cell;
use reference::convert::{cell, cells, falls_of, groups_of, pos, spawns_of};
use reference::level::{self as naive, Combo, Level, Verdict};

fn kind_code(kind: PieceKind) -> u32 {
    match kind {
        PieceKind::Normal => naive::NORMAL,
        PieceKind::StripedH => naive::STRIPED_H,
        PieceKind::StripedV => naive::STRIPED_V,
        PieceKind::Wrapped => naive::WRAPPED,
        PieceKind::ColorBomb => naive::BOMB,
        PieceKind::Ingredient => unreachable!("section 6 boards hold no ingredient"),
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

fn engine_level(l: &Level) -> SwapBoard {
    let board = engine::Board::from_raw(l.w as u32, l.h as u32, &l.cells).unwrap();
    let kinds = l.kinds.iter().map(|&k| kind_of(k)).collect();
    SwapBoard::with_layers(board, l.holes.clone(), kinds).unwrap()
}

fn naive_level(l: &SwapBoard) -> Level {
    Level {
        w: l.width(),
        h: l.height(),
        cells: l.colors().cells().iter().map(|&c| u32::from(c)).collect(),
        holes: l.holes().expect("a level has layers").to_vec(),
        kinds: l
            .kinds()
            .expect("a level has layers")
            .iter()
            .map(|&k| kind_code(k))
            .collect(),
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
        SwapVerdict::Blocked => unreachable!("section 6 boards have no fixed cell"),
        SwapVerdict::NotAdjacent => Verdict::NotAdjacent,
        SwapVerdict::EmptyCell => Verdict::EmptyCell,
        SwapVerdict::NoMatch => Verdict::NoMatch,
    }
}

/// The engine's step in the naive model's terms.
fn step_of(step: &CascadeStep) -> naive::Step {
    naive::Step {
        groups: groups_of(&step.groups),
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
        effect_cleared: cells(&step.effect_cleared),
        falls: falls_of(&step.falls),
        spawns: spawns_of(&step.spawns),
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
    specials: true,
};

fn check_cascade(
    l: &Level,
    swap: Option<(Cell, Cell)>,
    outcome: &engine::CascadeOutcome,
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
        // The rules judge swaps on stable boards only (the generator makes almost all stable).
        if l.is_stable() {
            let stable = StableBoard::try_from(level).unwrap();
            for i in 0..l.cells.len() {
                let a = l.cell(i);
                for b in [(a.0, a.1 + 1), (a.0 + 1, a.1), (a.0 + 1, a.1 + 1), (a.0, a.1 + 2), a] {
                    let swap = Swap::new(pos(a), pos(b));
                    let preview = engine::preview_swap(&stable, swap);
                    prop_assert_eq!(engine::judge_swap(&stable, swap), preview.verdict);
                    prop_assert_eq!(
                        (verdict_of(preview.verdict), combo_of(preview.combination)),
                        l.verdict(a, b)
                    );
                }
            }
            prop_assert_eq!(engine::count_valid_swaps(&stable), l.valid_swaps().len());
            let listed: Vec<((Cell, Cell), Option<Combo>)> = engine::valid_swaps_with_combinations(&stable)
                .into_iter()
                .map(|(s, c)| ((cell(s.a), cell(s.b)), combo_of(c)))
                .collect();
            prop_assert_eq!(listed, l.valid_swaps());
        } else {
            prop_assert!(StableBoard::try_from(level).is_err());
        }
    }

    #[test]
    fn swap_cascades_under_none_refill_match_the_reference(l in stable_level(true)) {
        prop_assume!(l.is_stable());
        let stable = StableBoard::try_from(engine_level(&l)).unwrap();
        for (swap, _) in l.valid_swaps().into_iter().take(6) {
            let s = Swap::new(pos(swap.0), pos(swap.1));
            let outcome = engine::resolve_swap(
                stable.clone(), s, NONE, &mut engine::rng_from_seed(1),
            ).unwrap();
            check_cascade(&l, Some(swap), &outcome, None)?;
        }
    }

    #[test]
    fn raw_board_cascades_under_none_refill_match_the_reference(l in raw_level(true, true)) {
        let outcome = engine::resolve_board(
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
        let stable = StableBoard::try_from(engine_level(&l)).unwrap();
        for (swap, _) in l.valid_swaps().into_iter().take(3) {
            let s = Swap::new(pos(swap.0), pos(swap.1));
            let outcome = engine::resolve_swap(
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
            prop_assert_eq!(outcome.board.holes(), Some(&l.holes[..]));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Shuffles of level boards (docs/rules.md section 6: holes stay, every tile moves with its kind)
// ---------------------------------------------------------------------------------------------

/// The tiles of the open cells as `(colour, kind)`, sorted: what a shuffle may permute.
fn tiles(l: &Level) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = (0..l.cells.len())
        .filter(|&i| !l.holes[i])
        .map(|i| (l.cells[i], l.kinds[i]))
        .collect();
    out.sort_unstable();
    out
}

/// Whether two open cells are side by side (holes cut adjacency).
fn has_adjacent_open_pair(l: &Level) -> bool {
    (0..l.cells.len()).any(|i| {
        let (r, c) = (i / l.w, i % l.w);
        !l.holes[i] && ((c + 1 < l.w && !l.holes[i + 1]) || (r + 1 < l.h && !l.holes[i + l.w]))
    })
}

/// Whether the hole mask leaves room for an ordinary (non-combination) swap: open cells `a`
/// and `b` side by side and three open cells in a line through `b` that avoid `a` (after the
/// swap `b` holds `a`'s tile; a run needs three cells in a line).
fn mask_has_room_for_a_match(l: &Level) -> bool {
    let open = |r: i64, c: i64| {
        r >= 0
            && c >= 0
            && r < l.h as i64
            && c < l.w as i64
            && !l.holes[(r * l.w as i64 + c) as usize]
    };
    let mut lines = Vec::new();
    for r in 0..l.h as i64 {
        for c in 0..l.w as i64 {
            lines.push([(r, c), (r, c + 1), (r, c + 2)]);
            lines.push([(r, c), (r + 1, c), (r + 2, c)]);
        }
    }
    lines.retain(|line| line.iter().all(|&(r, c)| open(r, c)));
    (0..l.h as i64).any(|r| {
        (0..l.w as i64).any(|c| {
            let b = (r, c);
            open(r, c)
                && [(0, 1), (1, 0), (0, -1), (-1, 0)].iter().any(|&(dr, dc)| {
                    let a = (r + dr, c + dc);
                    open(a.0, a.1)
                        && lines
                            .iter()
                            .any(|line| line.contains(&b) && !line.contains(&a))
                })
        })
    })
}

/// The cases the shuffle's documentation calls proven impossible: no two open cells side by
/// side, or no bomb, fewer than two specials and no ordinary match possible (no colour with
/// three tiles, or a mask with no room for one).
fn documented_impossible(l: &Level) -> bool {
    let tiles = tiles(l);
    let bombs = tiles.iter().filter(|&&(_, k)| k == naive::BOMB).count();
    let specials = tiles.iter().filter(|&&(_, k)| k != naive::NORMAL).count();
    let triple = (1..=16).any(|color| tiles.iter().filter(|&&(c, _)| c == color).count() >= 3);
    !has_adjacent_open_pair(l)
        || (bombs == 0 && specials < 2 && (!triple || !mask_has_room_for_a_match(l)))
}

/// Exhaustive search: a stable arrangement of `l`'s tiles over its open cells (holes fixed)
/// with a valid swap, if any. Cells are filled row-major from the tile counts, never completing
/// a run with the two cells to the left or above (so every stable arrangement is reached once);
/// each complete arrangement is judged by the reference.
fn playable_arrangement(l: &Level) -> Option<Level> {
    let mut counts: Vec<((u32, u32), usize)> = Vec::new();
    for tile in tiles(l) {
        match counts.last_mut() {
            Some((t, n)) if *t == tile => *n += 1,
            _ => counts.push((tile, 1)),
        }
    }
    let open: Vec<usize> = (0..l.cells.len()).filter(|&i| !l.holes[i]).collect();
    fn search(l: &mut Level, open: &[usize], counts: &mut [((u32, u32), usize)]) -> Option<Level> {
        let Some((&i, rest)) = open.split_first() else {
            assert!(l.is_stable(), "the search only builds stable boards: {l:?}");
            return (!l.valid_swaps().is_empty()).then(|| l.clone());
        };
        let (r, c) = (i / l.w, i % l.w);
        for t in 0..counts.len() {
            let ((color, kind), left) = counts[t];
            let same = |j: usize| !l.holes[j] && l.cells[j] == color;
            let run = color != 0
                && ((c >= 2 && same(i - 1) && same(i - 2))
                    || (r >= 2 && same(i - l.w) && same(i - 2 * l.w)));
            if left == 0 || run {
                continue;
            }
            counts[t].1 -= 1;
            (l.cells[i], l.kinds[i]) = (color, kind);
            let found = search(l, rest, counts);
            counts[t].1 += 1;
            if found.is_some() {
                return found;
            }
        }
        (l.cells[i], l.kinds[i]) = (0, naive::NORMAL);
        None
    }
    search(&mut l.clone(), &open, &mut counts)
}

/// A shuffled level: the same holes, the same tiles (each with its kind) over the open cells,
/// stable, with a valid swap (combinations count), and the same again from the same seed.
fn check_shuffled(l: &Level, shuffled: &SwapBoard, seed: u64) -> TestCaseResult {
    let out = naive_level(shuffled);
    prop_assert_eq!((out.w, out.h), (l.w, l.h));
    prop_assert_eq!(&out.holes, &l.holes, "holes stay in place");
    for i in (0..out.cells.len()).filter(|&i| out.holes[i]) {
        prop_assert_eq!(
            (out.cells[i], out.kinds[i]),
            (0, naive::NORMAL),
            "hole {}",
            i
        );
    }
    prop_assert_eq!(
        tiles(&out),
        tiles(l),
        "a permutation of the tiles, kinds with them"
    );
    prop_assert!(out.is_stable(), "unstable shuffle {:?} of {:?}", out, l);
    prop_assert!(
        !out.valid_swaps().is_empty(),
        "shuffle {:?} of {:?} has no valid swap",
        out,
        l
    );
    let again = engine::shuffle(&engine_level(l), &mut engine::rng_from_seed(seed));
    let again = again.ok().map(StableBoard::into_board);
    prop_assert_eq!(
        again.as_ref(),
        Some(shuffled),
        "the same seed, the same shuffle"
    );
    Ok(())
}

/// A full level of at most eight open cells (small enough to search exhaustively): sides
/// 1..=4, 1..=4 colours, holes at a rate drawn per board (cells past the eighth open one become
/// holes too, chosen at random), about one tile in four a special (a quarter of those bombs).
fn small_full_level() -> impl Strategy<Value = Level> {
    (1usize..=4, 1usize..=4, 1u32..=4, 0u32..=60).prop_flat_map(|(w, h, colors, hole_pct)| {
        let n = w * h;
        (
            proptest::collection::vec((0u32..100, 1..=colors, 0u32..16), n),
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        )
            .prop_map(move |(raw, order)| {
                let mut holes: Vec<bool> =
                    raw.iter().map(|&(roll, _, _)| roll < hole_pct).collect();
                let mut open = holes.iter().filter(|&&hole| !hole).count();
                for &i in &order {
                    if open <= 8 {
                        break;
                    }
                    if !holes[i] {
                        holes[i] = true;
                        open -= 1;
                    }
                }
                let mut l = Level {
                    w,
                    h,
                    cells: vec![0; n],
                    holes,
                    kinds: vec![naive::NORMAL; n],
                };
                for (i, &(_, color, kind)) in raw.iter().enumerate() {
                    if l.holes[i] {
                        continue;
                    }
                    l.kinds[i] = match kind {
                        0 => naive::STRIPED_H,
                        1 => naive::STRIPED_V,
                        2 => naive::WRAPPED,
                        3 => naive::BOMB,
                        _ => naive::NORMAL,
                    };
                    l.cells[i] = if l.kinds[i] == naive::BOMB { 0 } else { color };
                }
                l
            })
    })
}

proptest! {
    #![proptest_config(config(600))]

    /// Small boards, against an exhaustive search: a shuffle is refused only when no stable
    /// arrangement with a valid swap exists, and is refused as proven whenever the documented
    /// criterion says so (and then no arrangement exists).
    #[test]
    fn small_level_shuffles_agree_with_exhaustive_search(l in small_full_level(), seed in 0u64..1000) {
        let result = engine::shuffle(&engine_level(&l), &mut engine::rng_from_seed(seed));
        let exists = playable_arrangement(&l);
        if documented_impossible(&l) {
            prop_assert!(exists.is_none(), "{:?} called impossible, but {:?} plays", l, exists);
            prop_assert_eq!(result.err(), Some(EngineError::NoShuffleExists { proven: true }));
        } else if let Some(example) = exists {
            match result {
                Ok(shuffled) => check_shuffled(&l, &shuffled.into_board(), seed)?,
                Err(e) => prop_assert!(false, "{:?} refused ({}), yet {:?} plays", l, e, example),
            }
        } else {
            prop_assert!(
                matches!(result, Err(EngineError::NoShuffleExists { .. })),
                "{:?}: no arrangement plays, yet {:?}", l, result
            );
        }
    }
}

/// A full level of any size the other properties use (sides up to 20), for the invariants of a
/// successful shuffle and the documented refusals where no exhaustive search can follow.
fn full_level() -> impl Strategy<Value = Level> {
    raw_level(false, true)
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn level_shuffles_permute_the_tiles_into_a_playable_stable_board(
        l in full_level(), seed in 0u64..1000,
    ) {
        let result = engine::shuffle(&engine_level(&l), &mut engine::rng_from_seed(seed));
        match result {
            Ok(shuffled) => {
                prop_assert!(!documented_impossible(&l), "{:?} was called impossible", l);
                check_shuffled(&l, &shuffled.into_board(), seed)?;
            }
            Err(EngineError::NoShuffleExists { proven }) => {
                prop_assert_eq!(proven, documented_impossible(&l), "{:?}", l);
            }
            Err(e) => prop_assert!(false, "{:?}: {}", l, e),
        }
    }

    #[test]
    fn level_shuffles_of_boards_with_empty_cells_name_them(
        l in raw_level(true, true), at in any::<prop::sample::Index>(), seed in 0u64..1000,
    ) {
        // At least one empty cell: the open cell `at` picks is emptied too.
        let mut l = l;
        let open: Vec<usize> = (0..l.cells.len()).filter(|&i| !l.holes[i]).collect();
        prop_assume!(!open.is_empty());
        let i = *at.get(&open);
        (l.cells[i], l.kinds[i]) = (0, naive::NORMAL);
        let empty: Vec<Cell> = open
            .iter()
            .filter(|&&i| !l.is_tile(i))
            .map(|&i| l.cell(i))
            .collect();
        match engine::shuffle(&engine_level(&l), &mut engine::rng_from_seed(seed)) {
            Err(EngineError::BoardNotFull { empty_cells }) => {
                prop_assert_eq!(empty_cells.into_iter().map(cell).collect::<Vec<_>>(), empty);
            }
            other => prop_assert!(false, "{:?}: {:?}", l, other),
        }
    }
}

/// A level from its text form (`#` hole, `*` bomb, `-`/`|`/`+` after a colour).
fn parse_level(text: &str) -> Level {
    naive_level(&SwapBoard::parse_with_layers(text).unwrap())
}

fn shuffle_text(text: &str, seed: u64) -> Result<Level, EngineError> {
    engine::shuffle(
        &SwapBoard::parse_with_layers(text).unwrap(),
        &mut engine::rng_from_seed(seed),
    )
    .map(|s| naive_level(&s.into_board()))
}

/// Each of `texts` is refused as proven impossible, and the documented criterion says so.
fn assert_proven_impossible(texts: &[&str]) {
    for text in texts {
        assert!(documented_impossible(&parse_level(text)), "{text}");
        assert_eq!(
            shuffle_text(text, 1).err(),
            Some(EngineError::NoShuffleExists { proven: true }),
            "{text}"
        );
    }
}

#[test]
fn boards_without_holes_are_shuffled() {
    // Plain tiles with a kinds list: a level board with no hole and no special.
    for text in ["RGB/GBR/RGB", "RRGG/GGRR/RRGB", "RGBY/GBYR/BYRG/YRGB"] {
        let l = parse_level(text);
        let shuffled = shuffle_text(text, 5).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tiles(&shuffled), tiles(&l), "{text}");
        assert!(
            shuffled.is_stable() && !shuffled.valid_swaps().is_empty(),
            "{shuffled:?}"
        );
    }
}

#[test]
fn boards_with_no_cells_side_by_side_are_proven_impossible_whatever_their_tiles() {
    // A bomb or two specials make a swap valid only next to another tile; with holes between
    // every pair of cells there is none, and the refusal is certain.
    assert_proven_impossible(&["*", "*#/#R", "R-#/#G+", "*#*/#R#/*#*", "R#R#R/#R#R#"]);
}

#[test]
fn boards_without_a_possible_match_are_proven_impossible() {
    // No colour with three tiles, no bomb, at most one special; or three of a colour on a mask
    // with no line of three (2x2).
    assert_proven_impossible(&["RGB", "RGB/GBR", "R-GB/BGR", "RR/RR", "RR#/RR#"]);
    // Two specials side by side are a combination however the colours fall, two of one kind
    // and colour too; so is a bomb beside any tile.
    for text in ["R-G+", "R-R-", "*R"] {
        let shuffled = shuffle_text(text, 1).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(tiles(&shuffled), tiles(&parse_level(text)), "{text}");
    }
}

/// With nothing to avoid (no run can form, every arrangement plays), each cell takes a tile
/// drawn among the remaining ones by count, so all 12 orders of `*RRG` are equally likely.
#[test]
fn shuffles_draw_the_tiles_by_count() {
    let mut seen: std::collections::BTreeMap<Vec<(u32, u32)>, u32> = Default::default();
    for seed in 0..1200 {
        let l = shuffle_text("*RRG", seed).unwrap();
        *seen
            .entry(
                l.cells
                    .iter()
                    .copied()
                    .zip(l.kinds.iter().copied())
                    .collect(),
            )
            .or_default() += 1;
    }
    assert_eq!(seen.len(), 12, "every order is reached: {seen:?}");
    // 100 expected each; the bounds are over five standard deviations away.
    assert!(seen.values().all(|&n| (50..=150).contains(&n)), "{seen:?}");
}
