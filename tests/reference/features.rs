//! Hint, Simulate and ReplayGame rebuilt from the server's other RPCs only (docs/rules.md section 7): every
//! cascade through `ResolveCascade`, every list of valid swaps through `CheckDeadState`, a
//! generated start through `GenerateBoard`. The server plays them on the engine directly; the
//! tests and benches hold its answers against these, field for field, errors included.

use matchgrid::engine::EngineError;
use matchgrid::proto;
use matchgrid::transport::convert::{in_generate_start, required, unknown_enum};
use matchgrid::transport::status::engine_status;
use matchgrid::transport::swap::{
    MAX_HINT_SAMPLED_CASCADES, MAX_HINT_SAMPLES, MAX_SIMULATE_GAMES, MAX_SIMULATE_MOVES,
    MAX_SIMULATE_TOTAL_MOVES, cascade_options, check_dead_state, generate_board, resolve_cascade,
};
use tonic::Status;

/// The valid swaps of a board with their combinations (UNSPECIFIED on boards without layers),
/// as CheckDeadState lists them.
fn listed_swaps(board: &proto::Board) -> Result<Vec<(proto::Swap, i32)>, EngineError> {
    let listed = check_dead_state(proto::SwapCheckDeadStateRequest {
        board: Some(board.clone()),
    })?;
    let combinations = listed.combinations;
    Ok(listed
        .valid_swaps
        .into_iter()
        .enumerate()
        .map(|(i, swap)| (swap, combinations.get(i).copied().unwrap_or(0)))
        .collect())
}

/// Every listed swap with its NONE-refill ResolveCascade outcome, ranked by (score, cleared,
/// specials created), higher first, equal ranks in CheckDeadState's order.
fn ranked_hints(
    board: &proto::Board,
    listed: Vec<(proto::Swap, i32)>,
    max_steps: u32,
) -> Result<Vec<proto::SwapHint>, EngineError> {
    let mut hints = Vec::new();
    for (swap, combination) in listed {
        let outcome = resolve_cascade(proto::ResolveCascadeRequest {
            board: Some(board.clone()),
            swap: Some(swap),
            refill: proto::RefillMode::None.into(),
            max_steps,
            ..Default::default()
        })?;
        let cleared: usize = outcome
            .steps
            .iter()
            .map(|s| s.groups.iter().map(|g| g.cells.len()).sum::<usize>() + s.effect_cleared.len())
            .sum();
        let specials: usize = outcome.steps.iter().map(|s| s.created.len()).sum();
        hints.push(proto::SwapHint {
            swap: Some(swap),
            combination,
            score: outcome.total_score,
            cleared: cleared as u32,
            specials_created: specials as u32,
            steps: outcome.steps.len() as u32,
            mean_sampled_score: 0.0,
        });
    }
    hints.sort_by(|x, y| {
        (y.score, y.cleared, y.specials_created).cmp(&(x.score, x.cleared, x.specials_created))
    });
    Ok(hints)
}

fn invalid(field: &'static str, reason: String) -> EngineError {
    EngineError::InvalidParameter { field, reason }
}

/// Hint through ResolveCascade: the checks in the server's order (`samples`, the sampled
/// options, the board, the sample budget), then every listed swap's certain outcome, then
/// `samples` RANDOM-refill cascades of each hint kept, seeded `seed + i`.
pub fn hint_reference(request: proto::SwapHintRequest) -> Result<proto::SwapHintResponse, Status> {
    hint_of(request).map_err(engine_status)
}

fn hint_of(request: proto::SwapHintRequest) -> Result<proto::SwapHintResponse, EngineError> {
    if request.samples > MAX_HINT_SAMPLES {
        let reason = format!("must be 0..={MAX_HINT_SAMPLES}, got {}", request.samples);
        return Err(invalid("samples", reason));
    }
    cascade_options(&proto::ResolveCascadeRequest {
        colors: if request.samples > 0 {
            request.colors
        } else {
            1
        },
        max_steps: request.max_steps,
        ..Default::default()
    })?;
    let board = request.board.ok_or_else(|| required("board"))?;
    let listed = listed_swaps(&board)?;
    if request.samples > 0 {
        let count = listed.len();
        let sampled = u64::from(request.samples) * count as u64;
        if sampled > MAX_HINT_SAMPLED_CASCADES {
            let reason = format!(
                "samples x valid swaps must be at most {MAX_HINT_SAMPLED_CASCADES}, got {} x {count} = {sampled}",
                request.samples,
            );
            return Err(invalid("samples", reason));
        }
    }
    let mut hints = ranked_hints(&board, listed, request.max_steps)?;
    let valid_swap_count = hints.len() as u32;
    if request.top_n > 0 {
        hints.truncate(request.top_n as usize);
    }
    for hint in &mut hints {
        if request.samples == 0 {
            break;
        }
        let mut sum = 0f64;
        for i in 0..request.samples {
            let outcome = resolve_cascade(proto::ResolveCascadeRequest {
                board: Some(board.clone()),
                swap: hint.swap,
                colors: request.colors,
                seed: request.seed.wrapping_add(u64::from(i)),
                refill: proto::RefillMode::Random.into(),
                max_steps: request.max_steps,
                ..Default::default()
            })?;
            sum += outcome.total_score as f64;
        }
        hint.mean_sampled_score = sum / f64::from(request.samples);
    }
    Ok(proto::SwapHintResponse {
        hints,
        valid_swap_count,
    })
}

