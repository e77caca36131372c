//! Swaps on level boards (docs/rules.md section 6): verdicts with holes, combinations, and the
//! list of valid swaps.

use super::bits::{KindMasks, level_swap_masks, packed_valid_swap_count};
use super::{LevelBoard, PieceKind, StableLevel};
use crate::bitboard::{BitIter, ColorPlanes};
use crate::board::Position;
use crate::moves::{Swap, SwapVerdict, swap_makes_match};

/// The combination a swap of a colour bomb, or of two specials, makes. Its step 1 clears the
/// combination's area instead of looking for runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combination {
    /// Bomb + NORMAL tile of colour c: every tile of colour c.
    BombNormal,
    /// Bomb + striped tile of colour c: every tile of colour c, each firing as striped
    /// (STRIPED_H when row + col is even, else STRIPED_V).
    BombStriped,
    /// Bomb + wrapped tile of colour c: every tile of colour c, each firing as WRAPPED.
    BombWrapped,
    /// Bomb + bomb: every tile on the board.
    BombBomb,
    /// Striped + striped: the row and the column through `b`.
    StripedStriped,
    /// Striped + wrapped: the 3 rows and 3 columns centred on `b`.
    StripedWrapped,
    /// Wrapped + wrapped: the 5x5 square centred on `b`.
    WrappedWrapped,
}

impl Combination {
    /// The combination of two swapped tiles' kinds, if any (order does not matter).
    pub fn of(first: PieceKind, second: PieceKind) -> Option<Self> {
        use PieceKind::*;
        let (x, y) = if first <= second {
            (first, second)
        } else {
            (second, first)
        };
        match (x, y) {
            (ColorBomb, ColorBomb) => Some(Self::BombBomb),
            (Normal, ColorBomb) => Some(Self::BombNormal),
            (StripedH | StripedV, ColorBomb) => Some(Self::BombStriped),
            (Wrapped, ColorBomb) => Some(Self::BombWrapped),
            (StripedH | StripedV, StripedH | StripedV) => Some(Self::StripedStriped),
            (StripedH | StripedV, Wrapped) => Some(Self::StripedWrapped),
            (Wrapped, Wrapped) => Some(Self::WrappedWrapped),
            _ => None,
        }
    }
}

/// Judges `swap` on a level board (the rules need only the cells around `a` and `b`), in the
/// order OUT_OF_BOUNDS, HOLE, NOT_ADJACENT, EMPTY_CELL, then OK for a combination or a swap
/// that leaves `a` or `b` matched, else NO_MATCH. Returns the combination of an OK swap.
pub fn judge_level_swap(level: &LevelBoard, swap: Swap) -> (SwapVerdict, Option<Combination>) {
    let board = level.board();
    let (Some(a), Some(b)) = (board.index_of(swap.a), board.index_of(swap.b)) else {
        return (SwapVerdict::OutOfBounds, None);
    };
    if level.is_hole(a) || level.is_hole(b) {
        return (SwapVerdict::Hole, None);
    }
    if swap.a.row.abs_diff(swap.b.row) + swap.a.col.abs_diff(swap.b.col) != 1 {
        return (SwapVerdict::NotAdjacent, None);
    }
    if !level.is_tile(a) || !level.is_tile(b) {
        return (SwapVerdict::EmptyCell, None);
    }
    if let Some(combination) = Combination::of(level.kind(a), level.kind(b)) {
        return (SwapVerdict::Ok, Some(combination));
    }
    // Neither tile is a bomb here, so both have a colour; holes and bombs are 0 in the colours
    // and never extend a run.
    if swap_makes_match(board.cells(), board.width(), board.height(), a, b) {
        (SwapVerdict::Ok, None)
    } else {
        (SwapVerdict::NoMatch, None)
    }
}

/// Every valid swap of a stable level board once, combinations included, as `(a, b)` with `a`
/// before `b` in row-major order, sorted by `a` then `b`, each with its combination.
pub fn level_valid_swaps(level: &StableLevel) -> Vec<(Swap, Option<Combination>)> {
    valid_swaps_of(level.level(), usize::MAX)
}

/// Number of valid swaps of a stable level board, combinations included.
pub fn count_level_valid_swaps(level: &StableLevel) -> usize {
    let (planes, masks) = level.bits();
    count_valid_swaps_with(level.level(), planes, masks)
}

/// Number of valid swaps of `level`, a run-free board whose colour planes are `planes` (the
/// same count as [`valid_swaps_of`] lists).
pub(super) fn count_valid_swaps_on(level: &LevelBoard, planes: &ColorPlanes) -> usize {
    count_valid_swaps_with(level, planes, &KindMasks::of(level, planes))
}

