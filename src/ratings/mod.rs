//! Ratings: Glicko-2 ratings per player, game and variant, and what players
//! read of them (leaderboards, histories, profiles with statistics).
//!
//! - [`glicko`] is the algorithm, pure; [`game`] rates one finished game
//!   with it, purely (scores, idle growth, one period per game);
//!   [`stats`] turns a player's games into statistics; [`rebuild`]
//!   recomputes every rating from the stored history.
//! - The games service asks [`Ratings::rate_end`] for a rated game's
//!   changes when the game ends, and commits them in the same transaction
//!   as the end; a change computed from a rating another game moved first
//!   is refused by the store, and computed again. The ratings a game's end
//!   starts from are those this process last read or committed
//!   ([`known`]), which the games service keeps told
//!   ([`Ratings::committed`], [`Ratings::forget`]).
//! - Refusals are [`RatingError`]s, which know nothing of HTTP.

pub mod game;
pub mod glicko;
pub mod known;
pub mod rebuild;
pub mod stats;

use std::sync::Arc;

use crate::domain::Seat;
use crate::rules::{catalogue, UnknownGame};
use crate::store::{GameRecord, LeaderboardPage, Player, RatingChange, RatingPoint, Store, StoreError};

/// A player's rating in one variant, as the service hands it out.
pub use crate::store::RatingRow;
pub use glicko::Rating;
pub use rebuild::Rebuilt;
pub use stats::Statistics;

/// A rating is provisional, and kept off leaderboards, while its deviation
/// is above this (Lichess's `?`).
pub const PROVISIONAL_RD: f64 = 110.0;
/// The most opponents a profile lists.
const OPPONENTS_SHOWN: i64 = 5;

/// The system's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// A newcomer's rating, deviation and volatility.
    pub initial: Rating,
    /// Glicko-2's system constant τ.
    pub tau: f64,
    /// How long one idle rating period lasts, in milliseconds.
    pub period_ms: i64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            initial: Rating {
                rating: 1500.0,
                rd: 350.0,
                volatility: 0.06,
            },
            tau: 0.5,
            period_ms: 7 * 86_400_000,
        }
    }
}

impl Params {
    /// Rating periods in `elapsed_ms`, fractions included.
    pub fn periods(&self, elapsed_ms: i64) -> f64 {
        elapsed_ms.max(0) as f64 / self.period_ms.max(1) as f64
    }
}

/// Whether a deviation is too wide to trust.
pub fn is_provisional(rd: f64) -> bool {
    rd > PROVISIONAL_RD
}

/// For each seat of a variant, the seats it plays against: those who win
/// when it concedes (every other seat, or the other team). `None` for a
/// game the catalogue does not know.
pub fn opponents(game: &str, variant: &str) -> Option<Vec<Vec<Seat>>> {
    let (_, info) = catalogue::find(game, Some(variant)).ok()?;
    let start = (info.start)();
    Some(
        Seat::all(info.seats.len())
            .map(|seat| {
                start
                    .winners_if_conceded(seat.rules())
                    .into_iter()
                    .map(Seat::from)
                    .collect()
            })
            .collect(),
    )
}

/// `(seat, player)` of every seat of `record` a player sits at.
fn seated(record: &GameRecord) -> Vec<(Seat, i64)> {
    record
        .seats
        .iter()
        .filter_map(|s| s.player.as_ref().map(|(id, _)| (s.seat, *id)))
        .collect()
}

/// The winning seats of a stored outcome (`{"winners": [...]}`).
pub fn winners_of(outcome: Option<&serde_json::Value>) -> Vec<Seat> {
    outcome
        .and_then(|o| o.get("winners"))
        .and_then(|w| serde_json::from_value::<Vec<Seat>>(w.clone()).ok())
        .unwrap_or_default()
}

