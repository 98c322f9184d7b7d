//! Group commit: the changes of many games share one transaction.
//!
//! A durable commit costs an fsync (SQLite's WAL with `synchronous = FULL`)
//! or a WAL flush (PostgreSQL), whatever it carries. So game updates do not
//! commit one by one: they queue here, and a single writer takes
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

use super::{GameUpdate, NewGame, Outbox, StoreError, StoreResult, TournamentStep};

/// The most updates one transaction carries; more wait for the next.
const MAX_BATCH: usize = 512;

/// Updates waiting for the writer; callers beyond this wait to queue.
const QUEUE_CAPACITY: usize = 16 * 1024;

/// A write the writer carries: a game created or a game changed, or
/// players' events turned into notifications. The notifier's pass rides in
/// the writer's transaction rather than its own: on PostgreSQL a separate
/// transaction holding many players' rows deadlocked with the writer, which
/// takes them in another order.
pub enum Change {
    Create(NewGame),
    Update(GameUpdate),
    /// Moves each player's notification cursor and creates their
    /// deliveries, at `now`; a cursor another process moved first is
    /// passed over.
    Notify(Vec<Outbox>, i64),
    /// A tournament's step that no game end carries (its start, its
    /// cancellation); refused when the tournament moved meanwhile.
    Tournament(TournamentStep),
}

/// What a committed [`Change`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Done {
    /// The game with this id was created.
    Created(i64),
    Updated,
    /// This many players' cursors moved.
    Notified(usize),
    /// A tournament's step was written.
    Stepped,
}

struct Pending {
    change: Change,
    done: oneshot::Sender<Answer>,
}

/// A change's final result, and the change itself, handed back to be freed
/// by the task that built it: freed on the writer's thread, each of its
/// allocations went back to another thread's heap, which that thread had to
/// collect later, and the memory came back cold (issue 26).
type Answer = (StoreResult<Done>, Change);

/// How much grouping happened, for `/metrics`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CommitStats {
    /// Transactions of the writer.
    pub transactions: u64,
    /// Changes (creations, updates, notifier passes) committed.
    pub updates: u64,
}

#[derive(Default)]
struct Counters {
    transactions: AtomicU64,
    updates: AtomicU64,
}

/// The queue in front of the writer task.
pub struct GroupCommit {
    sender: mpsc::Sender<Pending>,
    counters: Arc<Counters>,
}

/// The writer's end of the queue.
struct Queue {
    receiver: mpsc::Receiver<Pending>,
    counters: Arc<Counters>,
}

type Waiters = Vec<oneshot::Sender<Answer>>;

impl Queue {
    /// `first` and everything queued behind it, up to [`MAX_BATCH`].
    fn batch(&mut self, first: Pending) -> (Vec<Change>, Waiters) {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match self.receiver.try_recv() {
                Ok(pending) => batch.push(pending),
                Err(_) => break,
            }
        }
        batch.into_iter().map(|p| (p.change, p.done)).unzip()
    }

    /// Tells each caller its final result, with its change.
    fn answer(&self, waiters: Waiters, changes: Vec<Change>, results: Vec<StoreResult<Done>>, transactions: u64) {
        let committed = results.iter().filter(|r| r.is_ok()).count() as u64;
        self.counters.transactions.fetch_add(transactions, Ordering::Relaxed);
        self.counters.updates.fetch_add(committed, Ordering::Relaxed);
        for ((waiter, change), result) in waiters.into_iter().zip(changes).zip(results) {
            // A caller that went away (its request was cancelled) still
            // had its change committed or refused.
            let _ = waiter.send((result, change));
        }
    }
}

impl GroupCommit {
    fn queue() -> (GroupCommit, Queue) {
        let (sender, receiver) = mpsc::channel::<Pending>(QUEUE_CAPACITY);
        let counters = Arc::new(Counters::default());
        let queue = Queue {
            receiver,
            counters: counters.clone(),
        };
        (GroupCommit { sender, counters }, queue)
    }

