//! A player event's payload as stored, printed straight from the event:
//! [`PlayerEvent::stored_payload`] copies the whole payload to add the
//! game to it, and the SQLite writer only prints that copy.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use super::PlayerEvent;

/// What [`PlayerEvent::stored_payload`] returns, serialised to the same
/// bytes without being built.
pub struct StoredPayload<'a> {
    payload: &'a Value,
    game: Option<i64>,
}

impl PlayerEvent {
    /// The payload as stored (see [`PlayerEvent::stored_payload`]), ready
    /// to print.
    pub fn stored(&self, game_id: Option<i64>) -> StoredPayload<'_> {
        StoredPayload {
            payload: &self.payload,
            game: game_id,
        }
    }
}

impl Serialize for StoredPayload<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (Some(game), Value::Object(map)) = (self.game, self.payload) else {
            return self.payload.serialize(serializer);
        };
        // serde_json's maps keep their keys sorted (no `preserve_order`):
        // `game` goes where inserting it into the copy puts it, in place
        // of any `game` already there.
        let replaced = map.contains_key("game");
        let mut out = serializer.serialize_map(Some(map.len() + usize::from(!replaced)))?;
        let mut game_printed = false;
        for (key, value) in map {
            if !game_printed && key.as_str() >= "game" {
                out.serialize_entry("game", &game)?;
                game_printed = true;
                if key == "game" {
                    continue;
                }
            }
            out.serialize_entry(key, value)?;
        }
        if !game_printed {
            out.serialize_entry("game", &game)?;
        }
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_printed_payload_is_the_stored_one_byte_for_byte() {
        let payloads = [
            json!({}),
            json!({"kind": "your_turn", "ply": 3, "seat": 1}),
            json!({"a": 1, "zz": [1, 2]}),
            json!({"game": 99, "turn": "x"}),
            json!({"gam": 1, "gamf": {"game": 2}, "game": "old", "game_": null}),
            json!({"note": "é \" \\ \n"}),
            json!([1, 2, 3]),
            json!("text"),
        ];
        for payload in payloads {
            let event = PlayerEvent {
                player_id: 1,
                kind: "your_turn",
                payload,
            };
            for game in [None, Some(7), Some(-1)] {
                let printed = serde_json::to_string(&event.stored(game)).expect("a payload prints");
                assert_eq!(printed, event.stored_payload(game).to_string(), "{event:?} in {game:?}");
            }
        }
    }
}
