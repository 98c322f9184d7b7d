//! Ratings end to end, on the real server and database (SQLite, or
//! PostgreSQL with `TEST_DATABASE_URL`): rated games of every ending, the
//! leaderboard, profiles and histories checked against a Glicko-2 computed
//! here independently, `tavoliere ratings rebuild` agreeing to the bit, a
//! restart changing nothing, two servers on one PostgreSQL losing no
//! update, rating ranges, and rematches.

use crate::common;

use std::collections::HashMap;

use common::{Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::Config;

/// A newcomer's deviation in these tests: low enough that a few games
/// take players off provisional.
const INITIAL_RD: f64 = 120.0;
/// An idle rating period of 0.00002 real days (1.728 s): games a fraction
/// of a second apart grow deviations measurably.
const PERIOD_DAYS: f64 = 0.00002;

fn config(database: &Database) -> Config {
    let mut config = Config::with_database(&database.url);
    config.ratings.rating_rd = INITIAL_RD;
    config.ratings.rating_period_days = PERIOD_DAYS;
    config.sweep_interval_ms = 25;
    config
}

// ---- An independent Glicko-2 (Glickman's paper; step 5 by bisection) ----

const SCALE: f64 = 173.7178;

#[derive(Clone, Copy, Debug)]
struct Glicko {
    r: f64,
    rd: f64,
    sigma: f64,
}

fn newcomer() -> Glicko {
    Glicko {
        r: 1500.0,
        rd: INITIAL_RD,
        sigma: 0.06,
    }
}

fn period_ms() -> f64 {
    PERIOD_DAYS * 86_400_000.0
}

/// `p` after `idle_ms` without games, then one period against `games`
/// (opponent, score), with τ = 0.5.
fn glicko(p: Glicko, idle_ms: Option<i64>, games: &[(Glicko, f64)]) -> Glicko {
    let g = |phi: f64| 1.0 / (1.0 + 3.0 * phi.powi(2) / std::f64::consts::PI.powi(2)).sqrt();
    let mut phi = p.rd / SCALE;
    if let Some(ms) = idle_ms {
        phi = (phi.powi(2) + (ms as f64 / period_ms()) * p.sigma.powi(2))
            .sqrt()
            .min(INITIAL_RD / SCALE);
    }
    let mu = (p.r - 1500.0) / SCALE;
    let terms: Vec<(f64, f64, f64)> = games
        .iter()
        .map(|(o, s)| {
            let gj = g(o.rd / SCALE);
            let e = 1.0 / (1.0 + (-gj * (mu - (o.r - 1500.0) / SCALE)).exp());
            (gj, e, *s)
        })
        .collect();
    let v = 1.0 / terms.iter().map(|(gj, e, _)| gj * gj * e * (1.0 - e)).sum::<f64>();
    let improvement: f64 = terms.iter().map(|(gj, e, s)| gj * (s - e)).sum();
    let delta = v * improvement;
    let a = (p.sigma * p.sigma).ln();
    let tau = 0.5_f64;
    let f = |x: f64| {
        x.exp() * (delta * delta - phi * phi - v - x.exp()) / (2.0 * (phi * phi + v + x.exp()).powi(2))
            - (x - a) / (tau * tau)
    };
    // f falls from positive to negative across its one root: bisect.
    let (mut lo, mut hi) = (a - 20.0, a + 20.0);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let sigma = (lo / 2.0).exp();
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi_new = 1.0 / (1.0 / phi_star.powi(2) + 1.0 / v).sqrt();
    Glicko {
        r: SCALE * (mu + phi_new.powi(2) * improvement) + 1500.0,
        rd: SCALE * phi_new,
        sigma,
    }
}

/// RFC 3339 (as the server writes it, UTC) to Unix milliseconds.
fn unix_ms(ts: &str) -> i64 {
    let (date, time) = ts.trim_end_matches('Z').split_once('T').expect("a timestamp");
    let d: Vec<i64> = date.split('-').map(|x| x.parse().expect("a date")).collect();
    let (y, m, day) = (d[0] - i64::from(d[1] <= 2), d[1], d[2]);
    // Days from the civil date (Howard Hinnant's algorithm).
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let t: Vec<&str> = time.split(':').collect();
    let seconds: f64 = t[2].parse().expect("seconds");
    let (h, min): (i64, i64) = (t[0].parse().expect("hours"), t[1].parse().expect("minutes"));
    days * 86_400_000 + h * 3_600_000 + min * 60_000 + (seconds * 1000.0).round() as i64
}

fn close(actual: &Value, expected: f64) -> bool {
    actual.as_f64().is_some_and(|a| (a - expected).abs() < 1e-6)
}

// ---- Driving the server ----

struct Players {
    tokens: HashMap<&'static str, String>,
}

impl Players {
    async fn register(server: &TestServer, names: &[&'static str]) -> Players {
        let mut tokens = HashMap::new();
        for name in names {
            tokens.insert(*name, server.register(name).await);
        }
        Players { tokens }
    }

    fn token(&self, name: &str) -> &str {
        &self.tokens[name]
    }
}

/// A started Gravity game, `first` at seat 0, with the extra creation fields.
async fn game(server: &TestServer, players: &Players, first: &str, second: &str, extra: Value) -> i64 {
    let mut body = json!({ "game": "gravity", "opponents": [second] });
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    let (status, created) = server.post("/games", Some(players.token(first)), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_i64().expect("an id");
    let (status, joined) = server
        .post_empty(&format!("/games/{id}/join"), Some(players.token(second)))
        .await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    id
}

async fn act(server: &TestServer, players: &Players, id: i64, who: &str, what: &str) -> Value {
    let (status, body) = server
        .post_empty(&format!("/games/{id}/{what}"), Some(players.token(who)))
        .await;
    assert_eq!(status, StatusCode::OK, "{what} by {who}: {body}");
    body
}

/// How a game ended, for the independent computation.
#[derive(Clone, Copy)]
enum End {
    /// This player won.
    Won(&'static str),
    Drawn,
}

/// One rated game: its id, its players and how it ended.
struct Rated {
    id: i64,
    players: [&'static str; 2],
    end: End,
}

/// Plays `first` (seat 0) against `second` to `end` by resignation, draw
/// or time-out; the game as it finished.
async fn play_out(
    server: &TestServer,
    players: &Players,
    first: &'static str,
    second: &'static str,
    end: &str,
) -> Rated {
    let (extra, result) = match end {
        "time-out" => (
            json!({ "time_control": { "kind": "live", "initial_seconds": 1, "increment_seconds": 0 } }),
            End::Won(second),
        ),
        _ => (json!({}), End::Drawn),
    };
    let id = game(server, players, first, second, extra).await;
    let end = match end {
        "first-resigns" => {
            act(server, players, id, first, "resign").await;
            End::Won(second)
        }
        "second-resigns" => {
            act(server, players, id, second, "resign").await;
            End::Won(first)
        }
        "draw" => {
            act(server, players, id, first, "draw/yes").await;
            act(server, players, id, second, "draw/yes").await;
            End::Drawn
        }
        _ => {
            common::until("the time-out", || async {
                let (_, state) = server.get(&format!("/games/{id}"), None).await;
                state["status"] == "finished"
            })
            .await;
            result
        }
    };
    let (_, state) = server.get(&format!("/games/{id}"), None).await;
    assert_eq!(state["status"], "finished", "{state}");
    assert_eq!(state["rated"], true);
    Rated {
        id,
        players: [first, second],
        end,
    }
}

/// What the independent computation expects of each player after `games`,
/// given each game's end time.
fn expected(games: &[Rated], ended: &HashMap<i64, i64>) -> HashMap<&'static str, (Glicko, i64, [i64; 3])> {
    // (rating, last played, [wins, losses, draws])
    let mut state: HashMap<&'static str, (Glicko, i64, [i64; 3])> = HashMap::new();
    for g in games {
        let at = ended[&g.id];
        let before: Vec<(Glicko, Option<i64>)> = g
            .players
            .iter()
            .map(|p| match state.get(p) {
                Some((rating, last, _)) => (*rating, Some(at - last)),
                None => (newcomer(), None),
            })
            .collect();
        // The opponent as the game found them: grown by their idle time.
        let grown: Vec<Glicko> = before
            .iter()
            .map(|(r, idle)| match idle {
                Some(ms) => Glicko {
                    rd: ((r.rd / SCALE).powi(2) + (*ms as f64 / period_ms()) * r.sigma.powi(2))
                        .sqrt()
                        .min(INITIAL_RD / SCALE)
                        * SCALE,
                    ..*r
                },
                None => *r,
            })
            .collect();
        for (i, p) in g.players.iter().enumerate() {
            let score = match g.end {
                End::Won(w) if w == *p => 1.0,
                End::Won(_) => 0.0,
                End::Drawn => 0.5,
            };
            let after = glicko(before[i].0, before[i].1, &[(grown[1 - i], score)]);
            let mut tally = state.get(p).map_or([0; 3], |s| s.2);
            tally[if score == 1.0 {
                0
            } else if score == 0.0 {
                1
            } else {
                2
            }] += 1;
            state.insert(p, (after, at, tally));
        }
    }
    state
}

/// Each rated game's end, from the players' histories (which must each
/// hold one point per rated game of theirs, in order, before = the last
/// point's after).
async fn end_times(server: &TestServer, names: &[&str], games: &[Rated]) -> HashMap<i64, i64> {
    let mut ended = HashMap::new();
    for name in names {
        let (status, history) = server
            .get(&format!("/players/{name}/ratings/gravity/standard"), None)
            .await;
        assert_eq!(status, StatusCode::OK, "{history}");
        let points = history["points"].as_array().expect("points");
        let theirs: Vec<i64> = games
            .iter()
            .filter(|g| g.players.contains(name))
            .map(|g| g.id)
            .collect();
        let ids: Vec<i64> = points.iter().map(|p| p["game_id"].as_i64().unwrap()).collect();
        assert_eq!(ids, theirs, "{name}'s history is their rated games, in order");
        for pair in points.windows(2) {
            assert_eq!(pair[0]["after"], pair[1]["before"], "{name}: {history}");
        }
        for p in points {
            ended.insert(p["game_id"].as_i64().unwrap(), unix_ms(p["at"].as_str().unwrap()));
        }
    }
    ended
}

/// The profiles and the leaderboard hold what the independent computation
/// gives; the leaderboard as read.
async fn check(server: &TestServer, names: &[&'static str], games: &[Rated]) -> Value {
    let ended = end_times(server, names, games).await;
    let want = expected(games, &ended);
    for name in names {
        let (status, profile) = server.get(&format!("/players/{name}"), None).await;
        assert_eq!(status, StatusCode::OK, "{profile}");
        let rating = &profile["ratings"][0];
        let (g, last, [wins, losses, draws]) = want[name];
        assert!(close(&rating["rating"], g.r), "{name}: {rating} against {g:?}");
        assert!(close(&rating["rd"], g.rd), "{name}: {rating} against {g:?}");
        assert!(close(&rating["volatility"], g.sigma), "{name}: {rating} against {g:?}");
        assert_eq!(rating["games"], wins + losses + draws);
        assert_eq!(
            (
                rating["wins"].as_i64(),
                rating["losses"].as_i64(),
                rating["draws"].as_i64()
            ),
            (Some(wins), Some(losses), Some(draws))
        );
        assert_eq!(rating["provisional"], g.rd > 110.0, "{rating}");
        assert_eq!(unix_ms(rating["last_played"].as_str().unwrap()), last);
    }
    let (status, board) = server.get("/ratings/gravity/standard", None).await;
    assert_eq!(status, StatusCode::OK, "{board}");
    let mut ranked: Vec<(&str, f64)> = names
        .iter()
        .filter(|n| want[*n].0.rd <= 110.0)
        .map(|n| (*n, want[n].0.r))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let entries = board["entries"].as_array().expect("entries");
    let listed: Vec<&str> = entries.iter().map(|e| e["player"].as_str().unwrap()).collect();
    let names_ranked: Vec<&str> = ranked.iter().map(|(n, _)| *n).collect();
    assert_eq!(listed, names_ranked, "{board}");
    assert!(!listed.is_empty(), "someone is off provisional: {board}");
    for (rank, entry) in entries.iter().enumerate() {
        assert_eq!(entry["rank"], rank as i64 + 1);
        assert!(close(&entry["rating"], ranked[rank].1), "{entry}");
    }
    board
}

fn rebuild(database: &Database, dry_run: bool) -> String {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tavoliere"));
    command
        .args(["ratings", "rebuild", "--database-url", &database.url])
        .args(["--rating-rd", &INITIAL_RD.to_string()])
        .args(["--rating-period-days", &PERIOD_DAYS.to_string()])
        .env_remove("DATABASE_URL");
    if dry_run {
        command.arg("--dry-run");
    }
    let output = command.output().expect("tavoliere runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Everything a leaderboard and profiles say, to compare before and after.
async fn snapshot(server: &TestServer, names: &[&str]) -> Vec<Value> {
    let mut all = vec![server.get("/ratings/gravity/standard", None).await.1];
    for name in names {
        let (_, mut profile) = server.get(&format!("/players/{name}"), None).await;
        profile["statistics"]["in_progress"] = json!(null);
        all.push(profile["ratings"].clone());
        all.push(
            server
                .get(&format!("/players/{name}/ratings/gravity/standard"), None)
                .await
                .1,
        );
    }
    all
}

/// Three players, a dozen rated games (resignations, draws, a time-out)
/// plus an unrated and an aborted one, a restart and a rebuild between.
#[tokio::test]
async fn rated_games_give_the_ratings_an_independent_glicko2_gives() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let names = ["ann", "bea", "cid"];
    let players = Players::register(&server, &names).await;
    let mut rated = vec![
        play_out(&server, &players, "ann", "bea", "second-resigns").await,
        play_out(&server, &players, "bea", "cid", "draw").await,
        play_out(&server, &players, "cid", "ann", "first-resigns").await,
        play_out(&server, &players, "ann", "bea", "first-resigns").await,
        play_out(&server, &players, "bea", "cid", "time-out").await,
        play_out(&server, &players, "ann", "cid", "draw").await,
    ];
    // Neither an unrated game nor an aborted one changes anything.
    let unrated = game(&server, &players, "ann", "bea", json!({ "rated": false })).await;
    let over = act(&server, &players, unrated, "bea", "resign").await;
    assert_eq!(
        (over["status"].as_str(), over["rated"].as_bool()),
        (Some("finished"), Some(false))
    );
    let aborted = game(&server, &players, "ann", "cid", json!({})).await;
    act(&server, &players, aborted, "ann", "abort").await;
    let board = check(&server, &names, &rated).await;

    // A restart changes nothing.
    let before = snapshot(&server, &names).await;
    server.stop().await;
    let server = TestServer::start_with(config(&database)).await;
    assert_eq!(snapshot(&server, &names).await, before);
    assert_eq!(check(&server, &names, &rated).await, board);

    for (first, second, end) in [
        ("bea", "ann", "second-resigns"),
        ("cid", "bea", "first-resigns"),
        ("ann", "bea", "draw"),
        ("cid", "ann", "second-resigns"),
        ("bea", "cid", "second-resigns"),
        ("ann", "cid", "second-resigns"),
    ] {
        rated.push(play_out(&server, &players, first, second, end).await);
    }
    check(&server, &names, &rated).await;

    // The game's end told everyone the ratings before and after.
    let last = rated.last().expect("games");
    let (_, events) = server.get(&format!("/games/{}/events", last.id), None).await;
    let finished = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "finished")
        .expect("a finished event");
    let (_, history) = server.get("/players/cid/ratings/gravity/standard", None).await;
    let point = history["points"].as_array().unwrap().last().unwrap().clone();
    let shift = finished["payload"]["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["player"] == "cid")
        .expect("cid's rating in the event")
        .clone();
    assert_eq!((&shift["before"], &shift["after"]), (&point["before"], &point["after"]));
    let (_, mine) = server.get("/players/me/events", Some(players.token("cid"))).await;
    let over = mine["events"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["kind"] == "game_over")
        .expect("a game_over notice")
        .clone();
    assert_eq!(over["payload"]["ratings"], finished["payload"]["ratings"], "{over}");
    // Seats show their players' ratings.
    let (_, state) = server.get(&format!("/games/{}", last.id), None).await;
    assert!(
        close(&state["seats"][1]["rating"], point["after"].as_f64().unwrap().round()),
        "{state}"
    );

    // Statistics.
    let (_, profile) = server.get("/players/ann", None).await;
    let stats = &profile["statistics"];
    assert_eq!(stats["played"], 9, "rated and unrated finished games: {stats}");
    assert_eq!(stats["in_progress"], 0);
    assert_eq!(stats["by_game"]["gravity"]["played"], 9);
    assert!(stats["opponents"][0]["games"].as_i64().unwrap() >= 4, "{stats}");

    // The rebuild arrives at exactly the stored values, and stores them.
    let before = snapshot(&server, &names).await;
    server.stop().await;
    let said = rebuild(&database, false);
    assert!(
        said.contains("replayed 12 rated games") && said.contains(" 0 stored ratings differed"),
        "{said}"
    );
    let said = rebuild(&database, true);
    assert!(said.contains(" 0 stored ratings differed"), "{said}");
    let server = TestServer::start_with(config(&database)).await;
    assert_eq!(snapshot(&server, &names).await, before);
    server.stop().await;
    database.remove().await;
}

/// Two servers on one PostgreSQL end many games of the same players at
/// once: every rating counts every game, each computed from the one
/// before (the rebuild agrees to the bit).
#[tokio::test]
async fn two_servers_ending_games_at_once_lose_no_rating_update() {
    let database = Database::new().await;
    if !database.is_postgres() {
        common::skipped(
            "two_servers_ending_games_at_once_lose_no_rating_update",
            "two servers share only a PostgreSQL database",
        );
        database.remove().await;
        return;
    }
    let one = TestServer::start_with(config(&database)).await;
    let two = TestServer::start_with(config(&database)).await;
    let names = ["p0", "p1", "p2", "p3"];
    let players = Players::register(&one, &names).await;
    let mut games = Vec::new();
    for round in 0..3 {
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                let (first, second) = if round % 2 == 0 { (*a, *b) } else { (*b, *a) };
                games.push((game(&one, &players, first, second, json!({})).await, second));
            }
        }
    }
    // Every game ends at once, half through each server.
    let ends = games.iter().enumerate().map(|(i, (id, loser))| {
        let server = if i % 2 == 0 { &one } else { &two };
        let token = players.token(loser).to_owned();
        async move { server.post_empty(&format!("/games/{id}/resign"), Some(&token)).await }
    });
    for (status, body) in futures_util::future::join_all(ends).await {
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    for name in names {
        let (_, profile) = two.get(&format!("/players/{name}"), None).await;
        assert_eq!(profile["ratings"][0]["games"], 9, "{profile}");
        let (_, history) = one
            .get(&format!("/players/{name}/ratings/gravity/standard"), None)
            .await;
        let points = history["points"].as_array().unwrap();
        assert_eq!(points.len(), 9);
        for pair in points.windows(2) {
            assert_eq!(pair[0]["after"], pair[1]["before"], "{name}: {history}");
        }
    }
    one.stop().await;
    two.stop().await;
    let said = rebuild(&database, true);
    assert!(
        said.contains("replayed 18 rated games") && said.contains(" 0 stored ratings differed"),
        "{said}"
    );
    database.remove().await;
}

/// An open game's rating range keeps out whoever is rated outside it.
#[tokio::test]
async fn a_rating_range_keeps_players_outside_it_off_the_seat() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let players = Players::register(&server, &["ann", "bea", "cid"]).await;
    // bea climbs above 1500 by beating cid.
    let won = game(&server, &players, "bea", "cid", json!({})).await;
    act(&server, &players, won, "cid", "resign").await;
    let open = |min: Option<i64>, max: Option<i64>| {
        let body = json!({ "game": "gravity", "rating_min": min, "rating_max": max });
        let server = &server;
        let token = players.token("ann").to_owned();
        async move {
            let (status, created) = server.post("/games", Some(&token), body).await;
            assert_eq!(status, StatusCode::CREATED, "{created}");
            created["id"].as_i64().unwrap()
        }
    };
    let strong = open(Some(1510), None).await;
    let (status, body) = server
        .post_empty(&format!("/games/{strong}/join"), Some(players.token("cid")))
        .await;
    common::assert_error(status, &body, StatusCode::CONFLICT, "rating_out_of_range");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("at least 1510"),
        "{body}"
    );
    let (_, state) = server.get(&format!("/games/{strong}"), None).await;
    assert_eq!(state["status"], "open", "nothing changed");
    let (status, body) = server
        .post_empty(&format!("/games/{strong}/join"), Some(players.token("bea")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let weak = open(None, Some(1499)).await;
    let (status, body) = server
        .post_empty(&format!("/games/{weak}/join"), Some(players.token("bea")))
        .await;
    common::assert_error(status, &body, StatusCode::CONFLICT, "rating_out_of_range");
    let (status, body) = server
        .post_empty(&format!("/games/{weak}/join"), Some(players.token("cid")))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = server
        .post(
            "/games",
            Some(players.token("ann")),
            json!({ "game": "gravity", "rating_min": 1600, "rating_max": 1500 }),
        )
        .await;
    common::assert_error(status, &body, StatusCode::UNPROCESSABLE_ENTITY, "bad_rating_range");
    server.stop().await;
    database.remove().await;
}

/// A server where bea has won a rated game against cid, so their ratings
/// differ from the start's.
async fn bea_after_beating_cid() -> (Database, TestServer, Players) {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let players = Players::register(&server, &["bea", "cid"]).await;
    let won = game(&server, &players, "bea", "cid", json!({})).await;
    act(&server, &players, won, "cid", "resign").await;
    (database, server, players)
}

/// The answer to a join is the game as a read of it then shows it: the
/// new seat with its player's rating, the clock started.
#[tokio::test]
async fn a_join_answers_the_game_as_a_read_shows_it() {
    let (database, server, players) = bea_after_beating_cid().await;
    let body = json!({ "game": "gravity", "time_control": { "kind": "correspondence", "days_per_move": 1 } });
    let (status, created) = server.post("/games", Some(players.token("bea")), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_i64().unwrap();
    let (status, mut joined) = server
        .post_empty(&format!("/games/{id}/join"), Some(players.token("cid")))
        .await;
    assert_eq!(status, StatusCode::OK, "{joined}");
    let (status, mut read) = server.get(&format!("/games/{id}"), Some(players.token("cid"))).await;
    assert_eq!(status, StatusCode::OK, "{read}");
    for seat in 0..2 {
        assert!(joined["seats"][seat]["rating"].is_number(), "{joined}");
    }
    assert!(
        joined["seats"][1]["rating"].as_f64().unwrap() < 1500.0,
        "cid lost: {joined}"
    );
    // The clock ticks between the two: its deadline does not.
    let (mut clock, mut read_clock) = (joined["clock"].take(), read["clock"].take());
    assert!(clock["deadline"].is_i64() && clock["running"] == true, "{clock}");
    clock["remaining_ms"].take();
    read_clock["remaining_ms"].take();
    assert_eq!(clock, read_clock);
    assert_eq!(joined, read);
    // So does the answer to the next move, decided from memory.
    let legal = read["legal"][0].as_str().unwrap();
    let (status, moved) = server
        .post(
            &format!("/games/{id}/moves"),
            Some(players.token("bea")),
            json!({ "move": legal, "ply": 0 }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{moved}");
    assert_eq!(moved["game"]["seats"], read["seats"], "{moved}");
    server.stop().await;
    database.remove().await;
}

/// The answer to a creation is the game as a read of it then shows it:
/// the creator's seat with their rating, an invitee's seat with theirs to
/// come, a private game's invitation code.
#[tokio::test]
async fn a_creation_answers_the_game_as_a_read_shows_it() {
    let (database, server, players) = bea_after_beating_cid().await;
    let bodies = [
        json!({ "game": "gravity", "time_control": { "kind": "correspondence", "days_per_move": 1 } }),
        json!({ "game": "gravity", "public": false, "seat": 1, "opponents": ["cid"],
                "rating_min": 1000, "rating_max": 2000 }),
    ];
    for body in bodies {
        let (status, mut created) = server.post("/games", Some(players.token("bea")), body).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
        let id = created["id"].as_i64().unwrap();
        let mine = created["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["player"] == "bea")
            .cloned();
        let rating = mine.as_ref().map(|seat| &seat["rating"]);
        assert!(
            rating.and_then(|r| r.as_f64()).is_some_and(|r| r > 1500.0),
            "bea won: {created}"
        );
        let (status, mut read) = server.get(&format!("/games/{id}"), Some(players.token("bea"))).await;
        assert_eq!(status, StatusCode::OK, "{read}");
        created["clock"]["remaining_ms"].take();
        read["clock"]["remaining_ms"].take();
        assert_eq!(created, read);
    }
    server.stop().await;
    database.remove().await;
}

/// A rematch swaps the colours, invites the other player, and a second
/// request answers it instead of making another.
#[tokio::test]
async fn a_rematch_swaps_colours_and_a_second_request_accepts_it() {
    let database = Database::new().await;
    let server = TestServer::start_with(config(&database)).await;
    let players = Players::register(&server, &["ann", "bea", "cid"]).await;
    let control = json!({ "kind": "correspondence", "days_per_move": 3 });
    let first = game(
        &server,
        &players,
        "ann",
        "bea",
        json!({ "rated": false, "time_control": control }),
    )
    .await;
    let (status, body) = server
        .post_empty(&format!("/games/{first}/rematch"), Some(players.token("ann")))
        .await;
    common::assert_error(status, &body, StatusCode::CONFLICT, "game_not_finished");
    act(&server, &players, first, "bea", "resign").await;
    let (status, body) = server
        .post_empty(&format!("/games/{first}/rematch"), Some(players.token("cid")))
        .await;
    common::assert_error(status, &body, StatusCode::FORBIDDEN, "not_a_player");

    let offer = act(&server, &players, first, "ann", "rematch").await;
    let rematch = offer["id"].as_i64().expect("a new game");
    assert_ne!(rematch, first);
    assert_eq!(offer["status"], "open");
    assert_eq!(offer["rematch_of"], first);
    assert_eq!(
        (offer["game"].as_str(), offer["variant"].as_str()),
        (Some("gravity"), Some("standard"))
    );
    assert_eq!(offer["rated"], false, "the rated flag carries over");
    assert_eq!(offer["seats"][0]["invited"], "bea", "colours swapped: {offer}");
    assert_eq!(offer["seats"][1]["player"], "ann", "{offer}");
    let (_, old) = server.get(&format!("/games/{first}"), None).await;
    assert_eq!(old["rematch"], rematch, "{old}");
    // Asking again answers nothing new.
    let again = act(&server, &players, first, "ann", "rematch").await;
    assert_eq!(
        (again["id"].as_i64(), again["status"].as_str()),
        (Some(rematch), Some("open"))
    );
    // bea is told, and her own request accepts the offer.
    let (_, events) = server.get("/players/me/events", Some(players.token("bea"))).await;
    let told = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "rematch")
        .expect("a rematch notice")
        .clone();
    assert_eq!(
        (told["payload"]["by"].as_str(), told["payload"]["of"].as_i64()),
        (Some("ann"), Some(first))
    );
    assert_eq!(told["payload"]["game"], rematch);
    let accepted = act(&server, &players, first, "bea", "rematch").await;
    assert_eq!(accepted["id"], rematch);
    assert_eq!(accepted["status"], "active", "{accepted}");
    assert_eq!(accepted["seats"][0]["player"], "bea");
    assert_eq!(
        accepted["clock"]["kind"], "correspondence",
        "the time control carries over: {accepted}"
    );
    let (_, list) = server.get("/games?player=ann", None).await;
    assert_eq!(list["games"].as_array().unwrap().len(), 2, "no third game: {list}");
    server.stop().await;
    database.remove().await;
}
