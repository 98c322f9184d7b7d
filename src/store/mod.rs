//! Storage: one trait, one implementation per backend (SQLite, PostgreSQL),
//! chosen once at start-up from the database URL.
//!
//! Both backends run the same SQL (numbered `$n` parameters work in both), so
//! the reads and small writes live once in [`impl_store!`], which each
//! backend module instantiates with its own pool type, connection options and
//! migrations. Games are written by each backend's group-commit writer
//! (`sqlite/writer.rs` on a thread of its own through rusqlite,
//! `postgres.rs` through sqlx), from the statements of [`sql`].

pub mod announce;
mod group_commit;
pub mod notify;
mod postgres;
mod sql;
mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::domain::{GameStatus, Seat};

pub use group_commit::CommitStats;
pub use notify::{DeliveryRow, NewDelivery, NotifySettings, NotifyStore, Outbox, SettingsUpdate, Waiting};
pub use postgres::PgStore;
pub use sqlite::SqliteStore;

/// A registered player as others may see them (plus email for themselves).
#[derive(Clone, Debug)]
pub struct Player {
    pub id: i64,
    pub name: String,
    pub email: Option<String>,
    pub created_at: i64,
}

/// A change of a player's account (`PATCH /players/me`), written at once;
/// `None` fields stay as they are.
#[derive(Clone, Debug)]
pub struct AccountUpdate {
    pub player_id: i64,
    /// `Some(None)` removes the email.
    pub email: Option<Option<String>>,
    /// A new password hash: ends every session of the player but the one
    /// holding `kept_token`.
    pub password_hash: Option<String>,
    pub kept_token: String,
    pub settings: SettingsUpdate,
}

/// A game's own row.
#[derive(Clone, Debug)]
pub struct GameRow {
    pub id: i64,
    pub game: String,
    pub variant: String,
    pub status: GameStatus,
    pub public: bool,
    pub ply: i64,
    pub to_move: Option<Seat>,
    pub outcome: Option<Value>,
    pub draw_offer: i64,
    pub takeback_offer: i64,
    pub event_seq: i64,
    pub created_by: i64,
    pub created_at: i64,
    pub updated_at: i64,
    /// The time control as created (`None`: no clock); see [`crate::clock`].
    pub time_control: Option<Value>,
    /// The stored [`crate::clock::ClockState`].
    pub clock: Option<Value>,
    /// When the player to move loses on time.
    pub deadline: Option<i64>,
    /// When the player to move is reminded.
    pub reminder_at: Option<i64>,
}

/// A seat: who sits there, or who it is reserved for.
#[derive(Clone, Debug)]
pub struct SeatRow {
    pub seat: Seat,
    pub player: Option<(i64, String)>,
    pub invitee: Option<(i64, String)>,
}

/// A game with its seats.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
}

/// A stored move.
#[derive(Clone, Debug)]
pub struct MoveRow {
    pub ply: i64,
    pub seat: Seat,
    pub player_id: i64,
    pub player_name: String,
    pub notation: String,
    pub effect: Option<String>,
    pub message: Option<String>,
    pub created_at: i64,
}

/// A move to store.
#[derive(Clone, Debug)]
pub struct NewMove {
    pub ply: i64,
    pub seat: Seat,
    pub player_id: i64,
    pub notation: String,
    pub effect: Option<String>,
    pub message: Option<String>,
}

/// An event of a game's log; numbered by the store.
#[derive(Clone, Debug)]
pub struct Event {
    pub kind: &'static str,
    pub payload: Value,
}

/// An event of a player's own stream; numbered by the store.
#[derive(Clone, Debug)]
pub struct PlayerEvent {
    pub player_id: i64,
    pub kind: &'static str,
    pub payload: Value,
}

impl PlayerEvent {
    /// The payload as stored: naming the game it came from.
    pub fn payload_in(&self, game_id: i64) -> Value {
        let mut payload = self.payload.clone();
        if let Value::Object(map) = &mut payload {
            map.insert("game".to_owned(), Value::from(game_id));
        }
        payload
    }
}

