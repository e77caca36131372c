//! `matchgrid swap ...`: the match-3 (swap family) client commands.

use std::fmt::Write as _;

use clap::{Subcommand, ValueEnum};

use super::render::{board_summary, board_text, emit, position_text, render_board, swap_text};
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
    }
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
