//! Relays into this process's hub what other server processes sharing the
//! database committed, as the store announces it (PostgreSQL): their
//! moves reach the subscribers connected here as they happen, not at the
//! next change made through this process.

use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Hub;
use crate::store::announce::Announcement;
use crate::store::Store;

/// Most events read back for one announcement; a subscriber further
/// behind gets a snapshot, as after any gap.
const MOST_EVENTS: i64 = 256;

/// Runs until the announcements end (the store's listener stopped).
pub fn spawn(
    store: Arc<dyn Store>,
    hub: Arc<Hub>,
    mut announcements: mpsc::Receiver<Vec<Announcement>>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(batch) = announcements.recv().await {
            for announcement in batch {
                match announcement {
                    Announcement::Game { game, seq } => {
                        // Only games with subscribers here, and only what
                        // this process did not publish itself.
                        let Some(after) = hub.missing(game, seq) else {
                            continue;
                        };
                        match store.game_events(game, after, MOST_EVENTS).await {
                            Ok(events) => hub.publish_relayed(game, &events),
                            Err(error) => tracing::warn!(game, %error, "cannot relay the game's events"),
                        }
                    }
                    // Player streams read the log themselves: a wake-up
                    // is all they need.
                    Announcement::Player { player, .. } => hub.publish_players([player]),
                }
            }
        }
    })
}
