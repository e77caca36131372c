//! `matchgrid.v1.SwapPuzzle`: thin handlers over the swap engine.

use std::ops::ControlFlow;
use std::time::Instant;

use prost::Message;
use tonic::Status;

use super::ServiceLimits;

use super::convert::{
    self, cascade_step_to_proto, plays_specials, swap_board_from_proto, swap_from_proto,
    unknown_enum,
};
use super::status::engine_status;
use crate::engine::{self, CascadeOptions, EngineError, Refill, StableBoard};
use crate::proto;

mod hint;
mod level;
mod replay;
mod simulate;

pub use hint::{MAX_HINT_SAMPLED_CASCADES, MAX_HINT_SAMPLES, hint};
pub use level::{
    LEVEL_MAX_STEPS, MAX_LEVEL_GOALS, MAX_LEVEL_MOVES, play_move, play_move_bounded, start_level,
};
pub use replay::{MAX_REPLAY_MOVES, replay_game, swap_board_digest};
pub use simulate::{
    MAX_SIMULATE_GAMES, MAX_SIMULATE_MOVES, MAX_SIMULATE_TOTAL_MOVES, simulate, simulation_of,
};

/// Default `max_steps` of ResolveCascade.
pub const DEFAULT_MAX_STEPS: u32 = 200;
/// Largest accepted `max_steps`.
pub const MAX_MAX_STEPS: u32 = 1_000;

/// Parses the required `board` of a request that judges swaps on it: a stable board.
fn stable_board(board: Option<proto::Board>) -> Result<StableBoard, EngineError> {
    StableBoard::try_from(swap_board_from_proto(board)?)
}

/// Parses a ResolveCascadeRequest's options: refill, colours, auto-shuffle, `max_steps`, and
/// the specials rule of its board ([`plays_specials`]).
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `refill`, `colors` or `max_steps`.
pub fn cascade_options(
    request: &proto::ResolveCascadeRequest,
) -> Result<CascadeOptions, EngineError> {
    let refill = match proto::RefillMode::try_from(request.refill)
        .map_err(|_| unknown_enum("refill", request.refill))?
    {
        proto::RefillMode::Unspecified | proto::RefillMode::Random => {
            if !(1..=u32::from(engine::MAX_COLOR)).contains(&request.colors) {
                return Err(EngineError::InvalidParameter {
                    field: "colors",
                    reason: format!("must be 1..=16 for RANDOM refill, got {}", request.colors),
                });
            }
            Refill::Random {
                colors: request.colors as u8,
            }
        }
        proto::RefillMode::None => Refill::None,
    };
    let max_steps = match request.max_steps {
        0 => DEFAULT_MAX_STEPS,
        n @ 1..=MAX_MAX_STEPS => n,
        n => {
            return Err(EngineError::InvalidParameter {
                field: "max_steps",
                reason: format!("must be 1..=1000 (0 means 200), got {n}"),
            });
        }
    };
    Ok(CascadeOptions {
        refill,
        auto_shuffle: request.auto_shuffle.unwrap_or(true),
        max_steps,
        specials: request.board.as_ref().is_some_and(plays_specials),
    })
}

/// GenerateBoard, engine side.
pub fn generate_board(
    request: proto::SwapGenerateBoardRequest,
) -> Result<proto::SwapGenerateBoardResponse, EngineError> {
    if let Some(layout) = request.layout.clone() {
        return generate_on_layout(layout, request);
    }
    let mut rng = engine::rng_from_seed(request.seed);
    let size = engine::GenerationSize::for_swap(request.width, request.height, request.colors)?;
    let min_moves = request.min_moves.unwrap_or(1);
    let (board, count) = if request.holes.is_empty() {
        engine::generate_swap_board(size, min_moves, &mut rng)?
    } else {
        engine::generate_swap_board_with_holes(size, min_moves, request.holes, &mut rng)?
    };
    Ok(proto::SwapGenerateBoardResponse {
        board: Some((&board).into()),
        valid_swap_count: count as u32,
    })
}

