//! Clearing one cascade step of a level board (docs/rules.md section 6): the groups, or a
//! combination's area in the swap's step 1; then the firing chain of every special cleared, in
//! queue order; then the groups' specials are created and placed.

use std::ops::Range;

use super::bits::KindMasks;
use super::creation::creation;
use super::rules::Combination;
use super::{LevelBoard, PieceKind, Special};
use crate::bitboard::{BitIter, CellSet, ColorPlanes};
use crate::board::{EMPTY, Position};
use crate::runs::Group;
use crate::swap::cascade_loop::StepClearing;

/// The swap that starts a cascade: its cells after the exchange (`b` holds `a`'s tile) and
/// its combination.
#[derive(Clone, Copy)]
pub(in crate::swap) struct Trigger {
    /// The cell `a` of the swap (row-major index), which now holds `b`'s tile.
    pub(in crate::swap) a: usize,
    /// The cell `b` of the swap, which now holds `a`'s tile.
    pub(in crate::swap) b: usize,
    /// The combination the two tiles make, if any.
    pub(in crate::swap) combination: Option<Combination>,
}

/// The cells of one step, in buffers reused from step to step.
#[derive(Clone)]
pub(in crate::swap) struct StepCells {
    /// The cells the step clears.
    pub(in crate::swap) cleared: CellSet,
    /// The cells of the step's groups (its matched cells; none in a combination's step 1).
    pub(in crate::swap) in_group: CellSet,
    /// Input: the locked tiles (docs/rules.md section 8; none on a board without locks). A
    /// locked tile the step reaches is not cleared and does not fire: it goes to `unlocked`.
    pub(in crate::swap) locked: CellSet,
    /// The locked tiles the step reached (in a group, or in an effect's area).
    pub(in crate::swap) unlocked: CellSet,
    /// Every cell inside the area of a combination or of a striped or wrapped firing (the
    /// whole board for bomb + bomb), whatever it holds: where blockers are hit.
    pub(in crate::swap) struck: CellSet,
}

impl StepCells {
    /// Empty buffers.
    pub(in crate::swap) fn new() -> Self {
        Self {
            cleared: CellSet::new(),
            in_group: CellSet::new(),
            locked: CellSet::new(),
            unlocked: CellSet::new(),
            struck: CellSet::new(),
        }
    }

    /// Empties the first `rows` rows of every buffer, the locked tiles included.
    pub(in crate::swap) fn clear_rows(&mut self, rows: usize) {
        for set in [
            &mut self.cleared,
            &mut self.in_group,
            &mut self.locked,
            &mut self.unlocked,
            &mut self.struck,
        ] {
            set.clear_rows(rows);
        }
    }
}

/// Bits `from..=to` of a row mask, clipped to the 64 columns (`from` may be negative).
fn span(from: isize, to: isize) -> u64 {
    let from = from.max(0);
    let to = to.min(63);
    if from > to {
        return 0;
    }
    (u64::MAX >> (63 - (to - from))) << from
}

/// The rows within `radius` of `center`, clipped to `height` rows.
fn band(center: usize, radius: usize, height: usize) -> Range<usize> {
    center.saturating_sub(radius)..(center + radius + 1).min(height)
}

/// The most common colour among the tiles described by `planes` (ties: the lowest), or `None`
/// when there is no coloured tile.
fn most_common_color(planes: &ColorPlanes, height: usize) -> Option<u8> {
    let mut best = None;
    for color in 1..=planes.colors() {
        let count: u32 = (0..height)
            .map(|row| planes.row_of(color, row).count_ones())
            .sum();
        if count > 0 && best.is_none_or(|(_, c)| count > c) {
            best = Some((color, count));
        }
    }
    best.map(|(color, _)| color)
}

