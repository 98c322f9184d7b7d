//! The ratings this process last read from the store or committed to it,
//! so that the end of a game is rated without a read (issue 26: one read
//! for every game that ends, 2.0% of the server's samples under load in
//! the twenty-fourth round's profile).
//!
//! Promise: an entry holds a player's rating row in a variant (or that
//! they have none yet) as the store held it when this process last read
//! it or last committed a change to it. Another process (several servers
//! on one PostgreSQL) may have moved it since: a change computed from such
//! an entry is refused by the store's guard (`RatingsMoved`), and the games
//! service then forgets the game's players here, so that they are rated
//! again from the store. Only the rating of a game's end reads from here;
//! what a seat shows and a rating range judges is read from the store.
//! Pure: a map behind a lock, no I/O.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::game;
use crate::store::{RatingChange, RatingRow};

/// Players remembered at most; past it the map starts again empty (every
/// entry can be read again, so forgetting is always safe).
const MOST_PLAYERS: usize = 100_000;

/// One player's rating in one variant: `None` when they have none yet.
struct Entry {
    game: String,
    variant: String,
    row: Option<RatingRow>,
}

#[derive(Default)]
pub struct Known {
    players: Mutex<HashMap<i64, Vec<Entry>>>,
}

impl Known {
    fn locked(&self) -> MutexGuard<'_, HashMap<i64, Vec<Entry>>> {
        // Plain entries: nothing a panicking holder leaves half-made.
        self.players.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The rows of `players` in the variant, the same as the store's
    /// `ratings_of` (a player without a rating has no row), when every one
    /// of them is known; `None` otherwise.
    pub fn rows(&self, game: &str, variant: &str, players: &[i64]) -> Option<Vec<RatingRow>> {
        let known = self.locked();
        let mut rows = Vec::with_capacity(players.len());
        for player in players {
            let entry = entry(known.get(player)?, game, variant)?;
            rows.extend(entry.row.clone());
        }
        Some(rows)
    }

    /// Remembers what a read of the store found for `players` (`rows`, a
    /// player without one having none), for those not known already: an
    /// entry a change committed meanwhile is newer than the read.
    pub fn learn(&self, game: &str, variant: &str, players: &[i64], rows: &[RatingRow]) {
        let mut known = self.locked();
        make_room(&mut known, players.len());
        for &player in players {
            let entries = known.entry(player).or_default();
            if entry(entries, game, variant).is_none() {
                entries.push(Entry {
                    game: game.to_owned(),
                    variant: variant.to_owned(),
                    row: rows.iter().find(|r| r.player_id == player).cloned(),
                });
            }
        }
    }

    /// Applies committed changes to the entries they start from; a player
    /// not known stays unknown (the row the change leaves needs the one
    /// before it). `name_of` names a player whose first rating this is.
    pub fn committed(&self, changes: &[RatingChange], name_of: impl Fn(i64) -> String) {
        let mut known = self.locked();
        for change in changes {
            let Some(entries) = known.get_mut(&change.player_id) else {
                continue;
            };
            let Some(entry) = entries.iter_mut().find(|e| e.is(&change.game, &change.variant)) else {
                continue;
            };
            // The change starts from this entry, or from one a change
            // committed meanwhile moved past it: then the entry is left to
            // the store's guard.
            if entry.row.as_ref().map_or(0, |r| r.games) + 1 == change.number {
                let name = entry
                    .row
                    .as_ref()
                    .map_or_else(|| name_of(change.player_id), |r| r.name.clone());
                entry.row = Some(game::apply(change, entry.row.as_ref(), &name));
            }
        }
    }

    /// Forgets `players` in the variant: their next end is rated from the
    /// store.
    pub fn forget(&self, game: &str, variant: &str, players: &[i64]) {
        let mut known = self.locked();
        for player in players {
            if let Some(entries) = known.get_mut(player) {
                entries.retain(|e| !e.is(game, variant));
            }
        }
    }
}

impl Entry {
    fn is(&self, game: &str, variant: &str) -> bool {
        self.game == game && self.variant == variant
    }
}

fn entry<'a>(entries: &'a [Entry], game: &str, variant: &str) -> Option<&'a Entry> {
    entries.iter().find(|e| e.is(game, variant))
}