/// A stored event, of either log.
#[derive(Clone, Debug)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub payload: Value,
    pub created_at: i64,
}

/// A new game, its seats, and the events of its creation.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub game: String,
    pub variant: String,
    pub public: bool,
    pub created_by: i64,
    pub time_control: Option<Value>,
    /// `(player, invitee)` per seat, seat 0 first.
    pub seats: Vec<(Option<i64>, Option<i64>)>,
    pub now: i64,
    pub events: Vec<Event>,
    /// Each gets `"game": <id>` added to its payload.
    pub player_events: Vec<PlayerEvent>,
}

/// One change of a game, applied in one transaction if and only if the game
/// is still at `expected_seq` (nobody changed it meanwhile, in this process or
/// another).
#[derive(Clone, Debug)]
pub struct GameUpdate {
    pub id: i64,
    pub expected_seq: i64,
    pub status: GameStatus,
    pub ply: i64,
    pub to_move: Option<Seat>,
    pub outcome: Option<Value>,
    pub draw_offer: i64,
    pub takeback_offer: i64,
    pub now: i64,
    /// `(seat, player)`: a player takes an open seat.
    pub sit: Vec<(Seat, i64)>,
    pub insert_move: Option<NewMove>,
    /// A move taken back.
    pub delete_move: Option<i64>,
    pub events: Vec<Event>,
    pub player_events: Vec<PlayerEvent>,
    pub clock: Option<Value>,
    pub deadline: Option<i64>,
    pub reminder_at: Option<i64>,
}

impl GameRow {
    /// The row as `update` leaves it, once committed.
    pub fn apply(&mut self, update: &GameUpdate) {
        self.status = update.status;
        self.ply = update.ply;
        self.to_move = update.to_move;
        self.outcome.clone_from(&update.outcome);
        self.draw_offer = update.draw_offer;
        self.takeback_offer = update.takeback_offer;
        self.event_seq = update.expected_seq + update.events.len() as i64;
        self.updated_at = update.now;
        self.clock.clone_from(&update.clock);
        self.deadline = update.deadline;
        self.reminder_at = update.reminder_at;
    }
}

/// Serialises this process's write transactions on SQLite, which has one
/// writer at a time: waiting here is a wake-up the moment the other writer
/// is done, where SQLite's busy handler would sleep in steps of up to
/// 100 ms, holding up a whole batch of moves behind, say, a game's creation.
/// PostgreSQL locks rows, and its gate is always open.
#[derive(Clone, Default)]
pub struct WriteGate(Option<Arc<tokio::sync::Mutex<()>>>);

impl WriteGate {
    pub fn one_writer() -> WriteGate {
        WriteGate(Some(Arc::default()))
    }

    pub fn open() -> WriteGate {
        WriteGate(None)
    }

    pub async fn enter(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        match &self.0 {
            Some(gate) => Some(gate.lock().await),
            None => None,
        }
    }

    /// [`WriteGate::enter`] for a thread outside the runtime.
    pub fn blocking_enter(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        self.0.as_ref().map(|gate| gate.blocking_lock())
    }
}

/// What `GET /games` asks for.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// Who is asking: private games are listed only to their players.
    pub viewer: Option<i64>,
    pub status: Option<GameStatus>,
    pub game: Option<String>,
    /// Games where this player sits or is invited.
    pub player: Option<i64>,
    /// Active games waiting for this player's move.
    pub turn_of: Option<i64>,
    /// Cursor: only games with a smaller id.
    pub before: Option<i64>,
    pub limit: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The game changed since it was read: reload and decide again.
    #[error("the game changed meanwhile")]
    Conflict,
    /// A unique constraint refused the write.
    #[error("unique constraint violated")]
    Unique,
    #[error(transparent)]
    Db(#[from] sqlx::Error),
    /// SQLite's game writer failed; shared by every change of the batch
    /// that failed with it.
    #[error("the SQLite writer failed: {0}")]
    Writer(Arc<rusqlite::Error>),
}

