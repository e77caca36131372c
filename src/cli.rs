//! The `matchgrid` command line: `serve` runs the server; `swap ...` and `collapse ...` are a
//! small gRPC client for trying the service. Boards are given in text form (`RRG/GGR`: rows top
//! to bottom joined by `/`, `.` empty, letters or digits colours; see [`crate::engine::board`]).

use std::fmt::Write as _;

use anstyle::{AnsiColor, Color, Style};
use clap::{Args, Parser, Subcommand, ValueEnum};
use tonic::transport::Channel;

use crate::engine::{self, board::color_char};
use crate::proto::{
    self, collapse_puzzle_client::CollapsePuzzleClient, swap_puzzle_client::SwapPuzzleClient,
};
use crate::server::ServeConfig;

/// matchgrid: a stateless gRPC engine for match-3 (swap) and PopStar/SameGame (collapse) puzzles.
#[derive(Debug, Parser)]
#[command(name = "matchgrid", version, about, propagate_version = true)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gRPC server.
    Serve(ServeConfig),
    /// Match-3 (swap family) client commands.
    Swap(ClientArgs<SwapCommand>),
    /// PopStar / SameGame (collapse family) client commands.
    Collapse(ClientArgs<CollapseCommand>),
}

/// Options shared by client commands.
#[derive(Debug, Args)]
pub struct ClientArgs<C: Subcommand> {
    /// Server address.
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_SERVER",
        default_value = "http://127.0.0.1:50051"
    )]
    pub server: String,
    /// Print the response as JSON instead of grids.
    #[arg(long, global = true)]
    pub json: bool,
    /// The client command.
    #[command(subcommand)]
    pub command: C,
}

fn parse_board(text: &str) -> Result<proto::Board, String> {
    engine::Board::parse(text)
        .map(|b| (&b).into())
        .map_err(|e| e.to_string())
}

fn parse_position(text: &str) -> Result<proto::Position, String> {
    let (row, col) = text
        .split_once(',')
        .ok_or_else(|| format!("expected ROW,COL, got {text:?}"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("expected ROW,COL numbers, got {text:?}"))
    };
    Ok(proto::Position {
        row: number(row)?,
        col: number(col)?,
    })
}

fn parse_swap(text: &str) -> Result<proto::Swap, String> {
    let (a, b) = text
        .split_once(':')
        .ok_or_else(|| format!("expected ROW,COL:ROW,COL, got {text:?}"))?;
    Ok(proto::Swap {
        a: Some(parse_position(a)?),
        b: Some(parse_position(b)?),
    })
}

/// Refill mode flag.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RefillArg {
    /// Random colours from 1..=colors.
    Random,
    /// Leave cleared cells empty.
    None,
}

/// Scoring rule flag.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ScoringArg {
    /// 5 n^2; end bonus max(0, 2000 - 20 k^2).
    Popstar,
    /// (n - 2)^2; +1000 for a cleared board.
    Samegame,
    /// n per move.
    Clickomania,
    /// n (n - 1) per move.
    BubbleBreaker,
}

impl From<ScoringArg> for proto::ScoringRule {
    fn from(arg: ScoringArg) -> Self {
        match arg {
            ScoringArg::Popstar => Self::Popstar,
            ScoringArg::Samegame => Self::Samegame,
            ScoringArg::Clickomania => Self::Clickomania,
            ScoringArg::BubbleBreaker => Self::BubbleBreaker,
        }
    }
}

