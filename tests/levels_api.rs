//! Level boards on the API (docs/rules.md section 6): the wire encoding of holes and kinds, the
//! errors naming the cell or field, HOLE verdicts, combinations in ValidateSwap and
//! CheckDeadState, generation with a mask, shuffles keeping holes, the collapse family's
//! refusal, and a pinned level cascade under RANDOM refill.
mod common;

use common::{bad_request_fields, level, level_text, pos, precondition_subjects, swap};
use matchgrid::proto::{
    self, Board, Combination, PieceKind, RefillMode, ResolveCascadeRequest, ShuffleRequest,
    SwapCheckDeadStateRequest, SwapGenerateBoardRequest, SwapVerdict, ValidateSwapRequest,
};
use matchgrid::transport::status::engine_status;
use matchgrid::transport::{collapse, swap as rpc};
use prost::Message;
use tonic::{Code, Status};

fn validate(board: Board, s: proto::Swap) -> Result<proto::ValidateSwapResponse, Status> {
    rpc::validate_swap(ValidateSwapRequest {
        board: Some(board),
        swap: Some(s),
    })
    .map_err(engine_status)
}

fn invalid_field(result: Result<impl std::fmt::Debug, Status>) -> String {
    let status = result.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let fields = bad_request_fields(&status);
    assert_eq!(fields.len(), 1, "{status:?}");
    fields[0].clone()
}

#[test]
fn malformed_level_boards_name_the_cell_or_field() {
    let s = swap((0, 0), (0, 1));
    let mut board = level("RGB/GBR");
    board.holes = vec![false, true, false, false, false, false];
    assert_eq!(invalid_field(validate(board, s)), "board.cells[1]");
    let mut board = level("RGB/GBR");
    board.kinds = vec![0, 0, PieceKind::ColorBomb as i32, 0, 0, 0];
    assert_eq!(invalid_field(validate(board, s)), "board.cells[2]");
    let mut board = level("RG./GBR");
    board.kinds = vec![0, 0, PieceKind::Wrapped as i32, 0, 0, 0];
    assert_eq!(invalid_field(validate(board, s)), "board.kinds[2]");
    let mut board = level("RGB/GBR");
    board.kinds = vec![0, 0, 0, 0, 99, 0];
    assert_eq!(invalid_field(validate(board, s)), "board.kinds[4]");
    let mut board = level("RGB/GBR");
    board.holes = vec![false; 5];
    assert_eq!(invalid_field(validate(board, s)), "board.holes");
    let mut board = level("RGB/GBR");
    board.kinds = vec![0; 7];
    assert_eq!(invalid_field(validate(board, s)), "board.kinds");
    let mut board = level("R#B/GBR");
    board.kinds[1] = PieceKind::StripedH as i32;
    assert_eq!(invalid_field(validate(board, s)), "board.kinds[1]");
}

#[test]
fn the_collapse_family_refuses_holes_and_kinds() {
    let mut board = level("AB/AB");
    board.kinds.clear();
    let tap = |board: Board| {
        collapse::tap(proto::TapRequest {
            board: Some(board),
            position: Some(pos(0, 0)),
            ..Default::default()
        })
        .map_err(engine_status)
    };
    assert_eq!(invalid_field(tap(board.clone())), "board.holes");
    let mut with_kinds = level("AB/AB");
    with_kinds.holes.clear();
    assert_eq!(invalid_field(tap(with_kinds.clone())), "board.kinds");
    let dead = collapse::check_dead_state(proto::CollapseCheckDeadStateRequest {
        board: Some(with_kinds),
        ..Default::default()
    })
    .map_err(engine_status);
    assert_eq!(invalid_field(dead), "board.kinds");
}

