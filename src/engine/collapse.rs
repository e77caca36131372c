//! The collapse family: PopStar (消灭星星), SameGame, Clickomania, Bubble Breaker (docs/rules.md section 3).
//!
//! The group of a tapped cell is its 4-connected component of one colour. A tap is legal iff
//! the cell is non-empty and its group has at least `min_group` cells. Applying it clears the
//! whole group, applies gravity within each column, then removes every entirely empty column,
//! sliding the columns to its right left in order. The game is over when no legal group remains.

use super::board::{Board, CellSet, EMPTY, Position};
use super::error::{EngineError, TapRejection};
use super::gravity::{Fall, apply_gravity};
use super::params::MinGroup;
use super::scoring::ScoringRule;
use super::settled::SettledBoard;

/// A column that moved left when empty columns closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnShift {
    /// Column index before the collapse.
    pub from_col: u32,
    /// Column index after the collapse (`< from_col`).
    pub to_col: u32,
}

/// The result of a legal tap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TapOutcome {
    /// The cleared group, row-major.
    pub cleared: Vec<Position>,
    /// Its colour.
    pub color: u8,
    /// Gravity moves within columns, ordered by `from` row-major (before the column collapse).
    pub falls: Vec<Fall>,
    /// Columns that moved left, ordered by `from_col`.
    pub column_shifts: Vec<ColumnShift>,
    /// The settled board after the move.
    pub board: SettledBoard,
    /// Score of this move alone.
    pub move_score: u64,
    /// Tiles left on `board`.
    pub tiles_left: usize,
    /// True when `board` has no legal group.
    pub game_over: bool,
    /// End adjustment when `game_over`, else 0.
    pub end_bonus: i64,
}

impl TapOutcome {
    /// `move_score + end_bonus`.
    pub fn total_score(&self) -> i64 {
        self.move_score as i64 + self.end_bonus
    }
}

/// A legal group, as `CheckDeadState` lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegalGroup {
    /// The group's first cell in row-major order.
    pub representative: Position,
    /// Its colour.
    pub color: u8,
    /// Its size, `>= min_group`.
    pub size: usize,
    /// What tapping it would score.
    pub score: u64,
}

/// Adds the 4-connected same-colour component of the non-empty cell `start` to `members` and
/// returns its size. `members` may already hold other components: none of them can touch this
/// one in the same colour, so one set serves a whole scan.
fn flood_group(
    board: &Board,
    start: usize,
    members: &mut CellSet,
    stack: &mut Vec<usize>,
) -> usize {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells();
    let color = cells[start];
    let mut size = 0;
    members.insert(start / width, start % width);
    stack.clear();
    stack.push(start);
    while let Some(index) = stack.pop() {
        size += 1;
        let (row, col) = (index / width, index % width);
        let mut visit = |r: usize, c: usize| {
            if cells[r * width + c] == color && !members.contains(r, c) {
                members.insert(r, c);
                stack.push(r * width + c);
            }
        };
        if row > 0 {
            visit(row - 1, col);
        }
        if row + 1 < height {
            visit(row + 1, col);
        }
        if col > 0 {
            visit(row, col - 1);
        }
        if col + 1 < width {
            visit(row, col + 1);
        }
    }
    size
}

/// Applies a tap at `position` (docs/rules.md section 3).
///
/// # Errors
/// [`EngineError::PositionOffBoard`] (`position`) off the board; [`EngineError::IllegalTap`] for
/// an empty cell or a group smaller than `min_group`. A `min_group` below 2 counts as 2 (a
/// single tile is never a legal group), as in [`legal_groups`] and [`is_game_over`].
pub fn tap(
    board: &SettledBoard,
    position: Position,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Result<TapOutcome, EngineError> {
    let min_group = min_group.get();
    let source = board.board();
    let start = source.checked_index("position", position)?;
    let color = source.at(start);
    if color == EMPTY {
        return Err(EngineError::IllegalTap(TapRejection::EmptyCell));
    }
    let mut members = CellSet::new();
    let size = flood_group(source, start, &mut members, &mut Vec::with_capacity(64));
    if size < min_group {
        return Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size,
            min_group,
        }));
    }
    let (width, height) = (source.width(), source.height());
    let mut after = source.clone();
    let mut cleared = Vec::with_capacity(size);
    {
        let cells = after.cells_mut();
        for row in 0..height {
            let mut mask = members.row(row);
            while mask != 0 {
                let col = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                cells[row * width + col] = EMPTY;
                cleared.push(Position::new(row as u32, col as u32));
            }
        }
    }
    let falls = apply_gravity(&mut after);
    let column_shifts = close_empty_columns(&mut after);
    let tiles_left = source.tile_count() - size;
    let game_over = is_game_over_on(&after, min_group);
    Ok(TapOutcome {
        cleared,
        color,
        falls,
        column_shifts,
        board: SettledBoard::new_unchecked(after),
        move_score: rule.move_score(size),
        tiles_left,
        game_over,
        end_bonus: if game_over {
            rule.end_bonus(tiles_left)
        } else {
            0
        },
    })
}

