//! Conditional moves: a player's own tree of replies in a game. Each
//! handler is one call of the games service.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::put;
use axum::Router;

use super::error::Result;
use super::{AppState, Auth, Json, Path};
use crate::games::conditional::{ConditionalView, LinesCommand};

pub fn router() -> Router<AppState> {
    Router::new().route(api_path!("/games/{id}/conditional"), put(set).get(show).delete(clear))
}

/// Sets your conditional moves, replacing any: lines of their move, your
/// reply, their move, your reply…, from the current position, while it is
/// your opponent's turn in a two-player game. Every line is checked by the
/// rules; a bad one is refused (422 naming the line, the ply and the
/// reason) and nothing is stored. At most 64 lines (413) of 40 plies (422).
#[utoipa::path(put, path = "/api/v1/games/{id}/conditional", tag = "conditional", security(("bearer" = [])), params(("id" = i64, Path)),
    request_body = LinesCommand,
    responses((status = 200, body = ConditionalView), (status = 400), (status = 401), (status = 403),
        (status = 404), (status = 409), (status = 413), (status = 422)))]
async fn set(
    State(state): State<AppState>,
    Auth(player): Auth,
    Path(id): Path<i64>,
    Json(body): Json<LinesCommand>,
) -> Result<Json<ConditionalView>> {
    Ok(Json(state.games.set_conditional(&player, id, &body.lines).await?))
}

/// Your conditional moves in this game, as they stand (the tree advances
/// as your replies are played). 404 when you have none, and for everyone
/// else: nobody sees another player's tree, or learns whether there is one.
#[utoipa::path(get, path = "/api/v1/games/{id}/conditional", tag = "conditional", security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 200, body = ConditionalView), (status = 401), (status = 404)))]
async fn show(State(state): State<AppState>, Auth(player): Auth, Path(id): Path<i64>) -> Result<Json<ConditionalView>> {
    Ok(Json(state.games.conditional(&player, id).await?))
}

/// Clears your conditional moves in this game (204, also when there were
/// none).
#[utoipa::path(delete, path = "/api/v1/games/{id}/conditional", tag = "conditional", security(("bearer" = [])), params(("id" = i64, Path)),
    responses((status = 204), (status = 401), (status = 404)))]
async fn clear(State(state): State<AppState>, Auth(player): Auth, Path(id): Path<i64>) -> Result<StatusCode> {
    state.games.clear_conditional(&player, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
