//! The level file format of docs/levels.md: a JSON object a designer writes by hand (name,
//! colours, move limit, the board as rows of the text notation, goals), read into the wire's
//! [`proto::Level`]. Errors name the file, the field and, for the board, the row and column.

use std::path::Path;

use serde::Deserialize;

use crate::engine::{self, COLOR_LETTERS, EngineError, LevelError};
use crate::proto;

/// A level read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelFile {
    /// The level's name (the file's stem when the file has none).
    pub name: String,
    /// The designer's description, empty when none.
    pub description: String,
    /// True when the board is a layout (every game's start generated on it per seed).
    pub layout: bool,
    /// The level as the service takes it.
    pub level: proto::Level,
}

/// The JSON object of a level file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLevel {
    name: Option<String>,
    #[serde(default)]
    description: String,
    colors: u32,
    move_limit: u32,
    board: Vec<String>,
    goals: Vec<RawGoal>,
}

/// One goal of a level file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGoal {
    kind: String,
    target: Option<u64>,
    color: Option<RawColor>,
}

/// A colour: its letter (`"R"`) or its number (`1`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum RawColor {
    Number(u32),
    Letter(String),
}

/// Reads the level file at `path`.
///
/// # Errors
/// A one-line message starting with the file's path: unreadable, not JSON (with its line and
/// column), a missing or unknown field, a bad value (naming the field, `goals[i]`, or the
/// board's row and column).
pub fn read_level_file(path: &Path) -> Result<LevelFile, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    parse_level(&text, &stem).map_err(|e| format!("{}: {e}", path.display()))
}

/// Parses a level file's text; `default_name` names a level without `name`.
///
/// # Errors
/// As [`read_level_file`], without the path.
pub fn parse_level(text: &str, default_name: &str) -> Result<LevelFile, String> {
    let raw: RawLevel = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !(2..=16).contains(&raw.colors) {
        return Err(format!("colors: must be 2..=16, got {}", raw.colors));
    }
    if !(1..=1000).contains(&raw.move_limit) {
        return Err(format!(
            "move_limit: must be 1..=1000, got {}",
            raw.move_limit
        ));
    }
    if raw.goals.is_empty() || raw.goals.len() > 8 {
        return Err(format!(
            "goals: a level has 1..=8 goals, got {}",
            raw.goals.len()
        ));
    }
    let goals = raw
        .goals
        .iter()
        .enumerate()
        .map(|(i, goal)| parse_goal(goal, raw.colors).map_err(|e| format!("goals[{i}]: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let (board, layout) = parse_rows(&raw.board).map_err(|e| format!("board: {e}"))?;
    Ok(LevelFile {
        name: raw.name.unwrap_or_else(|| default_name.to_owned()),
        description: raw.description,
        layout,
        level: proto::Level {
            board: Some(board),
            colors: raw.colors,
            move_limit: raw.move_limit,
            goals,
        },
    })
}

/// The goal kinds, as a level file spells them.
const GOAL_KINDS: [(&str, proto::GoalKind); 5] = [
    ("SCORE", proto::GoalKind::Score),
    ("CLEAR_JELLY", proto::GoalKind::ClearJelly),
    ("COLLECT", proto::GoalKind::Collect),
    ("CLEAR_BLOCKERS", proto::GoalKind::ClearBlockers),
    ("BRING_DOWN", proto::GoalKind::BringDown),
];

fn parse_goal(goal: &RawGoal, colors: u32) -> Result<proto::Goal, String> {
    let kind = GOAL_KINDS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(&goal.kind))
        .map(|&(_, kind)| kind)
        .ok_or_else(|| {
            let names: Vec<&str> = GOAL_KINDS.iter().map(|(name, _)| *name).collect();
            format!(
                "kind: unknown goal {:?}; one of {}",
                goal.kind,
                names.join(", ")
            )
        })?;
    let counted = matches!(
        kind,
        proto::GoalKind::Score | proto::GoalKind::Collect | proto::GoalKind::BringDown
    );
    let target = match (counted, goal.target) {
        (true, Some(0)) => return Err("target: must be at least 1".to_owned()),
        (true, Some(target)) => target,
        (true, None) => return Err(format!("target: {} needs a target", goal.kind)),
        (false, Some(_)) => {
            return Err(format!("target: {} takes no target", goal.kind));
        }
        (false, None) => 0,
    };
    let color = match (kind, &goal.color) {
        (proto::GoalKind::Collect, Some(color)) => parse_color(color, colors)?,
        (proto::GoalKind::Collect, None) => {
            return Err("color: COLLECT needs a color (a letter such as \"R\", or 1..=16)".into());
        }
        (_, Some(_)) => return Err(format!("color: {} takes no color", goal.kind)),
        (_, None) => 0,
    };
    Ok(proto::Goal {
        kind: kind as i32,
        target,
        color,
    })
}

fn parse_color(color: &RawColor, colors: u32) -> Result<u32, String> {
    let number = match color {
        RawColor::Number(n) => *n,
        RawColor::Letter(text) => {
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => COLOR_LETTERS
                    .iter()
                    .position(|&l| char::from(l) == c.to_ascii_uppercase())
                    .map_or(0, |i| i as u32 + 1),
                _ => 0,
            }
        }
    };
    if number == 0 || number > colors {
        let letters = &COLOR_LETTERS[..colors as usize];
        return Err(format!(
            "color: must be one of the level's colours {} (or 1..={colors}), got {}",
            String::from_utf8_lossy(letters),
            match color {
                RawColor::Number(n) => n.to_string(),
                RawColor::Letter(text) => format!("{text:?}"),
            }
        ));
    }
    Ok(number)
}

/// What a cell of the notation holds, as far as telling a layout from a start board goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A hole, a blocker or an ingredient: the same on a layout and a start board.
    Fixed,
    /// `.` or `0`.
    Empty,
    /// A colour or a colour bomb.
    Piece,
}

