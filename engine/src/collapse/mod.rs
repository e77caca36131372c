//! The collapse family: PopStar (消灭星星), SameGame, Clickomania, Bubble Breaker (docs/rules.md section 3).
//!
//! The group of a tapped cell is its 4-connected component of one colour. A tap is legal iff
//! the cell is non-empty and its group has at least `min_group` cells. Applying it clears the
//! whole group, applies gravity within each column, then removes every entirely empty column,
//! sliding the columns to its right left in order. The game is over when no legal group remains.
//!
//! The rules run on column bitboards ([`CollapseGame`], in [`bitboard`]) for every size, and on
//! 256-bit planes ([`CompactGame`], in [`compact`]) for boards of at most 16x16: [`tap`],
//! [`legal_groups`] and [`is_game_over`] build the planes straight from the row-major
//! [`SettledBoard`] when it fits (only the tapped colour and the occupied cells for a tap), else
//! the column bitboards, and record what the API reports (cleared cells, falls, column shifts).
//! The property tests hold both paths to a scalar reference on every size 1..=64.
//!
//! On top of the rules: [`solve()`] (Nested Monte-Carlo Search with TabuColorRandom playouts, in
//! [`solve`](mod@solve)) and [`replay()`] (a whole game checked at once, with [`board_digest`]).

mod bitboard;
mod compact;
mod playout;
mod replay;
mod solve;

pub use bitboard::{CollapseGame, TapGroup};
pub use compact::{COMPACT_SIDE, CompactGame};
pub use playout::CollapsePlayout;
pub use replay::{
    MAX_REPLAY_TAPS, RefusedTap, Replay, ReplayedMove, TapRefusal, board_digest, replay,
};
pub use solve::{
    DEFAULT_SCREEN_WIDTH, DEFAULT_SOLVE_LEVEL, DEFAULT_SOLVE_NODES, MAX_SCREEN_WIDTH,
    MAX_SOLVE_LEVEL, MAX_SOLVE_MILLIS, MAX_SOLVE_NODES, NodeBudget, ScreenWidth, Solution,
    SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule, SolveStop, SolvedMove,
    parse_time_limit, solve,
};

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
    compact::tap_cells(board.board(), position, rule, min_group)
        .unwrap_or_else(|| tap_columns(board, position, rule, min_group))
}

/// [`tap`] on column bitboards ([`CollapseGame`]), for boards of any size.
pub(crate) fn tap_columns(
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
    if min_group == MinGroup::DEFAULT {
        // A group of two exists iff two neighbours share a colour: on most boards a scan of the
        // cells finds such a pair within a few cells, sooner than the bitboards are built.
        return !has_adjacent_pair(board.board());
    }
    match CompactGame::from_cells(board.board()) {
        Some(game) => !game.has_legal_group(min_group),
        None => !CollapseGame::new(board).has_legal_group(min_group),
    }
}

/// True when two orthogonally adjacent cells hold the same colour.
pub(crate) fn has_adjacent_pair(board: &Board) -> bool {
    let (width, cells) = (board.width(), board.cells());
    cells.iter().enumerate().any(|(index, &cell)| {
        cell != super::board::EMPTY
            && ((index % width + 1 < width && cells[index + 1] == cell)
                || cells.get(index + width) == Some(&cell))
    })
}

