//! One WebSocket connection (`GET /api/v1/ws`); the protocol is PROTOCOL.md.
//!
//! - The writer half runs in its own task: it owns the sink, drains a small
//!   bounded queue of outgoing frames, pings on an interval, and closes the
//!   socket when the peer has been silent longer than the idle timeout.
//! - The reader half runs in the connection's task and handles requests one
//!   at a time (a move is acknowledged only after the service committed it).
//! - Each game subscription is a forwarding task from the game's broadcast
//!   channel into the outgoing queue. A full queue (slow socket) makes the
//!   forwarder lag behind the channel; a lag, or any gap in the sequence, is
//!   answered with a fresh snapshot, never by skipping events.
//! - `select!` ends both halves together; dropping the connection aborts the
//!   forwarders, which leaves the games' channels (and takes presence down).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};
use tokio::task::AbortHandle;

use super::frames::{ack, ack_of, error_frame, parse, refuse, snapshot_frame, text, Refusal, Request, Return};
use super::hub::{event_frame, event_frame_text, GameSubscription};
use crate::config::RealtimeConfig;
use crate::games::{Games, MoveCommand, Room};
use crate::players::Players;
use crate::store::Player;
use crate::views::json_text;

/// Outgoing frames queued per connection; a subscriber that finds the queue
/// full waits, lags behind its game's channel and is then resynchronised.
const OUTGOING_QUEUE: usize = 32;
/// Games one connection may follow at once.
pub const MAX_SUBSCRIPTIONS: usize = 64;
/// Missed events replayed on `subscribe` with `since`; further behind, the
/// client gets a snapshot instead.
pub const MAX_REPLAY: i64 = 500;
/// Player events read from the store per query.
const PLAYER_PAGE: i64 = 100;

/// What every connection shares.
#[derive(Clone)]
pub struct Context {
    pub games: Arc<Games>,
    pub hub: Arc<super::Hub>,
    pub players: Arc<Players>,
    pub config: Arc<RealtimeConfig>,
}

/// Token bucket: `burst` messages at once, `rate` per second sustained.
struct RateLimit {
    tokens: f64,
    burst: f64,
    rate: f64,
    at: Instant,
}

