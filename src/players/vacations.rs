//! Vacations: while one runs, the player's correspondence clocks stop.
//!
//! The rules are pure functions of the stored vacations and the time:
//! each player has an allowance of days per calendar year (a vacation counts
//! in the year it starts, a started day in full); a vacation starts now or
//! later within a year, never in the past; vacations never overlap. Ending
//! early cuts the current vacation at the moment and cancels those to come,
//! so the days not begun return to the allowance. The service checks a
//! request against these rules, writes it, and has the player's deadlines
//! recomputed through the [`super::Deadlines`] port.

use super::{Me, PlayerError, Players, Result};
use crate::domain::now;
use crate::store::{NewVacation, Player, StoreError};

/// A client's clock may be this far behind ours.
const START_SLACK_MS: i64 = 60_000;
/// How far ahead a vacation may start: a year, in real time.
const YEAR_AHEAD_MS: i64 = 366 * 86_400_000;

/// A stored vacation, in Unix ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vacation {
    pub start: i64,
    pub end: i64,
}

impl From<(i64, i64)> for Vacation {
    fn from((start, end): (i64, i64)) -> Vacation {
        Vacation { start, end }
    }
}

impl Vacation {
    fn overlaps(&self, other: &Vacation) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// What each player may take.
#[derive(Clone, Copy, Debug)]
pub struct Allowance {
    /// Days per calendar year.
    pub days_per_year: i64,
    /// How long a day lasts (the clock's day, shorter in tests).
    pub day_ms: i64,
}

/// A vacation as asked for.
#[derive(Clone, Copy, Debug)]
pub struct VacationRequest {
    pub days: i64,
    /// Unix ms; now when absent.
    pub start: Option<i64>,
}

/// Why a vacation cannot be declared as asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VacationRefused {
    #[error("a vacation cannot start in the past")]
    StartsInPast,
    #[error("a vacation starts within a year")]
    StartsTooLate,
    /// Fewer than one day, or more than what is left of the year's allowance.
    #[error("days must be between 1 and {left}, what is left of this year's allowance")]
    BadDays { left: i64 },
    #[error("this vacation overlaps another one")]
    Overlaps,
    /// Another vacation starts at the same moment (the store's unique key).
    #[error("a vacation starts then already")]
    StartTaken,
}

/// The calendar year (UTC) of a moment in Unix ms.
pub fn year_of(ms: i64) -> i32 {
    time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .map(|t| t.year())
        .unwrap_or(0)
}

impl Allowance {
    /// Days of the vacations starting in `year`, a started day counting in
    /// full.
    pub fn days_used(&self, vacations: &[Vacation], year: i32) -> i64 {
        vacations
            .iter()
            .filter(|v| year_of(v.start) == year)
            .map(|v| (v.end - v.start + self.day_ms - 1) / self.day_ms)
            .sum()
    }

    /// Days left in the calendar year of `at`.
    pub fn days_left(&self, vacations: &[Vacation], at: i64) -> i64 {
        self.days_per_year - self.days_used(vacations, year_of(at))
    }

    /// The vacation `request` declares at `now`, or why it cannot be.
    pub fn plan(
        &self,
        vacations: &[Vacation],
        request: VacationRequest,
        now: i64,
    ) -> Result<Vacation, VacationRefused> {
        // A vacation cannot be backdated: it would rewrite clocks that
        // already ran.
        let start = request.start.unwrap_or(now).max(now);
        if request.start.is_some_and(|s| s < now - START_SLACK_MS) {
            return Err(VacationRefused::StartsInPast);
        }
        if start > now + YEAR_AHEAD_MS {
            return Err(VacationRefused::StartsTooLate);
        }
        let left = self.days_left(vacations, start);
        if request.days < 1 || request.days > left {
            return Err(VacationRefused::BadDays { left });
        }
        let planned = Vacation {
            start,
            end: start + request.days * self.day_ms,
        };
        if vacations.iter().any(|v| v.overlaps(&planned)) {
            return Err(VacationRefused::Overlaps);
        }
        Ok(planned)
    }
}

/// The end of the current or next vacation, if any.
pub fn until(vacations: &[Vacation], now: i64) -> Option<i64> {
    vacations.iter().map(|v| v.end).filter(|&end| end > now).max()
}

impl Players {
    pub(super) async fn vacations(&self, player_id: i64) -> Result<Vec<Vacation>> {
        let stored = self.store.vacations(player_id).await?;
        Ok(stored.into_iter().map(Vacation::from).collect())
    }

    /// Declares a vacation; the player's correspondence clocks stop during it.
    pub async fn declare_vacation(&self, player: &Player, request: VacationRequest) -> Result<Me> {
        let vacations = self.vacations(player.id).await?;
        let planned = self.config.allowance().plan(&vacations, request, now())?;
        self.store
            .add_vacation(NewVacation {
                player_id: player.id,
                starts_at: planned.start,
                ends_at: planned.end,
            })
            .await
            .map_err(|e| match e {
                StoreError::Unique => VacationRefused::StartTaken.into(),
                other => PlayerError::from(other),
            })?;
        self.refresh_deadlines(player).await
    }

    /// Ends the current vacation now and cancels any to come.
    pub async fn end_vacation(&self, player: &Player) -> Result<Me> {
        if !self.store.end_vacations(player.id, now()).await? {
            return Err(PlayerError::NoVacation);
        }
        self.refresh_deadlines(player).await
    }

