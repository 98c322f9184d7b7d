//! The SMTP listener: one tokio task per session, speaking RFC 5321 through
//! `smtp-proto`'s parsers (commands, dot-stuffed data), taking mail for the
//! server's domain only.
//!
//! Promises: a recipient outside the domain gets `550` (no open relay), one
//! the domain does not know gets `550` too; a message past
//! `--mail-max-size` gets `552` and is not kept; `250` at the end of `DATA`
//! is said only once the message is stored in the inbox (`451` when it
//! cannot be); recipients per message, sessions at once (in all and per
//! address), errors per session, idle time and a session's whole lifetime
//! are limited. Nothing a client sends can panic a session.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use smtp_proto::request::receiver::{DataReceiver, RequestReceiver};
use smtp_proto::{EhloResponse, Error as SmtpError, Request, Response};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::address::AddressError;
use super::inbox::{Accepted, Inbox};
use super::MailConfig;
use crate::limits::Connections;

/// Errors a session may make before it is closed.
const MAX_ERRORS: usize = 20;
/// Longest command line taken, with some room over RFC 5321's 512.
const MAX_LINE: usize = 2048;
/// How long a last `421` may take to send before the socket is dropped.
const FAREWELL: Duration = Duration::from_secs(2);

/// The limits of the listener.
#[derive(Clone, Copy, Debug)]
struct Limits {
    max_size: usize,
    max_recipients: usize,
    idle: Duration,
}

