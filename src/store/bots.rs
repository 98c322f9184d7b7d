//! The bots aggregate: which player accounts are the server's own bots,
//! and at which level. Promises: [`BotStore::ensure_bot`] never turns a
//! player's account into a bot (a name already taken by a player stays
//! theirs), and two servers starting at once create each bot once.

use async_trait::async_trait;

use super::{BotRow, NewBot, Player, StoreResult};

/// The password hash of every bot: well formed, with no hash in it, so it
/// matches no password and nobody signs in as a bot.
pub const NO_PASSWORD: &str = "$argon2id$v=19$m=19456,t=2,p=1";

#[async_trait]
pub trait BotStore: Send + Sync {
    /// The bot's account, created with its bot row when missing; `None`
    /// when a player already has the name.
    async fn ensure_bot(&self, bot: NewBot) -> StoreResult<Option<Player>>;
    /// Every bot, by account id.
    async fn bots(&self) -> StoreResult<Vec<BotRow>>;
}