    async fn refresh_deadlines(&self, player: &Player) -> Result<Me> {
        self.deadlines
            .refresh(player.id)
            .await
            .map_err(PlayerError::Deadlines)?;
        self.me(player).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400_000;
    /// 2026-03-01T00:00:00Z.
    const MARCH: i64 = 1_772_323_200_000;
    /// 2026-12-31T00:00:00Z.
    const NEW_YEARS_EVE: i64 = 1_798_675_200_000;

    const ALLOWANCE: Allowance = Allowance {
        days_per_year: 30,
        day_ms: DAY,
    };

    fn days(start: i64, n: i64) -> Vacation {
        Vacation {
            start,
            end: start + n * DAY,
        }
    }

    fn ask(days: i64, start: Option<i64>) -> VacationRequest {
        VacationRequest { days, start }
    }

    #[test]
    fn years_are_calendar_years_in_utc() {
        assert_eq!(year_of(MARCH), 2026);
        assert_eq!(year_of(NEW_YEARS_EVE + DAY - 1), 2026);
        assert_eq!(year_of(NEW_YEARS_EVE + DAY), 2027);
        assert_eq!(year_of(-1), 1969);
    }

    #[test]
    fn the_allowance_counts_started_days_in_the_year_a_vacation_starts() {
        let spanning = days(NEW_YEARS_EVE, 3);
        let started = Vacation {
            start: MARCH,
            end: MARCH + DAY + 1,
        };
        let vacations = [started, spanning];
        assert_eq!(ALLOWANCE.days_used(&vacations, 2026), 2 + 3);
        assert_eq!(ALLOWANCE.days_used(&vacations, 2027), 0);
        assert_eq!(ALLOWANCE.days_left(&vacations, MARCH), 25);
        assert_eq!(ALLOWANCE.days_left(&vacations, NEW_YEARS_EVE + 5 * DAY), 30);
    }

    #[test]
    fn a_vacation_starts_now_or_later_within_a_year() {
        let now = MARCH;
        assert_eq!(ALLOWANCE.plan(&[], ask(2, None), now), Ok(days(now, 2)));
        // A client's clock slightly behind starts it now.
        assert_eq!(ALLOWANCE.plan(&[], ask(2, Some(now - 1_000)), now), Ok(days(now, 2)));
        assert_eq!(
            ALLOWANCE.plan(&[], ask(2, Some(now - 2 * START_SLACK_MS)), now),
            Err(VacationRefused::StartsInPast)
        );
        assert_eq!(
            ALLOWANCE.plan(&[], ask(2, Some(now + 367 * DAY)), now),
            Err(VacationRefused::StartsTooLate)
        );
        assert_eq!(
            ALLOWANCE.plan(&[], ask(2, Some(now + 10 * DAY)), now),
            Ok(days(now + 10 * DAY, 2))
        );
    }

    #[test]
    fn days_are_at_least_one_and_at_most_what_is_left() {
        let taken = [days(MARCH, 28)];
        let later = MARCH + 40 * DAY;
        assert_eq!(
            ALLOWANCE.plan(&taken, ask(0, Some(later)), MARCH),
            Err(VacationRefused::BadDays { left: 2 })
        );
        assert_eq!(
            ALLOWANCE.plan(&taken, ask(3, Some(later)), MARCH),
            Err(VacationRefused::BadDays { left: 2 })
        );
        assert_eq!(ALLOWANCE.plan(&taken, ask(2, Some(later)), MARCH), Ok(days(later, 2)));
        // Next year's allowance is whole.
        let next_year = NEW_YEARS_EVE + 2 * DAY;
        assert_eq!(
            ALLOWANCE.plan(&taken, ask(30, Some(next_year)), NEW_YEARS_EVE),
            Ok(days(next_year, 30))
        );
        assert_eq!(
            VacationRefused::BadDays { left: 2 }.to_string(),
            "days must be between 1 and 2, what is left of this year's allowance"
        );
    }

    #[test]
    fn vacations_never_overlap() {
        let taken = [days(MARCH + 10 * DAY, 5)];
        assert_eq!(
            ALLOWANCE.plan(&taken, ask(11, Some(MARCH)), MARCH),
            Err(VacationRefused::Overlaps)
        );
        assert_eq!(
            ALLOWANCE.plan(&taken, ask(1, Some(MARCH + 14 * DAY)), MARCH),
            Err(VacationRefused::Overlaps)
        );
        // Touching is not overlapping.
        assert_eq!(ALLOWANCE.plan(&taken, ask(10, Some(MARCH)), MARCH), Ok(days(MARCH, 10)));
        assert_eq!(
            ALLOWANCE.plan(&taken, ask(1, Some(MARCH + 15 * DAY)), MARCH),
            Ok(days(MARCH + 15 * DAY, 1))
        );
    }

    #[test]
    fn ending_early_returns_the_days_not_begun() {
        let whole = days(MARCH, 10);
        assert_eq!(ALLOWANCE.days_left(&[whole], MARCH), 20);
        // Cut short after two and a half days: three started days count.
        let ended = Vacation {
            end: MARCH + 5 * DAY / 2,
            ..whole
        };
        assert_eq!(ALLOWANCE.days_left(&[ended], MARCH), 27);
    }

    #[test]
    fn until_is_the_end_of_the_current_or_next_vacation() {
        let past = days(MARCH - 20 * DAY, 2);
        let next = days(MARCH + 3 * DAY, 4);
        assert_eq!(until(&[past], MARCH), None);
        assert_eq!(until(&[past, next], MARCH), Some(next.end));
        assert_eq!(until(&[], MARCH), None);
    }
}
