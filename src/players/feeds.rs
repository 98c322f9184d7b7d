//! What a player reads about themselves: their own event stream (invited,
//! game started, your turn, offers, game over, reminders) and the log of
//! their notification deliveries, a page at a time.

use super::{Players, Result};
use crate::store::{DeliveryRow, EventRow};

/// Events per page unless asked otherwise, and at most.
const EVENTS_PAGE: i64 = 100;
const EVENTS_MAX: i64 = 500;
/// Deliveries per page unless asked otherwise, and at most.
const DELIVERIES_PAGE: i64 = 50;
const DELIVERIES_MAX: i64 = 200;

/// A page size as asked for, within `1..=max`.
fn page(limit: Option<i64>, default: i64, max: i64) -> i64 {
    limit.unwrap_or(default).clamp(1, max)
}

impl Players {
    /// The player's events after `after`, in order.
    pub async fn events(&self, player_id: i64, after: i64, limit: Option<i64>) -> Result<Vec<EventRow>> {
        let limit = page(limit, EVENTS_PAGE, EVENTS_MAX);
        Ok(self.store.player_events(player_id, after, limit).await?)
    }

    /// The number of the player's last event (0 when none): where a live
    /// stream of them starts.
    pub async fn last_event(&self, player_id: i64) -> Result<i64> {
        Ok(self.store.player_event_seq(player_id).await?)
    }

    /// The player's deliveries, newest first, those before `before` if given.
    pub async fn deliveries(
        &self,
        player_id: i64,
        before: Option<i64>,
        limit: Option<i64>,
    ) -> Result<Vec<DeliveryRow>> {
        let limit = page(limit, DELIVERIES_PAGE, DELIVERIES_MAX);
        Ok(self.store.deliveries(player_id, before, limit).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_clamped() {
        assert_eq!(page(None, EVENTS_PAGE, EVENTS_MAX), 100);
        assert_eq!(page(Some(0), EVENTS_PAGE, EVENTS_MAX), 1);
        assert_eq!(page(Some(10_000), EVENTS_PAGE, EVENTS_MAX), 500);
        assert_eq!(page(Some(-3), DELIVERIES_PAGE, DELIVERIES_MAX), 1);
        assert_eq!(page(Some(120), DELIVERIES_PAGE, DELIVERIES_MAX), 120);
    }
}
