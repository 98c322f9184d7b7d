//! The players service: accounts and sessions, vacations, notification
//! settings, and what players read about themselves (their event stream,
//! their delivery log).
//!
//! It owns every read and write of a player's own rows; the HTTP handlers
//! parse a request, call one function here and render the answer. The rules
//! (names, passwords, vacation arithmetic, settings, command addresses) are plain functions
//! beside the service, with their tests; the service loads, decides with
//! them, writes, and answers with typed results or a [`PlayerError`], which
//! says what was refused and nothing about HTTP.
//!
//! The service calls nothing above it: a vacation declared or ended asks the
//! [`Deadlines`] port (the games service, wired in `lib.rs`) to recompute the
//! clocks of the player's games.

pub mod accounts;
mod error;
mod feeds;
pub mod guard;
pub mod input;
pub mod mailbox;
pub mod passwords;
mod sessions;
pub mod settings;
pub mod tokens;
pub mod vacations;

use std::sync::Arc;

use async_trait::async_trait;

pub use accounts::{AccountChange, NewAccount, Session, Token};
pub use error::{PlayerError, Result};
pub use guard::AccountLimits;
pub use input::NAME_PATTERN;
pub use input::{name_key, BadInput, Email, Password, PlayerName};
pub use sessions::{user_agent, Client, SessionInfo, MAX_USER_AGENT_LEN};
pub use settings::SettingsChange;
pub use tokens::token_hash;
pub use vacations::{Allowance, VacationRefused, VacationRequest};

/// The players' records as the service hands them out: handlers render
/// these without naming the store.
pub use crate::store::{DeliveryRow, EventRow, Player};

use crate::domain::now;
use crate::metrics::Metrics;
use crate::notify::NotifyChoices;
use crate::store::Store;

/// The error a [`Deadlines`] implementation reports.
pub type DeadlinesError = Box<dyn std::error::Error + Send + Sync>;

/// The games' side of a vacation: whoever keeps the clocks recomputes the
/// deadlines of every game waiting for the player.
#[async_trait]
pub trait Deadlines: Send + Sync {
    async fn refresh(&self, player_id: i64) -> Result<(), DeadlinesError>;
}

/// The server's rules for players.
#[derive(Clone, Debug)]
pub struct PlayersConfig {
    /// Vacation days per calendar year.
    pub vacation_days: u32,
    /// How long a clock day lasts, in ms.
    pub day_ms: i64,
    /// Whether webhooks may name loopback and private addresses.
    pub webhook_allow_private: bool,
    /// The domain of command addresses; `None`: play by mail is off.
    pub mail_domain: Option<String>,
    /// Whether this server sends email (an SMTP server is configured), so
    /// clients offer email notifications only when they can arrive.
    pub email_enabled: bool,
    /// Sign-in back-off and registrations per address.
    pub limits: AccountLimits,
    /// How long a session lasts unused, in ms; `None`: until signed out.
    pub session_lifetime_ms: Option<i64>,
}

impl PlayersConfig {
    fn allowance(&self) -> Allowance {
        Allowance {
            days_per_year: i64::from(self.vacation_days),
            day_ms: self.day_ms,
        }
    }
}

pub struct Players {
    store: Arc<dyn Store>,
    /// Who holds which token, remembered.
    tokens: tokens::TokenCache,
    deadlines: Arc<dyn Deadlines>,
    config: PlayersConfig,
    guard: guard::Guard,
    metrics: Arc<Metrics>,
}

/// The player as they see themselves: account, notification settings,
/// vacation.
#[derive(Clone, Debug)]
pub struct Me {
    pub player: Player,
    /// Per kind of event, the channels used (the defaults where never chosen).
    pub notify: NotifyChoices,
    pub webhook_url: Option<String>,
    /// Only right after the webhook URL was set.
    pub new_webhook_secret: Option<String>,
    pub digest: bool,
    /// Vacation days left this calendar year.
    pub vacation_days_left: i64,
    /// The end (Unix ms) of the current or next vacation.
    pub vacation_until: Option<i64>,
    /// The secret command address for play by mail (`None`: mail is off).
    pub mail_address: Option<String>,
    /// Whether the server sends email at all.
    pub email_enabled: bool,
}

impl Players {
    pub fn new(store: Arc<dyn Store>, deadlines: Arc<dyn Deadlines>, config: PlayersConfig) -> Players {
        Players {
            store,
            tokens: tokens::TokenCache::new(config.session_lifetime_ms),
            deadlines,
            guard: guard::Guard::new(config.limits),
            config,
            metrics: Arc::new(Metrics::default()),
        }
    }

    /// The same service counting password checks and refusals in `metrics`.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> Players {
        self.metrics = metrics;
        self
    }

    /// The player as they see themselves.
    pub async fn me(&self, player: &Player) -> Result<Me> {
        self.me_with(player, None).await
    }

    async fn me_with(&self, player: &Player, new_webhook_secret: Option<String>) -> Result<Me> {
        let settings = self.store.notify_settings(player.id).await?;
        let vacations = self.vacations(player.id).await?;
        let now = now();
        Ok(Me {
            player: player.clone(),
            notify: NotifyChoices::stored(&settings),
            webhook_url: settings.webhook_url,
            new_webhook_secret,
            digest: settings.digest,
            vacation_days_left: self.config.allowance().days_left(&vacations, now),
            vacation_until: vacations::until(&vacations, now),
            mail_address: self.mail_address(player).await?,
            email_enabled: self.config.email_enabled,
        })
    }
}
