//! The tournaments service: round robins, Swiss tournaments and leagues
//! (seasons of round-robin groups with promotion and relegation), for
//! two-player games.
//!
//! - Pairing and standings are pure ([`pairing`], [`standings`]); [`plan`]
//!   decides from a tournament's record what happens next; [`progress`]
//!   makes a plan's games (fixtures of the games service) and turns it
//!   into one [`TournamentStep`](crate::store::TournamentStep).
//! - Every step is written in one transaction, guarded by the
//!   tournament's revision: a start here, or — through the games service's
//!   commit ([`after_game`]) — the end of a game together with what it
//!   causes (the next Swiss round, a new season, the end). Two servers
//!   ending a round's last two games at once: one step commits, the other
//!   is refused and decided again from the new state, so a round is paired
//!   once, and a crash loses none.
//! - Joining and leaving move the revision too. A player who leaves after
//!   the start forfeits their remaining games (each ended by the games
//!   service, reason `forfeit`) and is paired no more.
//! - Due tournaments (`starts_at`) are started, or cancelled when too few
//!   joined, by the sweeper ([`Tournaments::start_due`]), idempotently.

pub mod error;
pub mod pairing;
pub mod plan;
mod progress;
pub mod standings;
mod view;

use std::sync::Arc;

use serde::Deserialize;
use utoipa::ToSchema;

/// A tournament's kind, lifecycle and listing row, as the service hands them out.
pub use crate::store::{TournamentFormat, TournamentRow, TournamentStatus};
pub use error::{TournamentError, TournamentResult};
pub use progress::after_game;
pub use view::{GroupView, PairingView, RoundView, StandingView, TournamentView};

use crate::clock::TimeControl;
use crate::games::Games;
use crate::rules::catalogue;
use crate::store::{
    EntrantChange, Entry, NewTournament, Player, Store, StoreError, TournamentFilter, TournamentRecord,
    TournamentSettings,
};

/// Longest tournament name, in characters.
pub const MAX_NAME: usize = 100;
/// The most players a tournament takes.
pub const MAX_PLAYERS: i64 = 1000;
/// The most a round robin takes: every one of its games is made at the
/// start, in one transaction (50 players: 1225 games, twice that double).
pub const MAX_ROUND_ROBIN: i64 = 50;
/// How far ahead a start can be set: a year.
const MAX_LEAD_MS: i64 = 366 * 24 * 3600 * 1000;
/// How often a write is decided again after the tournament moved.
const ATTEMPTS: usize = 8;
/// How many due tournaments one sweep starts.
const DUE_BATCH: i64 = 50;

// A new tournament, as its organiser asks for it: the body of
// `POST /tournaments`, named `NewTournamentRequest` in the API's schemas (a
// plain comment, so that the document's schema stays as it was). The format
// and the start come as sent; `validate` parses them with the rest.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = NewTournamentRequest)]
pub struct NewTournamentCommand {
    /// 1 to 100 characters.
    pub name: String,
    /// Catalogue slug of a two-player game.
    #[schema(schema_with = crate::domain::game_slug)]
    pub game: String,
    /// Variant slug; the game's first variant when absent.
    #[schema(schema_with = crate::domain::optional_variant_slug)]
    pub variant: Option<String>,
    /// `round_robin`, `swiss` or `league`.
    #[schema(value_type = String)]
    pub format: String,
    /// A Swiss's rounds, 1 to 50 (default ⌈log₂ players⌉, never more than players − 1).
    pub rounds: Option<i64>,
    /// Round robin: every pair plays twice, seats swapped.
    pub double: Option<bool>,
    pub time_control: Option<TimeControl>,
    /// Whether its games change ratings (default `true`).
    pub rated: Option<bool>,
    /// 2 to 1000 (a round robin: 2 to 50); the most when absent.
    pub max_players: Option<i64>,
    /// At least 2 (default 2): fewer by `starts_at`, and it is cancelled.
    pub min_players: Option<i64>,
    /// RFC 3339; the server starts it then (the organiser may start it before).
    pub starts_at: Option<String>,
    /// Listed and readable by everyone (default).
    pub public: Option<bool>,
    /// A league's group size, 3 to 50 (default 10).
    pub group_size: Option<i64>,
}

pub struct Tournaments {
    store: Arc<dyn Store>,
    games: Arc<Games>,
}

impl Tournaments {
    pub fn new(store: Arc<dyn Store>, games: Arc<Games>) -> Tournaments {
        Tournaments { store, games }
    }

    pub async fn create(&self, organiser: &Player, command: NewTournamentCommand) -> TournamentResult<TournamentView> {
        let now = crate::domain::now();
        let tournament = validate(organiser, command, now)?;
        let id = self.store.create_tournament(tournament).await?;
        self.show(Some(organiser), id).await
    }

    /// Newest first; private ones only to their organiser and players.
    pub async fn list(
        &self,
        viewer: Option<&Player>,
        status: Option<TournamentStatus>,
        game: Option<String>,
    ) -> TournamentResult<Vec<TournamentRow>> {
        let filter = TournamentFilter {
            viewer: viewer.map(|p| p.id),
            status,
            game,
            limit: 100,
        };
        Ok(self.store.list_tournaments(&filter).await?)
    }

