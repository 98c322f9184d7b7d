//! The PostgreSQL backend, through a connection pool.

use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};

pub struct PgStore {
    pool: PgPool,
    commits: super::group_commit::GroupCommit,
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<PgStore, sqlx::Error> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let commits = PgStore::group_commit(&pool);
        Ok(PgStore { pool, commits })
    }
}

super::impl_store!(PgStore, sqlx::Postgres, "postgres");
super::notify::impl_notify_store!(PgStore, sqlx::Postgres);
