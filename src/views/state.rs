//! The JSON shapes of a game: its full state, its summary in lists, a move of
//! its history.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::domain::{seats_in, GameStatus, Seat};
use crate::rules::{AnyGame, LegalMoves};
use crate::store::{GameRecord, MoveRow, Player};

/// Unix milliseconds as RFC 3339.
pub fn timestamp(ms: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default()
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatState {
    pub seat: Seat,
    pub colour: &'static str,
    /// Who sits there, or `null` while the seat is open.
    pub player: Option<String>,
    /// Whether the player named (or else the one invited) is a bot account.
    pub bot: bool,
    /// The player the seat is reserved for, until they join or decline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invited: Option<String>,
    /// The sitting player's rating in this variant, once rated there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// Whether that rating is provisional (shown with a `?`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisional: Option<bool>,
}

/// Pending offers: the seats that said yes.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Offers {
    pub draw: Vec<Seat>,
    pub takeback: Vec<Seat>,
}

/// A move of a game's history.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MoveRecord {
    /// The move's number, from 1.
    pub ply: i64,
    pub seat: Seat,
    pub colour: &'static str,
    pub player: String,
    #[serde(rename = "move")]
    pub notation: String,
    /// What the move did, e.g. where a Gravity piece landed.
    pub effect: Option<String>,
    pub message: Option<String>,
    pub at: String,
}

impl MoveRecord {
    pub fn of(record: &GameRecord, row: &MoveRow) -> MoveRecord {
        MoveRecord {
            ply: row.ply,
            seat: row.seat,
            colour: colour(record, row.seat),
            player: row.player_name.clone(),
            notation: row.notation.clone(),
            effect: row.effect.clone(),
            message: row.message.clone(),
            at: timestamp(row.created_at),
        }
    }
}

fn colour(record: &GameRecord, seat: Seat) -> &'static str {
    super::variant_info(&record.row)
        .ok()
        .and_then(|(_, v)| v.seats.get(seat.index()).copied())
        .unwrap_or("?")
}

fn seats(record: &GameRecord) -> Vec<SeatState> {
    record
        .seats
        .iter()
        .map(|s| SeatState {
            seat: s.seat,
            colour: colour(record, s.seat),
            player: s.player.as_ref().map(|(_, name)| name.clone()),
            bot: s.bot,
            invited: match (&s.player, &s.invitee) {
                (None, Some((_, name))) => Some(name.clone()),
                _ => None,
            },
            rating: s.rating.map(|(rating, _)| rating.round()),
            provisional: s.rating.map(|(_, rd)| crate::ratings::is_provisional(rd)),
        })
        .collect()
}

/// A game in lists.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: i64,
    pub game: String,
    pub variant: String,
    /// open, active, finished or aborted.
    pub status: GameStatus,
    pub public: bool,
    pub ply: i64,
    pub to_move: Option<Seat>,
    pub seats: Vec<SeatState>,
    /// Once finished: `{"reason": code, "message": "…", "winners": [seats],
    /// "winner_names": [players]}`.
    #[schema(value_type = Option<Object>)]
    pub outcome: Option<Value>,
    /// Whether the game's end changes its players' ratings.
    pub rated: bool,
    /// Who may take an open seat, by rating.
    pub rating_min: Option<i64>,
    pub rating_max: Option<i64>,
    /// The game this one is a rematch of.
    pub rematch_of: Option<i64>,
    /// The rematch offered after this game.
    pub rematch: Option<i64>,
    pub created_at: String,
    pub updated_at: String,
}

impl GameSummary {
    pub fn of(record: &GameRecord) -> GameSummary {
        let row = &record.row;
        GameSummary {
            id: row.id,
            game: row.game.clone(),
            variant: row.variant.clone(),
            status: row.status,
            public: row.public,
            ply: row.ply,
            to_move: row.to_move,
            seats: seats(record),
            outcome: row.outcome.as_ref().map(|o| super::outcome::outcome(o, Some(record))),
            rated: row.rated,
            rating_min: row.rating_min,
            rating_max: row.rating_max,
            rematch_of: row.rematch_of,
            rematch: row.rematch,
            created_at: timestamp(row.created_at),
            updated_at: timestamp(row.updated_at),
        }
    }
}

