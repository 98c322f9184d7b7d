//! The WebSocket protocol's frames (PROTOCOL.md): the requests a client
//! sends, parsed into [`Request`], and the frames the server sends back —
//! acks, errors with their codes, snapshots. Pure: no socket, no task.

use axum::extract::ws::Message;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::games::{AnswerShape, GameError, Room};
use crate::players::PlayerError;
use crate::views::json_text;

/// A request from the client. Unknown fields are ignored so that clients
/// may send more than this server reads. A game is named `game_id` (or
/// `game`, the name of the release before).
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum Request {
    Auth {
        token: String,
    },
    Subscribe {
        #[serde(alias = "game_id")]
        game: i64,
        since: Option<i64>,
    },
    Unsubscribe {
        #[serde(alias = "game_id")]
        game: i64,
    },
    SubscribePlayer {
        since: Option<i64>,
    },
    Move {
        #[serde(alias = "game_id")]
        game: i64,
        #[serde(rename = "move")]
        notation: String,
        ply: i64,
        message: Option<String>,
        /// `"minimal"` for the lean answer, as HTTP's `Prefer:
        /// return=minimal`.
        #[serde(rename = "return")]
        reply: Option<Return>,
        /// With the lean answer: the legal moves too.
        #[serde(default)]
        legal: bool,
    },
    Chat {
        #[serde(alias = "game_id")]
        game: i64,
        text: String,
        room: Option<Room>,
    },
    Ping,
}

/// What a move's ack carries: the full answer (`"representation"`, the
/// default) or the lean one.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum Return {
    Minimal,
    Representation,
}

impl Return {
    pub(super) fn shape(reply: Option<Return>, legal: bool) -> AnswerShape {
        match reply {
            Some(Return::Minimal) => AnswerShape::Lean { legal },
            Some(Return::Representation) | None => AnswerShape::Full,
        }
    }
}

/// A refusal of a client request, as an `error` frame. The codes are the
/// HTTP API's, plus those of the socket itself.
pub(super) enum Refusal {
    /// The games service's refusal, with its own code and message.
    Game(GameError),
    /// The players service failed (it refuses nothing a socket asks of it):
    /// logged, sent as a bare internal error.
    Player(PlayerError),
    Socket {
        code: &'static str,
        message: String,
    },
}

impl From<PlayerError> for Refusal {
    fn from(error: PlayerError) -> Refusal {
        Refusal::Player(error)
    }
}

impl From<GameError> for Refusal {
    fn from(error: GameError) -> Refusal {
        Refusal::Game(error)
    }
}

pub(super) fn refuse(code: &'static str, message: impl Into<String>) -> Refusal {
    Refusal::Socket {
        code,
        message: message.into(),
    }
}

pub(super) fn error_frame(id: &Value, refusal: Refusal) -> Message {
    let frame = match refusal {
        Refusal::Player(error) => {
            tracing::error!(%error, "internal error on the WebSocket");
            json!({ "type": "error", "id": id, "code": "internal", "message": "internal error" })
        }
        Refusal::Game(error) => {
            let message = if error.is_internal() {
                tracing::error!(%error, "internal error on the WebSocket");
                "internal error".to_owned()
            } else {
                error.to_string()
            };
            let mut frame = json!({ "type": "error", "id": id, "code": error.code(), "message": message });
            if let Some(state) = error.current() {
                frame["game"] = state.to_json();
            }
            if let GameError::TooFast(wait) = error {
                frame["retry_after"] = wait.seconds().into();
            }
            frame
        }
        Refusal::Socket { code, message } => {
            json!({ "type": "error", "id": id, "code": code, "message": message })
        }
    };
    text(json_text(&frame))
}

pub(super) fn text(frame: impl Into<String>) -> Message {
    Message::Text(frame.into().into())
}

pub(super) fn ack(id: &Value, result: Value) -> Message {
    ack_of(id, &result)
}

/// An ack of any result, serialised straight into the frame's text (no
/// `Value` in between: a move's full answer is a few KB).
pub(super) fn ack_of(id: &Value, result: &impl Serialize) -> Message {
    #[derive(Serialize)]
    struct Ack<'a, T> {
        r#type: &'static str,
        id: &'a Value,
        result: &'a T,
    }
    let frame = Ack {
        r#type: "ack",
        id,
        result,
    };
    match serde_json::to_string(&frame) {
        Ok(frame) => text(frame),
        Err(error) => error_frame(id, Refusal::Game(GameError::internal(error))),
    }
}

