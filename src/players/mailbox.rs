//! A player's secret command address for play by mail,
//! `<name>.<key>@<domain>`: made the first time the player is shown it,
//! replaced on request (the old address stops working at once), and found
//! again by its key when mail comes to it. The key is random; it and the
//! reply tokens are the credentials of the mail door.

use argon2::password_hash::rand_core::{OsRng, RngCore};

use super::{Me, PlayerError, Players, Result};
use crate::store::Player;

/// A fresh key: 10 random bytes, hex.
fn new_key() -> String {
    let mut bytes = [0u8; 10];
    OsRng.fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// The command address of the player `name` with `key`.
pub fn command_address(name: &str, key: &str, domain: &str) -> String {
    format!("{}.{key}@{domain}", name.to_ascii_lowercase())
}

impl Players {
    /// The player's command address, made now if they have none; `None`
    /// when play by mail is off.
    pub(super) async fn mail_address(&self, player: &Player) -> Result<Option<String>> {
        let Some(domain) = &self.config.mail_domain else {
            return Ok(None);
        };
        let key = self.store.set_mail_key(player.id, &new_key(), false).await?;
        Ok(key.map(|key| command_address(&player.name, &key, domain)))
    }

    /// Gives the player a new command address; the old one is forgotten.
    pub async fn new_mail_address(&self, player: &Player) -> Result<Me> {
        if self.config.mail_domain.is_none() {
            return Err(PlayerError::MailOff);
        }
        self.store
            .set_mail_key(player.id, &new_key(), true)
            .await?
            .ok_or(PlayerError::NoSuchPlayer)?;
        self.me(player).await
    }

    /// The player a command address names: its key, and its name (in any
    /// case) with it.
    pub async fn by_mail_address(&self, name: &str, key: &str) -> Result<Option<Player>> {
        let player = self.store.player_by_mail_key(key).await?;
        Ok(player.filter(|p| p.name.eq_ignore_ascii_case(name)))
    }
}
