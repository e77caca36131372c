//! Level play, naively (SPEC section 8, on top of docs/rules.md section 6): jelly, blockers,
//! locks, ingredients and exits; gravity with fixed cells; goals and the status order.
//!
//! Written from the rules alone, with no code shared with the engine (nor with
//! `reference::level`, whose ideas it repeats): lines scanned cell by cell with holes and
//! colourless pieces as breaks, groups by a breadth-first search, firing with an explicit queue
//! over sets, settling by rounds over single cells (segments found by walking each column, a
//! slide found by scanning the whole board). Kinds are the wire numbers (0 or 1 NORMAL, 2
//! STRIPED_H, 3 STRIPED_V, 4 WRAPPED, 5 COLOR_BOMB, 6 INGREDIENT).
//!
//! Decisions where the text leaves room (each also in the test binary's notes):
//! - locks, blockers and jelly are read from the board at the start of a step: a tile locked at
//!   the start of a step is never cleared in that step (its lock is removed once, however many
//!   effects reach it);
//! - a blocker cell hit with jelly under it loses a jelly layer too (it is a hit cell);
//! - `cleared_by_color[0]` stays 0: a cleared colour bomb has no colour;
//! - `CLEAR_BLOCKERS` progress counts blocker cells, not hit points;
//! - a slide source may be any movable piece diagonally above, whatever segment it is in; the
//!   upper-left / upper-right neighbour must be on the board (no wrap-around), a hole there
//!   holds no piece;
//! - valid swaps are listed with `a` row-major, for each `a` first the right neighbour, then
//!   the one below (which is the row-major order of `b` too);
//! - a group's reported cells include its locked cells; `effect_cleared` lists cleared cells
//!   only, so a locked tile reached by an effect appears in `hits`, not there;
//! - a step whose groups are all locked clears nothing (score 0) but counts as a step; the
//!   now unlocked run is found again in the next step;
//! - with bomb + striped or wrapped, a locked tile of the colour is unlocked and does not fire;
//! - only slots below a fixed cell take slides: an empty slot of a top segment (NONE refill)
//!   stays empty even with a piece diagonally above it;
//! - `is_stable(false)` follows section 8 literally: an empty slot nothing would fill does not
//!   make the board unstable, even without fixed cells (section 6 stability is
//!   `is_stable(true)` on such boards);
//! - a resolve without a swap first settles and collects (one step with no groups when
//!   anything moved, spawned or left), which is step 1 for the score factor, as in section 6.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::{Cell, LETTERS};

pub const NORMAL: u32 = 0;
pub const STRIPED_H: u32 = 2;
pub const STRIPED_V: u32 = 3;
pub const WRAPPED: u32 = 4;
pub const COLOR_BOMB: u32 = 5;
pub const INGREDIENT: u32 = 6;

/// A level board with its layers, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayLevel {
    pub w: usize,
    pub h: usize,
    /// Colour 1..=16; 0 for empty, hole, bomb, blocker or ingredient.
    pub cells: Vec<u32>,
    pub holes: Vec<bool>,
    pub kinds: Vec<u32>,
    /// 0..=2 layers.
    pub jelly: Vec<u32>,
    /// Hit points 0..=5; 0 = no blocker.
    pub blockers: Vec<u32>,
    pub locks: Vec<bool>,
    /// Always resolved (the default exits when the level names none).
    pub exits: Vec<bool>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayVerdict {
    Ok,
    OutOfBounds,
    Hole,
    Blocked,
    NotAdjacent,
    EmptyCell,
    NoMatch,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Combo {
    BombNormal,
    BombStriped,
    BombWrapped,
    BombBomb,
    StripedStriped,
    StripedWrapped,
    WrappedWrapped,
}

/// A hit cell that carried a layer (SPEC section 8 "Reports").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub cell: Cell,
    pub jelly_left: u32,
    pub blocker_left: u32,
    pub lock_removed: bool,
}

