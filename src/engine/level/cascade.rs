//! The level cascade (docs/rules.md section 6): combinations, firing chains, creation of
//! specials, gravity through holes and refill, cell by cell.

use std::collections::VecDeque;
use std::ops::ControlFlow;

use rand::Rng;

use super::arrange::shuffle_level;
use super::rules::{
    Combination, exchange, judge_level_swap, level_gravity, level_refill, valid_swaps_of,
};
use super::{LevelBoard, PieceKind, Special, StableLevel};
use crate::engine::board::{Board, EMPTY, MAX_COLOR, Position};
use crate::engine::cascade::{CascadeOptions, Refill};
use crate::engine::error::EngineError;
use crate::engine::gravity::{Fall, Spawn};
use crate::engine::moves::{Swap, SwapVerdict};
use crate::engine::runs::{Group, find_groups};

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
/// [`crate::engine::StepSink`] for plain boards): a caller can measure them, or stop a cascade
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
    let mut board = level.into_level();
    board.board().checked_index("swap.a", swap.a)?;
    board.board().checked_index("swap.b", swap.b)?;
    let (a, b) = indices(&board, swap);
    exchange(&mut board, a, b);
    let trigger = Trigger { a, b, combination };
    let total_score = cascade(&mut board, Some(trigger), 0, sink, options, rng)?;
    Ok(finish(board, Vec::new(), total_score, options, rng))
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
    let total_score = cascade(&mut board, None, settling_steps, sink, options, rng)?;
    Ok(finish(board, Vec::new(), total_score, options, rng))
}

