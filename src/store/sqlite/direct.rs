//! The reads every game makes, answered on the thread that asks: the
//! invitee by name, the creator's open games and standing, the players'
//! ratings at a seat and at the end, and the game with its seats (each
//! subscription to it, each look at it). sqlx runs each SQLite connection on a
//! thread of its own, so a pooled read is two wake-ups, there and back,
//! which cost more CPU than the read itself (issue 26, BENCHMARKS.md);
//! these reads are a few indexed pages that never wait for the writer (WAL),
//! so they run on the calling runtime worker instead, with connections of
//! this module's own and the statements of `store/sql.rs`.
//!
//! A direct read promises the pool's answer or none: anything that goes
//! wrong (the database busy recovering, a row that does not decode) gives
//! `None`, and the caller asks the pool, which waits, decodes and reports
//! as every other read does.

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags, OptionalExtension, Row};

use serde_json::Value;

use crate::domain::{GameStatus, Seat};
use crate::store::rows::{SeatRecord, SEATS_OF_GAME};
use crate::store::{sql, CreatorStanding, GameRecord, GameRow, Player, RatingRow, SeatRow};

/// Idle connections kept for the next reads: one for each runtime worker
/// is enough, since a direct read never yields.
const IDLE: usize = 8;

pub struct DirectReads {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl DirectReads {
    pub fn new(path: PathBuf) -> DirectReads {
        DirectReads {
            path,
            idle: Mutex::new(Vec::new()),
        }
    }

    pub fn player_by_name(&self, name_key: &str) -> Option<Option<Player>> {
        self.read(|c| {
            c.prepare_cached(sql::PLAYER_BY_NAME)?
                .query_row([name_key], |row| {
                    Ok(Player {
                        id: row.get(0)?,
                        name: row.get(1)?,
                        email: row.get(2)?,
                        created_at: row.get(3)?,
                        bot: row.get(4)?,
                    })
                })
                .optional()
        })
    }

    pub fn creator_standing(&self, creator: i64, game: &str, variant: &str) -> Option<CreatorStanding> {
        self.read(|c| {
            c.prepare_cached(sql::CREATOR_STANDING)?
                .query_row(rusqlite::params![creator, game, variant], |row| {
                    let (rating, rd): (Option<f64>, Option<f64>) = (row.get(2)?, row.get(3)?);
                    Ok(CreatorStanding {
                        open_games: row.get(0)?,
                        open_invitations: row.get(1)?,
                        rating: rating.zip(rd),
                    })
                })
        })
    }

    /// The players' ratings, read one player at a time; several in one
    /// read transaction (one snapshot, and the pages the first read brings
    /// in serve the next).
    pub fn ratings_of(&self, game: &str, variant: &str, players: &[i64]) -> Option<Vec<RatingRow>> {
        self.read(|c| {
            let read = if players.len() > 1 {
                Some(c.unchecked_transaction()?)
            } else {
                None
            };
            let mut statement = c.prepare_cached(sql::RATING_OF)?;
            let mut rows = Vec::with_capacity(players.len());
            for player in players {
                if let Some(row) = statement
                    .query_row(rusqlite::params![player, game, variant], rating_row)
                    .optional()?
                {
                    rows.push(row);
                }
            }
            drop(statement);
            if let Some(read) = read {
                read.commit()?;
            }
            Ok(rows)
        })
    }

    /// The game's row and seats, read in one transaction (the pool reads
    /// them apart).
    pub fn game(&self, id: i64) -> Option<Option<GameRecord>> {
        let (row, seats) = self.read(|c| {
            let read = c.unchecked_transaction()?;
            let Some(row) = read
                .prepare_cached(sql::GAME_BY_ID)?
                .query_row([id], game_row)
                .optional()?
            else {
                return Ok((None, Vec::new()));
            };
            let seats = read
                .prepare_cached(SEATS_OF_GAME)?
                .query_map([id], seat_record)?
                .collect::<rusqlite::Result<Vec<SeatRecord>>>()?;
            Ok((Some(row), seats))
        })?;
        let Some(row) = row else { return Some(None) };
        // A seat naming a player who does not exist: the pool reports it.
        let seats = seats
            .into_iter()
            .map(SeatRow::try_from)
            .collect::<Result<_, _>>()
            .ok()?;
        Some(Some(GameRecord { row, seats }))
    }

