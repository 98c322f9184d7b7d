//! Standings, pure: points (1 a win or a bye, ½ a draw, 0 a loss or a
//! forfeit), games played, and the tiebreaks of the format —
//! Sonneborn-Berger for round robins and leagues, Buchholz then median
//! Buchholz for Swiss — then seed order. Scores are kept doubled (a win
//! 2) so that comparisons are exact; the floats are for showing.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

/// How a finished game went, seat 0 first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    FirstWins,
    SecondWins,
    Draw,
}

/// A pairing as standings read it: a game (`second`) or a bye, with its
/// score once finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub first: i64,
    pub second: Option<i64>,
    pub score: Option<Score>,
}

/// Which tiebreaks order equal scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiebreaks {
    SonnebornBerger,
    Buchholz,
}

/// How a player's pairings went, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct Results {
    /// Finished games (byes not counted).
    pub played: i64,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
    pub byes: i64,
}

/// One player's line of the standings.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    pub player: i64,
    /// 1 for the first.
    pub rank: usize,
    pub points: f64,
    pub results: Results,
    pub sonneborn_berger: f64,
    pub buchholz: f64,
    /// Buchholz without the best and the worst opponent (with three or more).
    pub median_buchholz: f64,
}

#[derive(Default)]
struct Tally {
    points2: i64,
    results: Results,
    /// `(opponent, my score doubled)` per finished game.
    faced: Vec<(i64, i64)>,
}

/// The standings of `players` (in seed order) after `games`, best first.
pub fn standings(players: &[i64], games: &[Played], tiebreaks: Tiebreaks) -> Vec<Standing> {
    let mut tallies: HashMap<i64, Tally> = players.iter().map(|&p| (p, Tally::default())).collect();
    for game in games {
        match (game.second, game.score) {
            (None, _) => {
                if let Some(t) = tallies.get_mut(&game.first) {
                    t.points2 += 2;
                    t.results.byes += 1;
                }
            }
            (Some(second), Some(score)) => {
                let (a, b) = match score {
                    Score::FirstWins => (2, 0),
                    Score::SecondWins => (0, 2),
                    Score::Draw => (1, 1),
                };
                record(&mut tallies, game.first, second, a);
                record(&mut tallies, second, game.first, b);
            }
            (Some(_), None) => {}
        }
    }
    let points_of = |p: i64| tallies.get(&p).map_or(0, |t| t.points2);
    let mut lines: Vec<(Standing, [i64; 3], usize)> = players
        .iter()
        .enumerate()
        .map(|(seed, &player)| {
            let t = &tallies[&player];
            // Sonneborn-Berger, quadrupled: each opponent's points times my
            // score against them.
            let sb4: i64 = t.faced.iter().map(|&(o, mine)| mine * points_of(o)).sum();
            let mut opponents: Vec<i64> = t.faced.iter().map(|&(o, _)| points_of(o)).collect();
            opponents.sort_unstable();
            let buchholz2: i64 = opponents.iter().sum();
            let median2 = if opponents.len() >= 3 {
                opponents[1..opponents.len() - 1].iter().sum()
            } else {
                buchholz2
            };
            let keys = match tiebreaks {
                Tiebreaks::SonnebornBerger => [t.points2 * 2, sb4, 0],
                Tiebreaks::Buchholz => [t.points2, buchholz2, median2],
            };
            let standing = Standing {
                player,
                rank: 0,
                points: t.points2 as f64 / 2.0,
                results: t.results,
                sonneborn_berger: sb4 as f64 / 4.0,
                buchholz: buchholz2 as f64 / 2.0,
                median_buchholz: median2 as f64 / 2.0,
            };
            (standing, keys, seed)
        })
        .collect();
    lines.sort_by(|(_, a, sa), (_, b, sb)| b.cmp(a).then(sa.cmp(sb)));
    lines
        .into_iter()
        .enumerate()
        .map(|(i, (mut standing, _, _))| {
            standing.rank = i + 1;
            standing
        })
        .collect()
}