/// Empties the map when `adding` more players could take it past
/// [`MOST_PLAYERS`].
fn make_room(known: &mut HashMap<i64, Vec<Entry>>, adding: usize) {
    if known.len() + adding > MOST_PLAYERS {
        known.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Seat;
    use crate::ratings::game::{rate, Finished};
    use crate::ratings::Params;

    fn row(player: i64, rating: f64, games: i64) -> RatingRow {
        RatingRow {
            player_id: player,
            name: format!("p{player}"),
            bot: false,
            game: "gravity".to_owned(),
            variant: "standard".to_owned(),
            rating,
            rd: 200.0,
            volatility: 0.06,
            games,
            wins: games,
            losses: 0,
            draws: 0,
            last_played: 1_000,
            last_order: games,
        }
    }

    /// The changes of a game between 1 (the winner) and 2, from `stored`.
    fn changes(stored: &[RatingRow]) -> Vec<RatingChange> {
        let seats = [(Seat::from(0), 1), (Seat::from(1), 2)];
        let opponents = [vec![Seat::from(1)], vec![Seat::from(0)]];
        let finished = Finished {
            id: 7,
            game: "gravity",
            variant: "standard",
            seats: &seats,
            winners: &[Seat::from(0)],
            opponents: &opponents,
            ended_at: 2_000,
        };
        rate(&Params::default(), &finished, stored)
    }

    #[test]
    fn rows_are_known_only_for_players_read_or_committed() {
        let known = Known::default();
        assert!(known.rows("gravity", "standard", &[1, 2]).is_none());
        // Player 2 has no rating yet: known as such, no row.
        known.learn("gravity", "standard", &[1, 2], &[row(1, 1600.0, 3)]);
        let rows = known.rows("gravity", "standard", &[1, 2]).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].player_id, rows[0].rating), (1, 1600.0));
        assert!(known.rows("gravity", "other", &[1]).is_none(), "another variant");
        assert!(known.rows("gravity", "standard", &[1, 3]).is_none(), "one unknown");
    }

    #[test]
    fn a_committed_change_leaves_the_row_the_store_would_hold() {
        let known = Known::default();
        let stored = [row(1, 1600.0, 3)];
        known.learn("gravity", "standard", &[1, 2], &stored);
        let changes = changes(&stored);
        known.committed(&changes, |player| format!("p{player}"));
        let rows = known.rows("gravity", "standard", &[1, 2]).unwrap();
        for change in &changes {
            let before = stored.iter().find(|r| r.player_id == change.player_id);
            let name = format!("p{}", change.player_id);
            let expected = game::apply(change, before, &name);
            let now = rows.iter().find(|r| r.player_id == change.player_id).unwrap();
            assert_eq!(format!("{now:?}"), format!("{expected:?}"));
        }
        // The next game is rated from these rows, as from the store's.
        let next = self::changes(&rows);
        assert_eq!(next[0].number, 5);
        assert_eq!(next[1].number, 2);
    }

    #[test]
    fn a_read_never_replaces_a_newer_entry_and_a_stale_change_is_not_applied() {
        let known = Known::default();
        let stored = [row(1, 1600.0, 3), row(2, 1500.0, 1)];
        known.learn("gravity", "standard", &[1, 2], &stored);
        let first = changes(&stored);
        known.committed(&first, |p| format!("p{p}"));
        // A read that began before the commit comes back late.
        known.learn("gravity", "standard", &[1, 2], &stored);
        let rows = known.rows("gravity", "standard", &[1]).unwrap();
        assert_eq!(rows[0].games, 4);
        // A change computed from the old rows (another task's, refused by
        // the store) does not move the entry.
        known.committed(&first, |p| format!("p{p}"));
        assert_eq!(known.rows("gravity", "standard", &[1]).unwrap()[0].games, 4);
    }

    #[test]
    fn forgotten_players_are_read_again() {
        let known = Known::default();
        known.learn("gravity", "standard", &[1, 2], &[row(1, 1600.0, 3)]);
        known.learn("gravity", "other", &[1], &[]);
        known.forget("gravity", "standard", &[1]);
        assert!(known.rows("gravity", "standard", &[1, 2]).is_none());
        assert!(known.rows("gravity", "standard", &[2]).is_some());
        assert!(known.rows("gravity", "other", &[1]).is_some(), "other variants stay");
        // A change for a player not known is not guessed at.
        known.committed(&changes(&[row(1, 1600.0, 3)]), |p| format!("p{p}"));
        assert!(known.rows("gravity", "standard", &[1]).is_none());
    }
}
