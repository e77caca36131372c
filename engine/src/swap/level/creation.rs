//! Creation of specials (docs/rules.md section 6): the special a cleared group makes, by its
//! shape (a straight 5+, an L / T / plus, a straight 4), and where it is placed.

use super::{PieceKind, Special};
use crate::bitboard::{CellSet, ColorPlanes};
use crate::board::{EMPTY, Position};
use crate::runs::Group;

/// The special a cleared group creates, by the first rule that applies: a straight run of 5+
/// makes a colour bomb; a horizontal and a vertical run sharing a cell make a wrapped piece; a
/// run of exactly 4 makes a striped piece across it. Placed at the swapped cell the group holds
/// in step 1 of a swap (`swapped`: the two swapped cells, row-major indices), otherwise at the
/// shape's anchor.
///
/// Works on row masks: the runs of a group are the runs of its colour (from `planes`, the
/// board at the start of the step) inside it, since a run lies wholly in one group. The anchor
/// of rules 1 and 3 is the first cell (row-major) starting a qualifying run, a horizontal run
/// before a vertical one from the same cell.
pub(super) fn creation(
    planes: &ColorPlanes,
    height: usize,
    group: &Group,
    width: usize,
    swapped: Option<[usize; 2]>,
) -> Option<Special> {
    // Every rule needs a run of 4 or more.
    if group.cells.len() < 4 {
        return None;
    }
    let color = group.color;
    let mut members = CellSet::new();
    for position in &group.cells {
        let row = position.row as usize;
        members.insert(row, position.col as usize);
    }
    let first = group.cells[0].row as usize;
    let last = group.cells[group.cells.len() - 1].row as usize;
    let line = |row: isize| -> u64 {
        if row < 0 {
            0
        } else {
            planes.row_of(color, row as usize)
        }
    };
    // Cells of the group in a horizontal run, and in a vertical run.
    let mut horizontal = CellSet::new();
    let mut vertical = CellSet::new();
    for row in first..=last {
        let r = row as isize;
        let here = line(r);
        let starts = here & (here >> 1) & (here >> 2);
        horizontal.set_row(row, (starts | starts << 1 | starts << 2) & members.row(row));
        let (up2, up1, down1, down2) = (line(r - 2), line(r - 1), line(r + 1), line(r + 2));
        let in_column = (up2 & up1 & here) | (up1 & here & down1) | (here & down1 & down2);
        vertical.set_row(row, in_column & members.row(row));
    }
    let at = |set: &CellSet, row: usize| if row < height { set.row(row) } else { 0 };
    // Run starts of each length class, row by row: (5+ horizontal, 5+ vertical, exactly 4
    // horizontal, exactly 4 vertical).
    let starts_of = |row: usize| -> (u64, u64, u64, u64) {
        let h = horizontal.row(row);
        let h_start = h & !(h << 1);
        let h4 = h_start & (h >> 1) & (h >> 2) & (h >> 3);
        let v = vertical.row(row);
        let v_start = v & !(if row > 0 { vertical.row(row - 1) } else { 0 });
        let v4 = v_start & at(&vertical, row + 1) & at(&vertical, row + 2) & at(&vertical, row + 3);
        let v5 = v4 & at(&vertical, row + 4);
        let h5 = h4 & (h >> 4);
        (h5, v5, h4 & !h5, v4 & !v5)
    };
    let cell_at = |row: usize, mask: u64| row * width + mask.trailing_zeros() as usize;
    let mut shape = None;
    for row in first..=last {
        let (h5, v5, _, _) = starts_of(row);
        if h5 | v5 != 0 {
            shape = Some((PieceKind::ColorBomb, cell_at(row, h5 | v5)));
            break;
        }
    }
    if shape.is_none() {
        shape = (first..=last).find_map(|row| {
            let crossing = horizontal.row(row) & vertical.row(row);
            (crossing != 0).then(|| (PieceKind::Wrapped, cell_at(row, crossing)))
        });
    }
    if shape.is_none() {
        shape = (first..=last).find_map(|row| {
            let (_, _, h4, v4) = starts_of(row);
            let starts = h4 | v4;
            if starts == 0 {
                return None;
            }
            let first_start = starts & starts.wrapping_neg();
            let kind = if h4 & first_start != 0 {
                PieceKind::StripedV
            } else {
                PieceKind::StripedH
            };
            Some((kind, cell_at(row, starts)))
        });
    }
    let (kind, anchor) = shape?;
    let holds = |i: usize| members.row(i / width) >> (i % width) & 1 == 1;
    let cell = swapped
        .and_then(|cells| cells.into_iter().find(|&i| holds(i)))
        .unwrap_or(anchor);
    Some(Special {
        position: Position::new((cell / width) as u32, (cell % width) as u32),
        kind,
        color: if kind == PieceKind::ColorBomb {
            EMPTY
        } else {
            color
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{p, run, special};
    use crate::gravity::Fall;
    use crate::swap::level::PieceKind::{ColorBomb, StripedH, StripedV, Wrapped};

    #[test]
    fn a_horizontal_four_makes_striped_v_at_the_swapped_cell() {
        let outcome = run("RRYR/GBRB", Some(((0, 2), (1, 2))));
        assert_eq!(outcome.steps.len(), 1);
        let step = &outcome.steps[0];
        assert_eq!(step.groups.len(), 1);
        assert_eq!(step.created, vec![special(0, 2, StripedV, 1)]);
        assert_eq!(step.score, 40);
        assert!(step.fired.is_empty() && step.effect_cleared.is_empty());
        assert_eq!(outcome.board.to_string(), "..R|./GBYB");
    }

    #[test]
    fn l_t_and_plus_make_wrapped_at_the_crossing() {
        let l = run("RGB/RBG/RRR", None);
        assert_eq!(l.steps[0].created, vec![special(2, 0, Wrapped, 1)]);
        assert_eq!(l.steps[0].score, 50);
        assert_eq!(l.board.to_string(), ".../.GB/R+BG");
        let t = run("RRR/GRB/BRG", None);
        assert_eq!(t.steps[0].created, vec![special(0, 1, Wrapped, 1)]);
        assert_eq!(
            t.steps[0].falls,
            vec![Fall {
                from: p(0, 1),
                to: p(2, 1)
            }]
        );
        assert_eq!(t.board.to_string(), ".../G.B/BR+G");
        let plus = run("GRB/RRR/BRG", None);
        assert_eq!(plus.steps[0].created, vec![special(1, 1, Wrapped, 1)]);
        assert_eq!(plus.board.to_string(), ".../G.B/BR+G");
    }

    #[test]
    fn straight_five_six_and_seven_make_a_bomb() {
        for (text, after) in [
            ("RRRRR", "*...."),
            ("GRRRRRR", "G*....."),
            ("RRRRRRR", "*......"),
        ] {
            let outcome = run(text, None);
            assert_eq!(outcome.board.to_string(), after, "{text}");
            let run_start = if text.starts_with('G') { 1 } else { 0 };
            assert_eq!(
                outcome.steps[0].created,
                vec![special(0, run_start, ColorBomb, 0)]
            );
        }
        // From a swap, the bomb lands on the swapped cell of the group.
        let outcome = run("RRGRR/GBRBG", Some(((0, 2), (1, 2))));
        assert_eq!(outcome.steps[0].created, vec![special(0, 2, ColorBomb, 0)]);
        assert_eq!(outcome.steps[0].score, 50);
        assert_eq!(outcome.board.to_string(), "..*../GBGBG");
    }

    #[test]
    fn a_cascade_made_special_lands_on_its_anchor() {
        // Step 1 clears row 2; column 0 then holds Y Y Y Y (rows 1-4): a vertical 4 in step 2,
        // a STRIPED_H at the run's first cell (1,0), which then falls to the bottom.
        let outcome = run("YGB/YBG/RRR/YGB/YBG", None);
        assert_eq!(outcome.steps.len(), 2);
        assert!(outcome.steps[0].created.is_empty());
        assert_eq!(outcome.steps[0].score, 30);
        assert_eq!(outcome.steps[1].created, vec![special(1, 0, StripedH, 4)]);
        assert_eq!(outcome.steps[1].score, 80);
        assert_eq!(outcome.total_score, 110);
        assert_eq!(outcome.board.to_string(), ".../.GB/.BG/.GB/Y-BG");
    }
}
