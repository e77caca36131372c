//! Hand-checked boards for every rule of docs/rules.md section 8 the cascade plays.

use crate::board::Position;
use crate::gravity::Fall;
use crate::moves::{Swap, SwapVerdict};
use crate::swap::board::SwapBoard;
use crate::swap::judge::judge_swap;
use crate::swap::pieces::{PieceKind, Special};
use crate::swap::resolve::{resolve_board, resolve_swap};
use crate::swap::stable::{StableBoard, is_stable};
use crate::swap::step::{CascadeOptions, CascadeOutcome, Hit, Refill};
use crate::swap::test_support::{NONE_WITH_SPECIALS as NONE, p, swap};

fn board(text: &str) -> SwapBoard {
    let board = SwapBoard::parse(text).unwrap();
    assert!(board.has_level_layers(), "{text}");
    board
}

fn as_given(text: &str) -> CascadeOutcome {
    resolve_board(board(text), NONE, &mut crate::rng_from_seed(1)).unwrap()
}

fn swapped(text: &str, a: (u32, u32), b: (u32, u32)) -> CascadeOutcome {
    let stable = StableBoard::try_from(board(text)).unwrap();
    resolve_swap(stable, swap(a, b), NONE, &mut crate::rng_from_seed(1)).unwrap()
}

fn hit(row: u32, col: u32, jelly_left: u8, blocker_left: u8, lock_removed: bool) -> Hit {
    Hit {
        position: p(row, col),
        jelly_left,
        blocker_left,
        lock_removed,
    }
}

fn fall(from: (u32, u32), to: (u32, u32)) -> Fall {
    Fall {
        from: p(from.0, from.1),
        to: p(to.0, to.1),
    }
}

#[test]
fn the_text_form_round_trips_every_layer() {
    let text = "R~'G\"@/X2'BR-~";
    let parsed = board(text);
    assert_eq!(parsed.to_string(), text);
    assert_eq!(parsed.jelly().unwrap(), &[1, 2, 0, 1, 0, 0]);
    assert_eq!(parsed.blockers().unwrap(), &[0, 0, 0, 2, 0, 0]);
    assert_eq!(
        parsed.locks().unwrap().collect::<Vec<_>>(),
        [true, false, false, false, false, true]
    );
    // Default exits: the bottom row.
    assert_eq!(
        parsed.exits().unwrap(),
        &[false, false, false, true, true, true]
    );
    assert_eq!(parsed.kind(2), PieceKind::Ingredient);
    let exits = board("R_GB/GBR");
    assert_eq!(exits.to_string(), "R_GB/GBR");
    assert_eq!(
        exits.exits().unwrap(),
        &[true, false, false, false, false, false]
    );
    // A lock needs a coloured tile; a blocker fills its cell.
    assert!(SwapBoard::parse(".~G/GBR").is_err());
    assert!(SwapBoard::parse("*~G/GBR").is_err());
    assert!(SwapBoard::parse("X6G/GBR").is_err());
    assert!(SwapBoard::parse("#'G/GBR").is_err());
}

#[test]
fn jelly_under_a_cleared_tile_loses_one_layer() {
    let outcome = as_given("R\"RR/GBG");
    let step = &outcome.steps[0];
    assert_eq!(step.hits, vec![hit(0, 0, 1, 0, false)]);
    assert_eq!(step.score, 30);
    assert_eq!(outcome.board.to_string(), ".'../GBG");
    assert_eq!(outcome.board.jelly_left(), 1);
    // Under NONE refill the emptied top row stays: not stable, not judged.
    assert!(!outcome.stable && !outcome.dead);
    assert_eq!(outcome.valid_swap_count, 0);
}

#[test]
fn a_group_hits_the_blockers_next_to_it() {
    let outcome = as_given("RRR/X2GB");
    let step = &outcome.steps[0];
    assert_eq!(step.hits, vec![hit(1, 0, 0, 1, false)]);
    assert_eq!(step.score, 30);
    assert_eq!(outcome.board.to_string(), ".../X1GB");
}

