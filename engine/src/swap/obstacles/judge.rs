//! Swaps on boards with level layers (docs/rules.md section 8): the verdict with `BLOCKED` and
//! ingredients, and the valid swaps, pair by pair.

use crate::bitboard::{BitIter, ColorPlanes, pack_sparse_rows};
use crate::board::Position;
use crate::moves::{Swap, SwapVerdict, swap_makes_match};
use crate::swap::level::{
    Combination, KindMasks, judge_level_swap, level_swap_masks, packed_level_swap_masks,
    push_row_swaps,
};
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

/// The valid swaps of each row, as two masks per row (bit `c` of `right[r]` is the swap
/// `(r, c)-(r, c + 1)`, of `down[r]` the swap `(r, c)-(r + 1, c)`): the section 6 masks of
/// the colour planes and kind masks, with the swaps of an ingredient and a tile that makes a
/// run where it lands, without the pairs that touch a fixed cell.
fn valid_swap_masks(board: &ObstacleBoard) -> (Vec<u64>, Vec<u64>) {
    let planes = ColorPlanes::of(board.level().board());
    let masks = KindMasks::of(board.level(), &planes);
    let level = board.level();
    let (width, height) = (level.width(), level.height());
    let mut fixed = vec![0u64; height];
    let mut ingredients = vec![0u64; height];
    for index in 0..level.len() {
        let (row, col) = (index / width, index % width);
        if board.is_fixed(index) {
            fixed[row] |= 1 << col;
        }
        if level.kind(index) == PieceKind::Ingredient {
            ingredients[row] |= 1 << col;
        }
    }
    valid_swap_masks_with(board, (&planes, &masks), (&fixed, &ingredients))
}

/// [`valid_swap_masks`] with the board's colour planes and kind masks, and its fixed cells and
/// ingredients as row masks, at hand.
pub(super) fn valid_swap_masks_with(
    board: &ObstacleBoard,
    (planes, masks): (&ColorPlanes, &KindMasks),
    (fixed, ingredients): (&[u64], &[u64]),
) -> (Vec<u64>, Vec<u64>) {
    let height = board.level().height();
    let below = |rows: &[u64], row: usize| rows.get(row + 1).copied().unwrap_or(0);
    let mut right = vec![0u64; height];
    let mut down = vec![0u64; height];
    for row in 0..height {
        let (r, d) = level_swap_masks(planes, masks, (row, height), ingredients);
        let free = !fixed[row];
        right[row] = r & free & (free >> 1);
        down[row] = d & free & !below(fixed, row);
    }
    debug_assert!(
        ingredient_swaps_agree_with_the_verdicts(board, ingredients, (&right, &down)),
        "an ingredient swap the masks and the verdicts disagree on"
    );
    (right, down)
}

/// True when every swap of an ingredient is in the masks `right` and `down` exactly when
/// [`judge_obstacle_swap`] finds it OK (a check of the masks in debug builds).
fn ingredient_swaps_agree_with_the_verdicts(
    board: &ObstacleBoard,
    ingredients: &[u64],
    (right, down): (&[u64], &[u64]),
) -> bool {
    let level = board.level();
    let (width, height) = (level.width(), level.height());
    let full = u64::MAX >> (64 - width);
    (0..height).all(|row| {
        let line = ingredients[row];
        let below = ingredients.get(row + 1).copied().unwrap_or(0);
        let pairs = [
            ((line | line >> 1) & (full >> 1), right[row], 0, 1),
            (line | below, down[row], 1, 0),
        ];
        pairs.into_iter().all(|(candidates, mask, dr, dc)| {
            row + dr >= height
                || BitIter(candidates & full).all(|col| {
                    let a = Position::new(row as u32, col);
                    let b = Position::new((row + dr) as u32, col + dc);
                    let ok = judge_obstacle_swap(board, Swap::new(a, b)).0 == SwapVerdict::Ok;
                    ok == (mask >> col & 1 == 1)
                })
        })
    })
}

