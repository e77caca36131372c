//! `matchgrid.v1.CollapsePuzzle`: thin handlers over the collapse engine.

use tonic::{Request, Response, Status};

use super::{INLINE_CELL_LIMIT, Placement, ServiceLimits, cells, run_engine};

use super::convert::{board_from_proto, position_from_proto, required, scoring_from_proto};
use crate::engine::{self, EngineError, SettledBoard};
use crate::proto::{self, collapse_puzzle_server::CollapsePuzzle};

/// The stateless CollapsePuzzle service.
#[derive(Clone, Copy, Debug, Default)]
pub struct CollapseService {
    /// Response size limit.
    pub limits: ServiceLimits,
}

fn settled_board(board: Option<proto::Board>) -> Result<SettledBoard, EngineError> {
    SettledBoard::try_from(board_from_proto(board)?)
}

/// GenerateBoard, engine side.
pub fn generate_board(
    request: proto::CollapseGenerateBoardRequest,
) -> Result<proto::CollapseGenerateBoardResponse, EngineError> {
    let mut rng = engine::rng_from_seed(request.seed);
    let size = engine::GenerationSize::for_collapse(request.width, request.height, request.colors)?;
    let min_group = engine::MinGroup::parse(request.min_group)?;
    let (board, count) = engine::generate_collapse_board(size, min_group, &mut rng)?;
    Ok(proto::CollapseGenerateBoardResponse {
        board: Some(board.board().into()),
        legal_group_count: count as u32,
    })
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

#[tonic::async_trait]
impl CollapsePuzzle for CollapseService {
    async fn generate_board(
        &self,
        request: Request<proto::CollapseGenerateBoardRequest>,
    ) -> Result<Response<proto::CollapseGenerateBoardResponse>, Status> {
        let message = request.get_ref();
        let placement =
            Placement::for_cells(cells(message.width, message.height), INLINE_CELL_LIMIT);
        run_engine(self.limits, placement, request, |r, _| generate_board(r)).await
    }

    async fn tap(
        &self,
        request: Request<proto::TapRequest>,
    ) -> Result<Response<proto::TapResponse>, Status> {
        run_engine(self.limits, Placement::Inline, request, |r, _| tap(r)).await
    }

    async fn check_dead_state(
        &self,
        request: Request<proto::CollapseCheckDeadStateRequest>,
    ) -> Result<Response<proto::CollapseCheckDeadStateResponse>, Status> {
        run_engine(self.limits, Placement::Inline, request, |r, _| {
            check_dead_state(r)
        })
        .await
    }
}
