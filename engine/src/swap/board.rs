//! [`SwapBoard`]: the one board of the swap family. Its colours are an ordinary [`Board`];
//! a board may carry layers on top (a hole mask and a piece kind per cell, docs/rules.md
//! section 6), and a board without them takes the plain path of sections 1-2, which pays
//! nothing for layers it does not have.

use std::fmt;

use super::layered::{LevelBoard, level_board_digest};
use super::level_layers::{LevelLayers, ObstacleBoard, layout_board};
use super::pieces::PieceKind;
use crate::board::{Board, Position};
use crate::collapse::board_digest;
use crate::error::{EngineError, LevelError};

/// A swap-family board: colours, and optionally a hole layer and a piece-kind layer.
///
/// Consistent by construction: a hole holds no tile and has kind NORMAL; a colour bomb's
/// colour is 0; striped and wrapped pieces have a colour. Whether a board carries layers is
/// part of its value (two boards with the same cells, one with an all-NORMAL kind layer, are
/// different boards): it decides how the board is shuffled and generated (a board with layers
/// shuffles its (colour, kind) tiles around its holes), and what a digest covers.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SwapBoard(Storage);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Storage {
    Plain(Board),
    Layered(LevelBoard),
    /// Boxed: the level layers make it several times larger than the other two.
    Obstacles(Box<ObstacleBoard>),
}

/// The characters of the text form that only the level layers of section 8 use.
const LEVEL_LAYER_CHARS: [char; 6] = ['@', 'X', '~', '\'', '"', '_'];

impl From<Board> for SwapBoard {
    /// A board without layers.
    fn from(board: Board) -> Self {
        Self(Storage::Plain(board))
    }
}

impl SwapBoard {
    /// A board with a hole layer and a piece-kind layer over `colors`: `holes` and `kinds` are
    /// row-major, `width * height` of each; an empty list means "no holes" or "every kind
    /// NORMAL".
    ///
    /// # Errors
    /// The [`LevelError`] of the first fault: counts first, then cells in row-major order.
    pub fn with_layers(
        colors: Board,
        holes: Vec<bool>,
        kinds: Vec<PieceKind>,
    ) -> Result<Self, LevelError> {
        Self::with_level_layers(colors, holes, kinds, LevelLayers::default())
    }

    /// A board with the level layers of docs/rules.md section 8 (jelly, blockers, locks,
    /// exits) besides holes and kinds (where [`PieceKind::Ingredient`] may stand). With no
    /// level layer and no ingredient, the same board as [`SwapBoard::with_layers`].
    ///
    /// # Errors
    /// The [`LevelError`] of the first fault: the counts of `holes` and `kinds`, their cells in
    /// row-major order, then the counts of the level layers and their cells in row-major order.
    pub fn with_level_layers(
        colors: Board,
        holes: Vec<bool>,
        kinds: Vec<PieceKind>,
        layers: LevelLayers,
    ) -> Result<Self, LevelError> {
        let level = LevelBoard::new(colors, holes, kinds)?;
        if layers.is_empty() && !level.kinds().contains(&PieceKind::Ingredient) {
            return Ok(Self::layered(level));
        }
        ObstacleBoard::new(level, layers).map(Self::obstacles)
    }

    /// A layout to generate boards on ([`crate::generate_on_layout`], docs/rules.md section 8):
    /// `width` x `height` cells with these holes, kinds (only ingredients make sense there:
    /// generation colours every other cell, NORMAL) and level layers. Every cell that is
    /// neither a hole, a blocker nor an ingredient holds colour 1 until generation colours it,
    /// so locks may stand on any of them.
    ///
    /// # Errors
    /// The size errors of [`Board::from_raw`] and the [`LevelError`]s of
    /// [`SwapBoard::with_level_layers`].
    pub fn layout(
        width: u32,
        height: u32,
        holes: Vec<bool>,
        kinds: Vec<PieceKind>,
        layers: LevelLayers,
    ) -> Result<Self, EngineError> {
        layout_board(width, height, holes, kinds, layers).map(Self::obstacles)
    }

