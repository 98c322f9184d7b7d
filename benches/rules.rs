//! Rules speed: random plies per second for every variant of the catalogue
//! (choose a legal move uniformly, apply it, check the end; a finished game
//! starts over), and complete random playouts per second where an issue sets
//! a target for them.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use tavoliere::rules::catalogue::GAMES;
use tavoliere::rules::gravity::Gravity;
use tavoliere::rules::pente::{Pente, Variant};
use tavoliere::rules::playout::{random_playout, Rng};
use tavoliere::rules::{AnyGame, Rules};

fn random_plies(c: &mut Criterion) {
    let mut group = c.benchmark_group("random plies");
    group.throughput(Throughput::Elements(1));
    for game in GAMES {
        for variant in game.variants {
            let start = (variant.start)();
            let mut position = start.clone();
            let mut rng = Rng::new(0x7a40_11e5);
            group.bench_function(BenchmarkId::new(game.slug, variant.slug), |b| {
                b.iter(|| {
                    if !position.play_random(&mut rng) {
                        position = start.clone();
                    }
                    black_box(&position);
                })
            });
        }
    }
    group.finish();
}

/// A whole playout per iteration, on the concrete type.
fn playouts_of<G: Rules>(c: &mut Criterion, name: &str, start: G) {
    let mut group = c.benchmark_group("random playouts");
    group.throughput(Throughput::Elements(1));
    let mut rng = Rng::new(0x5eed);
    group.bench_function(name, |b| {
        b.iter(|| {
            let mut game = start.clone();
            black_box(random_playout(&mut game, &mut rng, u32::MAX))
        })
    });
    group.finish();
}

fn random_playouts(c: &mut Criterion) {
    playouts_of(c, "gravity/standard", Gravity::new());
    playouts_of(c, "pente/standard", Pente::new(Variant::Standard));
}

/// Rebuilding a stored game from its move list, as the server does on a
/// cold game.
fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay");
    for game in GAMES {
        let variant = &game.variants[0];
        let mut position = (variant.start)();
        let moves = position.play_random_line(&mut Rng::new(42), 60);
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function(BenchmarkId::new(game.slug, moves.len()), |b| {
            b.iter(|| AnyGame::replay(game.slug, Some(variant.slug), black_box(&moves)).expect("replays"))
        });
    }
    group.finish();
}

criterion_group!(benches, random_plies, random_playouts, replay);
criterion_main!(benches);
