//! The statements that write games, shared by the PostgreSQL writer (sqlx)
//! and the SQLite writer (rusqlite). Parameters are numbered `$n` in the
//! order they appear, which both databases and both drivers bind by
//! position. [`insert_player_events`] runs two of them for the sqlx side
//! (the reminders, sent outside the writers, on either database), and
//! [`write_ratings`] the rating changes of a game's end (PostgreSQL's
//! writer; SQLite's runs the same statements through rusqlite). The reads
//! every game makes are here too, for the same reason: sqlx's pool runs
//! them, and on SQLite so does rusqlite, on the thread that asks
//! (`sqlite/direct.rs`).

use sqlx::Transaction;

use super::backend::Affected;
use super::binding::{Select, SharedSql, Statement};
use super::{PlayerEvent, RatingChange, StoreError, StoreResult};

/// Guarded update of a game's row: matches nothing when the game is no
/// longer at the expected event number (`$14`) and version of its
/// conditional trees (`$15`).
pub const UPDATE_GAME: &str = "UPDATE games SET status = $1, ply = $2, to_move = $3, outcome = $4, \
     draw_offer = $5, takeback_offer = $6, event_seq = $7, updated_at = $8, clock = $9, deadline = $10, \
     reminder_at = $11, conditional_rev = $12 WHERE id = $13 AND event_seq = $14 AND conditional_rev = $15";

/// A player takes an open seat; matches nothing when it is taken.
pub const SIT: &str = "UPDATE seats SET player_id = $1 WHERE game_id = $2 AND seat = $3 AND player_id IS NULL";

/// A player's tree of conditional moves, replacing theirs.
pub const PUT_CONDITIONAL: &str = "INSERT INTO conditionals (game_id, player_id, ply, lines, updated_at) \
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (game_id, player_id) DO UPDATE SET ply = excluded.ply, \
     lines = excluded.lines, updated_at = excluded.updated_at";

pub const DELETE_CONDITIONAL: &str = "DELETE FROM conditionals WHERE game_id = $1 AND player_id = $2";

pub const DELETE_CONDITIONALS: &str = "DELETE FROM conditionals WHERE game_id = $1";

pub const INSERT_GAME: &str = "INSERT INTO games (game, variant, status, public, ply, to_move, event_seq, \
     created_by, created_at, updated_at, time_control, rated, rating_min, rating_max, rematch_of, clock, \
     deadline, reminder_at, invite_code) \
     VALUES ($1, $2, $3, $4, 0, $5, $6, $7, $8, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
     RETURNING id";

pub const INSERT_SEAT: &str = "INSERT INTO seats (game_id, seat, player_id, invitee_id) VALUES ($1, $2, $3, $4)";

pub const INSERT_GAME_EVENT: &str =
    "INSERT INTO game_events (game_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)";

/// Takes the next number of a player's event stream.
pub const NEXT_PLAYER_EVENT: &str =
    "UPDATE player_streams SET event_seq = event_seq + 1 WHERE player_id = $1 RETURNING event_seq";

pub const INSERT_PLAYER_EVENT: &str =
    "INSERT INTO player_events (player_id, seq, kind, payload, created_at) VALUES ($1, $2, $3, $4, $5)";

/// Moves a player's notification cursor from `$3` to `$1`; matches
/// nothing when another process moved it first.
pub const MOVE_NOTIFY_CURSOR: &str =
    "UPDATE player_streams SET notify_seq = $1 WHERE player_id = $2 AND notify_seq = $3";

pub const INSERT_DELIVERY: &str = "INSERT INTO deliveries (player_id, event_seq, channel, kind, status, attempts, \
     next_attempt_at, created_at, updated_at) VALUES ($1, $2, $3, $4, 'pending', 0, $5, $6, $6) \
     ON CONFLICT (player_id, event_seq, channel) DO NOTHING";

