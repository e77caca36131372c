//! `matchgrid.v1.CollapsePuzzle`: thin handlers over the collapse engine.

use std::time::Instant;

use super::{SearchContext, ServiceLimits};

use super::convert::{board_from_proto, position_from_proto, required, scoring_from_proto};
use crate::engine::{self, EngineError, SettledBoard};
use crate::proto;

fn settled_board(board: Option<proto::Board>) -> Result<SettledBoard, EngineError> {
    SettledBoard::try_from(board_from_proto(board)?)
}

/// Largest par budget GenerateBoard accepts (`par_nodes`).
pub const MAX_PAR_NODES: u64 = 100_000_000;

/// GenerateBoard, engine side, with no deadline for a par search: see
/// [`generate_board_within`].
///
/// # Errors
/// As [`generate_board_within`].
pub fn generate_board(
    request: proto::CollapseGenerateBoardRequest,
) -> Result<proto::CollapseGenerateBoardResponse, EngineError> {
    generate_board_within(request, None)
}

/// GenerateBoard, engine side: the board, and with `par_nodes` a par search that `context`
/// (the deadline and the cancel flag) may stop early. Checks `width`, `height`, `colors`,
/// `min_group`, `par_nodes`, `par_scoring`, then builds the board.
///
/// # Errors
/// INVALID_ARGUMENT naming the out-of-range field.
pub fn generate_board_within(
    request: proto::CollapseGenerateBoardRequest,
    context: Option<&SearchContext>,
) -> Result<proto::CollapseGenerateBoardResponse, EngineError> {
    let size = engine::GenerationSize::for_collapse(request.width, request.height, request.colors)?;
    let min_group = engine::MinGroup::parse(request.min_group)?;
    if request.par_nodes > MAX_PAR_NODES {
        return Err(EngineError::InvalidParameter {
            field: "par_nodes",
            reason: format!(
                "must be 0 (no par) or 1..={MAX_PAR_NODES}, got {}",
                request.par_nodes
            ),
        });
    }
    let par_rule = scoring_from_proto("par_scoring", request.par_scoring)?;
    let (board, count, clearing_line) = generated_board(&request, size, min_group)?;
    let mut response = proto::CollapseGenerateBoardResponse {
        board: Some(board.board().into()),
        legal_group_count: count as u32,
        clearing_line: clearing_line.into_iter().map(Into::into).collect(),
        ..Default::default()
    };
    if request.par_nodes > 0 {
        let options = engine::SolveOptions {
            rule: par_rule,
            min_group,
            seed: request.seed,
            level: engine::SolveLevel::parse(2)?,
            max_nodes: engine::NodeBudget::parse(request.par_nodes)?,
            schedule: engine::SolveSchedule::Restarts,
            method: engine::SolveMethod::Screened(engine::ScreenWidth::parse(0)?),
            threads: engine::SolveThreads::ONE,
        };
        let control = engine::SolveControl {
            time_limit: None,
            deadline: context.and_then(|c| c.deadline),
            cancel: context.map(|c| c.cancel.as_ref()),
        };
        let par = engine::solve(&board, &options, &control);
        response.par_score = par.score;
        response.par_line = par.moves.iter().map(|m| m.position.into()).collect();
        response.par_stop = proto::SolveStop::from(par.stop).into();
    }
    Ok(response)
}

/// The board GenerateBoard answers for `request` (its `par_*` fields aside): the board, its
/// legal group count and, with `clearable`, the line that clears it.
fn generated_board(
    request: &proto::CollapseGenerateBoardRequest,
    size: engine::GenerationSize,
    min_group: engine::MinGroup,
) -> Result<(SettledBoard, usize, Vec<engine::Position>), EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    if request.clearable {
        let generated = engine::generate_clearable_collapse_board(size, min_group, &mut rng)?;
        let count = engine::CollapseGame::new(&generated.board).count_legal_groups(min_group);
        return Ok((generated.board, count, generated.line));
    }
    let (board, count) = engine::generate_collapse_board(size, min_group, &mut rng)?;
    Ok((board, count, Vec::new()))
}

