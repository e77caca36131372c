//! The 20 standard 15x15 SameGame positions (`data/samegame-standard-20.txt`, Schadd et al.
//! 2008), solved with the engine alone (the `solve` bench of the service crate without the
//! service's dependencies, so it builds in a fraction of the time). SAMEGAME rule, min_group 2,
//! one position after another on the calling thread; every solution is replayed and checked.
//!
//! ```sh
//! cargo run --release -p matchgrid-engine --example samegame_standard -- \
//!     [--level N] [--nodes N] [--seconds N] [--seed N] [--restarts] [--screened]
//!     [--screen-width N] [--beam W] [--positions 1,2,3]
//! ```
//!
//! Prints each position's score, nodes, runs, wall time and this thread's CPU time (read from
//! `/proc/thread-self/stat` on Linux, 0 elsewhere), then the totals.

use std::time::{Duration, Instant};

use matchgrid_engine::{
    BeamWidth, Board, MinGroup, NodeBudget, ScoringRule, ScreenWidth, SettledBoard, SolveControl,
    SolveLevel, SolveMethod, SolveOptions, SolveSchedule, SolveThreads, replay, solve,
};

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

/// This thread's CPU time (user + system), from `/proc/thread-self/stat` (clock ticks of
/// 1/100 s); zero where it cannot be read.
fn thread_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/thread-self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which may hold spaces) start at state (field 3).
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime is field 14, stime 15: indices 11 and 12 after the state.
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

fn fail(message: &str) -> ! {
    eprintln!("samegame_standard: {message}");
    std::process::exit(2)
}

fn main() {
    let (mut level, mut nodes, mut seconds, mut seed) = (2u32, 10_000_000u64, None, 1u64);
    let (mut restarts, mut screened, mut screen_width, mut beam) = (false, false, 0u32, None);
    let mut positions: Vec<usize> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> String {
            args.next()
                .unwrap_or_else(|| fail(&format!("{name} needs a value")))
        };
        let number = |text: String| -> u64 {
            text.parse()
                .unwrap_or_else(|_| fail(&format!("not a number: {text}")))
        };
        match arg.as_str() {
            "--level" => level = number(value("--level")) as u32,
            "--nodes" => nodes = number(value("--nodes")),
            "--seconds" => seconds = Some(number(value("--seconds"))),
            "--seed" => seed = number(value("--seed")),
            "--restarts" => restarts = true,
            "--screened" => screened = true,
            "--screen-width" => screen_width = number(value("--screen-width")) as u32,
            "--beam" => beam = Some(number(value("--beam")) as u32),
            "--positions" => {
                positions = value("--positions")
                    .split(',')
                    .map(|p| number(p.to_string()) as usize)
                    .collect();
            }
            "--bench" => {}
            other => fail(&format!("unknown argument {other}")),
        }
    }
    if positions.is_empty() {
        positions = (1..=20).collect();
    }
    let method = if let Some(width) = beam {
        SolveMethod::Beam(BeamWidth::parse(width).expect("width 0..=65536"))
    } else if screened {
        SolveMethod::Screened(ScreenWidth::parse(screen_width).expect("width 1..=256"))
    } else {
        SolveMethod::Nmcs
    };
    let boards = standard_positions();
    println!(
        "level {level}, method {method:?}, restarts {restarts}, nodes {nodes}, seconds \
         {seconds:?}, seed {seed}"
    );
    println!(
        "| position | score | moves | nodes | playouts | levels | runs | stop | wall time | CPU time |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut total, mut wall, mut cpu) = (0i64, Duration::ZERO, Duration::ZERO);
    for &number in &positions {
        let board = &boards[number - 1];
        let options = SolveOptions {
            rule: ScoringRule::SameGame,
            min_group: MinGroup::DEFAULT,
            seed,
            level: SolveLevel::parse(level).expect("level 1..=5"),
            max_nodes: NodeBudget::parse(nodes).expect("nodes 1..=10^10"),
            schedule: if restarts {
                SolveSchedule::Restarts
            } else {
                SolveSchedule::Single
            },
            method,
            threads: SolveThreads::ONE,
        };
        let control = SolveControl {
            time_limit: seconds.map(|s| Instant::now() + Duration::from_secs(s)),
            ..SolveControl::default()
        };
        let cpu_started = thread_cpu();
        let solution = solve(board, &options, &control);
        let cpu_time = thread_cpu().saturating_sub(cpu_started);
        let taps: Vec<_> = solution.moves.iter().map(|m| m.position).collect();
        let replayed = replay(board, &taps, options.rule, options.min_group).unwrap();
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
        wall += solution.elapsed;
        cpu += cpu_time;
    }
    println!(
        "total {total} over {} position(s), {:.2} s wall, {:.2} s CPU in all",
        positions.len(),
        wall.as_secs_f64(),
        cpu.as_secs_f64()
    );
}
