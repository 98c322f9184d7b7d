//! The server as the generator sees it: its loopback address and its HTTP
//! API (players, games, moves, histories, `/metrics`).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use reqwest::{StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::options::Answer;
use super::LoadError;

/// Why one request to the server failed.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The server answered with an error (`{"error":{"code",…}}`); a 409
    /// carries the game's current state.
    #[error("HTTP {status} {code}: {message}")]
    Status {
        status: u16,
        code: String,
        message: String,
        game: Option<Box<GameView>>,
    },
    /// A WebSocket `error` frame answering the request.
    #[error("WebSocket error {code}: {message}")]
    Refused {
        code: String,
        message: String,
        game: Option<Box<GameView>>,
    },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("transport: {0}")]
    Transport(String),
    #[error("unexpected answer: {0}")]
    Decode(String),
}

impl RequestError {
    /// The key errors are counted under in the report.
    pub fn kind(&self) -> String {
        match self {
            RequestError::Status { status, code, .. } => format!("http {status} {code}"),
            RequestError::Refused { code, .. } => format!("ws {code}"),
            RequestError::Timeout(_) => "transport timeout".to_owned(),
            RequestError::Transport(_) => "transport error".to_owned(),
            RequestError::Decode(_) => "unexpected answer".to_owned(),
        }
    }

    /// The game's current state, when the refusal carries it (stale ply,
    /// game not active).
    pub fn game(&self) -> Option<&GameView> {
        match self {
            RequestError::Status { game, .. } | RequestError::Refused { game, .. } => game.as_deref(),
            _ => None,
        }
    }

    /// Whether the request may have been carried out without an answer
    /// reaching us (a move committed but never acknowledged).
    pub fn is_transport(&self) -> bool {
        matches!(self, RequestError::Timeout(_) | RequestError::Transport(_))
    }

    fn from_reqwest(error: reqwest::Error, timeout: Duration) -> RequestError {
        if error.is_timeout() {
            RequestError::Timeout(timeout)
        } else if error.is_decode() {
            RequestError::Decode(error.to_string())
        } else {
            RequestError::Transport(error.to_string())
        }
    }
}

/// What the generator reads of a game's state (`GET /games/{id}`, a move's
/// answer, a 409's `game`).
#[derive(Clone, Debug, Deserialize)]
pub struct GameView {
    pub id: i64,
    pub game: String,
    pub variant: String,
    pub status: String,
    pub ply: i64,
    pub to_move: Option<i64>,
    #[serde(default)]
    pub legal: Vec<String>,
    #[serde(default)]
    pub outcome: Option<Value>,
    /// The game's last event number: a socket subscribes from it.
    #[serde(default)]
    pub seq: i64,
    /// The last move played: after a move a conditional reply answered,
    /// the reply.
    #[serde(default)]
    pub last_move: Option<StoredMove>,
}

/// The answer to a move, over HTTP or in a WebSocket `ack`.
#[derive(Debug, Deserialize)]
pub struct MoveAnswer {
    pub created: bool,
    #[serde(rename = "move")]
    pub record: StoredMove,
    pub game: GameView,
}

/// A move's answer as it comes: the full one, or the lean one the
/// generator asks for (`Prefer: return=minimal`, `?legal=true`), which a
/// server that does not know the preference may not give.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum AnswerBody {
    Full(MoveAnswer),
    Lean(LeanAnswer),
}

/// The lean answer to a move.
#[derive(Debug, Deserialize)]
pub struct LeanAnswer {
    created: bool,
    #[serde(rename = "move")]
    record: StoredMove,
    status: String,
    ply: i64,
    to_move: Option<i64>,
    #[serde(default)]
    outcome: Option<Value>,
    #[serde(default)]
    last_move: Option<StoredMove>,
    #[serde(default)]
    legal: Vec<String>,
    #[serde(default)]
    seq: i64,
}

