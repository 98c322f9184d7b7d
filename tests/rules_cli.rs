//! `tavoliere rules`, driven like a bot author would: one request line in,
//! one answer line out, at once, for as long as the session lasts.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};
use tavoliere::rules::AnyGame;

struct Session {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Session {
    fn start() -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tavoliere"))
            .arg("rules")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start tavoliere rules");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Session { child, input, output }
    }

    /// Sends one line and waits for its answer: only works if every answer
    /// is flushed as soon as it is written.
    fn ask_raw(&mut self, line: &str) -> Value {
        self.input.write_all(line.as_bytes()).expect("write");
        self.input.write_all(b"\n").expect("write");
        self.input.flush().expect("flush");
        let mut answer = String::new();
        self.output.read_line(&mut answer).expect("read");
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{answer:?}: {e}"))
    }

    fn ask(&mut self, request: Value) -> Value {
        self.ask_raw(&request.to_string())
    }

    fn finish(mut self) {
        drop(self.input);
        let status = self.child.wait().expect("wait");
        assert!(status.success());
    }
}

#[test]
fn answers_the_seed_gravity_game() {
    let mut session = Session::start();
    let moves = ["e2", "h4", "e2", "g4", "e3", "f4", "e4", "e4", "f2", "g1", "e4"];
    let answer = session.ask(json!({"game": "gravity", "moves": moves}));
    assert_eq!(answer["status"], "active");
    assert_eq!(answer["to_move"], 1);
    assert_eq!(answer["winners"], Value::Null);
    assert!(answer["legal"].as_array().expect("legal").iter().any(|m| m == "e4"));
    let mut moves = moves.to_vec();
    moves.push("E4");
    let answer = session.ask(json!({"game": "gravity", "variant": "standard", "moves": moves}));
    assert_eq!(
        answer,
        json!({"status": "finished", "to_move": null, "legal": [], "winners": [1], "reason": "4 in a row"})
    );
    session.finish();
}

#[test]
fn refusals_name_the_problem_and_the_first_bad_move() {
    let mut session = Session::start();
    let answer = session.ask(json!({"game": "gravity", "moves": ["a5", "b3", "a5", "zz"]}));
    assert_eq!(answer, json!({"error": "a5 is occupied", "index": 2}));
    let answer = session.ask(json!({"game": "gravity", "moves": ["a5", "q9"]}));
    assert_eq!(answer["index"], 1);
    assert!(answer["error"].as_str().expect("error").contains("q9"), "{answer}");
    let answer = session.ask(json!({"game": "chess"}));
    assert_eq!(answer["index"], Value::Null);
    assert!(answer["error"].as_str().expect("error").contains("chess"));
    let answer = session.ask(json!({"game": "gravity", "variant": "tiny"}));
    assert_eq!(answer["index"], Value::Null);
    assert!(answer["error"].as_str().expect("error").contains("tiny"));
    for junk in [
        "not json",
        "[]",
        "{\"game\": 3}",
        "{\"game\":\"gravity\",\"moves\":\"e4\"}",
        "\u{0}",
    ] {
        let answer = session.ask_raw(junk);
        assert_eq!(answer["index"], Value::Null, "{junk}");
        assert!(answer["error"].is_string(), "{junk}");
    }
    // A line longer than the limit is refused, and the session goes on.
    let long = format!("{{\"game\":\"{}\"}}", "x".repeat(tavoliere::cli::rules::MAX_LINE + 10));
    assert!(session.ask_raw(&long)["error"]
        .as_str()
        .expect("error")
        .contains("longer"));
    assert_eq!(session.ask(json!({"game": "gravity"}))["status"], "active");
    session.finish();
}

#[test]
fn every_catalogue_variant_answers_from_its_start() {
    let mut session = Session::start();
    for game in tavoliere::rules::catalogue::GAMES {
        for variant in game.variants {
            let answer = session.ask(json!({"game": game.slug, "variant": variant.slug, "moves": []}));
            assert_eq!(answer["status"], "active", "{}/{}", game.slug, variant.slug);
            assert_eq!(answer["to_move"], 0);
            assert!(!answer["legal"].as_array().expect("legal").is_empty());
        }
    }
    session.finish();
}

/// What the rules library says of a position, as the session should answer
/// it: built from the library's primitives, not from the session's code.
fn standing(position: &AnyGame) -> Value {
    let outcome = position.outcome();
    let mut expected = json!({
        "status": if outcome.is_some() { "finished" } else { "active" },
        "to_move": position.to_move(),
        "legal": position.legal_moves(),
        "winners": outcome.map(|o| o.winners),
    });
    if let Some(outcome) = outcome {
        expected["reason"] = json!(outcome.reason);
    }
    expected
}

#[test]
fn holds_up_to_thousands_of_lines() {
    let mut session = Session::start();
    let mut moves: Vec<String> = Vec::new();
    let mut position = AnyGame::new("gravity", None).expect("gravity");
    let mut finished = 0;
    for i in 0..5000 {
        let answer = session.ask(json!({"game": "gravity", "moves": moves}));
        // Every answer, not only the last, is the rules' standing after
        // exactly these moves.
        assert_eq!(answer, standing(&position), "after {moves:?}");
        let legal = position.legal_moves();
        if legal.is_empty() {
            finished += 1;
            moves.clear();
            position = AnyGame::new("gravity", None).expect("gravity");
        } else {
            let m = legal[i * 7 % legal.len()].clone();
            position.play(&m).expect("a listed move is legal");
            moves.push(m);
        }
    }
    assert!(finished >= 20, "the lines ran to their ends: {finished} games");
    session.finish();
}
