//! A level, the state of a game of it, and one move (docs/rules.md section 8).

use rand::Rng;

use super::goals::{Goal, GoalProgress};
use crate::error::{EngineError, LevelStatus};
use crate::moves::Swap;
use crate::swap::board::SwapBoard;
use crate::swap::obstacles::{self, LevelTally, ObstacleBoard, StableObstacles};
use crate::swap::stable::StableBoard;
use crate::swap::step::{CascadeOptions, CascadeStep, Refill, StepSink};

/// Where the games of a level start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LevelStart {
    /// Every game starts from this board.
    Board(StableBoard),
    /// Every game starts from a board generated on this layout ([`generate_on_layout`]) with
    /// the game's seed.
    Layout(SwapBoard),
}

/// A level: where its games start, the colours refill draws from, the move limit and the
/// goals (all of which must be met).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    start: LevelStart,
    colors: u8,
    move_limit: u32,
    goals: Vec<Goal>,
}

/// The state of a game of a level, as a client sends it back each move (the service keeps
/// nothing between moves).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelState {
    /// The board with its layers.
    pub board: SwapBoard,
    /// Moves left, at most the level's limit.
    pub moves_left: u32,
    /// The score so far.
    pub score: u64,
    /// Per goal, in the level's order: the COLLECT or BRING_DOWN count so far (0 for the other
    /// goals, whose progress is read off the board and the score).
    pub counts: Vec<u64>,
}

/// One move of a level: its cascade, the state it leads to and that state's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelMove {
    /// The cascade's steps (each with its hits and collections).
    pub steps: Vec<CascadeStep>,
    /// The dead board before the automatic shuffle, when one happened.
    pub board_before_shuffle: Option<SwapBoard>,
    /// The state after the move.
    pub state: LevelState,
    /// Its status.
    pub status: LevelStatus,
}

impl Level {
    /// A level. The start board or layout is kept with level layers (none set, when it had
    /// none): a level always plays by the rules of section 8, specials created.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `level.colors` (outside `2..=16`: with one
    /// colour, every refill makes a run and a cascade never ends),
    /// `level.move_limit` (0), `level.goals` (none, or a bad goal).
    pub fn new(
        start: LevelStart,
        colors: u8,
        move_limit: u32,
        goals: Vec<Goal>,
    ) -> Result<Self, EngineError> {
        let invalid = |field, reason: &str| EngineError::InvalidParameter {
            field,
            reason: reason.to_owned(),
        };
        if !(2..=crate::board::MAX_COLOR).contains(&colors) {
            return Err(invalid("level.colors", "colors must be 2..=16"));
        }
        if move_limit == 0 {
            return Err(invalid(
                "level.move_limit",
                "a level needs at least one move",
            ));
        }
        if goals.is_empty() {
            return Err(invalid("level.goals", "a level needs at least one goal"));
        }
        for (index, goal) in goals.iter().enumerate() {
            goal.check(index, colors)?;
        }
        let start = match start {
            LevelStart::Board(board) => {
                let board = board.into_board().into_obstacles();
                LevelStart::Board(StableObstacles::new_unchecked(board).into())
            }
            LevelStart::Layout(layout) => {
                LevelStart::Layout(SwapBoard::obstacles(layout.into_obstacles()))
            }
        };
        Ok(Self {
            start,
            colors,
            move_limit,
            goals,
        })
    }

    /// Where the games start.
    pub fn start(&self) -> &LevelStart {
        &self.start
    }

    /// The colours refill draws from, `1..=colors`.
    pub fn colors(&self) -> u8 {
        self.colors
    }

    /// The move limit.
    pub fn move_limit(&self) -> u32 {
        self.move_limit
    }

    /// The goals.
    pub fn goals(&self) -> &[Goal] {
        &self.goals
    }

    /// The state a game starts in: the start board (generated on the layout with `rng`), all
    /// the moves, no score, no count.
    ///
    /// # Errors
    /// As [`generate_on_layout`].
    pub fn first_state<R: Rng + ?Sized>(&self, rng: &mut R) -> Result<LevelState, EngineError> {
        let board = match &self.start {
            LevelStart::Board(board) => board.to_board(),
            LevelStart::Layout(layout) => generate_on_layout(layout, self.colors, 1, rng)?
                .0
                .into_board(),
        };
        Ok(LevelState {
            board,
            moves_left: self.move_limit,
            score: 0,
            counts: vec![0; self.goals.len()],
        })
    }

