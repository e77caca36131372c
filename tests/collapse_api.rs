//! CollapsePuzzle over gRPC against the real server: every RPC, the collapse examples of docs/rules.md
//! section 5, every scoring rule, the column-closing edge cases, unsettled boards, and whole
//! games played tap by tap, each checked against the independent reference in `tests/reference`.
mod api_support;
mod common;
mod reference;

use common::{
    TestServer, bad_request_fields, board, pos, precondition_subjects, precondition_violations,
    text,
};
use matchgrid::proto::collapse_puzzle_client::CollapsePuzzleClient;
use matchgrid::proto::{
    Board, CollapseCheckDeadStateRequest, CollapseCheckDeadStateResponse,
    CollapseGenerateBoardRequest, TapRequest, TapResponse,
};
use reference::Cell;
use reference::collapse::Rule;
use reference::convert::{cell, falls_of, grid};
use tonic::Code;
use tonic::transport::Channel;

type Client = CollapsePuzzleClient<Channel>;

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

fn tap_request(b: &Board, at: Cell, rule: Rule, min_group: u32) -> TapRequest {
    TapRequest {
        board: Some(b.clone()),
        position: Some(pos(at.0, at.1)),
        scoring: rule.wire(),
        min_group,
    }
}

async fn tap(client: &mut Client, text_board: &str, at: Cell, rule: Rule) -> TapResponse {
    client
        .tap(tap_request(&board(text_board), at, rule, 0))
        .await
        .unwrap_or_else(|e| panic!("tap {text_board} at {at:?}: {e}"))
        .into_inner()
}

async fn tap_error(client: &mut Client, text_board: &str, at: Cell) -> tonic::Status {
    match client
        .tap(tap_request(&board(text_board), at, Rule::PopStar, 0))
        .await
    {
        Ok(r) => panic!("tap {text_board} at {at:?} succeeded: {:?}", r.into_inner()),
        Err(status) => status,
    }
}

async fn dead_state(
    client: &mut Client,
    b: &Board,
    rule: Rule,
    min_group: u32,
) -> CollapseCheckDeadStateResponse {
    client
        .check_dead_state(CollapseCheckDeadStateRequest {
            board: Some(b.clone()),
            scoring: rule.wire(),
            min_group,
        })
        .await
        .unwrap_or_else(|e| panic!("CheckDeadState {}: {e}", text(b)))
        .into_inner()
}

fn out_board(response: &TapResponse) -> String {
    text(response.board.as_ref().expect("board"))
}

fn cleared_of(response: &TapResponse) -> Vec<Cell> {
    response.cleared.iter().map(|p| (p.row, p.col)).collect()
}

fn shifts_of(response: &TapResponse) -> Vec<(u32, u32)> {
    response
        .column_shifts
        .iter()
        .map(|s| (s.from_col, s.to_col))
        .collect()
}

/// Checks a Tap response against the reference tap of `at` on `before`.
fn check_tap(before: &Board, at: Cell, rule: Rule, min_group: usize, response: &TapResponse) {
    let context = format!("tap {at:?} on {} ({rule:?}, min {min_group})", text(before));
    let expected = reference::collapse::tap(&grid(before), at);
    assert_eq!(cleared_of(response), expected.cleared, "{context}: cleared");
    let w = before.width as usize;
    assert_eq!(
        response.color,
        before.cells[at.0 as usize * w + at.1 as usize],
        "{context}: colour"
    );
    assert_eq!(
        falls_of(&response.falls),
        expected.falls,
        "{context}: falls"
    );
    assert_eq!(shifts_of(response), expected.shifts, "{context}: shifts");
    assert_eq!(
        out_board(response),
        text(&expected.board.proto()),
        "{context}: board"
    );
    let n = expected.cleared.len() as u64;
    assert_eq!(response.move_score, rule.move_score(n), "{context}: score");
    let k = expected.board.tiles();
    assert_eq!(response.tiles_left as usize, k, "{context}: tiles_left");
    let over = reference::collapse::legal_groups(&expected.board, min_group).is_empty();
    assert_eq!(response.game_over, over, "{context}: game_over");
    let bonus = if over { rule.end_bonus(k as i64) } else { 0 };
    assert_eq!(response.end_bonus, bonus, "{context}: end_bonus");
    assert_eq!(
        response.total_score,
        response.move_score as i64 + response.end_bonus,
        "{context}: total_score"
    );
}

