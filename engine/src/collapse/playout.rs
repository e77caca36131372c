//! [`CollapsePlayout`]: a [`CollapseGame`] with its legal groups kept up to date across taps,
//! for random playouts and search.
//!
//! A tap changes only the cells at and above the lowest cleared cell of each column it clears
//! (gravity), plus every column from the first emptied one on when columns close. A group that
//! neither holds a changed cell nor touches one is the same group after the tap, so it is kept
//! as is; only the changed region, grown by one cell, is flooded again.
//!
//! Each legal group is held as one seed cell in a column mask. After a tap the seeds in the
//! grown region go, and so do the seeds inside every component flooded again (a group that
//! reached into the region has cells there, so its new component is flooded from them); the
//! components flooded again that are large enough get a new seed. No per-group list is kept,
//! so a tap costs the changed region, not the number of groups.

#![allow(
    clippy::needless_range_loop,
    reason = "column loops index several per-column arrays in step"
)]

use crate::params::MinGroup;
use crate::position::Position;

use super::bitboard::{CollapseGame, ColumnMask, TapGroup, low_bits};

/// A [`CollapseGame`] and its legal groups (at least `min_group` cells), kept up to date as
/// groups are tapped: a tap re-floods only the part of the board it changed.
///
/// Groups are numbered `0..group_count()` by their seed cell in column-major order (columns
/// left to right, cells bottom up); a seed is some cell of the group, so the numbering is
/// deterministic but otherwise unspecified and changes from tap to tap.
#[derive(Clone, Debug)]
pub struct CollapsePlayout {
    game: CollapseGame,
    min_group: MinGroup,
    /// One cell of each legal group: bit `r` of column `c` (bits from the bottom).
    seeds: ColumnMask,
    /// Number of legal groups: the bits of `seeds`.
    groups: usize,
    /// Scratch: zero outside a flood or a tap.
    members: ColumnMask,
    /// Scratch: only columns `from..=to` of a scan are read, after being written.
    candidates: ColumnMask,
}

impl CollapsePlayout {
    /// Starts tracking the legal groups of `game` for taps of at least `min_group` cells.
    pub fn new(game: CollapseGame, min_group: MinGroup) -> Self {
        let mut playout = Self {
            game,
            min_group,
            seeds: [0; 64],
            groups: 0,
            members: [0; 64],
            candidates: [0; 64],
        };
        let columns = playout.game.columns();
        if columns > 0 {
            playout.scan(0, columns - 1, &[0; 64]);
        }
        playout
    }

    /// The position.
    #[inline]
    pub fn game(&self) -> &CollapseGame {
        &self.game
    }

    /// Number of legal groups, `0..=2048`; 0 means the game is over.
    #[inline]
    pub fn group_count(&self) -> usize {
        self.groups
    }

    /// The seed `(col, bit)` of group `index`.
    fn seed(&self, index: usize) -> (usize, u32) {
        assert!(
            index < self.groups,
            "group {index} of {} legal groups",
            self.groups
        );
        let mut rest = index;
        for (col, &word) in self.seeds.iter().enumerate() {
            let count = word.count_ones() as usize;
            if rest < count {
                let mut word = word;
                for _ in 0..rest {
                    word &= word - 1;
                }
                return (col, word.trailing_zeros());
            }
            rest -= count;
        }
        unreachable!("group_count counts the seeds")
    }

    /// Legal group `index` (`0..group_count()`): a cell to tap (its seed), colour and size.
    ///
    /// # Panics
    /// When `index >= group_count()`.
    pub fn group(&self, index: usize) -> TapGroup {
        let (col, bit) = self.seed(index);
        let position = Position::new((self.game.height() - 1) as u32 - bit, col as u32);
        let (slot, _, _) = self
            .game
            .locate(position)
            .expect("a seed is a tile of the board");
        let mut members = [0; 64];
        let span = self.game.flood(slot, col, 1 << bit, &mut members);
        TapGroup {
            position,
            color: self.game.color_of(slot),
            size: members[span.lo..=span.hi]
                .iter()
                .map(|w| w.count_ones() as usize)
                .sum(),
        }
    }

