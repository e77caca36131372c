//! The `matchgrid` command line: `serve` runs the server; `swap ...` and `collapse ...` are a
//! small gRPC client for trying the service. Boards are given in text form (`RRG/GGR`: rows top
//! to bottom joined by `/`, `.` empty, letters or digits colours; see [`crate::engine::Board::parse`]).
//!
//! - this module: the clap [`Cli`] and [`Command`], the options shared by client commands, the
//!   argument parsers and the dispatch ([`run`]);
//! - `swap` and `collapse`: each family's commands (one clap struct and one function each);
//! - `level`, `level_file` and `level_text`: level play (docs/rules.md section 8) from a level
//!   file (docs/levels.md), the file's reader, and the text of the answers;
//! - `swap_text` and `collapse_text`: the text form of each family's answers;
//! - `render`: boards, positions and swaps as text, and the choice between text and JSON;
//! - `progress`: the progress bars of long calls (Solve against time, Simulate against its
//!   games).

mod collapse;
mod collapse_text;
mod connection;
mod level;
pub mod level_file;
mod level_text;
mod progress;
mod render;
mod swap;
mod swap_text;

pub use collapse::{
    CollapseCommand, CollapseGenerate, CollapseGroups, CollapseReplay, CollapseSolve, CollapseTap,
    ScoringArg,
};
pub use connection::server_url;
use connection::{Failure, client_runtime, connect, explain, is_https, reply};
pub use level::{
    LevelCommand, LevelGenerate, LevelPlay, LevelPolicyArg, LevelReplay, LevelSimulate,
};
pub use render::render_board;
pub use swap::{
    PolicyArg, RefillArg, SwapCommand, SwapDead, SwapGenerate, SwapHint, SwapReplay, SwapResolve,
    SwapShuffle, SwapSimulate, SwapValidate,
};

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use tonic::transport::{Certificate, ClientTlsConfig, Identity};

use crate::engine;
use crate::proto;
use crate::server::ServeConfig;

/// The server the client commands call when neither `--server` nor `MATCHGRID_SERVER` names one.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

/// The parser of `--width` and `--height`: a board side, 1..=64.
fn side() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=64)
}

/// The help heading of the flags that say how to reach the server.
const CONNECTION: &str = "Connection";

/// The board notation, shared by every `--board` flag's help.
macro_rules! board_notation {
    () => {
        "Notation: rows top to bottom joined by '/', one character a cell: the letters R G B \
         Y P O C W K M A D E F H I are colours 1..=16 (either case; digits 1-9 work too), '.' \
         is empty. A level board (swap family) may also use '#' a hole, '*' a colour bomb, \
         and a colour followed by '-', '|' or '+' for a piece striped along its row, striped \
         along its column, or wrapped. E.g. RRG/GGR, or R-G#/*BR+"
    };
}
pub(crate) use board_notation;

/// Real commands that work against a local `matchgrid serve`, shown after the top-level help.
const EXAMPLES: &str = "\
Examples:
  matchgrid serve
  matchgrid swap validate --board RRG/GGR --swap 0,2:1,2
  matchgrid swap resolve --board GRYY/YRRG/BGYY/BGGY --swap 0,3:1,3 --refill none
  matchgrid swap hint --board RGRR/BRBB/GBGG --top 2
  matchgrid collapse tap --board RBB/RRR/RBB --at 1,1
  matchgrid level play examples/levels/jelly_rows.json --seed 1
  matchgrid collapse solve --board ABBC/ABBC/CCAB --max-millis 500
  matchgrid swap --server https://puzzles.example:50051 --tls-ca ca.pem dead --board RGB/GBR/BRG

The client commands call http://127.0.0.1:50051 unless --server (or MATCHGRID_SERVER) names \
another server; HOST:PORT without a scheme means http://.";

