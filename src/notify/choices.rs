//! What a player chose to be told, and how: per kind of event, the
//! channels. Owns the vocabulary of notifiable kinds ([`NotifyKind`]); a
//! kind a client names that is not one of them is refused, never kept.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::store::NotifySettings;

/// The kinds of player event a player can be told about by mail or
/// webhook: the `kind` of the entries of their event stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NotifyKind {
    YourTurn,
    Invited,
    GameOver,
    Chat,
    Reminder,
    TournamentStarted,
    TournamentRound,
    TournamentOver,
}

impl NotifyKind {
    pub const ALL: [NotifyKind; 8] = [
        NotifyKind::YourTurn,
        NotifyKind::Invited,
        NotifyKind::GameOver,
        NotifyKind::Chat,
        NotifyKind::Reminder,
        NotifyKind::TournamentStarted,
        NotifyKind::TournamentRound,
        NotifyKind::TournamentOver,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            NotifyKind::YourTurn => "your_turn",
            NotifyKind::Invited => "invited",
            NotifyKind::GameOver => "game_over",
            NotifyKind::Chat => "chat",
            NotifyKind::Reminder => "reminder",
            NotifyKind::TournamentStarted => "tournament_started",
            NotifyKind::TournamentRound => "tournament_round",
            NotifyKind::TournamentOver => "tournament_over",
        }
    }
}

impl fmt::Display for NotifyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A kind of event no player can be told about.
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownKind(String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown notification kind {:?}; kinds are ", self.0)?;
        for (i, kind) in NotifyKind::ALL.iter().enumerate() {
            let separator = if i == 0 { "" } else { ", " };
            write!(f, "{separator}{kind}")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownKind {}

impl FromStr for NotifyKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<NotifyKind, UnknownKind> {
        NotifyKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == s)
            .ok_or_else(|| UnknownKind(s.chars().take(40).collect()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Email,
    Webhook,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Email => "email",
            Channel::Webhook => "webhook",
        }
    }
}

/// Per kind of event, the channels to use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct NotifyChoices(pub BTreeMap<NotifyKind, Vec<Channel>>);

/// Choices refused as sent.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChoicesError {
    #[error("notify must be an object of kinds")]
    NotAnObject,
    #[error(transparent)]
    UnknownKind(#[from] UnknownKind),
    #[error("notify.{0} must be a list of \"email\" and \"webhook\"")]
    NotChannels(NotifyKind),
}

impl NotifyChoices {
    /// What a player who never chose gets: mail for everything but chat.
    pub fn defaults() -> NotifyChoices {
        NotifyChoices(
            NotifyKind::ALL
                .into_iter()
                .map(|kind| {
                    let channels = if kind == NotifyKind::Chat {
                        vec![]
                    } else {
                        vec![Channel::Email]
                    };
                    (kind, channels)
                })
                .collect(),
        )
    }

    /// Parses a client's choice: known kinds only, each a list of channels.
    /// Kinds left out keep the default.
    pub fn parse(value: &Value) -> Result<NotifyChoices, ChoicesError> {
        let map = value.as_object().ok_or(ChoicesError::NotAnObject)?;
        let mut choices = NotifyChoices::defaults();
        for (kind, channels) in map {
            let kind: NotifyKind = kind.parse()?;
            let mut list: Vec<Channel> =
                serde_json::from_value(channels.clone()).map_err(|_| ChoicesError::NotChannels(kind))?;
            list.sort();
            list.dedup();
            choices.0.insert(kind, list);
        }
        Ok(choices)
    }

    pub fn stored(settings: &NotifySettings) -> NotifyChoices {
        settings
            .notify
            .as_ref()
            .and_then(|v| NotifyChoices::parse(v).ok())
            .unwrap_or_else(NotifyChoices::defaults)
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(&self.0).unwrap_or(Value::Null)
    }

    /// The channels for an event of `kind`: none for kinds nobody is told of.
    pub fn channels(&self, kind: &str) -> &[Channel] {
        kind.parse()
            .ok()
            .and_then(|kind| self.0.get(&kind))
            .map_or(&[], Vec::as_slice)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn choices_parse_known_kinds_and_channels_only() {
        let parsed = NotifyChoices::parse(&json!({"your_turn": ["webhook", "email", "email"], "chat": []})).unwrap();
        assert_eq!(parsed.channels("your_turn"), &[Channel::Email, Channel::Webhook]);
        assert_eq!(parsed.channels("invited"), &[Channel::Email], "left out: the default");
        assert!(parsed.channels("chat").is_empty());
        assert!(parsed.channels("game_started").is_empty(), "not a notifiable kind");
        assert_eq!(
            NotifyChoices::parse(&json!({"moves": ["email"]})),
            Err(ChoicesError::UnknownKind(UnknownKind("moves".to_owned())))
        );
        assert_eq!(
            NotifyChoices::parse(&json!({"your_turn": ["sms"]})),
            Err(ChoicesError::NotChannels(NotifyKind::YourTurn))
        );
        assert!(NotifyChoices::parse(&json!({"your_turn": "email"})).is_err());
        assert_eq!(NotifyChoices::parse(&json!([])), Err(ChoicesError::NotAnObject));
    }

    #[test]
    fn an_unknown_kind_is_told_every_kind() {
        let refusal = "moves".parse::<NotifyKind>().unwrap_err().to_string();
        assert_eq!(
            refusal,
            "unknown notification kind \"moves\"; kinds are your_turn, invited, game_over, chat, reminder, \
             tournament_started, tournament_round, tournament_over"
        );
    }

    #[test]
    fn kinds_print_as_they_parse() {
        for kind in NotifyKind::ALL {
            assert_eq!(kind.as_str().parse::<NotifyKind>(), Ok(kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.as_str()));
        }
    }
}
