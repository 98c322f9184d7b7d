//! [`PlayerError`]: everything the players service refuses, or fails at.
//! It names what went wrong and nothing about transport; `src/http/error.rs`
//! gives each variant its status and wire code.

use super::input::BadInput;
use super::passwords::HashError;
use super::settings::SettingsError;
use super::vacations::VacationRefused;
use super::DeadlinesError;
use crate::limits::RetryAfter;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// A name, password or email not acceptable as given.
    #[error(transparent)]
    Input(#[from] BadInput),
    #[error("the name {0} is taken")]
    NameTaken(String),
    /// Signing in: no such name, or not its password.
    #[error("wrong name or password")]
    BadCredentials,
    /// Too many failed sign-ins lately, from this address or (for a
    /// client the account does not know) at this account.
    #[error("too many failed sign-ins; try again in {0}")]
    TooManyAttempts(RetryAfter),
    /// Too many registrations from this address lately.
    #[error("too many registrations from this address; try again in {0}")]
    TooManyRegistrations(RetryAfter),
    #[error("changing the password or the email needs current_password")]
    CurrentPasswordMissing,
    #[error("current_password is wrong")]
    WrongPassword,
    /// Declaring an account a bot (or not) after it has taken a seat: its
    /// games stay as their opponents saw them.
    #[error("an account is declared a bot account (or not) before its first game; this player has played")]
    BotAfterGames,
    /// The signed-in player has no account any more.
    #[error("no such player")]
    NoSuchPlayer,
    /// A player vanished while their account was being changed.
    #[error("player vanished")]
    Vanished,
    #[error("no player named {0:?}")]
    NoPlayerNamed(String),
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Vacation(#[from] VacationRefused),
    /// Ending a vacation when there is none now or to come.
    #[error("no vacation now or to come")]
    NoVacation,
    #[error("play by mail is off on this server")]
    MailOff,
    /// No session of the signed-in player has this id.
    #[error("you have no session {0:?}")]
    NoSession(String),
    #[error(transparent)]
    Hashing(#[from] HashError),
    #[error("recomputing deadlines: {0}")]
    Deadlines(DeadlinesError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub type Result<T, E = PlayerError> = std::result::Result<T, E>;
