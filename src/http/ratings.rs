//! Ratings: a variant's leaderboard, a player's rating history, and the
//! ratings and statistics of a player's profile (`/players/{name}`, routed
//! by `players.rs`). Each handler parses, calls one function of the
//! ratings service and renders.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::routing::get;
use axum::Router;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::error::Result;
use super::params::{self, NamePath, VariantPath};
use super::players::PlayerJson;
use super::{AppState, Json, Path, Query};
use crate::ratings::stats::Tally;
use crate::ratings::{is_provisional, Board, History, Profile, RatingRow};
use crate::views::timestamp;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(api_path!("/ratings/{game}/{variant}"), get(leaderboard))
        .route(api_path!("/players/{name}/ratings/{game}/{variant}"), get(history))
}

/// A player's rating in one game and variant.
#[derive(Serialize, ToSchema)]
pub struct RatingJson {
    player: String,
    /// Whether the player is a bot account.
    bot: bool,
    game: String,
    variant: String,
    rating: f64,
    rd: f64,
    volatility: f64,
    games: i64,
    wins: i64,
    losses: i64,
    draws: i64,
    /// Deviation above 110: shown with a `?`, kept off leaderboards.
    provisional: bool,
    last_played: String,
}

impl From<&RatingRow> for RatingJson {
    fn from(row: &RatingRow) -> RatingJson {
        RatingJson {
            player: row.name.clone(),
            bot: row.bot,
            game: row.game.clone(),
            variant: row.variant.clone(),
            rating: row.rating,
            rd: row.rd,
            volatility: row.volatility,
            games: row.games,
            wins: row.wins,
            losses: row.losses,
            draws: row.draws,
            provisional: is_provisional(row.rd),
            last_played: timestamp(row.last_played),
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1 for the best.
    rank: i64,
    #[serde(flatten)]
    rating: RatingJson,
}

#[derive(Serialize, ToSchema)]
pub struct Leaderboard {
    game: String,
    variant: String,
    entries: Vec<LeaderboardEntry>,
    /// Pass as `cursor` for the next page; `null` on the last.
    next_cursor: Option<i64>,
}

impl From<Board> for Leaderboard {
    fn from(board: Board) -> Leaderboard {
        Leaderboard {
            game: board.game.to_owned(),
            variant: board.variant.to_owned(),
            entries: (board.first_rank..)
                .zip(&board.entries)
                .map(|(rank, row)| LeaderboardEntry {
                    rank,
                    rating: row.into(),
                })
                .collect(),
            next_cursor: board.next_cursor,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    /// The `next_cursor` of the previous page.
    cursor: Option<i64>,
    /// Page size, 1 to 100 (default 50).
    #[param(minimum = 1, maximum = 100)]
    #[serde(default, deserialize_with = "params::in_range::<_, 1, 100>")]
    limit: Option<i64>,
}

/// The leaderboard of a game's variant, best first; provisional ratings
/// (deviation above 110) are left out.
#[utoipa::path(get, path = "/api/v1/ratings/{game}/{variant}", tag = "ratings",
    params(VariantPath, BoardQuery),
    responses((status = 200, body = Leaderboard), (status = 400), (status = 422, description = "no such game or variant")))]
async fn leaderboard(
    State(state): State<AppState>,
    Path(VariantPath { game, variant }): Path<VariantPath>,
    Query(query): Query<BoardQuery>,
) -> Result<Json<Leaderboard>> {
    let board = state
        .ratings
        .leaderboard(&game, &variant, query.cursor, query.limit)
        .await?;
    Ok(Json(board.into()))
}

/// A point of a rating history: one rated game.
#[derive(Serialize, ToSchema)]
pub struct RatingPointJson {
    game_id: i64,
    at: String,
    /// win, loss or draw.
    result: String,
    before: f64,
    after: f64,
    rd_before: f64,
    rd_after: f64,
}

#[derive(Serialize, ToSchema)]
pub struct RatingHistory {
    player: String,
    game: String,
    variant: String,
    points: Vec<RatingPointJson>,
}

impl From<History> for RatingHistory {
    fn from(history: History) -> RatingHistory {
        RatingHistory {
            player: history.player.name,
            game: history.game.to_owned(),
            variant: history.variant.to_owned(),
            points: history
                .points
                .into_iter()
                .map(|p| RatingPointJson {
                    game_id: p.game_id,
                    at: timestamp(p.played_at),
                    result: p.result,
                    before: p.rating_before,
                    after: p.rating_after,
                    rd_before: p.rd_before,
                    rd_after: p.rd_after,
                })
                .collect(),
        }
    }
}

/// A player's rating history in a variant: one point per rated game, oldest first.
#[utoipa::path(get, path = "/api/v1/players/{name}/ratings/{game}/{variant}", tag = "ratings",
    params(NamePath, VariantPath),
    responses((status = 200, body = RatingHistory), (status = 404), (status = 422)))]
async fn history(
    State(state): State<AppState>,
    Path((name, game, variant)): Path<(String, String, String)>,
) -> Result<Json<RatingHistory>> {
    Ok(Json(state.ratings.history(&name, &game, &variant).await?.into()))
}

#[derive(Serialize, ToSchema)]
pub struct TallyJson {
    played: i64,
    won: i64,
    lost: i64,
    drawn: i64,
}

impl From<&Tally> for TallyJson {
    fn from(t: &Tally) -> TallyJson {
        TallyJson {
            played: t.played,
            won: t.won,
            lost: t.lost,
            drawn: t.drawn,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct OpponentJson {
    player: String,
    games: i64,
}

#[derive(Serialize, ToSchema)]
pub struct StatisticsJson {
    /// Finished games.
    #[serde(flatten)]
    total: TallyJson,
    in_progress: i64,
    /// Finished games by game slug.
    by_game: BTreeMap<String, TallyJson>,
    /// The most finished games won in a row.
    longest_streak: i64,
    /// The players met most, most first.
    opponents: Vec<OpponentJson>,
}

/// A player's public profile: account, ratings, statistics.
#[derive(Serialize, ToSchema)]
pub struct ProfileJson {
    #[serde(flatten)]
    player: PlayerJson,
    /// One per game and variant played rated.
    ratings: Vec<RatingJson>,
    statistics: StatisticsJson,
}

impl From<Profile> for ProfileJson {
    fn from(profile: Profile) -> ProfileJson {
        let s = &profile.statistics;
        ProfileJson {
            player: PlayerJson::of(&profile.player, false),
            ratings: profile.ratings.iter().map(RatingJson::from).collect(),
            statistics: StatisticsJson {
                total: (&s.total).into(),
                in_progress: s.in_progress,
                by_game: s.by_game.iter().map(|(g, t)| (g.clone(), t.into())).collect(),
                longest_streak: s.longest_streak,
                opponents: s
                    .opponents
                    .iter()
                    .map(|(player, games)| OpponentJson {
                        player: player.clone(),
                        games: *games,
                    })
                    .collect(),
            },
        }
    }
}
