//! The PostgreSQL backend, through a connection pool.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use std::collections::{HashMap, HashSet};

use serde_json::Value;
use sqlx::postgres::{PgListener, PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};

use super::announce::{self, Announcement};
use super::group_commit::{Change, Done, GroupCommit};
use super::sql;

mod plain;
use plain::{split_plain, PlainRows};

pub struct PgStore {
    pool: PgPool,
    commits: GroupCommit,
    gate: super::WriteGate,
    /// The server process id of the writer's connection (0 before it
    /// connects): the announcements of its commits, which this process
    /// published itself, are not relayed back.
    writer_backend: Arc<AtomicU32>,
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<PgStore, sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let gate = super::WriteGate::open();
        let writer_backend = Arc::new(AtomicU32::new(0));
        let commits = PgStore::group_commit(&pool, writer_backend.clone()).map_err(sqlx::Error::Io)?;
        Ok(PgStore {
            pool,
            commits,
            gate,
            writer_backend,
        })
    }
}

impl PgStore {
    /// Writes plain updates (see [`plain::split_plain`]) with
    /// one statement per table, however many: the guarded update of the
    /// games first, then the rows of the updates it let through. Returns
    /// the ids of the games updated. The rows travel as arrays, so each
    /// statement's text is the same whatever the batch's size, and it is
    /// parsed and planned once per connection.
    async fn apply_plain(tx: &mut Transaction<'_, Postgres>, batch: &[&GameUpdate]) -> StoreResult<HashSet<i64>> {
        if batch.is_empty() {
            return Ok(HashSet::new());
        }
        let column = |f: fn(&GameUpdate) -> i64| batch.iter().map(|u| f(u)).collect::<Vec<i64>>();
        let applied: HashSet<i64> = sqlx::query_scalar::<_, i64>(
            "UPDATE games SET status = v.status, ply = v.ply, to_move = v.to_move, outcome = v.outcome, \
             draw_offer = v.draw_offer, takeback_offer = v.takeback_offer, event_seq = v.event_seq, \
             updated_at = v.updated_at, clock = v.clock, deadline = v.deadline, reminder_at = v.reminder_at \
             FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::jsonb[], \
             $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::jsonb[], $12::bigint[], $13::bigint[]) \
             AS v (id, expected, status, ply, to_move, outcome, draw_offer, takeback_offer, event_seq, updated_at, \
             clock, deadline, reminder_at) \
             WHERE games.id = v.id AND games.event_seq = v.expected RETURNING games.id",
        )
        .bind(column(|u| u.id))
        .bind(column(|u| u.expected_seq))
        .bind(batch.iter().map(|u| u.status.as_str()).collect::<Vec<&str>>())
        .bind(column(|u| u.ply))
        .bind(
            batch
                .iter()
                .map(|u| u.to_move.map(i64::from))
                .collect::<Vec<Option<i64>>>(),
        )
        .bind(batch.iter().map(|u| u.outcome.clone()).collect::<Vec<Option<Value>>>())
        .bind(column(|u| u.draw_offer))
        .bind(column(|u| u.takeback_offer))
        .bind(column(|u| u.expected_seq + u.events.len() as i64))
        .bind(column(|u| u.now))
        .bind(batch.iter().map(|u| u.clock.clone()).collect::<Vec<Option<Value>>>())
        .bind(batch.iter().map(|u| u.deadline).collect::<Vec<Option<i64>>>())
        .bind(batch.iter().map(|u| u.reminder_at).collect::<Vec<Option<i64>>>())
        .fetch_all(&mut **tx)
        .await
        .map_err(StoreError::from_write)?
        .into_iter()
        .collect();
        let through: Vec<&GameUpdate> = batch.iter().copied().filter(|u| applied.contains(&u.id)).collect();
        let rows = PlainRows::of(&through);
        if !rows.moves.is_empty() {
            let moves = &rows.moves;
            sqlx::query(
                "INSERT INTO moves (game_id, ply, seat, player_id, notation, effect, message, created_at) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], \
                 $6::text[], $7::text[], $8::bigint[])",
            )
            .bind(moves.iter().map(|(u, _)| u.id).collect::<Vec<i64>>())
            .bind(moves.iter().map(|(_, m)| m.ply).collect::<Vec<i64>>())
            .bind(moves.iter().map(|(_, m)| i64::from(m.seat)).collect::<Vec<i64>>())
            .bind(moves.iter().map(|(_, m)| m.player_id).collect::<Vec<i64>>())
            .bind(moves.iter().map(|(_, m)| m.notation.as_str()).collect::<Vec<&str>>())
            .bind(
                moves
                    .iter()
                    .map(|(_, m)| m.effect.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            )
            .bind(
                moves
                    .iter()
                    .map(|(_, m)| m.message.as_deref())
                    .collect::<Vec<Option<&str>>>(),
            )
            .bind(moves.iter().map(|(u, _)| u.now).collect::<Vec<i64>>())
            .execute(&mut **tx)
            .await
            .map_err(StoreError::from_write)?;
        }
        if !rows.events.is_empty() {
            let events = &rows.events;
            sqlx::query(
                "INSERT INTO game_events (game_id, seq, kind, payload, created_at) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::jsonb[], $5::bigint[])",
            )
            .bind(events.iter().map(|(u, _, _)| u.id).collect::<Vec<i64>>())
            .bind(events.iter().map(|(_, seq, _)| *seq).collect::<Vec<i64>>())
            .bind(events.iter().map(|(_, _, e)| e.kind).collect::<Vec<&str>>())
            .bind(events.iter().map(|(_, _, e)| e.payload.clone()).collect::<Vec<Value>>())
            .bind(events.iter().map(|(u, _, _)| u.now).collect::<Vec<i64>>())
            .execute(&mut **tx)
            .await
            .map_err(StoreError::from_write)?;
        }
        if !rows.shares.is_empty() {
            // Each player's stream is numbered by a counter on their row:
            // one statement moves every counter by its player's share.
            let counters: HashMap<i64, i64> = sqlx::query_as::<_, (i64, i64)>(
                "UPDATE players SET event_seq = players.event_seq + c.n \
                 FROM UNNEST($1::bigint[], $2::bigint[]) AS c (id, n) WHERE players.id = c.id \
                 RETURNING players.id, players.event_seq",
            )
            .bind(rows.shares.keys().copied().collect::<Vec<i64>>())
            .bind(rows.shares.values().copied().collect::<Vec<i64>>())
            .fetch_all(&mut **tx)
            .await?
            .into_iter()
            .collect();
            let numbered = rows.player_events(&through, &counters)?;
            sqlx::query(
                "INSERT INTO player_events (player_id, seq, kind, payload, created_at) \
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::jsonb[], $5::bigint[])",
            )
            .bind(numbered.iter().map(|e| e.player_id).collect::<Vec<i64>>())
            .bind(numbered.iter().map(|e| e.seq).collect::<Vec<i64>>())
            .bind(numbered.iter().map(|e| e.kind).collect::<Vec<&str>>())
            .bind(numbered.iter().map(|e| e.payload.clone()).collect::<Vec<Value>>())
            .bind(numbered.iter().map(|e| e.created_at).collect::<Vec<i64>>())
            .execute(&mut **tx)
            .await
            .map_err(StoreError::from_write)?;
        }
        Ok(applied)
    }
}

impl PgStore {
    /// Writes `update` inside `tx`. `Ok(false)` when its guard
    /// refused it (the game is no longer at `expected_seq`) before
    /// anything was written, so the transaction may go on with other
    /// updates; any other failure leaves `tx` fit only for rollback.
    async fn apply_update(tx: &mut Transaction<'_, Postgres>, update: &GameUpdate) -> StoreResult<bool> {
        let new_seq = update.expected_seq + update.events.len() as i64;
        // The first statement locks the row: a concurrent writer that
        // got there first leaves no row matching `event_seq`.
        let changed = sqlx::query(sql::UPDATE_GAME)
            .bind(update.status.as_str())
            .bind(update.ply)
            .bind(update.to_move.map(i64::from))
            .bind(&update.outcome)
            .bind(update.draw_offer)
            .bind(update.takeback_offer)
            .bind(new_seq)
            .bind(update.now)
            .bind(&update.clock)
            .bind(update.deadline)
            .bind(update.reminder_at)
            .bind(update.id)
            .bind(update.expected_seq)
            .execute(&mut **tx)
            .await
            .map_err(StoreError::from_write)?
            .rows_affected();
        if changed != 1 {
            return Ok(false);
        }
        for (seat, player) in &update.sit {
            let sat = sqlx::query(sql::SIT)
                .bind(*player)
                .bind(update.id)
                .bind(i64::from(*seat))
                .execute(&mut **tx)
                .await
                .map_err(StoreError::from_write)?
                .rows_affected();
            if sat != 1 {
                return Err(StoreError::Conflict);
            }
        }
        if let Some(ply) = update.delete_move {
            sqlx::query(sql::DELETE_MOVE)
                .bind(update.id)
                .bind(ply)
                .execute(&mut **tx)
                .await?;
        }
        if let Some(m) = &update.insert_move {
            sqlx::query(sql::INSERT_MOVE)
                .bind(update.id)
                .bind(m.ply)
                .bind(i64::from(m.seat))
                .bind(m.player_id)
                .bind(&m.notation)
                .bind(&m.effect)
                .bind(&m.message)
                .bind(update.now)
                .execute(&mut **tx)
                .await
                .map_err(StoreError::from_write)?;
        }
        Self::insert_game_events(tx, update.id, update.expected_seq + 1, &update.events, update.now)
            .await
            .map_err(StoreError::from_write)?;
        Self::insert_player_events(tx, update.id, &update.player_events, update.now).await?;
        Ok(true)
    }

