//! The players of a load run: registered under a prefix no earlier run
//! used, a slot's worth at a time, and, over WebSocket, one socket each.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::{stream, StreamExt, TryStreamExt};

use super::client::Api;
use super::ws::{self, PlayerSocket, SentMoves};
use super::LoadError;

/// Registrations in flight at once: each costs the server a password hash.
const REGISTRATIONS_IN_FLIGHT: usize = 8;
const PASSWORD: &str = "loadtest password";

/// A player of the run.
pub(super) struct Player {
    pub name: String,
    pub token: String,
}

/// How a slot sends its moves.
pub(super) enum Mover {
    Http,
    /// One socket per seat, in seat order.
    Ws(Vec<PlayerSocket>, SentMoves),
}

impl Mover {
    /// Over WebSocket, the opponents' frames of the move making `ply` are
    /// timed from now; only measured moves are.
    pub fn time_frames_of(&self, game: i64, ply: i64) {
        if let Mover::Ws(_, sent) = self {
            ws_locked(sent).insert((game, ply), Instant::now());
        }
    }
}

pub(super) fn chunk(players: Vec<Player>, size: usize) -> Vec<Vec<Player>> {
    let mut chunks = Vec::new();
    let mut players = players.into_iter().peekable();
    while players.peek().is_some() {
        chunks.push(players.by_ref().take(size).collect());
    }
    chunks
}

/// A prefix no earlier run against the same database used.
pub fn run_prefix() -> String {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    // 11 base-36 digits of microseconds: unique for the next 100 years.
    let mut n = micros;
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(char::from_digit((n % 36) as u32, 36).unwrap_or('0'));
        n /= 36;
    }
    let digits: String = digits.iter().rev().collect();
    format!("lt{digits}")
}

/// Registers `count` players of this run.
pub(super) async fn register(api: &Api, count: usize) -> Result<Vec<Player>, LoadError> {
    let prefix = run_prefix();
    stream::iter(0..count)
        .map(|index| {
            let name = format!("{prefix}-{index}");
            async move {
                let token = api.register(&name, PASSWORD).await.map_err(|error| LoadError::Setup {
                    step: format!("registering {name}"),
                    error,
                })?;
                Ok::<_, LoadError>(Player { name, token })
            }
        })
        .buffered(REGISTRATIONS_IN_FLIGHT)
        .try_collect()
        .await
}

pub(super) async fn connect_slot(api: &Api, players: &[Player], timeout: Duration) -> Result<Mover, LoadError> {
    let sent: SentMoves = Arc::new(Mutex::new(Default::default()));
    let mut sockets = Vec::with_capacity(players.len());
    for (seat, player) in players.iter().enumerate() {
        let socket = ws::connect(api.target(), &player.token, None, timeout)
            .await
            .map_err(|error| LoadError::Setup {
                step: format!("opening {}'s WebSocket", player.name),
                error,
            })?;
        sockets.push(PlayerSocket::new(socket, seat as i64, sent.clone(), timeout));
    }
    Ok(Mover::Ws(sockets, sent))
}

pub(super) fn ws_locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
