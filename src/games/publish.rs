//! The port through which the games service announces what it committed.
//! The service owns the trait; whoever delivers changes to live clients
//! (the real-time hub) implements it, so the service never calls up into
//! the layer that serves sockets.

use crate::store::{Event, EventRow};

/// A committed entry of a game's log as the service publishes it: its
/// payload still the JSON text the store wrote, read into a `Value` only
/// by a publisher with someone to send it to (most moves have nobody
/// watching live; issue 26).
#[derive(Clone, Debug)]
pub struct Committed {
    pub seq: i64,
    pub event: Event,
    pub created_at: i64,
}

impl Committed {
    /// The entry as a reader of the log gets it.
    pub fn to_row(&self) -> EventRow {
        EventRow {
            seq: self.seq,
            kind: self.event.kind.to_owned(),
            payload: self.event.payload_value(),
            created_at: self.created_at,
        }
    }
}

/// Told of every committed change, after its transaction commits and while
/// the game's lock is held, so a game's events arrive in `seq` order.
pub trait Publisher: Send + Sync + 'static {
    /// The game's new log entries, numbered as the store keeps them.
    fn game_changed(&self, game: i64, events: &[Committed]);
    /// These players' own streams have new entries.
    fn players_notified(&self, players: Vec<i64>);
}

/// Nobody listens: a service without live clients (tools, tests).
pub struct NoSubscribers;

impl Publisher for NoSubscribers {
    fn game_changed(&self, _game: i64, _events: &[Committed]) {}
    fn players_notified(&self, _players: Vec<i64>) {}
}
