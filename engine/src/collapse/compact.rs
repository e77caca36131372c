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

use crate::board::{Board, EMPTY};
use crate::error::{EngineError, TapRejection};
use crate::gravity::Fall;
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::bitboard::{CollapseGame, TapGroup, low_bits};
use super::{ColumnShift, LegalGroup, TapOutcome};

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

/// The low `n` bits set, `n` in `0..64` ([`low_bits`] without its branch for 64).
#[inline]
fn lane_low_bits(n: u32) -> u64 {
    debug_assert!(n < 64, "{n} bits");
    (1 << n) - 1
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
/// (`index < count(a)`), given each word's count of set bits (`words[k]` is
/// `a[k].count_ones()`). Written without data-dependent branches: the bit is drawn at random,
/// so a branch on it would be mispredicted about half the time.
#[inline]
fn select(a: Bits, words: [u32; 4], index: u32) -> (usize, u32) {
    let below = [
        0,
        words[0],
        words[0] + words[1],
        words[0] + words[1] + words[2],
    ];
    let k = usize::from(index >= below[1])
        + usize::from(index >= below[2])
        + usize::from(index >= below[3]);
    let mut rest = index - below[k];
    // Narrow to the half holding the wanted bit, 32 bits, then 16, ..., then 1.
    let (mut word, mut base) = (a[k], 0);
    for half in [32, 16, 8, 4, 2, 1] {
        let low = (word & lane_low_bits(half)).count_ones();
        let upper = u32::from(rest >= low);
        rest -= upper * low;
        word >>= upper * half;
        base += upper * half;
    }
    (k, base)
}

/// The set holding only `(word, bit)`.
#[inline]
fn single(word: usize, bit: u32) -> Bits {
    let mut out = [0; 4];
    out[word] = 1 << bit;
    out
}

/// The `(word, bit)` of the lowest set bit of `a` (`a` non-empty).
#[inline]
fn lowest(a: Bits) -> (usize, u32) {
    let k = a
        .iter()
        .position(|&w| w != 0)
        .expect("lowest of a non-empty set");
    (k, a[k].trailing_zeros())
}

/// Bit `r` set when some lane of `a` has bit `r`: the rows (bits from the bottom) `a` touches.
#[inline]
fn rows_of(a: Bits) -> u64 {
    let folded = a[0] | a[1] | a[2] | a[3];
    let folded = folded | folded >> 32;
    (folded | folded >> 16) & LANE
}

/// The `(word, bit)` of the first cell row-major of the non-empty set `a`: its highest row,
/// leftmost column.
#[inline]
fn first_row_major(a: Bits) -> (usize, u32) {
    let top = 63 - rows_of(a).leading_zeros();
    lowest(and(a, [LANE_BOTTOM << top; 4]))
}

/// Calls `visit(word, bit)` for every cell of `a` in row-major order: rows from the top (lane
/// bits downward), then columns left to right (words, then bits, upward).
#[inline]
fn for_each_row_major(a: Bits, mut visit: impl FnMut(usize, u32)) {
    let mut rows = rows_of(a);
    while rows != 0 {
        let r = 63 - rows.leading_zeros();
        rows &= !(1 << r);
        for (word, &w) in a.iter().enumerate() {
            let mut w = w & LANE_BOTTOM << r;
            while w != 0 {
                visit(word, w.trailing_zeros());
                w &= w - 1;
            }
        }
    }
}

/// Every byte's top bit set.
const BYTE_TOP: u64 = 0x8080_8080_8080_8080;
/// Every byte's low seven bits set.
const BYTE_LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Bit `i` set when byte `i` of `x` is non-zero.
#[inline]
fn nonzero_bytes(x: u64) -> u64 {
    let tops = (((x & BYTE_LOW) + BYTE_LOW) | x) & BYTE_TOP;
    // Bits 8i + 7 gathered into bits 56 + i, with no carries between the partial products.
    (tops >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The 16x16 bit matrix `a` transposed: bit `c` of lane `r` becomes bit `r` of lane `c`.
#[inline]
fn transpose(a: Bits) -> Bits {
    let [mut w0, mut w1, mut w2, mut w3] = a;
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
    [w0, w1, w2, w3].map(|w| {
        let t = ((w >> 2) ^ (w >> 32)) & 0x3333_3333;
        let w = w ^ (t << 2 | t << 32);
        let t = ((w >> 1) ^ (w >> 16)) & 0x0000_5555_0000_5555;
        w ^ (t << 1 | t << 16)
    })
}

/// The cells of colour `color` (`1..=16`) and the occupied cells of a board at most 16x16, as
/// planes, built a row at a time with byte-parallel compares and transposed into column lanes.
fn color_and_occupied(board: &Board, color: u8) -> (Bits, Bits) {
    let (width, height) = (board.width(), board.height());
    let (mut same, mut occupied) = ([0u64; 4], [0u64; 4]);
    let spread = u64::from(color) * 0x0101_0101_0101_0101;
    // Rows are read as two words straight from the cells where 16 bytes remain (the bytes
    // past the row masked off), else through a zero-padded copy.
    let low_mask = low_bits(8 * width.min(8) as u32);
    let high_mask = low_bits(8 * width.saturating_sub(8) as u32);
    let cells = board.cells();
    let word_at = |i: usize| u64::from_le_bytes(cells[i..i + 8].try_into().expect("8 bytes"));
    for lane in 0..height {
        let start = (height - 1 - lane) * width;
        let (low, high) = if start + 16 <= cells.len() {
            (word_at(start) & low_mask, word_at(start + 8) & high_mask)
        } else {
            let mut bytes = [0u8; 16];
            bytes[..width].copy_from_slice(&cells[start..start + width]);
            let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
            (word(0), word(8))
        };
        let full = nonzero_bytes(low) | nonzero_bytes(high) << 8;
        let other = nonzero_bytes(low ^ spread) | nonzero_bytes(high ^ spread) << 8;
        let shift = 16 * (lane % 4);
        occupied[lane / 4] |= full << shift;
        same[lane / 4] |= (full & !other) << shift;
    }
    (transpose(same), transpose(occupied))
}

/// Applies a tap at `position` as [`tap`](super::tap) does on a board of at most 16x16 cells
/// (`None` when larger): the tapped colour's plane and the occupied cells are built from the
/// cells, the group flooded there, the cleared cells, falls and column shifts read from the
/// planes, and only the columns the tap changed are rewritten in a copy of the cells.
pub(crate) fn tap_cells(
    source: &Board,
    position: Position,
    rule: ScoringRule,
    min_group: MinGroup,
) -> Option<Result<TapOutcome, EngineError>> {
    let (width, height) = (source.width(), source.height());
    if width > COMPACT_SIDE || height > COMPACT_SIDE {
        return None;
    }
    let (row, col) = (position.row as usize, position.col as usize);
    if row >= height || col >= width {
        return Some(Err(EngineError::PositionOffBoard {
            field: "position",
            position,
            width,
            height,
        }));
    }
    let color = source.cells()[row * width + col];
    if color == EMPTY {
        return Some(Err(EngineError::IllegalTap(TapRejection::EmptyCell)));
    }
    let (plane, occupied) = color_and_occupied(source, color);
    let members = flood(
        plane,
        single(col / 4, (16 * (col % 4) + height - 1 - row) as u32),
    );
    let size = count(members) as usize;
    if size < min_group.get() {
        return Some(Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size,
            min_group: min_group.get(),
        })));
    }
    let position_of = |word: usize, bit: u32| {
        Position::new(height as u32 - 1 - bit % 16, 4 * word as u32 + bit / 16)
    };
    let mut cleared = Vec::with_capacity(size);
    for_each_row_major(members, |word, bit| cleared.push(position_of(word, bit)));
    let touched = columns_of(members);
    // Tiles above a column's lowest cleared cell fall by the cleared cells below them.
    let mut movers = [0u64; 4];
    let mut columns = touched;
    while columns != 0 {
        let c = columns.trailing_zeros();
        columns &= columns - 1;
        let (word, shift) = ((c / 4) as usize, 16 * (c % 4));
        let removed = members[word] >> shift & LANE;
        let lane = occupied[word] >> shift & !removed & !low_bits(removed.trailing_zeros() + 1);
        movers[word] |= (lane & LANE) << shift;
    }
    let mut falls = Vec::new();
    for_each_row_major(movers, |word, bit| {
        let removed = members[word] >> (bit & !15) & LANE;
        let to = bit - (removed & low_bits(bit % 16)).count_ones();
        falls.push(Fall {
            from: position_of(word, bit),
            to: position_of(word, to),
        });
    });
    let remaining = columns_of(and_not(occupied, members));
    let emptied = touched & !remaining;
    let mut column_shifts = Vec::new();
    if emptied != 0 {
        let mut moved = remaining & !low_bits(emptied.trailing_zeros()) as u32;
        while moved != 0 {
            let from = moved.trailing_zeros();
            moved &= moved - 1;
            column_shifts.push(ColumnShift {
                from_col: from,
                to_col: (remaining & low_bits(from) as u32).count_ones(),
            });
        }
    }
    // Rewrite the columns from the first touched one: each column's surviving tiles, bottom
    // up, into the next column kept; columns left over at the right are emptied.
    let lo = touched.trailing_zeros() as usize;
    let hi = if emptied != 0 {
        31 - columns_of(occupied).leading_zeros()
    } else {
        31 - touched.leading_zeros()
    } as usize;
    let before = source.cells();
    let mut cells = before.to_vec();
    let mut target = lo;
    for c in lo..=hi {
        let (word, shift) = (c / 4, 16 * (c % 4));
        let mut kept = (occupied[word] & !members[word]) >> shift & LANE;
        if kept == 0 {
            continue;
        }
        let mut to = height;
        while kept != 0 {
            let r = kept.trailing_zeros() as usize;
            kept &= kept - 1;
            to -= 1;
            cells[to * width + target] = before[(height - 1 - r) * width + c];
        }
        for r in 0..to {
            cells[r * width + target] = EMPTY;
        }
        target += 1;
    }
    for c in target..=hi {
        for r in 0..height {
            cells[r * width + c] = EMPTY;
        }
    }
    let board = Board::from_engine_cells(width, height, cells);
    let tiles_left = count(occupied) as usize - size;
    let game_over = if min_group == MinGroup::DEFAULT {
        !super::has_adjacent_pair(&board)
    } else {
        !CompactGame::from_cells(&board)
            .expect("at most 16x16")
            .has_legal_group(min_group)
    };
    Some(Ok(TapOutcome {
        cleared,
        color,
        falls,
        column_shifts,
        board: SettledBoard::new_unchecked(board),
        move_score: rule.move_score(size),
        tiles_left,
        game_over,
        end_bonus: if game_over {
            rule.end_bonus(tiles_left)
        } else {
            0
        },
    }))
}

