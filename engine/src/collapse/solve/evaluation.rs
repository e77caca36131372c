//! What the beam search of [`SolveMethod::Beam`](super::SolveMethod::Beam) needs of a
//! position ([`BeamGame`], for both representations) and its static evaluation ([`Weights`]):
//! the score so far plus each colour's worth if gathered, less penalties for tiles in no
//! legal group and for colours split into several groups (the formula is in `beam`'s docs).

use crate::collapse::bitboard::CollapseGame;
use crate::collapse::compact::{CompactGame, HASH_SEED, mix_word};
use crate::collapse::plane::Plane;
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;

use super::game::SearchGame;

/// What the beam needs of a position besides [`SearchGame`]: its groups, a tap of one, an
/// evaluation and a hash.
pub(super) trait BeamGame: SearchGame {
    /// A legal group, as the representation taps it fastest.
    type Group: Copy;
    /// Appends every legal group to `out`.
    fn groups_into(&self, min_group: MinGroup, out: &mut Vec<Self::Group>);
    /// Taps `group` (one of this position's); returns its size.
    fn tap_group(&mut self, group: Self::Group, min_group: MinGroup) -> usize;
    /// The representative of `group` (one of this position's), as the line names it.
    fn representative(&self, group: Self::Group) -> Position;
    /// The static estimate of the module docs, or `None` when no group has `min_group` cells
    /// (the game is over): one pass over the colours answers both.
    fn open_estimate(&self, evaluation: &Evaluation, min_group: MinGroup) -> Option<i64>;
    /// A 64-bit hash of the board, [`SolveMethod::Beam`](super::SolveMethod::Beam)'s: with
    /// the tile count mixed in first, as in its first version (some distinct boards collide by
    /// construction; the answers it gives are kept).
    fn fingerprint(&self) -> u64;
    /// A 64-bit hash of the board alone (distinct boards collide with odds of about 2^-64),
    /// [`SolveMethod::TabuBeam`](super::SolveMethod::TabuBeam)'s.
    fn lane_fingerprint(&self) -> u64;
    /// The bytes one state takes, heap included.
    fn state_bytes(&self) -> usize;
    /// True when some group has at least `min_group` cells.
    fn has_group(&self, min_group: MinGroup) -> bool;
}

impl BeamGame for CompactGame {
    type Group = Plane;

    fn groups_into(&self, min_group: MinGroup, out: &mut Vec<Plane>) {
        CompactGame::groups_into(self, min_group.get(), out);
    }

    fn tap_group(&mut self, group: Plane, _: MinGroup) -> usize {
        CompactGame::tap_group(self, group)
    }

    fn representative(&self, group: Plane) -> Position {
        CompactGame::representative(self, group)
    }

    fn open_estimate(&self, evaluation: &Evaluation, min_group: MinGroup) -> Option<i64> {
        let (weights, rule) = (evaluation.weights, evaluation.rule);
        if min_group != MinGroup::DEFAULT {
            if !self.has_legal_group(min_group) {
                return None;
            }
            let colours = |visit: &mut dyn FnMut(u32, u32, u32)| {
                self.tally_colours(min_group.get(), visit);
            };
            return Some(if weights.tabu.is_some() {
                let mut tally = TabuTally::new(evaluation);
                colours(&mut |tiles, grouped, groups| {
                    let loose = tiles - grouped;
                    tally.add(tiles, loose, (groups + loose) as i32);
                });
                tally.estimate()
            } else {
                let mut tally = Tally::default();
                colours(&mut |tiles, grouped, groups| tally.add(rule, tiles, grouped, groups));
                tally.estimate(weights)
            });
        }
        if weights.tabu.is_some() {
            // Components (singletons included) by their Euler number, no flood fill.
            let mut tally = TabuTally::new(evaluation);
            let mut paired_tiles = 0;
            self.colour_census(|tiles, paired, components| {
                paired_tiles += paired;
                tally.add(tiles, tiles - paired, components);
            });
            return (paired_tiles > 0).then(|| tally.estimate());
        }
        // With pairs legal: the groups counted by their Euler number (module docs).
        let mut potential = 0i64;
        let (grouped, euler, grouped_colours) =
            self.pair_census(|tiles| potential += rule.move_score(tiles as usize) as i64);
        if grouped_colours == 0 {
            return None;
        }
        let groups = euler.max(grouped_colours as i32);
        let tally = Tally {
            potential,
            loose: self.tiles_left() as i64 - i64::from(grouped),
            fragments: i64::from(groups) - i64::from(grouped_colours),
        };
        Some(tally.estimate(weights))
    }

    fn fingerprint(&self) -> u64 {
        CompactGame::fingerprint(self)
    }

    fn lane_fingerprint(&self) -> u64 {
        CompactGame::lane_fingerprint(self)
    }

    fn state_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
    }

    fn has_group(&self, min_group: MinGroup) -> bool {
        self.has_legal_group(min_group)
    }
}

