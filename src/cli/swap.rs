//! `matchgrid swap ...`: the match-3 (swap family) client commands, one function each; their
//! text output is in `swap_text`.

use clap::{Args, Subcommand, ValueEnum};
use tonic::transport::Channel;

use super::progress::simulate_with_progress;
use super::render::{board_summary, emit};
use super::swap_text::{
    dead_text, hint_text, replay_text, resolve_text, simulate_text, validate_text,
};
use super::{
    ClientArgs, Failure, board_notation, connect, parse_board, parse_holes, parse_swap, reply, side,
};
use crate::proto::{self, swap_puzzle_client::SwapPuzzleClient};

/// Refill mode flag.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum RefillArg {
    /// Random colours from 1..=colors.
    Random,
    /// Leave cleared cells empty.
    None,
}

/// Simulate's move policy flag.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PolicyArg {
    /// The top Hint swap (no samples).
    HintGreedy,
    /// Uniform among the valid swaps.
    Random,
}

impl From<RefillArg> for proto::RefillMode {
    fn from(refill: RefillArg) -> Self {
        match refill {
            RefillArg::Random => Self::Random,
            RefillArg::None => Self::None,
        }
    }
}

impl From<PolicyArg> for proto::SwapPolicy {
    fn from(policy: PolicyArg) -> Self {
        match policy {
            PolicyArg::HintGreedy => Self::HintGreedy,
            PolicyArg::Random => Self::Random,
        }
    }
}

/// `matchgrid swap ...`
#[derive(Debug, Subcommand)]
pub enum SwapCommand {
    /// Generate a stable board with at least --min-moves valid swaps.
    Generate(SwapGenerate),
    /// Judge a swap on a stable board.
    Validate(SwapValidate),
    /// Apply an optional swap and resolve the cascade, printing every step.
    Resolve(SwapResolve),
    /// List every valid swap of a stable board; says whether it is dead.
    Dead(SwapDead),
    /// Replay a list of swaps at once, as ResolveCascade calls in sequence would, stopping at
    /// the first refused one; prints each move, the final board and its SHA-256 digest.
    Replay(SwapReplay),
    /// Rank every valid swap of a stable board by its certain (no-refill) cascade.
    Hint(SwapHint),
    /// Play seeded games with a move policy and summarize their scores.
    Simulate(SwapSimulate),
    /// Shuffle a full board into a playable one.
    Shuffle(SwapShuffle),
}

/// `matchgrid swap generate`.
#[derive(Debug, Args)]
pub struct SwapGenerate {
    /// Columns, 1..=64.
    #[arg(long, default_value_t = 8, value_parser = side())]
    width: u32,
    /// Rows, 1..=64.
    #[arg(long, default_value_t = 8, value_parser = side())]
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
    /// Hole mask (a level board): rows joined by `/`, `#` a hole, `.` an open cell, e.g.
    /// `#......#/......../...##...`; must be --width by --height.
    #[arg(long, value_parser = parse_holes)]
    holes: Option<super::HoleMask>,
}

/// `matchgrid swap validate`.
#[derive(Debug, Args)]
pub struct SwapValidate {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
    board: proto::Board,
    /// The swap, ROW,COL:ROW,COL.
    #[arg(long, value_parser = parse_swap)]
    swap: proto::Swap,
}

/// `matchgrid swap resolve`.
#[derive(Debug, Args)]
pub struct SwapResolve {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
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
    /// Ask the server for the board after every step (include_step_boards). Without it
    /// the steps' boards are drawn from their groups, falls and spawns, and the reply
    /// stays small on large boards.
    #[arg(long)]
    step_boards: bool,
}

/// `matchgrid swap dead`.
#[derive(Debug, Args)]
pub struct SwapDead {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
    board: proto::Board,
}

