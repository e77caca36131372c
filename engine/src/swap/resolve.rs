//! The swap family's moves (docs/rules.md sections 2 and 6): a swap and the cascade it
//! triggers, a board resolved as given, a move played for its outcome only, and the certain
//! outcomes a hint ranks. Each call takes one path for the whole call: a board without layers
//! played without special pieces runs on the colour planes alone; any other runs with the
//! hole, piece-kind and special masks.

use rand::Rng;

use super::board::{BoardStorage, SwapBoard, empty_layers};
use super::cascade;
use super::level;
use super::level::{Combination, StableLevel};
use super::obstacles::{self, LevelTally, StableObstacles};
use super::stable::{Stable, StableBoard};
use super::step::{
    CascadeOptions, CascadeOutcome, CascadeSummary, CertainOutcome, PlayedMove, Refill, StepSink,
};
use crate::board::Board;
use crate::error::EngineError;
use crate::moves::{Swap, SwapVerdict};
use crate::runs::Group;
use crate::stable::StablePlain;
use crate::swap::cascade_loop::CascadeTotals;

/// Steps [`resolve_swap`] and [`resolve_board`] make room for at first: most turns make one
/// or two. A [`crate::CascadeStep`] is about 280 bytes, so two stay within glibc's per-thread cache
/// of small blocks (up to 1,032 bytes), where the four a `Vec` starts with did not.
const RESERVED_STEPS: usize = 2;

/// The path one call takes: the plain bitboards, or the layered ones.
enum Path {
    Plain(StablePlain),
    Layered(StableLevel),
    Obstacles(StableObstacles),
}

impl Path {
    #[inline]
    fn of(board: StableBoard, options: &CascadeOptions) -> Self {
        match board.0 {
            Stable::Plain(plain) if !options.specials => Self::Plain(plain),
            Stable::Plain(plain) => Self::Layered(plain.into_layered()),
            Stable::Layered(level) => Self::Layered(level),
            Stable::Obstacles(board) => Self::Obstacles(*board),
        }
    }
}

/// Applies `swap` to a stable board and resolves the cascade it triggers.
///
/// # Errors
/// [`EngineError::PositionOffBoard`] (`swap.a` or `swap.b`) for an off-board position,
/// [`EngineError::IllegalSwap`] for a hole, non-adjacent, empty or non-matching swap,
/// [`EngineError::CascadeLimitExceeded`] when the cascade needs more than `max_steps` steps.
pub fn resolve_swap<R: Rng + ?Sized>(
    board: StableBoard,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<CascadeOutcome, EngineError> {
    let mut steps = Vec::with_capacity(RESERVED_STEPS);
    let summary = resolve_swap_into(board, swap, options, rng, &mut steps)?;
    Ok(summary.with_steps(steps))
}

/// [`resolve_swap`] handing each step to `sink` as it is made: same steps, board, score and RNG
/// draws.
///
/// # Errors
/// As [`resolve_swap`], and [`EngineError::CascadeStopped`] when `sink` stops the cascade.
#[inline]
pub fn resolve_swap_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: StableBoard,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    match Path::of(board, &options) {
        Path::Plain(plain) => cascade::resolve_swap_into(plain, swap, options, rng, sink),
        Path::Layered(level) => level::resolve_level_swap_into(level, swap, options, rng, sink),
        Path::Obstacles(board) => {
            let tally = &mut LevelTally::default();
            let (summary, _) =
                obstacles::obstacle_swap::<true, R, S>(board, swap, options, (rng, sink, tally))?;
            Ok(summary)
        }
    }
}

/// Resolves a well-formed board as given: first settles empty cells (a step with no groups,
/// only falls and spawns, when anything changes; holes stay empty), then cascades.
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] when the cascade needs more than `max_steps` steps.
pub fn resolve_board<R: Rng + ?Sized>(
    board: SwapBoard,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<CascadeOutcome, EngineError> {
    let mut steps = Vec::with_capacity(RESERVED_STEPS);
    let summary = resolve_board_into(board, options, rng, &mut steps)?;
    Ok(summary.with_steps(steps))
}

/// [`resolve_board`] handing each step to `sink` as it is made: same steps, board, score and
/// RNG draws.
///
/// # Errors
/// As [`resolve_board`], and [`EngineError::CascadeStopped`] when `sink` stops the cascade.
pub fn resolve_board_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    board: SwapBoard,
    options: CascadeOptions,
    rng: &mut R,
    sink: &mut S,
) -> Result<CascadeSummary, EngineError> {
    match board.into_storage() {
        BoardStorage::Plain(plain) if !options.specials => {
            cascade::resolve_board_into(plain, options, rng, sink)
        }
        BoardStorage::Plain(plain) => {
            level::resolve_level_board_into(empty_layers(plain), options, rng, sink)
        }
        BoardStorage::Layered(layered) => {
            level::resolve_level_board_into(layered, options, rng, sink)
        }
        BoardStorage::Obstacles(board) => {
            let tally = &mut LevelTally::default();
            obstacles::resolve_obstacle_board_into(board, options, (rng, sink, tally))
        }
    }
}

