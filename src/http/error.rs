//! How [`Error`] becomes a response, how the services' errors become
//! [`Error`]s (each refusal's status and wire code, in one place), and the
//! extractors whose rejections come out in the same JSON shape:
//! `{"error":{"code":"…","message":"…"}}`.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

use crate::error::Error;
use crate::games::GameError;
use crate::players::settings::SettingsError;
use crate::players::{BadInput, PlayerError, VacationRefused};

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status.is_server_error() {
            // Details stay in the log.
            tracing::error!(error = %self, "internal error");
        }
        let mut body = json!({ "error": { "code": self.code(), "message": self.public_message() } });
        if let Error::Conflict { game: Some(game), .. } = self {
            body["game"] = *game;
        }
        (status, axum::Json(body)).into_response()
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
            | G::AlreadySeated
            | G::NotOpen { .. }
            | G::InvitedElsewhere(_)
            | G::SeatTaken(_)
            | G::NoOpenSeat
            | G::NoOffer(_)
            | G::NoMove
            | G::Busy
            | G::Move(crate::rules::MoveError::GameOver) => Error::Conflict { code, message, game },
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
            | G::BadTimeControl(_) => Error::Unprocessable { code, message },
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
                    BadInput::Email => "bad_email",
                },
                message,
            ),
            PlayerError::NameTaken(_) => Error::conflict("name_taken", message),
            PlayerError::BadCredentials | PlayerError::NoSuchPlayer => Error::Unauthorized(message),
            PlayerError::CurrentPasswordMissing => Error::unprocessable("current_password", message),
            PlayerError::WrongPassword => Error::forbidden("wrong_password", message),
            PlayerError::NoPlayerNamed(_) | PlayerError::NoVacation => Error::NotFound(message),
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

/// `axum::Json` with JSON errors.
#[derive(Debug, FromRequest)]
#[from_request(via(axum::Json), rejection(Error))]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoResponse for Json<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
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
