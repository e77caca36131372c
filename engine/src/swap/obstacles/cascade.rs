//! The cascade of a board with level layers (docs/rules.md section 8): each step clears as
//! section 6 does with locked tiles spared, hits the cells it reaches (jelly, blockers, locks),
//! settles with fixed cells, collects ingredients at exits; the one cascade loop runs it.

use rand::Rng;

use super::StableObstacles;
use super::arrange::shuffle_obstacles;
use super::gravity::{Masks, Settled, settle, settle_with};
use super::judge::{
    count_obstacle_swaps, count_obstacle_swaps_with, has_obstacle_swap, judge_obstacle_swap,
};
use super::prepared::Prepared;
use crate::bitboard::{BitIter, CellSet};
use crate::board::{EMPTY, Position};
use crate::error::EngineError;
use crate::moves::Swap;
use crate::runs::{Group, groups_of};
use crate::swap::board::SwapBoard;
use crate::swap::cascade_loop::{
    CascadeBoard, CascadeTotals, RunSearch, StepClearing, StepSettling, hand_settling_step,
    run_cascade,
};
use crate::swap::level::{Combination, KindMasks, StepCells, Trigger, clear_step, exchange};
use crate::swap::level_layers::ObstacleBoard;
use crate::swap::pieces::Special;
use crate::swap::step::{CascadeOptions, CascadeSummary, Hit, Refill, StepSink};

/// What a cascade on a board with level layers did for the goals of a level (docs/rules.md
/// section 8), beyond its score.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelTally {
    /// Tiles cleared, by colour: entry `c` for colour `c` (`1..=16`; entry 0 is unused). A
    /// removed lock is not a clear.
    pub cleared_by_color: [u64; 17],
    /// Ingredients collected at exits.
    pub collected: u64,
}

/// A board with level layers in the middle of a cascade, with its bitboards.
struct ObstacleCascade<'a> {
    board: &'a mut ObstacleBoard,
    /// The board's colour planes, kind masks and gravity masks, kept up to date from step to
    /// step, and the step buffers.
    bits: &'a mut Prepared,
    /// The specials the step being cleared created.
    created: Vec<Special>,
    /// Where the next step's runs can be: every run passes through a cell whose piece changed
    /// (moved, spawned or created) or a tile whose lock the last step removed.
    search: RunSearch,
    /// The part of the next search the last clearing made (created specials, unlocked tiles).
    cleared_search: RunSearch,
    /// The swap that started the cascade, until its step is cleared.
    trigger: Option<Trigger>,
    /// The trigger of the step being cleared (step 1 of a swap).
    step_trigger: Option<Trigger>,
    tally: &'a mut LevelTally,
}

impl<'a> ObstacleCascade<'a> {
    /// The cascade of `board`, whose bitboards are `bits`.
    fn with(
        board: &'a mut ObstacleBoard,
        bits: &'a mut Prepared,
        (trigger, search): (Option<Trigger>, RunSearch),
        tally: &'a mut LevelTally,
    ) -> Self {
        debug_assert!(bits.describes(board));
        Self {
            board,
            bits,
            created: Vec::new(),
            search,
            cleared_search: RunSearch { rows: 0, colors: 0 },
            trigger,
            step_trigger: None,
            tally,
        }
    }

    fn combination(&self) -> Option<(Trigger, Combination)> {
        self.step_trigger
            .and_then(|trigger| trigger.combination.map(|c| (trigger, c)))
    }

