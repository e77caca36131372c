//! Boards of at most 16x16 cells with each colour as one 256-bit plane: [`CompactGame`], for
//! fast random playouts.
//!
//! A plane is four `u64` words holding sixteen 16-bit column lanes: column `c` is lane `c % 4`
//! of word `c / 4`, and bit `r` of a lane is the cell `r` rows above the bottom of the column
//! (board row `height - 1 - r`). Moving to a neighbouring column is a 16-bit shift of the whole
//! 256-bit plane, moving within a column a one-bit shift masked at the lane edges, so a flood
//! fill step, the "has a same-colour neighbour" mask and closing an empty column are a few word
//! operations for the whole board.

use rand::Rng;

use crate::engine::board::{Board, EMPTY};
use crate::engine::params::MinGroup;
use crate::engine::position::Position;
use crate::engine::settled::SettledBoard;

use super::bitboard::{CollapseGame, TapGroup, low_bits};

/// A 256-bit set of cells: sixteen 16-bit column lanes.
pub(crate) type Bits = [u64; 4];

/// The largest side a [`CompactGame`] holds, in cells.
pub const COMPACT_SIDE: usize = 16;

/// The bottom bit of every lane.
const LANE_BOTTOM: u64 = 0x0001_0001_0001_0001;
/// The top bit of every lane.
const LANE_TOP: u64 = 0x8000_8000_8000_8000;
/// One lane's bits.
const LANE: u64 = 0xffff;

#[inline]
fn and(a: Bits, b: Bits) -> Bits {
    [a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3]]
}

