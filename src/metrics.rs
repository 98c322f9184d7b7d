//! A few real metrics in Prometheus text format, on atomics and a mutex-held
//! map (no exporter crate needed for this many).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds of the latency histograms, in seconds.
const BUCKETS: [f64; 10] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];

#[derive(Default)]
struct Histogram {
    buckets: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    /// Sum in microseconds.
    sum_us: AtomicU64,
}

impl Histogram {
    fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        for (bound, bucket) in BUCKETS.iter().zip(&self.buckets) {
            if seconds <= *bound {
                bucket.fetch_add(1, Ordering::Relaxed);
            }
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_us
            .fetch_add(elapsed.as_micros().min(u128::from(u64::MAX)) as u64, Ordering::Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        for (bound, bucket) in BUCKETS.iter().zip(&self.buckets) {
            let _ = writeln!(
                out,
                "{name}_bucket{{{labels}{sep}le=\"{bound}\"}} {}",
                bucket.load(Ordering::Relaxed)
            );
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {count}");
        let braces = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{labels}}}")
        };
        let _ = writeln!(
            out,
            "{name}_sum{braces} {}",
            self.sum_us.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "{name}_count{braces} {count}");
    }
}

/// One method's requests: route → status → count.
type RouteCounts = BTreeMap<String, BTreeMap<u16, u64>>;

#[derive(Default)]
pub struct Metrics {
    /// method → route → status → count: nested so that counting a request
    /// looks its method and route up without allocating keys.
    requests: Mutex<BTreeMap<String, RouteCounts>>,
    request_seconds: Histogram,
    moves_committed: AtomicU64,
    move_seconds: Histogram,
    games_created: AtomicU64,
    write_conflicts: AtomicU64,
    password_checks: AtomicU64,
    /// Limit (`sign_in`, `register`, `writes`, `connections`) → refusals.
    limited: Mutex<BTreeMap<&'static str, u64>>,
}

impl Metrics {
    pub fn count_request(&self, method: &str, route: &str, status: u16, elapsed: Duration) {
        let mut requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        let routes = match requests.get_mut(method) {
            Some(routes) => routes,
            None => requests.entry(method.to_owned()).or_default(),
        };
        let statuses = match routes.get_mut(route) {
            Some(statuses) => statuses,
            None => routes.entry(route.to_owned()).or_default(),
        };
        *statuses.entry(status).or_default() += 1;
        drop(requests);
        self.request_seconds.observe(elapsed);
    }

    pub fn observe_move(&self, elapsed: Duration) {
        self.moves_committed.fetch_add(1, Ordering::Relaxed);
        self.move_seconds.observe(elapsed);
    }

    pub fn count_game_created(&self) {
        self.games_created.fetch_add(1, Ordering::Relaxed);
    }

    pub fn count_conflict(&self) {
        self.write_conflicts.fetch_add(1, Ordering::Relaxed);
    }

    /// A password checked against a hash (a stored one or, for an unknown
    /// name, the dummy).
    pub fn count_password_check(&self) {
        self.password_checks.fetch_add(1, Ordering::Relaxed);
    }

    /// A request refused by one of the abuse limits.
    pub fn count_limited(&self, limit: &'static str) {
        *self
            .limited
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(limit)
            .or_default() += 1;
    }

