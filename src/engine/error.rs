//! The engine's one error type. The transport maps each variant to exactly one gRPC code.

use super::board::{BoardError, Position};
use super::collapse::TapRejection;
use super::moves::SwapVerdict;

/// Why the engine refused a request. Nothing is ever half-applied: an error means no result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The board is malformed (size, cell count, cell value).
    #[error("board: {0}")]
    Board(#[from] BoardError),
    /// A request parameter is out of its documented range, or no board exists for a generation
    /// request. `field` is the request field's name, e.g. `colors` or `min_moves`.
    #[error("{field}: {reason}")]
    InvalidParameter {
        /// The request field at fault.
        field: &'static str,
        /// What is wrong, for people.
        reason: String,
    },
    /// A position lies off the board. `field` is the request field's name, e.g. `swap.a`.
    #[error("{field}: position {position} is off the {width}x{height} board")]
    PositionOffBoard {
        /// The request field at fault.
        field: &'static str,
        /// The position given.
        position: Position,
        /// Board width.
        width: usize,
        /// Board height.
        height: usize,
    },
    /// A swap-family board has runs or empty cells where a stable board is required.
    #[error(
        "board is not stable: {} empty cell(s), {} matched cell(s)",
        empty_cells.len(),
        matched_cells.len()
    )]
    UnstableBoard {
        /// Empty cells, row-major.
        empty_cells: Vec<Position>,
        /// Cells that are part of a run, row-major.
        matched_cells: Vec<Position>,
    },
    /// `Shuffle` was given a board with empty cells.
    #[error("board has {} empty cell(s); shuffle needs a full board", empty_cells.len())]
    BoardNotFull {
        /// Empty cells, row-major.
        empty_cells: Vec<Position>,
    },
    /// A swap that an applying RPC cannot apply (never `Ok` or `OutOfBounds`).
    #[error("illegal swap: {0:?}")]
    IllegalSwap(SwapVerdict),
    /// No permutation of the tiles is stable with a valid swap (or none was found within the
    /// bounded search).
    #[error(
        "no stable arrangement of these tiles with a valid swap was found (none exists, or the \
         bounded search missed one on a board near the density limit)"
    )]
    NoShuffleExists,
    /// The cascade did not settle within `max_steps` steps.
    #[error("cascade did not settle within max_steps = {max_steps} steps")]
    CascadeLimitExceeded {
        /// The limit that was hit.
        max_steps: u32,
    },
    /// A collapse-family board is not settled: a tile floats over an empty cell, or an empty
    /// column has a non-empty column to its right.
    #[error("board is not settled: {0}")]
    UnsettledBoard(Unsettled),
    /// An illegal tap.
    #[error("illegal tap: {0}")]
    IllegalTap(TapRejection),
}

/// The first reason, in row-major scan order, that a collapse board is not settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsettled {
    /// A tile with an empty cell directly below it.
    FloatingTile(Position),
    /// An empty column with a non-empty column somewhere to its right.
    GapColumn(u32),
}

impl std::fmt::Display for Unsettled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::FloatingTile(p) => write!(f, "tile at {p} has an empty cell below it"),
            Self::GapColumn(col) => {
                write!(f, "column {col} is empty but a column to its right is not")
            }
        }
    }
}
