//! `matchgrid.v1.SwapPuzzle`: thin handlers over the swap engine.

use tonic::{Request, Response, Status};

use super::{
    INLINE_CELL_LIMIT, Placement, SEARCH_INLINE_CELL_LIMIT, ServiceLimits, board_cells, cells,
    run_engine,
};

use super::convert::{
    SwapBoard, cascade_step_to_proto, level_step_to_proto, swap_board_from_proto, swap_from_proto,
    unknown_enum,
};
use crate::engine::level::{self, LevelBoard, StableLevel};
use crate::engine::{self, CascadeOptions, EngineError, Refill, StableBoard};
use crate::proto::{self, swap_puzzle_server::SwapPuzzle};

/// Default `max_steps` of ResolveCascade.
pub const DEFAULT_MAX_STEPS: u32 = 200;
/// Largest accepted `max_steps`.
pub const MAX_MAX_STEPS: u32 = 1_000;

/// The stateless SwapPuzzle service.
#[derive(Clone, Copy, Debug, Default)]
pub struct SwapService {
    /// Response size limit.
    pub limits: ServiceLimits,
}

/// A stable swap-family board: plain (sections 1-2) or a level board (section 6).
enum Stable {
    Plain(StableBoard),
    Level(StableLevel),
}

fn stable_board(board: Option<proto::Board>) -> Result<Stable, EngineError> {
    Ok(match swap_board_from_proto(board)? {
        SwapBoard::Plain(board) => Stable::Plain(StableBoard::try_from(board)?),
        SwapBoard::Level(level) => Stable::Level(StableLevel::try_from(level)?),
    })
}

/// Parses a ResolveCascadeRequest's options.
fn cascade_options(request: &proto::ResolveCascadeRequest) -> Result<CascadeOptions, EngineError> {
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
    })
}

/// GenerateBoard, engine side.
pub fn generate_board(
    request: proto::SwapGenerateBoardRequest,
) -> Result<proto::SwapGenerateBoardResponse, EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    let size = engine::GenerationSize::for_swap(request.width, request.height, request.colors)?;
    let min_moves = request.min_moves.unwrap_or(1);
    if !request.holes.is_empty() {
        let (level, count) = level::generate_level_board(size, min_moves, request.holes, &mut rng)?;
        return Ok(proto::SwapGenerateBoardResponse {
            board: Some(level.level().into()),
            valid_swap_count: count as u32,
        });
    }
    let (board, count) = engine::generate_swap_board(size, min_moves, &mut rng)?;
    Ok(proto::SwapGenerateBoardResponse {
        board: Some(board.board().into()),
        valid_swap_count: count as u32,
    })
}

/// ValidateSwap, engine side.
pub fn validate_swap(
    request: proto::ValidateSwapRequest,
) -> Result<proto::ValidateSwapResponse, EngineError> {
    let swap = swap_from_proto(request.swap)?;
    let (verdict, combination, groups) = match stable_board(request.board)? {
        Stable::Plain(board) => {
            let (verdict, groups) = engine::preview_swap(&board, swap);
            (verdict, None, groups)
        }
        Stable::Level(level) => level::preview_level_swap(&level, swap),
    };
    Ok(proto::ValidateSwapResponse {
        verdict: proto::SwapVerdict::from(verdict).into(),
        groups: groups.into_iter().map(Into::into).collect(),
        combination: proto::Combination::from(combination).into(),
    })
}

