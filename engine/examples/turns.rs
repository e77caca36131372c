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
//! (the recorded turn on a level board: 10% holes, 10% specials), `layered` (the plain kind's
//! boards and turns on the layered path: empty hole and kind layers, specials off, so the
//! same cascades as `plain`; function `turns::layered_recorded_turn`), `obstacles` (the recorded
//! turn on boards with level layers: 20% jelly, 10% blockers, 5% locks, 2 ingredients;
//! `turns::obstacle_recorded_turn`), `plain-checked` and `obstacles-checked` (the `plain` and
//! `obstacles` turns from a board not yet known stable, the stability check included, as a
//! server plays them; `turns::checked_turn`, `turns::obstacle_checked_turn`), `validate` (the
//! `plain-checked` boards' stability check and swap preview, as ValidateSwap runs them;
//! `turns::validated_swap`), `greedy` (`rounds` greedy games of 30 moves on their
//! layout; `turns::greedy_game`, divide by `rounds` only) or `hint` (the NONE-refill
//! outcomes of every valid swap, `certain_outcomes`); the total divided by `64 * rounds` is
//! the count of one turn.

use std::hint::black_box;

use matchgrid_engine::{self as engine, CascadeOptions, Refill, StableBoard, Swap};

mod fixtures;

const OPTIONS: CascadeOptions = CascadeOptions {
    refill: Refill::Random { colors: 6 },
    auto_shuffle: true,
    max_steps: 1000,
    specials: false,
};

/// A level's options: special pieces created.
const LEVEL_OPTIONS: CascadeOptions = CascadeOptions {
    specials: true,
    ..OPTIONS
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
fn level_recorded_turn(level: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(level, swap, LEVEL_OPTIONS, &mut rng).unwrap());
}

/// [`recorded_turn`] on the layered path (the board has empty layers; no specials).
#[inline(never)]
fn layered_recorded_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

/// [`level_recorded_turn`] on a board with level layers (jelly, blockers, locks, ingredients).
#[inline(never)]
fn obstacle_recorded_turn(board: StableBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, LEVEL_OPTIONS, &mut rng).unwrap());
}

/// [`recorded_turn`] from a board that is not yet known stable, as a server gets it: the
/// stability check (which builds the stable board's bitboards) and then the turn.
#[inline(never)]
fn checked_turn(board: engine::SwapBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    let board = StableBoard::try_from(board).unwrap();
    black_box(engine::resolve_swap(board, swap, OPTIONS, &mut rng).unwrap());
}

/// [`obstacle_recorded_turn`] from a board that is not yet known stable, as
/// [`checked_turn`].
#[inline(never)]
fn obstacle_checked_turn(board: engine::SwapBoard, swap: Swap, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    let board = StableBoard::try_from(board).unwrap();
    black_box(engine::resolve_swap(board, swap, LEVEL_OPTIONS, &mut rng).unwrap());
}

/// What ValidateSwap asks of the engine: the stability check of a board not yet known stable,
/// then the swap's preview.
#[inline(never)]
fn validated_swap(board: engine::SwapBoard, swap: Swap) {
    black_box(engine::check_and_preview_swap(board, swap).unwrap());
}

/// One greedy game of 30 moves of the level-play bench's level.
#[inline(never)]
fn greedy_game(level: &engine::Level, seed: u64) {
    let policy = engine::LevelPolicy::Greedy;
    black_box(engine::simulate_level(level, policy, 1, seed, || true).unwrap());
}

#[inline(never)]
fn hint_outcomes(board: &StableBoard) {
    black_box(engine::certain_outcomes(board, false, 200).unwrap());
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "level".to_owned());
    let rounds: u64 = args.next().map_or(20, |r| r.parse().expect("rounds"));
    match kind.as_str() {
        "greedy" => {
            let level = engine::Level::new(
                engine::LevelStart::Layout(fixtures::obstacle_layout()),
                6,
                30,
                vec![engine::Goal::ClearJelly, engine::Goal::BringDown(2)],
            )
            .unwrap();
            for seed in 0..rounds {
                greedy_game(&level, seed);
            }
        }
        "obstacles" => {
            let boards = fixtures::obstacle_boards(64);
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    obstacle_recorded_turn(board.clone(), *swap, seed as u64);
                }
            }
        }
        "obstacles-checked" | "plain-checked" | "validate" => {
            let boards = if kind != "obstacles-checked" {
                fixtures::swap_boards(9, 9, 6, 64)
            } else {
                fixtures::obstacle_boards(64)
            };
            let boards: Vec<_> = boards
                .into_iter()
                .map(|(b, s)| (b.into_board(), s))
                .collect();
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    let seed = seed as u64;
                    match kind.as_str() {
                        "plain-checked" => checked_turn(board.clone(), *swap, seed),
                        "validate" => validated_swap(board.clone(), *swap),
                        _ => obstacle_checked_turn(board.clone(), *swap, seed),
                    }
                }
            }
        }
        "level" => {
            let boards = fixtures::level_boards(64);
            for _ in 0..rounds {
                for (seed, (level, swap)) in boards.iter().enumerate() {
                    level_recorded_turn(level.clone(), *swap, seed as u64);
                }
            }
        }
        "layered" => {
            let boards: Vec<(StableBoard, Swap)> = fixtures::swap_boards(9, 9, 6, 64)
                .into_iter()
                .map(|(board, swap)| {
                    let colors = board.colors().clone();
                    let layered = engine::SwapBoard::with_layers(colors, Vec::new(), Vec::new());
                    (StableBoard::try_from(layered.unwrap()).unwrap(), swap)
                })
                .collect();
            for _ in 0..rounds {
                for (seed, (board, swap)) in boards.iter().enumerate() {
                    layered_recorded_turn(board.clone(), *swap, seed as u64);
                }
            }
        }
        "plain" | "simulated" | "hint" => {
            let boards = fixtures::swap_boards(9, 9, 6, 64);
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
        other => panic!("unknown kind {other}: see the module documentation"),
    }
}
