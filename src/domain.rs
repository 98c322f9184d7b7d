//! The vocabulary every layer speaks about games: a [`Seat`] at the table,
//! a game's [`GameStatus`], a player's [`name_key`], time as Unix
//! milliseconds ([`now`], the one place the services read the wall clock),
//! and the schemas of the catalogue's slugs ([`game_slug`], [`variant_slug`])
//! that the service's and the doors' OpenAPI types declare alike.
//! The store reads and writes them, the service decides with them, the doors
//! render them; none of them is a bare integer or a string literal outside
//! (de)serialisation.
//!
//! Promises: a `Seat` is always a seat number a game can have (0 to 7, as
//! the rules count them); a `GameStatus` round-trips through its stored and
//! wire spelling (`open`, `active`, `finished`, `aborted`). A `Seat` is an
//! sqlx column type on every backend (a `BIGINT`), and a stored number that
//! is no seat fails to decode; a stored status decodes through
//! `TryFrom<String>`, and fails likewise. An [`InviteCode`] is 128 random
//! bits in 32 lowercase hex digits, and nothing else parses as one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use utoipa::openapi::Object;
use utoipa::ToSchema;

use crate::rules;
use crate::rules::catalogue::GAMES;

/// The schema of a game's slug: one of the catalogue's.
pub fn game_slug() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::new(Type::String))
        .description(Some("a game of the catalogue (`GET /api/v1/rules`)"))
        .enum_values(Some(GAMES.iter().map(|g| g.slug)))
        .build()
}

/// The schema of a variant's slug: one of any game's (which game has which
/// is in `GET /api/v1/rules`; a variant of another game is refused, 422 or
/// 404 as the operation says).
pub fn variant_slug() -> Object {
    let mut slugs: Vec<&str> = GAMES.iter().flat_map(|g| g.variants.iter().map(|v| v.slug)).collect();
    slugs.sort_unstable();
    slugs.dedup();
    ObjectBuilder::new()
        .schema_type(SchemaType::new(Type::String))
        .description(Some("a variant of the game (`GET /api/v1/rules`)"))
        .enum_values(Some(slugs))
        .build()
}

/// [`variant_slug`], or `null` (the game's first variant).
pub fn optional_variant_slug() -> Object {
    let mut schema = variant_slug();
    schema.schema_type = SchemaType::from_iter([Type::String, Type::Null]);
    if let Some(values) = &mut schema.enum_values {
        values.push(serde_json::Value::Null);
    }
    schema
}

/// Unix time in milliseconds: what every deadline, event and stored row is
/// measured in.
pub fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() as i64 / 1_000_000
}

/// What makes a player's name unique: the name regardless of case. The
/// store keys players by it; every lookup by name goes through it.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// A seat at the table, numbered from 0 in turn order; seat 0 moves first.
/// Stored as an integer column and sent as a JSON number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema)]
#[serde(transparent)]
pub struct Seat(rules::Seat);

/// The most seats any game has (the rules keep seat sets in a byte).
pub const MAX_SEATS: u8 = 8;

impl Seat {
    pub const FIRST: Seat = Seat(0);

    /// The seat numbered `n`, if a game can have it.
    pub fn new(n: u8) -> Option<Seat> {
        (n < MAX_SEATS).then_some(Seat(n))
    }

    /// The seat as the rules number it.
    pub fn rules(self) -> rules::Seat {
        self.0
    }

    /// The seat as an index into per-seat lists (clocks, colours).
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// This seat's bit in a set of seats (offers).
    pub fn bit(self) -> i64 {
        1 << self.0
    }

    /// Every seat of a table of `count`, in turn order.
    pub fn all(count: usize) -> impl Iterator<Item = Seat> {
        (0..count.min(usize::from(MAX_SEATS)) as u8).map(Seat)
    }
}

impl From<rules::Seat> for Seat {
    /// The rules only ever name seats of their own table.
    fn from(seat: rules::Seat) -> Seat {
        Seat(seat.min(MAX_SEATS - 1))
    }
}

impl From<Seat> for i64 {
    fn from(seat: Seat) -> i64 {
        i64::from(seat.0)
    }
}

/// A stored or sent number that is no seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a seat number (0 to 7)")]
pub struct BadSeat(pub i64);

impl TryFrom<i64> for Seat {
    type Error = BadSeat;

    fn try_from(n: i64) -> Result<Seat, BadSeat> {
        u8::try_from(n).ok().and_then(Seat::new).ok_or(BadSeat(n))
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The seats of a set kept as a bit mask (pending draw and takeback offers).
pub fn seats_in(mask: i64, count: usize) -> Vec<Seat> {
    Seat::all(count).filter(|s| mask & s.bit() != 0).collect()
}

/// Every seat of a table of `count`, as a bit mask.
pub fn all_seats_mask(count: usize) -> i64 {
    Seat::all(count).fold(0, |mask, s| mask | s.bit())
}

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Waiting for seats to fill.
    Open,
    /// Every seat taken; moves are played.
    Active,
    /// Over, with an outcome.
    Finished,
    /// Ended before it really began: aborted, or an invitation declined.
    Aborted,
}

impl GameStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Open => "open",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
            GameStatus::Aborted => "aborted",
        }
    }

    /// Whether the game is over (finished or aborted).
    pub fn is_over(self) -> bool {
        matches!(self, GameStatus::Finished | GameStatus::Aborted)
    }
}