/// One cell of a row: what it holds, and its text with `.` replaced by a placeholder colour
/// (so that a layout's locks parse).
fn tokenize_row(row: &str, r: usize) -> Result<Vec<(Slot, String)>, String> {
    let mut cells = Vec::new();
    let mut chars = row.chars().peekable();
    while let Some(ch) = chars.next() {
        let c = cells.len();
        let at = format!("row {r}, col {c}");
        let (slot, mut text) = match ch {
            '#' => (Slot::Fixed, "#".to_owned()),
            '@' => (Slot::Fixed, "@".to_owned()),
            '.' | '0' => (Slot::Empty, "R".to_owned()),
            '*' => (Slot::Piece, "*".to_owned()),
            'X' | 'x' => match chars.next() {
                Some(d @ '1'..='5') => (Slot::Fixed, format!("X{d}")),
                other => {
                    return Err(format!(
                        "{at}: a blocker is X1 to X5 (its hit points), got X{}",
                        other.map_or_else(String::new, String::from)
                    ));
                }
            },
            c if c.is_ascii_digit() || COLOR_LETTERS.contains(&(c.to_ascii_uppercase() as u8)) => {
                let mut text = c.to_string();
                if let Some(mark) = chars.next_if(|&m| matches!(m, '-' | '|' | '+')) {
                    text.push(mark);
                }
                (Slot::Piece, text)
            }
            other => {
                return Err(format!(
                    "{at}: unknown character {other:?} (cells: '#' hole, '.' slot, '*' colour \
                     bomb, '@' ingredient, X1..X5 blocker, a colour letter of {} optionally \
                     followed by '-', '|' or '+'; then '~' lock, ' or \" jelly, '_' exit)",
                    String::from_utf8_lossy(COLOR_LETTERS)
                ));
            }
        };
        let lock = chars.next_if_eq(&'~');
        let jelly = chars.next_if(|&m| m == '\'' || m == '"');
        let exit = chars.next_if_eq(&'_');
        text.extend([lock, jelly, exit].into_iter().flatten());
        if let Some(&next) = chars.peek()
            && matches!(next, '~' | '\'' | '"' | '_' | '-' | '|' | '+')
        {
            return Err(format!(
                "{at}: mark {next:?} out of place (after a cell: a special mark '-', '|' or '+' \
                 on a colour, then '~', then ' or \", then '_', each at most once)"
            ));
        }
        cells.push((slot, text));
    }
    Ok(cells)
}