    /// Hits every cell the step reached, each once (docs/rules.md section 8): cleared and
    /// unlocked tiles, and the blockers next to a group's cell or inside an effect's area.
    /// Returns the hits on cells that carry a layer, row-major.
    fn hit(&mut self) -> Vec<Hit> {
        let (width, height) = (self.board.level().width(), self.board.level().height());
        let StepCells {
            cleared,
            in_group,
            unlocked,
            struck,
            ..
        } = &*self.bits.cells;
        let full = u64::MAX >> (64 - width);
        let mut hit = CellSet::new();
        for row in 0..height {
            let group = in_group.row(row);
            // A group reaches its cells' orthogonal neighbours.
            let mut near = group << 1 | group >> 1;
            if row > 0 {
                near |= in_group.row(row - 1);
            }
            if row + 1 < height {
                near |= in_group.row(row + 1);
            }
            let mut blockers = 0u64;
            for col in BitIter((near | struck.row(row)) & full) {
                if self.board.blockers()[row * width + col as usize] > 0 {
                    blockers |= 1 << col;
                }
            }
            hit.set_row(row, cleared.row(row) | unlocked.row(row) | blockers);
        }
        let mut hits = Vec::new();
        let hit_cells = hit.rows()[..height]
            .iter()
            .map(|line| line.count_ones() as usize);
        let hit_count: usize = hit_cells.sum();
        let (mut unlocked_now, mut destroyed) = (CellSet::new(), CellSet::new());
        let (_, _, jelly, blockers, locks) = self.board.parts_mut();
        for (row, &line) in hit.rows()[..height].iter().enumerate() {
            for col in BitIter(line) {
                let index = row * width + col as usize;
                let (had_jelly, had_blocker) = (jelly[index] > 0, blockers[index] > 0);
                jelly[index] = jelly[index].saturating_sub(1);
                blockers[index] = blockers[index].saturating_sub(1);
                let lock_removed = std::mem::replace(&mut locks[index], 0) != 0;
                if lock_removed {
                    self.bits.cells.locked.remove_from_row(row, 1 << col);
                    unlocked_now.insert(row, col as usize);
                }
                if had_blocker && blockers[index] == 0 {
                    destroyed.insert(row, col as usize);
                }
                if had_jelly || had_blocker || lock_removed {
                    // At most every hit cell carries a layer.
                    hits.reserve(hit_count - hits.len());
                    hits.push(Hit {
                        position: Position::new(row as u32, col),
                        jelly_left: jelly[index],
                        blocker_left: blockers[index],
                        lock_removed,
                    });
                }
            }
        }
        // The next step's search starts with the created specials and the unlocked tiles: a
        // run of tiles that were all locked is still there, unchanged.
        let mut search = RunSearch { rows: 0, colors: 0 };
        let colors = self.board.level().board().cells();
        for special in &self.created {
            search.rows = search.rows.max(special.position.row as usize + 1);
            search.colors |= 1 << special.color;
        }
        for (row, &line) in unlocked_now.rows()[..height].iter().enumerate() {
            for col in BitIter(line) {
                search.rows = search.rows.max(row + 1);
                search.colors |= 1 << colors[row * width + col as usize];
            }
        }
        self.cleared_search = search;
        let created = self.created.iter().map(|special| special.position);
        let cleared = &self.bits.cells.cleared;
        self.bits
            .gravity
            .after_clearing(cleared, created, (&unlocked_now, &destroyed));
        hits
    }
}

impl CascadeBoard for ObstacleCascade<'_> {
    const NEEDS_GROUPS: bool = true;

    fn find_clearing(&mut self) -> bool {
        self.step_trigger = self.trigger.take();
        let height = self.board.level().height();
        if self.combination().is_some() {
            self.bits.cells.in_group.clear_rows(height);
            return true;
        }
        // Rows past the height are empty already.
        self.bits.cells.in_group.clear_rows(height);
        self.search
            .add_matched(&self.bits.planes, &mut self.bits.cells.in_group);
        debug_assert!(
            self.bits.cells.in_group == self.bits.planes.matched(),
            "a run outside {:?}",
            self.search
        );
        self.bits.cells.in_group.rows()[..height]
            .iter()
            .any(|&line| line != 0)
    }

    fn groups(&self) -> Vec<Group> {
        if self.combination().is_some() {
            return Vec::new();
        }
        groups_of(&self.bits.planes, &self.bits.cells.in_group)
    }

    fn clear(&mut self, groups: &[Group], specials: bool) -> StepClearing {
        let combination = self.combination();
        let colors_before = &mut self.bits.colors_before;
        colors_before.clear();
        colors_before.extend_from_slice(self.board.level().board().cells());
        let mut clearing = clear_step(
            self.board.level_mut(),
            (&mut self.bits.planes, &mut self.bits.masks),
            &mut self.bits.cells,
            groups,
            self.step_trigger,
            combination,
            specials,
        );
        let (width, height) = (self.board.level().width(), self.board.level().height());
        for (row, &line) in self.bits.cells.cleared.rows()[..height].iter().enumerate() {
            for col in BitIter(line) {
                let color = colors_before[row * width + col as usize];
                self.tally.cleared_by_color[usize::from(color)] += u64::from(color != EMPTY);
            }
        }
        self.created.clear();
        self.created.extend_from_slice(&clearing.created);
        clearing.hits = self.hit();
        clearing
    }

    fn settle_and_refill<R: Rng + ?Sized>(
        &mut self,
        refill: Refill,
        rng: &mut R,
        record: bool,
    ) -> StepSettling {
        let mut settled = Settled::new(record);
        let refill = match refill {
            Refill::Random { colors } => Some((colors, rng)),
            Refill::None => None,
        };
        debug_assert!(*self.bits.gravity == Masks::of(self.board));
        let bits = Some((&mut self.bits.planes, &mut self.bits.masks));
        settle_with(
            self.board,
            (&mut self.bits.gravity, bits),
            refill,
            &mut settled,
        );
        self.tally.collected += settled.collected.len() as u64;
        self.search = RunSearch {
            rows: self.cleared_search.rows.max(settled.changed_rows),
            colors: self.cleared_search.colors | settled.changed_colors,
        };
        debug_assert!(self.bits.planes.describes(self.board.level().board()));
        debug_assert!(self.bits.masks == KindMasks::of(self.board.level(), &self.bits.planes));
        StepSettling {
            falls: settled.falls,
            spawns: settled.spawns,
            collected: settled.collected,
            // The loop's search is not used: this board keeps its own (see `search`).
            changed_colors: 0,
        }
    }

    fn end_step(&mut self, _search: RunSearch) {}

    fn to_board(&self) -> SwapBoard {
        SwapBoard::obstacles(self.board.clone())
    }
}

