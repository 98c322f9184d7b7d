//! Conditional moves in the load (`--conditional`): in a share of the
//! two-player games, the second seat leaves a tree whenever it waits without
//! one, and the first seat mostly plays into it; and the check, after the
//! run, that every tree acknowledged was honoured: each foreseen move is
//! followed in the history by its reply, never stored without it.

use serde::{Deserialize, Serialize};

use super::client::{Api, GameView, MoveAnswer, StoredMove};
use super::play::{Chooser, SlotResult};
use super::players::Player;
use super::position::play_answer;
use crate::rules::playout::Rng;
use crate::rules::AnyGame;

/// Lines per tree, and (their move, my reply) pairs per line.
const LINES: usize = 3;
const PAIRS: usize = 2;
/// The seat that leaves trees, and the one whose moves they answer.
const OWNER: i64 = 1;

/// A tree the server acknowledged: a line of the `--acked-out` file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AckedTree {
    pub game: i64,
    /// The ply of the position it was set in.
    pub ply: i64,
    pub lines: Vec<Vec<String>>,
}

/// One game's side of the play: the position as the generator knows it,
/// and what remains of the second seat's tree.
pub struct Forecast {
    game: i64,
    position: AnyGame,
    /// What remains of the tree on the server, as far as the answers tell.
    tree: Vec<Vec<String>>,
}

impl Forecast {
    /// A forecast for a new game, if it is a two-player game and the share
    /// picks it.
    pub fn new(state: &GameView, share: f64, rng: &mut Rng) -> Option<Forecast> {
        if share <= 0.0 {
            // No draw from `rng`: a run without trees makes the choices it
            // always made.
            return None;
        }
        let position = AnyGame::new(&state.game, Some(&state.variant)).ok()?;
        let picked = (rng.below(1_000) as f64) < share * 1_000.0;
        (picked && position.id().variant.seats.len() == 2 && state.ply == 0).then(|| Forecast {
            game: state.id,
            position,
            tree: Vec::new(),
        })
    }

    /// When the first seat is to move and the second has no tree waiting,
    /// the second leaves one; what the server acknowledged is recorded for
    /// the check.
    pub async fn leave_lines(
        &mut self,
        api: &Api,
        players: &[Player],
        state: &GameView,
        chooser: &mut Chooser,
        result: &mut SlotResult,
    ) {
        let Some(lines) = self.lines_to_set(state, &mut chooser.rng) else {
            return;
        };
        let Some(owner) = players.get(OWNER as usize) else {
            return;
        };
        match api.set_conditional(&owner.token, self.game, &lines).await {
            Ok(_) => result.trees.push(self.set(state.ply, lines)),
            Err(error) => result.error(&error),
        }
    }

    /// Lines to set now: when the first seat is to move and no tree waits.
    fn lines_to_set(&self, state: &GameView, rng: &mut Rng) -> Option<Vec<Vec<String>>> {
        if state.to_move != Some(1 - OWNER) || !self.tree.is_empty() {
            return None;
        }
        let mut lines: Vec<Vec<String>> = Vec::with_capacity(LINES);
        for line in (0..LINES).filter_map(|_| random_line(&self.position, rng)) {
            // Two replies to one move would be refused: one line per move.
            if lines.iter().all(|l| l[0] != line[0]) {
                lines.push(line);
            }
        }
        (!lines.is_empty()).then_some(lines)
    }

    /// The tree was set (acknowledged) at `ply`.
    fn set(&mut self, ply: i64, lines: Vec<Vec<String>>) -> AckedTree {
        self.tree.clone_from(&lines);
        AckedTree {
            game: self.game,
            ply,
            lines,
        }
    }

    /// The first seat's move: a foreseen one two times in three.
    pub fn pick(&self, seat: usize, rng: &mut Rng) -> Option<String> {
        if seat as i64 == OWNER || self.tree.is_empty() || rng.below(3) == 0 {
            return None;
        }
        Some(self.tree[rng.below(self.tree.len())][0].clone())
    }

    /// Follows an acknowledged move, and the reply it got if any; `false`
    /// when the answer does not fit what the generator knows (it should
    /// stop forecasting this game).
    pub fn follow(&mut self, answer: &MoveAnswer) -> bool {
        if !play_answer(&mut self.position, answer) {
            return false;
        }
        let theirs = &answer.record;
        if theirs.seat != OWNER {
            if reply_of(answer).is_some() {
                // What remains of the lines that foresaw the move.
                self.tree = std::mem::take(&mut self.tree)
                    .into_iter()
                    .filter(|line| line[0] == theirs.notation && line.len() > 2)
                    .map(|line| line[2..].to_vec())
                    .collect();
            } else {
                self.tree.clear();
            }
        }
        true
    }
}

