//! `matchgrid collapse ...`: the PopStar / SameGame (collapse family) client commands.

use std::fmt::Write as _;

use clap::{Subcommand, ValueEnum};

use super::render::{
    board_summary, board_text, emit, hex, position_text, render_board, start_text,
};
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
    /// Search for the best tap sequence (Nested Monte-Carlo Search, TabuColorRandom playouts);
    /// a progress bar on stderr while it runs.
    Solve {
        /// The board (settled).
        #[arg(long, value_parser = parse_board)]
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
    },
    /// Replay a list of taps at once, as Tap calls in sequence would, stopping at the first
    /// illegal one; prints the final board and its SHA-256 digest.
    Replay {
        /// The starting board; without it one is generated from --width, --height, --colors
        /// and --seed as `collapse generate` does.
        #[arg(long, value_parser = parse_board)]
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
        #[arg(long, default_value_t = 10)]
        width: u32,
        /// Rows of a generated board.
        #[arg(long, default_value_t = 10)]
        height: u32,
        /// Colours of a generated board.
        #[arg(long, default_value_t = 5)]
        colors: u32,
        /// Seed of a generated board.
        #[arg(long, default_value_t = 0)]
        seed: u64,
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
        CollapseCommand::Solve {
            board,
            scoring,
            min_group,
            seed,
            max_nodes,
            max_millis,
            level,
            restarts,
            screened,
            screen_width,
        } => {
            let request = proto::CollapseSolveRequest {
                board: Some(board.clone()),
                scoring: proto::ScoringRule::from(scoring).into(),
                min_group,
                seed,
                max_nodes,
                max_millis,
                level,
                schedule: if restarts {
                    proto::SolveSchedule::Restarts.into()
                } else {
                    proto::SolveSchedule::Unspecified.into()
                },
                method: if screened {
                    proto::SolveMethod::Screened.into()
                } else {
                    proto::SolveMethod::Unspecified.into()
                },
                screen_width,
            };
            let response = with_progress("solving", max_millis, client.solve(request)).await;
            emit(json, &reply(response)?, |r| {
                let mut text = render_board(&board);
                for (i, m) in r.moves.iter().enumerate() {
                    let _ = writeln!(
                        text,
                        "{:>3}. tap {} colour {} size {} score {}",
                        i + 1,
                        position_text(m.position.as_ref()),
                        m.color,
                        m.size,
                        m.move_score
                    );
                }
                let after = r.board.clone().unwrap_or_default();
                let stop = proto::SolveStop::try_from(r.stop)
                    .map_or_else(|_| r.stop.to_string(), |s| s.as_str_name().to_owned());
                let _ = write!(
                    text,
                    "final ({})\n{}score {} (end bonus {}), tiles left {}\nsearch: {} nodes, {} \
                     playouts, {} level(s) completed, {} run(s), {:.3} s, stop {}\ntaps: {}\n",
                    board_text(&after),
                    render_board(&after),
                    r.score,
                    r.end_bonus,
                    r.tiles_left,
                    r.nodes,
                    r.playouts,
                    r.levels_completed,
                    r.runs_completed,
                    r.elapsed_micros as f64 / 1e6,
                    stop,
                    r.moves
                        .iter()
                        .map(|m| position_text(m.position.as_ref()))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
                text
            })
        }
        CollapseCommand::Replay {
            board,
            taps,
            scoring,
            min_group,
            width,
            height,
            colors,
            seed,
        } => {
            use proto::collapse_replay_game_request::Start;
            let start = match board {
                Some(board) => Start::Board(board),
                None => Start::Generate(proto::CollapseGenerateBoardRequest {
                    width,
                    height,
                    colors,
                    seed,
                    min_group,
                }),
            };
            let request = proto::CollapseReplayGameRequest {
                start: Some(start),
                scoring: proto::ScoringRule::from(scoring).into(),
                min_group,
                taps,
            };
            emit(json, &reply(client.replay_game(request).await)?, |r| {
                let mut text = start_text(r.start_board.as_ref());
                for (i, m) in r.moves.iter().enumerate() {
                    let _ = writeln!(
                        text,
                        "{:>3}. tap {} colour {} cleared {} score {}, tiles left {}{}",
                        i + 1,
                        position_text(m.position.as_ref()),
                        m.color,
                        m.cleared,
                        m.move_score,
                        m.tiles_left,
                        if m.game_over {
                            format!(", game over, end bonus {}", m.end_bonus)
                        } else {
                            String::new()
                        }
                    );
                }
                if let Some(rejected) = &r.rejected {
                    let reason = proto::TapRejection::try_from(rejected.reason).map_or_else(
                        |_| rejected.reason.to_string(),
                        |s| s.as_str_name().to_owned(),
                    );
                    let _ = writeln!(
                        text,
                        "tap {} (index {}) at {} refused: {}{}; nothing after it applied",
                        rejected.index + 1,
                        rejected.index,
                        position_text(rejected.position.as_ref()),
                        reason,
                        if rejected.group_size > 0 {
                            format!(" (group of {})", rejected.group_size)
                        } else {
                            String::new()
                        }
                    );
                }
                let after = r.board.clone().unwrap_or_default();
                let digest = hex(&r.board_digest);
                let _ = write!(
                    text,
                    "final ({})\n{}total score {}, tiles left {}, game over {}, end bonus {}\n\
                     digest sha256:{}\n",
                    board_text(&after),
                    render_board(&after),
                    r.total_score,
                    r.tiles_left,
                    r.game_over,
                    r.end_bonus,
                    digest
                );
                text
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

/// Awaits `call`, drawing a progress bar on stderr (a terminal only) once it has run for
/// 300 ms: against `max_millis` when set, else a spinner with the elapsed time; `label` names
/// the work (`solving`, `simulating`).
pub(super) async fn with_progress<T>(
    label: &str,
    max_millis: u32,
    call: impl std::future::Future<Output = T>,
) -> T {
    use indicatif::{ProgressBar, ProgressStyle};
    use std::time::{Duration, Instant};
    let started = Instant::now();
    tokio::pin!(call);
    let mut bar: Option<ProgressBar> = None;
    let mut ticks = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            result = &mut call => {
                if let Some(bar) = bar {
                    bar.finish_and_clear();
                }
                return result;
            }
            _ = ticks.tick() => {
                let elapsed = started.elapsed();
                if elapsed < Duration::from_millis(300) {
                    continue;
                }
                let bar = bar.get_or_insert_with(|| {
                    if max_millis > 0 {
                        ProgressBar::new(u64::from(max_millis)).with_style(
                            ProgressStyle::with_template(
                                &format!("{label} {{bar:40}} {{elapsed_precise}} of {{msg}}"),
                            )
                            .unwrap_or_else(|_| ProgressStyle::default_bar())
                            .progress_chars("=> "),
                        )
                        .with_message(format!("{:.1} s", f64::from(max_millis) / 1000.0))
                    } else {
                        ProgressBar::new_spinner().with_style(
                            ProgressStyle::with_template(&format!(
                                "{{spinner}} {label} {{elapsed_precise}}"
                            ))
                                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                        )
                    }
                });
                bar.set_position((elapsed.as_millis() as u64).min(u64::from(max_millis)));
                bar.tick();
            }
        }
    }
}
