//! Swap legality and the list of valid swaps (docs/rules.md section 2).
//!
//! A swap `(a, b)` is valid iff both positions are on the board, orthogonally adjacent
//! (Manhattan distance 1), both cells are non-empty, and after swapping at least one of `a`, `b`
//! is a matched cell. Only lines through `a` and `b` can change, so each check is local: O(1)
//! per candidate swap, no allocation.

use super::bitboard::{BitIter, ColorPlanes};
use super::board::{Board, EMPTY, MAX_SIDE, Position};
use super::error::SwapRejection;
use super::stable::StablePlain;

/// Two positions to exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Swap {
    /// First tile.
    pub a: Position,
    /// Second tile.
    pub b: Position,
}

impl Swap {
    /// The swap of `a` and `b`.
    pub const fn new(a: Position, b: Position) -> Self {
        Self { a, b }
    }
}

/// The verdict on a proposed swap, checked in declaration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwapVerdict {
    /// The swap is valid.
    Ok,
    /// `a` or `b` lies off the board.
    OutOfBounds,
    /// `a` or `b` is a hole (level boards; docs/rules.md section 6), checked right after
    /// [`SwapVerdict::OutOfBounds`].
    Hole,
    /// `a` or `b` is fixed: it holds a blocker or a locked tile (docs/rules.md section 8),
    /// checked right after [`SwapVerdict::Hole`].
    Blocked,
    /// Same cell, diagonal, or more than one step apart.
    NotAdjacent,
    /// `a` or `b` is empty.
    EmptyCell,
    /// After the swap neither `a` nor `b` is a matched cell.
    NoMatch,
}

impl SwapVerdict {
    /// The rejection this verdict stands for, when the swap is illegal with both positions on
    /// the board; `None` for [`SwapVerdict::Ok`] and [`SwapVerdict::OutOfBounds`].
    pub fn rejection(self) -> Option<SwapRejection> {
        match self {
            Self::Ok | Self::OutOfBounds => None,
            Self::Hole => Some(SwapRejection::Hole),
            Self::Blocked => Some(SwapRejection::Blocked),
            Self::NotAdjacent => Some(SwapRejection::NotAdjacent),
            Self::EmptyCell => Some(SwapRejection::EmptyCell),
            Self::NoMatch => Some(SwapRejection::NoMatch),
        }
    }
}

impl From<SwapRejection> for SwapVerdict {
    fn from(rejection: SwapRejection) -> Self {
        match rejection {
            SwapRejection::Hole => Self::Hole,
            SwapRejection::Blocked => Self::Blocked,
            SwapRejection::NotAdjacent => Self::NotAdjacent,
            SwapRejection::EmptyCell => Self::EmptyCell,
            SwapRejection::NoMatch => Self::NoMatch,
        }
    }
}

/// Judges `swap` on a stable board.
pub(crate) fn judge_swap(board: &StablePlain, swap: Swap) -> SwapVerdict {
    judge_swap_on(board.board(), swap)
}

/// Judges `swap` on any well-formed board (the rules only need the cells around `a` and `b`).
pub(crate) fn judge_swap_on(board: &Board, swap: Swap) -> SwapVerdict {
    let (Some(a), Some(b)) = (board.index_of(swap.a), board.index_of(swap.b)) else {
        return SwapVerdict::OutOfBounds;
    };
    if swap.a.row.abs_diff(swap.b.row) + swap.a.col.abs_diff(swap.b.col) != 1 {
        return SwapVerdict::NotAdjacent;
    }
    let cells = board.cells();
    if cells[a] == EMPTY || cells[b] == EMPTY {
        return SwapVerdict::EmptyCell;
    }
    if swap_makes_match(cells, board.width(), board.height(), a, b) {
        SwapVerdict::Ok
    } else {
        SwapVerdict::NoMatch
    }
}

/// True when exchanging cells `a` and `b` (adjacent, both holding a piece) leaves `a` or `b`
/// matched by a coloured tile.
#[inline]
pub(crate) fn swap_makes_match(
    cells: &[u8],
    width: usize,
    height: usize,
    a: usize,
    b: usize,
) -> bool {
    let (color_a, color_b) = (cells[a], cells[b]);
    if color_a == color_b {
        return false;
    }
    let after = cell_after_swap(cells, a, b);
    // A piece without a colour (an ingredient) never makes a run where it lands.
    (color_a != EMPTY && in_run(after, width, height, b, color_a))
        || (color_b != EMPTY && in_run(after, width, height, a, color_b))
}

/// The board `cells` read after exchanging cells `a` and `b`: cell `b` holds what `a` held and
/// cell `a` what `b` held; every other cell as it is.
#[inline]
pub(crate) fn cell_after_swap(cells: &[u8], a: usize, b: usize) -> impl Fn(usize) -> u8 + Copy {
    let (color_a, color_b) = (cells[a], cells[b]);
    move |index| {
        if index == a {
            color_b
        } else if index == b {
            color_a
        } else {
            cells[index]
        }
    }
}

