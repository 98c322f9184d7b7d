//! A WebSocket client of the test server (tokio-tungstenite), as a
//! browser or a bot would use `GET /api/v1/ws`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{TestServer, PATIENCE};

pub struct Ws(pub WebSocketStream<MaybeTlsStream<TcpStream>>);

pub async fn connect(server: &TestServer, token: Option<&str>) -> Ws {
    let url = format!("{}/api/v1/ws", server.base.replacen("http", "ws", 1));
    let mut request = url.into_client_request().expect("a WebSocket request");
    if let Some(token) = token {
        request.headers_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().expect("a header value"),
        );
    }
    let (socket, _) = tokio_tungstenite::connect_async(request).await.expect("the upgrade");
    Ws(socket)
}

impl Ws {
    pub async fn send(&mut self, frame: Value) {
        self.send_text(frame.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.0.send(Message::text(text)).await.expect("a frame sent");
    }

    /// The next JSON frame (pings are answered by tungstenite meanwhile).
    pub async fn next(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.0.next())
                .await
                .expect("a frame in time")
                .expect("the socket is open")
                .expect("a frame");
            match message {
                Message::Text(text) => return serde_json::from_str(text.as_str()).expect("JSON"),
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }

    /// The next frame that is not a presence update.
    pub async fn next_skipping_presence(&mut self) -> Value {
        loop {
            let frame = self.next().await;
            if frame["type"] != "presence" {
                return frame;
            }
        }
    }

    /// Frames up to and including the answer (`ack` or `error`) to `id`.
    pub async fn until_answer(&mut self, id: &str) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let frame = self.next().await;
            if (frame["type"] == "ack" || frame["type"] == "error") && frame["id"] == id {
                return (before, frame);
            }
            before.push(frame);
        }
    }

    /// Subscribes to a game; returns the frames before the ack and the ack.
    pub async fn subscribe(&mut self, game: i64, since: Option<i64>) -> (Vec<Value>, Value) {
        let mut frame = json!({ "type": "subscribe", "game": game, "id": format!("sub{game}") });
        if let Some(since) = since {
            frame["since"] = json!(since);
        }
        self.send(frame).await;
        let (frames, answer) = self.until_answer(&format!("sub{game}")).await;
        assert_eq!(answer["type"], "ack", "{answer}");
        (frames, answer)
    }

    /// The next `event` frame of kind `kind`, skipping everything else.
    pub async fn event(&mut self, kind: &str) -> Value {
        loop {
            let frame = self.next().await;
            if frame["type"] == "event" && frame["kind"] == kind {
                return frame;
            }
        }
    }

    /// The `move` event of `ply`, skipping earlier ones (a player's socket
    /// also hears its own moves).
    pub async fn move_event(&mut self, ply: i64) -> Value {
        loop {
            let frame = self.event("move").await;
            if frame["data"]["ply"].as_i64() >= Some(ply) {
                return frame;
            }
        }
    }

    /// The next presence frame showing `online`, skipping repeats of others.
    pub async fn presence(&mut self, online: Value) -> Value {
        loop {
            let frame = self.next().await;
            if frame["type"] == "presence" && frame["online"] == online {
                return frame;
            }
        }
    }

    /// `true` when the server closed the socket within `within`.
    pub async fn closed_within(&mut self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, self.0.next()).await {
                Err(_) => return false,
                Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_)))) => return true,
                Ok(Some(Ok(_))) => continue,
            }
        }
    }
}

impl Ws {
    /// The code of the server's close frame, if it closes with one within
    /// [`PATIENCE`] (`None`: closed without one, or not closed).
    pub async fn close_code(&mut self) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            match tokio::time::timeout_at(deadline, self.0.next()).await {
                Ok(Some(Ok(Message::Close(frame)))) => return frame.map(|f| u16::from(f.code)),
                Err(_) | Ok(None | Some(Err(_))) => return None,
                Ok(Some(Ok(_))) => continue,
            }
        }
    }

    /// Closes the socket as a client does: a close frame, then the server's.
    pub async fn close(mut self) {
        self.0.close(None).await.expect("a close frame sent");
        assert!(self.closed_within(PATIENCE).await, "the server closed too");
    }
}
