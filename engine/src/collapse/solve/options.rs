//! The parameters of [`solve`](super::solve): the level, node budget and screening width as
//! range-checked values, the wall-clock limit, the search method and schedule, and the
//! non-deterministic limits (clocks and a cancel flag).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::error::EngineError;
use crate::params::{MinGroup, zero_means_default};
use crate::scoring::ScoringRule;

use super::SolveStop;

/// Node budget when a request leaves `max_nodes` at 0: one million taps, about 0.2 s on one core
/// on a 15x15 board.
pub const DEFAULT_SOLVE_NODES: u64 = 1_000_000;
/// Largest node budget accepted: ten billion taps (about half an hour on one core on 15x15).
pub const MAX_SOLVE_NODES: u64 = 10_000_000_000;
/// NMCS level when a request leaves `level` at 0.
pub const DEFAULT_SOLVE_LEVEL: u32 = 2;
/// Highest NMCS level accepted. Each level multiplies the work of a complete search by roughly
/// the number of moves times the length of a game (hundreds to thousands on 15x15), so level 3
/// does not complete within practical budgets on 15x15 and levels 4 and 5 are only for small
/// boards; an incomplete level still returns the best game found.
pub const MAX_SOLVE_LEVEL: u32 = 5;
/// Children searched further per step of a screened level when a request leaves the width at
/// 0 ([`SolveMethod::Screened`]).
pub const DEFAULT_SCREEN_WIDTH: u32 = 16;
/// Largest screening width accepted. A width at least the number of legal groups is plain
/// NMCS; a larger value is refused rather than capped, so a request means what it says.
pub const MAX_SCREEN_WIDTH: u32 = 256;
/// Largest wall-clock limit accepted, in milliseconds (one hour).
pub const MAX_SOLVE_MILLIS: u32 = 3_600_000;

/// The NMCS level of a search, `1..=`[`MAX_SOLVE_LEVEL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SolveLevel(u8);

impl SolveLevel {
    /// Parses a request value: 0 means [`DEFAULT_SOLVE_LEVEL`]; otherwise `1..=5`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `level`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        let range = 1..=MAX_SOLVE_LEVEL;
        zero_means_default("level", value, DEFAULT_SOLVE_LEVEL, range).map(|v| Self(v as u8))
    }

    /// The level, `1..=5`.
    pub fn get(self) -> u32 {
        u32::from(self.0)
    }
}

/// A search's node budget: `1..=`[`MAX_SOLVE_NODES`] taps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeBudget(u64);

impl NodeBudget {
    /// Parses a request value: 0 means [`DEFAULT_SOLVE_NODES`]; otherwise `1..=10^10`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `max_nodes`.
    pub fn parse(value: u64) -> Result<Self, EngineError> {
        zero_means_default("max_nodes", value, DEFAULT_SOLVE_NODES, 1..=MAX_SOLVE_NODES).map(Self)
    }

    /// The budget in taps.
    pub fn get(self) -> u64 {
        self.0
    }
}

/// How many children a screened level searches further per step:
/// `1..=`[`MAX_SCREEN_WIDTH`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScreenWidth(u16);

impl ScreenWidth {
    /// Parses a request value: 0 means [`DEFAULT_SCREEN_WIDTH`]; otherwise `1..=256`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `screen_width`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        let range = 1..=MAX_SCREEN_WIDTH;
        zero_means_default("screen_width", value, DEFAULT_SCREEN_WIDTH, range)
            .map(|v| Self(v as u16))
    }

    /// The width, `1..=256`.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

/// The widest beam run (states kept per layer) of [`SolveMethod::Beam`]; the search also caps
/// a layer's states at 32 MiB (about 62,000 on boards of at most 16x16).
pub const MAX_BEAM_WIDTH: usize = 65_536;

/// Beam width when a request leaves it at 0 ([`SolveMethod::Beam`]).
pub const DEFAULT_BEAM_WIDTH: u32 = 2000;

/// The width of the first beam of [`SolveMethod::Beam`] (states kept per layer),
/// `1..=`[`MAX_BEAM_WIDTH`]; with [`SolveSchedule::Single`] the refinement passes stop at an
/// eighth of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BeamWidth(u32);

