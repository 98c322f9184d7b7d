//! A seat's concession, decided: a resignation (in turn or not), or the
//! player to move out of time.
//!
//! In a game that goes on without the seat (four-player Focus, each for
//! themselves) the concession is an entry of the history, written
//! `concede:<seat>` ([`crate::rules::Concession`]), so that every replay
//! (the cache, `?ply=N`, the record, a takeback) puts the seat out again:
//! it is skipped like a blocked player, the turn and the clock pass on only
//! if it was theirs, and the last one left wins. In every other game the
//! concession ends it, as the rules say (the others, or the other team,
//! win), and the history is left as it is.

use crate::clock::ClockState;
use crate::domain::Seat;
use crate::rules::{AnyGame, ConcedeError, Conceded};
use crate::store::GameRecord;

use super::{record_move, schedule_clock, Mover, Progress, Schedule, SeatPauses};
use crate::games::error::{GameError, GameResult};
use crate::games::events::{Ending, GameEvent};

/// How a seat concedes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    Resigned,
    /// The seat was to move and its clock passed `deadline`.
    OutOfTime {
        deadline: i64,
    },
}

/// What a concession needs decided.
pub struct Concession<'a> {
    pub record: &'a GameRecord,
    /// The position of `record`.
    pub game: &'a AnyGame,
    pub seat: Seat,
    pub how: How,
    pub schedule: Schedule,
    pub pauses: &'a SeatPauses,
}

/// Decides `seat`'s concession into `progress`: the event, then the seat
/// out (a history entry, the turn and clock passed on) or the game over.
/// Returns the position after it. A seat already out is refused.
pub fn concede(progress: &mut Progress, concession: Concession<'_>) -> GameResult<AnyGame> {
    let Concession {
        record,
        game,
        seat,
        how,
        schedule,
        pauses,
    } = concession;
    let name = record.name_at(seat).map(str::to_owned);
    progress.event(match how {
        How::Resigned => GameEvent::Resigned { seat },
        How::OutOfTime { deadline } => GameEvent::Timeout {
            seat,
            player: name.clone(),
            deadline,
        },
    });
    let mut clock = ClockState::from_stored(record.row.clock.as_ref());
    if let (How::OutOfTime { .. }, Some(state)) = (how, clock.as_mut()) {
        if let Some(left) = state.remaining_ms.get_mut(seat.index()) {
            *left = 0;
        }
    }
    let mut next = game.clone();
    let conceded = next.concede(seat.rules()).map_err(|e| match e {
        ConcedeError::AlreadyOut(_) => GameError::OutOfGame,
        ConcedeError::GameOver => GameError::GameOver,
        e @ ConcedeError::NoSuchSeat(_) => GameError::internal(e),
    })?;
    match conceded {
        Conceded::Over(winners) => {
            let winners = winners.into_iter().map(Seat::from).collect();
            progress.finish(
                record,
                match how {
                    How::Resigned => Ending::Resignation { winners },
                    How::OutOfTime { .. } => Ending::Time { winners },
                },
            );
        }
        Conceded::Out(mut played) => {
            let (Some(player_id), Some(name)) = (record.player_at(Some(seat)), name) else {
                return Err(GameError::internal(format!("seat {seat} of an active game is empty")));
            };
            let colour = next.id().variant.seats.get(seat.index()).copied().unwrap_or("?");
            played.effect = Some(match how {
                How::Resigned => format!("{colour} resigns"),
                How::OutOfTime { .. } => format!("{colour} runs out of time"),
            });
            let mover = Mover {
                seat,
                player_id,
                name: &name,
            };
            record_move(progress, record, &next, &mover, played, None, false);
            // The game changed under every pending offer.
            progress.update.draw_offer = 0;
            if record.row.to_move == Some(seat) {
                if let Some(state) = clock.as_mut() {
                    state.turn_started_at = progress.update.now;
                }
            }
        }
    }
    let to_move = progress.update.to_move;
    schedule_clock(progress, schedule, clock, pauses.of(to_move));
    if to_move.is_some() && to_move == record.row.to_move {
        // The same turn goes on: a reminder already sent for it is not
        // sent again.
        progress.update.reminder_at = record.row.reminder_at.and(progress.update.reminder_at);
    }
    Ok(next)
}

#[cfg(test)]
mod tests;
