//! A mail's text as the steps to run, pure.
//!
//! What counts is the text a person wrote: reading stops at a signature
//! (`-- `) or a forwarded original, and quoted lines (`>`), an "… wrote:"
//! attribution and empty lines are skipped. Mail to a command address runs
//! every command line (the subject too, when it is one); lines that are no
//! command are comments and become the message of the move they follow (or,
//! before any move, of the first move), as pbmserv's comments did. A reply
//! to a board runs its first line for that game, at the ply of the board,
//! and the rest is the move's message. At most [`MAX_COMMANDS`] commands
//! run; the rest are counted, not run.

use super::commands::{Action, Command, CommandError, GameId};
use crate::games::MAX_MESSAGE_LEN;

/// Commands one mail may run.
pub const MAX_COMMANDS: usize = 50;
/// Longest line read as a command, in characters.
pub const MAX_LINE: usize = 1000;

/// Why a line is not run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error(transparent)]
    Command(#[from] CommandError),
    #[error("the line is longer than {MAX_LINE} characters")]
    TooLong,
}

/// One line of the mail and what becomes of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The line as written.
    pub line: String,
    pub command: Result<Command, LineError>,
    /// For a move: the comment lines that go with it.
    pub message: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Script {
    pub steps: Vec<Step>,
    /// Commands past [`MAX_COMMANDS`], not run.
    pub unread: usize,
    /// Comment lines with no move to go with.
    pub ignored: usize,
}

/// The lines a person wrote, in order.
fn written(body: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    for line in body.lines() {
        let line = line.trim_end();
        if line == "--" || line == "-- " || line.starts_with("-----Original Message") || line.starts_with("________") {
            break;
        }
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('>') || trimmed.ends_with("wrote:") {
            continue;
        }
        lines.push(trimmed);
    }
    lines
}

fn step(line: &str, command: Result<Command, LineError>) -> Step {
    Step {
        line: line.chars().take(MAX_LINE).collect(),
        command,
        message: None,
    }
}

fn parse_line(line: &str) -> Result<Command, LineError> {
    if line.chars().count() > MAX_LINE {
        return Err(LineError::TooLong);
    }
    Ok(line.parse()?)
}

fn message(lines: &[&str]) -> Option<String> {
    let text = lines.join("\n");
    (!text.is_empty()).then(|| text.chars().take(MAX_MESSAGE_LEN).collect())
}

fn is_move(step: &Step) -> bool {
    matches!(step.command, Ok(Command::Game(_, Action::Move { .. })))
}

/// The steps of a mail to a command address.
pub fn commands(subject: &str, body: &str) -> Script {
    let mut script = Script::default();
    let mut subject = subject.trim();
    while let Some(rest) = ["re:", "fwd:", "fw:"].iter().find_map(|p| {
        subject
            .get(..p.len())
            .filter(|s| s.eq_ignore_ascii_case(p))
            .map(|_| subject[p.len()..].trim())
    }) {
        subject = rest;
    }
    if let Ok(command) = parse_line(subject) {
        script.steps.push(step(subject, Ok(command)));
    }
    // Comment lines, each after the step it follows (None: before any).
    let mut comments: Vec<(Option<usize>, &str)> = Vec::new();
    for line in written(body) {
        match parse_line(line) {
            Err(LineError::Command(CommandError::NotACommand)) => {
                comments.push((script.steps.len().checked_sub(1), line));
            }
            _ if script.steps.len() >= MAX_COMMANDS => script.unread += 1,
            command => script.steps.push(step(line, command)),
        }
    }
    let first_move = script.steps.iter().position(is_move);
    let mut attached: Vec<Vec<&str>> = vec![Vec::new(); script.steps.len()];
    for (after, line) in comments {
        // The move a comment follows, or the first move for one before it.
        let target = after
            .and_then(|i| (0..=i).rev().find(|&j| is_move(&script.steps[j])))
            .or(first_move);
        match target {
            Some(i) => attached[i].push(line),
            None => script.ignored += 1,
        }
    }
    for (step, lines) in script.steps.iter_mut().zip(attached) {
        step.message = message(&lines);
    }
    script
}

