//! Playing a move: the async shell around [`decide::decide_move`]. It loads
//! what the decision needs (from the hot cache when it can), commits what
//! was decided and answers; a lost race is decided again from the database.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use crate::rules::AnyGame;
use crate::store::{GameRecord, MoveRow, Player};
use crate::views::{LeanMoveAnswer, MoveAnswer, MoveRecord, MoveReply};

use super::commit::NewMove;
use super::decide::{self, MoveDecision, MoveInput};
use super::error::{GameError, GameResult};
use super::hot::{settled, Hot};
use super::{now, AnswerShape, Games, MoveCommand, ATTEMPTS, MAX_MESSAGE_LEN, MAX_MOVE_LEN};

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

/// A move stored (just now, or before for a retry), and the game after it:
/// what either answer is made of. Answers are rendered from it once the
/// game's lock is released.
struct Stored {
    created: bool,
    record: Arc<GameRecord>,
    game: AnyGame,
    stored: MoveRow,
    last: Last,
}

/// The game's last move, as far as it is known without a read.
enum Last {
    /// The move just committed.
    Stored,
    /// The conditional reply committed with it.
    Reply(MoveRow),
    /// Not known: a retry's move, which others may have followed.
    Unread,
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
        let stored = self.play_stored(player, id, command).await?;
        self.full_answer(player, stored).await
    }

    /// [`Games::play`], answered in the shape asked for.
    pub async fn play_as(
        &self,
        player: &Player,
        id: i64,
        command: MoveCommand,
        shape: AnswerShape,
    ) -> GameResult<MoveReply> {
        let stored = self.play_stored(player, id, command).await?;
        Ok(match shape {
            AnswerShape::Full => MoveReply::Full(Box::new(self.full_answer(player, stored).await?)),
            AnswerShape::Lean { legal } => {
                let last = self.last_move_of(&stored).await?;
                MoveReply::Lean(Box::new(LeanMoveAnswer::build(
                    stored.created,
                    &stored.record,
                    &stored.game,
                    &stored.stored,
                    last.as_deref(),
                    legal,
                )))
            }
        })
    }

    /// The whole game after the move, as `player` sees it.
    async fn full_answer(&self, player: &Player, stored: Stored) -> GameResult<MoveAnswer> {
        let last = self.last_move_of(&stored).await?;
        let state = self
            .render_with(&stored.record, &stored.game, Some(player), None, last.as_deref())
            .await?;
        Ok(MoveAnswer {
            created: stored.created,
            record: MoveRecord::of(&stored.record, &stored.stored),
            game: state,
        })
    }

    /// The game's last move: known for a move just committed, read for a
    /// retry (other moves may have followed it).
    async fn last_move_of<'s>(&self, stored: &'s Stored) -> GameResult<Option<Cow<'s, MoveRow>>> {
        match &stored.last {
            Last::Stored => return Ok(Some(Cow::Borrowed(&stored.stored))),
            Last::Reply(reply) => return Ok(Some(Cow::Borrowed(reply))),
            Last::Unread => {}
        }
        let ply = i64::from(stored.game.ply());
        if ply == 0 {
            return Ok(None);
        }
        Ok(self.store.move_at(&stored.record, ply).await?.map(Cow::Owned))
    }

    /// The move stored, under the game's lock; the answer is rendered
    /// after it is released.
    async fn play_stored(&self, player: &Player, id: i64, command: MoveCommand) -> GameResult<Stored> {
        self.admit(player)?;
        command.check()?;
        let started = Instant::now();
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        // The first attempt decides from memory when it can.
        for attempt in 0..ATTEMPTS {
            let (record, game, from_cache) = self.basis(&mut hot, id, attempt == 0).await?;
            let decided = self.play_once(&mut hot, record, game, player, &command).await;
            if let Some(stored) = settled(decided, from_cache) {
                let stored = stored?;
                if stored.created {
                    self.metrics.observe_move(started.elapsed());
                }
                return Ok(stored);
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
        record: Arc<GameRecord>,
        game: AnyGame,
        player: &Player,
        command: &MoveCommand,
    ) -> GameResult<Option<Stored>> {
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
                return Ok(Some(Stored {
                    created: false,
                    record,
                    game,
                    stored,
                    last: Last::Unread,
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
            // Boxed, as is the commit below: a future holds its largest
            // await in place, and every layer above copies it whole
            // (issue 26).
            MoveDecision::OutOfTime => return Box::pin(self.lost_on_time_before(hot, id, player)).await,
            MoveDecision::Play(played) => played,
        };
        let decide::Played { progress, next, stored } = *played;
        // The last move played: this one, or the conditional reply to it.
        let reply = match progress.moves.as_slice() {
            [.., reply] if reply.ply != stored.ply => Some(reply.clone()),
            _ => None,
        };
        // The state shown is the one this move made.
        let Some(record) = Box::pin(self.commit(hot, &record, progress, next.clone())).await? else {
            return Ok(None);
        };
        let last = match reply {
            Some(reply) => Last::Reply(stored_row(&record, reply)),
            None => Last::Stored,
        };
        Ok(Some(Stored {
            created: true,
            stored: stored_row(&record, stored),
            record,
            game: next,
            last,
        }))
    }

    /// The move was too late: the game is lost on time (in four-player
    /// Focus, the mover is out), as the sweeper would have done (here or,
    /// having lost a race, by a sweeper). `Ok(None)` when the database's
    /// clock still runs for the mover: the copy decided on was stale.
    async fn lost_on_time_before(&self, hot: &mut Hot, id: i64, player: &Player) -> GameResult<Option<Stored>> {
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
        let Some(stored) = self.store.move_at(record, command.ply + 1).await? else {
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
        let moves = self.store.moves(record, Some(stored.ply - 1)).await?;
        let before = super::replay(record, &moves)?;
        Ok(before
            .check(notation)
            .is_ok_and(|canonical| canonical == stored.notation))
    }
}
