use std::collections::BTreeSet;

use super::*;
use crate::rules::playout::Rng;
use crate::rules::testing::{assert_notation, legal, play_randomly, sq};

const ALL: [Variant; 9] = [
    Variant::Standard,
    Variant::Orthogonal,
    Variant::Empty,
    Variant::OrthogonalEmpty,
    Variant::Hex,
    Variant::HexEmpty,
    Variant::Eight,
    Variant::Annuvin,
    Variant::AnnuvinEmpty,
];

fn set(names: &str) -> Bitboard {
    names.split_whitespace().fold(Bitboard::EMPTY, |b, n| b | sq(n).bit())
}

/// A position of `variant` with the pieces named, `hand` pieces in hand each
/// and `to_move` to move.
fn position(variant: Variant, white: &str, black: &str, hand: [u8; 2], to_move: Seat) -> Huntsmen {
    let mut game = Huntsmen::new(variant);
    game.pieces = [set(white), set(black)];
    game.in_hand = hand;
    game.progress.ply = to_move as u32;
    game
}

fn play(variant: Variant, moves: &str) -> Huntsmen {
    let mut game = Huntsmen::new(variant);
    for m in moves.split_whitespace() {
        game.play_str(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    game
}

/// The legal moves of the piece on `from`, sorted.
fn moves_of(game: &Huntsmen, from: &str) -> Vec<String> {
    let mut moves: Vec<String> = legal(game)
        .into_iter()
        .filter(|m| m.starts_with(from) && m.len() > 2)
        .collect();
    moves.sort();
    moves
}

fn sorted(moves: &str) -> Vec<String> {
    let mut moves: Vec<String> = moves.split_whitespace().map(String::from).collect();
    moves.sort();
    moves
}

fn error(game: &Huntsmen, m: &str) -> String {
    game.legalize(m.parse().unwrap()).unwrap_err().to_string()
}

fn canonical(game: &Huntsmen, m: &str) -> String {
    game.legalize(m.parse().unwrap()).unwrap().to_string()
}

// ---------------------------------------------------------------- seed vectors

#[test]
fn seed_the_ten_opening_moves() {
    let game = Huntsmen::new(Variant::Standard);
    assert_eq!(
        legal(&game),
        sorted("a1-a2 a1-b2 b1-a2 b1-b2 b1-c2 c1-b2 c1-c2 c1-d2 d1-c2 d1-d2")
    );
}

#[test]
fn seed_the_moves_of_a4_b4_and_c4_after_a_capture() {
    let game = play(Variant::Standard, "c1-c2 d4-c3 c2xc3");
    assert_eq!(game.range(1), 2);
    assert_eq!(moves_of(&game, "a4"), sorted("a4-a3 a4-a2 a4-b3 a4-b2 a4-c2 a4xc3"));
    for piece in ["b4", "c4"] {
        let expected = ["a3", "a2", "b3", "b2", "c2", "d4", "d3", "d2"]
            .iter()
            .map(|to| format!("{piece}-{to}"))
            .chain([format!("{piece}xc3")])
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(moves_of(&game, piece), sorted(&expected), "{piece}");
    }
}

#[test]
fn seed_the_captures_of_b3_including_the_chain() {
    let game = play(Variant::Standard, "c1-c2 d4-c3 c2xc3 b4-b3 d1-d2");
    let captures: Vec<String> = moves_of(&game, "b3").into_iter().filter(|m| m.contains('x')).collect();
    assert_eq!(captures, sorted("b3xa1 b3xb1 b3xc3 b3xd2 b3xc3xd2"));
    assert_eq!(
        game.describe("b3xc3xd2".parse().unwrap()).as_deref(),
        Some("captures c3 and d2")
    );
}

#[test]
fn seed_the_captures_of_b1_after_the_chain() {
    let game = play(Variant::Standard, "c1-c2 d4-c3 c2xc3 b4-b3 d1-d2 b3xc3xd2");
    assert_eq!(game.range(0), 3);
    let captures: Vec<String> = moves_of(&game, "b1").into_iter().filter(|m| m.contains('x')).collect();
    assert_eq!(captures, sorted("b1xa4 b1xc4 b1xd2"));
    // No chain after b1xd2: its credit of 1 reaches no black piece.
    assert_eq!(
        error(&game, "b1xd2xc3"),
        "a chain leg must capture: c3 holds no black piece"
    );
}

// ---------------------------------------------------------------- range

#[test]
fn range_is_one_plus_pieces_lost() {
    for (variant, pieces) in [(Variant::Standard, 4), (Variant::Eight, 8), (Variant::Annuvin, 6)] {
        let game = Huntsmen::new(variant);
        assert_eq!(game.range(0), 1);
        for lost in 0..pieces {
            let mut game = game.clone();
            let mut kept = game.pieces[0];
            for _ in 0..lost {
                kept = Bitboard(kept.0 & (kept.0 - 1));
            }
            game.pieces[0] = kept;
            assert_eq!(game.range(0), 1 + lost, "{variant:?} lost {lost}");
            assert_eq!(game.view().seats[0].range, Some(1 + lost as u32));
            assert_eq!(game.view().seats[1].captured, Some(lost as u32));
        }
    }
}

#[test]
fn out_of_range_moves_say_how_far_and_what_range() {
    let game = play(Variant::Standard, "c1-c2 d4-c3 c2xc3");
    assert_eq!(error(&game, "a4-a1"), "a1 is 3 away, black's range is 2");
    let game = Huntsmen::new(Variant::Standard);
    assert_eq!(error(&game, "a1-a3"), "a3 is 2 away, white's range is 1");
    assert_eq!(error(&game, "a1-b1"), "b1 holds one of white's own pieces");
    assert_eq!(error(&game, "a2-a3"), "there is no piece on a2");
    assert_eq!(error(&game, "a4-a3"), "the piece on a4 is black's, not white's");
    assert_eq!(error(&game, "a1-a1"), "a move must leave its square: a1 to a1");
    assert_eq!(error(&game, "a1-e1"), "e1 is not a square of this board");
    assert_eq!(error(&game, "b2"), "white has no pieces in hand");
}

#[test]
fn king_distance_moves_reach_a_square_ring() {
    // One white piece left on c3 of the 8×8 board: range 8 reaches every cell.
    let game = position(Variant::Eight, "c3", "a8 b8 c8 d8 e8 f8 g8", [0, 0], 0);
    assert_eq!(game.range(0), 8);
    assert_eq!(
        moves_of(&game, "c3").iter().filter(|m| !m[3..].contains('x')).count(),
        63
    );
    // Two pieces lost: range 3, the 7×7 block around d4 less d4 is 48 cells.
    let game = position(
        Variant::Eight,
        "d4 a1 b1 c1 e1 f1",
        "a8 b8 c8 d8 e8 f8 g8 h8",
        [0, 0],
        0,
    );
    assert_eq!(game.range(0), 3);
    // The 7×7 block around d4, less d4 and the five white pieces in it.
    assert_eq!(moves_of(&game, "d4").len(), 43);
    assert_eq!(error(&game, "d4-h4"), "h4 is 4 away, white's range is 3");
    assert_eq!(canonical(&game, "d4-g7"), "d4-g7");
}

#[test]
fn manhattan_distance_moves_only_orthogonally() {
    let game = Huntsmen::new(Variant::Orthogonal);
    assert_eq!(legal(&game), sorted("a1-a2 b1-b2 c1-c2 d1-d2"));
    assert_eq!(error(&game, "a1-b2"), "b2 is 2 away, white's range is 1");
    // Range 2 on the orthogonal board: b2 reaches a diamond of 8 cells less own.
    let game = position(Variant::Orthogonal, "b2 a1 d1", "a4 b4 c4 d4", [0, 0], 0);
    assert_eq!(game.range(0), 2);
    assert_eq!(
        moves_of(&game, "b2"),
        sorted("b2-a2 b2-c2 b2-d2 b2-b1 b2-b3 b2xb4 b2-a3 b2-c3 b2-c1")
    );
    assert_eq!(error(&game, "b2-d3"), "d3 is 3 away, white's range is 2");
}

#[test]
fn moves_pass_over_any_piece() {
    // White's a1 (range 2) jumps its own a2 and b2 and the black wall on rank 3.
    let game = position(Variant::Standard, "a1 a2 b2", "a3 b3 c3 d4", [0, 0], 0);
    assert_eq!(game.range(0), 2);
    assert_eq!(canonical(&game, "a1xa3"), "a1xa3");
    assert_eq!(canonical(&game, "a1-c1"), "a1-c1");
    // On 8×8, a rook-like leap over a full rank of pieces.
    let game = position(Variant::Eight, "d1 e1 f1", "a2 b2 c2 d2 e2 f2 g2 h2", [0, 0], 0);
    assert_eq!(game.range(0), 6);
    assert_eq!(canonical(&game, "d1-d7"), "d1-d7");
}

// ---------------------------------------------------------------- chains

#[test]
fn chains_spend_credit_and_every_prefix_is_legal() {
    // White lost 2 (range 3): b1xb2 (1) leaves credit 2: xc3 (1) then xd4 (1),
    // or xd2... d2 is 2 from b2.
    let game = position(Variant::Standard, "b1 a1", "b2 c3 d4 d2", [0, 0], 0);
    assert_eq!(game.range(0), 3);
    let b1 = moves_of(&game, "b1");
    for chain in [
        "b1xb2",
        "b1xb2xc3",
        "b1xb2xc3xd4",
        "b1xb2xc3xd2",
        "b1xb2xd2",
        "b1xb2xd4",
    ] {
        assert!(b1.contains(&chain.to_string()), "{chain} in {b1:?}");
    }
    assert!(!b1.contains(&"b1xb2xd2xc3".to_string()));
    for (chain, refusal) in [
        ("b1xb2xd2xc3", "the chain has no credit left, c3 is 1 away"),
        ("b1xb2xd4xc3", "the chain has no credit left, c3 is 1 away"),
        ("b1xc3xd4xd2", "the chain has no credit left, d2 is 2 away"),
        ("b1xd2xb2", "the chain has 1 credit left, b2 is 2 away"),
        // A leg that lands on an empty square cannot be part of a chain.
        ("b1xb2-a3", "a chain leg must capture: a3 holds no black piece"),
        ("b1-c1xc3", "a chain leg must capture: c1 holds no black piece"),
        // A piece cannot be captured twice.
        ("b1xb2xc3xb2", "a chain leg must capture: b2 holds no black piece"),
    ] {
        assert_eq!(error(&game, chain), refusal, "{chain}");
    }
    // Case is free on input; the separators are not (see
    // `separators_x_must_capture_and_dash_may`).
    assert_eq!(canonical(&game, "B1XB2XC3"), "b1xb2xc3");
    assert_eq!(
        game.describe("b1xb2xc3xd4".parse().unwrap()).as_deref(),
        Some("captures b2, c3 and d4")
    );
    let mut after = game.clone();
    after.play_str("b1xb2xc3xd4").unwrap();
    assert_eq!(after.pieces[1], set("d2"));
    assert_eq!(after.pieces[0], set("a1 d4"));
}

#[test]
fn leftover_credit_never_buys_a_plain_move() {
    let game = position(Variant::Standard, "a1 b1", "b2 d4 a4", [0, 0], 0);
    assert_eq!(game.range(0), 3);
    assert_eq!(
        error(&game, "a1xb2-c2"),
        "a chain leg must capture: c2 holds no white piece".replace("white", "black")
    );
    assert!(!moves_of(&game, "a1")
        .iter()
        .any(|m| m.matches(['x', '-']).count() > 1 && m.contains('-')));
}

#[test]
fn distinct_orders_of_a_chain_are_distinct_moves() {
    // Range 4 (one white piece left, black lost one): c2 can take b3 then d3
    // or d3 then b3, each route its own move.
    let game = position(Variant::Standard, "c2", "b3 d3 a4", [0, 0], 0);
    let moves = moves_of(&game, "c2");
    assert!(moves.contains(&"c2xb3xd3".to_string()));
    assert!(moves.contains(&"c2xd3xb3".to_string()));
    let unique: BTreeSet<_> = moves.iter().collect();
    assert_eq!(unique.len(), moves.len());
}

#[test]
fn chains_on_hex_boards_use_hex_distance() {
    // Annuvin: white lost 3 (range 4). c5 is 2 from d4 (a king step, but
    // not a hex neighbour), g7 is 3.
    let game = position(Variant::Annuvin, "d4 a1 b1", "d5 e6 c5 g7", [0, 0], 0);
    assert_eq!(game.range(0), 4);
    let board = &HEX_37;
    assert_eq!(board.distance(sq("d5"), sq("e6")), 1);
    assert_eq!(board.distance(sq("d5"), sq("c5")), 1);
    assert_eq!(board.distance(sq("e6"), sq("c5")), 2);
    assert_eq!(board.distance(sq("d4"), sq("c5")), 2);
    assert_eq!(board.distance(sq("d4"), sq("g7")), 3);
    let moves = moves_of(&game, "d4");
    for chain in ["d4xd5xe6xg7", "d4xd5xc5", "d4xc5xd5xe6", "d4xg7"] {
        assert!(moves.contains(&chain.to_string()), "{chain} in {moves:?}");
    }
    assert_eq!(error(&game, "d4xg7xc5"), "the chain has 1 credit left, c5 is 4 away");
}

// ---------------------------------------------------------------- hex boards

#[test]
fn hex_boards_have_their_cells_and_holes() {
    assert_eq!(HEX_19.cells.count(), 19);
    assert_eq!(HEX_37.cells.count(), 37);
    for hole in ["a4", "a5", "b5", "d1", "e1", "e2"] {
        assert!(!HEX_19.cells.contains(sq(hole)), "{hole}");
    }
    for hole in ["a5", "a6", "a7", "b6", "b7", "c7", "e1", "f1", "f2", "g1", "g2", "g3"] {
        assert!(!HEX_37.cells.contains(sq(hole)), "{hole}");
    }
    let game = Huntsmen::new(Variant::Hex);
    assert_eq!(error(&game, "a2-a4"), "a4 is not a square of this board");
    assert_eq!(error(&game, "c1-d1"), "d1 is not a square of this board");
    let game = Huntsmen::new(Variant::Annuvin);
    assert_eq!(error(&game, "f3-g3"), "g3 is not a square of this board");
}

#[test]
fn hex_distance_matches_the_formula_and_the_neighbours() {
    for board in [&HEX_19, &HEX_37] {
        for a in board.cells {
            let mut neighbours = 0;
            for b in board.cells {
                let (df, dr) = (b.file() as i32 - a.file() as i32, b.rank() as i32 - a.rank() as i32);
                let expected = df.abs().max(dr.abs()).max((df - dr).abs());
                assert_eq!(board.distance(a, b) as i32, expected, "{a} {b}");
                if expected == 1 {
                    neighbours += 1;
                    assert!([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)].contains(&(df, dr)));
                    // Drawn neighbours touch: centres one cell width apart.
                    let ((ax, ay), (bx, by)) = (board.centre(a), board.centre(b));
                    assert!(((ax - bx).hypot(ay - by) - 1.0).abs() < 1e-5, "{a} {b}");
                }
            }
            assert!(neighbours <= 6);
        }
    }
    assert_eq!(HEX_19.distance(sq("c1"), sq("a3")), 4);
    assert_eq!(HEX_19.distance(sq("a1"), sq("e5")), 4);
    assert_eq!(HEX_19.within(sq("c3"), 1).count(), 6);
    assert_eq!(HEX_19.within(sq("c3"), 2).count(), 18);
    assert_eq!(HEX_37.within(sq("d4"), 3).count(), 36);
}

#[test]
fn hex_openings() {
    let game = Huntsmen::new(Variant::Hex);
    let mut moves = legal(&game);
    moves.sort();
    assert_eq!(moves, sorted("a1-b2 b1-b2 b1-c2 c1-c2 c1-d2 a2-b2 a2-a3 a2-b3"));
    let game = Huntsmen::new(Variant::Annuvin);
    assert_eq!(game.pieces_left(0), 6);
    assert_eq!(moves_of(&game, "f3"), sorted("f3-f4 f3-g4 f3-e3"));
    // With range 2 on the hex board, a2 reaches every cell within 2 but b1
    // (c1 is 3 away: df 2, dr −1).
    let game = position(Variant::Hex, "a2 b1 c1", "c5 d5 e5 e4", [0, 0], 0);
    assert_eq!(HEX_19.distance(sq("a2"), sq("c1")), 3);
    assert_eq!(
        moves_of(&game, "a2").len(),
        HEX_19.within(sq("a2"), 2).count() as usize - 1
    );
}

#[test]
fn views_draw_every_cell_with_hexagon_centres() {
    for (variant, shape, cells) in [
        (Variant::Standard, BoardShape::Square, 16),
        (Variant::Eight, BoardShape::Square, 64),
        (Variant::Hex, BoardShape::Hex, 19),
        (Variant::Annuvin, BoardShape::Hex, 37),
    ] {
        let view = Huntsmen::new(variant).view();
        assert_eq!(view.board.shape, shape);
        assert_eq!(view.board.cells.len(), cells);
        let pieces: usize = view.board.cells.iter().map(|c| c.stack.len()).sum();
        assert_eq!(pieces, 2 * variant.config().pieces as usize);
        for cell in &view.board.cells {
            assert!(cell.x >= 0.5 - 1e-5 && cell.y > 0.0, "{variant:?} {}", cell.name);
        }
    }
    let view = Huntsmen::new(Variant::Standard).view();
    let a1 = view.board.cells.iter().find(|c| c.name == "a1").unwrap();
    assert_eq!((a1.x, a1.y, a1.stack.clone()), (0.5, 3.5, vec![Some(0)]));
    // Hex: rank 1 at the bottom, the middle rank widest and leftmost.
    let view = Huntsmen::new(Variant::Hex).view();
    let centre = |name: &str| {
        let c = view.board.cells.iter().find(|c| c.name == name).unwrap();
        (c.x, c.y)
    };
    assert_eq!(centre("a3").0, 0.5);
    assert!(centre("a1").1 > centre("a3").1 && centre("a3").1 > centre("c5").1);
    assert!((centre("a1").0 - 1.5).abs() < 1e-5);
    let seats = Huntsmen::new(Variant::HexEmpty).view().seats;
    assert_eq!(
        (seats[1].in_hand, seats[1].range, seats[1].captured),
        (Some(4), Some(1), Some(0))
    );
    assert_eq!(Huntsmen::new(Variant::Hex).view().seats[0].in_hand, None);
}

// ---------------------------------------------------------------- empty boards

#[test]
fn empty_boards_start_with_placements_only() {
    for (variant, cells, hand) in [
        (Variant::Empty, 16, 4),
        (Variant::OrthogonalEmpty, 16, 4),
        (Variant::HexEmpty, 19, 4),
        (Variant::AnnuvinEmpty, 37, 6),
    ] {
        let game = Huntsmen::new(variant);
        assert_eq!(game.in_hand(0), hand);
        assert_eq!(game.range(0), 1);
        let moves = legal(&game);
        assert_eq!(moves.len(), cells, "{variant:?}");
        assert!(moves.iter().all(|m| m.starts_with('+')));
        let mut game = game;
        game.play_str("B2").unwrap();
        assert_eq!(game.in_hand(0), hand - 1);
        assert_eq!(game.piece_at(sq("b2")), Some(0));
        assert_eq!(legal(&game).len(), cells - 1);
        assert_eq!(error(&game, "+b2"), "b2 is occupied");
    }
}

#[test]
fn range_is_one_while_holding_pieces() {
    // White has lost two but still holds one: range 1, and no chain.
    let game = position(Variant::Empty, "b2", "c3 d4", [1, 1], 0);
    assert_eq!(game.pieces_left(0), 2);
    assert_eq!(game.range(0), 1);
    assert_eq!(
        error(&game, "b2-d2"),
        "d2 is 2 away, white's range is 1 while holding pieces in hand"
    );
    assert_eq!(error(&game, "b2xc3xd4"), "the chain has no credit left, d4 is 1 away");
    let b2 = moves_of(&game, "b2");
    assert_eq!(b2.len(), 8);
    assert!(b2.contains(&"b2xc3".to_string()));
    // Both placements and moves are offered.
    assert_eq!(legal(&game).len(), 8 + 13);
    // Once the hand is empty the range is 1 + lost: 3.
    let game = position(Variant::Empty, "b2", "c3 d4", [0, 1], 0);
    assert_eq!(game.range(0), 4);
    assert!(moves_of(&game, "b2").contains(&"b2xc3xd4".to_string()));
    // Orthogonal empty: range 1 and Manhattan distance.
    let game = position(Variant::OrthogonalEmpty, "b2", "c3", [2, 3], 0);
    assert_eq!(moves_of(&game, "b2"), sorted("b2-a2 b2-c2 b2-b1 b2-b3"));
    // Hex empty.
    let game = position(Variant::HexEmpty, "c3", "", [3, 4], 0);
    assert_eq!(moves_of(&game, "c3").len(), 6);
}

#[test]
fn pieces_in_hand_count_for_the_win() {
    // Black's only piece on the board is captured, but two wait in hand.
    let mut game = position(Variant::Empty, "a1 b1", "b2", [1, 2], 0);
    game.play_str("a1xb2").unwrap();
    assert_eq!(game.outcome(), None);
    assert_eq!(game.pieces_left(1), 2);
    assert!(legal(&game).iter().all(|m| m.starts_with('+')));
    // Having lost none (three on the board, one in hand), white reduces black
    // (one on the board, one in hand) to one: the one in hand.
    let mut game = position(Variant::Empty, "a1 b1 c1", "b2", [1, 1], 0);
    game.play_str("a1xb2").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::ReducedToOne)));
    // Capturing the last piece on the board wins only with none in hand.
    let mut game = position(Variant::HexEmpty, "a1", "b2", [0, 0], 0);
    game.play_str("a1xb2").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::AllCaptured)));
}