    /// Commits a batch of updates, together when it can. Returns one
    /// final result per update, in order, and how many transactions
    /// it took.
    async fn commit_batch(
        pool: &PgPool,
        writer: &mut Option<sqlx::PgConnection>,
        backend: &AtomicU32,
        batch: Vec<Change>,
    ) -> (Vec<StoreResult<Done>>, u64) {
        match Self::commit_together(pool, writer, backend, &batch).await {
            Ok(results) => return (results, 1),
            // Rare: a constraint or the database refused the
            // transaction. Alone, each update meets its own fate.
            Err(error) => {
                tracing::warn!(%error, updates = batch.len(), "group commit failed; committing one by one");
                // The connection may be what failed: the next batch
                // opens another.
                *writer = None;
            }
        }
        let mut results = Vec::with_capacity(batch.len());
        for change in &batch {
            results.push(Self::commit_alone(pool, change).await);
        }
        (results, batch.len() as u64)
    }

    /// Writes a batch in one transaction on the writer's own
    /// connection, kept across batches: its prepared statements stay
    /// warm.
    async fn commit_together(
        pool: &PgPool,
        writer: &mut Option<sqlx::PgConnection>,
        backend: &AtomicU32,
        batch: &[Change],
    ) -> StoreResult<Vec<StoreResult<Done>>> {
        use sqlx::{ConnectOptions, Connection};
        let connection = match writer {
            Some(connection) => connection,
            None => {
                let mut connection = pool.connect_options().connect().await?;
                let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
                    .fetch_one(&mut connection)
                    .await?;
                backend.store(pid.unsigned_abs(), Ordering::Relaxed);
                writer.insert(connection)
            }
        };
        let mut tx = connection.begin().await?;
        let (plain, rest) = split_plain(batch);
        let mut results: Vec<StoreResult<Done>> = batch.iter().map(|_| Err(StoreError::Conflict)).collect();
        let plain_updates: Vec<&GameUpdate> = plain
            .iter()
            .filter_map(|&i| match &batch[i] {
                Change::Update(update) => Some(update),
                Change::Create(_) | Change::Notify(..) => None,
            })
            .collect();
        let applied = Self::apply_plain(&mut tx, &plain_updates).await?;
        for (&i, update) in plain.iter().zip(&plain_updates) {
            if applied.contains(&update.id) {
                results[i] = Ok(Done::Updated);
            }
        }
        for i in rest {
            if let Some(done) = Self::apply_change(&mut tx, &batch[i]).await? {
                results[i] = Ok(done);
            }
        }
        tx.commit().await?;
        Ok(results)
    }

