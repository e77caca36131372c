//! [`CompactGame`]: a collapse-family position of at most 16x16 cells with each colour as one
//! 256-bit [`Plane`], for fast random playouts and search. The random draws of a legal group
//! (uniform, and TabuColorRandom for the search's playouts) are in [`draw`].

mod draw;

pub(crate) use draw::KnownGroups;

use crate::board::{Board, EMPTY};
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::LegalGroup;
use super::bitboard::CollapseGame;
use super::plane::{Plane, lane_low_bits};

/// The largest side a [`CompactGame`] holds, in cells.
pub const COMPACT_SIDE: usize = 16;

/// The starting value of the positions' hashes (the golden ratio's 64-bit fraction).
pub(crate) const HASH_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// The odd multiplier of [`mix_word`] (MurmurHash3's 64-bit finaliser constant).
const HASH_MULTIPLIER: u64 = 0xff51_afd7_ed55_8ccd;

/// One step of the positions' hashes: `word` mixed into `hash` (xor, multiply, fold the high
/// half down). Every board hash of the search chains it, on planes' words or columns' bits.
#[inline]
pub(crate) fn mix_word(hash: u64, word: u64) -> u64 {
    let hash = (hash ^ word).wrapping_mul(HASH_MULTIPLIER);
    hash ^ hash >> 32
}

/// A settled collapse-family position of at most 16x16 cells ([`COMPACT_SIDE`]) with one
/// 256-bit plane per colour present on the starting board: lists, counts and draws legal
/// groups and applies taps with a few word operations per step and no allocation. Built from a
/// [`CollapseGame`] or straight from a settled board; the rules are those of
/// [`tap`](super::tap) (docs/rules.md section 3).
#[derive(Debug, PartialEq, Eq)]
pub struct CompactGame {
    width: u8,
    height: u8,
    /// Planes in use: the colours present on the starting board.
    slots: u8,
    tiles: u16,
    /// `palette[slot]` is the colour of `planes[slot]`.
    palette: [u8; 16],
    planes: [Plane; 16],
}

impl Clone for CompactGame {
    fn clone(&self) -> Self {
        Self {
            width: self.width,
            height: self.height,
            slots: self.slots,
            tiles: self.tiles,
            palette: self.palette,
            planes: self.planes,
        }
    }

    /// Copies only the planes either position uses (the others are empty in both): a fifth
    /// of the bytes on a 5-colour board, for the beam's children.
    fn clone_from(&mut self, source: &Self) {
        let used = usize::from(self.slots.max(source.slots));
        self.width = source.width;
        self.height = source.height;
        self.slots = source.slots;
        self.tiles = source.tiles;
        self.palette = source.palette;
        self.planes[..used].copy_from_slice(&source.planes[..used]);
    }
}

