//! Independent reference rules for the API tests (swap_api, collapse_api, errors, golden,
//! samegame_standard), and the standard SameGame positions they play.
//!
//! Written from docs/rules.md alone, deliberately naive (no masks, no shared code with the engine), so
//! that the server's answers are checked against a second implementation rather than against
//! themselves. Boards are `matchgrid::proto::Board` values; positions are `(row, col)` tuples.
#![allow(dead_code)] // each test binary uses a different part of the reference

use matchgrid::proto::{Board, Position};

/// A `(row, col)` pair.
pub type Cell = (u32, u32);

/// The `(row, col)` of a required proto position.
pub fn cell(position: &Option<Position>) -> Cell {
    let p = position.as_ref().expect("position present");
    (p.row, p.col)
}

fn width(board: &Board) -> usize {
    board.width as usize
}

fn height(board: &Board) -> usize {
    board.height as usize
}

/// The `(row, col)` of row-major index `i` on a board `w` cells wide.
fn cell_at(w: usize, i: usize) -> Cell {
    ((i / w) as u32, (i % w) as u32)
}

/// Row-major indices of the 4-neighbours of index `i`: up, down, left, right.
fn neighbours(board: &Board, i: usize) -> Vec<usize> {
    let (w, h) = (width(board), height(board));
    let (r, c) = (i / w, i % w);
    let mut near = Vec::new();
    if r > 0 {
        near.push(i - w);
    }
    if r + 1 < h {
        near.push(i + w);
    }
    if c > 0 {
        near.push(i - 1);
    }
    if c + 1 < w {
        near.push(i + 1);
    }
    near
}

/// The cell value at `(row, col)`.
pub fn at(board: &Board, row: usize, col: usize) -> u32 {
    board.cells[row * width(board) + col]
}

/// Tile counts per colour: entry `c` counts colour `c`, entry 0 the empty cells.
pub fn color_counts(board: &Board) -> [usize; 17] {
    let mut counts = [0; 17];
    for &c in &board.cells {
        counts[c as usize] += 1;
    }
    counts
}

/// Non-empty cells.
pub fn tiles(board: &Board) -> usize {
    board.cells.iter().filter(|&&c| c != 0).count()
}

// ---------------------------------------------------------------------------------------------
// Swap family
// ---------------------------------------------------------------------------------------------

/// Matched cells (row-major flags): cells in a horizontal or vertical line of 3+ of one colour.
pub fn matched(board: &Board) -> Vec<bool> {
    let (w, h) = (width(board), height(board));
    let mut flags = vec![false; w * h];
    for r in 0..h {
        for c in 0..w {
            let v = at(board, r, c);
            if v == 0 {
                continue;
            }
            if c + 2 < w && at(board, r, c + 1) == v && at(board, r, c + 2) == v {
                for k in 0..3 {
                    flags[r * w + c + k] = true;
                }
            }
            if r + 2 < h && at(board, r + 1, c) == v && at(board, r + 2, c) == v {
                for k in 0..3 {
                    flags[(r + k) * w + c] = true;
                }
            }
        }
    }
    flags
}

/// True when the board has no empty cell and no run.
pub fn is_stable(board: &Board) -> bool {
    !board.cells.contains(&0) && !matched(board).contains(&true)
}