/// Applies `swap` to `board` (stable, as [`super::StableObstacles`] checks) and resolves the
/// cascade, handing each step to `sink` when `RECORD`; adds what the goals count to `tally`.
/// Returns the summary and the cascade's totals.
///
/// # Errors
/// As [`crate::resolve_swap_into`], with [`crate::SwapRejection::Blocked`] for a swap of a
/// fixed cell.
pub(crate) fn obstacle_swap<const RECORD: bool, R: Rng + ?Sized, S: StepSink + ?Sized>(
    stable: StableObstacles,
    swap: Swap,
    options: CascadeOptions,
    (rng, sink, tally): (&mut R, &mut S, &mut LevelTally),
) -> Result<(CascadeSummary, CascadeTotals), EngineError> {
    let (summary, totals, bits) =
        obstacle_swap_keeping_bits::<RECORD, R, S>(stable, swap, options, (rng, sink, tally))?;
    if let Some(bits) = bits {
        Prepared::recycle(bits);
    }
    Ok((summary, totals))
}

/// [`obstacle_swap`], giving back the bitboards of the final board too when they describe it
/// (it is stable and was not shuffled), for the next move to start from.
///
/// # Errors
/// As [`obstacle_swap`].
#[allow(clippy::type_complexity)]
pub(crate) fn obstacle_swap_keeping_bits<
    const RECORD: bool,
    R: Rng + ?Sized,
    S: StepSink + ?Sized,
>(
    stable: StableObstacles,
    swap: Swap,
    options: CascadeOptions,
    (rng, sink, tally): (&mut R, &mut S, &mut LevelTally),
) -> Result<(CascadeSummary, CascadeTotals, Option<Box<Prepared>>), EngineError> {
    let (mut board, mut bits) = stable.into_parts();
    board.level().board().checked_index("swap.a", swap.a)?;
    board.level().board().checked_index("swap.b", swap.b)?;
    let (verdict, combination) = judge_obstacle_swap(&board, swap);
    if let Some(rejection) = verdict.rejection() {
        return Err(EngineError::IllegalSwap(rejection));
    }
    let width = board.level().width();
    let index = |p: Position| p.row as usize * width + p.col as usize;
    let (a, b) = (index(swap.a), index(swap.b));
    exchange(board.level_mut(), a, b);
    let trigger = Trigger { a, b, combination };
    let search = RunSearch::after_swap(swap, [board.level().color(a), board.level().color(b)]);
    bits.exchange(&board, a, b);
    let mut cascading =
        ObstacleCascade::with(&mut board, &mut bits, (Some(trigger), search), tally);
    let totals = run_cascade::<RECORD, _, R, S>(&mut cascading, 0, options, rng, sink);
    let totals = match totals {
        Ok(totals) => totals,
        Err(error) => {
            Prepared::recycle(bits);
            return Err(error);
        }
    };
    let summary = finish(board, &bits, totals, options, rng);
    if summary.stable && summary.board_before_shuffle.is_none() {
        return Ok((summary, totals, Some(bits)));
    }
    Prepared::recycle(bits);
    Ok((summary, totals, None))
}

