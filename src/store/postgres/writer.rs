//! PostgreSQL's group-commit writer: the task of a one-thread runtime on a
//! thread of its own, with a connection of its own kept across batches (its
//! prepared statements stay warm). A batch's plain updates go in with one
//! statement per table (`plain.rs`); the rest one by one after them, in the
//! same transaction. When that transaction fails, each change is committed
//! alone and meets its own fate.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};

use super::plain::{self, GameEventRow, PlayerEventRows, PlayerEventsOf};
use crate::store::group_commit::{Change, Done, GroupCommit};
use crate::store::{
    sql, ConditionalWrite, Event, GameUpdate, NewGame, Outbox, PlayerEvent, StoreError, StoreResult, TournamentStep,
};

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
        .bind(update.to_move)
        .bind(&update.outcome)
        .bind(update.draw_offer)
        .bind(update.takeback_offer)
        .bind(new_seq)
        .bind(update.now)
        .bind(&update.clock)
        .bind(update.deadline)
        .bind(update.reminder_at)
        .bind(update.new_rev())
        .bind(update.id)
        .bind(update.expected_seq)
        .bind(update.expected_rev)
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
            .bind(*seat)
            .execute(&mut **tx)
            .await
            .map_err(StoreError::from_write)?
            .rows_affected();
        if sat != 1 {
            return Err(StoreError::Conflict);
        }
    }
    if let Some(write) = &update.conditional {
        write_conditional(tx, update.id, write, update.now).await?;
    }
    insert_events(
        tx,
        update.id,
        update.expected_seq + 1,
        &update.events,
        &update.player_events,
        update.now,
    )
    .await?;
    sql::write_ratings(tx, &update.ratings).await?;
    if let Some(step) = &update.tournament {
        step_tournament(tx, step).await?;
    }
    Ok(true)
}

/// Writes a tournament's step inside `tx`: its guarded move first (which
/// locks the tournament's row: a second server ending another game of the
/// round waits here, then finds the revision moved), then the games and
/// pairings of its new round, the league's groups and its players' events.
/// [`StoreError::TournamentMoved`] when the guard refused it.
async fn step_tournament(tx: &mut Transaction<'_, Postgres>, step: &TournamentStep) -> StoreResult<()> {
    let moved = sqlx::query(sql::STEP_TOURNAMENT)
        .bind(step.status.as_str())
        .bind(step.round)
        .bind(step.now)
        .bind(step.tournament_id)
        .bind(step.expected_rev)
        .execute(&mut **tx)
        .await?
        .rows_affected();
    if moved != 1 {
        return Err(StoreError::TournamentMoved);
    }
    for pairing in &step.pairings {
        let game_id = match &pairing.game {
            Some(game) => Some(apply_create(tx, game).await?),
            None => None,
        };
        sqlx::query(sql::INSERT_PAIRING)
            .bind(step.tournament_id)
            .bind(pairing.round)
            .bind(pairing.grp)
            .bind(game_id)
            .bind(pairing.first_id)
            .bind(pairing.second_id)
            .execute(&mut **tx)
            .await
            .map_err(StoreError::from_write)?;
    }
    for (player, group) in &step.groups {
        sqlx::query(sql::SET_GROUP)
            .bind(*group)
            .bind(step.tournament_id)
            .bind(*player)
            .execute(&mut **tx)
            .await?;
    }
    plain::insert_player_events(
        tx,
        &PlayerEventRows::of(vec![PlayerEventsOf {
            game_id: None,
            now: step.now,
            events: &step.events,
        }]),
    )
    .await?;
    Ok(())
}

async fn write_conditional(
    tx: &mut Transaction<'_, Postgres>,
    game_id: i64,
    write: &ConditionalWrite,
    now: i64,
) -> Result<(), sqlx::Error> {
    let statement = match write {
        ConditionalWrite::Put(tree) => sqlx::query(sql::PUT_CONDITIONAL)
            .bind(game_id)
            .bind(tree.player_id)
            .bind(tree.ply)
            .bind(&tree.lines)
            .bind(now),
        ConditionalWrite::Delete { player_id } => sqlx::query(sql::DELETE_CONDITIONAL).bind(game_id).bind(*player_id),
        ConditionalWrite::DeleteAll => sqlx::query(sql::DELETE_CONDITIONALS).bind(game_id),
    };
    statement.execute(&mut **tx).await?;
    Ok(())
}

/// Commits a batch of updates, together when it can. Returns one
/// final result per update, in order, and how many transactions
/// it took.
async fn commit_batch(
    pool: &PgPool,
    writer: &mut Option<sqlx::PgConnection>,
    backend: &AtomicU32,
    batch: &[Change],
) -> (Vec<StoreResult<Done>>, u64) {
    match commit_together(pool, writer, backend, batch).await {
        Ok(results) => return (results, 1),
        // Rare: a constraint or the database refused the
        // transaction. Alone, each update meets its own fate.
        Err(error) => {
            tracing::warn!(%error, updates = batch.len(), "group commit failed; committing one by one");
            // The connection may be what failed: the next batch
            // opens another (not after a change's own refusal).
            if !matches!(
                error,
                StoreError::Conflict
                    | StoreError::RatingsMoved
                    | StoreError::TournamentMoved
                    | StoreError::Unique
                    | StoreError::NoSuchPlayer(_)
            ) {
                *writer = None;
            }
        }
    }
    let mut results = Vec::with_capacity(batch.len());
    for change in batch {
        results.push(commit_alone(pool, change).await);
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
            // Every statement of the writer finds its rows by their keys, a
            // few hundred at most. A young database has no statistics yet,
            // and PostgreSQL then planned the batch's update of the games
            // as a scan of the whole table (dead rows included) at every
            // batch: 15 µs a move, the writer's costliest statement
            // (BENCHMARKS.md, fifteenth round). Its key is always the way.
            sqlx::query("SET enable_seqscan = off").execute(&mut connection).await?;
            let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
                .fetch_one(&mut connection)
                .await?;
            backend.store(pid.unsigned_abs(), Ordering::Relaxed);
            writer.insert(connection)
        }
    };
    let mut tx = connection.begin().await?;
    match write_batch(&mut tx, batch).await {
        Ok(results) => {
            tx.commit().await?;
            Ok(results)
        }
        Err(error) => {
            // Rolled back now, not when the connection is next used: the
            // changes are about to be committed one by one on other
            // connections, and would wait forever for this one's locks.
            tx.rollback().await?;
            Err(error)
        }
    }
}