    /// Parses the text form: rows top to bottom joined by `/`. Each cell is `#` (a hole), `.`
    /// or `0` (empty), `*` (a colour bomb), or a colour (a letter of [`crate::COLOR_LETTERS`]
    /// or a digit, as in [`Board::parse`]) optionally followed by `-` (striped along its row),
    /// `|` (striped along its column) or `+` (wrapped). Example: `"R-GB/#*R+"`. A text with a
    /// hole or a special piece gives a board with layers, any other a board without.
    ///
    /// # Errors
    /// [`crate::BoardError::Text`] for ragged rows or unknown characters, and the size errors
    /// of [`Board::from_raw`].
    pub fn parse(text: &str) -> Result<Self, EngineError> {
        if text.contains(LEVEL_LAYER_CHARS) {
            ObstacleBoard::parse(text).map(Self::obstacles)
        } else if text.contains(['#', '*', '-', '|', '+']) {
            LevelBoard::parse(text).map(Self::layered)
        } else {
            Ok(Board::parse(text)?.into())
        }
    }

    /// [`SwapBoard::parse`], always giving a board with layers (for a text without holes or
    /// specials, both layers are empty).
    ///
    /// # Errors
    /// As [`SwapBoard::parse`].
    pub fn parse_with_layers(text: &str) -> Result<Self, EngineError> {
        if text.contains(LEVEL_LAYER_CHARS) {
            return ObstacleBoard::parse(text).map(Self::obstacles);
        }
        LevelBoard::parse(text).map(Self::layered)
    }

    pub(crate) fn layered(level: LevelBoard) -> Self {
        Self(Storage::Layered(level))
    }

    pub(crate) fn obstacles(board: ObstacleBoard) -> Self {
        Self(Storage::Obstacles(Box::new(board)))
    }

    /// The colours: 0 for empty cells, holes and colour bombs.
    pub fn colors(&self) -> &Board {
        match &self.0 {
            Storage::Plain(board) => board,
            Storage::Layered(level) => level.board(),
            Storage::Obstacles(board) => board.level().board(),
        }
    }

    /// The board's colours when it carries no layer at all.
    pub(crate) fn plain(&self) -> Option<&Board> {
        match &self.0 {
            Storage::Plain(board) => Some(board),
            _ => None,
        }
    }

    /// True when the board carries a hole layer and a piece-kind layer (and maybe the level
    /// layers of section 8).
    pub fn has_layers(&self) -> bool {
        !matches!(self.0, Storage::Plain(_))
    }

    /// True when the board carries the level layers of docs/rules.md section 8 (jelly,
    /// blockers, locks, exits; set whenever a board has one of them or an ingredient).
    pub fn has_level_layers(&self) -> bool {
        matches!(self.0, Storage::Obstacles(_))
    }

    /// The hole flags, row-major, when the board has layers.
    pub fn holes(&self) -> Option<&[bool]> {
        self.any_level().map(LevelBoard::holes)
    }

    /// The piece kinds, row-major, when the board has layers.
    pub fn kinds(&self) -> Option<&[PieceKind]> {
        self.any_level().map(LevelBoard::kinds)
    }

    /// Jelly layers per cell (`0..=2`), row-major, when the board has level layers.
    pub fn jelly(&self) -> Option<&[u8]> {
        self.as_obstacles().map(ObstacleBoard::jelly)
    }

    /// Blocker hit points per cell (`0..=5`, 0: no blocker), row-major, when the board has
    /// level layers.
    pub fn blockers(&self) -> Option<&[u8]> {
        self.as_obstacles().map(ObstacleBoard::blockers)
    }

