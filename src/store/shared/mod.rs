//! The stores' traits, implemented once for every [`Backend`]: both
//! databases run these statements as they are (numbered `$n` parameters
//! work in both). Statements bind their values with `.arg`, decode their
//! rows with `.rows()` (or `.scalars()`) and run on `db()`: `binding.rs`
//! states once what every statement binds and every row it reads, so a
//! backend whose driver lacks one fails to compile rather than to run.
//! Games are read here and written through the backend's group-commit
//! writer.

mod bots;
mod mail;
mod ratings;
mod sessions;
mod tournaments;

use async_trait::async_trait;
use sqlx::query::Query;
use sqlx::{Database, Executor};
use tokio::sync::mpsc;

use super::announce::Announcement;
use super::backend::{Affected, Backend};
use super::binding::{Select, SharedSql, Statement};
use super::rows::{SeatRecord, SEATS_OF_GAME};
use super::{
    latest_at, sql, ClockStore, CommitStats, CreatorStanding, Credentials, DeadlineChange, EventRow, GameAt,
    GameFilter, GameRecord, GameRow, GameStore, GameUpdate, History, HistoryError, MoveEventRow, MoveRow, NewGame,
    NewPlayer, NewVacation, NotReached, Player, PlayerChange, PlayerStore, Reminder, SeatRow, StoreError, StoreHealth,
    StoreResult,
};
use super::{DeliveryRow, NotifySettings, NotifyStore, Outbox, Settlement, Waiting};
use crate::domain::GameStatus;

#[async_trait]
impl<B: Backend> StoreHealth for B {
    fn backend(&self) -> &'static str {
        self.core().name
    }

    async fn ping(&self) -> StoreResult<()> {
        self.db().execute("SELECT 1").await?;
        Ok(())
    }
}

/// Runs one write on its own, in this process's turn to write: how many
/// rows it changed. The error is sqlx's, for the caller to read (a unique
/// violation means something else in an insert than in a delete).
async fn written<'q, B: Backend>(
    backend: &B,
    write: Query<'q, B::DB, <B::DB as Database>::Arguments<'q>>,
) -> Result<u64, sqlx::Error> {
    let _turn = backend.write_turn().await;
    Ok(write.execute(backend.db()).await?.rows_affected())
}

/// Runs a guarded write of one row on its own: `true` when the guard let it
/// through (it changed the row), `false` when another write came first.
async fn changed_one<'q, B: Backend>(
    backend: &B,
    write: Query<'q, B::DB, <B::DB as Database>::Arguments<'q>>,
) -> StoreResult<bool> {
    Ok(written(backend, write).await? == 1)
}

#[async_trait]
impl<B: Backend> PlayerStore for B {
    async fn create_player(&self, player: NewPlayer) -> StoreResult<Player> {
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin().await?;
        let created: Player = sqlx::query(
            "INSERT INTO players (name, name_key, email, password_hash, created_at, bot) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, name, email, created_at, bot",
        )
        .arg(player.name.as_str())
        .arg(player.name_key.as_str())
        .arg(player.email.as_deref())
        .arg(player.password_hash.as_str())
        .arg(player.now)
        .arg(player.bot)
        .rows()
        .fetch_one(B::DB::connected(&mut *tx))
        .await
        .map_err(StoreError::from_write)?;
        // The player's event stream, numbered from 1.
        sqlx::query("INSERT INTO player_streams (player_id) VALUES ($1)")
            .arg(created.id)
            .execute(B::DB::connected(&mut *tx))
            .await
            .map_err(StoreError::from_write)?;
        tx.commit().await.map_err(StoreError::from_write)?;
        Ok(created)
    }

    async fn credentials(&self, name_key: &str) -> StoreResult<Option<Credentials>> {
        Ok(
            sqlx::query("SELECT id, name, email, created_at, bot, password_hash FROM players WHERE name_key = $1")
                .arg(name_key)
                .rows()
                .fetch_optional(self.db())
                .await?,
        )
    }

    async fn player_by_name(&self, name_key: &str) -> StoreResult<Option<Player>> {
        if let Some(player) = self.direct_reads().and_then(|d| d.player_by_name(name_key)) {
            return Ok(player);
        }
        Ok(sqlx::query(sql::PLAYER_BY_NAME)
            .arg(name_key)
            .rows()
            .fetch_optional(self.db())
            .await?)
    }

