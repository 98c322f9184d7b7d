//! What a tournament does next, decided purely from its record: its start
//! (or cancellation), and what one of its games ending does — nothing yet,
//! the next Swiss round, a league's next season, or the end. A [`Plan`]
//! names players and pairs; the service makes the games and writes it.

use serde_json::Value;

use super::pairing::{league, round_robin, swiss, Pair};
use super::standings::{standings, Played, Score, Standing, Tiebreaks};
use crate::games::{PlayerNotice, FORFEIT};
use crate::store::{PairingRow, TournamentFormat, TournamentRecord, TournamentStatus};

/// A pairing to make: `round` (a league's season), `grp` (a league's group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Planned {
    pub round: i64,
    pub grp: i64,
    pub pair: Pair,
}

/// What the tournament becomes, and what it makes and tells.
#[derive(Clone, Debug)]
pub struct Plan {
    pub status: TournamentStatus,
    pub round: i64,
    pub pairings: Vec<Planned>,
    /// `(player, group)`: a league's groups for the new season.
    pub groups: Vec<(i64, Option<i64>)>,
    pub notices: Vec<(i64, PlayerNotice)>,
}

impl Plan {
    /// The tournament as it is (its revision still moves on).
    fn unchanged(record: &TournamentRecord) -> Plan {
        Plan {
            status: record.row.status,
            round: record.row.round,
            pairings: Vec::new(),
            groups: Vec::new(),
            notices: Vec::new(),
        }
    }
}

/// How a finished game's stored outcome scores, seat 0 first.
pub fn score_of(outcome: Option<&Value>) -> Option<Score> {
    let winners: Vec<i64> = outcome?
        .get("winners")?
        .as_array()?
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    match winners.as_slice() {
        [] => Some(Score::Draw),
        [0] => Some(Score::FirstWins),
        [1] => Some(Score::SecondWins),
        _ => None,
    }
}

/// Whether a pairing's game ended by forfeit.
pub fn is_forfeit(pairing: &PairingRow) -> bool {
    pairing
        .outcome
        .as_ref()
        .and_then(|o| o.get("reason"))
        .and_then(Value::as_str)
        == Some(FORFEIT)
}

/// A pairing as standings read it, and whether it is over (a bye always is).
fn played(pairing: &PairingRow) -> (Played, bool) {
    let done = pairing.game_id.is_none() || matches!(pairing.status.as_deref(), Some("finished" | "aborted"));
    let score = match pairing.status.as_deref() {
        Some("finished") => score_of(pairing.outcome.as_ref()),
        _ => None,
    };
    let played = Played {
        first: pairing.first_id,
        second: pairing.second_id,
        score,
    };
    (played, done)
}

/// A Swiss's rounds: as asked, or enough to single out a winner
/// (⌈log₂ n⌉), never more than the field can play without repeats.
pub fn swiss_rounds(asked: i64, players: usize) -> i64 {
    let players = players.max(2) as i64;
    let enough = 64 - (players - 1).leading_zeros() as i64;
    let rounds = if asked > 0 { asked } else { enough };
    rounds.clamp(1, players - 1)
}

fn tiebreaks(format: TournamentFormat) -> Tiebreaks {
    match format {
        TournamentFormat::Swiss => Tiebreaks::Buchholz,
        TournamentFormat::RoundRobin | TournamentFormat::League => Tiebreaks::SonnebornBerger,
    }
}

/// The league's groups this season, each in seed order: `(group, players)`.
pub fn season_groups(record: &TournamentRecord) -> Vec<(i64, Vec<i64>)> {
    let mut groups: Vec<(i64, Vec<i64>)> = Vec::new();
    for e in &record.entrants {
        let Some(g) = e.grp else { continue };
        match groups.iter_mut().find(|(id, _)| *id == g) {
            Some((_, players)) => players.push(e.player_id),
            None => groups.push((g, vec![e.player_id])),
        }
    }
    groups.sort_by_key(|(g, _)| *g);
    groups
}

