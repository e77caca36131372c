//! The text output of the `matchgrid swap ...` commands (without `--json`).

use std::fmt::Write as _;

use super::render::{
    board_text, color_letter, hex, position_text, render_board, start_text, swap_text,
};
use crate::proto;

/// A ValidateSwap answer: the verdict, the combination, the groups.
pub(super) fn validate_text(r: &proto::ValidateSwapResponse) -> String {
    let mut text = format!("verdict: {}\n", r.verdict().as_str_name());
    if r.combination() != proto::Combination::Unspecified {
        let _ = writeln!(text, "combination: {}", r.combination().as_str_name());
    }
    for group in &r.groups {
        let _ = writeln!(
            text,
            "group colour {} size {}",
            color_letter(group.color),
            group.cells.len()
        );
    }
    text
}

/// A ResolveCascade answer for `board` and `swap`: the start, every step (its board from the
/// answer, or drawn from its events), a shuffle, the final board and the totals.
pub(super) fn resolve_text(
    board: &proto::Board,
    swap: Option<&proto::Swap>,
    r: &proto::ResolveCascadeResponse,
) -> String {
    let drawn = boards_from_events(board, swap, &r.steps);
    let mut text = format!("start\n{}", render_board(board));
    for (step, drawn) in r.steps.iter().zip(&drawn) {
        let cleared: usize =
            step.groups.iter().map(|g| g.cells.len()).sum::<usize>() + step.effect_cleared.len();
        let _ = write!(
            text,
            "\nstep {}: {} group(s), {cleared} cleared, {} fell, {} spawned, score {}\n{}",
            step.index,
            step.groups.len(),
            step.falls.len(),
            step.spawns.len(),
            step.score,
            render_board(step.board.as_ref().unwrap_or(drawn))
        );
        for special in &step.fired {
            let _ = writeln!(
                text,
                "  fired {} at {}",
                kind_name(special.kind),
                position_text(special.position.as_ref())
            );
        }
        for special in &step.created {
            let _ = writeln!(
                text,
                "  created {} at {} (colour {})",
                kind_name(special.kind),
                position_text(special.position.as_ref()),
                color_letter(special.color)
            );
        }
    }
    if let Some(before) = &r.board_before_shuffle {
        let _ = write!(
            text,
            "\ndead board, shuffled from\n{}",
            render_board(before)
        );
    }
    let last = r.board.clone().unwrap_or_default();
    let _ = write!(
        text,
        "\nfinal ({})\n{}total score {}, stable {}, dead {}, valid swaps {}\n",
        board_text(&last),
        render_board(&last),
        r.total_score,
        r.stable,
        r.dead,
        r.valid_swap_count
    );
    text
}

/// A CheckDeadState answer: dead or not, and the valid swaps with their combinations.
pub(super) fn dead_text(r: &proto::SwapCheckDeadStateResponse) -> String {
    let swaps: Vec<String> = r
        .valid_swaps
        .iter()
        .enumerate()
        .map(|(i, s)| match r.combinations.get(i).copied() {
            Some(c) if c != 0 => format!("{}({})", swap_text(s), combination_name(c)),
            _ => swap_text(s),
        })
        .collect();
    let text = format!(
        "dead: {}\nvalid swaps ({}): {}",
        r.dead,
        swaps.len(),
        swaps.join(" ")
    );
    text.trim_end().to_owned() + "\n"
}

/// A Hint answer: the ranked swaps, with their sampled means when `sampled`.
pub(super) fn hint_text(r: &proto::SwapHintResponse, sampled: bool) -> String {
    let mut text = format!("{} valid swaps\n", r.valid_swap_count);
    for (i, h) in r.hints.iter().enumerate() {
        let _ = write!(
            text,
            "{:>3}. {} score {} cleared {} steps {}",
            i + 1,
            h.swap.as_ref().map_or_else(String::new, swap_text),
            h.score,
            h.cleared,
            h.steps
        );
        if h.specials_created > 0 {
            let _ = write!(text, " specials {}", h.specials_created);
        }
        if h.combination != 0 {
            let _ = write!(text, " {}", combination_name(h.combination));
        }
        if sampled {
            let _ = write!(text, " sampled mean {:.1}", h.mean_sampled_score);
        }
        text.push('\n');
    }
    text
}

