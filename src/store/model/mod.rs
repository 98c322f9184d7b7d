//! The models the store's traits take and give: rows as read (through
//! `sqlx::FromRow`, in the domain's words: a [`GameStatus`], a [`Seat`]) and
//! the changes to write, one struct per write. They promise nothing about
//! the database beyond what its schema does; `rows.rs` holds the rows that
//! are not models.

use serde_json::Value;

use crate::domain::{GameStatus, Seat};

mod bots;
mod conditionals;
mod history;
mod payload;
mod ratings;
mod tournaments;

pub use bots::{BotRow, NewBot};
pub use conditionals::{ConditionalRow, ConditionalTrees, ConditionalWrite, NewConditional};
pub use history::{latest_at, GameAt, History, HistoryError, MoveEventRow, MovePayload, NotReached};
pub use payload::{Event, PlayerEvent};
pub use ratings::{PlayedGame, PlayerResult, RatedGame, RatingChange, RatingPoint, RatingRow, RatingValues};
pub use tournaments::{
    BadTournamentKind, EntrantChange, EntrantRow, Entry, NewPairing, NewTournament, PairingRow, TournamentFilter,
    TournamentFormat, TournamentRecord, TournamentRow, TournamentSettings, TournamentStatus, TournamentStep,
};

/// A registered player as others may see them (plus email for themselves).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Player {
    pub id: i64,
    pub name: String,
    pub email: Option<String>,
    pub created_at: i64,
    /// A bot account: its moves are a program's, as its owner declared.
    pub bot: bool,
}

/// A player with their password hash, for signing in.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Credentials {
    #[sqlx(flatten)]
    pub player: Player,
    pub password_hash: String,
}

/// A player to register.
#[derive(Clone, Debug)]
pub struct NewPlayer {
    pub name: String,
    /// The name as compared for uniqueness.
    pub name_key: String,
    pub email: Option<String>,
    pub password_hash: String,
    /// Declared a bot account at registration.
    pub bot: bool,
    pub now: i64,
}

/// What a player changes of their account and notification settings
/// (`PATCH /players/me`), written in one transaction; `None` fields stay
/// as they are.
#[derive(Clone, Debug)]
pub struct PlayerChange {
    pub id: i64,
    /// `Some(None)` removes the email.
    pub email: Option<Option<String>>,
    pub password: Option<NewPassword>,
    pub settings: SettingsUpdate,
    /// Declares the account a bot account or not; written only while the
    /// player has never taken a seat (see `PlayerStore::update_player`).
    pub bot: Option<bool>,
}

/// A new password: every other session of the player ends with the old
/// one, since whoever held them may have known it.
#[derive(Clone, Debug)]
pub struct NewPassword {
    pub hash: String,
    /// The session that changed it, which stays.
    pub kept_token: String,
}

/// A session to open.
#[derive(Clone, Debug)]
pub struct NewToken {
    pub token_hash: String,
    pub player_id: i64,
    pub now: i64,
    /// The `User-Agent` of the client that opened it, shortened.
    pub user_agent: Option<String>,
}

/// The player a token opens, and when it was last used.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TokenSession {
    #[sqlx(flatten)]
    pub player: Player,
    pub last_used_at: i64,
}

/// One of a player's sessions, as listed to them.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SessionRow {
    pub token_hash: String,
    pub created_at: i64,
    pub last_used_at: i64,
    pub user_agent: Option<String>,
}