/// The standings of the whole tournament, or of one league group this
/// season.
pub fn standings_of(record: &TournamentRecord, group: Option<i64>) -> Vec<Standing> {
    let (players, pairings): (Vec<i64>, Vec<&PairingRow>) = match group {
        Some(g) => (
            record
                .entrants
                .iter()
                .filter(|e| e.grp == Some(g))
                .map(|e| e.player_id)
                .collect(),
            record
                .pairings
                .iter()
                .filter(|p| p.round == record.row.round && p.grp == g)
                .collect(),
        ),
        None => (
            record.entrants.iter().map(|e| e.player_id).collect(),
            record.pairings.iter().collect(),
        ),
    };
    let games: Vec<Played> = pairings.into_iter().map(|p| played(p).0).collect();
    standings(&players, &games, tiebreaks(record.row.settings.format))
}

/// The start of an open tournament with enough players.
pub fn start(record: &TournamentRecord) -> Plan {
    let row = &record.row;
    let players: Vec<i64> = record.entrants.iter().map(|e| e.player_id).collect();
    let mut plan = Plan::unchanged(record);
    plan.status = TournamentStatus::Active;
    match row.settings.format {
        TournamentFormat::RoundRobin => {
            let rounds = round_robin::schedule(&players, row.settings.double_rr);
            plan.round = rounds.len() as i64;
            plan.pairings = (1..)
                .zip(rounds)
                .flat_map(|(round, pairs)| pairs.into_iter().map(move |pair| Planned { round, grp: 0, pair }))
                .collect();
        }
        TournamentFormat::Swiss => {
            plan.round = 1;
            plan.pairings = swiss_round(record, 1);
        }
        TournamentFormat::League => {
            let groups = league::first_season(&players, row.settings.group_size as usize);
            season(record, &mut plan, 1, &groups);
        }
    }
    let season = (row.settings.format == TournamentFormat::League).then_some(1);
    plan.notices = players.iter().map(|&p| (p, started(record, season))).collect();
    plan
}

/// An open tournament called off: everyone told.
pub fn cancel(record: &TournamentRecord) -> Plan {
    let mut plan = Plan::unchanged(record);
    plan.status = TournamentStatus::Cancelled;
    plan.notices = record
        .entrants
        .iter()
        .map(|e| {
            let notice = PlayerNotice::TournamentCancelled {
                tournament: record.row.id,
                name: record.row.settings.name.clone(),
                cancelled: true,
            };
            (e.player_id, notice)
        })
        .collect();
    plan
}

/// What game `game_id` ending with `score` does to its active tournament.
pub fn after_game(record: &TournamentRecord, game_id: i64, score: Option<Score>) -> Plan {
    let mut record = record.clone();
    for p in record.pairings.iter_mut().filter(|p| p.game_id == Some(game_id)) {
        p.status = Some("finished".to_owned());
        p.outcome = Some(serde_json::json!({ "winners": match score {
            Some(Score::FirstWins) => vec![0],
            Some(Score::SecondWins) => vec![1],
            _ => Vec::new(),
        }}));
        if score.is_none() {
            p.status = Some("aborted".to_owned());
        }
    }
    let record = &record;
    let row = &record.row;
    let current = |p: &&PairingRow| row.settings.format == TournamentFormat::RoundRobin || p.round == row.round;
    if !record.pairings.iter().filter(current).all(|p| played(p).1) {
        return Plan::unchanged(record);
    }
    match row.settings.format {
        TournamentFormat::RoundRobin => over(record),
        TournamentFormat::Swiss => {
            let next = row.round + 1;
            let active = record.entrants.iter().filter(|e| e.left_at.is_none()).count();
            if next > swiss_rounds(row.settings.rounds, record.entrants.len()) || active < 2 {
                return over(record);
            }
            let mut plan = Plan::unchanged(record);
            plan.round = next;
            plan.pairings = swiss_round(record, next);
            plan
        }
        TournamentFormat::League => next_season(record),
    }
}

/// The end: everyone told their place.
fn over(record: &TournamentRecord) -> Plan {
    let mut plan = Plan::unchanged(record);
    plan.status = TournamentStatus::Finished;
    let lines: Vec<Standing> = match record.row.settings.format {
        TournamentFormat::League => season_groups(record)
            .into_iter()
            .flat_map(|(g, _)| standings_of(record, Some(g)))
            .collect(),
        _ => standings_of(record, None),
    };
    plan.notices = lines
        .iter()
        .map(|s| {
            let notice = PlayerNotice::TournamentOver {
                tournament: record.row.id,
                name: record.row.settings.name.clone(),
                rank: s.rank,
                points: s.points,
            };
            (s.player, notice)
        })
        .collect();
    plan
}