// ---------------------------------------------------------------- winning

#[test]
fn capturing_every_enemy_piece_wins() {
    let mut game = position(Variant::Standard, "a1", "b2 c3", [0, 0], 0);
    game.play_str("a1xb2xc3").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::AllCaptured)));
    assert_eq!(game.to_move(), None);
    assert!(legal(&game).is_empty());
    assert_eq!(game.play_str("c3-c4"), Err(crate::rules::PlayError::GameOver));
}

#[test]
fn having_lost_none_reducing_the_opponent_to_one_wins() {
    for (variant, white, black, m) in [
        (Variant::Standard, "a1 b1 c1 d1", "a2 d4", "a1xa2"),
        (Variant::Orthogonal, "a1 b1 c1 d1", "a2 d4", "a1xa2"),
        (Variant::Hex, "a1 b1 c1 a2", "b2 e5", "a1xb2"),
        (Variant::Eight, "a1 b1 c1 d1 e1 f1 g1 h1", "a2 h8", "a1xa2"),
        (Variant::Annuvin, "b1 c1 d1 d2 e2 f3", "c2 f7", "b1xc2"),
    ] {
        let mut game = position(variant, white, black, [0, 0], 0);
        game.play_str(m).unwrap();
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(0, EndReason::ReducedToOne)),
            "{variant:?}"
        );
        assert!(legal(&game).is_empty());
        // Having lost one, the same capture does not end the game.
        let white = white.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
        let mut game = position(variant, &format!("{} {}", m.get(..2).unwrap(), white), black, [0, 0], 0);
        if game.pieces_left(0) < variant.config().pieces {
            game.play_str(m).unwrap();
            assert_eq!(game.outcome(), None, "{variant:?}");
        }
    }
    // Black wins the same way.
    let mut game = position(Variant::Standard, "a1 d1", "a2 b3 c4 d4", [0, 0], 1);
    game.play_str("a2xa1").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::win(1, EndReason::ReducedToOne)));
}