/// How many groups a [`KnownGroups`] holds; past that a new one takes the place of one of them
/// (round robin).
const KNOWN_GROUPS: usize = 2;

/// Groups of a [`CompactGame`] that draws of a playout flooded and rejected (up to
/// [`KNOWN_GROUPS`]). A large group is drawn often and rejected often by the rejection draw; a
/// later draw that lands in a known group checks that it is still a group (every cell still of
/// its colour, no cell of its colour beside it: a few word operations) instead of flooding it
/// again, and drops it when a tap since has changed it. By instruction counts of the solve
/// bench, keeping one or two groups did about the same (two slightly better), four or more
/// worse (more to check per draw).
#[derive(Clone, Debug)]
pub(super) struct KnownGroups {
    /// `(slot, members)`; the first `len` entries are in use.
    groups: [(usize, Bits); KNOWN_GROUPS],
    len: usize,
    /// Where the next group goes when all entries are in use.
    next: usize,
    /// Scratch of one draw: the paired cells of each plane it draws from.
    paired: [Bits; 16],
}

impl KnownGroups {
    /// No groups known: the state at the start of a playout.
    pub(super) fn new() -> Self {
        Self {
            groups: [(0, [0; 4]); KNOWN_GROUPS],
            len: 0,
            next: 0,
            paired: [[0; 4]; 16],
        }
    }

