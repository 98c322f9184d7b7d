//! The hot-game cache: what this process knows of each game it serves,
//! behind one lock per game.
//!
//! Moves and joins are decided from it without reading the database. That
//! is safe because the commit's guard checks the game's event number: if
//! another process changed the game meanwhile, the write is refused and the
//! action is decided again from the database, as is any refusal decided
//! from the cache. The lock serialises this process's actions on one game;
//! the cache is dropped whenever it might be stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::rules::AnyGame;
use crate::store::{ConditionalTrees, GameRecord};

use super::error::{GameError, GameResult};
use super::Games;

/// Hot games kept beyond this number are evicted when idle.
const HOT_GAMES: usize = 10_000;

/// Whether one attempt at an action decided it: `None` when it must be
/// decided again, from the database. An attempt answers `Ok(None)` when its
/// commit lost a race. A refusal decided on the cache (`from_cache`) is
/// decided again, since a stale cache could differ from the database;
/// a time-out is not, having been acted on already.
pub(super) fn settled<T>(attempt: GameResult<Option<T>>, from_cache: bool) -> Option<GameResult<T>> {
    match attempt {
        Ok(Some(done)) => Some(Ok(done)),
        Ok(None) => None,
        Err(error @ GameError::TimeOut { .. }) => Some(Err(error)),
        Err(_) if from_cache => None,
        Err(error) => Some(Err(error)),
    }
}

/// What this process knows of one game, valid at event number `seq`.
#[derive(Default)]
pub(super) struct Hot {
    /// The game's event number `game` (and `record`, when set) are at.
    pub seq: i64,
    pub game: Option<AnyGame>,
    /// The game's row and seats, minus fields no move depends on
    /// (`deadline` and `reminder_at` may be newer in the database: moves
    /// compute their own). Shared with the actions decided from it and the
    /// answers rendered after them, which never change it: a move copies
    /// the record once, to make the next one (issue 26).
    pub record: Option<Arc<GameRecord>>,
    /// The game's conditional trees at the version they were read at:
    /// valid whenever the game is at that version, whatever its event
    /// number (every change of a tree bumps the version).
    pub conditionals: Option<ConditionalTrees>,
}

impl Hot {
    /// The cached record and position, if both are there.
    pub fn current(&self) -> Option<(Arc<GameRecord>, AnyGame)> {
        match (&self.record, &self.game) {
            (Some(record), Some(game)) if record.row.event_seq == self.seq => Some((Arc::clone(record), game.clone())),
            _ => None,
        }
    }

    pub fn forget(&mut self) {
        self.game = None;
        self.record = None;
    }

    /// What the cache holds once a change of it is committed.
    pub fn remember(&mut self, seq: i64, game: AnyGame, record: Option<Arc<GameRecord>>) {
        self.seq = seq;
        self.game = Some(game);
        self.record = record;
    }
}

pub(super) type Slot = Arc<tokio::sync::Mutex<Hot>>;

/// The per-game locks and caches of this process.
#[derive(Default)]
pub(super) struct HotGames(Mutex<HashMap<i64, Slot>>);

impl HotGames {
    /// The lock and cache slot of one game.
    pub fn slot(&self, id: i64) -> Slot {
        let mut hot = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if hot.len() >= HOT_GAMES {
            // Nobody holds an idle slot: dropping it loses only a cache.
            hot.retain(|_, slot| Arc::strong_count(slot) > 1);
        }
        hot.entry(id).or_default().clone()
    }
}

impl Games {
    /// The record and position an action decides on: the cache's when
    /// `trust_cache` and it holds both, else read (and cached). With them,
    /// whether they came from the cache: a refusal decided on the cache is
    /// decided again from the database, which a stale cache could differ
    /// from.
    pub(super) async fn basis(
        &self,
        hot: &mut Hot,
        id: i64,
        trust_cache: bool,
    ) -> GameResult<(Arc<GameRecord>, AnyGame, bool)> {
        if let Some((record, game)) = trust_cache.then(|| hot.current()).flatten() {
            return Ok((record, game, true));
        }
        let record = Arc::new(self.load(id).await?);
        let game = self.position(hot, &record).await?;
        Ok((record, game, false))
    }

    /// The current position, from the cache when it is up to date, else
    /// replayed from the stored moves (and cached, unless the cache is
    /// newer).
    pub(super) async fn position(&self, hot: &mut Hot, record: &GameRecord) -> GameResult<AnyGame> {
        if hot.seq == record.row.event_seq {
            if let Some(game) = &hot.game {
                return Ok(game.clone());
            }
        }
        // `ply` counts the stored moves: a game at ply 0 (every new game)
        // has none to read.
        let moves = if record.row.ply == 0 {
            Vec::new()
        } else {
            self.store.moves(record, None).await?
        };
        let game = super::replay(record, &moves)?;
        // A copy newer than `record` stays: it was committed after `record`
        // was read (a join that raced a creation's answer, a move that raced
        // a read).
        if hot.seq <= record.row.event_seq {
            hot.remember(record.row.event_seq, game.clone(), Some(Arc::new(record.clone())));
        }
        Ok(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_decides_wherever_it_was_decided() {
        for from_cache in [true, false] {
            assert!(matches!(settled(Ok(Some(7)), from_cache), Some(Ok(7))));
        }
    }

    #[test]
    fn a_lost_race_is_decided_again() {
        for from_cache in [true, false] {
            assert!(settled::<()>(Ok(None), from_cache).is_none());
        }
    }

    #[test]
    fn a_refusal_stands_only_when_the_database_decided_it() {
        assert!(settled::<()>(Err(GameError::NotYourTurn), true).is_none());
        assert!(matches!(
            settled::<()>(Err(GameError::NotYourTurn), false),
            Some(Err(GameError::NotYourTurn))
        ));
    }
}
