//! Perft counts (the number of move sequences of a given length from the
//! start) for every variant, kept as regression data in `tests/perft/<game>.txt`:
//! one line per count, `<variant> <depth> <count>`, `#` for comments.

use std::fs;

use tavoliere::rules::catalogue::GAMES;
use tavoliere::rules::AnyGame;

#[test]
fn perft_counts_match_the_regression_data() {
    let mut checked = 0;
    for game in GAMES {
        let path = format!("{}/tests/perft/{}.txt", env!("CARGO_MANIFEST_DIR"), game.slug);
        let data = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut variants_seen = Vec::new();
        for line in data
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [variant, depth, count] = fields[..] else {
                panic!("{path}: bad line {line:?}")
            };
            let start = AnyGame::new(game.slug, Some(variant)).unwrap_or_else(|e| panic!("{path}: {e}"));
            let depth: u32 = depth.parse().expect("depth");
            let count: u64 = count.parse().expect("count");
            assert_eq!(start.perft(depth), count, "{}/{variant} perft({depth})", game.slug);
            variants_seen.push(variant.to_string());
            checked += 1;
        }
        for variant in game.variants {
            assert!(
                variants_seen.iter().any(|v| v == variant.slug),
                "{path} has no count for {}",
                variant.slug
            );
        }
    }
    assert!(checked > 0);
}
