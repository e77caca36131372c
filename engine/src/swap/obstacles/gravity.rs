//! Gravity with fixed cells (docs/rules.md section 8): falls within a column's segments, refill
//! of the top segments, one diagonal slide per round, repeated until nothing changes; then the
//! ingredients standing on exits leave and the board settles again.

use rand::Rng;

use crate::board::{EMPTY, Position};
use crate::gravity::{Fall, Spawn};
use crate::swap::level_layers::ObstacleBoard;
use crate::swap::pieces::PieceKind;

/// What settling a board did, in time order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Settled {
    /// Every move: each round's straight falls (by source cell, row-major), then its slide.
    pub(crate) falls: Vec<Fall>,
    /// The spawns, in draw order.
    pub(crate) spawns: Vec<Spawn>,
    /// The ingredients collected at exits, in time order (row-major within one pass).
    pub(crate) collected: Vec<Position>,
}

impl Settled {
    /// True when nothing fell, spawned or left.
    pub(crate) fn is_empty(&self) -> bool {
        self.falls.is_empty() && self.spawns.is_empty() && self.collected.is_empty()
    }
}

/// An upper bound on the rounds of one settling, far above what the rules allow (each slide
/// moves an empty slot one row up); reaching it would be an engine bug, and stops the loop
/// rather than hanging.
const MAX_ROUNDS: usize = 64 * 64 * 64;

/// Settles `board`: rounds of falls, refill (from `1..=colors` with `refill`, none without)
/// and one slide, until nothing changes; then collects the ingredients on exits and settles
/// again, until none stands on an exit. Appends what happened to `settled`.
pub(crate) fn settle<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    mut refill: Option<(u8, &mut R)>,
    settled: &mut Settled,
) {
    loop {
        settle_rounds(board, &mut refill, settled);
        let on_exit: Vec<usize> = (0..board.level().len())
            .filter(|&i| board.exits()[i] && board.level().kind(i) == PieceKind::Ingredient)
            .collect();
        if on_exit.is_empty() {
            return;
        }
        let width = board.level().width();
        let (_, kinds, _, _, _) = board.parts_mut();
        for index in on_exit {
            kinds[index] = PieceKind::Normal;
            settled.collected.push(position(index, width));
        }
    }
}

fn position(index: usize, width: usize) -> Position {
    Position::new((index / width) as u32, (index % width) as u32)
}

/// The rounds of [`settle`], without the collection.
fn settle_rounds<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    refill: &mut Option<(u8, &mut R)>,
    settled: &mut Settled,
) {
    for _ in 0..MAX_ROUNDS {
        let mut changed = fall(board, &mut settled.falls);
        if let Some((colors, rng)) = refill {
            changed |= refill_top_segments(board, *colors, &mut **rng, &mut settled.spawns);
        }
        changed |= slide(board, &mut settled.falls);
        if !changed {
            return;
        }
    }
    debug_assert!(false, "settling did not end within {MAX_ROUNDS} rounds");
}

/// Moves the piece of `from` to the empty cell `to`.
fn move_piece(board: &mut ObstacleBoard, from: usize, to: usize) {
    let (colors, kinds, _, _, _) = board.parts_mut();
    colors[to] = colors[from];
    kinds[to] = kinds[from];
    colors[from] = EMPTY;
    kinds[from] = PieceKind::Normal;
}