/// Checks a CheckDeadState response against the reference.
fn check_dead_state(
    b: &Board,
    rule: Rule,
    min_group: usize,
    response: &CollapseCheckDeadStateResponse,
) {
    let context = format!("{} ({rule:?}, min {min_group})", text(b));
    let expected = reference::collapse::legal_groups(&grid(b), min_group);
    let got: Vec<(Cell, u32, usize)> = response
        .groups
        .iter()
        .map(|g| (cell(g.representative), g.color, g.size as usize))
        .collect();
    assert_eq!(got, expected, "{context}: groups");
    for g in &response.groups {
        assert_eq!(g.score, rule.move_score(u64::from(g.size)), "{context}");
    }
    let k = grid(b).tiles();
    assert_eq!(response.tiles_left as usize, k, "{context}: tiles_left");
    assert_eq!(
        response.game_over,
        expected.is_empty(),
        "{context}: game_over"
    );
    let bonus = if expected.is_empty() {
        rule.end_bonus(k as i64)
    } else {
        0
    };
    assert_eq!(response.end_bonus, bonus, "{context}: end_bonus");
}

// ---------------------------------------------------------------------------------------------
// docs/rules.md section 5 examples
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn spec_abbc_tap_closes_the_emptied_columns() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let response = tap(&mut client, "ABBC/ABBC", (0, 1), Rule::PopStar).await;
    assert_eq!(out_board(&response), "AC../AC..");
    assert_eq!(cleared_of(&response), vec![(0, 1), (0, 2), (1, 1), (1, 2)]);
    assert_eq!(response.color, 3);
    assert!(response.falls.is_empty());
    assert_eq!(shifts_of(&response), vec![(3, 1)]);
    assert_eq!(response.move_score, 80);
    assert_eq!(response.tiles_left, 4);
    assert!(!response.game_over, "the A column is still a pair");
    assert_eq!((response.end_bonus, response.total_score), (0, 80));
    check_tap(&board("ABBC/ABBC"), (0, 1), Rule::PopStar, 2, &response);

    // The default rule (UNSPECIFIED) is POPSTAR.
    let default = client
        .tap(TapRequest {
            board: Some(board("ABBC/ABBC")),
            position: Some(pos(1, 2)),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(default.move_score, 80);
    assert_eq!(out_board(&default), "AC../AC..");

    // n = 4 under the other rules.
    for (rule, score) in [
        (Rule::SameGame, 4),
        (Rule::Clickomania, 4),
        (Rule::BubbleBreaker, 12),
    ] {
        let response = tap(&mut client, "ABBC/ABBC", (1, 1), rule).await;
        assert_eq!(response.move_score, score, "{rule:?}");
        assert_eq!(response.total_score, score as i64, "{rule:?}");
        assert_eq!(out_board(&response), "AC../AC..");
    }
}

#[tokio::test]
async fn spec_aa_aa_full_clear_scores_move_and_end_bonus() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    for (rule, move_score, bonus) in [
        (Rule::PopStar, 80, 2000),
        (Rule::SameGame, 4, 1000),
        (Rule::Clickomania, 4, 0),
        (Rule::BubbleBreaker, 12, 0),
    ] {
        let response = tap(&mut client, "AA/AA", (0, 0), rule).await;
        assert_eq!(out_board(&response), "../..", "{rule:?}");
        assert_eq!(cleared_of(&response), vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
        assert!(response.falls.is_empty() && response.column_shifts.is_empty());
        assert_eq!(response.tiles_left, 0);
        assert!(response.game_over, "{rule:?}");
        assert_eq!(response.move_score, move_score, "{rule:?}");
        assert_eq!(response.end_bonus, bonus, "{rule:?}");
        assert_eq!(response.total_score, move_score as i64 + bonus, "{rule:?}");
        check_tap(&board("AA/AA"), (0, 0), rule, 2, &response);

        // CheckDeadState on the emptied board agrees.
        let over = dead_state(&mut client, &board("../.."), rule, 0).await;
        assert!(over.game_over && over.groups.is_empty());
        assert_eq!((over.tiles_left, over.end_bonus), (0, bonus), "{rule:?}");
    }
}

#[tokio::test]
async fn spec_rbb_rrr_rbb_gravity_then_column_collapse() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let response = tap(&mut client, "RBB/RRR/RBB", (1, 1), Rule::PopStar).await;
    assert_eq!(out_board(&response), ".../BB./BB.");
    assert_eq!(
        cleared_of(&response),
        vec![(0, 0), (1, 0), (1, 1), (1, 2), (2, 0)]
    );
    assert_eq!(response.color, 1);
    // Falls are reported before the column collapse.
    assert_eq!(
        falls_of(&response.falls),
        vec![((0, 1), (1, 1)), ((0, 2), (1, 2))]
    );
    assert_eq!(shifts_of(&response), vec![(1, 0), (2, 1)]);
    assert_eq!(response.move_score, 125, "5 * 5^2");
    assert_eq!(response.tiles_left, 4);
    assert!(!response.game_over);
    check_tap(&board("RBB/RRR/RBB"), (1, 1), Rule::PopStar, 2, &response);
}