/// The board of a level file and whether it is a layout.
fn parse_rows(rows: &[String]) -> Result<(proto::Board, bool), String> {
    if rows.is_empty() {
        return Err("needs at least one row".to_owned());
    }
    let mut grid = Vec::with_capacity(rows.len());
    for (r, row) in rows.iter().enumerate() {
        let cells = tokenize_row(row, r)?;
        if let Some(first) = grid.first().map(Vec::len)
            && cells.len() != first
        {
            return Err(format!(
                "row {r} has {} cells, row 0 has {first}",
                cells.len()
            ));
        }
        grid.push(cells);
    }
    let width = grid[0].len();
    let cells = || {
        grid.iter()
            .enumerate()
            .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, cell)| (r, c, cell)))
    };
    let layout = !cells().any(|(_, _, (slot, _))| *slot == Slot::Piece);
    if !layout && let Some((r, c, _)) = cells().find(|(_, _, (slot, _))| *slot == Slot::Empty) {
        return Err(format!(
            "row {r}, col {c}: empty ('.') on a start board; a start board has a piece on \
             every slot, a layout (every game's start generated on it) has '.' on every slot"
        ));
    }
    let text = if layout {
        grid.iter()
            .map(|row| {
                row.iter()
                    .map(|(_, text)| text.as_str())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    } else {
        rows.join("/")
    };
    let at_cell = |index: usize| format!("row {}, col {}", index / width, index % width);
    let board = engine::SwapBoard::parse(&text).map_err(|e| match &e {
        EngineError::Level(level) => match cell_index(level) {
            Some(index) => format!("{}: {level}", at_cell(index)),
            None => level.to_string(),
        },
        _ => e.to_string(),
    })?;
    let mut message = proto::Board::from(&board);
    if layout {
        message.cells.iter_mut().for_each(|cell| *cell = 0);
        if message.jelly.is_empty() {
            // A layout without level layers: still sent with them, so that the service reads
            // it as a level layout.
            let n = message.cells.len();
            message.jelly = vec![0; n];
        }
    } else {
        engine::StableBoard::try_from(board)
            .map_err(|e| format!("a start board must be stable (no run, no empty slot): {e}"))?;
    }
    Ok((message, layout))
}

/// The row-major cell a board fault is at, when it is at one.
fn cell_index(error: &LevelError) -> Option<usize> {
    match error {
        LevelError::UnknownKind { index, .. }
        | LevelError::TileOnHole { index, .. }
        | LevelError::KindOnHole { index }
        | LevelError::KindOnEmpty { index }
        | LevelError::ColorOnBomb { index, .. }
        | LevelError::ColorOnIngredient { index, .. }
        | LevelError::BadLayer { index, .. } => Some(*index),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(board: &str, goals: &str) -> Result<LevelFile, String> {
        parse_level(
            &format!(r#"{{"colors": 5, "move_limit": 10, "board": {board}, "goals": {goals}}}"#),
            "test",
        )
    }

    const SCORE: &str = r#"[{"kind": "SCORE", "target": 100}]"#;

    #[test]
    fn a_layout_has_zero_cells_and_its_layers() {
        let file = level(r##"["#...", ".~'...", "X2.@."]"##, SCORE).unwrap();
        assert!(file.layout);
        assert_eq!(file.name, "test");
        let board = file.level.board.unwrap();
        assert_eq!((board.width, board.height), (4, 3));
        assert!(board.cells.iter().all(|&c| c == 0));
        assert!(board.locks[4]);
        assert_eq!(board.jelly[4], 1);
        assert_eq!(board.blockers[8], 2);
        assert_eq!(board.kinds[10], proto::PieceKind::Ingredient as i32);
        assert!(board.holes[0]);
    }

    #[test]
    fn a_start_board_is_kept_and_must_be_stable() {
        let file = level(r#"["RGB", "GBR'", "BRG"]"#, SCORE).unwrap();
        assert!(!file.layout);
        assert_eq!(file.level.board.unwrap().cells[0], 1);
        let error = level(r#"["RRR", "GBR", "BRG"]"#, SCORE).unwrap_err();
        assert!(error.contains("stable"), "{error}");
        let error = level(r#"["RG.", "GBR", "BRG"]"#, SCORE).unwrap_err();
        assert!(error.starts_with("board: row 0, col 2: empty"), "{error}");
    }

    #[test]
    fn board_errors_name_row_and_column() {
        let error = level(r#"["...", "..Z"]"#, SCORE).unwrap_err();
        assert!(
            error.starts_with("board: row 1, col 2: unknown character 'Z'"),
            "{error}"
        );
        let error = level(r#"["...", "X9.."]"#, SCORE).unwrap_err();
        assert!(
            error.starts_with("board: row 1, col 0: a blocker"),
            "{error}"
        );
        let error = level(r#"["...", "...."]"#, SCORE).unwrap_err();
        assert_eq!(error, "board: row 1 has 4 cells, row 0 has 3");
        let error = level(r#"["...", "@~.."]"#, SCORE).unwrap_err();
        assert!(error.starts_with("board: row 1, col 0: "), "{error}");
    }

    #[test]
    fn goals_are_checked_by_field() {
        let board = r#"["...", "..."]"#;
        let file = level(
            board,
            r#"[{"kind": "COLLECT", "color": "G", "target": 20}, {"kind": "clear_jelly"}]"#,
        )
        .unwrap();
        assert_eq!(
            file.level.goals,
            vec![
                proto::Goal {
                    kind: proto::GoalKind::Collect as i32,
                    target: 20,
                    color: 2
                },
                proto::Goal {
                    kind: proto::GoalKind::ClearJelly as i32,
                    target: 0,
                    color: 0
                },
            ]
        );
        for (goals, message) in [
            (
                r#"[{"kind": "SCORE"}]"#,
                "goals[0]: target: SCORE needs a target",
            ),
            (
                r#"[{"kind": "COLLECT", "color": "I", "target": 3}]"#,
                "goals[0]: color: must be one of",
            ),
            (
                r#"[{"kind": "WIN"}]"#,
                "goals[0]: kind: unknown goal \"WIN\"",
            ),
            (
                r#"[{"kind": "CLEAR_JELLY", "target": 3}]"#,
                "goals[0]: target: CLEAR_JELLY takes no target",
            ),
            (r#"[]"#, "goals: a level has 1..=8 goals, got 0"),
        ] {
            let error = level(board, goals).unwrap_err();
            assert!(error.starts_with(message), "{goals}: {error}");
        }
        let error = parse_level(
            r#"{"colors": 5, "move_limit": 10, "board": ["."], "goals": [], "colours": 3}"#,
            "x",
        )
        .unwrap_err();
        assert!(error.contains("unknown field `colours`"), "{error}");
    }
}
