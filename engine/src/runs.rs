//! Runs and groups of the swap family (docs/rules.md section 2).
//!
//! A *run* is a maximal horizontal or vertical line of 3+ cells of one colour (empty never
//! matches); a *matched cell* is any cell in a run; a *group* is a 4-connected set of matched
//! cells of one colour, so L, T and + shapes and parallel touching runs (`RRR/RRR`) are one group.

use super::bitboard::{BitIter, CellSet, ColorPlanes};
use super::board::{Board, MAX_SIDE, Position};

/// One group of matched cells, cleared together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The group's colour, `1..=16`.
    pub color: u8,
    /// Its cells in row-major order; at least 3.
    pub cells: Vec<Position>,
}

/// Every matched cell of `board`, as row masks.
pub(crate) fn matched_cells(board: &Board) -> CellSet {
    ColorPlanes::of(board).matched()
}

/// True when `board` has at least one run.
pub fn has_run(board: &Board) -> bool {
    ColorPlanes::of(board).has_run()
}

/// Every matched cell of `board`, in row-major order.
pub fn matched_positions(board: &Board) -> Vec<Position> {
    matched_cells(board).positions(board.height()).collect()
}

/// The groups of `board`, ordered by their first cell in row-major order, each group's cells in
/// row-major order. Empty when the board has no run.
pub fn find_groups(board: &Board) -> Vec<Group> {
    let planes = ColorPlanes::of(board);
    let matched = planes.matched();
    groups_of(&planes, &matched)
}

/// Splits `matched` (the matched cells of the board `planes` describes) into groups, ordered
/// by their first cell in row-major order: per colour present in `matched`, connected
/// components found by flood fill on the row masks, over the rows `matched` spans only.
pub(crate) fn groups_of(planes: &ColorPlanes, matched: &CellSet) -> Vec<Group> {
    let rows = &matched.rows()[..planes.height()];
    let Some(lo) = rows.iter().position(|&line| line != 0) else {
        return Vec::new();
    };
    let hi = rows.iter().rposition(|&line| line != 0).unwrap_or(lo);
    let mut groups = Vec::new();
    let mut remaining = [0u64; MAX_SIDE as usize];
    let mut members = [0u64; MAX_SIDE as usize];
    for color in 1..=planes.colors() {
        let plane = planes.color_rows(color);
        let mut any = 0;
        for row in lo..=hi {
            remaining[row] = plane[row] & rows[row];
            any |= remaining[row];
        }
        if any == 0 {
            continue;
        }
        for row in lo..=hi {
            while remaining[row] != 0 {
                let seed = remaining[row] & remaining[row].wrapping_neg();
                let (first, last) = flood(&remaining, (lo, hi), row, seed, &mut members);
                let size: u32 = members[first..=last].iter().map(|m| m.count_ones()).sum();
                let mut cells = Vec::with_capacity(size as usize);
                for r in first..=last {
                    remaining[r] &= !members[r];
                    cells.extend(BitIter(members[r]).map(|col| Position::new(r as u32, col)));
                }
                groups.push(Group { color, cells });
            }
        }
    }
    groups.sort_unstable_by_key(|group| group.cells[0]);
    groups
}

/// Writes into `members` the 4-connected component of `allowed` that contains the cell `seed`
/// (a single bit) of row `row`, grown row by row to a fixed point within rows `lo..=hi`
/// (`allowed` is empty outside them); returns the first and last rows it holds. Rows of
/// `members` outside `lo..=hi` are left as they were.
fn flood(
    allowed: &[u64; MAX_SIDE as usize],
    (lo, hi): (usize, usize),
    row: usize,
    seed: u64,
    members: &mut [u64; MAX_SIDE as usize],
) -> (usize, usize) {
    members[lo..=hi].fill(0);
    members[row] = seed;
    let (mut first, mut last) = (row, row);
    loop {
        let mut changed = false;
        let from = first.saturating_sub(1).max(lo);
        let to = (last + 1).min(hi);
        for r in from..=to {
            let current = members[r];
            let above = if r > lo { members[r - 1] } else { 0 };
            let below = if r < hi { members[r + 1] } else { 0 };
            let mut grown = (current | above | below) & allowed[r];
            // Spread along the row until it stops: runs are short, so this is a few rounds.
            loop {
                let wider = (grown | (grown << 1) | (grown >> 1)) & allowed[r];
                if wider == grown {
                    break;
                }
                grown = wider;
            }
            if grown != current {
                members[r] = grown;
                changed = true;
                first = first.min(r);
                last = last.max(r);
            }
        }
        if !changed {
            return (first, last);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group_sizes(text: &str) -> Vec<usize> {
        find_groups(&Board::parse(text).unwrap())
            .iter()
            .map(|g| g.cells.len())
            .collect()
    }

    #[test]
    fn spec_example_parallel_runs_are_one_group_of_six() {
        let groups = find_groups(&Board::parse("RRR/RRR").unwrap());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].color, 1);
        assert_eq!(groups[0].cells.len(), 6);
    }

    #[test]
    fn spec_example_l_shape_is_one_group_of_five() {
        let groups = find_groups(&Board::parse("RAB/RCD/RRR").unwrap());
        assert_eq!(groups.len(), 1);
        let expected: Vec<Position> = [(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]
            .map(|(r, c)| Position::new(r, c))
            .to_vec();
        assert_eq!(groups[0].cells, expected);
    }

    #[test]
    fn t_and_plus_shapes_are_one_group() {
        assert_eq!(group_sizes("RRR/GRB/BRG"), vec![5]);
        assert_eq!(group_sizes("GRB/RRR/BRG"), vec![5]);
    }

    #[test]
    fn pairs_and_empty_cells_never_match() {
        assert_eq!(group_sizes("RRG/GGR"), Vec::<usize>::new());
        assert_eq!(group_sizes(".../.../RGB"), Vec::<usize>::new());
        assert!(!has_run(&Board::parse("RR.R").unwrap()));
    }

    #[test]
    fn a_run_of_four_or_five_is_one_group() {
        assert_eq!(group_sizes("RRRRG"), vec![4]);
        assert_eq!(group_sizes("R/R/R/R/R"), vec![5]);
    }

    #[test]
    fn same_colour_tile_touching_a_run_is_not_matched() {
        // The R at (1,0) touches the run but is not in a run itself.
        let groups = find_groups(&Board::parse("RRRG/RGBY").unwrap());
        assert_eq!(groups.len(), 1);
        assert_eq!(groups[0].cells.len(), 3);
    }

    #[test]
    fn groups_are_ordered_by_first_cell() {
        let groups = find_groups(&Board::parse("GRRR/GBYB/GYBY").unwrap());
        assert_eq!(groups.len(), 2);
        assert_eq!(
            (groups[0].color, groups[0].cells[0]),
            (2, Position::new(0, 0))
        );
        assert_eq!(
            (groups[1].color, groups[1].cells[0]),
            (1, Position::new(0, 1))
        );
    }

    #[test]
    fn runs_along_the_last_column_and_row_are_found() {
        let board = Board::parse("GBR/BGR/GBR/BBB").unwrap();
        let matched = matched_positions(&board);
        assert_eq!(matched.len(), 6);
        assert!(matched.contains(&Position::new(3, 0)));
        assert!(matched.contains(&Position::new(0, 2)));
    }
}
