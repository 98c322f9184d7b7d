//! What the search knows of Pente: an evaluation of the five-point
//! windows, moves near stones, and the strongest level's reading of
//! threats.
//!
//! Random playouts do not see an open three: one move from an open four,
//! which no single reply stops. The level below blocks a four once it
//! stands, too late; the strongest level makes open fours itself
//! ([`super::tactics::winning_in_two`]) and, before searching, keeps only
//! the moves that leave the next player no point making two fives at once,
//! or else the moves that make such a point of its own ([`read_threats`]).
//! The threat count reads stones only (a capture the threatened side could
//! make is left to the search): a heuristic that narrows the moves
//! searched, never one that makes an illegal move.

use arrayvec::ArrayVec;

use crate::rules::pente::{self, Pente, Point};
use crate::rules::playout::Rng;
use crate::rules::{Rules, Seat};

use super::heuristics::{Heuristics, Scores};

/// Pente's board side.
const SIDE: u8 = 19;

impl Heuristics for Pente {
    const CUTOFF: Option<u32> = Some(16);
    const SCALE: f32 = 30.0;
    /// An open four (or a four and a three) wins in two; the level below
    /// blocks a four only once it stands, so the strongest makes them.
    fn reads_wins_in_two(&self) -> bool {
        true
    }

    fn read_threats(&self, moves: Vec<pente::Move>) -> Vec<pente::Move> {
        read_threats(self, moves)
    }

    /// Captures (each pair counts toward the win) and the open five-point
    /// windows each seat holds, a window with more stones counting far more.
    fn evaluate(&self) -> Scores {
        let mut scores = [0.0; 4];
        for (seat, score) in scores.iter_mut().enumerate().take(2) {
            *score = 6.0 * self.captured(seat as Seat) as f32 + 10.0 * self.score(seat as Seat) as f32;
        }
        const WEIGHT: [f32; 6] = [0.0, 0.2, 1.5, 8.0, 40.0, 200.0];
        const AXES: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
        for rank in 0..SIDE as i8 {
            for file in 0..SIDE as i8 {
                for (df, dr) in AXES {
                    let (last_file, last_rank) = (file + 4 * df, rank + 4 * dr);
                    if !(0..SIDE as i8).contains(&last_file) || !(0..SIDE as i8).contains(&last_rank) {
                        continue;
                    }
                    let mut counts = [0usize; 2];
                    let mut blocked = false;
                    for i in 0..5 {
                        let point = Point::new((file + i * df) as u8, (rank + i * dr) as u8);
                        match self.stone_at(point) {
                            Some(Some(seat)) => counts[seat as usize & 1] += 1,
                            Some(None) => blocked = true,
                            None => {}
                        }
                    }
                    if blocked {
                        continue;
                    }
                    match counts {
                        [n, 0] => scores[0] += WEIGHT[n],
                        [0, n] => scores[1] += WEIGHT[n],
                        _ => {}
                    }
                }
            }
        }
        scores
    }

    /// Only points next to a stone, or two away from one, are worth a
    /// thought (every winning point is next to a stone).
    fn prune(&self, moves: &mut pente::MoveList) {
        let near: pente::MoveList = moves
            .as_slice()
            .iter()
            .copied()
            .filter(|m| near_stone(self, m.point, 2))
            .collect();
        if !near.is_empty() {
            *moves = near;
        }
    }

    /// A random free point next to a stone (legalised, so the variant's
    /// own rules still apply), or any random move when none is found.
    fn playout_move(&self, rng: &mut Rng) -> Option<pente::Move> {
        self.outcome()?;
        for _ in 0..48 {
            let point = Point::new(rng.below(SIDE as usize) as u8, rng.below(SIDE as usize) as u8);
            if self.stone_at(point).is_some() || !near_stone(self, point, 1) {
                continue;
            }
            if let Ok(m) = self.legalize(pente::Move::stone(point)) {
                return Some(m);
            }
        }
        self.random_move(rng)
    }
}

/// Whether a stone stands within `distance` (Chebyshev) of `point`.
fn near_stone(game: &Pente, point: Point, distance: i8) -> bool {
    let (file, rank) = coordinates(point);
    (-distance..=distance).any(|df| {
        (-distance..=distance).any(|dr| {
            let (f, r) = (file + df, rank + dr);
            (df, dr) != (0, 0)
                && (0..SIDE as i8).contains(&f)
                && (0..SIDE as i8).contains(&r)
                && game.stone_at(Point::new(f as u8, r as u8)).is_some()
        })
    })
}

fn coordinates(point: Point) -> (i8, i8) {
    (point.file() as i8, point.rank() as i8)
}

/// What a point holds, off the board included.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Free,
    Stone(Seat),
    /// Off the board, or a neutral stone: no five runs through it.
    Wall,
}

fn cell(game: &Pente, file: i8, rank: i8) -> Cell {
    if !(0..SIDE as i8).contains(&file) || !(0..SIDE as i8).contains(&rank) {
        return Cell::Wall;
    }
    match game.stone_at(Point::new(file as u8, rank as u8)) {
        None => Cell::Free,
        Some(Some(seat)) => Cell::Stone(seat),
        Some(None) => Cell::Wall,
    }
}

