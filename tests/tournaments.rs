//! Tournaments end to end, as clients see them: a round robin played out by
//! resignations and draws, a Swiss whose next round appears with the last
//! game of the round, a league season that begins the next with promotion
//! and relegation, forfeits, starts by the sweeper, a restart between two
//! rounds, and two servers ending a round's last games at once.

use crate::common;

use std::collections::{HashMap, HashSet};

use common::{assert_error, skipped, teardown, until, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::Config;

fn config(database: &Database) -> Config {
    let mut config = Config::with_database(&database.url);
    config.sweep_interval_ms = 25;
    config
}

/// Players by name: their tokens.
struct Field {
    tokens: HashMap<String, String>,
}

impl Field {
    async fn register(server: &TestServer, names: &[&str]) -> Field {
        let mut tokens = HashMap::new();
        for name in names {
            tokens.insert((*name).to_owned(), server.register(name).await);
        }
        Field { tokens }
    }

    fn token(&self, name: &str) -> &str {
        &self.tokens[name]
    }
}

/// Creates a tournament organised by `organiser`, joined by every one of
/// `players` in order; its id.
async fn tournament(server: &TestServer, field: &Field, organiser: &str, players: &[&str], body: Value) -> i64 {
    let (status, created) = server.post("/tournaments", Some(field.token(organiser)), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_i64().expect("an id");
    assert_eq!(created["status"], "open");
    for name in players {
        let (status, body) = server
            .post_empty(&format!("/tournaments/{id}/join"), Some(field.token(name)))
            .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    id
}

async fn show(server: &TestServer, id: i64) -> Value {
    let (status, body) = server.get(&format!("/tournaments/{id}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn start(server: &TestServer, field: &Field, organiser: &str, id: i64) -> Value {
    let (status, body) = server
        .post_empty(&format!("/tournaments/{id}/start"), Some(field.token(organiser)))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["status"], "active");
    body
}

/// Every pairing of the view: `(round, group, pairing)`.
fn pairings(view: &Value) -> Vec<(i64, i64, Value)> {
    view["rounds_played"]
        .as_array()
        .expect("rounds")
        .iter()
        .flat_map(|r| {
            let (round, group) = (r["round"].as_i64().unwrap(), r["group"].as_i64().unwrap());
            r["pairings"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |p| (round, group, p.clone()))
        })
        .collect()
}

/// How a game is to end.
#[derive(Clone, Copy, Debug)]
enum End {
    FirstWins,
    SecondWins,
    Draw,
}

/// Ends the game of `pairing` as `end` says: the loser resigns, or both
/// agree to a draw.
async fn finish(server: &TestServer, field: &Field, pairing: &Value, end: End) {
    let game = pairing["game"].as_i64().expect("a game");
    let first = pairing["first"].as_str().unwrap();
    let second = pairing["second"].as_str().unwrap();
    let steps: Vec<(&str, &str)> = match end {
        End::FirstWins => vec![(second, "resign")],
        End::SecondWins => vec![(first, "resign")],
        End::Draw => vec![(first, "draw/yes"), (second, "draw/yes")],
    };
    for (player, action) in steps {
        let (status, body) = server
            .post_empty(&format!("/games/{game}/{action}"), Some(field.token(player)))
            .await;
        assert_eq!(status, StatusCode::OK, "{player} {action}: {body}");
    }
}

/// The standings of group `group`: `name → line`.
fn standings(view: &Value, group: usize) -> Vec<Value> {
    view["groups"][group]["standings"]
        .as_array()
        .expect("standings")
        .clone()
}

async fn events(server: &TestServer, token: &str) -> Vec<Value> {
    let (status, body) = server.get("/players/me/events?limit=500", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["events"].as_array().expect("events").clone()
}

fn count(events: &[Value], kind: &str) -> usize {
    events.iter().filter(|e| e["kind"] == kind).count()
}

#[tokio::test]
async fn a_round_robin_played_out_by_resignations_and_draws() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let field = Field::register(&server, &["ann", "ben", "cat", "dan"]).await;
    let body = json!({ "name": "Autumn cup", "game": "gravity", "format": "round_robin",
                       "time_control": { "kind": "correspondence", "days_per_move": 3 } });
    let id = tournament(&server, &field, "ann", &["ann", "ben", "cat", "dan"], body).await;
    // Only the organiser starts it.
    let (status, body) = server
        .post_empty(&format!("/tournaments/{id}/start"), Some(field.token("ben")))
        .await;
    assert_error(status, &body, StatusCode::FORBIDDEN, "not_organiser");
    let view = start(&server, &field, "ann", id).await;
    assert_eq!(view["rounds"], 3);
    let all = pairings(&view);
    assert_eq!(all.len(), 6, "every game made at the start");
    let mut firsts: HashMap<String, i64> = HashMap::new();
    let mut met = HashSet::new();
    for (_, _, p) in &all {
        let (a, b) = (
            p["first"].as_str().unwrap().to_owned(),
            p["second"].as_str().unwrap().to_owned(),
        );
        *firsts.entry(a.clone()).or_default() += 1;
        assert!(met.insert(if a < b { (a, b) } else { (b, a) }), "no pair twice");
        assert!(p["result"].is_null());
    }
    for name in ["ann", "ben", "cat", "dan"] {
        let f = firsts.get(name).copied().unwrap_or(0);
        assert!((1..=2).contains(&f), "{name} has seat 0 in {f} of 3");
    }
    // The games are real, started, with a running correspondence clock.
    let game = all[0].2["game"].as_i64().unwrap();
    let (_, state) = server.get(&format!("/games/{game}"), None).await;
    assert_eq!(state["status"], "active", "{state}");
    assert!(state["clock"]["deadline"].is_i64(), "{state}");
    assert_eq!(state["clock"]["running"], true, "{state}");
    // And cannot be aborted.
    let first = all[0].2["first"].as_str().unwrap();
    let (status, body) = server
        .post_empty(&format!("/games/{game}/abort"), Some(field.token(first)))
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "tournament_game");
    // The hand-worked table of the unit tests: ann beats ben and cat and
    // draws dan; ben beats cat and dan; cat beats dan.
    let rank = |n: &str| ["ann", "ben", "cat", "dan"].iter().position(|x| *x == n).unwrap();
    for (i, (_, _, p)) in all.iter().enumerate() {
        let (a, b) = (p["first"].as_str().unwrap(), p["second"].as_str().unwrap());
        let end = if (rank(a), rank(b)) == (0, 3) || (rank(a), rank(b)) == (3, 0) {
            End::Draw
        } else if rank(a) < rank(b) {
            End::FirstWins
        } else {
            End::SecondWins
        };
        assert_eq!(show(&server, id).await["status"], "active", "before game {i}");
        finish(&server, &field, p, end).await;
    }
    let view = show(&server, id).await;
    assert_eq!(view["status"], "finished", "{view}");
    let table: Vec<(String, i64, f64, f64)> = standings(&view, 0)
        .iter()
        .map(|s| {
            (
                s["player"].as_str().unwrap().to_owned(),
                s["rank"].as_i64().unwrap(),
                s["points"].as_f64().unwrap(),
                s["sonneborn_berger"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("ann", 1, 2.5, 3.25),
        ("ben", 2, 2.0, 1.5),
        ("cat", 3, 1.0, 0.5),
        ("dan", 4, 0.5, 1.25),
    ];
    let expected: Vec<(String, i64, f64, f64)> = expected
        .iter()
        .map(|(n, r, p, s)| ((*n).to_owned(), *r, *p, *s))
        .collect();
    assert_eq!(table, expected);
    assert_eq!(standings(&view, 0)[0]["played"], 3);
    let draws = pairings(&view).iter().filter(|(_, _, p)| p["result"] == "½-½").count();
    assert_eq!(draws, 1);
    // Everyone heard of the start, their three games and their place.
    for name in ["ann", "ben", "cat", "dan"] {
        let mine = events(&server, field.token(name)).await;
        assert_eq!(count(&mine, "tournament_started"), 1, "{name}");
        assert_eq!(count(&mine, "tournament_round"), 3, "{name}");
        let over: Vec<&Value> = mine.iter().filter(|e| e["kind"] == "tournament_over").collect();
        assert_eq!(over.len(), 1, "{name}");
        assert_eq!(over[0]["payload"]["rank"], rank(name) as i64 + 1);
    }
    // The list shows it finished.
    let (_, list) = server.get("/tournaments?status=finished&game=gravity", None).await;
    assert_eq!(list["tournaments"].as_array().unwrap().len(), 1, "{list}");
    let (status, _) = server.get("/tournaments?status=nope", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    teardown(database, server).await;
}

/// The seats of each player in the view's games: `name → (seat 0, seat 1)`.
fn seats(view: &Value) -> HashMap<String, (i64, i64)> {
    let mut seats: HashMap<String, (i64, i64)> = HashMap::new();
    for (_, _, p) in pairings(view) {
        if let Some(second) = p["second"].as_str() {
            seats.entry(p["first"].as_str().unwrap().to_owned()).or_default().0 += 1;
            seats.entry(second.to_owned()).or_default().1 += 1;
        }
    }
    seats
}

#[tokio::test]
async fn a_swiss_of_seven_pairs_each_round_when_the_last_game_ends() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let names = ["p1", "p2", "p3", "p4", "p5", "p6", "p7"];
    let field = Field::register(&server, &names).await;
    let body = json!({ "name": "Swiss open", "game": "gravity", "format": "swiss", "rounds": 3, "rated": false });
    let id = tournament(&server, &field, "p1", &names, body).await;
    start(&server, &field, "p1", id).await;
    let seed = |n: &str| n[1..].parse::<i64>().unwrap();
    for round in 1..=3 {
        let view = show(&server, id).await;
        assert_eq!(view["round"], round, "{view}");
        let this: Vec<Value> = pairings(&view)
            .into_iter()
            .filter(|(r, _, _)| *r == round)
            .map(|(_, _, p)| p)
            .collect();
        assert_eq!(this.len(), 4, "three games and a bye");
        assert_eq!(this.iter().filter(|p| p["result"] == "bye").count(), 1);
        let games: Vec<&Value> = this.iter().filter(|p| p["game"].is_i64()).collect();
        for (i, p) in games.iter().enumerate() {
            // The round is not paired before its last game ends.
            assert_eq!(show(&server, id).await["round"], round);
            let (a, b) = (p["first"].as_str().unwrap(), p["second"].as_str().unwrap());
            let end = match (round + i as i64) % 3 {
                0 => End::Draw,
                _ if seed(a) < seed(b) => End::FirstWins,
                _ => End::SecondWins,
            };
            finish(&server, &field, p, end).await;
        }
        // The last game's end paired the next round in its transaction:
        // no waiting.
        let after = show(&server, id).await;
        if round < 3 {
            assert_eq!(after["round"], round + 1, "{after}");
        }
    }
    let view = show(&server, id).await;
    assert_eq!(view["status"], "finished", "{view}");
    let all = pairings(&view);
    let mut met = HashSet::new();
    let mut byes = HashSet::new();
    for (_, _, p) in &all {
        match p["second"].as_str() {
            None => assert!(
                byes.insert(p["first"].as_str().unwrap().to_owned()),
                "one bye each at most"
            ),
            Some(b) => {
                let a = p["first"].as_str().unwrap();
                assert!(
                    met.insert(if a < b { (a, b) } else { (b, a) }),
                    "no pair twice: {a} {b}"
                );
            }
        }
    }
    assert_eq!(byes.len(), 3);
    for (name, (first, second)) in seats(&view) {
        assert!((first - second).abs() <= 1, "{name}: {first} / {second}");
    }
    let table = standings(&view, 0);
    assert_eq!(table.len(), 7);
    assert!(table
        .iter()
        .all(|s| s["buchholz"].is_number() && s["median_buchholz"].is_number()));
    let total: f64 = table.iter().map(|s| s["points"].as_f64().unwrap()).sum();
    assert_eq!(total, 12.0, "nine games and three byes");
    teardown(database, server).await;
}

#[tokio::test]
async fn a_league_season_ends_and_the_next_begins_with_promotion_and_relegation() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let names = ["l1", "l2", "l3", "l4", "l5", "l6", "l7"];
    let field = Field::register(&server, &names).await;
    let body = json!({ "name": "League", "game": "gravity", "format": "league", "group_size": 3, "rated": false });
    let id = tournament(&server, &field, "l1", &names[..6], body).await;
    let view = start(&server, &field, "l1", id).await;
    assert_eq!(view["round"], 1, "season 1");
    assert_eq!(view["groups"].as_array().unwrap().len(), 2);
    // A newcomer joins during the season: they wait for the next.
    let (status, body) = server
        .post_empty(&format!("/tournaments/{id}/join"), Some(field.token("l7")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let season = pairings(&show(&server, id).await);
    assert_eq!(season.len(), 6, "two groups of three: three games each");
    // The better seed wins every game.
    let seed = |n: &str| n[1..].parse::<i64>().unwrap();
    for (_, _, p) in &season {
        let (a, b) = (p["first"].as_str().unwrap(), p["second"].as_str().unwrap());
        let end = if seed(a) < seed(b) {
            End::FirstWins
        } else {
            End::SecondWins
        };
        finish(&server, &field, p, end).await;
    }
    let view = show(&server, id).await;
    assert_eq!(view["status"], "active");
    assert_eq!(view["round"], 2, "season 2 began by itself: {view}");
    let group = |g: usize| -> Vec<String> {
        let mut players: Vec<String> = standings(&view, g)
            .iter()
            .map(|s| s["player"].as_str().unwrap().to_owned())
            .collect();
        players.sort();
        players
    };
    // l3 (last of the top group) goes down, l4 (first of the second) up;
    // the newcomer joins the lowest group.
    assert_eq!(group(0), vec!["l1", "l2", "l4"]);
    assert_eq!(group(1), vec!["l3", "l5", "l6", "l7"]);
    let season2 = pairings(&view);
    assert_eq!(season2.len(), 3 + 6, "3 + 6 games of season 2");
    assert!(season2.iter().all(|(r, _, p)| *r == 2 && p["result"].is_null()));
    let mine = events(&server, field.token("l7")).await;
    let started: Vec<&Value> = mine.iter().filter(|e| e["kind"] == "tournament_started").collect();
    assert_eq!(started.len(), 1);
    assert_eq!(started[0]["payload"]["season"], 2);
    teardown(database, server).await;
}

#[tokio::test]
async fn games_that_are_not_for_two_and_bad_values_are_refused() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let field = Field::register(&server, &["org"]).await;
    let token = Some(field.token("org"));
    let (status, body) = server
        .post(
            "/tournaments",
            token,
            json!({ "name": "Four", "game": "focus", "variant": "four", "format": "swiss" }),
        )
        .await;
    assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "not_two_player");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("two-player"),
        "{body}"
    );
    let bad = [
        (json!({ "name": "", "game": "gravity", "format": "swiss" }), "bad_name"),
        (
            json!({ "name": "x", "game": "chess", "format": "swiss" }),
            "unknown_game",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "knockout" }),
            "bad_format",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "swiss", "rounds": 99 }),
            "out_of_range",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "round_robin", "max_players": 51 }),
            "out_of_range",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "league", "group_size": 1 }),
            "out_of_range",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "swiss", "min_players": 9, "max_players": 4 }),
            "bad_player_range",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "swiss", "starts_at": "2001-01-01T00:00:00Z" }),
            "starts_in_past",
        ),
        (
            json!({ "name": "x", "game": "gravity", "format": "swiss", "starts_at": "soon" }),
            "bad_starts_at",
        ),
    ];
    for (body, code) in bad {
        let (status, answer) = server.post("/tournaments", token, body.clone()).await;
        assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, code);
    }
    let (status, _) = server
        .post(
            "/tournaments",
            token,
            json!({ "name": "x", "game": "gravity", "format": "swiss", "extra": 1 }),
        )
        .await;
    assert!(status.is_client_error());
    let (status, _) = server
        .post(
            "/tournaments",
            None,
            json!({ "name": "x", "game": "gravity", "format": "swiss" }),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = server.get("/tournaments/999999", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Too few to start; full; joining twice.
    let body = json!({ "name": "Small", "game": "gravity", "format": "round_robin", "max_players": 2 });
    let id = tournament(&server, &field, "org", &["org"], body).await;
    let (status, body) = server.post_empty(&format!("/tournaments/{id}/start"), token).await;
    assert_error(status, &body, StatusCode::CONFLICT, "too_few_players");
    let (status, body) = server.post_empty(&format!("/tournaments/{id}/join"), token).await;
    assert_error(status, &body, StatusCode::CONFLICT, "already_in");
    let late = server.register("late").await;
    let other = server.register("other").await;
    let (status, _) = server.post_empty(&format!("/tournaments/{id}/join"), Some(&late)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = server
        .post_empty(&format!("/tournaments/{id}/join"), Some(&other))
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "full");
    // Leaving before the start just leaves.
    let (status, body) = server
        .post_empty(&format!("/tournaments/{id}/leave"), Some(&late))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["players"].as_array().unwrap().len(), 1);
    teardown(database, server).await;
}

