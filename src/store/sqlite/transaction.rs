//! The SQLite writer's transaction: begun, committed and rolled back by
//! statements prepared once per connection ([`Immediate`]), and the
//! statements it runs held at hand until it ends ([`Statements`]). Both
//! exist to take the cost of rusqlite's conveniences off a move's path;
//! neither changes what a transaction does.

use rusqlite::Connection;

/// A batch's transaction, begun and ended by statements prepared once per
/// connection: rusqlite's `Transaction` parses `BEGIN IMMEDIATE` and
/// `COMMIT` again for every batch (`execute_batch`, 17-19k instructions a
/// batch; BENCHMARKS.md, issue 26). Like it, dropped before its commit (or
/// after a failed one) it rolls back; `IMMEDIATE` takes the write lock at
/// once, so a batch never fails half-way for want of it.
pub(super) struct Immediate<'c>(&'c Connection);

impl<'c> Immediate<'c> {
    pub(super) fn begin(connection: &'c Connection) -> rusqlite::Result<Immediate<'c>> {
        connection.prepare_cached("BEGIN IMMEDIATE")?.execute([])?;
        Ok(Immediate(connection))
    }

    pub(super) fn commit(self) -> rusqlite::Result<()> {
        self.0.prepare_cached("COMMIT")?.execute([])?;
        Ok(())
    }
}

impl std::ops::Deref for Immediate<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.0
    }
}

impl Drop for Immediate<'_> {
    fn drop(&mut self) {
        // Still inside the transaction: not committed, or the commit
        // failed. A failed rollback leaves nothing to do here: the next
        // `BEGIN` fails, and with it that batch, which drops the connection.
        if !self.0.is_autocommit() {
            let _ = self
                .0
                .prepare_cached("ROLLBACK")
                .and_then(|mut rollback| rollback.execute([]));
        }
    }
}

/// The statements a transaction has run, kept out of the connection's
/// cache until it ends: rusqlite's `prepare_cached` hashes a statement's
/// whole text to find it and again to put it back, for every statement a
/// move runs (7.9k instructions a move at 10 games in flight, 1.0k with
/// this; issue 26). Found here by the address of the statement's text,
/// always a `&'static str`: a text met at another address is only
/// prepared once more.
pub(super) struct Statements<'c> {
    connection: &'c Connection,
    held: Vec<(&'static str, rusqlite::CachedStatement<'c>)>,
}

impl<'c> Statements<'c> {
    pub(super) fn new(connection: &'c Connection) -> Statements<'c> {
        Statements {
            connection,
            held: Vec::with_capacity(16),
        }
    }

    /// `sql` prepared, from this transaction's statements or the cache.
    pub(super) fn get(&mut self, sql: &'static str) -> rusqlite::Result<&mut rusqlite::CachedStatement<'c>> {
        let index = match self.held.iter().position(|(held, _)| std::ptr::eq(*held, sql)) {
            Some(index) => index,
            None => {
                self.held.push((sql, self.connection.prepare_cached(sql)?));
                self.held.len() - 1
            }
        };
        Ok(&mut self.held[index].1)
    }
}