/// Tap, engine side.
pub fn tap(request: proto::TapRequest) -> Result<proto::TapResponse, EngineError> {
    let rule = scoring_from_proto("scoring", request.scoring)?;
    let min_group = engine::MinGroup::parse(request.min_group)?;
    let position = position_from_proto(request.position.ok_or_else(|| required("position"))?);
    let board = board_from_proto(request.board)?;
    board.checked_index("position", position)?;
    let board = SettledBoard::try_from(board)?;
    let outcome = engine::tap(&board, position, rule, min_group)?;
    Ok(proto::TapResponse {
        total_score: outcome.total_score(),
        cleared: outcome.cleared.into_iter().map(Into::into).collect(),
        color: u32::from(outcome.color),
        falls: outcome.falls.into_iter().map(Into::into).collect(),
        column_shifts: outcome.column_shifts.into_iter().map(Into::into).collect(),
        board: Some(outcome.board.board().into()),
        move_score: outcome.move_score,
        tiles_left: outcome.tiles_left as u32,
        game_over: outcome.game_over,
        end_bonus: outcome.end_bonus,
    })
}

/// CheckDeadState, engine side.
pub fn check_dead_state(
    request: proto::CollapseCheckDeadStateRequest,
) -> Result<proto::CollapseCheckDeadStateResponse, EngineError> {
    let rule = scoring_from_proto("scoring", request.scoring)?;
    let min_group = engine::MinGroup::parse(request.min_group)?;
    let board = settled_board(request.board)?;
    let groups = engine::legal_groups(&board, rule, min_group);
    let tiles_left = board.board().tile_count();
    let game_over = groups.is_empty();
    Ok(proto::CollapseCheckDeadStateResponse {
        game_over,
        groups: groups.into_iter().map(Into::into).collect(),
        tiles_left: tiles_left as u32,
        end_bonus: if game_over {
            rule.end_bonus(tiles_left)
        } else {
            0
        },
    })
}

/// Lowers a Solve request's `threads` to the server's `max_solve_threads` (a value beyond
/// [`engine::MAX_SOLVE_THREADS`] is left for [`solve`] to refuse) and returns the threads it
/// will run on: one with the CLEAR goal, or when `threads` is unset.
pub fn cap_solve_threads(
    request: &mut proto::CollapseSolveRequest,
    limits: &ServiceLimits,
) -> usize {
    let most = limits.max_solve_threads.max(1);
    if (most..=engine::MAX_SOLVE_THREADS as usize).contains(&(request.threads as usize)) {
        request.threads = most as u32;
    }
    if request.goal == proto::SolveGoal::Clear as i32 {
        return 1;
    }
    request.threads.max(1) as usize
}

