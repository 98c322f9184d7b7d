//! The position the generator keeps of a game it plays with `--answer
//! minimal`. Those answers carry no legal moves, so the next move is chosen
//! from the rules' own list, as a bot that knows the game chooses it. The
//! position follows the answers (the move, then the conditional reply the
//! server played with it); when an answer does not fit it (a retry that
//! lands late, a refusal), it is rebuilt from the game's history, so a
//! choice never comes from a position the server does not hold.

use super::client::{Api, GameView, MoveAnswer, StoredMove};
use super::conditional::reply_of;
use super::play::SlotResult;
use crate::rules::AnyGame;

/// A game's position as the generator knows it.
pub struct Known {
    position: AnyGame,
    /// Moves played from the start, to compare with the server's `ply`.
    played: i64,
}

impl Known {
    /// The new game `state` shows, its legal moves written into it; `None`
    /// when the rules do not know the game or a move was already played.
    pub fn start(state: &mut GameView) -> Option<Known> {
        let position = AnyGame::new(&state.game, Some(&state.variant)).ok()?;
        Known { position, played: 0 }.shown_in(state)
    }

    /// The game `state` shows, rebuilt from its `history`, its legal moves
    /// written into it; `None` when the rules do not replay the history to
    /// the game `state` shows.
    pub fn replayed(state: &mut GameView, history: &[StoredMove]) -> Option<Known> {
        let moves: Vec<&str> = history.iter().map(|m| m.notation.as_str()).collect();
        let position = AnyGame::replay(&state.game, Some(&state.variant), &moves).ok()?;
        let played = moves.len() as i64;
        Known { position, played }.shown_in(state)
    }

    /// Plays an acknowledged move (and the reply it got); `true` when the
    /// position then is the answer's game, whose legal moves it writes.
    pub fn follow(&mut self, answer: &mut MoveAnswer) -> bool {
        if answer.record.ply != self.played + 1 || !play_answer(&mut self.position, answer) {
            return false;
        }
        self.played += 1 + i64::from(reply_of(answer).is_some());
        self.agrees_with(&answer.game) && {
            answer.game.legal = self.position.legal_moves();
            true
        }
    }

    /// Itself, its legal moves written into `state`, if it is the game
    /// `state` shows.
    fn shown_in(self, state: &mut GameView) -> Option<Known> {
        self.agrees_with(state).then(|| {
            state.legal = self.position.legal_moves();
            self
        })
    }

    fn agrees_with(&self, state: &GameView) -> bool {
        self.played == state.ply && self.position.to_move().map(i64::from) == state.to_move
    }
}

/// After an answer that did not fit the position, or a refusal: the
/// position `known` (if the generator keeps one) rebuilt from the game's
/// history, whatever the answer left unsaid; `false` when the slot should
/// leave the game (what went wrong counted in `result`).
pub async fn resync(api: &Api, known: &mut Option<Known>, state: &mut GameView, result: &mut SlotResult) -> bool {
    if known.is_none() {
        return true;
    }
    match api.history(state.id).await {
        Ok(history) => *known = Known::replayed(state, &history),
        Err(error) => {
            result.error_then_back_off(&error).await;
            return false;
        }
    }
    if known.is_none() {
        result.count_error("a game's history the rules do not replay to its state".to_owned());
    }
    known.is_some()
}

/// Plays an acknowledged move, then the conditional reply the server
/// played with it (if any); `false` when the rules refuse either.
pub fn play_answer(position: &mut AnyGame, answer: &MoveAnswer) -> bool {
    position.play(&answer.record.notation).is_ok()
        && reply_of(answer).is_none_or(|reply| position.play(&reply.notation).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(ply: i64, to_move: Option<i64>) -> GameView {
        GameView {
            id: 1,
            game: "gravity".into(),
            variant: "standard".into(),
            status: "active".into(),
            ply,
            to_move,
            legal: Vec::new(),
            outcome: None,
            seq: 0,
            last_move: None,
        }
    }

    fn answer(ply: i64, seat: i64, notation: &str, game: GameView) -> MoveAnswer {
        MoveAnswer {
            created: true,
            record: StoredMove {
                ply,
                seat,
                notation: notation.into(),
            },
            game,
        }
    }

    #[test]
    fn a_new_game_gets_the_rules_legal_moves() {
        let mut state = view(0, Some(0));
        let known = Known::start(&mut state).expect("a new Gravity game");
        assert_eq!(state.legal, AnyGame::new("gravity", None).unwrap().legal_moves());
        assert!(!state.legal.is_empty());
        assert_eq!(known.played, 0);
        // A game already under way is not a new one.
        assert!(Known::start(&mut view(1, Some(1))).is_none());
    }

    #[test]
    fn a_move_and_its_reply_are_followed() {
        let mut state = view(0, Some(0));
        let mut known = Known::start(&mut state).unwrap();
        let mut rules = AnyGame::new("gravity", None).unwrap();
        let first = state.legal[0].clone();
        rules.play(&first).unwrap();
        let reply = rules.legal_moves()[3].clone();
        rules.play(&reply).unwrap();
        let mut after = view(2, Some(0));
        after.last_move = Some(StoredMove {
            ply: 2,
            seat: 1,
            notation: reply,
        });
        let mut acked = answer(1, 0, &first, after);
        assert!(known.follow(&mut acked));
        assert_eq!(acked.game.legal, rules.legal_moves());
        assert_eq!(known.played, 2);
    }

    #[test]
    fn an_answer_that_does_not_fit_is_not_followed() {
        let mut state = view(0, Some(0));
        let mut known = Known::start(&mut state).unwrap();
        let first = state.legal[0].clone();
        // The server shows a ply the move alone does not reach.
        assert!(!known
            .clone_for_test()
            .follow(&mut answer(1, 0, &first, view(2, Some(0)))));
        // A move for another ply than the next.
        assert!(!known
            .clone_for_test()
            .follow(&mut answer(2, 0, &first, view(2, Some(0)))));
        // A move the rules refuse.
        assert!(!known.follow(&mut answer(1, 0, "z99", view(1, Some(1)))));
    }

    #[test]
    fn a_game_is_rebuilt_from_its_history() {
        let mut rules = AnyGame::new("gravity", None).unwrap();
        let history: Vec<StoredMove> = (1..=3)
            .map(|ply| {
                let notation = rules.legal_moves()[ply as usize].clone();
                let seat = rules.to_move().map_or(0, i64::from);
                rules.play(&notation).unwrap();
                StoredMove { ply, seat, notation }
            })
            .collect();
        let to_move = rules.to_move().map(i64::from);
        let mut state = view(3, to_move);
        let known = Known::replayed(&mut state, &history).expect("the history replays");
        assert_eq!(known.played, 3);
        assert_eq!(state.legal, rules.legal_moves());
        // A history that does not reach the game shown, or that the rules
        // refuse, rebuilds nothing.
        assert!(Known::replayed(&mut view(4, to_move), &history).is_none());
        let mut refused = history.clone();
        refused[1].notation = "z99".into();
        assert!(Known::replayed(&mut view(3, to_move), &refused).is_none());
    }

    impl Known {
        fn clone_for_test(&self) -> Known {
            Known {
                position: self.position.clone(),
                played: self.played,
            }
        }
    }
}
