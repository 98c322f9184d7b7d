//! The built-in bots over HTTP: listed with their levels, games and
//! ratings; accepting an invitation at once; answering every move until
//! the game ends, at every level; declining a draw; agreeing to a takeback
//! in an unrated game while thinking (its stale move refused) and declining
//! one in a rated game; playing a turn left pending by a stopped server;
//! disabled by `--bot-threads 0`; never moving twice when two servers on
//! one PostgreSQL database drive the same bot; writing without the
//! per-player rate. Players' bot accounts: the `bot` flag, declared before
//! the first game and shown with the name, under the ordinary rate; and
//! `examples/random_bot.py` playing a whole game through the public API.

use crate::common;

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
    accepted(server, token, json!({ "game": game, "opponents": [bot] })).await
}

/// The game `body` creates, once every bot invited has taken its seat.
async fn accepted(server: &TestServer, token: &str, body: Value) -> i64 {
    let (status, body) = server.create(token, body).await;
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
/// no bot, moved twice in a row; the log has one move event per move
/// (and one more per move taken back).
async fn assert_alternating(server: &TestServer, id: i64) -> usize {
    let (status, history) = server.get(&format!("/games/{id}/moves"), None).await;
    assert_eq!(status, StatusCode::OK, "{history}");
    let moves = history["moves"].as_array().expect("moves");
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["ply"], i as i64 + 1, "{history}");
        assert_eq!(m["seat"], (i % 2) as i64, "{history}");
    }
    let (_, events) = server.get(&format!("/games/{id}/events?limit=500"), None).await;
    let count = |kind: &str| {
        events["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter(|e| e["kind"] == kind)
            .count()
    };
    assert_eq!(
        count("move"),
        moves.len() + count("takeback_accepted"),
        "one event per move: {events}"
    );
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

/// Registers `name` as a bot account; returns its token.
async fn register_bot(server: &TestServer, name: &str) -> String {
    let (status, body) = server
        .post(
            "/players",
            None,
            json!({ "name": name, "password": "correct horse", "bot": true }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["player"]["bot"], true, "{body}");
    body["token"].as_str().expect("a token").to_owned()
}

async fn profile_bot(server: &TestServer, name: &str) -> Value {
    let (status, body) = server.get(&format!("/players/{name}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["bot"].clone()
}

/// A bot account is declared at registration or by `PATCH /players/me`
/// before the first game, and fixed after it; the flag shows in profiles,
/// `/players/me`, the lobby and the game's seats, for players' bots and
/// the server's own alike.
#[tokio::test]
async fn a_bot_account_is_declared_before_its_first_game_and_shown_with_its_name() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 1)).await;
    let robo = register_bot(&server, "robo").await;
    let alice = server.register("alice").await;
    assert_eq!(profile_bot(&server, "robo").await, true);
    assert_eq!(profile_bot(&server, "alice").await, false);
    assert_eq!(profile_bot(&server, "bot-strongest").await, true);
    let (_, me) = server.get("/players/me", Some(&robo)).await;
    assert_eq!(me["bot"], true, "{me}");
    // Before any game, either way and back.
    for flag in [true, false] {
        let (status, body) = server.patch("/players/me", Some(&alice), json!({ "bot": flag })).await;
        assert_eq!((status, &body["bot"]), (StatusCode::OK, &json!(flag)), "{body}");
    }
    let (status, body) = server.patch("/players/me", Some(&alice), json!({ "bot": "yes" })).await;
    assert!(status.is_client_error(), "{status} {body}");

    // The lobby shows the invited bot as one.
    let (status, body) = server
        .create(&alice, json!({ "game": "gravity", "opponents": ["robo"] }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["id"].as_i64().expect("an id");
    let (_, lobby) = server.get("/games?status=open", Some(&alice)).await;
    let listed = lobby["games"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["id"] == id))
        .expect("the game in the lobby");
    assert_eq!(listed["seats"][0]["bot"], false, "{listed}");
    assert_eq!(
        (&listed["seats"][1]["invited"], &listed["seats"][1]["bot"]),
        (&json!("robo"), &json!(true)),
        "{listed}"
    );
    let (status, body) = server.post_empty(&format!("/games/{id}/join"), Some(&robo)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let seats = state(&server, id, &alice).await["seats"].clone();
    assert_eq!(
        (&seats[0]["bot"], &seats[1]["bot"]),
        (&json!(false), &json!(true)),
        "{seats}"
    );

    // Once seated, the flag stays as the opponents saw it; nothing changes.
    for (token, flag) in [(&robo, false), (&alice, true)] {
        let (status, body) = server
            .patch("/players/me", Some(token), json!({ "bot": flag, "digest": true }))
            .await;
        common::assert_error(status, &body, StatusCode::CONFLICT, "bot_after_games");
    }
    let (_, me) = server.get("/players/me", Some(&alice)).await;
    assert_eq!((&me["bot"], &me["digest"]), (&json!(false), &json!(false)), "{me}");
    assert_eq!(profile_bot(&server, "robo").await, true);
    // Saying what it already is changes nothing and is no error.
    let (status, body) = server.patch("/players/me", Some(&robo), json!({ "bot": true })).await;
    assert_eq!((status, &body["bot"]), (StatusCode::OK, &json!(true)), "{body}");

    common::teardown(database, server).await;
}

/// Limits: the server's own bots write without the per-player rate (a bot
/// in many games would stall on it); a player's bot account keeps it. Here
/// the rate is one write a second, two at once: the built-in bot joins
/// three games and answers three moves at once, never refused, while the
/// bot account's third write in a row is.
#[tokio::test]
async fn the_servers_bots_write_without_a_rate_and_bot_accounts_keep_it() {
    let database = Database::new().await;
    let mut limited = config(&database, 1);
    limited.limits.write_rate = 1;
    limited.limits.write_burst = 2;
    let server = TestServer::start_guarded(limited).await;
    let mut games = Vec::new();
    for name in ["ann", "bea", "cid"] {
        let token = server.register(name).await;
        let (status, body) = server
            .create(&token, json!({ "game": "gravity", "opponents": ["bot-beginner"] }))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        games.push((body["id"].as_i64().expect("an id"), token));
    }
    for (id, token) in &games {
        until("the bot to join", || async {
            state(&server, *id, token).await["status"] == "active"
        })
        .await;
        let legal = state(&server, *id, token).await["legal"][0].clone();
        let (status, body) = server.play(*id, token, legal.as_str().expect("a move"), 0).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    for (id, token) in &games {
        until("the bot's answer", || async {
            state(&server, *id, token).await["ply"] == 2
        })
        .await;
    }
    let metrics = reqwest::get(format!("{}/metrics", server.base))
        .await
        .expect("metrics")
        .text()
        .await
        .expect("text");
    assert!(
        !metrics.contains("limit=\"writes\""),
        "nobody was refused yet:\n{metrics}"
    );

    let robo = register_bot(&server, "robo").await;
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let (status, _) = server.create(&robo, json!({ "game": "gravity" })).await;
        statuses.push(status);
    }
    assert_eq!(
        statuses,
        [StatusCode::CREATED, StatusCode::CREATED, StatusCode::TOO_MANY_REQUESTS]
    );
    common::teardown(database, server).await;
}

/// `examples/random_bot.py` run as a child process against the server,
/// its output in a file; killed when dropped.
struct ExampleBot {
    child: std::process::Child,
    output: std::path::PathBuf,
}

impl ExampleBot {
    fn start(server: &TestServer, token: &str, after: i64, output: std::path::PathBuf) -> ExampleBot {
        let log = std::fs::File::create(&output).expect("the bot's output file");
        let child = std::process::Command::new("python3")
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/random_bot.py"))
            .args(["--url", &server.base, "--token", token, "--after", &after.to_string()])
            .stdout(log)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("python3 runs the example bot");
        ExampleBot { child, output }
    }

    /// The last event the bot says it handled (its `after N` lines).
    fn last_handled(&self) -> i64 {
        let text = std::fs::read_to_string(&self.output).unwrap_or_default();
        text.lines()
            .rev()
            .find_map(|l| l.strip_prefix("after ")?.trim().parse().ok())
            .unwrap_or(0)
    }

    fn stop(mut self) -> i64 {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.last_handled()
    }
}

impl Drop for ExampleBot {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The example bot, using only the public API, accepts an invitation and
/// plays a whole Gravity game against a person (the test) to its end; it
/// is stopped halfway and restarted with `--after` the last event it
/// handled, and carries on.
#[tokio::test]
async fn the_example_bot_plays_a_whole_gravity_game() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 0)).await;
    let token = register_bot(&server, "randy").await;
    let alice = server.register("alice").await;
    let dir = std::env::temp_dir().join(format!("tavoliere-example-bot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for the bot's output");
    let mut bot = Some(ExampleBot::start(&server, &token, 0, dir.join("first.log")));
    let id = against(&server, &alice, "gravity", "randy").await;
    let mut restarted = false;
    let end = loop {
        let current = state_when(&server, id, &alice, "the example bot to answer", |s| {
            s["status"] == "finished" || s["to_move"] == 0
        })
        .await;
        if current["status"] == "finished" {
            break current;
        }
        if current["ply"].as_i64() >= Some(2) && !restarted {
            let after = bot.take().map(ExampleBot::stop).unwrap_or(0);
            assert!(after > 0, "the bot handled events before it stopped");
            bot = Some(ExampleBot::start(&server, &token, after, dir.join("second.log")));
            restarted = true;
        }
        let mv = current["legal"][0].as_str().expect("a legal move").to_owned();
        let ply = current["ply"].as_i64().expect("a ply");
        let (status, body) = server.play(id, &alice, &mv, ply).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    };
    assert!(end["outcome"]["winners"].is_array(), "{end}");
    assert!(restarted, "the game lasted past the restart");
    assert_alternating(&server, id).await;
    drop(bot);
    let _ = std::fs::remove_dir_all(&dir);
    common::teardown(database, server).await;
}

/// The kinds of the game's events, in order.
async fn event_kinds(server: &TestServer, id: i64) -> Vec<String> {
    let (_, events) = server.get(&format!("/games/{id}/events?limit=500"), None).await;
    events["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["kind"].as_str().map(str::to_owned))
        .collect()
}

/// A human takes a move back while the bot thinks about its answer (a
/// Pente move of the strongest level takes a good part of a second): the
/// bot agrees (the game is unrated), its move for the position taken back
/// is refused as stale and not played at the wrong turn, and it answers
/// the human's next move. In a rated game it declines.
#[tokio::test]
async fn a_takeback_while_the_bot_thinks_refuses_its_stale_move_and_it_answers_the_next() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 1)).await;
    let alice = server.register("alice").await;
    let unrated = json!({ "game": "pente", "opponents": ["bot-strongest"], "rated": false });
    let id = accepted(&server, &alice, unrated).await;
    let (status, body) = server.play(id, &alice, "k10", 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = server
        .post_empty(&format!("/games/{id}/takeback/yes"), Some(&alice))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    until("the bot to agree", || async {
        event_kinds(&server, id).await.iter().any(|k| k == "takeback_accepted")
    })
    .await;
    // Whichever move was taken back (alice's, or the bot's if it had
    // already answered), it is alice's turn once the bot has settled.
    let settled = state_when(&server, id, &alice, "alice's turn again", |s| s["to_move"] == 0).await;
    let ply = settled["ply"].as_i64().expect("a ply");
    assert!(ply == 0 || ply == 2, "{settled}");
    let mv = settled["legal"][0].as_str().expect("a legal move").to_owned();
    let (status, body) = server.play(id, &alice, &mv, ply).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    state_when(&server, id, &alice, "the bot's answer", |s| s["ply"] == ply + 2).await;
    assert_eq!(assert_alternating(&server, id).await as i64, ply + 2);

    // Rated: declined, and the bot plays on.
    let rated = against(&server, &alice, "gravity", "bot-beginner").await;
    let (status, body) = server.play(rated, &alice, "a1", 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    state_when(&server, rated, &alice, "the bot's answer", |s| s["ply"] == 2).await;
    let (status, body) = server
        .post_empty(&format!("/games/{rated}/takeback/yes"), Some(&alice))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    until("the bot to decline", || async {
        event_kinds(&server, rated)
            .await
            .iter()
            .any(|k| k == "takeback_declined")
    })
    .await;
    assert_eq!(state(&server, rated, &alice).await["ply"], 2);
    common::teardown(database, server).await;
}

/// A whole game against each level through the server (Gravity: the
/// search is the same for every game; `src/bots/tests.rs` plays every
/// variant against every level); each bot's rating then says it is a bot.
#[tokio::test]
async fn a_whole_game_against_each_level_ends() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 1)).await;
    let alice = server.register("alice").await;
    for bot in ["bot-beginner", "bot-intermediate", "bot-strongest"] {
        let id = against(&server, &alice, "gravity", bot).await;
        assert_eq!(state(&server, id, &alice).await["seats"][1]["bot"], true);
        let end = play_out(&[&server], &alice, id).await;
        assert!(end["outcome"]["winners"].is_array(), "{end}");
        assert_alternating(&server, id).await;
        let (_, profile) = server.get(&format!("/players/{bot}"), None).await;
        assert_eq!(
            (&profile["bot"], &profile["ratings"][0]["bot"]),
            (&json!(true), &json!(true)),
            "{profile}"
        );
    }
    common::teardown(database, server).await;
}
