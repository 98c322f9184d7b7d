//! What a tournament looks like to a client: its settings, its players,
//! its standings (per league group this season), and each round's games
//! with their results, forfeits marked.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::plan::{self, score_of};
use super::standings::{Results, Score, Standing};
use crate::store::{PairingRow, TournamentFormat, TournamentRecord, TournamentRow, TournamentStatus};
use crate::views::timestamp;

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentView {
    pub id: i64,
    pub name: String,
    pub game: String,
    pub variant: String,
    pub format: TournamentFormat,
    pub status: TournamentStatus,
    pub organiser: String,
    /// A Swiss's rounds (when set, or once started); a round robin's rounds.
    pub rounds: Option<i64>,
    /// The round paired last (Swiss), or the season (league).
    pub round: i64,
    pub double: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_size: Option<i64>,
    #[schema(value_type = Object)]
    pub time_control: Option<Value>,
    pub rated: bool,
    pub public: bool,
    pub min_players: i64,
    pub max_players: i64,
    pub starts_at: Option<String>,
    pub created_at: String,
    pub players: Vec<EntrantView>,
    /// One group (the whole field), or a league's groups this season.
    pub groups: Vec<GroupView>,
    /// Each round's pairings (a league's: this season's), in order.
    pub rounds_played: Vec<RoundView>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct EntrantView {
    pub player: String,
    pub seed: i64,
    /// Left after the start: their games were forfeited.
    pub left: bool,
    /// Their league group this season (`null`: waiting for the next).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<i64>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct GroupView {
    /// 0 is the top group.
    pub group: i64,
    pub standings: Vec<StandingView>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct StandingView {
    pub rank: usize,
    pub player: String,
    pub points: f64,
    #[serde(flatten)]
    pub results: Results,
    /// Round robins and leagues.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sonneborn_berger: Option<f64>,
    /// Swiss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buchholz: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_buchholz: Option<f64>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoundView {
    pub round: i64,
    pub group: i64,
    pub pairings: Vec<PairingView>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct PairingView {
    /// `null` for a bye.
    pub game: Option<i64>,
    /// Seat 0.
    pub first: String,
    /// `null` for a bye.
    pub second: Option<String>,
    /// `1-0`, `0-1`, `½-½`, `bye`, or `null` while being played.
    pub result: Option<&'static str>,
    pub forfeit: bool,
}

impl TournamentView {
    pub fn of(record: &TournamentRecord) -> TournamentView {
        let row = &record.row;
        TournamentView {
            id: row.id,
            name: row.settings.name.clone(),
            game: row.settings.game.clone(),
            variant: row.settings.variant.clone(),
            format: row.settings.format,
            status: row.status,
            organiser: row.organiser.clone(),
            rounds: rounds_of(row, record.entrants.len()),
            round: row.round,
            double: row.settings.double_rr,
            group_size: (row.settings.format == TournamentFormat::League).then_some(row.settings.group_size),
            time_control: row.settings.time_control.clone(),
            rated: row.settings.rated,
            public: row.settings.public,
            min_players: row.settings.min_players,
            max_players: row.settings.max_players,
            starts_at: row.settings.starts_at.map(timestamp),
            created_at: timestamp(row.created_at),
            players: record
                .entrants
                .iter()
                .map(|e| EntrantView {
                    player: e.name.clone(),
                    seed: e.seed,
                    left: e.left_at.is_some(),
                    group: e.grp,
                })
                .collect(),
            groups: groups_of(record),
            rounds_played: rounds_played(record),
        }
    }
}

/// The standings: the whole field's, or each league group's this season.
/// Tiebreaks are the format's own: Buchholz for a Swiss,
/// Sonneborn-Berger otherwise.
fn groups_of(record: &TournamentRecord) -> Vec<GroupView> {
    let swiss = record.row.settings.format == TournamentFormat::Swiss;
    let line = |s: Standing| StandingView {
        rank: s.rank,
        player: record.name_of(s.player),
        points: s.points,
        results: s.results,
        sonneborn_berger: (!swiss).then_some(s.sonneborn_berger),
        buchholz: swiss.then_some(s.buchholz),
        median_buchholz: swiss.then_some(s.median_buchholz),
    };
    let group = |group: i64, of: Option<i64>| GroupView {
        group,
        standings: plan::standings_of(record, of).into_iter().map(line).collect(),
    };
    match record.row.settings.format {
        TournamentFormat::League => plan::season_groups(record)
            .into_iter()
            .map(|(g, _)| group(g, Some(g)))
            .collect(),
        TournamentFormat::RoundRobin | TournamentFormat::Swiss => vec![group(0, None)],
    }
}

/// Every round's games in order (a league: this season's), grouped by
/// round and group.
fn rounds_played(record: &TournamentRecord) -> Vec<RoundView> {
    let row = &record.row;
    let mut rounds: Vec<RoundView> = Vec::new();
    let shown = record
        .pairings
        .iter()
        .filter(|p| row.settings.format != TournamentFormat::League || p.round == row.round);
    for p in shown {
        let pairing = PairingView {
            game: p.game_id,
            first: record.name_of(p.first_id),
            second: p.second_id.map(|id| record.name_of(id)),
            result: result(p),
            forfeit: plan::is_forfeit(p),
        };
        match rounds.last_mut() {
            Some(r) if r.round == p.round && r.group == p.grp => r.pairings.push(pairing),
            _ => rounds.push(RoundView {
                round: p.round,
                group: p.grp,
                pairings: vec![pairing],
            }),
        }
    }
    rounds
}

/// A Swiss's rounds once known; a round robin's once scheduled.
fn rounds_of(row: &TournamentRow, players: usize) -> Option<i64> {
    match (row.settings.format, row.status) {
        (TournamentFormat::Swiss, TournamentStatus::Open) => (row.settings.rounds > 0).then_some(row.settings.rounds),
        (TournamentFormat::Swiss, _) => Some(plan::swiss_rounds(row.settings.rounds, players)),
        (TournamentFormat::RoundRobin, TournamentStatus::Open) => None,
        (TournamentFormat::RoundRobin, _) => Some(row.round),
        (TournamentFormat::League, _) => None,
    }
}

fn result(p: &PairingRow) -> Option<&'static str> {
    if p.second_id.is_none() {
        return Some("bye");
    }
    if p.status.as_deref() != Some("finished") {
        return None;
    }
    Some(match score_of(p.outcome.as_ref())? {
        Score::FirstWins => "1-0",
        Score::SecondWins => "0-1",
        Score::Draw => "½-½",
    })
}
