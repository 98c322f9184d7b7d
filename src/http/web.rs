//! The web client: the files of `web/`, embedded in the binary, served at
//! `/` with their content types and an ETag (a hash of the content), and
//! `index.html` for every client route (`/game/7`, `/rules/focus`, …) so
//! that a reload or a shared link opens the right page.

use std::sync::OnceLock;

use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::Error;

/// One embedded file.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const SVG: &str = "image/svg+xml";

const fn asset(path: &'static str, content_type: &'static str, body: &'static [u8]) -> Asset {
    Asset {
        path,
        content_type,
        body,
    }
}

/// Every file of the client, by the path it is served at.
static ASSETS: &[Asset] = &[
    asset("/", HTML, include_bytes!("../../web/index.html")),
    asset("/assets/app.js", JS, include_bytes!("../../web/app.js")),
    asset("/assets/api.js", JS, include_bytes!("../../web/api.js")),
    asset("/assets/board.js", JS, include_bytes!("../../web/board.js")),
    asset(
        "/assets/render/common.js",
        JS,
        include_bytes!("../../web/render/common.js"),
    ),
    asset(
        "/assets/render/squares.js",
        JS,
        include_bytes!("../../web/render/squares.js"),
    ),
    asset(
        "/assets/render/points.js",
        JS,
        include_bytes!("../../web/render/points.js"),
    ),
    asset(
        "/assets/render/hexes.js",
        JS,
        include_bytes!("../../web/render/hexes.js"),
    ),
    asset("/assets/game.js", JS, include_bytes!("../../web/game.js")),
    asset("/assets/analysis.js", JS, include_bytes!("../../web/analysis.js")),
    asset("/assets/live.js", JS, include_bytes!("../../web/live.js")),
    asset("/assets/moves.js", JS, include_bytes!("../../web/moves.js")),
    asset("/assets/ratings.js", JS, include_bytes!("../../web/ratings.js")),
    asset("/assets/conditional.js", JS, include_bytes!("../../web/conditional.js")),
    asset("/assets/tournaments.js", JS, include_bytes!("../../web/tournaments.js")),
    asset("/assets/style.css", CSS, include_bytes!("../../web/style.css")),
    asset("/favicon.svg", SVG, include_bytes!("../../web/favicon.svg")),
];

/// The first path segments the client routes itself; a GET of any of them
/// answers `index.html`.
const CLIENT_ROUTES: &[&str] = &[
    "signin",
    "signup",
    "lobby",
    "my",
    "game",
    "rules",
    "settings",
    "ratings",
    "player",
    "tournaments",
    "tournament",
];

/// Strong ETags, computed once per process from the embedded bytes.
fn etags() -> &'static [HeaderValue] {
    static ETAGS: OnceLock<Vec<HeaderValue>> = OnceLock::new();
    ETAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|asset| {
                let digest = Sha256::digest(asset.body);
                let hex: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
                HeaderValue::from_str(&format!("\"{hex}\"")).unwrap_or(HeaderValue::from_static("\"0\""))
            })
            .collect()
    })
}

fn asset_for(path: &str) -> Option<usize> {
    if let Some(index) = ASSETS.iter().position(|a| a.path == path) {
        return Some(index);
    }
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    CLIENT_ROUTES.contains(&first).then_some(0)
}

fn serve(index: usize, headers: &HeaderMap, head_only: bool) -> Response {
    let asset = &ASSETS[index];
    let etag = etags()[index].clone();
    // Revalidate every time: the files change with every release and the
    // check is a cheap 304.
    let cache = HeaderValue::from_static("no-cache");
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|tag| tag.trim() == etag.to_str().unwrap_or("")));
    if matches {
        return (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache)],
        )
            .into_response();
    }
    let body = if head_only { &[][..] } else { asset.body };
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(asset.content_type)),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        ],
        body,
    )
        .into_response()
}

/// The application's fallback: the client's files and routes for GET and
/// HEAD outside `/api`, the JSON 404 for everything else.
pub async fn fallback(request: Request) -> Response {
    let path = request.uri().path();
    let method = request.method();
    if (method == Method::GET || method == Method::HEAD) && !path.starts_with("/api/") {
        if let Some(index) = asset_for(path) {
            return serve(index, request.headers(), method == Method::HEAD);
        }
    }
    Error::NotFound("no such route".to_owned()).into_response()
}
