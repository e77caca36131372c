//! Solve benchmark with published anchors: the 20 standard 15x15, 5-colour SameGame positions
//! (`data/samegame-standard-20.txt`; Schadd et al., "Single-Player Monte-Carlo Tree Search",
//! 2008), SAMEGAME rule (`(n - 2)^2` per move, +1000 for a cleared board), min_group 2, each
//! solved by [`matchgrid::engine::solve`] (NMCS with TabuColorRandom playouts) at a fixed node
//! budget, one position after another on one core. Prints each position's score, nodes and
//! time, then the total beside the published totals: SP-MCTS 73,998 (Schadd et al. 2008) and
//! NMCS level 3 77,934 (Cazenave, "Nested Monte-Carlo Search", IJCAI 2009).
//!
//! ```sh
//! cargo bench --bench solve                                  # defaults: level 2, 10^7 nodes, seed 1
//! cargo bench --bench solve -- --level 3 --nodes 300000000   # budget per position
//! cargo bench --bench solve -- --positions 1,2 --seconds 60  # a wall-clock cap instead
//! cargo bench --bench solve -- --restarts --nodes 250000000  # level-2 runs until the budget
//! ```
//!
//! Every solution is replayed through `engine::replay` and must score what the search claims.
//! CI only builds it (`cargo bench --no-run`).

use std::time::{Duration, Instant};

use matchgrid::engine::{
    self, Board, MinGroup, NodeBudget, ScoringRule, SettledBoard, SolveControl, SolveLevel,
    SolveOptions, SolveSchedule,
};

/// SP-MCTS, Schadd et al. 2008: the total over the 20 positions.
const SP_MCTS_TOTAL: i64 = 73_998;
/// NMCS level 3, Cazenave 2009: the total over the 20 positions.
const NMCS_LEVEL_3_TOTAL: i64 = 77_934;

fn standard_positions() -> Vec<SettledBoard> {
    let text = include_str!("../data/samegame-standard-20.txt");
    let values: Vec<u32> = text
        .split_whitespace()
        .map(|v| v.parse::<u32>().expect("integers") + 1)
        .collect();
    assert_eq!(values.len(), 20 * 225, "20 positions of 15x15");
    values
        .chunks_exact(225)
        .map(|cells| SettledBoard::try_from(Board::from_raw(15, 15, cells).unwrap()).unwrap())
        .collect()
}

struct Args {
    level: u32,
    nodes: u64,
    seconds: Option<u64>,
    seed: u64,
    restarts: bool,
    positions: Vec<usize>,
}

fn parse_args() -> Args {
    let mut args = Args {
        level: 2,
        nodes: 10_000_000,
        seconds: None,
        seed: 1,
        restarts: false,
        positions: (1..=20).collect(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--level" => args.level = value().parse().expect("--level N"),
            "--nodes" => args.nodes = value().parse().expect("--nodes N"),
            "--seconds" => args.seconds = Some(value().parse().expect("--seconds N")),
            "--seed" => args.seed = value().parse().expect("--seed N"),
            "--restarts" => args.restarts = true,
            "--positions" => {
                args.positions = value()
                    .split(',')
                    .map(|p| p.parse().expect("--positions 1,2,..."))
                    .collect()
            }
            // cargo bench passes --bench; criterion-style filters are ignored.
            _ => {}
        }
    }
    args
}

fn main() {
    let args = parse_args();
    let positions = standard_positions();
    println!(
        "SameGame standard positions: NMCS level {}{}, budget {} nodes{}, seed {}",
        args.level,
        if args.restarts { " with restarts" } else { "" },
        args.nodes,
        args.seconds.map_or(String::new(), |s| format!(" or {s} s")),
        args.seed
    );
    println!("| position | score | moves | nodes | playouts | runs | time |");
    println!("|---|---|---|---|---|---|---|");
    let (mut total, mut time) = (0i64, Duration::ZERO);
    for &number in &args.positions {
        let board = &positions[number - 1];
        let options = SolveOptions {
            rule: ScoringRule::SameGame,
            min_group: MinGroup::DEFAULT,
            seed: args.seed,
            level: SolveLevel::parse(args.level).expect("level 1..=5"),
            max_nodes: NodeBudget::parse(args.nodes).expect("nodes 1..=10^10"),
            schedule: if args.restarts {
                SolveSchedule::Restarts
            } else {
                SolveSchedule::Single
            },
        };
        let control = SolveControl {
            time_limit: args
                .seconds
                .map(|s| Instant::now() + Duration::from_secs(s)),
            ..SolveControl::default()
        };
        let solution = engine::solve(board, &options, &control);
        let taps: Vec<_> = solution.moves.iter().map(|m| m.position).collect();
        let replayed = engine::replay(board, &taps, options.rule, options.min_group).unwrap();
        assert_eq!(replayed.refused, None, "position {number}");
        assert_eq!(replayed.total_score, solution.score, "position {number}");
        println!(
            "| {number} | {} | {} | {} | {} | {} | {:.2} s |",
            solution.score,
            solution.moves.len(),
            solution.nodes,
            solution.playouts,
            solution.runs_completed,
            solution.elapsed.as_secs_f64()
        );
        total += solution.score;
        time += solution.elapsed;
    }
    let n = args.positions.len().max(1) as f64;
    println!(
        "total {total} over {} position(s), {:.2} s per position; published totals over all 20: \
         SP-MCTS {SP_MCTS_TOTAL}, NMCS level 3 {NMCS_LEVEL_3_TOTAL}",
        args.positions.len(),
        time.as_secs_f64() / n
    );
}
