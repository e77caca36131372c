//! [`generate_clearable_collapse_board`]: a full collapse board built backwards from an empty
//! one, so that a known tap sequence clears every tile.
//!
//! **Method: reverse construction** (the idea of Simon Tatham's Same Game, in his Portable
//! Puzzle Collection: build the board by undoing moves from a cleared one). Starting from an
//! empty board, each step *un-taps* a group: it inserts `k >= min_group` connected cells of one
//! colour into the board, lifting the tiles above them (and, for a new column, moving the
//! columns right of it one column right), where no neighbour of the new cells has their colour.
//! Tapping those cells on the new board then clears exactly them, and gravity and the column
//! collapse give back the board before the step. The steps repeat until the board is full; the
//! taps of the steps in reverse order clear it. Four shapes are inserted, at random places:
//!
//! - a vertical run of `k` cells in an existing column (at any height of it);
//! - a new column of `k` cells (at any column position);
//! - a horizontal run, one cell in each of `k` adjacent columns at the same height;
//! - a row of `k` new one-cell columns.
//!
//! Group sizes are `min_group..=min_group + 2` (vertical runs up to `2 * min_group - 1`).
//! While the board is at least `min_group` rows high, every column's free space is kept at 0 or
//! at least `min_group`, so a vertical run always fits until the board is full. A colour that no
//! neighbour has may still be missing (few colours): then the last one to three insertions are
//! undone, and an attempt that backtracks more than once per cell starts again with the next
//! draws (64 attempts and 2,000 placement tries a cell, at most 10^6, a call).

use rand::Rng;
use rand::seq::SliceRandom;

use crate::board::{Board, EMPTY};
use crate::error::EngineError;
use crate::params::{GenerationSize, MinGroup};
use crate::position::Position;
use crate::settled::SettledBoard;

/// Attempts of the construction before the fallback board.
const ATTEMPTS: u32 = 64;
/// Random placements tried per step of an attempt before it starts again.
const TRIES_PER_STEP: u32 = 48;
/// Random placements tried per cell of the board over all attempts of one call.
const TRIES_PER_CELL: u64 = 2_000;
/// At most this many placement tries per call, so a refusal on a large board stays near 0.1 s.
const MAX_TRIES: u64 = 1_000_000;

/// A full board and a tap sequence that clears it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClearableBoard {
    /// A full board (no empty cell) of the requested size, colours in `1..=colors`.
    pub board: SettledBoard,
    /// Taps (each a group's first cell in row-major order on the board before it) that clear
    /// `board` to no tile under any scoring rule with the requested `min_group`.
    pub line: Vec<Position>,
    /// Construction attempts used, `1..=64`.
    pub attempts: u32,
}

/// Generates a full `size` board that a known tap sequence clears, by reverse construction
/// (see the module docs): the board and its clearing line are fixed by `rng`'s draws.
///
/// Colours are drawn uniformly from `1..=colors` for each inserted group among those no
/// neighbour has, so every colour appears on boards with many groups but need not on small
/// ones. With one colour the board is one group and one tap clears it.
///
/// Speed (`cargo run --release -p matchgrid-engine --example clearable_boards`): about 12 µs
/// for 10x10 with 5 colours, 32 µs for 15x15 with 5, under 1 ms for 64x64 with 16; 3 colours
/// need several attempts (about 2.3 ms for 10x10).
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `min_group` when it exceeds `width * height` (no
/// group that large fits, so nothing can be cleared), and naming `colors` when the 64 attempts
/// or the call's budget of placement tries run out: with 2 colours past a few dozen cells, with 3 on boards much past 10x10, and on
/// some boards lower than `min_group` rows (which fill by rows of groups only).
pub fn generate_clearable_collapse_board<R: Rng + ?Sized>(
    size: GenerationSize,
    min_group: MinGroup,
    rng: &mut R,
) -> Result<ClearableBoard, EngineError> {
    let (width, height, colors) = (size.width(), size.height(), size.colors());
    let min_group = min_group.get();
    if min_group > width * height {
        return Err(EngineError::InvalidParameter {
            field: "min_group",
            reason: format!(
                "{min_group} exceeds the {} cells of a {width}x{height} board, so no board \
                 can be cleared",
                width * height
            ),
        });
    }
    if colors == 1 {
        let board = Board::from_engine_cells(width, height, vec![1; width * height]);
        return Ok(ClearableBoard {
            board: SettledBoard::new_unchecked(board),
            line: vec![Position::new(0, 0)],
            attempts: 1,
        });
    }
    let mut builder = Builder::new(width, height, colors, min_group);
    for attempt in 1..=ATTEMPTS {
        if builder.tries_left == 0 {
            break;
        }
        if builder.attempt(rng) {
            return Ok(builder.finish(attempt));
        }
    }
    Err(EngineError::InvalidParameter {
        field: "colors",
        reason: format!(
            "no clearable {width}x{height} board with {colors} colours and min_group {min_group} \
             was found by reverse construction within its budget (every inserted group \
             must be walled in by other colours, which with 2 colours, or 3 on large boards, \
             the construction rarely completes; a board lower than min_group rows fills by \
             rows of groups only): use more colours, or 1"
        ),
    })
}

/// The board being built backwards: columns bottom up, and the groups inserted so far.
struct Builder {
    width: usize,
    height: usize,
    min_group: usize,
    /// The non-empty columns, left to right, each bottom up.
    columns: Vec<Vec<u8>>,
    /// Each inserted group's first cell row-major as `(col, r)` (`r` from the bottom), on the
    /// board right after its insertion.
    taps: Vec<(usize, usize)>,
    /// Placement tries left for the whole call: [`TRIES_PER_CELL`] per cell, at most
    /// [`MAX_TRIES`], so a request the construction cannot complete is refused in bounded time.
    tries_left: u64,
    /// The shapes inserted so far, in order.
    placed: Vec<Shape>,
    /// Scratch: the colours in a random order.
    palette: Vec<u8>,
}

/// One group to insert: `cells` at `(col, r)` on the board after the insertion.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// `len` cells into existing column `col` from height `r` up.
    Vertical { col: usize, r: usize, len: usize },
    /// A new column of `len` cells at column position `col`.
    NewColumn { col: usize, len: usize },
    /// One cell at height `r` into each of the existing columns `col..col + len`.
    Horizontal { col: usize, r: usize, len: usize },
    /// `len` new one-cell columns at column positions `col..col + len`.
    NewRow { col: usize, len: usize },
}

