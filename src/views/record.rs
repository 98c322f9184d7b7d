//! A game's record: headers, players, result and moves, as JSON or as the
//! seed's transcription (numbered rounds, one column per player).

use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::outcome::winner_seats;
use super::state::timestamp;
use crate::domain::{GameStatus, Seat};
use crate::rules::{Concession, UnknownGame};
use crate::store::{GameRecord, MoveRow};

#[derive(Debug, Serialize, ToSchema)]
pub struct RecordHeaders {
    pub site: &'static str,
    pub id: i64,
    pub game: String,
    pub game_name: String,
    pub variant: String,
    pub variant_name: String,
    /// The game and variant names together, for people.
    pub title: String,
    pub date: String,
    pub status: GameStatus,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecordPlayer {
    pub seat: Seat,
    pub colour: &'static str,
    pub name: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecordMove {
    pub ply: i64,
    pub seat: Seat,
    #[serde(rename = "move")]
    pub notation: String,
    pub effect: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameRecordJson {
    pub headers: RecordHeaders,
    pub players: Vec<RecordPlayer>,
    /// The game's `outcome` (see `GameSummary`), or `null` while unfinished.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
    pub moves: Vec<RecordMove>,
}

pub fn json(record: &GameRecord, moves: &[MoveRow]) -> Result<GameRecordJson, UnknownGame> {
    let (info, variant) = super::variant_info(&record.row)?;
    let row = &record.row;
    Ok(GameRecordJson {
        headers: RecordHeaders {
            site: "Tavoliere",
            id: row.id,
            game: row.game.clone(),
            game_name: info.italian.to_owned(),
            variant: row.variant.clone(),
            variant_name: variant.name.to_owned(),
            title: super::title(info, variant),
            date: timestamp(row.created_at),
            status: row.status,
        },
        players: record
            .seats
            .iter()
            .map(|s| RecordPlayer {
                seat: s.seat,
                colour: variant.seats.get(s.seat.index()).copied().unwrap_or("?"),
                name: s.player.as_ref().map(|(_, n)| n.clone()),
            })
            .collect(),
        result: row.outcome.as_ref().map(|o| super::outcome::outcome(o, Some(record))),
        moves: moves
            .iter()
            .map(|m| RecordMove {
                ply: m.ply,
                seat: m.seat,
                notation: m.notation.clone(),
                effect: m.effect.clone(),
            })
            .collect(),
    })
}

/// In words: "red wins (4 in a row)", "draw (agreement)".
pub fn result_text(record: &GameRecordJson) -> String {
    let Some(result) = &record.result else {
        return format!("unfinished ({})", record.headers.status);
    };
    let reason = result.get("message").and_then(Value::as_str).unwrap_or("");
    let winners: Vec<&str> = winner_seats(result)
        .filter_map(|seat| {
            record
                .players
                .iter()
                .find(|p| i64::from(p.seat) == seat)
                .map(|p| p.colour)
        })
        .collect();
    if winners.is_empty() {
        format!("draw ({reason})")
    } else {
        format!("{} wins ({reason})", winners.join(" and "))
    }
}

/// The transcription: headers, then one line per round with a column per
/// seat. A round starts whenever the seat order wraps round. Concessions
/// (four-player Focus: a seat out by resigning or on time) are no moves:
/// they are told below the rounds, with the move they came at.
pub fn text(record: &GameRecordJson) -> String {
    let mut out = String::new();
    let h = &record.headers;
    let _ = writeln!(out, "{} — game {} on Tavoliere", h.title, h.id);
    let _ = writeln!(out, "Date: {}", h.date);
    for p in &record.players {
        let _ = writeln!(out, "{}: {}", p.colour, p.name.as_deref().unwrap_or("(open)"));
    }
    let _ = writeln!(out, "Result: {}", result_text(record));
    out.push('\n');
    let seats = record.players.len().max(1);
    let (conceded, moves): (Vec<&RecordMove>, Vec<&RecordMove>) = record
        .moves
        .iter()
        .partition(|m| m.notation.parse::<Concession>().is_ok());
    let width = moves
        .iter()
        .map(|m| m.notation.chars().count())
        .chain(record.players.iter().map(|p| p.colour.chars().count()))
        .max()
        .unwrap_or(4)
        + 2;
    let mut header = "     ".to_owned();
    for p in &record.players {
        let _ = write!(header, "{:<width$}", p.colour);
    }
    out.push_str(header.trim_end());
    out.push('\n');
    let mut rounds: Vec<Vec<Option<&str>>> = Vec::new();
    let mut last_seat: Option<Seat> = None;
    for m in moves {
        if rounds.is_empty() || last_seat.is_some_and(|s| m.seat <= s) {
            rounds.push(vec![None; seats]);
        }
        if let Some(round) = rounds.last_mut() {
            if let Some(cell) = round.get_mut(m.seat.index()) {
                *cell = Some(&m.notation);
            }
        }
        last_seat = Some(m.seat);
    }
    for (n, round) in rounds.iter().enumerate() {
        let mut line = format!("{:>3}. ", n + 1);
        for cell in round {
            let _ = write!(line, "{:<width$}", cell.unwrap_or("..."));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if !conceded.is_empty() {
        out.push('\n');
    }
    for m in conceded {
        let what = m.effect.as_deref().unwrap_or("concedes");
        let _ = writeln!(out, "Move {}: {what} and is out.", m.ply);
    }
    out
}
