//! The swap family, naively (docs/rules.md section 2): runs by scanning every row and column
//! cell by cell, groups by flood fill over matched cells, swaps judged by exchanging the tiles
//! on a copy, and the cascade replayed step by step.

use super::{Cell, Grid, flood, gravity};

/// Marks the cells of every maximal run (3+ equal non-empty cells) along `line` (row-major
/// indices in order).
fn mark_runs(g: &Grid, line: &[usize], matched: &mut [bool]) {
    let mut start = 0;
    while start < line.len() {
        let v = g.cells[line[start]];
        let mut end = start + 1;
        while end < line.len() && g.cells[line[end]] == v {
            end += 1;
        }
        if v != 0 && end - start >= 3 {
            for &i in &line[start..end] {
                matched[i] = true;
            }
        }
        start = end;
    }
}

/// Matched cells as row-major flags: the cells of every horizontal or vertical run.
pub fn matched(g: &Grid) -> Vec<bool> {
    let mut flags = vec![false; g.cells.len()];
    for r in 0..g.h {
        let row: Vec<usize> = (0..g.w).map(|c| r * g.w + c).collect();
        mark_runs(g, &row, &mut flags);
    }
    for c in 0..g.w {
        let column: Vec<usize> = (0..g.h).map(|r| r * g.w + c).collect();
        mark_runs(g, &column, &mut flags);
    }
    flags
}

/// Matched cells, row-major.
pub fn matched_cells(g: &Grid) -> Vec<Cell> {
    let flags = matched(g);
    (0..flags.len())
        .filter(|&i| flags[i])
        .map(|i| g.cell(i))
        .collect()
}

pub fn has_run(g: &Grid) -> bool {
    matched(g).contains(&true)
}

/// Stable: no run and no empty cell.
pub fn is_stable(g: &Grid) -> bool {
    !g.has_empty() && !has_run(g)
}

/// Groups: 4-connected one-colour sets of matched cells, as `(colour, cells)`, ordered by first
/// cell, each group's cells row-major.
pub fn groups(g: &Grid) -> Vec<(u32, Vec<Cell>)> {
    let flags = matched(g);
    let mut seen = vec![false; g.cells.len()];
    let mut out = Vec::new();
    for start in 0..g.cells.len() {
        if !flags[start] || seen[start] {
            continue;
        }
        let color = g.cells[start];
        let members = flood(g, start, &mut seen, |j| flags[j] && g.cells[j] == color);
        out.push((color, members.into_iter().map(|i| g.cell(i)).collect()));
    }
    out
}

/// Whether the tile at `cell` would be matched if the cells were `value(row, col)`: the line of
/// its colour through it, horizontal or vertical, is at least 3 long.
fn in_run_by(g: &Grid, (row, col): Cell, value: impl Fn(usize, usize) -> u32) -> bool {
    let (r, c) = (row as usize, col as usize);
    let v = value(r, c);
    if v == 0 {
        return false;
    }
    let left = (0..c).rev().take_while(|&x| value(r, x) == v).count();
    let right = (c + 1..g.w).take_while(|&x| value(r, x) == v).count();
    let up = (0..r).rev().take_while(|&y| value(y, c) == v).count();
    let down = (r + 1..g.h).take_while(|&y| value(y, c) == v).count();
    left + right + 1 >= 3 || up + down + 1 >= 3
}

/// Whether the tile at `cell` is matched: the line of its colour through it, horizontal or
/// vertical, is at least 3 long.
pub fn in_run(g: &Grid, cell: Cell) -> bool {
    in_run_by(g, cell, |r, c| g.at(r, c))
}

/// The verdict on a swap, checked in the rules' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    OutOfBounds,
    NotAdjacent,
    EmptyCell,
    NoMatch,
}

/// Judges the swap `(a, b)`: positions may be anything, on the grid or not.
pub fn verdict(g: &Grid, a: Cell, b: Cell) -> Verdict {
    if !g.contains(a) || !g.contains(b) {
        return Verdict::OutOfBounds;
    }
    if u64::from(a.0.abs_diff(b.0)) + u64::from(a.1.abs_diff(b.1)) != 1 {
        return Verdict::NotAdjacent;
    }
    if g.get(a) == 0 || g.get(b) == 0 {
        return Verdict::EmptyCell;
    }
    // The board after the exchange, read through the exchange rather than copied.
    let after = |r: usize, c: usize| {
        let here = (r as u32, c as u32);
        if here == a {
            g.get(b)
        } else if here == b {
            g.get(a)
        } else {
            g.at(r, c)
        }
    };
    if in_run_by(g, a, after) || in_run_by(g, b, after) {
        Verdict::Ok
    } else {
        Verdict::NoMatch
    }
}

