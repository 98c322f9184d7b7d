//! Who is asking, by address: the peer of the TCP connection (which the
//! serve loop, `src/serve.rs`, hands every request), or, behind a reverse
//! proxy, the last address of the header the operator named
//! (`--client-address-header`). The abuse limits count by it. A session
//! keeps the client's `User-Agent` beside it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;

use super::error::Error;
use super::AppState;
use crate::players::{user_agent, Client};

/// The client that opens a session: its address and `User-Agent`.
pub struct SessionClient(pub Client);

impl FromRequestParts<AppState> for SessionClient {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<SessionClient, Error> {
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
        let address = forwarded.or(peer).unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let agent = parts
            .headers
            .get(axum::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        Ok(SessionClient(Client {
            address,
            user_agent: user_agent(agent),
        }))
    }
}
