//! What `tavoliere loadtest` is asked to do: its flags, parsed once into
//! typed values (a game choice is a catalogue entry, a duration a
//! `Duration`), so the rest of the generator never re-checks them.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Args, Parser, ValueEnum};

use crate::rules::catalogue::{self, GameInfo, VariantInfo};

/// Drives a running Tavoliere server from outside, like real clients, and
/// reports throughput, latency, errors, server memory and CPU. It only ever
/// targets loopback and always stops by itself.
#[derive(Clone, Debug, Args)]
pub struct Options {
    /// Base URL of the running server. Its host must resolve to loopback
    /// addresses only (127.0.0.0/8, ::1); anything else is refused before
    /// any request.
    #[arg(long, default_value = "http://127.0.0.1:8080")]
    pub url: String,
    /// play: register players, create games and play random legal moves.
    /// idle: hold many idle authenticated WebSocket connections and report
    /// server memory per connection. verify: only the replay check, for the
    /// acknowledged moves saved by an earlier run (`--acked`).
    #[arg(long, value_enum, default_value_t = Mode::Play)]
    pub mode: Mode,
    /// play: how moves are sent. http: POST /api/v1/games/{id}/moves, the
    /// next move chosen from the answer. ws: one WebSocket per player,
    /// `move` messages acknowledged by `ack`; the opponents' sockets receive
    /// the `event` frames, whose latency is measured too.
    #[arg(long, value_enum, default_value_t = Transport::Http)]
    pub transport: Transport,
    /// play over ws: the players' sockets do not subscribe to their games,
    /// so they only send moves and read the acks, and nobody is told of a
    /// move: the exchange `--transport http` makes, over the other door,
    /// for comparing what the two transports cost. Without it, each move's
    /// `event` frame also goes to every seat's socket.
    #[arg(long)]
    pub no_follow: bool,
    /// play: the answers asked for. lean: to a move, the move, the game's
    /// status, ply and legal moves (`Prefer: return=minimal` and
    /// `?legal=true`, or `"return": "minimal", "legal": true` over the
    /// WebSocket), to a game's creation, join or resignation the same
    /// without the move, and over ws the sockets subscribe from the last
    /// join's event number (no snapshot): as a script or bot would ask.
    /// minimal: the lean answers without the legal moves (no `?legal`);
    /// the generator keeps each game's position with the rules and picks
    /// from its own legal moves, as a bot that knows the game does (and as
    /// `scripts/peer/driver.js` does for boardgame.io). full: the whole
    /// game, and a snapshot when a socket subscribes, as the web client
    /// gets them.
    #[arg(long, value_enum, default_value_t = Answer::Lean)]
    pub answer: Answer,
    /// play: a game to play, `family` or `family:variant` (e.g. `gravity`,
    /// `pente:pro`); repeat the flag for a mix (games in flight take them in
    /// turn).
    #[arg(long = "game", default_value = "gravity")]
    pub game_choices: Vec<GameChoice>,
    /// play: games kept in flight at once (when one ends, another starts).
    /// Every game in flight has its own players, one per seat.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub games: u32,
    /// play: how long to send moves, e.g. `10s`, `500ms`, `2m`.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub duration: Duration,
    /// play: moves due in this first part of the run are played and
    /// verified but left out of the throughput and latency figures: at the
    /// start every game in flight opens at once, which is not the steady
    /// state the figures describe. `0s` measures from the first move.
    #[arg(long, default_value = "1s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// play: target of acknowledged moves per second over all games, paced
    /// open-loop: each game slot sends a move every `games / rate` seconds
    /// (slots staggered), and latency is measured from the scheduled time,
    /// so a stalled server shows as latency rather than as fewer requests.
    /// A slot keeps its phase from game to game: a tick that passes while
    /// it opens its next game (client work, not a move) is skipped. Moves
    /// leave at their instant, woken by a thread of the generator's own.
    /// A game has one move in flight at a time: give enough `--games` for
    /// the rate. Without it, every game moves as fast as it is answered.
    #[arg(long, value_parser = parse_rate)]
    pub rate: Option<f64>,
    /// play: a game still running after this many moves is resigned (random
    /// play does not end Torri or Cacciatori).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_plies: u32,
    /// play: seed of the random move choices (the same seed, the same choices
    /// for the same answers).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// play: the share of two-player games (0 to 1) in which the second
    /// seat leaves conditional moves (`PUT /games/{id}/conditional`) each
    /// time it waits without a tree: a few lines of two (their move, my
    /// reply) pairs from the position, the first seat then playing a
    /// foreseen move two times in three. The replay check then checks
    /// every reply against the trees set.
    #[arg(long, default_value_t = 0.0, value_parser = parse_share)]
    pub conditional: f64,
    /// play: skip the replay check after the run.
    #[arg(long)]
    pub no_verify: bool,
    /// play: write every acknowledged move (game, ply, move) to this file as
    /// JSON lines when the run ends, for a later `--mode verify`.
    #[arg(long, value_name = "FILE")]
    pub acked_out: Option<PathBuf>,
    /// verify: the acknowledged moves of an earlier run (its `--acked-out`).
    #[arg(long, value_name = "FILE")]
    pub acked: Option<PathBuf>,
    /// idle: WebSocket connections to open and hold.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub connections: u32,
    /// idle: spread the connections over the source addresses 127.0.0.1 to
    /// 127.0.0.k, so the ephemeral port range of one address (about 28,000)
    /// is not the limit. 20,000 connections also need `ulimit -n` above
    /// 20,000 for both this process and the server.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=254))]
    pub sources: u8,
    /// idle: how long to hold the connections open (answering the server's
    /// pings) before reading the server's memory and closing them.
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub hold: Duration,
    /// Longest wait for any one answer (request, acknowledgement, upgrade).
    #[arg(long, default_value = "10s", value_parser = parse_duration)]
    pub timeout: Duration,
    /// Print the report as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Parses flags as the command line would: the defaults live in one place.
#[derive(Parser)]
struct Wrapper {
    #[command(flatten)]
    options: Options,
}

impl Options {
    /// The defaults, against the server at `url`: what tests start from.
    pub fn for_url(url: impl Into<String>) -> Options {
        let mut options = Wrapper::parse_from(["loadtest"]).options;
        options.url = url.into();
        options
    }

