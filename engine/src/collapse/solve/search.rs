//! The search of [`solve`](super::solve): Nested Monte-Carlo Search levels over a
//! [`SearchGame`], the schedule of levels and restarts, the limits, and the best game so far.

use std::time::Duration;

use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;

use super::game::SearchGame;
use super::options::{SolveControl, SolveMethod, SolveOptions, SolveSchedule};
use super::{Effort, SolveStop};

/// The state of one search.
struct Search<'c, G> {
    rule: ScoringRule,
    min_group: MinGroup,
    tabu: bool,
    /// Screening width of the levels of 2 or more (`None`: plain NMCS).
    width: Option<usize>,
    rng: crate::SeededRng,
    control: &'c SolveControl<'c>,
    max_nodes: u64,
    nodes: u64,
    playouts: u64,
    stop: Option<SolveStop>,
    /// The taps from the starting board to the position being searched, and their score.
    path: Vec<Position>,
    path_score: i64,
    /// The best whole game found, from the starting board, and its score.
    best: Vec<Position>,
    best_score: i64,
    /// The taps of the last playout.
    playout_taps: Vec<Position>,
    /// A score that ends the search at once when a game reaches it ([`SolveStop::Completed`]):
    /// the clear goal's "every tile cleared".
    target: Option<i64>,
    _game: std::marker::PhantomData<G>,
}

/// Runs the search on `root` with stream `stream` of the seed's ChaCha8 generator: the best
/// sequence and the effort. A game scoring `target` or more ends the search at once, stopped
/// as [`SolveStop::Completed`].
pub(super) fn run<G: SearchGame>(
    root: G,
    options: &SolveOptions,
    control: &SolveControl,
    target: Option<i64>,
    stream: u64,
) -> (Vec<Position>, Effort) {
    let mut rng = crate::rng_from_seed(options.seed);
    if stream != 0 {
        rng.set_stream(stream);
    }
    let mut search = Search::<G> {
        rule: options.rule,
        min_group: options.min_group,
        tabu: options.rule != ScoringRule::Clickomania,
        width: match options.method {
            SolveMethod::Nmcs => None,
            SolveMethod::Screened(width) => Some(width.get()),
            // Only the clear goal's Monte-Carlo step comes here with a beam method.
            SolveMethod::Beam(_) | SolveMethod::TabuBeam(_) => {
                Some(super::DEFAULT_SCREEN_WIDTH as usize)
            }
        },
        rng,
        control,
        max_nodes: options.max_nodes.get(),
        nodes: 0,
        playouts: 0,
        stop: None,
        path: Vec::new(),
        path_score: 0,
        best: Vec::new(),
        best_score: i64::MIN,
        playout_taps: Vec::new(),
        target,
        _game: std::marker::PhantomData,
    };
    let mut moves = Vec::new();
    root.moves_into(options.min_group, &mut moves);
    let (mut levels_completed, mut runs_completed) = (0, 0);
    if moves.is_empty() {
        search.best_score = options.rule.end_bonus(root.tiles_left());
        levels_completed = options.level.get();
        runs_completed = 1;
    } else {
        'runs: loop {
            // One playout whatever the limits, so there is always a whole game to return;
            // later runs check the limits first.
            if runs_completed > 0 && search.limit_reached() {
                break;
            }
            let score = search.run_playout(&root);
            // Each run starts from its own first playout, not the best game of earlier runs.
            let mut seed = (score, search.playout_taps.clone());
            for level in 1..=options.level.get() {
                match search.nested(&root, level, Some(seed)) {
                    Some(found) => seed = found,
                    None => break 'runs,
                }
                if runs_completed == 0 {
                    levels_completed = level;
                }
            }
            runs_completed += 1;
            if options.schedule == SolveSchedule::Single {
                break;
            }
        }
    }
    let effort = Effort {
        nodes: search.nodes,
        playouts: search.playouts,
        levels_completed,
        runs_completed,
        elapsed: Duration::ZERO,
        stop: search.stop.unwrap_or(SolveStop::Completed),
    };
    (search.best, effort)
}

