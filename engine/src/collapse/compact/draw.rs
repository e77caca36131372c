//! Random taps on a [`CompactGame`]: a legal group drawn uniformly ([`CompactGame::tap_random`])
//! or TabuColorRandom, as the search's playouts draw ([`CompactGame::tap_random_avoiding`],
//! with the groups a playout has already flooded in [`KnownGroups`]).

use rand::Rng;

use crate::collapse::bitboard::TapGroup;
use crate::collapse::plane::Plane;
use crate::params::MinGroup;

use super::CompactGame;

/// A group a draw picked: plane `slot`, the cell `index` drawn in it (see [`Plane`]) and all
/// its cells, as the board is before the tap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Drawn {
    slot: usize,
    index: u32,
    members: Plane,
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
pub(crate) struct KnownGroups {
    /// `(slot, members)`; the first `len` entries are in use.
    groups: [(usize, Plane); KNOWN_GROUPS],
    len: usize,
    /// Where the next group goes when all entries are in use.
    next: usize,
    /// Scratch of one draw: the paired cells of each plane it draws from.
    paired: [Plane; 16],
}

impl KnownGroups {
    /// No groups known: the state at the start of a playout.
    pub(crate) fn new() -> Self {
        Self {
            groups: [(0, Plane::EMPTY); KNOWN_GROUPS],
            len: 0,
            next: 0,
            paired: [Plane::EMPTY; 16],
        }
    }

