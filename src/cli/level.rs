//! `matchgrid level ...`: level play (docs/rules.md section 8) from a level file
//! (docs/levels.md): start a game, play it move by move, replay it at once, simulate it.
//! Their text output is in `level_text`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use tonic::transport::Channel;

use super::level_file::{LevelFile, read_level_file};
use super::level_text::{move_text, replay_text, simulate_text, start_text};
use super::progress::simulate_with_progress;
use super::render::emit;
use super::{ClientArgs, Failure, connect, parse_position, reply};
use crate::proto::{self, swap_puzzle_client::SwapPuzzleClient};

/// `matchgrid level ...`
#[derive(Debug, Subcommand)]
pub enum LevelCommand {
    /// Start a game of a level (StartLevel): the start board with its layers, and the goals.
    Generate(LevelGenerate),
    /// Play a game move by move (StartLevel, then PlayMove for each swap), printing every
    /// move's board, hits, collected ingredients, moves left, goal progress and status.
    /// Without --moves, reads one swap a line from stdin.
    Play(LevelPlay),
    /// Replay a game at once (ReplayGame with the level): won or lost, at which move, moves
    /// left and goal progress.
    Replay(LevelReplay),
    /// Simulate seeded games of a level (Simulate with the level): its pass rate and what
    /// the games lost got done.
    Simulate(LevelSimulate),
}

/// `matchgrid level generate`.
#[derive(Debug, Args)]
pub struct LevelGenerate {
    /// The level file (JSON; docs/levels.md).
    file: PathBuf,
    /// Seed of the start board's generation when the level's board is a layout.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// `matchgrid level play`.
#[derive(Debug, Args)]
pub struct LevelPlay {
    /// The level file (JSON; docs/levels.md).
    file: PathBuf,
    /// Seed of the start board's generation when the level's board is a layout.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The swaps, ROW,COL-ROW,COL each (or ROW,COL:ROW,COL), separated by spaces:
    /// "3,4-4,4 0,1-0,2". Without it, one swap a line from stdin (an empty line or `q` ends).
    #[arg(long, value_parser = parse_level_swap, value_delimiter = ' ', num_args = 0..)]
    moves: Option<Vec<proto::Swap>>,
    /// Seed of move i (0-based) is this plus i: the refill and shuffle of every move.
    #[arg(long, default_value_t = 0)]
    move_seed: u64,
}

/// `matchgrid level replay`.
#[derive(Debug, Args)]
pub struct LevelReplay {
    /// The level file (JSON; docs/levels.md).
    file: PathBuf,
    /// Seed of the start board's generation when the level's board is a layout.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The swaps, ROW,COL-ROW,COL each (or ROW,COL:ROW,COL), separated by spaces.
    #[arg(long, value_parser = parse_level_swap, value_delimiter = ' ', num_args = 0.., required = true)]
    moves: Vec<proto::Swap>,
    /// Seed of move i (0-based) is this plus i, as `level play` seeds them.
    #[arg(long, default_value_t = 0)]
    move_seed: u64,
}

/// How simulated players pick their swaps.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LevelPolicyArg {
    /// The swap whose certain outcome does most for the goals not yet met.
    Greedy,
    /// Flat Monte-Carlo search over greedy rollouts (slower; --candidates, --rollouts,
    /// --depth).
    Search,
}

/// `matchgrid level simulate`.
#[derive(Debug, Args)]
pub struct LevelSimulate {
    /// The level file (JSON; docs/levels.md).
    file: PathBuf,
    /// Games, 1..=1000 (games x move limit at most 100000).
    #[arg(long, default_value_t = 100)]
    games: u32,
    /// Base seed: each game's seed is drawn from its RNG.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The simulated players' policy.
    #[arg(long, value_enum, default_value_t = LevelPolicyArg::Greedy)]
    policy: LevelPolicyArg,
    /// Search: swaps searched per move, 1..=16.
    #[arg(long, default_value_t = 4)]
    candidates: u32,
    /// Search: rollouts per searched swap, 1..=64.
    #[arg(long, default_value_t = 8)]
    rollouts: u32,
    /// Search: greedy moves after the swap in each rollout, 0..=30.
    #[arg(long, default_value_t = 3)]
    depth: u32,
}

/// A swap as `ROW,COL-ROW,COL` (or `ROW,COL:ROW,COL`, as the swap commands write it).
fn parse_level_swap(text: &str) -> Result<proto::Swap, String> {
    let (a, b) = text
        .split_once(['-', ':'])
        .ok_or_else(|| format!("expected ROW,COL-ROW,COL, got {text:?}"))?;
    Ok(proto::Swap {
        a: Some(parse_position(a)?),
        b: Some(parse_position(b)?),
    })
}

type Client = SwapPuzzleClient<Channel>;

pub(super) async fn run_level(server: &str, args: ClientArgs<LevelCommand>) -> Result<(), Failure> {
    // The file first: its faults need no server.
    let path = match &args.command {
        LevelCommand::Generate(c) => &c.file,
        LevelCommand::Play(c) => &c.file,
        LevelCommand::Replay(c) => &c.file,
        LevelCommand::Simulate(c) => &c.file,
    };
    let file = read_level_file(path).map_err(Failure::from)?;
    let limit = args.max_message_bytes as usize;
    let mut client =
        SwapPuzzleClient::new(connect(server, &args.tls).await?).max_decoding_message_size(limit);
    let json = args.json;
    match args.command {
        LevelCommand::Generate(command) => generate(&mut client, json, &file, command).await,
        LevelCommand::Play(command) => play(&mut client, json, &file, command).await,
        LevelCommand::Replay(command) => replay(&mut client, json, &file, command).await,
        LevelCommand::Simulate(command) => simulate(&mut client, json, &file, command).await,
    }
}

