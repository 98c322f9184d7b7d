//! The API's one error type, [`Error`]: every refusal the HTTP API gives,
//! its status and stable machine-readable code, and how it becomes a
//! response. The services' errors ([`GameError`], [`PlayerError`],
//! [`RatingError`], [`TournamentError`]) become
//! [`Error`]s here and nowhere else, and axum's
//! extractors' rejections come out in the same JSON shape:
//! `{"error":{"code":"…","message":"…"}}`.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{json, Value};

use crate::games::conditional::LineError;
use crate::games::GameError;
use crate::health::Unhealthy;
use crate::limits::RetryAfter;
use crate::players::settings::SettingsError;
use crate::players::{BadInput, PlayerError, VacationRefused};
use crate::ratings::RatingError;
use crate::tournaments::TournamentError;

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
    /// An abuse limit: try again after `retry_after` seconds (sent as
    /// `Retry-After`).
    #[error("{message}")]
    TooManyRequests {
        code: &'static str,
        message: String,
        retry_after: u64,
    },
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
            Error::TooManyRequests { .. } => 429,
            Error::Internal(_) => 500,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Error::BadRequest(_) => "bad_request",
            Error::Unauthorized(_) => "unauthorized",
            Error::Forbidden { code, .. }
            | Error::Conflict { code, .. }
            | Error::Unprocessable { code, .. }
            | Error::TooManyRequests { code, .. } => code,
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

    pub fn too_many(code: &'static str, message: impl Into<String>, wait: RetryAfter) -> Error {
        Error::TooManyRequests {
            code,
            message: message.into(),
            retry_after: wait.seconds(),
        }
    }

    pub fn internal(error: impl std::fmt::Display) -> Error {
        Error::Internal(error.to_string())
    }
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            // Details stay in the log.
            tracing::error!(error = %self, "internal error");
        }
        let mut body = json!({ "error": { "code": self.code(), "message": self.public_message() } });
        let retry_after = match &self {
            Error::TooManyRequests { retry_after, .. } => Some(*retry_after),
            _ => None,
        };
        if let Error::Conflict { game: Some(game), .. } = self {
            body["game"] = *game;
        }
        let mut response = (status, axum::Json(body)).into_response();
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

/// The one place a refusal of the games service gets its HTTP status; the
/// code and message are the service's own.
impl From<GameError> for Error {
    fn from(error: GameError) -> Error {
        use GameError as G;
        let code = error.code();
        let game = error.current().map(|state| Box::new(state.to_json()));
        let message = error.to_string();
        match error {
            G::NotFound(_) => Error::NotFound(message),
            G::NotAPlayer | G::NotInPlayersRoom | G::NotYourTurn | G::NotInvited | G::SeatReserved(_) => {
                Error::Forbidden { code, message }
            }
            G::StalePly { .. }
            | G::NotActive { .. }
            | G::GameOver
            | G::TimeOut { .. }
            | G::TooLate
            | G::TournamentGame
            | G::AlreadySeated
            | G::NotOpen { .. }
            | G::InvitedElsewhere(_)
            | G::SeatTaken(_)
            | G::NoOpenSeat
            | G::NoOffer(_)
            | G::NoMove
            | G::TakebackPastConcession { .. }
            | G::OutOfGame
            | G::Busy
            | G::OutsideRatingRange { .. }
            | G::NotFinished { .. }
            | G::ConditionalOnYourTurn
            | G::Move(crate::rules::MoveError::GameOver) => Error::Conflict { code, message, game },
            G::NoConditional(_) => Error::NotFound(message),
            // The body's size is the problem: the count is in the message.
            G::Lines(LineError::TooManyLines { .. }) => Error::PayloadTooLarge(message),
            G::MoveTooLong
            | G::Move(_)
            | G::MessageTooLong
            | G::ChatTooLong
            | G::EmptyChat
            | G::NegativePly
            | G::BadPly { .. }
            | G::UnknownGame(_)
            | G::NoSuchSeatInVariant { .. }
            | G::NoSuchSeat { .. }
            | G::TooManyOpponents { .. }
            | G::UnknownPlayer(_)
            | G::InvitedYourself
            | G::InvitedTwice(_)
            | G::BadTimeControl(_)
            | G::BadRatingRange { .. }
            | G::Lines(_)
            | G::ConditionalSeats(_) => Error::Unprocessable { code, message },
            G::TooFast(wait) => Error::too_many(code, message, wait),
            G::TooManyOpenGames { .. } | G::TooManyInvitations { .. } => Error::Conflict { code, message, game },
            G::Store(_) | G::Internal(_) => Error::Internal(message),
        }
    }
}

