//! What happens to a game, as types: the events of its public log
//! ([`GameEvent`]), the notices its players get in their own streams
//! ([`PlayerNotice`]), and how it ended ([`Ending`]).
//!
//! Each serialises to exactly the payload clients and the notifier have
//! always read (`kind` names the variant, the payload is its fields), so
//! the stored log and the wire stay what they were; no kind is spelled
//! anywhere else.

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::clock::TimeControl;
use crate::domain::{GameStatus, Seat};
use crate::rules::Outcome;
use crate::store::{Event, PlayerEvent};

use super::Room;

/// How a finished game ended: by the rules, or by what the players did.
/// Stored and sent as `{"winners": [seats], "reason": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The rules ended it (a line, no legal move, …).
    Rules(Outcome),
    /// A seat resigned; the rules say who wins.
    Resignation { winners: Vec<Seat> },
    /// The player to move ran out of time; the rules say who wins.
    Time { winners: Vec<Seat> },
    /// Every seat agreed to a draw.
    Agreement,
    /// A seat's player left the tournament the game belongs to: the rules
    /// say who wins, as for a resignation.
    Forfeit { winners: Vec<Seat> },
}

impl Ending {
    pub fn winners(&self) -> Vec<Seat> {
        match self {
            Ending::Rules(outcome) => outcome.winners.to_vec().into_iter().map(Seat::from).collect(),
            Ending::Resignation { winners } | Ending::Time { winners } | Ending::Forfeit { winners } => winners.clone(),
            Ending::Agreement => Vec::new(),
        }
    }

    /// The reason as stored and shown.
    pub fn reason(&self) -> String {
        match self {
            Ending::Rules(outcome) => outcome.reason.to_string(),
            Ending::Resignation { .. } => "resignation".to_owned(),
            Ending::Time { .. } => "time".to_owned(),
            Ending::Agreement => "agreement".to_owned(),
            Ending::Forfeit { .. } => FORFEIT.to_owned(),
        }
    }

    /// The stored `outcome` column.
    pub fn to_stored(&self) -> Value {
        to_value(self)
    }
}

/// The stored reason of a forfeited game, which standings show as such.
pub const FORFEIT: &str = "forfeit";

impl Serialize for Ending {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Stored {
            winners: Vec<Seat>,
            reason: String,
        }
        Stored {
            winners: self.winners(),
            reason: self.reason(),
        }
        .serialize(serializer)
    }
}

/// What a rated game's end did to one player's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingShift {
    pub seat: Seat,
    pub player: String,
    pub before: f64,
    pub after: f64,
    pub rd_before: f64,
    pub rd_after: f64,
    /// Whether the rating after the game is still provisional.
    pub provisional: bool,
}

/// The `move` event: the move as stored, and where the game went.
#[derive(Clone, Debug, Serialize)]
pub struct MoveEvent {
    pub ply: i64,
    pub seat: Seat,
    pub player: String,
    #[serde(rename = "move")]
    pub notation: String,
    pub effect: Option<String>,
    pub message: Option<String>,
    pub status: GameStatus,
    pub to_move: Option<Seat>,
    /// When the next player to move loses on time, if a clock runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining_ms: Option<Vec<i64>>,
    /// Played by the mover's tree of conditional moves, in the same
    /// transaction as the move it answers (sent only when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
}