/// ResolveCascade, engine side.
pub fn resolve_cascade(
    request: proto::ResolveCascadeRequest,
) -> Result<proto::ResolveCascadeResponse, EngineError> {
    let options = cascade_options(&request)?;
    let include_step_boards = request.include_step_boards;
    let mut rng = engine::rng_from_seed(request.seed);
    let outcome = match request.swap {
        Some(swap) => {
            let swap = swap_from_proto(Some(swap))?;
            match swap_board_from_proto(request.board)? {
                SwapBoard::Plain(board) => {
                    engine::check_swap_positions(&board, swap)?;
                    engine::resolve_swap(StableBoard::try_from(board)?, swap, options, &mut rng)?
                }
                SwapBoard::Level(level) => {
                    engine::check_swap_positions(level.board(), swap)?;
                    let level = StableLevel::try_from(level)?;
                    let outcome = level::resolve_level_swap(level, swap, options, &mut rng)?;
                    return Ok(level_response(outcome, include_step_boards));
                }
            }
        }
        None => match swap_board_from_proto(request.board)? {
            SwapBoard::Plain(board) => engine::resolve_board(board, options, &mut rng)?,
            SwapBoard::Level(level) => {
                let outcome = level::resolve_level_board(level, options, &mut rng)?;
                return Ok(level_response(outcome, include_step_boards));
            }
        },
    };
    Ok(proto::ResolveCascadeResponse {
        steps: outcome
            .steps
            .into_iter()
            .map(|step| cascade_step_to_proto(step, include_step_boards))
            .collect(),
        board: Some((&outcome.board).into()),
        total_score: outcome.total_score,
        shuffled: outcome.board_before_shuffle.is_some(),
        board_before_shuffle: outcome.board_before_shuffle.as_ref().map(Into::into),
        dead: outcome.dead,
        valid_swap_count: outcome.valid_swap_count as u32,
        stable: outcome.stable,
    })
}

/// A level cascade's outcome on the wire.
fn level_response(
    outcome: level::LevelOutcome,
    include_step_boards: bool,
) -> proto::ResolveCascadeResponse {
    proto::ResolveCascadeResponse {
        steps: outcome
            .steps
            .into_iter()
            .map(|step| level_step_to_proto(step, include_step_boards))
            .collect(),
        board: Some((&outcome.board).into()),
        total_score: outcome.total_score,
        shuffled: outcome.board_before_shuffle.is_some(),
        board_before_shuffle: outcome
            .board_before_shuffle
            .as_ref()
            .map(|b: &LevelBoard| b.into()),
        dead: outcome.dead,
        valid_swap_count: outcome.valid_swap_count as u32,
        stable: outcome.stable,
    }
}

/// Bytes one recorded cascade step holds per board cell while a reply is built, at the rate
/// measured on the worst case known (a 64x64 board of one colour refilled from 2 colours:
/// ~112 MB over 1000 steps, about 27 bytes a cell a step: the engine's groups, falls, spawns
/// and board after each step). A step that clears and refills every cell could take about
/// twice that.
pub const STEP_BYTES_PER_CELL: u64 = 32;

/// Memory a ResolveCascade call may use for its recorded steps, as a multiple of the message
/// size limit (at [`STEP_BYTES_PER_CELL`]).
pub const CASCADE_MEMORY_MULTIPLE: u64 = 8;

/// The most steps recorded for a board of `cells` cells within
/// [`CASCADE_MEMORY_MULTIPLE`] times `max_response_bytes` (at least 1): 64 for a 64x64 board
/// at the default 1 MiB limit (the 4-colour cascade from a 64x64 board of one colour, a 910 KB
/// reply, takes 46), 256 for 32x32, [`MAX_MAX_STEPS`] or more from 16x16 down.
pub fn recorded_steps_cap(cells: u64, max_response_bytes: usize) -> u32 {
    let budget = CASCADE_MEMORY_MULTIPLE.saturating_mul(max_response_bytes as u64);
    let per_step = STEP_BYTES_PER_CELL.saturating_mul(cells.max(1));
    (budget / per_step).clamp(1, u64::from(u32::MAX)) as u32
}

/// ResolveCascade within the server's memory bound: the engine records every step of a
/// cascade before the reply is built, so the cascade is run with `max_steps` lowered to
/// [`recorded_steps_cap`] for the board's size, and a cascade that runs past that cap (but not
/// past the request's own `max_steps`) is RESOURCE_EXHAUSTED, reason `CASCADE_TOO_LARGE`. Memory
/// per call is thereby at most about [`CASCADE_MEMORY_MULTIPLE`] times the message limit.
///
/// # Errors
/// As [`resolve_cascade`], plus `CASCADE_TOO_LARGE`.
pub fn resolve_cascade_bounded(
    mut request: proto::ResolveCascadeRequest,
    limits: ServiceLimits,
) -> Result<proto::ResolveCascadeResponse, Status> {
    let requested = match request.max_steps {
        0 => DEFAULT_MAX_STEPS,
        n => n,
    };
    let (width, height) = request
        .board
        .as_ref()
        .map_or((0, 0), |b| (b.width, b.height));
    let cap = recorded_steps_cap(cells(width, height), limits.max_response_bytes);
    if requested > cap && requested <= MAX_MAX_STEPS {
        request.max_steps = cap;
        return match resolve_cascade(request) {
            Err(EngineError::CascadeLimitExceeded { .. }) => Err(super::status::cascade_too_large(
                cap,
                width,
                height,
                limits.max_response_bytes,
            )),
            other => other.map_err(Status::from),
        };
    }
    resolve_cascade(request).map_err(Status::from)
}

