//! The generator's client: its targets, its reading of `/metrics`, and
//! a move's answer in either shape.

use super::*;

#[test]
fn metrics_are_read_by_name() {
    let text = "# HELP x\nprocess_resident_memory_bytes_total 1\nprocess_resident_memory_bytes 4096\nprocess_open_fds 12\nprocess_cpu_seconds_total 1.25\n";
    assert_eq!(metric(text, "process_resident_memory_bytes"), Some(4096.0));
    assert_eq!(metric(text, "process_open_fds"), Some(12.0));
    assert_eq!(metric(text, "process_cpu_seconds_total"), Some(1.25));
    assert_eq!(metric(text, "missing"), None);
}

#[tokio::test]
async fn only_loopback_is_a_target() {
    assert!(Target::resolve("http://127.0.0.1:8080").await.is_ok());
    assert!(Target::resolve("http://127.3.2.1:8080").await.is_ok());
    assert!(Target::resolve("http://[::1]:8080").await.is_ok());
    assert!(matches!(
        Target::resolve("http://10.0.0.1:8080").await,
        Err(LoadError::NotLoopback { .. })
    ));
    assert!(matches!(
        Target::resolve("http://[::ffff:8.8.8.8]:80").await,
        Err(LoadError::NotLoopback { .. })
    ));
    assert!(matches!(
        Target::resolve("https://127.0.0.1").await,
        Err(LoadError::BadUrl(_))
    ));
    assert!(matches!(Target::resolve("not a url").await, Err(LoadError::BadUrl(_))));
}

/// A move is posted to the game's URL with the preference, and with
/// `?legal=true` for a lean answer (not for a minimal one); its answer is
/// read as lean only when the server says it applied the preference, in
/// full otherwise (a server that does not know it), what the lean answer
/// leaves out taken from the game before.
#[tokio::test]
async fn a_move_s_answer_is_read_in_the_shape_the_server_gave() {
    use axum::extract::{Path, RawQuery};
    use axum::http::HeaderMap;
    use axum::routing::post;

    async fn answer(Path(id): Path<i64>, RawQuery(query): RawQuery, headers: HeaderMap) -> axum::response::Response {
        use axum::response::IntoResponse;
        let asked = headers.get("prefer").is_some_and(|p| p == "return=minimal");
        let played = json!({ "ply": 4, "seat": 1, "move": "c3" });
        // Game 1's and 3's server applies the preference, game 2's does not.
        if id == 1 && asked && query.as_deref() == Some("legal=true") {
            let lean = json!({ "created": true, "move": played, "game_id": 1, "status": "active",
                "ply": 4, "to_move": 0, "seq": 9, "outcome": null, "last_move": played, "legal": ["a1", "b2"] });
            ([("preference-applied", "return=minimal")], axum::Json(lean)).into_response()
        } else if id == 3 && asked && query.is_none() {
            let minimal = json!({ "created": true, "move": played, "game_id": 3, "status": "active",
                "ply": 4, "to_move": 0, "seq": 9, "outcome": null, "last_move": played });
            ([("preference-applied", "return=minimal")], axum::Json(minimal)).into_response()
        } else {
            let game = json!({ "id": id, "game": "gravity", "variant": "standard", "status": "active",
                "ply": 4, "to_move": 0, "seq": 9, "legal": ["d4"], "last_move": played });
            axum::Json(json!({ "created": true, "move": played, "game": game })).into_response()
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("its address");
    let app = axum::Router::new().route("/api/v1/games/{id}/moves", post(answer));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let target = Target::resolve(&format!("http://{address}")).await.expect("loopback");
    let api = Api::new(target, Duration::from_secs(5)).expect("a client");
    let before = |id| GameView {
        id,
        game: "gravity".to_owned(),
        variant: "standard".to_owned(),
        status: "active".to_owned(),
        ply: 3,
        to_move: Some(1),
        legal: vec!["c3".to_owned()],
        outcome: None,
        seq: 8,
        last_move: None,
    };

    let lean = api
        .play("token", &before(1), "c3", Answer::Lean)
        .await
        .expect("a lean answer");
    assert_eq!((lean.record.ply, lean.record.notation.as_str()), (4, "c3"));
    assert_eq!((lean.game.id, lean.game.game.as_str()), (1, "gravity"));
    assert_eq!((lean.game.ply, lean.game.to_move, lean.game.seq), (4, Some(0), 9));
    assert_eq!(lean.game.legal, ["a1", "b2"]);

    let full = api
        .play("token", &before(2), "c3", Answer::Lean)
        .await
        .expect("a full answer");
    assert_eq!((full.game.id, full.game.ply, full.game.seq), (2, 4, 9));
    assert_eq!(full.game.legal, ["d4"]);
    assert_eq!(full.game.last_move.map(|m| m.notation), Some("c3".to_owned()));

    // Minimal: the preference without `?legal` (else game 3's server
    // would answer in full, with its `legal`), and no legal moves.
    let minimal = api
        .play("token", &before(3), "c3", Answer::Minimal)
        .await
        .expect("a minimal answer");
    assert_eq!((minimal.game.id, minimal.game.ply, minimal.game.seq), (3, 4, 9));
    assert!(minimal.game.legal.is_empty(), "{:?}", minimal.game.legal);
}
