//! Real-time play over real sockets: tokio-tungstenite clients against the
//! real server on 127.0.0.1:0, on SQLite (default) or PostgreSQL
//! (`TEST_DATABASE_URL=postgres://… cargo test`).

use crate::common;

use std::time::Duration;

use common::{connect, teardown, Database, TestServer, PATIENCE};
use futures_util::SinkExt;
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::config::RealtimeConfig;
use tavoliere::rules::AnyGame;
use tavoliere::Config;
use tokio_tungstenite::tungstenite::Message;

async fn setup_with(realtime: RealtimeConfig) -> (Database, TestServer) {
    let database = Database::new().await;
    let mut config = Config::with_database(&database.url);
    config.realtime = realtime;
    let server = TestServer::start_with(config).await;
    (database, server)
}

async fn setup() -> (Database, TestServer) {
    setup_with(RealtimeConfig::default()).await
}

/// A line of Gravity that ends the game.
fn finishing_line() -> Vec<String> {
    let mut position = AnyGame::new("gravity", Some("standard")).expect("gravity");
    let mut line = Vec::new();
    while !position.is_finished() {
        let legal = position.legal_moves();
        let m = legal[(line.len() * 7 + 3) % legal.len()].clone();
        position.play(&m).expect("a listed move is legal");
        line.push(m);
    }
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_play_a_whole_game_over_websocket_mixed_with_http_while_spectators_watch() {
    let (database, server) = setup().await;
    let (id, alice_token, bob_token) = server.gravity().await;
    // Alice authenticates on the upgrade, Bob with a first message (browsers).
    let mut alice = connect(&server, Some(&alice_token)).await;
    let mut bob = connect(&server, None).await;
    bob.send(json!({ "type": "auth", "token": bob_token, "id": "a" })).await;
    let (_, answer) = bob.until_answer("a").await;
    assert_eq!(answer["result"]["player"], "bob", "{answer}");
    let mut spectator = connect(&server, None).await;

    for socket in [&mut alice, &mut bob, &mut spectator] {
        let (frames, ack) = socket.subscribe(id, None).await;
        let snapshot = &frames[0];
        assert_eq!(snapshot["type"], "snapshot", "{snapshot}");
        assert_eq!(snapshot["state"]["status"], "active");
        assert_eq!(snapshot["seq"], snapshot["state"]["seq"]);
        assert_eq!(ack["result"]["seq"], snapshot["seq"]);
    }
    let start_seq = spectator_seq(&server, id).await;

    let line = finishing_line();
    for (ply, notation) in line.iter().enumerate() {
        let ply = ply as i64;
        let (mover, opponent, token) = if ply % 2 == 0 {
            (&mut alice, &mut bob, &alice_token)
        } else {
            (&mut bob, &mut alice, &bob_token)
        };
        // Bob plays every other of his moves over HTTP: the same service path.
        if ply % 4 == 3 {
            let (status, body) = server.play(id, token, notation, ply).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        } else {
            let request_id = format!("m{ply}");
            mover
                .send(json!({ "type": "move", "game": id, "move": notation, "ply": ply, "id": request_id }))
                .await;
            let (_, answer) = mover.until_answer(&request_id).await;
            assert_eq!(answer["type"], "ack", "{answer}");
            // The same body as the HTTP move answer.
            assert_eq!(answer["result"]["created"], true, "{answer}");
            assert_eq!(answer["result"]["move"]["ply"], ply + 1, "{answer}");
            assert_eq!(answer["result"]["game"]["ply"], ply + 1, "{answer}");
        }
        let seen = opponent.move_event(ply + 1).await;
        assert_eq!(seen["game"], id);
        assert_eq!(seen["data"]["ply"], ply + 1, "{seen}");
        assert_eq!(seen["data"]["move"], notation.as_str(), "{seen}");
        assert_eq!(seen["data"]["seat"], ply % 2, "{seen}");
        assert!(seen["data"].get("effect").is_some(), "{seen}");
        assert!(seen["data"].get("to_move").is_some(), "{seen}");
    }

    // The spectator saw every change, in order, with no gap: the moves and
    // the end of the game.
    let mut seq = start_seq;
    let mut moves = Vec::new();
    let finished = loop {
        let frame = spectator.next_skipping_presence().await;
        assert_eq!(frame["type"], "event", "{frame}");
        assert_eq!(frame["seq"], seq + 1, "{frame}");
        seq += 1;
        match frame["kind"].as_str() {
            Some("move") => moves.push(frame["data"]["move"].as_str().expect("a move").to_owned()),
            Some("finished") => break frame,
            other => panic!("unexpected event {other:?}"),
        }
    };
    assert_eq!(moves, line);
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["status"], "finished");
    assert_eq!(state["seq"], seq);
    // The game ended as the rules end that line, and so says the last event.
    let mut position = AnyGame::new("gravity", Some("standard")).expect("gravity");
    for m in &line {
        position.play(m).expect("a listed move is legal");
    }
    // As clients read it: the rules' outcome with a reason code beside the
    // rules' words, and the winners' names.
    let outcome = tavoliere::views::outcome::outcome(&json!(position.outcome().expect("the line ends the game")), None);
    let mut shown = state["outcome"].clone();
    assert_eq!(shown["winner_names"], json!(["bob"]), "{state}");
    shown.as_object_mut().expect("an outcome").remove("winner_names");
    assert_eq!(shown, outcome, "{state}");
    // A rated game's end also says what it did to both ratings.
    assert_eq!(finished["data"]["winners"], outcome["winners"], "{finished}");
    assert_eq!(finished["data"]["reason"], outcome["reason"], "{finished}");
    assert_eq!(
        finished["data"]["ratings"].as_array().map(Vec::len),
        Some(2),
        "{finished}"
    );
    assert_eq!(state["ply"], line.len(), "{state}");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_over_websocket_can_ask_for_the_lean_answer() {
    let (database, server) = setup().await;
    let (id, alice_token, bob_token) = server.gravity().await;
    let mut alice = connect(&server, Some(&alice_token)).await;
    let mut bob = connect(&server, Some(&bob_token)).await;
    let line = finishing_line();

    alice
        .send(json!({ "type": "move", "game": id, "move": line[0], "ply": 0, "return": "minimal", "id": "m0" }))
        .await;
    let (_, answer) = alice.until_answer("m0").await;
    assert_eq!(answer["type"], "ack", "{answer}");
    let result = &answer["result"];
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(result["created"], true, "{answer}");
    assert_eq!(result["move"]["move"], line[0].as_str(), "{answer}");
    assert_eq!(result["ply"], 1, "{answer}");
    assert_eq!(result["to_move"], 1, "{answer}");
    assert_eq!(result["seq"], state["seq"], "{answer}");
    assert!(result.get("game").is_none(), "{answer}");
    assert!(result.get("legal").is_none(), "{answer}");

    // With the legal moves; and the same answer as HTTP's lean one.
    bob.send(json!({ "type": "move", "game": id, "move": line[1], "ply": 1, "return": "minimal", "legal": true, "id": "m1" }))
        .await;
    let (_, answer) = bob.until_answer("m1").await;
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(answer["result"]["legal"], state["legal"], "{answer}");
    assert_eq!(answer["result"]["seq"], state["seq"], "{answer}");

    // "representation", or nothing, is the full answer; anything else is
    // a malformed message, and plays nothing.
    alice
        .send(json!({ "type": "move", "game": id, "move": line[2], "ply": 2, "return": "representation", "id": "m2" }))
        .await;
    let (_, answer) = alice.until_answer("m2").await;
    assert_eq!(answer["result"]["game"]["ply"], 3, "{answer}");
    bob.send(json!({ "type": "move", "game": id, "move": line[3], "ply": 3, "return": "tiny", "id": "m3" }))
        .await;
    let (_, answer) = bob.until_answer("m3").await;
    assert_eq!(answer["type"], "error", "{answer}");
    assert_eq!(answer["code"], "bad_message", "{answer}");
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["ply"], 3, "{state}");
    teardown(database, server).await;
}

