//! Helpers of the swap family's unit tests: options, positions and swaps written briefly.

use super::step::{CascadeOptions, Refill};
use crate::board::Position;
use crate::moves::Swap;

/// NONE refill, the automatic shuffle on, 1000 steps, no special pieces created.
pub(crate) const NONE: CascadeOptions = CascadeOptions {
    refill: Refill::None,
    auto_shuffle: true,
    max_steps: 1000,
    specials: false,
};

/// [`NONE`] with special pieces created.
pub(crate) const NONE_WITH_SPECIALS: CascadeOptions = CascadeOptions {
    specials: true,
    ..NONE
};

/// The position `(row, col)`.
pub(crate) fn p(row: u32, col: u32) -> Position {
    Position::new(row, col)
}

/// The swap of `a` and `b`, each `(row, col)`.
pub(crate) fn swap(a: (u32, u32), b: (u32, u32)) -> Swap {
    Swap::new(p(a.0, a.1), p(b.0, b.1))
}
