//! Helpers of the level engine's unit tests: resolving a board written as text.

use super::{PieceKind, Special};
use crate::swap::board::SwapBoard;
use crate::swap::resolve::{resolve_board, resolve_swap};
use crate::swap::stable::StableBoard;
use crate::swap::step::CascadeOutcome;
pub(super) use crate::swap::test_support::{NONE_WITH_SPECIALS as NONE, p, swap};

/// A special of `kind` and `color` at `(row, col)`.
pub(super) fn special(row: u32, col: u32, kind: PieceKind, color: u8) -> Special {
    Special {
        position: p(row, col),
        kind,
        color,
    }
}

/// Resolves `text` under NONE refill, after the swap `a`-`b` when given.
pub(super) fn run(text: &str, swapped: Option<((u32, u32), (u32, u32))>) -> CascadeOutcome {
    let level = SwapBoard::parse_with_layers(text).unwrap();
    let mut rng = crate::rng_from_seed(0);
    match swapped {
        Some((a, b)) => {
            let stable = StableBoard::try_from(level).unwrap();
            resolve_swap(stable, swap(a, b), NONE, &mut rng).unwrap()
        }
        None => resolve_board(level, NONE, &mut rng).unwrap(),
    }
}
