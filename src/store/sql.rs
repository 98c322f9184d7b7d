//! The statements that write games, shared by the PostgreSQL writer (sqlx)
//! and the SQLite writer (rusqlite). Parameters are numbered `$n` in the
//! order they appear, which both databases and both drivers bind by
//! position. [`insert_player_events`] runs two of them for the sqlx side
//! (PostgreSQL's writer, and the reminders sent outside the writers).

use serde_json::Value;
use sqlx::{Database, Executor, IntoArguments, Transaction};

use super::backend::{Decoded, Param};
use super::PlayerEvent;

/// Guarded update of a game's row: matches nothing when the game is no
/// longer at the expected event number (`$14`) and version of its
/// conditional trees (`$15`).
pub const UPDATE_GAME: &str = "UPDATE games SET status = $1, ply = $2, to_move = $3, outcome = $4, \
     draw_offer = $5, takeback_offer = $6, event_seq = $7, updated_at = $8, clock = $9, deadline = $10, \
     reminder_at = $11, conditional_rev = $12 WHERE id = $13 AND event_seq = $14 AND conditional_rev = $15";

/// A player takes an open seat; matches nothing when it is taken.
pub const SIT: &str = "UPDATE seats SET player_id = $1 WHERE game_id = $2 AND seat = $3 AND player_id IS NULL";

pub const DELETE_MOVE: &str = "DELETE FROM moves WHERE game_id = $1 AND ply = $2";

pub const INSERT_MOVE: &str = "INSERT INTO moves (game_id, ply, seat, player_id, notation, effect, message, \
     created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// A player's tree of conditional moves, replacing theirs.
pub const PUT_CONDITIONAL: &str = "INSERT INTO conditionals (game_id, player_id, ply, lines, updated_at) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game_id, player_id) DO UPDATE SET ply = excluded.ply, \
     lines = excluded.lines, updated_at = excluded.updated_at";

pub const DELETE_CONDITIONAL: &str = "DELETE FROM conditionals WHERE game_id = $1 AND player_id = $2";

pub const DELETE_CONDITIONALS: &str = "DELETE FROM conditionals WHERE game_id = $1";

pub const INSERT_GAME: &str = "INSERT INTO games (game, variant, status, public, ply, to_move, event_seq, \
     created_by, created_at, updated_at, time_control) VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $8, $9) \
     RETURNING id";

pub const INSERT_SEAT: &str = "INSERT INTO seats (game_id, seat, player_id, invitee_id) VALUES ($1, $2, $3, $4)";

pub const INSERT_GAME_EVENT: &str =
    "INSERT INTO game_events (game_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)";

/// Takes the next number of a player's event stream.
pub const NEXT_PLAYER_EVENT: &str = "UPDATE players SET event_seq = event_seq + 1 WHERE id = $1 RETURNING event_seq";

pub const INSERT_PLAYER_EVENT: &str =
    "INSERT INTO player_events (player_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)";

/// Moves a player's notification cursor from `$3` to `$1`; matches
/// nothing when another process moved it first.
pub const MOVE_NOTIFY_CURSOR: &str = "UPDATE players SET notify_seq = $1 WHERE id = $2 AND notify_seq = $3";

pub const INSERT_DELIVERY: &str = "INSERT INTO deliveries (player_id, event_seq, channel, kind, status, attempts, \
     next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6, $6) \
     ON CONFLICT (player_id, event_seq, channel) DO NOTHING";

/// Numbers and stores player events inside `tx`, each payload naming its
/// game. Players are locked in id order so two transactions cannot deadlock.
pub async fn insert_player_events<DB>(
    tx: &mut Transaction<'_, DB>,
    game_id: i64,
    events: &[PlayerEvent],
    now: i64,
) -> Result<(), sqlx::Error>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'q> i64: Param<'q, DB>,
    for<'q> &'q str: Param<'q, DB>,
    Value: for<'q> Param<'q, DB>,
    (i64,): Decoded<DB>,
{
    let mut events: Vec<&PlayerEvent> = events.iter().collect();
    events.sort_by_key(|e| e.player_id);
    for event in events {
        let seq: i64 = sqlx::query_scalar(NEXT_PLAYER_EVENT)
            .bind(event.player_id)
            .fetch_one(&mut **tx)
            .await?;
        sqlx::query(INSERT_PLAYER_EVENT)
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