/// matchgrid: a stateless gRPC engine for match-3 (swap) and PopStar/SameGame (collapse) puzzles.
#[derive(Debug, Parser)]
#[command(
    name = "matchgrid",
    version,
    about,
    propagate_version = true,
    after_help = EXAMPLES
)]
pub struct Cli {
    /// Server of the client commands (swap, collapse, level): HOST:PORT or http://HOST:PORT, or
    /// https://HOST:PORT for TLS (needs --tls-ca). May also follow `swap` or `collapse`, and
    /// then wins; env MATCHGRID_SERVER; default http://127.0.0.1:50051. Not for serve, which
    /// listens on --listen.
    #[arg(long, value_name = "URL", help_heading = CONNECTION)]
    pub server: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Sets `allow_negative_numbers` on every flag that takes a value, in `command` and all its
/// subcommands, so that `--width -3` is read as a (refused) value rather than an unknown flag.
fn negative_numbers_are_values(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            if arg.get_action().takes_values() {
                arg.allow_negative_numbers(true)
            } else {
                arg
            }
        })
        .mut_subcommands(negative_numbers_are_values)
}

impl Cli {
    /// The clap command of [`Cli`] as [`Cli::try_parse_args`] parses with: every flag that
    /// takes a value accepts a negative number (and its parser refuses it).
    pub fn command_tuned() -> clap::Command {
        negative_numbers_are_values(<Self as clap::CommandFactory>::command())
    }

    /// Parses a command line (the program name first), as [`Parser::try_parse_from`] does, and
    /// also refuses a `--server` given to `serve`. A `--server` before the subcommand is moved
    /// into the client command's [`ClientArgs::server`] unless one is also given after it.
    pub fn try_parse_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{FromArgMatches, parser::ValueSource};
        let mut command = Self::command_tuned();
        let matches = match command.try_get_matches_from_mut(args) {
            Ok(matches) => matches,
            Err(error) if is_server_under_serve(&error) => {
                return Err(server_under_serve(&mut command));
            }
            Err(error) => return Err(error),
        };
        let mut cli = Self::from_arg_matches(&matches).map_err(|e| e.format(&mut command))?;
        let Some(server) = cli.server.clone() else {
            return Ok(cli);
        };
        let family = |name| {
            matches
                .subcommand_matches(name)
                .map(|m| m.value_source("server") == Some(ValueSource::CommandLine))
        };
        match &mut cli.command {
            Command::Serve(_) => return Err(server_under_serve(&mut command)),
            Command::Swap(args) if family("swap") == Some(false) => args.server = server,
            Command::Collapse(args) if family("collapse") == Some(false) => args.server = server,
            Command::Level(args) if family("level") == Some(false) => args.server = server,
            _ => {}
        }
        Ok(cli)
    }
}

/// Whether `error` is clap's refusal of `--server` after `serve` (where it is not a flag).
fn is_server_under_serve(error: &clap::Error) -> bool {
    use clap::error::{ContextKind, ContextValue};
    error.kind() == clap::error::ErrorKind::UnknownArgument
        && matches!(
            error.get(ContextKind::InvalidArg),
            Some(ContextValue::String(arg)) if arg == "--server" || arg.starts_with("--server=")
        )
}

fn server_under_serve(command: &mut clap::Command) -> clap::Error {
    command.error(
        clap::error::ErrorKind::ArgumentConflict,
        "--server is an option of the client commands (swap, collapse, level); serve listens on \
         --listen",
    )
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
    /// Level play (match-3 with jelly, blockers, locks, ingredients, move limits and goals)
    /// from a level file (JSON; docs/levels.md).
    Level(ClientArgs<LevelCommand>),
}

