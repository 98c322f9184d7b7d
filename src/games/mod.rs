//! The games service: every action on a game (create, join, decline, move,
//! resign, draw, takeback, abort, chat) and every read of one, for every
//! door (HTTP, WebSocket, and whatever comes next), rematches among them.
//! A rated game's end changes its players' ratings in the same commit
//! ([`crate::ratings`] computes them).
//!
//! - Decisions are pure ([`decide`]): given a stored game, its position, the
//!   clock and a request, what to store and what to announce, as a
//!   [`Progress`] of typed [`GameEvent`]s and [`PlayerNotice`]s. The files
//!   named for actions (`seats`, `play`, `offers`, `chat`, `timing`) are
//!   the async shell: they load, decide, [`commit`](commit) and answer.
//! - Hot games stay in memory ([`hot`]): a move replays nothing, it checks
//!   the cached position and plays on a copy. Actions on one game are
//!   serialised by a per-game lock in this process, and across processes by
//!   the store's optimistic check on the game's event number (plus the
//!   unique `(game_id, seq)` key of its event log, which holds its moves).
//!   When a write loses a race the
//!   action reloads the game from the database and decides again, which
//!   yields the idempotent answer or a clean refusal.
//! - Nothing is acknowledged before its transaction commits; what commits
//!   is announced through the [`Publisher`] port. The database is the
//!   source of truth and the cache is dropped whenever it might be stale.
//! - Conditional moves ([`conditional`]): a player's tree of replies,
//!   played by the service in the same transaction as the move they answer.
//! - Built-in bots ([`bots`]): accounts the service plays itself, through
//!   the same actions as any player.
//! - Refusals are [`GameError`]s, which know nothing of HTTP.

pub mod bots;
mod chat;
mod commit;
pub mod conditional;
pub mod decide;
mod error;
mod events;
mod fixtures;
mod hot;
mod limits;
mod offers;
mod play;
mod publish;
mod reads;
mod rematch;
mod seats;
pub mod sweeper;
mod table;
mod timing;

use std::sync::Arc;

use serde::Deserialize;
use utoipa::ToSchema;

pub use chat::Room;
pub use commit::Progress;
pub use error::{GameError, GameResult, OfferKind};
pub use events::{ClearedBecause, Ending, GameEvent, MoveEvent, PlayerNotice, RatingShift, FORFEIT};
pub use fixtures::Fixture;
pub use limits::GameLimits;
pub use publish::{Committed, NoSubscribers, Publisher};
pub use reads::{Lobby, LobbyPage};

use crate::clock::{Scale, TimeControl};
use crate::metrics::Metrics;
use crate::ratings::Ratings;
use crate::rules::AnyGame;
use crate::store::{GameRecord, MoveRow, Store};

/// Longest move string accepted (every notation is far shorter).
pub const MAX_MOVE_LEN: usize = 64;
/// Longest note to the opponents kept with a move.
pub const MAX_MESSAGE_LEN: usize = 4000;
/// Longest chat message, in characters.
pub const MAX_CHAT_LEN: usize = 1000;
/// How often an action is re-decided after losing a race before giving up.
const ATTEMPTS: usize = 4;

pub use crate::domain::now;
pub use crate::views::AnswerShape;

// A new game, as its creator asks for it: the body of `POST /games`, named
// `NewGameRequest` in the API's schemas (a plain comment, so that the
// document's schema stays as it was, without a description).
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NewGameRequest)]
pub struct NewGameCommand {
    /// Catalogue slug, e.g. `gravity`.
    #[schema(schema_with = crate::domain::game_slug)]
    pub game: String,
    /// Variant slug; the game's first variant when absent.
    #[schema(schema_with = crate::domain::optional_variant_slug)]
    pub variant: Option<String>,
    /// The creator's seat (0 moves first); 0 when absent.
    #[schema(maximum = 7)]
    pub seat: Option<u8>,
    /// Players invited to the other seats, in seat order (at most 16).
    #[serde(default)]
    #[schema(max_items = 16)]
    pub opponents: Vec<String>,
    /// Listed and readable by everyone (default) or only by its players.
    pub public: Option<bool>,
    /// `{"kind":"none"}` (default), `correspondence` or `live`.
    pub time_control: Option<TimeControl>,
    /// Whether the game's end changes ratings (default `true`).
    pub rated: Option<bool>,
    /// Only players rated at least this in the variant may take an open seat.
    pub rating_min: Option<i64>,
    /// Only players rated at most this in the variant may take an open seat.
    pub rating_max: Option<i64>,
}

// A move, as a player sends it: the body of `POST /games/{id}/moves`, named
// `MoveRequest` in the API's schemas (a plain comment, so that the
// document's schema stays as it was).
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = MoveRequest)]
pub struct MoveCommand {
    /// The move in the game's notation.
    #[serde(rename = "move")]
    pub notation: String,
    /// The number of moves the client has seen.
    #[schema(minimum = 0)]
    pub ply: i64,
    /// A note to the opponents, kept with the move.
    pub message: Option<String>,
}

/// How clocks are kept: the length of a day and when reminders go out.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub scale: Scale,
    /// How long before a correspondence deadline the player to move is
    /// reminded; 0 for no reminders.
    pub remind_before_ms: i64,
}

impl Default for Timing {
    fn default() -> Timing {
        let scale = Scale::default();
        Timing {
            scale,
            remind_before_ms: scale.day_ms,
        }
    }
}

pub struct Games {
    store: Arc<dyn Store>,
    metrics: Arc<Metrics>,
    publisher: Arc<dyn Publisher>,
    hot: hot::HotGames,
    timing: Timing,
    ratings: Arc<Ratings>,
    limits: limits::Limiter,
}

impl Games {
    /// A service that announces every committed change to `publisher`.
    pub fn new(store: Arc<dyn Store>, metrics: Arc<Metrics>, publisher: Arc<dyn Publisher>) -> Games {
        Games {
            store: store.clone(),
            metrics,
            publisher,
            hot: hot::HotGames::default(),
            timing: Timing::default(),
            ratings: Arc::new(Ratings::new(store, crate::ratings::Params::default())),
            limits: limits::Limiter::new(GameLimits::default()),
        }
    }

    /// The same service with other per-player limits.
    pub fn with_limits(mut self, limits: GameLimits) -> Games {
        self.limits = limits::Limiter::new(limits);
        self
    }

    /// The same service rating games through `ratings`.
    pub fn with_ratings(mut self, ratings: Arc<Ratings>) -> Games {
        self.ratings = ratings;
        self
    }

    /// The same service with other clock settings.
    pub fn with_timing(mut self, timing: Timing) -> Games {
        self.timing = timing;
        self
    }

    pub fn timing(&self) -> Timing {
        self.timing
    }
}

/// Rebuilds a stored game from its moves. A stored move the rules refuse
/// means the rules changed under a stored game: an internal error.
fn replay(record: &GameRecord, moves: &[MoveRow]) -> GameResult<AnyGame> {
    let notations: Vec<&str> = moves.iter().map(|m| m.notation.as_str()).collect();
    AnyGame::replay(&record.row.game, Some(&record.row.variant), &notations)
        .map_err(|e| GameError::internal(format!("game {} cannot be replayed: {e}", record.row.id)))
}
