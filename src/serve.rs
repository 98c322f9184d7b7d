//! The serve loop: accepts connections and serves the app on each with
//! hyper (HTTP/1.1, WebSocket upgrades), as `axum::serve` would, plus what a public server needs that
//! `axum::serve` cannot do: a deadline for a request's headers (a client
//! that never finishes them is cut off, `--header-read-timeout`), a cap on
//! the connections one address holds open, and each request tagged with
//! its peer's address (`ConnectInfo`, for the abuse limits).
//!
//! Promises: a graceful shutdown stops accepting, lets requests in flight
//! finish and closes idle connections; an accept error (out of file
//! descriptors) pauses accepting instead of ending the server.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tower::ServiceExt;

use crate::limits::Connections;
use crate::metrics::Metrics;

/// The loop's limits.
#[derive(Clone, Copy, Debug)]
pub struct ServeLimits {
    pub header_read_timeout: Duration,
    pub connections_per_address: u32,
}

/// Serves `app` on `listener` until `shutdown` completes, then shuts down
/// gracefully.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServeLimits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    // HTTP/1.1 only: telling HTTP/2 (cleartext, by prior knowledge) from
    // HTTP/1 means waiting for the first bytes, and a client that sends
    // none would wait there with no deadline. Browsers speak HTTP/2 only
    // over TLS, which a proxy in front terminates.
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    let connections = Connections::new(limits.connections_per_address);
    // Shutdown: `closing` tells every connection to finish; each holds a
    // clone of `open`, so `ended` yields `None` once all have.
    let (closing, closing_seen) = watch::channel(false);
    let (open, mut ended) = mpsc::channel::<()>(1);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(permit) = connections.admit(peer.ip()) else {
            metrics.count_limited("connections");
            tracing::info!(%peer, "connection refused: too many from this address");
            continue;
        };
        // Small frames (a WebSocket ack right after an event frame) must
        // not wait for the peer's delayed ACK: Nagle's algorithm off.
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!("cannot set TCP_NODELAY: {e}");
        }
        let app = app
            .clone()
            .map_request(move |mut request: Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
                request
            });
        let connection = builder
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app))
            .with_upgrades();
        let mut closing = closing_seen.clone();
        let open = open.clone();
        tokio::spawn(async move {
            tokio::pin!(connection);
            let asked_to_close = async move {
                // The guard `wait_for` yields must not live across an await.
                let _ = closing.wait_for(|closing| *closing).await.map(|_| ());
            };
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = asked_to_close => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(e) = ended {
                tracing::debug!(%peer, "connection ended: {e}");
            }
            drop((permit, open));
        });
    }
    drop(listener);
    let _ = closing.send(true);
    drop(open);
    let _ = ended.recv().await;
    Ok(())
}

/// An accept error: a connection that died before it was accepted is
/// nothing; anything else (out of file descriptors) is waited out, as
/// `axum::serve` does.
async fn accept_failed(error: io::Error) {
    use io::ErrorKind as K;
    if matches!(
        error.kind(),
        K::ConnectionRefused | K::ConnectionAborted | K::ConnectionReset
    ) {
        return;
    }
    tracing::error!("accept failed: {error}");
    tokio::time::sleep(Duration::from_secs(1)).await;
}
