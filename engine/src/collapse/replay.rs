//! [`replay`]: a whole collapse-family game checked in one call, as `Tap` calls in sequence
//! would play it, and [`board_digest`], a fixed-size fingerprint of a board.

use sha2::{Digest, Sha256};

use crate::board::Board;
use crate::error::{EngineError, TapRejection};
use crate::params::MinGroup;
use crate::position::Position;
use crate::scoring::ScoringRule;
use crate::settled::SettledBoard;

use super::CollapseGame;

/// Most taps one replay takes: 2048, the most legal taps any game has (a 64x64 board holds 4096
/// tiles and every tap clears at least two). More is `INVALID_ARGUMENT` naming `taps`.
pub const MAX_REPLAY_TAPS: usize = 2048;

/// One applied tap, as `Tap` reports it (without the cell lists).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayedMove {
    /// The tapped cell, as given.
    pub position: Position,
    /// Colour of the cleared group, `1..=16`.
    pub color: u8,
    /// Cells cleared, `>= min_group`.
    pub size: usize,
    /// The move's score under the rule.
    pub move_score: u64,
    /// Tiles left after the move.
    pub tiles_left: usize,
    /// True when no legal group is left after the move.
    pub game_over: bool,
    /// The end adjustment when `game_over`, else 0.
    pub end_bonus: i64,
}

/// Why a replayed tap was refused: `Tap` answers the same tap with `INVALID_ARGUMENT`
/// (`OffBoard`) or `FAILED_PRECONDITION` `ILLEGAL_TAP` (the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapRefusal {
    /// The position is off the board.
    OffBoard,
    /// The cell is empty.
    EmptyCell,
    /// The cell's group is smaller than `min_group` (every tap after game over is this or
    /// `EmptyCell`).
    GroupTooSmall {
        /// Cells in the tapped cell's group.
        size: usize,
    },
}

/// The first refused tap of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefusedTap {
    /// Its index in the request's list, 0-based; the taps before it were applied, none after.
    pub index: usize,
    /// The tap as given.
    pub position: Position,
    /// Why.
    pub refusal: TapRefusal,
}

/// The result of a replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replay {
    /// The taps applied, in order (all of them, or those before `refused`).
    pub moves: Vec<ReplayedMove>,
    /// Sum of the applied moves' scores plus `end_bonus`.
    pub total_score: i64,
    /// The board after the applied taps.
    pub board: SettledBoard,
    /// Tiles left on `board`.
    pub tiles_left: usize,
    /// True when `board` has no legal group.
    pub game_over: bool,
    /// The rule's end adjustment when `game_over`, else 0 (as the last `Tap` reports it).
    pub end_bonus: i64,
    /// The first refused tap, if any.
    pub refused: Option<RefusedTap>,
}

/// Plays `taps` in order from `board` under `rule` and `min_group`, stopping at the first tap
/// `Tap` would refuse (reported, not an error). Each applied tap gives exactly what `Tap` gives
/// for it on the board left by the previous ones.
///
/// # Errors
/// [`EngineError::InvalidParameter`] naming `taps` for more than [`MAX_REPLAY_TAPS`] taps.
pub fn replay(
    board: &SettledBoard,
    taps: &[Position],
    rule: ScoringRule,
    min_group: MinGroup,
) -> Result<Replay, EngineError> {
    if taps.len() > MAX_REPLAY_TAPS {
        return Err(EngineError::InvalidParameter {
            field: "taps",
            reason: format!(
                "at most {MAX_REPLAY_TAPS} taps per replay (no game has more), got {}",
                taps.len()
            ),
        });
    }
    let mut game = CollapseGame::new(board);
    let mut moves = Vec::with_capacity(taps.len());
    let mut refused = None;
    let mut score = 0i64;
    let mut game_over = !game.has_legal_group(min_group);
    let mut end_bonus = 0;
    for (index, &position) in taps.iter().enumerate() {
        let color = board_color(&game, position);
        let size = match game.apply_tap(position, min_group) {
            Ok(size) => size,
            Err(error) => {
                let refusal = match error {
                    EngineError::IllegalTap(TapRejection::GroupTooSmall { size, .. }) => {
                        TapRefusal::GroupTooSmall { size }
                    }
                    EngineError::IllegalTap(TapRejection::EmptyCell) => TapRefusal::EmptyCell,
                    _ => TapRefusal::OffBoard,
                };
                refused = Some(RefusedTap {
                    index,
                    position,
                    refusal,
                });
                break;
            }
        };
        let tiles_left = game.tiles_left();
        game_over = !game.has_legal_group(min_group);
        end_bonus = if game_over {
            rule.end_bonus(tiles_left)
        } else {
            0
        };
        let move_score = rule.move_score(size);
        score += move_score as i64;
        moves.push(ReplayedMove {
            position,
            color,
            size,
            move_score,
            tiles_left,
            game_over,
            end_bonus,
        });
    }
    let tiles_left = game.tiles_left();
    // With no tap applied, the starting board's own adjustment, as CheckDeadState reports it.
    if moves.is_empty() && game_over {
        end_bonus = rule.end_bonus(tiles_left);
    }
    Ok(Replay {
        moves,
        total_score: score + end_bonus,
        board: game.to_settled_board(),
        tiles_left,
        game_over,
        end_bonus,
        refused,
    })
}

