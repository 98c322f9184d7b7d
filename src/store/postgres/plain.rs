//! PostgreSQL's writer for plain updates: a batch's updates that can be
//! written with one statement per table, the rows they add, and those
//! statements. The statements that add game and player events serve every
//! other change too, one change's events at a time: a statement per table,
//! not per event, and one announcement (the triggers announce each
//! statement's rows together).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::value::RawValue;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{Postgres, Transaction};

use crate::store::group_commit::Change;
use crate::store::{Event, GameUpdate, PlayerEvent, StoreError, StoreResult};

/// Splits a batch, by index, into the updates that can be written with one
/// statement per table (no seat taken, no rating changed, no conditional
/// tree written, the first update of its game in the batch, so its guard
/// sees the game as it was before the batch) and the rest (creations among
/// them), written one by one after them, in order.
pub fn split_plain(batch: &[Change]) -> (Vec<usize>, Vec<usize>) {
    let mut seen = HashSet::with_capacity(batch.len());
    let (mut plain, mut rest) = (Vec::with_capacity(batch.len()), Vec::new());
    for (i, change) in batch.iter().enumerate() {
        let is_plain = match change {
            Change::Update(update) => {
                let first = seen.insert(update.id);
                first
                    && update.sit.is_empty()
                    && update.ratings.is_empty()
                    && update.conditional.is_none()
                    && update.tournament.is_none()
            }
            Change::Create(_) | Change::Notify(..) | Change::Tournament(_) => false,
        };
        if is_plain {
            plain.push(i);
        } else {
            rest.push(i);
        }
    }
    (plain, rest)
}

/// The rows that plain updates add once their guards let them through,
/// for a backend to write with one statement per table.
pub struct PlainRows<'a> {
    pub events: Vec<GameEventRow<'a>>,
    pub player_events: PlayerEventRows<'a>,
}

impl<'a> PlainRows<'a> {
    pub fn of(through: &[&'a GameUpdate]) -> PlainRows<'a> {
        PlainRows {
            events: through
                .iter()
                .flat_map(|u| GameEventRow::numbered(u.id, u.expected_seq + 1, &u.events, u.now))
                .collect(),
            player_events: PlayerEventRows::of(
                through
                    .iter()
                    .map(|u| PlayerEventsOf {
                        game_id: Some(u.id),
                        now: u.now,
                        events: &u.player_events,
                    })
                    .collect(),
            ),
        }
    }
}

/// A row of `game_events`.
pub struct GameEventRow<'a> {
    pub game_id: i64,
    pub seq: i64,
    pub event: &'a Event,
    pub now: i64,
}

impl<'a> GameEventRow<'a> {
    /// A game's new events, numbered from `first_seq`.
    pub fn numbered(game_id: i64, first_seq: i64, events: &'a [Event], now: i64) -> impl Iterator<Item = Self> {
        (first_seq..).zip(events).map(move |(seq, event)| GameEventRow {
            game_id,
            seq,
            event,
            now,
        })
    }
}

/// The player events of one change: the game their payloads name (none
/// for a tournament's) and when they happened.
pub struct PlayerEventsOf<'a> {
    pub game_id: Option<i64>,
    pub now: i64,
    pub events: &'a [PlayerEvent],
}

/// The player events of one or many changes, to be numbered by their
/// players' counters.
pub struct PlayerEventRows<'a> {
    changes: Vec<PlayerEventsOf<'a>>,
    /// How many events each player's stream receives, by player id (in
    /// id order, the order their counters are moved).
    shares: BTreeMap<i64, i64>,
}

