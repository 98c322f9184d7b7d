//! The history read back from `move` events: in order, with moves taken
//! back and replaced, as of the game's row, and a log that does not read
//! as one refused.

use sqlx::types::Json;

use super::*;

const ALICE: i64 = 1;
const BOB: i64 = 2;

fn seats() -> Vec<SeatRow> {
    [(0, ALICE, "alice"), (1, BOB, "bob")]
        .into_iter()
        .map(|(seat, id, name)| SeatRow {
            seat: Seat::from(seat),
            player: Some((id, name.into())),
            invitee: None,
            bot: false,
            rating: None,
        })
        .collect()
}

/// Event `seq`, move `ply` (`notation`), by alice on odd plies and bob on
/// even ones.
fn event(seq: i64, ply: i64, notation: &str) -> MoveEventRow {
    let seat = u8::from(ply % 2 == 0);
    MoveEventRow {
        seq,
        payload: Json(MovePayload {
            ply,
            seat: Seat::from(seat),
            player: ["alice", "bob"][usize::from(seat)].into(),
            notation: notation.into(),
            effect: None,
            message: None,
        }),
        created_at: seq * 10,
    }
}

/// Game 7 at `ply`.
fn game(ply: i64, seats: &[SeatRow]) -> GameAt<'_> {
    GameAt { id: 7, ply, seats }
}

fn history(ply: i64, seats: &[SeatRow], events: Vec<MoveEventRow>) -> History<'_> {
    let mut history = History::of(game(ply, seats));
    for e in events {
        history.push(e).expect("a move that follows the ones standing");
    }
    history
}

fn notations(moves: &[MoveRow]) -> Vec<&str> {
    moves.iter().map(|m| m.notation.as_str()).collect()
}

#[test]
fn the_moves_stand_in_order_with_their_players() {
    let seats = seats();
    let events = || vec![event(3, 1, "d4"), event(4, 2, "h8"), event(6, 3, "a1")];
    let all = history(3, &seats, events()).standing(None).expect("a history");
    assert_eq!(notations(&all), ["d4", "h8", "a1"]);
    let who: Vec<_> = all
        .iter()
        .map(|m| (m.ply, m.player_id, m.player_name.as_str()))
        .collect();
    assert_eq!(who, [(1, ALICE, "alice"), (2, BOB, "bob"), (3, ALICE, "alice")]);
    assert_eq!(all[2].created_at, 60);
    let first_two = history(3, &seats, events()).standing(Some(2)).expect("a history");
    assert_eq!(notations(&first_two), ["d4", "h8"]);
    let past_the_end = history(3, &seats, events()).standing(Some(9)).expect("a history");
    assert_eq!(past_the_end.len(), 3);
}

#[test]
fn a_move_taken_back_gives_way_to_the_move_played_in_its_place() {
    let seats = seats();
    let played = vec![event(3, 1, "d4"), event(4, 2, "h8"), event(5, 3, "a1")];
    // Taken back: the row steps back to ply 2, the log keeps the move.
    let taken_back = history(2, &seats, played).standing(None).expect("a history");
    assert_eq!(notations(&taken_back), ["d4", "h8"]);
    // Two taken back, then two played again.
    let again = vec![
        event(3, 1, "d4"),
        event(4, 2, "h8"),
        event(5, 3, "a1"),
        event(7, 2, "g8"),
        event(8, 3, "b1"),
    ];
    let replayed = history(3, &seats, again).standing(None).expect("a history");
    assert_eq!(notations(&replayed), ["d4", "g8", "b1"]);
}

#[test]
fn a_log_that_is_not_a_history_is_refused() {
    let seats = seats();
    let mut gap = History::of(game(3, &seats));
    gap.push(event(3, 1, "d4")).expect("the first move");
    assert_eq!(
        gap.push(event(4, 3, "a1")).map_err(|e| e.to_string()),
        Err("game 7's event 4 is move 3, but only 1 moves stand before it".into())
    );
    let short = history(3, &seats, vec![event(3, 1, "d4")]).standing(None);
    assert_eq!(
        short.map(|m| m.len()),
        Err(HistoryError::Short {
            game: 7,
            ply: 3,
            standing: 1
        })
    );
    let empty_seat = vec![
        seats[0].clone(),
        SeatRow {
            player: None,
            ..seats[1].clone()
        },
    ];
    let mut nobody = History::of(game(2, &empty_seat));
    nobody.push(event(3, 1, "d4")).expect("alice's move");
    assert_eq!(
        nobody.push(event(4, 2, "h8")).map_err(|e| e.to_string()),
        Err("game 7's move 2 is by seat 1, where nobody sits".into())
    );
}

#[test]
fn the_move_at_a_ply_is_the_latest_there_among_the_newest_events() {
    let seats = seats();
    let at_3 = game(3, &seats);
    let newest_first = || {
        vec![
            event(8, 3, "b1"),
            event(7, 2, "g8"),
            event(5, 3, "a1"),
            event(4, 2, "h8"),
        ]
    };
    let at = |ply| latest_at(at_3, ply, newest_first()).map(|m| m.map(|m| m.notation));
    assert_eq!(at(3), Ok(Some("b1".into())));
    assert_eq!(at(2), Ok(Some("g8".into())));
    // Not among the events given: the caller reads the whole log.
    assert_eq!(at(1), Err(NotReached::Beyond));
    // No move stands there.
    assert_eq!(at(4), Ok(None));
    assert_eq!(at(0), Ok(None));
    // Taken back: the row at ply 2, move 3 is no longer a move.
    assert_eq!(
        latest_at(game(2, &seats), 3, newest_first()).map(|m| m.is_some()),
        Ok(false)
    );
}
