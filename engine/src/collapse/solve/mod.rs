//! [`solve`]: the best tap sequence found for a collapse-family board within a node budget, by
//! Nested Monte-Carlo Search with TabuColorRandom playouts, optionally with simulation
//! reduction.
//!
//! **Method.** Nested Monte-Carlo Search (NMCS; T. Cazenave, "Nested Monte-Carlo Search",
//! IJCAI 2009, pp. 456-461). A level-0 search is one random playout to game over. A level-`L`
//! search from a position tries every legal move, runs a level-`L - 1` search after each, and
//! plays the first move of the best sequence found so far (memorised across the steps, so the
//! score never drops), until the game is over. The playouts are TabuColorRandom (M. Schadd, M.
//! Winands, H. van den Herik, G. Chaslot, J. Uiterwijk, "Single-Player Monte-Carlo Tree
//! Search", Computers and Games 2008, LNCS 5131): the colour with the most tiles when the
//! playout starts is tabu, so the playout taps uniformly among the legal groups of the other
//! colours and taps a tabu-coloured group only when nothing else is legal; tiles of that colour
//! pile up into a large group, which pays under the quadratic rules. Under `CLICKOMANIA`
//! (linear scores) the playouts are uniformly random.
//!
//! **Schedule.** The search runs levels 1, 2, ..., `level` in turn from the starting board, each
//! starting from the best game found so far (so a level never ends below the previous one), and
//! stops when the last level completes ([`SolveStop::Completed`]) or a limit is reached. One
//! playout always runs first, so even a search stopped at once returns a whole game. With
//! [`SolveSchedule::Restarts`] the whole schedule then runs again from scratch (a fresh first
//! playout, not the best game so far) with the next draws of the same random stream, again and
//! again until a limit stops the search, and the best game of all runs is returned: the
//! random-restart meta-search Schadd et al. 2008 ran SP-MCTS with. A level-2 run on 15x15
//! completes in 1.5-4.3*10^7 nodes and its result depends on the draws, so a budget of a few
//! 10^8 nodes is better spent on several runs than on a level 3 that gets a few steps in (on
//! the 20 standard positions, restarts from scratch also scored a little better than restarts
//! that start from the best game so far).
//!
//! **Simulation reduction.** With [`SolveMethod::Screened`] a step of a level of 2 or more
//! first runs one playout after every legal move, then runs the level below only after the
//! `width` moves whose playouts scored highest (the earlier move in the scan on a tie); the
//! move of the best sequence so far is still followed when none of them beats it. This is the
//! idea of H. Akiyama, K. Komiya, Y. Kotani, "Nested Monte-Carlo Search with simulation
//! reduction" (Knowledge-Based Systems 34, 2012): most of a level-2 step's effort goes to
//! level-1 searches after moves a cheap look already shows to be poor. A screened level-2 run
//! (width 16) on 15x15 costs about 40% of a plain one, so restarts fit about 2.3 times as many
//! runs in a budget; on the 20 standard SameGame positions that scored 1.8% higher on the same
//! budget (README). [`SolveMethod::Nmcs`] is the plain search and answers exactly as before the
//! method existed.
//!
//! **Effort and determinism.** A *node* is one tap applied by the search, in the tree or in a
//! playout. Limits are checked before every playout: the node budget (the search stops at the
//! first check with `nodes >= max_nodes`, so it overshoots by at most one playout, at most
//! `tiles / min_group` taps), the wall-clock limits and the cancel flag. All randomness comes
//! from one ChaCha8 stream seeded with the request's seed, so a search stopped by its node budget
//! (or completed) gives the same sequence on every run and every machine. A search stopped by a
//! clock ([`SolveStop::TimeLimit`], [`SolveStop::Deadline`]) or cancelled returns the best game
//! found so far, which depends on the machine's speed: the clocks are the one non-deterministic
//! input.
//!
//! **Speed.** Boards of at most 16x16 run on [`CompactGame`] planes (about 6 to 6.6 million
//! nodes a second on one core on the 15x15 standard SameGame positions); larger boards on
//! [`CollapseGame`] with [`CollapsePlayout`] playouts, several times slower per node.
//!
//! **Layout.** This module holds [`solve`] and what it returns; the parameters are in
//! `options`, the NMCS levels and the schedule in `search`, and what the search needs of a
//! position (moves, a tap, a TabuColorRandom playout) for each representation in `game`.