impl RateLimit {
    fn new(rate: u32, burst: u32) -> RateLimit {
        let burst = f64::from(burst.max(1));
        RateLimit {
            tokens: burst,
            burst,
            rate: f64::from(rate.max(1)),
            at: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.rate).min(self.burst);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Aborts the tasks it holds when dropped (the connection ended).
#[derive(Default)]
struct Tasks(HashMap<i64, AbortHandle>);

impl Drop for Tasks {
    fn drop(&mut self) {
        for (_, task) in self.0.drain() {
            task.abort();
        }
    }
}

struct Connection {
    context: Context,
    player: Option<Player>,
    /// Keeps the authenticated player counted as connected.
    online: Option<super::hub::Connected>,
    out: mpsc::Sender<Message>,
    games: Tasks,
    /// The player's stream, under key 0.
    player_stream: Tasks,
    started: Instant,
    /// Milliseconds since `started` of the last frame from the peer.
    last_seen: Arc<AtomicU64>,
}

/// Serves one upgraded socket until either side ends it.
pub async fn serve(socket: WebSocket, context: Context, player: Option<Player>) {
    let (sink, stream) = socket.split();
    let (out, queue) = mpsc::channel(OUTGOING_QUEUE);
    let started = Instant::now();
    let last_seen = Arc::new(AtomicU64::new(0));
    let mut writer = tokio::spawn(write_half(
        sink,
        queue,
        context.config.clone(),
        started,
        last_seen.clone(),
        context.hub.closed(),
    ));
    let online = player.as_ref().map(|p| context.hub.connect(p.id));
    let mut connection = Connection {
        context,
        player,
        online,
        out,
        games: Tasks::default(),
        player_stream: Tasks::default(),
        started,
        last_seen,
    };
    tokio::select! {
        _ = &mut writer => {}
        closing = connection.read_half(stream) => {
            if closing {
                // The close frame is queued: the writer sends it and ends.
                let _ = tokio::time::timeout(Duration::from_secs(1), &mut writer).await;
            }
            writer.abort();
        }
    }
}

async fn write_half(
    mut sink: SplitSink<WebSocket, Message>,
    mut queue: mpsc::Receiver<Message>,
    config: Arc<RealtimeConfig>,
    started: Instant,
    last_seen: Arc<AtomicU64>,
    closed: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(closed);
    let idle_timeout = config.ws_idle_timeout_ms.max(1);
    let mut ping = tokio::time::interval(Duration::from_millis(config.ws_ping_interval_ms.max(1)));
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ping.tick().await;
    loop {
        tokio::select! {
            frame = queue.recv() => {
                let Some(frame) = frame else { break };
                if !write_queued(&mut sink, &mut queue, frame).await {
                    return;
                }
            }
            _ = &mut closed => {
                let close = CloseFrame { code: 1001, reason: "the server is shutting down".into() };
                let _ = tokio::time::timeout(Duration::from_secs(1), sink.send(Message::Close(Some(close)))).await;
                return;
            }
            _ = ping.tick() => {
                let silent = (started.elapsed().as_millis() as u64).saturating_sub(last_seen.load(Ordering::Relaxed));
                if silent > idle_timeout {
                    tracing::debug!(silent, "closing a silent WebSocket");
                    let close = CloseFrame { code: 1001, reason: "no answer to pings".into() };
                    // Bounded: a dead peer may not even take the close frame.
                    let _ = tokio::time::timeout(Duration::from_secs(1), sink.send(Message::Close(Some(close)))).await;
                    return;
                }
                if sink.send(Message::Ping(Default::default())).await.is_err() {
                    return;
                }
            }
        }
    }
    let _ = sink.close().await;
}

/// Frames written together at most, before the writer lets other tasks run.
const FRAMES_PER_WRITE: usize = 16;

/// Writes `first` and the frames queued behind it, flushed once; `false`
/// when the socket failed or a close frame went out.
///
/// A committed move wakes this task with its answer just as the game's
/// forwarders, woken by the same commit, are about to queue its event
/// frame: yielding first lets them run, so that the answer and the event go
/// out in one `send` instead of one each. A `send` over TCP is most of what
/// a frame costs the server (issue 26, BENCHMARKS.md).
async fn write_queued(
    sink: &mut SplitSink<WebSocket, Message>,
    queue: &mut mpsc::Receiver<Message>,
    first: Message,
) -> bool {
    tokio::task::yield_now().await;
    let mut frame = first;
    for _ in 1..FRAMES_PER_WRITE {
        if matches!(frame, Message::Close(_)) {
            break;
        }
        // Buffered by tungstenite up to the socket's write buffer size,
        // written out by the flush below (or sooner, past that size).
        if sink.feed(frame).await.is_err() {
            return false;
        }
        match queue.try_recv() {
            Ok(next) => frame = next,
            Err(_) => return sink.flush().await.is_ok(),
        }
    }
    // The last frame a write takes, or a close frame, flushed with those
    // fed before it.
    let last = matches!(frame, Message::Close(_));
    sink.send(frame).await.is_ok() && !last
}

/// Whether a read error is a message over the size the socket accepts.
fn too_large(error: &axum::Error) -> bool {
    use tokio_tungstenite::tungstenite::Error as WsError;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if matches!(error.downcast_ref::<WsError>(), Some(WsError::Capacity(_))) {
            return true;
        }
        source = error.source();
    }
    false
}

impl Connection {
    /// Reads the client's frames until it closes or fails; `true` when a
    /// close frame was queued for the writer to send.
    async fn read_half(&mut self, mut stream: SplitStream<WebSocket>) -> bool {
        let config = self.context.config.clone();
        let mut limit = RateLimit::new(config.ws_rate, config.ws_burst);
        while let Some(message) = stream.next().await {
            let message = match message {
                Ok(message) => message,
                Err(error) if too_large(&error) => {
                    // PROTOCOL.md: a message this large closes with 1009.
                    let reason = format!("a message is at most {} bytes", config.ws_max_message);
                    let close = CloseFrame {
                        code: 1009,
                        reason: reason.into(),
                    };
                    self.send(Message::Close(Some(close))).await;
                    return true;
                }
                Err(_) => return false,
            };
            self.last_seen
                .store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
            let text = match message {
                Message::Text(text) => text,
                Message::Binary(_) => {
                    self.send(error_frame(
                        &Value::Null,
                        refuse("bad_message", "send text frames of JSON"),
                    ))
                    .await;
                    continue;
                }
                Message::Close(_) => break,
                // Pongs and pings only prove the peer alive (tungstenite answers pings).
                Message::Ping(_) | Message::Pong(_) => continue,
            };
            if !limit.take() {
                let message = format!("at most {} messages per second", config.ws_rate);
                self.send(error_frame(&Value::Null, refuse("rate_limited", message)))
                    .await;
                continue;
            }
            if text.len() > config.ws_max_message {
                let message = format!("a message is at most {} bytes", config.ws_max_message);
                self.send(error_frame(&Value::Null, refuse("message_too_large", message)))
                    .await;
                continue;
            }
            let (id, request) = match parse(text.as_str()) {
                Ok(parsed) => parsed,
                Err((id, refusal)) => {
                    self.send(error_frame(&id, refusal)).await;
                    continue;
                }
            };
            let answer = match self.handle(&id, request).await {
                Ok(Some(answer)) => answer,
                Ok(None) => continue,
                Err(refusal) => error_frame(&id, refusal),
            };
            self.send(answer).await;
        }
        false
    }

