//! A fixed workload for instruction counts (valgrind --tool=callgrind), so two builds can be
//! compared exactly: the bench's 64 boards of each kind, each turn played `rounds` times with
//! the same seeds, one named function per turn kind.
//!
//! ```sh
//! cargo build --release -p matchgrid-engine --example turns
//! valgrind --tool=callgrind --toggle-collect='turns::level_recorded_turn' \
//!     target/release/examples/turns level 20
//! ```
//! `KIND` is `plain` (the recorded turn, `resolve_swap`), `simulated` (`play_swap`), `level`
//! (the recorded turn on a level board: 10% holes, 10% specials) or `hint` (the NONE-refill
//! outcomes of every valid swap, `certain_outcomes`); the total divided by `64 * rounds` is
//! the count of one turn.

use std::hint::black_box;

use matchgrid_engine::{
    self as engine, CascadeOptions, GenerationSize, LevelBoard, PieceKind, Refill, StableBoard,
    StableLevel, Swap, generate_level_board, level_valid_swaps, resolve_level_swap,
};
use rand::Rng;

fn swap_boards() -> Vec<(StableBoard, Swap)> {
    let size = GenerationSize::for_swap(9, 9, 6).unwrap();
    (0..64)
        .map(|seed| {
            let mut rng = engine::rng_from_seed(seed);
            let (board, _) = engine::generate_swap_board(size, 1, &mut rng).unwrap();
            let first = engine::valid_swaps(&board)[0];
            (board, first)
        })
        .collect()
}

fn level_boards() -> Vec<(StableLevel, Swap)> {
    let size = GenerationSize::for_swap(9, 9, 6).unwrap();
    let mut boards = Vec::new();
    let mut seed = 0u64;
    while boards.len() < 64 {
        seed += 1;
        let mut rng = engine::rng_from_seed(seed);
        let holes: Vec<bool> = (0..81).map(|_| rng.random_bool(0.1)).collect();
        let Ok((level, _)) = generate_level_board(size, 1, holes, &mut rng) else {
            continue;
        };
        let level = level.into_level();
        let mut cells = level.board().cells().to_vec();
        let mut kinds = level.kinds().to_vec();
        for index in 0..cells.len() {
            if level.is_tile(index) && rng.random_bool(0.1) {
                kinds[index] = match rng.random_range(0..4) {
                    0 => PieceKind::StripedH,
                    1 => PieceKind::StripedV,
                    2 => PieceKind::Wrapped,
                    _ => {
                        cells[index] = 0;
                        PieceKind::ColorBomb
                    }
                };
            }
        }
        let cells: Vec<u32> = cells.into_iter().map(u32::from).collect();
        let board = engine::Board::from_raw(9, 9, &cells).unwrap();
        let Ok(special) = LevelBoard::new(board, level.holes().to_vec(), kinds) else {
            continue;
        };
        let Ok(stable) = StableLevel::try_from(special) else {
            continue;
        };
        if let Some(&(swap, _)) = level_valid_swaps(&stable).first() {
            boards.push((stable, swap));
        }
    }
    boards
}

const OPTIONS: CascadeOptions = CascadeOptions {
    refill: Refill::Random { colors: 6 },
    auto_shuffle: true,
    max_steps: 1000,
};

#[inline(never)]
fn recorded_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

#[inline(never)]
fn simulated_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::play_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

#[inline(never)]
fn level_recorded_turn(level: StableLevel, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(resolve_level_swap(level, swap, OPTIONS, &mut rng).unwrap());
}

#[inline(never)]
fn hint_outcomes(board: &StableBoard) {
    black_box(engine::certain_outcomes(board, 200).unwrap());
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "level".to_owned());
    let rounds: u64 = args.next().map_or(20, |r| r.parse().expect("rounds"));
    match kind.as_str() {
        "level" => {
            let boards = level_boards();
            for _ in 0..rounds {
                for (seed, (level, swap)) in boards.iter().enumerate() {
                    level_recorded_turn(level.clone(), *swap, seed as u64);
                }
            }
        }
        "plain" | "simulated" | "hint" => {
            let boards = swap_boards();
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    match kind.as_str() {
                        "plain" => recorded_turn(board.clone(), *swap, seed as u64),
                        "simulated" => simulated_turn(board.clone(), *swap, seed as u64),
                        _ => hint_outcomes(board),
                    }
                }
            }
        }
        other => panic!("unknown kind {other}: plain, simulated, level or hint"),
    }
}
