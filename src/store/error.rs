//! What can go wrong in the store, in the store's own words: no HTTP here
//! (the services wrap them in their own errors, which `crate::http::error`
//! maps to responses).

use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names no backend this build has.
    #[error("DATABASE_URL must start with sqlite: or postgres://")]
    UnknownDatabase,
    /// The game changed since it was read, or the database rolled the
    /// write back to break a deadlock: nothing was written; reload and
    /// decide again.
    #[error("the game changed meanwhile")]
    Conflict,
    /// A rating the game's end was computed from changed meanwhile (another
    /// game of one of its players ended first): compute it again.
    #[error("a player's rating changed meanwhile")]
    RatingsMoved,
    /// The tournament a step was decided on moved meanwhile (a player
    /// joined or left, another of its games ended first): decide again.
    #[error("the tournament changed meanwhile")]
    TournamentMoved,
    /// The change is for players who have never taken a seat, and this
    /// one has: nothing was written.
    #[error("the player has taken a seat")]
    Played,
    /// An event was addressed to a player who does not exist (no stream
    /// counter numbers it): the change carrying it is refused, alone.
    #[error("no player {0} to address an event to")]
    NoSuchPlayer(i64),
    /// A unique constraint refused the write.
    #[error("unique constraint violated")]
    Unique,
    /// A stored row is not what the schema promises (a status no game has,
    /// a seat no table has): the database, not the request, is wrong.
    #[error("a stored row does not decode: {0}")]
    BadRow(sqlx::Error),
    #[error(transparent)]
    Db(sqlx::Error),
    /// SQLite's game writer failed; shared by every change of the batch
    /// that failed with it.
    #[error("the SQLite writer failed: {0}")]
    Writer(Arc<rusqlite::Error>),
}

/// PostgreSQL's `deadlock_detected` and `serialization_failure`: it rolled
/// the transaction back whole, so nothing of it was written and deciding
/// again from a fresh read is safe. Two servers ending games that share a
/// player can meet this way (each holds one player's row the other needs).
const ROLLED_BACK_BY_THE_DATABASE: [&str; 2] = ["40P01", "40001"];

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> StoreError {
        let rolled_back = error
            .as_database_error()
            .and_then(|e| e.code())
            .is_some_and(|code| ROLLED_BACK_BY_THE_DATABASE.contains(&code.as_ref()));
        match error {
            _ if rolled_back => StoreError::Conflict,
            sqlx::Error::ColumnDecode { .. } | sqlx::Error::Decode(_) | sqlx::Error::ColumnNotFound(_) => {
                StoreError::BadRow(error)
            }
            error => StoreError::Db(error),
        }
    }
}

impl StoreError {
    /// A write's error: a unique violation is the request's fault.
    pub(crate) fn from_write(error: sqlx::Error) -> StoreError {
        match error.as_database_error() {
            Some(e) if e.is_unique_violation() => StoreError::Unique,
            _ => StoreError::from(error),
        }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_failures_are_bad_rows_and_the_rest_database_errors() {
        let decode = sqlx::Error::ColumnDecode {
            index: "status".to_owned(),
            source: "no".into(),
        };
        assert!(matches!(StoreError::from(decode), StoreError::BadRow(_)));
        assert!(matches!(StoreError::from(sqlx::Error::PoolClosed), StoreError::Db(_)));
        assert!(matches!(
            StoreError::from_write(sqlx::Error::RowNotFound),
            StoreError::Db(_)
        ));
    }
}
