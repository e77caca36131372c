//! What a swap on a board without layers would do, judged without playing it: from the stable
//! board's planes, or (for a board used once, as a ValidateSwap request's) from its cells alone.

use super::RunSearch;
use crate::board::{Board, EMPTY, Position};
use crate::moves::{Swap, SwapVerdict, cell_after_swap, judge_swap, judge_swap_on};
use crate::runs::{Group, groups_of};
use crate::stable::StablePlain;

/// Judges `swap` and, when it is valid, returns the groups cascade step 1 would clear (ordered
/// by first cell); the group list is empty for any other verdict.
pub(crate) fn preview_swap(board: &StablePlain, swap: Swap) -> (SwapVerdict, Vec<Group>) {
    match judge_swap(board, swap) {
        SwapVerdict::Ok => {
            // The stable board's planes with the two tiles exchanged: the board is neither
            // copied nor its planes rebuilt, and only the runs through `a` or `b` are looked for.
            let cells = board.board();
            let (Some(a), Some(b)) = (cells.index_of(swap.a), cells.index_of(swap.b)) else {
                unreachable!("judge_swap accepted both positions")
            };
            let colors = [cells.at(a), cells.at(b)];
            let mut planes = board.planes().clone();
            planes.swap_cells(swap.a, swap.b, colors[0], colors[1]);
            let matched = RunSearch::after_swap(swap, colors).matched(&planes);
            debug_assert!(matched == planes.matched());
            (SwapVerdict::Ok, groups_of(&planes, &matched))
        }
        verdict => (verdict, Vec::new()),
    }
}

/// [`preview_swap`] on a board not yet known stable, read from its cells: no colour planes are
/// built, which is most of the work when the board is used once. `None` when the board is not
/// stable (an empty cell or a run); the caller's full check then says why (and decides: a
/// board wrongly taken for unstable here would only cost that check).
///
/// A stable board has no run, so every run after the swap passes through `a` or `b`, and each
/// of the two cells' groups is its cross: the run along its row and the run along its column,
/// where at least 3 long (the two cells hold different colours, so the crosses never join).
pub(crate) fn preview_swap_on_cells(
    board: &Board,
    swap: Swap,
) -> Option<(SwapVerdict, Vec<Group>)> {
    let (cells, width) = (board.cells(), board.width());
    if board.has_empty_cell() || cells_have_run(cells, width) {
        return None;
    }
    let preview = match judge_swap_on(board, swap) {
        SwapVerdict::Ok => {
            let (Some(a), Some(b)) = (board.index_of(swap.a), board.index_of(swap.b)) else {
                unreachable!("judge_swap_on accepted both positions")
            };
            let after = cell_after_swap(cells, a, b);
            let mut groups = Vec::with_capacity(2);
            for index in [a, b] {
                groups.extend(cross_through(after, width, board.height(), index));
            }
            if groups.len() == 2 && groups[1].cells[0] < groups[0].cells[0] {
                groups.swap(0, 1);
            }
            (SwapVerdict::Ok, groups)
        }
        verdict => (verdict, Vec::new()),
    };
    debug_assert_eq!(
        Some(&preview),
        StablePlain::try_from(board.clone())
            .ok()
            .map(|stable| preview_swap(&stable, swap))
            .as_ref(),
        "the cells' preview differs from the planes' on {board:?}, {swap:?}"
    );
    Some(preview)
}

/// True when `cells` (row-major rows of `width`, no empty cell) hold a line of 3 cells of one
/// colour. The columns, and the rows of boards up to `ONE_PASS_CELLS` cells, are checked by
/// branch-free folds over whole slices, which the compiler vectorises.
fn cells_have_run(cells: &[u8], width: usize) -> bool {
    let mut runs = 0u8;
    if let Some(starts) = cells.len().checked_sub(2 * width) {
        let columns = cells[..starts]
            .iter()
            .zip(&cells[width..])
            .zip(&cells[2 * width..]);
        for ((&top, &middle), &bottom) in columns {
            runs |= u8::from(top == middle) & u8::from(middle == bottom);
        }
    }
    runs != 0 || row_has_run(cells, width)
}

/// Boards up to this many cells look for runs along their rows in one pass over all cells.
const ONE_PASS_CELLS: usize = 256;

/// True when a row of `cells` (row-major rows of `width`) holds 3 equal cells in a line.
fn row_has_run(cells: &[u8], width: usize) -> bool {
    let count = cells.len();
    if count > ONE_PASS_CELLS {
        return cells.chunks_exact(width).any(|line| {
            line.windows(3)
                .any(|three| three[0] == three[1] && three[1] == three[2])
        });
    }
    // Every window of 3 consecutive cells, then those that start on a row's last two cells
    // (they run into the next row) struck out.
    let mut windows = [0u8; ONE_PASS_CELLS];
    let lines = cells
        .iter()
        .zip(&cells[1..])
        .zip(cells.get(2..).unwrap_or(&[]));
    for (window, ((&left, &centre), &right)) in windows.iter_mut().zip(lines) {
        *window = u8::from(left == centre) & u8::from(centre == right);
    }
    for end in (width..=count).step_by(width) {
        windows[end - 1] = 0;
        if width >= 2 {
            windows[end - 2] = 0;
        }
    }
    windows.iter().fold(0, |any, &window| any | window) != 0
}

