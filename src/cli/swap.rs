//! `matchgrid swap ...`: the match-3 (swap family) client commands.

use std::fmt::Write as _;

use clap::{Subcommand, ValueEnum};

use super::render::{
    board_summary, board_text, emit, hex, position_text, render_board, start_text, swap_text,
};
use super::{ClientArgs, connect, parse_board, parse_holes, parse_swap, reply};
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

fn refill_mode(refill: RefillArg) -> proto::RefillMode {
    match refill {
        RefillArg::Random => proto::RefillMode::Random,
        RefillArg::None => proto::RefillMode::None,
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
        /// Hole mask (a level board): rows joined by `/`, `#` a hole, `.` an open cell, e.g.
        /// `#......#/......../...##...`; must be --width by --height.
        #[arg(long, value_parser = parse_holes)]
        holes: Option<super::HoleMask>,
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
        /// Ask the server for the board after every step (include_step_boards). Without it
        /// the steps' boards are drawn from their groups, falls and spawns, and the reply
        /// stays small on large boards.
        #[arg(long)]
        step_boards: bool,
    },
    /// List every valid swap of a stable board; says whether it is dead.
    Dead {
        /// The board, e.g. RGB/GBR/BRG.
        #[arg(long, value_parser = parse_board)]
        board: proto::Board,
    },
    /// Replay a list of swaps at once, as ResolveCascade calls in sequence would, stopping at
    /// the first refused one; prints each move, the final board and its SHA-256 digest.
    Replay {
        /// The starting board; without it one is generated from --width, --height, --colors
        /// and --seed as `swap generate` does.
        #[arg(long, value_parser = parse_board)]
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
        #[arg(long, default_value_t = 8)]
        width: u32,
        /// Rows of a generated board.
        #[arg(long, default_value_t = 8)]
        height: u32,
        /// Seed of a generated board.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Rank every valid swap of a stable board by its certain (no-refill) cascade.
    Hint {
        /// The board.
        #[arg(long, value_parser = parse_board)]
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
    },
    /// Play seeded games with a move policy and summarize their scores.
    Simulate {
        /// The start board; without it one is generated from --width, --height, --colors
        /// and --board-seed as `swap generate` does.
        #[arg(long, value_parser = parse_board)]
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
        #[arg(long, default_value_t = 9)]
        width: u32,
        /// Rows of a generated board.
        #[arg(long, default_value_t = 9)]
        height: u32,
        /// Seed of a generated board.
        #[arg(long, default_value_t = 0)]
        board_seed: u64,
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

pub(super) async fn run_swap(server: &str, args: ClientArgs<SwapCommand>) -> Result<(), String> {
    let limit = args.max_message_bytes as usize;
    let mut client =
        SwapPuzzleClient::new(connect(server, &args.tls).await?).max_decoding_message_size(limit);
    let json = args.json;
    match args.command {
        SwapCommand::Generate {
            width,
            height,
            colors,
            seed,
            min_moves,
            holes,
        } => {
            let request = proto::SwapGenerateBoardRequest {
                width,
                height,
                colors,
                seed,
                min_moves: Some(min_moves),
                holes: holes.unwrap_or_default().0,
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
                if r.combination() != proto::Combination::Unspecified {
                    let _ = writeln!(text, "combination: {}", r.combination().as_str_name());
                }
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
            step_boards,
        } => {
            let level = !board.holes.is_empty() || !board.kinds.is_empty();
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
                // Level boards: the per-step boards carry the kinds, which the events alone
                // would not give this client, so they are always asked for.
                include_step_boards: step_boards || level,
            };
            emit(json, &reply(client.resolve_cascade(request).await)?, |r| {
                let drawn = boards_from_events(&board, swap.as_ref(), &r.steps);
                let mut text = format!("start\n{}", render_board(&board));
                for (step, drawn) in r.steps.iter().zip(&drawn) {
                    let cleared: usize = step.groups.iter().map(|g| g.cells.len()).sum::<usize>()
                        + step.effect_cleared.len();
                    let _ = write!(
                        text,
                        "\nstep {}: {} group(s), {cleared} cleared, {} fell, {} spawned, score {}\n{}",
                        step.index,
                        step.groups.len(),
                        step.falls.len(),
                        step.spawns.len(),
                        step.score,
                        render_board(step.board.as_ref().unwrap_or(drawn))
                    );
                    for special in &step.fired {
                        let _ = writeln!(
                            text,
                            "  fired {} at {}",
                            kind_name(special.kind),
                            position_text(special.position.as_ref())
                        );
                    }
                    for special in &step.created {
                        let _ = writeln!(
                            text,
                            "  created {} at {} (colour {})",
                            kind_name(special.kind),
                            position_text(special.position.as_ref()),
                            special.color
                        );
                    }
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
                let swaps: Vec<String> = r
                    .valid_swaps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| match r.combinations.get(i).copied() {
                        Some(c) if c != 0 => format!("{}({})", swap_text(s), combination_name(c)),
                        _ => swap_text(s),
                    })
                    .collect();
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
        SwapCommand::Replay {
            board,
            swaps,
            seeds,
            move_seed,
            colors,
            refill,
            no_auto_shuffle,
            max_steps,
            width,
            height,
            seed,
        } => {
            use proto::swap_replay_game_request::Start;
            let start = match board {
                Some(board) => Start::Board(board),
                None => Start::Generate(proto::SwapGenerateBoardRequest {
                    width,
                    height,
                    colors,
                    seed,
                    ..Default::default()
                }),
            };
            let moves = swaps
                .into_iter()
                .enumerate()
                .map(|(i, swap)| proto::SwapMove {
                    swap: Some(swap),
                    colors,
                    seed: seeds
                        .get(i)
                        .copied()
                        .unwrap_or_else(|| move_seed.wrapping_add(i as u64)),
                    refill: refill_mode(refill).into(),
                    auto_shuffle: Some(!no_auto_shuffle),
                    max_steps,
                })
                .collect();
            let request = proto::SwapReplayGameRequest {
                start: Some(start),
                moves,
            };
            emit(
                json,
                &reply(client.replay_game(request).await)?,
                replay_text,
            )
        }
        SwapCommand::Hint {
            board,
            top,
            samples,
            seed,
            colors,
        } => {
            let request = proto::SwapHintRequest {
                board: Some(board),
                top_n: top,
                samples,
                seed,
                colors,
                max_steps: 0,
            };
            emit(json, &reply(client.hint(request).await)?, |r| {
                let mut text = format!("{} valid swaps\n", r.valid_swap_count);
                for (i, h) in r.hints.iter().enumerate() {
                    let _ = write!(
                        text,
                        "{:>3}. {} score {} cleared {} steps {}",
                        i + 1,
                        h.swap.as_ref().map_or_else(String::new, swap_text),
                        h.score,
                        h.cleared,
                        h.steps
                    );
                    if h.specials_created > 0 {
                        let _ = write!(text, " specials {}", h.specials_created);
                    }
                    if h.combination != 0 {
                        let _ = write!(text, " {}", combination_name(h.combination));
                    }
                    if samples > 0 {
                        let _ = write!(text, " sampled mean {:.1}", h.mean_sampled_score);
                    }
                    text.push('\n');
                }
                text
            })
        }
        SwapCommand::Simulate {
            board,
            games,
            moves,
            seed,
            policy,
            colors,
            width,
            height,
            board_seed,
        } => {
            use proto::swap_simulate_request::Start;
            let start = match board {
                Some(board) => Start::Board(board),
                None => Start::Generate(proto::SwapGenerateBoardRequest {
                    width,
                    height,
                    colors,
                    seed: board_seed,
                    ..Default::default()
                }),
            };
            let request = proto::SwapSimulateRequest {
                start: Some(start),
                games,
                moves,
                seed,
                policy: match policy {
                    PolicyArg::HintGreedy => proto::SwapPolicy::HintGreedy,
                    PolicyArg::Random => proto::SwapPolicy::Random,
                }
                .into(),
                colors,
                max_steps: 0,
            };
            let response =
                super::collapse::with_progress("simulating", 0, client.simulate(request)).await;
            emit(json, &reply(response)?, |r| {
                format!(
                    "{} games, {} moves played\nscore mean {:.1}, p10 {}, p50 {}, p90 {} (min {}, max {})\n\
                     shuffles {} ({:.2} a game), mean cascade depth {:.2} steps a move\n\
                     dead games (no shuffle possible) {}\n",
                    r.game_scores.len(),
                    r.moves_played,
                    r.mean_score,
                    r.p10_score,
                    r.p50_score,
                    r.p90_score,
                    r.min_score,
                    r.max_score,
                    r.shuffles,
                    r.mean_shuffles,
                    r.mean_cascade_depth,
                    r.dead_games
                )
            })
        }
    }
}

/// The text form of a ReplayGame answer.
fn replay_text(r: &proto::SwapReplayGameResponse) -> String {
    let mut text = start_text(r.start_board.as_ref());
    for (i, m) in r.moves.iter().enumerate() {
        let _ = writeln!(
            text,
            "{:>3}. swap {} score {} steps {}{}{}",
            i + 1,
            m.swap
                .as_ref()
                .map_or_else(|| "(none)".to_owned(), swap_text),
            m.score,
            m.steps,
            if m.shuffled { ", shuffled" } else { "" },
            if m.dead { ", dead" } else { "" }
        );
    }
    if let Some(rejected) = &r.rejected {
        let verdict =
            proto::SwapVerdict::try_from(rejected.verdict).map_or("?", |v| v.as_str_name());
        let _ = writeln!(
            text,
            "move {} (index {}) refused ({}{}): {}; nothing after it applied",
            rejected.index + 1,
            rejected.index,
            rejected.reason,
            if rejected.verdict != 0 {
                format!(", {verdict}")
            } else {
                String::new()
            },
            rejected.message
        );
    }
    let after = r.board.clone().unwrap_or_default();
    let digest = hex(&r.board_digest);
    let _ = write!(
        text,
        "total score {}\nfinal board ({})\n{}sha256 {digest}\n",
        r.total_score,
        board_text(&after),
        render_board(&after)
    );
    text
}

/// A piece kind's short name (`STRIPED_H`, ...).
fn kind_name(kind: i32) -> &'static str {
    proto::PieceKind::try_from(kind)
        .map_or("?", |k| k.as_str_name())
        .trim_start_matches("PIECE_KIND_")
}

/// A combination's short name (`BOMB_NORMAL`, ...).
fn combination_name(combination: i32) -> &'static str {
    proto::Combination::try_from(combination)
        .map_or("?", |c| c.as_str_name())
        .trim_start_matches("COMBINATION_")
}

/// The board after each step of a cascade, rebuilt from the events as a client without
/// per-step boards does: the swap exchanges its two tiles before step 1; then each step clears
/// its groups' cells, moves every falling tile at once (a tile may fall into a cell another
/// tile leaves in the same step), and fills its spawns. Positions off the board are skipped.
fn boards_from_events(
    start: &proto::Board,
    swap: Option<&proto::Swap>,
    steps: &[proto::CascadeStep],
) -> Vec<proto::Board> {
    let width = start.width as usize;
    let index = |p: Option<&proto::Position>| {
        p.filter(|p| p.col < start.width && p.row < start.height)
            .map(|p| p.row as usize * width + p.col as usize)
            .filter(|&i| i < start.cells.len())
    };
    let mut cells = start.cells.clone();
    if let Some((a, b)) = swap.and_then(|s| index(s.a.as_ref()).zip(index(s.b.as_ref()))) {
        cells.swap(a, b);
    }
    let mut boards = Vec::with_capacity(steps.len());
    for step in steps {
        for cell in step.groups.iter().flat_map(|g| &g.cells) {
            if let Some(i) = index(Some(cell)) {
                cells[i] = 0;
            }
        }
        let moves: Vec<(usize, usize, u32)> = step
            .falls
            .iter()
            .filter_map(|f| {
                let (from, to) = index(f.from.as_ref()).zip(index(f.to.as_ref()))?;
                Some((from, to, cells[from]))
            })
            .collect();
        for &(from, _, _) in &moves {
            cells[from] = 0;
        }
        for &(_, to, color) in &moves {
            cells[to] = color;
        }
        for spawn in &step.spawns {
            if let Some(i) = index(spawn.position.as_ref()) {
                cells[i] = spawn.color;
            }
        }
        boards.push(proto::Board {
            width: start.width,
            height: start.height,
            cells: cells.clone(),
            ..proto::Board::default()
        });
    }
    boards
}
