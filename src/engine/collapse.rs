//! The collapse family: PopStar (消灭星星), SameGame, Clickomania, Bubble Breaker (docs/rules.md section 3).
//!
//! The group of a tapped cell is its 4-connected component of one colour. A tap is legal iff
//! the cell is non-empty and its group has at least `min_group` cells. Applying it clears the
//! whole group, applies gravity within each column, then removes every entirely empty column,
//! sliding the columns to its right left in order. The game is over when no legal group remains.

use std::fmt;

use rand::Rng;

use super::board::{Board, CellSet, EMPTY, Position};
use super::error::{EngineError, Unsettled};
use super::generate::check_generation_parameters;
use super::gravity::{Fall, apply_gravity};
use super::scoring::ScoringRule;

/// Smallest legal `min_group`.
pub const MIN_GROUP_FLOOR: u32 = 2;
/// Largest accepted `min_group`: the cell count of the largest board.
pub const MIN_GROUP_CEILING: u32 = 64 * 64;

/// Checks a `min_group` request value: 0 means the default 2; otherwise `2..=4096`.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `min_group`.
pub fn parse_min_group(value: u32) -> Result<usize, EngineError> {
    match value {
        0 => Ok(MIN_GROUP_FLOOR as usize),
        MIN_GROUP_FLOOR..=MIN_GROUP_CEILING => Ok(value as usize),
        _ => Err(EngineError::InvalidParameter {
            field: "min_group",
            reason: format!("must be 2..=4096 (0 means 2), got {value}"),
        }),
    }
}

/// A collapse board with no tile over an empty cell and no empty column left of a non-empty one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettledBoard(Board);

impl SettledBoard {
    /// The underlying board.
    pub fn board(&self) -> &Board {
        &self.0
    }

    /// Gives the board back.
    pub fn into_board(self) -> Board {
        self.0
    }
}

impl TryFrom<Board> for SettledBoard {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnsettledBoard`] naming the first floating tile in row-major order, or else
    /// the leftmost gap column.
    fn try_from(board: Board) -> Result<Self, Self::Error> {
        let (width, height) = (board.width(), board.height());
        let cells = board.cells();
        for index in 0..width * (height - 1) {
            if cells[index] != EMPTY && cells[index + width] == EMPTY {
                return Err(EngineError::UnsettledBoard(Unsettled::FloatingTile(
                    board.position_of(index),
                )));
            }
        }
        // Settled columns are empty exactly when their bottom cell is.
        let bottom = &cells[width * (height - 1)..];
        if let Some(gap) = bottom.iter().position(|&c| c == EMPTY)
            && bottom[gap..].iter().any(|&c| c != EMPTY)
        {
            return Err(EngineError::UnsettledBoard(Unsettled::GapColumn(
                gap as u32,
            )));
        }
        Ok(Self(board))
    }
}

/// Why a tap is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapRejection {
    /// The tapped cell is empty.
    EmptyCell,
    /// The tapped group is smaller than `min_group`.
    GroupTooSmall {
        /// Size of the tapped group.
        size: usize,
        /// The minimum in force.
        min_group: usize,
    },
}

impl fmt::Display for TapRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyCell => f.write_str("EMPTY_CELL: the tapped cell is empty"),
            Self::GroupTooSmall { size, min_group } => {
                write!(
                    f,
                    "GROUP_TOO_SMALL: the group has {size} cell(s), min_group is {min_group}"
                )
            }
        }
    }
}

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
    min_group: usize,
) -> Result<TapOutcome, EngineError> {
    let min_group = min_group.max(MIN_GROUP_FLOOR as usize);
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
        board: SettledBoard(after),
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

/// True when the game is over on `board` under `min_group` (below 2 counts as 2).
pub fn is_game_over(board: &SettledBoard, min_group: usize) -> bool {
    is_game_over_on(board.board(), min_group.max(MIN_GROUP_FLOOR as usize))
}

/// Every legal group once, ordered by representative (first cell) in row-major order.
/// A `min_group` below 2 counts as 2.
pub fn legal_groups(board: &SettledBoard, rule: ScoringRule, min_group: usize) -> Vec<LegalGroup> {
    let min_group = min_group.max(MIN_GROUP_FLOOR as usize);
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

/// Generates a full collapse board with colours drawn uniformly from `1..=colors`, with at
/// least one group of `min_group` cells (docs/rules.md section 3). Returns the board and its number of
/// legal groups.
///
/// Draws up to 32 boards; if none has a legal group (only for extreme `min_group`), the last
/// one has its first `min_group` cells in row-major order (a connected block) painted one
/// drawn colour, so a valid request never fails.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `width`, `height` (1..=64), `colors` (1..=16) or
/// `min_group` (`2..=4096`, and not above `width * height`).
pub fn generate_collapse_board<R: Rng + ?Sized>(
    width: u32,
    height: u32,
    colors: u32,
    min_group: u32,
    rng: &mut R,
) -> Result<(SettledBoard, usize), EngineError> {
    let (width, height, colors) = check_generation_parameters(width, height, colors, 1)?;
    let min_group = parse_min_group(min_group)?;
    if min_group > width * height {
        return Err(EngineError::InvalidParameter {
            field: "min_group",
            reason: format!(
                "{min_group} exceeds the {} cells of a {width}x{height} board",
                width * height
            ),
        });
    }
    let mut cells = vec![EMPTY; width * height];
    for _ in 0..32 {
        for cell in cells.iter_mut() {
            *cell = rng.random_range(1..=colors);
        }
        let board = SettledBoard(Board::from_engine_cells(width, height, cells.clone()));
        if !is_game_over(&board, min_group) {
            let count = legal_groups(&board, ScoringRule::PopStar, min_group).len();
            return Ok((board, count));
        }
    }
    let color = rng.random_range(1..=colors);
    cells[..min_group].fill(color);
    let board = SettledBoard(Board::from_engine_cells(width, height, cells));
    let count = legal_groups(&board, ScoringRule::PopStar, min_group).len();
    Ok((board, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled(text: &str) -> SettledBoard {
        SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn spec_example_abbc() {
        let outcome = tap(
            &settled("ABBC/ABBC"),
            Position::new(0, 1),
            ScoringRule::PopStar,
            2,
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
            let outcome = tap(&settled("AA/AA"), Position::new(0, 0), rule, 2).unwrap();
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
            2,
        )
        .unwrap();
        assert_eq!(outcome.board.board().to_string(), ".../BB./BB.");
        assert_eq!(outcome.cleared.len(), 5);
    }

    #[test]
    fn illegal_taps_are_rejected() {
        let board = settled("AB./AB.");
        assert_eq!(
            tap(&board, Position::new(0, 2), ScoringRule::PopStar, 2),
            Err(EngineError::IllegalTap(TapRejection::EmptyCell))
        );
        assert_eq!(
            tap(&board, Position::new(0, 0), ScoringRule::PopStar, 3),
            Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                size: 2,
                min_group: 3
            }))
        );
        assert!(matches!(
            tap(&board, Position::new(2, 0), ScoringRule::PopStar, 2),
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
            2,
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
            2,
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
        let groups = legal_groups(&settled("AAB/CBB"), ScoringRule::SameGame, 2);
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

    #[test]
    fn min_group_range() {
        assert_eq!(parse_min_group(0), Ok(2));
        assert_eq!(parse_min_group(4096), Ok(4096));
        assert!(parse_min_group(1).is_err());
        assert!(parse_min_group(4097).is_err());
    }
}
