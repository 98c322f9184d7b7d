//! Trees built from lines, on Gravity positions.

use serde_json::json;

use super::*;
use crate::rules::testing::play_out;

/// Gravity after `moves`.
fn gravity(moves: &[&str]) -> AnyGame {
    AnyGame::replay("gravity", None, moves).expect("a legal line")
}

fn lines(lines: &[&[&str]]) -> Vec<Line> {
    lines
        .iter()
        .map(|l| l.iter().map(|m| (*m).to_owned()).collect())
        .collect()
}

/// Where and why the rules refused a line.
fn refused_at(error: &LineError) -> (usize, usize, &MoveError) {
    match error {
        LineError::Move { line, ply, error, .. } => (*line, *ply, error),
        other => panic!("not the rules' refusal: {other:?}"),
    }
}

#[test]
fn lines_sharing_a_prefix_make_one_tree_in_canonical_notation() {
    let game = gravity(&[]);
    let tree = Tree::check(
        &game,
        1,
        &lines(&[&["D4", "e5", "c3", "f6"], &["d4", "e5", "b2", "g7"], &["a1", "h8"]]),
    )
    .expect("legal lines");
    assert_eq!(
        tree.lines(),
        lines(&[&["d4", "e5", "c3", "f6"], &["d4", "e5", "b2", "g7"], &["a1", "h8"]])
    );
    let (reply, rest) = tree.answer("d4").expect("foreseen");
    assert_eq!(reply, "e5");
    assert_eq!(rest.lines(), lines(&[&["c3", "f6"], &["b2", "g7"]]));
    let (reply, rest) = rest.answer("b2").expect("foreseen");
    assert_eq!(reply, "g7");
    assert!(rest.is_empty(), "the line is played out");
    assert!(tree.answer("h1").is_none(), "not foreseen");
}

#[test]
fn a_line_that_is_a_prefix_of_another_is_kept_once() {
    let tree = Tree::check(&gravity(&[]), 1, &lines(&[&["d4", "e5"], &["d4", "e5", "c3", "f6"]])).expect("legal");
    assert_eq!(tree.lines(), lines(&[&["d4", "e5", "c3", "f6"]]));
}

#[test]
fn the_stored_form_round_trips() {
    let tree = Tree::check(&gravity(&[]), 1, &lines(&[&["d4", "e5", "c3", "f6"], &["a1", "h8"]])).expect("legal");
    let stored = tree.to_stored();
    assert_eq!(stored, json!([["d4", "e5", "c3", "f6"], ["a1", "h8"]]));
    assert_eq!(Tree::from_stored(&stored), Some(tree));
    for broken in [
        json!("d4"),
        json!([["d4"]]),
        json!([]),
        json!([["d4", "e5"], ["d4", "f6"]]),
    ] {
        assert_eq!(Tree::from_stored(&broken), None, "{broken}");
    }
}

#[test]
fn a_bad_line_is_refused_naming_the_line_the_ply_and_the_reason() {
    let game = gravity(&[]);
    // Line 2's third ply plays on a square already taken.
    let error = Tree::check(&game, 1, &lines(&[&["d4", "e5"], &["a1", "h8", "a1", "b2"]])).expect_err("illegal");
    match &error {
        LineError::Move {
            line: 2,
            ply: 3,
            notation,
            error: MoveError::Illegal(_),
        } => assert_eq!(notation, "a1"),
        other => panic!("expected an illegal move, got {other:?}"),
    }
    assert!(error.to_string().starts_with("line 2, ply 3 (\"a1\"): "), "{error}");
    let error = Tree::check(&game, 1, &lines(&[&["d4", "zz"]])).expect_err("unreadable");
    assert!(
        matches!(refused_at(&error), (1, 2, MoveError::Notation(_))),
        "{error:?}"
    );
}

#[test]
fn lines_must_pair_their_moves_with_replies_and_keep_the_turn_order() {
    let game = gravity(&[]);
    assert_eq!(Tree::check(&game, 1, &[]), Err(LineError::NoLines));
    assert_eq!(Tree::check(&game, 1, &lines(&[&[]])), Err(LineError::Empty { line: 1 }));
    assert_eq!(
        Tree::check(&game, 1, &lines(&[&["d4", "e5", "c3"]])),
        Err(LineError::EndsWithTheirs { line: 1 })
    );
    // Seat 0 is to move: a tree of seat 0 would start with its own move.
    assert_eq!(
        Tree::check(&game, 0, &lines(&[&["d4", "e5"]])),
        Err(LineError::WrongSide {
            line: 1,
            ply: 1,
            yours: false
        })
    );
    assert_eq!(
        Tree::check(&game, 1, &lines(&[&["d4", "e5"], &["d4", "f6"]])),
        Err(LineError::Conflict {
            line: 2,
            ply: 2,
            reply: "e5".into()
        })
    );
}

#[test]
fn a_line_cannot_go_on_after_the_game_ends() {
    // Play a game out, always the same way, and stop one move short.
    let mut moves = play_out(&mut gravity(&[]), 7, 3);
    let last = moves.pop().expect("a move ended it");
    let before = AnyGame::replay("gravity", None, &moves).expect("replays");
    let owner = 1 - before.to_move().expect("someone to move");
    let error = Tree::check(&before, owner, &lines(&[&[&last, "a1"]])).expect_err("over");
    assert_eq!(refused_at(&error), (1, 2, &MoveError::GameOver), "{error:?}");
}

#[test]
fn limits_are_counted_before_anything_is_played() {
    let game = gravity(&[]);
    let many: Vec<Line> = (0..=MAX_LINES)
        .map(|_| vec!["d4".to_owned(), "e5".to_owned()])
        .collect();
    assert_eq!(
        Tree::check(&game, 1, &many),
        Err(LineError::TooManyLines { count: MAX_LINES + 1 })
    );
    let long: Vec<Line> = vec![vec!["d4".to_owned(); MAX_PLIES + 2]];
    assert_eq!(
        Tree::check(&game, 1, &long),
        Err(LineError::TooLong {
            line: 1,
            plies: MAX_PLIES + 2
        })
    );
    let huge = vec![vec!["d".repeat(MAX_MOVE_LEN + 1), "e5".to_owned()]];
    assert_eq!(
        Tree::check(&game, 1, &huge),
        Err(LineError::MoveTooLong { line: 1, ply: 1 })
    );
}