impl From<PlayerError> for Error {
    fn from(error: PlayerError) -> Error {
        let message = error.to_string();
        match error {
            PlayerError::Input(input) => Error::unprocessable(
                match input {
                    BadInput::Name => "bad_name",
                    BadInput::Password => "bad_password",
                    BadInput::WeakPassword(_) => "weak_password",
                    BadInput::Email => "bad_email",
                },
                message,
            ),
            PlayerError::NameTaken(_) => Error::conflict("name_taken", message),
            PlayerError::TooManyAttempts(wait) => Error::too_many("too_many_attempts", message, wait),
            PlayerError::TooManyRegistrations(wait) => Error::too_many("too_many_registrations", message, wait),
            PlayerError::BadCredentials | PlayerError::NoSuchPlayer => Error::Unauthorized(message),
            PlayerError::CurrentPasswordMissing => Error::unprocessable("current_password", message),
            PlayerError::WrongPassword => Error::forbidden("wrong_password", message),
            PlayerError::BotAfterGames => Error::conflict("bot_after_games", message),
            PlayerError::NoPlayerNamed(_)
            | PlayerError::NoVacation
            | PlayerError::MailOff
            | PlayerError::NoSession(_) => Error::NotFound(message),
            PlayerError::Settings(SettingsError::Notify(_)) => Error::unprocessable("bad_notify", message),
            PlayerError::Settings(SettingsError::WebhookUrl(_)) => Error::unprocessable("bad_webhook_url", message),
            PlayerError::Vacation(refused) => match refused {
                VacationRefused::StartsInPast | VacationRefused::StartsTooLate => {
                    Error::unprocessable("bad_start", message)
                }
                VacationRefused::BadDays { .. } => Error::unprocessable("bad_days", message),
                VacationRefused::Overlaps | VacationRefused::StartTaken => {
                    Error::conflict("vacation_overlaps", message)
                }
            },
            PlayerError::Vanished | PlayerError::Hashing(_) | PlayerError::Deadlines(_) | PlayerError::Store(_) => {
                Error::internal(message)
            }
        }
    }
}

/// The one place a refusal of the ratings service gets its HTTP status.
impl From<RatingError> for Error {
    fn from(error: RatingError) -> Error {
        let message = error.to_string();
        match error {
            RatingError::UnknownGame(_) => Error::unprocessable("unknown_game", message),
            RatingError::NoPlayerNamed(_) => Error::NotFound(message),
            RatingError::Store(_) => Error::internal(message),
        }
    }
}

/// The one place a refusal of the tournaments service gets its HTTP status.
impl From<TournamentError> for Error {
    fn from(error: TournamentError) -> Error {
        use TournamentError as T;
        let code = error.code();
        let message = error.to_string();
        match error {
            T::NotFound(_) => Error::NotFound(message),
            T::NotOrganiser => Error::Forbidden { code, message },
            T::Status(_) | T::AlreadyIn | T::NotIn | T::Full(_) | T::TooFew { .. } | T::Busy => {
                Error::conflict(code, message)
            }
            T::UnknownGame(_)
            | T::NotTwoPlayer { .. }
            | T::BadFormat
            | T::BadStartsAt
            | T::BadName { .. }
            | T::BadTimeControl(_)
            | T::OutOfRange { .. }
            | T::BadPlayerRange { .. }
            | T::StartsInPast => Error::Unprocessable { code, message },
            T::Game(e) => e.into(),
            T::Store(_) => Error::internal(message),
        }
    }
}