// ---------------------------------------------------------------------------------------------
// scoring rules
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn each_rule_scores_moves_from_the_group_size() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    // n = 7, with falls and two non-adjacent columns emptied.
    for (rule, score) in [
        (Rule::PopStar, 245),
        (Rule::SameGame, 25),
        (Rule::Clickomania, 7),
        (Rule::BubbleBreaker, 42),
    ] {
        let response = tap(&mut client, "BAB/BAB/BBB", (2, 1), rule).await;
        assert_eq!(out_board(&response), ".../A../A..");
        assert_eq!(response.move_score, score, "{rule:?}");
        assert!(!response.game_over);
        assert_eq!(response.total_score, score as i64);
        check_tap(&board("BAB/BAB/BBB"), (2, 1), rule, 2, &response);
    }
    // n = 2: SameGame scores 0, the others their formula.
    for (rule, score) in [
        (Rule::PopStar, 20),
        (Rule::SameGame, 0),
        (Rule::Clickomania, 2),
        (Rule::BubbleBreaker, 2),
    ] {
        let response = tap(&mut client, "AB/AC", (1, 0), rule).await;
        assert_eq!(response.move_score, score, "{rule:?}");
    }
}

#[tokio::test]
async fn each_rule_applies_its_end_bonus_at_game_over() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    // Single rows: tapping the leading pair leaves k alternating tiles, so the game is over.
    let cases: &[(&str, i64)] = &[
        ("RR", 0),
        ("RRG", 1),
        ("RRGBG", 3),
        ("RRGBGBGBGBG", 9),
        ("RRGBGBGBGBGB", 10),
        ("RRGBGBGBGBGBG", 11),
        ("RRGBGBGBGBGBGBGBGBGBGBGBGBGBGBGB", 30),
    ];
    for &(row, k) in cases {
        for rule in Rule::ALL {
            let response = tap(&mut client, row, (0, 1), rule).await;
            assert!(response.game_over, "{row} {rule:?}");
            assert_eq!(response.tiles_left as i64, k, "{row}");
            let bonus = match rule {
                Rule::PopStar => (2000 - 20 * k * k).max(0),
                Rule::SameGame if k == 0 => 1000,
                _ => 0,
            };
            assert_eq!(response.end_bonus, bonus, "{row} {rule:?}");
            assert_eq!(
                response.total_score,
                response.move_score as i64 + bonus,
                "{row} {rule:?}"
            );
            check_tap(&board(row), (0, 1), rule, 2, &response);
        }
    }
    // Pinned values of the POPSTAR bonus.
    for (row, bonus) in [
        ("RR", 2000),
        ("RRG", 1980),
        ("RRGBG", 1820),
        ("RRGBGBGBGBG", 380),
        ("RRGBGBGBGBGB", 0),
        ("RRGBGBGBGBGBG", 0),
    ] {
        let response = tap(&mut client, row, (0, 0), Rule::PopStar).await;
        assert_eq!(response.end_bonus, bonus, "{row}");
    }
    // No bonus while the game goes on.
    let response = tap(&mut client, "AAB/CCB", (0, 0), Rule::PopStar).await;
    assert!(!response.game_over);
    assert_eq!(response.end_bonus, 0);
}