/// [`count_valid_swaps_on`] with the board's kind masks already at hand.
pub(super) fn count_valid_swaps_with(
    level: &LevelBoard,
    planes: &ColorPlanes,
    masks: &KindMasks,
) -> usize {
    debug_assert!(*masks == KindMasks::of(level, planes));
    let (width, height) = (level.width(), level.height());
    if let Some(count) = packed_valid_swap_count(planes, masks, (width, height)) {
        return count;
    }
    (0..height)
        .map(|row| {
            let (right, down) = level_swap_masks(planes, masks, (row, height), &[]);
            (right.count_ones() + down.count_ones()) as usize
        })
        .sum()
}

/// Up to `limit` valid swaps of `level` (a run-free board), in [`level_valid_swaps`] order.
pub(super) fn valid_swaps_of(level: &LevelBoard, limit: usize) -> Vec<(Swap, Option<Combination>)> {
    let planes = ColorPlanes::of(level.board());
    let masks = KindMasks::of(level, &planes);
    let height = level.height();
    let mut swaps = Vec::new();
    for row in 0..height {
        let row_masks = level_swap_masks(&planes, &masks, (row, height), &[]);
        if push_row_swaps(level, row, row_masks, (&mut swaps, limit)) {
            break;
        }
    }
    swaps
}

/// Appends the swaps of row `row` in its two masks (bit `c` of `right`: `(row, c)-(row, c + 1)`,
/// of `down`: `(row, c)-(row + 1, c)`), each with its combination, in row-major order of `a`,
/// the right neighbour first, until `swaps` holds `limit`; true when it does.
pub(in crate::swap) fn push_row_swaps(
    level: &LevelBoard,
    row: usize,
    (right, down): (u64, u64),
    (swaps, limit): (&mut Vec<(Swap, Option<Combination>)>, usize),
) -> bool {
    let width = level.width();
    for col in BitIter(right | down) {
        let a = row * width + col as usize;
        let from = Position::new(row as u32, col);
        for (valid, b, to) in [
            (right, a + 1, Position::new(row as u32, col + 1)),
            (down, a + width, Position::new(row as u32 + 1, col)),
        ] {
            if valid >> col & 1 == 1 {
                let combination = Combination::of(level.kind(a), level.kind(b));
                swaps.push((Swap::new(from, to), combination));
                if swaps.len() >= limit {
                    return true;
                }
            }
        }
    }
    false
}