/// True when the cell at `index`, holding `color`, is in a run of the board read through `cell`.
#[inline]
pub(crate) fn in_run(
    cell: impl Fn(usize) -> u8,
    width: usize,
    height: usize,
    index: usize,
    color: u8,
) -> bool {
    let (row, col) = (index / width, index % width);
    let mut horizontal = 1;
    let mut c = col;
    while c > 0 && horizontal < 3 && cell(index - (col - c) - 1) == color {
        horizontal += 1;
        c -= 1;
    }
    let mut c = col;
    while c + 1 < width && horizontal < 3 && cell(index + (c - col) + 1) == color {
        horizontal += 1;
        c += 1;
    }
    if horizontal >= 3 {
        return true;
    }
    let mut vertical = 1;
    let mut r = row;
    while r > 0 && vertical < 3 && cell(index - (row - r + 1) * width) == color {
        vertical += 1;
        r -= 1;
    }
    let mut r = row;
    while r + 1 < height && vertical < 3 && cell(index + (r - row + 1) * width) == color {
        vertical += 1;
        r += 1;
    }
    vertical >= 3
}

/// True when a full, run-free arrangement of `cells` has at least `minimum` valid swaps.
pub(crate) fn has_valid_swaps(cells: &[u8], width: usize, height: usize, minimum: usize) -> bool {
    minimum == 0
        || ColorPlanes::new(cells, width, height).count_valid_swaps_up_to(minimum) >= minimum
}

/// Every valid swap of `board` once, as `(a, b)` with `a` before `b` in row-major order, sorted
/// by `a` then `b` (docs/rules.md section 2). Empty exactly when the board is dead.
pub(crate) fn valid_swaps(board: &StablePlain) -> Vec<Swap> {
    let planes = board.planes();
    let height = planes.height();
    // The masks of every row once, then the list sized once.
    let mut masks = [(0u64, 0u64); MAX_SIDE as usize];
    let mut count = 0;
    for (row, slot) in masks[..height].iter_mut().enumerate() {
        *slot = planes.swap_masks(row);
        count += (slot.0.count_ones() + slot.1.count_ones()) as usize;
    }
    let mut swaps = Vec::with_capacity(count);
    for (row, &(right, down)) in (0u32..).zip(&masks[..height]) {
        for col in BitIter(right | down) {
            let a = Position::new(row, col);
            if right >> col & 1 == 1 {
                swaps.push(Swap::new(a, Position::new(row, col + 1)));
            }
            if down >> col & 1 == 1 {
                swaps.push(Swap::new(a, Position::new(row + 1, col)));
            }
        }
    }
    swaps
}

/// The first valid swap at or after adjacent pair `start`, wrapping around the board, or `None`
/// when the board is dead: what "try adjacent pairs from a random start until one is valid"
/// finds, in one pass over the valid-swap masks.
///
/// Pairs are numbered `2 * a + d` over row-major cells `a` (`0..width * height`), with `d = 0`
/// for the pair `(a, a's right neighbour)` and `d = 1` for `(a, a's lower neighbour)`; numbers
/// naming no pair (right of the last column, below the last row) are skipped. `start` is taken
/// modulo `2 * width * height`.
pub(crate) fn first_valid_swap_from(board: &StablePlain, start: usize) -> Option<Swap> {
    let planes = board.planes();
    let board = board.board();
    let (width, height) = (board.width(), board.height());
    let pairs = 2 * width * height;
    let start = start % pairs;
    let start_row = start / (2 * width);
    let swap_at = |row: usize, col: u32, down: bool| {
        let a = Position::new(row as u32, col);
        let b = if down {
            Position::new(row as u32 + 1, col)
        } else {
            Position::new(row as u32, col + 1)
        };
        Swap::new(a, b)
    };
    // Rows from the start row to the end, then from the top back to the start row.
    for step in 0..=height {
        let row = (start_row + step) % height;
        let (right, down) = planes.swap_masks(row);
        for col in BitIter(right | down) {
            let number = 2 * (row * width + col as usize);
            for (dir, mask) in [(0, right), (1, down)] {
                let pair = number + dir;
                let wrapped = step == height; // second visit of the start row
                let in_range = if step == 0 {
                    pair >= start
                } else if wrapped {
                    pair < start
                } else {
                    true
                };
                if mask >> col & 1 == 1 && in_range {
                    return Some(swap_at(row, col, dir == 1));
                }
            }
        }
    }
    None
}

/// Number of valid swaps of `board`.
pub(crate) fn count_valid_swaps(board: &StablePlain) -> usize {
    board.planes().count_valid_swaps()
}

