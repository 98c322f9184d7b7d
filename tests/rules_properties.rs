//! Properties every game of the catalogue must keep, checked along random
//! games: each listed move is canonical, parses back to itself and applies;
//! arbitrary strings never panic the parser and never change a position.

use proptest::prelude::*;
use tavoliere::rules::catalogue::GAMES;
use tavoliere::rules::playout::Rng;
use tavoliere::rules::{AnyGame, MoveError};

fn all_variants() -> Vec<(&'static str, &'static str)> {
    GAMES
        .iter()
        .flat_map(|g| g.variants.iter().map(move |v| (g.slug, v.slug)))
        .collect()
}

/// A fingerprint of everything observable about a position.
fn observe(game: &AnyGame) -> String {
    format!(
        "{:?}|{:?}|{}|{:?}|{}",
        game.to_move(),
        game.outcome(),
        game.ply(),
        game.legal_moves(),
        serde_json::to_string(&game.view()).expect("views serialise")
    )
}

/// Plays a random game of `(game, variant)` for at most `plies` moves,
/// checking at every step that the listed moves are canonical and legal.
fn check_random_game(game: &str, variant: &str, seed: u64, plies: usize) -> Result<(), TestCaseError> {
    let mut position = AnyGame::new(game, Some(variant)).expect("catalogue variant");
    let mut rng = Rng::new(seed);
    for _ in 0..plies {
        let legal = position.legal_moves();
        prop_assert_eq!(
            legal.is_empty(),
            position.is_finished(),
            "{}/{} ply {}",
            game,
            variant,
            position.ply()
        );
        if legal.is_empty() {
            prop_assert_eq!(position.to_move(), None);
            break;
        }
        let mut unique = legal.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(
            unique.len(),
            legal.len(),
            "duplicate legal moves in {}/{}",
            game,
            variant
        );
        // Every listed move is canonical and accepted (sampled, for speed).
        for _ in 0..4 {
            let m = &legal[rng.below(legal.len())];
            prop_assert_eq!(&position.check(m).map_err(|e| TestCaseError::fail(e.to_string()))?, m);
            prop_assert_eq!(
                &position
                    .check(&m.to_uppercase())
                    .map_err(|e| TestCaseError::fail(e.to_string()))?,
                m
            );
        }
        let chosen = legal[rng.below(legal.len())].clone();
        let played = position
            .play(&chosen)
            .map_err(|e| TestCaseError::fail(format!("{chosen}: {e}")))?;
        prop_assert_eq!(played.notation, chosen);
    }
    if position.is_finished() {
        prop_assert_eq!(position.play("a1"), Err(MoveError::GameOver));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn listed_moves_are_canonical_and_apply(seed in any::<u64>()) {
        for (game, variant) in all_variants() {
            check_random_game(game, variant, seed, 400)?;
        }
    }

    #[test]
    fn arbitrary_strings_never_panic_or_change_a_position(
        seed in any::<u64>(),
        plies in 0usize..40,
        junk in prop::collection::vec(".{0,12}|[a-zA-Z+N]{0,2}[0-9]{0,3}[-x<>+]{0,2}[a-zA-Z]?[0-9]{0,3}[-x+]{0,3}", 1..8),
    ) {
        for (game, variant) in all_variants() {
            let mut position = AnyGame::new(game, Some(variant)).expect("catalogue variant");
            let mut rng = Rng::new(seed);
            for _ in 0..plies {
                if !position.play_random(&mut rng) {
                    break;
                }
            }
            for text in &junk {
                let before = observe(&position);
                let checked = position.check(text);
                let mut copy = position.clone();
                match copy.play(text) {
                    Ok(played) => prop_assert_eq!(Ok(played.notation), checked),
                    Err(e) => {
                        prop_assert_eq!(Err(e.clone()), checked);
                        prop_assert!(!e.to_string().is_empty());
                        prop_assert_eq!(observe(&copy), before);
                    }
                }
            }
        }
    }
}

#[test]
fn replaying_a_game_reaches_the_same_position() {
    for (game, variant) in all_variants() {
        let mut position = AnyGame::new(game, Some(variant)).expect("catalogue variant");
        let moves = position.play_random_line(&mut Rng::new(7), 200);
        let replayed = AnyGame::replay(game, Some(variant), &moves).expect("replays");
        assert_eq!(observe(&replayed), observe(&position), "{game}/{variant}");
    }
}
