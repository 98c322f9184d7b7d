//! Play mode: players register, open games and play random legal moves
//! (taken from each answer's `legal` list, or with `--answer minimal` from
//! the rules' list for the position the generator keeps) over HTTP or
//! WebSocket, keeping `--games` games in flight until `--duration` is over.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::alarm::Alarm;
use super::client::{Api, GameView, MoveAnswer, ProcessFigures, RequestError};
use super::conditional::{self, AckedTree, Forecast};
use super::host::{CpuTicks, HostCpu};
use super::options::{Answer, GameChoice, Options, Transport};
use super::pace::Pacer;
use super::players::{chunk, connect_slot, register, ws_locked, Mover, Player};
use super::position::{self, Known};
use super::report::PlayReport;
use super::stats::Samples;
use super::verify::{self, Acked, AckedMove, Verification};
use super::ws::Frames;
use super::LoadError;
use crate::rules::playout::Rng;

/// Pause after a transport error, so a server that is down is not hammered
/// in a tight loop.
const TRANSPORT_BACKOFF: Duration = Duration::from_millis(100);

/// What a slot plays next, and when.
pub(super) struct Chooser {
    pub(super) rng: Rng,
    pacer: Option<Pacer>,
}

struct Plan {
    choices: Vec<GameChoice>,
    deadline: Instant,
    max_plies: i64,
    /// The share of two-player games with conditional moves.
    conditional: f64,
    /// Each slot's interval between moves, with `--rate`.
    slot_interval: Option<Duration>,
    slot_count: usize,
    /// The answers asked for (`--answer`).
    answer: Answer,
    /// Whether the players' sockets subscribe to their games (ws without
    /// `--no-follow`).
    follow: bool,
    started: Instant,
    /// Moves due before this are the warm-up: played and verified, not
    /// measured.
    measured_from: Instant,
    alarm: Alarm,
}

/// What one slot (a game in flight, then the next) saw.
#[derive(Default)]
pub(super) struct SlotResult {
    acked: Vec<AckedMove>,
    pub(super) trees: Vec<AckedTree>,
    ack_latency: Samples,
    send_lag: Samples,
    /// Acknowledged moves due after the warm-up.
    measured_moves: u64,
    errors: BTreeMap<String, u64>,
    transport_errors: u64,
    retries_acked: u64,
    games: Vec<i64>,
    finished: u64,
    resigned: u64,
    frames: Frames,
    /// Subscriptions answered by a snapshot (those without `since`).
    subscriptions: u64,
}

impl SlotResult {
    pub(super) fn error(&mut self, error: &RequestError) {
        self.count_error(error.kind());
        if error.is_transport() {
            self.transport_errors += 1;
        }
    }

    pub(super) fn count_error(&mut self, kind: String) {
        *self.errors.entry(kind).or_default() += 1;
    }

    /// Counts the error, then backs off if it is the transport's.
    pub(super) async fn error_then_back_off(&mut self, error: &RequestError) {
        self.error(error);
        if error.is_transport() {
            tokio::time::sleep(TRANSPORT_BACKOFF).await;
        }
    }

    /// Counts an acknowledged move, with its latency when it is measured,
    /// and returns the game after it.
    fn acknowledged(&mut self, game: i64, answer: MoveAnswer, measured_latency: Option<Duration>) -> GameView {
        if let Some(latency) = measured_latency {
            self.ack_latency.record(latency);
            self.measured_moves += 1;
        }
        if !answer.created {
            self.retries_acked += 1;
        }
        // A conditional reply is committed, and acknowledged, with the move.
        if let Some(reply) = conditional::reply_of(&answer) {
            self.acked.push(AckedMove {
                game,
                ply: reply.ply,
                notation: reply.notation.clone(),
            });
        }
        self.acked.push(AckedMove {
            game,
            ply: answer.record.ply,
            notation: answer.record.notation,
        });
        answer.game
    }
}

/// The run's clock, and the server's and the machine's figures around the
/// moves.
struct Figures {
    backend: Option<String>,
    setup: Duration,
    elapsed: Duration,
    before: ProcessFigures,
    after: ProcessFigures,
    host_cpu: Option<HostCpu>,
}

