//! `tavoliere loadtest` against the real server: short play runs over HTTP
//! and WebSocket with the replay check, the check catching a fabricated
//! loss, acknowledged moves surviving a `kill -9` of the server, the
//! loopback guard, and idle connections. Figures are reported, never
//! asserted: the machine is shared.

use crate::common;

use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Database, TestServer};
use tavoliere::loadtest::{
    self, AckedMove, Answer, LoadError, Mode, Options, PlayReport, Report, Transport, Verification,
};
use tavoliere::Config;

fn play_report(report: Report) -> PlayReport {
    match report {
        Report::Play(play) => *play,
        other => panic!("not a play report: {other:?}"),
    }
}

fn verification(report: Report) -> Verification {
    match report {
        Report::Verify(verification) => verification,
        other => panic!("not a verify report: {other:?}"),
    }
}

/// A directory for this test's files, removed at the end.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tavoliere-loadtest-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// A server for WebSocket load: a load test sends far more than a person,
/// so the per-socket limit is lifted.
async fn load_server(database: &Database) -> TestServer {
    let mut config = Config::with_database(&database.url);
    config.realtime.ws_rate = 100_000;
    config.realtime.ws_burst = 100_000;
    TestServer::start_with(config).await
}

async fn verify_file(url: &str, acked: &Path) -> Verification {
    let mut options = Options::for_url(url);
    options.mode = Mode::Verify;
    options.acked = Some(acked.to_owned());
    verification(loadtest::run(&options).await.expect("the check runs"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_over_http_and_the_check_catches_what_is_not_stored() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let dir = scratch("http");
    let acked_path = dir.join("acked.jsonl");
    let mut options = Options::for_url(&server.base);
    options.games = 4;
    options.duration = Duration::from_millis(2500);
    // Torri does not end under random play: it is resigned at the limit.
    options.game_choices = vec!["gravity".parse().expect("gravity"), "torri".parse().expect("torri")];
    options.max_plies = 40;
    // Paced, so the pacing (its alarm thread, its schedule) is exercised too.
    options.rate = Some(400.0);
    options.acked_out = Some(acked_path.clone());
    let report = play_report(loadtest::run(&options).await.expect("the run"));
    println!("{}", Report::Play(Box::new(report.clone())));
    assert!(report.moves_acked > 0, "{report:?}");
    assert!(report.games_finished >= 1, "no game ended by the rules: {report:?}");
    assert!(
        report.games_resigned >= 1,
        "no game resigned at the ply limit: {report:?}"
    );
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    // The first second is the warm-up: played and verified, not measured.
    assert!(
        report.moves_measured > 0 && report.moves_measured < report.moves_acked,
        "{report:?}"
    );
    assert!(report.ack_latency.is_some_and(|l| l.count == report.moves_measured));
    assert!(report.send_lag.is_some_and(|l| l.count == report.moves_measured));
    assert!(report.commit_to_frame.is_none(), "no frames over HTTP");
    assert!(
        report.server_after.resident_memory_bytes.is_some(),
        "/metrics shows the memory"
    );
    // The server worked for its moves, and the machine was busy meanwhile.
    assert!(report.server_cpu_us_per_move.is_some_and(|us| us > 0.0), "{report:?}");
    assert!(
        report
            .host_cpu
            .is_some_and(|h| h.busy_percent > 0.0 && h.busy_percent <= 100.0),
        "{report:?}"
    );
    let check = report.verification.expect("verified");
    assert!(check.passed, "{check}");
    assert_eq!(check.acked_moves, report.moves_acked);
    assert_eq!(
        check.moves_stored, report.moves_acked,
        "every stored move was acknowledged"
    );
    assert_eq!(check.unacknowledged, 0);

    // The saved list checks out on its own.
    let saved: Vec<AckedMove> = std::fs::read_to_string(&acked_path)
        .expect("the acknowledged moves were written")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(saved.len() as u64, report.moves_acked);
    let check = verify_file(&server.base, &acked_path).await;
    assert!(check.passed, "{check}");

    // A move the server never stored, and one stored differently: caught.
    let first = &saved[0];
    let mut fabricated = saved.clone();
    fabricated.push(AckedMove {
        game: first.game,
        ply: 10_000,
        notation: first.notation.clone(),
    });
    let other = saved
        .iter()
        .find(|m| m.game == first.game && m.ply == 2)
        .map_or("a1", |m| m.notation.as_str())
        .to_owned();
    if let Some(record) = fabricated.iter_mut().find(|m| m.game == first.game && m.ply == 1) {
        record.notation = if other != record.notation {
            other
        } else {
            "zz".to_owned()
        };
    }
    let lines: Vec<String> = fabricated
        .iter()
        .map(|m| serde_json::to_string(m).expect("JSON"))
        .collect();
    let bad_path = dir.join("fabricated.jsonl");
    std::fs::write(&bad_path, lines.join("\n")).expect("written");
    let check = verify_file(&server.base, &bad_path).await;
    println!("{check}");
    assert!(!check.passed, "{check}");
    assert_eq!(check.lost, 1, "{check}");
    assert_eq!(check.mismatched, 1, "{check}");
    assert!(check.problems.iter().any(|p| p.contains("ply 10000")), "{check}");

    server.stop().await;
    database.remove().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_over_websocket_and_times_the_opponents_frames() {
    let database = Database::new().await;
    let server = load_server(&database).await;
    let mut options = Options::for_url(&server.base);
    options.transport = Transport::Ws;
    options.games = 3;
    options.duration = Duration::from_millis(2500);
    let report = play_report(loadtest::run(&options).await.expect("the run"));
    println!("{}", Report::Play(Box::new(report.clone())));
    assert!(report.moves_acked > 0, "{report:?}");
    assert!(report.games_finished >= 1, "{report:?}");
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let commit = report.commit_to_frame.expect("commit to frame timed");
    let send = report.send_to_frame.expect("send to frame timed");
    assert!(commit.count > 0 && send.count > 0);
    // Lean: the sockets followed each game from its last join's event
    // number, so a snapshot would be a socket that lagged.
    assert_eq!(report.resyncs, 0, "{report:?}");
    assert!(report.followed, "{report:?}");
    // Each move's frame reaches at least the mover's socket, with its ack.
    assert!(report.event_frames >= report.moves_acked, "{report:?}");
    let check = report.verification.expect("verified");
    assert!(check.passed, "{check}");
    assert_eq!(check.moves_stored, report.moves_acked);

    // Without following, the sockets only move: nobody is sent a frame
    // of a game, and every move is still stored.
    options.no_follow = true;
    let report = play_report(loadtest::run(&options).await.expect("the run"));
    assert!(report.moves_acked > 0 && report.errors.is_empty(), "{report:?}");
    assert!(!report.followed, "{report:?}");
    assert_eq!(report.event_frames, 0, "{report:?}");
    assert!(report.commit_to_frame.is_none(), "{report:?}");
    let check = report.verification.expect("verified");
    assert!(check.passed, "{check}");
    assert_eq!(check.moves_stored, report.moves_acked);
    options.transport = Transport::Http;
    match loadtest::run(&options).await {
        Err(LoadError::Usage(message)) => assert!(message.contains("--no-follow"), "{message}"),
        other => panic!("--no-follow over http: expected a usage error, got {other:?}"),
    }
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn a_warmup_as_long_as_the_run_is_refused_before_anything_is_sent() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let mut options = Options::for_url(&server.base);
    options.duration = Duration::from_secs(1);
    options.warmup = Duration::from_secs(1);
    match loadtest::run(&options).await {
        Err(LoadError::Usage(message)) => assert!(message.contains("--warmup"), "{message}"),
        other => panic!("expected a usage error, got {other:?}"),
    }
    let metrics = reqwest::get(format!("{}/metrics", server.base))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics read");
    assert!(
        !metrics.contains("route=\"/api/v1/players\""),
        "nobody registered: {metrics}"
    );
    server.stop().await;
    database.remove().await;
}

/// `--answer minimal`: the answers carry no legal moves, so every move is
/// chosen from the generator's own position (a game it lost track of
/// would count an error), over both transports, in games of two and four
/// seats, with conditional replies played into the position too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plays_from_its_own_positions_with_minimal_answers() {
    let database = Database::new().await;
    let server = load_server(&database).await;
    for transport in [Transport::Http, Transport::Ws] {
        let mut options = Options::for_url(&server.base);
        options.answer = Answer::Minimal;
        options.transport = transport;
        options.games = 4;
        options.duration = Duration::from_millis(2000);
        options.game_choices = ["gravity", "pente:pro", "focus:four", "torri"]
            .iter()
            .map(|choice| choice.parse().expect("a catalogue entry"))
            .collect();
        options.max_plies = 40;
        options.conditional = 0.5;
        let report = play_report(loadtest::run(&options).await.expect("the run"));
        println!("{}", Report::Play(Box::new(report.clone())));
        assert!(report.errors.is_empty(), "{transport:?}: {:?}", report.errors);
        assert!(
            report.moves_acked > 0 && report.games_finished + report.games_resigned >= 1,
            "{report:?}"
        );
        let check = report.verification.expect("verified");
        assert!(check.passed, "{check}");
        // (A four-seat game resigned at the limit stores a concession
        // beside its moves: stored entries outnumber acknowledged moves.)
        assert_eq!(check.acked_moves, report.moves_acked);
        assert!(check.trees > 0 && check.replies_checked > 0, "{check}");
    }
    server.stop().await;
    database.remove().await;
}

/// Conditional moves in half the games, over WebSocket: the trees are set,
/// replies played and acknowledged with the moves they answer, and the
/// check follows every tree; a tree claiming another reply is caught.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conditional_lines_are_played_and_checked() {
    let database = Database::new().await;
    let server = load_server(&database).await;
    let dir = scratch("conditional");
    let acked_path = dir.join("acked.jsonl");
    let mut options = Options::for_url(&server.base);
    options.games = 4;
    options.duration = Duration::from_millis(2500);
    options.transport = Transport::Ws;
    options.conditional = 0.5;
    options.acked_out = Some(acked_path.clone());
    let report = play_report(loadtest::run(&options).await.expect("the run"));
    println!("{}", Report::Play(Box::new(report.clone())));
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let check = report.verification.expect("verified");
    assert!(check.passed, "{check}");
    assert!(check.trees > 0 && check.replies_checked > 0, "{check}");
    assert_eq!(check.unacknowledged, 0, "replies are acknowledged with their moves");
    assert_eq!(check.moves_stored, report.moves_acked);
    // Claim that a tree foresaw a stored move with another reply.
    let text = std::fs::read_to_string(&acked_path).expect("written");
    let moves: Vec<AckedMove> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let first = moves.iter().find(|m| m.ply == 1).expect("a first move");
    let forged = format!(
        "{text}{}\n",
        serde_json::json!({ "game": first.game, "ply": 0, "lines": [[first.notation, "zz"]] })
    );
    std::fs::write(&acked_path, forged).expect("written");
    let check = verify_file(&server.base, &acked_path).await;
    assert!(!check.passed && check.conditional_failures > 0, "{check}");
    server.stop().await;
    database.remove().await;
    let _ = std::fs::remove_dir_all(dir);
}

/// The server binary as a separate process, so it can be killed for real.
struct ServerProcess {
    child: Child,
    base: String,
}

impl ServerProcess {
    async fn start(database_url: &str) -> ServerProcess {
        // A free port: bound, read, released (the server binds it next).
        let port = StdListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(env!("CARGO_BIN_EXE_tavoliere"))
            .args(["--listen", &format!("127.0.0.1:{port}"), "--database-url", database_url])
            .args(["--log", "warn"])
            // A load test is one address making many players write fast:
            // the abuse limits off, as a load-testing operator would.
            .args(["--registrations-per-hour", "0", "--write-rate", "0"])
            .args(["--max-open-games", "1000000", "--max-open-invitations", "1000000"])
            .args(["--max-connections-per-address", "1000000"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let server = ServerProcess {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        let client = reqwest::Client::new();
        for _ in 0..400 {
            if let Ok(response) = client.get(format!("{}/healthz", server.base)).send().await {
                if response.status().is_success() {
                    return server;
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("the server process did not come up");
    }

    /// SIGKILL: no shutdown, no flush; only what was committed survives.
    fn kill(self) {
        drop(self);
    }
}

impl Drop for ServerProcess {
    /// Also when a test fails: no server outlives its test.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_moves_survive_kill_9() {
    let database = Database::new().await;
    let dir = scratch("crash");
    let acked_path = dir.join("acked.jsonl");
    let server = ServerProcess::start(&database.url).await;
    let mut options = Options::for_url(&server.base);
    options.games = 4;
    // Long enough that the kill, not the end of the run, stops the play.
    options.duration = Duration::from_secs(8);
    options.timeout = Duration::from_secs(2);
    options.no_verify = true;
    options.acked_out = Some(acked_path.clone());
    // Every game has conditional moves: a kill between a foreseen move and
    // its reply would leave the move alone, which the check catches.
    options.conditional = 1.0;
    let run = tokio::spawn(async move { loadtest::run(&options).await });
    // Kill it mid-play: once it has committed some moves.
    let metrics = format!("{}/metrics", server.base);
    common::until("moves committed before the kill", || async {
        let text = match reqwest::get(&metrics).await {
            Ok(response) => response.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        text.lines()
            .find_map(|line| line.strip_prefix("tavoliere_moves_committed_total "))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .is_some_and(|n| n >= 10)
    })
    .await;
    server.kill();
    let report = play_report(run.await.expect("the run ends").expect("the run"));
    println!("{}", Report::Play(Box::new(report.clone())));
    assert!(report.moves_acked > 0, "moves before the kill: {report:?}");
    assert!(
        report.errors.keys().any(|kind| kind.starts_with("transport")),
        "the server died mid-run: {:?}",
        report.errors
    );
    let restarted = ServerProcess::start(&database.url).await;
    let check = verify_file(&restarted.base, &acked_path).await;
    println!("{check}");
    assert!(check.passed, "{check}");
    assert_eq!(check.acked_moves, report.moves_acked);
    assert_eq!(check.lost, 0);
    assert!(check.games_checked > 0);
    assert!(check.trees > 0 && check.conditional_failures == 0, "{check}");
    restarted.kill();
    database.remove().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn only_loopback_is_loaded() {
    let options = Options::for_url("http://10.1.2.3:8080");
    assert!(matches!(
        loadtest::run(&options).await,
        Err(LoadError::NotLoopback { .. })
    ));
    let output = Command::new(env!("CARGO_BIN_EXE_tavoliere"))
        .args(["loadtest", "--url", "http://192.0.2.1:8080", "--duration", "1s"])
        .output()
        .expect("the command runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_report_server_memory() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let mut options = Options::for_url(&server.base);
    options.mode = Mode::Idle;
    options.connections = 50;
    options.sources = 2;
    options.hold = Duration::from_millis(300);
    let report = match loadtest::run(&options).await.expect("the run") {
        Report::Idle(idle) => idle,
        other => panic!("not an idle report: {other:?}"),
    };
    println!("{}", Report::Idle(report.clone()));
    assert_eq!(report.connections_open, 50, "{report:?}");
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert!(report.server_held.resident_memory_bytes.is_some());
    assert!(report.server_held.open_fds.is_some_and(|fds| fds >= 50), "{report:?}");
    assert!(report.bytes_per_connection.is_some());
    server.stop().await;
    database.remove().await;
}