/// A Simulate answer: the score distribution, shuffles and cascade depth.
pub(super) fn simulate_text(r: &proto::SwapSimulateResponse) -> String {
    format!(
        "{} games, {} moves played\nscore mean {:.1}, p10 {}, p50 {}, p90 {} (min {}, max {})\n\
         shuffles {} ({:.2} a game), mean cascade depth {:.2} steps a move\n\
         dead games (no shuffle possible) {}\n",
        r.game_scores.len(),
        r.moves_played,
        r.mean_score,
        r.p10_score,
        r.p50_score,
        r.p90_score,
        r.min_score,
        r.max_score,
        r.shuffles,
        r.mean_shuffles,
        r.mean_cascade_depth,
        r.dead_games
    )
}

/// The text form of a ReplayGame answer.
pub(super) fn replay_text(r: &proto::SwapReplayGameResponse) -> String {
    let mut text = start_text(r.start_board.as_ref());
    for (i, m) in r.moves.iter().enumerate() {
        let _ = writeln!(
            text,
            "{:>3}. swap {} score {} steps {}{}{}",
            i + 1,
            m.swap
                .as_ref()
                .map_or_else(|| "(none)".to_owned(), swap_text),
            m.score,
            m.steps,
            if m.shuffled { ", shuffled" } else { "" },
            if m.dead { ", dead" } else { "" }
        );
    }
    if let Some(rejected) = &r.rejected {
        let verdict =
            proto::SwapVerdict::try_from(rejected.verdict).map_or("?", |v| v.as_str_name());
        let _ = writeln!(
            text,
            "move {} (index {}) refused ({}{}): {}; nothing after it applied",
            rejected.index + 1,
            rejected.index,
            rejected.reason,
            if rejected.verdict != 0 {
                format!(", {verdict}")
            } else {
                String::new()
            },
            rejected.message
        );
    }
    let after = r.board.clone().unwrap_or_default();
    let digest = hex(&r.board_digest);
    let _ = write!(
        text,
        "total score {}\nfinal board ({})\n{}digest sha256:{digest}\n",
        r.total_score,
        board_text(&after),
        render_board(&after)
    );
    text
}

/// A piece kind's short name (`STRIPED_H`, ...).
fn kind_name(kind: i32) -> &'static str {
    proto::PieceKind::try_from(kind)
        .map_or("?", |k| k.as_str_name())
        .trim_start_matches("PIECE_KIND_")
}

/// A combination's short name (`BOMB_NORMAL`, ...).
fn combination_name(combination: i32) -> &'static str {
    proto::Combination::try_from(combination)
        .map_or("?", |c| c.as_str_name())
        .trim_start_matches("COMBINATION_")
}

/// The board after each step of a cascade, rebuilt from the events as a client without
/// per-step boards does: the swap exchanges its two tiles before step 1; then each step clears
/// its groups' cells, moves every falling tile at once (a tile may fall into a cell another
/// tile leaves in the same step), and fills its spawns. Positions off the board are skipped.
fn boards_from_events(
    start: &proto::Board,
    swap: Option<&proto::Swap>,
    steps: &[proto::CascadeStep],
) -> Vec<proto::Board> {
    let width = start.width as usize;
    let index = |p: Option<&proto::Position>| {
        p.filter(|p| p.col < start.width && p.row < start.height)
            .map(|p| p.row as usize * width + p.col as usize)
            .filter(|&i| i < start.cells.len())
    };
    let mut cells = start.cells.clone();
    if let Some((a, b)) = swap.and_then(|s| index(s.a.as_ref()).zip(index(s.b.as_ref()))) {
        cells.swap(a, b);
    }
    let mut boards = Vec::with_capacity(steps.len());
    for step in steps {
        for cell in step.groups.iter().flat_map(|g| &g.cells) {
            if let Some(i) = index(Some(cell)) {
                cells[i] = 0;
            }
        }
        let moves: Vec<(usize, usize, u32)> = step
            .falls
            .iter()
            .filter_map(|f| {
                let (from, to) = index(f.from.as_ref()).zip(index(f.to.as_ref()))?;
                Some((from, to, cells[from]))
            })
            .collect();
        for &(from, _, _) in &moves {
            cells[from] = 0;
        }
        for &(_, to, color) in &moves {
            cells[to] = color;
        }
        for spawn in &step.spawns {
            if let Some(i) = index(spawn.position.as_ref()) {
                cells[i] = spawn.color;
            }
        }
        boards.push(proto::Board {
            width: start.width,
            height: start.height,
            cells: cells.clone(),
            ..proto::Board::default()
        });
    }
    boards
}
