//! [`AnyGame`]: one type over every game and variant, holding a position and
//! speaking in strings, which is all the server and the command line need.

use std::fmt;

use serde::{Serialize, Serializer};

use super::catalogue::{self, GameInfo, VariantInfo};
use super::playout::Rng;
use super::{
    focus, gravity, huntsmen, neighbours, pente, torri, Notation, NotationError, Outcome, PlayError, Rules, Seat, View,
};

/// Adds a game family: its enum variant, module and position type. Every
/// match over the families is generated from this one list.
macro_rules! families {
    ($d:tt; $($family:ident => $module:ident :: $position:ident),* $(,)?) => {
        /// A position of any game family.
        #[derive(Clone, Debug)]
        pub enum Position {
            $($family($module::$position)),*
        }

        $(impl From<$module::$position> for Position {
            fn from(position: $module::$position) -> Position {
                Position::$family(position)
            }
        })*

        /// Why a well-formed move is not legal, for any family.
        #[derive(Clone, Debug, PartialEq, thiserror::Error)]
        pub enum IllegalMove {
            $(#[error(transparent)] $family(<$module::$position as Rules>::Illegal)),*
        }

        /// Runs `$body` with `$g` bound to the concrete position and `$wrap`
        /// naming the [`IllegalMove`] constructor of its family.
        macro_rules! dispatch {
            ($d self:expr, $d g:ident, $d wrap:ident => $d body:expr) => {
                match $d self {
                    $(Position::$family($d g) => {
                        #[allow(unused_variables)]
                        let $d wrap = IllegalMove::$family;
                        $d body
                    })*
                }
            };
        }
    };
}

families! { $;
    Gravity => gravity::Gravity,
    Torri => torri::Torri,
    Focus => focus::Focus,
    Neighbours => neighbours::Neighbours,
    Pente => pente::Pente,
    Huntsmen => huntsmen::Huntsmen,
}

/// Identifies a game and variant of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct GameId {
    pub game: &'static GameInfo,
    pub variant: &'static VariantInfo,
}

impl PartialEq for GameId {
    fn eq(&self, other: &GameId) -> bool {
        self.game.slug == other.game.slug && self.variant.slug == other.variant.slug
    }
}

impl Eq for GameId {}

impl Serialize for GameId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("GameId", 2)?;
        s.serialize_field("game", self.game.slug)?;
        s.serialize_field("variant", self.variant.slug)?;
        s.end()
    }
}

/// A game or variant slug the catalogue does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnknownGame {
    #[error("unknown game {game:?}; games are {known}")]
    Game { game: String, known: String },
    #[error("{game} has no variant {variant:?}; its variants are {known}")]
    Variant {
        game: &'static str,
        variant: String,
        known: String,
    },
}

impl UnknownGame {
    pub(crate) fn game(slug: &str) -> UnknownGame {
        let known = catalogue::GAMES.iter().map(|g| g.slug).collect::<Vec<_>>().join(", ");
        UnknownGame::Game {
            game: NotationError::echo(slug),
            known,
        }
    }

    pub(crate) fn variant(game: &'static GameInfo, slug: &str) -> UnknownGame {
        let known = game.variants.iter().map(|v| v.slug).collect::<Vec<_>>().join(", ");
        UnknownGame::Variant {
            game: game.slug,
            variant: NotationError::echo(slug),
            known,
        }
    }
}

/// Why a move string was refused. The position is unchanged.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MoveError {
    #[error("the game is over")]
    GameOver,
    #[error(transparent)]
    Notation(#[from] NotationError),
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
    /// A history's concession that cannot be replayed.
    #[error(transparent)]
    Concede(#[from] ConcedeError),
}

/// A seat's concession (a resignation, or its time running out) as a game's
/// history records it, in a game that goes on without the seat:
/// `concede:<seat>`. No game's notation reads it as a move, and
/// [`AnyGame::play`] and [`AnyGame::check`] refuse it: only the server
/// writes it, and only replay ([`AnyGame::play_recorded`]) plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Concession(pub Seat);

const CONCESSION: &str = "concede:";

impl fmt::Display for Concession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{CONCESSION}{}", self.0)
    }
}