/// Removes every empty column of a board whose columns have settled, sliding the columns to its
/// right left in order; returns the moved non-empty columns ordered by `from_col`.
fn close_empty_columns(board: &mut Board) -> Vec<ColumnShift> {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells_mut();
    let bottom = width * (height - 1);
    let mut shifts = Vec::new();
    let mut target = 0;
    for col in 0..width {
        if cells[bottom + col] == EMPTY {
            continue; // settled: an empty bottom cell means an empty column
        }
        if target != col {
            for row in 0..height {
                cells[row * width + target] = cells[row * width + col];
                cells[row * width + col] = EMPTY;
            }
            shifts.push(ColumnShift {
                from_col: col as u32,
                to_col: target as u32,
            });
        }
        target += 1;
    }
    shifts
}

/// True when no group of at least `min_group` cells remains.
fn is_game_over_on(board: &Board, min_group: usize) -> bool {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells();
    if min_group <= 2 {
        // A legal group exists iff two orthogonal neighbours share a colour.
        for row in 0..height {
            for col in 0..width {
                let cell = cells[row * width + col];
                if cell == EMPTY {
                    continue;
                }
                if (col + 1 < width && cells[row * width + col + 1] == cell)
                    || (row + 1 < height && cells[(row + 1) * width + col] == cell)
                {
                    return false;
                }
            }
        }
        return true;
    }
    let mut found = false;
    for_each_group(board, |_, _, size| {
        found = size >= min_group;
        !found
    });
    !found
}

/// Calls `visit(first_index, color, size)` for every group (component) of the board, ordered by
/// first cell in row-major order, until `visit` returns false.
fn for_each_group(board: &Board, mut visit: impl FnMut(usize, u8, usize) -> bool) {
    let width = board.width();
    let mut seen = CellSet::new();
    let mut stack = Vec::with_capacity(64);
    for index in 0..board.cells().len() {
        let color = board.at(index);
        if color == EMPTY || seen.contains(index / width, index % width) {
            continue;
        }
        let size = flood_group(board, index, &mut seen, &mut stack);
        if !visit(index, color, size) {
            return;
        }
    }
}

/// True when the game is over on `board`: no group of at least `min_group` cells remains.
pub fn is_game_over(board: &SettledBoard, min_group: MinGroup) -> bool {
    is_game_over_on(board.board(), min_group.get())
}

