//! The web client: how its files are served, and end-to-end play in
//! headless Chromium against the real server — two players in two browser
//! contexts sign up, create and join games and play by clicking cells, a
//! spectator without an account watches. Screenshots of the main pages go
//! to `$CARGO_TARGET_DIR/web-screenshots/` (or `target/web-screenshots/`).

mod browser;
mod common;

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
                 && document.querySelectorAll('#moves li').length === {}",
                ply - 1
            ),
            "my turn",
        )
        .await;
    for cell in cells {
        mover.click(&format!("#board-box [data-cell='{cell}']")).await;
    }
    let moved = format!("document.querySelectorAll('#moves li').length === {}", ply);
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

    play(&alice, &bob, &["d4"], 1).await;
    // The piece fell to a1; the last move is marked; keyboard and text work.
    bob.wait(&cell_has("a1", "yellow, last move"), "the piece on a1, marked")
        .await;
    spectator
        .wait(
            "document.querySelectorAll('#moves li').length === 1",
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
    bob.wait(
        "document.querySelectorAll('#moves li').length === 2",
        "bob's keyboard move",
    )
    .await;
    alice
        .wait(
            "document.querySelectorAll('#moves li').length === 2",
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
    alice
        .wait(
            "document.querySelectorAll('#moves li').length === 5",
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
    alice
        .wait(
            "document.querySelectorAll('#moves li').length === 2",
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
    alice
        .wait(
            "document.querySelectorAll('#moves li').length === 2 \
             && document.querySelector('#status').textContent.includes('Your move')",
            "the reply, played for bob",
        )
        .await;
    assert!(alice.text("#moves").await.contains("bob: h8"));
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
