//! `tavoliere ratings rebuild`: recomputes every rating from the stored
//! games and replaces the stored ratings and histories with the result,
//! saying how many stored ratings differed (none, when nothing went
//! wrong). Run it with the servers stopped, and with the rating flags they
//! run with: a game ending while it runs is not in its replay.

use std::fmt;

use clap::{Args, Subcommand};

use crate::config::{DataConfig, RatingConfig};
use crate::ratings::{Ratings, Rebuilt};

#[derive(Debug, Subcommand)]
pub enum RatingsCommand {
    /// Recompute every rating from the stored games and store the result.
    Rebuild(RebuildArgs),
}

#[derive(Clone, Debug, Args)]
pub struct RebuildArgs {
    #[command(flatten)]
    pub data: DataConfig,
    #[command(flatten)]
    pub ratings: RatingConfig,
    /// Only compare: store nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Runs the rebuild `args` ask for.
pub async fn rebuild(args: &RebuildArgs) -> Result<Rebuilt, Box<dyn std::error::Error + Send + Sync>> {
    let store = crate::store::connect(&args.data.database_url.0).await?;
    let ratings = Ratings::new(store, args.ratings.params(args.data.clock_day_ms));
    Ok(ratings.rebuild(args.dry_run).await?)
}

impl fmt::Display for Rebuilt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replayed {} rated games: {} ratings, {} rating changes; {} stored ratings differed",
            self.games,
            self.ratings.len(),
            self.changes.len(),
            self.differing
        )
    }
}
