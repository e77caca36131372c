//! Level play (docs/rules.md section 8): a level (a start, colours, a move limit, goals), the
//! state a client sends back each move, one move on it with the status it leads to, and
//! difficulty as the pass rate of simulated games.

mod goals;
mod play;
mod policy;
mod simulate;

pub use goals::{Goal, GoalProgress};
pub use play::{
    Level, LevelMove, LevelStart, LevelState, generate_on_layout, play_level_move,
    play_level_move_into,
};
pub use policy::LevelPolicy;
pub use simulate::{LevelSimulation, MovesLeft, simulate_level, simulate_level_reporting};

#[cfg(test)]
mod tests;
