//! Email over SMTP (lettre), and the text of each mail: what pbmserv's mails
//! carried — the game, whose turn, the opponent's move and message, the
//! board as text, the deadline and a link.

use std::time::Duration;

use lettre::message::header::{ContentTransferEncoding, ContentType};
use lettre::message::{Body, Mailbox};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use serde_json::Value;

use super::{NotifyConfig, NotifyKind, SmtpSecurity};
use crate::games::Games;
use crate::store::{EventRow, Player};
use crate::views::{board, timestamp, Snapshot};

/// A mail ready to send.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mail {
    pub subject: String,
    pub text: String,
    /// The game and ply of the board it shows: a reply to the mail plays
    /// there (see `src/mail/`).
    pub board: Option<(i64, i64)>,
    /// `Reply-To:` (a reply token or a command address).
    pub reply_to: Option<String>,
    /// The `Message-ID` this mail answers (`In-Reply-To:`, `References:`).
    pub in_reply_to: Option<String>,
}

/// The configured SMTP relay.
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Mailer {
    /// `Ok(None)` when no SMTP host is configured: email is off.
    pub fn from_config(config: &NotifyConfig) -> Result<Option<Mailer>, String> {
        let Some(host) = config.smtp_host.as_deref().filter(|h| !h.is_empty()) else {
            return Ok(None);
        };
        let builder = match config.smtp_security {
            SmtpSecurity::None => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host),
            SmtpSecurity::Starttls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host)
                .map_err(|e| format!("SMTP host {host}: {e}"))?,
            SmtpSecurity::Tls => {
                AsyncSmtpTransport::<Tokio1Executor>::relay(host).map_err(|e| format!("SMTP host {host}: {e}"))?
            }
        };
        let port = config.smtp_port.unwrap_or(match config.smtp_security {
            SmtpSecurity::None => 25,
            SmtpSecurity::Starttls => 587,
            SmtpSecurity::Tls => 465,
        });
        let mut builder = builder.port(port).timeout(Some(Duration::from_secs(30)));
        if let (Some(user), Some(password)) = (&config.smtp_user, &config.smtp_password) {
            builder = builder.credentials(Credentials::new(user.clone(), password.expose().to_owned()));
        }
        let from = config
            .mail_from
            .parse::<Mailbox>()
            .map_err(|e| format!("--mail-from {:?}: {e}", config.mail_from))?;
        Ok(Some(Mailer {
            transport: builder.build(),
            from,
        }))
    }

    pub async fn send(&self, to: &Player, mail: Mail) -> Result<(), String> {
        let address = to.email.as_deref().ok_or("the player has no email address")?;
        let to = Mailbox::new(
            Some(to.name.clone()),
            address.parse().map_err(|e| format!("bad address: {e}"))?,
        );
        let mut message = Message::builder().from(self.from.clone()).to(to).subject(mail.subject);
        if let Some(reply_to) = &mail.reply_to {
            message = message.reply_to(reply_to.parse().map_err(|e| format!("bad Reply-To: {e}"))?);
        }
        if let Some(id) = mail.in_reply_to {
            let id = format!("<{}>", id.trim_start_matches('<').trim_end_matches('>'));
            message = message.in_reply_to(id.clone()).references(id);
        }
        let message = message
            .header(ContentType::TEXT_PLAIN)
            // Quoted-printable keeps the board readable in the raw mail
            // and its lines short, whatever the characters.
            .body(
                Body::new_with_encoding(mail.text, ContentTransferEncoding::QuotedPrintable)
                    .map_err(|_| "cannot encode the mail".to_owned())?,
            )
            .map_err(|e| format!("cannot build the mail: {e}"))?;
        self.transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| format!("SMTP: {e}"))
    }
}

/// The mail of a tournament's start, end or cancellation (no game named).
fn tournament_mail(event: &EventRow, base_url: &str) -> Option<Mail> {
    let data = &event.payload;
    let id = data.get("tournament").and_then(Value::as_i64)?;
    let name = data.get("name").and_then(Value::as_str).unwrap_or("Your tournament");
    let line = match event.kind.parse().ok()? {
        NotifyKind::TournamentStarted => match data.get("season").and_then(Value::as_i64) {
            Some(season) => format!("{name}: season {season} has begun; your games are waiting."),
            None => format!("{name} has started; your games are waiting."),
        },
        NotifyKind::TournamentOver if data.get("cancelled").is_some() => {
            format!("{name} was cancelled: too few players joined.")
        }
        NotifyKind::TournamentOver => {
            let rank = data.get("rank").and_then(Value::as_i64).unwrap_or(0);
            let points = data.get("points").and_then(Value::as_f64).unwrap_or(0.0);
            format!("{name} is over: you finished {rank} with {points} points.")
        }
        _ => return None,
    };
    let link = format!("{}/tournaments/{id}", base_url.trim_end_matches('/'));
    Some(Mail {
        subject: format!("Tavoliere: {line}"),
        text: format!("{line}\n\n{link}\n"),
        ..Mail::default()
    })
}

fn game_link(base_url: &str, game: i64) -> String {
    format!("{}/games/{game}", base_url.trim_end_matches('/'))
}

