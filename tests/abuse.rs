//! The abuse limits, each at its default unless the test says otherwise
//! (`TestServer::start_guarded`): sign-in back-off, registrations per
//! address, guessable passwords, slow and oversized requests, connections
//! per address, writes per player on HTTP and WebSocket (mail: in
//! `tests/mail.rs`), open games and invitations, the dummy hash for
//! unknown names, webhook URLs, the web client's security headers (the
//! email change needing the current password: in `tests/server.rs`).

use crate::common;

use common::{assert_error, read_to_close, Database, TestServer, PATIENCE};
use reqwest::header::HeaderName;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::Config;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

const PASSWORD: &str = "correct horse";

async fn guarded(tune: impl FnOnce(&mut Config)) -> (Database, TestServer) {
    let database = Database::new().await;
    let mut config = Config::with_database(&database.url);
    tune(&mut config);
    let server = TestServer::start_guarded(config).await;
    (database, server)
}

/// A request as if from `address` (the server trusts `X-Forwarded-For`
/// in these tests, as behind a proxy).
fn from(server: &TestServer, request: reqwest::RequestBuilder, address: &str) -> reqwest::RequestBuilder {
    let _ = server;
    request.header("X-Forwarded-For", format!("10.9.9.9, {address}"))
}

async fn sign_in(server: &TestServer, name: &str, password: &str, address: &str) -> reqwest::Response {
    from(server, server.client.post(server.url("/sessions")), address)
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .expect("request sent")
}

fn retry_after(response: &reqwest::Response) -> Option<u64> {
    response.headers().get("retry-after")?.to_str().ok()?.parse().ok()
}