/// The certain outcome of `swap` (valid) on `board` (stable, its bitboards `prepared`): its
/// cascade under NONE refill, nothing recorded and the final board not judged (for policies
/// that rank swaps), played on `board` and `bits` (scratch, their storage reused). Leaves the
/// final board in `board`, returns the score, and adds what the goals count to `tally`.
///
/// # Errors
/// As [`obstacle_swap`].
pub(crate) fn certain_obstacle_outcome(
    (start, prepared): (&ObstacleBoard, &Prepared),
    (board, bits): (&mut ObstacleBoard, &mut Prepared),
    swap: Swap,
    max_steps: u32,
    tally: &mut LevelTally,
) -> Result<u64, EngineError> {
    let (verdict, combination) = judge_obstacle_swap(start, swap);
    if let Some(rejection) = verdict.rejection() {
        return Err(EngineError::IllegalSwap(rejection));
    }
    board.clone_from(start);
    let width = board.level().width();
    let index = |p: Position| p.row as usize * width + p.col as usize;
    let (a, b) = (index(swap.a), index(swap.b));
    exchange(board.level_mut(), a, b);
    bits.load(prepared);
    bits.exchange(board, a, b);
    let options = CascadeOptions {
        refill: Refill::None,
        auto_shuffle: false,
        max_steps,
        specials: true,
    };
    // NONE refill draws nothing.
    let mut rng = crate::rng_from_seed(0);
    let trigger = Trigger { a, b, combination };
    let search = RunSearch::after_swap(swap, [board.level().color(a), board.level().color(b)]);
    let mut cascading = ObstacleCascade::with(board, bits, (Some(trigger), search), tally);
    let sink: &mut Vec<crate::swap::step::CascadeStep> = &mut Vec::new();
    let totals = run_cascade::<false, _, _, _>(&mut cascading, 0, options, &mut rng, sink)?;
    Ok(totals.score)
}

/// Resolves `board` as given: settles it first (a step with no groups when anything falls,
/// spawns or leaves), then cascades; adds what the goals count to `tally`.
///
/// # Errors
/// As [`crate::resolve_board_into`].
pub(crate) fn resolve_obstacle_board_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    mut board: ObstacleBoard,
    options: CascadeOptions,
    (rng, sink, tally): (&mut R, &mut S, &mut LevelTally),
) -> Result<CascadeSummary, EngineError> {
    let mut settled = Settled::new(true);
    let refill = match options.refill {
        Refill::Random { colors } => Some((colors, &mut *rng)),
        Refill::None => None,
    };
    settle(&mut board, refill, &mut settled);
    tally.collected += settled.collected.len() as u64;
    let Settled {
        falls,
        spawns,
        collected,
        ..
    } = settled;
    let settling_steps = hand_settling_step(sink, (falls, spawns, collected), || {
        SwapBoard::obstacles(board.clone())
    })?;
    let everywhere = RunSearch::everywhere(board.level().height());
    let mut bits = Prepared::reused_for(&board);
    let mut cascading = ObstacleCascade::with(&mut board, &mut bits, (None, everywhere), tally);
    let totals = run_cascade::<true, _, R, S>(&mut cascading, settling_steps, options, rng, sink);
    let summary = totals.map(|totals| finish(board, &bits, totals, options, rng));
    Prepared::recycle(bits);
    summary
}

/// Judges the settled, run-free final board (its bitboards at hand): stable (always after
/// RANDOM refill; after NONE, unless it keeps an empty slot refill would fill), dead, valid
/// swaps; shuffles a dead board under RANDOM refill with `auto_shuffle`.
fn finish<R: Rng + ?Sized>(
    board: ObstacleBoard,
    bits: &Prepared,
    totals: CascadeTotals,
    options: CascadeOptions,
    rng: &mut R,
) -> CascadeSummary {
    let Prepared {
        planes,
        masks,
        gravity,
        ..
    } = bits;
    // These bitboards may go on to the next move (`obstacle_swap_keeping_bits`).
    debug_assert!(bits.describes(&board));
    // Settled under RANDOM refill, the board is stable; under NONE it may keep empty top
    // slots, and then it is not (as every board judged for swaps must be stable under RANDOM
    // refill): not judged, as a board with empty cells is not in sections 1-2.
    let random = matches!(options.refill, Refill::Random { .. });
    if !random && !super::gravity::settles_unchanged(&board, true) {
        return CascadeSummary {
            steps: totals.last_index,
            board: SwapBoard::obstacles(board),
            total_score: totals.score,
            board_before_shuffle: None,
            dead: false,
            valid_swap_count: 0,
            stable: false,
        };
    }
    let rows = (gravity.fixed_rows(), gravity.ingredient_rows());
    let mut valid_swap_count = count_obstacle_swaps_with(&board, (planes, masks), rows);
    let mut dead = valid_swap_count == 0;
    let mut board_before_shuffle = None;
    let mut board = board;
    if dead
        && random
        && options.auto_shuffle
        && let Ok(shuffled) = shuffle_obstacles(&board, rng)
    {
        debug_assert!(has_obstacle_swap(&shuffled));
        valid_swap_count = count_obstacle_swaps(&shuffled);
        dead = false;
        board_before_shuffle = Some(SwapBoard::obstacles(std::mem::replace(
            &mut board, shuffled,
        )));
    }
    CascadeSummary {
        steps: totals.last_index,
        board: SwapBoard::obstacles(board),
        total_score: totals.score,
        board_before_shuffle,
        dead,
        valid_swap_count,
        stable: true,
    }
}
