//! The property tests' own board model, shared by both families (properties_swap,
//! properties_collapse): a plain row-major [`Grid`], naive gravity, random grids, the test's own
//! RNG, and the fault bookkeeping of the no-panic properties. Each family adds its own methods to
//! `Grid` in an `impl Grid` block of its own file.
#![allow(dead_code)] // each family uses a different part of the model

use std::fmt;

use matchgrid::engine::board::COLOR_LETTERS;
use matchgrid::engine::{Board, BoardError, EngineError, Position};
use matchgrid::proto;
use proptest::collection::vec;
use proptest::prelude::*;

/// Proptest settings: `cases` cases (times `MATCHGRID_PROPTEST_SCALE`), no regression files (failures found here are kept as plain
/// `#[test]` regressions instead), bounded shrinking.
pub fn config(cases: u32) -> ProptestConfig {
    // `MATCHGRID_PROPTEST_SCALE=n` multiplies every case count, for longer soak runs.
    let scale = std::env::var("MATCHGRID_PROPTEST_SCALE")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(1)
        .max(1);
    ProptestConfig {
        cases: cases.saturating_mul(scale),
        failure_persistence: None,
        // Large failing inputs shrink slowly; report what was found within 30 s.
        max_shrink_time: 30_000,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Naive model
// ---------------------------------------------------------------------------------------------

/// A plain row-major grid: the test's own board model.
#[derive(Clone, PartialEq, Eq)]
pub struct Grid {
    pub w: usize,
    pub h: usize,
    pub cells: Vec<u8>,
}

/// Prints the engine's text form (colour 1 is `R`, see [`COLOR_LETTERS`]), so a failing case
/// prints as a board that `Board::parse` reads back.
impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({}x{} \"", self.w, self.h)?;
        for (i, &cell) in self.cells.iter().enumerate() {
            if i > 0 && i % self.w == 0 {
                f.write_str("/")?;
            }
            let ch = match cell {
                0 => '.',
                c if usize::from(c) <= COLOR_LETTERS.len() => {
                    char::from(COLOR_LETTERS[usize::from(c) - 1])
                }
                _ => '?',
            };
            write!(f, "{ch}")?;
        }
        f.write_str("\")")
    }
}

impl Grid {
    pub fn new(w: usize, h: usize, cells: Vec<u8>) -> Self {
        assert_eq!(cells.len(), w * h);
        Self { w, h, cells }
    }

    pub fn of(board: &Board) -> Self {
        Self::new(board.width(), board.height(), board.cells().to_vec())
    }

    pub fn parse(text: &str) -> Self {
        Self::of(&Board::parse(text).unwrap())
    }

    /// A wire board taken as it is (cell values cut to `u8`); callers check `well_formed` first.
    pub fn of_wire(board: &proto::Board) -> Self {
        Self::new(
            board.width as usize,
            board.height as usize,
            board.cells.iter().map(|&c| c as u8).collect(),
        )
    }

    pub fn cells_u32(&self) -> Vec<u32> {
        self.cells.iter().map(|&c| u32::from(c)).collect()
    }

    pub fn board(&self) -> Board {
        Board::from_raw(self.w as u32, self.h as u32, &self.cells_u32()).unwrap()
    }

    pub fn proto(&self) -> proto::Board {
        proto::Board {
            width: self.w as u32,
            height: self.h as u32,
            cells: self.cells_u32(),
        }
    }

    pub fn at(&self, r: usize, c: usize) -> u8 {
        self.cells[r * self.w + c]
    }

    pub fn pos(&self, index: usize) -> Position {
        Position::new((index / self.w) as u32, (index % self.w) as u32)
    }

    /// 4-neighbours of cell `i`: up, down, left, right.
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

    pub fn tiles(&self) -> usize {
        self.cells.iter().filter(|&&c| c != 0).count()
    }

    pub fn color_counts(&self) -> [usize; 17] {
        let mut counts = [0; 17];
        for &c in &self.cells {
            counts[usize::from(c)] += 1;
        }
        counts
    }
}

/// Gravity: each column's tiles, in order, packed to the bottom. Returns the grid and the moves
/// `(from, to)` of tiles that moved, ordered by `from` row-major.
pub fn naive_gravity(g: &Grid) -> (Grid, Vec<(Position, Position)>) {
    let mut out = Grid::new(g.w, g.h, vec![0; g.w * g.h]);
    let mut falls = Vec::new();
    for c in 0..g.w {
        let tiles: Vec<usize> = (0..g.h).filter(|&r| g.at(r, c) != 0).collect();
        let first_row = g.h - tiles.len();
        for (k, &r) in tiles.iter().enumerate() {
            let to = first_row + k;
            out.cells[to * g.w + c] = g.at(r, c);
            if to != r {
                falls.push((
                    Position::new(r as u32, c as u32),
                    Position::new(to as u32, c as u32),
                ));
            }
        }
    }
    falls.sort();
    (out, falls)
}

