//! [`RatingStore`] for every [`Backend`]: the reads of ratings, histories
//! and statistics, and the rebuild's wholesale replacement. A game's end
//! writes its rating changes through the group-commit writers instead
//! (`sql.rs`), in the transaction of the end.

use std::collections::HashMap;

use async_trait::async_trait;

use crate::store::backend::Backend;
use crate::store::binding::{Select, SharedSql, Statement};
use crate::store::{
    sql, LeaderboardPage, PlayedGame, RatedGame, RatingChange, RatingPoint, RatingRow, RatingStore, StoreError,
    StoreResult,
};

use crate::store::sql::RATING;

#[async_trait]
impl<B: Backend> RatingStore for B {
    async fn ratings_of(&self, game: &str, variant: &str, players: &[i64]) -> StoreResult<Vec<RatingRow>> {
        if players.is_empty() {
            return Ok(Vec::new());
        }
        // One statement for all of a table's players: a game's end asks for
        // them every time, and each statement is a round trip (PostgreSQL)
        // or a reader's page cache read again (SQLite).
        if let Some(rows) = self.direct_reads().and_then(|d| d.ratings_of(game, variant, players)) {
            return Ok(rows);
        }
        let query = sql::ratings_of(players.len());
        let mut statement = sqlx::query(&query).arg(game).arg(variant);
        for &player in players {
            statement = statement.arg(player);
        }
        Ok(statement.rows().fetch_all(self.db()).await?)
    }

    async fn leaderboard(&self, page: LeaderboardPage<'_>) -> StoreResult<Vec<RatingRow>> {
        let query = format!(
            "{RATING} WHERE r.game = $1 AND r.variant = $2 AND r.rd <= $3 \
             ORDER BY r.rating DESC, r.player_id LIMIT $4 OFFSET $5"
        );
        Ok(sqlx::query(&query)
            .arg(page.game)
            .arg(page.variant)
            .arg(page.max_rd)
            .arg(page.limit)
            .arg(page.offset)
            .rows()
            .fetch_all(self.db())
            .await?)
    }

    async fn player_ratings(&self, player_id: i64) -> StoreResult<Vec<RatingRow>> {
        let query = format!("{RATING} WHERE r.player_id = $1 ORDER BY r.game, r.variant");
        Ok(sqlx::query(&query).arg(player_id).rows().fetch_all(self.db()).await?)
    }

    async fn all_ratings(&self) -> StoreResult<Vec<RatingRow>> {
        let query = format!("{RATING} ORDER BY r.player_id, r.game, r.variant");
        Ok(sqlx::query(&query).rows().fetch_all(self.db()).await?)
    }

    async fn rating_history(&self, player_id: i64, game: &str, variant: &str) -> StoreResult<Vec<RatingPoint>> {
        Ok(sqlx::query(
            "SELECT game_id, number, result, rating_before, rd_before, rating_after, rd_after, played_at \
             FROM rating_changes WHERE player_id = $1 AND game = $2 AND variant = $3 ORDER BY number",
        )
        .arg(player_id)
        .arg(game)
        .arg(variant)
        .rows()
        .fetch_all(self.db())
        .await?)
    }

    async fn played_games(&self, player_id: i64) -> StoreResult<Vec<PlayedGame>> {
        Ok(sqlx::query(
            "SELECT g.id, g.game, g.variant, g.status, g.outcome, s.seat, g.updated_at \
             FROM seats s JOIN games g ON g.id = s.game_id \
             WHERE s.player_id = $1 AND g.status IN ('active', 'finished') ORDER BY g.updated_at, g.id",
        )
        .arg(player_id)
        .rows()
        .fetch_all(self.db())
        .await?)
    }

    async fn opponents_met(&self, player_id: i64, limit: i64) -> StoreResult<Vec<(String, i64)>> {
        Ok(sqlx::query(
            "SELECT p.name, COUNT(*) AS games FROM seats s \
             JOIN games g ON g.id = s.game_id \
             JOIN seats o ON o.game_id = s.game_id AND o.player_id <> s.player_id \
             JOIN players p ON p.id = o.player_id \
             WHERE s.player_id = $1 AND g.status IN ('active', 'finished') \
             GROUP BY p.name ORDER BY COUNT(*) DESC, p.name LIMIT $2",
        )
        .arg(player_id)
        .arg(limit)
        .rows()
        .fetch_all(self.db())
        .await?)
    }

    async fn rated_games(&self) -> StoreResult<Vec<RatedGame>> {
        // Grouped by the key alone: every other column of `g` depends on it.
        let mut games: Vec<RatedGame> = sqlx::query(
            "SELECT g.id, g.game, g.variant, g.outcome, COALESCE(MAX(c.played_at), g.updated_at) AS ended_at, \
             MAX(c.ordinal) AS ordinal FROM games g LEFT JOIN rating_changes c ON c.game_id = g.id \
             WHERE g.status = 'finished' AND g.rated GROUP BY g.id \
             ORDER BY (MAX(c.ordinal) IS NULL), MAX(c.ordinal), ended_at, g.id",
        )
        .rows()
        .fetch_all(self.db())
        .await?;
        let seats: Vec<(i64, i64, i64)> = sqlx::query(
            "SELECT s.game_id, s.seat, s.player_id FROM seats s JOIN games g ON g.id = s.game_id \
             WHERE g.status = 'finished' AND g.rated AND s.player_id IS NOT NULL ORDER BY s.game_id, s.seat",
        )
        .rows()
        .fetch_all(self.db())
        .await?;
        let mut by_game: HashMap<i64, Vec<(crate::domain::Seat, i64)>> = HashMap::new();
        for (game, seat, player) in seats {
            let seat = crate::domain::Seat::try_from(seat)
                .map_err(|e| StoreError::BadRow(sqlx::Error::Decode(Box::new(e))))?;
            by_game.entry(game).or_default().push((seat, player));
        }
        for game in &mut games {
            game.seats = by_game.remove(&game.id).unwrap_or_default();
        }
        Ok(games)
    }

    async fn replace_ratings(&self, ratings: &[RatingRow], changes: &[RatingChange]) -> StoreResult<()> {
        let _turn = self.write_turn().await;
        let mut tx = self.pool().begin().await?;
        sqlx::query("DELETE FROM rating_changes")
            .execute(B::DB::connected(&mut *tx))
            .await?;
        sqlx::query("DELETE FROM ratings")
            .execute(B::DB::connected(&mut *tx))
            .await?;
        for r in ratings {
            sqlx::query(sql::INSERT_RATING)
                .arg(r.player_id)
                .arg(r.game.as_str())
                .arg(r.variant.as_str())
                .arg(r.rating)
                .arg(r.rd)
                .arg(r.volatility)
                .arg(r.games)
                .arg(r.wins)
                .arg(r.losses)
                .arg(r.draws)
                .arg(r.last_played)
                .arg(r.last_order)
                .execute(B::DB::connected(&mut *tx))
                .await
                .map_err(StoreError::from_write)?;
        }
        for c in changes {
            sql::insert_rating_change(&mut tx, c).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}
