//! The generator's WebSocket client: one authenticated socket per player,
//! requests matched to their `ack`/`error` by `id`, and the opponents'
//! `event` frames timed as they arrive.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use super::client::{AnswerBody, GameView, MoveAnswer, RequestError, Target};
use super::options::Answer;
use super::stats::Samples;

pub type Socket = WebSocketStream<TcpStream>;

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Plain maps and counters: nothing a panicking holder leaves half-made.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Opens an authenticated WebSocket to the server's checked address, from
/// `source` when given (a second loopback address widens the port range).
pub async fn connect(
    target: &Target,
    token: &str,
    source: Option<IpAddr>,
    timeout: Duration,
) -> Result<Socket, RequestError> {
    let transport = |e: std::io::Error| RequestError::Transport(e.to_string());
    let socket = if target.address.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(transport)?;
    if let Some(source) = source {
        socket.bind(SocketAddr::new(source, 0)).map_err(transport)?;
    }
    let stream = tokio::time::timeout(timeout, socket.connect(target.address))
        .await
        .map_err(|_| RequestError::Timeout(timeout))?
        .map_err(transport)?;
    stream.set_nodelay(true).map_err(transport)?;
    let mut request = target
        .ws_url()
        .into_client_request()
        .map_err(|e| RequestError::Transport(e.to_string()))?;
    let bearer = format!("Bearer {token}")
        .parse()
        .map_err(|_| RequestError::Decode("a token that is not a header value".to_owned()))?;
    request.headers_mut().insert("authorization", bearer);
    // Small buffers: idle mode holds tens of thousands of these.
    let config = WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0);
    let (socket, _) = tokio::time::timeout(
        timeout,
        tokio_tungstenite::client_async_with_config(request, stream, Some(config)),
    )
    .await
    .map_err(|_| RequestError::Timeout(timeout))?
    .map_err(|e| match e {
        tokio_tungstenite::tungstenite::Error::Http(response) => RequestError::Status {
            status: response.status().as_u16(),
            code: "upgrade_refused".to_owned(),
            message: "the WebSocket upgrade was refused".to_owned(),
            game: None,
        },
        other => RequestError::Transport(other.to_string()),
    })?;
    Ok(socket)
}

/// Unix time in microseconds, the clock of the server's `committed_us`
/// (same machine).
fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// When each measured move of a game in flight was sent, by `(game, ply)`:
/// shared by the sockets of one game's players, so an opponent's frame can
/// be timed from the send.
pub type SentMoves = Arc<Mutex<HashMap<(i64, i64), Instant>>>;

/// What a socket's reader measured.
#[derive(Debug, Default)]
pub struct Frames {
    /// From `committed_us` to the receipt of an opponent's `move` frame.
    pub commit_to_frame: Samples,
    /// From the mover's send to the receipt of an opponent's `move` frame.
    pub send_to_frame: Samples,
    /// `snapshot` frames (one per subscribe without `since`; more mean the
    /// socket lagged).
    pub snapshots: u64,
    /// `event` frames of any kind.
    pub events: u64,
    /// `error` frames that answered no request, by code.
    pub unsolicited: BTreeMap<String, u64>,
}

type Reply = oneshot::Sender<Result<Value, RequestError>>;

#[derive(Default)]
struct Pending {
    waiting: BTreeMap<u64, Reply>,
    closed: bool,
}

/// One player's socket in play mode.
pub struct PlayerSocket {
    sink: SplitSink<Socket, Message>,
    pending: Arc<Mutex<Pending>>,
    frames: Arc<Mutex<Frames>>,
    next_id: u64,
    reader: JoinHandle<()>,
    timeout: Duration,
}

impl PlayerSocket {
    /// `seat`: where this player sits in every game of its slot (frames of
    /// its own moves are not timed).
    pub fn new(socket: Socket, seat: i64, sent: SentMoves, timeout: Duration) -> PlayerSocket {
        let (sink, stream) = socket.split();
        let pending = Arc::new(Mutex::new(Pending::default()));
        let frames = Arc::new(Mutex::new(Frames::default()));
        let reader = tokio::spawn(read(stream, seat, pending.clone(), frames.clone(), sent));
        PlayerSocket {
            sink,
            pending,
            frames,
            next_id: 0,
            reader,
            timeout,
        }
    }

