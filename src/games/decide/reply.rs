//! The conditional reply, decided with the move it answers: when a move
//! passes the turn to a player whose tree of conditional moves foresaw it,
//! that player's reply is played in the same [`Progress`] (one transaction,
//! two plies, two events), and the tree advances to what remains of the
//! lines that matched. A move no line foresaw, or a reply the position no
//! longer allows, clears the tree and tells its owner.
//!
//! The reply uses none of its owner's time (it is played at the moment
//! their turn began) but counts as a move for the clock: a correspondence
//! bank earns its bonus, a live clock its increment. The owner is not told
//! it is their turn for a ply the tree played.

use crate::clock::ClockState;
use crate::domain::GameStatus;
use crate::rules::AnyGame;
use crate::store::{ConditionalWrite, GameRecord, NewConditional};

use super::{record_move, stamp_moves, Mover, Progress, Schedule, SeatPauses};
use crate::games::conditional::Conditional;
use crate::games::events::{ClearedBecause, PlayerNotice};

/// The move just added to `progress`, to answer.
pub(super) struct Answer<'a> {
    pub progress: &'a mut Progress,
    pub record: &'a GameRecord,
    /// The position after the move; after the reply, if one is played.
    pub next: &'a mut AnyGame,
    /// The clock after the move; after the reply, if one is played.
    pub clock: &'a mut Option<ClockState>,
    /// The move, in canonical notation.
    pub theirs: &'a str,
}

/// Plays the reply of the player to move, if their tree foresaw the move.
pub(super) fn answer(answer: Answer<'_>, trees: &[Conditional], schedule: Schedule, pauses: &SeatPauses) {
    let Answer {
        progress,
        record,
        next,
        clock,
        theirs,
    } = answer;
    if progress.update.status != GameStatus::Active {
        // The move ended the game, which took every tree with it.
        return;
    }
    let Some(owner_seat) = progress.update.to_move else {
        return;
    };
    let Some((owner, name)) = record
        .seats
        .iter()
        .find(|s| s.seat == owner_seat)
        .and_then(|s| s.player.clone())
    else {
        return;
    };
    // A tree is valid in the position it was set in, the one before this
    // move; any other is stale and never plays.
    let Some(tree) = trees.iter().find(|t| t.player_id == owner && t.ply == record.row.ply) else {
        return;
    };
    let Some((mine, rest)) = tree.tree.answer(theirs) else {
        return clear(progress, owner, ClearedBecause::Unforeseen);
    };
    let mut after = next.clone();
    let Ok(played) = after.play(mine) else {
        return clear(progress, owner, ClearedBecause::Illegal);
    };
    let now = progress.update.now;
    let owner_pauses = pauses.of(Some(owner_seat));
    let answered = match clock.as_ref() {
        // Played at the moment the owner's turn began: no time used, and
        // so never too late.
        Some(state) => match schedule.clock.after_move(state, owner_seat.index(), now, owner_pauses) {
            Ok(answered) => {
                // The move's watchers hear the owner's clock, as they would
                // have without the reply.
                if let Some(deadline) = schedule.clock.deadline(state, owner_seat.index(), owner_pauses) {
                    stamp_moves(progress, deadline, state);
                }
                Some(answered)
            }
            Err(_) => return clear(progress, owner, ClearedBecause::Illegal),
        },
        None => None,
    };
    // The tree moves for its owner: their turn is over before it began.
    progress
        .notices
        .retain(|(player, notice)| !(*player == owner && matches!(notice, PlayerNotice::YourTurn { .. })));
    let mover = Mover {
        seat: owner_seat,
        player_id: owner,
        name: &name,
    };
    record_move(progress, record, &after, &mover, played, None, true);
    *next = after;
    *clock = answered;
    if progress.update.status == GameStatus::Active {
        progress.update.conditional = Some(if rest.is_empty() {
            ConditionalWrite::Delete { player_id: owner }
        } else {
            ConditionalWrite::Put(NewConditional {
                player_id: owner,
                ply: progress.update.ply,
                lines: rest.to_stored(),
            })
        });
    }
}

/// The owner's tree goes, and they are told why.
fn clear(progress: &mut Progress, owner: i64, because: ClearedBecause) {
    progress.update.conditional = Some(ConditionalWrite::Delete { player_id: owner });
    let ply = progress.update.ply;
    progress.notify(owner, PlayerNotice::ConditionalCleared { ply, reason: because });
}

#[cfg(test)]
mod tests;