/// The number of valid swaps of `board`, its bitboards and its fixed cells and ingredients (as
/// row masks) at hand: the whole board at once when it fits one packed word.
pub(super) fn count_obstacle_swaps_with(
    board: &ObstacleBoard,
    (planes, masks): (&ColorPlanes, &KindMasks),
    (fixed, ingredients): (&[u64], &[u64]),
) -> usize {
    let level = board.level();
    let (width, height) = (level.width(), level.height());
    let Some((right, down)) = packed_level_swap_masks(planes, masks, (width, height), ingredients)
    else {
        let (right, down) = valid_swap_masks_with(board, (planes, masks), (fixed, ingredients));
        return count(&right, &down);
    };
    let stride = width + 1;
    let free = !pack_sparse_rows(fixed, stride);
    let right = right & free & (free >> 1);
    let down = down & free & (free >> stride);
    let total = (right.count_ones() + down.count_ones()) as usize;
    debug_assert_eq!(total, {
        let (right, down) = valid_swap_masks_with(board, (planes, masks), (fixed, ingredients));
        count(&right, &down)
    });
    total
}

/// Every valid swap once, as `(a, b)` with `a` before `b` in row-major order, sorted by `a`
/// then `b` (the right neighbour before the one below), each with its combination.
pub(crate) fn obstacle_valid_swaps(board: &ObstacleBoard) -> Vec<(Swap, Option<Combination>)> {
    let (right, down) = valid_swap_masks(board);
    swaps_of_masks(board, (&right, &down))
}

/// [`obstacle_valid_swaps`] with the board's bitboards at hand, as for
/// [`count_obstacle_swaps_with`].
pub(super) fn obstacle_valid_swaps_with(
    board: &ObstacleBoard,
    bits: (&ColorPlanes, &KindMasks),
    rows: (&[u64], &[u64]),
) -> Vec<(Swap, Option<Combination>)> {
    let (right, down) = valid_swap_masks_with(board, bits, rows);
    swaps_of_masks(board, (&right, &down))
}

/// The swaps of the masks of [`valid_swap_masks`], in [`obstacle_valid_swaps`] order.
fn swaps_of_masks(
    board: &ObstacleBoard,
    (right, down): (&[u64], &[u64]),
) -> Vec<(Swap, Option<Combination>)> {
    let mut swaps = Vec::new();
    for (row, (&r, &d)) in right.iter().zip(down).enumerate() {
        push_row_swaps(board.level(), row, (r, d), (&mut swaps, usize::MAX));
    }
    swaps
}

/// The number of valid swaps.
pub(crate) fn count_obstacle_swaps(board: &ObstacleBoard) -> usize {
    let (right, down) = valid_swap_masks(board);
    count(&right, &down)
}

/// The number of swaps in the masks of [`valid_swap_masks`].
pub(super) fn count(right: &[u64], down: &[u64]) -> usize {
    right
        .iter()
        .chain(down)
        .map(|mask| mask.count_ones() as usize)
        .sum()
}

/// The first valid swap in [`obstacle_valid_swaps`] order, starting at pair `start` (pair `2i`
/// is cell `i` with its right neighbour, `2i + 1` with the one below) and wrapping around.
pub(crate) fn first_obstacle_swap_from(board: &ObstacleBoard, start: usize) -> Option<Swap> {
    let width = board.level().width();
    let start = start % (2 * board.level().len());
    let number = |swap: &Swap| {
        let a = swap.a.row as usize * width + swap.a.col as usize;
        2 * a + usize::from(swap.b.row > swap.a.row)
    };
    let swaps = obstacle_valid_swaps(board);
    swaps
        .iter()
        .map(|(swap, _)| *swap)
        .find(|swap| number(swap) >= start)
        .or_else(|| swaps.first().map(|(swap, _)| *swap))
}

/// True when `board` has a valid swap.
pub(crate) fn has_obstacle_swap(board: &ObstacleBoard) -> bool {
    let (right, down) = valid_swap_masks(board);
    right.iter().chain(&down).any(|&mask| mask != 0)
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