async fn start(
    client: &mut Client,
    file: &LevelFile,
    seed: u64,
) -> Result<proto::StartLevelResponse, Failure> {
    let request = proto::StartLevelRequest {
        level: Some(file.level.clone()),
        seed,
    };
    reply(client.start_level(request).await)
}

async fn generate(
    client: &mut Client,
    json: bool,
    file: &LevelFile,
    command: LevelGenerate,
) -> Result<(), Failure> {
    let response = start(client, file, command.seed).await?;
    emit(json, &response, |r| {
        start_text(file, &r.state.clone().unwrap_or_default(), command.seed)
    })
}

async fn play(
    client: &mut Client,
    json: bool,
    file: &LevelFile,
    command: LevelPlay,
) -> Result<(), Failure> {
    use std::io::Write as _;
    let started = start(client, file, command.seed).await?;
    let mut state = started.state.clone().unwrap_or_default();
    let print = |text: String| {
        let mut out = anstream::stdout();
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| Failure::from(format!("stdout: {e}")))
    };
    if !json {
        print(start_text(file, &state, command.seed))?;
    }
    let interactive = command.moves.is_none();
    let mut given = command.moves.unwrap_or_default().into_iter();
    let mut moves = Vec::new();
    // Move `index` is the next to play: a refused swap (interactive) does not count.
    loop {
        let index = moves.len();
        if state.status != proto::LevelStatus::Playing as i32 {
            break;
        }
        let swap = if interactive {
            match read_swap(index)? {
                Some(swap) => swap,
                None => break,
            }
        } else {
            match given.next() {
                Some(swap) => swap,
                None => break,
            }
        };
        let seed = command.move_seed.wrapping_add(index as u64);
        let request = proto::PlayMoveRequest {
            level: Some(file.level.clone()),
            state: Some(state.clone()),
            swap: Some(swap),
            seed,
            include_step_boards: false,
        };
        let response = match reply(client.play_move(request).await) {
            Ok(response) => response,
            Err(failure) if interactive => {
                eprintln!("{}", failure.message());
                continue;
            }
            Err(failure) => {
                return Err(format!(
                    "move {} ({}): {}",
                    index + 1,
                    super::render::swap_text(&swap),
                    failure.message()
                )
                .into());
            }
        };
        if !json {
            let before = state.board.clone().unwrap_or_default();
            print(format!(
                "\n{}",
                move_text(&file.level, &before, index, &swap, seed, &response)
            ))?;
        }
        state = response.state.clone().unwrap_or_default();
        moves.push(response);
    }
    if json {
        let value = serde_json::json!({ "start": started, "moves": moves });
        print(serde_json::to_string_pretty(&value).map_err(|e| e.to_string())? + "\n")?;
    } else if state.status != proto::LevelStatus::Playing as i32 {
        print(format!(
            "game over: {}\n",
            super::level_text::status_name(state.status)
        ))?;
    }
    Ok(())
}

/// The next swap from stdin, or `None` at its end, an empty line or `q`.
fn read_swap(index: usize) -> Result<Option<proto::Swap>, Failure> {
    loop {
        eprint!("move {} (ROW,COL-ROW,COL; q quits)> ", index + 1);
        let mut line = String::new();
        let read = std::io::stdin()
            .read_line(&mut line)
            .map_err(|e| Failure::from(format!("stdin: {e}")))?;
        let line = line.trim();
        if read == 0 || line.is_empty() || line == "q" {
            return Ok(None);
        }
        match parse_level_swap(line) {
            Ok(swap) => return Ok(Some(swap)),
            Err(e) => eprintln!("{e}"),
        }
    }
}

async fn replay(
    client: &mut Client,
    json: bool,
    file: &LevelFile,
    command: LevelReplay,
) -> Result<(), Failure> {
    let moves = command
        .moves
        .into_iter()
        .enumerate()
        .map(|(i, swap)| proto::SwapMove {
            swap: Some(swap),
            seed: command.move_seed.wrapping_add(i as u64),
            ..Default::default()
        })
        .collect();
    let request = proto::SwapReplayGameRequest {
        start: None,
        moves,
        level: Some(file.level.clone()),
        level_seed: command.seed,
    };
    emit(json, &reply(client.replay_game(request).await)?, |r| {
        replay_text(&file.level, r)
    })
}

async fn simulate(
    client: &mut Client,
    json: bool,
    file: &LevelFile,
    command: LevelSimulate,
) -> Result<(), Failure> {
    let (policy, label) = match command.policy {
        LevelPolicyArg::Greedy => (proto::LevelPolicy::Greedy, "greedy".to_owned()),
        LevelPolicyArg::Search => (
            proto::LevelPolicy::Search,
            format!(
                "search: {} candidates, {} rollouts, depth {}",
                command.candidates, command.rollouts, command.depth
            ),
        ),
    };
    let search = matches!(command.policy, LevelPolicyArg::Search);
    let request = proto::SwapSimulateRequest {
        games: command.games,
        seed: command.seed,
        level: Some(file.level.clone()),
        level_policy: policy.into(),
        search_candidates: if search { command.candidates } else { 0 },
        search_rollouts: if search { command.rollouts } else { 0 },
        search_depth: search.then_some(command.depth),
        ..Default::default()
    };
    let response = simulate_with_progress(client, request).await;
    emit(json, &reply(response)?, |r| {
        simulate_text(&file.level, &label, r)
    })
}
