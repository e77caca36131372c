//! [`SolveMethod::Beam`](super::SolveMethod::Beam) and
//! [`SolveMethod::TabuBeam`](super::SolveMethod::TabuBeam): a beam search with a static
//! evaluation and duplicate merging, then refinement passes along the best line.
//!
//! **One beam.** Layer by layer from the starting board, every state of the beam is expanded
//! by every legal group (one tap each). A child with no legal group is a finished game, scored
//! with the rule's end adjustment and kept if it beats the best so far. Children with equal
//! boards are merged into the one with the highest score so far (the earliest on a tie), by a
//! 64-bit hash of the board (a collision would drop a state, never give a wrong line): under
//! [`SolveMethod::TabuBeam`](super::SolveMethod::TabuBeam) a hash of the planes alone (two
//! distinct boards share one with odds of about 2^-64 a pair); under
//! [`SolveMethod::Beam`](super::SolveMethod::Beam) its first version's hash, which mixes in
//! the tile count first and so lets a few distinct endgame boards collide by construction,
//! kept so that its answers stay the same. A child whose hash the layer holds is estimated
//! only when it replaces the kept one. The `width` children of highest
//! evaluation (the earliest generated on a tie) form the next layer. The beam ends when no
//! state is left. This is the classic beam search of single-player games with transposition
//! merging (as in D. Schadd's and Cazenave's SameGame work, and the PopStar baseline of
//! `benches/popstar_beam.rs`, whose evaluation this one is).
//!
//! **Evaluation** of a state: its score so far plus a static estimate of what is still to
//! come, from each colour `k`'s tiles `c_k`, its legal groups `g_k` and its loose tiles `o_k`
//! (tiles in no legal group):
//!
//! ```text
//! estimate = potential% * sum_k move_score(c_k)    each colour's worth if gathered in one group
//!          - loose * sum_k o_k                      loose tiles are hard to gather, often left
//!          - fragment * sum_k max(0, g_k - 1)       a colour split into several groups
//! ```
//!
//! The weights depend on the rule ([`Weights::for_rule`]): PopStar's were tuned on the 8
//! PopStar boards of `collapse generate --seed 1..8` (docs/solver.md), SameGame's and Bubble
//! Breaker's are scaled to their move scores, and Clickomania (tiles cleared) counts loose
//! tiles only.
//!
//! **The tabu-colour estimate** ([`SolveMethod::TabuBeam`](super::SolveMethod::TabuBeam),
//! [`Weights::TABU_COLOUR`]) is SameGame's. Its best games keep the colour with the
//! most tiles for one large group near the end (the idea behind the TabuColorRandom playouts
//! of Schadd et al. 2008, which the NMCS here plays), and only that colour is likely to be
//! gathered whole. So the colour `t` with the most tiles (the first on a tie) is counted apart,
//! with `m_k` the components of colour `k` (loose tiles included):
//!
//! ```text
//! estimate = 100% * move_score(c_t) - 27 * (m_t - 1)          the tabu colour, gathered
//!          + sum_{k != t} (13% * move_score(c_k)               the others, partly gathered
//!                          - 10 * o_k - 10 * (m_k - 1))
//! ```
//!
//! tuned on the 20 standard SameGame positions (docs/solver.md; other rules get the same
//! weights, untuned). The components are counted
//! by each colour's Euler number with `min_group` 2 on boards of at most 16x16, else as
//! `g_k + o_k` by flood fill.
//!
//! With `min_group` 2 on boards of at most 16x16 the groups are counted by the Euler number of
//! the paired tiles, summed over the colours (see `CompactGame::pair_census`): the fragment
//! term is then `max(sum_k euler_k, G) - G` for the `G` colours with a group, which is the
//! formula above except that a group enclosing a hole counts one less. Larger boards and
//! larger `min_group` count the groups by flood fill.
//!
//! **Refinement.** A pass walks the best line from the start; at each of its positions every
//! legal tap is followed by a beam of `r` states from the child, and the line switches to any
//! better game found (a level-1 nested search with beams in place of playouts).
//!
//! **Schedule.** One beam of the requested width `w` (under the tabu-colour estimate with
//! [`SolveSchedule::Restarts`](super::SolveSchedule::Restarts): [`TABU_FIRST_BEAMS`] beams of
//! width `w`, the first with the tuned weights, the others each with weights scaled by
//! factors drawn from the seed's stream, the passes then with the weights of the beam that
//! found the best game), then passes with `r` the powers of the refinement factor `f` from
//! the first that is at least 8 until one is at least `w / 8`, then doubling (`r = 8,
//! 16, 32, ...` at `f = 2`; `16, 64, 256, 512, ...` at 4 with `w = 2000`; above 2 a pass
//! that would not fit in the node budget left is narrowed to one that would, see
//! [`RefineFactor`](super::RefineFactor)):
//! [`SolveSchedule::Single`](super::SolveSchedule::Single) up to `w / 8`,
//! [`SolveSchedule::Restarts`](super::SolveSchedule::Restarts) until a limit or the width cap.
//! Thread `i` of `n` scales every width by `(n + i) / n`. The widths are capped at
//! [`MAX_BEAM_WIDTH`] and by [`LAYER_BYTES`] of states; a layer's children at
//! [`MAX_LAYER_CHILDREN`] (the lowest-ranked states of a layer are then not expanded).
//!
//! **Limits** are checked before each state is expanded. A stopped beam finishes its best
//! state of the current layer with one TabuColorRandom playout (drawn from the seed's stream,
//! which otherwise only draws the perturbed weights of the tabu-colour estimate's first beams)
//! and keeps the better of that game and the best finished one, so the answer is always a
//! whole game and the budget is overshot by at most one state's children, a layer's width and
//! one playout. With a node budget the answer is the same on every run.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Duration;

