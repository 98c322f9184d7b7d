//! What is a player's alone, tried as an outsider would: private games
//! (found by nobody but their participants and whoever holds their
//! invitation code) and sessions (listed, revoked, expiring).

use crate::common;

use common::{assert_error, connect, teardown, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// A 404 with the id taken out: what an outsider learns from an answer.
fn not_found_shape(status: StatusCode, body: &Value, id: i64) -> (StatusCode, Value) {
    assert_error(status, body, StatusCode::NOT_FOUND, "not_found");
    let text = body.to_string().replace(&id.to_string(), "ID");
    (status, serde_json::from_str(&text).expect("JSON"))
}

/// Every route that names a game, as `token` sends it to game `id`.
async fn every_route(server: &TestServer, token: &str, id: i64) -> Vec<(String, StatusCode, Value)> {
    let mut answers = Vec::new();
    for path in [
        "",
        "/moves",
        "/record",
        "/record?format=text",
        "/board.svg",
        "/board.txt",
        "/events",
        "/conditional",
        "?ply=0",
    ] {
        let (s, b) = server.get(&format!("/games/{id}{path}"), Some(token)).await;
        answers.push((format!("GET {path}"), s, b));
    }
    for path in [
        "/join",
        "/decline",
        "/resign",
        "/draw/yes",
        "/takeback/yes",
        "/abort",
        "/rematch",
    ] {
        let (s, b) = server.post_empty(&format!("/games/{id}{path}"), Some(token)).await;
        answers.push((format!("POST {path}"), s, b));
    }
    let (s, b) = server.play(id, token, "d4", 0).await;
    answers.push(("POST /moves".to_owned(), s, b));
    let (s, b) = server
        .post(&format!("/games/{id}/chat"), Some(token), json!({ "text": "hello" }))
        .await;
    answers.push(("POST /chat".to_owned(), s, b));
    let (s, b) = server
        .post(
            &format!("/games/{id}/join"),
            Some(token),
            json!({ "code": "0".repeat(32) }),
        )
        .await;
    answers.push(("POST /join with a wrong code".to_owned(), s, b));
    let mut socket = connect(server, Some(token)).await;
    socket.send(json!({ "type": "subscribe", "game": id, "id": "s" })).await;
    let (_, answer) = socket.until_answer("s").await;
    assert_eq!(answer["type"], "error", "{answer}");
    let text = answer.to_string().replace(&id.to_string(), "ID");
    answers.push((
        "WS subscribe".to_owned(),
        StatusCode::NOT_FOUND,
        serde_json::from_str(&text).unwrap(),
    ));
    socket.close().await;
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_game_is_found_by_its_participants_and_whoever_holds_its_code() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let carol = server.register("carol").await;
    let dave = server.register("dave").await;
    // Alice opens a private Focus game for four: bob invited, two seats open.
    let (s, game) = server
        .create(
            &alice,
            json!({ "game": "focus", "variant": "four", "opponents": ["bob"], "public": false }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{game}");
    let id = game["id"].as_i64().expect("an id");
    let code = game["invite_code"]
        .as_str()
        .expect("the creator sees the code")
        .to_owned();
    assert_eq!(code.len(), 32, "{game}");
    assert_eq!(game["invite_url"], format!("/game/{id}?code={code}"), "{game}");

    // An outsider gets, on every route, what a missing id gives.
    let missing = id + 1000;
    let outsider = every_route(&server, &carol, id).await;
    let nothing = every_route(&server, &carol, missing).await;
    for ((route, s, b), (_, s2, b2)) in outsider.iter().zip(&nothing) {
        let private = if route == "WS subscribe" {
            (*s, b.clone())
        } else {
            not_found_shape(*s, b, id)
        };
        let absent = if route == "WS subscribe" {
            (*s2, b2.clone())
        } else {
            not_found_shape(*s2, b2, missing)
        };
        assert_eq!(private, absent, "{route}");
    }
    let (_, list) = server.get("/games", Some(&carol)).await;
    assert!(list["games"].as_array().expect("games").is_empty(), "{list}");
    let (_, list) = server.get("/games", None).await;
    assert!(list["games"].as_array().expect("games").is_empty(), "{list}");

    // The invitee sees the code and joins without it.
    let (s, seen) = server.get(&format!("/games/{id}"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{seen}");
    assert_eq!(seen["invite_code"], code.as_str(), "{seen}");
    let (s, joined) = server.post_empty(&format!("/games/{id}/join"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{joined}");

    // A malformed code is a malformed request, whatever the game.
    let (s, b) = server
        .post(&format!("/games/{id}/join"), Some(&carol), json!({ "code": "guess" }))
        .await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");

    // Whoever holds the code sees the game (not the code) and takes a seat:
    // carol with the code in the body, dave with the invitation link's query.
    let (s, shown) = server.get(&format!("/games/{id}?code={code}"), Some(&carol)).await;
    assert_eq!(s, StatusCode::OK, "{shown}");
    assert!(shown.get("invite_code").is_none(), "{shown}");
    assert!(shown.get("invite_url").is_none(), "{shown}");
    let (s, anonymous) = server.get(&format!("/games/{id}?code={code}"), None).await;
    assert_eq!(s, StatusCode::OK, "{anonymous}");
    assert!(anonymous.get("invite_code").is_none(), "{anonymous}");
    let (s, joined) = server
        .post(&format!("/games/{id}/join"), Some(&carol), json!({ "code": code }))
        .await;
    assert_eq!(s, StatusCode::OK, "{joined}");
    assert_eq!(joined["invite_code"], code.as_str(), "a participant now: {joined}");
    let (s, started) = server
        .post_empty(&format!("/games/{id}/join?code={code}"), Some(&dave))
        .await;
    assert_eq!(s, StatusCode::OK, "{started}");
    assert_eq!(started["status"], "active", "{started}");
    let seated: Vec<&str> = started["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["player"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(seated, ["alice", "bob", "carol", "dave"]);

    // The lobby shows participants the game, never the code.
    let (_, list) = server.get("/games", Some(&dave)).await;
    let listed = list["games"].as_array().expect("games");
    assert_eq!(listed.len(), 1, "{list}");
    assert!(listed[0].get("invite_code").is_none(), "{list}");

    // A public game has no code at all.
    let (s, public) = server.create(&alice, json!({ "game": "gravity" })).await;
    assert_eq!(s, StatusCode::CREATED, "{public}");
    assert!(public.get("invite_code").is_none(), "{public}");

    // Codes survive a restart (they are stored) and open only their game.
    server.stop().await;
    let server = TestServer::start(&database).await;
    let (s, other) = server
        .create(&alice, json!({ "game": "gravity", "public": false }))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{other}");
    let other_id = other["id"].as_i64().expect("an id");
    assert_ne!(other["invite_code"], code.as_str());
    let (s, b) = server
        .post(
            &format!("/games/{other_id}/join"),
            Some(&carol),
            json!({ "code": code }),
        )
        .await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, seen) = server.get(&format!("/games/{id}"), Some(&alice)).await;
    assert_eq!(s, StatusCode::OK, "{seen}");
    assert_eq!(seen["invite_code"], code.as_str(), "{seen}");
    teardown(database, server).await;
}

/// `GET /players/me/sessions` as `token`.
async fn sessions(server: &TestServer, token: &str) -> Vec<Value> {
    let (s, body) = server.get("/players/me/sessions", Some(token)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    body["sessions"].as_array().expect("sessions").clone()
}

/// Signs alice in from a client that says it is `agent`; the token.
async fn sign_in_as(server: &TestServer, name: &str, agent: &str) -> String {
    let request = server
        .client
        .post(server.url("/sessions"))
        .header("User-Agent", agent)
        .json(&json!({ "name": name, "password": "correct horse" }));
    let (s, body) = server.send(request).await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    body["token"].as_str().expect("a token").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_listed_and_revoked_one_by_one() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let request = server
        .client
        .post(server.url("/players"))
        .header("User-Agent", "registration-browser/1.0")
        .json(&json!({ "name": "alice", "password": "correct horse" }));
    let (s, registered) = server.send(request).await;
    assert_eq!(s, StatusCode::CREATED, "{registered}");
    let first = registered["token"].as_str().expect("a token").to_owned();
    let phone = sign_in_as(&server, "alice", "phone-app/2.1").await;
    let laptop = sign_in_as(&server, "alice", "laptop-browser/3").await;
    let bob = server.register("bob").await;

    // Each session once, with its client; never a token; the one asking
    // marked current.
    let listed = sessions(&server, &phone).await;
    assert_eq!(listed.len(), 3, "{listed:?}");
    let text = serde_json::to_string(&listed).expect("JSON");
    for token in [&first, &phone, &laptop] {
        assert!(!text.contains(token.as_str()), "a token is listed: {text}");
    }
    let agent_of = |agent: &str| {
        listed
            .iter()
            .find(|s| s["user_agent"] == agent)
            .unwrap_or_else(|| panic!("no session of {agent}: {listed:?}"))
            .clone()
    };
    let phone_session = agent_of("phone-app/2.1");
    assert_eq!(phone_session["current"], true, "{listed:?}");
    assert_eq!(agent_of("laptop-browser/3")["current"], false);
    assert_eq!(agent_of("registration-browser/1.0")["current"], false);
    for session in &listed {
        assert!(session["id"].as_str().is_some_and(|id| id.len() == 16), "{session}");
        assert!(
            session["created_at"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{session}"
        );
        assert!(session["last_used_at"].as_str().is_some(), "{session}");
    }
    let laptop_id = agent_of("laptop-browser/3")["id"].as_str().expect("an id").to_owned();
    let current: Vec<Value> = sessions(&server, &laptop).await;
    let mine = current.iter().find(|s| s["current"] == true).expect("a current one");
    assert_eq!(mine["id"], laptop_id.as_str());

    // Someone else's session is not found, and stays.
    let path = format!("/players/me/sessions/{laptop_id}");
    let (s, b) = server
        .send(server.client.delete(server.url(&path)).bearer_auth(&bob))
        .await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.get("/players/me", Some(&laptop)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, b) = server
        .send(
            server
                .client
                .delete(server.url("/players/me/sessions/0123456789abcdef"))
                .bearer_auth(&first),
        )
        .await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.send(server.client.delete(server.url(&path))).await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");

    // Revoked from the phone: the laptop's token stops at once (it was just
    // used, so this process remembered it), on HTTP and WebSocket alike;
    // the others work on.
    let (s, b) = server
        .send(server.client.delete(server.url(&path)).bearer_auth(&phone))
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{b}");
    let (s, b) = server.get("/players/me", Some(&laptop)).await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let mut socket = connect(&server, None).await;
    socket.send(json!({ "type": "auth", "token": laptop, "id": "a" })).await;
    let (_, answer) = socket.until_answer("a").await;
    assert_eq!(answer["type"], "error", "{answer}");
    socket.close().await;
    for token in [&first, &phone] {
        let (s, b) = server.get("/players/me", Some(token)).await;
        assert_eq!(s, StatusCode::OK, "{b}");
    }
    assert_eq!(sessions(&server, &first).await.len(), 2);
    // A second revocation of the same session finds nothing.
    let (s, b) = server
        .send(server.client.delete(server.url(&path)).bearer_auth(&phone))
        .await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_expires_and_a_used_one_does_not() {
    // Sessions last one clock day unused, and a clock day is 3 s here.
    let database = Database::new().await;
    let mut config = tavoliere::Config::with_database(&database.url);
    config.data.clock_day_ms = 3_000;
    config.session_days = 1;
    let server = TestServer::start_with(config).await;
    let idle = server.register("alice").await;
    let used = sign_in_as(&server, "alice", "kept-busy").await;
    let second = std::time::Duration::from_secs(1);
    // At 2 s one is used (renewing it), the other not.
    tokio::time::sleep(2 * second).await;
    let (s, b) = server.get("/players/me", Some(&used)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    // At 4 s the idle one has been unused longer than a day, the used one not.
    tokio::time::sleep(2 * second).await;
    let (s, b) = server.get("/players/me", Some(&idle)).await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let (s, b) = server.get("/players/me", Some(&used)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    // The expired session is gone from the list; signing in again works.
    let listed = sessions(&server, &used).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["user_agent"], "kept-busy");
    let fresh = sign_in_as(&server, "alice", "back-again").await;
    let (s, b) = server.get("/players/me", Some(&fresh)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    teardown(database, server).await;
}