    /// The metrics text; `commits` are the store's group-commit counters.
    pub fn render(&self, commits: crate::store::CommitStats) -> String {
        let mut out = String::new();
        out.push_str("# HELP tavoliere_http_requests_total HTTP requests by method, matched route and status.\n");
        out.push_str("# TYPE tavoliere_http_requests_total counter\n");
        let requests = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        let counts = requests.iter().flat_map(|(method, routes)| {
            routes.iter().flat_map(move |(route, statuses)| {
                statuses
                    .iter()
                    .map(move |(status, count)| (method, route, status, count))
            })
        });
        for (method, route, status, count) in counts {
            let route = route.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(
                out,
                "tavoliere_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {count}"
            );
        }
        drop(requests);
        out.push_str("# HELP tavoliere_http_request_duration_seconds HTTP request latency.\n");
        out.push_str("# TYPE tavoliere_http_request_duration_seconds histogram\n");
        self.request_seconds
            .render(&mut out, "tavoliere_http_request_duration_seconds", "");
        let counter = |out: &mut String, name: &str, help: &str, value: u64| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
            let _ = writeln!(out, "{name} {value}");
        };
        let counters = [
            (
                "tavoliere_moves_committed_total",
                "Moves committed.",
                &self.moves_committed,
            ),
            ("tavoliere_games_created_total", "Games created.", &self.games_created),
            (
                "tavoliere_write_conflicts_total",
                "Game writes that lost a race and were decided again.",
                &self.write_conflicts,
            ),
            (
                "tavoliere_password_checks_total",
                "Sign-in passwords checked against a hash (unknown names against a dummy).",
                &self.password_checks,
            ),
        ];
        for (name, help, value) in counters {
            counter(&mut out, name, help, value.load(Ordering::Relaxed));
        }
        out.push_str("# HELP tavoliere_limited_total Requests refused by an abuse limit, by limit.\n");
        out.push_str("# TYPE tavoliere_limited_total counter\n");
        for (limit, count) in self.limited.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let _ = writeln!(out, "tavoliere_limited_total{{limit=\"{limit}\"}} {count}");
        }
        out.push_str("# HELP tavoliere_move_duration_seconds From a move's arrival to its commit.\n");
        out.push_str("# TYPE tavoliere_move_duration_seconds histogram\n");
        self.move_seconds
            .render(&mut out, "tavoliere_move_duration_seconds", "");
        // Group commit at work: changes per transaction is their ratio.
        counter(
            &mut out,
            "tavoliere_commit_transactions_total",
            "Transactions of the group-commit writer.",
            commits.transactions,
        );
        counter(
            &mut out,
            "tavoliere_commit_updates_total",
            "Changes committed by the group-commit writer: game creations, game updates, notifier passes.",
            commits.updates,
        );
        render_process(&mut out);
        out
    }
}

/// The process's resident memory, open file descriptors and CPU time, the
/// standard Prometheus process metrics, read from `/proc` (Linux; elsewhere
/// they are left out). The load generator reads them before and after a run.
fn render_process(out: &mut String) {
    if let Some(seconds) = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| parse_cpu_seconds(&stat))
    {
        out.push_str("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n");
        out.push_str("# TYPE process_cpu_seconds_total counter\n");
        let _ = writeln!(out, "process_cpu_seconds_total {seconds}");
    }
    if let Some(bytes) = resident_memory_bytes() {
        out.push_str("# HELP process_resident_memory_bytes Resident memory size in bytes.\n");
        out.push_str("# TYPE process_resident_memory_bytes gauge\n");
        let _ = writeln!(out, "process_resident_memory_bytes {bytes}");
    }
    // Counting /proc/self/fd costs one directory read: cheap next to a scrape.
    if let Ok(entries) = std::fs::read_dir("/proc/self/fd") {
        out.push_str("# HELP process_open_fds Number of open file descriptors.\n");
        out.push_str("# TYPE process_open_fds gauge\n");
        let _ = writeln!(out, "process_open_fds {}", entries.count());
    }
}

/// `VmRSS` of `/proc/self/status` (in kB there), in bytes.
fn resident_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_rss(&status)
}

/// `/proc` counts CPU time in ticks of `USER_HZ`, which the kernel's ABI
/// fixes at 100 per second whatever its own tick rate.
const USER_HZ: f64 = 100.0;

/// User plus system time of `/proc/self/stat`, in seconds: fields 14 and
/// 15, counted after the command name, which may itself hold spaces and
/// parentheses (so from the last `)`).
fn parse_cpu_seconds(stat: &str) -> Option<f64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user + system) as f64 / USER_HZ)
}

fn parse_vm_rss(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kib: u64 = line["VmRSS:".len()..].trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn resident_memory_is_read_from_proc_status() {
        let status = "Name:\ttavoliere\nVmPeak:\t  20000 kB\nVmRSS:\t   1234 kB\nThreads:\t3\n";
        assert_eq!(super::parse_vm_rss(status), Some(1234 * 1024));
        assert_eq!(super::parse_vm_rss("Name:\tx\n"), None);
    }

    #[test]
    fn cpu_time_is_read_after_the_command_name() {
        // A name with a space and a parenthesis; utime 250, stime 50 ticks.
        let stat = "4242 (tav (x) y) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 50 0 0 20 0 7 0 100 0";
        assert_eq!(super::parse_cpu_seconds(stat), Some(3.0));
        assert_eq!(super::parse_cpu_seconds("4242 (tav) S 1 2"), None);
        assert_eq!(super::parse_cpu_seconds("no name"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn metrics_show_the_process() {
        let text = super::Metrics::default().render(crate::store::CommitStats::default());
        assert!(text.contains("\nprocess_resident_memory_bytes "), "{text}");
        assert!(text.contains("\nprocess_open_fds "), "{text}");
        assert!(text.contains("\nprocess_cpu_seconds_total "), "{text}");
    }
}
