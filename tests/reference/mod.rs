//! The naive reference rules every test binary checks the engine and the server against:
//! [`Grid`] (a plain row-major board) and gravity here, [`swap`] and [`collapse`] for the two
//! families (docs/rules.md sections 1-3), and [`level`] for holes and special pieces (section 6);
//! [`convert`] puts engine and wire positions, groups, falls and spawns in these terms;
//! [`features`] rebuilds Hint, Simulate and ReplayGame from the server's other RPCs (section 7);
//! [`level_play`] models level play (SPEC section 8: jelly, blockers, locks, ingredients and
//! exits, gravity with fixed cells, goals and the status order).
//!
//! Written from docs/rules.md alone and deliberately naive: lines scanned cell by cell, groups by
//! flood fill, boards rebuilt column by column, no masks and no code shared with the engine. The
//! engine is only named by the conversions at the edge ([`Grid::of`], [`Grid::board`]), so the
//! reference stays a second implementation, not the engine checked against itself.
//!
//! Positions are `(row, col)` pairs ([`Cell`]); colours are `u32` as on the wire (`0` is empty,
//! `1..=16` a colour), so converting a wire board loses nothing.
#![allow(dead_code)] // each test binary uses a different part of the reference

pub mod collapse;
pub mod convert;
pub mod features;
pub mod level;
pub mod level_play;
pub mod swap;

use std::fmt;

use matchgrid::{engine, proto};

/// A `(row, col)` position.
pub type Cell = (u32, u32);

/// The letters of colours 1 to 16 in the text form of docs/rules.md section 5.
pub const LETTERS: &[u8; 16] = b"RGBYPOCWKMADEFHI";

/// A plain row-major board: cell `(row, col)` is `cells[row * w + col]`, row 0 on top.
#[derive(Clone, PartialEq, Eq)]
pub struct Grid {
    pub w: usize,
    pub h: usize,
    pub cells: Vec<u32>,
}

/// Prints the text form (`Grid(3x2 "RRG/GGR")`), which [`Grid::parse`] and `Board::parse` read
/// back, so a failing case prints as a board.
impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({}x{} \"{}\")", self.w, self.h, self.text())
    }
}

impl Grid {
    pub fn new(w: usize, h: usize, cells: Vec<u32>) -> Self {
        assert_eq!(cells.len(), w * h, "a {w}x{h} grid has {} cells", w * h);
        Self { w, h, cells }
    }

    /// A `w x h` grid of empty cells.
    pub fn empty(w: usize, h: usize) -> Self {
        Self::new(w, h, vec![0; w * h])
    }

    /// The text form: rows top to bottom joined by `/`, a letter of [`LETTERS`] or a digit
    /// `1`-`9` per colour, `.` for an empty cell.
    pub fn parse(text: &str) -> Self {
        let rows: Vec<&str> = text.split('/').collect();
        let w = rows[0].chars().count();
        let mut cells = Vec::new();
        for row in &rows {
            assert_eq!(row.chars().count(), w, "ragged rows in {text:?}");
            for ch in row.chars() {
                let value = match ch {
                    '.' => 0,
                    '1'..='9' => ch as u32 - '0' as u32,
                    _ => match LETTERS.iter().position(|&l| char::from(l) == ch) {
                        Some(i) => i as u32 + 1,
                        None => panic!("{ch:?} is not a cell in {text:?}"),
                    },
                };
                cells.push(value);
            }
        }
        Self::new(w, rows.len(), cells)
    }

