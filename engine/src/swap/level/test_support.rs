//! Helpers of the level engine's unit tests: resolving a board written as text.

use super::{PieceKind, Special};
use crate::board::Position;
use crate::moves::Swap;
use crate::swap::board::SwapBoard;
use crate::swap::resolve::{resolve_board, resolve_swap};
use crate::swap::stable::StableBoard;
use crate::swap::step::{CascadeOptions, CascadeOutcome, Refill};

/// NONE refill, the automatic shuffle on, 1000 steps, special pieces created.
pub(super) const NONE: CascadeOptions = CascadeOptions {
    refill: Refill::None,
    auto_shuffle: true,
    max_steps: 1000,
    specials: true,
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
pub(super) fn run(text: &str, swap: Option<((u32, u32), (u32, u32))>) -> CascadeOutcome {
    let level = SwapBoard::parse_with_layers(text).unwrap();
    let mut rng = crate::rng_from_seed(0);
    match swap {
        Some((a, b)) => {
            let stable = StableBoard::try_from(level).unwrap();
            let swap = Swap::new(p(a.0, a.1), p(b.0, b.1));
            resolve_swap(stable, swap, NONE, &mut rng).unwrap()
        }
        None => resolve_board(level, NONE, &mut rng).unwrap(),
    }
}
