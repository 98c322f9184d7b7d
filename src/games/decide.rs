//! The decisions of the games service, as pure functions: given a stored
//! game, its position, the clock and a request, what to store and what to
//! announce. Nothing here loads, writes, awaits or reads the time; the
//! async shell (`play.rs`, `offers.rs`, `seats.rs`) loads what a decision
//! needs, calls it, commits the [`Progress`] and publishes it.

use crate::clock::{Clock, ClockState, Pause};
use crate::domain::{GameStatus, InviteCode, Seat};
use crate::rules::AnyGame;
use crate::store::{GameRecord, MoveRow, Player};

use super::commit::{NewMove, Progress};
use super::conditional::Conditional;
use super::error::{GameError, GameResult, OfferKind};
use super::events::{Ending, GameEvent, MoveEvent, PlayerNotice};
use super::MoveCommand;

/// The vacations that stop each seat's clock, indexed by seat (empty for
/// games without a correspondence clock).
#[derive(Clone, Debug, Default)]
pub struct SeatPauses(pub Vec<Vec<Pause>>);

impl SeatPauses {
    pub fn of(&self, seat: Option<Seat>) -> &[Pause] {
        seat.and_then(|s| self.0.get(s.index())).map_or(&[], Vec::as_slice)
    }
}

/// How clocks are kept: the clock of the game and when reminders go out.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub clock: Clock,
    /// How long before a correspondence deadline the player to move is
    /// reminded; 0 for no reminders.
    pub remind_before_ms: i64,
}

impl Schedule {
    /// When the player to move since `turn_started_at` is reminded of
    /// `deadline`: correspondence clocks only, and never before the turn.
    pub fn reminder(self, deadline: i64, turn_started_at: i64) -> Option<i64> {
        let remind_at = deadline - self.remind_before_ms;
        (self.clock.control.is_correspondence() && self.remind_before_ms > 0 && remind_at > turn_started_at)
            .then_some(remind_at)
    }
}

/// What a move request needs decided.
pub struct MoveInput<'a> {
    pub record: &'a GameRecord,
    /// The position of `record`.
    pub game: &'a AnyGame,
    pub player: &'a Player,
    pub command: &'a MoveCommand,
    /// The stored move this request repeats (same player, ply and move),
    /// found by the shell when the request's ply is behind.
    pub repeats: Option<&'a MoveRow>,
    pub now: i64,
    pub schedule: Schedule,
    pub pauses: &'a SeatPauses,
    /// The game's trees of conditional moves, valid at `record`'s
    /// `conditional_rev`.
    pub conditionals: &'a [Conditional],
}

/// What becomes of a move request that the rules and the table allow to be
/// considered at all.
#[derive(Debug)]
pub enum MoveDecision {
    /// A retry of a move already stored: answer it again, apply nothing.
    Repeat(MoveRow),
    /// The client is behind: refuse with the current state.
    Stale { at: i64, asked: i64 },
    /// The game is not being played: refuse with the current state.
    NotActive(GameStatus),
    /// The mover's time ran out before the move arrived: the game is lost
    /// on time instead.
    OutOfTime,
    /// Play it: commit `progress`, after which the position is `next`.
    Play(Box<Played>),
}

/// A decided move, ready to commit.
#[derive(Debug)]
pub struct Played {
    pub progress: Progress,
    pub next: AnyGame,
    pub stored: NewMove,
}

