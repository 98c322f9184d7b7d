//! `GET /bots`: the built-in bots this server plays, with their levels,
//! the games they play (every game and variant) and their ratings.

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::Result;
use super::ratings::RatingJson;
use super::{AppState, Json};
use crate::games::bots::BotListing;
use crate::rules::catalogue::GAMES;

pub fn router() -> Router<AppState> {
    Router::new().route(api_path!("/bots"), get(list))
}

/// A game a bot plays, with its variants.
#[derive(Serialize, ToSchema)]
pub struct BotGame {
    game: &'static str,
    variants: Vec<&'static str>,
}

/// A built-in bot: invite it by `name` like any player.
#[derive(Serialize, ToSchema)]
pub struct BotJson {
    name: String,
    /// `beginner`, `intermediate` or `strongest`.
    level: String,
    description: &'static str,
    games: Vec<BotGame>,
    /// Its ratings by game and variant, once it has played rated games.
    ratings: Vec<RatingJson>,
}

#[derive(Serialize, ToSchema)]
pub struct BotList {
    /// Empty when this server runs without bots (`--bot-threads 0`).
    bots: Vec<BotJson>,
}

impl From<BotListing> for BotJson {
    fn from(bot: BotListing) -> BotJson {
        let games = GAMES
            .iter()
            .map(|g| BotGame {
                game: g.slug,
                variants: g.variants.iter().map(|v| v.slug).collect(),
            })
            .collect();
        BotJson {
            name: bot.name,
            level: bot.level.to_string(),
            description: bot.description,
            games,
            ratings: bot.ratings.iter().map(RatingJson::from).collect(),
        }
    }
}

#[utoipa::path(get, path = "/api/v1/bots", tag = "bots",
    responses((status = 200, body = BotList)))]
pub(super) async fn list(State(state): State<AppState>) -> Result<Json<BotList>> {
    let bots = state.bots.list().await?;
    Ok(Json(BotList {
        bots: bots.into_iter().map(BotJson::from).collect(),
    }))
}
