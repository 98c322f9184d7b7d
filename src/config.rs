//! Server configuration, from flags and environment variables.

use std::fmt;
use std::net::SocketAddr;

use clap::Args;

#[derive(Clone, Debug, Args)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "TAVOLIERE_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    #[command(flatten)]
    pub data: DataConfig,
    /// Log filter, e.g. `info` or `tavoliere=debug,tower_http=debug`.
    #[arg(long, env = "TAVOLIERE_LOG", default_value = "info")]
    pub log: String,
    /// Origins allowed by CORS, comma-separated; `*` for any. None by default.
    #[arg(long, env = "TAVOLIERE_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<String>,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "TAVOLIERE_BODY_LIMIT", default_value_t = 64 * 1024)]
    pub body_limit: usize,
    /// Longest a request may take, in seconds, before a 408.
    #[arg(long, env = "TAVOLIERE_REQUEST_TIMEOUT", default_value_t = 30)]
    pub request_timeout: u64,
    /// How often the background task looks for games lost on time and
    /// reminders due, in milliseconds.
    #[arg(long, env = "TAVOLIERE_SWEEP_INTERVAL_MS", default_value_t = 5_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub sweep_interval_ms: u64,
    /// Threads the built-in bots think on, off the async runtime; 0
    /// disables the built-in bots (this server neither creates nor plays
    /// them). Bots also look for work every sweep interval.
    #[arg(long, env = "TAVOLIERE_BOT_THREADS", default_value_t = 1)]
    pub bot_threads: usize,
    /// Remind a correspondence player this many hours (of a clock day)
    /// before their deadline; 0: no reminders.
    #[arg(long, env = "TAVOLIERE_REMINDER_HOURS", default_value_t = 24)]
    pub reminder_hours: u32,
    /// Vacation days each player may declare per calendar year.
    #[arg(long, env = "TAVOLIERE_VACATION_DAYS", default_value_t = 30)]
    pub vacation_days: u32,
    /// A session (a token) ends after this many days (of the clock, see
    /// --clock-day-ms) unused; each use renews it. 0: sessions last until
    /// signed out.
    #[arg(long, env = "TAVOLIERE_SESSION_DAYS", default_value_t = 90)]
    pub session_days: u32,
    #[command(flatten)]
    pub ratings: RatingConfig,
    #[command(flatten)]
    pub notify: crate::notify::NotifyConfig,
    #[command(flatten)]
    pub realtime: RealtimeConfig,
    #[command(flatten)]
    pub mail: crate::mail::MailConfig,
    #[command(flatten)]
    pub limits: LimitsConfig,
}

impl Config {
    /// The players service's rules: vacation allowance, the clock's day,
    /// webhook addresses.
    pub fn players(&self) -> crate::players::PlayersConfig {
        crate::players::PlayersConfig {
            vacation_days: self.vacation_days,
            day_ms: self.data.clock_day_ms,
            webhook_allow_private: self.notify.webhook_allow_private,
            mail_domain: None,
            email_enabled: false,
            limits: self.limits.accounts(),
            session_lifetime_ms: (self.session_days > 0).then(|| i64::from(self.session_days) * self.data.clock_day_ms),
        }
    }

    /// The rating system's parameters, idle periods in clock days.
    pub fn rating_params(&self) -> crate::ratings::Params {
        self.ratings.params(self.data.clock_day_ms)
    }

    pub fn timing(&self) -> crate::games::Timing {
        let scale = crate::clock::Scale {
            day_ms: self.data.clock_day_ms,
        };
        crate::games::Timing {
            scale,
            remind_before_ms: i64::from(self.reminder_hours) * self.data.clock_day_ms / 24,
        }
    }
}

/// Where the servers keep their data and how long their clock day is: what
/// every command that works on that data (`serve`, `ratings rebuild`) must
/// agree on.
#[derive(Clone, Debug, Args)]
pub struct DataConfig {
    /// Database: a SQLite file (`sqlite://path`, created if missing) or
    /// PostgreSQL (`postgres://user:password@host/db`). Migrations run at start.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://tavoliere.db",
        hide_env_values = true
    )]
    pub database_url: DatabaseUrl,
    /// How many milliseconds a clock "day" lasts (days per move, banks,
    /// vacations, reminders). A testing and operations knob: leave it at a
    /// real day in production.
    #[arg(long, env = "TAVOLIERE_CLOCK_DAY_MS", default_value_t = 86_400_000,
          value_parser = clap::value_parser!(i64).range(1..=86_400_000 * 7))]
    pub clock_day_ms: i64,
}

