//! An account's fields as they enter: a player's name, a password and an
//! email address, parsed once at the door into types that cannot hold a bad
//! value (and a password's `Debug` never shows it).

use std::fmt;
use std::str::FromStr;

pub const MAX_NAME_LEN: usize = 32;
pub const MIN_PASSWORD_LEN: usize = 8;
pub const MAX_PASSWORD_LEN: usize = 128;
pub const MAX_EMAIL_LEN: usize = 254;

pub use crate::domain::name_key;

/// A field of an account that is not acceptable as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadInput {
    #[error(
        "a name is 1 to {} letters, digits, '_' or '-', starting with a letter or digit",
        MAX_NAME_LEN
    )]
    Name,
    #[error("a password has {} to {} characters", MIN_PASSWORD_LEN, MAX_PASSWORD_LEN)]
    Password,
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

impl Password {
    pub fn into_inner(self) -> String {
        self.0
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
    fn refusals_say_what_is_expected() {
        assert_eq!(
            BadInput::Name.to_string(),
            "a name is 1 to 32 letters, digits, '_' or '-', starting with a letter or digit"
        );
        assert_eq!(BadInput::Password.to_string(), "a password has 8 to 128 characters");
    }
}