/// The colour at `position` of `game`, 0 when off the board or empty.
fn board_color(game: &CollapseGame, position: Position) -> u8 {
    game.locate(position)
        .map_or(0, |(slot, _, _)| game.color_of(slot))
}

/// SHA-256 of a board: `width` and `height` as 4-byte little-endian integers, then one byte
/// per cell in row-major order (0 empty, 1..=16 a colour). 32 bytes; equal boards give equal
/// digests, and a client can compute it from the `Board` message it holds.
pub fn board_digest(board: &Board) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update((board.width() as u32).to_le_bytes());
    hasher.update((board.height() as u32).to_le_bytes());
    hasher.update(board.cells());
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled(text: &str) -> SettledBoard {
        SettledBoard::try_from(Board::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn a_whole_game_and_a_refused_tap() {
        let board = settled("ABBC/ABBC");
        let taps = [
            Position::new(0, 1),
            Position::new(0, 0),
            Position::new(1, 0),
            Position::new(9, 9),
        ];
        let replay = replay(&board, &taps, ScoringRule::PopStar, MinGroup::DEFAULT).unwrap();
        // B's (4) -> AC../AC..; A's (2) -> C.../C...; C's (2) -> empty, bonus 2000.
        assert_eq!(
            replay
                .moves
                .iter()
                .map(|m| m.move_score)
                .collect::<Vec<_>>(),
            vec![80, 20, 20]
        );
        assert_eq!(replay.moves[2].end_bonus, 2000);
        assert!(replay.game_over);
        assert_eq!(replay.total_score, 2120);
        assert_eq!(replay.board.board().to_string(), "..../....");
        assert_eq!(
            replay.refused,
            Some(RefusedTap {
                index: 3,
                position: Position::new(9, 9),
                refusal: TapRefusal::OffBoard
            })
        );
    }

    #[test]
    fn illegal_taps_stop_the_replay() {
        let board = settled("AB./AB.");
        let small = replay(
            &board,
            &[Position::new(0, 0), Position::new(0, 0)],
            ScoringRule::SameGame,
            MinGroup::parse(3).unwrap(),
        )
        .unwrap();
        assert_eq!(small.moves, Vec::new());
        assert_eq!(
            small.refused.map(|r| (r.index, r.refusal)),
            Some((0, TapRefusal::GroupTooSmall { size: 2 }))
        );
        assert!(small.game_over);
        let empty = replay(
            &board,
            &[Position::new(0, 2)],
            ScoringRule::SameGame,
            MinGroup::DEFAULT,
        )
        .unwrap();
        assert_eq!(
            empty.refused.map(|r| r.refusal),
            Some(TapRefusal::EmptyCell)
        );
        assert_eq!(empty.board, board);
    }

    #[test]
    fn too_many_taps_are_invalid() {
        let taps = vec![Position::new(0, 0); MAX_REPLAY_TAPS + 1];
        assert!(matches!(
            replay(
                &settled("AA"),
                &taps,
                ScoringRule::PopStar,
                MinGroup::DEFAULT
            ),
            Err(EngineError::InvalidParameter { field: "taps", .. })
        ));
    }

    #[test]
    fn digest_is_sha256_of_the_documented_bytes() {
        // SHA-256 of 01 00 00 00 | 01 00 00 00 | 00: a 1x1 empty board.
        let board = Board::parse(".").unwrap();
        let hex: String = board_digest(&board)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let expected = {
            let mut hasher = Sha256::new();
            hasher.update([1, 0, 0, 0, 1, 0, 0, 0, 0]);
            hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        assert_eq!(hex, expected);
        assert_ne!(
            board_digest(&Board::parse("AB").unwrap()),
            board_digest(&Board::parse("A/B").unwrap())
        );
    }
}