    /// The progress of each goal in `state`.
    pub fn progress(&self, state: &LevelState) -> Vec<GoalProgress> {
        self.goals
            .iter()
            .enumerate()
            .map(|(index, goal)| {
                let count = state.counts.get(index).copied().unwrap_or(0);
                goal.progress(&state.board, state.score, count)
            })
            .collect()
    }

    /// The status of `state`, in the order of docs/rules.md section 8 (a board that is not
    /// stable, or has no valid swap, is LOST_DEAD once goals and moves are judged).
    pub fn status(&self, state: &LevelState) -> LevelStatus {
        let has_swap = StableBoard::try_from(state.board.clone()).is_ok_and(|board| {
            let board = board.into_board().into_obstacles();
            obstacles::has_obstacle_swap(&board)
        });
        self.decide(state, has_swap)
    }

    fn decide(&self, state: &LevelState, has_swap: bool) -> LevelStatus {
        if self.progress(state).iter().all(|progress| progress.met) {
            LevelStatus::Won
        } else if state.moves_left == 0 {
            LevelStatus::LostOutOfMoves
        } else if !has_swap {
            LevelStatus::LostDead
        } else {
            LevelStatus::Playing
        }
    }

    /// This level without a move limit (for rollouts that must not see it).
    pub(super) fn unlimited(&self) -> Self {
        Self {
            move_limit: u32::MAX,
            ..self.clone()
        }
    }

    /// The options a move of this level is played with: RANDOM refill from the level's
    /// colours, automatic shuffle, specials created.
    pub(super) fn options(&self, max_steps: u32) -> CascadeOptions {
        CascadeOptions {
            refill: Refill::Random {
                colors: self.colors,
            },
            auto_shuffle: true,
            max_steps,
            specials: true,
        }
    }

    /// The state after a move that left `board`, scored `score` and counted `tally`.
    pub(super) fn advance(
        &self,
        state: &LevelState,
        board: SwapBoard,
        score: u64,
        tally: &LevelTally,
    ) -> LevelState {
        let counts = self.counts_after(&state.counts, tally);
        LevelState {
            board,
            moves_left: state.moves_left.saturating_sub(1),
            score: state.score.saturating_add(score),
            counts,
        }
    }

    /// The COLLECT and BRING_DOWN counts (one per goal, as [`LevelState::counts`]) after a
    /// move that counted `tally`.
    pub(super) fn counts_after(&self, counts: &[u64], tally: &LevelTally) -> Vec<u64> {
        self.goals
            .iter()
            .enumerate()
            .map(|(index, goal)| {
                let before = counts.get(index).copied().unwrap_or(0);
                // Saturating: the counts and the score come from the client.
                before.saturating_add(match *goal {
                    Goal::Collect { color, .. } => tally.cleared_by_color[usize::from(color)],
                    Goal::BringDown(_) => tally.collected,
                    _ => 0,
                })
            })
            .collect()
    }

    /// Checks that `state` belongs to this level: moves left within the limit, one count per
    /// goal.
    fn check_state(&self, state: &LevelState) -> Result<(), EngineError> {
        if state.moves_left > self.move_limit {
            return Err(EngineError::InvalidParameter {
                field: "state.moves_left",
                reason: format!(
                    "{} moves left is more than the level's limit of {}",
                    state.moves_left, self.move_limit
                ),
            });
        }
        if state.counts.len() != self.goals.len() {
            return Err(EngineError::InvalidParameter {
                field: "state.progress",
                reason: format!(
                    "the state has {} goal counts, the level {} goals",
                    state.counts.len(),
                    self.goals.len()
                ),
            });
        }
        Ok(())
    }
}

/// Plays `swap` on a game of `level` in `state` (docs/rules.md section 8): the swap resolved
/// as `ResolveCascade` does with RANDOM refill from the level's colours and the automatic
/// shuffle, costing one move; returns the steps, the new state and its status. Checked in this
/// order: a position off the board, a state that is not PLAYING, an unstable board, then the
/// swap's verdict.
///
/// # Errors
/// [`EngineError::PositionOffBoard`] (`swap.a`, `swap.b`); [`EngineError::InvalidParameter`]
/// for a state that does not fit the level; [`EngineError::LevelOver`];
/// [`EngineError::UnstableBoard`]; [`EngineError::IllegalSwap`];
/// [`EngineError::CascadeLimitExceeded`] past `max_steps`.
pub fn play_level_move<R: Rng + ?Sized>(
    level: &Level,
    state: &LevelState,
    swap: Swap,
    max_steps: u32,
    rng: &mut R,
) -> Result<LevelMove, EngineError> {
    let mut steps = Vec::new();
    let mut played = play_level_move_into(level, state, swap, max_steps, (rng, &mut steps))?;
    played.steps = steps;
    Ok(played)
}