/// Decides a move request. Refusals that need no state (not found, not a
/// player, not your turn, the rules' refusal) are errors; the rest are
/// decisions the shell answers.
pub fn decide_move(input: MoveInput<'_>) -> GameResult<MoveDecision> {
    let MoveInput {
        record,
        game,
        player,
        command,
        repeats,
        now,
        schedule,
        pauses,
        conditionals,
    } = input;
    let row = &record.row;
    if !record.visible_to(Some(player)) {
        return Err(GameError::NotFound(row.id));
    }
    let seat = record.seat_of(player.id).ok_or(GameError::NotAPlayer)?;
    if let Some(stored) = repeats.filter(|m| m.player_id == player.id && command.ply < row.ply) {
        return Ok(MoveDecision::Repeat(stored.clone()));
    }
    if row.status != GameStatus::Active {
        return Ok(MoveDecision::NotActive(row.status));
    }
    if command.ply != row.ply {
        return Ok(MoveDecision::Stale {
            at: row.ply,
            asked: command.ply,
        });
    }
    if row.to_move != Some(seat) {
        return Err(GameError::NotYourTurn);
    }
    let mut next = game.clone();
    let played: crate::rules::Played = next.play(&command.notation).map_err(GameError::Move)?;
    let clock_state = match ClockState::from_stored(row.clock.as_ref()) {
        Some(state) => match schedule
            .clock
            .after_move(&state, seat.index(), now, pauses.of(Some(seat)))
        {
            Ok(next_state) => Some(next_state),
            Err(_deadline) => return Ok(MoveDecision::OutOfTime),
        },
        None => None,
    };
    let mut progress = Progress::of(record, now);
    let mover = Mover {
        seat,
        player_id: player.id,
        name: &player.name,
    };
    let message = command.message.clone().filter(|m| !m.is_empty());
    let stored = record_move(&mut progress, record, &next, &mover, played, message, false);
    let mut clock_state = clock_state;
    reply::answer(
        reply::Answer {
            progress: &mut progress,
            record,
            next: &mut next,
            clock: &mut clock_state,
            theirs: &stored.notation,
        },
        conditionals,
        schedule,
        pauses,
    );
    let to_move = progress.update.to_move;
    schedule_clock(&mut progress, schedule, clock_state, pauses.of(to_move));
    Ok(MoveDecision::Play(Box::new(Played { progress, next, stored })))
}

/// Who plays a move.
struct Mover<'a> {
    seat: Seat,
    player_id: i64,
    name: &'a str,
}

/// Adds to `progress` the legal move `played` by `mover`, after which the
/// position is `next`: the move stored, the event, the turn passed on or
/// the game finished, the others' offers declined. `conditional`: the
/// mover's tree played it. The clock is left to [`schedule_clock`].
fn record_move(
    progress: &mut Progress,
    record: &GameRecord,
    next: &AnyGame,
    mover: &Mover<'_>,
    played: crate::rules::Played,
    message: Option<String>,
    conditional: bool,
) -> NewMove {
    let update = &mut progress.update;
    let ply = update.ply + 1;
    update.ply = ply;
    update.to_move = next.to_move().map(Seat::from);
    // A move answers the others' offers with no; the mover's stands.
    update.draw_offer &= mover.seat.bit();
    update.takeback_offer = 0;
    let stored = NewMove {
        ply,
        seat: mover.seat,
        player_id: mover.player_id,
        notation: played.notation.clone(),
        effect: played.effect.clone(),
        message: message.clone(),
    };
    progress.moves.push(stored.clone());
    let outcome = next.outcome();
    progress.event(GameEvent::Move(MoveEvent {
        ply,
        seat: mover.seat,
        player: mover.name.to_owned(),
        notation: played.notation,
        effect: played.effect,
        message,
        status: if outcome.is_some() {
            GameStatus::Finished
        } else {
            GameStatus::Active
        },
        to_move: progress.update.to_move,
        deadline: None,
        remaining_ms: None,
        conditional,
    }));
    match outcome {
        Some(outcome) => progress.finish(record, Ending::Rules(outcome)),
        None => your_turn(progress, record, ply),
    }
    stored
}

/// Tells the player to move (if seated) that it is their turn at `ply`.
pub fn your_turn(progress: &mut Progress, record: &GameRecord, ply: i64) {
    let seat = progress.update.to_move;
    if let (Some(seat), Some(player)) = (seat, record.player_at(seat)) {
        progress.notify(
            player,
            PlayerNotice::YourTurn {
                ply,
                seat,
                deadline: None,
            },
        );
    }
}

