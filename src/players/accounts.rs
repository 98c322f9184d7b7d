//! Accounts and sessions: the service's doors for registering, signing in
//! and out, reading profiles and changing an account (its fields parse in
//! [`super::input`]).
//!
//! Promises: names are unique regardless of case; a new password is hard
//! to guess; a password is checked only against its argon2 hash, and an
//! unknown name costs the same hash (against a dummy), so timing does not
//! tell which names exist; sign-ins and registrations pass the [`Guard`]
//! first (back-off, per-address rates); a new password or email needs the
//! current password, and a new password ends every other session; an
//! account change (email, password, notification settings, the bot flag)
//! is written in one transaction; the bot flag changes only before the
//! player's first game (a bot account's games stay a bot's).

use std::time::Instant;

use serde::Deserialize;
use utoipa::ToSchema;

use super::input::{name_key, Email, Password, PlayerName, MAX_PASSWORD_LEN};
use super::passwords::{dummy_hash, hash_password, verify_password};
use super::settings::{self, SettingsChange};
use super::tokens::{new_token, token_hash};
use super::{Client, Me, PlayerError, Players, Result};
use crate::domain::now;
use crate::store::{NewPassword, NewPlayer, NewToken, Player, PlayerChange, StoreError};

/// Longer names are not looked up: no player has one.
const MAX_LOOKUP_LEN: usize = 64;

// A sign-up as the client sent it: the body of `POST /players`, named
// `Registration` in the API's schemas (a plain comment, so that the
// document's schema stays as it was).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Registration)]
pub struct NewAccount {
    /// 1 to 32 letters, digits, `_` or `-`; unique regardless of case.
    #[schema(schema_with = super::input::player_name)]
    pub name: String,
    /// 8 to 128 characters, not too easy to guess (zxcvbn score 3 or
    /// more, the name not in it): else 422 `weak_password` with the reason.
    #[schema(min_length = 8, max_length = 128)]
    pub password: String,
    pub email: Option<String>,
    /// Declares a bot account: its moves are a program's (BOTS.md). Shown
    /// wherever the name is; may change only before the first game.
    #[serde(default)]
    pub bot: bool,
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
    /// Declares a bot account or not: only before the player's first game.
    pub bot: Option<bool>,
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
    /// Registers a player and opens their first session; the `client`'s
    /// address may register only so often.
    pub async fn register(&self, account: NewAccount, client: Client) -> Result<(Player, Token)> {
        let from = client.address;
        let name: PlayerName = account.name.parse()?;
        let password = account.password.parse::<Password>()?.strong_for(name.as_str())?;
        let email = account.email.as_deref().map(str::parse::<Email>).transpose()?;
        self.guard.may_register(from, Instant::now()).map_err(|wait| {
            self.metrics.count_limited("register");
            tracing::info!(%from, "registration refused: too many from this address");
            PlayerError::TooManyRegistrations(wait)
        })?;
        let hash = hash_password(password).await?;
        let email = email.map(Email::into_inner);
        let player = self
            .store
            .create_player(NewPlayer {
                name: name.as_str().to_owned(),
                name_key: name.key(),
                email,
                password_hash: hash,
                bot: account.bot,
                now: now(),
            })
            .await
            .map_err(|e| match e {
                StoreError::Unique => PlayerError::NameTaken(name.to_string()),
                other => other.into(),
            })?;
        let token = self.open_session(&player, client.user_agent).await?;
        Ok((player, token))
    }

    /// Opens a session for whoever knows the name and password, unless the
    /// `client`'s address or the account failed too often lately. The
    /// player and a new token of theirs, as [`Players::register`] answers:
    /// one shape for both doors.
    pub async fn sign_in(&self, name: &str, password: String, client: Client) -> Result<(Player, Token)> {
        let account = name_key(name);
        let from = client.address;
        self.guard.may_sign_in(&account, from, Instant::now()).map_err(|wait| {
            self.metrics.count_limited("sign_in");
            tracing::info!(%from, "sign-in refused: too many failures lately");
            PlayerError::TooManyAttempts(wait)
        })?;
        let credentials = if name.len() > MAX_LOOKUP_LEN || too_long_to_check(&password) {
            None
        } else {
            self.store.credentials(&account).await?
        };
        self.metrics.count_password_check();
        let right = match credentials {
            Some(credentials) => verify_password(password, credentials.password_hash)
                .await?
                .then_some(credentials.player),
            None => {
                // The same work as for a known name, so that the answer's
                // timing does not say whether the name exists.
                let _ = verify_password(password, dummy_hash().await?).await?;
                None
            }
        };
        let Some(player) = right else {
            tracing::info!(%from, "sign-in failed");
            self.guard.failed(&account, from, Instant::now());
            return Err(PlayerError::BadCredentials);
        };
        self.guard.signed_in(&account, from, Instant::now());
        let token = self.open_session(&player, client.user_agent).await?;
        Ok((player, token))
    }

    async fn open_session(&self, player: &Player, user_agent: Option<String>) -> Result<Token> {
        let token = new_token();
        self.store
            .insert_token(NewToken {
                token_hash: token_hash(&token),
                player_id: player.id,
                now: now(),
                user_agent,
            })
            .await?;
        Ok(Token(token))
    }

    /// The session a bearer token opens, if any.
    pub async fn session(&self, token: &str) -> Result<Option<Session>> {
        Ok(self.tokens.session(self.store.as_ref(), token, now()).await?)
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
        let password = change
            .password
            .map(|password| password.parse::<Password>()?.strong_for(&session.player.name))
            .transpose()?;
        // Whoever holds a stolen token must not take the account over: a
        // new password, or a new address for password resets and
        // notifications, needs the current password.
        if password.is_some() || email.is_some() {
            self.confirm_password(&session.player, change.current_password).await?;
        }
        let password_hash = match password {
            Some(password) => Some(hash_password(password).await?),
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
                bot: change.bot,
            })
            .await
            .map_err(|e| match e {
                StoreError::Played => PlayerError::BotAfterGames,
                other => other.into(),
            })?
            .ok_or(PlayerError::Vanished)?;
        self.tokens.forget_player(player.id);
        self.me_with(&player, new_secret).await
    }

    /// Checks the player's current password.
    async fn confirm_password(&self, player: &Player, current: Option<String>) -> Result<()> {
        let current = current.ok_or(PlayerError::CurrentPasswordMissing)?;
        let credentials = self
            .store
            .credentials(&name_key(&player.name))
            .await?
            .ok_or(PlayerError::NoSuchPlayer)?;
        if too_long_to_check(&current) || !verify_password(current, credentials.password_hash).await? {
            return Err(PlayerError::WrongPassword);
        }
        Ok(())
    }
}
