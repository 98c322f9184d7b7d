//! The ratings' models: a player's stored rating, the change a rated
//! game's end writes, the points of a history, and the games the
//! statistics and `tavoliere ratings rebuild` read.

use serde_json::Value;

use crate::domain::{GameStatus, Seat};

/// A player's stored rating in one game and variant, with their name.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct RatingRow {
    pub player_id: i64,
    pub name: String,
    /// Whether the player is a bot account (the account's, read with the
    /// name; a rating's writes leave it alone).
    pub bot: bool,
    pub game: String,
    pub variant: String,
    pub rating: f64,
    pub rd: f64,
    pub volatility: f64,
    /// Rated games played; the writers' guard.
    pub games: i64,
    pub wins: i64,
    pub losses: i64,
    pub draws: i64,
    /// When the last rated game ended.
    pub last_played: i64,
    /// The order of the last rated game (see [`RatingChange::ordinal`]).
    pub last_order: i64,
}

/// How a rated game went for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerResult {
    Win,
    Loss,
    Draw,
}

impl PlayerResult {
    pub fn as_str(self) -> &'static str {
        match self {
            PlayerResult::Win => "win",
            PlayerResult::Loss => "loss",
            PlayerResult::Draw => "draw",
        }
    }

    /// `(wins, losses, draws)` this result adds.
    pub fn counts(self) -> (i64, i64, i64) {
        match self {
            PlayerResult::Win => (1, 0, 0),
            PlayerResult::Loss => (0, 1, 0),
            PlayerResult::Draw => (0, 0, 1),
        }
    }
}

/// A rating before or after a game: `(rating, rd, volatility)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RatingValues {
    pub rating: f64,
    pub rd: f64,
    pub volatility: f64,
}

/// What a rated game's end does to one player's rating, written in the
/// same transaction as the end: the `ratings` row moves from `number - 1`
/// games to `number` (refused, [`crate::store::StoreError::RatingsMoved`], when it
/// no longer counts `number - 1`), and the change is kept.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingChange {
    pub game_id: i64,
    pub player_id: i64,
    pub game: String,
    pub variant: String,
    /// The player's rated games in the variant with this one; 1 creates the row.
    pub number: i64,
    /// One more than the largest `last_order` of the game's players: each
    /// player's games are ordered by it, whichever process ended them.
    pub ordinal: i64,
    pub result: PlayerResult,
    pub before: RatingValues,
    pub after: RatingValues,
    pub played_at: i64,
}

/// A point of a player's rating history.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RatingPoint {
    pub game_id: i64,
    pub number: i64,
    pub result: String,
    pub rating_before: f64,
    pub rd_before: f64,
    pub rating_after: f64,
    pub rd_after: f64,
    pub played_at: i64,
}

/// A game a player sits at (active or finished), for their statistics.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PlayedGame {
    pub id: i64,
    pub game: String,
    pub variant: String,
    #[sqlx(try_from = "String")]
    pub status: GameStatus,
    pub outcome: Option<Value>,
    pub seat: Seat,
    pub updated_at: i64,
}

/// A finished rated game as `tavoliere ratings rebuild` replays it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct RatedGame {
    pub id: i64,
    pub game: String,
    pub variant: String,
    pub outcome: Option<Value>,
    /// When it was rated (its end), or its last change if it never was.
    pub ended_at: i64,
    /// The order it was rated in; `None` if it never was.
    pub ordinal: Option<i64>,
    /// `(seat, player)`, seat order.
    #[sqlx(skip)]
    pub seats: Vec<(Seat, i64)>,
}
