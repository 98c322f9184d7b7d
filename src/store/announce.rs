//! What the database says was committed, by this process or another one
//! sharing it: the newest event of each game and player a statement wrote.
//! PostgreSQL sends it with NOTIFY from the triggers of
//! `migrations/postgres` (at commit, only for committed transactions);
//! SQLite has no such thing, and its processes hear only of their own
//! changes.

use std::fmt;

/// The channel of games' events.
pub const GAME_CHANNEL: &str = "tavoliere_game_events";
/// The channel of players' events.
pub const PLAYER_CHANNEL: &str = "tavoliere_player_events";

/// A log that grew: whose, and its newest event's number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Announcement {
    Game { game: i64, seq: i64 },
    Player { player: i64, seq: i64 },
}

/// A notification that is not one of ours, or not as the triggers write it.
#[derive(Debug, PartialEq, Eq)]
pub struct BadAnnouncement {
    channel: String,
    payload: String,
}

impl fmt::Display for BadAnnouncement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: String = self.payload.chars().take(80).collect();
        write!(f, "not an announcement on {:?}: {shown:?}", self.channel)
    }
}

impl std::error::Error for BadAnnouncement {}

/// Parses a notification: `id:seq,id:seq,…` on [`GAME_CHANNEL`] or
/// [`PLAYER_CHANNEL`].
pub fn parse(channel: &str, payload: &str) -> Result<Vec<Announcement>, BadAnnouncement> {
    let bad = || BadAnnouncement {
        channel: channel.to_owned(),
        payload: payload.to_owned(),
    };
    let announcement: fn(i64, i64) -> Announcement = match channel {
        GAME_CHANNEL => |game, seq| Announcement::Game { game, seq },
        PLAYER_CHANNEL => |player, seq| Announcement::Player { player, seq },
        _ => return Err(bad()),
    };
    payload
        .split(',')
        .map(|entry| {
            let (id, seq) = entry.split_once(':').ok_or_else(bad)?;
            Ok(announcement(
                id.parse().map_err(|_| bad())?,
                seq.parse().map_err(|_| bad())?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announcements_parse_as_the_triggers_write_them() {
        assert_eq!(
            parse(GAME_CHANNEL, "1:6,22:13"),
            Ok(vec![
                Announcement::Game { game: 1, seq: 6 },
                Announcement::Game { game: 22, seq: 13 }
            ])
        );
        assert_eq!(
            parse(PLAYER_CHANNEL, "7:1"),
            Ok(vec![Announcement::Player { player: 7, seq: 1 }])
        );
        for (channel, payload) in [
            ("elsewhere", "1:2"),
            (GAME_CHANNEL, ""),
            (GAME_CHANNEL, "1:2,"),
            (GAME_CHANNEL, "1-2"),
            (GAME_CHANNEL, "x:2"),
            (PLAYER_CHANNEL, "1:99999999999999999999"),
        ] {
            let error = parse(channel, payload).expect_err(payload);
            assert!(error.to_string().contains("not an announcement"), "{error}");
        }
    }
}
