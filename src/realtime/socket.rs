//! One WebSocket connection (`GET /api/v1/ws`); the protocol is PROTOCOL.md.
//!
//! - One task serves the connection: it reads the client's requests and
//!   handles them one at a time (a move is acknowledged only after the
//!   service committed it), takes the frames of the games it follows
//!   straight from their broadcast channels, pings on an interval, and
//!   closes the socket when the peer has been silent longer than the idle
//!   timeout. The player's own stream, which reads the store, is a task of
//!   its own feeding a small queue.
//! - What is ready to go out is written together and flushed once: a move's
//!   acknowledgement and its event frame (published before the service
//!   returns) leave in one `send`. No task hands a frame to another on the
//!   way, which is most of what a frame cost besides the `send` (issue 26).
//! - A socket that does not take its frames holds its connection back; its
//!   games' channels then run ahead of it, and a lag, or any gap in the
//!   sequence, is answered with a fresh snapshot, never by skipping events.
//! - Leaving a game, or the connection ending, drops its subscriptions,
//!   which leaves the games' channels (and takes presence down), and aborts
//!   the player's stream.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::{self, Stream};
use futures_util::{FutureExt, SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc};
use tokio::task::AbortHandle;

use super::frames::{ack, ack_of, error_frame, parse, refuse, snapshot_frame, text, Refusal, Request, Return};
use super::hub::{event_frame, event_frame_text, GameFrame, GameSubscription};
use crate::config::RealtimeConfig;
use crate::games::{Games, MoveCommand, Room};
use crate::players::Players;
use crate::store::Player;
use crate::views::json_text;

/// Frames of the player's own stream queued for the connection; its task
/// waits while the queue is full.
const OUTGOING_QUEUE: usize = 32;
/// Frames written together at most, before the connection reads again.
const FRAMES_PER_WRITE: usize = 16;
/// Games one connection may follow at once.
pub const MAX_SUBSCRIPTIONS: usize = 64;
/// Missed events replayed on `subscribe` with `since`; further behind, the
/// client gets a snapshot instead.
pub const MAX_REPLAY: i64 = 500;
/// Player events read from the store per query.
const PLAYER_PAGE: i64 = 100;
/// Longest wait for a close frame to go out: a dead peer may not take it.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);

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

/// The task of the player's own stream, if followed: aborted when the
/// connection ends.
#[derive(Default)]
struct PlayerStream(Option<AbortHandle>);

impl Drop for PlayerStream {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

/// A game's frames as they are published, the subscription inside.
type GameFrames = Pin<Box<dyn Stream<Item = Result<GameFrame, broadcast::error::RecvError>> + Send>>;

/// A game the connection follows.
struct Followed {
    game: i64,
    /// The newest event sent to the client.
    last_seq: i64,
    frames: GameFrames,
}

/// The games the connection follows, polled in turn from where the last
/// frame came, so that no game's frames wait behind another's.
#[derive(Default)]
struct Follows {
    games: Vec<Followed>,
    /// Where the next poll starts: after the game that had the last frame.
    start: usize,
}

impl Follows {
    fn position(&self, game: i64) -> Option<usize> {
        self.games.iter().position(|f| f.game == game)
    }

    fn follow(&mut self, subscription: GameSubscription, last_seq: i64) {
        let game = subscription.game();
        let frames = stream::unfold(subscription, |mut subscription| async move {
            let frame = subscription.recv().await;
            Some((frame, subscription))
        });
        self.games.push(Followed {
            game,
            last_seq,
            frames: Box::pin(frames),
        });
    }

    /// Stops following `game` (its subscription dropped); `false` when it
    /// was not followed.
    fn leave(&mut self, game: i64) -> bool {
        self.position(game).map(|index| self.games.swap_remove(index)).is_some()
    }

    /// The next frame of any followed game, with the game's index.
    fn next(&mut self) -> impl Future<Output = (usize, Result<GameFrame, broadcast::error::RecvError>)> + '_ {
        std::future::poll_fn(move |cx| {
            let count = self.games.len();
            for offset in 0..count {
                let index = (self.start + offset) % count;
                if let Poll::Ready(frame) = self.games[index].frames.poll_next_unpin(cx) {
                    self.start = index + 1;
                    let frame = frame.unwrap_or(Err(broadcast::error::RecvError::Closed));
                    return Poll::Ready((index, frame));
                }
            }
            Poll::Pending
        })
    }
}

/// What the connection does after a step.
enum Flow {
    /// Write what is ready and go on.
    Open,
    /// Write what is ready (a close frame last, or the answer to the
    /// peer's), and end.
    Close,
    /// End now: the socket failed.
    End,
}

struct Connection {
    context: Context,
    player: Option<Player>,
    /// Keeps the authenticated player counted as connected.
    online: Option<super::hub::Connected>,
    follows: Follows,
    player_stream: PlayerStream,
    /// Where the player's stream queues its frames.
    player_out: mpsc::Sender<Message>,
    /// Frames ready to write, in order.
    outgoing: Vec<Message>,
    /// When the peer last sent a frame.
    last_seen: Instant,
}

