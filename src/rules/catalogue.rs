//! What games Tavoliere knows: slugs, names, seats, boards, summaries and
//! notation guides, read by the server's `GET /rules` and by players.

use serde::Serialize;

use super::any::{AnyGame, UnknownGame};
use super::{focus, gravity, huntsmen, neighbours, pente, torri};

/// A game family: one module of `src/rules/`, one or more variants.
#[derive(Debug, Serialize)]
pub struct GameInfo {
    pub slug: &'static str,
    /// The name on the seed's Italian rule page.
    pub italian: &'static str,
    pub english: &'static str,
    pub summary: &'static str,
    /// How to write a move, for players.
    pub notation: &'static str,
    pub variants: &'static [VariantInfo],
}

#[derive(Debug, Serialize)]
pub struct VariantInfo {
    pub slug: &'static str,
    pub name: &'static str,
    /// Colour of each seat, seat 0 (who moves first) first.
    pub seats: &'static [&'static str],
    /// The board's geometry in a few words.
    pub board: &'static str,
    /// How this variant differs from the family's summary.
    pub summary: &'static str,
    #[serde(skip)]
    pub start: fn() -> AnyGame,
}

/// Every game served, in the order the catalogue lists them.
pub static GAMES: &[&GameInfo] = &[
    &gravity::INFO,
    &torri::INFO,
    &focus::FOCUS,
    &focus::LINES_OF_FOCUS,
    &neighbours::INFO,
    &pente::INFO,
    &huntsmen::INFO,
    &huntsmen::ANNUVIN,
];

pub fn game(slug: &str) -> Option<&'static GameInfo> {
    GAMES.iter().copied().find(|g| g.slug == slug)
}

/// Finds a `(game, variant)` by slug; the variant defaults to `standard`.
pub fn find(
    game_slug: &str,
    variant_slug: Option<&str>,
) -> Result<(&'static GameInfo, &'static VariantInfo), UnknownGame> {
    let game = game(game_slug).ok_or_else(|| UnknownGame::game(game_slug))?;
    let variant_slug = variant_slug.unwrap_or("standard");
    let variant = game
        .variants
        .iter()
        .find(|v| v.slug == variant_slug)
        .ok_or_else(|| UnknownGame::variant(game, variant_slug))?;
    Ok((game, variant))
}