/// True when `board` has no valid swap.
pub(crate) fn is_dead(board: &StablePlain) -> bool {
    !board.planes().has_valid_swap()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stable(text: &str) -> StablePlain {
        StablePlain::try_from(Board::parse(text).unwrap()).unwrap()
    }

    fn swap(a: (u32, u32), b: (u32, u32)) -> Swap {
        Swap::new(Position::new(a.0, a.1), Position::new(b.0, b.1))
    }

    #[test]
    fn spec_example_swap_is_ok() {
        assert_eq!(
            judge_swap(&stable("RRG/GGR"), swap((0, 2), (1, 2))),
            SwapVerdict::Ok
        );
        // Order of a and b does not matter.
        assert_eq!(
            judge_swap(&stable("RRG/GGR"), swap((1, 2), (0, 2))),
            SwapVerdict::Ok
        );
    }

    #[test]
    fn verdicts_in_order() {
        let board = stable("RRG/GGR");
        assert_eq!(
            judge_swap(&board, swap((0, 2), (0, 3))),
            SwapVerdict::OutOfBounds
        );
        assert_eq!(
            judge_swap(&board, swap((2, 0), (1, 0))),
            SwapVerdict::OutOfBounds
        );
        assert_eq!(
            judge_swap(&board, swap((0, 0), (0, 0))),
            SwapVerdict::NotAdjacent
        );
        assert_eq!(
            judge_swap(&board, swap((0, 0), (1, 1))),
            SwapVerdict::NotAdjacent
        );
        assert_eq!(
            judge_swap(&board, swap((0, 0), (0, 2))),
            SwapVerdict::NotAdjacent
        );
        assert_eq!(
            judge_swap(&board, swap((0, 0), (0, 1))),
            SwapVerdict::NoMatch
        );
        assert_eq!(
            judge_swap(&board, swap((0, 0), (1, 0))),
            SwapVerdict::NoMatch
        );
    }

    #[test]
    fn empty_cells_are_a_verdict_on_unsettled_boards() {
        let board = Board::parse("R.G/GGR").unwrap();
        assert_eq!(
            judge_swap_on(&board, swap((0, 0), (0, 1))),
            SwapVerdict::EmptyCell
        );
    }

    #[test]
    fn no_wrap_around_between_rows() {
        // (0,2) and (1,0) are consecutive row-major indices but not adjacent.
        assert_eq!(
            judge_swap(&stable("RGB/GBR"), swap((0, 2), (1, 0))),
            SwapVerdict::NotAdjacent
        );
    }

    #[test]
    fn spec_example_dead_board() {
        let board = stable("RGB/GBR/BRG");
        assert!(is_dead(&board));
        assert_eq!(valid_swaps(&board), Vec::new());
        let shuffled = stable("BBG/BGR/RGR");
        // Swapping (0,1) and (0,2) lines up G in column 1.
        assert_eq!(valid_swaps(&shuffled), vec![swap((0, 1), (0, 2))]);
    }

    #[test]
    fn valid_swaps_are_sorted_and_counted() {
        let board = stable("RRG/GGR");
        let swaps = valid_swaps(&board);
        assert_eq!(swaps, vec![swap((0, 2), (1, 2))]);
        assert_eq!(count_valid_swaps(&board), 1);
    }

    #[test]
    fn first_valid_swap_from_wraps_around_like_a_scan_of_every_pair() {
        use crate::generate::generate_swap_board;
        use crate::{GenerationSize, rng_from_seed};
        for seed in 0..40 {
            let size =
                GenerationSize::for_swap(5 + seed as u32 % 7, 3 + seed as u32 % 5, 4).unwrap();
            let (board, _) = generate_swap_board(size, 0, &mut rng_from_seed(seed)).unwrap();
            let (width, height) = (board.board().width(), board.board().height());
            let pairs = 2 * width * height;
            for start in 0..pairs + 3 {
                // The naive scan: judge every pair from `start` on, wrapping.
                let expected = (0..pairs).map(|k| (start + k) % pairs).find_map(|pair| {
                    let (a, down) = (pair / 2, pair % 2 == 1);
                    let (row, col) = ((a / width) as u32, (a % width) as u32);
                    let b = if down { (row + 1, col) } else { (row, col + 1) };
                    let candidate = swap((row, col), b);
                    (judge_swap(&board, candidate) == SwapVerdict::Ok).then_some(candidate)
                });
                assert_eq!(
                    first_valid_swap_from(&board, start),
                    expected,
                    "seed {seed}"
                );
            }
        }
        assert_eq!(first_valid_swap_from(&stable("RGB/GBR/BRG"), 5), None);
    }

    #[test]
    fn a_swap_that_completes_a_vertical_run_in_the_middle_is_valid() {
        // Moving G from (1,1) to (1,0) makes column 0 G,G,G.
        let board = stable("GRB/RGY/GBR");
        assert_eq!(judge_swap(&board, swap((1, 0), (1, 1))), SwapVerdict::Ok);
    }
}