    /// Runs `read` on an idle connection (or a new one), keeping it for the
    /// next read.
    fn read<T>(&self, read: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Option<T> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let connection = match idle {
            Some(connection) => connection,
            None => open(&self.path)
                .map_err(|error| tracing::debug!(%error, "no direct read connection; reading from the pool"))
                .ok()?,
        };
        let answer = read(&connection)
            .map_err(|error| tracing::debug!(%error, "direct read failed; reading from the pool"))
            .ok();
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE {
            idle.push(connection);
        }
        answer
    }
}

fn game_row(row: &Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: row.get(0)?,
        game: row.get(1)?,
        variant: row.get(2)?,
        status: decoded(row, 3, |s: String| s.parse::<GameStatus>())?,
        public: row.get(4)?,
        ply: row.get(5)?,
        to_move: decoded(row, 6, |n: Option<i64>| n.map(Seat::try_from).transpose())?,
        outcome: json(row, 7)?,
        draw_offer: row.get(8)?,
        takeback_offer: row.get(9)?,
        event_seq: row.get(10)?,
        created_by: row.get(11)?,
        created_at: row.get(12)?,
        updated_at: row.get(13)?,
        time_control: json(row, 14)?,
        clock: json(row, 15)?,
        deadline: row.get(16)?,
        reminder_at: row.get(17)?,
        rated: row.get(18)?,
        rating_min: row.get(19)?,
        rating_max: row.get(20)?,
        rematch_of: row.get(21)?,
        rematch: row.get(22)?,
        conditional_rev: row.get(23)?,
        invite_code: row.get(24)?,
        tournament_id: row.get(25)?,
    })
}

fn seat_record(row: &Row<'_>) -> rusqlite::Result<SeatRecord> {
    Ok(SeatRecord {
        seat: decoded(row, 0, <Seat as TryFrom<i64>>::try_from)?,
        player_id: row.get(1)?,
        player_name: row.get(2)?,
        invitee_id: row.get(3)?,
        invitee_name: row.get(4)?,
        player_bot: row.get(5)?,
        invitee_bot: row.get(6)?,
        rating: row.get(7)?,
        rd: row.get(8)?,
    })
}

/// Column `index` read as `T` and turned into what the row holds, as sqlx's
/// decoding does.
fn decoded<T: rusqlite::types::FromSql, U, E: std::error::Error + Send + Sync + 'static>(
    row: &Row<'_>,
    index: usize,
    decode: impl FnOnce(T) -> Result<U, E>,
) -> rusqlite::Result<U> {
    let stored = row.get_ref(index)?.data_type();
    decode(row.get(index)?).map_err(|error| rusqlite::Error::FromSqlConversionFailure(index, stored, Box::new(error)))
}

/// A JSON document stored as text, or `NULL`.
fn json(row: &Row<'_>, index: usize) -> rusqlite::Result<Option<Value>> {
    decoded(row, index, |text: Option<String>| {
        text.map(|t| serde_json::from_str(&t)).transpose()
    })
}

fn rating_row(row: &Row<'_>) -> rusqlite::Result<RatingRow> {
    Ok(RatingRow {
        player_id: row.get(0)?,
        name: row.get(1)?,
        bot: row.get(2)?,
        game: row.get(3)?,
        variant: row.get(4)?,
        rating: row.get(5)?,
        rd: row.get(6)?,
        volatility: row.get(7)?,
        games: row.get(8)?,
        wins: row.get(9)?,
        losses: row.get(10)?,
        draws: row.get(11)?,
        last_played: row.get(12)?,
        last_order: row.get(13)?,
    })
}

/// A connection that only reads and never waits: a lock it would wait for
/// (only the recovery of a WAL, or its reset by another process's
/// checkpoint) sends the read to the pool, whose connections wait.
fn open(path: &PathBuf) -> rusqlite::Result<Connection> {
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    connection.busy_timeout(std::time::Duration::ZERO)?;
    connection.pragma_update(None, "query_only", true)?;
    Ok(connection)
}