impl AnswerBody {
    /// The answer with the game after it, what a lean answer leaves out
    /// taken from the game `before` the move.
    pub fn into_answer(self, before: &GameView) -> MoveAnswer {
        match self {
            AnswerBody::Full(answer) => answer,
            AnswerBody::Lean(lean) => MoveAnswer {
                created: lean.created,
                record: lean.record,
                game: GameView {
                    id: before.id,
                    game: before.game.clone(),
                    variant: before.variant.clone(),
                    status: lean.status,
                    ply: lean.ply,
                    to_move: lean.to_move,
                    legal: lean.legal,
                    outcome: lean.outcome,
                    seq: lean.seq,
                    last_move: lean.last_move,
                },
            },
        }
    }
}

/// A move of a game's history.
#[derive(Clone, Debug, Deserialize)]
pub struct StoredMove {
    pub ply: i64,
    pub seat: i64,
    #[serde(rename = "move")]
    pub notation: String,
}

#[derive(Deserialize)]
struct History {
    moves: Vec<StoredMove>,
}

/// A game event (`GET /games/{id}/events`).
#[derive(Clone, Debug, Deserialize)]
pub struct GameEvent {
    pub seq: i64,
    pub kind: String,
    #[serde(default)]
    pub payload: Value,
}

#[derive(Deserialize)]
struct Events {
    events: Vec<GameEvent>,
}

/// Figures of the server process from `/metrics`.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct ProcessFigures {
    pub resident_memory_bytes: Option<u64>,
    pub open_fds: Option<u64>,
    /// User plus system CPU time since the server started.
    pub cpu_seconds: Option<f64>,
}

/// The server's URL after the loopback check, and the one address every
/// connection goes to.
#[derive(Clone, Debug)]
pub struct Target {
    pub base: Url,
    pub address: SocketAddr,
}

impl Target {
    /// Checks that `url` is `http://` and that its host resolves to loopback
    /// addresses only, before anything is sent.
    pub async fn resolve(url: &str) -> Result<Target, LoadError> {
        let base = Url::parse(url).map_err(|e| LoadError::BadUrl(format!("{url:?}: {e}")))?;
        if base.scheme() != "http" {
            return Err(LoadError::BadUrl(format!(
                "{url:?}: only http:// (the server speaks plain HTTP on loopback)"
            )));
        }
        let host = base
            .host_str()
            .ok_or_else(|| LoadError::BadUrl(format!("{url:?} has no host")))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = base.port_or_known_default().unwrap_or(80);
        let addresses: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| LoadError::Resolve {
                host: host.clone(),
                error: e.to_string(),
            })?
            .collect();
        let outside: Vec<IpAddr> = addresses
            .iter()
            .map(|a| a.ip().to_canonical())
            .filter(|ip| !ip.is_loopback())
            .collect();
        if addresses.is_empty() || !outside.is_empty() {
            return Err(LoadError::NotLoopback {
                host,
                addresses: outside.iter().map(ToString::to_string).collect(),
            });
        }
        Ok(Target {
            base,
            address: addresses[0],
        })
    }

    /// The WebSocket URL of the server.
    pub fn ws_url(&self) -> String {
        let mut url = self.base.clone();
        // http → ws cannot fail for an http URL.
        let _ = url.set_scheme("ws");
        url.set_path("/api/v1/ws");
        url.to_string()
    }
}

/// The HTTP API, every connection pinned to the checked loopback address.
#[derive(Clone)]
pub struct Api {
    client: reqwest::Client,
    target: Target,
    /// `…/api/v1/games/`, parsed once: a move's URL is built from it
    /// rather than parsed again at every move (the generator shares the
    /// server's cores).
    games: Url,
    timeout: Duration,
}