/// A game's own row.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct GameRow {
    pub id: i64,
    pub game: String,
    pub variant: String,
    #[sqlx(try_from = "String")]
    pub status: GameStatus,
    pub public: bool,
    pub ply: i64,
    pub to_move: Option<Seat>,
    pub outcome: Option<Value>,
    pub draw_offer: i64,
    pub takeback_offer: i64,
    pub event_seq: i64,
    pub created_by: i64,
    pub created_at: i64,
    pub updated_at: i64,
    /// The time control as created (`None`: no clock); see [`crate::clock`].
    pub time_control: Option<Value>,
    /// The stored [`crate::clock::ClockState`].
    pub clock: Option<Value>,
    /// When the player to move loses on time.
    pub deadline: Option<i64>,
    /// When the player to move is reminded.
    pub reminder_at: Option<i64>,
    /// Whether its end changes its players' ratings.
    pub rated: bool,
    /// Who may take an open seat, by their rating in this variant.
    pub rating_min: Option<i64>,
    pub rating_max: Option<i64>,
    /// The game this one is a rematch of.
    pub rematch_of: Option<i64>,
    /// The rematch offered after this one.
    pub rematch: Option<i64>,
    /// The version of the game's conditional trees (see [`ConditionalWrite`]).
    pub conditional_rev: i64,
    /// A private game's invitation code (see [`crate::domain::InviteCode`]).
    pub invite_code: Option<String>,
    /// The tournament this game is a pairing of: read with the row, not
    /// stored in it (the pairing is written in the transaction that creates
    /// the game, and never changes), so a game's end needs no look-up.
    pub tournament_id: Option<i64>,
}

/// A seat: who sits there, or who it is reserved for.
#[derive(Clone, Debug)]
pub struct SeatRow {
    pub seat: Seat,
    pub player: Option<(i64, String)>,
    pub invitee: Option<(i64, String)>,
    /// Whether whoever the seat names (the player, or else the invitee) is
    /// a bot account.
    pub bot: bool,
    /// The sitting player's `(rating, rd)` in the game's variant, if rated.
    pub rating: Option<(f64, f64)>,
}

impl SeatRow {
    /// `seat` with `player` sitting there, rated `rating` in the game's
    /// variant.
    pub fn taken(seat: Seat, player: &Player, rating: Option<(f64, f64)>) -> SeatRow {
        SeatRow {
            seat,
            player: Some((player.id, player.name.clone())),
            invitee: None,
            bot: player.bot,
            rating,
        }
    }

    /// `seat` free, for `invitee` if any.
    pub fn offered(seat: Seat, invitee: Option<&Player>) -> SeatRow {
        SeatRow {
            seat,
            player: None,
            invitee: invitee.map(|p| (p.id, p.name.clone())),
            bot: invitee.is_some_and(|p| p.bot),
            rating: None,
        }
    }
}

/// A game with its seats.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
}

/// A stored move, as its `move` event tells it (`history.rs`).
#[derive(Clone, Debug)]
pub struct MoveRow {
    pub ply: i64,
    pub seat: Seat,
    pub player_id: i64,
    pub player_name: String,
    pub notation: String,
    pub effect: Option<String>,
    pub message: Option<String>,
    pub created_at: i64,
}

/// A stored event, of either log.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct EventRow {
    pub seq: i64,
    pub kind: String,
    pub payload: Value,
    pub created_at: i64,
}

/// A new game, its seats, and the events of its creation.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub game: String,
    pub variant: String,
    pub public: bool,
    pub created_by: i64,
    pub time_control: Option<Value>,
    /// `(player, invitee)` per seat, seat 0 first.
    pub seats: Vec<(Option<i64>, Option<i64>)>,
    pub now: i64,
    pub events: Vec<Event>,
    /// Each gets `"game": <id>` added to its payload.
    pub player_events: Vec<PlayerEvent>,
    pub rated: bool,
    pub rating_min: Option<i64>,
    pub rating_max: Option<i64>,
    /// The finished game this one is the rematch of: it is marked as
    /// having one in the same transaction, and the creation is refused
    /// ([`super::StoreError::Conflict`]) if it already had one.
    pub rematch_of: Option<i64>,
    /// A private game's invitation code.
    pub invite_code: Option<String>,
    /// A game created with every seat taken starts with its clock running:
    /// the stored [`crate::clock::ClockState`], deadline and reminder.
    pub clock: Option<Value>,
    pub deadline: Option<i64>,
    pub reminder_at: Option<i64>,
}

impl NewGame {
    /// A game created with every seat taken starts at once, seat 0 to move.
    pub(crate) fn starts_as(&self) -> (GameStatus, Option<Seat>) {
        if self.seats.iter().all(|(player, _)| player.is_some()) {
            (GameStatus::Active, Some(Seat::FIRST))
        } else {
            (GameStatus::Open, None)
        }
    }