    async fn commit_alone(pool: &PgPool, change: &Change) -> StoreResult<Done> {
        let mut tx = pool.begin().await?;
        let done = Self::apply_change(&mut tx, change).await?.ok_or(StoreError::Conflict)?;
        tx.commit().await?;
        Ok(done)
    }

    /// Writes one change inside `tx`; `None` when its guard refused it.
    async fn apply_change(tx: &mut Transaction<'_, Postgres>, change: &Change) -> StoreResult<Option<Done>> {
        Ok(match change {
            Change::Create(game) => Some(Done::Created(Self::apply_create(tx, game).await?)),
            Change::Update(update) => Self::apply_update(tx, update).await?.then_some(Done::Updated),
            Change::Notify(outboxes, now) => Some(Done::Notified(Self::apply_notify(tx, outboxes, *now).await?)),
        })
    }

    async fn insert_game_events(
        tx: &mut Transaction<'_, Postgres>,
        game_id: i64,
        first_seq: i64,
        events: &[super::Event],
        now: i64,
    ) -> Result<(), sqlx::Error> {
        for (seq, event) in (first_seq..).zip(events) {
            sqlx::query(sql::INSERT_GAME_EVENT)
                .bind(game_id)
                .bind(seq)
                .bind(event.kind)
                .bind(&event.payload)
                .bind(now)
                .execute(&mut **tx)
                .await?;
        }
        Ok(())
    }
    /// Moves players' notification cursors and creates their deliveries
    /// inside `tx`; how many cursors moved.
    async fn apply_notify(
        tx: &mut Transaction<'_, Postgres>,
        outboxes: &[super::Outbox],
        now: i64,
    ) -> StoreResult<usize> {
        let mut moved = 0;
        for outbox in outboxes {
            let cursor = sqlx::query(sql::MOVE_NOTIFY_CURSOR)
                .bind(outbox.to)
                .bind(outbox.player_id)
                .bind(outbox.from)
                .execute(&mut **tx)
                .await?;
            if cursor.rows_affected() != 1 {
                continue;
            }
            moved += 1;
            for d in &outbox.deliveries {
                sqlx::query(sql::INSERT_DELIVERY)
                    .bind(outbox.player_id)
                    .bind(d.event_seq)
                    .bind(d.channel)
                    .bind(&d.kind)
                    .bind(d.due_at)
                    .bind(now)
                    .execute(&mut **tx)
                    .await
                    .map_err(StoreError::from_write)?;
            }
        }
        Ok(moved)
    }

