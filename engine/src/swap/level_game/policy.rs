//! The policies that play simulated games of a level (docs/rules.md section 8): a goal-aware
//! greedy one and a flat Monte-Carlo search over it. Neither looks at `moves_left`, so a game
//! won with a limit of M moves is also won with M + k (the same seed plays the same moves).

use rand::Rng;

use super::goals::{Goal, GoalProgress};
use super::play::{Level, LevelState, play_on};
use crate::error::{EngineError, LevelStatus};
use crate::moves::Swap;
use crate::swap::level_layers::ObstacleBoard;
use crate::swap::obstacles::{self, LevelTally, StableObstacles};
use crate::swap::pieces::PieceKind;

/// How a simulated player picks its swaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelPolicy {
    /// The valid swap with the best certain outcome (its NONE-refill cascade) for the goals:
    /// the largest [goal value](#goal-value), then the highest score, then the first in
    /// row-major order.
    ///
    /// <a name="goal-value"></a>The goal value of an outcome is the sum, over the goals not
    /// yet met, of the share of what is left of the goal that the outcome achieves: score
    /// gained over the score still missing (SCORE); jelly layers removed over the layers left
    /// (CLEAR_JELLY); blocker hit points removed over the hit points left (CLEAR_BLOCKERS);
    /// tiles of the colour cleared over the count still missing (COLLECT); ingredients
    /// collected, plus the rows the others moved down over the board's height, over the count
    /// still missing (BRING_DOWN). After the greedy one-ply search of match-3 bots used for
    /// difficulty estimation (Poromaa 2017; Gudmundsson et al. 2018).
    Greedy,
    /// Flat Monte-Carlo search (Browne et al. 2012, section 3.3; as the MCTS bots of Poromaa
    /// 2017): each of the `candidates` best swaps by the greedy rank is played `rollouts`
    /// times under RANDOM refill, each followed by up to `depth` greedy moves; the swap with
    /// the best mean rollout value is played (ties: the greedy order). A rollout's value is
    /// 1 plus the share of its moves left unused when it meets every goal, else the mean share
    /// of the goals done. Rollouts play past the level's move limit, so the policy is blind to
    /// `moves_left`.
    Search {
        /// Swaps searched, at least 1.
        candidates: u32,
        /// Rollouts per swap, at least 1.
        rollouts: u32,
        /// Greedy moves after the swap in each rollout.
        depth: u32,
    },
}

/// The cascade limit of simulated moves.
pub(super) const SIMULATED_MAX_STEPS: u32 = 1_000;

/// What the greedy value of an outcome reads of a board and its game.
struct Standing {
    score: u64,
    counts: Vec<u64>,
    jelly: u64,
    blocker_points: u64,
    /// The rows of the ingredients on the board, each counted from 1 at the top.
    ingredient_depth: u64,
}

impl Standing {
    fn of(board: &ObstacleBoard, score: u64, counts: Vec<u64>) -> Self {
        let width = board.level().width();
        let ingredient_depth = board
            .level()
            .kinds()
            .iter()
            .enumerate()
            .filter(|&(_, &kind)| kind == PieceKind::Ingredient)
            .map(|(i, _)| (i / width + 1) as u64)
            .sum();
        Self {
            score,
            counts,
            jelly: board.jelly_left(),
            blocker_points: board.blockers().iter().map(|&p| u64::from(p)).sum(),
            ingredient_depth,
        }
    }
}

/// The goal value of going from `before` to `after` (see [`LevelPolicy::Greedy`]) on a board
/// of `height` rows, `progress` being the goals' progress before.
fn goal_value(
    level: &Level,
    (progress, height): (&[GoalProgress], usize),
    before: &Standing,
    after: &Standing,
) -> f64 {
    let height = height as f64;
    let share = |gain: f64, left: f64| {
        if left > 0.0 {
            gain.max(0.0) / left
        } else {
            0.0
        }
    };
    let mut value = 0.0;
    for (index, (goal, progress)) in level.goals().iter().zip(progress).enumerate() {
        if progress.met {
            continue;
        }
        let (count_before, count_after) = (before.counts[index], after.counts[index]);
        value += match *goal {
            Goal::Score(target) => share(
                (after.score - before.score) as f64,
                (target - before.score) as f64,
            ),
            Goal::ClearJelly => share(
                before.jelly as f64 - after.jelly as f64,
                before.jelly as f64,
            ),
            Goal::ClearBlockers => share(
                before.blocker_points as f64 - after.blocker_points as f64,
                before.blocker_points as f64,
            ),
            Goal::Collect { count, .. } => share(
                (count_after - count_before) as f64,
                (count - count_before) as f64,
            ),
            Goal::BringDown(count) => {
                let collected = (count_after - count_before) as f64;
                // A collected ingredient left the board: its rows count once, as 1.
                let descent = after.ingredient_depth as f64 - before.ingredient_depth as f64
                    + collected * height;
                share(
                    collected + descent.max(0.0) / height,
                    (count - count_before) as f64,
                )
            }
        };
    }
    value
}

