//! Filling a table: opening a game with its invitations, taking a seat
//! (which starts the game once every seat is filled; within the game's
//! rating range, if it has one), declining an invitation.

use std::sync::Arc;

use crate::clock::TimeControl;
use crate::domain::{InviteCode, Seat};
use crate::rules::{catalogue, AnyGame};
use crate::store::{GameRecord, GameRow, NewGame, Player, SeatRow};
use crate::views::GameState;

use super::commit::Progress;
use super::decide;
use super::error::{GameError, GameResult};
use super::events::{GameEvent, PlayerNotice};
use super::hot::{settled, Hot};
use super::{now, Games, NewGameCommand, ATTEMPTS};

/// What a new game is, besides who sits where.
pub(super) struct Table {
    pub game: &'static str,
    pub variant: &'static str,
    pub public: bool,
    pub control: TimeControl,
    pub rated: bool,
    pub rating_min: Option<i64>,
    pub rating_max: Option<i64>,
    pub rematch_of: Option<i64>,
}

impl Games {
    pub async fn create(&self, player: &Player, command: NewGameCommand) -> GameResult<GameState> {
        self.admit(player)?;
        let info = catalogue::game(&command.game)
            .ok_or_else(|| GameError::UnknownGame(crate::rules::UnknownGame::game(&command.game)))?;
        let variant_slug = command.variant.as_deref().unwrap_or(info.variants[0].slug);
        let (info, variant) = catalogue::find(info.slug, Some(variant_slug)).map_err(GameError::UnknownGame)?;
        let seats = variant.seats.len();
        let my_seat = command.seat.unwrap_or(0);
        if usize::from(my_seat) >= seats {
            return Err(GameError::NoSuchSeatInVariant {
                variant: variant.name,
                last: seats - 1,
            });
        }
        let my_seat = Seat::from(my_seat);
        if command.opponents.len() >= seats {
            return Err(GameError::TooManyOpponents {
                variant: variant.name,
                seats,
            });
        }
        let invitees = self.invitees(player, &command.opponents).await?;
        let standing = self.store.creator_standing(player.id, info.slug, variant.slug).await?;
        self.may_open(&standing, invitees.len())?;
        let mut others = invitees.iter();
        let seat_rows: Vec<SeatRow> = Seat::all(seats)
            .map(|seat| {
                if seat == my_seat {
                    SeatRow::taken(seat, player, standing.rating)
                } else {
                    SeatRow::offered(seat, others.next())
                }
            })
            .collect();
        let seat_list = seat_rows
            .iter()
            .map(|s| (s.player.as_ref().map(|p| p.0), s.invitee.as_ref().map(|p| p.0)))
            .collect();
        let control = command
            .time_control
            .unwrap_or_default()
            .validate()
            .map_err(GameError::BadTimeControl)?;
        if let (Some(min), Some(max)) = (command.rating_min, command.rating_max) {
            if min > max {
                return Err(GameError::BadRatingRange { min, max });
            }
        }
        let table = Table {
            game: info.slug,
            variant: variant.slug,
            public: command.public.unwrap_or(true),
            control,
            rated: command.rated.unwrap_or(true),
            rating_min: command.rating_min,
            rating_max: command.rating_max,
            rematch_of: None,
        };
        let invited = PlayerNotice::Invited {
            by: player.name.clone(),
        };
        let (id, row) = self
            .open_table(player, my_seat, seat_list, &invitees, table, invited)
            .await?;
        // The answer is built from what was written, not read back: the
        // new game is what its creation says, seat by seat.
        let record = GameRecord { row, seats: seat_rows };
        let slot = self.hot.slot(id);
        let game = self.position(&mut *slot.lock().await, &record).await?;
        self.render(&record, &game, Some(player), None).await
    }

    /// Creates a game of `table` with `player` at `seat` and `seats` as
    /// given, telling each of `invitees` with `notice`; its id and its row
    /// as created. A rematch whose game already has one is refused
    /// ([`StoreError::Conflict`]).
    pub(super) async fn open_table(
        &self,
        player: &Player,
        seat: Seat,
        seats: Vec<(Option<i64>, Option<i64>)>,
        invitees: &[Player],
        table: Table,
        notice: PlayerNotice,
    ) -> GameResult<(i64, GameRow)> {
        let created = GameEvent::Created {
            game: table.game,
            variant: table.variant,
            public: table.public,
            by: player.name.clone(),
            seat,
            invited: invitees.iter().map(|p| p.name.clone()).collect(),
            time_control: table.control,
        };
        let new_game = NewGame {
            game: table.game.to_owned(),
            variant: table.variant.to_owned(),
            public: table.public,
            created_by: player.id,
            time_control: table.control.to_stored(),
            seats,
            now: now(),
            events: vec![created.to_stored()],
            player_events: invitees.iter().map(|p| notice.to(p.id)).collect(),
            rated: table.rated,
            rating_min: table.rating_min,
            rating_max: table.rating_max,
            rematch_of: table.rematch_of,
            // Private games can be joined by invitation or with this.
            invite_code: (!table.public).then(|| InviteCode::generate().to_string()),
            clock: None,
            deadline: None,
            reminder_at: None,
        };
        let id = self.store.create_game(new_game.clone()).await?;
        self.metrics.count_game_created();
        self.publisher.players_notified(invitees.iter().map(|p| p.id).collect());
        Ok((id, new_game.row(id)))
    }

