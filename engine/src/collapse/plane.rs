//! [`Plane`]: a set of cells of a board of at most 16x16 ([`COMPACT_SIDE`](crate::COMPACT_SIDE)),
//! 256 bits in four `u64` words, with the set operators and the board geometry (neighbours,
//! flood fill, gravity within a column, closing a column) as word operations for the whole
//! board.
//!
//! The 256 bits are sixteen 16-bit column lanes: column `c` is lane `c % 4` of word `c / 4`,
//! and bit `r` of a lane is the cell `r` rows above the bottom of the column (board row
//! `height - 1 - r`). A cell is named by its *index* `16 * c + r` (`0..256`: bit `index % 64`
//! of word `index / 64`), so indices run column by column, each column bottom up. Moving to a
//! neighbouring column is a 16-bit shift of the whole 256-bit plane, moving within a column a
//! one-bit shift masked at the lane edges.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

use super::bitboard::low_bits;

/// The bottom bit of every lane.
const LANE_BOTTOM: u64 = 0x0001_0001_0001_0001;
/// The top bit of every lane.
const LANE_TOP: u64 = 0x8000_8000_8000_8000;
/// One lane's bits.
const LANE: u64 = 0xffff;

/// The low `n` bits set, `n` in `0..64` ([`low_bits`] without its branch for 64).
#[inline]
pub(super) fn lane_low_bits(n: u32) -> u64 {
    debug_assert!(n < 64, "{n} bits");
    (1 << n) - 1
}

/// A set of cells of a board of at most 16x16: bit `r` of column `c` is cell index
/// `16 * c + r` (see the module docs). Every one of the 256 bits is a cell, so [`Not`] is the
/// complement on the whole 16x16 square, not on a smaller board; callers intersect with the
/// board's cells where that matters.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) struct Plane([u64; 4]);

/// Prints the four words, as `[u64; 4]` does.
impl fmt::Debug for Plane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl Plane {
    /// No cell.
    pub(crate) const EMPTY: Plane = Plane([0; 4]);

    /// The four 64-bit words, columns 0-3 first.
    #[inline]
    pub(crate) fn words(self) -> [u64; 4] {
        self.0
    }

    /// Every column's cell `r` rows above the bottom (`r` in `0..16`): one row of the 16x16
    /// square.
    #[inline]
    pub(crate) const fn row(r: u32) -> Self {
        Self([LANE_BOTTOM << r; 4])
    }

    /// The set holding only cell `index` (`0..256`).
    #[inline]
    pub(crate) fn single(index: u32) -> Self {
        let mut out = Self::EMPTY;
        out.insert(index);
        out
    }

    /// Adds cell `index` (`0..256`).
    #[inline]
    pub(crate) fn insert(&mut self, index: u32) {
        self.0[(index / 64) as usize] |= 1 << (index % 64);
    }

    /// Adds the cell `r` rows above the bottom of column `col` (both `0..16`): cell index
    /// `16 * col + r`.
    #[inline]
    pub(crate) fn insert_at(&mut self, col: usize, r: usize) {
        self.0[col / 4] |= 1 << (16 * (col % 4) + r);
    }

    /// True when cell `index` (`0..256`) is in the set.
    #[inline]
    pub(crate) fn contains(self, index: u32) -> bool {
        self.0[(index / 64) as usize] >> (index % 64) & 1 == 1
    }

    /// The number of cells, `0..=256`.
    #[inline]
    pub(crate) fn count(self) -> u32 {
        let [a0, a1, a2, a3] = self.0;
        a0.count_ones() + a1.count_ones() + a2.count_ones() + a3.count_ones()
    }

    /// True when the set has no cell.
    #[inline]
    pub(crate) fn is_empty(self) -> bool {
        let [a0, a1, a2, a3] = self.0;
        a0 | a1 | a2 | a3 == 0
    }

    /// The lowest cell index (the bottom cell of the leftmost column holding a cell), or
    /// `None` when the set is empty.
    #[inline]
    pub(crate) fn first(self) -> Option<u32> {
        let k = self.0.iter().position(|&w| w != 0)?;
        Some(64 * k as u32 + self.0[k].trailing_zeros())
    }

