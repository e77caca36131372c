//! Engine benchmarks (criterion): `cargo bench --bench engine`.
//!
//! Swap family on 9x9 with 6 colours; collapse family on 10x10/5 (PopStar) and 15x15/5
//! (SameGame); random playouts to game over on standard SameGame position 1.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use matchgrid::engine::collapse::{CollapseGame, CollapsePlayout};
use matchgrid::engine::{
    self, Board, CascadeOptions, GenerationSize, MinGroup, Refill, ScoringRule, SettledBoard,
    StableBoard, Swap,
};

fn nine_by_nine() -> GenerationSize {
    GenerationSize::for_swap(9, 9, 6).unwrap()
}
use rand::Rng;

fn swap_boards(count: u64) -> Vec<(StableBoard, Swap)> {
    (0..count)
        .map(|seed| {
            let mut rng = engine::rng_from_seed(seed);
            let (board, _) = engine::generate_swap_board(nine_by_nine(), 1, &mut rng).unwrap();
            let first = engine::valid_swaps(&board)[0];
            (board, first)
        })
        .collect()
}

fn bench_swap(c: &mut Criterion) {
    let mut group = c.benchmark_group("swap_9x9_6c");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    group.bench_function("generate", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = engine::rng_from_seed(seed);
            black_box(engine::generate_swap_board(nine_by_nine(), 1, &mut rng).unwrap())
        })
    });
    let boards = swap_boards(64);
    let mut next = 0usize;
    group.bench_function("check_dead", |b| {
        b.iter(|| {
            next = (next + 1) % boards.len();
            black_box(engine::valid_swaps(&boards[next].0))
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
        refill: Refill::Random { colors: 6 },
        auto_shuffle: true,
        max_steps: 1000,
    };
    group.bench_function("resolve_swap_cascade_refill", |b| {
        b.iter_batched(
            || {
                next = (next + 1) % boards.len();
                (boards[next].clone(), next as u64)
            },
            |((board, swap), seed)| {
                let mut rng = engine::rng_from_seed(seed);
                black_box(engine::resolve_swap(board, swap, options, &mut rng).unwrap())
            },
            BatchSize::SmallInput,
        )
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
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/samegame-standard-20.txt"
    ))
    .expect("data/samegame-standard-20.txt");
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

criterion_group!(benches, bench_swap, bench_collapse, bench_playouts);
criterion_main!(benches);