async fn spectator_seq(server: &TestServer, id: i64) -> i64 {
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    state["seq"].as_i64().expect("a seq")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_missed_three_moves_resumes_with_since_and_gets_exactly_those() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    server.play(id, &alice, "d4", 0).await;
    let mut watcher = connect(&server, None).await;
    let (frames, _) = watcher.subscribe(id, None).await;
    let seen = frames[0]["seq"].as_i64().expect("a snapshot seq");
    drop(watcher);

    for (ply, (token, notation)) in [(&bob, "e4"), (&alice, "c4"), (&bob, "d5")].into_iter().enumerate() {
        let (status, body) = server.play(id, token, notation, ply as i64 + 1).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }

    let mut watcher = connect(&server, None).await;
    let (frames, ack) = watcher.subscribe(id, Some(seen)).await;
    let events: Vec<&Value> = frames.iter().filter(|f| f["type"] != "presence").collect();
    assert_eq!(events.len(), 3, "{frames:?}");
    for (i, (event, notation)) in events.iter().zip(["e4", "c4", "d5"]).enumerate() {
        assert_eq!(event["type"], "event");
        assert_eq!(event["kind"], "move");
        assert_eq!(event["seq"], seen + 1 + i as i64);
        assert_eq!(event["data"]["move"], notation);
        assert_eq!(event["data"]["ply"], 2 + i as i64);
    }
    assert_eq!(ack["result"]["seq"], seen + 3);

    // Up to date (`since` = the current seq, as a lean join answers it):
    // neither a snapshot nor an event; the next move comes live.
    let mut current = connect(&server, None).await;
    let (frames, ack) = current.subscribe(id, Some(seen + 3)).await;
    assert!(frames.iter().all(|f| f["type"] == "presence"), "{frames:?}");
    assert_eq!(ack["result"]["seq"], seen + 3);
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    let next = state["legal"][0].as_str().expect("a legal move");
    let (status, body) = server.play(id, &alice, next, 4).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let event = current.event("move").await;
    assert_eq!(event["seq"], seen + 4, "{event}");
    assert_eq!(event["data"]["move"], next, "{event}");

    // A `since` beyond the log gets a snapshot instead.
    let mut other = connect(&server, None).await;
    let (frames, _) = other.subscribe(id, Some(seen + 100)).await;
    assert_eq!(frames[0]["type"], "snapshot");
    assert_eq!(frames[0]["seq"], seen + 4);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_malformed_message_gets_an_error_and_the_socket_keeps_working() {
    let (database, server) = setup().await;
    let (id, alice, _) = server.gravity().await;
    let mut socket = connect(&server, Some(&alice)).await;
    let malformed = [
        "not json".to_owned(),
        "[1,2,3]".to_owned(),
        "42".to_owned(),
        "{}".to_owned(),
        json!({ "type": "teleport" }).to_string(),
        json!({ "type": "subscribe" }).to_string(),
        json!({ "type": "subscribe", "game": "one" }).to_string(),
        json!({ "type": "move", "game": id, "ply": 0 }).to_string(),
        json!({ "type": "move", "game": id, "move": "d4", "ply": "zero" }).to_string(),
        json!({ "type": "chat", "game": id, "text": "hi", "room": "kitchen" }).to_string(),
        json!({ "type": "ping", "id": { "nested": true } }).to_string(),
    ];
    for text in malformed {
        socket.send_text(text.clone()).await;
        let frame = socket.next().await;
        assert_eq!(frame["type"], "error", "{text} -> {frame}");
        assert_eq!(frame["code"], "bad_message", "{text} -> {frame}");
        assert!(frame["message"].as_str().is_some_and(|m| !m.is_empty()), "{frame}");
    }
    socket.0.send(Message::binary(vec![1, 2, 3])).await.expect("sent");
    let frame = socket.next().await;
    assert_eq!(frame["code"], "bad_message", "{frame}");
    // The id of a parseable but bad request is echoed.
    socket.send(json!({ "type": "subscribe", "id": "q1" })).await;
    let frame = socket.next().await;
    assert_eq!(
        (frame["code"].as_str(), frame["id"].as_str()),
        (Some("bad_message"), Some("q1"))
    );
    // Service refusals carry the HTTP API's codes; the socket still works.
    socket
        .send(json!({ "type": "move", "game": id, "move": "z9", "ply": 0, "id": 7 }))
        .await;
    let frame = socket.next().await;
    assert_eq!(
        (frame["code"].as_str(), frame["id"].as_i64()),
        (Some("bad_notation"), Some(7)),
        "{frame}"
    );
    socket
        .send(json!({ "type": "move", "game": id, "move": "d4", "ply": 5, "id": "s" }))
        .await;
    let frame = socket.next().await;
    assert_eq!(frame["code"], "stale_ply", "{frame}");
    assert_eq!(frame["game"]["ply"], 0, "a stale ply carries the current game: {frame}");
    socket
        .send(json!({ "type": "subscribe", "game": 999_999, "id": "g" }))
        .await;
    let frame = socket.next().await;
    assert_eq!(frame["code"], "not_found", "{frame}");
    socket.send(json!({ "type": "ping", "id": "still here" })).await;
    assert_eq!(socket.next().await, json!({ "type": "pong", "id": "still here" }));
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_cannot_move_nor_write_in_the_players_room_and_private_games_stay_private() {
    let (database, server) = setup().await;
    let (id, alice_token, bob_token) = server.gravity().await;
    let carol_token = server.register("carol").await;
    let mut carol = connect(&server, Some(&carol_token)).await;
    let mut anonymous = connect(&server, None).await;
    let mut alice = connect(&server, Some(&alice_token)).await;
    alice.subscribe(id, None).await;

    carol
        .send(json!({ "type": "move", "game": id, "move": "d4", "ply": 0, "id": "m" }))
        .await;
    let (_, answer) = carol.until_answer("m").await;
    assert_eq!(answer["code"], "not_a_player", "{answer}");
    anonymous
        .send(json!({ "type": "move", "game": id, "move": "d4", "ply": 0, "id": "m" }))
        .await;
    let (_, answer) = anonymous.until_answer("m").await;
    assert_eq!(answer["code"], "unauthorized", "{answer}");
    anonymous
        .send(json!({ "type": "chat", "game": id, "text": "hello", "room": "spectators", "id": "c" }))
        .await;
    let (_, answer) = anonymous.until_answer("c").await;
    assert_eq!(answer["code"], "unauthorized", "{answer}");

    carol
        .send(json!({ "type": "chat", "game": id, "text": "let me in", "room": "players", "id": "c1" }))
        .await;
    let (_, answer) = carol.until_answer("c1").await;
    assert_eq!(answer["code"], "not_a_player", "{answer}");
    let (status, body) = server
        .post(
            &format!("/games/{id}/chat"),
            Some(&carol_token),
            json!({ "text": "let me in", "room": "players" }),
        )
        .await;
    common::assert_error(status, &body, StatusCode::FORBIDDEN, "not_a_player");

    carol
        .send(json!({ "type": "chat", "game": id, "text": "nice opening", "room": "spectators", "id": "c2" }))
        .await;
    let (_, answer) = carol.until_answer("c2").await;
    assert_eq!(answer["type"], "ack", "{answer}");
    let chat = alice.event("chat").await;
    assert_eq!(chat["data"]["room"], "spectators");
    assert_eq!(chat["data"]["player"], "carol");
    assert_eq!(chat["data"]["text"], "nice opening");
    assert_eq!(chat["seq"], answer["result"]["seq"]);

    // Players chat in their room, over HTTP too; the chat is in the log.
    let (status, body) = server
        .post(
            &format!("/games/{id}/chat"),
            Some(&bob_token),
            json!({ "text": "good luck" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let chat = alice.event("chat").await;
    assert_eq!(
        (chat["data"]["room"].as_str(), chat["data"]["seat"].as_i64()),
        (Some("players"), Some(1))
    );
    let (_, log) = server.get(&format!("/games/{id}/events?after=0"), None).await;
    let chats = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "chat")
        .count();
    assert_eq!(chats, 2, "{log}");
    let (status, body) = server
        .post(&format!("/games/{id}/chat"), Some(&bob_token), json!({ "text": "   " }))
        .await;
    common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "empty_chat");
    let (status, body) = server
        .post(
            &format!("/games/{id}/chat"),
            Some(&bob_token),
            json!({ "text": "x".repeat(1001) }),
        )
        .await;
    common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "message_too_long");

    // A private game is not found by spectators.
    let (status, body) = server
        .create(
            &alice_token,
            json!({ "game": "gravity", "opponents": ["bob"], "public": false }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let private = body["id"].as_i64().expect("an id");
    for socket in [&mut carol, &mut anonymous] {
        socket
            .send(json!({ "type": "subscribe", "game": private, "id": "p" }))
            .await;
        let (_, answer) = socket.until_answer("p").await;
        assert_eq!(answer["code"], "not_found", "{answer}");
    }
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_shows_which_players_are_connected() {
    let (database, server) = setup().await;
    let (id, alice_token, bob_token) = server.gravity().await;
    let mut alice = connect(&server, Some(&alice_token)).await;
    let (frames, _) = alice.subscribe(id, None).await;
    assert_eq!(frames.last().expect("presence")["online"], json!([0]), "{frames:?}");
    let mut bob = connect(&server, Some(&bob_token)).await;
    bob.subscribe(id, None).await;
    let presence = alice.presence(json!([0, 1])).await;
    assert_eq!(
        presence,
        json!({ "type": "presence", "game": id, "game_id": id, "online": [0, 1] })
    );
    // A spectator is not a seat, signed in or not: the seats' presence is
    // unchanged, and the next change Alice hears of is Bob leaving.
    let carol = server.register("carol").await;
    for token in [Some(carol.as_str()), None] {
        let mut spectator = connect(&server, token).await;
        let (frames, _) = spectator.subscribe(id, None).await;
        assert_eq!(frames.last().expect("presence")["online"], json!([0, 1]), "{frames:?}");
    }
    drop(bob);
    assert_eq!(
        alice.next().await,
        json!({ "type": "presence", "game": id, "game_id": id, "online": [0] })
    );
    alice
        .send(json!({ "type": "unsubscribe", "game": id, "id": "u" }))
        .await;
    let (_, answer) = alice.until_answer("u").await;
    assert_eq!(answer["type"], "ack");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_player_stream_says_it_is_your_turn_over_websocket_long_poll_and_sse() {
    let (database, server) = setup().await;
    let (id, alice, bob_token) = server.gravity().await;
    let mut bob = connect(&server, Some(&bob_token)).await;
    bob.send(json!({ "type": "subscribe_player", "id": "p" })).await;
    let (_, answer) = bob.until_answer("p").await;
    let seq = answer["result"]["seq"].as_i64().expect("the stream's seq");

    // Long poll: waits until the move commits.
    let poll = {
        let client = server.client.clone();
        let url = server.url(&format!("/events?after={seq}&wait=20"));
        let token = bob_token.clone();
        tokio::spawn(async move {
            let response = client.get(url).bearer_auth(token).send().await.expect("sent");
            (response.status(), response.json::<Value>().await.expect("JSON"))
        })
    };
    // SSE, from the same point.
    let mut sse = server
        .client
        .get(server.url(&format!("/events?after={seq}")))
        .bearer_auth(&bob_token)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("sent");
    assert_eq!(sse.status(), StatusCode::OK);

    let (status, body) = server.play(id, &alice, "d4", 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    let frame = bob.next().await;
    assert_eq!(frame["type"], "player_event", "{frame}");
    assert_eq!(frame["kind"], "your_turn", "{frame}");
    assert_eq!(frame["seq"], seq + 1);
    assert_eq!(frame["data"]["game"], id);

    let (status, body) = tokio::time::timeout(PATIENCE, poll)
        .await
        .expect("the long poll answers")
        .expect("the task");
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["events"][0]["kind"], "your_turn", "{body}");
    assert_eq!(body["events"][0]["seq"], seq + 1, "{body}");

    let mut received = String::new();
    while !received.contains("\n\n") {
        let chunk = tokio::time::timeout(PATIENCE, sse.chunk())
            .await
            .expect("an SSE chunk in time")
            .expect("read")
            .expect("the stream is open");
        received.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(received.contains("event: your_turn"), "{received}");
    assert!(received.contains(&format!("id: {}", seq + 1)), "{received}");

    // Nothing new: a long poll waits its whole second, then answers empty
    // (a load can only lengthen the wait); without a token, 401.
    let asked = std::time::Instant::now();
    let (status, body) = server
        .get(&format!("/events?after={}&wait=1", seq + 1), Some(&bob_token))
        .await;
    assert!(
        asked.elapsed() >= Duration::from_secs(1),
        "it waited: {:?}",
        asked.elapsed()
    );
    assert_eq!(
        (status, body["events"].as_array().map(Vec::len)),
        (StatusCode::OK, Some(0))
    );
    // SSE resumes after the Last-Event-ID it is given, which wins over `after`.
    let mut resumed = server
        .client
        .get(server.url("/events?after=0"))
        .bearer_auth(&bob_token)
        .header("accept", "text/event-stream")
        .header("last-event-id", seq.to_string())
        .send()
        .await
        .expect("sent");
    assert_eq!(resumed.status(), StatusCode::OK);
    let mut received = String::new();
    while !received.contains("\n\n") {
        let chunk = tokio::time::timeout(PATIENCE, resumed.chunk())
            .await
            .expect("an SSE chunk in time")
            .expect("read")
            .expect("the stream is open");
        received.push_str(&String::from_utf8_lossy(&chunk));
    }
    let first = received.split("\n\n").next().unwrap_or_default();
    assert!(first.contains(&format!("id: {}", seq + 1)), "{received}");
    assert!(first.contains("event: your_turn"), "{received}");
    let (status, _) = server.get("/events", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // The server stops even with an SSE stream open.
    drop(bob);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lagging_subscriber_gets_a_fresh_snapshot_not_a_gap() {
    // Capacity 1: a commit of two events (joined + started) overruns a
    // subscriber, deterministically.
    let (database, server) = setup_with(RealtimeConfig {
        ws_channel_capacity: 1,
        ..RealtimeConfig::default()
    })
    .await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let (_, body) = server.create(&alice, json!({ "game": "gravity" })).await;
    let id = body["id"].as_i64().expect("an id");
    let mut watcher = connect(&server, None).await;
    let (frames, _) = watcher.subscribe(id, None).await;
    assert_eq!(frames[0]["state"]["status"], "open");
    let (status, body) = server.post_empty(&format!("/games/{id}/join"), Some(&bob)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let frame = watcher.next_skipping_presence().await;
    assert_eq!(frame["type"], "snapshot", "{frame}");
    assert_eq!(frame["state"]["status"], "active");
    assert_eq!(frame["seq"], 3, "created, joined, started: {frame}");
    // Live again after the resync.
    server.play(id, &alice, "d4", 0).await;
    let frame = watcher.next_skipping_presence().await;
    assert_eq!(
        (frame["kind"].as_str(), frame["seq"].as_i64()),
        (Some("move"), Some(4)),
        "{frame}"
    );
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_messages_are_rate_limited_and_too_large_ones_refused() {
    // One message a second refills the bucket of three: sending six at once
    // leaves three refused however slowly a loaded host sends them, up to
    // one more token per second it took.
    let (database, server) = setup_with(RealtimeConfig {
        ws_rate: 1,
        ws_burst: 3,
        ws_max_message: 256,
        ..RealtimeConfig::default()
    })
    .await;
    let mut socket = connect(&server, None).await;
    let sent = std::time::Instant::now();
    for i in 0..6 {
        socket.send(json!({ "type": "ping", "id": i })).await;
    }
    let mut codes = Vec::new();
    for _ in 0..6 {
        let frame = socket.next().await;
        codes.push(
            frame["code"]
                .as_str()
                .unwrap_or(frame["type"].as_str().unwrap_or("?"))
                .to_owned(),
        );
    }
    let refills = sent.elapsed().as_secs() as usize;
    assert_eq!(codes[..3], ["pong", "pong", "pong"], "{codes:?}");
    let refused = codes.iter().filter(|c| *c == "rate_limited").count();
    assert!(
        (3usize.saturating_sub(refills)..=3).contains(&refused),
        "{codes:?} after {refills} s"
    );
    assert_eq!(codes.iter().filter(|c| *c == "pong").count() + refused, 6, "{codes:?}");
    // The bucket refills: a ping is answered again (polled, in time).
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        socket.send(json!({ "type": "ping", "id": "again" })).await;
        if socket.next().await["type"] == "pong" {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the bucket never refilled");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    teardown(database, server).await;

    // Sizes, on a socket with its bucket full.
    let (database, server) = setup_with(RealtimeConfig {
        ws_max_message: 256,
        ..RealtimeConfig::default()
    })
    .await;
    let mut socket = connect(&server, None).await;
    socket.send(json!({ "type": "ping", "id": "x".repeat(300) })).await;
    let frame = socket.next().await;
    assert_eq!(frame["code"], "message_too_large", "{frame}");
    socket.send(json!({ "type": "ping", "id": "ok" })).await;
    assert_eq!(socket.next().await["type"], "pong");
    // Four times the limit is a protocol violation: the socket closes
    // with 1009 (message too big), as PROTOCOL.md says, not a reset.
    socket.send(json!({ "type": "ping", "id": "x".repeat(1100) })).await;
    assert_eq!(socket.close_code().await, Some(1009));
    teardown(database, server).await;
}

/// The server reads a socket 1 KiB at a time (`http/realtime.rs`): a message
/// longer than that, under the size limit, is read whole over several reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_longer_than_the_read_buffer_is_read_whole() {
    let (database, server) = setup().await;
    let mut socket = connect(&server, None).await;
    let id = "x".repeat(3_000);
    socket.send(json!({ "type": "ping", "id": id })).await;
    let frame = socket.next().await;
    assert_eq!(frame["type"], "pong", "{frame}");
    assert_eq!(frame["id"], id);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_close_a_dead_peer_and_keep_a_live_one() {
    // Pings every 100 ms; silent for 1.5 s is dead. The live client answers
    // every ping as it reads, so only a stall of well over a second could
    // close it.
    let (database, server) = setup_with(RealtimeConfig {
        ws_ping_interval_ms: 100,
        ws_idle_timeout_ms: 1_500,
        ..RealtimeConfig::default()
    })
    .await;
    let mut dead = connect(&server, None).await;
    let mut live = connect(&server, None).await;
    // The live client reads (so tungstenite answers the pings) for two idle
    // timeouts; the dead one does not read at all (reading would answer).
    assert!(
        !live.closed_within(Duration::from_millis(3_000)).await,
        "the live peer was closed"
    );
    assert!(dead.closed_within(PATIENCE).await, "the dead peer was closed");
    live.send(json!({ "type": "ping", "id": 1 })).await;
    assert_eq!(live.next().await["type"], "pong");
    teardown(database, server).await;
}

/// A client that closes gets the server's close frame back (the closing
/// handshake completes), even while it follows a game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_closes_gets_the_servers_close_frame() {
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
    use tokio_tungstenite::tungstenite::protocol::CloseFrame;
    let (database, server) = setup().await;
    let (id, _alice, bob_token) = server.gravity().await;
    let mut bob = connect(&server, Some(&bob_token)).await;
    bob.subscribe(id, None).await;
    let farewell = CloseFrame {
        code: CloseCode::Normal,
        reason: "good night".into(),
    };
    bob.0.close(Some(farewell)).await.expect("a close frame sent");
    assert_eq!(bob.close_code().await, Some(1000), "the server answers the close frame");
    teardown(database, server).await;
}

/// With several server processes on one PostgreSQL database, subscribers
/// connected to one hear at once of what is committed through another:
/// game events in order, and their own turn (the database announces each
/// commit). SQLite announces nothing: there the test skips, and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_made_through_another_server_process_arrive_live() {
    let (database, one) = setup().await;
    if !database.is_postgres() {
        common::skipped(
            "changes_made_through_another_server_process_arrive_live",
            "only PostgreSQL announces commits to other processes; run with TEST_DATABASE_URL",
        );
        teardown(database, one).await;
        return;
    }
    let two = TestServer::start_with(Config::with_database(&database.url)).await;
    let (id, alice, bob_token) = one.gravity().await;
    let mut watcher = connect(&two, None).await;
    let (frames, _) = watcher.subscribe(id, None).await;
    let seen = frames[0]["seq"].as_i64().expect("a snapshot seq");
    let mut bob = connect(&two, Some(&bob_token)).await;
    bob.send(json!({ "type": "subscribe_player", "id": "p" })).await;
    let (_, answer) = bob.until_answer("p").await;
    let bob_seq = answer["result"]["seq"].as_i64().expect("the stream's seq");

    let (status, body) = one.play(id, &alice, "d4", 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let frame = watcher.next_skipping_presence().await;
    assert_eq!(
        frame["type"], "event",
        "a live event, not a resynchronising snapshot: {frame}"
    );
    assert_eq!(frame["kind"], "move", "{frame}");
    assert_eq!(frame["seq"], seen + 1, "{frame}");
    assert_eq!(frame["data"]["move"], "d4", "{frame}");
    assert!(frame.get("committed_us").is_none(), "read back from the log: {frame}");
    let frame = bob.next_skipping_presence().await;
    assert_eq!(frame["type"], "player_event", "{frame}");
    assert_eq!(frame["kind"], "your_turn", "{frame}");
    assert_eq!(frame["seq"], bob_seq + 1, "{frame}");

    // A move through this process is published by it, once, with its commit
    // time; not again when the database announces it.
    let (status, body) = two.play(id, &bob_token, "e4", 1).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = one.play(id, &alice, "c4", 2).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    for (seq, notation, here) in [(seen + 2, "e4", true), (seen + 3, "c4", false)] {
        let frame = watcher.next_skipping_presence().await;
        assert_eq!(frame["type"], "event", "{frame}");
        assert_eq!(frame["seq"], seq, "{frame}");
        assert_eq!(frame["data"]["move"], notation, "{frame}");
        assert_eq!(frame["committed_us"].is_i64(), here, "{frame}");
    }
    two.stop().await;
    teardown(database, one).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_move_over_websocket_answers_not_created_and_applies_nothing() {
    let (database, server) = setup().await;
    let (id, alice_token, _) = server.gravity().await;
    let mut alice = connect(&server, Some(&alice_token)).await;
    let request = json!({ "type": "move", "game": id, "move": "d4", "ply": 0, "message": "hi" });
    let mut answers = Vec::new();
    for attempt in ["first", "retry"] {
        let mut frame = request.clone();
        frame["id"] = json!(attempt);
        alice.send(frame).await;
        let (_, answer) = alice.until_answer(attempt).await;
        assert_eq!(answer["type"], "ack", "{answer}");
        answers.push(answer["result"].clone());
    }
    assert_eq!(answers[0]["created"], true, "{answers:?}");
    assert_eq!(answers[1]["created"], false, "{answers:?}");
    assert_eq!(answers[1]["move"], answers[0]["move"]);
    assert_eq!(answers[1]["game"]["ply"], 1);
    let (_, history) = server.get(&format!("/games/{id}/moves"), None).await;
    assert_eq!(history["moves"].as_array().map(Vec::len), Some(1), "{history}");
    let (_, log) = server.get(&format!("/games/{id}/events"), None).await;
    let moves = log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "move")
        .count();
    assert_eq!(moves, 1, "{log}");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_from_too_far_back_or_a_negative_since_gets_a_snapshot() {
    use tavoliere::realtime::socket::MAX_REPLAY;
    let (database, server) = setup().await;
    let (id, alice, _) = server.gravity().await;
    let start = spectator_seq(&server, id).await;
    // A negative `since`, even with the whole log within the window.
    let mut watcher = connect(&server, None).await;
    let (frames, _) = watcher.subscribe(id, Some(-1)).await;
    assert_eq!(frames[0]["type"], "snapshot", "{frames:?}");
    assert!(frames.iter().all(|f| f["type"] != "event"), "{frames:?}");
    // One event more than the socket replays.
    for i in 0..=MAX_REPLAY {
        let (status, body) = server
            .post(
                &format!("/games/{id}/chat"),
                Some(&alice),
                json!({ "text": format!("chat {i}") }),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let seq = spectator_seq(&server, id).await;
    assert_eq!(seq, start + MAX_REPLAY + 1);
    // Exactly the kept window is replayed, event by event.
    let mut watcher = connect(&server, None).await;
    let (frames, ack) = watcher.subscribe(id, Some(seq - MAX_REPLAY)).await;
    let events: Vec<&Value> = frames.iter().filter(|f| f["type"] == "event").collect();
    assert_eq!(events.len() as i64, MAX_REPLAY);
    assert_eq!(events[0]["seq"], seq - MAX_REPLAY + 1);
    assert_eq!(ack["result"]["seq"], seq);
    // One more missed, or a negative `since`: a snapshot, no events.
    for since in [seq - MAX_REPLAY - 1, -1] {
        let mut watcher = connect(&server, None).await;
        let (frames, ack) = watcher.subscribe(id, Some(since)).await;
        assert_eq!(frames[0]["type"], "snapshot", "since {since}");
        assert_eq!(frames[0]["seq"], seq, "since {since}");
        assert!(frames.iter().all(|f| f["type"] != "event"), "since {since}");
        assert_eq!(ack["result"]["seq"], seq);
    }
    teardown(database, server).await;
}

/// Sends `frame` and returns the code of the error it must be answered with.
async fn refusal(socket: &mut common::Ws, frame: Value) -> String {
    let request = frame["id"].as_str().expect("an id").to_owned();
    socket.send(frame).await;
    let (_, answer) = socket.until_answer(&request).await;
    assert_eq!(answer["type"], "error", "{answer}");
    answer["code"].as_str().expect("a code").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_refuses_doing_twice_what_is_done_once_and_too_many_games() {
    use tavoliere::realtime::socket::MAX_SUBSCRIPTIONS;
    // A rate limit that the many subscriptions below do not reach.
    let (database, server) = setup_with(RealtimeConfig {
        ws_rate: 1_000,
        ws_burst: 1_000,
        ..RealtimeConfig::default()
    })
    .await;
    let (id, alice, _) = server.gravity().await;
    let mut socket = connect(&server, Some(&alice)).await;
    let auth = json!({ "type": "auth", "token": alice, "id": "a" });
    assert_eq!(refusal(&mut socket, auth).await, "already_authenticated");
    socket.subscribe(id, None).await;
    let again = json!({ "type": "subscribe", "game": id, "id": "s" });
    assert_eq!(refusal(&mut socket, again).await, "already_subscribed");
    let other = json!({ "type": "unsubscribe", "game": id + 1, "id": "u" });
    assert_eq!(refusal(&mut socket, other).await, "not_subscribed");
    socket.send(json!({ "type": "subscribe_player", "id": "p" })).await;
    assert_eq!(socket.until_answer("p").await.1["type"], "ack");
    let again = json!({ "type": "subscribe_player", "id": "p2" });
    assert_eq!(refusal(&mut socket, again).await, "already_subscribed");
    // Up to the limit of games, and not one more.
    for _ in 1..MAX_SUBSCRIPTIONS {
        let (status, body) = server.create(&alice, json!({ "game": "gravity" })).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        socket.subscribe(body["id"].as_i64().expect("an id"), None).await;
    }
    let (_, body) = server.create(&alice, json!({ "game": "gravity" })).await;
    let one_more = json!({ "type": "subscribe", "game": body["id"], "id": "x" });
    assert_eq!(refusal(&mut socket, one_more).await, "too_many_subscriptions");
    teardown(database, server).await;
}
