//! Concessions: the game over in every game but four-player Focus, where
//! the seat is out and the game goes on until one is left.

use serde_json::json;

use super::super::tests::{correspondence, gravity, kinds, no_clock, notices, seat, ALICE, BOB, CAROL, DAY, NOW};
use super::super::{seats_in, takeback};
use super::*;
use crate::clock::ClockState;
use crate::domain::GameStatus;
use crate::store::SeatRow;

const DAVE: i64 = 4;

/// A stored free-for-all Focus game of alice, bob, carol and dave (red,
/// blue, green, yellow) after the history `entries`.
fn four(entries: &[&str]) -> (GameRecord, AnyGame) {
    let game = AnyGame::replay("focus", Some("four"), entries).expect("a legal history");
    let (mut record, _) = gravity(&[]);
    record.row.game = "focus".into();
    record.row.variant = "four".into();
    record.row.ply = entries.len() as i64;
    record.row.to_move = game.to_move().map(Seat::from);
    for (n, (id, name)) in [(CAROL, "carol"), (DAVE, "dave")].into_iter().enumerate() {
        record.seats.push(SeatRow {
            seat: seat(2 + n as u8),
            player: Some((id, name.into())),
            invitee: None,
            bot: false,
            rating: None,
        });
    }
    (record, game)
}

fn concession(
    record: &GameRecord,
    game: &AnyGame,
    who: u8,
    how: How,
    schedule: Schedule,
) -> (Progress, GameResult<AnyGame>) {
    let mut progress = Progress::of(record, NOW);
    let pauses = SeatPauses::default();
    let next = concede(
        &mut progress,
        Concession {
            record,
            game,
            seat: seat(who),
            how,
            schedule,
            pauses: &pauses,
        },
    );
    (progress, next)
}

#[test]
fn resigning_a_two_player_game_gives_it_to_the_other() {
    let (record, game) = gravity(&["d4"]);
    let (progress, next) = concession(&record, &game, 0, How::Resigned, no_clock());
    assert_eq!(next.unwrap().ply(), 1, "the position is unchanged");
    assert_eq!(progress.update.status, GameStatus::Finished);
    assert_eq!(
        progress.update.outcome,
        Some(json!({ "winners": [1], "reason": "resignation" }))
    );
    assert!(progress.moves.is_empty(), "nothing joins the history");
    assert_eq!(kinds(&progress), ["resigned", "finished"]);
    assert_eq!(notices(&progress), [(ALICE, "game_over"), (BOB, "game_over")]);
}

#[test]
fn a_resignation_out_of_turn_puts_the_seat_out_and_the_game_goes_on() {
    let (record, game) = four(&["e8-e7"]);
    assert_eq!(record.row.to_move, Some(seat(1)));
    let (progress, next) = concession(&record, &game, 2, How::Resigned, no_clock());
    let next = next.unwrap();
    assert!(next.is_out(2));
    let update = &progress.update;
    assert_eq!(update.status, GameStatus::Active);
    assert_eq!((update.ply, update.to_move), (2, Some(seat(1))), "blue still moves");
    let [stored] = progress.moves.as_slice() else {
        panic!("one history entry: {:?}", progress.moves);
    };
    assert_eq!((stored.ply, stored.seat, stored.player_id), (2, seat(2), CAROL));
    assert_eq!(stored.notation, "concede:2");
    assert_eq!(stored.effect.as_deref(), Some("green resigns"));
    assert_eq!(kinds(&progress), ["resigned", "move"]);
    // Blue's turn is now at ply 2: told again, with the ply to send.
    assert_eq!(notices(&progress), [(BOB, "your_turn")]);
    // The others agree without green; a takeback never undoes the concession.
    let (mut after, _) = four(&["e8-e7", "concede:2"]);
    assert_eq!(seats_in(&after, &next), 0b1011);
    after.row.takeback_offer = 0b1010;
    let mut asked = Progress::of(&after, NOW);
    let refused = takeback(&mut asked, &after, &next, seat(0), true);
    assert!(
        matches!(refused, Err(GameError::TakebackPastConcession { ply: 2 })),
        "{refused:?}"
    );
    // Conceding again is refused.
    let (_, again) = concession(&after, &next, 2, How::Resigned, no_clock());
    assert!(matches!(again, Err(GameError::OutOfGame)), "{again:?}");
}

