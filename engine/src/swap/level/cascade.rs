//! The level cascade (docs/rules.md section 6): the public resolutions and the loop that runs
//! their steps (clearing, in `clearing`; gravity through holes and refill, in `rules`) on row
//! masks (colour planes, tiles, specials) with buffers reused from step to step.

use rand::Rng;

use super::arrange::shuffle_level;
use super::bits::KindMasks;
use super::clearing::{StepCells, Trigger, clear_step};
use super::gravity::{
    SettleBuffers, level_gravity, level_refill, refill_cells, settle_cleared_with,
};
use super::rules::{
    Combination, count_valid_swaps_on, count_valid_swaps_with, exchange, judge_level_swap,
};
use super::{LevelBoard, StableLevel};
use crate::bitboard::{CellSet, ColorPlanes};
use crate::board::{EMPTY, Position};
use crate::error::EngineError;
use crate::moves::{Swap, SwapVerdict};
use crate::runs::{Group, find_groups, groups_of};
use crate::swap::board::SwapBoard;
use crate::swap::cascade::RunSearch;
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
    let (steps, total_score) = cascade(
        &mut board,
        Some(trigger),
        0,
        &mut scratch,
        sink,
        options,
        rng,
    )?;
    Ok(finish(board, &scratch, (steps, total_score), options, rng))
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
        if !falls.is_empty() || !spawns.is_empty() {
            settling_steps = 1;
            let step = CascadeStep {
                index: 1,
                groups: Vec::new(),
                fired: Vec::new(),
                created: Vec::new(),
                effect_cleared: Vec::new(),
                falls,
                spawns,
                score: 0,
                board: SwapBoard::layered(board.clone()),
            };
            if sink.accept(step).is_break() {
                return Err(EngineError::CascadeStopped { steps: 1 });
            }
        }
    }
    let height = board.height();
    let planes = ColorPlanes::of_by_cells(board.board());
    let mut masks = KindMasks::of(&board, &planes);
    let search = RunSearch::everywhere(height);
    let mut scratch = Scratch::new(&board, planes, &mut masks, false, search);
    let (steps, total_score) = cascade(
        &mut board,
        None,
        settling_steps,
        &mut scratch,
        sink,
        options,
        rng,
    )?;
    Ok(finish(board, &scratch, (steps, total_score), options, rng))
}

/// What a cascade keeps from step to step: the colour planes and kind masks of the board at
/// the start of the step (updated after each step where it changed), and reused buffers.
struct Scratch<'a> {
    /// Colour planes of the board being resolved.
    planes: ColorPlanes,
    /// Tile, special and bomb masks of the board being resolved.
    masks: &'a mut KindMasks,
    /// Where the board's runs can be (runs can only appear where cells changed).
    search: RunSearch,
    /// The holes, as row masks.
    holes: CellSet,
    /// Buffers of gravity (see [`settle_cleared_with`]).
    settle: SettleBuffers,
    /// The cells cleared in the current step, and those of its groups.
    cells: StepCells,
}

impl<'a> Scratch<'a> {
    /// The scratch for `board`, whose colour planes are `planes`, whose kind masks are
    /// `masks` and whose runs are all within `search`. When `stable` (every non-hole cell
    /// holds a tile), the holes are read off the tile mask.
    #[inline]
    fn new(
        board: &LevelBoard,
        planes: ColorPlanes,
        masks: &'a mut KindMasks,
        stable: bool,
        search: RunSearch,
    ) -> Self {
        debug_assert!(planes.describes(board.board()));
        debug_assert!(*masks == KindMasks::of(board, &planes));
        let holes = if stable {
            let mut holes = CellSet::new();
            let full = u64::MAX >> (64 - board.width());
            for row in 0..board.height() {
                holes.set_row(row, full & !masks.tiles.row(row));
            }
            holes
        } else {
            hole_masks(board)
        };
        debug_assert!(holes == hole_masks(board));
        Self {
            masks,
            holes,
            planes,
            search,
            settle: SettleBuffers::new(),
            cells: StepCells::new(),
        }
    }
}

