//! Tavoliere: an online server for abstract board games.
//!
//! - [`rules`]: the games themselves, pure and synchronous.
//! - [`games`]: the games service (actions, hot games, never lose, never double).
//! - [`store`]: storage, one trait and one implementation per database.
//! - [`http`]: the REST API.
//! - [`realtime`]: live games over WebSocket, the player's event stream,
//!   chat and presence.
//! - [`cli`]: the command-line doors (`tavoliere rules`, `tavoliere serve`).

pub mod accounts;
pub mod cli;
pub mod config;
pub mod error;
pub mod games;
pub mod http;
pub mod metrics;
pub mod realtime;
pub mod rules;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use tokio::net::TcpListener;

pub use config::Config;

/// Connects to the database (migrating it), then serves the API on
/// `listener` until `shutdown` completes. Tests call it with a listener on
/// `127.0.0.1:0`.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let store = store::connect(&config.database_url).await?;
    let metrics = Arc::new(metrics::Metrics::default());
    let hub = Arc::new(realtime::Hub::new(config.realtime.ws_channel_capacity));
    let games = Arc::new(games::Games::with_hub(store.clone(), metrics.clone(), hub.clone()));
    let state = http::AppState {
        games,
        store,
        metrics,
        realtime: Arc::new(config.realtime.clone()),
    };
    tracing::info!(address = %listener.local_addr()?, backend = state.store.backend(), "serving");
    let app = http::app(state, &config);
    let shutdown = async move {
        shutdown.await;
        // Live sockets and event streams would keep a graceful shutdown waiting.
        hub.close();
    };
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await?;
    Ok(())
}
