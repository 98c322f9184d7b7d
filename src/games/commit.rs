//! A change of a game as the service decides it ([`Progress`]: the game's
//! new row, its events and its players' notices), and the one path every
//! change takes to the database and out to subscribers ([`Games::commit`]).
//!
//! A game's end carries what follows from it in the same transaction: its
//! rating changes ([`crate::ratings`]) and, for a tournament's game, the
//! tournament's step ([`crate::tournaments::after_game`]: the next round,
//! a new season, the end).
//!
//! Promises: nothing is published before its transaction commits, and
//! everything committed is published, even when the request that caused it
//! is cancelled; the cache holds the committed game afterwards, or nothing.

use std::sync::Arc;

use crate::domain::{GameStatus, Seat};
use crate::rules::AnyGame;
use crate::store::{ConditionalWrite, GameRecord, GameUpdate, Player, RatingChange, StoreError};

/// How often a game's end is rated (and its tournament stepped) again while
/// other games of its players or its tournament keep ending first (each
/// retry sees what those games left).
const END_ATTEMPTS: usize = 16;

use super::error::{GameError, GameResult};
use super::events::{Ending, GameEvent, PlayerNotice, RatingShift};
use super::hot::Hot;
use super::publish::Committed;
use super::Games;

/// A move a change plays.
#[derive(Clone, Debug)]
pub struct NewMove {
    pub ply: i64,
    pub seat: Seat,
    pub player_id: i64,
    pub notation: String,
    pub effect: Option<String>,
    pub message: Option<String>,
}

/// One decided change of a game, not yet written.
#[derive(Clone, Debug)]
pub struct Progress {
    /// The game's row as the change leaves it. Its events are filled in
    /// from `events` and `notices` when it is committed.
    pub update: GameUpdate,
    pub events: Vec<GameEvent>,
    /// The moves it plays, in order: one, or two when a conditional reply
    /// answers the first. Each is stored as its `move` event, among
    /// `events`; these are what the answer shows.
    pub moves: Vec<NewMove>,
    pub notices: Vec<(i64, PlayerNotice)>,
    /// Players taking a seat: `(seat, id, name, bot account)`.
    pub seated: Vec<(Seat, i64, String, bool)>,
    /// How the game ended, when this change ends it: a rated game's
    /// ratings change with it.
    pub ending: Option<Ending>,
}

impl Progress {
    /// A change that changes nothing yet: the starting point of every
    /// action on `record`, decided at `now`.
    pub fn of(record: &GameRecord, now: i64) -> Progress {
        let row = &record.row;
        Progress {
            update: GameUpdate {
                id: row.id,
                expected_seq: row.event_seq,
                status: row.status,
                ply: row.ply,
                to_move: row.to_move,
                outcome: row.outcome.clone(),
                draw_offer: row.draw_offer,
                takeback_offer: row.takeback_offer,
                now,
                sit: Vec::new(),
                events: Vec::new(),
                player_events: Vec::new(),
                clock: row.clock.clone(),
                deadline: row.deadline,
                reminder_at: row.reminder_at,
                ratings: Vec::new(),
                expected_rev: row.conditional_rev,
                conditional: None,
                tournament: None,
            },
            events: Vec::new(),
            moves: Vec::new(),
            notices: Vec::new(),
            seated: Vec::new(),
            ending: None,
        }
    }

    /// `player` takes `seat`.
    pub fn sit(&mut self, seat: Seat, player: &Player) {
        self.seated.push((seat, player.id, player.name.clone(), player.bot));
    }

    pub fn event(&mut self, event: GameEvent) {
        self.events.push(event);
    }

    pub fn notify(&mut self, player_id: i64, notice: PlayerNotice) {
        self.notices.push((player_id, notice));
    }

    /// Ends the game with `ending`: no one to move, no offers, every seated
    /// player told.
    pub fn finish(&mut self, record: &GameRecord, ending: Ending) {
        let update = &mut self.update;
        update.status = GameStatus::Finished;
        update.to_move = None;
        update.draw_offer = 0;
        update.takeback_offer = 0;
        update.outcome = Some(ending.to_stored());
        self.notices = record
            .seated_players()
            .into_iter()
            .map(|player| {
                (
                    player,
                    PlayerNotice::GameOver {
                        outcome: ending.clone(),
                        ratings: Vec::new(),
                    },
                )
            })
            .collect();
        self.events.push(GameEvent::Finished {
            ending: ending.clone(),
            ratings: Vec::new(),
        });
        self.ending = Some(ending);
        self.clear_conditionals(record);
    }

    /// The game's end changes ratings as `changes` say: written with it,
    /// and told in its `finished` event and every `game_over` notice.
    fn rate(&mut self, record: &GameRecord, changes: Vec<RatingChange>) {
        let shifts: Vec<RatingShift> = changes
            .iter()
            .filter_map(|c| {
                let seat = record
                    .seats
                    .iter()
                    .find(|s| s.player.as_ref().is_some_and(|(id, _)| *id == c.player_id))?;
                Some(RatingShift {
                    seat: seat.seat,
                    player: seat.player.as_ref().map(|(_, name)| name.clone())?,
                    before: c.before.rating,
                    after: c.after.rating,
                    rd_before: c.before.rd,
                    rd_after: c.after.rd,
                    provisional: crate::ratings::is_provisional(c.after.rd),
                })
            })
            .collect();
        for event in &mut self.events {
            if let GameEvent::Finished { ratings, .. } = event {
                ratings.clone_from(&shifts);
            }
        }
        for (_, notice) in &mut self.notices {
            if let PlayerNotice::GameOver { ratings, .. } = notice {
                ratings.clone_from(&shifts);
            }
        }
        self.update.ratings = changes;
    }

