//! The thinking pool: a fixed number of plain threads, fed through a
//! bounded channel, run the bots' searches. A search is pure CPU for up to
//! about a second; on the async runtime it would hold a worker that
//! humans' requests need, so it never runs there.

use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};

use crate::bots::{self, Level};
use crate::rules::AnyGame;

struct Job {
    game: AnyGame,
    level: Level,
    seed: u64,
    answer: oneshot::Sender<Option<String>>,
}

/// Hands searches to the pool's threads; they stop when it is dropped.
pub struct Pool {
    jobs: mpsc::Sender<Job>,
}

impl Pool {
    /// A pool of `threads` threads (at least one).
    pub fn new(threads: usize) -> Pool {
        let threads = threads.max(1);
        let (jobs, queue) = mpsc::channel::<Job>(threads * 4);
        let queue = Arc::new(Mutex::new(queue));
        for index in 0..threads {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("bot-{index}"))
                .spawn(move || work(&queue));
            if let Err(e) = spawned {
                tracing::error!("cannot start bot thread {index}: {e}");
            }
        }
        Pool { jobs }
    }

    /// The move a bot of `level` plays in `game` (`None`: the game is over
    /// or the pool is gone). Waits its turn when every thread is busy.
    pub async fn think(&self, game: AnyGame, level: Level, seed: u64) -> Option<String> {
        let (answer, answered) = oneshot::channel();
        let job = Job {
            game,
            level,
            seed,
            answer,
        };
        self.jobs.send(job).await.ok()?;
        answered.await.ok().flatten()
    }
}

/// One thread's life: take a job, search, answer; until the pool is gone.
fn work(queue: &Mutex<mpsc::Receiver<Job>>) {
    loop {
        // One thread waits on the queue at a time; the others on the lock.
        let job = queue.lock().unwrap_or_else(|e| e.into_inner()).blocking_recv();
        let Some(job) = job else { return };
        let chosen = bots::choose(&job.game, job.level, job.seed);
        // The asker may have given up (shutdown): nothing to do then.
        let _ = job.answer.send(chosen);
    }
}
