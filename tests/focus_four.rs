//! Four-player Focus, each for themselves, against the real server: a
//! resignation (in turn or not) or a time-out puts that player out, the
//! game goes on without them, and the last one left wins. The concession
//! is an entry of the history, so every replay shows it: `?ply=N`, the
//! record, and the game rebuilt by a restarted server.

use crate::common;

use common::{assert_error, until, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::Config;

const NAMES: [&str; 4] = ["alice", "bob", "carol", "dave"];

/// A started free-for-all game of alice, bob, carol and dave (red, blue,
/// green, yellow): its id and their tokens in seat order.
async fn start(server: &TestServer, time_control: Option<Value>) -> (i64, Vec<String>) {
    let mut tokens = Vec::new();
    for name in NAMES {
        tokens.push(server.register(name).await);
    }
    let mut body = json!({ "game": "focus", "variant": "four", "opponents": NAMES[1..] });
    if let Some(control) = time_control {
        body["time_control"] = control;
    }
    let (status, created) = server.create(&tokens[0], body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_i64().expect("an id");
    for token in &tokens[1..] {
        let (status, body) = server.post_empty(&format!("/games/{id}/join"), Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    (id, tokens)
}

async fn state(server: &TestServer, id: i64, query: &str) -> Value {
    let (status, body) = server.get(&format!("/games/{id}{query}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

fn out(state: &Value) -> Vec<bool> {
    let seats = state["view"]["seats"].as_array().expect("seats");
    seats.iter().map(|s| s["out"] == true).collect()
}

/// The player to move plays their first legal move; returns the state.
async fn play_first(server: &TestServer, id: i64, tokens: &[String]) -> Value {
    let now = state(server, id, "").await;
    let seat = now["to_move"].as_u64().expect("someone to move") as usize;
    let mv = now["legal"][0].as_str().expect("a legal move").to_owned();
    let (status, body) = server.play(id, &tokens[seat], &mv, now["ply"].as_i64().unwrap()).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["game"].clone()
}

async fn resign(server: &TestServer, id: i64, token: &str) -> (StatusCode, Value) {
    server.post_empty(&format!("/games/{id}/resign"), Some(token)).await
}

async fn events(server: &TestServer, id: i64) -> Vec<Value> {
    let (status, body) = server.get(&format!("/games/{id}/events?limit=500"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["events"].as_array().expect("events").clone()
}

#[tokio::test]
async fn resigning_players_are_out_the_game_goes_on_and_the_last_one_left_wins() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let (id, tokens) = start(&server, None).await;
    play_first(&server, id, &tokens).await; // red; blue to move

    // Green resigns out of turn: green is out, blue still moves, at ply 2.
    let (status, after) = resign(&server, id, &tokens[2]).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["status"], "active");
    assert_eq!((after["ply"].as_i64(), after["to_move"].as_u64()), (Some(2), Some(1)));
    assert_eq!(out(&after), [false, false, true, false]);
    assert_eq!(after["last_move"]["move"], "concede:2");
    assert_eq!(after["last_move"]["effect"], "green resigns");

    // Nobody takes a concession back; green takes no part any more.
    let (status, body) = server
        .post_empty(&format!("/games/{id}/takeback/yes"), Some(&tokens[0]))
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "takeback_past_concession");
    let (status, body) = resign(&server, id, &tokens[2]).await;
    assert_error(status, &body, StatusCode::CONFLICT, "out_of_game");
    let (status, body) = server
        .post_empty(&format!("/games/{id}/draw/yes"), Some(&tokens[2]))
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "out_of_game");
    // Nor can anyone send the concession as a move.
    let (status, body) = server.play(id, &tokens[1], "concede:1", 2).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_notation");
    // Blue's move sent for the position before the concession is stale.
    let (status, body) = server
        .play(id, &tokens[1], after["legal"][0].as_str().unwrap(), 1)
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "stale_ply");

    // The three left play on; green is skipped.
    let blue = play_first(&server, id, &tokens).await;
    assert_eq!(blue["to_move"], 3, "green's turn is skipped");
    play_first(&server, id, &tokens).await; // yellow
    play_first(&server, id, &tokens).await; // red
    let before_restart = play_first(&server, id, &tokens).await; // blue
    assert_eq!(
        (before_restart["ply"].as_i64(), before_restart["to_move"].as_u64()),
        (Some(6), Some(3))
    );

    // The past as it was: before the concession green was in, after it out.
    let at_1 = state(&server, id, "?ply=1").await;
    assert_eq!((out(&at_1), at_1["to_move"].as_u64()), (vec![false; 4], Some(1)));
    let at_2 = state(&server, id, "?ply=2").await;
    assert_eq!(
        (out(&at_2), at_2["to_move"].as_u64()),
        (vec![false, false, true, false], Some(1))
    );

    // A restarted server rebuilds the game from the stored history.
    server.stop().await;
    let server = TestServer::start(&database).await;
    let rebuilt = state(&server, id, "").await;
    for field in ["ply", "to_move", "status", "view", "legal"] {
        assert_eq!(rebuilt[field], before_restart[field], "{field}");
    }

    // Yellow resigns in its turn: the turn passes to red.
    let (status, body) = resign(&server, id, &tokens[3]).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["ply"].as_i64(), body["to_move"].as_u64()), (Some(7), Some(0)));
    assert_eq!(out(&body), [false, false, true, true]);
    play_first(&server, id, &tokens).await; // red; blue to move

    // Red resigns out of turn: blue is the last one left and wins.
    let (status, over) = resign(&server, id, &tokens[0]).await;
    assert_eq!(status, StatusCode::OK, "{over}");
    assert_eq!(over["status"], "finished");
    assert_eq!(over["outcome"]["winners"], json!([1]), "{over}");
    assert_eq!(over["outcome"]["reason"], "last_player_standing", "{over}");
    assert_eq!(over["ply"], 9);

    let log = events(&server, id).await;
    let kinds: Vec<&str> = log.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "resigned").count(), 3, "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"finished"));
    let conceded: Vec<&Value> = log
        .iter()
        .filter(|e| e["kind"] == "move" && e["payload"]["move"].as_str().is_some_and(|m| m.starts_with("concede:")))
        .map(|e| &e["payload"]["move"])
        .collect();
    assert_eq!(
        conceded,
        [&json!("concede:2"), &json!("concede:3"), &json!("concede:0")]
    );

    // The record keeps the concessions; its text tells them in words.
    let (status, record) = server.get(&format!("/games/{id}/record"), None).await;
    assert_eq!(status, StatusCode::OK, "{record}");
    let moves = record["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 9);
    assert_eq!(
        (&moves[1]["move"], &moves[1]["effect"]),
        (&json!("concede:2"), &json!("green resigns"))
    );
    let (status, _, text) = server.get_text(&format!("/games/{id}/record?format=text"), None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(text.contains("Result: blue wins (every other player is out)"), "{text}");
    for line in [
        "Move 2: green resigns and is out.",
        "Move 7: yellow resigns and is out.",
        "Move 9: red resigns and is out.",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
    assert!(!text.contains("concede:"), "{text}");
    common::teardown(database, server).await;
}

#[tokio::test]
async fn a_time_out_in_a_game_of_four_puts_the_player_out_and_the_clock_moves_on() {
    let database = Database::new().await;
    let mut config = Config::with_database(&database.url);
    // A day of 3 s: the first move is made at once, blue's runs out.
    config.data.clock_day_ms = 3_000;
    // No sweep comes before blue's late move: the move finds the time out.
    config.sweep_interval_ms = 3_600_000;
    let server = TestServer::start_with(config).await;
    let control = json!({ "kind": "correspondence", "days_per_move": 1 });
    let (id, tokens) = start(&server, Some(control)).await;
    let red = play_first(&server, id, &tokens).await; // blue's clock runs
    let deadline = red["clock"]["deadline"].as_i64().expect("blue's deadline");
    until("blue's deadline", || async { tavoliere::games::now() > deadline }).await;
    let mv = red["legal"][0].as_str().expect("a legal move");
    let (status, late) = server.play(id, &tokens[1], mv, 1).await;
    assert_error(status, &late, StatusCode::CONFLICT, "time_out");
    assert_eq!(out(&late["game"]), [false, true, false, false], "{late}");

    let after = state(&server, id, "").await;
    assert_eq!(after["status"], "active", "{after}");
    assert_eq!((after["ply"].as_i64(), after["to_move"].as_u64()), (Some(2), Some(2)));
    assert_eq!(after["last_move"]["move"], "concede:1");
    assert_eq!(after["last_move"]["effect"], "blue runs out of time");
    // Green's clock runs now, with a deadline of its own.
    assert_eq!(after["clock"]["running"], true, "{after}");
    assert!(after["clock"]["deadline"].as_i64().is_some(), "{after}");
    let log = events(&server, id).await;
    let timeouts: Vec<&Value> = log.iter().filter(|e| e["kind"] == "timeout").collect();
    assert_eq!(timeouts.len(), 1, "{log:?}");
    assert_eq!(timeouts[0]["payload"]["seat"], 1);
    assert!(log.iter().all(|e| e["kind"] != "finished"), "{log:?}");
    common::teardown(database, server).await;
}
