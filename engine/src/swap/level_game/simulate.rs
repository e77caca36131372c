//! Difficulty as pass rate (docs/rules.md section 8): seeded games of a level played to their
//! end by a policy, and what a level designer reads from them.

use rand::Rng;

use super::play::{Level, LevelState, play_on};
use super::policy::{Choice, LevelPolicy, SIMULATED_MAX_STEPS, goal_at_start};
use crate::error::{EngineError, LevelStatus};
use crate::swap::obstacles::StableObstacles;

/// The moves left in the games won: mean and nearest-rank percentiles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MovesLeft {
    /// The mean.
    pub mean: f64,
    /// The 10th percentile (nearest rank).
    pub p10: u32,
    /// The median (nearest rank).
    pub p50: u32,
    /// The 90th percentile (nearest rank).
    pub p90: u32,
}

/// What simulated games of a level say about its difficulty.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelSimulation {
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// `wins / games`.
    pub pass_rate: f64,
    /// The 95% Wilson score interval of the pass rate (Wilson 1927), lower bound.
    pub pass_rate_low: f64,
    /// Its upper bound.
    pub pass_rate_high: f64,
    /// `1 / pass_rate`: the attempts a player needs per success; `None` when no game was won.
    pub attempts_per_success: Option<f64>,
    /// Moves left among the games won; `None` when none was.
    pub moves_left: Option<MovesLeft>,
    /// Per goal, in the level's order, the mean share of it done among the games lost
    /// (`0.0..=1.0`; see [`crate::Goal`]); empty when none was lost.
    pub loss_progress: Vec<f64>,
    /// Games lost with moves left and no valid swap.
    pub lost_dead: u32,
    /// Games lost for want of moves.
    pub lost_out_of_moves: u32,
}

/// The 95% Wilson score interval of `wins` successes in `games` trials.
pub(super) fn wilson_interval(wins: u32, games: u32) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = f64::from(games);
    let p = f64::from(wins) / n;
    let denominator = 1.0 + Z * Z / n;
    let centre = (p + Z * Z / (2.0 * n)) / denominator;
    let half = Z * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt() / denominator;
    // Rounding may leave the bounds a hair on the wrong side of `p` when it is 0 or 1 (the
    // exact interval always holds it).
    ((centre - half).clamp(0.0, p), (centre + half).clamp(p, 1.0))
}

/// The nearest-rank `percent` percentile of sorted `values` (not empty).
fn percentile(values: &[u32], percent: usize) -> u32 {
    let rank = (percent * values.len()).div_ceil(100).max(1);
    values[rank - 1]
}

/// Plays `games` games of `level` by `policy`, each to its end (won or lost): game `i` starts
/// from [`Level::first_state`] with a seed drawn from `seed`'s RNG, refill draws from the
/// same game RNG, and the search's rollouts from one of its own. `go_on` is asked before each
/// move and each rollout; `None` when it answered false. Deterministic per seed.
///
/// # Errors
/// As [`Level::first_state`] (a layout no board can be generated on);
/// [`EngineError::CascadeLimitExceeded`] past 1,000 steps.
pub fn simulate_level(
    level: &Level,
    policy: LevelPolicy,
    games: u32,
    seed: u64,
    go_on: impl FnMut() -> bool,
) -> Result<Option<LevelSimulation>, EngineError> {
    simulate_level_reporting(level, policy, games, seed, go_on, |_| {})
}

