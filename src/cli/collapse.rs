//! `matchgrid collapse ...`: the PopStar / SameGame (collapse family) client commands, one
//! function each; their text output is in `collapse_text`.

use clap::{Args, Subcommand, ValueEnum};
use tonic::transport::Channel;

use super::collapse_text::{groups_text, replay_text, solve_text, tap_text};
use super::progress::with_progress;
use super::render::{board_summary, emit, position_text};
use super::{
    ClientArgs, Failure, board_notation, connect, parse_board, parse_position, reply, side,
};
use crate::proto::{self, collapse_puzzle_client::CollapsePuzzleClient};

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

/// `matchgrid collapse ...`
#[derive(Debug, Subcommand)]
pub enum CollapseCommand {
    /// Generate a board with at least one legal group.
    Generate(CollapseGenerate),
    /// Tap a cell: clear its group, let tiles fall and columns close.
    Tap(CollapseTap),
    /// Search for the best tap sequence (Nested Monte-Carlo Search, TabuColorRandom playouts);
    /// a progress bar on stderr while it runs.
    Solve(CollapseSolve),
    /// Replay a list of taps at once, as Tap calls in sequence would, stopping at the first
    /// illegal one; prints the final board and its SHA-256 digest.
    Replay(CollapseReplay),
    /// List every legal group; says whether the game is over.
    Groups(CollapseGroups),
}

/// `matchgrid collapse generate`.
#[derive(Debug, Args)]
pub struct CollapseGenerate {
    /// Columns, 1..=64.
    #[arg(long, default_value_t = 10, value_parser = side())]
    width: u32,
    /// Rows, 1..=64.
    #[arg(long, default_value_t = 10, value_parser = side())]
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
    /// A board that can be cleared, built backwards from an empty one; prints the taps that
    /// clear it (4 or more colours at any size; 3 up to about 10x10).
    #[arg(long)]
    clearable: bool,
    /// Also solve the board for a par (best-known score) with this node budget, 1..=10^8
    /// (10^6 is about 0.2 s on 10x10); prints the par and its line. 0 means no par.
    #[arg(long, default_value_t = 0)]
    par_nodes: u64,
    /// Scoring rule of the par.
    #[arg(long, value_enum, default_value_t = ScoringArg::Popstar)]
    par_scoring: ScoringArg,
}

/// `collapse solve --goal`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum GoalArg {
    /// The highest score under --scoring.
    Score,
    /// Can the board still be cleared? The first clearing line, a proof that none exists,
    /// or unknown within the budget.
    Clear,
}

/// `matchgrid collapse tap`.
#[derive(Debug, Args)]
pub struct CollapseTap {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
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
}

