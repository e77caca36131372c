//! Gravity and refill (docs/rules.md sections 2 and 3): in every column the remaining tiles fall straight
//! down (toward higher rows), keeping their order; refill fills the empty cells left at the top.

use rand::Rng;

use super::board::{Board, EMPTY, Position};

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

/// Applies gravity to every column and returns the tiles that moved, ordered by `from` in
/// row-major order.
pub fn apply_gravity(board: &mut Board) -> Vec<Fall> {
    let (width, height) = (board.width(), board.height());
    let cells = board.cells_mut();
    let mut falls = Vec::new();
    for col in 0..width {
        let mut target = height; // one past the lowest free row
        for row in (0..height).rev() {
            let cell = cells[row * width + col];
            if cell == EMPTY {
                continue;
            }
            target -= 1;
            if target != row {
                cells[target * width + col] = cell;
                cells[row * width + col] = EMPTY;
                falls.push(Fall {
                    from: Position::new(row as u32, col as u32),
                    to: Position::new(target as u32, col as u32),
                });
            }
        }
    }
    falls.sort_unstable_by_key(|fall| (fall.from.row, fall.from.col));
    falls
}

/// Fills every empty cell, in row-major order, with a colour drawn uniformly from
/// `1..=colors` (`colors` in `1..=16`), and returns the spawns in that order.
pub fn refill<R: Rng + ?Sized>(board: &mut Board, colors: u8, rng: &mut R) -> Vec<Spawn> {
    debug_assert!((1..=16).contains(&colors));
    let width = board.width();
    let mut spawns = Vec::new();
    for (index, cell) in board.cells_mut().iter_mut().enumerate() {
        if *cell == EMPTY {
            *cell = rng.random_range(1..=colors);
            spawns.push(Spawn {
                position: Position::new((index / width) as u32, (index % width) as u32),
                color: *cell,
            });
        }
    }
    spawns
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let spawns = refill(&mut board, 3, &mut rng);
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
