//! [`ObstacleBoard`]: a level board (holes and piece kinds, section 6) with the layers of
//! docs/rules.md section 8 (jelly, blockers, locks, exits; ingredients are a piece kind),
//! consistent by construction, and its text form.

use std::fmt;
use std::sync::Arc;

use super::layered::{LevelBoard, same_width};
use super::pieces::{PieceKind, read_kind_suffix, write_cell};
use crate::board::{Board, EMPTY, color_from_char};
use crate::error::{BoardError, EngineError, Layer, LevelError};

/// The level layers of docs/rules.md section 8 as given, before they are checked against a
/// board: each list is empty (no such layer; for `exits`, the default exits) or holds
/// `width * height` values, row-major.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LevelLayers {
    /// Jelly layers under each cell, `0..=2`.
    pub jelly: Vec<u8>,
    /// Blocker hit points, `0..=5` (0: no blocker). A blocker's cell has value 0, kind NORMAL.
    pub blockers: Vec<u8>,
    /// Locked tiles: a lock needs a coloured tile (not a bomb, not an ingredient) under it.
    pub locks: Vec<bool>,
    /// Exit cells, where ingredients leave the board; empty for the default exits (in each
    /// column that has a non-hole cell, its lowest one). Never on a hole.
    pub exits: Vec<bool>,
}

impl LevelLayers {
    /// True when no list is given.
    pub fn is_empty(&self) -> bool {
        self.jelly.is_empty()
            && self.blockers.is_empty()
            && self.locks.is_empty()
            && self.exits.is_empty()
    }
}

/// A level board with the layers of section 8.
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct ObstacleBoard {
    level: LevelBoard,
    /// The jelly layers, the blocker hit points and the locks (1 for a lock), `width * height`
    /// bytes each, row-major, one after the other: one allocation, so that the copy of the
    /// board each cascade step records costs one allocation for the three.
    layers: Vec<u8>,
    /// Shared between copies: exits never change.
    exits: Arc<[bool]>,
    /// True when the exits are the default ones.
    default_exits: bool,
}

/// The default exits: in each column that has a non-hole cell, its lowest one.
pub(crate) fn default_exits(holes: &[bool], width: usize) -> Vec<bool> {
    let mut exits = vec![false; holes.len()];
    let height = holes.len() / width;
    for col in 0..width {
        if let Some(row) = (0..height).rev().find(|&row| !holes[row * width + col]) {
            exits[row * width + col] = true;
        }
    }
    exits
}

fn layer_list<T: Clone>(
    values: Vec<T>,
    fill: T,
    size: usize,
    layer: Layer,
) -> Result<Vec<T>, LevelError> {
    match values.len() {
        0 => Ok(vec![fill; size]),
        n if n == size => Ok(values),
        actual => Err(LevelError::LayerCountMismatch {
            layer,
            expected: size,
            actual,
        }),
    }
}

impl Clone for ObstacleBoard {
    fn clone(&self) -> Self {
        Self {
            level: self.level.clone(),
            layers: self.layers.clone(),
            exits: Arc::clone(&self.exits),
            default_exits: self.default_exits,
        }
    }

    /// Reuses the storage of every layer.
    fn clone_from(&mut self, source: &Self) {
        self.level.clone_from(&source.level);
        self.layers.clone_from(&source.layers);
        self.exits = Arc::clone(&source.exits);
        self.default_exits = source.default_exits;
    }
}

impl ObstacleBoard {
    /// Puts `layers` on `level`.
    ///
    /// # Errors
    /// The [`LevelError`] of the first fault: the list counts (jelly, blockers, locks, exits),
    /// then the cells in row-major order.
    pub(crate) fn new(level: LevelBoard, layers: LevelLayers) -> Result<Self, LevelError> {
        let size = level.len();
        let width = level.width();
        let given_exits = !layers.exits.is_empty();
        let jelly = layer_list(layers.jelly, 0, size, Layer::Jelly)?;
        let blockers = layer_list(layers.blockers, 0, size, Layer::Blockers)?;
        let locks = layer_list(layers.locks, false, size, Layer::Locks)?;
        let exits = layer_list(layers.exits, false, size, Layer::Exits)?;
        let bad = |layer, index, reason| {
            Err(LevelError::BadLayer {
                layer,
                index,
                reason,
            })
        };
        for index in 0..size {
            let (color, kind) = (level.color(index), level.kind(index));
            if level.is_hole(index) {
                for (present, layer) in [
                    (jelly[index] > 0, Layer::Jelly),
                    (blockers[index] > 0, Layer::Blockers),
                    (locks[index], Layer::Locks),
                    (exits[index], Layer::Exits),
                ] {
                    if present {
                        return bad(layer, index, "a hole carries no layer");
                    }
                }
                continue;
            }
            if jelly[index] > 2 {
                return bad(Layer::Jelly, index, "jelly layers are 0..=2");
            }
            if blockers[index] > 5 {
                return bad(Layer::Blockers, index, "blocker hit points are 0..=5");
            }
            if blockers[index] > 0 && (color != EMPTY || kind != PieceKind::Normal) {
                return bad(
                    Layer::Blockers,
                    index,
                    "a blocker fills its cell: cell value 0 and kind NORMAL",
                );
            }
            // A colour bomb and an ingredient have no colour, nor has a blocker's cell.
            if locks[index] && color == EMPTY {
                return bad(
                    Layer::Locks,
                    index,
                    "a lock needs a coloured tile under it (not an empty cell, a blocker, a colour bomb or an ingredient)",
                );
            }
        }
        let default = default_exits(level.holes(), width);
        let exits = if given_exits { exits } else { default.clone() };
        let mut stored = jelly;
        stored.extend_from_slice(&blockers);
        stored.extend(locks.iter().map(|&lock| u8::from(lock)));
        Ok(Self {
            default_exits: exits == default,
            level,
            layers: stored,
            exits: exits.into(),
        })
    }

