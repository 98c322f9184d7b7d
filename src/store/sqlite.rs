//! The SQLite backend: the embedded default. WAL journal with
//! `synchronous = FULL` so a committed move survives a power cut, and a busy
//! timeout so concurrent writers wait for the single write lock.

use std::str::FromStr;
use std::time::Duration;

use std::collections::{HashMap, HashSet};

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{QueryBuilder, Sqlite, Transaction};

use super::group_commit::PlainRows;

pub struct SqliteStore {
    pool: SqlitePool,
    commits: super::group_commit::GroupCommit,
    gate: super::WriteGate,
}

impl SqliteStore {
    pub async fn connect(url: &str) -> Result<SqliteStore, sqlx::Error> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .busy_timeout(Duration::from_secs(10))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        let gate = super::WriteGate::one_writer();
        let commits = SqliteStore::group_commit(&pool, &gate);
        Ok(SqliteStore { pool, commits, gate })
    }
}

/// Runs a statement built with a [`QueryBuilder`] inside `tx`.
async fn execute(tx: &mut Transaction<'_, Sqlite>, mut statement: QueryBuilder<'_, Sqlite>) -> StoreResult<()> {
    statement
        .build()
        .execute(&mut **tx)
        .await
        .map_err(StoreError::from_write)?;
    Ok(())
}

impl SqliteStore {
    /// Writes plain updates (see [`super::group_commit::split_plain`]) with
    /// one statement per table, however many: the guarded update of the
    /// games first, then the rows of the updates it let through. Returns
    /// the ids of the games updated.
    async fn apply_plain(tx: &mut Transaction<'_, Sqlite>, batch: &[&GameUpdate]) -> StoreResult<HashSet<i64>> {
        if batch.is_empty() {
            return Ok(HashSet::new());
        }
        let mut games = QueryBuilder::<Sqlite>::new(
            "WITH v (id, expected, status, ply, to_move, outcome, draw_offer, takeback_offer, event_seq, \
             updated_at, clock, deadline, reminder_at) AS (",
        );
        games.push_values(batch, |mut row, u| {
            row.push_bind(u.id)
                .push_bind(u.expected_seq)
                .push_bind(&u.status)
                .push_bind(u.ply)
                .push_bind(u.to_move)
                .push_bind(&u.outcome)
                .push_bind(u.draw_offer)
                .push_bind(u.takeback_offer)
                .push_bind(u.expected_seq + u.events.len() as i64)
                .push_bind(u.now)
                .push_bind(&u.clock)
                .push_bind(u.deadline)
                .push_bind(u.reminder_at);
        });
        games.push(
            ") UPDATE games SET status = v.status, ply = v.ply, to_move = v.to_move, outcome = v.outcome, \
             draw_offer = v.draw_offer, takeback_offer = v.takeback_offer, event_seq = v.event_seq, \
             updated_at = v.updated_at, clock = v.clock, deadline = v.deadline, reminder_at = v.reminder_at \
             FROM v WHERE games.id = v.id AND games.event_seq = v.expected RETURNING games.id",
        );
        let applied: HashSet<i64> = games
            .build_query_scalar::<i64>()
            .fetch_all(&mut **tx)
            .await
            .map_err(StoreError::from_write)?
            .into_iter()
            .collect();
        let through: Vec<&GameUpdate> = batch.iter().copied().filter(|u| applied.contains(&u.id)).collect();
        let rows = PlainRows::of(&through);
        if !rows.moves.is_empty() {
            let mut insert = QueryBuilder::<Sqlite>::new(
                "INSERT INTO moves (game_id, ply, seat, player_id, notation, effect, message, created_at) ",
            );
            insert.push_values(&rows.moves, |mut row, (u, m)| {
                row.push_bind(u.id)
                    .push_bind(m.ply)
                    .push_bind(m.seat)
                    .push_bind(m.player_id)
                    .push_bind(&m.notation)
                    .push_bind(&m.effect)
                    .push_bind(&m.message)
                    .push_bind(u.now);
            });
            execute(tx, insert).await?;
        }
        if !rows.events.is_empty() {
            let mut insert =
                QueryBuilder::<Sqlite>::new("INSERT INTO game_events (game_id, seq, kind, payload, created_at) ");
            insert.push_values(&rows.events, |mut row, (u, seq, e)| {
                row.push_bind(u.id)
                    .push_bind(*seq)
                    .push_bind(e.kind)
                    .push_bind(&e.payload)
                    .push_bind(u.now);
            });
            execute(tx, insert).await?;
        }
        if !rows.shares.is_empty() {
            // Each player's stream is numbered by a counter on their row:
            // one statement moves every counter by its player's share.
            let mut counters = QueryBuilder::<Sqlite>::new("WITH c (id, n) AS (");
            counters.push_values(&rows.shares, |mut row, (id, n)| {
                row.push_bind(*id).push_bind(*n);
            });
            counters.push(
                ") UPDATE players SET event_seq = players.event_seq + c.n FROM c WHERE players.id = c.id \
                 RETURNING players.id, players.event_seq",
            );
            let counters: HashMap<i64, i64> = counters
                .build_query_as::<(i64, i64)>()
                .fetch_all(&mut **tx)
                .await?
                .into_iter()
                .collect();
            let numbered = rows.player_events(&through, &counters)?;
            let mut insert =
                QueryBuilder::<Sqlite>::new("INSERT INTO player_events (player_id, seq, kind, payload, created_at) ");
            insert.push_values(&numbered, |mut row, e| {
                row.push_bind(e.player_id)
                    .push_bind(e.seq)
                    .push_bind(e.kind)
                    .push_bind(&e.payload)
                    .push_bind(e.created_at);
            });
            execute(tx, insert).await?;
        }
        Ok(applied)
    }
}

super::impl_store!(SqliteStore, sqlx::Sqlite, "sqlite");
super::notify::impl_notify_store!(SqliteStore, sqlx::Sqlite);