/// [`simulate_level`], telling `games_done` the number of games finished after each game
/// (`1..=games`, in order): for a progress bar. The same games and the same answer.
///
/// # Errors
/// As [`simulate_level`].
pub fn simulate_level_reporting(
    level: &Level,
    policy: LevelPolicy,
    games: u32,
    seed: u64,
    mut go_on: impl FnMut() -> bool,
    mut games_done: impl FnMut(u32),
) -> Result<Option<LevelSimulation>, EngineError> {
    let mut seeds = crate::rng_from_seed(seed);
    let mut wins_left = Vec::new();
    let mut loss_sums = vec![0.0; level.goals().len()];
    let (mut lost_dead, mut lost_out_of_moves) = (0, 0);
    for game in 0..games {
        if !go_on() {
            return Ok(None);
        }
        let game_seed: u64 = seeds.random();
        let mut rng = crate::rng_from_seed(game_seed);
        let mut search_rng = crate::rng_from_seed(game_seed ^ 0x5EA2_C4ED_5EED_u64);
        let start = level.first_state(&mut rng)?;
        let rngs = (&mut rng, &mut search_rng);
        let Some((end, status)) = play_game(level, policy, start.clone(), rngs, &mut go_on)? else {
            return Ok(None);
        };
        match status {
            LevelStatus::Won => wins_left.push(end.moves_left),
            LevelStatus::LostDead => lost_dead += 1,
            LevelStatus::LostOutOfMoves | LevelStatus::Playing => lost_out_of_moves += 1,
        }
        if status != LevelStatus::Won {
            for ((sum, goal), progress) in loss_sums
                .iter_mut()
                .zip(level.goals())
                .zip(level.progress(&end))
            {
                *sum += goal.fraction(progress, goal_at_start(goal, &start));
            }
        }
        games_done(game + 1);
    }
    let wins = wins_left.len() as u32;
    let losses = games - wins;
    let (pass_rate_low, pass_rate_high) = wilson_interval(wins, games);
    let pass_rate = if games == 0 {
        0.0
    } else {
        f64::from(wins) / f64::from(games)
    };
    wins_left.sort_unstable();
    let moves_left = (!wins_left.is_empty()).then(|| MovesLeft {
        mean: wins_left.iter().map(|&m| f64::from(m)).sum::<f64>() / f64::from(wins),
        p10: percentile(&wins_left, 10),
        p50: percentile(&wins_left, 50),
        p90: percentile(&wins_left, 90),
    });
    let loss_progress = if losses == 0 {
        Vec::new()
    } else {
        loss_sums
            .iter()
            .map(|sum| sum / f64::from(losses))
            .collect()
    };
    Ok(Some(LevelSimulation {
        games,
        wins,
        pass_rate,
        pass_rate_low,
        pass_rate_high,
        attempts_per_success: (wins > 0).then(|| 1.0 / pass_rate),
        moves_left,
        loss_progress,
        lost_dead,
        lost_out_of_moves,
    }))
}

/// Plays one game from `state` (a first state) to its end; returns the last state and its
/// status, or `None` when `go_on`, asked before each move and each rollout, answered false.
/// Every state after a move is stable and its status known, so the moves skip the checks of
/// [`super::play_level_move`].
fn play_game<R: Rng + ?Sized>(
    level: &Level,
    policy: LevelPolicy,
    mut state: LevelState,
    (rng, search_rng): (&mut R, &mut R),
    go_on: &mut impl FnMut() -> bool,
) -> Result<Option<(LevelState, LevelStatus)>, EngineError> {
    let mut status = level.status(&state);
    // The bitboards of the state's board, from the move that led to it.
    let mut bits = None;
    while status == LevelStatus::Playing {
        if !go_on() {
            return Ok(None);
        }
        let board = StableObstacles::with_bits(state.board.clone().into_obstacles(), bits.take());
        let swap = match policy.choose((level, &state, &board), search_rng, go_on)? {
            Choice::Swap(swap) => swap,
            Choice::Dead => return Ok(Some((state, LevelStatus::LostDead))),
            Choice::Stopped => return Ok(None),
        };
        let no_steps: &mut Vec<crate::swap::step::CascadeStep> = &mut Vec::new();
        let moved = (board, swap);
        let (played, next_bits) =
            play_on::<false, R, _>(level, &state, moved, SIMULATED_MAX_STEPS, (rng, no_steps))?;
        bits = next_bits;
        state = played.state;
        status = played.status;
    }
    if let Some(bits) = bits {
        crate::swap::obstacles::Prepared::recycle(bits);
    }
    Ok(Some((state, status)))
}