#[tokio::test]
async fn check_dead_state_lists_groups_with_rule_scores() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let b = board("ABBC/ABBC");
    let response = dead_state(&mut client, &b, Rule::PopStar, 0).await;
    assert!(!response.game_over);
    assert_eq!(response.tiles_left, 8);
    assert_eq!(response.end_bonus, 0);
    let listed: Vec<(Cell, u32, u32, u64)> = response
        .groups
        .iter()
        .map(|g| (cell(g.representative), g.color, g.size, g.score))
        .collect();
    assert_eq!(
        listed,
        vec![((0, 0), 11, 2, 20), ((0, 1), 3, 4, 80), ((0, 3), 7, 2, 20)]
    );
    // min_group filters the list and decides game over.
    let response = dead_state(&mut client, &b, Rule::SameGame, 3).await;
    assert_eq!(response.groups.len(), 1);
    assert_eq!((response.groups[0].size, response.groups[0].score), (4, 4));
    let response = dead_state(&mut client, &b, Rule::SameGame, 5).await;
    assert!(response.game_over && response.groups.is_empty());
    assert_eq!(response.end_bonus, 0, "board not empty");
    // Game over under min_group 5 with k = 8 tiles: POPSTAR 2000 - 20 * 64 = 720.
    let response = dead_state(&mut client, &b, Rule::PopStar, 5).await;
    assert!(response.game_over);
    assert_eq!((response.tiles_left, response.end_bonus), (8, 720));

    for (t, min_group) in [
        ("RGB/RGB/GGB", 2),
        ("RGB/RGB/GGB", 4),
        ("R.../RG../RGB.", 2),
        ("GBG", 2),
        ("AAB/CBB", 2),
        ("RRRR/GGGG/RRRR/GGGG", 3),
    ] {
        for rule in Rule::ALL {
            let response = dead_state(&mut client, &board(t), rule, min_group).await;
            check_dead_state(&board(t), rule, min_group as usize, &response);
        }
    }
}

#[tokio::test]
async fn check_dead_state_end_bonus_for_a_finished_board() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    // k = 8 tiles, no pair: game over, POPSTAR 2000 - 20 * 64 = 720.
    let b = board("RGRG/GRGR");
    let response = dead_state(&mut client, &b, Rule::PopStar, 0).await;
    assert!(response.game_over);
    assert_eq!((response.tiles_left, response.end_bonus), (8, 720));
    let response = dead_state(&mut client, &b, Rule::SameGame, 0).await;
    assert_eq!(response.end_bonus, 0);
}