#[derive(Debug, thiserror::Error)]
pub enum RatingError {
    #[error("{0}")]
    UnknownGame(UnknownGame),
    #[error("no player named {0:?}")]
    NoPlayerNamed(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type RatingResult<T> = Result<T, RatingError>;

/// A page of a leaderboard.
#[derive(Clone, Debug)]
pub struct Board {
    pub game: &'static str,
    pub variant: &'static str,
    /// The rank (from 1) of the first entry.
    pub first_rank: i64,
    pub entries: Vec<RatingRow>,
    /// Where the next page starts; `None` on the last.
    pub next_cursor: Option<i64>,
}

/// A player's profile: account, ratings, statistics.
#[derive(Clone, Debug)]
pub struct Profile {
    pub player: Player,
    pub ratings: Vec<RatingRow>,
    pub statistics: Statistics,
}

/// A player's rating history in one variant.
#[derive(Clone, Debug)]
pub struct History {
    pub player: Player,
    pub game: &'static str,
    pub variant: &'static str,
    pub points: Vec<RatingPoint>,
}

pub struct Ratings {
    store: Arc<dyn Store>,
    params: Params,
    known: known::Known,
}

impl Ratings {
    pub fn new(store: Arc<dyn Store>, params: Params) -> Ratings {
        Ratings {
            store,
            params,
            known: known::Known::default(),
        }
    }

    pub fn params(&self) -> Params {
        self.params
    }

    /// The rating changes `record`'s end at `now` with `winners` makes,
    /// from the ratings this process last read or committed (from the
    /// store when it knows them not); none for an unrated game.
    pub async fn rate_end(&self, record: &GameRecord, winners: &[Seat], now: i64) -> RatingResult<Vec<RatingChange>> {
        let row = &record.row;
        let Some(opponents) = opponents(&row.game, &row.variant).filter(|_| row.rated) else {
            return Ok(Vec::new());
        };
        let seats = seated(record);
        let players: Vec<i64> = seats.iter().map(|(_, p)| *p).collect();
        let stored = match self.known.rows(&row.game, &row.variant, &players) {
            Some(rows) => rows,
            None => {
                let rows = self.store.ratings_of(&row.game, &row.variant, &players).await?;
                self.known.learn(&row.game, &row.variant, &players, &rows);
                rows
            }
        };
        let finished = game::Finished {
            id: row.id,
            game: &row.game,
            variant: &row.variant,
            seats: &seats,
            winners,
            opponents: &opponents,
            ended_at: now,
        };
        Ok(game::rate(&self.params, &finished, &stored))
    }

    /// `changes` of `record`'s end are committed: the next end of its
    /// players starts from them.
    pub fn committed(&self, record: &GameRecord, changes: &[RatingChange]) {
        self.known.committed(changes, |player| {
            record
                .seats
                .iter()
                .find_map(|s| s.player.as_ref().filter(|(id, _)| *id == player))
                .map(|(_, name)| name.clone())
                .unwrap_or_default()
        });
    }

    /// The store refused `record`'s end's changes (another game of one of
    /// its players moved a rating first): its players are rated from the
    /// store next time.
    pub fn forget(&self, record: &GameRecord) {
        let players: Vec<i64> = seated(record).into_iter().map(|(_, p)| p).collect();
        self.known.forget(&record.row.game, &record.row.variant, &players);
    }

    /// A player's `(rating, rd)` in a variant now, if rated there: what
    /// their seat at a game of it shows. A rating range judges by it, or by
    /// a newcomer's rating when there is none.
    pub async fn standing_of(&self, game: &str, variant: &str, player: i64) -> RatingResult<Option<(f64, f64)>> {
        let stored = self.store.ratings_of(game, variant, &[player]).await?;
        Ok(stored.first().map(|r| (r.rating, r.rd)))
    }

    /// The leaderboard of a variant, best first, provisional ratings left
    /// out; `cursor` is where a previous page said the next one starts.
    pub async fn leaderboard(
        &self,
        game: &str,
        variant: &str,
        cursor: Option<i64>,
        limit: Option<i64>,
    ) -> RatingResult<Board> {
        let (info, variant) = catalogue::find(game, Some(variant)).map_err(RatingError::UnknownGame)?;
        let offset = cursor.unwrap_or(0).max(0);
        let limit = limit.unwrap_or(50).clamp(1, 100);
        let mut entries = self
            .store
            .leaderboard(LeaderboardPage {
                game: info.slug,
                variant: variant.slug,
                max_rd: PROVISIONAL_RD,
                offset,
                limit: limit + 1,
            })
            .await?;
        let next_cursor = (entries.len() as i64 > limit).then_some(offset + limit);
        entries.truncate(limit as usize);
        Ok(Board {
            game: info.slug,
            variant: variant.slug,
            first_rank: offset + 1,
            entries,
            next_cursor,
        })
    }

    async fn player(&self, name: &str) -> RatingResult<Player> {
        // No name is longer: nothing to look up.
        let player = if name.chars().count() <= crate::players::input::MAX_NAME_LEN {
            self.store.player_by_name(&crate::players::name_key(name)).await?
        } else {
            None
        };
        player.ok_or_else(|| RatingError::NoPlayerNamed(name.chars().take(64).collect()))
    }

    /// A player's profile: their ratings and statistics.
    pub async fn profile(&self, name: &str) -> RatingResult<Profile> {
        let player = self.player(name).await?;
        let ratings = self.store.player_ratings(player.id).await?;
        let games = self.store.played_games(player.id).await?;
        let opponents = self.store.opponents_met(player.id, OPPONENTS_SHOWN).await?;
        Ok(Profile {
            player,
            ratings,
            statistics: Statistics::of(&games, opponents),
        })
    }

    /// A player's rating after each of their rated games in a variant.
    pub async fn history(&self, name: &str, game: &str, variant: &str) -> RatingResult<History> {
        let (info, variant) = catalogue::find(game, Some(variant)).map_err(RatingError::UnknownGame)?;
        let player = self.player(name).await?;
        let points = self.store.rating_history(player.id, info.slug, variant.slug).await?;
        Ok(History {
            player,
            game: info.slug,
            variant: variant.slug,
            points,
        })
    }

    /// Recomputes every rating from the stored games and, unless
    /// `dry_run`, stores what it computed; says how it compares.
    pub async fn rebuild(&self, dry_run: bool) -> RatingResult<Rebuilt> {
        let games = self.store.rated_games().await?;
        let stored = self.store.all_ratings().await?;
        let rebuilt = rebuild::replay(&self.params, &games, &stored);
        if !dry_run {
            self.store.replace_ratings(&rebuilt.ratings, &rebuilt.changes).await?;
        }
        Ok(rebuilt)
    }
}
