//! The constraints the OpenAPI document declares on parameters and bodies,
//! and the server's enforcement of exactly those: page sizes within their
//! bounds (else 400, not a silent clamp), the catalogue's game and variant
//! slugs, the player-name pattern. One definition each, used by the
//! `IntoParams`/`ToSchema` attributes and by deserialisation alike; the
//! slugs' and the name's schemas are defined beside what they describe
//! (`domain`, `players::input`), for the services' request types too, and
//! named here again for the doors.

use serde::{Deserialize, Deserializer};
use utoipa::IntoParams;

pub use crate::domain::{game_slug, variant_slug};
pub use crate::players::input::player_name;
use crate::rules::catalogue::GAMES;

/// A game's variant in a path: `/…/{game}/{variant}`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct VariantPath {
    #[param(schema_with = game_slug)]
    pub game: String,
    #[param(schema_with = variant_slug)]
    pub variant: String,
}

/// A player in a path: `/players/{name}/…`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct NamePath {
    #[param(schema_with = player_name)]
    pub name: String,
}

/// An optional integer in `MIN..=MAX` (serde `deserialize_with`): out of
/// range is a parse error, which the `Query` extractor answers with 400.
pub fn in_range<'de, D: Deserializer<'de>, const MIN: i64, const MAX: i64>(
    deserializer: D,
) -> Result<Option<i64>, D::Error> {
    let value = Option::<i64>::deserialize(deserializer)?;
    match value {
        Some(n) if !(MIN..=MAX).contains(&n) => {
            Err(serde::de::Error::custom(format!("{n} is out of range: {MIN} to {MAX}")))
        }
        other => Ok(other),
    }
}

/// An optional game slug (serde `deserialize_with`): one of the
/// catalogue's, else a parse error (400).
pub fn known_game<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(deserializer)?;
    match value {
        Some(slug) if crate::rules::catalogue::game(&slug).is_none() => {
            let known: Vec<&str> = GAMES.iter().map(|g| g.slug).collect();
            Err(serde::de::Error::custom(format!(
                "unknown game {slug:?}; games are {}",
                known.join(", ")
            )))
        }
        other => Ok(other),
    }
}

/// An optional player's name (serde `deserialize_with`): one that
/// [`PlayerName`](crate::players::input::PlayerName) accepts, else a parse
/// error (400).
pub fn valid_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let value = Option::<String>::deserialize(deserializer)?;
    match value {
        Some(name) if name.parse::<crate::players::input::PlayerName>().is_err() => {
            Err(serde::de::Error::custom(format!("{name:?} is not a player's name")))
        }
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    struct Page {
        #[serde(default, deserialize_with = "in_range::<_, 1, 100>")]
        limit: Option<i64>,
    }

    fn parse(body: &str) -> Result<Option<i64>, String> {
        serde_json::from_str::<Page>(body)
            .map(|p| p.limit)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn page_sizes_are_refused_outside_their_bounds() {
        assert_eq!(parse("{}"), Ok(None));
        assert_eq!(parse(r#"{"limit":1}"#), Ok(Some(1)));
        assert_eq!(parse(r#"{"limit":100}"#), Ok(Some(100)));
        assert!(parse(r#"{"limit":0}"#).unwrap_err().contains("out of range: 1 to 100"));
        assert!(parse(r#"{"limit":101}"#).is_err());
        assert!(parse(r#"{"limit":-5}"#).is_err());
    }

    #[test]
    fn every_game_and_variant_is_in_the_enums() {
        let games = serde_json::to_value(game_slug()).unwrap();
        let variants = serde_json::to_value(variant_slug()).unwrap();
        for game in GAMES {
            assert!(games["enum"].as_array().unwrap().contains(&game.slug.into()));
            for variant in game.variants {
                assert!(variants["enum"].as_array().unwrap().contains(&variant.slug.into()));
            }
        }
    }
}
