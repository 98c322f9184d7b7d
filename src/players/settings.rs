//! Notification settings as a player changes them: which channels per kind
//! of event, the webhook URL (with a fresh secret each time it is set) and
//! the daily digest. Parsing only; the change is written with the rest of
//! the account (see [`super::accounts`]).

use serde_json::Value;

use super::tokens::new_token;
use crate::notify::webhook::{UrlError, WebhookUrl};
use crate::notify::{ChoicesError, NotifyChoices};
use crate::store::SettingsUpdate;

/// The notification part of a change of `/players/me`, as sent; `None`
/// leaves a setting alone.
#[derive(Debug, Default)]
pub struct SettingsChange {
    /// Per kind of event, the channels; kinds left out keep the default.
    pub notify: Option<Value>,
    /// `Some(None)` removes the webhook.
    pub webhook_url: Option<Option<String>>,
    pub digest: Option<bool>,
}

/// A setting refused as given.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error(transparent)]
    Notify(#[from] ChoicesError),
    #[error(transparent)]
    WebhookUrl(#[from] UrlError),
}

/// Checks a change and turns it into what the store writes: the choices in
/// their stored form, and a new secret for a new webhook URL.
pub fn parse(change: SettingsChange, allow_private_webhooks: bool) -> Result<SettingsUpdate, SettingsError> {
    let notify = change
        .notify
        .map(|value| NotifyChoices::parse(&value))
        .transpose()?
        .map(|choices| choices.to_value());
    let webhook = match change.webhook_url {
        None => None,
        Some(None) => Some((None, None)),
        Some(Some(url)) => {
            let url = WebhookUrl::parse(&url, allow_private_webhooks)?;
            Some((Some(url.as_str().to_owned()), Some(new_token())))
        }
    };
    Ok(SettingsUpdate {
        notify,
        webhook,
        digest: change.digest,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_empty_change_changes_nothing() {
        let update = parse(SettingsChange::default(), false).expect("nothing to refuse");
        assert!(update.notify.is_none() && update.webhook.is_none() && update.digest.is_none());
    }

    #[test]
    fn choices_are_stored_whole_and_a_new_url_gets_a_secret() {
        let change = SettingsChange {
            notify: Some(json!({ "chat": ["webhook"] })),
            webhook_url: Some(Some("http://127.0.0.1:9/hook".to_owned())),
            digest: Some(true),
        };
        let update = parse(change, true).expect("acceptable");
        let notify = update.notify.expect("choices");
        assert_eq!(notify["chat"], json!(["webhook"]));
        assert_eq!(notify["your_turn"], json!(["email"]));
        let (url, secret) = update.webhook.expect("a webhook");
        assert_eq!(url.as_deref(), Some("http://127.0.0.1:9/hook"));
        assert_eq!(secret.map(|s| s.len()), Some(64));
        assert_eq!(update.digest, Some(true));
    }

    #[test]
    fn removing_the_webhook_removes_its_secret() {
        let change = SettingsChange {
            webhook_url: Some(None),
            ..SettingsChange::default()
        };
        assert_eq!(parse(change, false).expect("acceptable").webhook, Some((None, None)));
    }

    #[test]
    fn bad_settings_are_refused() {
        let unknown = SettingsChange {
            notify: Some(json!({ "nonsense": [] })),
            ..SettingsChange::default()
        };
        assert!(matches!(parse(unknown, false), Err(SettingsError::Notify(_))));
        let private = SettingsChange {
            webhook_url: Some(Some("http://127.0.0.1/hook".to_owned())),
            ..SettingsChange::default()
        };
        assert!(matches!(parse(private, false), Err(SettingsError::WebhookUrl(_))));
    }
}