/// Serves one upgraded socket until either side ends it.
pub async fn serve(socket: WebSocket, context: Context, player: Option<Player>) {
    let (player_out, player_frames) = mpsc::channel(OUTGOING_QUEUE);
    let online = player.as_ref().map(|p| context.hub.connect(p.id));
    let mut connection = Connection {
        context,
        player,
        online,
        follows: Follows::default(),
        player_stream: PlayerStream::default(),
        player_out,
        outgoing: Vec::new(),
        last_seen: Instant::now(),
    };
    connection.run(socket, player_frames).await;
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

fn close_frame(code: u16, reason: impl Into<String>) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into().into(),
    }))
}

impl Connection {
    async fn run(&mut self, mut socket: WebSocket, mut player_frames: mpsc::Receiver<Message>) {
        let config = self.context.config.clone();
        let mut limit = RateLimit::new(config.ws_rate, config.ws_burst);
        let idle_timeout = Duration::from_millis(config.ws_idle_timeout_ms.max(1));
        let mut ping = tokio::time::interval(Duration::from_millis(config.ws_ping_interval_ms.max(1)));
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ping.tick().await;
        let closed = self.context.hub.closed();
        tokio::pin!(closed);
        loop {
            let flow = tokio::select! {
                message = socket.next() => match message {
                    Some(message) => self.read(message, &mut limit).await,
                    None => Flow::End,
                },
                (index, frame) = self.follows.next() => {
                    self.forward(index, frame).await;
                    Flow::Open
                }
                Some(frame) = player_frames.recv() => {
                    self.outgoing.push(frame);
                    Flow::Open
                }
                _ = &mut closed => {
                    self.outgoing.push(close_frame(1001, "the server is shutting down"));
                    Flow::Close
                }
                _ = ping.tick() => {
                    if self.last_seen.elapsed() > idle_timeout {
                        tracing::debug!(silent = ?self.last_seen.elapsed(), "closing a silent WebSocket");
                        self.outgoing.push(close_frame(1001, "no answer to pings"));
                        Flow::Close
                    } else {
                        self.outgoing.push(Message::Ping(Default::default()));
                        Flow::Open
                    }
                }
            };
            match flow {
                Flow::End => return,
                Flow::Close => {
                    let closing = async {
                        self.write(&mut socket).await;
                        // Sends what tungstenite queued itself: the answer
                        // to the peer's close frame.
                        let _ = socket.flush().await;
                    };
                    let _ = tokio::time::timeout(CLOSE_TIMEOUT, closing).await;
                    return;
                }
                Flow::Open => {
                    self.gather(&mut player_frames).await;
                    if !self.write(&mut socket).await {
                        return;
                    }
                }
            }
        }
    }

    /// Adds the frames that are ready now, without waiting for any: the
    /// event frame of a move just acknowledged goes out with the ack.
    async fn gather(&mut self, player_frames: &mut mpsc::Receiver<Message>) {
        while self.outgoing.len() < FRAMES_PER_WRITE {
            if let Some((index, frame)) = self.follows.next().now_or_never() {
                self.forward(index, frame).await;
            } else if let Ok(frame) = player_frames.try_recv() {
                self.outgoing.push(frame);
            } else {
                return;
            }
        }
    }

    /// Writes the ready frames, flushed once; `false` when the socket failed
    /// or a close frame went out.
    async fn write(&mut self, socket: &mut WebSocket) -> bool {
        if self.outgoing.is_empty() {
            return true;
        }
        for frame in self.outgoing.drain(..) {
            let closing = matches!(frame, Message::Close(_));
            // Buffered by tungstenite up to the socket's write buffer size,
            // written out by the flush below (or sooner, past that size).
            if socket.feed(frame).await.is_err() || closing {
                let _ = socket.flush().await;
                return false;
            }
        }
        socket.flush().await.is_ok()
    }

    /// Handles one frame from the client.
    async fn read(&mut self, message: Result<Message, axum::Error>, limit: &mut RateLimit) -> Flow {
        let config = self.context.config.clone();
        let message = match message {
            Ok(message) => message,
            Err(error) if too_large(&error) => {
                // PROTOCOL.md: a message this large closes with 1009.
                let reason = format!("a message is at most {} bytes", config.ws_max_message);
                self.outgoing.push(close_frame(1009, reason));
                return Flow::Close;
            }
            Err(_) => return Flow::End,
        };
        self.last_seen = Instant::now();
        let text = match message {
            Message::Text(text) => text,
            Message::Binary(_) => {
                self.send(error_frame(
                    &Value::Null,
                    refuse("bad_message", "send text frames of JSON"),
                ));
                return Flow::Open;
            }
            Message::Close(_) => return Flow::Close,
            // Pongs and pings only prove the peer alive (tungstenite answers pings).
            Message::Ping(_) | Message::Pong(_) => return Flow::Open,
        };
        if !limit.take() {
            let message = format!("at most {} messages per second", config.ws_rate);
            self.send(error_frame(&Value::Null, refuse("rate_limited", message)));
            return Flow::Open;
        }
        if text.len() > config.ws_max_message {
            let message = format!("a message is at most {} bytes", config.ws_max_message);
            self.send(error_frame(&Value::Null, refuse("message_too_large", message)));
            return Flow::Open;
        }
        let answer = match parse(text.as_str()) {
            Ok((id, request)) => match self.handle(&id, request).await {
                Ok(answer) => answer,
                Err(refusal) => error_frame(&id, refusal),
            },
            Err((id, refusal)) => error_frame(&id, refusal),
        };
        self.send(answer);
        Flow::Open
    }

