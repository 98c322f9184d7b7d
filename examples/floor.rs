//! The floor a move's CPU is measured against (issue 26): an axum server
//! that answers `POST /api/v1/games/{id}/moves` with a small JSON body and
//! does nothing else (no auth, no rules, no database). `scripts/floor`
//! loads it with `wrk` and divides its CPU time by the requests answered,
//! so that Tavoliere's CPU per move can be read as a multiple of what any
//! axum handler costs on the same host the same day.
//!
//!   cargo run --release --example floor -- 127.0.0.1:18400

use axum::extract::Path;
use axum::routing::post;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct MoveBody {
    #[serde(rename = "move")]
    notation: String,
    ply: u32,
}

#[derive(Serialize)]
struct Answer {
    game: i64,
    ply: u32,
    #[serde(rename = "move")]
    notation: String,
}

async fn play(Path(game): Path<i64>, Json(body): Json<MoveBody>) -> Json<Answer> {
    Json(Answer {
        game,
        ply: body.ply + 1,
        notation: body.notation,
    })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:18400".to_owned());
    let app = Router::new().route("/api/v1/games/{id}/moves", post(play));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    axum::serve(listener, app).await
}
