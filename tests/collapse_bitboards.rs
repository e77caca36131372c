//! The collapse family's fast representations against the naive reference of
//! `tests/reference/collapse.rs` (docs/rules.md section 3), on random settled boards of every
//! size 1..=64, including 64-tall columns, 64-wide rows and 1-wide boards: the column bitboards
//! ([`CollapseGame`]), their tracked groups ([`CollapsePlayout`]), the 256-bit planes
//! ([`CompactGame`], boards up to 16x16) and the recording API built on them ([`engine::tap`],
//! [`engine::legal_groups`], [`engine::is_game_over`]). Every query and one tap on each board,
//! then playouts on each representation with every position checked.
//!
//! Boards up to 16x16 take the planes in the recording API and larger ones the column
//! bitboards, so both paths meet the reference here; the engine's own unit tests check that the
//! two paths agree on the small boards too.

mod prop_support;
mod reference;

use matchgrid::engine::{
    self, COMPACT_SIDE, CollapseGame, CollapsePlayout, CompactGame, EngineError, LegalGroup,
    MinGroup, Position, ScoringRule, SettledBoard, TapRejection,
};
use proptest::prelude::*;

use prop_support::{SplitMix, config};
use reference::collapse::{self as naive, Rule};
use reference::convert::{cell, cells, falls_of, pos};
use reference::{Cell, Grid};

fn settled(g: &Grid) -> SettledBoard {
    SettledBoard::try_from(g.board()).unwrap()
}

/// A random settled grid: a prefix of non-empty columns, each a stack of tiles from the bottom
/// (often full), coloured from a random palette of `1..=colors` colours out of 16.
fn random_settled(width: usize, height: usize, colors: usize, mix: &mut SplitMix) -> Grid {
    let mut below = |n: usize| mix.below(n as u64) as usize;
    let mut palette: Vec<u32> = (1..=16).collect();
    for i in (1..palette.len()).rev() {
        palette.swap(i, below(i + 1));
    }
    let filled = if below(4) == 0 {
        below(width + 1)
    } else {
        width
    };
    let mut g = Grid::empty(width, height);
    for col in 0..filled {
        let stack = if below(2) == 0 {
            height
        } else {
            1 + below(height)
        };
        for row in height - stack..height {
            g.cells[row * width + col] = palette[below(colors)];
        }
    }
    g
}

/// The reference's legal groups in the engine's vocabulary, scored by PopStar.
fn reference_groups(g: &Grid, min: usize) -> Vec<LegalGroup> {
    naive::legal_groups(g, min)
        .into_iter()
        .map(|(first, color, size)| LegalGroup {
            representative: pos(first),
            color: color as u8,
            size,
            score: Rule::PopStar.move_score(size as u64),
        })
        .collect()
}

/// The engine's cells of a settled board, as the reference's.
fn cells_of(board: &SettledBoard) -> Vec<u32> {
    Grid::of(board.board()).cells
}

/// The first cell row-major of the group holding `at`.
fn first_of(g: &Grid, at: Position) -> Cell {
    naive::component(g, cell(at))[0]
}

