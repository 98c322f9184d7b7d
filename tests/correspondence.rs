//! Correspondence play against the real server: games lost on time by the
//! background sweeper (also across a restart and with two servers on one
//! database), reminders, vacations, email to a real SMTP receiver and
//! signed webhooks to a real HTTP receiver.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::smtp::{mails_until, smtp_receiver, unquote, Mails};
use common::{until, Database, TestServer};
use hmac::{Hmac, Mac};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sha2::Sha256;
use tavoliere::Config;
use tokio::net::TcpListener;

/// A config with short clock days and quick background passes.
fn config(database: &Database, day_ms: i64, sweep_ms: u64) -> Config {
    let mut config = Config::with_database(&database.url);
    config.data.clock_day_ms = day_ms;
    config.sweep_interval_ms = sweep_ms;
    config.notify.notify_interval_ms = 25;
    config.notify.notify_retry_ms = 40;
    config.notify.webhook_allow_private = true;
    config
}

/// Registers `name` with an email address; returns the token.
async fn register(server: &TestServer, name: &str) -> String {
    server.register_with_email(name).await
}

/// A started two-player Gravity game under `time_control`.
async fn start(server: &TestServer, alice: &str, bob: &str, time_control: Value) -> i64 {
    let (status, body) = server
        .create(
            alice,
            json!({ "game": "gravity", "opponents": ["bob"], "time_control": time_control }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["id"].as_i64().expect("an id");
    let (status, body) = server.post_empty(&format!("/games/{id}/join"), Some(bob)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    id
}

async fn state(server: &TestServer, id: i64) -> Value {
    let (status, body) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Plays the first legal move for whoever holds `token`.
async fn play_first(server: &TestServer, id: i64, token: &str, message: Option<&str>) -> Value {
    let game = state(server, id).await;
    let mv = game["legal"][0].as_str().expect("a legal move").to_owned();
    let (status, body) = server
        .post(
            &format!("/games/{id}/moves"),
            Some(token),
            json!({ "move": mv, "ply": game["ply"], "message": message }),
        )
        .await;
    assert!(status.is_success(), "{body}");
    body
}

/// Waits until a game started now is lost on time: the sweeper has run
/// since (a marker, instead of a sleep, for "nothing more happened").
async fn sweeps_since(server: &TestServer, alice: &str, bob: &str) {
    let marker = start(
        server,
        alice,
        bob,
        json!({ "kind": "correspondence", "days_per_move": 1 }),
    )
    .await;
    until("the marker's time-out", || finished(server, marker)).await;
}

async fn finished(server: &TestServer, id: i64) -> bool {
    state(server, id).await["status"] == "finished"
}

async fn events(server: &TestServer, id: i64) -> Vec<Value> {
    let (status, body) = server.get(&format!("/games/{id}/events?limit=500"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["events"].as_array().expect("events").clone()
}

fn count(events: &[Value], kind: &str) -> usize {
    events.iter().filter(|e| e["kind"] == kind).count()
}

async fn player_events(server: &TestServer, token: &str) -> Vec<Value> {
    let (status, body) = server.get("/players/me/events?limit=500", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["events"].as_array().expect("events").clone()
}

#[tokio::test]
async fn the_sweeper_ends_a_game_lost_on_time_after_one_reminder() {
    let database = Database::new().await;
    // A day of 2.4 s; reminders 22 "hours" (2.2 s) before the deadline: the
    // sweeper (every 20 ms) has 2.2 s to send it, which no load stretches.
    let mut config = config(&database, 2_400, 20);
    config.reminder_hours = 22;
    let server = TestServer::start_with(config).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    let id = start(
        &server,
        &alice,
        &bob,
        json!({ "kind": "correspondence", "days_per_move": 1 }),
    )
    .await;
    let game = state(&server, id).await;
    let clock = &game["clock"];
    assert_eq!(clock["kind"], "correspondence", "{game}");
    assert_eq!(clock["running"], true);
    let deadline = clock["deadline"].as_i64().expect("a deadline");
    assert!(clock["remaining_ms"][0].as_i64().unwrap() <= 2_400);
    assert_eq!(clock["remaining_ms"][1], 2_400);

    until("the time-out", || finished(&server, id)).await;
    let game = state(&server, id).await;
    assert_eq!(game["outcome"]["reason"], "time", "{game}");
    assert_eq!(game["outcome"]["winners"], json!([1]));
    assert_eq!(game["clock"]["deadline"], Value::Null);
    assert_eq!(game["clock"]["running"], false);
    let log = events(&server, id).await;
    assert_eq!(count(&log, "timeout"), 1, "{log:?}");
    assert_eq!(count(&log, "finished"), 1);
    let timeout = log.iter().find(|e| e["kind"] == "timeout").unwrap();
    assert_eq!(timeout["payload"]["seat"], 0);
    assert_eq!(timeout["payload"]["deadline"], deadline);
    assert!(timeout["at"].is_string());

    // One reminder, before the deadline, stating it exactly.
    let mine = player_events(&server, &alice).await;
    let reminders: Vec<&Value> = mine.iter().filter(|e| e["kind"] == "reminder").collect();
    assert_eq!(reminders.len(), 1, "{mine:?}");
    assert_eq!(reminders[0]["payload"]["deadline"], deadline);
    assert_eq!(reminders[0]["payload"]["game"], id);
    assert_eq!(count(&mine, "game_over"), 1);
    assert!(player_events(&server, &bob)
        .await
        .iter()
        .all(|e| e["kind"] != "reminder"));
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn moves_in_time_keep_the_game_and_a_late_move_loses_it() {
    let database = Database::new().await;
    // The sweeper waits an hour after its first pass: the move path alone
    // must notice the flag fell.
    let server = TestServer::start_with(config(&database, 86_400_000, 3_600_000)).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    // Three seconds each: longer than any stall of a loaded host between
    // the start and Alice's move; the bounds below are measured, not guessed.
    let started = tavoliere::games::now();
    let id = start(
        &server,
        &alice,
        &bob,
        json!({ "kind": "live", "initial_seconds": 3, "increment_seconds": 2 }),
    )
    .await;
    let game = state(&server, id).await;
    let mv = game["legal"][0].as_str().unwrap().to_owned();
    let sent = tavoliere::games::now();
    let (status, answer) = server.play(id, &alice, &mv, 0).await;
    let answered = tavoliere::games::now();
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let clock = &answer["game"]["clock"];
    assert_eq!(clock["kind"], "live", "{answer}");
    // Alice used some of her three seconds (at most the time since the game
    // started) and got two more.
    let alice_left = clock["remaining_ms"][0].as_i64().unwrap();
    assert!((5_000 - (answered - started)..=5_000).contains(&alice_left), "{clock}");
    // Bob's clock runs from the commit, which came after the request left.
    let bob_left = clock["remaining_ms"][1].as_i64().unwrap();
    assert!(
        (3_000 - (answered - sent)..=3_000).contains(&bob_left),
        "Bob's clock runs: {clock}"
    );
    let bob_deadline = clock["deadline"].as_i64().expect("Bob's deadline");
    assert!((sent + 3_000..=answered + 3_000).contains(&bob_deadline), "{clock}");
    // Past Bob's deadline (nothing to wait for but time itself).
    let late = bob_deadline + 100 - tavoliere::games::now();
    tokio::time::sleep(Duration::from_millis(late.max(0) as u64)).await;
    let game = state(&server, id).await;
    let mv = game["legal"][0].as_str().unwrap().to_owned();
    let (status, body) = server
        .post(
            &format!("/games/{id}/moves"),
            Some(&bob),
            json!({ "move": mv, "ply": 1 }),
        )
        .await;
    common::assert_error(status, &body, StatusCode::CONFLICT, "time_out");
    let game = state(&server, id).await;
    assert_eq!(game["status"], "finished");
    assert_eq!(
        game["outcome"],
        json!({ "winners": [0], "winner_names": ["alice"], "reason": "time", "message": "time" })
    );
    assert_eq!(game["ply"], 1, "the late move was not stored");
    assert_eq!(count(&events(&server, id).await, "timeout"), 1);

    // Bad time controls are refused.
    for bad in [
        json!({ "kind": "correspondence", "days_per_move": 0 }),
        json!({ "kind": "correspondence", "days_per_move": 31 }),
        json!({ "kind": "live", "initial_seconds": 0, "increment_seconds": 0 }),
    ] {
        let (status, body) = server
            .create(&alice, json!({ "game": "gravity", "time_control": bad }))
            .await;
        common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_time_control");
    }
    let (status, _) = server
        .create(
            &alice,
            json!({ "game": "gravity", "time_control": { "kind": "sudden" } }),
        )
        .await;
    assert!(status.is_client_error());
    let untimed = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    assert_eq!(state(&server, untimed).await["clock"], Value::Null);
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn a_restart_between_deadline_and_sweep_ends_the_game_once() {
    let database = Database::new().await;
    let first = TestServer::start_with(config(&database, 300, 3_600_000)).await;
    let alice = register(&first, "alice").await;
    let bob = register(&first, "bob").await;
    let id = start(
        &first,
        &alice,
        &bob,
        json!({ "kind": "correspondence", "days_per_move": 1 }),
    )
    .await;
    let deadline = state(&first, id).await["clock"]["deadline"].as_i64().unwrap();
    first.stop().await;
    // The deadline passes while no server runs.
    let wait = deadline - tavoliere::games::now() + 50;
    tokio::time::sleep(Duration::from_millis(wait.max(0) as u64)).await;
    let second = TestServer::start_with(config(&database, 300, 20)).await;
    until("the time-out after the restart", || finished(&second, id)).await;
    // More sweeps find nothing more to do: a later game's time-out shows
    // they ran.
    sweeps_since(&second, &alice, &bob).await;
    let log = events(&second, id).await;
    assert_eq!(count(&log, "timeout"), 1, "{log:?}");
    assert_eq!(count(&log, "finished"), 1);
    second.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn two_servers_sweeping_one_database_end_each_game_once() {
    let database = Database::new().await;
    let one = TestServer::start_with(config(&database, 250, 5)).await;
    let two = TestServer::start_with(config(&database, 250, 5)).await;
    let alice = register(&one, "alice").await;
    let bob = register(&one, "bob").await;
    let mut ids = Vec::new();
    for _ in 0..6 {
        ids.push(
            start(
                &one,
                &alice,
                &bob,
                json!({ "kind": "correspondence", "days_per_move": 1 }),
            )
            .await,
        );
    }
    for id in &ids {
        until("every time-out", || finished(&two, *id)).await;
    }
    sweeps_since(&one, &alice, &bob).await;
    for id in &ids {
        let log = events(&one, *id).await;
        assert_eq!(count(&log, "timeout"), 1, "game {id}: {log:?}");
        assert_eq!(count(&log, "finished"), 1, "game {id}");
    }
    // Each player heard once per game that it was over.
    for token in [&alice, &bob] {
        assert_eq!(
            count(&player_events(&one, token).await, "game_over"),
            ids.len() + 1,
            "and the marker"
        );
    }
    one.stop().await;
    two.stop().await;
    database.remove().await;
}

/// Alice (3 vacation days a year) and Bob in a game of one day per move,
/// a day lasting `day_ms`: the game's id and its first deadline.
async fn a_day_per_move(day_ms: i64) -> (Database, TestServer, String, i64, i64) {
    let database = Database::new().await;
    let mut config = config(&database, day_ms, 20);
    config.vacation_days = 3;
    let server = TestServer::start_with(config).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    let id = start(
        &server,
        &alice,
        &bob,
        json!({ "kind": "correspondence", "days_per_move": 1 }),
    )
    .await;
    let deadline = state(&server, id).await["clock"]["deadline"].as_i64().unwrap();
    (database, server, alice, id, deadline)
}

#[tokio::test]
async fn vacation_stops_the_correspondence_clock() {
    use tavoliere::games::now;
    let (database, server, alice, id, before) = a_day_per_move(800).await;

    let declared = now();
    let (status, me) = server
        .post("/players/me/vacation", Some(&alice), json!({ "days": 1 }))
        .await;
    let answered = now();
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["vacation_days_left"], 2);
    // It starts when declared and lasts a day.
    let until_ms = me["vacation_until"].as_i64().expect("vacation_until");
    assert!(
        (declared + 800..=answered + 800).contains(&until_ms),
        "a day from the request ({declared}..={answered}), not {until_ms}"
    );
    let (_, profile) = server.get("/players/me", Some(&alice)).await;
    assert_eq!(profile["vacation_until"], until_ms, "{profile}");
    let game = state(&server, id).await;
    assert_eq!(game["clock"]["running"], false, "{game}");
    let after = game["clock"]["deadline"].as_i64().unwrap();
    // The whole vacation falls before the old deadline: it moves by a day.
    assert_eq!(after, before + 800);

    // While on vacation: the allowance, overlaps and hostile input.
    let (status, body) = server
        .post("/players/me/vacation", Some(&alice), json!({ "days": 1 }))
        .await;
    common::assert_error(status, &body, StatusCode::CONFLICT, "vacation_overlaps");
    for bad in [json!({ "days": 0 }), json!({ "days": 3 }), json!({ "days": -1 })] {
        let (status, body) = server.post("/players/me/vacation", Some(&alice), bad).await;
        common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_days");
    }
    let (status, body) = server
        .post("/players/me/vacation", Some(&alice), json!({ "days": 1, "start": 0 }))
        .await;
    common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_start");
    let (status, _) = server
        .post("/players/me/vacation", Some(&alice), json!({ "weeks": 1 }))
        .await;
    assert!(status.is_client_error());
    let (status, _) = server.post("/players/me/vacation", None, json!({ "days": 1 })).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Past the old deadline the game goes on; past the new one it ends.
    let wait = before - tavoliere::games::now() + 100;
    tokio::time::sleep(Duration::from_millis(wait.max(0) as u64)).await;
    assert_eq!(state(&server, id).await["status"], "active");
    until("the time-out after the vacation", || finished(&server, id)).await;
    let timeout = events(&server, id)
        .await
        .into_iter()
        .find(|e| e["kind"] == "timeout")
        .unwrap();
    assert_eq!(timeout["payload"]["deadline"], after);

    server.stop().await;
    database.remove().await;
}

/// A vacation ends early on request: the clock stood still from its start
/// until then and runs again, and the days not begun return to the
/// allowance. One still to come is cancelled.
#[tokio::test]
async fn a_vacation_ends_early_or_is_cancelled() {
    use tavoliere::games::now;
    let (database, server, alice, id, before) = a_day_per_move(2_000).await;
    let end_vacation = |token: &str| {
        let request = server
            .client
            .delete(server.url("/players/me/vacation"))
            .bearer_auth(token);
        server.send(request)
    };

    let declared = now();
    let (status, me) = server
        .post("/players/me/vacation", Some(&alice), json!({ "days": 2 }))
        .await;
    let started = now();
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["vacation_days_left"], 1);
    assert_eq!(state(&server, id).await["clock"]["deadline"], before + 4_000);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let asked = now();
    let (status, me) = end_vacation(&alice).await;
    let ended = now();
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(
        me["vacation_days_left"], 2,
        "the day begun counts, the other one is back: {me}"
    );
    assert!(me["vacation_until"].is_null(), "{me}");
    let game = state(&server, id).await;
    assert_eq!(game["clock"]["running"], true, "{game}");
    let deadline = game["clock"]["deadline"].as_i64().unwrap();
    assert!(
        (before + asked - started..=before + ended - declared).contains(&deadline),
        "the deadline moved by the vacation's {} to {} ms, not to {deadline}",
        asked - started,
        ended - declared,
    );
    let (status, body) = end_vacation(&alice).await;
    common::assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");

    // Time runs out at the new deadline, long before the vacation's end
    // (the sweeper looks every 20 ms).
    let after_deadline = deadline + 500 - now();
    tokio::time::sleep(Duration::from_millis(after_deadline.max(0) as u64)).await;
    assert!(
        now() < before + 4_000 - 500,
        "the test was too slow to tell the deadlines apart"
    );
    assert!(finished(&server, id).await, "the game timed out at {deadline}");
    let timeout = events(&server, id)
        .await
        .into_iter()
        .find(|e| e["kind"] == "timeout")
        .expect("a timeout event");
    assert_eq!(timeout["payload"]["deadline"], deadline);

    // One to come: cancelled whole.
    let (status, me) = server
        .post(
            "/players/me/vacation",
            Some(&alice),
            json!({ "days": 1, "start": now() + 10_000 }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["vacation_days_left"], 1);
    let (status, me) = end_vacation(&alice).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["vacation_days_left"], 2, "{me}");
    assert!(me["vacation_until"].is_null(), "{me}");
    let (status, _) = server
        .send(server.client.delete(server.url("/players/me/vacation")))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn your_turn_mail_reaches_a_real_smtp_server() {
    let database = Database::new().await;
    let mut config = config(&database, 86_400_000, 3_600_000);
    config.notify.mail_from = "Tavoliere <games@tavoliere.test>".to_owned();
    config.notify.base_url = "https://tavoliere.test/".to_owned();
    let (server, received) = mail_server(config).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    // Bob hears about his turn only; Alice about nothing.
    let none = json!({ "your_turn": [], "invited": [], "game_over": [], "reminder": [] });
    let (status, body) = server
        .patch("/players/me", Some(&alice), json!({ "notify": none }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let only_turns = json!({ "your_turn": ["email"], "invited": [], "game_over": [], "reminder": [] });
    let (status, body) = server
        .patch("/players/me", Some(&bob), json!({ "notify": only_turns }))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["notify"]["your_turn"], json!(["email"]));
    let id = start(
        &server,
        &alice,
        &bob,
        json!({ "kind": "correspondence", "days_per_move": 3 }),
    )
    .await;
    let answer = play_first(&server, id, &alice, Some("Your move, Bob.\nGood luck!")).await;
    let notation = answer["move"]["move"].as_str().unwrap().to_owned();
    let deadline = answer["game"]["clock"]["deadline"].as_i64().unwrap();

    let mails = mails_until(&received, "the mail", |_| true).await;
    let (envelope, data) = &mails[0];
    assert!(envelope[0].contains("<games@tavoliere.test>"), "{envelope:?}");
    assert!(envelope[1].contains("<bob@example.org>"), "{envelope:?}");
    let (headers, body) = data.split_once("\n\n").expect("headers and body");
    assert!(headers.contains("From: Tavoliere <games@tavoliere.test>"), "{headers}");
    assert!(headers.contains("To: bob <bob@example.org>"), "{headers}");
    assert!(
        headers.contains(&format!("Subject: Your turn in Forza 4 Centrifuga #{id}")),
        "{headers}"
    );
    assert!(headers.contains("Content-Type: text/plain; charset=utf-8"), "{headers}");
    let body = unquote(body);
    assert!(body.contains("it is your turn, bob (move 2)"), "{body}");
    assert!(body.contains(&format!("alice played {notation}")), "{body}");
    assert!(body.contains("> Your move, Bob.\n> Good luck!"), "{body}");
    let board = server.get_text(&format!("/games/{id}/board.txt"), None).await.2;
    assert!(
        body.contains(board.trim_end()),
        "the board as text:\n{body}\n---\n{board}"
    );
    assert!(
        body.contains(&format!("Deadline: {} (UTC)", tavoliere::views::timestamp(deadline))),
        "{body}"
    );
    assert!(body.contains(&format!("https://tavoliere.test/games/{id}")), "{body}");

    // Nothing but this mail before the next: Bob's next turn is the marker.
    play_first(&server, id, &bob, None).await;
    play_first(&server, id, &alice, None).await;
    let mails = mails_until(&received, "the marker", |m| unquote(&m.1).contains("(move 4)")).await;
    assert_eq!(mails.len(), 2, "one mail, to Bob only, then the marker: {mails:?}");

    let (status, log) = server.get("/players/me/deliveries", Some(&bob)).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let log = log["deliveries"].as_array().unwrap();
    assert_eq!(log.len(), 2, "the mail and the marker: {log:?}");
    let first = log.iter().min_by_key(|d| d["seq"].as_i64()).unwrap();
    assert_eq!(first["channel"], "email");
    assert_eq!(first["kind"], "your_turn");
    assert_eq!(first["status"], "sent");
    assert_eq!(first["attempts"], 1);
    server.stop().await;
    database.remove().await;
}

type Received = Arc<Mutex<Vec<(i64, Value)>>>;

/// A webhook receiver that checks signatures with `secret` (set once known)
/// and answers 500 to the first `failures` valid requests.
async fn webhook_receiver(failures: usize) -> (String, Arc<Mutex<String>>, Received, Arc<Mutex<usize>>) {
    use axum::http::{HeaderMap, StatusCode as Code};
    let secret = Arc::new(Mutex::new(String::new()));
    let received: Received = Arc::new(Mutex::new(Vec::new()));
    let attempts = Arc::new(Mutex::new(0usize));
    let (s, r, a) = (secret.clone(), received.clone(), attempts.clone());
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: axum::body::Bytes| {
            let (secret, received, attempts) = (s.clone(), r.clone(), a.clone());
            async move {
                let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                let timestamp = header("x-tavoliere-timestamp");
                let mut mac = Hmac::<Sha256>::new_from_slice(secret.lock().unwrap().as_bytes()).unwrap();
                mac.update(timestamp.as_bytes());
                mac.update(b".");
                mac.update(&body);
                let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
                let fresh = timestamp
                    .parse::<i64>()
                    .is_ok_and(|t| (t - tavoliere::games::now() / 1000).abs() < 300);
                if header("x-tavoliere-signature") != expected || !fresh {
                    return Code::UNAUTHORIZED;
                }
                let mut n = attempts.lock().unwrap();
                *n += 1;
                if *n <= failures {
                    return Code::INTERNAL_SERVER_ERROR;
                }
                let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                received.lock().unwrap().push((*n as i64, value));
                Code::NO_CONTENT
            }
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, secret, received, attempts)
}

#[tokio::test]
async fn webhooks_are_signed_retried_and_logged() {
    let (url, secret, received, attempts) = webhook_receiver(2).await;
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 86_400_000, 3_600_000)).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    let (status, me) = server
        .patch("/players/me", Some(&bob), json!({ "webhook_url": url, "notify": { "your_turn": ["webhook"], "invited": [], "game_over": [], "reminder": [] } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["webhook_url"], url);
    let key = me["webhook_secret"].as_str().expect("the secret, once").to_owned();
    assert_eq!(key.len(), 64);
    *secret.lock().unwrap() = key;
    let (_, again) = server.get("/players/me", Some(&bob)).await;
    assert_eq!(again["webhook_secret"], Value::Null, "shown only once: {again}");
    assert_eq!(again["webhook_url"], url);

    let id = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    let answer = play_first(&server, id, &alice, None).await;
    until("the webhook after two failures", || {
        let received = received.clone();
        async move { !received.lock().unwrap().is_empty() }
    })
    .await;
    let (n, event) = received.lock().unwrap()[0].clone();
    assert_eq!(n, 3, "two failures, then success");
    assert_eq!(event["type"], "player_event");
    assert_eq!(event["kind"], "your_turn");
    assert_eq!(event["player"], "bob");
    assert_eq!(event["data"]["game"], id);
    assert_eq!(event["data"]["ply"], answer["game"]["ply"]);
    // The receiver has it; the server records the delivery once the answer
    // is back.
    until_newest_delivery_is(&server, &bob, "sent").await;
    let (status, log) = server.get("/players/me/deliveries", Some(&bob)).await;
    assert_eq!(status, StatusCode::OK);
    let log = log["deliveries"].as_array().unwrap();
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["channel"], "webhook");
    assert_eq!(log[0]["status"], "sent");
    assert_eq!(log[0]["attempts"], 3);
    assert!(log[0]["last_error"].as_str().unwrap().contains("500"), "{log:?}");
    // Nothing sent twice once delivered: the next request is a later event.
    let marker = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    play_first(&server, marker, &alice, None).await;
    until("the marker webhook", || async { received.lock().unwrap().len() >= 2 }).await;
    assert_eq!(*attempts.lock().unwrap(), 4, "nothing sent twice once delivered");
    assert_eq!(received.lock().unwrap()[1].1["data"]["game"], marker);
    // Alice chose nothing and has no webhook: her log is empty.
    let (_, log) = server.get("/players/me/deliveries", Some(&alice)).await;
    assert_eq!(log["deliveries"], json!([]));

    // Hostile settings change nothing.
    for (body, code) in [
        (json!({ "webhook_url": "ftp://example.org/" }), "bad_webhook_url"),
        (json!({ "webhook_url": "not a url" }), "bad_webhook_url"),
        (json!({ "notify": { "moves": ["email"] } }), "bad_notify"),
        (json!({ "notify": { "your_turn": ["pigeon"] } }), "bad_notify"),
    ] {
        let (status, answer) = server.patch("/players/me", Some(&bob), body).await;
        common::assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, code);
    }
    let (status, answer) = server
        .patch("/players/me", Some(&bob), json!({ "webhook_url": null }))
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["webhook_url"], Value::Null);
    server.stop().await;
    database.remove().await;
}

/// Bob, with a webhook at `url` for his turns (secret known to `secret`),
/// and Alice, on `server`.
async fn bob_with_a_webhook(server: &TestServer, url: &str, secret: &Mutex<String>) -> (String, String) {
    let alice = register(server, "alice").await;
    let bob = register(server, "bob").await;
    let hook = json!({ "webhook_url": url, "notify": { "your_turn": ["webhook"], "invited": [], "game_over": [], "reminder": [] } });
    let (status, me) = server.patch("/players/me", Some(&bob), hook).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    *secret.lock().unwrap() = me["webhook_secret"].as_str().expect("the secret").to_owned();
    (alice, bob)
}

async fn deliveries(server: &TestServer, token: &str, query: &str) -> Vec<Value> {
    let (status, log) = server.get(&format!("/players/me/deliveries{query}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    log["deliveries"].as_array().expect("deliveries").clone()
}

/// Waits until the newest delivery of `token`'s player has `status`.
async fn until_newest_delivery_is(server: &TestServer, token: &str, status: &str) {
    until(&format!("the newest delivery {status}"), || async {
        deliveries(server, token, "")
            .await
            .first()
            .is_some_and(|d| d["status"] == status)
    })
    .await;
}

#[tokio::test]
async fn a_delivery_is_failed_after_its_attempts_and_the_log_pages() {
    // Three attempts, all refused; the fourth request is the next event's.
    let (url, secret, received, attempts) = webhook_receiver(3).await;
    let database = Database::new().await;
    let mut config = config(&database, 86_400_000, 3_600_000);
    config.notify.notify_attempts = 3;
    let server = TestServer::start_with(config).await;
    let (alice, bob) = bob_with_a_webhook(&server, &url, &secret).await;
    let first = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    play_first(&server, first, &alice, None).await;
    until_newest_delivery_is(&server, &bob, "failed").await;
    let log = deliveries(&server, &bob, "").await;
    assert_eq!(log[0]["attempts"], 3, "{log:?}");
    assert!(log[0]["last_error"].as_str().unwrap().contains("500"), "{log:?}");
    assert_eq!(log[0]["next_attempt_at"], Value::Null, "{log:?}");
    // Never tried again: the next request the receiver sees is a later event.
    let mut games = vec![first];
    for _ in 0..4 {
        let id = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
        play_first(&server, id, &alice, None).await;
        games.push(id);
    }
    until("four later webhooks", || async { received.lock().unwrap().len() == 4 }).await;
    assert_eq!(*attempts.lock().unwrap(), 7);
    let hooked: Vec<Value> = received
        .lock()
        .unwrap()
        .iter()
        .map(|(_, e)| e["data"]["game"].clone())
        .collect();
    assert!(!hooked.contains(&json!(first)), "{hooked:?}");

    // The log pages newest first: `limit`, then `before` the last id seen.
    until("every delivery settled", || async {
        deliveries(&server, &bob, "")
            .await
            .iter()
            .all(|d| d["status"] != "pending")
    })
    .await;
    let all = deliveries(&server, &bob, "").await;
    assert_eq!(all.len(), 5, "{all:?}");
    let ids: Vec<i64> = all.iter().map(|d| d["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");
    let mut paged = Vec::new();
    let mut query = "?limit=2".to_owned();
    loop {
        let page = deliveries(&server, &bob, &query).await;
        assert!(page.len() <= 2, "{page:?}");
        let Some(last) = page.last() else { break };
        query = format!("?limit=2&before={}", last["id"]);
        paged.extend(page.iter().map(|d| d["id"].as_i64().unwrap()));
        assert!(paged.len() <= ids.len(), "the pages go on: {paged:?}");
    }
    assert_eq!(paged, ids);
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn a_notifier_restart_sends_nothing_twice() {
    let (url, secret, received, attempts) = webhook_receiver(0).await;
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 86_400_000, 3_600_000)).await;
    let (alice, bob) = bob_with_a_webhook(&server, &url, &secret).await;
    let first = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    play_first(&server, first, &alice, None).await;
    until_newest_delivery_is(&server, &bob, "sent").await;
    server.stop().await;
    // Another process on the same database: its notifier starts from what
    // the first one stored, and the next request is a later event's.
    let server = TestServer::start_with(config(&database, 86_400_000, 3_600_000)).await;
    let marker = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    play_first(&server, marker, &alice, None).await;
    until("the marker webhook", || async { received.lock().unwrap().len() >= 2 }).await;
    let hooked: Vec<Value> = received
        .lock()
        .unwrap()
        .iter()
        .map(|(_, e)| e["data"]["game"].clone())
        .collect();
    assert_eq!(hooked, [json!(first), json!(marker)], "each event once, in order");
    assert_eq!(*attempts.lock().unwrap(), 2);
    until("the marker recorded as sent", || async {
        deliveries(&server, &bob, "")
            .await
            .iter()
            .all(|d| d["status"] == "sent")
    })
    .await;
    assert_eq!(
        deliveries(&server, &bob, "").await.len(),
        2,
        "no delivery created twice"
    );
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn a_webhook_redirect_is_not_followed() {
    use axum::http::{header, StatusCode as Code};
    // A receiver that redirects to a second route, which counts its visits.
    let followed = Arc::new(Mutex::new(0usize));
    let visits = followed.clone();
    let app = axum::Router::new()
        .route(
            "/hook",
            axum::routing::post(|| async { (Code::TEMPORARY_REDIRECT, [(header::LOCATION, "/elsewhere")]) }),
        )
        .route(
            "/elsewhere",
            axum::routing::post(move || {
                let visits = visits.clone();
                async move {
                    *visits.lock().unwrap() += 1;
                    Code::NO_CONTENT
                }
            }),
        );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 86_400_000, 3_600_000)).await;
    let (alice, bob) = bob_with_a_webhook(&server, &url, &Mutex::new(String::new())).await;
    let id = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    play_first(&server, id, &alice, None).await;
    // An attempt is counted when it is claimed, before it is sent; its
    // error is recorded once the answer is back, and a followed redirect
    // would have been part of that answer.
    until("the first attempt's answer recorded", || async {
        deliveries(&server, &bob, "")
            .await
            .first()
            .is_some_and(|d| d["status"] != "pending" || d["last_error"].is_string())
    })
    .await;
    let log = deliveries(&server, &bob, "").await;
    assert_ne!(log[0]["status"], "sent", "a redirect is not a delivery: {log:?}");
    assert!(log[0]["last_error"].as_str().unwrap_or("").contains("307"), "{log:?}");
    assert_eq!(*followed.lock().unwrap(), 0, "the redirect was followed");
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn webhooks_to_private_addresses_are_refused_by_default() {
    let database = Database::new().await;
    let mut config = config(&database, 86_400_000, 3_600_000);
    config.notify.webhook_allow_private = false;
    let server = TestServer::start_with(config).await;
    let alice = register(&server, "alice").await;
    for url in [
        "http://127.0.0.1:9/hook",
        "http://localhost/hook",
        "http://[::1]/",
        "http://10.0.0.1/",
    ] {
        let (status, body) = server
            .patch("/players/me", Some(&alice), json!({ "webhook_url": url }))
            .await;
        common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_webhook_url");
    }
    let (status, body) = server
        .patch(
            "/players/me",
            Some(&alice),
            json!({ "webhook_url": "https://example.org/hook" }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn a_daily_digest_gathers_the_days_mails_into_one() {
    let database = Database::new().await;
    // A "day" of a second: the digest goes out at the start of the next one.
    let (server, received) = mail_server(config(&database, 1_000, 3_600_000)).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    let (status, body) = server
        .patch(
            "/players/me",
            Some(&bob),
            json!({
                "digest": true,
                "notify": { "your_turn": ["email"], "invited": ["email"], "game_over": [], "reminder": [] },
            }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["digest"], true);
    let (status, _) = server
        .patch(
            "/players/me",
            Some(&alice),
            json!({
                "notify": { "your_turn": [], "invited": [], "game_over": [], "reminder": [] },
            }),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    // Bob: invited, then his turn, early in one day.
    let into_day = tavoliere::games::now() % 1_000;
    tokio::time::sleep(Duration::from_millis((1_010 - into_day) as u64)).await;
    let id = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    play_first(&server, id, &alice, None).await;
    mails_until(&received, "the digest", |_| true).await;
    // Nothing more for Bob before a later mail to Carol, the marker.
    register(&server, "carol").await;
    let (status, body) = server
        .create(&alice, json!({ "game": "gravity", "opponents": ["carol"] }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mails = mails_until(&received, "Carol's mail", |m| to(m, "carol@example.org")).await;
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(to(&mails[0], "bob@example.org"), "{mails:?}");
    let data = unquote(&mails[0].1);
    assert!(data.contains("Subject: Tavoliere digest: 2 notifications"), "{data}");
    assert!(
        data.contains(&format!("=== alice invites you to Forza 4 Centrifuga #{id} ===")),
        "{data}"
    );
    assert!(
        data.contains(&format!("=== Your turn in Forza 4 Centrifuga #{id} ===")),
        "{data}"
    );
    let (_, log) = server.get("/players/me/deliveries", Some(&bob)).await;
    let log = log["deliveries"].as_array().unwrap().clone();
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(
        log.iter().all(|d| d["status"] == "sent" && d["channel"] == "email"),
        "{log:?}"
    );
    server.stop().await;
    database.remove().await;
}

fn to(mail: &(Vec<String>, String), address: &str) -> bool {
    mail.0[1].contains(address)
}

/// A mail server and a server that sends to it.
async fn mail_server(config: Config) -> (TestServer, Mails) {
    let (port, received) = smtp_receiver().await;
    let mut config = config;
    config.notify.smtp_host = Some("127.0.0.1".to_owned());
    config.notify.smtp_port = Some(port);
    config.notify.smtp_security = tavoliere::notify::SmtpSecurity::None;
    (TestServer::start_with(config).await, received)
}

/// The server as it runs in production: the real-time hub tells the
/// notifier who is connected, so a player with a socket open gets no mail,
/// and gets it again once the socket is closed.
#[tokio::test]
async fn no_mail_goes_to_a_player_connected_by_websocket() {
    let database = Database::new().await;
    let (server, received) = mail_server(config(&database, 86_400_000, 3_600_000)).await;
    let alice = register(&server, "alice").await;
    let bob = register(&server, "bob").await;
    let turns = json!({ "notify": { "your_turn": ["email"], "invited": [], "game_over": [], "reminder": [] } });
    for token in [&alice, &bob] {
        let (status, _) = server.patch("/players/me", Some(token), turns.clone()).await;
        assert_eq!(status, StatusCode::OK);
    }
    // Bob's socket, signed in on the upgrade, counts once it answers.
    let mut bob_socket = common::connect(&server, Some(&bob)).await;
    bob_socket.send(json!({ "type": "ping", "id": 1 })).await;
    assert_eq!(bob_socket.next().await["type"], "pong");
    let id = start(&server, &alice, &bob, json!({ "kind": "none" })).await;
    let mut watcher = common::connect(&server, None).await;
    watcher.subscribe(id, None).await;
    bob_socket.subscribe(id, None).await;
    watcher.presence(json!([1])).await;

    play_first(&server, id, &alice, None).await;
    until("Bob's skipped delivery", || async {
        let (_, log) = server.get("/players/me/deliveries", Some(&bob)).await;
        log["deliveries"][0]["status"] == "skipped"
    })
    .await;
    let (_, log) = server.get("/players/me/deliveries", Some(&bob)).await;
    assert_eq!(log["deliveries"][0]["last_error"], "the player was connected", "{log}");
    // Alice is not connected: her turn after Bob's move is mailed, and it
    // comes after Bob's turn was decided, with nothing for Bob before it.
    play_first(&server, id, &bob, None).await;
    let mails = mails_until(&received, "Alice's mail of move 3", |m| {
        unquote(&m.1).contains("(move 3)")
    })
    .await;
    assert!(
        mails.iter().all(|m| to(m, "alice@example.org")),
        "no mail to Bob: {mails:?}"
    );

    // Bob signs off (the watcher sees him go, after the hub counted him
    // out): his next turn is mailed.
    bob_socket.close().await;
    watcher.presence(json!([])).await;
    play_first(&server, id, &alice, None).await;
    let mails = mails_until(&received, "Bob's mail once offline", |m| to(m, "bob@example.org")).await;
    let bobs: Vec<_> = mails.iter().filter(|m| to(m, "bob@example.org")).collect();
    assert_eq!(bobs.len(), 1, "{mails:?}");
    assert!(unquote(&bobs[0].1).contains("(move 4)"), "{mails:?}");
    server.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn in_a_four_player_game_each_player_out_of_time_is_out_and_the_last_one_left_wins() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database, 600, 20)).await;
    let mut tokens = Vec::new();
    for name in ["alice", "bob", "carol", "dave"] {
        tokens.push(register(&server, name).await);
    }
    let (status, body) = server
        .create(&tokens[0], json!({ "game": "focus", "variant": "four", "opponents": ["bob", "carol", "dave"], "time_control": { "kind": "correspondence", "days_per_move": 1 } }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["id"].as_i64().unwrap();
    for token in &tokens[1..] {
        let (status, body) = server.post_empty(&format!("/games/{id}/join"), Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // Alice moves in time; Bob, Carol and Dave do not: each is put out in
    // turn, the game going on, until Alice is the last one left.
    play_first(&server, id, &tokens[0], None).await;
    until("the others' time-outs", || finished(&server, id)).await;
    let game = state(&server, id).await;
    assert_eq!(
        game["outcome"],
        json!({ "winners": [0], "winner_names": ["alice"], "reason": "last_player_standing", "message": "every other player is out" }),
        "{game}"
    );
    let log = events(&server, id).await;
    assert_eq!(count(&log, "timeout"), 3);
    let out: Vec<_> = log
        .iter()
        .filter(|e| e["kind"] == "timeout")
        .map(|e| (e["payload"]["seat"].clone(), e["payload"]["player"].clone()))
        .collect();
    assert_eq!(
        out,
        vec![
            (json!(1), json!("bob")),
            (json!(2), json!("carol")),
            (json!(3), json!("dave"))
        ]
    );
    assert_eq!(game["last_move"]["move"], "concede:3");
    assert_eq!(game["last_move"]["effect"], "yellow runs out of time");
    server.stop().await;
    database.remove().await;
}
