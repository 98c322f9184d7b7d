//! Swiss pairing, Dutch style, one round at a time.
//!
//! Players are ranked by score, then seed. With an odd number, the bye
//! (worth a win) goes to the lowest-ranked player who has not had one.
//! The rest are paired from the top: each player's score group splits into
//! a top and a bottom half and the top half meets the bottom half in order;
//! an odd player out floats down to the next group. Two hard rules come
//! first: no pair meets twice, and nobody's seats drift more than one apart
//! (two players who both need the same seat are not paired). A search with
//! backtracking finds the pairing closest to the Dutch order that keeps
//! them; should none exist (a long tournament of few players), the seat
//! rule gives way first, then the rule against repeats.

use super::Pair;

/// A player's record before the round, as pairing needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    pub id: i64,
    /// Points, doubled (a win 2, a draw 1), so that scores compare exactly.
    pub points2: i64,
    /// Everyone met so far.
    pub opponents: Vec<i64>,
    /// Games in seat 0 minus games in seat 1.
    pub seat_balance: i64,
    /// Whether the last game was in seat 0.
    pub last_first: Option<bool>,
    pub had_bye: bool,
}

/// How many steps the search under one set of rules may take (every
/// candidate for the bye included) before it relaxes them: plenty for any
/// real field, and a bound on pathological ones.
const SEARCH_STEPS: usize = 50_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rules {
    /// No repeats, seats within one.
    Strict,
    /// No repeats.
    NoRepeats,
    /// Anything, if nothing else pairs.
    Any,
}

/// The pairings of round `round` (1 for the first) among `entrants`, given
/// in seed order (best first).
pub fn pair_round(entrants: &[Entrant], round: i64) -> Vec<Pair> {
    let mut ranked: Vec<&Entrant> = entrants.iter().collect();
    // A stable sort keeps seed order within a score.
    ranked.sort_by_key(|e| std::cmp::Reverse(e.points2));
    for rules in [Rules::Strict, Rules::NoRepeats, Rules::Any] {
        if let Some(pairs) = pair_with(&ranked, rules, round) {
            return pairs;
        }
    }
    // Unreachable: under `Rules::Any` everyone pairs.
    Vec::new()
}

fn pair_with(ranked: &[&Entrant], rules: Rules, round: i64) -> Option<Vec<Pair>> {
    let mut steps = 0;
    if ranked.len().is_multiple_of(2) {
        return search(ranked, rules, round, &mut steps);
    }
    // The bye: from the bottom, the first who has not had one and leaves
    // a field that pairs (anyone, from the bottom, when all have had one).
    let fresh: Vec<usize> = (0..ranked.len()).rev().filter(|&i| !ranked[i].had_bye).collect();
    let candidates: Vec<usize> = if fresh.is_empty() {
        (0..ranked.len()).rev().collect()
    } else {
        fresh
    };
    for i in candidates {
        let rest: Vec<&Entrant> = ranked
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, e)| *e)
            .collect();
        if let Some(mut pairs) = search(&rest, rules, round, &mut steps) {
            pairs.push(Pair::bye(ranked[i].id));
            return Some(pairs);
        }
    }
    None
}

/// Pairs every one of `ranked` (an even number) under `rules`.
fn search(ranked: &[&Entrant], rules: Rules, round: i64, steps: &mut usize) -> Option<Vec<Pair>> {
    let mut free = vec![true; ranked.len()];
    let mut chosen = Vec::with_capacity(ranked.len() / 2);
    if backtrack(ranked, rules, &mut free, &mut chosen, steps) {
        Some(
            (0..)
                .zip(chosen)
                .map(|(board, (a, b))| seats(ranked[a], ranked[b], board + round))
                .collect(),
        )
    } else {
        None
    }
}

fn backtrack(
    ranked: &[&Entrant],
    rules: Rules,
    free: &mut [bool],
    chosen: &mut Vec<(usize, usize)>,
    steps: &mut usize,
) -> bool {
    let Some(top) = free.iter().position(|&f| f) else {
        return true;
    };
    for other in candidates(ranked, free, top) {
        *steps += 1;
        if *steps > SEARCH_STEPS {
            return false;
        }
        if !allowed(ranked[top], ranked[other], rules) {
            continue;
        }
        free[top] = false;
        free[other] = false;
        chosen.push((top, other));
        if backtrack(ranked, rules, free, chosen, steps) {
            return true;
        }
        chosen.pop();
        free[top] = true;
        free[other] = true;
    }
    false
}

/// The opponents of `top` (the best unpaired player) in Dutch order:
/// the first of the bottom half of its score group, the rest of that
/// half, the top half upwards, then the groups below in rank order.
fn candidates(ranked: &[&Entrant], free: &[bool], top: usize) -> Vec<usize> {
    let unpaired: Vec<usize> = (top + 1..ranked.len()).filter(|&i| free[i]).collect();
    let group: Vec<usize> = unpaired
        .iter()
        .copied()
        .filter(|&i| ranked[i].points2 == ranked[top].points2)
        .collect();
    // `top` is the group's first; with it the group has `group.len() + 1`.
    let half = group.len().div_ceil(2);
    let mut order: Vec<usize> = Vec::with_capacity(unpaired.len());
    if half >= 1 {
        order.extend(&group[half - 1..]);
        order.extend(group[..half - 1].iter().rev());
    }
    order.extend(unpaired.iter().filter(|i| !group.contains(i)));
    order
}

fn allowed(a: &Entrant, b: &Entrant, rules: Rules) -> bool {
    let repeat = a.opponents.contains(&b.id);
    // Both owe the same seat: one of them would drift two apart.
    let clash = a.seat_balance == b.seat_balance && a.seat_balance != 0;
    match rules {
        Rules::Strict => !repeat && !clash,
        Rules::NoRepeats => !repeat,
        Rules::Any => true,
    }
}