    /// The `n`-th cell index in increasing order, counting from 0 (`n < self.count()`).
    /// Written without data-dependent branches: the cell is drawn at random, so a branch on it
    /// would be mispredicted about half the time.
    #[inline]
    pub(crate) fn nth(self, n: u32) -> u32 {
        let words = self.0.map(u64::count_ones);
        let below = [
            0,
            words[0],
            words[0] + words[1],
            words[0] + words[1] + words[2],
        ];
        let k =
            usize::from(n >= below[1]) + usize::from(n >= below[2]) + usize::from(n >= below[3]);
        let mut rest = n - below[k];
        // Narrow to the half holding the wanted bit, 32 bits, then 16, ..., then 1.
        let (mut word, mut base) = (self.0[k], 0);
        for half in [32, 16, 8, 4, 2, 1] {
            let low = (word & lane_low_bits(half)).count_ones();
            let upper = u32::from(rest >= low);
            rest -= upper * low;
            word >>= upper * half;
            base += upper * half;
        }
        64 * k as u32 + base
    }

    /// Column `col`'s cells (`col` in `0..16`) as the low 16 bits: bit `r` is the cell `r`
    /// rows above the bottom.
    #[inline]
    pub(crate) fn column(self, col: u32) -> u64 {
        self.0[(col / 4) as usize] >> (16 * (col % 4)) & LANE
    }

    /// Adds the cells `bits` (at most the low 16 bits, bit `r` the cell `r` rows above the
    /// bottom) to column `col` (`0..16`).
    #[inline]
    pub(crate) fn insert_column(&mut self, col: u32, bits: u64) {
        debug_assert!(bits <= LANE, "{bits:#x} is more than a column");
        self.0[(col / 4) as usize] |= bits << (16 * (col % 4));
    }

    /// Every cell of the columns left of column `col` (`0..16`).
    #[inline]
    pub(crate) fn columns_before(col: u32) -> Self {
        let bits = 16 * col;
        let mut out = [0; 4];
        for (k, word) in out.iter_mut().enumerate() {
            *word = low_bits(bits.saturating_sub(64 * k as u32).min(64));
        }
        Self(out)
    }