    /// The known group of `plane` (plane `slot` of the board as it is now) holding cell
    /// `(word, bit)`, if one is still a group: its cells all still in `plane` and no cell of
    /// `plane` beside them. A group is a connected set of cells, so such a set is still
    /// exactly one group. Known groups found to be stale on the way are dropped.
    #[inline]
    fn find(&mut self, slot: usize, plane: Bits, word: usize, bit: u32) -> Option<Bits> {
        let mut i = 0;
        while i < self.len {
            let (s, members) = self.groups[i];
            if s == slot && members[word] >> bit & 1 == 1 {
                let outside = and_not(and(neighbours(members), plane), members);
                if is_empty(and_not(members, plane)) && is_empty(outside) {
                    return Some(members);
                }
                self.len -= 1;
                self.groups[i] = self.groups[self.len];
                continue;
            }
            i += 1;
        }
        None
    }

    /// Notes `members`, a group of plane `slot` of the board as it is.
    #[inline]
    fn note(&mut self, slot: usize, members: Bits) {
        if self.len < KNOWN_GROUPS {
            self.groups[self.len] = (slot, members);
            self.len += 1;
        } else {
            self.groups[self.next] = (slot, members);
            self.next = (self.next + 1) % KNOWN_GROUPS;
        }
    }
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

