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
        // Colours that may still be drawn (bit c = colour c), kept in step with `counts`.
        let mut available = match palette {
            Palette::Uniform { colors } => ((1u32 << (colors + 1)) - 1) & !1,
            Palette::Multiset { .. } => (1..=MAX_COLOR)
                .filter(|&c| counts[usize::from(c)] > 0)
                .fold(0, |mask, c| mask | 1 << c),
        };
        let mut nodes = 0usize;
        let mut rejects = 0usize;
        // Small boards are searched without a reject limit, so that within the node budget an
        // impossible request is usually proved so.
        let max_rejects = if size <= 16 {
            usize::MAX
        } else {
            REJECTS_PER_ATTEMPT
        };
        // `col` is `index % width`, kept in step with `index` (no division per node).
        let (mut index, mut col) = (0usize, 0usize);
        let step_back = |index: &mut usize, col: &mut usize| {
            *index -= 1;
            *col = if *col == 0 { width - 1 } else { *col - 1 };
        };
        tried[0] = 0;
        if let Palette::Uniform { colors } = palette
            && colors >= 3
        {
            // The first descent cannot meet a dead end; take it without the bookkeeping. It
            // leaves the state the loop below would have reached at `index == size`.
            first_descent(&mut cells, &mut tried, width, available, rng);
            (index, col, nodes) = (size, 0, size);
        }
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
                step_back(&mut index, &mut col);
                release(&mut counts, &mut available, palette, cells[index]);
                continue;
            }
            let candidates = allowed_colors(&cells, width, index, col, available) & !tried[index];
            if candidates == 0 {
                if index == 0 {
                    // Every choice at every cell has been tried: nothing passes.
                    return Arrangement::Impossible;
                }
                step_back(&mut index, &mut col);
                release(&mut counts, &mut available, palette, cells[index]);
                continue;
            }
            let color = pick(candidates, palette, &counts, rng);
            tried[index] |= 1 << color;
            cells[index] = color;
            if let Palette::Multiset { .. } = palette {
                counts[usize::from(color)] -= 1;
                if counts[usize::from(color)] == 0 {
                    available &= !(1 << color);
                }
            }
            index += 1;
            col = if col + 1 == width { 0 } else { col + 1 };
            if index < size {
                tried[index] = 0;
            }
        }
    }
    Arrangement::GaveUp
}

/// The first descent of a uniform palette of 3 or more colours, which never meets a dead end
/// (a cell loses at most two colours, one to its left neighbours and one to its upper ones):
/// the same choices and draws as [`arrange`]'s loop, with the last two colours of the row in
/// registers. Fills every cell and marks its colour tried.
#[inline(always)]
fn first_descent<R: Rng + ?Sized>(
    cells: &mut [u8],
    tried: &mut [u32],
    width: usize,
    available: u32,
    rng: &mut R,
) {
    for row_start in (0..cells.len()).step_by(width) {
        // Colour 0 (empty) is never available, so two empty left neighbours forbid nothing.
        let (mut left2, mut left1) = (0u8, 0u8);
        for index in row_start..row_start + width {
            let mut candidates = available;
            if left1 == left2 {
                candidates &= !(1 << left1);
            }
            if index >= 2 * width {
                let up1 = cells[index - width];
                if up1 == cells[index - 2 * width] {
                    candidates &= !(1 << up1);
                }
            }
            let color = nth_set_bit(candidates, rng.random_range(0..candidates.count_ones()));
            cells[index] = color;
            tried[index] = 1 << color;
            (left2, left1) = (left1, color);
        }
    }
}

/// Puts a multiset tile of `color` back (nothing for a uniform palette).
#[inline(always)]
fn release(
    counts: &mut [u16; MAX_COLOR as usize + 1],
    available: &mut u32,
    palette: Palette,
    color: u8,
) {
    if let Palette::Multiset { .. } = palette {
        counts[usize::from(color)] += 1;
        *available |= 1 << color;
    }
}

/// Colours (as a bit mask, bit c = colour c) among `available` that cell `index` (in column
/// `col`) may take without completing a run with the cells already placed to its left and
/// above.
#[inline(always)]
fn allowed_colors(cells: &[u8], width: usize, index: usize, col: usize, available: u32) -> u32 {
    let mut mask = available;
    if col >= 2 && cells[index - 1] == cells[index - 2] {
        mask &= !(1 << cells[index - 1]);
    }
    if index >= 2 * width && cells[index - width] == cells[index - 2 * width] {
        mask &= !(1 << cells[index - width]);
    }
    mask
}

/// Picks one colour of the non-empty mask `candidates`: uniformly, or by [`weight`].
#[inline(always)]
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

