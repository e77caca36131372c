//! Property tests of the collapse family (docs/rules.md section 3).
//!
//! The engine is compared with the naive reference of `tests/reference` (groups by flood fill,
//! gravity by rebuilding each column, empty columns closed by rebuilding the board from its
//! non-empty columns, scores from the rules' table). Random boards are settled by the
//! reference's helper before they are tapped. The last properties feed random, often malformed
//! requests to the transport functions, which must answer `Ok` or `Err` and never panic.

mod prop_support;
mod reference;

use matchgrid::engine::{
    self, EngineError, Position, ScoringRule, SettledBoard, TapRejection, Unsettled,
};
use matchgrid::proto;
use matchgrid::transport::collapse as rpc;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use prop_support::{
    Fault, SplitMix, board_faults, check_faults, config, min_group_of, raw_grid, wild_wire_board,
};
use reference::Grid;
use reference::collapse::{self as naive, Rule};
use reference::convert::{pos, pos_at};

// ---------------------------------------------------------------------------------------------
// The reference (tests/reference/collapse.rs) in the engine's vocabulary
// ---------------------------------------------------------------------------------------------

const RULES: [ScoringRule; 4] = [
    ScoringRule::PopStar,
    ScoringRule::SameGame,
    ScoringRule::Clickomania,
    ScoringRule::BubbleBreaker,
];

/// The engine's settled board for a grid that is settled.
fn settled_board(g: &Grid) -> SettledBoard {
    SettledBoard::try_from(g.board()).unwrap()
}

/// The reference's name for an engine scoring rule.
fn reference_rule(rule: ScoringRule) -> Rule {
    match rule {
        ScoringRule::PopStar => Rule::PopStar,
        ScoringRule::SameGame => Rule::SameGame,
        ScoringRule::Clickomania => Rule::Clickomania,
        ScoringRule::BubbleBreaker => Rule::BubbleBreaker,
    }
}

/// Every component as (index of its first cell, colour, size), ordered by first cell row-major.
fn naive_components(g: &Grid) -> Vec<(usize, u32, usize)> {
    naive::components(g)
        .into_iter()
        .map(|(first, color, n)| (g.index(first), color, n))
        .collect()
}

fn naive_game_over(g: &Grid, min_group: usize) -> bool {
    naive::is_game_over(g, min_group)
}

/// The reference's settling helper: gravity, then close empty columns.
fn settle(g: &Grid) -> Grid {
    naive::settle(g)
}

/// The first reason `g` is not settled, as the engine names it.
fn naive_unsettled(g: &Grid) -> Option<Unsettled> {
    naive::unsettled(g).map(|reason| match reason {
        naive::Unsettled::FloatingTile(cell) => Unsettled::FloatingTile(pos(cell)),
        naive::Unsettled::GapColumn(c) => Unsettled::GapColumn(c),
    })
}

fn naive_move_score(rule: ScoringRule, n: usize) -> u64 {
    reference_rule(rule).move_score(n as u64)
}

fn naive_end_bonus(rule: ScoringRule, k: usize) -> i64 {
    reference_rule(rule).end_bonus(k as i64)
}

fn wire_rule(rule: ScoringRule) -> i32 {
    reference_rule(rule).wire()
}

/// What a legal tap should produce.
#[derive(Debug)]
struct ExpectedTap {
    cleared: Vec<Position>,
    color: u32,
    falls: Vec<(Position, Position)>,
    shifts: Vec<(u32, u32)>,
    board: Grid,
    move_score: u64,
    tiles_left: usize,
    game_over: bool,
    end_bonus: i64,
}

