//! The standard SameGame positions the API tests (collapse_api, collapse_solve, samegame_standard)
//! play. Wire values in the reference's terms are in `tests/reference/convert.rs`.
#![allow(dead_code)] // each test binary uses a different part of the support

use matchgrid::proto::Board;

/// The 20 standard 15x15, 5-colour SameGame positions of the research literature (data file
/// `data/samegame-standard-20.txt`: 20 blocks of 15 lines of 15 integers
/// `0..=4`, blank lines between). Colour `v` there is `v + 1` here.
pub fn standard_positions() -> Vec<Board> {
    const SIDE: usize = 15;
    // Embedded at compile time: a test binary built from another checkout of the same
    // sources (CI's isolated copy shares the target directory) still finds the positions.
    let text = include_str!("../../data/samegame-standard-20.txt");
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
                ..Default::default()
            }
        })
        .collect()
}
