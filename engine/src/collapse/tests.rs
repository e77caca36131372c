//! The collapse API on the examples of docs/rules.md section 3, and the two tap paths (planes
//! and column bitboards) against each other.

use super::*;
use crate::error::{TapRejection, Unsettled};

fn settled(text: &str) -> SettledBoard {
    SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
}

#[test]
fn spec_example_abbc() {
    let outcome = tap(
        &settled("ABBC/ABBC"),
        Position::new(0, 1),
        ScoringRule::PopStar,
        MinGroup::DEFAULT,
    )
    .unwrap();
    assert_eq!(outcome.board.board().to_string(), "AC../AC..");
    assert_eq!(outcome.cleared.len(), 4);
    assert_eq!(outcome.move_score, 80);
    assert_eq!(
        outcome.column_shifts,
        vec![ColumnShift {
            from_col: 3,
            to_col: 1
        }]
    );
    // The two A tiles still touch, so the game goes on.
    assert!(!outcome.game_over);
    assert_eq!(outcome.tiles_left, 4);
    assert_eq!(outcome.end_bonus, 0);
}

#[test]
fn spec_example_full_clear() {
    for (rule, score, bonus) in [
        (ScoringRule::PopStar, 80, 2000),
        (ScoringRule::SameGame, 4, 1000),
    ] {
        let outcome = tap(
            &settled("AA/AA"),
            Position::new(0, 0),
            rule,
            MinGroup::DEFAULT,
        )
        .unwrap();
        assert_eq!(outcome.board.board().to_string(), "../..");
        assert_eq!((outcome.move_score, outcome.end_bonus), (score, bonus));
        assert_eq!(outcome.total_score(), score as i64 + bonus);
    }
}

#[test]
fn spec_example_rbb() {
    let outcome = tap(
        &settled("RBB/RRR/RBB"),
        Position::new(1, 1),
        ScoringRule::PopStar,
        MinGroup::DEFAULT,
    )
    .unwrap();
    assert_eq!(outcome.board.board().to_string(), ".../BB./BB.");
    assert_eq!(outcome.cleared.len(), 5);
}

#[test]
fn illegal_taps_are_rejected() {
    let board = settled("AB./AB.");
    assert_eq!(
        tap(
            &board,
            Position::new(0, 2),
            ScoringRule::PopStar,
            MinGroup::DEFAULT
        ),
        Err(EngineError::IllegalTap(TapRejection::EmptyCell))
    );
    assert_eq!(
        tap(
            &board,
            Position::new(0, 0),
            ScoringRule::PopStar,
            MinGroup::parse(3).unwrap()
        ),
        Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size: 2,
            min_group: 3
        }))
    );
    assert!(matches!(
        tap(
            &board,
            Position::new(2, 0),
            ScoringRule::PopStar,
            MinGroup::DEFAULT
        ),
        Err(EngineError::PositionOffBoard {
            field: "position",
            ..
        })
    ));
}

#[test]
fn unsettled_boards_are_named() {
    assert_eq!(
        SettledBoard::try_from(Board::parse("A./.A").unwrap()),
        Err(EngineError::UnsettledBoard(Unsettled::FloatingTile(
            Position::new(0, 0)
        )))
    );
    assert_eq!(
        SettledBoard::try_from(Board::parse("..A/A.A").unwrap()),
        Err(EngineError::UnsettledBoard(Unsettled::GapColumn(1)))
    );
}

#[test]
fn two_non_adjacent_empty_columns_close() {
    let outcome = tap(
        &settled("BBBG/BABG"),
        Position::new(0, 0),
        ScoringRule::PopStar,
        MinGroup::DEFAULT,
    )
    .unwrap();
    assert_eq!(outcome.board.board().to_string(), ".G../AG..");
    assert_eq!(
        outcome.column_shifts,
        vec![
            ColumnShift {
                from_col: 1,
                to_col: 0
            },
            ColumnShift {
                from_col: 3,
                to_col: 1
            }
        ]
    );
    assert_eq!(outcome.falls, Vec::new());
}

#[test]
fn two_adjacent_empty_columns_close() {
    let outcome = tap(
        &settled("BBA/BBC"),
        Position::new(1, 1),
        ScoringRule::PopStar,
        MinGroup::DEFAULT,
    )
    .unwrap();
    assert_eq!(outcome.board.board().to_string(), "A../C..");
    assert_eq!(
        outcome.column_shifts,
        vec![ColumnShift {
            from_col: 2,
            to_col: 0
        }]
    );
    assert!(outcome.game_over);
    assert_eq!(outcome.end_bonus, 2000 - 20 * 4);
}

#[test]
fn legal_groups_are_listed_in_order() {
    let groups = legal_groups(
        &settled("AAB/CBB"),
        ScoringRule::SameGame,
        MinGroup::DEFAULT,
    );
    assert_eq!(
        groups,
        vec![
            LegalGroup {
                representative: Position::new(0, 0),
                color: 11,
                size: 2,
                score: 0
            },
            LegalGroup {
                representative: Position::new(0, 2),
                color: 3,
                size: 3,
                score: 1
            },
        ]
    );
}

/// A random settled board of `width x height`: a prefix of non-empty columns, each a stack of
/// tiles from the bottom (often full), from `colors` colours.
fn random_settled(
    width: usize,
    height: usize,
    colors: u8,
    rng: &mut crate::SeededRng,
) -> SettledBoard {
    use rand::Rng;
    let filled = if rng.random_range(0..4) == 0 {
        rng.random_range(0..=width)
    } else {
        width
    };
    let mut cells = vec![crate::board::EMPTY; width * height];
    for col in 0..filled {
        let stack = if rng.random() {
            height
        } else {
            rng.random_range(1..=height)
        };
        for row in height - stack..height {
            cells[row * width + col] = rng.random_range(1..=colors);
        }
    }
    SettledBoard::try_from(Board::from_engine_cells(width, height, cells)).unwrap()
}

/// The API's two paths agree on boards up to 16x16, where the public functions take the planes:
/// every tap against [`column_api::tap_columns`], the legal groups against
/// [`column_api::legal_groups_of`], the game-over test against the column bitboards, and the
/// compact game built from the cells against the one built from the bitboards. (Both paths are
/// held to the naive reference model by `tests/collapse_bitboards.rs` in the repository.)
#[test]
fn plane_and_column_paths_agree() {
    use rand::Rng;
    let mut rng = crate::rng_from_seed(20);
    for _ in 0..600 {
        let (width, height) = (rng.random_range(1..=17), rng.random_range(1..=17));
        let colors = rng.random_range(1..=6);
        let board = random_settled(width, height, colors, &mut rng);
        let min_group = MinGroup::parse(rng.random_range(2..=4)).unwrap();
        let columns = CollapseGame::new(&board);
        let label = format!("{width}x{height} {min_group:?} {}", board.board());
        assert_eq!(
            CompactGame::from_board(&board),
            CompactGame::new(&columns),
            "{label}"
        );
        for rule in [ScoringRule::PopStar, ScoringRule::SameGame] {
            assert_eq!(
                legal_groups(&board, rule, min_group),
                column_api::legal_groups_of(&columns, rule, min_group),
                "{label}"
            );
        }
        assert_eq!(
            is_game_over(&board, min_group),
            !columns.has_legal_group(min_group),
            "{label}"
        );
        for index in 0..width * height + 2 {
            let position = Position::new((index / width) as u32, (index % width) as u32);
            assert_eq!(
                tap(&board, position, ScoringRule::PopStar, min_group),
                column_api::tap_columns(&board, position, ScoringRule::PopStar, min_group),
                "{label} tap {position}"
            );
        }
    }
}