    /// `level` with no level layer set and the default exits.
    pub(crate) fn with_default_layers(level: LevelBoard) -> Self {
        let size = level.len();
        let exits = default_exits(level.holes(), level.width());
        Self {
            level,
            layers: vec![0; 3 * size],
            exits: exits.into(),
            default_exits: true,
        }
    }

    /// Parses the text form: as [`LevelBoard::parse`], each non-hole cell optionally
    /// followed by `~` (locked), `'` or `"` (one or two jelly layers) and `_` (an exit), in that
    /// order; `@` is an ingredient and `X1` to `X5` a blocker with that many hit points. When
    /// no cell has `_`, the exits are the default ones. Example: `"R~'G\"@/X2_BR"`.
    ///
    /// # Errors
    /// [`BoardError::Text`] for ragged rows or unknown characters, the size errors of
    /// [`Board::from_raw`], and the [`LevelError`]s of [`ObstacleBoard::new`].
    pub(crate) fn parse(text: &str) -> Result<Self, EngineError> {
        let mut cells = Vec::new();
        let mut holes = Vec::new();
        let mut kinds = Vec::new();
        let mut layers = LevelLayers::default();
        let mut width = None;
        let mut height = 0u32;
        let unknown = |ch: char, row: usize| {
            EngineError::from(BoardError::Text(format!(
                "unknown cell character {ch:?} in row {row}"
            )))
        };
        for (row_index, row) in text.trim().split('/').enumerate() {
            let mut count = 0usize;
            let mut chars = row.chars().peekable();
            while let Some(ch) = chars.next() {
                count += 1;
                let (mut color, mut hole, mut kind, mut blocker) =
                    (EMPTY, false, PieceKind::Normal, 0u8);
                match ch {
                    '#' => hole = true,
                    '*' => kind = PieceKind::ColorBomb,
                    '@' => kind = PieceKind::Ingredient,
                    'X' => {
                        let points = chars.next().and_then(|d| d.to_digit(10));
                        blocker = points.ok_or_else(|| unknown('X', row_index))? as u8;
                    }
                    _ => {
                        color = color_from_char(ch).ok_or_else(|| unknown(ch, row_index))?;
                        if color != EMPTY {
                            kind = read_kind_suffix(&mut chars);
                        }
                    }
                }
                let lock = chars.next_if_eq(&'~').is_some();
                let jelly = match chars.next_if(|&c| c == '\'' || c == '"') {
                    Some('\'') => 1,
                    Some(_) => 2,
                    None => 0,
                };
                let exit = chars.next_if_eq(&'_').is_some();
                cells.push(u32::from(color));
                holes.push(hole);
                kinds.push(kind);
                layers.jelly.push(jelly);
                layers.blockers.push(blocker);
                layers.locks.push(lock);
                layers.exits.push(exit);
            }
            same_width(&mut width, count, row_index)?;
            height += 1;
        }
        if !layers.exits.contains(&true) {
            layers.exits.clear();
        }
        let width = u32::try_from(width.unwrap_or(0)).unwrap_or(u32::MAX);
        let board = Board::from_raw(width, height, &cells)?;
        let level = LevelBoard::new(board, holes, kinds)?;
        Ok(Self::new(level, layers)?)
    }

    /// The colours, holes and kinds.
    pub(crate) fn level(&self) -> &LevelBoard {
        &self.level
    }

    /// The colours, holes and kinds, for a step's clearing to change.
    pub(crate) fn level_mut(&mut self) -> &mut LevelBoard {
        &mut self.level
    }

    /// Jelly layers per cell, row-major.
    pub(crate) fn jelly(&self) -> &[u8] {
        &self.layers[..self.level.len()]
    }