#[test]
fn a_seed_line_played_to_the_end() {
    // From the seed's figure 5, white takes d2 with b1, black takes a1 back
    // (range 3 now), and white's last piece, with range 4, sweeps up.
    let mut game = play(Variant::Standard, "c1-c2 d4-c3 c2xc3 b4-b3 d1-d2 b3xc3xd2 b1xd2 c4-b2");
    assert_eq!(game.range(0), 3);
    assert_eq!(game.range(1), 3);
    game.play_str("a1xb2").unwrap();
    assert_eq!(game.pieces_left(1), 1);
    assert_eq!(game.outcome(), None);
    game.play_str("a4-a3").unwrap();
    game.play_str("b2xa3").unwrap();
    assert_eq!(game.outcome(), Some(Outcome::win(0, EndReason::AllCaptured)));
}

// ---------------------------------------------------------------- notation

#[test]
fn notation_aliases_and_round_trips() {
    assert_notation::<Move>(&[
        ("c1-c2", "c1-c2"),
        ("C1-C2", "c1-c2"),
        ("c2xc3", "c2xc3"),
        ("C2XC3", "c2xc3"),
        ("b3xc3xd2", "b3xc3xd2"),
        ("+b2", "+b2"),
        ("B2", "+b2"),
        ("h8-a1", "h8-a1"),
    ]);
    for bad in [
        "",
        "+",
        "++b2",
        "+b2-b3",
        "c1-",
        "c1--c2",
        "c1 c2",
        "c1_c2",
        "i1-i2",
        "a9",
        "a0-a1",
        "c1-c2-",
        "a1xa2xa3xa4xa5xa6xa7xa8xb8xc8",
    ] {
        assert!(bad.parse::<Move>().is_err(), "{bad}");
    }
    // Eight legs is the most any move can have, and it still parses.
    assert!("a1xa2xa3xa4xa5xa6xa7xa8xb8".parse::<Move>().is_ok());
}

