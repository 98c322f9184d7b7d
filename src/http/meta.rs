//! `/healthz`, `/metrics`, `/openapi.json`: at the root (where probes and
//! scrapers look) and the same under `/api/v1`, where everything else is.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use utoipa::OpenApi;

use super::error::Result;
use super::{bots, conditional, correspondence, games, players, ratings, realtime, rules, tournaments, AppState, Json};

#[derive(OpenApi)]
#[openapi(
    info(title = "Tavoliere", description = "A server for abstract board games."),
    paths(
        players::register, players::login, players::sign_out, players::sign_out_everywhere, players::me, players::update_me, players::new_mail_address, players::profile, players::my_events,
        players::my_sessions, players::revoke_session,
        rules::list, rules::analyze,
        games::create, games::list, games::show, games::join, games::decline, games::play, games::history,
        games::resign, games::draw, games::takeback, games::abort, games::board_svg, games::board_txt,
        games::game_record, games::events, games::rematch,
        ratings::leaderboard, ratings::history,
        tournaments::create, tournaments::list, tournaments::show, tournaments::join, tournaments::leave,
        tournaments::start,
        bots::list,
        conditional::set, conditional::show, conditional::clear,
        correspondence::vacation, correspondence::end_vacation, correspondence::deliveries,
        realtime::chat, realtime::events,
        healthz, metrics, openapi, api_healthz, api_metrics,
    ),
    components(schemas(ErrorBody, ErrorDetail, games::Answer, games::Turn, games::RecordFormat,
        crate::domain::GameStatus, crate::tournaments::TournamentStatus)),
    modifiers(&BearerAuth),
)]
pub struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// Every error: `{"error":{"code":"…","message":"…"}}` (409 stale-ply
/// answers add `"game"`, the current state).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ErrorBody {
    error: ErrorDetail,
    /// The game's current state, on a refusal the client catches up from.
    #[schema(value_type = Option<Object>)]
    game: Option<()>,
}

#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ErrorDetail {
    code: String,
    message: String,
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi))
}

pub fn api_router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/healthz"), get(healthz))
        .route(api_path!("/metrics"), get(metrics))
        .route(api_path!("/openapi.json"), get(openapi))
}

/// 200 when the database answers.
#[utoipa::path(get, path = "/healthz", tag = "meta", responses((status = 200), (status = 500)))]
async fn healthz(State(state): State<AppState>) -> Result<impl IntoResponse> {
    let backend = state.health.check().await?;
    Ok((
        StatusCode::OK,
        Json(serde_json::json!({ "status": "ok", "database": backend })),
    ))
}

/// Prometheus metrics.
#[utoipa::path(get, path = "/metrics", tag = "meta", responses((status = 200, content_type = "text/plain", body = String)))]
async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(state.health.commit_stats()),
    )
}

/// `/healthz`, under `/api/v1` as well.
#[utoipa::path(get, path = "/api/v1/healthz", tag = "meta", responses((status = 200), (status = 500)))]
#[allow(dead_code)]
fn api_healthz() {}

/// `/metrics`, under `/api/v1` as well.
#[utoipa::path(get, path = "/api/v1/metrics", tag = "meta", responses((status = 200, content_type = "text/plain", body = String)))]
#[allow(dead_code)]
fn api_metrics() {}

/// This document.
#[utoipa::path(get, path = "/openapi.json", tag = "meta", responses((status = 200, body = Object)))]
async fn openapi() -> impl IntoResponse {
    axum::Json(document())
}

/// The OpenAPI document as served: utoipa's, with the answers every
/// operation shares (see `contract.rs`).
pub fn document() -> serde_json::Value {
    super::contract::complete(&ApiDoc::openapi())
}
