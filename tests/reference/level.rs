//! Level boards, naively (docs/rules.md section 6): holes and special pieces.
//!
//! Written from the rules alone, with no code shared with the engine: lines scanned cell by
//! cell with holes as breaks, groups by a breadth-first search, firing with an explicit queue
//! over sets, columns rebuilt slot by slot. Kinds are the wire numbers (0 or 1 NORMAL, 2
//! STRIPED_H, 3 STRIPED_V, 4 WRAPPED, 5 COLOR_BOMB).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::Cell;

pub const NORMAL: u32 = 0;
pub const STRIPED_H: u32 = 2;
pub const STRIPED_V: u32 = 3;
pub const WRAPPED: u32 = 4;
pub const BOMB: u32 = 5;

/// A level: colours (0 for empty, hole or bomb), hole flags and kinds, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    pub w: usize,
    pub h: usize,
    pub cells: Vec<u32>,
    pub holes: Vec<bool>,
    pub kinds: Vec<u32>,
}

/// A verdict, in the rules' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    OutOfBounds,
    Hole,
    NotAdjacent,
    EmptyCell,
    NoMatch,
}

/// Combinations by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combo {
    BombNormal,
    BombStriped,
    BombWrapped,
    BombBomb,
    StripedStriped,
    StripedWrapped,
    WrappedWrapped,
}

/// One step, as the naive model reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub groups: Vec<(u32, Vec<Cell>)>,
    pub fired: Vec<(Cell, u32)>,
    pub created: Vec<(Cell, u32, u32)>,
    pub effect_cleared: Vec<Cell>,
    pub falls: Vec<(Cell, Cell)>,
    pub spawns: Vec<(Cell, u32)>,
    pub score: u64,
}

fn special(kind: u32) -> bool {
    kind >= 2
}

fn striped(kind: u32) -> bool {
    kind == STRIPED_H || kind == STRIPED_V
}

impl Level {
    pub fn cell(&self, i: usize) -> Cell {
        ((i / self.w) as u32, (i % self.w) as u32)
    }

    fn at(&self, r: usize, c: usize) -> usize {
        r * self.w + c
    }

    pub fn is_tile(&self, i: usize) -> bool {
        !self.holes[i] && (self.cells[i] != 0 || self.kinds[i] == BOMB)
    }

    pub fn has_empty(&self) -> bool {
        (0..self.cells.len()).any(|i| !self.holes[i] && !self.is_tile(i))
    }

    /// Every maximal run as (cells, horizontal).
    pub fn runs(&self) -> Vec<(Vec<usize>, bool)> {
        let mut out = Vec::new();
        let mut lines: Vec<(Vec<usize>, bool)> = Vec::new();
        for r in 0..self.h {
            lines.push(((0..self.w).map(|c| self.at(r, c)).collect(), true));
        }
        for c in 0..self.w {
            lines.push(((0..self.h).map(|r| self.at(r, c)).collect(), false));
        }
        for (line, horizontal) in lines {
            let mut current: Vec<usize> = Vec::new();
            let mut flush = |current: &mut Vec<usize>| {
                if current.len() >= 3 {
                    out.push((current.clone(), horizontal));
                }
                current.clear();
            };
            for &i in &line {
                let color = if self.holes[i] { 0 } else { self.cells[i] };
                if color == 0 {
                    flush(&mut current);
                    continue;
                }
                if current
                    .last()
                    .is_some_and(|&last| self.cells[last] != color)
                {
                    flush(&mut current);
                }
                current.push(i);
            }
            flush(&mut current);
        }
        out
    }

    pub fn matched(&self) -> BTreeSet<usize> {
        self.runs()
            .into_iter()
            .flat_map(|(cells, _)| cells)
            .collect()
    }

    pub fn is_stable(&self) -> bool {
        !self.has_empty() && self.matched().is_empty()
    }