impl BeamGame for CollapseGame {
    type Group = Position;

    fn groups_into(&self, min_group: MinGroup, out: &mut Vec<Position>) {
        self.moves_into(min_group, out);
    }

    fn tap_group(&mut self, group: Position, min_group: MinGroup) -> usize {
        self.play(group, min_group)
    }

    fn representative(&self, group: Position) -> Position {
        group
    }

    fn open_estimate(&self, evaluation: &Evaluation, min_group: MinGroup) -> Option<i64> {
        let (weights, rule) = (evaluation.weights, evaluation.rule);
        // At most 16 colours: no allocation per evaluated child.
        let mut tallies = [(0u32, 0u32, 0u32); 16];
        let tallies = &mut tallies[..self.slot_count()];
        for (slot, tally) in tallies.iter_mut().enumerate() {
            tally.0 = self.slot_tiles(slot);
        }
        let mut any = false;
        self.scan_groups(min_group.get(), |slot, _, _, size| {
            tallies[slot].1 += size as u32;
            tallies[slot].2 += 1;
            any = true;
            true
        });
        if !any {
            return None;
        }
        if weights.tabu.is_some() {
            let mut tally = TabuTally::new(evaluation);
            for &mut (tiles, grouped, groups) in tallies {
                let loose = tiles - grouped;
                tally.add(tiles, loose, (groups + loose) as i32);
            }
            return Some(tally.estimate());
        }
        let mut tally = Tally::default();
        for &mut (tiles, grouped, groups) in tallies {
            tally.add(rule, tiles, grouped, groups);
        }
        Some(tally.estimate(weights))
    }

    fn fingerprint(&self) -> u64 {
        column_hash(self, HASH_SEED ^ self.tiles_left() as u64)
    }

    fn lane_fingerprint(&self) -> u64 {
        column_hash(self, HASH_SEED)
    }

    fn state_bytes(&self) -> usize {
        std::mem::size_of::<Self>() + 8 * self.width() * self.slot_count()
    }

    fn has_group(&self, min_group: MinGroup) -> bool {
        self.has_legal_group(min_group)
    }
}

/// The evaluation's weights (module docs), in the rule's score units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Weights {
    /// Percent of `sum_k move_score(c_k)` counted (of the colours other than the tabu one
    /// when `tabu` is set).
    potential: i64,
    /// Penalty per loose tile (of the other colours when `tabu` is set).
    loose: i64,
    /// Penalty per legal group beyond the first of a colour; when `tabu` is set, per
    /// component (loose tiles included) beyond the first of each other colour.
    fragment: i64,
    /// The tabu-colour evaluation: the colour with the most tiles is counted apart, as
    /// `(percent of its move score, penalty per component beyond its first)`.
    tabu: Option<(i64, i64)>,
}

impl Weights {
    /// The weights [`SolveMethod::Beam`](super::SolveMethod::Beam) uses for `rule`.
    pub(super) fn for_rule(rule: ScoringRule) -> Self {
        match rule {
            ScoringRule::PopStar => Self {
                potential: 80,
                loose: 100,
                fragment: 300,
                tabu: None,
            },
            ScoringRule::SameGame | ScoringRule::BubbleBreaker => Self {
                potential: 80,
                loose: 20,
                fragment: 60,
                tabu: None,
            },
            ScoringRule::Clickomania => Self {
                potential: 0,
                loose: 2,
                fragment: 1,
                tabu: None,
            },
        }
    }

    /// The tabu-colour weights of [`SolveMethod::TabuBeam`](super::SolveMethod::TabuBeam),
    /// tuned on the 20 standard SameGame positions (docs/solver.md): the beam's own totals at
    /// widths 500 to 2000, then checked with the refinement passes.
    pub(super) const TABU_COLOUR: Self = Self {
        potential: 13,
        loose: 10,
        fragment: 10,
        tabu: Some((100, 27)),
    };

    /// True for the tabu-colour evaluation.
    pub(super) fn tabu_colour(self) -> bool {
        self.tabu.is_some()
    }

    /// These weights with every one but the tabu colour's percent scaled by its own factor
    /// drawn from `rng`, uniform in `[2/3, 3/2]`: another evaluation of the same kind.
    pub(super) fn perturbed(self, rng: &mut crate::SeededRng) -> Self {
        use rand::Rng;
        let mut scale = |weight: i64| weight * rng.random_range(200..=450) / 300;
        Self {
            potential: scale(self.potential),
            loose: scale(self.loose),
            fragment: scale(self.fragment),
            tabu: self
                .tabu
                .map(|(percent, fragment)| (percent, scale(fragment))),
        }
    }
}

/// `game`'s column planes, column by column and colour by colour, chained from `seed` by
/// [`mix_word`].
fn column_hash(game: &CollapseGame, seed: u64) -> u64 {
    let words = (0..game.columns())
        .flat_map(|col| (0..game.slot_count()).map(move |slot| game.plane(col, slot)));
    words.fold(seed, mix_word)
}

