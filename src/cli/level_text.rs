//! The text form of the level commands' answers: boards drawn with their layers, goals and
//! their progress, a move's hits and collections, replays and simulations.

use std::fmt::Write as _;

use anstyle::{Ansi256Color, AnsiColor, Color, Style};

use super::level_file::LevelFile;
use super::render::{board_text, color_letter, position_text, swap_text};
use crate::engine::{self, PieceKind, cell_text};
use crate::proto;

/// The marks of the drawing, printed under boards with layers.
pub(super) const LEGEND: &str = "legend: # hole, X1..X5 blocker (hit points), ~ locked, \
                                 ' \" jelly (1, 2 layers), @ ingredient, _ exit";

/// A board with its level layers, one cell per column group: the cell in the level notation
/// (`R~'`, `X2`, `@_`, ...), padded to the widest cell. On a terminal pieces are coloured as
/// [`super::render_board`] colours them, blockers drawn white on grey, ingredients bold
/// yellow, locks and exits bold, and jelly as a background (darker for two layers); elsewhere
/// the notation alone says it all. Exits are drawn while an ingredient is on the board.
pub(super) fn render_layers(board: &proto::Board) -> String {
    let width = board.width.max(1) as usize;
    let cells: Vec<Vec<(String, Style)>> = (0..board.cells.len())
        .map(|i| cell_parts(board, i))
        .collect();
    let widest = cells
        .iter()
        .map(|parts| parts.iter().map(|(t, _)| t.chars().count()).sum::<usize>())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for row in cells.chunks(width) {
        let mut line = String::new();
        for (c, parts) in row.iter().enumerate() {
            if c > 0 {
                line.push(' ');
            }
            let mut len = 0;
            for (text, style) in parts {
                len += text.chars().count();
                let _ = write!(line, "{}{text}{}", style.render(), style.render_reset());
            }
            line.push_str(&" ".repeat(widest - len));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Cell `i` of `board` as styled parts: the piece, then its lock, jelly and exit marks.
fn cell_parts(board: &proto::Board, i: usize) -> Vec<(String, Style)> {
    let at = |list: &[u32]| list.get(i).copied().unwrap_or(0);
    let flag = |list: &[bool]| list.get(i).copied().unwrap_or(false);
    let jelly = at(&board.jelly);
    let background = match jelly {
        0 => None,
        1 => Some(Color::Ansi256(Ansi256Color(238))),
        _ => Some(Color::Ansi256(Ansi256Color(244))),
    };
    let kind = board
        .kinds
        .get(i)
        .and_then(|&k| crate::transport::convert::kind_from_proto(k))
        .unwrap_or_default();
    let blocker = at(&board.blockers);
    let (piece, style) = if flag(&board.holes) {
        ("#".to_owned(), Style::new().dimmed())
    } else if blocker > 0 {
        (
            format!("X{blocker}"),
            Style::new()
                .bold()
                .fg_color(Some(Color::Ansi(AnsiColor::BrightWhite)))
                .bg_color(Some(Color::Ansi(AnsiColor::BrightBlack))),
        )
    } else if kind == PieceKind::Ingredient {
        (
            "@".to_owned(),
            Style::new()
                .bold()
                .fg_color(Some(Color::Ansi(AnsiColor::BrightYellow))),
        )
    } else if kind == PieceKind::ColorBomb {
        ("*".to_owned(), Style::new().bold().invert())
    } else {
        let cell = board.cells.get(i).copied().unwrap_or(0);
        let text = match u8::try_from(cell) {
            Ok(color) if color <= engine::MAX_COLOR => cell_text(color, false, kind),
            _ => "?".to_owned(),
        };
        let style = super::render::cell_style(cell);
        (
            text,
            if kind.is_special() {
                style.invert()
            } else {
                style
            },
        )
    };
    let mark = |text: &str| {
        let style = Style::new().bold().bg_color(background);
        (text.to_owned(), style)
    };
    let mut parts = vec![(
        piece,
        if background.is_some() && blocker == 0 {
            style.bg_color(background)
        } else {
            style
        },
    )];
    if flag(&board.locks) {
        parts.push(mark("~"));
    }
    match jelly {
        0 => {}
        1 => parts.push(mark("'")),
        _ => parts.push(mark("\"")),
    }
    let ingredients = board.kinds.contains(&(proto::PieceKind::Ingredient as i32));
    if flag(&board.exits) && ingredients {
        parts.push((
            "_".to_owned(),
            Style::new()
                .bold()
                .fg_color(Some(Color::Ansi(AnsiColor::BrightGreen))),
        ));
    }
    parts
}

/// A goal as text: `SCORE 3000`, `COLLECT R 20`, `CLEAR_JELLY`.
pub(super) fn goal_text(goal: &proto::Goal) -> String {
    match proto::GoalKind::try_from(goal.kind) {
        Ok(proto::GoalKind::Score) => format!("SCORE {}", goal.target),
        Ok(proto::GoalKind::Collect) => {
            format!("COLLECT {} {}", color_letter(goal.color), goal.target)
        }
        Ok(proto::GoalKind::BringDown) => format!("BRING_DOWN {}", goal.target),
        Ok(kind) => kind
            .as_str_name()
            .trim_start_matches("GOAL_KIND_")
            .to_owned(),
        Err(_) => "?".to_owned(),
    }
}

/// One goal's progress: `SCORE 1234/3000`, `CLEAR_JELLY 12 layers left`, with ` (met)`.
fn progress_text(goal: &proto::Goal, progress: Option<&proto::GoalProgress>) -> String {
    let Some(progress) = progress else {
        return format!("{} ?", goal_text(goal));
    };
    let value = progress.value;
    let text = match proto::GoalKind::try_from(goal.kind) {
        Ok(proto::GoalKind::ClearJelly) => format!("CLEAR_JELLY {value} layers left"),
        Ok(proto::GoalKind::ClearBlockers) => format!("CLEAR_BLOCKERS {value} left"),
        Ok(proto::GoalKind::Collect) => {
            format!(
                "COLLECT {} {value}/{}",
                color_letter(goal.color),
                goal.target
            )
        }
        Ok(proto::GoalKind::Score) => format!("SCORE {value}/{}", goal.target),
        Ok(proto::GoalKind::BringDown) => format!("BRING_DOWN {value}/{}", goal.target),
        _ => format!("? {value}"),
    };
    if progress.met { text + " (met)" } else { text }
}

/// Every goal's progress, `; ` apart.
pub(super) fn goals_progress(level: &proto::Level, progress: &[proto::GoalProgress]) -> String {
    level
        .goals
        .iter()
        .enumerate()
        .map(|(i, goal)| progress_text(goal, progress.get(i)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// A status's name without its prefix (`PLAYING`, `WON`, ...).
pub(super) fn status_name(status: i32) -> &'static str {
    proto::LevelStatus::try_from(status)
        .map_or("?", |s| s.as_str_name().trim_start_matches("LEVEL_STATUS_"))
}

/// A state: its board drawn, its text form, then moves left, score, goals and status.
pub(super) fn state_text(level: &proto::Level, state: &proto::LevelState) -> String {
    let board = state.board.clone().unwrap_or_default();
    format!(
        "{}text: {}\nmoves left {}, score {}\ngoals: {}\nstatus {}\n",
        render_layers(&board),
        board_text(&board),
        state.moves_left,
        state.score,
        goals_progress(level, &state.progress),
        status_name(state.status)
    )
}

/// StartLevel's answer: the level's name and goals, the start state and the legend.
pub(super) fn start_text(file: &LevelFile, state: &proto::LevelState, seed: u64) -> String {
    let level = &file.level;
    let board = level.board.clone().unwrap_or_default();
    let mut text = format!("level {:?}", file.name);
    if !file.description.is_empty() {
        let _ = write!(text, ": {}", file.description);
    }
    let _ = writeln!(
        text,
        "\n{}x{}, {} colours, {} moves; {}",
        board.width,
        board.height,
        level.colors,
        level.move_limit,
        if file.layout {
            format!("start generated on the layout with seed {seed}")
        } else {
            "fixed start board".to_owned()
        }
    );
    let goals: Vec<String> = level.goals.iter().map(goal_text).collect();
    let _ = writeln!(text, "goals: {}", goals.join(", "));
    text + &state_text(level, state) + LEGEND + "\n"
}

/// One PlayMove answer, played on `before`: the swap, the steps' score, hits and
/// collections, the new state.
pub(super) fn move_text(
    level: &proto::Level,
    before: &proto::Board,
    index: usize,
    swap: &proto::Swap,
    seed: u64,
    r: &proto::PlayMoveResponse,
) -> String {
    let score: u64 = r.steps.iter().map(|s| s.score).sum();
    let mut text = format!(
        "move {}: swap {} (seed {seed}): {} steps, +{score} points{}\n",
        index + 1,
        swap_text(swap),
        r.steps.len(),
        if r.shuffled { ", shuffled" } else { "" }
    );
    let hits: Vec<String> = r
        .steps
        .iter()
        .flat_map(|s| &s.hits)
        .map(|hit| hit_text(before, hit))
        .collect();
    if !hits.is_empty() {
        let _ = writeln!(text, "hits ({}): {}", hits.len(), hits.join(", "));
    }
    let collected: Vec<String> = r
        .steps
        .iter()
        .flat_map(|s| &s.collected)
        .map(|p| position_text(Some(p)))
        .collect();
    if !collected.is_empty() {
        let _ = writeln!(
            text,
            "ingredients collected ({}): {}",
            collected.len(),
            collected.join(", ")
        );
    }
    text + &state_text(level, &r.state.clone().unwrap_or_default())
}

/// A hit as `ROW,COL` and what it did: `unlocked`, `blocker 1 left`, `blocker destroyed`,
/// `jelly 1 left`, `jelly cleared` (a blocker is told from jelly by `before`, the board the
/// move was played on: blockers never move).
fn hit_text(before: &proto::Board, hit: &proto::Hit) -> String {
    let index = hit.position.as_ref().map_or(usize::MAX, |p| {
        p.row as usize * before.width as usize + p.col as usize
    });
    let had_blocker = before.blockers.get(index).is_some_and(|&b| b > 0);
    let mut what = Vec::new();
    if hit.lock_removed {
        what.push("unlocked".to_owned());
    }
    if hit.blocker_left > 0 {
        what.push(format!("blocker {} left", hit.blocker_left));
    } else if had_blocker {
        what.push("blocker destroyed".to_owned());
    }
    if hit.jelly_left > 0 {
        what.push(format!("jelly {} left", hit.jelly_left));
    } else if what.is_empty() {
        what.push("jelly cleared".to_owned());
    }
    format!(
        "{} {}",
        position_text(hit.position.as_ref()),
        what.join(", ")
    )
}

/// A level's ReplayGame answer: each move, a refusal, and how the game stands.
pub(super) fn replay_text(level: &proto::Level, r: &proto::SwapReplayGameResponse) -> String {
    let mut text = String::new();
    for (i, m) in r.moves.iter().enumerate() {
        let _ = writeln!(
            text,
            "{:>3}. swap {} score {} steps {}{}",
            i + 1,
            m.swap
                .as_ref()
                .map_or_else(|| "(none)".to_owned(), swap_text),
            m.score,
            m.steps,
            if m.shuffled { ", shuffled" } else { "" },
        );
    }
    if let Some(rejected) = &r.rejected {
        let _ = writeln!(
            text,
            "move {} (index {}) refused ({}): {}; nothing after it applied",
            rejected.index + 1,
            rejected.index,
            rejected.reason,
            rejected.message
        );
    }
    let Some(replay) = &r.level else {
        return text + "no level answer\n";
    };
    let decided = replay.decided_at.map_or_else(
        || "not decided yet".to_owned(),
        |at| format!("decided at move {} (index {at})", at + 1),
    );
    let board = replay
        .state
        .as_ref()
        .and_then(|s| s.board.clone())
        .unwrap_or_default();
    let _ = write!(
        text,
        "{}text: {}\nstatus {}, {decided}\nmoves left {}, score {}\ngoals: {}\n",
        render_layers(&board),
        board_text(&board),
        status_name(replay.status),
        replay.moves_left,
        replay.score,
        goals_progress(level, &replay.progress)
    );
    text
}

/// A level's Simulate answer: pass rate, attempts, moves left, loss progress, losses.
pub(super) fn simulate_text(
    level: &proto::Level,
    policy: &str,
    r: &proto::SwapSimulateResponse,
) -> String {
    let Some(s) = &r.level else {
        return "no level answer\n".to_owned();
    };
    let mut text = format!(
        "{} games ({policy}), {} won: pass rate {:.1}% (95% interval {:.1}%-{:.1}%)\n",
        s.games,
        s.wins,
        s.pass_rate * 100.0,
        s.pass_rate_low * 100.0,
        s.pass_rate_high * 100.0
    );
    if s.wins > 0 {
        let _ = writeln!(
            text,
            "attempts per success {:.2}\nmoves left among wins: mean {:.1}, p10 {}, p50 {}, p90 {}",
            s.attempts_per_success,
            s.moves_left_mean,
            s.moves_left_p10,
            s.moves_left_p50,
            s.moves_left_p90
        );
    } else {
        text.push_str("no game won\n");
    }
    if !s.loss_progress.is_empty() {
        let progress: Vec<String> = level
            .goals
            .iter()
            .zip(&s.loss_progress)
            .map(|(goal, share)| format!("{} {:.0}%", goal_text(goal), share * 100.0))
            .collect();
        let _ = writeln!(text, "among losses, goals done: {}", progress.join(", "));
    }
    let _ = writeln!(
        text,
        "lost out of moves {}, lost dead {}",
        s.lost_out_of_moves, s.lost_dead
    );
    text
}
