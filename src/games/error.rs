//! Why the games service refused an action, as a type: one variant per
//! refusal a client can act on, with the message it reads. Nothing here
//! knows about HTTP or WebSocket frames; each door maps [`GameError`] to
//! its own shape once (`src/http/error.rs`), using the stable wire
//! [`GameError::code`].

use crate::domain::{GameStatus, Seat};
use crate::limits::RetryAfter;
use crate::rules::{MoveError, UnknownGame};
use crate::store::StoreError;
use crate::views::GameState;

use super::conditional::LineError;
use super::{MAX_CHAT_LEN, MAX_MESSAGE_LEN};

/// A pending offer that can be answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfferKind {
    Draw,
    Takeback,
}

#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// No such game, or a private one the viewer may not see.
    #[error("no game {0}")]
    NotFound(i64),
    #[error("you are not a player of this game")]
    NotAPlayer,
    #[error("only the players of this game write in the players' room")]
    NotInPlayersRoom,
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("you have no invitation to this game")]
    NotInvited,
    #[error("seat {0} is reserved")]
    SeatReserved(Seat),

    /// The client has not seen the last move; `current` lets it catch up.
    #[error("the game is at ply {at}, not {asked}")]
    StalePly {
        at: i64,
        asked: i64,
        current: Box<GameState>,
    },
    /// Not active (open, finished or aborted); `current` when the client
    /// needs the state to catch up (a move).
    #[error("game {id} is {status}")]
    NotActive {
        id: i64,
        status: GameStatus,
        current: Option<Box<GameState>>,
    },
    /// The rules say the game is over, though it is stored as active.
    #[error("the game is over")]
    GameOver,
    /// The mover's clock ran out before the move arrived: the game is lost.
    #[error("your time ran out before this move")]
    TimeOut { current: Box<GameState> },
    #[error("a game can be aborted only before every player has moved")]
    TooLate,
    #[error("a tournament game cannot be aborted; resign it, or leave the tournament")]
    TournamentGame,
    #[error("you already sit at this game")]
    AlreadySeated,
    #[error("game {id} is {status}")]
    NotOpen { id: i64, status: GameStatus },
    #[error("you are invited to seat {0}")]
    InvitedElsewhere(Seat),
    #[error("seat {0} is taken")]
    SeatTaken(Seat),
    #[error("every free seat is reserved for an invited player")]
    NoOpenSeat,
    #[error("{}", match .0 { OfferKind::Draw => "no draw is offered", OfferKind::Takeback => "no takeback is asked for" })]
    NoOffer(OfferKind),
    #[error("there is no move to take back")]
    NoMove,
    /// The last entry of the history is a seat's concession (four-player
    /// Focus): a resignation or time-out is never taken back.
    #[error("move {ply} is a concession (a resignation or a time-out), which a takeback never undoes")]
    TakebackPastConcession { ply: i64 },
    /// The player resigned or ran out of time, and the game goes on
    /// without them: they take no part in it any more.
    #[error("you are out of this game: it goes on without you")]
    OutOfGame,
    /// Lost every race for the game's lock of the database: the client may
    /// simply try again.
    #[error("the game kept changing while this request was decided; try again")]
    Busy,

    #[error("the move is too long")]
    MoveTooLong,
    /// The rules could not read the move, or refuse it here.
    #[error("{0}")]
    Move(MoveError),
    #[error("the message is longer than {MAX_MESSAGE_LEN} characters")]
    MessageTooLong,
    #[error("a chat message is at most {MAX_CHAT_LEN} characters")]
    ChatTooLong,
    #[error("the message is empty")]
    EmptyChat,
    #[error("ply cannot be negative")]
    NegativePly,
    #[error("ply must be between 0 and {max}")]
    BadPly { max: i64 },
    #[error("{0}")]
    UnknownGame(UnknownGame),
    #[error("{variant} has seats 0 to {last}")]
    NoSuchSeatInVariant { variant: &'static str, last: usize },
    #[error("game {id} has no seat {seat}")]
    NoSuchSeat { id: i64, seat: u8 },
    #[error("{variant} seats {seats} players")]
    TooManyOpponents { variant: &'static str, seats: usize },
    #[error("no player named {0:?}")]
    UnknownPlayer(String),
    #[error("you cannot invite yourself")]
    InvitedYourself,
    #[error("{0} is invited twice")]
    InvitedTwice(String),
    #[error("{0}")]
    BadTimeControl(crate::clock::TimeControlError),
    #[error("rating_min {min} is above rating_max {max}")]
    BadRatingRange { min: i64, max: i64 },
    /// The seat is open only to players rated within the game's range.
    #[error("your rating {rating} is outside this game's range ({})", range(*.min, *.max))]
    OutsideRatingRange {
        rating: i64,
        min: Option<i64>,
        max: Option<i64>,
    },
    /// A rematch follows a finished game only.
    #[error("game {id} is {status}; only a finished game can be rematched")]
    NotFinished { id: i64, status: GameStatus },
    /// Conditional moves that cannot be kept: a bad line, or too many.
    #[error("{0}")]
    Lines(LineError),
    #[error("conditional moves are for two-player games; this one seats {0}")]
    ConditionalSeats(usize),
    #[error("it is your turn: play your move (conditional moves wait for the opponent's)")]
    ConditionalOnYourTurn,
    /// No tree of the asker's in this game (or not theirs to see).
    #[error("you have no conditional moves in game {0}")]
    NoConditional(i64),
    /// The player writes faster than the server's per-player rate.
    #[error("too many actions; try again in {0}")]
    TooFast(RetryAfter),
    #[error("you already have {max} games waiting for players; start or abort one first")]
    TooManyOpenGames { max: u32 },
    #[error("your games already wait on {max} invitations at most; wait for answers or abort a game")]
    TooManyInvitations { max: u32 },

    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored game the rules or the catalogue no longer accept, or a
    /// task that died: logged, never shown.
    #[error("{0}")]
    Internal(String),
}

impl GameError {
    /// The stable, machine-readable code every door sends with the message.
    pub fn code(&self) -> &'static str {
        match self {
            GameError::NotFound(_) => "not_found",
            GameError::NotAPlayer | GameError::NotInPlayersRoom => "not_a_player",
            GameError::NotYourTurn => "not_your_turn",
            GameError::NotInvited => "not_invited",
            GameError::SeatReserved(_) => "seat_reserved",
            GameError::StalePly { .. } => "stale_ply",
            GameError::NotActive { .. } | GameError::GameOver => "game_not_active",
            GameError::TimeOut { .. } => "time_out",
            GameError::TooLate => "too_late",
            GameError::TournamentGame => "tournament_game",
            GameError::AlreadySeated => "already_seated",
            GameError::NotOpen { .. } => "game_not_open",
            GameError::InvitedElsewhere(_) => "invited_elsewhere",
            GameError::SeatTaken(_) => "seat_taken",
            GameError::NoOpenSeat => "no_open_seat",
            GameError::NoOffer(_) => "no_offer",
            GameError::NoMove => "no_move",
            GameError::TakebackPastConcession { .. } => "takeback_past_concession",
            GameError::OutOfGame => "out_of_game",
            GameError::Busy => "busy",
            GameError::MoveTooLong => "bad_notation",
            GameError::Move(MoveError::GameOver) => "game_not_active",
            GameError::Move(MoveError::Notation(_)) => "bad_notation",
            GameError::Move(MoveError::Illegal(_) | MoveError::Concede(_)) => "illegal_move",
            GameError::MessageTooLong | GameError::ChatTooLong => "message_too_long",
            GameError::EmptyChat => "empty_chat",
            GameError::NegativePly | GameError::BadPly { .. } => "bad_ply",
            GameError::UnknownGame(_) => "unknown_game",
            GameError::NoSuchSeatInVariant { .. } | GameError::NoSuchSeat { .. } => "bad_seat",
            GameError::TooManyOpponents { .. } => "too_many_opponents",
            GameError::UnknownPlayer(_) => "unknown_player",
            GameError::InvitedYourself | GameError::InvitedTwice(_) => "bad_opponent",
            GameError::BadTimeControl(_) => "bad_time_control",
            GameError::BadRatingRange { .. } => "bad_rating_range",
            GameError::OutsideRatingRange { .. } => "rating_out_of_range",
            GameError::NotFinished { .. } => "game_not_finished",
            GameError::Lines(LineError::TooManyLines { .. }) => "payload_too_large",
            GameError::Lines(LineError::TooLong { .. }) => "line_too_long",
            GameError::Lines(_) => "bad_line",
            GameError::ConditionalSeats(_) => "conditional_two_players",
            GameError::ConditionalOnYourTurn => "your_turn",
            GameError::NoConditional(_) => "not_found",
            GameError::TooFast(_) => "rate_limited",
            GameError::TooManyOpenGames { .. } => "too_many_open_games",
            GameError::TooManyInvitations { .. } => "too_many_invitations",
            GameError::Store(_) | GameError::Internal(_) => "internal",
        }
    }

    /// The game as it stands, for a client that must catch up.
    pub fn current(&self) -> Option<&GameState> {
        match self {
            GameError::StalePly { current, .. } | GameError::TimeOut { current } => Some(current),
            GameError::NotActive { current, .. } => current.as_deref(),
            _ => None,
        }
    }

    /// Whether this is the server's fault, not the request's.
    pub fn is_internal(&self) -> bool {
        matches!(self, GameError::Store(_) | GameError::Internal(_))
    }

    pub fn internal(error: impl std::fmt::Display) -> GameError {
        GameError::Internal(error.to_string())
    }
}

pub type GameResult<T> = Result<T, GameError>;

/// A rating range as players read it.
fn range(min: Option<i64>, max: Option<i64>) -> String {
    match (min, max) {
        (Some(min), Some(max)) => format!("{min} to {max}"),
        (Some(min), None) => format!("at least {min}"),
        (None, Some(max)) => format!("at most {max}"),
        (None, None) => "any".to_owned(),
    }
}
