//! Board generation for both families: stable swap boards with enough valid swaps (docs/rules.md
//! section 2) and full collapse boards with a legal group (section 3).

use rand::Rng;

use super::arrange::{Arrangement, Palette, arrange};
use super::bitboard::ColorPlanes;
use super::board::{Board, EMPTY};
use super::collapse::CollapseGame;
use super::error::EngineError;
use super::params::{GenerationSize, MinGroup};
use super::settled::SettledBoard;
use super::stable::StablePlain;

/// Generates a stable swap-family board with at least `min_moves` valid swaps (docs/rules.md section 2).
///
/// Each cell, in row-major order, takes a colour drawn uniformly among `1..=colors` minus those
/// that would complete a run with its two left or two upper neighbours (the usual match-3 fill),
/// backtracking on dead ends; boards with fewer than `min_moves` swaps are redrawn. Work is
/// bounded. Returns the board and its number of valid swaps.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `min_moves` (more than the board's adjacent pairs; no valid swap can exist when both sides
/// are below 3 or the board is 1x3/3x1; or no board was found within the bounded search).
pub(crate) fn generate_swap_board<R: Rng + ?Sized>(
    size: GenerationSize,
    min_moves: u32,
    rng: &mut R,
) -> Result<(StablePlain, usize), EngineError> {
    let (width, height, colors) = (size.width(), size.height(), size.colors());
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
    if min_moves > 0 && width.max(height) < 3 {
        return Err(infeasible(format!(
            "no {width}x{height} board has a valid swap: a match needs a line of 3 cells, and \
             this board has none"
        )));
    }
    if min_moves > 0 && width * height == 3 {
        return Err(infeasible(format!(
            "no {width}x{height} board has a valid swap: its only line of 3 is stable, so it \
             holds two colours, and no swap within it can make the three equal"
        )));
    }
    let min_moves = min_moves as usize;
    // The planes and swap count of the accepted arrangement are kept: the board carries them.
    let mut accepted = None;
    match arrange(width, height, Palette::Uniform { colors }, rng, |cells| {
        let planes = ColorPlanes::new(cells, width, height);
        let count = planes.count_valid_swaps();
        let enough = count >= min_moves;
        if enough {
            accepted = Some((planes, count));
        }
        enough
    }) {
        Arrangement::Found(cells) => {
            let (planes, count) = accepted.expect("arrange only returns an accepted arrangement");
            let board = Board::from_engine_cells(width, height, cells);
            Ok((StablePlain::with_planes(board, planes), count))
        }
        Arrangement::Impossible => Err(infeasible(format!(
            "no stable {width}x{height} board with {colors} colours has {min_moves} valid swaps"
        ))),
        Arrangement::GaveUp => Err(infeasible(format!(
            "no stable {width}x{height} board with {colors} colours and {min_moves} valid swaps \
             was found within the generator's search budget; ask for fewer moves or use fewer \
             colours (fewer colours give more valid swaps)"
        ))),
    }
}

/// Generates a full collapse board with colours drawn uniformly from `1..=colors`, with at
/// least one group of `min_group` cells (docs/rules.md section 3). Returns the board and its number of
/// legal groups.
///
/// Draws up to 32 boards; if none has a legal group (only for extreme `min_group`), the last
/// one has its first `min_group` cells in row-major order (a connected block) painted one
/// drawn colour, so a valid request never fails.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `min_group` when it exceeds `width * height`.
pub fn generate_collapse_board<R: Rng + ?Sized>(
    size: GenerationSize,
    min_group: MinGroup,
    rng: &mut R,
) -> Result<(SettledBoard, usize), EngineError> {
    let (width, height, colors) = (size.width(), size.height(), size.colors());
    let min_group_cells = min_group.get();
    if min_group_cells > width * height {
        return Err(EngineError::InvalidParameter {
            field: "min_group",
            reason: format!(
                "{min_group_cells} exceeds the {} cells of a {width}x{height} board",
                width * height
            ),
        });
    }
    let mut cells = vec![EMPTY; width * height];
    for _ in 0..32 {
        for cell in cells.iter_mut() {
            *cell = rng.random_range(1..=colors);
        }
        let board =
            SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells.clone()));
        let count = CollapseGame::new(&board).count_legal_groups(min_group);
        if count > 0 {
            return Ok((board, count));
        }
    }
    let color = rng.random_range(1..=colors);
    cells[..min_group_cells].fill(color);
    let board = SettledBoard::new_unchecked(Board::from_engine_cells(width, height, cells));
    let count = CollapseGame::new(&board).count_legal_groups(min_group);
    Ok((board, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::count_valid_swaps;
    use crate::stable::is_stable;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn generate(
        width: u32,
        height: u32,
        colors: u32,
        min_moves: u32,
    ) -> Result<(StablePlain, usize), EngineError> {
        generate_swap_board(
            GenerationSize::for_swap(width, height, colors)?,
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
