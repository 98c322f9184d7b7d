//! The one error type of the service. Every refusal the HTTP API (and, later,
//! the WebSocket) gives is a variant here; `status` and `code` map each to an
//! HTTP status and a stable machine-readable code in one place.

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Malformed request: bad JSON, a missing field, a bad query parameter.
    #[error("{0}")]
    BadRequest(String),
    /// No token, or a token nobody holds.
    #[error("{0}")]
    Unauthorized(String),
    /// Authenticated, but not allowed: not a player of this game, not your
    /// turn, a seat reserved for someone else.
    #[error("{message}")]
    Forbidden { code: &'static str, message: String },
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with the current state: a stale ply, a game
    /// not active, a name taken. `game` carries the current state when the
    /// client needs it to catch up.
    #[error("{message}")]
    Conflict {
        code: &'static str,
        message: String,
        game: Option<Box<Value>>,
    },
    /// Well-formed but refused by the rules or the catalogue: an illegal or
    /// unparseable move, an unknown game, a bad value.
    #[error("{message}")]
    Unprocessable { code: &'static str, message: String },
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("the request took too long")]
    Timeout,
    /// Anything else: logged in full, sent as a bare "internal error".
    #[error("internal error: {0}")]
    Internal(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn status(&self) -> u16 {
        match self {
            Error::BadRequest(_) => 400,
            Error::Unauthorized(_) => 401,
            Error::Forbidden { .. } => 403,
            Error::NotFound(_) => 404,
            Error::MethodNotAllowed(_) => 405,
            Error::Timeout => 408,
            Error::Conflict { .. } => 409,
            Error::PayloadTooLarge(_) => 413,
            Error::Unprocessable { .. } => 422,
            Error::Internal(_) => 500,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Error::BadRequest(_) => "bad_request",
            Error::Unauthorized(_) => "unauthorized",
            Error::Forbidden { code, .. } | Error::Conflict { code, .. } | Error::Unprocessable { code, .. } => code,
            Error::NotFound(_) => "not_found",
            Error::MethodNotAllowed(_) => "method_not_allowed",
            Error::Timeout => "timeout",
            Error::PayloadTooLarge(_) => "payload_too_large",
            Error::Internal(_) => "internal",
        }
    }

    /// The message a client may see: everything but internal details.
    pub fn public_message(&self) -> String {
        match self {
            Error::Internal(_) => "internal error".to_owned(),
            other => other.to_string(),
        }
    }

    pub fn forbidden(code: &'static str, message: impl Into<String>) -> Error {
        Error::Forbidden {
            code,
            message: message.into(),
        }
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Error {
        Error::Conflict {
            code,
            message: message.into(),
            game: None,
        }
    }

    pub fn unprocessable(code: &'static str, message: impl Into<String>) -> Error {
        Error::Unprocessable {
            code,
            message: message.into(),
        }
    }

    pub fn internal(error: impl std::fmt::Display) -> Error {
        Error::Internal(error.to_string())
    }
}

/// Whatever the store refused and the caller did not turn into a refusal of
/// its own (a name taken, a game changed meanwhile) is the server's fault.
impl From<crate::store::StoreError> for Error {
    fn from(error: crate::store::StoreError) -> Error {
        Error::Internal(format!("database: {error}"))
    }
}
