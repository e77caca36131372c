//! [`solve_clear`]: can a collapse-family board still be cleared? The first clearing line
//! found, a proof that none exists, or "unknown" within the budget.
//!
//! **Method.** Three steps, each only when the one before did not decide:
//!
//! 1. **A colour count.** A colour with `1..min_group` tiles can never form a legal group
//!    (groups only lose cells), so its tiles stay: [`ClearProof::StrandedColor`]. No node is
//!    spent.
//! 2. **A depth-first search** with half the node budget: after each tap the children are
//!    tried fewest orphan tiles first (tiles with no 4-neighbour of their colour; on boards of
//!    at most 16x16), a child with a stranded colour is cut, and positions whose whole subtree
//!    failed are kept in a table (exact keys, at most [`MAX_CLEAR_TABLE_BYTES`]) so a transposition
//!    reached by another order of taps is not searched again. A search that ends with no cut
//!    but those has tried every reachable position: [`ClearProof::Exhausted`]. This decides
//!    small boards (up to about 6x6 with 3-5 colours on the default budget).
//! 3. **Nested Monte-Carlo Search** (the Solve search of [`solve`](super::solve), with the
//!    request's level and method, restarts, and uniform playouts) with the rest of the budget,
//!    maximising the tiles cleared and stopping at the first game that clears them all: this
//!    finds the clearing lines of larger boards, which the depth-first search rarely reaches.
//!
//! Every step is deterministic for a seed and a node budget; the clocks and the cancel flag
//! stop it as they stop [`solve`](super::solve).

use std::collections::HashSet;

use crate::position::Position;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::game::SearchGame;
use super::options::{SolveControl, SolveOptions, SolveSchedule};
use super::{CollapseGame, CompactGame, Effort, Solution, SolveStop};

/// The most memory the depth-first search's table of failed positions may take: 32 MiB.
pub const MAX_CLEAR_TABLE_BYTES: usize = 32 << 20;

/// Whether a board can still be cleared, as far as [`solve_clear`] found out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clearability {
    /// A clearing line was found: [`ClearSolution::solution`] plays it.
    Clearable,
    /// No tap sequence clears the board, for the reason given.
    NotClearable(ClearProof),
    /// Neither a line nor a proof within the budget.
    Unknown,
}

/// Why a board can never be cleared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClearProof {
    /// A colour has `1..min_group` tiles: they can never form a legal group.
    StrandedColor {
        /// The colour, `1..=16`.
        color: u8,
        /// Its tiles, `1..min_group`.
        tiles: usize,
    },
    /// Every position reachable from the board was searched and none is empty.
    Exhausted,
}

/// The answer of [`solve_clear`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClearSolution {
    /// Clearable, not clearable (and why), or unknown.
    pub clearability: Clearability,
    /// The game answered, scored under the options' rule: the clearing line when
    /// [`Clearability::Clearable`] (its board is empty); the game leaving the fewest tiles the
    /// Monte-Carlo step found when [`Clearability::Unknown`]; no move when
    /// [`Clearability::NotClearable`]. `nodes` counts both searches; `stop` is
    /// [`SolveStop::Completed`] when the question was decided, the limit that ended the search
    /// otherwise.
    pub solution: Solution,
}

/// Searches for a tap sequence that clears `board` (see the module docs): `options` gives
/// the rule the answer is scored under, `min_group`, the seed, the node budget shared by the
/// two searches, and the level and method of the Monte-Carlo step (its schedule is always
/// restarts and its objective the tiles cleared). Never fails: an empty board is clearable
/// with no tap.
pub fn solve_clear(
    board: &SettledBoard,
    options: &SolveOptions,
    control: &SolveControl,
) -> ClearSolution {
    let started = std::time::Instant::now();
    let (clearability, line, mut effort) = match CompactGame::from_board(board) {
        Some(game) => decide(game, options, control),
        None => decide(CollapseGame::new(board), options, control),
    };
    effort.elapsed = started.elapsed();
    ClearSolution {
        clearability,
        solution: super::finish(board, options, &line, effort),
    }
}

