//! Shuffle and generation on boards with level layers (docs/rules.md section 8): a shuffle
//! permutes the tiles that are neither locked nor ingredients among their own cells, keeping
//! each tile's kind; generation colours every slot of a layout.

use rand::Rng;

use super::judge::has_obstacle_swap;
use crate::board::EMPTY;
use crate::error::EngineError;
use crate::moves::in_run;
use crate::swap::level_layers::ObstacleBoard;
use crate::swap::pieces::PieceKind;

/// Fresh fills tried before giving up.
const ATTEMPTS: usize = 256;

/// Fills the cells `slots` (row-major) of `cells`/`kinds` with the pieces of `pool` (colour,
/// kind, count), each drawn by count among those that complete no run, restarting on a dead
/// end; a fill must leave a valid swap on `layers` of `template`. At most [`ATTEMPTS`] fills.
fn fill<R: Rng + ?Sized>(
    template: &ObstacleBoard,
    slots: &[usize],
    pool: &[((u8, PieceKind), usize)],
    rng: &mut R,
) -> Option<ObstacleBoard> {
    let (width, height) = (template.level().width(), template.level().height());
    'attempt: for _ in 0..ATTEMPTS {
        let mut board = template.clone();
        let mut remaining: Vec<usize> = pool.iter().map(|&(_, count)| count).collect();
        {
            let (colors, kinds, _, _, _) = board.parts_mut();
            for &index in slots {
                colors[index] = EMPTY;
                kinds[index] = PieceKind::Normal;
            }
        }
        for &index in slots {
            let (colors, kinds, _, _, _) = board.parts_mut();
            let allowed: Vec<bool> = pool
                .iter()
                .zip(&remaining)
                .map(|(&((color, _), _), &left)| {
                    left > 0
                        && (color == EMPTY || !in_run(|i| colors[i], width, height, index, color))
                })
                .collect();
            let total: usize = remaining
                .iter()
                .zip(&allowed)
                .filter(|&(_, &ok)| ok)
                .map(|(&left, _)| left)
                .sum();
            if total == 0 {
                continue 'attempt;
            }
            let mut pick = rng.random_range(0..total);
            for (t, &((color, kind), _)) in pool.iter().enumerate() {
                if !allowed[t] {
                    continue;
                }
                if pick < remaining[t] {
                    remaining[t] -= 1;
                    colors[index] = color;
                    kinds[index] = kind;
                    break;
                }
                pick -= remaining[t];
            }
        }
        if has_obstacle_swap(&board) {
            return Some(board);
        }
    }
    None
}

/// Shuffles a board with level layers: the tiles that are neither locked nor ingredients are
/// permuted among their own cells, each keeping its kind, so that the board has no run and a
/// valid swap (filled row-major, each cell drawn by count among the tiles that complete no
/// run, at most 256 fills).
///
/// # Errors
/// [`EngineError::NoShuffleExists`] (`proven` when there is no tile to move) when no such
/// permutation is found.
pub(crate) fn shuffle_obstacles<R: Rng + ?Sized>(
    board: &ObstacleBoard,
    rng: &mut R,
) -> Result<ObstacleBoard, EngineError> {
    let level = board.level();
    let slots: Vec<usize> = (0..level.len())
        .filter(|&i| level.is_tile(i) && !board.is_locked(i))
        .collect();
    if slots.is_empty() {
        return Err(EngineError::NoShuffleExists { proven: true });
    }
    let mut pool: Vec<((u8, PieceKind), usize)> = Vec::new();
    for &i in &slots {
        let piece = (level.color(i), level.kind(i));
        match pool.iter_mut().find(|(p, _)| *p == piece) {
            Some((_, count)) => *count += 1,
            None => pool.push((piece, 1)),
        }
    }
    pool.sort_unstable();
    fill(board, &slots, &pool, rng).ok_or(EngineError::NoShuffleExists { proven: false })
}

/// A stable board with at least `min_moves` valid swaps on a layout (docs/rules.md section 8):
/// `layout`'s holes, ingredients, blockers, jelly, locks and exits stay; every other non-hole
/// cell (the locked ones included) gets a colour drawn uniformly from `1..=colors`, completing
/// no run. `layout` is a board whose cells to colour are empty (or hold any colour, which is
/// replaced) and whose ingredients are where they start.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `layout` when an ingredient stands on an exit, or
/// when no board is found within 256 fills (a layout that leaves no possible swap fails this
/// way).
pub(crate) fn generate_on_layout<R: Rng + ?Sized>(
    layout: &ObstacleBoard,
    colors: u8,
    min_moves: usize,
    rng: &mut R,
) -> Result<ObstacleBoard, EngineError> {
    let level = layout.level();
    let slots: Vec<usize> = (0..level.len())
        .filter(|&i| {
            !level.is_hole(i) && layout.blockers()[i] == 0 && level.kind(i) != PieceKind::Ingredient
        })
        .collect();
    let no_board = || EngineError::InvalidParameter {
        field: "layout",
        reason: format!(
            "no stable board with {min_moves} valid swaps found on this layout with {colors} colours"
        ),
    };
    if slots.len() < 2 {
        return Err(no_board());
    }
    // An ingredient on an exit would leave at once: no board on this layout is stable.
    if let Some(index) =
        (0..level.len()).find(|&i| layout.exits()[i] && level.kind(i) == PieceKind::Ingredient)
    {
        return Err(EngineError::InvalidParameter {
            field: "layout",
            reason: format!(
                "the ingredient at cell {index} stands on an exit: it would leave before the first \
                 move, so no board on this layout is stable"
            ),
        });
    }
    // A pool as large as the slots of each colour: drawn by count, that is uniform.
    let pool: Vec<((u8, PieceKind), usize)> = (1..=colors)
        .map(|color| ((color, PieceKind::Normal), slots.len()))
        .collect();
    // Every slot gets a tile, so the kinds there are NORMAL: start from the layout's own kinds
    // (ingredients) with plain colours, so locks stay valid once coloured.
    for _ in 0..ATTEMPTS / 16 {
        let Some(board) = fill(layout, &slots, &pool, rng) else {
            break;
        };
        if super::judge::count_obstacle_swaps(&board) >= min_moves {
            return Ok(board);
        }
    }
    Err(no_board())
}