#[tokio::test]
async fn a_player_who_leaves_forfeits_their_remaining_games() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let field = Field::register(&server, &["ana", "bob", "cyd"]).await;
    let body = json!({ "name": "Three", "game": "gravity", "format": "round_robin", "double": true });
    let id = tournament(&server, &field, "ana", &["ana", "bob", "cyd"], body).await;
    let view = start(&server, &field, "ana", id).await;
    assert_eq!(pairings(&view).len(), 6, "a double round robin of three");
    // ana and cyd finish one game; then bob leaves.
    let all = pairings(&view);
    let (_, _, ac) = all
        .iter()
        .find(|(_, _, p)| {
            !p["first"].as_str().unwrap().contains("bob") && !p["second"].as_str().unwrap().contains("bob")
        })
        .unwrap();
    finish(&server, &field, ac, End::Draw).await;
    let (status, body) = server
        .post_empty(&format!("/tournaments/{id}/leave"), Some(field.token("bob")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let view = show(&server, id).await;
    let bob_games: Vec<Value> = pairings(&view)
        .into_iter()
        .map(|(_, _, p)| p)
        .filter(|p| p["first"] == "bob" || p["second"] == "bob")
        .collect();
    assert_eq!(bob_games.len(), 4);
    for p in &bob_games {
        assert_eq!(p["forfeit"], true, "{p}");
        let lost = if p["first"] == "bob" { "0-1" } else { "1-0" };
        assert_eq!(p["result"], lost, "{p}");
    }
    assert!(view["players"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["player"] == "bob" && e["left"] == true));
    let bob = standings(&view, 0).into_iter().find(|s| s["player"] == "bob").unwrap();
    assert_eq!((bob["points"].as_f64(), bob["losses"].as_i64()), (Some(0.0), Some(4)));
    // Leaving again changes nothing; the tournament ends with the last game.
    let (status, _) = server
        .post_empty(&format!("/tournaments/{id}/leave"), Some(field.token("bob")))
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, _, last) = pairings(&view)
        .into_iter()
        .find(|(_, _, p)| p["result"].is_null())
        .unwrap();
    finish(&server, &field, &last, End::FirstWins).await;
    assert_eq!(show(&server, id).await["status"], "finished");
    teardown(database, server).await;
}

