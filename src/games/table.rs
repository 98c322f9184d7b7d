//! Who sits where at a stored game: the questions every action asks of a
//! [`GameRecord`] before it decides anything, and who may see it at all.

use crate::domain::{all_seats_mask, InviteCode, Seat};
use crate::store::{GameRecord, Player};

impl GameRecord {
    /// The seat `player` sits at, if any.
    pub fn seat_of(&self, player: i64) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.player.as_ref().is_some_and(|(id, _)| *id == player))
            .map(|s| s.seat)
    }

    /// Shows `rating` (`(rating, rd)`) at the seat `player` sits at.
    pub fn show_rating(&mut self, player: i64, rating: Option<(f64, f64)>) {
        let seat = self
            .seats
            .iter_mut()
            .find(|s| s.player.as_ref().is_some_and(|(id, _)| *id == player));
        if let Some(seat) = seat {
            seat.rating = rating;
        }
    }

    /// Seated or invited.
    pub fn is_participant(&self, player: i64) -> bool {
        self.seats.iter().any(|s| {
            s.player.as_ref().is_some_and(|(id, _)| *id == player)
                || s.invitee.as_ref().is_some_and(|(id, _)| *id == player)
        })
    }

    /// Public games are seen by everyone, private ones by their participants.
    pub fn visible_to(&self, viewer: Option<&Player>) -> bool {
        self.row.public || viewer.is_some_and(|p| self.is_participant(p.id))
    }

    /// Whether `code` is this private game's invitation code.
    pub fn opened_by(&self, code: Option<&InviteCode>) -> bool {
        match (code, self.row.invite_code.as_deref()) {
            (Some(code), Some(stored)) => code.opens(stored),
            _ => false,
        }
    }

    /// What `viewer` may see of a private game's invitation: its code, to
    /// participants only.
    pub fn invite_code_for(&self, viewer: Option<&Player>) -> Option<&str> {
        let participant = viewer.is_some_and(|p| self.is_participant(p.id));
        self.row.invite_code.as_deref().filter(|_| participant)
    }

    /// The players seated, in seat order.
    pub fn seated_players(&self) -> Vec<i64> {
        self.seats
            .iter()
            .filter_map(|s| s.player.as_ref().map(|(id, _)| *id))
            .collect()
    }

    /// Who sits at `seat`.
    pub fn player_at(&self, seat: Option<Seat>) -> Option<i64> {
        let seat = seat?;
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .and_then(|s| s.player.as_ref().map(|(id, _)| *id))
    }

    /// The name of who sits at `seat`.
    pub fn name_at(&self, seat: Seat) -> Option<&str> {
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .and_then(|s| s.player.as_ref().map(|(_, name)| name.as_str()))
    }

    /// The seat reserved for `player` and not yet taken.
    pub fn invitation_of(&self, player: i64) -> Option<Seat> {
        self.seats
            .iter()
            .find(|s| s.player.is_none() && s.invitee.as_ref().is_some_and(|(id, _)| *id == player))
            .map(|s| s.seat)
    }

    /// Every seat of the table, as an offer mask.
    pub fn all_seats(&self) -> i64 {
        all_seats_mask(self.seats.len())
    }
}