    /// Starts the writer as the task of a one-thread runtime on a thread of
    /// its own, for an async `commit` (a database client such as sqlx).
    /// `commit` writes a batch in as few transactions as it can and returns
    /// one result per change, in order, each final (committed or refused),
    /// and how many transactions it took. On the server's runtime each of
    /// a batch's round trips to the database would wait behind every
    /// request task for a worker; on its own thread the kernel runs the
    /// writer as soon as its answer arrives.
    pub fn spawn_runtime_thread<F, Fut>(mut commit: F) -> std::io::Result<GroupCommit>
    where
        F: FnMut(Vec<Change>) -> Fut + Send + 'static,
        Fut: Future<Output = (Vec<Change>, Vec<StoreResult<Done>>, u64)>,
    {
        let (group_commit, mut queue) = GroupCommit::queue();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        std::thread::Builder::new()
            .name("group-commit".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    // Ends when the store (the only sender) is dropped.
                    while let Some(first) = queue.receiver.recv().await {
                        let (changes, waiters) = queue.batch(first);
                        let (changes, results, transactions) = commit(changes).await;
                        queue.answer(waiters, changes, results, transactions);
                    }
                });
            })?;
        Ok(group_commit)
    }

    /// Starts the writer on a thread of its own, for a `commit` that
    /// blocks (a synchronous database driver).
    pub fn spawn_thread<F>(mut commit: F) -> std::io::Result<GroupCommit>
    where
        F: FnMut(&[Change]) -> (Vec<StoreResult<Done>>, u64) + Send + 'static,
    {
        let (group_commit, mut queue) = GroupCommit::queue();
        std::thread::Builder::new()
            .name("group-commit".to_owned())
            .spawn(move || {
                // Ends when the store (the only sender) is dropped.
                while let Some(first) = queue.receiver.blocking_recv() {
                    let (changes, waiters) = queue.batch(first);
                    let (results, transactions) = commit(&changes);
                    queue.answer(waiters, changes, results, transactions);
                }
            })?;
        Ok(group_commit)
    }

    /// Queues `change` and waits until it is committed or refused.
    async fn submit(&self, change: Change) -> StoreResult<Done> {
        let (done, answer) = oneshot::channel();
        self.sender
            .send(Pending { change, done })
            .await
            .map_err(|_| StoreError::from(sqlx::Error::PoolClosed))?;
        let (result, change) = answer.await.map_err(|_| StoreError::from(sqlx::Error::PoolClosed))?;
        drop(change);
        result
    }

    /// Creates a game; its id once committed.
    pub async fn create(&self, game: NewGame) -> StoreResult<i64> {
        match self.submit(Change::Create(game)).await? {
            Done::Created(id) => Ok(id),
            other => Err(mismatch(other)),
        }
    }

    /// Queues notifications; how many players' cursors moved.
    pub async fn notify(&self, outboxes: Vec<Outbox>, now: i64) -> StoreResult<usize> {
        if outboxes.is_empty() {
            return Ok(0);
        }
        match self.submit(Change::Notify(outboxes, now)).await? {
            Done::Notified(players) => Ok(players),
            other => Err(mismatch(other)),
        }
    }

    /// Applies an update once committed; [`StoreError::Conflict`] when its
    /// guard refused it.
    pub async fn update(&self, update: GameUpdate) -> StoreResult<()> {
        self.submit(Change::Update(update)).await.map(|_| ())
    }

    /// Writes a tournament's step once committed;
    /// [`StoreError::TournamentMoved`] when its guard refused it.
    pub async fn tournament(&self, step: TournamentStep) -> StoreResult<()> {
        match self.submit(Change::Tournament(step)).await? {
            Done::Stepped => Ok(()),
            other => Err(mismatch(other)),
        }
    }

    pub fn stats(&self) -> CommitStats {
        CommitStats {
            transactions: self.counters.transactions.load(Ordering::Relaxed),
            updates: self.counters.updates.load(Ordering::Relaxed),
        }
    }
}

/// A writer answered a change with another kind of result: a bug.
fn mismatch(done: Done) -> StoreError {
    StoreError::Db(sqlx::Error::Protocol(format!("the writer answered {done:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer runs on a thread of its own, the same for every batch,
    /// not on the submitter's runtime; its answers reach the submitters.
    #[tokio::test]
    async fn an_async_writer_commits_on_a_thread_of_its_own() {
        // The commit reports where it ran through a channel, and answers
        // what it was told to, so that neither fact comes back by itself.
        let (ran_on, threads) = std::sync::mpsc::channel();
        let commits = GroupCommit::spawn_runtime_thread(move |batch: Vec<Change>| {
            let thread = std::thread::current();
            ran_on
                .send((thread.id(), thread.name().map(str::to_owned)))
                .expect("the test listens");
            async move {
                let results = batch.iter().map(|_| Ok(Done::Notified(7))).collect();
                (batch, results, 1)
            }
        })
        .expect("writer thread");
        let outbox = || Outbox {
            player_id: 1,
            from: 0,
            to: 1,
            deliveries: Vec::new(),
        };
        assert_eq!(commits.notify(vec![outbox()], 0).await.expect("committed"), 7);
        assert_eq!(commits.notify(vec![outbox()], 0).await.expect("committed"), 7);
        let (first, name) = threads.recv().expect("the first batch ran");
        let (second, _) = threads.recv().expect("the second batch ran");
        assert_ne!(first, std::thread::current().id(), "not on the submitter's thread");
        assert_eq!(name.as_deref(), Some("group-commit"));
        assert_eq!(first, second, "one writer thread for every batch");
        assert_eq!(commits.stats().transactions, 2);
        assert_eq!(commits.stats().updates, 2);
    }

    /// Each caller gets its own result and its own change back, in the
    /// batch's order, to free it where it was built; a caller gone away
    /// costs nothing but its answer.
    #[tokio::test]
    async fn each_caller_gets_its_result_and_its_change_back() {
        let (_group, queue) = GroupCommit::queue();
        let change = |player_id, kind: &str| {
            Change::Notify(
                vec![Outbox {
                    player_id,
                    from: 0,
                    to: 1,
                    deliveries: vec![crate::store::NewDelivery {
                        event_seq: 1,
                        channel: "mail",
                        kind: kind.to_owned(),
                        due_at: 0,
                    }],
                }],
                5,
            )
        };
        let (first, first_answer) = oneshot::channel();
        let (gone, gone_answer) = oneshot::channel();
        let (last, last_answer) = oneshot::channel();
        drop(gone_answer);
        queue.answer(
            vec![first, gone, last],
            vec![change(1, "a"), change(2, "b"), change(3, "c")],
            vec![Ok(Done::Notified(1)), Ok(Done::Notified(1)), Err(StoreError::Conflict)],
            1,
        );
        let told = |answer: Answer| match answer {
            (result, Change::Notify(outboxes, 5)) => (
                result.map_err(|e| e.to_string()),
                outboxes[0].player_id,
                outboxes[0].deliveries[0].kind.clone(),
            ),
            _ => panic!("another change came back"),
        };
        assert_eq!(
            told(first_answer.await.expect("answered")),
            (Ok(Done::Notified(1)), 1, "a".to_owned())
        );
        assert_eq!(
            told(last_answer.await.expect("answered")),
            (Err(StoreError::Conflict.to_string()), 3, "c".to_owned())
        );
        assert_eq!(queue.counters.updates.load(Ordering::Relaxed), 2);
        assert_eq!(queue.counters.transactions.load(Ordering::Relaxed), 1);
    }
}
