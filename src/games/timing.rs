//! The games service's side of clocks: losing on time, reminders, and
//! deadlines moved by vacations. The arithmetic is in [`crate::clock`]; the
//! background task that calls these is [`crate::clock::sweeper`].

use serde_json::json;

use super::{conceded_outcome, event, finish, player_at, update_from, Games, Hot, ATTEMPTS};
use crate::clock::{ClockState, ClockView};
use crate::domain::{GameStatus, Seat};
use crate::error::Result;
use crate::store::{DeadlineChange, GameRecord, PlayerEvent, Reminder};

impl Games {
    /// Ends the game if the player to move is out of time. `Ok(true)` when
    /// this call ended it; `Ok(false)` when there was nothing to do: no
    /// clock, time left (a vacation moved the deadline), or the game was
    /// already over — which is how a second sweeper, in this process or
    /// another, learns that the first one won.
    pub async fn time_out(&self, id: i64) -> Result<bool> {
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        self.time_out_locked(&mut hot, id).await
    }

    pub(super) async fn time_out_locked(&self, hot: &mut Hot, id: i64) -> Result<bool> {
        for _ in 0..ATTEMPTS {
            let record = self.load(id).await?;
            let row = &record.row;
            let (Some(state), Some(seat), true) = (
                ClockState::from_stored(row.clock.as_ref()),
                row.to_move,
                row.status == GameStatus::Active,
            ) else {
                return Ok(false);
            };
            let pauses = self.pauses_at(&record, Some(seat), None).await?;
            let index = seat.index();
            let Some(deadline) = self.clock_of(&record).deadline(&state, index, &pauses) else {
                return Ok(false);
            };
            let mut update = update_from(&record);
            if update.now < deadline {
                if row.deadline != Some(deadline) {
                    // Stale after a vacation: store the real one.
                    self.store
                        .set_deadline(DeadlineChange {
                            game_id: id,
                            expected_seq: row.event_seq,
                            deadline: Some(deadline),
                            reminder_at: row.reminder_at,
                        })
                        .await?;
                }
                return Ok(false);
            }
            let game = self.position(hot, &record).await?;
            let player = record
                .seats
                .iter()
                .find(|s| s.seat == seat)
                .and_then(|s| s.player.as_ref().map(|(_, name)| name.clone()));
            update.events.push(event(
                "timeout",
                json!({ "seat": seat, "player": player, "deadline": deadline }),
            ));
            finish(&record, &mut update, conceded_outcome(&game, seat, "time"));
            let mut spent = state;
            if let Some(left) = spent.remaining_ms.get_mut(index) {
                *left = 0;
            }
            update.clock = Some(spent.to_stored());
            if self.commit(hot, &record, update, game).await? {
                tracing::info!(game = id, seat = i64::from(seat), deadline, "lost on time");
                return Ok(true);
            }
        }
        Err(Self::busy())
    }

    /// Sends the player to move their reminder if it is due. `Ok(true)`
    /// when this call sent it (exactly one process does, once per move).
    pub async fn remind(&self, id: i64) -> Result<bool> {
        let record = self.load(id).await?;
        let row = &record.row;
        let (Some(remind_at), Some(deadline), Some(player_id)) =
            (row.reminder_at, row.deadline, player_at(&record, row.to_move))
        else {
            return Ok(false);
        };
        let now = super::now();
        if remind_at > now || row.status != GameStatus::Active {
            return Ok(false);
        }
        let event = PlayerEvent {
            player_id,
            kind: "reminder",
            payload: json!({
                "ply": row.ply, "seat": row.to_move, "deadline": deadline,
                "deadline_at": super::timestamp(deadline),
            }),
        };
        let reminder = Reminder {
            game_id: id,
            expected_seq: row.event_seq,
            event,
            now,
        };
        Ok(self.store.send_reminder(reminder).await?)
    }

    /// Recomputes the deadlines of every game waiting for `player_id`
    /// (after a vacation of theirs was declared or ended).
    pub async fn refresh_deadlines(&self, player_id: i64) -> Result<()> {
        for id in self.store.games_to_move(player_id).await? {
            let slot = self.slot(id);
            let _hot = slot.lock().await;
            let record = self.load(id).await?;
            let Some(state) = ClockState::from_stored(record.row.clock.as_ref()) else {
                continue;
            };
            let pauses = self.pauses_at(&record, record.row.to_move, None).await?;
            let mut update = update_from(&record);
            self.schedule(&record, &mut update, Some(state), &pauses);
            // A reminder already sent for this move is not sent again.
            let reminder = record.row.reminder_at.and(update.reminder_at);
            // Losing a race here is harmless: the writer that won scheduled
            // the game itself.
            self.store
                .set_deadline(DeadlineChange {
                    game_id: id,
                    expected_seq: record.row.event_seq,
                    deadline: update.deadline,
                    reminder_at: reminder,
                })
                .await?;
        }
        Ok(())
    }

    /// The clock as the game state shows it now.
    pub(super) async fn clock_view(&self, record: &GameRecord) -> Result<Option<ClockView>> {
        let Some(state) = ClockState::from_stored(record.row.clock.as_ref()) else {
            return Ok(None);
        };
        let to_move = record
            .row
            .to_move
            .filter(|_| record.row.status == GameStatus::Active)
            .map(Seat::index);
        let pauses = self.pauses_at(record, record.row.to_move, None).await?;
        Ok(Some(self.clock_of(record).view(&state, to_move, super::now(), &pauses)))
    }
}
