use super::*;
use crate::rules::catalogue::GAMES;
use crate::rules::neighbours::Neighbours;
use crate::rules::{Bitboard, Rules, Seat, Square};

fn pente(moves: &[&str]) -> AnyGame {
    AnyGame::replay("pente", None, moves).expect("a legal line")
}

#[test]
fn takes_a_pente_win_in_one() {
    // White has k10–k13, k9 is black's: k14 wins at once.
    let game = pente(&["k10", "k9", "k11", "a1", "k12", "a3", "k13", "a5"]);
    for level in [Level::Intermediate, Level::Strongest] {
        assert_eq!(choose(&game, level, 1).as_deref(), Some("k14"), "{level}");
    }
}

#[test]
fn the_strongest_makes_a_pente_open_four_the_intermediate_does_not_see() {
    // White has k10 k11 k12 with both ends open, black's stones far off:
    // k13 (or k9) makes an open four, which no single reply stops.
    let game = pente(&["k10", "a1", "k11", "a3", "k12", "a5"]);
    let Position::Pente(pente) = game.position() else {
        panic!("a Pente game")
    };
    let moves = search::candidates(pente);
    let win = tactics::winning_in_two(pente, &moves).map(|m| m.to_string());
    assert!(matches!(win.as_deref(), Some("k13") | Some("k9")), "{win:?}");
    assert_eq!(choose(&game, Level::Strongest, 1), win);
    // Nothing wins in two from the start.
    let start = AnyGame::new("pente", None).expect("known");
    let Position::Pente(start) = start.position() else {
        panic!("a Pente game")
    };
    assert_eq!(tactics::winning_in_two(start, &search::candidates(start)), None);
}

#[test]
fn blocks_a_pente_four() {
    let game = pente(&["k10", "k9", "k11", "a1", "k12", "a3", "k13"]);
    for seed in 0..3 {
        assert_eq!(choose(&game, Level::Intermediate, seed).as_deref(), Some("k14"));
    }
}

#[test]
fn blocks_a_gravity_three() {
    // Yellow has a1 b1 c1 along the bottom edge; d1 would make four. A piece
    // entered on d1 stays on the edge, so red must take d1 itself.
    let game = AnyGame::replay("gravity", None, &["a1", "h8", "b1", "h7", "c1"]).expect("legal");
    let answer = choose(&game, Level::Intermediate, 5).expect("a move");
    let mut after = game.clone();
    after.play(&answer).expect("legal");
    let mut yellow = after.clone();
    assert!(
        yellow.play("d1").is_err() || !yellow.outcome().is_some_and(|o| o.winners.contains(0)),
        "{answer} lets yellow win on d1"
    );
}

#[test]
fn the_same_seed_gives_the_same_move() {
    for slug in ["focus", "torri", "huntsmen"] {
        let game = AnyGame::new(slug, None).expect("known");
        let first = choose(&game, Level::Intermediate, 42);
        assert!(first.is_some());
        assert_eq!(first, choose(&game, Level::Intermediate, 42), "{slug}");
    }
}

#[test]
fn a_search_runs_exactly_its_budget() {
    let game = crate::rules::focus::Focus::new(crate::rules::focus::Variant::NoSwap, crate::rules::focus::Limit::Five);
    let moves = search::candidates(&game);
    let mut rng = Rng::new(3);
    let searched = search::search(&game, moves, 250, &mut rng);
    assert!(searched.best.is_some());
    assert_eq!(searched.playouts, 250);
}

#[test]
fn a_finished_game_has_no_move() {
    let mut game = AnyGame::new("gravity", None).expect("known");
    while let Some(m) = random(&game, game.ply() as u64) {
        game.play(&m).expect("legal");
    }
    assert_eq!(choose(&game, Level::Strongest, 1), None);
}

/// Random play against these levels can drag a game of this family out
/// past any limit: Torri at both levels, five-limit Focus against the
/// beginner (whose 60 playouts are fewer than Focus's moves). Those games
/// stop after 300 plies: a limit of the test, not of the bot.
fn may_wander(game: &str, level: Level) -> bool {
    game == "torri" || (game == "focus" && level == Level::Beginner)
}

