//! The bots' models: a built-in bot's account to create, and a bot as
//! stored.

/// A built-in bot to create when missing.
#[derive(Clone, Debug)]
pub struct NewBot {
    pub name: String,
    /// The name as compared for uniqueness.
    pub name_key: String,
    /// The level slug (see `crate::bots::Level`).
    pub level: String,
    pub now: i64,
}

/// A stored bot with its account's name.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct BotRow {
    pub player_id: i64,
    pub name: String,
    pub level: String,
}
