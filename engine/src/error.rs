//! The engine's error types, in a leaf module (it imports only [`Position`]), so every other
//! module may return them without an import cycle. The transport maps each [`EngineError`]
//! variant to exactly one gRPC code.

use std::fmt;

use super::position::Position;

/// Why raw board data is not a [`Board`](super::Board).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// `width` outside `1..=64`.
    #[error("width must be 1..=64, got {0}")]
    WidthOutOfRange(u32),
    /// `height` outside `1..=64`.
    #[error("height must be 1..=64, got {0}")]
    HeightOutOfRange(u32),
    /// `cells` does not hold `width * height` values.
    #[error("cells must hold width * height = {expected} values, got {actual}")]
    CellCountMismatch {
        /// `width * height`.
        expected: usize,
        /// The number of cells given.
        actual: usize,
    },
    /// A cell value above 16.
    #[error("cell {index} must be 0 (empty) or a colour 1..=16, got {value}")]
    ColorOutOfRange {
        /// Row-major index of the cell.
        index: usize,
        /// The value found.
        value: u32,
    },
    /// Text board rows of different lengths, or an unknown character.
    #[error("board text: {0}")]
    Text(String),
}

/// Why raw hole-mask and piece-kind data do not make a level board with its
/// [`Board`](super::Board) (docs/rules.md section 6). Indices are row-major.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// The hole mask is neither empty nor `width * height` flags.
    #[error("holes must be empty or hold width * height = {expected} flags, got {actual}")]
    HoleCountMismatch {
        /// `width * height`.
        expected: usize,
        /// The number of flags given.
        actual: usize,
    },
    /// The kinds are neither empty nor `width * height` values.
    #[error("kinds must be empty or hold width * height = {expected} values, got {actual}")]
    KindCountMismatch {
        /// `width * height`.
        expected: usize,
        /// The number of kinds given.
        actual: usize,
    },
    /// A kind value this server does not know.
    #[error("kind {index}: unknown PieceKind value {value}")]
    UnknownKind {
        /// Row-major index of the cell.
        index: usize,
        /// The value found.
        value: i32,
    },
    /// A hole whose cell value is not 0.
    #[error("cell {index} is a hole and must be 0, got colour {color}")]
    TileOnHole {
        /// Row-major index of the cell.
        index: usize,
        /// The colour found.
        color: u8,
    },
    /// A hole with a kind other than NORMAL.
    #[error("cell {index} is a hole and cannot hold a special piece")]
    KindOnHole {
        /// Row-major index of the cell.
        index: usize,
    },
    /// A striped or wrapped kind on an empty cell (value 0).
    #[error("cell {index} is empty (0) and cannot have a striped or wrapped kind")]
    KindOnEmpty {
        /// Row-major index of the cell.
        index: usize,
    },
    /// A colour bomb whose cell value is not 0.
    #[error("cell {index} is a colour bomb, which has no colour: its value must be 0, got {color}")]
    ColorOnBomb {
        /// Row-major index of the cell.
        index: usize,
        /// The colour found.
        color: u8,
    },
    /// An ingredient whose cell value is not 0 (docs/rules.md section 8).
    #[error("cell {index} is an ingredient, which has no colour: its value must be 0, got {color}")]
    ColorOnIngredient {
        /// Row-major index of the cell.
        index: usize,
        /// The colour found.
        color: u8,
    },
    /// A layer list (`jelly`, `blockers`, `locks`, `exits`) that is neither empty nor
    /// `width * height` long.
    #[error("{layer} must be empty or hold width * height = {expected} values, got {actual}")]
    LayerCountMismatch {
        /// The layer.
        layer: Layer,
        /// `width * height`.
        expected: usize,
        /// The number of values given.
        actual: usize,
    },
    /// A layer value that cannot stand on its cell (docs/rules.md section 8): any layer on a
    /// hole, jelly above 2, blocker hit points above 5, a blocker on a tile or an ingredient,
    /// a lock on a cell that holds no coloured tile, an ingredient or a bomb.
    #[error("{layer} at cell {index}: {reason}")]
    BadLayer {
        /// The layer.
        layer: Layer,
        /// Row-major index of the cell.
        index: usize,
        /// What is wrong, for people.
        reason: &'static str,
    },
}

/// The layers of a level board beyond holes and kinds (docs/rules.md section 8), as named on
/// the wire (`board.jelly`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Jelly layers, `0..=2` per cell.
    Jelly,
    /// Blocker hit points, `0..=5` per cell (0: no blocker).
    Blockers,
    /// Lock flags.
    Locks,
    /// Exit flags.
    Exits,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Jelly => "jelly",
            Self::Blockers => "blockers",
            Self::Locks => "locks",
            Self::Exits => "exits",
        })
    }
}