/// Every query and one tap on one board against the reference; then a playout of up to
/// `moves` taps on `CollapseGame` (and its tracked groups), checked against the reference
/// after every tap; then a playout to game over on `CompactGame`.
fn check_board(g: &Grid, min: usize, moves: usize, mix: &mut SplitMix) {
    let (width, height) = (g.w, g.h);
    let min_group = MinGroup::parse(min as u32).unwrap();
    let board = settled(g);
    let label = format!("{width}x{height} min {min} {}", board.board());
    let expected = reference_groups(g, min);
    assert_eq!(
        engine::legal_groups(&board, ScoringRule::PopStar, min_group),
        expected,
        "{label}"
    );
    if let Some(compact) = CompactGame::from_board(&board) {
        assert_eq!(
            Some(&compact),
            CompactGame::new(&CollapseGame::new(&board)).as_ref()
        );
    }
    assert_eq!(
        engine::is_game_over(&board, min_group),
        expected.is_empty(),
        "{label}"
    );
    let game = CollapseGame::new(&board);
    assert_eq!(
        game.count_legal_groups(min_group),
        expected.len(),
        "{label}"
    );
    assert_eq!(game.has_legal_group(min_group), !expected.is_empty());
    assert_eq!(game.to_settled_board(), board, "{label}");
    assert_eq!(game.tiles_left(), g.tiles());
    let mut found = Vec::new();
    game.legal_groups_into(min_group, &mut found);
    let mut named: Vec<LegalGroup> = found
        .iter()
        .map(|group| {
            let members = naive::component(g, cell(group.position));
            assert_eq!(
                (u32::from(group.color), group.size),
                (g.get(cell(group.position)), members.len()),
                "{label}"
            );
            expected
                .iter()
                .find(|e| cell(e.representative) == members[0])
                .copied()
                .unwrap_or_else(|| panic!("{label}: {group:?} is not a legal group"))
        })
        .collect();
    named.sort_unstable_by_key(|group| (group.representative.row, group.representative.col));
    assert_eq!(named, expected, "{label}: legal_groups_into");

    // One tap through the recording API, at a random cell.
    let index = mix.below(g.cells.len() as u64) as usize;
    let at = g.cell(index);
    let outcome = engine::tap(&board, pos(at), ScoringRule::PopStar, min_group);
    if g.cells[index] == 0 {
        assert_eq!(
            outcome,
            Err(EngineError::IllegalTap(TapRejection::EmptyCell))
        );
    } else {
        let size = naive::component(g, at).len();
        if size < min {
            assert_eq!(
                outcome,
                Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                    size,
                    min_group: min
                })),
                "{label}"
            );
        } else {
            let tapped = naive::tap(g, at);
            let outcome = outcome.unwrap();
            let left = tapped.board.tiles();
            let over = reference_groups(&tapped.board, min).is_empty();
            assert_eq!(
                cells_of(&outcome.board),
                tapped.board.cells,
                "{label} tap {at:?}"
            );
            assert_eq!(cells(&outcome.cleared), tapped.cleared, "{label}");
            assert_eq!(u32::from(outcome.color), tapped.color);
            assert_eq!(falls_of(&outcome.falls), tapped.falls, "{label} tap {at:?}");
            let shifts: Vec<(u32, u32)> = outcome
                .column_shifts
                .iter()
                .map(|shift| (shift.from_col, shift.to_col))
                .collect();
            assert_eq!(shifts, tapped.shifts, "{label} tap {at:?}");
            assert_eq!(outcome.move_score, 5 * (size * size) as u64);
            assert_eq!((outcome.tiles_left, outcome.game_over), (left, over));
            let bonus = if over {
                Rule::PopStar.end_bonus(left as i64)
            } else {
                0
            };
            assert_eq!(outcome.end_bonus, bonus);
        }
    }

    // A playout on the bitboards, every position checked.
    let mut game = game;
    let mut tracked = CollapsePlayout::new(game.clone(), min_group);
    let mut current = g.clone();
    for _ in 0..moves {
        check_tracked(&tracked, &current, min, &label);
        let groups = reference_groups(&current, min);
        if groups.is_empty() {
            break;
        }
        let pick = groups[mix.below(groups.len() as u64) as usize];
        let start = cell(pick.representative);
        let size = game.apply_tap(pick.representative, min_group).unwrap();
        assert_eq!(size, pick.size, "{label}");
        let index = (0..tracked.group_count())
            .find(|&i| first_of(&current, tracked.group(i).position) == start)
            .unwrap_or_else(|| panic!("{label}: tracked groups miss {pick:?}"));
        assert_eq!(tracked.tap_group(index), size, "{label}");
        current = naive::tap(&current, start).board;
        assert_eq!(cells_of(&game.to_settled_board()), current.cells, "{label}");
        assert_eq!(
            game.count_legal_groups(min_group),
            reference_groups(&current, min).len()
        );
        assert_eq!(game.tiles_left(), current.tiles());
    }
    check_tracked(&tracked, &current, min, &label);
    check_compact(&board, min, mix);
}

/// [`CompactGame`] on `board`: `None` above 16x16; else its queries against the reference and
/// a random playout to game over, every tap and position checked.
fn check_compact(board: &SettledBoard, min: usize, mix: &mut SplitMix) {
    let (width, height) = (board.board().width(), board.board().height());
    let label = format!("compact {width}x{height} min {min} {}", board.board());
    let min_group = MinGroup::parse(min as u32).unwrap();
    let Some(mut compact) = CompactGame::new(&CollapseGame::new(board)) else {
        assert!(width > COMPACT_SIDE || height > COMPACT_SIDE, "{label}");
        return;
    };
    assert!(width <= COMPACT_SIDE && height <= COMPACT_SIDE, "{label}");
    assert_eq!((compact.width(), compact.height()), (width, height));
    let mut rng = engine::rng_from_seed(mix.next());
    let mut current = Grid::of(board.board());
    loop {
        assert_eq!(
            cells_of(&compact.to_settled_board()),
            current.cells,
            "{label}"
        );
        assert_eq!(compact.tiles_left(), current.tiles(), "{label}");
        let expected = reference_groups(&current, min);
        assert_eq!(
            compact.count_legal_groups(min_group),
            expected.len(),
            "{label}"
        );
        assert_eq!(compact.has_legal_group(min_group), !expected.is_empty());
        let Some(tapped) = compact.tap_random(min_group, &mut rng) else {
            assert!(expected.is_empty(), "{label}: game over too early");
            break;
        };
        let at = cell(tapped.position);
        let members = naive::component(&current, at);
        assert_eq!(
            (u32::from(tapped.color), tapped.size),
            (current.get(at), members.len())
        );
        // The recording API on this position against the reference.
        let here = settled(&current);
        let recorded = engine::tap(&here, tapped.position, ScoringRule::PopStar, min_group);
        let reference = naive::tap(&current, at);
        let recorded = recorded.unwrap();
        assert_eq!(cells_of(&recorded.board), reference.board.cells, "{label}");
        let shifts: Vec<(u32, u32)> = recorded
            .column_shifts
            .iter()
            .map(|shift| (shift.from_col, shift.to_col))
            .collect();
        assert_eq!(
            (cells(&recorded.cleared), falls_of(&recorded.falls), shifts),
            (reference.cleared, reference.falls, reference.shifts),
            "{label}"
        );
        assert_eq!(
            engine::legal_groups(&here, ScoringRule::PopStar, min_group),
            expected
        );
        assert!(tapped.size >= min, "{label}: {tapped:?}");
        current = reference.board;
    }
}