/// The rules' tap on a settled grid: `Err` for an off-board position, an empty cell or a small
/// group.
fn naive_tap(
    g: &Grid,
    position: Position,
    rule: ScoringRule,
    min_group: usize,
) -> Result<ExpectedTap, EngineError> {
    let start = (position.row, position.col);
    if !g.contains(start) {
        return Err(EngineError::PositionOffBoard {
            field: "position",
            position,
            width: g.w,
            height: g.h,
        });
    }
    if g.get(start) == 0 {
        return Err(EngineError::IllegalTap(TapRejection::EmptyCell));
    }
    let size = naive::component(g, start).len();
    if size < min_group {
        return Err(EngineError::IllegalTap(TapRejection::GroupTooSmall {
            size,
            min_group,
        }));
    }
    let tap = naive::tap(g, start);
    let tiles_left = tap.board.tiles();
    let game_over = naive_game_over(&tap.board, min_group);
    Ok(ExpectedTap {
        cleared: tap.cleared.into_iter().map(pos).collect(),
        color: tap.color,
        falls: tap
            .falls
            .into_iter()
            .map(|(f, t)| (pos(f), pos(t)))
            .collect(),
        shifts: tap.shifts,
        move_score: naive_move_score(rule, size),
        tiles_left,
        game_over,
        end_bonus: if game_over {
            naive_end_bonus(rule, tiles_left)
        } else {
            0
        },
        board: tap.board,
    })
}

/// Taps through the engine and the transport and checks both against the model. Returns the
/// expected outcome when the tap is legal.
fn check_tap(
    g: &Grid,
    position: Position,
    rule: ScoringRule,
    min_group: usize,
) -> Result<Option<ExpectedTap>, TestCaseError> {
    let expected = naive_tap(g, position, rule, min_group);
    let actual = engine::tap(&settled_board(g), position, rule, min_group_of(min_group));
    let wire = rpc::tap(proto::TapRequest {
        board: Some(g.proto()),
        position: Some(proto::Position {
            row: position.row,
            col: position.col,
        }),
        scoring: wire_rule(rule),
        min_group: min_group as u32,
    });
    match (expected, actual) {
        (Err(e), Err(a)) => {
            prop_assert_eq!(&a, &e, "tap {} on {:?}", position, g);
            prop_assert_eq!(wire.err(), Some(e));
            Ok(None)
        }
        (Err(e), Ok(a)) => Err(TestCaseError::fail(format!(
            "tap {position} on {g:?}: expected {e:?}, got {a:?}"
        ))),
        (Ok(e), Err(a)) => Err(TestCaseError::fail(format!(
            "tap {position} on {g:?}: expected {e:?}, got {a:?}"
        ))),
        (Ok(e), Ok(a)) => {
            let ctx = format!("tap {position} on {g:?} ({rule:?}, min_group {min_group})");
            prop_assert_eq!(
                &a.cleared,
                &e.cleared,
                "cleared group is the flood fill: {}",
                ctx
            );
            prop_assert_eq!(u32::from(a.color), e.color);
            let falls: Vec<(Position, Position)> = a.falls.iter().map(|f| (f.from, f.to)).collect();
            prop_assert_eq!(&falls, &e.falls, "falls: {}", ctx);
            for x in &a.falls {
                prop_assert_eq!(x.from.col, x.to.col);
                prop_assert!(x.to.row > x.from.row);
                for y in &a.falls {
                    if x.from.col == y.from.col && x.from.row < y.from.row {
                        prop_assert!(x.to.row < y.to.row, "falls reorder a column: {}", ctx);
                    }
                }
            }
            let shifts: Vec<(u32, u32)> = a
                .column_shifts
                .iter()
                .map(|s| (s.from_col, s.to_col))
                .collect();
            prop_assert_eq!(&shifts, &e.shifts, "column shifts: {}", ctx);
            let after = Grid::of(a.board.board());
            prop_assert_eq!(&after, &e.board, "board after: {}", ctx);
            // Tiles are conserved: before - group size = after.
            prop_assert_eq!(g.tiles() - a.cleared.len(), after.tiles(), "{}", ctx);
            prop_assert_eq!(a.tiles_left, after.tiles());
            // The result is settled, by the engine's own check and the model's.
            prop_assert!(SettledBoard::try_from(a.board.clone().into_board()).is_ok());
            prop_assert_eq!(naive_unsettled(&after), None);
            prop_assert_eq!(a.move_score, e.move_score, "move score: {}", ctx);
            prop_assert_eq!(a.game_over, e.game_over, "game over: {}", ctx);
            prop_assert_eq!(a.end_bonus, e.end_bonus, "end bonus: {}", ctx);
            prop_assert_eq!(a.total_score(), e.move_score as i64 + e.end_bonus);
            prop_assert!(wire.is_ok(), "{wire:?}");
            let wire = wire.unwrap();
            prop_assert_eq!(wire.board, Some(e.board.proto()));
            prop_assert_eq!(wire.cleared.len(), e.cleared.len());
            prop_assert_eq!(wire.color, e.color);
            prop_assert_eq!(wire.falls.len(), e.falls.len());
            prop_assert_eq!(wire.column_shifts.len(), e.shifts.len());
            prop_assert_eq!(wire.move_score, e.move_score);
            prop_assert_eq!(wire.tiles_left as usize, e.tiles_left);
            prop_assert_eq!(wire.game_over, e.game_over);
            prop_assert_eq!(wire.end_bonus, e.end_bonus);
            prop_assert_eq!(wire.total_score, e.move_score as i64 + e.end_bonus);
            Ok(Some(e))
        }
    }
}