/// GenerateBoard with a `layout` (docs/rules.md section 8): `width`, `height` and `holes` must
/// be unset and every cell of the layout 0 (else INVALID_ARGUMENT naming `layout`); `colors`
/// as without one (2..=16); `min_moves` unset means 1.
fn generate_on_layout(
    layout: proto::Board,
    request: proto::SwapGenerateBoardRequest,
) -> Result<proto::SwapGenerateBoardResponse, EngineError> {
    let invalid = |reason: &str| EngineError::InvalidParameter {
        field: "layout",
        reason: reason.to_owned(),
    };
    if request.width != 0 || request.height != 0 || !request.holes.is_empty() {
        return Err(invalid(
            "with a layout, width, height and holes must be unset: the layout has them",
        ));
    }
    if !(2..=u32::from(engine::MAX_COLOR)).contains(&request.colors) {
        return Err(EngineError::InvalidParameter {
            field: "colors",
            reason: format!("must be 2..=16, got {}", request.colors),
        });
    }
    if !convert::is_layout(&layout) {
        return Err(invalid(
            "a layout has a 0 in every one of its width x height cells",
        ));
    }
    let layout = convert::layout_from_proto(layout)?;
    let mut rng = engine::rng_from_seed(request.seed);
    let min_moves = request.min_moves.unwrap_or(1) as usize;
    let (board, count) =
        engine::generate_on_layout(&layout, request.colors as u8, min_moves, &mut rng)?;
    Ok(proto::SwapGenerateBoardResponse {
        board: Some((&board).into()),
        valid_swap_count: count as u32,
    })
}

/// ValidateSwap, engine side.
pub fn validate_swap(
    request: proto::ValidateSwapRequest,
) -> Result<proto::ValidateSwapResponse, EngineError> {
    let swap = swap_from_proto(request.swap)?;
    let preview = engine::check_and_preview_swap(swap_board_from_proto(request.board)?, swap)?;
    Ok(proto::ValidateSwapResponse {
        verdict: proto::SwapVerdict::from(preview.verdict).into(),
        groups: preview.groups.into_iter().map(Into::into).collect(),
        combination: proto::Combination::from(preview.combination).into(),
    })
}

/// ResolveCascade, engine side, with no bound on the reply's size (see
/// [`resolve_cascade_bounded`] for the server's).
pub fn resolve_cascade(
    request: proto::ResolveCascadeRequest,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    resolve_cascade_within(request, usize::MAX)
}

/// Builds a reply's steps as the engine makes them: each step is converted to its message at
/// once (its board kept only when the request asked for step boards) and its encoded size
/// added up, and the cascade is stopped as soon as the steps pass `limit` bytes, or once
/// `deadline` has passed (the call's time is up: the work stops with it). Memory for the steps
/// is therefore at most `limit` plus one step.
struct ReplySteps {
    steps: Vec<proto::CascadeStep>,
    include_step_boards: bool,
    /// Encoded bytes of `steps` inside the reply (each with its field tag and length).
    bytes: usize,
    limit: usize,
    deadline: Option<Instant>,
    /// True when the deadline, not the size, stopped the cascade.
    timed_out: bool,
}

impl ReplySteps {
    fn new(include_step_boards: bool, limit: usize, deadline: Option<Instant>) -> Self {
        Self {
            steps: Vec::new(),
            include_step_boards,
            bytes: 0,
            limit,
            deadline,
            timed_out: false,
        }
    }

