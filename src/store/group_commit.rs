//! Group commit: the changes of many games share one transaction.
//!
//! A durable commit costs an fsync (SQLite's WAL with `synchronous = FULL`)
//! or a WAL flush (PostgreSQL), whatever it carries. So game updates do not
//! commit one by one: they queue here, and a single writer task takes
//! everything that queued while the previous transaction was committing and
//! writes it in the next one. Under light load a batch holds one update and
//! nothing waits longer than before; under heavy load one fsync carries
//! hundreds of moves.
//!
//! Each update keeps its own guard (the game's event number), so a batch can
//! commit some updates and refuse others. Every caller hears its own result
//! only after the transaction carrying it committed.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::{GameUpdate, StoreError, StoreResult};

/// The most updates one transaction carries; more wait for the next.
const MAX_BATCH: usize = 512;

/// Updates waiting for the writer; callers beyond this wait to queue.
const QUEUE_CAPACITY: usize = 16 * 1024;

struct Pending {
    update: GameUpdate,
    done: oneshot::Sender<StoreResult<()>>,
}

/// How much grouping happened, for `/metrics`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommitStats {
    /// Transactions that carried game updates.
    pub transactions: u64,
    /// Game updates committed.
    pub updates: u64,
}

#[derive(Default)]
struct Counters {
    transactions: AtomicU64,
    updates: AtomicU64,
}

/// Splits a batch, by index, into the updates that can be written with one
/// statement per table (no seat taken, no move taken back, the first update
/// of its game in the batch, so its guard sees the game as it was before
/// the batch) and the rest, written one by one after them, in order.
pub fn split_plain(batch: &[GameUpdate]) -> (Vec<usize>, Vec<usize>) {
    let mut seen = std::collections::HashSet::with_capacity(batch.len());
    let (mut plain, mut rest) = (Vec::with_capacity(batch.len()), Vec::new());
    for (i, update) in batch.iter().enumerate() {
        let first = seen.insert(update.id);
        if first && update.sit.is_empty() && update.delete_move.is_none() {
            plain.push(i);
        } else {
            rest.push(i);
        }
    }
    (plain, rest)
}

/// The queue in front of the writer task.
pub struct GroupCommit {
    sender: mpsc::Sender<Pending>,
    counters: Arc<Counters>,
}

impl GroupCommit {
    /// Starts the writer task. `commit` writes a batch in as few
    /// transactions as it can and returns one result per update, in order,
    /// each final (committed or refused).
    pub fn spawn<F, Fut>(mut commit: F) -> GroupCommit
    where
        F: FnMut(Vec<GameUpdate>) -> Fut + Send + 'static,
        Fut: Future<Output = (Vec<StoreResult<()>>, u64)> + Send,
    {
        let (sender, mut receiver) = mpsc::channel::<Pending>(QUEUE_CAPACITY);
        let counters = Arc::new(Counters::default());
        let stats = counters.clone();
        tokio::spawn(async move {
            // Ends when the store (the only sender) is dropped.
            while let Some(first) = receiver.recv().await {
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match receiver.try_recv() {
                        Ok(pending) => batch.push(pending),
                        Err(_) => break,
                    }
                }
                let (updates, waiters): (Vec<GameUpdate>, Vec<oneshot::Sender<StoreResult<()>>>) =
                    batch.into_iter().map(|p| (p.update, p.done)).unzip();
                let (results, transactions) = commit(updates).await;
                let committed = results.iter().filter(|r| r.is_ok()).count() as u64;
                stats.transactions.fetch_add(transactions, Ordering::Relaxed);
                stats.updates.fetch_add(committed, Ordering::Relaxed);
                for (waiter, result) in waiters.into_iter().zip(results) {
                    // A caller that went away (its request was cancelled)
                    // still had its update committed or refused.
                    let _ = waiter.send(result);
                }
            }
        });
        GroupCommit { sender, counters }
    }

    /// Queues `update` and waits until it is committed or refused.
    pub async fn submit(&self, update: GameUpdate) -> StoreResult<()> {
        let (done, answer) = oneshot::channel();
        self.sender
            .send(Pending { update, done })
            .await
            .map_err(|_| StoreError::Db(sqlx::Error::PoolClosed))?;
        answer.await.map_err(|_| StoreError::Db(sqlx::Error::PoolClosed))?
    }

    pub fn stats(&self) -> CommitStats {
        CommitStats {
            transactions: self.counters.transactions.load(Ordering::Relaxed),
            updates: self.counters.updates.load(Ordering::Relaxed),
        }
    }
}