// ---------------------------------------------------------------------------------------------
// edge cases
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn illegal_taps_are_failed_precondition_naming_the_reason() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    // Empty cell.
    let status = tap_error(&mut client, "AB./AB.", (0, 2)).await;
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert_eq!(
        precondition_violations(&status),
        vec![("position".to_owned(), "EMPTY_CELL".to_owned())]
    );
    let status = tap_error(&mut client, "../A.", (0, 0)).await;
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    // Single tile.
    let status = tap_error(&mut client, "AB./AC.", (0, 1)).await;
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert_eq!(
        precondition_violations(&status),
        vec![("position".to_owned(), "GROUP_TOO_SMALL".to_owned())]
    );
    let status = tap_error(&mut client, "R", (0, 0)).await;
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    // A pair under min_group 3.
    let status = client
        .tap(tap_request(&board("AB/AC"), (0, 0), Rule::PopStar, 3))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::FailedPrecondition);
    assert_eq!(precondition_subjects(&status), vec!["position"]);
    // Off the board: INVALID_ARGUMENT naming `position`.
    for at in [(2, 0), (0, 3), (u32::MAX, u32::MAX), (0, 64)] {
        let status = tap_error(&mut client, "AB./AB.", at).await;
        assert_eq!(status.code(), Code::InvalidArgument, "{at:?}: {status:?}");
        assert_eq!(bad_request_fields(&status), vec!["position"], "{at:?}");
    }
}

#[tokio::test]
async fn emptied_columns_close_in_every_arrangement() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    struct Case {
        board: &'static str,
        at: Cell,
        after: &'static str,
        shifts: &'static [(u32, u32)],
        falls: &'static [(Cell, Cell)],
    }
    let cases = [
        // Rightmost column emptied: nothing moves left.
        Case {
            board: "ABC/ABC",
            at: (1, 2),
            after: "AB./AB.",
            shifts: &[],
            falls: &[],
        },
        // Leftmost column emptied: everything slides by one.
        Case {
            board: "ABC/ABC",
            at: (0, 0),
            after: "BC./BC.",
            shifts: &[(1, 0), (2, 1)],
            falls: &[],
        },
        // Two adjacent columns emptied by one tap.
        Case {
            board: "BBA/BBC",
            at: (1, 1),
            after: "A../C..",
            shifts: &[(2, 0)],
            falls: &[],
        },
        // Two non-adjacent columns emptied by one tap.
        Case {
            board: "BBBG/BABG",
            at: (0, 0),
            after: ".G../AG..",
            shifts: &[(1, 0), (3, 1)],
            falls: &[],
        },
        // Non-adjacent columns emptied, with falls in the surviving column.
        Case {
            board: "BAB/BAB/BBB",
            at: (0, 0),
            after: ".../A../A..",
            shifts: &[(1, 0)],
            falls: &[((0, 1), (1, 1)), ((1, 1), (2, 1))],
        },
        // Empty columns already on the right stay there and are not listed.
        Case {
            board: "AB../AC..",
            at: (0, 0),
            after: "B.../C...",
            shifts: &[(1, 0)],
            falls: &[],
        },
        Case {
            board: "ABA./CBD.",
            at: (0, 1),
            after: "AA../CD..",
            shifts: &[(2, 1)],
            falls: &[],
        },
        // A middle column emptied while a partial column falls.
        Case {
            board: "G.../RBG./RBGG",
            at: (1, 1),
            after: "G.../RG../RGG.",
            shifts: &[(2, 1), (3, 2)],
            falls: &[],
        },
        // Three columns emptied by one tap: first, middle and last of five, with falls.
        Case {
            board: "RGRBR/RRRRR",
            at: (1, 2),
            after: "...../GB...",
            shifts: &[(1, 0), (3, 1)],
            falls: &[((0, 1), (1, 1)), ((0, 3), (1, 3))],
        },
        // The leftmost column only.
        Case {
            board: "RGRBR/RGRBR",
            at: (0, 0),
            after: "GRBR./GRBR.",
            shifts: &[(1, 0), (2, 1), (3, 2), (4, 3)],
            falls: &[],
        },
        // A full clear.
        Case {
            board: "RRR/RRR/RRR",
            at: (1, 1),
            after: ".../.../...",
            shifts: &[],
            falls: &[],
        },
    ];
    for case in cases {
        let response = tap(&mut client, case.board, case.at, Rule::PopStar).await;
        assert_eq!(out_board(&response), case.after, "{}", case.board);
        assert_eq!(shifts_of(&response), case.shifts, "{}", case.board);
        assert_eq!(falls_of(&response.falls), case.falls, "{}", case.board);
        check_tap(&board(case.board), case.at, Rule::PopStar, 2, &response);
    }
    // The full clear ends the game with the whole bonus.
    let response = tap(&mut client, "RRR/RRR/RRR", (2, 2), Rule::PopStar).await;
    assert!(response.game_over);
    assert_eq!(
        (
            response.move_score,
            response.end_bonus,
            response.total_score
        ),
        (405, 2000, 2405)
    );
}

