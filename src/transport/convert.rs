//! Conversions at the edge: proto messages to engine values (fallible, naming the field) and
//! engine results back to proto messages.

use crate::engine::{self, EngineError};
use crate::proto;

/// Parses the required `board` field.
///
/// # Errors
/// [`EngineError::InvalidParameter`] when absent; [`EngineError::Board`] when malformed.
pub fn board_from_proto(board: Option<proto::Board>) -> Result<engine::Board, EngineError> {
    let board = board.ok_or_else(|| required("board"))?;
    Ok(engine::Board::from_raw(
        board.width,
        board.height,
        &board.cells,
    )?)
}

/// The error for a missing required message field.
pub fn required(field: &'static str) -> EngineError {
    EngineError::InvalidParameter {
        field,
        reason: "is required".to_owned(),
    }
}

/// The error for an enum value this server does not know.
pub fn unknown_enum(field: &'static str, value: i32) -> EngineError {
    EngineError::InvalidParameter {
        field,
        reason: format!("unknown enum value {value}"),
    }
}

/// A position as given; range is checked against the board by the engine.
pub fn position_from_proto(position: proto::Position) -> engine::Position {
    engine::Position::new(position.row, position.col)
}

/// Parses the required `swap` field (both positions required).
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `swap`, `swap.a` or `swap.b` when absent.
pub fn swap_from_proto(swap: Option<proto::Swap>) -> Result<engine::Swap, EngineError> {
    let swap = swap.ok_or_else(|| required("swap"))?;
    let a = swap.a.ok_or_else(|| required("swap.a"))?;
    let b = swap.b.ok_or_else(|| required("swap.b"))?;
    Ok(engine::Swap::new(
        position_from_proto(a),
        position_from_proto(b),
    ))
}

impl From<&engine::Board> for proto::Board {
    fn from(board: &engine::Board) -> Self {
        Self {
            width: board.width() as u32,
            height: board.height() as u32,
            cells: board.cells_u32(),
        }
    }
}

impl From<engine::Position> for proto::Position {
    fn from(position: engine::Position) -> Self {
        Self {
            row: position.row,
            col: position.col,
        }
    }
}

impl From<engine::Swap> for proto::Swap {
    fn from(swap: engine::Swap) -> Self {
        Self {
            a: Some(swap.a.into()),
            b: Some(swap.b.into()),
        }
    }
}

impl From<engine::Fall> for proto::Fall {
    fn from(fall: engine::Fall) -> Self {
        Self {
            from: Some(fall.from.into()),
            to: Some(fall.to.into()),
        }
    }
}

impl From<engine::Group> for proto::Group {
    fn from(group: engine::Group) -> Self {
        Self {
            color: u32::from(group.color),
            cells: group.cells.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<engine::Spawn> for proto::Spawn {
    fn from(spawn: engine::Spawn) -> Self {
        Self {
            position: Some(spawn.position.into()),
            color: u32::from(spawn.color),
        }
    }
}

/// A cascade step on the wire; its board only when `include_board`.
pub fn cascade_step_to_proto(step: engine::CascadeStep, include_board: bool) -> proto::CascadeStep {
    proto::CascadeStep {
        index: step.index,
        groups: step.groups.into_iter().map(Into::into).collect(),
        falls: step.falls.into_iter().map(Into::into).collect(),
        spawns: step.spawns.into_iter().map(Into::into).collect(),
        score: step.score,
        board: include_board.then(|| (&step.board).into()),
    }
}

impl From<engine::SwapVerdict> for proto::SwapVerdict {
    fn from(verdict: engine::SwapVerdict) -> Self {
        match verdict {
            engine::SwapVerdict::Ok => Self::Ok,
            engine::SwapVerdict::OutOfBounds => Self::OutOfBounds,
            engine::SwapVerdict::NotAdjacent => Self::NotAdjacent,
            engine::SwapVerdict::EmptyCell => Self::EmptyCell,
            engine::SwapVerdict::NoMatch => Self::NoMatch,
        }
    }
}

impl From<engine::ColumnShift> for proto::ColumnShift {
    fn from(shift: engine::ColumnShift) -> Self {
        Self {
            from_col: shift.from_col,
            to_col: shift.to_col,
        }
    }
}

impl From<engine::LegalGroup> for proto::CollapseGroup {
    fn from(group: engine::LegalGroup) -> Self {
        Self {
            representative: Some(group.representative.into()),
            color: u32::from(group.color),
            size: group.size as u32,
            score: group.score,
        }
    }
}

/// Parses a `ScoringRule` enum field; UNSPECIFIED is POPSTAR.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `field` for an unknown value.
pub fn scoring_from_proto(
    field: &'static str,
    value: i32,
) -> Result<engine::ScoringRule, EngineError> {
    use proto::ScoringRule as Wire;
    match Wire::try_from(value).map_err(|_| unknown_enum(field, value))? {
        Wire::Unspecified | Wire::Popstar => Ok(engine::ScoringRule::PopStar),
        Wire::Samegame => Ok(engine::ScoringRule::SameGame),
        Wire::Clickomania => Ok(engine::ScoringRule::Clickomania),
        Wire::BubbleBreaker => Ok(engine::ScoringRule::BubbleBreaker),
    }
}