    /// Sends `frame` with a fresh `id` and waits for its answer.
    async fn request(&mut self, mut frame: Value) -> Result<Value, RequestError> {
        self.next_id += 1;
        let id = self.next_id;
        frame["id"] = id.into();
        let (reply, answer) = oneshot::channel();
        {
            let mut pending = locked(&self.pending);
            if pending.closed {
                return Err(RequestError::Transport("the socket is closed".to_owned()));
            }
            pending.waiting.insert(id, reply);
        }
        let sent = tokio::time::timeout(self.timeout, self.sink.send(Message::text(frame.to_string()))).await;
        let failure = match sent {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(RequestError::Transport(e.to_string())),
            Err(_) => Some(RequestError::Timeout(self.timeout)),
        };
        if let Some(failure) = failure {
            locked(&self.pending).waiting.remove(&id);
            return Err(failure);
        }
        match tokio::time::timeout(self.timeout, answer).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(RequestError::Transport("the socket closed".to_owned())),
            Err(_) => {
                locked(&self.pending).waiting.remove(&id);
                Err(RequestError::Timeout(self.timeout))
            }
        }
    }

    /// Follows `game`: from its event `since` when given (the client holds
    /// the game as it was then, and no snapshot comes), else from a
    /// snapshot.
    pub async fn subscribe(&mut self, game: i64, since: Option<i64>) -> Result<(), RequestError> {
        let mut request = json!({ "type": "subscribe", "game": game });
        if let Some(since) = since {
            request["since"] = since.into();
        }
        self.request(request).await.map(drop)
    }

    pub async fn unsubscribe(&mut self, game: i64) -> Result<(), RequestError> {
        self.request(json!({ "type": "unsubscribe", "game": game }))
            .await
            .map(drop)
    }

    /// Plays `notation` in the game `before`, answered as `answer` asks.
    pub async fn play(
        &mut self,
        before: &GameView,
        notation: &str,
        answer: Answer,
    ) -> Result<MoveAnswer, RequestError> {
        let mut request = json!({ "type": "move", "game": before.id, "move": notation, "ply": before.ply });
        if answer.is_lean() {
            request["return"] = "minimal".into();
        }
        if answer.asks_legal() {
            request["legal"] = true.into();
        }
        let result = self.request(request).await?;
        let body: AnswerBody = serde_json::from_value(result).map_err(|e| RequestError::Decode(e.to_string()))?;
        Ok(body.into_answer(before))
    }

    /// Closes the socket and hands back what its reader measured.
    pub async fn finish(mut self) -> Frames {
        let _ = tokio::time::timeout(self.timeout, self.sink.close()).await;
        // The reader ends when the server closes in turn; don't wait long.
        if tokio::time::timeout(Duration::from_secs(1), &mut self.reader)
            .await
            .is_err()
        {
            self.reader.abort();
        }
        std::mem::take(&mut *locked(&self.frames))
    }
}

/// Routes answers to their requests and times the opponents' move frames.
async fn read(
    mut stream: SplitStream<Socket>,
    seat: i64,
    pending: Arc<Mutex<Pending>>,
    frames: Arc<Mutex<Frames>>,
    sent: SentMoves,
) {
    while let Some(Ok(message)) = stream.next().await {
        let Message::Text(text) = message else {
            // tungstenite answers pings itself.
            continue;
        };
        let Ok(frame) = serde_json::from_str::<Value>(text.as_str()) else {
            *locked(&frames).unsolicited.entry("not JSON".to_owned()).or_default() += 1;
            continue;
        };
        match frame["type"].as_str() {
            Some("ack") => answer(&pending, &frames, &frame, Ok(frame["result"].clone())),
            Some("error") => {
                let code = frame["code"].as_str().unwrap_or("?").to_owned();
                let refusal = RequestError::Refused {
                    message: frame["message"].as_str().unwrap_or_default().to_owned(),
                    game: serde_json::from_value::<GameView>(frame["game"].clone())
                        .ok()
                        .map(Box::new),
                    code,
                };
                answer(&pending, &frames, &frame, Err(refusal));
            }
            Some("event") if frame["kind"] == "move" && frame["data"]["seat"].as_i64() != Some(seat) => {
                let received = now_us();
                locked(&frames).events += 1;
                let key = (
                    frame["game"].as_i64().unwrap_or(0),
                    frame["data"]["ply"].as_i64().unwrap_or(0),
                );
                // Only the measured moves (after the warm-up) are listed.
                let Some(send_to_frame) = locked(&sent).get(&key).map(Instant::elapsed) else {
                    continue;
                };
                let mut frames = locked(&frames);
                frames.send_to_frame.record(send_to_frame);
                if let Some(committed) = frame["committed_us"].as_i64() {
                    frames
                        .commit_to_frame
                        .record_us(u64::try_from(received - committed).unwrap_or(0));
                }
            }
            Some("snapshot") => locked(&frames).snapshots += 1,
            Some("event") => locked(&frames).events += 1,
            _ => {}
        }
    }
    let mut pending = locked(&pending);
    pending.closed = true;
    for (_, reply) in std::mem::take(&mut pending.waiting) {
        let _ = reply.send(Err(RequestError::Transport("the socket closed".to_owned())));
    }
}

/// Hands an answer to the request it names. The server answers some
/// refusals (rate limit, oversized message) with `"id": null`; it handles a
/// socket's messages in order, so such an answer belongs to the oldest
/// request waiting.
fn answer(pending: &Mutex<Pending>, frames: &Mutex<Frames>, frame: &Value, result: Result<Value, RequestError>) {
    let mut pending = locked(pending);
    let reply = match frame["id"].as_u64() {
        Some(id) => pending.waiting.remove(&id),
        None => pending.waiting.pop_first().map(|(_, reply)| reply),
    };
    match reply {
        Some(reply) => {
            let _ = reply.send(result);
        }
        None => {
            let kind = match &result {
                Err(error) => error.kind(),
                Ok(_) => "ws ack nobody waited for".to_owned(),
            };
            *locked(frames).unsolicited.entry(kind).or_default() += 1;
        }
    }
}