/// legal_groups, is_game_over and CheckDeadState against brute-force enumeration.
fn check_groups(g: &Grid, rule: ScoringRule, min_group: usize) -> TestCaseResult {
    let settled = settled_board(g);
    let expected: Vec<(Position, u32, usize, u64)> = naive_components(g)
        .into_iter()
        .filter(|&(_, _, n)| n >= min_group)
        .map(|(i, color, n)| (pos_at(g, i), color, n, naive_move_score(rule, n)))
        .collect();
    let actual: Vec<(Position, u32, usize, u64)> =
        engine::legal_groups(&settled, rule, min_group_of(min_group))
            .into_iter()
            .map(|l| (l.representative, u32::from(l.color), l.size, l.score))
            .collect();
    prop_assert_eq!(
        &actual,
        &expected,
        "legal groups of {:?}, min_group {}",
        g,
        min_group
    );
    let over = naive_game_over(g, min_group);
    prop_assert_eq!(
        engine::is_game_over(&settled, min_group_of(min_group)),
        over,
        "game over of {:?}, min_group {}",
        g,
        min_group
    );
    prop_assert_eq!(expected.is_empty(), over);
    let wire = rpc::check_dead_state(proto::CollapseCheckDeadStateRequest {
        board: Some(g.proto()),
        scoring: wire_rule(rule),
        min_group: min_group as u32,
    });
    prop_assert!(wire.is_ok(), "{wire:?}");
    let wire = wire.unwrap();
    prop_assert_eq!(wire.game_over, over);
    prop_assert_eq!(wire.tiles_left as usize, g.tiles());
    prop_assert_eq!(
        wire.end_bonus,
        if over {
            naive_end_bonus(rule, g.tiles())
        } else {
            0
        }
    );
    let wire_groups: Vec<(Position, u32, usize, u64)> = wire
        .groups
        .iter()
        .map(|l| {
            let p = l.representative.unwrap();
            (
                Position::new(p.row, p.col),
                l.color,
                l.size as usize,
                l.score,
            )
        })
        .collect();
    prop_assert_eq!(&wire_groups, &expected);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------------

/// A random grid settled by the test's helper.
fn settled_grid(
    max_side: usize,
    max_colors: u32,
    max_empty_percent: u32,
) -> impl Strategy<Value = Grid> {
    raw_grid(max_side, max_colors, max_empty_percent).prop_map(|g| settle(&g))
}

fn rule_strategy() -> impl Strategy<Value = ScoringRule> {
    prop::sample::select(RULES.to_vec())
}

fn coordinate() -> impl Strategy<Value = u32> {
    prop_oneof![
        6 => 0u32..70,
        1 => any::<u32>(),
        1 => (u32::MAX - 2)..=u32::MAX,
    ]
}

/// A tap position: mostly a cell of the board (picked by index), sometimes anything.
#[derive(Clone, Debug)]
enum Pick {
    Cell(prop::sample::Index),
    Raw(u32, u32),
}

fn pick_strategy() -> impl Strategy<Value = Pick> {
    prop_oneof![
        6 => any::<prop::sample::Index>().prop_map(Pick::Cell),
        1 => (coordinate(), coordinate()).prop_map(|(r, c)| Pick::Raw(r, c)),
    ]
}

fn resolve_pick(g: &Grid, pick: &Pick) -> Position {
    match pick {
        Pick::Cell(index) => pos_at(g, index.index(g.cells.len())),
        Pick::Raw(r, c) => Position::new(*r, *c),
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(256))]

    /// SettledBoard accepts exactly the settled boards and names the first floating tile (or
    /// else the leftmost gap column); the test's settle helper always yields an accepted board
    /// with the same tiles.
    #[test]
    fn settled_boards_are_recognised(g in raw_grid(12, 4, 60)) {
        let unsettled = naive_unsettled(&g);
        match SettledBoard::try_from(g.board()) {
            Ok(s) => {
                prop_assert_eq!(unsettled, None, "accepted {:?}", g);
                prop_assert_eq!(Grid::of(s.board()), g.clone());
            }
            Err(error) => {
                prop_assert!(unsettled.is_some(), "refused settled {g:?}: {error:?}");
                prop_assert_eq!(error, EngineError::UnsettledBoard(unsettled.unwrap()));
            }
        }
        let s = settle(&g);
        prop_assert_eq!(s.color_counts(), g.color_counts());
        prop_assert_eq!(naive_unsettled(&s), None);
        prop_assert!(SettledBoard::try_from(s.board()).is_ok());
        // The unsettled check is also what the RPCs answer.
        let wire = rpc::check_dead_state(proto::CollapseCheckDeadStateRequest {
            board: Some(g.proto()),
            scoring: 0,
            min_group: 0,
        });
        prop_assert_eq!(wire.is_ok(), unsettled.is_none());
    }

    /// A tap, legal or not, matches the model exactly: the cleared cells are the BFS component,
    /// falls and column shifts as rebuilt naively, tiles conserved, the result settled, the
    /// move score and end bonus from the rules' table for each rule, game over as brute force.
    #[test]
    fn taps_match_the_model(
        g in settled_grid(12, 5, 40), pick in pick_strategy(),
        rule in rule_strategy(), min_group in 2usize..=5,
    ) {
        let position = resolve_pick(&g, &pick);
        check_tap(&g, position, rule, min_group)?;
    }

    /// legal_groups, is_game_over and CheckDeadState agree with brute-force enumeration for
    /// every rule and min_group 2..=5.
    #[test]
    fn legal_groups_and_game_over_match_brute_force(g in settled_grid(12, 6, 40)) {
        for min_group in 2..=5 {
            for rule in RULES {
                check_groups(&g, rule, min_group)?;
            }
        }
    }

    /// Score formulas of the rules' table, for all group sizes and tiles left a board can have.
    #[test]
    fn scores_follow_the_table(n in 2usize..=4096, k in 0usize..=4096) {
        for rule in RULES {
            prop_assert_eq!(rule.move_score(n), naive_move_score(rule, n), "{:?} n={}", rule, n);
            prop_assert_eq!(rule.end_bonus(k), naive_end_bonus(rule, k), "{:?} k={}", rule, k);
        }
    }
}

