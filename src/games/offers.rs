//! What the players of an active game may do besides moving: resign (and
//! the concession a time-out makes, which takes the same path), offer or
//! accept a draw, ask for or agree to a takeback, abort a game that has
//! barely begun. The decisions are in [`super::decide`]; this is the shell
//! that loads, commits and answers.

use std::sync::Arc;

use crate::clock::ClockState;
use crate::domain::Seat;
use crate::rules::AnyGame;
use crate::store::{GameRecord, Player};
use crate::views::GameState;

use super::commit::Progress;
use super::decide::{self, How};
use super::error::{GameError, GameResult};
use super::hot::Hot;
use super::{now, Games, ATTEMPTS};

impl Games {
    /// Resigns, in turn or not: see [`decide::concede`] for what follows.
    pub async fn resign(&self, player: &Player, id: i64) -> GameResult<GameState> {
        self.admit(player)?;
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let (record, seat) = self.seated_in_active(player, id).await?;
            if self
                .concede(&mut hot, &record, seat, How::Resigned, now())
                .await?
                .is_some()
            {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
        }
        Err(GameError::Busy)
    }

    /// Game `id` as stored, which must be active, and `player`'s seat in it.
    pub(super) async fn seated_in_active(&self, player: &Player, id: i64) -> GameResult<(GameRecord, Seat)> {
        let record = self.load_visible(id, Some(player)).await?;
        let seat = record.seat_of(player.id).ok_or(GameError::NotAPlayer)?;
        decide::must_be_active(&record)?;
        Ok((record, seat))
    }

    /// `seat` of `record` concedes at `now`, decided and committed: the
    /// committed record, or `Ok(None)` when another writer got there first.
    pub(super) async fn concede(
        &self,
        hot: &mut Hot,
        record: &GameRecord,
        seat: Seat,
        how: How,
        now: i64,
    ) -> GameResult<Option<Arc<GameRecord>>> {
        let game = self.position(hot, record).await?;
        let pauses = self.seat_pauses(record, None).await?;
        let mut progress = Progress::of(record, now);
        let concession = decide::Concession {
            record,
            game: &game,
            seat,
            how,
            schedule: self.schedule_of(record),
            pauses: &pauses,
        };
        let next = decide::concede(&mut progress, concession)?;
        self.commit(hot, record, progress, next).await
    }

    /// `yes`: offer a draw, or accept every other seat's offer. `no`:
    /// decline (or withdraw) the pending offer.
    pub async fn draw(&self, player: &Player, id: i64, yes: bool) -> GameResult<GameState> {
        self.admit(player)?;
        self.offer_action(player, id, |progress, record, seat, game| {
            decide::draw(progress, record, game, seat, yes).map(|()| None)
        })
        .await
    }

    /// `yes`: ask to take back the last move, or agree to it. `no`: refuse.
    pub async fn takeback(&self, player: &Player, id: i64, yes: bool) -> GameResult<GameState> {
        self.admit(player)?;
        self.offer_action(player, id, |progress, record, seat, game| {
            decide::takeback(progress, record, game, seat, yes)
        })
        .await
    }

    /// Ends a game that has barely begun: while seats are open, or before
    /// every seat has moved once; never a tournament's game. Only its
    /// players may: anyone else is refused as not a player (or, for a
    /// private game, does not see it) before the tournament rule is asked.
    pub async fn abort(&self, player: &Player, id: i64) -> GameResult<GameState> {
        self.admit(player)?;
        self.act(player, id, |progress, record, _game| {
            let seat = record.seat_of(player.id).ok_or(GameError::NotAPlayer)?;
            decide::may_abort(record)?;
            decide::abort(progress, record, player, seat);
            Ok(None)
        })
        .await
    }

    /// Shared by draw and takeback: an active game, a seated player still
    /// in it, a decision on the progress.
    async fn offer_action<F>(&self, player: &Player, id: i64, decide: F) -> GameResult<GameState>
    where
        F: Fn(&mut Progress, &GameRecord, Seat, &AnyGame) -> GameResult<Option<i64>>,
    {
        self.act(player, id, |progress, record, game| {
            let seat = record.seat_of(player.id).ok_or(GameError::NotAPlayer)?;
            decide::must_be_active(record)?;
            if game.is_out(seat.rules()) {
                return Err(GameError::OutOfGame);
            }
            decide(progress, record, seat, game)
        })
        .await
    }

    /// One action of `player` on a game they may see, decided by `decide`
    /// on the current record and position, committed, and answered with the
    /// game as it then is. `decide` returns `Some(ply)` when the position
    /// goes back to `ply` (a takeback); a decision with no events changes
    /// nothing and commits nothing.
    pub(super) async fn act<F>(&self, player: &Player, id: i64, decide: F) -> GameResult<GameState>
    where
        F: Fn(&mut Progress, &GameRecord, &AnyGame) -> GameResult<Option<i64>>,
    {
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            let game = self.position(&mut hot, &record).await?;
            let mut progress = Progress::of(&record, now());
            let back_to = decide(&mut progress, &record, &game)?;
            if progress.events.is_empty() {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
            let game = match back_to {
                Some(ply) => self.take_back_to(&record, &mut progress, ply).await?,
                None => game,
            };
            if self.commit(&mut hot, &record, progress, game).await?.is_some() {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
        }
        Err(GameError::Busy)
    }

    /// The position after move `ply`, for an agreed takeback: the player to
    /// move is told, and their turn begins again.
    async fn take_back_to(&self, record: &GameRecord, progress: &mut Progress, ply: i64) -> GameResult<AnyGame> {
        let moves = self.store.moves(record, Some(ply)).await?;
        let game = super::replay(record, &moves)?;
        progress.update.to_move = game.to_move().map(Seat::from);
        progress.notices.clear();
        decide::your_turn(progress, record, ply);
        let restarted = ClockState::from_stored(record.row.clock.as_ref()).map(|mut state| {
            state.turn_started_at = progress.update.now;
            state
        });
        let pauses = self.pauses_at(record, progress.update.to_move).await?;
        decide::schedule_clock(progress, self.schedule_of(record), restarted, &pauses);
        Ok(game)
    }
}
