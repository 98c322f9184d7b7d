//! Recomputing every rating from the stored games, purely: replay the
//! finished rated games in the order they were rated, each through the same
//! [`game::rate`] as when it ended, and compare with what is stored. Each
//! player's games come in their own order whatever the order between
//! players, so the replay arrives at the same bits as the live updates.

use std::collections::HashMap;

use crate::store::{RatedGame, RatingChange, RatingRow};

use super::{game, opponents, winners_of, Params};

/// What a rebuild computed, and how it compares with what was stored.
#[derive(Clone, Debug)]
pub struct Rebuilt {
    pub ratings: Vec<RatingRow>,
    pub changes: Vec<RatingChange>,
    /// Games replayed (rated ones whose game the catalogue knows).
    pub games: usize,
    /// Ratings whose stored values differ from the rebuilt ones, or that
    /// exist on one side only.
    pub differing: usize,
}

type Key = (i64, String, String);

fn key(row: &RatingRow) -> Key {
    (row.player_id, row.game.clone(), row.variant.clone())
}

/// Whether two rows hold the same values, to the bit.
fn same(a: &RatingRow, b: &RatingRow) -> bool {
    a.rating.to_bits() == b.rating.to_bits()
        && a.rd.to_bits() == b.rd.to_bits()
        && a.volatility.to_bits() == b.volatility.to_bits()
        && (a.games, a.wins, a.losses, a.draws) == (b.games, b.wins, b.losses, b.draws)
        && (a.last_played, a.last_order) == (b.last_played, b.last_order)
}

/// Replays `games` (in the order the store gives them: the order rated) and
/// compares the result with `stored`.
pub fn replay(params: &Params, games: &[RatedGame], stored: &[RatingRow]) -> Rebuilt {
    let names: HashMap<i64, &str> = stored.iter().map(|r| (r.player_id, r.name.as_str())).collect();
    let mut current: HashMap<Key, RatingRow> = HashMap::new();
    let mut changes = Vec::new();
    let mut replayed = 0;
    for g in games {
        let Some(opponents) = opponents(&g.game, &g.variant) else {
            continue;
        };
        replayed += 1;
        let winners = winners_of(g.outcome.as_ref());
        let rows: Vec<RatingRow> = g
            .seats
            .iter()
            .filter_map(|(_, p)| current.get(&(*p, g.game.clone(), g.variant.clone())).cloned())
            .collect();
        let finished = game::Finished {
            id: g.id,
            game: &g.game,
            variant: &g.variant,
            seats: &g.seats,
            winners: &winners,
            opponents: &opponents,
            ended_at: g.ended_at,
        };
        for change in game::rate(params, &finished, &rows) {
            let k = (change.player_id, change.game.clone(), change.variant.clone());
            let name = names.get(&change.player_id).copied().unwrap_or("");
            let row = game::apply(&change, current.get(&k), name);
            current.insert(k, row);
            changes.push(change);
        }
    }
    let stored_by_key: HashMap<Key, &RatingRow> = stored.iter().map(|r| (key(r), r)).collect();
    let mut differing = stored.iter().filter(|r| !current.contains_key(&key(r))).count();
    differing += current
        .values()
        .filter(|r| stored_by_key.get(&key(r)).is_none_or(|s| !same(s, r)))
        .count();
    let mut ratings: Vec<RatingRow> = current.into_values().collect();
    ratings.sort_by_key(key);
    Rebuilt {
        ratings,
        changes,
        games: replayed,
        differing,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::Seat;

    fn gravity(id: i64, seats: [i64; 2], winner: Option<u8>, ordinal: i64) -> RatedGame {
        RatedGame {
            id,
            game: "gravity".into(),
            variant: "standard".into(),
            outcome: Some(json!({ "winners": winner.into_iter().collect::<Vec<u8>>(), "reason": "x" })),
            ended_at: id * 1000,
            ordinal: Some(ordinal),
            seats: vec![(Seat::from(0), seats[0]), (Seat::from(1), seats[1])],
        }
    }

    /// Replaying its own output from scratch gives the same bits: what a
    /// second rebuild checks.
    #[test]
    fn a_replay_agrees_with_itself_and_counts_what_differs() {
        let games = [
            gravity(1, [1, 2], Some(0), 1),
            gravity(2, [2, 3], None, 2),
            gravity(3, [3, 1], Some(1), 3),
        ];
        let first = replay(&Params::default(), &games, &[]);
        assert_eq!((first.games, first.changes.len(), first.ratings.len()), (3, 6, 3));
        assert_eq!(first.differing, 3, "nothing was stored");
        let second = replay(&Params::default(), &games, &first.ratings);
        assert_eq!(second.differing, 0);
        let mut off = first.ratings.clone();
        off[0].rating += 1e-9;
        assert_eq!(replay(&Params::default(), &games, &off).differing, 1);
        let one = first.ratings.iter().find(|r| r.player_id == 1).expect("rated");
        assert_eq!((one.games, one.wins, one.losses, one.draws), (2, 2, 0, 0));
    }
}