/// `matchgrid collapse solve`.
#[derive(Debug, Args)]
pub struct CollapseSolve {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board (settled). ", board_notation!())
    )]
    board: proto::Board,
    /// Scoring rule.
    #[arg(long, value_enum, default_value_t = ScoringArg::Popstar)]
    scoring: ScoringArg,
    /// Minimum group size.
    #[arg(long, default_value_t = 2)]
    min_group: u32,
    /// Seed of the playouts.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Node budget (taps the search may apply), 1..=10^10; 0 means the server's default
    /// (10^6).
    #[arg(long, default_value_t = 0)]
    max_nodes: u64,
    /// Wall-clock cap in milliseconds (non-deterministic); 0 means none. The server's
    /// request timeout (5 s by default) also stops the search.
    #[arg(long, default_value_t = 0)]
    max_millis: u32,
    /// NMCS level, 1..=5; 0 means 2.
    #[arg(long, default_value_t = 0)]
    level: u32,
    /// Restart the levels from scratch with fresh draws until the budget or the clock
    /// runs out, keeping the best game (SOLVE_SCHEDULE_RESTARTS).
    #[arg(long)]
    restarts: bool,
    /// Simulation reduction at levels 2 and up: search further only after the moves whose
    /// one playout scored highest (SOLVE_METHOD_SCREENED).
    #[arg(long)]
    screened: bool,
    /// With --screened: moves searched further per step, 1..=256; 0 means 16.
    #[arg(long, default_value_t = 0, requires = "screened")]
    screen_width: u32,
    /// A beam search with refinement passes instead of NMCS (SOLVE_METHOD_BEAM; --level unused,
    /// --seed only draws the playout that finishes a stopped beam); with --restarts the passes
    /// go on until the budget or the clock runs out. The strongest method on 10x10 PopStar
    /// boards.
    #[arg(long, conflicts_with = "screened")]
    beam: bool,
    /// With --beam: the tabu-colour evaluation, tuned for SameGame (SOLVE_METHOD_TABU_BEAM:
    /// the colour with the most tiles kept for one large group; with --restarts the first line
    /// is the best of 8 differently weighted beams). The strongest method on 15x15 SameGame
    /// boards at about a minute a board.
    #[arg(long, requires = "beam")]
    tabu: bool,
    /// With --beam: the first beam's width, 1..=65536; 0 means 2000.
    #[arg(long, default_value_t = 0, requires = "beam")]
    beam_width: u32,
    /// With --beam: the refinement passes widen by this factor, 2..=16, from 8 on up to an
    /// eighth of the first width, then double (8, 16, 32, ... at 2; 16, 64, 256, 512, ... at 4
    /// with the default width; above 2 the last pass is narrowed to fit --max-nodes); 0 means
    /// 2. With --tabu and --restarts, 4 scores higher on 15x15 SameGame boards at about a
    /// minute a board.
    #[arg(long, default_value_t = 0, requires = "beam")]
    refine_factor: u32,
    /// What to search for.
    #[arg(long, value_enum, default_value_t = GoalArg::Score)]
    goal: GoalArg,
    /// Threads for this search, 1..=64 (root-parallel; the server may allow fewer, see
    /// --solve-threads of `serve`); 0 means 1. Unused with --goal clear.
    #[arg(long, default_value_t = 0)]
    threads: u32,
}

/// `matchgrid collapse replay`.
#[derive(Debug, Args)]
pub struct CollapseReplay {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The starting board; without it one is generated from --width, --height, --colors and --seed as `collapse generate` does. ", board_notation!())
    )]
    board: Option<proto::Board>,
    /// The taps, ROW,COL each, separated by spaces: "0,1 3,2".
    #[arg(long, value_parser = parse_position, value_delimiter = ' ', num_args = 0..)]
    taps: Vec<proto::Position>,
    /// Scoring rule.
    #[arg(long, value_enum, default_value_t = ScoringArg::Popstar)]
    scoring: ScoringArg,
    /// Minimum group size (taps and generation).
    #[arg(long, default_value_t = 2)]
    min_group: u32,
    /// Columns of a generated board.
    #[arg(long, default_value_t = 10, value_parser = side())]
    width: u32,
    /// Rows of a generated board.
    #[arg(long, default_value_t = 10, value_parser = side())]
    height: u32,
    /// Colours of a generated board.
    #[arg(long, default_value_t = 5)]
    colors: u32,
    /// Seed of a generated board.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// `matchgrid collapse groups`.
#[derive(Debug, Args)]
pub struct CollapseGroups {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
    board: proto::Board,
    /// Scoring rule.
    #[arg(long, value_enum, default_value_t = ScoringArg::Popstar)]
    scoring: ScoringArg,
    /// Minimum group size.
    #[arg(long, default_value_t = 2)]
    min_group: u32,
}

type Client = CollapsePuzzleClient<Channel>;

pub(super) async fn run_collapse(
    server: &str,
    args: ClientArgs<CollapseCommand>,
) -> Result<(), Failure> {
    let limit = args.max_message_bytes as usize;
    let mut client = CollapsePuzzleClient::new(connect(server, &args.tls).await?)
        .max_decoding_message_size(limit);
    let json = args.json;
    match args.command {
        CollapseCommand::Generate(command) => generate(&mut client, json, command).await,
        CollapseCommand::Tap(command) => tap(&mut client, json, command).await,
        CollapseCommand::Solve(command) => solve(&mut client, json, command).await,
        CollapseCommand::Replay(command) => replay(&mut client, json, command).await,
        CollapseCommand::Groups(command) => groups(&mut client, json, command).await,
    }
}

