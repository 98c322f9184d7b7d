//! The report: text for people, one JSON object (`--json`) for scripts.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use serde::Serialize;

use super::client::ProcessFigures;
use super::host::HostCpu;
use super::options::{Answer, GameChoice, Transport};
use super::stats::Summary;
use super::verify::Verification;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "mode", rename_all = "lowercase")]
pub enum Report {
    Play(Box<PlayReport>),
    Idle(IdleReport),
    Verify(Verification),
}

impl Report {
    /// False when the replay check ran and failed: the command then exits
    /// non-zero.
    pub fn passed(&self) -> bool {
        match self {
            Report::Play(play) => play.verification.as_ref().is_none_or(|v| v.passed),
            Report::Idle(_) => true,
            Report::Verify(verification) => verification.passed,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct PlayReport {
    pub url: String,
    /// The server's database, as `/healthz` names it.
    pub backend: Option<String>,
    pub transport: Transport,
    /// The answer moves asked for (`--answer`).
    pub answer: Answer,
    /// ws: whether the players' sockets followed their games (each move's
    /// frame sent to every seat), `false` with `--no-follow` and over http.
    pub followed: bool,
    pub games_in_flight: u32,
    pub game_choices: Vec<GameChoice>,
    /// `--rate`, moves per second; `null`: as fast as answered.
    pub rate_target: Option<f64>,
    /// Registering players and opening sockets, before the clock starts.
    pub setup_seconds: f64,
    /// From the first move sent to the last answer received.
    pub seconds: f64,
    pub moves_acked: u64,
    /// `--warmup`: moves due in these first seconds are played and
    /// verified but left out of the figures below.
    pub warmup_seconds: f64,
    /// Acknowledged moves due after the warm-up.
    pub moves_measured: u64,
    /// Of the measured moves, over the run after the warm-up.
    pub moves_per_second: f64,
    /// Acknowledgements of a retry (`created: false`); none expected.
    pub retries_acked: u64,
    /// From the send (with `--rate`: from when the move was due) to its
    /// acknowledgement.
    pub ack_latency: Option<Summary>,
    /// With `--rate`: how late the generator itself sent each move (its
    /// timer and its share of the cores), included in `ack_latency`.
    pub send_lag: Option<Summary>,
    /// ws: from the server's commit (`committed_us`) to an opponent's frame.
    pub commit_to_frame: Option<Summary>,
    /// ws: from the mover's send to an opponent's frame.
    pub send_to_frame: Option<Summary>,
    /// ws: snapshots beyond those of the subscriptions (a socket lagged).
    pub resyncs: u64,
    /// ws: `event` frames the players' sockets received (none with
    /// `--no-follow`).
    pub event_frames: u64,
    /// By kind: `http <status> <code>`, `ws <code>`, `transport …`.
    pub errors: BTreeMap<String, u64>,
    pub games_started: u64,
    /// Ended by the rules.
    pub games_finished: u64,
    /// Resigned at `--max-plies`.
    pub games_resigned: u64,
    pub server_before: ProcessFigures,
    pub server_after: ProcessFigures,
    /// The server's CPU time over the run (warm-up included) per
    /// acknowledged move.
    pub server_cpu_us_per_move: Option<f64>,
    /// The whole machine over the run: server, database and generator.
    pub host_cpu: Option<HostCpu>,
    pub verification: Option<Verification>,
}

#[derive(Clone, Debug, Serialize)]
pub struct IdleReport {
    pub url: String,
    pub connections_requested: u64,
    /// Still open at the end of the hold.
    pub connections_open: u64,
    /// Connections that could not be opened, by kind.
    pub failed: BTreeMap<String, u64>,
    pub sources: u32,
    pub connect_seconds: f64,
    pub hold_seconds: f64,
    pub server_before: ProcessFigures,
    /// Read at the end of the hold, with the connections open.
    pub server_held: ProcessFigures,
    /// Growth of the server's resident memory per open connection.
    pub bytes_per_connection: Option<u64>,
}

fn mib(bytes: Option<u64>) -> String {
    bytes.map_or("?".to_owned(), |b| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)))
}

fn count(value: Option<u64>) -> String {
    value.map_or("?".to_owned(), |v| v.to_string())
}

fn latency(out: &mut String, name: &str, summary: &Option<Summary>) {
    let _ = match summary {
        Some(s) => writeln!(
            out,
            "{name:<22} p50 {:.2} ms  p90 {:.2} ms  p99 {:.2} ms  max {:.2} ms  ({} samples)",
            s.p50_ms, s.p90_ms, s.p99_ms, s.max_ms, s.count
        ),
        None => writeln!(out, "{name:<22} no samples"),
    };
}

fn errors(out: &mut String, errors: &BTreeMap<String, u64>) {
    if errors.is_empty() {
        let _ = writeln!(out, "errors                 none");
        return;
    }
    let _ = writeln!(out, "errors");
    for (kind, n) in errors {
        let _ = writeln!(out, "  {n:>8}  {kind}");
    }
    if errors.keys().any(|k| k.contains("rate_limited")) {
        let _ = writeln!(
            out,
            "  (the server limits WebSocket messages per socket: start it with a larger --ws-rate and --ws-burst)"
        );
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        match self {
            Report::Play(r) => r.write_text(&mut out),
            Report::Idle(r) => r.write_text(&mut out),
            Report::Verify(v) => {
                let _ = writeln!(out, "{v}");
            }
        }
        f.write_str(out.trim_end())
    }
}

impl PlayReport {
    /// The text report, one section after another.
    fn write_text(&self, out: &mut String) {
        self.write_headline(out);
        self.write_moves(out);
        self.write_latencies(out);
        self.write_games(out);
        errors(out, &self.errors);
        self.write_server(out);
        self.write_verification(out);
    }

