//! Conditional moves over real HTTP (and a WebSocket), on SQLite or, with
//! `TEST_DATABASE_URL`, PostgreSQL: a tree followed and left, bad lines
//! refused whole, privacy, a takeback racing the move a tree answers, and
//! two servers on one database.

use crate::common;

use common::{assert_error, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::rules::AnyGame;

/// Registers alice and bob and starts a Gravity game between them (alice
/// first) under `time_control`.
async fn gravity(server: &TestServer, time_control: Value) -> (i64, String, String) {
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let (status, body) = server
        .post(
            "/games",
            Some(&alice),
            json!({ "game": "gravity", "opponents": ["bob"], "time_control": time_control }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["id"].as_i64().expect("an id");
    let (status, body) = server.post_empty(&format!("/games/{id}/join"), Some(&bob)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (id, alice, bob)
}

/// A line from the position after `before`: the `picks`-th legal move at
/// each ply.
fn line(before: &[String], picks: &[usize]) -> Vec<String> {
    let mut game = AnyGame::replay("gravity", None, before).expect("legal");
    picks
        .iter()
        .map(|&pick| {
            let legal = game.legal_moves();
            let chosen = legal[pick % legal.len()].clone();
            game.play(&chosen).expect("legal");
            chosen
        })
        .collect()
}

async fn put(server: &TestServer, id: i64, token: &str, lines: Value) -> (StatusCode, Value) {
    let url = server.url(&format!("/games/{id}/conditional"));
    server
        .send(
            server
                .client
                .put(url)
                .bearer_auth(token)
                .json(&json!({ "lines": lines })),
        )
        .await
}

async fn get(server: &TestServer, id: i64, token: Option<&str>) -> (StatusCode, Value) {
    server.get(&format!("/games/{id}/conditional"), token).await
}

async fn delete(server: &TestServer, id: i64, token: &str) -> StatusCode {
    let url = server.url(&format!("/games/{id}/conditional"));
    server.send(server.client.delete(url).bearer_auth(token)).await.0
}

async fn log(server: &TestServer, path: String, token: Option<&str>) -> Vec<Value> {
    let (status, body) = server.get(&path, token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["events"].as_array().expect("events").clone()
}

async fn history(server: &TestServer, id: i64) -> Vec<String> {
    let (status, body) = server.get(&format!("/games/{id}/moves"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["move"].as_str().expect("a move").to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_line_tree_is_followed_for_three_moves_then_left() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let day = 86_400_000_i64;
    let (id, alice, bob) = gravity(
        &server,
        json!({ "kind": "correspondence", "days_per_move": 3, "bonus_days": 1, "cap_days": 5 }),
    )
    .await;
    // Two lines sharing their first three pairs; the fourth differs.
    let main = line(&[], &[0, 1, 2, 3, 4, 5, 6, 7]);
    let mut other = main[..6].to_vec();
    other.extend(line(&main[..6], &[9, 10]));
    assert_ne!(other[6], main[6]);
    let (status, body) = put(&server, id, &bob, json!([main, other])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["ply"], 0);
    assert_eq!(body["lines"], json!([main, other]));

    // Alice follows the line for three moves (by HTTP, and by WebSocket);
    // each is answered at once, in the same commit.
    let mut socket = common::connect(&server, Some(&alice)).await;
    for round in 0..3 {
        let (theirs, mine) = (&main[2 * round], &main[2 * round + 1]);
        let ply = 2 * round as i64;
        if round == 1 {
            socket
                .send(json!({ "type": "move", "game": id, "move": theirs, "ply": ply, "id": "m" }))
                .await;
            let (_, answer) = socket.until_answer("m").await;
            assert_eq!(answer["type"], "ack", "{answer}");
        } else {
            let (status, body) = server.play(id, &alice, theirs, ply).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
            assert_eq!(body["game"]["ply"], ply + 2, "the answer shows the reply");
            assert_eq!(body["game"]["last_move"]["move"], mine.as_str());
            assert_eq!(body["move"]["move"], theirs.as_str());
        }
        let (status, tree) = get(&server, id, Some(&bob)).await;
        assert_eq!(status, StatusCode::OK, "{tree}");
        assert_eq!(tree["ply"], ply + 2);
        let rest = |l: &[String]| json!(l[2 * round + 2..]);
        assert_eq!(tree["lines"], json!([rest(&main), rest(&other)]));
    }
    assert_eq!(history(&server, id).await, main[..6]);

    // The log: six moves, bob's three marked conditional, each with the
    // clocks it left. Bob's replies took no time and earned their bonus.
    let events = log(&server, format!("/games/{id}/events?limit=100"), None).await;
    let moves: Vec<&Value> = events.iter().filter(|e| e["kind"] == "move").collect();
    assert_eq!(moves.len(), 6);
    for (index, event) in moves.iter().enumerate() {
        let payload = &event["payload"];
        let reply = index % 2 == 1;
        assert_eq!(payload["ply"], index + 1);
        assert_eq!(payload["seat"], index % 2);
        assert_eq!(payload["conditional"].as_bool().unwrap_or(false), reply, "{payload}");
        let banks = payload["remaining_ms"].as_array().expect("clocks");
        // After n moves of a seat its bank holds n days (cap 5).
        let alice_moves = (index / 2 + 1) as i64;
        let bob_moves = index.div_ceil(2) as i64;
        assert_eq!(banks[0].as_i64(), Some(alice_moves * day), "{payload}");
        assert_eq!(banks[1].as_i64(), Some(bob_moves * day), "{payload}");
        // The move's watchers are told the deadline of the seat to move:
        // bob's after alice's move, alice's after bob's.
        let deadline = payload["deadline"].as_i64().expect("a deadline");
        let bank = if reply { alice_moves } else { bob_moves };
        assert!(deadline >= (3 + bank) * day, "{payload}");
    }
    let (_, state) = server.get(&format!("/games/{id}"), Some(&bob)).await;
    assert_eq!(state["clock"]["remaining_ms"][1], 3 * day + 3 * day, "{state}");

    // Then alice leaves the line: the tree goes, bob is told, and it is
    // his turn.
    let leave = line(&main[..6], &[20])[0].clone();
    assert!(leave != main[6] && leave != other[6]);
    let (status, body) = server.play(id, &alice, &leave, 6).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["game"]["ply"], 7);
    assert_eq!(body["game"]["to_move"], 1);
    let (status, body) = get(&server, id, Some(&bob)).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    let mine = log(&server, "/players/me/events?limit=100".to_owned(), Some(&bob)).await;
    let turns: Vec<i64> = mine
        .iter()
        .filter(|e| e["kind"] == "your_turn")
        .map(|e| e["payload"]["ply"].as_i64().expect("a ply"))
        .collect();
    assert_eq!(turns, [7], "no your-turn notice for the plies the tree played");
    let cleared: Vec<&Value> = mine.iter().filter(|e| e["kind"] == "conditional_cleared").collect();
    assert_eq!(cleared.len(), 1, "{mine:?}");
    assert_eq!(
        cleared[0]["payload"],
        json!({ "ply": 7, "reason": "unforeseen", "game": id })
    );
    // Bob plays on by hand; nothing is answered for alice.
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    let by_hand = state["legal"][0].as_str().expect("a move").to_owned();
    let (status, body) = server.play(id, &bob, &by_hand, 7).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["game"]["ply"], 8);
    socket.close().await;
    server.stop().await;
    database.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_line_is_refused_whole_and_nothing_is_stored() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let (id, alice, bob) = gravity(&server, json!({ "kind": "none" })).await;
    let good = line(&[], &[0, 1]);
    // Line 2 plays its third ply on a square its first took.
    let mut bad = line(&[], &[3, 4]);
    bad.push(bad[0].clone());
    bad.push(good[0].clone());
    let (status, body) = put(&server, id, &bob, json!([good, bad])).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_line");
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(message.starts_with("line 2, ply 3"), "{message}");
    let (status, body) = get(&server, id, Some(&bob)).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    // Nothing stored: alice's move that the good line foresaw is not
    // answered.
    let (status, body) = server.play(id, &alice, &good[0], 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["game"]["ply"], 1);

    // Now alice waits: she may leave a tree (and take it back), bob may
    // not. Then the other refusals: unreadable, too many, too long, none,
    // not a player, not JSON lines, four players.
    let next = line(&[good[0].clone()], &[0, 1]);
    let (status, body) = put(&server, id, &alice, json!([next])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(delete(&server, id, &alice).await, StatusCode::NO_CONTENT);
    let (status, body) = put(&server, id, &bob, json!([next])).await;
    assert_error(status, &body, StatusCode::CONFLICT, "your_turn");
    let (status, body) = server.play(id, &bob, &next[0], 1).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = put(&server, id, &bob, json!([["zz9", "a1"]])).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_line");
    let many: Vec<Value> = (0..65).map(|_| json!(good)).collect();
    let (status, body) = put(&server, id, &bob, json!(many)).await;
    assert_error(status, &body, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    let long: Vec<&str> = vec!["a1"; 42];
    let (status, body) = put(&server, id, &bob, json!([long])).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "line_too_long");
    let (status, body) = put(&server, id, &bob, json!([])).await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_line");
    let carol = server.register("carol").await;
    let (status, body) = put(&server, id, &carol, json!([good])).await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "not_a_player");
    let (status, body) = server
        .send(
            server
                .client
                .put(server.url(&format!("/games/{id}/conditional")))
                .bearer_auth(&bob)
                .json(&json!({ "lines": "a1" })),
        )
        .await;
    assert!(
        status.is_client_error() && status != StatusCode::NOT_FOUND,
        "{status} {body}"
    );
    let dave = server.register("dave").await;
    let erin = server.register("erin").await;
    let four = server
        .start_game(
            "focus",
            "four",
            &[&alice, &carol, &dave, &erin],
            &["alice", "carol", "dave", "erin"],
        )
        .await;
    let (status, body) = put(&server, four, &carol, json!([["a1", "a2"]])).await;
    assert_error(
        status,
        &body,
        StatusCode::UNPROCESSABLE_ENTITY,
        "conditional_two_players",
    );
    assert_eq!(history(&server, id).await.len(), 2);
    server.stop().await;
    database.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tree_is_its_owners_alone() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let (id, alice, bob) = gravity(&server, json!({ "kind": "none" })).await;
    let carol = server.register("carol").await;
    let lines = json!([line(&[], &[0, 1, 2, 3])]);
    let (status, body) = put(&server, id, &bob, lines.clone()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = get(&server, id, Some(&bob)).await;
    assert_eq!((status, &body["lines"]), (StatusCode::OK, &lines), "{body}");
    // The opponent, a spectator: 404, as if there were none.
    for token in [&alice, &carol] {
        let (status, body) = get(&server, id, Some(token)).await;
        assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    }
    let (status, _) = get(&server, id, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Neither the game, its log nor its moves tell anyone there is a tree.
    let (_, state) = server.get(&format!("/games/{id}"), Some(&alice)).await;
    let events = log(&server, format!("/games/{id}/events"), Some(&alice)).await;
    for shown in [state.to_string(), json!(events).to_string()] {
        assert!(!shown.contains("conditional"), "{shown}");
    }
    // Nobody else can clear it: their DELETE clears only their own.
    assert_eq!(delete(&server, id, &alice).await, StatusCode::NO_CONTENT);
    assert_eq!(delete(&server, id, &carol).await, StatusCode::NOT_FOUND);
    let (status, _) = get(&server, id, Some(&bob)).await;
    assert_eq!(status, StatusCode::OK);
    // Its owner can.
    assert_eq!(delete(&server, id, &bob).await, StatusCode::NO_CONTENT);
    let (status, _) = get(&server, id, Some(&bob)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(delete(&server, id, &bob).await, StatusCode::NO_CONTENT);
    server.stop().await;
    database.remove().await;
}

/// Alice's move, which bob's tree answers, races alice's acceptance of
/// bob's takeback: either the takeback wins (the move is refused, the tree
/// is gone) or the move and its reply win together; never the move alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_move_and_its_reply_race_a_takeback() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let (mut took_back, mut answered) = (0, 0);
    for _ in 0..8 {
        let id = server
            .start_game("gravity", "standard", &[&alice, &bob], &["alice", "bob"])
            .await;
        let opening = line(&[], &[0, 1]);
        for (ply, (mv, token)) in opening.iter().zip([&alice, &bob]).enumerate() {
            let (status, body) = server.play(id, token, mv, ply as i64).await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
        let tree = line(&opening, &[2, 3, 4, 5]);
        let (status, body) = put(&server, id, &bob, json!([tree])).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let (status, body) = server
            .post_empty(&format!("/games/{id}/takeback/yes"), Some(&bob))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let takeback = format!("/games/{id}/takeback/yes");
        let accept = server.post_empty(&takeback, Some(&alice));
        let play = server.play(id, &alice, &tree[0], 2);
        let ((accept, _), (played, body)) = tokio::join!(accept, play);
        assert_eq!(accept, StatusCode::OK);
        let moves = history(&server, id).await;
        let (_, state) = server.get(&format!("/games/{id}"), None).await;
        assert_eq!(state["ply"], moves.len(), "{state}");
        let (tree_status, _) = get(&server, id, Some(&bob)).await;
        if played == StatusCode::CREATED {
            answered += 1;
            // Both plies, and the tree moved on; alice's yes then asked for
            // a takeback of the reply.
            assert_eq!(moves, [&opening[..], &tree[..2]].concat());
            assert_eq!(tree_status, StatusCode::OK);
            assert_eq!(state["offers"]["takeback"], json!([0]), "{state}");
        } else {
            took_back += 1;
            assert_eq!(played, StatusCode::CONFLICT, "{body}");
            assert_eq!(moves, opening[..1]);
            assert_eq!(tree_status, StatusCode::NOT_FOUND, "the takeback took the tree");
        }
    }
    assert_eq!(took_back + answered, 8);
    server.stop().await;
    database.remove().await;
}

/// Bob sets his tree on one server, alice moves on the other, each server
/// holding the game in memory: the reply is played all the same, and used
/// none of bob's time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_database_answer_from_one_tree() {
    let database = Database::new().await;
    let one = TestServer::start(&database).await;
    let two = TestServer::start(&database).await;
    let (id, alice, bob) = gravity(
        &one,
        json!({ "kind": "live", "initial_seconds": 600, "increment_seconds": 5 }),
    )
    .await;
    let opening = line(&[], &[0, 1]);
    let (status, body) = one.play(id, &alice, &opening[0], 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = two.play(id, &bob, &opening[1], 1).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // Both servers hold the game at ply 2, with no tree.
    for server in [&one, &two] {
        let (status, state) = server.get(&format!("/games/{id}"), None).await;
        assert_eq!((status, &state["ply"]), (StatusCode::OK, &json!(2)));
    }
    let tree = line(&opening, &[2, 3, 4, 5]);
    let (status, body) = put(&two, id, &bob, json!([tree])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = one.play(id, &alice, &tree[0], 2).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["game"]["ply"], 4, "server one answered from the tree set on two");
    let events = log(&two, format!("/games/{id}/events?limit=100"), None).await;
    let reply = events.iter().rev().find(|e| e["kind"] == "move").expect("the reply");
    assert_eq!(reply["payload"]["conditional"], true);
    // Bob's two moves earned two increments, and the reply took nothing.
    let bob_clock = reply["payload"]["remaining_ms"][1].as_i64().expect("bob's clock");
    let (_, moves) = two.get(&format!("/games/{id}/moves"), None).await;
    assert_eq!(moves["moves"].as_array().expect("moves").len(), 4);
    let (status, tree_now) = get(&one, id, Some(&bob)).await;
    assert_eq!(status, StatusCode::OK, "{tree_now}");
    assert_eq!(tree_now["lines"], json!([tree[2..]]));
    // Bob withdraws it on server one; server two's next move is not
    // answered.
    assert_eq!(delete(&one, id, &bob).await, StatusCode::NO_CONTENT);
    let (status, body) = two.play(id, &alice, &tree[2], 4).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["game"]["ply"], 5);
    assert!(bob_clock <= 610_000 && bob_clock > 600_000, "{bob_clock}");
    let first_bob = events
        .iter()
        .filter(|e| e["kind"] == "move")
        .nth(1)
        .expect("bob's first move");
    let before = first_bob["payload"]["remaining_ms"][1].as_i64().expect("bob's clock");
    assert_eq!(bob_clock, before + 5_000, "the reply used none of bob's time");
    one.stop().await;
    two.stop().await;
    database.remove().await;
}
