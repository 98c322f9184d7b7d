//! The round robin schedule: Berger tables. With `n` players (one more,
//! resting, when `n` is odd) every player meets every other once in
//! `n - 1` rounds; each player has seat 0 in half their games, give or
//! take one. A double round robin plays the schedule twice, seats swapped.

use super::Pair;

/// The rounds of a round robin among `players`, in order; a player paired
/// with the resting slot simply does not play that round.
pub fn schedule(players: &[i64], double: bool) -> Vec<Vec<Pair>> {
    if players.len() < 2 {
        return Vec::new();
    }
    let mut slots: Vec<Option<i64>> = players.iter().copied().map(Some).collect();
    if slots.len() % 2 == 1 {
        slots.push(None);
    }
    let n = slots.len();
    let mut rounds = Vec::with_capacity(2 * (n - 1));
    // The circle method: the last slot stays, the others turn one place a
    // round. The fixed slot changes seats every round; the others' seats
    // follow the side of the circle they are on, which alternates.
    let mut circle: Vec<Option<i64>> = slots[..n - 1].to_vec();
    let fixed = slots[n - 1];
    for round in 0..n - 1 {
        let mut pairs = Vec::with_capacity(n / 2);
        let (a, b) = if round % 2 == 0 {
            (circle[0], fixed)
        } else {
            (fixed, circle[0])
        };
        push(&mut pairs, a, b);
        for i in 1..n / 2 {
            push(&mut pairs, circle[i], circle[n - 1 - i]);
        }
        rounds.push(pairs);
        // Berger's rotation: everyone moves n/2 places round the circle.
        circle.rotate_left(n / 2);
    }
    if double {
        let swapped: Vec<Vec<Pair>> = rounds
            .iter()
            .map(|pairs| {
                pairs
                    .iter()
                    .filter_map(|p| p.second.map(|second| Pair::game(second, p.first)))
                    .collect()
            })
            .collect();
        rounds.extend(swapped);
    }
    rounds
}

fn push(pairs: &mut Vec<Pair>, first: Option<i64>, second: Option<i64>) {
    if let (Some(first), Some(second)) = (first, second) {
        pairs.push(Pair::game(first, second));
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    fn check(n: i64, double: bool) -> Vec<Vec<Pair>> {
        let players: Vec<i64> = (1..=n).collect();
        let rounds = schedule(&players, double);
        let cycle = if n % 2 == 0 { n - 1 } else { n } as usize;
        assert_eq!(rounds.len(), if double { 2 * cycle } else { cycle });
        let mut met: HashMap<(i64, i64), usize> = HashMap::new();
        let mut firsts: HashMap<i64, i64> = HashMap::new();
        let mut games: HashMap<i64, i64> = HashMap::new();
        for pairs in &rounds {
            let mut seen = HashSet::new();
            for p in pairs {
                let second = p.second.expect("a round robin has no byes");
                assert!(
                    seen.insert(p.first) && seen.insert(second),
                    "nobody plays twice in a round"
                );
                *met.entry((p.first.min(second), p.first.max(second))).or_default() += 1;
                *firsts.entry(p.first).or_default() += 1;
                *games.entry(p.first).or_default() += 1;
                *games.entry(second).or_default() += 1;
            }
            assert_eq!(pairs.len() as i64, n / 2);
        }
        let times = if double { 2 } else { 1 };
        for a in 1..=n {
            for b in a + 1..=n {
                assert_eq!(met.get(&(a, b)), Some(&times), "{a} meets {b} {times} time(s)");
            }
            let played = games[&a];
            assert_eq!(played, (n - 1) * times as i64);
            let first = firsts.get(&a).copied().unwrap_or(0);
            assert!(
                (2 * first - played).abs() <= 1,
                "player {a}: {first} of {played} in seat 0"
            );
        }
        rounds
    }

    #[test]
    fn four_players_meet_once_with_balanced_seats() {
        let rounds = check(4, false);
        assert_eq!(rounds[0], vec![Pair::game(1, 4), Pair::game(2, 3)]);
    }

    #[test]
    fn five_players_rest_in_turn() {
        let rounds = check(5, false);
        // Every player rests exactly once.
        for p in 1..=5 {
            let rests = rounds.iter().filter(|r| !r.iter().any(|pair| pair.has(p))).count();
            assert_eq!(rests, 1, "player {p}");
        }
    }

    #[test]
    fn other_sizes_and_double_round_robins_hold_too() {
        for n in 2..=11 {
            check(n, false);
            let rounds = check(n, true);
            // Each pair's two games have the seats swapped.
            let half = rounds.len() / 2;
            for (a, b) in rounds[..half].iter().zip(&rounds[half..]) {
                for (x, y) in a.iter().zip(b) {
                    assert_eq!((x.first, x.second), (y.second.unwrap(), Some(y.first)));
                }
            }
        }
    }

    #[test]
    fn fewer_than_two_players_play_nothing() {
        assert!(schedule(&[], false).is_empty());
        assert!(schedule(&[7], true).is_empty());
    }
}
