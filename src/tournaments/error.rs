//! Why the tournaments service refused, as a type: one variant per refusal
//! a client can act on, with the message it reads. `src/http/error.rs`
//! gives each its status, once.

use crate::games::GameError;
use crate::store::{StoreError, TournamentStatus};

#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    /// No such tournament, or a private one the viewer may not see.
    #[error("no tournament {0}")]
    NotFound(i64),
    #[error("{0}")]
    UnknownGame(crate::rules::UnknownGame),
    /// Tournaments pair two players a game.
    #[error("tournaments are for two-player games; {variant} seats {seats}")]
    NotTwoPlayer { variant: &'static str, seats: usize },
    #[error("format is one of round_robin, swiss, league")]
    BadFormat,
    #[error("starts_at must be an RFC 3339 time")]
    BadStartsAt,
    #[error("the name must be 1 to {max} characters")]
    BadName { max: usize },
    #[error("{0}")]
    BadTimeControl(crate::clock::TimeControlError),
    /// A number out of its range: which, and the range.
    #[error("{field} must be between {min} and {max}")]
    OutOfRange { field: &'static str, min: i64, max: i64 },
    #[error("min_players {min} is above max_players {max}")]
    BadPlayerRange { min: i64, max: i64 },
    #[error("starts_at must be in the future")]
    StartsInPast,
    #[error("only the organiser can start the tournament")]
    NotOrganiser,
    #[error("the tournament is {0}")]
    Status(TournamentStatus),
    #[error("you are already in this tournament")]
    AlreadyIn,
    #[error("you are not in this tournament")]
    NotIn,
    #[error("the tournament is full ({0} players)")]
    Full(i64),
    #[error("the tournament needs {needed} players; it has {have}")]
    TooFew { needed: i64, have: i64 },
    /// Lost every race for the tournament's revision: try again.
    #[error("the tournament kept changing while this request was decided; try again")]
    Busy,
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl TournamentError {
    /// The stable wire code.
    pub fn code(&self) -> &'static str {
        match self {
            TournamentError::NotFound(_) => "not_found",
            TournamentError::UnknownGame(_) => "unknown_game",
            TournamentError::NotTwoPlayer { .. } => "not_two_player",
            TournamentError::BadFormat => "bad_format",
            TournamentError::BadStartsAt => "bad_starts_at",
            TournamentError::BadName { .. } => "bad_name",
            TournamentError::BadTimeControl(_) => "bad_time_control",
            TournamentError::OutOfRange { .. } => "out_of_range",
            TournamentError::BadPlayerRange { .. } => "bad_player_range",
            TournamentError::StartsInPast => "starts_in_past",
            TournamentError::NotOrganiser => "not_organiser",
            TournamentError::Status(_) => "tournament_status",
            TournamentError::AlreadyIn => "already_in",
            TournamentError::NotIn => "not_in",
            TournamentError::Full(_) => "full",
            TournamentError::TooFew { .. } => "too_few_players",
            TournamentError::Busy => "busy",
            TournamentError::Game(e) => e.code(),
            TournamentError::Store(_) => "internal",
        }
    }
}

pub type TournamentResult<T> = Result<T, TournamentError>;
