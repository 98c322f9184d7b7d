//! The machine's CPU time over a run, from `/proc/stat`: the generator only
//! targets loopback, so server, database and generator share this machine,
//! and how busy it was (and how much a hypervisor took, `steal`) explains
//! a run's figures.

use serde::Serialize;

/// The first line of `/proc/stat`, in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTicks {
    busy: u64,
    idle: u64,
    steal: u64,
}

impl CpuTicks {
    /// Now, or `None` where there is no `/proc/stat`.
    pub fn read() -> Option<CpuTicks> {
        parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// How the ticks between `self` and `later` were spent.
    pub fn until(self, later: CpuTicks) -> Option<HostCpu> {
        let busy = later.busy.checked_sub(self.busy)?;
        let idle = later.idle.checked_sub(self.idle)?;
        let steal = later.steal.checked_sub(self.steal)?;
        let total = (busy + idle + steal) as f64;
        (total > 0.0).then(|| HostCpu {
            busy_percent: 100.0 * busy as f64 / total,
            steal_percent: 100.0 * steal as f64 / total,
        })
    }
}

/// Shares of the machine's CPU time over a run, all cores together.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HostCpu {
    /// Running anything: user, nice, system, interrupts.
    pub busy_percent: f64,
    /// Taken by the hypervisor for other guests while this one was ready.
    pub steal_percent: f64,
}

/// `cpu  user nice system idle iowait irq softirq steal …`; guest time is
/// already counted in user time.
fn parse(stat: &str) -> Option<CpuTicks> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    if ticks.len() < 4 {
        return None;
    }
    // Older kernels stop before `steal`.
    let field = |i: usize| ticks.get(i).copied().unwrap_or(0);
    Some(CpuTicks {
        busy: field(0) + field(1) + field(2) + field(5) + field(6),
        idle: field(3) + field(4),
        steal: field(7),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_split_into_busy_idle_and_steal() {
        let before = parse("cpu  100 0 50 800 10 5 5 30 0 0\ncpu0 1 2 3 4\n").unwrap();
        let after = parse("cpu  400 0 150 900 10 5 5 130 0 0\n").unwrap();
        // 400 busy, 100 idle, 100 stolen.
        let host = before.until(after).unwrap();
        assert_eq!(host.busy_percent, 400.0 / 6.0);
        assert_eq!(host.steal_percent, 100.0 / 6.0);
        assert_eq!(after.until(before), None, "time never runs backwards");
        assert_eq!(before.until(before), None, "no time, no shares");
    }

    #[test]
    fn a_malformed_stat_reads_as_nothing() {
        assert_eq!(parse("intr 1 2 3\n"), None);
        assert_eq!(parse("cpu  1 x 3 4\n"), None);
        assert_eq!(parse("cpu  1 2\n"), None);
    }
}
