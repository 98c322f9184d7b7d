//! Open connections per client address: a [`Connections`] hands out a
//! [`Permit`] per connection while the address holds fewer than its cap;
//! dropping the permit (the connection ended) gives the place back.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::address_key;

/// Open connections by address key, capped.
#[derive(Debug)]
pub struct Connections {
    max: u32,
    open: Mutex<HashMap<IpAddr, u32>>,
}

/// One open connection of an address; dropping it closes its place.
#[derive(Debug)]
pub struct Permit {
    connections: Arc<Connections>,
    key: IpAddr,
}

impl Connections {
    pub fn new(max: u32) -> Arc<Connections> {
        Arc::new(Connections {
            max,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A place for one more connection of `address`, or `None` when it
    /// holds its cap already.
    pub fn admit(self: &Arc<Connections>, address: IpAddr) -> Option<Permit> {
        let key = address_key(address);
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let count = open.entry(key).or_insert(0);
        if *count >= self.max {
            return None;
        }
        *count += 1;
        Some(Permit {
            connections: self.clone(),
            key,
        })
    }

    /// The connections `address` holds open.
    pub fn open(&self, address: IpAddr) -> u32 {
        let open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        open.get(&address_key(address)).copied().unwrap_or(0)
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = self.connections.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = open.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cap_per_address_given_back_on_drop() {
        let connections = Connections::new(2);
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        let first = connections.admit(a);
        let second = connections.admit(a);
        assert!(first.is_some() && second.is_some());
        assert!(connections.admit(a).is_none());
        assert!(connections.admit(b).is_some());
        drop(first);
        assert_eq!(connections.open(a), 1);
        let third = connections.admit(a);
        assert!(third.is_some());
        drop(second);
        assert_eq!(connections.open(a), 1);
        drop(third);
        assert_eq!(connections.open(a), 0);
    }
}