/// One cascade step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayStep {
    pub groups: Vec<(u32, Vec<Cell>)>,
    pub fired: Vec<(Cell, u32)>,
    pub created: Vec<(Cell, u32, u32)>,
    pub effect_cleared: Vec<Cell>,
    pub hits: Vec<Hit>,
    pub falls: Vec<(Cell, Cell)>,
    pub spawns: Vec<(Cell, u32)>,
    pub collected: Vec<Cell>,
    pub score: u64,
    /// Entry c: tiles of colour c cleared in this step (17 entries; entry 0 stays 0).
    pub cleared_by_color: Vec<u32>,
}

impl PlayStep {
    fn empty() -> PlayStep {
        PlayStep {
            groups: Vec::new(),
            fired: Vec::new(),
            created: Vec::new(),
            effect_cleared: Vec::new(),
            hits: Vec::new(),
            falls: Vec::new(),
            spawns: Vec::new(),
            collected: Vec::new(),
            score: 0,
            cleared_by_color: vec![0; 17],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    Score(u64),
    ClearJelly,
    Collect { color: u32, count: u32 },
    ClearBlockers,
    BringDown(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Won,
    LostOutOfMoves,
    LostDead,
    Playing,
}

fn special(kind: u32) -> bool {
    (2..=5).contains(&kind)
}

fn striped(kind: u32) -> bool {
    kind == STRIPED_H || kind == STRIPED_V
}

fn color_of(ch: char) -> Option<u32> {
    match ch {
        '1'..='9' => Some(ch as u32 - '0' as u32),
        _ => LETTERS
            .iter()
            .position(|&l| char::from(l) == ch)
            .map(|i| i as u32 + 1),
    }
}

/// The default exits: in each column with a non-hole cell, its lowest non-hole cell.
pub fn default_exits(w: usize, h: usize, holes: &[bool]) -> Vec<bool> {
    let mut exits = vec![false; w * h];
    for c in 0..w {
        if let Some(r) = (0..h).rev().find(|&r| !holes[r * w + c]) {
            exits[r * w + c] = true;
        }
    }
    exits
}

impl PlayLevel {
    // ----- text form -----

    /// Reads the text notation; panics on a malformed or invalid text.
    pub fn parse(text: &str) -> PlayLevel {
        let rows: Vec<&str> = text.split('/').collect();
        let h = rows.len();
        let mut w = None;
        let (mut cells, mut holes, mut kinds, mut jelly, mut blockers, mut locks, mut exits) = (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
        );
        let mut any_exit = false;
        for row in &rows {
            let mut chars = row.chars().peekable();
            let mut count = 0;
            while let Some(ch) = chars.next() {
                count += 1;
                if ch == '#' {
                    cells.push(0);
                    holes.push(true);
                    kinds.push(NORMAL);
                    jelly.push(0);
                    blockers.push(0);
                    locks.push(false);
                    exits.push(false);
                    continue;
                }
                let (mut color, mut kind, mut hp) = (0, NORMAL, 0);
                match ch {
                    '.' | '0' => {}
                    '*' => kind = COLOR_BOMB,
                    '@' => kind = INGREDIENT,
                    'X' => {
                        let d = chars.next().expect("a digit after X");
                        hp = d.to_digit(10).expect("a digit after X");
                        assert!((1..=5).contains(&hp), "blocker hit points in {text:?}");
                    }
                    _ => {
                        color = color_of(ch)
                            .unwrap_or_else(|| panic!("{ch:?} is not a cell in {text:?}"));
                        match chars.peek() {
                            Some('-') => kind = STRIPED_H,
                            Some('|') => kind = STRIPED_V,
                            Some('+') => kind = WRAPPED,
                            _ => {}
                        }
                        if kind != NORMAL {
                            chars.next();
                        }
                    }
                }
                let mut lock = false;
                if chars.peek() == Some(&'~') {
                    chars.next();
                    assert!(color != 0, "a lock on a non-tile or a bomb in {text:?}");
                    lock = true;
                }
                let mut layers = 0;
                match chars.peek() {
                    Some('\'') => layers = 1,
                    Some('"') => layers = 2,
                    _ => {}
                }
                if layers > 0 {
                    chars.next();
                }
                let mut exit = false;
                if chars.peek() == Some(&'_') {
                    chars.next();
                    exit = true;
                    any_exit = true;
                }
                cells.push(color);
                holes.push(false);
                kinds.push(kind);
                jelly.push(layers);
                blockers.push(hp);
                locks.push(lock);
                exits.push(exit);
            }
            match w {
                None => w = Some(count),
                Some(w) => assert_eq!(w, count, "ragged rows in {text:?}"),
            }
        }
        let w = w.unwrap();
        if !any_exit {
            exits = default_exits(w, h, &holes);
        }
        PlayLevel {
            w,
            h,
            cells,
            holes,
            kinds,
            jelly,
            blockers,
            locks,
            exits,
        }
    }

    /// The text notation (`_` only when the exits are not the default ones).
    pub fn text(&self) -> String {
        let write_exits = self.exits != default_exits(self.w, self.h, &self.holes);
        let mut out = String::new();
        for i in 0..self.cells.len() {
            if i > 0 && i % self.w == 0 {
                out.push('/');
            }
            if self.holes[i] {
                out.push('#');
                continue;
            }
            if self.blockers[i] > 0 {
                out.push('X');
                out.push(char::from_digit(self.blockers[i], 10).unwrap());
            } else if self.kinds[i] == COLOR_BOMB {
                out.push('*');
            } else if self.kinds[i] == INGREDIENT {
                out.push('@');
            } else if self.cells[i] == 0 {
                out.push('.');
            } else {
                out.push(char::from(LETTERS[self.cells[i] as usize - 1]));
                match self.kinds[i] {
                    STRIPED_H => out.push('-'),
                    STRIPED_V => out.push('|'),
                    WRAPPED => out.push('+'),
                    _ => {}
                }
            }
            if self.locks[i] {
                out.push('~');
            }
            match self.jelly[i] {
                0 => {}
                1 => out.push('\''),
                _ => out.push('"'),
            }
            if write_exits && self.exits[i] {
                out.push('_');
            }
        }
        out
    }

    // ----- cells -----

    pub fn cell(&self, i: usize) -> Cell {
        ((i / self.w) as u32, (i % self.w) as u32)
    }

    fn at(&self, r: usize, c: usize) -> usize {
        r * self.w + c
    }

    fn index(&self, (r, c): Cell) -> usize {
        self.at(r as usize, c as usize)
    }

    fn is_blocker(&self, i: usize) -> bool {
        !self.holes[i] && self.blockers[i] > 0
    }

    /// A tile, a bomb or an ingredient (locked or not).
    fn is_piece(&self, i: usize) -> bool {
        !self.holes[i]
            && self.blockers[i] == 0
            && (self.cells[i] != 0 || self.kinds[i] == COLOR_BOMB || self.kinds[i] == INGREDIENT)
    }

    fn is_ingredient(&self, i: usize) -> bool {
        self.is_piece(i) && self.kinds[i] == INGREDIENT
    }

    /// A coloured tile or a bomb (locked or not).
    fn is_tile(&self, i: usize) -> bool {
        self.is_piece(i) && self.kinds[i] != INGREDIENT
    }

    fn is_fixed(&self, i: usize) -> bool {
        self.is_blocker(i) || (self.is_tile(i) && self.locks[i])
    }

    fn is_movable(&self, i: usize) -> bool {
        self.is_piece(i) && !self.locks[i]
    }

    fn is_empty_slot(&self, i: usize) -> bool {
        !self.holes[i] && self.blockers[i] == 0 && !self.is_piece(i)
    }

    fn color(&self, i: usize) -> u32 {
        if self.is_tile(i) { self.cells[i] } else { 0 }
    }

    /// Whether a fixed cell lies anywhere above index `i` in its column.
    fn below_fixed(&self, i: usize) -> bool {
        let (r, c) = (i / self.w, i % self.w);
        (0..r).any(|rr| self.is_fixed(self.at(rr, c)))
    }

    fn neighbours(&self, i: usize) -> Vec<usize> {
        let (r, c) = (i / self.w, i % self.w);
        let mut out = Vec::new();
        if r > 0 {
            out.push(i - self.w);
        }
        if r + 1 < self.h {
            out.push(i + self.w);
        }
        if c > 0 {
            out.push(i - 1);
        }
        if c + 1 < self.w {
            out.push(i + 1);
        }
        out
    }

    // ----- runs and groups -----

    /// Every maximal run as (cells, horizontal).
    fn runs(&self) -> Vec<(Vec<usize>, bool)> {
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
            for &i in &line {
                let color = self.color(i);
                let breaks = color == 0 || current.last().is_some_and(|&l| self.color(l) != color);
                if breaks {
                    if current.len() >= 3 {
                        out.push((current.clone(), horizontal));
                    }
                    current.clear();
                }
                if color != 0 {
                    current.push(i);
                }
            }
            if current.len() >= 3 {
                out.push((current, horizontal));
            }
        }
        out
    }

    fn matched(&self) -> BTreeSet<usize> {
        self.runs().into_iter().flat_map(|(c, _)| c).collect()
    }

    /// Groups: same-colour 4-connected matched cells, by first cell.
    fn groups(&self) -> Vec<(u32, Vec<usize>)> {
        let matched = self.matched();
        let mut seen = BTreeSet::new();
        let mut groups = Vec::new();
        for &start in &matched {
            if !seen.insert(start) {
                continue;
            }
            let color = self.color(start);
            let mut members = vec![start];
            let mut queue = VecDeque::from([start]);
            while let Some(i) = queue.pop_front() {
                for j in self.neighbours(i) {
                    if matched.contains(&j) && self.color(j) == color && seen.insert(j) {
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

    // ----- swaps -----

    fn combo(&self, a: usize, b: usize) -> Option<Combo> {
        let (x, y) = (self.kinds[a], self.kinds[b]);
        if x == INGREDIENT || y == INGREDIENT {
            return None;
        }
        let bomb_with = |other: u32| match other {
            COLOR_BOMB => Combo::BombBomb,
            k if striped(k) => Combo::BombStriped,
            WRAPPED => Combo::BombWrapped,
            _ => Combo::BombNormal,
        };
        if x == COLOR_BOMB {
            return Some(bomb_with(y));
        }
        if y == COLOR_BOMB {
            return Some(bomb_with(x));
        }
        match (striped(x), striped(y), x == WRAPPED, y == WRAPPED) {
            (true, true, _, _) => Some(Combo::StripedStriped),
            (true, _, _, true) | (_, true, true, _) => Some(Combo::StripedWrapped),
            (_, _, true, true) => Some(Combo::WrappedWrapped),
            _ => None,
        }
    }

    fn swapped(&self, a: usize, b: usize) -> PlayLevel {
        let mut l = self.clone();
        l.cells.swap(a, b);
        l.kinds.swap(a, b);
        l
    }

    pub fn verdict(&self, a: Cell, b: Cell) -> PlayVerdict {
        let on = |(r, c): Cell| (r as usize) < self.h && (c as usize) < self.w;
        if !on(a) || !on(b) {
            return PlayVerdict::OutOfBounds;
        }
        let (ia, ib) = (self.index(a), self.index(b));
        if self.holes[ia] || self.holes[ib] {
            return PlayVerdict::Hole;
        }
        if self.is_fixed(ia) || self.is_fixed(ib) {
            return PlayVerdict::Blocked;
        }
        if a.0.abs_diff(b.0) + a.1.abs_diff(b.1) != 1 {
            return PlayVerdict::NotAdjacent;
        }
        if !self.is_piece(ia) || !self.is_piece(ib) {
            return PlayVerdict::EmptyCell;
        }
        if self.combo(ia, ib).is_some() {
            return PlayVerdict::Ok;
        }
        let matched = self.swapped(ia, ib).matched();
        if matched.contains(&ia) || matched.contains(&ib) {
            PlayVerdict::Ok
        } else {
            PlayVerdict::NoMatch
        }
    }

    /// Every valid swap once: `a` row-major, and for each `a` its right neighbour, then the
    /// one below.
    pub fn valid_swaps(&self) -> Vec<(Cell, Cell)> {
        let mut out = Vec::new();
        for i in 0..self.cells.len() {
            let a = self.cell(i);
            for b in [(a.0, a.1 + 1), (a.0 + 1, a.1)] {
                if self.verdict(a, b) == PlayVerdict::Ok {
                    out.push((a, b));
                }
            }
        }
        out
    }

    // ----- one clearing -----

    /// The step's clearing, hits and creation: the step (without falls, spawns, collections)
    /// and the board after it.
    fn clear(
        &self,
        swap: Option<(usize, usize)>,
        combo: Option<Combo>,
        k: u32,
    ) -> (PlayStep, PlayLevel) {
        let n = self.cells.len();
        let mut cleared: BTreeSet<usize> = BTreeSet::new();
        let mut lock_hit: BTreeSet<usize> = BTreeSet::new();
        let mut blocker_hit: BTreeSet<usize> = BTreeSet::new();
        let mut fires: BTreeMap<usize, u32> = BTreeMap::new();
        let mut done: BTreeSet<usize> = BTreeSet::new();
        let groups = if combo.is_some() {
            Vec::new()
        } else {
            self.groups()
        };
        // An effect reaching cell i; true when it newly clears a tile.
        let reach = |i: usize,
                     cleared: &mut BTreeSet<usize>,
                     lock_hit: &mut BTreeSet<usize>,
                     blocker_hit: &mut BTreeSet<usize>|
         -> bool {
            if self.is_blocker(i) {
                blocker_hit.insert(i);
                false
            } else if self.is_tile(i) {
                if self.locks[i] {
                    lock_hit.insert(i);
                    false
                } else {
                    cleared.insert(i)
                }
            } else {
                false
            }
        };
        for (_, cells) in &groups {
            for &i in cells {
                reach(i, &mut cleared, &mut lock_hit, &mut blocker_hit);
                for j in self.neighbours(i) {
                    if self.is_blocker(j) {
                        blocker_hit.insert(j);
                    }
                }
            }
        }
        let (w, h) = (self.w, self.h);
        let all: Vec<usize> = (0..n).collect();
        let square = |r0: usize, c0: usize, d: usize| -> Vec<usize> {
            (0..n)
                .filter(|&i| (i / w).abs_diff(r0) <= d && (i % w).abs_diff(c0) <= d)
                .collect()
        };
        let row = |r0: usize| -> Vec<usize> { (0..w).map(|c| r0 * w + c).collect() };
        let col = |c0: usize| -> Vec<usize> { (0..h).map(|r| r * w + c0).collect() };
        let of_color = |color: u32| -> Vec<usize> {
            (0..n)
                .filter(|&i| color != 0 && self.is_tile(i) && self.cells[i] == color)
                .collect()
        };
        if let (Some(combo), Some((a, b))) = (combo, swap) {
            cleared.insert(a);
            cleared.insert(b);
            done.insert(a);
            done.insert(b);
            let (br, bc) = (b / w, b % w);
            let color = if self.kinds[a] == COLOR_BOMB {
                self.cells[b]
            } else {
                self.cells[a]
            };
            let area: Vec<usize> = match combo {
                Combo::BombNormal | Combo::BombStriped | Combo::BombWrapped => of_color(color),
                Combo::BombBomb => all.clone(),
                Combo::StripedStriped => (0..n).filter(|&i| i / w == br || i % w == bc).collect(),
                Combo::StripedWrapped => (0..n)
                    .filter(|&i| (i / w).abs_diff(br) <= 1 || (i % w).abs_diff(bc) <= 1)
                    .collect(),
                Combo::WrappedWrapped => square(br, bc, 2),
            };
            for i in area {
                reach(i, &mut cleared, &mut lock_hit, &mut blocker_hit);
                if cleared.contains(&i) {
                    match combo {
                        Combo::BombStriped => {
                            let kind = if (i / w + i % w) % 2 == 0 {
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
        // The most common colour at the start of the step, locked tiles counted.
        let mut counts = [0usize; 17];
        for i in 0..n {
            if self.color(i) != 0 {
                counts[self.color(i) as usize] += 1;
            }
        }
        let mut top = 0;
        for c in 1..=16 {
            if counts[c] > 0 && (top == 0 || counts[c] > counts[top]) {
                top = c;
            }
        }
        let mut fired = Vec::new();
        while let Some((i, kind)) = queue.pop_front() {
            fired.push((self.cell(i), kind));
            let area = match kind {
                STRIPED_H => row(i / w),
                STRIPED_V => col(i % w),
                WRAPPED => square(i / w, i % w, 1),
                _ => of_color(top as u32),
            };
            for j in area {
                let newly = reach(j, &mut cleared, &mut lock_hit, &mut blocker_hit);
                if newly && special(self.kinds[j]) && done.insert(j) {
                    queue.push_back((j, self.kinds[j]));
                }
            }
        }
        let in_groups: BTreeSet<usize> = groups.iter().flat_map(|(_, c)| c.clone()).collect();
        let effect_cleared: Vec<Cell> = cleared
            .iter()
            .filter(|i| !in_groups.contains(i))
            .map(|&i| self.cell(i))
            .collect();
        // Creation: groups seen whole; placed only on a cleared cell.
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
                Some((COLOR_BOMB, r[0]))
            } else if let Some(&x) = h_cells.intersection(&v_cells).next() {
                Some((WRAPPED, x))
            } else {
                mine.iter()
                    .find(|(r, _)| r.len() == 4)
                    .map(|(r, hz)| (if *hz { STRIPED_V } else { STRIPED_H }, r[0]))
            };
            if let Some((kind, anchor)) = rule {
                let chosen = match swap {
                    Some((a, _)) if members.contains(&a) => a,
                    Some((_, b)) if members.contains(&b) => b,
                    _ => anchor,
                };
                let at = if cleared.contains(&chosen) {
                    Some(chosen)
                } else {
                    cells.iter().copied().find(|i| cleared.contains(i))
                };
                if let Some(at) = at {
                    let c = if kind == COLOR_BOMB { 0 } else { *color };
                    created.push((at, kind, c));
                }
            }
        }
        created.sort_unstable();
        // Hits, all at once.
        let hit: BTreeSet<usize> = cleared
            .iter()
            .chain(lock_hit.iter())
            .chain(blocker_hit.iter())
            .copied()
            .collect();
        let mut after = self.clone();
        let mut cleared_by_color = vec![0u32; 17];
        for &i in &cleared {
            if self.cells[i] != 0 {
                cleared_by_color[self.cells[i] as usize] += 1;
            }
            after.cells[i] = 0;
            after.kinds[i] = NORMAL;
        }
        for &i in &lock_hit {
            after.locks[i] = false;
        }
        for &i in &blocker_hit {
            after.blockers[i] -= 1;
        }
        for &i in &hit {
            if after.jelly[i] > 0 {
                after.jelly[i] -= 1;
            }
        }
        for &(i, kind, color) in &created {
            after.cells[i] = color;
            after.kinds[i] = kind;
        }
        let hits = hit
            .iter()
            .filter(|&&i| self.jelly[i] > 0 || self.blockers[i] > 0 || lock_hit.contains(&i))
            .map(|&i| Hit {
                cell: self.cell(i),
                jelly_left: after.jelly[i],
                blocker_left: after.blockers[i],
                lock_removed: lock_hit.contains(&i),
            })
            .collect();
        let step = PlayStep {
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
            hits,
            falls: Vec::new(),
            spawns: Vec::new(),
            collected: Vec::new(),
            score: 10 * u64::from(k) * cleared.len() as u64,
            cleared_by_color,
        };
        (step, after)
    }

    // ----- settling -----

    /// Column `c`'s segments, top to bottom: the non-hole, non-fixed cells between fixed cells
    /// (holes passed through), each top to bottom.
    fn segments(&self, c: usize) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        let mut current = Vec::new();
        for r in 0..self.h {
            let i = self.at(r, c);
            if self.holes[i] {
                continue;
            }
            if self.is_fixed(i) {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                continue;
            }
            current.push(i);
        }
        if !current.is_empty() {
            out.push(current);
        }
        out
    }

    /// Settles by rounds (fall, refill, one slide) until nothing changes; appends the moves
    /// and the spawns.
    fn settle(
        &mut self,
        mut spawns: Option<&mut (dyn Iterator<Item = u32> + '_)>,
        falls: &mut Vec<(Cell, Cell)>,
        spawned: &mut Vec<(Cell, u32)>,
    ) {
        for _round in 0..100_000 {
            let mut changed = false;
            // 1. Fall within segments.
            let before = self.clone();
            let mut round = Vec::new();
            for c in 0..self.w {
                for seg in before.segments(c) {
                    let pieces: Vec<usize> = seg
                        .iter()
                        .copied()
                        .filter(|&i| before.is_piece(i))
                        .collect();
                    for &i in &seg {
                        self.cells[i] = 0;
                        self.kinds[i] = NORMAL;
                    }
                    let offset = seg.len() - pieces.len();
                    for (m, &from) in pieces.iter().enumerate() {
                        let to = seg[offset + m];
                        self.cells[to] = before.cells[from];
                        self.kinds[to] = before.kinds[from];
                        if to != from {
                            round.push((before.cell(from), before.cell(to)));
                        }
                    }
                }
            }
            round.sort_unstable();
            changed |= !round.is_empty();
            falls.extend(round);
            // 2. Refill the top segments, row-major across the board.
            if let Some(spawns) = spawns.as_deref_mut() {
                for i in 0..self.cells.len() {
                    if self.is_empty_slot(i) && !self.below_fixed(i) {
                        let color = spawns.next().expect("enough spawn colours");
                        self.cells[i] = color;
                        self.kinds[i] = NORMAL;
                        spawned.push((self.cell(i), color));
                        changed = true;
                    }
                }
            }
            // 3. One slide.
            if let Some((from, to)) = self.find_slide() {
                self.cells[to] = self.cells[from];
                self.kinds[to] = self.kinds[from];
                self.cells[from] = 0;
                self.kinds[from] = NORMAL;
                falls.push((self.cell(from), self.cell(to)));
                changed = true;
            }
            if !changed {
                return;
            }
        }
        panic!("settling does not end");
    }

    /// The first empty slot (rows bottom to top, left to right) below a fixed cell of its
    /// column with a movable piece at its upper-left, else upper-right: (source, slot).
    fn find_slide(&self) -> Option<(usize, usize)> {
        for r in (1..self.h).rev() {
            for c in 0..self.w {
                let i = self.at(r, c);
                if !self.is_empty_slot(i) || !self.below_fixed(i) {
                    continue;
                }
                if c > 0 && self.is_movable(self.at(r - 1, c - 1)) {
                    return Some((self.at(r - 1, c - 1), i));
                }
                if c + 1 < self.w && self.is_movable(self.at(r - 1, c + 1)) {
                    return Some((self.at(r - 1, c + 1), i));
                }
            }
        }
        None
    }

    /// Collects the ingredients on exits and settles again, until none stands on an exit.
    fn collect(
        &mut self,
        mut spawns: Option<&mut (dyn Iterator<Item = u32> + '_)>,
        falls: &mut Vec<(Cell, Cell)>,
        spawned: &mut Vec<(Cell, u32)>,
        collected: &mut Vec<Cell>,
    ) {
        loop {
            let out: Vec<usize> = (0..self.cells.len())
                .filter(|&i| self.exits[i] && self.is_ingredient(i))
                .collect();
            if out.is_empty() {
                return;
            }
            for i in out {
                self.cells[i] = 0;
                self.kinds[i] = NORMAL;
                collected.push(self.cell(i));
            }
            self.settle(spawns.as_deref_mut(), falls, spawned);
        }
    }

    /// No run, no ingredient on an exit, and settling under the refill mode changes nothing.
    pub fn is_stable(&self, random_refill: bool) -> bool {
        if !self.matched().is_empty() {
            return false;
        }
        if (0..self.cells.len()).any(|i| self.exits[i] && self.is_ingredient(i)) {
            return false;
        }
        let mut copy = self.clone();
        let (mut falls, mut spawned) = (Vec::new(), Vec::new());
        let mut ones = std::iter::repeat(1u32);
        let spawns: Option<&mut dyn Iterator<Item = u32>> =
            if random_refill { Some(&mut ones) } else { None };
        copy.settle(spawns, &mut falls, &mut spawned);
        falls.is_empty() && spawned.is_empty()
    }

    /// Resolves a cascade from a validated swap, or the board as given.
    pub fn resolve(
        &self,
        swap: Option<(Cell, Cell)>,
        mut spawns: Option<&mut dyn Iterator<Item = u32>>,
    ) -> (Vec<PlayStep>, PlayLevel) {
        let mut level = self.clone();
        let mut steps: Vec<PlayStep> = Vec::new();
        let mut first = None;
        let mut combo = None;
        if let Some((a, b)) = swap {
            let (ia, ib) = (level.index(a), level.index(b));
            combo = level.combo(ia, ib);
            level = level.swapped(ia, ib);
            first = Some((ia, ib));
        } else {
            let mut step = PlayStep::empty();
            level.settle(spawns.as_deref_mut(), &mut step.falls, &mut step.spawns);
            level.collect(
                spawns.as_deref_mut(),
                &mut step.falls,
                &mut step.spawns,
                &mut step.collected,
            );
            if !step.falls.is_empty() || !step.spawns.is_empty() || !step.collected.is_empty() {
                steps.push(step);
            }
        }
        loop {
            let this_combo = combo.take();
            if this_combo.is_none() && level.groups().is_empty() {
                return (steps, level);
            }
            let k = steps.len() as u32 + 1;
            let (mut step, after) = level.clear(first.take(), this_combo, k);
            level = after;
            level.settle(spawns.as_deref_mut(), &mut step.falls, &mut step.spawns);
            level.collect(
                spawns.as_deref_mut(),
                &mut step.falls,
                &mut step.spawns,
                &mut step.collected,
            );
            steps.push(step);
            assert!(steps.len() < 500, "runaway cascade");
        }
    }

    /// Jelly layers left on the board.
    pub fn jelly_left(&self) -> u64 {
        self.jelly.iter().map(|&j| u64::from(j)).sum()
    }

    /// Blockers left on the board (cells, not hit points).
    pub fn blockers_left(&self) -> u64 {
        self.blockers.iter().filter(|&&b| b > 0).count() as u64
    }
}

/// Progress of a goal and whether it is met.
pub fn goal_progress(
    goal: &Goal,
    board: &PlayLevel,
    score: u64,
    cleared_by_color: &[u32],
    ingredients_collected: u32,
) -> (u64, bool) {
    match *goal {
        Goal::Score(n) => (score, score >= n),
        Goal::ClearJelly => {
            let left = board.jelly_left();
            (left, left == 0)
        }
        Goal::Collect { color, count } => {
            let so_far = u64::from(cleared_by_color.get(color as usize).copied().unwrap_or(0));
            (so_far, so_far >= u64::from(count))
        }
        Goal::ClearBlockers => {
            let left = board.blockers_left();
            (left, left == 0)
        }
        Goal::BringDown(n) => (u64::from(ingredients_collected), ingredients_collected >= n),
    }
}

/// The status order of SPEC section 8.
pub fn status(goals_met: bool, moves_left: u32, has_valid_swap: bool) -> Status {
    if goals_met {
        Status::Won
    } else if moves_left == 0 {
        Status::LostOutOfMoves
    } else if !has_valid_swap {
        Status::LostDead
    } else {
        Status::Playing
    }
}
