//! Play by mail: the third front door, beside `http` and `realtime`.
//!
//! An in-process SMTP listener ([`listener`]) takes mail for the server's
//! domain and stores it in the inbox before saying `250`; the inbox worker
//! ([`inbox`]) processes the stored mail in arrival order, per player:
//! checks that it comes from the player's registered address, reads its
//! lines ([`script`], [`commands`]), runs each through the games and
//! players services ([`execute`]) and mails one reply ([`reply`]) through
//! the outbound SMTP settings of `notify`. Mail comes to a reply token or a
//! player's secret command address ([`address`]); the token's key is kept
//! in the database, so tokens survive restarts. Nothing of the rules or the
//! games service is decided here.

pub mod address;
pub mod commands;
mod execute;
mod inbox;
pub mod incoming;
mod listener;
mod reply;
pub mod script;

use std::sync::Arc;

use clap::Args;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use address::{AddressError, Addresses, Recipient, ReplyToken};

use crate::games::Games;
use crate::notify::email::Mailer;
use crate::notify::NotifyConfig;
use crate::players::Players;
use crate::store::{Store, StoreResult};

/// Said under every board the server mails with a reply token.
pub const REPLY_HINT: &str = "\nTo answer by mail, reply to this mail: the first line of your reply is \
    your move, or a command for this game (accept, decline, resign, draw yes, chat <text>, board).\n";

#[derive(Clone, Debug, Args)]
pub struct MailConfig {
    /// Address of the SMTP listener for play by mail (e.g. 127.0.0.1:2525,
    /// behind an MTA); off when absent.
    #[arg(long, env = "TAVOLIERE_MAIL_LISTEN")]
    pub mail_listen: Option<std::net::SocketAddr>,
    /// The domain mail is taken for (default: the host of --base-url).
    #[arg(long, env = "TAVOLIERE_MAIL_DOMAIN")]
    pub mail_domain: Option<String>,
    /// Largest message accepted, in bytes (552 past it).
    #[arg(long, env = "TAVOLIERE_MAIL_MAX_SIZE", default_value_t = 256 * 1024)]
    pub mail_max_size: usize,
    /// Recipients per message.
    #[arg(long, env = "TAVOLIERE_MAIL_MAX_RECIPIENTS", default_value_t = 10)]
    pub mail_max_recipients: usize,
    /// SMTP sessions at once; more are answered 421.
    #[arg(long, env = "TAVOLIERE_MAIL_MAX_SESSIONS", default_value_t = 32)]
    pub mail_max_sessions: usize,
    /// SMTP sessions at once from one address (an IPv6 /64 counts as one);
    /// more are answered 421. 0: no cap of its own, for a listener behind
    /// an MTA, whose sessions all come from the MTA's address.
    #[arg(long, env = "TAVOLIERE_MAIL_MAX_SESSIONS_PER_ADDRESS", default_value_t = 0)]
    pub mail_max_sessions_per_address: u32,
    /// Seconds an SMTP session may last in all, however busy (a client
    /// that trickles a byte at a time, or never reads its answers, gives
    /// its place back then).
    #[arg(long, env = "TAVOLIERE_MAIL_SESSION_LIFETIME", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub mail_session_lifetime: u64,
    /// Seconds an SMTP session may stay silent before it is closed.
    #[arg(long, env = "TAVOLIERE_MAIL_IDLE_TIMEOUT", default_value_t = 60)]
    pub mail_idle_timeout: u64,
    /// How often the inbox is looked at besides when mail arrives, in ms.
    #[arg(long, env = "TAVOLIERE_MAIL_POLL_MS", default_value_t = 1_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub mail_poll_ms: u64,
    /// Testing knob: received mail waits this long (ms) before processing.
    #[arg(long, env = "TAVOLIERE_MAIL_PROCESS_DELAY_MS", default_value_t = 0, hide = true)]
    pub mail_process_delay_ms: u64,
}

impl Default for MailConfig {
    fn default() -> MailConfig {
        MailConfig {
            mail_listen: None,
            mail_domain: None,
            mail_max_size: 256 * 1024,
            mail_max_recipients: 10,
            mail_max_sessions: 32,
            mail_max_sessions_per_address: 0,
            mail_session_lifetime: 600,
            mail_idle_timeout: 60,
            mail_poll_ms: 1_000,
            mail_process_delay_ms: 0,
        }
    }
}

impl MailConfig {
    /// `--mail-domain`, or the host of the server's web address.
    pub fn domain(&self, base_url: &str) -> String {
        if let Some(domain) = self.mail_domain.as_deref().filter(|d| !d.is_empty()) {
            return domain.to_ascii_lowercase();
        }
        let rest = base_url.split_once("://").map_or(base_url, |(_, rest)| rest);
        let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        let host = host.rsplit_once('@').map_or(host, |(_, host)| host);
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(v6),
            None => host.split(':').next().unwrap_or(host),
        };
        host.to_ascii_lowercase()
    }
}

/// The server's addresses, with the token key from the database (made on
/// first start).
pub async fn addresses(store: &dyn Store, domain: &str) -> StoreResult<Addresses> {
    let secret = store.mail_secret(&crate::players::tokens::new_token()).await?;
    Ok(Addresses::new(domain, &secret))
}

/// Everything the mail door needs to run.
pub struct Door {
    pub store: Arc<dyn Store>,
    pub addresses: Arc<Addresses>,
    pub games: Arc<Games>,
    pub players: Arc<Players>,
}

/// Starts the SMTP listener and the inbox worker; both stop when their
/// tasks are aborted, and all their state is in the database.
pub fn spawn(
    listener: TcpListener,
    door: Door,
    config: &MailConfig,
    notify: &NotifyConfig,
) -> Result<Vec<JoinHandle<()>>, String> {
    let mailer = Mailer::from_config(notify)?;
    if mailer.is_none() {
        tracing::warn!("play by mail is on but no --smtp-host is set: commands run, replies are not sent");
    }
    let retry_ms = i64::try_from(notify.notify_retry_ms).unwrap_or(i64::MAX / 4);
    let domain = door.addresses.domain().to_owned();
    let inbox = Arc::new(inbox::Inbox::new(door, mailer, config.clone(), retry_ms));
    if let Ok(address) = listener.local_addr() {
        tracing::info!(%address, %domain, "play by mail: SMTP listening");
    }
    let worker = inbox.clone().spawn();
    let config = config.clone();
    let smtp = tokio::spawn(async move { listener::serve(listener, inbox, &config).await });
    Ok(vec![smtp, worker])
}

#[cfg(test)]
mod tests {
    use super::MailConfig;

    #[test]
    fn the_domain_defaults_to_the_host_of_the_base_url() {
        let config = MailConfig::default();
        assert_eq!(config.domain("https://Play.Example.org:8443/x"), "play.example.org");
        assert_eq!(config.domain("http://localhost:8080"), "localhost");
        assert_eq!(config.domain("http://[::1]:80/"), "::1");
        let set = MailConfig {
            mail_domain: Some("Mail.Example.org".into()),
            ..MailConfig::default()
        };
        assert_eq!(set.domain("http://localhost"), "mail.example.org");
    }
}
