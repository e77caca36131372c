//! Output of the client commands: boards as coloured letter grids, positions and swaps as
//! text, and the choice between those and JSON.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Color, Style};

use crate::engine::{self, PieceKind, cell_text};
use crate::proto;

/// Prints `response` as pretty JSON, or as the text `render` makes of it (coloured grids on a
/// terminal; anstream strips the colours elsewhere).
pub(super) fn emit<T: serde::Serialize>(
    json: bool,
    response: &T,
    render: impl FnOnce(&T) -> String,
) -> Result<(), super::Failure> {
    use std::io::Write as _;
    let text = if json {
        serde_json::to_string_pretty(response).map_err(|e| e.to_string())? + "\n"
    } else {
        render(response)
    };
    anstream::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| format!("stdout: {e}").into())
}

/// A board, a count line and the board's text form.
pub(super) fn board_summary(board: Option<&proto::Board>, label: &str, count: u32) -> String {
    let board = board.cloned().unwrap_or_default();
    format!(
        "{}{label}: {count}\ntext: {}\n",
        render_board(&board),
        board_text(&board)
    )
}

/// A board as a letter grid, coloured when stdout is a terminal (anstream strips the colours
/// otherwise), cells one space apart, no space at the end of a row. On a level board every cell
/// takes two columns: `#` a hole (dimmed), `*` a colour
/// bomb, and a special's letter followed by `-`, `|` or `+` (reversed video).
pub fn render_board(board: &proto::Board) -> String {
    let mut out = String::new();
    let mut row = String::new();
    let width = board.width.max(1) as usize;
    let level = !board.holes.is_empty() || !board.kinds.is_empty();
    for (i, &cell) in board.cells.iter().enumerate() {
        let hole = board.holes.get(i).copied().unwrap_or(false);
        let kind = board
            .kinds
            .get(i)
            .and_then(|&k| crate::transport::convert::kind_from_proto(k))
            .unwrap_or_default();
        let (text, style) = if hole {
            ("#".to_owned(), Style::new().dimmed())
        } else if kind == PieceKind::ColorBomb {
            ("*".to_owned(), Style::new().bold().invert())
        } else {
            let color = u8::try_from(cell).unwrap_or(u8::MAX);
            let text = if color > engine::MAX_COLOR {
                "?".to_owned()
            } else {
                cell_text(color, false, kind)
            };
            let style = cell_style(cell);
            (
                text,
                if kind.is_special() {
                    style.invert()
                } else {
                    style
                },
            )
        };
        let pad = if level {
            2 - text.chars().count().min(2)
        } else {
            0
        };
        let _ = write!(
            row,
            "{}{text}{}{}",
            style.render(),
            style.render_reset(),
            " ".repeat(pad)
        );
        if (i + 1) % width == 0 {
            out.push_str(row.trim_end());
            out.push('\n');
            row.clear();
        } else {
            row.push(' ');
        }
    }
    out
}

/// A colour as the letter the board notation writes it with (`R` for 1, `A` for 11, `.` for
/// empty, `?` past 16), as the grids print it.
pub(super) fn color_letter(color: u32) -> String {
    match u8::try_from(color) {
        Ok(color) if color <= engine::MAX_COLOR => cell_text(color, false, PieceKind::default()),
        _ => "?".to_owned(),
    }
}

/// The colour of a cell value: one of eight, underlined from colour 9 on; empty cells dimmed.
pub(super) fn cell_style(cell: u32) -> Style {
    const PALETTE: [AnsiColor; 8] = [
        AnsiColor::Red,
        AnsiColor::Green,
        AnsiColor::Blue,
        AnsiColor::Yellow,
        AnsiColor::Magenta,
        AnsiColor::BrightRed,
        AnsiColor::Cyan,
        AnsiColor::White,
    ];
    match cell {
        0 => Style::new().dimmed(),
        c => {
            let style = Style::new()
                .fg_color(Some(Color::Ansi(PALETTE[(c as usize - 1) % 8])))
                .bold();
            if c > 8 { style.underline() } else { style }
        }
    }
}

/// A position as `ROW,COL` (`?` when absent).
/// The `start (TEXT)` heading and drawing of a replay's generated start board, or nothing
/// when the start was given.
pub(super) fn start_text(start: Option<&proto::Board>) -> String {
    start.map_or_else(String::new, |start| {
        format!("start ({})\n{}", board_text(start), render_board(start))
    })
}

/// A digest as lower-case hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn position_text(position: Option<&proto::Position>) -> String {
    position.map_or_else(|| "?".to_owned(), |p| format!("{},{}", p.row, p.col))
}

/// A swap as `ROW,COL:ROW,COL`.
pub(super) fn swap_text(swap: &proto::Swap) -> String {
    format!(
        "{}:{}",
        position_text(swap.a.as_ref()),
        position_text(swap.b.as_ref())
    )
}

/// A board's text form (`RRG/GGR`, or for a level board `R-G#/*BR+`), or the reason it is not
/// a board.
pub(super) fn board_text(board: &proto::Board) -> String {
    use crate::transport::convert::swap_board_from_proto;
    match swap_board_from_proto(Some(board.clone())) {
        Ok(board) => board.to_string(),
        Err(e) => format!("<{e}>"),
    }
}
