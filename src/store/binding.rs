//! What the shared statements ask of a database, said once: every type of
//! value they bind, every row they read, and running them on a pool or in a
//! transaction.
//!
//! Rust implies a trait's bounds on its associated types but not a bound
//! whose subject is another type (`i64: Encode<'q, DB>`): such a bound, put
//! on a trait, would have to be repeated wherever the trait is used. So
//! [`SharedSql`] is implemented once, for every database that has them all,
//! and its methods do the binding and the executing; code that holds a
//! `DB: SharedSql` binds with [`Statement::arg`], reads rows with
//! [`Select::rows`] and runs on [`SharedSql::pooled`] or
//! [`SharedSql::connected`] without naming a bound. The rows are the same
//! kind of bound (`Player: FromRow<'r, DB::Row>`), so [`SharedSql`] has
//! [`Reads`] of each as a supertrait (through [`SharedRows`]), which Rust
//! does imply.
//! A backend whose driver lacks one of these types fails to compile where it
//! declares its database.

use serde_json::value::RawValue;
use serde_json::Value;
use sqlx::query::{Map, Query};
use sqlx::types::Json;
use sqlx::{Database, Encode, Executor, FromRow, IntoArguments, Pool, Type};

use super::backend::Affected;
use super::rows::{ConditionalRecord, SeatRecord};
use super::{
    BotRow, Credentials, DeliveryRow, EntrantRow, EventRow, GameRow, InboxRow, MoveEventRow, NotifySettings,
    PairingRow, PlayedGame, Player, RatedGame, RatingPoint, RatingRow, SessionRow, TokenSession, TournamentRow,
    Waiting,
};

/// A value sqlx's statements of `DB` can bind as it is.
pub trait Param<'q, DB: Database>: Encode<'q, DB> + Type<DB> + Send + 'q {}

impl<'q, DB: Database, T: Encode<'q, DB> + Type<DB> + Send + 'q> Param<'q, DB> for T {}

/// A database the shared statements run on. One method a type of
/// parameter, since each needs its own `Encode` bound, which only the
/// implementation below can state.
pub trait SharedSql:
    for<'q> Database<QueryResult: Affected, Arguments<'q>: IntoArguments<'q, Self>> + SharedRows
{
    fn bind_i64<'q, S: Statement<'q, Self>>(statement: S, value: i64) -> S;
    fn bind_opt_i64<'q, S: Statement<'q, Self>>(statement: S, value: Option<i64>) -> S;
    fn bind_f64<'q, S: Statement<'q, Self>>(statement: S, value: f64) -> S;
    fn bind_bool<'q, S: Statement<'q, Self>>(statement: S, value: bool) -> S;
    fn bind_opt_bool<'q, S: Statement<'q, Self>>(statement: S, value: Option<bool>) -> S;
    fn bind_str<'q, S: Statement<'q, Self>>(statement: S, value: &'q str) -> S;
    fn bind_opt_str<'q, S: Statement<'q, Self>>(statement: S, value: Option<&'q str>) -> S;
    fn bind_bytes<'q, S: Statement<'q, Self>>(statement: S, value: &'q [u8]) -> S;
    fn bind_json<'q, S: Statement<'q, Self>>(statement: S, value: Value) -> S;
    fn bind_opt_json<'q, S: Statement<'q, Self>>(statement: S, value: Option<Value>) -> S;
    fn bind_raw_json<'q, S: Statement<'q, Self>>(statement: S, value: Box<RawValue>) -> S;

    /// The pool, as what runs a statement.
    fn pooled(pool: &Pool<Self>) -> impl Executor<'_, Database = Self>;

    /// A connection (a transaction's), as what runs a statement.
    fn connected(connection: &mut Self::Connection) -> impl Executor<'_, Database = Self>;
}

impl<DB> SharedSql for DB
where
    DB: for<'q> Database<QueryResult: Affected, Arguments<'q>: IntoArguments<'q, DB>>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB: SharedRows,
    for<'q> i64: Param<'q, DB>,
    for<'q> Option<i64>: Param<'q, DB>,
    for<'q> f64: Param<'q, DB>,
    for<'q> bool: Param<'q, DB>,
    for<'q> Option<bool>: Param<'q, DB>,
    for<'q> &'q str: Param<'q, DB>,
    for<'q> Option<&'q str>: Param<'q, DB>,
    for<'q> &'q [u8]: Param<'q, DB>,
    Value: for<'q> Param<'q, DB>,
    Option<Value>: for<'q> Param<'q, DB>,
    Json<Box<RawValue>>: for<'q> Param<'q, DB>,
{
    fn bind_i64<'q, S: Statement<'q, Self>>(statement: S, value: i64) -> S {
        statement.bind_param(value)
    }
    fn bind_opt_i64<'q, S: Statement<'q, Self>>(statement: S, value: Option<i64>) -> S {
        statement.bind_param(value)
    }
    fn bind_f64<'q, S: Statement<'q, Self>>(statement: S, value: f64) -> S {
        statement.bind_param(value)
    }
    fn bind_bool<'q, S: Statement<'q, Self>>(statement: S, value: bool) -> S {
        statement.bind_param(value)
    }
    fn bind_opt_bool<'q, S: Statement<'q, Self>>(statement: S, value: Option<bool>) -> S {
        statement.bind_param(value)
    }
    fn bind_str<'q, S: Statement<'q, Self>>(statement: S, value: &'q str) -> S {
        statement.bind_param(value)
    }
    fn bind_opt_str<'q, S: Statement<'q, Self>>(statement: S, value: Option<&'q str>) -> S {
        statement.bind_param(value)
    }
    fn bind_bytes<'q, S: Statement<'q, Self>>(statement: S, value: &'q [u8]) -> S {
        statement.bind_param(value)
    }
    fn bind_json<'q, S: Statement<'q, Self>>(statement: S, value: Value) -> S {
        statement.bind_param(value)
    }
    fn bind_opt_json<'q, S: Statement<'q, Self>>(statement: S, value: Option<Value>) -> S {
        statement.bind_param(value)
    }
    fn bind_raw_json<'q, S: Statement<'q, Self>>(statement: S, value: Box<RawValue>) -> S {
        statement.bind_param(Json(value))
    }

    fn pooled(pool: &Pool<Self>) -> impl Executor<'_, Database = Self> {
        pool
    }

    fn connected(connection: &mut Self::Connection) -> impl Executor<'_, Database = Self> {
        connection
    }
}

/// A row of type `T`, decoded by the driver of the database `Self`.
pub trait Reads<T>: Database {
    fn decode(row: Self::Row) -> Result<T, sqlx::Error>;
}

impl<DB: Database, T: for<'r> FromRow<'r, DB::Row>> Reads<T> for DB {
    fn decode(row: DB::Row) -> Result<T, sqlx::Error> {
        T::from_row(&row)
    }
}

/// Every row the shared statements read: a database whose driver cannot
/// decode one of them fails to compile below, where it is declared one.
pub trait SharedRows:
    Reads<Player>
    + Reads<Credentials>
    + Reads<TokenSession>
    + Reads<SessionRow>
    + Reads<GameRow>
    + Reads<SeatRecord>
    + Reads<MoveEventRow>
    + Reads<EventRow>
    + Reads<ConditionalRecord>
    + Reads<NotifySettings>
    + Reads<Waiting>
    + Reads<DeliveryRow>
    + Reads<InboxRow>
    + Reads<BotRow>
    + Reads<RatingRow>
    + Reads<RatingPoint>
    + Reads<PlayedGame>
    + Reads<RatedGame>
    + Reads<TournamentRow>
    + Reads<EntrantRow>
    + Reads<PairingRow>
    + Reads<(i64,)>
    + Reads<(i64, i64)>
    + Reads<(i64, i64, i64)>
    + Reads<(i64, i64, Option<f64>, Option<f64>)>
    + Reads<(String,)>
    + Reads<(Option<String>,)>
    + Reads<(String, i64)>
{
}

// The two databases the backends declare: each impl is where the compiler
// checks that its driver decodes every row above.
impl SharedRows for sqlx::Sqlite {}

impl SharedRows for sqlx::Postgres {}

/// What a statement's rows become.
type Decoder<DB, T> = fn(<DB as Database>::Row) -> Result<T, sqlx::Error>;

/// Reading a statement's rows as one of the store's types.
pub trait Select<'q, DB: SharedSql> {
    /// Each row as a `T`.
    fn rows<T: Unpin>(self) -> Map<'q, DB, Decoder<DB, T>, DB::Arguments<'q>>
    where
        DB: Reads<T>;

    /// Each row's only column as a `T`.
    fn scalars<T: Unpin>(self) -> Map<'q, DB, Decoder<DB, T>, DB::Arguments<'q>>
    where
        DB: Reads<(T,)>;
}