#[tokio::test]
async fn sign_in_backs_off_but_a_known_client_still_signs_in() {
    let (database, server) =
        guarded(|c| c.limits.client_address_header = Some(HeaderName::from_static("x-forwarded-for"))).await;
    let home = "192.0.2.1";
    let attacker = "198.51.100.9";
    for (name, address) in [("alice", home), ("bob", "192.0.2.2")] {
        let request = from(&server, server.client.post(server.url("/players")), address)
            .json(&json!({ "name": name, "password": PASSWORD }));
        let (status, body) = server.send(request).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    assert_eq!(
        sign_in(&server, "alice", PASSWORD, home).await.status(),
        StatusCode::CREATED
    );

    // 30 guesses: the first five are checked, then back-off answers 429.
    let mut statuses = Vec::new();
    let mut waits = Vec::new();
    for i in 0..30 {
        let response = sign_in(&server, "alice", &format!("guess number {i}"), attacker).await;
        if let Some(wait) = retry_after(&response) {
            waits.push(wait);
        }
        let status = response.status();
        let body: Value = response.json().await.expect("a JSON body");
        if status == StatusCode::TOO_MANY_REQUESTS {
            assert_eq!(body["error"]["code"], "too_many_attempts", "{body}");
        }
        statuses.push(status);
    }
    assert!(
        statuses[..5].iter().all(|s| *s == StatusCode::UNAUTHORIZED),
        "{statuses:?}"
    );
    let throttled = statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert!(
        throttled >= 20,
        "only {throttled} of 30 guesses throttled: {statuses:?}"
    );
    assert_eq!(waits.len(), throttled, "every 429 says Retry-After");
    assert!(waits.iter().all(|w| (1..=300).contains(w)), "{waits:?}");

    // The right password from the attacker's address is not even checked;
    // another account from there neither (the address is throttled).
    let refused = sign_in(&server, "alice", PASSWORD, attacker).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        sign_in(&server, "bob", PASSWORD, attacker).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // A stranger elsewhere finds alice locked for a while...
    let stranger = sign_in(&server, "alice", PASSWORD, "203.0.113.5").await;
    assert_eq!(stranger.status(), StatusCode::TOO_MANY_REQUESTS);
    // ...but alice's own client signs in, which lifts the lock.
    assert_eq!(
        sign_in(&server, "alice", PASSWORD, home).await.status(),
        StatusCode::CREATED
    );
    assert_eq!(
        sign_in(&server, "alice", PASSWORD, "203.0.113.5").await.status(),
        StatusCode::CREATED
    );
    common::teardown(database, server).await;
}

#[tokio::test]
async fn registrations_are_limited_per_address() {
    let (database, server) = guarded(|_| {}).await;
    for i in 0..10 {
        let (status, body) = server
            .post(
                "/players",
                None,
                json!({ "name": format!("player{i}"), "password": PASSWORD }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let response = server
        .client
        .post(server.url("/players"))
        .json(&json!({ "name": "player10", "password": PASSWORD }))
        .send()
        .await
        .expect("request sent");
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait = retry_after(&response).expect("Retry-After");
    assert!((1..=360).contains(&wait), "{wait}");
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["code"], "too_many_registrations", "{body}");
    // Nothing was created: the name is free.
    let (status, _) = server.get("/players/player10", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    common::teardown(database, server).await;
}

#[tokio::test]
async fn guessable_passwords_are_refused_with_the_reason() {
    let (database, server) = guarded(|_| {}).await;
    for weak in ["password", "12345678", "        ", "\0\0\0\0\0\0\0\0", "aliceliddell1"] {
        let (s, b) = server
            .post("/players", None, json!({ "name": "aliceliddell", "password": weak }))
            .await;
        assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "weak_password");
        let message = b["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("this password is too easy to guess"),
            "{weak:?}: {b}"
        );
    }
    let (s, b) = server
        .post(
            "/players",
            None,
            json!({ "name": "aliceliddell", "password": "password" }),
        )
        .await;
    assert!(
        b["error"]["message"].as_str().unwrap_or_default().contains("common"),
        "{s} {b}"
    );
    // A new password is checked the same way.
    let alice = server.register("alice").await;
    let (s, b) = server
        .patch(
            "/players/me",
            Some(&alice),
            json!({ "password": "alice1234", "current_password": PASSWORD }),
        )
        .await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "weak_password");
    common::teardown(database, server).await;
}

fn address(server: &TestServer) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

#[tokio::test]
async fn connections_that_never_finish_their_headers_are_closed() {
    let (database, server) = guarded(|c| c.limits.header_read_timeout = 1).await;
    let mut sockets = Vec::new();
    for i in 0..100 {
        let mut socket = TcpStream::connect(address(&server)).await.expect("connect");
        if i % 2 == 0 {
            // Half a request, then silence; the other half say nothing.
            socket
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .await
                .expect("write");
        }
        sockets.push(socket);
    }
    let closed = futures_util::future::join_all(sockets.iter_mut().map(read_to_close));
    let answers = tokio::time::timeout(PATIENCE, closed)
        .await
        .expect("every slow connection closed by the server");
    // Closed without an answer: none of them had asked anything.
    assert!(answers.iter().all(|a| !a.starts_with(b"HTTP/1.1 200")));
    let (status, _) = server.get("/games", None).await;
    assert_eq!(status, StatusCode::OK);
    common::teardown(database, server).await;
}

#[tokio::test]
async fn connections_per_address_are_capped() {
    let (database, server) = guarded(|c| {
        c.limits.max_connections_per_address = 4;
        c.limits.header_read_timeout = 3600;
    })
    .await;
    let mut sockets = Vec::new();
    for _ in 0..6 {
        sockets.push(TcpStream::connect(address(&server)).await.expect("connect"));
    }
    let mut answered = 0;
    let mut refused = 0;
    for socket in &mut sockets {
        let _ = socket
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await;
        let answer = tokio::time::timeout(PATIENCE, read_to_close(socket))
            .await
            .expect("an answer or a close");
        if answer.starts_with(b"HTTP/1.1 200") {
            answered += 1;
        } else {
            refused += 1;
        }
    }
    // The harness's client may hold one of the four places itself.
    assert!((3..=4).contains(&answered), "{answered} answered");
    assert!(refused >= 2, "{refused} refused");
    drop(sockets);
    common::until("a place again", || async {
        server
            .client
            .get(format!("{}/healthz", server.base))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
    })
    .await;
    common::teardown(database, server).await;
}

#[tokio::test]
async fn a_body_announced_over_the_limit_is_refused_at_once() {
    // The request timeout far away: an answer can only come from the check.
    let (database, server) = guarded(|c| c.request_timeout = 3600).await;
    let mut socket = TcpStream::connect(address(&server)).await.expect("connect");
    socket
        .write_all(
            b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
              Content-Length: 100000000\r\n\r\n{\"name\":",
        )
        .await
        .expect("write");
    let answer = tokio::time::timeout(PATIENCE, read_to_close(&mut socket))
        .await
        .expect("an answer before the body");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("\"code\":\"payload_too_large\""), "{answer}");
    common::teardown(database, server).await;
}

#[tokio::test]
async fn a_players_writes_are_limited_on_http_and_websocket_alike() {
    let (database, server) = guarded(|_| {}).await;
    let (id, alice, _bob) = server.gravity().await;
    // 60 chat posts at once: the burst (30, less the game's creation)
    // passes, then the steady rate (5 a second) lets few more through; the
    // rest are refused with Retry-After.
    let mut statuses = Vec::new();
    for i in 0..60 {
        let response = server
            .client
            .post(server.url(&format!("/games/{id}/chat")))
            .bearer_auth(&alice)
            .json(&json!({ "text": format!("spam {i}") }))
            .send()
            .await
            .expect("request sent");
        let status = response.status();
        if status == StatusCode::TOO_MANY_REQUESTS {
            assert!(retry_after(&response).is_some(), "Retry-After");
            let body: Value = response.json().await.expect("JSON");
            assert_eq!(body["error"]["code"], "rate_limited", "{body}");
        }
        statuses.push(status);
    }
    assert!(statuses[..29].iter().all(StatusCode::is_success), "{statuses:?}");
    let mut accepted = statuses.iter().filter(|s| s.is_success()).count();
    let refused = statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert!(refused >= 1, "{statuses:?}");
    assert_eq!(accepted + refused, 60, "{statuses:?}");
    // The same player over a WebSocket shares the limit: refused within a
    // few frames (the rate earns a token back every 200 ms).
    let mut ws = common::connect(&server, Some(&alice)).await;
    let mut refusal = None;
    for i in 0..60 {
        let frame_id = format!("c{i}");
        ws.send(json!({ "type": "chat", "game": id, "text": "and more", "id": frame_id }))
            .await;
        let answer = loop {
            let frame = ws.next_skipping_presence().await;
            if frame["id"] == frame_id.as_str() {
                break frame;
            }
        };
        if answer["type"] == "ack" {
            accepted += 1;
        } else {
            refusal = Some(answer);
            break;
        }
    }
    let refusal = refusal.expect("a WebSocket chat refused");
    assert_eq!(refusal["type"], "error", "{refusal}");
    assert_eq!(refusal["code"], "rate_limited", "{refusal}");
    assert!(refusal["retry_after"].as_u64().is_some(), "{refusal}");
    // Nothing refused was stored.
    let (_, events) = server.get(&format!("/games/{id}/events"), None).await;
    let chats = events["events"]
        .as_array()
        .map(|e| e.iter().filter(|e| e["kind"] == "chat").count())
        .unwrap_or_default();
    assert_eq!(chats, accepted, "{events}");
    common::teardown(database, server).await;
}

#[tokio::test]
async fn open_games_and_invitations_are_capped() {
    let (database, server) = guarded(|_| {}).await;
    let alice = server.register("alice").await;
    for _ in 0..20 {
        let (s, b) = server.create(&alice, json!({ "game": "gravity" })).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
    }
    let (s, b) = server.create(&alice, json!({ "game": "gravity" })).await;
    assert_error(s, &b, StatusCode::CONFLICT, "too_many_open_games");

    let carol = server.register("carol").await;
    for name in ["dave", "erin", "frank"] {
        server.register(name).await;
    }
    let four = json!({ "game": "focus", "variant": "four", "opponents": ["dave", "erin", "frank"] });
    let mut first = None;
    for _ in 0..10 {
        let (s, b) = server.create(&carol, four.clone()).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        first = first.or(b["id"].as_i64());
    }
    let (s, b) = server.create(&carol, four.clone()).await;
    assert_error(s, &b, StatusCode::CONFLICT, "too_many_invitations");
    // A game no longer open makes room.
    let first = first.expect("a game id");
    let (status, body) = server.post_empty(&format!("/games/{first}/abort"), Some(&carol)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (s, b) = server.create(&carol, four).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    common::teardown(database, server).await;
}

/// A rematch offer opens a game and invites: it is refused at the caps as
/// a creation is, and the opponent may still offer it.
#[tokio::test]
async fn a_rematch_offer_counts_against_the_open_games_cap() {
    let (database, server) = guarded(|_| {}).await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let (s, b) = server
        .create(&alice, json!({ "game": "gravity", "opponents": ["bob"] }))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let id = b["id"].as_i64().expect("a game id");
    let (s, b) = server.post_empty(&format!("/games/{id}/join"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = server.post_empty(&format!("/games/{id}/resign"), Some(&alice)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    for _ in 0..20 {
        let (s, b) = server.create(&alice, json!({ "game": "gravity" })).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
    }
    let (s, b) = server.post_empty(&format!("/games/{id}/rematch"), Some(&alice)).await;
    assert_error(s, &b, StatusCode::CONFLICT, "too_many_open_games");
    let (s, b) = server.post_empty(&format!("/games/{id}/rematch"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "open", "{b}");
    assert_eq!(b["rematch_of"], id, "{b}");
    common::teardown(database, server).await;
}

async fn password_checks(server: &TestServer) -> u64 {
    let text = server
        .client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .expect("request sent")
        .text()
        .await
        .expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix("tavoliere_password_checks_total "))
        .and_then(|v| v.trim().parse().ok())
        .expect("the password checks counter")
}

/// Timing would be a timed test; what makes the timing equal is that an
/// unknown name costs a password check (against a dummy hash) exactly as a
/// wrong password for a known name does, which the counter shows.
#[tokio::test]
async fn an_unknown_name_costs_a_password_check_like_a_known_one() {
    let (database, server) = guarded(|_| {}).await;
    server.register("alice").await;
    let before = password_checks(&server).await;
    let (s, _) = server
        .post("/sessions", None, json!({ "name": "nobody", "password": "some guess" }))
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(
        password_checks(&server).await,
        before + 1,
        "the unknown name was checked"
    );
    let (s, _) = server
        .post("/sessions", None, json!({ "name": "alice", "password": "some guess" }))
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(password_checks(&server).await, before + 2);
    // A name too long to exist is checked too.
    let (s, _) = server
        .post(
            "/sessions",
            None,
            json!({ "name": "n".repeat(100), "password": "some guess" }),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(password_checks(&server).await, before + 3);
    common::teardown(database, server).await;
}

#[tokio::test]
async fn webhook_urls_are_normalised_before_the_check() {
    let (database, server) = guarded(|_| {}).await;
    let alice = server.register("alice").await;
    for url in [
        "http://LOCALHOST.:18599/",
        "http://localhost../hook",
        "http://[::1]:18599/",
        "http://[0:0:0:0:0:0:0:1]/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://0x7f000001/",
        "http://127.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://169.254.169.254./latest",
    ] {
        let (s, b) = server
            .patch("/players/me", Some(&alice), json!({ "webhook_url": url }))
            .await;
        assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "bad_webhook_url");
    }
    let (s, b) = server
        .patch(
            "/players/me",
            Some(&alice),
            json!({ "webhook_url": "https://Hooks.Example.COM./in" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["webhook_url"], "https://hooks.example.com/in", "{b}");
    common::teardown(database, server).await;
}

/// The security headers are on every answer: the web client's pages and
/// files, the API's JSON, its refusals (the guard's too) and the answer to
/// a path that is nowhere. Without origins configured there is no CORS:
/// a preflight is refused and no answer varies by origin.
#[tokio::test]
async fn every_answer_is_served_with_security_headers() {
    let (database, server) = guarded(|config| config.body_limit = 512).await;
    let requests = [
        ("/", reqwest::Method::GET, StatusCode::OK),
        ("/game/7", reqwest::Method::GET, StatusCode::OK),
        ("/assets/app.js", reqwest::Method::GET, StatusCode::OK),
        ("/api/v1/rules", reqwest::Method::GET, StatusCode::OK),
        ("/api/v1/players/me", reqwest::Method::GET, StatusCode::UNAUTHORIZED),
        ("/api/v1/nowhere", reqwest::Method::GET, StatusCode::NOT_FOUND),
        ("/api/v1/rules", reqwest::Method::DELETE, StatusCode::METHOD_NOT_ALLOWED),
        ("/api/v1/players", reqwest::Method::POST, StatusCode::PAYLOAD_TOO_LARGE),
        (
            "/api/v1/games",
            reqwest::Method::OPTIONS,
            StatusCode::METHOD_NOT_ALLOWED,
        ),
    ];
    for (path, method, status) in requests {
        // A body only where it is too large: the guard refuses any
        // request that announces one over the limit.
        let body = if method == reqwest::Method::POST {
            "x".repeat(600)
        } else {
            String::new()
        };
        let response = server
            .client
            .request(method.clone(), format!("{}{path}", server.base))
            .header("origin", "https://elsewhere.example.org")
            .header("access-control-request-method", "POST")
            .body(body)
            .send()
            .await
            .expect("request sent");
        let what = format!("{method} {path}");
        assert_eq!(response.status(), status, "{what}");
        let header = |name: &str| {
            response
                .headers()
                .get_all(name)
                .iter()
                .map(|v| v.to_str().unwrap_or_default().to_owned())
                .collect::<Vec<_>>()
        };
        let csp = header("content-security-policy").concat();
        assert!(csp.contains("script-src 'self'"), "{what}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp}");
        assert!(!csp.contains("unsafe-eval"), "{what}: {csp}");
        assert_eq!(header("x-frame-options"), ["DENY"], "{what}");
        assert_eq!(header("referrer-policy"), ["no-referrer"], "{what}");
        assert_eq!(header("x-content-type-options"), ["nosniff"], "{what}");
        assert!(header("access-control-allow-origin").is_empty(), "{what}");
        assert!(header("vary").iter().all(|v| !v.contains("origin")), "{what}");
    }
    common::teardown(database, server).await;
}
