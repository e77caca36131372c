//! The naive model of level play (`tests/reference/level_play.rs`, SPEC section 8) on boards
//! worked out by hand from the rules: hits on jelly, blockers and locks, special placement
//! around locks, BLOCKED verdicts, ingredient swaps and collection, gravity with fixed cells
//! (slides), stability, goals and the status order; and, on boards without the new layers,
//! agreement with the section-6 model (`tests/reference/level.rs`) step for step.
mod reference;

use reference::Cell;
use reference::level::{Level, Step, Verdict};
use reference::level_play::{
    self as play, Goal, Hit, PlayLevel, PlayStep, PlayVerdict, Status, goal_progress, status,
};

const R: u32 = 1;
const G: u32 = 2;
const B: u32 = 3;
const Y: u32 = 4;
const P: u32 = 5;
const O: u32 = 6;
const C: u32 = 7;

fn level(text: &str) -> PlayLevel {
    let l = PlayLevel::parse(text);
    assert_eq!(l.text(), text, "the text form reads back");
    l
}

fn none(text: &str, swap: Option<(Cell, Cell)>) -> (Vec<PlayStep>, PlayLevel) {
    let l = level(text);
    if let Some((a, b)) = swap {
        assert_eq!(l.verdict(a, b), PlayVerdict::Ok, "{text} {a:?}-{b:?}");
    }
    l.resolve(swap, None)
}

fn random(text: &str, swap: Option<(Cell, Cell)>, colours: &[u32]) -> (Vec<PlayStep>, PlayLevel) {
    let l = level(text);
    let mut it = colours.iter().copied();
    let (steps, end) = l.resolve(swap, Some(&mut it));
    assert_eq!(it.next(), None, "every colour drawn");
    (steps, end)
}

fn hit(cell: Cell, jelly_left: u32, blocker_left: u32, lock_removed: bool) -> Hit {
    Hit {
        cell,
        jelly_left,
        blocker_left,
        lock_removed,
    }
}

fn by_color(pairs: &[(u32, u32)]) -> Vec<u32> {
    let mut out = vec![0; 17];
    for &(c, n) in pairs {
        out[c as usize] = n;
    }
    out
}

#[test]
fn text_form_reads_back() {
    for text in [
        "R~'G\"@_/X2'BR",
        "RGB/R~GB/X3..",
        "R-G#/*BR+",
        "G|~P+'*\"./#X5@.",
    ] {
        assert_eq!(PlayLevel::parse(text).text(), text);
    }
    let l = PlayLevel::parse("R~'G\"@_/X2'BR");
    assert_eq!(l.cells, vec![R, G, 0, 0, B, R]);
    assert_eq!(l.kinds, vec![0, 0, play::INGREDIENT, 0, 0, 0]);
    assert_eq!(l.jelly, vec![1, 2, 0, 1, 0, 0]);
    assert_eq!(l.blockers, vec![0, 0, 0, 2, 0, 0]);
    assert_eq!(l.locks, vec![true, false, false, false, false, false]);
    assert_eq!(l.exits, vec![false, false, true, false, false, false]);
    // Default exits: the lowest non-hole cell of each column; digits and `0` read as colours
    // and empty cells.
    let l = PlayLevel::parse("120/3#4/#..");
    assert_eq!(l.text(), "RG./B#Y/#..");
    assert_eq!(
        l.exits,
        vec![false, false, false, true, false, false, false, true, true]
    );
}

#[test]
fn jelly_under_cleared_tiles_loses_one_layer() {
    let (steps, end) = none("GBG/BYB/R'R\"R", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.groups, vec![(R, vec![(2, 0), (2, 1), (2, 2)])]);
    // (2,2) has no layer: cleared, not reported as a hit.
    assert_eq!(
        s.hits,
        vec![hit((2, 0), 0, 0, false), hit((2, 1), 1, 0, false)]
    );
    assert_eq!(
        s.falls,
        vec![
            ((0, 0), (1, 0)),
            ((0, 1), (1, 1)),
            ((0, 2), (1, 2)),
            ((1, 0), (2, 0)),
            ((1, 1), (2, 1)),
            ((1, 2), (2, 2)),
        ]
    );
    assert_eq!(s.score, 30);
    assert_eq!(s.cleared_by_color, by_color(&[(R, 3)]));
    // Jelly stays in its cell; the tiles fall over it.
    assert_eq!(end.text(), ".../GBG/BY'B");
    assert_eq!(end.jelly_left(), 1);

    // The second layer goes with a second clear; jelly under an empty cell is not hit.
    let (steps, end) = none("G.'G/R\"RR/YBY", None);
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].hits, vec![hit((1, 0), 1, 0, false)]);
    assert_eq!(end.text(), "..'./G'.G/YBY");
}

#[test]
fn an_ingredient_and_the_jelly_under_it_are_never_hit() {
    // The striped line crosses the ingredient: it stays, and so does its jelly.
    let (steps, end) = none("GBGY/RRR-@'/BGBY", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.fired, vec![((1, 2), play::STRIPED_H)]);
    assert!(s.effect_cleared.is_empty());
    assert!(s.hits.is_empty());
    assert_eq!(s.score, 30);
    assert_eq!(end.text(), "...Y/GBG@'/BGBY");
}

