//! Per-player limits on writing: a rate of writes (moves, chat, offers, new
//! games, joins, conditional moves) shared by every door, since each door
//! calls the service; and caps on the games a player keeps open and the
//! invitations pending in them, so nobody floods others with invitations.
//!
//! Promises: a refused write changes nothing and says how long to wait;
//! the caps are checked before a game is created (two creations racing may
//! both pass a cap by one; the rate bounds how far).
//!
//! The server's own bots write without a rate: their moves are bounded by
//! the thinking pool (`--bot-threads`), and a bot in many games would
//! otherwise stall on its own budget. Players' bot accounts keep the rate
//! of every account: the flag is self-declared, so it must not lift a
//! limit, and five writes a second sustained (thirty at once) is far more
//! than a bot needs to answer its turns in correspondence games; a refused
//! write says when to retry (`Retry-After`).

use std::collections::HashSet;
use std::time::Instant;

use super::{GameError, GameResult, Games};
use crate::limits::{Buckets, Rate};
use crate::store::{CreatorStanding, Player};

/// The limits' settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameLimits {
    /// Writes per player.
    pub writes: Rate,
    /// Games a player created that still wait for players.
    pub open_games: u32,
    /// Pending invitations in those games.
    pub open_invitations: u32,
}

impl Default for GameLimits {
    fn default() -> GameLimits {
        GameLimits {
            writes: Rate::per_second(5.0, 30),
            open_games: 20,
            open_invitations: 30,
        }
    }
}

#[derive(Debug)]
pub(super) struct Limiter {
    limits: GameLimits,
    writes: Buckets<i64>,
    /// The accounts of the server's own bots, which write without a rate.
    unlimited: HashSet<i64>,
}

impl Limiter {
    pub(super) fn new(limits: GameLimits) -> Limiter {
        Limiter {
            limits,
            writes: Buckets::new(limits.writes),
            unlimited: HashSet::new(),
        }
    }
}

impl Games {
    /// The same service letting the accounts `players` (the server's own
    /// bots) write without a rate.
    pub fn with_unlimited_writers(mut self, players: impl IntoIterator<Item = i64>) -> Games {
        self.limits.unlimited.extend(players);
        self
    }

    /// Spends one of the player's writes, or refuses.
    pub(super) fn admit(&self, player: &Player) -> GameResult<()> {
        if self.limits.unlimited.contains(&player.id) {
            return Ok(());
        }
        self.limits.writes.take(player.id, Instant::now()).map_err(|wait| {
            self.metrics.count_limited("writes");
            tracing::info!(player = %player.name, "write refused: too fast");
            GameError::TooFast(wait)
        })
    }

    /// Whether a player of `standing` may open one more game inviting
    /// `invitations` players.
    pub(super) fn may_open(&self, standing: &CreatorStanding, invitations: usize) -> GameResult<()> {
        let limits = self.limits.limits;
        if standing.open_games >= i64::from(limits.open_games) {
            self.metrics.count_limited("open_games");
            return Err(GameError::TooManyOpenGames { max: limits.open_games });
        }
        let invitations = i64::try_from(invitations).unwrap_or(i64::MAX);
        if standing.open_invitations.saturating_add(invitations) > i64::from(limits.open_invitations) {
            self.metrics.count_limited("open_invitations");
            return Err(GameError::TooManyInvitations {
                max: limits.open_invitations,
            });
        }
        Ok(())
    }
}