    /// The row of this game once created with `id`, as the store then holds
    /// it (a creation's answer needs no read).
    pub fn row(&self, id: i64) -> GameRow {
        let (status, to_move) = self.starts_as();
        GameRow {
            id,
            game: self.game.clone(),
            variant: self.variant.clone(),
            status,
            public: self.public,
            ply: 0,
            to_move,
            outcome: None,
            draw_offer: 0,
            takeback_offer: 0,
            event_seq: self.events.len() as i64,
            created_by: self.created_by,
            created_at: self.now,
            updated_at: self.now,
            time_control: self.time_control.clone(),
            clock: self.clock.clone(),
            deadline: self.deadline,
            reminder_at: self.reminder_at,
            rated: self.rated,
            rating_min: self.rating_min,
            rating_max: self.rating_max,
            rematch_of: self.rematch_of,
            rematch: None,
            conditional_rev: 0,
            invite_code: self.invite_code.clone(),
            // Tournaments pair their games in a transaction of their own.
            tournament_id: None,
        }
    }
}

/// One change of a game, applied in one transaction if and only if the game
/// is still at `expected_seq` (nobody changed it meanwhile, in this process or
/// another).
#[derive(Clone, Debug)]
pub struct GameUpdate {
    pub id: i64,
    pub expected_seq: i64,
    pub status: GameStatus,
    pub ply: i64,
    pub to_move: Option<Seat>,
    pub outcome: Option<Value>,
    pub draw_offer: i64,
    pub takeback_offer: i64,
    pub now: i64,
    /// `(seat, player)`: a player takes an open seat.
    pub sit: Vec<(Seat, i64)>,
    pub events: Vec<Event>,
    pub player_events: Vec<PlayerEvent>,
    pub clock: Option<Value>,
    pub deadline: Option<i64>,
    pub reminder_at: Option<i64>,
    /// The rating changes of a rated game's end, by player id.
    pub ratings: Vec<RatingChange>,
    /// The game's `conditional_rev` this change was decided on: checked
    /// like `expected_seq`.
    pub expected_rev: i64,
    /// A change of the conditional trees, in the same transaction; it bumps
    /// `conditional_rev`.
    pub conditional: Option<ConditionalWrite>,
    /// What the game's end does to its tournament, in the same transaction.
    pub tournament: Option<TournamentStep>,
}

impl GameUpdate {
    /// The game's `conditional_rev` once this change is committed.
    pub fn new_rev(&self) -> i64 {
        self.expected_rev + i64::from(self.conditional.is_some())
    }
}

impl GameRow {
    /// The row as `update` leaves it, once committed.
    pub fn apply(&mut self, update: &GameUpdate) {
        self.status = update.status;
        self.ply = update.ply;
        self.to_move = update.to_move;
        self.outcome.clone_from(&update.outcome);
        self.draw_offer = update.draw_offer;
        self.takeback_offer = update.takeback_offer;
        self.event_seq = update.expected_seq + update.events.len() as i64;
        self.updated_at = update.now;
        self.clock.clone_from(&update.clock);
        self.deadline = update.deadline;
        self.reminder_at = update.reminder_at;
        self.conditional_rev = update.new_rev();
    }
}

/// What `GET /games` asks for.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// Who is asking: private games are listed only to their players.
    pub viewer: Option<i64>,
    pub status: Option<GameStatus>,
    pub game: Option<String>,
    /// Games where this player sits or is invited.
    pub player: Option<i64>,
    /// Active games waiting for this player's move.
    pub turn_of: Option<i64>,
    /// Cursor: only games with a smaller id.
    pub before: Option<i64>,
    pub limit: i64,
}

/// A reminder to send: the game's pending reminder is cleared and `event`
/// stored together, if the game is still at `expected_seq`.
#[derive(Clone, Debug)]
pub struct Reminder {
    pub game_id: i64,
    pub expected_seq: i64,
    pub event: PlayerEvent,
    pub now: i64,
}