#[test]
fn a_striped_line_passes_through_a_blocker() {
    // The blocker at (0, 4) is not next to the group (0, 0..=2); the stripe reaches it.
    let outcome = as_given("G-GGBX1Y/RBRBRB");
    let step = &outcome.steps[0];
    assert_eq!(
        step.fired,
        vec![Special {
            position: p(0, 0),
            kind: PieceKind::StripedH,
            color: 2
        }]
    );
    assert_eq!(step.effect_cleared, vec![p(0, 3), p(0, 5)]);
    assert_eq!(step.hits, vec![hit(0, 4, 0, 0, false)]);
    assert_eq!(step.score, 50);
    assert_eq!(outcome.board.to_string(), "....../RBRBRB");
}

#[test]
fn a_wrapped_square_hits_a_blocker_that_is_destroyed_and_then_filled() {
    let outcome = as_given("RGB/RBG/R+GB/GX1G");
    let step = &outcome.steps[0];
    assert_eq!(step.effect_cleared, vec![p(1, 1), p(2, 1), p(3, 0)]);
    assert_eq!(step.hits, vec![hit(3, 1, 0, 0, false)]);
    assert_eq!(step.score, 60);
    // The destroyed blocker's cell is an empty slot: the G above falls into it.
    assert_eq!(step.falls, vec![fall((0, 1), (3, 1))]);
    assert_eq!(outcome.board.to_string(), "..B/..G/..B/.GG");
}

#[test]
fn a_colour_bomb_does_not_hit_blockers() {
    let outcome = swapped("*RGX1/GBRB", (0, 0), (0, 1));
    let step = &outcome.steps[0];
    assert_eq!(step.effect_cleared, vec![p(0, 0), p(0, 1), p(1, 2)]);
    assert!(step.hits.is_empty());
    assert_eq!(step.score, 30);
    assert_eq!(outcome.board.to_string(), "...X1/GBGB");
}

#[test]
fn a_destroyed_blocker_is_refilled_from_above() {
    let outcome = as_given("GBG/RRR/X1BG");
    let step = &outcome.steps[0];
    assert_eq!(step.hits, vec![hit(2, 0, 0, 0, false)]);
    assert_eq!(
        step.falls,
        vec![
            fall((0, 0), (2, 0)),
            fall((0, 1), (1, 1)),
            fall((0, 2), (1, 2))
        ]
    );
    assert_eq!(outcome.board.to_string(), ".../.BG/GBG");
    let random = CascadeOptions {
        refill: Refill::Random { colors: 5 },
        ..NONE
    };
    let outcome = resolve_board(board("GBG/RRR/X1BG"), random, &mut crate::rng_from_seed(3));
    let spawns: Vec<Position> = outcome.unwrap().steps[0]
        .spawns
        .iter()
        .map(|spawn| spawn.position)
        .collect();
    assert_eq!(spawns, vec![p(0, 0), p(0, 1), p(0, 2), p(1, 0)]);
}

#[test]
fn a_locked_tile_in_a_group_loses_its_lock_and_stays() {
    let outcome = as_given("R~RR/GBG");
    let step = &outcome.steps[0];
    assert_eq!(step.groups.len(), 1);
    assert_eq!(step.groups[0].cells, vec![p(0, 0), p(0, 1), p(0, 2)]);
    assert_eq!(step.hits, vec![hit(0, 0, 0, 0, true)]);
    assert_eq!(step.score, 20);
    assert_eq!(outcome.board.to_string(), "R../GBG");
}

#[test]
fn a_firing_unlocks_a_locked_tile_without_clearing_it() {
    let outcome = as_given("G-GGR~B/RBRBR");
    let step = &outcome.steps[0];
    assert_eq!(step.effect_cleared, vec![p(0, 4)]);
    assert_eq!(step.hits, vec![hit(0, 3, 0, 0, true)]);
    assert_eq!(step.score, 40);
    assert_eq!(outcome.board.to_string(), "...R./RBRBR");
}

