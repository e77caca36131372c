//! [`tap`](super::tap) and [`legal_groups`](super::legal_groups) on column bitboards
//! ([`CollapseGame`]), for boards of any size: a tap's group is flooded and removed by the same
//! core a playout uses, with a recorder that lists the falls and column shifts as the API
//! reports them.

use crate::board::{Board, Position};
use crate::error::{EngineError, TapRejection};
use crate::gravity::Fall;
use crate::params::MinGroup;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::bitboard::{CollapseGame, ColumnMask, TapRecorder, low_bits};
use super::{ColumnShift, LegalGroup, TapOutcome};

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

/// [`tap`](super::tap) on column bitboards ([`CollapseGame`]), for boards of any size.
///
/// # Errors
/// As [`tap`](super::tap): [`EngineError::PositionOffBoard`] and [`EngineError::IllegalTap`].
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

/// [`legal_groups`](super::legal_groups) of a position already in bitboards: every legal group
/// once, ordered by representative (first cell) in row-major order.
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