/// Step 1 of a round: in each segment of each column (its runs of non-fixed cells between fixed
/// cells; holes are passed through), the pieces move to the lowest empty slots keeping their
/// order. Appends the falls, by source cell row-major; true when a piece moved.
fn fall(board: &mut ObstacleBoard, falls: &mut Vec<Fall>) -> bool {
    let (width, height) = (board.level().width(), board.level().height());
    let first = falls.len();
    for col in 0..width {
        let mut bottom = height;
        while bottom > 0 {
            // The segment is rows `top..bottom`, above the fixed cell at `bottom` (or the edge).
            let mut top = bottom;
            while top > 0 && !board.is_fixed((top - 1) * width + col) {
                top -= 1;
            }
            let mut target = bottom;
            for row in (top..bottom).rev() {
                let index = row * width + col;
                if board.level().is_hole(index) || !board.is_piece(index) {
                    continue;
                }
                target -= 1;
                while board.level().is_hole(target * width + col) {
                    target -= 1;
                }
                if target != row {
                    move_piece(board, index, target * width + col);
                    falls.push(Fall {
                        from: Position::new(row as u32, col as u32),
                        to: Position::new(target as u32, col as u32),
                    });
                }
            }
            // Past the fixed cell above the segment.
            bottom = top.saturating_sub(1);
        }
    }
    falls[first..].sort_unstable_by_key(|fall| fall.from);
    falls.len() > first
}

/// Step 2 of a round: fills the empty slots of each column's top segment (no fixed cell above
/// them), row-major across the board, one draw from `1..=colors` each. True when any spawned.
fn refill_top_segments<R: Rng + ?Sized>(
    board: &mut ObstacleBoard,
    colors: u8,
    rng: &mut R,
    spawns: &mut Vec<Spawn>,
) -> bool {
    let (width, height) = (board.level().width(), board.level().height());
    let mut below_fixed = vec![false; width];
    let first = spawns.len();
    for row in 0..height {
        for (col, below) in below_fixed.iter_mut().enumerate() {
            let index = row * width + col;
            if board.is_fixed(index) {
                *below = true;
                continue;
            }
            if *below || board.level().is_hole(index) || board.is_piece(index) {
                continue;
            }
            let color = rng.random_range(1..=colors);
            let (cells, kinds, _, _, _) = board.parts_mut();
            cells[index] = color;
            kinds[index] = PieceKind::Normal;
            spawns.push(Spawn {
                position: position(index, width),
                color,
            });
        }
    }
    spawns.len() > first
}

/// Step 3 of a round: the first empty slot, scanning rows bottom to top and left to right, that
/// has a fixed cell above it in its column and a movable piece at its upper-left neighbour,
/// else at its upper-right one, takes that piece. True when a piece slid.
fn slide(board: &mut ObstacleBoard, falls: &mut Vec<Fall>) -> bool {
    let (width, height) = (board.level().width(), board.level().height());
    // By column, the first row holding a fixed cell (height when none).
    let first_fixed: Vec<usize> = (0..width)
        .map(|col| {
            (0..height)
                .find(|&row| board.is_fixed(row * width + col))
                .unwrap_or(height)
        })
        .collect();
    for row in (1..height).rev() {
        for (col, &fixed_row) in first_fixed.iter().enumerate() {
            let index = row * width + col;
            if fixed_row >= row
                || board.level().is_hole(index)
                || board.is_fixed(index)
                || board.is_piece(index)
            {
                continue;
            }
            let above = row - 1;
            let source = [col.checked_sub(1), Some(col + 1).filter(|&c| c < width)]
                .into_iter()
                .flatten()
                .map(|c| above * width + c)
                .find(|&i| !board.level().is_hole(i) && board.is_movable(i));
            if let Some(from) = source {
                move_piece(board, from, index);
                falls.push(Fall {
                    from: position(from, width),
                    to: position(index, width),
                });
                return true;
            }
        }
    }
    false
}

/// True when settling `board` under the refill mode (`random`: RANDOM refill) would change
/// nothing: no piece can fall or slide, no top-segment slot is empty under RANDOM, and no
/// ingredient stands on an exit.
pub(crate) fn settles_unchanged(board: &ObstacleBoard, random: bool) -> bool {
    let mut copy = board.clone();
    let mut settled = Settled::default();
    // Any colour will do: only whether something spawns matters.
    let mut rng = crate::rng_from_seed(0);
    let refill = random.then_some((1u8, &mut rng));
    settle(&mut copy, refill, &mut settled);
    settled.is_empty()
}
