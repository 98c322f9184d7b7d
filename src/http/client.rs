//! Who is asking, by address: the peer of the TCP connection (which the
//! serve loop, `src/serve.rs`, hands every request), or, behind a reverse
//! proxy, the last address of the header the operator named
//! (`--client-address-header`). The abuse limits count by it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

use super::error::Error;
use super::AppState;

/// The client's address.
pub struct ClientAddress(pub IpAddr);

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<ClientAddress, Error> {
        let forwarded = state.client_address_header.as_ref().and_then(|name| {
            // The proxy appends the address it saw: the last one is the
            // only one it vouches for.
            let value = parts.headers.get_all(name).iter().next_back()?.to_str().ok()?;
            value.rsplit(',').next()?.trim().parse::<IpAddr>().ok()
        });
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(address)| address.ip());
        // Every connection the server accepts carries its peer; a request
        // without one did not come through a socket, and counts as one
        // client.
        Ok(ClientAddress(
            forwarded.or(peer).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
        ))
    }
}

/// The client's `User-Agent`, as kept with a session it opens (shortened,
/// printable; `None` when absent or empty).
pub struct UserAgent(pub Option<String>);

impl FromRequestParts<AppState> for UserAgent {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &AppState) -> Result<UserAgent, Error> {
        let header = parts
            .headers
            .get(axum::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        Ok(UserAgent(crate::players::user_agent(header)))
    }
}