impl Api {
    pub fn new(target: Target, timeout: Duration) -> Result<Api, LoadError> {
        let mut builder = reqwest::Client::builder().timeout(timeout).no_proxy();
        if let Some(host) = target.base.host_str() {
            // Resolve the host to the address that passed the loopback
            // check, not again (a changed DNS answer cannot redirect us).
            builder = builder.resolve(host, target.address);
        }
        let client = builder
            .build()
            .map_err(|e| LoadError::BadUrl(format!("cannot build an HTTP client: {e}")))?;
        let games = Url::parse(&format!("{}/api/v1/games/", target.base.as_str().trim_end_matches('/')))
            .map_err(|e| LoadError::BadUrl(format!("{}: {e}", target.base)))?;
        Ok(Api {
            client,
            target,
            games,
            timeout,
        })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    fn url(&self, path: &str) -> String {
        let base = self.target.base.as_str().trim_end_matches('/');
        format!("{base}/api/v1{path}")
    }

    async fn send<T: DeserializeOwned>(&self, request: reqwest::RequestBuilder) -> Result<T, RequestError> {
        let (_, body) = self.exchange(request).await?;
        decode(&body)
    }

    /// Sends `request`: a success's body, and whether the server applied
    /// the preference for the lean answer; a refusal as its error.
    async fn exchange(&self, request: reqwest::RequestBuilder) -> Result<(bool, hyper::body::Bytes), RequestError> {
        let response = request
            .send()
            .await
            .map_err(|e| RequestError::from_reqwest(e, self.timeout))?;
        let status = response.status();
        let lean = response
            .headers()
            .get("preference-applied")
            .is_some_and(|applied| applied == RETURN_MINIMAL);
        let body = response
            .bytes()
            .await
            .map_err(|e| RequestError::from_reqwest(e, self.timeout))?;
        if status.is_success() {
            Ok((lean, body))
        } else {
            Err(refusal(status, &body))
        }
    }

    /// Registers a player; returns their token.
    pub async fn register(&self, name: &str, password: &str) -> Result<String, RequestError> {
        #[derive(Deserialize)]
        struct Registered {
            token: String,
        }
        let request = self
            .client
            .post(self.url("/players"))
            .json(&json!({ "name": name, "password": password }));
        Ok(self.send::<Registered>(request).await?.token)
    }

    /// Opens a public game of `choice` with the creator at seat 0 and
    /// `opponents` invited to the other seats, answered as `answer` asks.
    pub async fn create_game(
        &self,
        token: &str,
        game: &str,
        variant: &str,
        opponents: &[String],
        answer: Answer,
    ) -> Result<GameView, RequestError> {
        let request = answered_as(self.client.post(self.url("/games")), answer)
            .bearer_auth(token)
            .json(&json!({ "game": game, "variant": variant, "opponents": opponents }));
        self.send(request).await
    }

    pub async fn join(&self, token: &str, game: i64, answer: Answer) -> Result<GameView, RequestError> {
        self.act(token, game, "join", answer).await
    }

    /// Plays `notation` in the game `before`, answered as `answer` asks.
    pub async fn play(
        &self,
        token: &str,
        before: &GameView,
        notation: &str,
        answer: Answer,
    ) -> Result<MoveAnswer, RequestError> {
        #[derive(serde::Serialize)]
        struct Move<'a> {
            #[serde(rename = "move")]
            notation: &'a str,
            ply: i64,
        }
        let mut url = self.games.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().push(&before.id.to_string()).push("moves");
        }
        if answer.asks_legal() {
            url.set_query(Some(LEGAL_TOO));
        }
        let mut request = self.client.post(url).bearer_auth(token).json(&Move {
            notation,
            ply: before.ply,
        });
        if answer.is_lean() {
            request = request.header("prefer", RETURN_MINIMAL);
        }
        // A server that does not know the preference answers in full and
        // does not say it applied it.
        let body = match self.exchange(request).await? {
            (true, body) => AnswerBody::Lean(decode(&body)?),
            (false, body) => AnswerBody::Full(decode(&body)?),
        };
        Ok(body.into_answer(before))
    }

    /// Sets the player's conditional moves in `game`.
    pub async fn set_conditional(&self, token: &str, game: i64, lines: &[Vec<String>]) -> Result<Value, RequestError> {
        let request = self
            .client
            .put(self.url(&format!("/games/{game}/conditional")))
            .bearer_auth(token)
            .json(&json!({ "lines": lines }));
        self.send(request).await
    }

    pub async fn resign(&self, token: &str, game: i64, answer: Answer) -> Result<GameView, RequestError> {
        self.act(token, game, "resign", answer).await
    }

    /// A bodiless `POST /games/{game}/{action}` answered with the game, as
    /// `answer` asks.
    async fn act(&self, token: &str, game: i64, action: &str, answer: Answer) -> Result<GameView, RequestError> {
        let request =
            answered_as(self.client.post(self.url(&format!("/games/{game}/{action}"))), answer).bearer_auth(token);
        self.send(request).await
    }

    pub async fn state(&self, game: i64) -> Result<GameView, RequestError> {
        self.send(self.client.get(self.url(&format!("/games/{game}")))).await
    }

    pub async fn history(&self, game: i64) -> Result<Vec<StoredMove>, RequestError> {
        let history: History = self
            .send(self.client.get(self.url(&format!("/games/{game}/moves"))))
            .await?;
        Ok(history.moves)
    }

    /// The game's whole event log, page by page.
    pub async fn events(&self, game: i64) -> Result<Vec<GameEvent>, RequestError> {
        const PAGE: usize = 500;
        let mut all = Vec::new();
        loop {
            let after = all.last().map_or(0, |e: &GameEvent| e.seq);
            let url = self.url(&format!("/games/{game}/events?after={after}&limit={PAGE}"));
            let page: Events = self.send(self.client.get(url)).await?;
            let full = page.events.len() == PAGE;
            all.extend(page.events);
            if !full {
                return Ok(all);
            }
        }
    }

    /// The server's memory and open files, when its `/metrics` shows them.
    /// The server's database backend, as `/healthz` names it (`sqlite`,
    /// `postgres`); `None` when it does not answer.
    pub async fn backend(&self) -> Option<String> {
        #[derive(Deserialize)]
        struct Health {
            database: String,
        }
        let base = self.target.base.as_str().trim_end_matches('/');
        let response = self.client.get(format!("{base}/healthz")).send().await.ok()?;
        Some(response.json::<Health>().await.ok()?.database)
    }

    pub async fn process_figures(&self) -> ProcessFigures {
        let base = self.target.base.as_str().trim_end_matches('/');
        let text = match self.client.get(format!("{base}/metrics")).send().await {
            Ok(response) if response.status().is_success() => response.text().await.unwrap_or_default(),
            _ => String::new(),
        };
        ProcessFigures {
            resident_memory_bytes: metric(&text, "process_resident_memory_bytes").map(|n| n as u64),
            open_fds: metric(&text, "process_open_fds").map(|n| n as u64),
            cpu_seconds: metric(&text, "process_cpu_seconds_total"),
        }
    }
}

