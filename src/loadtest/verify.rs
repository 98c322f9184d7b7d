//! The durability and replay check: after a run (or after a crash and a
//! restart), every game touched is read back over HTTP and
//!
//! - its history has plies 1..n, no gap, no duplicate, n = the game's ply;
//! - the history replays through [`AnyGame`] move by move (same canonical
//!   notation, same seat) to the stored state: status, whose turn, legal
//!   moves, and the outcome the rules give (or, for a resignation, the
//!   winners the rules give for the seat that resigned);
//! - every move the generator saw acknowledged is stored at its ply with
//!   the same notation (else it is *lost*, or *mismatched*);
//! - every tree of conditional moves acknowledged was honoured: a foreseen
//!   move is followed by its reply, never stored alone
//!   ([`super::conditional::check`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{Api, GameView, StoredMove};
use super::conditional::{self, AckedTree};
use super::LoadError;
use crate::rules::{AnyGame, Concession};

/// A move the server acknowledged: one line of the `--acked-out` file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckedMove {
    pub game: i64,
    pub ply: i64,
    #[serde(rename = "move")]
    pub notation: String,
}

/// What the generator saw acknowledged: moves, and trees of conditional
/// moves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    pub moves: Vec<AckedMove>,
    pub trees: Vec<AckedTree>,
}

/// A line of the `--acked-out` file.
#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum Line {
    Move(AckedMove),
    Tree(AckedTree),
}

/// Problems listed in the report, at most; the counts are complete.
const LISTED: usize = 20;

/// The result of the check.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Verification {
    pub games_checked: u64,
    pub moves_stored: u64,
    pub acked_moves: u64,
    /// Acknowledged moves the server does not have.
    pub lost: u64,
    /// Plies stored twice, or acknowledged twice with different moves.
    pub doubled: u64,
    /// Acknowledged moves stored with another notation.
    pub mismatched: u64,
    /// Plies missing from a history (1..n has holes).
    pub gaps: u64,
    /// Games whose history does not replay to their stored state.
    pub replay_failures: u64,
    /// Games that could not be read.
    pub unreadable: u64,
    /// Stored moves nobody saw acknowledged: expected after a crash or a
    /// timed-out request (committed, answer lost), a fault otherwise.
    pub unacknowledged: u64,
    /// Trees of conditional moves acknowledged, and the replies checked
    /// against them.
    pub trees: u64,
    pub replies_checked: u64,
    /// Games whose history breaks a tree: a foreseen move stored without
    /// its reply, or with another.
    pub conditional_failures: u64,
    /// Whether unacknowledged moves count as a failure.
    pub unacknowledged_is_failure: bool,
    /// The first problems, described.
    pub problems: Vec<String>,
    pub passed: bool,
}

impl Verification {
    fn problem(&mut self, text: String) {
        if self.problems.len() < LISTED {
            self.problems.push(text);
        }
    }

    fn conclude(&mut self) {
        self.passed = self.lost == 0
            && self.doubled == 0
            && self.mismatched == 0
            && self.gaps == 0
            && self.replay_failures == 0
            && self.unreadable == 0
            && self.conditional_failures == 0
            && !(self.unacknowledged_is_failure && self.unacknowledged > 0);
    }
}

/// Checks `games` (every game of the run, including those with no move)
/// and every move and tree of `acked`. `strict`: a stored move that was
/// never acknowledged is a failure (a run whose every request was
/// answered).
pub async fn verify(api: &Api, games: &BTreeSet<i64>, acked: &Acked, strict: bool) -> Verification {
    let mut report = Verification {
        acked_moves: acked.moves.len() as u64,
        trees: acked.trees.len() as u64,
        unacknowledged_is_failure: strict,
        ..Verification::default()
    };
    let mut trees: BTreeMap<i64, Vec<&AckedTree>> = BTreeMap::new();
    for tree in &acked.trees {
        trees.entry(tree.game).or_default().push(tree);
    }
    let mut acked_by_game: BTreeMap<i64, BTreeMap<i64, &str>> = BTreeMap::new();
    for record in &acked.moves {
        let plies = acked_by_game.entry(record.game).or_default();
        match plies.get(&record.ply) {
            Some(previous) if *previous != record.notation => {
                report.doubled += 1;
                report.problem(format!(
                    "game {} ply {}: acknowledged twice, as {previous} and as {}",
                    record.game, record.ply, record.notation
                ));
            }
            _ => {
                plies.insert(record.ply, &record.notation);
            }
        }
    }
    let all: BTreeSet<i64> = games.iter().copied().chain(acked_by_game.keys().copied()).collect();
    let empty = BTreeMap::new();
    for game in all {
        report.games_checked += 1;
        let acked = acked_by_game.get(&game).unwrap_or(&empty);
        let mut trees = trees.remove(&game).unwrap_or_default();
        trees.sort_by_key(|t| t.ply);
        check_game(api, game, acked, &trees, &mut report).await;
    }
    report.conclude();
    report
}

