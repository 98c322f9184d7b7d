//! SQLite's game writer: the group commit's batches, written on a thread of
//! its own through a connection of its own (rusqlite), from `BEGIN` to
//! `COMMIT` without leaving the thread.
//!
//! Through sqlx every statement was a round trip between the runtime and
//! sqlx's connection thread. A batch takes a few dozen statements, and on a
//! busy machine each round trip waited for a CPU: batches took about 10 ms,
//! most of it spent queued, and that capped the whole server (BENCHMARKS.md).
//! Readers keep sqlx's pool: in WAL mode they read while this writes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{params, Connection, ErrorCode, OpenFlags};
use serde_json::Value;

use super::checkpoint;
use super::filing;
use super::transaction::{Immediate, Statements};
use super::vfs;
use crate::store::group_commit::{Change, Done};
use crate::store::{
    sql, ConditionalWrite, Event, GameUpdate, NewGame, Outbox, PlayerEvent, RatingChange, StoreError, StoreResult,
    TournamentStep,
};

/// How long a write waits for another process's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Writer {
    path: PathBuf,
    /// Opened on first use and again after a failure.
    connection: Option<Connection>,
}

/// Why a batch's transaction did not commit.
enum Failure {
    /// One change failed (a constraint, a seat taken meanwhile): the
    /// transaction rolled back, and the batch is written again without it.
    Change(usize, StoreError),
    /// The transaction itself failed (the disk, the lock): every change
    /// still in the batch fails with it.
    Transaction(rusqlite::Error),
}

impl From<rusqlite::Error> for Failure {
    fn from(error: rusqlite::Error) -> Failure {
        Failure::Transaction(error)
    }
}

impl Writer {
    /// A writer of the database file at `path`.
    pub fn new(path: PathBuf) -> Writer {
        Writer { path, connection: None }
    }

    /// Writes `batch` in one transaction; one final result per change, in
    /// order, and how many transactions committed.
    pub fn commit(&mut self, batch: &[Change]) -> (Vec<StoreResult<Done>>, u64) {
        let mut refused: Vec<Option<StoreError>> = batch.iter().map(|_| None).collect();
        // Each failed attempt sets one change aside, so this ends.
        loop {
            match self.attempt(batch, &refused) {
                Ok(done) => {
                    let results = done
                        .into_iter()
                        .zip(refused)
                        .map(|(done, refusal)| match (done, refusal) {
                            (_, Some(error)) => Err(error),
                            (Some(done), None) => Ok(done),
                            (None, None) => Err(StoreError::Conflict),
                        })
                        .collect();
                    return (results, 1);
                }
                Err(Failure::Change(index, error)) => refused[index] = Some(error),
                Err(Failure::Transaction(error)) => {
                    tracing::warn!(%error, changes = batch.len(), "the SQLite writer's transaction failed");
                    // The connection may be what failed: the next batch
                    // opens another.
                    self.connection = None;
                    let error = Arc::new(error);
                    let results = refused
                        .into_iter()
                        .map(|refusal| Err(refusal.unwrap_or_else(|| StoreError::Writer(error.clone()))))
                        .collect();
                    return (results, 0);
                }
            }
        }
    }

    /// One transaction over the changes not refused yet: for each change,
    /// what it did, or `None` when its guard refused it (or it was refused
    /// before).
    fn attempt(&mut self, batch: &[Change], refused: &[Option<StoreError>]) -> Result<Vec<Option<Done>>, Failure> {
        let connection = self.connection()?;
        let tx = Immediate::begin(connection)?;
        let mut statements = Statements::new(&tx);
        let recent = filing::step(&mut statements)?;
        let mut statements = Batch { statements, recent };
        let mut done = Vec::with_capacity(batch.len());
        for (index, change) in batch.iter().enumerate() {
            if refused[index].is_some() {
                done.push(None);
                continue;
            }
            // Dropping `tx` on the way out rolls it back.
            done.push(apply(&mut statements, change).map_err(|error| match error {
                ChangeError::Own(error) => Failure::Change(index, error),
                ChangeError::Transaction(error) => Failure::Transaction(error),
            })?);
        }
        // Back into the connection's cache for the next batch.
        drop(statements);
        tx.commit()?;
        Ok(done)
    }

    fn connection(&mut self) -> rusqlite::Result<&Connection> {
        let connection = match self.connection.take() {
            Some(connection) => connection,
            None => open(&self.path)?,
        };
        Ok(self.connection.insert(connection))
    }
}