    /// Taps legal group `index` (`0..group_count()`): clears it, applies gravity, closes empty
    /// columns, and brings the groups up to date. Returns the number of cells cleared.
    ///
    /// # Panics
    /// When `index >= group_count()`.
    pub fn tap_group(&mut self, index: usize) -> usize {
        let (col, bit) = self.seed(index);
        let slot = (0..self.game.slot_count())
            .find(|&slot| self.game.plane(col, slot) >> bit & 1 == 1)
            .expect("a seed is a tile of the board");
        let members = &mut self.members;
        let span = self.game.flood(slot, col, 1 << bit, members);
        // Dirty cells: bit `r` of column `c` is dirty when `r >= dirty[c]` (64: clean). A
        // touched column changes from its lowest cleared cell up; one cell around it is dirty.
        let columns_before = self.game.columns();
        let mut dirty = [64u32; 64];
        let mut size = 0;
        let mut first_emptied = None;
        for c in span.lo..=span.hi {
            let removed = members[c];
            if removed == 0 {
                continue;
            }
            size += removed.count_ones() as usize;
            if first_emptied.is_none() && removed.count_ones() == self.game.column_height(c) {
                first_emptied = Some(c);
            }
            let lowest = removed.trailing_zeros();
            dirty[c] = dirty[c].min(lowest.saturating_sub(1));
            if c > 0 {
                dirty[c - 1] = dirty[c - 1].min(lowest);
            }
            if c + 1 < columns_before {
                dirty[c + 1] = dirty[c + 1].min(lowest);
            }
        }
        self.game.remove(members, span, &mut ());
        members[span.lo..=span.hi].fill(0);
        let from = span.lo.saturating_sub(1);
        let to = match first_emptied {
            Some(first) => {
                // Every column from the first emptied one on may have moved.
                dirty[first.saturating_sub(1)..columns_before].fill(0);
                columns_before - 1
            }
            None => (span.hi + 1).min(columns_before - 1),
        };
        for c in from..=to {
            let keep = low_bits(dirty[c]);
            self.groups -= (self.seeds[c] & !keep).count_ones() as usize;
            self.seeds[c] &= keep;
        }
        let columns = self.game.columns();
        if columns > from {
            self.scan(from, to.min(columns - 1), &dirty);
        }
        size
    }

    /// Floods every component of two or more cells holding a dirty cell of columns
    /// `from..=to` (bit `r` of column `c` is dirty when `r >= dirty[c]`): drops the seeds
    /// inside it, then seeds it when it is a legal group.
    fn scan(&mut self, from: usize, to: usize, dirty: &[u32; 64]) {
        let min_group = self.min_group.get();
        let game = &self.game;
        let columns = game.columns();
        let candidates = &mut self.candidates;
        for slot in 0..game.slot_count() {
            let mut left = if from > 0 {
                game.plane(from - 1, slot)
            } else {
                0
            };
            let mut here = game.plane(from, slot);
            for col in from..=to {
                let right = if col + 1 < columns {
                    game.plane(col + 1, slot)
                } else {
                    0
                };
                candidates[col] =
                    here & (here << 1 | here >> 1 | left | right) & !low_bits(dirty[col]);
                (left, here) = (here, right);
            }
            for col in from..=to {
                while candidates[col] != 0 {
                    let seed = candidates[col] & candidates[col].wrapping_neg();
                    let span = game.flood(slot, col, seed, &mut self.members);
                    // Flooded from a cell with a same-colour neighbour: two cells or more.
                    let mut size = 0;
                    for c in span.lo..=span.hi {
                        let members = self.members[c];
                        if min_group > 2 {
                            size += members.count_ones() as usize;
                        }
                        candidates[c] &= !members;
                        let stale = self.seeds[c] & members;
                        if stale != 0 {
                            self.groups -= stale.count_ones() as usize;
                            self.seeds[c] &= !members;
                        }
                        self.members[c] = 0;
                    }
                    if min_group == 2 || size >= min_group {
                        self.seeds[col] |= seed;
                        self.groups += 1;
                    }
                }
            }
        }
    }
}
