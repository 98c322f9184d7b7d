//! The doors' guard for accounts: sign-in back-off per account and per
//! client address, registrations per address, and the clients known to an
//! account (an address that signed in to it before).
//!
//! Promises: after a few failures a sign-in waits (doubling up to a
//! ceiling) before the password is even checked, so guessing is slow; a
//! stranger's failures lock an account only for strangers: a known client
//! with the right password still signs in, and lifts the lock; a refusal
//! says how long to wait. Everything lives in memory (a restart forgets,
//! which only ever helps the player) and stays bounded.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::limits::{address_key, Backoff, Buckets, Rate, RetryAfter, Throttle, MAX_KEYS};

/// The guard's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccountLimits {
    /// Sign-in failures, per account and per address.
    pub sign_in: Backoff,
    /// Registrations per client address.
    pub registrations: Rate,
}

impl Default for AccountLimits {
    fn default() -> AccountLimits {
        AccountLimits {
            sign_in: Backoff {
                free: 5,
                base: Duration::from_secs(1),
                max: Duration::from_secs(300),
            },
            registrations: Rate::per_hour(10.0, 10),
        }
    }
}

/// How long an address stays known to an account after it signed in.
const KNOWN_FOR: Duration = Duration::from_secs(90 * 86_400);

#[derive(Debug)]
pub struct Guard {
    accounts: Throttle<String>,
    addresses: Throttle<IpAddr>,
    registrations: Buckets<IpAddr>,
    /// (account key, address key) → last successful sign-in.
    known: Mutex<HashMap<(String, IpAddr), Instant>>,
}

impl Guard {
    pub fn new(limits: AccountLimits) -> Guard {
        Guard {
            accounts: Throttle::new(limits.sign_in),
            addresses: Throttle::new(limits.sign_in),
            registrations: Buckets::new(limits.registrations),
            known: Mutex::new(HashMap::new()),
        }
    }

    fn is_known(&self, account: &str, from: IpAddr, now: Instant) -> bool {
        let known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        known
            .get(&(account.to_owned(), address_key(from)))
            .is_some_and(|at| now.saturating_duration_since(*at) < KNOWN_FOR)
    }

    /// Whether a sign-in to `account` from `from` may be tried now.
    pub fn may_sign_in(&self, account: &str, from: IpAddr, now: Instant) -> Result<(), RetryAfter> {
        self.addresses.check(&address_key(from), now)?;
        if self.is_known(account, from, now) {
            return Ok(());
        }
        self.accounts.check(&account.to_owned(), now)
    }

    /// A wrong name or password for `account` from `from`.
    pub fn failed(&self, account: &str, from: IpAddr, now: Instant) {
        self.addresses.fail(address_key(from), now);
        self.accounts.fail(account.to_owned(), now);
    }

    /// The right password for `account` from `from`: the account's lock
    /// lifts and the address becomes known to it. The address's own
    /// failures stay (one good account must not launder guesses at others).
    pub fn signed_in(&self, account: &str, from: IpAddr, now: Instant) {
        self.accounts.forgive(&account.to_owned());
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if known.len() >= MAX_KEYS {
            known.retain(|_, at| now.saturating_duration_since(*at) < KNOWN_FOR);
            if known.len() >= MAX_KEYS {
                known.clear();
            }
        }
        known.insert((account.to_owned(), address_key(from)), now);
    }

    /// Spends one of the address's registrations.
    pub fn may_register(&self, from: IpAddr, now: Instant) -> Result<(), RetryAfter> {
        self.registrations.take(address_key(from), now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_known_client_signs_in_through_a_strangers_lock() {
        let guard = Guard::new(AccountLimits::default());
        let t0 = Instant::now();
        let (home, attacker) = (ip("192.0.2.1"), ip("198.51.100.9"));
        guard.signed_in("alice", home, t0);
        for _ in 0..10 {
            guard.failed("alice", attacker, t0);
        }
        assert!(guard.may_sign_in("alice", attacker, t0).is_err());
        // A third address is a stranger too: the account is locked for it.
        assert!(guard.may_sign_in("alice", ip("203.0.113.5"), t0).is_err());
        assert_eq!(guard.may_sign_in("alice", home, t0), Ok(()));
        guard.signed_in("alice", home, t0);
        // The lock is lifted; the attacker's address stays throttled.
        assert_eq!(guard.may_sign_in("alice", ip("203.0.113.5"), t0), Ok(()));
        assert!(guard.may_sign_in("bob", attacker, t0).is_err());
    }

    #[test]
    fn registrations_per_address() {
        let limits = AccountLimits {
            registrations: Rate::per_hour(2.0, 2),
            ..AccountLimits::default()
        };
        let guard = Guard::new(limits);
        let t0 = Instant::now();
        assert!(guard.may_register(ip("192.0.2.1"), t0).is_ok());
        assert!(guard.may_register(ip("192.0.2.1"), t0).is_ok());
        let wait = guard.may_register(ip("192.0.2.1"), t0).unwrap_err();
        assert_eq!(wait.seconds(), 1800);
        assert!(guard.may_register(ip("192.0.2.2"), t0).is_ok());
    }
}