/// A connection with the durability sqlx's pool has: WAL, `synchronous =
/// FULL`, foreign keys checked; through [`vfs`], which writes a commit's
/// WAL frames at once and relies on that `FULL` (every commit syncs).
pub(super) fn open(path: &PathBuf) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = if vfs::register() {
        Connection::open_with_flags_and_vfs(path, flags, vfs::NAME.to_str().unwrap_or_default())?
    } else {
        Connection::open_with_flags(path, flags)?
    };
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", "ON")?;
    // A statement that writes many rows (the filing of players' events)
    // keeps its statement journal, the pages it changed as they were, in
    // memory: on a file it opened a temporary file and wrote every page to
    // it, at each filing (issue 26).
    connection.pragma_update(None, "temp_store", "MEMORY")?;
    // Checkpoints are the thread of `checkpoint.rs`'s to make.
    connection.pragma_update(None, "wal_autocheckpoint", checkpoint::BACKSTOP)?;
    // Every statement the writer runs stays prepared (about 25 with the
    // transaction's own; rusqlite keeps 16 by default).
    connection.set_prepared_statement_cache_capacity(64);
    Ok(connection)
}

/// A batch's transaction as its changes see it: the statements it runs,
/// and the table its new player events go to.
struct Batch<'c> {
    statements: Statements<'c>,
    recent: &'static filing::Recent,
}

impl<'c> std::ops::Deref for Batch<'c> {
    type Target = Statements<'c>;

    fn deref(&self) -> &Statements<'c> {
        &self.statements
    }
}

impl std::ops::DerefMut for Batch<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.statements
    }
}

/// Why one change could not be written.
enum ChangeError {
    /// The change's own fault (a key or seat taken, a constraint): it
    /// fails alone.
    Own(StoreError),
    /// Not the change's fault (the disk, the lock): the batch fails.
    Transaction(rusqlite::Error),
}

type ChangeResult<T> = Result<T, ChangeError>;

fn store_error(error: rusqlite::Error) -> ChangeError {
    match error.sqlite_error() {
        Some(e)
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            ChangeError::Own(StoreError::Unique)
        }
        Some(e) if e.code == ErrorCode::ConstraintViolation => ChangeError::Own(StoreError::Writer(Arc::new(error))),
        _ => ChangeError::Transaction(error),
    }
}

/// Runs one statement of the change (prepared once per connection):
/// how many rows it changed.
fn execute(tx: &mut Statements, statement: &'static str, params: impl rusqlite::Params) -> ChangeResult<usize> {
    tx.get(statement)
        .and_then(|prepared| prepared.execute(params))
        .map_err(store_error)
}

/// Runs one guarded statement of the change, which must change exactly one
/// row: `refused` (the change fails alone) when its guard matched nothing.
fn execute_one(
    tx: &mut Statements,
    statement: &'static str,
    params: impl rusqlite::Params,
    refused: StoreError,
) -> ChangeResult<()> {
    match execute(tx, statement, params)? {
        1 => Ok(()),
        _ => Err(ChangeError::Own(refused)),
    }
}

/// JSON columns hold text, as sqlx writes them. Through
/// `serde_json::to_string`, not `Value`'s `Display`, which writes through
/// `fmt` a piece at a time (6.9k instructions a move; issue 26).
fn json(value: &Value) -> String {
    serde_json::to_string(value).expect("a JSON value prints: its keys are strings, its writer a Vec")
}

/// Writes one change; `None` when its guard refused it.
fn apply(tx: &mut Batch, change: &Change) -> ChangeResult<Option<Done>> {
    match change {
        Change::Create(game) => create(tx, game).map(|id| Some(Done::Created(id))),
        Change::Update(update) => Ok(update_game(tx, update)?.then_some(Done::Updated)),
        Change::Notify(outboxes, now) => notify(tx, outboxes, *now).map(|players| Some(Done::Notified(players))),
        Change::Tournament(step) => step_tournament(tx, step).map(|()| Some(Done::Stepped)),
    }
}

/// How many players' cursors moved.
fn notify(tx: &mut Statements, outboxes: &[Outbox], now: i64) -> ChangeResult<usize> {
    let mut moved = 0;
    for outbox in outboxes {
        if execute(
            tx,
            sql::MOVE_NOTIFY_CURSOR,
            params![outbox.to, outbox.player_id, outbox.from],
        )? != 1
        {
            continue;
        }
        moved += 1;
        for d in &outbox.deliveries {
            execute(
                tx,
                sql::INSERT_DELIVERY,
                params![outbox.player_id, d.event_seq, d.channel, d.kind, d.due_at, now],
            )?;
        }
    }
    Ok(moved)
}