#[tokio::test]
async fn unsettled_boards_are_failed_precondition_naming_the_cell_or_column() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let cases = [
        // A floating tile.
        ("A./.A", "board.cells[0][0]"),
        ("AA/.A", "board.cells[0][0]"),
        ("BB/A./.A", "board.cells[0][1]"),
        // A gap column with a non-empty column to its right.
        ("..A/A.A", "board.column[1]"),
        ("A.A", "board.column[1]"),
        (".A/.A", "board.column[0]"),
        ("AA..A/AA..A", "board.column[2]"),
    ];
    for (t, subject) in cases {
        let b = board(t);
        let status = client
            .tap(tap_request(&b, (b.height - 1, 0), Rule::PopStar, 0))
            .await
            .unwrap_err();
        assert_eq!(
            status.code(),
            Code::FailedPrecondition,
            "tap {t}: {status:?}"
        );
        assert_eq!(precondition_subjects(&status), vec![subject], "tap {t}");
        let status = client
            .check_dead_state(CollapseCheckDeadStateRequest {
                board: Some(b.clone()),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            status.code(),
            Code::FailedPrecondition,
            "dead {t}: {status:?}"
        );
        assert_eq!(precondition_subjects(&status), vec![subject], "dead {t}");
    }
}

// ---------------------------------------------------------------------------------------------
// GenerateBoard and whole games
// ---------------------------------------------------------------------------------------------

async fn generate(
    client: &mut Client,
    width: u32,
    height: u32,
    colors: u32,
    seed: u64,
    min_group: u32,
) -> (Board, u32) {
    let response = client
        .generate_board(CollapseGenerateBoardRequest {
            width,
            height,
            colors,
            seed,
            min_group,
            clearable: false,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("generate {width}x{height}/{colors}/{seed}/{min_group}: {e}"))
        .into_inner();
    (response.board.expect("board"), response.legal_group_count)
}

#[tokio::test]
async fn generate_board_is_full_with_a_legal_move_and_deterministic() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let cases = [
        (10, 10, 5, 0),
        (15, 15, 5, 2),
        (8, 12, 4, 3),
        (20, 20, 16, 4),
        (1, 1, 1, 0),
        (1, 2, 3, 0),
        (3, 3, 9, 9),
        (64, 64, 6, 0),
        (5, 5, 1, 25),
    ];
    for (w, h, colors, min_group) in cases {
        for seed in [0, 1, 77] {
            let context = format!("{w}x{h}/{colors}/seed {seed}/min {min_group}");
            if w * h < 2 {
                // 1x1 has no legal group; requesting one is INVALID_ARGUMENT.
                let status = client
                    .generate_board(CollapseGenerateBoardRequest {
                        width: w,
                        height: h,
                        colors,
                        seed,
                        min_group,
                        clearable: false,
                        ..Default::default()
                    })
                    .await
                    .unwrap_err();
                assert_eq!(status.code(), Code::InvalidArgument, "{context}");
                assert_eq!(bad_request_fields(&status), vec!["min_group"], "{context}");
                continue;
            }
            let (b, count) = generate(&mut client, w, h, colors, seed, min_group).await;
            assert_eq!((b.width, b.height), (w, h), "{context}");
            assert!(
                b.cells.iter().all(|&c| (1..=colors).contains(&c)),
                "{context}: full board with colours 1..={colors}"
            );
            let effective = if min_group == 0 { 2 } else { min_group };
            let dead = dead_state(&mut client, &b, Rule::PopStar, effective).await;
            check_dead_state(&b, Rule::PopStar, effective as usize, &dead);
            assert!(!dead.game_over, "{context}: no legal move");
            assert_eq!(count as usize, dead.groups.len(), "{context}");
            let again = generate(&mut client, w, h, colors, seed, min_group).await;
            assert_eq!(again, (b.clone(), count), "{context}: not deterministic");
        }
    }
    // Different seeds give different boards.
    let mut seen = Vec::new();
    for seed in 0..6 {
        seen.push(text(&generate(&mut client, 10, 10, 5, seed, 0).await.0));
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 6);
}