/// Every legal group once, ordered by representative (first cell) in row-major order.
pub fn legal_groups(
    board: &SettledBoard,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Vec<LegalGroup> {
    match CompactGame::from_cells(board.board()) {
        Some(game) => game.legal_groups(rule, min_group),
        None => legal_groups_of(&CollapseGame::new(board), rule, min_group),
    }
}

/// [`legal_groups`] of a position already in bitboards.
pub(crate) fn legal_groups_of(
    game: &CollapseGame,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Vec<LegalGroup> {
    let last = game.height() as u32 - 1;
    // Sort keys: row (6 bits), column (6 bits), index into `found` (12 bits).
    let mut keys: Vec<u32> = Vec::new();
    let mut found = Vec::new();
    game.scan_groups(min_group.get(), |slot, members, span, size| {
        // The first cell row-major: the highest bit, in the leftmost column holding it.
        let (mut top, mut col) = (0, span.lo);
        for (c, &word) in members.iter().enumerate().take(span.hi + 1).skip(span.lo) {
            if word != 0 && 63 - word.leading_zeros() > top {
                (top, col) = (63 - word.leading_zeros(), c);
            }
        }
        let row = last - top;
        keys.push(row << 18 | (col as u32) << 12 | found.len() as u32);
        found.push(LegalGroup {
            representative: Position::new(row, col as u32),
            color: game.color_of(slot),
            size,
            score: rule.move_score(size),
        });
        true
    });
    keys.sort_unstable();
    keys.iter()
        .map(|&key| found[(key & 0xfff) as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Unsettled;

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

/// The bitboard core against a scalar reference written from the rules' words (row-major cells,
/// breadth-first flood fill, gravity and column closing by rebuilding columns), on random
/// settled boards of every size 1..=64, including 64-tall columns, 64-wide rows and 1-wide
/// boards.
#[cfg(test)]
mod reference_tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::*;
    use crate::board::EMPTY;

    /// A deterministic generator for the sweeps (SplitMix64).
    struct Mix(u64);

    impl Mix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random settled board: a prefix of non-empty columns, each a stack of tiles from the
    /// bottom (often full), coloured from a random palette of `1..=colors` colours out of 16.
    fn random_settled(width: usize, height: usize, colors: usize, mix: &mut Mix) -> Vec<u8> {
        let mut palette: Vec<u8> = (1..=16).collect();
        for i in (1..palette.len()).rev() {
            palette.swap(i, mix.below(i + 1));
        }
        let filled = if mix.below(4) == 0 {
            mix.below(width + 1)
        } else {
            width
        };
        let mut cells = vec![EMPTY; width * height];
        for col in 0..filled {
            let stack = if mix.below(2) == 0 {
                height
            } else {
                1 + mix.below(height)
            };
            for row in height - stack..height {
                cells[row * width + col] = palette[mix.below(colors)];
            }
        }
        cells
    }

    fn neighbours(width: usize, height: usize, index: usize) -> impl Iterator<Item = usize> {
        let (row, col) = (index / width, index % width);
        [
            (row > 0).then(|| index - width),
            (row + 1 < height).then(|| index + width),
            (col > 0).then(|| index - 1),
            (col + 1 < width).then(|| index + 1),
        ]
        .into_iter()
        .flatten()
    }

    /// The component of the non-empty cell `start`, row-major.
    fn component(cells: &[u8], width: usize, height: usize, start: usize) -> Vec<usize> {
        let mut seen = vec![false; cells.len()];
        let mut queue = VecDeque::from([start]);
        seen[start] = true;
        let mut members = Vec::new();
        while let Some(i) = queue.pop_front() {
            members.push(i);
            for j in neighbours(width, height, i) {
                if !seen[j] && cells[j] == cells[start] {
                    seen[j] = true;
                    queue.push_back(j);
                }
            }
        }
        members.sort_unstable();
        members
    }

    /// Legal groups as (first cell, colour, size), by first cell row-major.
    fn reference_groups(cells: &[u8], width: usize, height: usize, min: usize) -> Vec<LegalGroup> {
        let mut seen = vec![false; cells.len()];
        let mut groups = Vec::new();
        for i in 0..cells.len() {
            if cells[i] == EMPTY || seen[i] {
                continue;
            }
            let members = component(cells, width, height, i);
            for &j in &members {
                seen[j] = true;
            }
            if members.len() >= min {
                groups.push(LegalGroup {
                    representative: Position::new((i / width) as u32, (i % width) as u32),
                    color: cells[i],
                    size: members.len(),
                    score: ScoringRule::PopStar.move_score(members.len()),
                });
            }
        }
        groups
    }

    /// The rules' tap: clear, let each column fall (recording falls), close empty columns.
    fn reference_tap(
        cells: &[u8],
        width: usize,
        height: usize,
        start: usize,
    ) -> (Vec<u8>, Vec<Position>, Vec<Fall>, Vec<ColumnShift>) {
        let members = component(cells, width, height, start);
        let mut board = cells.to_vec();
        for &i in &members {
            board[i] = EMPTY;
        }
        let mut falls = Vec::new();
        let mut columns: Vec<Vec<u8>> = Vec::new();
        for col in 0..width {
            let mut stack = Vec::new(); // bottom up
            for row in (0..height).rev() {
                let cell = board[row * width + col];
                if cell != EMPTY {
                    let to = height - 1 - stack.len();
                    if to != row {
                        falls.push(Fall {
                            from: Position::new(row as u32, col as u32),
                            to: Position::new(to as u32, col as u32),
                        });
                    }
                    stack.push(cell);
                }
            }
            columns.push(stack);
        }
        falls.sort_by_key(|f| (f.from.row, f.from.col));
        let mut shifts = Vec::new();
        let mut after = vec![EMPTY; width * height];
        let mut target = 0;
        for (col, stack) in columns.iter().enumerate() {
            if stack.is_empty() {
                continue;
            }
            if target != col {
                shifts.push(ColumnShift {
                    from_col: col as u32,
                    to_col: target as u32,
                });
            }
            for (k, &cell) in stack.iter().enumerate() {
                after[(height - 1 - k) * width + target] = cell;
            }
            target += 1;
        }
        let cleared = members
            .iter()
            .map(|&i| Position::new((i / width) as u32, (i % width) as u32))
            .collect();
        (after, cleared, falls, shifts)
    }

    fn settled(cells: &[u8], width: usize, height: usize) -> SettledBoard {
        SettledBoard::try_from(Board::from_engine_cells(width, height, cells.to_vec())).unwrap()
    }

    /// Every query and one tap on one board against the reference; then a playout of up to
    /// `moves` taps on `CollapseGame`, checked against the reference after every tap.
    fn check_board(
        cells: &[u8],
        width: usize,
        height: usize,
        min: usize,
        moves: usize,
        mix: &mut Mix,
    ) {
        let min_group = MinGroup::parse(min as u32).unwrap();
        let board = settled(cells, width, height);
        let label = format!("{width}x{height} min {min} {}", board.board());
        let expected = reference_groups(cells, width, height, min);
        let groups = legal_groups(&board, ScoringRule::PopStar, min_group);
        assert_eq!(groups, expected, "{label}");
        let columns = legal_groups_of(&CollapseGame::new(&board), ScoringRule::PopStar, min_group);
        assert_eq!(columns, expected, "{label}: column bitboards");
        if let Some(compact) = CompactGame::from_board(&board) {
            assert_eq!(
                Some(&compact),
                CompactGame::new(&CollapseGame::new(&board)).as_ref()
            );
        }
        assert_eq!(
            is_game_over(&board, min_group),
            expected.is_empty(),
            "{label}"
        );
        let game = CollapseGame::new(&board);
        assert_eq!(
            game.count_legal_groups(min_group),
            expected.len(),
            "{label}"
        );
        assert_eq!(game.to_settled_board(), board, "{label}");
        assert_eq!(
            game.tiles_left(),
            cells.iter().filter(|&&c| c != EMPTY).count()
        );
        let mut found = Vec::new();
        game.legal_groups_into(min_group, &mut found);
        let mut named: Vec<LegalGroup> = found
            .iter()
            .map(|g| {
                let i = g.position.row as usize * width + g.position.col as usize;
                let members = component(cells, width, height, i);
                assert_eq!((g.color, g.size), (cells[i], members.len()), "{label}");
                expected
                    .iter()
                    .find(|e| {
                        let r = e.representative;
                        members[0] == r.row as usize * width + r.col as usize
                    })
                    .copied()
                    .unwrap_or_else(|| panic!("{label}: {g:?} is not a legal group"))
            })
            .collect();
        named.sort_unstable_by_key(|g| (g.representative.row, g.representative.col));
        assert_eq!(named, expected, "{label}: legal_groups_into");

        // One tap through the recording API, at a random cell.
        let index = mix.below(cells.len());
        let position = Position::new((index / width) as u32, (index % width) as u32);
        let outcome = tap(&board, position, ScoringRule::PopStar, min_group);
        assert_eq!(
            outcome,
            tap_columns(&board, position, ScoringRule::PopStar, min_group),
            "{label}: column bitboards"
        );
        if cells[index] == EMPTY {
            assert_eq!(
                outcome,
                Err(EngineError::IllegalTap(TapRejection::EmptyCell))
            );
        } else {
            let size = component(cells, width, height, index).len();
            if size < min {
                assert_eq!(
                    outcome,
                    Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                        size,
                        min_group: min
                    })),
                    "{label}"
                );
            } else {
                let (after, cleared, falls, shifts) = reference_tap(cells, width, height, index);
                let outcome = outcome.unwrap();
                let left = after.iter().filter(|&&c| c != EMPTY).count();
                let over = reference_groups(&after, width, height, min).is_empty();
                assert_eq!(
                    outcome.board.board().cells(),
                    &after[..],
                    "{label} tap {position}"
                );
                assert_eq!(outcome.cleared, cleared, "{label}");
                assert_eq!(outcome.color, cells[index]);
                assert_eq!(outcome.falls, falls, "{label} tap {position}");
                assert_eq!(outcome.column_shifts, shifts, "{label} tap {position}");
                assert_eq!(outcome.move_score, 5 * (size * size) as u64);
                assert_eq!((outcome.tiles_left, outcome.game_over), (left, over));
                let bonus = if over {
                    ScoringRule::PopStar.end_bonus(left)
                } else {
                    0
                };
                assert_eq!(outcome.end_bonus, bonus);
            }
        }

        // A playout on the bitboards, every position checked.
        let mut game = game;
        let mut tracked = CollapsePlayout::new(game.clone(), min_group);
        let mut cells = cells.to_vec();
        for _ in 0..moves {
            check_tracked(&tracked, &cells, width, height, min, &label);
            let groups = reference_groups(&cells, width, height, min);
            if groups.is_empty() {
                break;
            }
            let pick = groups[mix.below(groups.len())];
            let start = pick.representative.row as usize * width + pick.representative.col as usize;
            let size = game.apply_tap(pick.representative, min_group).unwrap();
            assert_eq!(size, pick.size, "{label}");
            let index = (0..tracked.group_count())
                .find(|&i| {
                    let p = tracked.group(i).position;
                    let i = p.row as usize * width + p.col as usize;
                    component(&cells, width, height, i)[0] == start
                })
                .unwrap_or_else(|| panic!("{label}: tracked groups miss {pick:?}"));
            assert_eq!(tracked.tap_group(index), size, "{label}");
            cells = reference_tap(&cells, width, height, start).0;
            assert_eq!(
                game.to_settled_board().board().cells(),
                &cells[..],
                "{label}"
            );
            assert_eq!(
                game.count_legal_groups(min_group),
                reference_groups(&cells, width, height, min).len()
            );
            assert_eq!(
                game.tiles_left(),
                cells.iter().filter(|&&c| c != EMPTY).count()
            );
        }
        check_tracked(&tracked, &cells, width, height, min, &label);
        check_compact(&board, min, mix);
    }

    /// [`CompactGame`] on `board`: `None` above 16x16; else its queries against the reference
    /// and a random playout to game over, every tap and position checked.
    fn check_compact(board: &SettledBoard, min: usize, mix: &mut Mix) {
        let (width, height) = (board.board().width(), board.board().height());
        let label = format!("compact {width}x{height} min {min} {}", board.board());
        let min_group = MinGroup::parse(min as u32).unwrap();
        let Some(mut compact) = CompactGame::new(&CollapseGame::new(board)) else {
            assert!(width > COMPACT_SIDE || height > COMPACT_SIDE, "{label}");
            return;
        };
        assert!(width <= COMPACT_SIDE && height <= COMPACT_SIDE, "{label}");
        assert_eq!((compact.width(), compact.height()), (width, height));
        let mut rng = crate::rng_from_seed(mix.next());
        let mut cells = board.board().cells().to_vec();
        loop {
            assert_eq!(
                compact.to_settled_board().board().cells(),
                &cells[..],
                "{label}"
            );
            let tiles = cells.iter().filter(|&&c| c != EMPTY).count();
            assert_eq!(compact.tiles_left(), tiles, "{label}");
            let expected = reference_groups(&cells, width, height, min);
            assert_eq!(
                compact.count_legal_groups(min_group),
                expected.len(),
                "{label}"
            );
            assert_eq!(compact.has_legal_group(min_group), !expected.is_empty());
            let Some(tapped) = compact.tap_random(min_group, &mut rng) else {
                assert!(expected.is_empty(), "{label}: game over too early");
                break;
            };
            let index = tapped.position.row as usize * width + tapped.position.col as usize;
            let members = component(&cells, width, height, index);
            assert_eq!((tapped.color, tapped.size), (cells[index], members.len()));
            // The recording API on this position, against the column bitboards and the
            // reference.
            let here = settled(&cells, width, height);
            let recorded = tap(&here, tapped.position, ScoringRule::PopStar, min_group);
            assert_eq!(
                recorded,
                tap_columns(&here, tapped.position, ScoringRule::PopStar, min_group),
                "{label}"
            );
            let (after, cleared, falls, shifts) = reference_tap(&cells, width, height, index);
            let recorded = recorded.unwrap();
            assert_eq!(recorded.board.board().cells(), &after[..], "{label}");
            assert_eq!(
                (recorded.cleared, recorded.falls, recorded.column_shifts),
                (cleared, falls, shifts),
                "{label}"
            );
            assert_eq!(
                legal_groups(&here, ScoringRule::PopStar, min_group),
                expected
            );
            assert!(tapped.size >= min, "{label}: {tapped:?}");
            cells = reference_tap(&cells, width, height, index).0;
        }
    }

    /// `tap_random` draws every legal group equally often, whatever its size, by rejection
    /// (min_group 2) and by counting (min_group 3).
    #[test]
    fn compact_draws_are_uniform() {
        // Groups: A (2 cells), B (6 cells), C (3 cells); min_group 3 leaves B and C.
        let board = SettledBoard::try_from(Board::parse("ABBB/ABBB/CCCD").unwrap()).unwrap();
        let start = CompactGame::new(&CollapseGame::new(&board)).unwrap();
        let cells = board.board().cells();
        let (a, b, c) = (cells[0], cells[1], cells[8]);
        let mut rng = crate::rng_from_seed(7);
        for (min, colours) in [(2, vec![a, b, c]), (3, vec![b, c])] {
            let min_group = MinGroup::parse(min).unwrap();
            let draws = 30_000;
            let mut seen = [0usize; 17];
            for _ in 0..draws {
                let tapped = start.clone().tap_random(min_group, &mut rng).unwrap();
                seen[usize::from(tapped.color)] += 1;
            }
            let share = draws / colours.len();
            for &colour in &colours {
                let n = seen[usize::from(colour)];
                // About six standard deviations of the binomial count (~82 and ~87 draws).
                assert!(n.abs_diff(share) < share / 20, "min {min}: {seen:?}");
            }
            assert_eq!(seen.iter().sum::<usize>(), draws);
        }
    }

    /// The tracked groups of `tracked` are exactly the reference's legal groups of `cells`.
    fn check_tracked(
        tracked: &CollapsePlayout,
        cells: &[u8],
        width: usize,
        height: usize,
        min: usize,
        label: &str,
    ) {
        assert_eq!(
            tracked.game().to_settled_board().board().cells(),
            cells,
            "{label}"
        );
        let expected = reference_groups(cells, width, height, min);
        let mut named: Vec<LegalGroup> = (0..tracked.group_count())
            .map(|i| {
                let g = tracked.group(i);
                let i = g.position.row as usize * width + g.position.col as usize;
                let members = component(cells, width, height, i);
                assert_eq!((g.color, g.size), (cells[i], members.len()), "{label}");
                let first = members[0];
                LegalGroup {
                    representative: Position::new((first / width) as u32, (first % width) as u32),
                    color: g.color,
                    size: g.size,
                    score: ScoringRule::PopStar.move_score(g.size),
                }
            })
            .collect();
        named.sort_unstable_by_key(|g| (g.representative.row, g.representative.col));
        assert_eq!(named, expected, "{label}: tracked groups");
    }

    #[test]
    fn every_side_from_1_to_64() {
        let mut mix = Mix(64);
        for n in 1..=64 {
            for (width, height) in [(n, 1), (1, n), (n, 64), (64, n), (n, n)] {
                for colors in [1, 2, 5] {
                    let cells = random_settled(width, height, colors, &mut mix);
                    let min = 2 + mix.below(3);
                    check_board(&cells, width, height, min, 12, &mut mix);
                }
            }
        }
    }

    #[test]
    fn taps_reject_like_the_reference() {
        let game = CollapseGame::new(&settled(&[1, 0, 1, 2], 2, 2));
        assert!(matches!(
            game.clone()
                .apply_tap(Position::new(0, 2), MinGroup::DEFAULT),
            Err(EngineError::PositionOffBoard {
                field: "position",
                ..
            })
        ));
        assert_eq!(
            game.clone()
                .apply_tap(Position::new(0, 1), MinGroup::DEFAULT),
            Err(EngineError::IllegalTap(TapRejection::EmptyCell))
        );
        assert_eq!(
            game.clone()
                .apply_tap(Position::new(1, 1), MinGroup::DEFAULT),
            Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
                size: 1,
                min_group: 2
            }))
        );
        let mut tapped = game.clone();
        assert_eq!(
            tapped.apply_tap(Position::new(1, 0), MinGroup::DEFAULT),
            Ok(2)
        );
        assert_eq!(tapped.to_settled_board().board().to_string(), "../G.");
        assert_eq!(tapped.tiles_left(), 1);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(160))]

        #[test]
        fn bitboard_matches_the_reference(
            width in 1usize..=64,
            height in 1usize..=64,
            colors in 1usize..=7,
            min in 2usize..=5,
            seed in any::<u64>(),
        ) {
            let mut mix = Mix(seed);
            let cells = random_settled(width, height, colors, &mut mix);
            check_board(&cells, width, height, min, 8, &mut mix);
        }

        /// Small boards played to game over, every position checked.
        #[test]
        fn playouts_to_game_over_match_the_reference(
            width in 1usize..=16,
            height in 1usize..=16,
            colors in 1usize..=6,
            min in 2usize..=4,
            seed in any::<u64>(),
        ) {
            let mut mix = Mix(seed);
            let cells = random_settled(width, height, colors, &mut mix);
            check_board(&cells, width, height, min, usize::MAX, &mut mix);
        }
    }
}
