//! Arranging tiles on a swap board (docs/rules.md sections 2 and 6): generating a playable
//! board, and shuffling a dead one.

use rand::Rng;

use super::board::SwapBoard;
use super::level;
use super::obstacles::{self, StableObstacles};
use super::stable::StableBoard;
use crate::error::EngineError;
use crate::params::GenerationSize;

/// Generates a stable board without layers with at least `min_moves` valid swaps.
///
/// Each cell, in row-major order, takes a colour drawn uniformly among `1..=colors` minus those
/// that would complete a run with its two left or two upper neighbours (the usual match-3 fill),
/// backtracking on dead ends; boards with fewer than `min_moves` swaps are redrawn. Work is
/// bounded. Returns the board and its number of valid swaps.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `min_moves` (more than the board's adjacent pairs;
/// no valid swap can exist when both sides are below 3 or the board is 1x3/3x1; or no board was
/// found within the bounded search).
pub fn generate_swap_board<R: Rng + ?Sized>(
    size: GenerationSize,
    min_moves: u32,
    rng: &mut R,
) -> Result<(StableBoard, usize), EngineError> {
    let (board, count) = crate::generate::generate_swap_board(size, min_moves, rng)?;
    Ok((board.into(), count))
}

/// Generates a stable board with layers, its holes at `holes` (`width * height` flags,
/// row-major), with at least `min_moves` valid swaps: every non-hole cell, in row-major order,
/// takes a colour drawn uniformly among `1..=colors` minus those completing a run with its two
/// left or two upper neighbours (holes break lines); a dead end or too few swaps starts a fresh
/// fill, at most 256 times. Returns the board (every kind NORMAL) and its valid-swap count.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `holes` (wrong length; a mask on which no swap can
/// ever match while `min_moves > 0`), or `min_moves` (more than the adjacent non-hole pairs,
/// or no board found within the bounded search).
pub fn generate_swap_board_with_holes<R: Rng + ?Sized>(
    size: GenerationSize,
    min_moves: u32,
    holes: Vec<bool>,
    rng: &mut R,
) -> Result<(StableBoard, usize), EngineError> {
    let (board, count) = level::generate_level_board(size, min_moves, holes, rng)?;
    Ok((board.into(), count))
}

/// Permutes the tiles of a full `board` into a stable board with at least one valid swap,
/// chosen by the seed.
///
/// A board without layers permutes its colours: a colour over the run-free capacity (about 2/3
/// of the board) is refused at once; otherwise a bounded row-major search (colours drawn by
/// the cube of their remaining count) runs, then, if it gives up or one colour covers more than
/// half of the board, a min-conflicts repair search restarted from six 2/3 lattices. A board
/// with layers permutes its (colour, kind) tiles over the cells that are not holes: the cells
/// in row-major order, each with a tile drawn among the remaining ones (by count) that does
/// not complete a run, restarting on a dead end, at most 256 fills. Work is bounded: at most
/// ~0.2 s on 64x64.
///
/// # Errors
/// A board with level layers (docs/rules.md section 8) permutes only the tiles that are
/// neither locked nor ingredients, among their own cells, each keeping its kind, the same way.
///
/// [`EngineError::BoardNotFull`] when a cell (holes aside) is empty;
/// [`EngineError::NoShuffleExists`] when no permutation qualifies (`proven`: no swap can ever
/// be valid, a colour over the run-free capacity, or the search space exhausted) or none is
/// found within the bounded search (not `proven`).
pub fn shuffle<R: Rng + ?Sized>(
    board: &SwapBoard,
    rng: &mut R,
) -> Result<StableBoard, EngineError> {
    if let Some(board) = board.as_obstacles() {
        let shuffled = obstacles::shuffle_obstacles(board, rng)?;
        return Ok(StableObstacles::new_unchecked(shuffled).into());
    }
    match board.as_layered() {
        None => crate::shuffle::shuffle(board.colors(), rng).map(StableBoard::from),
        Some(layered) => level::shuffle_level(layered, rng).map(StableBoard::from),
    }
}