/// An entry of a game's public log, numbered by the store.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum GameEvent {
    Created {
        game: &'static str,
        variant: &'static str,
        public: bool,
        by: String,
        seat: Seat,
        invited: Vec<String>,
        time_control: TimeControl,
    },
    Joined {
        seat: Seat,
        player: String,
    },
    Started {
        to_move: Option<Seat>,
    },
    Declined {
        seat: Seat,
        player: String,
    },
    /// A seated player aborted the game.
    Aborted {
        seat: Seat,
        player: String,
    },
    /// The game was called off without anyone aborting it.
    CalledOff {
        reason: &'static str,
    },
    Move(MoveEvent),
    /// The game is over; a rated game says what it did to each rating.
    Finished {
        #[serde(flatten)]
        ending: Ending,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        ratings: Vec<RatingShift>,
    },
    Resigned {
        seat: Seat,
    },
    DrawOffered {
        seat: Seat,
    },
    DrawAgreed {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    TakebackOffered {
        seat: Seat,
        ply: i64,
    },
    TakebackAccepted {
        seat: Seat,
        ply: i64,
    },
    TakebackDeclined {
        seat: Seat,
    },
    Timeout {
        seat: Seat,
        player: Option<String>,
        deadline: i64,
    },
    Chat {
        room: Room,
        player: String,
        seat: Option<Seat>,
        text: String,
    },
}

impl GameEvent {
    /// The kind the log stores and clients switch on.
    pub fn kind(&self) -> &'static str {
        match self {
            GameEvent::Created { .. } => "created",
            GameEvent::Joined { .. } => "joined",
            GameEvent::Started { .. } => "started",
            GameEvent::Declined { .. } => "declined",
            GameEvent::Aborted { .. } | GameEvent::CalledOff { .. } => "aborted",
            GameEvent::Move(_) => "move",
            GameEvent::Finished { .. } => "finished",
            GameEvent::Resigned { .. } => "resigned",
            GameEvent::DrawOffered { .. } => "draw_offered",
            GameEvent::DrawAgreed { .. } => "draw_agreed",
            GameEvent::DrawDeclined { .. } => "draw_declined",
            GameEvent::TakebackOffered { .. } => "takeback_offered",
            GameEvent::TakebackAccepted { .. } => "takeback_accepted",
            GameEvent::TakebackDeclined { .. } => "takeback_declined",
            GameEvent::Timeout { .. } => "timeout",
            GameEvent::Chat { .. } => "chat",
        }
    }

    pub fn to_stored(&self) -> Event {
        Event::of(self.kind(), self)
    }

    /// The payload as a reader of the log gets it.
    pub fn payload(&self) -> Value {
        to_value(self)
    }
}

/// An entry of one player's own stream: what they should hear of.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum PlayerNotice {
    Invited {
        by: String,
    },
    GameStarted {},
    YourTurn {
        ply: i64,
        seat: Seat,
        #[serde(skip_serializing_if = "Option::is_none")]
        deadline: Option<i64>,
    },
    Reminder {
        ply: i64,
        seat: Option<Seat>,
        deadline: i64,
        deadline_at: String,
    },
    DrawOffered {
        seat: Seat,
    },
    TakebackOffered {
        seat: Seat,
    },
    GameOver {
        outcome: Ending,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        ratings: Vec<RatingShift>,
    },
    /// Another player of finished game `of` asks for a rematch: the new
    /// game (the payload's `game`) starts when its invitations are accepted.
    Rematch {
        by: String,
        of: i64,
    },
    Aborted {
        aborted: bool,
    },
    Declined {
        player: String,
    },
    /// The owner's tree of conditional moves is gone at `ply`, and why.
    ConditionalCleared {
        ply: i64,
        reason: ClearedBecause,
    },
    /// A tournament the player is in started (or a league's new season):
    /// their games are in it.
    TournamentStarted {
        tournament: i64,
        name: String,
        /// A league's season.
        #[serde(skip_serializing_if = "Option::is_none")]
        season: Option<i64>,
    },
    /// A new game of a tournament (the payload's `game`), in `round`.
    TournamentRound {
        tournament: i64,
        name: String,
        round: i64,
    },
    /// The tournament is over: the player's final place.
    TournamentOver {
        tournament: i64,
        name: String,
        rank: usize,
        points: f64,
    },
    /// The tournament was called off before it began (too few players).
    TournamentCancelled {
        tournament: i64,
        name: String,
        cancelled: bool,
    },
}

/// Why a tree of conditional moves was cleared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClearedBecause {
    /// The opponent played a move no line foresaw.
    Unforeseen,
    /// The reply could not be played (the position changed under it).
    Illegal,
}