/// The Glicko-2 parameters (`tavoliere serve` and `tavoliere ratings
/// rebuild` must agree on them, or the rebuild recomputes other values).
#[derive(Clone, Copy, Debug, Args)]
pub struct RatingConfig {
    /// A newcomer's rating.
    #[arg(long, env = "TAVOLIERE_RATING_INITIAL", default_value_t = 1500.0, value_parser = positive)]
    pub rating_initial: f64,
    /// A newcomer's rating deviation (also the most idleness can grow one to).
    #[arg(long, env = "TAVOLIERE_RATING_RD", default_value_t = 350.0, value_parser = positive)]
    pub rating_rd: f64,
    /// A newcomer's volatility.
    #[arg(long, env = "TAVOLIERE_RATING_VOLATILITY", default_value_t = 0.06, value_parser = positive)]
    pub rating_volatility: f64,
    /// Glicko-2's system constant τ: how fast volatility may change.
    #[arg(long, env = "TAVOLIERE_RATING_TAU", default_value_t = 0.5, value_parser = positive)]
    pub rating_tau: f64,
    /// Days (of the clock, see --clock-day-ms) per idle rating period: a
    /// player's deviation grows by one Glicko-2 period's step for each
    /// such stretch without a rated game (fractions count).
    #[arg(long, env = "TAVOLIERE_RATING_PERIOD_DAYS", default_value_t = 7.0, value_parser = positive)]
    pub rating_period_days: f64,
}

impl Default for RatingConfig {
    fn default() -> RatingConfig {
        RatingConfig {
            rating_initial: 1500.0,
            rating_rd: 350.0,
            rating_volatility: 0.06,
            rating_tau: 0.5,
            rating_period_days: 7.0,
        }
    }
}

impl RatingConfig {
    /// The parameters, with days of `day_ms` milliseconds.
    pub fn params(&self, day_ms: i64) -> crate::ratings::Params {
        crate::ratings::Params {
            initial: crate::ratings::Rating {
                rating: self.rating_initial,
                rd: self.rating_rd,
                volatility: self.rating_volatility,
            },
            tau: self.rating_tau,
            period_ms: ((self.rating_period_days * day_ms as f64).round() as i64).max(1),
        }
    }
}

/// A flag's value that is no positive number.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a positive number")]
pub struct NotPositive(String);

fn positive(s: &str) -> Result<f64, NotPositive> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x < 1e9 => Ok(x),
        _ => Err(NotPositive(s.chars().take(40).collect())),
    }
}

/// The abuse limits a public server needs (README, "Security"). Rates of
/// zero turn a limit off.
#[derive(Clone, Debug, Args)]
pub struct LimitsConfig {
    /// Seconds a client has to send a request's headers before its
    /// connection is closed (slow clients holding connections open).
    #[arg(long, env = "TAVOLIERE_HEADER_READ_TIMEOUT", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_read_timeout: u64,
    /// Connections one client address (an IPv6 /64) may hold open at once;
    /// more are closed as they arrive.
    #[arg(long, env = "TAVOLIERE_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections_per_address: u32,
    /// A header naming the client's address, set by a reverse proxy in
    /// front (e.g. `X-Forwarded-For`, whose last address counts). Only set
    /// it behind such a proxy: clients can send any header.
    #[arg(long, env = "TAVOLIERE_CLIENT_ADDRESS_HEADER")]
    pub client_address_header: Option<axum::http::HeaderName>,
    /// Failed sign-ins (per account, and per client address) before each
    /// further attempt waits: 1 s, then doubling.
    #[arg(long, env = "TAVOLIERE_LOGIN_FREE_FAILURES", default_value_t = 5)]
    pub login_free_failures: u32,
    /// The longest wait after failed sign-ins, in seconds. Clients that
    /// signed in to the account before are not held back by failures from
    /// elsewhere.
    #[arg(long, env = "TAVOLIERE_LOGIN_MAX_WAIT", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub login_max_wait: u64,
    /// Registrations one client address may make per hour (and at once).
    #[arg(long, env = "TAVOLIERE_REGISTRATIONS_PER_HOUR", default_value_t = 10)]
    pub registrations_per_hour: u32,
    /// Writes (moves, chat, offers, new games, joins…) a player may make
    /// per second, sustained, whatever the door: HTTP, WebSocket or mail.
    #[arg(long, env = "TAVOLIERE_WRITE_RATE", default_value_t = 5)]
    pub write_rate: u32,
    /// Writes a player may make in a burst.
    #[arg(long, env = "TAVOLIERE_WRITE_BURST", default_value_t = 30)]
    pub write_burst: u32,
    /// Games a player may have created that still wait for players (a
    /// rematch they offered counts).
    #[arg(long, env = "TAVOLIERE_MAX_OPEN_GAMES", default_value_t = 20)]
    pub max_open_games: u32,
    /// Invitations a player may have pending (invited players who have not
    /// joined or declined yet) across their games.
    #[arg(long, env = "TAVOLIERE_MAX_OPEN_INVITATIONS", default_value_t = 30)]
    pub max_open_invitations: u32,
}

impl Default for LimitsConfig {
    fn default() -> LimitsConfig {
        LimitsConfig {
            header_read_timeout: 10,
            max_connections_per_address: 256,
            client_address_header: None,
            login_free_failures: 5,
            login_max_wait: 300,
            registrations_per_hour: 10,
            write_rate: 5,
            write_burst: 30,
            max_open_games: 20,
            max_open_invitations: 30,
        }
    }
}