/// Plays `start` to game over, checking every answer against the reference; `choose` picks the
/// index of the group to tap among the legal ones. Returns (moves, sum of move scores, bonus).
async fn play(
    client: &mut Client,
    start: &Board,
    rule: Rule,
    min_group: u32,
    mut choose: impl FnMut(usize) -> usize,
) -> (usize, u64, i64) {
    let effective = if min_group == 0 {
        2
    } else {
        min_group as usize
    };
    let mut current = start.clone();
    let mut moves = 0;
    let mut sum = 0u64;
    let mut reference_sum = 0u64;
    loop {
        let listed = dead_state(client, &current, rule, min_group).await;
        check_dead_state(&current, rule, effective, &listed);
        assert!(!listed.game_over, "the previous tap said the game went on");
        let group = &listed.groups[choose(listed.groups.len())];
        let members = reference::collapse::component(&grid(&current), cell(group.representative));
        // Tap any cell of the group: alternate between its first and last cell.
        let at = if moves % 2 == 0 {
            members[0]
        } else {
            *members.last().unwrap()
        };
        let response = client
            .tap(tap_request(&current, at, rule, min_group))
            .await
            .unwrap_or_else(|e| panic!("tap {at:?} on {}: {e}", text(&current)))
            .into_inner();
        check_tap(&current, at, rule, effective, &response);
        assert_eq!(
            response.move_score, group.score,
            "listed score vs tap score"
        );
        assert_eq!(response.cleared.len() as u32, group.size);
        moves += 1;
        sum += response.move_score;
        reference_sum += rule.move_score(members.len() as u64);
        current = response.board.clone().unwrap();
        if response.game_over {
            let k = grid(&current).tiles() as i64;
            assert_eq!(response.end_bonus, rule.end_bonus(k));
            assert_eq!(sum, reference_sum);
            // Final total = sum of move scores + end bonus.
            let game_total = sum as i64 + response.end_bonus;
            assert_eq!(game_total, reference_sum as i64 + rule.end_bonus(k));
            // CheckDeadState agrees the game is over, with the same bonus.
            let over = dead_state(client, &current, rule, min_group).await;
            assert!(over.game_over && over.groups.is_empty());
            assert_eq!(over.tiles_left as i64, k);
            assert_eq!(over.end_bonus, response.end_bonus);
            return (moves, sum, response.end_bonus);
        }
        assert_eq!(response.end_bonus, 0);
    }
}

