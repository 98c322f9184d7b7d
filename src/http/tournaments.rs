//! Tournaments: create, list, show (standings, rounds, groups), join,
//! leave, start. Each handler parses, calls one function of the
//! tournaments service and renders.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::Result;
use super::{AppState, Auth, Json, MaybeAuth, Path, Query};
use crate::tournaments::{NewTournamentCommand, TournamentFormat, TournamentRow, TournamentStatus, TournamentView};
use crate::views::timestamp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/tournaments"), post(create).get(list))
        .route(api_path!("/tournaments/{id}"), get(show))
        .route(api_path!("/tournaments/{id}/join"), post(join))
        .route(api_path!("/tournaments/{id}/leave"), post(leave))
        .route(api_path!("/tournaments/{id}/start"), post(start))
}

/// Creates a tournament; the caller organises it (and joins it like anyone).
#[utoipa::path(post, path = "/api/v1/tournaments", tag = "tournaments", security(("bearer" = [])), request_body = NewTournamentCommand,
    responses((status = 201, body = TournamentView), (status = 400), (status = 401),
        (status = 422, description = "a bad value, or a game that is not for two players")))]
async fn create(
    State(state): State<AppState>,
    Auth(player): Auth,
    Json(command): Json<NewTournamentCommand>,
) -> Result<(StatusCode, Json<TournamentView>)> {
    Ok((
        StatusCode::CREATED,
        Json(state.tournaments.create(&player, command).await?),
    ))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TournamentQuery {
    /// open, active, finished or cancelled.
    #[param(value_type = Option<TournamentStatus>)]
    status: Option<TournamentStatus>,
    /// A game's slug.
    #[param(schema_with = super::params::game_slug)]
    #[serde(default, deserialize_with = "super::params::known_game")]
    game: Option<String>,
}

/// A tournament in a list.
#[derive(Serialize, ToSchema)]
pub struct TournamentSummary {
    id: i64,
    name: String,
    game: String,
    variant: String,
    format: TournamentFormat,
    status: TournamentStatus,
    organiser: String,
    players: i64,
    max_players: i64,
    round: i64,
    starts_at: Option<String>,
}

impl From<TournamentRow> for TournamentSummary {
    fn from(row: TournamentRow) -> TournamentSummary {
        TournamentSummary {
            id: row.id,
            name: row.settings.name,
            game: row.settings.game,
            variant: row.settings.variant,
            format: row.settings.format,
            status: row.status,
            organiser: row.organiser,
            players: row.players,
            max_players: row.settings.max_players,
            round: row.round,
            starts_at: row.settings.starts_at.map(timestamp),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct TournamentList {
    tournaments: Vec<TournamentSummary>,
}

/// The tournaments the caller may see, newest first.
#[utoipa::path(get, path = "/api/v1/tournaments", tag = "tournaments", security((), ("bearer" = [])), params(TournamentQuery),
    responses((status = 200, body = TournamentList), (status = 400)))]
async fn list(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Query(query): Query<TournamentQuery>,
) -> Result<Json<TournamentList>> {
    let status = query.status;
    let rows = state.tournaments.list(viewer.as_ref(), status, query.game).await?;
    Ok(Json(TournamentList {
        tournaments: rows.into_iter().map(TournamentSummary::from).collect(),
    }))
}

/// A tournament: its players, standings with tiebreaks (per group in a
/// league), and each round's games with their results.
#[utoipa::path(get, path = "/api/v1/tournaments/{id}", tag = "tournaments", security((), ("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, body = TournamentView), (status = 404)))]
async fn show(
    State(state): State<AppState>,
    MaybeAuth(viewer): MaybeAuth,
    Path(id): Path<i64>,
) -> Result<Json<TournamentView>> {
    Ok(Json(state.tournaments.show(viewer.as_ref(), id).await?))
}

/// Joins an open tournament, or a running league (from its next season).
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/join", tag = "tournaments", security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, body = TournamentView), (status = 401), (status = 404),
        (status = 409, description = "already in, full, or no longer open")))]
async fn join(State(state): State<AppState>, Auth(player): Auth, Path(id): Path<i64>) -> Result<Json<TournamentView>> {
    Ok(Json(state.tournaments.join(&player, id).await?))
}

/// Leaves a tournament; after the start, the caller's remaining games are
/// forfeited (losses, shown as forfeits).
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/leave", tag = "tournaments", security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, body = TournamentView), (status = 401), (status = 404), (status = 409)))]
async fn leave(State(state): State<AppState>, Auth(player): Auth, Path(id): Path<i64>) -> Result<Json<TournamentView>> {
    Ok(Json(state.tournaments.leave(&player, id).await?))
}

/// The organiser starts the tournament (it needs `min_players`): every
/// round robin game is made at once, a Swiss's first round, a league's
/// first season.
#[utoipa::path(post, path = "/api/v1/tournaments/{id}/start", tag = "tournaments", security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, body = TournamentView), (status = 401), (status = 403), (status = 404),
        (status = 409, description = "not open, or too few players")))]
async fn start(State(state): State<AppState>, Auth(player): Auth, Path(id): Path<i64>) -> Result<Json<TournamentView>> {
    Ok(Json(state.tournaments.start(&player, id).await?))
}
