//! [`tap`](super::tap) on a board of at most 16x16 cells ([`COMPACT_SIDE`]), straight from its
//! row-major cells: the tapped colour's [`Plane`] and the occupied cells are built a row at a
//! time with byte-parallel compares, the group is flooded there, and the cleared cells, falls
//! and column shifts are read from the planes; only the columns the tap changed are rewritten
//! in a copy of the cells.

use crate::board::{Board, EMPTY};
use crate::error::{EngineError, TapRejection};
use crate::gravity::Fall;
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::bitboard::low_bits;
use super::compact::{COMPACT_SIDE, CompactGame};
use super::plane::Plane;
use super::{ColumnShift, TapOutcome};

/// Every byte's top bit set.
const BYTE_TOP: u64 = 0x8080_8080_8080_8080;
/// Every byte's low seven bits set.
const BYTE_LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Bit `i` set when byte `i` of `x` is non-zero: an 8-bit mask.
#[inline]
fn nonzero_bytes(x: u64) -> u64 {
    let tops = (((x & BYTE_LOW) + BYTE_LOW) | x) & BYTE_TOP;
    // Bits 8i + 7 gathered into bits 56 + i, with no carries between the partial products.
    (tops >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The cells of colour `color` (`1..=16`) and the occupied cells of a board at most 16x16, as
/// planes, built a row at a time with byte-parallel compares and transposed into column lanes.
fn color_and_occupied(board: &Board, color: u8) -> (Plane, Plane) {
    let (width, height) = (board.width(), board.height());
    // Built with row lanes (lane `r` holds the row `r` above the bottom, bit `c` its column
    // `c`), then transposed into column lanes.
    let (mut same, mut occupied) = (Plane::EMPTY, Plane::EMPTY);
    let spread = u64::from(color) * 0x0101_0101_0101_0101;
    // Rows are read as two words straight from the cells where 16 bytes remain (the bytes
    // past the row masked off), else through a zero-padded copy.
    let low_mask = low_bits(8 * width.min(8) as u32);
    let high_mask = low_bits(8 * width.saturating_sub(8) as u32);
    let cells = board.cells();
    let word_at = |i: usize| u64::from_le_bytes(cells[i..i + 8].try_into().expect("8 bytes"));
    for lane in 0..height {
        let start = (height - 1 - lane) * width;
        let (low, high) = if start + 16 <= cells.len() {
            (word_at(start) & low_mask, word_at(start + 8) & high_mask)
        } else {
            let mut bytes = [0u8; 16];
            bytes[..width].copy_from_slice(&cells[start..start + width]);
            let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
            (word(0), word(8))
        };
        let full = nonzero_bytes(low) | nonzero_bytes(high) << 8;
        let other = nonzero_bytes(low ^ spread) | nonzero_bytes(high ^ spread) << 8;
        occupied.insert_column(lane as u32, full);
        same.insert_column(lane as u32, full & !other);
    }
    (same.transposed(), occupied.transposed())
}

/// Applies a tap at `position` as [`tap`](super::tap) does on a board of at most 16x16 cells;
/// `None` when the board is wider or taller than [`COMPACT_SIDE`] (the caller then taps on
/// column bitboards). `source` must be settled.
///
/// # Errors
/// As [`tap`](super::tap): [`EngineError::PositionOffBoard`] and [`EngineError::IllegalTap`].
pub(crate) fn tap_cells(
    source: &Board,
    position: Position,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Option<Result<TapOutcome, EngineError>> {
    let (width, height) = (source.width(), source.height());
    if width > COMPACT_SIDE || height > COMPACT_SIDE {
        return None;
    }
    let (row, col) = (position.row as usize, position.col as usize);
    if row >= height || col >= width {
        return Some(Err(EngineError::PositionOffBoard {
            field: "position",
            position,
            width,
            height,
        }));
    }
    let color = source.cells()[row * width + col];
    if color == EMPTY {
        return Some(Err(EngineError::IllegalTap(TapRejection::EmptyCell)));
    }
    let (plane, occupied) = color_and_occupied(source, color);
    let members = plane.group_of(Plane::single((16 * col + height - 1 - row) as u32));
    let size = members.count() as usize;
    if size < min_group.get() {
        return Some(Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size,
            min_group: min_group.get(),
        })));
    }
    let position_of = |index: u32| Position::new(height as u32 - 1 - index % 16, index / 16);
    let mut cleared = Vec::with_capacity(size);
    members.for_each_row_major(|index| cleared.push(position_of(index)));
    let touched = members.columns();
    // Tiles above a column's lowest cleared cell fall by the cleared cells below them.
    let mut movers = Plane::EMPTY;
    let mut columns = touched;
    while columns != 0 {
        let c = columns.trailing_zeros();
        columns &= columns - 1;
        let removed = members.column(c);
        movers.insert_column(
            c,
            occupied.column(c) & !removed & !low_bits(removed.trailing_zeros() + 1),
        );
    }
    let mut falls = Vec::new();
    movers.for_each_row_major(|index| {
        let removed = members.column(index / 16);
        let to = index - (removed & low_bits(index % 16)).count_ones();
        falls.push(Fall {
            from: position_of(index),
            to: position_of(to),
        });
    });
    let kept = occupied & !members;
    let remaining = kept.columns();
    let emptied = touched & !remaining;
    let mut column_shifts = Vec::new();
    if emptied != 0 {
        let mut moved = remaining & !low_bits(emptied.trailing_zeros()) as u32;
        while moved != 0 {
            let from = moved.trailing_zeros();
            moved &= moved - 1;
            column_shifts.push(ColumnShift {
                from_col: from,
                to_col: (remaining & low_bits(from) as u32).count_ones(),
            });
        }
    }
    // Rewrite the columns from the first touched one: each column's surviving tiles, bottom
    // up, into the next column kept; columns left over at the right are emptied.
    let lo = touched.trailing_zeros() as usize;
    let hi = if emptied != 0 {
        31 - occupied.columns().leading_zeros()
    } else {
        31 - touched.leading_zeros()
    } as usize;
    let before = source.cells();
    let mut cells = before.to_vec();
    let mut target = lo;
    for c in lo..=hi {
        let mut column = kept.column(c as u32);
        if column == 0 {
            continue;
        }
        let mut to = height;
        while column != 0 {
            let r = column.trailing_zeros() as usize;
            column &= column - 1;
            to -= 1;
            cells[to * width + target] = before[(height - 1 - r) * width + c];
        }
        for r in 0..to {
            cells[r * width + target] = EMPTY;
        }
        target += 1;
    }
    for c in target..=hi {
        for r in 0..height {
            cells[r * width + c] = EMPTY;
        }
    }
    let board = Board::from_engine_cells(width, height, cells);
    let tiles_left = occupied.count() as usize - size;
    let game_over = if min_group == MinGroup::DEFAULT {
        !super::has_adjacent_pair(&board)
    } else {
        !CompactGame::from_cells(&board)
            .expect("at most 16x16")
            .has_legal_group(min_group)
    };
    Some(Ok(TapOutcome {
        cleared,
        color,
        falls,
        column_shifts,
        board: SettledBoard::new_unchecked(board),
        move_score: rule.move_score(size),
        tiles_left,
        game_over,
        end_bonus: if game_over {
            rule.end_bonus(tiles_left)
        } else {
            0
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonzero_bytes_reads_every_byte() {
        for i in 0..64 {
            assert_eq!(nonzero_bytes(1u64 << i), 1 << (i / 8));
        }
        assert_eq!(nonzero_bytes(0x8000_0000_0001_ff00), 0b1000_0110);
        assert_eq!(nonzero_bytes(0), 0);
    }
}
