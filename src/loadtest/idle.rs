//! Idle mode: many authenticated WebSocket connections that only answer
//! the server's pings, to measure what a connection costs the server.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use futures_util::{stream, StreamExt};
use tokio::sync::watch;

use super::client::{Api, RequestError};
use super::options::Options;
use super::report::IdleReport;
use super::ws::{self, Socket};
use super::LoadError;

/// Upgrades in flight at once.
const CONNECTING: usize = 64;
/// Players the connections authenticate as, round robin (a player may have
/// many sockets; registering 20,000 would measure password hashing).
const PLAYERS: usize = 10;

pub async fn run(api: &Api, options: &Options) -> Result<IdleReport, LoadError> {
    let target = api.target().clone();
    let sources = source_addresses(&target.address.ip(), options.sources)?;
    let prefix = super::players::run_prefix();
    let players = (options.connections as usize).min(PLAYERS);
    let mut tokens = Vec::with_capacity(players);
    for index in 0..players {
        let name = format!("{prefix}-idle-{index}");
        let token = api
            .register(&name, "loadtest password")
            .await
            .map_err(|error| LoadError::Setup {
                step: format!("registering {name}"),
                error,
            })?;
        tokens.push(token);
    }
    let before = api.process_figures().await;
    let (stop, stopped) = watch::channel(false);
    let started = Instant::now();
    let results: Vec<Result<tokio::task::JoinHandle<()>, RequestError>> = stream::iter(0..options.connections as usize)
        .map(|index| {
            let (target, token) = (&target, &tokens[index % tokens.len()]);
            let source = sources.get(index % sources.len()).copied().flatten();
            let stopped = stopped.clone();
            async move {
                let socket = ws::connect(target, token, source, options.timeout).await?;
                Ok(tokio::spawn(hold(socket, stopped)))
            }
        })
        .buffer_unordered(CONNECTING)
        .collect()
        .await;
    let connecting = started.elapsed();
    let mut held = Vec::new();
    let mut failed: BTreeMap<String, u64> = BTreeMap::new();
    for result in results {
        match result {
            Ok(task) => held.push(task),
            Err(error) => *failed.entry(error.kind()).or_default() += 1,
        }
    }
    tokio::time::sleep(options.hold).await;
    let open = held.iter().filter(|task| !task.is_finished()).count() as u64;
    let during = api.process_figures().await;
    let _ = stop.send(true);
    for task in held {
        let _ = task.await;
    }
    let bytes_per_connection = match (before.resident_memory_bytes, during.resident_memory_bytes) {
        (Some(before), Some(during)) if open > 0 => Some(during.saturating_sub(before) / open),
        _ => None,
    };
    Ok(IdleReport {
        url: target.base.to_string(),
        connections_requested: u64::from(options.connections),
        connections_open: open,
        failed,
        sources: u32::from(options.sources),
        connect_seconds: connecting.as_secs_f64(),
        hold_seconds: options.hold.as_secs_f64(),
        server_before: before,
        server_held: during,
        bytes_per_connection,
    })
}

/// 127.0.0.1 … 127.0.0.k for an IPv4 server; `None` (any) for IPv6, where
/// only one source makes sense.
fn source_addresses(server: &IpAddr, sources: u8) -> Result<Vec<Option<IpAddr>>, LoadError> {
    match server {
        IpAddr::V4(_) => Ok((1..=sources)
            .map(|k| Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, k))))
            .collect()),
        IpAddr::V6(_) if sources == 1 => Ok(vec![None]),
        IpAddr::V6(_) => Err(LoadError::Usage(
            "--sources above 1 needs an IPv4 loopback server (127.0.0.x)".to_owned(),
        )),
    }
}

/// Reads (and so answers pings: tungstenite queues the pong and sends it
/// with the next read or write) until told to stop or the server closes.
async fn hold(mut socket: Socket, mut stop: watch::Receiver<bool>) {
    loop {
        tokio::select! {
            frame = socket.next() => match frame {
                Some(Ok(_)) => {}
                _ => return,
            },
            // A change (or the sender gone) can only mean: stop.
            _ = stop.changed() => {
                let _ = tokio::time::timeout(Duration::from_secs(1), socket.close(None)).await;
                return;
            }
        }
    }
}
