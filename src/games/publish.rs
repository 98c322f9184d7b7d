//! The port through which the games service announces what it committed.
//! The service owns the trait; whoever delivers changes to live clients
//! (the real-time hub) implements it, so the service never calls up into
//! the layer that serves sockets.

use crate::store::EventRow;

/// Told of every committed change, after its transaction commits and while
/// the game's lock is held, so a game's events arrive in `seq` order.
pub trait Publisher: Send + Sync + 'static {
    /// The game's new log entries, numbered as the store keeps them.
    fn game_changed(&self, game: i64, events: &[EventRow]);
    /// These players' own streams have new entries.
    fn players_notified(&self, players: Vec<i64>);
}

/// Nobody listens: a service without live clients (tools, tests).
pub struct NoSubscribers;

impl Publisher for NoSubscribers {
    fn game_changed(&self, _game: i64, _events: &[EventRow]) {}
    fn players_notified(&self, _players: Vec<i64>) {}
}
