//! Solve benchmark with published anchors: the 20 standard 15x15, 5-colour SameGame positions
//! (`data/samegame-standard-20.txt`; Schadd et al., "Single-Player Monte-Carlo Tree Search",
//! 2008), SAMEGAME rule (`(n - 2)^2` per move, +1000 for a cleared board), min_group 2, each
//! solved by [`matchgrid_engine::solve`] (NMCS with TabuColorRandom playouts, or the beam
//! search with `--beam`) at a fixed node budget, one position after another on one core. Prints
//! each position's score, nodes and time (wall and CPU), then the total beside the published
//! totals: SP-MCTS 73,998 (Schadd et al. 2008) and NMCS level 3 77,934 (Cazenave, "Nested
//! Monte-Carlo Search", IJCAI 2009). A bench of the engine crate alone, so it builds in seconds.
//!
//! ```sh
//! cargo bench --bench solve                                  # defaults: level 2, 10^7 nodes, seed 1
//! cargo bench --bench solve -- --beam 2000 --tabu --restarts --refine-factor 4 --nodes 370000000  # tabu-colour beam
//! cargo bench --bench solve -- --level 3 --nodes 300000000   # budget per position
//! cargo bench --bench solve -- --positions 1,2 --seconds 60  # a wall-clock cap instead
//! cargo bench --bench solve -- --restarts --nodes 250000000  # level-2 runs until the budget
//! cargo bench --bench solve -- --restarts --screened --nodes 300000000  # simulation reduction
//! ```
//!
//! Each position's wall time and the process's CPU time (all the search's threads) are printed:
//! on a loaded machine the CPU time is the fair "one core" figure. `--threads 2` runs each
//! search on two threads (root-parallel).
//!
//! Every solution is replayed through `engine::replay` and must score what the search claims.
//! CI only builds it (`cargo bench --no-run`).

use std::time::{Duration, Instant};

use clap::Parser;
use cpu_time::ProcessTime;
use matchgrid_engine::{
    self as engine, BeamOptions, Board, MinGroup, NodeBudget, RefineFactor, ScoringRule,
    ScreenWidth, SettledBoard, SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule,
    SolveThreads,
};

/// SP-MCTS, Schadd et al. 2008: the total over the 20 positions.
const SP_MCTS_TOTAL: i64 = 73_998;
/// NMCS level 3, Cazenave 2009: the total over the 20 positions.
const NMCS_LEVEL_3_TOTAL: i64 = 77_934;

