//! The hub: in-process fan-out of committed changes to live subscribers.
//!
//! - One `broadcast` channel per game, created on the first subscribe and
//!   removed when its last subscriber leaves. Frames are serialised once per
//!   change and shared (the same bytes sent by every socket), whatever the
//!   number of subscribers.
//! - One channel per player, carrying only "your stream has grown to seq N":
//!   a subscriber then reads its new events from the store, so what it sends
//!   is always exactly the stored log, in order, with no gap.
//! - Presence: which seats of a game have a seated player with a socket
//!   subscribed to it, pushed on the game's channel whenever that changes.
//!
//! The hub is fed only after a transaction commits ([`crate::games::Games`]
//! calls [`Hub::publish_game`] and [`Hub::publish_players`]; the
//! [`super::relay`] what other processes committed, read back from the
//! log): nothing is ever announced that the database does not hold.

use crate::domain::Seat;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use crate::games::Committed;
use crate::store::EventRow;
use crate::views::outcome::read_as_stored;
use crate::views::{json_text, timestamp, EventView};

/// A frame on a game's channel, serialised once.
#[derive(Clone, Debug)]
pub struct GameFrame {
    /// The event's number; `None` for frames outside the log (presence).
    pub seq: Option<i64>,
    /// Shared: every subscriber's socket sends these same bytes, not a
    /// copy of its own.
    pub text: Utf8Bytes,
}

/// The `event` frame of a stored game event, exactly as the protocol sends
/// it: the one event shape (`EventView`), and the game's id as `game` too,
/// the name of the release before, for one release. A live frame (a
/// change just committed) also carries `committed_us`, when the commit was
/// confirmed (unix microseconds), so a client on the same machine can
/// measure commit-to-frame latency; frames replayed from the log do not:
/// their commit is long past.
#[derive(Serialize)]
struct EventFrame {
    r#type: &'static str,
    #[serde(flatten)]
    view: EventView,
    game: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    committed_us: Option<i64>,
}

impl EventFrame {
    fn of(game: i64, event: &EventRow, committed_us: Option<i64>) -> EventFrame {
        EventFrame {
            r#type: "event",
            view: EventView::of_game(game, event),
            game,
            committed_us,
        }
    }

    /// Printed straight from the view, no `Value` in between: a frame goes
    /// out for every event of every move (issue 26).
    fn text(&self) -> String {
        json_text(self)
    }
}

/// The live `event` frame of a change just committed, printed with its
/// payload's text as the service printed it: the same frame as
/// [`EventFrame`] of the entry read back (the payload's keys in the order
/// printed rather than sorted), without reading the payload into a
/// `Value` and printing it again, which was most of what a move's frame
/// cost to make (17.6k instructions, now 5.6k; issue 26). A payload the
/// views reword ([`read_as_stored`]) takes [`EventFrame`]'s way.
#[derive(Serialize)]
struct LiveEventFrame<'a> {
    r#type: &'static str,
    seq: i64,
    kind: &'static str,
    game_id: i64,
    data: &'a RawValue,
    at: String,
    at_ms: i64,
    game: i64,
    committed_us: i64,
}

fn live_event_frame_text(game: i64, committed: &Committed, committed_us: i64) -> String {
    let kind = committed.event.kind;
    if !read_as_stored(kind) {
        return EventFrame::of(game, &committed.to_row(), Some(committed_us)).text();
    }
    json_text(&LiveEventFrame {
        r#type: "event",
        seq: committed.seq,
        kind,
        game_id: game,
        data: &committed.event.payload,
        at: timestamp(committed.created_at),
        at_ms: committed.created_at,
        game,
        committed_us,
    })
}

/// The `event` frame of a stored game event (see [`EventFrame`]).
pub fn event_frame(game: i64, event: &EventRow) -> Value {
    serde_json::to_value(EventFrame::of(game, event, None)).unwrap_or(Value::Null)
}

/// The text of [`event_frame`].
pub fn event_frame_text(game: i64, event: &EventRow) -> String {
    EventFrame::of(game, event, None).text()
}

/// Unix time in microseconds.
fn now_us() -> i64 {
    let nanos = time::OffsetDateTime::now_utc().unix_timestamp_nanos();
    i64::try_from(nanos / 1_000).unwrap_or(i64::MAX)
}

struct Topic {
    sender: broadcast::Sender<GameFrame>,
    /// Connections per seat of seated players subscribed to the game.
    online: BTreeMap<Seat, usize>,
    /// The newest event sent on the channel, if any yet.
    published: Option<i64>,
}

/// Events a relay fetches for a game whose channel has published nothing
/// yet: its subscribers drop the ones their snapshots cover.
const RELAY_BACKFILL: i64 = 8;