proptest! {
    #![proptest_config(config(16))]

    #[test]
    fn taps_and_groups_match_the_model_on_large_boards(
        g in settled_grid(64, 4, 30), pick in pick_strategy(), rule in rule_strategy(), min_group in 2usize..=5,
    ) {
        check_tap(&g, resolve_pick(&g, &pick), rule, min_group)?;
        check_groups(&g, rule, min_group)?;
    }
}

/// Plays random legal taps to the end, checking every move; returns (moves, final tiles).
fn play_out(
    start: &Grid,
    rule: ScoringRule,
    min_group: usize,
    choices: &[usize],
) -> Result<(usize, usize), TestCaseError> {
    let mut g = start.clone();
    let mut move_sum: u64 = 0;
    let mut moves = 0;
    loop {
        let groups = engine::legal_groups(&settled_board(&g), rule, min_group_of(min_group));
        if groups.is_empty() {
            prop_assert!(naive_game_over(&g, min_group));
            prop_assert!(
                moves == 0,
                "a game that started must end on a game-over tap"
            );
            break;
        }
        let choice = &groups[choices[moves % choices.len()] % groups.len()];
        let before = g.tiles();
        let expected = check_tap(&g, choice.representative, rule, min_group)?;
        prop_assert!(
            expected.is_some(),
            "listed group {choice:?} was not tappable"
        );
        let e = expected.unwrap();
        prop_assert_eq!(e.cleared.len(), choice.size);
        prop_assert_eq!(e.move_score, choice.score);
        prop_assert_eq!(before - choice.size, e.tiles_left);
        move_sum += e.move_score;
        moves += 1;
        g = e.board;
        if e.game_over {
            let total = move_sum as i64 + e.end_bonus;
            prop_assert_eq!(
                total,
                move_sum as i64 + naive_end_bonus(rule, g.tiles()),
                "final score = sum of moves + end bonus"
            );
            // CheckDeadState on the final board agrees.
            let wire = rpc::check_dead_state(proto::CollapseCheckDeadStateRequest {
                board: Some(g.proto()),
                scoring: wire_rule(rule),
                min_group: min_group as u32,
            })
            .unwrap();
            prop_assert!(wire.game_over && wire.groups.is_empty());
            prop_assert_eq!(wire.end_bonus, e.end_bonus);
            break;
        }
        prop_assert!(moves <= start.tiles(), "more moves than tiles");
    }
    Ok((moves, g.tiles()))
}

