//! How the clear goal of Solve ([`solve_clear`]) answers on uniform random boards: for each
//! size, colour count and node budget, seeds `0..N` are generated as GenerateBoard does, each
//! is asked "can it be cleared?", every clearing line is replayed with [`replay`] and must
//! leave no tile, and the answers (clearable, not clearable by a stranded colour or by an
//! exhaustive search, unknown), the mean nodes and the mean time are printed (docs/solver.md,
//! "Can it still clear?").
//!
//! ```sh
//! cargo run --release -p matchgrid-engine --example clear_goal -- [--boards N] [--nodes N]
//! ```
//! `--boards` defaults to 100 a case and `--nodes` to 10^6 (the Solve default). Exits
//! non-zero when a line fails to clear.

use std::time::{Duration, Instant};

use matchgrid_engine::{
    ClearProof, Clearability, GenerationSize, MinGroup, NodeBudget, ScoringRule, ScreenWidth,
    SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule, SolveThreads,
    generate_collapse_board, replay, rng_from_seed, solve_clear,
};

/// (width, height, colours) of each case, min_group 2.
const CASES: [(u32, u32, u32); 9] = [
    (4, 4, 3),
    (5, 5, 3),
    (6, 6, 3),
    (6, 6, 4),
    (8, 8, 4),
    (8, 8, 5),
    (10, 10, 5),
    (15, 15, 5),
    (64, 64, 5),
];

fn main() {
    let (mut boards, mut nodes) = (100u64, 1_000_000u64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match arg.as_str() {
            "--boards" => boards = value.expect("--boards N"),
            "--nodes" => nodes = value.expect("--nodes N"),
            other => panic!("unknown argument {other}; usage: [--boards N] [--nodes N]"),
        }
    }
    println!(
        "| board | boards | clearable | stranded colour | exhausted | unknown | mean nodes | mean time |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let mut failures = 0;
    for (width, height, colors) in CASES {
        let size = GenerationSize::for_collapse(width, height, colors).expect("valid size");
        let options = SolveOptions {
            rule: ScoringRule::PopStar,
            min_group: MinGroup::DEFAULT,
            seed: 1,
            level: SolveLevel::parse(2).expect("level"),
            max_nodes: NodeBudget::parse(nodes).expect("nodes 1..=10^10"),
            schedule: SolveSchedule::Restarts,
            method: SolveMethod::Screened(ScreenWidth::parse(0).expect("width")),
            threads: SolveThreads::ONE,
        };
        let (mut counts, mut spent, mut time) = ([0u64; 4], 0u64, Duration::ZERO);
        for seed in 0..boards {
            let (board, _) =
                generate_collapse_board(size, MinGroup::DEFAULT, &mut rng_from_seed(seed))
                    .expect("a board");
            let started = Instant::now();
            let answer = solve_clear(&board, &options, &SolveControl::default());
            time += started.elapsed();
            spent += answer.solution.nodes;
            let column = match answer.clearability {
                Clearability::Clearable => {
                    let taps: Vec<_> = answer.solution.moves.iter().map(|m| m.position).collect();
                    let replayed = replay(&board, &taps, options.rule, options.min_group)
                        .expect("a valid replay");
                    if replayed.tiles_left != 0 || replayed.refused.is_some() {
                        eprintln!("{width}x{height}/{colors} seed {seed}: the line does not clear");
                        failures += 1;
                    }
                    0
                }
                Clearability::NotClearable(ClearProof::StrandedColor { .. }) => 1,
                Clearability::NotClearable(ClearProof::Exhausted) => 2,
                Clearability::Unknown => 3,
            };
            counts[column] += 1;
        }
        println!(
            "| {width}x{height}/{colors} | {boards} | {} | {} | {} | {} | {} | {:.2?} |",
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            spent / boards,
            time / boards as u32
        );
    }
    if failures > 0 {
        eprintln!("{failures} clearing lines failed");
        std::process::exit(1);
    }
}
