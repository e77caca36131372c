//! Scoring rules (docs/rules.md sections 2 and 3).

/// Score of a swap-family group of `size` tiles cleared in cascade step `step` (1-based):
/// `10 * size * step` (docs/rules.md section 2).
#[inline]
pub fn cascade_group_score(size: usize, step: u32) -> u64 {
    10 * size as u64 * u64::from(step)
}

/// A collapse-family scoring rule. `n` is the size of the cleared group and `k` the number of
/// tiles left when the game is over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScoringRule {
    /// PopStar (消灭星星): `5 * n^2` per move; at game over a bonus of `max(0, 2000 - 20 * k^2)`.
    #[default]
    PopStar,
    /// SameGame (Kuniaki Moribe, 1985; the rule of the SameGame research literature, e.g. Schadd
    /// et al. 2008): `(n - 2)^2` per move; `+1000` at game over when the board is empty.
    SameGame,
    /// Clickomania: `n` per move; no end adjustment.
    Clickomania,
    /// Bubble Breaker: `n * (n - 1)` per move; no end adjustment.
    BubbleBreaker,
}

impl ScoringRule {
    /// Score of one move clearing a group of `n` tiles (`n >= 1`).
    #[inline]
    pub fn move_score(self, n: usize) -> u64 {
        let n = n as u64;
        match self {
            Self::PopStar => 5 * n * n,
            Self::SameGame => n.saturating_sub(2).pow(2),
            Self::Clickomania => n,
            Self::BubbleBreaker => n * n.saturating_sub(1),
        }
    }

    /// The end-of-game adjustment when the game is over with `tiles_left` tiles on the board.
    /// Never negative for the four rules of docs/rules.md section 3.
    #[inline]
    pub fn end_bonus(self, tiles_left: usize) -> i64 {
        let k = tiles_left as i64;
        match self {
            Self::PopStar => (2000 - 20 * k * k).max(0),
            Self::SameGame => {
                if k == 0 {
                    1000
                } else {
                    0
                }
            }
            Self::Clickomania | Self::BubbleBreaker => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_scores_follow_the_table() {
        assert_eq!(ScoringRule::PopStar.move_score(4), 80);
        assert_eq!(ScoringRule::SameGame.move_score(4), 4);
        assert_eq!(ScoringRule::SameGame.move_score(2), 0);
        assert_eq!(ScoringRule::Clickomania.move_score(7), 7);
        assert_eq!(ScoringRule::BubbleBreaker.move_score(5), 20);
        assert_eq!(cascade_group_score(5, 3), 150);
    }

    #[test]
    fn end_bonuses_follow_the_table() {
        assert_eq!(ScoringRule::PopStar.end_bonus(0), 2000);
        assert_eq!(ScoringRule::PopStar.end_bonus(3), 1820);
        assert_eq!(ScoringRule::PopStar.end_bonus(10), 0);
        assert_eq!(ScoringRule::PopStar.end_bonus(4096), 0);
        assert_eq!(ScoringRule::SameGame.end_bonus(0), 1000);
        assert_eq!(ScoringRule::SameGame.end_bonus(1), 0);
        assert_eq!(ScoringRule::Clickomania.end_bonus(0), 0);
        assert_eq!(ScoringRule::BubbleBreaker.end_bonus(0), 0);
    }
}
