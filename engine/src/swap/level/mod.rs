//! Level boards (docs/rules.md section 6): a swap-family board with a hole mask and per-cell
//! piece kinds (striped, wrapped, colour bomb).
//!
//! Plain boards never come here: they keep the bitboard path of sections 1-2. A [`LevelBoard`]
//! keeps the colours in an ordinary [`Board`] (0 for empty cells, holes and colour bombs, so
//! runs found on the colours alone are exactly the level's runs: a hole or a bomb breaks every
//! line), plus one hole flag and one [`PieceKind`] per cell. Runs, groups, valid swaps and the
//! areas specials clear are computed on the plain engine's colour planes plus one row mask
//! each for tiles, specials and bombs; only the events reported are built cell by cell.

mod arrange;
mod bits;
mod cascade;
mod clearing;
mod creation;
mod gravity;
mod rules;
mod scratch;
#[cfg(test)]
mod test_support;

use std::fmt;

pub(crate) use arrange::{generate_level_board, shuffle_level};
pub(crate) use cascade::{
    play_level_swap, preview_level_swap, resolve_level_board_into, resolve_level_swap_into,
};
pub(in crate::swap) use clearing::{StepCells, Trigger, clear_step};
pub use rules::Combination;
pub(crate) use rules::{count_level_valid_swaps, judge_level_swap, level_valid_swaps};
pub(in crate::swap) use rules::{exchange, push_row_swaps};

pub(crate) use super::layered::LevelBoard;
pub(crate) use super::pieces::{PieceKind, Special};
use crate::bitboard::ColorPlanes;
use crate::error::EngineError;
use crate::runs::{has_run, matched_positions};
pub(crate) use bits::KindMasks;
pub(in crate::swap) use bits::{level_swap_masks, packed_level_swap_masks};

/// A level board with no run and no empty non-hole cell: the only level board the rules judge
/// swaps on. Like the plain `StablePlain`, it keeps the colour planes its stability
/// check built, and the kind masks of its tiles, specials and bombs, for the cascade and the
/// valid-swap count to start from.
#[derive(Clone)]
pub(crate) struct StableLevel {
    level: LevelBoard,
    planes: ColorPlanes,
    /// Boxed: the masks are large (three 64-row sets), and a turn takes the board by value.
    masks: Box<KindMasks>,
}

impl StableLevel {
    /// The board.
    pub fn level(&self) -> &LevelBoard {
        &self.level
    }

    /// Gives the board back.
    pub fn into_level(self) -> LevelBoard {
        self.level
    }

    /// The colour planes and kind masks of the board.
    pub(crate) fn bits(&self) -> (&ColorPlanes, &KindMasks) {
        (&self.planes, &self.masks)
    }

    pub(crate) fn new_unchecked(level: LevelBoard) -> Self {
        let planes = ColorPlanes::of(level.board());
        Self::with_planes(level, planes)
    }

    /// Wraps a board the engine knows to be stable, its colour planes already built.
    pub(crate) fn with_planes(level: LevelBoard, planes: ColorPlanes) -> Self {
        debug_assert!(is_level_stable(&level));
        debug_assert!(planes.describes(level.board()));
        let masks = Box::new(KindMasks::of(&level, &planes));
        Self {
            level,
            planes,
            masks,
        }
    }
}

impl PartialEq for StableLevel {
    fn eq(&self, other: &Self) -> bool {
        self.level == other.level
    }
}

impl Eq for StableLevel {}

impl fmt::Debug for StableLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StableLevel").field(&self.level).finish()
    }
}

/// True when `level` has no run and no empty non-hole cell.
pub(crate) fn is_level_stable(level: &LevelBoard) -> bool {
    !level.has_empty_cell() && !has_run(level.board())
}

impl TryFrom<LevelBoard> for StableLevel {
    type Error = EngineError;

    /// # Errors
    /// [`EngineError::UnstableBoard`] listing the empty non-hole cells and the matched cells.
    fn try_from(level: LevelBoard) -> Result<Self, Self::Error> {
        let planes = ColorPlanes::of(level.board());
        if !level.has_empty_cell() && !planes.has_run() {
            let masks = Box::new(KindMasks::of(&level, &planes));
            return Ok(Self {
                level,
                planes,
                masks,
            });
        }
        Err(EngineError::UnstableBoard {
            empty_cells: level.empty_cells(),
            matched_cells: matched_positions(level.board()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;

    #[test]
    fn stability_ignores_holes_and_bombs() {
        // The hole breaks the row and the bomb breaks the column: no run, no empty cell.
        let level = LevelBoard::parse("RR#R/G*GG/RGRB/BRGR").unwrap();
        assert!(is_level_stable(&level));
        assert!(StableLevel::try_from(LevelBoard::parse("RRR#").unwrap()).is_err());
        let err = StableLevel::try_from(LevelBoard::parse("R.#G").unwrap()).unwrap_err();
        assert_eq!(
            err,
            EngineError::UnstableBoard {
                empty_cells: vec![Position::new(0, 1)],
                matched_cells: vec![]
            }
        );
    }
}
