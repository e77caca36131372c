//! Generation with a hole mask and shuffle keeping holes fixed (docs/rules.md section 6).

use rand::Rng;

use super::rules::valid_swaps_of;
use super::{LevelBoard, PieceKind, StableLevel};
use crate::board::{Board, EMPTY};
use crate::error::EngineError;
use crate::params::GenerationSize;

/// Fresh fills tried by [`generate_level_board`] and [`shuffle_level`] before giving up.
const ATTEMPTS: usize = 256;

/// True when placing `color` at `index` (the cells before it in row-major order already
/// placed) completes a run with its two left or two upper neighbours. Holes are 0 and break
/// every line.
fn completes_run(cells: &[u8], width: usize, index: usize, color: u8) -> bool {
    if color == EMPTY {
        return false;
    }
    let (row, col) = (index / width, index % width);
    (col >= 2 && cells[index - 1] == color && cells[index - 2] == color)
        || (row >= 2 && cells[index - width] == color && cells[index - 2 * width] == color)
}

/// True when some valid swap can exist on a board with these holes and no specials: two
/// adjacent non-hole cells `a`, `b` and a line of three non-hole cells through `b` that
/// avoids `a` (after the swap `b` holds `a`'s colour, and `a` another one).
fn mask_allows_a_swap(holes: &[bool], width: usize, height: usize) -> bool {
    let open = |r: isize, c: isize| {
        r >= 0
            && c >= 0
            && (r as usize) < height
            && (c as usize) < width
            && !holes[r as usize * width + c as usize]
    };
    for r in 0..height as isize {
        for c in 0..width as isize {
            if !open(r, c) {
                continue;
            }
            for (dr, dc) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                let (ar, ac) = (r + dr, c + dc);
                if !open(ar, ac) {
                    continue;
                }
                // Lines of three through b = (r, c), not containing a = (ar, ac).
                for (lr, lc) in [(0, 1), (1, 0)] {
                    for offset in -2..=0 {
                        let cells: Vec<(isize, isize)> = (0..3)
                            .map(|k| (r + (offset + k) * lr, c + (offset + k) * lc))
                            .collect();
                        if cells.iter().all(|&(x, y)| open(x, y)) && !cells.contains(&(ar, ac)) {
                            return true;
                        }
                    }
                }
            }
        }
    }
    false
}

/// Generates a stable level board with the hole mask `holes` (`width * height` flags) and at
/// least `min_moves` valid swaps: every non-hole cell, in row-major order, takes a colour drawn
/// uniformly among `1..=colors` minus those completing a run with its two left or two upper
/// neighbours (holes break lines); a dead end or too few swaps starts a fresh fill, at most 256
/// times. Returns the board (every kind NORMAL) and its valid-swap count.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `holes` (wrong length; a mask on which no swap can
/// ever match while `min_moves > 0`), or `min_moves` (more than the adjacent non-hole pairs,
/// or no board found within the bounded search).
pub fn generate_level_board<R: Rng + ?Sized>(
    size: GenerationSize,
    min_moves: u32,
    holes: Vec<bool>,
    rng: &mut R,
) -> Result<(StableLevel, usize), EngineError> {
    let (width, height, colors) = (size.width(), size.height(), size.colors());
    let cells = width * height;
    if holes.len() != cells {
        return Err(EngineError::InvalidParameter {
            field: "holes",
            reason: format!(
                "must be empty or hold width * height = {cells} flags, got {}",
                holes.len()
            ),
        });
    }
    let pairs = (0..cells)
        .filter(|&i| !holes[i])
        .map(|i| {
            let right = i % width + 1 < width && !holes[i + 1];
            let down = i + width < cells && !holes[i + width];
            usize::from(right) + usize::from(down)
        })
        .sum::<usize>();
    if min_moves > 0 && !mask_allows_a_swap(&holes, width, height) {
        return Err(EngineError::InvalidParameter {
            field: "holes",
            reason: "the mask leaves no possible swap: no two adjacent non-hole cells with a \
                     line of three non-hole cells through one of them that avoids the other"
                .to_owned(),
        });
    }
    if min_moves as usize > pairs {
        return Err(EngineError::InvalidParameter {
            field: "min_moves",
            reason: format!("{min_moves} exceeds the {pairs} adjacent pairs of non-hole cells"),
        });
    }
    for _ in 0..ATTEMPTS {
        let mut colors_of = vec![EMPTY; cells];
        let mut stuck = false;
        let mut allowed = Vec::with_capacity(16);
        for index in 0..cells {
            if holes[index] {
                continue;
            }
            allowed.clear();
            allowed.extend((1..=colors).filter(|&c| !completes_run(&colors_of, width, index, c)));
            if allowed.is_empty() {
                stuck = true;
                break;
            }
            colors_of[index] = allowed[rng.random_range(0..allowed.len())];
        }
        if stuck {
            continue;
        }
        let board = Board::from_engine_cells(width, height, colors_of);
        let level = LevelBoard::from_parts(board, holes.clone(), vec![PieceKind::Normal; cells]);
        let count = valid_swaps_of(&level, usize::MAX).len();
        if count >= min_moves as usize {
            return Ok((StableLevel::new_unchecked(level), count));
        }
    }
    Err(EngineError::InvalidParameter {
        field: "min_moves",
        reason: format!(
            "no stable {width}x{height} level with {colors} colours and {min_moves} valid swaps \
             was found within the generator's search budget"
        ),
    })
}