/// Tile counts whose colour terms [`Evaluation`] tabulates: every colour of a board of at most
/// 16x16 cells.
const TABULATED_TILES: usize = 257;

/// A beam's evaluation: its [`Weights`] under a rule, with the colour terms that need a move
/// score tabulated by tile count (read for boards of at most 16x16, computed beyond).
#[derive(Clone, Debug)]
pub(super) struct Evaluation {
    weights: Weights,
    rule: ScoringRule,
    /// For `n` tiles: `potential% * move_score(n)` and `tabu% * move_score(n)` (0 without a
    /// tabu colour), each divided by 100 as the estimate rounds them.
    worths: Box<[(i64, i64); TABULATED_TILES]>,
}

impl Evaluation {
    /// The evaluation with `weights` under `rule`.
    pub(super) fn new(weights: Weights, rule: ScoringRule) -> Self {
        let mut worths = Box::new([(0, 0); TABULATED_TILES]);
        for (tiles, worth) in worths.iter_mut().enumerate() {
            *worth = Self::worths_of(weights, rule, tiles as u32);
        }
        Self {
            weights,
            rule,
            worths,
        }
    }

    /// Its weights.
    pub(super) fn weights(&self) -> Weights {
        self.weights
    }

    fn worths_of(weights: Weights, rule: ScoringRule, tiles: u32) -> (i64, i64) {
        let worth = rule.move_score(tiles as usize) as i64;
        let (tabu_percent, _) = weights.tabu.unwrap_or_default();
        (weights.potential * worth / 100, tabu_percent * worth / 100)
    }

    /// The colour terms of a colour of `tiles` tiles (see `worths`).
    #[inline]
    fn worths(&self, tiles: u32) -> (i64, i64) {
        match self.worths.get(tiles as usize) {
            Some(&worths) => worths,
            None => Self::worths_of(self.weights, self.rule, tiles),
        }
    }
}

/// The tabu-colour estimate summed over the colours as they come: the one with the most tiles
/// (the first on a tie) is counted apart from the others.
#[derive(Clone, Copy, Debug)]
struct TabuTally<'a> {
    evaluation: &'a Evaluation,
    /// Every colour so far counted as one of the others.
    others: i64,
    /// The colour with the most tiles so far: `(tiles, its term as one of the others, its term
    /// as the tabu colour)`.
    tabu: Option<(u32, i64, i64)>,
}

impl<'a> TabuTally<'a> {
    /// No colour yet, under `evaluation` (tabu-colour weights).
    fn new(evaluation: &'a Evaluation) -> Self {
        Self {
            evaluation,
            others: 0,
            tabu: None,
        }
    }

    /// Adds a colour of `tiles` tiles, `loose` of them in no legal group, in `components`
    /// components (singletons included).
    #[inline]
    fn add(&mut self, tiles: u32, loose: u32, components: i32) {
        if tiles == 0 {
            return;
        }
        let Weights {
            loose: per_loose,
            fragment,
            tabu,
            ..
        } = self.evaluation.weights;
        let (_, tabu_fragment) = tabu.unwrap_or_default();
        let (other_worth, tabu_worth) = self.evaluation.worths(tiles);
        let extra = i64::from(components.max(1) - 1);
        let other = other_worth - per_loose * i64::from(loose) - fragment * extra;
        self.others += other;
        if self.tabu.is_none_or(|(most, _, _)| tiles > most) {
            let as_tabu = tabu_worth - tabu_fragment * extra;
            self.tabu = Some((tiles, other, as_tabu));
        }
    }

    /// The estimate: `tabu% * move_score(c_t) - tabu_fragment * (components_t - 1)` for the
    /// tabu colour `t`, plus over the others `potential% * move_score(c_k) - loose * o_k -
    /// fragment * (components_k - 1)`.
    fn estimate(self) -> i64 {
        self.tabu
            .map_or(0, |(_, other, as_tabu)| self.others - other + as_tabu)
    }
}

/// The evaluation's terms summed over the colours.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// `sum_k move_score(c_k)`.
    potential: i64,
    /// Tiles in no legal group.
    loose: i64,
    /// `sum_k max(0, g_k - 1)`.
    fragments: i64,
}

impl Tally {
    /// Adds a colour of `tiles` tiles, `grouped` of them in its `groups` legal groups.
    fn add(&mut self, rule: ScoringRule, tiles: u32, grouped: u32, groups: u32) {
        if tiles > 0 {
            self.potential += rule.move_score(tiles as usize) as i64;
            self.loose += i64::from(tiles - grouped);
            self.fragments += i64::from(groups.saturating_sub(1));
        }
    }

    /// The static estimate.
    fn estimate(self, weights: Weights) -> i64 {
        weights.potential * self.potential / 100
            - weights.loose * self.loose
            - weights.fragment * self.fragments
    }
}