fn create(tx: &mut Batch, game: &NewGame) -> ChangeResult<i64> {
    let (status, to_move) = game.starts_as();
    let id: i64 = tx
        .get(sql::INSERT_GAME)
        .and_then(|statement| {
            statement.query_row(
                params![
                    game.game,
                    game.variant,
                    status.as_str(),
                    game.public,
                    to_move.map(i64::from),
                    game.events.len() as i64,
                    game.created_by,
                    game.now,
                    game.time_control.as_ref().map(json),
                    game.rated,
                    game.rating_min,
                    game.rating_max,
                    game.rematch_of,
                    game.clock.as_ref().map(json),
                    game.deadline,
                    game.reminder_at,
                    game.invite_code,
                ],
                |row| row.get(0),
            )
        })
        .map_err(store_error)?;
    for (seat, (player, invitee)) in game.seats.iter().enumerate() {
        execute(tx, sql::INSERT_SEAT, params![id, seat as i64, player, invitee])?;
    }
    if let Some(original) = game.rematch_of {
        execute_one(tx, sql::SET_REMATCH, params![id, original], StoreError::Conflict)?;
    }
    insert_game_events(tx, id, 1, &game.events, game.now)?;
    insert_player_events(tx, Some(id), &game.player_events, game.now)?;
    Ok(id)
}

/// A game's row updated with its status, deadline and reminder left as
/// they are (most moves leave them), those three checked in the guard
/// instead: matches nothing when any of them would change, or when the
/// game is no longer at the expected event number and conditional trees.
/// SQLite rewrites the entries of every index over a column an `UPDATE`
/// sets, whether its value changes or not (`games_status`,
/// `games_deadline`, `games_reminder`); setting none of them, this
/// statement opens no index (issue 26). PostgreSQL needs no such
/// statement: an update that changes no indexed column is a HOT update
/// there.
const UPDATE_GAME_IN_PLACE: &str = "UPDATE games SET ply = ?2, to_move = ?3, outcome = ?4, draw_offer = ?5, \
     takeback_offer = ?6, event_seq = ?7, updated_at = ?8, clock = ?9, conditional_rev = ?12 \
     WHERE id = ?13 AND event_seq = ?14 AND conditional_rev = ?15 \
     AND status = ?1 AND deadline IS ?10 AND reminder_at IS ?11";

/// `false` when the guard refused the update: the game is no longer at
/// `expected_seq`, and nothing was written.
fn update_game(tx: &mut Batch, update: &GameUpdate) -> ChangeResult<bool> {
    let new_seq = update.expected_seq + update.events.len() as i64;
    // [`sql::UPDATE_GAME`]'s parameters, in its order: the statement in
    // place numbers them alike (`?n` binds the n-th; SQLite numbers `$n` by
    // first appearance, which in `UPDATE_GAME` is the same).
    let (outcome, clock) = (update.outcome.as_ref().map(json), update.clock.as_ref().map(json));
    let row = params![
        update.status.as_str(),
        update.ply,
        update.to_move.map(i64::from),
        outcome,
        update.draw_offer,
        update.takeback_offer,
        new_seq,
        update.now,
        clock,
        update.deadline,
        update.reminder_at,
        update.new_rev(),
        update.id,
        update.expected_seq,
        update.expected_rev,
    ];
    // Otherwise the whole row, under the guard of the event number and
    // trees alone.
    let changed = match execute(tx, UPDATE_GAME_IN_PLACE, row)? {
        1 => 1,
        _ => execute(tx, sql::UPDATE_GAME, row)?,
    };
    if changed != 1 {
        return Ok(false);
    }
    for (seat, player) in &update.sit {
        execute_one(
            tx,
            sql::SIT,
            params![player, update.id, i64::from(*seat)],
            StoreError::Conflict,
        )?;
    }
    if let Some(write) = &update.conditional {
        write_conditional(tx, update.id, write, update.now)?;
    }
    insert_game_events(tx, update.id, update.expected_seq + 1, &update.events, update.now)?;
    insert_player_events(tx, Some(update.id), &update.player_events, update.now)?;
    write_ratings(tx, &update.ratings)?;
    if let Some(step) = &update.tournament {
        step_tournament(tx, step)?;
    }
    Ok(true)
}

