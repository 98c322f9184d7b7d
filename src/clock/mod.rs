//! Clock arithmetic, pure: time controls, what a move costs, deadlines.
//! Everything is computed from commit times (Unix milliseconds) the games
//! service passes in; nothing here reads the wall clock.
//!
//! - `none`: no clock.
//! - `correspondence` (Little Golem style): every move may take
//!   `days_per_move`; time beyond that is taken from the seat's bank. After
//!   each move the bank earns `bonus_days`, up to `cap_days`. Declared
//!   vacations stop the clock of the player to move.
//! - `live` (Fischer): `initial_seconds` per seat, `increment_seconds` added
//!   after each move. Vacations do not stop live clocks.
//!
//! A "day" is [`Scale::day_ms`] milliseconds: 86 400 000 in production, a
//! few milliseconds in tests (`--clock-day-ms`).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

/// The most days one move may take, and the most days a bank may hold.
pub const MAX_DAYS: u32 = 30;
/// The longest live game clock: a day.
pub const MAX_LIVE_SECONDS: u32 = 86_400;

/// How a game is timed, as chosen at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeControl {
    /// No clock. A struct variant, not a unit one: serde lets a unit
    /// variant of a tagged enum through with any other fields beside its
    /// tag, and the document (and so the server) refuses unknown fields.
    None {},
    Correspondence {
        /// 1 to 30.
        days_per_move: u32,
        /// The bank each seat starts with (default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bank_days: Option<u32>,
        /// Added to the bank after every move (default 0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bonus_days: Option<u32>,
        /// The most the bank can hold (default: the larger of bank and bonus).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap_days: Option<u32>,
    },
    Live {
        initial_seconds: u32,
        increment_seconds: u32,
    },
}

impl Default for TimeControl {
    fn default() -> TimeControl {
        TimeControl::None {}
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error("days_per_move must be between 1 and {MAX_DAYS}")]
    DaysPerMove,
    #[error("bank_days, bonus_days and cap_days must be at most {MAX_DAYS}")]
    Bank,
    #[error("cap_days cannot be smaller than bank_days")]
    Cap,
    #[error("initial_seconds must be between 1 and {MAX_LIVE_SECONDS}, increment_seconds at most 3600")]
    Live,
}

impl TimeControl {
    /// Checks the ranges; the only way the service accepts one.
    pub fn validate(self) -> Result<TimeControl, TimeControlError> {
        match self {
            TimeControl::None {} => Ok(self),
            TimeControl::Correspondence {
                days_per_move,
                bank_days,
                bonus_days,
                cap_days,
            } => {
                if !(1..=MAX_DAYS).contains(&days_per_move) {
                    return Err(TimeControlError::DaysPerMove);
                }
                if [bank_days, bonus_days, cap_days]
                    .iter()
                    .any(|d| d.is_some_and(|d| d > MAX_DAYS))
                {
                    return Err(TimeControlError::Bank);
                }
                if cap_days.is_some_and(|cap| cap < bank_days.unwrap_or(0)) {
                    return Err(TimeControlError::Cap);
                }
                Ok(self)
            }
            TimeControl::Live {
                initial_seconds,
                increment_seconds,
            } => {
                if !(1..=MAX_LIVE_SECONDS).contains(&initial_seconds) || increment_seconds > 3600 {
                    return Err(TimeControlError::Live);
                }
                Ok(self)
            }
        }
    }

    pub fn kind(self) -> &'static str {
        match self {
            TimeControl::None {} => "none",
            TimeControl::Correspondence { .. } => "correspondence",
            TimeControl::Live { .. } => "live",
        }
    }

    /// The most a correspondence bank holds, in days: `cap_days`, or else
    /// the larger of the starting bank and the bonus.
    fn bank_cap_days(self) -> u32 {
        match self {
            TimeControl::Correspondence {
                bank_days,
                bonus_days,
                cap_days,
                ..
            } => cap_days.unwrap_or_else(|| bank_days.unwrap_or(0).max(bonus_days.unwrap_or(0))),
            _ => 0,
        }
    }

    pub fn is_correspondence(self) -> bool {
        matches!(self, TimeControl::Correspondence { .. })
    }

    /// The stored form; `None` for no clock.
    pub fn to_stored(self) -> Option<Value> {
        match self {
            TimeControl::None {} => None,
            other => serde_json::to_value(other).ok(),
        }
    }

    pub fn from_stored(value: Option<&Value>) -> TimeControl {
        value
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }
}

/// How long a day lasts: the testing and operations knob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    pub day_ms: i64,
}

