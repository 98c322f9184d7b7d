//! The built-in bots over HTTP: listed with their levels, games and
//! ratings; accepting an invitation at once; answering every move until
//! the game ends; declining a draw; playing a turn left pending by a
//! stopped server; disabled by `--bot-threads 0`; and never moving twice
//! when two servers on one PostgreSQL database drive the same bot.

mod common;

use common::{until, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::Config;

/// Bots look for work every 50 ms here (the sweep interval).
fn config(database: &Database, bot_threads: usize) -> Config {
    let mut config = Config::with_database(&database.url);
    config.sweep_interval_ms = 50;
    config.bot_threads = bot_threads;
    config
}

async fn state(server: &TestServer, id: i64, token: &str) -> Value {
    let (status, body) = server.get(&format!("/games/{id}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// A game of `game` created by the player of `token` at seat 0 with the
/// bot `bot` invited; waits until the bot has taken its seat.
async fn against(server: &TestServer, token: &str, game: &str, bot: &str) -> i64 {
    let (status, body) = server.create(token, json!({ "game": game, "opponents": [bot] })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["id"].as_i64().expect("an id");
    until("the bot to accept", || async {
        state(server, id, token).await["status"] == "active"
    })
    .await;
    id
}

/// The game's state once `done` holds of it (polled as [`until`] does).
async fn state_when(server: &TestServer, id: i64, token: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    loop {
        let current = state(server, id, token).await;
        if done(&current) {
            return current;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}: {current}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Plays the first legal move whenever it is seat 0's turn, until the game
/// ends; the bot answers each move. Returns the finished state.
async fn play_out(servers: &[&TestServer], token: &str, id: i64) -> Value {
    for turn in 0.. {
        let server = servers[turn % servers.len()];
        let current = state_when(server, id, token, "the bot to answer", |s| {
            s["status"] == "finished" || s["to_move"] == 0
        })
        .await;
        if current["status"] == "finished" {
            return current;
        }
        let mv = current["legal"][0].as_str().expect("a legal move").to_owned();
        let ply = current["ply"].as_i64().expect("a ply");
        let (status, body) = server.play(id, token, &mv, ply).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    unreachable!()
}

/// The history alternates seats 0 and 1 with every ply once: nobody, and
/// no bot, moved twice in a row.
async fn assert_alternating(server: &TestServer, id: i64) -> usize {
    let (status, history) = server.get(&format!("/games/{id}/moves"), None).await;
    assert_eq!(status, StatusCode::OK, "{history}");
    let moves = history["moves"].as_array().expect("moves");
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["ply"], i as i64 + 1, "{history}");
        assert_eq!(m["seat"], (i % 2) as i64, "{history}");
    }
    let (_, events) = server.get(&format!("/games/{id}/events?limit=500"), None).await;
    let move_events = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == "move")
        .count();
    assert_eq!(move_events, moves.len(), "one event per move: {events}");
    moves.len()
}

#[tokio::test]
async fn a_bot_accepts_at_once_answers_every_move_and_shows_its_rating() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 1)).await;
    let (status, listed) = server.get("/bots", None).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    let bots = listed["bots"].as_array().expect("bots");
    let names: Vec<&str> = bots.iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, ["bot-beginner", "bot-intermediate", "bot-strongest"]);
    for bot in bots {
        assert!(bot["description"].as_str().is_some_and(|d| !d.is_empty()), "{bot}");
        let games: Vec<&str> = bot["games"]
            .as_array()
            .expect("games")
            .iter()
            .filter_map(|g| g["game"].as_str())
            .collect();
        assert!(
            games.contains(&"pente") && games.contains(&"focus") && games.len() == 8,
            "{bot}"
        );
        assert_eq!(bot["ratings"], json!([]), "{bot}");
    }
    assert_eq!(bots[2]["level"], "strongest");
    // Nobody signs in as a bot.
    let (status, body) = server
        .post(
            "/sessions",
            None,
            json!({ "name": "bot-beginner", "password": "correct horse" }),
        )
        .await;
    assert!(status.is_client_error(), "{status} {body}");

    let alice = server.register("alice").await;
    let id = against(&server, &alice, "gravity", "bot-intermediate").await;
    let end = play_out(&[&server], &alice, id).await;
    assert!(end["outcome"]["winners"].is_array(), "{end}");
    let moves = assert_alternating(&server, id).await;
    assert!(moves >= 7, "a Gravity game has at least 7 moves: {moves}");

    // The rated game shows in the bot's listing.
    let (_, listed) = server.get("/bots", None).await;
    let ratings = &listed["bots"][1]["ratings"];
    assert_eq!(ratings[0]["game"], "gravity", "{listed}");
    assert_eq!(ratings[0]["games"], 1, "{listed}");
    common::teardown(database, server).await;
}

#[tokio::test]
async fn a_bot_declines_a_draw_and_plays_on() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 1)).await;
    let alice = server.register("alice").await;
    let id = against(&server, &alice, "focus", "bot-beginner").await;
    let (status, body) = server.post_empty(&format!("/games/{id}/draw/yes"), Some(&alice)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    until("the bot to decline", || async {
        state(&server, id, &alice).await["offers"]["draw"] == json!([])
    })
    .await;
    let (_, events) = server.get(&format!("/games/{id}/events"), None).await;
    let kinds: Vec<&str> = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"draw_declined"), "{events}");
    assert_eq!(state(&server, id, &alice).await["status"], "active");
    common::teardown(database, server).await;
}