pub struct Hub {
    capacity: usize,
    /// Set when the server shuts down: long-lived streams end then.
    closing: tokio::sync::watch::Sender<bool>,
    games: Mutex<HashMap<i64, Topic>>,
    players: Mutex<HashMap<i64, broadcast::Sender<()>>>,
    /// Authenticated sockets per player: who is connected (no mail to them).
    connected: Mutex<HashMap<i64, usize>>,
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The maps hold no invariant a panicking holder could break halfway.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn presence_frame(game: i64, online: &BTreeMap<Seat, usize>) -> GameFrame {
    let seats: Vec<Seat> = online.keys().copied().collect();
    GameFrame {
        seq: None,
        text: json_text(&json!({ "type": "presence", "game_id": game, "game": game, "online": seats })).into(),
    }
}

impl Hub {
    /// `capacity`: frames a game's channel keeps for a slow subscriber
    /// before that subscriber lags (and is resynchronised with a snapshot).
    pub fn new(capacity: usize) -> Hub {
        Hub {
            capacity: capacity.max(1),
            closing: tokio::sync::watch::channel(false).0,
            games: Mutex::new(HashMap::new()),
            players: Mutex::new(HashMap::new()),
            connected: Mutex::new(HashMap::new()),
        }
    }

    /// Counts an authenticated socket of `player` until the guard is dropped.
    pub fn connect(self: &Arc<Hub>, player: i64) -> Connected {
        *locked(&self.connected).entry(player).or_default() += 1;
        Connected {
            hub: self.clone(),
            player,
        }
    }

    /// Starts listening to a game. Subscribe before reading the game's state:
    /// a change committed meanwhile then arrives on the channel too, and the
    /// subscriber drops what its snapshot already covers (by `seq`).
    pub fn subscribe_game(self: &Arc<Hub>, game: i64) -> GameSubscription {
        let mut games = locked(&self.games);
        let topic = games.entry(game).or_insert_with(|| Topic {
            sender: broadcast::channel(self.capacity).0,
            online: BTreeMap::new(),
            published: None,
        });
        GameSubscription {
            receiver: Some(topic.sender.subscribe()),
            hub: self.clone(),
            game,
            seat: None,
        }
    }

    /// Seats whose players are connected to `game`.
    pub fn presence(&self, game: i64) -> Value {
        let games = locked(&self.games);
        let online: Vec<Seat> = games
            .get(&game)
            .map(|t| t.online.keys().copied().collect())
            .unwrap_or_default();
        json!({ "type": "presence", "game_id": game, "game": game, "online": online })
    }

    fn set_online(&self, game: i64, seat: Seat, joined: bool) {
        let mut games = locked(&self.games);
        let Some(topic) = games.get_mut(&game) else {
            return;
        };
        let changed = if joined {
            let count = topic.online.entry(seat).or_default();
            *count += 1;
            *count == 1
        } else {
            match topic.online.get_mut(&seat) {
                Some(count) if *count > 1 => {
                    *count -= 1;
                    false
                }
                Some(_) => {
                    topic.online.remove(&seat);
                    true
                }
                None => false,
            }
        };
        if changed {
            // No receiver left is fine: nobody to tell.
            let _ = topic.sender.send(presence_frame(game, &topic.online));
        }
    }

    fn leave_game(&self, game: i64) {
        let mut games = locked(&self.games);
        if games.get(&game).is_some_and(|t| t.sender.receiver_count() == 0) {
            games.remove(&game);
        }
    }

    /// Sends committed game events to the game's subscribers, if any. The
    /// service calls it right after the store confirmed the commit: that
    /// moment is the frames' `committed_us`.
    pub fn publish_game(&self, game: i64, events: &[Committed]) {
        let committed_us = now_us();
        self.publish(
            game,
            events,
            |event| event.seq,
            |event| live_event_frame_text(game, event, committed_us),
        );
    }

    /// Where a relay of `game` should read the log from so that its
    /// subscribers get everything up to `seq`: `None` when this process
    /// has no subscriber of the game or has published `seq` already.
    pub fn missing(&self, game: i64, seq: i64) -> Option<i64> {
        let games = locked(&self.games);
        match games.get(&game)?.published {
            Some(published) if published >= seq => None,
            Some(published) => Some(published),
            None => Some((seq - RELAY_BACKFILL).max(0)),
        }
    }

    /// Sends events another process committed, read back from the log,
    /// skipping those already sent (this process's own, announced too).
    pub fn publish_relayed(&self, game: i64, events: &[EventRow]) {
        self.publish(game, events, |event| event.seq, |event| event_frame_text(game, event));
    }

