//! Every branch of the pure decisions, on hand-built stored games.

use serde_json::json;

use super::*;
use crate::clock::{Scale, TimeControl};
use crate::store::{GameRow, SeatRow};

pub(super) const ALICE: i64 = 1;
pub(super) const BOB: i64 = 2;
pub(super) const CAROL: i64 = 3;
pub(super) const NOW: i64 = 1_000_000;
pub(super) const DAY: i64 = 1_000;

pub(super) fn player(id: i64, name: &str) -> Player {
    Player {
        id,
        name: name.to_owned(),
        email: None,
        created_at: 0,
        bot: false,
    }
}

pub(super) fn seat(n: u8) -> Seat {
    Seat::from(n)
}

/// A stored Gravity game between alice (seat 0) and bob (seat 1) after
/// `moves`, active unless the moves end it.
pub(super) fn gravity(moves: &[&str]) -> (GameRecord, AnyGame) {
    let game = AnyGame::replay("gravity", None, moves).expect("a legal line");
    let record = GameRecord {
        row: GameRow {
            id: 7,
            game: "gravity".into(),
            variant: "standard".into(),
            status: GameStatus::Active,
            public: true,
            ply: moves.len() as i64,
            to_move: game.to_move().map(Seat::from),
            outcome: None,
            draw_offer: 0,
            takeback_offer: 0,
            event_seq: 10,
            created_by: ALICE,
            created_at: 0,
            updated_at: 0,
            time_control: None,
            clock: None,
            deadline: None,
            reminder_at: None,
            rated: true,
            rating_min: None,
            rating_max: None,
            rematch_of: None,
            rematch: None,
            conditional_rev: 0,
            invite_code: None,
            tournament_id: None,
        },
        seats: vec![
            SeatRow {
                seat: seat(0),
                player: Some((ALICE, "alice".into())),
                invitee: None,
                bot: false,
                rating: None,
            },
            SeatRow {
                seat: seat(1),
                player: Some((BOB, "bob".into())),
                invitee: None,
                bot: false,
                rating: None,
            },
        ],
    };
    (record, game)
}

pub(super) fn no_clock() -> Schedule {
    Schedule {
        clock: Clock::new(TimeControl::None {}, Scale { day_ms: DAY }),
        remind_before_ms: 0,
    }
}

pub(super) fn correspondence(days: u32) -> Schedule {
    Schedule {
        clock: Clock::new(
            TimeControl::Correspondence {
                days_per_move: days,
                bank_days: None,
                bonus_days: None,
                cap_days: None,
            },
            Scale { day_ms: DAY },
        ),
        remind_before_ms: DAY / 2,
    }
}

pub(super) fn command(notation: &str, ply: i64) -> MoveCommand {
    MoveCommand {
        notation: notation.into(),
        ply,
        message: None,
    }
}

fn decide(record: &GameRecord, game: &AnyGame, who: &Player, command: &MoveCommand) -> GameResult<MoveDecision> {
    decide_with(record, game, who, command, None, no_clock(), NOW)
}

fn decide_with(
    record: &GameRecord,
    game: &AnyGame,
    who: &Player,
    command: &MoveCommand,
    repeats: Option<&MoveRow>,
    schedule: Schedule,
    now: i64,
) -> GameResult<MoveDecision> {
    decide_move(MoveInput {
        record,
        game,
        player: who,
        command,
        repeats,
        now,
        schedule,
        pauses: &SeatPauses::default(),
        conditionals: &[],
    })
}

pub(super) fn played(decision: GameResult<MoveDecision>) -> Played {
    match decision {
        Ok(MoveDecision::Play(played)) => *played,
        other => panic!("expected a move to play, got {other:?}"),
    }
}

pub(super) fn kinds(progress: &Progress) -> Vec<&'static str> {
    progress.events.iter().map(GameEvent::kind).collect()
}

pub(super) fn notices(progress: &Progress) -> Vec<(i64, &'static str)> {
    progress.notices.iter().map(|(p, n)| (*p, n.kind())).collect()
}

#[test]
fn a_legal_move_is_stored_announced_and_passes_the_turn() {
    let (record, game) = gravity(&[]);
    let alice = player(ALICE, "alice");
    let mut cmd = command("d4", 0);
    cmd.message = Some("good luck".into());
    let played = played(decide(&record, &game, &alice, &cmd));
    let update = &played.progress.update;
    assert_eq!(update.ply, 1);
    assert_eq!(update.to_move, Some(seat(1)));
    assert_eq!(update.status, GameStatus::Active);
    assert_eq!(update.expected_seq, 10);
    let [stored] = played.progress.moves.as_slice() else {
        panic!("one move played: {:?}", played.progress.moves)
    };
    assert_eq!((stored.ply, stored.seat, stored.player_id), (1, seat(0), ALICE));
    assert_eq!(stored.notation, "d4");
    assert_eq!(stored.message.as_deref(), Some("good luck"));
    assert_eq!(kinds(&played.progress), ["move"]);
    assert_eq!(notices(&played.progress), [(BOB, "your_turn")]);
    assert_eq!(played.next.ply(), 1);
    // The position handed in is not touched.
    assert_eq!(game.ply(), 0);
}