use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;

use super::evaluation::{BeamGame, Evaluation, Weights};
use super::options::{
    BeamOptions, MAX_BEAM_WIDTH, RefineFactor, SolveControl, SolveOptions, SolveSchedule,
};
use super::{Effort, SolveStop};

/// Memory the states of one layer may take, in bytes; caps the width on large boards.
const LAYER_BYTES: usize = 32 << 20;

/// Most children of one layer kept for the merge and the cut (40 bytes each, plus the merge
/// table): bounds a layer's memory whatever the boards' group counts.
const MAX_LAYER_CHILDREN: usize = 1 << 20;

/// A hasher for keys that are already hashes.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// A state of a layer.
struct State<G> {
    game: G,
    /// Move scores so far.
    score: i64,
    /// Its taps: an index into [`Search::links`], or [`ROOT`].
    link: u32,
}

/// A child before the merge and the cut.
#[derive(Clone, Copy)]
struct Child {
    eval: i64,
    score: i64,
    /// Index of its parent in the layer.
    parent: u32,
    at: Position,
}

/// The taps of the starting board: none.
const ROOT: u32 = u32::MAX;

/// The state of the whole beam search.
struct Search<'c> {
    rule: ScoringRule,
    min_group: MinGroup,
    evaluation: Evaluation,
    /// Merge children by [`BeamGame::lane_fingerprint`] (else by the first version's
    /// [`BeamGame::fingerprint`]).
    lane_hash: bool,
    control: &'c SolveControl<'c>,
    max_nodes: u64,
    nodes: u64,
    stop: Option<SolveStop>,
    /// Parent links of every state kept: `(parent link, tap)`.
    links: Vec<(u32, Position)>,
    best: Option<(i64, Vec<Position>)>,
    /// Draws the playout that finishes a stopped beam.
    rng: crate::SeededRng,
}

/// First beams run with [`SolveSchedule::Restarts`] under the tabu-colour evaluation: the
/// first with [`Weights::TABU_COLOUR`], the others with perturbed ones
/// ([`Weights::perturbed`]). A single beam's answer swings by a tenth between neighbouring
/// weights, so the best of a few differently weighted beams is a better first line: on the 20
/// standard positions the best of six width-2000 beams under different weightings totalled
/// 63,247, against 51,373-58,673 for each alone and 62,883 for one beam of 16,000
/// (docs/solver.md); the method runs eight.
const TABU_FIRST_BEAMS: usize = 8;

