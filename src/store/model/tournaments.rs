//! The tournaments' models: a tournament's row, its players and pairings
//! as read, and the writes: a new tournament, a player joining or leaving,
//! and a [`TournamentStep`] (a start, a round paired, a season begun, the
//! end), which the group-commit writers apply in one transaction, with the
//! game end that causes it when there is one.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{NewGame, PlayerEvent};

/// How a tournament pairs its players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentFormat {
    /// Everyone meets everyone; every game made at the start.
    RoundRobin,
    /// A round at a time, by score.
    Swiss,
    /// Seasons of round-robin groups, with promotion and relegation.
    League,
}

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Taking players.
    Open,
    Active,
    Finished,
    /// Never started (too few players by `starts_at`).
    Cancelled,
}

/// A stored spelling that names no format or status.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a tournament format or status")]
pub struct BadTournamentKind(pub String);

/// The one of `all` spelled `s`.
fn spelled<T: Copy>(all: &[T], s: &str, spelling: fn(T) -> &'static str) -> Result<T, BadTournamentKind> {
    all.iter()
        .copied()
        .find(|&t| spelling(t) == s)
        .ok_or_else(|| BadTournamentKind(s.chars().take(40).collect()))
}

impl TournamentFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentFormat::RoundRobin => "round_robin",
            TournamentFormat::Swiss => "swiss",
            TournamentFormat::League => "league",
        }
    }
}

impl FromStr for TournamentFormat {
    type Err = BadTournamentKind;

    fn from_str(s: &str) -> Result<TournamentFormat, BadTournamentKind> {
        use TournamentFormat as F;
        spelled(&[F::RoundRobin, F::Swiss, F::League], s, F::as_str)
    }
}

impl TournamentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Open => "open",
            TournamentStatus::Active => "active",
            TournamentStatus::Finished => "finished",
            TournamentStatus::Cancelled => "cancelled",
        }
    }
}

impl FromStr for TournamentStatus {
    type Err = BadTournamentKind;

    fn from_str(s: &str) -> Result<TournamentStatus, BadTournamentKind> {
        use TournamentStatus as S;
        spelled(&[S::Open, S::Active, S::Finished, S::Cancelled], s, S::as_str)
    }
}

impl fmt::Display for TournamentFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for TournamentStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for TournamentFormat {
    type Error = BadTournamentKind;

    fn try_from(s: String) -> Result<TournamentFormat, BadTournamentKind> {
        s.parse()
    }
}

impl TryFrom<String> for TournamentStatus {
    type Error = BadTournamentKind;

    fn try_from(s: String) -> Result<TournamentStatus, BadTournamentKind> {
        s.parse()
    }
}

/// What an organiser sets when creating a tournament: the part of its row
/// that never changes.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TournamentSettings {
    pub name: String,
    pub game: String,
    pub variant: String,
    #[sqlx(try_from = "String")]
    pub format: TournamentFormat,
    /// A Swiss's rounds (0 elsewhere).
    pub rounds: i64,
    /// A round robin where every pair plays both seats.
    pub double_rr: bool,
    /// A league's group size.
    pub group_size: i64,
    pub time_control: Option<Value>,
    pub rated: bool,
    pub public: bool,
    pub min_players: i64,
    pub max_players: i64,
    pub starts_at: Option<i64>,
}

/// A tournament's own row, with its organiser's name and how many play.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TournamentRow {
    pub id: i64,
    #[sqlx(flatten)]
    pub settings: TournamentSettings,
    pub organiser_id: i64,
    pub organiser: String,
    #[sqlx(try_from = "String")]
    pub status: TournamentStatus,
    /// The Swiss round paired last, or the league's season (0 before the start).
    pub round: i64,
    /// The writers' guard: every change moves it on.
    pub rev: i64,
    pub created_at: i64,
    pub updated_at: i64,
    /// Players in it (those who left included).
    pub players: i64,
}

/// A player of a tournament.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct EntrantRow {
    pub player_id: i64,
    pub name: String,
    /// The order of joining, 1 first.
    pub seed: i64,
    pub joined_at: i64,
    /// When they left after the start (their games forfeited).
    pub left_at: Option<i64>,
    /// Their league group this season; `None` while waiting for the next.
    pub grp: Option<i64>,
}

/// A pairing of a round with its game's status and outcome.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct PairingRow {
    pub round: i64,
    pub grp: i64,
    pub game_id: Option<i64>,
    pub first_id: i64,
    /// `None`: a bye.
    pub second_id: Option<i64>,
    /// The game's status (`None` for a bye).
    pub status: Option<String>,
    pub outcome: Option<Value>,
}

/// A tournament with its players (seed order) and pairings (round order).
#[derive(Clone, Debug)]
pub struct TournamentRecord {
    pub row: TournamentRow,
    pub entrants: Vec<EntrantRow>,
    pub pairings: Vec<PairingRow>,
}

/// What `GET /tournaments` asks for.
#[derive(Clone, Debug, Default)]
pub struct TournamentFilter {
    /// Who asks: private tournaments are listed only to their players.
    pub viewer: Option<i64>,
    pub status: Option<TournamentStatus>,
    pub game: Option<String>,
    pub limit: i64,
}

/// A tournament to create.
#[derive(Clone, Debug)]
pub struct NewTournament {
    pub settings: TournamentSettings,
    pub organiser_id: i64,
    pub now: i64,
}

/// A player joins (`join`) or leaves a tournament, if it is still at
/// `expected_rev`. Leaving before the start removes them; after it, marks
/// them gone.
#[derive(Clone, Debug)]
pub struct EntrantChange {
    pub tournament_id: i64,
    pub expected_rev: i64,
    pub player_id: i64,
    pub change: Entry,
    pub now: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Joins with this seed.
    Join { seed: i64 },
    /// Leaves before the start.
    Remove,
    /// Leaves after the start.
    Withdraw,
}

/// One pairing to write, with its game (none for a bye).
#[derive(Clone, Debug)]
pub struct NewPairing {
    pub round: i64,
    pub grp: i64,
    pub first_id: i64,
    pub second_id: Option<i64>,
    pub game: Option<NewGame>,
}

/// What a tournament does in one transaction: move from `expected_rev`
/// (refused, [`super::super::StoreError::TournamentMoved`], when it moved
/// meanwhile) to `status` and `round`, create the pairings and their
/// games, set league groups, and tell players (`events`, stored as they
/// are: no game named).
#[derive(Clone, Debug)]
pub struct TournamentStep {
    pub tournament_id: i64,
    pub expected_rev: i64,
    pub status: TournamentStatus,
    pub round: i64,
    pub pairings: Vec<NewPairing>,
    /// `(player, group)`: a league's groups for the new season.
    pub groups: Vec<(i64, Option<i64>)>,
    pub events: Vec<PlayerEvent>,
    pub now: i64,
}

impl TournamentStep {
    /// Every player this step tells something: of its own events and its
    /// new games'.
    pub fn players_told(&self) -> Vec<i64> {
        let games = self.pairings.iter().filter_map(|p| p.game.as_ref());
        let mut players: Vec<i64> = self
            .events
            .iter()
            .map(|e| e.player_id)
            .chain(games.flat_map(|g| g.player_events.iter().map(|e| e.player_id)))
            .collect();
        players.sort_unstable();
        players.dedup();
        players
    }
}