    pub async fn show(&self, viewer: Option<&Player>, id: i64) -> TournamentResult<TournamentView> {
        let record = self.load(viewer, id).await?;
        Ok(TournamentView::of(&record))
    }

    /// Joins an open tournament (or a running league, from next season).
    pub async fn join(&self, player: &Player, id: i64) -> TournamentResult<TournamentView> {
        for _ in 0..ATTEMPTS {
            let record = self.load(Some(player), id).await?;
            let row = &record.row;
            let open = row.status == TournamentStatus::Open
                || (row.status == TournamentStatus::Active && row.settings.format == TournamentFormat::League);
            if !open {
                return Err(TournamentError::Status(row.status));
            }
            if record.entrants.iter().any(|e| e.player_id == player.id) {
                return Err(TournamentError::AlreadyIn);
            }
            if record.entrants.len() as i64 >= row.settings.max_players {
                return Err(TournamentError::Full(row.settings.max_players));
            }
            let seed = record.entrants.iter().map(|e| e.seed).max().unwrap_or(0) + 1;
            if self.change(&record, player, Entry::Join { seed }).await? {
                return self.show(Some(player), id).await;
            }
        }
        Err(TournamentError::Busy)
    }

    /// Leaves: before the start, simply; after it, forfeiting every game
    /// still being played (a second call forfeits what the first left).
    pub async fn leave(&self, player: &Player, id: i64) -> TournamentResult<TournamentView> {
        for _ in 0..ATTEMPTS {
            let record = self.load(Some(player), id).await?;
            let Some(entrant) = record.entrants.iter().find(|e| e.player_id == player.id) else {
                return Err(TournamentError::NotIn);
            };
            let entry = match record.row.status {
                TournamentStatus::Open => Entry::Remove,
                TournamentStatus::Active if entrant.left_at.is_some() => {
                    self.forfeit_all(player, &record).await?;
                    return self.show(Some(player), id).await;
                }
                TournamentStatus::Active => Entry::Withdraw,
                status => return Err(TournamentError::Status(status)),
            };
            if self.change(&record, player, entry).await? {
                if entry == Entry::Withdraw {
                    // Read again: games paired before the withdrawal
                    // committed are in it.
                    let record = self.load(Some(player), id).await?;
                    self.forfeit_all(player, &record).await?;
                }
                return self.show(Some(player), id).await;
            }
        }
        Err(TournamentError::Busy)
    }

    /// The organiser starts an open tournament with enough players.
    pub async fn start(&self, player: &Player, id: i64) -> TournamentResult<TournamentView> {
        for _ in 0..ATTEMPTS {
            let record = self.load(Some(player), id).await?;
            if record.row.organiser_id != player.id {
                return Err(TournamentError::NotOrganiser);
            }
            if record.row.status != TournamentStatus::Open {
                return Err(TournamentError::Status(record.row.status));
            }
            let (needed, have) = (record.row.settings.min_players.max(2), record.entrants.len() as i64);
            if have < needed {
                return Err(TournamentError::TooFew { needed, have });
            }
            if self.write(&record, plan::start(&record)).await? {
                return self.show(Some(player), id).await;
            }
        }
        Err(TournamentError::Busy)
    }