    async fn send(&self, frame: Message) {
        // The writer is gone only when the connection is ending anyway.
        let _ = self.out.send(frame).await;
    }

    fn player(&self) -> Result<&Player, Refusal> {
        self.player.as_ref().ok_or_else(|| {
            refuse(
                "unauthorized",
                "authenticate first: send {\"type\":\"auth\",\"token\":…}",
            )
        })
    }

    /// Handles one request; `Ok(Some(frame))` is the answer to send.
    async fn handle(&mut self, id: &Value, request: Request) -> Result<Option<Message>, Refusal> {
        let games = self.context.games.clone();
        match request {
            Request::Auth { token } => {
                if self.player.is_some() {
                    return Err(refuse("already_authenticated", "this socket is already authenticated"));
                }
                let token = token.trim();
                let invalid = || refuse("unauthorized", "invalid token");
                if token.is_empty() || token.len() > 128 {
                    return Err(invalid());
                }
                let player = self.context.players.session(token).await?.ok_or_else(invalid)?.player;
                let result = json!({ "player": player.name });
                self.online = Some(self.context.hub.connect(player.id));
                self.player = Some(player);
                Ok(Some(ack(id, result)))
            }
            Request::Ping => Ok(Some(text(json_text(&json!({ "type": "pong", "id": id }))))),
            Request::Subscribe { game, since } => self.subscribe(id, game, since).await.map(Some),
            Request::Unsubscribe { game } => match self.games.0.remove(&game) {
                Some(task) => {
                    task.abort();
                    Ok(Some(ack(id, json!({ "game_id": game, "game": game }))))
                }
                None => Err(refuse(
                    "not_subscribed",
                    format!("this socket does not follow game {game}"),
                )),
            },
            Request::SubscribePlayer { since } => self.subscribe_player(id, since).await.map(Some),
            Request::Move {
                game,
                notation,
                ply,
                message,
                reply,
                legal,
            } => {
                let player = self.player()?;
                // Exactly the HTTP path: same checks, commit before the ack, same events.
                let command = MoveCommand { notation, ply, message };
                let answer = games
                    .play_as(player, game, command, Return::shape(reply, legal))
                    .await?;
                Ok(Some(ack_of(id, &answer)))
            }
            Request::Chat { game, text, room } => {
                let player = self.player()?;
                let event = games.chat(player, game, room.unwrap_or(Room::Players), &text).await?;
                Ok(Some(ack(id, event_frame(game, &event))))
            }
        }
    }

    /// Subscribes to a game: first the channel, then the state, so nothing
    /// committed in between is missed (duplicates are dropped by `seq`).
    async fn subscribe(&mut self, id: &Value, game: i64, since: Option<i64>) -> Result<Message, Refusal> {
        if self.games.0.contains_key(&game) {
            return Err(refuse(
                "already_subscribed",
                format!("this socket already follows game {game}"),
            ));
        }
        if self.games.0.len() >= MAX_SUBSCRIPTIONS {
            return Err(refuse(
                "too_many_subscriptions",
                format!("a socket follows at most {MAX_SUBSCRIPTIONS} games"),
            ));
        }
        let games = self.context.games.clone();
        let mut subscription = self.context.hub.subscribe_game(game);
        let state = games.state(self.player.as_ref(), game, None).await?;
        if let Some(seat) = state.your_seat {
            subscription.set_seat(seat);
        }
        let mut last_seq = state.seq;
        match since {
            // A client up to date with the state just read (a bot that
            // joined and follows the game from the join's answer) missed
            // nothing: the log is not read, and what comes next comes by
            // the channel, subscribed before the read.
            Some(since) if since == state.seq => {}
            Some(since) if (0..state.seq).contains(&since) && state.seq - since <= MAX_REPLAY => {
                let events = games.events(self.player.as_ref(), game, since, MAX_REPLAY).await?;
                last_seq = since;
                for event in &events {
                    self.send(text(event_frame_text(game, event))).await;
                    last_seq = event.seq;
                }
            }
            _ => self.send(snapshot_frame(game, &state)).await,
        }
        self.send(text(json_text(&self.context.hub.presence(game)))).await;
        let task = tokio::spawn(forward_game(
            subscription,
            last_seq,
            self.out.clone(),
            games,
            self.player.clone(),
        ));
        self.games.0.insert(game, task.abort_handle());
        Ok(ack(id, json!({ "game_id": game, "game": game, "seq": last_seq })))
    }

