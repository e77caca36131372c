//! The level cascade (docs/rules.md section 6): the public resolutions and the loop that runs
//! their steps (clearing, in `clearing`; gravity through holes and refill, in `rules`) on row
//! masks (colour planes, tiles, specials) with buffers reused from step to step.

use rand::Rng;

use super::arrange::shuffle_level;
use super::bits::KindMasks;
use super::clearing::{Trigger, clear_step};
use super::gravity::{level_gravity, level_refill, refill_cells, settle_cleared_with};
use super::rules::{
    Combination, count_valid_swaps_on, count_valid_swaps_with, exchange, judge_level_swap,
};
use super::scratch::{RowSets, Scratch};
use super::{LevelBoard, StableLevel};
use crate::bitboard::ColorPlanes;
use crate::board::{EMPTY, Position};
use crate::error::EngineError;
use crate::gravity::{Fall, Spawn};
use crate::moves::{Swap, SwapVerdict};
use crate::runs::{Group, find_groups, groups_of};
use crate::swap::board::SwapBoard;
use crate::swap::cascade_loop::{
    CascadeBoard, CascadeTotals, RunSearch, SplitSettling, StepClearing, StepSettling,
    hand_settling_step, run_cascade, settle_then_refill,
};
use crate::swap::step::{CascadeOptions, CascadeStep, CascadeSummary, Refill, StepSink};

/// Judges `swap` on a stable level board and, when it is valid, returns its combination (if
/// any) and the groups step 1 would clear (none for a combination).
pub(crate) fn preview_level_swap(
    level: &StableLevel,
    swap: Swap,
) -> (SwapVerdict, Option<Combination>, Vec<Group>) {
    match judge_level_swap(level.level(), swap) {
        (SwapVerdict::Ok, None) => {
            let mut after = level.level().clone();
            let (a, b) = indices(&after, swap);
            exchange(&mut after, a, b);
            (SwapVerdict::Ok, None, find_groups(after.board()))
        }
        (verdict, combination) => (verdict, combination, Vec::new()),
    }
}

fn indices(level: &LevelBoard, swap: Swap) -> (usize, usize) {
    let board = level.board();
    let index = |p: Position| board.index_of(p).unwrap_or(0);
    (index(swap.a), index(swap.b))
}

/// Applies `swap` to a stable board with layers and resolves the cascade, handing each step to
/// `sink` as it is made (the layered path of [`crate::resolve_swap_into`]).
///
/// # Errors
/// As [`crate::resolve_swap_into`].
pub(crate) fn resolve_level_swap_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    level: StableLevel,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    level_swap::<true, R, S>(level, swap, options, rng, sink).map(|(summary, _)| summary)
}