/// `matchgrid swap replay`.
#[derive(Debug, Args)]
pub struct SwapReplay {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The starting board; without it one is generated from --width, --height, --colors and --seed as `swap generate` does. ", board_notation!())
    )]
    board: Option<proto::Board>,
    /// The swaps, ROW,COL:ROW,COL each, separated by spaces: "0,1:0,2 3,3:4,3".
    #[arg(long, value_parser = parse_swap, value_delimiter = ' ', num_args = 0..)]
    swaps: Vec<proto::Swap>,
    /// Seed of each move's ResolveCascade, separated by spaces; a move without one uses
    /// --move-seed plus its index (0-based).
    #[arg(long, value_delimiter = ' ', num_args = 0..)]
    seeds: Vec<u64>,
    /// Base seed of the moves without an entry in --seeds.
    #[arg(long, default_value_t = 0)]
    move_seed: u64,
    /// Colours for random refill (every move) and of a generated board.
    #[arg(long, default_value_t = 6)]
    colors: u32,
    /// Refill mode of every move.
    #[arg(long, value_enum, default_value_t = RefillArg::Random)]
    refill: RefillArg,
    /// Do not shuffle a dead board after a move.
    #[arg(long)]
    no_auto_shuffle: bool,
    /// Cascade step limit of every move, 1..=1000 (0: the server's default, 200).
    #[arg(long, default_value_t = 0)]
    max_steps: u32,
    /// Columns of a generated board.
    #[arg(long, default_value_t = 8, value_parser = side())]
    width: u32,
    /// Rows of a generated board.
    #[arg(long, default_value_t = 8, value_parser = side())]
    height: u32,
    /// Seed of a generated board.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// `matchgrid swap hint`.
#[derive(Debug, Args)]
pub struct SwapHint {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
    board: proto::Board,
    /// Show only the best N (0: all).
    #[arg(long, default_value_t = 0)]
    top: u32,
    /// Also the mean score over this many seeded random refills per swap.
    #[arg(long, default_value_t = 0)]
    samples: u32,
    /// Seed of the sampled refills (sample i uses seed + i).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Colours of the sampled refills.
    #[arg(long, default_value_t = 6)]
    colors: u32,
}

/// `matchgrid swap simulate`.
#[derive(Debug, Args)]
pub struct SwapSimulate {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The start board; without it one is generated from --width, --height, --colors and --board-seed as `swap generate` does. ", board_notation!())
    )]
    board: Option<proto::Board>,
    /// Games, 1..=1000.
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Moves per game, 1..=1000 (games x moves at most 100000).
    #[arg(long, default_value_t = 20)]
    moves: u32,
    /// Base seed (game g plays from seed + g).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Move policy.
    #[arg(long, value_enum, default_value_t = PolicyArg::HintGreedy)]
    policy: PolicyArg,
    /// Refill colours (and colours of a generated board).
    #[arg(long, default_value_t = 6)]
    colors: u32,
    /// Columns of a generated board.
    #[arg(long, default_value_t = 9, value_parser = side())]
    width: u32,
    /// Rows of a generated board.
    #[arg(long, default_value_t = 9, value_parser = side())]
    height: u32,
    /// Seed of a generated board.
    #[arg(long, default_value_t = 0)]
    board_seed: u64,
}

/// `matchgrid swap shuffle`.
#[derive(Debug, Args)]
pub struct SwapShuffle {
    #[arg(
        long,
        value_parser = parse_board,
        help = concat!("The board. ", board_notation!())
    )]
    board: proto::Board,
    /// RNG seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

type Client = SwapPuzzleClient<Channel>;

pub(super) async fn run_swap(server: &str, args: ClientArgs<SwapCommand>) -> Result<(), Failure> {
    let limit = args.max_message_bytes as usize;
    let mut client =
        SwapPuzzleClient::new(connect(server, &args.tls).await?).max_decoding_message_size(limit);
    let json = args.json;
    match args.command {
        SwapCommand::Generate(command) => generate(&mut client, json, command).await,
        SwapCommand::Validate(command) => validate(&mut client, json, command).await,
        SwapCommand::Resolve(command) => resolve(&mut client, json, command).await,
        SwapCommand::Dead(command) => dead(&mut client, json, command).await,
        SwapCommand::Shuffle(command) => shuffle(&mut client, json, command).await,
        SwapCommand::Replay(command) => replay(&mut client, json, command).await,
        SwapCommand::Hint(command) => hint(&mut client, json, command).await,
        SwapCommand::Simulate(command) => simulate(&mut client, json, command).await,
    }
}

async fn generate(client: &mut Client, json: bool, command: SwapGenerate) -> Result<(), Failure> {
    let request = proto::SwapGenerateBoardRequest {
        width: command.width,
        height: command.height,
        colors: command.colors,
        seed: command.seed,
        min_moves: Some(command.min_moves),
        holes: command.holes.unwrap_or_default().0,
        layout: None,
    };
    emit(json, &reply(client.generate_board(request).await)?, |r| {
        board_summary(r.board.as_ref(), "valid swaps", r.valid_swap_count)
    })
}

