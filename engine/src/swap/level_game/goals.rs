//! The goals of a level and their progress (docs/rules.md section 8).

use crate::board::MAX_COLOR;
use crate::error::EngineError;
use crate::swap::board::SwapBoard;

/// A goal of a level; a level is won when all of its goals are met.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Goal {
    /// The total score is at least this.
    Score(u64),
    /// No jelly layer is left on the board.
    ClearJelly,
    /// At least `count` tiles of colour `color` have been cleared in the level (by any means;
    /// a removed lock is not a clear).
    Collect {
        /// The colour, `1..=16`.
        color: u8,
        /// How many, at least 1.
        count: u64,
    },
    /// No blocker is left on the board.
    ClearBlockers,
    /// At least this many ingredients have been collected at exits.
    BringDown(u64),
}

/// How far a goal has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoalProgress {
    /// SCORE: the total score; CLEAR_JELLY: the jelly layers left; CLEAR_BLOCKERS: the blockers
    /// left; COLLECT and BRING_DOWN: the count so far.
    pub value: u64,
    /// True when the goal is met.
    pub met: bool,
}

impl Goal {
    /// Checks the goal's values, naming `goals[index]`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] for a zero count or target, or a colour outside
    /// `1..=colors`.
    pub(super) fn check(&self, index: usize, colors: u8) -> Result<(), EngineError> {
        let bad = |reason: String| {
            Err(EngineError::InvalidParameter {
                field: "level.goals",
                reason: format!("goal {index}: {reason}"),
            })
        };
        match *self {
            Self::Score(0) => bad("a SCORE target must be at least 1".to_owned()),
            Self::BringDown(0) => bad("a BRING_DOWN count must be at least 1".to_owned()),
            Self::Collect { count: 0, .. } => bad("a COLLECT count must be at least 1".to_owned()),
            Self::Collect { color, .. } if color == 0 || color > colors.min(MAX_COLOR) => {
                bad(format!(
                    "a COLLECT colour must be one of the level's colours 1..={colors}, got {color}"
                ))
            }
            _ => Ok(()),
        }
    }

    /// The goal's progress on `board` with `score` and `count` (the COLLECT or BRING_DOWN
    /// count so far).
    pub(super) fn progress(&self, board: &SwapBoard, score: u64, count: u64) -> GoalProgress {
        match *self {
            Self::Score(target) => GoalProgress {
                value: score,
                met: score >= target,
            },
            Self::ClearJelly => {
                let left = board.jelly_left();
                GoalProgress {
                    value: left,
                    met: left == 0,
                }
            }
            Self::ClearBlockers => {
                let left = board.blockers_left();
                GoalProgress {
                    value: left,
                    met: left == 0,
                }
            }
            Self::Collect { count: target, .. } | Self::BringDown(target) => GoalProgress {
                value: count,
                met: count >= target,
            },
        }
    }

    /// How much of the goal is done, `0.0..=1.0`: the share of the target reached (SCORE,
    /// COLLECT, BRING_DOWN), or of the layers or blockers at the start removed (CLEAR_JELLY,
    /// CLEAR_BLOCKERS; 1 when there were none).
    pub(super) fn fraction(&self, progress: GoalProgress, at_start: u64) -> f64 {
        let share = |done: u64, of: u64| (done as f64 / of.max(1) as f64).min(1.0);
        match *self {
            Self::Score(target) => share(progress.value, target),
            Self::Collect { count: target, .. } | Self::BringDown(target) => {
                share(progress.value, target)
            }
            Self::ClearJelly | Self::ClearBlockers if at_start == 0 => 1.0,
            Self::ClearJelly | Self::ClearBlockers => {
                share(at_start.saturating_sub(progress.value), at_start)
            }
        }
    }
}
