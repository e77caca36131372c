//! The two gRPC services: each RPC picks where its work runs ([`Placement`]) and hands the
//! transport's handler to [`Admission`], which converts nothing itself.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::admission::{
    Admission, INLINE_CELL_LIMIT, Placement, SEARCH_INLINE_CELL_LIMIT, board_cells, cells,
};
use crate::proto::{self, collapse_puzzle_server::CollapsePuzzle, swap_puzzle_server::SwapPuzzle};
use crate::transport::{collapse, swap};

/// The stateless SwapPuzzle service.
#[derive(Clone, Debug, Default)]
pub struct SwapService {
    /// The server's heavy-work slots, waits and response limit.
    pub admission: Admission,
}

/// The stateless CollapsePuzzle service.
#[derive(Clone, Debug, Default)]
pub struct CollapseService {
    /// The server's heavy-work slots, waits and response limit.
    pub admission: Admission,
}

/// How often SimulateWithProgress reports the games played.
const PROGRESS_PERIOD: Duration = Duration::from_millis(250);

/// The stream SimulateWithProgress answers.
pub type SimulateProgressStream =
    Pin<Box<dyn Stream<Item = Result<proto::SimulateWithProgressResponse, Status>> + Send>>;

#[tonic::async_trait]
impl SwapPuzzle for SwapService {
    type SimulateWithProgressStream = SimulateProgressStream;