    /// Bit `c` set when column `c` has a cell of the set: a 16-bit mask of columns.
    #[inline]
    pub(crate) fn columns(self) -> u32 {
        let mut mask = 0;
        for (k, &word) in self.0.iter().enumerate() {
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

    /// Bit `r` set when some column has a cell `r` rows above the bottom: a 16-bit mask of the
    /// rows the set touches, counted from the bottom.
    #[inline]
    pub(crate) fn rows(self) -> u64 {
        let [a0, a1, a2, a3] = self.0;
        let folded = a0 | a1 | a2 | a3;
        let folded = folded | folded >> 32;
        (folded | folded >> 16) & LANE
    }

    /// Every cell moved one row up within its column (the top row, bit 15, drops out).
    #[inline]
    pub(crate) fn up(self) -> Self {
        Self(self.0.map(|w| w << 1 & !LANE_BOTTOM))
    }

    /// Every cell moved one row down within its column (the bottom row drops out).
    #[inline]
    pub(crate) fn down(self) -> Self {
        Self(self.0.map(|w| w >> 1 & !LANE_TOP))
    }

    /// Every cell moved one column left (column 0 drops out, column 15 becomes empty).
    #[inline]
    pub(crate) fn left(self) -> Self {
        self >> 16
    }

    /// Every cell moved one column right (column 15 drops out, column 0 becomes empty).
    #[inline]
    pub(crate) fn right(self) -> Self {
        self << 16
    }

    /// The four neighbours of every cell (the cells themselves not included unless they are
    /// a neighbour of another).
    #[inline]
    pub(crate) fn neighbours(self) -> Self {
        self.up() | self.down() | self.left() | self.right()
    }

    /// The cells with a neighbour in the set: taking the set as the cells of one colour, the
    /// cells of its groups of two or more.
    #[inline]
    pub(crate) fn paired(self) -> Self {
        self & self.neighbours()
    }

    /// The 4-connected component of the set holding the cells `seed` (a non-empty subset,
    /// itself connected): the group of a cell when the set is one colour's cells.
    #[inline]
    pub(crate) fn group_of(self, seed: Self) -> Self {
        let mut group = seed;
        loop {
            let grown = group | (group.neighbours() & self);
            if (grown ^ group).is_empty() {
                return group;
            }
            group = grown;
        }
    }

    /// Gravity in column `col` (`0..16`): its cells `start..start + run` (rows from the
    /// bottom, `run >= 1`, `start + run <= 16`) are removed and the cells above them move down
    /// `run` rows; other columns are unchanged.
    #[inline]
    pub(crate) fn remove_run(&mut self, col: u32, start: u32, run: u32) {
        let (word, shift) = ((col / 4) as usize, 16 * (col % 4));
        let stay = !((LANE & !lane_low_bits(start)) << shift);
        let fall = (lane_low_bits(16 - run) & !lane_low_bits(start)) << shift;
        let w = self.0[word];
        self.0[word] = (w & stay) | (w >> run & fall);
    }

    /// The set with column `col` (`0..16`) taken out: columns right of it move one column
    /// left, column 15 becomes empty.
    #[inline]
    pub(crate) fn without_column(self, col: u32) -> Self {
        let before = Self::columns_before(col);
        (self & before) | (self.left() & !before)
    }

    /// The first cell in row-major order of a non-empty set: its highest row, leftmost
    /// column.
    #[inline]
    pub(crate) fn first_row_major(self) -> u32 {
        let top = 63 - self.rows().leading_zeros();
        (self & Self::row(top))
            .first()
            .expect("the first cell of a non-empty set")
    }

    /// Calls `visit(index)` for every cell in row-major order: rows from the top, then columns
    /// left to right.
    #[inline]
    pub(crate) fn for_each_row_major(self, mut visit: impl FnMut(u32)) {
        let mut rows = self.rows();
        while rows != 0 {
            let r = 63 - rows.leading_zeros();
            rows &= !(1 << r);
            for (k, &w) in self.0.iter().enumerate() {
                let mut w = w & LANE_BOTTOM << r;
                while w != 0 {
                    visit(64 * k as u32 + w.trailing_zeros());
                    w &= w - 1;
                }
            }
        }
    }

    /// The 16x16 bit matrix transposed: bit `c` of lane `r` becomes bit `r` of lane `c` (a set
    /// built row by row, lane `r` holding row `r` from the bottom with bit `c` for column `c`,
    /// becomes the column-lane plane of the same cells).
    #[inline]
    pub(crate) fn transposed(self) -> Self {
        let [mut w0, mut w1, mut w2, mut w3] = self.0;
        // Swap the off-diagonal 8x8 blocks (lanes i and i + 8), then 4x4 blocks within them
        // (lanes i and i + 4), then 2x2 (i and i + 2), then single bits (i and i + 1).
        for (a, b) in [(&mut w0, &mut w2), (&mut w1, &mut w3)] {
            let t = ((*a >> 8) ^ *b) & 0x00ff_00ff_00ff_00ff;
            *a ^= t << 8;
            *b ^= t;
        }
        for (a, b) in [(&mut w0, &mut w1), (&mut w2, &mut w3)] {
            let t = ((*a >> 4) ^ *b) & 0x0f0f_0f0f_0f0f_0f0f;
            *a ^= t << 4;
            *b ^= t;
        }
        Self([w0, w1, w2, w3].map(|w| {
            let t = ((w >> 2) ^ (w >> 32)) & 0x3333_3333;
            let w = w ^ (t << 2 | t << 32);
            let t = ((w >> 1) ^ (w >> 16)) & 0x0000_5555_0000_5555;
            w ^ (t << 1 | t << 16)
        }))
    }
}

impl BitAnd for Plane {
    type Output = Self;

    /// The cells in both sets.
    #[inline]
    fn bitand(self, rhs: Self) -> Self {
        let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (self.0, rhs.0);
        Self([a0 & b0, a1 & b1, a2 & b2, a3 & b3])
    }
}

impl BitOr for Plane {
    type Output = Self;

    /// The cells in either set.
    #[inline]
    fn bitor(self, rhs: Self) -> Self {
        let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (self.0, rhs.0);
        Self([a0 | b0, a1 | b1, a2 | b2, a3 | b3])
    }
}

impl BitXor for Plane {
    type Output = Self;

    /// The cells in exactly one of the sets.
    #[inline]
    fn bitxor(self, rhs: Self) -> Self {
        let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (self.0, rhs.0);
        Self([a0 ^ b0, a1 ^ b1, a2 ^ b2, a3 ^ b3])
    }
}

impl Not for Plane {
    type Output = Self;

    /// The cells of the 16x16 square not in the set.
    #[inline]
    fn not(self) -> Self {
        Self(self.0.map(|w| !w))
    }
}

impl BitAndAssign for Plane {
    #[inline]
    fn bitand_assign(&mut self, rhs: Self) {
        *self = *self & rhs;
    }
}

impl BitOrAssign for Plane {
    #[inline]
    fn bitor_assign(&mut self, rhs: Self) {
        *self = *self | rhs;
    }
}

impl BitXorAssign for Plane {
    #[inline]
    fn bitxor_assign(&mut self, rhs: Self) {
        *self = *self ^ rhs;
    }
}

impl Shl<u32> for Plane {
    type Output = Self;

    /// The 256-bit value shifted toward higher indices by `n` bits (`1..64`): a shift by 16
    /// moves every cell one column right.
    #[inline]
    fn shl(self, n: u32) -> Self {
        debug_assert!((1..64).contains(&n), "shift by {n}");
        let [a0, a1, a2, a3] = self.0;
        Self([
            a0 << n,
            a1 << n | a0 >> (64 - n),
            a2 << n | a1 >> (64 - n),
            a3 << n | a2 >> (64 - n),
        ])
    }
}

impl Shr<u32> for Plane {
    type Output = Self;

    /// The 256-bit value shifted toward lower indices by `n` bits (`1..64`): a shift by 16
    /// moves every cell one column left.
    #[inline]
    fn shr(self, n: u32) -> Self {
        debug_assert!((1..64).contains(&n), "shift by {n}");
        let [a0, a1, a2, a3] = self.0;
        Self([
            a0 >> n | a1 << (64 - n),
            a1 >> n | a2 << (64 - n),
            a2 >> n | a3 << (64 - n),
            a3 >> n,
        ])
    }
}

impl IntoIterator for Plane {
    type Item = u32;
    type IntoIter = Cells;

    /// The cell indices in increasing order: columns left to right, each bottom up.
    #[inline]
    fn into_iter(self) -> Cells {
        Cells(self.0)
    }
}

/// The cell indices of a [`Plane`] in increasing order (its [`IntoIterator`]).
#[derive(Clone, Debug)]
pub(crate) struct Cells([u64; 4]);

impl Iterator for Cells {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let k = self.0.iter().position(|&w| w != 0)?;
        let word = &mut self.0[k];
        let bit = word.trailing_zeros();
        *word &= *word - 1;
        Some(64 * k as u32 + bit)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = Plane(self.0).count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Cells {}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;

    /// Cell `r` rows above the bottom of column `col`.
    fn cell(col: u32, r: u32) -> Plane {
        Plane::single(16 * col + r)
    }

    #[test]
    fn transpose_moves_every_bit() {
        for lane in 0..16 {
            for bit in 0..16 {
                assert_eq!(
                    cell(lane, bit).transposed(),
                    cell(bit, lane),
                    "lane {lane} bit {bit}"
                );
            }
        }
    }

    #[test]
    fn nth_finds_every_cell() {
        let mut rng = crate::rng_from_seed(7);
        let mut sets: Vec<Plane> = [
            [u64::MAX; 4],
            [u64::MAX, 0, u64::MAX, 1],
            [0, 0, 0, 1 << 63],
            [1, 0, 0, 0],
            [0, u64::MAX, 0, 0],
        ]
        .into_iter()
        .map(Plane)
        .collect();
        for _ in 0..200 {
            sets.push(Plane(
                [0; 4].map(|_: u64| rng.random::<u64>() & rng.random::<u64>()),
            ));
            sets.push(Plane([0; 4].map(|_: u64| match rng.random_range(0..3) {
                0 => 0,
                1 => u64::MAX,
                _ => rng.random::<u64>(),
            })));
        }
        for a in sets {
            let mut n = 0;
            for index in 0..256 {
                if a.contains(index) {
                    assert_eq!(a.nth(n), index);
                    n += 1;
                }
            }
            assert_eq!(n, a.count());
            assert_eq!(
                a.into_iter().collect::<Vec<_>>(),
                (0..n).map(|i| a.nth(i)).collect::<Vec<_>>()
            );
            assert_eq!(a.into_iter().len(), n as usize);
            assert_eq!(a.first(), (n > 0).then(|| a.nth(0)));
            assert_eq!(a.is_empty(), n == 0);
        }
    }

    #[test]
    fn columns_reads_every_lane() {
        for col in 0..16 {
            for bit in 0..16 {
                assert_eq!(cell(col, bit).columns(), 1 << col, "column {col} bit {bit}");
                assert_eq!(cell(col, bit).rows(), 1 << bit, "column {col} bit {bit}");
                assert_eq!(cell(col, bit).column(col), 1 << bit);
                let mut inserted = Plane::EMPTY;
                inserted.insert_column(col, 1 << bit);
                assert_eq!(inserted, cell(col, bit));
            }
        }
        assert_eq!(Plane([u64::MAX; 4]).columns(), 0xffff);
        assert_eq!(Plane::EMPTY.columns(), 0);
    }

    #[test]
    fn neighbours_stay_within_lanes_and_the_plane() {
        // Bottom of column 4 and top of column 3: vertical shifts must not cross lanes.
        assert_eq!(
            cell(4, 0).neighbours(),
            cell(4, 1) | cell(5, 0) | cell(3, 0)
        );
        assert_eq!(
            cell(3, 15).neighbours(),
            cell(3, 14) | cell(2, 15) | cell(4, 15)
        );
        assert_eq!(cell(0, 0).neighbours(), cell(0, 1) | cell(1, 0));
        assert_eq!(cell(15, 15).neighbours(), cell(15, 14) | cell(14, 15));
        assert_eq!(Plane::columns_before(0), Plane::EMPTY);
        assert_eq!(Plane::columns_before(5), Plane([u64::MAX, 0xffff, 0, 0]));
        assert_eq!(cell(4, 0).left(), cell(3, 0));
        assert_eq!(cell(3, 0).right(), cell(4, 0));
        assert_eq!(cell(0, 7).left(), Plane::EMPTY);
        assert_eq!(cell(15, 7).right(), Plane::EMPTY);
        // A shift by other amounts is the 256-bit shift.
        assert_eq!(Plane::single(63) << 1, Plane::single(64));
        assert_eq!(Plane::single(64) >> 1, Plane::single(63));
        assert_eq!(Plane::single(3) << 63, Plane::single(66));
    }

    #[test]
    fn groups_gravity_and_closing_columns() {
        // Column 0: rows 0-2; column 1: row 0; column 3: row 0 (not connected).
        let plane = cell(0, 0) | cell(0, 1) | cell(0, 2) | cell(1, 0) | cell(3, 0);
        assert_eq!(plane.group_of(cell(0, 2)), plane ^ cell(3, 0));
        assert_eq!(plane.group_of(cell(3, 0)), cell(3, 0));
        assert_eq!(plane.paired(), plane ^ cell(3, 0));
        let mut fallen = plane | cell(0, 5);
        fallen.remove_run(0, 1, 2);
        assert_eq!(fallen, cell(0, 0) | cell(0, 3) | cell(1, 0) | cell(3, 0));
        assert_eq!(
            plane.without_column(1),
            cell(0, 0) | cell(0, 1) | cell(0, 2) | cell(2, 0)
        );
        assert_eq!(plane.first_row_major(), 2);
        let mut order = Vec::new();
        plane.for_each_row_major(|index| order.push(index));
        assert_eq!(order, [2, 1, 0, 16, 48]);
        let mut a = plane;
        a &= cell(0, 0) | cell(9, 9);
        assert_eq!(a, cell(0, 0));
        a |= cell(9, 9);
        a ^= cell(0, 0);
        assert_eq!(a, cell(9, 9));
        assert_eq!(!Plane([u64::MAX; 4]), Plane::EMPTY);
    }
}
