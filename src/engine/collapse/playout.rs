//! [`CollapsePlayout`]: a [`CollapseGame`] with its legal groups kept up to date across taps,
//! for random playouts and search.
//!
//! A tap changes only the cells at and above the lowest cleared cell of each column it clears
//! (gravity), plus every column from the first emptied one on when columns close. A group that
//! neither holds a changed cell nor touches one is the same group after the tap, so it is kept
//! as is; only the changed region, grown by one cell, is flooded again.

use crate::engine::params::MinGroup;
use crate::engine::position::Position;

use super::bitboard::{CollapseGame, ColumnMask, Span, TapGroup, low_bits};

/// A legal group: its plane, span and size, and where its member words start in
/// [`CollapsePlayout::words`] (`hi - lo + 1` words, one per column of the span).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tracked {
    slot: u8,
    lo: u8,
    hi: u8,
    size: u16,
    start: u32,
}

/// A [`CollapseGame`] and its legal groups (at least `min_group` cells), kept up to date as
/// groups are tapped: a tap re-floods only the part of the board it changed.
///
/// Groups are numbered `0..group_count()` in an order that is deterministic but otherwise
/// unspecified (it changes from tap to tap); [`CollapsePlayout::group`] names each one.
#[derive(Clone, Debug)]
pub struct CollapsePlayout {
    game: CollapseGame,
    min_group: MinGroup,
    groups: Vec<Tracked>,
    words: Vec<u64>,
    members: ColumnMask,
}

impl CollapsePlayout {
    /// Starts tracking the legal groups of `game` for taps of at least `min_group` cells.
    pub fn new(game: CollapseGame, min_group: MinGroup) -> Self {
        let mut playout = Self {
            game,
            min_group,
            groups: Vec::new(),
            words: Vec::new(),
            members: [0; 64],
        };
        let all = [0u32; 64];
        let columns = playout.game.columns();
        if columns > 0 {
            playout.scan(0, columns - 1, &all);
        }
        playout
    }

    /// The position.
    #[inline]
    pub fn game(&self) -> &CollapseGame {
        &self.game
    }

    /// Number of legal groups; 0 means the game is over.
    #[inline]
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// Legal group `index` (`0..group_count()`): a cell to tap (its lowest cell in its leftmost
    /// column), colour and size.
    ///
    /// # Panics
    /// When `index >= group_count()`.
    pub fn group(&self, index: usize) -> TapGroup {
        let group = self.groups[index];
        let bit = self.words[group.start as usize].trailing_zeros() as usize;
        TapGroup {
            position: Position::new((self.game.height() - 1 - bit) as u32, u32::from(group.lo)),
            color: self.game.color_of(usize::from(group.slot)),
            size: usize::from(group.size),
        }
    }

    /// Taps legal group `index` (`0..group_count()`): clears it, applies gravity, closes empty
    /// columns, and brings the group list up to date. Returns the number of cells cleared.
    ///
    /// # Panics
    /// When `index >= group_count()`.
    pub fn tap_group(&mut self, index: usize) -> usize {
        let group = self.groups[index];
        let span = Span {
            lo: usize::from(group.lo),
            hi: usize::from(group.hi),
        };
        let start = group.start as usize;
        let mut members = self.members;
        members[span.lo..=span.hi]
            .copy_from_slice(&self.words[start..start + span.hi - span.lo + 1]);
        // Dirty cells: bit `r` of column `c` is dirty when `r >= dirty[c]` (64: clean). A
        // touched column changes from its lowest cleared cell up; one cell around it is dirty.
        let columns_before = self.game.columns();
        let mut dirty = [64u32; 64];
        for col in span.lo..=span.hi {
            if members[col] == 0 {
                continue;
            }
            let lowest = members[col].trailing_zeros();
            dirty[col] = dirty[col].min(lowest.saturating_sub(1));
            if col > 0 {
                dirty[col - 1] = dirty[col - 1].min(lowest);
            }
            if col + 1 < columns_before {
                dirty[col + 1] = dirty[col + 1].min(lowest);
            }
        }
        let first_emptied = (span.lo..=span.hi)
            .find(|&c| members[c] != 0 && members[c].count_ones() == self.game.column_height(c));
        self.game.remove(&members, span, &mut ());
        let from = span.lo.saturating_sub(1);
        let to = match first_emptied {
            Some(first) => {
                // Every column from the first emptied one on may have moved.
                dirty[first.saturating_sub(1)..columns_before].fill(0);
                columns_before - 1
            }
            None => (span.hi + 1).min(columns_before - 1),
        };
        // Keep the groups that hold no dirty cell, compacting their words.
        let mut kept = 0;
        let mut next_word = 0;
        for i in 0..self.groups.len() {
            let mut group = self.groups[i];
            let (lo, hi) = (usize::from(group.lo), usize::from(group.hi));
            let words = group.start as usize..group.start as usize + hi - lo + 1;
            let clean = i != index
                && (hi < from
                    || lo > to
                    || self.words[words.clone()]
                        .iter()
                        .zip(lo..=hi)
                        .all(|(&w, c)| w.checked_shr(dirty[c]).unwrap_or(0) == 0));
            if clean {
                self.words.copy_within(words, next_word);
                group.start = next_word as u32;
                next_word += hi - lo + 1;
                self.groups[kept] = group;
                kept += 1;
            }
        }
        self.groups.truncate(kept);
        self.words.truncate(next_word);
        let columns = self.game.columns();
        if columns > 0 && from < columns {
            self.scan(from, to.min(columns - 1), &dirty);
        }
        group.size.into()
    }

    /// Adds every legal group holding a dirty cell of columns `from..=to` (bit `r` of column
    /// `c` is dirty when `r >= dirty[c]`).
    fn scan(&mut self, from: usize, to: usize, dirty: &[u32; 64]) {
        let min_group = self.min_group.get();
        let game = &self.game;
        let columns = game.columns();
        let mut candidates: ColumnMask = [0; 64];
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
                    let mut size = 0;
                    for c in span.lo..=span.hi {
                        size += self.members[c].count_ones() as usize;
                        candidates[c] &= !self.members[c];
                    }
                    if size >= min_group {
                        self.groups.push(Tracked {
                            slot: slot as u8,
                            lo: span.lo as u8,
                            hi: span.hi as u8,
                            size: size as u16,
                            start: self.words.len() as u32,
                        });
                        self.words
                            .extend_from_slice(&self.members[span.lo..=span.hi]);
                    }
                    self.members[span.lo..=span.hi].fill(0);
                }
            }
        }
    }
}