/// Sets the clock, deadline and reminder of the player to move under
/// `state`, and tells them (and the move's watchers) the deadline.
pub fn schedule_clock(progress: &mut Progress, schedule: Schedule, state: Option<ClockState>, pauses: &[Pause]) {
    let update = &mut progress.update;
    update.clock = state.as_ref().map(ClockState::to_stored);
    update.deadline = None;
    update.reminder_at = None;
    let (Some(state), Some(seat), GameStatus::Active) = (state, update.to_move, update.status) else {
        return;
    };
    let Some(deadline) = schedule.clock.deadline(&state, seat.index(), pauses) else {
        return;
    };
    update.deadline = Some(deadline);
    update.reminder_at = schedule.reminder(deadline, state.turn_started_at);
    stamp_moves(progress, deadline, &state);
    for (_, notice) in &mut progress.notices {
        if let PlayerNotice::YourTurn { deadline: d, .. } = notice {
            *d = Some(deadline);
        }
    }
}

/// Tells the watchers of the moves not yet stamped (all but those before a
/// conditional reply) the deadline and clocks they leave.
fn stamp_moves(progress: &mut Progress, deadline: i64, state: &ClockState) {
    for event in &mut progress.events {
        if let GameEvent::Move(m) = event {
            if m.remaining_ms.is_none() {
                m.deadline = Some(deadline);
                m.remaining_ms = Some(state.remaining_ms.clone());
            }
        }
    }
}

/// Who wins when `seat` leaves a game that its leaving ends (a forfeit):
/// the rules say (the other team in a team game, else every other seat
/// still in it).
pub fn conceded_winners(game: &AnyGame, seat: Seat) -> Vec<Seat> {
    game.winners_if_conceded(seat.rules())
        .into_iter()
        .map(Seat::from)
        .collect()
}

/// The seats still in the game, as a mask: every seat but those a
/// concession put out (four-player Focus). Agreements need them all.
pub fn seats_in(record: &GameRecord, game: &AnyGame) -> i64 {
    record
        .seats
        .iter()
        .filter(|s| !game.is_out(s.seat.rules()))
        .fold(0, |mask, s| mask | s.seat.bit())
}

/// `yes`: `seat` offers a draw, or accepts every other seat's offer. `no`:
/// declines (or withdraws) the pending offer. Offering twice changes
/// nothing (no events).
pub fn draw(progress: &mut Progress, record: &GameRecord, game: &AnyGame, seat: Seat, yes: bool) -> GameResult<()> {
    if !yes {
        return refuse_offer(progress, OfferKind::Draw, seat);
    }
    let update = &mut progress.update;
    if update.draw_offer & seat.bit() != 0 {
        return Ok(());
    }
    update.draw_offer |= seat.bit();
    if update.draw_offer == seats_in(record, game) {
        progress.event(GameEvent::DrawAgreed { seat });
        progress.finish(record, Ending::Agreement);
    } else {
        progress.event(GameEvent::DrawOffered { seat });
        tell_the_others(progress, record, seat, PlayerNotice::DrawOffered { seat });
    }
    Ok(())
}

/// `yes`: `seat` asks to take back the last move, or agrees to it. `no`:
/// refuses. `Some(ply)` when every seat agreed: the position goes back to
/// `ply` (the shell replays it and restarts the clock).
pub fn takeback(
    progress: &mut Progress,
    record: &GameRecord,
    game: &AnyGame,
    seat: Seat,
    yes: bool,
) -> GameResult<Option<i64>> {
    if !yes {
        return refuse_offer(progress, OfferKind::Takeback, seat).map(|()| None);
    }
    let ply = record.row.ply;
    if ply == 0 {
        return Err(GameError::NoMove);
    }
    if game.conceded_at().is_some_and(|at| i64::from(at) == ply) {
        return Err(GameError::TakebackPastConcession { ply });
    }
    let everyone = seats_in(record, game);
    let update = &mut progress.update;
    if update.takeback_offer & seat.bit() != 0 {
        return Ok(None);
    }
    update.takeback_offer |= seat.bit();
    if update.takeback_offer == everyone {
        update.takeback_offer = 0;
        update.draw_offer = 0;
        update.ply = ply - 1;
        progress.clear_conditionals(record);
        progress.event(GameEvent::TakebackAccepted { seat, ply });
        return Ok(Some(ply - 1));
    }
    progress.event(GameEvent::TakebackOffered { seat, ply });
    tell_the_others(progress, record, seat, PlayerNotice::TakebackOffered { seat });
    Ok(None)
}