impl Default for Scale {
    fn default() -> Scale {
        Scale { day_ms: 86_400_000 }
    }
}

impl Scale {
    pub fn days(self, days: u32) -> i64 {
        i64::from(days) * self.day_ms
    }
}

/// A half-open interval `[start, end)` during which a player's
/// correspondence clocks stand still.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pause {
    pub start: i64,
    pub end: i64,
}

/// What is stored with a game: each seat's bank (correspondence) or time
/// left (live), and when the current turn began.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct ClockState {
    pub remaining_ms: Vec<i64>,
    pub turn_started_at: i64,
}

impl ClockState {
    pub fn to_stored(&self) -> Value {
        json!({ "remaining_ms": self.remaining_ms, "turn_started_at": self.turn_started_at })
    }

    pub fn from_stored(value: Option<&Value>) -> Option<ClockState> {
        value.and_then(|v| serde_json::from_value(v.clone()).ok())
    }
}

/// The clock as a game state shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct ClockView {
    pub kind: &'static str,
    /// Per seat: what the player to move has left now; what the others
    /// will have when their turn begins.
    pub remaining_ms: Vec<i64>,
    /// When the player to move loses on time (Unix ms), or `null`.
    pub deadline: Option<i64>,
    /// Whether the clock of the player to move is running (not when the
    /// game is over, nor while that player is on vacation).
    pub running: bool,
}

/// Milliseconds of `[from, to)` that fall in no pause.
fn active_ms(from: i64, to: i64, pauses: &[Pause]) -> i64 {
    if to <= from {
        return 0;
    }
    let paused: i64 = pauses.iter().map(|p| (p.end.min(to) - p.start.max(from)).max(0)).sum();
    to - from - paused
}

/// The moment `budget` active milliseconds have passed since `from`, pauses
/// not counting. `pauses` must not overlap each other.
fn after_active(from: i64, budget: i64, pauses: &[Pause]) -> i64 {
    let mut sorted: Vec<Pause> = pauses.iter().copied().filter(|p| p.end > from).collect();
    sorted.sort_by_key(|p| p.start);
    let mut at = from;
    let mut left = budget.max(0);
    for pause in sorted {
        let start = pause.start.max(at);
        if start - at >= left {
            break;
        }
        left -= start - at;
        at = pause.end.max(at);
    }
    at + left
}

/// The clock arithmetic of one time control at one scale.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub control: TimeControl,
    pub scale: Scale,
}

impl Clock {
    pub fn new(control: TimeControl, scale: Scale) -> Clock {
        Clock { control, scale }
    }

    /// The clock when the game starts at `now`; `None` without a clock.
    pub fn start(self, seats: usize, now: i64) -> Option<ClockState> {
        let each = match self.control {
            TimeControl::None {} => return None,
            TimeControl::Correspondence { bank_days, .. } => self.scale.days(bank_days.unwrap_or(0)),
            TimeControl::Live { initial_seconds, .. } => i64::from(initial_seconds) * 1000,
        };
        Some(ClockState {
            remaining_ms: vec![each; seats],
            turn_started_at: now,
        })
    }

    /// The time a seat may use on a move that begins with `remaining` on
    /// its clock.
    fn allowance(self, remaining: i64) -> i64 {
        match self.control {
            TimeControl::None {} => i64::MAX,
            TimeControl::Correspondence { days_per_move, .. } => self.scale.days(days_per_move) + remaining,
            TimeControl::Live { .. } => remaining,
        }
    }

    /// Only correspondence clocks stop for vacations.
    fn pauses(self, pauses: &[Pause]) -> &[Pause] {
        if self.control.is_correspondence() {
            pauses
        } else {
            &[]
        }
    }

    /// When `seat`, to move since `state.turn_started_at`, loses on time.
    pub fn deadline(self, state: &ClockState, seat: usize, pauses: &[Pause]) -> Option<i64> {
        if matches!(self.control, TimeControl::None {}) {
            return None;
        }
        let remaining = *state.remaining_ms.get(seat)?;
        Some(after_active(
            state.turn_started_at,
            self.allowance(remaining),
            self.pauses(pauses),
        ))
    }

