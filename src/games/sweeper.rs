//! The background task that ends games lost on time and sends reminders,
//! driven by the `deadline` and `reminder_at` columns (indexed), and
//! starts (or cancels) tournaments whose `starts_at` has passed.
//!
//! Nothing lives only in memory: after a restart the first sweep finds every
//! deadline that passed meanwhile. Several processes may sweep one database:
//! each due game goes through the games service's ordinary commit path,
//! whose optimistic check on the game's event number lets exactly one
//! writer end it (the loser reloads, finds the game over and does nothing);
//! a reminder is claimed by a conditional `UPDATE … SET reminder_at = NULL`
//! in the transaction that stores it. Row locks (`FOR UPDATE SKIP LOCKED`)
//! would only spare the losers some reads, and SQLite has none.

use std::sync::Arc;
use std::time::Duration;

use super::{now, Games};
use crate::tournaments::Tournaments;

/// How many due games one sweep handles; the rest wait for the next.
const BATCH: i64 = 200;

/// One pass: every game past its deadline, every reminder due. Returns how
/// many games this pass ended on time.
pub async fn sweep(games: &Games) -> usize {
    let mut ended = 0;
    let store = &games.store;
    match store.due_deadlines(now(), BATCH).await {
        Ok(ids) => {
            for id in ids {
                match games.time_out(id).await {
                    Ok(true) => ended += 1,
                    Ok(false) => {}
                    Err(e) => tracing::warn!(game = id, error = %e, "time-out failed; retried next sweep"),
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot read deadlines"),
    }
    match store.due_reminders(now(), BATCH).await {
        Ok(ids) => {
            for id in ids {
                if let Err(e) = games.remind(id).await {
                    tracing::warn!(game = id, error = %e, "reminder failed; retried next sweep");
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot read reminders"),
    }
    ended
}

/// Sweeps every `interval` until the task is aborted: games, then due
/// tournaments (each start guarded like a game's end, so several
/// processes may sweep).
pub fn spawn(games: Arc<Games>, tournaments: Arc<Tournaments>, interval: Duration) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticker.tick().await;
            sweep(&games).await;
            tournaments.start_due().await;
        }
    })
}
