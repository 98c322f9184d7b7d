//! The command line: `tavoliere --help` documents every subcommand.

pub mod bots;
pub mod ratings;
pub mod rules;

use clap::{Parser, Subcommand};

use crate::config::Config;

/// Tavoliere: a server for abstract board games (Gravity, Torri, Focus, Vicini,
/// Pente, Cacciatori and their variants). Without a subcommand it serves.
#[derive(Debug, Parser)]
#[command(name = "tavoliere", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub serve: Config,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the server (the default without a subcommand).
    Serve(Box<Config>),
    /// Answer rules questions as JSON lines: read one request per line on
    /// stdin, e.g. {"game":"pente","variant":"pro","moves":["k10","k11"]},
    /// and write one answer per line on stdout (status, to_move, legal,
    /// winners, reason; or error and the index of the first bad move).
    Rules,
    /// Load-test a running server on this machine (loopback only): play
    /// random games over HTTP or WebSocket and report throughput, latency,
    /// errors and server memory, then check that every acknowledged move is
    /// stored and every game replays (`--mode play`, the default); hold idle
    /// WebSockets and report memory per connection (`--mode idle`); or only
    /// run the check on a saved list of acknowledged moves (`--mode verify`).
    Loadtest(Box<crate::loadtest::Options>),
    /// Ratings: `tavoliere ratings rebuild` recomputes every rating from
    /// the stored games, replaces the stored ones and says how many
    /// differed (`--dry-run` only compares).
    #[command(subcommand)]
    Ratings(ratings::RatingsCommand),
    /// The built-in bots: `tavoliere bots duel --game pente --a strongest
    /// --b random --games 40` measures a level against random moves or
    /// another level.
    #[command(subcommand)]
    Bots(bots::BotsCommand),
}