    /// Whether the players' sockets follow their games: over ws, unless
    /// `--no-follow`.
    pub fn follows_games(&self) -> bool {
        self.transport == Transport::Ws && !self.no_follow
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Play,
    Idle,
    Verify,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    Lean,
    Minimal,
    Full,
}

impl Answer {
    /// Whether the server is asked for its lean answers
    /// (`Prefer: return=minimal`).
    pub fn is_lean(self) -> bool {
        self != Answer::Full
    }

    /// Whether a lean answer is asked to carry the legal moves (`?legal`).
    pub fn asks_legal(self) -> bool {
        self == Answer::Lean
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Answer::Lean => "lean",
            Answer::Minimal => "minimal",
            Answer::Full => "full",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Http,
    Ws,
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Transport::Http => "http",
            Transport::Ws => "ws",
        })
    }
}

/// A game and variant of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct GameChoice {
    pub game: &'static GameInfo,
    pub variant: &'static VariantInfo,
}

impl GameChoice {
    pub fn seats(&self) -> usize {
        self.variant.seats.len()
    }
}

impl FromStr for GameChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<GameChoice, String> {
        let (game, variant) = match text.split_once(':') {
            Some((game, variant)) => (game, Some(variant)),
            None => (text, None),
        };
        let (game, variant) = catalogue::find(game, variant).map_err(|e| e.to_string())?;
        Ok(GameChoice { game, variant })
    }
}

impl fmt::Display for GameChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.game.slug, self.variant.slug)
    }
}

impl serde::Serialize for GameChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// `250ms`, `10s`, `2m`, `1h`; a bare number is seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration such as 500ms, 10s or 2m"))?;
    let seconds = match unit.trim() {
        "ms" => number / 1000.0,
        "" | "s" => number,
        "m" | "min" => number * 60.0,
        "h" => number * 3600.0,
        other => return Err(format!("unknown unit {other:?}: use ms, s, m or h")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

fn parse_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(format!("{text:?} is not a positive number of moves per second")),
    }
}

fn parse_share(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
        _ => Err(format!("{text:?} is not a share between 0 and 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("").is_err());
        assert!(parse_duration("10 parsecs").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn game_choices_are_catalogue_entries() {
        let choice: GameChoice = "pente:pro".parse().expect("pente pro");
        assert_eq!(choice.to_string(), "pente:pro");
        assert_eq!(choice.seats(), 2);
        assert_eq!(
            "gravity".parse::<GameChoice>().map(|c| c.to_string()),
            Ok("gravity:standard".to_owned())
        );
        assert!("chess".parse::<GameChoice>().is_err());
        assert!("pente:nope".parse::<GameChoice>().is_err());
    }

    #[test]
    fn defaults_come_from_the_flags() {
        let options = Options::for_url("http://127.0.0.1:1");
        assert_eq!(options.mode, Mode::Play);
        assert_eq!(options.games, 10);
        assert_eq!(options.game_choices.len(), 1);
        assert_eq!(options.duration, Duration::from_secs(10));
        assert!(options.rate.is_none());
    }
}
