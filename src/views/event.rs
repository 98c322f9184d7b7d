//! One event, one shape, on every door: the REST lists, the WebSocket's
//! `event` and `player_event` frames, server-sent events, long polls and
//! webhooks all send an [`EventView`] — `seq`, `kind`, `game_id`, `data`
//! and the time as RFC 3339 (`at`) and Unix milliseconds (`at_ms`) — and
//! add only what names the door (`type`, a webhook's `player`). The names
//! of the release before (`payload` over REST, `game` for the id on the
//! WebSocket) are sent beside them for one release; PROTOCOL.md lists them.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::timestamp;
use crate::store::EventRow;

/// An event of a game's log or of a player's own stream.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EventView {
    /// The event's number in its log: resume after it.
    pub seq: i64,
    /// What happened (`move`, `your_turn`, …); `data` is its payload.
    pub kind: String,
    /// The game it concerns; `null` for a player's event of no game.
    pub game_id: Option<i64>,
    /// The kind's payload. A player's event of a game also names it here,
    /// as `game_id` (and, for one release, `game`).
    #[schema(value_type = Object)]
    pub data: Value,
    /// When it was committed, RFC 3339 in UTC.
    pub at: String,
    /// The same instant in Unix milliseconds.
    pub at_ms: i64,
}

impl EventView {
    /// An event of game `game`'s log.
    pub fn of_game(game: i64, row: &EventRow) -> EventView {
        EventView::new(Some(game), row, super::outcome::event_payload(&row.kind, &row.payload))
    }

    /// An event of a player's stream: its game, if any, is the payload's
    /// numeric `game`.
    pub fn of_player(row: &EventRow) -> EventView {
        let game = row.payload.get("game").and_then(Value::as_i64);
        let mut data = super::outcome::event_payload(&row.kind, &row.payload);
        if let (Some(id), Value::Object(map)) = (game, &mut data) {
            map.insert("game_id".to_owned(), Value::from(id));
        }
        EventView::new(game, row, data)
    }

    fn new(game_id: Option<i64>, row: &EventRow, data: Value) -> EventView {
        EventView {
            seq: row.seq,
            kind: row.kind.clone(),
            game_id,
            data,
            at: timestamp(row.created_at),
            at_ms: row.created_at,
        }
    }

    /// The view as a JSON object, for doors that add their own fields.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The view as a frame of type `kind` (`event`, `player_event`).
    pub fn frame(&self, kind: &'static str) -> Value {
        serde_json::to_value(Framed {
            r#type: kind,
            view: self,
        })
        .unwrap_or(Value::Null)
    }

    /// The text of [`EventView::frame`], printed straight from the view
    /// (no `Value` in between: a player's frame goes out for every move).
    pub fn frame_text(&self, kind: &'static str) -> String {
        super::json_text(&Framed {
            r#type: kind,
            view: self,
        })
    }
}

/// An [`EventView`] with the `type` of the frame it is sent in.
#[derive(Serialize)]
struct Framed<'a> {
    r#type: &'static str,
    #[serde(flatten)]
    view: &'a EventView,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(payload: Value) -> EventRow {
        EventRow {
            seq: 7,
            kind: "your_turn".into(),
            payload,
            created_at: 1_764_607_163_123,
        }
    }

    #[test]
    fn a_players_event_names_its_game_as_game_id() {
        let view = EventView::of_player(&row(json!({ "game": 4, "ply": 2 })));
        assert_eq!(
            view.to_json(),
            json!({ "seq": 7, "kind": "your_turn", "game_id": 4,
                    "data": { "game": 4, "game_id": 4, "ply": 2 },
                    "at": "2025-12-01T16:39:23.123Z", "at_ms": 1_764_607_163_123_i64 })
        );
        assert_eq!(EventView::of_player(&row(json!({}))).game_id, None);
    }

    #[test]
    fn a_games_event_keeps_its_payload_and_gets_the_id() {
        let view = EventView::of_game(9, &row(json!({ "game": "pente" })));
        assert_eq!(view.game_id, Some(9));
        assert_eq!(
            view.data,
            json!({ "game": "pente" }),
            "the kind of game, as in game objects"
        );
        assert_eq!(view.frame("event")["type"], "event");
    }

    /// The printed frame is the frame: the view's fields and its type.
    #[test]
    fn a_frames_text_is_its_value() {
        let view = EventView::of_player(&row(json!({ "game": 4, "ply": 2 })));
        let printed: Value = serde_json::from_str(&view.frame_text("player_event")).unwrap();
        let mut expected = view.to_json();
        expected["type"] = json!("player_event");
        assert_eq!(printed, expected);
        assert_eq!(view.frame("player_event"), expected);
    }
}