    /// Groups: same-colour 4-connected matched cells, by first cell.
    pub fn groups(&self) -> Vec<(u32, Vec<usize>)> {
        let matched = self.matched();
        let mut seen = BTreeSet::new();
        let mut groups = Vec::new();
        for &start in &matched {
            if !seen.insert(start) {
                continue;
            }
            let color = self.cells[start];
            let mut members = vec![start];
            let mut queue = VecDeque::from([start]);
            while let Some(i) = queue.pop_front() {
                let (r, c) = (i / self.w, i % self.w);
                let mut next = Vec::new();
                if r > 0 {
                    next.push(i - self.w);
                }
                if r + 1 < self.h {
                    next.push(i + self.w);
                }
                if c > 0 {
                    next.push(i - 1);
                }
                if c + 1 < self.w {
                    next.push(i + 1);
                }
                for j in next {
                    if matched.contains(&j) && self.cells[j] == color && seen.insert(j) {
                        members.push(j);
                        queue.push_back(j);
                    }
                }
            }
            members.sort_unstable();
            groups.push((color, members));
        }
        groups.sort_by_key(|(_, cells)| cells[0]);
        groups
    }

    pub fn combo(&self, a: usize, b: usize) -> Option<Combo> {
        let (x, y) = (self.kinds[a], self.kinds[b]);
        let bomb_with = |other: u32| match other {
            BOMB => Combo::BombBomb,
            k if striped(k) => Combo::BombStriped,
            WRAPPED => Combo::BombWrapped,
            _ => Combo::BombNormal,
        };
        if x == BOMB {
            return Some(bomb_with(y));
        }
        if y == BOMB {
            return Some(bomb_with(x));
        }
        match (striped(x), striped(y), x == WRAPPED, y == WRAPPED) {
            (true, true, _, _) => Some(Combo::StripedStriped),
            (true, _, _, true) | (_, true, true, _) => Some(Combo::StripedWrapped),
            (_, _, true, true) => Some(Combo::WrappedWrapped),
            _ => None,
        }
    }

    pub fn swapped(&self, a: usize, b: usize) -> Level {
        let mut l = self.clone();
        l.cells.swap(a, b);
        l.kinds.swap(a, b);
        l
    }

    pub fn verdict(&self, a: Cell, b: Cell) -> (Verdict, Option<Combo>) {
        let on = |(r, c): Cell| (r as usize) < self.h && (c as usize) < self.w;
        if !on(a) || !on(b) {
            return (Verdict::OutOfBounds, None);
        }
        let (ia, ib) = (
            self.at(a.0 as usize, a.1 as usize),
            self.at(b.0 as usize, b.1 as usize),
        );
        if self.holes[ia] || self.holes[ib] {
            return (Verdict::Hole, None);
        }
        if a.0.abs_diff(b.0) + a.1.abs_diff(b.1) != 1 {
            return (Verdict::NotAdjacent, None);
        }
        if !self.is_tile(ia) || !self.is_tile(ib) {
            return (Verdict::EmptyCell, None);
        }
        if let Some(combo) = self.combo(ia, ib) {
            return (Verdict::Ok, Some(combo));
        }
        let after = self.swapped(ia, ib);
        let matched = after.matched();
        if matched.contains(&ia) || matched.contains(&ib) {
            (Verdict::Ok, None)
        } else {
            (Verdict::NoMatch, None)
        }
    }

    /// Valid swaps (a right or below b), with their combinations.
    pub fn valid_swaps(&self) -> Vec<((Cell, Cell), Option<Combo>)> {
        let mut out = Vec::new();
        for i in 0..self.cells.len() {
            let a = self.cell(i);
            for b in [(a.0, a.1 + 1), (a.0 + 1, a.1)] {
                if let (Verdict::Ok, combo) = self.verdict(a, b) {
                    out.push(((a, b), combo));
                }
            }
        }
        out
    }