/// Every variant: a whole game of each level against random moves ends,
/// every move legal (about half a minute of a release build, most of it
/// the strongest level's Pente).
#[test]
fn every_variant_plays_to_the_end() {
    for game in GAMES {
        for variant in game.variants {
            for (i, level) in Level::ALL.into_iter().enumerate() {
                let wanders = may_wander(game.slug, level);
                let limit = if wanders { 300 } else { 3000 };
                let mut position = (variant.start)();
                let seats = variant.seats.len();
                let bot_seat = i % seats;
                while !position.is_finished() && position.ply() < limit {
                    let seed = position.ply() as u64;
                    let to_move = position.to_move().expect("a seat to move") as usize;
                    let m = if to_move == bot_seat {
                        choose(&position, level, seed)
                    } else {
                        random(&position, seed)
                    }
                    .expect("an unfinished game has a move");
                    position
                        .play(&m)
                        .unwrap_or_else(|e| panic!("{} {m}: {e}", position.id()));
                }
                assert!(
                    position.is_finished() || wanders,
                    "{} did not end against {level}",
                    position.id()
                );
            }
        }
    }
}

/// A Vicini Amici position from its squares (white's, black's).
fn friendly(white: &str, black: &str, ply: u32) -> Neighbours {
    let squares = |list: &str| {
        let mut board = Bitboard::EMPTY;
        for s in list.split_whitespace() {
            board.set(s.parse().expect("a square"));
        }
        board
    };
    Neighbours::with_pieces(true, [squares(white), squares(black)], ply)
}

#[test]
fn in_vicini_amici_the_side_ahead_gains_by_closing_in() {
    // White's three against black's pair on g8 h8: beside it, or across
    // the board.
    let near = friendly("f7 g7 h7", "g8 h8", 0);
    let far = friendly("a1 b1 c1", "g8 h8", 0);
    assert_eq!(heuristics::closing_in(near.pieces(0), near.pieces(1)), 1.0);
    assert_eq!(heuristics::closing_in(far.pieces(0), far.pieces(1)), 0.0);
    assert_eq!(near.playout_plies(), Some(4));
    let plain = Neighbours::with_pieces(false, [near.pieces(0), near.pieces(1)], 0);
    assert_eq!(plain.playout_plies(), Neighbours::CUTOFF);
    assert_eq!(plain.evaluate()[0], (3.0f32).ln_1p(), "plain Vicini: material alone");
    let (near, far) = (near.evaluate(), far.evaluate());
    assert!(near[0] > far[0], "{near:?} against {far:?}");
    assert_eq!(near[1], far[1], "the side behind gains nothing");
    // Even material: material alone, and full playouts.
    let even = friendly("f7 f6", "g8 h8", 0);
    assert_eq!(even.evaluate()[0], (2.0f32).ln_1p());
    assert_eq!(even.playout_plies(), Neighbours::CUTOFF);
}

/// The strongest level's win in two in Vicini Amici: over random endgames
/// (white's three or four against black's pair, white to move), every win
/// in two it finds is one (no win in one, and every black reply leaves
/// white a capture that ends the game), and it finds some.
#[test]
fn vicini_amici_wins_in_two_are_wins_in_two() {
    let mut rng = Rng::new(7);
    let mut found = 0;
    for _ in 0..400 {
        let Some(game) = hunts(&mut rng, 3 + found % 2) else {
            continue;
        };
        let moves = search::candidates(&game);
        if tactics::winning_move(&game, &moves).is_some() {
            continue;
        }
        let Some(win) = tactics::winning_in_two(&game, &moves) else {
            continue;
        };
        found += 1;
        let mut next = game.clone();
        next.play_unchecked(win);
        assert!(next.outcome().is_none());
        let mut replies = <Neighbours as Rules>::MoveList::default();
        next.legal_moves(&mut replies);
        assert!(!replies.is_empty());
        for reply in replies {
            let mut after = next.clone();
            after.play_unchecked(reply);
            let answers = search::candidates(&after);
            assert!(
                tactics::winning_move(&after, &answers).is_some(),
                "{win} then {reply}: no win"
            );
        }
    }
    assert!(found > 0, "no win in two among the endgames");
}

