//! Support of the property tests (properties_swap, properties_collapse, properties_sizes,
//! properties_levels): proptest settings, random reference grids, a stable-board repair, the
//! test's own RNG, the engine's `min_group`, and the fault bookkeeping of the no-panic
//! properties. The rules themselves are in `tests/reference`, and the conversions of engine
//! values to the reference's terms in `tests/reference/convert.rs`.
#![allow(dead_code)] // each property test binary uses a different part of the support

use std::fmt;

use matchgrid::engine::{BoardError, EngineError, Position};
use matchgrid::proto;
use proptest::collection::vec;
use proptest::prelude::*;

use crate::reference::Grid;

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
// Strategies and the test's own RNG
// ---------------------------------------------------------------------------------------------

/// Any well-formed grid: sides `1..=max_side`, colours `1..=max_colors`, each cell empty with
/// probability `p`% (`p` drawn per grid from `0..=max_empty_percent`).
pub fn raw_grid(
    max_side: usize,
    max_colors: u32,
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

/// Makes a full grid stable: row-major, a cell completing a run with its two left or two upper
/// neighbours takes the next colour (cyclically in `1..=colors`) that does not. Always succeeds
/// for `colors >= 3`.
pub fn repair_stable(mut g: Grid, colors: u32) -> Grid {
    for i in 0..g.cells.len() {
        let (r, c) = (i / g.w, i % g.w);
        let forbidden = |cells: &[u32], v: u32| {
            (c >= 2 && cells[i - 1] == v && cells[i - 2] == v)
                || (r >= 2 && cells[i - g.w] == v && cells[i - 2 * g.w] == v)
        };
        if forbidden(&g.cells, g.cells[i]) {
            for step in 1..colors {
                let v = (g.cells[i] - 1 + step) % colors + 1;
                if !forbidden(&g.cells, v) {
                    g.cells[i] = v;
                    break;
                }
            }
        }
    }
    g
}

/// The engine's typed `min_group` for a test value in `2..=4096`.
pub fn min_group_of(min_group: usize) -> matchgrid::engine::MinGroup {
    matchgrid::engine::MinGroup::parse(min_group as u32).expect("test min_group is 2..=4096")
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
                    ..Default::default()
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
