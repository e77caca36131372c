//! `Simulate` of the swap family (docs/rules.md section 7): games played by a policy from one
//! start on the engine ([`engine::play_game`]), summarised; boards with or without layers
//! alike.

use tonic::Status;

use super::super::SearchContext;
use super::hint::{certain_options, random_options, stopped};
use super::{cascade_options, generate_board, level, stable_board};
use crate::engine::{self, EngineError, StableBoard};
use crate::proto;
use crate::transport::convert::{plays_specials, required, unknown_enum};
use crate::transport::status::CallError;

/// Most games in one `Simulate`.
pub const MAX_SIMULATE_GAMES: u32 = 1_000;
/// Most moves per game in one `Simulate`.
pub const MAX_SIMULATE_MOVES: u32 = 1_000;
/// Most moves in one `Simulate`: games times moves.
pub const MAX_SIMULATE_TOTAL_MOVES: u64 = 100_000;

/// Plays game `index` of a simulation as SwapSimulateRequest documents ([`engine::play_game`]):
/// game `index`'s RNG seeded with `seed + index`; special pieces created when `specials` (a
/// start with layers).
fn simulate_game(
    start: &StableBoard,
    request: &proto::SwapSimulateRequest,
    (policy, colors, specials): (proto::SwapPolicy, u32, bool),
    index: u32,
    context: Option<&SearchContext>,
) -> Result<engine::GameTotals, CallError> {
    let certain = certain_options(request.max_steps, specials)?;
    let options = random_options(colors, request.max_steps, specials)?;
    let policy = match policy {
        proto::SwapPolicy::Random => engine::Policy::Random,
        proto::SwapPolicy::Unspecified | proto::SwapPolicy::HintGreedy => engine::Policy::Greedy,
    };
    let mut rng = engine::rng_from_seed(request.seed.wrapping_add(u64::from(index)));
    let played = engine::play_game(
        start,
        policy,
        request.moves,
        (certain, options),
        &mut rng,
        || !stopped(context),
    )?;
    played.ok_or_else(|| crate::transport::status::work_deadline().into())
}

/// The nearest-rank `p`-th percentile of ascending `sorted` (not empty): the element of rank
/// ceil(p * N / 100), 1-based.
fn nearest_rank(sorted: &[u64], p: usize) -> u64 {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or(0)
}

fn simulate_limit(field: &'static str, reason: String) -> CallError {
    EngineError::InvalidParameter { field, reason }.into()
}