/// A server with `--bot-threads 0` plays no bot and lists none; a turn and
/// an invitation left waiting there are played by the next server with
/// bots.
#[tokio::test]
async fn a_pending_bot_turn_is_played_after_a_restart_and_zero_threads_disable_bots() {
    let database = Database::new().await;
    let first = TestServer::start_with(config(&database, 1)).await;
    let alice = first.register("alice").await;
    let id = against(&first, &alice, "huntsmen", "bot-beginner").await;
    first.stop().await;

    let without = TestServer::start_with(config(&database, 0)).await;
    let (status, listed) = without.get("/bots", None).await;
    assert_eq!((status, &listed["bots"]), (StatusCode::OK, &json!([])));
    let current = state(&without, id, &alice).await;
    let mv = current["legal"][0].as_str().expect("a legal move").to_owned();
    let (status, body) = without.play(id, &alice, &mv, 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = without
        .create(&alice, json!({ "game": "gravity", "opponents": ["bot-strongest"] }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let invitation = body["id"].as_i64().expect("an id");
    // Many sweep intervals pass with no bot acting.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(state(&without, id, &alice).await["ply"], 1);
    assert_eq!(state(&without, invitation, &alice).await["status"], "open");
    without.stop().await;

    let after = TestServer::start_with(config(&database, 1)).await;
    until("the bot's pending move", || async {
        state(&after, id, &alice).await["ply"] == 2
    })
    .await;
    until("the waiting invitation accepted", || async {
        state(&after, invitation, &alice).await["status"] == "active"
    })
    .await;
    assert_alternating(&after, id).await;
    common::teardown(database, after).await;
}

/// Two servers on one PostgreSQL database both drive every bot, looking
/// for work every 50 ms; the human moves through both. Every bot turn is
/// played once.
#[tokio::test]
async fn two_servers_never_make_the_same_bot_move_twice() {
    let database = Database::new().await;
    if !database.is_postgres() {
        common::skipped(
            "two_servers_never_make_the_same_bot_move_twice",
            "two servers share only a PostgreSQL database",
        );
        database.remove().await;
        return;
    }
    let one = TestServer::start_with(config(&database, 1)).await;
    let two = TestServer::start_with(config(&database, 1)).await;
    let alice = one.register("alice").await;
    for game in ["gravity", "neighbours"] {
        let id = against(&one, &alice, game, "bot-beginner").await;
        play_out(&[&one, &two], &alice, id).await;
        assert_alternating(&two, id).await;
    }
    two.stop().await;
    common::teardown(database, one).await;
}
