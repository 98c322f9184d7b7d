//! The mail command grammar, pure: pbmserv's command names, one command per
//! line, each a [`Command`] with `FromStr` and `Display` (printing gives
//! the canonical line, which parses back to the same command).
//!
//! `help`, `games`, `board <game> [<ply>]`, `move <game> <move> [#<ply>]`,
//! `resign <game>`, `draw <game> yes|no`, `takeback <game> yes|no`,
//! `abort <game>`, `chat <game> <text>`, `history <game>`, `rules <game>`,
//! `challenge <player>[,<player>…] <game>[/<variant>] [days=<n>] [private]`,
//! `accept <game>`, `decline <game>`, `vacation <days>`, and pbmserv's
//! `queue <game> <their move> <my reply> …` for conditional moves (one line
//! of the tree per command; `queue <game>` shows the tree, `queue <game>
//! clear` drops it). Game ids are written `12` or `#12`.
//!
//! A line whose first word is no command's name is not an error: it is a
//! comment, which [`crate::mail::script`] turns into a move's message.

use std::fmt;
use std::str::FromStr;

/// A game's id as written in a mail: `12` or `#12`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GameId(pub i64);

impl FromStr for GameId {
    type Err = ();

    fn from_str(s: &str) -> Result<GameId, ()> {
        let digits = s.strip_prefix('#').unwrap_or(s);
        match digits.parse::<i64>() {
            Ok(id) if id > 0 && digits.bytes().all(|b| b.is_ascii_digit()) => Ok(GameId(id)),
            _ => Err(()),
        }
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Something done to, or read of, one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// `ply`: pbmserv's `#moveno` guard, the number of moves already
    /// played on the board the player answers.
    Move {
        notation: String,
        ply: Option<i64>,
    },
    Board {
        ply: Option<i64>,
    },
    Resign,
    Draw(bool),
    Takeback(bool),
    Abort,
    Chat(String),
    History,
    Rules,
    Accept,
    Decline,
    /// `queue`: a line of conditional moves to add to the player's tree
    /// (their move, my reply, …); empty: show the tree.
    Queue(Vec<String>),
    /// `queue <game> clear`.
    QueueClear,
}

/// A new game, as `challenge` asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub opponents: Vec<String>,
    pub game: String,
    pub variant: Option<String>,
    pub days: Option<u32>,
    pub private: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Games,
    Game(GameId, Action),
    Challenge(Challenge),
    Vacation(u32),
}

/// Why a line is not a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Its first word names no command: a comment.
    #[error("not a command")]
    NotACommand,
    /// A command written wrong: how to write it.
    #[error("write it as: {0}")]
    Usage(&'static str),
}

const GAME_VERBS: [&str; 12] = [
    "move", "board", "resign", "draw", "takeback", "abort", "chat", "history", "rules", "accept", "decline", "queue",
];

/// How each command is written, for errors and `help`.
pub const USAGE: [&str; 16] = [
    "help",
    "games",
    "board <game> [<ply>]",
    "move <game> <move> [#<ply>]",
    "resign <game>",
    "draw <game> yes|no",
    "takeback <game> yes|no",
    "abort <game>",
    "chat <game> <text>",
    "history <game>",
    "rules <game>",
    "challenge <player>[,<player>...] <game>[/<variant>] [days=<n>] [private]",
    "accept <game>",
    "decline <game>",
    "queue <game> [<their move> <your reply> ...|clear]",
    "vacation <days>",
];

fn usage(verb: &str) -> &'static str {
    USAGE
        .iter()
        .find(|u| u.split(' ').next() == Some(verb))
        .copied()
        .unwrap_or("help")
}

/// The first word (lower case) and the rest of the line, trimmed.
fn split_verb(line: &str) -> (String, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((verb, rest)) => (verb.to_ascii_lowercase(), rest.trim()),
        None => (line.to_ascii_lowercase(), ""),
    }
}

fn yes_no(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "yes" | "y" | "accept" => Some(true),
        "no" | "n" | "decline" => Some(false),
        _ => None,
    }
}

fn ply(word: &str) -> Option<i64> {
    word.strip_prefix('#')
        .unwrap_or(word)
        .parse()
        .ok()
        .filter(|p: &i64| *p >= 0)
}