#[test]
fn a_winning_move_finishes_the_game_by_the_rules() {
    let line = ["d4", "h8", "b1", "g8", "c1", "f8"];
    let (record, game) = gravity(&line);
    let played = played(decide(&record, &game, &player(ALICE, "alice"), &command("d1", 6)));
    let update = &played.progress.update;
    assert_eq!(update.status, GameStatus::Finished);
    assert_eq!(update.to_move, None);
    assert_eq!(update.outcome, Some(json!({ "winners": [0], "reason": "4 in a row" })));
    assert_eq!(kinds(&played.progress), ["move", "finished"]);
    assert_eq!(notices(&played.progress), [(ALICE, "game_over"), (BOB, "game_over")]);
    let GameEvent::Move(event) = &played.progress.events[0] else {
        panic!("the move event comes first");
    };
    assert_eq!(event.status, GameStatus::Finished);
}

#[test]
fn a_stale_ply_is_refused_with_where_the_game_is() {
    let (record, game) = gravity(&["d4"]);
    let decision = decide(&record, &game, &player(BOB, "bob"), &command("h8", 0));
    assert!(
        matches!(decision, Ok(MoveDecision::Stale { at: 1, asked: 0 })),
        "{decision:?}"
    );
    let ahead = decide(&record, &game, &player(BOB, "bob"), &command("h8", 5));
    assert!(
        matches!(ahead, Ok(MoveDecision::Stale { at: 1, asked: 5 })),
        "{ahead:?}"
    );
}

#[test]
fn a_retry_of_a_stored_move_is_answered_again_and_applies_nothing() {
    let (record, game) = gravity(&["d4"]);
    let stored = MoveRow {
        ply: 1,
        seat: seat(0),
        player_id: ALICE,
        player_name: "alice".into(),
        notation: "d4".into(),
        effect: None,
        message: None,
        created_at: 5,
    };
    let again = |record: &GameRecord, who: &Player| {
        decide_with(record, &game, who, &command("d4", 0), Some(&stored), no_clock(), NOW)
    };
    let retry = again(&record, &player(ALICE, "alice"));
    assert!(matches!(&retry, Ok(MoveDecision::Repeat(m)) if m.ply == 1), "{retry:?}");
    // Another player's move at that ply is no retry of theirs.
    let other = again(&record, &player(BOB, "bob"));
    assert!(matches!(other, Ok(MoveDecision::Stale { .. })), "{other:?}");
    // A retry is answered even once the game is over.
    let mut over = record.clone();
    over.row.status = GameStatus::Finished;
    let late = again(&over, &player(ALICE, "alice"));
    assert!(matches!(late, Ok(MoveDecision::Repeat(_))), "{late:?}");
}

#[test]
fn an_illegal_or_unreadable_move_carries_the_rules_reason() {
    let (record, game) = gravity(&["d4"]);
    let bob = player(BOB, "bob");
    let occupied = decide(&record, &game, &bob, &command("a1", 1));
    match occupied {
        Err(error @ GameError::Move(crate::rules::MoveError::Illegal(_))) => {
            assert_eq!(error.code(), "illegal_move");
            assert!(error.to_string().contains("a1"), "{error}");
        }
        other => panic!("expected an illegal move, got {other:?}"),
    }
    let nonsense = decide(&record, &game, &bob, &command("zz99", 1));
    assert!(
        matches!(&nonsense, Err(e) if e.code() == "bad_notation"),
        "{nonsense:?}"
    );
}

#[test]
fn only_the_player_to_move_may_move() {
    let (record, game) = gravity(&["d4"]);
    let not_yours = decide(&record, &game, &player(ALICE, "alice"), &command("e5", 1));
    assert!(matches!(not_yours, Err(GameError::NotYourTurn)), "{not_yours:?}");
    let stranger = decide(&record, &game, &player(CAROL, "carol"), &command("e5", 1));
    assert!(matches!(stranger, Err(GameError::NotAPlayer)), "{stranger:?}");
    let (mut private, game) = gravity(&["d4"]);
    private.row.public = false;
    let hidden = decide(&private, &game, &player(CAROL, "carol"), &command("e5", 1));
    assert!(matches!(hidden, Err(GameError::NotFound(7))), "{hidden:?}");
}

