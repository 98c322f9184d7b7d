//! [`TournamentStore`] for every [`Backend`]: the reads, and joining and
//! leaving, each a small transaction that moves the tournament's `rev`
//! first (so a concurrent start or step sees it moved). Steps go through
//! the group-commit writer.

use async_trait::async_trait;

use crate::store::backend::{Affected, Backend};
use crate::store::binding::{Select, SharedSql, Statement};
use crate::store::{
    EntrantChange, Entry, NewTournament, StoreError, StoreResult, TournamentFilter, TournamentRecord, TournamentRow,
    TournamentStep, TournamentStore,
};

const TOURNAMENT: &str = "SELECT t.id, t.name, t.game, t.variant, t.format, t.rounds, t.double_rr, t.group_size, \
     t.time_control, t.rated, t.public, t.min_players, t.max_players, t.starts_at, t.organiser_id, \
     o.name AS organiser, t.status, t.round, t.rev, t.created_at, t.updated_at, \
     (SELECT COUNT(*) FROM tournament_players e WHERE e.tournament_id = t.id) AS players \
     FROM tournaments t JOIN players o ON o.id = t.organiser_id";

#[async_trait]
impl<B: Backend> TournamentStore for B {
    async fn create_tournament(&self, t: NewTournament) -> StoreResult<i64> {
        let settings = &t.settings;
        let _turn = self.write_turn().await;
        sqlx::query(
            "INSERT INTO tournaments (name, game, variant, format, rounds, double_rr, group_size, time_control, \
             rated, public, min_players, max_players, starts_at, organiser_id, status, round, rev, created_at, \
             updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'open', 0, 0, \
             $15, $15) RETURNING id",
        )
        .arg(settings.name.as_str())
        .arg(settings.game.as_str())
        .arg(settings.variant.as_str())
        .arg(settings.format.as_str())
        .arg(settings.rounds)
        .arg(settings.double_rr)
        .arg(settings.group_size)
        .arg(settings.time_control.clone())
        .arg(settings.rated)
        .arg(settings.public)
        .arg(settings.min_players)
        .arg(settings.max_players)
        .arg(settings.starts_at)
        .arg(t.organiser_id)
        .arg(t.now)
        .scalars()
        .fetch_one(self.db())
        .await
        .map_err(StoreError::from_write)
    }

    async fn tournament(&self, id: i64) -> StoreResult<Option<TournamentRecord>> {
        let query = format!("{TOURNAMENT} WHERE t.id = $1");
        let row: Option<TournamentRow> = sqlx::query(&query).arg(id).rows().fetch_optional(self.db()).await?;
        let Some(row) = row else { return Ok(None) };
        let entrants = sqlx::query(
            "SELECT e.player_id, p.name, e.seed, e.joined_at, e.left_at, e.grp FROM tournament_players e \
             JOIN players p ON p.id = e.player_id WHERE e.tournament_id = $1 ORDER BY e.seed",
        )
        .arg(id)
        .rows()
        .fetch_all(self.db())
        .await?;
        let pairings = sqlx::query(
            "SELECT r.round, r.grp, r.game_id, r.first_id, r.second_id, g.status, g.outcome \
             FROM tournament_pairings r LEFT JOIN games g ON g.id = r.game_id \
             WHERE r.tournament_id = $1 ORDER BY r.round, r.grp, r.id",
        )
        .arg(id)
        .rows()
        .fetch_all(self.db())
        .await?;
        Ok(Some(TournamentRecord {
            row,
            entrants,
            pairings,
        }))
    }

    async fn list_tournaments(&self, filter: &TournamentFilter) -> StoreResult<Vec<TournamentRow>> {
        let query = format!(
            "{TOURNAMENT} WHERE (t.public OR t.organiser_id = $1 OR EXISTS (SELECT 1 FROM tournament_players e \
             WHERE e.tournament_id = t.id AND e.player_id = $1)) \
             AND ($2 IS NULL OR t.status = $2) AND ($3 IS NULL OR t.game = $3) ORDER BY t.id DESC LIMIT $4"
        );
        Ok(sqlx::query(&query)
            .arg(filter.viewer)
            .arg(filter.status.map(|s| s.as_str()))
            .arg(filter.game.as_deref())
            .arg(filter.limit)
            .rows()
            .fetch_all(self.db())
            .await?)
    }

    async fn change_entrant(&self, change: EntrantChange) -> StoreResult<bool> {
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin().await?;
        // The guard first: it locks the tournament's row.
        let moved = sqlx::query("UPDATE tournaments SET rev = rev + 1, updated_at = $1 WHERE id = $2 AND rev = $3")
            .arg(change.now)
            .arg(change.tournament_id)
            .arg(change.expected_rev)
            .execute(B::DB::connected(&mut *tx))
            .await?
            .rows_affected();
        if moved != 1 {
            return Ok(false);
        }
        let statement = match change.change {
            Entry::Join { seed } => sqlx::query(
                "INSERT INTO tournament_players (tournament_id, player_id, seed, joined_at) VALUES ($1, $2, $3, $4)",
            )
            .arg(change.tournament_id)
            .arg(change.player_id)
            .arg(seed)
            .arg(change.now),
            Entry::Remove => sqlx::query("DELETE FROM tournament_players WHERE tournament_id = $1 AND player_id = $2")
                .arg(change.tournament_id)
                .arg(change.player_id),
            Entry::Withdraw => sqlx::query(
                "UPDATE tournament_players SET left_at = $3 WHERE tournament_id = $1 AND player_id = $2 \
                 AND left_at IS NULL",
            )
            .arg(change.tournament_id)
            .arg(change.player_id)
            .arg(change.now),
        };
        statement
            .execute(B::DB::connected(&mut *tx))
            .await
            .map_err(StoreError::from_write)?;
        tx.commit().await?;
        Ok(true)
    }

    async fn due_tournaments(&self, now: i64, limit: i64) -> StoreResult<Vec<i64>> {
        Ok(sqlx::query(
            "SELECT id FROM tournaments WHERE status = 'open' AND starts_at IS NOT NULL AND starts_at <= $1 \
             ORDER BY starts_at LIMIT $2",
        )
        .arg(now)
        .arg(limit)
        .scalars()
        .fetch_all(self.db())
        .await?)
    }

    async fn step_tournament(&self, step: TournamentStep) -> StoreResult<()> {
        self.commits().tournament(step).await
    }
}
