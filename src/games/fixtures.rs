//! Fixtures: games the service is told to start between given players (a
//! tournament's pairings), made whole here — every seat taken, the
//! creation and start in the log, the clock running with the first
//! player's vacations counted, the players told — as a [`NewGame`] for
//! the caller to write in its own transaction; and the forfeit of a
//! fixture by a player who left.

use crate::clock::{Clock, TimeControl};
use crate::domain::{GameStatus, Seat};
use crate::rules::catalogue;
use crate::store::{NewGame, Player};

use super::decide;
use super::error::{GameError, GameResult};
use super::events::{Ending, GameEvent, PlayerNotice};
use super::Games;

/// A game to start between two players, seat 0 first.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub game: String,
    pub variant: String,
    pub public: bool,
    pub rated: bool,
    pub time_control: TimeControl,
    /// Who made it (a tournament's organiser): `(id, name)`.
    pub by: (i64, String),
    /// `(id, name)` per seat.
    pub seats: [(i64, String); 2],
    /// Told to both players besides the start, naming the game.
    pub notice: PlayerNotice,
}

impl Games {
    /// The new game `fixture` describes, started at `now`.
    pub async fn fixture_game(&self, fixture: &Fixture, now: i64) -> GameResult<NewGame> {
        let (info, variant) = catalogue::find(&fixture.game, Some(&fixture.variant)).map_err(GameError::UnknownGame)?;
        let first = Seat::FIRST;
        let created = GameEvent::Created {
            game: info.slug,
            variant: variant.slug,
            public: fixture.public,
            by: fixture.by.1.clone(),
            seat: first,
            invited: fixture.seats.iter().map(|(_, name)| name.clone()).collect(),
            time_control: fixture.time_control,
        };
        let mut events = vec![created.to_stored()];
        for (seat, (_, name)) in Seat::all(2).zip(&fixture.seats) {
            events.push(
                GameEvent::Joined {
                    seat,
                    player: name.clone(),
                }
                .to_stored(),
            );
        }
        events.push(GameEvent::Started { to_move: Some(first) }.to_stored());
        let clock = Clock::new(fixture.time_control, self.timing.scale);
        let state = clock.start(2, now);
        let pauses = if fixture.time_control.is_correspondence() {
            self.pauses_of(fixture.seats[0].0).await?
        } else {
            Vec::new()
        };
        let deadline = state.as_ref().and_then(|s| clock.deadline(s, first.index(), &pauses));
        let schedule = self.schedule(fixture.time_control);
        let reminder_at = deadline.and_then(|d| schedule.reminder(d, now));
        let mut player_events = Vec::with_capacity(5);
        for (id, _) in &fixture.seats {
            player_events.push(PlayerNotice::GameStarted {}.to(*id));
            player_events.push(fixture.notice.to(*id));
        }
        let turn = PlayerNotice::YourTurn {
            ply: 0,
            seat: first,
            deadline,
        };
        player_events.push(turn.to(fixture.seats[0].0));
        Ok(NewGame {
            game: info.slug.to_owned(),
            variant: variant.slug.to_owned(),
            public: fixture.public,
            created_by: fixture.by.0,
            time_control: fixture.time_control.to_stored(),
            seats: fixture.seats.iter().map(|(id, _)| (Some(*id), None)).collect(),
            now,
            events,
            player_events,
            rated: fixture.rated,
            rating_min: None,
            rating_max: None,
            rematch_of: None,
            invite_code: None,
            clock: state.as_ref().map(crate::clock::ClockState::to_stored),
            deadline,
            reminder_at,
        })
    }
}

impl Games {
    /// `player` forfeits game `id` (they left its tournament): it ends as a
    /// resignation would, its reason [`super::FORFEIT`]. A game that is
    /// over, or not theirs, is left as it is.
    pub async fn forfeit(&self, player: &Player, id: i64) -> GameResult<()> {
        self.act(player, id, |progress, record, game| {
            let Some(seat) = record.seat_of(player.id) else {
                return Ok(None);
            };
            if record.row.status == GameStatus::Active {
                let winners = decide::conceded_winners(game, seat);
                progress.finish(record, Ending::Forfeit { winners });
            }
            Ok(None)
        })
        .await
        .map(|_| ())
    }
}

impl Games {
    /// Tells the real-time hub that `players` have new events (written by
    /// another service's transaction, such as a tournament's start).
    pub fn players_notified(&self, players: Vec<i64>) {
        if !players.is_empty() {
            self.publisher.players_notified(players);
        }
    }
}