    /// Writes a new game inside `tx`; its id.
    async fn apply_create(tx: &mut Transaction<'_, Postgres>, game: &NewGame) -> StoreResult<i64> {
        let full = game.seats.iter().all(|(player, _)| player.is_some());
        let status = if full { "active" } else { "open" };
        let to_move: Option<i64> = if full { Some(0) } else { None };
        let events = game.events.len() as i64;
        let id: i64 = sqlx::query_scalar(sql::INSERT_GAME)
            .bind(&game.game)
            .bind(&game.variant)
            .bind(status)
            .bind(game.public)
            .bind(to_move)
            .bind(events)
            .bind(game.created_by)
            .bind(game.now)
            .bind(&game.time_control)
            .fetch_one(&mut **tx)
            .await
            .map_err(StoreError::from_write)?;
        for (seat, (player, invitee)) in game.seats.iter().enumerate() {
            sqlx::query(sql::INSERT_SEAT)
                .bind(id)
                .bind(seat as i64)
                .bind(*player)
                .bind(*invitee)
                .execute(&mut **tx)
                .await
                .map_err(StoreError::from_write)?;
        }
        Self::insert_game_events(tx, id, 1, &game.events, game.now).await?;
        Self::insert_player_events(tx, id, &game.player_events, game.now).await?;
        Ok(id)
    }

    /// The writer of this store's group commit, on a thread of its own.
    /// PostgreSQL locks rows, so nothing else in this process waits for it.
    fn group_commit(pool: &PgPool, backend: Arc<AtomicU32>) -> std::io::Result<GroupCommit> {
        let pool = pool.clone();
        let writer = Arc::new(tokio::sync::Mutex::new(None));
        GroupCommit::spawn_runtime_thread(move |batch| {
            let (pool, writer, backend) = (pool.clone(), writer.clone(), backend.clone());
            async move { Self::commit_batch(&pool, &mut *writer.lock().await, &backend, batch).await }
        })
    }
}

impl PgStore {
    /// Listens to the announcements of the triggers on a connection of its
    /// own, until the receiver is dropped.
    fn announcement_feed(&self) -> Option<tokio::sync::mpsc::Receiver<Vec<Announcement>>> {
        let (sender, receiver) = tokio::sync::mpsc::channel(1024);
        tokio::spawn(listen(self.pool.clone(), self.writer_backend.clone(), sender));
        Some(receiver)
    }
}

async fn listen(pool: PgPool, own_writer: Arc<AtomicU32>, announcements: tokio::sync::mpsc::Sender<Vec<Announcement>>) {
    /// How long a failed connection waits before it tries again.
    const RETRY: Duration = Duration::from_secs(1);
    while !announcements.is_closed() {
        let mut listener = match PgListener::connect_with(&pool).await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "cannot listen to the database's announcements; retrying");
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        if let Err(error) = listener
            .listen_all([announce::GAME_CHANNEL, announce::PLAYER_CHANNEL])
            .await
        {
            tracing::warn!(%error, "cannot listen to the database's announcements; retrying");
            tokio::time::sleep(RETRY).await;
            continue;
        }
        loop {
            let notification = tokio::select! {
                () = announcements.closed() => return,
                notification = listener.recv() => notification,
            };
            match notification {
                // This process published its writer's commits already;
                // relaying them too would race that publication (one frame
                // in ten went out read back from the log, without its
                // commit time, in a WebSocket run) and cost a read each.
                Ok(notification) if notification.process_id() == own_writer.load(Ordering::Relaxed) => {}
                Ok(notification) => match announce::parse(notification.channel(), notification.payload()) {
                    Ok(batch) => {
                        if announcements.send(batch).await.is_err() {
                            return;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "ignored"),
                },
                Err(error) => {
                    tracing::warn!(%error, "lost the database's announcements; listening again");
                    tokio::time::sleep(RETRY).await;
                    break;
                }
            }
        }
    }
}

super::impl_store!(PgStore, sqlx::Postgres, "postgres");
super::notify::impl_notify_store!(PgStore, sqlx::Postgres);
