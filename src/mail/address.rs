//! The addresses mail comes to, pure: reply tokens and command addresses.
//!
//! - A reply token (`play-<game>-<player>-<ply>-<mac>@<domain>`) is the
//!   `Reply-To` of every board the server mails. It names the game, the
//!   player and the ply the board showed; the MAC (HMAC-SHA256 with the
//!   server's stored secret, cut to 96 bits) makes it unforgeable, and it
//!   stays valid across restarts because the secret is kept in the database.
//! - A command address (`<name>.<key>@<domain>`) is a player's own secret
//!   address; the key is random and replaced on request.
//!
//! Parsing is case-insensitive (MTAs may fold local parts) and refuses
//! anything of another domain: the listener answers such a recipient 550,
//! so the server is never an open relay.

use std::fmt;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Bytes of the MAC kept in a token.
const MAC_BYTES: usize = 12;
/// Longest local part RFC 5321 allows.
const MAX_LOCAL_LEN: usize = 64;

/// A recipient this server answers for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recipient {
    /// A verified reply token.
    Reply(ReplyToken),
    /// A command address, still to be looked up by its key.
    Commands { name: String, key: String },
}

/// What a reply token names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplyToken {
    pub game: i64,
    pub player: i64,
    /// The ply of the board the token was mailed with.
    pub ply: i64,
}

/// Why a recipient is refused at `RCPT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("relaying denied: this server takes mail for its own domain only")]
    OtherDomain,
    #[error("no such mailbox")]
    Unknown,
}

/// This server's mail domain and its token key.
#[derive(Clone)]
pub struct Addresses {
    domain: String,
    key: Vec<u8>,
}

impl fmt::Debug for Addresses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Addresses")
            .field("domain", &self.domain)
            .finish_non_exhaustive()
    }
}

impl Addresses {
    pub fn new(domain: &str, secret: &str) -> Addresses {
        Addresses {
            domain: domain.to_ascii_lowercase(),
            key: secret.as_bytes().to_vec(),
        }
    }

    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The keyed hash of what a token names.
    fn hmac(&self, token: ReplyToken) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes a key of any length");
        mac.update(format!("tavoliere-reply:{}:{}:{}", token.game, token.player, token.ply).as_bytes());
        mac
    }

    fn mac(&self, token: ReplyToken) -> String {
        hex::encode(&self.hmac(token).finalize().into_bytes()[..MAC_BYTES])
    }

    /// The address a reply to a board of `token`'s game goes to.
    pub fn reply_address(&self, token: ReplyToken) -> String {
        let ReplyToken { game, player, ply } = token;
        format!("play-{game}-{player}-{ply}-{}@{}", self.mac(token), self.domain)
    }

    /// A player's command address.
    pub fn command_address(&self, name: &str, key: &str) -> String {
        crate::players::mailbox::command_address(name, key, &self.domain)
    }

    /// Reads a recipient (with or without angle brackets).
    pub fn recipient(&self, address: &str) -> Result<Recipient, AddressError> {
        let address = address.trim().trim_start_matches('<').trim_end_matches('>');
        let (local, domain) = address.rsplit_once('@').ok_or(AddressError::OtherDomain)?;
        if !domain.eq_ignore_ascii_case(&self.domain) {
            return Err(AddressError::OtherDomain);
        }
        if local.is_empty() || local.len() > MAX_LOCAL_LEN || !local.is_ascii() {
            return Err(AddressError::Unknown);
        }
        let local = local.to_ascii_lowercase();
        if let Some((name, key)) = local.rsplit_once('.') {
            let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            return if plain(name) && plain(key) {
                Ok(Recipient::Commands {
                    name: name.to_owned(),
                    key: key.to_owned(),
                })
            } else {
                Err(AddressError::Unknown)
            };
        }
        self.token(&local).map(Recipient::Reply).ok_or(AddressError::Unknown)
    }

    fn token(&self, local: &str) -> Option<ReplyToken> {
        let mut parts = local.strip_prefix("play-")?.split('-');
        let mut number = || parts.next().and_then(|n| n.parse::<i64>().ok()).filter(|n| *n >= 0);
        let token = ReplyToken {
            game: number()?,
            player: number()?,
            ply: number()?,
        };
        let given = parts.next()?;
        if parts.next().is_some() {
            return None;
        }
        // Compared in constant time: the MAC is the credential.
        let given = hex::decode(given).ok()?;
        (given.len() == MAC_BYTES && self.hmac(token).verify_truncated_left(&given).is_ok()).then_some(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addresses() -> Addresses {
        Addresses::new("Play.Example.org", "a server secret")
    }

    #[test]
    fn a_reply_token_round_trips_and_any_change_breaks_it() {
        let a = addresses();
        let token = ReplyToken {
            game: 12,
            player: 3,
            ply: 5,
        };
        let address = a.reply_address(token);
        assert!(address.ends_with("@play.example.org"), "{address}");
        assert!(address.split('@').next().unwrap().len() <= MAX_LOCAL_LEN);
        assert_eq!(a.recipient(&address), Ok(Recipient::Reply(token)));
        assert_eq!(
            a.recipient(&format!("<{}>", address.to_uppercase())),
            Ok(Recipient::Reply(token))
        );
        let forged = address.replacen("play-12-3-5", "play-12-4-5", 1);
        assert_eq!(a.recipient(&forged), Err(AddressError::Unknown));
        let other_key = Addresses::new("play.example.org", "another secret");
        assert_eq!(other_key.recipient(&address), Err(AddressError::Unknown));
        assert_eq!(a.recipient("play-12-3-5@play.example.org"), Err(AddressError::Unknown));
        assert_eq!(
            a.recipient("play-12-3-5-zz@play.example.org"),
            Err(AddressError::Unknown)
        );
    }

    #[test]
    fn command_addresses_and_other_domains() {
        let a = addresses();
        assert_eq!(
            a.recipient("Alice.0a1b2c@play.example.org"),
            Ok(Recipient::Commands {
                name: "alice".into(),
                key: "0a1b2c".into()
            })
        );
        assert_eq!(a.command_address("Alice", "0a1b"), "alice.0a1b@play.example.org");
        assert_eq!(a.recipient("alice.key@example.org"), Err(AddressError::OtherDomain));
        assert_eq!(a.recipient("someone@elsewhere.test"), Err(AddressError::OtherDomain));
        assert_eq!(a.recipient("nobody"), Err(AddressError::OtherDomain));
        assert_eq!(a.recipient("a.b.c@play.example.org"), Err(AddressError::Unknown));
        assert_eq!(a.recipient(".key@play.example.org"), Err(AddressError::Unknown));
        assert_eq!(a.recipient("postmaster@play.example.org"), Err(AddressError::Unknown));
        let long = format!("{}@play.example.org", "x".repeat(65));
        assert_eq!(a.recipient(&long), Err(AddressError::Unknown));
    }
}