/// The cascade loop: step 1 of a combination clears its area; every other step clears the
/// groups; each step fires the specials it cleared, creates specials, applies gravity and
/// refill. Runs while the board has a run.
fn cascade<R: Rng + ?Sized, S: LevelStepSink + ?Sized>(
    board: &mut LevelBoard,
    mut trigger: Option<Trigger>,
    first_index: u32,
    sink: &mut S,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<u64, EngineError> {
    let mut index = first_index;
    let mut total_score = 0;
    loop {
        let this_trigger = trigger.take();
        let combination = this_trigger.and_then(|t| t.combination.map(|c| (t, c)));
        let groups = if combination.is_some() {
            Vec::new()
        } else {
            find_groups(board.board())
        };
        if groups.is_empty() && combination.is_none() {
            return Ok(total_score);
        }
        index += 1;
        if index > options.max_steps {
            return Err(EngineError::CascadeLimitExceeded {
                max_steps: options.max_steps,
            });
        }
        let cleared = clear_step(board, &groups, this_trigger, combination);
        let score = 10 * u64::from(index) * cleared.count as u64;
        total_score += score;
        let falls = level_gravity(board);
        let spawns = match options.refill {
            Refill::Random { colors } => level_refill(board, colors, rng),
            Refill::None => Vec::new(),
        };
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

/// What the clearing part of a step did.
struct Cleared {
    count: usize,
    fired: Vec<Special>,
    created: Vec<Special>,
    effect_cleared: Vec<Position>,
}

/// The cells of `area`, row-major, that hold a tile on the board `start`.
fn tiles_in(start: &LevelBoard, mut area: impl FnMut(usize, usize) -> bool) -> Vec<usize> {
    let width = start.width();
    (0..start.len())
        .filter(|&i| start.is_tile(i) && area(i / width, i % width))
        .collect()
}

/// The most common colour among the tiles of `start` (ties: the lowest), or `None` when it has
/// no coloured tile.
fn most_common_color(start: &LevelBoard) -> Option<u8> {
    let mut counts = [0usize; MAX_COLOR as usize + 1];
    for &color in start.board().cells() {
        counts[usize::from(color)] += 1;
    }
    let mut best = None;
    for color in 1..=MAX_COLOR {
        let count = counts[usize::from(color)];
        if count > 0 && best.is_none_or(|(_, c)| count > c) {
            best = Some((color, count));
        }
    }
    best.map(|(color, _)| color)
}

/// The cells a special of `kind` at `cell` clears when it fires, row-major, on the board
/// `start` (tiles only); `bomb_color` is the colour a bomb fires on.
fn firing_area(
    start: &LevelBoard,
    cell: usize,
    kind: PieceKind,
    bomb_color: Option<u8>,
) -> Vec<usize> {
    let width = start.width();
    let (row, col) = ((cell / width) as isize, (cell % width) as isize);
    match kind {
        PieceKind::Normal => Vec::new(),
        PieceKind::StripedH => tiles_in(start, |r, _| r as isize == row),
        PieceKind::StripedV => tiles_in(start, |_, c| c as isize == col),
        PieceKind::Wrapped => tiles_in(start, |r, c| {
            (r as isize - row).abs() <= 1 && (c as isize - col).abs() <= 1
        }),
        PieceKind::ColorBomb => match bomb_color {
            Some(color) => (0..start.len())
                .filter(|&i| start.color(i) == color)
                .collect(),
            None => Vec::new(),
        },
    }
}

/// Clears one step on `board` (the board at the start of the step): the groups, or the
/// combination's area; then every special so cleared fires, in queue order, until none is
/// left; then the groups' specials are created. Returns the counts and events.
fn clear_step(
    board: &mut LevelBoard,
    groups: &[Group],
    trigger: Option<Trigger>,
    combination: Option<(Trigger, Combination)>,
) -> Cleared {
    let start = board.clone();
    let (width, size) = (start.width(), start.len());
    let mut cleared = vec![false; size];
    // Cells whose special has been queued (or, for a combination's two tiles, consumed).
    let mut queued = vec![false; size];
    // The kind each cell fires as when it differs from its own (bomb + striped / wrapped).
    let mut fire_as: Vec<Option<PieceKind>> = vec![None; size];
    let mut in_group = vec![false; size];
    for group in groups {
        for &position in &group.cells {
            let i = position.row as usize * width + position.col as usize;
            cleared[i] = true;
            in_group[i] = true;
        }
    }
    if let Some((trigger, combination)) = combination {
        let (a, b) = (trigger.a, trigger.b);
        cleared[a] = true;
        cleared[b] = true;
        queued[a] = true;
        queued[b] = true;
        let (b_row, b_col) = ((b / width) as isize, (b % width) as isize);
        // The colour of the non-bomb tile (both are at their swapped places now).
        let c = if start.kind(a) == PieceKind::ColorBomb {
            start.color(b)
        } else {
            start.color(a)
        };
        let area: Vec<usize> = match combination {
            Combination::BombNormal | Combination::BombStriped | Combination::BombWrapped => {
                (0..size).filter(|&i| start.color(i) == c).collect()
            }
            Combination::BombBomb => tiles_in(&start, |_, _| true),
            Combination::StripedStriped => {
                tiles_in(&start, |r, c| r as isize == b_row || c as isize == b_col)
            }
            Combination::StripedWrapped => tiles_in(&start, |r, c| {
                (r as isize - b_row).abs() <= 1 || (c as isize - b_col).abs() <= 1
            }),
            Combination::WrappedWrapped => tiles_in(&start, |r, c| {
                (r as isize - b_row).abs() <= 2 && (c as isize - b_col).abs() <= 2
            }),
        };
        for i in area {
            cleared[i] = true;
            fire_as[i] = match combination {
                Combination::BombStriped if (i / width + i % width) % 2 == 0 => {
                    Some(PieceKind::StripedH)
                }
                Combination::BombStriped => Some(PieceKind::StripedV),
                Combination::BombWrapped => Some(PieceKind::Wrapped),
                _ => None,
            };
        }
    }
    // The queue, seeded row-major with everything cleared so far that fires.
    let mut queue: VecDeque<(usize, PieceKind)> = VecDeque::new();
    for i in 0..size {
        if cleared[i] && !queued[i] {
            let kind = fire_as[i].unwrap_or(start.kind(i));
            if kind.is_special() {
                queued[i] = true;
                queue.push_back((i, kind));
            }
        }
    }
    let bomb_color = most_common_color(&start);
    let mut fired = Vec::new();
    while let Some((cell, kind)) = queue.pop_front() {
        fired.push(Special {
            position: start.board().position_of(cell),
            kind,
            color: start.color(cell),
        });
        for i in firing_area(&start, cell, kind, bomb_color) {
            if cleared[i] {
                continue;
            }
            cleared[i] = true;
            if start.kind(i).is_special() && !queued[i] {
                queued[i] = true;
                queue.push_back((i, start.kind(i)));
            }
        }
    }
    let count = cleared.iter().filter(|&&c| c).count();
    let effect_cleared = (0..size)
        .filter(|&i| cleared[i] && !in_group[i])
        .map(|i| start.board().position_of(i))
        .collect();
    let mut created: Vec<Special> = groups
        .iter()
        .filter_map(|group| creation(&start, group, trigger))
        .collect();
    created.sort_unstable_by_key(|special| special.position);
    let (colors, kinds, _) = board.parts_mut();
    for i in (0..size).filter(|&i| cleared[i]) {
        colors[i] = EMPTY;
        kinds[i] = PieceKind::Normal;
    }
    for special in &created {
        let i = special.position.row as usize * width + special.position.col as usize;
        colors[i] = special.color;
        kinds[i] = special.kind;
    }
    Cleared {
        count,
        fired,
        created,
        effect_cleared,
    }
}

/// A maximal line of 3+ cells of one colour: its cells in order, and its direction.
struct Run {
    cells: Vec<usize>,
    horizontal: bool,
}

/// The runs of `board` whose cells all lie in `members`, ordered by first cell (row-major;
/// a horizontal run before a vertical one from the same cell).
fn runs_within(board: &Board, members: &[bool]) -> Vec<Run> {
    let (width, height) = (board.width(), board.height());
    let mut runs = Vec::new();
    let mut scan = |line: Vec<usize>, horizontal: bool| {
        let mut start = 0;
        while start < line.len() {
            let color = board.at(line[start]);
            let mut end = start + 1;
            while end < line.len() && board.at(line[end]) == color {
                end += 1;
            }
            if color != EMPTY && end - start >= 3 && members[line[start]] {
                runs.push(Run {
                    cells: line[start..end].to_vec(),
                    horizontal,
                });
            }
            start = end;
        }
    };
    for row in 0..height {
        scan((0..width).map(|c| row * width + c).collect(), true);
    }
    for col in 0..width {
        scan((0..height).map(|r| r * width + col).collect(), false);
    }
    runs.sort_by_key(|run| (run.cells[0], !run.horizontal));
    runs
}

/// The special a cleared group creates, by the first rule that applies: a straight run of 5+
/// makes a colour bomb; a horizontal and a vertical run sharing a cell make a wrapped piece; a
/// run of exactly 4 makes a striped piece across it. Placed at the swapped cell the group holds
/// in step 1 of a swap, otherwise at the shape's anchor.
fn creation(start: &LevelBoard, group: &Group, trigger: Option<Trigger>) -> Option<Special> {
    let board = start.board();
    let width = board.width();
    let mut members = vec![false; start.len()];
    for position in &group.cells {
        members[position.row as usize * width + position.col as usize] = true;
    }
    let runs = runs_within(board, &members);
    let mut in_h = vec![false; start.len()];
    let mut in_v = vec![false; start.len()];
    for run in &runs {
        for &i in &run.cells {
            if run.horizontal {
                in_h[i] = true;
            } else {
                in_v[i] = true;
            }
        }
    }
    let crossing = (0..start.len()).find(|&i| in_h[i] && in_v[i]);
    let (kind, anchor) = if let Some(run) = runs.iter().find(|run| run.cells.len() >= 5) {
        (PieceKind::ColorBomb, run.cells[0])
    } else if let Some(cell) = crossing {
        (PieceKind::Wrapped, cell)
    } else if let Some(run) = runs.iter().find(|run| run.cells.len() == 4) {
        let kind = if run.horizontal {
            PieceKind::StripedV
        } else {
            PieceKind::StripedH
        };
        (kind, run.cells[0])
    } else {
        return None;
    };
    let cell = trigger
        .and_then(|t| [t.a, t.b].into_iter().find(|&i| members[i]))
        .unwrap_or(anchor);
    Some(Special {
        position: board.position_of(cell),
        kind,
        color: if kind == PieceKind::ColorBomb {
            EMPTY
        } else {
            group.color
        },
    })
}

/// Judges the run-free final board: stable, dead, valid swaps; shuffles a dead board under
/// RANDOM refill with `auto_shuffle`.
fn finish<R: Rng + ?Sized>(
    board: LevelBoard,
    steps: Vec<LevelStep>,
    total_score: u64,
    options: CascadeOptions,
    rng: &mut R,
) -> LevelOutcome {
    let mut outcome = LevelOutcome {
        stable: !board.has_empty_cell(),
        board,
        steps,
        total_score,
        board_before_shuffle: None,
        dead: false,
        valid_swap_count: 0,
    };
    if !outcome.stable {
        return outcome;
    }
    outcome.valid_swap_count = valid_swaps_of(&outcome.board, usize::MAX).len();
    outcome.dead = outcome.valid_swap_count == 0;
    let may_shuffle = matches!(options.refill, Refill::Random { .. }) && options.auto_shuffle;
    // No playable permutation is not an error here: the move itself was legal.
    if outcome.dead
        && may_shuffle
        && let Ok(shuffled) = shuffle_level(&outcome.board, rng)
    {
        let shuffled = shuffled.into_level();
        outcome.valid_swap_count = valid_swaps_of(&shuffled, usize::MAX).len();
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
        let mut rng = crate::engine::rng_from_seed(0);
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
            resolve_level_board(level.clone(), options, &mut crate::engine::rng_from_seed(9))
                .unwrap();
        assert!(outcome.stable);
        assert_eq!(outcome.board.holes(), level.holes());
        assert!(crate::engine::level::is_level_stable(&outcome.board));
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