impl std::str::FromStr for Concession {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Concession, NotationError> {
        s.strip_prefix(CONCESSION)
            .filter(|seat| seat.len() == 1)
            .and_then(|seat| seat.parse().ok())
            .map(Concession)
            .ok_or_else(|| NotationError::new(s, "a concession such as concede:1"))
    }
}

/// Why a seat cannot concede.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConcedeError {
    #[error("the game is over")]
    GameOver,
    #[error("the game has no seat {0}")]
    NoSuchSeat(Seat),
    #[error("{0} is already out of the game")]
    AlreadyOut(&'static str),
}

/// What a concession did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conceded {
    /// The seat is out and the game goes on without it (or has ended with
    /// the last one left): the history keeps the concession as `Played`.
    Out(Played),
    /// The concession ends the game, and these seats win: nothing to keep
    /// in the history, the position is unchanged.
    Over(Vec<Seat>),
}

impl MoveError {
    fn from_play<I: std::error::Error>(error: PlayError<I>, wrap: impl FnOnce(I) -> IllegalMove) -> MoveError {
        match error {
            PlayError::GameOver => MoveError::GameOver,
            PlayError::Notation(e) => MoveError::Notation(e),
            PlayError::Illegal(e) => MoveError::Illegal(wrap(e)),
        }
    }
}

/// The first move of a list that could not be played.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("move {} ({:?}): {error}", index + 1, notation)]
pub struct ReplayError {
    /// 0-based index of the move in the list.
    pub index: usize,
    pub notation: String,
    pub error: MoveError,
}

/// A move that was played: what a history records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Played {
    pub seat: Seat,
    /// The move's canonical string.
    #[serde(rename = "move")]
    pub notation: String,
    /// What it did, e.g. "lands on f3".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
}

/// A position of any game, with the game and variant it belongs to.
#[derive(Clone, Debug)]
pub struct AnyGame {
    id: GameId,
    position: Position,
    /// The ply of the last concession played, if any: a takeback never
    /// undoes one.
    conceded_at: Option<u32>,
}

impl AnyGame {
    /// The start position of `(game, variant)`; `variant` defaults to `standard`.
    pub fn new(game: &str, variant: Option<&str>) -> Result<AnyGame, UnknownGame> {
        let (_, variant) = catalogue::find(game, variant)?;
        Ok((variant.start)())
    }

    /// Used by each variant's catalogue entry to build its start position.
    pub(crate) fn from_position(game: &'static GameInfo, variant_slug: &str, position: impl Into<Position>) -> AnyGame {
        let variant = game
            .variants
            .iter()
            .find(|v| v.slug == variant_slug)
            .expect("catalogue entries name their own variants");
        AnyGame {
            id: GameId { game, variant },
            position: position.into(),
            conceded_at: None,
        }
    }

    /// The start position with `moves` played in order: how a stored game is
    /// rebuilt.
    pub fn replay<S: AsRef<str>>(game: &str, variant: Option<&str>, moves: &[S]) -> Result<AnyGame, ReplayOrUnknown> {
        let mut position = AnyGame::new(game, variant)?;
        position.play_all(moves)?;
        Ok(position)
    }

    /// Plays the entries of a history (moves and [`Concession`]s) in order,
    /// stopping at the first that fails (the entries before it stay played).
    pub fn play_all<S: AsRef<str>>(&mut self, moves: &[S]) -> Result<(), ReplayError> {
        for (index, notation) in moves.iter().enumerate() {
            let notation = notation.as_ref();
            let played = match notation.parse::<Concession>() {
                Ok(Concession(seat)) => self.concede_recorded(seat),
                Err(_) => self.play_quiet(notation),
            };
            played.map_err(|error| ReplayError {
                index,
                notation: NotationError::echo(notation),
                error,
            })?;
        }
        Ok(())
    }