/// Groups of matched cells: 4-connected, one colour; ordered by first cell in row-major order,
/// each group's cells in row-major order.
pub fn groups(board: &Board) -> Vec<(u32, Vec<Cell>)> {
    let (w, h) = (width(board), height(board));
    let flags = matched(board);
    let mut seen = vec![false; w * h];
    let mut out = Vec::new();
    for start in 0..w * h {
        if !flags[start] || seen[start] {
            continue;
        }
        let color = board.cells[start];
        let mut members = Vec::new();
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(i) = stack.pop() {
            members.push(i);
            for j in neighbours(board, i) {
                if flags[j] && !seen[j] && board.cells[j] == color {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        members.sort_unstable();
        out.push((color, members.into_iter().map(|i| cell_at(w, i)).collect()));
    }
    out
}

/// The board with the tiles at `a` and `b` exchanged.
pub fn swapped(board: &Board, a: Cell, b: Cell) -> Board {
    let w = width(board);
    let mut out = board.clone();
    out.cells.swap(
        a.0 as usize * w + a.1 as usize,
        b.0 as usize * w + b.1 as usize,
    );
    out
}

/// True when the non-empty cell `(r, c)` lies in a horizontal or vertical line of 3+ cells of
/// its colour.
fn in_run(board: &Board, r: usize, c: usize) -> bool {
    let (w, h) = (width(board), height(board));
    let v = at(board, r, c);
    if v == 0 {
        return false;
    }
    let left = (0..c).rev().take_while(|&x| at(board, r, x) == v).count();
    let right = (c + 1..w).take_while(|&x| at(board, r, x) == v).count();
    let up = (0..r).rev().take_while(|&y| at(board, y, c) == v).count();
    let down = (r + 1..h).take_while(|&y| at(board, y, c) == v).count();
    left + right + 1 >= 3 || up + down + 1 >= 3
}

/// True when swapping the adjacent non-empty cells `a` and `b` leaves `a` or `b` matched.
pub fn swap_is_valid(board: &Board, a: Cell, b: Cell) -> bool {
    let mut scratch = board.clone();
    swap_is_valid_in(&mut scratch, a, b)
}

/// [`swap_is_valid`] on a scratch copy that is swapped, judged and swapped back.
fn swap_is_valid_in(scratch: &mut Board, a: Cell, b: Cell) -> bool {
    let w = width(scratch);
    let ia = a.0 as usize * w + a.1 as usize;
    let ib = b.0 as usize * w + b.1 as usize;
    if scratch.cells[ia] == 0 || scratch.cells[ib] == 0 {
        return false;
    }
    scratch.cells.swap(ia, ib);
    let valid =
        in_run(scratch, a.0 as usize, a.1 as usize) || in_run(scratch, b.0 as usize, b.1 as usize);
    scratch.cells.swap(ia, ib);
    valid
}

/// Every valid swap once, `(a, b)` with `b` the right or lower neighbour of `a`, sorted by `a`
/// then `b` (row-major).
pub fn valid_swaps(board: &Board) -> Vec<(Cell, Cell)> {
    let (w, h) = (width(board) as u32, height(board) as u32);
    let mut scratch = board.clone();
    let mut out = Vec::new();
    for r in 0..h {
        for c in 0..w {
            if c + 1 < w && swap_is_valid_in(&mut scratch, (r, c), (r, c + 1)) {
                out.push(((r, c), (r, c + 1)));
            }
            if r + 1 < h && swap_is_valid_in(&mut scratch, (r, c), (r + 1, c)) {
                out.push(((r, c), (r + 1, c)));
            }
        }
    }
    out
}

/// Gravity in every column (tiles fall toward higher rows keeping their order); returns the new
/// board and the falls `(from, to)` ordered by `from` in row-major order.
pub fn gravity(board: &Board) -> (Board, Vec<(Cell, Cell)>) {
    let (w, h) = (width(board), height(board));
    let mut out = board.clone();
    out.cells.iter_mut().for_each(|c| *c = 0);
    let mut falls = Vec::new();
    for c in 0..w {
        let mut target = h;
        for r in (0..h).rev() {
            let v = at(board, r, c);
            if v == 0 {
                continue;
            }
            target -= 1;
            out.cells[target * w + c] = v;
            if target != r {
                falls.push(((r as u32, c as u32), (target as u32, c as u32)));
            }
        }
    }
    falls.sort_unstable();
    (out, falls)
}

/// The board with the given cells emptied.
pub fn cleared(board: &Board, cells: &[Cell]) -> Board {
    let w = width(board);
    let mut out = board.clone();
    for &(r, c) in cells {
        out.cells[r as usize * w + c as usize] = 0;
    }
    out
}

/// Empty cells in row-major order.
pub fn empty_cells(board: &Board) -> Vec<Cell> {
    let w = width(board);
    (0..board.cells.len())
        .filter(|&i| board.cells[i] == 0)
        .map(|i| cell_at(w, i))
        .collect()
}

/// Matched cells in row-major order.
pub fn matched_cells(board: &Board) -> Vec<Cell> {
    let w = width(board);
    matched(board)
        .iter()
        .enumerate()
        .filter(|(_, m)| **m)
        .map(|(i, _)| cell_at(w, i))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Collapse family
// ---------------------------------------------------------------------------------------------

/// The 4-connected one-colour component of the non-empty cell `start`, row-major.
pub fn component(board: &Board, start: Cell) -> Vec<Cell> {
    let (w, h) = (width(board), height(board));
    let first = start.0 as usize * w + start.1 as usize;
    let color = board.cells[first];
    assert_ne!(color, 0, "component of an empty cell");
    let mut seen = vec![false; w * h];
    seen[first] = true;
    let mut stack = vec![first];
    let mut members = Vec::new();
    while let Some(i) = stack.pop() {
        members.push(i);
        for j in neighbours(board, i) {
            if !seen[j] && board.cells[j] == color {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    members.sort_unstable();
    members.into_iter().map(|i| cell_at(w, i)).collect()
}

/// Every component with at least `min_group` cells as `(first cell, colour, size)`, ordered by
/// first cell in row-major order.
pub fn legal_groups(board: &Board, min_group: usize) -> Vec<(Cell, u32, usize)> {
    let w = width(board);
    let mut seen = vec![false; board.cells.len()];
    let mut out = Vec::new();
    for i in 0..board.cells.len() {
        if board.cells[i] == 0 || seen[i] {
            continue;
        }
        let start = cell_at(w, i);
        let members = component(board, start);
        for &(r, c) in &members {
            seen[r as usize * w + c as usize] = true;
        }
        if members.len() >= min_group {
            out.push((start, board.cells[i], members.len()));
        }
    }
    out
}

/// The result of a reference tap.
#[derive(Debug)]
pub struct TapResult {
    pub cleared: Vec<Cell>,
    pub falls: Vec<(Cell, Cell)>,
    /// `(from_col, to_col)` of the non-empty columns that moved.
    pub shifts: Vec<(u32, u32)>,
    pub board: Board,
}

/// Clears the component of `start`, applies gravity, then closes empty columns to the left.
pub fn collapse_tap(board: &Board, start: Cell) -> TapResult {
    let (w, h) = (width(board), height(board));
    let members = component(board, start);
    let (fallen, falls) = gravity(&cleared(board, &members));
    let mut out = fallen.clone();
    out.cells.iter_mut().for_each(|c| *c = 0);
    let mut shifts = Vec::new();
    let mut target = 0;
    for c in 0..w {
        if (0..h).all(|r| at(&fallen, r, c) == 0) {
            continue;
        }
        for r in 0..h {
            out.cells[r * w + target] = at(&fallen, r, c);
        }
        if target != c {
            shifts.push((c as u32, target as u32));
        }
        target += 1;
    }
    TapResult {
        cleared: members,
        falls,
        shifts,
        board: out,
    }
}

/// Collapse scoring rules as the tests name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    PopStar,
    SameGame,
    Clickomania,
    BubbleBreaker,
}

impl Rule {
    pub const ALL: [Rule; 4] = [
        Rule::PopStar,
        Rule::SameGame,
        Rule::Clickomania,
        Rule::BubbleBreaker,
    ];

    /// The proto enum value.
    pub fn wire(self) -> i32 {
        use matchgrid::proto::ScoringRule;
        match self {
            Rule::PopStar => ScoringRule::Popstar as i32,
            Rule::SameGame => ScoringRule::Samegame as i32,
            Rule::Clickomania => ScoringRule::Clickomania as i32,
            Rule::BubbleBreaker => ScoringRule::BubbleBreaker as i32,
        }
    }

    /// docs/rules.md section 3, per move.
    pub fn move_score(self, n: u64) -> u64 {
        match self {
            Rule::PopStar => 5 * n * n,
            Rule::SameGame => (n - 2) * (n - 2),
            Rule::Clickomania => n,
            Rule::BubbleBreaker => n * (n - 1),
        }
    }

    /// docs/rules.md section 3, at game over with `k` tiles left.
    pub fn end_bonus(self, k: i64) -> i64 {
        match self {
            Rule::PopStar => (2000 - 20 * k * k).max(0),
            Rule::SameGame => {
                if k == 0 {
                    1000
                } else {
                    0
                }
            }
            Rule::Clickomania | Rule::BubbleBreaker => 0,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Standard positions
// ---------------------------------------------------------------------------------------------

/// The 20 standard 15x15, 5-colour SameGame positions of the research literature (data file
/// `data/samegame-standard-20.txt`: 20 blocks of 15 lines of 15 integers
/// `0..=4`, blank lines between). Colour `v` there is `v + 1` here.
pub fn standard_positions() -> Vec<Board> {
    const SIDE: usize = 15;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/samegame-standard-20.txt");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.lines() {
        if line.trim().is_empty() {
            if !blocks.last().unwrap().is_empty() {
                blocks.push(Vec::new());
            }
        } else {
            blocks.last_mut().unwrap().push(line);
        }
    }
    if blocks.last().unwrap().is_empty() {
        blocks.pop();
    }
    assert_eq!(blocks.len(), 20, "the file holds 20 positions");
    blocks
        .iter()
        .enumerate()
        .map(|(b, lines)| {
            assert_eq!(lines.len(), SIDE, "position {} has 15 rows", b + 1);
            let mut cells = Vec::with_capacity(SIDE * SIDE);
            for line in lines {
                let row: Vec<u32> = line
                    .split_whitespace()
                    .map(|v| v.parse::<u32>().unwrap())
                    .collect();
                assert_eq!(row.len(), SIDE, "position {} has 15 columns", b + 1);
                assert!(row.iter().all(|&v| v <= 4), "values are 0..=4");
                cells.extend(row.iter().map(|&v| v + 1));
            }
            Board {
                width: SIDE as u32,
                height: SIDE as u32,
                cells,
            }
        })
        .collect()
}