/// Applies `swap` to a stable board with layers and resolves the cascade as
/// [`resolve_level_swap_into`] does (same board, score and draws) without building its steps:
/// the layered path of [`crate::play_swap`]. Returns the outcome and the cascade's totals.
///
/// # Errors
/// As [`crate::play_swap`].
pub(crate) fn play_level_swap<R: Rng + ?Sized>(
    level: StableLevel,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<(CascadeSummary, CascadeTotals), EngineError> {
    level_swap::<false, R, Vec<CascadeStep>>(level, swap, options, rng, &mut Vec::new())
}

/// The swap and cascade of [`resolve_level_swap_into`], its steps handed to `sink` when
/// `RECORD`; also returns the cascade's totals.
fn level_swap<const RECORD: bool, R: Rng + ?Sized, S: StepSink + ?Sized>(
    level: StableLevel,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<(CascadeSummary, CascadeTotals), EngineError> {
    let (verdict, combination) = judge_level_swap(level.level(), swap);
    if let Some(rejection) = verdict.rejection() {
        return Err(EngineError::IllegalSwap(rejection));
    }
    // Taken apart in place: the kind masks are large, and the scratch borrows them.
    let StableLevel {
        level: mut board,
        mut planes,
        mut masks,
    } = level;
    board.board().checked_index("swap.a", swap.a)?;
    board.board().checked_index("swap.b", swap.b)?;
    let (a, b) = indices(&board, swap);
    exchange(&mut board, a, b);
    // The two tiles trade places in the planes too (a bomb has no colour; both may have the
    // same colour, so every removal comes before the additions).
    let moves = [
        (swap.a, swap.b, board.color(b)),
        (swap.b, swap.a, board.color(a)),
    ];
    for &(from, _, color) in &moves {
        if color != EMPTY {
            planes.remove_cell(from.row as usize, from.col, color);
        }
    }
    for &(_, to, color) in &moves {
        if color != EMPTY {
            planes.add_cell(to.row as usize, to.col, color);
        }
    }
    masks.exchange(
        (swap.a.row as usize, swap.a.col),
        (swap.b.row as usize, swap.b.col),
    );
    let trigger = Trigger { a, b, combination };
    // The board was stable: every run now holds `a` or `b`, so it has one of their colours
    // and starts no lower than the lower one.
    let search = RunSearch::after_swap(swap, [board.color(a), board.color(b)]);
    let mut scratch = Scratch::new(&board, planes, &mut masks, true, search);
    let totals = cascade::<RECORD, R, S>(
        &mut board,
        Some(trigger),
        0,
        &mut scratch,
        sink,
        options,
        rng,
    )?;
    let summary = finish(board, &scratch, totals, options, rng);
    RowSets::recycle(scratch.sets);
    Ok((summary, totals))
}

/// Resolves a board with layers as given (the layered path of [`crate::resolve_board_into`]):
/// settles empty non-hole cells first (a step with no groups when a tile falls or spawns), then
/// cascades.
///
/// # Errors
/// As [`crate::resolve_board_into`].
pub(crate) fn resolve_level_board_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    mut board: LevelBoard,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    let mut settling_steps = 0;
    if board.has_empty_cell() {
        let falls = level_gravity(&mut board);
        let spawns = match options.refill {
            Refill::Random { colors } => level_refill(&mut board, colors, rng),
            Refill::None => Vec::new(),
        };
        settling_steps = hand_settling_step(sink, (falls, spawns, Vec::new()), || {
            SwapBoard::layered(board.clone())
        })?;
    }
    let height = board.height();
    let planes = ColorPlanes::of_by_cells(board.board());
    let mut masks = KindMasks::of(&board, &planes);
    let search = RunSearch::everywhere(height);
    let mut scratch = Scratch::new(&board, planes, &mut masks, false, search);
    let totals = cascade::<true, R, S>(
        &mut board,
        None,
        settling_steps,
        &mut scratch,
        sink,
        options,
        rng,
    )?;
    let summary = finish(board, &scratch, totals, options, rng);
    RowSets::recycle(scratch.sets);
    Ok(summary)
}

/// A board with layers in the middle of a cascade (docs/rules.md section 6): step 1 of a
/// combination clears its area; every other step clears the groups; each step fires the
/// specials it cleared, creates specials, applies gravity through holes and refill, keeping
/// the colour planes and kind masks of `scratch` up to date.
struct LevelCascade<'a, 'b> {
    board: &'a mut LevelBoard,
    scratch: &'a mut Scratch<'b>,
    /// The swap that started the cascade, until its step is cleared.
    trigger: Option<Trigger>,
    /// The trigger of the step being cleared (step 1 of a swap), and its combination.
    step_trigger: Option<Trigger>,
    /// One past the lowest row the step being cleared cleared.
    rows: usize,
}

impl CascadeBoard for LevelCascade<'_, '_> {
    // Special pieces are made from the groups.
    const NEEDS_GROUPS: bool = true;

    #[inline]
    fn find_clearing(&mut self) -> bool {
        self.step_trigger = self.trigger.take();
        let height = self.board.height();
        self.scratch.sets.cells.in_group.clear_rows(height);
        if self.combination().is_some() {
            return true;
        }
        let search = self.scratch.search;
        search.add_matched(&self.scratch.planes, &mut self.scratch.sets.cells.in_group);
        let matched = &self.scratch.sets.cells.in_group;
        debug_assert!(
            *matched == self.scratch.planes.matched(),
            "a run outside {search:?}"
        );
        matched.rows()[..height].iter().any(|&line| line != 0)
    }

    #[inline]
    fn groups(&self) -> Vec<Group> {
        if self.combination().is_some() {
            return Vec::new();
        }
        groups_of(&self.scratch.planes, &self.scratch.sets.cells.in_group)
    }

    #[inline]
    fn clear(&mut self, groups: &[Group], specials: bool) -> StepClearing {
        let combination = self.combination();
        let scratch = &mut *self.scratch;
        let clearing = clear_step(
            self.board,
            (&mut scratch.planes, &mut *scratch.masks),
            &mut scratch.sets.cells,
            groups,
            self.step_trigger,
            combination,
            specials,
        );
        self.rows = clearing.rows;
        clearing
    }

    #[inline]
    fn settle_and_refill<R: Rng + ?Sized>(
        &mut self,
        refill: Refill,
        rng: &mut R,
        record: bool,
    ) -> StepSettling {
        settle_then_refill(self, refill, rng, record)
    }

    #[inline]
    fn end_step(&mut self, search: RunSearch) {
        // In a combination's step, which clears no groups, every run passes through one of
        // the two swapped tiles (the board was stable before the swap), and the step clears
        // both: the search of the changed cells covers every run here too.
        self.scratch.search = search;
        debug_assert!(self.scratch.planes.describes(self.board.board()));
        debug_assert!(*self.scratch.masks == KindMasks::of(self.board, &self.scratch.planes));
    }

    fn to_board(&self) -> SwapBoard {
        SwapBoard::layered(self.board.clone())
    }
}

impl SplitSettling for LevelCascade<'_, '_> {
    #[inline]
    fn settle(&mut self, _record: bool) -> (Vec<Fall>, u32) {
        let scratch = &mut *self.scratch;
        #[cfg(debug_assertions)]
        let expected = {
            let mut board = self.board.clone();
            let falls = super::gravity::settle_cleared(
                &mut board,
                &scratch.sets.cells.cleared,
                &mut super::gravity::SettleBuffers::new(),
            );
            (board, falls)
        };
        let falls = settle_cleared_with(
            self.board,
            (&scratch.sets.cells.cleared, self.rows),
            &scratch.sets.holes,
            &mut scratch.sets.settle,
            (scratch.masks, &mut scratch.planes),
        );
        #[cfg(debug_assertions)]
        debug_assert!(expected == (self.board.clone(), falls.clone()));
        (falls, scratch.sets.settle.moved_colors)
    }

    #[inline]
    fn refill<R: Rng + ?Sized>(
        &mut self,
        colors: u8,
        rng: &mut R,
        _record: bool,
    ) -> (Vec<Spawn>, u32) {
        let scratch = &mut *self.scratch;
        let empty = &scratch.sets.settle.empty;
        scratch.masks.fill(empty, self.board.height());
        let empty = (empty, scratch.sets.settle.empty_count);
        let spawns = refill_cells(self.board, empty, colors, rng, Some(&mut scratch.planes));
        let drawn = spawns
            .iter()
            .fold(0, |drawn, spawn| drawn | 1 << spawn.color);
        (spawns, drawn)
    }
}

impl LevelCascade<'_, '_> {
    /// The combination of the step being cleared (step 1 of a combination swap).
    fn combination(&self) -> Option<(Trigger, Combination)> {
        self.step_trigger
            .and_then(|trigger| trigger.combination.map(|c| (trigger, c)))
    }
}

/// Runs the cascade of `board` from `trigger` (a swap's), its steps numbered from
/// `first_index + 1`, recording them to `sink` when `RECORD`. Leaves `scratch.planes`
/// describing the final board.
fn cascade<const RECORD: bool, R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: &mut LevelBoard,
    trigger: Option<Trigger>,
    first_index: u32,
    scratch: &mut Scratch<'_>,
    sink: &mut S,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<CascadeTotals, EngineError> {
    let mut cascading = LevelCascade {
        board,
        scratch,
        trigger,
        step_trigger: None,
        rows: 0,
    };
    run_cascade::<RECORD, _, R, S>(&mut cascading, first_index, options, rng, sink)
}

/// Judges the run-free final board (whose colour planes and kind masks are in `scratch`):
/// stable, dead, valid swaps; shuffles a dead board under RANDOM refill with `auto_shuffle`.
fn finish<R: Rng + ?Sized>(
    board: LevelBoard,
    scratch: &Scratch<'_>,
    totals: CascadeTotals,
    options: CascadeOptions,
    rng: &mut R,
) -> CascadeSummary {
    // Stable when every non-hole cell holds a tile (the board has no run left).
    let full = u64::MAX >> (64 - board.width());
    let (holes, tiles) = (scratch.sets.holes.rows(), scratch.masks.tiles.rows());
    let stable = (0..board.height()).all(|row| holes[row] | tiles[row] == full);
    debug_assert_eq!(stable, !board.has_empty_cell());
    let mut outcome = LevelOutcome {
        stable,
        board,
        board_before_shuffle: None,
        dead: false,
        valid_swap_count: 0,
    };
    if !outcome.stable {
        return outcome.summary(totals);
    }
    outcome.valid_swap_count =
        count_valid_swaps_with(&outcome.board, &scratch.planes, scratch.masks);
    outcome.dead = outcome.valid_swap_count == 0;
    let may_shuffle = matches!(options.refill, Refill::Random { .. }) && options.auto_shuffle;
    // No playable permutation is not an error here: the move itself was legal.
    if outcome.dead
        && may_shuffle
        && let Ok(shuffled) = shuffle_level(&outcome.board, rng)
    {
        let shuffled = shuffled.into_level();
        let planes = ColorPlanes::of(shuffled.board());
        outcome.valid_swap_count = count_valid_swaps_on(&shuffled, &planes);
        outcome.dead = false;
        outcome.board_before_shuffle = Some(std::mem::replace(&mut outcome.board, shuffled));
    }
    outcome.summary(totals)
}

/// The final board of a level resolution and how it was judged.
struct LevelOutcome {
    board: LevelBoard,
    board_before_shuffle: Option<LevelBoard>,
    stable: bool,
    dead: bool,
    valid_swap_count: usize,
}

impl LevelOutcome {
    fn summary(self, totals: CascadeTotals) -> CascadeSummary {
        CascadeSummary {
            steps: totals.last_index,
            board: SwapBoard::layered(self.board),
            total_score: totals.score,
            board_before_shuffle: self.board_before_shuffle.map(SwapBoard::layered),
            dead: self.dead,
            valid_swap_count: self.valid_swap_count,
            stable: self.stable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{NONE, p, run};
    use super::*;
    use crate::gravity::Fall;
    use crate::swap::resolve::resolve_board;

    #[test]
    fn settling_a_board_with_holes() {
        // R falls through the hole under it; nothing else moves.
        let outcome = run("R./#./.G", None);
        assert_eq!(outcome.steps.len(), 1);
        assert!(outcome.steps[0].groups.is_empty());
        assert_eq!(
            outcome.steps[0].falls,
            vec![Fall {
                from: p(0, 0),
                to: p(2, 0)
            }]
        );
        assert_eq!(outcome.board.to_string(), "../#./RG");
        // Under RANDOM refill every non-hole cell ends filled, the holes stay empty.
        let level = SwapBoard::parse("R.#/#../..G/G#.").unwrap();
        let options = CascadeOptions {
            refill: Refill::Random { colors: 5 },
            ..NONE
        };
        let outcome = resolve_board(level.clone(), options, &mut crate::rng_from_seed(9)).unwrap();
        assert!(outcome.stable);
        assert_eq!(outcome.board.holes(), level.holes());
        assert!(crate::swap::stable::is_stable(&outcome.board));
    }

    #[test]
    fn row_sets_reused_from_a_board_of_another_size_give_the_same_cascades() {
        // Each thread keeps the row sets of its last cascade for the next one: a cascade after
        // boards of other sizes (taller, wider, smaller, with holes where this one has none)
        // must play exactly as on a thread that has run nothing before.
        type Swapped = Option<((u32, u32), (u32, u32))>;
        let cases: [(&str, Swapped); 7] = [
            ("RGBYP/BYPRG/PR-G+BY/GBYPR/YPRGB", Some(((2, 1), (2, 2)))),
            ("R./#./.G", None),
            ("GYB/B#G/RR|R/GBY", None),
            ("RR-RGB/GBGBR", None),
            ("RR+RG/B*GB/GBBY", None),
            ("*RG/GBR/RGB", Some(((0, 0), (0, 1)))),
            ("RGBYP/BYPRG/PR+G+BY/GBYPR/YPRGB", Some(((2, 2), (2, 1)))),
        ];
        let random = CascadeOptions {
            refill: Refill::Random { colors: 5 },
            ..NONE
        };
        let play = move |(text, swapped): (&str, Swapped)| {
            let level = SwapBoard::parse_with_layers(text).unwrap();
            let settled = resolve_board(level, random, &mut crate::rng_from_seed(4)).unwrap();
            (run(text, swapped), settled)
        };
        let fresh: Vec<_> = cases
            .iter()
            .map(|&case| std::thread::spawn(move || play(case)).join().unwrap())
            .collect();
        for round in 0..2 {
            for (&case, expected) in cases.iter().zip(&fresh) {
                assert_eq!(&play(case), expected, "{}, round {round}", case.0);
            }
            for (&case, expected) in cases.iter().zip(&fresh).rev() {
                assert_eq!(
                    &play(case),
                    expected,
                    "{}, backwards, round {round}",
                    case.0
                );
            }
        }
    }

    #[test]
    fn preview_reports_the_combination_and_no_groups() {
        let level = StableLevel::try_from(LevelBoard::parse("*RG/GBR/RGB").unwrap()).unwrap();
        let (verdict, combination, groups) =
            preview_level_swap(&level, Swap::new(p(0, 1), p(0, 0)));
        assert_eq!(verdict, SwapVerdict::Ok);
        assert_eq!(combination, Some(Combination::BombNormal));
        assert!(groups.is_empty());
    }
}
