//! A received message as the mail door reads it, pure: who it says it is
//! from, its subject, and the text a person wrote, decoded by `mail-parser`
//! whatever the MIME shape (quoted-printable or base64, any charset, HTML
//! only: its text; attachments are ignored). Also the key that makes a
//! message delivered twice the same message: its `Message-ID`, or a hash of
//! the whole message when it has none.

use mail_parser::MessageParser;
use sha2::{Digest, Sha256};

/// Longest `Message-ID` kept as a key; a longer one is hashed.
const MAX_ID_LEN: usize = 250;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming {
    pub message_id: Option<String>,
    /// The `From:` addresses, lower case.
    pub from: Vec<String>,
    pub subject: String,
    /// The first text part (an HTML-only mail's as text).
    pub text: String,
}

/// Reads a message; `None` when nothing in it parses as a message.
pub fn read(raw: &[u8]) -> Option<Incoming> {
    let message = MessageParser::default().parse(raw)?;
    let from = message
        .from()
        .map(|from| {
            from.iter()
                .filter_map(|a| a.address())
                .map(str::to_ascii_lowercase)
                .collect()
        })
        .unwrap_or_default();
    Some(Incoming {
        message_id: message.message_id().map(str::to_owned),
        from,
        subject: message.subject().unwrap_or_default().to_owned(),
        text: message.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
    })
}

/// What makes a message the same message when delivered again.
pub fn message_key(raw: &[u8]) -> String {
    let id = MessageParser::default()
        .parse_headers(raw)
        .and_then(|m| m.message_id().map(str::to_owned))
        .filter(|id| !id.is_empty() && id.len() <= MAX_ID_LEN);
    match id {
        Some(id) => format!("id:{id}"),
        None => format!("sha256:{}", hex::encode(Sha256::digest(raw))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(raw: &str) -> String {
        read(raw.as_bytes()).unwrap().text
    }

    #[test]
    fn plain_mail_with_its_headers() {
        let raw = "From: Alice <Alice@Example.org>\r\nSubject: games\r\nMessage-ID: <1@x>\r\n\r\nmove 1 e4\r\n";
        let mail = read(raw.as_bytes()).unwrap();
        assert_eq!(mail.from, vec!["alice@example.org"]);
        assert_eq!(mail.subject, "games");
        assert_eq!(mail.message_id.as_deref(), Some("1@x"));
        assert_eq!(mail.text.trim_end(), "move 1 e4");
        assert_eq!(message_key(raw.as_bytes()), "id:1@x");
    }

    #[test]
    fn encodings_and_charsets_are_decoded() {
        let qp = "From: a@b\r\nContent-Type: text/plain; charset=utf-8\r\n\
                  Content-Transfer-Encoding: quoted-printable\r\n\r\nchat 1 caff=C3=A8 =\r\nper tutti\r\n";
        assert_eq!(text(qp).trim_end(), "chat 1 caffè per tutti");
        let b64 = "From: a@b\r\nContent-Transfer-Encoding: base64\r\n\r\nbW92ZSAxIGU0DQo=\r\n";
        assert_eq!(text(b64).trim_end(), "move 1 e4");
        let latin1 = b"From: a@b\r\nContent-Type: text/plain; charset=iso-8859-1\r\n\r\nchat 1 caff\xe8\r\n";
        assert_eq!(read(latin1).unwrap().text.trim_end(), "chat 1 caffè");
        let not_utf8 = b"From: a@b\r\n\r\nchat 1 \xff\xfe\r\n";
        assert!(read(not_utf8).unwrap().text.starts_with("chat 1 "));
    }

    #[test]
    fn html_only_mail_gives_its_text_and_attachments_are_ignored() {
        let html = "From: a@b\r\nContent-Type: text/html\r\n\r\n<html><body><p>move 1 e4</p></body></html>\r\n";
        assert!(text(html).contains("move 1 e4"), "{:?}", text(html));
        let mixed = "From: a@b\r\nContent-Type: multipart/mixed; boundary=X\r\n\r\n--X\r\n\
                     Content-Type: text/plain\r\n\r\nmove 1 e4\r\n--X\r\n\
                     Content-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=a.bin\r\n\
                     Content-Transfer-Encoding: base64\r\n\r\nAAEC\r\n--X--\r\n";
        assert_eq!(text(mixed).trim_end(), "move 1 e4");
    }

    #[test]
    fn without_a_message_id_the_key_is_a_hash() {
        let raw = b"From: a@b\r\n\r\nmove 1 e4\r\n";
        let key = message_key(raw);
        assert!(key.starts_with("sha256:"), "{key}");
        assert_eq!(key, message_key(raw));
        assert_ne!(key, message_key(b"From: a@b\r\n\r\nmove 1 e5\r\n"));
        assert!(message_key(b"").starts_with("sha256:"));
    }
}