#[test]
fn bomb_and_bomb_hits_every_blocker() {
    let (steps, end) = none("**X1/GBR'", Some(((0, 0), (0, 1))));
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert!(s.groups.is_empty());
    assert_eq!(
        s.effect_cleared,
        vec![(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]
    );
    assert_eq!(
        s.hits,
        vec![hit((0, 2), 0, 0, false), hit((1, 2), 0, 0, false)]
    );
    assert_eq!(s.score, 50);
    assert_eq!(s.cleared_by_color, by_color(&[(R, 1), (G, 1), (B, 1)]));
    assert_eq!(end.text(), ".../...");
}

#[test]
fn striped_and_striped_hits_a_lock_and_a_blocker_in_its_lines() {
    let l = level("GB~Y/R-G|X2/YBR'");
    assert_eq!(l.verdict((1, 0), (1, 1)), PlayVerdict::Ok);
    assert_eq!(l.verdict((1, 1), (1, 2)), PlayVerdict::Blocked);
    let (steps, end) = l.resolve(Some(((1, 0), (1, 1))), None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    // Row 1 and column 1 through b = (1,1): the consumed pair, the B at (2,1); the lock at
    // (0,1) is removed, the blocker at (1,2) loses a hit point; nothing fires.
    assert!(s.fired.is_empty());
    assert_eq!(s.effect_cleared, vec![(1, 0), (1, 1), (2, 1)]);
    assert_eq!(
        s.hits,
        vec![hit((0, 1), 0, 0, true), hit((1, 2), 0, 1, false)]
    );
    assert_eq!(s.score, 30);
    assert_eq!(s.cleared_by_color, by_color(&[(R, 1), (G, 1), (B, 1)]));
    assert_eq!(s.falls, vec![((0, 0), (1, 0)), ((0, 1), (2, 1))]);
    assert_eq!(end.text(), "..Y/G.X1/YBR'");
}

#[test]
fn blocker_hit_by_adjacency() {
    let (steps, end) = none("BGB/RRR/GX2G", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.hits, vec![hit((2, 1), 0, 1, false)]);
    // Column 1's top segment is (0,1)-(1,1), above the blocker.
    assert_eq!(
        s.falls,
        vec![((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2))]
    );
    assert_eq!(s.score, 30);
    assert_eq!(end.text(), ".../BGB/GX1G");
    assert_eq!(end.blockers_left(), 1);
}

#[test]
fn blocker_destroyed_becomes_a_slot_that_fills() {
    let (steps, end) = none("BYB/RRR/GX1G", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.hits, vec![hit((2, 1), 0, 0, false)]);
    // No fixed cell is left: column 1 falls straight to the old blocker's cell.
    assert_eq!(
        s.falls,
        vec![((0, 0), (1, 0)), ((0, 1), (2, 1)), ((0, 2), (1, 2))]
    );
    assert_eq!(end.text(), ".../B.B/GYG");
    assert_eq!(end.blockers_left(), 0);

    let (steps, end) = random("BYB/RRR/GX1G", None, &[P, O, P, O]);
    assert_eq!(
        steps[0].spawns,
        vec![((0, 0), P), ((0, 1), O), ((0, 2), P), ((1, 1), O)]
    );
    assert_eq!(end.text(), "POP/BOB/GYG");
}

#[test]
fn blocker_hit_by_a_striped_line() {
    let (steps, end) = none("GBG/RRR|/BYG/GBX2", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.groups, vec![(R, vec![(1, 0), (1, 1), (1, 2)])]);
    assert_eq!(s.fired, vec![((1, 2), play::STRIPED_V)]);
    assert_eq!(s.effect_cleared, vec![(0, 2), (2, 2)]);
    // (3,2) touches no group cell: the line hits it.
    assert_eq!(s.hits, vec![hit((3, 2), 0, 1, false)]);
    assert!(s.created.is_empty());
    assert_eq!(s.score, 50);
    assert_eq!(s.falls, vec![((0, 0), (1, 0)), ((0, 1), (1, 1))]);
    assert_eq!(end.text(), ".../GB./BY./GBX1");
}

#[test]
fn blocker_hit_by_a_wrapped_square() {
    let (steps, end) = none("RGB/RBG/R+GB/YX1Y", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.groups, vec![(R, vec![(0, 0), (1, 0), (2, 0)])]);
    assert_eq!(s.fired, vec![((2, 0), play::WRAPPED)]);
    assert_eq!(s.effect_cleared, vec![(1, 1), (2, 1), (3, 0)]);
    assert_eq!(s.hits, vec![hit((3, 1), 0, 0, false)]);
    assert_eq!(s.score, 60);
    assert_eq!(
        s.cleared_by_color,
        by_color(&[(R, 3), (G, 1), (B, 1), (Y, 1)])
    );
    assert_eq!(s.falls, vec![((0, 1), (3, 1))]);
    assert_eq!(end.text(), "..B/..G/..B/.GY");
}

#[test]
fn colour_bomb_does_not_hit_blockers() {
    // Bomb + NORMAL G: every G goes; the blocker beside them is untouched (a combination has
    // no groups, and a colour bomb reaches tiles only).
    let l = level("*GB/BX2G'");
    assert_eq!(l.verdict((0, 0), (0, 1)), PlayVerdict::Ok);
    let (steps, end) = l.resolve(Some(((0, 0), (0, 1))), None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert!(s.groups.is_empty());
    assert_eq!(s.effect_cleared, vec![(0, 0), (0, 1), (1, 2)]);
    assert_eq!(s.hits, vec![hit((1, 2), 0, 0, false)]);
    assert_eq!(s.score, 30);
    assert_eq!(s.cleared_by_color, by_color(&[(G, 2)]));
    assert_eq!(s.falls, vec![((0, 2), (1, 2))]);
    assert_eq!(end.text(), ".../BX2B");

    // A firing bomb (cleared by a striped line) picks the most common colour, locked tiles
    // counted (G: 4 of them, one locked, against 3 R); it clears the unlocked ones and unlocks
    // the locked one, and the blocker next to them is not hit.
    let (steps, end) = none("R|RR/*BG/GX1G~/YGY", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.groups, vec![(R, vec![(0, 0), (0, 1), (0, 2)])]);
    assert_eq!(
        s.fired,
        vec![((0, 0), play::STRIPED_V), ((1, 0), play::COLOR_BOMB)]
    );
    assert_eq!(
        s.effect_cleared,
        vec![(1, 0), (1, 2), (2, 0), (3, 0), (3, 1)]
    );
    assert_eq!(s.hits, vec![hit((2, 2), 0, 0, true)]);
    assert_eq!(s.score, 80);
    assert_eq!(s.cleared_by_color, by_color(&[(R, 3), (G, 3), (Y, 1)]));
    // The unlocked G at (2,2) slides into (3,1), below the blocker.
    assert_eq!(s.falls, vec![((2, 2), (3, 1))]);
    assert_eq!(end.text(), ".../.B./.X1./.GY");
}

#[test]
fn blocker_hit_once_and_by_group_neighbours_only() {
    // Two groups touch the same blocker and a striped line crosses it: one hit point.
    let (steps, end) = none("RGB/R-X3B/RGB", None);
    let s = &steps[0];
    assert_eq!(
        s.groups,
        vec![
            (R, vec![(0, 0), (1, 0), (2, 0)]),
            (B, vec![(0, 2), (1, 2), (2, 2)])
        ]
    );
    assert_eq!(s.fired, vec![((1, 0), play::STRIPED_H)]);
    assert_eq!(s.hits, vec![hit((1, 1), 0, 2, false)]);
    assert_eq!(s.score, 60);
    assert_eq!(end.text(), ".G./.X2./.G.");
}

#[test]
fn lock_removed_by_a_group() {
    let (steps, end) = none("GBG/RR~R/BGB", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    // The group holds the locked tile; it is not cleared, not counted.
    assert_eq!(s.groups, vec![(R, vec![(1, 0), (1, 1), (1, 2)])]);
    assert_eq!(s.hits, vec![hit((1, 1), 0, 0, true)]);
    assert_eq!(s.score, 20);
    assert_eq!(s.cleared_by_color, by_color(&[(R, 2)]));
    assert_eq!(s.falls, vec![((0, 0), (1, 0)), ((0, 2), (1, 2))]);
    assert_eq!(end.text(), ".B./GRG/BGB");
}

#[test]
fn lock_removed_by_a_firing() {
    let (steps, end) = none("GBGB/Y~RRR-/BGYG", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.fired, vec![((1, 3), play::STRIPED_H)]);
    assert!(s.effect_cleared.is_empty());
    assert_eq!(s.hits, vec![hit((1, 0), 0, 0, true)]);
    assert_eq!(s.score, 30);
    assert_eq!(
        s.falls,
        vec![((0, 1), (1, 1)), ((0, 2), (1, 2)), ((0, 3), (1, 3))]
    );
    assert_eq!(end.text(), "G.../YBGB/BGYG");
}

#[test]
fn lock_removed_by_a_colour_bomb() {
    let (steps, end) = none("*GB/BG~'Y", Some(((0, 0), (0, 1))));
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.effect_cleared, vec![(0, 0), (0, 1)]);
    // The locked G loses its lock and, as a hit cell, its jelly.
    assert_eq!(s.hits, vec![hit((1, 1), 0, 0, true)]);
    assert_eq!(s.score, 20);
    assert_eq!(s.cleared_by_color, by_color(&[(G, 1)]));
    assert!(s.falls.is_empty());
    assert_eq!(end.text(), "..B/BGY");
}

#[test]
fn a_locked_special_does_not_fire() {
    let (steps, end) = none("GBG/RR|~R/BYB", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert!(s.fired.is_empty());
    assert!(s.effect_cleared.is_empty());
    assert_eq!(s.hits, vec![hit((1, 1), 0, 0, true)]);
    assert_eq!(s.score, 20);
    assert_eq!(end.text(), ".B./GR|G/BYB");

    // Reached by another tile's firing, a locked special is unlocked and does not fire either.
    let (steps, end) = none("GBGY/RRR-B|~/BGBY", None);
    let s = &steps[0];
    assert_eq!(s.fired, vec![((1, 2), play::STRIPED_H)]);
    assert_eq!(s.hits, vec![hit((1, 3), 0, 0, true)]);
    assert_eq!(s.effect_cleared, vec![]);
    assert_eq!(s.score, 30);
    assert_eq!(end.text(), "...Y/GBGB|/BGBY");
}

#[test]
fn special_goes_to_the_first_cleared_cell_when_the_anchor_is_locked() {
    let (steps, end) = none("GBGB/R~RRR/BGBG", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.groups, vec![(R, vec![(1, 0), (1, 1), (1, 2), (1, 3)])]);
    assert_eq!(s.created, vec![((1, 1), play::STRIPED_V, R)]);
    assert_eq!(s.hits, vec![hit((1, 0), 0, 0, true)]);
    assert_eq!(s.score, 30);
    assert_eq!(s.falls, vec![((0, 2), (1, 2)), ((0, 3), (1, 3))]);
    assert_eq!(end.text(), "GB../RR|GB/BGBG");

    // A group whose cells are all locked creates nothing and clears nothing; its unlocked
    // run is found again in step 2, which clears it and creates the striped tile.
    let (steps, end) = none("GBGB/R~R~R~R~/BGBG", None);
    assert_eq!(steps.len(), 2);
    let s = &steps[0];
    assert!(s.created.is_empty());
    assert_eq!(s.score, 0);
    assert_eq!(
        s.hits,
        (0..4).map(|c| hit((1, c), 0, 0, true)).collect::<Vec<_>>()
    );
    assert!(s.falls.is_empty());
    let s = &steps[1];
    assert_eq!(s.created, vec![((1, 0), play::STRIPED_V, R)]);
    assert_eq!(s.score, 80);
    assert_eq!(end.text(), "G.../R|BGB/BGBG");
}

#[test]
fn blocked_verdicts_and_their_order() {
    let l = level("RG#/X1R~G/BB.");
    assert_eq!(l.verdict((0, 0), (3, 0)), PlayVerdict::OutOfBounds);
    assert_eq!(l.verdict((0, 2), (1, 2)), PlayVerdict::Hole);
    // HOLE before BLOCKED.
    assert_eq!(l.verdict((0, 2), (1, 1)), PlayVerdict::Hole);
    assert_eq!(l.verdict((1, 0), (0, 0)), PlayVerdict::Blocked);
    assert_eq!(l.verdict((1, 1), (1, 2)), PlayVerdict::Blocked);
    assert_eq!(l.verdict((0, 1), (1, 1)), PlayVerdict::Blocked);
    // BLOCKED before NOT_ADJACENT.
    assert_eq!(l.verdict((1, 1), (2, 2)), PlayVerdict::Blocked);
    assert_eq!(l.verdict((1, 0), (1, 2)), PlayVerdict::Blocked);
    assert_eq!(l.verdict((0, 0), (2, 1)), PlayVerdict::NotAdjacent);
    assert_eq!(l.verdict((1, 2), (2, 2)), PlayVerdict::EmptyCell);
    assert_eq!(l.verdict((0, 0), (0, 1)), PlayVerdict::NoMatch);
    assert_eq!(l.verdict((2, 1), (2, 2)), PlayVerdict::EmptyCell);
    assert!(l.valid_swaps().is_empty());

    // Swapping a locked tile is BLOCKED even where it would match.
    let l = level("RGR/GR~G/BBY");
    assert_eq!(l.verdict((0, 1), (1, 1)), PlayVerdict::Blocked);
    assert!(l.valid_swaps().is_empty());
    // A locked tile still matches where it stands: an R landing at (0,1) makes R R~ R.
    let l = level("RGR/YR~Y/BRB");
    assert_eq!(l.verdict((0, 0), (0, 1)), PlayVerdict::Ok);
    assert_eq!(l.verdict((0, 1), (0, 2)), PlayVerdict::Ok);
    assert_eq!(l.valid_swaps(), vec![((0, 0), (0, 1)), ((0, 1), (0, 2))]);
}

#[test]
fn ingredient_swaps_follow_the_plain_rule() {
    let l = level("R@R/GRB/BGY");
    // The R that lands at (0,1) makes R R R.
    assert_eq!(l.verdict((0, 1), (1, 1)), PlayVerdict::Ok);
    assert_eq!(l.verdict((0, 0), (0, 1)), PlayVerdict::NoMatch);
    assert_eq!(l.valid_swaps(), vec![((0, 1), (1, 1))]);
    let (steps, end) = l.resolve(Some(((0, 1), (1, 1))), None);
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].groups, vec![(R, vec![(0, 0), (0, 1), (0, 2)])]);
    assert!(steps[0].collected.is_empty());
    assert_eq!(end.text(), ".../G@B/BGY");

    // Bomb + ingredient is NO_MATCH; a striped tile and an ingredient make no combination.
    let l = level("*@/GR");
    assert_eq!(l.verdict((0, 0), (0, 1)), PlayVerdict::NoMatch);
    let l = level("R-@B/GBY");
    assert_eq!(l.verdict((0, 0), (0, 1)), PlayVerdict::NoMatch);
    // A bomb next to a tile is still a combination.
    assert_eq!(level("*G/@R").verdict((0, 0), (0, 1)), PlayVerdict::Ok);
    // An ingredient is a piece: a swap with it is never EMPTY_CELL.
    assert_eq!(
        level("@./GR").verdict((0, 0), (0, 1)),
        PlayVerdict::EmptyCell
    );
    assert_eq!(level("@G/GR").verdict((0, 0), (0, 1)), PlayVerdict::NoMatch);
}

#[test]
fn ingredient_collected_at_an_exit_then_resettled() {
    let (steps, end) = none("GYB/B@G/RRR", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert_eq!(s.collected, vec![(2, 1)]);
    assert_eq!(
        s.falls,
        vec![
            ((0, 0), (1, 0)),
            ((0, 1), (1, 1)),
            ((0, 2), (1, 2)),
            ((1, 0), (2, 0)),
            ((1, 1), (2, 1)),
            ((1, 2), (2, 2)),
            // After the collection, the Y falls onto the exit.
            ((1, 1), (2, 1)),
        ]
    );
    assert_eq!(s.score, 30);
    assert_eq!(end.text(), ".../G.B/BYG");

    let (steps, end) = random("GYB/B@G/RRR", None, &[P, O, P, C]);
    let s = &steps[0];
    assert_eq!(s.collected, vec![(2, 1)]);
    assert_eq!(&s.falls[6..], &[((0, 1), (1, 1)), ((1, 1), (2, 1))]);
    assert_eq!(
        s.spawns,
        vec![((0, 0), P), ((0, 1), O), ((0, 2), P), ((0, 1), C)]
    );
    assert_eq!(end.text(), "PCP/GOB/BYG");
    assert!(end.is_stable(true));
    assert_eq!(
        goal_progress(&Goal::BringDown(1), &end, 30, &[0; 17], 1),
        (1, true)
    );

    // A board handed over with an ingredient on an exit: a settling step collects it.
    let (steps, end) = none("GB/@Y", None);
    assert_eq!(steps.len(), 1);
    assert!(steps[0].groups.is_empty());
    assert_eq!(steps[0].collected, vec![(1, 0)]);
    assert_eq!(steps[0].falls, vec![((0, 0), (1, 0))]);
    assert_eq!(steps[0].score, 0);
    assert_eq!(end.text(), ".B/GY");
    assert!(!level("GB/@Y").is_stable(false));

    // Custom exits: the exit is (0,1); an ingredient elsewhere stays.
    let l = level("@R_/GB");
    assert!(l.is_stable(false));
    let l = level("R@_/GB");
    let (steps, end) = l.resolve(None, None);
    assert_eq!(steps[0].collected, vec![(0, 1)]);
    assert_eq!(end.text(), "R._/GB");
}

#[test]
fn several_ingredients_collected_in_one_pass() {
    let (steps, end) = none("@Y@/.B./.R.", None);
    assert_eq!(steps.len(), 1);
    let s = &steps[0];
    assert!(s.groups.is_empty());
    assert_eq!(s.falls, vec![((0, 0), (2, 0)), ((0, 2), (2, 2))]);
    assert_eq!(s.collected, vec![(2, 0), (2, 2)]);
    assert_eq!(end.text(), ".Y./.B./.R.");

    let (steps, end) = random("@Y@/.B./.R.", None, &[P, O, C, P, O, C]);
    let s = &steps[0];
    assert_eq!(
        s.falls,
        vec![
            ((0, 0), (2, 0)),
            ((0, 2), (2, 2)),
            ((0, 0), (1, 0)),
            ((0, 2), (1, 2)),
            ((1, 0), (2, 0)),
            ((1, 2), (2, 2)),
        ]
    );
    assert_eq!(
        s.spawns,
        vec![
            ((0, 0), P),
            ((0, 2), O),
            ((1, 0), C),
            ((1, 2), P),
            ((0, 0), O),
            ((0, 2), C),
        ]
    );
    assert_eq!(s.collected, vec![(2, 0), (2, 2)]);
    assert_eq!(end.text(), "OYC/PBO/CRP");
}

#[test]
fn slides_from_the_upper_left_first() {
    let (steps, end) = none("GX2B/Y.R/BRG", None);
    assert_eq!(steps.len(), 1);
    // (1,1) lies below the blocker; its upper-left (0,0) G wins over its upper-right B.
    assert_eq!(steps[0].falls, vec![((0, 0), (1, 1))]);
    assert!(steps[0].groups.is_empty());
    assert_eq!(end.text(), ".X2B/YGR/BRG");
    assert!(end.is_stable(false));
    assert!(!end.is_stable(true));

    // RANDOM: column 1 has no top segment; column 0's refills after the slide.
    let (steps, end) = random("GX2B/Y.R/BRG", None, &[P]);
    assert_eq!(steps[0].falls, vec![((0, 0), (1, 1))]);
    assert_eq!(steps[0].spawns, vec![((0, 0), P)]);
    assert_eq!(end.text(), "PX2B/YGR/BRG");
    assert!(end.is_stable(true));
}

#[test]
fn slides_from_the_upper_right_when_the_left_cannot() {
    let (steps, end) = none("X1X1G/B.R/RYB", None);
    assert_eq!(steps[0].falls, vec![((0, 2), (1, 1))]);
    assert_eq!(end.text(), "X1X1./BGR/RYB");
    // Column 0: no upper-left neighbour at all.
    let (steps, end) = none("X1G/.B/RY", None);
    assert_eq!(steps[0].falls, vec![((0, 1), (1, 0))]);
    assert_eq!(end.text(), "X1./GB/RY");
}

#[test]
fn slides_over_several_rounds() {
    let (steps, end) = none("X1G/.B/.Y/.R", None);
    assert_eq!(steps.len(), 1);
    assert_eq!(
        steps[0].falls,
        vec![
            // Round 1: nothing falls; Y slides into (3,0).
            ((2, 1), (3, 0)),
            // Round 2: column 1 falls, then the G slides into (2,0).
            ((0, 1), (1, 1)),
            ((1, 1), (2, 1)),
            ((1, 1), (2, 0)),
        ]
    );
    assert_eq!(end.text(), "X1./../GB/YR");
    // (1,0) is below the blocker with nothing diagonally above it: it stays empty and the
    // board is stable under NONE.
    assert!(end.is_stable(false));
    assert!(!end.is_stable(true));
    assert!(end.resolve(None, None).0.is_empty());

    // With RANDOM refill the slides are fed from column 1's refills.
    let (steps, end) = random("X1G/.B/.Y/.R", None, &[P, O, C]);
    // Round 1: Y slides; round 2: G and B fall, P spawns at (0,1), G slides into (2,0);
    // round 3: P falls, O spawns, O slides into (1,0); round 4: C spawns.
    assert_eq!(
        steps[0].falls,
        vec![
            ((2, 1), (3, 0)),
            ((0, 1), (1, 1)),
            ((1, 1), (2, 1)),
            ((1, 1), (2, 0)),
            ((0, 1), (1, 1)),
            ((0, 1), (1, 0)),
        ]
    );
    assert_eq!(steps[0].spawns, vec![((0, 1), P), ((0, 1), O), ((0, 1), C)]);
    assert!(steps[0].groups.is_empty());
    assert_eq!(end.text(), "X1C/OP/GB/YR");
    assert!(end.is_stable(true));
}

#[test]
fn an_unreachable_slot_stays_empty_and_the_board_is_stable() {
    let l = level("RGB/X1X1X1/...");
    assert!(l.is_stable(true));
    assert!(l.is_stable(false));
    let mut colours = std::iter::repeat(R);
    assert!(l.resolve(None, Some(&mut colours)).0.is_empty());
    assert!(l.valid_swaps().is_empty());
    assert_eq!(
        status(false, 5, !l.valid_swaps().is_empty()),
        Status::LostDead
    );
    // A slot below a lock with a movable tile at its upper-right is not stable.
    assert!(!level("R~G/.B").is_stable(false));
    // ... nor a run, even a locked one.
    assert!(!level("R~R~R~/GBG").is_stable(true));
}

#[test]
fn goals_met_and_unmet() {
    let l = level("R'X1G/GB\"X2");
    assert_eq!(
        goal_progress(&Goal::ClearJelly, &l, 0, &[0; 17], 0),
        (3, false)
    );
    assert_eq!(
        goal_progress(&Goal::ClearBlockers, &l, 0, &[0; 17], 0),
        (2, false)
    );
    assert_eq!(
        goal_progress(&Goal::Score(100), &l, 120, &[0; 17], 0),
        (120, true)
    );
    assert_eq!(
        goal_progress(&Goal::Score(100), &l, 90, &[0; 17], 0),
        (90, false)
    );
    let cleared = by_color(&[(R, 3), (G, 7)]);
    let collect = |color, count| Goal::Collect { color, count };
    assert_eq!(
        goal_progress(&collect(R, 5), &l, 0, &cleared, 0),
        (3, false)
    );
    assert_eq!(goal_progress(&collect(G, 7), &l, 0, &cleared, 0), (7, true));
    assert_eq!(
        goal_progress(&Goal::BringDown(2), &l, 0, &cleared, 1),
        (1, false)
    );
    assert_eq!(
        goal_progress(&Goal::BringDown(2), &l, 0, &cleared, 3),
        (3, true)
    );
    let clean = level("RGB/GBR");
    assert_eq!(
        goal_progress(&Goal::ClearJelly, &clean, 0, &[0; 17], 0),
        (0, true)
    );
    assert_eq!(
        goal_progress(&Goal::ClearBlockers, &clean, 0, &[0; 17], 0),
        (0, true)
    );
}

#[test]
fn status_order() {
    assert_eq!(status(true, 0, false), Status::Won);
    assert_eq!(status(true, 3, true), Status::Won);
    assert_eq!(status(false, 0, true), Status::LostOutOfMoves);
    assert_eq!(status(false, 0, false), Status::LostOutOfMoves);
    assert_eq!(status(false, 3, false), Status::LostDead);
    assert_eq!(status(false, 3, true), Status::Playing);
}

// ----- agreement with the section-6 model on boards without the new layers -----

fn as_level(l: &PlayLevel) -> Level {
    Level {
        w: l.w,
        h: l.h,
        cells: l.cells.clone(),
        holes: l.holes.clone(),
        kinds: l.kinds.clone(),
    }
}

fn as_step(s: &PlayStep) -> Step {
    assert!(s.hits.is_empty() && s.collected.is_empty());
    Step {
        groups: s.groups.clone(),
        fired: s.fired.clone(),
        created: s.created.clone(),
        effect_cleared: s.effect_cleared.clone(),
        falls: s.falls.clone(),
        spawns: s.spawns.clone(),
        score: s.score,
    }
}

fn verdict_of(v: Verdict) -> PlayVerdict {
    match v {
        Verdict::Ok => PlayVerdict::Ok,
        Verdict::OutOfBounds => PlayVerdict::OutOfBounds,
        Verdict::Hole => PlayVerdict::Hole,
        Verdict::NotAdjacent => PlayVerdict::NotAdjacent,
        Verdict::EmptyCell => PlayVerdict::EmptyCell,
        Verdict::NoMatch => PlayVerdict::NoMatch,
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn agree(play: &PlayLevel, swap: Option<(Cell, Cell)>, spawns: Option<&[u32]>) {
    let old = as_level(play);
    let (old_steps, old_end, new_steps, new_end) = match spawns {
        None => {
            let (a, b) = old.resolve(swap, None);
            let (c, d) = play.resolve(swap, None);
            (a, b, c, d)
        }
        Some(colours) => {
            let mut x = colours.iter().copied().cycle();
            let mut y = colours.iter().copied().cycle();
            let (a, b) = old.resolve(swap, Some(&mut x));
            let (c, d) = play.resolve(swap, Some(&mut y));
            (a, b, c, d)
        }
    };
    let converted: Vec<Step> = new_steps.iter().map(as_step).collect();
    assert_eq!(converted, old_steps, "{} {swap:?}", play.text());
    assert_eq!(as_level(&new_end), old_end, "{} {swap:?}", play.text());
    // Cleared tiles by colour add up to the cells cleared (bombs have no colour).
    for s in &new_steps {
        let cleared: u32 = s.cleared_by_color.iter().sum();
        assert!(u64::from(cleared) * 10 <= s.score);
    }
}

#[test]
fn agrees_with_the_section_6_model_on_worked_examples() {
    let cases: &[(&str, Option<(Cell, Cell)>)] = &[
        ("RRG/GGR", Some(((0, 2), (1, 2)))),
        ("GRYY/YRRG/BGYY/BGGY", Some(((0, 3), (1, 3)))),
        ("13552/34331/32452/24455/14411", None),
        ("RRYR/GBRB", Some(((0, 2), (1, 2)))),
        ("RGB/RBG/RRR", None),
        ("RR+RG/B*GB/GBBY", None),
        ("GYB/B#G/RR|R/GBY", None),
        ("RGBY/GR-G-B/BYRG/YBYR", Some(((1, 1), (1, 2)))),
        ("R.B/GR#/.GR", None),
    ];
    for &(text, swap) in cases {
        let l = PlayLevel::parse(text);
        agree(&l, swap, None);
        agree(&l, swap, Some(&[1, 2, 3, 4, 5, 3, 1, 4, 2, 5, 5, 1]));
    }
    // Pinned values from the rules' tables.
    let (steps, end) = none("GRYY/YRRG/BGYY/BGGY", Some(((0, 3), (1, 3))));
    assert_eq!(steps.len(), 2);
    assert_eq!(end.text(), "G.../YRY./BRR./BGY.");
    let (steps, end) = PlayLevel::parse("13552/34331/32452/24455/14411").resolve(None, None);
    assert_eq!(steps.len(), 2);
    assert_eq!(
        end.text(),
        PlayLevel::parse("13.../34.52/32.31/24.52/14311").text()
    );
    let (steps, _) = none("RR+RG/B*GB/GBBY", None);
    assert_eq!(steps[0].score, 90);
}

#[test]
fn agrees_with_the_section_6_model_on_random_boards() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for _ in 0..400 {
        let w = 2 + rng.below(5) as usize;
        let h = 2 + rng.below(5) as usize;
        let colors = 3 + rng.below(3) as u32;
        let mut text = String::new();
        for r in 0..h {
            if r > 0 {
                text.push('/');
            }
            for _ in 0..w {
                match rng.below(20) {
                    0 => text.push('#'),
                    1 => text.push('.'),
                    2 => text.push('*'),
                    n => {
                        let c = 1 + rng.below(u64::from(colors)) as usize;
                        text.push(char::from(reference::LETTERS[c - 1]));
                        match n {
                            3 => text.push('-'),
                            4 => text.push('|'),
                            5 => text.push('+'),
                            _ => {}
                        }
                    }
                }
            }
        }
        let l = PlayLevel::parse(&text);
        let old = as_level(&l);
        let spawns: Vec<u32> = (0..64)
            .map(|_| 1 + rng.below(u64::from(colors)) as u32)
            .collect();
        agree(&l, None, None);
        agree(&l, None, Some(&spawns));
        // Every pair of on-board cells and a few off it: the same verdicts.
        for i in 0..w * h + 1 {
            for j in 0..w * h + 1 {
                let a = ((i / w) as u32, (i % w) as u32);
                let b = ((j / w) as u32, (j % w) as u32);
                assert_eq!(
                    l.verdict(a, b),
                    verdict_of(old.verdict(a, b).0),
                    "{text} {a:?} {b:?}"
                );
            }
        }
        let old_swaps: Vec<(Cell, Cell)> = old.valid_swaps().into_iter().map(|(s, _)| s).collect();
        assert_eq!(l.valid_swaps(), old_swaps, "{text}");
        // Without fixed cells every empty slot is in a top segment: stable under RANDOM is
        // section 6's "no run and no empty slot".
        assert_eq!(l.is_stable(true), old.is_stable(), "{text}");
        for &(a, b) in &old_swaps {
            agree(&l, Some((a, b)), None);
            agree(&l, Some((a, b)), Some(&spawns));
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} swaps compared");
}

/// A random board with every layer, in the text notation.
fn random_layered(rng: &mut Rng, colors: u64) -> String {
    let w = 2 + rng.below(5) as usize;
    let h = 2 + rng.below(5) as usize;
    let mut text = String::new();
    for r in 0..h {
        if r > 0 {
            text.push('/');
        }
        for _ in 0..w {
            let roll = rng.below(40);
            match roll {
                0 | 1 => {
                    text.push('#');
                    continue;
                }
                2 | 3 => text.push('.'),
                4 => text.push('*'),
                5 | 6 => text.push('@'),
                7..=9 => {
                    text.push('X');
                    text.push(char::from(b'1' + rng.below(3) as u8));
                }
                _ => {
                    let c = 1 + rng.below(colors) as usize;
                    text.push(char::from(reference::LETTERS[c - 1]));
                    match rng.below(12) {
                        0 => text.push('-'),
                        1 => text.push('|'),
                        2 => text.push('+'),
                        _ => {}
                    }
                    if rng.below(6) == 0 {
                        text.push('~');
                    }
                }
            }
            match rng.below(4) {
                0 => text.push('\''),
                1 => text.push('"'),
                _ => {}
            }
        }
    }
    text
}

#[test]
fn layered_random_boards_settle_and_layers_only_wear_down() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..400 {
        let colors = 3 + rng.below(3);
        let text = random_layered(&mut rng, colors);
        let l = PlayLevel::parse(&text);
        assert_eq!(l.text(), text);
        let mut draws = Rng(rng.next() | 1);
        let mut spawns = std::iter::from_fn(|| Some(1 + draws.below(colors) as u32));
        for (steps, end, random) in [
            {
                let (s, e) = l.resolve(None, None);
                (s, e, false)
            },
            {
                let (s, e) = l.resolve(None, Some(&mut spawns));
                (s, e, true)
            },
        ] {
            assert!(end.is_stable(random), "{text} -> {}", end.text());
            for i in 0..l.cells.len() {
                assert!(end.jelly[i] <= l.jelly[i], "{text}");
                assert!(end.blockers[i] <= l.blockers[i], "{text}");
                assert!(!end.locks[i] || l.locks[i], "{text}");
                assert_eq!(end.holes[i], l.holes[i]);
            }
            for (k, s) in steps.iter().enumerate() {
                let k = k as u64 + 1;
                assert_eq!(s.score % (10 * k), 0);
                let by_color: u64 = s.cleared_by_color.iter().map(|&n| u64::from(n)).sum();
                assert!(by_color * 10 * k <= s.score, "{text}");
                assert!(s.hits.windows(2).all(|p| p[0].cell < p[1].cell));
                for h in &s.hits {
                    let i = h.cell.0 as usize * l.w + h.cell.1 as usize;
                    assert!(!l.holes[i]);
                }
            }
            let collected: usize = steps.iter().map(|s| s.collected.len()).sum();
            let ingredients = |b: &PlayLevel| {
                (0..b.cells.len())
                    .filter(|&i| {
                        !b.holes[i] && b.blockers[i] == 0 && b.kinds[i] == play::INGREDIENT
                    })
                    .count()
            };
            assert_eq!(ingredients(&end) + collected, ingredients(&l), "{text}");
        }
        // Verdicts: a swap touching a fixed cell is never valid.
        for (a, b) in l.valid_swaps() {
            for (r, c) in [a, b] {
                let i = r as usize * l.w + c as usize;
                assert!(l.blockers[i] == 0 && !l.locks[i], "{text} {a:?} {b:?}");
            }
        }
    }
}