#[test]
fn a_game_not_being_played_refuses_moves() {
    for status in [GameStatus::Open, GameStatus::Finished, GameStatus::Aborted] {
        let (mut record, game) = gravity(&["d4"]);
        record.row.status = status;
        let decision = decide(&record, &game, &player(BOB, "bob"), &command("h8", 1));
        assert!(
            matches!(decision, Ok(MoveDecision::NotActive(s)) if s == status),
            "{decision:?}"
        );
    }
}

#[test]
fn a_move_after_the_deadline_loses_on_time_instead() {
    let (mut record, game) = gravity(&[]);
    let schedule = correspondence(2);
    let clock = schedule.clock.start(2, NOW).expect("a correspondence clock");
    record.row.clock = Some(clock.to_stored());
    let alice = player(ALICE, "alice");
    let in_time = played(decide_with(
        &record,
        &game,
        &alice,
        &command("d4", 0),
        None,
        schedule,
        NOW + DAY,
    ));
    // The next player's deadline is set, with a reminder half a day before.
    let update = &in_time.progress.update;
    let deadline = update.deadline.expect("a deadline for bob");
    assert_eq!(deadline, NOW + DAY + 2 * DAY);
    assert_eq!(update.reminder_at, Some(deadline - DAY / 2));
    let GameEvent::Move(event) = &in_time.progress.events[0] else {
        panic!("a move event");
    };
    assert_eq!(event.deadline, Some(deadline));
    assert!(matches!(
        in_time.progress.notices[0].1,
        PlayerNotice::YourTurn { deadline: Some(d), .. } if d == deadline
    ));
    let too_late = decide_with(&record, &game, &alice, &command("d4", 0), None, schedule, NOW + 3 * DAY);
    assert!(matches!(too_late, Ok(MoveDecision::OutOfTime)), "{too_late:?}");
}

#[test]
fn a_move_declines_the_others_offers_and_keeps_the_movers() {
    let (mut record, game) = gravity(&["d4"]);
    // Bob (to move) offered a draw, alice asked for a takeback and offered
    // a draw too.
    record.row.draw_offer = seat(0).bit() | seat(1).bit();
    record.row.takeback_offer = seat(0).bit();
    let played = played(decide(&record, &game, &player(BOB, "bob"), &command("h8", 1)));
    assert_eq!(played.progress.update.draw_offer, seat(1).bit());
    assert_eq!(played.progress.update.takeback_offer, 0);
}

#[test]
fn a_draw_is_offered_then_agreed() {
    let (record, game) = gravity(&["d4"]);
    let mut offer = Progress::of(&record, NOW);
    draw(&mut offer, &record, &game, seat(0), true).unwrap();
    assert_eq!(offer.update.draw_offer, seat(0).bit());
    assert_eq!(kinds(&offer), ["draw_offered"]);
    assert_eq!(notices(&offer), [(BOB, "draw_offered")]);

    let (mut offered, game) = gravity(&["d4"]);
    offered.row.draw_offer = seat(0).bit();
    let mut again = Progress::of(&offered, NOW);
    draw(&mut again, &offered, &game, seat(0), true).unwrap();
    assert!(again.events.is_empty(), "offering twice changes nothing");

    let mut accept = Progress::of(&offered, NOW);
    draw(&mut accept, &offered, &game, seat(1), true).unwrap();
    assert_eq!(accept.update.status, GameStatus::Finished);
    assert_eq!(
        accept.update.outcome,
        Some(json!({ "winners": [], "reason": "agreement" }))
    );
    assert_eq!(kinds(&accept), ["draw_agreed", "finished"]);

    let mut decline = Progress::of(&offered, NOW);
    draw(&mut decline, &offered, &game, seat(1), false).unwrap();
    assert_eq!((decline.update.draw_offer, kinds(&decline)), (0, vec!["draw_declined"]));

    let mut nothing = Progress::of(&record, NOW);
    let refused = draw(&mut nothing, &record, &game, seat(1), false);
    assert!(
        matches!(refused, Err(GameError::NoOffer(OfferKind::Draw))),
        "{refused:?}"
    );
}

