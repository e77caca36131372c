//! Shuffle (docs/rules.md section 2): a permutation of the board's tiles (same multiset of colours) that
//! is stable and has at least one valid swap, chosen by the seed.

use rand::Rng;

use super::arrange::{Arrangement, Palette, arrange, arrange_by_repair};
use super::board::{Board, EMPTY, MAX_COLOR};
use super::error::EngineError;
use super::moves::has_valid_swaps;
use super::stable::StablePlain;

/// Permutes the tiles of a full `board` into a stable board with at least one valid swap.
///
/// A colour over the run-free capacity (about 2/3 of the board, see `run_free_capacity`) is
/// refused at once. Otherwise a
/// bounded row-major search (colours drawn by the cube of their remaining count) runs, then,
/// if it gives up or one colour covers more than half of the board, a min-conflicts repair
/// search restarted from six 2/3 lattices. Small boards (up to 16 cells) are searched without a
/// limit on rejected arrangements, so the search usually proves "none exists" there. Work is
/// bounded: at most ~0.2 s on 64x64.
///
/// # Errors
/// [`EngineError::BoardNotFull`] when a cell is empty; [`EngineError::NoShuffleExists`] when no
/// permutation qualifies (`proven`: both sides below 3, no colour with three tiles, a colour
/// over the run-free capacity, or the search space exhausted) or none is found within the
/// bounded search (not `proven`).
pub(crate) fn shuffle<R: Rng + ?Sized>(
    board: &Board,
    rng: &mut R,
) -> Result<StablePlain, EngineError> {
    if board.has_empty_cell() {
        let empty_cells = (0..board.cells().len())
            .filter(|&i| board.at(i) == EMPTY)
            .map(|i| board.position_of(i))
            .collect();
        return Err(EngineError::BoardNotFull { empty_cells });
    }
    let (width, height) = (board.width(), board.height());
    const PROVEN: EngineError = EngineError::NoShuffleExists { proven: true };
    if width < 3 && height < 3 {
        return Err(PROVEN);
    }
    let color_counts = board.color_counts();
    let dominant = color_counts[1..].iter().copied().max().unwrap_or(0);
    // A valid swap lines up three tiles of one colour; a colour over the run-free capacity
    // cannot be placed without a run.
    if dominant < 3 || dominant > run_free_capacity(width, height) {
        return Err(PROVEN);
    }
    let size = width * height;
    let playable = |cells: &[u8]| has_valid_swaps(cells, width, height, 1);
    // The row-major search is exact on small boards and fast on balanced ones; a colour on more
    // than half of a larger board strands it, so such boards go straight to the repair search.
    if size <= 16 || dominant * 2 <= size {
        let mut counts = [0u16; MAX_COLOR as usize + 1];
        for (color, &count) in color_counts.iter().enumerate() {
            counts[color] = count as u16; // at most 4096 cells
        }
        match arrange(width, height, Palette::Multiset { counts }, rng, playable) {
            Arrangement::Found(cells) => return Ok(stable(width, height, cells)),
            Arrangement::Impossible => return Err(PROVEN),
            Arrangement::GaveUp => {}
        }
    }
    arrange_by_repair(width, height, board.cells(), rng, playable)
        .map(|cells| stable(width, height, cells))
        .ok_or(EngineError::NoShuffleExists { proven: false })
}

/// Wraps cells the searches produced (stable by construction).
fn stable(width: usize, height: usize, cells: Vec<u8>) -> StablePlain {
    StablePlain::new_unchecked(Board::from_engine_cells(width, height, cells))
}