    async fn player_by_id(&self, id: i64) -> StoreResult<Option<Player>> {
        Ok(sqlx::query(sql::PLAYER_BY_ID)
            .arg(id)
            .rows()
            .fetch_optional(self.db())
            .await?)
    }

    async fn update_player(&self, change: PlayerChange) -> StoreResult<Option<Player>> {
        let PlayerChange {
            id,
            email,
            password,
            settings,
            bot,
        } = change;
        let webhook_set = settings.webhook.is_some();
        let (webhook_url, webhook_secret) = settings.webhook.unwrap_or_default();
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin().await?;
        // A field is written when its flag (for the nullable ones) or its
        // value (for the others) is there. The bot flag changes only while
        // the player has never taken a seat: otherwise nothing is written.
        let changed: Option<Player> = sqlx::query(
            "UPDATE players SET \
             email = CASE WHEN $2 THEN $3 ELSE email END, \
             password_hash = COALESCE($4, password_hash), \
             notify = COALESCE($5, notify), \
             webhook_url = CASE WHEN $6 THEN $7 ELSE webhook_url END, \
             webhook_secret = CASE WHEN $6 THEN $8 ELSE webhook_secret END, \
             digest = COALESCE($9, digest), \
             bot = COALESCE($10, bot) \
             WHERE id = $1 AND ($10 IS NULL OR bot = $10 \
             OR NOT EXISTS (SELECT 1 FROM seats WHERE player_id = $1)) \
             RETURNING id, name, email, created_at, bot",
        )
        .arg(id)
        .arg(email.is_some())
        .arg(email.as_ref().and_then(|e| e.as_deref()))
        .arg(password.as_ref().map(|p| p.hash.as_str()))
        .arg(settings.notify)
        .arg(webhook_set)
        .arg(webhook_url.as_deref())
        .arg(webhook_secret.as_deref())
        .arg(settings.digest)
        .arg(bot)
        .rows()
        .fetch_optional(B::DB::connected(&mut *tx))
        .await?;
        if changed.is_none() && bot.is_some() {
            drop(tx);
            let exists: Option<Player> = sqlx::query(sql::PLAYER_BY_ID)
                .arg(id)
                .rows()
                .fetch_optional(self.db())
                .await?;
            return match exists {
                Some(_) => Err(StoreError::Played),
                None => Ok(None),
            };
        }
        if let Some(password) = &password {
            // Whoever else held a session may have known the old one.
            sqlx::query("DELETE FROM tokens WHERE player_id = $1 AND token_hash <> $2")
                .arg(id)
                .arg(password.kept_token.as_str())
                .execute(B::DB::connected(&mut *tx))
                .await?;
        }
        tx.commit().await?;
        Ok(changed)
    }

    async fn player_events(&self, player_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>> {
        let sql = "SELECT seq, kind, payload, created_at FROM player_events \
                   WHERE player_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";
        event_page(self.pool(), sql, player_id, after, limit).await
    }

    async fn player_event_seq(&self, player_id: i64) -> StoreResult<i64> {
        let seq: Option<i64> = sqlx::query("SELECT event_seq FROM player_streams WHERE player_id = $1")
            .arg(player_id)
            .scalars()
            .fetch_optional(self.db())
            .await?;
        Ok(seq.unwrap_or(0))
    }
}

/// A game's `move` events up to an event number (`$1` game, `$2` last
/// event), in order.
const MOVE_EVENTS: &str = "SELECT seq, payload, created_at FROM game_events \
     WHERE game_id = $1 AND seq <= $2 AND kind = 'move' ORDER BY seq";

/// A game's latest `move` events up to an event number (`$3` of them),
/// newest first.
const LATEST_MOVE_EVENTS: &str = "SELECT seq, payload, created_at FROM game_events \
     WHERE game_id = $1 AND seq <= $2 AND kind = 'move' ORDER BY seq DESC LIMIT $3";

/// How many of a game's latest `move` events a look-up of one move reads
/// before it reads the whole log: the move asked is nearly always the last
/// one (a game's state, a retry), else one of the few taken back since.
const LATEST_MOVES_READ: i64 = 4;

#[async_trait]
impl<B: Backend> GameStore for B {
    async fn game(&self, id: i64) -> StoreResult<Option<GameRecord>> {
        if let Some(record) = self.direct_reads().and_then(|d| d.game(id)) {
            return Ok(record);
        }
        let row: Option<GameRow> = sqlx::query(sql::GAME_BY_ID)
            .arg(id)
            .rows()
            .fetch_optional(self.db())
            .await?;
        let Some(row) = row else { return Ok(None) };
        let seats = seats(self.pool(), id).await?;
        Ok(Some(GameRecord { row, seats }))
    }

