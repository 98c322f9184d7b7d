//! Real-time doors over HTTP: the WebSocket upgrade (`/ws`), chat for HTTP
//! clients, and the player's event stream without WebSocket (`/events`, long
//! poll or server-sent events).

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::ws::WebSocketUpgrade;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::{IntoParams, ToSchema};

use super::error::{Error, Result};
use super::players::{event_list, EventList};
use super::{AppState, Auth, Json, MaybeAuth, Path, Query};
use crate::games::Room;
use crate::players::{EventRow, Player};
use crate::realtime::socket::{self, Context};
use crate::realtime::PlayerSubscription;
use crate::views::EventView;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/ws"), get(websocket))
        .route(api_path!("/games/{id}/chat"), post(chat))
        .route(api_path!("/events"), get(events))
}

/// WebSocket upgrade; see PROTOCOL.md. A token in `Authorization` is checked
/// before the upgrade (401 if invalid); browsers send an `auth` message.
async fn websocket(State(state): State<AppState>, MaybeAuth(player): MaybeAuth, upgrade: WebSocketUpgrade) -> Response {
    let config = state.realtime.clone();
    let limit = config.ws_max_message.max(64);
    let context = Context {
        games: state.games.clone(),
        hub: state.hub.clone(),
        players: state.players.clone(),
        config,
    };
    upgrade
        // Small buffers: an idle socket costs a few KiB, not tungstenite's
        // default 128 KiB each way. A client's messages are a few hundred
        // bytes, and tungstenite zeroes the read buffer's free room before
        // every read: 4 KiB of it cost 3.6k instructions a move (issue 26);
        // a longer message grows the buffer as it arrives. Frames fed
        // without a flush wait in the write buffer up to 16 KiB (`socket.rs`
        // writes the frames queued together at once); it grows as frames
        // are written, not before.
        .read_buffer_size(1024)
        .write_buffer_size(16 * 1024)
        .max_write_buffer_size(256 * 1024)
        // Messages over the configured limit are answered with an error;
        // only four times that (or more) is a protocol violation that closes.
        .max_message_size(limit * 4)
        .max_frame_size(limit * 4)
        .on_upgrade(move |socket| socket::serve(socket, context, player))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    /// 1 to 1000 characters.
    #[schema(min_length = 1, max_length = 1000)]
    text: String,
    /// `players` (default; seated players only) or `spectators`.
    room: Option<Room>,
}

/// Writes a chat message in the game's log (the same path as the WebSocket's
/// `chat`); live subscribers receive it as an `event` of kind `chat`.
#[utoipa::path(post, path = "/api/v1/games/{id}/chat", tag = "games", security(("bearer" = [])), request_body = ChatRequest,
    params(("id" = i64, Path)),
    responses((status = 201, body = EventView, description = "the `chat` event, as every door sends it"), (status = 401), (status = 403), (status = 404), (status = 422)))]
pub(super) async fn chat(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Json(request): Json<ChatRequest>,
) -> Result<(StatusCode, Json<EventView>)> {
    let event = state
        .games
        .chat(&player, id, request.room.unwrap_or(Room::Players), &request.text)
        .await?;
    Ok((StatusCode::CREATED, Json(EventView::of_game(id, &event))))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct StreamQuery {
    /// Events after this number (default 0; for SSE, `Last-Event-ID` wins).
    after: Option<i64>,
    /// Long poll: when nothing is newer than `after`, wait up to this many
    /// seconds (0 to 3600; the server waits at most its
    /// `--events-max-wait`, 25 by default) for the next event.
    #[param(minimum = 0, maximum = 3600)]
    #[serde(default, deserialize_with = "super::params::in_range::<_, 0, 3600>")]
    wait: Option<i64>,
    /// At most this many events per answer (1 to 500, default 100).
    #[param(minimum = 1, maximum = 500)]
    #[serde(default, deserialize_with = "super::params::in_range::<_, 1, 500>")]
    limit: Option<i64>,
}

/// The player's own event stream without WebSocket. As JSON: the events
/// after `after`, waiting up to `wait` seconds when there are none yet (long
/// poll). With `Accept: text/event-stream`: server-sent events, one per
/// stored event (`id` = its seq, `event` = its kind, `data` = the
/// `player_event` frame of the WebSocket), forever, resuming after
/// `Last-Event-ID` on reconnection.
#[utoipa::path(get, path = "/api/v1/events", tag = "players", security(("bearer" = [])), params(StreamQuery),
    responses((status = 200, body = EventList), (status = 401)))]
