//! Webhooks: URL checks (no server-side request forgery by default) and
//! signed POSTs.
//!
//! The signature is HMAC-SHA256, keyed with the player's webhook secret,
//! over `<timestamp>.<body>` where `<timestamp>` is the value of the
//! `X-Tavoliere-Timestamp` header (Unix seconds) and `<body>` the exact
//! request body; it is sent as `X-Tavoliere-Signature: sha256=<lower-case
//! hex>`. Receivers recompute it, compare in constant time and refuse old
//! timestamps (replays).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use reqwest::Url;
use sha2::Sha256;

pub const TIMESTAMP_HEADER: &str = "X-Tavoliere-Timestamp";
pub const SIGNATURE_HEADER: &str = "X-Tavoliere-Signature";
/// `<player>-<event seq>`: the same for every retry of one event, so a
/// receiver can drop a duplicate.
pub const DELIVERY_HEADER: &str = "X-Tavoliere-Delivery";
pub const MAX_URL_LEN: usize = 2000;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("the webhook URL is longer than {MAX_URL_LEN} characters")]
    TooLong,
    #[error("the webhook URL cannot be parsed")]
    Unparsable,
    #[error("webhook URLs must be http or https")]
    Scheme,
    #[error("webhook URLs cannot carry a user name or password")]
    Credentials,
    #[error("the webhook URL names no host")]
    NoHost,
    #[error("this server does not send webhooks to loopback, private or local addresses")]
    Private,
}

/// A webhook URL that passed the checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookUrl(Url);

impl WebhookUrl {
    /// http(s) only, no credentials, and unless `allow_private` no
    /// loopback, private, link-local or unspecified address nor `localhost`.
    pub fn parse(input: &str, allow_private: bool) -> Result<WebhookUrl, UrlError> {
        if input.len() > MAX_URL_LEN {
            return Err(UrlError::TooLong);
        }
        // The URL standard's parser normalises the host already: lower
        // case, IPv4 written in decimal, octal or hex (`2130706433`,
        // `0177.0.0.1`) as dotted quads, IPv6 compressed.
        let mut url = Url::parse(input.trim()).map_err(|_| UrlError::Unparsable)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(UrlError::Scheme);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(UrlError::Credentials);
        }
        // A fully qualified name's final dot (`localhost.`) names the same
        // host: gone before the checks, and from the stored URL.
        let host = url.host_str().ok_or(UrlError::NoHost)?;
        if host.ends_with('.') {
            let bare = host.trim_end_matches('.').to_owned();
            if bare.is_empty() {
                return Err(UrlError::NoHost);
            }
            url.set_host(Some(&bare)).map_err(|_| UrlError::Unparsable)?;
        }
        let host = url.host_str().ok_or(UrlError::NoHost)?;
        if !allow_private {
            let bare = host.trim_start_matches('[').trim_end_matches(']');
            let local_name =
                bare.eq_ignore_ascii_case("localhost") || bare.to_ascii_lowercase().ends_with(".localhost");
            if local_name || bare.parse::<IpAddr>().is_ok_and(|ip| !is_public(ip)) {
                return Err(UrlError::Private);
            }
        }
        Ok(WebhookUrl(url))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    pub fn host_and_port(&self) -> Option<(String, u16)> {
        Some((self.0.host_str()?.to_owned(), self.0.port_or_known_default()?))
    }
}

/// Whether an address is on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_documentation()
                // 100.64.0.0/10, carrier-grade NAT.
                || (v4.octets()[0] == 100 && (v4.octets()[1] & 0xc0) == 64))
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                // fc00::/7 unique local, fe80::/10 link-local.
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80)
        }
    }
}

/// Why a webhook's host was not connected to.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("cannot resolve {0}: {1}")]
    Lookup(String, std::io::Error),
    #[error("{0} resolves to no address")]
    Nothing(String),
    #[error("{0} resolves to a non-public address")]
    NotPublic(String),
}

/// The addresses of `host`, all public, or why not.
async fn public_addresses(host: &str, port: u16) -> Result<Vec<SocketAddr>, ResolveError> {
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .map_err(|e| ResolveError::Lookup(host.to_owned(), e))?
        .collect();
    if addresses.is_empty() {
        return Err(ResolveError::Nothing(host.to_owned()));
    }
    // One private address among public ones is how a rebinding answer looks.
    if addresses.iter().any(|address| !is_public(address.ip())) {
        return Err(ResolveError::NotPublic(host.to_owned()));
    }
    Ok(addresses)
}

/// The webhook client's resolver: the addresses it connects to are the
/// ones it checked. A check before the request and a second lookup by the
/// client could get different answers (DNS rebinding: a name that looked
/// public when checked and points inside when connected to).
struct PublicAddressesOnly;