/// An unhealthy server is its own fault: logged, never detailed.
impl From<Unhealthy> for Error {
    fn from(error: Unhealthy) -> Error {
        Error::internal(error)
    }
}

impl From<JsonRejection> for Error {
    fn from(rejection: JsonRejection) -> Error {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::PayloadTooLarge("the request body is too large".to_owned())
        } else {
            Error::BadRequest(rejection.body_text())
        }
    }
}

impl From<PathRejection> for Error {
    fn from(rejection: PathRejection) -> Error {
        Error::BadRequest(rejection.body_text())
    }
}

impl From<QueryRejection> for Error {
    fn from(rejection: QueryRejection) -> Error {
        Error::BadRequest(rejection.body_text())
    }
}

/// The media type of a JSON body, as clients send it and answers carry it.
const APPLICATION_JSON: &str = "application/json";

/// `axum::Json` with JSON errors. A number without a fraction (`3.0`) is
/// an integer, as JSON Schema (and so the OpenAPI document) counts it,
/// though serde would refuse it for an integer field.
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = Error;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Json<T>> {
        // The body straight into `T` when it says plainly that it is JSON
        // (what clients send): a `Value` first, walked and dropped, cost
        // every move about 1% of its instructions (issue 26). Whatever that
        // does not read takes the way below, which decides as it always
        // did: a body `T` reads directly reads to the same `T` through a
        // `Value` (no request type holds one), up to what the direct way
        // skips unchecked in fields `T` does not have.
        let plainly_json = request
            .headers()
            .get(axum::http::header::CONTENT_TYPE)
            .is_some_and(|value| value.as_bytes() == APPLICATION_JSON.as_bytes());
        if plainly_json {
            let body = axum::body::Bytes::from_request(request, state)
                .await
                .map_err(JsonRejection::from)?;
            if let Ok(direct) = serde_json::from_slice(&body) {
                return Ok(Json(direct));
            }
            let axum::Json(value) = axum::Json::<Value>::from_bytes(&body)?;
            return from_value(value);
        }
        let axum::Json(value) = axum::Json::<Value>::from_request(request, state).await?;
        from_value(value)
    }
}

/// `T` from a body read as a `Value`, its whole floats made integers.
fn from_value<T: serde::de::DeserializeOwned>(mut value: Value) -> Result<Json<T>> {
    integral_numbers(&mut value);
    T::deserialize(value)
        .map(Json)
        .map_err(|e| Error::BadRequest(format!("Failed to deserialize the JSON body into the target type: {e}")))
}

/// Parses a JSON body read as bytes, as [`Json`] does.
pub fn from_json_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T> {
    let mut value: Value =
        serde_json::from_slice(body).map_err(|e| Error::BadRequest(format!("invalid JSON body: {e}")))?;
    integral_numbers(&mut value);
    T::deserialize(value).map_err(|e| Error::BadRequest(format!("invalid JSON body: {e}")))
}

/// Turns every float with no fraction (within `i64`) into an integer.
fn integral_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15) {
                // Exact: |f| < 2^53, and it has no fraction.
                #[allow(clippy::cast_possible_truncation)]
                let integer = f as i64;
                *value = Value::from(integer);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        Value::Object(map) => map.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// Room for a move's lean answer with its legal moves at once: axum starts
/// at 128 bytes and grows the buffer four times on the way (issue 26).
const ANSWER_CAPACITY: usize = 1024;

/// Room for the headers a JSON answer leaves with: its type, at most
/// `Preference-Applied`, the four security headers and its length. A map
/// made for the first holds six, and grew (a new table, every entry
/// hashed again) at the seventh of every lean answer (issue 26).
const ANSWER_HEADERS: usize = 8;

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        let mut body = Vec::with_capacity(ANSWER_CAPACITY);
        match serde_json::to_writer(&mut body, &self.0) {
            Ok(()) => {
                let mut response = Response::new(axum::body::Body::from(body));
                let headers = response.headers_mut();
                headers.reserve(ANSWER_HEADERS);
                headers.insert(
                    axum::http::header::CONTENT_TYPE,
                    axum::http::HeaderValue::from_static(APPLICATION_JSON),
                );
                response
            }
            // As axum answers it: a value that cannot be JSON is a bug.
            Err(error) => Error::internal(error).into_response(),
        }
    }
}