#[test]
fn hole_verdicts_and_combinations_on_validate_swap() {
    let board = level("RG#/GR*/BBG");
    // Off the board first, then HOLE (even when the cells are not adjacent), then the rest.
    let verdict = |a, b| validate(board.clone(), swap(a, b)).unwrap();
    assert_eq!(verdict((0, 2), (0, 3)).verdict(), SwapVerdict::OutOfBounds);
    assert_eq!(verdict((0, 2), (2, 0)).verdict(), SwapVerdict::Hole);
    assert_eq!(verdict((0, 1), (0, 2)).verdict(), SwapVerdict::Hole);
    assert_eq!(verdict((0, 0), (1, 1)).verdict(), SwapVerdict::NotAdjacent);
    let combination = verdict((1, 2), (2, 2));
    assert_eq!(combination.verdict(), SwapVerdict::Ok);
    assert_eq!(combination.combination(), Combination::BombNormal);
    assert!(combination.groups.is_empty());
    // An ordinary swap that matches nothing: column 0 becomes R, B, G and row 2 G, B, G.
    let plain = verdict((1, 0), (2, 0));
    assert_eq!(plain.verdict(), SwapVerdict::NoMatch);
    assert_eq!(plain.combination(), Combination::Unspecified);
}

#[test]
fn resolving_a_swap_into_a_hole_is_a_failed_precondition() {
    let request = ResolveCascadeRequest {
        board: Some(level("RG#/GR*/BBG")),
        swap: Some(swap((0, 1), (0, 2))),
        refill: RefillMode::None as i32,
        ..Default::default()
    };
    let status = rpc::resolve_cascade(request)
        .map_err(engine_status)
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(precondition_subjects(&status), vec!["swap".to_owned()]);
    assert!(status.message().contains("SWAP_VERDICT_HOLE"), "{status:?}");
}

#[test]
fn check_dead_state_lists_combinations_alongside_the_swaps() {
    let response = rpc::check_dead_state(SwapCheckDeadStateRequest {
        board: Some(level("*RG/GBR/RGB-")),
    })
    .unwrap();
    let swaps: Vec<_> = response
        .valid_swaps
        .iter()
        .map(|s| {
            let (a, b) = (s.a.unwrap(), s.b.unwrap());
            ((a.row, a.col), (b.row, b.col))
        })
        .collect();
    // The bomb with its two neighbours; no ordinary swap matches on this board.
    assert_eq!(swaps, vec![((0, 0), (0, 1)), ((0, 0), (1, 0))]);
    assert_eq!(
        response.combinations,
        vec![
            Combination::BombNormal as i32,
            Combination::BombNormal as i32
        ]
    );
    assert!(!response.dead);
    // Plain boards keep the plain response: no combinations list.
    let plain = rpc::check_dead_state(SwapCheckDeadStateRequest {
        board: Some(common::board("RRG/GGR")),
    })
    .unwrap();
    assert!(plain.combinations.is_empty());
}

#[test]
fn generation_with_a_mask() {
    let mut holes = vec![false; 36];
    for i in [0, 5, 14, 15, 30, 35] {
        holes[i] = true;
    }
    let request = SwapGenerateBoardRequest {
        width: 6,
        height: 6,
        colors: 5,
        seed: 11,
        min_moves: Some(4),
        holes: holes.clone(),
        layout: None,
    };
    let response = rpc::generate_board(request.clone()).unwrap();
    let board = response.board.unwrap();
    assert_eq!(board.holes, holes);
    assert_eq!(board.kinds, vec![0; 36]);
    for (i, &hole) in holes.iter().enumerate() {
        assert_eq!(board.cells[i] == 0, hole);
    }
    assert!(response.valid_swap_count >= 4);
    let again = rpc::generate_board(request).unwrap();
    assert_eq!(again.board.unwrap(), board);
    // A mask with no line of three open cells: refused at once, naming `holes`.
    let infeasible = SwapGenerateBoardRequest {
        width: 2,
        height: 2,
        colors: 4,
        seed: 0,
        min_moves: None,
        holes: vec![false, true, false, false],
        layout: None,
    };
    assert_eq!(
        invalid_field(rpc::generate_board(infeasible).map_err(engine_status)),
        "holes"
    );
    let wrong_length = SwapGenerateBoardRequest {
        width: 3,
        height: 3,
        colors: 4,
        holes: vec![false; 8],
        ..Default::default()
    };
    assert_eq!(
        invalid_field(rpc::generate_board(wrong_length).map_err(engine_status)),
        "holes"
    );
}