impl BeamWidth {
    /// Parses a request value: 0 means [`DEFAULT_BEAM_WIDTH`]; otherwise `1..=65536`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `beam_width`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        let range = 1..=MAX_BEAM_WIDTH as u32;
        zero_means_default("beam_width", value, DEFAULT_BEAM_WIDTH, range).map(Self)
    }

    /// The width, `1..=65536`.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

/// Refinement factor when a request leaves it at 0 ([`RefineFactor`]): passes of 8, 16, 32, ...
pub const DEFAULT_REFINE_FACTOR: u32 = 2;
/// Largest refinement factor accepted ([`RefineFactor`]).
pub const MAX_REFINE_FACTOR: u32 = 16;

/// How fast the refinement passes of [`SolveMethod::Beam`] and [`SolveMethod::TabuBeam`]
/// widen, `2..=`[`MAX_REFINE_FACTOR`]: the passes' widths are the powers of the factor from
/// the first that is at least 8 until one is at least an eighth of the first beam's width,
/// then they double: 8, 16, 32, ... at 2; 16, 64, 256, 512, 1024, ... at 4 with a first width
/// of 2000 ([`SolveSchedule::Single`] runs the passes no wider than an eighth of the first
/// width, 16 and 64 there; [`SolveSchedule::Restarts`] goes on until a limit). Each pass costs
/// about as many nodes as its width and the last complete pass finds most of a search's
/// answer, so a larger factor reaches a wide pass sooner on a fixed budget, at the price of
/// fewer narrow passes; past an eighth of the first width the passes double so that the last
/// one, which the budget cuts, wastes less of it. Above 2 the
/// last pass is also sized to the node budget: a pass that would not fit in what is left (its
/// cost estimated from the last complete pass's, in proportion to the width) is narrowed to the
/// width that would take 95% of it, when that is still wider than the last complete pass. 2
/// is the schedule of before this parameter existed, byte for byte. On the 20 standard
/// SameGame positions at 3.7*10^8 nodes, [`SolveMethod::TabuBeam`] scores 1.5% more with 4
/// than with 2 (docs/solver.md, "A SameGame beam").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RefineFactor(u8);

impl RefineFactor {
    /// The factor of the search before this parameter existed: passes of 8, 16, 32, ...
    pub const DOUBLING: Self = Self(DEFAULT_REFINE_FACTOR as u8);

    /// Parses a request value: 0 means [`DEFAULT_REFINE_FACTOR`]; otherwise `2..=16`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `refine_factor`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        let range = 2..=MAX_REFINE_FACTOR;
        zero_means_default("refine_factor", value, DEFAULT_REFINE_FACTOR, range)
            .map(|v| Self(v as u8))
    }

    /// The factor, `2..=16`.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// The first refinement pass's width: the smallest power of the factor that is at least
    /// 8.
    pub fn first_width(self) -> usize {
        let mut width = self.get();
        while width < 8 {
            width *= self.get();
        }
        width
    }
}

/// The shape of a beam search ([`SolveMethod::Beam`], [`SolveMethod::TabuBeam`]): its first
/// beam's width and how fast its refinement passes widen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BeamOptions {
    /// The first beam's width (states kept per layer).
    pub width: BeamWidth,
    /// The refinement passes' growth.
    pub refine_factor: RefineFactor,
}

impl BeamOptions {
    /// A first beam of `width` and passes of 8, 16, 32, ... ([`RefineFactor::DOUBLING`]).
    pub fn doubling(width: BeamWidth) -> Self {
        Self {
            width,
            refine_factor: RefineFactor::DOUBLING,
        }
    }
}

/// Most threads one search may use ([`SolveThreads`]).
pub const MAX_SOLVE_THREADS: u32 = 64;

/// The threads of one search, `1..=`[`MAX_SOLVE_THREADS`]: root-parallel, each thread runs the
/// schedule on its own share of the node budget with its own stream of the seed (see
/// [`solve`](super::solve)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SolveThreads(u8);

impl SolveThreads {
    /// One thread: the search as it was before threads existed.
    pub const ONE: Self = Self(1);

    /// Parses a request value: 0 means one thread; otherwise `1..=64`.
    ///
    /// # Errors
    /// [`EngineError::InvalidParameter`] naming `threads`.
    pub fn parse(value: u32) -> Result<Self, EngineError> {
        zero_means_default("threads", value, 1, 1..=MAX_SOLVE_THREADS).map(|v| Self(v as u8))
    }

