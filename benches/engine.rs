//! Engine benchmarks (criterion): `cargo bench --bench engine`.
//!
//! Swap family: the seed workloads on 8x8/5 (a seeded board; a full move, 50 per board), and
//! generate, dead check, valid swaps (beside a naive baseline), verdict and a full turn on 9x9/6
//! and 64x64/16. Collapse family on 10x10/5 (PopStar) and 15x15/5 (SameGame); random playouts
//! to game over on standard SameGame position 1.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use matchgrid::engine::{
    self, Board, CascadeOptions, GenerationSize, MinGroup, Refill, ScoringRule, SettledBoard,
    StableBoard, Swap,
};
use matchgrid::engine::{CollapseGame, CollapsePlayout, CompactGame};

#[path = "../engine/examples/fixtures/mod.rs"]
mod fixtures;
use fixtures::{level_boards, obstacle_boards, obstacle_layout, swap_boards};
use rand::Rng;

/// The naive baseline: every adjacent pair swapped on a copy of the cells, then the two lines
/// through each swapped cell scanned for three in a row (what a first implementation does).
fn naive_valid_swap_count(board: &Board) -> usize {
    let (width, height) = (board.width(), board.height());
    let mut cells = board.cells().to_vec();
    let in_run = |cells: &[u8], row: usize, col: usize| {
        let color = cells[row * width + col];
        let count = |dr: isize, dc: isize| {
            let (mut r, mut c, mut n) = (row as isize + dr, col as isize + dc, 0);
            while r >= 0
                && c >= 0
                && (r as usize) < height
                && (c as usize) < width
                && cells[r as usize * width + c as usize] == color
            {
                n += 1;
                r += dr;
                c += dc;
            }
            n
        };
        count(0, -1) + count(0, 1) >= 2 || count(-1, 0) + count(1, 0) >= 2
    };
    let mut valid = 0;
    for a in 0..width * height {
        let (row, col) = (a / width, a % width);
        for b in [
            (col + 1 < width).then_some(a + 1),
            (row + 1 < height).then_some(a + width),
        ]
        .into_iter()
        .flatten()
        {
            if cells[a] == cells[b] {
                continue;
            }
            cells.swap(a, b);
            if in_run(&cells, row, col) || in_run(&cells, b / width, b % width) {
                valid += 1;
            }
            cells.swap(a, b);
        }
    }
    valid
}

