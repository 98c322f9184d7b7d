//! One question asked of the rules: "here is a game and its moves, where does
//! it stand?" Answered the same way by `tavoliere rules` (JSON lines) and the
//! server's `POST /rules/analyze`.

use serde::{Deserialize, Serialize};

use super::{AnyGame, EndReason, ReplayOrUnknown, Seat, View};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub game: String,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Finished,
}

/// Where a game stands after its moves.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    pub status: Status,
    pub to_move: Option<Seat>,
    pub legal: Vec<String>,
    /// `null` while the game goes on; the winning seats (empty for a draw) once over.
    pub winners: Option<Vec<Seat>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<EndReason>,
}

impl Standing {
    pub fn of(game: &AnyGame) -> Standing {
        let outcome = game.outcome();
        Standing {
            status: if outcome.is_some() {
                Status::Finished
            } else {
                Status::Active
            },
            to_move: game.to_move(),
            legal: game.legal_moves(),
            winners: outcome.map(|o| o.winners.to_vec()),
            reason: outcome.map(|o| o.reason),
        }
    }
}

/// A refused request: `index` is the 0-based index of the first bad move, or
/// `None` when the game or variant is unknown.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Refusal {
    pub error: String,
    pub index: Option<usize>,
}

impl From<ReplayOrUnknown> for Refusal {
    fn from(error: ReplayOrUnknown) -> Refusal {
        match error {
            ReplayOrUnknown::Unknown(e) => Refusal {
                error: e.to_string(),
                index: None,
            },
            ReplayOrUnknown::Move(e) => Refusal {
                error: e.error.to_string(),
                index: Some(e.index),
            },
        }
    }
}

/// Replays the request's moves; the game reached, or why it cannot be.
pub fn replay(request: &Request) -> Result<AnyGame, Refusal> {
    Ok(AnyGame::replay(
        &request.game,
        request.variant.as_deref(),
        &request.moves,
    )?)
}

/// The answer of `tavoliere rules` to one request.
pub fn standing(request: &Request) -> Result<Standing, Refusal> {
    replay(request).map(|game| Standing::of(&game))
}

/// The standing and the position view: what the server's analysis answers.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    #[serde(flatten)]
    pub standing: Standing,
    pub ply: u32,
    pub view: View,
}

pub fn analyze(request: &Request) -> Result<Analysis, Refusal> {
    let game = replay(request)?;
    Ok(Analysis {
        standing: Standing::of(&game),
        ply: game.ply(),
        view: game.view(),
    })
}