proptest! {
    #![proptest_config(config(96))]

    /// Random games to the end: every move matches the model, tiles only go down by the group
    /// size, game over is reported exactly on the last move, and the final score is the sum of
    /// the move scores plus the end bonus.
    #[test]
    fn random_games_conserve_tiles_and_score(
        g in settled_grid(10, 5, 20).prop_filter("two colours or more", |g| {
            g.color_counts()[1..].iter().filter(|&&n| n > 0).count() >= 2
        }),
        rule in rule_strategy(), min_group in 2usize..=4,
        choices in vec(any::<usize>(), 1..16),
    ) {
        play_out(&g, rule, min_group, &choices)?;
    }
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

fn check_generated(w: u32, h: u32, colors: u32, min_group: u32, seed: u64) -> TestCaseResult {
    let first = engine::GenerationSize::for_collapse(w, h, colors).and_then(|size| {
        engine::generate_collapse_board(
            size,
            engine::MinGroup::parse(min_group)?,
            &mut engine::rng_from_seed(seed),
        )
    });
    let second = engine::GenerationSize::for_collapse(w, h, colors).and_then(|size| {
        engine::generate_collapse_board(
            size,
            engine::MinGroup::parse(min_group)?,
            &mut engine::rng_from_seed(seed),
        )
    });
    prop_assert_eq!(&first, &second, "same seed, same board");
    let wire = rpc::generate_board(proto::CollapseGenerateBoardRequest {
        width: w,
        height: h,
        colors,
        seed,
        min_group,
        clearable: false,
        ..Default::default()
    });
    let effective = if min_group == 0 {
        2
    } else {
        min_group as usize
    };
    let feasible = (2..=4096).contains(&effective) && effective <= (w * h) as usize;
    match first {
        Ok((board, count)) => {
            prop_assert!(feasible, "{w}x{h} min_group {min_group} cannot exist");
            let g = Grid::of(board.board());
            prop_assert_eq!((g.w, g.h), (w as usize, h as usize));
            prop_assert!(g.cells.iter().all(|&c| c >= 1 && c <= colors), "{:?}", g);
            let legal = naive_components(&g)
                .iter()
                .filter(|&&(_, _, n)| n >= effective)
                .count();
            prop_assert!(legal >= 1, "no legal move on {g:?}");
            prop_assert_eq!(count, legal);
            let wire = wire.unwrap();
            prop_assert_eq!(wire.board, Some(g.proto()));
            prop_assert_eq!(wire.legal_group_count as usize, legal);
        }
        Err(error) => {
            prop_assert!(
                !feasible,
                "feasible request refused: {w}x{h} colors {colors} min_group {min_group}: {error:?}"
            );
            prop_assert!(
                matches!(
                    error,
                    EngineError::InvalidParameter {
                        field: "min_group",
                        ..
                    }
                ),
                "{error:?}"
            );
            prop_assert!(wire.is_err());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(192))]

    /// Generated boards are full, have colours in range and at least one legal group (counted by
    /// brute force), and are reproducible by seed.
    #[test]
    fn generated_boards_are_playable_and_reproducible(
        w in 1u32..=12, h in 1u32..=12, colors in 1u32..=8, min_group in 0u32..=8, seed in any::<u64>(),
    ) {
        check_generated(w, h, colors, min_group, seed)?;
    }
}

proptest! {
    #![proptest_config(config(12))]

    #[test]
    fn generated_large_boards_are_playable(
        w in 13u32..=64, h in 13u32..=64, colors in 1u32..=16,
        min_group in prop_oneof![0u32..=6, 100u32..=4096], seed in any::<u64>(),
    ) {
        check_generated(w, h, colors, min_group, seed)?;
    }
}

// ---------------------------------------------------------------------------------------------
// No input panics (transport functions)
// ---------------------------------------------------------------------------------------------

/// A raw wire board: sides 0..=70, a cell count sometimes off by a few, values up to 20; or a
/// settled board; or missing.
fn wire_board() -> impl Strategy<Value = Option<proto::Board>> {
    let settled_big = (1u32..=70, 1u32..=70, 1u32..=4).prop_flat_map(|(w, h, k)| {
        vec(0..=k, (w * h) as usize).prop_map(move |cells| {
            let g = Grid::new(w as usize, h as usize, cells);
            let g = settle(&g);
            Some(proto::Board {
                width: w,
                height: h,
                cells: g.cells,
                ..Default::default()
            })
        })
    });
    prop_oneof![
        1 => Just(None),
        4 => wild_wire_board(),
        2 => settled_big,
        3 => settled_grid(12, 4, 40).prop_map(|g| Some(g.proto())),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    /// Tap and CheckDeadState answer Ok or Err, never panic, on random and malformed requests.
    /// A request with faults (unknown scoring, bad min_group, missing or malformed board,
    /// missing or off-board position, unsettled board) gets one of its faults; a request
    /// without gets the naive model's answer.
    #[test]
    fn collapse_transport_never_panics(
        board in wire_board(),
        pick in prop::option::weighted(0.9, pick_strategy()),
        scoring in prop_oneof![6 => 0i32..=4, 1 => any::<i32>()],
        min_group in prop_oneof![6 => 0u32..=6, 1 => 4090u32..=4100, 1 => any::<u32>()],
    ) {
        let position = match (&pick, &board) {
            (None, _) => None,
            (Some(Pick::Raw(r, c)), _) => Some(proto::Position { row: *r, col: *c }),
            (Some(Pick::Cell(index)), Some(b)) if b.width > 0 && b.height > 0 && b.width <= 70 && b.height <= 70 => {
                let i = index.index((b.width * b.height) as usize);
                Some(proto::Position { row: i as u32 / b.width, col: i as u32 % b.width })
            }
            (Some(Pick::Cell(_)), _) => Some(proto::Position { row: 0, col: 0 }),
        };
        let tapped = rpc::tap(proto::TapRequest { board: board.clone(), position, scoring, min_group });
        let dead = rpc::check_dead_state(proto::CollapseCheckDeadStateRequest { board: board.clone(), scoring, min_group });

        let mut faults = Vec::new();
        let rule = match scoring {
            0 | 1 => Some(ScoringRule::PopStar),
            2 => Some(ScoringRule::SameGame),
            3 => Some(ScoringRule::Clickomania),
            4 => Some(ScoringRule::BubbleBreaker),
            _ => {
                faults.push(Fault::Param("scoring"));
                None
            }
        };
        let effective_min = match min_group {
            0 => Some(2),
            2..=4096 => Some(min_group as usize),
            _ => {
                faults.push(Fault::Param("min_group"));
                None
            }
        };
        let (board_faults, grid) = board_faults(&board);
        faults.extend(board_faults);
        if let Some(reason) = grid.as_ref().and_then(naive_unsettled) {
            faults.push(Fault::Exact(EngineError::UnsettledBoard(reason)));
        }

        // CheckDeadState: scoring, min_group, board, settledness.
        if check_faults("CheckDeadState", &dead, &faults)? {
            let (g, rule, min_group) = (grid.as_ref().unwrap(), rule.unwrap(), effective_min.unwrap());
            let over = naive_game_over(g, min_group);
            let dead = dead.unwrap();
            prop_assert_eq!(dead.game_over, over);
            prop_assert_eq!(dead.tiles_left as usize, g.tiles());
            let expected = naive_components(g).iter().filter(|&&(_, _, n)| n >= min_group).count();
            prop_assert_eq!(dead.groups.len(), expected);
            prop_assert_eq!(dead.end_bonus, if over { naive_end_bonus(rule, g.tiles()) } else { 0 });
        }

        // Tap: the same, plus a missing or off-board position; then the tap's own verdict.
        match (position, &grid) {
            (None, _) => faults.push(Fault::Param("position")),
            (Some(p), Some(g)) if p.row as usize >= g.h || p.col as usize >= g.w => {
                faults.push(Fault::Exact(EngineError::PositionOffBoard {
                    field: "position",
                    position: Position::new(p.row, p.col),
                    width: g.w,
                    height: g.h,
                }));
            }
            _ => {}
        }
        if faults.is_empty() {
            let (g, p) = (grid.as_ref().unwrap(), position.unwrap());
            let expected = naive_tap(g, Position::new(p.row, p.col), rule.unwrap(), effective_min.unwrap());
            match expected {
                Ok(e) => {
                    prop_assert!(tapped.is_ok(), "{tapped:?}");
                    let t = tapped.as_ref().unwrap();
                    prop_assert_eq!(&t.board, &Some(e.board.proto()));
                    prop_assert_eq!(t.move_score, e.move_score);
                    prop_assert_eq!(t.end_bonus, e.end_bonus);
                    prop_assert_eq!(t.tiles_left as usize, e.tiles_left);
                    prop_assert_eq!(t.game_over, e.game_over);
                }
                Err(e) => faults.push(Fault::Exact(e)),
            }
        }
        if !faults.is_empty() {
            check_faults("Tap", &tapped, &faults)?;
        }
    }

    /// GenerateBoard answers Ok or Err for any parameters; Ok boards have the requested size,
    /// colours in range and a legal group.
    #[test]
    fn collapse_generate_never_panics(
        width in 0u32..=70, height in 0u32..=70,
        colors in prop_oneof![3 => 0u32..=20, 1 => any::<u32>()],
        min_group in prop_oneof![4 => 0u32..=8, 1 => 4090u32..=4100, 1 => any::<u32>()],
        seed in any::<u64>(),
    ) {
        let result = rpc::generate_board(proto::CollapseGenerateBoardRequest { width, height, colors, seed, min_group, clearable: false, ..Default::default() });
        let effective = if min_group == 0 { 2 } else { min_group };
        let feasible = (1..=64).contains(&width) && (1..=64).contains(&height) && (1..=16).contains(&colors)
            && (2..=4096).contains(&effective) && effective <= width * height;
        prop_assert_eq!(result.is_ok(), feasible, "{:?}", result);
        match result {
            Ok(response) => {
                let g = Grid::of_wire(response.board.as_ref().unwrap());
                prop_assert_eq!((g.w as u32, g.h as u32), (width, height));
                prop_assert!(g.cells.iter().all(|&c| c >= 1 && c <= colors));
                prop_assert!(!naive_game_over(&g, effective as usize), "no legal group of {effective} on {g:?}");
                prop_assert!(response.legal_group_count >= 1);
            }
            Err(error) => prop_assert!(matches!(error, EngineError::InvalidParameter { .. }), "{error:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Deterministic sweep: the properties above meet the interesting cases
// ---------------------------------------------------------------------------------------------

#[test]
fn sweep_covers_clears_gaps_and_game_overs() {
    let mut rng = SplitMix(99);
    let (mut full_clears, mut multi_gap, mut stuck, mut long_games) = (0, 0, 0, 0);
    for _ in 0..300 {
        let (w, h) = (1 + rng.below(6) as usize, 1 + rng.below(6) as usize);
        let k = 1 + rng.below(3) as u32;
        let g = settle(&Grid::new(
            w,
            h,
            (0..w * h)
                .map(|_| 1 + rng.below(u64::from(k)) as u32)
                .collect(),
        ));
        let rule = RULES[rng.below(4) as usize];
        let choices: Vec<usize> = (0..8).map(|_| rng.next() as usize).collect();
        let (moves, left) = play_out(&g, rule, 2, &choices).unwrap();
        if moves == 0 {
            stuck += 1;
        }
        if moves > 0 && left == 0 {
            full_clears += 1;
        }
        if moves >= 4 {
            long_games += 1;
        }
        // A tap that closes two or more columns at once.
        for (i, _, n) in naive_components(&g) {
            if n >= 2
                && let Ok(e) = naive_tap(&g, pos_at(&g, i), rule, 2)
                && e.shifts.len() >= 2
            {
                multi_gap += 1;
                check_tap(&g, pos_at(&g, i), rule, 2).unwrap();
            }
        }
    }
    assert!(full_clears >= 10, "full clears: {full_clears}");
    assert!(multi_gap >= 10, "multi-column closes: {multi_gap}");
    assert!(stuck >= 5, "boards without a move: {stuck}");
    assert!(long_games >= 10, "games of 4+ moves: {long_games}");
}

// ---------------------------------------------------------------------------------------------
// rules examples through the same model
// ---------------------------------------------------------------------------------------------

#[test]
fn spec_examples_agree_with_the_model() {
    let e = check_tap(
        &Grid::parse("ABBC/ABBC"),
        Position::new(0, 1),
        ScoringRule::PopStar,
        2,
    )
    .unwrap()
    .unwrap();
    assert_eq!(e.board, Grid::parse("AC../AC.."));
    assert_eq!((e.cleared.len(), e.move_score), (4, 80));
    for (rule, score, bonus) in [
        (ScoringRule::PopStar, 80, 2000),
        (ScoringRule::SameGame, 4, 1000),
        (ScoringRule::Clickomania, 4, 0),
        (ScoringRule::BubbleBreaker, 12, 0),
    ] {
        let e = check_tap(&Grid::parse("AA/AA"), Position::new(0, 0), rule, 2)
            .unwrap()
            .unwrap();
        assert_eq!(e.board, Grid::parse("../.."));
        assert!(e.game_over);
        assert_eq!((e.move_score, e.end_bonus), (score, bonus));
    }
    let e = check_tap(
        &Grid::parse("RBB/RRR/RBB"),
        Position::new(1, 1),
        ScoringRule::PopStar,
        2,
    )
    .unwrap()
    .unwrap();
    assert_eq!(e.board, Grid::parse(".../BB./BB."));
    assert_eq!(e.cleared.len(), 5);
}

/// Boards at the size limit (64 columns or rows): taps near the far edges, closing the last
/// columns, and every legal group.
#[test]
fn boards_at_the_size_limit_match_the_model() {
    let mut rng = SplitMix(64);
    for (w, h) in [(64, 64), (64, 1), (1, 64), (64, 2), (2, 64)] {
        for colors in [1u32, 2, 3] {
            let g = settle(&Grid::new(
                w,
                h,
                (0..w * h)
                    .map(|_| {
                        if rng.below(8) == 0 {
                            0
                        } else {
                            1 + rng.below(u64::from(colors)) as u32
                        }
                    })
                    .collect(),
            ));
            for rule in RULES {
                check_groups(&g, rule, 2).unwrap();
            }
            // Tap the last cell of every column's bottom row, and the bottom-right cell.
            let mut legal = 0;
            for c in [0, w / 2, w - 1] {
                let position = Position::new(h as u32 - 1, c as u32);
                if check_tap(&g, position, ScoringRule::PopStar, 2)
                    .unwrap()
                    .is_some()
                {
                    legal += 1;
                }
            }
            if colors == 1 {
                assert!(legal >= 1, "{w}x{h}: a one-colour board has a legal tap");
            }
        }
    }
}