/// A success's body as `T`.
fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, RequestError> {
    serde_json::from_slice(body).map_err(|e| RequestError::Decode(e.to_string()))
}

/// `request` asking for the answer `answer` names: lean, with the legal
/// moves or not, or full (a server that does not know the preference
/// answers in full, which [`GameView`] reads too).
fn answered_as(request: reqwest::RequestBuilder, answer: Answer) -> reqwest::RequestBuilder {
    match answer {
        Answer::Lean => request.header("prefer", RETURN_MINIMAL).query(&[("legal", "true")]),
        Answer::Minimal => request.header("prefer", RETURN_MINIMAL),
        Answer::Full => request,
    }
}

/// The preference for the lean answer, as asked and as applied.
const RETURN_MINIMAL: &str = "return=minimal";

/// The query asking for the legal moves with a lean answer.
const LEGAL_TOO: &str = "legal=true";

/// The server's error body as a [`RequestError`].
fn refusal(status: StatusCode, body: &[u8]) -> RequestError {
    #[derive(Deserialize)]
    struct Detail {
        code: String,
        message: String,
    }
    #[derive(Deserialize)]
    struct Body {
        error: Detail,
        game: Option<Box<GameView>>,
    }
    match serde_json::from_slice::<Body>(body) {
        Ok(body) => RequestError::Status {
            status: status.as_u16(),
            code: body.error.code,
            message: body.error.message,
            game: body.game,
        },
        Err(_) => RequestError::Status {
            status: status.as_u16(),
            code: "no_error_body".to_owned(),
            message: String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned(),
            game: None,
        },
    }
}

/// The value of an unlabelled sample in Prometheus text format.
fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        .find_map(|value| value.trim().parse::<f64>().ok())
        .filter(|value| value.is_finite() && *value >= 0.0)
}

#[cfg(test)]
mod tests;