/// The seed workloads of the engine-speed issue on 8x8 boards with 5 colours: a seeded board,
/// and a full move (adjacent pairs tried from a random start until one is valid, then the
/// whole cascade with random refill), 50 moves per board.
fn bench_seed_workloads(c: &mut Criterion) {
    let mut group = c.benchmark_group("seed_8x8_5c");
    group.throughput(Throughput::Elements(1));
    let size = GenerationSize::for_swap(8, 8, 5).unwrap();
    let mut seed = 0u64;
    group.bench_function("generate", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = engine::rng_from_seed(seed);
            black_box(engine::generate_swap_board(size, 1, &mut rng).unwrap())
        })
    });
    const MOVES_PER_BOARD: u64 = 50;
    let options = CascadeOptions {
        refill: Refill::Random { colors: 5 },
        auto_shuffle: true,
        max_steps: 1000,
        specials: false,
    };
    group.throughput(Throughput::Elements(MOVES_PER_BOARD));
    group.bench_function("full_move_x50", |b| {
        b.iter_batched(
            || {
                seed += 1;
                let mut rng = engine::rng_from_seed(seed);
                (
                    engine::generate_swap_board(size, 1, &mut rng).unwrap().0,
                    rng,
                )
            },
            |(mut board, mut rng)| {
                let mut score = 0;
                for _ in 0..MOVES_PER_BOARD {
                    let start = rng.random_range(0..2 * 64);
                    let Some(swap) = engine::first_valid_swap_from(&board, start) else {
                        break;
                    };
                    let played = engine::play_swap(board, swap, options, &mut rng).unwrap();
                    score += played.score;
                    board = played.into_stable().expect("random refill ends stable");
                }
                black_box(score)
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// The RNG on the hot path: 64 draws of a colour from `1..=5` (one 8x8 board's worth) from
/// ChaCha8, the stream every response is pinned to, beside Xoshiro256++ (a small fast RNG) as
/// the baseline of what the draws could cost.
fn bench_rng(c: &mut Criterion) {
    use rand::SeedableRng;
    let mut group = c.benchmark_group("rng_64_draws");
    group.throughput(Throughput::Elements(64));
    let mut chacha = engine::rng_from_seed(1);
    group.bench_function("chacha8", |b| {
        b.iter(|| (0..64).fold(0u32, |acc, _| acc + u32::from(chacha.random_range(1..=5u8))))
    });
    let mut xoshiro = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1);
    group.bench_function("xoshiro256pp_baseline", |b| {
        b.iter(|| {
            (0..64).fold(0u32, |acc, _| {
                acc + u32::from(xoshiro.random_range(1..=5u8))
            })
        })
    });
    group.finish();
}

/// One swap turn on a stable board, its RNG seeded from the `u64`: the recorded or the
/// simulation path.
type TurnFn = fn(StableBoard, Swap, CascadeOptions, u64);

// The timed turns are functions of their own (never inlined), so that a profiler can single
// them out of the bench binary, setup left out; README gives the callgrind command.

/// A full turn as the ResolveCascade RPC runs it: judge the swap, resolve the cascade with
/// random refill recording every step, judge the final board (dead, valid swaps); the outcome
/// is dropped here.
#[inline(never)]
fn recorded_turn(board: StableBoard, swap: Swap, options: CascadeOptions, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(board, swap, options, &mut rng).unwrap());
}

/// The same turn for simulations: same board, score and dead check, no events.
#[inline(never)]
fn simulated_turn(board: StableBoard, swap: Swap, options: CascadeOptions, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::play_swap(board, swap, options, &mut rng).unwrap());
}

/// [`recorded_turn`] on a level board.
#[inline(never)]
fn level_recorded_turn(level: StableBoard, swap: Swap, options: CascadeOptions, seed: u64) {
    let mut rng = engine::rng_from_seed(seed);
    black_box(engine::resolve_swap(level, swap, options, &mut rng).unwrap());
}

fn bench_swap(c: &mut Criterion) {
    for (width, height, colors, name) in [(9, 9, 6, "swap_9x9_6c"), (64, 64, 16, "swap_64x64_16c")]
    {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        let size = GenerationSize::for_swap(width, height, colors).unwrap();
        let mut seed = 0u64;
        group.bench_function("generate", |b| {
            b.iter(|| {
                seed += 1;
                let mut rng = engine::rng_from_seed(seed);
                black_box(engine::generate_swap_board(size, 1, &mut rng).unwrap())
            })
        });
        let boards = swap_boards(width, height, colors, 64);
        let mut next = 0usize;
        group.bench_function("is_dead", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                black_box(engine::is_dead(&boards[next].0))
            })
        });
        group.bench_function("valid_swaps", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                black_box(engine::valid_swaps(&boards[next].0))
            })
        });
        group.bench_function("valid_swap_count_naive_baseline", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                black_box(naive_valid_swap_count(boards[next].0.colors()))
            })
        });
        group.bench_function("validate_swap", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                let (board, swap) = &boards[next];
                black_box(engine::judge_swap(board, *swap))
            })
        });
        let options = CascadeOptions {
            refill: Refill::Random {
                colors: colors as u8,
            },
            auto_shuffle: true,
            max_steps: 1000,
            specials: false,
        };
        let turns: [(&str, TurnFn); 2] = [
            ("full_turn_recorded", recorded_turn),
            ("full_turn", simulated_turn),
        ];
        for (name, turn) in turns {
            group.bench_function(name, |b| {
                b.iter_batched(
                    || {
                        next = (next + 1) % boards.len();
                        (boards[next].clone(), next as u64)
                    },
                    |((board, swap), seed)| turn(board, swap, options, seed),
                    BatchSize::SmallInput,
                )
            });
        }
        group.finish();
    }
}