#[tokio::test]
async fn the_sweeper_starts_a_due_tournament_or_cancels_it() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let field = Field::register(&server, &["sam", "tia", "uma"]).await;
    let soon = time::OffsetDateTime::now_utc() + time::Duration::milliseconds(1500);
    let at = soon.format(&time::format_description::well_known::Rfc3339).unwrap();
    let body = json!({ "name": "Due", "game": "gravity", "format": "swiss", "starts_at": at, "min_players": 2 });
    let due = tournament(&server, &field, "sam", &["sam", "tia"], body).await;
    let body = json!({ "name": "Lonely", "game": "gravity", "format": "swiss", "starts_at": at, "min_players": 3 });
    let lonely = tournament(&server, &field, "uma", &["uma", "tia"], body).await;
    until("the due tournament to start", || async {
        show(&server, due).await["status"] == "active"
    })
    .await;
    until("the lonely tournament to be cancelled", || async {
        show(&server, lonely).await["status"] == "cancelled"
    })
    .await;
    assert_eq!(pairings(&show(&server, due).await).len(), 1, "round 1 paired once");
    let mine = events(&server, field.token("uma")).await;
    let over: Vec<&Value> = mine.iter().filter(|e| e["kind"] == "tournament_over").collect();
    assert_eq!(over.len(), 1);
    assert_eq!(over[0]["payload"]["cancelled"], true);
    teardown(database, server).await;
}