#[test]
fn separators_x_must_capture_and_dash_may() {
    // x claims a capture; a capture written with - is the seed's spelling
    // (c2-c3, b3-c3-d2) and is accepted, printed canonically with x.
    let game = Huntsmen::new(Variant::Standard);
    assert_eq!(
        error(&game, "c1xc2"),
        "c2 is empty: a move there is written c1-c2, not c1xc2"
    );
    let game = play(Variant::Standard, "c1-c2 d4-c3");
    assert_eq!(canonical(&game, "c2-c3"), "c2xc3");
    assert_eq!(canonical(&game, "C2XC3"), "c2xc3");
    // The seed's figure 4: its chain b3-c3-d2 is b3xc3xd2.
    let game = play(Variant::Standard, "c1-c2 d4-c3 c2xc3 b4-b3 d1-d2");
    for spelling in ["b3xc3xd2", "b3-c3-d2", "b3xc3-d2", "b3-c3xd2"] {
        assert_eq!(canonical(&game, spelling), "b3xc3xd2", "{spelling}");
    }
    // The empty-board variants too.
    let game = play(Variant::Empty, "+b2 +c3");
    assert_eq!(canonical(&game, "b2-c3"), "b2xc3");
    assert_eq!(
        error(&game, "b2xa3"),
        "a3 is empty: a move there is written b2-a3, not b2xa3"
    );
}