impl StoreError {
    fn from_write(error: sqlx::Error) -> StoreError {
        match error.as_database_error() {
            Some(e) if e.is_unique_violation() => StoreError::Unique,
            _ => StoreError::Db(error),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A stored value that names no status or seat: the database holds what
/// this server never writes.
fn decode<T, E: std::error::Error + Send + Sync + 'static>(value: Result<T, E>) -> Result<T, sqlx::Error> {
    value.map_err(|e| sqlx::Error::Decode(Box::new(e)))
}

#[async_trait]
pub trait Store: NotifyStore + Send + Sync + 'static {
    /// Which backend, for logs and metrics.
    fn backend(&self) -> &'static str;
    async fn ping(&self) -> StoreResult<()>;

    async fn create_player(
        &self,
        name: &str,
        name_key: &str,
        email: Option<&str>,
        password_hash: &str,
        now: i64,
    ) -> StoreResult<Player>;
    /// The player and their password hash.
    async fn credentials(&self, name_key: &str) -> StoreResult<Option<(Player, String)>>;
    async fn player_by_name(&self, name_key: &str) -> StoreResult<Option<Player>>;
    /// Applies a change of account and notification settings in one
    /// transaction and returns the player as changed (`None`: no such
    /// player, nothing written).
    async fn update_account(&self, update: AccountUpdate) -> StoreResult<Option<Player>>;
    async fn insert_token(&self, token_hash: &str, player_id: i64, now: i64) -> StoreResult<()>;
    async fn player_by_token(&self, token_hash: &str) -> StoreResult<Option<Player>>;
    /// Ends one session.
    async fn delete_token(&self, token_hash: &str) -> StoreResult<()>;
    /// Ends every session of a player.
    async fn delete_tokens(&self, player_id: i64) -> StoreResult<()>;

    async fn game(&self, id: i64) -> StoreResult<Option<GameRecord>>;
    async fn list_games(&self, filter: &GameFilter) -> StoreResult<Vec<GameRecord>>;
    /// Moves `1..=upto` (all when `None`), in order.
    async fn moves(&self, game_id: i64, upto: Option<i64>) -> StoreResult<Vec<MoveRow>>;
    async fn move_at(&self, game_id: i64, ply: i64) -> StoreResult<Option<MoveRow>>;
    /// Creates the game, its seats and events; returns its id.
    async fn create_game(&self, game: NewGame) -> StoreResult<i64>;
    /// Applies a change atomically; [`StoreError::Conflict`] or
    /// [`StoreError::Unique`] when another writer got there first.
    async fn update_game(&self, update: GameUpdate) -> StoreResult<()>;
    /// How many transactions carried how many game updates (group commit).
    fn commit_stats(&self) -> CommitStats;
    async fn game_events(&self, game_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>>;
    async fn player_events(&self, player_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>>;

    /// Active games whose deadline is at or before `now`, earliest first.
    async fn due_deadlines(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>>;
    /// Active games whose reminder is due at `now`, earliest first.
    async fn due_reminders(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>>;
    /// Clears the game's pending reminder if the game is still at
    /// `expected_seq` and stores `event` in the same transaction. `false`
    /// when the game moved on or another process sent it first: a reminder
    /// is sent once per move.
    async fn send_reminder(&self, game_id: i64, expected_seq: i64, event: PlayerEvent, now: i64) -> StoreResult<bool>;
    /// Moves the deadline and reminder of a game still at `expected_seq`
    /// (after a vacation was declared); `false` if it changed meanwhile.
    async fn set_deadline(
        &self,
        game_id: i64,
        expected_seq: i64,
        deadline: Option<i64>,
        reminder_at: Option<i64>,
    ) -> StoreResult<bool>;
    /// The player's vacations as `(starts_at, ends_at)`, oldest first.
    async fn vacations(&self, player_id: i64) -> StoreResult<Vec<(i64, i64)>>;
    async fn add_vacation(&self, player_id: i64, starts_at: i64, ends_at: i64) -> StoreResult<()>;
    /// Ends the player's current vacation at `now` and cancels the ones to
    /// come; `false` when there was none of either.
    async fn end_vacations(&self, player_id: i64, now: i64) -> StoreResult<bool>;
    /// Active games where `player_id` is to move.
    async fn games_to_move(&self, player_id: i64) -> StoreResult<Vec<i64>>;
    /// The number of the player's last event (0 when none).
    async fn player_event_seq(&self, player_id: i64) -> StoreResult<i64>;

    /// What the database announces was committed, by any process sharing
    /// it, from a connection of its own: `None` where the backend cannot
    /// tell (SQLite). Announcements made while that connection is down are
    /// lost.
    fn announcements(&self) -> Option<tokio::sync::mpsc::Receiver<Vec<announce::Announcement>>>;
}

/// Connects to the database the URL names (`sqlite:…` or `postgres://…`),
/// creating a SQLite file if missing, and applies the migrations.
pub async fn connect(url: &str) -> Result<Arc<dyn Store>, sqlx::Error> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::connect(url).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::connect(url).await?))
    } else {
        Err(sqlx::Error::Configuration(
            "DATABASE_URL must start with sqlite: or postgres://".into(),
        ))
    }
}

/// The statements, shared by both backends. `$pool` is the backend's pool
/// type; `$db` its `sqlx::Database`.
macro_rules! impl_store {
    ($store:ident, $db:ty, $backend:literal) => {
        use async_trait::async_trait;
        use sqlx::Row;

        use crate::domain::{GameStatus, Seat};

        use super::{
            decode, EventRow, GameFilter, GameRecord, GameRow, GameUpdate, MoveRow, NewGame, Player, SeatRow, Store,
            StoreError, StoreResult,
        };

        const PLAYER_COLUMNS: &str = "id, name, email, created_at";
        const GAME_COLUMNS: &str = "g.id, g.game, g.variant, g.status, g.public, g.ply, g.to_move, g.outcome, \
             g.draw_offer, g.takeback_offer, g.event_seq, g.created_by, g.created_at, g.updated_at, \
             g.time_control, g.clock, g.deadline, g.reminder_at";
        const MOVE_COLUMNS: &str = "m.ply, m.seat, m.player_id, p.name, m.notation, m.effect, m.message, m.created_at";

        type DbRow = <$db as sqlx::Database>::Row;

        fn player(row: &DbRow) -> Result<Player, sqlx::Error> {
            Ok(Player {
                id: row.try_get(0)?,
                name: row.try_get(1)?,
                email: row.try_get(2)?,
                created_at: row.try_get(3)?,
            })
        }

        fn game_row(row: &DbRow) -> Result<GameRow, sqlx::Error> {
            Ok(GameRow {
                id: row.try_get(0)?,
                game: row.try_get(1)?,
                variant: row.try_get(2)?,
                status: decode(row.try_get::<String, _>(3)?.parse::<GameStatus>())?,
                public: row.try_get(4)?,
                ply: row.try_get(5)?,
                to_move: row
                    .try_get::<Option<i64>, _>(6)?
                    .map(|s| decode(Seat::try_from(s)))
                    .transpose()?,
                outcome: row.try_get(7)?,
                draw_offer: row.try_get(8)?,
                takeback_offer: row.try_get(9)?,
                event_seq: row.try_get(10)?,
                created_by: row.try_get(11)?,
                created_at: row.try_get(12)?,
                updated_at: row.try_get(13)?,
                time_control: row.try_get(14)?,
                clock: row.try_get(15)?,
                deadline: row.try_get(16)?,
                reminder_at: row.try_get(17)?,
            })
        }

        fn move_row(row: &DbRow) -> Result<MoveRow, sqlx::Error> {
            Ok(MoveRow {
                ply: row.try_get(0)?,
                seat: decode(Seat::try_from(row.try_get::<i64, _>(1)?))?,
                player_id: row.try_get(2)?,
                player_name: row.try_get(3)?,
                notation: row.try_get(4)?,
                effect: row.try_get(5)?,
                message: row.try_get(6)?,
                created_at: row.try_get(7)?,
            })
        }

        fn event_row(row: &DbRow) -> Result<EventRow, sqlx::Error> {
            Ok(EventRow {
                seq: row.try_get(0)?,
                kind: row.try_get(1)?,
                payload: row.try_get(2)?,
                created_at: row.try_get(3)?,
            })
        }

        impl $store {
            async fn seats(&self, game_id: i64) -> Result<Vec<SeatRow>, sqlx::Error> {
                let rows = sqlx::query(
                    "SELECT s.seat, s.player_id, p.name, s.invitee_id, i.name FROM seats s \
                     LEFT JOIN players p ON p.id = s.player_id \
                     LEFT JOIN players i ON i.id = s.invitee_id \
                     WHERE s.game_id = $1 ORDER BY s.seat",
                )
                .bind(game_id)
                .fetch_all(&self.pool)
                .await?;
                rows.iter()
                    .map(|row| {
                        let player: Option<i64> = row.try_get(1)?;
                        let invitee: Option<i64> = row.try_get(3)?;
                        Ok(SeatRow {
                            seat: decode(Seat::try_from(row.try_get::<i64, _>(0)?))?,
                            player: match player {
                                Some(id) => Some((id, row.try_get(2)?)),
                                None => None,
                            },
                            invitee: match invitee {
                                Some(id) => Some((id, row.try_get(4)?)),
                                None => None,
                            },
                        })
                    })
                    .collect()
            }

            /// Numbers and stores player events inside `tx`. Players are
            /// locked in id order so two transactions cannot deadlock.
            async fn insert_player_events(
                tx: &mut sqlx::Transaction<'_, $db>,
                game_id: i64,
                events: &[super::PlayerEvent],
                now: i64,
            ) -> Result<(), sqlx::Error> {
                let mut events: Vec<&super::PlayerEvent> = events.iter().collect();
                events.sort_by_key(|e| e.player_id);
                for event in events {
                    let seq: i64 = sqlx::query_scalar(super::sql::NEXT_PLAYER_EVENT)
                        .bind(event.player_id)
                        .fetch_one(&mut **tx)
                        .await?;
                    sqlx::query(super::sql::INSERT_PLAYER_EVENT)
                        .bind(event.player_id)
                        .bind(seq)
                        .bind(event.kind)
                        .bind(event.payload_in(game_id))
                        .bind(now)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }
        }

        #[async_trait]
        impl Store for $store {
            fn announcements(&self) -> Option<tokio::sync::mpsc::Receiver<Vec<super::announce::Announcement>>> {
                self.announcement_feed()
            }

            fn backend(&self) -> &'static str {
                $backend
            }

            async fn ping(&self) -> StoreResult<()> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn create_player(
                &self,
                name: &str,
                name_key: &str,
                email: Option<&str>,
                password_hash: &str,
                now: i64,
            ) -> StoreResult<Player> {
                let _gate = self.gate.enter().await;
                let row = sqlx::query(&format!(
                    "INSERT INTO players (name, name_key, email, password_hash, created_at) \
                     VALUES ($1, $2, $3, $4, $5) RETURNING {PLAYER_COLUMNS}"
                ))
                .bind(name)
                .bind(name_key)
                .bind(email)
                .bind(password_hash)
                .bind(now)
                .fetch_one(&self.pool)
                .await
                .map_err(StoreError::from_write)?;
                Ok(player(&row)?)
            }

            async fn credentials(&self, name_key: &str) -> StoreResult<Option<(Player, String)>> {
                let row = sqlx::query(&format!(
                    "SELECT {PLAYER_COLUMNS}, password_hash FROM players WHERE name_key = $1"
                ))
                .bind(name_key)
                .fetch_optional(&self.pool)
                .await?;
                match row {
                    Some(row) => Ok(Some((player(&row)?, row.try_get(4)?))),
                    None => Ok(None),
                }
            }

            async fn player_by_name(&self, name_key: &str) -> StoreResult<Option<Player>> {
                let row = sqlx::query(&format!(
                    "SELECT {PLAYER_COLUMNS} FROM players WHERE name_key = $1"
                ))
                .bind(name_key)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.as_ref().map(player).transpose()?)
            }

            async fn update_account(&self, update: super::AccountUpdate) -> StoreResult<Option<Player>> {
                let super::AccountUpdate {
                    player_id,
                    email,
                    password_hash,
                    kept_token,
                    settings,
                } = update;
                let webhook_set = settings.webhook.is_some();
                let (webhook_url, webhook_secret) = settings.webhook.unwrap_or_default();
                let _gate = self.gate.enter().await;
                let mut tx = self.pool.begin().await?;
                // A field is written when its flag (for the nullable ones)
                // or its value (for the others) is there.
                let row = sqlx::query(&format!(
                    "UPDATE players SET \
                     email = CASE WHEN $2 THEN $3 ELSE email END, \
                     password_hash = COALESCE($4, password_hash), \
                     notify = COALESCE($5, notify), \
                     webhook_url = CASE WHEN $6 THEN $7 ELSE webhook_url END, \
                     webhook_secret = CASE WHEN $6 THEN $8 ELSE webhook_secret END, \
                     digest = COALESCE($9, digest) \
                     WHERE id = $1 RETURNING {PLAYER_COLUMNS}"
                ))
                .bind(player_id)
                .bind(email.is_some())
                .bind(email.flatten())
                .bind(password_hash.as_deref())
                .bind(settings.notify)
                .bind(webhook_set)
                .bind(webhook_url)
                .bind(webhook_secret)
                .bind(settings.digest)
                .fetch_optional(&mut *tx)
                .await?;
                if password_hash.is_some() {
                    // Whoever else held a session may have known the old one.
                    sqlx::query("DELETE FROM tokens WHERE player_id = $1 AND token_hash <> $2")
                        .bind(player_id)
                        .bind(kept_token)
                        .execute(&mut *tx)
                        .await?;
                }
                let changed = row.as_ref().map(player).transpose()?;
                tx.commit().await?;
                Ok(changed)
            }

            async fn insert_token(&self, token_hash: &str, player_id: i64, now: i64) -> StoreResult<()> {
                let _gate = self.gate.enter().await;
                sqlx::query("INSERT INTO tokens (token_hash, player_id, created_at) VALUES ($1, $2, $3)")
                    .bind(token_hash)
                    .bind(player_id)
                    .bind(now)
                    .execute(&self.pool)
                    .await
                    .map_err(StoreError::from_write)?;
                Ok(())
            }

            async fn delete_token(&self, token_hash: &str) -> StoreResult<()> {
                let _gate = self.gate.enter().await;
                sqlx::query("DELETE FROM tokens WHERE token_hash = $1")
                    .bind(token_hash)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn delete_tokens(&self, player_id: i64) -> StoreResult<()> {
                let _gate = self.gate.enter().await;
                sqlx::query("DELETE FROM tokens WHERE player_id = $1")
                    .bind(player_id)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn player_by_token(&self, token_hash: &str) -> StoreResult<Option<Player>> {
                let row = sqlx::query(
                    "SELECT p.id, p.name, p.email, p.created_at FROM tokens t \
                     JOIN players p ON p.id = t.player_id WHERE t.token_hash = $1",
                )
                .bind(token_hash)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.as_ref().map(player).transpose()?)
            }

            async fn game(&self, id: i64) -> StoreResult<Option<GameRecord>> {
                let row = sqlx::query(&format!("SELECT {GAME_COLUMNS} FROM games g WHERE g.id = $1"))
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?;
                let Some(row) = row else { return Ok(None) };
                let row = game_row(&row)?;
                let seats = self.seats(id).await?;
                Ok(Some(GameRecord { row, seats }))
            }

            async fn list_games(&self, filter: &GameFilter) -> StoreResult<Vec<GameRecord>> {
                let rows = sqlx::query(&format!(
                    "SELECT {GAME_COLUMNS} FROM games g WHERE \
                     (g.public OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                         AND (s.player_id = $1 OR s.invitee_id = $1))) \
                     AND ($2 IS NULL OR g.status = $2) \
                     AND ($3 IS NULL OR g.game = $3) \
                     AND ($4 IS NULL OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                         AND (s.player_id = $4 OR s.invitee_id = $4))) \
                     AND ($5 IS NULL OR (g.status = 'active' AND EXISTS (SELECT 1 FROM seats s \
                         WHERE s.game_id = g.id AND s.seat = g.to_move AND s.player_id = $5))) \
                     AND ($6 IS NULL OR g.id < $6) \
                     ORDER BY g.id DESC LIMIT $7"
                ))
                .bind(filter.viewer)
                .bind(filter.status.map(GameStatus::as_str))
                .bind(filter.game.as_deref())
                .bind(filter.player)
                .bind(filter.turn_of)
                .bind(filter.before)
                .bind(filter.limit)
                .fetch_all(&self.pool)
                .await?;
                let mut games = Vec::with_capacity(rows.len());
                for row in &rows {
                    let row = game_row(row)?;
                    let seats = self.seats(row.id).await?;
                    games.push(GameRecord { row, seats });
                }
                Ok(games)
            }

            async fn moves(&self, game_id: i64, upto: Option<i64>) -> StoreResult<Vec<MoveRow>> {
                let rows = sqlx::query(&format!(
                    "SELECT {MOVE_COLUMNS} FROM moves m JOIN players p ON p.id = m.player_id \
                     WHERE m.game_id = $1 AND ($2 IS NULL OR m.ply <= $2) ORDER BY m.ply"
                ))
                .bind(game_id)
                .bind(upto)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.iter().map(move_row).collect::<Result<_, _>>()?)
            }

            async fn move_at(&self, game_id: i64, ply: i64) -> StoreResult<Option<MoveRow>> {
                let row = sqlx::query(&format!(
                    "SELECT {MOVE_COLUMNS} FROM moves m JOIN players p ON p.id = m.player_id \
                     WHERE m.game_id = $1 AND m.ply = $2"
                ))
                .bind(game_id)
                .bind(ply)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.as_ref().map(move_row).transpose()?)
            }

            async fn create_game(&self, game: NewGame) -> StoreResult<i64> {
                self.commits.create(game).await
            }

            async fn update_game(&self, update: GameUpdate) -> StoreResult<()> {
                self.commits.update(update).await
            }

            fn commit_stats(&self) -> super::CommitStats {
                self.commits.stats()
            }

            async fn game_events(&self, game_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>> {
                let rows = sqlx::query(
                    "SELECT seq, kind, payload, created_at FROM game_events \
                     WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                )
                .bind(game_id)
                .bind(after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.iter().map(event_row).collect::<Result<_, _>>()?)
            }

            async fn player_event_seq(&self, player_id: i64) -> StoreResult<i64> {
                let seq: Option<i64> = sqlx::query_scalar("SELECT event_seq FROM players WHERE id = $1")
                    .bind(player_id)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(seq.unwrap_or(0))
            }

            async fn player_events(&self, player_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>> {
                let rows = sqlx::query(
                    "SELECT seq, kind, payload, created_at FROM player_events \
                     WHERE player_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                )
                .bind(player_id)
                .bind(after)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.iter().map(event_row).collect::<Result<_, _>>()?)
            }

            async fn due_deadlines(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>> {
                Ok(sqlx::query_scalar(
                    "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1 AND status = 'active' \
                     ORDER BY deadline LIMIT $2",
                )
                .bind(now)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn due_reminders(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>> {
                Ok(sqlx::query_scalar(
                    "SELECT id FROM games WHERE reminder_at IS NOT NULL AND reminder_at <= $1 \
                     AND status = 'active' ORDER BY reminder_at LIMIT $2",
                )
                .bind(now)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn send_reminder(
                &self,
                game_id: i64,
                expected_seq: i64,
                event: super::PlayerEvent,
                now: i64,
            ) -> StoreResult<bool> {
                let _gate = self.gate.enter().await;
                let mut tx = self.pool.begin().await?;
                // Like `update_game`: the conditional write is the claim. A
                // second process blocks on the row (or SQLite's write lock)
                // and then finds no reminder pending.
                let claimed = sqlx::query(
                    "UPDATE games SET reminder_at = NULL WHERE id = $1 AND event_seq = $2 \
                     AND reminder_at IS NOT NULL AND status = 'active'",
                )
                .bind(game_id)
                .bind(expected_seq)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if claimed != 1 {
                    return Ok(false);
                }
                Self::insert_player_events(&mut tx, game_id, std::slice::from_ref(&event), now).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn set_deadline(
                &self,
                game_id: i64,
                expected_seq: i64,
                deadline: Option<i64>,
                reminder_at: Option<i64>,
            ) -> StoreResult<bool> {
                let _gate = self.gate.enter().await;
                let changed = sqlx::query(
                    "UPDATE games SET deadline = $1, reminder_at = $2 WHERE id = $3 AND event_seq = $4 \
                     AND status = 'active'",
                )
                .bind(deadline)
                .bind(reminder_at)
                .bind(game_id)
                .bind(expected_seq)
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(changed == 1)
            }

            async fn vacations(&self, player_id: i64) -> StoreResult<Vec<(i64, i64)>> {
                let rows =
                    sqlx::query("SELECT starts_at, ends_at FROM vacations WHERE player_id = $1 ORDER BY starts_at")
                        .bind(player_id)
                        .fetch_all(&self.pool)
                        .await?;
                Ok(rows
                    .iter()
                    .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
                    .collect::<Result<_, sqlx::Error>>()?)
            }

            async fn end_vacations(&self, player_id: i64, now: i64) -> StoreResult<bool> {
                let _gate = self.gate.enter().await;
                let mut tx = self.pool.begin().await?;
                let cancelled = sqlx::query("DELETE FROM vacations WHERE player_id = $1 AND starts_at >= $2")
                    .bind(player_id)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                // Cut short, not removed: the clocks stood still until now.
                let ended = sqlx::query("UPDATE vacations SET ends_at = $2 WHERE player_id = $1 AND ends_at > $2")
                    .bind(player_id)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                tx.commit().await?;
                Ok(cancelled + ended > 0)
            }

            async fn add_vacation(&self, player_id: i64, starts_at: i64, ends_at: i64) -> StoreResult<()> {
                let _gate = self.gate.enter().await;
                sqlx::query("INSERT INTO vacations (player_id, starts_at, ends_at) VALUES ($1, $2, $3)")
                    .bind(player_id)
                    .bind(starts_at)
                    .bind(ends_at)
                    .execute(&self.pool)
                    .await
                    .map_err(StoreError::from_write)?;
                Ok(())
            }

            async fn games_to_move(&self, player_id: i64) -> StoreResult<Vec<i64>> {
                Ok(sqlx::query_scalar(
                    "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id AND s.seat = g.to_move \
                     WHERE g.status = 'active' AND s.player_id = $1 ORDER BY g.id",
                )
                .bind(player_id)
                .fetch_all(&self.pool)
                .await?)
            }
        }
    };
}

use impl_store;