#[tokio::test]
async fn a_restart_between_two_rounds_pairs_the_next_round_once() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let names = ["r1", "r2", "r3", "r4"];
    let field = Field::register(&server, &names).await;
    let body = json!({ "name": "Restart", "game": "gravity", "format": "swiss", "rounds": 2, "rated": false });
    let id = tournament(&server, &field, "r1", &names, body).await;
    let view = start(&server, &field, "r1", id).await;
    let round1 = pairings(&view);
    finish(&server, &field, &round1[0].2, End::FirstWins).await;
    // The server stops between the round's two games...
    server.stop().await;
    let server = TestServer::start_with(config(&database)).await;
    assert_eq!(show(&server, id).await["round"], 1);
    finish(&server, &field, &round1[1].2, End::SecondWins).await;
    // ...and between the rounds.
    server.stop().await;
    let server = TestServer::start_with(config(&database)).await;
    let view = show(&server, id).await;
    assert_eq!(view["round"], 2);
    let round2: Vec<Value> = pairings(&view)
        .into_iter()
        .filter(|(r, _, _)| *r == 2)
        .map(|(_, _, p)| p)
        .collect();
    assert_eq!(round2.len(), 2, "round 2 paired once");
    for p in &round2 {
        finish(&server, &field, p, End::Draw).await;
    }
    let view = show(&server, id).await;
    assert_eq!(view["status"], "finished");
    assert_eq!(pairings(&view).len(), 4);
    teardown(database, server).await;
}

