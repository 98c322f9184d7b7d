//! The built-in bots as players: their accounts, the listing of
//! `GET /bots`, and the driver that makes them act ([`driver`]). A bot is
//! an ordinary player to the rest of the service: it joins, moves and
//! answers offers through the same functions as anyone, so its moves are
//! checked, stored, announced, mailed and clocked the same way, and it can
//! never act for anyone else. What it plays comes from the pure search in
//! [`crate::bots`], run on the thinking [`pool`].
//!
//! - Accounts: one per [`Level`], created at start when bots are enabled
//!   (`--bot-threads` > 0), with a password hash no password matches.
//! - Offers: a bot declines every draw offer (its search has no notion of
//!   "fair"), so a game against a bot is played out or resigned. It agrees
//!   to a takeback in an unrated game (nothing is at stake) and declines
//!   one in a rated game (a second try would be worth rating points).
//! - Clocks: a bot's clock runs like anyone's; a search costs at most about
//!   a second, so a bot loses on time only if its queue is longer than the
//!   clock, which a server with enough `--bot-threads` never lets happen.

mod driver;
mod pool;

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::bots::Level;
use crate::store::{NewBot, Player, RatingRow, Store};

use super::error::GameResult;
use super::{now, Committed, Games, Publisher};

pub use driver::spawn;

/// A built-in bot: its account and how hard it thinks.
#[derive(Clone, Debug)]
pub struct Bot {
    pub player: Player,
    pub level: Level,
}

/// A bot as `GET /bots` lists it.
#[derive(Clone, Debug)]
pub struct BotListing {
    pub name: String,
    pub level: Level,
    pub description: &'static str,
    /// Its ratings, by game and variant (none before its first rated game).
    pub ratings: Vec<RatingRow>,
}

/// The name of the bot of `level`.
pub fn name_of(level: Level) -> String {
    format!("bot-{level}")
}

/// Creates the missing bot accounts and returns the bots this server plays;
/// none when `threads` is 0 (bots disabled). A name a player already has
/// is left to them, and that bot is not played.
pub async fn enroll(store: &dyn Store, threads: usize) -> GameResult<Vec<Bot>> {
    let mut bots = Vec::new();
    if threads == 0 {
        return Ok(bots);
    }
    for level in Level::ALL {
        let name = name_of(level);
        let new = NewBot {
            name_key: name.to_lowercase(),
            name: name.clone(),
            level: level.slug().to_owned(),
            now: now(),
        };
        match store.ensure_bot(new).await? {
            Some(player) => bots.push(Bot { player, level }),
            None => tracing::warn!(%name, "a player has the bot's name: that bot is not played"),
        }
    }
    Ok(bots)
}

/// The publisher the games service announces through when bots play: it
/// passes everything on to `inner` and wakes the driver when a bot has
/// something new in its stream (an invitation, its turn, an offer).
pub struct Wake {
    inner: Arc<dyn Publisher>,
    bots: HashSet<i64>,
    woken: mpsc::UnboundedSender<i64>,
}

impl Wake {
    /// The publisher, and the bot ids it wakes the driver with.
    pub fn new(inner: Arc<dyn Publisher>, bots: &[Bot]) -> (Arc<Wake>, mpsc::UnboundedReceiver<i64>) {
        let (woken, wakes) = mpsc::unbounded_channel();
        let wake = Wake {
            inner,
            bots: bots.iter().map(|b| b.player.id).collect(),
            woken,
        };
        (Arc::new(wake), wakes)
    }
}

impl Publisher for Wake {
    fn game_changed(&self, game: i64, events: &[Committed]) {
        self.inner.game_changed(game, events);
    }

    fn players_notified(&self, players: Vec<i64>) {
        for player in players.iter().filter(|p| self.bots.contains(p)) {
            // The driver is gone only when the server stops.
            let _ = self.woken.send(*player);
        }
        self.inner.players_notified(players);
    }
}

/// The bots this server plays, for listing.
pub struct Roster {
    bots: Vec<Bot>,
    store: Arc<dyn Store>,
}

impl Roster {
    pub fn new(store: Arc<dyn Store>, bots: Vec<Bot>) -> Roster {
        Roster { bots, store }
    }

    /// Every bot this server plays, with its ratings.
    pub async fn list(&self) -> GameResult<Vec<BotListing>> {
        let mut listed = Vec::with_capacity(self.bots.len());
        for bot in &self.bots {
            listed.push(BotListing {
                name: bot.player.name.clone(),
                level: bot.level,
                description: bot.level.description(),
                ratings: self.store.player_ratings(bot.player.id).await?,
            });
        }
        Ok(listed)
    }

    pub fn bots(&self) -> &[Bot] {
        &self.bots
    }
}

/// What the driver needs of the service.
pub(crate) struct Shared {
    games: Arc<Games>,
    pool: pool::Pool,
    bots: Vec<Bot>,
    /// Games a bot is thinking about now, so a second wake waits for it.
    thinking: std::sync::Mutex<HashSet<i64>>,
}