/// An upper bound on how many cells of one colour a run-free `width x height` board can hold.
/// A line of `n` cells holds at most `n - n / 3` of one colour without three in a row; and any
/// three consecutive rows hold at most two per column, so at most `2 * width`. The board is
/// cut into strips of three rows (each under the smaller of the two bounds) plus one or two
/// rows left over, and the same is done by columns; the smaller total is the bound. On 64x64
/// it is 2,731 cells (the per-line bound alone allows 2,752, and refusing between the two
/// needed a search of a few hundred milliseconds).
fn run_free_capacity(width: usize, height: usize) -> usize {
    fn by_rows(width: usize, height: usize) -> usize {
        let line = width - width / 3;
        let strip = (2 * width).min(3 * line);
        (height / 3) * strip + (height % 3) * line
    }
    by_rows(width, height).min(by_rows(height, width))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::count_valid_swaps;
    use crate::stable::is_stable;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn spec_example_dead_board_has_a_shuffle() {
        let board = Board::parse("RGB/GBR/BRG").unwrap();
        let shuffled = shuffle(&board, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
        assert!(is_stable(shuffled.board()));
        assert!(count_valid_swaps(&shuffled) >= 1);
        assert_eq!(shuffled.board().color_counts(), board.color_counts());
    }

    fn board_with_counts(width: u32, height: u32, counts: &[usize]) -> Board {
        let cells: Vec<u32> = counts
            .iter()
            .zip(1u32..)
            .flat_map(|(&n, color)| std::iter::repeat_n(color, n))
            .collect();
        Board::from_raw(width, height, &cells).unwrap()
    }

    #[test]
    fn dense_multisets_are_shuffled() {
        // 61% of one colour, and the 2/3 maximum any run-free board can hold.
        for (width, height, counts) in [
            (16, 16, vec![156, 100]),
            (12, 12, vec![96, 24, 24]),
            (9, 9, vec![41, 40]),
        ] {
            let board = board_with_counts(width, height, &counts);
            for seed in 0..3 {
                let shuffled = shuffle(&board, &mut ChaCha8Rng::seed_from_u64(seed))
                    .unwrap_or_else(|e| panic!("{counts:?} seed {seed}: {e}"));
                assert!(is_stable(shuffled.board()));
                assert!(count_valid_swaps(&shuffled) >= 1);
                assert_eq!(shuffled.board().color_counts(), board.color_counts());
            }
        }
    }

    #[test]
    fn boards_just_under_the_density_limit_shuffle_for_every_seed() {
        // 22 of 32 tiles red (and 24 of 35): at the edge of what a run-free board can hold.
        for text in [
            "RRRR/RGRR/YRRR/YRBR/BRRR/GRRR/RYRR/GRGY",
            "RRRRB/YRBRR/RRGRR/BRYRB/RRRGR/BRRRR/RRRGG",
        ] {
            let board = Board::parse(text).unwrap();
            for seed in 0..200 {
                let shuffled = shuffle(&board, &mut ChaCha8Rng::seed_from_u64(seed))
                    .unwrap_or_else(|e| panic!("{text} seed {seed}: {e}"));
                assert!(is_stable(shuffled.board()));
                assert_eq!(shuffled.board().color_counts(), board.color_counts());
            }
        }
    }

    #[test]
    fn run_free_capacity_is_two_thirds_of_each_line() {
        assert_eq!(run_free_capacity(3, 1), 2);
        assert_eq!(run_free_capacity(9, 9), 54);
        assert_eq!(run_free_capacity(64, 64), 21 * 128 + 43);
        assert_eq!(run_free_capacity(4, 4), 11);
        assert_eq!(run_free_capacity(4, 1), 3);
        // Over the bound: refused without a search.
        let crowded = board_with_counts(9, 9, &[55, 26]);
        assert_eq!(
            shuffle(&crowded, &mut ChaCha8Rng::seed_from_u64(1)),
            Err(EngineError::NoShuffleExists { proven: true })
        );
    }

    #[test]
    fn refusals_say_whether_they_are_proven() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        // No colour with three tiles: no swap can ever match.
        assert_eq!(
            shuffle(&Board::parse("GGBRPRY").unwrap(), &mut rng),
            Err(EngineError::NoShuffleExists { proven: true })
        );
        // One colour on 2,740 of 4,096 cells: over the 2,731 a run-free 64x64 board holds.
        let crowded = board_with_counts(64, 64, &[2740, 1356]);
        assert_eq!(
            shuffle(&crowded, &mut rng),
            Err(EngineError::NoShuffleExists { proven: true })
        );
        assert_eq!(
            EngineError::NoShuffleExists { proven: true }.to_string(),
            "no stable arrangement of these tiles with a valid swap exists"
        );
        assert!(
            EngineError::NoShuffleExists { proven: false }
                .to_string()
                .contains("within the bounded search")
        );
    }

    #[test]
    fn impossible_shuffles_are_refused() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for text in ["RG/GR", "RRG", "RRRR/RRRR/RRRR", "R/G/R"] {
            assert_eq!(
                shuffle(&Board::parse(text).unwrap(), &mut rng),
                Err(EngineError::NoShuffleExists { proven: true }),
                "{text}"
            );
        }
        assert!(matches!(
            shuffle(&Board::parse("R.G").unwrap(), &mut rng),
            Err(EngineError::BoardNotFull { .. })
        ));
    }
}
