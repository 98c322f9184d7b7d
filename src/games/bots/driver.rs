//! The driver: when a bot's stream has news, or every interval, and once at
//! start (a bot whose turn was pending when the server stopped), it looks
//! at the bot's games and acts: accepts invitations, declines draws (and
//! takebacks in rated games; it agrees to them in unrated ones), and plays
//! its turns through [`Games::play`], thinking on the pool.
//!
//! Several servers on one database may all drive the same bot. They think
//! with the same seed (the game and ply), so they choose the same move;
//! the first to commit stores it, and the others' submissions are a retry
//! of a stored move (nothing applied twice) or stale (refused): the
//! ordinary stale-ply guard of every move.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::domain::GameStatus;
use crate::rules::AnyGame;
use crate::store::{GameFilter, GameRecord};

use super::super::error::{GameError, GameResult};
use super::super::{Games, MoveCommand};
use super::{pool::Pool, Bot, Shared};

/// A page of a bot's games.
const PAGE: i64 = 200;
/// How often a bot re-thinks a turn whose position changed under it (a
/// takeback, another server's move) before leaving it to the next wake.
const RETHINKS: usize = 4;

/// Starts the driver and its `threads` thinking threads; `None` when no
/// bot is played.
pub fn spawn(
    games: Arc<Games>,
    bots: Vec<Bot>,
    threads: usize,
    wakes: mpsc::UnboundedReceiver<i64>,
    interval: Duration,
) -> Option<JoinHandle<()>> {
    if threads == 0 || bots.is_empty() {
        return None;
    }
    let shared = Arc::new(Shared {
        games,
        pool: Pool::new(threads),
        bots,
        thinking: Default::default(),
    });
    Some(tokio::spawn(run(shared, wakes, interval)))
}

async fn run(shared: Arc<Shared>, mut wakes: mpsc::UnboundedReceiver<i64>, interval: Duration) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        // The first tick is at once: the scan after a restart.
        let woken: HashSet<i64> = tokio::select! {
            Some(first) = wakes.recv() => {
                let mut woken = HashSet::from([first]);
                while let Ok(more) = wakes.try_recv() {
                    woken.insert(more);
                }
                woken
            }
            _ = tick.tick() => shared.bots.iter().map(|b| b.player.id).collect(),
        };
        for bot in shared.bots.iter().filter(|b| woken.contains(&b.player.id)) {
            if let Err(e) = look(&shared, bot).await {
                tracing::warn!(bot = %bot.player.name, "bot cannot look at its games: {e}");
            }
        }
    }
}

/// The bot's games with `status`, every page.
async fn games_of(shared: &Shared, bot: &Bot, status: GameStatus) -> GameResult<Vec<GameRecord>> {
    let mut all = Vec::new();
    let mut before = None;
    loop {
        let filter = GameFilter {
            viewer: Some(bot.player.id),
            status: Some(status),
            game: None,
            player: Some(bot.player.id),
            turn_of: None,
            before,
            limit: PAGE,
        };
        let page = shared.games.store.list_games(&filter).await?;
        let full = page.len() as i64 == PAGE;
        before = page.last().map(|g| g.row.id);
        all.extend(page);
        if !full {
            return Ok(all);
        }
    }
}

/// Acts on everything waiting for the bot.
async fn look(shared: &Arc<Shared>, bot: &Bot) -> GameResult<()> {
    let player = &bot.player;
    for record in games_of(shared, bot, GameStatus::Open).await? {
        if record.invitation_of(player.id).is_some() {
            answered("join", shared.games.join(player, record.row.id, None, None).await);
        }
    }
    for record in games_of(shared, bot, GameStatus::Active).await? {
        let Some(seat) = record.seat_of(player.id) else {
            continue;
        };
        let id = record.row.id;
        if record.row.draw_offer != 0 && record.row.draw_offer & seat.bit() == 0 {
            answered("decline a draw", shared.games.draw(player, id, false).await);
        }
        if record.row.takeback_offer != 0 && record.row.takeback_offer & seat.bit() == 0 {
            // A takeback in an unrated game costs nobody anything: the bot
            // agrees (a move it is thinking about is then refused as
            // stale, and it thinks again when its turn comes back). In a
            // rated game a second try would be worth rating points: no.
            let agree = !record.row.rated;
            answered("answer a takeback", shared.games.takeback(player, id, agree).await);
        }
        if record.row.to_move == Some(seat) {
            start_turn(shared, bot, id);
        }
    }
    Ok(())
}

/// An action the bot took: a refusal means the game moved on meanwhile
/// (another server acted, the player withdrew), which the next look sees.
fn answered<T>(what: &str, result: GameResult<T>) {
    if let Err(e) = result {
        if e.is_internal() {
            tracing::warn!("bot cannot {what}: {e}");
        } else {
            tracing::debug!("bot did not {what}: {e}");
        }
    }
}

/// Thinks and plays the bot's turn in game `id` in a task of its own,
/// unless it is already thinking about that game.
fn start_turn(shared: &Arc<Shared>, bot: &Bot, id: i64) {
    if !shared.thinking.lock().unwrap_or_else(|e| e.into_inner()).insert(id) {
        return;
    }
    let (shared, bot) = (shared.clone(), bot.clone());
    tokio::spawn(async move {
        answered("move", play_turn(&shared, &bot, id).await);
        shared.thinking.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    });
}

/// Reads the game, thinks, and submits the move at the ply it thought at;
/// a stale ply (the position changed while it thought) is thought again.
async fn play_turn(shared: &Shared, bot: &Bot, id: i64) -> GameResult<()> {
    for _ in 0..RETHINKS {
        let (record, moves) = shared.games.history(Some(&bot.player), id).await?;
        let seat = record.seat_of(bot.player.id);
        if record.row.status != GameStatus::Active || seat.is_none() || record.row.to_move != seat {
            return Ok(());
        }
        let game = super::super::replay(&record, &moves)?;
        let Some(notation) = think(&shared.pool, game, bot, &record).await else {
            return Ok(());
        };
        let command = MoveCommand {
            notation,
            ply: record.row.ply,
            message: None,
        };
        match shared.games.play(&bot.player, id, command).await {
            Err(GameError::StalePly { .. }) => continue,
            result => return result.map(drop),
        }
    }
    Ok(())
}

/// The bot's move, seeded by the game and ply so every server thinking
/// about this turn chooses the same.
async fn think(pool: &Pool, game: AnyGame, bot: &Bot, record: &GameRecord) -> Option<String> {
    let seed = (record.row.id as u64).rotate_left(32) ^ record.row.ply as u64;
    pool.think(game, bot.level, seed).await
}