/// Numbers and stores player events inside `tx`, each payload naming the
/// game `game_id`. Players are locked in id order so two transactions
/// cannot deadlock. (PostgreSQL's writer numbers a batch's events with its
/// array statements instead: `postgres/plain.rs`.)
pub async fn insert_player_events<DB>(
    tx: &mut Transaction<'_, DB>,
    game_id: i64,
    events: &[PlayerEvent],
    now: i64,
) -> StoreResult<()>
where
    DB: SharedSql,
{
    let mut events: Vec<&PlayerEvent> = events.iter().collect();
    events.sort_by_key(|e| e.player_id);
    for event in events {
        let seq: i64 = sqlx::query(NEXT_PLAYER_EVENT)
            .arg(event.player_id)
            .scalars()
            .fetch_optional(DB::connected(&mut **tx))
            .await?
            .ok_or(StoreError::NoSuchPlayer(event.player_id))?;
        sqlx::query(INSERT_PLAYER_EVENT)
            .arg(event.player_id)
            .arg(seq)
            .arg(event.kind)
            .arg(
                event
                    .stored_json(Some(game_id))
                    .map_err(|error| sqlx::Error::Encode(Box::new(error)))?,
            )
            .arg(now)
            .execute(DB::connected(&mut **tx))
            .await?;
    }
    Ok(())
}

/// A player's first rated game in a variant creates their row; matches
/// nothing when another game created it first.
pub const INSERT_RATING: &str = "INSERT INTO ratings (player_id, game, variant, rating, rd, volatility, games, \
     wins, losses, draws, last_played, last_order) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
     ON CONFLICT (player_id, game, variant) DO NOTHING";

/// Guarded move of a rating from `$13` games to `$4`: matches nothing when
/// another game's end moved it first.
pub const UPDATE_RATING: &str = "UPDATE ratings SET rating = $1, rd = $2, volatility = $3, games = $4, \
     wins = wins + $5, losses = losses + $6, draws = draws + $7, last_played = $8, last_order = $9 \
     WHERE player_id = $10 AND game = $11 AND variant = $12 AND games = $13";

pub const INSERT_RATING_CHANGE: &str = "INSERT INTO rating_changes (game_id, player_id, game, variant, number, \
     ordinal, result, rating_before, rd_before, volatility_before, rating_after, rd_after, volatility_after, \
     played_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)";

/// Records that game `$1` is the rematch of game `$2`; matches nothing when
/// `$2` already has one.
pub const SET_REMATCH: &str = "UPDATE games SET rematch = $1 WHERE id = $2 AND rematch IS NULL";

