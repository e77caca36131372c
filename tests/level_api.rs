//! Level play on the API (docs/rules.md section 8): StartLevel and PlayMove on boards and
//! layouts, the errors naming the field or reason, GenerateBoard with a layout, ReplayGame and
//! Simulate of a level, and both new RPCs over gRPC against the real server.
mod common;

use common::{TestServer, bad_request_fields, precondition_subjects};
use matchgrid::proto::{
    self, Board, Goal, GoalKind, Level, LevelState, LevelStatus, PlayMoveRequest,
    StartLevelRequest, SwapCheckDeadStateRequest, SwapGenerateBoardRequest, SwapMove,
    SwapReplayGameRequest, SwapSimulateRequest, SwapVerdict, ValidateSwapRequest,
};
use matchgrid::transport::status::engine_status;
use matchgrid::transport::swap as rpc;
use matchgrid::transport::{SearchContext, ServiceLimits};
use prost::Message;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// A stable 6x6 board of 4 colours (GenerateBoard, seed 11).
fn plain_start() -> Board {
    rpc::generate_board(SwapGenerateBoardRequest {
        width: 6,
        height: 6,
        colors: 4,
        seed: 11,
        min_moves: Some(3),
        ..Default::default()
    })
    .unwrap()
    .board
    .unwrap()
}

/// `plain_start` with one jelly layer on every cell.
fn jelly_start() -> Board {
    let mut board = plain_start();
    board.jelly = vec![1; 36];
    board
}

fn score_goal(target: u64) -> Goal {
    Goal {
        kind: GoalKind::Score as i32,
        target,
        color: 0,
    }
}

fn level_of(board: Board, move_limit: u32, goals: Vec<Goal>) -> Level {
    Level {
        board: Some(board),
        colors: 4,
        move_limit,
        goals,
    }
}

fn start(level: &Level, seed: u64) -> Result<LevelState, Status> {
    rpc::start_level(StartLevelRequest {
        level: Some(level.clone()),
        seed,
    })
    .map(|r| r.state.unwrap())
    .map_err(engine_status)
}

/// The first valid swap of `board` (CheckDeadState's order).
fn first_swap(board: &Board) -> proto::Swap {
    rpc::check_dead_state(SwapCheckDeadStateRequest {
        board: Some(board.clone()),
    })
    .unwrap()
    .valid_swaps[0]
}

fn play(
    level: &Level,
    state: &LevelState,
    swap: proto::Swap,
    seed: u64,
) -> Result<proto::PlayMoveResponse, Status> {
    rpc::play_move(PlayMoveRequest {
        level: Some(level.clone()),
        state: Some(state.clone()),
        swap: Some(swap),
        seed,
        include_step_boards: false,
    })
    .map_err(engine_status)
}

/// Plays the first valid swap of `state`'s board.
fn play_first(level: &Level, state: &LevelState, seed: u64) -> proto::PlayMoveResponse {
    let swap = first_swap(state.board.as_ref().unwrap());
    play(level, state, swap, seed).unwrap()
}

fn invalid_field(result: Result<impl std::fmt::Debug, Status>) -> String {
    let status = result.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let fields = bad_request_fields(&status);
    assert_eq!(fields.len(), 1, "{status:?}");
    fields[0].clone()
}