    fn take(&mut self, step: proto::CascadeStep) -> ControlFlow<()> {
        let length = step.encoded_len();
        // Field tag (1 byte for field numbers up to 15) and length prefix of a repeated message.
        self.bytes = self
            .bytes
            .saturating_add(1 + prost::length_delimiter_len(length) + length);
        self.steps.push(step);
        if self.bytes > self.limit {
            return ControlFlow::Break(());
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.timed_out = true;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}

impl engine::StepSink for ReplySteps {
    fn accept(&mut self, step: engine::CascadeStep) -> ControlFlow<()> {
        let step = cascade_step_to_proto(step, self.include_step_boards);
        self.take(step)
    }
}

/// ResolveCascade, engine side, stopping with [`EngineError::CascadeStopped`] as soon as the
/// reply's steps pass `limit` encoded bytes.
fn resolve_cascade_within(
    request: proto::ResolveCascadeRequest,
    limit: usize,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    let mut reply_steps = ReplySteps::new(request.include_step_boards, limit, None);
    resolve_cascade_into(request, &mut reply_steps)
}

/// ResolveCascade, engine side, with its steps built by `reply_steps` (which may stop the
/// cascade: [`EngineError::CascadeStopped`]).
fn resolve_cascade_into(
    request: proto::ResolveCascadeRequest,
    reply_steps: &mut ReplySteps,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    let options = cascade_options(&request)?;
    let mut rng = engine::rng_from_seed(request.seed);
    let summary = match request.swap {
        Some(swap) => {
            let swap = swap_from_proto(Some(swap))?;
            let board = swap_board_from_proto(request.board)?;
            engine::check_swap_positions(board.colors(), swap)?;
            let board = StableBoard::try_from(board)?;
            engine::resolve_swap_into(board, swap, options, &mut rng, reply_steps)?
        }
        None => {
            let board = swap_board_from_proto(request.board)?;
            engine::resolve_board_into(board, options, &mut rng, reply_steps)?
        }
    };
    Ok(proto::ResolveCascadeResponse {
        steps: std::mem::take(&mut reply_steps.steps),
        board: Some((&summary.board).into()),
        total_score: summary.total_score,
        shuffled: summary.board_before_shuffle.is_some(),
        board_before_shuffle: summary.board_before_shuffle.as_ref().map(Into::into),
        dead: summary.dead,
        valid_swap_count: summary.valid_swap_count as u32,
        stable: summary.stable,
    })
}

/// ResolveCascade within the server's reply limit and request timeout: the steps are
/// converted and measured as the engine makes them, and a cascade whose steps pass
/// `max_response_bytes` is stopped there with RESOURCE_EXHAUSTED, reason `CASCADE_TOO_LARGE` (it
/// could never be sent), whether or not it would have settled within `max_steps`. Memory per
/// call is thereby about the message limit plus one step (a 64x64 board is 4 KiB), whatever
/// `max_steps` asks. A cascade still running when the server's `--request-timeout` has passed
/// (long cascades of special pieces on large level boards) is stopped at its next step with
/// DEADLINE_EXCEEDED, reason `WORK_DEADLINE`, instead of running on after its caller was
/// answered.
///
/// # Errors
/// As [`resolve_cascade`], plus `CASCADE_TOO_LARGE` and `WORK_DEADLINE`.
pub fn resolve_cascade_bounded(
    request: proto::ResolveCascadeRequest,
    limits: ServiceLimits,
) -> Result<proto::ResolveCascadeResponse, Status> {
    let include_step_boards = request.include_step_boards;
    within_reply_bounds(include_step_boards, limits, |reply_steps| {
        resolve_cascade_into(request, reply_steps)
    })
}

/// Runs `call` with a [`ReplySteps`] bounded by the server's message limit and request
/// timeout, and maps the cascade it stopped: past the limit RESOURCE_EXHAUSTED
/// (`CASCADE_TOO_LARGE`), past the timeout DEADLINE_EXCEEDED (`WORK_DEADLINE`); any other
/// error as [`engine_status`] maps it. ResolveCascade and PlayMove share it.
fn within_reply_bounds<T>(
    include_step_boards: bool,
    limits: ServiceLimits,
    call: impl FnOnce(&mut ReplySteps) -> Result<T, EngineError>,
) -> Result<T, Status> {
    let limit = limits.max_response_bytes;
    let deadline = limits
        .request_timeout
        .and_then(|timeout| Instant::now().checked_add(timeout));
    let mut reply_steps = ReplySteps::new(include_step_boards, limit, deadline);
    match call(&mut reply_steps) {
        Err(EngineError::CascadeStopped { .. }) if reply_steps.timed_out => {
            Err(super::status::work_deadline())
        }
        Err(EngineError::CascadeStopped { steps }) => Err(super::status::cascade_too_large(
            steps,
            limit,
            include_step_boards,
        )),
        other => other.map_err(engine_status),
    }
}

/// CheckDeadState, engine side.
pub fn check_dead_state(
    request: proto::SwapCheckDeadStateRequest,
) -> Result<proto::SwapCheckDeadStateResponse, EngineError> {
    let board = stable_board(request.board)?;
    let listed = engine::valid_swaps_with_combinations(&board);
    // Combinations are listed for a board with layers only (the field is new with them).
    let combinations = if board.has_layers() {
        listed
            .iter()
            .map(|&(_, combination)| proto::Combination::from(combination) as i32)
            .collect()
    } else {
        Vec::new()
    };
    let valid_swaps: Vec<proto::Swap> = listed.into_iter().map(|(swap, _)| swap.into()).collect();
    Ok(proto::SwapCheckDeadStateResponse {
        dead: valid_swaps.is_empty(),
        valid_swaps,
        combinations,
    })
}

/// Shuffle, engine side.
pub fn shuffle(request: proto::ShuffleRequest) -> Result<proto::ShuffleResponse, EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    let board = swap_board_from_proto(request.board)?;
    let shuffled = engine::shuffle(&board, &mut rng)?;
    Ok(proto::ShuffleResponse {
        valid_swap_count: engine::count_valid_swaps(&shuffled) as u32,
        board: Some((&shuffled).into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The never-settling cascade of a 64x64 board of one colour refilled from 2 colours.
    fn endless_cascade(max_steps: u32) -> proto::ResolveCascadeRequest {
        proto::ResolveCascadeRequest {
            board: Some(proto::Board {
                width: 64,
                height: 64,
                cells: vec![1; 64 * 64],
                ..Default::default()
            }),
            colors: 2,
            seed: 9,
            refill: proto::RefillMode::Random as i32,
            max_steps,
            ..Default::default()
        }
    }

    /// The reply's steps are measured exactly: the cascade stops at the first step whose
    /// encoded steps pass the limit, not before and not after.
    #[test]
    fn a_cascade_stops_at_the_first_step_past_the_reply_limit() {
        // Every step of the first 60, recorded whatever happens after them.
        let request = endless_cascade(60);
        let mut all = Vec::new();
        let result = engine::resolve_board_into(
            super::super::convert::board_from_proto(request.board.clone())
                .unwrap()
                .into(),
            cascade_options(&request).unwrap(),
            &mut engine::rng_from_seed(request.seed),
            &mut all,
        );
        assert!(matches!(
            result,
            Err(EngineError::CascadeLimitExceeded { max_steps: 60 })
        ));
        assert_eq!(all.len(), 60);
        let sizes: Vec<usize> = all
            .into_iter()
            .map(|step| {
                let length = cascade_step_to_proto(step, false).encoded_len();
                1 + prost::length_delimiter_len(length) + length
            })
            .collect();
        let limit = sizes[..20].iter().sum::<usize>() + sizes[20] / 2;
        match resolve_cascade_within(endless_cascade(1000), limit) {
            Err(EngineError::CascadeStopped { steps }) => assert_eq!(steps, 21),
            other => panic!(
                "expected a stop at step 21, got {:?}",
                other.map(|r| r.steps.len())
            ),
        }
        // The limit met exactly is not passed.
        let limit = sizes[..20].iter().sum::<usize>();
        match resolve_cascade_within(endless_cascade(1000), limit) {
            Err(EngineError::CascadeStopped { steps }) => assert_eq!(steps, 21),
            other => panic!(
                "expected a stop at step 21, got {:?}",
                other.map(|r| r.steps.len())
            ),
        }
    }

    /// A level cascade that outlives the server's request timeout (specials making specials on
    /// a large board can run for many seconds) is stopped at its next step with WORK_DEADLINE,
    /// not run on after its caller was answered.
    #[test]
    fn a_level_cascade_past_the_request_timeout_is_stopped() {
        use rand::Rng;
        let mut rng = engine::rng_from_seed(3);
        let cells: Vec<u32> = (0..64 * 64).map(|_| rng.random_range(1..=5)).collect();
        let request = proto::ResolveCascadeRequest {
            board: Some(proto::Board {
                width: 64,
                height: 64,
                cells,
                // All NORMAL: a level board, so groups of 4 or more make specials.
                kinds: vec![0; 64 * 64],
                ..Default::default()
            }),
            colors: 5,
            seed: 1,
            refill: proto::RefillMode::Random as i32,
            max_steps: 1000,
            ..Default::default()
        };
        let limits = ServiceLimits {
            request_timeout: Some(std::time::Duration::from_millis(1)),
            ..ServiceLimits::default()
        };
        let started = Instant::now();
        let status = resolve_cascade_bounded(request, limits).unwrap_err();
        assert_eq!(status.code(), tonic::Code::DeadlineExceeded, "{status:?}");
        assert!(status.message().contains("deadline"), "{status:?}");
        // One step of a 64x64 level cascade, not the whole cascade (many seconds).
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    /// The field a BadRequest names.
    fn field_named(status: &Status) -> String {
        use tonic_types::StatusExt;
        let violations = status.get_details_bad_request().unwrap().field_violations;
        assert_eq!(violations.len(), 1, "{status:?}");
        violations[0].field.clone()
    }

    /// A missing start is named `start`, before the moves' options are checked; errors inside
    /// a `generate` start carry its prefix.
    #[test]
    fn start_errors_name_the_start_field() {
        use proto::swap_simulate_request::Start;
        let simulate_with_start = |start| proto::SwapSimulateRequest {
            start,
            games: 1,
            moves: 1,
            ..Default::default()
        };
        let none = simulate(simulate_with_start(None), None).unwrap_err();
        assert_eq!(field_named(&none), "start");
        let generate = |width, colors| {
            Some(Start::Generate(proto::SwapGenerateBoardRequest {
                width,
                height: 8,
                colors,
                ..Default::default()
            }))
        };
        let too_many = simulate(simulate_with_start(generate(8, 17)), None).unwrap_err();
        assert_eq!(field_named(&too_many), "generate.colors");
        let too_wide = simulate(simulate_with_start(generate(65, 5)), None).unwrap_err();
        assert_eq!(field_named(&too_wide), "generate.width");
        let replay = replay_game(
            proto::SwapReplayGameRequest {
                start: Some(proto::swap_replay_game_request::Start::Generate(
                    proto::SwapGenerateBoardRequest {
                        width: 8,
                        height: 8,
                        colors: 17,
                        ..Default::default()
                    },
                )),
                ..Default::default()
            },
            ServiceLimits::default(),
        )
        .unwrap_err();
        assert_eq!(field_named(&engine_status(replay)), "generate.colors");
    }

    /// A cascade whose reply fits is answered in full, byte for byte as without a limit.
    #[test]
    fn a_cascade_within_the_limit_is_answered_in_full() {
        let request = proto::ResolveCascadeRequest {
            board: Some(proto::Board {
                width: 3,
                height: 3,
                cells: vec![1, 1, 1, 2, 3, 2, 3, 2, 3],
                ..Default::default()
            }),
            colors: 3,
            seed: 4,
            refill: proto::RefillMode::Random as i32,
            include_step_boards: true,
            ..Default::default()
        };
        let unbounded = resolve_cascade(request.clone()).unwrap();
        assert!(!unbounded.steps.is_empty());
        let limit = unbounded
            .steps
            .iter()
            .map(|s| {
                let length = s.encoded_len();
                1 + prost::length_delimiter_len(length) + length
            })
            .sum();
        let bounded = resolve_cascade_within(request, limit).unwrap();
        assert_eq!(bounded, unbounded);
    }
}
