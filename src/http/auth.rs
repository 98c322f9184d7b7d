//! `Authorization: Bearer <token>`: the header is read here, the token
//! checked by the players service.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;

use super::error::Error;
use super::AppState;
use crate::players::{Player, Session};

/// The authenticated player; 401 without a valid token.
pub struct Auth(pub Player);

/// The player when a token is given (401 if it is not valid), else nobody.
pub struct MaybeAuth(pub Option<Player>);

/// The authenticated player's session; 401 without a valid token.
pub struct SignedIn(pub Session);

async fn signed_in(parts: &Parts, state: &AppState) -> Result<Option<SignedIn>, Error> {
    let Some(value) = parts.headers.get(AUTHORIZATION) else {
        return Ok(None);
    };
    let invalid = || Error::Unauthorized("invalid token".to_owned());
    let value = value.to_str().map_err(|_| invalid())?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .ok_or_else(|| Error::Unauthorized("expected Authorization: Bearer <token>".to_owned()))?
        .trim();
    if token.is_empty() || token.len() > 128 {
        return Err(invalid());
    }
    let session = state.players.session(token).await?;
    session.map(|session| Some(SignedIn(session))).ok_or_else(invalid)
}

impl FromRequestParts<AppState> for SignedIn {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<SignedIn, Error> {
        signed_in(parts, state)
            .await?
            .ok_or_else(|| Error::Unauthorized("this needs Authorization: Bearer <token>".to_owned()))
    }
}

impl FromRequestParts<AppState> for Auth {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Auth, Error> {
        SignedIn::from_request_parts(parts, state)
            .await
            .map(|SignedIn(session)| Auth(session.player))
    }
}

impl FromRequestParts<AppState> for MaybeAuth {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<MaybeAuth, Error> {
        Ok(MaybeAuth(
            signed_in(parts, state).await?.map(|SignedIn(session)| session.player),
        ))
    }
}
