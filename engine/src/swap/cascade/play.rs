//! Moves played for their outcome only (simulations, replays, hints): the same cascade as
//! [`resolve_swap`](crate::resolve_swap)(super::resolve_swap) without recording its steps.

use rand::Rng;

use super::{PlainCascade, check_swap_positions, end_of_move, swap_tiles, swapped};
use crate::error::EngineError;
use crate::moves::{Swap, judge_swap, valid_swaps};
use crate::stable::StablePlain;
use crate::swap::cascade_loop::run_cascade;
use crate::swap::step::{CascadeOptions, CascadeStep, CertainOutcome, PlayedMove, Refill};

/// Applies `swap` and resolves its cascade exactly as [`resolve_swap`](crate::resolve_swap) does (same board, score,
/// shuffle and RNG draws), without recording the steps: for simulations and replays that only
/// need the outcome. Like [`resolve_swap`](crate::resolve_swap) it takes the board by value and works in its
/// storage; on an error the board is dropped and nothing is returned. About an order of magnitude less work than [`resolve_swap`](crate::resolve_swap) on small
/// boards, most of it the events and per-step boards not built.
///
/// # Errors
/// As [`resolve_swap`](crate::resolve_swap).
pub(crate) fn play_swap<R: Rng + ?Sized>(
    board: StablePlain,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<PlayedMove, EngineError> {
    if let Some(rejection) = judge_swap(&board, swap).rejection() {
        return Err(EngineError::IllegalSwap(rejection));
    }
    check_swap_positions(board.board(), swap)?;
    let (mut after, planes, search) = swapped(board, swap);
    let mut cascading = PlainCascade::new(&mut after, planes, search, options);
    let totals = run_cascade::<false, _, R, Vec<CascadeStep>>(
        &mut cascading,
        0,
        options,
        rng,
        &mut Vec::new(),
    )?;
    let planes = cascading.planes;
    let ending = end_of_move(after, planes, options, false, rng);
    Ok(PlayedMove {
        plain_planes: ending.planes,
        board: ending.board.into(),
        steps: totals.last_index,
        score: totals.score,
        cleared: totals.cleared,
        specials_created: 0,
        shuffled: ending.board_before_shuffle.is_some(),
        dead: ending.dead,
        stable: ending.stable,
    })
}

/// [`certain_outcomes`], asking `go_on` before each swap: when it answers false (a search past
/// its deadline), the outcomes of the swaps before are returned, and the caller, who knows why
/// it stopped, says so.
///
/// # Errors
/// As [`certain_outcomes`], for the swaps played.
pub(crate) fn certain_outcomes_while(
    board: &StablePlain,
    max_steps: u32,
    mut go_on: impl FnMut() -> bool,
) -> Result<Vec<(Swap, CertainOutcome)>, EngineError> {
    let options = CascadeOptions {
        refill: Refill::None,
        auto_shuffle: true,
        max_steps,
        specials: false,
    };
    // NONE refill draws nothing from it.
    let mut rng = crate::rng_from_seed(0);
    let swaps = valid_swaps(board);
    let mut outcomes = Vec::with_capacity(swaps.len());
    let mut scratch = board.board().clone();
    let mut planes = board.planes().clone();
    for swap in swaps {
        if !go_on() {
            break;
        }
        scratch.cells_mut().copy_from_slice(board.board().cells());
        planes.copy_from(board.planes());
        let search = swap_tiles(&mut scratch, &mut planes, swap);
        let mut cascading = PlainCascade::new(&mut scratch, planes, search, options);
        let totals = run_cascade::<false, _, _, Vec<CascadeStep>>(
            &mut cascading,
            0,
            options,
            &mut rng,
            &mut Vec::new(),
        )?;
        planes = cascading.planes;
        outcomes.push((
            swap,
            CertainOutcome {
                score: totals.score,
                cleared: totals.cleared,
                steps: totals.last_index,
                specials_created: 0,
            },
        ));
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use crate::swap::test_support::NONE;
    use crate::{
        CascadeOptions, CertainOutcome, EngineError, Refill, certain_outcomes,
        certain_outcomes_while, play_swap, resolve_swap,
    };
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn rng() -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(42)
    }

    fn rng_from(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    #[test]
    fn play_swap_ends_exactly_where_resolve_swap_does() {
        use crate::{GenerationSize, first_valid_swap_from, generate_swap_board};
        let mut compared = 0;
        for seed in 0..150u64 {
            let (width, height) = (3 + seed as u32 % 9, 3 + (seed as u32 / 9) % 9);
            let colors = 3 + (seed % 4) as u8;
            let size = GenerationSize::for_swap(width, height, u32::from(colors)).unwrap();
            let Ok((mut board, _)) = generate_swap_board(size, 1, &mut rng_from(seed)) else {
                continue;
            };
            let refill = if seed % 5 == 0 {
                Refill::None
            } else {
                Refill::Random { colors }
            };
            let options = CascadeOptions {
                refill,
                auto_shuffle: seed % 3 != 0,
                max_steps: 1000,
                specials: false,
            };
            let mut rng_full = rng_from(seed + 1000);
            let mut rng_lean = rng_from(seed + 1000);
            for turn in 0..20 {
                let Some(swap) = first_valid_swap_from(&board, turn * 7) else {
                    break;
                };
                let full = resolve_swap(board.clone(), swap, options, &mut rng_full).unwrap();
                let lean = play_swap(board.clone(), swap, options, &mut rng_lean).unwrap();
                assert_eq!(lean.board, full.board, "seed {seed} turn {turn}");
                assert_eq!(lean.score, full.total_score);
                assert_eq!(lean.steps as usize, full.steps.len());
                let cleared: usize = full
                    .steps
                    .iter()
                    .flat_map(|s| &s.groups)
                    .map(|g| g.cells.len())
                    .sum();
                assert_eq!(lean.cleared, cleared as u64);
                assert_eq!(lean.shuffled, full.board_before_shuffle.is_some());
                assert_eq!((lean.dead, lean.stable), (full.dead, full.stable));
                compared += 1;
                match lean.into_stable() {
                    Some(next) => board = next,
                    None => break,
                }
            }
        }
        assert!(compared > 500, "only {compared} moves compared");
    }

    #[test]
    fn certain_outcomes_are_the_none_refill_plays() {
        use crate::{GenerationSize, generate_swap_board};
        let mut compared = 0;
        for seed in 0..120u64 {
            let (width, height) = (3 + seed as u32 % 9, 3 + (seed as u32 / 9) % 9);
            let colors = 3 + (seed % 4) as u32;
            let size = GenerationSize::for_swap(width, height, colors).unwrap();
            let Ok((board, _)) = generate_swap_board(size, 0, &mut rng_from(seed)) else {
                continue;
            };
            let outcomes = certain_outcomes(&board, false, 1000).unwrap();
            let swaps = crate::valid_swaps(&board);
            assert_eq!(outcomes.len(), swaps.len());
            for ((swap, certain), listed) in outcomes.into_iter().zip(swaps) {
                assert_eq!(swap, listed);
                let played = play_swap(board.clone(), swap, NONE, &mut rng()).unwrap();
                let expected = CertainOutcome {
                    score: played.score,
                    cleared: played.cleared,
                    steps: played.steps,
                    specials_created: 0,
                };
                assert_eq!(certain, expected, "seed {seed} swap {swap:?}");
                compared += 1;
            }
            // A step limit the longest cascade passes is the same error.
            if let Some(longest) = certain_outcomes(&board, false, 1000)
                .unwrap()
                .iter()
                .map(|(_, o)| o.steps)
                .max()
                .filter(|&s| s > 1)
            {
                assert_eq!(
                    certain_outcomes(&board, false, longest - 1),
                    Err(EngineError::CascadeLimitExceeded {
                        max_steps: longest - 1
                    })
                );
            }
        }
        assert!(compared > 1000, "only {compared} swaps compared");
    }

    #[test]
    fn certain_outcomes_while_stops_when_told() {
        use crate::{GenerationSize, generate_swap_board};
        let size = GenerationSize::for_swap(9, 9, 6).unwrap();
        let (board, count) = generate_swap_board(size, 5, &mut rng_from(3)).unwrap();
        let all = certain_outcomes(&board, false, 1000).unwrap();
        assert_eq!(all.len(), count);
        for allowed in [0, 1, 3, count] {
            let mut asked = 0;
            let some = certain_outcomes_while(&board, false, 1000, || {
                asked += 1;
                asked <= allowed
            })
            .unwrap();
            assert_eq!(some, all[..allowed], "{allowed} swaps allowed");
            assert_eq!(
                asked,
                (allowed + 1).min(count),
                "asked once a swap, and once more"
            );
        }
    }
}