/// The tiles a combination clears in step 1 besides its two tiles, as whole rows (`rows`) and
/// as the columns `columns` over the rows `column_rows`; the colour combinations (bomb +
/// NORMAL / striped / wrapped) clear a colour instead, see [`clear_step`].
fn combination_area(
    combination: Combination,
    (b_row, b_col): (usize, usize),
    height: usize,
) -> (Range<usize>, u64, Range<usize>) {
    let col = b_col as isize;
    match combination {
        Combination::BombBomb => (0..height, 0, 0..0),
        Combination::StripedStriped => (band(b_row, 0, height), span(col, col), 0..height),
        Combination::StripedWrapped => (band(b_row, 1, height), span(col - 1, col + 1), 0..height),
        Combination::WrappedWrapped => (0..0, span(col - 2, col + 2), band(b_row, 2, height)),
        Combination::BombNormal | Combination::BombStriped | Combination::BombWrapped => {
            (0..0, 0, 0..0)
        }
    }
}

/// Clears one step on `board` (the board at the start of the step, whose colour planes and
/// kind masks are `planes` and `masks`): the groups (`cells.in_group`), or the combination's
/// area; then every special so cleared fires, in queue order, until none is left; then the
/// groups' specials are created (when `specials`, the rule of [`crate::CascadeOptions::specials`]). Leaves the cleared cells in `cells.cleared` and the planes and
/// kind masks up to date; returns the counts and events.
///
/// With locks (`cells.locked`, docs/rules.md section 8), a locked tile the step reaches goes to
/// `cells.unlocked` instead of `cells.cleared`; it does not fire, and a special is placed on a
/// cleared cell of its group only. `cells.struck` gets the areas of the combination and the
/// firings (for blockers).
pub(in crate::swap) fn clear_step(
    board: &mut LevelBoard,
    (planes, masks): (&mut ColorPlanes, &mut KindMasks),
    cells: &mut StepCells,
    groups: &[Group],
    trigger: Option<Trigger>,
    combination: Option<(Trigger, Combination)>,
    specials: bool,
) -> StepClearing {
    let (width, height) = (board.width(), board.height());
    let StepCells {
        cleared,
        in_group,
        locked,
        unlocked,
        struck,
    } = cells;
    let tiles = &masks.tiles;
    let full = u64::MAX >> (64 - width);
    debug_assert!(groups.iter().all(|group| {
        group
            .cells
            .iter()
            .all(|p| in_group.row(p.row as usize) >> p.col & 1 == 1)
    }));
    // A combination's two tiles are consumed: cleared, never queued (as row and column bit).
    let consumed = combination
        .map(|(trigger, _)| [trigger.a, trigger.b].map(|i| (i / width, 1u64 << (i % width))));
    let mut locked_in_groups = 0;
    // The specials among the groups' cleared cells, as one mask of columns (only whether it
    // is zero matters).
    let mut specials_reached = 0;
    for row in 0..height {
        let (group_line, locked_line) = (in_group.row(row), locked.row(row));
        let reached = group_line & !locked_line;
        cleared.set_row(row, reached);
        unlocked.set_row(row, group_line & locked_line);
        locked_in_groups += (group_line & locked_line).count_ones() as usize;
        struck.set_row(row, 0);
        specials_reached |= reached & masks.specials.row(row);
    }
    // The tiles of `mask` in row `row` are reached: cleared, or unlocked when locked.
    let reach = |cleared: &mut CellSet, unlocked: &mut CellSet, row: usize, mask: u64| {
        cleared.union_row(row, mask & !locked.row(row));
        unlocked.union_row(row, mask & locked.row(row));
    };
    // The colour whose cells fire as another kind than their own (bomb + striped / wrapped),
    // and the combination saying which (striped: by the cell's parity).
    let mut fire_as: Option<(u8, Combination)> = None;
    if let Some((trigger, combination)) = combination {
        let (a, b) = (trigger.a, trigger.b);
        for i in [a, b] {
            let (row, bit) = (i / width, 1u64 << (i % width));
            cleared.union_row(row, bit);
        }
        // The colour of the non-bomb tile (both are at their swapped places now).
        let c = if board.kind(a) == PieceKind::ColorBomb {
            board.color(b)
        } else {
            board.color(a)
        };
        match combination {
            Combination::BombNormal | Combination::BombStriped | Combination::BombWrapped => {
                for row in 0..height {
                    reach(cleared, unlocked, row, planes.row_of(c, row));
                }
                if combination != Combination::BombNormal {
                    fire_as = Some((c, combination));
                }
            }
            _ => {
                let (rows, columns, column_rows) =
                    combination_area(combination, (b / width, b % width), height);
                for row in rows {
                    reach(cleared, unlocked, row, tiles.row(row));
                    struck.union_row(row, full);
                }
                for row in column_rows {
                    reach(cleared, unlocked, row, tiles.row(row) & columns);
                    struck.union_row(row, columns & full);
                }
            }
        }
    }
    let fires_as = |row: usize, col: u32| -> Option<PieceKind> {
        let (color, combination) = fire_as?;
        if planes.row_of(color, row) >> col & 1 == 0 {
            return None;
        }
        Some(match combination {
            Combination::BombStriped if (row + col as usize).is_multiple_of(2) => {
                PieceKind::StripedH
            }
            Combination::BombStriped => PieceKind::StripedV,
            _ => PieceKind::Wrapped,
        })
    };
    let special_at = |row: usize, col: u32, kind: PieceKind| Special {
        position: Position::new(row as u32, col),
        kind,
        color: board.color(row * width + col as usize),
    };
    // The queue of firings, which is also the list of specials fired: seeded row-major with
    // everything cleared so far that fires. Every cell queued from here on is cleared when it
    // is queued, and a firing queues only cells it newly clears: nothing is queued twice.
    let mut fired = Vec::new();
    // Without a combination only the groups' specials can start the chain.
    let seed_rows = if combination.is_some() || specials_reached != 0 {
        height
    } else {
        0
    };
    for row in 0..seed_rows {
        let mut candidates = cleared.row(row);
        if fire_as.is_none() {
            candidates &= masks.specials.row(row);
        }
        if candidates == 0 {
            continue;
        }
        for &(consumed_row, bit) in consumed.iter().flatten() {
            if consumed_row == row {
                candidates &= !bit;
            }
        }
        for col in BitIter(candidates) {
            let i = row * width + col as usize;
            let kind = fires_as(row, col).unwrap_or(board.kind(i));
            if kind.is_special() {
                fired.push(special_at(row, col, kind));
            }
        }
    }
    let mut bomb_color = None;
    let mut head = 0;
    while let Some(&Special { position, kind, .. }) = fired.get(head) {
        head += 1;
        let (at_row, col) = (position.row as usize, position.col as isize);
        // The rows the firing reaches, and the columns it clears there (among the tiles).
        let (rows, columns) = match kind {
            PieceKind::Normal | PieceKind::Ingredient => (0..0, 0),
            PieceKind::StripedH => (band(at_row, 0, height), u64::MAX),
            PieceKind::StripedV => (0..height, span(col, col)),
            PieceKind::Wrapped => (band(at_row, 1, height), span(col - 1, col + 1)),
            PieceKind::ColorBomb => (0..height, u64::MAX),
        };
        let color = if kind == PieceKind::ColorBomb {
            *bomb_color.get_or_insert_with(|| most_common_color(planes, height))
        } else {
            None
        };
        for row in rows {
            let area = match color {
                Some(color) => planes.row_of(color, row),
                None if kind == PieceKind::ColorBomb => 0,
                None => {
                    struck.union_row(row, columns & full);
                    tiles.row(row) & columns
                }
            };
            let fresh = area & !cleared.row(row) & !unlocked.row(row);
            if fresh == 0 {
                continue;
            }
            unlocked.union_row(row, fresh & locked.row(row));
            let fresh = fresh & !locked.row(row);
            cleared.union_row(row, fresh);
            let firing = fresh & masks.specials.row(row);
            for col in BitIter(firing) {
                fired.push(special_at(row, col, board.kind(row * width + col as usize)));
            }
        }
    }
    // A step of groups alone (no combination, nothing fired) clears only their cells.
    let groups_alone = combination.is_none() && fired.is_empty();
    let rows = cleared.rows()[..height]
        .iter()
        .rposition(|&line| line != 0)
        .map_or(0, |row| row + 1);
    let mut effect_count = 0;
    if !groups_alone {
        for (row, &line) in cleared.rows()[..rows].iter().enumerate() {
            effect_count += (line & !in_group.row(row)).count_ones() as usize;
        }
    }
    // The groups partition the cells of `in_group`, all cleared but the locked ones.
    let count = effect_count + groups.iter().map(|group| group.cells.len()).sum::<usize>()
        - locked_in_groups;
    debug_assert_eq!(count, cleared.len_within(height));
    let swapped = trigger.map(|t| [t.a, t.b]);
    let mut created = Vec::new();
    if specials {
        for group in groups {
            let special = creation(planes, height, group, width, swapped);
            created.extend(special.and_then(|special| on_cleared_cell(special, group, locked)));
        }
        created.sort_unstable_by_key(|special: &Special| special.position);
    }
    // One pass over the cleared rows: the effect cells, the kind masks and the cells.
    let mut effect_cleared = Vec::with_capacity(effect_count);
    let (colors, kinds, _) = board.parts_mut();
    for (row, &line) in cleared.rows()[..rows].iter().enumerate() {
        if line == 0 {
            continue;
        }
        let effect = line & !in_group.row(row);
        effect_cleared.extend(BitIter(effect).map(|col| Position::new(row as u32, col)));
        let specials = line & masks.specials.row(row);
        masks.remove_row(row, line);
        let cells = &mut colors[row * width..(row + 1) * width];
        for col in BitIter(line) {
            cells[col as usize] = EMPTY;
        }
        // Every other cell's kind is NORMAL already.
        let cells = &mut kinds[row * width..(row + 1) * width];
        for col in BitIter(specials) {
            cells[col as usize] = PieceKind::Normal;
        }
    }
    // A step of groups alone clears only the groups' colours.
    let cleared_colors = if groups_alone {
        groups
            .iter()
            .fold(0, |colors, group| colors | 1 << group.color)
    } else {
        u32::MAX
    };
    planes.remove_cells(cleared, rows, cleared_colors);
    for special in &created {
        let i = special.position.row as usize * width + special.position.col as usize;
        colors[i] = special.color;
        kinds[i] = special.kind;
        let row = special.position.row as usize;
        masks.place(row, special.position.col, special.kind);
        if special.color != EMPTY {
            planes.add_cell(row, special.position.col, special.color);
        }
    }
    StepClearing {
        count,
        rows,
        fired,
        created,
        effect_cleared,
        hits: Vec::new(),
    }
}