/// The request's `id` (any JSON scalar, echoed back) and the request.
pub(super) fn parse(text: &str) -> Result<(Value, Request), (Value, Refusal)> {
    match parse_directly(text) {
        Some(parsed) => Ok(parsed),
        None => parse_through_value(text),
    }
}

/// Every field a request of any type may carry, read in one pass: serde
/// reads an internally tagged enum by buffering the whole object first
/// (every key and string copied) to find its `type`.
#[derive(Deserialize)]
struct Fields<'a> {
    r#type: &'a str,
    #[serde(borrow)]
    id: Option<&'a serde_json::value::RawValue>,
    // Present, even as `null`, counts: with both keys serde's alias
    // refuses a duplicate.
    #[serde(default, deserialize_with = "present")]
    game: Option<i64>,
    #[serde(default, deserialize_with = "present")]
    game_id: Option<i64>,
    #[serde(rename = "move")]
    notation: Option<String>,
    ply: Option<i64>,
    message: Option<String>,
    #[serde(rename = "return")]
    reply: Option<Return>,
    #[serde(default)]
    legal: bool,
    token: Option<String>,
    since: Option<i64>,
    text: Option<String>,
    room: Option<Room>,
}

/// A field that was given: its value must read as `T` (`null` too).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(field: D) -> Result<Option<T>, D::Error> {
    T::deserialize(field).map(Some)
}

impl Fields<'_> {
    /// The request of this `type`, when it has what that type needs.
    fn request(self) -> Option<Request> {
        // `game_id` is an alias of `game`: both at once is a duplicate.
        let game = match (self.game, self.game_id) {
            (Some(game), None) | (None, Some(game)) => Some(game),
            _ => None,
        };
        Some(match self.r#type {
            "auth" => Request::Auth { token: self.token? },
            "subscribe" => Request::Subscribe {
                game: game?,
                since: self.since,
            },
            "unsubscribe" => Request::Unsubscribe { game: game? },
            "subscribe_player" => Request::SubscribePlayer { since: self.since },
            "move" => Request::Move {
                game: game?,
                notation: self.notation?,
                ply: self.ply?,
                message: self.message,
                reply: self.reply,
                legal: self.legal,
            },
            "chat" => Request::Chat {
                game: game?,
                text: self.text?,
                room: self.room,
            },
            "ping" => Request::Ping,
            _ => return None,
        })
    }
}

/// A well-formed object read straight into [`Request`] through [`Fields`]
/// (a move's frame in less than half the instructions of serde's tagged
/// enum, which buffers it first: 3.4k against 7.2k; issue 26); `None` for
/// anything else, which [`parse_through_value`] decides, as it always
/// did. An object read here reads the same there: what could read
/// differently (a field of another type's of the wrong type, a key twice,
/// a `null` where serde would refuse it) fails here and is left to it.
fn parse_directly(text: &str) -> Option<(Value, Request)> {
    // Only an object: serde would read a struct from an array too.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let fields = serde_json::from_str::<Fields>(text).ok()?;
    let id = match fields.id {
        None => Value::Null,
        Some(raw) => match serde_json::from_str(raw.get()).ok()? {
            id @ (Value::Null | Value::String(_) | Value::Number(_)) => id,
            _ => return None,
        },
    };
    Some((id, fields.request()?))
}

fn parse_through_value(text: &str) -> Result<(Value, Request), (Value, Refusal)> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| (Value::Null, refuse("bad_message", format!("not JSON: {e}"))))?;
    let id = match value.get("id") {
        None | Some(Value::Null) => Value::Null,
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        Some(_) => return Err((Value::Null, refuse("bad_message", "`id` is a string or a number"))),
    };
    if !value.is_object() {
        return Err((id, refuse("bad_message", "a message is a JSON object")));
    }
    match serde_json::from_value(value) {
        Ok(request) => Ok((id, request)),
        Err(e) => Err((id, refuse("bad_message", e.to_string()))),
    }
}