    fn tiles_where(&self, f: impl Fn(usize, usize) -> bool) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| self.is_tile(i) && f(i / self.w, i % self.w))
            .collect()
    }

    /// One clearing: returns the step (without falls/spawns) and the board after the clearing
    /// and creation.
    fn clear(&self, swap: Option<(usize, usize)>, combo: Option<Combo>, k: u32) -> (Step, Level) {
        let mut cleared: BTreeSet<usize> = BTreeSet::new();
        let mut fires: BTreeMap<usize, u32> = BTreeMap::new();
        let mut done: BTreeSet<usize> = BTreeSet::new();
        let groups = if combo.is_some() {
            Vec::new()
        } else {
            self.groups()
        };
        for (_, cells) in &groups {
            cleared.extend(cells.iter().copied());
        }
        if let (Some(combo), Some((a, b))) = (combo, swap) {
            cleared.insert(a);
            cleared.insert(b);
            done.insert(a);
            done.insert(b);
            let (br, bc) = ((b / self.w) as i64, (b % self.w) as i64);
            let color = if self.kinds[a] == BOMB {
                self.cells[b]
            } else {
                self.cells[a]
            };
            let area = match combo {
                Combo::BombNormal | Combo::BombStriped | Combo::BombWrapped => {
                    self.tiles_where(|r, c| self.cells[self.at(r, c)] == color)
                }
                Combo::BombBomb => self.tiles_where(|_, _| true),
                Combo::StripedStriped => self.tiles_where(|r, c| r as i64 == br || c as i64 == bc),
                Combo::StripedWrapped => self
                    .tiles_where(|r, c| (r as i64 - br).abs() <= 1 || (c as i64 - bc).abs() <= 1),
                Combo::WrappedWrapped => self
                    .tiles_where(|r, c| (r as i64 - br).abs() <= 2 && (c as i64 - bc).abs() <= 2),
            };
            for i in area {
                cleared.insert(i);
                match combo {
                    Combo::BombStriped => {
                        let kind = if (i / self.w + i % self.w).is_multiple_of(2) {
                            STRIPED_H
                        } else {
                            STRIPED_V
                        };
                        fires.insert(i, kind);
                    }
                    Combo::BombWrapped => {
                        fires.insert(i, WRAPPED);
                    }
                    _ => {}
                }
            }
        }
        let mut queue: VecDeque<(usize, u32)> = VecDeque::new();
        for &i in &cleared {
            if done.contains(&i) {
                continue;
            }
            let kind = fires.get(&i).copied().unwrap_or(self.kinds[i]);
            if special(kind) {
                done.insert(i);
                queue.push_back((i, kind));
            }
        }
        // The most common colour at the start of the step.
        let mut counts = [0usize; 17];
        for i in 0..self.cells.len() {
            if self.is_tile(i) && self.cells[i] != 0 {
                counts[self.cells[i] as usize] += 1;
            }
        }
        let top = (1..=16)
            .rev()
            .max_by_key(|&c| counts[c])
            .filter(|&c| counts[c] > 0);
        let mut fired = Vec::new();
        while let Some((i, kind)) = queue.pop_front() {
            fired.push((self.cell(i), kind));
            let (r0, c0) = ((i / self.w) as i64, (i % self.w) as i64);
            let hit = match kind {
                STRIPED_H => self.tiles_where(|r, _| r as i64 == r0),
                STRIPED_V => self.tiles_where(|_, c| c as i64 == c0),
                WRAPPED => self
                    .tiles_where(|r, c| (r as i64 - r0).abs() <= 1 && (c as i64 - c0).abs() <= 1),
                _ => match top {
                    Some(color) => {
                        self.tiles_where(|r, c| self.cells[self.at(r, c)] == color as u32)
                    }
                    None => Vec::new(),
                },
            };
            for j in hit {
                if cleared.insert(j) && special(self.kinds[j]) && done.insert(j) {
                    queue.push_back((j, self.kinds[j]));
                }
            }
        }
        let in_groups: BTreeSet<usize> = groups.iter().flat_map(|(_, c)| c.clone()).collect();
        let effect_cleared = cleared
            .iter()
            .filter(|i| !in_groups.contains(i))
            .map(|&i| self.cell(i))
            .collect();
        // Creation.
        let runs = self.runs();
        let mut created = Vec::new();
        for (color, cells) in &groups {
            let members: BTreeSet<usize> = cells.iter().copied().collect();
            let mut mine: Vec<&(Vec<usize>, bool)> = runs
                .iter()
                .filter(|(r, _)| members.contains(&r[0]))
                .collect();
            mine.sort_by_key(|(r, horizontal)| (r[0], !*horizontal));
            let h_cells: BTreeSet<usize> = mine
                .iter()
                .filter(|(_, hz)| *hz)
                .flat_map(|(r, _)| r.clone())
                .collect();
            let v_cells: BTreeSet<usize> = mine
                .iter()
                .filter(|(_, hz)| !*hz)
                .flat_map(|(r, _)| r.clone())
                .collect();
            let rule = if let Some((r, _)) = mine.iter().find(|(r, _)| r.len() >= 5) {
                Some((BOMB, r[0]))
            } else if let Some(&x) = h_cells.intersection(&v_cells).next() {
                Some((WRAPPED, x))
            } else {
                mine.iter()
                    .find(|(r, _)| r.len() == 4)
                    .map(|(r, hz)| (if *hz { STRIPED_V } else { STRIPED_H }, r[0]))
            };
            if let Some((kind, anchor)) = rule {
                let at = match swap {
                    Some((a, _)) if members.contains(&a) => a,
                    Some((_, b)) if members.contains(&b) => b,
                    _ => anchor,
                };
                let c = if kind == BOMB { 0 } else { *color };
                created.push((at, kind, c));
            }
        }
        created.sort_unstable();
        let mut after = self.clone();
        for &i in &cleared {
            after.cells[i] = 0;
            after.kinds[i] = NORMAL;
        }
        for &(i, kind, color) in &created {
            after.cells[i] = color;
            after.kinds[i] = kind;
        }
        let step = Step {
            groups: groups
                .iter()
                .map(|(c, cells)| (*c, cells.iter().map(|&i| self.cell(i)).collect()))
                .collect(),
            fired,
            created: created
                .iter()
                .map(|&(i, kind, color)| (self.cell(i), kind, color))
                .collect(),
            effect_cleared,
            falls: Vec::new(),
            spawns: Vec::new(),
            score: 10 * u64::from(k) * cleared.len() as u64,
        };
        (step, after)
    }

    /// Gravity through holes, column by column; falls by source row-major.
    pub fn gravity(&self) -> (Level, Vec<(Cell, Cell)>) {
        let mut out = self.clone();
        let mut falls = Vec::new();
        for c in 0..self.w {
            let slots: Vec<usize> = (0..self.h)
                .map(|r| self.at(r, c))
                .filter(|&i| !self.holes[i])
                .collect();
            let tiles: Vec<usize> = slots.iter().copied().filter(|&i| self.is_tile(i)).collect();
            for &i in &slots {
                out.cells[i] = 0;
                out.kinds[i] = NORMAL;
            }
            let offset = slots.len() - tiles.len();
            for (n, &from) in tiles.iter().enumerate() {
                let to = slots[offset + n];
                out.cells[to] = self.cells[from];
                out.kinds[to] = self.kinds[from];
                if to != from {
                    falls.push((self.cell(from), self.cell(to)));
                }
            }
        }
        falls.sort_unstable();
        (out, falls)
    }

    /// The empty non-hole cells, row-major (where refill spawns).
    pub fn refill_cells(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| !self.holes[i] && !self.is_tile(i))
            .collect()
    }

    /// Resolves a cascade. `swap` (already validated) starts it; `spawns` supplies refill
    /// colours in order (`None`: NONE refill). Returns the steps and the final level.
    pub fn resolve(
        &self,
        swap: Option<(Cell, Cell)>,
        mut spawns: Option<&mut dyn Iterator<Item = u32>>,
    ) -> (Vec<Step>, Level) {
        let mut level = self.clone();
        let mut steps = Vec::new();
        let mut first = None;
        let mut combo = None;
        if let Some((a, b)) = swap {
            let (ia, ib) = (
                level.at(a.0 as usize, a.1 as usize),
                level.at(b.0 as usize, b.1 as usize),
            );
            combo = level.combo(ia, ib);
            level = level.swapped(ia, ib);
            first = Some((ia, ib));
        } else if level.has_empty() {
            let (settled, falls) = level.gravity();
            level = settled;
            let spawned = fill(&mut level, spawns.as_deref_mut());
            if !falls.is_empty() || !spawned.is_empty() {
                steps.push(Step {
                    groups: Vec::new(),
                    fired: Vec::new(),
                    created: Vec::new(),
                    effect_cleared: Vec::new(),
                    falls,
                    spawns: spawned,
                    score: 0,
                });
            }
        }
        loop {
            let this_combo = combo.take();
            if this_combo.is_none() && level.groups().is_empty() {
                return (steps, level);
            }
            let k = steps.len() as u32 + 1;
            let (mut step, after) = level.clear(first.take(), this_combo, k);
            let (settled, falls) = after.gravity();
            level = settled;
            step.falls = falls;
            step.spawns = fill(&mut level, spawns.as_deref_mut());
            steps.push(step);
            assert!(steps.len() < 500, "runaway cascade");
        }
    }
}

fn fill(
    level: &mut Level,
    spawns: Option<&mut (dyn Iterator<Item = u32> + '_)>,
) -> Vec<(Cell, u32)> {
    let Some(spawns) = spawns else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in level.refill_cells() {
        let color = spawns.next().expect("the engine reported enough spawns");
        level.cells[i] = color;
        level.kinds[i] = NORMAL;
        out.push((level.cell(i), color));
    }
    out
}
