// The load driver for the boardgame.io peer: keeps GAMES random Gravity
// games in flight, two players each, every player a boardgame.io client
// over socket.io (as the peer's own clients connect); when a game ends
// another starts. A move counts as acknowledged when its mover receives
// the state the server computed from it (the move runs on the server only).
// The first WARMUP seconds are played but left out of moves/s and latency,
// as `tavoliere loadtest` does. The server's CPU (utime + stime of PID from
// /proc/PID/stat) is read when play starts and when it ends, and divided by
// every acknowledged move, as the load generator does for Tavoliere.
// Prints one JSON object.
//
//   node driver.js URL GAMES DURATION_S WARMUP_S PID
'use strict';
const fs = require('fs');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Gravity } = require('./gravity');

const [url, games, duration, warmup, pid] = process.argv.slice(2);
const GAMES = Number(games);
const DURATION_MS = Number(duration) * 1000;
const WARMUP_MS = Number(warmup) * 1000;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function cpuSeconds() {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

async function post(path, body) {
  const answer = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
  return answer.json();
}

const totals = { acked: 0, measured: 0, started: 0, finished: 0, latencies: [], errors: 0 };
let start = 0;
let stopping = false;
// The games in flight, each with a check that ends it once the run is over
// and none of its players has a move in flight.
const active = new Set();

// One game from its creation to its end; resolves when it is over (or the
// run is), after both clients are stopped.
async function playOne() {
  const { matchID } = await post('/games/gravity/create', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const { playerCredentials } = await post(`/games/gravity/${matchID}/join`, {
      playerID,
      playerName: `p${playerID}`,
    });
    seats.push({ playerID, credentials: playerCredentials });
  }
  totals.started += 1;
  return new Promise((resolve) => {
    const clients = [];
    const inFlight = [null, null]; // per seat: { stateID, at } of its move
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      active.delete(check);
      for (const c of clients) c.stop();
      resolve();
    };
    const check = () => {
      if (stopping && !inFlight[0] && !inFlight[1]) finish();
    };
    active.add(check);
    for (const seat of seats) {
      const client = Client({
        game: Gravity,
        multiplayer: SocketIO({ server: url }),
        matchID,
        playerID: seat.playerID,
        credentials: seat.credentials,
        debug: false,
      });
      const seatIndex = Number(seat.playerID);
      client.subscribe((state) => {
        if (!state || done) return;
        const sent = inFlight[seatIndex];
        if (sent && state._stateID > sent.stateID) {
          const now = Date.now();
          totals.acked += 1;
          if (sent.at - start >= WARMUP_MS) {
            totals.measured += 1;
            totals.latencies.push(now - sent.at);
          }
          inFlight[seatIndex] = null;
        }
        if (state.ctx.gameover) {
          totals.finished += 1;
          finish();
          return;
        }
        if (stopping) {
          check();
          return;
        }
        if (inFlight[seatIndex] || state.ctx.currentPlayer !== seat.playerID) return;
        const free = [];
        state.G.cells.forEach((c, i) => c === null && free.push(i));
        inFlight[seatIndex] = { stateID: state._stateID, at: Date.now() };
        client.moves.play(free[Math.floor(Math.random() * free.length)]);
      });
      clients.push(client);
    }
    for (const c of clients) c.start();
  });
}

async function slot() {
  while (!stopping) {
    try {
      await playOne();
    } catch (e) {
      totals.errors += 1;
    }
  }
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] : null;
}

async function main() {
  const cpuBefore = cpuSeconds();
  start = Date.now();
  const slots = Array.from({ length: GAMES }, slot);
  setTimeout(() => {
    stopping = true;
    for (const check of [...active]) check();
  }, DURATION_MS);
  // A game in flight ends with its next answer once the run is over; the
  // slots are awaited with a grace of five seconds.
  await Promise.race([
    Promise.all(slots),
    new Promise((r) => setTimeout(r, DURATION_MS + 5000)),
  ]);
  const seconds = (Date.now() - start) / 1000;
  const cpu = cpuSeconds() - cpuBefore;
  const sorted = totals.latencies.sort((a, b) => a - b);
  console.log(JSON.stringify({
    moves_acked: totals.acked,
    moves_measured: totals.measured,
    moves_per_second: totals.measured / ((DURATION_MS - WARMUP_MS) / 1000),
    server_cpu_seconds: cpu,
    server_cpu_us_per_move: totals.acked ? (cpu * 1e6) / totals.acked : null,
    ack_p50_ms: percentile(sorted, 0.5),
    ack_p99_ms: percentile(sorted, 0.99),
    games_started: totals.started,
    games_finished: totals.finished,
    errors: totals.errors,
    seconds,
  }));
  process.exit(0);
}

main();