// ---------------------------------------------------------------------------------------------
// Strategies and the test's own RNG
// ---------------------------------------------------------------------------------------------

/// Any well-formed grid: sides `1..=max_side`, colours `1..=max_colors`, each cell empty with
/// probability `p`% (`p` drawn per grid from `0..=max_empty_percent`).
pub fn raw_grid(
    max_side: usize,
    max_colors: u8,
    max_empty_percent: u32,
) -> impl Strategy<Value = Grid> {
    (
        1..=max_side,
        1..=max_side,
        1..=max_colors,
        0..=max_empty_percent,
    )
        .prop_flat_map(|(w, h, k, p)| {
            vec((0u32..100, 1..=k), w * h).prop_map(move |v| {
                Grid::new(
                    w,
                    h,
                    v.into_iter()
                        .map(|(roll, c)| if roll < p { 0 } else { c })
                        .collect(),
                )
            })
        })
}

/// A raw wire board: sides 0..=70, a cell count sometimes off by a few, values up to 20.
pub fn wild_wire_board() -> impl Strategy<Value = Option<proto::Board>> {
    (
        0u32..=70,
        0u32..=70,
        prop_oneof![4 => 0u32..=16, 1 => 17u32..=20],
        prop_oneof![6 => Just(0i64), 1 => -2i64..=2],
    )
        .prop_flat_map(|(w, h, max_cell, delta)| {
            let len = (i64::from(w * h) + delta).max(0) as usize;
            vec(0..=max_cell, len).prop_map(move |cells| {
                Some(proto::Board {
                    width: w,
                    height: h,
                    cells,
                })
            })
        })
}

/// SplitMix64, the test's own RNG for deterministic sweeps.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---------------------------------------------------------------------------------------------
// Faults of malformed requests (no-panic properties)
// ---------------------------------------------------------------------------------------------

/// Whether a wire board is well-formed by the rules' limits.
pub fn well_formed(board: &proto::Board) -> bool {
    (1..=64).contains(&board.width)
        && (1..=64).contains(&board.height)
        && board.cells.len() as u64 == u64::from(board.width) * u64::from(board.height)
        && board.cells.iter().all(|&c| c <= 16)
}

/// One reason a request may be refused. When a request has several faults the rules does not
/// say which is reported, so any of them is accepted; a request with none must succeed.
#[derive(Clone, Debug)]
pub enum Fault {
    /// `InvalidParameter` naming this field.
    Param(&'static str),
    /// A `Board` error that applies to this wire board.
    BadBoard(proto::Board),
    /// `PositionOffBoard` naming this field and position.
    OffBoard(&'static str, Position),
    /// Exactly this error.
    Exact(EngineError),
}

fn board_error_applies(b: &proto::Board, e: &BoardError) -> bool {
    match *e {
        BoardError::WidthOutOfRange(w) => w == b.width && !(1..=64).contains(&w),
        BoardError::HeightOutOfRange(h) => h == b.height && !(1..=64).contains(&h),
        BoardError::CellCountMismatch { expected, actual } => {
            actual == b.cells.len()
                && expected as u64 == u64::from(b.width) * u64::from(b.height)
                && expected != actual
        }
        BoardError::ColorOutOfRange { index, value } => {
            b.cells.get(index) == Some(&value) && value > 16
        }
        BoardError::Text(_) => false,
    }
}

fn fault_matches(error: &EngineError, fault: &Fault) -> bool {
    match fault {
        Fault::Param(field) => {
            matches!(error, EngineError::InvalidParameter { field: f, .. } if f == field)
        }
        Fault::BadBoard(b) => matches!(error, EngineError::Board(e) if board_error_applies(b, e)),
        Fault::OffBoard(field, p) => matches!(
            error,
            EngineError::PositionOffBoard { field: f, position, .. } if f == field && position == p
        ),
        Fault::Exact(e) => error == e,
    }
}

/// With faults, the result must be one of them (returns false); without, the caller checks the
/// successful answer (returns true).
pub fn check_faults<T: fmt::Debug>(
    name: &str,
    result: &Result<T, EngineError>,
    faults: &[Fault],
) -> Result<bool, TestCaseError> {
    if faults.is_empty() {
        return Ok(true);
    }
    match result {
        Ok(value) => Err(TestCaseError::fail(format!(
            "{name}: expected one of {faults:?}, got Ok({value:?})"
        ))),
        Err(error) => {
            prop_assert!(
                faults.iter().any(|f| fault_matches(error, f)),
                "{name}: expected one of {faults:?}, got {error:?}"
            );
            Ok(false)
        }
    }
}

/// The faults of a `board` field, and the board as a grid when it is well-formed.
pub fn board_faults(board: &Option<proto::Board>) -> (Vec<Fault>, Option<Grid>) {
    match board {
        None => (vec![Fault::Param("board")], None),
        Some(b) if !well_formed(b) => (vec![Fault::BadBoard(b.clone())], None),
        Some(b) => (Vec::new(), Some(Grid::of_wire(b))),
    }
}