pub async fn run(api: &Api, options: &Options) -> Result<PlayReport, LoadError> {
    if options.warmup >= options.duration {
        return Err(LoadError::Usage(format!(
            "--warmup ({:?}) must be shorter than --duration ({:?}); --warmup 0s measures from the first move",
            options.warmup, options.duration
        )));
    }
    if options.no_follow && options.transport != Transport::Ws {
        return Err(LoadError::Usage(
            "--no-follow is for --transport ws: over http nobody follows the games anyway".to_owned(),
        ));
    }
    let setup_started = Instant::now();
    let (players, movers) = set_up_slots(api, options).await?;
    let setup = setup_started.elapsed();
    // After the setup: registering hashes passwords, whose memory the
    // allocator may keep; the figures are about playing.
    let backend = api.backend().await;
    let before = api.process_figures().await;
    let host_before = CpuTicks::read();
    let started = Instant::now();
    let plan = Arc::new(Plan::new(options, started)?);
    let mut total = play_slots(api, plan, options.seed, players, movers).await?;
    let elapsed = started.elapsed();
    let after = api.process_figures().await;
    let host_cpu = host_before.zip(CpuTicks::read()).and_then(|(b, a)| b.until(a));
    let games: BTreeSet<i64> = total.games.iter().copied().collect();
    let acked = Acked {
        moves: std::mem::take(&mut total.acked),
        trees: std::mem::take(&mut total.trees),
    };
    if let Some(path) = &options.acked_out {
        verify::write_acked(path, &acked)?;
    }
    let verification = if options.no_verify {
        None
    } else {
        Some(verify::verify(api, &games, &acked, total.transport_errors == 0).await)
    };
    total.acked = acked.moves;
    let figures = Figures {
        backend,
        setup,
        elapsed,
        before,
        after,
        host_cpu,
    };
    Ok(report(api, options, total, games.len() as u64, figures, verification))
}

/// Registers the players (each slot has its own, as many as the largest
/// game chosen has seats) and gives each slot its mover.
async fn set_up_slots(api: &Api, options: &Options) -> Result<(Vec<Arc<Vec<Player>>>, Vec<Mover>), LoadError> {
    let seats = options.game_choices.iter().map(GameChoice::seats).max().unwrap_or(2);
    let slots = options.games as usize;
    let players = register(api, slots * seats).await?;
    let players: Vec<Arc<Vec<Player>>> = chunk(players, seats).into_iter().map(Arc::new).collect();
    let mut movers = Vec::with_capacity(slots);
    for slot in &players {
        movers.push(match options.transport {
            Transport::Http => Mover::Http,
            Transport::Ws => connect_slot(api, slot, options.timeout).await?,
        });
    }
    Ok((players, movers))
}

impl Plan {
    fn new(options: &Options, started: Instant) -> Result<Plan, LoadError> {
        let slots = options.games as usize;
        Ok(Plan {
            choices: options.game_choices.clone(),
            deadline: started + options.duration,
            max_plies: i64::from(options.max_plies),
            conditional: options.conditional,
            slot_interval: options.rate.map(|rate| Duration::from_secs_f64(slots as f64 / rate)),
            slot_count: slots,
            answer: options.answer,
            follow: options.follows_games(),
            started,
            measured_from: started + options.warmup,
            alarm: Alarm::start().map_err(LoadError::Pacing)?,
        })
    }
}