mod beam;
mod clear;
mod evaluation;
mod game;
mod options;
mod search;

pub use clear::{ClearProof, ClearSolution, Clearability, MAX_CLEAR_TABLE_BYTES, solve_clear};

pub use options::{
    BeamOptions, BeamWidth, DEFAULT_BEAM_WIDTH, DEFAULT_REFINE_FACTOR, DEFAULT_SCREEN_WIDTH,
    DEFAULT_SOLVE_LEVEL, DEFAULT_SOLVE_NODES, MAX_BEAM_WIDTH, MAX_REFINE_FACTOR, MAX_SCREEN_WIDTH,
    MAX_SOLVE_LEVEL, MAX_SOLVE_MILLIS, MAX_SOLVE_NODES, MAX_SOLVE_THREADS, NodeBudget,
    RefineFactor, ScreenWidth, SolveControl, SolveLevel, SolveMethod, SolveOptions, SolveSchedule,
    SolveThreads, parse_time_limit,
};

use std::time::{Duration, Instant};

use crate::position::Position;
use crate::settled::SettledBoard;

#[cfg(doc)]
use super::CollapsePlayout;
use super::{CollapseGame, CompactGame};
use evaluation::{BeamGame, Weights};

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SolveStop {
    /// Every level up to the requested one ran to the end (or the board had no legal group).
    Completed,
    /// The node budget was spent.
    NodeBudget,
    /// The caller's wall-clock limit passed.
    TimeLimit,
    /// The request's deadline came near.
    Deadline,
    /// The cancel flag was set.
    Cancelled,
}

/// One tap of a solution, as the board is before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolvedMove {
    /// The group's first cell in row-major order (its representative, as `CheckDeadState`
    /// lists it); tapping it clears the group.
    pub position: Position,
    /// The group's colour, `1..=16`.
    pub color: u8,
    /// The group's size in cells, `>= min_group`.
    pub size: usize,
    /// The move's score under the rule.
    pub move_score: u64,
}

/// The best game a search found, and what the search cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The taps, in order, each legal on the board left by the ones before; the last leaves no
    /// legal group (empty when the starting board has none).
    pub moves: Vec<SolvedMove>,
    /// The sum of the move scores plus `end_bonus`: what `Tap` calls in sequence total.
    pub score: i64,
    /// The rule's end adjustment for the final board.
    pub end_bonus: i64,
    /// The board after the last tap (game over).
    pub board: SettledBoard,
    /// Tiles left on `board`.
    pub tiles_left: usize,
    /// Taps applied by the search (tree and playouts).
    pub nodes: u64,
    /// Playouts run.
    pub playouts: u64,
    /// Levels that ran to the end in the first run, `0..=level`.
    pub levels_completed: u32,
    /// Runs of the whole level schedule that ran to the end (with
    /// [`SolveSchedule::Restarts`], possibly more than one).
    pub runs_completed: u32,
    /// Wall-clock time of the search.
    pub elapsed: Duration,
    /// Why the search stopped.
    pub stop: SolveStop,
}

/// Searches for the highest-scoring tap sequence from `board` (see the module docs for the
/// method, its sources and its limits). Never fails: a board with no legal group gives an
/// empty sequence scored with its end adjustment.
pub fn solve(board: &SettledBoard, options: &SolveOptions, control: &SolveControl) -> Solution {
    let started = Instant::now();
    let (best, mut search) = match CompactGame::from_board(board) {
        Some(game) => run_threads(game, options, control),
        None => run_threads(CollapseGame::new(board), options, control),
    };
    search.elapsed = started.elapsed();
    finish(board, options, &best, search)
}

