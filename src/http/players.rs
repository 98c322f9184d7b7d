//! Accounts and sessions: `/players`, `/sessions`, `/players/me` (with the
//! notification settings and the sessions), a player's profile (with the ratings service's
//! ratings and statistics) and their own event list.
//! Each handler parses the request, calls one function of the players
//! service and renders its answer.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::Result;
use super::ratings::ProfileJson;
use super::{AppState, Auth, Json, Path, Query, SessionClient, SignedIn};
use crate::players::{AccountChange, EventRow, Me, NewAccount, Player, SessionInfo, SettingsChange};
use crate::views::{timestamp as state_timestamp, EventView};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/players"), post(register))
        .route(api_path!("/sessions"), post(login).delete(sign_out_everywhere))
        .route(api_path!("/sessions/current"), delete(sign_out))
        .route(api_path!("/players/me"), get(me).patch(update_me))
        .route(api_path!("/players/me/events"), get(my_events))
        .route(api_path!("/players/me/sessions"), get(my_sessions))
        .route(api_path!("/players/me/sessions/{id}"), delete(revoke_session))
        .route(api_path!("/players/me/mail-address"), post(new_mail_address))
        .route(api_path!("/players/{name}"), get(profile))
}

#[derive(Serialize, ToSchema)]
pub struct PlayerJson {
    name: String,
    /// A bot account (the server's own bots, and players' programs).
    bot: bool,
    /// Only shown to the player themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    created_at: String,
}

impl PlayerJson {
    pub(super) fn of(player: &Player, with_email: bool) -> PlayerJson {
        PlayerJson {
            name: player.name.clone(),
            bot: player.bot,
            email: if with_email { player.email.clone() } else { None },
            created_at: state_timestamp(player.created_at),
        }
    }
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
    /// The player's secret address for play by mail (commands in the
    /// body, one per line), or `null` when mail is off. Keep it secret:
    /// with the registered email address it is the credential.
    mail_address: Option<String>,
    /// Whether this server sends email at all (an SMTP server is
    /// configured); without it email notifications never arrive.
    email_enabled: bool,
}

impl From<Me> for MeJson {
    fn from(me: Me) -> MeJson {
        MeJson {
            player: PlayerJson::of(&me.player, true),
            notify: me.notify.to_value(),
            webhook_url: me.webhook_url,
            webhook_secret: me.new_webhook_secret,
            digest: me.digest,
            vacation_days_left: me.vacation_days_left,
            vacation_until: me.vacation_until,
            mail_address: me.mail_address,
            email_enabled: me.email_enabled,
        }
    }
}

/// What registration and sign-in both answer: the player (with their
/// email, as `GET /players/me` shows it) and a new token.
#[derive(Serialize, ToSchema)]
pub struct Session {
    player: PlayerJson,
    /// Send as `Authorization: Bearer <token>`.
    token: String,
}

impl Session {
    fn of(player: &Player, token: crate::players::Token) -> Session {
        Session {
            player: PlayerJson::of(player, true),
            token: token.0,
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Login {
    name: String,
    password: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerUpdate {
    /// A new email; `null` removes it. Needs `current_password`.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    email: Option<Option<String>>,
    /// A new password; needs `current_password`. Ends every other session.
    password: Option<String>,
    current_password: Option<String>,
    /// Per kind of event (`your_turn`, `invited`, `game_over`, `chat`,
    /// `reminder`), the channels: `["email", "webhook"]`.
    #[schema(value_type = Option<Object>)]
    notify: Option<serde_json::Value>,
    /// An http(s) URL for webhooks; `null` removes it. Setting it returns
    /// a new `webhook_secret`, once.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>)]
    webhook_url: Option<Option<String>>,
    /// One mail a day instead of one per event.
    digest: Option<bool>,
    /// Declares the account a bot account (or not): only before the
    /// player's first game, else 409 `bot_after_games`.
    bot: Option<bool>,
}

/// A field that is present (maybe `null`), as opposed to absent.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

/// Registers a player and opens a session.
#[utoipa::path(post, path = "/api/v1/players", tag = "players", request_body = NewAccount,
    responses((status = 201, body = Session), (status = 400), (status = 409, description = "name taken"), (status = 422),
        (status = 429, description = "too many registrations from this address; see Retry-After")))]
async fn register(
    State(state): State<AppState>,
    SessionClient(client): SessionClient,
    Json(account): Json<NewAccount>,
) -> Result<(StatusCode, Json<Session>)> {
    let (player, token) = state.players.register(account, client).await?;
    Ok((StatusCode::CREATED, Json(Session::of(&player, token))))
}

/// Opens a session: the player and a new token, as registration answers.
#[utoipa::path(post, path = "/api/v1/sessions", tag = "players", request_body = Login,
    responses((status = 201, body = Session), (status = 400), (status = 401),
        (status = 429, description = "too many failed sign-ins lately; see Retry-After")))]