impl<G: SearchGame> Search<'_, G> {
    /// True (and the reason recorded) when a limit is reached.
    fn limit_reached(&mut self) -> bool {
        if self.stop.is_some() {
            return true;
        }
        self.stop = if self.nodes >= self.max_nodes {
            Some(SolveStop::NodeBudget)
        } else {
            self.control.stop_now()
        };
        self.stop.is_some()
    }

    /// One playout from `game` (the position after `path`): its score from `game` on, with
    /// its taps in `playout_taps`; the best game updated.
    fn run_playout(&mut self, game: &G) -> i64 {
        let mut game = game.clone();
        self.playout_taps.clear();
        let score = game.playout(
            self.rule,
            self.min_group,
            self.tabu,
            &mut self.rng,
            &mut self.playout_taps,
        );
        self.nodes += self.playout_taps.len() as u64;
        self.playouts += 1;
        let total = self.path_score + score;
        if total > self.best_score {
            self.best_score = total;
            self.best.clear();
            self.best.extend_from_slice(&self.path);
            self.best.extend_from_slice(&self.playout_taps);
            if self.target.is_some_and(|target| total >= target) {
                self.stop = Some(SolveStop::Completed);
            }
        }
        score
    }

    /// A level-`level` NMCS from `game` (the position after `path`), starting from the
    /// memorised sequence `seed` (score and taps from `game`) when given. Returns the best
    /// score and sequence from `game`, or `None` when a limit stopped it.
    fn nested(
        &mut self,
        game: &G,
        level: u32,
        seed: Option<(i64, Vec<Position>)>,
    ) -> Option<(i64, Vec<Position>)> {
        let (depth, path_score) = (self.path.len(), self.path_score);
        let result = self.nested_steps(game, level, seed);
        self.path.truncate(depth);
        self.path_score = path_score;
        result
    }

    fn nested_steps(
        &mut self,
        game: &G,
        level: u32,
        seed: Option<(i64, Vec<Position>)>,
    ) -> Option<(i64, Vec<Position>)> {
        let (mut best_score, mut best) = seed.unwrap_or((i64::MIN, Vec::new()));
        let mut position = game.clone();
        let (mut played, mut played_score) = (0usize, 0i64);
        let mut moves = Vec::new();
        loop {
            moves.clear();
            position.moves_into(self.min_group, &mut moves);
            if moves.is_empty() {
                let score = played_score + self.rule.end_bonus(position.tiles_left());
                if score > best_score {
                    best_score = score;
                    best.truncate(played);
                }
                return Some((best_score, best));
            }
            if let Some(width) = self.width.filter(|&w| level >= 2 && moves.len() > w) {
                // Simulation reduction: one playout after every move, then the level below
                // after the best `width` of them only.
                let mut ranked = Vec::with_capacity(moves.len());
                for (index, &at) in moves.iter().enumerate() {
                    if self.limit_reached() {
                        return None;
                    }
                    let mut child = position.clone();
                    let gain = self.rule.move_score(child.play(at, self.min_group)) as i64;
                    self.nodes += 1;
                    self.path.push(at);
                    self.path_score += gain;
                    let score = self.run_playout(&child);
                    self.path.pop();
                    self.path_score -= gain;
                    let total = played_score + gain + score;
                    if total > best_score {
                        best_score = total;
                        best.truncate(played);
                        best.push(at);
                        best.extend_from_slice(&self.playout_taps);
                    }
                    ranked.push((std::cmp::Reverse(total), index));
                }
                ranked.sort_unstable();
                moves = ranked[..width].iter().map(|&(_, i)| moves[i]).collect();
            }
            for &at in &moves {
                if self.limit_reached() {
                    return None;
                }
                let mut child = position.clone();
                let gain = self.rule.move_score(child.play(at, self.min_group)) as i64;
                self.nodes += 1;
                self.path.push(at);
                self.path_score += gain;
                let found = if level <= 1 {
                    let score = self.run_playout(&child);
                    Some((score, None))
                } else {
                    self.nested(&child, level - 1, None)
                        .map(|(score, taps)| (score, Some(taps)))
                };
                self.path.pop();
                self.path_score -= gain;
                let (score, taps) = found?;
                let total = played_score + gain + score;
                if total > best_score {
                    best_score = total;
                    best.truncate(played);
                    best.push(at);
                    best.extend_from_slice(taps.as_deref().unwrap_or(&self.playout_taps));
                }
            }
            // Follow the best sequence one step.
            let Some(&next) = best.get(played) else {
                return Some((best_score, best));
            };
            let gain = self.rule.move_score(position.play(next, self.min_group)) as i64;
            self.nodes += 1;
            self.path.push(next);
            self.path_score += gain;
            played += 1;
            played_score += gain;
        }
    }
}
