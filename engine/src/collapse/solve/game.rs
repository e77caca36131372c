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
    /// Appends a cell of every legal group to `out`.
    fn moves_into(&self, min_group: MinGroup, out: &mut Vec<Position>);
    /// Taps the legal group holding `at`; returns its size.
    fn play(&mut self, at: Position, min_group: MinGroup) -> usize;
    /// Tiles on the board.
    fn tiles_left(&self) -> usize;
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
                    .map(|slot| {
                        let tiles: u32 = (0..self.columns())
                            .map(|col| self.plane(col, slot).count_ones())
                            .sum();
                        (tiles, std::cmp::Reverse(slot))
                    })
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