/// Every legal group once, ordered by representative (first cell) in row-major order.
pub fn legal_groups(
    board: &SettledBoard,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Vec<LegalGroup> {
    let min_group = min_group.get();
    let board = board.board();
    let mut groups = Vec::new();
    for_each_group(board, |index, color, size| {
        if size >= min_group {
            groups.push(LegalGroup {
                representative: board.position_of(index),
                color,
                size,
                score: rule.move_score(size),
            });
        }
        true
    });
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::Unsettled;

    fn settled(text: &str) -> SettledBoard {
        SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn spec_example_abbc() {
        let outcome = tap(
            &settled("ABBC/ABBC"),
            Position::new(0, 1),
            ScoringRule::PopStar,
            MinGroup::DEFAULT,
        )
        .unwrap();
        assert_eq!(outcome.board.board().to_string(), "AC../AC..");
        assert_eq!(outcome.cleared.len(), 4);
        assert_eq!(outcome.move_score, 80);
        assert_eq!(
            outcome.column_shifts,
            vec![ColumnShift {
                from_col: 3,
                to_col: 1
            }]
        );
        // The two A tiles still touch, so the game goes on.
        assert!(!outcome.game_over);
        assert_eq!(outcome.tiles_left, 4);
        assert_eq!(outcome.end_bonus, 0);
    }

    #[test]
    fn spec_example_full_clear() {
        for (rule, score, bonus) in [
            (ScoringRule::PopStar, 80, 2000),
            (ScoringRule::SameGame, 4, 1000),
        ] {
            let outcome = tap(
                &settled("AA/AA"),
                Position::new(0, 0),
                rule,
                MinGroup::DEFAULT,
            )
            .unwrap();
            assert_eq!(outcome.board.board().to_string(), "../..");
            assert_eq!((outcome.move_score, outcome.end_bonus), (score, bonus));
            assert_eq!(outcome.total_score(), score as i64 + bonus);
        }
    }

    #[test]
    fn spec_example_rbb() {
        let outcome = tap(
            &settled("RBB/RRR/RBB"),
            Position::new(1, 1),
            ScoringRule::PopStar,
            MinGroup::DEFAULT,
        )
        .unwrap();
        assert_eq!(outcome.board.board().to_string(), ".../BB./BB.");
        assert_eq!(outcome.cleared.len(), 5);
    }

    #[test]
    fn illegal_taps_are_rejected() {
        let board = settled("AB./AB.");
        assert_eq!(
            tap(
                &board,
                Position::new(0, 2),
                ScoringRule::PopStar,
                MinGroup::DEFAULT
            ),
            Err(EngineError::IllegalTap(TapRejection::EmptyCell))
        );
        assert_eq!(
            tap(
                &board,
                Position::new(0, 0),
                ScoringRule::PopStar,
                MinGroup::parse(3).unwrap()
            ),
            Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                size: 2,
                min_group: 3
            }))
        );
        assert!(matches!(
            tap(
                &board,
                Position::new(2, 0),
                ScoringRule::PopStar,
                MinGroup::DEFAULT
            ),
            Err(EngineError::PositionOffBoard {
                field: "position",
                ..
            })
        ));
    }

    #[test]
    fn unsettled_boards_are_named() {
        assert_eq!(
            SettledBoard::try_from(Board::parse("A./.A").unwrap()),
            Err(EngineError::UnsettledBoard(Unsettled::FloatingTile(
                Position::new(0, 0)
            )))
        );
        assert_eq!(
            SettledBoard::try_from(Board::parse("..A/A.A").unwrap()),
            Err(EngineError::UnsettledBoard(Unsettled::GapColumn(1)))
        );
    }

    #[test]
    fn two_non_adjacent_empty_columns_close() {
        let outcome = tap(
            &settled("BBBG/BABG"),
            Position::new(0, 0),
            ScoringRule::PopStar,
            MinGroup::DEFAULT,
        )
        .unwrap();
        assert_eq!(outcome.board.board().to_string(), ".G../AG..");
        assert_eq!(
            outcome.column_shifts,
            vec![
                ColumnShift {
                    from_col: 1,
                    to_col: 0
                },
                ColumnShift {
                    from_col: 3,
                    to_col: 1
                }
            ]
        );
        assert_eq!(outcome.falls, Vec::new());
    }

    #[test]
    fn two_adjacent_empty_columns_close() {
        let outcome = tap(
            &settled("BBA/BBC"),
            Position::new(1, 1),
            ScoringRule::PopStar,
            MinGroup::DEFAULT,
        )
        .unwrap();
        assert_eq!(outcome.board.board().to_string(), "A../C..");
        assert_eq!(
            outcome.column_shifts,
            vec![ColumnShift {
                from_col: 2,
                to_col: 0
            }]
        );
        assert!(outcome.game_over);
        assert_eq!(outcome.end_bonus, 2000 - 20 * 4);
    }

    #[test]
    fn legal_groups_are_listed_in_order() {
        let groups = legal_groups(
            &settled("AAB/CBB"),
            ScoringRule::SameGame,
            MinGroup::DEFAULT,
        );
        assert_eq!(
            groups,
            vec![
                LegalGroup {
                    representative: Position::new(0, 0),
                    color: 11,
                    size: 2,
                    score: 0
                },
                LegalGroup {
                    representative: Position::new(0, 2),
                    color: 3,
                    size: 3,
                    score: 1
                },
            ]
        );
    }
}
