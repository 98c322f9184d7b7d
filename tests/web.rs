//! The web client: how its files are served, and end-to-end play in
//! headless Chromium against the real server — two players in two browser
//! contexts sign up, create and join games and play by clicking cells, a
//! spectator without an account watches. Screenshots of the main pages go
//! to `$CARGO_TARGET_DIR/web-screenshots/` (or `target/web-screenshots/`).

use crate::browser;
use crate::common;

use std::path::PathBuf;

use browser::{Browser, Page};
use common::{Database, TestServer};
use reqwest::StatusCode;

#[tokio::test]
async fn the_client_is_served_with_types_etags_and_client_routes() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let get = |path: &str| server.client.get(format!("{}{path}", server.base)).send();

    let index = get("/").await.expect("GET /");
    assert_eq!(index.status(), StatusCode::OK);
    assert_eq!(index.headers()["content-type"], "text/html; charset=utf-8");
    assert_eq!(index.headers()["cache-control"], "no-cache");
    let etag = index.headers()["etag"].to_str().expect("an ETag").to_owned();
    assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
    assert!(index.text().await.expect("a body").contains("/assets/app.js"));

    // The same ETag answers 304 without a body; another ETag gets the file.
    let again = server
        .client
        .get(format!("{}/", server.base))
        .header("If-None-Match", &etag)
        .send()
        .await
        .expect("GET / again");
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.text().await.expect("a body").is_empty());
    let other = server
        .client
        .get(format!("{}/", server.base))
        .header("If-None-Match", "\"something-else\"")
        .send()
        .await
        .expect("GET / with another tag");
    assert_eq!(other.status(), StatusCode::OK);

    for (path, content_type) in [
        ("/assets/app.js", "text/javascript; charset=utf-8"),
        ("/assets/board.js", "text/javascript; charset=utf-8"),
        ("/assets/ratings.js", "text/javascript; charset=utf-8"),
        ("/assets/tournaments.js", "text/javascript; charset=utf-8"),
        ("/assets/style.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "image/svg+xml"),
    ] {
        let response = get(path).await.expect("an asset");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["content-type"], content_type, "{path}");
        assert_ne!(response.headers()["etag"], etag.as_str(), "{path} has its own ETag");
    }

    // Client routes answer the page, so reloads and shared links work.
    for path in [
        "/lobby",
        "/game/12",
        "/game/12?ply=3",
        "/rules/focus",
        "/settings",
        "/signin",
        "/ratings/gravity/standard",
        "/player/alice",
        "/tournaments",
        "/tournament/3",
    ] {
        let response = get(path).await.expect("a client route");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["etag"], etag.as_str(), "{path}");
    }

    // Anything else is still the API's JSON 404, and the API is untouched.
    for path in ["/nothing", "/assets/missing.js", "/api/v1/nothing", "/api/v1/"] {
        let response = get(path).await.expect("an unknown path");
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        let body: serde_json::Value = response.json().await.expect("a JSON error");
        assert_eq!(body["error"]["code"], "not_found", "{path}");
    }
    let posted = server
        .client
        .post(format!("{}/lobby", server.base))
        .send()
        .await
        .expect("POST to a page");
    assert_eq!(posted.status(), StatusCode::NOT_FOUND);
    let (status, _) = server.get("/rules", None).await;
    assert_eq!(status, StatusCode::OK);

    server.stop().await;
    database.remove().await;
}

fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("web-screenshots")
}

async fn sign_up(page: &Page<'_>, base: &str, name: &str) {
    page.goto(&format!("{base}/signup")).await;
    page.fill("#name", name).await;
    page.fill("#password", "correct horse battery").await;
    page.click("#submit").await;
    page.wait("document.getElementById('signout')", "signed in").await;
    page.wait("location.pathname === '/lobby'", "the lobby after signing up")
        .await;
}

/// Creates a game from the lobby form with `opponent` invited; its id.
async fn create_game(page: &Page<'_>, base: &str, game: &str, variant: &str, opponent: &str) -> i64 {
    page.goto(&format!("{base}/lobby")).await;
    page.select("#new-game", game).await;
    page.select("#new-variant", variant).await;
    page.fill(".opponent", opponent).await;
    page.click("#create-submit").await;
    page.wait("/^\\/game\\/\\d+$/.test(location.pathname)", "the new game's page")
        .await;
    let path = page.eval("location.pathname").await;
    path.as_str()
        .and_then(|p| p.rsplit('/').next())
        .and_then(|id| id.parse().ok())
        .expect("a game id in the path")
}

/// Accepts the invitation to game `id` from the lobby.
async fn accept(page: &Page<'_>, base: &str, id: i64) {
    page.goto(&format!("{base}/lobby")).await;
    page.click(&format!("#invitations [data-game='{id}'] button.accept"))
        .await;
    page.wait(&format!("location.pathname === '/game/{id}'"), "the joined game")
        .await;
}

/// Clicks the cells of one move on the mover's page, then waits until the
/// other page shows the game at the next ply (live or by polling).
async fn play(mover: &Page<'_>, watcher: &Page<'_>, cells: &[&str], ply: usize) {
    // My turn, with the page settled on it: the history of the moves before
    // is shown too.
    mover
        .wait(
            &format!(
                "document.querySelector('#status').textContent.includes('Your move') \
                 && document.querySelectorAll('#moves [data-ply]').length === {}",
                ply - 1
            ),
            "my turn",
        )
        .await;
    for cell in cells {
        mover.click(&format!("#board-box [data-cell='{cell}']")).await;
    }
    // Nothing is sent until Submit.
    mover.click("#submit-move").await;
    let moved = format!("document.querySelectorAll('#moves [data-ply]').length === {}", ply);
    mover.wait(&moved, "the move in my move list").await;
    watcher.wait(&moved, "the opponent's move on the other page").await;
}

fn cell_has(cell: &str, text: &str) -> String {
    format!("(document.querySelector(\"#board-box [data-cell='{cell}']\").getAttribute('aria-label') || '').includes('{text}')")
}

