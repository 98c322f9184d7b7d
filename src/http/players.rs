//! Accounts and sessions: `/players`, `/sessions`, `/players/me`.

use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::correspondence::{notify_settings, MeJson};
use super::{AppState, Auth, Json, Path, Query, SignedIn};
use crate::accounts::{self, Email, Password, PlayerName};
use crate::error::{Error, Result};
use crate::games::{now, timestamp as state_timestamp};
use crate::store::{Credentials, NewPassword, NewPlayer, NewToken, Player, PlayerChange, StoreError};
use axum::extract::State;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/players", post(register))
        .route("/sessions", post(login).delete(sign_out_everywhere))
        .route("/sessions/current", delete(sign_out))
        .route("/players/me", get(me).patch(update_me))
        .route("/players/me/events", get(my_events))
        .route("/players/{name}", get(profile))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Registration {
    /// 1 to 32 letters, digits, `_` or `-`; unique regardless of case.
    name: String,
    /// 8 to 128 characters.
    password: String,
    email: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct PlayerJson {
    name: String,
    /// Only shown to the player themselves.
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<String>,
    created_at: String,
}

impl PlayerJson {
    pub(super) fn of(player: &Player, with_email: bool) -> PlayerJson {
        PlayerJson {
            name: player.name.clone(),
            email: if with_email { player.email.clone() } else { None },
            created_at: state_timestamp(player.created_at),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct Registered {
    player: PlayerJson,
    /// Send as `Authorization: Bearer <token>`.
    token: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Login {
    name: String,
    password: String,
}

#[derive(Serialize, ToSchema)]
pub struct Session {
    token: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PlayerUpdate {
    /// A new email; `null` removes it.
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
}

/// A field that is present (maybe `null`), as opposed to absent.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(deserializer).map(Some)
}

async fn issue_token(state: &AppState, player: &Player) -> Result<String> {
    let token = accounts::new_token();
    state
        .store
        .insert_token(NewToken {
            token_hash: accounts::token_hash(&token),
            player_id: player.id,
            now: now(),
        })
        .await?;
    Ok(token)
}

/// Registers a player and opens a session.
#[utoipa::path(post, path = "/api/v1/players", tag = "players", request_body = Registration,
    responses((status = 201, body = Registered), (status = 400), (status = 409, description = "name taken"), (status = 422)))]
async fn register(
    State(state): State<AppState>,
    Json(body): Json<Registration>,
) -> Result<(StatusCode, Json<Registered>)> {
    let name = PlayerName::parse(body.name)?;
    let password = Password::parse(body.password)?;
    let email = body.email.map(Email::parse).transpose()?.map(Email::into_inner);
    let hash = accounts::hash_password(password).await?;
    let player = state
        .store
        .create_player(NewPlayer {
            name: name.as_str().to_owned(),
            name_key: name.key(),
            email,
            password_hash: hash,
            now: now(),
        })
        .await
        .map_err(|e| match e {
            StoreError::Unique => Error::conflict("name_taken", format!("the name {} is taken", name.as_str())),
            other => other.into(),
        })?;
    let token = issue_token(&state, &player).await?;
    Ok((
        StatusCode::CREATED,
        Json(Registered {
            player: PlayerJson::of(&player, true),
            token,
        }),
    ))
}

/// Opens a session: a new token.
#[utoipa::path(post, path = "/api/v1/sessions", tag = "players", request_body = Login,
    responses((status = 201, body = Session), (status = 400), (status = 401)))]
async fn login(State(state): State<AppState>, Json(body): Json<Login>) -> Result<(StatusCode, Json<Session>)> {
    let refused = || Error::Unauthorized("wrong name or password".to_owned());
    if body.name.len() > 64 || body.password.len() > 4 * accounts::MAX_PASSWORD_LEN {
        return Err(refused());
    }
    let Credentials { player, password_hash } = state
        .store
        .credentials(&accounts::name_key(&body.name))
        .await?
        .ok_or_else(refused)?;
    if !accounts::verify_password(body.password, password_hash).await? {
        return Err(refused());
    }
    let token = issue_token(&state, &player).await?;
    Ok((StatusCode::CREATED, Json(Session { token })))
}

/// Ends this session: the token sent stops working.
#[utoipa::path(delete, path = "/api/v1/sessions/current", tag = "players",
    responses((status = 204, description = "signed out"), (status = 401)))]
async fn sign_out(State(state): State<AppState>, signed_in: SignedIn) -> Result<StatusCode> {
    state.store.delete_token(&signed_in.token_hash).await?;
    state.tokens.forget_token(&signed_in.token_hash);
    Ok(StatusCode::NO_CONTENT)
}

/// Ends every session of the player, this one included: each of their
/// tokens stops working.
#[utoipa::path(delete, path = "/api/v1/sessions", tag = "players",
    responses((status = 204, description = "signed out everywhere"), (status = 401)))]