    /// Starts every open tournament whose `starts_at` has passed, or
    /// cancels it when too few joined. Safe with several servers: each
    /// start is guarded by the tournament's revision, and a loser finds
    /// it started. How many it started or cancelled.
    pub async fn start_due(&self) -> usize {
        let due = match self.store.due_tournaments(crate::domain::now(), DUE_BATCH).await {
            Ok(due) => due,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read due tournaments");
                return 0;
            }
        };
        let mut done = 0;
        for id in due {
            match self.start_if_due(id).await {
                Ok(true) => done += 1,
                Ok(false) => {}
                Err(e) => tracing::warn!(tournament = id, error = %e, "start failed; retried next sweep"),
            }
        }
        done
    }

    async fn start_if_due(&self, id: i64) -> TournamentResult<bool> {
        for _ in 0..ATTEMPTS {
            let Some(record) = self.store.tournament(id).await? else {
                return Ok(false);
            };
            if record.row.status != TournamentStatus::Open {
                return Ok(false);
            }
            let enough = record.entrants.len() as i64 >= record.row.settings.min_players.max(2);
            let plan = if enough {
                plan::start(&record)
            } else {
                plan::cancel(&record)
            };
            if self.write(&record, plan).await? {
                return Ok(true);
            }
        }
        Err(TournamentError::Busy)
    }

    /// Writes `plan` of `record`; `false` when the tournament moved first.
    async fn write(&self, record: &TournamentRecord, plan: plan::Plan) -> TournamentResult<bool> {
        let step = progress::step(&self.games, record, plan, crate::domain::now()).await?;
        let told = step.players_told();
        match self.store.step_tournament(step).await {
            Ok(()) => {
                self.games.players_notified(told);
                Ok(true)
            }
            Err(StoreError::TournamentMoved | StoreError::Conflict) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn change(&self, record: &TournamentRecord, player: &Player, change: Entry) -> TournamentResult<bool> {
        let change = EntrantChange {
            tournament_id: record.row.id,
            expected_rev: record.row.rev,
            player_id: player.id,
            change,
            now: crate::domain::now(),
        };
        match self.store.change_entrant(change).await {
            Ok(changed) => Ok(changed),
            Err(StoreError::Conflict) => Ok(false),
            Err(StoreError::Unique) => Err(TournamentError::AlreadyIn),
            Err(e) => Err(e.into()),
        }
    }

    /// Ends each of `player`'s games of `record` still being played.
    async fn forfeit_all(&self, player: &Player, record: &TournamentRecord) -> TournamentResult<()> {
        let playing = record
            .pairings
            .iter()
            .filter(|p| p.has(player.id) && p.status.as_deref() == Some("active"));
        for game_id in playing.filter_map(|p| p.game_id) {
            self.games.forfeit(player, game_id).await?;
        }
        Ok(())
    }

    /// The tournament, if `viewer` may see it.
    async fn load(&self, viewer: Option<&Player>, id: i64) -> TournamentResult<TournamentRecord> {
        let record = self.store.tournament(id).await?.ok_or(TournamentError::NotFound(id))?;
        let visible = record.row.settings.public
            || viewer.is_some_and(|v| {
                v.id == record.row.organiser_id || record.entrants.iter().any(|e| e.player_id == v.id)
            });
        if visible {
            Ok(record)
        } else {
            Err(TournamentError::NotFound(id))
        }
    }
}

/// The command as the store keeps it, or what is wrong with it.
fn validate(organiser: &Player, c: NewTournamentCommand, now: i64) -> TournamentResult<NewTournament> {
    let (format, starts_at) = format_and_start(&c)?;
    let name = c.name.trim().to_owned();
    if name.is_empty() || name.chars().count() > MAX_NAME {
        return Err(TournamentError::BadName { max: MAX_NAME });
    }
    let info = catalogue::game(&c.game)
        .ok_or_else(|| TournamentError::UnknownGame(crate::rules::UnknownGame::game(&c.game)))?;
    let variant_slug = c.variant.as_deref().unwrap_or(info.variants[0].slug);
    let (info, variant) = catalogue::find(info.slug, Some(variant_slug)).map_err(TournamentError::UnknownGame)?;
    if variant.seats.len() != 2 {
        return Err(TournamentError::NotTwoPlayer {
            variant: variant.name,
            seats: variant.seats.len(),
        });
    }
    let control = c
        .time_control
        .unwrap_or_default()
        .validate()
        .map_err(TournamentError::BadTimeControl)?;
    let cap = match format {
        TournamentFormat::RoundRobin => MAX_ROUND_ROBIN,
        TournamentFormat::Swiss | TournamentFormat::League => MAX_PLAYERS,
    };
    let max_players = in_range("max_players", c.max_players.unwrap_or(cap), 2, cap)?;
    let min_players = in_range("min_players", c.min_players.unwrap_or(2), 2, cap)?;
    if min_players > max_players {
        return Err(TournamentError::BadPlayerRange {
            min: min_players,
            max: max_players,
        });
    }
    let rounds = match format {
        TournamentFormat::Swiss => in_range("rounds", c.rounds.unwrap_or(0), 0, 50)?,
        TournamentFormat::RoundRobin | TournamentFormat::League => 0,
    };
    let group_size = match format {
        TournamentFormat::League => in_range("group_size", c.group_size.unwrap_or(10), 3, 50)?,
        TournamentFormat::RoundRobin | TournamentFormat::Swiss => 0,
    };
    if let Some(at) = starts_at {
        if at <= now {
            return Err(TournamentError::StartsInPast);
        }
        in_range("starts_at", at, now, now + MAX_LEAD_MS)?;
    }
    let settings = TournamentSettings {
        name,
        game: info.slug.to_owned(),
        variant: variant.slug.to_owned(),
        format,
        rounds,
        double_rr: format == TournamentFormat::RoundRobin && c.double.unwrap_or(false),
        group_size,
        time_control: control.to_stored(),
        rated: c.rated.unwrap_or(true),
        public: c.public.unwrap_or(true),
        min_players,
        max_players,
        starts_at,
    };
    Ok(NewTournament {
        settings,
        organiser_id: organiser.id,
        now,
    })
}

/// The command's format and start, parsed from their wire spelling.
fn format_and_start(c: &NewTournamentCommand) -> TournamentResult<(TournamentFormat, Option<i64>)> {
    let format = c.format.parse().map_err(|_| TournamentError::BadFormat)?;
    let starts_at = c
        .starts_at
        .as_deref()
        .map(|at| {
            time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                .map(|t| (t.unix_timestamp_nanos() / 1_000_000) as i64)
                .map_err(|_| TournamentError::BadStartsAt)
        })
        .transpose()?;
    Ok((format, starts_at))
}

fn in_range(field: &'static str, value: i64, min: i64, max: i64) -> TournamentResult<i64> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(TournamentError::OutOfRange { field, min, max })
    }
}
