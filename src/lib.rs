//! Tavoliere: an online server for abstract board games.
//!
//! - [`rules`]: the games themselves, pure and synchronous.
//! - [`bots`]: the built-in opponents' search (MCTS over the rules), pure.
//! - [`domain`]: the vocabulary every layer speaks (seats, game statuses).
//! - [`games`]: the games service (actions, hot games, never lose, never
//!   double), and the sweeper that ends games lost on time.
//! - [`views`]: what a game looks like: JSON states, records, boards.
//! - [`players`]: the players service (accounts, sessions, vacations,
//!   notification settings, a player's events and deliveries).
//! - [`ratings`]: Glicko-2 ratings, leaderboards, histories, profiles'
//!   statistics, and the rebuild of every rating from the stored games.
//! - [`tournaments`]: round robins, Swiss tournaments and leagues: pairing,
//!   standings, and the step each game's end carries into its commit.
//! - [`limits`]: abuse limits, pure: token buckets and failure back-off.
//! - [`health`]: whether the database answers, for `/healthz` and `/metrics`.
//! - [`store`]: storage, one trait and one implementation per database.
//! - [`clock`]: time controls: deadlines, banks, vacations, pure arithmetic.
//! - [`notify`]: email and webhook notifications from the player event log.
//! - [`http`]: the REST API.
//! - [`realtime`]: live games over WebSocket, the player's event stream,
//!   chat and presence.
//! - [`mail`]: play by mail: the SMTP listener, the inbox and the mail
//!   commands.
//! - [`cli`]: the command-line doors (`tavoliere rules`, `tavoliere serve`,
//!   `tavoliere loadtest`, `tavoliere ratings rebuild`).
//! - [`serve`]: the serve loop (header deadlines, connections per address).
//! - [`loadtest`]: the load generator, a client of a running server.
//! - [`allocator`]: the global allocator (mimalloc, asked the way its fast
//!   path expects).

pub mod allocator;
pub mod bots;
pub mod cli;
pub mod clock;
pub mod config;
pub mod domain;
pub mod games;
pub mod health;
pub mod http;
pub mod limits;
pub mod loadtest;
pub mod mail;
pub mod metrics;
pub mod notify;
pub mod players;
pub mod ratings;
pub mod realtime;
pub mod rules;
pub mod serve;
pub mod store;
pub mod tournaments;
pub mod views;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::net::TcpListener;

pub use config::Config;

/// The games service keeps the clocks the players service's vacations stop:
/// the one place the two meet.
#[async_trait]
impl players::Deadlines for games::Games {
    async fn refresh(&self, player_id: i64) -> Result<(), players::DeadlinesError> {
        Ok(self.refresh_deadlines(player_id).await?)
    }
}

type RunError = Box<dyn std::error::Error + Send + Sync>;

/// Connects to the database (migrating it), then serves the API on
/// `listener` (and play by mail on `--mail-listen`, when set) until
/// `shutdown` completes.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), RunError> {
    let mail = match config.mail.mail_listen {
        Some(address) => Some(TcpListener::bind(address).await?),
        None => None,
    };
    run_with_mail(listener, mail, config, shutdown).await
}