/// `matchgrid swap ...`
#[derive(Debug, Subcommand)]
pub enum SwapCommand {
    /// Generate a stable board with at least --min-moves valid swaps.
    Generate {
        /// Columns, 1..=64.
        #[arg(long, default_value_t = 8)]
        width: u32,
        /// Rows, 1..=64.
        #[arg(long, default_value_t = 8)]
        height: u32,
        /// Colours, 2..=16.
        #[arg(long, default_value_t = 6)]
        colors: u32,
        /// RNG seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Minimum valid swaps.
        #[arg(long, default_value_t = 1)]
        min_moves: u32,
    },
    /// Judge a swap on a stable board.
    Validate {
        /// The board, e.g. RRG/GGR.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
        /// The swap, ROW,COL:ROW,COL.
        #[arg(long, value_parser = parse_swap)]
        swap: proto::Swap,
    },
    /// Apply an optional swap and resolve the cascade, printing every step.
    Resolve {
        /// The board, e.g. RRG/GGR.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
        /// The swap, ROW,COL:ROW,COL; without it the board is resolved as given.
        #[arg(long, value_parser = parse_swap)]
        swap: Option<proto::Swap>,
        /// Colours for random refill, 1..=16.
        #[arg(long, default_value_t = 6)]
        colors: u32,
        /// RNG seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Refill mode.
        #[arg(long, value_enum, default_value_t = RefillArg::Random)]
        refill: RefillArg,
        /// Do not shuffle a dead final board.
        #[arg(long)]
        no_auto_shuffle: bool,
        /// Cascade step limit, 1..=1000 (0: the server's default, 200).
        #[arg(long, default_value_t = 0)]
        max_steps: u32,
    },
    /// List every valid swap of a stable board; says whether it is dead.
    Dead {
        /// The board, e.g. RGB/GBR/BRG.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
    },
    /// Shuffle a full board into a playable one.
    Shuffle {
        /// The board.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
        /// RNG seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
}

/// `matchgrid collapse ...`
#[derive(Debug, Subcommand)]
pub enum CollapseCommand {
    /// Generate a board with at least one legal group.
    Generate {
        /// Columns, 1..=64.
        #[arg(long, default_value_t = 10)]
        width: u32,
        /// Rows, 1..=64.
        #[arg(long, default_value_t = 10)]
        height: u32,
        /// Colours, 1..=16.
        #[arg(long, default_value_t = 5)]
        colors: u32,
        /// RNG seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Minimum group size.
        #[arg(long, default_value_t = 2)]
        min_group: u32,
    },
    /// Tap a cell: clear its group, let tiles fall and columns close.
    Tap {
        /// The board, e.g. ABBC/ABBC.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
        /// The tapped cell, ROW,COL.
        #[arg(long, value_parser = parse_position)]
        at: proto::Position,
        /// Scoring rule.
        #[arg(long, value_enum, default_value_t = ScoringArg::Popstar)]
        scoring: ScoringArg,
        /// Minimum group size.
        #[arg(long, default_value_t = 2)]
        min_group: u32,
    },
    /// List every legal group; says whether the game is over.
    Groups {
        /// The board.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
        /// Scoring rule.
        #[arg(long, value_enum, default_value_t = ScoringArg::Popstar)]
        scoring: ScoringArg,
        /// Minimum group size.
        #[arg(long, default_value_t = 2)]
        min_group: u32,
    },
}

/// Runs a parsed command line; `Err` is a one-line message for stderr.
pub fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Serve(config) => crate::server::run(config),
        Command::Swap(args) => client_runtime()?.block_on(run_swap(args)),
        Command::Collapse(args) => client_runtime()?.block_on(run_collapse(args)),
    }
}

fn client_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
}

async fn connect(server: &str) -> Result<Channel, String> {
    Channel::from_shared(server.to_owned())
        .map_err(|e| format!("--server {server:?}: {e}"))?
        .connect()
        .await
        .map_err(|e| {
            let mut message = format!("cannot connect to {server}: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                let text = format!(": {cause}");
                if !message.ends_with(&text) {
                    message.push_str(&text);
                }
                source = cause.source();
            }
            message
        })
}

/// The response of a call, or its status as one line (`Code: message`).
fn reply<T>(result: Result<tonic::Response<T>, tonic::Status>) -> Result<T, String> {
    result
        .map(tonic::Response::into_inner)
        .map_err(|status| format!("{:?}: {}", status.code(), status.message()))
}