    pub fn id(&self) -> GameId {
        self.id
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn to_move(&self) -> Option<Seat> {
        dispatch!(&self.position, g, _w => g.to_move())
    }

    pub fn outcome(&self) -> Option<Outcome> {
        dispatch!(&self.position, g, _w => g.outcome())
    }

    pub fn is_finished(&self) -> bool {
        self.outcome().is_some()
    }

    pub fn ply(&self) -> u32 {
        dispatch!(&self.position, g, _w => g.ply())
    }

    /// The legal moves as canonical strings, in a stable order.
    pub fn legal_moves(&self) -> Vec<String> {
        self.legal().iter().map(str::to_owned).collect()
    }

    /// The legal moves as [`legal_moves`](AnyGame::legal_moves) lists
    /// them, printed into one buffer: what an answer sends.
    pub fn legal(&self) -> LegalMoves {
        dispatch!(&self.position, g, _w => LegalMoves::of(g))
    }

    pub fn view(&self) -> View {
        dispatch!(&self.position, g, _w => g.view())
    }

    /// Parses, checks and plays one move; on error nothing changes.
    pub fn play(&mut self, notation: &str) -> Result<Played, MoveError> {
        dispatch!(&mut self.position, g, wrap => {
            let seat = g.to_move().ok_or(MoveError::GameOver)?;
            let parsed = notation.parse().map_err(MoveError::Notation)?;
            let legal = g.legalize(parsed).map_err(|e| MoveError::Illegal(wrap(e)))?;
            let effect = g.describe(legal);
            g.play_unchecked(legal);
            Ok(Played { seat, notation: legal.to_string(), effect })
        })
    }

    /// [`AnyGame::play`] without the record: the fast path of replay.
    fn play_quiet(&mut self, notation: &str) -> Result<(), MoveError> {
        dispatch!(&mut self.position, g, wrap => g.play_str(notation).map(drop).map_err(|e| MoveError::from_play(e, wrap)))
    }

    /// Plays one entry of a stored history, a move or a [`Concession`],
    /// and returns it as played: how a client checks a history entry by
    /// entry.
    pub fn play_recorded(&mut self, notation: &str) -> Result<Played, MoveError> {
        match notation.parse::<Concession>() {
            Ok(Concession(seat)) => match self.concede(seat)? {
                Conceded::Out(played) => Ok(played),
                Conceded::Over(_) => Err(MoveError::Concede(ConcedeError::GameOver)),
            },
            Err(_) => self.play(notation),
        }
    }

    /// A history's concession: the seat must be put out, not end the game.
    fn concede_recorded(&mut self, seat: Seat) -> Result<(), MoveError> {
        match self.concede(seat)? {
            Conceded::Out(_) => Ok(()),
            // A game that ends on a concession keeps none in its history.
            Conceded::Over(_) => Err(MoveError::Concede(ConcedeError::GameOver)),
        }
    }

    /// `seat` concedes (resigns, or runs out of time), whether or not it is
    /// its turn. In a game that goes on without it (four-player Focus, each
    /// for themselves) the seat is out, skipped like a blocked one, and the
    /// last one left wins; in every other game the concession ends it, and
    /// the position is unchanged.
    pub fn concede(&mut self, seat: Seat) -> Result<Conceded, ConcedeError> {
        let colour = *self
            .id
            .variant
            .seats
            .get(usize::from(seat))
            .ok_or(ConcedeError::NoSuchSeat(seat))?;
        if self.is_finished() {
            return Err(ConcedeError::GameOver);
        }
        if self.is_out(seat) {
            return Err(ConcedeError::AlreadyOut(colour));
        }
        if !dispatch!(&mut self.position, g, _w => g.play_on_without(seat)) {
            return Ok(Conceded::Over(self.winners_if_conceded(seat)));
        }
        self.conceded_at = Some(self.ply());
        Ok(Conceded::Out(Played {
            seat,
            notation: Concession(seat).to_string(),
            effect: Some(format!("{colour} is out")),
        }))
    }

    /// Whether `seat` is out of a game that goes on without it.
    pub fn is_out(&self, seat: Seat) -> bool {
        dispatch!(&self.position, g, _w => g.is_out(seat))
    }

    /// The ply of the last concession in the history, if any.
    pub fn conceded_at(&self) -> Option<u32> {
        self.conceded_at
    }

    /// Who wins when `seat` resigns or loses on time, in a game that a
    /// concession ends.
    pub fn winners_if_conceded(&self, seat: Seat) -> Vec<Seat> {
        let seats = self.id.variant.seats.len() as u8;
        dispatch!(&self.position, g, _w => g.winners_if_conceded(seat, seats)).to_vec()
    }

    /// See [`Rules::perft`].
    pub fn perft(&self, depth: u32) -> u64 {
        dispatch!(&self.position, g, _w => g.perft(depth))
    }

    /// Plays one uniformly random legal move; `false` when the game is over.
    pub fn play_random(&mut self, rng: &mut Rng) -> bool {
        dispatch!(&mut self.position, g, _w => match g.random_move(rng) {
            Some(m) if g.outcome().is_none() => {
                g.play_unchecked(m);
                true
            }
            _ => false,
        })
    }

    /// Plays up to `plies` uniformly random legal moves (fewer when the game
    /// ends first) and returns them as written: a random history that
    /// [`AnyGame::replay`] accepts, for tests and benchmarks.
    pub fn play_random_line(&mut self, rng: &mut Rng, plies: usize) -> Vec<String> {
        let mut line = Vec::new();
        while line.len() < plies {
            let legal = self.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len())].clone();
            self.play(&m).expect("a listed move is legal");
            line.push(m);
        }
        line
    }

    /// Checks a move without playing it, returning its canonical string.
    pub fn check(&self, notation: &str) -> Result<String, MoveError> {
        dispatch!(&self.position, g, wrap => {
            if g.to_move().is_none() {
                return Err(MoveError::GameOver);
            }
            let parsed = notation.parse().map_err(MoveError::Notation)?;
            g.legalize(parsed).map(|m| m.to_string()).map_err(|e| MoveError::Illegal(wrap(e)))
        })
    }
}

