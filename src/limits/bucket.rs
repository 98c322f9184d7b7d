//! Keyed token buckets: each key may spend `burst` at once, and earns
//! `per_second` back, up to `burst` again.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{RetryAfter, MAX_KEYS};

/// A steady rate with a burst; a rate of zero is no limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Tokens earned back per second.
    pub per_second: f64,
    /// Most tokens a key holds (and so spends at once).
    pub burst: u32,
}

impl Rate {
    pub fn per_second(per_second: f64, burst: u32) -> Rate {
        Rate { per_second, burst }
    }

    pub fn per_hour(per_hour: f64, burst: u32) -> Rate {
        Rate {
            per_second: per_hour / 3600.0,
            burst,
        }
    }

    fn unlimited(self) -> bool {
        self.per_second.is_nan() || self.per_second <= 0.0 || self.burst == 0
    }
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    /// The bucket as it is at `now`, refilled since it was last seen.
    fn at(self, rate: Rate, now: Instant) -> Bucket {
        let earned = now.saturating_duration_since(self.at).as_secs_f64() * rate.per_second;
        Bucket {
            tokens: (self.tokens + earned).min(f64::from(rate.burst)),
            at: now.max(self.at),
        }
    }
}

/// One token bucket per key, behind one lock (taking a token is a few
/// arithmetic operations).
#[derive(Debug)]
pub struct Buckets<K> {
    rate: Rate,
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K: Hash + Eq> Buckets<K> {
    pub fn new(rate: Rate) -> Buckets<K> {
        Buckets {
            rate,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Spends one of `key`'s tokens at `now`, or says when one will be
    /// there.
    pub fn take(&self, key: K, now: Instant) -> Result<(), RetryAfter> {
        let rate = self.rate;
        if rate.unlimited() {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_KEYS && !buckets.contains_key(&key) {
            // A full bucket is what a forgotten key would get anyway.
            buckets.retain(|_, b| b.at(rate, now).tokens < f64::from(rate.burst));
            if buckets.len() >= MAX_KEYS {
                buckets.clear();
            }
        }
        let full = Bucket {
            tokens: f64::from(rate.burst),
            at: now,
        };
        let bucket = buckets.entry(key).or_insert(full);
        let mut current = bucket.at(rate, now);
        if current.tokens >= 1.0 {
            current.tokens -= 1.0;
            *bucket = current;
            Ok(())
        } else {
            *bucket = current;
            let wait = (1.0 - current.tokens) / rate.per_second;
            Err(RetryAfter(Duration::from_secs_f64(wait.min(1e9))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_steady_rate() {
        let buckets = Buckets::new(Rate::per_second(2.0, 3));
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(buckets.take("alice", t0), Ok(()));
        }
        let refused = buckets.take("alice", t0).unwrap_err();
        assert_eq!(refused.0, Duration::from_millis(500));
        // Another key has its own bucket.
        assert_eq!(buckets.take("bob", t0), Ok(()));
        // Half a second earns one token, not two.
        let t1 = t0 + Duration::from_millis(500);
        assert_eq!(buckets.take("alice", t1), Ok(()));
        assert!(buckets.take("alice", t1).is_err());
        // A long rest refills to the burst, no more.
        let t2 = t1 + Duration::from_secs(60);
        for _ in 0..3 {
            assert_eq!(buckets.take("alice", t2), Ok(()));
        }
        assert!(buckets.take("alice", t2).is_err());
    }

    #[test]
    fn refusals_do_not_spend() {
        let buckets = Buckets::new(Rate::per_hour(3600.0, 1));
        let t0 = Instant::now();
        assert!(buckets.take(1, t0).is_ok());
        for _ in 0..10 {
            assert!(buckets.take(1, t0).is_err());
        }
        assert!(buckets.take(1, t0 + Duration::from_secs(1)).is_ok());
    }

    #[test]
    fn a_zero_rate_is_no_limit() {
        let buckets = Buckets::new(Rate::per_second(0.0, 5));
        let t0 = Instant::now();
        for _ in 0..1000 {
            assert!(buckets.take(1, t0).is_ok());
        }
    }

    #[test]
    fn memory_stays_bounded() {
        let buckets = Buckets::new(Rate::per_second(1.0, 2));
        let t0 = Instant::now();
        for key in 0..(MAX_KEYS + 10) {
            let _ = buckets.take(key, t0);
        }
        let held = buckets.buckets.lock().map(|b| b.len()).unwrap_or(0);
        assert!(held <= MAX_KEYS, "{held}");
    }
}