/// Runs the schedule of the module docs on `root` as thread `thread` of `options.threads`,
/// with the requested `beam` shape, the evaluation's `weights`, and children merged by
/// [`BeamGame::lane_fingerprint`] when `lane_hash` (else by [`BeamGame::fingerprint`]).
pub(super) fn run<G: BeamGame>(
    root: G,
    options: &SolveOptions,
    control: &SolveControl,
    (beam, weights, lane_hash): (BeamOptions, Weights, bool),
    thread: usize,
) -> (Vec<Position>, Effort) {
    let (width, factor) = (beam.width.get(), beam.refine_factor);
    let threads = options.threads.get();
    let mut search = Search {
        rule: options.rule,
        min_group: options.min_group,
        evaluation: Evaluation::new(weights, options.rule),
        lane_hash,
        control,
        max_nodes: options.max_nodes.get(),
        nodes: 0,
        stop: None,
        links: Vec::new(),
        best: None,
        rng: crate::rng_from_seed(options.seed),
    };
    if thread != 0 {
        search.rng.set_stream(thread as u64);
    }
    let cap = (LAYER_BYTES / root.state_bytes()).clamp(1, MAX_BEAM_WIDTH);
    // Thread `i` of `n` scales every width by `(n + i) / n`.
    let spread = |width: usize| (width * (threads + thread) / threads).clamp(1, cap);
    let (mut levels_completed, mut runs_completed) = (0, 0);
    // The tabu-colour evaluation (SameGame) with restarts: first beams with perturbed
    // weights, the passes then with the weights of the beam that found the best game.
    let first_beams = match options.schedule {
        SolveSchedule::Restarts if weights.tabu_colour() => TABU_FIRST_BEAMS,
        _ => 1,
    };
    let mut best_weights = weights;
    for beam in 0..first_beams {
        let before = search.best.as_ref().map(|(score, _)| *score);
        if beam > 0 {
            let perturbed = weights.perturbed(&mut search.rng);
            search.evaluation = Evaluation::new(perturbed, options.rule);
        }
        if !search.beam(&root, spread(width)) {
            break;
        }
        if beam == 0 || search.best.as_ref().map(|(score, _)| *score) > before {
            best_weights = search.evaluation.weights();
        }
        levels_completed = 1;
        runs_completed += 1;
    }
    if best_weights != search.evaluation.weights() {
        search.evaluation = Evaluation::new(best_weights, options.rule);
    }
    if runs_completed == first_beams as u32 {
        let last = match options.schedule {
            SolveSchedule::Single => spread(width / 8),
            SolveSchedule::Restarts => cap,
        };
        let mut refine = factor.first_width();
        // The last complete pass: (its nodes, its width before the thread's spread).
        let mut last_pass: Option<(u64, usize)> = None;
        while spread(refine) <= last {
            // Narrowed only, so still within `last`.
            if factor != RefineFactor::DOUBLING
                && let Some((nodes, last_width)) = last_pass
            {
                let left = search.max_nodes.saturating_sub(search.nodes);
                refine = fitted_width(refine, (nodes, last_width), left);
            }
            let before = search.nodes;
            if !search.refine(&root, spread(refine)) {
                break;
            }
            last_pass = Some((search.nodes - before, refine));
            runs_completed += 1;
            if spread(refine) >= cap {
                break;
            }
            // By the factor until a pass is at least an eighth of the first width (SINGLE stops
            // at the last no wider than that), then by doubling, so that the last pass, which
            // the budget cuts, wastes less of it.
            refine *= if refine >= width / 8 { 2 } else { factor.get() };
        }
    }
    let effort = Effort {
        nodes: search.nodes,
        playouts: 0,
        levels_completed,
        runs_completed,
        elapsed: Duration::ZERO,
        stop: search.stop.unwrap_or(SolveStop::Completed),
    };
    (
        search.best.map(|(_, line)| line).unwrap_or_default(),
        effort,
    )
}

/// The width of the next refinement pass, planned as `width`, after a complete pass of
/// `last_width` states that took `last_nodes` nodes, with `left` nodes of the budget left: when
/// the planned pass would not fit (its cost estimated in proportion to its width), the width
/// whose pass would take 95% of what is left, if that is wider than the last pass; else `width`
/// (a pass the budget then stops part way along the line).
fn fitted_width(width: usize, (last_nodes, last_width): (u64, usize), left: u64) -> usize {
    let per_state = last_nodes as f64 / last_width as f64;
    let left = left as f64;
    if per_state * width as f64 <= left {
        return width;
    }
    let fitted = (left * 95.0 / 100.0 / per_state) as usize;
    if fitted > last_width { fitted } else { width }
}

