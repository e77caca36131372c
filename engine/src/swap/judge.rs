//! Judging swaps on a stable swap board (docs/rules.md sections 2 and 6): the verdict of one
//! swap, every valid swap, their number, and the dead check.

use super::level::{self, Combination};
use super::obstacles;
use super::stable::{Stable, StableBoard};
use crate::moves::{self, Swap, SwapVerdict};

/// Judges `swap` on a stable board, in the order OUT_OF_BOUNDS, HOLE, BLOCKED (level layers
/// only), NOT_ADJACENT, EMPTY_CELL, then OK for a swap that leaves `a` or `b` matched (or, on a board with special
/// pieces, makes a combination), else NO_MATCH.
pub fn judge_swap(board: &StableBoard, swap: Swap) -> SwapVerdict {
    match &board.0 {
        Stable::Plain(plain) => moves::judge_swap(plain, swap),
        Stable::Layered(level) => level::judge_level_swap(level.level(), swap).0,
        Stable::Obstacles(board) => obstacles::judge_obstacle_swap(board.board(), swap).0,
    }
}

/// Every valid swap of `board` once, as `(a, b)` with `a` before `b` in row-major order, sorted
/// by `a` then `b`. Empty exactly when the board is dead.
pub fn valid_swaps(board: &StableBoard) -> Vec<Swap> {
    match &board.0 {
        Stable::Plain(plain) => moves::valid_swaps(plain),
        Stable::Layered(level) => level::level_valid_swaps(level)
            .into_iter()
            .map(|(swap, _)| swap)
            .collect(),
        Stable::Obstacles(board) => board
            .valid_swaps()
            .into_iter()
            .map(|(swap, _)| swap)
            .collect(),
    }
}

/// [`valid_swaps`], each with the combination it makes (a colour bomb's swap, or two specials';
/// always `None` on a board without layers).
pub fn valid_swaps_with_combinations(board: &StableBoard) -> Vec<(Swap, Option<Combination>)> {
    match &board.0 {
        Stable::Plain(plain) => moves::valid_swaps(plain)
            .into_iter()
            .map(|swap| (swap, None))
            .collect(),
        Stable::Layered(level) => level::level_valid_swaps(level),
        Stable::Obstacles(board) => board.valid_swaps(),
    }
}

/// Number of valid swaps of `board` (combinations included).
pub fn count_valid_swaps(board: &StableBoard) -> usize {
    match &board.0 {
        Stable::Plain(plain) => moves::count_valid_swaps(plain),
        Stable::Layered(level) => level::count_level_valid_swaps(level),
        Stable::Obstacles(board) => board.valid_swap_count(),
    }
}

/// True when `board` has no valid swap.
pub fn is_dead(board: &StableBoard) -> bool {
    match &board.0 {
        Stable::Plain(plain) => moves::is_dead(plain),
        Stable::Layered(level) => level::count_level_valid_swaps(level) == 0,
        Stable::Obstacles(board) => obstacles::first_obstacle_swap_from(board.board(), 0).is_none(),
    }
}

/// The first valid swap at or after adjacent pair `start`, wrapping around the board, or `None`
/// when the board is dead: what "try adjacent pairs from a random start until one is valid"
/// finds.
///
/// Pairs are numbered `2 * a + d` over row-major cells `a` (`0..width * height`), with `d = 0`
/// for the pair `(a, a's right neighbour)` and `d = 1` for `(a, a's lower neighbour)`; numbers
/// naming no pair (right of the last column, below the last row) are skipped. `start` is taken
/// modulo `2 * width * height`.
pub fn first_valid_swap_from(board: &StableBoard, start: usize) -> Option<Swap> {
    match &board.0 {
        Stable::Plain(plain) => moves::first_valid_swap_from(plain, start),
        Stable::Layered(level) => {
            let width = level.level().width();
            let start = start % (2 * level.level().len());
            let number = |swap: &Swap| {
                let a = swap.a.row as usize * width + swap.a.col as usize;
                2 * a + usize::from(swap.b.row > swap.a.row)
            };
            let swaps = level::level_valid_swaps(level);
            // Listed in pair order: the first at or after `start`, else the first of all.
            swaps
                .iter()
                .map(|(swap, _)| *swap)
                .find(|swap| number(swap) >= start)
                .or_else(|| swaps.first().map(|(swap, _)| *swap))
        }
        Stable::Obstacles(board) => obstacles::first_obstacle_swap_from(board.board(), start),
    }
}