    /// Lock flags (true: the cell's tile is locked), row-major, `width * height` of them,
    /// when the board has level layers.
    pub fn locks(&self) -> Option<impl ExactSizeIterator<Item = bool> + '_> {
        let locks = self.as_obstacles().map(ObstacleBoard::locks)?;
        Some(locks.iter().map(|&lock| lock != 0))
    }

    /// Exit flags, row-major, when the board has level layers (the default exits when none
    /// were given: in each column with a non-hole cell, its lowest one).
    pub fn exits(&self) -> Option<&[bool]> {
        self.as_obstacles().map(ObstacleBoard::exits)
    }

    /// Number of jelly layers on the board (0 without level layers).
    pub fn jelly_left(&self) -> u64 {
        self.as_obstacles().map_or(0, ObstacleBoard::jelly_left)
    }

    /// Number of blockers on the board (0 without level layers).
    pub fn blockers_left(&self) -> u64 {
        self.as_obstacles().map_or(0, ObstacleBoard::blockers_left)
    }

    /// Number of ingredients on the board.
    pub fn ingredients_left(&self) -> u64 {
        self.kinds().map_or(0, |kinds| {
            kinds
                .iter()
                .filter(|&&kind| kind == PieceKind::Ingredient)
                .count() as u64
        })
    }

    /// Number of columns, `1..=64`.
    pub fn width(&self) -> usize {
        self.colors().width()
    }

    /// Number of rows, `1..=64`.
    pub fn height(&self) -> usize {
        self.colors().height()
    }

    /// True when cell `index` (row-major, below `width * height`) is a hole.
    pub fn is_hole(&self, index: usize) -> bool {
        self.any_level().is_some_and(|level| level.is_hole(index))
    }

    /// The kind of cell `index` (row-major, below `width * height`).
    pub fn kind(&self, index: usize) -> PieceKind {
        self.any_level()
            .map_or(PieceKind::Normal, |level| level.kind(index))
    }

    /// True when cell `index` (row-major) holds a tile: a colour, or a colour bomb.
    pub fn is_tile(&self, index: usize) -> bool {
        match &self.0 {
            Storage::Plain(board) => board.at(index) != crate::board::EMPTY,
            Storage::Layered(level) => level.is_tile(index),
            Storage::Obstacles(board) => board.level().is_tile(index),
        }
    }

    /// The cells that are neither a hole nor hold a piece (on a board with level layers: nor a
    /// blocker), row-major.
    pub fn empty_cells(&self) -> Vec<Position> {
        if let Storage::Obstacles(board) = &self.0 {
            let level = board.level();
            return (0..level.len())
                .filter(|&i| !level.is_hole(i) && !board.is_fixed(i) && !board.is_piece(i))
                .map(|i| level.board().position_of(i))
                .collect();
        }
        match &self.0 {
            Storage::Plain(board) => (0..board.cells().len())
                .filter(|&i| board.at(i) == crate::board::EMPTY)
                .map(|i| board.position_of(i))
                .collect(),
            Storage::Layered(level) => level.empty_cells(),
            Storage::Obstacles(_) => unreachable!("handled above"),
        }
    }

    /// True when some cell that is not a hole holds no tile (on a board with level layers:
    /// no piece and no blocker).
    pub fn has_empty_cell(&self) -> bool {
        match &self.0 {
            Storage::Plain(board) => board.has_empty_cell(),
            Storage::Layered(level) => level.has_empty_cell(),
            Storage::Obstacles(_) => !self.empty_cells().is_empty(),
        }
    }

    /// SHA-256 fingerprint: width and height as 4-byte little-endian integers, then one colour
    /// byte per cell, row-major (the collapse family's [`crate::board_digest`]); a board with
    /// layers adds one more byte per cell, row-major: 255 for a hole, else the cell's kind as
    /// its `PieceKind` proto number with NORMAL as 0 (STRIPED_H 2, STRIPED_V 3, WRAPPED 4,
    /// COLOR_BOMB 5, INGREDIENT 6). A board with level layers is hashed twice: SHA-256 over
    /// the 32 bytes of that digest followed by four bytes per cell, row-major: jelly layers,
    /// blocker hit points, 1 for a lock (else 0), 1 for an exit (else 0).
    pub fn digest(&self) -> [u8; 32] {
        match &self.0 {
            Storage::Plain(board) => board_digest(board),
            Storage::Layered(level) => level_board_digest(level),
            Storage::Obstacles(board) => board.digest(),
        }
    }

    /// The board with holes and kinds only (section 6), when it is one.
    pub(crate) fn as_layered(&self) -> Option<&LevelBoard> {
        match &self.0 {
            Storage::Plain(_) | Storage::Obstacles(_) => None,
            Storage::Layered(level) => Some(level),
        }
    }

    /// The board with level layers, when it is one.
    pub(crate) fn as_obstacles(&self) -> Option<&ObstacleBoard> {
        match &self.0 {
            Storage::Obstacles(board) => Some(board),
            _ => None,
        }
    }

    /// The holes and kinds of a board with layers of either kind.
    fn any_level(&self) -> Option<&LevelBoard> {
        match &self.0 {
            Storage::Plain(_) => None,
            Storage::Layered(level) => Some(level),
            Storage::Obstacles(board) => Some(board.level()),
        }
    }

    /// The board's storage, by path.
    pub(crate) fn into_storage(self) -> BoardStorage {
        match self.0 {
            Storage::Plain(board) => BoardStorage::Plain(board),
            Storage::Layered(level) => BoardStorage::Layered(level),
            Storage::Obstacles(board) => BoardStorage::Obstacles(*board),
        }
    }
}

