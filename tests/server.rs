//! The server over real HTTP, on SQLite (default) or PostgreSQL instead
//! (`TEST_DATABASE_URL=postgres://… cargo test`).

use crate::common;

use std::collections::HashMap;

use common::{assert_error, teardown, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::rules::{catalogue, AnyGame};

async fn setup() -> (Database, TestServer) {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    (database, server)
}

/// A move sequence that ends the game, found with the rules library. Random
/// play need not end a Torri or Cacciatori game, so the seats play greedily:
/// a greedy seat wins at once when it can, else leaves the next player the
/// fewest replies. First only seat 0 is greedy (the others play a fixed
/// pseudo-random choice), then every seat.
fn finishing_line(game: &str, variant: &str) -> Vec<String> {
    let greedy = |position: &AnyGame, legal: &[String], ply: usize| -> String {
        let score = |(i, m): &(usize, &String)| {
            let mut next = position.clone();
            next.play(m).expect("a listed move is legal");
            match next.is_finished() {
                true => 0,
                false => 1 + next.legal_moves().len() * 64 + (i * 7 + ply) % 61,
            }
        };
        let best = legal
            .iter()
            .enumerate()
            .min_by_key(score)
            .expect("an active game has moves");
        best.1.clone()
    };
    for all_greedy in [false, true] {
        let mut position = AnyGame::new(game, Some(variant)).expect("catalogue variant");
        let mut line = Vec::new();
        while !position.is_finished() && line.len() < 1000 {
            let legal = position.legal_moves();
            let ply = line.len();
            let m = match all_greedy || position.to_move() == Some(0) {
                true => greedy(&position, &legal, ply),
                false => legal[(ply * 7 + 3) % legal.len()].clone(),
            };
            position.play(&m).expect("a listed move is legal");
            line.push(m);
        }
        if position.is_finished() {
            return line;
        }
    }
    panic!("no finishing line found for {game}/{variant}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_complete_game_of_every_variant_over_http() {
    let (database, server) = setup().await;
    let variants = catalogue::GAMES
        .iter()
        .flat_map(|game| game.variants.iter().map(move |v| (*game, v)));
    for (n, (game, variant)) in variants.enumerate() {
        let names: Vec<String> = (0..variant.seats.len()).map(|i| format!("p{n}s{i}")).collect();
        let mut tokens = HashMap::new();
        for name in &names {
            tokens.insert(name.clone(), server.register(name).await);
        }
        let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let token_refs: Vec<&str> = names.iter().map(|n| tokens[n].as_str()).collect();
        let id = server
            .start_game(game.slug, variant.slug, &token_refs, &name_refs)
            .await;
        let (status, mut state) = server.get(&format!("/games/{id}"), None).await;
        assert_eq!(status, StatusCode::OK, "{state}");
        let line = finishing_line(game.slug, variant.slug);
        let mut plies = 0;
        while state["status"] == "active" {
            let legal = state["legal"].as_array().expect("legal moves");
            assert!(!legal.is_empty(), "an active game has legal moves: {state}");
            let mv = line[plies].as_str();
            assert!(legal.iter().any(|m| m == mv), "{mv} is listed by the server: {state}");
            let player = state["to_move_player"].as_str().expect("someone to move");
            let (status, answer) = server
                .play(id, &tokens[player], mv, state["ply"].as_i64().unwrap())
                .await;
            assert_eq!(status, StatusCode::CREATED, "{}: {mv}: {answer}", game.slug);
            assert_eq!(answer["move"]["move"], mv);
            state = answer["game"].clone();
            plies += 1;
        }
        assert_eq!(state["status"], "finished", "{state}");
        // The outcome is the one the rules give for this line.
        let mut position = AnyGame::new(game.slug, Some(variant.slug)).expect("catalogue variant");
        for m in &line[..plies] {
            position.play(m).expect("a listed move is legal");
        }
        let outcome = position.outcome().expect("the line ends the game");
        let mut shown = state["outcome"].clone();
        shown.as_object_mut().expect("an outcome").remove("winner_names");
        assert_eq!(
            shown,
            tavoliere::views::outcome::outcome(&json!(outcome), None),
            "{}/{}",
            game.slug,
            variant.slug
        );
        assert!(state["legal"].as_array().unwrap().is_empty());
        // The history, the record, the boards, a past position.
        let (_, history) = server.get(&format!("/games/{id}/moves"), None).await;
        assert_eq!(history["moves"].as_array().unwrap().len(), plies);
        let (_, record) = server.get(&format!("/games/{id}/record"), None).await;
        assert_eq!(record["moves"].as_array().unwrap().len(), plies);
        assert_eq!(record["result"], state["outcome"]);
        let (status, kind, text) = server.get_text(&format!("/games/{id}/record?format=text"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert!(kind.starts_with("text/plain"));
        assert!(text.contains("Result:") && text.contains("  1. "), "{text}");
        let (status, kind, svg) = server.get_text(&format!("/games/{id}/board.svg"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(kind, "image/svg+xml");
        assert!(
            // The last move's colour: an outline, or the dot on the last stone.
            svg.starts_with("<svg") && svg.contains("#e0452b"),
            "the last move is marked"
        );
        let (status, _, text) = server.get_text(&format!("/games/{id}/board.txt?ply=1"), None).await;
        assert_eq!(status, StatusCode::OK);
        assert!(text.contains("move 1") && text.contains('*'), "{text}");
        let (_, first) = server.get(&format!("/games/{id}?ply=1"), None).await;
        assert_eq!(first["ply"], 1);
        assert_eq!(first["at_ply"], 1);
        assert_eq!(first["last_move"]["move"], history["moves"][0]["move"]);
        // The event log: numbered without gaps, ending with the game's end.
        let (_, events) = server.get(&format!("/games/{id}/events?limit=500"), None).await;
        let events = events["events"].as_array().unwrap();
        for (i, event) in events.iter().enumerate() {
            assert_eq!(event["seq"], i as i64 + 1);
        }
        assert_eq!(events.last().unwrap()["kind"], "finished");
        assert_eq!(events.iter().filter(|e| e["kind"] == "move").count(), plies);
    }
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_status() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    let carol = server.register("carol").await;
    let moves = format!("/games/{id}/moves");

    // 400: malformed bodies, bad paths and queries.
    let (s, b) = server
        .send(
            server
                .client
                .post(server.url(&moves))
                .bearer_auth(&alice)
                .header("content-type", "application/json")
                .body("{\"move\": "),
        )
        .await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    let (s, b) = server.post(&moves, Some(&alice), json!({ "move": "d4" })).await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    let (s, b) = server
        .post(&moves, Some(&alice), json!({ "move": "d4", "ply": "zero" }))
        .await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    let (s, b) = server
        .post("/games/nope/moves", Some(&alice), json!({ "move": "d4", "ply": 0 }))
        .await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    let (s, b) = server.get("/games?limit=many", None).await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    let (s, b) = server.get("/games?status=sleeping", None).await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");

    // 401: no token, a wrong token, a wrong password.
    let (s, b) = server.post(&moves, None, json!({ "move": "d4", "ply": 0 })).await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let (s, b) = server
        .post(&moves, Some("forged"), json!({ "move": "d4", "ply": 0 }))
        .await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let (s, b) = server
        .post("/sessions", None, json!({ "name": "alice", "password": "wrong horse" }))
        .await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    let (s, b) = server.get("/players/me", None).await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");

    // 403: not a player; not your turn.
    let (s, b) = server.play(id, &carol, "d4", 0).await;
    assert_error(s, &b, StatusCode::FORBIDDEN, "not_a_player");
    let (s, b) = server.play(id, &bob, "d4", 0).await;
    assert_error(s, &b, StatusCode::FORBIDDEN, "not_your_turn");

    // 404: no such game, player or route.
    let (s, b) = server.play(9999, &alice, "d4", 0).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.get("/players/nobody", None).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.get("/nowhere", None).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");

    // 422: unparseable and illegal moves, with the rules' reason.
    let (s, b) = server.play(id, &alice, "z99", 0).await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "bad_notation");
    let (s, b) = server.play(id, &alice, "d4", 0).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let landing = b["move"]["effect"]
        .as_str()
        .unwrap()
        .trim_start_matches("lands on ")
        .to_owned();
    let (s, b) = server.play(id, &bob, &landing, 1).await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_move");
    assert_eq!(b["error"]["message"], format!("{landing} is occupied"));
    let (s, b) = server.create(&alice, json!({ "game": "chess" })).await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "unknown_game");
    let (s, b) = server
        .post("/players", None, json!({ "name": "x y", "password": "correct horse" }))
        .await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "bad_name");
    let (s, b) = server
        .post("/players", None, json!({ "name": "dave", "password": "short" }))
        .await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "bad_password");

    // 409: a stale ply (with the current state), a taken name, a game over.
    let (s, b) = server.play(id, &bob, "e5", 0).await;
    assert_error(s, &b, StatusCode::CONFLICT, "stale_ply");
    assert_eq!(b["game"]["ply"], 1);
    assert_eq!(b["game"]["to_move"], 1);
    assert!(b["game"]["legal"].as_array().is_some_and(|l| !l.is_empty()));
    let (s, b) = server
        .post(
            "/players",
            None,
            json!({ "name": "ALICE", "password": "correct horse" }),
        )
        .await;
    assert_error(s, &b, StatusCode::CONFLICT, "name_taken");
    let (s, b) = server.post_empty(&format!("/games/{id}/resign"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "finished");
    assert_eq!(b["outcome"]["winners"], json!([0]));
    let (s, b) = server.play(id, &bob, "e5", 1).await;
    assert_error(s, &b, StatusCode::CONFLICT, "game_not_active");
    assert_eq!(b["game"]["status"], "finished");

    // 405, 413.
    let (s, b) = server.send(server.client.delete(server.url(&moves))).await;
    assert_error(s, &b, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    let huge = "x".repeat(100 * 1024);
    let (s, b) = server
        .post(&moves, Some(&alice), json!({ "move": huge, "ply": 1 }))
        .await;
    assert_error(s, &b, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_submissions_of_one_ply_store_exactly_one_move() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    let legal: Vec<String> = state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_owned())
        .collect();
    // Two clients, one per player, 25 submissions each of ply 0; alice's
    // cycle through a few different moves.
    let alice_client = reqwest::Client::new();
    let bob_client = reqwest::Client::new();
    let mut tasks = Vec::new();
    for i in 0..50 {
        let (client, token) = if i % 2 == 0 {
            (alice_client.clone(), alice.clone())
        } else {
            (bob_client.clone(), bob.clone())
        };
        let mv = legal[i % 5].clone();
        let url = server.url(&format!("/games/{id}/moves"));
        tasks.push(tokio::spawn(async move {
            let response = client
                .post(url)
                .bearer_auth(token)
                .json(&json!({ "move": mv, "ply": 0 }))
                .send()
                .await
                .expect("sent");
            let status = response.status();
            let body: Value = response.json().await.expect("a JSON body");
            (status, body)
        }));
    }
    let mut statuses: HashMap<u16, usize> = HashMap::new();
    for task in tasks {
        let (status, body) = task.await.expect("task");
        assert!(
            [200, 201, 403, 409].contains(&status.as_u16()),
            "unexpected {status}: {body}"
        );
        if status.is_client_error() {
            assert!(body["error"]["code"].is_string(), "{body}");
        }
        *statuses.entry(status.as_u16()).or_default() += 1;
    }
    assert_eq!(statuses.get(&201), Some(&1), "exactly one accepted: {statuses:?}");
    let (_, history) = server.get(&format!("/games/{id}/moves"), None).await;
    assert_eq!(history["moves"].as_array().unwrap().len(), 1);
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["ply"], 1);
    let (_, events) = server.get(&format!("/games/{id}/events"), None).await;
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["created", "joined", "started", "move"]);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_move_is_applied_once() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    let (s1, first) = server
        .post(
            &format!("/games/{id}/moves"),
            Some(&alice),
            json!({ "move": "d4", "ply": 0, "message": "your move" }),
        )
        .await;
    assert_eq!(s1, StatusCode::CREATED, "{first}");
    assert_eq!(first["created"], true);
    // The same request again (a lost answer retried), also in another case.
    for mv in ["d4", "D4"] {
        let (s, again) = server
            .post(
                &format!("/games/{id}/moves"),
                Some(&alice),
                json!({ "move": mv, "ply": 0, "message": "your move" }),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{again}");
        assert_eq!(again["created"], false);
        assert_eq!(again["move"], first["move"]);
        assert_eq!(again["game"]["ply"], 1);
    }
    // A different move at the same ply is stale, not a retry.
    let (s, b) = server.play(id, &alice, "e5", 0).await;
    assert_error(s, &b, StatusCode::CONFLICT, "stale_ply");
    // The opponent replaying alice's ply is not a retry either.
    let (s, b) = server.play(id, &bob, "d4", 0).await;
    assert_error(s, &b, StatusCode::CONFLICT, "stale_ply");
    let (_, history) = server.get(&format!("/games/{id}/moves"), None).await;
    let history = history["moves"].as_array().unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0]["message"], "your move");
    assert_eq!(history[0]["player"], "alice");
    teardown(database, server).await;
}

/// `POST …/moves` asking for the lean answer (`Prefer: return=minimal`,
/// plus `query`): the status, the `Preference-Applied` header and the body.
async fn play_lean(
    server: &TestServer,
    id: i64,
    token: &str,
    mv: &str,
    ply: i64,
    query: &str,
) -> (StatusCode, Option<String>, Value) {
    let path = format!("/games/{id}/moves{query}");
    post_preferring(
        server,
        &path,
        token,
        Some(json!({ "move": mv, "ply": ply })),
        Some("return=minimal"),
    )
    .await
}

/// `POST path` with `body` (none: no body) and the `Prefer` header
/// `prefer`: the status, the `Preference-Applied` header and the body.
async fn post_preferring(
    server: &TestServer,
    path: &str,
    token: &str,
    body: Option<Value>,
    prefer: Option<&str>,
) -> (StatusCode, Option<String>, Value) {
    let mut request = server.client.post(server.url(path)).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(&body);
    }
    if let Some(prefer) = prefer {
        request = request.header("Prefer", prefer);
    }
    let response = request.send().await.expect("request sent");
    let status = response.status();
    let applied = response
        .headers()
        .get("preference-applied")
        .map(|v| v.to_str().expect("ASCII").to_owned());
    let body = response.json().await.expect("a JSON body");
    (status, applied, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lean_move_answer_carries_the_move_and_where_the_game_stands() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    let line = finishing_line("gravity", "standard");
    let tokens = [&alice, &bob];

    // Without legal moves: the move, the game's ply, turn and event number.
    let (status, applied, first) = play_lean(&server, id, &alice, &line[0], 0, "").await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(applied.as_deref(), Some("return=minimal"));
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(first["created"], true, "{first}");
    assert_eq!(first["move"]["move"], line[0].as_str(), "{first}");
    assert_eq!(first["move"]["ply"], 1, "{first}");
    assert_eq!(first["move"]["player"], "alice", "{first}");
    assert_eq!(first["game_id"], id, "{first}");
    assert_eq!(first["status"], "active", "{first}");
    assert_eq!(first["ply"], 1, "{first}");
    assert_eq!(first["to_move"], 1, "{first}");
    assert_eq!(first["seq"], state["seq"], "{first}");
    assert_eq!(first["last_move"], state["last_move"], "{first}");
    assert_eq!(first["outcome"], Value::Null, "{first}");
    for absent in ["game", "legal", "view", "seats"] {
        assert!(first.get(absent).is_none(), "{absent} in {first}");
    }

    // With them: exactly the legal moves of the full state.
    let (status, _, second) = play_lean(&server, id, &bob, &line[1], 1, "?legal=true").await;
    assert_eq!(status, StatusCode::CREATED, "{second}");
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(second["legal"], state["legal"], "{second}");
    assert_eq!(second["seq"], state["seq"], "{second}");
    assert!(!state["legal"].as_array().expect("legal moves").is_empty());

    // A retry answers 200 with the move stored, and the game as it is.
    let (status, applied, again) = play_lean(&server, id, &bob, &line[1], 1, "?legal=true").await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(applied.as_deref(), Some("return=minimal"));
    assert_eq!(again["created"], false, "{again}");
    assert_eq!(again["move"], second["move"], "{again}");
    assert_eq!(again["ply"], 2, "{again}");
    assert_eq!(again["last_move"], second["move"], "{again}");

    // Refusals are the usual errors, and change nothing.
    let (status, _, stale) = play_lean(&server, id, &bob, &line[0], 0, "").await;
    assert_error(status, &stale, StatusCode::CONFLICT, "stale_ply");
    let (status, _, illegal) = play_lean(&server, id, &alice, "z99", 2, "").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{illegal}");
    let (status, _, bad) = play_lean(&server, id, &alice, &line[2], 2, "?legal=maybe").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["ply"], 2, "{state}");

    // Without the preference, or with another, the full answer.
    for prefer in [None, Some("return=representation"), Some("respond-async")] {
        let mut request = server
            .client
            .post(server.url(&format!("/games/{id}/moves")))
            .bearer_auth(&bob)
            .json(&json!({ "move": line[1], "ply": 1 }));
        if let Some(prefer) = prefer {
            request = request.header("Prefer", prefer);
        }
        let response = request.send().await.expect("request sent");
        assert!(response.headers().get("preference-applied").is_none());
        let full: Value = response.json().await.expect("a JSON body");
        assert_eq!(full["game"]["ply"], 2, "{full}");
        assert_eq!(full["game"]["legal"], state["legal"], "{full}");
    }

    // To the end: the last answer says how the game ended.
    let mut last = Value::Null;
    for (ply, mv) in line.iter().enumerate().skip(2) {
        let (status, _, answer) = play_lean(&server, id, tokens[ply % 2], mv, ply as i64, "?legal=true").await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
        last = answer;
    }
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(last["status"], "finished", "{last}");
    assert_eq!(last["to_move"], Value::Null, "{last}");
    assert_eq!(last["outcome"], state["outcome"], "{last}");
    assert_eq!(last["legal"], json!([]), "{last}");
    assert_eq!(last["seq"], state["seq"], "{last}");
    assert_eq!(last["ply"], line.len(), "{last}");
    teardown(database, server).await;
}

