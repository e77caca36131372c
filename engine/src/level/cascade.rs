//! The level cascade (docs/rules.md section 6): combinations, firing chains, creation of
//! specials, gravity through holes and refill, on row masks (colour planes, tiles, specials)
//! with buffers reused from step to step.

use std::ops::{ControlFlow, Range};

use rand::Rng;

use super::arrange::shuffle_level;
use super::bits::KindMasks;
use super::rules::{
    Combination, SettleBuffers, count_valid_swaps_on, count_valid_swaps_with, exchange,
    judge_level_swap, level_gravity, level_refill, refill_cells, settle_cleared_with,
};
use super::{LevelBoard, PieceKind, Special, StableLevel};
use crate::bitboard::{BitIter, CellSet, ColorPlanes};
use crate::board::{EMPTY, Position};
use crate::cascade::{CascadeOptions, Refill, RunSearch};
use crate::error::EngineError;
use crate::gravity::{Fall, Spawn};
use crate::moves::{Swap, SwapVerdict};
use crate::runs::{Group, find_groups, groups_of};

/// One step of a level cascade.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelStep {
    /// 1-based step number k.
    pub index: u32,
    /// Groups cleared, ordered by first cell (empty for a settling step and for the step 1 of
    /// a combination).
    pub groups: Vec<Group>,
    /// Specials fired, in queue order, with the kind each fired as.
    pub fired: Vec<Special>,
    /// Specials created, ordered by position.
    pub created: Vec<Special>,
    /// Cells cleared outside the groups (by a combination or a firing), row-major.
    pub effect_cleared: Vec<Position>,
    /// Tiles moved by gravity, ordered by `from` in row-major order.
    pub falls: Vec<Fall>,
    /// Cells filled by refill, row-major.
    pub spawns: Vec<Spawn>,
    /// `10 * k * (cells cleared)`.
    pub score: u64,
    /// The board after the step.
    pub board: LevelBoard,
}

/// Everything a level resolution produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelOutcome {
    /// Steps in order; empty when nothing happened.
    pub steps: Vec<LevelStep>,
    /// The final board (after the shuffle, if any).
    pub board: LevelBoard,
    /// Sum of the steps' scores.
    pub total_score: u64,
    /// The dead board before the automatic shuffle, when one happened.
    pub board_before_shuffle: Option<LevelBoard>,
    /// True when the final board is stable and has no valid swap (combinations included).
    pub dead: bool,
    /// Valid swaps on the final board (0 unless it is stable).
    pub valid_swap_count: usize,
    /// True when the final board is stable.
    pub stable: bool,
}

