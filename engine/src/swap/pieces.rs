//! Piece kinds and special pieces of the swap family (docs/rules.md section 6), and the text
//! form of one cell.

use std::fmt;

use crate::board::{EMPTY, Position, color_char};

/// The kind of a piece. Striped and wrapped pieces have a colour and match like plain tiles of
/// it; a colour bomb has no colour (its cell value is 0) and never matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PieceKind {
    /// A plain tile (also the kind of an empty cell and of a hole).
    #[default]
    Normal,
    /// Fires along its row: clears every tile of the row.
    StripedH,
    /// Fires along its column: clears every tile of the column.
    StripedV,
    /// Fires on the 3x3 square centred on it.
    Wrapped,
    /// Fires on every tile of the most common colour at the start of the step.
    ColorBomb,
    /// An ingredient (docs/rules.md section 8): no colour (its cell value is 0), never matches,
    /// is never cleared, falls like a tile, may be swapped, and leaves the board at an exit.
    /// Not a special.
    Ingredient,
}

impl PieceKind {
    /// Any kind but [`PieceKind::Normal`] and [`PieceKind::Ingredient`].
    pub fn is_special(self) -> bool {
        !matches!(self, Self::Normal | Self::Ingredient)
    }

    /// [`PieceKind::StripedH`] or [`PieceKind::StripedV`].
    pub fn is_striped(self) -> bool {
        matches!(self, Self::StripedH | Self::StripedV)
    }

    /// The text-form suffix after a colour: `-` striped along the row, `|` along the column,
    /// `+` wrapped; none for a plain tile. (A colour bomb is written `*`, with no colour.)
    pub fn suffix(self) -> Option<char> {
        match self {
            Self::StripedH => Some('-'),
            Self::StripedV => Some('|'),
            Self::Wrapped => Some('+'),
            Self::Normal | Self::ColorBomb | Self::Ingredient => None,
        }
    }
}

/// A special piece at a cell: fired or created in a cascade step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Special {
    /// Where it is.
    pub position: Position,
    /// Its kind (for a fired piece, the kind it fired as).
    pub kind: PieceKind,
    /// Its colour, or 0 for a colour bomb.
    pub color: u8,
}

/// Writes one cell of the text form.
pub(crate) fn write_cell(
    f: &mut impl fmt::Write,
    color: u8,
    hole: bool,
    kind: PieceKind,
) -> fmt::Result {
    if hole {
        return f.write_char('#');
    }
    if kind == PieceKind::ColorBomb {
        return f.write_char('*');
    }
    if kind == PieceKind::Ingredient {
        return f.write_char('@');
    }
    f.write_char(color_char(color))?;
    match kind.suffix() {
        Some(suffix) if color != EMPTY => f.write_char(suffix),
        _ => Ok(()),
    }
}

/// Reads the kind of a coloured tile of the text form from what follows its letter: a special's
/// suffix (`-`, `|`, `+`, which [`PieceKind::suffix`] writes) is consumed, anything else is
/// left and the tile is [`PieceKind::Normal`].
pub(crate) fn read_kind_suffix(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> PieceKind {
    let kind = match chars.peek() {
        Some('-') => PieceKind::StripedH,
        Some('|') => PieceKind::StripedV,
        Some('+') => PieceKind::Wrapped,
        _ => PieceKind::Normal,
    };
    if kind.is_special() {
        chars.next();
    }
    kind
}

/// The text form of one cell (`#`, `.`, `*`, `R`, `R-`, `R|`, `R+`, ...).
pub fn cell_text(color: u8, hole: bool, kind: PieceKind) -> String {
    let mut text = String::new();
    let _ = write_cell(&mut text, color, hole, kind);
    text
}
