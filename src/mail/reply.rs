//! The one reply to an accepted mail, pure: each line run, echoed with its
//! result (the board and whose turn after a change; for a refusal the
//! reason, the rules' own for an illegal move), then what was not run, and
//! how to go on. Plain text, for any mail client.

use super::execute::Answer;
use super::incoming::Incoming;
use super::script::Script;

/// A reply ready to store and send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Composed {
    pub subject: String,
    pub text: String,
    pub reply_to: Option<String>,
}

fn subject(mail: &Incoming) -> String {
    let original: String = mail.subject.chars().take(200).collect();
    let original = original.trim();
    if original.is_empty() {
        "Re: your commands".to_owned()
    } else if original.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("re:")) {
        original.to_owned()
    } else {
        format!("Re: {original}")
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The reply to `mail`; `game` when it came to a reply token of that game.
pub fn compose(
    mail: &Incoming,
    script: &Script,
    answers: &[Answer],
    reply_to: Option<String>,
    game: Option<i64>,
) -> Composed {
    let mut text = String::new();
    if script.steps.is_empty() {
        text.push_str("Your mail had no command in it: nothing was done. Send \"help\" for the commands.\n");
    }
    for (step, answer) in script.steps.iter().zip(answers) {
        text.push_str(&format!("> {}\n", step.line));
        // What a reply's short line (`e4`) was taken for.
        if let Ok(command) = &step.command {
            if step.line.parse::<super::commands::Command>().as_ref() != Ok(command) {
                text.push_str(&format!("({command})\n"));
            }
        }
        text.push_str(&answer.text);
        text.push_str("\n\n");
    }
    let refused = answers.iter().filter(|a| !a.ok).count();
    if refused > 0 && answers.len() > 1 {
        text.push_str(&format!(
            "{} refused and changed nothing; each line is done on its own, so the lines before \
             a refused one stand.\n",
            plural(refused, "line was", "lines were")
        ));
    }
    if script.unread > 0 {
        text.push_str(&format!(
            "Only the first {} commands of a mail are run: {} not run.\n",
            super::script::MAX_COMMANDS,
            plural(script.unread, "line was", "lines were")
        ));
    }
    if script.ignored > 0 {
        text.push_str(&format!(
            "{} not a command and went with no move: ignored.\n",
            plural(script.ignored, "line was", "lines were")
        ));
    }
    text.push_str("\n-- \n");
    text.push_str(&match game {
        Some(game) => format!(
            "Reply to this mail to go on in game #{game}: the first line of your reply is your move \
             or a command for this game.\n"
        ),
        None => "Reply to this mail with more commands, one per line; \"help\" lists them.\n".to_owned(),
    });
    Composed {
        subject: subject(mail),
        text,
        reply_to,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::script;

    fn answer(ok: bool, text: &str) -> Answer {
        Answer {
            ok,
            text: text.into(),
            game: None,
        }
    }

    #[test]
    fn each_line_is_echoed_with_its_result_and_refusals_are_explained() {
        let mail = Incoming {
            subject: "My moves".into(),
            ..Incoming::default()
        };
        let script = script::commands("", "move #3 e4\nmove 4 zz\n");
        let answers = [
            answer(true, "You played e4."),
            answer(false, "Refused: no such square."),
        ];
        let reply = compose(&mail, &script, &answers, Some("alice.k@x".into()), None);
        assert_eq!(reply.subject, "Re: My moves");
        assert!(
            reply
                .text
                .starts_with("> move #3 e4\nYou played e4.\n\n> move 4 zz\nRefused"),
            "{}",
            reply.text
        );
        assert!(
            reply.text.contains("1 line was refused and changed nothing"),
            "{}",
            reply.text
        );
        assert!(
            reply
                .text
                .ends_with("-- \nReply to this mail with more commands, one per line; \"help\" lists them.\n"),
            "{}",
            reply.text
        );
        assert_eq!(reply.reply_to.as_deref(), Some("alice.k@x"));
    }

    #[test]
    fn an_empty_mail_and_a_flood_get_one_line_each() {
        let mail = Incoming::default();
        let reply = compose(&mail, &Script::default(), &[], None, Some(3));
        assert!(
            reply.text.starts_with("Your mail had no command in it"),
            "{}",
            reply.text
        );
        assert_eq!(reply.subject, "Re: your commands");
        assert!(
            reply.text.contains("to go on in game #3: the first line"),
            "{}",
            reply.text
        );
        let flood = script::commands("", &"help\n".repeat(60));
        let answers = vec![answer(true, "..."); flood.steps.len()];
        let reply = compose(&mail, &flood, &answers, None, None);
        assert!(
            reply
                .text
                .contains("Only the first 50 commands of a mail are run: 10 lines were not run."),
            "{}",
            reply.text
        );
    }
}