impl PlayerNotice {
    pub fn kind(&self) -> &'static str {
        match self {
            PlayerNotice::Invited { .. } => "invited",
            PlayerNotice::GameStarted {} => "game_started",
            PlayerNotice::YourTurn { .. } => "your_turn",
            PlayerNotice::Reminder { .. } => "reminder",
            PlayerNotice::DrawOffered { .. } => "draw_offered",
            PlayerNotice::TakebackOffered { .. } => "takeback_offered",
            PlayerNotice::GameOver { .. } | PlayerNotice::Aborted { .. } => "game_over",
            PlayerNotice::Declined { .. } => "declined",
            PlayerNotice::Rematch { .. } => "rematch",
            PlayerNotice::ConditionalCleared { .. } => "conditional_cleared",
            PlayerNotice::TournamentStarted { .. } => "tournament_started",
            PlayerNotice::TournamentRound { .. } => "tournament_round",
            PlayerNotice::TournamentOver { .. } | PlayerNotice::TournamentCancelled { .. } => "tournament_over",
        }
    }

    /// The notice for `player_id`, as the store keeps it.
    pub fn to(&self, player_id: i64) -> PlayerEvent {
        PlayerEvent::of(player_id, self.kind(), self)
    }
}

/// Every type here serialises to a JSON object with string keys, which
/// cannot fail.
fn to_value(payload: &impl Serialize) -> Value {
    serde_json::to_value(payload).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rules::{EndReason, Winners};

    #[test]
    fn endings_are_stored_as_winners_and_reason() {
        let line = Ending::Rules(Outcome {
            winners: Winners::seat(1),
            reason: EndReason::Line(4),
        });
        assert_eq!(line.to_stored(), json!({ "winners": [1], "reason": "4 in a row" }));
        let resigned = Ending::Resignation {
            winners: vec![Seat::from(0), Seat::from(2)],
        };
        assert_eq!(
            resigned.to_stored(),
            json!({ "winners": [0, 2], "reason": "resignation" })
        );
        assert_eq!(
            Ending::Agreement.to_stored(),
            json!({ "winners": [], "reason": "agreement" })
        );
    }

    #[test]
    fn events_keep_the_payloads_clients_read() {
        let mv = GameEvent::Move(MoveEvent {
            ply: 3,
            seat: Seat::from(0),
            player: "alice".into(),
            notation: "d4".into(),
            effect: Some("lands on d1".into()),
            message: None,
            status: GameStatus::Active,
            to_move: Some(Seat::from(1)),
            deadline: None,
            remaining_ms: None,
            conditional: false,
        })
        .to_stored();
        assert_eq!(mv.kind, "move");
        assert_eq!(
            mv.payload_value(),
            json!({ "ply": 3, "seat": 0, "player": "alice", "move": "d4", "effect": "lands on d1",
                    "message": null, "status": "active", "to_move": 1 })
        );
        // The store reads the move back from this payload: it is the
        // game's history (`store/model/history.rs`).
        let stored: crate::store::MovePayload = serde_json::from_str(mv.payload.get()).expect("a move");
        assert_eq!(
            (
                stored.ply,
                stored.seat,
                stored.player.as_str(),
                stored.notation.as_str()
            ),
            (3, Seat::from(0), "alice", "d4")
        );
        assert_eq!((stored.effect.as_deref(), stored.message), (Some("lands on d1"), None));
        let off = GameEvent::CalledOff {
            reason: "invitation declined",
        }
        .to_stored();
        assert_eq!(
            (off.kind, off.payload_value()),
            ("aborted", json!({ "reason": "invitation declined" }))
        );
        let chat = GameEvent::Chat {
            room: Room::Spectators,
            player: "bob".into(),
            seat: None,
            text: "hi".into(),
        }
        .to_stored();
        assert_eq!(
            chat.payload_value(),
            json!({ "room": "spectators", "player": "bob", "seat": null, "text": "hi" })
        );
    }

    /// The store names a notice's game by putting `game` first in its
    /// payload's text (`store::model::payload`): no notice may carry one.
    #[test]
    fn no_notice_names_a_game_itself() {
        let notices = [
            PlayerNotice::Invited { by: "alice".into() },
            PlayerNotice::GameStarted {},
            PlayerNotice::YourTurn {
                ply: 3,
                seat: Seat::from(1),
                deadline: Some(9),
            },
            PlayerNotice::Reminder {
                ply: 3,
                seat: Some(Seat::from(1)),
                deadline: 9,
                deadline_at: "2026-12-06T08:00:00Z".into(),
            },
            PlayerNotice::DrawOffered { seat: Seat::from(0) },
            PlayerNotice::TakebackOffered { seat: Seat::from(0) },
            PlayerNotice::GameOver {
                outcome: Ending::Agreement,
                ratings: Vec::new(),
            },
            PlayerNotice::Rematch {
                by: "bob".into(),
                of: 4,
            },
            PlayerNotice::Aborted { aborted: true },
            PlayerNotice::Declined { player: "carol".into() },
            PlayerNotice::ConditionalCleared {
                ply: 5,
                reason: ClearedBecause::Unforeseen,
            },
            PlayerNotice::TournamentStarted {
                tournament: 2,
                name: "cup".into(),
                season: Some(1),
            },
            PlayerNotice::TournamentRound {
                tournament: 2,
                name: "cup".into(),
                round: 3,
            },
            PlayerNotice::TournamentOver {
                tournament: 2,
                name: "cup".into(),
                rank: 1,
                points: 2.5,
            },
            PlayerNotice::TournamentCancelled {
                tournament: 2,
                name: "cup".into(),
                cancelled: true,
            },
        ];
        for notice in notices {
            let payload = notice.to(7).payload_value();
            let fields = payload.as_object().unwrap_or_else(|| panic!("{payload} is an object"));
            assert!(!fields.contains_key("game"), "{}: {payload}", notice.kind());
        }
    }

    #[test]
    fn notices_keep_their_kinds_and_payloads() {
        let started = PlayerNotice::GameStarted {}.to(7);
        assert_eq!(
            (started.player_id, started.kind, started.payload_value()),
            (7, "game_started", json!({}))
        );
        let shift = RatingShift {
            seat: Seat::from(1),
            player: "bob".into(),
            before: 1500.0,
            after: 1662.5,
            rd_before: 350.0,
            rd_after: 290.0,
            provisional: true,
        };
        let over = PlayerNotice::GameOver {
            outcome: Ending::Agreement,
            ratings: vec![shift.clone()],
        }
        .to(7);
        assert_eq!(
            over.payload_value(),
            json!({ "outcome": { "winners": [], "reason": "agreement" }, "ratings": [{ "seat": 1,
                    "player": "bob", "before": 1500.0, "after": 1662.5, "rd_before": 350.0,
                    "rd_after": 290.0, "provisional": true }] })
        );
        let finished = GameEvent::Finished {
            ending: Ending::Agreement,
            ratings: vec![shift],
        }
        .to_stored();
        let finished = finished.payload_value();
        assert_eq!(finished["reason"], "agreement");
        assert_eq!(finished["ratings"][0]["after"], 1662.5);
        let unrated = GameEvent::Finished {
            ending: Ending::Agreement,
            ratings: Vec::new(),
        }
        .to_stored();
        assert_eq!(unrated.payload_value(), json!({ "winners": [], "reason": "agreement" }));
        let over = PlayerNotice::Aborted { aborted: true }.to(7);
        assert_eq!(
            (over.kind, over.payload_value()),
            ("game_over", json!({ "aborted": true }))
        );
        let turn = PlayerNotice::YourTurn {
            ply: 0,
            seat: Seat::from(1),
            deadline: None,
        }
        .to(7);
        assert_eq!(
            (turn.kind, turn.payload_value()),
            ("your_turn", json!({ "ply": 0, "seat": 1 }))
        );
    }
}