/// One game's tallies.
#[derive(Default)]
struct GameTally {
    score: u64,
    moves: u64,
    steps: u64,
    shuffles: u64,
    dead: bool,
}

/// Game `index`: its RNG seeded `seed + index`; each move the policy's pick (a uniform index
/// into CheckDeadState's list, or the top hint), resolved by ResolveCascade with RANDOM refill
/// seeded by the game RNG's `next_u64()`.
fn simulate_game(
    start: &proto::Board,
    request: &proto::SwapSimulateRequest,
    (policy, colors): (proto::SwapPolicy, u32),
    index: u32,
) -> Result<GameTally, EngineError> {
    use rand::{Rng, RngCore};
    let mut rng = matchgrid::engine::rng_from_seed(request.seed.wrapping_add(u64::from(index)));
    let mut board = start.clone();
    let mut tally = GameTally::default();
    for _ in 0..request.moves {
        let listed = listed_swaps(&board)?;
        let swap = match policy {
            proto::SwapPolicy::Random => {
                if listed.is_empty() {
                    tally.dead = true;
                    break;
                }
                listed[rng.random_range(0..listed.len())].0
            }
            proto::SwapPolicy::Unspecified | proto::SwapPolicy::HintGreedy => {
                match ranked_hints(&board, listed, request.max_steps)?
                    .first()
                    .and_then(|h| h.swap)
                {
                    Some(swap) => swap,
                    None => {
                        tally.dead = true;
                        break;
                    }
                }
            }
        };
        let outcome = resolve_cascade(proto::ResolveCascadeRequest {
            board: Some(board),
            swap: Some(swap),
            colors,
            seed: rng.next_u64(),
            refill: proto::RefillMode::Random.into(),
            auto_shuffle: Some(true),
            max_steps: request.max_steps,
            include_step_boards: false,
        })?;
        tally.score = tally.score.saturating_add(outcome.total_score);
        tally.moves += 1;
        tally.steps += outcome.steps.len() as u64;
        tally.shuffles += u64::from(outcome.shuffled);
        board = outcome.board.expect("a cascade's board");
        if outcome.dead {
            tally.dead = true;
            break;
        }
    }
    Ok(tally)
}