impl LimitsConfig {
    /// The players service's part: sign-in back-off, registrations.
    pub fn accounts(&self) -> crate::players::AccountLimits {
        crate::players::AccountLimits {
            sign_in: crate::limits::Backoff {
                free: self.login_free_failures,
                base: std::time::Duration::from_secs(1),
                max: std::time::Duration::from_secs(self.login_max_wait),
            },
            registrations: crate::limits::Rate::per_hour(
                f64::from(self.registrations_per_hour),
                self.registrations_per_hour,
            ),
        }
    }

    /// The games service's part: writes per player, open games and
    /// invitations.
    pub fn games(&self) -> crate::games::GameLimits {
        crate::games::GameLimits {
            writes: crate::limits::Rate::per_second(f64::from(self.write_rate), self.write_burst),
            open_games: self.max_open_games,
            open_invitations: self.max_open_invitations,
        }
    }
}

/// Limits and intervals of the WebSocket and the live event streams.
#[derive(Clone, Debug, Args)]
pub struct RealtimeConfig {
    /// Largest WebSocket message a client may send, in bytes; a larger one
    /// is answered with a `message_too_large` error (four times this closes
    /// the socket with 1009).
    #[arg(long, env = "TAVOLIERE_WS_MAX_MESSAGE", default_value_t = 4096)]
    pub ws_max_message: usize,
    /// Messages a WebSocket client may send per second, sustained.
    #[arg(long, env = "TAVOLIERE_WS_RATE", default_value_t = 20)]
    pub ws_rate: u32,
    /// Messages a WebSocket client may send in a burst.
    #[arg(long, env = "TAVOLIERE_WS_BURST", default_value_t = 40)]
    pub ws_burst: u32,
    /// Milliseconds between the server's pings.
    #[arg(long, env = "TAVOLIERE_WS_PING_INTERVAL_MS", default_value_t = 20_000)]
    pub ws_ping_interval_ms: u64,
    /// Milliseconds without any frame from the client before its socket is
    /// closed as dead.
    #[arg(long, env = "TAVOLIERE_WS_IDLE_TIMEOUT_MS", default_value_t = 60_000)]
    pub ws_idle_timeout_ms: u64,
    /// Live events a game's channel holds for a slow subscriber before that
    /// subscriber is resynchronised with a fresh snapshot.
    #[arg(long, env = "TAVOLIERE_WS_CHANNEL_CAPACITY", default_value_t = 64)]
    pub ws_channel_capacity: usize,
    /// Longest wait, in seconds, of `GET /api/v1/events?wait=`.
    #[arg(long, env = "TAVOLIERE_EVENTS_MAX_WAIT", default_value_t = 25)]
    pub events_max_wait: u64,
}

impl Default for RealtimeConfig {
    fn default() -> RealtimeConfig {
        RealtimeConfig {
            ws_max_message: 4096,
            ws_rate: 20,
            ws_burst: 40,
            ws_ping_interval_ms: 20_000,
            ws_idle_timeout_ms: 60_000,
            ws_channel_capacity: 64,
            events_max_wait: 25,
        }
    }
}

impl Config {
    /// The defaults with another database: what tests start from.
    pub fn with_database(database_url: impl Into<String>) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            data: DataConfig {
                database_url: DatabaseUrl(database_url.into()),
                clock_day_ms: 86_400_000,
            },
            log: "info".to_owned(),
            cors_origins: Vec::new(),
            body_limit: 64 * 1024,
            request_timeout: 30,
            sweep_interval_ms: 5_000,
            bot_threads: 1,
            reminder_hours: 24,
            vacation_days: 30,
            session_days: 90,
            ratings: RatingConfig::default(),
            notify: crate::notify::NotifyConfig::default(),
            realtime: RealtimeConfig::default(),
            mail: crate::mail::MailConfig::default(),
            limits: LimitsConfig::default(),
        }
    }
}

/// A database URL, which may hold a password: `Debug` (and so the start-up
/// log line) prints it with the password replaced by `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl(pub String);

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = &self.0;
        match (url.find("://"), url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => match url[scheme + 3..at].split_once(':') {
                Some((user, _)) => write!(f, "\"{}{user}:***{}\"", &url[..scheme + 3], &url[at..]),
                None => write!(f, "{url:?}"),
            },
            _ => write!(f, "{url:?}"),
        }
    }
}

impl From<String> for DatabaseUrl {
    fn from(url: String) -> DatabaseUrl {
        DatabaseUrl(url)
    }
}

#[cfg(test)]
mod tests {
    use super::DatabaseUrl;

    #[test]
    fn passwords_are_redacted() {
        let shown = |url: &str| format!("{:?}", DatabaseUrl(url.to_owned()));
        assert_eq!(shown("postgres://u:secret@h/db"), "\"postgres://u:***@h/db\"");
        assert_eq!(shown("postgres://u@h/db"), "\"postgres://u@h/db\"");
        assert_eq!(shown("sqlite://tavoliere.db"), "\"sqlite://tavoliere.db\"");
    }
}