#[tokio::test]
async fn two_servers_ending_a_rounds_last_games_at_once_pair_the_next_round_once() {
    let database = Database::new().await;
    if !database.is_postgres() {
        skipped(
            "two_servers_ending_a_rounds_last_games_at_once_pair_the_next_round_once",
            "two servers share one PostgreSQL",
        );
        database.remove().await;
        return;
    }
    let one = TestServer::start_with(config(&database)).await;
    let two = TestServer::start_with(config(&database)).await;
    let names = ["s1", "s2", "s3", "s4", "s5", "s6"];
    let field = Field::register(&one, &names).await;
    // Several tournaments, so that the race is run more than once.
    for n in 0..4 {
        let body = json!({ "name": format!("Race {n}"), "game": "gravity", "format": "swiss", "rounds": 2 });
        let id = tournament(&one, &field, "s1", &names, body).await;
        let view = start(&one, &field, "s1", id).await;
        let round1 = pairings(&view);
        assert_eq!(round1.len(), 3);
        finish(&one, &field, &round1[0].2, End::FirstWins).await;
        // The last two games of the round end at once, one on each server.
        tokio::join!(
            finish(&one, &field, &round1[1].2, End::SecondWins),
            finish(&two, &field, &round1[2].2, End::Draw),
        );
        let view = show(&two, id).await;
        assert_eq!(view["round"], 2, "{view}");
        let round2 = pairings(&view).into_iter().filter(|(r, _, _)| *r == 2).count();
        assert_eq!(round2, 3, "round 2 paired once: {view}");
    }
    one.stop().await;
    teardown(database, two).await;
}
