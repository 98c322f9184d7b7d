//! Minimal real-time measurements, ignored by default (they take seconds and
//! want the machine to themselves); the figures go to BENCHMARKS.md. A full
//! load generator (`tavoliere loadtest`) is separate work.
//!
//! ```sh
//! cargo test --release --test realtime_bench -- --ignored --nocapture --test-threads 1
//! ```

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Database, TestServer};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tavoliere::rules::AnyGame;
use tokio::net::TcpSocket;
use tokio::sync::Mutex;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(base: &str, token: &str) -> Socket {
    let url = format!("{}/api/v1/ws", base.replacen("http", "ws", 1));
    let mut request = url.into_client_request().expect("a request");
    request
        .headers_mut()
        .insert("authorization", format!("Bearer {token}").parse().expect("header"));
    tokio_tungstenite::connect_async(request).await.expect("upgrade").0
}

async fn next_json<S>(socket: &mut tokio_tungstenite::WebSocketStream<S>) -> Value
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        match socket.next().await.expect("open").expect("frame") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).expect("JSON"),
            _ => continue,
        }
    }
}

fn line() -> Vec<String> {
    let mut position = AnyGame::new("gravity", Some("standard")).expect("gravity");
    let mut line = Vec::new();
    while !position.is_finished() {
        let legal = position.legal_moves();
        let m = legal[(line.len() * 7 + 3) % legal.len()].clone();
        position.play(&m).expect("legal");
        line.push(m);
    }
    line
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

/// `GAMES` games played in parallel over WebSocket, each mover pacing its
/// moves so that the whole server sees about `RATE` moves per second. For
/// each move: from the moment the mover sends it (so the figure includes
/// the commit) to the opponent's `event` frame.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn move_to_opponent_frame_latency() {
    const GAMES: usize = 50;
    const RATE: f64 = 1000.0;
    const SECONDS: f64 = 5.0;
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let line = Arc::new(line());
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let per_game_interval = Duration::from_secs_f64(GAMES as f64 / RATE);
    let mut tasks = Vec::new();
    for _ in 0..GAMES {
        let (server_base, alice, bob, line, latencies) = (
            server.base.clone(),
            alice.clone(),
            bob.clone(),
            line.clone(),
            latencies.clone(),
        );
        let client = server.client.clone();
        tasks.push(tokio::spawn(async move {
            let mut sockets = [connect(&server_base, &alice).await, connect(&server_base, &bob).await];
            let mut pace = tokio::time::interval(per_game_interval);
            while started.elapsed().as_secs_f64() < SECONDS {
                let created: Value = client
                    .post(format!("{server_base}/api/v1/games"))
                    .bearer_auth(&alice)
                    .json(&json!({ "game": "gravity", "opponents": ["bob"] }))
                    .send()
                    .await
                    .expect("sent")
                    .json()
                    .await
                    .expect("JSON");
                let id = created["id"].as_i64().expect("id");
                client
                    .post(format!("{server_base}/api/v1/games/{id}/join"))
                    .bearer_auth(&bob)
                    .send()
                    .await
                    .expect("joined");
                for socket in sockets.iter_mut() {
                    socket
                        .send(Message::text(
                            json!({ "type": "subscribe", "game": id, "id": "s" }).to_string(),
                        ))
                        .await
                        .expect("sent");
                    while next_json(socket).await["type"] != "ack" {}
                }
                for (ply, notation) in line.iter().enumerate() {
                    pace.tick().await;
                    let (mover, opponent) = sockets.split_at_mut(1);
                    let (mover, opponent) = if ply % 2 == 0 {
                        (&mut mover[0], &mut opponent[0])
                    } else {
                        (&mut opponent[0], &mut mover[0])
                    };
                    let sent = Instant::now();
                    let frame = json!({ "type": "move", "game": id, "move": notation, "ply": ply, "id": "m" });
                    mover.send(Message::text(frame.to_string())).await.expect("sent");
                    loop {
                        let frame = next_json(opponent).await;
                        if frame["type"] == "event" && frame["kind"] == "move" {
                            latencies.lock().await.push(sent.elapsed());
                            break;
                        }
                    }
                    loop {
                        let frame = next_json(mover).await;
                        if frame["type"] == "ack" || frame["type"] == "error" {
                            assert_eq!(frame["type"], "ack", "{frame}");
                            break;
                        }
                    }
                }
                for socket in sockets.iter_mut() {
                    socket
                        .send(Message::text(
                            json!({ "type": "unsubscribe", "game": id, "id": "u" }).to_string(),
                        ))
                        .await
                        .expect("sent");
                    while next_json(socket).await["type"] != "ack" {}
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("a game driver");
    }
    let elapsed = started.elapsed();
    let mut latencies = latencies.lock().await.clone();
    latencies.sort();
    println!(
        "moves: {} in {:.1} s = {:.0}/s; send-to-opponent-frame p50 {:?} p90 {:?} p99 {:?} max {:?} ({})",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.9),
        percentile(&latencies, 0.99),
        latencies.last().copied().unwrap_or_default(),
        if database.is_postgres() { "PostgreSQL" } else { "SQLite" },
    );
    server.stop().await;
    database.remove().await;
}

/// The server's process, killed however the measurement ends.
struct ServerProcess(std::process::Child);

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// The server binary in its own process (to read its RSS), `CONNECTIONS`
/// idle authenticated sockets (default 20,000) opened from 127.0.0.2… so no
/// source address runs out of ports. Needs `ulimit -n` above twice that.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn memory_of_idle_authenticated_connections() {
    let connections: usize = std::env::var("CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let dir = std::env::temp_dir().join(format!("tavoliere_bench_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        probe.local_addr().expect("address").port()
    };
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_tavoliere"))
        .args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--log", "warn"])
        .arg("--database-url")
        .arg(format!("sqlite://{}", dir.join("bench.db").display()))
        .spawn()
        .expect("the server starts");
    let pid = child.id();
    let server = ServerProcess(child);
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let mut token = String::new();
    for _ in 0..200 {
        if let Ok(response) = client
            .post(format!("{base}/api/v1/players"))
            .json(&json!({ "name": "idle", "password": "correct horse" }))
            .send()
            .await
        {
            let body: Value = response.json().await.expect("JSON");
            token = body["token"].as_str().expect("a token").to_owned();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!token.is_empty(), "the server came up");
    let before = rss_kib(pid);
    let started = Instant::now();
    let mut sockets = Vec::with_capacity(connections);
    let url = format!("ws://127.0.0.1:{port}/api/v1/ws");
    for i in 0..connections {
        // 127.0.0.2 … 127.0.0.9: 2,500 connections per source address.
        let source: std::net::IpAddr = format!("127.0.0.{}", 2 + i % 8).parse().expect("an address");
        let tcp = TcpSocket::new_v4().expect("a socket");
        tcp.bind((source, 0).into()).expect("bind a source address");
        let stream = tcp
            .connect(format!("127.0.0.1:{port}").parse().expect("an address"))
            .await
            .expect("connect");
        let mut request = url.as_str().into_client_request().expect("a request");
        request
            .headers_mut()
            .insert("authorization", format!("Bearer {token}").parse().expect("header"));
        let (mut socket, _) = tokio_tungstenite::client_async(request, stream).await.expect("upgrade");
        if i % 1000 == 0 {
            // Prove the connection is live and authenticated.
            socket
                .send(Message::text(
                    json!({ "type": "subscribe_player", "id": i }).to_string(),
                ))
                .await
                .expect("sent");
            let answer = next_json(&mut socket).await;
            assert_eq!(answer["type"], "ack", "{answer}");
        }
        sockets.push(socket);
    }
    let opened = started.elapsed();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = rss_kib(pid);
    println!(
        "{connections} idle authenticated WebSockets opened in {:.1} s; server RSS {} MiB before, {} MiB after: {:.1} KiB per connection",
        opened.as_secs_f64(),
        before / 1024,
        after / 1024,
        (after - before) as f64 / connections as f64
    );
    drop(sockets);
    drop(server);
    assert!(after < 1024 * 1024, "under 1 GiB");
    let _ = std::fs::remove_dir_all(&dir);
}