/// Writes a game end's rating changes inside `tx` (the sqlx side: the
/// PostgreSQL writer), in player order so two transactions lock rows alike.
/// [`StoreError::RatingsMoved`] when a rating is no longer where its change
/// was computed from; the caller rolls back.
pub async fn write_ratings<DB>(tx: &mut Transaction<'_, DB>, changes: &[RatingChange]) -> StoreResult<()>
where
    DB: SharedSql,
{
    let mut changes: Vec<&RatingChange> = changes.iter().collect();
    changes.sort_by_key(|c| c.player_id);
    for c in changes {
        let (wins, losses, draws) = c.result.counts();
        let moved = if c.number == 1 {
            sqlx::query(INSERT_RATING)
                .arg(c.player_id)
                .arg(c.game.as_str())
                .arg(c.variant.as_str())
                .arg(c.after.rating)
                .arg(c.after.rd)
                .arg(c.after.volatility)
                .arg(1_i64)
                .arg(wins)
                .arg(losses)
                .arg(draws)
                .arg(c.played_at)
                .arg(c.ordinal)
                .execute(DB::connected(&mut **tx))
                .await
        } else {
            sqlx::query(UPDATE_RATING)
                .arg(c.after.rating)
                .arg(c.after.rd)
                .arg(c.after.volatility)
                .arg(c.number)
                .arg(wins)
                .arg(losses)
                .arg(draws)
                .arg(c.played_at)
                .arg(c.ordinal)
                .arg(c.player_id)
                .arg(c.game.as_str())
                .arg(c.variant.as_str())
                .arg(c.number - 1)
                .execute(DB::connected(&mut **tx))
                .await
        }
        .map_err(StoreError::from_write)?;
        if moved.rows_affected() != 1 {
            return Err(StoreError::RatingsMoved);
        }
        insert_rating_change(tx, c).await?;
    }
    Ok(())
}

/// Keeps what a game did to a player's rating, inside `tx`.
pub async fn insert_rating_change<DB>(tx: &mut Transaction<'_, DB>, c: &RatingChange) -> StoreResult<()>
where
    DB: SharedSql,
{
    sqlx::query(INSERT_RATING_CHANGE)
        .arg(c.game_id)
        .arg(c.player_id)
        .arg(c.game.as_str())
        .arg(c.variant.as_str())
        .arg(c.number)
        .arg(c.ordinal)
        .arg(c.result.as_str())
        .arg(c.before.rating)
        .arg(c.before.rd)
        .arg(c.before.volatility)
        .arg(c.after.rating)
        .arg(c.after.rd)
        .arg(c.after.volatility)
        .arg(c.played_at)
        .execute(DB::connected(&mut **tx))
        .await
        .map_err(StoreError::from_write)?;
    Ok(())
}

/// Guarded move of a tournament from revision `$5`: matches nothing when
/// another change (a join, another game's end) moved it first.
pub const STEP_TOURNAMENT: &str = "UPDATE tournaments SET status = $1, round = $2, updated_at = $3, rev = rev + 1 \
     WHERE id = $4 AND rev = $5";

pub const INSERT_PAIRING: &str = "INSERT INTO tournament_pairings (tournament_id, round, grp, game_id, first_id, \
     second_id) VALUES ($1, $2, $3, $4, $5, $6)";

/// A league player's group for the new season.
pub const SET_GROUP: &str = "UPDATE tournament_players SET grp = $1 WHERE tournament_id = $2 AND player_id = $3";

/// The columns of a [`super::GameRow`]; a `WHERE` follows.
macro_rules! game {
    () => {
        "SELECT g.id, g.game, g.variant, g.status, g.public, g.ply, g.to_move, g.outcome, \
         g.draw_offer, g.takeback_offer, g.event_seq, g.created_by, g.created_at, g.updated_at, \
         g.time_control, g.clock, g.deadline, g.reminder_at, g.rated, g.rating_min, g.rating_max, \
         g.rematch_of, g.rematch, g.conditional_rev, g.invite_code, \
         (SELECT tp.tournament_id FROM tournament_pairings tp WHERE tp.game_id = g.id) AS tournament_id \
         FROM games g"
    };
}
pub const GAME: &str = game!();

/// A [`super::GameRow`] by its id (`$1`).
pub const GAME_BY_ID: &str = concat!(game!(), " WHERE g.id = $1");

/// The columns of a [`super::Player`]; a `WHERE` follows.
macro_rules! player {
    () => {
        "SELECT id, name, email, created_at, bot FROM players"
    };
}
pub const PLAYER: &str = player!();

/// A [`super::Player`] by the key of their name (`$1`).
pub const PLAYER_BY_NAME: &str = concat!(player!(), " WHERE name_key = $1");

/// A [`super::Player`] by their id (`$1`).
pub const PLAYER_BY_ID: &str = concat!(player!(), " WHERE id = $1");

/// What a game's creation asks of its creator `$1`, in one statement: their
/// games still waiting for players, the invitations in those nobody answered
/// yet, and their `rating` and `rd` in the game `$2`'s variant `$3` (`NULL`
/// when unrated there).
pub const CREATOR_STANDING: &str = "SELECT (SELECT COUNT(*) FROM games WHERE created_by = $1 AND status = 'open'), \
     (SELECT COUNT(*) FROM seats s JOIN games g ON g.id = s.game_id \
     WHERE g.created_by = $1 AND g.status = 'open' AND s.invitee_id IS NOT NULL AND s.player_id IS NULL), \
     r.rating, r.rd FROM (SELECT 1 AS one) AS one \
     LEFT JOIN ratings r ON r.player_id = $1 AND r.game = $2 AND r.variant = $3";

macro_rules! rating {
    () => {
        "SELECT r.player_id, p.name, p.bot, r.game, r.variant, r.rating, r.rd, r.volatility, \
         r.games, r.wins, r.losses, r.draws, r.last_played, r.last_order FROM ratings r \
         JOIN players p ON p.id = r.player_id"
    };
}
/// The columns of a [`super::RatingRow`], with the player's name and bot
/// flag; a `WHERE` follows.
pub const RATING: &str = rating!();

/// One player's (`$1`) rating in the game `$2`'s variant `$3`: what a
/// direct read asks once for each player of a table, in one read
/// transaction. [`ratings_of`]'s list makes SQLite build a temporary b-tree
/// of its values at every execution (issue 26).
pub const RATING_OF: &str = concat!(rating!(), " WHERE r.player_id = $1 AND r.game = $2 AND r.variant = $3");

/// The ratings in the game `$1`'s variant `$2` of `players` players, bound
/// from `$3` on: one statement for a whole table (at most eight players),
/// its rows in no particular order.
pub fn ratings_of(players: usize) -> String {
    let listed: Vec<String> = (0..players).map(|i| format!("${}", i + 3)).collect();
    format!(
        "{RATING} WHERE r.game = $1 AND r.variant = $2 AND r.player_id IN ({})",
        listed.join(", ")
    )
}
