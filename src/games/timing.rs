//! The games service's side of clocks: losing on time, reminders, deadlines
//! moved by vacations, and the clock a state shows. The arithmetic is in
//! [`crate::clock`]; the background task that calls these is
//! [`super::sweeper`].

use crate::clock::{Clock, ClockState, ClockView, Pause, TimeControl};
use crate::domain::{GameStatus, Seat};
use crate::store::{DeadlineChange, GameRecord, PlayerEvent, Reminder};
use crate::views::timestamp;

use super::commit::Progress;
use super::decide::{self, How, Schedule, SeatPauses};
use super::error::{GameError, GameResult};
use super::events::PlayerNotice;
use super::hot::Hot;
use super::{now, Games, ATTEMPTS};

fn time_control(record: &GameRecord) -> TimeControl {
    TimeControl::from_stored(record.row.time_control.as_ref())
}

impl Games {
    pub(super) fn schedule_of(&self, record: &GameRecord) -> Schedule {
        self.schedule(time_control(record))
    }

    pub(super) fn schedule(&self, control: TimeControl) -> Schedule {
        Schedule {
            clock: Clock::new(control, self.timing.scale),
            remind_before_ms: self.timing.remind_before_ms,
        }
    }

    /// The vacations that stop each seat's clock; `sitting` is a player
    /// taking a seat, not yet in `record`. Only correspondence clocks stop.
    pub(super) async fn seat_pauses(
        &self,
        record: &GameRecord,
        sitting: Option<(Seat, i64)>,
    ) -> GameResult<SeatPauses> {
        if !time_control(record).is_correspondence() {
            return Ok(SeatPauses::default());
        }
        let mut pauses = Vec::with_capacity(record.seats.len());
        for seat in &record.seats {
            let player = match (&seat.player, sitting) {
                (Some((id, _)), _) => Some(*id),
                (None, Some((at, id))) if at == seat.seat => Some(id),
                (None, _) => None,
            };
            pauses.push(match player {
                Some(id) => self.pauses_of(id).await?,
                None => Vec::new(),
            });
        }
        Ok(SeatPauses(pauses))
    }

    /// The vacations that stop the clock of whoever sits at `seat`.
    pub(super) async fn pauses_at(&self, record: &GameRecord, seat: Option<Seat>) -> GameResult<Vec<Pause>> {
        match record.player_at(seat) {
            Some(player) if time_control(record).is_correspondence() => self.pauses_of(player).await,
            _ => Ok(Vec::new()),
        }
    }

    pub(super) async fn pauses_of(&self, player_id: i64) -> GameResult<Vec<Pause>> {
        let vacations = self.store.vacations(player_id).await?;
        Ok(vacations.iter().map(|&(start, end)| Pause { start, end }).collect())
    }

    /// Concedes for the player to move if they are out of time: the game
    /// ends, or in four-player Focus goes on without them (the clock passes
    /// to the next seat). `Ok(true)` when this call did it; `Ok(false)` when there was nothing to do: no
    /// clock, time left (a vacation moved the deadline), or the game was
    /// already over — which is how a second sweeper, in this process or
    /// another, learns that the first one won.
    pub async fn time_out(&self, id: i64) -> GameResult<bool> {
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        self.time_out_locked(&mut hot, id).await
    }

    pub(super) async fn time_out_locked(&self, hot: &mut Hot, id: i64) -> GameResult<bool> {
        for _ in 0..ATTEMPTS {
            let record = self.load(id).await?;
            let row = &record.row;
            let (Some(state), Some(seat), GameStatus::Active) =
                (ClockState::from_stored(row.clock.as_ref()), row.to_move, row.status)
            else {
                return Ok(false);
            };
            let pauses = self.pauses_at(&record, Some(seat)).await?;
            let Some(deadline) = self.schedule_of(&record).clock.deadline(&state, seat.index(), &pauses) else {
                return Ok(false);
            };
            let now = now();
            if now < deadline {
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
            let how = How::OutOfTime { deadline };
            if self.concede(hot, &record, seat, how, now).await?.is_some() {
                tracing::info!(game = id, %seat, deadline, "lost on time");
                return Ok(true);
            }
        }
        Err(GameError::Busy)
    }

    /// Sends the player to move their reminder if it is due. `Ok(true)`
    /// when this call sent it (exactly one process does, once per move).
    pub async fn remind(&self, id: i64) -> GameResult<bool> {
        let record = self.load(id).await?;
        let row = &record.row;
        let (Some(remind_at), Some(deadline), Some(player_id)) =
            (row.reminder_at, row.deadline, record.player_at(row.to_move))
        else {
            return Ok(false);
        };
        let now = now();
        if remind_at > now || row.status != GameStatus::Active {
            return Ok(false);
        }
        let notice = PlayerNotice::Reminder {
            ply: row.ply,
            seat: row.to_move,
            deadline,
            deadline_at: timestamp(deadline),
        };
        let event: PlayerEvent = notice.to(player_id);
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
    pub async fn refresh_deadlines(&self, player_id: i64) -> GameResult<()> {
        for id in self.store.games_to_move(player_id).await? {
            let slot = self.hot.slot(id);
            let _hot = slot.lock().await;
            let record = self.load(id).await?;
            let Some(state) = ClockState::from_stored(record.row.clock.as_ref()) else {
                continue;
            };
            let pauses = self.pauses_at(&record, record.row.to_move).await?;
            let mut progress = Progress::of(&record, now());
            decide::schedule_clock(&mut progress, self.schedule_of(&record), Some(state), &pauses);
            // A reminder already sent for this move is not sent again.
            let reminder = record.row.reminder_at.and(progress.update.reminder_at);
            // Losing a race here is harmless: the writer that won scheduled
            // the game itself.
            self.store
                .set_deadline(DeadlineChange {
                    game_id: id,
                    expected_seq: record.row.event_seq,
                    deadline: progress.update.deadline,
                    reminder_at: reminder,
                })
                .await?;
        }
        Ok(())
    }

    /// The clock as the game state shows it now.
    pub(super) async fn clock_view(&self, record: &GameRecord) -> GameResult<Option<ClockView>> {
        let Some(state) = ClockState::from_stored(record.row.clock.as_ref()) else {
            return Ok(None);
        };
        let to_move = record.row.to_move.filter(|_| record.row.status == GameStatus::Active);
        let pauses = self.pauses_at(record, record.row.to_move).await?;
        let view = self
            .schedule_of(record)
            .clock
            .view(&state, to_move.map(Seat::index), now(), &pauses);
        Ok(Some(view))
    }
}
