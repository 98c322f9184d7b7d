//! Presentation: what a stored game looks like to people and clients. The
//! JSON shapes of a game's state, summary and moves ([`state`]), its record
//! and transcript ([`record`]), its board as SVG or text ([`board`]), and
//! its events as every door sends them ([`event`]), and how it ended
//! ([`outcome`]).
//!
//! Views only read: they take a stored game and its position and never
//! change, load or decide anything, so the HTTP API, the WebSocket and the
//! mails show a game the same way.

pub mod board;
pub mod event;
pub mod outcome;
pub mod record;
pub mod state;

pub use event::EventView;
pub use state::{
    timestamp, AnswerShape, GameReply, GameState, GameSummary, LeanGameState, LeanMoveAnswer, MoveAnswer, MoveRecord,
    MoveReply, Offers, SeatState,
};

use crate::rules::catalogue::{self, GameInfo, VariantInfo};
use crate::rules::{AnyGame, UnknownGame, View};
use crate::store::{GameRecord, GameRow, MoveRow};

/// What a game looked like at some ply, for boards.
pub struct Snapshot {
    pub record: GameRecord,
    pub game: AnyGame,
    pub view: View,
    /// The view before the last move shown, to mark what it changed.
    pub previous: Option<View>,
    pub last_move: Option<MoveRow>,
}

/// A frame or payload as JSON text. Through `serde_json::to_string`, not
/// `Value`'s `Display`, which writes through `fmt` a piece at a time (12.6k
/// instructions a move for the event frames alone; issue 26). Only for
/// shapes that always print: strings for keys, no failing `Serialize`.
pub fn json_text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("a frame prints: its keys are strings, its writer a Vec")
}

/// "Forza 4 Centrifuga", or "Focus — Lines of Focus" when the variant has a
/// name of its own.
pub fn title(info: &GameInfo, variant: &VariantInfo) -> String {
    if variant.name == info.italian {
        info.italian.to_owned()
    } else {
        format!("{} — {}", info.italian, variant.name)
    }
}

/// The catalogue entry of a stored game. A stored game the catalogue does
/// not list means the catalogue changed under it.
pub fn variant_info(row: &GameRow) -> Result<(&'static GameInfo, &'static VariantInfo), UnknownGame> {
    catalogue::find(&row.game, Some(&row.variant))
}
