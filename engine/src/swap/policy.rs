//! Choosing and playing swaps (docs/rules.md section 7): every valid swap ranked by its certain
//! outcome (a hint), and whole games played by a policy (a simulation), on boards with or
//! without layers alike.

use rand::Rng;

use super::judge::valid_swaps_with_combinations;
use super::level::Combination;
use super::resolve::{certain_outcomes_while, play_swap};
use super::stable::StableBoard;
use super::step::{CascadeOptions, CertainOutcome};
use crate::error::EngineError;
use crate::moves::Swap;

/// A valid swap with its combination and its certain outcome, as [`ranked_swaps`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedSwap {
    /// The swap.
    pub swap: Swap,
    /// The combination it makes (a colour bomb's swap, or two specials'), if any.
    pub combination: Option<Combination>,
    /// Its cascade under NONE refill.
    pub outcome: CertainOutcome,
}

/// The rank of a certain outcome: score, then cells cleared, then specials created (higher is
/// better).
fn rank(outcome: &CertainOutcome) -> (u64, u64, u64) {
    (outcome.score, outcome.cleared, outcome.specials_created)
}

/// Every valid swap of `board` with its certain outcome ([`certain_outcomes_while`], special
/// pieces created when `specials`), best first: by score, then cells cleared, then specials
/// created; equal ranks in [`crate::valid_swaps`] order (row-major). `go_on` is asked before
/// each swap; `None` when it answered false.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] at the first swap whose cascade needs more than
/// `max_steps` steps.
pub fn ranked_swaps(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
    go_on: impl FnMut() -> bool,
) -> Result<Option<Vec<RankedSwap>>, EngineError> {
    let listed = valid_swaps_with_combinations(board);
    let Some(outcomes) = all_certain_outcomes(board, specials, max_steps, go_on)? else {
        return Ok(None);
    };
    let mut ranked: Vec<RankedSwap> = outcomes
        .into_iter()
        .zip(listed)
        .map(|((swap, outcome), (_, combination))| RankedSwap {
            swap,
            combination,
            outcome,
        })
        .collect();
    ranked.sort_by_key(|ranked| std::cmp::Reverse(rank(&ranked.outcome)));
    Ok(Some(ranked))
}

/// [`certain_outcomes_while`] of every valid swap, or `None` when `go_on` stopped it first.
fn all_certain_outcomes(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
    mut go_on: impl FnMut() -> bool,
) -> Result<Option<Vec<(Swap, CertainOutcome)>>, EngineError> {
    let mut stopped = false;
    let outcomes = certain_outcomes_while(board, specials, max_steps, || {
        stopped = !go_on();
        !stopped
    })?;
    Ok((!stopped).then_some(outcomes))
}

/// The first of [`ranked_swaps`] without ranking the rest: the first valid swap in row-major
/// order with the best rank, `Some(None)` on a dead board. Every swap is still played, so a
/// cascade past `max_steps` is the same error. `None` when `go_on` answered false.
///
/// # Errors
/// As [`ranked_swaps`].
pub fn best_swap(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
    go_on: impl FnMut() -> bool,
) -> Result<Option<Option<Swap>>, EngineError> {
    let Some(outcomes) = all_certain_outcomes(board, specials, max_steps, go_on)? else {
        return Ok(None);
    };
    let mut best: Option<((u64, u64, u64), Swap)> = None;
    for (swap, outcome) in outcomes {
        let key = rank(&outcome);
        if best.is_none_or(|(top, _)| key > top) {
            best = Some((key, swap));
        }
    }
    Ok(Some(best.map(|(_, swap)| swap)))
}

/// How a simulated player picks its swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A valid swap drawn uniformly (`random_range` over [`crate::valid_swaps`]).
    Random,
    /// The best-ranked swap of [`best_swap`] (its certain outcome under NONE refill).
    Greedy,
}

/// What one simulated game did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameTotals {
    /// The sum of the moves' scores (saturating).
    pub score: u64,
    /// Moves played.
    pub moves: u64,
    /// Cascade steps over all moves.
    pub steps: u64,
    /// Automatic shuffles over all moves.
    pub shuffles: u64,
    /// True when the game ended on a dead board (no valid swap, or a dead board no shuffle
    /// could save).
    pub dead: bool,
}