/// The cascade loop: step 1 of a combination clears its area; every other step clears the
/// groups; each step fires the specials it cleared, creates specials, applies gravity and
/// refill. Runs while the board has a run. Leaves `scratch.planes` describing the final board.
fn cascade<R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: &mut LevelBoard,
    mut trigger: Option<Trigger>,
    first_index: u32,
    scratch: &mut Scratch<'_>,
    sink: &mut S,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<(u32, u64), EngineError> {
    let mut index = first_index;
    let mut total_score = 0;
    loop {
        let this_trigger = trigger.take();
        let combination = this_trigger.and_then(|t| t.combination.map(|c| (t, c)));
        let height = board.height();
        scratch.cells.in_group.clear_rows(height);
        let groups = if combination.is_some() {
            Vec::new()
        } else {
            let search = scratch.search;
            search.add_matched(&scratch.planes, &mut scratch.cells.in_group);
            let matched = &scratch.cells.in_group;
            debug_assert!(
                *matched == scratch.planes.matched(),
                "a run outside {search:?}"
            );
            let any = matched.rows()[..height]
                .iter()
                .fold(0, |any, &line| any | line);
            if any == 0 {
                return Ok((index, total_score));
            }
            groups_of(&scratch.planes, matched)
        };
        index += 1;
        if index > options.max_steps {
            return Err(EngineError::CascadeLimitExceeded {
                max_steps: options.max_steps,
            });
        }
        let cleared = clear_step(
            board,
            (&mut scratch.planes, &mut *scratch.masks),
            &mut scratch.cells,
            &groups,
            this_trigger,
            combination,
            options.specials,
        );
        let score = 10 * u64::from(index) * cleared.count as u64;
        total_score += score;
        #[cfg(debug_assertions)]
        let expected = {
            let mut board = board.clone();
            let falls = super::gravity::settle_cleared(
                &mut board,
                &scratch.cells.cleared,
                &mut SettleBuffers::new(),
            );
            (board, falls)
        };
        let falls = settle_cleared_with(
            board,
            (&scratch.cells.cleared, cleared.rows),
            &scratch.holes,
            &mut scratch.settle,
            (scratch.masks, &mut scratch.planes),
        );
        #[cfg(debug_assertions)]
        debug_assert!(expected == (board.clone(), falls.clone()));
        // New runs hold a changed cell (a moved, spawned or created tile): they have its
        // colour and start no lower than the lowest cleared row. Every other cell is as it
        // was, and the step cleared every run of the board it started from; in a
        // combination's step, which clears no groups, every run passes through one of the two
        // swapped tiles (the board was stable before the swap), and the step clears both.
        let mut changed_colors = scratch.settle.moved_colors;
        for special in &cleared.created {
            changed_colors |= 1 << special.color;
        }
        let spawns = match options.refill {
            Refill::Random { colors } => {
                let empty = &scratch.settle.empty;
                scratch.masks.fill(empty, board.height());
                let empty = (empty, scratch.settle.empty_count);
                let spawns = refill_cells(board, empty, colors, rng, Some(&mut scratch.planes));
                for spawn in &spawns {
                    changed_colors |= 1 << spawn.color;
                }
                spawns
            }
            Refill::None => Vec::new(),
        };
        scratch.search = RunSearch {
            rows: cleared.rows,
            colors: changed_colors,
        };
        debug_assert!(scratch.planes.describes(board.board()));
        debug_assert!(*scratch.masks == KindMasks::of(board, &scratch.planes));
        let step = CascadeStep {
            index,
            groups,
            fired: cleared.fired,
            created: cleared.created,
            effect_cleared: cleared.effect_cleared,
            falls,
            spawns,
            score,
            board: SwapBoard::layered(board.clone()),
        };
        if sink.accept(step).is_break() {
            return Err(EngineError::CascadeStopped { steps: index });
        }
    }
}

/// The holes of `board`, as row masks.
fn hole_masks(board: &LevelBoard) -> CellSet {
    let mut holes = CellSet::new();
    let width = board.width();
    for (index, &hole) in board.holes().iter().enumerate() {
        if !hole {
            continue;
        }
        holes.insert(index / width, index % width);
    }
    holes
}

/// Judges the run-free final board (whose colour planes and kind masks are in `scratch`):
/// stable, dead, valid swaps; shuffles a dead board under RANDOM refill with `auto_shuffle`.
fn finish<R: Rng + ?Sized>(
    board: LevelBoard,
    scratch: &Scratch<'_>,
    (steps, total_score): (u32, u64),
    options: CascadeOptions,
    rng: &mut R,
) -> CascadeSummary {
    // Stable when every non-hole cell holds a tile (the board has no run left).
    let full = u64::MAX >> (64 - board.width());
    let (holes, tiles) = (scratch.holes.rows(), scratch.masks.tiles.rows());
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
        return outcome.summary(steps, total_score);
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
    outcome.summary(steps, total_score)
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
    fn summary(self, steps: u32, total_score: u64) -> CascadeSummary {
        CascadeSummary {
            steps,
            board: SwapBoard::layered(self.board),
            total_score,
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
    fn preview_reports_the_combination_and_no_groups() {
        let level = StableLevel::try_from(LevelBoard::parse("*RG/GBR/RGB").unwrap()).unwrap();
        let (verdict, combination, groups) =
            preview_level_swap(&level, Swap::new(p(0, 1), p(0, 0)));
        assert_eq!(verdict, SwapVerdict::Ok);
        assert_eq!(combination, Some(Combination::BombNormal));
        assert!(groups.is_empty());
    }
}