    /// The thread count, `1..=64`.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }
}

/// Parses a request's wall-clock limit in milliseconds: 0 means none; otherwise
/// `1..=`[`MAX_SOLVE_MILLIS`].
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `max_millis`.
pub fn parse_time_limit(max_millis: u32) -> Result<Option<Duration>, EngineError> {
    match max_millis {
        0 => Ok(None),
        1..=MAX_SOLVE_MILLIS => Ok(Some(Duration::from_millis(u64::from(max_millis)))),
        _ => Err(EngineError::InvalidParameter {
            field: "max_millis",
            reason: format!("must be 0 (no limit) or 1..={MAX_SOLVE_MILLIS}, got {max_millis}"),
        }),
    }
}

/// What to search for: the rules, the seed and the deterministic budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Scoring rule the search maximises (moves plus the end adjustment).
    pub rule: ScoringRule,
    /// Smallest legal group.
    pub min_group: MinGroup,
    /// Seed of the ChaCha8 stream of the playouts.
    pub seed: u64,
    /// Highest NMCS level run.
    pub level: SolveLevel,
    /// Node budget.
    pub max_nodes: NodeBudget,
    /// One run of the levels, or restarts until a limit.
    pub schedule: SolveSchedule,
    /// Which children each step of a level searches further.
    pub method: SolveMethod,
    /// Threads the search runs on ([`SolveThreads::ONE`]: the calling thread only).
    pub threads: SolveThreads,
}

/// Which children a step of an NMCS level of 2 or more searches with the level below.
///
/// Level 1 always runs one playout after every legal move; the methods differ above it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SolveMethod {
    /// Plain NMCS (Cazenave 2009): every legal move.
    #[default]
    Nmcs,
    /// NMCS with simulation reduction (after H. Akiyama, K. Komiya, Y. Kotani, "Nested
    /// Monte-Carlo Search with simulation reduction", Knowledge-Based Systems 34, 2012): a step
    /// of a level of 2 or more first runs one playout after every legal move, then runs the
    /// level below only after the `width` moves whose playouts scored highest (the earlier
    /// move on a tie). The screening playouts count as nodes and can improve the best game
    /// like any other. A level-2 run costs a fraction of a plain one, so a budget fits several
    /// times more restarts; on the 20 standard SameGame positions restarts of screened level 2
    /// (width 16) score higher on the same budget than restarts of plain level 2 (README).
    Screened(ScreenWidth),
    /// A beam search with a static evaluation and duplicate merging (`level` is not used):
    /// layer by layer, every state is expanded by every legal group, children with equal
    /// boards are merged, and the `width` best by score so far plus an estimate (each colour's
    /// worth if gathered, less penalties for tiles in no group and for colours split into
    /// several groups) go on. Then refinement passes walk the best line and follow every tap
    /// on it by a beam of 8, 16, 32, ... states (the powers of [`BeamOptions::refine_factor`]),
    /// switching to any better game: up to `width / 8` with [`SolveSchedule::Single`], until a
    /// limit with [`SolveSchedule::Restarts`]. The seed only draws the playout that finishes a
    /// beam a limit stops. On 10x10 PopStar this beats NMCS at equal time (docs/solver.md,
    /// "Beam search"). The clear goal's Monte-Carlo step runs [`Self::Screened`] at the default
    /// width instead.
    Beam(BeamOptions),
    /// [`Self::Beam`] with the tabu-colour estimate, tuned on the 20 standard SameGame
    /// positions: the colour with the most tiles is counted apart (the colour SameGame's best
    /// games keep for one large group, as TabuColorRandom playouts do: Schadd et al. 2008), and
    /// with [`SolveSchedule::Restarts`] the first line is the best of 8 beams, the first with
    /// the tuned weights and the others with weights scaled by factors the seed draws. Under
    /// `SAMEGAME` the strongest method here at about 60 s a position (docs/solver.md, "A
    /// SameGame beam"); other rules get the same weights, untuned. The clear goal's
    /// Monte-Carlo step runs [`Self::Screened`] at the default width instead.
    TabuBeam(BeamOptions),
}

