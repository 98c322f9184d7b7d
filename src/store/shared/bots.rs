//! [`BotStore`] for every backend: statements both databases run as they
//! are.

use async_trait::async_trait;

use super::super::backend::Backend;
use super::super::binding::{Select, SharedSql, Statement};
use super::super::bots::NO_PASSWORD;
use super::super::sql::PLAYER;
use super::super::{BotRow, BotStore, NewBot, Player, StoreError, StoreResult};

#[async_trait]
impl<B: Backend> BotStore for B {
    async fn ensure_bot(&self, bot: NewBot) -> StoreResult<Option<Player>> {
        {
            let _turn = self.write_turn().await;
            let mut tx = self.pool().begin().await?;
            sqlx::query(
                "INSERT INTO players (name, name_key, email, password_hash, created_at, bot) \
                 VALUES ($1, $2, NULL, $3, $4, $5) ON CONFLICT (name_key) DO NOTHING",
            )
            .arg(bot.name.as_str())
            .arg(bot.name_key.as_str())
            .arg(NO_PASSWORD)
            .arg(bot.now)
            .arg(true)
            .execute(B::DB::connected(&mut *tx))
            .await
            .map_err(StoreError::from_write)?;
            sqlx::query(
                "INSERT INTO player_streams (player_id) SELECT id FROM players WHERE name_key = $1 \
                 ON CONFLICT (player_id) DO NOTHING",
            )
            .arg(bot.name_key.as_str())
            .execute(B::DB::connected(&mut *tx))
            .await
            .map_err(StoreError::from_write)?;
            // Only an account nobody can sign in to becomes a bot.
            sqlx::query(
                "INSERT INTO bots (player_id, level, created_at) \
                 SELECT id, $2, $3 FROM players WHERE name_key = $1 AND password_hash = $4 \
                 ON CONFLICT (player_id) DO UPDATE SET level = excluded.level",
            )
            .arg(bot.name_key.as_str())
            .arg(bot.level.as_str())
            .arg(bot.now)
            .arg(NO_PASSWORD)
            .execute(B::DB::connected(&mut *tx))
            .await
            .map_err(StoreError::from_write)?;
            tx.commit().await.map_err(StoreError::from_write)?;
        }
        let query = format!("{PLAYER} WHERE name_key = $1 AND id IN (SELECT player_id FROM bots)");
        Ok(sqlx::query(&query)
            .arg(bot.name_key.as_str())
            .rows()
            .fetch_optional(self.db())
            .await?)
    }

    async fn bots(&self) -> StoreResult<Vec<BotRow>> {
        Ok(sqlx::query(
            "SELECT b.player_id, p.name, b.level FROM bots b JOIN players p ON p.id = b.player_id \
             ORDER BY b.player_id",
        )
        .rows()
        .fetch_all(self.db())
        .await?)
    }
}