/// Solve, engine side: `context` carries the deadline and the cancel flag (see
/// `run_search`); the server has already capped `threads` ([`cap_solve_threads`]). Checks the
/// request's fields in the order `scoring`, `min_group`, `max_nodes`, `max_millis`, `level`,
/// `schedule`, `screen_width`, `method`, `goal`, `threads`, then the board.
///
/// # Errors
/// INVALID_ARGUMENT (`EngineError::InvalidParameter` / `Board`) for an out-of-range field;
/// FAILED_PRECONDITION for an unsettled board.
pub fn solve(
    request: proto::CollapseSolveRequest,
    context: &SearchContext,
) -> Result<proto::CollapseSolveResponse, EngineError> {
    let started = Instant::now();
    let rule = scoring_from_proto("scoring", request.scoring)?;
    let min_group = engine::MinGroup::parse(request.min_group)?;
    let max_nodes = engine::NodeBudget::parse(request.max_nodes)?;
    let time_limit = engine::parse_time_limit(request.max_millis)?;
    let level = engine::SolveLevel::parse(request.level)?;
    let schedule = match proto::SolveSchedule::try_from(request.schedule) {
        Ok(proto::SolveSchedule::Restarts) => engine::SolveSchedule::Restarts,
        Ok(proto::SolveSchedule::Unspecified | proto::SolveSchedule::Single) => {
            engine::SolveSchedule::Single
        }
        Err(_) => {
            return Err(EngineError::InvalidParameter {
                field: "schedule",
                reason: format!("unknown SolveSchedule value {}", request.schedule),
            });
        }
    };
    // Checked whatever the method, so an out-of-range width or factor never passes silently.
    let screen_width = engine::ScreenWidth::parse(request.screen_width)?;
    let beam = engine::BeamOptions {
        width: engine::BeamWidth::parse(request.beam_width)?,
        refine_factor: engine::RefineFactor::parse(request.refine_factor)?,
    };
    let method = match proto::SolveMethod::try_from(request.method) {
        Ok(proto::SolveMethod::Screened) => engine::SolveMethod::Screened(screen_width),
        Ok(proto::SolveMethod::Beam) => engine::SolveMethod::Beam(beam),
        Ok(proto::SolveMethod::TabuBeam) => engine::SolveMethod::TabuBeam(beam),
        Ok(proto::SolveMethod::Unspecified | proto::SolveMethod::Nmcs) => engine::SolveMethod::Nmcs,
        Err(_) => {
            return Err(EngineError::InvalidParameter {
                field: "method",
                reason: format!("unknown SolveMethod value {}", request.method),
            });
        }
    };
    let clear_goal = match proto::SolveGoal::try_from(request.goal) {
        Ok(proto::SolveGoal::Clear) => true,
        Ok(proto::SolveGoal::Unspecified | proto::SolveGoal::Score) => false,
        Err(_) => return Err(super::convert::unknown_enum("goal", request.goal)),
    };
    let threads = engine::SolveThreads::parse(request.threads)?;
    let board = settled_board(request.board)?;
    let options = engine::SolveOptions {
        rule,
        min_group,
        seed: request.seed,
        level,
        max_nodes,
        schedule,
        method,
        threads,
    };
    let control = engine::SolveControl {
        time_limit: time_limit.and_then(|limit| started.checked_add(limit)),
        deadline: context.deadline,
        cancel: Some(context.cancel.as_ref()),
    };
    let (solution, clear) = if clear_goal {
        let answer = engine::solve_clear(&board, &options, &control);
        (answer.solution, Some(answer.clearability))
    } else {
        (engine::solve(&board, &options, &control), None)
    };
    let (clearability, clear_proof, stranded_color) = match clear {
        None => (
            proto::Clearability::Unspecified,
            proto::ClearProof::Unspecified,
            0,
        ),
        Some(engine::Clearability::Clearable) => (
            proto::Clearability::Clearable,
            proto::ClearProof::Unspecified,
            0,
        ),
        Some(engine::Clearability::Unknown) => (
            proto::Clearability::Unknown,
            proto::ClearProof::Unspecified,
            0,
        ),
        Some(engine::Clearability::NotClearable(engine::ClearProof::Exhausted)) => (
            proto::Clearability::NotClearable,
            proto::ClearProof::Exhausted,
            0,
        ),
        Some(engine::Clearability::NotClearable(engine::ClearProof::StrandedColor {
            color,
            ..
        })) => (
            proto::Clearability::NotClearable,
            proto::ClearProof::StrandedColor,
            u32::from(color),
        ),
    };
    Ok(proto::CollapseSolveResponse {
        moves: solution
            .moves
            .iter()
            .map(|m| proto::CollapseSolveMove {
                position: Some(m.position.into()),
                color: u32::from(m.color),
                size: m.size as u32,
                move_score: m.move_score,
            })
            .collect(),
        score: solution.score,
        end_bonus: solution.end_bonus,
        board: Some(solution.board.board().into()),
        tiles_left: solution.tiles_left as u32,
        nodes: solution.nodes,
        playouts: solution.playouts,
        // From the instant `max_millis` counts from, so a search stopped by it reports at
        // least `max_millis`.
        elapsed_micros: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        stop: proto::SolveStop::from(solution.stop).into(),
        levels_completed: solution.levels_completed,
        runs_completed: solution.runs_completed,
        clearability: clearability.into(),
        clear_proof: clear_proof.into(),
        stranded_color,
        // 0 when the request left it unset, so an old request's answer keeps its bytes.
        threads: if request.threads == 0 || clear_goal {
            request.threads.min(1)
        } else {
            threads.get() as u32
        },
    })
}

