//! The JSON shapes of a game: its full state, its summary in lists, a move of
//! its history.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::domain::{GameStatus, Seat};
use crate::error::Result;
use crate::rules::AnyGame;
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
    pub seat: i64,
    pub colour: &'static str,
    /// Who sits there, or `null` while the seat is open.
    pub player: Option<String>,
    /// The player the seat is reserved for, until they join or decline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invited: Option<String>,
}

/// Pending offers: the seats that said yes.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct Offers {
    pub draw: Vec<i64>,
    pub takeback: Vec<i64>,
}

/// A move of a game's history.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct MoveRecord {
    /// The move's number, from 1.
    pub ply: i64,
    pub seat: i64,
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
            seat: i64::from(row.seat),
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
            seat: i64::from(s.seat),
            colour: colour(record, s.seat),
            player: s.player.as_ref().map(|(_, name)| name.clone()),
            invited: match (&s.player, &s.invitee) {
                (None, Some((_, name))) => Some(name.clone()),
                _ => None,
            },
        })
        .collect()
}

fn bits(mask: i64, seats: usize) -> Vec<i64> {
    (0..seats as i64).filter(|s| mask & (1 << s) != 0).collect()
}

/// A game in lists.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: i64,
    pub game: String,
    pub variant: String,
    /// open, active, finished or aborted.
    pub status: String,
    pub public: bool,
    pub ply: i64,
    pub to_move: Option<i64>,
    pub seats: Vec<SeatState>,
    /// `{"winners": [seats], "reason": "…"}` once finished.
    #[schema(value_type = Option<Object>)]
    pub outcome: Option<Value>,
    pub created_at: String,
    pub updated_at: String,
}

impl GameSummary {
    pub fn of(record: &GameRecord) -> Result<GameSummary> {
        let row = &record.row;
        Ok(GameSummary {
            id: row.id,
            game: row.game.clone(),
            variant: row.variant.clone(),
            status: row.status.to_string(),
            public: row.public,
            ply: row.ply,
            to_move: row.to_move.map(i64::from),
            seats: seats(record),
            outcome: row.outcome.clone(),
            created_at: timestamp(row.created_at),
            updated_at: timestamp(row.updated_at),
        })
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
    /// The viewer's seat, if they sit at this game.
    pub your_seat: Option<i64>,
    /// The player whose turn it is.
    pub to_move_player: Option<String>,
    /// The legal moves (empty unless the game is active).
    pub legal: Vec<String>,
    /// The position: every cell with its stack, per-seat reserves.
    #[schema(value_type = Object)]
    pub view: crate::rules::View,
    pub offers: Offers,
    pub last_move: Option<MoveRecord>,
    /// The game's last event number: clients resume from it.
    pub seq: i64,
    /// `null` without a time control.
    pub clock: Option<crate::clock::ClockView>,
}

impl GameState {
    pub fn build(
        record: &GameRecord,
        game: &AnyGame,
        viewer: Option<&Player>,
        last_move: Option<&MoveRow>,
        at_ply: Option<i64>,
    ) -> Result<GameState> {
        let row = &record.row;
        let mut summary = GameSummary::of(record)?;
        let ply = i64::from(game.ply());
        let active = row.status == GameStatus::Active;
        if at_ply.is_some() {
            summary.ply = ply;
            summary.to_move = if active || ply < row.ply {
                game.to_move().map(i64::from)
            } else {
                None
            };
        }
        let to_move_player = summary.to_move.and_then(|seat| {
            record
                .seats
                .iter()
                .find(|s| i64::from(s.seat) == seat)
                .and_then(|s| s.player.as_ref().map(|(_, n)| n.clone()))
        });
        let legal = if active && at_ply.is_none() {
            game.legal_moves()
        } else {
            Vec::new()
        };
        let n = record.seats.len();
        Ok(GameState {
            summary,
            at_ply,
            your_seat: viewer.and_then(|p| super::seat_of(record, p.id)).map(i64::from),
            to_move_player,
            legal,
            view: game.view(),
            offers: Offers {
                draw: bits(row.draw_offer, n),
                takeback: bits(row.takeback_offer, n),
            },
            last_move: last_move.map(|m| MoveRecord::of(record, m)),
            seq: row.event_seq,
            clock: None,
        })
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