    /// Sends each event newer than the channel's newest, in order; an
    /// event's frame is made only when the game has subscribers here.
    fn publish<E>(&self, game: i64, events: &[E], seq_of: impl Fn(&E) -> i64, frame: impl Fn(&E) -> String) {
        let mut games = locked(&self.games);
        let Some(topic) = games.get_mut(&game) else {
            return;
        };
        for event in events {
            let seq = seq_of(event);
            if topic.published.is_some_and(|published| seq <= published) {
                continue;
            }
            topic.published = Some(seq);
            let _ = topic.sender.send(GameFrame {
                seq: Some(seq),
                text: frame(event).into(),
            });
        }
    }

    /// Tells the connections of these players that their streams have grown.
    pub fn publish_players(&self, players: impl IntoIterator<Item = i64>) {
        let channels = locked(&self.players);
        for player in players {
            if let Some(sender) = channels.get(&player) {
                let _ = sender.send(());
            }
        }
    }

    /// Starts listening for growth of a player's stream.
    pub fn subscribe_player(self: &Arc<Hub>, player: i64) -> PlayerSubscription {
        let mut channels = locked(&self.players);
        // One pending wake-up is as good as many: capacity 1 suffices.
        let sender = channels.entry(player).or_insert_with(|| broadcast::channel(1).0);
        PlayerSubscription {
            receiver: Some(sender.subscribe()),
            hub: self.clone(),
            player,
        }
    }

    fn leave_player(&self, player: i64) {
        let mut channels = locked(&self.players);
        if channels.get(&player).is_some_and(|s| s.receiver_count() == 0) {
            channels.remove(&player);
        }
    }

    /// Ends every live stream (sockets close with 1001, SSE streams end) so
    /// that a graceful shutdown does not wait for them forever.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Completes once [`Hub::close`] was called.
    pub fn closed(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut closing = self.closing.subscribe();
        async move {
            // An error means the hub is gone: closed as well.
            let _ = closing.wait_for(|closed| *closed).await;
        }
    }

    /// Games with a live channel (for tests and metrics).
    pub fn live_games(&self) -> usize {
        locked(&self.games).len()
    }
}

/// A player's authenticated socket, counted while it lives.
pub struct Connected {
    hub: Arc<Hub>,
    player: i64,
}

impl Drop for Connected {
    fn drop(&mut self) {
        let mut connected = locked(&self.hub.connected);
        if let Some(count) = connected.get_mut(&self.player) {
            *count -= 1;
            if *count == 0 {
                connected.remove(&self.player);
            }
        }
    }
}

impl crate::notify::Presence for Hub {
    fn is_connected(&self, player_id: i64) -> bool {
        locked(&self.connected).contains_key(&player_id)
    }
}

/// A subscription to a game; leaving (dropping it) removes the channel when
/// it was the last, and takes the seat offline.
pub struct GameSubscription {
    receiver: Option<broadcast::Receiver<GameFrame>>,
    hub: Arc<Hub>,
    game: i64,
    seat: Option<Seat>,
}

impl GameSubscription {
    pub fn game(&self) -> i64 {
        self.game
    }

    /// Marks the subscriber's seat online (once).
    pub fn set_seat(&mut self, seat: Seat) {
        if self.seat.is_none() {
            self.seat = Some(seat);
            self.hub.set_online(self.game, seat, true);
        }
    }

    pub async fn recv(&mut self) -> Result<GameFrame, broadcast::error::RecvError> {
        match self.receiver.as_mut() {
            Some(receiver) => receiver.recv().await,
            None => Err(broadcast::error::RecvError::Closed),
        }
    }
}

impl Drop for GameSubscription {
    fn drop(&mut self) {
        drop(self.receiver.take());
        if let Some(seat) = self.seat {
            self.hub.set_online(self.game, seat, false);
        }
        self.hub.leave_game(self.game);
    }
}

pub struct PlayerSubscription {
    receiver: Option<broadcast::Receiver<()>>,
    hub: Arc<Hub>,
    player: i64,
}

impl PlayerSubscription {
    /// Waits until the player's stream may have grown. A lag means the same
    /// thing here: read the store.
    pub async fn changed(&mut self) -> bool {
        match self.receiver.as_mut() {
            Some(receiver) => !matches!(receiver.recv().await, Err(broadcast::error::RecvError::Closed)),
            None => false,
        }
    }
}

impl Drop for PlayerSubscription {
    fn drop(&mut self) {
        drop(self.receiver.take());
        self.hub.leave_player(self.player);
    }
}

/// The games service announces what it committed through its own port.
impl crate::games::Publisher for Hub {
    fn game_changed(&self, game: i64, events: &[Committed]) {
        self.publish_game(game, events);
    }