// ---------------------------------------------------------------- generator

/// Every move the checker accepts, found by trying every sequence of cells
/// from every piece (up to `legs` legs) and every placement.
fn brute_force(game: &Huntsmen, legs: usize) -> BTreeSet<String> {
    let board = game.board();
    let mut found = BTreeSet::new();
    let placements: Vec<Move> = board.cells.map(Move::placement).collect();
    for m in &placements {
        if let Ok(ok) = game.legalize(*m) {
            found.insert(ok.to_string());
        }
    }
    // First legs with either separator (only the fitting one is accepted),
    // then further legs.
    let mut frontier = Vec::new();
    for m in placements.iter().filter(|m| game.piece_at(m.from()) == game.to_move()) {
        for to in board.cells {
            for captures in [false, true] {
                let step = Move::step(m.from(), to, captures);
                if let Ok(ok) = game.legalize(step) {
                    found.insert(ok.to_string());
                    frontier.push(step);
                }
            }
        }
    }
    for _ in 1..legs {
        let mut next = Vec::new();
        for m in frontier {
            for to in board.cells {
                let longer = m.then(to);
                // Only a legal prefix can grow into a legal move.
                if let Ok(ok) = game.legalize(longer) {
                    found.insert(ok.to_string());
                    next.push(longer);
                }
            }
        }
        frontier = next;
    }
    found
}

