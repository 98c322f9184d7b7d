//! A game's moves as its event log holds them. Each `move` event carries
//! its move, and nothing else stores it (issue 26: a table of moves beside
//! the log wrote a fifth of every commit's pages, BENCHMARKS.md). A move
//! taken back is not deleted: the game's row steps back a ply, and the next
//! `move` event at that ply stands in its place.
//!
//! [`History`] reads the log back into the moves that stand, as of a
//! game's row: the latest `move` event at each ply up to the row's ply, and
//! none written after the row's event number (a read racing a commit sees
//! the game as its row does). It is pure: the store feeds it the rows.

use std::fmt;

use serde::Deserialize;
use sqlx::types::Json;

use super::{GameRecord, MoveRow, SeatRow};
use crate::domain::Seat;

/// What a `move` event's payload says of its move (`games::MoveEvent`
/// writes it; its other fields say where the game went, and are not read
/// back here).
#[derive(Debug, Deserialize)]
pub struct MovePayload {
    pub ply: i64,
    pub seat: Seat,
    pub player: String,
    #[serde(rename = "move")]
    pub notation: String,
    pub effect: Option<String>,
    pub message: Option<String>,
}

/// A `move` event as stored.
#[derive(Debug, sqlx::FromRow)]
pub struct MoveEventRow {
    pub seq: i64,
    pub payload: Json<MovePayload>,
    pub created_at: i64,
}

/// A game's log that does not read as a history: the database, not a
/// request, is wrong.
#[derive(Debug, PartialEq, Eq)]
pub enum HistoryError {
    /// A `move` event's ply leaves a gap after the moves standing before it.
    Gap {
        game: i64,
        seq: i64,
        ply: i64,
        standing: usize,
    },
    /// A move by a seat that has no player.
    NoPlayer { game: i64, ply: i64, seat: Seat },
    /// The row says more moves were played than the log holds.
    Short { game: i64, ply: i64, standing: usize },
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::Gap {
                game,
                seq,
                ply,
                standing,
            } => write!(
                f,
                "game {game}'s event {seq} is move {ply}, but only {standing} moves stand before it"
            ),
            HistoryError::NoPlayer { game, ply, seat } => {
                write!(f, "game {game}'s move {ply} is by seat {seat}, where nobody sits")
            }
            HistoryError::Short { game, ply, standing } => {
                write!(f, "game {game} is at ply {ply}, but its log holds {standing} moves")
            }
        }
    }
}

impl std::error::Error for HistoryError {}

/// What of a game's row its history is read against.
#[derive(Clone, Copy, Debug)]
pub struct GameAt<'a> {
    pub id: i64,
    /// How many moves stand.
    pub ply: i64,
    pub seats: &'a [SeatRow],
}

impl<'a> GameAt<'a> {
    pub fn of(record: &'a GameRecord) -> GameAt<'a> {
        GameAt {
            id: record.row.id,
            ply: record.row.ply,
            seats: &record.seats,
        }
    }
}

/// The moves standing in a game's log, folded from its `move` events in
/// order.
pub struct History<'a> {
    game: GameAt<'a>,
    moves: Vec<MoveRow>,
}

impl<'a> History<'a> {
    pub fn of(game: GameAt<'a>) -> History<'a> {
        History {
            game,
            moves: Vec::with_capacity(usize::try_from(game.ply).unwrap_or(0)),
        }
    }

    /// The next `move` event of the log (in order): it stands at its ply,
    /// in place of any move there and after it (taken back).
    pub fn push(&mut self, event: MoveEventRow) -> Result<(), HistoryError> {
        let row = moved(self.game, event.payload.0, event.created_at)?;
        let before = usize::try_from(row.ply - 1).unwrap_or(usize::MAX);
        if before > self.moves.len() {
            return Err(HistoryError::Gap {
                game: self.game.id,
                seq: event.seq,
                ply: row.ply,
                standing: self.moves.len(),
            });
        }
        self.moves.truncate(before);
        self.moves.push(row);
        Ok(())
    }

    /// The moves standing at the game's row, `1..=upto` of them (all when
    /// `None`).
    pub fn standing(mut self, upto: Option<i64>) -> Result<Vec<MoveRow>, HistoryError> {
        let ply = self.game.ply;
        let at = usize::try_from(ply).unwrap_or(0);
        if self.moves.len() < at {
            return Err(HistoryError::Short {
                game: self.game.id,
                ply,
                standing: self.moves.len(),
            });
        }
        let upto = upto.map_or(ply, |upto| upto.min(ply));
        self.moves.truncate(usize::try_from(upto).unwrap_or(0));
        Ok(self.moves)
    }
}

/// Move `ply` of the game at its row, from its latest `move` events (newest
/// first): `Ok(None)` when `ply` is not a move the row stands on, `Err`
/// when these events do not reach back to it (the caller then reads the
/// whole [`History`]).
pub fn latest_at(
    game: GameAt<'_>,
    ply: i64,
    newest_first: impl IntoIterator<Item = MoveEventRow>,
) -> Result<Option<MoveRow>, NotReached> {
    if ply < 1 || ply > game.ply {
        return Ok(None);
    }
    // The latest event at `ply` is the move standing there: once the row
    // stands at or after `ply` again, any later move there would have
    // replaced it.
    newest_first
        .into_iter()
        .find(|e| e.payload.0.ply == ply)
        .map(|e| moved(game, e.payload.0, e.created_at).map_err(NotReached::Bad))
        .transpose()?
        .map(Some)
        .ok_or(NotReached::Beyond)
}

/// Why [`latest_at`] found no move.
#[derive(Debug, PartialEq, Eq)]
pub enum NotReached {
    /// The events given end before the one at the ply asked.
    Beyond,
    Bad(HistoryError),
}

/// The stored move a `move` event's payload describes, its player the one
/// sitting at its seat.
fn moved(game: GameAt<'_>, payload: MovePayload, created_at: i64) -> Result<MoveRow, HistoryError> {
    let player_id = game
        .seats
        .iter()
        .find(|s| s.seat == payload.seat)
        .and_then(|s| s.player.as_ref())
        .map(|(id, _)| *id)
        .ok_or(HistoryError::NoPlayer {
            game: game.id,
            ply: payload.ply,
            seat: payload.seat,
        })?;
    Ok(MoveRow {
        ply: payload.ply,
        seat: payload.seat,
        player_id,
        player_name: payload.player,
        notation: payload.notation,
        effect: payload.effect,
        message: payload.message,
        created_at,
    })
}

#[cfg(test)]
mod tests;