async fn check_game(
    api: &Api,
    game: i64,
    acked: &BTreeMap<i64, &str>,
    trees: &[&AckedTree],
    report: &mut Verification,
) {
    let (state, history) = match tokio::try_join!(api.state(game), api.history(game)) {
        Ok(read) => read,
        Err(error) => {
            report.unreadable += 1;
            report.problem(format!("game {game}: cannot be read: {error}"));
            return;
        }
    };
    report.moves_stored += history.len() as u64;
    // Plies: 1..n, each once.
    let mut stored: BTreeMap<i64, &StoredMove> = BTreeMap::new();
    for record in &history {
        if stored.insert(record.ply, record).is_some() {
            report.doubled += 1;
            report.problem(format!("game {game}: ply {} is stored twice", record.ply));
        }
    }
    let highest = stored.keys().next_back().copied().unwrap_or(0);
    let missing = (1..=highest).filter(|ply| !stored.contains_key(ply)).count() as u64;
    if missing > 0 || stored.keys().next().is_some_and(|first| *first < 1) {
        report.gaps += missing.max(1);
        report.problem(format!("game {game}: the history's plies are not 1..{highest}"));
    }
    // Acknowledged moves: stored at their ply, with their notation.
    for (&ply, &notation) in acked {
        match stored.get(&ply) {
            None => {
                report.lost += 1;
                report.problem(format!(
                    "game {game} ply {ply}: {notation} was acknowledged but is not stored"
                ));
            }
            Some(record) if record.notation != notation => {
                report.mismatched += 1;
                report.problem(format!(
                    "game {game} ply {ply}: {notation} was acknowledged but {} is stored",
                    record.notation
                ));
            }
            Some(_) => {}
        }
    }
    // A concession (four-player Focus) is the answer to a resignation, not
    // a move anyone sent.
    report.unacknowledged += stored
        .iter()
        .filter(|(ply, record)| !acked.contains_key(ply) && record.notation.parse::<Concession>().is_err())
        .count() as u64;
    if let Err(reason) = replays(api, &state, &history).await {
        report.replay_failures += 1;
        report.problem(format!("game {game}: {reason}"));
    }
    match conditional::check(&history, trees, state.status == "finished") {
        Ok(replies) => report.replies_checked += replies,
        Err(reason) => {
            report.conditional_failures += 1;
            report.problem(format!("game {game}: {reason}"));
        }
    }
}

/// Replays `history` and compares the result with `state`.
async fn replays(api: &Api, state: &GameView, history: &[StoredMove]) -> Result<(), String> {
    let mut game = AnyGame::new(&state.game, Some(&state.variant)).map_err(|e| e.to_string())?;
    for record in history {
        let played = game
            .play_recorded(&record.notation)
            .map_err(|e| format!("move {} ({}) does not replay: {e}", record.ply, record.notation))?;
        if played.notation != record.notation || i64::from(played.seat) != record.seat {
            return Err(format!(
                "move {} is stored as {} by seat {}, the rules read {} by seat {}",
                record.ply, record.notation, record.seat, played.notation, played.seat
            ));
        }
    }
    if state.ply != history.len() as i64 {
        return Err(format!(
            "the game is at ply {} with {} moves stored",
            state.ply,
            history.len()
        ));
    }
    let expect = |what: &str, stored: &dyn std::fmt::Debug, replayed: &dyn std::fmt::Debug| {
        format!("{what}: stored {stored:?}, replayed {replayed:?}")
    };
    if let Some(outcome) = game.outcome() {
        // As the server shows it: a reason code beside the rules' words; the
        // winners' names are the server's to add, and left out here.
        let outcome = crate::views::outcome::outcome(&serde_json::to_value(outcome).map_err(|e| e.to_string())?, None);
        let mut shown = state.outcome.clone();
        if let Some(serde_json::Value::Object(map)) = shown.as_mut() {
            map.remove("winner_names");
        }
        if state.status != "finished" || shown.as_ref() != Some(&outcome) {
            return Err(expect(
                "the rules ended the game",
                &(&state.status, &state.outcome),
                &("finished", &outcome),
            ));
        }
        if state.to_move.is_some() || !state.legal.is_empty() {
            return Err(expect(
                "a finished game has no turn",
                &(state.to_move, &state.legal),
                &"none",
            ));
        }
        return Ok(());
    }
    match state.status.as_str() {
        "active" => {
            let to_move = game.to_move().map(i64::from);
            if state.to_move != to_move {
                return Err(expect("to move", &state.to_move, &to_move));
            }
            let legal = game.legal_moves();
            if state.legal != legal {
                return Err(expect("legal moves", &state.legal, &legal));
            }
            Ok(())
        }
        "open" if history.is_empty() => Ok(()),
        "finished" => ended_by_players(api, state, &game).await,
        other => Err(format!("status {other} with {} moves", history.len())),
    }
}