    /// The known group of `plane` (plane `slot` of the board as it is now) holding cell
    /// `index`, if one is still a group: its cells all still in `plane` and no cell of `plane`
    /// beside them. A group is a connected set of cells, so such a set is still exactly one
    /// group. Known groups found to be stale on the way are dropped.
    #[inline]
    fn find(&mut self, slot: usize, plane: Plane, index: u32) -> Option<Plane> {
        let mut i = 0;
        while i < self.len {
            let (s, members) = self.groups[i];
            if s == slot && members.contains(index) {
                let outside = members.neighbours() & plane & !members;
                if (members & !plane).is_empty() && outside.is_empty() {
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
    fn note(&mut self, slot: usize, members: Plane) {
        if self.len < KNOWN_GROUPS {
            self.groups[self.len] = (slot, members);
            self.len += 1;
        } else {
            self.groups[self.next] = (slot, members);
            self.next = (self.next + 1) % KNOWN_GROUPS;
        }
    }
}

impl CompactGame {
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
            self.draw_pairwise_among(None, rng, None)?
        } else {
            self.draw_counted_avoiding(min_group.get(), None, rng)?
        };
        Some(self.tap_drawn(drawn))
    }

    /// The slot of the colour with the most tiles (the lowest slot on a tie), or `None` on an
    /// empty board: the tabu colour of a TabuColorRandom playout.
    pub(crate) fn most_frequent_slot(&self) -> Option<usize> {
        let mut best: Option<(usize, u32)> = None;
        for (slot, &plane) in self.planes().iter().enumerate() {
            let n = plane.count();
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
    pub(crate) fn tap_random_avoiding<R: Rng + ?Sized>(
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
                .or_else(|| self.draw_counted_avoiding(min_group.get(), None, rng))
        };
        Some(self.tap_drawn(drawn?))
    }

    /// Taps the group a draw returned: removes it and returns it as it was before the tap (the
    /// drawn cell, its colour and size).
    #[inline]
    fn tap_drawn(&mut self, drawn: Drawn) -> TapGroup {
        let group = TapGroup {
            position: self.position(drawn.index),
            color: self.palette[drawn.slot],
            size: drawn.members.count() as usize,
        };
        self.remove(drawn.members);
        group
    }

    /// The rejection draw for groups of two or more over every plane but `tabu` (all planes
    /// when `None`), looking the drawn cell up in `known` (when given) before flooding it and
    /// noting there the groups it rejects; `None` when those planes have no group of two or
    /// more.
    fn draw_pairwise_among<R: Rng + ?Sized>(
        &self,
        tabu: Option<usize>,
        rng: &mut R,
        mut known: Option<&mut KnownGroups>,
    ) -> Option<Drawn> {
        // `before[slot]`: the paired cells of the planes drawn from before plane `slot`.
        let mut before = [0u32; 16];
        let mut total = 0;
        for (slot, &plane) in self.planes().iter().enumerate() {
            before[slot] = total;
            if Some(slot) != tabu {
                let cells = plane.paired();
                if let Some(known) = known.as_deref_mut() {
                    known.paired[slot] = cells;
                }
                total += cells.count();
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
            let cells = match known.as_deref() {
                Some(known) => known.paired[slot],
                None => self.planes[slot].paired(),
            };
            let index = cells.nth(index - before[slot]);
            let plane = self.planes[slot];
            let found = known
                .as_deref_mut()
                .and_then(|k| k.find(slot, plane, index));
            let members = found.unwrap_or_else(|| plane.group_of(Plane::single(index)));
            let size = members.count();
            if size == 2 || rng.random_range(0..size) < 2 {
                return Some(Drawn {
                    slot,
                    index,
                    members,
                });
            }
            if let (None, Some(known)) = (found, known.as_deref_mut()) {
                known.note(slot, members);
            }
        }
    }

    /// The counted draw over every plane but `tabu` (all planes when `None`): the `k`-th legal
    /// group of those planes, `k` uniform, and its first cell column-major; `None` when those
    /// planes have no legal group.
    fn draw_counted_avoiding<R: Rng + ?Sized>(
        &self,
        min_group: usize,
        tabu: Option<usize>,
        rng: &mut R,
    ) -> Option<Drawn> {
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
            drawn = Some(Drawn {
                slot,
                index: seed.first().expect("a group's seed is a cell"),
                members,
            });
            false
        });
        drawn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::collapse::bitboard::CollapseGame;
    use crate::settled::SettledBoard;

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
                        planes[slot].paired().count()
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
                let cells = planes[slot].paired();
                let cell = (0..256)
                    .filter(|&i| cells.contains(i))
                    .nth(index as usize)
                    .expect("index below the count");
                let members = planes[slot].group_of(Plane::single(cell));
                let size = members.count();
                if size == 2 || rng.random_range(0..size) < 2 {
                    return Some(Drawn {
                        slot,
                        index: cell,
                        members,
                    });
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

    /// `tap_random` draws every legal group equally often, whatever its size, by rejection
    /// (min_group 2) and by counting (min_group 3).
    #[test]
    fn clone_from_copies_every_used_plane() {
        // Positions with more and fewer colours than the target, and taps of each: the copy
        // equals the source whatever the target held before.
        let games: Vec<CompactGame> = ["ABCDE/EDCBA/ABCDE", "AB/BA", "AABB/CCDD/EEFF/GGHH", "A"]
            .iter()
            .map(|text| {
                let board = Board::parse(text).unwrap();
                CompactGame::from_cells(&board).expect("at most 16x16")
            })
            .flat_map(|game| {
                let mut tapped = game.clone();
                let mut groups = Vec::new();
                tapped.groups_into(2, &mut groups);
                if let Some(&group) = groups.first() {
                    tapped.tap_group(group);
                }
                [game, tapped]
            })
            .collect();
        for source in &games {
            for target in &games {
                let mut copy = target.clone();
                copy.clone_from(source);
                assert_eq!(&copy, source);
            }
        }
    }

    #[test]
    fn draws_are_uniform() {
        // Groups: A (2 cells), B (6 cells), C (3 cells); min_group 3 leaves B and C.
        let board = SettledBoard::try_from(Board::parse("ABBB/ABBB/CCCD").unwrap()).unwrap();
        let start = CompactGame::new(&CollapseGame::new(&board)).unwrap();
        let cells = board.board().cells();
        let (a, b, c) = (cells[0], cells[1], cells[8]);
        let mut rng = crate::rng_from_seed(7);
        for (min, colours) in [(2, vec![a, b, c]), (3, vec![b, c])] {
            let min_group = MinGroup::parse(min).unwrap();
            let draws = 30_000;
            let mut seen = [0usize; 17];
            for _ in 0..draws {
                let tapped = start.clone().tap_random(min_group, &mut rng).unwrap();
                seen[usize::from(tapped.color)] += 1;
            }
            let share = draws / colours.len();
            for &colour in &colours {
                let n = seen[usize::from(colour)];
                // About six standard deviations of the binomial count (~82 and ~87 draws).
                assert!(n.abs_diff(share) < share / 20, "min {min}: {seen:?}");
            }
            assert_eq!(seen.iter().sum::<usize>(), draws);
        }
    }
}