/// The answer to a move: the move as stored and the game after it.
#[derive(Debug, Serialize, ToSchema)]
pub struct MoveAnswer {
    /// `false` when this was a retry of a move already stored.
    pub created: bool,
    #[serde(rename = "move")]
    pub record: MoveRecord,
    pub game: GameState,
}

/// The lean answer to a move (`Prefer: return=minimal`, or `"return":
/// "minimal"` over the WebSocket): the move as stored and where the game
/// now stands, without its position, seats or clock. For scripts and bots
/// that keep the position themselves.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeanMoveAnswer {
    /// `false` when this was a retry of a move already stored.
    pub created: bool,
    #[serde(rename = "move")]
    pub record: MoveRecord,
    pub game_id: i64,
    /// open, active, finished or aborted.
    pub status: GameStatus,
    /// The game's number of moves now (a conditional reply committed with
    /// the move counts).
    pub ply: i64,
    pub to_move: Option<Seat>,
    /// The game's last event number: clients resume from it.
    pub seq: i64,
    /// Once finished, as in the full state.
    #[schema(value_type = Option<Object>)]
    pub outcome: Option<Value>,
    /// The last move played: this one, or the conditional reply to it.
    pub last_move: Option<MoveRecord>,
    /// The legal moves now, only when asked for (`?legal=true`, or
    /// `"legal": true`); empty when the game is not active.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    pub legal: Option<LegalMoves>,
}

impl LeanMoveAnswer {
    /// `stored` is the move asked for, `last` the last move of `game` (the
    /// position after it) in `record`.
    pub fn build(
        created: bool,
        record: &GameRecord,
        game: &AnyGame,
        stored: &MoveRow,
        last: Option<&MoveRow>,
        legal: bool,
    ) -> LeanMoveAnswer {
        let row = &record.row;
        let move_record = MoveRecord::of(record, stored);
        // Most often the last move is this one: its record (and its time's
        // formatting) built once, and copied.
        let last_move = last.map(|m| {
            if std::ptr::eq(m, stored) {
                move_record.clone()
            } else {
                MoveRecord::of(record, m)
            }
        });
        LeanMoveAnswer {
            created,
            record: move_record,
            game_id: row.id,
            status: row.status,
            ply: row.ply,
            to_move: row.to_move,
            seq: row.event_seq,
            outcome: row.outcome.as_ref().map(|o| super::outcome::outcome(o, Some(record))),
            last_move,
            legal: legal.then(|| match row.status {
                GameStatus::Active => game.legal(),
                _ => LegalMoves::default(),
            }),
        }
    }
}

/// Either answer to a move: the full one (the default) or the lean one.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum MoveReply {
    Full(Box<MoveAnswer>),
    Lean(Box<LeanMoveAnswer>),
}

impl MoveReply {
    /// `false` when this was a retry of a move already stored.
    pub fn created(&self) -> bool {
        match self {
            MoveReply::Full(answer) => answer.created,
            MoveReply::Lean(answer) => answer.created,
        }
    }

    pub fn is_lean(&self) -> bool {
        matches!(self, MoveReply::Lean(_))
    }
}

/// The lean answer to an action on a game: creating or joining it,
/// resigning, an offer, an abort, a rematch (`Prefer: return=minimal`).
/// Where the game stands without its position, seats or clock, for
/// scripts and bots that then follow it by its events (subscribing with
/// `since` = `seq`) or by lean move answers.
///
/// Exactly these fields (`deny_unknown_fields` makes its schema say so):
/// every one of them is in the whole state too, which would otherwise
/// read as a lean one under [`GameReply`]'s `oneOf`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LeanGameState {
    pub id: i64,
    pub game: String,
    pub variant: String,
    /// open, active, finished or aborted.
    pub status: GameStatus,
    pub ply: i64,
    pub to_move: Option<Seat>,
    /// The asker's seat, if they sit at this game.
    pub your_seat: Option<Seat>,
    /// The game's last event number: clients follow the game from it.
    pub seq: i64,
    /// Once finished, as in the full state.
    #[schema(value_type = Option<Object>)]
    pub outcome: Option<Value>,
    /// A private game's invitation code, as in the full state (to its
    /// participants only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_code: Option<String>,
    /// The legal moves now, only when asked for (`?legal=true`); empty
    /// when the game is not active.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<String>>)]
    pub legal: Option<LegalMoves>,
}

/// What a player wants back from a move or another action on a game: the
/// whole game (people's clients), or the lean answer (scripts and bots),
/// with the legal moves or without.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnswerShape {
    #[default]
    Full,
    Lean {
        legal: bool,
    },
}