    /// Blocker hit points per cell (0: none), row-major.
    pub(crate) fn blockers(&self) -> &[u8] {
        let size = self.level.len();
        &self.layers[size..2 * size]
    }

    /// Locks per cell (1: locked, 0: not), row-major.
    pub(crate) fn locks(&self) -> &[u8] {
        &self.layers[2 * self.level.len()..]
    }

    /// True when cell `index` is locked.
    pub(crate) fn is_locked(&self, index: usize) -> bool {
        self.locks()[index] != 0
    }

    /// Exit flags, row-major.
    pub(crate) fn exits(&self) -> &[bool] {
        &self.exits
    }

    /// True when cell `index` is fixed: it holds a blocker or a locked tile.
    pub(crate) fn is_fixed(&self, index: usize) -> bool {
        self.blockers()[index] > 0 || self.is_locked(index)
    }

    /// True when cell `index` holds a piece: a tile (a colour or a bomb) or an ingredient.
    pub(crate) fn is_piece(&self, index: usize) -> bool {
        self.level.is_tile(index) || self.level.kind(index) == PieceKind::Ingredient
    }

    /// The parts gravity and clearing change: colours, kinds, jelly, blockers and locks (1 for
    /// a lock).
    #[allow(clippy::type_complexity)]
    pub(crate) fn parts_mut(
        &mut self,
    ) -> (&mut [u8], &mut [PieceKind], &mut [u8], &mut [u8], &mut [u8]) {
        let size = self.level.len();
        let (colors, kinds, _) = self.level.parts_mut();
        let (jelly, rest) = self.layers.split_at_mut(size);
        let (blockers, locks) = rest.split_at_mut(size);
        (colors, kinds, jelly, blockers, locks)
    }

    /// Number of jelly layers on the board.
    pub(crate) fn jelly_left(&self) -> u64 {
        self.jelly().iter().map(|&n| u64::from(n)).sum()
    }

    /// Number of blockers on the board.
    pub(crate) fn blockers_left(&self) -> u64 {
        self.blockers().iter().filter(|&&n| n > 0).count() as u64
    }

    /// SHA-256 fingerprint: the level board's (see [`super::layered`]) followed by four
    /// bytes per cell, row-major: jelly layers, blocker hit points, 1 for a lock, 1 for an exit.
    pub(crate) fn digest(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        hasher.update(super::layered::level_board_digest(&self.level));
        let (jelly, blockers, locks) = (self.jelly(), self.blockers(), self.locks());
        for index in 0..self.level.len() {
            hasher.update([
                jelly[index],
                blockers[index],
                locks[index],
                u8::from(self.exits[index]),
            ]);
        }
        hasher.finalize().into()
    }
}

impl fmt::Display for ObstacleBoard {
    /// The text form of [`ObstacleBoard::parse`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.level.width();
        for index in 0..self.level.len() {
            if index > 0 && index % width == 0 {
                f.write_str("/")?;
            }
            let hole = self.level.is_hole(index);
            let blocker = self.blockers()[index];
            if blocker > 0 {
                write!(f, "X{blocker}")?;
            } else {
                write_cell(f, self.level.color(index), hole, self.level.kind(index))?;
            }
            if self.is_locked(index) {
                f.write_str("~")?;
            }
            match self.jelly()[index] {
                0 => {}
                1 => f.write_str("'")?,
                _ => f.write_str("\"")?,
            }
            if !self.default_exits && self.exits[index] {
                f.write_str("_")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for ObstacleBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ObstacleBoard({}x{} {self})",
            self.level.width(),
            self.level.height()
        )
    }
}

/// The layout board of `colors`/`holes`/`kinds` and `layers` before its slots are coloured: a
/// lock needs a tile, so the locked cells are checked once coloured (see
/// [`generate_on_layout`]); this builds the board with a placeholder colour on every slot.
pub(crate) fn layout_board(
    width: u32,
    height: u32,
    holes: Vec<bool>,
    kinds: Vec<PieceKind>,
    layers: LevelLayers,
) -> Result<ObstacleBoard, EngineError> {
    let size = (width as usize) * (height as usize);
    let blockers = layers.blockers.clone();
    let cells: Vec<u32> = (0..size)
        .map(|i| {
            let hole = holes.get(i).copied().unwrap_or(false);
            let blocker = blockers.get(i).copied().unwrap_or(0) > 0;
            let piece = kinds.get(i).copied().unwrap_or_default() != PieceKind::Normal;
            u32::from(!hole && !blocker && !piece)
        })
        .collect();
    let board = Board::from_raw(width, height, &cells)?;
    let level = LevelBoard::new(board, holes, kinds)?;
    Ok(ObstacleBoard::new(level, layers)?)
}
