//! Bounded search for a stable arrangement (no run, no empty cell) that passes a check, shared
//! by generation (colours drawn freely) and shuffle (colours drawn from a fixed multiset).
//!
//! Cells are filled in row-major order. Each cell takes a random colour among those that do not
//! complete a run with its two left or two upper neighbours (and, for a multiset, that are still
//! available); a dead end backtracks to the previous cell and tries another colour there. A
//! complete arrangement that fails the caller's check also backtracks. The search restarts with
//! fresh random choices after a few failed arrangements, and gives up after a fixed node budget,
//! so its work is bounded by `O(ATTEMPTS * budget)` whatever the input.

use rand::Rng;

use super::board::MAX_COLOR;

/// Where colours come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Palette {
    /// Any colour `1..=colors`, uniformly.
    Uniform { colors: u8 },
    /// Exactly `counts[c]` tiles of colour `c`. A colour is drawn with probability proportional
    /// to the cube of how many of it remain: colours that are running ahead are placed wherever
    /// they fit, which keeps dense multisets (one colour on up to ~60% of the board) solvable
    /// instead of stranding the surplus at the bottom of the board.
    Multiset {
        counts: [u16; MAX_COLOR as usize + 1],
    },
}

/// How a search ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Arrangement {
    /// A stable arrangement that passed the check, row-major.
    Found(Vec<u8>),
    /// The search space was exhausted: no stable arrangement passes the check.
    Impossible,
    /// The node budget ran out first.
    GaveUp,
}

/// Number of independent restarts.
const ATTEMPTS: usize = 24;
/// Complete arrangements rejected by the check before a restart.
const REJECTS_PER_ATTEMPT: usize = 16;

/// Searches for a stable `width x height` arrangement from `palette` for which `accept(cells)`
/// holds. See the module documentation for the bounds.
pub(crate) fn arrange<R: Rng + ?Sized>(
    width: usize,
    height: usize,
    palette: Palette,
    rng: &mut R,
    mut accept: impl FnMut(&[u8]) -> bool,
) -> Arrangement {
    let size = width * height;
    let nodes_per_attempt = 4_096 + 64 * size;
    let mut cells = vec![0u8; size];
    // tried[i]: bit c set when colour c has been tried at cell i in the current descent.
    let mut tried = vec![0u32; size];
    for _ in 0..ATTEMPTS {
        let mut counts = match palette {
            Palette::Multiset { counts } => counts,
            Palette::Uniform { .. } => [0; MAX_COLOR as usize + 1],
        };
        let mut nodes = 0usize;
        let mut rejects = 0usize;
        // Small boards are searched exhaustively, so an impossible request is proved so.
        let max_rejects = if size <= 16 {
            usize::MAX
        } else {
            REJECTS_PER_ATTEMPT
        };
        let mut index = 0usize;
        tried[0] = 0;
        loop {
            nodes += 1;
            if nodes > nodes_per_attempt || rejects >= max_rejects {
                break;
            }
            if index == size {
                if accept(&cells) {
                    return Arrangement::Found(cells);
                }
                rejects += 1;
                index -= 1;
                release(&mut counts, palette, cells[index]);
                continue;
            }
            let candidates = allowed_colors(&cells, width, index, palette, &counts) & !tried[index];
            if candidates == 0 {
                if index == 0 {
                    // Every choice at every cell has been tried: nothing passes.
                    return Arrangement::Impossible;
                }
                index -= 1;
                release(&mut counts, palette, cells[index]);
                continue;
            }
            let color = pick(candidates, palette, &counts, rng);
            tried[index] |= 1 << color;
            cells[index] = color;
            if let Palette::Multiset { .. } = palette {
                counts[usize::from(color)] -= 1;
            }
            index += 1;
            if index < size {
                tried[index] = 0;
            }
        }
    }
    Arrangement::GaveUp
}

fn release(counts: &mut [u16; MAX_COLOR as usize + 1], palette: Palette, color: u8) {
    if let Palette::Multiset { .. } = palette {
        counts[usize::from(color)] += 1;
    }
}

/// Colours (as a bit mask, bit c = colour c) that cell `index` may take without completing a
/// run with the cells already placed to its left and above.
#[inline]
fn allowed_colors(
    cells: &[u8],
    width: usize,
    index: usize,
    palette: Palette,
    counts: &[u16; MAX_COLOR as usize + 1],
) -> u32 {
    let mut mask = match palette {
        Palette::Uniform { colors } => ((1u32 << (colors + 1)) - 1) & !1,
        Palette::Multiset { .. } => {
            let mut mask = 0;
            for (color, &count) in counts.iter().enumerate().skip(1) {
                if count > 0 {
                    mask |= 1 << color;
                }
            }
            mask
        }
    };
    let col = index % width;
    if col >= 2 && cells[index - 1] == cells[index - 2] {
        mask &= !(1 << cells[index - 1]);
    }
    if index >= 2 * width && cells[index - width] == cells[index - 2 * width] {
        mask &= !(1 << cells[index - width]);
    }
    mask
}

/// Picks one colour of the non-empty mask `candidates`: uniformly, or by [`weight`].
#[inline]
fn pick<R: Rng + ?Sized>(
    candidates: u32,
    palette: Palette,
    counts: &[u16; MAX_COLOR as usize + 1],
    rng: &mut R,
) -> u8 {
    match palette {
        Palette::Uniform { .. } => {
            let nth = rng.random_range(0..candidates.count_ones());
            nth_set_bit(candidates, nth)
        }
        Palette::Multiset { .. } => {
            let total: u64 = (1..=MAX_COLOR)
                .filter(|&c| candidates >> c & 1 == 1)
                .map(|c| weight(counts[usize::from(c)]))
                .sum();
            let mut ticket = rng.random_range(0..total);
            for color in 1..=MAX_COLOR {
                if candidates >> color & 1 == 1 {
                    let weight = weight(counts[usize::from(color)]);
                    if ticket < weight {
                        return color;
                    }
                    ticket -= weight;
                }
            }
            unreachable!("ticket below the total weight always lands on a candidate")
        }
    }
}

/// Draw weight of a colour with `count` tiles left (see [`Palette::Multiset`]).
#[inline]
fn weight(count: u16) -> u64 {
    let c = u64::from(count);
    c * c * c
}

#[inline]
fn nth_set_bit(mut mask: u32, nth: u32) -> u8 {
    for _ in 0..nth {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn two_colours_fill_a_large_board_without_runs() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let Arrangement::Found(cells) =
            arrange(64, 64, Palette::Uniform { colors: 2 }, &mut rng, |_| true)
        else {
            panic!("expected an arrangement");
        };
        let board = crate::engine::Board::from_engine_cells(64, 64, cells);
        assert!(crate::engine::is_stable(&board));
    }

    #[test]
    fn exhausts_tiny_impossible_spaces() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut counts = [0; 17];
        counts[1] = 3;
        assert_eq!(
            arrange(3, 1, Palette::Multiset { counts }, &mut rng, |_| true),
            Arrangement::Impossible
        );
    }

    #[test]
    fn multiset_arrangements_keep_the_tiles() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut counts = [0; 17];
        counts[1] = 3;
        counts[2] = 3;
        counts[3] = 3;
        let Arrangement::Found(cells) =
            arrange(3, 3, Palette::Multiset { counts }, &mut rng, |_| true)
        else {
            panic!("expected an arrangement");
        };
        for color in 1..=3 {
            assert_eq!(cells.iter().filter(|&&c| c == color).count(), 3);
        }
    }
}