#[test]
fn a_takeback_needs_a_move_and_every_seat() {
    let (fresh, fresh_game) = gravity(&[]);
    let mut none = Progress::of(&fresh, NOW);
    assert!(matches!(
        takeback(&mut none, &fresh, &fresh_game, seat(0), true),
        Err(GameError::NoMove)
    ));
    let (record, game) = gravity(&["d4", "h8"]);
    let mut ask = Progress::of(&record, NOW);
    assert_eq!(takeback(&mut ask, &record, &game, seat(1), true).unwrap(), None);
    assert_eq!(kinds(&ask), ["takeback_offered"]);
    assert_eq!(notices(&ask), [(ALICE, "takeback_offered")]);

    let (mut asked, game) = gravity(&["d4", "h8"]);
    asked.row.takeback_offer = seat(1).bit();
    asked.row.draw_offer = seat(1).bit();
    let mut agree = Progress::of(&asked, NOW);
    assert_eq!(takeback(&mut agree, &asked, &game, seat(0), true).unwrap(), Some(1));
    assert_eq!(agree.update.ply, 1);
    assert!(agree.moves.is_empty(), "a takeback plays no move");
    assert_eq!((agree.update.takeback_offer, agree.update.draw_offer), (0, 0));
    assert_eq!(kinds(&agree), ["takeback_accepted"]);

    let mut refuse = Progress::of(&fresh, NOW);
    assert!(matches!(
        takeback(&mut refuse, &fresh, &fresh_game, seat(0), false),
        Err(GameError::NoOffer(OfferKind::Takeback))
    ));
}

#[test]
fn a_game_may_be_aborted_only_before_everyone_has_moved() {
    let (early, _) = gravity(&["d4"]);
    assert!(may_abort(&early).is_ok());
    let (late, _) = gravity(&["d4", "h8"]);
    assert!(matches!(may_abort(&late), Err(GameError::TooLate)));
    let (mut over, _) = gravity(&["d4"]);
    over.row.status = GameStatus::Finished;
    assert!(matches!(may_abort(&over), Err(GameError::NotActive { .. })));
    let (mut paired, _) = gravity(&["d4"]);
    paired.row.tournament_id = Some(1);
    assert!(matches!(may_abort(&paired), Err(GameError::TournamentGame)));
    let mut progress = Progress::of(&early, NOW);
    abort(&mut progress, &early, &player(ALICE, "alice"), seat(0));
    assert_eq!(progress.update.status, GameStatus::Aborted);
    assert_eq!(kinds(&progress), ["aborted"]);
    assert_eq!(notices(&progress), [(BOB, "game_over")]);
}

/// An open Gravity game: alice at seat 0, seat 1 open or reserved for
/// `invitee`.
fn open_game(invitee: Option<i64>) -> (GameRecord, AnyGame) {
    let (mut record, game) = gravity(&[]);
    record.row.status = GameStatus::Open;
    record.row.to_move = None;
    record.seats[1].player = None;
    record.seats[1].invitee = invitee.map(|id| (id, "someone".to_owned()));
    (record, game)
}

#[test]
fn joining_takes_the_invitation_or_a_free_seat_and_starts_a_full_table() {
    let (open, game) = open_game(None);
    assert_eq!(choose_seat(&open, BOB, None).unwrap(), seat(1));
    assert!(matches!(choose_seat(&open, ALICE, None), Err(GameError::AlreadySeated)));
    assert!(matches!(choose_seat(&open, BOB, Some(0)), Err(GameError::SeatTaken(_))));
    assert!(matches!(
        choose_seat(&open, BOB, Some(5)),
        Err(GameError::NoSuchSeat { seat: 5, .. })
    ));
    let (reserved, _) = open_game(Some(CAROL));
    assert!(matches!(choose_seat(&reserved, BOB, None), Err(GameError::NoOpenSeat)));
    assert!(matches!(
        choose_seat(&reserved, BOB, Some(1)),
        Err(GameError::SeatReserved(_))
    ));
    assert_eq!(choose_seat(&reserved, CAROL, None).unwrap(), seat(1));
    let (mut started, _) = gravity(&[]);
    started.seats[1].player = None;
    assert!(matches!(
        choose_seat(&started, BOB, None),
        Err(GameError::NotOpen { .. })
    ));

    let mut progress = Progress::of(&open, NOW);
    sit(
        &mut progress,
        &open,
        &game,
        &player(BOB, "bob"),
        seat(1),
        no_clock(),
        &SeatPauses::default(),
    );
    assert_eq!(progress.update.status, GameStatus::Active);
    assert_eq!(progress.update.to_move, Some(seat(0)));
    assert_eq!(kinds(&progress), ["joined", "started"]);
    assert_eq!(
        notices(&progress),
        [(ALICE, "game_started"), (BOB, "game_started"), (ALICE, "your_turn")]
    );
    assert_eq!(progress.seated, [(seat(1), BOB, "bob".to_owned(), false)]);
}

#[test]
fn declining_an_invitation_calls_the_game_off() {
    let (reserved, _) = open_game(Some(BOB));
    let mut progress = Progress::of(&reserved, NOW);
    decline(&mut progress, &reserved, &player(BOB, "bob"), seat(1));
    assert_eq!(progress.update.status, GameStatus::Aborted);
    assert_eq!(kinds(&progress), ["declined", "aborted"]);
    assert_eq!(notices(&progress), [(ALICE, "declined")]);
}
