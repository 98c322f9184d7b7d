//! The API's edges: past positions with their legal moves (`?ply=N`), the
//! meta routes under `/api/v1` as well as at the root, and the refusals
//! that hyper answers itself, before the app sees a request (their status
//! codes pinned, their empty bodies the documented exception to the JSON
//! error shape).

use crate::common;

use common::{assert_error, read_to_close, teardown, Database, TestServer, PATIENCE};
use reqwest::StatusCode;
use serde_json::Value;
use tavoliere::rules::AnyGame;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

fn legal_after(moves: &[&str]) -> Value {
    let game = AnyGame::replay("gravity", None, moves).expect("a legal line");
    serde_json::to_value(game.legal_moves()).expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_past_position_has_its_legal_moves_and_says_it_is_past() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let (id, alice, bob) = server.gravity().await;
    let (s, b) = server.play(id, &alice, "d4", 0).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, b) = server.play(id, &bob, "e5", 1).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");

    for (ply, moves, to_move) in [(0, &[][..], 0), (1, &["d4"][..], 1)] {
        let (s, past) = server.get(&format!("/games/{id}?ply={ply}"), None).await;
        assert_eq!(s, StatusCode::OK, "{past}");
        assert_eq!(past["past"], true, "{past}");
        assert_eq!(past["ply"], ply, "{past}");
        assert_eq!(past["at_ply"], ply, "{past}");
        assert_eq!(past["to_move"], to_move, "{past}");
        assert_eq!(past["legal"], legal_after(moves), "ply {ply}");
        assert!(!past["legal"].as_array().expect("moves").is_empty());
    }
    // The current ply asked for is the game as it is.
    let (_, now) = server.get(&format!("/games/{id}?ply=2"), None).await;
    assert_eq!(now["past"], false, "{now}");
    assert_eq!(now["legal"], legal_after(&["d4", "e5"]));
    let (_, plain) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(plain["past"], false, "{plain}");
    assert_eq!(plain["legal"], now["legal"]);

    // Once the game is over it has no moves, but its past positions keep theirs.
    let (s, b) = server.post_empty(&format!("/games/{id}/resign"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (_, over) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(over["status"], "finished", "{over}");
    assert_eq!(over["legal"], serde_json::json!([]), "{over}");
    let (_, past) = server.get(&format!("/games/{id}?ply=1"), None).await;
    assert_eq!(past["past"], true, "{past}");
    assert_eq!(past["status"], "finished", "{past}");
    assert_eq!(past["legal"], legal_after(&["d4"]), "{past}");
    let (s, b) = server.get(&format!("/games/{id}?ply=3"), None).await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "bad_ply");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_metrics_answer_at_the_root_and_under_the_api() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    for base in [server.base.clone(), format!("{}/api/v1", server.base)] {
        let (s, b) = server.send(server.client.get(format!("{base}/healthz"))).await;
        assert_eq!(s, StatusCode::OK, "{base}: {b}");
        assert_eq!(b["status"], "ok", "{base}: {b}");
        let response = server.client.get(format!("{base}/metrics")).send().await.expect("sent");
        let s = response.status();
        let text = response.text().await.expect("read");
        assert_eq!(s, StatusCode::OK, "{base}");
        assert!(text.contains("# TYPE"), "{base}: {text}");
    }
    let (_, doc) = server.get("/openapi.json", None).await;
    for path in ["/healthz", "/api/v1/healthz", "/metrics", "/api/v1/metrics"] {
        assert!(doc["paths"][path].is_object(), "{path} not in the OpenAPI document");
    }
    teardown(database, server).await;
}

fn address(server: &TestServer) -> String {
    server.base.trim_start_matches("http://").to_owned()
}

/// Sends `request` (from a task of its own, so that a server that answers
/// and closes before reading it all does not stall the test) and reads the
/// answer until the server closes the connection.
async fn raw(server: &TestServer, request: Vec<u8>) -> String {
    let socket = TcpStream::connect(address(server)).await.expect("connect");
    let (mut reader, mut writer) = socket.into_split();
    let sender = tokio::spawn(async move {
        // The server may stop reading (and reset) once it has refused.
        let _ = writer.write_all(&request).await;
        writer
    });
    let answer = tokio::time::timeout(PATIENCE, read_to_close(&mut reader))
        .await
        .expect("an answer");
    drop(sender.await);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status line and the body of a raw answer.
fn status_and_body(answer: &str) -> (&str, &str) {
    let status = answer.lines().next().unwrap_or("");
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, body)
}

/// hyper refuses what it cannot parse before the app runs: these answers
/// have an empty body (README, Security, says so). Pinned so that a change
/// of hyper or of the serve loop shows here.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_hyper_refuses_itself_gets_its_status_and_an_empty_body() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let refusals = [
        ("HTTP/1.1 400", "GARBAGE\r\n\r\n".to_owned()),
        (
            "HTTP/1.1 414",
            format!(
                "GET /api/v1/games?{} HTTP/1.1\r\nHost: x\r\n\r\n",
                "a".repeat(100 * 1024)
            ),
        ),
        (
            "HTTP/1.1 431",
            format!(
                "GET /api/v1/rules HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
                "b".repeat(1024 * 1024)
            ),
        ),
    ];
    for (expected, request) in refusals {
        let answer = raw(&server, request.into_bytes()).await;
        let (status, body) = status_and_body(&answer);
        assert!(status.starts_with(expected), "{expected}: {status}");
        assert_eq!(body, "", "{expected}: {answer}");
    }

    // A long URL that hyper passes on is the app's to refuse, in JSON.
    let (s, b) = server
        .get(&format!("/games/1?ply={}", "9".repeat(30 * 1024)), None)
        .await;
    assert!(s.is_client_error(), "{s}");
    assert!(b["error"]["code"].is_string(), "{b}");
    // The server is none the worse.
    let (s, _) = server.send(server.client.get(format!("{}/healthz", server.base))).await;
    assert_eq!(s, StatusCode::OK);
    teardown(database, server).await;
}
