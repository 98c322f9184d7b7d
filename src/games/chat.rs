//! The two chat rooms of a game. Both are part of the game's public log,
//! committed like any other change of it; they differ in who may write:
//! the players' room only the seated players, the spectators' room anyone
//! who may see the game.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::store::{EventRow, Player};

use super::commit::Progress;
use super::error::{GameError, GameResult};
use super::events::GameEvent;
use super::{now, Games, ATTEMPTS, MAX_CHAT_LEN};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Room {
    Players,
    Spectators,
}

impl Games {
    /// Writes a chat message into the game's log (kind `chat`, with room and
    /// author) and returns the stored event.
    pub async fn chat(&self, player: &Player, id: i64, room: Room, text: &str) -> GameResult<EventRow> {
        self.admit(player)?;
        let text = text.trim();
        if text.is_empty() {
            return Err(GameError::EmptyChat);
        }
        if text.chars().count() > MAX_CHAT_LEN {
            return Err(GameError::ChatTooLong);
        }
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            let seat = record.seat_of(player.id);
            if room == Room::Players && seat.is_none() {
                return Err(GameError::NotInPlayersRoom);
            }
            let game = self.position(&mut hot, &record).await?;
            let mut progress = Progress::of(&record, now());
            let event = GameEvent::Chat {
                room,
                player: player.name.clone(),
                seat,
                text: text.to_owned(),
            };
            let stored = EventRow {
                seq: record.row.event_seq + 1,
                kind: event.kind().to_owned(),
                payload: event.payload(),
                created_at: progress.update.now,
            };
            progress.event(event);
            if self.commit(&mut hot, &record, progress, game).await?.is_some() {
                return Ok(stored);
            }
        }
        Err(GameError::Busy)
    }
}