impl fmt::Display for GameStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A spelling that names no status.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a game status (open, active, finished, aborted)")]
pub struct BadStatus(pub String);

impl FromStr for GameStatus {
    type Err = BadStatus;

    fn from_str(s: &str) -> Result<GameStatus, BadStatus> {
        match s {
            "open" => Ok(GameStatus::Open),
            "active" => Ok(GameStatus::Active),
            "finished" => Ok(GameStatus::Finished),
            "aborted" => Ok(GameStatus::Aborted),
            other => Err(BadStatus(other.chars().take(40).collect())),
        }
    }
}

impl TryFrom<String> for GameStatus {
    type Error = BadStatus;

    fn try_from(s: String) -> Result<GameStatus, BadStatus> {
        s.parse()
    }
}

/// Seats are stored as the integer they are numbered by; a stored number
/// that is no seat fails to decode ([`BadSeat`]).
impl<DB: sqlx::Database> sqlx::Type<DB> for Seat
where
    i64: sqlx::Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <i64 as sqlx::Type<DB>>::type_info()
    }

    fn compatible(ty: &DB::TypeInfo) -> bool {
        <i64 as sqlx::Type<DB>>::compatible(ty)
    }
}

impl<'r, DB: sqlx::Database> sqlx::Decode<'r, DB> for Seat
where
    i64: sqlx::Decode<'r, DB>,
{
    fn decode(value: DB::ValueRef<'r>) -> Result<Seat, sqlx::error::BoxDynError> {
        Ok(Seat::try_from(<i64 as sqlx::Decode<'r, DB>>::decode(value)?)?)
    }
}

impl<'q, DB: sqlx::Database> sqlx::Encode<'q, DB> for Seat
where
    i64: sqlx::Encode<'q, DB>,
{
    fn encode_by_ref(
        &self,
        buf: &mut DB::ArgumentBuffer<'q>,
    ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        i64::from(*self).encode_by_ref(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_their_spelling() {
        for status in [
            GameStatus::Open,
            GameStatus::Active,
            GameStatus::Finished,
            GameStatus::Aborted,
        ] {
            assert_eq!(status.as_str().parse::<GameStatus>(), Ok(status));
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
        assert!("Active".parse::<GameStatus>().is_err());
        assert!("".parse::<GameStatus>().is_err());
    }

    #[test]
    fn seats_are_numbers_a_table_can_have() {
        assert_eq!(Seat::try_from(3_i64), Ok(Seat::from(3)));
        assert_eq!(i64::from(Seat::try_from(7_i64).unwrap()), 7);
        assert_eq!(Seat::try_from(8_i64), Err(BadSeat(8)));
        assert_eq!(Seat::try_from(-1_i64), Err(BadSeat(-1)));
        assert_eq!(serde_json::to_value(Seat::from(2)).unwrap(), 2);
    }

    #[test]
    fn seat_sets_as_masks() {
        assert_eq!(all_seats_mask(4), 0b1111);
        assert_eq!(seats_in(0b101, 4), vec![Seat::from(0), Seat::from(2)]);
        assert_eq!(seats_in(0b1000_0000, 2), Vec::<Seat>::new());
    }
}

/// The secret that lets a player who was not invited take an open seat of a
/// private game: 128 random bits, as 32 lowercase hex digits. Shown only to
/// the game's participants; compared in constant time.
#[derive(Clone, PartialEq, Eq)]
pub struct InviteCode(String);

/// What is not an invitation code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an invitation code is 32 hex digits")]
pub struct BadInviteCode;

impl InviteCode {
    const LEN: usize = 32;

    /// A fresh, unguessable code.
    pub fn generate() -> InviteCode {
        use argon2::password_hash::rand_core::{OsRng, RngCore};
        let mut bytes = [0u8; Self::LEN / 2];
        OsRng.fill_bytes(&mut bytes);
        InviteCode(hex::encode(bytes))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `stored` (a game's code as the store keeps it) is this one,
    /// taking as long whatever the first difference.
    pub fn opens(&self, stored: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), stored.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl fmt::Debug for InviteCode {
    // A secret: kept out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InviteCode(…)")
    }
}

impl fmt::Display for InviteCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for InviteCode {
    type Err = BadInviteCode;

    fn from_str(s: &str) -> Result<InviteCode, BadInviteCode> {
        let hex = s.len() == Self::LEN && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        hex.then(|| InviteCode(s.to_owned())).ok_or(BadInviteCode)
    }
}

impl<'de> Deserialize<'de> for InviteCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<InviteCode, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod invite_code_tests {
    use super::*;

    #[test]
    fn codes_are_fresh_and_parse_back() {
        let (a, b) = (InviteCode::generate(), InviteCode::generate());
        assert_ne!(a, b);
        let parsed: InviteCode = a.to_string().parse().expect("a code");
        assert!(parsed.opens(a.as_str()));
        assert!(!parsed.opens(b.as_str()));
        assert!(!parsed.opens(""));
        for bad in ["", "xyz", &"A".repeat(32), &format!("{a}0")] {
            assert_eq!(bad.parse::<InviteCode>(), Err(BadInviteCode), "{bad}");
        }
    }
}
