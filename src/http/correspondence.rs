//! Correspondence settings of the authenticated player: vacation, and the
//! delivery log (notification choices and the webhook go through
//! `PATCH /players/me`). Each handler parses the request, calls one function
//! of the players service and renders its answer.

use axum::extract::State;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::Result;
use super::players::MeJson;
use super::{AppState, Auth, Json, Query};
use crate::players::{self, DeliveryRow};
use crate::views::timestamp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/players/me/vacation"), post(vacation).delete(end_vacation))
        .route(api_path!("/players/me/deliveries"), get(deliveries))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VacationRequest {
    /// Whole days, 1 up to what is left of this year's allowance.
    days: i64,
    /// When it starts (Unix ms, not in the past); now when absent.
    start: Option<i64>,
}

/// Declares a vacation: the player's correspondence clocks stop meanwhile.
#[utoipa::path(post, path = "/api/v1/players/me/vacation", tag = "players", security(("bearer" = [])), request_body = VacationRequest,
    responses((status = 200, body = MeJson), (status = 401), (status = 409, description = "overlaps another vacation"),
        (status = 422, description = "bad days or start, or beyond the allowance")))]
async fn vacation(
    State(state): State<AppState>,
    Auth(player): Auth,
    Json(body): Json<VacationRequest>,
) -> Result<Json<MeJson>> {
    let request = players::VacationRequest {
        days: body.days,
        start: body.start,
    };
    Ok(Json(state.players.declare_vacation(&player, request).await?.into()))
}

/// Ends the current vacation now and cancels any to come: the player's
/// correspondence clocks run again, and the days not begun return to the
/// allowance.
#[utoipa::path(delete, path = "/api/v1/players/me/vacation", tag = "players",
    security(("bearer" = [])), responses((status = 200, body = MeJson), (status = 401), (status = 404, description = "no vacation now or to come")))]
async fn end_vacation(State(state): State<AppState>, Auth(player): Auth) -> Result<Json<MeJson>> {
    Ok(Json(state.players.end_vacation(&player).await?.into()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesQuery {
    /// Deliveries with a smaller id (the next page).
    before: Option<i64>,
    /// At most this many (1 to 200, default 50).
    #[param(minimum = 1, maximum = 200)]
    #[serde(default, deserialize_with = "super::params::in_range::<_, 1, 200>")]
    limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct DeliveryJson {
    id: i64,
    /// The player event's number.
    seq: i64,
    kind: String,
    /// `email` or `webhook`.
    channel: String,
    /// `pending`, `sent`, `failed` or `skipped`.
    status: String,
    attempts: i64,
    /// When a pending delivery is tried next (Unix ms).
    next_attempt_at: Option<i64>,
    last_error: Option<String>,
    created_at: String,
    updated_at: String,
}

impl From<DeliveryRow> for DeliveryJson {
    fn from(d: DeliveryRow) -> DeliveryJson {
        DeliveryJson {
            id: d.id,
            seq: d.event_seq,
            kind: d.kind,
            next_attempt_at: (d.status == "pending").then_some(d.next_attempt_at),
            channel: d.channel,
            status: d.status,
            attempts: d.attempts,
            last_error: d.last_error,
            created_at: timestamp(d.created_at),
            updated_at: timestamp(d.updated_at),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct DeliveryList {
    deliveries: Vec<DeliveryJson>,
}

/// The player's notification deliveries, newest first.
#[utoipa::path(get, path = "/api/v1/players/me/deliveries", tag = "players", security(("bearer" = [])), params(DeliveriesQuery),
    responses((status = 200, body = DeliveryList), (status = 401)))]
async fn deliveries(
    State(state): State<AppState>,
    Auth(player): Auth,
    Query(query): Query<DeliveriesQuery>,
) -> Result<Json<DeliveryList>> {
    let rows = state.players.deliveries(player.id, query.before, query.limit).await?;
    Ok(Json(DeliveryList {
        deliveries: rows.into_iter().map(DeliveryJson::from).collect(),
    }))
}