    async fn creator_standing(&self, creator: i64, game: &str, variant: &str) -> StoreResult<CreatorStanding> {
        // One statement for all three: a game's creation asks for them
        // every time, and each statement is a round trip (PostgreSQL) or a
        // reader's page cache read again (SQLite).
        if let Some(standing) = self
            .direct_reads()
            .and_then(|d| d.creator_standing(creator, game, variant))
        {
            return Ok(standing);
        }
        let (open_games, open_invitations, rating, rd): (i64, i64, Option<f64>, Option<f64>) =
            sqlx::query(sql::CREATOR_STANDING)
                .arg(creator)
                .arg(game)
                .arg(variant)
                .rows()
                .fetch_one(self.db())
                .await?;
        Ok(CreatorStanding {
            open_games,
            open_invitations,
            rating: rating.zip(rd),
        })
    }

    async fn list_games(&self, filter: &GameFilter) -> StoreResult<Vec<GameRecord>> {
        let query = format!(
            "{} WHERE \
             (g.public OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                 AND (s.player_id = $1 OR s.invitee_id = $1))) \
             AND ($2 IS NULL OR g.status = $2) \
             AND ($3 IS NULL OR g.game = $3) \
             AND ($4 IS NULL OR EXISTS (SELECT 1 FROM seats s WHERE s.game_id = g.id \
                 AND (s.player_id = $4 OR s.invitee_id = $4))) \
             AND ($5 IS NULL OR (g.status = 'active' AND EXISTS (SELECT 1 FROM seats s \
                 WHERE s.game_id = g.id AND s.seat = g.to_move AND s.player_id = $5))) \
             AND ($6 IS NULL OR g.id < $6) \
             ORDER BY g.id DESC LIMIT $7",
            sql::GAME
        );
        let rows: Vec<GameRow> = sqlx::query(&query)
            .arg(filter.viewer)
            .arg(filter.status.map(GameStatus::as_str))
            .arg(filter.game.as_deref())
            .arg(filter.player)
            .arg(filter.turn_of)
            .arg(filter.before)
            .arg(filter.limit)
            .rows()
            .fetch_all(self.db())
            .await?;
        let mut games = Vec::with_capacity(rows.len());
        for row in rows {
            let seats = seats(self.pool(), row.id).await?;
            games.push(GameRecord { row, seats });
        }
        Ok(games)
    }

    async fn moves(&self, game: &GameRecord, upto: Option<i64>) -> StoreResult<Vec<MoveRow>> {
        let at = GameAt::of(game);
        if at.ply == 0 {
            return Ok(Vec::new());
        }
        let events: Vec<MoveEventRow> = sqlx::query(MOVE_EVENTS)
            .arg(at.id)
            .arg(game.row.event_seq)
            .rows()
            .fetch_all(self.db())
            .await?;
        let mut history = History::of(at);
        for event in events {
            history.push(event).map_err(bad_history)?;
        }
        history.standing(upto).map_err(bad_history)
    }

    async fn move_at(&self, game: &GameRecord, ply: i64) -> StoreResult<Option<MoveRow>> {
        let at = GameAt::of(game);
        if ply < 1 || ply > at.ply {
            return Ok(None);
        }
        let latest: Vec<MoveEventRow> = sqlx::query(LATEST_MOVE_EVENTS)
            .arg(at.id)
            .arg(game.row.event_seq)
            .arg(LATEST_MOVES_READ)
            .rows()
            .fetch_all(self.db())
            .await?;
        match latest_at(at, ply, latest) {
            Ok(found) => Ok(found),
            Err(NotReached::Bad(e)) => Err(bad_history(e)),
            Err(NotReached::Beyond) => Ok(self.moves(game, Some(ply)).await?.pop()),
        }
    }

    async fn create_game(&self, game: NewGame) -> StoreResult<i64> {
        self.commits().create(game).await
    }

    async fn update_game(&self, update: GameUpdate) -> StoreResult<()> {
        self.commits().update(update).await
    }

    fn commit_stats(&self) -> CommitStats {
        self.commits().stats()
    }

    async fn game_events(&self, game_id: i64, after: i64, limit: i64) -> StoreResult<Vec<EventRow>> {
        let sql = "SELECT seq, kind, payload, created_at FROM game_events \
                   WHERE game_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";
        event_page(self.pool(), sql, game_id, after, limit).await
    }