    async fn simulate_with_progress(
        &self,
        request: Request<proto::SimulateWithProgressRequest>,
    ) -> Result<Response<Self::SimulateWithProgressStream>, Status> {
        // The simulation runs as Simulate's, its request keeping the call's metadata (the
        // client's deadline); a task reports its games every period, then its answer.
        let (metadata, extensions, message) = request.into_parts();
        let simulation = swap::simulation_of(message)?;
        let games = simulation.games;
        let request = Request::from_parts(metadata, extensions, simulation);
        let progress = Arc::new(AtomicU32::new(0));
        let admission = self.admission.clone();
        let (sender, receiver) = tokio::sync::mpsc::channel(4);
        let reported = Arc::clone(&progress);
        tokio::spawn(async move {
            let work = admission.run_search_reporting(request, 1, Some(reported), |r, _, c| {
                swap::simulate(r, Some(&c))
            });
            tokio::pin!(work);
            let start = tokio::time::Instant::now() + PROGRESS_PERIOD;
            let mut ticks = tokio::time::interval_at(start, PROGRESS_PERIOD);
            loop {
                tokio::select! {
                    answer = &mut work => {
                        let last = answer.map(|response| proto::SimulateWithProgressResponse {
                            games_done: games,
                            games,
                            result: Some(response.into_inner()),
                        });
                        // Nobody to tell when the client has gone.
                        let _ = sender.send(last).await;
                        return;
                    }
                    _ = ticks.tick() => {
                        if sender.is_closed() {
                            // The client has gone: dropping `work` cancels the games.
                            return;
                        }
                        // A client slower than the reports misses some; the last one counts.
                        let _ = sender.try_send(Ok(proto::SimulateWithProgressResponse {
                            games_done: progress.load(Ordering::Relaxed).min(games),
                            games,
                            result: None,
                        }));
                    }
                }
            }
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }

    async fn generate_board(
        &self,
        request: Request<proto::SwapGenerateBoardRequest>,
    ) -> Result<Response<proto::SwapGenerateBoardResponse>, Status> {
        let message = request.get_ref();
        let generated = match &message.layout {
            Some(layout) => board_cells(Some(layout)),
            None => cells(message.width, message.height),
        };
        let placement = Placement::for_cells(generated, SEARCH_INLINE_CELL_LIMIT);
        self.admission
            .run(placement, request, |r, _| swap::generate_board(r))
            .await
    }

    async fn validate_swap(
        &self,
        request: Request<proto::ValidateSwapRequest>,
    ) -> Result<Response<proto::ValidateSwapResponse>, Status> {
        self.admission
            .run(Placement::Inline, request, |r, _| swap::validate_swap(r))
            .await
    }

    async fn resolve_cascade(
        &self,
        request: Request<proto::ResolveCascadeRequest>,
    ) -> Result<Response<proto::ResolveCascadeResponse>, Status> {
        let message = request.get_ref();
        let placement =
            Placement::for_cells(board_cells(message.board.as_ref()), INLINE_CELL_LIMIT);
        self.admission
            .run(placement, request, swap::resolve_cascade_bounded)
            .await
    }

    async fn check_dead_state(
        &self,
        request: Request<proto::SwapCheckDeadStateRequest>,
    ) -> Result<Response<proto::SwapCheckDeadStateResponse>, Status> {
        self.admission
            .run(Placement::Inline, request, |r, _| swap::check_dead_state(r))
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
        self.admission
            .run(placement, request, |r, _| swap::shuffle(r))
            .await
    }

    async fn replay_game(
        &self,
        request: Request<proto::SwapReplayGameRequest>,
    ) -> Result<Response<proto::SwapReplayGameResponse>, Status> {
        use proto::swap_replay_game_request::Start;
        let message = request.get_ref();
        let start_cells = match (&message.start, &message.level) {
            (_, Some(level)) => board_cells(level.board.as_ref()),
            (Some(Start::Board(board)), None) => board_cells(Some(board)),
            (Some(Start::Generate(generate)), None) => cells(generate.width, generate.height),
            (None, None) => 0,
        };
        let placement = Placement::for_replay(start_cells, message.moves.len());
        self.admission
            .run(placement, request, swap::replay_game)
            .await
    }

    async fn hint(
        &self,
        request: Request<proto::SwapHintRequest>,
    ) -> Result<Response<proto::SwapHintResponse>, Status> {
        let message = request.get_ref();
        // One NONE-refill cascade per valid swap: inline only on small boards without samples;
        // otherwise on the blocking pool, stopped at the deadline or when the call is dropped.
        let small = board_cells(message.board.as_ref()) <= SEARCH_INLINE_CELL_LIMIT;
        if message.samples == 0 && small {
            return self
                .admission
                .run(Placement::Inline, request, |r, _| swap::hint(r, None))
                .await;
        }
        self.admission
            .run_search(request, 1, |r, _, context| swap::hint(r, Some(&context)))
            .await
    }

    async fn simulate(
        &self,
        request: Request<proto::SwapSimulateRequest>,
    ) -> Result<Response<proto::SwapSimulateResponse>, Status> {
        self.admission
            .run_search(request, 1, |r, _, context| {
                swap::simulate(r, Some(&context))
            })
            .await
    }

    async fn start_level(
        &self,
        request: Request<proto::StartLevelRequest>,
    ) -> Result<Response<proto::StartLevelResponse>, Status> {
        // A generation on a layout, as GenerateBoard's.
        let message = request.get_ref();
        let level_cells = board_cells(message.level.as_ref().and_then(|l| l.board.as_ref()));
        let placement = Placement::for_cells(level_cells, SEARCH_INLINE_CELL_LIMIT);
        self.admission
            .run(placement, request, |r, _| swap::start_level(r))
            .await
    }

    async fn play_move(
        &self,
        request: Request<proto::PlayMoveRequest>,
    ) -> Result<Response<proto::PlayMoveResponse>, Status> {
        // One cascade, as ResolveCascade's.
        let message = request.get_ref();
        let state_cells = board_cells(message.state.as_ref().and_then(|s| s.board.as_ref()));
        let placement = Placement::for_cells(state_cells, INLINE_CELL_LIMIT);
        self.admission
            .run(placement, request, swap::play_move_bounded)
            .await
    }
}

#[tonic::async_trait]
impl CollapsePuzzle for CollapseService {
    async fn generate_board(
        &self,
        request: Request<proto::CollapseGenerateBoardRequest>,
    ) -> Result<Response<proto::CollapseGenerateBoardResponse>, Status> {
        let message = request.get_ref();
        if message.par_nodes > 0 {
            // A par search: a Solve on one thread.
            return self
                .admission
                .run_search(request, 1, |r, _, context| {
                    collapse::generate_board_within(r, Some(&context))
                })
                .await;
        }
        let placement =
            Placement::for_cells(cells(message.width, message.height), INLINE_CELL_LIMIT);
        self.admission
            .run(placement, request, |r, _| collapse::generate_board(r))
            .await
    }

    async fn tap(
        &self,
        request: Request<proto::TapRequest>,
    ) -> Result<Response<proto::TapResponse>, Status> {
        self.admission
            .run(Placement::Inline, request, |r, _| collapse::tap(r))
            .await
    }

    async fn check_dead_state(
        &self,
        request: Request<proto::CollapseCheckDeadStateRequest>,
    ) -> Result<Response<proto::CollapseCheckDeadStateResponse>, Status> {
        self.admission
            .run(Placement::Inline, request, |r, _| {
                collapse::check_dead_state(r)
            })
            .await
    }

    async fn solve(
        &self,
        request: Request<proto::CollapseSolveRequest>,
    ) -> Result<Response<proto::CollapseSolveResponse>, Status> {
        let mut request = request;
        let threads = collapse::cap_solve_threads(request.get_mut(), &self.admission.limits);
        self.admission
            .run_search(request, threads, |r, _, context| {
                collapse::solve(r, &context)
            })
            .await
    }

    async fn replay_game(
        &self,
        request: Request<proto::CollapseReplayGameRequest>,
    ) -> Result<Response<proto::CollapseReplayGameResponse>, Status> {
        use proto::collapse_replay_game_request::Start;
        let message = request.get_ref();
        // A replay costs about one tap per listed tap: inline on small boards.
        let start_cells = match &message.start {
            Some(Start::Board(board)) => board_cells(Some(board)),
            Some(Start::Generate(generate)) => cells(generate.width, generate.height),
            None => 0,
        };
        let placement = Placement::for_cells(start_cells, INLINE_CELL_LIMIT);
        self.admission
            .run(placement, request, |r, _| collapse::replay_game(r))
            .await
    }
}