impl Search<'_> {
    /// True (and the reason recorded) when a limit is reached.
    fn limit_reached(&mut self) -> bool {
        if self.stop.is_none() {
            self.stop = if self.nodes >= self.max_nodes {
                Some(SolveStop::NodeBudget)
            } else {
                self.control.stop_now()
            };
        }
        self.stop.is_some()
    }

    /// The taps from the starting board to `link`, in order.
    fn taps(&self, mut link: u32) -> Vec<Position> {
        let mut taps = Vec::new();
        while link != ROOT {
            let (parent, at) = self.links[link as usize];
            taps.push(at);
            link = parent;
        }
        taps.reverse();
        taps
    }

    /// Records a finished game of `total` points ending with the tap `at` after `link`.
    fn finished(&mut self, total: i64, link: u32, at: Option<Position>) {
        if self.best.as_ref().is_none_or(|(best, _)| total > *best) {
            let mut line = self.taps(link);
            line.extend(at);
            self.best = Some((total, line));
        }
    }

    /// Walks the best line from `root`: at each of its positions, every legal tap is followed
    /// by a beam of `width` from the child, and the line switches to any better game found
    /// (a level-1 nested search with beams for playouts). Returns false when a limit stopped it.
    fn refine<G: BeamGame>(&mut self, root: &G, width: usize) -> bool {
        let (rule, min_group) = (self.rule, self.min_group);
        self.links.clear();
        let (mut position, mut score, mut link) = (root.clone(), 0i64, ROOT);
        let mut groups = Vec::new();
        for step in 0.. {
            groups.clear();
            position.groups_into(min_group, &mut groups);
            if groups.is_empty() {
                return true;
            }
            for &group in &groups {
                if self.limit_reached() {
                    return false;
                }
                let at = position.representative(group);
                let mut game = position.clone();
                let child_score = score + rule.move_score(game.tap_group(group, min_group)) as i64;
                self.nodes += 1;
                if !game.has_group(min_group) {
                    let total = child_score + rule.end_bonus(game.tiles_left());
                    self.finished(total, link, Some(at));
                    continue;
                }
                let links = self.links.len();
                self.links.push((link, at));
                let mut layer = vec![State {
                    game,
                    score: child_score,
                    link: links as u32,
                }];
                let completed = self.beam_from(&mut layer, width);
                self.links.truncate(links);
                if !completed {
                    return false;
                }
            }
            let Some(&next) = self.best.as_ref().and_then(|(_, line)| line.get(step)) else {
                return true;
            };
            score += rule.move_score(position.play(next, min_group)) as i64;
            self.nodes += 1;
            self.links.push((link, next));
            link = (self.links.len() - 1) as u32;
        }
        true
    }

    /// Finishes `state` with one TabuColorRandom playout (uniform under Clickomania) and keeps
    /// the game if it beats the best.
    fn finish_with_playout<G: BeamGame>(&mut self, state: &State<G>) {
        let mut game = state.game.clone();
        let mut taps = Vec::new();
        let tabu = self.rule != ScoringRule::Clickomania;
        let score = game.playout(self.rule, self.min_group, tabu, &mut self.rng, &mut taps);
        self.nodes += taps.len() as u64;
        let total = state.score + score;
        if self.best.as_ref().is_none_or(|(best, _)| total > *best) {
            let mut line = self.taps(state.link);
            line.extend(taps);
            self.best = Some((total, line));
        }
    }

    /// One beam of `width` from `root`. Returns false when a limit stopped it (after finishing
    /// its best state with a playout).
    fn beam<G: BeamGame>(&mut self, root: &G, width: usize) -> bool {
        // The best line is written out when found, so earlier beams' links are not needed.
        self.links.clear();
        let mut layer = vec![State {
            game: root.clone(),
            score: 0,
            link: ROOT,
        }];
        self.beam_from(&mut layer, width)
    }

    fn beam_from<G: BeamGame>(&mut self, layer: &mut Vec<State<G>>, width: usize) -> bool {
        let (rule, min_group) = (self.rule, self.min_group);
        let mut moves = Vec::new();
        let mut children: Vec<Child> = Vec::new();
        let mut merged: HashMap<u64, u32, BuildHasherDefault<PassThrough>> = HashMap::default();
        // The child being built: a copy of its parent, tapped.
        let mut scratch: Option<G> = None;
        while !layer.is_empty() {
            children.clear();
            merged.clear();
            for (index, state) in layer.iter().enumerate() {
                if self.limit_reached() {
                    // The layer is ranked: its first state is the best.
                    self.finish_with_playout(&layer[0]);
                    return false;
                }
                if children.len() >= MAX_LAYER_CHILDREN {
                    break;
                }
                moves.clear();
                state.game.groups_into(min_group, &mut moves);
                if moves.is_empty() {
                    // Only the starting board can be finished here.
                    let total = state.score + rule.end_bonus(state.game.tiles_left());
                    self.finished(total, state.link, None);
                    continue;
                }
                for &group in &moves {
                    let at = state.game.representative(group);
                    let game = scratch.get_or_insert_with(|| state.game.clone());
                    game.clone_from(&state.game);
                    let size = game.tap_group(group, min_group);
                    let score = state.score + rule.move_score(size) as i64;
                    self.nodes += 1;
                    let parent = index as u32;
                    let hash = if self.lane_hash {
                        game.lane_fingerprint()
                    } else {
                        game.fingerprint()
                    };
                    let vacant = match merged.entry(hash) {
                        Entry::Vacant(vacant) => vacant,
                        Entry::Occupied(seen) => {
                            // A board this layer holds already (or one whose hash it shares): a
                            // finished game is recorded as such, else the child replaces the
                            // kept one when it scored more. Only then is it estimated.
                            if !game.has_group(min_group) {
                                let total = score + rule.end_bonus(game.tiles_left());
                                self.finished(total, state.link, Some(at));
                                continue;
                            }
                            let kept = &mut children[*seen.get() as usize];
                            if score > kept.score {
                                let estimate = game
                                    .open_estimate(&self.evaluation, min_group)
                                    .expect("a board with a legal group");
                                *kept = Child {
                                    eval: score + estimate,
                                    score,
                                    parent,
                                    at,
                                };
                            }
                            continue;
                        }
                    };
                    let Some(estimate) = game.open_estimate(&self.evaluation, min_group) else {
                        let total = score + rule.end_bonus(game.tiles_left());
                        self.finished(total, state.link, Some(at));
                        continue;
                    };
                    vacant.insert(children.len() as u32);
                    children.push(Child {
                        eval: score + estimate,
                        score,
                        parent,
                        at,
                    });
                }
            }

            // The cut: highest evaluation first, the earliest generated on a tie.
            let order = |a: &(usize, &Child), b: &(usize, &Child)| {
                b.1.eval.cmp(&a.1.eval).then(a.0.cmp(&b.0))
            };
            let mut ranked: Vec<(usize, &Child)> = children.iter().enumerate().collect();
            if ranked.len() > width {
                ranked.select_nth_unstable_by(width - 1, order);
                ranked.truncate(width);
            }
            ranked.sort_unstable_by(order);
            let next: Vec<State<G>> = ranked
                .iter()
                .map(|&(_, child)| {
                    let parent = &layer[child.parent as usize];
                    let mut game = parent.game.clone();
                    game.play(child.at, min_group);
                    self.nodes += 1;
                    self.links.push((parent.link, child.at));
                    State {
                        game,
                        score: child.score,
                        link: (self.links.len() - 1) as u32,
                    }
                })
                .collect();
            *layer = next;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::fitted_width;

    #[test]
    fn the_next_pass_is_narrowed_to_the_budget_left_when_still_wider_than_the_last() {
        // The last pass: 256 states, 1000 nodes, so about 3.9 nodes a state.
        assert_eq!(fitted_width(512, (1000, 256), 2000), 512, "fits");
        assert_eq!(
            fitted_width(512, (1000, 256), 1500),
            364,
            "95% of 1500 nodes"
        );
        assert_eq!(
            fitted_width(512, (1000, 256), 900),
            512,
            "no wider than 256: cut"
        );
        assert_eq!(fitted_width(512, (1000, 256), 0), 512, "nothing left");
    }
}
