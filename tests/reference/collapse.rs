//! The collapse family, naively (docs/rules.md section 3): groups by flood fill, a tap as
//! clear, gravity and rebuilding the board from its non-empty columns, and the scoring table.

use super::{Cell, Grid, flood, gravity};

/// The 4-connected one-colour group of the non-empty cell `start`, row-major.
pub fn component(g: &Grid, start: Cell) -> Vec<Cell> {
    let first = g.index(start);
    let color = g.cells[first];
    assert_ne!(color, 0, "component of an empty cell");
    let mut seen = vec![false; g.cells.len()];
    flood(g, first, &mut seen, |j| g.cells[j] == color)
        .into_iter()
        .map(|i| g.cell(i))
        .collect()
}

/// Every group as `(first cell, colour, size)`, ordered by first cell row-major.
pub fn components(g: &Grid) -> Vec<(Cell, u32, usize)> {
    let mut seen = vec![false; g.cells.len()];
    let mut out = Vec::new();
    for i in 0..g.cells.len() {
        if g.cells[i] == 0 || seen[i] {
            continue;
        }
        let color = g.cells[i];
        let members = flood(g, i, &mut seen, |j| g.cells[j] == color);
        out.push((g.cell(members[0]), color, members.len()));
    }
    out
}

/// The groups of at least `min_group` cells, as [`components`].
pub fn legal_groups(g: &Grid, min_group: usize) -> Vec<(Cell, u32, usize)> {
    components(g)
        .into_iter()
        .filter(|&(_, _, n)| n >= min_group)
        .collect()
}

/// Game over: no legal group remains.
pub fn is_game_over(g: &Grid, min_group: usize) -> bool {
    legal_groups(g, min_group).is_empty()
}

/// Removes the empty columns, sliding the others left in order and filling in empty columns on
/// the right; returns the grid and the moved columns `(from_col, to_col)` ordered by `from_col`.
pub fn close_columns(g: &Grid) -> (Grid, Vec<(u32, u32)>) {
    let kept: Vec<usize> = (0..g.w).filter(|&c| !g.column_empty(c)).collect();
    let mut out = Grid::empty(g.w, g.h);
    let mut shifts = Vec::new();
    for (to, &from) in kept.iter().enumerate() {
        for r in 0..g.h {
            out.cells[r * g.w + to] = g.at(r, from);
        }
        if to != from {
            shifts.push((from as u32, to as u32));
        }
    }
    (out, shifts)
}

/// Gravity, then closed columns: a settled grid with the same tiles.
pub fn settle(g: &Grid) -> Grid {
    close_columns(&gravity(g).0).0
}

/// Why a grid is not settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsettled {
    /// A tile with an empty cell below it.
    FloatingTile(Cell),
    /// An empty column with a non-empty column to its right.
    GapColumn(u32),
}

/// The first reason `g` is not settled: the first floating tile row-major, else the leftmost
/// gap column.
pub fn unsettled(g: &Grid) -> Option<Unsettled> {
    for r in 0..g.h.saturating_sub(1) {
        for c in 0..g.w {
            if g.at(r, c) != 0 && g.at(r + 1, c) == 0 {
                return Some(Unsettled::FloatingTile((r as u32, c as u32)));
            }
        }
    }
    (0..g.w)
        .find(|&c| g.column_empty(c) && (c + 1..g.w).any(|d| !g.column_empty(d)))
        .map(|c| Unsettled::GapColumn(c as u32))
}

/// What tapping a group does to the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tap {
    /// The group, row-major.
    pub cleared: Vec<Cell>,
    pub color: u32,
    /// `(from, to)` of the tiles gravity moved, positions before the column collapse.
    pub falls: Vec<(Cell, Cell)>,
    /// `(from_col, to_col)` of the non-empty columns that moved.
    pub shifts: Vec<(u32, u32)>,
    pub board: Grid,
}

/// Clears the group of the non-empty cell `start` (whatever its size), applies gravity, then
/// closes the empty columns.
pub fn tap(g: &Grid, start: Cell) -> Tap {
    let cleared = component(g, start);
    let (fallen, falls) = gravity(&g.cleared(&cleared));
    let (board, shifts) = close_columns(&fallen);
    Tap {
        cleared,
        color: g.get(start),
        falls,
        shifts,
        board,
    }
}

/// The scoring rules of docs/rules.md section 3.
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

    /// The score of a move clearing `n` tiles.
    pub fn move_score(self, n: u64) -> u64 {
        match self {
            Rule::PopStar => 5 * n * n,
            Rule::SameGame => (n - 2) * (n - 2),
            Rule::Clickomania => n,
            Rule::BubbleBreaker => n * (n - 1),
        }
    }

    /// The adjustment at game over with `k` tiles left.
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
