//! Abuse limits, pure: keyed token buckets ([`Buckets`]: a steady rate with
//! a burst, for registrations per address and writes per player) and keyed
//! failure back-off ([`Throttle`]: sign-in failures per account and per
//! address), and open connections per address ([`Connections`]). No I/O and no clock of their own: callers pass `now`, so the
//! tests step time instead of sleeping.
//!
//! Promises: a refusal says how long to wait ([`RetryAfter`]); memory stays
//! bounded whatever the number of keys (see [`MAX_KEYS`]); a limit of rate
//! zero is no limit.

mod backoff;
mod bucket;
mod connections;

use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

pub use backoff::{Backoff, Throttle};
pub use bucket::{Buckets, Rate};
pub use connections::{Connections, Permit};

/// Keys a limiter remembers before it forgets the ones at rest. Far more
/// than the clients a server sees in a minute; an attacker with more
/// addresses than this gets fresh buckets, never the server's memory.
pub const MAX_KEYS: usize = 100_000;

/// How long a refused client should wait before trying again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryAfter(pub Duration);

impl RetryAfter {
    /// Whole seconds, rounded up and at least one: what `Retry-After` says.
    pub fn seconds(self) -> u64 {
        let d = self.0;
        (d.as_secs() + u64::from(d.subsec_nanos() > 0)).max(1)
    }
}

impl fmt::Display for RetryAfter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.seconds() {
            1 => f.write_str("1 second"),
            n => write!(f, "{n} seconds"),
        }
    }
}

/// The key of a client address: an IPv4 address itself, an IPv6 address's
/// /64 (one subscriber usually holds a whole /64, so counting single IPv6
/// addresses would give each of them billions of fresh limits). An IPv4
/// address mapped into IPv6 is the IPv4 address.
pub fn address_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        assert_eq!(RetryAfter(Duration::from_millis(1)).seconds(), 1);
        assert_eq!(RetryAfter(Duration::ZERO).seconds(), 1);
        assert_eq!(RetryAfter(Duration::from_millis(2001)).seconds(), 3);
        assert_eq!(RetryAfter(Duration::from_secs(2)).to_string(), "2 seconds");
    }

    #[test]
    fn ipv6_addresses_count_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::2".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        assert_ne!(address_key(a), address_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(address_key(mapped), IpAddr::V4([192, 0, 2, 7].into()));
    }
}