pub(super) async fn events(
    State(state): State<AppState>,
    Auth(player): Auth,
    headers: HeaderMap,
    Query(query): Query<StreamQuery>,
) -> Result<Response> {
    let wants_sse = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"));
    if wants_sse {
        let last_event_id = match headers.get("last-event-id") {
            Some(value) => Some(
                value
                    .to_str()
                    .ok()
                    .and_then(|v| v.trim().parse::<i64>().ok())
                    .ok_or_else(|| Error::BadRequest("Last-Event-ID is an event number".to_owned()))?,
            ),
            None => None,
        };
        let after = last_event_id.or(query.after).unwrap_or(0).max(0);
        return Ok(sse(state, player, after).into_response());
    }
    let after = query.after.unwrap_or(0).max(0);
    // Subscribe before reading: an event committed in between still wakes us.
    let mut subscription = state.hub.subscribe_player(player.id);
    let mut rows = state.players.events(player.id, after, query.limit).await?;
    let wait = query
        .wait
        .map_or(0, i64::unsigned_abs)
        .min(state.realtime.events_max_wait);
    if rows.is_empty() && wait > 0 {
        let woken = tokio::time::timeout(Duration::from_secs(wait), subscription.changed()).await;
        if woken.is_ok() {
            rows = state.players.events(player.id, after, query.limit).await?;
        }
    }
    Ok(Json(event_list(None, &rows)).into_response())
}

fn player_event(row: &EventRow) -> Value {
    EventView::of_player(row).frame("player_event")
}

/// Server-sent events: the stored events after `after`, then each new one.
fn sse(
    state: AppState,
    player: Player,
    after: i64,
) -> Sse<impl futures_util::Stream<Item = Result<SseEvent, Infallible>>> {
    struct Cursor {
        state: AppState,
        player: i64,
        after: i64,
        pending: std::collections::VecDeque<EventRow>,
        subscription: PlayerSubscription,
        done: bool,
    }
    let subscription = state.hub.subscribe_player(player.id);
    let state_closed = state.hub.closed();
    let cursor = Cursor {
        player: player.id,
        state,
        after,
        pending: Default::default(),
        subscription,
        done: false,
    };
    let stream = futures_util::stream::unfold(cursor, |mut cursor| async move {
        loop {
            if cursor.done {
                return None;
            }
            if let Some(row) = cursor.pending.pop_front() {
                cursor.after = row.seq;
                let event = SseEvent::default()
                    .id(row.seq.to_string())
                    .event(row.kind.clone())
                    .data(player_event(&row).to_string());
                return Some((Ok(event), cursor));
            }
            match cursor.state.players.events(cursor.player, cursor.after, None).await {
                Ok(rows) if !rows.is_empty() => cursor.pending.extend(rows),
                Ok(_) => {
                    if !cursor.subscription.changed().await {
                        return None;
                    }
                }
                Err(error) => {
                    tracing::error!(%error, "reading a player's events for SSE");
                    cursor.done = true;
                    let event = SseEvent::default()
                        .event("error")
                        .data(json!({ "code": "internal", "message": "internal error" }).to_string());
                    return Some((Ok(event), cursor));
                }
            }
        }
    });
    let closed = state_closed;
    Sse::new(futures_util::StreamExt::take_until(stream, closed)).keep_alive(KeepAlive::default())
}
