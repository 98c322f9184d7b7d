//! The `Prefer` request header (RFC 7240): `return=minimal` asks for the
//! lean answer to a move. Preferences this server does not know, and
//! values it cannot read, are ignored, as the RFC asks: a preference never
//! makes a request fail.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue};

use super::error::Error;
use super::AppState;

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

/// Whether these `Prefer` values ask for `return=minimal`: each is a list
/// of preferences (`,`), each a token with an optional `=value` (quoted
/// or not) and parameters after `;`. The first `return` wins.
fn wants_minimal<'a>(values: impl Iterator<Item = &'a str>) -> bool {
    let asked = values.flat_map(|v| v.split(',')).find_map(|preference| {
        let head = preference.split(';').next().unwrap_or_default();
        let (name, value) = head.split_once('=').unwrap_or((head, ""));
        name.trim()
            .eq_ignore_ascii_case("return")
            .then(|| value.trim().trim_matches('"').to_ascii_lowercase())
    });
    asked.as_deref() == Some("minimal")
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
