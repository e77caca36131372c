//! The collapse family: PopStar (消灭星星), SameGame, Clickomania, Bubble Breaker (docs/rules.md section 3).
//!
//! The group of a tapped cell is its 4-connected component of one colour. A tap is legal iff
//! the cell is non-empty and its group has at least `min_group` cells. Applying it clears the
//! whole group, applies gravity within each column, then removes every entirely empty column,
//! sliding the columns to its right left in order. The game is over when no legal group remains.
//!
//! The rules run once, on column bitboards ([`CollapseGame`], in [`bitboard`]); [`tap`],
//! [`legal_groups`] and [`is_game_over`] translate between those and the row-major
//! [`SettledBoard`] and record what the API reports (cleared cells, falls, column shifts).

pub mod bitboard;

pub use bitboard::{CollapseGame, TapGroup};

use super::board::{Board, Position};
use super::error::{EngineError, TapRejection};
use super::gravity::Fall;
use super::params::MinGroup;
use super::scoring::ScoringRule;
use super::settled::SettledBoard;
use bitboard::{ColumnMask, TapRecorder, low_bits};

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


/// Records a removal as the API reports it: falls within columns (positions before the column
/// collapse) and column shifts.
struct Recording {
    height: usize,
    falls: Vec<Fall>,
    column_shifts: Vec<ColumnShift>,
}

impl TapRecorder for Recording {
    fn column_compacted(&mut self, col: usize, removed: u64, before: u64) {
        // Every tile above a cleared cell falls by the number of cleared cells below it.
        let lowest = removed.trailing_zeros();
        let mut movers = before & !removed & !low_bits(lowest + 1);
        while movers != 0 {
            let bit = movers.trailing_zeros();
            movers &= movers - 1;
            let to = bit - (removed & low_bits(bit)).count_ones();
            let last = self.height as u32 - 1;
            self.falls.push(Fall {
                from: Position::new(last - bit, col as u32),
                to: Position::new(last - to, col as u32),
            });
        }
    }

    fn column_moved(&mut self, from: usize, to: usize) {
        self.column_shifts.push(ColumnShift {
            from_col: from as u32,
            to_col: to as u32,
        });
    }
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
    let source = board.board();
    let mut game = CollapseGame::from_settled(source);
    let (slot, col, bit) = game.locate(position)?;
    let mut members: ColumnMask = [0; 64];
    let span = game.flood(slot, col, 1 << bit, &mut members);
    let (width, height) = (source.width(), source.height());
    let mut cleared = Vec::new();
    for (c, &word) in members.iter().enumerate().take(span.hi + 1).skip(span.lo) {
        let mut word = word;
        while word != 0 {
            let bit = word.trailing_zeros() as usize;
            word &= word - 1;
            cleared.push(Position::new((height - 1 - bit) as u32, c as u32));
        }
    }
    let size = cleared.len();
    if size < min_group.get() {
        return Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size,
            min_group: min_group.get(),
        }));
    }
    cleared.sort_unstable_by_key(|p| (p.row, p.col));
    let mut recording = Recording {
        height,
        falls: Vec::new(),
        column_shifts: Vec::new(),
    };
    let columns_before = game.columns();
    let closed = game.remove(&members, span, &mut recording);
    recording
        .falls
        .sort_unstable_by_key(|fall| (fall.from.row, fall.from.col));
    let mut cells = source.cells().to_vec();
    let rewrite_to = if closed { columns_before } else { span.hi + 1 };
    game.write_columns(&mut cells, span.lo, rewrite_to);
    let after = SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells));
    let tiles_left = game.tiles_left();
    let game_over = !game.has_legal_group(min_group);
    Ok(TapOutcome {
        cleared,
        color: game.color_of(slot),
        falls: recording.falls,
        column_shifts: recording.column_shifts,
        board: after,
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

/// True when the game is over on `board`: no group of at least `min_group` cells remains.
pub fn is_game_over(board: &SettledBoard, min_group: MinGroup) -> bool {
    !CollapseGame::new(board).has_legal_group(min_group)
}

/// Every legal group once, ordered by representative (first cell) in row-major order.
pub fn legal_groups(
    board: &SettledBoard,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Vec<LegalGroup> {
    legal_groups_of(&CollapseGame::new(board), rule, min_group)
}

/// [`legal_groups`] of a position already in bitboards.
pub(crate) fn legal_groups_of(
    game: &CollapseGame,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Vec<LegalGroup> {
    let last = game.height() as u32 - 1;
    let mut groups = Vec::new();
    game.scan_groups(min_group.get(), |slot, members, span, size| {
        // The first cell row-major: the highest bit, in the leftmost column holding it.
        let (mut top, mut col) = (0, span.lo);
        for (c, &word) in members.iter().enumerate().take(span.hi + 1).skip(span.lo) {
            if word != 0 && 63 - word.leading_zeros() > top {
                (top, col) = (63 - word.leading_zeros(), c);
            }
        }
        groups.push(LegalGroup {
            representative: Position::new(last - top, col as u32),
            color: game.color_of(slot),
            size,
            score: rule.move_score(size),
        });
        true
    });
    groups.sort_unstable_by_key(|g| (g.representative.row, g.representative.col));
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