/// [`run`] with the SMTP listener given (or none: mail off). Tests call it
/// with listeners on `127.0.0.1:0`.
pub async fn run_with_mail(
    listener: TcpListener,
    mail: Option<TcpListener>,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), RunError> {
    let store = store::connect(&config.data.database_url.0).await?;
    let metrics = Arc::new(metrics::Metrics::default());
    let hub = Arc::new(realtime::Hub::new(config.realtime.ws_channel_capacity));
    let ratings = Arc::new(ratings::Ratings::new(store.clone(), config.rating_params()));
    // Built-in bots hear of their turns through the service's announcements.
    let bots = games::bots::enroll(&*store, config.bot_threads).await?;
    let (publisher, wakes) = games::bots::Wake::new(hub.clone(), &bots);
    let games = Arc::new(
        games::Games::new(store.clone(), metrics.clone(), publisher)
            .with_timing(config.timing())
            .with_ratings(ratings.clone())
            .with_limits(config.limits.games())
            .with_unlimited_writers(bots.iter().map(|bot| bot.player.id)),
    );
    let mut notifier = notify::Notifier::new(store.clone(), games.clone(), config.notify.clone(), hub.clone())?;
    let mut players_config = config.players();
    players_config.email_enabled = notifier.email_enabled();
    let addresses = match &mail {
        Some(_) => {
            let domain = config.mail.domain(&config.notify.base_url);
            let addresses = Arc::new(mail::addresses(&*store, &domain).await?);
            notifier = notifier.with_replies(addresses.clone());
            players_config.mail_domain = Some(domain);
            Some(addresses)
        }
        None => None,
    };
    let players =
        Arc::new(players::Players::new(store.clone(), games.clone(), players_config).with_metrics(metrics.clone()));
    let tournaments = Arc::new(tournaments::Tournaments::new(store.clone(), games.clone()));
    let mail_tasks = match (mail, addresses) {
        (Some(listener), Some(addresses)) => {
            let door = mail::Door {
                store: store.clone(),
                addresses,
                games: games.clone(),
                players: players.clone(),
            };
            mail::spawn(listener, door, &config.mail, &config.notify)?
        }
        _ => Vec::new(),
    };
    let state = http::AppState::new(http::Services {
        games: games.clone(),
        bots: Arc::new(games::bots::Roster::new(store.clone(), bots.clone())),
        hub: hub.clone(),
        players,
        ratings,
        tournaments: tournaments.clone(),
        health: Arc::new(health::Health::new(store.clone())),
        metrics,
        realtime: Arc::new(config.realtime.clone()),
        client_address_header: config.limits.client_address_header.clone(),
    });
    tracing::info!(address = %listener.local_addr()?, backend = store.backend(), "serving");
    // Other processes' changes, where the database announces them.
    let relay = store
        .announcements()
        .map(|announcements| realtime::relay::spawn(store.clone(), hub.clone(), announcements));
    // Background work runs beside the server and stops with it; all its
    // state is in the database, so stopping at any point loses nothing.
    let interval = Duration::from_millis(config.sweep_interval_ms);
    let driver = games::bots::spawn(games.clone(), bots, config.bot_threads, wakes, interval);
    let sweeper = games::sweeper::spawn(games, tournaments, interval);
    let background = [sweeper, Arc::new(notifier).spawn()]
        .into_iter()
        .chain(driver)
        .chain(mail_tasks);
    let background = background.collect();
    let served = serve_until(listener, state, &config, hub, shutdown).await;
    stop(background, relay).await;
    served?;
    Ok(())
}

/// Serves `state`'s API on `listener` until `shutdown` completes.
async fn serve_until(
    listener: TcpListener,
    state: http::AppState,
    config: &Config,
    hub: Arc<realtime::Hub>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let metrics = state.metrics.clone();
    let app = http::app(state, config);
    let shutdown = async move {
        shutdown.await;
        // Live sockets and event streams would keep a graceful shutdown waiting.
        hub.close();
    };
    let limits = serve::ServeLimits {
        header_read_timeout: Duration::from_secs(config.limits.header_read_timeout),
        connections_per_address: config.limits.max_connections_per_address,
    };
    serve::serve(listener, app, limits, metrics, shutdown).await
}

/// Stops the background tasks, then the relay of other processes' changes.
async fn stop(background: Vec<tokio::task::JoinHandle<()>>, relay: Option<tokio::task::JoinHandle<()>>) {
    for task in background {
        task.abort();
        let _ = task.await;
    }
    if let Some(relay) = relay {
        // Dropping its announcements stops the store's listener too.
        relay.abort();
        let _ = relay.await;
    }
}
