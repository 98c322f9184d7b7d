//! Where the SQLite writer puts players' new events, and how it files them.
//!
//! New events go to one of two small tables, the target; once it holds
//! [`FILE_AFTER`] events the other (empty by then) becomes the target, and
//! each of the writer's next transactions files [`CHUNK`] or so of the full
//! one's events into `player_events_filed`, a range of players at a time,
//! until it is filed and emptied. A commit then writes a page of the large
//! key for a player's many events instead of one for each, and the filing
//! is spread over many commits instead of holding one of them up. The
//! schema, and why, is in
//! `migrations/sqlite/20261206200000_player_events_filed.sql`.
//!
//! Every step runs inside a batch's transaction: it commits with the batch
//! or not at all, and a reader sees each event exactly once at every
//! commit (the `player_events` view hides the filed rows of the table being
//! filed).

use rusqlite::{params, OptionalExtension};

use super::transaction::Statements;

/// Events a target table takes before the tables swap. Its key is a page
/// for every 300 or so: fewer events keep a batch's new events on fewer of
/// its pages, more make a filing write fewer pages of the large key for
/// them (one a player with events in the table).
const FILE_AFTER: i64 = 1024;

/// Events filed a transaction, about: several times the new events of a
/// batch under load (about 30 with 100 games in flight), so a table is
/// filed long before the target fills.
const CHUNK: i64 = 128;

/// One of the two tables of recent events: the statements that involve
/// it.
pub(super) struct Recent {
    /// Stores a player event under the number its counter was just moved
    /// to (the writer holds the write lock: nobody moved it since). The
    /// number comes from a subquery in `VALUES`, not from an `INSERT …
    /// SELECT`: SQLite writes an `INSERT … SELECT` in a statement
    /// transaction of its own, every page it changes first copied whole to
    /// a statement journal, where a single-row `INSERT … VALUES` needs
    /// none.
    pub(super) insert: &'static str,
    /// How many events it holds: rows are only removed all at once (when
    /// it is emptied, or with their player), so its last rowid counts the
    /// events written since it was last empty, read from its last page.
    count: &'static str,
    /// The player at the end of a chunk: the `?2`-th event (by player and
    /// number) from player `?1` on.
    chunk_end: &'static str,
    /// The first player after `?1`.
    next_player: &'static str,
    /// Copies the events of players `?1` to `?2` into the filed ones, a
    /// player's side by side.
    file: &'static str,
    /// Empties it in one statement, which SQLite runs as a clearing of the
    /// table's pages: no trigger and, since
    /// `migrations/sqlite/20261206220000_log_guards.sql`, no foreign key
    /// involves it (before, it deleted row by row: about 1 ms for 1,024
    /// events, once a filing).
    empty: &'static str,
    /// Makes the other table the target and starts filing this one from
    /// its first player.
    swap: &'static str,
}

macro_rules! recent {
    ($table:literal) => {
        Recent {
            insert: concat!(
                "INSERT INTO ",
                $table,
                " (player_id, seq, kind, payload, created_at) ",
                "VALUES (?1, (SELECT event_seq FROM player_streams WHERE player_id = ?1), ?2, ?3, ?4)"
            ),
            count: concat!("SELECT coalesce(max(rowid), 0) FROM ", $table),
            chunk_end: concat!(
                "SELECT player_id FROM ",
                $table,
                " WHERE player_id >= ?1 ORDER BY player_id, seq LIMIT 1 OFFSET ?2"
            ),
            next_player: concat!("SELECT min(player_id) FROM ", $table, " WHERE player_id > ?1"),
            file: concat!(
                "INSERT INTO player_events_filed (player_id, seq, kind, payload, created_at) ",
                "SELECT player_id, seq, kind, payload, created_at FROM ",
                $table,
                " WHERE player_id BETWEEN ?1 AND ?2 ORDER BY player_id, seq"
            ),
            empty: concat!("DELETE FROM ", $table),
            swap: concat!(
                "UPDATE player_events_filing SET target = 1 - target, ",
                "filed_below = (SELECT min(player_id) FROM ",
                $table,
                ")"
            ),
        }
    };
}

static RECENT: [Recent; 2] = [recent!("player_events_recent_0"), recent!("player_events_recent_1")];

const STATE: &str = "SELECT target, filed_below FROM player_events_filing";
const FILED_BELOW: &str = "UPDATE player_events_filing SET filed_below = ?1";
const FILED: &str = "UPDATE player_events_filing SET filed_below = NULL";

/// Takes the filing a step on, in `tx`: a chunk filed, or the tables
/// swapped when the target is full. The table this transaction's new
/// events go to.
pub(super) fn step(tx: &mut Statements) -> rusqlite::Result<&'static Recent> {
    let (target, filed_below): (i64, Option<i64>) =
        tx.get(STATE)?.query_row([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    let (target, other) = if target == 1 {
        (&RECENT[1], &RECENT[0])
    } else {
        (&RECENT[0], &RECENT[1])
    };
    if let Some(below) = filed_below {
        file_chunk(tx, other, below)?;
        return Ok(target);
    }
    let count: i64 = tx.get(target.count)?.query_row([], |row| row.get(0))?;
    if count < FILE_AFTER {
        return Ok(target);
    }
    tx.get(target.swap)?.execute([])?;
    Ok(other)
}

/// Files about [`CHUNK`] events of `table` from player `below` on (its
/// first player not filed yet), whole players only; the whole table is
/// emptied once its last player is filed.
fn file_chunk(tx: &mut Statements, table: &'static Recent, below: i64) -> rusqlite::Result<()> {
    let end: Option<i64> = tx
        .get(table.chunk_end)?
        .query_row(params![below, CHUNK], |row| row.get(0))
        .optional()?;
    let upto = match end {
        Some(player) if player > below => Some(player),
        // Player `below` has a chunk's events or more: all of theirs.
        Some(_) => tx.get(table.next_player)?.query_row(params![below], |row| row.get(0))?,
        None => None,
    };
    // No player ends the chunk: the rest of the table.
    let last = upto.map_or(i64::MAX, |upto| upto - 1);
    tx.get(table.file)?.execute(params![below, last])?;
    match upto {
        Some(upto) => tx.get(FILED_BELOW)?.execute(params![upto])?,
        None => {
            tx.get(table.empty)?.execute([])?;
            tx.get(FILED)?.execute([])?
        }
    };
    Ok(())
}
