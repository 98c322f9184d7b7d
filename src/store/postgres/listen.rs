//! The announcements of PostgreSQL's triggers, heard on a connection of
//! their own (see `announce.rs`). The ones of this process's own writer are
//! dropped: this process published those commits itself.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgListener, PgPool};

use crate::store::announce::{self, Announcement};

/// Relays announcements until the receiver of `announcements` is dropped,
/// connecting again whenever the connection fails.
pub(super) async fn listen(
    pool: PgPool,
    own_writer: Arc<AtomicU32>,
    announcements: tokio::sync::mpsc::Sender<Vec<Announcement>>,
) {
    /// How long a failed connection waits before it tries again.
    const RETRY: Duration = Duration::from_secs(1);
    while !announcements.is_closed() {
        let mut listener = match PgListener::connect_with(&pool).await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "cannot listen to the database's announcements; retrying");
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        if let Err(error) = listener
            .listen_all([announce::GAME_CHANNEL, announce::PLAYER_CHANNEL])
            .await
        {
            tracing::warn!(%error, "cannot listen to the database's announcements; retrying");
            tokio::time::sleep(RETRY).await;
            continue;
        }
        loop {
            let notification = tokio::select! {
                () = announcements.closed() => return,
                notification = listener.recv() => notification,
            };
            match notification {
                // This process published its writer's commits already;
                // relaying them too would race that publication (one frame
                // in ten went out read back from the log, without its
                // commit time, in a WebSocket run) and cost a read each.
                Ok(notification) if notification.process_id() == own_writer.load(Ordering::Relaxed) => {}
                Ok(notification) => match announce::parse(notification.channel(), notification.payload()) {
                    Ok(batch) => {
                        if announcements.send(batch).await.is_err() {
                            return;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "ignored"),
                },
                Err(error) => {
                    tracing::warn!(%error, "lost the database's announcements; listening again");
                    tokio::time::sleep(RETRY).await;
                    break;
                }
            }
        }
    }
}