    fn send(&mut self, frame: Message) {
        self.outgoing.push(frame);
    }

    fn player(&self) -> Result<&Player, Refusal> {
        self.player.as_ref().ok_or_else(|| {
            refuse(
                "unauthorized",
                "authenticate first: send {\"type\":\"auth\",\"token\":…}",
            )
        })
    }

    /// Handles one request; `Ok(frame)` is the answer to send.
    async fn handle(&mut self, id: &Value, request: Request) -> Result<Message, Refusal> {
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
                Ok(ack(id, result))
            }
            Request::Ping => Ok(text(json_text(&json!({ "type": "pong", "id": id })))),
            Request::Subscribe { game, since } => self.subscribe(id, game, since).await,
            Request::Unsubscribe { game } => {
                if self.follows.leave(game) {
                    Ok(ack(id, json!({ "game_id": game, "game": game })))
                } else {
                    Err(refuse(
                        "not_subscribed",
                        format!("this socket does not follow game {game}"),
                    ))
                }
            }
            Request::SubscribePlayer { since } => self.subscribe_player(id, since).await,
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
                Ok(ack_of(id, &answer))
            }
            Request::Chat { game, text, room } => {
                let player = self.player()?;
                let event = games.chat(player, game, room.unwrap_or(Room::Players), &text).await?;
                Ok(ack(id, event_frame(game, &event)))
            }
        }
    }

    /// Subscribes to a game: first the channel, then the state, so nothing
    /// committed in between is missed (duplicates are dropped by `seq`).
    async fn subscribe(&mut self, id: &Value, game: i64, since: Option<i64>) -> Result<Message, Refusal> {
        if self.follows.position(game).is_some() {
            return Err(refuse(
                "already_subscribed",
                format!("this socket already follows game {game}"),
            ));
        }
        if self.follows.games.len() >= MAX_SUBSCRIPTIONS {
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
                    self.send(text(event_frame_text(game, event)));
                    last_seq = event.seq;
                }
            }
            _ => self.send(snapshot_frame(game, &state)),
        }
        self.send(text(json_text(&self.context.hub.presence(game))));
        self.follows.follow(subscription, last_seq);
        Ok(ack(id, json!({ "game_id": game, "game": game, "seq": last_seq })))
    }

    async fn subscribe_player(&mut self, id: &Value, since: Option<i64>) -> Result<Message, Refusal> {
        let player = self.player()?.clone();
        if self.player_stream.0.is_some() {
            return Err(refuse("already_subscribed", "this socket already follows your events"));
        }
        let players = self.context.players.clone();
        let subscription = self.context.hub.subscribe_player(player.id);
        let current = players.last_event(player.id).await?;
        let since = since.unwrap_or(current).clamp(0, current);
        let task = tokio::spawn(forward_player(
            subscription,
            since,
            self.player_out.clone(),
            players,
            player.id,
        ));
        self.player_stream.0 = Some(task.abort_handle());
        Ok(ack(id, json!({ "seq": current })))
    }

    /// Queues a followed game's frame, in order: what the client has seen
    /// already is dropped, and a lag or a gap is answered with a snapshot.
    async fn forward(&mut self, index: usize, frame: Result<GameFrame, broadcast::error::RecvError>) {
        let followed = &self.follows.games[index];
        let game = followed.game;
        let frame = match frame {
            Ok(frame) => frame,
            Err(broadcast::error::RecvError::Closed) => {
                self.follows.games.swap_remove(index);
                return;
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(game, missed, "a subscriber lagged; sending a snapshot");
                self.resync(index).await;
                return;
            }
        };
        if let Some(seq) = frame.seq {
            if seq <= followed.last_seq {
                return;
            }
            if seq != followed.last_seq + 1 {
                // Written elsewhere (another process): the log has what we missed.
                if !self.resync(index).await || seq <= self.follows.games[index].last_seq {
                    return;
                }
            }
            self.follows.games[index].last_seq = seq;
        }
        self.send(Message::Text(frame.text));
    }

    /// Queues a fresh snapshot of a followed game; `false` when the game
    /// cannot be read any more (then the client is told and the game left).
    async fn resync(&mut self, index: usize) -> bool {
        let game = self.follows.games[index].game;
        match self.context.games.state(self.player.as_ref(), game, None).await {
            Ok(state) => {
                self.follows.games[index].last_seq = state.seq;
                self.send(snapshot_frame(game, &state));
                true
            }
            Err(error) => {
                self.send(error_frame(&Value::Null, Refusal::Game(error)));
                self.follows.games.swap_remove(index);
                false
            }
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