/// Whether the swap of the adjacent cells `a` and `b` is valid.
pub fn swap_is_valid(g: &Grid, a: Cell, b: Cell) -> bool {
    verdict(g, a, b) == Verdict::Ok
}

/// Every valid swap once, `(a, b)` with `b` the right or lower neighbour of `a`, sorted by `a`
/// then `b`.
pub fn valid_swaps(g: &Grid) -> Vec<(Cell, Cell)> {
    let mut out = Vec::new();
    for i in 0..g.cells.len() {
        let a = g.cell(i);
        for b in [(a.0, a.1 + 1), (a.0 + 1, a.1)] {
            if g.contains(b) && swap_is_valid(g, a, b) {
                out.push((a, b));
            }
        }
    }
    out
}

/// The score of a group of `n` tiles cleared in step `k`.
pub fn group_score(n: usize, k: u32) -> u64 {
    10 * n as u64 * u64::from(k)
}

/// No tile sits directly above an empty cell.
pub fn columns_settled(g: &Grid) -> bool {
    (0..g.h.saturating_sub(1)).all(|r| (0..g.w).all(|c| g.at(r, c) == 0 || g.at(r + 1, c) != 0))
}

// ---------------------------------------------------------------------------------------------
// Cascade
// ---------------------------------------------------------------------------------------------

/// How the reference refills empty cells.
#[derive(Clone, Copy, Debug)]
pub enum Refill<'a> {
    /// Empty cells stay empty.
    None,
    /// The colours drawn, step by step: step `k` (counted from 1) fills its empty cells
    /// row-major with `colors[k - 1]`, in order. The reference cannot draw from the engine's
    /// RNG, so a test replays the colours the engine reported; if a step has fewer colours than
    /// empty cells, the rest stay empty (and the spawns differ from the engine's).
    Drawn(&'a [Vec<u32>]),
}

/// One reference cascade step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub index: u32,
    pub groups: Vec<(u32, Vec<Cell>)>,
    pub falls: Vec<(Cell, Cell)>,
    pub spawns: Vec<(Cell, u32)>,
    pub score: u64,
    pub board: Grid,
}

/// The cascade needed more than `max_steps` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepLimit;

fn refill(g: &mut Grid, index: u32, refill: Refill<'_>) -> Vec<(Cell, u32)> {
    match refill {
        Refill::None => Vec::new(),
        Refill::Drawn(colors) => {
            let drawn = colors.get(index as usize - 1).map_or(&[][..], |c| &c[..]);
            let holes = g.empty_cells();
            let spawns: Vec<(Cell, u32)> = holes.into_iter().zip(drawn.iter().copied()).collect();
            for &(cell, color) in &spawns {
                let i = g.index(cell);
                g.cells[i] = color;
            }
            spawns
        }
    }
}

/// The cascade from `start` (the board after the swap, if there was one). Without a swap
/// (`settle_first`), a board with empty cells is settled first: gravity and refill without
/// clearing, as step 1 with no groups, when that changes anything. Then each step clears every
/// group at once, applies gravity and refills, while the board has a run.
pub fn cascade(
    start: &Grid,
    settle_first: bool,
    fill: Refill<'_>,
    max_steps: usize,
) -> Result<Vec<Step>, StepLimit> {
    let mut steps = Vec::new();
    let mut board = start.clone();
    if settle_first && board.has_empty() {
        let (mut fallen, falls) = gravity(&board);
        let spawns = refill(&mut fallen, 1, fill);
        if !falls.is_empty() || !spawns.is_empty() {
            board = fallen;
            steps.push(Step {
                index: 1,
                groups: Vec::new(),
                falls,
                spawns,
                score: 0,
                board: board.clone(),
            });
        }
    }
    loop {
        let groups = groups(&board);
        if groups.is_empty() {
            return Ok(steps);
        }
        if steps.len() == max_steps {
            return Err(StepLimit);
        }
        let index = steps.len() as u32 + 1;
        let all: Vec<Cell> = groups.iter().flat_map(|(_, c)| c.clone()).collect();
        let score = groups
            .iter()
            .map(|(_, c)| group_score(c.len(), index))
            .sum();
        let (mut fallen, falls) = gravity(&board.cleared(&all));
        let spawns = refill(&mut fallen, index, fill);
        board = fallen;
        steps.push(Step {
            index,
            groups,
            falls,
            spawns,
            score,
            board: board.clone(),
        });
    }
}