/// The three steps of the module docs on `root`.
fn decide<G: SearchGame>(
    root: G,
    options: &SolveOptions,
    control: &SolveControl,
) -> (Clearability, Vec<Position>, Effort) {
    let decided = |clearability, line, nodes| {
        let effort = Effort {
            nodes,
            playouts: 0,
            levels_completed: 0,
            runs_completed: 0,
            elapsed: std::time::Duration::ZERO,
            stop: SolveStop::Completed,
        };
        (clearability, line, effort)
    };
    let tiles = root.tiles_left();
    if tiles == 0 {
        return decided(Clearability::Clearable, Vec::new(), 0);
    }
    if let Some((color, tiles)) = root.stranded_color(options.min_group) {
        let proof = ClearProof::StrandedColor { color, tiles };
        return decided(Clearability::NotClearable(proof), Vec::new(), 0);
    }
    let budget = options.max_nodes.get();
    let mut depth_first = DepthFirst::<G> {
        options,
        control,
        max_nodes: budget / 2,
        nodes: 0,
        stop: None,
        failed: HashSet::new(),
        table_bytes: 0,
        line: Vec::new(),
    };
    match depth_first.search(&root) {
        Outcome::Cleared => {
            let mut line = std::mem::take(&mut depth_first.line);
            line.reverse();
            return decided(Clearability::Clearable, line, depth_first.nodes);
        }
        Outcome::Failed => {
            let proof = ClearProof::Exhausted;
            return decided(
                Clearability::NotClearable(proof),
                Vec::new(),
                depth_first.nodes,
            );
        }
        Outcome::Stopped if depth_first.stop != Some(SolveStop::NodeBudget) => {
            let (_, _, mut effort) = decided(Clearability::Unknown, Vec::new(), 0);
            effort.nodes = depth_first.nodes;
            effort.stop = depth_first.stop.unwrap_or(SolveStop::NodeBudget);
            return (Clearability::Unknown, Vec::new(), effort);
        }
        Outcome::Stopped => {}
    }
    let mut monte_carlo = *options;
    monte_carlo.rule = ScoringRule::Clickomania;
    monte_carlo.schedule = SolveSchedule::Restarts;
    monte_carlo.threads = super::SolveThreads::ONE;
    let rest = budget.saturating_sub(depth_first.nodes).max(1);
    monte_carlo.max_nodes = super::NodeBudget::parse(rest).unwrap_or(options.max_nodes);
    // Clickomania scores one point a tile, so clearing every tile scores `tiles`.
    let (line, mut effort) = super::search::run(root, &monte_carlo, control, Some(tiles as i64), 0);
    effort.nodes += depth_first.nodes;
    let clearability = if effort.stop == SolveStop::Completed {
        Clearability::Clearable
    } else {
        Clearability::Unknown
    };
    (clearability, line, effort)
}

/// How a subtree of the depth-first search ended.
enum Outcome {
    /// A clearing line was found; its taps are in `DepthFirst::line`, last tap first.
    Cleared,
    /// No position below clears.
    Failed,
    /// A limit stopped the search.
    Stopped,
}

/// The state of the depth-first step.
struct DepthFirst<'a, G: SearchGame> {
    options: &'a SolveOptions,
    control: &'a SolveControl<'a>,
    max_nodes: u64,
    nodes: u64,
    stop: Option<SolveStop>,
    /// Positions whose whole subtree was searched without a clear.
    failed: HashSet<G::Key>,
    table_bytes: usize,
    /// The clearing line, last tap first, once found.
    line: Vec<Position>,
}