/// Simulate, engine side; `context` stops it (DEADLINE_EXCEEDED, `WORK_DEADLINE`) when its
/// deadline passes or the call is cancelled. Checks `games`, `moves`, their product, `policy`,
/// `colors`, `max_steps`, then the start.
///
/// # Errors
/// INVALID_ARGUMENT naming the field out of range; FAILED_PRECONDITION for an unstable start
/// board; RESOURCE_EXHAUSTED naming `max_steps` for a cascade past it.
pub fn simulate(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapSimulateResponse, Status> {
    Ok(simulate_of(request, context)?)
}

/// The simulation a SimulateWithProgress request carries, to run as Simulate's.
///
/// # Errors
/// INVALID_ARGUMENT naming `simulation` when it is missing.
pub fn simulation_of(
    request: proto::SimulateWithProgressRequest,
) -> Result<proto::SwapSimulateRequest, Status> {
    request
        .simulation
        .ok_or_else(|| crate::transport::status::engine_status(required("simulation")))
}

/// Tells `context`'s reader, if any, that `games` games are finished.
fn report_games(context: Option<&SearchContext>, games: u32) {
    if let Some(context) = context {
        context.report(games);
    }
}

/// Simulate on the engine.
fn simulate_of(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapSimulateResponse, CallError> {
    use proto::swap_simulate_request::Start;
    if request.level.is_some() {
        return simulate_level(request, context);
    }
    if !(1..=MAX_SIMULATE_GAMES).contains(&request.games) {
        return Err(simulate_limit(
            "games",
            format!("must be 1..={MAX_SIMULATE_GAMES}, got {}", request.games),
        ));
    }
    if !(1..=MAX_SIMULATE_MOVES).contains(&request.moves) {
        return Err(simulate_limit(
            "moves",
            format!("must be 1..={MAX_SIMULATE_MOVES}, got {}", request.moves),
        ));
    }
    let total = u64::from(request.games) * u64::from(request.moves);
    if total > MAX_SIMULATE_TOTAL_MOVES {
        return Err(simulate_limit(
            "moves",
            format!(
                "games x moves must be at most {MAX_SIMULATE_TOTAL_MOVES}, got {} x {} = {total}",
                request.games, request.moves
            ),
        ));
    }
    let policy = proto::SwapPolicy::try_from(request.policy)
        .map_err(|_| unknown_enum("policy", request.policy))?;
    // The start first (a missing one, or a generation request's own fields, named as such),
    // then the moves' options.
    let (start, generated) = match &request.start {
        Some(Start::Board(board)) => (board.clone(), false),
        Some(Start::Generate(generate)) => (
            generate_board(generate.clone())
                .map_err(crate::transport::convert::in_generate_start)?
                .board
                .ok_or_else(|| Status::internal("generation without a board"))?,
            true,
        ),
        None => return Err(crate::transport::convert::required("start").into()),
    };
    let colors = match (&request.start, request.colors) {
        (Some(Start::Generate(generate)), 0) => generate.colors,
        (_, colors) => colors,
    };
    cascade_options(&proto::ResolveCascadeRequest {
        colors,
        max_steps: request.max_steps,
        ..Default::default()
    })?;
    // The start must be stable (the error CheckDeadState gives otherwise).
    let specials = plays_specials(&start);
    let stable = stable_board(Some(start.clone()))?;
    let mut scores = Vec::with_capacity(request.games as usize);
    let (mut moves_played, mut steps, mut shuffles, mut dead_games) = (0u64, 0u64, 0u64, 0u32);
    for index in 0..request.games {
        let rules = (policy, colors, specials);
        let tally = simulate_game(&stable, &request, rules, index, context)?;
        report_games(context, index + 1);
        scores.push(tally.score);
        moves_played += tally.moves;
        steps += tally.steps;
        shuffles += tally.shuffles;
        dead_games += u32::from(tally.dead);
    }
    let mut sorted = scores.clone();
    sorted.sort_unstable();
    let games = f64::from(request.games);
    Ok(proto::SwapSimulateResponse {
        mean_score: scores.iter().map(|&s| s as f64).sum::<f64>() / games,
        p10_score: nearest_rank(&sorted, 10),
        p50_score: nearest_rank(&sorted, 50),
        p90_score: nearest_rank(&sorted, 90),
        min_score: sorted.first().copied().unwrap_or(0),
        max_score: sorted.last().copied().unwrap_or(0),
        game_scores: scores,
        moves_played,
        shuffles,
        mean_shuffles: shuffles as f64 / games,
        mean_cascade_depth: if moves_played == 0 {
            0.0
        } else {
            steps as f64 / moves_played as f64
        },
        dead_games,
        start_board: generated.then_some(start),
        level: None,
    })
}

/// Simulate of a level ([`engine::simulate_level`]): checks `start` (must be unset), `moves`,
/// `policy`, `colors` and `max_steps` (must be unset: the level's apply), `games`, the level,
/// `games * move_limit`, then the policy and its search options. Only `level` is answered.
fn simulate_level(
    request: proto::SwapSimulateRequest,
    context: Option<&SearchContext>,
) -> Result<proto::SwapSimulateResponse, CallError> {
    if request.start.is_some() {
        return Err(simulate_limit(
            "level",
            "a simulation starts from `start` or from `level`, not both".to_owned(),
        ));
    }
    let unset = |field, set: bool| {
        if set {
            Err(simulate_limit(
                field,
                "must be unset with `level` (the level's own applies)".to_owned(),
            ))
        } else {
            Ok(())
        }
    };
    unset("moves", request.moves != 0)?;
    unset("policy", request.policy != 0)?;
    unset("colors", request.colors != 0)?;
    unset("max_steps", request.max_steps != 0)?;
    if !(1..=MAX_SIMULATE_GAMES).contains(&request.games) {
        return Err(simulate_limit(
            "games",
            format!("must be 1..={MAX_SIMULATE_GAMES}, got {}", request.games),
        ));
    }
    let level = level::level_from_proto(request.level.clone())?;
    let total = u64::from(request.games) * u64::from(level.move_limit());
    if total > MAX_SIMULATE_TOTAL_MOVES {
        return Err(simulate_limit(
            "games",
            format!(
                "games x level.move_limit must be at most {MAX_SIMULATE_TOTAL_MOVES}, got {} x {} \
                 = {total}",
                request.games,
                level.move_limit()
            ),
        ));
    }
    let policy = level::policy_from_proto(&request)?;
    let simulated = engine::simulate_level_reporting(
        &level,
        policy,
        request.games,
        request.seed,
        || !stopped(context),
        |done| report_games(context, done),
    )
    .map_err(level::in_level_board)?
    .ok_or_else(crate::transport::status::work_deadline)?;
    let moves_left = simulated.moves_left.unwrap_or(engine::MovesLeft {
        mean: 0.0,
        p10: 0,
        p50: 0,
        p90: 0,
    });
    Ok(proto::SwapSimulateResponse {
        level: Some(proto::LevelSimulation {
            games: simulated.games,
            wins: simulated.wins,
            pass_rate: simulated.pass_rate,
            pass_rate_low: simulated.pass_rate_low,
            pass_rate_high: simulated.pass_rate_high,
            attempts_per_success: simulated.attempts_per_success.unwrap_or(0.0),
            moves_left_mean: moves_left.mean,
            moves_left_p10: moves_left.p10,
            moves_left_p50: moves_left.p50,
            moves_left_p90: moves_left.p90,
            loss_progress: simulated.loss_progress,
            lost_dead: simulated.lost_dead,
            lost_out_of_moves: simulated.lost_out_of_moves,
        }),
        ..Default::default()
    })
}