async fn login(
    State(state): State<AppState>,
    SessionClient(client): SessionClient,
    Json(body): Json<Login>,
) -> Result<(StatusCode, Json<Session>)> {
    let (player, token) = state.players.sign_in(&body.name, body.password, client).await?;
    Ok((StatusCode::CREATED, Json(Session::of(&player, token))))
}

/// Ends this session: the token sent stops working.
#[utoipa::path(delete, path = "/api/v1/sessions/current", tag = "players",
    security(("bearer" = [])), responses((status = 204, description = "signed out"), (status = 401)))]
async fn sign_out(State(state): State<AppState>, SignedIn(session): SignedIn) -> Result<StatusCode> {
    state.players.sign_out(&session).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ends every session of the player, this one included: each of their
/// tokens stops working.
#[utoipa::path(delete, path = "/api/v1/sessions", tag = "players",
    security(("bearer" = [])), responses((status = 204, description = "signed out everywhere"), (status = 401)))]
async fn sign_out_everywhere(State(state): State<AppState>, Auth(player): Auth) -> Result<StatusCode> {
    state.players.sign_out_everywhere(&player).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// One of the player's sessions (never its token).
#[derive(Serialize, ToSchema)]
pub struct SessionJson {
    /// Names the session for `DELETE /players/me/sessions/{id}`.
    id: String,
    created_at: String,
    /// When the token was last used, to within a minute or so.
    last_used_at: String,
    /// The `User-Agent` of the client that opened it.
    user_agent: Option<String>,
    /// The session this request came with.
    current: bool,
}

impl From<SessionInfo> for SessionJson {
    fn from(session: SessionInfo) -> SessionJson {
        SessionJson {
            id: session.id,
            created_at: state_timestamp(session.created_at),
            last_used_at: state_timestamp(session.last_used_at),
            user_agent: session.user_agent,
            current: session.current,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct SessionList {
    /// Most recently used first.
    sessions: Vec<SessionJson>,
}

/// The player's sessions: where they are signed in. Each ends when signed
/// out, revoked, or unused for `--session-days`.
#[utoipa::path(get, path = "/api/v1/players/me/sessions", tag = "players", security(("bearer" = [])),
    responses((status = 200, body = SessionList), (status = 401)))]
async fn my_sessions(State(state): State<AppState>, SignedIn(session): SignedIn) -> Result<Json<SessionList>> {
    let sessions = state.players.sessions(&session).await?;
    Ok(Json(SessionList {
        sessions: sessions.into_iter().map(SessionJson::from).collect(),
    }))
}

/// Revokes one of the player's sessions: its token stops working at once
/// on this server (within a minute on the others sharing its database).
#[utoipa::path(delete, path = "/api/v1/players/me/sessions/{id}", tag = "players", security(("bearer" = [])),
    params(("id" = String, Path, description = "a session's id, from the list")),
    responses((status = 204, description = "revoked"), (status = 401),
        (status = 404, description = "no session of yours has this id")))]