/// Random Vicini Amici endgames: white's `hunters` pieces against black's
/// pair, white to move.
fn hunts(rng: &mut Rng, hunters: usize) -> Option<Neighbours> {
    let mut squares: Vec<u8> = (0..64).collect();
    let mut white = Bitboard::EMPTY;
    for _ in 0..hunters {
        white.set(Square::from_index(squares.swap_remove(rng.below(squares.len()))));
    }
    let first = Square::from_index(squares[rng.below(squares.len())]);
    let beside = first.offset(1, 0).or(first.offset(-1, 0))?;
    if white.contains(beside) {
        return None;
    }
    let mut black = first.bit();
    black.set(beside);
    let game = Neighbours::with_pieces(true, [white, black], 0);
    game.outcome().is_none().then_some(game)
}

/// Minimax without pruning or ordering, from the reading's own leaves.
fn plain_minimax(game: &Neighbours, depth: u32, seat: Seat) -> f32 {
    if let Some(worth) = endgame::ended(game, seat) {
        return worth;
    }
    if depth == 0 {
        return endgame::standing(game, seat);
    }
    let mut moves = <Neighbours as Rules>::MoveList::default();
    game.legal_moves(&mut moves);
    moves
        .iter()
        .map(|&m| {
            let mut next = game.clone();
            next.play_unchecked(m);
            -plain_minimax(&next, depth - 1, 1 - seat)
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

#[test]
fn the_endgame_reading_is_minimax() {
    let mut rng = Rng::new(11);
    let mut read = 0;
    while read < 30 {
        let Some(game) = hunts(&mut rng, 3) else { continue };
        read += 1;
        assert_eq!(endgame::value(&game, 3, 0), plain_minimax(&game, 3, 0), "{game:?}");
        let found = endgame::best(&game, &search::candidates(&game), 3).expect("a move");
        // A forced win ends the deepening early.
        assert!(found.depth == 3 || found.value > 999.0, "{found:?}");
        assert_eq!(found.value, plain_minimax(&game, found.depth, 0), "{game:?}");
    }
}

/// Over random endgames (four against a pair), the reading finds wins no
/// win in two sees, and each is one: after it, every reply of black's
/// leaves white a win in one or two.
#[test]
fn the_endgame_reading_finds_wins_beyond_two() {
    let mut rng = Rng::new(5);
    let mut found = 0;
    for _ in 0..300 {
        let Some(game) = hunts(&mut rng, 4) else { continue };
        let moves = search::candidates(&game);
        if tactics::winning_move(&game, &moves).is_some() || tactics::winning_in_two(&game, &moves).is_some() {
            continue;
        }
        let read = endgame::best(&game, &moves, 5).expect("a move");
        if read.value < 999.0 {
            continue;
        }
        found += 1;
        let mut next = game.clone();
        next.play_unchecked(read.best);
        for reply in search::candidates(&next) {
            let mut after = next.clone();
            after.play_unchecked(reply);
            let answers = search::candidates(&after);
            assert!(
                after.outcome().is_some_and(|o| o.winners.contains(0))
                    || tactics::winning_move(&after, &answers).is_some()
                    || tactics::winning_in_two(&after, &answers).is_some(),
                "{} then {reply}: no win in two",
                read.best
            );
        }
    }
    assert!(found > 0, "no win in three among the endgames");
}

#[test]
fn vicini_amici_endgames_of_few_pieces_are_read_by_minimax() {
    assert_eq!(friendly("f7 g7 h7", "g8 h8", 0).endgame_depth(), Some(9));
    assert_eq!(
        friendly("a1 b1 c1 d1 e1", "g8 h8", 0).endgame_depth(),
        Some(9),
        "seven pieces"
    );
    assert_eq!(friendly("f7 g7", "g8 h8", 0).endgame_depth(), None, "even material");
    let many = friendly("a1 b1 c1 d1 e1", "g8 h8 a8", 0);
    assert_eq!(many.endgame_depth(), None, "eight pieces");
    let ahead = friendly("f7 g7 h7", "g8 h8", 0);
    let plain = Neighbours::with_pieces(false, [ahead.pieces(0), ahead.pieces(1)], 0);
    assert_eq!(plain.endgame_depth(), None, "plain Vicini");
}