#[inline]
fn or(a: Bits, b: Bits) -> Bits {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

#[inline]
fn and_not(a: Bits, b: Bits) -> Bits {
    [a[0] & !b[0], a[1] & !b[1], a[2] & !b[2], a[3] & !b[3]]
}

#[inline]
fn is_empty(a: Bits) -> bool {
    a[0] | a[1] | a[2] | a[3] == 0
}

#[inline]
fn count(a: Bits) -> u32 {
    a[0].count_ones() + a[1].count_ones() + a[2].count_ones() + a[3].count_ones()
}

/// The cells of every cell's four neighbours (the cells themselves not included).
#[inline]
fn neighbours(a: Bits) -> Bits {
    let [a0, a1, a2, a3] = a;
    let vertical = |w: u64| (w << 1 & !LANE_BOTTOM) | (w >> 1 & !LANE_TOP);
    [
        vertical(a0) | a0 << 16 | a0 >> 16 | a1 << 48,
        vertical(a1) | a1 << 16 | a0 >> 48 | a1 >> 16 | a2 << 48,
        vertical(a2) | a2 << 16 | a1 >> 48 | a2 >> 16 | a3 << 48,
        vertical(a3) | a3 << 16 | a2 >> 48 | a3 >> 16,
    ]
}

/// The plane moved one column left (column `c + 1` to `c`; column 15 becomes empty).
#[inline]
fn shift_left(a: Bits) -> Bits {
    [
        a[0] >> 16 | a[1] << 48,
        a[1] >> 16 | a[2] << 48,
        a[2] >> 16 | a[3] << 48,
        a[3] >> 16,
    ]
}

/// The cells of the columns left of column `col` (`0..16`).
#[inline]
fn columns_below(col: u32) -> Bits {
    let bits = 16 * col;
    let mut out = [0; 4];
    for (k, word) in out.iter_mut().enumerate() {
        *word = low_bits(bits.saturating_sub(64 * k as u32).min(64));
    }
    out
}

/// Bit `c` set when column `c` has a cell of `a`.
#[inline]
fn columns_of(a: Bits) -> u32 {
    let mut mask = 0;
    for (k, &word) in a.iter().enumerate() {
        // Smear each lane down to its bottom bit, then gather the four bottom bits.
        let mut x = word | word >> 8;
        x |= x >> 4;
        x |= x >> 2;
        x |= x >> 1;
        x &= LANE_BOTTOM;
        let gathered = (x.wrapping_mul(1 | 1 << 15 | 1 << 30 | 1 << 45) >> 45) & 0xf;
        mask |= (gathered as u32) << (4 * k);
    }
    mask
}

/// The group of `plane` holding the cells `seed` (a non-empty subset of `plane`).
#[inline]
fn flood(plane: Bits, seed: Bits) -> Bits {
    // Vertical steps are masked at the lane edges once, in the plane they may reach.
    let up = plane.map(|w| w & !LANE_BOTTOM);
    let down = plane.map(|w| w & !LANE_TOP);
    let [mut g0, mut g1, mut g2, mut g3] = seed;
    loop {
        let n0 = g0
            | (g0 << 1 & up[0])
            | (g0 >> 1 & down[0])
            | ((g0 << 16 | g0 >> 16 | g1 << 48) & plane[0]);
        let n1 = g1
            | (g1 << 1 & up[1])
            | (g1 >> 1 & down[1])
            | ((g1 << 16 | g0 >> 48 | g1 >> 16 | g2 << 48) & plane[1]);
        let n2 = g2
            | (g2 << 1 & up[2])
            | (g2 >> 1 & down[2])
            | ((g2 << 16 | g1 >> 48 | g2 >> 16 | g3 << 48) & plane[2]);
        let n3 = g3
            | (g3 << 1 & up[3])
            | (g3 >> 1 & down[3])
            | ((g3 << 16 | g2 >> 48 | g3 >> 16) & plane[3]);
        if (n0 ^ g0) | (n1 ^ g1) | (n2 ^ g2) | (n3 ^ g3) == 0 {
            return [g0, g1, g2, g3];
        }
        (g0, g1, g2, g3) = (n0, n1, n2, n3);
    }
}

/// The cells of `plane` with a neighbour in `plane`: the cells of its groups of two or more.
#[inline]
fn paired(plane: Bits) -> Bits {
    and(plane, neighbours(plane))
}

/// The `(word, bit)` of the `index`-th set bit of `a`, counting from word 0, bit 0
/// (`index < count(a)`).
#[inline]
fn select(a: Bits, index: u32) -> (usize, u32) {
    let mut rest = index;
    for (k, &word) in a.iter().enumerate() {
        let n = word.count_ones();
        if rest < n {
            // Halve the word while the wanted bit lies in its upper part, then step.
            let (mut word, mut base) = (word, 0);
            for half in [32, 16, 8] {
                let low = (word & low_bits(half)).count_ones();
                if rest >= low {
                    rest -= low;
                    word >>= half;
                    base += half;
                }
            }
            for _ in 0..rest {
                word &= word - 1;
            }
            return (k, base + word.trailing_zeros());
        }
        rest -= n;
    }
    unreachable!("select below the count")
}

/// The set holding only `(word, bit)`.
#[inline]
fn single(word: usize, bit: u32) -> Bits {
    let mut out = [0; 4];
    out[word] = 1 << bit;
    out
}

/// A settled collapse-family position of at most 16x16 cells ([`COMPACT_SIDE`]) with one
/// 256-bit plane per colour present on the starting board: lists, counts and draws legal
/// groups and applies taps with a few word operations per step and no allocation. Built from a
/// [`CollapseGame`]; the rules are those of [`tap`](super::tap) (docs/rules.md section 3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactGame {
    width: u8,
    height: u8,
    /// Planes in use: the colours present on the starting board.
    slots: u8,
    tiles: u16,
    /// `palette[slot]` is the colour of `planes[slot]`.
    palette: [u8; 16],
    planes: [Bits; 16],
}

impl CompactGame {
    /// The position of `game`, or `None` when it is wider or taller than [`COMPACT_SIDE`].
    pub fn new(game: &CollapseGame) -> Option<Self> {
        if game.width() > COMPACT_SIDE || game.height() > COMPACT_SIDE {
            return None;
        }
        let slots = game.slot_count();
        let mut palette = [0; 16];
        let mut planes = [[0; 4]; 16];
        for slot in 0..slots {
            palette[slot] = game.color_of(slot);
            for col in 0..game.columns() {
                planes[slot][col / 4] |= game.plane(col, slot) << (16 * (col % 4));
            }
        }
        Some(Self {
            width: game.width() as u8,
            height: game.height() as u8,
            slots: slots as u8,
            tiles: game.tiles_left() as u16,
            palette,
            planes,
        })
    }

    /// Board width in columns, `1..=16`.
    #[inline]
    pub fn width(&self) -> usize {
        usize::from(self.width)
    }

    /// Board height in rows, `1..=16`.
    #[inline]
    pub fn height(&self) -> usize {
        usize::from(self.height)
    }

