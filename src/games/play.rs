//! Playing a move: the async shell around [`decide::decide_move`]. It loads
//! what the decision needs (from the hot cache when it can), commits what
//! was decided and answers; a lost race is decided again from the database.

use std::time::Instant;

use crate::rules::AnyGame;
use crate::store::{GameRecord, MoveRow, NewMove, Player};
use crate::views::{MoveAnswer, MoveRecord};

use super::decide::{self, MoveDecision, MoveInput};
use super::error::{GameError, GameResult};
use super::hot::Hot;
use super::{now, Games, MoveCommand, ATTEMPTS, MAX_MESSAGE_LEN, MAX_MOVE_LEN};

impl MoveCommand {
    /// What can be refused before the game is even looked at.
    fn check(&self) -> GameResult<()> {
        if self.notation.chars().count() > MAX_MOVE_LEN {
            return Err(GameError::MoveTooLong);
        }
        if self
            .message
            .as_ref()
            .is_some_and(|m| m.chars().count() > MAX_MESSAGE_LEN)
        {
            return Err(GameError::MessageTooLong);
        }
        if self.ply < 0 {
            return Err(GameError::NegativePly);
        }
        Ok(())
    }
}

/// A move just committed in `record`, as the store now holds it.
fn stored_row(record: &GameRecord, stored: NewMove) -> MoveRow {
    let player_name = record
        .seats
        .iter()
        .find_map(|s| s.player.as_ref().filter(|(id, _)| *id == stored.player_id))
        .map(|(_, name)| name.clone())
        .unwrap_or_default();
    MoveRow {
        ply: stored.ply,
        seat: stored.seat,
        player_id: stored.player_id,
        player_name,
        notation: stored.notation,
        effect: stored.effect,
        message: stored.message,
        created_at: record.row.updated_at,
    }
}

impl Games {
    /// Plays a move for `player`. Returns `created: false` for a retry of a
    /// move already stored (same player, ply and move): nothing is applied
    /// twice.
    pub async fn play(&self, player: &Player, id: i64, command: MoveCommand) -> GameResult<MoveAnswer> {
        self.admit(player)?;
        command.check()?;
        let started = Instant::now();
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        // The first attempt decides from memory when it can; anything but a
        // committed move is then decided again from the database.
        let mut trust_cache = true;
        for _ in 0..ATTEMPTS {
            let cached = if trust_cache { hot.current() } else { None };
            let from_cache = cached.is_some();
            trust_cache = false;
            let (record, game) = match cached {
                Some(current) => current,
                None => {
                    let record = self.load(id).await?;
                    let game = self.position(&mut hot, &record).await?;
                    (record, game)
                }
            };
            match self.play_once(&mut hot, record, game, player, &command).await {
                Ok(Some(answer)) => {
                    if answer.created {
                        self.metrics.observe_move(started.elapsed());
                    }
                    return Ok(answer);
                }
                Ok(None) => continue,
                // A time-out was decided, and acted on, from the database.
                Err(error @ GameError::TimeOut { .. }) => return Err(error),
                Err(_) if from_cache => continue,
                Err(error) => return Err(error),
            }
        }
        Err(GameError::Busy)
    }

    /// One decision on a move, from `record` and its position `game`:
    /// `Ok(None)` when the commit lost a race and the move must be decided
    /// again.
    async fn play_once(
        &self,
        hot: &mut Hot,
        record: GameRecord,
        game: AnyGame,
        player: &Player,
        command: &MoveCommand,
    ) -> GameResult<Option<MoveAnswer>> {
        let id = record.row.id;
        let repeats = self.repeated_move(&record, player, command).await?;
        let pauses = self.seat_pauses(&record, None).await?;
        let conditionals = self.conditionals_of(hot, &record).await?;
        let decision = decide::decide_move(MoveInput {
            record: &record,
            game: &game,
            player,
            command,
            repeats: repeats.as_ref(),
            now: now(),
            schedule: self.schedule_of(&record),
            pauses: &pauses,
            conditionals: &conditionals,
        })?;
        let played = match decision {
            MoveDecision::Repeat(stored) => {
                let state = self.render(&record, &game, Some(player), None).await?;
                return Ok(Some(MoveAnswer {
                    created: false,
                    record: MoveRecord::of(&record, &stored),
                    game: state,
                }));
            }
            MoveDecision::NotActive(status) => {
                let state = self.render(&record, &game, Some(player), None).await?;
                return Err(GameError::NotActive {
                    id,
                    status,
                    current: Some(Box::new(state)),
                });
            }
            MoveDecision::Stale { at, asked } => {
                let state = self.render(&record, &game, Some(player), None).await?;
                return Err(GameError::StalePly {
                    at,
                    asked,
                    current: Box::new(state),
                });
            }
            MoveDecision::OutOfTime => return self.lost_on_time_before(hot, id, player).await,
            MoveDecision::Play(played) => played,
        };
        let decide::Played { progress, next, stored } = *played;
        // The last move played: this one, or the conditional reply to it.
        let last = progress
            .update
            .insert_moves
            .last()
            .cloned()
            .unwrap_or_else(|| stored.clone());
        // The state shown is the one this move made.
        let Some(record) = self.commit(hot, &record, progress, next.clone()).await? else {
            return Ok(None);
        };
        let (stored, last) = (stored_row(&record, stored), stored_row(&record, last));
        let state = self
            .render_with(&record, &next, Some(player), None, Some(&last))
            .await?;
        Ok(Some(MoveAnswer {
            created: true,
            record: MoveRecord::of(&record, &stored),
            game: state,
        }))
    }

    /// The move was too late: the game is lost on time (in four-player
    /// Focus, the mover is out), as the sweeper would have done (here or,
    /// having lost a race, by a sweeper). `Ok(None)` when the database's
    /// clock still runs for the mover: the copy decided on was stale.
    async fn lost_on_time_before(&self, hot: &mut Hot, id: i64, player: &Player) -> GameResult<Option<MoveAnswer>> {
        self.time_out_locked(hot, id).await?;
        let record = self.load(id).await?;
        let theirs = record.row.to_move.is_some() && record.row.to_move == record.seat_of(player.id);
        if record.row.status == crate::domain::GameStatus::Active && theirs {
            return Ok(None);
        }
        let game = self.position(hot, &record).await?;
        let state = self.render(&record, &game, Some(player), None).await?;
        Err(GameError::TimeOut {
            current: Box::new(state),
        })
    }

    /// The stored move `command` repeats, if its ply is behind and the move
    /// at the next ply is the same player's same move.
    async fn repeated_move(
        &self,
        record: &GameRecord,
        player: &Player,
        command: &MoveCommand,
    ) -> GameResult<Option<MoveRow>> {
        if command.ply >= record.row.ply {
            return Ok(None);
        }
        let Some(stored) = self.store.move_at(record.row.id, command.ply + 1).await? else {
            return Ok(None);
        };
        if stored.player_id != player.id || !self.same_move(record, &stored, &command.notation).await? {
            return Ok(None);
        }
        Ok(Some(stored))
    }

    /// Whether `notation` names the stored move, in the position before it.
    async fn same_move(&self, record: &GameRecord, stored: &MoveRow, notation: &str) -> GameResult<bool> {
        if notation.trim() == stored.notation {
            return Ok(true);
        }
        let moves = self.store.moves(record.row.id, Some(stored.ply - 1)).await?;
        let before = super::replay(record, &moves)?;
        Ok(before
            .check(notation)
            .is_ok_and(|canonical| canonical == stored.notation))
    }
}