/// Either answer to an action on a game: the whole state (the default) or
/// the lean one.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum GameReply {
    Full(Box<GameState>),
    Lean(Box<LeanGameState>),
}

impl GameReply {
    /// `state` in the shape asked for.
    pub fn shaped(state: GameState, shape: AnswerShape) -> GameReply {
        match shape {
            AnswerShape::Full => GameReply::Full(Box::new(state)),
            AnswerShape::Lean { legal } => GameReply::Lean(Box::new(state.lean(legal))),
        }
    }

    pub fn is_lean(&self) -> bool {
        matches!(self, GameReply::Lean(_))
    }
}

/// Everything a client needs to show a game and move in it.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameState {
    #[serde(flatten)]
    pub summary: GameSummary,
    /// Present when the state is the game as it was after move `at_ply`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_ply: Option<i64>,
    /// `true` when this is a past position (`?ply=N` before the last move):
    /// `ply`, `to_move`, `legal` and `view` are the game's after move N,
    /// the rest (status, seats, offers, clock) is the game as it is now.
    pub past: bool,
    /// The viewer's seat, if they sit at this game.
    pub your_seat: Option<Seat>,
    /// The player whose turn it is.
    pub to_move_player: Option<String>,
    /// The legal moves of the position shown: empty when it is the game as
    /// it is and that is not active, or a position where the game was over.
    #[schema(value_type = Vec<String>)]
    pub legal: LegalMoves,
    /// The position: every cell with its stack, per-seat reserves.
    #[schema(value_type = Object)]
    pub view: crate::rules::View,
    pub offers: Offers,
    pub last_move: Option<MoveRecord>,
    /// The game's last event number: clients resume from it.
    pub seq: i64,
    /// `null` without a time control.
    pub clock: Option<crate::clock::ClockView>,
    /// A private game's invitation code, shown to its participants only:
    /// whoever has it may take an open seat (`POST …/join {"code": …}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_code: Option<String>,
    /// The web client's page for joining with the code, from the server's root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invite_url: Option<String>,
}

impl GameState {
    pub fn build(
        record: &GameRecord,
        game: &AnyGame,
        viewer: Option<&Player>,
        last_move: Option<&MoveRow>,
        at_ply: Option<i64>,
    ) -> GameState {
        let row = &record.row;
        let mut summary = GameSummary::of(record);
        let ply = i64::from(game.ply());
        let active = row.status == GameStatus::Active;
        if at_ply.is_some() {
            summary.ply = ply;
            summary.to_move = if active || ply < row.ply {
                game.to_move().map(Seat::from)
            } else {
                None
            };
        }
        let to_move_player = summary.to_move.and_then(|seat| {
            record
                .seats
                .iter()
                .find(|s| s.seat == seat)
                .and_then(|s| s.player.as_ref().map(|(_, n)| n.clone()))
        });
        // A past position had its legal moves whatever became of the game.
        let past = at_ply.is_some_and(|at| at < row.ply);
        let legal = if (active && at_ply.is_none()) || (past && game.outcome().is_none()) {
            game.legal()
        } else {
            LegalMoves::default()
        };
        let n = record.seats.len();
        let invite_code = record.invite_code_for(viewer).map(str::to_owned);
        GameState {
            invite_url: invite_code.as_ref().map(|code| format!("/game/{}?code={code}", row.id)),
            invite_code,
            summary,
            at_ply,
            past,
            your_seat: viewer.and_then(|p| record.seat_of(p.id)),
            to_move_player,
            legal,
            view: game.view(),
            offers: Offers {
                draw: seats_in(row.draw_offer, n),
                takeback: seats_in(row.takeback_offer, n),
            },
            last_move: last_move.map(|m| MoveRecord::of(record, m)),
            seq: row.event_seq,
            clock: None,
        }
    }

    /// The lean answer of this state: its legal moves kept when `legal`.
    pub fn lean(self, legal: bool) -> LeanGameState {
        let summary = self.summary;
        LeanGameState {
            id: summary.id,
            game: summary.game,
            variant: summary.variant,
            status: summary.status,
            ply: summary.ply,
            to_move: summary.to_move,
            your_seat: self.your_seat,
            seq: self.seq,
            outcome: summary.outcome,
            invite_code: self.invite_code,
            legal: legal.then_some(self.legal),
        }
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
