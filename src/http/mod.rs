//! The REST API under `/api/v1`, plus `/healthz`, `/metrics`,
//! `/openapi.json` and the web client at `/` (`web`). Each resource module
//! exposes `router()`; the services are shared through [`AppState`]
//! (handlers never reach the store); every refusal goes through
//! [`error::Error`], which `error.rs` renders.

/// A path of the REST API: its routes are written out whole rather than
/// nested under the prefix, which axum does with two more layers on every
/// route (a copy of the URI without the prefix and an extension naming it,
/// at each request: issue 26), and which no handler reads.
macro_rules! api_path {
    ($path:literal) => {
        concat!("/api/v1", $path)
    };
}

mod auth;
mod bots;
mod client;
mod conditional;
mod contract;
mod correspondence;
pub mod error;
mod games;
mod guard;
mod headers;
mod meta;
mod params;
mod players;
mod prefer;
mod ratings;
mod realtime;
mod rules;
mod tournaments;
mod web;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::{header, HeaderValue, Method};
use axum::response::IntoResponse;
use axum::Router;
use tower::ServiceBuilder;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::trace::TraceLayer;

pub use auth::{Auth, MaybeAuth, SignedIn};
pub use client::SessionClient;
pub use error::{Error, Json, Path, Query, Result};
pub use meta::{document as openapi_document, ApiDoc};

use crate::config::{Config, RealtimeConfig};
use crate::games::Games;
use crate::health::Health;
use crate::metrics::Metrics;
use crate::players::Players;
use crate::ratings::Ratings;
use crate::tournaments::Tournaments;

/// What handlers reach: the services, never the store. One `Arc`: axum
/// clones the state for every extractor and layer of every request, and
/// one shared count is cheaper to touch than one per service (the
/// profile of a move showed the clones and drops at 3.5% of its CPU).
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl AppState {
    pub fn new(services: Services) -> AppState {
        AppState(Arc::new(services))
    }
}

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

/// The services behind [`AppState`].
pub struct Services {
    pub games: Arc<Games>,
    /// The built-in bots this server plays.
    pub bots: Arc<crate::games::bots::Roster>,
    /// Live subscriptions: sockets and event streams follow games here.
    pub hub: Arc<crate::realtime::Hub>,
    pub players: Arc<Players>,
    pub ratings: Arc<Ratings>,
    pub tournaments: Arc<Tournaments>,
    pub health: Arc<Health>,
    pub metrics: Arc<Metrics>,
    /// WebSocket and event-stream limits.
    pub realtime: Arc<RealtimeConfig>,
    /// The header a reverse proxy names the client's address in, if any.
    pub client_address_header: Option<axum::http::HeaderName>,
}

/// The whole application with its layers.
pub fn app(state: AppState, config: &Config) -> Router {
    let timeout = Duration::from_secs(config.request_timeout.max(1));
    let api = Router::new()
        .merge(players::router())
        .merge(bots::router())
        .merge(ratings::router())
        .merge(tournaments::router())
        .merge(correspondence::router())
        .merge(rules::router())
        .merge(games::router())
        .merge(conditional::router())
        .merge(realtime::router())
        .merge(meta::api_router());
    // One stack, given to the router once: every `Router::layer` boxes each
    // route again, and with it each request's future (a copy of the whole
    // future per layer: 13.7k instructions a move of `memcpy`; BENCHMARKS.md,
    // issue 26). The router still applies it to each route, so the stack
    // sees the matched route. The first layer is the outermost.
    let layers = ServiceBuilder::new()
        .layer(headers::SecurityHeaders)
        // Only when origins are configured: with none it allowed no
        // cross-origin request either, and cost every request a clone of
        // its lists and three `Vary` headers (issue 26).
        .option_layer(cors(&config.cors_origins))
        .layer(CatchPanicLayer::custom(|_| {
            tracing::error!("a handler panicked");
            Error::internal("panic").into_response()
        }))
        .layer(DefaultBodyLimit::max(config.body_limit))
        .layer(TraceLayer::new_for_http().make_span_with(|request: &Request| {
            let route = request
                .extensions()
                .get::<MatchedPath>()
                .map_or("unmatched", MatchedPath::as_str);
            tracing::info_span!("request", method = %request.method(), route)
        }))
        // Innermost: the body-size refusal, the timeout and the request
        // count, in one service that boxes nothing (guard.rs).
        .layer(guard::Guard {
            body_limit: config.body_limit,
            timeout,
            metrics: Arc::clone(&state.metrics),
        });
    Router::new()
        .merge(api)
        .merge(meta::router())
        .fallback(web::fallback)
        .method_not_allowed_fallback(|| async { Error::MethodNotAllowed("method not allowed here".to_owned()) })
        .layer(layers)
        .with_state(state)
}

/// The CORS layer for the configured origins, if any.
fn cors(origins: &[String]) -> Option<CorsLayer> {
    if origins.is_empty() {
        return None;
    }
    let layer = CorsLayer::new()
        .allow_methods([Method::GET, Method::POST, Method::PATCH])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE, prefer::PREFER]);
    Some(if origins.iter().any(|o| o == "*") {
        layer.allow_origin(AllowOrigin::any())
    } else {
        let list: Vec<HeaderValue> = origins
            .iter()
            .filter_map(|o| HeaderValue::from_str(o.trim()).ok())
            .collect();
        layer.allow_origin(AllowOrigin::list(list))
    })
}
