//! Play by mail against the real server: a raw SMTP client mails the
//! server's listener, a real SMTP receiver on 127.0.0.1 collects what the
//! server sends (replies and board mails), on SQLite or PostgreSQL.

use crate::common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use common::smtp::{mail, smtp_receiver, unquote, Mails, SmtpClient};
use common::{until, Database, TestServer};
use reqwest::StatusCode;
use serde_json::{json, Value};
use tavoliere::Config;

const DOMAIN: &str = "tavoliere.test";

/// A received mail: envelope recipients, headers (unfolded) and body.
#[derive(Clone, Debug)]
struct Received {
    to: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The bare address of `Reply-To:`.
    fn reply_to(&self) -> String {
        let value = self.header("Reply-To").expect("a Reply-To header");
        let value = value.rsplit('<').next().unwrap_or(value);
        value.trim_end_matches('>').trim().to_owned()
    }
}

fn parse(mail: &(Vec<String>, String)) -> Received {
    let (head, body) = mail.1.split_once("\n\n").unwrap_or((&mail.1, ""));
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in head.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.to_owned(), value.trim().to_owned()));
        }
    }
    Received {
        to: mail.0.get(1).cloned().unwrap_or_default(),
        headers,
        body: unquote(body),
    }
}

/// The server with play by mail on, a receiver for what it sends, and the
/// listener's address.
struct World {
    database: Database,
    server: TestServer,
    received: Mails,
    smtp: SocketAddr,
}

fn mail_config(database: &Database, port: u16) -> Config {
    let mut config = Config::with_database(&database.url);
    config.notify.smtp_host = Some("127.0.0.1".to_owned());
    config.notify.smtp_port = Some(port);
    config.notify.smtp_security = tavoliere::notify::SmtpSecurity::None;
    config.notify.notify_interval_ms = 25;
    config.notify.mail_from = format!("Tavoliere <games@{DOMAIN}>");
    config.notify.base_url = format!("https://{DOMAIN}");
    config.mail.mail_poll_ms = 50;
    config
}

async fn world_with(tune: impl FnOnce(&mut Config)) -> World {
    let database = Database::new().await;
    let (port, received) = smtp_receiver().await;
    let mut config = mail_config(&database, port);
    tune(&mut config);
    World::on(TestServer::start_with_mail(config).await, database, received)
}

async fn world() -> World {
    world_with(|_| {}).await
}

impl World {
    fn on(server: TestServer, database: Database, received: Mails) -> World {
        World {
            smtp: server.mail.expect("the SMTP listener"),
            server,
            received,
            database,
        }
    }

    async fn end(self) {
        self.server.stop().await;
        self.database.remove().await;
    }

    async fn register(&self, name: &str) -> String {
        self.server.register_with_email(name).await
    }

    async fn mail_address(&self, token: &str) -> String {
        let (status, me) = self.server.get("/players/me", Some(token)).await;
        assert_eq!(status, StatusCode::OK, "{me}");
        me["mail_address"].as_str().expect("a mail address").to_owned()
    }

    /// Mails `body` from `name@example.org` to `to`; the final SMTP code.
    async fn send(&self, name: &str, to: &str, subject: &str, body: &str) -> (u16, String) {
        let id = next_id();
        let message = message(&format!("{name}@example.org"), to, subject, &id, body);
        (
            mail(self.smtp, &format!("{name}@example.org"), &[to], &message).await,
            id,
        )
    }

    /// All mails to `name` so far, parsed.
    fn mails_to(&self, name: &str) -> Vec<Received> {
        let address = format!("<{name}@example.org>");
        self.received
            .lock()
            .unwrap()
            .iter()
            .map(parse)
            .filter(|m| m.to.contains(&address))
            .collect()
    }

    /// The reply to the mail `id` (its `In-Reply-To`).
    async fn reply(&self, name: &str, id: &str) -> Received {
        let wanted = format!("<{id}>");
        let mut found = None;
        until(&format!("the reply to {id}"), || {
            found = self
                .mails_to(name)
                .into_iter()
                .find(|m| m.header("In-Reply-To") == Some(wanted.as_str()));
            let done = found.is_some();
            async move { done }
        })
        .await;
        found.expect("the reply")
    }

