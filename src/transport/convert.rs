//! Conversions at the edge: proto messages to engine values (fallible, naming the field) and
//! engine results back to proto messages.

use crate::engine::{self, EngineError};
use crate::proto;

/// Parses the required `board` field of a plain board: one with no hole mask and no kinds (the
/// collapse family, which takes neither).
///
/// # Errors
/// [`EngineError::InvalidParameter`] when absent, or naming `board.holes` / `board.kinds` when
/// either is given; [`EngineError::Board`] when malformed.
pub fn board_from_proto(board: Option<proto::Board>) -> Result<engine::Board, EngineError> {
    let board = board.ok_or_else(|| required("board"))?;
    refuse_level_fields(&board)?;
    Ok(engine::Board::from_raw(
        board.width,
        board.height,
        &board.cells,
    )?)
}

/// Refuses the level fields where a family does not take them (docs/rules.md section 6).
fn refuse_level_fields(board: &proto::Board) -> Result<(), EngineError> {
    let refuse = |field| EngineError::InvalidParameter {
        field,
        reason: "holes and piece kinds are swap-family features; the collapse family does not \
                 take them in this version"
            .to_owned(),
    };
    if !board.holes.is_empty() {
        return Err(refuse("board.holes"));
    }
    if !board.kinds.is_empty() {
        return Err(refuse("board.kinds"));
    }
    for (list, empty) in [
        ("board.jelly", board.jelly.is_empty()),
        ("board.blockers", board.blockers.is_empty()),
        ("board.locks", board.locks.is_empty()),
        ("board.exits", board.exits.is_empty()),
    ] {
        if !empty {
            return Err(refuse(list));
        }
    }
    Ok(())
}

/// Parses the required `board` field of a swap-family request: a board with layers when
/// `holes` or `kinds` (or both) is given, else one without (docs/rules.md section 6).
///
/// # Errors
/// [`EngineError::InvalidParameter`] when absent; [`EngineError::Board`] or
/// [`EngineError::Level`] when malformed.
pub fn swap_board_from_proto(
    board: Option<proto::Board>,
) -> Result<engine::SwapBoard, EngineError> {
    let board = board.ok_or_else(|| required("board"))?;
    let plain = engine::Board::from_raw(board.width, board.height, &board.cells)?;
    if !plays_specials(&board) {
        return Ok(plain.into());
    }
    let kinds = kinds_from_proto(&board.kinds);
    // Counts are judged before values: a list of the wrong length is named as a whole.
    let size = plain.cells().len();
    if !board.holes.is_empty() && board.holes.len() != size {
        return Err(engine::LevelError::HoleCountMismatch {
            expected: size,
            actual: board.holes.len(),
        }
        .into());
    }
    if !board.kinds.is_empty() && board.kinds.len() != size {
        return Err(engine::LevelError::KindCountMismatch {
            expected: size,
            actual: board.kinds.len(),
        }
        .into());
    }
    let layers = level_layers_from_proto(&board);
    Ok(engine::SwapBoard::with_level_layers(
        plain,
        board.holes,
        kinds?,
        layers,
    )?)
}

/// True when `board` is a *layout* (docs/rules.md section 8): cells given for every position
/// of its size, all 0.
pub fn is_layout(board: &proto::Board) -> bool {
    let size = (board.width as usize).saturating_mul(board.height as usize);
    size > 0 && board.cells.len() == size && board.cells.iter().all(|&cell| cell == 0)
}

/// Parses a layout (a board whose every cell is 0, [`is_layout`]) with its holes, kinds and
/// level layers, as [`engine::SwapBoard::layout`] takes it.
///
/// # Errors
/// As [`engine::SwapBoard::layout`], the fields named as for any board (`board.jelly[i]`, ...).
pub fn layout_from_proto(board: proto::Board) -> Result<engine::SwapBoard, EngineError> {
    let kinds = kinds_from_proto(&board.kinds)?;
    let layers = level_layers_from_proto(&board);
    engine::SwapBoard::layout(board.width, board.height, board.holes, kinds, layers)
}

/// The wire kinds as engine kinds.
fn kinds_from_proto(kinds: &[i32]) -> Result<Vec<engine::PieceKind>, engine::LevelError> {
    kinds
        .iter()
        .enumerate()
        .map(|(index, &value)| {
            kind_from_proto(value).ok_or(engine::LevelError::UnknownKind { index, value })
        })
        .collect()
}

/// The level layers of a wire board (jelly, blockers, locks, exits).
fn level_layers_from_proto(board: &proto::Board) -> engine::LevelLayers {
    // Values past a byte are out of range anyway; 255 keeps them out of range.
    let bytes = |values: &[u32]| -> Vec<u8> {
        values
            .iter()
            .map(|&value| u8::try_from(value).unwrap_or(u8::MAX))
            .collect()
    };
    engine::LevelLayers {
        jelly: bytes(&board.jelly),
        blockers: bytes(&board.blockers),
        locks: board.locks.clone(),
        exits: board.exits.clone(),
    }
}

/// The rule a swap-family request plays by (docs/rules.md sections 6 and 8): a board sent with
/// layers (`holes`, `kinds`, or a level layer) is played with special pieces created
/// ([`engine::CascadeOptions::specials`]), a board sent without them by the rules of sections
/// 1-2.
pub fn plays_specials(board: &proto::Board) -> bool {
    !board.holes.is_empty()
        || !board.kinds.is_empty()
        || !board.jelly.is_empty()
        || !board.blockers.is_empty()
        || !board.locks.is_empty()
        || !board.exits.is_empty()
}