/// A full turn on a level board (holes and special pieces, cell by cell), as `ResolveCascade`
/// runs it: judge, resolve with random refill recording every step, judge the final board.
/// Compare with `swap_9x9_6c/full_turn_recorded` and `full_turn` on plain boards.
fn bench_levels(c: &mut Criterion) {
    let mut group = c.benchmark_group("level_9x9_6c_10pct_holes_10pct_specials");
    group.throughput(Throughput::Elements(1));
    let boards = level_boards(64);
    let options = CascadeOptions {
        refill: Refill::Random { colors: 6 },
        auto_shuffle: true,
        max_steps: 1000,
        specials: true,
    };
    let mut next = 0usize;
    group.bench_function("full_turn_recorded", |b| {
        b.iter_batched(
            || {
                next = (next + 1) % boards.len();
                (boards[next].clone(), next as u64)
            },
            // The outcome is dropped inside the timed routine, as the plain turns' are.
            |((level, swap), seed)| level_recorded_turn(level, swap, options, seed),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// Level play (docs/rules.md section 8) on 9x9, 6-colour boards generated on one layout (20%
/// jelly, 10% blockers, 5% locks, 2 ingredients): the recorded turn as `PlayMove` and
/// `ResolveCascade` run it, beside the plain recorded turn of `swap_9x9_6c` in the same group
/// (the ratio is the target), and one greedy game of 30 moves as `Simulate` plays it
/// (throughput: games per second).
fn bench_level_play(c: &mut Criterion) {
    let mut group = c.benchmark_group("level_play_9x9_6c_20pct_jelly_10pct_blockers_5pct_locks");
    group.throughput(Throughput::Elements(1));
    let plain = swap_boards(9, 9, 6, 64);
    let boards = obstacle_boards(64);
    let plain_options = CascadeOptions {
        refill: Refill::Random { colors: 6 },
        auto_shuffle: true,
        max_steps: 1000,
        specials: false,
    };
    let options = CascadeOptions {
        specials: true,
        ..plain_options
    };
    let mut next = 0usize;
    for (name, boards, options) in [
        ("plain_full_turn_recorded_baseline", &plain, plain_options),
        ("full_turn_recorded", &boards, options),
    ] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    next = (next + 1) % boards.len();
                    (boards[next].clone(), next as u64)
                },
                |((board, swap), seed)| recorded_turn(board, swap, options, seed),
                // A stable level board holds about 7 KiB of bitboards: a SmallInput batch of a
                // thousand of them would be cold in cache, where a server builds a board's
                // bitboards (its stability check) just before its turn. Both turns alike.
                BatchSize::LargeInput,
            )
        });
    }
    let level = engine::Level::new(
        engine::LevelStart::Layout(obstacle_layout()),
        6,
        30,
        vec![engine::Goal::ClearJelly, engine::Goal::BringDown(2)],
    )
    .unwrap();
    let mut seed = 0u64;
    group.bench_function("greedy_game_30_moves", |b| {
        b.iter(|| {
            seed += 1;
            let policy = engine::LevelPolicy::Greedy;
            black_box(engine::simulate_level(&level, policy, 1, seed, || true).unwrap())
        })
    });
    group.finish();
}

fn collapse_boards(size: u32, count: u64) -> Vec<SettledBoard> {
    (0..count)
        .map(|seed| {
            engine::generate_collapse_board(
                GenerationSize::for_collapse(size, size, 5).unwrap(),
                MinGroup::DEFAULT,
                &mut engine::rng_from_seed(seed),
            )
            .unwrap()
            .0
        })
        .collect()
}

fn bench_collapse(c: &mut Criterion) {
    for (size, rule, name) in [
        (10, ScoringRule::PopStar, "popstar_10x10_5c"),
        (15, ScoringRule::SameGame, "samegame_15x15_5c"),
    ] {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Elements(1));
        let boards = collapse_boards(size, 64);
        let taps: Vec<_> = boards
            .iter()
            .map(|b| engine::legal_groups(b, rule, MinGroup::DEFAULT)[0].representative)
            .collect();
        let mut next = 0usize;
        group.bench_function("tap", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                black_box(engine::tap(&boards[next], taps[next], rule, MinGroup::DEFAULT).unwrap())
            })
        });
        group.bench_function("check_dead", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                black_box(engine::legal_groups(&boards[next], rule, MinGroup::DEFAULT))
            })
        });
        group.bench_function("is_game_over", |b| {
            b.iter(|| {
                next = (next + 1) % boards.len();
                black_box(engine::is_game_over(&boards[next], MinGroup::DEFAULT))
            })
        });
        group.finish();
    }
}