impl<G: SearchGame> DepthFirst<'_, G> {
    /// True (and the reason recorded) when a limit is reached; the clocks and the cancel flag
    /// are read every 1,024 nodes.
    fn limit_reached(&mut self) -> bool {
        if self.stop.is_none() {
            self.stop = if self.nodes >= self.max_nodes {
                Some(SolveStop::NodeBudget)
            } else if self.nodes.is_multiple_of(1024) {
                self.control.stop_now()
            } else {
                None
            };
        }
        self.stop.is_some()
    }

    /// Searches below `game`, a position with tiles and no stranded colour.
    fn search(&mut self, game: &G) -> Outcome {
        let min_group = self.options.min_group;
        let key = game.key();
        if key.as_ref().is_some_and(|key| self.failed.contains(key)) {
            return Outcome::Failed;
        }
        let mut moves = Vec::new();
        game.moves_into(min_group, &mut moves);
        let mut children = Vec::with_capacity(moves.len());
        for (index, &at) in moves.iter().enumerate() {
            if self.limit_reached() {
                return Outcome::Stopped;
            }
            let mut child = game.clone();
            child.play(at, min_group);
            self.nodes += 1;
            if child.tiles_left() == 0 {
                self.line.push(at);
                return Outcome::Cleared;
            }
            if child.stranded_color(min_group).is_none() {
                children.push((child.orphan_count(), index, at));
            }
        }
        children.sort_unstable_by_key(|&(orphans, index, ..)| (orphans, index));
        // Only the taps are kept, each child rebuilt when its turn comes: a stack of whole
        // children would hold hundreds of boards a level on a deep, wide board.
        for &(_, _, at) in &children {
            if self.limit_reached() {
                return Outcome::Stopped;
            }
            let mut child = game.clone();
            child.play(at, min_group);
            self.nodes += 1;
            match self.search(&child) {
                Outcome::Cleared => {
                    self.line.push(at);
                    return Outcome::Cleared;
                }
                Outcome::Stopped => return Outcome::Stopped,
                Outcome::Failed => {}
            }
        }
        if let Some(key) = key {
            let bytes = game.key_bytes();
            if self.table_bytes + bytes <= MAX_CLEAR_TABLE_BYTES {
                self.table_bytes += bytes;
                self.failed.insert(key);
            }
        }
        Outcome::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::collapse::solve::{NodeBudget, ScreenWidth, SolveLevel, SolveMethod};
    use crate::params::{GenerationSize, MinGroup};

    fn settled(text: &str) -> SettledBoard {
        SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
    }

    fn options(min_group: usize, max_nodes: u64) -> SolveOptions {
        SolveOptions {
            rule: ScoringRule::PopStar,
            min_group: MinGroup::parse(min_group as u32).unwrap(),
            seed: 7,
            level: SolveLevel::parse(2).unwrap(),
            max_nodes: NodeBudget::parse(max_nodes).unwrap(),
            schedule: SolveSchedule::Single,
            method: SolveMethod::Screened(ScreenWidth::parse(0).unwrap()),
            threads: crate::collapse::solve::SolveThreads::ONE,
        }
    }

    /// Whether some tap order clears `board`, by trying them all through the recording `tap`.
    fn clearable_by_brute_force(board: &SettledBoard, min_group: MinGroup) -> bool {
        if board.board().tile_count() == 0 {
            return true;
        }
        crate::collapse::legal_groups(board, ScoringRule::PopStar, min_group)
            .iter()
            .any(|group| {
                let outcome = crate::collapse::tap(
                    board,
                    group.representative,
                    ScoringRule::PopStar,
                    min_group,
                )
                .unwrap();
                clearable_by_brute_force(&outcome.board, min_group)
            })
    }

    /// Replays the answer's line and checks it leaves no tile.
    fn assert_clears(board: &SettledBoard, answer: &ClearSolution) {
        let mut current = board.clone();
        for m in &answer.solution.moves {
            let outcome = crate::collapse::tap(
                &current,
                m.position,
                ScoringRule::PopStar,
                MinGroup::DEFAULT,
            )
            .unwrap();
            current = outcome.board;
        }
        assert_eq!(current.board().tile_count(), 0);
        assert_eq!(answer.solution.tiles_left, 0);
        assert_eq!(answer.solution.end_bonus, 2000);
    }

    #[test]
    fn a_colour_with_one_tile_is_a_proof_at_once() {
        let answer = solve_clear(
            &settled("RRG/BBR"),
            &options(2, 1000),
            &SolveControl::default(),
        );
        assert_eq!(
            answer.clearability,
            Clearability::NotClearable(ClearProof::StrandedColor { color: 2, tiles: 1 })
        );
        assert_eq!((answer.solution.nodes, answer.solution.moves.len()), (0, 0));
        assert_eq!(answer.solution.stop, SolveStop::Completed);
        // Under min_group 3, two tiles of a colour are stranded too.
        let answer = solve_clear(
            &settled("RRRB/GGGB"),
            &options(3, 1000),
            &SolveControl::default(),
        );
        assert_eq!(
            answer.clearability,
            Clearability::NotClearable(ClearProof::StrandedColor { color: 3, tiles: 2 })
        );
    }

    #[test]
    fn a_clearing_line_is_found_and_replays() {
        // Three colours in pairs and triples that no single tap clears: the line must order them.
        let board = settled("RBR/GBG/GRG");
        assert!(clearable_by_brute_force(&board, MinGroup::DEFAULT));
        let answer = solve_clear(&board, &options(2, 1000), &SolveControl::default());
        assert_eq!(answer.clearability, Clearability::Clearable);
        assert_eq!(answer.solution.stop, SolveStop::Completed);
        assert_clears(&board, &answer);
    }

    #[test]
    fn an_exhausted_search_is_a_proof() {
        // Every colour has two tiles or more, but no order clears it.
        let board = settled("RG/GR/RG");
        assert!(!clearable_by_brute_force(&board, MinGroup::DEFAULT));
        let answer = solve_clear(&board, &options(2, 1000), &SolveControl::default());
        assert_eq!(
            answer.clearability,
            Clearability::NotClearable(ClearProof::Exhausted)
        );
        assert!(answer.solution.moves.is_empty());
    }

    #[test]
    fn small_random_boards_agree_with_brute_force() {
        let mut answers = [0; 3];
        for (width, height, colors) in [(3, 3, 2), (4, 3, 3), (4, 4, 3), (5, 4, 4)] {
            let size = GenerationSize::for_collapse(width, height, colors).unwrap();
            for seed in 0..40 {
                let mut rng = crate::rng_from_seed(seed);
                let (board, _) =
                    crate::generate_collapse_board(size, MinGroup::DEFAULT, &mut rng).unwrap();
                let expected = clearable_by_brute_force(&board, MinGroup::DEFAULT);
                let answer = solve_clear(&board, &options(2, 1_000_000), &SolveControl::default());
                match answer.clearability {
                    Clearability::Clearable => {
                        assert!(expected, "{board:?}");
                        assert_clears(&board, &answer);
                        answers[0] += 1;
                    }
                    Clearability::NotClearable(_) => {
                        assert!(!expected, "{board:?}");
                        answers[1] += 1;
                    }
                    Clearability::Unknown => panic!("undecided on a small board: {board:?}"),
                }
                assert_eq!(answer.solution.stop, SolveStop::Completed);
                answers[2] += answer.solution.nodes;
            }
        }
        // Both answers occur, so the comparison tests both.
        assert!(answers[0] > 20 && answers[1] > 20, "{answers:?}");
    }

    #[test]
    fn a_spent_budget_is_unknown_and_the_answer_is_deterministic() {
        let size = GenerationSize::for_collapse(12, 12, 6).unwrap();
        let (board, _) =
            crate::generate_collapse_board(size, MinGroup::DEFAULT, &mut crate::rng_from_seed(3))
                .unwrap();
        let first = solve_clear(&board, &options(2, 3_000), &SolveControl::default());
        assert_eq!(first.clearability, Clearability::Unknown);
        assert_eq!(first.solution.stop, SolveStop::NodeBudget);
        assert!(!first.solution.moves.is_empty() && first.solution.tiles_left > 0);
        let again = solve_clear(&board, &options(2, 3_000), &SolveControl::default());
        assert_eq!(again.solution.moves, first.solution.moves);
        assert_eq!(again.solution.nodes, first.solution.nodes);
    }

    #[test]
    fn an_empty_board_is_clearable_with_no_tap() {
        let answer = solve_clear(&settled("../.."), &options(2, 10), &SolveControl::default());
        assert_eq!(answer.clearability, Clearability::Clearable);
        assert!(answer.solution.moves.is_empty());
    }
}