async fn revoke_session(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    state.players.revoke_session(&session, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The authenticated player.
#[utoipa::path(get, path = "/api/v1/players/me", tag = "players", security(("bearer" = [])), responses((status = 200, body = MeJson), (status = 401)))]
async fn me(State(state): State<AppState>, Auth(player): Auth) -> Result<Json<MeJson>> {
    Ok(Json(state.players.me(&player).await?.into()))
}

/// Replaces the player's secret mail address; the old one stops working.
#[utoipa::path(post, path = "/api/v1/players/me/mail-address", tag = "players",
    security(("bearer" = [])), responses((status = 200, body = MeJson), (status = 401), (status = 404, description = "mail is off")))]
async fn new_mail_address(State(state): State<AppState>, Auth(player): Auth) -> Result<Json<MeJson>> {
    Ok(Json(state.players.new_mail_address(&player).await?.into()))
}

/// Changes the email or password (each needs `current_password`) or the
/// notification settings.
#[utoipa::path(patch, path = "/api/v1/players/me", tag = "players", security(("bearer" = [])), request_body = PlayerUpdate,
    responses((status = 200, body = MeJson), (status = 400), (status = 401),
        (status = 403, description = "current_password is wrong"),
        (status = 409, description = "`bot` changed after the player's first game"), (status = 422)))]
async fn update_me(
    State(state): State<AppState>,
    SignedIn(session): SignedIn,
    Json(body): Json<PlayerUpdate>,
) -> Result<Json<MeJson>> {
    let change = AccountChange {
        email: body.email,
        password: body.password,
        current_password: body.current_password,
        bot: body.bot,
        settings: SettingsChange {
            notify: body.notify,
            webhook_url: body.webhook_url,
            digest: body.digest,
        },
    };
    Ok(Json(state.players.update(&session, change).await?.into()))
}

/// A player's public profile: their ratings (one per game and variant
/// played rated) and statistics.
#[utoipa::path(get, path = "/api/v1/players/{name}", tag = "players", params(super::params::NamePath),
    responses((status = 200, body = ProfileJson), (status = 404)))]
async fn profile(
    State(state): State<AppState>,
    Path(super::params::NamePath { name }): Path<super::params::NamePath>,
) -> Result<Json<ProfileJson>> {
    Ok(Json(state.ratings.profile(&name).await?.into()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Events after this number.
    after: Option<i64>,
    /// At most this many (1 to 500, default 100).
    #[param(minimum = 1, maximum = 500)]
    #[serde(default, deserialize_with = "super::params::in_range::<_, 1, 500>")]
    limit: Option<i64>,
}

/// An event over REST: the one shape of every door ([`EventView`]).
#[derive(Serialize, ToSchema)]
pub struct EventJson {
    #[serde(flatten)]
    event: EventView,
    /// `data`, under the name of the release before; going in the next.
    #[schema(value_type = Object, deprecated)]
    payload: serde_json::Value,
}

#[derive(Serialize, ToSchema)]
pub struct EventList {
    events: Vec<EventJson>,
}

/// `rows` as a list: of game `game`'s log, or of a player's stream.
pub(super) fn event_list(game: Option<i64>, rows: &[EventRow]) -> EventList {
    EventList {
        events: rows
            .iter()
            .map(|row| {
                let event = match game {
                    Some(id) => EventView::of_game(id, row),
                    None => EventView::of_player(row),
                };
                EventJson {
                    payload: row.payload.clone(),
                    event,
                }
            })
            .collect(),
    }
}

/// The player's own events (invited, game started, your turn, offers, game
/// over), in order.
#[utoipa::path(get, path = "/api/v1/players/me/events", tag = "players", security(("bearer" = [])), params(EventsQuery),
    responses((status = 200, body = EventList), (status = 401)))]
async fn my_events(
    State(state): State<AppState>,
    Auth(player): Auth,
    Query(query): Query<EventsQuery>,
) -> Result<Json<EventList>> {
    let rows = state
        .players
        .events(player.id, query.after.unwrap_or(0), query.limit)
        .await?;
    Ok(Json(event_list(None, &rows)))
}