impl<'q, DB: SharedSql> Select<'q, DB> for Query<'q, DB, DB::Arguments<'q>> {
    fn rows<T: Unpin>(self) -> Map<'q, DB, Decoder<DB, T>, DB::Arguments<'q>>
    where
        DB: Reads<T>,
    {
        self.try_map(<DB as Reads<T>>::decode as Decoder<DB, T>)
    }

    fn scalars<T: Unpin>(self) -> Map<'q, DB, Decoder<DB, T>, DB::Arguments<'q>>
    where
        DB: Reads<(T,)>,
    {
        self.try_map((|row| <DB as Reads<(T,)>>::decode(row).map(|(value,)| value)) as Decoder<DB, T>)
    }
}

/// A statement that takes parameters.
pub trait Statement<'q, DB: Database>: Sized {
    /// sqlx's own `bind`, for a type whose bound is known.
    fn bind_param<T: Param<'q, DB>>(self, value: T) -> Self;

    /// Binds the next parameter, of any type the shared statements take.
    fn arg(self, value: impl Arg<'q, DB>) -> Self
    where
        DB: SharedSql,
    {
        value.bind_to(self)
    }
}

impl<'q, DB: Database> Statement<'q, DB> for Query<'q, DB, DB::Arguments<'q>> {
    fn bind_param<T: Param<'q, DB>>(self, value: T) -> Self {
        self.bind(value)
    }
}

/// A value of a type the shared statements bind, by its method of
/// [`SharedSql`].
pub trait Arg<'q, DB: SharedSql> {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S;
}

impl<'q, DB: SharedSql> Arg<'q, DB> for i64 {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_i64(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for Option<i64> {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_opt_i64(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for f64 {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_f64(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for bool {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_bool(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for Option<bool> {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_opt_bool(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for &'q str {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_str(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for Option<&'q str> {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_opt_str(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for &'q [u8] {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_bytes(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for Value {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_json(statement, self)
    }
}

impl<'q, DB: SharedSql> Arg<'q, DB> for Option<Value> {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_opt_json(statement, self)
    }
}

/// JSON already printed (an event's payload), bound as the driver binds
/// JSON: text on SQLite, `jsonb` on PostgreSQL.
impl<'q, DB: SharedSql> Arg<'q, DB> for Box<RawValue> {
    fn bind_to<S: Statement<'q, DB>>(self, statement: S) -> S {
        DB::bind_raw_json(statement, self)
    }
}