/// A wire `PieceKind` as an engine kind (`UNSPECIFIED` and `NORMAL` are both NORMAL).
pub fn kind_from_proto(value: i32) -> Option<engine::PieceKind> {
    use engine::PieceKind as Kind;
    match proto::PieceKind::try_from(value).ok()? {
        proto::PieceKind::Unspecified | proto::PieceKind::Normal => Some(Kind::Normal),
        proto::PieceKind::StripedH => Some(Kind::StripedH),
        proto::PieceKind::StripedV => Some(Kind::StripedV),
        proto::PieceKind::Wrapped => Some(Kind::Wrapped),
        proto::PieceKind::ColorBomb => Some(Kind::ColorBomb),
        proto::PieceKind::Ingredient => Some(Kind::Ingredient),
    }
}

impl From<engine::PieceKind> for proto::PieceKind {
    fn from(kind: engine::PieceKind) -> Self {
        use engine::PieceKind as Kind;
        match kind {
            Kind::Normal => Self::Unspecified,
            Kind::StripedH => Self::StripedH,
            Kind::StripedV => Self::StripedV,
            Kind::Wrapped => Self::Wrapped,
            Kind::ColorBomb => Self::ColorBomb,
            Kind::Ingredient => Self::Ingredient,
        }
    }
}

impl From<&engine::SwapBoard> for proto::Board {
    /// A swap board on the wire: cells, and for a board with layers both `holes` and `kinds`
    /// in full (and, with level layers, `jelly`, `blockers`, `locks` and `exits` too).
    fn from(board: &engine::SwapBoard) -> Self {
        let message = swap_board_message(board.colors(), board.holes(), board.kinds());
        if !board.has_level_layers() {
            return message;
        }
        let words = |values: Option<&[u8]>| -> Vec<u32> {
            values
                .unwrap_or_default()
                .iter()
                .map(|&v| u32::from(v))
                .collect()
        };
        proto::Board {
            jelly: words(board.jelly()),
            blockers: words(board.blockers()),
            locks: board.locks().map(Iterator::collect).unwrap_or_default(),
            exits: board.exits().unwrap_or_default().to_vec(),
            ..message
        }
    }
}

impl From<&engine::StableBoard> for proto::Board {
    /// As `From<&SwapBoard>`.
    fn from(board: &engine::StableBoard) -> Self {
        if board.has_level_layers() {
            return (&board.to_board()).into();
        }
        swap_board_message(board.colors(), board.holes(), board.kinds())
    }
}

/// The wire form of a swap board's colours and, when it has them, its layers.
fn swap_board_message(
    colors: &engine::Board,
    holes: Option<&[bool]>,
    kinds: Option<&[engine::PieceKind]>,
) -> proto::Board {
    proto::Board {
        holes: holes.map(<[bool]>::to_vec).unwrap_or_default(),
        kinds: kinds.map_or_else(Vec::new, |kinds| {
            kinds
                .iter()
                .map(|&kind| proto::PieceKind::from(kind) as i32)
                .collect()
        }),
        ..colors.into()
    }
}

impl From<engine::Special> for proto::Special {
    fn from(special: engine::Special) -> Self {
        Self {
            position: Some(special.position.into()),
            kind: proto::PieceKind::from(special.kind) as i32,
            color: u32::from(special.color),
        }
    }
}

impl From<Option<engine::Combination>> for proto::Combination {
    fn from(combination: Option<engine::Combination>) -> Self {
        use engine::Combination as C;
        match combination {
            None => Self::Unspecified,
            Some(C::BombNormal) => Self::BombNormal,
            Some(C::BombStriped) => Self::BombStriped,
            Some(C::BombWrapped) => Self::BombWrapped,
            Some(C::BombBomb) => Self::BombBomb,
            Some(C::StripedStriped) => Self::StripedStriped,
            Some(C::StripedWrapped) => Self::StripedWrapped,
            Some(C::WrappedWrapped) => Self::WrappedWrapped,
        }
    }
}

/// The error for a missing required message field.
pub fn required(field: &'static str) -> EngineError {
    EngineError::InvalidParameter {
        field,
        reason: "is required".to_owned(),
    }
}

/// `error` from a generation request nested as the `generate` start of another request
/// (ReplayGame, Simulate): the field it names gets the `generate.` prefix, so the client knows
/// which `colors` or `width` is wrong.
pub fn in_generate_start(error: EngineError) -> EngineError {
    let prefixed = |field: &'static str| match field {
        "width" => "generate.width",
        "height" => "generate.height",
        "colors" => "generate.colors",
        "min_moves" => "generate.min_moves",
        "min_group" => "generate.min_group",
        "holes" => "generate.holes",
        other => other,
    };
    match error {
        EngineError::InvalidParameter { field, reason } => EngineError::InvalidParameter {
            field: prefixed(field),
            reason,
        },
        other => other,
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
            ..Self::default()
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
        fired: step.fired.into_iter().map(Into::into).collect(),
        created: step.created.into_iter().map(Into::into).collect(),
        effect_cleared: step.effect_cleared.into_iter().map(Into::into).collect(),
        hits: step.hits.into_iter().map(Into::into).collect(),
        collected: step.collected.into_iter().map(Into::into).collect(),
    }
}

impl From<engine::Hit> for proto::Hit {
    fn from(hit: engine::Hit) -> Self {
        Self {
            position: Some(hit.position.into()),
            jelly_left: u32::from(hit.jelly_left),
            blocker_left: u32::from(hit.blocker_left),
            lock_removed: hit.lock_removed,
        }
    }
}

impl From<engine::SwapVerdict> for proto::SwapVerdict {
    fn from(verdict: engine::SwapVerdict) -> Self {
        match verdict {
            engine::SwapVerdict::Ok => Self::Ok,
            engine::SwapVerdict::OutOfBounds => Self::OutOfBounds,
            engine::SwapVerdict::Hole => Self::Hole,
            engine::SwapVerdict::Blocked => Self::Blocked,
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
