//! The games service: every action on a game (create, join, decline, move,
//! resign, draw, takeback, abort) and every read of one, independent of HTTP
//! so the WebSocket of issue 6 can share it.
//!
//! - Hot games stay in memory: a move replays nothing, it checks the cached
//!   position and plays on a copy.
//! - Actions on one game are serialised by a per-game lock in this process,
//!   and across processes by the store's optimistic check on the game's
//!   event number (plus the unique `(game_id, ply)` key of `moves`). When a
//!   write loses a race the action reloads the game from the database and
//!   decides again, which yields the idempotent answer or a clean 409.
//! - Nothing is acknowledged before its transaction commits; the database is
//!   the source of truth and the cache is dropped whenever it might be stale.

pub mod board;
pub mod record;
mod state;
mod timing;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

pub use state::{timestamp, GameState, GameSummary, MoveRecord, Offers, SeatState};

use crate::clock::{Clock, ClockState, Pause, Scale, TimeControl};
use crate::domain::{GameStatus, Seat};
use crate::error::{Error, Result};
use crate::metrics::Metrics;
use crate::realtime::Hub;
use crate::rules::catalogue::{self, GameInfo, VariantInfo};
use crate::rules::{AnyGame, MoveError, View};
use crate::store::{
    Event, EventRow, GameFilter, GameRecord, GameUpdate, MoveRow, NewGame, NewMove, Player, PlayerEvent, Store,
    StoreError,
};

/// Longest move string accepted (every notation is far shorter).
pub const MAX_MOVE_LEN: usize = 64;
/// Longest note to the opponents kept with a move.
pub const MAX_MESSAGE_LEN: usize = 4000;
/// Longest chat message, in characters.
pub const MAX_CHAT_LEN: usize = 1000;
/// How often an action is re-decided after losing a race before giving up.
const ATTEMPTS: usize = 4;
/// Hot games kept beyond this number are evicted when idle.
const HOT_GAMES: usize = 10_000;

/// Unix time in milliseconds.
pub fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1_000_000
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGameRequest {
    /// Catalogue slug, e.g. `gravity`.
    pub game: String,
    /// Variant slug; the game's first variant when absent.
    pub variant: Option<String>,
    /// The creator's seat (0 moves first); 0 when absent.
    pub seat: Option<u8>,
    /// Players invited to the other seats, in seat order.
    #[serde(default)]
    pub opponents: Vec<String>,
    /// Listed and readable by everyone (default) or only by its players.
    pub public: Option<bool>,
    /// `{"kind":"none"}` (default), `correspondence` or `live`.
    pub time_control: Option<TimeControl>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The number of moves the client has seen.
    pub ply: i64,
    /// A note to the opponents, kept with the move.
    pub message: Option<String>,
}

/// The answer to a move: the move as stored and the game after it.
#[derive(Debug, serde::Serialize, ToSchema)]
pub struct MoveAnswer {
    /// `false` when this was a retry of a move already stored.
    pub created: bool,
    #[serde(rename = "move")]
    pub record: MoveRecord,
    pub game: GameState,
}

/// What a game looked like at some ply, for boards.
pub struct Snapshot {
    pub record: GameRecord,
    pub game: AnyGame,
    pub view: View,
    /// The view before the last move shown, to mark what it changed.
    pub previous: Option<View>,
    pub last_move: Option<MoveRow>,
}

/// What this process knows of one game, valid at event number `seq`.
///
/// Moves are decided from it without reading the database. That is safe
/// because the commit's guard checks `seq`: if another process changed the
/// game meanwhile, the write is refused and the move decided again from the
/// database. A refusal decided from it is checked against the database too.
#[derive(Default)]
struct Hot {
    /// The game's event number `game` (and `record`, when set) are at.
    seq: i64,
    game: Option<AnyGame>,
    /// The game's row and seats, minus fields no move depends on
    /// (`deadline` and `reminder_at` may be newer in the database: moves
    /// compute their own).
    record: Option<GameRecord>,
}

impl Hot {
    /// The cached record and position, if both are there.
    fn current(&self) -> Option<(GameRecord, AnyGame)> {
        match (&self.record, &self.game) {
            (Some(record), Some(game)) if record.row.event_seq == self.seq => Some((record.clone(), game.clone())),
            _ => None,
        }
    }

    fn forget(&mut self) {
        self.game = None;
        self.record = None;
    }
}

/// The two chat rooms of a game. Both are part of the game's public log;
/// they differ in who may write: the players' room only the seated players,
/// the spectators' room anyone who may see the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Room {
    Players,
    Spectators,
}

impl Room {
    fn as_str(self) -> &'static str {
        match self {
            Room::Players => "players",
            Room::Spectators => "spectators",
        }
    }
}

pub struct Games {
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    hub: Arc<Hub>,
    hot: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<Hot>>>>,
    timing: Timing,
}

/// How clocks are kept: the length of a day and when reminders go out.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub scale: Scale,
    /// How long before a correspondence deadline the player to move is
    /// reminded; 0 for no reminders.
    pub remind_before_ms: i64,
}

impl Default for Timing {
    fn default() -> Timing {
        let scale = Scale::default();
        Timing {
            scale,
            remind_before_ms: scale.day_ms,
        }
    }
}

/// "Forza 4 Centrifuga", or "Focus — Lines of Focus" when the variant has a
/// name of its own.
pub fn title(info: &GameInfo, variant: &VariantInfo) -> String {
    if variant.name == info.italian {
        info.italian.to_owned()
    } else {
        format!("{} — {}", info.italian, variant.name)
    }
}