/// Options shared by client commands.
#[derive(Debug, Args)]
pub struct ClientArgs<C: Subcommand> {
    /// Print the response as JSON instead of grids.
    #[arg(long, global = true, display_order = 900)]
    pub json: bool,
    /// Plain text, no colours, even on a terminal (colours are also off when stdout is not a
    /// terminal, or NO_COLOR is set).
    #[arg(long, global = true, display_order = 901)]
    pub no_color: bool,
    /// Server to call: HOST:PORT or http://HOST:PORT, or https://HOST:PORT for TLS (needs
    /// --tls-ca). Also accepted before the subcommand.
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_SERVER",
        default_value = DEFAULT_SERVER,
        value_name = "URL",
        help_heading = CONNECTION
    )]
    pub server: String,
    /// Largest reply this client accepts, in bytes (1024..=67108864). The default is the
    /// server's default; set it to the server's --max-message-bytes to accept every reply that
    /// server may send (the same variable configures both). Requests are limited by the server.
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_MAX_MESSAGE_BYTES",
        default_value_t = crate::transport::DEFAULT_MAX_MESSAGE_BYTES,
        value_parser = clap::value_parser!(u32).range(1024..=64 * 1024 * 1024),
        value_name = "BYTES",
        help_heading = CONNECTION
    )]
    pub max_message_bytes: u32,
    /// TLS settings for an https:// server.
    #[command(flatten)]
    pub tls: ClientTls,
    /// The client command.
    #[command(subcommand)]
    pub command: C,
}

/// TLS options of the client commands (used with an `https://` `--server`).
#[derive(Clone, Debug, Default, Args)]
pub struct ClientTls {
    /// CA certificates (PEM) to verify the server's certificate with; required for https://
    /// (no system roots are built in).
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_TLS_CA",
        value_name = "PEM",
        help_heading = CONNECTION
    )]
    pub tls_ca: Option<PathBuf>,
    /// Client certificate (PEM) to present, for servers that require mutual TLS; needs
    /// --tls-key.
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_TLS_CERT",
        value_name = "PEM",
        help_heading = CONNECTION,
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,
    /// Private key (PEM) of --tls-cert.
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_TLS_KEY",
        value_name = "PEM",
        help_heading = CONNECTION,
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,
    /// Name to verify the server's certificate against, instead of the --server host (e.g.
    /// when connecting by IP address).
    #[arg(
        long,
        global = true,
        env = "MATCHGRID_TLS_SERVER_NAME",
        value_name = "NAME",
        help_heading = CONNECTION
    )]
    pub tls_server_name: Option<String>,
}

impl ClientTls {
    /// The tonic TLS config for `server`: `None` for `http://`, an error naming the flag for
    /// TLS flags with `http://`, an `https://` server without `--tls-ca`, or an unreadable file.
    pub fn config(&self, server: &str) -> Result<Option<ClientTlsConfig>, String> {
        if !is_https(server) {
            let given = [
                ("--tls-ca", self.tls_ca.is_some()),
                ("--tls-cert", self.tls_cert.is_some()),
                ("--tls-server-name", self.tls_server_name.is_some()),
            ];
            return match given.iter().find(|(_, set)| *set) {
                Some((flag, _)) => Err(format!(
                    "{flag} needs an https:// --server (got {server:?})"
                )),
                None => Ok(None),
            };
        }
        let ca = self
            .tls_ca
            .as_deref()
            .ok_or_else(|| format!("--tls-ca is required with an https:// --server ({server})"))?;
        let mut config =
            ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read("--tls-ca", ca)?));
        if let (Some(cert), Some(key)) = (&self.tls_cert, &self.tls_key) {
            config = config.identity(Identity::from_pem(
                read("--tls-cert", cert)?,
                read("--tls-key", key)?,
            ));
        }
        if let Some(name) = &self.tls_server_name {
            config = config.domain_name(name.clone());
        }
        Ok(Some(config))
    }
}

fn read(flag: &str, path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{flag} {}: cannot read: {e}", path.display()))
}

/// A board from its text form: plain (`RRG/GGR`), or a level board when the text uses any of
/// the level marks (`#` hole, `*` colour bomb, a colour followed by `-`, `|` or `+` for
/// striped along the row, striped along the column, wrapped), e.g. `R-G#/*BR+`.
fn parse_board(text: &str) -> Result<proto::Board, String> {
    engine::SwapBoard::parse(text)
        .map(|b| (&b).into())
        .map_err(|error| match error {
            // The flag names the board already.
            engine::EngineError::Board(error) => error.to_string(),
            other => other.to_string(),
        })
}