    fn announcements(&self) -> Option<mpsc::Receiver<Vec<Announcement>>> {
        Backend::announcements(self)
    }
}

/// A game's log that does not read as its history: the database is wrong.
fn bad_history(error: HistoryError) -> StoreError {
    StoreError::BadRow(sqlx::Error::Decode(Box::new(error)))
}

/// A page of one event log: `sql` selects an owner's events after a
/// sequence number (`$1` owner, `$2` after, `$3` limit), in order.
async fn event_page<DB>(
    pool: &sqlx::Pool<DB>,
    sql: &'static str,
    owner: i64,
    after: i64,
    limit: i64,
) -> StoreResult<Vec<EventRow>>
where
    DB: SharedSql,
{
    Ok(sqlx::query(sql)
        .arg(owner)
        .arg(after)
        .arg(limit)
        .rows()
        .fetch_all(DB::pooled(pool))
        .await?)
}

/// The seats of a game, in order.
async fn seats<DB>(pool: &sqlx::Pool<DB>, game_id: i64) -> StoreResult<Vec<SeatRow>>
where
    DB: SharedSql,
{
    let rows: Vec<SeatRecord> = sqlx::query(SEATS_OF_GAME)
        .arg(game_id)
        .rows()
        .fetch_all(DB::pooled(pool))
        .await?;
    rows.into_iter().map(SeatRow::try_from).collect()
}

#[async_trait]
impl<B: Backend> ClockStore for B {
    async fn due_deadlines(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>> {
        Ok(sqlx::query(
            "SELECT id FROM games WHERE deadline IS NOT NULL AND deadline <= $1 AND status = 'active' \
             ORDER BY deadline LIMIT $2",
        )
        .arg(now)
        .arg(limit)
        .scalars()
        .fetch_all(self.db())
        .await?)
    }

    async fn due_reminders(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>> {
        Ok(sqlx::query(
            "SELECT id FROM games WHERE reminder_at IS NOT NULL AND reminder_at <= $1 \
             AND status = 'active' ORDER BY reminder_at LIMIT $2",
        )
        .arg(now)
        .arg(limit)
        .scalars()
        .fetch_all(self.db())
        .await?)
    }

    async fn send_reminder(&self, reminder: Reminder) -> StoreResult<bool> {
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin().await?;
        // Like `update_game`: the conditional write is the claim. A second
        // process blocks on the row (or SQLite's write lock) and then finds
        // no reminder pending.
        let claimed = sqlx::query(
            "UPDATE games SET reminder_at = NULL WHERE id = $1 AND event_seq = $2 \
             AND reminder_at IS NOT NULL AND status = 'active'",
        )
        .arg(reminder.game_id)
        .arg(reminder.expected_seq)
        .execute(B::DB::connected(&mut *tx))
        .await?
        .rows_affected();
        if claimed != 1 {
            return Ok(false);
        }
        let events = std::slice::from_ref(&reminder.event);
        sql::insert_player_events(&mut tx, reminder.game_id, events, reminder.now).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn set_deadline(&self, change: DeadlineChange) -> StoreResult<bool> {
        let guarded = sqlx::query(
            "UPDATE games SET deadline = $1, reminder_at = $2 WHERE id = $3 AND event_seq = $4 \
             AND status = 'active'",
        )
        .arg(change.deadline)
        .arg(change.reminder_at)
        .arg(change.game_id)
        .arg(change.expected_seq);
        changed_one(self, guarded).await
    }

    async fn vacations(&self, player_id: i64) -> StoreResult<Vec<(i64, i64)>> {
        Ok(
            sqlx::query("SELECT starts_at, ends_at FROM vacations WHERE player_id = $1 ORDER BY starts_at")
                .arg(player_id)
                .rows()
                .fetch_all(self.db())
                .await?,
        )
    }

    async fn add_vacation(&self, vacation: NewVacation) -> StoreResult<()> {
        let insert = sqlx::query("INSERT INTO vacations (player_id, starts_at, ends_at) VALUES ($1, $2, $3)")
            .arg(vacation.player_id)
            .arg(vacation.starts_at)
            .arg(vacation.ends_at);
        written(self, insert).await.map_err(StoreError::from_write)?;
        Ok(())
    }

    async fn end_vacations(&self, player_id: i64, now: i64) -> StoreResult<bool> {
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin().await?;
        let cancelled = sqlx::query("DELETE FROM vacations WHERE player_id = $1 AND starts_at >= $2")
            .arg(player_id)
            .arg(now)
            .execute(B::DB::connected(&mut *tx))
            .await?
            .rows_affected();
        // Cut short, not removed: the clocks stood still until now.
        let ended = sqlx::query("UPDATE vacations SET ends_at = $2 WHERE player_id = $1 AND ends_at > $2")
            .arg(player_id)
            .arg(now)
            .execute(B::DB::connected(&mut *tx))
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(cancelled + ended > 0)
    }

    async fn games_to_move(&self, player_id: i64) -> StoreResult<Vec<i64>> {
        Ok(sqlx::query(
            "SELECT g.id FROM games g JOIN seats s ON s.game_id = g.id AND s.seat = g.to_move \
             WHERE g.status = 'active' AND s.player_id = $1 ORDER BY g.id",
        )
        .arg(player_id)
        .scalars()
        .fetch_all(self.db())
        .await?)
    }
}

const DELIVERY: &str = "SELECT id, player_id, event_seq, channel, kind, status, attempts, next_attempt_at, \
     last_error, created_at, updated_at FROM deliveries";

#[async_trait]
impl<B: Backend + PlayerStore> NotifyStore for B {
    async fn notify_settings(&self, player_id: i64) -> StoreResult<NotifySettings> {
        let settings = sqlx::query("SELECT notify, webhook_url, webhook_secret, digest FROM players WHERE id = $1")
            .arg(player_id)
            .rows()
            .fetch_optional(self.db())
            .await?;
        Ok(settings.unwrap_or_default())
    }

    async fn outbox(&self, limit: i64) -> StoreResult<Vec<Waiting>> {
        Ok(sqlx::query(
            "SELECT s.player_id, s.notify_seq AS cursor, s.event_seq, p.email, p.notify, p.webhook_url, \
             p.webhook_secret, p.digest FROM player_streams s JOIN players p ON p.id = s.player_id \
             WHERE s.event_seq > s.notify_seq ORDER BY s.player_id LIMIT $1",
        )
        .arg(limit)
        .rows()
        .fetch_all(self.db())
        .await?)
    }

    async fn enqueue(&self, outboxes: Vec<Outbox>, now: i64) -> StoreResult<usize> {
        // In the game writer's next transaction (see `Change`).
        self.commits().notify(outboxes, now).await
    }

    async fn due_deliveries(&self, now: i64, limit: i64) -> StoreResult<Vec<DeliveryRow>> {
        let query = format!(
            "{DELIVERY} WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at, id LIMIT $2"
        );
        Ok(sqlx::query(&query)
            .arg(now)
            .arg(limit)
            .rows()
            .fetch_all(self.db())
            .await?)
    }

    async fn claim_delivery(&self, row: &DeliveryRow, lease_until: i64, now: i64) -> StoreResult<bool> {
        let claim = sqlx::query(
            "UPDATE deliveries SET next_attempt_at = $1, attempts = attempts + 1, updated_at = $2 \
             WHERE id = $3 AND status = 'pending' AND attempts = $4 AND next_attempt_at = $5",
        )
        .arg(lease_until)
        .arg(now)
        .arg(row.id)
        .arg(row.attempts)
        .arg(row.next_attempt_at);
        changed_one(self, claim).await
    }

    async fn settle_delivery(&self, settlement: Settlement) -> StoreResult<()> {
        let settle = sqlx::query(
            "UPDATE deliveries SET status = $1, next_attempt_at = $2, \
             last_error = COALESCE($3, last_error), updated_at = $4 WHERE id = $5",
        )
        .arg(settlement.status)
        .arg(settlement.next_attempt_at)
        .arg(settlement.error.as_deref())
        .arg(settlement.now)
        .arg(settlement.id);
        written(self, settle).await?;
        Ok(())
    }

    async fn deliveries(&self, player_id: i64, before: Option<i64>, limit: i64) -> StoreResult<Vec<DeliveryRow>> {
        let query = format!("{DELIVERY} WHERE player_id = $1 AND ($2 IS NULL OR id < $2) ORDER BY id DESC LIMIT $3");
        Ok(sqlx::query(&query)
            .arg(player_id)
            .arg(before)
            .arg(limit)
            .rows()
            .fetch_all(self.db())
            .await?)
    }

    async fn player_event(&self, player_id: i64, seq: i64) -> StoreResult<Option<EventRow>> {
        Ok(self
            .player_events(player_id, seq - 1, 1)
            .await?
            .into_iter()
            .find(|e| e.seq == seq))
    }
}