    fn write_headline(&self, out: &mut String) {
        let choices: Vec<String> = self.game_choices.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            out,
            "loadtest play over {}{} ({} answers) against {} ({}): {} games in flight ({}), {}",
            self.transport,
            if self.transport == Transport::Ws && !self.followed {
                " (games not followed)"
            } else {
                ""
            },
            self.answer,
            self.url,
            self.backend.as_deref().unwrap_or("backend unknown"),
            self.games_in_flight,
            choices.join(", "),
            self.rate_target
                .map_or("as fast as answered".to_owned(), |rate| format!(
                    "paced at {rate} moves/s"
                ))
        );
    }

    fn write_moves(&self, out: &mut String) {
        let _ = writeln!(out, "setup                  {:.2} s", self.setup_seconds);
        let _ = writeln!(
            out,
            "moves acknowledged     {} in {:.2} s",
            self.moves_acked, self.seconds
        );
        let _ = writeln!(
            out,
            "measured               {} after a {:.1} s warm-up = {:.1} moves/s",
            self.moves_measured, self.warmup_seconds, self.moves_per_second
        );
    }

    fn write_latencies(&self, out: &mut String) {
        latency(out, "ack latency", &self.ack_latency);
        if self.send_lag.is_some() {
            latency(out, "of which send lag", &self.send_lag);
        }
        if self.followed {
            latency(out, "commit → frame", &self.commit_to_frame);
            latency(out, "send → frame", &self.send_to_frame);
            let _ = writeln!(out, "resyncs (lag)          {}", self.resyncs);
        }
        if self.transport == Transport::Ws {
            let _ = writeln!(out, "event frames received  {}", self.event_frames);
        }
    }

    fn write_games(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "games                  {} started, {} finished by the rules, {} resigned at the ply limit",
            self.games_started, self.games_finished, self.games_resigned
        );
        if self.retries_acked > 0 {
            let _ = writeln!(out, "retries acknowledged   {}", self.retries_acked);
        }
    }

    /// The server's memory and descriptors, and the CPU time of the server
    /// and of the whole machine.
    fn write_server(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "server memory          {} before, {} after; open fds {} before, {} after",
            mib(self.server_before.resident_memory_bytes),
            mib(self.server_after.resident_memory_bytes),
            count(self.server_before.open_fds),
            count(self.server_after.open_fds)
        );
        if let Some(us) = self.server_cpu_us_per_move {
            let _ = writeln!(out, "server CPU             {us:.0} µs per acknowledged move");
        }
        if let Some(host) = self.host_cpu {
            let _ = writeln!(
                out,
                "host CPU               {:.0}% busy, {:.1}% stolen by the hypervisor (all cores)",
                host.busy_percent, host.steal_percent
            );
        }
    }

    fn write_verification(&self, out: &mut String) {
        let _ = match &self.verification {
            Some(v) => writeln!(out, "{v}"),
            None => writeln!(out, "verification: skipped (--no-verify)"),
        };
    }
}

impl IdleReport {
    fn write_text(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "loadtest idle against {}: {} of {} connections open after {:.1} s, from {} source address(es)",
            self.url, self.connections_open, self.connections_requested, self.hold_seconds, self.sources
        );
        let _ = writeln!(out, "connecting took         {:.2} s", self.connect_seconds);
        if self.failed.is_empty() {
            let _ = writeln!(out, "failed                  none");
        } else {
            let _ = writeln!(out, "failed");
            for (kind, n) in &self.failed {
                let _ = writeln!(out, "  {n:>8}  {kind}");
            }
        }
        let _ = writeln!(
            out,
            "server memory           {} before, {} with the connections open",
            mib(self.server_before.resident_memory_bytes),
            mib(self.server_held.resident_memory_bytes)
        );
        let _ = writeln!(
            out,
            "server open fds         {} before, {} with the connections open",
            count(self.server_before.open_fds),
            count(self.server_held.open_fds)
        );
        let _ = writeln!(
            out,
            "per connection          {}",
            self.bytes_per_connection
                .map_or("?".to_owned(), |b| format!("{b} bytes ({:.1} KiB)", b as f64 / 1024.0))
        );
    }
}