fn reason(status: &Status) -> String {
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

fn status_of(state: &LevelState) -> LevelStatus {
    LevelStatus::try_from(state.status).unwrap()
}

// ---------------------------------------------------------------------------------------------
// StartLevel
// ---------------------------------------------------------------------------------------------

#[test]
fn start_level_on_a_board_keeps_it_and_its_layers() {
    let level = level_of(jelly_start(), 10, vec![score_goal(1000)]);
    let state = start(&level, 5).unwrap();
    let board = state.board.as_ref().unwrap();
    assert_eq!(board.cells, plain_start().cells);
    assert_eq!(board.jelly, vec![1; 36]);
    // Every layer list in full.
    assert_eq!(board.blockers, vec![0; 36]);
    assert_eq!(board.locks, vec![false; 36]);
    assert_eq!(board.exits.len(), 36);
    assert_eq!(state.moves_left, 10);
    assert_eq!(state.score, 0);
    assert_eq!(status_of(&state), LevelStatus::Playing);
    assert_eq!(
        state.progress,
        vec![proto::GoalProgress {
            value: 0,
            met: false
        }]
    );
    // The seed does not matter to a board start.
    assert_eq!(start(&level, 99).unwrap(), state);
}

#[test]
fn start_level_on_a_layout_generates_a_stable_board_per_seed() {
    let mut layout = Board {
        width: 6,
        height: 6,
        cells: vec![0; 36],
        ..Default::default()
    };
    layout.blockers = vec![0; 36];
    layout.blockers[14] = 2;
    layout.locks = vec![false; 36];
    layout.locks[20] = true;
    layout.jelly = vec![0; 36];
    layout.jelly[0] = 2;
    let level = level_of(
        layout,
        8,
        vec![
            Goal {
                kind: GoalKind::ClearJelly as i32,
                ..Default::default()
            },
            Goal {
                kind: GoalKind::ClearBlockers as i32,
                ..Default::default()
            },
        ],
    );
    let state = start(&level, 3).unwrap();
    let board = state.board.clone().unwrap();
    assert_eq!(board.blockers[14], 2);
    assert_eq!(board.cells[14], 0);
    assert!(board.locks[20]);
    assert_ne!(board.cells[20], 0, "a locked cell gets a colour");
    assert_eq!(board.jelly[0], 2);
    assert!(
        board
            .cells
            .iter()
            .enumerate()
            .all(|(i, &c)| i == 14 || (1..=4).contains(&c))
    );
    // Stable, with a valid swap: CheckDeadState takes it.
    let listed = rpc::check_dead_state(SwapCheckDeadStateRequest {
        board: Some(board.clone()),
    })
    .unwrap();
    assert!(!listed.dead);
    assert_eq!(
        state.progress,
        vec![
            proto::GoalProgress {
                value: 2,
                met: false
            },
            proto::GoalProgress {
                value: 1,
                met: false
            },
        ]
    );
    assert_eq!(
        start(&level, 3).unwrap().encode_to_vec(),
        state.encode_to_vec()
    );
    let others: Vec<Board> = (4..8)
        .map(|s| start(&level, s).unwrap().board.unwrap())
        .collect();
    assert!(others.iter().any(|b| b.cells != board.cells));
}

// ---------------------------------------------------------------------------------------------
// PlayMove
// ---------------------------------------------------------------------------------------------

#[test]
fn play_move_reports_hits_and_counts_down() {
    let level = level_of(jelly_start(), 10, vec![score_goal(100_000)]);
    let state = start(&level, 0).unwrap();
    let played = play_first(&level, &state, 7);
    assert!(!played.steps.is_empty());
    let hits = &played.steps[0].hits;
    assert!(hits.len() >= 3, "{hits:?}");
    assert!(
        hits.iter()
            .all(|h| h.jelly_left == 0 && h.blocker_left == 0)
    );
    let next = played.state.clone().unwrap();
    assert_eq!(next.moves_left, 9);
    let score: u64 = played.steps.iter().map(|s| s.score).sum();
    assert!(score >= 30);
    assert_eq!(next.score, score);
    assert_eq!(next.progress[0].value, score);
    assert_eq!(status_of(&next), LevelStatus::Playing);
    // Each hit took a cell's one jelly layer (a cell without jelly is not reported again).
    let all_hits: usize = played.steps.iter().map(|s| s.hits.len()).sum();
    let jelly_left: u32 = next.board.as_ref().unwrap().jelly.iter().sum();
    assert_eq!(jelly_left as usize, 36 - all_hits);
    // Same request, same answer.
    assert_eq!(play_first(&level, &state, 7), played);
}

#[test]
fn a_score_goal_reached_wins_even_on_the_last_move() {
    let won = level_of(plain_start(), 5, vec![score_goal(1)]);
    let state = start(&won, 0).unwrap();
    let next = play_first(&won, &state, 1).state.unwrap();
    assert_eq!(status_of(&next), LevelStatus::Won);
    assert_eq!(next.moves_left, 4);
    assert!(next.progress[0].met);
    // On the last move: WON, not LOST_OUT_OF_MOVES.
    let last = level_of(plain_start(), 1, vec![score_goal(1)]);
    let next = play_first(&last, &start(&last, 0).unwrap(), 1)
        .state
        .unwrap();
    assert_eq!(status_of(&next), LevelStatus::Won);
    assert_eq!(next.moves_left, 0);
}

#[test]
fn out_of_moves_is_lost_and_a_move_after_the_end_is_level_over() {
    let level = level_of(plain_start(), 1, vec![score_goal(1_000_000)]);
    let next = play_first(&level, &start(&level, 0).unwrap(), 1)
        .state
        .unwrap();
    assert_eq!(status_of(&next), LevelStatus::LostOutOfMoves);
    assert_eq!(next.moves_left, 0);
    let swap = first_swap(next.board.as_ref().unwrap());
    let status = play(&level, &next, swap, 2).unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(reason(&status), "LEVEL_OVER");
    assert_eq!(precondition_subjects(&status), vec!["state"]);
}

#[test]
fn an_unstable_state_board_is_unstable_not_lost() {
    let level = level_of(plain_start(), 5, vec![score_goal(1_000_000)]);
    let mut state = start(&level, 0).unwrap();
    state.board.as_mut().unwrap().cells[0] = 0;
    let status = play(&level, &state, proto::Swap::default(), 0).unwrap_err();
    // No swap positions: `swap.a` first.
    assert_eq!(status.code(), Code::InvalidArgument);
    let swap = common::swap((1, 0), (1, 1));
    let status = play(&level, &state, swap, 0).unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(reason(&status), "UNSTABLE_BOARD");
}

#[test]
fn level_errors_name_the_field() {
    let goals = vec![score_goal(10)];
    let with = |edit: &dyn Fn(&mut Board)| {
        let mut board = plain_start();
        edit(&mut board);
        start(&level_of(board, 5, goals.clone()), 0)
    };
    assert_eq!(
        invalid_field(with(&|b| {
            b.jelly = vec![0; 36];
            b.jelly[4] = 3;
        })),
        "board.jelly[4]"
    );
    assert_eq!(
        invalid_field(with(&|b| {
            b.blockers = vec![0; 36];
            b.blockers[7] = 1;
        })),
        "board.blockers[7]"
    );
    // A lock on an empty cell of a board (not a layout).
    assert_eq!(
        invalid_field(with(&|b| {
            b.cells[9] = 0;
            b.locks = vec![false; 36];
            b.locks[9] = true;
        })),
        "board.locks[9]"
    );
    let bad_level = |edit: &dyn Fn(&mut Level)| {
        let mut level = level_of(plain_start(), 5, goals.clone());
        edit(&mut level);
        start(&level, 0)
    };
    assert_eq!(
        invalid_field(bad_level(&|l| l.goals.clear())),
        "level.goals"
    );
    assert_eq!(
        invalid_field(bad_level(&|l| l.goals = vec![score_goal(1); 9])),
        "level.goals"
    );
    assert_eq!(
        invalid_field(bad_level(&|l| l.goals[0].kind = 0)),
        "level.goals"
    );
    assert_eq!(
        invalid_field(bad_level(&|l| l.goals[0] = Goal {
            kind: GoalKind::Collect as i32,
            target: 3,
            color: 5,
        })),
        "level.goals"
    );
    assert_eq!(invalid_field(bad_level(&|l| l.colors = 17)), "level.colors");
    assert_eq!(invalid_field(bad_level(&|l| l.colors = 0)), "level.colors");
    // One colour: every refill would make a run, and no cascade would end.
    assert_eq!(invalid_field(bad_level(&|l| l.colors = 1)), "level.colors");
    assert_eq!(
        invalid_field(bad_level(&|l| l.move_limit = 0)),
        "level.move_limit"
    );
    assert_eq!(
        invalid_field(bad_level(&|l| l.move_limit = 1001)),
        "level.move_limit"
    );
    assert_eq!(invalid_field(bad_level(&|l| l.board = None)), "level.board");
    // A layout that leaves no possible swap: named `level.board` in a level, `layout` in
    // GenerateBoard.
    let mut stuck = Board {
        width: 3,
        height: 3,
        cells: vec![0; 9],
        blockers: vec![1; 9],
        ..Default::default()
    };
    stuck.blockers[4] = 0;
    let stuck_level = level_of(stuck.clone(), 5, goals.clone());
    assert_eq!(invalid_field(start(&stuck_level, 0)), "level.board");
    let stuck_simulation = simulate(SwapSimulateRequest {
        level: Some(stuck_level),
        games: 1,
        ..Default::default()
    });
    assert_eq!(invalid_field(stuck_simulation), "level.board");
    let stuck_generation = rpc::generate_board(SwapGenerateBoardRequest {
        layout: Some(stuck),
        colors: 4,
        ..Default::default()
    })
    .map_err(engine_status);
    assert_eq!(invalid_field(stuck_generation), "layout");
    let missing = rpc::start_level(StartLevelRequest::default()).map_err(engine_status);
    assert_eq!(invalid_field(missing), "level");

    // PlayMove's own fields.
    let level = level_of(plain_start(), 5, goals.clone());
    let state = start(&level, 0).unwrap();
    let swap = first_swap(state.board.as_ref().unwrap());
    let mut over = state.clone();
    over.moves_left = 6;
    assert_eq!(
        invalid_field(play(&level, &over, swap, 0)),
        "state.moves_left"
    );
    let mut short = state.clone();
    short.progress.clear();
    assert_eq!(
        invalid_field(play(&level, &short, swap, 0)),
        "state.progress"
    );
    let request = |state: Option<LevelState>, swap: Option<proto::Swap>| {
        rpc::play_move(PlayMoveRequest {
            level: Some(level.clone()),
            state,
            swap,
            ..Default::default()
        })
        .map_err(engine_status)
    };
    assert_eq!(invalid_field(request(None, Some(swap))), "state");
    assert_eq!(invalid_field(request(Some(state.clone()), None)), "swap");
    let mut no_board = state.clone();
    no_board.board = None;
    assert_eq!(
        invalid_field(request(Some(no_board), Some(swap))),
        "state.board"
    );
    let off = common::swap((0, 5), (0, 6));
    assert_eq!(invalid_field(play(&level, &state, off, 0)), "swap.b");
    let illegal = play(&level, &state, common::swap((0, 0), (5, 5)), 0).unwrap_err();
    assert_eq!(illegal.code(), Code::FailedPrecondition);
    assert_eq!(reason(&illegal), "ILLEGAL_SWAP");
}

#[test]
fn input_progress_counts_are_read_and_the_rest_recomputed() {
    let collect = Goal {
        kind: GoalKind::Collect as i32,
        target: 50,
        color: 1,
    };
    let jelly = Goal {
        kind: GoalKind::ClearJelly as i32,
        ..Default::default()
    };
    let level = level_of(jelly_start(), 10, vec![collect, jelly]);
    let state = start(&level, 0).unwrap();
    assert_eq!(
        state.progress,
        vec![
            proto::GoalProgress {
                value: 0,
                met: false
            },
            proto::GoalProgress {
                value: 36,
                met: false
            },
        ]
    );
    let played = play_first(&level, &state, 3);
    let next = played.state.unwrap();
    let red_cleared = played
        .steps
        .iter()
        .flat_map(|s| &s.groups)
        .filter(|g| g.color == 1)
        .map(|g| g.cells.len() as u64)
        .sum::<u64>();
    assert_eq!(next.progress[0].value, red_cleared);
    // A COLLECT count sent back is the count so far; the jelly's progress and every `met` and
    // the status are recomputed, whatever the client sends.
    let mut sent = next.clone();
    sent.progress[0].value = 49;
    sent.progress[1] = proto::GoalProgress {
        value: 0,
        met: true,
    };
    sent.status = LevelStatus::Won as i32;
    let swap = first_swap(sent.board.as_ref().unwrap());
    let after = play(&level, &sent, swap, 4).unwrap().state.unwrap();
    assert!(after.progress[0].value >= 49);
    assert!(after.progress[1].value > 0 && !after.progress[1].met);
    // A count that meets the COLLECT goal on a board without jelly: the state sent is WON,
    // so a move on it is LEVEL_OVER.
    let mut won = next.clone();
    won.progress[0].value = 50;
    won.board.as_mut().unwrap().jelly = vec![0; 36];
    let over = play(&level, &won, swap, 4).unwrap_err();
    assert_eq!(reason(&over), "LEVEL_OVER");
    assert!(over.message().contains("WON"), "{over:?}");
}

#[test]
fn validate_swap_on_a_locked_tile_is_blocked() {
    let mut board = plain_start();
    let swap = first_swap(&board);
    let a = swap.a.unwrap();
    board.locks = vec![false; 36];
    board.locks[(a.row * 6 + a.col) as usize] = true;
    let preview = rpc::validate_swap(ValidateSwapRequest {
        board: Some(board),
        swap: Some(swap),
    })
    .unwrap();
    assert_eq!(preview.verdict, SwapVerdict::Blocked as i32);
}

// ---------------------------------------------------------------------------------------------
// GenerateBoard with a layout
// ---------------------------------------------------------------------------------------------

#[test]
fn generate_board_on_a_layout_keeps_its_layers() {
    let mut layout = Board {
        width: 5,
        height: 5,
        cells: vec![0; 25],
        ..Default::default()
    };
    layout.blockers = vec![0; 25];
    layout.blockers[12] = 3;
    layout.locks = vec![false; 25];
    layout.locks[3] = true;
    let request = SwapGenerateBoardRequest {
        layout: Some(layout.clone()),
        colors: 4,
        seed: 21,
        min_moves: Some(2),
        ..Default::default()
    };
    let generated = rpc::generate_board(request.clone()).unwrap();
    let board = generated.board.clone().unwrap();
    assert_eq!(board.blockers[12], 3);
    assert_eq!(board.cells[12], 0);
    assert!(board.locks[3]);
    assert!(
        board
            .cells
            .iter()
            .enumerate()
            .all(|(i, &c)| i == 12 || (1..=4).contains(&c))
    );
    let listed = rpc::check_dead_state(SwapCheckDeadStateRequest { board: Some(board) }).unwrap();
    assert_eq!(listed.valid_swaps.len() as u32, generated.valid_swap_count);
    assert!(generated.valid_swap_count >= 2);
    assert_eq!(rpc::generate_board(request.clone()).unwrap(), generated);
    let with_width = rpc::generate_board(SwapGenerateBoardRequest {
        width: 5,
        ..request.clone()
    })
    .map_err(engine_status);
    assert_eq!(invalid_field(with_width), "layout");
    let mut coloured = layout;
    coloured.cells[0] = 1;
    let not_a_layout = rpc::generate_board(SwapGenerateBoardRequest {
        layout: Some(coloured),
        ..request
    })
    .map_err(engine_status);
    assert_eq!(invalid_field(not_a_layout), "layout");
}

// ---------------------------------------------------------------------------------------------
// ReplayGame and Simulate of a level
// ---------------------------------------------------------------------------------------------

#[test]
fn replay_game_of_a_level_decides_and_refuses_a_move_after_the_end() {
    let level = level_of(jelly_start(), 2, vec![score_goal(1_000_000)]);
    // The moves: PlayMove's, each the first valid swap of the state before it.
    let mut state = start(&level, 0).unwrap();
    let mut moves = Vec::new();
    let mut played = Vec::new();
    for seed in [3, 4] {
        let swap = first_swap(state.board.as_ref().unwrap());
        let response = play(&level, &state, swap, seed).unwrap();
        moves.push(SwapMove {
            swap: Some(swap),
            seed,
            ..Default::default()
        });
        state = response.state.clone().unwrap();
        played.push(response);
    }
    let after = first_swap(state.board.as_ref().unwrap());
    moves.push(SwapMove {
        swap: Some(after),
        seed: 5,
        ..Default::default()
    });
    let replay = rpc::replay_game(
        SwapReplayGameRequest {
            moves,
            level: Some(level.clone()),
            ..Default::default()
        },
        ServiceLimits::default(),
    )
    .unwrap();
    assert_eq!(replay.moves.len(), 2);
    for (reported, response) in replay.moves.iter().zip(&played) {
        assert_eq!(
            reported.score,
            response.steps.iter().map(|s| s.score).sum::<u64>()
        );
        assert_eq!(reported.steps as usize, response.steps.len());
        assert!(reported.stable);
        assert!(!reported.dead);
    }
    let level_replay = replay.level.clone().unwrap();
    assert_eq!(level_replay.status, LevelStatus::LostOutOfMoves as i32);
    assert_eq!(level_replay.decided_at, Some(1));
    assert_eq!(level_replay.moves_left, 0);
    assert_eq!(level_replay.score, state.score);
    assert_eq!(level_replay.state.as_ref(), Some(&state));
    assert_eq!(replay.total_score, state.score);
    assert_eq!(replay.board, state.board);
    let rejected = replay.rejected.unwrap();
    assert_eq!(rejected.index, 2);
    assert_eq!(rejected.reason, "LEVEL_OVER");
    assert_eq!(rejected.code, Code::FailedPrecondition as u32);
    assert!(replay.start_board.is_none());

    // A level move needs a swap; `start` and `level` together are refused.
    let no_swap = rpc::replay_game(
        SwapReplayGameRequest {
            moves: vec![SwapMove::default()],
            level: Some(level.clone()),
            ..Default::default()
        },
        ServiceLimits::default(),
    )
    .unwrap();
    let rejected = no_swap.rejected.unwrap();
    assert_eq!(
        (rejected.index, rejected.code),
        (0, Code::InvalidArgument as u32)
    );
    assert!(
        rejected.message.starts_with("moves[0].swap"),
        "{rejected:?}"
    );
    assert_eq!(no_swap.level.unwrap().decided_at, None);
    let both = rpc::replay_game(
        SwapReplayGameRequest {
            start: Some(proto::swap_replay_game_request::Start::Board(plain_start())),
            level: Some(level),
            ..Default::default()
        },
        ServiceLimits::default(),
    )
    .map_err(engine_status);
    assert_eq!(invalid_field(both), "level");
}

/// A score 3 moves of `jelly_start` reach in some games, not all.
const HARD_SCORE: u64 = 2000;

fn simulate(request: SwapSimulateRequest) -> Result<proto::SwapSimulateResponse, Status> {
    let context = SearchContext {
        deadline: None,
        cancel: Default::default(),
        progress: None,
    };
    rpc::simulate(request, Some(&context))
}

#[test]
fn simulate_of_a_level_is_deterministic_and_consistent() {
    let level = level_of(jelly_start(), 6, vec![score_goal(400)]);
    let request = SwapSimulateRequest {
        level: Some(level.clone()),
        games: 30,
        seed: 8,
        ..Default::default()
    };
    let response = simulate(request.clone()).unwrap();
    assert_eq!(
        simulate(request.clone()).unwrap().encode_to_vec(),
        response.encode_to_vec()
    );
    assert_eq!(
        response,
        proto::SwapSimulateResponse {
            level: response.level.clone(),
            ..Default::default()
        },
        "only `level` is answered"
    );
    let summary = response.level.unwrap();
    assert_eq!(summary.games, 30);
    assert_eq!(
        summary.wins + summary.lost_dead + summary.lost_out_of_moves,
        30
    );
    assert!(
        summary.pass_rate_low <= summary.pass_rate && summary.pass_rate <= summary.pass_rate_high
    );
    assert!((summary.pass_rate - f64::from(summary.wins) / 30.0).abs() < 1e-12);
    // A harder level: some won, some lost.
    let hard = simulate(SwapSimulateRequest {
        level: Some(level_of(jelly_start(), 3, vec![score_goal(HARD_SCORE)])),
        ..request.clone()
    })
    .unwrap()
    .level
    .unwrap();
    assert_eq!(hard.wins + hard.lost_dead + hard.lost_out_of_moves, 30);
    assert!(hard.pass_rate_low <= hard.pass_rate && hard.pass_rate <= hard.pass_rate_high);
    assert!(0 < hard.wins && hard.wins < 30, "{hard:?}");
    assert_eq!(hard.loss_progress.len(), 1);
    assert!((0.0..1.0).contains(&hard.loss_progress[0]));
    let search = simulate(SwapSimulateRequest {
        level_policy: proto::LevelPolicy::Search as i32,
        search_candidates: 2,
        search_rollouts: 2,
        search_depth: Some(1),
        games: 3,
        ..request.clone()
    })
    .unwrap()
    .level
    .unwrap();
    assert_eq!(search.wins + search.lost_dead + search.lost_out_of_moves, 3);

    let field = |request: SwapSimulateRequest| invalid_field(simulate(request));
    assert_eq!(
        field(SwapSimulateRequest {
            moves: 5,
            ..request.clone()
        }),
        "moves"
    );
    assert_eq!(
        field(SwapSimulateRequest {
            policy: 1,
            ..request.clone()
        }),
        "policy"
    );
    assert_eq!(
        field(SwapSimulateRequest {
            colors: 4,
            ..request.clone()
        }),
        "colors"
    );
    assert_eq!(
        field(SwapSimulateRequest {
            games: 0,
            ..request.clone()
        }),
        "games"
    );
    let long = level_of(jelly_start(), 200, vec![score_goal(400)]);
    assert_eq!(
        field(SwapSimulateRequest {
            level: Some(long),
            games: 501,
            ..request.clone()
        }),
        "games"
    );
    assert_eq!(
        field(SwapSimulateRequest {
            level_policy: proto::LevelPolicy::Search as i32,
            search_depth: Some(31),
            ..request.clone()
        }),
        "search_depth"
    );
    assert_eq!(
        field(SwapSimulateRequest {
            start: Some(proto::swap_simulate_request::Start::Board(plain_start())),
            ..request
        }),
        "level"
    );
}

#[test]
fn simulate_of_a_level_past_its_deadline_is_work_deadline() {
    let context = SearchContext {
        deadline: Some(std::time::Instant::now()),
        cancel: Default::default(),
        progress: None,
    };
    let status = rpc::simulate(
        SwapSimulateRequest {
            level: Some(level_of(jelly_start(), 6, vec![score_goal(400)])),
            games: 10,
            ..Default::default()
        },
        Some(&context),
    )
    .unwrap_err();
    assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
    assert_eq!(reason(&status), "WORK_DEADLINE");
}

// ---------------------------------------------------------------------------------------------
// Over gRPC
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn start_level_and_play_move_over_grpc() {
    let server = TestServer::start(&[]);
    let mut client = server.swap_client().await;
    let level = level_of(jelly_start(), 3, vec![score_goal(1)]);
    let state = client
        .start_level(StartLevelRequest {
            level: Some(level.clone()),
            seed: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .state
        .unwrap();
    assert_eq!(state, start(&level, 0).unwrap());
    let swap = first_swap(state.board.as_ref().unwrap());
    let request = PlayMoveRequest {
        level: Some(level.clone()),
        state: Some(state.clone()),
        swap: Some(swap),
        seed: 4,
        include_step_boards: true,
    };
    let played = client
        .play_move(request.clone())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(played, rpc::play_move(request.clone()).unwrap());
    assert!(played.steps.iter().all(|s| s.board.is_some()));
    let next = played.state.unwrap();
    assert_eq!(status_of(&next), LevelStatus::Won);
    let over = client
        .play_move(PlayMoveRequest {
            state: Some(next),
            ..request
        })
        .await
        .unwrap_err();
    assert_eq!(over.code(), Code::FailedPrecondition);
    assert_eq!(reason(&over), "LEVEL_OVER");
    let missing = client
        .play_move(PlayMoveRequest::default())
        .await
        .unwrap_err();
    assert_eq!(bad_request_fields(&missing), vec!["level"]);
}

#[test]
fn play_move_stops_a_reply_past_the_message_limit() {
    let level = level_of(jelly_start(), 5, vec![score_goal(1_000_000)]);
    let state = start(&level, 1).unwrap();
    let swap = first_swap(state.board.as_ref().unwrap());
    let request = PlayMoveRequest {
        level: Some(level.clone()),
        state: Some(state.clone()),
        swap: Some(swap),
        seed: 3,
        include_step_boards: true,
    };
    // Within the default limit the bounded call answers what the plain one does.
    let bounded = rpc::play_move_bounded(request.clone(), ServiceLimits::default()).unwrap();
    assert_eq!(bounded, rpc::play_move(request.clone()).unwrap());
    assert!(!bounded.steps.is_empty());
    // With a limit below one step's board, the cascade is stopped at its first step.
    let tight = ServiceLimits {
        max_response_bytes: 16,
        ..ServiceLimits::default()
    };
    let status = rpc::play_move_bounded(request, tight).unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "CASCADE_TOO_LARGE");
}