async fn validate(client: &mut Client, json: bool, command: SwapValidate) -> Result<(), Failure> {
    let request = proto::ValidateSwapRequest {
        board: Some(command.board),
        swap: Some(command.swap),
    };
    emit(
        json,
        &reply(client.validate_swap(request).await)?,
        validate_text,
    )
}

async fn resolve(client: &mut Client, json: bool, command: SwapResolve) -> Result<(), Failure> {
    let board = command.board;
    let level = !board.holes.is_empty() || !board.kinds.is_empty();
    let request = proto::ResolveCascadeRequest {
        board: Some(board.clone()),
        swap: command.swap,
        colors: command.colors,
        seed: command.seed,
        refill: proto::RefillMode::from(command.refill).into(),
        auto_shuffle: Some(!command.no_auto_shuffle),
        max_steps: command.max_steps,
        // Level boards: the per-step boards carry the kinds, which the events alone
        // would not give this client, so they are always asked for.
        include_step_boards: command.step_boards || level,
    };
    emit(json, &reply(client.resolve_cascade(request).await)?, |r| {
        resolve_text(&board, command.swap.as_ref(), r)
    })
}

async fn dead(client: &mut Client, json: bool, command: SwapDead) -> Result<(), Failure> {
    let request = proto::SwapCheckDeadStateRequest {
        board: Some(command.board),
    };
    emit(
        json,
        &reply(client.check_dead_state(request).await)?,
        dead_text,
    )
}

async fn shuffle(client: &mut Client, json: bool, command: SwapShuffle) -> Result<(), Failure> {
    let request = proto::ShuffleRequest {
        board: Some(command.board),
        seed: command.seed,
    };
    emit(json, &reply(client.shuffle(request).await)?, |r| {
        board_summary(r.board.as_ref(), "valid swaps", r.valid_swap_count)
    })
}

async fn replay(client: &mut Client, json: bool, command: SwapReplay) -> Result<(), Failure> {
    use proto::swap_replay_game_request::Start;
    let start = match command.board {
        Some(board) => Start::Board(board),
        None => Start::Generate(proto::SwapGenerateBoardRequest {
            width: command.width,
            height: command.height,
            colors: command.colors,
            seed: command.seed,
            ..Default::default()
        }),
    };
    let moves = command
        .swaps
        .into_iter()
        .enumerate()
        .map(|(i, swap)| proto::SwapMove {
            swap: Some(swap),
            colors: command.colors,
            seed: command
                .seeds
                .get(i)
                .copied()
                .unwrap_or_else(|| command.move_seed.wrapping_add(i as u64)),
            refill: proto::RefillMode::from(command.refill).into(),
            auto_shuffle: Some(!command.no_auto_shuffle),
            max_steps: command.max_steps,
        })
        .collect();
    let request = proto::SwapReplayGameRequest {
        start: Some(start),
        moves,
        ..Default::default()
    };
    emit(
        json,
        &reply(client.replay_game(request).await)?,
        replay_text,
    )
}

async fn hint(client: &mut Client, json: bool, command: SwapHint) -> Result<(), Failure> {
    let request = proto::SwapHintRequest {
        board: Some(command.board),
        top_n: command.top,
        samples: command.samples,
        seed: command.seed,
        colors: command.colors,
        max_steps: 0,
    };
    emit(json, &reply(client.hint(request).await)?, |r| {
        hint_text(r, command.samples > 0)
    })
}

async fn simulate(client: &mut Client, json: bool, command: SwapSimulate) -> Result<(), Failure> {
    use proto::swap_simulate_request::Start;
    let start = match command.board {
        Some(board) => Start::Board(board),
        None => Start::Generate(proto::SwapGenerateBoardRequest {
            width: command.width,
            height: command.height,
            colors: command.colors,
            seed: command.board_seed,
            ..Default::default()
        }),
    };
    let request = proto::SwapSimulateRequest {
        start: Some(start),
        games: command.games,
        moves: command.moves,
        seed: command.seed,
        policy: proto::SwapPolicy::from(command.policy).into(),
        colors: command.colors,
        max_steps: 0,
        ..Default::default()
    };
    let response = simulate_with_progress(client, request).await;
    emit(json, &reply(response)?, simulate_text)
}