/// Plays up to `moves` moves from `start` (docs/rules.md section 7): each move the `policy`'s
/// swap (drawn from `rng`, or the best certain one under `certain`), played with
/// [`play_swap`] under `options` and an RNG seeded with `rng.next_u64()`. Ends early on a dead
/// board. `go_on` is asked before each move (and by the greedy policy before each swap it
/// weighs); `None` when it answered false.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] for a cascade past its `max_steps`;
/// [`EngineError::UnstableBoard`] when a move leaves a board with empty cells and another move
/// remains (only NONE refill can).
pub fn play_game<R: Rng + ?Sized>(
    start: &StableBoard,
    policy: Policy,
    moves: u32,
    (certain, options): (CascadeOptions, CascadeOptions),
    rng: &mut R,
    mut go_on: impl FnMut() -> bool,
) -> Result<Option<GameTotals>, EngineError> {
    let mut board = start.clone();
    let mut totals = GameTotals::default();
    for played in 0..moves {
        if !go_on() {
            return Ok(None);
        }
        let swap = match policy {
            Policy::Random => {
                let listed = super::judge::valid_swaps(&board);
                if listed.is_empty() {
                    totals.dead = true;
                    break;
                }
                listed[rng.random_range(0..listed.len())]
            }
            Policy::Greedy => {
                match best_swap(&board, certain.specials, certain.max_steps, &mut go_on)? {
                    None => return Ok(None),
                    Some(None) => {
                        totals.dead = true;
                        break;
                    }
                    Some(Some(swap)) => swap,
                }
            }
        };
        let mut move_rng = crate::rng_from_seed(rng.next_u64());
        let outcome = play_swap(board, swap, options, &mut move_rng)?;
        totals.score = totals.score.saturating_add(outcome.score);
        totals.moves += 1;
        totals.steps += u64::from(outcome.steps);
        totals.shuffles += u64::from(outcome.shuffled);
        if outcome.dead {
            totals.dead = true;
            break;
        }
        if !outcome.stable {
            // RANDOM refill leaves no empty cell; were one left, the next move's board check
            // would refuse it.
            if played + 1 < moves {
                if !go_on() {
                    return Ok(None);
                }
                StableBoard::try_from(outcome.board)?;
            }
            break;
        }
        board = match outcome.into_stable() {
            Some(next) => next,
            None => break,
        };
    }
    Ok(Some(totals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swap::step::Refill;
    use rand::RngCore;

    fn options(refill: Refill, specials: bool) -> CascadeOptions {
        CascadeOptions {
            refill,
            auto_shuffle: true,
            max_steps: 1000,
            specials,
        }
    }

    fn board(seed: u64) -> StableBoard {
        let size = crate::GenerationSize::for_swap(9, 9, 6).unwrap();
        let (board, _) =
            crate::generate_swap_board(size, 1, &mut crate::rng_from_seed(seed)).unwrap();
        board
    }

    #[test]
    fn ranked_swaps_are_sorted_and_led_by_the_best_swap() {
        for seed in 0..20 {
            let board = board(seed);
            let ranked = ranked_swaps(&board, false, 1000, || true).unwrap().unwrap();
            assert_eq!(ranked.len(), crate::count_valid_swaps(&board));
            for pair in ranked.windows(2) {
                assert!(
                    rank(&pair[0].outcome) >= rank(&pair[1].outcome),
                    "seed {seed}"
                );
            }
            let best = best_swap(&board, false, 1000, || true).unwrap().unwrap();
            assert_eq!(best, Some(ranked[0].swap));
            // Asked to stop at once, neither answers.
            assert_eq!(ranked_swaps(&board, false, 1000, || false), Ok(None));
            assert_eq!(best_swap(&board, false, 1000, || false), Ok(None));
        }
    }

    #[test]
    fn a_greedy_game_is_its_best_swaps_played_in_turn() {
        let (certain, random) = (
            options(Refill::None, false),
            options(Refill::Random { colors: 6 }, false),
        );
        let start = board(3);
        let game = |rng_seed| {
            let mut rng = crate::rng_from_seed(rng_seed);
            play_game(
                &start,
                Policy::Greedy,
                8,
                (certain, random),
                &mut rng,
                || true,
            )
            .unwrap()
            .unwrap()
        };
        let totals = game(11);
        assert_eq!(totals, game(11), "deterministic per seed");
        // The same game move by move.
        let mut rng = crate::rng_from_seed(11);
        let mut board = start.clone();
        let mut score = 0;
        for _ in 0..totals.moves {
            let swap = best_swap(&board, false, 1000, || true)
                .unwrap()
                .unwrap()
                .unwrap();
            let mut move_rng = crate::rng_from_seed(rng.next_u64());
            let played = play_swap(board, swap, random, &mut move_rng).unwrap();
            score += played.score;
            board = played.into_stable().unwrap();
        }
        assert_eq!(totals.score, score);
        assert_eq!(totals.moves, 8);
        let mut stop_after = 3;
        let stopped = play_game(
            &start,
            Policy::Random,
            8,
            (certain, random),
            &mut crate::rng_from_seed(1),
            || {
                stop_after -= 1;
                stop_after > 0
            },
        );
        assert_eq!(stopped, Ok(None));
    }

    #[test]
    fn a_dead_start_ends_the_game_at_once() {
        let dead = StableBoard::try_from(crate::Board::parse("RGB/GBR/BRG").unwrap()).unwrap();
        let both = (
            options(Refill::None, false),
            options(Refill::Random { colors: 3 }, false),
        );
        for policy in [Policy::Random, Policy::Greedy] {
            let mut rng = crate::rng_from_seed(0);
            let totals = play_game(&dead, policy, 5, both, &mut rng, || true)
                .unwrap()
                .unwrap();
            assert_eq!(
                totals,
                GameTotals {
                    dead: true,
                    ..GameTotals::default()
                }
            );
        }
    }
}
