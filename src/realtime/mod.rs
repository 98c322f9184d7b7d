//! Real-time play: live games over WebSocket, the player's event stream
//! (WebSocket, long poll or server-sent events), spectators, chat and
//! presence. The wire protocol is documented in PROTOCOL.md.
//!
//! Everything sent here is read from, or published after, a committed
//! transaction: the event logs in the database are what clients resume from.

mod frames;
mod hub;
pub mod relay;
pub mod socket;

pub use hub::{event_frame, GameFrame, GameSubscription, Hub, PlayerSubscription};
