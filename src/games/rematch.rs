//! Rematch: after a finished game, a new game of the same game, variant,
//! time control and rated flag, with the seats rotated (colours swapped in
//! a two-player game) and the other players invited; it starts when they
//! accept, like any invitation. A game has at most one rematch: asking for
//! one when it exists answers its offer (takes the invited seat) instead.
//! Offering one opens a game and invites: it counts against the asker's
//! caps on open games and invitations as a creation does (as on Lichess,
//! where a rematch is a challenge like any other).

use crate::clock::TimeControl;
use crate::domain::{GameStatus, Seat};
use crate::store::{GameRecord, Player, StoreError};
use crate::views::GameState;

use super::error::{GameError, GameResult};
use super::events::PlayerNotice;
use super::seats::Table;
use super::{Games, ATTEMPTS};

/// The seats of the rematch of `record`: whoever sat at seat `s` sits at
/// `s + 1` (the last seat's player moves first). `(player, invitee)` per
/// seat: `asker` sits, the others are invited.
fn rotated(record: &GameRecord, asker: i64) -> Vec<(Option<i64>, Option<i64>)> {
    let n = record.seats.len();
    (0..n)
        .map(|seat| {
            let from = (seat + n - 1) % n;
            match record.seats[from].player.as_ref().map(|(id, _)| *id) {
                Some(id) if id == asker => (Some(id), None),
                other => (None, other),
            }
        })
        .collect()
}

impl Games {
    /// Asks for a rematch of finished game `id`, or answers the rematch
    /// already asked for; the rematch's state.
    pub async fn rematch(&self, player: &Player, id: i64) -> GameResult<GameState> {
        self.admit(player)?;
        for _ in 0..ATTEMPTS {
            let record = self.load_visible(id, Some(player)).await?;
            if record.seat_of(player.id).is_none() {
                return Err(GameError::NotAPlayer);
            }
            if record.row.status != GameStatus::Finished {
                return Err(GameError::NotFinished {
                    id,
                    status: record.row.status,
                });
            }
            if let Some(next) = record.row.rematch {
                return self.answer_rematch(player, next).await;
            }
            match self.offer_rematch(player, &record).await {
                Ok(next) => return self.state(Some(player), next, None).await,
                // Someone else asked at the same moment: answer theirs.
                Err(GameError::Store(StoreError::Conflict)) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(GameError::Busy)
    }

    /// The rematch `next` exists: the asker takes their invited seat, or
    /// sees it as it is if they already sit there.
    async fn answer_rematch(&self, player: &Player, next: i64) -> GameResult<GameState> {
        let rematch = self.load_visible(next, Some(player)).await?;
        if rematch.invitation_of(player.id).is_some() && rematch.row.status == GameStatus::Open {
            return self.join(player, next, None, None).await;
        }
        self.state(Some(player), next, None).await
    }

    async fn offer_rematch(&self, player: &Player, record: &GameRecord) -> GameResult<i64> {
        let row = &record.row;
        let (info, variant) = crate::views::variant_info(row)
            .map_err(|e| GameError::internal(format!("game {} is of no known game: {e}", row.id)))?;
        let seats = rotated(record, player.id);
        let mine = seats
            .iter()
            .position(|(sitting, _)| sitting.is_some())
            .and_then(|s| Seat::new(s as u8))
            .ok_or(GameError::NotAPlayer)?;
        let mut invitees = Vec::new();
        for invitee in seats.iter().filter_map(|(_, invitee)| *invitee) {
            let other = self.store.player_by_id(invitee).await?;
            invitees.extend(other);
        }
        let standing = self.store.creator_standing(player.id, info.slug, variant.slug).await?;
        self.may_open(&standing, invitees.len())?;
        let table = Table {
            game: info.slug,
            variant: variant.slug,
            public: row.public,
            control: TimeControl::from_stored(row.time_control.as_ref()),
            rated: row.rated,
            rating_min: None,
            rating_max: None,
            rematch_of: Some(row.id),
        };
        let notice = PlayerNotice::Rematch {
            by: player.name.clone(),
            of: row.id,
        };
        let (id, _) = self.open_table(player, mine, seats, &invitees, table, notice).await?;
        Ok(id)
    }
}
