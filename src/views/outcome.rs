//! How a finished game ended, as clients read it: a machine `reason` code
//! beside a human `message`, and the winners as seats (`winners`) and as
//! players (`winner_names`). The store keeps an outcome as it always has
//! (`{"winners": [seats], "reason": "<prose or code>"}`); this view reads
//! it back, so games finished before this vocabulary show it too.

use serde_json::{json, Value};

use crate::rules::EndReason;
use crate::store::GameRecord;

/// The endings that are not the rules': stored as their code, which is
/// also what people read ("alice wins (resignation)").
const PLAYED_ENDINGS: [&str; 4] = ["resignation", "time", "agreement", "forfeit"];

/// A stored reason's code and message (the stored words).
pub fn reason(stored: &str) -> (&'static str, String) {
    if let Some(code) = PLAYED_ENDINGS.iter().find(|code| **code == stored) {
        return (code, stored.to_owned());
    }
    if let Some(reason) = EndReason::ALL.iter().find(|r| r.to_string() == stored) {
        return (reason.code(), stored.to_owned());
    }
    if stored.ends_with(" in a row") {
        return ("line", stored.to_owned());
    }
    ("other", stored.to_owned())
}

/// The stored outcome `stored` of `record` as clients read it; any other
/// field stored with it (a `finished` event's `ratings`) is kept.
pub fn outcome(stored: &Value, record: Option<&GameRecord>) -> Value {
    let Value::Object(map) = stored else {
        return stored.clone();
    };
    let mut view = map.clone();
    let stored_reason = map.get("reason").and_then(Value::as_str).unwrap_or_default();
    let (code, message) = reason(stored_reason);
    view.insert("reason".to_owned(), Value::from(code));
    view.insert("message".to_owned(), Value::from(message));
    if let Some(record) = record {
        let names: Vec<Value> = winner_seats(stored)
            .map(|seat| {
                record
                    .seats
                    .iter()
                    .find(|s| i64::from(s.seat) == seat)
                    .and_then(|s| s.player.as_ref().map(|(_, name)| json!(name)))
                    .unwrap_or(Value::Null)
            })
            .collect();
        view.insert("winner_names".to_owned(), Value::Array(names));
    }
    Value::Object(view)
}

/// The seats an outcome names as winners (stored, or as clients read it):
/// none when it names none.
pub fn winner_seats(outcome: &Value) -> impl Iterator<Item = i64> + '_ {
    outcome
        .get("winners")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_i64)
}

/// Whether clients read an event of `kind` with its payload as stored:
/// every kind but those whose outcome [`event_payload`] rewords.
pub fn read_as_stored(kind: &str) -> bool {
    !matches!(kind, "finished" | "game_over")
}

/// An event's payload as clients read it: the outcome of a `finished`
/// event (flattened in it) or of a `game_over` notice (its `outcome`) in
/// this vocabulary; any other payload as stored.
pub fn event_payload(kind: &str, payload: &Value) -> Value {
    if read_as_stored(kind) {
        return payload.clone();
    }
    match kind {
        "finished" if payload.get("winners").is_some() => outcome(payload, None),
        "game_over" if payload.get("outcome").is_some() => {
            let mut payload = payload.clone();
            payload["outcome"] = outcome(&payload["outcome"], None);
            payload
        }
        _ => payload.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_reasons_read_back_as_codes_and_messages() {
        assert_eq!(reason("4 in a row"), ("line", "4 in a row".to_owned()));
        assert_eq!(reason("12 in a row"), ("line", "12 in a row".to_owned()));
        assert_eq!(
            reason("the board is full"),
            ("board_full", "the board is full".to_owned())
        );
        assert_eq!(reason("resignation"), ("resignation", "resignation".to_owned()));
        assert_eq!(reason("forfeit").0, "forfeit");
        for ending in EndReason::ALL {
            assert_eq!(reason(&ending.to_string()).0, ending.code(), "{ending}");
        }
    }

    #[test]
    fn outcomes_keep_seats_and_what_else_was_stored() {
        let stored = json!({ "winners": [1], "reason": "4 in a row", "ratings": [] });
        assert_eq!(
            outcome(&stored, None),
            json!({ "winners": [1], "reason": "line", "message": "4 in a row", "ratings": [] })
        );
        let over = event_payload(
            "game_over",
            &json!({ "outcome": { "winners": [], "reason": "agreement" } }),
        );
        assert_eq!(over["outcome"]["reason"], "agreement");
        assert_eq!(over["outcome"]["message"], "agreement");
        assert_eq!(
            event_payload("move", &json!({ "reason": "x" })),
            json!({ "reason": "x" })
        );
    }
}