/// Prints `response` as pretty JSON, or as the text `render` makes of it (coloured grids on a
/// terminal; anstream strips the colours elsewhere).
fn emit<T: serde::Serialize>(
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
fn board_summary(board: Option<&proto::Board>, label: &str, count: u32) -> String {
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

fn position_text(position: Option<&proto::Position>) -> String {
    position.map_or_else(|| "?".to_owned(), |p| format!("{},{}", p.row, p.col))
}

fn swap_text(swap: &proto::Swap) -> String {
    format!(
        "{}:{}",
        position_text(swap.a.as_ref()),
        position_text(swap.b.as_ref())
    )
}

async fn run_swap(args: ClientArgs<SwapCommand>) -> Result<(), String> {
    let mut client = SwapPuzzleClient::new(connect(&args.server).await?);
    let json = args.json;
    match args.command {
        SwapCommand::Generate {
            width,
            height,
            colors,
            seed,
            min_moves,
        } => {
            let request = proto::SwapGenerateBoardRequest {
                width,
                height,
                colors,
                seed,
                min_moves: Some(min_moves),
            };
            emit(json, &reply(client.generate_board(request).await)?, |r| {
                board_summary(r.board.as_ref(), "valid swaps", r.valid_swap_count)
            })
        }
        SwapCommand::Validate { board, swap } => {
            let request = proto::ValidateSwapRequest {
                board: Some(board),
                swap: Some(swap),
            };
            emit(json, &reply(client.validate_swap(request).await)?, |r| {
                let mut text = format!("verdict: {}\n", r.verdict().as_str_name());
                for group in &r.groups {
                    let _ = writeln!(
                        text,
                        "group colour {} size {}",
                        group.color,
                        group.cells.len()
                    );
                }
                text
            })
        }
        SwapCommand::Resolve {
            board,
            swap,
            colors,
            seed,
            refill,
            no_auto_shuffle,
            max_steps,
        } => {
            let refill = match refill {
                RefillArg::Random => proto::RefillMode::Random,
                RefillArg::None => proto::RefillMode::None,
            };
            let request = proto::ResolveCascadeRequest {
                board: Some(board.clone()),
                swap,
                colors,
                seed,
                refill: refill.into(),
                auto_shuffle: Some(!no_auto_shuffle),
                max_steps,
                // Each step is printed as a grid.
                include_step_boards: true,
            };
            emit(json, &reply(client.resolve_cascade(request).await)?, |r| {
                let mut text = format!("start\n{}", render_board(&board));
                for step in &r.steps {
                    let cleared: usize = step.groups.iter().map(|g| g.cells.len()).sum();
                    let _ = write!(
                        text,
                        "\nstep {}: {} group(s), {cleared} cleared, {} fell, {} spawned, score {}\n{}",
                        step.index,
                        step.groups.len(),
                        step.falls.len(),
                        step.spawns.len(),
                        step.score,
                        render_board(step.board.as_ref().unwrap_or(&board))
                    );
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
            })
        }
        SwapCommand::Dead { board } => {
            let request = proto::SwapCheckDeadStateRequest { board: Some(board) };
            emit(json, &reply(client.check_dead_state(request).await)?, |r| {
                let swaps: Vec<String> = r.valid_swaps.iter().map(swap_text).collect();
                format!(
                    "dead: {}\nvalid swaps ({}): {}\n",
                    r.dead,
                    swaps.len(),
                    swaps.join(" ")
                )
            })
        }
        SwapCommand::Shuffle { board, seed } => {
            let request = proto::ShuffleRequest {
                board: Some(board),
                seed,
            };
            emit(json, &reply(client.shuffle(request).await)?, |r| {
                board_summary(r.board.as_ref(), "valid swaps", r.valid_swap_count)
            })
        }
    }
}

fn board_text(board: &proto::Board) -> String {
    engine::Board::from_raw(board.width, board.height, &board.cells)
        .map_or_else(|e| format!("<{e}>"), |b| b.to_string())
}

async fn run_collapse(args: ClientArgs<CollapseCommand>) -> Result<(), String> {
    let mut client = CollapsePuzzleClient::new(connect(&args.server).await?);
    let json = args.json;
    match args.command {
        CollapseCommand::Generate {
            width,
            height,
            colors,
            seed,
            min_group,
        } => {
            let request = proto::CollapseGenerateBoardRequest {
                width,
                height,
                colors,
                seed,
                min_group,
            };
            emit(json, &reply(client.generate_board(request).await)?, |r| {
                board_summary(r.board.as_ref(), "legal groups", r.legal_group_count)
            })
        }
        CollapseCommand::Tap {
            board,
            at,
            scoring,
            min_group,
        } => {
            let request = proto::TapRequest {
                board: Some(board.clone()),
                position: Some(at),
                scoring: proto::ScoringRule::from(scoring).into(),
                min_group,
            };
            emit(json, &reply(client.tap(request).await)?, |r| {
                let after = r.board.clone().unwrap_or_default();
                let mut text = format!(
                    "before\n{}\ncleared {} tile(s) of colour {}\nafter ({})\n{}move score {}, \
                     tiles left {}, game over {}",
                    render_board(&board),
                    r.cleared.len(),
                    r.color,
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
            })
        }
        CollapseCommand::Groups {
            board,
            scoring,
            min_group,
        } => {
            let request = proto::CollapseCheckDeadStateRequest {
                board: Some(board.clone()),
                scoring: proto::ScoringRule::from(scoring).into(),
                min_group,
            };
            emit(json, &reply(client.check_dead_state(request).await)?, |r| {
                let mut text = render_board(&board);
                for group in &r.groups {
                    let _ = writeln!(
                        text,
                        "group at {} colour {} size {} score {}",
                        position_text(group.representative.as_ref()),
                        group.color,
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
            })
        }
    }
}

/// A clap error message as one line: the text before its usage block or help hint, whitespace
/// collapsed, without the leading `error: `.
pub fn one_line(message: &str) -> String {
    let head = message
        .split("\n\nUsage:")
        .next()
        .unwrap_or(message)
        .split("\n\nFor more information")
        .next()
        .unwrap_or(message);
    let joined = head.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.strip_prefix("error: ").unwrap_or(&joined).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_errors_become_one_line() {
        let error =
            Cli::try_parse_from(["matchgrid", "serve", "--listen", "nonsense"]).unwrap_err();
        let line = one_line(&error.to_string());
        assert!(!line.contains('\n'));
        assert!(
            line.starts_with("invalid value 'nonsense' for '--listen <LISTEN>'"),
            "{line}"
        );
        let error = Cli::try_parse_from(["matchgrid", "swap", "dead"]).unwrap_err();
        assert_eq!(
            one_line(&error.to_string()),
            "the following required arguments were not provided: --board <BOARD>"
        );
    }

    #[test]
    fn positions_and_swaps_parse() {
        assert_eq!(
            parse_position("2,3"),
            Ok(proto::Position { row: 2, col: 3 })
        );
        assert!(parse_position("2;3").is_err());
        assert!(parse_position("-1,3").is_err());
        let swap = parse_swap("0,2:1,2").unwrap();
        assert_eq!(swap.b, Some(proto::Position { row: 1, col: 2 }));
        assert!(parse_swap("0,2").is_err());
    }
}
