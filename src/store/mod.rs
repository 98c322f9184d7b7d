//! Storage: the store's traits, one per aggregate ([`PlayerStore`],
//! [`GameStore`], [`ClockStore`], [`ConditionalStore`], [`NotifyStore`],
//! [`RatingStore`], [`MailStore`], [`TournamentStore`], [`BotStore`], [`SessionStore`], together
//! [`Store`]), over two backends
//! (SQLite, PostgreSQL) chosen once at start-up from the database URL.
//!
//! Both databases run the same SQL (numbered `$n` parameters work in both),
//! so the traits are implemented once, in `shared/`, for every
//! [`Backend`](backend::Backend), whose database binds every type the
//! statements take (`binding.rs`), with bounds naming the rows they read;
//! rows come through `sqlx::FromRow` into the models of
//! `model/` (`rows.rs` where a row is not already a model). What differs
//! between the backends lives in their own modules, in plain code: `sqlite/`
//! (connection options, migrations, one writer at a time, the rusqlite
//! group-commit writer in `sqlite/writer.rs`) and `postgres/` (pool,
//! migrations, the group-commit writer with its array statements, the
//! announcements). Games are written only by the group-commit writers
//! (`group_commit.rs`), from the statements of `sql.rs`.
//!
//! Promises: a change of a game commits whole or not at all, and only over
//! the state it was decided on; a stored row that breaks the schema's
//! promises is a [`StoreError::BadRow`], never a panic.

pub mod announce;
mod backend;
mod binding;
pub mod bots;
mod clocks;
mod conditionals;
mod error;
mod games;
mod group_commit;
mod mail;
mod model;
pub mod notify;
mod players;
mod postgres;
mod ratings;
mod rows;
mod sessions;
mod shared;
mod sql;
mod sqlite;
mod tournaments;

use std::sync::Arc;

use async_trait::async_trait;

pub use bots::BotStore;
pub use clocks::ClockStore;
pub use conditionals::ConditionalStore;
pub use error::{StoreError, StoreResult};
pub use games::{CreatorStanding, GameStore};
pub use group_commit::CommitStats;
pub use mail::MailStore;
pub use model::{latest_at, GameAt, History, HistoryError, MoveEventRow, MovePayload, NotReached};
pub use model::{
    BadTournamentKind, EntrantChange, EntrantRow, Entry, NewPairing, NewTournament, PairingRow, TournamentFilter,
    TournamentFormat, TournamentRecord, TournamentRow, TournamentSettings, TournamentStatus, TournamentStep,
};
pub use model::{
    BotRow, ConditionalRow, ConditionalTrees, ConditionalWrite, Credentials, DeadlineChange, DeliveryRow, Event,
    EventRow, GameFilter, GameRecord, GameRow, GameUpdate, InboxRow, MailSettlement, MoveRow, NewBot, NewConditional,
    NewDelivery, NewGame, NewMail, NewPassword, NewPlayer, NewToken, NewVacation, NotifySettings, Outbox, PlayedGame,
    Player, PlayerChange, PlayerEvent, PlayerResult, RatedGame, RatingChange, RatingPoint, RatingRow, RatingValues,
    Reminder, SeatRow, SessionRow, SettingsUpdate, Settlement, TokenSession, Waiting,
};
pub use notify::NotifyStore;
pub use players::PlayerStore;
pub use postgres::PgStore;
pub use ratings::{LeaderboardPage, RatingStore};
pub use sessions::SessionStore;
pub use sqlite::SqliteStore;
pub use tournaments::TournamentStore;

/// Everything the service stores, on one backend: each backend says it is
/// one (`impl Store for SqliteStore {}`), which checks that the shared
/// implementations cover it.
pub trait Store:
    PlayerStore
    + GameStore
    + ClockStore
    + ConditionalStore
    + NotifyStore
    + RatingStore
    + MailStore
    + TournamentStore
    + BotStore
    + SessionStore
    + StoreHealth
    + Send
    + Sync
    + 'static
{
}

/// Which backend a store is on, and whether it answers.
#[async_trait]
pub trait StoreHealth {
    /// Which backend, for logs and metrics.
    fn backend(&self) -> &'static str;
    async fn ping(&self) -> StoreResult<()>;
}

/// Connects to the database the URL names (`sqlite:…` or `postgres://…`),
/// creating a SQLite file if missing, and applies the migrations.
pub async fn connect(url: &str) -> StoreResult<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::connect(url).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::connect(url).await?))
    } else {
        Err(StoreError::UnknownDatabase)
    }
}