#[test]
fn a_colour_bomb_unlocks_the_locked_tiles_of_its_colour() {
    let outcome = swapped("*RG/GBR~", (0, 0), (0, 1));
    let step = &outcome.steps[0];
    assert_eq!(step.effect_cleared, vec![p(0, 0), p(0, 1)]);
    assert_eq!(step.hits, vec![hit(1, 2, 0, 0, true)]);
    assert_eq!(step.score, 20);
    assert_eq!(outcome.board.to_string(), "..G/GBR");
}

#[test]
fn a_locked_special_does_not_fire() {
    let outcome = as_given("R-~RR/GBG");
    let step = &outcome.steps[0];
    assert!(step.fired.is_empty());
    assert_eq!(step.hits, vec![hit(0, 0, 0, 0, true)]);
    assert_eq!(outcome.board.to_string(), "R-../GBG");
}

#[test]
fn a_special_whose_anchor_is_locked_goes_to_the_first_cleared_cell() {
    let outcome = as_given("R~RRR/GBGB");
    let step = &outcome.steps[0];
    assert_eq!(
        step.created,
        vec![Special {
            position: p(0, 1),
            kind: PieceKind::StripedV,
            color: 1
        }]
    );
    assert_eq!(step.score, 30);
    assert_eq!(outcome.board.to_string(), "RR|../GBGB");
}

#[test]
fn swaps_touching_a_fixed_cell_are_blocked() {
    let stable = StableBoard::try_from(board("RGR~/G#G/BX1B")).unwrap();
    let verdict = |a, b| judge_swap(&stable, swap(a, b));
    assert_eq!(verdict((0, 2), (1, 2)), SwapVerdict::Blocked);
    assert_eq!(verdict((2, 0), (2, 1)), SwapVerdict::Blocked);
    // BLOCKED comes after HOLE and before NOT_ADJACENT.
    assert_eq!(verdict((1, 1), (2, 1)), SwapVerdict::Hole);
    assert_eq!(verdict((0, 2), (2, 2)), SwapVerdict::Blocked);
    assert_eq!(verdict((0, 0), (2, 0)), SwapVerdict::NotAdjacent);
}

#[test]
fn an_ingredient_swaps_only_by_the_plain_rule() {
    let stable = StableBoard::try_from(board("@RG/RGB/RBG")).unwrap();
    assert_eq!(judge_swap(&stable, swap((0, 0), (0, 1))), SwapVerdict::Ok);
    assert_eq!(
        judge_swap(&stable, swap((0, 0), (1, 0))),
        SwapVerdict::NoMatch
    );
    let bombs = StableBoard::try_from(board("*@G/RGB/GBR")).unwrap();
    assert_eq!(
        judge_swap(&bombs, swap((0, 0), (0, 1))),
        SwapVerdict::NoMatch
    );
    let outcome = swapped("@RG/RGB/RBG", (0, 0), (0, 1));
    // R lands on (0, 0) and makes the column run; the ingredient stays at (0, 1).
    assert_eq!(
        outcome.steps[0].groups[0].cells,
        vec![p(0, 0), p(1, 0), p(2, 0)]
    );
    assert_eq!(outcome.board.kind(1), PieceKind::Ingredient);
}

#[test]
fn an_ingredient_leaves_at_an_exit_and_the_column_settles_again() {
    let outcome = as_given("GBR/@GB/RBG/RGB/RBG");
    let step = &outcome.steps[0];
    assert_eq!(
        step.falls,
        vec![
            fall((0, 0), (3, 0)),
            fall((1, 0), (4, 0)),
            fall((3, 0), (4, 0))
        ]
    );
    assert_eq!(step.collected, vec![p(4, 0)]);
    assert_eq!(outcome.board.to_string(), ".BR/.GB/.BG/.GB/GBG");
    assert_eq!(outcome.board.ingredients_left(), 0);
}

#[test]
fn a_piece_slides_from_the_upper_left_under_a_blocker() {
    let outcome = as_given("RGB/GX5R/B.G");
    assert_eq!(
        outcome.steps[0].falls,
        vec![fall((1, 0), (2, 1)), fall((0, 0), (1, 0))]
    );
    assert_eq!(outcome.board.to_string(), ".GB/RX5R/BGG");
}

