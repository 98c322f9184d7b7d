//! Accounts and sessions: the name, password and email newtypes (parsed
//! where input enters), and the service's doors for registering, signing in
//! and out, reading profiles and changing an account.
//!
//! Promises: names are unique regardless of case; a password is checked
//! only against its argon2 hash; a new password ends every other session;
//! an account change (email, password, notification settings) is written in
//! one transaction.

use std::fmt;
use std::str::FromStr;

use super::passwords::{hash_password, verify_password};
use super::settings::{self, SettingsChange};
use super::tokens::{new_token, token_hash};
use super::{Me, PlayerError, Players, Result};
use crate::games::now;
use crate::store::{NewPassword, NewPlayer, NewToken, Player, PlayerChange, StoreError};

pub const MAX_NAME_LEN: usize = 32;
pub const MIN_PASSWORD_LEN: usize = 8;
pub const MAX_PASSWORD_LEN: usize = 128;
pub const MAX_EMAIL_LEN: usize = 254;

/// Longer names are not looked up: no player has one.
const MAX_LOOKUP_LEN: usize = 64;

/// Names are unique regardless of case.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

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

/// A sign-up as the client sent it.
#[derive(Debug)]
pub struct NewAccount {
    pub name: String,
    pub password: String,
    pub email: Option<String>,
}

/// A change of `/players/me` as the client sent it; `None` leaves a field
/// alone.
#[derive(Debug, Default)]
pub struct AccountChange {
    /// `Some(None)` removes the email.
    pub email: Option<Option<String>>,
    /// Needs `current_password`.
    pub password: Option<String>,
    pub current_password: Option<String>,
    pub settings: SettingsChange,
}

/// An open session: the player and their token as stored (its
/// [`token_hash`]).
#[derive(Clone, Debug)]
pub struct Session {
    pub player: Player,
    pub token_hash: String,
}

/// A bearer token, handed out once.
pub struct Token(pub String);

/// A password longer than this cannot be right: refused before hashing.
fn too_long_to_check(password: &str) -> bool {
    password.len() > 4 * MAX_PASSWORD_LEN
}

impl Players {
    /// Registers a player and opens their first session.
    pub async fn register(&self, account: NewAccount) -> Result<(Player, Token)> {
        let name: PlayerName = account.name.parse()?;
        let password: Password = account.password.parse()?;
        let email = account.email.as_deref().map(str::parse::<Email>).transpose()?;
        let hash = hash_password(password).await?;
        let email = email.map(Email::into_inner);
        let player = self
            .store
            .create_player(NewPlayer {
                name: name.as_str().to_owned(),
                name_key: name.key(),
                email,
                password_hash: hash,
                now: now(),
            })
            .await
            .map_err(|e| match e {
                StoreError::Unique => PlayerError::NameTaken(name.to_string()),
                other => other.into(),
            })?;
        let token = self.open_session(&player).await?;
        Ok((player, token))
    }

    /// Opens a session for whoever knows the name and password.
    pub async fn sign_in(&self, name: &str, password: String) -> Result<Token> {
        if name.len() > MAX_LOOKUP_LEN || too_long_to_check(&password) {
            return Err(PlayerError::BadCredentials);
        }
        let credentials = self
            .store
            .credentials(&name_key(name))
            .await?
            .ok_or(PlayerError::BadCredentials)?;
        if !verify_password(password, credentials.password_hash).await? {
            return Err(PlayerError::BadCredentials);
        }
        self.open_session(&credentials.player).await
    }

    async fn open_session(&self, player: &Player) -> Result<Token> {
        let token = new_token();
        self.store
            .insert_token(NewToken {
                token_hash: token_hash(&token),
                player_id: player.id,
                now: now(),
            })
            .await?;
        Ok(Token(token))
    }

    /// The session a bearer token opens, if any.
    pub async fn session(&self, token: &str) -> Result<Option<Session>> {
        let token_hash = token_hash(token);
        let player = self.tokens.player(self.store.as_ref(), &token_hash).await?;
        Ok(player.map(|player| Session { player, token_hash }))
    }

    /// Ends one session: its token stops working.
    pub async fn sign_out(&self, session: &Session) -> Result<()> {
        self.store.delete_token(&session.token_hash).await?;
        self.tokens.forget_token(&session.token_hash);
        Ok(())
    }

    /// Ends every session of the player.
    pub async fn sign_out_everywhere(&self, player: &Player) -> Result<()> {
        self.store.delete_tokens(player.id).await?;
        self.tokens.forget_player(player.id);
        Ok(())
    }

    /// The player of that name (regardless of case), if any.
    pub async fn find(&self, name: &str) -> Result<Option<Player>> {
        Ok(self.store.player_by_name(&name_key(name)).await?)
    }

    /// Changes the email, the password (ending every other session) and the
    /// notification settings, all checked before anything is written and
    /// then written at once.
    pub async fn update(&self, session: &Session, change: AccountChange) -> Result<Me> {
        let settings = settings::parse(change.settings, self.config.webhook_allow_private)?;
        let email = match change.email {
            Some(Some(email)) => Some(Some(email.parse::<Email>()?.into_inner())),
            other => other,
        };
        let password_hash = match change.password {
            Some(password) => Some(
                self.new_password_hash(&session.player, password, change.current_password)
                    .await?,
            ),
            None => None,
        };
        let new_secret = settings.webhook.as_ref().and_then(|(_, secret)| secret.clone());
        let player = self
            .store
            .update_player(PlayerChange {
                id: session.player.id,
                email,
                password: password_hash.map(|hash| NewPassword {
                    hash,
                    kept_token: session.token_hash.clone(),
                }),
                settings,
            })
            .await?
            .ok_or(PlayerError::Vanished)?;
        self.tokens.forget_player(player.id);
        self.me_with(&player, new_secret).await
    }

    /// The hash of a new password, once the current one is confirmed.
    async fn new_password_hash(&self, player: &Player, password: String, current: Option<String>) -> Result<String> {
        let password: Password = password.parse()?;
        let current = current.ok_or(PlayerError::CurrentPasswordMissing)?;
        let credentials = self
            .store
            .credentials(&name_key(&player.name))
            .await?
            .ok_or(PlayerError::NoSuchPlayer)?;
        if too_long_to_check(&current) || !verify_password(current, credentials.password_hash).await? {
            return Err(PlayerError::WrongPassword);
        }
        Ok(hash_password(password).await?)
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