/// Every change of `batch` inside `tx`, plain updates first.
async fn write_batch(tx: &mut Transaction<'_, Postgres>, batch: &[Change]) -> StoreResult<Vec<StoreResult<Done>>> {
    let (plain, rest) = plain::split_plain(batch);
    let mut results: Vec<StoreResult<Done>> = batch.iter().map(|_| Err(StoreError::Conflict)).collect();
    let plain_updates: Vec<&GameUpdate> = plain
        .iter()
        .filter_map(|&i| match &batch[i] {
            Change::Update(update) => Some(update),
            Change::Create(_) | Change::Notify(..) | Change::Tournament(_) => None,
        })
        .collect();
    let applied = plain::write(tx, &plain_updates).await?;
    for (&i, update) in plain.iter().zip(&plain_updates) {
        if applied.contains(&update.id) {
            results[i] = Ok(Done::Updated);
        }
    }
    for i in rest {
        if let Some(done) = apply_change(tx, &batch[i]).await? {
            results[i] = Ok(done);
        }
    }
    Ok(results)
}

async fn commit_alone(pool: &PgPool, change: &Change) -> StoreResult<Done> {
    let mut tx = pool.begin().await?;
    let done = apply_change(&mut tx, change).await?.ok_or(StoreError::Conflict)?;
    tx.commit().await?;
    Ok(done)
}

/// Writes one change inside `tx`; `None` when its guard refused it.
async fn apply_change(tx: &mut Transaction<'_, Postgres>, change: &Change) -> StoreResult<Option<Done>> {
    Ok(match change {
        Change::Create(game) => Some(Done::Created(apply_create(tx, game).await?)),
        Change::Update(update) => apply_update(tx, update).await?.then_some(Done::Updated),
        Change::Notify(outboxes, now) => Some(Done::Notified(apply_notify(tx, outboxes, *now).await?)),
        Change::Tournament(step) => {
            step_tournament(tx, step).await?;
            Some(Done::Stepped)
        }
    })
}

/// Adds a change's game events, numbered from `first_seq`, and its players'
/// events: a statement for each table however many, and so one
/// announcement each (the triggers announce a statement's rows together).
async fn insert_events(
    tx: &mut Transaction<'_, Postgres>,
    game_id: i64,
    first_seq: i64,
    events: &[Event],
    player_events: &[PlayerEvent],
    now: i64,
) -> StoreResult<()> {
    let rows: Vec<GameEventRow> = GameEventRow::numbered(game_id, first_seq, events, now).collect();
    plain::insert_game_events(tx, &rows).await?;
    let player_rows = PlayerEventRows::of(vec![PlayerEventsOf {
        game_id: Some(game_id),
        now,
        events: player_events,
    }]);
    plain::insert_player_events(tx, &player_rows).await
}

/// Moves players' notification cursors and creates their deliveries
/// inside `tx`; how many cursors moved.
async fn apply_notify(tx: &mut Transaction<'_, Postgres>, outboxes: &[Outbox], now: i64) -> StoreResult<usize> {
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
    let (status, to_move) = game.starts_as();
    let events = game.events.len() as i64;
    let id: i64 = sqlx::query_scalar(sql::INSERT_GAME)
        .bind(&game.game)
        .bind(&game.variant)
        .bind(status.as_str())
        .bind(game.public)
        .bind(to_move)
        .bind(events)
        .bind(game.created_by)
        .bind(game.now)
        .bind(&game.time_control)
        .bind(game.rated)
        .bind(game.rating_min)
        .bind(game.rating_max)
        .bind(game.rematch_of)
        .bind(&game.clock)
        .bind(game.deadline)
        .bind(game.reminder_at)
        .bind(&game.invite_code)
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
    if let Some(original) = game.rematch_of {
        let marked = sqlx::query(sql::SET_REMATCH)
            .bind(id)
            .bind(original)
            .execute(&mut **tx)
            .await?
            .rows_affected();
        if marked != 1 {
            return Err(StoreError::Conflict);
        }
    }
    insert_events(tx, id, 1, &game.events, &game.player_events, game.now).await?;
    Ok(id)
}

/// The writer of this store's group commit, on a thread of its own.
/// PostgreSQL locks rows, so nothing else in this process waits for it.
pub(super) fn group_commit(pool: &PgPool, backend: Arc<AtomicU32>) -> std::io::Result<GroupCommit> {
    let pool = pool.clone();
    let writer = Arc::new(tokio::sync::Mutex::new(None));
    GroupCommit::spawn_runtime_thread(move |batch| {
        let (pool, writer, backend) = (pool.clone(), writer.clone(), backend.clone());
        async move {
            let (results, transactions) = commit_batch(&pool, &mut *writer.lock().await, &backend, &batch).await;
            (batch, results, transactions)
        }
    })
}
