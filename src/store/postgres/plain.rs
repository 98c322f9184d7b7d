//! PostgreSQL's writer for plain updates: a batch's updates that can be
//! written with one statement per table, and the rows they add.

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::store::group_commit::Change;
use crate::store::{Event, GameUpdate, NewMove, StoreError, StoreResult};

/// Splits a batch, by index, into the updates that can be written with one
/// statement per table (no seat taken, no move taken back, the first update
/// of its game in the batch, so its guard sees the game as it was before
/// the batch) and the rest (creations among them), written one by one
/// after them, in order.
pub fn split_plain(batch: &[Change]) -> (Vec<usize>, Vec<usize>) {
    let mut seen = std::collections::HashSet::with_capacity(batch.len());
    let (mut plain, mut rest) = (Vec::with_capacity(batch.len()), Vec::new());
    for (i, change) in batch.iter().enumerate() {
        let is_plain = match change {
            Change::Update(update) => {
                let first = seen.insert(update.id);
                first && update.sit.is_empty() && update.delete_move.is_none()
            }
            Change::Create(_) | Change::Notify(..) => false,
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
    pub moves: Vec<(&'a GameUpdate, &'a NewMove)>,
    /// `(update, seq, event)`, numbered after the update's `expected_seq`.
    pub events: Vec<(&'a GameUpdate, i64, &'a Event)>,
    /// How many events each player's stream receives, by player id (in
    /// id order, the order their counters are moved).
    pub shares: BTreeMap<i64, i64>,
}

impl<'a> PlainRows<'a> {
    pub fn of(through: &[&'a GameUpdate]) -> PlainRows<'a> {
        let mut shares = BTreeMap::new();
        for event in through.iter().flat_map(|u| &u.player_events) {
            *shares.entry(event.player_id).or_default() += 1;
        }
        PlainRows {
            moves: through
                .iter()
                .filter_map(|u| u.insert_move.as_ref().map(|m| (*u, m)))
                .collect(),
            events: through
                .iter()
                .flat_map(|u| (u.expected_seq + 1..).zip(&u.events).map(move |(seq, e)| (*u, seq, e)))
                .collect(),
            shares,
        }
    }

    /// The player events, numbered: `counters` holds each player's counter
    /// after it was moved by its share, so their events take the numbers
    /// just below it, in batch order. Each payload names its game.
    pub fn player_events(
        &self,
        through: &[&GameUpdate],
        counters: &HashMap<i64, i64>,
    ) -> StoreResult<Vec<NumberedPlayerEvent>> {
        let mut next: HashMap<i64, i64> = HashMap::with_capacity(self.shares.len());
        for (player, share) in &self.shares {
            let last = counters.get(player).ok_or(StoreError::Conflict)?;
            next.insert(*player, last - share + 1);
        }
        let mut numbered = Vec::new();
        for update in through {
            for event in &update.player_events {
                let seq = next.get_mut(&event.player_id).ok_or(StoreError::Conflict)?;
                numbered.push(NumberedPlayerEvent {
                    player_id: event.player_id,
                    seq: *seq,
                    kind: event.kind,
                    payload: event.payload_in(update.id),
                    created_at: update.now,
                });
                *seq += 1;
            }
        }
        Ok(numbered)
    }
}

/// A row of `player_events`.
pub struct NumberedPlayerEvent {
    pub player_id: i64,
    pub seq: i64,
    pub kind: &'static str,
    pub payload: Value,
    pub created_at: i64,
}