/// Calls `check` on `count` positions of every variant, each up to
/// `max_plies` random plies from the start (the same ones for a `seed`),
/// with the generator for any further chance.
fn random_positions(seed: u64, count: usize, max_plies: usize, mut check: impl FnMut(Variant, &Huntsmen, &mut Rng)) {
    let mut rng = Rng::new(seed);
    for variant in ALL {
        for _ in 0..count {
            let mut game = Huntsmen::new(variant);
            let plies = rng.below(max_plies);
            play_randomly(&mut game, &mut rng, plies);
            check(variant, &game, &mut rng);
        }
    }
}

#[test]
fn generated_moves_are_exactly_the_accepted_ones() {
    random_positions(11, 20, 60, |variant, game, _| {
        if game.outcome().is_some() {
            return;
        }
        let listed = legal(game);
        let unique: BTreeSet<String> = listed.iter().cloned().collect();
        assert_eq!(unique.len(), listed.len(), "{variant:?} duplicates");
        assert_eq!(unique, brute_force(game, MAX_LEGS), "{variant:?} {game:?}");
    });
}

#[test]
fn picking_by_index_reaches_every_move_once() {
    random_positions(3, 40, 80, |variant, game, rng| {
        let listed = legal(game);
        let mut picked: Vec<String> = (0..listed.len() as u32)
            .map(|k| {
                game.pick(|total| {
                    assert_eq!(total as usize, listed.len());
                    k
                })
            })
            .map(|m| m.expect("every index names a move").to_string())
            .collect();
        let mut listed = listed;
        listed.sort();
        picked.sort();
        assert_eq!(picked, listed, "{variant:?}");
        assert_eq!(game.random_move(rng).is_none(), game.outcome().is_some());
    });
}