#[tokio::test]
async fn two_players_play_in_headless_chromium() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let base = server.base.clone();
    let shots = screenshot_dir();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    let bob = browser.page().await;
    let spectator = browser.page().await;

    sign_up(&alice, &base, "alice").await;
    sign_up(&bob, &base, "bob").await;

    // A refusal shows the server's reason: the name is taken.
    spectator.goto(&format!("{base}/signup")).await;
    spectator.fill("#name", "Alice").await;
    spectator.fill("#password", "correct horse battery").await;
    spectator.click("#submit").await;
    spectator
        .wait("document.querySelector('.notice.error')", "the name-taken message")
        .await;
    assert!(spectator.text(".notice.error").await.contains("taken"));

    // ---- Gravity, a whole game; the spectator watches without an account.
    let gravity = create_game(&alice, &base, "gravity", "standard", "bob").await;
    bob.goto(&format!("{base}/lobby")).await;
    bob.wait(
        &format!("document.querySelector(\"#invitations [data-game='{gravity}']\")"),
        "the invitation",
    )
    .await;
    bob.screenshot(&shots.join("lobby.png")).await;
    accept(&bob, &base, gravity).await;
    alice.goto(&format!("{base}/game/{gravity}")).await;
    spectator.goto(&format!("{base}/game/{gravity}")).await;
    // Bob has the second seat: his board is turned (a1 at the top, h8 at
    // the bottom), alice's is not; the flip button turns it back.
    let a1_above_h8 =
        "(() => { const y = (c) => Number(document.querySelector(`#board-box [data-cell='${c}']`).dataset.y); \
                       return y('a1') < y('h8'); })()";
    bob.wait(a1_above_h8, "bob's board turned").await;
    alice
        .wait(
            "document.querySelector(\"#board-box [data-cell='h8']\")",
            "alice's board",
        )
        .await;
    assert_eq!(alice.eval(a1_above_h8).await, false, "alice's board is not turned");
    bob.click("#flip").await;
    bob.wait(&format!("!{a1_above_h8}"), "bob's board turned back").await;
    bob.click("#flip").await;
    bob.wait(a1_above_h8, "bob's board turned again").await;

    // A cell no move starts at is refused with a message, nothing is sent.
    alice
        .wait(
            "document.querySelector('#status').textContent.includes('Your move')",
            "my turn",
        )
        .await;
    bob.click("#board-box [data-cell='d4']").await;
    bob.wait("document.querySelector('#game-message .notice')", "not your turn")
        .await;
    assert!(bob.text("#game-message").await.contains("not your turn"));

    // A click only proposes the move: the board shows where the piece
    // would land (a1, pending) and nothing is sent; Cancel restores it.
    alice.click("#board-box [data-cell='d4']").await;
    alice
        .wait(&cell_has("a1", "yellow, pending move"), "the landing square previewed")
        .await;
    assert_eq!(
        alice
            .eval("document.querySelectorAll('#moves [data-ply]').length")
            .await,
        0
    );
    let (_, unsent) = server.get(&format!("/games/{gravity}"), None).await;
    assert_eq!(unsent["ply"], 0, "a pending move is not sent");
    alice.screenshot(&shots.join("game-gravity-pending.png")).await;
    alice.click("#cancel-move").await;
    alice
        .wait(
            &format!(
                "!document.querySelector('#submit-move') && {}",
                cell_has("a1", "a1: empty")
            ),
            "the position restored",
        )
        .await;
    play(&alice, &bob, &["d4"], 1).await;
    // The piece fell to a1; the last move is marked; keyboard and text work.
    bob.wait(&cell_has("a1", "yellow, last move"), "the piece on a1, marked")
        .await;
    spectator
        .wait(
            "document.querySelectorAll('#moves [data-ply]').length === 1",
            "the spectator sees the move",
        )
        .await;
    // Bob types an illegal move: the rules' reason is shown.
    bob.wait(
        "document.querySelector('#status').textContent.includes('Your move')",
        "bob's turn",
    )
    .await;
    bob.fill("#notation", "a1").await;
    bob.click("#notation-play").await;
    bob.wait(
        "document.querySelector('#game-message').textContent.includes('occupied')",
        "the rules' refusal",
    )
    .await;
    // Bob plays h8 from the keyboard: focus the cell, press Enter.
    bob.eval("document.querySelector(\"#board-box [data-cell='h8']\").focus()")
        .await;
    bob.command(
        "Input.dispatchKeyEvent",
        serde_json::json!({ "type": "keyDown", "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13 }),
    )
    .await;
    bob.click("#submit-move").await;
    bob.wait(
        "document.querySelectorAll('#moves [data-ply]').length === 2",
        "bob's keyboard move",
    )
    .await;
    alice
        .wait(
            "document.querySelectorAll('#moves [data-ply]').length === 2",
            "bob's move at alice's",
        )
        .await;
    play(&alice, &bob, &["b1"], 3).await;
    play(&bob, &alice, &["g8"], 4).await;
    play(&alice, &bob, &["c1"], 5).await;
    play(&bob, &alice, &["f8"], 6).await;
    play(&alice, &bob, &["d1"], 7).await;
    for page in [&alice, &bob, &spectator] {
        page.wait(
            "document.querySelector('#status').textContent.includes('alice won')",
            "the result",
        )
        .await;
    }
    alice.screenshot(&shots.join("game-gravity.png")).await;
    // Stepping back through the history.
    alice.click("#ply-back").await;
    alice
        .wait("location.search === '?ply=6'", "the game after move 6")
        .await;
    alice
        .wait(&format!("!({})", cell_has("d1", "yellow")), "d1 empty again")
        .await;

    // ---- Focus: both opening swaps, then a stack of two moved two squares.
    let focus = create_game(&alice, &base, "focus", "standard", "bob").await;
    accept(&bob, &base, focus).await;
    alice.goto(&format!("{base}/game/{focus}")).await;
    play(&alice, &bob, &["b2", "d2"], 1).await;
    play(&bob, &alice, &["b2", "c2"], 2).await;
    play(&alice, &bob, &["c3", "c4"], 3).await;
    bob.wait(&cell_has("c4", "stack of 2"), "the stack of two on c4").await;
    play(&bob, &alice, &["f6", "f5"], 4).await;
    // Alice picks the stack: its targets are highlighted, c6 moves both pieces.
    alice.click("#board-box [data-cell='c4']").await;
    alice
        .wait(&cell_has("c6", "possible"), "c6 highlighted as a target")
        .await;
    assert!(alice.eval(&cell_has("c5", "possible")).await.as_bool().unwrap_or(false));
    alice.click("#board-box [data-cell='c6']").await;
    alice.click("#submit-move").await;
    alice
        .wait(
            "document.querySelectorAll('#moves [data-ply]').length === 5",
            "the two-piece move",
        )
        .await;
    bob.wait(&cell_has("c6", "stack of 3"), "three pieces on c6 at bob's")
        .await;
    bob.screenshot(&shots.join("game-focus.png")).await;

    // ---- Cacciatori: a capture, then Bob resigns.
    let hunt = create_game(&alice, &base, "huntsmen", "standard", "bob").await;
    accept(&bob, &base, hunt).await;
    alice.goto(&format!("{base}/game/{hunt}")).await;
    play(&alice, &bob, &["a1", "a2"], 1).await;
    play(&bob, &alice, &["a4", "a3"], 2).await;
    play(&alice, &bob, &["a2", "a3"], 3).await;
    bob.wait(&cell_has("a2", "empty"), "the capturer left a2").await;
    alice.screenshot(&shots.join("game-huntsmen.png")).await;
    bob.eval("window.confirm = () => true").await;
    bob.click("#resign").await;
    alice
        .wait(
            "document.querySelector('#status').textContent.includes('alice won')",
            "bob's resignation at alice's",
        )
        .await;

    // ---- Pente with neutral stones: one cell, two moves, a chooser.
    let pente = create_game(&alice, &base, "pente", "neutral", "bob").await;
    accept(&bob, &base, pente).await;
    alice.goto(&format!("{base}/game/{pente}")).await;
    play(&alice, &bob, &["k10"], 1).await;
    // Bob may place his own stone or a neutral one on a1: he picks his own.
    bob.wait(
        "document.querySelector('#status').textContent.includes('Your move')",
        "bob's turn",
    )
    .await;
    bob.click("#board-box [data-cell='a1']").await;
    bob.click("#chooser [data-move='a1']").await;
    bob.click("#submit-move").await;
    alice
        .wait(
            "document.querySelectorAll('#moves [data-ply]').length === 2",
            "bob's stone at alice's",
        )
        .await;
    alice.click("#board-box [data-cell='c3']").await;
    alice
        .wait(
            "document.querySelectorAll('#chooser .choice').length === 2",
            "a chooser of two moves",
        )
        .await;
    alice.screenshot(&shots.join("game-pente-chooser.png")).await;
    alice.click("#chooser [data-move='Nc3']").await;
    alice.click("#submit-move").await;
    bob.wait(&cell_has("c3", "neutral"), "the neutral stone at bob's").await;

    // ---- Settings: notification preferences only where the server keeps them.
    let token = alice.eval("localStorage.getItem('tavoliere.token')").await;
    let (status, me) = server.get("/players/me", token.as_str()).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    alice.goto(&format!("{base}/settings")).await;
    alice
        .wait("document.querySelector('#account')", "the settings page")
        .await;
    let offered = alice.eval("!!document.querySelector('#notifications')").await;
    assert_eq!(offered.as_bool(), Some(me.get("notify").is_some()), "{me}");
    alice.fill("#settings-email", "alice@example.com").await;
    alice.fill("#settings-current-password", "correct horse battery").await;
    alice.click("#account button[type=submit]").await;
    alice
        .wait(
            "document.querySelector('#settings-message .notice.ok')",
            "the email saved",
        )
        .await;
    let (_, me) = server.get("/players/me", token.as_str()).await;
    assert_eq!(me["email"], "alice@example.com");

    // ---- My games, the rules page, a phone-sized game page.
    alice.goto(&format!("{base}/my")).await;
    alice
        .wait(
            &format!("document.querySelector(\"#my-other [data-game='{focus}']\")"),
            "the Focus game listed",
        )
        .await;
    bob.goto(&format!("{base}/my")).await;
    bob.wait(
        &format!("document.querySelector(\"#my-turn [data-game='{focus}']\")"),
        "the Focus game waiting for bob",
    )
    .await;
    alice.goto(&format!("{base}/rules/focus")).await;
    alice
        .wait("document.querySelector('.rules h1')", "the rules page")
        .await;
    assert!(alice.text(".rules").await.contains("Notation"));
    alice.screenshot(&shots.join("rules-focus.png")).await;
    bob.set_viewport(390, 844, true).await;
    bob.goto(&format!("{base}/game/{focus}")).await;
    bob.wait("document.querySelector('#board-box svg')", "the board on a phone")
        .await;
    let overflow = bob
        .eval("document.documentElement.scrollWidth <= window.innerWidth + 1")
        .await;
    assert_eq!(overflow, serde_json::Value::Bool(true), "the page fits a phone's width");
    bob.screenshot(&shots.join("game-focus-phone.png")).await;

    // Hexagonal boards, watched by the spectator: every cell of the view drawn.
    let carol = server.register("carol").await;
    let dave = server.register("dave").await;
    for (game, variant) in [("huntsmen", "hex"), ("annuvin", "standard")] {
        let id = server
            .start_game(game, variant, &[&carol, &dave], &["carol", "dave"])
            .await;
        let (_, state) = server.get(&format!("/games/{id}"), None).await;
        let cells = state["view"]["board"]["cells"].as_array().map_or(0, Vec::len);
        assert_eq!(state["view"]["board"]["shape"], "hex", "{game} {variant}");
        spectator.goto(&format!("{base}/game/{id}")).await;
        spectator
            .wait(
                &format!("document.querySelectorAll('#board-box svg.hex polygon').length === {cells}"),
                "every hexagonal cell",
            )
            .await;
        spectator
            .screenshot(&shots.join(format!("game-{game}-{variant}.png")))
            .await;
    }

    // ---- Signing out ends the session on the server, not only in the page.
    alice.click("#signout").await;
    alice
        .wait(
            "localStorage.getItem('tavoliere.token') === null",
            "the token forgotten",
        )
        .await;
    let (status, _) = server.get("/players/me", token.as_str()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "alice's old token after signing out");

    drop(browser);
    server.stop().await;
    database.remove().await;
}

/// Ratings in the browser: beside names in a game and the lobby, a
/// leaderboard page, a profile with its SVG rating chart, and the Rematch
/// button of a finished game.
#[tokio::test]
async fn ratings_leaderboard_profile_and_rematch_in_headless_chromium() {
    let database = Database::new().await;
    let mut config = tavoliere::Config::with_database(&database.url);
    // Deviations start below the provisional line, so the leaderboard lists players.
    config.ratings.rating_rd = 100.0;
    let server = TestServer::start_with(config).await;
    let base = server.base.clone();
    let shots = screenshot_dir();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    sign_up(&alice, &base, "alice").await;
    let token = alice.eval("localStorage.getItem('tavoliere.token')").await;
    let alice_token = token.as_str().expect("alice's token").to_owned();
    let bob = server.register("bob").await;
    let carol = server.register("carol").await;
    // Five games against bob and carol in turn: alice loses the third.
    let mut last = 0;
    for (i, alice_loses) in [false, false, true, false, false].into_iter().enumerate() {
        let (opponent, opponent_token) = if i % 2 == 0 { ("bob", &bob) } else { ("carol", &carol) };
        let id = server
            .start_game(
                "gravity",
                "standard",
                &[&alice_token, opponent_token],
                &["alice", opponent],
            )
            .await;
        let who = if alice_loses {
            alice_token.as_str()
        } else {
            opponent_token.as_str()
        };
        let (status, body) = server.post_empty(&format!("/games/{id}/resign"), Some(who)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        last = id;
    }
    let duel = server
        .start_game("gravity", "standard", &[&bob, &carol], &["bob", "carol"])
        .await;
    server.post_empty(&format!("/games/{duel}/resign"), Some(&carol)).await;
    let (_, profile) = server.get("/players/alice", None).await;
    let rating = profile["ratings"][0]["rating"]
        .as_f64()
        .expect("alice is rated")
        .round();

    // The finished game shows each player's rating beside their name.
    alice.goto(&format!("{base}/game/{last}")).await;
    alice
        .wait(
            "document.querySelector(\"#seats .seat[data-seat='0'] .rating\")",
            "alice's rating beside her name",
        )
        .await;
    assert_eq!(
        alice.text("#seats .seat[data-seat='0'] .rating").await.trim(),
        format!("{rating}")
    );
    assert!(alice
        .text("#seats .seat[data-seat='1'] .rating")
        .await
        .trim()
        .parse::<f64>()
        .is_ok());
    alice
        .wait("document.querySelector('#rematch')", "the Rematch button")
        .await;
    alice.screenshot(&shots.join("game-finished-ratings.png")).await;

    // The leaderboard, best first.
    alice.goto(&format!("{base}/ratings/gravity/standard")).await;
    alice
        .wait("document.querySelector('#leaderboard tbody tr')", "the leaderboard")
        .await;
    let first = alice
        .eval("document.querySelector('#leaderboard tbody tr').dataset.player")
        .await;
    assert_eq!(first, "alice");
    let rows = alice
        .eval("document.querySelectorAll('#leaderboard tbody tr').length")
        .await;
    assert_eq!(rows, 3);
    alice.screenshot(&shots.join("leaderboard.png")).await;

    // The profile: ratings, statistics and a chart of five games (six points).
    alice.goto(&format!("{base}/player/alice")).await;
    alice
        .wait("document.querySelector('#charts svg.rating-chart')", "the rating chart")
        .await;
    assert!(alice.text("#ratings").await.contains(&format!("{rating}")));
    let statistics = alice.text("#statistics").await;
    assert!(statistics.contains("4 won, 1 lost"), "{statistics}");
    assert!(statistics.contains("Met most: bob (3), carol (2)"), "{statistics}");
    let dots = alice
        .eval("document.querySelectorAll('#charts svg.rating-chart circle.dot').length")
        .await;
    assert_eq!(dots, 6);
    let points = alice
        .eval("document.querySelector('#charts polyline').getAttribute('points').split(' ').length")
        .await;
    assert_eq!(points, 6);
    alice.screenshot(&shots.join("profile.png")).await;

    // Rematch from the finished game: a new game, colours swapped, bob invited.
    alice.goto(&format!("{base}/game/{last}")).await;
    alice.click("#rematch").await;
    alice
        .wait(
            &format!("location.pathname !== '/game/{last}' && document.querySelector('#seats .seat')"),
            "the rematch's page",
        )
        .await;
    let path = alice.eval("location.pathname").await;
    let rematch: i64 = path
        .as_str()
        .and_then(|p| p.rsplit('/').next())
        .and_then(|id| id.parse().ok())
        .expect("an id");
    let (_, state) = server.get(&format!("/games/{rematch}"), None).await;
    assert_eq!(
        (state["rematch_of"].as_i64(), state["seats"][1]["player"].as_str()),
        (Some(last), Some("alice"))
    );
    assert_eq!(state["seats"][0]["invited"], "bob");
    assert!(alice.text("#actions").await.contains(&format!("Rematch of #{last}")));

    drop(browser);
    server.stop().await;
    database.remove().await;
}

/// Bob, waiting for alice, records two lines of conditional moves by
/// clicking them on the analysis board; alice's foreseen move is answered
/// at once, and bob's page shows what remains of his tree.
#[tokio::test]
async fn conditional_moves_are_recorded_on_an_analysis_board() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let base = server.base.clone();
    let shots = screenshot_dir();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    let bob = browser.page().await;
    sign_up(&alice, &base, "alice").await;
    sign_up(&bob, &base, "bob").await;
    let id = create_game(&alice, &base, "gravity", "standard", "bob").await;
    accept(&bob, &base, id).await;
    alice.goto(&format!("{base}/game/{id}")).await;

    // Alice is to move: bob's page offers the editor, alice's does not.
    bob.wait(
        "(document.querySelector('#conditional') || { hidden: true }).hidden === false",
        "the editor",
    )
    .await;
    alice
        .wait(
            "document.querySelector('#status') && document.querySelector('#conditional') \
             && document.querySelector('#status').textContent.includes('Your move')",
            "alice's turn",
        )
        .await;
    assert_eq!(
        alice.eval("document.querySelector('#conditional').hidden").await,
        serde_json::json!(true)
    );
    // Line 1: if d4 then h8, if c3 then g7. Line 2: if a8 then h1.
    for line in [&["d4", "h8", "c3", "g7"][..], &["a8", "h1"]] {
        bob.click("#conditional-record").await;
        for (index, cell) in line.iter().enumerate() {
            bob.click(&format!("#analysis-box [data-cell='{cell}']")).await;
            bob.wait(
                &format!(
                    "document.querySelector('#conditional-recording').textContent.includes('{}')",
                    if index % 2 == 0 {
                        format!("if {cell} then")
                    } else {
                        format!("then {cell}")
                    }
                ),
                "the move recorded",
            )
            .await;
        }
        if line.len() == 4 {
            bob.screenshot(&shots.join("game-conditional-recording.png")).await;
        }
        bob.click("#conditional-add").await;
        bob.wait(
            &format!(
                "document.querySelector('#conditional-lines').textContent.includes('if {} then {}')",
                line[0], line[1]
            ),
            "the line saved",
        )
        .await;
    }
    assert!(bob.text("#conditional-message").await.contains("Saved"));
    bob.screenshot(&shots.join("game-conditional.png")).await;
    let token = bob_token(&bob).await;
    let (status, tree) = server.get(&format!("/games/{id}/conditional"), Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{tree}");
    assert_eq!(
        tree["lines"],
        serde_json::json!([["d4", "h8", "c3", "g7"], ["a8", "h1"]])
    );

    // Alice plays d4: bob's h8 comes back at once, and bob's page shows
    // the rest of his line.
    alice.click("#board-box [data-cell='d4']").await;
    alice.click("#submit-move").await;
    alice
        .wait(
            "document.querySelectorAll('#moves [data-ply]').length === 2 \
             && document.querySelector('#status').textContent.includes('Your move')",
            "the reply, played for bob",
        )
        .await;
    // The reply is bob's move 2, h8, in the first round.
    let reply = alice
        .eval("document.querySelector(\"#moves [data-ply='2']\").title")
        .await;
    assert_eq!(reply.as_str(), Some("2. bob: h8"), "{reply}");
    bob.wait(
        "document.querySelector('#conditional-lines').textContent.includes('if c3 then g7') \
         && !document.querySelector('#conditional-lines').textContent.includes('a8')",
        "what remains of bob's tree",
    )
    .await;
    // Bob clears it.
    bob.click("#conditional-clear").await;
    bob.wait(
        "document.querySelectorAll('#conditional-lines li').length === 0",
        "the tree cleared",
    )
    .await;
    drop(browser);
    server.stop().await;
    database.remove().await;
}

async fn bob_token(page: &Page<'_>) -> String {
    page.eval("localStorage.getItem('tavoliere.token')")
        .await
        .as_str()
        .expect("a token")
        .to_owned()
}

/// Plays `count` legal moves through the API, each time the first legal
/// move that moves pieces (`-` in it: a Focus or Torri stack, a Vicini
/// piece) or else the first legal move, by whoever is to move.
async fn play_legal(server: &TestServer, id: i64, tokens: &[&str], count: usize) {
    for _ in 0..count {
        let (_, state) = server.get(&format!("/games/{id}"), None).await;
        let seat = state["to_move"].as_u64().expect("a seat to move") as usize;
        let (_, mine) = server.get(&format!("/games/{id}"), Some(tokens[seat])).await;
        let legal: Vec<&str> = mine["legal"]
            .as_array()
            .expect("legal moves")
            .iter()
            .filter_map(|m| m.as_str())
            .collect();
        let chosen = legal
            .iter()
            .find(|m| m.contains('-'))
            .or(legal.first())
            .expect("a legal move");
        let (status, body) = server
            .play(id, tokens[seat], chosen, mine["ply"].as_i64().unwrap_or(0))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{chosen}: {body}");
    }
}

/// Whether the page follows the player's own events (`live.js` marks the
/// body once the server acknowledged `subscribe_player`): what the test
/// does after it reaches the page live.
const FOLLOWED: &str = "document.body.dataset.playerStream === 'live'";

/// Per seat, the distinct fills of its pieces on the board and of its
/// piece in the seats' list: `[[board fills…], seat fill]`.
const SEAT_FILLS: &str = "(() => [...document.querySelectorAll('#seats .seat')].map((row) => { \
    const seat = row.dataset.seat; \
    const board = [...new Set([...document.querySelectorAll(`#board-box .piece[data-seat='${seat}']`)].map((p) => p.getAttribute('fill')))]; \
    return [board, row.querySelector('.piece').getAttribute('fill')]; }))()";

/// Every seat's pieces in one fill, the seat's own, and no two seats alike.
async fn assert_distinct_seat_colours(page: &Page<'_>, what: &str) {
    let fills = page.eval(SEAT_FILLS).await;
    let seats = fills.as_array().expect("seat fills");
    assert!(seats.len() >= 2, "{what}: {fills}");
    let mut own = Vec::new();
    for seat in seats {
        let fill = seat[1].as_str().expect("a seat fill").to_owned();
        let board = seat[0].as_array().expect("board fills");
        assert!(board.len() <= 1, "{what}: one seat drawn in two fills: {fills}");
        if let Some(on_board) = board.first() {
            assert_eq!(on_board.as_str(), Some(fill.as_str()), "{what}: {fills}");
        }
        assert!(!own.contains(&fill), "{what}: two seats drawn {fill}: {fills}");
        own.push(fill);
    }
}

/// The boards players know, in real Chromium: a live lobby and the tab
/// title's count, Pente played by clicking the intersections of a Go-like
/// board to a result summary, the analysis board, the rules page, and every
/// board kind drawn with each seat in its own colour and Focus stacks
/// readable piece by piece (screenshots, desktop and phone, of each).
#[tokio::test]
async fn every_board_is_drawn_for_its_players_in_headless_chromium() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let base = server.base.clone();
    let shots = screenshot_dir();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    let bob = browser.page().await;
    let watcher = browser.page().await;
    sign_up(&alice, &base, "alice").await;
    sign_up(&bob, &base, "bob").await;
    let alice_token = alice.eval("localStorage.getItem('tavoliere.token')").await;
    let alice_token = alice_token.as_str().expect("alice's token").to_owned();
    let bob_token = bob_token(&bob).await;

    // ---- An invitation appears in bob's open lobby, with a notice.
    bob.goto(&format!("{base}/lobby")).await;
    bob.wait("document.querySelector('#invitations h2')", "bob's lobby")
        .await;
    bob.wait(FOLLOWED, "bob's events followed").await;
    let (status, created) = server
        .create(
            &alice_token,
            serde_json::json!({ "game": "pente", "variant": "standard", "opponents": ["bob"] }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let pente = created["id"].as_i64().expect("an id");
    bob.wait(
        &format!("document.querySelector(\"#invitations [data-game='{pente}']\")"),
        "the invitation without a reload",
    )
    .await;
    bob.wait(
        "[...document.querySelectorAll('.toast')].some((t) => t.textContent.includes('invites you'))",
        "the invitation's notice",
    )
    .await;
    bob.screenshot(&shots.join("lobby-live.png")).await;
    accept(&bob, &base, pente).await;

    // ---- Pente on the points of a Go board: 19 lines each way, nine star
    // points, no squares; five in a row by clicking intersections.
    alice.goto(&format!("{base}/game/{pente}")).await;
    alice
        .wait(
            "document.querySelectorAll('#board-box svg.points .grid line').length === 38 \
             && document.querySelectorAll('#board-box .grid .star').length === 9 \
             && !document.querySelector('#board-box .ground')",
            "an intersection board",
        )
        .await;
    let white = ["k10", "k11", "k12", "k13", "k14"];
    let black = ["a1", "a2", "a3", "a4"];
    for ply in 1..=9 {
        let (mover, watching, cell) = if ply % 2 == 1 {
            (&alice, &bob, white[ply / 2])
        } else {
            (&bob, &alice, black[ply / 2 - 1])
        };
        play(mover, watching, &[cell], ply).await;
    }
    alice
        .wait(
            "!document.querySelector('#result').hidden && document.querySelector('#result').textContent.includes('You won')",
            "alice's result summary",
        )
        .await;
    bob.wait(
        "document.querySelector('#result').textContent.includes('You lost')",
        "bob's result",
    )
    .await;
    assert!(
        alice
            .eval("!!document.querySelector('#result #rematch') && !!document.querySelector('#result-record')")
            .await
            == true
    );
    assert!(alice.eval(&cell_has("k14", "white")).await == true);
    alice.screenshot(&shots.join("game-pente-won.png")).await;
    assert_distinct_seat_colours(&alice, "pente").await;
    // Moves in numbered rounds: five rounds, the last with white's move only.
    assert_eq!(
        alice
            .eval("document.querySelectorAll('#moves li[data-round]').length")
            .await,
        5
    );

    // ---- The analysis board: from move 2, play j10 locally, step back; the
    // game itself is untouched.
    alice.goto(&format!("{base}/game/{pente}?ply=2")).await;
    alice.click("#analysis summary").await;
    // The page may be drawn again when the player's event stream catches
    // up (a fresh card, closed): open it again until the board is there.
    alice
        .wait(
            "(() => { const card = document.querySelector('#analysis'); \
             if (card && !card.open) card.open = true; \
             return document.querySelector(\"#analysis-board [data-cell='j10']\"); })()",
            "the analysis board",
        )
        .await;
    alice.click("#analysis-board [data-cell='j10']").await;
    alice
        .wait(
            "document.querySelector('#analysis-line').textContent.includes('j10') && \
             (document.querySelector(\"#analysis-board [data-cell='j10']\").getAttribute('aria-label') || '').includes('white')",
            "j10 played on the analysis board",
        )
        .await;
    assert!(
        alice.eval(&cell_has("j10", "empty")).await == true,
        "the game's board is unchanged"
    );
    let (_, after) = server.get(&format!("/games/{pente}"), None).await;
    assert_eq!(after["ply"], 9, "nothing stored");
    alice.click("#analysis-reset").await;
    alice
        .wait(
            "document.querySelector('#analysis-line').textContent.includes('no moves yet') && \
             (document.querySelector(\"#analysis-board [data-cell='j10']\").getAttribute('aria-label') || '').includes('empty')",
            "the analysis reset",
        )
        .await;

    // ---- The tab title and the badge count games waiting, live.
    bob.goto(&format!("{base}/my")).await;
    bob.wait("document.querySelector('#my-turn h2')", "bob's games").await;
    bob.wait(FOLLOWED, "bob's events followed").await;
    assert!(!bob.eval("document.title").await.as_str().unwrap_or("").starts_with('('));
    let gravity = server
        .start_game("gravity", "standard", &[&alice_token, &bob_token], &["alice", "bob"])
        .await;
    let (status, body) = server.play(gravity, &alice_token, "d4", 0).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    bob.wait(
        "document.title.startsWith('(1) ') && document.querySelector('#turn-badge').textContent === '1'",
        "one game waiting in the title and the badge",
    )
    .await;
    bob.wait(
        &format!("document.querySelector(\"#my-turn [data-game='{gravity}']\")"),
        "the game listed as waiting without a reload",
    )
    .await;
    play_legal(&server, gravity, &[&alice_token, &bob_token], 1).await;

    // ---- The rules page names every variant.
    watcher.goto(&format!("{base}/rules/focus")).await;
    watcher
        .wait("document.querySelector('#variants dt')", "the variants")
        .await;
    let rules = watcher.text(".rules").await;
    for name in [
        "Two players, opening swaps",
        "Two players, no swaps",
        "Four players",
        "Four players in teams",
    ] {
        assert!(rules.contains(name), "{name} in {rules}");
    }
    assert!(!rules.contains("[object"), "{rules}");
    assert_eq!(
        watcher.eval("document.querySelectorAll('#variants dt').length").await,
        4
    );

    // ---- Every board kind, watched: desktop and phone.
    let carol = server.register("carol").await;
    let dave = server.register("dave").await;
    let two = [alice_token.as_str(), bob_token.as_str()];
    let four = [alice_token.as_str(), bob_token.as_str(), carol.as_str(), dave.as_str()];
    let names = ["alice", "bob", "carol", "dave"];
    let boards: [(&str, &str, &[&str], usize); 11] = [
        ("gravity", "standard", &two, 0),
        ("torri", "standard", &two, 4),
        ("torri", "alt", &two, 0),
        ("focus", "no-swap", &two, 6),
        ("focus", "four", &four, 6),
        ("lines-of-focus", "no-swap", &two, 6),
        ("neighbours", "standard", &two, 2),
        ("huntsmen", "standard", &two, 0),
        ("huntsmen", "eight", &two, 0),
        ("huntsmen", "hex", &two, 2),
        ("annuvin", "standard", &two, 0),
    ];
    for (game, variant, tokens, moves) in boards {
        let id = if game == "gravity" {
            gravity
        } else {
            let id = server.start_game(game, variant, tokens, &names[..tokens.len()]).await;
            play_legal(&server, id, tokens, moves).await;
            id
        };
        let (_, state) = server.get(&format!("/games/{id}"), None).await;
        let cells = state["view"]["board"]["cells"].as_array().expect("cells").len();
        watcher.set_viewport(1280, 900, false).await;
        watcher.goto(&format!("{base}/game/{id}")).await;
        watcher
            .wait(
                &format!("document.querySelectorAll('#board-box [data-cell]').length === {cells}"),
                "every cell drawn",
            )
            .await;
        let what = format!("{game} {variant}");
        assert_distinct_seat_colours(&watcher, &what).await;
        // Every stack's pieces are labelled and drawn bottom to top, one
        // band per piece (stacks up to six high).
        for cell in state["view"]["board"]["cells"].as_array().expect("cells") {
            let stack = cell["stack"].as_array().expect("a stack");
            if stack.len() < 2 || stack.len() > 6 {
                continue;
            }
            let name = cell["name"].as_str().expect("a name");
            let colours: Vec<&str> = stack
                .iter()
                .map(|s| {
                    state["seats"][s.as_u64().expect("a seat") as usize]["colour"]
                        .as_str()
                        .expect("a colour")
                })
                .collect();
            let label = format!("stack of {}, bottom to top {}", stack.len(), colours.join(", "));
            assert!(
                watcher.eval(&cell_has(name, &label)).await == true,
                "{what} {name}: {label}"
            );
            let drawn = watcher
                .eval(&format!(
                    "[...document.querySelectorAll(\"#board-box [data-cell='{name}'] .band\")].map((b) => Number(b.dataset.seat))"
                ))
                .await;
            assert_eq!(&drawn, &serde_json::Value::Array(stack.clone()), "{what} {name}");
        }
        let file = format!("board-{game}-{variant}");
        watcher.screenshot(&shots.join(format!("{file}.png"))).await;
        watcher.set_viewport(390, 844, true).await;
        watcher
            .wait(
                "document.documentElement.scrollWidth <= window.innerWidth + 1",
                "the page fits a phone",
            )
            .await;
        // One column, the board first.
        let board_first = "document.querySelector('#board-box').getBoundingClientRect().top < \
                           document.querySelector('#seats').getBoundingClientRect().top";
        assert!(
            watcher.eval(board_first).await == true,
            "{what}: the board first on a phone"
        );
        watcher.screenshot(&shots.join(format!("{file}-phone.png"))).await;
    }
    watcher.set_viewport(1280, 900, false).await;
    watcher.goto(&format!("{base}/game/{pente}")).await;
    watcher
        .wait("document.querySelector('#board-box svg.points')", "pente")
        .await;
    watcher.screenshot(&shots.join("board-pente-standard.png")).await;
    watcher.set_viewport(390, 844, true).await;
    watcher.screenshot(&shots.join("board-pente-standard-phone.png")).await;

    drop(browser);
    server.stop().await;
    database.remove().await;
}

/// Tournaments in the browser: the list, joining from it, starting, the
/// crosstable of a round robin with its results and the rounds of a Swiss.
#[tokio::test]
async fn tournaments_list_join_crosstable_and_rounds_in_headless_chromium() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let base = server.base.clone();
    let shots = screenshot_dir();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    sign_up(&alice, &base, "alice").await;
    let mut tokens = Vec::new();
    for name in ["bob", "carol", "dave"] {
        tokens.push((name, server.register(name).await));
    }
    // Alice creates a round robin from the form; the others join by the API.
    alice.goto(&format!("{base}/tournaments")).await;
    alice
        .wait("document.querySelector('#create-tournament')", "the form")
        .await;
    alice.fill("#new-tournament-name", "Winter cup").await;
    alice.select("#new-tournament-game", "gravity").await;
    alice.select("#new-tournament-format", "round_robin").await;
    alice.click("#create-tournament button[type=submit]").await;
    alice
        .wait(
            "/^\\/tournament\\/\\d+$/.test(location.pathname)",
            "the tournament's page",
        )
        .await;
    let path = alice.eval("location.pathname").await;
    let id: i64 = path
        .as_str()
        .and_then(|p| p.rsplit('/').next())
        .and_then(|id| id.parse().ok())
        .expect("a tournament id in the path");
    for (_, token) in &tokens {
        let (status, body) = server.post_empty(&format!("/tournaments/{id}/join"), Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // Alice joins from the list, then starts it from its page.
    alice.goto(&format!("{base}/tournaments")).await;
    alice
        .wait(
            &format!("document.querySelector(\"#tournament-list tr[data-tournament='{id}'] button.join\")"),
            "the Join button",
        )
        .await;
    alice
        .click(&format!("#tournament-list tr[data-tournament='{id}'] button.join"))
        .await;
    alice
        .wait("document.querySelector('#tournament-start')", "the Start button")
        .await;
    assert!(alice.text("#entrants").await.contains("alice"));
    alice.click("#tournament-start").await;
    alice
        .wait("document.querySelector('#crosstable')", "the crosstable")
        .await;
    assert_eq!(
        alice
            .eval("document.querySelectorAll('#crosstable tbody tr').length")
            .await,
        4
    );
    // Bob resigns his game against alice: the crosstable shows it.
    let (_, view) = server.get(&format!("/tournaments/{id}"), None).await;
    let pairing = view["rounds_played"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["pairings"].as_array().unwrap().clone())
        .find(|p| (p["first"] == "alice" && p["second"] == "bob") || (p["first"] == "bob" && p["second"] == "alice"))
        .expect("alice meets bob");
    let game = pairing["game"].as_i64().unwrap();
    let bob = &tokens[0].1;
    let (status, body) = server.post_empty(&format!("/games/{game}/resign"), Some(bob)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    alice.goto(&format!("{base}/tournament/{id}")).await;
    alice
        .wait("document.querySelector('#crosstable')", "the crosstable")
        .await;
    let won = alice
        .text("#crosstable tr[data-player='alice'] td[data-opponent='bob']")
        .await;
    assert_eq!(won.trim(), "1");
    let lost = alice
        .text("#crosstable tr[data-player='bob'] td[data-opponent='alice']")
        .await;
    assert_eq!(lost.trim(), "0");
    let unplayed = alice
        .text("#crosstable tr[data-player='alice'] td[data-opponent='carol']")
        .await;
    assert_eq!(unplayed.trim(), "·");
    let first = alice
        .eval("document.querySelector('.standings tbody tr').dataset.player")
        .await;
    assert_eq!(first, "alice");
    alice.screenshot(&shots.join("tournament-crosstable.png")).await;
    // A Swiss shows its rounds, with the bye of the odd one out.
    let (status, body) = server
        .post(
            "/tournaments",
            Some(bob),
            serde_json::json!({ "name": "Swiss", "game": "gravity", "format": "swiss", "rounds": 2 }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let swiss = body["id"].as_i64().unwrap();
    for (_, token) in &tokens {
        server
            .post_empty(&format!("/tournaments/{swiss}/join"), Some(token))
            .await;
    }
    let (status, body) = server
        .post_empty(&format!("/tournaments/{swiss}/start"), Some(bob))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    alice.goto(&format!("{base}/tournament/{swiss}")).await;
    alice
        .wait("document.querySelector('#rounds .round')", "the rounds")
        .await;
    assert!(alice.text("#rounds").await.contains("bye"));
    assert!(alice.text("#tournament-facts").await.contains("round 1 of 2"));
    alice.screenshot(&shots.join("tournament-swiss.png")).await;
    drop(browser);
    server.stop().await;
    database.remove().await;
}

/// A private game's creator sees its invitation link; a player who was not
/// invited opens it, sees the game and joins with one click.
#[tokio::test]
async fn a_private_games_invitation_link_lets_a_stranger_join() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let base = server.base.clone();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    let carol = browser.page().await;
    sign_up(&alice, &base, "alice").await;
    sign_up(&carol, &base, "carol").await;
    let token = bob_token(&alice).await;
    let (s, game) = server
        .create(&token, serde_json::json!({ "game": "gravity", "public": false }))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{game}");
    let id = game["id"].as_i64().expect("an id");
    // Without the code carol finds no game.
    carol.goto(&format!("{base}/game/{id}")).await;
    carol
        .wait(
            &format!("!document.querySelector('#invite-link') && document.body.textContent.includes('no game {id}')"),
            "not found",
        )
        .await;
    alice.goto(&format!("{base}/game/{id}")).await;
    alice
        .wait("document.querySelector('#invite-link a')", "the invitation link")
        .await;
    let link = alice
        .eval("document.querySelector('#invite-link a').textContent")
        .await
        .as_str()
        .expect("a link")
        .to_owned();
    assert_eq!(link, format!("{base}{}", game["invite_url"].as_str().expect("a URL")));
    carol.goto(&link).await;
    carol.wait("document.querySelector('#join')", "the join button").await;
    carol.click("#join").await;
    carol
        .wait(
            &format!("location.pathname === '/game/{id}' && location.search === '' && document.querySelector('#status') && document.querySelector('#status').textContent.length > 0 && !document.querySelector('#join')"),
            "carol seated",
        )
        .await;
    let (_, state) = server.get(&format!("/games/{id}"), Some(&token)).await;
    assert_eq!(state["status"], "active", "{state}");
    assert_eq!(state["seats"][1]["player"], "carol", "{state}");
}

/// A bot account's name carries a BOT badge: a built-in bot at its seat in
/// a game, in my games list and on its profile.
#[tokio::test]
async fn a_bot_shows_a_bot_badge_by_its_name_in_headless_chromium() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let base = server.base.clone();
    let shots = screenshot_dir();
    let browser = Browser::launch().await;
    let alice = browser.page().await;
    sign_up(&alice, &base, "alice").await;
    let id = create_game(&alice, &base, "gravity", "standard", "bot-beginner").await;
    alice
        .wait(
            "document.querySelector(\".seat[data-seat='1'] .bot-badge\") && !document.querySelector(\".seat[data-seat='0'] .bot-badge\")",
            "the bot's badge at its seat, none at mine",
        )
        .await;
    assert_eq!(alice.text(".seat[data-seat='1'] .bot-badge").await, "BOT");
    alice.screenshot(&shots.join("game-against-bot.png")).await;
    alice.goto(&format!("{base}/my")).await;
    alice
        .wait(
            &format!("document.querySelector(\"[data-game='{id}'] .bot-badge\")"),
            "the badge in my games",
        )
        .await;
    alice.goto(&format!("{base}/player/bot-beginner")).await;
    alice
        .wait("document.querySelector('h1 .bot-badge')", "the badge on the profile")
        .await;
    alice.screenshot(&shots.join("profile-bot.png")).await;
    alice.goto(&format!("{base}/player/alice")).await;
    alice
        .wait(
            "document.querySelector('h1')?.textContent === 'alice'",
            "a person's profile, no badge",
        )
        .await;
    drop(browser);
    server.stop().await;
    database.remove().await;
}
