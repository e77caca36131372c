//! Board generation for both families.

use rand::Rng;

use super::arrange::{Arrangement, Palette, arrange};
use super::board::{Board, MAX_COLOR, MAX_SIDE};
use super::error::EngineError;
use super::moves::{count_valid_swaps_in, has_valid_swaps};
use super::stable::StableBoard;

fn check_side(field: &'static str, value: u32) -> Result<usize, EngineError> {
    if (1..=MAX_SIDE).contains(&value) {
        Ok(value as usize)
    } else {
        Err(EngineError::InvalidParameter {
            field,
            reason: format!("must be 1..=64, got {value}"),
        })
    }
}

/// Validates generation sizes and colour count (`min_colors..=16`).
pub(crate) fn check_generation_parameters(
    width: u32,
    height: u32,
    colors: u32,
    min_colors: u32,
) -> Result<(usize, usize, u8), EngineError> {
    let width = check_side("width", width)?;
    let height = check_side("height", height)?;
    if !(min_colors..=u32::from(MAX_COLOR)).contains(&colors) {
        return Err(EngineError::InvalidParameter {
            field: "colors",
            reason: format!("must be {min_colors}..=16, got {colors}"),
        });
    }
    Ok((width, height, colors as u8))
}

/// Generates a stable swap-family board with at least `min_moves` valid swaps (docs/rules.md section 2).
///
/// Each cell, in row-major order, takes a colour drawn uniformly among `1..=colors` minus those
/// that would complete a run with its two left or two upper neighbours (the usual match-3 fill),
/// backtracking on dead ends; boards with fewer than `min_moves` swaps are redrawn. Work is
/// bounded. Returns the board and its number of valid swaps.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `width`, `height` (1..=64), `colors` (2..=16) or
/// `min_moves` (more than the board's adjacent pairs; no valid swap can exist when both sides
/// are below 3 or the board is 1x3/3x1; or no board was found within the bounded search).
pub fn generate_swap_board<R: Rng + ?Sized>(
    width: u32,
    height: u32,
    colors: u32,
    min_moves: u32,
    rng: &mut R,
) -> Result<(StableBoard, usize), EngineError> {
    let (width, height, colors) = check_generation_parameters(width, height, colors, 2)?;
    let adjacent_pairs = width * (height - 1) + height * (width - 1);
    let infeasible = |reason: String| EngineError::InvalidParameter {
        field: "min_moves",
        reason,
    };
    if min_moves as usize > adjacent_pairs {
        return Err(infeasible(format!(
            "{min_moves} exceeds the {adjacent_pairs} adjacent cell pairs of a {width}x{height} board"
        )));
    }
    if min_moves > 0 && (width.max(height) < 3 || width * height == 3) {
        return Err(infeasible(format!(
            "no {width}x{height} board has a valid swap: a match needs a line of 3 and a stable \
             line of exactly 3 cannot be completed by a swap within it"
        )));
    }
    let min_moves = min_moves as usize;
    match arrange(width, height, Palette::Uniform { colors }, rng, |cells| {
        has_valid_swaps(cells, width, height, min_moves)
    }) {
        Arrangement::Found(cells) => {
            let count = count_valid_swaps_in(&cells, width, height);
            Ok((
                StableBoard::new_unchecked(Board::from_engine_cells(width, height, cells)),
                count,
            ))
        }
        Arrangement::Impossible => Err(infeasible(format!(
            "no stable {width}x{height} board with {colors} colours has {min_moves} valid swaps"
        ))),
        Arrangement::GaveUp => Err(infeasible(format!(
            "no stable {width}x{height} board with {colors} colours and {min_moves} valid swaps \
             was found within the generator's search budget; ask for fewer"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{count_valid_swaps, is_stable};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn generate(
        width: u32,
        height: u32,
        colors: u32,
        min_moves: u32,
    ) -> Result<(StableBoard, usize), EngineError> {
        generate_swap_board(
            width,
            height,
            colors,
            min_moves,
            &mut ChaCha8Rng::seed_from_u64(7),
        )
    }

    #[test]
    fn generated_board_is_stable_with_enough_moves() {
        let (board, count) = generate(9, 9, 6, 5).unwrap();
        assert!(is_stable(board.board()));
        assert!(count >= 5);
        assert_eq!(count, count_valid_swaps(&board));
        assert_eq!(generate(9, 9, 6, 5).unwrap().0, board);
    }

    #[test]
    fn impossible_parameters_are_invalid() {
        for (w, h, c, m, field) in [
            (9, 9, 1, 1, "colors"),
            (9, 9, 17, 1, "colors"),
            (0, 9, 6, 1, "width"),
            (9, 65, 6, 1, "height"),
            (3, 1, 6, 1, "min_moves"),
            (1, 3, 6, 1, "min_moves"),
            (2, 2, 6, 1, "min_moves"),
            (9, 9, 6, 145, "min_moves"),
        ] {
            match generate(w, h, c, m) {
                Err(EngineError::InvalidParameter { field: f, .. }) => {
                    assert_eq!(f, field, "{w}x{h} c{c} m{m}")
                }
                other => panic!("{w}x{h} c{c} m{m}: {other:?}"),
            }
        }
    }

    #[test]
    fn small_feasible_boards_are_found() {
        let (board, count) = generate(4, 1, 2, 1).unwrap();
        assert!(count >= 1, "{board:?}");
        assert!(generate(3, 2, 2, 1).is_ok());
        let (tiny, zero) = generate(1, 1, 2, 0).unwrap();
        assert_eq!((tiny.board().width(), zero), (1, 0));
    }
}