#[test]
fn small_boards_never_spill() {
    // The bound in `INLINE`'s comment, checked along many random games; the
    // largest lists of the big boards are reported for the record.
    let mut rng = Rng::new(5);
    // `ALL` lists the six variants of the small boards first.
    for variant in ALL[..6].iter().copied() {
        let mut longest = 0;
        for _ in 0..300 {
            let mut game = Huntsmen::new(variant);
            while game.outcome().is_none() && game.ply() < 300 {
                let mut moves = MoveList::default();
                game.legal_moves(&mut moves);
                longest = longest.max(moves.as_slice().len());
                assert!(moves.spilled.is_empty());
                let moves = moves.as_slice();
                game.play_unchecked(moves[rng.below(moves.len())]);
            }
        }
        assert!(longest <= 108, "{variant:?} {longest}");
    }
}

#[test]
fn a_spilled_list_keeps_every_move() {
    let mut list = MoveList::default();
    for i in 0..(INLINE + 10) {
        list.push(Move::placement(Square::from_index((i % 64) as u8)));
    }
    assert_eq!(list.as_slice().len(), INLINE + 10);
    assert_eq!(
        list.as_slice()[INLINE + 9].from(),
        Square::from_index(((INLINE + 9) % 64) as u8)
    );
    list.clear();
    assert!(list.as_slice().is_empty());
}

#[test]
fn dense_big_boards_list_every_chain() {
    // Two white pieces left on 8×8 (range 7) against eight black ones ringed
    // around d4: thousands of chains, a list that spills to the heap.
    for (variant, white, black) in [
        (Variant::Eight, "d4 h1", "c3 c4 c5 d3 d5 e3 e4 e5"),
        (Variant::Annuvin, "d4 a1", "c3 c4 d3 d5 e4 e5"),
    ] {
        let game = position(variant, white, black, [0, 0], 0);
        let listed = legal(&game);
        let unique: BTreeSet<&String> = listed.iter().collect();
        assert_eq!(unique.len(), listed.len());
        let mut total = 0;
        game.pick(|n| {
            total = n;
            0
        });
        assert_eq!(total as usize, listed.len());
        if variant == Variant::Eight {
            // 8560 moves.
            assert!(listed.len() > 8 * INLINE, "{}", listed.len());
        }
    }
}
