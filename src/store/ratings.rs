//! The ratings aggregate: each player's Glicko-2 rating per game and
//! variant, and the change each rated game made to it. Written with a
//! game's end by the group-commit writers (the update's
//! [`RatingChange`]s), and wholesale only by [`RatingStore::replace_ratings`]
//! (`tavoliere ratings rebuild`). Promises: a rating row moves only from
//! the count of games its change was computed on, so no update is lost or
//! applied twice.

use async_trait::async_trait;

use super::{PlayedGame, RatedGame, RatingChange, RatingPoint, RatingRow, StoreResult};

#[async_trait]
pub trait RatingStore: Send + Sync {
    /// The stored ratings of `players` in a game and variant; a player
    /// never rated there has none.
    async fn ratings_of(&self, game: &str, variant: &str, players: &[i64]) -> StoreResult<Vec<RatingRow>>;
    /// A page of a variant's ratings, best first.
    async fn leaderboard(&self, page: LeaderboardPage<'_>) -> StoreResult<Vec<RatingRow>>;
    /// Every rating of a player, by game and variant.
    async fn player_ratings(&self, player_id: i64) -> StoreResult<Vec<RatingRow>>;
    /// Every rating, for the rebuild to compare with.
    async fn all_ratings(&self) -> StoreResult<Vec<RatingRow>>;
    /// A player's rated games in a game and variant, in order.
    async fn rating_history(&self, player_id: i64, game: &str, variant: &str) -> StoreResult<Vec<RatingPoint>>;
    /// The active and finished games a player sits at, oldest change first.
    async fn played_games(&self, player_id: i64) -> StoreResult<Vec<PlayedGame>>;
    /// The players met most at active and finished games: `(name, games)`.
    async fn opponents_met(&self, player_id: i64, limit: i64) -> StoreResult<Vec<(String, i64)>>;
    /// Every finished rated game with its seats, in the order they were
    /// rated (never-rated ones last, by their end).
    async fn rated_games(&self) -> StoreResult<Vec<RatedGame>>;
    /// Replaces every rating and rating change, in one transaction.
    async fn replace_ratings(&self, ratings: &[RatingRow], changes: &[RatingChange]) -> StoreResult<()>;
}

/// Which ratings a leaderboard page holds.
#[derive(Clone, Copy, Debug)]
pub struct LeaderboardPage<'a> {
    pub game: &'a str,
    pub variant: &'a str,
    /// Only ratings with a deviation of at most this (the settled ones).
    pub max_rd: f64,
    /// How many of the best to skip.
    pub offset: i64,
    pub limit: i64,
}