/// `seat` says no to the pending offer of `kind` (or withdraws its own).
fn refuse_offer(progress: &mut Progress, kind: OfferKind, seat: Seat) -> GameResult<()> {
    let (pending, declined) = match kind {
        OfferKind::Draw => (&mut progress.update.draw_offer, GameEvent::DrawDeclined { seat }),
        OfferKind::Takeback => (
            &mut progress.update.takeback_offer,
            GameEvent::TakebackDeclined { seat },
        ),
    };
    if *pending == 0 {
        return Err(GameError::NoOffer(kind));
    }
    *pending = 0;
    progress.event(declined);
    Ok(())
}

/// Tells every seated player but the one at `seat`.
fn tell_the_others(progress: &mut Progress, record: &GameRecord, seat: Seat, notice: PlayerNotice) {
    let from = record.player_at(Some(seat));
    for player in record.seated_players().into_iter().filter(|p| Some(*p) != from) {
        progress.notify(player, notice.clone());
    }
}

/// Refuses an action that needs the game being played.
pub fn must_be_active(record: &GameRecord) -> GameResult<()> {
    match record.row.status {
        GameStatus::Active => Ok(()),
        status => Err(GameError::NotActive {
            id: record.row.id,
            status,
            current: None,
        }),
    }
}

/// Whether a game may still be aborted: while seats are open, or before
/// every seat has moved once, and never a tournament's game (its round
/// waits for every one of its games to end).
pub fn may_abort(record: &GameRecord) -> GameResult<()> {
    let row = &record.row;
    if row.tournament_id.is_some() {
        return Err(GameError::TournamentGame);
    }
    match row.status {
        GameStatus::Open => Ok(()),
        GameStatus::Active if row.ply < record.seats.len() as i64 => Ok(()),
        GameStatus::Active => Err(GameError::TooLate),
        status => Err(GameError::NotActive {
            id: row.id,
            status,
            current: None,
        }),
    }
}

/// An abort by `player`, seated at `seat`.
pub fn abort(progress: &mut Progress, record: &GameRecord, player: &Player, seat: Seat) {
    let update = &mut progress.update;
    update.status = GameStatus::Aborted;
    update.to_move = None;
    update.draw_offer = 0;
    update.takeback_offer = 0;
    progress.clear_conditionals(record);
    progress.event(GameEvent::Aborted {
        seat,
        player: player.name.clone(),
    });
    for other in record.seated_players().into_iter().filter(|p| *p != player.id) {
        progress.notify(other, PlayerNotice::Aborted { aborted: true });
    }
}

/// Whether `player` may look for a seat at all: at a public game anyone, at
/// a private one its participants and whoever holds its invitation `code`.
/// Everyone else hears what a missing id gives.
pub fn may_join(record: &GameRecord, player: &Player, code: Option<&InviteCode>) -> GameResult<()> {
    if record.visible_to(Some(player)) || record.opened_by(code) {
        Ok(())
    } else {
        Err(GameError::NotFound(record.row.id))
    }
}

