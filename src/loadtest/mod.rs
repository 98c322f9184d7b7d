//! `tavoliere loadtest`: a load generator. It is a *client* of the server,
//! not part of it: it drives a running server from outside over real HTTP
//! and WebSocket connections, exactly as players' programs would, and
//! shares nothing with the server process but the rules (to replay
//! histories) and the wire formats.
//!
//! - [`Mode::Play`]: players register, open games, and play random legal
//!   moves over HTTP or WebSocket; throughput, acknowledgement latency,
//!   commit-to-frame latency, errors, server memory and CPU, the machine's
//!   load (`host.rs`); then the replay check
//!   ([`verify`]).
//! - [`Mode::Idle`]: many idle authenticated WebSockets; server memory per
//!   connection.
//! - [`Mode::Verify`]: the replay check alone, for the acknowledged moves an
//!   earlier run saved (after killing and restarting the server, say).
//!
//! It only ever targets loopback (checked before any request) and always
//! stops by itself. README.md, "Load testing", has the commands.

mod alarm;
mod client;
mod conditional;
mod host;
mod idle;
pub mod options;
mod pace;
mod play;
mod players;
mod position;
pub mod report;
mod stats;
pub mod verify;
mod ws;

use std::collections::BTreeSet;
use std::path::PathBuf;

pub use client::{ProcessFigures, RequestError};
pub use conditional::AckedTree;
pub use options::{Answer, GameChoice, Mode, Options, Transport};
pub use report::{IdleReport, PlayReport, Report};
pub use stats::Summary;
pub use verify::{Acked, AckedMove, Verification};

/// Why a load test could not run (a failed verification is not an error:
/// it is in the [`Report`]).
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("bad URL {0}")]
    BadUrl(String),
    #[error("cannot resolve {host}: {error}")]
    Resolve { host: String, error: String },
    #[error(
        "refusing to load {host}: it resolves to {addresses:?}, not only to loopback; \
         loadtest only targets 127.0.0.0/8 and ::1"
    )]
    NotLoopback { host: String, addresses: Vec<String> },
    #[error("setup failed, {step}: {error}")]
    Setup { step: String, error: RequestError },
    #[error("acknowledged moves file {path:?}: {error}")]
    AckedFile { path: PathBuf, error: String },
    #[error("{0}")]
    Usage(String),
    #[error("starting the pacing thread: {0}")]
    Pacing(std::io::Error),
    #[error("internal error: {0}")]
    Internal(String),
}

/// Runs the load test `options` describe and reports. The URL is checked
/// for loopback before anything is sent.
pub async fn run(options: &Options) -> Result<Report, LoadError> {
    let target = client::Target::resolve(&options.url).await?;
    raise_open_files_limit();
    let api = client::Api::new(target, options.timeout)?;
    match options.mode {
        Mode::Play => Ok(Report::Play(Box::new(play::run(&api, options).await?))),
        Mode::Idle => Ok(Report::Idle(idle::run(&api, options).await?)),
        Mode::Verify => {
            let path = options
                .acked
                .as_ref()
                .ok_or_else(|| LoadError::Usage("--mode verify needs --acked FILE".to_owned()))?;
            let acked = verify::read_acked(path)?;
            let games: BTreeSet<i64> = acked.moves.iter().map(|m| m.game).collect();
            // After a crash, moves committed but never acknowledged are expected.
            Ok(Report::Verify(verify::verify(&api, &games, &acked, false).await))
        }
    }
}

/// Every connection is a file descriptor: lift the soft limit to the hard
/// one (raising the hard limit is root's business: `ulimit -Hn`, `prlimit`).
fn raise_open_files_limit() {
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        eprintln!("loadtest: cannot raise the open files limit: {e}");
    }
}