/// The four lines a five runs along.
const AXES: [(i8, i8); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// Whether a stone of `seat` on the free point `point` would be forcing:
/// it would make five at once, or leave two free points each completing a
/// five (an open four, or two fours), so that no single reply stops both.
fn forcing(game: &Pente, seat: Seat, point: Point) -> bool {
    let (file, rank) = coordinates(point);
    // Distinct completion points: at most one per window through the point.
    let mut completions: ArrayVec<(i8, i8), 20> = ArrayVec::new();
    for (df, dr) in AXES {
        for start in -4..=0i8 {
            let mut own = 0;
            let mut free = None;
            let mut open = true;
            for i in (start..start + 5).filter(|&i| i != 0) {
                let (f, r) = (file + i * df, rank + i * dr);
                match cell(game, f, r) {
                    Cell::Stone(s) if s == seat => own += 1,
                    Cell::Free => free = Some((f, r)),
                    _ => open = false,
                }
            }
            match (open, own, free) {
                (true, 4, _) => return true,
                (true, 3, Some(q)) if !completions.contains(&q) => completions.push(q),
                _ => {}
            }
        }
    }
    completions.len() >= 2
}

/// How many free points would be forcing for `seat` (see [`forcing`]).
/// Only points within two of a stone can be: a window with three of the
/// seat's stones beside the point holds one within two of it.
pub fn forcing_points(game: &Pente, seat: Seat) -> usize {
    (0..SIDE)
        .flat_map(|rank| (0..SIDE).map(move |file| Point::new(file, rank)))
        .filter(|&point| game.stone_at(point).is_none() && near_stone(game, point, 2))
        .filter(|&point| forcing(game, seat, point))
        .count()
}

/// The position after `m`.
fn after_move(game: &Pente, m: pente::Move) -> Pente {
    let mut next = game.clone();
    next.play_unchecked(m);
    next
}

/// The strongest level's reading of threats, once wins in one and two are
/// ruled out:
///
/// - when the next player could make a forcing move after ours (an open
///   three to turn into an open four, a four and a three...), the moves of
///   `moves` that leave them the fewest such points;
/// - else, when some moves make a forcing point of our own (an open three:
///   an open four next, unless the reply stops it), those moves;
/// - else all of `moves`.
pub fn read_threats(game: &Pente, moves: Vec<pente::Move>) -> Vec<pente::Move> {
    let Some(seat) = game.to_move() else {
        return moves;
    };
    let them = 1 - seat;
    if forcing_points(game, them) > 0 {
        let counted: Vec<(pente::Move, usize)> = moves
            .into_iter()
            .map(|m| (m, forcing_points(&after_move(game, m), them)))
            .collect();
        let fewest = counted.iter().map(|&(_, n)| n).min().unwrap_or(0);
        return counted
            .into_iter()
            .filter(|&(_, n)| n == fewest)
            .map(|(m, _)| m)
            .collect();
    }
    let attacking: Vec<pente::Move> = moves
        .iter()
        .copied()
        .filter(|&m| forcing_points(&after_move(game, m), seat) > 0)
        .collect();
    if attacking.is_empty() {
        moves
    } else {
        attacking
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `line` in standard Pente.
    fn after(line: &[&str]) -> Pente {
        let mut game = Pente::new(pente::Variant::Standard);
        for text in line {
            let m = game.legalize(text.parse().expect("notation")).expect("legal");
            game.play_unchecked(m);
        }
        game
    }

    #[test]
    fn an_open_three_makes_forcing_points_a_closed_one_does_not() {
        // White k10 k11 k12, both ends open: k9 and k13 each make an open
        // four (and j/l points do not).
        let open = after(&["k10", "a1", "k11", "a3", "k12", "a5"]);
        assert_eq!(forcing_points(&open, 0), 2);
        assert_eq!(forcing_points(&open, 1), 0);
        // Black on k13 closes one end: a four from k9 has one free end.
        let closed = after(&["k10", "a1", "k11", "k13", "k12", "a5"]);
        assert_eq!(forcing_points(&closed, 0), 0);
    }

    #[test]
    fn a_split_three_is_seen() {
        // White k10 k11 _ k13: k12 makes k10-k13, open at k9 and k14.
        let game = after(&["k10", "a1", "k11", "a3", "k13", "a5"]);
        assert!(forcing(&game, 0, Point::new(9, 11)));
    }

    #[test]
    fn the_defence_blocks_an_open_three() {
        // Black to move facing White's open three k10 k11 k12: only a stone
        // at an end, k9 or k13, leaves White no open four (one on k8 or k14
        // leaves the four k9-k12 or k10-k13 open at both ends).
        let game = after(&["k10", "a1", "k11", "a3", "k12"]);
        let moves = super::super::search::candidates(&game);
        let kept = read_threats(&game, moves);
        assert!(!kept.is_empty());
        for m in &kept {
            let mut next = game.clone();
            next.play_unchecked(*m);
            assert_eq!(forcing_points(&next, 0), 0, "{m}");
            assert!(matches!(m.to_string().as_str(), "k9" | "k13"), "{m}");
        }
    }

    #[test]
    fn with_no_threat_to_meet_it_makes_an_open_three() {
        // White k10 k11, Black far off: White's moves that make a three
        // (k12, k9, or split ones such as k13) are kept, the rest dropped.
        let game = after(&["k10", "a1", "k11", "a3"]);
        let moves = super::super::search::candidates(&game);
        let kept = read_threats(&game, moves.clone());
        assert!(
            !kept.is_empty() && kept.len() < moves.len(),
            "{} of {}",
            kept.len(),
            moves.len()
        );
        assert!(kept.iter().any(|m| m.to_string() == "k12"));
        for m in &kept {
            assert!(forcing_points(&after_move(&game, *m), 0) > 0, "{m}");
        }
    }

    #[test]
    fn nothing_to_read_no_narrowing() {
        // One stone each: no three can be made yet.
        let game = after(&["k10", "k9"]);
        let moves = super::super::search::candidates(&game);
        assert_eq!(read_threats(&game, moves.clone()), moves);
    }
}
