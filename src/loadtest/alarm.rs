//! Wake-ups at an exact instant, for pacing moves.
//!
//! Tokio's timer counts whole milliseconds and rounds a deadline up, so a
//! move paced with `sleep_until` left about 1 ms late (p50 1.0–1.2 ms at
//! 2,500 moves/s), and the generator charged that lateness to the server:
//! latency is counted from when a move was due. One thread of its own
//! sleeps to the next deadline with the OS's fine timer and wakes the
//! waiting task.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Instant;

use tokio::sync::oneshot;

/// A clock that wakes tasks at their instants. Its thread ends when the
/// last handle is dropped.
#[derive(Clone)]
pub struct Alarm(Arc<Owner>);

/// What the handles share; dropping it stops the thread.
struct Owner(Arc<Shared>);

struct Shared {
    wakes: Mutex<Wakes>,
    changed: Condvar,
}

#[derive(Default)]
struct Wakes {
    /// By instant; the number tells apart waiters due at the same one.
    due: BTreeMap<(Instant, u64), oneshot::Sender<()>>,
    next_number: u64,
    stopped: bool,
}

impl Drop for Owner {
    fn drop(&mut self) {
        lock(&self.0.wakes).stopped = true;
        self.0.changed.notify_one();
    }
}

fn lock(wakes: &Mutex<Wakes>) -> MutexGuard<'_, Wakes> {
    // The thread only pops and sends under the lock; nothing there panics.
    wakes.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Alarm {
    pub fn start() -> std::io::Result<Alarm> {
        let shared = Arc::new(Shared {
            wakes: Mutex::new(Wakes::default()),
            changed: Condvar::new(),
        });
        let ringer = shared.clone();
        thread::Builder::new()
            .name("loadtest-alarm".to_owned())
            .spawn(move || ring(&ringer))?;
        Ok(Alarm(Arc::new(Owner(shared))))
    }

    /// Returns at `instant`, or at once when it has passed.
    pub async fn until(&self, instant: Instant) {
        if instant <= Instant::now() {
            return;
        }
        let shared = &self.0 .0;
        let (wake, woken) = oneshot::channel();
        {
            let mut wakes = lock(&shared.wakes);
            let number = wakes.next_number;
            wakes.next_number += 1;
            let earliest = wakes
                .due
                .first_key_value()
                .is_none_or(|((first, _), _)| instant < *first);
            wakes.due.insert((instant, number), wake);
            if earliest {
                shared.changed.notify_one();
            }
        }
        // The sender goes only when it rings, or when the thread stops
        // with every handle gone, which this one is not.
        let _ = woken.await;
    }
}

fn ring(shared: &Shared) {
    let mut wakes = lock(&shared.wakes);
    loop {
        if wakes.stopped {
            return;
        }
        let now = Instant::now();
        while let Some(entry) = wakes.due.first_entry() {
            if entry.key().0 > now {
                break;
            }
            // A waiter that gave up has dropped its receiver.
            let _ = entry.remove().send(());
        }
        wakes = match wakes.due.first_key_value() {
            Some(((instant, _), _)) => {
                let wait = instant.saturating_duration_since(now);
                shared
                    .changed
                    .wait_timeout(wakes, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => shared.changed.wait(wakes).unwrap_or_else(PoisonError::into_inner),
        };
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn wakes_each_waiter_at_its_instant_not_before() {
        let alarm = Alarm::start().unwrap();
        let start = Instant::now();
        let offsets = [30u64, 5, 20, 5, 0];
        let waits = offsets.map(|ms| {
            let alarm = alarm.clone();
            let at = start + Duration::from_millis(ms);
            tokio::spawn(async move {
                alarm.until(at).await;
                (at, Instant::now())
            })
        });
        for wait in waits {
            let (at, woken) = wait.await.unwrap();
            assert!(woken >= at, "woken {:?} early", at - woken);
        }
        assert!(start.elapsed() >= Duration::from_millis(30));
    }

    #[tokio::test]
    async fn the_thread_stops_with_the_last_handle() {
        let alarm = Alarm::start().unwrap();
        let shared = alarm.0 .0.clone();
        alarm.until(Instant::now() + Duration::from_millis(1)).await;
        drop(alarm);
        // The thread's own handle on the shared state goes when it ends.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Arc::strong_count(&shared) > 1 {
            assert!(Instant::now() < deadline, "the alarm's thread still runs");
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
}