/// The catalogue entry of a stored game.
pub fn variant_info(row: &crate::store::GameRow) -> Result<(&'static GameInfo, &'static VariantInfo)> {
    catalogue::find(&row.game, Some(&row.variant)).map_err(Error::internal)
}

fn seat_of(record: &GameRecord, player: i64) -> Option<Seat> {
    record
        .seats
        .iter()
        .find(|s| s.player.as_ref().is_some_and(|(id, _)| *id == player))
        .map(|s| s.seat)
}

fn is_participant(record: &GameRecord, player: i64) -> bool {
    record.seats.iter().any(|s| {
        s.player.as_ref().is_some_and(|(id, _)| *id == player)
            || s.invitee.as_ref().is_some_and(|(id, _)| *id == player)
    })
}

fn visible(record: &GameRecord, viewer: Option<&Player>) -> bool {
    record.row.public || viewer.is_some_and(|p| is_participant(record, p.id))
}

fn not_found(id: i64) -> Error {
    Error::NotFound(format!("no game {id}"))
}

fn all_seats(record: &GameRecord) -> i64 {
    (1i64 << record.seats.len()) - 1
}

fn seated_players(record: &GameRecord) -> Vec<i64> {
    record
        .seats
        .iter()
        .filter_map(|s| s.player.as_ref().map(|(id, _)| *id))
        .collect()
}

fn player_at(record: &GameRecord, seat: Option<Seat>) -> Option<i64> {
    let seat = seat?;
    record
        .seats
        .iter()
        .find(|s| s.seat == seat)
        .and_then(|s| s.player.as_ref().map(|(id, _)| *id))
}

fn move_error(error: MoveError) -> Error {
    match error {
        MoveError::GameOver => Error::conflict("game_not_active", "the game is over"),
        MoveError::Notation(e) => Error::unprocessable("bad_notation", e.to_string()),
        MoveError::Illegal(e) => Error::unprocessable("illegal_move", e.to_string()),
    }
}

/// Player events telling everyone seated that the game is over.
fn game_over_events(record: &GameRecord, outcome: &Value) -> Vec<PlayerEvent> {
    seated_players(record)
        .into_iter()
        .map(|player_id| PlayerEvent {
            player_id,
            kind: "game_over",
            payload: json!({ "outcome": outcome }),
        })
        .collect()
}

fn your_turn(record: &GameRecord, seat: Option<Seat>, ply: i64) -> Vec<PlayerEvent> {
    player_at(record, seat)
        .map(|player_id| PlayerEvent {
            player_id,
            kind: "your_turn",
            payload: json!({ "ply": ply, "seat": seat }),
        })
        .into_iter()
        .collect()
}

/// An update that changes nothing yet: the starting point of every action.
fn update_from(record: &GameRecord) -> GameUpdate {
    let row = &record.row;
    GameUpdate {
        id: row.id,
        expected_seq: row.event_seq,
        status: row.status,
        ply: row.ply,
        to_move: row.to_move,
        outcome: row.outcome.clone(),
        draw_offer: row.draw_offer,
        takeback_offer: row.takeback_offer,
        now: now(),
        sit: Vec::new(),
        insert_move: None,
        delete_move: None,
        events: Vec::new(),
        player_events: Vec::new(),
        clock: row.clock.clone(),
        deadline: row.deadline,
        reminder_at: row.reminder_at,
    }
}

fn time_control(record: &GameRecord) -> TimeControl {
    TimeControl::from_stored(record.row.time_control.as_ref())
}

fn pauses(vacations: &[(i64, i64)]) -> Vec<Pause> {
    vacations.iter().map(|&(start, end)| Pause { start, end }).collect()
}

/// The outcome of a game `seat` concedes, by resigning or on time: the
/// rules say who wins (the other team in a team game, else every other
/// seat; in games of more than two, the game ends there).
fn conceded_outcome(game: &AnyGame, seat: Seat, reason: &str) -> Value {
    let winners = game.winners_if_conceded(seat.rules());
    json!({ "winners": winners, "reason": reason })
}

fn event(kind: &'static str, payload: Value) -> Event {
    Event { kind, payload }
}