/// Checks that both positions of a swap lie on `board`, naming `swap.a` or `swap.b` if not.
/// RPCs that apply a swap call this before anything else about the board, so a malformed
/// request is INVALID_ARGUMENT whatever the board's state.
///
/// # Errors
/// [`EngineError::PositionOffBoard`].
pub fn check_swap_positions(board: &Board, swap: Swap) -> Result<(), EngineError> {
    cascade::check_swap_positions(board, swap)
}

/// What a swap would do, judged without playing it: see [`preview_swap`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwapPreview {
    /// The verdict ([`crate::judge_swap`]).
    pub verdict: SwapVerdict,
    /// The combination of an OK swap of a colour bomb or of two specials.
    pub combination: Option<Combination>,
    /// The groups cascade step 1 would clear, ordered by first cell: empty for any verdict
    /// but OK, and for a combination (its step 1 clears an area, not groups).
    pub groups: Vec<Group>,
}

/// Judges `swap` and, when it is valid, says what its step 1 would clear.
pub fn preview_swap(board: &StableBoard, swap: Swap) -> SwapPreview {
    let (verdict, combination, groups) = match &board.0 {
        Stable::Plain(plain) => {
            let (verdict, groups) = cascade::preview_swap(plain, swap);
            (verdict, None, groups)
        }
        Stable::Layered(level) => level::preview_level_swap(level, swap),
        Stable::Obstacles(board) => obstacles::preview_obstacle_swap(board.board(), swap),
    };
    SwapPreview {
        verdict,
        combination,
        groups,
    }
}

/// Checks that `board` is stable and previews `swap` on it: the same result as
/// [`StableBoard::try_from`] followed by [`preview_swap`], for a board used once (a
/// ValidateSwap request's). A board without layers is judged from its cells, without building
/// the colour planes that a [`StableBoard`] keeps for the moves after it (on 9x9, 1,996
/// instructions a call against 5,281).
///
/// # Errors
/// As [`StableBoard::try_from`]: [`EngineError::UnstableBoard`] when `board` has an empty cell or
/// a run.
pub fn check_and_preview_swap(board: SwapBoard, swap: Swap) -> Result<SwapPreview, EngineError> {
    if let Some((verdict, groups)) = board
        .plain()
        .and_then(|plain| cascade::preview_swap_on_cells(plain, swap))
    {
        return Ok(SwapPreview {
            verdict,
            combination: None,
            groups,
        });
    }
    Ok(preview_swap(&StableBoard::try_from(board)?, swap))
}

impl PlayedMove {
    /// The final board as a [`StableBoard`], when it is stable.
    pub fn into_stable(self) -> Option<StableBoard> {
        if !self.stable {
            return None;
        }
        Some(match self.board.into_storage() {
            BoardStorage::Plain(plain) => {
                StablePlain::with_planes(plain, self.plain_planes?).into()
            }
            BoardStorage::Layered(layered) => StableLevel::new_unchecked(layered).into(),
            // Stable under the move's refill mode; a board left with an empty top slot under
            // NONE refill is not stable under RANDOM.
            BoardStorage::Obstacles(board) => StableObstacles::try_from(board).ok()?.into(),
        })
    }
}

/// Applies `swap` and resolves its cascade exactly as [`resolve_swap`] does (same board, score,
/// shuffle and RNG draws), keeping only the outcome: for simulations and replays. The steps'
/// events and boards are never built (about an order of magnitude less work than
/// [`resolve_swap`] on small boards without layers).
///
/// # Errors
/// As [`resolve_swap`].
#[inline]
pub fn play_swap<R: Rng + ?Sized>(
    board: StableBoard,
    swap: Swap,
    options: CascadeOptions,
    rng: &mut R,
) -> Result<PlayedMove, EngineError> {
    match Path::of(board, &options) {
        Path::Plain(plain) => cascade::play_swap(plain, swap, options, rng),
        Path::Layered(level) => {
            let (summary, totals) = level::play_level_swap(level, swap, options, rng)?;
            Ok(played_move(summary, totals))
        }
        Path::Obstacles(board) => {
            let tally = &mut LevelTally::default();
            let sink = &mut Vec::new();
            let (summary, totals) =
                obstacles::obstacle_swap::<false, R, _>(board, swap, options, (rng, sink, tally))?;
            Ok(played_move(summary, totals))
        }
    }
}

