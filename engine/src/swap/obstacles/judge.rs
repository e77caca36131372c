//! Swaps on boards with level layers (docs/rules.md section 8): the verdict with `BLOCKED` and
//! ingredients, and the valid swaps, pair by pair.

use crate::board::Position;
use crate::moves::{Swap, SwapVerdict, swap_makes_match};
use crate::swap::level::{Combination, judge_level_swap};
use crate::swap::level_layers::ObstacleBoard;
use crate::swap::pieces::PieceKind;

/// Judges `swap` in the order OUT_OF_BOUNDS, HOLE, BLOCKED (a blocker or a locked tile at `a`
/// or `b`), NOT_ADJACENT, EMPTY_CELL, then as section 6 does. A swap with an ingredient is
/// valid only when the other tile makes a run where it lands (an ingredient is not a special:
/// a colour bomb swapped with one is NO_MATCH). Returns the combination of an OK swap.
pub(crate) fn judge_obstacle_swap(
    board: &ObstacleBoard,
    swap: Swap,
) -> (SwapVerdict, Option<Combination>) {
    let level = board.level();
    let colors = level.board();
    let (Some(a), Some(b)) = (colors.index_of(swap.a), colors.index_of(swap.b)) else {
        return (SwapVerdict::OutOfBounds, None);
    };
    if level.is_hole(a) || level.is_hole(b) {
        return (SwapVerdict::Hole, None);
    }
    if board.is_fixed(a) || board.is_fixed(b) {
        return (SwapVerdict::Blocked, None);
    }
    let ingredient =
        level.kind(a) == PieceKind::Ingredient || level.kind(b) == PieceKind::Ingredient;
    if !ingredient {
        return judge_level_swap(level, swap);
    }
    if swap.a.row.abs_diff(swap.b.row) + swap.a.col.abs_diff(swap.b.col) != 1 {
        return (SwapVerdict::NotAdjacent, None);
    }
    if !board.is_piece(a) || !board.is_piece(b) {
        return (SwapVerdict::EmptyCell, None);
    }
    // An ingredient has no colour (0 in the colours): only the other tile can make a run.
    if swap_makes_match(colors.cells(), colors.width(), colors.height(), a, b) {
        (SwapVerdict::Ok, None)
    } else {
        (SwapVerdict::NoMatch, None)
    }
}

/// The swap of the pair `pair` of a `width`-column board: pair `2i` is cell `i` with its
/// right neighbour, pair `2i + 1` with the one below (`None` past the board's edge).
fn pair_swap(pair: usize, width: usize, height: usize) -> Option<Swap> {
    let (index, down) = (pair / 2, pair % 2 == 1);
    let (row, col) = (index / width, index % width);
    let other = if down {
        (row + 1 < height).then(|| Position::new(row as u32 + 1, col as u32))
    } else {
        (col + 1 < width).then(|| Position::new(row as u32, col as u32 + 1))
    }?;
    Some(Swap::new(Position::new(row as u32, col as u32), other))
}

/// Every valid swap once, as `(a, b)` with `a` before `b` in row-major order, sorted by `a`
/// then `b` (the right neighbour before the one below), each with its combination.
pub(crate) fn obstacle_valid_swaps(board: &ObstacleBoard) -> Vec<(Swap, Option<Combination>)> {
    let (width, height) = (board.level().width(), board.level().height());
    (0..2 * width * height)
        .filter_map(|pair| pair_swap(pair, width, height))
        .filter_map(|swap| match judge_obstacle_swap(board, swap) {
            (SwapVerdict::Ok, combination) => Some((swap, combination)),
            _ => None,
        })
        .collect()
}

/// The first valid swap in [`obstacle_valid_swaps`] order, starting at pair `start` (pair `2i`
/// is cell `i` with its right neighbour, `2i + 1` with the one below) and wrapping around.
pub(crate) fn first_obstacle_swap_from(board: &ObstacleBoard, start: usize) -> Option<Swap> {
    let (width, height) = (board.level().width(), board.level().height());
    let pairs = 2 * width * height;
    (0..pairs)
        .filter_map(|k| pair_swap((start + k) % pairs, width, height))
        .find(|&swap| judge_obstacle_swap(board, swap).0 == SwapVerdict::Ok)
}

/// True when `board` has a valid swap.
pub(crate) fn has_obstacle_swap(board: &ObstacleBoard) -> bool {
    first_obstacle_swap_from(board, 0).is_some()
}

/// [`judge_obstacle_swap`], with the groups step 1 would clear (none for a combination or an
/// illegal swap).
pub(crate) fn preview_obstacle_swap(
    board: &ObstacleBoard,
    swap: Swap,
) -> (SwapVerdict, Option<Combination>, Vec<crate::runs::Group>) {
    match judge_obstacle_swap(board, swap) {
        (SwapVerdict::Ok, None) => {
            let mut after = board.level().clone();
            let width = after.width();
            let index = |p: Position| p.row as usize * width + p.col as usize;
            crate::swap::level::exchange(&mut after, index(swap.a), index(swap.b));
            (
                SwapVerdict::Ok,
                None,
                crate::runs::find_groups(after.board()),
            )
        }
        (verdict, combination) => (verdict, combination, Vec::new()),
    }
}