#[test]
fn a_piece_slides_from_the_upper_right_when_the_left_one_is_locked() {
    let outcome = as_given("RGB/G~X5R/B.G");
    assert_eq!(
        outcome.steps[0].falls,
        vec![fall((1, 2), (2, 1)), fall((0, 2), (1, 2))]
    );
    assert_eq!(outcome.board.to_string(), "RG./G~X5B/BRG");
}

#[test]
fn slides_take_several_rounds_one_slide_each() {
    let outcome = as_given("RGB/GX5R/B.Y/Y.G");
    assert_eq!(
        outcome.steps[0].falls,
        vec![
            fall((2, 0), (3, 1)),
            fall((0, 0), (1, 0)),
            fall((1, 0), (2, 0)),
            fall((1, 0), (2, 1)),
        ]
    );
    assert_eq!(outcome.board.to_string(), ".GB/.X5R/GRY/YBG");
}

#[test]
fn an_unreachable_slot_stays_empty_and_the_board_is_stable() {
    let unreachable = board("X1X5X1/G.R");
    assert!(is_stable(&unreachable));
    let random = CascadeOptions {
        refill: Refill::Random { colors: 4 },
        ..NONE
    };
    let outcome = resolve_board(unreachable.clone(), random, &mut crate::rng_from_seed(2)).unwrap();
    assert!(outcome.steps.is_empty() && outcome.stable);
    let none = resolve_board(unreachable.clone(), NONE, &mut crate::rng_from_seed(2)).unwrap();
    assert!(
        none.stable,
        "a slot no piece can reach does not make the board unstable"
    );
    assert_eq!(outcome.board, unreachable);
    let stable = StableBoard::try_from(unreachable).unwrap();
    assert_eq!(
        judge_swap(&stable, swap((1, 0), (1, 1))),
        SwapVerdict::EmptyCell
    );
}