/// The fields of a lean answer to an action on a game, and those it leaves
/// out.
const LEAN_GAME_FIELDS: [&str; 9] = [
    "id",
    "game",
    "variant",
    "status",
    "ply",
    "to_move",
    "your_seat",
    "seq",
    "outcome",
];

/// A lean answer (`lean`) says of the game what the full state (`full`)
/// does, field by field, and nothing of its position, seats or clock.
fn assert_lean_as_full(lean: &Value, full: &Value, legal: bool) {
    for field in LEAN_GAME_FIELDS {
        assert_eq!(lean[field], full[field], "{field}: {lean} against {full}");
    }
    for absent in [
        "view",
        "seats",
        "clock",
        "offers",
        "last_move",
        "to_move_player",
        "past",
    ] {
        assert!(lean.get(absent).is_none(), "{absent} in {lean}");
    }
    match legal {
        true => assert_eq!(lean["legal"], full["legal"], "{lean}"),
        false => assert!(lean.get("legal").is_none(), "{lean}"),
    }
    let fields = lean.as_object().expect("an object").len();
    assert!(fields <= LEAN_GAME_FIELDS.len() + 2, "{lean}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lean_answer_to_an_action_on_a_game_says_where_it_stands() {
    let (database, server) = setup().await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let minimal = Some("return=minimal");

    // Created: 201, marked, the creator's seat, the game's event number.
    let new_game = json!({ "game": "gravity", "variant": "standard", "opponents": ["bob"] });
    let (status, applied, created) = post_preferring(&server, "/games", &alice, Some(new_game.clone()), minimal).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(applied.as_deref(), Some("return=minimal"));
    let id = created["id"].as_i64().expect("an id");
    let (_, full) = server.get(&format!("/games/{id}"), Some(&alice)).await;
    assert_lean_as_full(&created, &full, false);
    assert_eq!(created["status"], "open", "{created}");
    assert_eq!(created["your_seat"], 0, "{created}");

    // A bad `legal` is refused before anything is done: bob is not seated.
    let (status, _, bad) =
        post_preferring(&server, &format!("/games/{id}/join?legal=maybe"), &bob, None, minimal).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (_, still) = server.get(&format!("/games/{id}"), Some(&bob)).await;
    assert_eq!(still["status"], "open", "{still}");
    assert_eq!(still["seq"], full["seq"], "{still}");

    // Joined, with the legal moves: the game starts, its first moves listed.
    let (status, applied, joined) =
        post_preferring(&server, &format!("/games/{id}/join?legal=true"), &bob, None, minimal).await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    assert_eq!(applied.as_deref(), Some("return=minimal"));
    let (_, full) = server.get(&format!("/games/{id}"), Some(&bob)).await;
    assert_lean_as_full(&joined, &full, true);
    assert_eq!(joined["status"], "active", "{joined}");
    assert_eq!(joined["your_seat"], 1, "{joined}");
    assert!(!joined["legal"].as_array().expect("legal moves").is_empty(), "{joined}");

    // A draw offered leanly, then declined and offered again without the
    // preference, or with another one: the whole state, unmarked.
    let (status, _, offered) = post_preferring(&server, &format!("/games/{id}/draw/yes"), &alice, None, minimal).await;
    assert_eq!(status, StatusCode::OK, "{offered}");
    let (_, full) = server.get(&format!("/games/{id}"), Some(&alice)).await;
    assert_lean_as_full(&offered, &full, false);
    let unmarked = [
        (&bob, "no", None, json!([])),
        (&alice, "yes", Some("return=representation"), json!([0])),
    ];
    for (token, answer, prefer, offers) in unmarked {
        let path = format!("/games/{id}/draw/{answer}");
        let (status, applied, whole) = post_preferring(&server, &path, token, None, prefer).await;
        assert_eq!(status, StatusCode::OK, "{whole}");
        assert!(applied.is_none(), "{applied:?}");
        assert!(whole["view"]["board"]["cells"].is_array(), "{whole}");
        assert_eq!(whole["offers"]["draw"], offers, "{whole}");
    }

    // Resigned: finished, with the outcome the full state shows, no moves.
    let (status, _, resigned) = post_preferring(
        &server,
        &format!("/games/{id}/resign?legal=true"),
        &alice,
        None,
        minimal,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{resigned}");
    let (_, full) = server.get(&format!("/games/{id}"), Some(&alice)).await;
    assert_lean_as_full(&resigned, &full, true);
    assert_eq!(resigned["status"], "finished", "{resigned}");
    assert_eq!(resigned["legal"], json!([]), "{resigned}");
    assert!(resigned["outcome"]["winners"].is_array(), "{resigned}");

    // A private game's lean answer keeps its invitation code for its creator.
    let private = json!({ "game": "gravity", "variant": "standard", "public": false });
    let (status, _, hidden) = post_preferring(&server, "/games", &alice, Some(private), minimal).await;
    assert_eq!(status, StatusCode::CREATED, "{hidden}");
    let hidden_id = hidden["id"].as_i64().expect("an id");
    let (_, full) = server.get(&format!("/games/{hidden_id}"), Some(&alice)).await;
    assert_eq!(hidden["invite_code"], full["invite_code"], "{hidden}");
    assert!(hidden["invite_code"].is_string(), "{hidden}");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_mid_game_loses_nothing() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let (id, alice, bob) = server.gravity().await;
    let mut played = Vec::new();
    for ply in 0..5 {
        let (_, state) = server.get(&format!("/games/{id}"), None).await;
        let mv = state["legal"][0].as_str().unwrap().to_owned();
        let token = if ply % 2 == 0 { &alice } else { &bob };
        let (s, b) = server.play(id, token, &mv, ply).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        played.push(mv);
    }
    let (_, before) = server.get(&format!("/games/{id}"), None).await;
    let (_, _, board_before) = server.get_text(&format!("/games/{id}/board.txt"), None).await;
    assert!(board_before.contains("move 5"), "{board_before}");
    server.stop().await;

    let server = TestServer::start(&database).await;
    let (s, after) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(s, StatusCode::OK);
    for key in ["ply", "to_move", "legal", "view", "seats", "status", "seq"] {
        assert_eq!(after[key], before[key], "{key} survives a restart");
    }
    let (_, _, board_after) = server.get_text(&format!("/games/{id}/board.txt"), None).await;
    assert_eq!(board_after, board_before);
    let (_, history) = server.get(&format!("/games/{id}/moves"), None).await;
    let stored: Vec<&str> = history["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(stored, played);
    // Tokens survive too, and the game goes on; the retry check still works.
    let (s, b) = server.play(id, &alice, &played[4], 4).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["created"], false);
    let mv = after["legal"][0].as_str().unwrap();
    let (s, b) = server.play(id, &bob, mv, 5).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_acts_for_another_or_reads_their_private_games() {
    let (database, server) = setup().await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let carol = server.register("carol").await;
    let (s, game) = server
        .create(
            &alice,
            json!({ "game": "gravity", "opponents": ["bob"], "public": false }),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{game}");
    let id = game["id"].as_i64().unwrap();
    // Carol cannot accept or decline bob's invitation, nor see the game.
    let (s, b) = server.post_empty(&format!("/games/{id}/decline"), Some(&carol)).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.get(&format!("/games/{id}"), Some(&carol)).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.get(&format!("/games/{id}"), None).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    // Bob (invited) sees it before joining.
    let (s, _) = server.get(&format!("/games/{id}"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = server.post_empty(&format!("/games/{id}/join"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "active");
    // Alice cannot move for bob; carol cannot move, resign, offer, abort or read.
    let (s, b) = server.play(id, &alice, "d4", 0).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, b) = server.play(id, &alice, "e5", 1).await;
    assert_error(s, &b, StatusCode::FORBIDDEN, "not_your_turn");
    for path in ["resign", "draw/yes", "takeback/yes", "abort"] {
        let (s, b) = server.post_empty(&format!("/games/{id}/{path}"), Some(&carol)).await;
        assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    }
    let (s, b) = server.play(id, &carol, "e5", 1).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    for path in ["moves", "record", "board.svg", "board.txt", "events"] {
        let (s, b) = server.get(&format!("/games/{id}/{path}"), Some(&carol)).await;
        assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    }
    let (_, list) = server.get("/games", Some(&carol)).await;
    assert!(list["games"].as_array().unwrap().is_empty(), "{list}");
    let (_, list) = server.get("/games", Some(&bob)).await;
    assert_eq!(list["games"].as_array().unwrap().len(), 1);
    // In a public game an outsider reads, but cannot act: 403.
    let public = server
        .start_game("gravity", "standard", &[&alice, &bob], &["alice", "bob"])
        .await;
    let (s, _) = server.get(&format!("/games/{public}"), Some(&carol)).await;
    assert_eq!(s, StatusCode::OK);
    for path in ["resign", "draw/yes", "takeback/yes", "abort"] {
        let (s, b) = server
            .post_empty(&format!("/games/{public}/{path}"), Some(&carol))
            .await;
        assert_error(s, &b, StatusCode::FORBIDDEN, "not_a_player");
    }
    let (s, b) = server.play(public, &carol, "d4", 0).await;
    assert_error(s, &b, StatusCode::FORBIDDEN, "not_a_player");
    // Someone's email is theirs alone.
    let (_, me) = server.get("/players/me", Some(&alice)).await;
    assert_eq!(me["name"], "alice");
    let (s, b) = server
        .patch(
            "/players/me",
            Some(&alice),
            json!({ "email": "alice@example.org", "current_password": "correct horse" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["email"], "alice@example.org");
    let (_, profile) = server.get("/players/alice", Some(&bob)).await;
    assert!(profile.get("email").is_none(), "{profile}");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_open_seats_invitations_filters_and_pages() {
    let (database, server) = setup().await;
    let alice = server.register("alice").await;
    let bob = server.register("bob").await;
    let carol = server.register("carol").await;
    // An open seat anyone can take; the creator can sit second.
    let (s, open) = server.create(&alice, json!({ "game": "gravity", "seat": 1 })).await;
    assert_eq!(s, StatusCode::CREATED, "{open}");
    assert_eq!(open["status"], "open");
    let open_id = open["id"].as_i64().unwrap();
    let (_, listed) = server.get("/games?status=open", None).await;
    assert_eq!(listed["games"][0]["id"], open_id);
    let (s, b) = server.post_empty(&format!("/games/{open_id}/join"), Some(&alice)).await;
    assert_error(s, &b, StatusCode::CONFLICT, "already_seated");
    let (s, b) = server.post_empty(&format!("/games/{open_id}/join"), Some(&carol)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "active");
    assert_eq!(b["to_move_player"], "carol");
    // The join answers, and the next move is decided, from the game as the
    // join left it in memory: both are the game as stored.
    let (_, stored) = server.get(&format!("/games/{open_id}"), Some(&carol)).await;
    assert_eq!(b, stored);
    let (s, moved) = server.play(open_id, &carol, "d4", 0).await;
    assert_eq!(s, StatusCode::CREATED, "{moved}");
    let (_, stored) = server.get(&format!("/games/{open_id}"), Some(&carol)).await;
    assert_eq!(moved["game"], stored);
    assert_eq!(stored["seats"][0]["player"], "carol");
    let (s, b) = server.post_empty(&format!("/games/{open_id}/join"), Some(&bob)).await;
    assert_error(s, &b, StatusCode::CONFLICT, "game_not_open");
    // turn=me: after carol's move, alice's.
    let (_, mine) = server.get("/games?turn=me", Some(&alice)).await;
    assert_eq!(mine["games"].as_array().unwrap().len(), 1);
    let (_, mine) = server.get("/games?turn=me", Some(&carol)).await;
    assert!(mine["games"].as_array().unwrap().is_empty());
    let (s, b) = server.get("/games?turn=me", None).await;
    assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    // An invitation declined cancels the game; a seat reserved for bob is his.
    let (_, invited) = server
        .create(&alice, json!({ "game": "gravity", "opponents": ["bob"] }))
        .await;
    let invited_id = invited["id"].as_i64().unwrap();
    assert_eq!(invited["seats"][1]["invited"], "bob");
    let (s, b) = server
        .post_empty(&format!("/games/{invited_id}/join"), Some(&carol))
        .await;
    assert_error(s, &b, StatusCode::CONFLICT, "no_open_seat");
    let (s, b) = server
        .post_empty(&format!("/games/{invited_id}/decline"), Some(&carol))
        .await;
    assert_error(s, &b, StatusCode::FORBIDDEN, "not_invited");
    let (s, b) = server
        .post_empty(&format!("/games/{invited_id}/decline"), Some(&bob))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "aborted");
    let (_, events) = server.get("/players/me/events", Some(&bob)).await;
    assert_eq!(events["events"][0]["kind"], "invited");
    assert_eq!(events["events"][0]["payload"]["game"], invited_id);
    let (_, events) = server.get("/players/me/events", Some(&carol)).await;
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["game_started", "your_turn"]);
    // Filters and cursor pagination.
    for _ in 0..5 {
        server.create(&bob, json!({ "game": "gravity" })).await;
    }
    let (_, page) = server.get("/games?player=bob&limit=3", None).await;
    let first: Vec<i64> = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    assert_eq!(first.len(), 3);
    let cursor = page["next_cursor"].as_i64().expect("a next page");
    let (_, page) = server
        .get(&format!("/games?player=bob&limit=3&cursor={cursor}"), None)
        .await;
    let second: Vec<i64> = page["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    assert_eq!(second.len(), 3, "5 created + 1 declined game of bob's");
    assert!(second.iter().all(|id| *id < first[2]));
    assert!(page["next_cursor"].is_null());
    // A page larger than the document allows is refused, not shrunk.
    let (s, b) = server.get("/games?limit=100000", None).await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    let (_, none) = server.get("/games?player=nobody", None).await;
    assert!(none["games"].as_array().unwrap().is_empty());
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draws_takebacks_and_aborts() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    let game = |path: &str| format!("/games/{id}/{path}");
    // Abort is allowed before both have moved.
    let (s, _) = server.play(id, &alice, "d4", 0).await;
    assert_eq!(s, StatusCode::CREATED);
    // Takeback by agreement.
    let (s, b) = server.post_empty(&game("takeback/no"), Some(&bob)).await;
    assert_error(s, &b, StatusCode::CONFLICT, "no_offer");
    let (s, b) = server.post_empty(&game("takeback/yes"), Some(&alice)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["offers"]["takeback"], json!([0]));
    let (s, b) = server.post_empty(&game("takeback/yes"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["ply"], 0);
    assert_eq!(b["to_move"], 0);
    assert_eq!(b["offers"]["takeback"], json!([]));
    let (_, history) = server.get(&game("moves"), None).await;
    assert!(history["moves"].as_array().unwrap().is_empty());
    // Move 1 can be played again, differently.
    let (s, b) = server.play(id, &alice, "e5", 0).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, b) = server.play(id, &bob, "c3", 1).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    // Too late to abort now.
    let (s, b) = server.post_empty(&game("abort"), Some(&alice)).await;
    assert_error(s, &b, StatusCode::CONFLICT, "too_late");
    // A draw offer declined, then one accepted.
    let (s, b) = server.post_empty(&game("draw/yes"), Some(&alice)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["offers"]["draw"], json!([0]));
    let (s, b) = server.post_empty(&game("draw/no"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["offers"]["draw"], json!([]));
    let (s, _) = server.post_empty(&game("draw/yes"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = server.post_empty(&game("draw/maybe"), Some(&alice)).await;
    assert_error(s, &b, StatusCode::NOT_FOUND, "not_found");
    let (s, b) = server.post_empty(&game("draw/yes"), Some(&alice)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "finished");
    assert_eq!(
        b["outcome"],
        json!({ "winners": [], "winner_names": [], "reason": "agreement", "message": "agreement" })
    );
    let (_, _, text) = server.get_text(&game("record?format=text"), None).await;
    assert!(text.contains("Result: draw (agreement)"), "{text}");
    let (_, events) = server.get(&game("events"), None).await;
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "created",
            "joined",
            "started",
            "move",
            "takeback_offered",
            "takeback_accepted",
            "move",
            "move",
            "draw_offered",
            "draw_declined",
            "draw_offered",
            "draw_agreed",
            "finished"
        ]
    );
    // A fresh game aborted after one move.
    let other = server
        .start_game("gravity", "standard", &[&alice, &bob], &["alice", "bob"])
        .await;
    server.play(other, &alice, "d4", 0).await;
    let (s, b) = server.post_empty(&format!("/games/{other}/abort"), Some(&bob)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["status"], "aborted");
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalogue_analysis_health_metrics_and_openapi() {
    let (database, server) = setup().await;
    let (s, rules) = server.get("/rules", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(rules["games"].as_array().unwrap().len(), catalogue::GAMES.len());
    assert!(rules["games"][0]["variants"][0]["seats"].is_array());
    let (s, b) = server
        .post(
            "/rules/analyze",
            None,
            json!({ "game": "gravity", "moves": ["d4", "e5"] }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["ply"], 2);
    assert_eq!(b["status"], "active");
    assert!(b["view"]["board"]["cells"].is_array());
    let (s, b) = server
        .post(
            "/rules/analyze",
            None,
            json!({ "game": "gravity", "moves": ["d4", "a1"] }),
        )
        .await;
    assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "illegal_move");
    assert!(b["error"]["message"].as_str().unwrap().starts_with("move 2"), "{b}");

    let (s, b) = server.send(server.client.get(format!("{}/healthz", server.base))).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["status"], "ok");
    server.gravity().await;
    let (s, _, metrics) = {
        let response = server
            .client
            .get(format!("{}/metrics", server.base))
            .send()
            .await
            .unwrap();
        (response.status(), (), response.text().await.unwrap())
    };
    assert_eq!(s, StatusCode::OK);
    assert!(
        metrics.contains("tavoliere_http_requests_total{method=\"POST\",route=\"/api/v1/games\",status=\"201\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("tavoliere_games_created_total 1"), "{metrics}");
    assert!(metrics.contains("tavoliere_move_duration_seconds_count"), "{metrics}");

    let (s, doc) = server
        .send(server.client.get(format!("{}/openapi.json", server.base)))
        .await;
    assert_eq!(s, StatusCode::OK);
    let paths = doc["paths"].as_object().unwrap();
    for path in [
        "/api/v1/players",
        "/api/v1/sessions",
        "/api/v1/sessions/current",
        "/api/v1/players/me",
        "/api/v1/players/me/events",
        "/api/v1/players/{name}",
        "/api/v1/rules",
        "/api/v1/rules/analyze",
        "/api/v1/games",
        "/api/v1/games/{id}",
        "/api/v1/games/{id}/join",
        "/api/v1/games/{id}/decline",
        "/api/v1/games/{id}/moves",
        "/api/v1/games/{id}/resign",
        "/api/v1/games/{id}/draw/{answer}",
        "/api/v1/games/{id}/takeback/{answer}",
        "/api/v1/games/{id}/abort",
        "/api/v1/games/{id}/board.svg",
        "/api/v1/games/{id}/board.txt",
        "/api/v1/games/{id}/record",
        "/api/v1/games/{id}/events",
        "/healthz",
        "/metrics",
        "/openapi.json",
    ] {
        assert!(paths.contains_key(path), "{path} is documented");
    }
    // Query parameters are declared in the query, optional; path
    // parameters in the path, required; the one header, `Prefer` (the
    // lean move answer), optional.
    let mut queries = 0;
    for (path, operations) in paths {
        for (method, operation) in operations.as_object().unwrap() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap_or_default();
                let in_path = path.contains(&format!("{{{name}}}"));
                let expected = match (in_path, name) {
                    (true, _) => "path",
                    (false, "Prefer") => "header",
                    (false, _) => "query",
                };
                assert_eq!(parameter["in"], expected, "{method} {path} {name}: {parameter}");
                if !in_path {
                    queries += 1;
                    assert_ne!(parameter["required"], true, "{method} {path} {name}: {parameter}");
                }
            }
        }
    }
    assert!(queries >= 10, "{queries} query parameters documented");
    teardown(database, server).await;
}

/// Two servers on one database, and a Gravity game (alice, bob) that both
/// hold in memory at ply 0.
async fn two_servers_one_hot_game() -> (Database, TestServer, TestServer, i64, String, String) {
    let database = Database::new().await;
    let one = TestServer::start(&database).await;
    let two = TestServer::start(&database).await;
    let (id, alice, bob) = one.gravity().await;
    for server in [&one, &two] {
        let (s, _) = server.get(&format!("/games/{id}"), None).await;
        assert_eq!(s, StatusCode::OK);
    }
    (database, one, two, id, alice, bob)
}

async fn stop_both(database: Database, one: TestServer, two: TestServer) {
    one.stop().await;
    two.stop().await;
    database.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_database_never_double_a_move() {
    let (database, one, two, id, alice, bob) = two_servers_one_hot_game().await;
    let mut ply = 0;
    for round in 0..3 {
        let (_, state) = one.get(&format!("/games/{id}"), None).await;
        let legal: Vec<String> = state["legal"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_owned())
            .collect();
        let token = if ply % 2 == 0 { &alice } else { &bob };
        let mut tasks = Vec::new();
        for i in 0..20 {
            let server = if i % 2 == 0 { &one } else { &two };
            let url = server.url(&format!("/games/{id}/moves"));
            let client = server.client.clone();
            let (token, mv) = (token.clone(), legal[(i + round) % 4].clone());
            tasks.push(tokio::spawn(async move {
                client
                    .post(url)
                    .bearer_auth(token)
                    .json(&json!({ "move": mv, "ply": ply }))
                    .send()
                    .await
                    .expect("sent")
                    .status()
            }));
        }
        let mut created = 0;
        for task in tasks {
            let status = task.await.unwrap();
            assert!([200, 201, 409].contains(&status.as_u16()), "{status}");
            created += usize::from(status == StatusCode::CREATED);
        }
        assert_eq!(created, 1, "exactly one accepted across both servers");
        ply += 1;
        // Each server sees the other's move (its cache is checked against
        // the database).
        for server in [&one, &two] {
            let (_, state) = server.get(&format!("/games/{id}"), None).await;
            assert_eq!(state["ply"], ply);
            let (_, history) = server.get(&format!("/games/{id}/moves"), None).await;
            assert_eq!(history["moves"].as_array().unwrap().len(), ply as usize);
        }
    }
    stop_both(database, one, two).await;
}

/// Each server decides moves from its copy of the game in memory. When the
/// other server has moved meanwhile that copy is stale: a refusal decided
/// from it must be checked against the database, and a move accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_copy_in_memory_never_refuses_a_good_move() {
    let (database, one, two, id, alice, bob) = two_servers_one_hot_game().await;
    let moves = format!("/games/{id}/moves");
    let (s, _) = one.post(&moves, Some(&alice), json!({ "move": "a1", "ply": 0 })).await;
    assert_eq!(s, StatusCode::CREATED);
    // Server two still thinks it is alice's turn at ply 0.
    let (s, body) = two.post(&moves, Some(&bob), json!({ "move": "a2", "ply": 1 })).await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    assert_eq!(body["game"]["ply"], 2);
    // And server one thinks it is bob's turn at ply 1.
    let (s, body) = one.post(&moves, Some(&alice), json!({ "move": "a3", "ply": 2 })).await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    // Refusals still come, decided from the database: a stale ply, and the
    // wrong player, on the server whose copy is behind.
    let (s, body) = two.post(&moves, Some(&bob), json!({ "move": "a4", "ply": 2 })).await;
    assert_error(s, &body, StatusCode::CONFLICT, "stale_ply");
    assert_eq!(body["game"]["ply"], 3);
    let (s, body) = two.post(&moves, Some(&alice), json!({ "move": "a4", "ply": 3 })).await;
    assert_error(s, &body, StatusCode::FORBIDDEN, "not_your_turn");
    let (_, history) = two.get(&moves, None).await;
    let played: Vec<&str> = history["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["move"].as_str().unwrap())
        .collect();
    assert_eq!(played, ["a1", "a2", "a3"]);
    stop_both(database, one, two).await;
}

/// A join, like a move, is decided from the server's copy of the game in
/// memory (its creation's answer put it there). When the other server
/// changed the game meanwhile, a refusal decided from that copy is decided
/// again from the database, and a seat taken there is never taken twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_copy_in_memory_neither_decides_a_refusal_nor_doubles_a_seat() {
    let database = Database::new().await;
    let one = TestServer::start(&database).await;
    let two = TestServer::start(&database).await;
    let ann = one.register("ann").await;
    let bea = one.register("bea").await;
    let cid = one.register("cid").await;
    let open = |body: Value| {
        let (one, ann) = (&one, &ann);
        async move {
            let (status, created) = one.post("/games", Some(ann), body).await;
            assert_eq!(status, StatusCode::CREATED, "{created}");
            created["id"].as_i64().expect("an id")
        }
    };
    // Server one holds the only other seat as reserved for bea; server two
    // hears her decline, which calls the game off.
    let invited = open(json!({ "game": "gravity", "opponents": ["bea"] })).await;
    let (status, body) = two.post_empty(&format!("/games/{invited}/decline"), Some(&bea)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = one.post_empty(&format!("/games/{invited}/join"), Some(&cid)).await;
    assert_error(status, &body, StatusCode::CONFLICT, "game_not_open");
    assert!(
        body["error"]["message"].as_str().unwrap().ends_with("aborted"),
        "{body}"
    );
    // Server one holds the seat as open; bea takes it through server two.
    let taken = open(json!({ "game": "gravity" })).await;
    let (status, body) = two.post_empty(&format!("/games/{taken}/join"), Some(&bea)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = one.post_empty(&format!("/games/{taken}/join"), Some(&cid)).await;
    assert_error(status, &body, StatusCode::CONFLICT, "game_not_open");
    for server in [&one, &two] {
        let (_, state) = server.get(&format!("/games/{taken}"), None).await;
        assert_eq!(state["seats"][1]["player"], "bea", "{state}");
        assert_eq!(state["ply"], 0, "{state}");
    }
    stop_both(database, one, two).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_input_gets_a_json_4xx() {
    let (database, server) = setup().await;
    let (id, alice, _bob) = server.gravity().await;
    let moves = format!("/games/{id}/moves");
    let cases = [
        json!({ "move": "d4", "ply": i64::MAX }),
        json!({ "move": "d4", "ply": -1 }),
        json!({ "move": "", "ply": 0 }),
        json!({ "move": "\u{0}\u{202e}", "ply": 0 }),
        json!({ "move": "d4".repeat(100), "ply": 0 }),
        json!({ "move": "d4", "ply": 0, "message": "m".repeat(5000) }),
        json!({ "move": "d4", "ply": 0, "extra": true }),
        json!({ "move": 4, "ply": 0 }),
        json!([1, 2, 3]),
        json!(null),
    ];
    for case in cases {
        let (s, b) = server.post(&moves, Some(&alice), case.clone()).await;
        assert!(s.is_client_error(), "{case}: {s} {b}");
        assert!(b["error"]["code"].is_string(), "{case}: {b}");
    }
    let deep = "[".repeat(10_000);
    let (s, b) = server
        .send(
            server
                .client
                .post(server.url(&moves))
                .bearer_auth(&alice)
                .header("content-type", "application/json")
                .body(deep),
        )
        .await;
    assert_error(s, &b, StatusCode::BAD_REQUEST, "bad_request");
    for path in [
        format!("/games/{id}?ply=-1"),
        format!("/games/{id}?ply=99"),
        format!("/games/{id}?ply={}", i64::MAX),
        format!("/games/{id}/board.svg?ply=99"),
        format!("/games/{}", u64::MAX),
        format!("/games/{id}/record?format=pdf"),
        "/games?cursor=abc".to_owned(),
        format!("/players/{}", "n".repeat(1000)),
    ] {
        let (s, b) = server.get(&path, Some(&alice)).await;
        assert!(s.is_client_error(), "{path}: {s} {b}");
        assert!(b["error"]["code"].is_string(), "{path}: {b}");
    }
    for token in ["", "x".repeat(5000).as_str(), "Basic abc"] {
        let (s, b) = server
            .send(
                server
                    .client
                    .get(server.url("/players/me"))
                    .header("authorization", token),
            )
            .await;
        assert_error(s, &b, StatusCode::UNAUTHORIZED, "unauthorized");
    }
    let refusals = [
        (
            "/players",
            json!({ "name": "n".repeat(33), "password": "correct horse" }),
            "bad_name",
        ),
        (
            "/players",
            json!({ "name": "eve", "password": "p".repeat(129) }),
            "bad_password",
        ),
        (
            "/players",
            json!({ "name": "eve", "password": "correct horse", "email": "nope" }),
            "bad_email",
        ),
        ("/games", json!({ "game": "gravity", "seat": 7 }), "bad_seat"),
        (
            "/games",
            json!({ "game": "gravity", "opponents": ["alice"] }),
            "bad_opponent",
        ),
        (
            "/games",
            json!({ "game": "gravity", "opponents": ["ghost"] }),
            "unknown_player",
        ),
        (
            "/games",
            json!({ "game": "gravity", "variant": "huge" }),
            "unknown_game",
        ),
    ];
    for (path, body, code) in refusals {
        // Registration is anonymous; creating a game is alice's.
        let token = (path == "/games").then_some(alice.as_str());
        let (s, b) = server.post(path, token, body.clone()).await;
        assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, code);
    }
    // The game is untouched by all of it.
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["ply"], 0);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_and_body_limit_are_configurable() {
    let database = Database::new().await;
    let mut config = tavoliere::Config::with_database(&database.url);
    config.cors_origins = vec!["https://play.example.org".to_owned()];
    config.body_limit = 256;
    let server = TestServer::start_with(config).await;
    let preflight = server
        .client
        .request(reqwest::Method::OPTIONS, server.url("/games"))
        .header("origin", "https://play.example.org")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "authorization,content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    assert_eq!(
        preflight.headers()["access-control-allow-origin"],
        "https://play.example.org"
    );
    let other = server
        .client
        .get(server.url("/rules"))
        .header("origin", "https://evil.example.com")
        .send()
        .await
        .unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
    let (s, b) = server
        .post(
            "/players",
            None,
            json!({ "name": "alice", "password": "p".repeat(300) }),
        )
        .await;
    assert_error(s, &b, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    // Refused before its body was read, and still counted.
    let metrics = server
        .client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("tavoliere_http_requests_total{method=\"POST\",route=\"/api/v1/players\",status=\"413\"} 1"),
        "{metrics}"
    );
    server.stop().await;
    database.remove().await;
}

/// A session ends when its player signs out, signs out everywhere, or
/// changes the password (every session but the one that changed it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_end_on_sign_out_and_on_a_new_password() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let alice = server.register("alice").await;
    let sign_in = |password: &'static str| {
        let server = &server;
        async move {
            let (s, session) = server
                .post("/sessions", None, json!({ "name": "Alice", "password": password }))
                .await;
            assert_eq!(s, StatusCode::CREATED, "{session}");
            session["token"].as_str().expect("a token").to_owned()
        }
    };
    let works = |token: String| {
        let server = &server;
        async move { server.get("/players/me", Some(&token)).await.0 == StatusCode::OK }
    };
    let sign_out = |path: &'static str, token: String| {
        let server = &server;
        async move {
            server
                .send(server.client.delete(server.url(path)).bearer_auth(token))
                .await
        }
    };
    let (laptop, phone) = (sign_in("correct horse").await, sign_in("correct horse").await);
    assert!(works(alice.clone()).await && works(laptop.clone()).await && works(phone.clone()).await);

    // Signing out ends that session alone, at once (the token cache too).
    let (s, body) = sign_out("/sessions/current", laptop.clone()).await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{body}");
    assert!(!works(laptop.clone()).await);
    assert!(works(alice.clone()).await && works(phone.clone()).await);
    let (s, body) = sign_out("/sessions/current", laptop.clone()).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body["error"]["code"].is_string(), "{body}");
    let (s, _) = server.send(server.client.delete(server.url("/sessions/current"))).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // A new password ends every other session; the one that set it stays.
    let (s, b) = server
        .patch(
            "/players/me",
            Some(&phone),
            json!({ "password": "battery staple", "current_password": "correct horse" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert!(works(phone.clone()).await);
    assert!(!works(alice.clone()).await);
    let (s, _) = server
        .post(
            "/sessions",
            None,
            json!({ "name": "alice", "password": "correct horse" }),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // Signing out everywhere ends them all, the caller's included.
    let tablet = sign_in("battery staple").await;
    let (s, body) = sign_out("/sessions", tablet.clone()).await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{body}");
    assert!(!works(tablet).await && !works(phone).await);
    assert!(works(sign_in("battery staple").await).await);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_password_or_email_needs_the_current_one() {
    let (database, server) = setup().await;
    let alice = server.register("alice").await;
    // A stolen token cannot take the account over: neither the password
    // nor the address that password resets and notifications go to.
    for change in [
        json!({ "password": "battery staple" }),
        json!({ "email": "thief@example.org" }),
    ] {
        let (s, b) = server.patch("/players/me", Some(&alice), change.clone()).await;
        assert_error(s, &b, StatusCode::UNPROCESSABLE_ENTITY, "current_password");
        let mut wrong = change;
        wrong["current_password"] = json!("wrong horse");
        let (s, b) = server.patch("/players/me", Some(&alice), wrong).await;
        assert_error(s, &b, StatusCode::FORBIDDEN, "wrong_password");
    }
    let (_, me) = server.get("/players/me", Some(&alice)).await;
    assert!(me["email"].is_null(), "{me}");
    // Neither changed it: the old password signs in, the new one does not.
    for (password, expected) in [
        ("correct horse", StatusCode::CREATED),
        ("battery staple", StatusCode::UNAUTHORIZED),
    ] {
        let (s, b) = server
            .post("/sessions", None, json!({ "name": "alice", "password": password }))
            .await;
        assert_eq!(s, expected, "{password}: {b}");
    }
    assert_eq!(server.get("/players/me", Some(&alice)).await.0, StatusCode::OK);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_declines_the_other_sides_offers_and_keeps_the_movers() {
    let (database, server) = setup().await;
    let (id, alice, bob) = server.gravity().await;
    let offer = |what: &str, token: &str| {
        let path = format!("/games/{id}/{what}/yes");
        let token = token.to_owned();
        let server = &server;
        async move {
            let (s, b) = server.post_empty(&path, Some(&token)).await;
            assert_eq!(s, StatusCode::OK, "{b}");
            b["offers"].clone()
        }
    };
    server.play(id, &alice, "d4", 0).await;
    offer("draw", &alice).await;
    assert_eq!(offer("takeback", &alice).await, json!({ "draw": [0], "takeback": [0] }));
    // Bob moves instead of answering: both of Alice's offers are declined.
    let (s, b) = server.play(id, &bob, "e5", 1).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["game"]["offers"], json!({ "draw": [], "takeback": [] }), "{b}");
    // Alice offers a draw and moves: her own offer stands.
    offer("draw", &alice).await;
    let (s, b) = server.play(id, &alice, "c3", 2).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["game"]["offers"]["draw"], json!([0]), "{b}");
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["offers"], b["game"]["offers"]);
    teardown(database, server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_filters_by_game() {
    let (database, server) = setup().await;
    let alice = server.register("alice").await;
    let mut torri = Vec::new();
    for game in ["gravity", "torri", "gravity", "torri"] {
        let (s, b) = server.create(&alice, json!({ "game": game })).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        if game == "torri" {
            torri.push(b["id"].as_i64().unwrap());
        }
    }
    let (s, list) = server.get("/games?game=torri", None).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let ids: Vec<i64> = list["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    torri.reverse();
    assert_eq!(ids, torri, "newest first, torri only: {list}");
    let (_, none) = server.get("/games?game=annuvin", None).await;
    assert_eq!(none["games"], json!([]), "{none}");
    teardown(database, server).await;
}

/// A request that takes longer than `--request-timeout` (here a body that
/// never finishes arriving) is answered 408.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_longer_than_the_timeout_is_answered_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let database = Database::new().await;
    let mut config = tavoliere::Config::with_database(&database.url);
    config.request_timeout = 1;
    let server = TestServer::start_with(config).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.expect("connected");
    let head = format!(
        "POST /api/v1/players HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\""
    );
    // Taken before the request leaves, so that it is never later than the
    // server's own start of the timeout.
    let asked = std::time::Instant::now();
    stream.write_all(head.as_bytes()).await.expect("sent");
    let mut answer = Vec::new();
    let mut buffer = [0u8; 1024];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(common::PATIENCE, stream.read(&mut buffer))
            .await
            .expect("an answer in time")
            .expect("read");
        assert!(
            n > 0,
            "the server closed without answering: {}",
            String::from_utf8_lossy(&answer)
        );
        answer.extend_from_slice(&buffer[..n]);
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        asked.elapsed() >= std::time::Duration::from_secs(1),
        "not before the timeout"
    );
    server.stop().await;
    database.remove().await;
}
