//! [`SearchGame`]: what the search needs of a position, for the two representations (the
//! 256-bit planes of [`CompactGame`] up to 16x16, the column bitboards of [`CollapseGame`]
//! for any size), with the TabuColorRandom playout of each.

use rand::Rng;

use crate::collapse::bitboard::{CollapseGame, TapGroup};
use crate::collapse::compact::{CompactGame, KnownGroups};
use crate::collapse::playout::CollapsePlayout;
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;

/// A position the search can expand and play out.
pub(super) trait SearchGame: Clone {
    /// An exact key of the position, for the table of positions the clear search has
    /// exhausted.
    type Key: std::hash::Hash + Eq;
    /// Appends a cell of every legal group to `out`.
    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>);
    /// Taps the legal group holding `at`; returns its size.
    fn play(&mut self, at: Position, min_group: MinGroup) -> usize;
    /// Tiles on the board.
    fn tiles_left(&self) -> usize;
    /// The first colour with `1..min_group` tiles and its tile count: such tiles can never
    /// be cleared.
    fn stranded_color(&self, min_group: MinGroup) -> Option<(u8, usize)>;
    /// Tiles with no 4-neighbour of their colour (the clear search's move order), or 0 where
    /// the representation does not count them.
    fn orphan_count(&self) -> usize;
    /// The position's exact key, or `None` where positions are not tabled (large boards).
    fn key(&self) -> Option<Self::Key>;
    /// The memory one entry of `key()` takes in a hash set: the key, its heap data and the
    /// set's control byte.
    fn key_bytes(&self) -> usize;
    /// Plays a (TabuColorRandom when `tabu`) random game to its end, appending the taps to
    /// `taps`; returns the score of the taps plus the end adjustment. Leaves `self` anywhere.
    fn playout(
        &mut self,
        rule: ScoringRule,
        min_group: MinGroup,
        tabu: bool,
        rng: &mut crate::SeededRng,
        taps: &mut Vec<Position>,
    ) -> i64;
}

impl SearchGame for CompactGame {
    type Key = Box<[crate::collapse::plane::Plane]>;

    fn stranded_color(&self, min_group: MinGroup) -> Option<(u8, usize)> {
        CompactGame::stranded_color(self, min_group.get())
    }

    fn orphan_count(&self) -> usize {
        CompactGame::orphan_count(self)
    }

    fn key(&self) -> Option<Self::Key> {
        Some(self.planes_key())
    }

    fn key_bytes(&self) -> usize {
        std::mem::size_of::<Self::Key>() + self.planes_key_bytes() + 1
    }

    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>) {
        self.representatives_into(min_group.get(), out);
    }

    fn play(&mut self, at: Position, _: MinGroup) -> usize {
        self.tap_at(at)
    }

    fn tiles_left(&self) -> usize {
        CompactGame::tiles_left(self)
    }

    fn playout(
        &mut self,
        rule: ScoringRule,
        min_group: MinGroup,
        tabu: bool,
        rng: &mut crate::SeededRng,
        taps: &mut Vec<Position>,
    ) -> i64 {
        let tabu = if tabu {
            self.most_frequent_slot()
        } else {
            None
        };
        let mut score = 0;
        let mut known = KnownGroups::new();
        while let Some(TapGroup { position, size, .. }) =
            self.tap_random_avoiding(min_group, tabu, rng, &mut known)
        {
            taps.push(position);
            score += rule.move_score(size) as i64;
        }
        score + rule.end_bonus(CompactGame::tiles_left(self))
    }
}

impl SearchGame for CollapseGame {
    type Key = ();

    fn stranded_color(&self, min_group: MinGroup) -> Option<(u8, usize)> {
        (0..self.slot_count()).find_map(|slot| {
            let tiles = self.slot_tiles(slot) as usize;
            (tiles > 0 && tiles < min_group.get()).then(|| (self.color_of(slot), tiles))
        })
    }

    fn orphan_count(&self) -> usize {
        0
    }

    fn key(&self) -> Option<Self::Key> {
        None
    }

    fn key_bytes(&self) -> usize {
        0
    }

    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>) {
        let mut groups = Vec::new();
        self.legal_groups_into(min_group, &mut groups);
        out.extend(groups.iter().map(|g| g.position));
    }

    fn play(&mut self, at: Position, min_group: MinGroup) -> usize {
        self.apply_tap(at, min_group).unwrap_or(0)
    }

    fn tiles_left(&self) -> usize {
        CollapseGame::tiles_left(self)
    }

    fn playout(
        &mut self,
        rule: ScoringRule,
        min_group: MinGroup,
        tabu: bool,
        rng: &mut crate::SeededRng,
        taps: &mut Vec<Position>,
    ) -> i64 {
        // The tabu colour: the most tiles, the lowest colour on a tie.
        let tabu = tabu
            .then(|| {
                (0..self.slot_count())
                    .map(|slot| (self.slot_tiles(slot), std::cmp::Reverse(slot)))
                    .max()
                    .map(|(_, std::cmp::Reverse(slot))| self.color_of(slot))
            })
            .flatten();
        let mut game = CollapsePlayout::new(self.clone(), min_group);
        let mut score = 0;
        while game.group_count() > 0 {
            // Uniform among the groups of the other colours, among all only when every legal
            // group has the tabu colour. Rejection first (up to 16 draws, each uniform, so an
            // accepted draw is uniform among the allowed groups), then an exact scan: the
            // draw stays uniform among the allowed groups either way, as on CompactGame.
            let count = game.group_count();
            let mut index = rng.random_range(0..count);
            let mut tries = 0;
            while tabu.is_some() && Some(game.group(index).color) == tabu && tries < 16 {
                index = rng.random_range(0..count);
                tries += 1;
            }
            if tabu.is_some() && Some(game.group(index).color) == tabu {
                let allowed: Vec<usize> = (0..count)
                    .filter(|&i| Some(game.group(i).color) != tabu)
                    .collect();
                if !allowed.is_empty() {
                    index = allowed[rng.random_range(0..allowed.len())];
                }
            }
            taps.push(game.group(index).position);
            score += rule.move_score(game.tap_group(index)) as i64;
        }
        score + rule.end_bonus(game.game().tiles_left())
    }
}
