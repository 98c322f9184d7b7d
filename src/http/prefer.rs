//! The `Prefer` request header (RFC 7240): `return=minimal` asks for the
//! lean answer to a move or to another action on a game (`?legal=true`
//! adds the legal moves). Preferences this server does not know, and
//! values it cannot read, are ignored, as the RFC asks: a preference never
//! makes a request fail.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::IntoParams;

use super::error::Error;
use super::{AppState, Json, Query};
use crate::views::AnswerShape;

/// The request header.
pub const PREFER: HeaderName = HeaderName::from_static("prefer");

/// The answer header naming the preference honoured.
pub const PREFERENCE_APPLIED: HeaderName = HeaderName::from_static("preference-applied");

/// Its value for the lean answer.
pub const RETURN_MINIMAL: HeaderValue = HeaderValue::from_static("return=minimal");

/// Whether the request asked for `return=minimal`.
pub struct ReturnMinimal(pub bool);

impl FromRequestParts<AppState> for ReturnMinimal {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> Result<ReturnMinimal, Error> {
        let values = parts.headers.get_all(PREFER);
        Ok(ReturnMinimal(wants_minimal(
            values.iter().filter_map(|v| v.to_str().ok()),
        )))
    }
}

impl ReturnMinimal {
    /// The answer asked for: lean, with the legal moves when `legal` says
    /// so, or whole.
    pub fn shape(self, legal: &LegalQuery) -> AnswerShape {
        if self.0 {
            AnswerShape::Lean {
                legal: legal.legal.unwrap_or(false),
            }
        } else {
            AnswerShape::Full
        }
    }
}

/// The answer a request asks for: lean with `Prefer: return=minimal`, its
/// legal moves with `?legal=true` ([`LegalQuery`]); whole otherwise.
pub struct Shaped(pub AnswerShape);

impl FromRequestParts<AppState> for Shaped {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Shaped, Error> {
        let prefer = ReturnMinimal::from_request_parts(parts, state).await?;
        let Query(legal) = Query::<LegalQuery>::from_request_parts(parts, state).await?;
        Ok(Shaped(prefer.shape(&legal)))
    }
}

/// The `Prefer` header, for the OpenAPI document of the operations that
/// read it ([`ReturnMinimal`] reads it).
#[derive(IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub struct PreferHeader {
    /// `return=minimal` for the lean answer (RFC 7240); other preferences
    /// are ignored.
    #[param(rename = "Prefer")]
    prefer: Option<String>,
}

/// The query of an operation with a lean answer.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LegalQuery {
    /// With `Prefer: return=minimal`: add the legal moves to the lean
    /// answer (the full answer always has them).
    pub legal: Option<bool>,
}

/// `answer` with `status`, marked `Preference-Applied: return=minimal`
/// when it is the lean one.
pub fn shaped_answer(status: StatusCode, answer: &impl Serialize, lean: bool) -> Response {
    let mut response = (status, Json(answer)).into_response();
    if lean {
        response.headers_mut().insert(PREFERENCE_APPLIED, RETURN_MINIMAL);
    }
    response
}

/// Whether these `Prefer` values ask for `return=minimal`: each is a list
/// of preferences (`,`), each a token with an optional `=value` (quoted
/// or not) and parameters after `;`. The first `return` wins.
fn wants_minimal<'a>(values: impl Iterator<Item = &'a str>) -> bool {
    let asked = values.flat_map(|v| v.split(',')).find_map(|preference| {
        let head = preference.split(';').next().unwrap_or_default();
        let (name, value) = head.split_once('=').unwrap_or((head, ""));
        name.trim()
            .eq_ignore_ascii_case("return")
            .then(|| value.trim().trim_matches('"').eq_ignore_ascii_case("minimal"))
    });
    asked == Some(true)
}

#[cfg(test)]
mod tests {
    use super::wants_minimal;

    fn minimal(values: &[&str]) -> bool {
        wants_minimal(values.iter().copied())
    }

    #[test]
    fn return_minimal_is_read_among_other_preferences() {
        assert!(minimal(&["return=minimal"]));
        assert!(minimal(&["Return = \"Minimal\""]));
        assert!(minimal(&["respond-async, wait=10", "return=minimal; foo=bar"]));
        assert!(minimal(&["handling=lenient, return=minimal"]));
    }

    #[test]
    fn anything_else_is_the_full_answer() {
        assert!(!minimal(&[]));
        assert!(!minimal(&["return=representation"]));
        assert!(!minimal(&["return=representation, return=minimal"]));
        assert!(!minimal(&["minimal", "returns=minimal", "return", "=minimal", ";,=;"]));
    }
}