    fn players_notified(&self, players: Vec<i64>) {
        self.publish_players(players);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notify::Presence;
    use crate::store::Event;

    #[test]
    fn a_player_is_connected_while_any_of_their_sockets_lives() {
        let hub = Arc::new(Hub::new(4));
        assert!(!hub.is_connected(7));
        let first = hub.connect(7);
        let second = hub.connect(7);
        assert!(hub.is_connected(7) && !hub.is_connected(8));
        drop(first);
        assert!(hub.is_connected(7));
        drop(second);
        assert!(!hub.is_connected(7));
    }

    #[tokio::test]
    async fn live_frames_carry_the_commit_time_and_logged_ones_do_not() {
        let hub = Arc::new(Hub::new(4));
        let mut subscription = hub.subscribe_game(3);
        let committed = Committed {
            seq: 1,
            event: Event::of("move", &json!({ "ply": 1 })),
            created_at: 1_764_460_800_123,
        };
        let event = committed.to_row();
        assert_eq!((event.kind.as_str(), &event.payload), ("move", &json!({ "ply": 1 })));
        let before = now_us();
        hub.publish_game(3, std::slice::from_ref(&committed));
        let frame = subscription.recv().await.expect("a frame");
        let frame: Value = serde_json::from_str(&frame.text).expect("JSON");
        let committed = frame["committed_us"].as_i64().expect("committed_us");
        assert!((before..=now_us()).contains(&committed), "{frame}");
        assert_eq!(frame["seq"], 1);
        assert!(event_frame(3, &event).get("committed_us").is_none());
        let text: Value = serde_json::from_str(&event_frame_text(3, &event)).unwrap();
        assert_eq!(text, event_frame(3, &event));
        assert_eq!(
            (&text["type"], &text["game"], &text["game_id"]),
            (&json!("event"), &json!(3), &json!(3))
        );
    }

    /// A live frame, printed from the payload's text, is the logged one
    /// (printed from the payload read back) and the commit time, whatever
    /// the payload: its keys in any order, strings that need escaping, an
    /// outcome the views reword.
    #[tokio::test]
    async fn a_live_frame_says_what_the_logged_one_does() {
        let stored = |kind, text: &str| Event {
            kind,
            payload: RawValue::from_string(text.to_owned()).expect("JSON"),
        };
        let events = [
            Event::of("move", &json!({ "ply": 1 })),
            stored(
                "move",
                r#"{"seat":1,"ply":2,"move":"e\u00e9\"\\x","at":[1,-2],"none":null}"#,
            ),
            stored("chat", r#"{"text":"ciao \n \u2603 ☃","room":"players","from":"anna"}"#),
            stored("joined", "{}"),
            Event::of("finished", &json!({ "winners": [1], "reason": "4 in a row" })),
            Event::of("finished", &json!({ "reason": "agreement" })),
        ];
        let hub = Arc::new(Hub::new(16));
        let mut subscription = hub.subscribe_game(3);
        for (seq, event) in (1..).zip(events) {
            let committed = Committed {
                seq,
                event,
                created_at: 1_764_460_800_123 + seq,
            };
            hub.publish_game(3, std::slice::from_ref(&committed));
            let frame = subscription.recv().await.expect("a frame");
            let mut live: Value = serde_json::from_str(&frame.text).expect("JSON");
            assert!(live["committed_us"].as_i64().is_some(), "{live}");
            live.as_object_mut().unwrap().remove("committed_us");
            assert_eq!(live, event_frame(3, &committed.to_row()), "{}", frame.text);
        }
    }

    /// What another process committed is relayed once, after what this
    /// process published itself, and only to games with subscribers.
    #[tokio::test]
    async fn relayed_events_go_out_once_and_in_order() {
        let hub = Arc::new(Hub::new(16));
        let committed: Vec<Committed> = (1..=4)
            .map(|seq| Committed {
                seq,
                event: Event::of("move", &json!({ "ply": seq })),
                created_at: 0,
            })
            .collect();
        let events: Vec<EventRow> = committed.iter().map(Committed::to_row).collect();
        assert_eq!(hub.missing(3, 2), None, "nobody here follows game 3");
        let mut subscription = hub.subscribe_game(3);
        assert_eq!(hub.missing(3, 20), Some(20 - RELAY_BACKFILL));
        hub.publish_game(3, &committed[..2]);
        assert_eq!(hub.missing(3, 2), None, "published here already");
        assert_eq!(hub.missing(3, 4), Some(2));
        hub.publish_relayed(3, &events);
        hub.publish_game(3, &committed[3..]);
        let mut seqs = Vec::new();
        while let Ok(Ok(frame)) = tokio::time::timeout(std::time::Duration::from_millis(50), subscription.recv()).await
        {
            seqs.push(frame.seq);
        }
        assert_eq!(seqs, [1, 2, 3, 4].map(Some));
    }
}