impl Shape {
    /// Cells of the shape.
    fn len(self) -> usize {
        match self {
            Shape::Vertical { len, .. }
            | Shape::NewColumn { len, .. }
            | Shape::Horizontal { len, .. }
            | Shape::NewRow { len, .. } => len,
        }
    }
}

impl Builder {
    fn new(width: usize, height: usize, colors: u8, min_group: usize) -> Self {
        Self {
            width,
            height,
            min_group,
            columns: Vec::with_capacity(width),
            taps: Vec::new(),
            placed: Vec::new(),
            tries_left: (TRIES_PER_CELL * (width * height) as u64).min(MAX_TRIES),
            palette: (1..=colors).collect(),
        }
    }

    /// One construction from an empty board; true when the board is full. A step where no
    /// random placement fits undoes the last one to three insertions (at most `width * height`
    /// times an attempt) before the attempt gives up.
    fn attempt<R: Rng + ?Sized>(&mut self, rng: &mut R) -> bool {
        self.columns.clear();
        self.taps.clear();
        self.placed.clear();
        let cells = self.width * self.height;
        let (mut filled, mut backtracks) = (0, 0);
        while filled < cells {
            let placed = (0..TRIES_PER_STEP).find_map(|_| {
                self.tries_left = self.tries_left.checked_sub(1)?;
                let shape = self.draw_shape(rng)?;
                self.place(shape, rng).then_some(shape)
            });
            match placed {
                Some(shape) => {
                    filled += shape.len();
                    self.placed.push(shape);
                }
                None => {
                    backtracks += 1;
                    if self.placed.is_empty() || backtracks > cells || self.tries_left == 0 {
                        return false;
                    }
                    for _ in 0..rng.random_range(1..=3).min(self.placed.len()) {
                        let shape = self.placed.pop().expect("counted");
                        self.remove(shape);
                        self.taps.pop();
                        filled -= shape.len();
                    }
                }
            }
        }
        true
    }

    /// True when a column may be left with `free` empty cells: 0, or room for a vertical run
    /// (on boards at least `min_group` high; lower boards fill by rows only).
    fn free_ok(&self, free: usize) -> bool {
        free == 0 || free >= self.min_group || self.height < self.min_group
    }

    /// A random length of a vertical run into `free` empty cells that leaves a free space
    /// [`free_ok`](Self::free_ok) accepts, or `None` when none does.
    fn vertical_len<R: Rng + ?Sized>(&self, free: usize, rng: &mut R) -> Option<usize> {
        // Up to 2 * min_group - 1, so every free space of min_group or more has a length that
        // fills it or leaves min_group or more.
        let m = self.min_group;
        let lengths = m..=(2 * m - 1).max(m + 2);
        let fits = |len: &usize| *len <= free && self.free_ok(free - len);
        let count = lengths.clone().filter(fits).count();
        (count > 0).then(|| {
            lengths
                .filter(fits)
                .nth(rng.random_range(0..count))
                .expect("counted")
        })
    }

