//! An account's fields as they enter: a player's name, a password and an
//! email address, parsed once at the door into types that cannot hold a bad
//! value (and a password's `Debug` never shows it); and the name's rule as
//! the OpenAPI document declares it ([`player_name`]).

use std::fmt;
use std::str::FromStr;

use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use utoipa::openapi::Object;

pub const MAX_NAME_LEN: usize = 32;

/// [`PlayerName`]'s rule as a regular expression, for the OpenAPI document.
pub const NAME_PATTERN: &str = "^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$";
pub const MIN_PASSWORD_LEN: usize = 8;
pub const MAX_PASSWORD_LEN: usize = 128;
pub const MAX_EMAIL_LEN: usize = 254;

pub use crate::domain::name_key;

/// The schema of a player's name (`PlayerName`'s rule).
pub fn player_name() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::new(Type::String))
        .description(Some(
            "1 to 32 letters, digits, `_` or `-`, starting with a letter or digit",
        ))
        .pattern(Some(NAME_PATTERN))
        .build()
}

/// A field of an account that is not acceptable as given.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum BadInput {
    #[error(
        "a name is 1 to {} letters, digits, '_' or '-', starting with a letter or digit",
        MAX_NAME_LEN
    )]
    Name,
    #[error("a password has {} to {} characters", MIN_PASSWORD_LEN, MAX_PASSWORD_LEN)]
    Password,
    /// Long enough, but among the first guesses of anyone trying passwords.
    #[error("this password is too easy to guess{}", .0.map(|w| format!(": {w}")).unwrap_or_default())]
    WeakPassword(Option<zxcvbn::feedback::Warning>),
    #[error("not an email address")]
    Email,
}

/// A valid player name: 1 to 32 letters, digits, `_` or `-`, starting with a
/// letter or digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerName(String);

impl FromStr for PlayerName {
    type Err = BadInput;

    fn from_str(name: &str) -> Result<PlayerName, BadInput> {
        let ok = !name.is_empty()
            && name.chars().count() <= MAX_NAME_LEN
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            && name.starts_with(|c: char| c.is_ascii_alphanumeric());
        ok.then(|| PlayerName(name.to_owned())).ok_or(BadInput::Name)
    }
}

impl fmt::Display for PlayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PlayerName {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// What makes names unique: the name regardless of case.
    pub fn key(&self) -> String {
        name_key(&self.0)
    }
}

/// A password of acceptable length; never printed.
pub struct Password(String);

impl FromStr for Password {
    type Err = BadInput;

    fn from_str(password: &str) -> Result<Password, BadInput> {
        let n = password.chars().count();
        (MIN_PASSWORD_LEN..=MAX_PASSWORD_LEN)
            .contains(&n)
            .then(|| Password(password.to_owned()))
            .ok_or(BadInput::Password)
    }
}

/// The least zxcvbn score a new password needs: "safely unguessable"
/// (10^8 guesses or more), which an online attacker, throttled at sign-in,
/// does not reach.
const MIN_SCORE: zxcvbn::Score = zxcvbn::Score::Three;

impl Password {
    pub fn into_inner(self) -> String {
        self.0
    }

    /// The password, if it is hard enough to guess for an account named
    /// `name` (a password made of the name is easy). Refused with zxcvbn's
    /// warning as the reason, when it has one.
    pub fn strong_for(self, name: &str) -> Result<Password, BadInput> {
        let estimate = zxcvbn::zxcvbn(&self.0, &[name]);
        if estimate.score() >= MIN_SCORE {
            Ok(self)
        } else {
            let warning = estimate.feedback().and_then(zxcvbn::feedback::Feedback::warning);
            Err(BadInput::WeakPassword(warning))
        }
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(***)")
    }
}

/// Something shaped like an email address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl FromStr for Email {
    type Err = BadInput;

    fn from_str(email: &str) -> Result<Email, BadInput> {
        let ok = email.len() <= MAX_EMAIL_LEN
            && email
                .split_once('@')
                .is_some_and(|(user, host)| !user.is_empty() && !host.is_empty())
            && !email.chars().any(char::is_whitespace);
        ok.then(|| Email(email.to_owned())).ok_or(BadInput::Email)
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Email {
    pub fn into_inner(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> Result<PlayerName, BadInput> {
        s.parse()
    }

    #[test]
    fn names() {
        assert!(name("alice").is_ok());
        assert_eq!(name("Bob_2-x").map(|n| n.key()).ok().as_deref(), Some("bob_2-x"));
        assert_eq!(name("Bob_2-x").map(|n| n.to_string()).ok().as_deref(), Some("Bob_2-x"));
        assert_eq!(name(""), Err(BadInput::Name));
        assert!(name("_x").is_err());
        assert!(name("a b").is_err());
        assert!(name(&"a".repeat(33)).is_err());
        assert!(name("è").is_err());
    }

    #[test]
    fn passwords_and_emails() {
        assert!("correct horse".parse::<Password>().is_ok());
        assert!(matches!("short".parse::<Password>(), Err(BadInput::Password)));
        assert_eq!(
            format!("{:?}", "correct horse".parse::<Password>().ok()),
            "Some(Password(***))"
        );
        assert_eq!(
            "a@b".parse::<Email>().map(|e| e.to_string()).ok().as_deref(),
            Some("a@b")
        );
        assert_eq!("a b@c".parse::<Email>(), Err(BadInput::Email));
        assert!("@c".parse::<Email>().is_err());
    }

    #[test]
    fn guessable_passwords_are_weak() {
        let strength = |p: &str, name: &str| p.parse::<Password>().and_then(|p| p.strong_for(name)).map(|_| ());
        for weak in [
            "password",
            "12345678",
            "        ",
            "\0\0\0\0\0\0\0\0",
            "alice123",
            "qwertyuiop",
            "aliceALICE",
        ] {
            assert!(
                matches!(strength(weak, "alice"), Err(BadInput::WeakPassword(_))),
                "{weak:?} passed"
            );
        }
        for strong in [
            "correct horse",
            "battery staple",
            "loadtest password",
            "correct horse battery",
        ] {
            assert_eq!(strength(strong, "alice"), Ok(()), "{strong:?}");
        }
        let refused = strength("password", "alice").unwrap_err().to_string();
        assert!(refused.starts_with("this password is too easy to guess: "), "{refused}");
    }

    #[test]
    fn refusals_say_what_is_expected() {
        assert_eq!(
            BadInput::Name.to_string(),
            "a name is 1 to 32 letters, digits, '_' or '-', starting with a letter or digit"
        );
        assert_eq!(BadInput::Password.to_string(), "a password has 8 to 128 characters");
    }
}
