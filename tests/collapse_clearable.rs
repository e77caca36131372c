//! `GenerateBoard` with `clearable = true`: the board is full, its `clearing_line` clears it
//! in the independent reference model and through `ReplayGame`, the same request gives the
//! same bytes, and requests the construction cannot meet are INVALID_ARGUMENT naming `colors`.

mod api_support;
mod common;
mod reference;

use matchgrid::proto::{self, CollapseGenerateBoardRequest};
use matchgrid::transport::collapse as rpc;
use proptest::prelude::*;
use tonic::Code;

use common::{TestServer, bad_request_fields, text};
use reference::collapse::{legal_groups, tap};
use reference::convert::{cell, grid};

fn clearable(
    width: u32,
    height: u32,
    colors: u32,
    seed: u64,
    min_group: u32,
) -> CollapseGenerateBoardRequest {
    CollapseGenerateBoardRequest {
        width,
        height,
        colors,
        seed,
        min_group,
        clearable: true,
        ..Default::default()
    }
}

/// Taps `line` on `board` in the reference model, each tap a legal group of at least
/// `min_group` cells; the tiles left.
fn tiles_left_after(board: &proto::Board, line: &[proto::Position], min_group: usize) -> usize {
    let mut g = grid(board);
    for (i, &at) in line.iter().enumerate() {
        let at = cell(at);
        assert!(
            legal_groups(&g, min_group)
                .iter()
                .any(|&(rep, _, _)| rep == at),
            "tap {i} at {at:?} is not a legal group's representative on {g:?}"
        );
        g = tap(&g, at).board;
    }
    g.tiles()
}

/// The PopStar board of seed 1, pinned: a change to the construction changes these bytes.
const POPSTAR_SEED_1: &str = "GRPYRPRGBY/GRPRRGGGBY/GBPRYGBYYR/PRYRYPRYYR/PRGGYPRYPR/\
                              BRPPYGBRBR/GPYYBBBYBP/RGPPPRGYPY/RBGGYRGRBY/RBYYRPGRBP";

#[tokio::test]
async fn a_clearable_popstar_board_is_full_clears_along_its_line_and_is_deterministic() {
    let (a, b) = (TestServer::start(&[]), TestServer::start(&[]));
    let (mut first, mut second) = (a.collapse_client().await, b.collapse_client().await);
    let request = clearable(10, 10, 5, 1, 0);
    let one = first.generate_board(request).await.unwrap().into_inner();
    let two = second.generate_board(request).await.unwrap().into_inner();
    assert_eq!(one, two, "same request, same answer");
    let board = one.board.clone().unwrap();
    assert_eq!(text(&board), POPSTAR_SEED_1);
    assert!(
        board.cells.iter().all(|&c| (1..=5).contains(&c)),
        "full, colours 1..=5"
    );
    assert_eq!(
        one.legal_group_count as usize,
        legal_groups(&grid(&board), 2).len()
    );
    assert_eq!(one.clearing_line.len(), 37, "pinned with the board");
    assert_eq!(one.legal_group_count, 30, "pinned with the board");
    assert_eq!(tiles_left_after(&board, &one.clearing_line, 2), 0);

    let replayed = first
        .replay_game(proto::CollapseReplayGameRequest {
            start: Some(proto::collapse_replay_game_request::Start::Board(board)),
            taps: one.clearing_line.clone(),
            scoring: proto::ScoringRule::Popstar.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replayed.tiles_left, 0);
    assert!(replayed.game_over);
    assert_eq!(
        replayed.end_bonus, 2000,
        "PopStar's bonus for a cleared board"
    );
    assert_eq!(replayed.moves.len(), one.clearing_line.len());

    let plain = first
        .generate_board(CollapseGenerateBoardRequest {
            clearable: false,
            ..request
        })
        .await
        .unwrap()
        .into_inner();
    assert!(plain.clearing_line.is_empty());
    assert_ne!(plain.board, one.board);
}

#[tokio::test]
async fn too_few_colours_for_the_size_is_invalid_argument_naming_colors() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    for request in [clearable(10, 10, 2, 1, 0), clearable(64, 64, 3, 1, 0)] {
        let status = client.generate_board(request).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{request:?}");
        assert_eq!(bad_request_fields(&status), vec!["colors"]);
    }
    let status = client
        .generate_board(clearable(2, 2, 5, 1, 5))
        .await
        .unwrap_err();
    assert_eq!(bad_request_fields(&status), vec!["min_group"]);
}

#[test]
fn one_colour_is_one_group() {
    let response = rpc::generate_board(clearable(7, 5, 1, 3, 0)).unwrap();
    assert_eq!(response.clearing_line.len(), 1);
    assert_eq!(
        tiles_left_after(&response.board.unwrap(), &response.clearing_line, 2),
        0
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// 200 random requests with 4 to 16 colours and at least min_group rows: each board is full and its line clears it in
    /// the reference model (the full 10,000-board count is the `clearable_boards` example).
    #[test]
    fn every_clearable_board_clears_in_the_reference_model(
        width in 1u32..=24,
        height in 1u32..=24,
        colors in 4u32..=16,
        min_group in 2u32..=4,
        seed in any::<u64>(),
    ) {
        // Boards lower than min_group fill by rows of groups only and may be refused.
        prop_assume!(height >= min_group);
        let response = rpc::generate_board(clearable(width, height, colors, seed, min_group)).unwrap();
        let board = response.board.unwrap();
        prop_assert_eq!(board.cells.len(), (width * height) as usize);
        prop_assert!(board.cells.iter().all(|&c| (1..=colors).contains(&c)));
        prop_assert_eq!(tiles_left_after(&board, &response.clearing_line, min_group as usize), 0);
    }
}
