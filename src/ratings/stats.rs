//! A player's statistics from the games they sit at, purely: games played,
//! won, lost and drawn (all, and by game), games in progress, the longest
//! winning streak, the opponents met most.

use std::collections::BTreeMap;

use crate::domain::GameStatus;
use crate::store::{PlayedGame, PlayerResult};

use super::{game, winners_of};

/// Finished games, by how they went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub played: i64,
    pub won: i64,
    pub lost: i64,
    pub drawn: i64,
}

impl Tally {
    fn add(&mut self, result: PlayerResult) {
        self.played += 1;
        match result {
            PlayerResult::Win => self.won += 1,
            PlayerResult::Loss => self.lost += 1,
            PlayerResult::Draw => self.drawn += 1,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Statistics {
    pub total: Tally,
    pub in_progress: i64,
    /// By game slug.
    pub by_game: BTreeMap<String, Tally>,
    /// The most finished games won in a row.
    pub longest_streak: i64,
    /// `(name, games together)`, most first.
    pub opponents: Vec<(String, i64)>,
}

impl Statistics {
    /// From `games` in the order they last changed (finished ones: the
    /// order they ended).
    pub fn of(games: &[PlayedGame], opponents: Vec<(String, i64)>) -> Statistics {
        let mut stats = Statistics {
            opponents,
            ..Statistics::default()
        };
        let mut streak = 0;
        for g in games {
            match g.status {
                GameStatus::Active => stats.in_progress += 1,
                GameStatus::Finished => {
                    let result = game::result(&winners_of(g.outcome.as_ref()), g.seat);
                    stats.total.add(result);
                    stats.by_game.entry(g.game.clone()).or_default().add(result);
                    streak = if result == PlayerResult::Win { streak + 1 } else { 0 };
                    stats.longest_streak = stats.longest_streak.max(streak);
                }
                GameStatus::Open | GameStatus::Aborted => {}
            }
        }
        stats
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::Seat;

    fn played(id: i64, game: &str, status: GameStatus, winners: &[u8]) -> PlayedGame {
        PlayedGame {
            id,
            game: game.into(),
            variant: "standard".into(),
            status,
            outcome: (status == GameStatus::Finished).then(|| json!({ "winners": winners, "reason": "x" })),
            seat: Seat::from(0),
            updated_at: id,
        }
    }

    #[test]
    fn games_are_counted_by_result_and_the_longest_streak_found() {
        use GameStatus::{Active, Finished};
        let games = [
            played(1, "gravity", Finished, &[0]),
            played(2, "gravity", Finished, &[0]),
            played(3, "torri", Finished, &[]),
            played(4, "gravity", Finished, &[0]),
            played(5, "gravity", Finished, &[0]),
            played(6, "gravity", Finished, &[0]),
            played(7, "torri", Finished, &[1]),
            played(8, "torri", Active, &[]),
        ];
        let stats = Statistics::of(&games, vec![("bob".into(), 3)]);
        assert_eq!(
            stats.total,
            Tally {
                played: 7,
                won: 5,
                lost: 1,
                drawn: 1
            }
        );
        assert_eq!(stats.in_progress, 1);
        assert_eq!(stats.longest_streak, 3);
        assert_eq!(stats.by_game["torri"].played, 2);
        assert_eq!(stats.opponents, vec![("bob".to_owned(), 3)]);
    }
}