/// A position's legal moves in canonical notation, in a stable order,
/// printed into one buffer rather than a string each: a move's answer
/// carries them, so they are printed on every move that asks. Serialised
/// as a JSON array of strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LegalMoves {
    text: String,
    /// Where each move's notation ends in `text`.
    ends: Vec<usize>,
}

impl LegalMoves {
    fn of<G: Rules>(game: &G) -> LegalMoves {
        use super::MoveBuffer;
        let mut moves = G::MoveList::default();
        game.legal_moves(&mut moves);
        let moves = moves.as_slice();
        let mut legal = LegalMoves {
            text: String::with_capacity(moves.len() * 4),
            ends: Vec::with_capacity(moves.len()),
        };
        for m in moves {
            // Writing into a String cannot fail.
            let _ = m.write_notation(&mut legal.text);
            legal.ends.push(legal.text.len());
        }
        legal
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.text[start..end])
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

impl Serialize for LegalMoves {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

/// Why [`AnyGame::replay`] failed: the game is unknown, or a move is bad.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReplayOrUnknown {
    #[error(transparent)]
    Unknown(#[from] UnknownGame),
    #[error(transparent)]
    Move(#[from] ReplayError),
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.game.slug, self.variant.slug)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{EndReason, Outcome, Winners};

    /// The one buffer lists what the moves print, one string each, and
    /// serialises as the array of them; a finished game lists none.
    #[test]
    fn legal_moves_in_one_buffer_are_the_moves_printed() {
        for info in catalogue::GAMES {
            for variant in info.variants {
                let mut game = AnyGame::new(info.slug, Some(variant.slug)).expect("a catalogue game");
                let mut rng = Rng::new(7);
                loop {
                    let legal = game.legal();
                    let printed = dispatch!(&game.position, g, _w => crate::rules::testing::legal(g));
                    assert_eq!(
                        legal.iter().collect::<Vec<_>>(),
                        printed,
                        "{} {}",
                        info.slug,
                        variant.slug
                    );
                    assert_eq!(legal.len(), printed.len());
                    assert_eq!(serde_json::to_value(&legal).unwrap(), serde_json::json!(printed));
                    if game.is_finished() || game.ply() >= 12 {
                        assert_eq!(legal.is_empty(), game.is_finished());
                        break;
                    }
                    let pick = printed[rng.below(printed.len())].clone();
                    game.play(&pick).expect("a legal move");
                }
            }
        }
    }

    #[test]
    fn concession_notation_round_trips_and_is_nobody_s_move() {
        assert_eq!("concede:3".parse::<Concession>(), Ok(Concession(3)));
        assert_eq!(Concession(1).to_string(), "concede:1");
        for bad in ["concede:", "concede:12", "concede:x", "resign", "concede 1"] {
            assert!(bad.parse::<Concession>().is_err(), "{bad}");
        }
        for game in catalogue::GAMES {
            for variant in game.variants {
                let mut position = (variant.start)();
                let refused = position.play("concede:0");
                assert!(
                    matches!(refused, Err(MoveError::Notation(_))),
                    "{}: {refused:?}",
                    position.id()
                );
                assert!(matches!(position.check("concede:0"), Err(MoveError::Notation(_))));
            }
        }
    }

    #[test]
    fn a_concession_ends_every_game_but_the_four_player_free_for_all() {
        let mut two = AnyGame::new("focus", Some("standard")).unwrap();
        assert_eq!(two.concede(0), Ok(Conceded::Over(vec![1])));
        assert_eq!(two.ply(), 0, "the position is unchanged");
        let mut teams = AnyGame::new("focus", Some("four-teams")).unwrap();
        assert_eq!(teams.concede(1), Ok(Conceded::Over(vec![0, 2])));
        let mut four = AnyGame::new("focus", Some("four")).unwrap();
        let played = four.concede(2).unwrap();
        assert_eq!(
            played,
            Conceded::Out(Played {
                seat: 2,
                notation: "concede:2".into(),
                effect: Some("green is out".into()),
            })
        );
        assert_eq!(four.concede(2), Err(ConcedeError::AlreadyOut("green")));
        assert_eq!(four.concede(4), Err(ConcedeError::NoSuchSeat(4)));
        assert!(four.is_out(2) && !four.is_out(0));
        assert_eq!(four.conceded_at(), Some(1));
    }

    #[test]
    fn a_history_with_concessions_replays_to_the_live_position() {
        let mut live = AnyGame::new("focus", Some("four")).unwrap();
        let mut history = Vec::new();
        let mut rng = Rng::new(7);
        history.extend(live.play_random_line(&mut rng, 5));
        for seat in [3, 1] {
            let Conceded::Out(played) = live.concede(seat).unwrap() else {
                panic!("four-player Focus plays on");
            };
            history.push(played.notation);
            history.extend(live.play_random_line(&mut rng, 3));
        }
        let replayed = AnyGame::replay("focus", Some("four"), &history).unwrap();
        assert_eq!(replayed.view(), live.view());
        assert_eq!(replayed.to_move(), live.to_move());
        assert_eq!(replayed.legal_moves(), live.legal_moves());
        assert_eq!(replayed.ply(), live.ply());
        assert_eq!(replayed.conceded_at(), live.conceded_at());
        // Entry by entry, as a client checks a stored history.
        let mut checked = AnyGame::new("focus", Some("four")).unwrap();
        for entry in &history {
            assert_eq!(&checked.play_recorded(entry).unwrap().notation, entry);
        }
        // The last but one concedes: the one left wins.
        let left: Vec<Seat> = (0..4).filter(|&s| !live.is_out(s)).collect();
        assert!(matches!(live.concede(left[0]), Ok(Conceded::Out(_))));
        assert_eq!(
            live.outcome(),
            Some(Outcome {
                winners: Winners::seat(left[1]),
                reason: EndReason::LastPlayerStanding
            })
        );
        assert_eq!(live.concede(left[1]), Err(ConcedeError::GameOver));
    }

    #[test]
    fn a_concession_that_ends_a_game_never_replays() {
        let refused = AnyGame::replay("focus", Some("standard"), &["concede:1"]).unwrap_err();
        assert!(
            matches!(
                refused,
                ReplayOrUnknown::Move(ReplayError {
                    index: 0,
                    error: MoveError::Concede(_),
                    ..
                })
            ),
            "{refused:?}"
        );
    }
}