impl Action {
    /// The action of `verb` with its arguments (the game already read).
    fn parse(verb: &str, args: &str) -> Result<Action, CommandError> {
        let bad = || CommandError::Usage(usage(verb));
        let words: Vec<&str> = args.split_whitespace().collect();
        let action = match (verb, words.as_slice()) {
            ("move", [.., last]) if last.starts_with('#') => {
                let ply = ply(last).ok_or_else(bad)?;
                let notation = words[..words.len() - 1].join(" ");
                if notation.is_empty() {
                    return Err(bad());
                }
                Action::Move {
                    notation,
                    ply: Some(ply),
                }
            }
            ("move", [_, ..]) => Action::Move {
                notation: words.join(" "),
                ply: None,
            },
            ("board", []) => Action::Board { ply: None },
            ("board", [at]) => Action::Board {
                ply: Some(ply(at).ok_or_else(bad)?),
            },
            ("draw", [answer]) => Action::Draw(yes_no(answer).ok_or_else(bad)?),
            ("takeback", [answer]) => Action::Takeback(yes_no(answer).ok_or_else(bad)?),
            ("chat", [_, ..]) => Action::Chat(args.to_owned()),
            ("resign", []) => Action::Resign,
            ("abort", []) => Action::Abort,
            ("history", []) => Action::History,
            ("rules", []) => Action::Rules,
            ("accept", []) => Action::Accept,
            ("decline", []) => Action::Decline,
            ("queue", [word]) if word.eq_ignore_ascii_case("clear") => Action::QueueClear,
            ("queue", moves) => Action::Queue(moves.iter().map(|m| (*m).to_owned()).collect()),
            _ => return Err(bad()),
        };
        Ok(action)
    }

    /// A line of a reply to a board of one game: any game command without
    /// the game (`resign`, `draw yes`, `move e4`), or else the move itself
    /// (`e4`). `None` for a command of another kind (`games`).
    pub fn for_game(line: &str) -> Option<Result<Action, CommandError>> {
        let (verb, args) = split_verb(line);
        if GAME_VERBS.contains(&verb.as_str()) {
            return Some(Action::parse(&verb, args));
        }
        if matches!(verb.as_str(), "help" | "games" | "challenge" | "vacation") {
            return None;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        Some(Action::parse("move", &words.join(" ")))
    }
}

impl fmt::Display for Action {
    /// The action's verb and arguments, game left out: what a reply to a
    /// board says.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = |yes: bool| if yes { "yes" } else { "no" };
        match self {
            Action::Move { notation, ply: None } => write!(f, "move {notation}"),
            Action::Move {
                notation,
                ply: Some(ply),
            } => write!(f, "move {notation} #{ply}"),
            Action::Board { ply: None } => f.write_str("board"),
            Action::Board { ply: Some(ply) } => write!(f, "board {ply}"),
            Action::Resign => f.write_str("resign"),
            Action::Draw(yes) => write!(f, "draw {}", word(*yes)),
            Action::Takeback(yes) => write!(f, "takeback {}", word(*yes)),
            Action::Abort => f.write_str("abort"),
            Action::Chat(text) => write!(f, "chat {text}"),
            Action::History => f.write_str("history"),
            Action::Rules => f.write_str("rules"),
            Action::Accept => f.write_str("accept"),
            Action::Decline => f.write_str("decline"),
            Action::Queue(moves) if moves.is_empty() => f.write_str("queue"),
            Action::Queue(moves) => write!(f, "queue {}", moves.join(" ")),
            Action::QueueClear => f.write_str("queue clear"),
        }
    }
}

impl FromStr for Challenge {
    type Err = CommandError;

    fn from_str(args: &str) -> Result<Challenge, CommandError> {
        let bad = CommandError::Usage(usage("challenge"));
        let mut words = args.split_whitespace();
        let opponents: Vec<String> = words
            .next()
            .ok_or(bad)?
            .split(',')
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        let spec = words.next().ok_or(bad)?;
        let (game, variant) = match spec.split_once('/') {
            Some((game, variant)) => (game, Some(variant.to_ascii_lowercase())),
            None => (spec, None),
        };
        let mut challenge = Challenge {
            opponents,
            game: game.to_ascii_lowercase(),
            variant,
            days: None,
            private: false,
        };
        for option in words {
            match option.to_ascii_lowercase().split_once('=') {
                Some(("days", n)) => challenge.days = Some(n.parse().map_err(|_| bad)?),
                None if option.eq_ignore_ascii_case("private") => challenge.private = true,
                None if option.eq_ignore_ascii_case("public") => challenge.private = false,
                _ => return Err(bad),
            }
        }
        if challenge.opponents.is_empty() || challenge.game.is_empty() {
            return Err(bad);
        }
        Ok(challenge)
    }
}

impl fmt::Display for Challenge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "challenge {} {}", self.opponents.join(","), self.game)?;
        if let Some(variant) = &self.variant {
            write!(f, "/{variant}")?;
        }
        if let Some(days) = self.days {
            write!(f, " days={days}")?;
        }
        if self.private {
            f.write_str(" private")?;
        }
        Ok(())
    }
}

impl FromStr for Command {
    type Err = CommandError;

