//! Runs and groups of the swap family (docs/rules.md section 2).
//!
//! A *run* is a maximal horizontal or vertical line of 3+ cells of one colour (empty never
//! matches); a *matched cell* is any cell in a run; a *group* is a 4-connected set of matched
//! cells of one colour, so L, T and + shapes and parallel touching runs (`RRR/RRR`) are one group.

use super::board::{Board, CellSet, EMPTY, Position};

/// One group of matched cells, cleared together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The group's colour, `1..=16`.
    pub color: u8,
    /// Its cells in row-major order; at least 3.
    pub cells: Vec<Position>,
}

/// Every matched cell of `board`, as row masks.
///
/// Works on "same as the right neighbour" and "same as the cell below" masks: a horizontal run
/// starts where two consecutive right-equalities hold, a vertical run where two consecutive
/// down-equalities hold.
pub(crate) fn matched_cells(board: &Board) -> CellSet {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells();
    let mut matched = CellSet::new();
    let mut down_equal_above = 0u64; // down-equality mask of the row above the current one
    for row in 0..height {
        let line = &cells[row * width..(row + 1) * width];
        let mut right_equal = 0u64;
        let mut down_equal = 0u64;
        for col in 0..width {
            let cell = line[col];
            if cell == EMPTY {
                continue;
            }
            if col + 1 < width && line[col + 1] == cell {
                right_equal |= 1 << col;
            }
            if row + 1 < height && cells[(row + 1) * width + col] == cell {
                down_equal |= 1 << col;
            }
        }
        let horizontal_starts = right_equal & (right_equal >> 1);
        let mut row_mask = matched.row(row)
            | horizontal_starts
            | (horizontal_starts << 1)
            | (horizontal_starts << 2);
        // A vertical run covering rows row-1, row, row+1 starts at row-1.
        let vertical_starts = down_equal_above & down_equal;
        if vertical_starts != 0 {
            matched.set_row(row - 1, matched.row(row - 1) | vertical_starts);
            row_mask |= vertical_starts;
            matched.set_row(row + 1, matched.row(row + 1) | vertical_starts);
        }
        matched.set_row(row, row_mask);
        down_equal_above = down_equal;
    }
    matched
}

/// True when `board` has at least one run.
pub fn has_run(board: &Board) -> bool {
    !matched_cells(board).is_empty()
}

/// Every matched cell of `board`, in row-major order.
pub fn matched_positions(board: &Board) -> Vec<Position> {
    let matched = matched_cells(board);
    (0..board.height())
        .flat_map(|row| {
            (0..board.width())
                .filter(move |&col| matched.contains(row, col))
                .map(move |col| Position::new(row as u32, col as u32))
        })
        .collect()
}

/// The groups of `board`, ordered by their first cell in row-major order, each group's cells in
/// row-major order. Empty when the board has no run.
pub fn find_groups(board: &Board) -> Vec<Group> {
    let matched = matched_cells(board);
    if matched.is_empty() {
        return Vec::new();
    }
    let (width, height) = (board.width(), board.height());
    let mut visited = CellSet::new();
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut groups = Vec::new();
    for row in 0..height {
        for col in 0..width {
            if !matched.contains(row, col) || visited.contains(row, col) {
                continue;
            }
            let color = board.at(row * width + col);
            let mut members = CellSet::new();
            visited.insert(row, col);
            stack.push((row, col));
            while let Some((r, c)) = stack.pop() {
                members.insert(r, c);
                let neighbours = [
                    (r.wrapping_sub(1), c),
                    (r + 1, c),
                    (r, c.wrapping_sub(1)),
                    (r, c + 1),
                ];
                for (nr, nc) in neighbours {
                    if nr < height
                        && nc < width
                        && matched.contains(nr, nc)
                        && !visited.contains(nr, nc)
                        && board.at(nr * width + nc) == color
                    {
                        visited.insert(nr, nc);
                        stack.push((nr, nc));
                    }
                }
            }
            let cells = (row..height)
                .flat_map(|r| {
                    let mask = members.row(r);
                    (0..width)
                        .filter(move |&c| mask >> c & 1 == 1)
                        .map(move |c| Position::new(r as u32, c as u32))
                })
                .collect();
            groups.push(Group { color, cells });
        }
    }
    groups
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
