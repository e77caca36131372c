//! Counts the clearable boards [`generate_clearable_collapse_board`] makes: for each size,
//! colour count and `min_group`, seeds `0..N` are generated, every board's line is replayed
//! with [`replay`] and must leave no tile, and the time per board and the attempts used are
//! printed (docs/solver.md, "Boards that clear").
//!
//! ```sh
//! cargo run --release -p matchgrid-engine --example clearable_boards -- [--boards N]
//! ```
//! `--boards` defaults to 10,000 for each case. A refused request (too few colours for the
//! size) is counted and timed like the others. Exits non-zero when any board fails to clear.

use std::time::Instant;

use matchgrid_engine::{
    GenerationSize, MinGroup, ScoringRule, generate_clearable_collapse_board, replay, rng_from_seed,
};

/// (width, height, colours, min_group) of each case: PopStar, SameGame, and the extremes.
const CASES: [(u32, u32, u32, u32); 10] = [
    (10, 10, 5, 2),
    (15, 15, 5, 2),
    (10, 10, 3, 2),
    (10, 10, 4, 2),
    (20, 20, 4, 2),
    (64, 64, 5, 2),
    (20, 20, 8, 3),
    (64, 64, 16, 2),
    (8, 8, 4, 4),
    (1, 64, 3, 2),
];

fn main() {
    let mut boards = 10_000u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--boards" => {
                boards = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--boards N")
            }
            other => panic!("unknown argument {other}; usage: [--boards N]"),
        }
    }
    println!("| board | boards | cleared | mean time | slowest | mean attempts | refused |");
    println!("|---|---|---|---|---|---|---|");
    let mut failures = 0;
    for (width, height, colors, min_group) in CASES {
        let size = GenerationSize::for_collapse(width, height, colors).expect("valid size");
        let min_group = MinGroup::parse(min_group).expect("valid min_group");
        let (mut cleared, mut attempts, mut refused) = (0u64, 0u64, 0u64);
        let (mut total, mut slowest) = (0.0f64, 0.0f64);
        for seed in 0..boards {
            let started = Instant::now();
            let generated =
                generate_clearable_collapse_board(size, min_group, &mut rng_from_seed(seed));
            let took = started.elapsed().as_secs_f64();
            total += took;
            slowest = slowest.max(took);
            let Ok(generated) = generated else {
                refused += 1;
                continue;
            };
            attempts += u64::from(generated.attempts);
            let replayed = replay(
                &generated.board,
                &generated.line,
                ScoringRule::PopStar,
                min_group,
            )
            .expect("a line within the replay limit");
            let full = generated.board.board().tile_count() == (width * height) as usize;
            if full && replayed.tiles_left == 0 && replayed.moves.len() == generated.line.len() {
                cleared += 1;
            } else {
                failures += 1;
                eprintln!("{width}x{height}/{colors} seed {seed} does not clear");
            }
        }
        println!(
            "| {width}x{height}, {colors} colours, min_group {} | {boards} | {cleared} | {:.1} µs | {:.1} µs | {:.2} | {refused} |",
            min_group.get(),
            total / boards as f64 * 1e6,
            slowest * 1e6,
            attempts as f64 / (boards - refused).max(1) as f64,
        );
    }
    if failures > 0 {
        std::process::exit(1);
    }
}
