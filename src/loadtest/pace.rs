//! The load generator's open-loop pacing: when each slot's next move is
//! due, so a paced run sends at an even rate whatever the answers do.

use std::time::{Duration, Instant};

/// Open-loop pacing of one slot: its moves are due every `interval` (the
/// slots share the rate, their phases staggered), whenever the answers come.
/// A stall of the server leaves later moves overdue and their latency,
/// counted from when they were due, shows it in full. Opening the slot's
/// next game is client work, not a move: a tick that passes meanwhile is
/// skipped, and the slot keeps its phase.
pub(super) struct Pacer {
    pub(super) next: Instant,
    pub(super) interval: Duration,
}

impl Pacer {
    pub(super) fn ticket(&mut self) -> Instant {
        let due = self.next;
        self.next += self.interval;
        due
    }

    /// A new game starts: its first move is due at the slot's first tick
    /// from now. Starting late slots "now" instead bunched them: all slots
    /// open a game at the start, the server answers them in a few batches,
    /// and each batch of slots then moved together for the whole run, a
    /// burst of dozens of moves every interval instead of an even rate.
    pub(super) fn restart(&mut self) {
        self.restart_at(Instant::now());
    }

    fn restart_at(&mut self, now: Instant) {
        if self.next >= now {
            return;
        }
        let interval = self.interval.as_nanos().max(1);
        let behind = (now - self.next).as_nanos();
        let ticks = behind.div_ceil(interval);
        self.next += Duration::from_nanos(u64::try_from(ticks * interval).unwrap_or(u64::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_late_slot_restarts_on_its_own_phase() {
        let start = Instant::now();
        let interval = Duration::from_millis(10);
        let mut pacer = Pacer {
            next: start + Duration::from_millis(3),
            interval,
        };
        pacer.restart_at(start + Duration::from_millis(25));
        assert_eq!(pacer.next, start + Duration::from_millis(33));
        // On a tick exactly: that tick.
        pacer.restart_at(start + Duration::from_millis(33));
        assert_eq!(pacer.next, start + Duration::from_millis(33));
        // Not late: unchanged.
        pacer.restart_at(start + Duration::from_millis(30));
        assert_eq!(pacer.next, start + Duration::from_millis(33));
        assert_eq!(pacer.ticket(), start + Duration::from_millis(33));
        assert_eq!(pacer.ticket(), start + Duration::from_millis(43));
    }
}