fn record(tallies: &mut HashMap<i64, Tally>, player: i64, opponent: i64, mine2: i64) {
    let Some(t) = tallies.get_mut(&player) else { return };
    t.points2 += mine2;
    t.results.played += 1;
    match mine2 {
        2 => t.results.wins += 1,
        1 => t.results.draws += 1,
        _ => t.results.losses += 1,
    }
    t.faced.push((opponent, mine2));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairings as a cross-table reads them, seat 0 first: `1>2` player 1
    /// beat player 2, `3<1` player 1 won in seat 1, `1=4` a draw, `3`
    /// alone a bye.
    fn pairings(text: &str) -> Vec<Played> {
        let player = |p: &str| p.parse::<i64>().expect("a player number");
        text.split_whitespace()
            .map(|pairing| {
                let Some(at) = pairing.find(['>', '<', '=']) else {
                    return Played {
                        first: player(pairing),
                        second: None,
                        score: None,
                    };
                };
                let score = match &pairing[at..=at] {
                    ">" => Score::FirstWins,
                    "<" => Score::SecondWins,
                    _ => Score::Draw,
                };
                Played {
                    first: player(&pairing[..at]),
                    second: Some(player(&pairing[at + 1..])),
                    score: Some(score),
                }
            })
            .collect()
    }

    /// A four-player round robin worked by hand:
    /// A(1) beats B and C, draws D: 2.5. B beats C and D: 2. C beats D: 1.
    /// D draws A: 0.5. Sonneborn-Berger: A = 2 + 1 + 0.25 = 3.25;
    /// B = 1 + 0.5 = 1.5; C = 0.5; D = ½·2.5 = 1.25.
    #[test]
    fn sonneborn_berger_by_hand() {
        let games = pairings("1>2 3<1 1=4 2>3 4<2 3>4");
        let table = standings(&[1, 2, 3, 4], &games, Tiebreaks::SonnebornBerger);
        let got: Vec<(i64, usize, f64, f64)> = table
            .iter()
            .map(|s| (s.player, s.rank, s.points, s.sonneborn_berger))
            .collect();
        assert_eq!(
            got,
            vec![(1, 1, 2.5, 3.25), (2, 2, 2.0, 1.5), (3, 3, 1.0, 0.5), (4, 4, 0.5, 1.25)]
        );
        let results = Results {
            played: 3,
            wins: 2,
            draws: 1,
            losses: 0,
            byes: 0,
        };
        assert_eq!(table[0].results, results);
    }

    /// Sonneborn-Berger breaks a tie of points; a perfect tie falls back
    /// to seed order.
    #[test]
    fn sonneborn_berger_breaks_ties() {
        // A beats B, B beats C, C beats A: all 1, SB all 1: seed order.
        let table = standings(&[1, 2, 3], &pairings("1>2 2>3 3>1"), Tiebreaks::SonnebornBerger);
        assert_eq!(table.iter().map(|s| s.player).collect::<Vec<_>>(), vec![1, 2, 3]);
        // Four players: 2 and 3 tie on 1.5; 3 beat the winner, 2 only the last.
        let games = pairings("1>2 1>4 3>1 2=3 2>4 4>3");
        let table = standings(&[1, 2, 3, 4], &games, Tiebreaks::SonnebornBerger);
        // 1: 2, 2: 1.5, 3: 1.5, 4: 1. SB(1) = 1.5 + 1 = 2.5;
        // SB(2) = 1 (beat 4) + 0.75 = 1.75; SB(3) = 2 (beat 1) + 0.75 = 2.75;
        // SB(4) = 1.5 (beat 3).
        let got: Vec<(i64, f64, f64)> = table.iter().map(|s| (s.player, s.points, s.sonneborn_berger)).collect();
        assert_eq!(got, vec![(1, 2.0, 2.5), (3, 1.5, 2.75), (2, 1.5, 1.75), (4, 1.0, 1.5)]);
    }

    /// A Swiss of five over three rounds worked by hand, with a bye each
    /// round: Buchholz sums the opponents' points (byes count none), the
    /// median drops the best and worst opponent.
    #[test]
    fn buchholz_and_median_by_hand() {
        // Round 1: 1-4 1-0, 2-5 ½, bye 3. Round 2: 3-1 0-1, 5-4 1-0, bye 2.
        // Round 3: 1-5 ½, 2-3 1-0, bye 4.
        let games = pairings("1>4 2=5 3  3<1 5>4 2  1=5 2>3 4");
        // Points: 1 = 2.5, 2 = 2.5, 3 = 1, 4 = 1, 5 = 2.
        // Buchholz: 1 = 4+3+5 → 1 + 1 + 2 = 4; 2 = 5, 3 → 2 + 1 = 3;
        // 3 = 1, 2 → 2.5 + 2.5 = 5; 4 = 1, 5 → 2.5 + 2 = 4.5;
        // 5 = 2, 4, 1 → 2.5 + 1 + 2.5 = 6. Median (three opponents): 1 → 1,
        // 5 → 2.5; the others have two and keep their Buchholz.
        let table = standings(&[1, 2, 3, 4, 5], &games, Tiebreaks::Buchholz);
        let got: Vec<(i64, f64, f64, f64)> = table
            .iter()
            .map(|s| (s.player, s.points, s.buchholz, s.median_buchholz))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 2.5, 4.0, 1.0),
                (2, 2.5, 3.0, 3.0),
                (5, 2.0, 6.0, 2.5),
                (3, 1.0, 5.0, 5.0),
                (4, 1.0, 4.5, 4.5)
            ]
        );
        assert_eq!(table[1].results.byes, 1);
        assert_eq!(table[1].results.played, 2);
    }

    #[test]
    fn unfinished_games_count_nothing() {
        let games = [Played {
            first: 1,
            second: Some(2),
            score: None,
        }];
        let table = standings(&[1, 2], &games, Tiebreaks::SonnebornBerger);
        assert!(table.iter().all(|s| s.points == 0.0 && s.results == Results::default()));
    }
}