impl reqwest::dns::Resolve for PublicAddressesOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async move {
            // Port 0: the client puts the URL's port in.
            let addresses = public_addresses(name.as_str(), 0).await?;
            Ok(Box::new(addresses.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The client webhooks are sent with: no redirects (a receiver could
/// bounce us anywhere), and unless `allow_private` only public addresses.
pub fn client(allow_private: bool) -> reqwest::Result<reqwest::Client> {
    let builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("tavoliere/", env!("CARGO_PKG_VERSION")));
    if allow_private {
        builder.build()
    } else {
        builder.dns_resolver(Arc::new(PublicAddressesOnly)).build()
    }
}

/// `sha256=<hex>` of HMAC-SHA256(secret, "<timestamp>.<body>").
pub fn signature(secret: &str, timestamp: i64, body: &[u8]) -> String {
    // HMAC takes keys of any length: this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC accepts any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Sends one signed POST; `Err` with what went wrong for the delivery log.
pub async fn post(
    client: &reqwest::Client,
    url: &WebhookUrl,
    secret: &str,
    delivery: &str,
    body: Vec<u8>,
    allow_private: bool,
    timeout: Duration,
) -> Result<(), String> {
    if !allow_private {
        // The client's resolver checks names as it connects; but behind a
        // proxy (`HTTPS_PROXY`…) the proxy resolves them, so the host is
        // checked here too. (An address in the URL was checked by
        // `WebhookUrl::parse`.)
        let (host, port) = url.host_and_port().ok_or("the webhook URL names no host")?;
        public_addresses(host.trim_start_matches('[').trim_end_matches(']'), port)
            .await
            .map_err(|e| e.to_string())?;
    }
    let timestamp = crate::domain::now() / 1000;
    let response = client
        .post(url.0.clone())
        .timeout(timeout)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(TIMESTAMP_HEADER, timestamp.to_string())
        .header(SIGNATURE_HEADER, signature(secret, timestamp, &body))
        .header(DELIVERY_HEADER, delivery)
        .body(body)
        .send()
        .await
        .map_err(|e| format!("request failed: {e}"))?;
    let status = response.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("the receiver answered {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert!(WebhookUrl::parse("https://example.com/hook", false).is_ok());
        assert_eq!(WebhookUrl::parse("ftp://example.com/", false), Err(UrlError::Scheme));
        assert_eq!(WebhookUrl::parse("not a url", false), Err(UrlError::Unparsable));
        assert_eq!(
            WebhookUrl::parse("http://u:p@example.com/", false),
            Err(UrlError::Credentials)
        );
        for private in [
            "http://127.0.0.1:8080/",
            "http://localhost/",
            "http://10.1.2.3/",
            "http://192.168.0.1/",
            "http://169.254.169.254/latest",
            "http://[::1]/",
            "http://[fd00::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://0.0.0.0/",
            "http://LOCALHOST.:18599/",
            "http://localhost../",
            "http://app.LocalHost./",
            "http://2130706433/",
            "http://0177.0.0.1/",
            "http://0x7f.1/",
            "http://127.1/",
            "http://[0:0:0:0:0:0:0:1]/",
            "http://[::ffff:7f00:1]/",
            "http://0/",
        ] {
            assert_eq!(WebhookUrl::parse(private, false), Err(UrlError::Private), "{private}");
        }
        assert!(WebhookUrl::parse("http://127.0.0.1:8080/", true).is_ok());
        assert_eq!(
            WebhookUrl::parse("https://Example.COM./hook", false).map(|u| u.as_str().to_owned()),
            Ok("https://example.com/hook".to_owned())
        );
        assert_eq!(WebhookUrl::parse("http://./", false), Err(UrlError::NoHost));
        assert_eq!(
            WebhookUrl::parse(&format!("https://example.com/{}", "a".repeat(MAX_URL_LEN)), false),
            Err(UrlError::TooLong)
        );
    }

    /// The client refuses to connect to a name that resolves inside,
    /// whatever was checked before: the check is in its resolver.
    #[tokio::test]
    async fn the_client_connects_to_public_addresses_only() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().expect("its address").port();
        let accepted = tokio::spawn(async move {
            let (mut stream, _) = listener.accept().await.expect("a connection");
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request).await;
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").await;
        });
        let url = format!("http://localhost:{port}/hook");

        let refused = client(false).expect("a client").post(&url).send().await;
        let error = refused.expect_err("localhost is not public");
        let causes = std::iter::successors(Some(&error as &dyn std::error::Error), |e| e.source())
            .map(ToString::to_string)
            .collect::<Vec<_>>();
        assert!(
            causes
                .iter()
                .any(|c| c.contains("localhost resolves to a non-public address")),
            "{causes:?}"
        );
        assert!(!accepted.is_finished(), "nothing connected");

        let answer = client(true).expect("a client").post(&url).send().await.expect("sent");
        assert_eq!(answer.status(), reqwest::StatusCode::NO_CONTENT);
        accepted.await.expect("the receiver saw the request");
    }

    #[tokio::test]
    async fn only_public_answers_pass() {
        assert!(matches!(
            public_addresses("127.0.0.1", 80).await,
            Err(ResolveError::NotPublic(_))
        ));
        assert!(matches!(
            public_addresses("::1", 80).await,
            Err(ResolveError::NotPublic(_))
        ));
        let public = public_addresses("93.184.215.14", 443).await.expect("a public address");
        assert_eq!(public, vec![SocketAddr::from(([93, 184, 215, 14], 443))]);
    }

    #[test]
    fn signature_is_hmac_sha256_over_timestamp_dot_body() {
        // Reference value: printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac secret
        assert_eq!(
            signature("secret", 1_700_000_000, br#"{"a":1}"#),
            "sha256=49f24e537407743fa4a0242bb63b94b9a47ee99cbbe071ccd8a22550ae411686"
        );
    }
}