/// Where a level stands after a move (docs/rules.md section 8), decided in this order: all goals
/// met: WON; else no moves left: LOST_OUT_OF_MOVES; else no valid swap: LOST_DEAD; else
/// PLAYING. (Here, in the leaf error module, so that [`EngineError::LevelOver`] can name it.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LevelStatus {
    /// Moves are left, a goal is unmet and a valid swap exists.
    Playing,
    /// Every goal is met.
    Won,
    /// A goal is unmet and no move is left.
    LostOutOfMoves,
    /// A goal is unmet, moves are left, and the board has no valid swap (no shuffle helped).
    LostDead,
}

impl fmt::Display for LevelStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Playing => "PLAYING",
            Self::Won => "WON",
            Self::LostOutOfMoves => "LOST_OUT_OF_MOVES",
            Self::LostDead => "LOST_DEAD",
        })
    }
}

/// Why the engine refused a request. Nothing is ever half-applied: an error means no result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The board is malformed (size, cell count, cell value).
    #[error("board: {0}")]
    Board(#[from] BoardError),
    /// The board's hole mask or piece kinds are malformed or contradict its cells.
    #[error("board: {0}")]
    Level(#[from] LevelError),
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
    /// A swap with both positions on the board that an applying RPC cannot apply.
    #[error("illegal swap: {0:?}")]
    IllegalSwap(SwapRejection),
    /// No permutation of the tiles is stable with a valid swap: `proven` when that is certain
    /// (a colour over the run-free capacity, sides below 3, or an exhaustive search of a board
    /// of at most 16 cells); otherwise none was found within the bounded search, which happens
    /// only near the density limit.
    #[error("{}", if *proven {
        "no stable arrangement of these tiles with a valid swap exists"
    } else {
        "no stable arrangement of these tiles with a valid swap was found within the bounded \
         search (this close to the density limit one may still exist)"
    })]
    NoShuffleExists {
        /// True when no such arrangement exists; false when the bounded search gave up.
        proven: bool,
    },
    /// A move was asked of a level that is over (docs/rules.md section 8): its status, as
    /// computed from the state sent, is not PLAYING.
    #[error("the level is over ({status}): no move can be played")]
    LevelOver {
        /// The status of the state sent.
        status: LevelStatus,
    },
    /// The cascade did not settle within `max_steps` steps.
    #[error("cascade did not settle within max_steps = {max_steps} steps")]
    CascadeLimitExceeded {
        /// The limit that was hit.
        max_steps: u32,
    },
    /// The caller's step sink (`cascade::StepSink`) stopped the cascade after step `steps` (the
    /// caller's own limit, such as its reply size, was reached).
    #[error("the cascade was stopped by its step sink after {steps} steps")]
    CascadeStopped {
        /// Steps handed to the sink, the last one included.
        steps: u32,
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

impl fmt::Display for Unsettled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::FloatingTile(p) => write!(f, "tile at {p} has an empty cell below it"),
            Self::GapColumn(col) => {
                write!(f, "column {col} is empty but a column to its right is not")
            }
        }
    }
}

/// Why a swap whose two positions lie on the board is illegal: the verdicts an applying RPC
/// answers as errors. It cannot be `Ok` or `OutOfBounds` (an off-board position is
/// [`EngineError::PositionOffBoard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwapRejection {
    /// `a` or `b` is a hole (level boards).
    Hole,
    /// `a` or `b` is fixed: a blocker or a locked tile (docs/rules.md section 8).
    Blocked,
    /// Same cell, diagonal, or more than one step apart.
    NotAdjacent,
    /// `a` or `b` is empty.
    EmptyCell,
    /// After the swap neither `a` nor `b` is a matched cell.
    NoMatch,
}

/// Why a tap is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapRejection {
    /// The tapped cell is empty.
    EmptyCell,
    /// The tapped group is smaller than `min_group`.
    GroupTooSmall {
        /// Size of the tapped group.
        size: usize,
        /// The minimum in force.
        min_group: usize,
    },
}

impl fmt::Display for TapRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyCell => f.write_str("EMPTY_CELL: the tapped cell is empty"),
            Self::GroupTooSmall { size, min_group } => {
                write!(
                    f,
                    "GROUP_TOO_SMALL: the group has {size} cell(s), min_group is {min_group}"
                )
            }
        }
    }
}
