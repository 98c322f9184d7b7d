//! Correspondence settings of the authenticated player: notification
//! choices and webhook (through `PATCH /players/me`), vacation, and the
//! delivery log.

use axum::extract::State;
use axum::routing::{get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::players::PlayerJson;
use super::{AppState, Auth, Json, Query};
use crate::accounts;
use crate::error::{Error, Result};
use crate::games::{now, timestamp};
use crate::notify::webhook::WebhookUrl;
use crate::notify::NotifyChoices;
use crate::store::{NewVacation, Player, SettingsUpdate};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/players/me/vacation", post(vacation).delete(end_vacation))
        .route("/players/me/deliveries", get(deliveries))
}

/// The player as they see themselves: account, notification settings,
/// vacation.
#[derive(Serialize, ToSchema)]
pub struct MeJson {
    #[serde(flatten)]
    player: PlayerJson,
    /// Per kind of event, the channels used.
    #[schema(value_type = Object)]
    notify: serde_json::Value,
    webhook_url: Option<String>,
    /// Only in the answer to the PATCH that set the webhook URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    webhook_secret: Option<String>,
    digest: bool,
    /// Vacation days left this calendar year.
    vacation_days_left: i64,
    /// The end (Unix ms) of the current or next vacation, or `null`.
    vacation_until: Option<i64>,
}

impl MeJson {
    pub(super) async fn of(state: &AppState, player: &Player, new_secret: Option<String>) -> Result<MeJson> {
        let settings = state.store.notify_settings(player.id).await?;
        let vacations = state.store.vacations(player.id).await?;
        let now = now();
        Ok(MeJson {
            player: PlayerJson::of(player, true),
            notify: NotifyChoices::stored(&settings).to_value(),
            webhook_url: settings.webhook_url,
            webhook_secret: new_secret,
            digest: settings.digest,
            vacation_days_left: allowance(state) - days_used(state, &vacations, year_of(now)),
            vacation_until: vacations
                .iter()
                .filter(|(_, end)| *end > now)
                .map(|(_, end)| *end)
                .max(),
        })
    }
}

/// Parses the notification part of a `PATCH /players/me`.
pub(super) fn notify_settings(
    state: &AppState,
    notify: Option<serde_json::Value>,
    webhook_url: Option<Option<String>>,
    digest: Option<bool>,
) -> Result<SettingsUpdate> {
    let notify = notify
        .map(|value| NotifyChoices::parse(&value))
        .transpose()
        .map_err(|e| Error::unprocessable("bad_notify", e.to_string()))?
        .map(|choices| choices.to_value());
    let webhook = match webhook_url {
        None => None,
        Some(None) => Some((None, None)),
        Some(Some(url)) => {
            let url = WebhookUrl::parse(&url, state.config.notify.webhook_allow_private)
                .map_err(|e| Error::unprocessable("bad_webhook_url", e.to_string()))?;
            Some((Some(url.as_str().to_owned()), Some(accounts::new_token())))
        }
    };
    Ok(SettingsUpdate {
        notify,
        webhook,
        digest,
    })
}

fn allowance(state: &AppState) -> i64 {
    i64::from(state.config.vacation_days)
}

fn year_of(ms: i64) -> i32 {
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .map(|t| t.year())
        .unwrap_or(0)
}

/// Days of vacation starting in `year`, a started day counting in full.
fn days_used(state: &AppState, vacations: &[(i64, i64)], year: i32) -> i64 {
    let day = state.config.clock_day_ms;
    vacations
        .iter()
        .filter(|(start, _)| year_of(*start) == year)
        .map(|(start, end)| (end - start + day - 1) / day)
        .sum()
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
#[utoipa::path(post, path = "/api/v1/players/me/vacation", tag = "players", request_body = VacationRequest,
    responses((status = 200, body = MeJson), (status = 401), (status = 409, description = "overlaps another vacation"),
        (status = 422, description = "bad days or start, or beyond the allowance")))]
async fn vacation(
    State(state): State<AppState>,
    Auth(player): Auth,
    Json(body): Json<VacationRequest>,
) -> Result<Json<MeJson>> {
    let now = now();
    // A little slack for a client's clock; a vacation cannot be backdated
    // (it would rewrite clocks that already ran).
    let start = body.start.unwrap_or(now).max(now);
    if body.start.is_some_and(|s| s < now - 60_000) {
        return Err(Error::unprocessable("bad_start", "a vacation cannot start in the past"));
    }
    let year_ms = 366 * 86_400_000;
    if start > now + year_ms {
        return Err(Error::unprocessable("bad_start", "a vacation starts within a year"));
    }
    let vacations = state.store.vacations(player.id).await?;
    let left = allowance(&state) - days_used(&state, &vacations, year_of(start));
    if body.days < 1 || body.days > left {
        return Err(Error::unprocessable(
            "bad_days",
            format!("days must be between 1 and {left}, what is left of this year's allowance"),
        ));
    }
    let end = start + body.days * state.config.clock_day_ms;
    if vacations.iter().any(|(s, e)| *s < end && start < *e) {
        return Err(Error::conflict(
            "vacation_overlaps",
            "this vacation overlaps another one",
        ));
    }
    state
        .store
        .add_vacation(NewVacation {
            player_id: player.id,
            starts_at: start,
            ends_at: end,
        })
        .await
        .map_err(|e| match e {
            crate::store::StoreError::Unique => Error::conflict("vacation_overlaps", "a vacation starts then already"),
            other => other.into(),
        })?;
    state.games.refresh_deadlines(player.id).await?;
    Ok(Json(MeJson::of(&state, &player, None).await?))
}

/// Ends the current vacation now and cancels any to come: the player's
/// correspondence clocks run again, and the days not begun return to the
/// allowance.
#[utoipa::path(delete, path = "/api/v1/players/me/vacation", tag = "players",
    responses((status = 200, body = MeJson), (status = 401), (status = 404, description = "no vacation now or to come")))]
async fn end_vacation(State(state): State<AppState>, Auth(player): Auth) -> Result<Json<MeJson>> {
    if !state.store.end_vacations(player.id, now()).await? {
        return Err(Error::NotFound("no vacation now or to come".to_owned()));
    }
    state.games.refresh_deadlines(player.id).await?;
    Ok(Json(MeJson::of(&state, &player, None).await?))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesQuery {
    /// Deliveries with a smaller id (the next page).
    before: Option<i64>,
    /// At most this many (1 to 200, default 50).
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

#[derive(Serialize, ToSchema)]
pub struct DeliveryList {
    deliveries: Vec<DeliveryJson>,
}

/// The player's notification deliveries, newest first.
#[utoipa::path(get, path = "/api/v1/players/me/deliveries", tag = "players", params(DeliveriesQuery),
    responses((status = 200, body = DeliveryList), (status = 401)))]
async fn deliveries(
    State(state): State<AppState>,
    Auth(player): Auth,
    Query(query): Query<DeliveriesQuery>,
) -> Result<Json<DeliveryList>> {
    let limit = query.limit.unwrap_or(50).clamp(1, 200);
    let rows = state.store.deliveries(player.id, query.before, limit).await?;
    Ok(Json(DeliveryList {
        deliveries: rows
            .into_iter()
            .map(|d| DeliveryJson {
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
            })
            .collect(),
    }))
}