#[test]
fn shuffle_keeps_holes_and_kinds_with_tiles() {
    let board = level("RGB#/GR-BG/#RGB/BGR+R");
    let response = rpc::shuffle(ShuffleRequest {
        board: Some(board.clone()),
        seed: 5,
    })
    .unwrap();
    let shuffled = response.board.unwrap();
    assert_eq!(shuffled.holes, board.holes);
    let mut before: Vec<(u32, i32)> = board
        .cells
        .iter()
        .copied()
        .zip(board.kinds.clone())
        .collect();
    let mut after: Vec<(u32, i32)> = shuffled
        .cells
        .iter()
        .copied()
        .zip(shuffled.kinds.clone())
        .collect();
    before.sort_unstable();
    after.sort_unstable();
    assert_eq!(before, after);
    assert!(response.valid_swap_count >= 1);
}

#[test]
fn a_level_cascade_reports_fired_created_and_effect_cells() {
    // The striped + striped combination of the rules' table, under NONE refill.
    let request = ResolveCascadeRequest {
        board: Some(level("RGBY/GR-G-B/BYRG/YBYR")),
        swap: Some(swap((1, 1), (1, 2))),
        refill: RefillMode::None as i32,
        include_step_boards: true,
        ..Default::default()
    };
    let response = rpc::resolve_cascade(request).unwrap();
    assert_eq!(response.steps.len(), 1);
    let step = &response.steps[0];
    assert!(step.groups.is_empty() && step.fired.is_empty() && step.created.is_empty());
    let cleared: Vec<(u32, u32)> = step.effect_cleared.iter().map(|p| (p.row, p.col)).collect();
    assert_eq!(
        cleared,
        vec![(0, 2), (1, 0), (1, 1), (1, 2), (1, 3), (2, 2), (3, 2)]
    );
    assert_eq!(step.score, 70);
    let final_board = response.board.unwrap();
    assert_eq!(level_text(&final_board), "..../RG.Y/BY.G/YB.R");
    assert_eq!(final_board.holes, vec![false; 16]);
    assert_eq!(step.board.as_ref().unwrap(), &final_board);
    assert!(!response.stable);
}

/// A pinned level cascade under RANDOM refill: a colour bomb swapped with a wrapped piece on a
/// board with holes. The values were produced once and checked against the rules (and the
/// reference re-simulation of the property tests); any change to the level rules, the refill
/// or the RNG stream shows up here.
#[test]
fn golden_level_cascade_bomb_and_wrapped_with_holes() {
    let request = ResolveCascadeRequest {
        board: Some(level("RGBYR/GB#RB/Y*R+GY/B#GYR/RYBGB")),
        swap: Some(swap((2, 1), (2, 2))),
        colors: 5,
        seed: 42,
        refill: RefillMode::Random as i32,
        ..Default::default()
    };
    let one = rpc::resolve_cascade(request.clone()).unwrap();
    let two = rpc::resolve_cascade(request).unwrap();
    assert_eq!(one.encode_to_vec(), two.encode_to_vec());
    let first = &one.steps[0];
    // Bomb + wrapped R: every R tile fires as WRAPPED, row-major.
    let fired: Vec<((u32, u32), i32)> = first
        .fired
        .iter()
        .map(|s| {
            let p = s.position.unwrap();
            ((p.row, p.col), s.kind)
        })
        .collect();
    assert_eq!(
        fired,
        vec![
            ((0, 0), PieceKind::Wrapped as i32),
            ((0, 4), PieceKind::Wrapped as i32),
            ((1, 3), PieceKind::Wrapped as i32),
            ((3, 4), PieceKind::Wrapped as i32),
            ((4, 0), PieceKind::Wrapped as i32),
        ]
    );
    assert_eq!(one.steps.len(), 1);
    assert_eq!(first.spawns.len(), 20);
    assert!(one.steps.iter().all(|s| s.board.is_none()));
    let last = one.board.as_ref().unwrap();
    assert!(last.holes[7] && last.holes[16]);
    assert_eq!(last.cells[7], 0);
    assert!(one.stable);
    assert_eq!(one.total_score, GOLDEN_TOTAL);
    assert_eq!(level_text(last), GOLDEN_FINAL);
}

/// 20 tiles cleared in step 1 (the five wrapped blasts, holes skipped), 10 * 1 * 20.
const GOLDEN_TOTAL: u64 = 200;
/// Y at (2,0) fell to (4,0); G and B at (3,2), (4,2) stayed; 20 cells refilled.
const GOLDEN_FINAL: &str = "GYRPY/BG#YY/GYRGG/R#GPY/YYBPG";
