//! Helpers of the level engine's unit tests: resolving a board written as text.

use super::{LevelBoard, LevelOutcome, PieceKind, Special, StableLevel};
use super::{resolve_level_board, resolve_level_swap};
use crate::board::Position;
use crate::cascade::{CascadeOptions, Refill};
use crate::moves::Swap;

/// NONE refill, the automatic shuffle on, 1000 steps.
pub(super) const NONE: CascadeOptions = CascadeOptions {
    refill: Refill::None,
    auto_shuffle: true,
    max_steps: 1000,
};

/// The position `(row, col)`.
pub(super) fn p(row: u32, col: u32) -> Position {
    Position::new(row, col)
}

/// A special of `kind` and `color` at `(row, col)`.
pub(super) fn special(row: u32, col: u32, kind: PieceKind, color: u8) -> Special {
    Special {
        position: p(row, col),
        kind,
        color,
    }
}

/// Resolves `text` under NONE refill, after the swap `a`-`b` when given.
pub(super) fn run(text: &str, swap: Option<((u32, u32), (u32, u32))>) -> LevelOutcome {
    let level = LevelBoard::parse(text).unwrap();
    let mut rng = crate::rng_from_seed(0);
    match swap {
        Some((a, b)) => {
            let stable = StableLevel::try_from(level).unwrap();
            let swap = Swap::new(p(a.0, a.1), p(b.0, b.1));
            resolve_level_swap(stable, swap, NONE, &mut rng).unwrap()
        }
        None => resolve_level_board(level, NONE, &mut rng).unwrap(),
    }
}