/// [`play_level_move`] handing each step to `sink` as it is made (the returned move's `steps`
/// stay empty): same steps, state and draws. A reply builder keeps a call's memory bounded
/// this way.
///
/// # Errors
/// As [`play_level_move`], and [`EngineError::CascadeStopped`] when `sink` stops the cascade.
pub fn play_level_move_into<R: Rng + ?Sized, S: StepSink + ?Sized>(
    level: &Level,
    state: &LevelState,
    swap: Swap,
    max_steps: u32,
    (rng, sink): (&mut R, &mut S),
) -> Result<LevelMove, EngineError> {
    let colors = state.board.colors();
    colors.checked_index("swap.a", swap.a)?;
    colors.checked_index("swap.b", swap.b)?;
    level.check_state(state)?;
    // One stability check serves the status (as `Level::status` judges it) and the move.
    let stable = StableObstacles::try_from(state.board.clone().into_obstacles());
    let has_swap = stable
        .as_ref()
        .is_ok_and(|board| obstacles::has_obstacle_swap(board.board()));
    let status = level.decide(state, has_swap);
    if status != LevelStatus::Playing {
        if let Ok(board) = stable {
            board.into_board();
        }
        return Err(EngineError::LevelOver { status });
    }
    let board = stable?;
    let (played, bits) =
        play_on::<true, R, S>(level, state, (board, swap), max_steps, (rng, sink))?;
    if let Some(bits) = bits {
        obstacles::Prepared::recycle(bits);
    }
    Ok(played)
}

/// The move of [`play_level_move`] on `board` (`state`'s board, known stable, its game
/// PLAYING), building the steps only when `RECORD` (same state and draws either way); gives
/// back the bitboards of the new state's board too when they describe it (see
/// [`StableObstacles::with_bits`]).
pub(super) fn play_on<const RECORD: bool, R: Rng + ?Sized, S: StepSink + ?Sized>(
    level: &Level,
    state: &LevelState,
    (board, swap): (StableObstacles, Swap),
    max_steps: u32,
    (rng, sink): (&mut R, &mut S),
) -> Result<(LevelMove, Option<Box<obstacles::Prepared>>), EngineError> {
    let mut tally = LevelTally::default();
    let options = level.options(max_steps);
    let (summary, _, bits) = obstacles::obstacle_swap_keeping_bits::<RECORD, R, S>(
        board,
        swap,
        options,
        (rng, sink, &mut tally),
    )?;
    let next = level.advance(state, summary.board, summary.total_score, &tally);
    let status = level.decide(&next, !summary.dead);
    let played = LevelMove {
        steps: Vec::new(),
        board_before_shuffle: summary.board_before_shuffle,
        state: next,
        status,
    };
    Ok((played, bits))
}

/// A stable board generated on `layout` (docs/rules.md section 8), with at least `min_moves`
/// valid swaps (a swap touching a fixed cell is not valid), and its valid-swap count: the
/// layout's holes, blockers, ingredients, jelly, locks and exits stay, and every other cell
/// (the locked ones included) gets a colour from `1..=colors`, row-major, drawn among those
/// that complete no run; a fill left without a valid swap starts again, at most 256 times.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `layout` when no such board is found (a layout
/// that leaves no possible swap fails this way, fast).
pub fn generate_on_layout<R: Rng + ?Sized>(
    layout: &SwapBoard,
    colors: u8,
    min_moves: usize,
    rng: &mut R,
) -> Result<(StableBoard, usize), EngineError> {
    let layout: ObstacleBoard = layout.clone().into_obstacles();
    let board = obstacles::generate_on_layout(&layout, colors, min_moves, rng)?;
    let count = obstacles::count_obstacle_swaps(&board);
    Ok((StableObstacles::new_unchecked(board).into(), count))
}