#[tokio::test]
async fn full_games_from_generated_boards_score_consistently() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let mut total_moves = 0;
    for rule in Rule::ALL {
        for seed in [1, 2, 3] {
            let (start, _) = generate(&mut client, 10, 10, 5, seed, 0).await;
            // Always the first legal group.
            let (moves, _, _) = play(&mut client, &start, rule, 0, |_| 0).await;
            total_moves += moves;
            // A seeded choice (simple LCG) among the legal groups.
            let mut state = seed;
            let (moves, _, _) = play(&mut client, &start, rule, 0, |n| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (state >> 33) as usize % n
            })
            .await;
            total_moves += moves;
        }
        // min_group 3 on a board generated for it.
        let (start, _) = generate(&mut client, 12, 9, 4, 9, 3).await;
        total_moves += play(&mut client, &start, rule, 3, |n| n - 1).await.0;
    }
    assert!(
        total_moves > 100,
        "games were suspiciously short: {total_moves}"
    );
}

#[tokio::test]
async fn large_boards_are_handled_like_small_ones() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    // 64x64 (above the inline-work threshold): the first 25 moves, each checked.
    let (start, count) = generate(&mut client, 64, 64, 3, 5, 0).await;
    let listed = dead_state(&mut client, &start, Rule::BubbleBreaker, 0).await;
    check_dead_state(&start, Rule::BubbleBreaker, 2, &listed);
    assert_eq!(listed.groups.len(), count as usize);
    let mut current = start;
    for step in 0..25 {
        let listed = dead_state(&mut client, &current, Rule::PopStar, 0).await;
        // The biggest group each time, so columns empty out and close.
        let best = listed
            .groups
            .iter()
            .max_by_key(|g| (g.size, std::cmp::Reverse(cell(g.representative))))
            .unwrap();
        let at = cell(best.representative);
        let response = client
            .tap(tap_request(&current, at, Rule::PopStar, 0))
            .await
            .unwrap_or_else(|e| panic!("move {step}: {e}"))
            .into_inner();
        check_tap(&current, at, Rule::PopStar, 2, &response);
        current = response.board.unwrap();
    }
    // A tall narrow and a wide flat board played to the end.
    for (w, h, seed) in [(2, 64, 3), (64, 2, 4), (30, 30, 6)] {
        let (start, _) = generate(&mut client, w, h, 4, seed, 0).await;
        play(&mut client, &start, Rule::SameGame, 0, |n| n / 3).await;
    }
}

#[tokio::test]
async fn small_game_pinned_by_hand() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    // RRG/RGG: tap R (3) -> .G./GG. ; tap G (3) -> empty.
    let first = tap(&mut client, "RRG/RGG", (0, 0), Rule::PopStar).await;
    assert_eq!(out_board(&first), ".G./GG.");
    assert_eq!((first.move_score, first.game_over), (45, false));
    let second = tap(&mut client, ".G./GG.", (1, 0), Rule::PopStar).await;
    assert_eq!(out_board(&second), ".../...");
    assert!(second.game_over);
    assert_eq!(
        (second.move_score, second.end_bonus, second.total_score),
        (45, 2000, 2045)
    );
    assert_eq!(
        first.move_score as i64 + second.total_score,
        2090,
        "game total"
    );
}

#[tokio::test]
async fn standard_samegame_positions_play_to_the_end() {
    let server = TestServer::start(&[]);
    let mut client = server.collapse_client().await;
    let positions = api_support::standard_positions();
    assert_eq!(positions.len(), 20);
    for (i, start) in positions.iter().enumerate() {
        assert!(start.cells.iter().all(|&c| (1..=5).contains(&c)), "#{i}");
        let listed = dead_state(&mut client, start, Rule::SameGame, 0).await;
        check_dead_state(start, Rule::SameGame, 2, &listed);
        // Always the middle one of the legal groups.
        let (moves, _, bonus) = play(&mut client, start, Rule::SameGame, 0, |n| n / 2).await;
        assert!(moves > 0, "#{i}");
        assert!(bonus == 0 || bonus == 1000, "#{i}: {bonus}");
    }
}
