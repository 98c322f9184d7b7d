//! Tournaments: create, list, show (standings, rounds, groups), join,
//! leave, start. Each handler parses, calls one function of the
//! tournaments service and renders.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::{Error, Result};
use super::{AppState, Auth, Json, MaybeAuth, Path, Query};
use crate::clock::TimeControl;
use crate::tournaments::{NewTournamentCommand, TournamentFormat, TournamentRow, TournamentStatus, TournamentView};
use crate::views::timestamp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/tournaments", post(create).get(list))
        .route("/tournaments/{id}", get(show))
        .route("/tournaments/{id}/join", post(join))
        .route("/tournaments/{id}/leave", post(leave))
        .route("/tournaments/{id}/start", post(start))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewTournamentRequest {
    /// 1 to 100 characters.
    pub name: String,
    /// Catalogue slug of a two-player game.
    #[schema(schema_with = super::params::game_slug)]
    pub game: String,
    /// Variant slug; the game's first variant when absent.
    #[schema(schema_with = super::params::optional_variant_slug)]
    pub variant: Option<String>,
    /// `round_robin`, `swiss` or `league`.
    #[schema(value_type = String)]
    pub format: String,
    /// A Swiss's rounds, 1 to 50 (default ⌈log₂ players⌉, never more than players − 1).
    pub rounds: Option<i64>,
    /// Round robin: every pair plays twice, seats swapped.
    pub double: Option<bool>,
    pub time_control: Option<TimeControl>,
    /// Whether its games change ratings (default `true`).
    pub rated: Option<bool>,
    /// 2 to 1000 (a round robin: 2 to 50); the most when absent.
    pub max_players: Option<i64>,
    /// At least 2 (default 2): fewer by `starts_at`, and it is cancelled.
    pub min_players: Option<i64>,
    /// RFC 3339; the server starts it then (the organiser may start it before).
    pub starts_at: Option<String>,
    /// Listed and readable by everyone (default).
    pub public: Option<bool>,
    /// A league's group size, 3 to 50 (default 10).
    pub group_size: Option<i64>,
}

impl NewTournamentRequest {
    fn into_command(self) -> Result<NewTournamentCommand> {
        let format: TournamentFormat = self
            .format
            .parse()
            .map_err(|_| Error::unprocessable("bad_format", "format is one of round_robin, swiss, league"))?;
        let starts_at = self
            .starts_at
            .as_deref()
            .map(|at| {
                time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                    .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
                    .map_err(|_| Error::unprocessable("bad_starts_at", "starts_at must be an RFC 3339 time"))
            })
            .transpose()?;
        Ok(NewTournamentCommand {
            name: self.name,
            game: self.game,
            variant: self.variant,
            format,
            rounds: self.rounds,
            double: self.double,
            time_control: self.time_control,
            rated: self.rated,
            max_players: self.max_players,
            min_players: self.min_players,
            starts_at,
            public: self.public,
            group_size: self.group_size,
        })
    }
}

/// Creates a tournament; the caller organises it (and joins it like anyone).
#[utoipa::path(post, path = "/api/v1/tournaments", tag = "tournaments", security(("bearer" = [])), request_body = NewTournamentRequest,
    responses((status = 201, body = TournamentView), (status = 400), (status = 401),
        (status = 422, description = "a bad value, or a game that is not for two players")))]
async fn create(
    State(state): State<AppState>,
    Auth(player): Auth,
    Json(body): Json<NewTournamentRequest>,
) -> Result<(StatusCode, Json<TournamentView>)> {
    let command = body.into_command()?;
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