/// Judges `swap` on a stable level board and, when it is valid, returns its combination (if
/// any) and the groups step 1 would clear (none for a combination).
pub fn preview_level_swap(
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

/// The swap that starts a cascade: its cells after the exchange (`b` holds `a`'s tile) and
/// its combination.
#[derive(Clone, Copy)]
struct Trigger {
    a: usize,
    b: usize,
    combination: Option<Combination>,
}

/// Applies `swap` to a stable level board and resolves the cascade.
///
/// # Errors
/// [`EngineError::PositionOffBoard`] for an off-board position, [`EngineError::IllegalSwap`]
/// for a hole, non-adjacent, empty or non-matching swap, and
/// [`EngineError::CascadeLimitExceeded`].
pub fn resolve_level_swap<R: Rng + ?Sized>(
    level: StableLevel,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<LevelOutcome, EngineError> {
    let mut steps = Vec::new();
    let mut outcome = resolve_level_swap_into(level, swap, options, rng, &mut steps)?;
    outcome.steps = steps;
    Ok(outcome)
}

/// Where a level resolution hands its steps, each as soon as it is made (see
/// [`crate::StepSink`] for plain boards): a caller can measure them, or stop a cascade
/// that has outlived its call.
pub trait LevelStepSink {
    /// Takes the next step; [`ControlFlow::Break`] stops the resolution at once with
    /// [`EngineError::CascadeStopped`].
    fn accept(&mut self, step: LevelStep) -> ControlFlow<()>;
}

/// Keeps every step.
impl LevelStepSink for Vec<LevelStep> {
    fn accept(&mut self, step: LevelStep) -> ControlFlow<()> {
        self.push(step);
        ControlFlow::Continue(())
    }
}

/// [`resolve_level_swap`] handing each step to `sink` as it is made; the returned outcome's
/// `steps` is empty (they went to the sink). Same steps, board, score and draws.
///
/// # Errors
/// As [`resolve_level_swap`], and [`EngineError::CascadeStopped`] when `sink` stops it.
pub fn resolve_level_swap_into<R: Rng + ?Sized, S: LevelStepSink + ?Sized>(
    level: StableLevel,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<LevelOutcome, EngineError> {
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
    let total_score = cascade(
        &mut board,
        Some(trigger),
        0,
        &mut scratch,
        sink,
        options,
        rng,
    )?;
    Ok(finish(board, &scratch, total_score, options, rng))
}

/// Resolves a level board as given: settles empty non-hole cells first (a step with no groups
/// when a tile falls or spawns), then cascades.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`].
pub fn resolve_level_board<R: Rng + ?Sized>(
    board: LevelBoard,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<LevelOutcome, EngineError> {
    let mut steps = Vec::new();
    let mut outcome = resolve_level_board_into(board, options, rng, &mut steps)?;
    outcome.steps = steps;
    Ok(outcome)
}

/// [`resolve_level_board`] handing each step to `sink` as it is made; the returned outcome's
/// `steps` is empty (they went to the sink). Same steps, board, score and draws.
///
/// # Errors
/// As [`resolve_level_board`], and [`EngineError::CascadeStopped`] when `sink` stops it.
pub fn resolve_level_board_into<R: Rng + ?Sized, S: LevelStepSink + ?Sized>(
    mut board: LevelBoard,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<LevelOutcome, EngineError> {
    let mut settling_steps = 0;
    if board.has_empty_cell() {
        let falls = level_gravity(&mut board);
        let spawns = match options.refill {
            Refill::Random { colors } => level_refill(&mut board, colors, rng),
            Refill::None => Vec::new(),
        };
        if !falls.is_empty() || !spawns.is_empty() {
            settling_steps = 1;
            let step = LevelStep {
                index: 1,
                groups: Vec::new(),
                fired: Vec::new(),
                created: Vec::new(),
                effect_cleared: Vec::new(),
                falls,
                spawns,
                score: 0,
                board: board.clone(),
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
    let total_score = cascade(
        &mut board,
        None,
        settling_steps,
        &mut scratch,
        sink,
        options,
        rng,
    )?;
    Ok(finish(board, &scratch, total_score, options, rng))
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
    /// The cells cleared in the current step.
    cleared: CellSet,
    /// The cells of the current step's groups (its matched cells; none in a combination's
    /// step 1).
    in_group: CellSet,
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
            cleared: CellSet::new(),
            in_group: CellSet::new(),
        }
    }
}

/// The cascade loop: step 1 of a combination clears its area; every other step clears the
/// groups; each step fires the specials it cleared, creates specials, applies gravity and
/// refill. Runs while the board has a run. Leaves `scratch.planes` describing the final board.
fn cascade<R: Rng + ?Sized, S: LevelStepSink + ?Sized>(
    board: &mut LevelBoard,
    mut trigger: Option<Trigger>,
    first_index: u32,
    scratch: &mut Scratch<'_>,
    sink: &mut S,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<u64, EngineError> {
    let mut index = first_index;
    let mut total_score = 0;
    loop {
        let this_trigger = trigger.take();
        let combination = this_trigger.and_then(|t| t.combination.map(|c| (t, c)));
        let height = board.height();
        reset(&mut scratch.in_group, height);
        let groups = if combination.is_some() {
            Vec::new()
        } else {
            let search = scratch.search;
            search.add_matched(&scratch.planes, &mut scratch.in_group);
            let matched = &scratch.in_group;
            debug_assert!(
                *matched == scratch.planes.matched(),
                "a run outside {search:?}"
            );
            let any = matched.rows()[..height]
                .iter()
                .fold(0, |any, &line| any | line);
            if any == 0 {
                return Ok(total_score);
            }
            groups_of(&scratch.planes, matched)
        };
        index += 1;
        if index > options.max_steps {
            return Err(EngineError::CascadeLimitExceeded {
                max_steps: options.max_steps,
            });
        }
        let cleared = clear_step(board, scratch, &groups, this_trigger, combination);
        let score = 10 * u64::from(index) * cleared.count as u64;
        total_score += score;
        #[cfg(debug_assertions)]
        let expected = {
            let mut board = board.clone();
            let falls = super::rules::settle_cleared(
                &mut board,
                &scratch.cleared,
                &mut SettleBuffers::new(),
            );
            (board, falls)
        };
        let falls = settle_cleared_with(
            board,
            (&scratch.cleared, cleared.rows),
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
        let step = LevelStep {
            index,
            groups,
            fired: cleared.fired,
            created: cleared.created,
            effect_cleared: cleared.effect_cleared,
            falls,
            spawns,
            score,
            board: board.clone(),
        };
        if sink.accept(step).is_break() {
            return Err(EngineError::CascadeStopped { steps: index });
        }
    }
}

/// What the clearing part of a step did (the cleared cells themselves are left in
/// `Scratch::cleared`).
struct Cleared {
    count: usize,
    /// One past the lowest row holding a cleared cell.
    rows: usize,
    fired: Vec<Special>,
    created: Vec<Special>,
    effect_cleared: Vec<Position>,
}

/// Bits `from..=to` of a row mask, clipped to the 64 columns (`from` may be negative).
fn span(from: isize, to: isize) -> u64 {
    let from = from.max(0);
    let to = to.min(63);
    if from > to {
        return 0;
    }
    (u64::MAX >> (63 - (to - from))) << from
}

/// The rows within `radius` of `center`, clipped to `height` rows.
fn band(center: usize, radius: usize, height: usize) -> Range<usize> {
    center.saturating_sub(radius)..(center + radius + 1).min(height)
}

/// The holes of `board`, as row masks.
fn hole_masks(board: &LevelBoard) -> CellSet {
    let mut holes = CellSet::new();
    let width = board.width();
    for (index, &hole) in board.holes().iter().enumerate() {
        if !hole {
            continue;
        }
        let row = index / width;
        holes.set_row(row, holes.row(row) | 1 << (index % width));
    }
    holes
}

/// Empties the first `height` rows of `set`.
fn reset(set: &mut CellSet, height: usize) {
    for row in 0..height {
        set.set_row(row, 0);
    }
}

/// The most common colour among the tiles described by `planes` (ties: the lowest), or `None`
/// when there is no coloured tile.
fn most_common_color(planes: &ColorPlanes, height: usize) -> Option<u8> {
    let mut best = None;
    for color in 1..=planes.colors() {
        let count: u32 = (0..height)
            .map(|row| planes.row_of(color, row).count_ones())
            .sum();
        if count > 0 && best.is_none_or(|(_, c)| count > c) {
            best = Some((color, count));
        }
    }
    best.map(|(color, _)| color)
}

/// The tiles a combination clears in step 1 besides its two tiles, as whole rows (`rows`) and
/// as the columns `columns` over the rows `column_rows`; the colour combinations (bomb +
/// NORMAL / striped / wrapped) clear a colour instead, see [`clear_step`].
fn combination_area(
    combination: Combination,
    (b_row, b_col): (usize, usize),
    height: usize,
) -> (Range<usize>, u64, Range<usize>) {
    let col = b_col as isize;
    match combination {
        Combination::BombBomb => (0..height, 0, 0..0),
        Combination::StripedStriped => (band(b_row, 0, height), span(col, col), 0..height),
        Combination::StripedWrapped => (band(b_row, 1, height), span(col - 1, col + 1), 0..height),
        Combination::WrappedWrapped => (0..0, span(col - 2, col + 2), band(b_row, 2, height)),
        Combination::BombNormal | Combination::BombStriped | Combination::BombWrapped => {
            (0..0, 0, 0..0)
        }
    }
}

/// Clears one step on `board` (the board at the start of the step, whose colour planes and
/// kind masks are in `scratch`): the groups, or the combination's area; then every special so
/// cleared fires, in queue order, until none is left; then the groups' specials are created.
/// Leaves the cleared cells in `scratch.cleared` and the kind masks up to date; returns the
/// counts and events.
fn clear_step(
    board: &mut LevelBoard,
    scratch: &mut Scratch<'_>,
    groups: &[Group],
    trigger: Option<Trigger>,
    combination: Option<(Trigger, Combination)>,
) -> Cleared {
    let (width, height) = (board.width(), board.height());
    let Scratch {
        planes,
        masks,
        cleared,
        in_group,
        ..
    } = scratch;
    let tiles = &masks.tiles;
    debug_assert!(groups.iter().all(|group| {
        group
            .cells
            .iter()
            .all(|p| in_group.row(p.row as usize) >> p.col & 1 == 1)
    }));
    // A combination's two tiles are consumed: cleared, never queued (as row and column bit).
    let consumed = combination
        .map(|(trigger, _)| [trigger.a, trigger.b].map(|i| (i / width, 1u64 << (i % width))));
    for row in 0..height {
        cleared.set_row(row, in_group.row(row));
    }
    // The colour whose cells fire as another kind than their own (bomb + striped / wrapped),
    // and the combination saying which (striped: by the cell's parity).
    let mut fire_as: Option<(u8, Combination)> = None;
    if let Some((trigger, combination)) = combination {
        let (a, b) = (trigger.a, trigger.b);
        for i in [a, b] {
            let (row, bit) = (i / width, 1u64 << (i % width));
            cleared.set_row(row, cleared.row(row) | bit);
        }
        // The colour of the non-bomb tile (both are at their swapped places now).
        let c = if board.kind(a) == PieceKind::ColorBomb {
            board.color(b)
        } else {
            board.color(a)
        };
        match combination {
            Combination::BombNormal | Combination::BombStriped | Combination::BombWrapped => {
                for row in 0..height {
                    cleared.set_row(row, cleared.row(row) | planes.row_of(c, row));
                }
                if combination != Combination::BombNormal {
                    fire_as = Some((c, combination));
                }
            }
            _ => {
                let (rows, columns, column_rows) =
                    combination_area(combination, (b / width, b % width), height);
                for row in rows {
                    cleared.set_row(row, cleared.row(row) | tiles.row(row));
                }
                for row in column_rows {
                    cleared.set_row(row, cleared.row(row) | (tiles.row(row) & columns));
                }
            }
        }
    }
    let fires_as = |row: usize, col: u32| -> Option<PieceKind> {
        let (color, combination) = fire_as?;
        if planes.row_of(color, row) >> col & 1 == 0 {
            return None;
        }
        Some(match combination {
            Combination::BombStriped if (row + col as usize).is_multiple_of(2) => {
                PieceKind::StripedH
            }
            Combination::BombStriped => PieceKind::StripedV,
            _ => PieceKind::Wrapped,
        })
    };
    let special_at = |row: usize, col: u32, kind: PieceKind| Special {
        position: Position::new(row as u32, col),
        kind,
        color: board.color(row * width + col as usize),
    };
    // The queue of firings, which is also the list of specials fired: seeded row-major with
    // everything cleared so far that fires. Every cell queued from here on is cleared when it
    // is queued, and a firing queues only cells it newly clears: nothing is queued twice.
    let mut fired = Vec::new();
    for row in 0..height {
        let mut candidates = cleared.row(row);
        if fire_as.is_none() {
            candidates &= masks.specials.row(row);
        }
        if candidates == 0 {
            continue;
        }
        for &(consumed_row, bit) in consumed.iter().flatten() {
            if consumed_row == row {
                candidates &= !bit;
            }
        }
        for col in BitIter(candidates) {
            let i = row * width + col as usize;
            let kind = fires_as(row, col).unwrap_or(board.kind(i));
            if kind.is_special() {
                fired.push(special_at(row, col, kind));
            }
        }
    }
    let mut bomb_color = None;
    let mut head = 0;
    while let Some(&Special { position, kind, .. }) = fired.get(head) {
        head += 1;
        let (at_row, col) = (position.row as usize, position.col as isize);
        // The rows the firing reaches, and the columns it clears there (among the tiles).
        let (rows, columns) = match kind {
            PieceKind::Normal => (0..0, 0),
            PieceKind::StripedH => (band(at_row, 0, height), u64::MAX),
            PieceKind::StripedV => (0..height, span(col, col)),
            PieceKind::Wrapped => (band(at_row, 1, height), span(col - 1, col + 1)),
            PieceKind::ColorBomb => (0..height, u64::MAX),
        };
        let color = if kind == PieceKind::ColorBomb {
            *bomb_color.get_or_insert_with(|| most_common_color(planes, height))
        } else {
            None
        };
        for row in rows {
            let area = match color {
                Some(color) => planes.row_of(color, row),
                None if kind == PieceKind::ColorBomb => 0,
                None => tiles.row(row) & columns,
            };
            let fresh = area & !cleared.row(row);
            if fresh == 0 {
                continue;
            }
            cleared.set_row(row, cleared.row(row) | fresh);
            let firing = fresh & masks.specials.row(row);
            for col in BitIter(firing) {
                fired.push(special_at(row, col, board.kind(row * width + col as usize)));
            }
        }
    }
    let rows = cleared.rows()[..height]
        .iter()
        .rposition(|&line| line != 0)
        .map_or(0, |row| row + 1);
    let mut effect_count = 0;
    for (row, &line) in cleared.rows()[..rows].iter().enumerate() {
        effect_count += (line & !in_group.row(row)).count_ones() as usize;
    }
    // The groups partition the cells of `in_group`, all cleared.
    let count = effect_count + groups.iter().map(|group| group.cells.len()).sum::<usize>();
    debug_assert_eq!(count, cleared.len_within(height));
    let mut created: Vec<Special> = groups
        .iter()
        .filter_map(|group| creation(planes, height, group, width, trigger))
        .collect();
    created.sort_unstable_by_key(|special| special.position);
    // One pass over the cleared rows: the effect cells, the kind masks and the cells.
    let mut effect_cleared = Vec::with_capacity(effect_count);
    let (colors, kinds, _) = board.parts_mut();
    for (row, &line) in cleared.rows()[..rows].iter().enumerate() {
        if line == 0 {
            continue;
        }
        let effect = line & !in_group.row(row);
        effect_cleared.extend(BitIter(effect).map(|col| Position::new(row as u32, col)));
        let specials = line & masks.specials.row(row);
        masks.remove_row(row, line);
        let cells = &mut colors[row * width..(row + 1) * width];
        for col in BitIter(line) {
            cells[col as usize] = EMPTY;
        }
        // Every other cell's kind is NORMAL already.
        let cells = &mut kinds[row * width..(row + 1) * width];
        for col in BitIter(specials) {
            cells[col as usize] = PieceKind::Normal;
        }
    }
    planes.remove_cells(cleared, rows);
    for special in &created {
        let i = special.position.row as usize * width + special.position.col as usize;
        colors[i] = special.color;
        kinds[i] = special.kind;
        let row = special.position.row as usize;
        masks.place(row, special.position.col, special.kind);
        if special.color != EMPTY {
            planes.add_cell(row, special.position.col, special.color);
        }
    }
    Cleared {
        count,
        rows,
        fired,
        created,
        effect_cleared,
    }
}

/// The special a cleared group creates, by the first rule that applies: a straight run of 5+
/// makes a colour bomb; a horizontal and a vertical run sharing a cell make a wrapped piece; a
/// run of exactly 4 makes a striped piece across it. Placed at the swapped cell the group holds
/// in step 1 of a swap, otherwise at the shape's anchor.
///
/// Works on row masks: the runs of a group are the runs of its colour (from `planes`, the
/// board at the start of the step) inside it, since a run lies wholly in one group. The anchor
/// of rules 1 and 3 is the first cell (row-major) starting a qualifying run, a horizontal run
/// before a vertical one from the same cell.
fn creation(
    planes: &ColorPlanes,
    height: usize,
    group: &Group,
    width: usize,
    trigger: Option<Trigger>,
) -> Option<Special> {
    // Every rule needs a run of 4 or more.
    if group.cells.len() < 4 {
        return None;
    }
    let color = group.color;
    let mut members = CellSet::new();
    for position in &group.cells {
        let row = position.row as usize;
        members.set_row(row, members.row(row) | 1 << position.col);
    }
    let first = group.cells[0].row as usize;
    let last = group.cells[group.cells.len() - 1].row as usize;
    let line = |row: isize| -> u64 {
        if row < 0 {
            0
        } else {
            planes.row_of(color, row as usize)
        }
    };
    // Cells of the group in a horizontal run, and in a vertical run.
    let mut horizontal = CellSet::new();
    let mut vertical = CellSet::new();
    for row in first..=last {
        let r = row as isize;
        let here = line(r);
        let starts = here & (here >> 1) & (here >> 2);
        horizontal.set_row(row, (starts | starts << 1 | starts << 2) & members.row(row));
        let (up2, up1, down1, down2) = (line(r - 2), line(r - 1), line(r + 1), line(r + 2));
        let in_column = (up2 & up1 & here) | (up1 & here & down1) | (here & down1 & down2);
        vertical.set_row(row, in_column & members.row(row));
    }
    let at = |set: &CellSet, row: usize| if row < height { set.row(row) } else { 0 };
    // Run starts of each length class, row by row: (5+ horizontal, 5+ vertical, exactly 4
    // horizontal, exactly 4 vertical).
    let starts_of = |row: usize| -> (u64, u64, u64, u64) {
        let h = horizontal.row(row);
        let h_start = h & !(h << 1);
        let h4 = h_start & (h >> 1) & (h >> 2) & (h >> 3);
        let v = vertical.row(row);
        let v_start = v & !(if row > 0 { vertical.row(row - 1) } else { 0 });
        let v4 = v_start & at(&vertical, row + 1) & at(&vertical, row + 2) & at(&vertical, row + 3);
        let v5 = v4 & at(&vertical, row + 4);
        let h5 = h4 & (h >> 4);
        (h5, v5, h4 & !h5, v4 & !v5)
    };
    let cell_at = |row: usize, mask: u64| row * width + mask.trailing_zeros() as usize;
    let mut shape = None;
    for row in first..=last {
        let (h5, v5, _, _) = starts_of(row);
        if h5 | v5 != 0 {
            shape = Some((PieceKind::ColorBomb, cell_at(row, h5 | v5)));
            break;
        }
    }
    if shape.is_none() {
        shape = (first..=last).find_map(|row| {
            let crossing = horizontal.row(row) & vertical.row(row);
            (crossing != 0).then(|| (PieceKind::Wrapped, cell_at(row, crossing)))
        });
    }
    if shape.is_none() {
        shape = (first..=last).find_map(|row| {
            let (_, _, h4, v4) = starts_of(row);
            let starts = h4 | v4;
            if starts == 0 {
                return None;
            }
            let first_start = starts & starts.wrapping_neg();
            let kind = if h4 & first_start != 0 {
                PieceKind::StripedV
            } else {
                PieceKind::StripedH
            };
            Some((kind, cell_at(row, starts)))
        });
    }
    let (kind, anchor) = shape?;
    let holds = |i: usize| members.row(i / width) >> (i % width) & 1 == 1;
    let cell = trigger
        .and_then(|t| [t.a, t.b].into_iter().find(|&i| holds(i)))
        .unwrap_or(anchor);
    Some(Special {
        position: Position::new((cell / width) as u32, (cell % width) as u32),
        kind,
        color: if kind == PieceKind::ColorBomb {
            EMPTY
        } else {
            color
        },
    })
}

/// Judges the run-free final board (whose colour planes and kind masks are in `scratch`):
/// stable, dead, valid swaps; shuffles a dead board under RANDOM refill with `auto_shuffle`.
fn finish<R: Rng + ?Sized>(
    board: LevelBoard,
    scratch: &Scratch<'_>,
    total_score: u64,
    options: CascadeOptions,
    rng: &mut R,
) -> LevelOutcome {
    // Stable when every non-hole cell holds a tile (the board has no run left).
    let full = u64::MAX >> (64 - board.width());
    let (holes, tiles) = (scratch.holes.rows(), scratch.masks.tiles.rows());
    let stable = (0..board.height()).all(|row| holes[row] | tiles[row] == full);
    debug_assert_eq!(stable, !board.has_empty_cell());
    let mut outcome = LevelOutcome {
        stable,
        board,
        steps: Vec::new(),
        total_score,
        board_before_shuffle: None,
        dead: false,
        valid_swap_count: 0,
    };
    if !outcome.stable {
        return outcome;
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
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONE: CascadeOptions = CascadeOptions {
        refill: Refill::None,
        auto_shuffle: true,
        max_steps: 1000,
    };

    fn p(row: u32, col: u32) -> Position {
        Position::new(row, col)
    }

    fn special(row: u32, col: u32, kind: PieceKind, color: u8) -> Special {
        Special {
            position: p(row, col),
            kind,
            color,
        }
    }

    /// Resolves `text` under NONE refill, after the swap `a`-`b` when given.
    fn run(text: &str, swap: Option<((u32, u32), (u32, u32))>) -> LevelOutcome {
        let level = LevelBoard::parse(text).unwrap();
        let mut rng = crate::rng_from_seed(0);
        match swap {
            Some((a, b)) => {
                let stable = StableLevel::try_from(level).unwrap();
                let swap = Swap::new(p(a.0, a.1), p(b.0, b.1));
                resolve_level_swap(stable, swap, NONE, &mut rng).unwrap()
            }
            None => resolve_level_board(level, NONE, &mut rng).unwrap(),
        }
    }

    use PieceKind::{ColorBomb, StripedH, StripedV, Wrapped};

    #[test]
    fn a_horizontal_four_makes_striped_v_at_the_swapped_cell() {
        let outcome = run("RRYR/GBRB", Some(((0, 2), (1, 2))));
        assert_eq!(outcome.steps.len(), 1);
        let step = &outcome.steps[0];
        assert_eq!(step.groups.len(), 1);
        assert_eq!(step.created, vec![special(0, 2, StripedV, 1)]);
        assert_eq!(step.score, 40);
        assert!(step.fired.is_empty() && step.effect_cleared.is_empty());
        assert_eq!(outcome.board.to_string(), "..R|./GBYB");
    }

    #[test]
    fn l_t_and_plus_make_wrapped_at_the_crossing() {
        let l = run("RGB/RBG/RRR", None);
        assert_eq!(l.steps[0].created, vec![special(2, 0, Wrapped, 1)]);
        assert_eq!(l.steps[0].score, 50);
        assert_eq!(l.board.to_string(), ".../.GB/R+BG");
        let t = run("RRR/GRB/BRG", None);
        assert_eq!(t.steps[0].created, vec![special(0, 1, Wrapped, 1)]);
        assert_eq!(
            t.steps[0].falls,
            vec![Fall {
                from: p(0, 1),
                to: p(2, 1)
            }]
        );
        assert_eq!(t.board.to_string(), ".../G.B/BR+G");
        let plus = run("GRB/RRR/BRG", None);
        assert_eq!(plus.steps[0].created, vec![special(1, 1, Wrapped, 1)]);
        assert_eq!(plus.board.to_string(), ".../G.B/BR+G");
    }

    #[test]
    fn straight_five_six_and_seven_make_a_bomb() {
        for (text, after) in [
            ("RRRRR", "*...."),
            ("GRRRRRR", "G*....."),
            ("RRRRRRR", "*......"),
        ] {
            let outcome = run(text, None);
            assert_eq!(outcome.board.to_string(), after, "{text}");
            let run_start = if text.starts_with('G') { 1 } else { 0 };
            assert_eq!(
                outcome.steps[0].created,
                vec![special(0, run_start, ColorBomb, 0)]
            );
        }
        // From a swap, the bomb lands on the swapped cell of the group.
        let outcome = run("RRGRR/GBRBG", Some(((0, 2), (1, 2))));
        assert_eq!(outcome.steps[0].created, vec![special(0, 2, ColorBomb, 0)]);
        assert_eq!(outcome.steps[0].score, 50);
        assert_eq!(outcome.board.to_string(), "..*../GBGBG");
    }

    #[test]
    fn a_cascade_made_special_lands_on_its_anchor() {
        // Step 1 clears row 2; column 0 then holds Y Y Y Y (rows 1-4): a vertical 4 in step 2,
        // a STRIPED_H at the run's first cell (1,0), which then falls to the bottom.
        let outcome = run("YGB/YBG/RRR/YGB/YBG", None);
        assert_eq!(outcome.steps.len(), 2);
        assert!(outcome.steps[0].created.is_empty());
        assert_eq!(outcome.steps[0].score, 30);
        assert_eq!(outcome.steps[1].created, vec![special(1, 0, StripedH, 4)]);
        assert_eq!(outcome.steps[1].score, 80);
        assert_eq!(outcome.total_score, 110);
        assert_eq!(outcome.board.to_string(), ".../.GB/.BG/.GB/Y-BG");
    }

    #[test]
    fn a_striped_tile_inside_a_group_fires_its_row() {
        let outcome = run("RR-RGB/GBGBR", None);
        let step = &outcome.steps[0];
        assert_eq!(step.fired, vec![special(0, 1, StripedH, 1)]);
        assert_eq!(step.effect_cleared, vec![p(0, 3), p(0, 4)]);
        assert_eq!(step.score, 50);
        assert_eq!(outcome.board.to_string(), "...../GBGBR");
    }

    #[test]
    fn a_wrapped_blast_hits_a_bomb_that_clears_the_most_common_colour() {
        // B is the most common colour (4 tiles) at the start of the step.
        let outcome = run("RR+RG/B*GB/GBBY", None);
        let step = &outcome.steps[0];
        assert_eq!(
            step.fired,
            vec![special(0, 1, Wrapped, 1), special(1, 1, ColorBomb, 0)]
        );
        assert_eq!(
            step.effect_cleared,
            vec![p(1, 0), p(1, 1), p(1, 2), p(1, 3), p(2, 1), p(2, 2)]
        );
        assert_eq!(step.score, 90);
        assert_eq!(outcome.board.to_string(), "..../...G/G..Y");
    }

    #[test]
    fn bomb_and_normal_clears_the_colour() {
        let outcome = run("*RG/GBR/RGB", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert!(step.groups.is_empty() && step.fired.is_empty());
        assert_eq!(
            step.effect_cleared,
            vec![p(0, 0), p(0, 1), p(1, 2), p(2, 0)]
        );
        assert_eq!(step.score, 40);
        assert_eq!(outcome.board.to_string(), ".../.BG/GGB");
    }

    #[test]
    fn bomb_and_striped_fires_the_colour_as_striped_by_parity() {
        let outcome = run("*R-G/GBR/RGB", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert_eq!(
            step.fired,
            vec![special(1, 2, StripedV, 1), special(2, 0, StripedH, 1)]
        );
        assert_eq!(step.score, 70);
        assert_eq!(outcome.board.to_string(), ".../.../GB.");
    }

    #[test]
    fn bomb_and_wrapped_fires_the_colour_as_wrapped() {
        let outcome = run("*R+G/GBR/RGB", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert_eq!(
            step.fired,
            vec![special(1, 2, Wrapped, 1), special(2, 0, Wrapped, 1)]
        );
        assert_eq!(step.score, 90);
        assert_eq!(outcome.board.to_string(), ".../.../...");
        assert!(!outcome.stable);
    }

    #[test]
    fn bomb_and_bomb_clears_every_tile_and_fires_the_specials() {
        let outcome = run("**G/GBR/RGB-", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert_eq!(step.fired, vec![special(2, 2, StripedH, 3)]);
        assert_eq!(step.score, 90);
        assert_eq!(outcome.board.to_string(), ".../.../...");
    }

    #[test]
    fn striped_and_striped_clear_the_row_and_column_through_b() {
        let outcome = run("RGBY/GR-G-B/BYRG/YBYR", Some(((1, 1), (1, 2))));
        let step = &outcome.steps[0];
        assert!(step.fired.is_empty());
        assert_eq!(
            step.effect_cleared,
            vec![
                p(0, 2),
                p(1, 0),
                p(1, 1),
                p(1, 2),
                p(1, 3),
                p(2, 2),
                p(3, 2)
            ]
        );
        assert_eq!(step.score, 70);
        assert_eq!(outcome.board.to_string(), "..../RG.Y/BY.G/YB.R");
    }

    #[test]
    fn striped_and_wrapped_clear_three_rows_and_three_columns() {
        let outcome = run("RGBYP/BYPRG/PR-G+BY/GBYPR/YPRGB", Some(((2, 1), (2, 2))));
        assert_eq!(outcome.steps[0].score, 210);
        assert_eq!(outcome.board.to_string(), "...../...../...../R...P/Y...B");
    }

    #[test]
    fn wrapped_and_wrapped_clear_the_five_by_five_square_on_b() {
        let outcome = run("RGBYP/BYPRG/PR+G+BY/GBYPR/YPRGB", Some(((2, 2), (2, 1))));
        assert_eq!(outcome.steps[0].score, 200);
        assert_eq!(outcome.board.to_string(), "....P/....G/....Y/....R/....B");
    }

    #[test]
    fn a_striped_column_fires_through_a_hole() {
        let outcome = run("GYB/B#G/RR|R/GBY", None);
        let step = &outcome.steps[0];
        assert_eq!(step.fired, vec![special(2, 1, StripedV, 1)]);
        assert_eq!(step.effect_cleared, vec![p(0, 1), p(3, 1)]);
        assert_eq!(step.score, 50);
        assert_eq!(outcome.board.to_string(), ".../G#B/B.G/G.Y");
    }

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
        let level = LevelBoard::parse("R.#/#../..G/G#.").unwrap();
        let options = CascadeOptions {
            refill: Refill::Random { colors: 5 },
            ..NONE
        };
        let outcome =
            resolve_level_board(level.clone(), options, &mut crate::rng_from_seed(9)).unwrap();
        assert!(outcome.stable);
        assert_eq!(outcome.board.holes(), level.holes());
        assert!(crate::level::is_level_stable(&outcome.board));
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