/// Plays every slot in a task of its own, and adds up what they saw.
async fn play_slots(
    api: &Api,
    plan: Arc<Plan>,
    seed: u64,
    players: Vec<Arc<Vec<Player>>>,
    movers: Vec<Mover>,
) -> Result<SlotResult, LoadError> {
    let mut tasks = Vec::with_capacity(plan.slot_count);
    for (index, (slot_players, mover)) in players.into_iter().zip(movers).enumerate() {
        let (api, plan) = (api.clone(), plan.clone());
        let rng = Rng::new(seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        tasks.push(tokio::spawn(play_slot(api, plan, index, slot_players, mover, rng)));
    }
    let mut total = SlotResult::default();
    for task in tasks {
        // A slot task only ends by returning; a panic would be a bug here.
        let result = task.await.map_err(|e| LoadError::Internal(e.to_string()))?;
        merge(&mut total, result);
    }
    Ok(total)
}

fn report(
    api: &Api,
    options: &Options,
    total: SlotResult,
    games_started: u64,
    figures: Figures,
    verification: Option<Verification>,
) -> PlayReport {
    let moves_acked = total.acked.len() as u64;
    let server_cpu_us_per_move = match (figures.before.cpu_seconds, figures.after.cpu_seconds) {
        (Some(b), Some(a)) if moves_acked > 0 => Some((a - b) * 1e6 / moves_acked as f64),
        _ => None,
    };
    let followed = options.follows_games();
    let mut errors = total.errors;
    for (kind, count) in total.frames.unsolicited {
        *errors.entry(format!("unanswered {kind}")).or_default() += count;
    }
    let measured_seconds = figures.elapsed.saturating_sub(options.warmup).as_secs_f64();
    PlayReport {
        url: api.target().base.to_string(),
        backend: figures.backend,
        transport: options.transport,
        answer: options.answer,
        followed,
        games_in_flight: options.games,
        game_choices: options.game_choices.clone(),
        rate_target: options.rate,
        setup_seconds: figures.setup.as_secs_f64(),
        seconds: figures.elapsed.as_secs_f64(),
        moves_acked,
        warmup_seconds: options.warmup.as_secs_f64(),
        moves_measured: total.measured_moves,
        moves_per_second: total.measured_moves as f64 / measured_seconds.max(1e-9),
        retries_acked: total.retries_acked,
        ack_latency: total.ack_latency.summary(),
        send_lag: total.send_lag.summary(),
        commit_to_frame: followed.then(|| total.frames.commit_to_frame.summary()).flatten(),
        send_to_frame: followed.then(|| total.frames.send_to_frame.summary()).flatten(),
        resyncs: total.frames.snapshots.saturating_sub(total.subscriptions),
        event_frames: total.frames.events,
        errors,
        games_started,
        games_finished: total.finished,
        games_resigned: total.resigned,
        server_before: figures.before,
        server_after: figures.after,
        server_cpu_us_per_move,
        host_cpu: figures.host_cpu,
        verification,
    }
}

fn merge(total: &mut SlotResult, slot: SlotResult) {
    total.acked.extend(slot.acked);
    total.trees.extend(slot.trees);
    total.ack_latency.merge(slot.ack_latency);
    total.send_lag.merge(slot.send_lag);
    total.measured_moves += slot.measured_moves;
    for (kind, count) in slot.errors {
        *total.errors.entry(kind).or_default() += count;
    }
    total.transport_errors += slot.transport_errors;
    total.retries_acked += slot.retries_acked;
    total.games.extend(slot.games);
    total.finished += slot.finished;
    total.resigned += slot.resigned;
    total.frames.commit_to_frame.merge(slot.frames.commit_to_frame);
    total.frames.send_to_frame.merge(slot.frames.send_to_frame);
    total.frames.snapshots += slot.frames.snapshots;
    total.frames.events += slot.frames.events;
    for (kind, count) in slot.frames.unsolicited {
        *total.frames.unsolicited.entry(kind).or_default() += count;
    }
    total.subscriptions += slot.subscriptions;
}

/// One game in flight after another until the deadline.
async fn play_slot(
    api: Api,
    plan: Arc<Plan>,
    slot: usize,
    players: Arc<Vec<Player>>,
    mut mover: Mover,
    rng: Rng,
) -> SlotResult {
    let mut result = SlotResult::default();
    let mut round = 0;
    let mut chooser = Chooser {
        rng,
        pacer: plan.slot_interval.map(|interval| Pacer {
            // Staggered: slot k's first move is due k intervals of the
            // whole rate after the start.
            next: plan.started + interval.mul_f64(slot as f64 / plan.slot_count as f64),
            interval,
        }),
    };
    while Instant::now() < plan.deadline {
        if chooser.pacer.as_ref().is_some_and(|pacer| pacer.next >= plan.deadline) {
            // No move of a new game would be due in time. Opening one anyway
            // made every slot open a game in the run's last interval, a
            // burst of writes that slowed the last moves.
            break;
        }
        let choice = plan.choices[(slot + round) % plan.choices.len()];
        round += 1;
        let seated = &players[..choice.seats()];
        let state = match open_game(&api, choice, seated, plan.answer).await {
            Ok(state) => state,
            Err(error) => {
                result.error(&error);
                tokio::time::sleep(TRANSPORT_BACKOFF).await;
                continue;
            }
        };
        let game = state.id;
        result.games.push(game);
        if let (Mover::Ws(sockets, _), true) = (&mut mover, plan.follow) {
            // A lean client holds the game from its answers and follows it
            // from there, as a bot would; a full one starts from a snapshot,
            // as the web client does.
            let since = plan.answer.is_lean().then_some(state.seq);
            for socket in sockets.iter_mut().take(seated.len()) {
                match socket.subscribe(game, since).await {
                    Ok(()) => result.subscriptions += u64::from(since.is_none()),
                    Err(error) => result.error(&error),
                }
            }
        }
        if let Some(pacer) = &mut chooser.pacer {
            pacer.restart();
        }
        play_game(&api, &plan, seated, &mut mover, &mut chooser, state, &mut result).await;
        if let (Mover::Ws(sockets, sent), true) = (&mut mover, plan.follow) {
            // A socket follows at most 64 games: leave finished ones.
            for socket in sockets.iter_mut().take(seated.len()) {
                if let Err(error) = socket.unsubscribe(game).await {
                    result.error(&error);
                }
            }
            ws_locked(sent).retain(|(g, _), _| *g != game);
        }
    }
    if let Mover::Ws(sockets, _) = mover {
        for socket in sockets {
            let frames = socket.finish().await;
            merge(
                &mut result,
                SlotResult {
                    frames,
                    ..SlotResult::default()
                },
            );
        }
    }
    result
}

/// Seat 0 opens the game inviting the others, who join: it starts. The
/// answers are the ones `answer` names.
async fn open_game(
    api: &Api,
    choice: GameChoice,
    players: &[Player],
    answer: Answer,
) -> Result<GameView, RequestError> {
    let opponents: Vec<String> = players[1..].iter().map(|p| p.name.clone()).collect();
    let mut state = api
        .create_game(
            &players[0].token,
            choice.game.slug,
            choice.variant.slug,
            &opponents,
            answer,
        )
        .await?;
    for player in &players[1..] {
        state = api.join(&player.token, state.id, answer).await?;
    }
    Ok(state)
}

/// Plays random legal moves until the game ends, reaches the ply limit
/// (then the player to move resigns) or the run's deadline.
async fn play_game(
    api: &Api,
    plan: &Plan,
    players: &[Player],
    mover: &mut Mover,
    chooser: &mut Chooser,
    mut state: GameView,
    result: &mut SlotResult,
) {
    let game = state.id;
    let mut forecast = Forecast::new(&state, plan.conditional, &mut chooser.rng);
    let mut known = None;
    if plan.answer == Answer::Minimal {
        known = Known::start(&mut state);
        if known.is_none() {
            result.count_error("a new game the rules do not start".to_owned());
            return;
        }
    }
    loop {
        let Some(seat) = seat_to_play(api, plan, players, &state, result).await else {
            return;
        };
        if let Some(forecast) = &mut forecast {
            forecast.leave_lines(api, players, &state, chooser, result).await;
        }
        let foreseen = forecast.as_ref().and_then(|f| f.pick(seat, &mut chooser.rng));
        let notation = foreseen.unwrap_or_else(|| state.legal[chooser.rng.below(state.legal.len())].clone());
        let Some(clock) = MoveClock::start(plan, chooser.pacer.as_mut(), &mut result.send_lag).await else {
            return;
        };
        if clock.measured && plan.follow {
            mover.time_frames_of(game, state.ply + 1);
        }
        let answer = send_move(api, players, mover, seat, &state, &notation, plan.answer).await;
        let latency = clock.scheduled.elapsed();
        if !answer
            .as_ref()
            .is_ok_and(|a| forecast.as_mut().is_none_or(|f| f.follow(a)))
        {
            // Lost track of the position: no more trees in this game.
            forecast = None;
        }
        let lost;
        (state, lost) = match answer {
            Ok(mut answer) => {
                let lost = known.as_mut().is_some_and(|known| !known.follow(&mut answer));
                (
                    result.acknowledged(game, answer, clock.measured.then_some(latency)),
                    lost,
                )
            }
            Err(error) => match state_after(api, game, &error, result).await {
                Some(current) => (current, true),
                None => return,
            },
        };
        if lost && !position::resync(api, &mut known, &mut state, result).await {
            return;
        }
    }
}

/// The seat to play the next move of the game; `None` when the slot is done
/// with it: over, out of time, resigned at the ply limit, or in a state no
/// move can be played from.
async fn seat_to_play(
    api: &Api,
    plan: &Plan,
    players: &[Player],
    state: &GameView,
    result: &mut SlotResult,
) -> Option<usize> {
    if state.status != "active" {
        if state.status == "finished" {
            result.finished += 1;
        }
        return None;
    }
    let Some(seat) = state
        .to_move
        .and_then(|s| usize::try_from(s).ok())
        .filter(|s| *s < players.len())
    else {
        result.count_error("active game without a seat to move".to_owned());
        return None;
    };
    if Instant::now() >= plan.deadline {
        return None;
    }
    if state.ply >= plan.max_plies {
        match api.resign(&players[seat].token, state.id, plan.answer).await {
            Ok(_) => result.resigned += 1,
            Err(error) => result.error(&error),
        }
        return None;
    }
    if state.legal.is_empty() {
        result.count_error("active game without legal moves".to_owned());
        return None;
    }
    Some(seat)
}

/// When a move is sent, for its latency.
struct MoveClock {
    /// Open loop: from when the move was due, so a stall counts in full.
    scheduled: Instant,
    /// Due after the warm-up.
    measured: bool,
}

impl MoveClock {
    /// Waits until the move is due (with `--rate`; else it is due now) and
    /// records how late it is sent; `None` when it would be due after the
    /// deadline.
    async fn start(plan: &Plan, pacer: Option<&mut Pacer>, send_lag: &mut Samples) -> Option<MoveClock> {
        let due = pacer.map(Pacer::ticket);
        if let Some(due) = due {
            if due >= plan.deadline {
                return None;
            }
            plan.alarm.until(due).await;
        }
        let sent = Instant::now();
        let scheduled = due.unwrap_or(sent);
        let measured = scheduled >= plan.measured_from;
        if measured {
            if let Some(due) = due {
                send_lag.record(sent.saturating_duration_since(due));
            }
        }
        Some(MoveClock { scheduled, measured })
    }
}

/// The game after a move that failed: the state the error carries, else
/// asked for; `None` when the server is unreachable (the slot leaves this
/// game).
async fn state_after(api: &Api, game: i64, error: &RequestError, result: &mut SlotResult) -> Option<GameView> {
    result.error_then_back_off(error).await;
    match error.game() {
        Some(current) => Some(current.clone()),
        None => match api.state(game).await {
            Ok(current) => Some(current),
            Err(error) => {
                result.error_then_back_off(&error).await;
                None
            }
        },
    }
}

async fn send_move(
    api: &Api,
    players: &[Player],
    mover: &mut Mover,
    seat: usize,
    before: &GameView,
    notation: &str,
    answer: Answer,
) -> Result<MoveAnswer, RequestError> {
    match mover {
        Mover::Http => api.play(&players[seat].token, before, notation, answer).await,
        Mover::Ws(sockets, _) => sockets[seat].play(before, notation, answer).await,
    }
}
