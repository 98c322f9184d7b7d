//! Latency samples and their percentiles.

use std::time::Duration;

use serde::Serialize;

/// Every sample of one latency, in microseconds (a run of minutes at
/// thousands of moves per second is a few megabytes: no histogram needed,
/// and the percentiles are exact).
#[derive(Clone, Debug, Default)]
pub struct Samples(Vec<u64>);

impl Samples {
    pub fn record(&mut self, latency: Duration) {
        self.0.push(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX));
    }

    pub fn record_us(&mut self, micros: u64) {
        self.0.push(micros);
    }

    pub fn merge(&mut self, other: Samples) {
        self.0.extend(other.0);
    }

    /// `None` without samples.
    pub fn summary(&self) -> Option<Summary> {
        if self.0.is_empty() {
            return None;
        }
        let mut sorted = self.0.clone();
        sorted.sort_unstable();
        // Nearest rank: the smallest sample with at least p of them at or below it.
        let rank = |p: f64| {
            let index = (p * sorted.len() as f64).ceil() as usize;
            ms(sorted[index.clamp(1, sorted.len()) - 1])
        };
        Some(Summary {
            count: sorted.len() as u64,
            p50_ms: rank(0.50),
            p90_ms: rank(0.90),
            p99_ms: rank(0.99),
            max_ms: ms(sorted[sorted.len() - 1]),
        })
    }
}

fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}

/// Percentiles of a latency, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub count: u64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut samples = Samples::default();
        assert!(samples.summary().is_none());
        for us in (1..=100).rev() {
            samples.record_us(us * 1000);
        }
        let summary = samples.summary().expect("samples");
        assert_eq!(summary.count, 100);
        assert_eq!(summary.p50_ms, 50.0);
        assert_eq!(summary.p90_ms, 90.0);
        assert_eq!(summary.p99_ms, 99.0);
        assert_eq!(summary.max_ms, 100.0);
        let mut one = Samples::default();
        one.record(Duration::from_micros(1500));
        assert_eq!(
            one.summary().map(|s| (s.p50_ms, s.p99_ms, s.max_ms)),
            Some((1.5, 1.5, 1.5))
        );
    }
}