impl CompactGame {
    /// The position of `game`, or `None` when it is wider or taller than [`COMPACT_SIDE`].
    pub fn new(game: &CollapseGame) -> Option<Self> {
        if game.width() > COMPACT_SIDE || game.height() > COMPACT_SIDE {
            return None;
        }
        let slots = game.slot_count();
        let mut palette = [0; 16];
        let mut planes = [Plane::EMPTY; 16];
        for slot in 0..slots {
            palette[slot] = game.color_of(slot);
            for col in 0..game.columns() {
                planes[slot].insert_column(col as u32, game.plane(col, slot));
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
        let mut by_colour = [Plane::EMPTY; 17];
        let mut bit = height;
        for row in board.cells().chunks_exact(width) {
            bit -= 1;
            for (col, &cell) in row.iter().enumerate() {
                by_colour[usize::from(cell).min(16)].insert_at(col, bit);
            }
        }
        let mut palette = [0; 16];
        let mut planes = [Plane::EMPTY; 16];
        let (mut slots, mut tiles) = (0, 0);
        for (color, &plane) in by_colour.iter().enumerate().skip(1) {
            if !plane.is_empty() {
                palette[slots] = color as u8;
                planes[slots] = plane;
                slots += 1;
                tiles += plane.count();
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
        let mut reps = Plane::EMPTY;
        let mut notes = [0u16; 256];
        let mut groups = 0;
        self.scan_groups(min_group.get(), |slot, _, members| {
            let first = members.first_row_major();
            reps.insert(first);
            notes[first as usize] = (members.count() as u16) << 4 | slot as u16;
            groups += 1;
            true
        });
        let mut found = Vec::with_capacity(groups);
        reps.for_each_row_major(|index| {
            let note = notes[index as usize];
            let size = usize::from(note >> 4);
            found.push(LegalGroup {
                representative: self.position(index),
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

    /// The planes in use, one per colour of the starting board (`palette` order).
    #[inline]
    fn planes(&self) -> &[Plane] {
        &self.planes[..usize::from(self.slots)]
    }

    /// The board as cells (a settled board).
    pub fn to_settled_board(&self) -> SettledBoard {
        let (width, height) = (self.width(), self.height());
        let mut cells = vec![EMPTY; width * height];
        for (slot, &plane) in self.planes().iter().enumerate() {
            for index in plane {
                let (col, row) = (index as usize / 16, height - 1 - index as usize % 16);
                cells[row * width + col] = self.palette[slot];
            }
        }
        SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells))
    }

    /// The board position of cell `index` (`16 * col + r`, see [`Plane`]).
    #[inline]
    fn position(&self, index: u32) -> Position {
        Position::new(self.height() as u32 - 1 - index % 16, index / 16)
    }

    /// The cell index of an on-board `position`, or `None` off the board.
    #[inline]
    fn index_of(&self, position: Position) -> Option<u32> {
        let (row, col) = (position.row as usize, position.col as usize);
        let (width, height) = (self.width(), self.height());
        (row < height && col < width).then(|| (16 * col + height - 1 - row) as u32)
    }

    /// Calls `visit(slot, seed, members)` for every group of at least `min_group` cells
    /// (`min_group >= 2`), plane by plane, then by its first cell column-major, until `visit`
    /// returns false; `seed` is the group's first cell column-major.
    pub(super) fn scan_groups(
        &self,
        min_group: usize,
        mut visit: impl FnMut(usize, Plane, Plane) -> bool,
    ) {
        for (slot, &plane) in self.planes().iter().enumerate() {
            let mut candidates = plane.paired();
            while let Some(first) = candidates.first() {
                let seed = Plane::single(first);
                let members = plane.group_of(seed);
                candidates &= !members;
                if members.count() as usize >= min_group && !visit(slot, seed, members) {
                    return;
                }
            }
        }
    }

    /// True when some group has at least `min_group` cells.
    pub fn has_legal_group(&self, min_group: MinGroup) -> bool {
        if min_group == MinGroup::DEFAULT {
            return self
                .planes()
                .iter()
                .any(|&plane| !plane.paired().is_empty());
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

    /// The legal groups (at least `min_group` cells, `min_group >= 2`) as the search of
    /// [`solve`](fn@crate::solve) uses them: each group's first cell row-major (the
    /// representative [`legal_groups`](super::legal_groups) reports), appended to `out` in
    /// scan order (plane by plane, then column-major).
    pub(crate) fn representatives_into(&self, min_group: usize, out: &mut Vec<Position>) {
        self.scan_groups(min_group, |_, _, members| {
            out.push(self.position(members.first_row_major()));
            true
        });
    }

    /// Taps the group holding `position` whatever its size (the caller knows it is legal):
    /// clears it, applies gravity and closes empty columns. Returns its size in cells; 0 (and
    /// nothing changed) when `position` is off the board or empty.
    pub(crate) fn tap_at(&mut self, position: Position) -> usize {
        let Some(index) = self.index_of(position) else {
            return 0;
        };
        let Some(slot) = self
            .planes()
            .iter()
            .position(|&plane| plane.contains(index))
        else {
            return 0;
        };
        let members = self.planes[slot].group_of(Plane::single(index));
        self.remove(members);
        members.count() as usize
    }

    /// The first colour (palette order) with `1..min_group` tiles, and its tile count: no
    /// group of it can ever reach `min_group` cells, so the board can never be cleared.
    pub(crate) fn stranded_color(&self, min_group: usize) -> Option<(u8, usize)> {
        self.planes().iter().enumerate().find_map(|(slot, plane)| {
            let tiles = plane.count() as usize;
            (tiles > 0 && tiles < min_group).then_some((self.palette[slot], tiles))
        })
    }

    /// Tiles with no 4-neighbour of their colour, `0..=256`.
    pub(crate) fn orphan_count(&self) -> usize {
        self.planes()
            .iter()
            .map(|&plane| (plane.count() - plane.paired().count()) as usize)
            .sum()
    }

    /// Appends every legal group (at least `min_group` cells) to `out` as its cells, in scan
    /// order (plane by plane, then column-major), for the beam search.
    pub(crate) fn groups_into(&self, min_group: usize, out: &mut Vec<Plane>) {
        self.scan_groups(min_group, |_, _, members| {
            out.push(members);
            true
        });
    }

    /// Taps the group `members` (one of [`groups_into`](Self::groups_into)'s): clears it,
    /// applies gravity and closes empty columns. Returns its size.
    pub(crate) fn tap_group(&mut self, members: Plane) -> usize {
        self.remove(members);
        members.count() as usize
    }

    /// The representative of the group `members`: its first cell row-major.
    pub(crate) fn representative(&self, members: Plane) -> Position {
        self.position(members.first_row_major())
    }

    /// Calls `visit(tiles)` for every colour present; returns, summed over the colours, the
    /// tiles in groups of two or more and the Euler number of those tiles under
    /// 4-connectivity (groups less their holes), from four counts of the union of the colours'
    /// disjoint sets, with no flood fill. Also returns the colours with such a group.
    pub(crate) fn pair_census(&self, mut visit: impl FnMut(u32)) -> (u32, i32, u32) {
        let (mut paired, mut vertical, mut horizontal, mut squares) =
            (Plane::EMPTY, Plane::EMPTY, Plane::EMPTY, Plane::EMPTY);
        let mut grouped_colours = 0;
        for &plane in self.planes() {
            visit(plane.count());
            let pairs = plane.paired();
            if pairs.is_empty() {
                continue;
            }
            grouped_colours += 1;
            let up = pairs & pairs.up();
            paired |= pairs;
            vertical |= up;
            horizontal |= pairs & pairs.right();
            squares |= up & up.right();
        }
        let euler = paired.count() as i32 - vertical.count() as i32 - horizontal.count() as i32
            + squares.count() as i32;
        (paired.count(), euler, grouped_colours)
    }

    /// Calls `visit(tiles, grouped, groups)` for every colour in palette order: its tiles,
    /// the tiles in its legal groups (at least `min_group` cells) and the number of those
    /// groups, by flood fill.
    pub(crate) fn tally_colours(&self, min_group: usize, mut visit: impl FnMut(u32, u32, u32)) {
        for &plane in self.planes() {
            let (mut grouped, mut groups) = (0, 0);
            let mut candidates = plane.paired();
            while let Some(first) = candidates.first() {
                let members = plane.group_of(Plane::single(first));
                candidates &= !members;
                let size = members.count();
                if size as usize >= min_group {
                    grouped += size;
                    groups += 1;
                }
            }
            visit(plane.count(), grouped, groups);
        }
    }

    /// Calls `visit(tiles, paired, components)` for every colour present, in palette order:
    /// its tiles, those with a neighbour of their colour (in a group of two or more), and its
    /// Euler number under 4-connectivity (components, singletons included, less their
    /// holes), from four counts with no flood fill.
    pub(crate) fn colour_census(&self, mut visit: impl FnMut(u32, u32, i32)) {
        for &plane in self.planes() {
            let tiles = plane.count();
            if tiles == 0 {
                continue;
            }
            // The upper cell of each vertical pair and the right cell of each horizontal one.
            let vertical = plane & plane.up();
            let horizontal = plane & plane.right();
            let squares = vertical & vertical.right();
            let euler = tiles as i32 - vertical.count() as i32 - horizontal.count() as i32
                + squares.count() as i32;
            let paired = vertical | vertical.down() | horizontal | horizontal.left();
            debug_assert_eq!(paired, plane.paired());
            visit(tiles, paired.count(), euler);
        }
    }

    /// A 64-bit hash of the tile count and the planes, word after word: equal positions (of
    /// one starting board) hash alike. Mixing in the tile count first lets some distinct
    /// positions collide by construction (a count and the first plane's first word that
    /// differ by the same bits); the beam of [`SolveMethod::Beam`](crate::SolveMethod::Beam)
    /// keeps this hash so that its answers stay those of its first version.
    pub(crate) fn fingerprint(&self) -> u64 {
        let words = self.planes().iter().flat_map(|plane| plane.words());
        words.fold(HASH_SEED ^ u64::from(self.tiles), mix_word)
    }

    /// A 64-bit hash of the planes alone (the tile count follows from them): equal positions
    /// hash alike, and distinct ones collide with odds of about 2^-64 a pair. Four independent
    /// chains (one per word of a plane, so their multiplications overlap), then mixed into one.
    pub(crate) fn lane_fingerprint(&self) -> u64 {
        let mut lanes = [
            HASH_SEED,
            0xc2b2_ae3d_27d4_eb4f,
            0x1656_67b1_9e37_79f9,
            0x27d4_eb2f_1656_67c5,
        ];
        for plane in self.planes() {
            for (lane, word) in lanes.iter_mut().zip(plane.words()) {
                *lane = mix_word(*lane, word);
            }
        }
        lanes.iter().fold(0, |hash, &lane| {
            let hash = (hash ^ lane).wrapping_mul(HASH_MULTIPLIER);
            hash ^ hash >> 29
        })
    }

    /// The position's planes in palette order: equal keys mean equal positions (the palette
    /// is fixed by the starting board).
    pub(crate) fn planes_key(&self) -> Box<[Plane]> {
        self.planes().into()
    }

    /// The heap bytes of [`planes_key`](Self::planes_key): 32 a colour.
    pub(crate) fn planes_key_bytes(&self) -> usize {
        std::mem::size_of_val(self.planes())
    }

    /// Removes the group `members`: clears it, compacts each column it touched toward the
    /// bottom (gravity) and closes the columns it emptied.
    fn remove(&mut self, members: Plane) {
        let slots = usize::from(self.slots);
        let touched = members.columns();
        let mut columns = touched;
        while columns != 0 {
            let col = columns.trailing_zeros();
            columns &= columns - 1;
            // Remove runs of cleared cells from the top down, so lower runs keep their bits.
            let mut rest = members.column(col);
            while rest != 0 {
                let top = 63 - rest.leading_zeros();
                let run = (!(rest << (63 - top))).leading_zeros();
                let start = top + 1 - run;
                for plane in &mut self.planes[..slots] {
                    plane.remove_run(col, start, run);
                }
                rest &= lane_low_bits(start);
            }
        }
        self.tiles -= members.count() as u16;
        // A column can only have emptied if its bottom cell was cleared.
        let bottoms = members & Plane::row(0);
        if bottoms.is_empty() {
            return;
        }
        let occupied = self
            .planes()
            .iter()
            .fold(Plane::EMPTY, |acc, &plane| acc | plane);
        let mut emptied = bottoms.columns() & !occupied.columns();
        // Close the emptied columns from the right, so the lower indices stay valid.
        while emptied != 0 {
            let col = 31 - emptied.leading_zeros();
            emptied &= !(1 << col);
            for plane in &mut self.planes[..slots] {
                *plane = plane.without_column(col);
            }
        }
    }
}