/// Every valid swap of `state` ranked as [`LevelPolicy::Greedy`] ranks them, best first;
/// `stable` is the state's board (states of simulated games are stable: every move ends on a
/// stable board), with its bitboards.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] past the simulated cascade limit.
pub(super) fn greedy_ranking(
    level: &Level,
    state: &LevelState,
    stable: &StableObstacles,
) -> Result<Vec<Swap>, EngineError> {
    let (board, prepared) = (stable.board(), stable.bits());
    debug_assert!(state.board.as_obstacles() == Some(board));
    let progress = level.progress(state);
    let before = Standing::of(board, state.score, state.counts.clone());
    let (mut after, mut scratch) = (board.clone(), prepared.reused_copy());
    let mut ranked = Vec::new();
    for (order, (swap, _)) in stable.valid_swaps().into_iter().enumerate() {
        let mut tally = LevelTally::default();
        let score = obstacles::certain_obstacle_outcome(
            (board, prepared),
            (&mut after, &mut scratch),
            swap,
            SIMULATED_MAX_STEPS,
            &mut tally,
        )?;
        let counts = level.counts_after(&state.counts, &tally);
        let outcome = Standing::of(&after, state.score.saturating_add(score), counts);
        let value = goal_value(
            level,
            (&progress, board.level().height()),
            &before,
            &outcome,
        );
        ranked.push((value, score, order, swap));
    }
    obstacles::Prepared::recycle(scratch);
    ranked.sort_by(|x, y| y.0.total_cmp(&x.0).then(y.1.cmp(&x.1)).then(x.2.cmp(&y.2)));
    Ok(ranked.into_iter().map(|(.., swap)| swap).collect())
}

/// What a CLEAR_JELLY or CLEAR_BLOCKERS goal had to remove in `start` (0 for the others).
pub(super) fn goal_at_start(goal: &Goal, start: &LevelState) -> u64 {
    match goal {
        Goal::ClearJelly => start.board.jelly_left(),
        Goal::ClearBlockers => start.board.blockers_left(),
        _ => 0,
    }
}

/// The value of a rollout's end (see [`LevelPolicy::Search`]).
fn rollout_value(
    level: &Level,
    start: &LevelState,
    end: &LevelState,
    used: u32,
    depth: u32,
) -> f64 {
    let progress = level.progress(end);
    if progress.iter().all(|p| p.met) {
        return 1.0 + f64::from(depth + 1 - used) / f64::from(depth + 1);
    }
    let fractions: f64 = level
        .goals()
        .iter()
        .zip(&progress)
        .map(|(goal, &p)| goal.fraction(p, goal_at_start(goal, start)))
        .sum();
    fractions / level.goals().len() as f64
}

/// What a policy chose.
pub(super) enum Choice {
    /// The swap to play.
    Swap(Swap),
    /// Nothing: the board has no valid swap.
    Dead,
    /// Nothing: the caller's `go_on` answered false during the search.
    Stopped,
}

impl LevelPolicy {
    /// The swap this policy plays in `state`, drawing the search's rollouts from `rng` and
    /// asking `go_on` before each.
    ///
    /// # Errors
    /// [`EngineError::CascadeLimitExceeded`] past the simulated cascade limit.
    pub(super) fn choose<R: Rng + ?Sized>(
        self,
        (level, state, board): (&Level, &LevelState, &StableObstacles),
        rng: &mut R,
        go_on: &mut impl FnMut() -> bool,
    ) -> Result<Choice, EngineError> {
        let ranked = greedy_ranking(level, state, board)?;
        let Some(&first) = ranked.first() else {
            return Ok(Choice::Dead);
        };
        let Self::Search {
            candidates,
            rollouts,
            depth,
        } = self
        else {
            return Ok(Choice::Swap(first));
        };
        let unlimited = level.unlimited();
        let mut best: Option<(f64, Swap)> = None;
        for &swap in ranked.iter().take(candidates.max(1) as usize) {
            let mut total = 0.0;
            for _ in 0..rollouts.max(1) {
                if !go_on() {
                    return Ok(Choice::Stopped);
                }
                // Blind to the move limit: the rollout may play past it.
                let mut rollout = LevelState {
                    moves_left: u32::MAX,
                    ..state.clone()
                };
                let mut used = 0;
                let mut next = Some(swap);
                let mut board = board.clone();
                while let Some(swap) = next {
                    let no_steps: &mut Vec<crate::swap::step::CascadeStep> = &mut Vec::new();
                    let (played, bits) = play_on::<false, R, _>(
                        &unlimited,
                        &rollout,
                        (board, swap),
                        SIMULATED_MAX_STEPS,
                        (rng, no_steps),
                    )?;
                    rollout = played.state;
                    used += 1;
                    if played.status != LevelStatus::Playing || used > depth {
                        if let Some(bits) = bits {
                            obstacles::Prepared::recycle(bits);
                        }
                        break;
                    }
                    let next_board = rollout.board.clone().into_obstacles();
                    board = StableObstacles::with_bits(next_board, bits);
                    next = greedy_ranking(level, &rollout, &board)?.first().copied();
                }
                total += rollout_value(level, state, &rollout, used, depth);
            }
            let mean = total / f64::from(rollouts.max(1));
            if best.is_none_or(|(value, _)| mean > value) {
                best = Some((mean, swap));
            }
        }
        Ok(best.map_or(Choice::Dead, |(_, swap)| Choice::Swap(swap)))
    }
}