    /// The clock after `seat` moves at `now`, or `Err(deadline)` when the
    /// move came too late.
    pub fn after_move(self, state: &ClockState, seat: usize, now: i64, pauses: &[Pause]) -> Result<ClockState, i64> {
        let mut next = state.clone();
        next.turn_started_at = now;
        let Some(remaining) = state.remaining_ms.get(seat).copied() else {
            return Ok(next);
        };
        if let Some(deadline) = self.deadline(state, seat, pauses) {
            if now >= deadline {
                return Err(deadline);
            }
        }
        let used = active_ms(state.turn_started_at, now, self.pauses(pauses));
        let left = match self.control {
            TimeControl::None {} => remaining,
            TimeControl::Correspondence {
                days_per_move,
                bonus_days,
                ..
            } => {
                let overdraft = (used - self.scale.days(days_per_move)).max(0);
                let cap = self.scale.days(self.control.bank_cap_days());
                (remaining - overdraft + self.scale.days(bonus_days.unwrap_or(0))).min(cap.max(remaining - overdraft))
            }
            TimeControl::Live { increment_seconds, .. } => remaining - used + i64::from(increment_seconds) * 1000,
        };
        next.remaining_ms[seat] = left;
        Ok(next)
    }

    /// The clock as shown at `now`; `to_move` is `None` once the game is
    /// over. `pauses` are those of the player to move.
    pub fn view(self, state: &ClockState, to_move: Option<usize>, now: i64, pauses: &[Pause]) -> ClockView {
        let mut remaining_ms: Vec<i64> = state.remaining_ms.iter().map(|r| self.allowance(*r)).collect();
        let mut deadline = None;
        let mut running = false;
        if let Some(seat) = to_move {
            deadline = self.deadline(state, seat, pauses);
            if let (Some(d), Some(slot)) = (deadline, remaining_ms.get_mut(seat)) {
                let on_pause = self.pauses(pauses).iter().any(|p| p.start <= now && now < p.end);
                running = !on_pause;
                // Time left is the active time between now and the deadline.
                *slot = active_ms(now.min(d), d, self.pauses(pauses));
            }
        }
        if self.control.is_correspondence() && to_move.is_none() {
            running = false;
        }
        ClockView {
            kind: self.control.kind(),
            remaining_ms,
            deadline,
            running,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 1000;
    fn scale() -> Scale {
        Scale { day_ms: DAY }
    }

    fn corr(days: u32, bank: Option<u32>, bonus: Option<u32>, cap: Option<u32>) -> Clock {
        Clock::new(
            TimeControl::Correspondence {
                days_per_move: days,
                bank_days: bank,
                bonus_days: bonus,
                cap_days: cap,
            },
            scale(),
        )
    }

    #[test]
    fn no_clock_has_no_state_and_no_deadline() {
        let clock = Clock::new(TimeControl::None {}, scale());
        assert_eq!(clock.start(2, 0), None);
        let state = ClockState {
            remaining_ms: vec![0, 0],
            turn_started_at: 0,
        };
        assert_eq!(clock.deadline(&state, 0, &[]), None);
        assert!(clock.after_move(&state, 0, i64::MAX / 2, &[]).is_ok());
    }

    #[test]
    fn correspondence_without_bank_gives_days_per_move() {
        let clock = corr(3, None, None, None);
        let state = clock.start(2, 10_000).unwrap();
        assert_eq!(state.remaining_ms, vec![0, 0]);
        assert_eq!(clock.deadline(&state, 0, &[]), Some(13_000));
        let next = clock.after_move(&state, 0, 12_999, &[]).unwrap();
        assert_eq!(next.remaining_ms, vec![0, 0]);
        assert_eq!(next.turn_started_at, 12_999);
        assert_eq!(clock.after_move(&state, 0, 13_000, &[]), Err(13_000));
    }

    #[test]
    fn correspondence_bank_pays_overtime_and_earns_bonus_up_to_the_cap() {
        let clock = corr(1, Some(2), Some(1), Some(4));
        let state = clock.start(2, 0).unwrap();
        assert_eq!(state.remaining_ms, vec![2 * DAY, 2 * DAY]);
        // Deadline: one day per move plus two in the bank.
        assert_eq!(clock.deadline(&state, 0, &[]), Some(3 * DAY));
        // 2.5 days used: 1.5 from the bank, then one day of bonus.
        let next = clock.after_move(&state, 0, 2 * DAY + DAY / 2, &[]).unwrap();
        assert_eq!(next.remaining_ms[0], 2 * DAY - DAY - DAY / 2 + DAY);
        // Quick moves fill the bank up to the cap and no further.
        let mut state = next;
        for _ in 0..5 {
            state = clock.after_move(&state, 0, state.turn_started_at + 1, &[]).unwrap();
        }
        assert_eq!(state.remaining_ms[0], 4 * DAY);
        assert_eq!(state.remaining_ms[1], 2 * DAY);
    }

    #[test]
    fn live_clock_is_fischer() {
        let clock = Clock::new(
            TimeControl::Live {
                initial_seconds: 60,
                increment_seconds: 2,
            },
            scale(),
        );
        let state = clock.start(2, 0).unwrap();
        assert_eq!(state.remaining_ms, vec![60_000, 60_000]);
        assert_eq!(clock.deadline(&state, 0, &[]), Some(60_000));
        let next = clock.after_move(&state, 0, 10_000, &[]).unwrap();
        assert_eq!(next.remaining_ms, vec![52_000, 60_000]);
        assert_eq!(clock.deadline(&next, 1, &[]), Some(70_000));
        assert_eq!(clock.after_move(&next, 1, 70_000, &[]), Err(70_000));
        // Vacations do not stop live clocks.
        let pause = [Pause {
            start: 0,
            end: 1_000_000,
        }];
        assert_eq!(clock.deadline(&state, 0, &pause), Some(60_000));
    }

    #[test]
    fn vacation_stops_a_correspondence_clock() {
        let clock = corr(2, None, None, None);
        let state = clock.start(2, 0).unwrap();
        // A vacation from day 1 to day 4 moves the deadline from 2 to 5.
        let pause = [Pause {
            start: DAY,
            end: 4 * DAY,
        }];
        assert_eq!(clock.deadline(&state, 0, &pause), Some(5 * DAY));
        // A vacation after the deadline, or before the turn, changes nothing.
        let late = [Pause {
            start: 3 * DAY,
            end: 9 * DAY,
        }];
        assert_eq!(clock.deadline(&state, 0, &late), Some(2 * DAY));
        let early = [Pause { start: -5, end: 0 }];
        assert_eq!(clock.deadline(&state, 0, &early), Some(2 * DAY));
        // Two vacations in one turn both count.
        let two = [
            Pause {
                start: DAY,
                end: 2 * DAY,
            },
            Pause {
                start: 5 * DAY / 2,
                end: 3 * DAY,
            },
        ];
        assert_eq!(clock.deadline(&state, 0, &two), Some(7 * DAY / 2));
        // The view stands still during the vacation.
        let view = clock.view(&state, Some(0), 2 * DAY, &pause);
        assert!(!view.running);
        assert_eq!(view.remaining_ms[0], DAY);
        assert_eq!(clock.view(&state, Some(0), 3 * DAY, &pause).remaining_ms[0], DAY);
        assert_eq!(
            clock.view(&state, Some(0), 9 * DAY / 2, &pause).remaining_ms[0],
            DAY / 2
        );
        // Moving after the old deadline but within the paused one is in time.
        assert!(clock.after_move(&state, 0, 4 * DAY, &pause).is_ok());
    }

    #[test]
    fn views_show_the_others_their_next_allowance() {
        let clock = corr(1, Some(2), None, None);
        let state = clock.start(2, 0).unwrap();
        let view = clock.view(&state, Some(1), DAY, &[]);
        assert_eq!(view.remaining_ms, vec![3 * DAY, 2 * DAY]);
        assert_eq!(view.deadline, Some(3 * DAY));
        assert!(view.running);
        let over = clock.view(&state, None, DAY, &[]);
        assert_eq!(over.deadline, None);
        assert!(!over.running);
    }

    #[test]
    fn time_controls_are_validated_and_parsed() {
        let parsed: TimeControl =
            serde_json::from_str(r#"{"kind":"correspondence","days_per_move":3,"bank_days":5}"#).unwrap();
        assert_eq!(parsed.validate(), Ok(parsed));
        assert_eq!(
            TimeControl::from_stored(parsed.to_stored().as_ref()),
            parsed,
            "stored and read back"
        );
        for bad in [
            r#"{"kind":"correspondence","days_per_move":0}"#,
            r#"{"kind":"correspondence","days_per_move":31}"#,
            r#"{"kind":"correspondence","days_per_move":1,"bank_days":40}"#,
            r#"{"kind":"correspondence","days_per_move":1,"bank_days":5,"cap_days":2}"#,
            r#"{"kind":"live","initial_seconds":0,"increment_seconds":0}"#,
        ] {
            let control: TimeControl = serde_json::from_str(bad).unwrap();
            assert!(control.validate().is_err(), "{bad}");
        }
        assert!(serde_json::from_str::<TimeControl>(r#"{"kind":"blitz"}"#).is_err());
        assert!(serde_json::from_str::<TimeControl>(r#"{"kind":"live","initial_seconds":1}"#).is_err());
        assert_eq!(
            serde_json::from_str::<TimeControl>(r#"{"kind":"none"}"#).unwrap(),
            TimeControl::None {}
        );
    }
}