/// CheckDeadState, engine side.
pub fn check_dead_state(
    request: proto::SwapCheckDeadStateRequest,
) -> Result<proto::SwapCheckDeadStateResponse, EngineError> {
    let (valid_swaps, combinations): (Vec<proto::Swap>, Vec<i32>) =
        match stable_board(request.board)? {
            Stable::Plain(board) => (
                engine::valid_swaps(&board)
                    .into_iter()
                    .map(Into::into)
                    .collect(),
                Vec::new(),
            ),
            Stable::Level(level) => level::level_valid_swaps(&level)
                .into_iter()
                .map(|(swap, combination)| {
                    (
                        proto::Swap::from(swap),
                        proto::Combination::from(combination) as i32,
                    )
                })
                .unzip(),
        };
    Ok(proto::SwapCheckDeadStateResponse {
        dead: valid_swaps.is_empty(),
        valid_swaps,
        combinations,
    })
}

/// Shuffle, engine side.
pub fn shuffle(request: proto::ShuffleRequest) -> Result<proto::ShuffleResponse, EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    let board = match swap_board_from_proto(request.board)? {
        SwapBoard::Plain(board) => board,
        SwapBoard::Level(level) => {
            let shuffled = level::shuffle_level(&level, &mut rng)?;
            return Ok(proto::ShuffleResponse {
                valid_swap_count: level::count_level_valid_swaps(&shuffled) as u32,
                board: Some(shuffled.level().into()),
            });
        }
    };
    let shuffled = engine::shuffle(&board, &mut rng)?;
    Ok(proto::ShuffleResponse {
        valid_swap_count: engine::count_valid_swaps(&shuffled) as u32,
        board: Some(shuffled.board().into()),
    })
}

#[tonic::async_trait]
impl SwapPuzzle for SwapService {
    async fn generate_board(
        &self,
        request: Request<proto::SwapGenerateBoardRequest>,
    ) -> Result<Response<proto::SwapGenerateBoardResponse>, Status> {
        let message = request.get_ref();
        let placement = Placement::for_cells(
            cells(message.width, message.height),
            SEARCH_INLINE_CELL_LIMIT,
        );
        run_engine(self.limits, placement, request, |r, _| generate_board(r)).await
    }

    async fn validate_swap(
        &self,
        request: Request<proto::ValidateSwapRequest>,
    ) -> Result<Response<proto::ValidateSwapResponse>, Status> {
        run_engine(self.limits, Placement::Inline, request, |r, _| {
            validate_swap(r)
        })
        .await
    }

    async fn resolve_cascade(
        &self,
        request: Request<proto::ResolveCascadeRequest>,
    ) -> Result<Response<proto::ResolveCascadeResponse>, Status> {
        let message = request.get_ref();
        let placement =
            Placement::for_cells(board_cells(message.board.as_ref()), INLINE_CELL_LIMIT);
        run_engine(self.limits, placement, request, resolve_cascade_bounded).await
    }

    async fn check_dead_state(
        &self,
        request: Request<proto::SwapCheckDeadStateRequest>,
    ) -> Result<Response<proto::SwapCheckDeadStateResponse>, Status> {
        run_engine(self.limits, Placement::Inline, request, |r, _| {
            check_dead_state(r)
        })
        .await
    }

    async fn shuffle(
        &self,
        request: Request<proto::ShuffleRequest>,
    ) -> Result<Response<proto::ShuffleResponse>, Status> {
        let message = request.get_ref();
        let placement = Placement::for_cells(
            board_cells(message.board.as_ref()),
            SEARCH_INLINE_CELL_LIMIT,
        );
        run_engine(self.limits, placement, request, |r, _| shuffle(r)).await
    }
}