/// Local-repair search (min-conflicts) for a stable permutation of `tiles` for which
/// `accept(cells)` holds: the fallback of shuffle when the row-major search gives up, which
/// happens for dense multisets (two colours near half and half, one colour near 2/3).
///
/// Starts from [`lattice_start`]; repeatedly takes a random cell that lies in a run and
/// exchanges it with the best of a few random cells of another colour, judged by the change in
/// the number of monochrome 3-cell lines (sideways moves allowed). A run-free arrangement that
/// fails `accept` is perturbed and repaired again. Each of the six [`Lattice`] starts gets at
/// most `16 * cells + 5_000` exchanges, so the work is bounded.
pub(crate) fn arrange_by_repair<R: Rng + ?Sized>(
    width: usize,
    height: usize,
    tiles: &[u8],
    rng: &mut R,
    mut accept: impl FnMut(&[u8]) -> bool,
) -> Option<Vec<u8>> {
    // Six lattices `(row + slope * col + offset) % 3 != 0`, largest first: on small boards
    // they differ in size, and a colour near the limit fits only the largest ones.
    let mut lattices: Vec<Lattice> = (1..=2)
        .flat_map(|slope| (0..3).map(move |offset| Lattice { slope, offset }))
        .collect();
    lattices.sort_by_key(|lattice| std::cmp::Reverse(lattice.size(width, height)));
    let steps = 16 * tiles.len() + 5_000;
    lattices.into_iter().find_map(|lattice| {
        repair(
            width,
            height,
            lattice_start(width, tiles, lattice, rng),
            steps,
            rng,
            &mut accept,
        )
    })
}

/// The cells `(row + slope * col + offset) % 3 != 0`: two of every three cells of each row and
/// column, with no three in a line, so one colour fills it without a run.
#[derive(Clone, Copy, Debug)]
struct Lattice {
    slope: usize,
    offset: usize,
}

impl Lattice {
    fn contains(self, width: usize, index: usize) -> bool {
        !(index / width + self.slope * (index % width) + self.offset).is_multiple_of(3)
    }

    fn size(self, width: usize, height: usize) -> usize {
        (0..width * height)
            .filter(|&i| self.contains(width, i))
            .count()
    }
}

/// Min-conflicts repair of `cells` for at most `steps` exchanges (see [`arrange_by_repair`]).
fn repair<R: Rng + ?Sized>(
    width: usize,
    height: usize,
    mut cells: Vec<u8>,
    steps: usize,
    rng: &mut R,
    accept: &mut impl FnMut(&[u8]) -> bool,
) -> Option<Vec<u8>> {
    let size = cells.len();
    let grid = Grid { width, height };
    let mut conflicted: Vec<usize> = Vec::new();
    for _ in 0..steps {
        if conflicted.is_empty() {
            conflicted.extend((0..size).filter(|&p| grid.lines_through(&cells, p) > 0));
            if conflicted.is_empty() {
                if accept(&cells) {
                    return Some(cells);
                }
                // Run-free but rejected: disturb it and repair again.
                let (p, q) = (rng.random_range(0..size), rng.random_range(0..size));
                cells.swap(p, q);
                conflicted.extend([p, q]);
                continue;
            }
        }
        let p = conflicted.swap_remove(rng.random_range(0..conflicted.len()));
        if grid.lines_through(&cells, p) == 0 {
            continue;
        }
        let mut best: Option<(i32, usize)> = None;
        for _ in 0..16 {
            let q = rng.random_range(0..size);
            if cells[q] == cells[p] {
                continue;
            }
            let delta = grid.swap_delta(&mut cells, p, q);
            if best.is_none_or(|(d, _)| delta < d) {
                best = Some((delta, q));
            }
        }
        match best {
            Some((delta, q)) if delta <= 0 => {
                cells.swap(p, q);
                for cell in [p, q] {
                    if grid.lines_through(&cells, cell) > 0 {
                        conflicted.push(cell);
                    }
                }
            }
            _ => conflicted.push(p),
        }
    }
    None
}

/// A random permutation of `tiles` that puts the most frequent colour on the cells of `shape`
/// first. A lattice alone has no run (every line reads `XX.XX.`) and holds about 2/3 of the
/// board, the densest run-free share any colour can have, so the repair search starts close to
/// a solution even for a colour near that limit.
fn lattice_start<R: Rng + ?Sized>(
    width: usize,
    tiles: &[u8],
    shape: Lattice,
    rng: &mut R,
) -> Vec<u8> {
    use rand::seq::SliceRandom;
    let mut counts = [0usize; MAX_COLOR as usize + 1];
    for &tile in tiles {
        counts[usize::from(tile)] += 1;
    }
    let dominant = (1..=MAX_COLOR)
        .max_by_key(|&c| counts[usize::from(c)])
        .unwrap_or(1);
    let (mut lattice, mut rest): (Vec<usize>, Vec<usize>) =
        (0..tiles.len()).partition(|&i| shape.contains(width, i));
    lattice.shuffle(rng);
    let placed = counts[usize::from(dominant)].min(lattice.len());
    let mut cells = vec![0u8; tiles.len()];
    for &i in &lattice[..placed] {
        cells[i] = dominant;
    }
    rest.extend_from_slice(&lattice[placed..]);
    let mut others: Vec<u8> = tiles.to_vec();
    others.sort_unstable_by_key(|&t| t != dominant); // dominant first, to drop `placed` of them
    let mut others = others.split_off(placed);
    others.shuffle(rng);
    for (i, tile) in rest.into_iter().zip(others) {
        cells[i] = tile;
    }
    cells
}