impl SwapBoard {
    /// This board with level layers (none set, the default exits, when it had none): how
    /// level play keeps every board, so its moves always take the path of section 8.
    pub(crate) fn into_obstacles(self) -> ObstacleBoard {
        let level = match self.into_storage() {
            BoardStorage::Obstacles(board) => return board,
            BoardStorage::Plain(board) => empty_layers(board),
            BoardStorage::Layered(level) => level,
        };
        ObstacleBoard::with_default_layers(level)
    }
}

/// A swap board taken apart by the path its moves take.
pub(crate) enum BoardStorage {
    /// Without layers.
    Plain(Board),
    /// With holes and kinds (section 6).
    Layered(LevelBoard),
    /// With level layers (section 8).
    Obstacles(ObstacleBoard),
}

/// Empty hole and kind layers over `board`.
pub(crate) fn empty_layers(board: Board) -> LevelBoard {
    let cells = board.cells().len();
    LevelBoard::from_parts(board, vec![false; cells], vec![PieceKind::Normal; cells])
}

impl fmt::Display for SwapBoard {
    /// The text form of [`SwapBoard::parse`], e.g. `R-GB/#*R+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Storage::Plain(board) => board.fmt(f),
            Storage::Layered(level) => level.fmt(f),
            Storage::Obstacles(board) => board.fmt(f),
        }
    }
}

impl fmt::Debug for SwapBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layers = if self.has_layers() {
            " with layers"
        } else {
            ""
        };
        write!(
            f,
            "SwapBoard({}x{}{layers} {self})",
            self.width(),
            self.height()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_gives_layers_only_to_a_text_with_holes_or_specials() {
        let plain = SwapBoard::parse("RRG/GGR").unwrap();
        assert!(!plain.has_layers());
        assert_eq!(plain.holes(), None);
        assert_eq!(plain.kind(0), PieceKind::Normal);
        let layered = SwapBoard::parse("R#G/G*R").unwrap();
        assert!(layered.has_layers());
        assert!(layered.holes().unwrap()[1]);
        assert_eq!(layered.kind(4), PieceKind::ColorBomb);
        assert_eq!(layered.to_string(), "R#G/G*R");
        let empty_layers = SwapBoard::parse_with_layers("RRG/GGR").unwrap();
        assert!(empty_layers.has_layers());
        assert_ne!(empty_layers, plain);
        assert_eq!(empty_layers.to_string(), plain.to_string());
        assert_ne!(empty_layers.digest(), plain.digest());
        assert_eq!(empty_layers.colors(), plain.colors());
    }

    #[test]
    fn empty_cells_skip_holes() {
        let board = SwapBoard::parse("R.#/*GB").unwrap();
        assert_eq!(board.empty_cells(), vec![Position::new(0, 1)]);
        assert!(board.has_empty_cell());
        assert!(board.is_hole(2) && !board.is_tile(2) && board.is_tile(3));
        let plain = SwapBoard::parse("R.G/BGB").unwrap();
        assert_eq!(plain.empty_cells(), vec![Position::new(0, 1)]);
    }
}