impl From<engine::SolveStop> for proto::SolveStop {
    fn from(stop: engine::SolveStop) -> Self {
        match stop {
            engine::SolveStop::Completed => Self::Completed,
            engine::SolveStop::NodeBudget => Self::NodeBudget,
            engine::SolveStop::TimeLimit => Self::TimeLimit,
            // A cancelled call's answer goes nowhere; the server's timeout also cancels.
            engine::SolveStop::Deadline | engine::SolveStop::Cancelled => Self::Deadline,
        }
    }
}

/// ReplayGame, engine side.
///
/// # Errors
/// INVALID_ARGUMENT for a missing start, an out-of-range field or more than
/// [`engine::MAX_REPLAY_TAPS`] taps (naming `taps`), or a generation request
/// GenerateBoard refuses; FAILED_PRECONDITION for an unsettled board. Illegal taps are not
/// errors: the first is reported in the response.
pub fn replay_game(
    request: proto::CollapseReplayGameRequest,
) -> Result<proto::CollapseReplayGameResponse, EngineError> {
    use proto::collapse_replay_game_request::Start;
    let rule = scoring_from_proto("scoring", request.scoring)?;
    let min_group = engine::MinGroup::parse(request.min_group)?;
    if request.taps.len() > engine::MAX_REPLAY_TAPS {
        return Err(EngineError::InvalidParameter {
            field: "taps",
            reason: format!(
                "at most {} taps per replay (no game has more), got {}",
                engine::MAX_REPLAY_TAPS,
                request.taps.len()
            ),
        });
    }
    let (board, generated) = match request.start {
        Some(Start::Board(board)) => (settled_board(Some(board))?, false),
        Some(Start::Generate(generate)) => {
            let generated = engine::GenerationSize::for_collapse(
                generate.width,
                generate.height,
                generate.colors,
            )
            .and_then(|size| Ok((size, engine::MinGroup::parse(generate.min_group)?)))
            .and_then(|(size, min_group)| generated_board(&generate, size, min_group));
            let (board, ..) = generated.map_err(super::convert::in_generate_start)?;
            (board, true)
        }
        None => return Err(required("start")),
    };
    let taps: Vec<engine::Position> = request.taps.into_iter().map(position_from_proto).collect();
    let replay = engine::replay(&board, &taps, rule, min_group)?;
    Ok(proto::CollapseReplayGameResponse {
        moves: replay
            .moves
            .iter()
            .map(|m| proto::CollapseReplayMove {
                position: Some(m.position.into()),
                color: u32::from(m.color),
                cleared: m.size as u32,
                move_score: m.move_score,
                tiles_left: m.tiles_left as u32,
                game_over: m.game_over,
                end_bonus: m.end_bonus,
                total_score: m.move_score as i64 + m.end_bonus,
            })
            .collect(),
        total_score: replay.total_score,
        board_digest: engine::board_digest(replay.board.board()).to_vec(),
        board: Some(replay.board.board().into()),
        tiles_left: replay.tiles_left as u32,
        game_over: replay.game_over,
        end_bonus: replay.end_bonus,
        rejected: replay.refused.map(|r| {
            let (reason, group_size) = match r.refusal {
                engine::TapRefusal::OffBoard => (proto::TapRejection::OffBoard, 0),
                engine::TapRefusal::EmptyCell => (proto::TapRejection::EmptyCell, 0),
                engine::TapRefusal::GroupTooSmall { size } => {
                    (proto::TapRejection::GroupTooSmall, size as u32)
                }
            };
            proto::CollapseReplayRejection {
                index: r.index as u32,
                position: Some(r.position.into()),
                reason: reason.into(),
                group_size,
            }
        }),
        start_board: generated.then(|| board.board().into()),
    })
}