/// Board geometry for counting monochrome 3-cell lines (the windows that make runs).
#[derive(Clone, Copy)]
struct Grid {
    width: usize,
    height: usize,
}

impl Grid {
    /// Starts of the horizontal and vertical 3-cell windows containing `index`, as
    /// `(start, step)` with step 1 (horizontal) or `width` (vertical).
    fn windows(self, index: usize, out: &mut [(usize, usize); 6]) -> usize {
        let (row, col) = (index / self.width, index % self.width);
        let mut n = 0;
        for start_col in col.saturating_sub(2)..=col {
            if start_col + 2 < self.width {
                out[n] = (row * self.width + start_col, 1);
                n += 1;
            }
        }
        for start_row in row.saturating_sub(2)..=row {
            if start_row + 2 < self.height {
                out[n] = (start_row * self.width + col, self.width);
                n += 1;
            }
        }
        n
    }

    fn monochrome(cells: &[u8], (start, step): (usize, usize)) -> bool {
        cells[start] == cells[start + step] && cells[start] == cells[start + 2 * step]
    }

    /// Number of monochrome windows containing `index`.
    fn lines_through(self, cells: &[u8], index: usize) -> usize {
        let mut windows = [(0, 0); 6];
        let n = self.windows(index, &mut windows);
        windows[..n]
            .iter()
            .filter(|&&w| Self::monochrome(cells, w))
            .count()
    }

    /// Change in the number of monochrome windows if cells `p` and `q` were exchanged.
    fn swap_delta(self, cells: &mut [u8], p: usize, q: usize) -> i32 {
        let (mut around_p, mut around_q) = ([(0, 0); 6], [(0, 0); 6]);
        let n = self.windows(p, &mut around_p);
        let m = self.windows(q, &mut around_q);
        let around_p = &around_p[..n];
        // Windows through q that also pass through p are counted once.
        let only_q: Vec<(usize, usize)> = around_q[..m]
            .iter()
            .copied()
            .filter(|w| !around_p.contains(w))
            .collect();
        let count = |cells: &[u8]| {
            around_p
                .iter()
                .chain(&only_q)
                .filter(|&&w| Self::monochrome(cells, w))
                .count() as i32
        };
        let before = count(cells);
        cells.swap(p, q);
        let after = count(cells);
        cells.swap(p, q);
        after - before
    }
}

/// Draw weight of a colour with `count` tiles left (see [`Palette::Multiset`]).
#[inline]
fn weight(count: u16) -> u64 {
    let c = u64::from(count);
    c * c * c
}

/// The position of the `nth` (0-based) set bit of `mask`, which has more than `nth` set bits.
/// Byte by byte: skip whole bytes by their popcount, then look the bit up in
/// [`NTH_SET_BIT_IN_BYTE`]. With up to eight colours every pick ends in the first byte, so the
/// branches are predictable.
#[inline]
fn nth_set_bit(mask: u32, nth: u32) -> u8 {
    let (mut mask, mut nth, mut base) = (mask, nth, 0u8);
    loop {
        let byte = (mask & 0xff) as usize;
        let count = byte.count_ones();
        if nth < count {
            return base + NTH_SET_BIT_IN_BYTE[byte][nth as usize];
        }
        nth -= count;
        mask >>= 8;
        base += 8;
    }
}

/// `NTH_SET_BIT_IN_BYTE[b][n]`: the position of the `n`th (0-based) set bit of byte `b` (0
/// where `b` has no such bit).
static NTH_SET_BIT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[0u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let (mut bit, mut rank) = (0, 0);
        while bit < 8 {
            if byte >> bit & 1 == 1 {
                table[byte][rank] = bit as u8;
                rank += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nth_set_bit_finds_every_set_bit_of_every_colour_mask() {
        // Every mask over colours 0..=16 and every rank: the set bits, lowest first.
        for mask in 1u32..1 << 17 {
            let positions: Vec<u8> = (0..17).filter(|&b| mask >> b & 1 == 1).collect();
            for (nth, &position) in positions.iter().enumerate() {
                assert_eq!(
                    nth_set_bit(mask, nth as u32),
                    position,
                    "mask {mask:#b} nth {nth}"
                );
            }
        }
    }
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
        let board = crate::Board::from_engine_cells(64, 64, cells);
        assert!(crate::stable::is_stable(&board));
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
