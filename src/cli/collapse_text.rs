//! The text output of the `matchgrid collapse ...` commands (without `--json`).

use std::fmt::Write as _;

use super::render::{board_text, color_letter, hex, position_text, render_board, start_text};
use crate::proto;

/// A Tap answer on `board`: the board before and after, the cleared group and the scores.
pub(super) fn tap_text(board: &proto::Board, r: &proto::TapResponse) -> String {
    let after = r.board.clone().unwrap_or_default();
    let mut text = format!(
        "before\n{}\ncleared {} tile(s) of colour {}\nafter ({})\n{}move score {}, \
         tiles left {}, game over {}",
        render_board(board),
        r.cleared.len(),
        color_letter(r.color),
        board_text(&after),
        render_board(&after),
        r.move_score,
        r.tiles_left,
        r.game_over
    );
    if r.game_over {
        let _ = write!(text, ", end bonus {}, total {}", r.end_bonus, r.total_score);
    }
    text + "\n"
}

/// A Solve answer on `board`: the taps, the final board, the score and the search's figures.
pub(super) fn solve_text(board: &proto::Board, r: &proto::CollapseSolveResponse) -> String {
    let mut text = render_board(board);
    if let Ok(clearability) = proto::Clearability::try_from(r.clearability) {
        let _ = match clearability {
            proto::Clearability::Unspecified => Ok(()),
            proto::Clearability::Clearable => writeln!(text, "CLEARABLE: the taps below clear it"),
            proto::Clearability::Unknown => writeln!(
                text,
                "UNKNOWN within the budget; the taps below leave the fewest tiles found"
            ),
            proto::Clearability::NotClearable => match proto::ClearProof::try_from(r.clear_proof) {
                Ok(proto::ClearProof::StrandedColor) => writeln!(
                    text,
                    "NOT CLEARABLE: colour {} has fewer tiles than a legal group",
                    color_letter(r.stranded_color)
                ),
                _ => writeln!(text, "NOT CLEARABLE: every reachable position was searched"),
            },
        };
    }
    for (i, m) in r.moves.iter().enumerate() {
        let _ = writeln!(
            text,
            "{:>3}. tap {} colour {} size {} score {}",
            i + 1,
            position_text(m.position.as_ref()),
            color_letter(m.color),
            m.size,
            m.move_score
        );
    }
    let after = r.board.clone().unwrap_or_default();
    let stop = proto::SolveStop::try_from(r.stop)
        .map_or_else(|_| r.stop.to_string(), |s| s.as_str_name().to_owned());
    let _ = write!(
        text,
        "final ({})\n{}score {} (end bonus {}), tiles left {}\nsearch: {} nodes, {} \
         playouts, {} level(s) completed, {} run(s), {:.3} s, stop {}{}\ntaps: {}\n",
        board_text(&after),
        render_board(&after),
        r.score,
        r.end_bonus,
        r.tiles_left,
        r.nodes,
        r.playouts,
        r.levels_completed,
        r.runs_completed,
        r.elapsed_micros as f64 / 1e6,
        stop,
        if r.threads > 1 {
            format!(", {} threads", r.threads)
        } else {
            String::new()
        },
        r.moves
            .iter()
            .map(|m| position_text(m.position.as_ref()))
            .collect::<Vec<_>>()
            .join(" ")
    );
    text
}

/// A ReplayGame answer: each tap, a refused tap, the final board and its digest.
pub(super) fn replay_text(r: &proto::CollapseReplayGameResponse) -> String {
    let mut text = start_text(r.start_board.as_ref());
    for (i, m) in r.moves.iter().enumerate() {
        let _ = writeln!(
            text,
            "{:>3}. tap {} colour {} cleared {} score {}, tiles left {}{}",
            i + 1,
            position_text(m.position.as_ref()),
            color_letter(m.color),
            m.cleared,
            m.move_score,
            m.tiles_left,
            if m.game_over {
                format!(", game over, end bonus {}", m.end_bonus)
            } else {
                String::new()
            }
        );
    }
    if let Some(rejected) = &r.rejected {
        let reason = proto::TapRejection::try_from(rejected.reason).map_or_else(
            |_| rejected.reason.to_string(),
            |s| s.as_str_name().to_owned(),
        );
        let _ = writeln!(
            text,
            "tap {} (index {}) at {} refused: {}{}; nothing after it applied",
            rejected.index + 1,
            rejected.index,
            position_text(rejected.position.as_ref()),
            reason,
            if rejected.group_size > 0 {
                format!(" (group of {})", rejected.group_size)
            } else {
                String::new()
            }
        );
    }
    let after = r.board.clone().unwrap_or_default();
    let digest = hex(&r.board_digest);
    let _ = write!(
        text,
        "final ({})\n{}total score {}, tiles left {}, game over {}, end bonus {}\n\
         digest sha256:{}\n",
        board_text(&after),
        render_board(&after),
        r.total_score,
        r.tiles_left,
        r.game_over,
        r.end_bonus,
        digest
    );
    text
}

/// A CheckDeadState answer on `board`: every legal group, the tiles left, game over.
pub(super) fn groups_text(
    board: &proto::Board,
    r: &proto::CollapseCheckDeadStateResponse,
) -> String {
    let mut text = render_board(board);
    for group in &r.groups {
        let _ = writeln!(
            text,
            "group at {} colour {} size {} score {}",
            position_text(group.representative.as_ref()),
            color_letter(group.color),
            group.size,
            group.score
        );
    }
    let _ = write!(
        text,
        "tiles left {}, game over {}",
        r.tiles_left, r.game_over
    );
    if r.game_over {
        let _ = write!(text, ", end bonus {}", r.end_bonus);
    }
    text + "\n"
}