/// Who of `a` (ranked higher) and `b` takes seat 0: whoever has had it
/// less; then whoever did not have it last time; then, by `turn` (the
/// board's number plus the round's), alternately the higher-ranked player
/// and the other, so that seats alternate down the boards.
fn seats(a: &Entrant, b: &Entrant, turn: i64) -> Pair {
    let a_first = match a.seat_balance.cmp(&b.seat_balance) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => match (a.last_first, b.last_first) {
            (Some(x), Some(y)) if x != y => !x,
            _ => turn % 2 == 1,
        },
    };
    if a_first {
        Pair::game(a.id, b.id)
    } else {
        Pair::game(b.id, a.id)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    /// Plays a Swiss of `n` over `rounds`, the results decided by `result`
    /// (`Some(true)`: the first wins, `None`: a draw), checking every rule
    /// after each round.
    fn play(n: i64, rounds: i64, result: impl Fn(i64, i64, i64) -> Option<bool>) -> Vec<Vec<Pair>> {
        let mut entrants: Vec<Entrant> = (1..=n)
            .map(|id| Entrant {
                id,
                points2: 0,
                opponents: Vec::new(),
                seat_balance: 0,
                last_first: None,
                had_bye: false,
            })
            .collect();
        let mut history = Vec::new();
        let mut met = HashSet::new();
        let mut byes = HashSet::new();
        for round in 1..=rounds {
            let pairs = pair_round(&entrants, round);
            let mut seen = HashSet::new();
            for p in &pairs {
                assert!(seen.insert(p.first), "round {round}: {} twice", p.first);
                let by_id: HashMap<i64, usize> = entrants.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
                match p.second {
                    None => {
                        assert!(byes.insert(p.first), "round {round}: a second bye for {}", p.first);
                        let e = &mut entrants[by_id[&p.first]];
                        e.points2 += 2;
                        e.had_bye = true;
                    }
                    Some(second) => {
                        assert!(seen.insert(second), "round {round}: {second} twice");
                        let key = (p.first.min(second), p.first.max(second));
                        assert!(met.insert(key), "round {round}: {key:?} meet again");
                        let (w1, w2) = match result(round, p.first, second) {
                            Some(true) => (2, 0),
                            Some(false) => (0, 2),
                            None => (1, 1),
                        };
                        for (id, other, points, first) in [(p.first, second, w1, true), (second, p.first, w2, false)] {
                            let e = &mut entrants[by_id[&id]];
                            e.points2 += points;
                            e.opponents.push(other);
                            e.seat_balance += if first { 1 } else { -1 };
                            e.last_first = Some(first);
                        }
                    }
                }
            }
            assert_eq!(seen.len() as i64, n, "round {round}: everyone paired");
            for e in &entrants {
                assert!(
                    e.seat_balance.abs() <= 1,
                    "round {round}: {} has seats {}",
                    e.id,
                    e.seat_balance
                );
            }
            history.push(pairs);
        }
        history
    }

    #[test]
    fn seven_and_eight_players_over_three_to_five_rounds() {
        for n in [7, 8] {
            for rounds in 3..=5 {
                // The better seed wins; then every game a draw; then the first seat wins.
                play(n, rounds, |_, a, b| Some(a < b));
                play(n, rounds, |_, _, _| None);
                play(n, rounds, |_, _, _| Some(true));
                play(n, rounds, |r, a, b| {
                    if (a + b + r) % 3 == 0 {
                        None
                    } else {
                        Some((a * r) % 2 == 0)
                    }
                });
            }
        }
    }

    #[test]
    fn the_first_round_pairs_top_half_against_bottom_half() {
        let pairs = play(8, 1, |_, _, _| None).remove(0);
        let mut met: Vec<(i64, i64)> = pairs
            .iter()
            .map(|p| {
                let s = p.second.unwrap();
                (p.first.min(s), p.first.max(s))
            })
            .collect();
        met.sort();
        assert_eq!(met, vec![(1, 5), (2, 6), (3, 7), (4, 8)]);
        // Seats alternate down the boards, the top seed first.
        assert_eq!(pairs[0], Pair::game(1, 5));
        assert_eq!(pairs[1], Pair::game(6, 2));
    }

    #[test]
    fn the_bye_goes_to_the_lowest_ranked_without_one() {
        let rounds = play(7, 3, |_, a, b| Some(a < b));
        assert_eq!(rounds[0].last(), Some(&Pair::bye(7)));
        let byes: Vec<i64> = rounds
            .iter()
            .filter_map(|r| r.iter().find(|p| p.second.is_none()))
            .map(|p| p.first)
            .collect();
        assert_eq!(byes.len(), 3);
        assert_eq!(byes.iter().collect::<HashSet<_>>().len(), 3);
    }

    #[test]
    fn winners_meet_winners() {
        let rounds = play(8, 2, |_, a, b| Some(a < b));
        // After round 1, 1 to 4 have won: they meet each other in round 2.
        for p in &rounds[1] {
            let s = p.second.unwrap();
            assert_eq!(p.first <= 4, s <= 4, "{p:?}");
        }
    }

    #[test]
    fn a_field_that_has_met_everyone_still_pairs() {
        // Four players, five rounds: repeats are unavoidable from round 4.
        let entrants: Vec<Entrant> = (1..=4)
            .map(|id| Entrant {
                id,
                points2: 0,
                opponents: (1..=4).filter(|&o| o != id).collect(),
                seat_balance: 0,
                last_first: None,
                had_bye: false,
            })
            .collect();
        assert_eq!(pair_round(&entrants, 4).len(), 2);
    }
}