/// The tracked groups of `tracked` are exactly the reference's legal groups of `g`.
fn check_tracked(tracked: &CollapsePlayout, g: &Grid, min: usize, label: &str) {
    assert_eq!(
        cells_of(&tracked.game().to_settled_board()),
        g.cells,
        "{label}"
    );
    let expected = reference_groups(g, min);
    let mut named: Vec<LegalGroup> = (0..tracked.group_count())
        .map(|i| {
            let group = tracked.group(i);
            let members = naive::component(g, cell(group.position));
            assert_eq!(
                (u32::from(group.color), group.size),
                (g.get(cell(group.position)), members.len()),
                "{label}"
            );
            LegalGroup {
                representative: pos(members[0]),
                color: group.color,
                size: group.size,
                score: ScoringRule::PopStar.move_score(group.size),
            }
        })
        .collect();
    named.sort_unstable_by_key(|group| (group.representative.row, group.representative.col));
    assert_eq!(named, expected, "{label}: tracked groups");
}

#[test]
fn every_side_from_1_to_64() {
    let mut mix = SplitMix(64);
    for n in 1..=64 {
        for (width, height) in [(n, 1), (1, n), (n, 64), (64, n), (n, n)] {
            for colors in [1, 2, 5] {
                let g = random_settled(width, height, colors, &mut mix);
                let min = 2 + mix.below(3) as usize;
                check_board(&g, min, 12, &mut mix);
            }
        }
    }
}

#[test]
fn taps_on_the_bitboards_reject_like_the_api() {
    let game = CollapseGame::new(&settled(&Grid::new(2, 2, vec![1, 0, 1, 2])));
    assert!(matches!(
        game.clone()
            .apply_tap(Position::new(0, 2), MinGroup::DEFAULT),
        Err(EngineError::PositionOffBoard {
            field: "position",
            ..
        })
    ));
    assert_eq!(
        game.clone()
            .apply_tap(Position::new(0, 1), MinGroup::DEFAULT),
        Err(EngineError::IllegalTap(TapRejection::EmptyCell))
    );
    assert_eq!(
        game.clone()
            .apply_tap(Position::new(1, 1), MinGroup::DEFAULT),
        Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size: 1,
            min_group: 2
        }))
    );
    let mut tapped = game.clone();
    assert_eq!(
        tapped.apply_tap(Position::new(1, 0), MinGroup::DEFAULT),
        Ok(2)
    );
    assert_eq!(tapped.to_settled_board().board().to_string(), "../G.");
    assert_eq!(tapped.tiles_left(), 1);
}

proptest! {
    #![proptest_config(config(160))]

    #[test]
    fn bitboards_match_the_reference(
        width in 1usize..=64,
        height in 1usize..=64,
        colors in 1usize..=7,
        min in 2usize..=5,
        seed in any::<u64>(),
    ) {
        let mut mix = SplitMix(seed);
        let g = random_settled(width, height, colors, &mut mix);
        check_board(&g, min, 8, &mut mix);
    }

    /// Small boards played to game over, every position checked.
    #[test]
    fn playouts_to_game_over_match_the_reference(
        width in 1usize..=16,
        height in 1usize..=16,
        colors in 1usize..=6,
        min in 2usize..=4,
        seed in any::<u64>(),
    ) {
        let mut mix = SplitMix(seed);
        let g = random_settled(width, height, colors, &mut mix);
        check_board(&g, min, usize::MAX, &mut mix);
    }
}