    /// The text form with letters (`?` for a value that is not a colour).
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.cells.len() + self.h);
        for (i, &v) in self.cells.iter().enumerate() {
            if i > 0 && i % self.w == 0 {
                out.push('/');
            }
            out.push(match v {
                0 => '.',
                1..=16 => char::from(LETTERS[v as usize - 1]),
                _ => '?',
            });
        }
        out
    }

    /// An engine board, cell by cell.
    pub fn of(board: &engine::Board) -> Self {
        Self::new(
            board.width(),
            board.height(),
            board.cells().iter().map(|&c| u32::from(c)).collect(),
        )
    }

    /// A wire board taken as it is (callers check that it is well-formed first).
    pub fn of_wire(board: &proto::Board) -> Self {
        Self::new(
            board.width as usize,
            board.height as usize,
            board.cells.clone(),
        )
    }

    /// The engine board with these cells.
    pub fn board(&self) -> engine::Board {
        engine::Board::from_raw(self.w as u32, self.h as u32, &self.cells).unwrap()
    }

    /// The wire board with these cells.
    pub fn proto(&self) -> proto::Board {
        proto::Board {
            width: self.w as u32,
            height: self.h as u32,
            cells: self.cells.clone(),
            ..Default::default()
        }
    }

    /// Whether `(row, col)` is on the grid.
    pub fn contains(&self, (row, col): Cell) -> bool {
        (row as usize) < self.h && (col as usize) < self.w
    }

    /// The row-major index of an on-grid cell.
    pub fn index(&self, (row, col): Cell) -> usize {
        assert!(self.contains((row, col)), "({row}, {col}) is off {self:?}");
        row as usize * self.w + col as usize
    }

    /// The cell of row-major index `i`.
    pub fn cell(&self, i: usize) -> Cell {
        ((i / self.w) as u32, (i % self.w) as u32)
    }

    pub fn at(&self, row: usize, col: usize) -> u32 {
        self.cells[row * self.w + col]
    }

    pub fn get(&self, cell: Cell) -> u32 {
        self.cells[self.index(cell)]
    }

    /// Row-major indices of the 4-neighbours of index `i`: up, down, left, right.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        let (r, c) = (i / self.w, i % self.w);
        let mut out = Vec::with_capacity(4);
        if r > 0 {
            out.push(i - self.w);
        }
        if r + 1 < self.h {
            out.push(i + self.w);
        }
        if c > 0 {
            out.push(i - 1);
        }
        if c + 1 < self.w {
            out.push(i + 1);
        }
        out
    }

    /// Non-empty cells.
    pub fn tiles(&self) -> usize {
        self.cells.iter().filter(|&&c| c != 0).count()
    }

    /// Tile counts per colour: entry `c` counts colour `c`, entry 0 the empty cells.
    pub fn color_counts(&self) -> [usize; 17] {
        let mut counts = [0; 17];
        for &c in &self.cells {
            counts[c as usize] += 1;
        }
        counts
    }

    pub fn has_empty(&self) -> bool {
        self.cells.contains(&0)
    }

    /// The empty cells, row-major.
    pub fn empty_cells(&self) -> Vec<Cell> {
        (0..self.cells.len())
            .filter(|&i| self.cells[i] == 0)
            .map(|i| self.cell(i))
            .collect()
    }

    /// Whether column `c` holds no tile.
    pub fn column_empty(&self, c: usize) -> bool {
        (0..self.h).all(|r| self.at(r, c) == 0)
    }

    /// The grid with the tiles at `a` and `b` exchanged.
    pub fn swapped(&self, a: Cell, b: Cell) -> Grid {
        let mut out = self.clone();
        let (i, j) = (self.index(a), self.index(b));
        out.cells.swap(i, j);
        out
    }

    /// The grid with the given cells emptied.
    pub fn cleared(&self, cells: &[Cell]) -> Grid {
        let mut out = self.clone();
        for &cell in cells {
            let i = self.index(cell);
            out.cells[i] = 0;
        }
        out
    }
}

/// Gravity (docs/rules.md sections 2 and 3): in every column the tiles fall straight down,
/// keeping their order, to the bottom. Returns the new grid and the falls `(from, to)` of the
/// tiles that moved, ordered by `from` row-major.
pub fn gravity(g: &Grid) -> (Grid, Vec<(Cell, Cell)>) {
    let mut out = Grid::empty(g.w, g.h);
    let mut falls = Vec::new();
    for c in 0..g.w {
        let rows: Vec<usize> = (0..g.h).filter(|&r| g.at(r, c) != 0).collect();
        let first = g.h - rows.len();
        for (k, &r) in rows.iter().enumerate() {
            let to = first + k;
            out.cells[to * g.w + c] = g.at(r, c);
            if to != r {
                falls.push(((r as u32, c as u32), (to as u32, c as u32)));
            }
        }
    }
    falls.sort_unstable();
    (out, falls)
}

/// The 4-connected set of cells reachable from index `start` through cells for which `member`
/// holds (`start` itself included), as row-major indices in row-major order. Cells already
/// marked in `seen` are not entered; every cell of the set is marked.
pub fn flood(
    g: &Grid,
    start: usize,
    seen: &mut [bool],
    member: impl Fn(usize) -> bool,
) -> Vec<usize> {
    seen[start] = true;
    let mut stack = vec![start];
    let mut members = Vec::new();
    while let Some(i) = stack.pop() {
        members.push(i);
        for j in g.neighbours(i) {
            if !seen[j] && member(j) {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    members.sort_unstable();
    members
}
