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

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::{Event, GameUpdate, NewMove, StoreError, StoreResult};

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

/// The rows that plain updates add once their guards let them through,
/// for a backend to write with one statement per table.
pub struct PlainRows<'a> {
    pub moves: Vec<(&'a GameUpdate, &'a NewMove)>,
    /// `(update, seq, event)`, numbered after the update's `expected_seq`.
    pub events: Vec<(&'a GameUpdate, i64, &'a Event)>,
    /// How many events each player's stream receives, by player id (in
    /// id order, the order their counters are moved).
    pub shares: BTreeMap<i64, i64>,
}

impl<'a> PlainRows<'a> {
    pub fn of(through: &[&'a GameUpdate]) -> PlainRows<'a> {
        let mut shares = BTreeMap::new();
        for event in through.iter().flat_map(|u| &u.player_events) {
            *shares.entry(event.player_id).or_default() += 1;
        }
        PlainRows {
            moves: through
                .iter()
                .filter_map(|u| u.insert_move.as_ref().map(|m| (*u, m)))
                .collect(),
            events: through
                .iter()
                .flat_map(|u| (u.expected_seq + 1..).zip(&u.events).map(move |(seq, e)| (*u, seq, e)))
                .collect(),
            shares,
        }
    }

    /// The player events, numbered: `counters` holds each player's counter
    /// after it was moved by its share, so their events take the numbers
    /// just below it, in batch order. Each payload names its game.
    pub fn player_events(
        &self,
        through: &[&GameUpdate],
        counters: &HashMap<i64, i64>,
    ) -> StoreResult<Vec<NumberedPlayerEvent>> {
        let mut next: HashMap<i64, i64> = HashMap::with_capacity(self.shares.len());
        for (player, share) in &self.shares {
            let last = counters.get(player).ok_or(StoreError::Conflict)?;
            next.insert(*player, last - share + 1);
        }
        let mut numbered = Vec::new();
        for update in through {
            for event in &update.player_events {
                let seq = next.get_mut(&event.player_id).ok_or(StoreError::Conflict)?;
                let mut payload = event.payload.clone();
                if let Value::Object(map) = &mut payload {
                    map.insert("game".to_owned(), Value::from(update.id));
                }
                numbered.push(NumberedPlayerEvent {
                    player_id: event.player_id,
                    seq: *seq,
                    kind: event.kind,
                    payload,
                    created_at: update.now,
                });
                *seq += 1;
            }
        }
        Ok(numbered)
    }
}

/// A row of `player_events`.
pub struct NumberedPlayerEvent {
    pub player_id: i64,
    pub seq: i64,
    pub kind: &'static str,
    pub payload: Value,
    pub created_at: i64,
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
