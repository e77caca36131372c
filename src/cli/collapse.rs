//! `matchgrid collapse ...`: the PopStar / SameGame (collapse family) client commands.

use std::fmt::Write as _;

use clap::{Subcommand, ValueEnum};

use super::render::{board_summary, board_text, emit, position_text, render_board};
use super::{ClientArgs, connect, parse_board, parse_position, reply};
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

pub(super) async fn run_collapse(
    server: &str,
    args: ClientArgs<CollapseCommand>,
) -> Result<(), String> {
    let limit = args.max_message_bytes as usize;
    let mut client = CollapsePuzzleClient::new(connect(server, &args.tls).await?)
        .max_decoding_message_size(limit);
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