fn started(record: &TournamentRecord, season: Option<i64>) -> PlayerNotice {
    PlayerNotice::TournamentStarted {
        tournament: record.row.id,
        name: record.row.settings.name.clone(),
        season,
    }
}

/// Round `round` of a Swiss: its players who have not left, from what
/// they played before.
fn swiss_round(record: &TournamentRecord, round: i64) -> Vec<Planned> {
    let entrants: Vec<swiss::Entrant> = record
        .entrants
        .iter()
        .filter(|e| e.left_at.is_none())
        .map(|e| {
            let mut entrant = swiss::Entrant {
                id: e.player_id,
                points2: 0,
                opponents: Vec::new(),
                seat_balance: 0,
                last_first: None,
                had_bye: false,
            };
            for p in record.pairings.iter().filter(|p| p.has(e.player_id)) {
                let (played, _) = played(p);
                let first = p.first_id == e.player_id;
                match p.second_id {
                    None => {
                        entrant.had_bye = true;
                        entrant.points2 += 2;
                    }
                    Some(second) => {
                        entrant.opponents.push(if first { second } else { p.first_id });
                        entrant.seat_balance += if first { 1 } else { -1 };
                        entrant.last_first = Some(first);
                        entrant.points2 += match (played.score, first) {
                            (Some(Score::Draw), _) => 1,
                            (Some(Score::FirstWins), true) | (Some(Score::SecondWins), false) => 2,
                            _ => 0,
                        };
                    }
                }
            }
            entrant
        })
        .collect();
    swiss::pair_round(&entrants, round)
        .into_iter()
        .map(|pair| Planned { round, grp: 0, pair })
        .collect()
}

/// When every game of a season is over: the next one, with promotion and
/// relegation, or the end when too few remain.
fn next_season(record: &TournamentRecord) -> Plan {
    let stays = |p: &i64| record.entrants.iter().any(|e| e.player_id == *p && e.left_at.is_none());
    let ranked: Vec<Vec<i64>> = season_groups(record)
        .into_iter()
        .map(|(g, _)| {
            standings_of(record, Some(g))
                .into_iter()
                .map(|s| s.player)
                .filter(stays)
                .collect()
        })
        .collect();
    let newcomers: Vec<i64> = record
        .entrants
        .iter()
        .filter(|e| e.grp.is_none() && e.left_at.is_none())
        .map(|e| e.player_id)
        .collect();
    let groups = league::next_season(&ranked, &newcomers, record.row.settings.group_size as usize);
    if groups.is_empty() {
        return over(record);
    }
    let mut plan = Plan::unchanged(record);
    let number = record.row.round + 1;
    season(record, &mut plan, number, &groups);
    plan.notices = groups
        .iter()
        .flatten()
        .map(|&p| (p, started(record, Some(number))))
        .collect();
    plan
}

/// Season `number` of a league in `groups`: everyone's group, and every
/// group's round robin.
fn season(record: &TournamentRecord, plan: &mut Plan, number: i64, groups: &[Vec<i64>]) {
    plan.round = number;
    plan.groups = record
        .entrants
        .iter()
        .map(|e| {
            let g = groups.iter().position(|g| g.contains(&e.player_id));
            (e.player_id, g.map(|g| g as i64))
        })
        .collect();
    plan.pairings = (0..)
        .zip(groups)
        .flat_map(|(grp, players)| {
            round_robin::schedule(players, false)
                .into_iter()
                .flatten()
                .map(move |pair| Planned {
                    round: number,
                    grp,
                    pair,
                })
        })
        .collect();
}

impl TournamentRecord {
    /// The name of player `id` of the tournament.
    pub fn name_of(&self, id: i64) -> String {
        self.entrants
            .iter()
            .find(|e| e.player_id == id)
            .map(|e| e.name.clone())
            .unwrap_or_default()
    }
}

impl PairingRow {
    /// Whether `player` is in this pairing.
    pub fn has(&self, player: i64) -> bool {
        self.first_id == player || self.second_id == Some(player)
    }
}