/// The [`PlayedMove`] of a move on a board with layers.
pub(crate) fn played_move(summary: CascadeSummary, totals: CascadeTotals) -> PlayedMove {
    PlayedMove {
        board: summary.board,
        steps: summary.steps,
        score: summary.total_score,
        cleared: totals.cleared,
        specials_created: totals.specials_created,
        shuffled: summary.board_before_shuffle.is_some(),
        dead: summary.dead,
        stable: summary.stable,
        plain_planes: None,
    }
}

/// Every valid swap of `board` (in [`crate::valid_swaps`] order) with its [`Refill::None`]
/// cascade, played with or without special pieces as `specials` says: the same score, cells
/// cleared and steps as [`play_swap`] with NONE refill gives for each. On a board without
/// layers played without specials the swaps are worked in one scratch board instead of a copy
/// per swap, and the final boards are not judged (hints do not need them).
///
/// # Errors
/// [`EngineError::CascadeLimitExceeded`] at the first swap (in that order) whose cascade needs
/// more than `max_steps` steps.
pub fn certain_outcomes(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
) -> Result<Vec<(Swap, CertainOutcome)>, EngineError> {
    certain_outcomes_while(board, specials, max_steps, || true)
}

/// [`certain_outcomes`], asking `go_on` before each swap: when it answers false (a search past
/// its deadline), the outcomes of the swaps before are returned, and the caller, who knows why
/// it stopped, says so.
///
/// # Errors
/// As [`certain_outcomes`], for the swaps played.
pub fn certain_outcomes_while(
    board: &StableBoard,
    specials: bool,
    max_steps: u32,
    mut go_on: impl FnMut() -> bool,
) -> Result<Vec<(Swap, CertainOutcome)>, EngineError> {
    if let (Stable::Plain(plain), false) = (&board.0, specials) {
        return cascade::certain_outcomes_while(plain, max_steps, go_on);
    }
    let options = CascadeOptions {
        refill: Refill::None,
        auto_shuffle: true,
        max_steps,
        specials,
    };
    // NONE refill draws nothing from it.
    let mut rng = crate::rng_from_seed(0);
    let mut outcomes = Vec::new();
    for swap in super::judge::valid_swaps(board) {
        if !go_on() {
            break;
        }
        let played = play_swap(board.clone(), swap, options, &mut rng)?;
        let outcome = CertainOutcome {
            score: played.score,
            cleared: played.cleared,
            steps: played.steps,
            specials_created: played.specials_created,
        };
        outcomes.push((swap, outcome));
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swap::pieces::PieceKind;
    use crate::swap::test_support::{NONE_WITH_SPECIALS as NONE, swap};

    fn resolve(text: &str, layers: bool, options: CascadeOptions) -> CascadeOutcome {
        let board = if layers {
            SwapBoard::parse_with_layers(text)
        } else {
            SwapBoard::parse(text)
        };
        let stable = StableBoard::try_from(board.unwrap()).unwrap();
        // Both rows become runs of 4: each makes a striped piece when specials are on.
        resolve_swap(
            stable,
            swap((0, 2), (1, 2)),
            options,
            &mut crate::rng_from_seed(1),
        )
        .unwrap()
    }

    #[test]
    fn the_specials_rule_decides_creation_whatever_the_storage() {
        let with_layers = resolve("RRGR/GGRG", true, NONE);
        let created = &with_layers.steps[0].created;
        assert_eq!(created.len(), 2, "{with_layers:?}");
        assert!(created.iter().all(|special| special.kind.is_striped()));
        // A board without layers played with specials gains a kind layer and plays the same.
        let plain = resolve("RRGR/GGRG", false, NONE);
        assert_eq!(plain, with_layers);
        assert!(plain.board.has_layers());
        // Off, neither creates anything and the runs clear as in sections 1-2.
        let off = CascadeOptions {
            specials: false,
            ..NONE
        };
        let layered_off = resolve("RRGR/GGRG", true, off);
        let plain_off = resolve("RRGR/GGRG", false, off);
        assert!(layered_off.steps.iter().all(|step| step.created.is_empty()));
        assert_eq!(layered_off.board.to_string(), "..../....");
        assert_eq!(plain_off.board.to_string(), "..../....");
        assert!(layered_off.board.has_layers() && !plain_off.board.has_layers());
        assert_eq!(layered_off.total_score, plain_off.total_score);
        assert_eq!(plain_off.total_score, 80);
        // With specials every matched cell is cleared and scored too; the two striped pieces
        // are placed on cleared cells.
        assert_eq!(with_layers.total_score, 80);
        let kinds = with_layers.board.kinds().unwrap();
        assert_eq!(kinds.iter().filter(|kind| kind.is_striped()).count(), 2);
        assert!(kinds.iter().all(|&kind| kind != PieceKind::ColorBomb));
    }

    /// The boards with holes and specials of the benchmarks, and their first swaps.
    fn layered_boards() -> Vec<(StableBoard, Swap)> {
        let size = crate::GenerationSize::for_swap(9, 9, 6).unwrap();
        let mut boards = Vec::new();
        for seed in 0..40u64 {
            let mut rng = crate::rng_from_seed(seed);
            let holes: Vec<bool> = (0..81)
                .map(|i| (i * 7 + seed as usize).is_multiple_of(11))
                .collect();
            let Ok((board, _)) =
                super::super::arrange::generate_swap_board_with_holes(size, 1, holes, &mut rng)
            else {
                continue;
            };
            let swaps = super::super::judge::valid_swaps(&board);
            boards.push((board, swaps[seed as usize % swaps.len()]));
        }
        assert!(boards.len() > 30);
        boards
    }

    #[test]
    fn play_swap_with_layers_ends_where_resolve_swap_does() {
        let options = CascadeOptions {
            refill: Refill::Random { colors: 6 },
            ..NONE
        };
        for (seed, (board, swap)) in layered_boards().into_iter().enumerate() {
            let mut full_rng = crate::rng_from_seed(seed as u64);
            let mut lean_rng = crate::rng_from_seed(seed as u64);
            let full = resolve_swap(board.clone(), swap, options, &mut full_rng).unwrap();
            let lean = play_swap(board, swap, options, &mut lean_rng).unwrap();
            assert_eq!(lean.board, full.board);
            assert_eq!(lean.score, full.total_score);
            assert_eq!(lean.steps as usize, full.steps.len());
            let cleared: usize = full
                .steps
                .iter()
                .map(|step| {
                    step.effect_cleared.len()
                        + step.groups.iter().map(|g| g.cells.len()).sum::<usize>()
                })
                .sum();
            assert_eq!(lean.cleared, cleared as u64);
            assert_eq!(lean.shuffled, full.board_before_shuffle.is_some());
            assert_eq!((lean.dead, lean.stable), (full.dead, full.stable));
            let next = lean.into_stable().expect("random refill ends stable");
            assert_eq!(next.into_board(), full.board);
        }
    }

    #[test]
    fn certain_outcomes_with_layers_are_the_none_refill_plays() {
        for (board, _) in layered_boards() {
            let outcomes = certain_outcomes(&board, true, 1000).unwrap();
            let swaps = super::super::judge::valid_swaps(&board);
            assert_eq!(outcomes.len(), swaps.len());
            for ((swap, certain), listed) in outcomes.into_iter().zip(swaps) {
                assert_eq!(swap, listed);
                let played = play_swap(board.clone(), swap, NONE, &mut crate::rng_from_seed(5));
                let played = played.unwrap();
                assert_eq!(
                    certain,
                    CertainOutcome {
                        score: played.score,
                        cleared: played.cleared,
                        steps: played.steps,
                        specials_created: played.specials_created,
                    }
                );
            }
        }
    }

    #[test]
    fn first_valid_swap_from_with_layers_is_a_scan_of_every_pair() {
        for (board, _) in layered_boards().into_iter().take(10) {
            let width = board.colors().width();
            let pairs = 2 * board.colors().cells().len();
            for start in (0..pairs + 3).step_by(5) {
                let expected = (0..pairs).map(|k| (start + k) % pairs).find_map(|pair| {
                    let (a, down) = (pair / 2, pair % 2 == 1);
                    let (row, col) = ((a / width) as u32, (a % width) as u32);
                    let b = if down { (row + 1, col) } else { (row, col + 1) };
                    let candidate = swap((row, col), b);
                    let verdict = super::super::judge::judge_swap(&board, candidate);
                    (verdict == SwapVerdict::Ok).then_some(candidate)
                });
                let found = super::super::judge::first_valid_swap_from(&board, start);
                assert_eq!(found, expected, "start {start}");
            }
        }
    }
}
