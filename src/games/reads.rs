//! Reading games: the state a viewer may see (now or at any ply), boards'
//! snapshots, histories, event logs and lists. Private games are not found
//! by anyone but their players and invitees.

use crate::domain::InviteCode;
use crate::rules::AnyGame;
use crate::store::{EventRow, GameFilter, GameRecord, MoveRow, Player};
use crate::views::{GameState, GameSummary, Snapshot};

use super::error::{GameError, GameResult};
use super::Games;
use crate::domain::GameStatus;

/// Games per page of the lobby unless asked otherwise, and at most.
const LOBBY_PAGE: i64 = 20;
const LOBBY_MAX: i64 = 100;

/// What the lobby asks for.
#[derive(Clone, Debug, Default)]
pub struct Lobby {
    pub status: Option<GameStatus>,
    /// A catalogue game slug.
    pub game: Option<String>,
    /// Games where the player of this name sits or is invited.
    pub player: Option<String>,
    /// Active games waiting for this player's move.
    pub turn_of: Option<i64>,
    /// Only games older than this id (the previous page's `next_cursor`).
    pub cursor: Option<i64>,
    /// Page size, 1 to 100 (default 20).
    pub limit: Option<i64>,
}

/// A page of the lobby.
#[derive(Debug, Default)]
pub struct LobbyPage {
    pub games: Vec<GameSummary>,
    /// Where the next page starts; `None` on the last.
    pub next_cursor: Option<i64>,
}

impl Games {
    pub(super) async fn load(&self, id: i64) -> GameResult<GameRecord> {
        self.store.game(id).await?.ok_or(GameError::NotFound(id))
    }

    /// The game as `viewer` may see it.
    pub(super) async fn load_visible(&self, id: i64, viewer: Option<&Player>) -> GameResult<GameRecord> {
        let record = self.load(id).await?;
        if record.visible_to(viewer) {
            Ok(record)
        } else {
            Err(GameError::NotFound(id))
        }
    }

    /// The game as `viewer` sees it, now or after move `at_ply`.
    pub async fn state(&self, viewer: Option<&Player>, id: i64, at_ply: Option<i64>) -> GameResult<GameState> {
        self.state_with_code(viewer, id, at_ply, None).await
    }

    /// [`Games::state`], a private game shown also to whoever holds its
    /// invitation `code` (to decide whether to join it).
    pub async fn state_with_code(
        &self,
        viewer: Option<&Player>,
        id: i64,
        at_ply: Option<i64>,
        code: Option<&InviteCode>,
    ) -> GameResult<GameState> {
        let (record, game) = self.current(viewer, id, code).await?;
        match at_ply {
            Some(ply) if ply != record.row.ply => {
                let past = self.at_ply(&record, ply).await?;
                self.render(&record, &past, viewer, Some(ply)).await
            }
            _ => self.render(&record, &game, viewer, None).await,
        }
    }

    async fn current(
        &self,
        viewer: Option<&Player>,
        id: i64,
        code: Option<&InviteCode>,
    ) -> GameResult<(GameRecord, AnyGame)> {
        let slot = self.hot.slot(id);
        let mut hot = slot.lock().await;
        let record = self.load(id).await?;
        if !record.visible_to(viewer) && !record.opened_by(code) {
            return Err(GameError::NotFound(id));
        }
        let game = self.position(&mut hot, &record).await?;
        Ok((record, game))
    }

    async fn at_ply(&self, record: &GameRecord, ply: i64) -> GameResult<AnyGame> {
        if ply < 0 || ply > record.row.ply {
            return Err(GameError::BadPly { max: record.row.ply });
        }
        let moves = self.store.moves(record, Some(ply)).await?;
        super::replay(record, &moves)
    }

    pub(super) async fn render(
        &self,
        record: &GameRecord,
        game: &AnyGame,
        viewer: Option<&Player>,
        at_ply: Option<i64>,
    ) -> GameResult<GameState> {
        let ply = i64::from(game.ply());
        let last_move = if ply > 0 {
            self.store.move_at(record, ply).await?
        } else {
            None
        };
        self.render_with(record, game, viewer, at_ply, last_move.as_ref()).await
    }

    /// [`Games::render`] when the move that made `game` is known.
    pub(super) async fn render_with(
        &self,
        record: &GameRecord,
        game: &AnyGame,
        viewer: Option<&Player>,
        at_ply: Option<i64>,
        last_move: Option<&MoveRow>,
    ) -> GameResult<GameState> {
        let mut state = GameState::build(record, game, viewer, last_move, at_ply);
        state.clock = self.clock_view(record).await?;
        Ok(state)
    }

    /// The position for a board: now or at `at_ply`, with the view before
    /// the last move shown.
    pub async fn snapshot(&self, viewer: Option<&Player>, id: i64, at_ply: Option<i64>) -> GameResult<Snapshot> {
        let (record, current) = self.current(viewer, id, None).await?;
        let ply = at_ply.unwrap_or(record.row.ply);
        let game = if ply == record.row.ply {
            current
        } else {
            self.at_ply(&record, ply).await?
        };
        let (previous, last_move) = if ply > 0 {
            let before = self.at_ply(&record, ply - 1).await?;
            (Some(before.view()), self.store.move_at(&record, ply).await?)
        } else {
            (None, None)
        };
        Ok(Snapshot {
            view: game.view(),
            record,
            game,
            previous,
            last_move,
        })
    }

    pub async fn history(&self, viewer: Option<&Player>, id: i64) -> GameResult<(GameRecord, Vec<MoveRow>)> {
        let record = self.load_visible(id, viewer).await?;
        let moves = self.store.moves(&record, None).await?;
        Ok((record, moves))
    }

    pub async fn events(&self, viewer: Option<&Player>, id: i64, after: i64, limit: i64) -> GameResult<Vec<EventRow>> {
        self.load_visible(id, viewer).await?;
        Ok(self.store.game_events(id, after, limit).await?)
    }

    /// A page of the games `viewer` may see, newest first.
    pub async fn list(&self, viewer: Option<&Player>, lobby: Lobby) -> GameResult<LobbyPage> {
        let limit = lobby.limit.unwrap_or(LOBBY_PAGE).clamp(1, LOBBY_MAX);
        let player = match &lobby.player {
            Some(name) => match self.store.player_by_name(&crate::domain::name_key(name)).await? {
                Some(player) => Some(player.id),
                // Nobody by that name sits anywhere.
                None => return Ok(LobbyPage::default()),
            },
            None => None,
        };
        let filter = GameFilter {
            viewer: viewer.map(|p| p.id),
            status: lobby.status,
            game: lobby.game,
            player,
            turn_of: lobby.turn_of,
            before: lobby.cursor,
            // One more than asked tells whether there is a next page.
            limit: limit + 1,
        };
        let records = self.store.list_games(&filter).await?;
        let mut games: Vec<GameSummary> = records.iter().map(GameSummary::of).collect();
        let next_cursor = if games.len() as i64 > limit {
            games.truncate(limit as usize);
            games.last().map(|g| g.id)
        } else {
            None
        };
        Ok(LobbyPage { games, next_cursor })
    }
}
