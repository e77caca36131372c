//! The pass rates of the example levels (`examples/levels/*.json`, docs/levels.md), measured
//! with the engine alone: each level file is read (a small reader of the level file format,
//! duplicated from the CLI's so that the engine needs no serde), built with [`Level::new`], and
//! simulated by [`simulate_level`] with the greedy policy and the flat Monte-Carlo search.
//!
//! ```sh
//! cargo run --release -p matchgrid-engine --example level_pass_rates -- \
//!     [--greedy-games N] [--search-games N] [--seed N] [FILE.json ...]
//! ```
//! Without files, every `examples/levels/*.json` of the repository. `--search-games 0` skips
//! the search (it is slow).

use std::path::{Path, PathBuf};
use std::time::Instant;

use matchgrid_engine::{
    COLOR_LETTERS, Goal, Level, LevelLayers, LevelPolicy, LevelSimulation, LevelStart, StableBoard,
    SwapBoard, simulate_level,
};
use serde_json::Value;

/// The search the docs report: 4 candidates, 8 rollouts, 3 greedy moves deep.
const SEARCH: LevelPolicy = LevelPolicy::Search {
    candidates: 4,
    rollouts: 8,
    depth: 3,
};

fn main() {
    let mut greedy_games = 400u32;
    let mut search_games = 40u32;
    let mut seed = 1u64;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| fail(&format!("{name} needs a number")))
        };
        match arg.as_str() {
            "--greedy-games" => greedy_games = number("--greedy-games") as u32,
            "--search-games" => search_games = number("--search-games") as u32,
            "--seed" => seed = number("--seed"),
            _ => files.push(PathBuf::from(arg)),
        }
    }
    if files.is_empty() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/levels");
        let entries =
            std::fs::read_dir(&dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
        files = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
    }
    println!(
        "| level | policy | games | wins | pass rate (95% interval) | moves left p50 | time |"
    );
    println!("|---|---|---|---|---|---|---|");
    for file in &files {
        let (name, level) = read_level(file).unwrap_or_else(|e| fail(&e));
        let runs = [
            ("greedy", LevelPolicy::Greedy, greedy_games),
            ("search 4/8/3", SEARCH, search_games),
        ];
        for (label, policy, games) in runs {
            if games == 0 {
                continue;
            }
            let started = Instant::now();
            let sim = simulate_level(&level, policy, games, seed, || true)
                .unwrap_or_else(|e| fail(&format!("{}: {e}", file.display())))
                .expect("never stopped");
            println!(
                "{}",
                row(&name, label, &sim, started.elapsed().as_secs_f64())
            );
        }
    }
}

/// One table row of a simulation.
fn row(name: &str, policy: &str, sim: &LevelSimulation, seconds: f64) -> String {
    let p50 = sim.moves_left.map_or("-".to_owned(), |m| m.p50.to_string());
    format!(
        "| {name} | {policy} | {} | {} | {:.0}% ({:.0}%-{:.0}%) | {p50} | {seconds:.1} s |",
        sim.games,
        sim.wins,
        sim.pass_rate * 100.0,
        sim.pass_rate_low * 100.0,
        sim.pass_rate_high * 100.0,
    )
}

fn fail(message: &str) -> ! {
    eprintln!("level_pass_rates: {message}");
    std::process::exit(1)
}

/// A level file (docs/levels.md): its name and the engine's level.
fn read_level(path: &Path) -> Result<(String, Level), String> {
    let at = |e: String| format!("{}: {e}", path.display());
    let text = std::fs::read_to_string(path).map_err(|e| at(e.to_string()))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| at(e.to_string()))?;
    let name = json["name"].as_str().unwrap_or("?").to_owned();
    let number = |field: &str| {
        json[field]
            .as_u64()
            .ok_or_else(|| at(format!("{field}: a number is needed")))
    };
    let colors = u8::try_from(number("colors")?).map_err(|e| at(e.to_string()))?;
    let move_limit = u32::try_from(number("move_limit")?).map_err(|e| at(e.to_string()))?;
    let rows: Vec<&str> = json["board"]
        .as_array()
        .ok_or_else(|| at("board: a list of rows is needed".into()))?
        .iter()
        .map(|r| r.as_str().unwrap_or(""))
        .collect();
    let start = start(&rows.join("/")).map_err(at)?;
    let goals = json["goals"]
        .as_array()
        .ok_or_else(|| at("goals: a list is needed".into()))?
        .iter()
        .map(goal)
        .collect::<Result<Vec<_>, _>>()
        .map_err(at)?;
    let level = Level::new(start, colors, move_limit, goals).map_err(|e| at(e.to_string()))?;
    Ok((name, level))
}

/// A fixed start board, or a layout when no cell holds a colour (`.` for every slot).
fn start(text: &str) -> Result<LevelStart, String> {
    let mut stripped = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == 'X' {
            chars.next();
        } else {
            stripped.push(c.to_ascii_uppercase());
        }
    }
    let coloured = stripped
        .chars()
        .any(|c| c == '*' || c.is_ascii_digit() || COLOR_LETTERS.contains(&(c as u8)));
    if coloured {
        let board = SwapBoard::parse(text).map_err(|e| e.to_string())?;
        let board = StableBoard::try_from(board).map_err(|e| e.to_string())?;
        return Ok(LevelStart::Board(board));
    }
    let placeholder = SwapBoard::parse(&text.replace('.', "R")).map_err(|e| e.to_string())?;
    let layers = LevelLayers {
        jelly: placeholder.jelly().map(<[u8]>::to_vec).unwrap_or_default(),
        blockers: placeholder
            .blockers()
            .map(<[u8]>::to_vec)
            .unwrap_or_default(),
        locks: placeholder
            .locks()
            .map(Iterator::collect)
            .unwrap_or_default(),
        exits: if text.contains('_') {
            placeholder
                .exits()
                .map(<[bool]>::to_vec)
                .unwrap_or_default()
        } else {
            Vec::new()
        },
    };
    let layout = SwapBoard::layout(
        placeholder.width() as u32,
        placeholder.height() as u32,
        placeholder
            .holes()
            .map(<[bool]>::to_vec)
            .unwrap_or_default(),
        placeholder.kinds().map(<[_]>::to_vec).unwrap_or_default(),
        layers,
    )
    .map_err(|e| e.to_string())?;
    Ok(LevelStart::Layout(layout))
}

/// A goal of the level file.
fn goal(json: &Value) -> Result<Goal, String> {
    let target = || {
        json["target"]
            .as_u64()
            .ok_or("goals: a target is needed".to_owned())
    };
    match json["kind"]
        .as_str()
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        Some("SCORE") => Ok(Goal::Score(target()?)),
        Some("CLEAR_JELLY") => Ok(Goal::ClearJelly),
        Some("CLEAR_BLOCKERS") => Ok(Goal::ClearBlockers),
        Some("BRING_DOWN") => Ok(Goal::BringDown(target()?)),
        Some("COLLECT") => {
            let color = match &json["color"] {
                Value::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()),
                Value::String(s) => s
                    .chars()
                    .next()
                    .and_then(|c| {
                        COLOR_LETTERS
                            .iter()
                            .position(|&l| l == c.to_ascii_uppercase() as u8)
                    })
                    .and_then(|i| u8::try_from(i + 1).ok()),
                _ => None,
            }
            .ok_or("goals: COLLECT needs a colour")?;
            Ok(Goal::Collect {
                color,
                count: target()?,
            })
        }
        other => Err(format!("goals: unknown kind {other:?}")),
    }
}
