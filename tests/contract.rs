//! The API contract (issue 24): the OpenAPI document the real server serves
//! tells the truth about every operation, the server enforces what it
//! declares, and one vocabulary holds on every door (REST, long poll, SSE,
//! WebSocket), with the names of the release before kept as aliases. Run on
//! SQLite, or PostgreSQL with `TEST_DATABASE_URL`.

use crate::common;

use common::{connect, teardown, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

const ERROR_BODY: &str = "#/components/schemas/ErrorBody";

fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            all.push((method.to_uppercase(), path.clone(), operation.clone()));
        }
    }
    all
}

fn requires_token(operation: &Value) -> Option<bool> {
    let alternatives = operation["security"].as_array()?;
    let bearer = alternatives.iter().any(|a| a.get("bearer").is_some());
    let optional = alternatives.iter().any(|a| a.as_object().is_some_and(|o| o.is_empty()));
    bearer.then_some(!optional)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_declares_every_answer_and_the_server_keeps_to_it() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let (s, doc) = server
        .send(server.client.get(format!("{}/openapi.json", server.base)))
        .await;
    assert_eq!(s, StatusCode::OK);
    let all = operations(&doc);
    assert!(all.len() >= 45, "{} operations", all.len());
    for (method, path, operation) in &all {
        let responses = operation["responses"].as_object().unwrap();
        let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
        // Every `{param}` of the path is declared there, required.
        for name in path.split('{').skip(1).filter_map(|p| p.split('}').next()) {
            let declared = parameters.iter().find(|p| p["name"] == name);
            let declared = declared.unwrap_or_else(|| panic!("{method} {path}: {{{name}}} undeclared"));
            assert_eq!(
                (&declared["in"], &declared["required"]),
                (&json!("path"), &json!(true)),
                "{method} {path}"
            );
        }
        for parameter in &parameters {
            if !path.contains(&format!("{{{}}}", parameter["name"].as_str().unwrap())) {
                // The one header parameter: `Prefer`, for the lean answers.
                let expected = if parameter["name"] == "Prefer" {
                    "header"
                } else {
                    "query"
                };
                assert_eq!(parameter["in"], expected, "{method} {path}: {parameter}");
                assert_ne!(parameter["required"], true, "{method} {path}: {parameter}");
            }
        }
        if !parameters.is_empty() || operation.get("requestBody").is_some() {
            assert!(
                responses.contains_key("400"),
                "{method} {path}: 400 for what does not parse"
            );
        }
        if operation.get("requestBody").is_some() {
            assert!(responses.contains_key("413"), "{method} {path}: 413");
        }
        if requires_token(operation).is_some() {
            assert!(
                responses.contains_key("401"),
                "{method} {path}: 401 with a bearer requirement"
            );
        }
        for (status, response) in responses {
            if status.starts_with('4') {
                assert_eq!(
                    response["content"]["application/json"]["schema"]["$ref"], ERROR_BODY,
                    "{method} {path} {status}: the error body"
                );
            }
            if status == "429" {
                assert!(
                    response["headers"]["Retry-After"].is_object(),
                    "{method} {path}: Retry-After"
                );
            }
        }
    }
    let operation = |method: &str, path: &str| {
        all.iter()
            .find(|(m, p, _)| m == method && p == path)
            .map(|(_, _, o)| o.clone())
            .unwrap_or_else(|| panic!("{method} {path} documented"))
    };
    // Security per operation: public ones without, optional where a token
    // only changes what is seen.
    for (method, path) in [
        ("GET", "/api/v1/rules"),
        ("POST", "/api/v1/players"),
        ("POST", "/api/v1/sessions"),
    ] {
        assert_eq!(
            requires_token(&operation(method, path)),
            None,
            "{method} {path} is public"
        );
    }
    assert_eq!(requires_token(&operation("POST", "/api/v1/games")), Some(true));
    assert_eq!(requires_token(&operation("GET", "/api/v1/games")), Some(false));
    assert!(operation("PATCH", "/api/v1/players/me")["responses"]["403"].is_object());
    assert!(operation("POST", "/api/v1/sessions")["responses"]["429"].is_object());
    // Constraints, declared.
    let query = |method: &str, path: &str, name: &str| {
        operation(method, path)["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap()
    };
    let limit = query("GET", "/api/v1/games", "limit");
    assert_eq!(
        (&limit["schema"]["minimum"], &limit["schema"]["maximum"]),
        (&json!(1), &json!(100)),
        "{limit}"
    );
    assert_eq!(query("GET", "/api/v1/games/{id}", "ply")["schema"]["minimum"], 0);
    let games = &query("GET", "/api/v1/games", "game")["schema"]["enum"];
    assert!(games.as_array().unwrap().contains(&json!("pente")), "{games}");
    let name = &doc["components"]["schemas"]["Registration"]["properties"]["name"];
    assert_eq!(name["pattern"], tavoliere::players::NAME_PATTERN, "{name}");

    // ...and enforced: out of bounds is refused (400), not clamped.
    let alice = server.register("alice").await;
    for bad in [
        "limit=0",
        "limit=101",
        "game=chess",
        "status=",
        "player=no%20such",
        "turn=you",
    ] {
        let (s, b) = server.get(&format!("/games?{bad}"), Some(&alice)).await;
        common::assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    }
    let (s, b) = server
        .get("/games?limit=100&game=gravity&status=open", Some(&alice))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = server.get("/players/me/events?limit=501", Some(&alice)).await;
    common::assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    // A body integer written as `2.0` is an integer, as the schema says.
    let (s, b) = server
        .post("/players/me/vacation", Some(&alice), json!({ "days": 2.0 }))
        .await;
    assert_ne!(s, StatusCode::BAD_REQUEST, "{b}");
    // The join body may be `null`, as declared: any seat.
    let (s, game) = server.create(&alice, json!({ "game": "gravity" })).await;
    assert_eq!(s, StatusCode::CREATED, "{game}");
    let bob = server.register("bob").await;
    let join = server.client.post(server.url(&format!("/games/{}/join", game["id"])));
    let (s, b) = server
        .send(
            join.bearer_auth(&bob)
                .header("content-type", "application/json")
                .body("null"),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "active", "{b}");
    teardown(database, server).await;
}

/// The one event shape: `seq`, `kind`, `game_id`, `data`, `at` (RFC 3339)
/// and `at_ms`.
fn assert_event_shape(event: &Value, game: i64) {
    assert_eq!(event["game_id"], game, "{event}");
    assert!(
        event["seq"].is_i64() && event["kind"].is_string() && event["data"].is_object(),
        "{event}"
    );
    let at = event["at"]
        .as_str()
        .unwrap_or_else(|| panic!("`at` is a string: {event}"));
    assert!(at.ends_with('Z') && at.contains('T'), "{event}");
    assert!(
        event["at_ms"].as_i64().is_some_and(|ms| ms > 1_700_000_000_000),
        "{event}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_vocabulary_on_every_door() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    // Registration and sign-in answer the same shape.
    let (s, registered) = server
        .post(
            "/players",
            None,
            json!({ "name": "carol", "password": "correct horse" }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{registered}");
    let (s, signed_in) = server
        .post(
            "/sessions",
            None,
            json!({ "name": "carol", "password": "correct horse" }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{signed_in}");
    for answer in [&registered, &signed_in] {
        assert_eq!(answer["player"]["name"], "carol", "{answer}");
        assert!(answer["token"].is_string(), "{answer}");
    }

    let (id, alice, bob) = server.gravity().await;
    let mut socket = connect(&server, Some(&alice)).await;
    let (frames, ack) = socket.subscribe(id, None).await;
    assert_eq!(
        (&ack["result"]["game_id"], &ack["result"]["game"]),
        (&json!(id), &json!(id)),
        "{ack}"
    );
    assert_eq!(frames[0]["game_id"], id, "{}", frames[0]);
    let (s, b) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    let first = b["legal"][0].as_str().unwrap().to_owned();
    let (s, b) = server.play(id, &alice, &first, 0).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");

    // WebSocket: the game's `event` frames; `game` kept as an alias.
    let frame = loop {
        let frame = socket.next().await;
        if frame["type"] == "event" && frame["kind"] == "move" {
            break frame;
        }
    };
    assert_event_shape(&frame, id);
    assert_eq!(frame["game"], id, "the alias: {frame}");
    assert_eq!(frame["data"]["move"], first.as_str(), "{frame}");

    // REST: the same event in the game's log, `payload` kept as an alias.
    let (s, log) = server.get(&format!("/games/{id}/events"), None).await;
    assert_eq!(s, StatusCode::OK);
    let rest = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "move")
        .unwrap()
        .clone();
    assert_event_shape(&rest, id);
    assert_eq!(rest["payload"], rest["data"], "the alias: {rest}");
    for key in ["seq", "kind", "game_id", "data", "at", "at_ms"] {
        assert_eq!(rest[key], frame[key], "{key} alike on both doors");
    }

    // A player's own events: REST, long poll, and the WebSocket's stream.
    let (_, mine) = server.get("/players/me/events", Some(&bob)).await;
    let turn = mine["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "your_turn")
        .unwrap()
        .clone();
    assert_event_shape(&turn, id);
    assert_eq!(
        (&turn["data"]["game_id"], &turn["data"]["game"]),
        (&json!(id), &json!(id)),
        "{turn}"
    );
    let (_, polled) = server.get("/events?wait=0", Some(&bob)).await;
    let polled = polled["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["seq"] == turn["seq"])
        .unwrap()
        .clone();
    assert_eq!(polled["at"], turn["at"]);
    let mut bobs = connect(&server, Some(&bob)).await;
    bobs.send(json!({ "type": "subscribe_player", "since": 0, "id": "p" }))
        .await;
    let streamed = loop {
        let frame = bobs.next().await;
        if frame["type"] == "player_event" && frame["seq"] == turn["seq"] {
            break frame;
        }
    };
    assert_event_shape(&streamed, id);
    assert_eq!(streamed["at"], turn["at"]);

    // Server-sent events: the `player_event` frame as data.
    let mut sse = server
        .client
        .get(server.url("/events"))
        .bearer_auth(&bob)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let mut text = String::new();
    let data = loop {
        let chunk = sse.chunk().await.unwrap().expect("the stream stays open");
        text.push_str(&String::from_utf8_lossy(&chunk));
        if let Some(line) = text.lines().find(|l| l.starts_with("data:") && l.contains("your_turn")) {
            break serde_json::from_str::<Value>(line.trim_start_matches("data:").trim()).unwrap();
        }
    };
    assert_event_shape(&data, id);
    assert_eq!(data["type"], "player_event");

    // Chat over HTTP answers the event as every door sends it.
    let (s, chat) = server
        .post(&format!("/games/{id}/chat"), Some(&bob), json!({ "text": "hi" }))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{chat}");
    assert_event_shape(&chat, id);

    // How it ended: a code beside the words, winners as seats and names.
    let (s, over) = server.post_empty(&format!("/games/{id}/resign"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{over}");
    let outcome = &over["outcome"];
    assert_eq!(
        (
            &outcome["reason"],
            &outcome["message"],
            &outcome["winners"],
            &outcome["winner_names"]
        ),
        (
            &json!("resignation"),
            &json!("resignation"),
            &json!([0]),
            &json!(["alice"])
        ),
        "{outcome}"
    );
    let (_, log) = server.get(&format!("/games/{id}/events"), None).await;
    let finished = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "finished")
        .unwrap()
        .clone();
    assert_eq!(
        (&finished["data"]["reason"], &finished["data"]["winners"]),
        (&json!("resignation"), &json!([0]))
    );
    assert!(finished["data"]["message"].is_string(), "{finished}");
    drop(sse);
    teardown(database, server).await;
}