/// The mail telling `player` about `event`.
pub async fn compose(games: &Games, player: &Player, event: &EventRow, base_url: &str) -> Result<Mail, String> {
    let data = &event.payload;
    let Some(game_id) = data.get("game").and_then(Value::as_i64) else {
        if let Some(mail) = tournament_mail(event, base_url) {
            return Ok(mail);
        }
        return Ok(Mail {
            subject: format!("Tavoliere: {}", event.kind.replace('_', " ")),
            text: format!("{}\n", serde_json::to_string_pretty(data).unwrap_or_default()),
            ..Mail::default()
        });
    };
    let snapshot = games
        .snapshot(Some(player), game_id, None)
        .await
        .map_err(|e| format!("game {game_id}: {e}"))?;
    let (info, variant) = crate::views::variant_info(&snapshot.record.row).map_err(|e| e.to_string())?;
    let title = format!("{} #{game_id}", crate::views::title(info, variant));
    let (subject, mut text) = match event.kind.parse().ok() {
        Some(kind @ (NotifyKind::YourTurn | NotifyKind::Reminder)) => {
            turn(&snapshot, player, kind == NotifyKind::Reminder, data, &title)?
        }
        Some(NotifyKind::TournamentRound) => {
            let name = data.get("name").and_then(Value::as_str).unwrap_or("a tournament");
            let round = data.get("round").and_then(Value::as_i64).unwrap_or(0);
            (
                format!("{name}, round {round}: {title}"),
                format!("{title}: your new game of {name}, round {round}.\n"),
            )
        }
        Some(NotifyKind::Invited) => {
            let by = data.get("by").and_then(Value::as_str).unwrap_or("someone");
            (
                format!("{by} invites you to {title}"),
                format!("{by} invites you to play {title}.\n"),
            )
        }
        Some(NotifyKind::GameOver) => game_over(&snapshot, data, &title)?,
        _ => {
            let what = event.kind.replace('_', " ");
            (format!("{title}: {what}"), format!("{title}: {what}.\n"))
        }
    };
    text.push_str(&format!("\n{}\n", game_link(base_url, game_id)));
    Ok(Mail {
        subject,
        text,
        board: Some((game_id, snapshot.record.row.ply)),
        ..Mail::default()
    })
}

/// A turn's (or its reminder's) subject and text: whose turn, the
/// opponent's move and message, the board and the deadline.
fn turn(
    snapshot: &Snapshot,
    player: &Player,
    reminder: bool,
    data: &Value,
    title: &str,
) -> Result<(String, String), String> {
    let to_move = snapshot.record.row.ply + 1;
    let mut text = if reminder {
        format!("Reminder: {title} is waiting for your move {to_move}.\n")
    } else {
        format!("{title}: it is your turn, {} (move {to_move}).\n", player.name)
    };
    if let Some(last) = &snapshot.last_move {
        let effect = last.effect.as_deref().map(|e| format!(" ({e})")).unwrap_or_default();
        text.push_str(&format!("{} played {}{effect}.\n", last.player_name, last.notation));
        if let Some(message) = &last.message {
            text.push_str(&format!("\n{} says:\n", last.player_name));
            for line in message.lines() {
                text.push_str(&format!("> {line}\n"));
            }
        }
    }
    text.push('\n');
    text.push_str(&board::render(snapshot, None, false).map_err(|e| e.to_string())?);
    text.push('\n');
    if let Some(deadline) = data.get("deadline").and_then(Value::as_i64) {
        text.push_str(&format!("Deadline: {} (UTC)\n", timestamp(deadline)));
    }
    let subject = if reminder {
        format!("Reminder: your move in {title}")
    } else {
        format!("Your turn in {title}")
    };
    Ok((subject, text))
}

/// A finished game's subject and text: how it ended, the rating changes
/// and the final board.
fn game_over(snapshot: &Snapshot, data: &Value, title: &str) -> Result<(String, String), String> {
    let outcome = snapshot.record.row.outcome.as_ref();
    let reason = outcome
        .and_then(|o| o.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("over");
    let mut text = format!("{title} is over ({reason}).\n\n");
    text.push_str(&rating_lines(data));
    text.push_str(&board::render(snapshot, None, false).map_err(|e| e.to_string())?);
    text.push('\n');
    Ok((format!("Game over: {title}"), text))
}

/// Each player's rating before and after a rated game, one line each
/// (`alice: 1500? -> 1662?`, `?` while provisional), and a blank line; nothing
/// for an unrated game.
fn rating_lines(data: &Value) -> String {
    let Some(ratings) = data.get("ratings").and_then(Value::as_array) else {
        return String::new();
    };
    let mut text = String::from("Ratings:\n");
    for r in ratings {
        let number = |key: &str| r.get(key).and_then(Value::as_f64).unwrap_or(0.0);
        let mark = if r.get("provisional").and_then(Value::as_bool).unwrap_or(false) {
            "?"
        } else {
            ""
        };
        let (before, after) = (number("before"), number("after"));
        text.push_str(&format!(
            "  {}: {before:.0} -> {after:.0}{mark} ({:+.0})\n",
            r.get("player").and_then(Value::as_str).unwrap_or("?"),
            after - before
        ));
    }
    text.push('\n');
    text
}

/// Several mails as one: the daily digest.
pub fn digest(mails: Vec<Mail>) -> Mail {
    let mut text = format!("{} notifications since the last digest.\n", mails.len());
    for mail in &mails {
        text.push_str(&format!("\n=== {} ===\n\n{}", mail.subject, mail.text));
    }
    Mail {
        subject: format!("Tavoliere digest: {} notifications", mails.len()),
        text,
        ..Mail::default()
    }
}