fn standard_position_1() -> SettledBoard {
    let text = include_str!("../data/samegame-standard-20.txt");
    let cells: Vec<u32> = text
        .split_whitespace()
        .take(225)
        .map(|v| v.parse::<u32>().unwrap() + 1)
        .collect();
    SettledBoard::try_from(Board::from_raw(15, 15, &cells).unwrap()).unwrap()
}

/// One random playout on the bitboards: each move taps a legal group drawn uniformly among
/// [`CollapsePlayout`]'s groups, SameGame rule, min_group 2, to game over. Returns the score.
fn random_playout(start: &CollapsePlayout, rng: &mut impl Rng) -> i64 {
    let mut playout = start.clone();
    let mut score = 0u64;
    while playout.group_count() > 0 {
        let size = playout.tap_group(rng.random_range(0..playout.group_count()));
        score += ScoringRule::SameGame.move_score(size);
    }
    score as i64 + ScoringRule::SameGame.end_bonus(playout.game().tiles_left())
}

fn bench_playouts(c: &mut Criterion) {
    let start = standard_position_1();
    let mut group = c.benchmark_group("samegame_standard_1");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    let playout = CollapsePlayout::new(CollapseGame::new(&start), MinGroup::DEFAULT);
    group.bench_function("random_playout_to_game_over", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = engine::rng_from_seed(seed);
            black_box(random_playout(&playout, &mut rng))
        })
    });
    // The same workload on 256-bit colour planes (`CompactGame`): each move draws a group
    // uniformly by rejection (a paired cell drawn uniformly, its group of n kept with
    // probability 2/n), no groups tracked.
    let compact = CompactGame::new(&CollapseGame::new(&start)).expect("15x15 fits 16x16");
    group.bench_function("random_playout_compact", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = engine::rng_from_seed(seed);
            let mut game = compact.clone();
            let mut score = 0u64;
            while let Some(tapped) = game.tap_random(MinGroup::DEFAULT, &mut rng) {
                score += ScoringRule::SameGame.move_score(tapped.size);
            }
            black_box(score as i64 + ScoringRule::SameGame.end_bonus(game.tiles_left()))
        })
    });
    // The same workload re-listing every group each move (`CollapseGame::legal_groups_into`).
    let game = CollapseGame::new(&start);
    let mut groups = Vec::new();
    group.bench_function("random_playout_relisting_groups", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = engine::rng_from_seed(seed);
            let mut game = game.clone();
            let mut score = 0u64;
            loop {
                game.legal_groups_into(MinGroup::DEFAULT, &mut groups);
                if groups.is_empty() {
                    break;
                }
                let pick = groups[rng.random_range(0..groups.len())].position;
                score += ScoringRule::SameGame
                    .move_score(game.apply_tap(pick, MinGroup::DEFAULT).unwrap());
            }
            black_box(score as i64 + ScoringRule::SameGame.end_bonus(game.tiles_left()))
        })
    });
    // The same workload through the recording API (`legal_groups` + `tap`), for comparison.
    group.bench_function("random_playout_via_tap_api", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = engine::rng_from_seed(seed);
            let mut board = start.clone();
            let mut score = 0i64;
            loop {
                let groups = engine::legal_groups(&board, ScoringRule::SameGame, MinGroup::DEFAULT);
                if groups.is_empty() {
                    break;
                }
                let pick = groups[rng.random_range(0..groups.len())].representative;
                let outcome =
                    engine::tap(&board, pick, ScoringRule::SameGame, MinGroup::DEFAULT).unwrap();
                score += outcome.total_score();
                board = outcome.board;
            }
            black_box(score)
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    bench_rng,
    bench_seed_workloads,
    bench_swap,
    bench_levels,
    bench_level_play,
    bench_collapse,
    bench_playouts
);
criterion_main!(benches);