/// How the budget is spent: one run of the levels, or independent runs until a limit.
///
/// Restarts are the meta-search of Schadd et al. 2008 (SP-MCTS was run from several random
/// seeds and the best game kept): an NMCS level-`L` run spends most of its effort on the first
/// moves and its result varies a lot with the draws, so on a fixed budget several complete
/// runs with fresh draws usually find a better best game than one run plus an incomplete
/// higher level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SolveSchedule {
    /// Levels 1..=`level` once, each from the best game so far; stops when the last level
    /// completes ([`SolveStop::Completed`]) or at a limit.
    #[default]
    Single,
    /// The single schedule, then again from scratch with the next draws of the same stream
    /// (levels 1..=`level`, the first from a fresh playout), and so on until a limit stops the
    /// search ([`SolveStop::Completed`] never happens unless the board has no legal group);
    /// the best game over all runs is kept. The first run is exactly [`Self::Single`]'s, so a
    /// budget that ends inside it gives the same answer as `Single`.
    Restarts,
}

/// The non-deterministic limits of a search: clocks and a cancel flag, checked before every
/// playout. On any of them the search returns the best game found so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolveControl<'a> {
    /// The caller's own wall-clock cap (a request's `max_millis`): [`SolveStop::TimeLimit`].
    pub time_limit: Option<Instant>,
    /// When the answer must be ready (a request's deadline, less a margin to send it):
    /// [`SolveStop::Deadline`].
    pub deadline: Option<Instant>,
    /// Set by the caller when nobody waits for the answer any more: [`SolveStop::Cancelled`].
    pub cancel: Option<&'a AtomicBool>,
}

impl SolveControl<'_> {
    /// The limit other than the node budget that has been reached now, if any: the cancel
    /// flag first, then the caller's time limit, then the deadline.
    pub(super) fn stop_now(&self) -> Option<SolveStop> {
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Some(SolveStop::Cancelled);
        }
        if self.time_limit.is_none() && self.deadline.is_none() {
            return None;
        }
        let now = Instant::now();
        if self.time_limit.is_some_and(|t| now >= t) {
            Some(SolveStop::TimeLimit)
        } else if self.deadline.is_some_and(|d| now >= d) {
            Some(SolveStop::Deadline)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_range_checked() {
        assert_eq!(SolveLevel::parse(0).map(SolveLevel::get), Ok(2));
        assert!(SolveLevel::parse(6).is_err());
        assert_eq!(NodeBudget::parse(0).map(NodeBudget::get), Ok(1_000_000));
        assert!(NodeBudget::parse(MAX_SOLVE_NODES + 1).is_err());
        assert_eq!(parse_time_limit(0), Ok(None));
        assert_eq!(parse_time_limit(5), Ok(Some(Duration::from_millis(5))));
        assert!(parse_time_limit(MAX_SOLVE_MILLIS + 1).is_err());
        assert_eq!(ScreenWidth::parse(0).map(ScreenWidth::get), Ok(16));
        assert_eq!(ScreenWidth::parse(256).map(ScreenWidth::get), Ok(256));
        assert!(ScreenWidth::parse(257).is_err());
        assert_eq!(SolveThreads::parse(0), Ok(SolveThreads::ONE));
        assert_eq!(SolveThreads::parse(64).map(SolveThreads::get), Ok(64));
        assert!(SolveThreads::parse(65).is_err());
        assert_eq!(BeamWidth::parse(0).map(BeamWidth::get), Ok(2000));
        assert_eq!(BeamWidth::parse(65_536).map(BeamWidth::get), Ok(65_536));
        assert!(BeamWidth::parse(65_537).is_err());
        assert_eq!(RefineFactor::parse(0), Ok(RefineFactor::DOUBLING));
        assert!(RefineFactor::parse(1).is_err());
        assert_eq!(RefineFactor::parse(16).map(RefineFactor::get), Ok(16));
        assert!(RefineFactor::parse(17).is_err());
    }

    #[test]
    fn the_first_refinement_pass_is_the_first_power_of_the_factor_from_8() {
        let first = |factor| RefineFactor::parse(factor).unwrap().first_width();
        assert_eq!([2, 3, 4, 5, 8, 9, 16].map(first), [8, 9, 16, 25, 8, 9, 16]);
    }
}