async fn generate(
    client: &mut Client,
    json: bool,
    command: CollapseGenerate,
) -> Result<(), Failure> {
    let request = proto::CollapseGenerateBoardRequest {
        width: command.width,
        height: command.height,
        colors: command.colors,
        seed: command.seed,
        min_group: command.min_group,
        clearable: command.clearable,
        par_nodes: command.par_nodes,
        par_scoring: proto::ScoringRule::from(command.par_scoring).into(),
    };
    emit(json, &reply(client.generate_board(request).await)?, |r| {
        let mut text = board_summary(r.board.as_ref(), "legal groups", r.legal_group_count);
        if !r.clearing_line.is_empty() {
            let taps: Vec<String> = r
                .clearing_line
                .iter()
                .map(|p| position_text(Some(p)))
                .collect();
            text.push_str(&format!(
                "clearing line ({} taps): {}\n",
                taps.len(),
                taps.join(" ")
            ));
        }
        if command.par_nodes > 0 {
            let taps: Vec<String> = r.par_line.iter().map(|p| position_text(Some(p))).collect();
            text.push_str(&format!(
                "par {} (best known, {} nodes; {} taps): {}\n",
                r.par_score,
                command.par_nodes,
                taps.len(),
                taps.join(" ")
            ));
        }
        text
    })
}

async fn tap(client: &mut Client, json: bool, command: CollapseTap) -> Result<(), Failure> {
    let board = command.board;
    let request = proto::TapRequest {
        board: Some(board.clone()),
        position: Some(command.at),
        scoring: proto::ScoringRule::from(command.scoring).into(),
        min_group: command.min_group,
    };
    emit(json, &reply(client.tap(request).await)?, |r| {
        tap_text(&board, r)
    })
}

async fn solve(client: &mut Client, json: bool, command: CollapseSolve) -> Result<(), Failure> {
    let board = command.board;
    let request = proto::CollapseSolveRequest {
        board: Some(board.clone()),
        scoring: proto::ScoringRule::from(command.scoring).into(),
        min_group: command.min_group,
        seed: command.seed,
        max_nodes: command.max_nodes,
        max_millis: command.max_millis,
        level: command.level,
        schedule: if command.restarts {
            proto::SolveSchedule::Restarts.into()
        } else {
            proto::SolveSchedule::Unspecified.into()
        },
        method: if command.tabu {
            proto::SolveMethod::TabuBeam.into()
        } else if command.beam {
            proto::SolveMethod::Beam.into()
        } else if command.screened {
            proto::SolveMethod::Screened.into()
        } else {
            proto::SolveMethod::Unspecified.into()
        },
        screen_width: command.screen_width,
        goal: match command.goal {
            GoalArg::Score => proto::SolveGoal::Unspecified.into(),
            GoalArg::Clear => proto::SolveGoal::Clear.into(),
        },
        threads: command.threads,
        beam_width: command.beam_width,
        refine_factor: command.refine_factor,
    };
    let response = with_progress("solving", command.max_millis, client.solve(request)).await;
    emit(json, &reply(response)?, |r| solve_text(&board, r))
}

async fn replay(client: &mut Client, json: bool, command: CollapseReplay) -> Result<(), Failure> {
    use proto::collapse_replay_game_request::Start;
    let start = match command.board {
        Some(board) => Start::Board(board),
        None => Start::Generate(proto::CollapseGenerateBoardRequest {
            width: command.width,
            height: command.height,
            colors: command.colors,
            seed: command.seed,
            min_group: command.min_group,
            ..Default::default()
        }),
    };
    let request = proto::CollapseReplayGameRequest {
        start: Some(start),
        scoring: proto::ScoringRule::from(command.scoring).into(),
        min_group: command.min_group,
        taps: command.taps,
    };
    emit(
        json,
        &reply(client.replay_game(request).await)?,
        replay_text,
    )
}

async fn groups(client: &mut Client, json: bool, command: CollapseGroups) -> Result<(), Failure> {
    let board = command.board;
    let request = proto::CollapseCheckDeadStateRequest {
        board: Some(board.clone()),
        scoring: proto::ScoringRule::from(command.scoring).into(),
        min_group: command.min_group,
    };
    emit(json, &reply(client.check_dead_state(request).await)?, |r| {
        groups_text(&board, r)
    })
}