    /// The first mail to `name` whose body contains `text`.
    async fn mail_with(&self, name: &str, text: &str) -> Received {
        let mut found = None;
        until(&format!("a mail to {name} with {text:?}"), || {
            found = self.mails_to(name).into_iter().find(|m| m.body.contains(text));
            let done = found.is_some();
            async move { done }
        })
        .await;
        found.expect("the mail")
    }

    async fn state(&self, id: i64) -> Value {
        let (status, body) = self.server.get(&format!("/games/{id}"), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body
    }

    async fn board(&self, id: i64) -> String {
        self.server.get_text(&format!("/games/{id}/board.txt"), None).await.2
    }
}

static IDS: AtomicU64 = AtomicU64::new(0);

fn next_id() -> String {
    format!(
        "{}.{}@client.test",
        std::process::id(),
        IDS.fetch_add(1, Ordering::Relaxed)
    )
}

fn message(from: &str, to: &str, subject: &str, id: &str, body: &str) -> String {
    format!("From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\r\n{body}\r\n")
}

/// A reply a mail client would write: the answer, then the quoted board.
fn quoting(answer: &str, board: &Received) -> String {
    let quoted: String = board.body.lines().map(|l| format!("> {l}\n")).collect();
    format!("{answer}\n\nOn Tuesday, Tavoliere wrote:\n{quoted}")
}

/// The game id a challenge reply names (`New game #12`).
fn new_game(reply: &Received) -> i64 {
    let rest = reply.body.split("New game #").nth(1).expect("a new game");
    rest.split(':').next().unwrap().parse().expect("a game id")
}

#[tokio::test]
async fn a_whole_gravity_game_by_mail_one_player_by_reply_the_other_by_commands() {
    let w = world().await;
    let alice = w.register("alice").await;
    w.register("bob").await;
    let alice_address = w.mail_address(&alice).await;
    assert!(
        alice_address.starts_with("alice.") && alice_address.ends_with(&format!("@{DOMAIN}")),
        "{alice_address}"
    );

    // Alice challenges Bob by mail; Bob accepts by replying to the invitation.
    let (code, id) = w
        .send("alice", &alice_address, "new game", "challenge bob gravity")
        .await;
    assert_eq!(code, 250);
    let reply = w.reply("alice", &id).await;
    assert_eq!(reply.header("Subject"), Some("Re: new game"));
    assert!(reply
        .header("Content-Type")
        .unwrap()
        .contains("text/plain; charset=utf-8"));
    let game = new_game(&reply);
    let invitation = w.mail_with("bob", "invites you").await;
    let token = invitation.reply_to();
    assert!(token.starts_with(&format!("play-{game}-")), "{token}");
    let (code, id) = w
        .send("bob", &token, "Re: invitation", &quoting("accept", &invitation))
        .await;
    assert_eq!(code, 250);
    let reply = w.reply("bob", &id).await;
    assert!(reply.body.contains("> accept\n"), "{}", reply.body);
    assert!(
        reply.body.contains("You joined.\n\nForza 4 Centrifuga #")
            && reply.body.contains("It is alice's turn (move 1)."),
        "{}",
        reply.body
    );
    assert_eq!(w.state(game).await["status"], "active");

    // Yellow (Alice) builds a1-a4 by commands; Red (Bob) answers each board
    // mailed to him by replying with his move.
    let alice_moves = ["a1", "a2", "a3", "a4"];
    let bob_moves = ["h8", "h7", "h6"];
    for (turn, mv) in alice_moves.iter().enumerate() {
        let ply = 2 * turn;
        let body = if turn == 0 {
            format!("move {game} {mv} #{ply}\nA classical start.\nYour move, Bob.")
        } else {
            format!("move #{game} {mv}")
        };
        let (code, id) = w.send("alice", &alice_address, "my move", &body).await;
        assert_eq!(code, 250);
        let reply = w.reply("alice", &id).await;
        assert!(reply.body.contains(&format!("You played {mv} ")), "{}", reply.body);
        let board = w.board(game).await;
        assert!(
            reply.body.contains(board.trim_end()),
            "the board in the reply:\n{}",
            reply.body
        );
        let Some(answer) = bob_moves.get(turn) else {
            assert!(reply.body.contains("The game is over: alice won"), "{}", reply.body);
            break;
        };
        assert!(reply.body.contains("It is bob's turn"), "{}", reply.body);
        let board_mail = w.mail_with("bob", &format!("(move {})", ply + 2)).await;
        if turn == 0 {
            assert!(
                board_mail.body.contains("> A classical start.\n> Your move, Bob."),
                "{}",
                board_mail.body
            );
        }
        let (code, id) = w
            .send(
                "bob",
                &board_mail.reply_to(),
                "Re: your turn",
                &quoting(answer, &board_mail),
            )
            .await;
        assert_eq!(code, 250);
        let reply = w.reply("bob", &id).await;
        assert!(
            reply.body.contains(&format!("(move #{game} {answer} #{})", ply + 1)),
            "{}",
            reply.body
        );
        assert!(reply.body.contains(&format!("You played {answer} ")), "{}", reply.body);
        assert!(reply.body.contains("It is alice's turn"), "{}", reply.body);
    }
    let state = w.state(game).await;
    assert_eq!(state["status"], "finished", "{state}");
    assert_eq!(state["outcome"]["winners"], json!([0]), "{state}");
    let (_, history) = w.server.get(&format!("/games/{game}/moves"), None).await;
    let moves = history["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 7, "{history}");
    assert_eq!(moves[0]["message"], "A classical start.\nYour move, Bob.", "{history}");
    w.end().await;
}

/// A started Gravity game between alice and bob (who both have email).
async fn started(w: &World) -> (i64, String, String) {
    let alice = w.register("alice").await;
    let bob = w.register("bob").await;
    let game = w
        .server
        .start_game("gravity", "standard", &[&alice, &bob], &["alice", "bob"])
        .await;
    (game, alice, bob)
}

#[tokio::test]
async fn refusals_name_the_reason_change_nothing_and_leave_the_good_lines() {
    let w = world().await;
    let (game, alice, bob) = started(&w).await;
    let bob_address = w.mail_address(&bob).await;
    w.server.play(game, &alice, "a1", 0).await;
    let first_board = w.mail_with("bob", "(move 2)").await;

    // An illegal move (the rules' reason), a stale #ply (the board now),
    // a line that is no command's syntax, then a good move: each alone.
    let body = format!("move {game} a1\nmove {game} h8 #0\ndraw {game} perhaps\nmove {game} h8 #1\n");
    let (_, id) = w.send("bob", &bob_address, "moves", &body).await;
    let reply = w.reply("bob", &id).await;
    let text = &reply.body;
    assert!(
        text.contains(&format!("> move {game} a1\nRefused: a1 is occupied.")),
        "{text}"
    );
    assert!(
        text.contains("Refused: your mail answered the board at ply 0, but the game is at ply 1 now"),
        "{text}"
    );
    assert!(text.contains("Refused: write it as: draw <game> yes|no."), "{text}");
    assert!(text.contains("You played h8 "), "{text}");
    assert!(text.contains("3 lines were refused and changed nothing"), "{text}");
    assert_eq!(w.state(game).await["ply"], 2);

    // A reply to the board of ply 1, now stale: refused with the board now.
    let (_, id) = w.send("bob", &first_board.reply_to(), "Re: your turn", "h7").await;
    let reply = w.reply("bob", &id).await;
    assert!(
        reply.body.contains("but the game is at ply 2 now; nothing was played"),
        "{}",
        reply.body
    );
    assert!(reply.body.contains(w.board(game).await.trim_end()), "{}", reply.body);
    assert_eq!(w.state(game).await["ply"], 2);

    // Not a player's turn, a game that does not exist, an empty mail.
    let (_, id) = w
        .send("bob", &bob_address, "", &format!("move {game} h7\nboard 999\n"))
        .await;
    let reply = w.reply("bob", &id).await;
    assert!(reply.body.contains("Refused: it is not your turn."), "{}", reply.body);
    assert!(reply.body.contains("Refused: no game 999."), "{}", reply.body);
    let (_, id) = w.send("bob", &bob_address, "hello", "Just saying hello.").await;
    let reply = w.reply("bob", &id).await;
    assert!(reply.body.contains("Your mail had no command in it"), "{}", reply.body);
    w.end().await;
}

#[tokio::test]
async fn strangers_forgers_relays_and_duplicates_are_refused_or_ignored() {
    let w = world().await;
    let (game, alice, bob) = started(&w).await;
    let alice_address = w.mail_address(&alice).await;
    let bob_address = w.mail_address(&bob).await;

    // Relaying: 550 at RCPT, for any other domain.
    let code = mail(
        w.smtp,
        "alice@example.org",
        &["carol@example.org"],
        "Subject: x\r\n\r\nhi",
    )
    .await;
    assert_eq!(code, 550);
    // A forged token (Bob's id, a made-up MAC) and an unknown address: 550.
    let forged = format!("play-{game}-2-0-{}@{DOMAIN}", "ab".repeat(12));
    let code = mail(w.smtp, "bob@example.org", &[&forged], "Subject: x\r\n\r\nh8").await;
    assert_eq!(code, 550);
    let code = mail(
        w.smtp,
        "bob@example.org",
        &[&format!("bob.0000@{DOMAIN}")],
        "Subject: x\r\n\r\nh8",
    )
    .await;
    assert_eq!(code, 550);

    // A stranger writing to Alice's secret address: stored, never answered.
    let stranger = message(
        "mallory@evil.test",
        &alice_address,
        "x",
        &next_id(),
        &format!("move {game} a1"),
    );
    assert_eq!(
        mail(w.smtp, "mallory@evil.test", &[&alice_address], &stranger).await,
        250
    );
    // The same message delivered twice is played once.
    let id = next_id();
    let twice = message(
        "alice@example.org",
        &alice_address,
        "move",
        &id,
        &format!("move {game} a2"),
    );
    assert_eq!(mail(w.smtp, "alice@example.org", &[&alice_address], &twice).await, 250);
    assert_eq!(mail(w.smtp, "alice@example.org", &[&alice_address], &twice).await, 250);
    // Alice's mails run in arrival order: once her marker is answered,
    // everything before it was processed.
    let (_, marker) = w.send("alice", &alice_address, "marker", "games").await;
    let reply = w.reply("alice", &marker).await;
    assert!(
        reply.body.contains(&format!(
            "#{game} Forza 4 Centrifuga with bob: It is bob's turn (move 2)."
        )),
        "{}",
        reply.body
    );
    let (_, moves) = w.server.get(&format!("/games/{game}/moves"), None).await;
    let moves = moves["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 1, "played once, and not the stranger's: {moves:?}");
    assert_eq!(moves[0]["move"], "a2");
    let replies = w
        .mails_to("alice")
        .into_iter()
        .filter(|m| m.header("In-Reply-To").is_some())
        .count();
    assert_eq!(replies, 2, "one reply to the move, one to the marker");
    let all: Vec<String> = w.received.lock().unwrap().iter().map(|m| m.0.join(" ")).collect();
    assert!(
        all.iter().all(|e| !e.contains("evil.test")),
        "nothing to the stranger: {all:?}"
    );

    // A new command address: the old one is refused from then on.
    let (status, me) = w.server.post_empty("/players/me/mail-address", Some(&bob)).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    let fresh = me["mail_address"].as_str().unwrap().to_owned();
    assert_ne!(fresh, bob_address);
    assert_eq!(
        mail(w.smtp, "bob@example.org", &[&bob_address], "Subject: x\r\n\r\ngames").await,
        550
    );
    let (code, id) = w.send("bob", &fresh, "games", "games").await;
    assert_eq!(code, 250);
    w.reply("bob", &id).await;
    w.end().await;
}

#[tokio::test]
async fn the_listener_keeps_its_limits() {
    let w = world_with(|config| {
        config.mail.mail_max_size = 8 * 1024;
        config.mail.mail_max_recipients = 2;
        config.mail.mail_max_sessions = 2;
        config.mail.mail_idle_timeout = 1;
    })
    .await;
    let alice = w.register("alice").await;
    let address = w.mail_address(&alice).await;

    // Too big: announced (SIZE=) or sent, 552, and nothing kept.
    let mut client = SmtpClient::connect(w.smtp).await;
    let (code, ehlo) = client.command("EHLO client.test").await;
    assert_eq!(code, 250);
    assert!(ehlo.contains("SIZE 8192"), "{ehlo}");
    let (code, _) = client.command("MAIL FROM:<alice@example.org> SIZE=100000").await;
    assert_eq!(code, 552);
    let big = format!("Subject: big\r\n\r\ngames\r\n{}", "x".repeat(100).repeat(200));
    assert_eq!(client.send("alice@example.org", &[&address], &big).await, 552);
    // The session goes on after a refusal; the recipient cap says 452.
    let (code, _) = client.command("MAIL FROM:<alice@example.org>").await;
    assert_eq!(code, 250);
    for _ in 0..2 {
        assert_eq!(client.command(&format!("RCPT TO:<{address}>")).await.0, 250);
    }
    assert_eq!(client.command(&format!("RCPT TO:<{address}>")).await.0, 452);
    assert_eq!(client.command("RSET").await.0, 250);
    // Garbage and over-long lines are refused, not fatal.
    assert_eq!(client.command("FROBNICATE").await.0, 500);
    assert_eq!(client.command(&format!("NOOP {}", "y".repeat(5000))).await.0, 500);
    assert_eq!(client.raw(b"\xff\xfe\r\n").await.0, 500);
    assert_eq!(client.command("DATA").await.0, 503);
    assert_eq!(client.command("NOOP").await.0, 250);

    // A third session at once is turned away; a silent one is closed.
    let mut second = SmtpClient::connect(w.smtp).await;
    let line = SmtpClient::greeting(w.smtp).await;
    assert!(line.starts_with("421"), "{line}");
    let (code, text) = second.response().await;
    assert_eq!(code, 421, "the idle session is closed: {text}");
    assert!(second.closed().await);
    drop(client);

    // Nothing of all this was stored: Alice's next mail is the first reply.
    let (_, id) = w.send("alice", &address, "games", "games").await;
    w.reply("alice", &id).await;
    let replies = w
        .mails_to("alice")
        .into_iter()
        .filter(|m| m.header("In-Reply-To").is_some())
        .count();
    assert_eq!(replies, 1);
    w.end().await;
}

/// One address cannot take every place, and a busy session cannot keep
/// its place for ever: bytes trickling in reset the idle timer, not the
/// lifetime.
#[tokio::test]
async fn a_session_has_a_lifetime_and_an_address_its_share() {
    let w = world_with(|config| {
        config.mail.mail_max_sessions = 10;
        config.mail.mail_max_sessions_per_address = 1;
        config.mail.mail_session_lifetime = 2;
        config.mail.mail_idle_timeout = 60;
    })
    .await;
    let mut busy = SmtpClient::connect(w.smtp).await;
    assert_eq!(busy.command("EHLO client.test").await.0, 250);
    // A second session from the same address is turned away at once.
    let line = SmtpClient::greeting(w.smtp).await;
    assert!(line.starts_with("421 4.7.0"), "{line}");

    // A byte at a time, never a whole line: never idle, never done.
    let started = std::time::Instant::now();
    let (code, text) = loop {
        if let Ok(spoken) = tokio::time::timeout(Duration::from_millis(300), busy.response()).await {
            break spoken;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the session outlived its lifetime"
        );
        busy.write(b"x").await;
    };
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "closed after {:?}",
        started.elapsed()
    );
    assert_eq!(code, 421, "{text}");
    assert!(text.contains("too long"), "{text}");
    assert!(busy.closed().await);
    // Its place is given back: the address may open a session again.
    let mut again = SmtpClient::connect(w.smtp).await;
    assert_eq!(again.command("NOOP").await.0, 250);
    drop(again);
    w.end().await;
}

#[tokio::test]
async fn hostile_mail_gets_a_clear_answer() {
    let w = world().await;
    let (game, alice, bob) = started(&w).await;
    let address = w.mail_address(&alice).await;
    let from = "alice@example.org";

    // Base64 and a Latin-1 chat, no Message-ID: decoded and answered.
    let base64 = format!(
        "From: {from}\r\nSubject: b64\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{}\r\n",
        encode_base64(
            &format!("chat {game} caff\u{e8}")
                .chars()
                .map(|c| c as u8)
                .collect::<Vec<u8>>()
        )
    );
    assert_eq!(mail(w.smtp, from, &[&address], &base64).await, 250);
    let reply = w.mail_with("alice", "Sent to the players.").await;
    assert!(
        reply.body.contains(&format!("> chat {game} caff\u{e8}")),
        "{}",
        reply.body
    );
    assert_eq!(reply.header("In-Reply-To"), None, "no Message-ID to answer");

    // HTML only, with an attachment: its text is read, the attachment not.
    let html = format!(
        "From: {from}\r\nMessage-ID: <{id}>\r\nSubject: html\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n\
         --B\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>move {game} a1</p><p>Un saluto!</p>\r\n\
         --B\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=x.bin\r\n\
         Content-Transfer-Encoding: base64\r\n\r\nAAECAwQ=\r\n--B--\r\n",
        id = next_id()
    );
    assert_eq!(mail(w.smtp, from, &[&address], &html).await, 250);
    w.mail_with("alice", "You played a1 ").await;

    // Not UTF-8 at all, and a thousand commands: one line about the rest.
    let mut bytes = format!("From: {from}\r\nSubject: junk\r\nMessage-ID: <{}>\r\n\r\n", next_id()).into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\xfd garbage\r\n");
    bytes.extend(format!("board {game}\r\n").repeat(1000).into_bytes());
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    assert_eq!(mail(w.smtp, from, &[&address], &raw).await, 250);
    let reply = w.mail_with("alice", "Only the first 50 commands").await;
    assert!(reply.body.contains("950 lines were not run"), "{}", reply.body);

    // A token for a game that has ended: the reason, nothing else.
    w.server.post_empty(&format!("/games/{game}/resign"), Some(&bob)).await;
    let board = w.mail_with("alice", "is over").await;
    let (_, id) = w.send("alice", &board.reply_to(), "Re: over", "a2").await;
    let reply = w.reply("alice", &id).await;
    assert!(
        reply.body.contains(&format!("Refused: game {game} is finished")),
        "{}",
        reply.body
    );
    assert_eq!(w.state(game).await["ply"], 1);
    w.end().await;
}

fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn a_mail_stored_before_a_crash_is_played_once_after_the_restart() {
    let database = Database::new().await;
    let (port, received) = smtp_receiver().await;
    let mut config = mail_config(&database, port);
    // The inbox holds mail back: the server stops between 250 and processing.
    config.mail.mail_process_delay_ms = 3_600_000;
    let w = World::on(TestServer::start_with_mail(config).await, database, received);
    let (game, alice, _) = started(&w).await;
    let address = w.mail_address(&alice).await;
    let (code, id) = w.send("alice", &address, "move", &format!("move {game} a1")).await;
    assert_eq!(code, 250, "stored");
    assert_eq!(w.state(game).await["ply"], 0, "not yet processed");
    let World {
        database,
        server,
        received,
        ..
    } = w;
    server.stop().await;

    let w = World::on(
        TestServer::start_with_mail(mail_config(&database, port)).await,
        database,
        received,
    );
    let reply = w.reply("alice", &id).await;
    assert!(reply.body.contains("You played a1 "), "{}", reply.body);
    let (_, marker) = w.send("alice", &address, "games", "games").await;
    w.reply("alice", &marker).await;
    let (_, moves) = w.server.get(&format!("/games/{game}/moves"), None).await;
    assert_eq!(moves["moves"].as_array().unwrap().len(), 1, "{moves}");
    let replies = w
        .mails_to("alice")
        .into_iter()
        .filter(|m| m.header("In-Reply-To").is_some())
        .count();
    assert_eq!(replies, 2, "one reply each");
    w.end().await;
}

#[tokio::test]
async fn a_browser_player_sees_the_mailed_move_live() {
    let w = world().await;
    let (game, alice, bob) = started(&w).await;
    let address = w.mail_address(&alice).await;
    let mut socket = common::connect(&w.server, Some(&bob)).await;
    socket.subscribe(game, None).await;

    let (_, id) = w
        .send("alice", &address, "move", &format!("move {game} a1\nFrom my mailbox."))
        .await;
    let event = socket.move_event(1).await;
    assert_eq!(event["data"]["move"], "a1", "{event}");
    assert_eq!(event["data"]["message"], "From my mailbox.", "{event}");
    w.reply("alice", &id).await;

    // Bob answers in the browser; Alice's board mail comes with a token.
    let (status, body) = w.server.play(game, &bob, "h8", 1).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let board = w.mail_with("alice", "(move 3)").await;
    let (_, id) = w.send("alice", &board.reply_to(), "Re: your turn", "a2").await;
    let event = socket.move_event(3).await;
    assert_eq!(event["data"]["move"], "a2", "{event}");
    let reply = w.reply("alice", &id).await;
    assert!(reply.body.contains("It is bob's turn (move 4)."), "{}", reply.body);
    socket.close().await;
    w.end().await;
}

#[tokio::test]
async fn without_the_mail_door_there_is_no_mail_address() {
    let database = Database::new().await;
    let server = TestServer::start(&database).await;
    let token = server.register("alice").await;
    let (_, me) = server.get("/players/me", Some(&token)).await;
    assert!(me["mail_address"].is_null(), "{me}");
    let (status, body) = server.post_empty("/players/me/mail-address", Some(&token)).await;
    common::assert_error(status, &body, StatusCode::NOT_FOUND, "not_found");
    common::teardown(database, server).await;
}

#[tokio::test]
async fn queued_lines_are_conditional_moves_played_for_the_player() {
    let w = world().await;
    let (game, alice, bob) = started(&w).await;
    let bob_address = w.mail_address(&bob).await;
    // Alice is to move. Bob queues two lines, then one the rules refuse.
    let body = format!("queue {game} a1 h8\nqueue {game} b1 g8\nqueue {game} c1 zz\nqueue {game}\n");
    let (_, id) = w.send("bob", &bob_address, "if then", &body).await;
    let reply = w.reply("bob", &id).await;
    let text = &reply.body;
    assert!(text.contains("if a1 then h8"), "{text}");
    assert!(text.contains("if b1 then g8"), "{text}");
    assert!(
        text.contains(&format!("> queue {game} c1 zz\nRefused: line 3, ply ")),
        "{text}"
    );
    assert!(text.contains("1 line was refused and changed nothing"), "{text}");
    let (status, tree) = w.server.get(&format!("/games/{game}/conditional"), Some(&bob)).await;
    assert_eq!(status, StatusCode::OK, "{tree}");
    let lines = tree["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 2, "{tree}");
    assert!(lines.contains(&json!(["a1", "h8"])), "{tree}");
    assert!(lines.contains(&json!(["b1", "g8"])), "{tree}");

    // Alice plays a1 in the browser's way, over HTTP: bob's h8 answers at once.
    let (status, answer) = w.server.play(game, &alice, "a1", 0).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let state = w.state(game).await;
    assert_eq!(state["ply"], 2, "{state}");
    let (_, moves) = w.server.get(&format!("/games/{game}/moves"), None).await;
    assert_eq!(moves["moves"][1]["move"], "h8", "{moves}");
    assert_eq!(moves["moves"][1]["player"], "bob", "{moves}");

    // The tree is played out; `queue <game> clear` on nothing is no error.
    let (_, id) = w
        .send(
            "bob",
            &bob_address,
            "clear",
            &format!("queue {game} clear\nqueue {game}\n"),
        )
        .await;
    let reply = w.reply("bob", &id).await;
    assert!(
        reply.body.contains("Your conditional moves are cleared."),
        "{}",
        reply.body
    );
    assert!(
        reply
            .body
            .contains(&format!("You have no conditional moves in #{game}.")),
        "{}",
        reply.body
    );
    w.end().await;
}

/// The per-player write limit holds by mail as on HTTP and WebSocket: a
/// mail of more chat lines than the burst gets the rest refused.
#[tokio::test]
async fn a_players_writes_are_limited_by_mail_too() {
    let database = Database::new().await;
    let (port, received) = smtp_receiver().await;
    let config = mail_config(&database, port);
    let w = World::on(TestServer::start_guarded_with_mail(config).await, database, received);
    let (game, _alice, bob) = started(&w).await;
    let bob_address = w.mail_address(&bob).await;
    let body: String = (0..45).map(|i| format!("chat {game} line {i}\n")).collect();
    let (_, id) = w.send("bob", &bob_address, "chatty", &body).await;
    let reply = w.reply("bob", &id).await;
    assert!(
        reply.body.contains("Refused: too many actions; try again in"),
        "{}",
        reply.body
    );
    let (_, events) = w.server.get(&format!("/games/{game}/events"), None).await;
    let chats = events["events"]
        .as_array()
        .map(|e| e.iter().filter(|e| e["kind"] == "chat").count())
        .unwrap_or_default();
    assert!((29..45).contains(&chats), "{chats} chats stored");
    w.end().await;
}
