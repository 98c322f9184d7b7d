//! The PostgreSQL backend, through a connection pool.

use std::time::Duration;

use std::collections::{HashMap, HashSet};

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{Postgres, Transaction};

use super::group_commit::PlainRows;

pub struct PgStore {
    pool: PgPool,
    commits: super::group_commit::GroupCommit,
    gate: super::WriteGate,
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
        let commits = PgStore::group_commit(&pool, &gate);
        Ok(PgStore { pool, commits, gate })
    }
}

impl PgStore {
    /// Writes plain updates (see [`super::group_commit::split_plain`]) with
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
        .bind(batch.iter().map(|u| u.to_move).collect::<Vec<Option<i64>>>())
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
            .bind(moves.iter().map(|(_, m)| m.seat).collect::<Vec<i64>>())
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

super::impl_store!(PgStore, sqlx::Postgres, "postgres");
super::notify::impl_notify_store!(PgStore, sqlx::Postgres);
