//! Keyed failure back-off: after a few free failures, each further one
//! doubles the wait before the next attempt, up to a ceiling; a quiet
//! stretch as long as the ceiling forgets them.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{RetryAfter, MAX_KEYS};

/// How failures turn into waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// Failures allowed before any wait.
    pub free: u32,
    /// The first wait; each further failure doubles it.
    pub base: Duration,
    /// The longest wait, and the quiet time after which failures are
    /// forgotten.
    pub max: Duration,
}

impl Backoff {
    /// The wait after `failures` failures.
    pub fn delay(self, failures: u32) -> Duration {
        if failures < self.free {
            return Duration::ZERO;
        }
        let doublings = (failures - self.free).min(30);
        self.base.saturating_mul(1 << doublings).min(self.max)
    }
}

#[derive(Clone, Copy, Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

/// Failures per key.
#[derive(Debug)]
pub struct Throttle<K> {
    policy: Backoff,
    failures: Mutex<HashMap<K, Failures>>,
}

impl<K: Hash + Eq> Throttle<K> {
    pub fn new(policy: Backoff) -> Throttle<K> {
        Throttle {
            policy,
            failures: Mutex::new(HashMap::new()),
        }
    }

    fn forgotten(policy: Backoff, failures: Failures, now: Instant) -> bool {
        now.saturating_duration_since(failures.last) >= policy.delay(failures.count) + policy.max
    }

    /// Whether `key` may try now, or how long it must wait.
    pub fn check(&self, key: &K, now: Instant) -> Result<(), RetryAfter> {
        let failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let Some(&seen) = failures.get(key) else {
            return Ok(());
        };
        let free_at = seen.last + self.policy.delay(seen.count);
        match free_at.checked_duration_since(now) {
            Some(wait) if !wait.is_zero() => Err(RetryAfter(wait)),
            _ => Ok(()),
        }
    }

    /// Counts a failure of `key` at `now`.
    pub fn fail(&self, key: K, now: Instant) {
        let policy = self.policy;
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if failures.len() >= MAX_KEYS && !failures.contains_key(&key) {
            failures.retain(|_, f| !Self::forgotten(policy, *f, now));
            if failures.len() >= MAX_KEYS {
                failures.clear();
            }
        }
        let entry = failures.entry(key).or_insert(Failures { count: 0, last: now });
        if Self::forgotten(policy, *entry, now) {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
    }

    /// Forgets `key`'s failures (it proved itself).
    pub fn forgive(&self, key: &K) {
        self.failures.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: Backoff = Backoff {
        free: 3,
        base: Duration::from_secs(1),
        max: Duration::from_secs(60),
    };

    #[test]
    fn waits_double_up_to_the_ceiling() {
        let waits: Vec<u64> = (0..12).map(|n| POLICY.delay(n).as_secs()).collect();
        assert_eq!(waits, [0, 0, 0, 1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(POLICY.delay(u32::MAX), POLICY.max);
    }

    #[test]
    fn free_failures_then_a_wait() {
        let throttle = Throttle::new(POLICY);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(throttle.check(&"alice", t0), Ok(()));
            throttle.fail("alice", t0);
        }
        assert_eq!(throttle.check(&"alice", t0), Err(RetryAfter(Duration::from_secs(1))));
        assert_eq!(throttle.check(&"bob", t0), Ok(()));
        let t1 = t0 + Duration::from_secs(1);
        assert_eq!(throttle.check(&"alice", t1), Ok(()));
        throttle.fail("alice", t1);
        assert_eq!(throttle.check(&"alice", t1), Err(RetryAfter(Duration::from_secs(2))));
        throttle.forgive(&"alice");
        assert_eq!(throttle.check(&"alice", t1), Ok(()));
    }

    #[test]
    fn a_quiet_stretch_forgets() {
        let throttle = Throttle::new(POLICY);
        let t0 = Instant::now();
        for _ in 0..10 {
            throttle.fail(1, t0);
        }
        assert!(throttle.check(&1, t0 + Duration::from_secs(59)).is_err());
        let later = t0 + Duration::from_secs(121);
        throttle.fail(1, later);
        assert_eq!(throttle.check(&1, later), Ok(()));
    }
}