    async fn subscribe_player(&mut self, id: &Value, since: Option<i64>) -> Result<Message, Refusal> {
        let player = self.player()?.clone();
        if !self.player_stream.0.is_empty() {
            return Err(refuse("already_subscribed", "this socket already follows your events"));
        }
        let players = self.context.players.clone();
        let subscription = self.context.hub.subscribe_player(player.id);
        let current = players.last_event(player.id).await?;
        let since = since.unwrap_or(current).clamp(0, current);
        let task = tokio::spawn(forward_player(
            subscription,
            since,
            self.out.clone(),
            players,
            player.id,
        ));
        self.player_stream.0.insert(0, task.abort_handle());
        Ok(ack(id, json!({ "seq": current })))
    }
}

/// Forwards a game's live frames to the connection, in order; resynchronises
/// with a snapshot after a lag or a gap.
async fn forward_game(
    mut subscription: GameSubscription,
    mut last_seq: i64,
    out: mpsc::Sender<Message>,
    games: Arc<Games>,
    viewer: Option<Player>,
) {
    let game = subscription.game();
    loop {
        let frame = match subscription.recv().await {
            Ok(frame) => frame,
            Err(broadcast::error::RecvError::Closed) => return,
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(game, missed, "a subscriber lagged; sending a snapshot");
                if !resync(game, &mut last_seq, &out, &games, viewer.as_ref()).await {
                    return;
                }
                continue;
            }
        };
        if let Some(seq) = frame.seq {
            if seq <= last_seq {
                continue;
            }
            if seq != last_seq + 1 {
                // Written elsewhere (another process): the log has what we missed.
                if !resync(game, &mut last_seq, &out, &games, viewer.as_ref()).await {
                    return;
                }
                if seq <= last_seq {
                    continue;
                }
            }
            last_seq = seq;
        }
        if out.send(Message::Text(frame.text)).await.is_err() {
            return;
        }
    }
}

/// Sends a fresh snapshot; `false` when the connection is gone or the game
/// cannot be read any more.
async fn resync(
    game: i64,
    last_seq: &mut i64,
    out: &mpsc::Sender<Message>,
    games: &Games,
    viewer: Option<&Player>,
) -> bool {
    match games.state(viewer, game, None).await {
        Ok(state) => {
            *last_seq = state.seq;
            out.send(snapshot_frame(game, &state)).await.is_ok()
        }
        Err(error) => {
            let _ = out.send(error_frame(&Value::Null, Refusal::Game(error))).await;
            false
        }
    }
}

/// Sends the player's stored events after `last_seq`, then each new one as
/// it is committed.
async fn forward_player(
    mut subscription: super::hub::PlayerSubscription,
    mut last_seq: i64,
    out: mpsc::Sender<Message>,
    players: Arc<Players>,
    player: i64,
) {
    loop {
        let events = match players.events(player, last_seq, Some(PLAYER_PAGE)).await {
            Ok(events) => events,
            Err(error) => {
                tracing::error!(%error, "reading a player's events");
                let _ = out.send(error_frame(&Value::Null, Refusal::Player(error))).await;
                return;
            }
        };
        let full_page = events.len() as i64 == PLAYER_PAGE;
        for event in events {
            last_seq = event.seq;
            let frame = crate::views::EventView::of_player(&event).frame_text("player_event");
            if out.send(text(frame)).await.is_err() {
                return;
            }
        }
        if !full_page && !subscription.changed().await {
            return;
        }
    }
}