    /// Tiles on the board, `0..=256`.
    #[inline]
    pub fn tiles_left(&self) -> usize {
        usize::from(self.tiles)
    }

    #[inline]
    fn planes(&self) -> &[Bits] {
        &self.planes[..usize::from(self.slots)]
    }

    /// The board as cells (a settled board).
    pub fn to_settled_board(&self) -> SettledBoard {
        let (width, height) = (self.width(), self.height());
        let mut cells = vec![EMPTY; width * height];
        for (slot, plane) in self.planes().iter().enumerate() {
            for (k, &word) in plane.iter().enumerate() {
                let mut word = word;
                while word != 0 {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    let (col, row) = (4 * k + bit / 16, height - 1 - bit % 16);
                    cells[row * width + col] = self.palette[slot];
                }
            }
        }
        SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells))
    }

    /// The position of bit `bit` of word `word`.
    #[inline]
    fn position(&self, word: usize, bit: u32) -> Position {
        let col = 4 * word as u32 + bit / 16;
        Position::new(self.height() as u32 - 1 - bit % 16, col)
    }

    /// Calls `visit(slot, seed, members)` for every group of at least `min_group` cells
    /// (`min_group >= 2`), plane by plane, then by its first cell column-major, until `visit`
    /// returns false; `seed` is the group's first cell column-major.
    fn scan_groups(&self, min_group: usize, mut visit: impl FnMut(usize, Bits, Bits) -> bool) {
        for (slot, &plane) in self.planes().iter().enumerate() {
            let mut candidates = paired(plane);
            while !is_empty(candidates) {
                let (word, bit) = select(candidates, 0);
                let seed = single(word, bit);
                let members = flood(plane, seed);
                candidates = and_not(candidates, members);
                if count(members) as usize >= min_group && !visit(slot, seed, members) {
                    return;
                }
            }
        }
    }

    /// True when some group has at least `min_group` cells.
    pub fn has_legal_group(&self, min_group: MinGroup) -> bool {
        if min_group == MinGroup::DEFAULT {
            return self.planes().iter().any(|&plane| !is_empty(paired(plane)));
        }
        let mut found = false;
        self.scan_groups(min_group.get(), |_, _, _| {
            found = true;
            false
        });
        found
    }

    /// The number of legal groups (at least `min_group` cells), `0..=128`.
    pub fn count_legal_groups(&self, min_group: MinGroup) -> usize {
        let mut groups = 0;
        self.scan_groups(min_group.get(), |_, _, _| {
            groups += 1;
            true
        });
        groups
    }

    /// Taps a legal group (at least `min_group` cells) drawn uniformly at random from `rng`:
    /// clears it, applies gravity and closes empty columns. Returns the group tapped (a cell
    /// of it, its colour and size, as before the tap), or `None` when the game is over.
    ///
    /// With the default `min_group` (2) the draw is by rejection: a cell with a same-colour
    /// neighbour is drawn uniformly, its group (`n` cells) flooded and kept with probability
    /// `2 / n`, so each group is drawn with probability proportional to `n * 2 / n`: uniform.
    /// Otherwise the legal groups are counted and the `k`-th of them, `k` uniform, is tapped.
    /// Which draws of `rng` are made is unspecified beyond this.
    pub fn tap_random<R: Rng + ?Sized>(
        &mut self,
        min_group: MinGroup,
        rng: &mut R,
    ) -> Option<TapGroup> {
        let (slot, word, bit, members) = if min_group == MinGroup::DEFAULT {
            self.draw_pairwise(rng)?
        } else {
            self.draw_counted(min_group.get(), rng)?
        };
        let group = TapGroup {
            position: self.position(word, bit),
            color: self.palette[slot],
            size: count(members) as usize,
        };
        self.remove(members);
        Some(group)
    }

    /// The rejection draw of [`tap_random`](Self::tap_random) for groups of two or more:
    /// `(slot, word, bit, members)` of the group drawn and the cell drawn in it.
    fn draw_pairwise<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<(usize, usize, u32, Bits)> {
        let mut counts = [0u32; 16];
        let mut total = 0;
        for (slot, &plane) in self.planes().iter().enumerate() {
            counts[slot] = count(paired(plane));
            total += counts[slot];
        }
        if total == 0 {
            return None;
        }
        loop {
            let mut index = rng.random_range(0..total);
            let mut slot = 0;
            while index >= counts[slot] {
                index -= counts[slot];
                slot += 1;
            }
            let plane = self.planes[slot];
            let (word, bit) = select(paired(plane), index);
            let members = flood(plane, single(word, bit));
            let size = count(members);
            if size == 2 || rng.random_range(0..size) < 2 {
                return Some((slot, word, bit, members));
            }
        }
    }

    /// The counted draw of [`tap_random`](Self::tap_random): `(slot, word, bit, members)` of
    /// the `k`-th legal group, `k` uniform, and its first cell column-major.
    fn draw_counted<R: Rng + ?Sized>(
        &self,
        min_group: usize,
        rng: &mut R,
    ) -> Option<(usize, usize, u32, Bits)> {
        let mut groups = 0;
        self.scan_groups(min_group, |_, _, _| {
            groups += 1;
            true
        });
        if groups == 0 {
            return None;
        }
        let mut rest = rng.random_range(0..groups);
        let mut drawn = None;
        self.scan_groups(min_group, |slot, seed, members| {
            if rest > 0 {
                rest -= 1;
                return true;
            }
            let (word, bit) = select(seed, 0);
            drawn = Some((slot, word, bit, members));
            false
        });
        drawn
    }

    /// Removes the group `members`: clears it, compacts each column it touched toward the
    /// bottom (gravity) and closes the columns it emptied.
    fn remove(&mut self, members: Bits) {
        let slots = usize::from(self.slots);
        let touched = columns_of(members);
        let mut columns = touched;
        while columns != 0 {
            let col = columns.trailing_zeros();
            columns &= columns - 1;
            let (word, shift) = ((col / 4) as usize, 16 * (col % 4));
            // Remove runs of cleared cells from the top down, so lower runs keep their bits.
            let mut rest = members[word] >> shift & LANE;
            while rest != 0 {
                let top = 63 - rest.leading_zeros();
                let run = (!(rest << (63 - top))).leading_zeros();
                let start = top + 1 - run;
                let stay = !((LANE & !low_bits(start)) << shift);
                let fall = (low_bits(16 - run) & !low_bits(start)) << shift;
                for plane in &mut self.planes[..slots] {
                    let w = plane[word];
                    plane[word] = (w & stay) | (w >> run & fall);
                }
                rest &= low_bits(start);
            }
        }
        self.tiles -= count(members) as u16;
        // A column can only have emptied if its bottom cell was cleared.
        let bottoms = members.map(|w| w & LANE_BOTTOM);
        if is_empty(bottoms) {
            return;
        }
        let occupied = self
            .planes()
            .iter()
            .fold([0; 4], |acc, &plane| or(acc, plane));
        let mut emptied = columns_of(bottoms) & !columns_of(occupied);
        // Close the emptied columns from the right, so the lower indices stay valid.
        while emptied != 0 {
            let col = 31 - emptied.leading_zeros();
            emptied &= !(1 << col);
            let below = columns_below(col);
            for plane in &mut self.planes[..slots] {
                *plane = or(and(*plane, below), and_not(shift_left(*plane), below));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_of_reads_every_lane() {
        for col in 0..16 {
            for bit in 0..16 {
                let mut a = [0; 4];
                a[col / 4] = 1 << (16 * (col % 4) + bit);
                assert_eq!(columns_of(a), 1 << col, "column {col} bit {bit}");
            }
        }
        assert_eq!(columns_of([u64::MAX; 4]), 0xffff);
        assert_eq!(columns_of([0; 4]), 0);
    }

    #[test]
    fn neighbours_stay_within_lanes_and_the_plane() {
        // Bottom of column 4 and top of column 3: vertical shifts must not cross lanes.
        let a = single(1, 0);
        assert_eq!(
            neighbours(a),
            or(or(single(1, 1), single(1, 16)), single(0, 48))
        );
        let top = single(0, 63);
        assert_eq!(
            neighbours(top),
            or(single(0, 62), or(single(0, 47), single(1, 15)))
        );
        assert_eq!(columns_below(0), [0; 4]);
        assert_eq!(columns_below(5), [u64::MAX, 0xffff, 0, 0]);
        assert_eq!(shift_left(single(1, 0)), single(0, 48));
    }
}