/// The search on `options.threads` threads (the module docs' "Threads"): thread `i` runs
/// [`search::run`] on stream `i` of the seed with its share of the node budget; the best game
/// wins, the lowest thread on a tie.
fn run_threads<G: BeamGame + Send>(
    root: G,
    options: &SolveOptions,
    control: &SolveControl,
) -> (Vec<Position>, Effort) {
    let threads = options.threads.get();
    if threads == 1 {
        return run_one(root, options, control, 0);
    }
    let budget = options.max_nodes.get();
    let share = |thread: usize| {
        let nodes = budget / threads as u64 + u64::from((thread as u64) < budget % threads as u64);
        SolveOptions {
            max_nodes: NodeBudget::parse(nodes.max(1)).unwrap_or(options.max_nodes),
            ..*options
        }
    };
    let results: Vec<(Vec<Position>, Effort)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|thread| {
                let (root, options) = (root.clone(), share(thread));
                scope.spawn(move || run_one(root, &options, control, thread))
            })
            .collect();
        let first = run_one(root.clone(), &share(0), control, 0);
        std::iter::once(first)
            .chain(others.into_iter().map(|handle| match handle.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            }))
            .collect()
    });
    let score_of = |line: &[Position]| {
        let mut game = root.clone();
        let moves: i64 = line
            .iter()
            .map(|&at| options.rule.move_score(game.play(at, options.min_group)) as i64)
            .sum();
        moves + options.rule.end_bonus(game.tiles_left())
    };
    let mut best = 0;
    let scores: Vec<i64> = results.iter().map(|(line, _)| score_of(line)).collect();
    for (thread, &score) in scores.iter().enumerate() {
        if score > scores[best] {
            best = thread;
        }
    }
    let effort = Effort {
        nodes: results.iter().map(|(_, e)| e.nodes).sum(),
        playouts: results.iter().map(|(_, e)| e.playouts).sum(),
        levels_completed: results[0].1.levels_completed,
        runs_completed: results.iter().map(|(_, e)| e.runs_completed).sum(),
        elapsed: Duration::ZERO,
        stop: results
            .iter()
            .map(|(_, e)| e.stop)
            .find(|&stop| stop != SolveStop::Completed)
            .unwrap_or(SolveStop::Completed),
    };
    let line = results.into_iter().nth(best).map(|(line, _)| line);
    (line.unwrap_or_default(), effort)
}

/// Thread `thread`'s search: the beam of [`SolveMethod::Beam`] or [`SolveMethod::TabuBeam`],
/// else NMCS on stream `thread`.
fn run_one<G: BeamGame>(
    root: G,
    options: &SolveOptions,
    control: &SolveControl,
    thread: usize,
) -> (Vec<Position>, Effort) {
    match options.method {
        SolveMethod::Beam(beam) => {
            let weights = Weights::for_rule(options.rule);
            beam::run(root, options, control, (beam, weights, false), thread)
        }
        SolveMethod::TabuBeam(beam) => {
            let weights = Weights::TABU_COLOUR;
            beam::run(root, options, control, (beam, weights, true), thread)
        }
        SolveMethod::Nmcs | SolveMethod::Screened(_) => {
            search::run(root, options, control, None, thread as u64)
        }
    }
}

/// Search effort and outcome, before the sequence is written out.
struct Effort {
    nodes: u64,
    playouts: u64,
    levels_completed: u32,
    runs_completed: u32,
    elapsed: Duration,
    stop: SolveStop,
}

/// Replays the best sequence through the recording [`tap`](super::tap) to name each group by
/// its representative and score it as `Tap` does.
fn finish(
    board: &SettledBoard,
    options: &SolveOptions,
    best: &[Position],
    effort: Effort,
) -> Solution {
    let mut current = board.clone();
    let mut moves = Vec::with_capacity(best.len());
    let mut score = 0i64;
    for &at in best {
        match super::tap(&current, at, options.rule, options.min_group) {
            Ok(outcome) => {
                moves.push(SolvedMove {
                    position: outcome.cleared[0],
                    color: outcome.color,
                    size: outcome.cleared.len(),
                    move_score: outcome.move_score,
                });
                score += outcome.move_score as i64;
                current = outcome.board;
            }
            Err(error) => {
                debug_assert!(false, "the search played an illegal tap at {at}: {error}");
                break;
            }
        }
    }
    let tiles_left = current.board().tile_count();
    let end_bonus = if super::is_game_over(&current, options.min_group) {
        options.rule.end_bonus(tiles_left)
    } else {
        0
    };
    Solution {
        moves,
        score: score + end_bonus,
        end_bonus,
        board: current,
        tiles_left,
        nodes: effort.nodes,
        playouts: effort.playouts,
        levels_completed: effort.levels_completed,
        runs_completed: effort.runs_completed,
        elapsed: effort.elapsed,
        stop: effort.stop,
    }
}

#[cfg(test)]
mod tests;