/// Permutes the tiles of a full level board (each with its kind) among its non-hole cells into
/// a stable board with at least one valid swap (combinations count); holes stay in place. Fills
/// the non-hole cells in row-major order, each with a tile drawn among the remaining ones (by
/// count) that does not complete a run, restarting on a dead end, at most 256 fills.
///
/// # Errors
/// [`EngineError::BoardNotFull`] when a non-hole cell is empty; [`EngineError::NoShuffleExists`]
/// (`proven` when no swap can ever be valid: no two adjacent non-hole cells, or no colour with
/// three tiles, no bomb and fewer than two specials) or none found within the bound.
pub fn shuffle_level<R: Rng + ?Sized>(
    level: &LevelBoard,
    rng: &mut R,
) -> Result<StableLevel, EngineError> {
    if level.has_empty_cell() {
        return Err(EngineError::BoardNotFull {
            empty_cells: level.empty_cells(),
        });
    }
    let (width, height, size) = (level.width(), level.height(), level.len());
    // Distinct tiles (colour, kind) with their counts.
    let mut types: Vec<((u8, PieceKind), usize)> = Vec::new();
    for i in (0..size).filter(|&i| !level.is_hole(i)) {
        let tile = (level.color(i), level.kind(i));
        match types.iter_mut().find(|(t, _)| *t == tile) {
            Some((_, count)) => *count += 1,
            None => types.push((tile, 1)),
        }
    }
    types.sort_unstable();
    let mut per_color = [0usize; 17];
    let (mut bombs, mut specials) = (0, 0);
    for &((color, kind), count) in &types {
        per_color[usize::from(color)] += count;
        bombs += usize::from(kind == PieceKind::ColorBomb) * count;
        specials += usize::from(kind.is_special()) * count;
    }
    let adjacent = (0..size).any(|i| {
        !level.is_hole(i)
            && ((i % width + 1 < width && !level.is_hole(i + 1))
                || (i + width < size && !level.is_hole(i + width)))
    });
    let some_match =
        per_color[1..].iter().any(|&n| n >= 3) && mask_allows_a_swap(level.holes(), width, height);
    if !adjacent || (!some_match && bombs == 0 && specials < 2) {
        return Err(EngineError::NoShuffleExists { proven: true });
    }
    for _ in 0..ATTEMPTS {
        let mut remaining: Vec<usize> = types.iter().map(|&(_, count)| count).collect();
        let mut colors = vec![EMPTY; size];
        let mut kinds = vec![PieceKind::Normal; size];
        let mut stuck = false;
        for index in 0..size {
            if level.is_hole(index) {
                continue;
            }
            let total: usize = types
                .iter()
                .zip(&remaining)
                .filter(|&(&((color, _), _), &left)| {
                    left > 0 && !completes_run(&colors, width, index, color)
                })
                .map(|(_, &left)| left)
                .sum();
            if total == 0 {
                stuck = true;
                break;
            }
            let mut pick = rng.random_range(0..total);
            for (t, &((color, kind), _)) in types.iter().enumerate() {
                let left = remaining[t];
                if left == 0 || completes_run(&colors, width, index, color) {
                    continue;
                }
                if pick < left {
                    remaining[t] -= 1;
                    colors[index] = color;
                    kinds[index] = kind;
                    break;
                }
                pick -= left;
            }
        }
        if stuck {
            continue;
        }
        let board = Board::from_engine_cells(width, height, colors);
        let candidate = LevelBoard::from_parts(board, level.holes().to_vec(), kinds);
        if !valid_swaps_of(&candidate, 1).is_empty() {
            return Ok(StableLevel::new_unchecked(candidate));
        }
    }
    Err(EngineError::NoShuffleExists { proven: false })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng_from_seed;
    use crate::swap::level::is_level_stable;

    #[test]
    fn generation_keeps_holes_empty_and_is_stable() {
        let size = GenerationSize::for_swap(5, 4, 4).unwrap();
        let mut holes = vec![false; 20];
        holes[0] = true;
        holes[7] = true;
        holes[19] = true;
        let (level, count) =
            generate_level_board(size, 3, holes.clone(), &mut rng_from_seed(1)).unwrap();
        let level = level.into_level();
        assert_eq!(level.holes(), &holes[..]);
        assert!(is_level_stable(&level));
        for (i, &hole) in holes.iter().enumerate() {
            assert_eq!(level.color(i) == EMPTY, hole, "cell {i}");
        }
        assert!(count >= 3);
        assert_eq!(valid_swaps_of(&level, usize::MAX).len(), count);
        // Same seed, same board.
        let (again, _) = generate_level_board(size, 3, holes, &mut rng_from_seed(1)).unwrap();
        assert_eq!(again.into_level(), level);
    }

    #[test]
    fn an_infeasible_mask_is_refused_at_once() {
        // A checkerboard of holes: no two adjacent non-hole cells.
        let size = GenerationSize::for_swap(4, 4, 4).unwrap();
        let checker: Vec<bool> = (0..16).map(|i| (i / 4 + i % 4) % 2 == 0).collect();
        let err =
            generate_level_board(size, 1, checker.clone(), &mut rng_from_seed(0)).unwrap_err();
        assert!(matches!(
            err,
            EngineError::InvalidParameter { field: "holes", .. }
        ));
        // With min_moves 0 the same mask is fine: a dead board.
        assert!(generate_level_board(size, 0, checker, &mut rng_from_seed(0)).is_ok());
        // Dominoes only (two adjacent cells per row, holes elsewhere): no line of three.
        let dominoes: Vec<bool> = (0..16).map(|i| i % 4 >= 2).collect();
        let size = GenerationSize::for_swap(4, 4, 4).unwrap();
        let mut dominoes = dominoes;
        // Break the columns too: holes on rows 1 and 3.
        for c in 0..4 {
            dominoes[4 + c] = true;
            dominoes[12 + c] = true;
        }
        let err = generate_level_board(size, 1, dominoes, &mut rng_from_seed(0)).unwrap_err();
        assert!(matches!(
            err,
            EngineError::InvalidParameter { field: "holes", .. }
        ));
    }

    #[test]
    fn shuffle_keeps_holes_and_moves_kinds_with_tiles() {
        let level = LevelBoard::parse("RGB#/GR-BG/#RGB/BGR+R").unwrap();
        let shuffled = shuffle_level(&level, &mut rng_from_seed(3))
            .unwrap()
            .into_level();
        assert_eq!(shuffled.holes(), level.holes());
        assert!(is_level_stable(&shuffled));
        let mut before: Vec<(u8, PieceKind)> = (0..16)
            .filter(|&i| !level.is_hole(i))
            .map(|i| (level.color(i), level.kind(i)))
            .collect();
        let mut after: Vec<(u8, PieceKind)> = (0..16)
            .filter(|&i| !shuffled.is_hole(i))
            .map(|i| (shuffled.color(i), shuffled.kind(i)))
            .collect();
        before.sort_unstable();
        after.sort_unstable();
        assert_eq!(before, after);
        assert!(!valid_swaps_of(&shuffled, 1).is_empty());
    }
}