impl<'a> PlayerEventRows<'a> {
    pub fn of(changes: Vec<PlayerEventsOf<'a>>) -> PlayerEventRows<'a> {
        let mut shares = BTreeMap::new();
        for event in changes.iter().flat_map(|c| c.events) {
            *shares.entry(event.player_id).or_default() += 1;
        }
        PlayerEventRows { changes, shares }
    }

    /// The player events, numbered: `counters` holds each player's counter
    /// after it was moved by its share, so their events take the numbers
    /// just below it, in order. Each payload names its game.
    fn numbered(&self, counters: &HashMap<i64, i64>) -> StoreResult<Vec<NumberedPlayerEvent>> {
        let mut next: HashMap<i64, i64> = HashMap::with_capacity(self.shares.len());
        for (player, share) in &self.shares {
            let last = counters.get(player).ok_or(StoreError::NoSuchPlayer(*player))?;
            next.insert(*player, last - share + 1);
        }
        let mut numbered = Vec::new();
        for change in &self.changes {
            for event in change.events {
                let seq = next.get_mut(&event.player_id).ok_or(StoreError::Conflict)?;
                numbered.push(NumberedPlayerEvent {
                    player_id: event.player_id,
                    seq: *seq,
                    kind: event.kind,
                    payload: event
                        .stored_json(change.game_id)
                        .map_err(|error| StoreError::from(sqlx::Error::Encode(Box::new(error))))?,
                    created_at: change.now,
                });
                *seq += 1;
            }
        }
        Ok(numbered)
    }
}

/// A row of `player_events`.
struct NumberedPlayerEvent {
    player_id: i64,
    seq: i64,
    kind: &'static str,
    payload: Box<RawValue>,
    created_at: i64,
}

/// Writes plain updates (see [`split_plain`]) with one statement per table,
/// however many: the guarded update of the games first, then the rows of the
/// updates it let through. Returns the ids of the games updated. The rows
/// travel as arrays, so each statement's text is the same whatever the
/// batch's size, and it is parsed and planned once per connection.
pub async fn write(tx: &mut Transaction<'_, Postgres>, batch: &[&GameUpdate]) -> StoreResult<HashSet<i64>> {
    if batch.is_empty() {
        return Ok(HashSet::new());
    }
    let applied = update_games(tx, batch).await?;
    let through: Vec<&GameUpdate> = batch.iter().copied().filter(|u| applied.contains(&u.id)).collect();
    let rows = PlainRows::of(&through);
    insert_game_events(tx, &rows.events).await?;
    insert_player_events(tx, &rows.player_events).await?;
    Ok(applied)
}

/// The guarded update of every game of the batch; the ids it matched.
async fn update_games(tx: &mut Transaction<'_, Postgres>, batch: &[&GameUpdate]) -> StoreResult<HashSet<i64>> {
    let column = |f: fn(&GameUpdate) -> i64| batch.iter().map(|u| f(u)).collect::<Vec<i64>>();
    Ok(sqlx::query_scalar::<_, i64>(
        "UPDATE games SET status = v.status, ply = v.ply, to_move = v.to_move, outcome = v.outcome, \
         draw_offer = v.draw_offer, takeback_offer = v.takeback_offer, event_seq = v.event_seq, \
         updated_at = v.updated_at, clock = v.clock, deadline = v.deadline, reminder_at = v.reminder_at \
         FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::jsonb[], \
         $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::jsonb[], $12::bigint[], $13::bigint[], \
         $14::bigint[]) \
         AS v (id, expected, status, ply, to_move, outcome, draw_offer, takeback_offer, event_seq, updated_at, \
         clock, deadline, reminder_at, rev) \
         WHERE games.id = v.id AND games.event_seq = v.expected AND games.conditional_rev = v.rev \
         RETURNING games.id",
    )
    .bind(column(|u| u.id))
    .bind(column(|u| u.expected_seq))
    .bind(batch.iter().map(|u| u.status.as_str()).collect::<Vec<&str>>())
    .bind(column(|u| u.ply))
    .bind(
        batch
            .iter()
            .map(|u| u.to_move.map(i64::from))
            .collect::<Vec<Option<i64>>>(),
    )
    .bind(batch.iter().map(|u| u.outcome.clone()).collect::<Vec<Option<Value>>>())
    .bind(column(|u| u.draw_offer))
    .bind(column(|u| u.takeback_offer))
    .bind(column(|u| u.expected_seq + u.events.len() as i64))
    .bind(column(|u| u.now))
    .bind(batch.iter().map(|u| u.clock.clone()).collect::<Vec<Option<Value>>>())
    .bind(batch.iter().map(|u| u.deadline).collect::<Vec<Option<i64>>>())
    .bind(batch.iter().map(|u| u.reminder_at).collect::<Vec<Option<i64>>>())
    // A plain update writes no tree, so the version stays.
    .bind(column(|u| u.expected_rev))
    .fetch_all(&mut **tx)
    .await
    .map_err(StoreError::from_write)?
    .into_iter()
    .collect())
}

/// Adds game events with one statement, however many (none: no statement).
pub async fn insert_game_events(tx: &mut Transaction<'_, Postgres>, events: &[GameEventRow<'_>]) -> StoreResult<()> {
    if events.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "INSERT INTO game_events (game_id, seq, kind, payload, created_at) \
         SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::jsonb[], $5::bigint[])",
    )
    .bind(events.iter().map(|e| e.game_id).collect::<Vec<i64>>())
    .bind(events.iter().map(|e| e.seq).collect::<Vec<i64>>())
    .bind(events.iter().map(|e| e.event.kind).collect::<Vec<&str>>())
    .bind(
        events
            .iter()
            .map(|e| Json(&*e.event.payload))
            .collect::<Vec<Json<&RawValue>>>(),
    )
    .bind(events.iter().map(|e| e.now).collect::<Vec<i64>>())
    .execute(&mut **tx)
    .await
    .map_err(StoreError::from_write)?;
    Ok(())
}

/// Numbers players' events by their counters and adds them, with two
/// statements however many (none: no statement). [`StoreError::NoSuchPlayer`]
/// when an event's player has no counter.
pub async fn insert_player_events(tx: &mut Transaction<'_, Postgres>, rows: &PlayerEventRows<'_>) -> StoreResult<()> {
    if rows.shares.is_empty() {
        return Ok(());
    }
    // Each player's stream is numbered by its counter: one statement
    // moves every counter by its player's share.
    let counters: HashMap<i64, i64> = sqlx::query_as::<_, (i64, i64)>(
        "UPDATE player_streams SET event_seq = player_streams.event_seq + c.n \
         FROM UNNEST($1::bigint[], $2::bigint[]) AS c (id, n) WHERE player_streams.player_id = c.id \
         RETURNING player_streams.player_id, player_streams.event_seq",
    )
    .bind(rows.shares.keys().copied().collect::<Vec<i64>>())
    .bind(rows.shares.values().copied().collect::<Vec<i64>>())
    .fetch_all(&mut **tx)
    .await?
    .into_iter()
    .collect();
    let numbered = rows.numbered(&counters)?;
    sqlx::query(
        "INSERT INTO player_events (player_id, seq, kind, payload, created_at) \
         SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::jsonb[], $5::bigint[])",
    )
    .bind(numbered.iter().map(|e| e.player_id).collect::<Vec<i64>>())
    .bind(numbered.iter().map(|e| e.seq).collect::<Vec<i64>>())
    .bind(numbered.iter().map(|e| e.kind).collect::<Vec<&str>>())
    .bind(
        numbered
            .iter()
            .map(|e| Json(&*e.payload))
            .collect::<Vec<Json<&RawValue>>>(),
    )
    .bind(numbered.iter().map(|e| e.created_at).collect::<Vec<i64>>())
    .execute(&mut **tx)
    .await
    .map_err(StoreError::from_write)?;
    Ok(())
}