    /// Every tree of conditional moves of the game goes with this change
    /// (a takeback, the game over). A game whose trees were never written
    /// has none to clear, and its change stays a plain one.
    pub fn clear_conditionals(&mut self, record: &GameRecord) {
        if record.row.conditional_rev > 0 {
            self.update.conditional = Some(ConditionalWrite::DeleteAll);
        }
    }

    /// The update with its events and seats, as the store writes it.
    fn into_update(self) -> GameUpdate {
        let mut update = self.update;
        update.sit = self.seated.iter().map(|(seat, player, ..)| (*seat, *player)).collect();
        update.events = self.events.iter().map(GameEvent::to_stored).collect();
        update.player_events = self.notices.iter().map(|(player, notice)| notice.to(*player)).collect();
        if update.status != GameStatus::Active {
            // A game that is over has no clock running.
            update.deadline = None;
            update.reminder_at = None;
        }
        update
    }
}

/// What became of one write of a change.
enum Written {
    Committed(Arc<GameRecord>),
    /// Another writer changed the game first: decide again.
    Lost,
    /// Another game of one of its players or of its tournament ended
    /// first: rate and step again.
    Moved,
}

impl Games {
    /// Writes `progress` of `record`; on success the cache holds `game` and
    /// the updated record at the new event number, which is returned.
    /// `Ok(None)` when another writer got there first: reload and decide
    /// again. A rated game's end is rated here, from the ratings stored
    /// now, and a tournament game's end steps its tournament from the
    /// tournament as stored now; both are done again (the game's decision
    /// stands) while other games of its players or its tournament keep
    /// ending first.
    pub(super) async fn commit(
        &self,
        hot: &mut Hot,
        record: &GameRecord,
        progress: Progress,
        game: AnyGame,
    ) -> GameResult<Option<Arc<GameRecord>>> {
        let tournament = record.row.tournament_id.filter(|_| progress.ending.is_some());
        let ending = progress
            .ending
            .clone()
            .filter(|_| record.row.rated || tournament.is_some());
        let Some(ending) = ending else {
            return Ok(match self.write(hot, record, progress, game).await? {
                Written::Committed(next) => Some(next),
                Written::Lost | Written::Moved => None,
            });
        };
        for _ in 0..END_ATTEMPTS {
            let mut ended = progress.clone();
            let mut rated = Vec::new();
            if record.row.rated {
                rated = self
                    .ratings
                    .rate_end(record, &ending.winners(), progress.update.now)
                    .await
                    .map_err(GameError::internal)?;
                ended.rate(record, rated.clone());
            }
            if let Some(id) = tournament {
                ended.update.tournament =
                    crate::tournaments::after_game(&*self.store, self, id, record, &ending, progress.update.now)
                        .await
                        .map_err(GameError::internal)?;
            }
            match self.write(hot, record, ended, game.clone()).await? {
                Written::Committed(next) => {
                    self.ratings.committed(record, &rated);
                    return Ok(Some(next));
                }
                Written::Lost => return Ok(None),
                Written::Moved => {
                    // A rating or the tournament moved: rate from the store.
                    self.ratings.forget(record);
                    self.metrics.count_conflict();
                }
            }
        }
        Err(GameError::Busy)
    }

    /// One write of `progress`.
    async fn write(
        &self,
        hot: &mut Hot,
        record: &GameRecord,
        progress: Progress,
        game: AnyGame,
    ) -> GameResult<Written> {
        // The record as the change leaves it, names of new seats included.
        let mut next_record = record.clone();
        for (seat, player, name, bot) in &progress.seated {
            if let Some(s) = next_record.seats.iter_mut().find(|s| s.seat == *seat) {
                s.player = Some((*player, name.clone()));
                s.bot = *bot;
            }
        }
        let update = progress.into_update();
        next_record.row.apply(&update);
        for change in &update.ratings {
            next_record.show_rating(change.player_id, Some((change.after.rating, change.after.rd)));
        }
        let seq = update.expected_seq + update.events.len() as i64;
        // The rows exactly as the store numbers and keeps them, to publish
        // once (and only if) the transaction commits.
        let published: Vec<Committed> = (update.expected_seq + 1..)
            .zip(&update.events)
            .map(|(seq, event)| Committed {
                seq,
                event: event.clone(),
                created_at: update.now,
            })
            .collect();
        let mut players: Vec<i64> = update.player_events.iter().map(|e| e.player_id).collect();
        if let Some(step) = &update.tournament {
            players.extend(step.players_told());
        }
        let id = update.id;
        let (store, publisher) = (self.store.clone(), self.publisher.clone());
        // The commit and its publication run to the end even when the
        // request that started them is cancelled (a client hanging up): a
        // committed change is always announced.
        let written = tokio::spawn(async move {
            let written = store.update_game(update).await;
            if written.is_ok() {
                // Publication follows the commit: the game's lock is held
                // (unless the request was cancelled), so frames go out in
                // seq order.
                publisher.game_changed(id, &published);
                publisher.players_notified(players);
            }
            written
        })
        .await
        .map_err(GameError::internal)?;
        hot.forget();
        match written {
            Ok(()) => {
                let next_record = Arc::new(next_record);
                hot.remember(seq, game, Some(Arc::clone(&next_record)));
                Ok(Written::Committed(next_record))
            }
            Err(StoreError::Conflict | StoreError::Unique) => {
                self.metrics.count_conflict();
                Ok(Written::Lost)
            }
            Err(StoreError::RatingsMoved | StoreError::TournamentMoved) => Ok(Written::Moved),
            Err(e) => Err(e.into()),
        }
    }
}