/// `axum::extract::Path` with JSON errors.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(Error))]
pub struct Path<T>(pub T);

/// `axum::extract::Query` with JSON errors.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(Error))]
pub struct Query<T>(pub T);

#[cfg(test)]
mod tests {
    use axum::response::IntoResponse;
    use serde_json::json;

    use super::{integral_numbers, Json, ANSWER_HEADERS};

    /// A JSON answer is typed, and its map has room for the headers it
    /// leaves with, so that adding them never grows it.
    #[test]
    fn a_json_answer_has_room_for_its_headers() {
        let response = Json(json!({ "ply": 3 })).into_response();
        assert_eq!(response.headers()["content-type"], "application/json");
        assert!(
            response.headers().capacity() >= ANSWER_HEADERS,
            "{}",
            response.headers().capacity()
        );
    }

    #[test]
    fn integral_floats_become_integers() {
        let mut value = json!({ "days": 776.0, "ratio": 0.5, "list": [2.0, -3.0], "big": 1.0e300 });
        integral_numbers(&mut value);
        assert_eq!(
            value,
            json!({ "days": 776, "ratio": 0.5, "list": [2, -3], "big": 1.0e300 })
        );
        assert!(value["days"].is_i64());
    }

    /// What the extractor makes of a body: the command, or the refusal's
    /// status and text.
    async fn extract(content_type: Option<&str>, body: &str) -> Result<crate::games::MoveCommand, (u16, String)> {
        use axum::extract::FromRequest;
        use axum::response::IntoResponse;
        let mut request = axum::http::Request::builder().method("POST").uri("/");
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let request = request
            .body(axum::body::Body::from(body.to_owned()))
            .expect("a request");
        match super::Json::<crate::games::MoveCommand>::from_request(request, &()).await {
            Ok(super::Json(command)) => Ok(command),
            Err(error) => {
                let response = error.into_response();
                let status = response.status().as_u16();
                let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
                    .await
                    .expect("a body");
                Err((status, String::from_utf8_lossy(&bytes).into_owned()))
            }
        }
    }

    /// A body read straight into its type (`application/json` exactly)
    /// is read as one read through `Value` is (any other JSON type): the
    /// same command, or the same refusal.
    #[tokio::test]
    async fn a_body_read_directly_reads_as_through_a_value() {
        let bodies = [
            r#"{"move": "d1", "ply": 3}"#,
            r#"{"move": "d1", "ply": 3, "message": "hi \u00e9"}"#,
            r#"{"move": "d1", "ply": 3.0}"#,
            r#"{"move": "d1", "ply": 3.5}"#,
            r#"{"move": "d1", "ply": -1, "extra": [1, {"x": null}]}"#,
            r#"{"move": "d1", "ply": 3, "ply": 4}"#,
            r#"{"move": 7, "ply": 3}"#,
            r#"{"ply": 3}"#,
            r#"["d1", 3]"#,
            r#"{"move": "d1", "ply": 3} trailing"#,
            r#"{"move": "d1""#,
            "",
        ];
        for body in bodies {
            let direct = extract(Some("application/json"), body).await;
            let through_value = extract(Some("application/json; charset=utf-8"), body).await;
            assert_eq!(format!("{direct:?}"), format!("{through_value:?}"), "{body}");
        }
        let read = extract(Some("application/json"), r#"{"move": "d1", "ply": 3.0}"#).await;
        assert_eq!(read.map(|c| (c.notation, c.ply)), Ok(("d1".to_owned(), 3)));
        for refused in [None, Some("text/plain"), Some("text/json")] {
            let (status, text) = extract(refused, r#"{"move": "d1", "ply": 3}"#)
                .await
                .expect_err("not JSON");
            assert_eq!(status, 400, "{refused:?}");
            assert!(text.contains("Content-Type"), "{refused:?}: {text}");
        }
    }
}