/// The group through cell `index` of the board read through `cell` (`width x height`, row
/// major): its row's run and its column's run through `index`, each where at least 3 long, in
/// row-major order; `None` when neither is.
fn cross_through(
    cell: impl Fn(usize) -> u8,
    width: usize,
    height: usize,
    index: usize,
) -> Option<Group> {
    let color = cell(index);
    debug_assert_ne!(color, EMPTY);
    let (row, col) = (index / width, index % width);
    let same = |r: usize, c: usize| cell(r * width + c) == color;
    let left = (0..col).rev().take_while(|&c| same(row, c)).count();
    let right = (col + 1..width).take_while(|&c| same(row, c)).count();
    let up = (0..row).rev().take_while(|&r| same(r, col)).count();
    let down = (row + 1..height).take_while(|&r| same(r, col)).count();
    let horizontal = left + 1 + right >= 3;
    let vertical = up + 1 + down >= 3;
    if !horizontal && !vertical {
        return None;
    }
    let at = |r: usize, c: usize| Position::new(r as u32, c as u32);
    let mut cells = Vec::with_capacity(left + right + up + down + 1);
    if vertical {
        cells.extend((row - up..row).map(|r| at(r, col)));
    }
    if horizontal {
        cells.extend((col - left..=col + right).map(|c| at(row, c)));
    } else {
        cells.push(at(row, col));
    }
    if vertical {
        cells.extend((row + 1..=row + down).map(|r| at(r, col)));
    }
    Some(Group { color, cells })
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use crate::board::{Board, Position};
    use crate::moves::{Swap, SwapVerdict};
    use crate::params::GenerationSize;
    use crate::swap::generate_swap_board;
    use crate::swap::{StableBoard, SwapBoard, check_and_preview_swap, preview_swap};

    /// Every swap between neighbours, and some that are not (off the board, far apart, onto
    /// itself).
    fn swaps_of(width: u32, height: u32) -> Vec<Swap> {
        let mut swaps = Vec::new();
        for row in 0..height {
            for col in 0..width {
                let a = Position::new(row, col);
                swaps.push(Swap::new(a, Position::new(row, col + 1)));
                swaps.push(Swap::new(a, Position::new(row + 1, col)));
            }
        }
        swaps.push(Swap::new(Position::new(0, 0), Position::new(0, 0)));
        swaps.push(Swap::new(Position::new(0, 0), Position::new(2, 1)));
        swaps.push(Swap::new(
            Position::new(height, 0),
            Position::new(height - 1, 0),
        ));
        swaps
    }

    #[test]
    fn the_cells_preview_equals_the_stable_boards_on_random_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (mut stable, mut accepted, mut crosses) = (0, 0, 0);
        // The edges of the two row checks (up to 256 cells, and beyond) and of the board sizes.
        let edges = [
            (1, 1),
            (1, 7),
            (7, 1),
            (2, 2),
            (16, 16),
            (17, 15),
            (15, 18),
            (64, 8),
        ];
        for round in 0..1_500 {
            let (width, height) = match edges.get(round / 4) {
                Some(&edge) => edge,
                None => (rng.random_range(1..=20), rng.random_range(1..=20)),
            };
            let colors = rng.random_range(2..=9);
            let board = if round % 2 == 0 {
                // A generated board: stable, with valid swaps.
                let size = GenerationSize::for_swap(width, height, colors).unwrap();
                match generate_swap_board(size, 0, &mut rng) {
                    Ok((board, _)) => board.into_board().colors().clone(),
                    Err(_) => continue,
                }
            } else {
                let cells: Vec<u32> = (0..width * height)
                    .map(|_| match rng.random_range(0..200) {
                        0 => 0,
                        _ => rng.random_range(1..=colors),
                    })
                    .collect();
                Board::from_raw(width, height, &cells).unwrap()
            };
            let checked = StableBoard::try_from(SwapBoard::from(board.clone()));
            stable += usize::from(checked.is_ok());
            for swap in swaps_of(width, height) {
                let expected = checked.as_ref().map(|board| preview_swap(board, swap));
                let got = check_and_preview_swap(SwapBoard::from(board.clone()), swap);
                assert_eq!(got, expected.map_err(Clone::clone), "{board:?} {swap:?}");
                if let Ok(preview) = got {
                    accepted += usize::from(preview.verdict == SwapVerdict::Ok);
                    crosses += preview
                        .groups
                        .iter()
                        .filter(|group| {
                            let first = group.cells[0];
                            group.cells.iter().any(|cell| cell.row != first.row)
                                && group.cells.iter().any(|cell| cell.col != first.col)
                        })
                        .count();
                }
            }
        }
        // The sample holds boards of every kind: unstable and stable, valid swaps, L/T/+ groups.
        assert!(stable > 500 && stable < 1_300, "{stable} stable boards");
        assert!(accepted > 2_000, "{accepted} valid swaps");
        assert!(crosses > 20, "{crosses} groups along a row and a column");
    }
}