    /// The players named to the other seats, in order: each registered,
    /// none the creator, none twice.
    async fn invitees(&self, creator: &Player, names: &[String]) -> GameResult<Vec<Player>> {
        let mut invitees: Vec<Player> = Vec::new();
        for name in names {
            let key = crate::domain::name_key(name);
            let opponent = self
                .store
                .player_by_name(&key)
                .await?
                .ok_or_else(|| GameError::UnknownPlayer(name.clone()))?;
            if opponent.id == creator.id {
                return Err(GameError::InvitedYourself);
            }
            if invitees.iter().any(|p| p.id == opponent.id) {
                return Err(GameError::InvitedTwice(name.clone()));
            }
            invitees.push(opponent);
        }
        Ok(invitees)
    }

    /// `player` takes `seat` (or the seat they are invited to, or the first
    /// open one). A private game is joined by its invitees and by whoever
    /// holds its invitation `code`; to anyone else it does not exist.
    pub async fn join(
        &self,
        player: &Player,
        id: i64,
        seat: Option<u8>,
        code: Option<&InviteCode>,
    ) -> GameResult<GameState> {
        self.admit(player)?;
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        // As a move is: decided from memory first when it can (a new game
        // is cached by the state its creation answered with).
        for attempt in 0..ATTEMPTS {
            let (record, game, from_cache) = self.basis(&mut hot, id, attempt == 0).await?;
            let decided = self.join_once(&mut hot, record, &game, player, seat, code).await;
            if let Some(joined) = settled(decided, from_cache) {
                drop(hot);
                return self.render(&joined?, &game, Some(player), None).await;
            }
        }
        Err(GameError::Busy)
    }

    /// One decision on a join, from `record` and its position `game`:
    /// `Ok(None)` when the commit lost a race and the join must be decided
    /// again.
    async fn join_once(
        &self,
        hot: &mut Hot,
        record: Arc<GameRecord>,
        game: &AnyGame,
        player: &Player,
        seat: Option<u8>,
        code: Option<&InviteCode>,
    ) -> GameResult<Option<GameRecord>> {
        let chosen =
            decide::may_join(&record, player, code).and_then(|()| decide::choose_seat(&record, player.id, seat))?;
        let standing = self
            .ratings
            .standing_of(&record.row.game, &record.row.variant, player.id)
            .await
            .map_err(GameError::internal)?;
        if record.row.rating_min.is_some() || record.row.rating_max.is_some() {
            let rating = standing.map_or(self.ratings.params().initial.rating, |(rating, _)| rating);
            decide::check_rating_range(&record, player.id, rating)?;
        }
        let pauses = self.seat_pauses(&record, Some((chosen, player.id))).await?;
        let mut progress = Progress::of(&record, now());
        decide::sit(
            &mut progress,
            &record,
            game,
            player,
            chosen,
            self.schedule_of(&record),
            &pauses,
        );
        let Some(joined) = self.commit(hot, &record, progress, game.clone()).await? else {
            return Ok(None);
        };
        // The new seat shows its player's rating, here and in the cache
        // (which holds the record just committed), as a read of the game
        // would.
        let mut joined = Arc::unwrap_or_clone(joined);
        joined.show_rating(player.id, standing);
        if hot.record.is_some() {
            hot.record = Some(Arc::new(joined.clone()));
        }
        Ok(Some(joined))
    }

    pub async fn decline(&self, player: &Player, id: i64) -> GameResult<GameState> {
        self.admit(player)?;
        self.act(player, id, |progress, record, _game| {
            let seat = record.invitation_of(player.id).ok_or(GameError::NotInvited)?;
            if record.row.status != crate::domain::GameStatus::Open {
                return Err(GameError::NotOpen {
                    id,
                    status: record.row.status,
                });
            }
            decide::decline(progress, record, player, seat);
            Ok(None)
        })
        .await
    }
}