#[test]
fn a_time_out_in_a_game_of_four_passes_the_turn_and_the_clock_on() {
    let (mut record, game) = four(&["e8-e7"]);
    let started = NOW - 3 * DAY;
    record.row.clock = Some(
        ClockState {
            remaining_ms: vec![5 * DAY; 4],
            turn_started_at: started,
        }
        .to_stored(),
    );
    let how = How::OutOfTime { deadline: NOW - DAY };
    let (progress, next) = concession(&record, &game, 1, how, correspondence(2));
    assert!(next.unwrap().is_out(1));
    let update = &progress.update;
    assert_eq!((update.status, update.to_move), (GameStatus::Active, Some(seat(2))));
    assert_eq!(progress.moves[0].effect.as_deref(), Some("blue runs out of time"));
    let clock = ClockState::from_stored(update.clock.as_ref()).unwrap();
    assert_eq!(clock.remaining_ms, [5 * DAY, 0, 5 * DAY, 5 * DAY]);
    assert_eq!(clock.turn_started_at, NOW, "green's clock starts now");
    assert_eq!(update.deadline, Some(NOW + 2 * DAY + 5 * DAY));
    assert_eq!(kinds(&progress), ["timeout", "move"]);
    assert_eq!(notices(&progress), [(CAROL, "your_turn")]);
}

#[test]
fn the_last_one_left_wins() {
    let (record, game) = four(&["e8-e7", "concede:1", "concede:3"]);
    assert_eq!(record.row.to_move, Some(seat(2)));
    let (progress, next) = concession(&record, &game, 2, How::Resigned, no_clock());
    assert!(next.unwrap().is_finished());
    let update = &progress.update;
    assert_eq!(
        (update.status, update.to_move, update.ply),
        (GameStatus::Finished, None, 4)
    );
    assert_eq!(
        update.outcome,
        Some(json!({ "winners": [0], "reason": "every other player is out" }))
    );
    assert_eq!(kinds(&progress), ["resigned", "move", "finished"]);
}

#[test]
fn a_team_game_ends_on_a_resignation_as_before() {
    let (mut record, _) = four(&[]);
    record.row.variant = "four-teams".into();
    let game = AnyGame::new("focus", Some("four-teams")).unwrap();
    let (progress, _) = concession(&record, &game, 1, How::Resigned, no_clock());
    assert_eq!(
        progress.update.outcome,
        Some(json!({ "winners": [0, 2], "reason": "resignation" }))
    );
    assert!(progress.moves.is_empty());
}

#[test]
fn a_resignation_out_of_turn_leaves_the_mover_s_clock_and_sent_reminder_alone() {
    let (mut record, game) = four(&["e8-e7"]);
    let started = NOW - DAY;
    record.row.clock = Some(
        ClockState {
            remaining_ms: vec![0; 4],
            turn_started_at: started,
        }
        .to_stored(),
    );
    // Blue's reminder went out already.
    record.row.reminder_at = None;
    let (progress, _) = concession(&record, &game, 3, How::Resigned, correspondence(2));
    let update = &progress.update;
    assert_eq!(update.to_move, Some(seat(1)));
    let clock = ClockState::from_stored(update.clock.as_ref()).unwrap();
    assert_eq!(clock.turn_started_at, started, "blue's turn began when it did");
    assert_eq!(update.deadline, Some(started + 2 * DAY));
    assert_eq!(update.reminder_at, None, "no second reminder");
}