    /// A random shape that fits the board's free space, or `None` when the draw found none.
    fn draw_shape<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Shape> {
        let m = self.min_group;
        let columns = self.columns.len();
        match rng.random_range(0..4) {
            0 => {
                let open = self
                    .columns
                    .iter()
                    .filter(|c| self.height - c.len() >= m)
                    .count();
                let col = (0..columns)
                    .filter(|&c| self.height - self.columns[c].len() >= m)
                    .nth(rng.random_range(0..open.max(1)))?;
                let free = self.height - self.columns[col].len();
                Some(Shape::Vertical {
                    col,
                    r: rng.random_range(0..=self.columns[col].len()),
                    len: self.vertical_len(free, rng)?,
                })
            }
            1 if columns < self.width => Some(Shape::NewColumn {
                col: rng.random_range(0..=columns),
                len: self.vertical_len(self.height, rng)?,
            }),
            2 => {
                let len = m + rng.random_range(0..3);
                let col = rng.random_range(0..=columns.checked_sub(len)?);
                let span = &self.columns[col..col + len];
                let fits = span.iter().all(|c| {
                    let free = self.height - c.len();
                    free >= 1 && self.free_ok(free - 1)
                });
                let lowest = span.iter().map(Vec::len).min()?;
                fits.then(|| Shape::Horizontal {
                    col,
                    r: rng.random_range(0..=lowest),
                    len,
                })
            }
            3 if self.free_ok(self.height - 1) => {
                let len = m + rng.random_range(0..3);
                (columns + len <= self.width).then(|| Shape::NewRow {
                    col: rng.random_range(0..=columns),
                    len,
                })
            }
            _ => None,
        }
    }

    /// The cells of `shape` as `(col, r)` on the board after its insertion.
    fn cells(shape: Shape) -> impl Iterator<Item = (usize, usize)> {
        let (vertical, col, r, len) = match shape {
            Shape::Vertical { col, r, len } => (true, col, r, len),
            Shape::NewColumn { col, len } => (true, col, 0, len),
            Shape::Horizontal { col, r, len } => (false, col, r, len),
            Shape::NewRow { col, len } => (false, col, 0, len),
        };
        (0..len).map(move |i| if vertical { (col, r + i) } else { (col + i, r) })
    }

    /// Inserts `shape` with a colour no neighbour of it has; false (and nothing changed) when
    /// every colour has such a neighbour.
    fn place<R: Rng + ?Sized>(&mut self, shape: Shape, rng: &mut R) -> bool {
        match shape {
            Shape::Vertical { col, r, len } => {
                self.columns[col].splice(r..r, std::iter::repeat_n(EMPTY, len));
            }
            Shape::NewColumn { col, len } => self.columns.insert(col, vec![EMPTY; len]),
            Shape::Horizontal { col, r, len } => {
                for column in &mut self.columns[col..col + len] {
                    column.insert(r, EMPTY);
                }
            }
            Shape::NewRow { col, len } => {
                self.columns
                    .splice(col..col, std::iter::repeat_n(vec![EMPTY], len));
            }
        }
        self.palette.shuffle(rng);
        let color = self.palette.iter().copied().find(|&color| {
            Self::cells(shape).all(|(c, r)| {
                let neighbours = [
                    c.checked_sub(1).map(|c| (c, r)),
                    Some((c + 1, r)),
                    r.checked_sub(1).map(|r| (c, r)),
                    Some((c, r + 1)),
                ];
                neighbours
                    .into_iter()
                    .flatten()
                    .all(|(c, r)| self.cell(c, r) != Some(color))
            })
        });
        match color {
            Some(color) => {
                for (c, r) in Self::cells(shape) {
                    self.columns[c][r] = color;
                }
                let first = Self::cells(shape)
                    .max_by_key(|&(c, r)| (r, std::cmp::Reverse(c)))
                    .expect("a shape has cells");
                self.taps.push(first);
                true
            }
            None => {
                self.remove(shape);
                false
            }
        }
    }

    /// Undoes the insertion of `shape` (its cells still empty).
    fn remove(&mut self, shape: Shape) {
        match shape {
            Shape::Vertical { col, r, len } => {
                self.columns[col].drain(r..r + len);
            }
            Shape::NewColumn { col, .. } => {
                self.columns.remove(col);
            }
            Shape::Horizontal { col, r, len } => {
                for column in &mut self.columns[col..col + len] {
                    column.remove(r);
                }
            }
            Shape::NewRow { col, len } => {
                self.columns.drain(col..col + len);
            }
        }
    }