/// A hole mask from a board-shaped text: rows joined by `/`, `#` a hole, any other character
/// an open cell (e.g. `#..#/..../#..#`); flags row-major.
fn parse_holes(text: &str) -> Result<HoleMask, String> {
    let rows: Vec<&str> = text.trim().split('/').collect();
    let width = rows[0].chars().count();
    if rows.iter().any(|r| r.chars().count() != width) {
        return Err("hole mask rows must all have the same length".to_owned());
    }
    if let Some(other) = text
        .trim()
        .chars()
        .find(|&c| c != '#' && c != '.' && c != '/')
    {
        return Err(format!(
            "unknown mark {other:?} in a hole mask: '#' is a hole, '.' an open cell, '/' ends a row"
        ));
    }
    Ok(HoleMask(
        rows.iter()
            .flat_map(|r| r.chars().map(|c| c == '#'))
            .collect(),
    ))
}

/// A hole mask given on the command line, row-major.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HoleMask(pub Vec<bool>);

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

/// Runs a parsed command line; `Err` is a one-line message for stderr.
pub fn run(cli: Cli) -> Result<(), String> {
    let no_color = match &cli.command {
        Command::Serve(_) => false,
        Command::Swap(args) => args.no_color,
        Command::Collapse(args) => args.no_color,
        Command::Level(args) => args.no_color,
    };
    if no_color {
        anstream::ColorChoice::Never.write_global();
    }
    match cli.command {
        Command::Serve(config) => crate::server::run(config),
        Command::Swap(args) => client_runtime()?.block_on(async {
            let server = server_url(&args.server);
            let result = swap::run_swap(&server, args).await;
            explain(&server, result).await
        }),
        Command::Collapse(args) => client_runtime()?.block_on(async {
            let server = server_url(&args.server);
            let result = collapse::run_collapse(&server, args).await;
            explain(&server, result).await
        }),
        Command::Level(args) => client_runtime()?.block_on(async {
            let server = server_url(&args.server);
            let result = level::run_level(&server, args).await;
            explain(&server, result).await
        }),
    }
}

/// A clap error as one line for stderr: [`one_line`] of its text, except that a long value a
/// parser refused (a whole board, say) is not repeated, only its length.
pub fn error_line(error: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    const LONGEST_ECHO: usize = 40;
    if error.kind() == ErrorKind::ValueValidation
        && let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
            error.get(ContextKind::InvalidArg),
            error.get(ContextKind::InvalidValue),
        )
        && value.chars().count() > LONGEST_ECHO
        && let Some(cause) = std::error::Error::source(error)
    {
        return format!(
            "invalid value for '{arg}' (a {}-character text): {cause}",
            value.chars().count()
        );
    }
    one_line(&error.to_string())
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
    fn server_is_global_and_refused_by_serve() {
        let parse = |args: &[&str]| Cli::try_parse_args(args.iter().copied());
        for args in [
            &[
                "matchgrid",
                "--server",
                "http://h:1",
                "swap",
                "dead",
                "--board",
                "RGB",
            ][..],
            &[
                "matchgrid",
                "swap",
                "--server",
                "http://h:1",
                "dead",
                "--board",
                "RGB",
            ][..],
            &[
                "matchgrid",
                "swap",
                "dead",
                "--board",
                "RGB",
                "--server",
                "http://h:1",
            ][..],
        ] {
            let cli = parse(args).unwrap();
            let Command::Swap(client) = cli.command else {
                panic!("{args:?}: not a swap command");
            };
            assert_eq!(client.server, "http://h:1", "{args:?}");
        }
        for args in [
            &["matchgrid", "--server", "http://h:1", "serve"][..],
            &["matchgrid", "serve", "--server", "http://h:1"][..],
        ] {
            let error = parse(args).unwrap_err();
            assert!(
                one_line(&error.to_string()).starts_with("--server is an option of the client"),
                "{args:?}: {error}"
            );
        }
        assert!(matches!(
            parse(&["matchgrid", "serve"]).unwrap().command,
            Command::Serve(_)
        ));
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