/// The steps of a reply to a board of `game` at `ply`.
pub fn reply(game: GameId, ply: i64, body: &str) -> Script {
    let lines = written(body);
    let Some((first, rest)) = lines.split_first() else {
        return Script::default();
    };
    if first.chars().count() > MAX_LINE {
        return Script {
            steps: vec![step(first, Err(LineError::TooLong))],
            ..Script::default()
        };
    }
    let command = match Action::for_game(first) {
        Some(Ok(Action::Move { notation, ply: guard })) => Ok(Command::Game(
            game,
            Action::Move {
                notation,
                ply: Some(guard.unwrap_or(ply)),
            },
        )),
        Some(Ok(action)) => Ok(Command::Game(game, action)),
        Some(Err(error)) => Err(error.into()),
        None => parse_line(first),
    };
    let mut first = step(first, command);
    let mut script = Script::default();
    if is_move(&first) {
        first.message = message(rest);
    } else {
        script.ignored = rest.len();
    }
    script.steps.push(first);
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(step: &Step) -> &Command {
        step.command.as_ref().unwrap()
    }

    #[test]
    fn comments_go_with_the_move_they_follow() {
        let body = "Hello Bob,\r\nmove 12 e4\r\nA classical start.\r\n\r\nboard 7\r\nmove 7 d1 #3\r\n\
                    Your turn.\r\n-- \r\nAlice\r\nmove 12 e5\r\n";
        let script = commands("Re: my moves", body);
        assert_eq!(script.steps.len(), 3, "{script:?}");
        assert_eq!(run(&script.steps[0]).to_string(), "move #12 e4");
        assert_eq!(
            script.steps[0].message.as_deref(),
            Some("Hello Bob,\nA classical start.")
        );
        assert_eq!(script.steps[1].message, None);
        assert_eq!(script.steps[2].message.as_deref(), Some("Your turn."));
        assert_eq!(script.ignored, 0);
    }

    #[test]
    fn the_subject_counts_when_it_is_a_command() {
        let script = commands("Re: games", "Thanks!\n> move 3 e4\nOn Monday, Tavoliere wrote:\n");
        assert_eq!(script.steps.len(), 1);
        assert_eq!(run(&script.steps[0]), &Command::Games);
        assert_eq!(script.ignored, 1, "the comment has no move");
    }

    #[test]
    fn a_thousand_commands_run_fifty_and_long_lines_are_refused() {
        let body = "board 1\n".repeat(1000);
        let script = commands("", &body);
        assert_eq!(script.steps.len(), MAX_COMMANDS);
        assert_eq!(script.unread, 1000 - MAX_COMMANDS);
        let long = format!("move 1 {}", "x".repeat(2000));
        let script = commands("", &long);
        assert_eq!(script.steps[0].command, Err(LineError::TooLong));
        assert!(script.steps[0].line.chars().count() <= MAX_LINE);
    }

    #[test]
    fn a_reply_plays_its_first_line_at_the_boards_ply() {
        let body = "\n  e4  \nWell played.\n\nOn Tue, Tavoliere wrote:\n> Your turn\n> board\n";
        let script = reply(GameId(5), 3, body);
        assert_eq!(script.steps.len(), 1);
        assert_eq!(run(&script.steps[0]).to_string(), "move #5 e4 #3");
        assert_eq!(script.steps[0].message.as_deref(), Some("Well played."));
        let script = reply(GameId(5), 3, "draw yes\nplease");
        assert_eq!(run(&script.steps[0]).to_string(), "draw #5 yes");
        assert_eq!(script.ignored, 1);
        assert_eq!(run(&reply(GameId(5), 3, "games").steps[0]), &Command::Games);
        assert!(reply(GameId(5), 3, "> only quotes\n").steps.is_empty());
        assert!(reply(GameId(5), 3, "takeback later").steps[0].command.is_err());
    }
}