/// The seat `player` takes when joining: their invitation, the seat asked
/// for, or the first seat open to anyone.
pub fn choose_seat(record: &GameRecord, player: i64, asked: Option<u8>) -> GameResult<Seat> {
    let id = record.row.id;
    if record.seat_of(player).is_some() {
        return Err(GameError::AlreadySeated);
    }
    if record.row.status != GameStatus::Open {
        return Err(GameError::NotOpen {
            id,
            status: record.row.status,
        });
    }
    match (record.invitation_of(player), asked) {
        (Some(invited), None) => Ok(invited),
        (Some(invited), Some(n)) if invited.rules() == n => Ok(invited),
        (Some(invited), Some(_)) => Err(GameError::InvitedElsewhere(invited)),
        (None, Some(n)) => {
            let s = record
                .seats
                .iter()
                .find(|s| s.seat.rules() == n)
                .ok_or(GameError::NoSuchSeat { id, seat: n })?;
            if s.player.is_some() {
                return Err(GameError::SeatTaken(s.seat));
            }
            if s.invitee.as_ref().is_some_and(|(i, _)| *i != player) {
                return Err(GameError::SeatReserved(s.seat));
            }
            Ok(s.seat)
        }
        (None, None) => record
            .seats
            .iter()
            .find(|s| s.player.is_none() && s.invitee.is_none())
            .map(|s| s.seat)
            .ok_or(GameError::NoOpenSeat),
    }
}

/// Whether a player rated `rating` may take an open seat of `record`: an
/// invitation is let in whatever the range.
pub fn check_rating_range(record: &GameRecord, player: i64, rating: f64) -> GameResult<()> {
    let row = &record.row;
    let rating = rating.round() as i64;
    let below = row.rating_min.is_some_and(|min| rating < min);
    let above = row.rating_max.is_some_and(|max| rating > max);
    if record.invitation_of(player).is_none() && (below || above) {
        return Err(GameError::OutsideRatingRange {
            rating,
            min: row.rating_min,
            max: row.rating_max,
        });
    }
    Ok(())
}

/// `player` takes `seat`; when that fills the table the game starts, its
/// clock with it, and the first player to move is told.
pub fn sit(
    progress: &mut Progress,
    record: &GameRecord,
    game: &AnyGame,
    player: &Player,
    seat: Seat,
    schedule: Schedule,
    pauses: &SeatPauses,
) {
    progress.sit(seat, player);
    progress.event(GameEvent::Joined {
        seat,
        player: player.name.clone(),
    });
    let full = record.seats.iter().all(|s| s.player.is_some() || s.seat == seat);
    if !full {
        return;
    }
    let to_move = game.to_move().map(Seat::from);
    progress.update.status = GameStatus::Active;
    progress.update.to_move = to_move;
    progress.event(GameEvent::Started { to_move });
    let mut players = record.seated_players();
    players.push(player.id);
    for other in players {
        progress.notify(other, PlayerNotice::GameStarted {});
    }
    let first = if to_move == Some(seat) {
        Some(player.id)
    } else {
        record.player_at(to_move)
    };
    if let (Some(first), Some(to_move)) = (first, to_move) {
        progress.notify(
            first,
            PlayerNotice::YourTurn {
                ply: 0,
                seat: to_move,
                deadline: None,
            },
        );
    }
    let clock = schedule.clock.start(record.seats.len(), progress.update.now);
    schedule_clock(progress, schedule, clock, pauses.of(to_move));
}

/// A declined invitation of `player`, reserved `seat`: the game is called
/// off and the seated players told.
pub fn decline(progress: &mut Progress, record: &GameRecord, player: &Player, seat: Seat) {
    progress.update.status = GameStatus::Aborted;
    progress.update.to_move = None;
    progress.event(GameEvent::Declined {
        seat,
        player: player.name.clone(),
    });
    progress.event(GameEvent::CalledOff {
        reason: "invitation declined",
    });
    for other in record.seated_players() {
        progress.notify(
            other,
            PlayerNotice::Declined {
                player: player.name.clone(),
            },
        );
    }
}

mod concede;
mod reply;
#[cfg(test)]
mod tests;

pub use concede::{concede, Concession, How};
