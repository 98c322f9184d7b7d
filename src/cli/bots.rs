//! `tavoliere bots duel`: measures a bot's strength by playing whole games
//! against another bot or a uniform random mover, seats alternating, and
//! reports wins, draws and the time each side spent per move. A command,
//! not a test: it takes minutes, and its numbers go in BENCHMARKS.md.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};

use crate::bots::{self, Level, UnknownLevel};
use crate::rules::{AnyGame, UnknownGame};

#[derive(Debug, Subcommand)]
pub enum BotsCommand {
    /// Play `--games` games of `--a` against `--b` (seats alternating) and
    /// print the score and the time per move of each side.
    Duel(DuelArgs),
}

/// One side of a duel: a bot level, or random moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Bot(Level),
    Random,
}

impl FromStr for Side {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Side, UnknownLevel> {
        match s {
            "random" => Ok(Side::Random),
            level => level.parse().map(Side::Bot),
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Side::Bot(level) => level.fmt(f),
            Side::Random => f.write_str("random"),
        }
    }
}

#[derive(Clone, Debug, Args)]
pub struct DuelArgs {
    /// The game's slug, e.g. `pente`.
    #[arg(long)]
    pub game: String,
    /// The variant's slug (`standard` when absent).
    #[arg(long)]
    pub variant: Option<String>,
    /// The side measured: a level (`beginner`, `intermediate`, `strongest`)
    /// or `random`.
    #[arg(long)]
    pub a: Side,
    /// Its opponent (every other seat in a four-player game).
    #[arg(long, default_value = "random")]
    pub b: Side,
    /// Playouts a move for `--a`, instead of its level's (the level's
    /// tactics kept): to measure a budget before changing one.
    #[arg(long)]
    pub a_playouts: Option<u32>,
    /// The same for `--b`.
    #[arg(long)]
    pub b_playouts: Option<u32>,
    #[arg(long, default_value_t = 40)]
    pub games: u32,
    /// Varies the bots' seeds between runs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A game still going after this many plies counts as unfinished.
    #[arg(long, default_value_t = 1000)]
    pub max_plies: u32,
}

/// What a duel came to, from `a`'s side.
#[derive(Clone, Debug, Default)]
pub struct Duel {
    pub games: u32,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    pub unfinished: u32,
    /// Moves made and time spent by each side, `a` first.
    pub moves: [u32; 2],
    pub time: [Duration; 2],
    /// The longest single move of each side.
    pub longest: [Duration; 2],
}

impl Duel {
    fn per_move_ms(&self, side: usize) -> f64 {
        self.time[side].as_secs_f64() * 1000.0 / self.moves[side].max(1) as f64
    }
}

impl fmt::Display for Duel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scored = self.wins as f64 + self.draws as f64 / 2.0;
        write!(
            f,
            "{} games: {} won, {} lost, {} drawn, {} unfinished ({:.1} % for a); \
             a {:.1} ms/move (longest {:.0} ms), b {:.1} ms/move (longest {:.0} ms)",
            self.games,
            self.wins,
            self.losses,
            self.draws,
            self.unfinished,
            100.0 * scored / self.games.max(1) as f64,
            self.per_move_ms(0),
            self.longest[0].as_secs_f64() * 1000.0,
            self.per_move_ms(1),
            self.longest[1].as_secs_f64() * 1000.0,
        )
    }
}

/// Plays the duel; `progress` hears of each game as it ends.
pub fn duel(args: &DuelArgs, mut progress: impl FnMut(u32, &Duel)) -> Result<Duel, UnknownGame> {
    let start = AnyGame::new(&args.game, args.variant.as_deref())?;
    let seats = start.id().variant.seats.len() as u32;
    let mut duel = Duel::default();
    for index in 0..args.games {
        let a_seat = (index % seats) as u8;
        let mut game = start.clone();
        while !game.is_finished() && game.ply() < args.max_plies {
            let Some(to_move) = game.to_move() else { break };
            let side = usize::from(to_move != a_seat);
            let (player, playouts) = if side == 0 {
                (args.a, args.a_playouts)
            } else {
                (args.b, args.b_playouts)
            };
            let seed = args.seed ^ (u64::from(index) << 32) ^ u64::from(game.ply());
            let started = Instant::now();
            let m = match player {
                Side::Bot(level) => {
                    let mut budget = level.budget();
                    budget.playouts = playouts.unwrap_or(budget.playouts);
                    bots::choose_with(&game, budget, seed)
                }
                Side::Random => bots::random(&game, seed),
            };
            let spent = started.elapsed();
            duel.moves[side] += 1;
            duel.time[side] += spent;
            duel.longest[side] = duel.longest[side].max(spent);
            // Both sides only ever name legal moves; stop rather than loop.
            if m.is_none_or(|m| game.play(&m).is_err()) {
                break;
            }
        }
        duel.games += 1;
        match game.outcome() {
            None => duel.unfinished += 1,
            Some(o) if o.winners.is_draw() => duel.draws += 1,
            Some(o) if o.winners.contains(a_seat) => duel.wins += 1,
            Some(_) => duel.losses += 1,
        }
        progress(index + 1, &duel);
    }
    Ok(duel)
}