async fn sign_out_everywhere(State(state): State<AppState>, Auth(player): Auth) -> Result<StatusCode> {
    state.store.delete_tokens(player.id).await?;
    state.tokens.forget_player(player.id);
    Ok(StatusCode::NO_CONTENT)
}

/// The authenticated player.
#[utoipa::path(get, path = "/api/v1/players/me", tag = "players", responses((status = 200, body = MeJson), (status = 401)))]
async fn me(State(state): State<AppState>, Auth(player): Auth) -> Result<Json<MeJson>> {
    Ok(Json(MeJson::of(&state, &player, None).await?))
}

/// Changes the email or password.
#[utoipa::path(patch, path = "/api/v1/players/me", tag = "players", request_body = PlayerUpdate,
    responses((status = 200, body = MeJson), (status = 400), (status = 401), (status = 422)))]
async fn update_me(
    State(state): State<AppState>,
    SignedIn { player, token_hash }: SignedIn,
    Json(body): Json<PlayerUpdate>,
) -> Result<Json<MeJson>> {
    // Checked before anything is written: a bad setting changes nothing.
    let settings = notify_settings(&state, body.notify, body.webhook_url, body.digest)?;
    let email = match body.email {
        Some(Some(email)) => Some(Some(Email::parse(email)?.into_inner())),
        other => other,
    };
    let mut new_hash = None;
    if let Some(password) = body.password {
        let password = Password::parse(password)?;
        let current = body
            .current_password
            .ok_or_else(|| Error::unprocessable("current_password", "changing the password needs current_password"))?;
        let hash = state
            .store
            .credentials(&accounts::name_key(&player.name))
            .await?
            .ok_or_else(|| Error::Unauthorized("no such player".to_owned()))?
            .password_hash;
        if current.len() > 4 * accounts::MAX_PASSWORD_LEN || !accounts::verify_password(current, hash).await? {
            return Err(Error::forbidden("wrong_password", "current_password is wrong"));
        }
        new_hash = Some(accounts::hash_password(password).await?);
    }
    state
        .store
        .update_player(PlayerChange {
            id: player.id,
            email,
            password: new_hash.map(|hash| NewPassword {
                hash,
                kept_token: token_hash,
            }),
        })
        .await?;
    state.tokens.forget_player(player.id);
    let secret = settings.webhook.as_ref().and_then(|(_, secret)| secret.clone());
    state.store.update_notify_settings(player.id, settings).await?;
    let player = state
        .store
        .player_by_name(&accounts::name_key(&player.name))
        .await?
        .ok_or_else(|| Error::internal("player vanished"))?;
    Ok(Json(MeJson::of(&state, &player, secret).await?))
}

/// A player's public profile.
#[utoipa::path(get, path = "/api/v1/players/{name}", tag = "players", params(("name" = String, Path)),
    responses((status = 200, body = PlayerJson), (status = 404)))]
async fn profile(State(state): State<AppState>, Path(name): Path<String>) -> Result<Json<PlayerJson>> {
    let player = if name.len() <= 64 {
        state.store.player_by_name(&accounts::name_key(&name)).await?
    } else {
        None
    };
    let player = player.ok_or_else(|| {
        Error::NotFound(format!(
            "no player named {:?}",
            name.chars().take(64).collect::<String>()
        ))
    })?;
    Ok(Json(PlayerJson::of(&player, false)))
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Events after this number.
    after: Option<i64>,
    /// At most this many (1 to 500, default 100).
    limit: Option<i64>,
}

#[derive(Serialize, ToSchema)]
pub struct EventJson {
    seq: i64,
    kind: String,
    #[schema(value_type = Object)]
    payload: serde_json::Value,
    at: String,
}

#[derive(Serialize, ToSchema)]
pub struct EventList {
    events: Vec<EventJson>,
}

pub(super) fn event_list(rows: Vec<crate::store::EventRow>) -> EventList {
    EventList {
        events: rows
            .into_iter()
            .map(|e| EventJson {
                seq: e.seq,
                kind: e.kind,
                payload: e.payload,
                at: state_timestamp(e.created_at),
            })
            .collect(),
    }
}

/// The player's own events (invited, game started, your turn, offers, game
/// over), in order.
#[utoipa::path(get, path = "/api/v1/players/me/events", tag = "players", params(EventsQuery),
    responses((status = 200, body = EventList), (status = 401)))]
async fn my_events(
    State(state): State<AppState>,
    Auth(player): Auth,
    Query(query): Query<EventsQuery>,
) -> Result<Json<EventList>> {
    let limit = query.limit.unwrap_or(100).clamp(1, 500);
    let rows = state
        .store
        .player_events(player.id, query.after.unwrap_or(0), limit)
        .await?;
    Ok(Json(event_list(rows)))
}