/// A game the rules did not end: a resignation (the only way the generator
/// ends one) must give the winners the rules give for the resigning seat.
async fn ended_by_players(api: &Api, state: &GameView, game: &AnyGame) -> Result<(), String> {
    let reason = state
        .outcome
        .as_ref()
        .and_then(|o| o.get("reason"))
        .and_then(Value::as_str);
    if reason != Some("resignation") {
        return Err(format!("finished by {reason:?} before the rules ended it"));
    }
    let events = api
        .events(state.id)
        .await
        .map_err(|e| format!("cannot read the events: {e}"))?;
    let seat = events
        .iter()
        .rev()
        .find(|e| e.kind == "resigned")
        .and_then(|e| e.payload.get("seat"))
        .and_then(Value::as_u64)
        .and_then(|seat| u8::try_from(seat).ok())
        .ok_or("finished by resignation without a `resigned` event")?;
    let winners = serde_json::to_value(game.winners_if_conceded(seat)).map_err(|e| e.to_string())?;
    let stored = state.outcome.as_ref().and_then(|o| o.get("winners"));
    if stored != Some(&winners) {
        return Err(format!(
            "seat {seat} resigned: stored winners {stored:?}, the rules say {winners}"
        ));
    }
    Ok(())
}

/// Writes the acknowledged moves and trees as JSON lines.
pub fn write_acked(path: &Path, acked: &Acked) -> Result<(), LoadError> {
    let error = |e: std::io::Error| LoadError::AckedFile {
        path: path.to_owned(),
        error: e.to_string(),
    };
    let file = std::fs::File::create(path).map_err(error)?;
    let mut out = std::io::BufWriter::new(file);
    let lines = (acked.moves.iter().cloned().map(Line::Move)).chain(acked.trees.iter().cloned().map(Line::Tree));
    for record in lines {
        let line = serde_json::to_string(&record).map_err(|e| error(std::io::Error::other(e)))?;
        writeln!(out, "{line}").map_err(error)?;
    }
    out.flush().map_err(error)?;
    out.get_ref().sync_all().map_err(error)
}

/// Reads a file written by [`write_acked`]; blank lines are skipped.
pub fn read_acked(path: &Path) -> Result<Acked, LoadError> {
    let file = std::fs::File::open(path).map_err(|e| LoadError::AckedFile {
        path: path.to_owned(),
        error: e.to_string(),
    })?;
    let mut acked = Acked::default();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| LoadError::AckedFile {
            path: path.to_owned(),
            error: e.to_string(),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line).map_err(|e| LoadError::AckedFile {
            path: path.to_owned(),
            error: format!("line {}: {e}", index + 1),
        })?;
        match record {
            Line::Move(record) => acked.moves.push(record),
            Line::Tree(tree) => acked.trees.push(tree),
        }
    }
    Ok(acked)
}

impl std::fmt::Display for Verification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = String::new();
        let _ = writeln!(
            text,
            "verification: {} — {} games, {} moves stored, {} acknowledged",
            if self.passed { "PASSED" } else { "FAILED" },
            self.games_checked,
            self.moves_stored,
            self.acked_moves
        );
        let _ = writeln!(
            text,
            "  lost {}, doubled {}, mismatched {}, gaps {}, replay failures {}, unreadable {}, unacknowledged {}{}",
            self.lost,
            self.doubled,
            self.mismatched,
            self.gaps,
            self.replay_failures,
            self.unreadable,
            self.unacknowledged,
            if self.unacknowledged_is_failure {
                ""
            } else {
                " (allowed)"
            }
        );
        if self.trees > 0 {
            let _ = writeln!(
                text,
                "  conditional trees {}, replies checked {}, games breaking a tree {}",
                self.trees, self.replies_checked, self.conditional_failures
            );
        }
        for problem in &self.problems {
            let _ = writeln!(text, "  - {problem}");
        }
        f.write_str(text.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acked_files_round_trip() {
        let dir = std::env::temp_dir().join(format!("tavoliere-acked-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let path = dir.join("acked.jsonl");
        let acked = Acked {
            moves: vec![
                AckedMove {
                    game: 1,
                    ply: 1,
                    notation: "d4".to_owned(),
                },
                AckedMove {
                    game: 2,
                    ply: 7,
                    notation: "k10".to_owned(),
                },
            ],
            trees: vec![AckedTree {
                game: 2,
                ply: 4,
                lines: vec![vec!["a1".to_owned(), "h8".to_owned()]],
            }],
        };
        write_acked(&path, &acked).expect("written");
        let text = std::fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().next(), Some(r#"{"game":1,"ply":1,"move":"d4"}"#));
        assert_eq!(text.lines().nth(2), Some(r#"{"game":2,"ply":4,"lines":[["a1","h8"]]}"#));
        assert_eq!(read_acked(&path).expect("parsed"), acked);
        std::fs::write(&path, "{\"game\":1}\n").expect("written");
        assert!(matches!(read_acked(&path), Err(LoadError::AckedFile { .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