#[test]
fn without_level_layers_the_obstacle_path_plays_as_section_6() {
    // A board with the default exits given explicitly takes the path of level layers.
    let options = CascadeOptions {
        refill: Refill::Random { colors: 5 },
        ..NONE
    };
    for seed in 0..30u64 {
        let size = crate::GenerationSize::for_swap(8, 8, 5).unwrap();
        let holes: Vec<bool> = (0..64)
            .map(|i| (i * 5 + seed as usize).is_multiple_of(13))
            .collect();
        let mut rng = crate::rng_from_seed(seed);
        let Ok((plain, _)) =
            crate::swap::arrange::generate_swap_board_with_holes(size, 1, holes.clone(), &mut rng)
        else {
            continue;
        };
        let swaps = crate::swap::judge::valid_swaps(&plain);
        let chosen: Swap = swaps[seed as usize % swaps.len()];
        let plain = plain.into_board();
        let exits = crate::swap::level_layers::default_exits(&holes, 8);
        let layered = SwapBoard::with_level_layers(
            plain.colors().clone(),
            holes,
            plain.kinds().unwrap().to_vec(),
            crate::swap::level_layers::LevelLayers {
                exits,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(layered.has_level_layers());
        let run = |board: SwapBoard| {
            let stable = StableBoard::try_from(board).unwrap();
            resolve_swap(stable, chosen, options, &mut crate::rng_from_seed(seed)).unwrap()
        };
        let (expected, actual) = (run(plain), run(layered));
        assert_eq!(actual.steps.len(), expected.steps.len(), "seed {seed}");
        for (a, e) in actual.steps.iter().zip(&expected.steps) {
            assert_eq!(
                (
                    &a.groups,
                    &a.fired,
                    &a.created,
                    &a.effect_cleared,
                    &a.spawns,
                    a.score
                ),
                (
                    &e.groups,
                    &e.fired,
                    &e.created,
                    &e.effect_cleared,
                    &e.spawns,
                    e.score
                )
            );
            let mut falls = a.falls.clone();
            falls.sort_unstable_by_key(|fall| fall.from);
            assert_eq!(falls, e.falls);
            assert_eq!(a.board.to_string(), e.board.to_string());
        }
        assert_eq!(actual.board.to_string(), expected.board.to_string());
        assert_eq!(actual.total_score, expected.total_score);
    }
}

#[test]
fn the_digest_of_a_board_with_level_layers_is_the_documented_one() {
    use sha2::{Digest, Sha256};
    let board = board("R'G/@X2");
    let layered = SwapBoard::parse("RG/..").unwrap();
    // The level-board digest of the same colours, holes and kinds (the ingredient is kind 6).
    let mut inner = Sha256::new();
    inner.update(2u32.to_le_bytes());
    inner.update(2u32.to_le_bytes());
    inner.update([1, 2, 0, 0]);
    inner.update([0, 0, 6, 0]);
    let inner: [u8; 32] = inner.finalize().into();
    assert_ne!(inner, layered.digest());
    let mut outer = Sha256::new();
    outer.update(inner);
    // Per cell: jelly, blocker hit points, lock, exit (the default exits: the bottom row).
    outer.update([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 1]);
    let expected: [u8; 32] = outer.finalize().into();
    assert_eq!(board.digest(), expected);
}

#[test]
fn bitboards_reused_from_a_board_of_another_size_give_the_same_cascades() {
    // Each thread keeps the bitboards of its finished cascades for the next ones: a cascade
    // after boards of other sizes (taller, wider, smaller, with locks where this one has none)
    // must play exactly as on a thread that has run nothing before.
    let boards = [
        "RGB/RBG/R+GB/GX1G",
        "G-GGR~B/RBRBR",
        "R\"RR/GBG",
        "GBG/RRR/X1BG",
        "R~RRR/GBGB",
        // Its lock at (0, 0) outlasts the cascade; the next board's group runs through (0, 0).
        "G~BGY/RRRB",
        "RRR/X2GB",
    ];
    let fresh: Vec<CascadeOutcome> = boards
        .iter()
        .map(|&text| std::thread::spawn(move || as_given(text)).join().unwrap())
        .collect();
    for round in 0..2 {
        for (text, expected) in boards.iter().zip(&fresh) {
            assert_eq!(&as_given(text), expected, "{text}, round {round}");
        }
        for (text, expected) in boards.iter().rev().zip(fresh.iter().rev()) {
            assert_eq!(
                &as_given(text),
                expected,
                "{text}, backwards, round {round}"
            );
        }
    }
    let expected = std::thread::spawn(|| swapped("*RGX1/GBRB", (0, 0), (0, 1)))
        .join()
        .unwrap();
    assert_eq!(swapped("*RGX1/GBRB", (0, 0), (0, 1)), expected);
}

#[test]
fn copies_of_stable_level_boards_play_as_freshly_checked_ones() {
    // A stable level board keeps its bitboards, and a copy takes their storage from this
    // thread's spares, left by boards of other sizes: the copy must list, count and play the
    // swaps exactly as a board checked on a thread that has run nothing before.
    let boards = ["RGBR/GRGB/X1BRY/YR~YG", "G'BG/RGR/BX2B", "RG@/GRB/BGR/RBG"];
    let random = CascadeOptions {
        refill: Refill::Random { colors: 5 },
        ..NONE
    };
    let play_all = move |stable: &StableBoard| {
        let swaps = crate::swap::judge::valid_swaps(stable);
        let count = crate::swap::judge::count_valid_swaps(stable);
        let outcomes: Vec<CascadeOutcome> = swaps
            .iter()
            .map(|&swap| resolve_swap(stable.clone(), swap, random, &mut crate::rng_from_seed(3)))
            .map(Result::unwrap)
            .collect();
        (swaps, count, outcomes)
    };
    for text in boards {
        let fresh =
            std::thread::spawn(move || play_all(&StableBoard::try_from(board(text)).unwrap()))
                .join()
                .unwrap();
        assert!(!fresh.0.is_empty(), "{text} has a valid swap");
        assert_eq!(fresh.1, fresh.0.len(), "{text}");
        // Spares of other sizes on this thread, then a copy of a copy.
        for other in boards {
            as_given(other);
        }
        let stable = StableBoard::try_from(board(text)).unwrap();
        let copy = stable.clone().clone();
        assert_eq!(play_all(&copy), fresh, "{text}");
        assert_eq!(play_all(&stable), fresh, "{text}");
    }
}