/// Writes a tournament's step: its guarded move first, then the games and
/// pairings of its new round, the league's groups and its players' events.
/// The change fails alone, with [`StoreError::TournamentMoved`], when the
/// tournament is no longer at the step's revision.
fn step_tournament(tx: &mut Batch, step: &TournamentStep) -> ChangeResult<()> {
    execute_one(
        tx,
        sql::STEP_TOURNAMENT,
        params![
            step.status.as_str(),
            step.round,
            step.now,
            step.tournament_id,
            step.expected_rev
        ],
        StoreError::TournamentMoved,
    )?;
    for pairing in &step.pairings {
        let game_id = match &pairing.game {
            Some(game) => Some(create(tx, game)?),
            None => None,
        };
        execute(
            tx,
            sql::INSERT_PAIRING,
            params![
                step.tournament_id,
                pairing.round,
                pairing.grp,
                game_id,
                pairing.first_id,
                pairing.second_id
            ],
        )?;
    }
    for (player, group) in &step.groups {
        execute(tx, sql::SET_GROUP, params![group, step.tournament_id, player])?;
    }
    insert_player_events(tx, None, &step.events, step.now)
}

/// Writes a game end's rating changes (the statements of
/// [`sql::write_ratings`]); the change fails alone, with
/// [`StoreError::RatingsMoved`], when a rating is no longer where it was
/// computed from.
fn write_ratings(tx: &mut Statements, changes: &[RatingChange]) -> ChangeResult<()> {
    for c in changes {
        let (wins, losses, draws) = c.result.counts();
        if c.number == 1 {
            execute_one(
                tx,
                sql::INSERT_RATING,
                params![
                    c.player_id,
                    c.game,
                    c.variant,
                    c.after.rating,
                    c.after.rd,
                    c.after.volatility,
                    1_i64,
                    wins,
                    losses,
                    draws,
                    c.played_at,
                    c.ordinal
                ],
                StoreError::RatingsMoved,
            )
        } else {
            execute_one(
                tx,
                sql::UPDATE_RATING,
                params![
                    c.after.rating,
                    c.after.rd,
                    c.after.volatility,
                    c.number,
                    wins,
                    losses,
                    draws,
                    c.played_at,
                    c.ordinal,
                    c.player_id,
                    c.game,
                    c.variant,
                    c.number - 1
                ],
                StoreError::RatingsMoved,
            )
        }?;
        execute(
            tx,
            sql::INSERT_RATING_CHANGE,
            params![
                c.game_id,
                c.player_id,
                c.game,
                c.variant,
                c.number,
                c.ordinal,
                c.result.as_str(),
                c.before.rating,
                c.before.rd,
                c.before.volatility,
                c.after.rating,
                c.after.rd,
                c.after.volatility,
                c.played_at
            ],
        )?;
    }
    Ok(())
}

fn write_conditional(tx: &mut Statements, game_id: i64, write: &ConditionalWrite, now: i64) -> ChangeResult<()> {
    match write {
        ConditionalWrite::Put(tree) => execute(
            tx,
            sql::PUT_CONDITIONAL,
            params![game_id, tree.player_id, tree.ply, json(&tree.lines), now],
        ),
        ConditionalWrite::Delete { player_id } => execute(tx, sql::DELETE_CONDITIONAL, params![game_id, player_id]),
        ConditionalWrite::DeleteAll => execute(tx, sql::DELETE_CONDITIONALS, params![game_id]),
    }?;
    Ok(())
}

fn insert_game_events(
    tx: &mut Statements,
    game_id: i64,
    first_seq: i64,
    events: &[Event],
    now: i64,
) -> ChangeResult<()> {
    for (seq, event) in (first_seq..).zip(events) {
        execute(
            tx,
            sql::INSERT_GAME_EVENT,
            params![game_id, seq, event.kind, event.payload.get(), now],
        )?;
    }
    Ok(())
}

/// Moves a player's event counter on by one. [`sql::NEXT_PLAYER_EVENT`]'s
/// `RETURNING` is not used here: SQLite materialises a `RETURNING` into a
/// temporary table, opened, written and dropped at every execution, which
/// made the counter's statement cost more than the move's other statements
/// together (callgrind, BENCHMARKS.md).
const BUMP_PLAYER_EVENT: &str = "UPDATE player_streams SET event_seq = event_seq + 1 WHERE player_id = ?1";

/// Numbers each player event from its player's counter and stores it with
/// the recent ones ([`filing`]), its payload naming the game (if any).
fn insert_player_events(tx: &mut Batch, game_id: Option<i64>, events: &[PlayerEvent], now: i64) -> ChangeResult<()> {
    let insert = tx.recent.insert;
    for event in events {
        let payload = event.stored_payload(game_id);
        if execute(tx, BUMP_PLAYER_EVENT, params![event.player_id])? != 1 {
            return Err(ChangeError::Own(StoreError::NoSuchPlayer(event.player_id)));
        }
        execute(tx, insert, params![event.player_id, event.kind, &*payload, now])?;
    }
    Ok(())
}