/// The `snapshot` frame, serialised straight into its text like an ack.
pub(super) fn snapshot_frame(game: i64, state: &crate::views::GameState) -> Message {
    #[derive(Serialize)]
    struct Snapshot<'a> {
        r#type: &'static str,
        game_id: i64,
        game: i64,
        seq: i64,
        state: &'a crate::views::GameState,
    }
    let frame = Snapshot {
        r#type: "snapshot",
        game_id: game,
        game,
        seq: state.seq,
        state,
    };
    match serde_json::to_string(&frame) {
        Ok(frame) => text(frame),
        Err(error) => error_frame(&Value::Null, Refusal::Game(GameError::internal(error))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parse's outcome as the client would see it: the id and request,
    /// or the error frame.
    fn seen(parsed: Result<(Value, Request), (Value, Refusal)>) -> String {
        match parsed {
            Ok((id, request)) => format!("{id:?} {request:?}"),
            Err((id, refusal)) => format!("{:?}", error_frame(&id, refusal)),
        }
    }

    /// Every message reads as it does through a `Value`, and the usual
    /// ones are read directly.
    #[test]
    fn a_message_read_directly_reads_as_through_a_value() {
        let direct = [
            r#"{"type": "move", "game_id": 4, "move": "d1", "ply": 3, "return": "minimal", "legal": true, "id": 7}"#,
            r#"{"id": "a", "type": "move", "game": 4, "move": "d1", "ply": 3}"#,
            r#"{"type": "move", "game": 4, "move": "d1", "ply": 3, "id": null, "more": [1, {}]}"#,
            r#"  {"type": "ping", "id": 1.50}"#,
            r#"{"type": "auth", "token": "t\u00e9"}"#,
            r#"{"type": "subscribe", "game": 4, "since": 10}"#,
            r#"{"type": "subscribe_player", "since": null, "id": "x"}"#,
            r#"{"type": "unsubscribe", "game_id": 4}"#,
            r#"{"type": "chat", "game": 4, "text": "ciao", "room": "spectators"}"#,
            r#"{"type": "move", "game": 4, "move": "d1", "ply": 3, "message": null, "return": null}"#,
            r#"{"type": "ping", "game": 4, "game_id": 5}"#,
        ];
        let through_value = [
            r#"{"type": "ping", "id": {"nested": 1}}"#,
            r#"{"type": "ping", "id": [1]}"#,
            r#"{"type": "ping", "id": true}"#,
            r#"{"type": "ping", "id": 1, "id": 2}"#,
            r#"{"type": "move", "game": 4, "move": "d1", "ply": 3, "ply": 4}"#,
            r#"{"type": "move", "game": 4, "move": "d1", "ply": 3.0}"#,
            r#"{"type": "move", "game": 4, "move": "d1"}"#,
            r#"{"type": "move", "game": 4, "game_id": 4, "move": "d1", "ply": 3}"#,
            r#"{"type": "move", "game": 4, "game_id": null, "move": "d1", "ply": 3}"#,
            r#"{"type": "move", "game": null, "game_id": 4, "move": "d1", "ply": 3}"#,
            r#"{"type": "move", "game": 4, "move": "d1", "ply": 3, "legal": null}"#,
            r#"{"type": "move", "game": 4, "move": null, "ply": 3}"#,
            r#"{"type": "auth", "token": null}"#,
            r#"{"type": "move", "game": 4, "move": "d1", "ply": 3, "token": 5}"#,
            r#"{"type": "ping", "since": "yesterday"}"#,
            r#"{"type": "chat", "game": 4, "text": "ciao", "room": "lobby"}"#,
            r#"{"type": "move", "type": "ping", "game": 4, "move": "d1", "ply": 3}"#,
            r#"{"type": "m\u006fve", "game": 4, "move": "d1", "ply": 3}"#,
            r#"{"type": "castle", "id": 3}"#,
            r#"{"id": 3}"#,
            r#"["ping"]"#,
            r#"["ping", 1]"#,
            r#""ping""#,
            r#"{"type": "ping"} trailing"#,
            r#"{"type": "ping""#,
            "",
        ];
        for text in direct {
            assert!(parse_directly(text).is_some(), "{text}");
            assert_eq!(seen(parse(text)), seen(parse_through_value(text)), "{text}");
        }
        for text in through_value {
            assert!(parse_directly(text).is_none(), "{text}");
            assert_eq!(seen(parse(text)), seen(parse_through_value(text)), "{text}");
        }
    }
}