impl Games {
    pub fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>) -> Games {
        Games::with_hub(store, metrics, Arc::new(Hub::new(64)))
    }

    /// A service that publishes every committed change on `hub`.
    pub fn with_hub(store: Arc<dyn Store>, metrics: Arc<Metrics>, hub: Arc<Hub>) -> Games {
        Games {
            store,
            metrics,
            hub,
            hot: Mutex::new(HashMap::new()),
            timing: Timing::default(),
        }
    }

    /// The same service with other clock settings.
    pub fn with_timing(mut self, timing: Timing) -> Games {
        self.timing = timing;
        self
    }

    pub fn timing(&self) -> Timing {
        self.timing
    }

    fn clock_of(&self, record: &GameRecord) -> Clock {
        Clock::new(time_control(record), self.timing.scale)
    }

    /// The vacations that stop the clock of whoever sits at `seat`.
    async fn pauses_at(&self, record: &GameRecord, seat: Option<Seat>, also: Option<i64>) -> Result<Vec<Pause>> {
        if !time_control(record).is_correspondence() {
            return Ok(Vec::new());
        }
        let player = player_at(record, seat).or(also.filter(|_| seat.is_some()));
        match player {
            Some(id) => Ok(pauses(&self.store.vacations(id).await?)),
            None => Ok(Vec::new()),
        }
    }

    /// Sets the update's clock, deadline and reminder for the player to
    /// move under `state`, and tells them the deadline in `your_turn`.
    fn schedule(&self, record: &GameRecord, update: &mut GameUpdate, state: Option<ClockState>, pauses: &[Pause]) {
        let clock = self.clock_of(record);
        update.clock = state.as_ref().map(ClockState::to_stored);
        update.deadline = None;
        update.reminder_at = None;
        let (Some(state), Some(seat), true) = (state, update.to_move, update.status == GameStatus::Active) else {
            return;
        };
        let Some(deadline) = clock.deadline(&state, seat.index(), pauses) else {
            return;
        };
        update.deadline = Some(deadline);
        let remind_at = deadline - self.timing.remind_before_ms;
        if clock.control.is_correspondence() && self.timing.remind_before_ms > 0 && remind_at > state.turn_started_at {
            update.reminder_at = Some(remind_at);
        }
        for event in &mut update.events {
            if event.kind == "move" {
                if let Value::Object(map) = &mut event.payload {
                    map.insert("deadline".to_owned(), Value::from(deadline));
                    map.insert("remaining_ms".to_owned(), json!(state.remaining_ms));
                }
            }
        }
        for event in &mut update.player_events {
            if event.kind == "your_turn" {
                if let Value::Object(map) = &mut event.payload {
                    map.insert("deadline".to_owned(), Value::from(deadline));
                }
            }
        }
    }

    /// Where committed changes are published to live subscribers.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The lock and cache slot of one game.
    fn slot(&self, id: i64) -> Arc<tokio::sync::Mutex<Hot>> {
        let mut hot = self.hot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if hot.len() >= HOT_GAMES {
            // Nobody holds an idle slot: dropping it loses only a cache.
            hot.retain(|_, slot| Arc::strong_count(slot) > 1);
        }
        hot.entry(id).or_default().clone()
    }

    async fn load(&self, id: i64) -> Result<GameRecord> {
        self.store.game(id).await?.ok_or_else(|| not_found(id))
    }

    /// The game as `viewer` may see it: private games are not found by
    /// anyone but their players and invitees.
    async fn load_visible(&self, id: i64, viewer: Option<&Player>) -> Result<GameRecord> {
        let record = self.load(id).await?;
        if visible(&record, viewer) {
            Ok(record)
        } else {
            Err(not_found(id))
        }
    }

    /// The current position, from the cache when it is up to date.
    async fn position(&self, hot: &mut Hot, record: &GameRecord) -> Result<AnyGame> {
        if hot.seq == record.row.event_seq {
            if let Some(game) = &hot.game {
                return Ok(game.clone());
            }
        }
        // `ply` counts the stored moves: a game at ply 0 (every new game)
        // has none to read.
        let moves = if record.row.ply == 0 {
            Vec::new()
        } else {
            self.store.moves(record.row.id, None).await?
        };
        let game = replay(record, &moves)?;
        hot.seq = record.row.event_seq;
        hot.game = Some(game.clone());
        hot.record = Some(record.clone());
        Ok(game)
    }

    /// Writes an update of `record`; on success the cache holds `game` and
    /// the updated record at the new event number. `Ok(false)` when another
    /// writer got there first: reload and decide again.
    async fn commit(&self, hot: &mut Hot, record: &GameRecord, mut update: GameUpdate, game: AnyGame) -> Result<bool> {
        if update.status != GameStatus::Active {
            // A game that is over has no clock running.
            update.deadline = None;
            update.reminder_at = None;
        }
        let seq = update.expected_seq + update.events.len() as i64;
        // The rows exactly as the store numbers and keeps them, to publish
        // once (and only if) the transaction commits.
        let published: Vec<EventRow> = (update.expected_seq + 1..)
            .zip(&update.events)
            .map(|(seq, e)| EventRow {
                seq,
                kind: e.kind.to_owned(),
                payload: e.payload.clone(),
                created_at: update.now,
            })
            .collect();
        let players: Vec<i64> = update.player_events.iter().map(|e| e.player_id).collect();
        // A seat taken changes a name the update does not carry: the join,
        // which knows it, fills the cache in itself.
        let next_record = update.sit.is_empty().then(|| {
            let mut next = record.clone();
            next.row.apply(&update);
            next
        });
        let id = update.id;
        let (store, hub) = (self.store.clone(), self.hub.clone());
        // The commit and its publication run to the end even when the
        // request that started them is cancelled (a client hanging up): a
        // committed change is always announced.
        let written = tokio::spawn(async move {
            let written = store.update_game(update).await;
            if written.is_ok() {
                // Publication follows the commit: the game's lock is held
                // (unless the request was cancelled), so frames go out in
                // seq order.
                hub.publish_game(id, &published);
                hub.publish_players(players);
            }
            written
        })
        .await
        .map_err(Error::internal)?;
        match written {
            Ok(()) => {
                hot.forget();
                hot.seq = seq;
                hot.game = Some(game);
                hot.record = next_record;
                Ok(true)
            }
            Err(StoreError::Conflict | StoreError::Unique) => {
                hot.forget();
                self.metrics.count_conflict();
                Ok(false)
            }
            Err(e) => {
                hot.forget();
                Err(e.into())
            }
        }
    }

    fn busy() -> Error {
        Error::conflict(
            "busy",
            "the game kept changing while this request was decided; try again",
        )
    }

    pub async fn create(&self, player: &Player, request: NewGameRequest) -> Result<GameState> {
        let info = catalogue::game(&request.game)
            .ok_or_else(|| Error::unprocessable("unknown_game", unknown_game(&request.game)))?;
        let variant_slug = request.variant.as_deref().unwrap_or(info.variants[0].slug);
        let (info, variant) = catalogue::find(info.slug, Some(variant_slug))
            .map_err(|e| Error::unprocessable("unknown_game", e.to_string()))?;
        let seats = variant.seats.len();
        let my_seat = usize::from(request.seat.unwrap_or(0));
        if my_seat >= seats {
            return Err(Error::unprocessable(
                "bad_seat",
                format!("{} has seats 0 to {}", variant.name, seats - 1),
            ));
        }
        if request.opponents.len() >= seats {
            return Err(Error::unprocessable(
                "too_many_opponents",
                format!("{} seats {seats} players", variant.name),
            ));
        }
        let mut invitees = Vec::new();
        for name in &request.opponents {
            let key = crate::accounts::name_key(name);
            let opponent = self
                .store
                .player_by_name(&key)
                .await?
                .ok_or_else(|| Error::unprocessable("unknown_player", format!("no player named {name:?}")))?;
            if opponent.id == player.id {
                return Err(Error::unprocessable("bad_opponent", "you cannot invite yourself"));
            }
            if invitees.iter().any(|p: &Player| p.id == opponent.id) {
                return Err(Error::unprocessable("bad_opponent", format!("{name} is invited twice")));
            }
            invitees.push(opponent);
        }
        let mut others = invitees.iter();
        let seat_list: Vec<(Option<i64>, Option<i64>)> = (0..seats)
            .map(|seat| {
                if seat == my_seat {
                    (Some(player.id), None)
                } else {
                    (None, others.next().map(|p| p.id))
                }
            })
            .collect();
        let public = request.public.unwrap_or(true);
        let control = request
            .time_control
            .unwrap_or_default()
            .validate()
            .map_err(|e| Error::unprocessable("bad_time_control", e.to_string()))?;
        let events = vec![event(
            "created",
            json!({
                "game": info.slug, "variant": variant.slug, "public": public,
                "by": player.name, "seat": my_seat,
                "invited": invitees.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
                "time_control": control,
            }),
        )];
        let player_events = invitees
            .iter()
            .map(|p| PlayerEvent {
                player_id: p.id,
                kind: "invited",
                payload: json!({ "by": player.name }),
            })
            .collect();
        let invited: Vec<i64> = invitees.iter().map(|p| p.id).collect();
        let id = self
            .store
            .create_game(NewGame {
                game: info.slug.to_owned(),
                variant: variant.slug.to_owned(),
                public,
                created_by: player.id,
                time_control: control.to_stored(),
                seats: seat_list,
                now: now(),
                events,
                player_events,
            })
            .await?;
        self.metrics.count_game_created();
        self.hub.publish_players(invited);
        self.state(Some(player), id, None).await
    }

    pub async fn join(&self, player: &Player, id: i64, seat: Option<u8>) -> Result<GameState> {
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            // Open seats of private games can be taken by whoever knows the id.
            let record = self.load(id).await?;
            let row = &record.row;
            if seat_of(&record, player.id).is_some() {
                return Err(Error::conflict("already_seated", "you already sit at this game"));
            }
            if row.status != GameStatus::Open {
                return Err(Error::conflict("game_not_open", format!("game {id} is {}", row.status)));
            }
            let invited = record
                .seats
                .iter()
                .find(|s| s.player.is_none() && s.invitee.as_ref().is_some_and(|(i, _)| *i == player.id));
            let chosen = match (invited, seat) {
                (Some(s), None) => s,
                (Some(s), Some(n)) if i64::from(s.seat) == i64::from(n) => s,
                (Some(s), Some(_)) => {
                    return Err(Error::conflict(
                        "invited_elsewhere",
                        format!("you are invited to seat {}", s.seat),
                    ))
                }
                (_, Some(n)) => {
                    let s = record
                        .seats
                        .iter()
                        .find(|s| i64::from(s.seat) == i64::from(n))
                        .ok_or_else(|| Error::unprocessable("bad_seat", format!("game {id} has no seat {n}")))?;
                    if s.player.is_some() {
                        return Err(Error::conflict("seat_taken", format!("seat {n} is taken")));
                    }
                    if s.invitee.as_ref().is_some_and(|(i, _)| *i != player.id) {
                        return Err(Error::forbidden("seat_reserved", format!("seat {n} is reserved")));
                    }
                    s
                }
                (None, None) => record
                    .seats
                    .iter()
                    .find(|s| s.player.is_none() && s.invitee.is_none())
                    .ok_or_else(|| {
                        Error::conflict("no_open_seat", "every free seat is reserved for an invited player")
                    })?,
            };
            let chosen = chosen.seat;
            let game = self.position(&mut hot, &record).await?;
            let mut update = update_from(&record);
            update.sit.push((chosen, player.id));
            update
                .events
                .push(event("joined", json!({ "seat": chosen, "player": player.name })));
            let full = record.seats.iter().all(|s| s.player.is_some() || s.seat == chosen);
            if full {
                update.status = GameStatus::Active;
                update.to_move = game.to_move().map(Seat::from);
                update
                    .events
                    .push(event("started", json!({ "to_move": update.to_move })));
                let mut players = seated_players(&record);
                players.push(player.id);
                for player_id in players {
                    update.player_events.push(PlayerEvent {
                        player_id,
                        kind: "game_started",
                        payload: json!({}),
                    });
                }
                let first = if update.to_move == Some(chosen) {
                    Some(player.id)
                } else {
                    player_at(&record, update.to_move)
                };
                if let Some(player_id) = first {
                    update.player_events.push(PlayerEvent {
                        player_id,
                        kind: "your_turn",
                        payload: json!({ "ply": 0, "seat": update.to_move }),
                    });
                }
                let clock = self.clock_of(&record).start(record.seats.len(), update.now);
                let pauses = self.pauses_at(&record, update.to_move, first).await?;
                self.schedule(&record, &mut update, clock, &pauses);
            }
            // The game as this join leaves it: the commit cannot know the
            // sitter's name, so the cache is filled in here, sparing the
            // answer and the first move a read.
            let mut seated = record.clone();
            seated.row.apply(&update);
            if let Some(s) = seated.seats.iter_mut().find(|s| s.seat == chosen) {
                s.player = Some((player.id, player.name.clone()));
            }
            let position = game.clone();
            if self.commit(&mut hot, &record, update, game).await? {
                hot.record = Some(seated.clone());
                drop(hot);
                return self.render(&seated, &position, Some(player), None).await;
            }
        }
        Err(Self::busy())
    }

    pub async fn decline(&self, player: &Player, id: i64) -> Result<GameState> {
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            let seat = record
                .seats
                .iter()
                .find(|s| s.player.is_none() && s.invitee.as_ref().is_some_and(|(i, _)| *i == player.id))
                .ok_or_else(|| Error::forbidden("not_invited", "you have no invitation to this game"))?
                .seat;
            if record.row.status != GameStatus::Open {
                return Err(Error::conflict(
                    "game_not_open",
                    format!("game {id} is {}", record.row.status),
                ));
            }
            let game = self.position(&mut hot, &record).await?;
            let mut update = update_from(&record);
            update.status = GameStatus::Aborted;
            update.to_move = None;
            update
                .events
                .push(event("declined", json!({ "seat": seat, "player": player.name })));
            update
                .events
                .push(event("aborted", json!({ "reason": "invitation declined" })));
            for player_id in seated_players(&record) {
                update.player_events.push(PlayerEvent {
                    player_id,
                    kind: "declined",
                    payload: json!({ "player": player.name }),
                });
            }
            if self.commit(&mut hot, &record, update, game).await? {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
        }
        Err(Self::busy())
    }

    /// Plays a move for `player`. Returns `created: false` for a retry of a
    /// move already stored (same player, ply and move): nothing is applied
    /// twice.
    pub async fn play(&self, player: &Player, id: i64, request: MoveRequest) -> Result<MoveAnswer> {
        if request.notation.chars().count() > MAX_MOVE_LEN {
            return Err(Error::unprocessable("bad_notation", "the move is too long"));
        }
        if request
            .message
            .as_ref()
            .is_some_and(|m| m.chars().count() > MAX_MESSAGE_LEN)
        {
            return Err(Error::unprocessable(
                "message_too_long",
                format!("the message is longer than {MAX_MESSAGE_LEN} characters"),
            ));
        }
        if request.ply < 0 {
            return Err(Error::unprocessable("bad_ply", "ply cannot be negative"));
        }
        let started = Instant::now();
        let slot = self.slot(id);
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
            match self.play_once(&mut hot, record, game, player, &request).await {
                Ok(Some(answer)) => {
                    if answer.created {
                        self.metrics.observe_move(started.elapsed());
                    }
                    return Ok(answer);
                }
                Ok(None) => continue,
                // A time-out was decided, and acted on, from the database.
                Err(error @ Error::Conflict { code: "time_out", .. }) => return Err(error),
                Err(_) if from_cache => continue,
                Err(error) => return Err(error),
            }
        }
        Err(Self::busy())
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
        request: &MoveRequest,
    ) -> Result<Option<MoveAnswer>> {
        let id = record.row.id;
        if !visible(&record, Some(player)) {
            return Err(not_found(id));
        }
        let row = &record.row;
        let seat = seat_of(&record, player.id)
            .ok_or_else(|| Error::forbidden("not_a_player", "you are not a player of this game"))?;
        if request.ply < row.ply {
            if let Some(stored) = self.store.move_at(id, request.ply + 1).await? {
                if stored.player_id == player.id && self.same_move(&record, &stored, &request.notation).await? {
                    let record_json = MoveRecord::of(&record, &stored);
                    let state = self.render(&record, &game, Some(player), None).await?;
                    return Ok(Some(MoveAnswer {
                        created: false,
                        record: record_json,
                        game: state,
                    }));
                }
            }
        }
        if row.status != GameStatus::Active {
            let state = self.render(&record, &game, Some(player), None).await?;
            return Err(Error::Conflict {
                code: "game_not_active",
                message: format!("game {id} is {}", row.status),
                game: Some(Box::new(state.to_json())),
            });
        }
        if request.ply != row.ply {
            let state = self.render(&record, &game, Some(player), None).await?;
            return Err(Error::Conflict {
                code: "stale_ply",
                message: format!("the game is at ply {}, not {}", row.ply, request.ply),
                game: Some(Box::new(state.to_json())),
            });
        }
        if row.to_move != Some(seat) {
            return Err(Error::forbidden("not_your_turn", "it is not your turn"));
        }
        let mut next = game.clone();
        let played = next.play(&request.notation).map_err(move_error)?;
        let ply = row.ply + 1;
        let mut update = update_from(&record);
        let clock = self.clock_of(&record);
        let mut clock_state = None;
        if let Some(state) = ClockState::from_stored(row.clock.as_ref()) {
            let my_pauses = self.pauses_at(&record, Some(seat), None).await?;
            let mover = seat.index();
            match clock.after_move(&state, mover, update.now, &my_pauses) {
                Ok(next_state) => clock_state = Some(next_state),
                Err(_deadline) => {
                    // Too late: the move is refused and the game is
                    // lost on time, as the sweeper would have done.
                    // Ended here or, having lost a race, by a sweeper.
                    self.time_out_locked(hot, id).await?;
                    let record = self.load(id).await?;
                    if record.row.status == GameStatus::Active {
                        // Decided on a stale copy: the database's clock
                        // still runs. Decide again from it.
                        return Ok(None);
                    }
                    let game = self.position(hot, &record).await?;
                    let state = self.render(&record, &game, Some(player), None).await?;
                    return Err(Error::Conflict {
                        code: "time_out",
                        message: "your time ran out before this move".to_owned(),
                        game: Some(Box::new(state.to_json())),
                    });
                }
            }
        }
        update.ply = ply;
        update.to_move = next.to_move().map(Seat::from);
        // A move answers the others' offers with no; the mover's stands.
        update.draw_offer = row.draw_offer & seat.bit();
        update.takeback_offer = 0;
        let message = request.message.clone().filter(|m| !m.is_empty());
        let outcome = next
            .outcome()
            .map(|o| serde_json::to_value(o).map_err(Error::internal))
            .transpose()?;
        update.insert_move = Some(NewMove {
            ply,
            seat,
            player_id: player.id,
            notation: played.notation.clone(),
            effect: played.effect.clone(),
            message: message.clone(),
        });
        update.events.push(event(
            "move",
            json!({
                "ply": ply, "seat": seat, "player": player.name, "move": played.notation,
                "effect": played.effect, "message": message,
                "status": if outcome.is_some() { "finished" } else { "active" },
                "to_move": update.to_move,
            }),
        ));
        if let Some(outcome) = outcome {
            update.status = GameStatus::Finished;
            update.draw_offer = 0;
            update.outcome = Some(outcome.clone());
            update.events.push(event("finished", outcome.clone()));
            update.player_events = game_over_events(&record, &outcome);
        } else {
            update.player_events = your_turn(&record, update.to_move, ply);
        }
        let next_pauses = self.pauses_at(&record, update.to_move, None).await?;
        self.schedule(&record, &mut update, clock_state, &next_pauses);
        if !self.commit(hot, &record, update, next.clone()).await? {
            return Ok(None);
        }
        // Still under the game's lock: the state shown is the one this
        // move made.
        let record = match &hot.record {
            Some(record) => record.clone(),
            None => self.load(id).await?,
        };
        let stored = MoveRow {
            ply,
            seat,
            player_id: player.id,
            player_name: player.name.clone(),
            notation: played.notation,
            effect: played.effect,
            message,
            created_at: record.row.updated_at,
        };
        let state = self
            .render_with(&record, &next, Some(player), None, Some(&stored))
            .await?;
        Ok(Some(MoveAnswer {
            created: true,
            record: MoveRecord::of(&record, &stored),
            game: state,
        }))
    }

    /// Whether `notation` names the stored move, in the position before it.
    async fn same_move(&self, record: &GameRecord, stored: &MoveRow, notation: &str) -> Result<bool> {
        if notation.trim() == stored.notation {
            return Ok(true);
        }
        let moves = self.store.moves(record.row.id, Some(stored.ply - 1)).await?;
        let before = replay(record, &moves)?;
        Ok(before
            .check(notation)
            .is_ok_and(|canonical| canonical == stored.notation))
    }

    pub async fn resign(&self, player: &Player, id: i64) -> Result<GameState> {
        self.offer_action(player, id, |record, seat, update, game| {
            let outcome = conceded_outcome(game, seat, "resignation");
            update.events.push(event("resigned", json!({ "seat": seat })));
            finish(record, update, outcome);
            Ok(None)
        })
        .await
    }

    /// `yes`: offer a draw, or accept every other seat's offer. `no`:
    /// decline (or withdraw) the pending offer.
    pub async fn draw(&self, player: &Player, id: i64, yes: bool) -> Result<GameState> {
        self.offer_action(player, id, |record, seat, update, _game| {
            let mine = seat.bit();
            if yes {
                if update.draw_offer & mine != 0 {
                    return Ok(None);
                }
                update.draw_offer |= mine;
                if update.draw_offer == all_seats(record) {
                    update.events.push(event("draw_agreed", json!({ "seat": seat })));
                    finish(record, update, json!({ "winners": [], "reason": "agreement" }));
                } else {
                    update.events.push(event("draw_offered", json!({ "seat": seat })));
                    offer_events(record, update, player_id_at(record, seat), "draw_offered", seat);
                }
            } else {
                if update.draw_offer == 0 {
                    return Err(Error::conflict("no_offer", "no draw is offered"));
                }
                update.draw_offer = 0;
                update.events.push(event("draw_declined", json!({ "seat": seat })));
            }
            Ok(None)
        })
        .await
    }

    /// `yes`: ask to take back the last move, or agree to it. `no`: refuse.
    pub async fn takeback(&self, player: &Player, id: i64, yes: bool) -> Result<GameState> {
        self.offer_action(player, id, |record, seat, update, _game| {
            let mine = seat.bit();
            if yes {
                if record.row.ply == 0 {
                    return Err(Error::conflict("no_move", "there is no move to take back"));
                }
                if update.takeback_offer & mine != 0 {
                    return Ok(None);
                }
                update.takeback_offer |= mine;
                if update.takeback_offer == all_seats(record) {
                    update.takeback_offer = 0;
                    update.draw_offer = 0;
                    update.ply = record.row.ply - 1;
                    update.delete_move = Some(record.row.ply);
                    update.events.push(event(
                        "takeback_accepted",
                        json!({ "seat": seat, "ply": record.row.ply }),
                    ));
                    return Ok(Some(update.ply));
                }
                update.events.push(event(
                    "takeback_offered",
                    json!({ "seat": seat, "ply": record.row.ply }),
                ));
                offer_events(record, update, player_id_at(record, seat), "takeback_offered", seat);
            } else {
                if update.takeback_offer == 0 {
                    return Err(Error::conflict("no_offer", "no takeback is asked for"));
                }
                update.takeback_offer = 0;
                update.events.push(event("takeback_declined", json!({ "seat": seat })));
            }
            Ok(None)
        })
        .await
    }

    /// Ends a game that has barely begun: while seats are open, or before
    /// every seat has moved once.
    pub async fn abort(&self, player: &Player, id: i64) -> Result<GameState> {
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            let seat = seat_of(&record, player.id)
                .ok_or_else(|| Error::forbidden("not_a_player", "you are not a player of this game"))?;
            let row = &record.row;
            let allowed = row.status == GameStatus::Open
                || (row.status == GameStatus::Active && row.ply < record.seats.len() as i64);
            if !allowed {
                return Err(if row.status == GameStatus::Active {
                    Error::conflict("too_late", "a game can be aborted only before every player has moved")
                } else {
                    Error::conflict("game_not_active", format!("game {id} is {}", row.status))
                });
            }
            let game = self.position(&mut hot, &record).await?;
            let mut update = update_from(&record);
            update.status = GameStatus::Aborted;
            update.to_move = None;
            update.draw_offer = 0;
            update.takeback_offer = 0;
            update
                .events
                .push(event("aborted", json!({ "seat": seat, "player": player.name })));
            update.player_events = seated_players(&record)
                .into_iter()
                .filter(|p| *p != player.id)
                .map(|player_id| PlayerEvent {
                    player_id,
                    kind: "game_over",
                    payload: json!({ "aborted": true }),
                })
                .collect();
            if self.commit(&mut hot, &record, update, game).await? {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
        }
        Err(Self::busy())
    }

    /// Shared by resign, draw and takeback: an active game, a seated player,
    /// a decision on the update. `decide` returns `Some(ply)` when the
    /// position goes back to `ply` (a takeback).
    async fn offer_action<F>(&self, player: &Player, id: i64, decide: F) -> Result<GameState>
    where
        F: Fn(&GameRecord, Seat, &mut GameUpdate, &AnyGame) -> Result<Option<i64>>,
    {
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            let seat = seat_of(&record, player.id)
                .ok_or_else(|| Error::forbidden("not_a_player", "you are not a player of this game"))?;
            if record.row.status != GameStatus::Active {
                return Err(Error::conflict(
                    "game_not_active",
                    format!("game {id} is {}", record.row.status),
                ));
            }
            let game = self.position(&mut hot, &record).await?;
            let mut update = update_from(&record);
            let back_to = decide(&record, seat, &mut update, &game)?;
            if update.events.is_empty() {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
            let game = match back_to {
                Some(ply) => {
                    let moves = self.store.moves(id, Some(ply)).await?;
                    let game = replay(&record, &moves)?;
                    update.to_move = game.to_move().map(Seat::from);
                    update.player_events = your_turn(&record, update.to_move, ply);
                    // The turn begins again for the player to move.
                    let restarted = ClockState::from_stored(record.row.clock.as_ref()).map(|mut state| {
                        state.turn_started_at = update.now;
                        state
                    });
                    let pauses = self.pauses_at(&record, update.to_move, None).await?;
                    self.schedule(&record, &mut update, restarted, &pauses);
                    game
                }
                None => game,
            };
            if self.commit(&mut hot, &record, update, game).await? {
                drop(hot);
                return self.state(Some(player), id, None).await;
            }
        }
        Err(Self::busy())
    }

    /// Writes a chat message into the game's log (kind `chat`, with room and
    /// author), committed like any other change of the game, and returns the
    /// stored event. The players' room is for seated players only; the
    /// spectators' room for anyone who may see the game.
    pub async fn chat(&self, player: &Player, id: i64, room: Room, text: &str) -> Result<EventRow> {
        let text = text.trim();
        if text.is_empty() {
            return Err(Error::unprocessable("empty_chat", "the message is empty"));
        }
        if text.chars().count() > MAX_CHAT_LEN {
            return Err(Error::unprocessable(
                "message_too_long",
                format!("a chat message is at most {MAX_CHAT_LEN} characters"),
            ));
        }
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            let seat = seat_of(&record, player.id);
            if room == Room::Players && seat.is_none() {
                return Err(Error::forbidden(
                    "not_a_player",
                    "only the players of this game write in the players' room",
                ));
            }
            let game = self.position(&mut hot, &record).await?;
            let mut update = update_from(&record);
            let payload = json!({ "room": room.as_str(), "player": player.name, "seat": seat, "text": text });
            update.events.push(event("chat", payload.clone()));
            let stored = EventRow {
                seq: update.expected_seq + 1,
                kind: "chat".to_owned(),
                payload,
                created_at: update.now,
            };
            if self.commit(&mut hot, &record, update, game).await? {
                return Ok(stored);
            }
        }
        Err(Self::busy())
    }

    /// The game as `viewer` sees it, now or after move `at_ply`.
    pub async fn state(&self, viewer: Option<&Player>, id: i64, at_ply: Option<i64>) -> Result<GameState> {
        let (record, game) = self.current(viewer, id).await?;
        match at_ply {
            Some(ply) if ply != record.row.ply => {
                let past = self.at_ply(&record, ply).await?;
                self.render(&record, &past, viewer, Some(ply)).await
            }
            _ => self.render(&record, &game, viewer, None).await,
        }
    }

    async fn current(&self, viewer: Option<&Player>, id: i64) -> Result<(GameRecord, AnyGame)> {
        let slot = self.slot(id);
        let mut hot = slot.lock().await;
        let record = self.load_visible(id, viewer).await?;
        let game = self.position(&mut hot, &record).await?;
        Ok((record, game))
    }

    async fn at_ply(&self, record: &GameRecord, ply: i64) -> Result<AnyGame> {
        if ply < 0 || ply > record.row.ply {
            return Err(Error::unprocessable(
                "bad_ply",
                format!("ply must be between 0 and {}", record.row.ply),
            ));
        }
        let moves = self.store.moves(record.row.id, Some(ply)).await?;
        replay(record, &moves)
    }

    async fn render(
        &self,
        record: &GameRecord,
        game: &AnyGame,
        viewer: Option<&Player>,
        at_ply: Option<i64>,
    ) -> Result<GameState> {
        let ply = i64::from(game.ply());
        let last_move = if ply > 0 {
            self.store.move_at(record.row.id, ply).await?
        } else {
            None
        };
        self.render_with(record, game, viewer, at_ply, last_move.as_ref()).await
    }

    /// [`Games::render`] when the move that made `game` is known.
    async fn render_with(
        &self,
        record: &GameRecord,
        game: &AnyGame,
        viewer: Option<&Player>,
        at_ply: Option<i64>,
        last_move: Option<&MoveRow>,
    ) -> Result<GameState> {
        let mut state = GameState::build(record, game, viewer, last_move, at_ply)?;
        state.clock = self.clock_view(record).await?;
        Ok(state)
    }

    /// The position for a board: now or at `at_ply`, with the view before
    /// the last move shown.
    pub async fn snapshot(&self, viewer: Option<&Player>, id: i64, at_ply: Option<i64>) -> Result<Snapshot> {
        let (record, current) = self.current(viewer, id).await?;
        let ply = at_ply.unwrap_or(record.row.ply);
        let game = if ply == record.row.ply {
            current
        } else {
            self.at_ply(&record, ply).await?
        };
        let (previous, last_move) = if ply > 0 {
            let before = self.at_ply(&record, ply - 1).await?;
            (Some(before.view()), self.store.move_at(id, ply).await?)
        } else {
            (None, None)
        };
        Ok(Snapshot {
            view: game.view(),
            record,
            game,
            previous,
            last_move,
        })
    }

    pub async fn history(&self, viewer: Option<&Player>, id: i64) -> Result<(GameRecord, Vec<MoveRow>)> {
        let record = self.load_visible(id, viewer).await?;
        let moves = self.store.moves(id, None).await?;
        Ok((record, moves))
    }

    pub async fn events(&self, viewer: Option<&Player>, id: i64, after: i64, limit: i64) -> Result<Vec<EventRow>> {
        self.load_visible(id, viewer).await?;
        Ok(self.store.game_events(id, after, limit).await?)
    }

    pub async fn list(&self, filter: &GameFilter) -> Result<Vec<GameSummary>> {
        let records = self.store.list_games(filter).await?;
        records.iter().map(GameSummary::of).collect()
    }
}