/// Accepts sessions until the task is aborted.
pub async fn serve(listener: TcpListener, inbox: Arc<Inbox>, config: &MailConfig) {
    let sessions = Arc::new(Semaphore::new(config.mail_max_sessions.max(1)));
    let per_address = Connections::new(match config.mail_max_sessions_per_address {
        0 => u32::MAX,
        cap => cap,
    });
    let lifetime = Duration::from_secs(config.mail_session_lifetime.max(1));
    let limits = Limits {
        max_size: config.mail_max_size,
        max_recipients: config.mail_max_recipients.max(1),
        idle: Duration::from_secs(config.mail_idle_timeout.max(1)),
    };
    loop {
        let (mut stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                tracing::warn!(error = %e, "SMTP accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let admitted = sessions
            .clone()
            .try_acquire_owned()
            .ok()
            .zip(per_address.admit(peer.ip()));
        let Some(places) = admitted else {
            // Said from a task of its own: a peer that does not read must
            // not hold up the accept loop.
            tokio::spawn(async move {
                let refusal = stream.write_all(b"421 4.7.0 Too many connections, try again later\r\n");
                let _ = tokio::time::timeout(FAREWELL, refusal).await;
            });
            continue;
        };
        let inbox = inbox.clone();
        tokio::spawn(async move {
            let mut session = Session::new(inbox, limits, peer);
            match tokio::time::timeout(lifetime, session.run(&mut stream)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::debug!(%peer, error = %e, "SMTP session ended"),
                Err(_) => {
                    tracing::debug!(%peer, "SMTP session closed: it lasted too long");
                    let farewell = stream.write_all(b"421 4.4.2 Session lasted too long, closing\r\n");
                    let _ = tokio::time::timeout(FAREWELL, farewell).await;
                }
            }
            drop(places);
        });
    }
}

/// Where a session is.
enum Mode {
    Commands,
    Data {
        receiver: DataReceiver,
        message: Vec<u8>,
        too_big: bool,
    },
}

/// What the session does after answering.
#[derive(PartialEq, Eq)]
enum Then {
    Go,
    Close,
}

struct Session {
    inbox: Arc<Inbox>,
    limits: Limits,
    peer: SocketAddr,
    from: Option<String>,
    /// Each recipient with the player it names.
    recipients: Vec<(String, i64)>,
    errors: usize,
}

/// Skips a command line longer than RFC 5321 allows (and than
/// `smtp-proto` buffers) when it is whole in `bytes`; the parser refuses a
/// long line that comes in pieces itself.
fn skip_long_line(bytes: &mut std::slice::Iter<'_, u8>) -> bool {
    let rest = bytes.as_slice();
    match rest.iter().position(|&b| b == b'\n') {
        Some(end) if end > MAX_LINE => {
            *bytes = rest[end + 1..].iter();
            true
        }
        _ => false,
    }
}

fn reply(out: &mut Vec<u8>, code: u16, esc: [u8; 3], message: &str) {
    let _ = Response::new(code, esc[0], esc[1], esc[2], message).write(out);
}

impl Session {
    fn new(inbox: Arc<Inbox>, limits: Limits, peer: SocketAddr) -> Session {
        Session {
            inbox,
            limits,
            peer,
            from: None,
            recipients: Vec::new(),
            errors: 0,
        }
    }

    async fn run(&mut self, stream: &mut TcpStream) -> std::io::Result<()> {
        let domain = self.inbox.domain().to_owned();
        stream
            .write_all(format!("220 {domain} Tavoliere ESMTP ready\r\n").as_bytes())
            .await?;
        let mut requests = RequestReceiver::default();
        let mut mode = Mode::Commands;
        let mut buffer = vec![0u8; 8192];
        loop {
            let read = tokio::time::timeout(self.limits.idle, stream.read(&mut buffer)).await;
            let n = match read {
                Err(_) => {
                    stream.write_all(b"421 4.4.2 Idle for too long, closing\r\n").await?;
                    return Ok(());
                }
                Ok(n) => n?,
            };
            if n == 0 {
                return Ok(());
            }
            let mut bytes = buffer[..n].iter();
            let mut out = Vec::new();
            let then = self.ingest(&mut bytes, &mut requests, &mut mode, &mut out).await;
            stream.write_all(&out).await?;
            if then == Then::Close {
                return Ok(());
            }
        }
    }

    /// Handles every complete command or message in `bytes`.
    async fn ingest(
        &mut self,
        bytes: &mut std::slice::Iter<'_, u8>,
        requests: &mut RequestReceiver,
        mode: &mut Mode,
        out: &mut Vec<u8>,
    ) -> Then {
        loop {
            if let Mode::Data {
                receiver,
                message,
                too_big,
            } = mode
            {
                let done = receiver.ingest(bytes, message);
                if message.len() > self.limits.max_size {
                    // Read to the end, keep nothing.
                    *too_big = true;
                    message.clear();
                }
                if !done {
                    return Then::Go;
                }
                let message = std::mem::take(message);
                let too_big = *too_big;
                *mode = Mode::Commands;
                self.end_of_data(message, too_big, out).await;
                continue;
            }
            if skip_long_line(bytes) {
                self.refuse(&SmtpError::ResponseTooLong, out);
                continue;
            }
            let request = match requests.ingest(bytes) {
                Ok(request) => request.into_owned(),
                Err(SmtpError::NeedsMoreData { .. }) => return Then::Go,
                Err(error) => {
                    self.refuse(&error, out);
                    if self.errors >= MAX_ERRORS {
                        reply(out, 421, [4, 7, 0], "Too many errors, closing");
                        return Then::Close;
                    }
                    continue;
                }
            };
            if self.command(request, mode, out).await == Then::Close {
                return Then::Close;
            }
        }
    }

    fn refuse(&mut self, error: &SmtpError, out: &mut Vec<u8>) {
        self.errors += 1;
        match error {
            SmtpError::ResponseTooLong => reply(out, 500, [5, 5, 2], "Line too long"),
            SmtpError::UnknownCommand => reply(out, 500, [5, 5, 1], "Command not recognized"),
            SmtpError::InvalidSenderAddress => reply(out, 501, [5, 1, 7], "Bad sender address"),
            SmtpError::InvalidRecipientAddress => reply(out, 501, [5, 1, 3], "Bad recipient address"),
            SmtpError::SyntaxError { syntax } => reply(out, 501, [5, 5, 4], &format!("Syntax: {syntax}")),
            SmtpError::InvalidParameter { param } => reply(out, 501, [5, 5, 4], &format!("Bad parameter {param}")),
            SmtpError::UnsupportedParameter { .. } => reply(out, 555, [5, 5, 4], "Unsupported parameter"),
            _ => reply(out, 500, [5, 5, 2], "Syntax error"),
        }
    }

    fn reset(&mut self) {
        self.from = None;
        self.recipients.clear();
    }

    async fn command(&mut self, request: Request<String>, mode: &mut Mode, out: &mut Vec<u8>) -> Then {
        match request {
            Request::Ehlo { .. } | Request::Lhlo { .. } => {
                self.reset();
                let mut ehlo = EhloResponse::new(self.inbox.domain());
                ehlo.capabilities =
                    smtp_proto::EXT_SIZE | smtp_proto::EXT_8BIT_MIME | smtp_proto::EXT_ENHANCED_STATUS_CODES;
                ehlo.size = self.limits.max_size;
                let _ = ehlo.write(&mut *out);
            }
            Request::Helo { .. } => {
                self.reset();
                reply(out, 250, [2, 0, 0], self.inbox.domain());
            }
            Request::Mail { from } => {
                if self.from.is_some() {
                    self.errors += 1;
                    reply(out, 503, [5, 5, 1], "Sender already given");
                } else if from.size > self.limits.max_size {
                    reply(out, 552, [5, 3, 4], "Message too big");
                } else {
                    self.from = Some(from.address.to_ascii_lowercase());
                    reply(out, 250, [2, 1, 0], "OK");
                }
            }
            Request::Rcpt { to } => self.recipient(&to.address, out).await,
            Request::Data => {
                if self.recipients.is_empty() {
                    self.errors += 1;
                    reply(out, 503, [5, 5, 1], "No valid recipients");
                } else {
                    *mode = Mode::Data {
                        receiver: DataReceiver::new(),
                        message: Vec::new(),
                        too_big: false,
                    };
                    reply(out, 354, [2, 0, 0], "End data with <CR><LF>.<CR><LF>");
                }
            }
            Request::Rset => {
                self.reset();
                reply(out, 250, [2, 0, 0], "OK");
            }
            Request::Noop { .. } => reply(out, 250, [2, 0, 0], "OK"),
            Request::Vrfy { .. } => reply(out, 252, [2, 5, 0], "Cannot verify, send mail and see"),
            Request::Help { .. } => reply(out, 214, [2, 0, 0], "Mail your commands; send \"help\" in a mail"),
            Request::Quit => {
                reply(out, 221, [2, 0, 0], "Bye");
                return Then::Close;
            }
            Request::StartTls => reply(out, 454, [4, 7, 0], "TLS not available: put an MTA in front"),
            _ => {
                self.errors += 1;
                reply(out, 502, [5, 5, 1], "Command not implemented");
            }
        }
        Then::Go
    }

    async fn recipient(&mut self, address: &str, out: &mut Vec<u8>) {
        if self.from.is_none() {
            self.errors += 1;
            return reply(out, 503, [5, 5, 1], "Sender first");
        }
        if self.recipients.len() >= self.limits.max_recipients {
            return reply(out, 452, [4, 5, 3], "Too many recipients");
        }
        match self.inbox.recipient(address).await {
            Ok(Ok(player)) => {
                self.recipients.push((address.to_ascii_lowercase(), player));
                reply(out, 250, [2, 1, 5], "OK");
            }
            Ok(Err(AddressError::OtherDomain)) => {
                self.errors += 1;
                tracing::info!(peer = %self.peer, "SMTP relay attempt refused");
                reply(out, 550, [5, 7, 1], "Relaying denied");
            }
            Ok(Err(AddressError::Unknown)) => {
                self.errors += 1;
                reply(out, 550, [5, 1, 1], "No such mailbox");
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot look up a mail recipient");
                reply(out, 451, [4, 3, 0], "Try again later");
            }
        }
    }

    async fn end_of_data(&mut self, message: Vec<u8>, too_big: bool, out: &mut Vec<u8>) {
        let from = self.from.take().unwrap_or_default();
        let recipients = std::mem::take(&mut self.recipients);
        if too_big {
            return reply(out, 552, [5, 3, 4], "Message too big");
        }
        match self.inbox.accept(&from, &recipients, message).await {
            Ok(Accepted::Stored) => reply(out, 250, [2, 0, 0], "Stored"),
            Ok(Accepted::Duplicate) => reply(out, 250, [2, 0, 0], "Already stored"),
            Err(e) => {
                tracing::warn!(error = %e, "cannot store a received mail");
                reply(out, 451, [4, 3, 0], "Cannot store the message now, try again later");
            }
        }
    }
}