/// `special`, created by `group`, placed on a cell the step clears (docs/rules.md section 8):
/// where creation put it unless that tile is locked (not cleared), else on the group's first
/// unlocked cell, row-major; `None` when every cell of the group is locked.
fn on_cleared_cell(special: Special, group: &Group, locked: &CellSet) -> Option<Special> {
    let is_locked = |p: Position| locked.row(p.row as usize) >> p.col & 1 == 1;
    if !is_locked(special.position) {
        return Some(special);
    }
    let position = group
        .cells
        .iter()
        .copied()
        .filter(|&p| !is_locked(p))
        .min()?;
    Some(Special {
        position,
        ..special
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{p, run, special};
    use crate::swap::level::PieceKind::{ColorBomb, StripedH, StripedV, Wrapped};

    #[test]
    fn a_striped_tile_inside_a_group_fires_its_row() {
        let outcome = run("RR-RGB/GBGBR", None);
        let step = &outcome.steps[0];
        assert_eq!(step.fired, vec![special(0, 1, StripedH, 1)]);
        assert_eq!(step.effect_cleared, vec![p(0, 3), p(0, 4)]);
        assert_eq!(step.score, 50);
        assert_eq!(outcome.board.to_string(), "...../GBGBR");
    }

    #[test]
    fn a_wrapped_blast_hits_a_bomb_that_clears_the_most_common_colour() {
        // B is the most common colour (4 tiles) at the start of the step.
        let outcome = run("RR+RG/B*GB/GBBY", None);
        let step = &outcome.steps[0];
        assert_eq!(
            step.fired,
            vec![special(0, 1, Wrapped, 1), special(1, 1, ColorBomb, 0)]
        );
        assert_eq!(
            step.effect_cleared,
            vec![p(1, 0), p(1, 1), p(1, 2), p(1, 3), p(2, 1), p(2, 2)]
        );
        assert_eq!(step.score, 90);
        assert_eq!(outcome.board.to_string(), "..../...G/G..Y");
    }

    #[test]
    fn bomb_and_normal_clears_the_colour() {
        let outcome = run("*RG/GBR/RGB", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert!(step.groups.is_empty() && step.fired.is_empty());
        assert_eq!(
            step.effect_cleared,
            vec![p(0, 0), p(0, 1), p(1, 2), p(2, 0)]
        );
        assert_eq!(step.score, 40);
        assert_eq!(outcome.board.to_string(), ".../.BG/GGB");
    }

    #[test]
    fn bomb_and_striped_fires_the_colour_as_striped_by_parity() {
        let outcome = run("*R-G/GBR/RGB", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert_eq!(
            step.fired,
            vec![special(1, 2, StripedV, 1), special(2, 0, StripedH, 1)]
        );
        assert_eq!(step.score, 70);
        assert_eq!(outcome.board.to_string(), ".../.../GB.");
    }

    #[test]
    fn bomb_and_wrapped_fires_the_colour_as_wrapped() {
        let outcome = run("*R+G/GBR/RGB", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert_eq!(
            step.fired,
            vec![special(1, 2, Wrapped, 1), special(2, 0, Wrapped, 1)]
        );
        assert_eq!(step.score, 90);
        assert_eq!(outcome.board.to_string(), ".../.../...");
        assert!(!outcome.stable);
    }

    #[test]
    fn bomb_and_bomb_clears_every_tile_and_fires_the_specials() {
        let outcome = run("**G/GBR/RGB-", Some(((0, 0), (0, 1))));
        let step = &outcome.steps[0];
        assert_eq!(step.fired, vec![special(2, 2, StripedH, 3)]);
        assert_eq!(step.score, 90);
        assert_eq!(outcome.board.to_string(), ".../.../...");
    }

    #[test]
    fn striped_and_striped_clear_the_row_and_column_through_b() {
        let outcome = run("RGBY/GR-G-B/BYRG/YBYR", Some(((1, 1), (1, 2))));
        let step = &outcome.steps[0];
        assert!(step.fired.is_empty());
        assert_eq!(
            step.effect_cleared,
            vec![
                p(0, 2),
                p(1, 0),
                p(1, 1),
                p(1, 2),
                p(1, 3),
                p(2, 2),
                p(3, 2)
            ]
        );
        assert_eq!(step.score, 70);
        assert_eq!(outcome.board.to_string(), "..../RG.Y/BY.G/YB.R");
    }

    #[test]
    fn striped_and_wrapped_clear_three_rows_and_three_columns() {
        let outcome = run("RGBYP/BYPRG/PR-G+BY/GBYPR/YPRGB", Some(((2, 1), (2, 2))));
        assert_eq!(outcome.steps[0].score, 210);
        assert_eq!(outcome.board.to_string(), "...../...../...../R...P/Y...B");
    }

    #[test]
    fn wrapped_and_wrapped_clear_the_five_by_five_square_on_b() {
        let outcome = run("RGBYP/BYPRG/PR+G+BY/GBYPR/YPRGB", Some(((2, 2), (2, 1))));
        assert_eq!(outcome.steps[0].score, 200);
        assert_eq!(outcome.board.to_string(), "....P/....G/....Y/....R/....B");
    }

    #[test]
    fn a_striped_column_fires_through_a_hole() {
        let outcome = run("GYB/B#G/RR|R/GBY", None);
        let step = &outcome.steps[0];
        assert_eq!(step.fired, vec![special(2, 1, StripedV, 1)]);
        assert_eq!(step.effect_cleared, vec![p(0, 1), p(3, 1)]);
        assert_eq!(step.score, 50);
        assert_eq!(outcome.board.to_string(), ".../G#B/B.G/G.Y");
    }
}