/// The conditional reply an answer shows: the last move, one ply on.
pub fn reply_of(answer: &MoveAnswer) -> Option<&StoredMove> {
    answer
        .game
        .last_move
        .as_ref()
        .filter(|last| last.ply == answer.record.ply + 1)
}

/// A line of random legal moves from `position`, the first seat to move.
fn random_line(position: &AnyGame, rng: &mut Rng) -> Option<Vec<String>> {
    let mut game = position.clone();
    let mut line = Vec::with_capacity(2 * PAIRS);
    for _ in 0..2 * PAIRS {
        let legal = game.legal_moves();
        if legal.is_empty() || game.is_finished() {
            break;
        }
        let pick = legal[rng.below(legal.len())].clone();
        game.play(&pick).ok()?;
        line.push(pick);
    }
    line.truncate(line.len() / 2 * 2);
    (!line.is_empty()).then_some(line)
}

/// Checks a game's history against its acknowledged trees, in the order
/// they were set: from each tree's ply, every move of the first seat that a
/// line foresaw is followed by that line's reply (unless it ended the
/// game), and the tree goes on with the lines that matched, until no line
/// is left, a move leaves them, or the next tree is set. Returns how many
/// replies were checked, or the first fault.
pub fn check(history: &[StoredMove], trees: &[&AckedTree], finished: bool) -> Result<u64, String> {
    let mut replies = 0;
    for (index, tree) in trees.iter().enumerate() {
        let until = trees.get(index + 1).map_or(i64::MAX, |next| next.ply);
        let mut lines: Vec<&[String]> = tree.lines.iter().map(Vec::as_slice).collect();
        let mut ply = tree.ply + 1;
        while !lines.is_empty() && ply < until {
            let Some(theirs) = history.get((ply - 1) as usize) else {
                break;
            };
            lines.retain(|line| line.len() >= 2 && line[0] == theirs.notation);
            let Some(line) = lines.first() else {
                break;
            };
            match history.get(ply as usize) {
                Some(reply) if reply.notation == line[1] && reply.seat == OWNER => replies += 1,
                Some(other) => {
                    return Err(format!(
                        "ply {ply} ({}) was foreseen by the tree set at ply {}: the reply is {}, not {}",
                        theirs.notation, tree.ply, line[1], other.notation
                    ))
                }
                None if finished && ply as usize == history.len() => break,
                None => {
                    return Err(format!(
                        "ply {ply} ({}) was foreseen by the tree set at ply {} and is stored without its reply",
                        theirs.notation, tree.ply
                    ))
                }
            }
            lines = lines
                .into_iter()
                .map(|line| &line[2..])
                .filter(|l| !l.is_empty())
                .collect();
            ply += 2;
        }
    }
    Ok(replies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(moves: &[&str]) -> Vec<StoredMove> {
        moves
            .iter()
            .enumerate()
            .map(|(index, notation)| StoredMove {
                ply: index as i64 + 1,
                seat: index as i64 % 2,
                notation: (*notation).to_owned(),
            })
            .collect()
    }

    fn tree(ply: i64, lines: &[&[&str]]) -> AckedTree {
        AckedTree {
            game: 1,
            ply,
            lines: lines
                .iter()
                .map(|l| l.iter().map(|m| (*m).to_owned()).collect())
                .collect(),
        }
    }

    #[test]
    fn replies_are_checked_along_the_tree_until_it_is_left() {
        let set = tree(0, &[&["a", "b", "c", "d"], &["x", "y"]]);
        assert_eq!(check(&stored(&["a", "b", "c", "d", "e"]), &[&set], false), Ok(2));
        assert_eq!(check(&stored(&["a", "b", "q", "r"]), &[&set], false), Ok(1));
        assert_eq!(check(&stored(&["q", "b"]), &[&set], false), Ok(0));
        // A wrong reply, or none, is a fault; none is fine if the move won.
        let wrong = check(&stored(&["a", "z"]), &[&set], false);
        assert!(wrong.is_err_and(|e| e.contains("the reply is b, not z")));
        let alone = check(&stored(&["a", "b", "c"]), &[&set], false);
        assert!(alone.is_err_and(|e| e.contains("without its reply")));
        assert_eq!(check(&stored(&["a", "b", "c"]), &[&set], true), Ok(1));
    }

    #[test]
    fn a_later_tree_takes_over_from_its_ply() {
        let first = tree(0, &[&["a", "b", "c", "d"]]);
        let second = tree(2, &[&["e", "f"]]);
        assert_eq!(check(&stored(&["a", "b", "e", "f"]), &[&first, &second], false), Ok(2));
    }
}