/// Exchanges the tiles (colour and kind) of cells `a` and `b`.
pub(in crate::swap) fn exchange(level: &mut LevelBoard, a: usize, b: usize) {
    let (colors, kinds, _) = level.parts_mut();
    colors.swap(a, b);
    kinds.swap(a, b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;

    fn level(text: &str) -> LevelBoard {
        LevelBoard::parse(text).unwrap()
    }

    use crate::swap::test_support::swap;

    #[test]
    fn hole_verdict_comes_right_after_out_of_bounds() {
        let board = level("RG#/GRB");
        // Off the board beats the hole.
        assert_eq!(
            judge_level_swap(&board, swap((0, 2), (0, 3))).0,
            SwapVerdict::OutOfBounds
        );
        // A hole beats non-adjacency.
        assert_eq!(
            judge_level_swap(&board, swap((0, 2), (1, 0))).0,
            SwapVerdict::Hole
        );
        assert_eq!(
            judge_level_swap(&board, swap((0, 1), (0, 2))).0,
            SwapVerdict::Hole
        );
        assert_eq!(
            judge_level_swap(&board, swap((0, 0), (1, 1))).0,
            SwapVerdict::NotAdjacent
        );
        assert_eq!(
            judge_level_swap(&board, swap((0, 0), (0, 1))).0,
            SwapVerdict::NoMatch
        );
    }

    #[test]
    fn a_run_never_spans_a_hole() {
        // Moving R from (1,2) to (0,2) would line up R R R only through the hole at (0,1).
        let board = level("R#GR/GBRB");
        assert_eq!(
            judge_level_swap(&board, swap((0, 2), (1, 2))).0,
            SwapVerdict::NoMatch
        );
        // Without the hole the same shape matches.
        let plain = level("RRGB/GBRB");
        assert_eq!(
            judge_level_swap(&plain, swap((0, 2), (1, 2))).0,
            SwapVerdict::Ok
        );
    }

    #[test]
    fn combinations_are_valid_swaps() {
        let board = level("*GB/R-YR+/BG*");
        assert_eq!(
            judge_level_swap(&board, swap((0, 0), (0, 1))),
            (SwapVerdict::Ok, Some(Combination::BombNormal))
        );
        assert_eq!(
            judge_level_swap(&board, swap((0, 0), (1, 0))),
            (SwapVerdict::Ok, Some(Combination::BombStriped))
        );
        assert_eq!(
            judge_level_swap(&board, swap((1, 2), (2, 2))),
            (SwapVerdict::Ok, Some(Combination::BombWrapped))
        );
        // One special and a plain tile: an ordinary swap, and this one matches nothing.
        assert_eq!(
            judge_level_swap(&board, swap((1, 0), (1, 1))),
            (SwapVerdict::NoMatch, None)
        );
        assert_eq!(
            Combination::of(PieceKind::StripedV, PieceKind::Wrapped),
            Some(Combination::StripedWrapped)
        );
        assert_eq!(
            Combination::of(PieceKind::StripedV, PieceKind::StripedH),
            Some(Combination::StripedStriped)
        );
        assert_eq!(
            Combination::of(PieceKind::Wrapped, PieceKind::Wrapped),
            Some(Combination::WrappedWrapped)
        );
        assert_eq!(
            Combination::of(PieceKind::ColorBomb, PieceKind::ColorBomb),
            Some(Combination::BombBomb)
        );
        assert_eq!(Combination::of(PieceKind::Wrapped, PieceKind::Normal), None);
        let listed: Vec<_> = valid_swaps_of(&board, usize::MAX);
        assert_eq!(
            listed,
            vec![
                (swap((0, 0), (0, 1)), Some(Combination::BombNormal)),
                (swap((0, 0), (1, 0)), Some(Combination::BombStriped)),
                (swap((1, 2), (2, 2)), Some(Combination::BombWrapped)),
                (swap((2, 1), (2, 2)), Some(Combination::BombNormal)),
            ]
        );
    }

    /// A random run-free level board: about 10% holes, 10% specials (a third of them bombs).
    fn random_stable_level(
        rng: &mut impl rand::Rng,
        width: usize,
        height: usize,
        colors: u8,
    ) -> Option<StableLevel> {
        let mut cells = vec![0u32; width * height];
        let mut holes = vec![false; width * height];
        let mut kinds = vec![PieceKind::Normal; width * height];
        for index in 0..width * height {
            if rng.random_bool(0.1) {
                holes[index] = true;
                continue;
            }
            if rng.random_bool(0.03) {
                kinds[index] = PieceKind::ColorBomb;
                continue;
            }
            let (row, col) = (index / width, index % width);
            let same = |i: usize, color: u32| !holes[i] && cells[i] == color;
            let mut color = rng.random_range(1..=u32::from(colors));
            for _ in 0..colors {
                let left = col >= 2 && same(index - 1, color) && same(index - 2, color);
                let up = row >= 2 && same(index - width, color) && same(index - 2 * width, color);
                if !left && !up {
                    break;
                }
                color = color % u32::from(colors) + 1;
            }
            cells[index] = color;
            if rng.random_bool(0.07) {
                kinds[index] = [PieceKind::StripedH, PieceKind::StripedV, PieceKind::Wrapped]
                    [rng.random_range(0..3)];
            }
        }
        let board = Board::from_raw(width as u32, height as u32, &cells).ok()?;
        StableLevel::try_from(LevelBoard::new(board, holes, kinds).ok()?).ok()
    }

    #[test]
    fn mask_swaps_match_the_verdicts_on_boards_of_every_size() {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        // Packed (fits 128 bits) and row-by-row sizes alike.
        for (width, height) in [
            (3, 3),
            (9, 9),
            (10, 11),
            (12, 11),
            (20, 7),
            (64, 3),
            (5, 40),
        ] {
            let mut checked = 0;
            while checked < 8 {
                let Some(stable) = random_stable_level(&mut rng, width, height, 4) else {
                    continue;
                };
                checked += 1;
                let level = stable.level();
                let listed = level_valid_swaps(&stable);
                let mut expected = Vec::new();
                for index in 0..width * height {
                    let a = Position::new((index / width) as u32, (index % width) as u32);
                    for b in [
                        Position::new(a.row, a.col + 1),
                        Position::new(a.row + 1, a.col),
                    ] {
                        if let (SwapVerdict::Ok, combination) =
                            judge_level_swap(level, Swap::new(a, b))
                        {
                            expected.push((Swap::new(a, b), combination));
                        }
                    }
                }
                assert_eq!(listed, expected, "{width}x{height} {level}");
                assert_eq!(count_level_valid_swaps(&stable), expected.len());
            }
        }
    }
}
