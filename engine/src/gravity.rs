//! Gravity and refill (docs/rules.md sections 2 and 3): in every column the remaining tiles fall straight
//! down (toward higher rows), keeping their order; refill fills the empty cells left at the top,
//! in row-major order.

use rand::Rng;

use super::bitboard::BitIter;
use super::board::{Board, EMPTY, MAX_SIDE, Position};

/// A tile moved by gravity (or by a column collapse, in the collapse family).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fall {
    /// Where the tile was.
    pub from: Position,
    /// Where it is now.
    pub to: Position,
}

/// A tile dropped into an empty cell by refill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spawn {
    /// The filled cell.
    pub position: Position,
    /// The colour drawn, `1..=colors`.
    pub color: u8,
}

/// What [`settle_columns`] did.
pub(crate) struct Settled {
    /// Per column, the number of empty cells now at its top (0 for columns not settled).
    pub(crate) empty_on_top: [u8; MAX_SIDE as usize],
    /// The colours of the tiles that moved: bit `c` for colour `c` (`1..=16`).
    pub(crate) moved_colors: u32,
}

/// Applies gravity to the columns of `columns` (bit `c` is column `c`; other columns must
/// already be settled) and, when `falls` is given, appends the tiles that moved ordered by
/// `from` in row-major order.
pub(crate) fn settle_columns(
    board: &mut Board,
    columns: u64,
    mut falls: Option<&mut Vec<Fall>>,
) -> Settled {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells_mut();
    let mut empty_on_top = [0u8; MAX_SIDE as usize];
    let mut moved_colors = 0u32;
    let first_fall = falls.as_ref().map_or(0, |f| f.len());
    for col in BitIter(columns & (u64::MAX >> (64 - width))) {
        let col = col as usize;
        let mut target = height; // one past the lowest free row
        for row in (0..height).rev() {
            let index = row * width + col;
            let cell = cells[index];
            if cell == EMPTY {
                continue;
            }
            target -= 1;
            if target != row {
                moved_colors |= 1 << cell;
                cells[target * width + col] = cell;
                cells[index] = EMPTY;
                if let Some(falls) = falls.as_deref_mut() {
                    falls.push(Fall {
                        from: Position::new(row as u32, col as u32),
                        to: Position::new(target as u32, col as u32),
                    });
                }
            }
        }
        empty_on_top[col] = target as u8;
    }
    if let Some(falls) = falls {
        falls[first_fall..].sort_unstable_by_key(|fall| (fall.from.row, fall.from.col));
    }
    Settled {
        empty_on_top,
        moved_colors,
    }
}

/// Fills the empty cells at the top of each column (`empty_on_top[c]` of them in column `c`,
/// as [`settle_columns`] leaves them) in row-major order with colours drawn uniformly from
/// `1..=colors`, appending the spawns when `spawns` is given. Returns the colours drawn: bit
/// `c` for colour `c`.
pub(crate) fn refill_tops<R: Rng + ?Sized>(
    board: &mut Board,
    empty_on_top: &[u8; MAX_SIDE as usize],
    colors: u8,
    rng: &mut R,
    mut spawns: Option<&mut Vec<Spawn>>,
) -> u32 {
    let mut drawn = 0u32;
    debug_assert!((1..=16).contains(&colors));
    let width = board.width();
    let deepest = usize::from(empty_on_top[..width].iter().copied().max().unwrap_or(0));
    let cells = board.cells_mut();
    for row in 0..deepest {
        for col in 0..width {
            if usize::from(empty_on_top[col]) > row {
                let color = rng.random_range(1..=colors);
                drawn |= 1 << color;
                cells[row * width + col] = color;
                if let Some(spawns) = spawns.as_deref_mut() {
                    spawns.push(Spawn {
                        position: Position::new(row as u32, col as u32),
                        color,
                    });
                }
            }
        }
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::color_from_char;

    /// Gravity on every column: the tiles that moved, ordered by `from` in row-major order.
    fn apply_gravity(board: &mut Board) -> Vec<Fall> {
        let mut falls = Vec::new();
        settle_columns(board, u64::MAX, Some(&mut falls));
        falls
    }

    #[test]
    fn tiles_fall_keeping_their_order() {
        let mut board = Board::parse("R../.G./B../...").unwrap();
        let falls = apply_gravity(&mut board);
        assert_eq!(board.to_string(), ".../.../R../BG.");
        assert_eq!(
            falls,
            vec![
                Fall {
                    from: Position::new(0, 0),
                    to: Position::new(2, 0)
                },
                Fall {
                    from: Position::new(1, 1),
                    to: Position::new(3, 1)
                },
                Fall {
                    from: Position::new(2, 0),
                    to: Position::new(3, 0)
                },
            ]
        );
    }

    #[test]
    fn settling_reports_the_colours_that_moved() {
        let mut board = Board::parse("R../GY./BB./.R.").unwrap();
        let settled = settle_columns(&mut board, 0b01, None);
        assert_eq!(board.to_string(), ".../RY./GB./BR.");
        let [r, g, b] = ['R', 'G', 'B'].map(|ch| color_from_char(ch).unwrap());
        assert_eq!(settled.moved_colors, 1 << r | 1 << g | 1 << b);
        assert_eq!(&settled.empty_on_top[..3], &[1, 0, 0]);
    }

    #[test]
    fn settled_columns_do_not_move() {
        let mut board = Board::parse(".G/RG").unwrap();
        assert!(apply_gravity(&mut board).is_empty());
        assert_eq!(board.to_string(), ".G/RG");
    }

    #[test]
    fn refill_fills_every_empty_cell_from_the_palette() {
        use rand::SeedableRng;
        let mut board = Board::parse("../.R").unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let settled = settle_columns(&mut board, u64::MAX, None);
        // The R is already at the bottom of its column.
        assert_eq!(settled.moved_colors, 0);
        let mut spawns = Vec::new();
        let drawn = refill_tops(
            &mut board,
            &settled.empty_on_top,
            3,
            &mut rng,
            Some(&mut spawns),
        );
        assert_eq!(
            drawn,
            spawns
                .iter()
                .map(|spawn| 1 << spawn.color)
                .fold(0, |a, b| a | b)
        );
        assert_eq!(spawns.len(), 3);
        assert_eq!(
            spawns.iter().map(|s| s.position).collect::<Vec<_>>(),
            vec![
                Position::new(0, 0),
                Position::new(0, 1),
                Position::new(1, 0)
            ]
        );
        assert!(board.cells().iter().all(|&c| (1..=3).contains(&c)));
        assert_eq!(board.at(3), 1);
    }
}