/// New deadline and reminder of a game still at `expected_seq` (after a
/// vacation was declared).
#[derive(Clone, Copy, Debug)]
pub struct DeadlineChange {
    pub game_id: i64,
    pub expected_seq: i64,
    pub deadline: Option<i64>,
    pub reminder_at: Option<i64>,
}

/// A vacation to declare: the player's clocks stand still from `starts_at`
/// to `ends_at`.
#[derive(Clone, Copy, Debug)]
pub struct NewVacation {
    pub player_id: i64,
    pub starts_at: i64,
    pub ends_at: i64,
}

/// How a player wants to be told.
#[derive(Clone, Debug, Default, sqlx::FromRow)]
pub struct NotifySettings {
    /// `{"your_turn": ["email", "webhook"], …}`; `None`: the defaults.
    pub notify: Option<Value>,
    pub webhook_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub digest: bool,
}

/// A change of settings; `None` fields stay as they are.
#[derive(Clone, Debug, Default)]
pub struct SettingsUpdate {
    pub notify: Option<Value>,
    /// `(url, secret)`; `(None, None)` removes the webhook.
    pub webhook: Option<(Option<String>, Option<String>)>,
    pub digest: Option<bool>,
}

/// A player with events not yet turned into deliveries.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Waiting {
    pub player_id: i64,
    /// The last event turned into deliveries.
    pub cursor: i64,
    /// The player's last event.
    pub event_seq: i64,
    pub email: Option<String>,
    #[sqlx(flatten)]
    pub settings: NotifySettings,
}

/// One player's events turned into deliveries: their cursor moves from
/// `from` to `to`.
#[derive(Clone, Debug)]
pub struct Outbox {
    pub player_id: i64,
    pub from: i64,
    pub to: i64,
    pub deliveries: Vec<NewDelivery>,
}

/// A delivery to create from a player event.
#[derive(Clone, Debug)]
pub struct NewDelivery {
    pub event_seq: i64,
    pub channel: &'static str,
    pub kind: String,
    pub due_at: i64,
}

/// An attempt's result: `status` and, for another try, when.
#[derive(Clone, Debug)]
pub struct Settlement {
    pub id: i64,
    /// `sent`, `skipped`, `failed`, or `pending` for another try.
    pub status: &'static str,
    pub next_attempt_at: i64,
    /// Why it failed or was skipped.
    pub error: Option<String>,
    pub now: i64,
}

/// A delivery: one player event on one channel.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct DeliveryRow {
    pub id: i64,
    pub player_id: i64,
    pub event_seq: i64,
    pub channel: String,
    pub kind: String,
    pub status: String,
    pub attempts: i64,
    pub next_attempt_at: i64,
    pub last_error: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A mail to keep in the inbox, as the SMTP listener accepted it.
#[derive(Clone, Debug)]
pub struct NewMail {
    /// The Message-ID, or a hash of the message when it has none.
    pub message_key: String,
    /// The recipient address it came for (token or command address).
    pub recipient: String,
    /// The player that address names: their mails are processed in order.
    pub player_id: i64,
    pub envelope_from: String,
    pub message: Vec<u8>,
    pub now: i64,
}

/// A stored mail still to process (`pending`) or to answer (`replying`).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct InboxRow {
    pub id: i64,
    pub recipient: String,
    pub player_id: i64,
    pub envelope_from: String,
    pub message: Vec<u8>,
    pub received_at: i64,
    pub status: String,
    pub claimed_until: i64,
    /// The stored reply (JSON), once the commands ran.
    pub reply: Option<String>,
}

/// The next step of a stored mail: its new status, the reply to send (for
/// `replying`) and what happened, for the log.
#[derive(Clone, Debug)]
pub struct MailSettlement {
    pub id: i64,
    pub status: &'static str,
    pub reply: Option<String>,
    pub outcome: Option<String>,
    /// Until when nobody works on it again (`now` releases it; later, a
    /// retry's backoff).
    pub claimed_until: i64,
    pub now: i64,
}
