//! Test helpers: the real server on `127.0.0.1:0`, on a fresh SQLite file,
//! or on a fresh PostgreSQL database when `TEST_DATABASE_URL` names a server
//! (each test creates its own database, so tests run in parallel).

#![allow(dead_code)]

pub mod smtp;
mod ws;

#[allow(unused_imports)]
pub use ws::{connect, Ws};

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::Connection;
use tavoliere::Config;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn unique_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "tavoliere_test_{}_{}_{}",
        std::process::id(),
        nanos % 1_000_000_000_000,
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A database for one test, removed by [`Database::remove`].
pub struct Database {
    pub url: String,
    dir: Option<PathBuf>,
    postgres: Option<(String, String)>,
}

impl Database {
    pub async fn new() -> Database {
        let name = unique_name();
        match std::env::var("TEST_DATABASE_URL") {
            Ok(admin) if !admin.is_empty() => {
                let mut connection = sqlx::PgConnection::connect(&admin)
                    .await
                    .expect("connect to TEST_DATABASE_URL");
                sqlx::query(&format!("CREATE DATABASE \"{name}\""))
                    .execute(&mut connection)
                    .await
                    .expect("create a test database");
                let _ = connection.close().await;
                let base = admin.split('?').next().unwrap_or(&admin);
                let slash = base.rfind('/').expect("a database URL has a path");
                let url = format!("{}/{name}", &base[..slash]);
                Database {
                    url,
                    dir: None,
                    postgres: Some((admin, name)),
                }
            }
            _ => {
                let dir = std::env::temp_dir().join(&name);
                std::fs::create_dir_all(&dir).expect("create a temporary directory");
                let url = format!("sqlite://{}", dir.join("test.db").display());
                Database {
                    url,
                    dir: Some(dir),
                    postgres: None,
                }
            }
        }
    }

    pub fn is_postgres(&self) -> bool {
        self.postgres.is_some()
    }