    fn from_str(line: &str) -> Result<Command, CommandError> {
        let (verb, args) = split_verb(line);
        let bad = || CommandError::Usage(usage(&verb));
        match verb.as_str() {
            "help" => Ok(Command::Help),
            "games" if args.is_empty() => Ok(Command::Games),
            "vacation" => match args.parse::<u32>() {
                Ok(days) if days > 0 => Ok(Command::Vacation(days)),
                _ => Err(bad()),
            },
            "challenge" => Ok(Command::Challenge(args.parse()?)),
            verb if GAME_VERBS.contains(&verb) => {
                let (game, rest) = match args.split_once(char::is_whitespace) {
                    Some((game, rest)) => (game, rest.trim()),
                    None => (args, ""),
                };
                let game = game.parse::<GameId>().map_err(|()| bad())?;
                Ok(Command::Game(game, Action::parse(verb, rest)?))
            }
            "games" => Err(bad()),
            _ => Err(CommandError::NotACommand),
        }
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Help => f.write_str("help"),
            Command::Games => f.write_str("games"),
            Command::Game(game, action) => {
                let action = action.to_string();
                match action.split_once(' ') {
                    Some((verb, rest)) => write!(f, "{verb} {game} {rest}"),
                    None => write!(f, "{action} {game}"),
                }
            }
            Command::Challenge(challenge) => challenge.fmt(f),
            Command::Vacation(days) => write!(f, "vacation {days}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(line: &str) -> Command {
        line.parse().unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    #[test]
    fn every_command_parses_and_prints_back() {
        for line in [
            "help",
            "games",
            "board #12",
            "board #12 4",
            "move #12 e4",
            "move #12 c3-d4 #7",
            "resign #3",
            "draw #3 yes",
            "takeback #3 no",
            "abort #3",
            "chat #3 Good game, thanks!",
            "history #3",
            "rules #3",
            "challenge bob,carol gravity/standard days=3 private",
            "challenge bob gravity",
            "accept #9",
            "decline #9",
            "queue #9 d4 h8 c3 g7",
            "queue #9",
            "queue #9 clear",
            "vacation 5",
        ] {
            let command = parsed(line);
            assert_eq!(command.to_string(), line);
            assert_eq!(parsed(&command.to_string()), command);
        }
    }

    #[test]
    fn ids_with_or_without_hash_and_any_case() {
        assert_eq!(
            parsed("MOVE 12 e4 #5"),
            Command::Game(
                GameId(12),
                Action::Move {
                    notation: "e4".into(),
                    ply: Some(5)
                }
            )
        );
        assert_eq!(parsed("Draw #12 Y"), Command::Game(GameId(12), Action::Draw(true)));
        assert_eq!(
            parsed("challenge Bob gravity days=2"),
            Command::Challenge(Challenge {
                opponents: vec!["Bob".into()],
                game: "gravity".into(),
                variant: None,
                days: Some(2),
                private: false,
            })
        );
    }

    #[test]
    fn mistakes_say_how_to_write_the_command_and_comments_are_not_commands() {
        let mistakes = [
            ("move", "move <game> <move> [#<ply>]"),
            ("move x12 e4", "move <game> <move> [#<ply>]"),
            ("move 12 #5", "move <game> <move> [#<ply>]"),
            ("move 12 e4 #-1", "move <game> <move> [#<ply>]"),
            ("draw 12 perhaps", "draw <game> yes|no"),
            ("resign 12 now", "resign <game>"),
            ("vacation forever", "vacation <days>"),
            ("vacation 0", "vacation <days>"),
            ("games 12", "games"),
            ("move 0 e4", "move <game> <move> [#<ply>]"),
        ];
        for (line, usage) in mistakes {
            assert_eq!(line.parse::<Command>(), Err(CommandError::Usage(usage)), "{line}");
        }
        assert!(matches!("challenge".parse::<Command>(), Err(CommandError::Usage(_))));
        assert!(matches!(
            "challenge bob gravity days=x".parse::<Command>(),
            Err(CommandError::Usage(_))
        ));
        assert_eq!("Nice move!".parse::<Command>(), Err(CommandError::NotACommand));
        assert_eq!("".parse::<Command>(), Err(CommandError::NotACommand));
    }

    #[test]
    fn a_reply_line_is_a_game_command_or_the_move_itself() {
        let action = |line: &str| Action::for_game(line).map(|a| a.unwrap());
        assert_eq!(
            action("e4"),
            Some(Action::Move {
                notation: "e4".into(),
                ply: None
            })
        );
        assert_eq!(
            action("  move  c3-d4 "),
            Some(Action::Move {
                notation: "c3-d4".into(),
                ply: None
            })
        );
        assert_eq!(action("resign"), Some(Action::Resign));
        assert_eq!(action("draw yes"), Some(Action::Draw(true)));
        assert_eq!(action("chat see you"), Some(Action::Chat("see you".into())));
        assert_eq!(action("board 3"), Some(Action::Board { ply: Some(3) }));
        assert_eq!(action("games"), None);
        assert!(Action::for_game("draw maybe").unwrap().is_err());
    }
}
