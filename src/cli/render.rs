//! Output of the client commands: boards as coloured letter grids, positions and swaps as
//! text, and the choice between those and JSON.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Color, Style};

use crate::engine::{self, board::color_char};
use crate::proto;

/// Prints `response` as pretty JSON, or as the text `render` makes of it (coloured grids on a
/// terminal; anstream strips the colours elsewhere).
pub(super) fn emit<T: serde::Serialize>(
    json: bool,
    response: &T,
    render: impl FnOnce(&T) -> String,
) -> Result<(), String> {
    use std::io::Write as _;
    let text = if json {
        serde_json::to_string_pretty(response).map_err(|e| e.to_string())? + "\n"
    } else {
        render(response)
    };
    anstream::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| format!("stdout: {e}"))
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
/// otherwise).
pub fn render_board(board: &proto::Board) -> String {
    let mut out = String::new();
    let width = board.width.max(1) as usize;
    for row in board.cells.chunks(width) {
        for &cell in row {
            let ch = u8::try_from(cell).map_or('?', color_char);
            let _ = write!(
                out,
                "{}{ch}{} ",
                cell_style(cell).render(),
                cell_style(cell).render_reset()
            );
        }
        out.push('\n');
    }
    out
}

/// The colour of a cell value: one of eight, underlined from colour 9 on; empty cells dimmed.
fn cell_style(cell: u32) -> Style {
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

/// A board's text form (`RRG/GGR`), or the reason it is not a board.
pub(super) fn board_text(board: &proto::Board) -> String {
    engine::Board::from_raw(board.width, board.height, &board.cells)
        .map_or_else(|e| format!("<{e}>"), |b| b.to_string())
}
