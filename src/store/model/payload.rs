//! The events the store writes, with their payloads printed once from the
//! typed events (the writers store the text as it is; nothing builds a
//! `Value` of it unless a live client is there to be sent it; issue 26),
//! and a player event's payload as stored: the notice's JSON object with
//! the game it came from put first, as `"game": id`. That text is spliced,
//! not parsed and printed again: a notice's payload is an object the
//! service printed, and it never names a game itself (the games service's
//! tests hold every notice to that).

use std::borrow::Cow;
use std::fmt::Write;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// An event of a game's log; numbered by the store.
#[derive(Clone, Debug)]
pub struct Event {
    pub kind: &'static str,
    /// The payload's JSON, printed once from the typed event.
    pub payload: Box<RawValue>,
}

impl Event {
    /// The event `kind` whose payload is `payload` printed.
    pub fn of(kind: &'static str, payload: &impl Serialize) -> Event {
        Event {
            kind,
            payload: printed(payload),
        }
    }

    /// The payload as a reader of the log gets it.
    pub fn payload_value(&self) -> Value {
        read(&self.payload)
    }
}

/// An event's payload printed. As `serde_json::to_value` did, a payload
/// that cannot print (none of ours: their keys are names) is `null`.
fn printed(payload: &impl Serialize) -> Box<RawValue> {
    serde_json::value::to_raw_value(payload).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

/// A printed payload read back.
fn read(payload: &RawValue) -> Value {
    serde_json::from_str(payload.get()).unwrap_or(Value::Null)
}

/// An event of a player's own stream; numbered by the store.
#[derive(Clone, Debug)]
pub struct PlayerEvent {
    pub player_id: i64,
    pub kind: &'static str,
    /// The payload's JSON, printed once from the typed notice, as
    /// [`Event::payload`] is. An object never names a game itself: the
    /// store adds the `game` it came from.
    pub payload: Box<RawValue>,
}

impl PlayerEvent {
    /// The event `kind` for `player_id` whose payload is `payload` printed.
    pub fn of(player_id: i64, kind: &'static str, payload: &impl Serialize) -> PlayerEvent {
        PlayerEvent {
            player_id,
            kind,
            payload: printed(payload),
        }
    }

    /// The payload as a reader of the stream gets it, before the store
    /// names its game.
    pub fn payload_value(&self) -> Value {
        read(&self.payload)
    }

    /// The payload as stored: naming its game if it came from one. Any
    /// payload that is not an object is stored as it is.
    pub fn stored_payload(&self, game_id: Option<i64>) -> Cow<'_, str> {
        let text = self.payload.get();
        let (Some(game), Some(fields)) = (game_id, text.strip_prefix('{')) else {
            return Cow::Borrowed(text);
        };
        let mut stored = String::with_capacity(text.len() + 32);
        // Writing into a `String` cannot fail.
        let _ = write!(stored, "{{\"game\":{game}");
        if !fields.trim_start().starts_with('}') {
            stored.push(',');
        }
        stored.push_str(fields);
        Cow::Owned(stored)
    }

    /// [`PlayerEvent::stored_payload`] for a driver that binds JSON by its
    /// type (sqlx: PostgreSQL's `jsonb`).
    pub fn stored_json(&self, game_id: Option<i64>) -> Result<Box<RawValue>, serde_json::Error> {
        match self.stored_payload(game_id) {
            Cow::Borrowed(_) => Ok(self.payload.clone()),
            Cow::Owned(text) => RawValue::from_string(text),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    #[test]
    fn the_stored_payload_is_the_payload_with_its_game_first() {
        let cases = [
            (json!({}), Some(7), json!({"game": 7})),
            (
                json!({"ply": 3, "seat": 1}),
                Some(7),
                json!({"game": 7, "ply": 3, "seat": 1}),
            ),
            (json!({"ply": 3}), Some(-1), json!({"game": -1, "ply": 3})),
            (
                json!({"note": "é \" \\ \n {"}),
                Some(12),
                json!({"game": 12, "note": "é \" \\ \n {"}),
            ),
            (json!({"ply": 3}), None, json!({"ply": 3})),
            (json!([1, 2, 3]), Some(7), json!([1, 2, 3])),
            (json!("text"), Some(7), json!("text")),
        ];
        for (payload, game, stored) in cases {
            let event = PlayerEvent::of(1, "your_turn", &payload);
            let text = event.stored_payload(game);
            let read: Value = serde_json::from_str(&text).expect("the stored payload is JSON");
            assert_eq!(read, stored, "{payload} in {game:?}: {text}");
            let json = event.stored_json(game).expect("the stored payload is JSON");
            assert_eq!(json.get(), text, "{payload} in {game:?}");
        }
        // The game goes first, the payload's own text after it unchanged.
        let event = PlayerEvent::of(1, "your_turn", &json!({"ply": 3, "seat": 1}));
        assert_eq!(event.stored_payload(Some(4)), r#"{"game":4,"ply":3,"seat":1}"#);
    }
}