    /// Deletes the database (call after stopping every server using it).
    pub async fn remove(self) {
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
        if let Some((admin, name)) = &self.postgres {
            if let Ok(mut connection) = sqlx::PgConnection::connect(admin).await {
                let _ = sqlx::query(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .execute(&mut connection)
                    .await;
                let _ = connection.close().await;
            }
        }
    }
}

/// A running server and an HTTP client.
pub struct TestServer {
    pub base: String,
    /// The SMTP listener, when play by mail is on.
    pub mail: Option<std::net::SocketAddr>,
    pub client: reqwest::Client,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl TestServer {
    pub async fn start(database: &Database) -> TestServer {
        Self::start_with(Config::with_database(&database.url)).await
    }

    /// A server as `tavoliere serve` wires it (the notifier asks the
    /// real-time hub who is connected), its abuse limits lifted (see
    /// [`relaxed`]).
    pub async fn start_with(config: Config) -> TestServer {
        Self::start_serving(relaxed(config), None).await
    }

    /// A server with play by mail on, its SMTP listener on `127.0.0.1:0`,
    /// its abuse limits lifted.
    pub async fn start_with_mail(config: Config) -> TestServer {
        let mail = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        Self::start_serving(relaxed(config), Some(mail)).await
    }

    /// A server with the abuse limits as `config` has them (the defaults,
    /// unless the test changed them): what `tests/abuse.rs` checks.
    pub async fn start_guarded(config: Config) -> TestServer {
        Self::start_serving(config, None).await
    }

    /// [`Self::start_guarded`] with play by mail on.
    pub async fn start_guarded_with_mail(config: Config) -> TestServer {
        let mail = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        Self::start_serving(config, Some(mail)).await
    }

    async fn start_serving(config: Config, mail: Option<TcpListener>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let address = listener.local_addr().expect("local address");
        let mail_address = mail.as_ref().map(|m| m.local_addr().expect("local address"));
        let (tx, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            tavoliere::run_with_mail(listener, mail, config, async {
                let _ = rx.await;
            })
            .await
            .expect("the server runs");
        });
        let server = TestServer {
            base: format!("http://{address}"),
            mail: mail_address,
            client: reqwest::Client::new(),
            shutdown: Some(tx),
            handle: Some(handle),
        };
        // Wait until migrated and serving.
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while tokio::time::Instant::now() < deadline {
            if let Ok(r) = server.client.get(format!("{}/healthz", server.base)).send().await {
                if r.status().is_success() {
                    return server;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("the server did not come up");
    }

    /// Stops the server and waits until it is gone.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(handle) = self.handle.take() {
            handle.await.expect("the server stopped cleanly");
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}/api/v1{path}", self.base)
    }

    fn auth(request: reqwest::RequestBuilder, token: Option<&str>) -> reqwest::RequestBuilder {
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    pub async fn send(&self, request: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let response = request.send().await.expect("request sent");
        let status = response.status();
        let text = response.text().await.expect("body read");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        self.send(Self::auth(self.client.get(self.url(path)), token)).await
    }

    pub async fn get_text(&self, path: &str, token: Option<&str>) -> (StatusCode, String, String) {
        let response = Self::auth(self.client.get(self.url(path)), token)
            .send()
            .await
            .expect("request sent");
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        (status, content_type, response.text().await.expect("body read"))
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        self.send(Self::auth(self.client.post(self.url(path)), token).json(&body))
            .await
    }

    pub async fn patch(&self, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
        self.send(Self::auth(self.client.patch(self.url(path)), token).json(&body))
            .await
    }

    pub async fn post_empty(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        self.send(Self::auth(self.client.post(self.url(path)), token)).await
    }

    /// Registers a player; returns their token.
    pub async fn register(&self, name: &str) -> String {
        let (status, body) = self
            .post("/players", None, json!({ "name": name, "password": "correct horse" }))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["token"].as_str().expect("a token").to_owned()
    }

    /// Registers a player with the address `<name>@example.org`; returns
    /// their token.
    pub async fn register_with_email(&self, name: &str) -> String {
        let (status, body) = self
            .post(
                "/players",
                None,
                json!({ "name": name, "password": "correct horse", "email": format!("{name}@example.org") }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["token"].as_str().expect("a token").to_owned()
    }

    /// A started game of `game`/`variant` between the given players, seat
    /// order as given; returns its id.
    pub async fn start_game(&self, game: &str, variant: &str, tokens: &[&str], names: &[&str]) -> i64 {
        let (status, body) = self
            .post(
                "/games",
                Some(tokens[0]),
                json!({ "game": game, "variant": variant, "opponents": names[1..] }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let id = body["id"].as_i64().expect("an id");
        for token in &tokens[1..] {
            let (status, body) = self.post_empty(&format!("/games/{id}/join"), Some(token)).await;
            assert_eq!(status, StatusCode::OK, "{body}");
        }
        id
    }

    /// `POST /games` as the player of `token`.
    pub async fn create(&self, token: &str, game: Value) -> (StatusCode, Value) {
        self.post("/games", Some(token), game).await
    }

    /// A started Gravity game between alice (seat 0, yellow, first) and
    /// bob: its id and their tokens.
    pub async fn gravity(&self) -> (i64, String, String) {
        let alice = self.register("alice").await;
        let bob = self.register("bob").await;
        let id = self
            .start_game("gravity", "standard", &[&alice, &bob], &["alice", "bob"])
            .await;
        (id, alice, bob)
    }

    pub async fn play(&self, id: i64, token: &str, mv: &str, ply: i64) -> (StatusCode, Value) {
        self.post(
            &format!("/games/{id}/moves"),
            Some(token),
            json!({ "move": mv, "ply": ply }),
        )
        .await
    }
}

/// `config` with the abuse limits lifted: every test client is 127.0.0.1
/// and many tests register, create and write far faster than a person,
/// which is what the limits refuse. `tests/abuse.rs` checks the limits
/// themselves, with the defaults.
pub fn relaxed(mut config: Config) -> Config {
    let limits = &mut config.limits;
    limits.max_connections_per_address = 1_000_000;
    limits.login_free_failures = 1_000;
    limits.registrations_per_hour = 0;
    limits.write_rate = 0;
    limits.max_open_games = 100_000;
    limits.max_open_invitations = 100_000;
    config
}

/// Reads until the server closes the connection (or resets it); the bytes
/// read.
pub async fn read_to_close(socket: &mut (impl tokio::io::AsyncRead + Unpin)) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut all = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        match socket.read(&mut buffer).await {
            Ok(0) | Err(_) => return all,
            Ok(n) => all.extend_from_slice(&buffer[..n]),
        }
    }
}

/// Stops the server, then drops its database.
pub async fn teardown(database: Database, server: TestServer) {
    server.stop().await;
    database.remove().await;
}

/// Longest a test waits for something it expects: generous, so that a
/// loaded host only makes a passing test slower, never a failing one.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// Polls until `done` holds, for at most [`PATIENCE`].
pub async fn until<F, Fut>(what: &str, mut done: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !done().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Says, past the test harness's output capture (so that every run shows
/// it), that `test` checks nothing on this backend and why.
pub fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "test {test}: SKIPPED on SQLite: {why}");
}

/// Asserts the error shape and code.
pub fn assert_error(status: StatusCode, body: &Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(
        body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}
