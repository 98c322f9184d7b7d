//! Conditional replies decided with the move they answer, on Gravity games
//! between alice (seat 0, to move) and bob (seat 1, who left a tree).

use serde_json::json;

use super::super::tests::{command, correspondence, gravity, kinds, notices, played, player, ALICE, BOB, DAY, NOW};
use super::super::{decide_move, MoveInput, Played, Schedule, SeatPauses};
use crate::clock::{Clock, ClockState, Scale, TimeControl};
use crate::domain::{GameStatus, Seat};
use crate::games::conditional::{Conditional, Tree};
use crate::games::events::{GameEvent, PlayerNotice};
use crate::rules::testing::play_out;
use crate::store::{ConditionalWrite, GameRecord};

/// Bob's tree of `lines`, set at `ply`.
fn bobs(ply: i64, lines: &[&[&str]]) -> Conditional {
    let stored = json!(lines);
    Conditional {
        player_id: BOB,
        ply,
        tree: Tree::from_stored(&stored).expect("a tree"),
    }
}

fn alice_plays(record: &GameRecord, notation: &str, trees: &[Conditional], schedule: Schedule) -> Played {
    let (_, game) = gravity(&[]);
    played(decide_move(MoveInput {
        record,
        game: &game,
        player: &player(ALICE, "alice"),
        command: &command(notation, 0),
        repeats: None,
        now: NOW,
        schedule,
        pauses: &SeatPauses::default(),
        conditionals: trees,
    }))
}

fn no_clock() -> Schedule {
    Schedule {
        clock: Clock::new(TimeControl::None {}, Scale { day_ms: DAY }),
        remind_before_ms: 0,
    }
}

/// A game whose trees were written once.
fn with_trees() -> GameRecord {
    let (mut record, _) = gravity(&[]);
    record.row.conditional_rev = 1;
    record
}

#[test]
fn a_foreseen_move_is_answered_in_the_same_change_and_the_tree_advances() {
    let record = with_trees();
    let tree = bobs(0, &[&["d4", "e5", "c3", "f6"], &["a1", "h8"]]);
    let played = alice_plays(&record, "d4", &[tree], no_clock());
    let update = &played.progress.update;
    assert_eq!((update.ply, update.to_move), (2, Some(Seat::from(0))));
    let moves: Vec<(i64, i64, &str)> = played
        .progress
        .moves
        .iter()
        .map(|m| (m.ply, m.player_id, m.notation.as_str()))
        .collect();
    assert_eq!(moves, [(1, ALICE, "d4"), (2, BOB, "e5")]);
    assert_eq!(kinds(&played.progress), ["move", "move"]);
    let conditional: Vec<bool> = played
        .progress
        .events
        .iter()
        .map(|e| matches!(e, GameEvent::Move(m) if m.conditional))
        .collect();
    assert_eq!(conditional, [false, true]);
    // Bob is not told it is his turn: the tree played it. Alice is.
    assert_eq!(notices(&played.progress), [(ALICE, "your_turn")]);
    match &update.conditional {
        Some(ConditionalWrite::Put(tree)) => {
            assert_eq!((tree.player_id, tree.ply), (BOB, 2));
            assert_eq!(tree.lines, json!([["c3", "f6"]]));
        }
        other => panic!("expected the tree to advance, got {other:?}"),
    }
    assert_eq!(played.next.ply(), 2);
    // The answer names the opponent's move.
    assert_eq!(played.stored.notation, "d4");
}

#[test]
fn a_line_played_out_removes_the_tree() {
    let played = alice_plays(&with_trees(), "a1", &[bobs(0, &[&["a1", "h8"]])], no_clock());
    assert_eq!(played.progress.moves.len(), 2);
    assert!(
        matches!(
            played.progress.update.conditional,
            Some(ConditionalWrite::Delete { player_id: BOB })
        ),
        "{:?}",
        played.progress.update.conditional
    );
}