    /// The colour at `(col, r)`, `None` off the tiles.
    fn cell(&self, col: usize, r: usize) -> Option<u8> {
        self.columns.get(col)?.get(r).copied()
    }

    /// The full board and its clearing line (the insertions' taps, last inserted first).
    fn finish(&self, attempts: u32) -> ClearableBoard {
        let (width, height) = (self.width, self.height);
        let mut cells = vec![EMPTY; width * height];
        for (col, column) in self.columns.iter().enumerate() {
            for (r, &color) in column.iter().enumerate() {
                cells[(height - 1 - r) * width + col] = color;
            }
        }
        debug_assert!(
            cells.iter().all(|&c| c != EMPTY),
            "a finished board is full"
        );
        let line = self
            .taps
            .iter()
            .rev()
            .map(|&(col, r)| Position::new((height - 1 - r) as u32, col as u32))
            .collect();
        ClearableBoard {
            board: SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells)),
            line,
            attempts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collapse::replay;
    use crate::scoring::ScoringRule;

    fn clears(width: u32, height: u32, colors: u32, min_group: u32, seed: u64) -> ClearableBoard {
        let size = GenerationSize::for_collapse(width, height, colors).unwrap();
        let min_group = MinGroup::parse(min_group).unwrap();
        let mut rng = crate::rng_from_seed(seed);
        let generated = generate_clearable_collapse_board(size, min_group, &mut rng).unwrap();
        let board = generated.board.board();
        assert_eq!(
            (board.width(), board.height()),
            (width as usize, height as usize)
        );
        assert_eq!(board.tile_count(), (width * height) as usize, "full board");
        let replayed = replay(
            &generated.board,
            &generated.line,
            ScoringRule::PopStar,
            min_group,
        )
        .unwrap_or_else(|e| panic!("{width}x{height}/{colors} seed {seed}: {e}"));
        assert_eq!(
            replayed.moves.len(),
            generated.line.len(),
            "every tap legal"
        );
        assert_eq!(
            replayed.tiles_left, 0,
            "{width}x{height}/{colors} seed {seed}"
        );
        assert!(replayed.game_over);
        generated
    }

    #[test]
    fn popstar_boards_clear_along_their_line() {
        for seed in 0..200 {
            let generated = clears(10, 10, 5, 2, seed);
            assert_eq!(generated.attempts, 1, "seed {seed}");
        }
    }

    #[test]
    fn odd_sizes_colours_and_group_sizes_clear() {
        for (w, h, colors, m) in [
            (1, 2, 2, 2),
            (2, 1, 3, 2),
            (1, 64, 2, 2),
            (64, 1, 16, 3),
            (3, 3, 2, 2),
            (15, 15, 5, 2),
            (20, 10, 4, 3),
            (64, 64, 16, 2),
            (8, 8, 4, 4),
            (6, 6, 3, 2),
            (1, 2, 2, 2),
            (5, 5, 1, 2),
        ] {
            for seed in 0..5 {
                clears(w, h, colors, m, seed);
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_board() {
        assert_eq!(clears(10, 10, 5, 2, 7), clears(10, 10, 5, 2, 7));
        assert_ne!(clears(10, 10, 5, 2, 7).board, clears(10, 10, 5, 2, 8).board);
    }

    #[test]
    fn two_colours_on_a_large_board_and_no_fitting_shape_are_refused_naming_colors() {
        for (w, h, colors, m) in [(10, 10, 2, 2), (2, 2, 4, 4)] {
            let size = GenerationSize::for_collapse(w, h, colors).unwrap();
            let min_group = MinGroup::parse(m).unwrap();
            let error =
                generate_clearable_collapse_board(size, min_group, &mut crate::rng_from_seed(1))
                    .unwrap_err();
            assert!(
                matches!(
                    error,
                    EngineError::InvalidParameter {
                        field: "colors",
                        ..
                    }
                ),
                "{error}"
            );
        }
    }

    #[test]
    fn a_group_larger_than_the_board_is_refused() {
        let size = GenerationSize::for_collapse(2, 2, 3).unwrap();
        let error = generate_clearable_collapse_board(
            size,
            MinGroup::parse(5).unwrap(),
            &mut crate::rng_from_seed(1),
        )
        .unwrap_err();
        assert!(matches!(
            error,
            EngineError::InvalidParameter {
                field: "min_group",
                ..
            }
        ));
    }
}