/// The nearest-rank `p`-th percentile of ascending `sorted`.
fn nearest_rank(sorted: &[u64], p: usize) -> u64 {
    let rank = (p * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or(0)
}

/// Simulate through ResolveCascade: the checks in the server's order (`games`, `moves`, their
/// product, `policy`, the start, `colors` and `max_steps`, the start's stability), then the
/// games and their summary.
pub fn simulate_reference(
    request: proto::SwapSimulateRequest,
) -> Result<proto::SwapSimulateResponse, Status> {
    use proto::swap_simulate_request::Start;
    if !(1..=MAX_SIMULATE_GAMES).contains(&request.games) {
        let reason = format!("must be 1..={MAX_SIMULATE_GAMES}, got {}", request.games);
        return Err(engine_status(invalid("games", reason)));
    }
    if !(1..=MAX_SIMULATE_MOVES).contains(&request.moves) {
        let reason = format!("must be 1..={MAX_SIMULATE_MOVES}, got {}", request.moves);
        return Err(engine_status(invalid("moves", reason)));
    }
    let total = u64::from(request.games) * u64::from(request.moves);
    if total > MAX_SIMULATE_TOTAL_MOVES {
        let reason = format!(
            "games x moves must be at most {MAX_SIMULATE_TOTAL_MOVES}, got {} x {} = {total}",
            request.games, request.moves
        );
        return Err(engine_status(invalid("moves", reason)));
    }
    let policy = proto::SwapPolicy::try_from(request.policy)
        .map_err(|_| engine_status(unknown_enum("policy", request.policy)))?;
    let (start, generated) = match &request.start {
        Some(Start::Board(board)) => (board.clone(), false),
        Some(Start::Generate(generate)) => {
            let generated = generate_board(generate.clone())
                .map_err(|e| engine_status(in_generate_start(e)))?;
            (generated.board.expect("a generated board"), true)
        }
        None => return Err(engine_status(required("start"))),
    };
    let colors = match (&request.start, request.colors) {
        (Some(Start::Generate(generate)), 0) => generate.colors,
        (_, colors) => colors,
    };
    let checked = cascade_options(&proto::ResolveCascadeRequest {
        colors,
        max_steps: request.max_steps,
        ..Default::default()
    })
    .and_then(|_| listed_swaps(&start));
    checked.map_err(engine_status)?;
    let mut scores = Vec::with_capacity(request.games as usize);
    let (mut moves_played, mut steps, mut shuffles, mut dead_games) = (0u64, 0u64, 0u64, 0u32);
    for index in 0..request.games {
        let tally =
            simulate_game(&start, &request, (policy, colors), index).map_err(engine_status)?;
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

/// The verdict a ResolveCascade refusal names: OUT_OF_BOUNDS when `swap.a` or `swap.b` is the
/// field a BadRequest names, the verdict an ILLEGAL_SWAP precondition names, else UNSPECIFIED.
fn refusal_verdict(status: &Status) -> proto::SwapVerdict {
    use tonic_types::StatusExt;
    let details = status.get_error_details();
    if let Some(bad) = details.bad_request()
        && bad
            .field_violations
            .iter()
            .any(|v| v.field == "swap.a" || v.field == "swap.b")
    {
        return proto::SwapVerdict::OutOfBounds;
    }
    details
        .precondition_failure()
        .and_then(|failure| failure.violations.iter().find(|v| v.subject == "swap"))
        .and_then(|violation| proto::SwapVerdict::from_str_name(&violation.description))
        .unwrap_or(proto::SwapVerdict::Unspecified)
}

/// The ResolveCascade request of a replayed move `play` on `board` (its fields, no step
/// boards).
pub fn move_request(board: &proto::Board, play: &proto::SwapMove) -> proto::ResolveCascadeRequest {
    proto::ResolveCascadeRequest {
        board: Some(board.clone()),
        swap: play.swap,
        colors: play.colors,
        seed: play.seed,
        refill: play.refill,
        auto_shuffle: play.auto_shuffle,
        max_steps: play.max_steps,
        include_step_boards: false,
    }
}

/// ReplayGame through ResolveCascade: the call's checks (`moves`, the start), then each move
/// the bounded ResolveCascade call of its fields on the board the previous one returned, the
/// first refusal reported from its status.
pub fn replay_game_reference(
    request: proto::SwapReplayGameRequest,
    limits: matchgrid::transport::ServiceLimits,
) -> Result<proto::SwapReplayGameResponse, EngineError> {
    use matchgrid::transport::swap::{
        MAX_REPLAY_MOVES, resolve_cascade_bounded, swap_board_digest,
    };
    use proto::swap_replay_game_request::Start;
    use tonic_types::StatusExt;
    if request.moves.len() > MAX_REPLAY_MOVES {
        let reason = format!(
            "at most {MAX_REPLAY_MOVES} moves per replay, got {}",
            request.moves.len()
        );
        return Err(invalid("moves", reason));
    }
    let (start, generated) = match request.start {
        Some(Start::Board(board)) => {
            matchgrid::transport::convert::swap_board_from_proto(Some(board.clone()))?;
            (board, false)
        }
        Some(Start::Generate(generate)) => {
            let generated = generate_board(generate).map_err(in_generate_start)?;
            (generated.board.ok_or_else(|| required("board"))?, true)
        }
        None => return Err(required("start")),
    };
    let mut board = start.clone();
    let mut moves = Vec::with_capacity(request.moves.len());
    let mut total_score = 0u64;
    let mut rejected = None;
    for (index, play) in request.moves.iter().enumerate() {
        match resolve_cascade_bounded(move_request(&board, play), limits) {
            Ok(response) => {
                total_score = total_score.saturating_add(response.total_score);
                moves.push(proto::SwapReplayMove {
                    swap: play.swap,
                    score: response.total_score,
                    steps: response.steps.len() as u32,
                    shuffled: response.shuffled,
                    dead: response.dead,
                    stable: response.stable,
                    valid_swap_count: response.valid_swap_count,
                });
                if let Some(next) = response.board {
                    board = next;
                }
            }
            Err(status) => {
                let reason = status
                    .get_error_details()
                    .error_info()
                    .map(|info| info.reason.clone())
                    .unwrap_or_default();
                rejected = Some(proto::SwapReplayRejection {
                    index: index as u32,
                    swap: play.swap,
                    verdict: refusal_verdict(&status).into(),
                    code: status.code() as u32,
                    reason,
                    message: status.message().to_owned(),
                });
                break;
            }
        }
    }
    Ok(proto::SwapReplayGameResponse {
        moves,
        total_score,
        board_digest: swap_board_digest(&board)?.to_vec(),
        board: Some(board),
        rejected,
        start_board: generated.then_some(start),
        level: None,
    })
}