fn standard_positions() -> Vec<SettledBoard> {
    let text = include_str!("../../data/samegame-standard-20.txt");
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

/// The bench's flags (cargo passes `--bench`, which is accepted and ignored).
#[derive(Parser)]
#[command(about = "Solve the 20 standard SameGame positions")]
struct Args {
    /// NMCS level, 1..=5.
    #[arg(long, default_value_t = 2)]
    level: u32,
    /// Node budget per position.
    #[arg(long, default_value_t = 10_000_000)]
    nodes: u64,
    /// Wall-clock cap per position, in seconds (non-deterministic).
    #[arg(long)]
    seconds: Option<u64>,
    /// Seed of the playouts.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Restarts of the levels until the budget (SolveSchedule::Restarts).
    #[arg(long)]
    restarts: bool,
    /// Simulation reduction at levels 2 and up (SolveMethod::Screened).
    #[arg(long)]
    screened: bool,
    /// With --screened: moves searched further per step; 0 means 16.
    #[arg(long, default_value_t = 0)]
    screen_width: u32,
    /// Beam search with refinement (SolveMethod::Beam) of this first width instead of NMCS.
    #[arg(long)]
    beam: Option<u32>,
    /// With --beam: the tabu-colour estimate (SolveMethod::TabuBeam).
    #[arg(long, requires = "beam")]
    tabu: bool,
    /// With --beam: the refinement passes widen by this factor from 8 on up to an eighth of the
    /// first width, then double (RefineFactor); 0 means 2 (8, 16, 32, ...).
    #[arg(long, default_value_t = 0, requires = "beam")]
    refine_factor: u32,
    /// Threads of each search (root-parallel, each with its share of the node budget).
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Positions to solve, 1..=20, comma-separated; all 20 when absent.
    #[arg(long, value_delimiter = ',')]
    positions: Vec<usize>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
    /// Benchmark-name filters `cargo bench` may pass; ignored.
    #[arg(hide = true)]
    filters: Vec<String>,
}

fn main() {
    let mut args = Args::parse();
    if args.positions.is_empty() {
        args.positions = (1..=20).collect();
    }
    let method = if let Some(width) = args.beam {
        let beam = BeamOptions {
            width: engine::BeamWidth::parse(width).expect("width 0..=65536"),
            refine_factor: RefineFactor::parse(args.refine_factor).expect("factor 0 or 2..=16"),
        };
        if args.tabu {
            SolveMethod::TabuBeam(beam)
        } else {
            SolveMethod::Beam(beam)
        }
    } else if args.screened {
        SolveMethod::Screened(ScreenWidth::parse(args.screen_width).expect("width 1..=256"))
    } else {
        SolveMethod::Nmcs
    };
    let positions = standard_positions();
    let searched = match method {
        SolveMethod::Nmcs => format!("NMCS level {}", args.level),
        SolveMethod::Screened(width) => {
            format!("NMCS level {} screened (width {})", args.level, width.get())
        }
        SolveMethod::Beam(beam) | SolveMethod::TabuBeam(beam) => format!(
            "{}beam search (first width {}, refinement factor {})",
            if args.tabu { "tabu-colour " } else { "" },
            beam.width.get(),
            beam.refine_factor.get()
        ),
    };
    println!(
        "SameGame standard positions: {searched}{}, budget {} nodes{}, seed {}",
        if args.restarts { " with restarts" } else { "" },
        args.nodes,
        args.seconds.map_or(String::new(), |s| format!(" or {s} s")),
        args.seed
    );
    println!(
        "| position | score | moves | nodes | playouts | levels | runs | stop | wall time | CPU time |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut total, mut time, mut cpu) = (0i64, Duration::ZERO, Duration::ZERO);
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
            method,
            threads: SolveThreads::parse(args.threads).expect("threads 1..=64"),
        };
        let control = SolveControl {
            time_limit: args
                .seconds
                .map(|s| Instant::now() + Duration::from_secs(s)),
            ..SolveControl::default()
        };
        let cpu_started = ProcessTime::now();
        let solution = engine::solve(board, &options, &control);
        let cpu_time = cpu_started.elapsed();
        let taps: Vec<_> = solution.moves.iter().map(|m| m.position).collect();
        let replayed = engine::replay(board, &taps, options.rule, options.min_group).unwrap();
        assert_eq!(replayed.refused, None, "position {number}");
        assert_eq!(replayed.total_score, solution.score, "position {number}");
        println!(
            "| {number} | {} | {} | {} | {} | {} | {} | {:?} | {:.2} s | {:.2} s |",
            solution.score,
            solution.moves.len(),
            solution.nodes,
            solution.playouts,
            solution.levels_completed,
            solution.runs_completed,
            solution.stop,
            solution.elapsed.as_secs_f64(),
            cpu_time.as_secs_f64()
        );
        total += solution.score;
        time += solution.elapsed;
        cpu += cpu_time;
    }
    let n = args.positions.len().max(1) as f64;
    println!(
        "total {total} over {} position(s), per position {:.2} s wall, {:.2} s CPU (all \
         threads); published totals over all 20: SP-MCTS {SP_MCTS_TOTAL}, NMCS level 3 \
         {NMCS_LEVEL_3_TOTAL}",
        args.positions.len(),
        time.as_secs_f64() / n,
        cpu.as_secs_f64() / n
    );
}