    /// The position of a settled `board` built straight from its cells, or `None` when it is
    /// wider or taller than [`COMPACT_SIDE`]. Same planes and palette as [`new`](Self::new).
    pub fn from_board(board: &SettledBoard) -> Option<Self> {
        Self::from_cells(board.board())
    }

    /// [`from_board`](Self::from_board) of a board known to be settled.
    pub(crate) fn from_cells(board: &Board) -> Option<Self> {
        let (width, height) = (board.width(), board.height());
        if width > COMPACT_SIDE || height > COMPACT_SIDE {
            return None;
        }
        // Colour-indexed planes; entry 0 collects the empty cells.
        let mut by_colour = [[0u64; 4]; 17];
        let mut bit = height;
        for row in board.cells().chunks_exact(width) {
            bit -= 1;
            for (col, &cell) in row.iter().enumerate() {
                by_colour[usize::from(cell).min(16)][col / 4] |= 1 << (16 * (col % 4) + bit);
            }
        }
        let mut palette = [0; 16];
        let mut planes = [[0; 4]; 16];
        let (mut slots, mut tiles) = (0, 0);
        for (color, &plane) in by_colour.iter().enumerate().skip(1) {
            if !is_empty(plane) {
                palette[slots] = color as u8;
                planes[slots] = plane;
                slots += 1;
                tiles += count(plane);
            }
        }
        Some(Self {
            width: width as u8,
            height: height as u8,
            slots: slots as u8,
            tiles: tiles as u16,
            palette,
            planes,
        })
    }