#[test]
fn an_unforeseen_move_clears_the_tree_and_tells_its_owner() {
    let played = alice_plays(&with_trees(), "h1", &[bobs(0, &[&["a1", "h8"]])], no_clock());
    let update = &played.progress.update;
    assert_eq!((update.ply, played.progress.moves.len()), (1, 1));
    assert!(
        matches!(update.conditional, Some(ConditionalWrite::Delete { player_id: BOB })),
        "{:?}",
        update.conditional
    );
    assert_eq!(
        notices(&played.progress),
        [(BOB, "your_turn"), (BOB, "conditional_cleared")]
    );
    let cleared = played.progress.notices.iter().find_map(|(_, n)| match n {
        PlayerNotice::ConditionalCleared { ply, reason } => Some((*ply, *reason)),
        _ => None,
    });
    assert_eq!(cleared, Some((1, crate::games::events::ClearedBecause::Unforeseen)));
}

#[test]
fn a_tree_set_in_another_position_never_plays() {
    let played = alice_plays(&with_trees(), "a1", &[bobs(2, &[&["a1", "h8"]])], no_clock());
    let update = &played.progress.update;
    assert_eq!(played.progress.moves.len(), 1);
    assert!(update.conditional.is_none());
    assert_eq!(notices(&played.progress), [(BOB, "your_turn")]);
}

#[test]
fn a_reply_that_wins_ends_the_game_and_every_tree_goes() {
    // Rather than craft a position, play a game out the same way each time
    // and hand its last two moves to the loser's opponent... the winner's
    // tree: their opponent's last move, their winning reply.
    let mut moves = play_out(&mut gravity(&[]).1, 5, 1);
    let last_two: Vec<String> = moves.split_off(moves.len() - 2);
    let start: Vec<&str> = moves.iter().map(String::as_str).collect();
    let (mut record, before) = gravity(&start);
    record.row.conditional_rev = 3;
    let owner = before.to_move().map(|s| 1 - s).expect("to move");
    let (owner_id, mover) = if owner == 1 {
        (BOB, player(ALICE, "alice"))
    } else {
        (ALICE, player(BOB, "bob"))
    };
    let tree = Conditional {
        player_id: owner_id,
        ply: record.row.ply,
        tree: Tree::from_stored(&json!([last_two])).expect("a tree"),
    };
    let decision = decide_move(MoveInput {
        record: &record,
        game: &before,
        player: &mover,
        command: &command(&last_two[0], record.row.ply),
        repeats: None,
        now: NOW,
        schedule: no_clock(),
        pauses: &SeatPauses::default(),
        conditionals: &[tree],
    });
    let played = played(decision);
    let update = &played.progress.update;
    assert_eq!(update.status, GameStatus::Finished);
    assert_eq!(played.progress.moves.len(), 2);
    assert!(matches!(update.conditional, Some(ConditionalWrite::DeleteAll)));
    assert_eq!(kinds(&played.progress), ["move", "move", "finished"]);
}

#[test]
fn the_reply_uses_none_of_its_owners_time_and_earns_the_bank_bonus() {
    let schedule = Schedule {
        clock: Clock::new(
            TimeControl::Correspondence {
                days_per_move: 3,
                bank_days: None,
                bonus_days: Some(1),
                cap_days: Some(5),
            },
            Scale { day_ms: DAY },
        ),
        ..correspondence(3)
    };
    let mut record = with_trees();
    let started = ClockState {
        remaining_ms: vec![0, 0],
        turn_started_at: NOW - DAY,
    };
    record.row.clock = Some(started.to_stored());
    let played = alice_plays(&record, "d4", &[bobs(0, &[&["d4", "e5"]])], schedule);
    let update = &played.progress.update;
    let clock = ClockState::from_stored(update.clock.as_ref()).expect("a clock");
    // Both moves earned a day; the reply was played the moment bob's turn
    // began.
    assert_eq!(clock.remaining_ms, vec![DAY, DAY]);
    assert_eq!(clock.turn_started_at, NOW);
    assert_eq!(update.deadline, Some(NOW + 3 * DAY + DAY));
    let deadlines: Vec<Option<i64>> = played
        .progress
        .events
        .iter()
        .filter_map(|e| match e {
            GameEvent::Move(m) => Some(m.deadline),
            _ => None,
        })
        .collect();
    // Alice's move told bob's deadline (his bank still empty); the reply,
    // alice's.
    assert_eq!(deadlines, [Some(NOW + 3 * DAY), Some(NOW + 4 * DAY)]);
}
