//! The catalogue and analysis without a game: `/rules`, `/rules/analyze`.

use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::error::{Error, Result};
use super::{AppState, Json};
use crate::rules::{analysis, catalogue};

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/rules"), get(list))
        .route(api_path!("/rules/analyze"), post(analyze))
}

/// Every game and variant: seats, boards, summaries, notation guides.
#[utoipa::path(get, path = "/api/v1/rules", tag = "rules",
    responses((status = 200, description = "the catalogue", body = Object)))]
async fn list() -> Json<Value> {
    Json(serde_json::json!({ "games": catalogue::GAMES }))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    game: String,
    variant: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
}

/// Where a game stands after some moves, without storing anything: the
/// answer of `tavoliere rules` (status, to_move, legal, winners, reason) plus
/// the ply and the position view.
#[utoipa::path(post, path = "/api/v1/rules/analyze", tag = "rules", request_body = AnalyzeRequest,
    responses((status = 200, description = "the standing and view", body = Object), (status = 400),
              (status = 422, description = "unknown game or a bad move, with its number")))]
async fn analyze(Json(body): Json<AnalyzeRequest>) -> Result<Json<analysis::Analysis>> {
    let request = analysis::Request {
        game: body.game,
        variant: body.variant,
        moves: body.moves,
    };
    analysis::analyze(&request)
        .map(Json)
        .map_err(|refusal| match refusal.index {
            None => Error::unprocessable("unknown_game", refusal.error),
            Some(index) => Error::unprocessable(
                "illegal_move",
                format!(
                    "move {} ({:?}): {}",
                    index + 1,
                    request
                        .moves
                        .get(index)
                        .map(|m| m.chars().take(40).collect::<String>())
                        .unwrap_or_default(),
                    refusal.error
                ),
            ),
        })
}