fn player_id_at(record: &GameRecord, seat: Seat) -> i64 {
    player_at(record, Some(seat)).unwrap_or_default()
}

/// Tells the other seated players about an offer.
fn offer_events(record: &GameRecord, update: &mut GameUpdate, from: i64, kind: &'static str, seat: Seat) {
    for player_id in seated_players(record).into_iter().filter(|p| *p != from) {
        update.player_events.push(PlayerEvent {
            player_id,
            kind,
            payload: json!({ "seat": seat }),
        });
    }
}

fn finish(record: &GameRecord, update: &mut GameUpdate, outcome: Value) {
    update.status = GameStatus::Finished;
    update.to_move = None;
    update.draw_offer = 0;
    update.takeback_offer = 0;
    update.events.push(event("finished", outcome.clone()));
    update.player_events = game_over_events(record, &outcome);
    update.outcome = Some(outcome);
}

fn unknown_game(slug: &str) -> String {
    let known: Vec<&str> = catalogue::GAMES.iter().map(|g| g.slug).collect();
    format!(
        "unknown game {:?}; games are {}",
        slug.chars().take(40).collect::<String>(),
        known.join(", ")
    )
}

/// Rebuilds a stored game from its moves. A stored move the rules refuse
/// means the rules changed under a stored game: an internal error.
fn replay(record: &GameRecord, moves: &[MoveRow]) -> Result<AnyGame> {
    let notations: Vec<&str> = moves.iter().map(|m| m.notation.as_str()).collect();
    AnyGame::replay(&record.row.game, Some(&record.row.variant), &notations)
        .map_err(|e| Error::internal(format!("game {} cannot be replayed: {e}", record.row.id)))
}
