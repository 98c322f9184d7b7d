//! What the operator asks of the running service: whether the database
//! answers and which backend it is (`/healthz`), and how group commit fares
//! (`/metrics`).

use std::sync::Arc;

use crate::store::{CommitStats, Store, StoreError};

/// The database did not answer.
#[derive(Debug, thiserror::Error)]
#[error("the database does not answer: {0}")]
pub struct Unhealthy(#[from] StoreError);

pub struct Health {
    store: Arc<dyn Store>,
}

impl Health {
    pub fn new(store: Arc<dyn Store>) -> Health {
        Health { store }
    }

    /// The backend's name, once the database has answered.
    pub async fn check(&self) -> Result<&'static str, Unhealthy> {
        self.store.ping().await?;
        Ok(self.store.backend())
    }

    /// How many transactions carried how many game updates.
    pub fn commit_stats(&self) -> CommitStats {
        self.store.commit_stats()
    }
}