    /// The legal groups as [`legal_groups`](super::legal_groups) lists them: representative
    /// (first cell row-major), colour, size and score, ordered by representative.
    pub(crate) fn legal_groups(&self, rule: ScoringRule, min_group: MinGroup) -> Vec<LegalGroup> {
        // Each group marks its representative in `reps` and notes `size << 4 | slot` under that
        // cell; reading `reps` row-major then lists the groups in order with no sort.
        let mut reps = [0u64; 4];
        let mut notes = [0u16; 256];
        let mut groups = 0;
        self.scan_groups(min_group.get(), |slot, _, members| {
            let (word, bit) = first_row_major(members);
            reps[word] |= 1 << bit;
            notes[64 * word + bit as usize] = (count(members) as u16) << 4 | slot as u16;
            groups += 1;
            true
        });
        let mut found = Vec::with_capacity(groups);
        for_each_row_major(reps, |word, bit| {
            let note = notes[64 * word + bit as usize];
            let size = usize::from(note >> 4);
            found.push(LegalGroup {
                representative: self.position(word, bit),
                color: self.palette[usize::from(note & 15)],
                size,
                score: rule.move_score(size),
            });
        });
        found
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
    pub(super) fn scan_groups(
        &self,
        min_group: usize,
        mut visit: impl FnMut(usize, Bits, Bits) -> bool,
    ) {
        for (slot, &plane) in self.planes().iter().enumerate() {
            let mut candidates = paired(plane);
            while !is_empty(candidates) {
                let (word, bit) = lowest(candidates);
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
        let drawn = if min_group == MinGroup::DEFAULT {
            self.draw_pairwise(rng)?
        } else {
            self.draw_counted(min_group.get(), rng)?
        };
        Some(self.tap_drawn(drawn))
    }

    /// Taps the group a draw returned, `(slot, word, bit, members)`: removes it and returns it
    /// as it was before the tap (the drawn cell, its colour and size).
    #[inline]
    fn tap_drawn(&mut self, (slot, word, bit, members): (usize, usize, u32, Bits)) -> TapGroup {
        let group = TapGroup {
            position: self.position(word, bit),
            color: self.palette[slot],
            size: count(members) as usize,
        };
        self.remove(members);
        group
    }

    /// The rejection draw of [`tap_random`](Self::tap_random) for groups of two or more:
    /// `(slot, word, bit, members)` of the group drawn and the cell drawn in it.
    fn draw_pairwise<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<(usize, usize, u32, Bits)> {
        self.draw_pairwise_among(None, rng, None)
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
            let (word, bit) = lowest(seed);
            drawn = Some((slot, word, bit, members));
            false
        });
        drawn
    }

    /// The legal groups (at least `min_group` cells, `min_group >= 2`) as the search of
    /// [`solve`](super::solve) uses them: each group's first cell row-major (the
    /// representative [`legal_groups`](super::legal_groups) reports), appended to `out` in
    /// scan order (plane by plane, then column-major).
    pub(super) fn representatives_into(&self, min_group: usize, out: &mut Vec<Position>) {
        self.scan_groups(min_group, |_, _, members| {
            let (word, bit) = first_row_major(members);
            out.push(self.position(word, bit));
            true
        });
    }

    /// Taps the group holding `position` whatever its size (the caller knows it is legal):
    /// clears it, applies gravity and closes empty columns. Returns its size in cells; 0 (and
    /// nothing changed) when `position` is off the board or empty.
    pub(super) fn tap_at(&mut self, position: Position) -> usize {
        let (width, height) = (self.width(), self.height());
        let (row, col) = (position.row as usize, position.col as usize);
        if row >= height || col >= width {
            return 0;
        }
        let cell = single(col / 4, (16 * (col % 4) + height - 1 - row) as u32);
        let Some(slot) = self
            .planes()
            .iter()
            .position(|&plane| !is_empty(and(plane, cell)))
        else {
            return 0;
        };
        let members = flood(self.planes[slot], cell);
        self.remove(members);
        count(members) as usize
    }

    /// The slot of the colour with the most tiles (the lowest slot on a tie), or `None` on an
    /// empty board: the tabu colour of a TabuColorRandom playout.
    pub(super) fn most_frequent_slot(&self) -> Option<usize> {
        let mut best: Option<(usize, u32)> = None;
        for (slot, &plane) in self.planes().iter().enumerate() {
            let n = count(plane);
            if n > 0 && best.is_none_or(|(_, m)| n > m) {
                best = Some((slot, n));
            }
        }
        best.map(|(slot, _)| slot)
    }

    /// [`tap_random`](Self::tap_random) that never draws a group of plane `tabu` while a legal
    /// group of another colour exists (TabuColorRandom, Schadd et al. 2008): the draw is
    /// uniform among the legal groups of the other colours, and among all legal groups when
    /// only the tabu colour has one.
    ///
    /// `known` carries the groups earlier draws of the same playout flooded and rejected (start
    /// each playout with an empty one and pass it to every tap of that playout only): a draw
    /// landing in one of them that is still a group skips its flood fill. The draws of `rng`
    /// and the group tapped are the same as without it.
    pub(super) fn tap_random_avoiding<R: Rng + ?Sized>(
        &mut self,
        min_group: MinGroup,
        tabu: Option<usize>,
        rng: &mut R,
        known: &mut KnownGroups,
    ) -> Option<TapGroup> {
        let drawn = if min_group == MinGroup::DEFAULT {
            self.draw_pairwise_among(tabu, rng, Some(known))
                .or_else(|| self.draw_pairwise_among(None, rng, Some(known)))
        } else {
            self.draw_counted_avoiding(min_group.get(), tabu, rng)
                .or_else(|| self.draw_counted(min_group.get(), rng))
        };
        Some(self.tap_drawn(drawn?))
    }

    /// [`draw_pairwise`](Self::draw_pairwise) over every plane but `tabu`, looking the drawn
    /// cell up in `known` (when given) before flooding it and noting there the groups it
    /// rejects; `None` when those planes have no group of two or more.
    fn draw_pairwise_among<R: Rng + ?Sized>(
        &self,
        tabu: Option<usize>,
        rng: &mut R,
        mut known: Option<&mut KnownGroups>,
    ) -> Option<(usize, usize, u32, Bits)> {
        // `before[slot]`: the paired cells of the planes drawn from before plane `slot`.
        let mut before = [0u32; 16];
        let mut total = 0;
        for (slot, &plane) in self.planes().iter().enumerate() {
            before[slot] = total;
            if Some(slot) != tabu {
                let cells = paired(plane);
                if let Some(known) = known.as_deref_mut() {
                    known.paired[slot] = cells;
                }
                total += count(cells);
            }
        }
        if total == 0 {
            return None;
        }
        let slots = usize::from(self.slots);
        loop {
            let index = rng.random_range(0..total);
            // The last plane starting at or before `index` (a plane with no paired cell
            // starts where the next one does, so it is passed over), counted without a
            // branch on the random index.
            let slot: usize = (1..slots).map(|s| usize::from(before[s] <= index)).sum();
            let index = index - before[slot];
            let cells = match known.as_deref() {
                Some(known) => known.paired[slot],
                None => paired(self.planes[slot]),
            };
            let (word, bit) = select(cells, cells.map(u64::count_ones), index);
            let plane = self.planes[slot];
            let found = known
                .as_deref_mut()
                .and_then(|k| k.find(slot, plane, word, bit));
            let members = found.unwrap_or_else(|| flood(plane, single(word, bit)));
            let size = count(members);
            if size == 2 || rng.random_range(0..size) < 2 {
                return Some((slot, word, bit, members));
            }
            if let (None, Some(known)) = (found, known.as_deref_mut()) {
                known.note(slot, members);
            }
        }
    }

    /// [`draw_counted`](Self::draw_counted) over every plane but `tabu`; `None` when those
    /// planes have no legal group.
    fn draw_counted_avoiding<R: Rng + ?Sized>(
        &self,
        min_group: usize,
        tabu: Option<usize>,
        rng: &mut R,
    ) -> Option<(usize, usize, u32, Bits)> {
        let mut groups = 0;
        self.scan_groups(min_group, |slot, _, _| {
            groups += u32::from(Some(slot) != tabu);
            true
        });
        if groups == 0 {
            return None;
        }
        let mut rest = rng.random_range(0..groups);
        let mut drawn = None;
        self.scan_groups(min_group, |slot, seed, members| {
            if Some(slot) == tabu {
                return true;
            }
            if rest > 0 {
                rest -= 1;
                return true;
            }
            let (word, bit) = lowest(seed);
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
                let stay = !((LANE & !lane_low_bits(start)) << shift);
                let fall = (lane_low_bits(16 - run) & !lane_low_bits(start)) << shift;
                for plane in &mut self.planes[..slots] {
                    let w = plane[word];
                    plane[word] = (w & stay) | (w >> run & fall);
                }
                rest &= lane_low_bits(start);
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
    fn transpose_moves_every_bit() {
        for lane in 0..16 {
            for bit in 0..16 {
                let a = single(lane / 4, (16 * (lane % 4) + bit) as u32);
                let t = single(bit / 4, (16 * (bit % 4) + lane) as u32);
                assert_eq!(transpose(a), t, "lane {lane} bit {bit}");
            }
        }
        for i in 0..256 {
            assert_eq!(nonzero_bytes(1u64 << (i % 64)), 1 << (i % 64 / 8));
        }
        assert_eq!(nonzero_bytes(0x8000_0000_0001_ff00), 0b1000_0110);
    }

    #[test]
    fn select_finds_every_set_bit() {
        let mut rng = crate::rng_from_seed(7);
        let mut sets: Vec<Bits> = vec![
            [u64::MAX; 4],
            [u64::MAX, 0, u64::MAX, 1],
            [0, 0, 0, 1 << 63],
            [1, 0, 0, 0],
            [0, u64::MAX, 0, 0],
        ];
        for _ in 0..200 {
            sets.push([0; 4].map(|_: u64| rng.random::<u64>() & rng.random::<u64>()));
            sets.push([0; 4].map(|_: u64| match rng.random_range(0..3) {
                0 => 0,
                1 => u64::MAX,
                _ => rng.random::<u64>(),
            }));
        }
        for a in sets {
            let mut index = 0;
            for word in 0..4 {
                for bit in 0..64 {
                    if a[word] >> bit & 1 == 1 {
                        assert_eq!(select(a, a.map(u64::count_ones), index), (word, bit));
                        index += 1;
                    }
                }
            }
            assert_eq!(index, count(a));
        }
    }

    /// The TabuColorRandom tap as it was written before [`KnownGroups`] and the branch-free
    /// picks: count each allowed plane's paired cells, walk the planes and the bits to the
    /// drawn one, flood it, keep it with probability 2 / size; all planes when the allowed ones
    /// have no pair. Only the draw is copied: the tap itself is the game's `tap_drawn`.
    fn reference_tap<R: Rng>(
        game: &mut CompactGame,
        tabu: Option<usize>,
        rng: &mut R,
    ) -> Option<TapGroup> {
        let draw = |tabu: Option<usize>, rng: &mut R| {
            let planes = game.planes();
            let counts: Vec<u32> = (0..planes.len())
                .map(|slot| {
                    if Some(slot) == tabu {
                        0
                    } else {
                        count(paired(planes[slot]))
                    }
                })
                .collect();
            let total: u32 = counts.iter().sum();
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
                let cells = paired(planes[slot]);
                let (word, bit) = (0..256)
                    .map(|i| (i / 64, (i % 64) as u32))
                    .filter(|&(word, bit)| cells[word] >> bit & 1 == 1)
                    .nth(index as usize)
                    .expect("index below the count");
                let members = flood(planes[slot], single(word, bit));
                let size = count(members);
                if size == 2 || rng.random_range(0..size) < 2 {
                    return Some((slot, word, bit, members));
                }
            }
        };
        let drawn = draw(tabu, rng).or_else(|| draw(None, rng))?;
        Some(game.tap_drawn(drawn))
    }

    /// The playout tap draws what the tap before [`KnownGroups`] drew, tap for tap, with known
    /// groups carried through a whole playout, on boards from 1x1 to 16x16 with 1 to 16
    /// colours.
    #[test]
    fn playout_taps_are_the_reference_taps() {
        let mut remembered = 0;
        for seed in 0..400 {
            let mut rng = crate::rng_from_seed(seed);
            let (width, height) = (rng.random_range(1..=16), rng.random_range(1..=16));
            let colors = rng.random_range(1..=16u8);
            let cells = (0..width * height)
                .map(|_| rng.random_range(1..=colors))
                .collect();
            let board = Board::from_engine_cells(width, height, cells);
            let start = CompactGame::from_cells(&board).expect("at most 16x16");
            let tabu = start.most_frequent_slot();
            let (mut game, mut reference) = (start.clone(), start);
            let mut known = KnownGroups::new();
            let mut draws = crate::rng_from_seed(seed);
            let mut reference_draws = draws.clone();
            loop {
                remembered += known.len;
                let tapped =
                    game.tap_random_avoiding(MinGroup::DEFAULT, tabu, &mut draws, &mut known);
                let expected = reference_tap(&mut reference, tabu, &mut reference_draws);
                assert_eq!(tapped, expected, "seed {seed}");
                assert_eq!(game, reference, "seed {seed}");
                if tapped.is_none() {
                    break;
                }
            }
        }
        assert!(
            remembered > 1000,
            "groups were remembered {remembered} times"
        );
    }

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
