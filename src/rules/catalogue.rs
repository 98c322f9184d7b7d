//! What games Tavoliere knows: slugs, names, seats, boards, summaries and
//! notation guides, read by the server's `GET /rules` and by players, and the
//! constructor of each variant's start position.
//!
//! The catalogue sits above the game modules, as shakmaty's `variant.rs` sits
//! above its positions: it names each module's positions and variants, and
//! no game module knows the catalogue, its slugs or [`AnyGame`]. A game
//! module exports its position type, its typed variants and its seat
//! colours; everything a player reads about a game lives here, beside the
//! constructor it describes.

use serde::Serialize;

use super::any::{AnyGame, UnknownGame};
use super::{focus, gravity, huntsmen, neighbours, pente, torri};

pub mod drawing;

pub use drawing::{BoardKind, Drawing};

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
    /// How the board and the seats' pieces are drawn.
    pub drawing: &'static Drawing,
    /// How this variant differs from the family's summary.
    pub summary: &'static str,
    /// The variant's start position.
    #[serde(skip)]
    pub start: fn() -> AnyGame,
}

/// Every game served, in the order the catalogue lists them.
pub static GAMES: &[&GameInfo] = &[
    &GRAVITY,
    &TORRI,
    &FOCUS,
    &LINES_OF_FOCUS,
    &NEIGHBOURS,
    &PENTE,
    &HUNTSMEN,
    &ANNUVIN,
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

static GRAVITY: GameInfo = GameInfo {
    slug: "gravity",
    italian: "Forza 4 Centrifuga",
    english: "Gravity",
    summary: "Two players take turns entering a piece on any free square of an empty 8×8 board. \
              The piece slides toward the nearest edge (toward the nearest corner when two edges \
              are equally near) and stops on the edge or before the first occupied square on its \
              path. Four or more of one colour in a row, orthogonally or diagonally, wins; a full \
              board without a line is a draw.",
    notation: "A move is the entry square, e.g. e4. The square where the piece lands is shown \
               in the history beside the move but is not part of it.",
    variants: &[VariantInfo {
        slug: "standard",
        name: "Forza 4 Centrifuga",
        seats: &gravity::COLOURS,
        drawing: &drawing::GRAVITY,
        board: "8×8 squares, empty at the start",
        summary: "The only variant.",
        start: || AnyGame::from_position(&GRAVITY, "standard", gravity::Gravity::new()),
    }],
};

static TORRI: GameInfo = GameInfo {
    slug: "torri",
    italian: "Torri",
    english: "Towers",
    summary: "Every square holds a stack, possibly empty; its top piece commands it. On your turn choose a stack \
              you command and one of the eight directions: the stack collapses along that line, its pieces put \
              bottom first one per square on top of whatever stands there. When the line reaches the edge of the \
              board, all the pieces left go as a block onto the edge square. A single piece thus steps to a \
              neighbouring square. There are no captures and no height limit. A player who commands no stack \
              on their turn loses.",
    notation: "A move is the stack's square and the neighbouring square that gives the direction, e.g. c3-d4. \
               Where the pieces landed is shown in the history beside the move.",
    variants: &[
        VariantInfo {
            slug: "standard",
            name: "Torri",
            seats: torri::COLOURS,
            drawing: &drawing::TORRI,
            board: "8×8 squares",
            summary: "The first layout of the seed: x's towers in the bottom-left corner, o's in the top right.",
            start: || AnyGame::from_position(&TORRI, "standard", torri::Torri::new(torri::Layout::Standard)),
        },
        VariantInfo {
            slug: "alt",
            name: "Torri, other layout",
            seats: torri::COLOURS,
            drawing: &drawing::TORRI,
            board: "8×8 squares",
            summary: "The seed's other layout: o's towers in the top-left corner, x's in the bottom right.",
            start: || AnyGame::from_position(&TORRI, "alt", torri::Torri::new(torri::Layout::Alt)),
        },
    ],
};

const FOCUS_NOTATION: &str = "A move is the stack's square and the landing square, e.g. c3-c5: it takes that many \
                              pieces (here 2) off the top. A drop from the reserve is +d4 (or just d4). An opening \
                              swap is c3<>d4, in either order.";

const FOCUS_BOARD: &str = "52 squares: 8×8 without the three squares at each corner";

macro_rules! focus_variants {
    ($info:ident, $limit:expr) => {
        &[
            VariantInfo {
                slug: "standard",
                name: "Two players, opening swaps",
                seats: focus::TWO_COLOURS,
                drawing: &drawing::FOCUS_TWO,
                board: FOCUS_BOARD,
                summary: "Two players, 18 pieces each. Before the first move red, then green, swap the places of \
                          one red and one green piece; a swap that leaves the board symmetric (under any rotation \
                          or reflection, with or without exchanging the colours) is not allowed.",
                start: || AnyGame::from_position(&$info, "standard", focus::Focus::new(focus::Variant::Standard, $limit)),
            },
            VariantInfo {
                slug: "no-swap",
                name: "Two players, no swaps",
                seats: focus::TWO_COLOURS,
                drawing: &drawing::FOCUS_TWO,
                board: FOCUS_BOARD,
                summary: "Two players, 18 pieces each; red moves first from the printed layout.",
                start: || AnyGame::from_position(&$info, "no-swap", focus::Focus::new(focus::Variant::NoSwap, $limit)),
            },
            VariantInfo {
                slug: "four",
                name: "Four players",
                seats: focus::FOUR_COLOURS,
                drawing: &drawing::FOCUS_FOUR,
                board: FOCUS_BOARD,
                summary: "Four players, 13 pieces each, every square filled. A player with no move is out and \
                          skipped from then on; the last player left wins.",
                start: || AnyGame::from_position(&$info, "four", focus::Focus::new(focus::Variant::Four, $limit)),
            },
            VariantInfo {
                slug: "four-teams",
                name: "Four players in teams",
                seats: focus::FOUR_COLOURS,
                drawing: &drawing::FOCUS_FOUR,
                board: FOCUS_BOARD,
                summary: "Red and green against blue and yellow, 13 pieces each. A player with no move is out, \
                          and their partner then also moves in their turn; a team wins when both opponents are out.",
                start: || AnyGame::from_position(&$info, "four-teams", focus::Focus::new(focus::Variant::FourTeams, $limit)),
            },
        ]
    };
}

static FOCUS: GameInfo = GameInfo {
    slug: "focus",
    italian: "Focus",
    english: "Focus",
    summary: "Pieces stack. The top piece commands its stack; a move takes the top k pieces of a stack you command \
              and carries them exactly k squares along a rank or file, passing over anything, onto an empty square \
              or any stack. Instead of moving you may drop a piece from your reserve on any square. A stack taller \
              than five loses pieces from the bottom: the commander's own go to the commander's reserve, all others \
              leave the game. A player who commands no stack and has no reserve cannot move and loses.",
    notation: FOCUS_NOTATION,
    variants: focus_variants!(FOCUS, focus::Limit::Five),
};

static LINES_OF_FOCUS: GameInfo = GameInfo {
    slug: "lines-of-focus",
    italian: "Lines of Focus",
    english: "Lines of Focus",
    summary: "Focus with a changing stack limit: a stack may be as tall as the larger of the number of occupied \
              squares on its rank and on its file, counting its own. After every move or drop every stack on the \
              board is checked, and any stack over its limit loses pieces from the bottom (the commander's own to \
              the commander's reserve, all others out of the game), whether it moved or not.",
    notation: FOCUS_NOTATION,
    variants: focus_variants!(LINES_OF_FOCUS, focus::Limit::Lines),
};

static NEIGHBOURS: GameInfo = GameInfo {
    slug: "neighbours",
    italian: "Vicini",
    english: "Neighbours",
    summary: "8×8 board, white's eight pieces on rank 1 and black's on rank 8; white moves first. \
              A piece moves in a straight line, orthogonally or diagonally, exactly as many \
              squares as there are pieces (of either colour) on the 8 squares around it. The \
              squares it passes must be empty; it lands on an empty square or on an enemy piece, \
              which is captured. A piece with no neighbours cannot move. A player with no move \
              loses.",
    notation: "A move is the piece's square and its landing square: e1-e3, or f3xf6 for a capture. \
               - and x are accepted either way; the canonical form uses x exactly for captures.",
    variants: &[
        VariantInfo {
            slug: "standard",
            name: "Vicini",
            seats: &neighbours::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "8×8 squares, each side's 8 pieces on its first rank",
            summary: "The rules as above.",
            start: || AnyGame::from_position(&NEIGHBOURS, "standard", neighbours::Neighbours::new(false)),
        },
        VariantInfo {
            slug: "friendly",
            name: "Vicini Amici (Friendly Neighbours)",
            seats: &neighbours::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "8×8 squares, each side's 8 pieces on its first rank",
            summary: "Only neighbours of the piece's own colour count: a piece moves exactly as many \
                      squares as it has friendly neighbours.",
            start: || AnyGame::from_position(&NEIGHBOURS, "friendly", neighbours::Neighbours::new(true)),
        },
    ],
};

static PENTE: GameInfo = GameInfo {
    slug: "pente",
    italian: "Pente",
    english: "Pente",
    summary: "Two players, white first, take turns placing a stone of their colour on any free point \
              of a 19×19 board; white's first stone goes on the centre, k10. A stone placed so that \
              it closes two enemy stones in a straight line between itself and another stone of the \
              mover's captures that pair; every such pair, in every direction, is removed. Placing a \
              stone between two enemies is safe: only the mover captures. Five or more in a row, or \
              five captured pairs, wins; a full board is a draw.",
    notation: "A move is the point where the stone goes, e.g. k10 (files a to t without i, ranks 1 \
               to 19). Pente±: a capturing move adds one sign per captured pair, + to add it to \
               your score or - to take one from your opponent's, all + before all -, e.g. g12+-; \
               without signs every pair is +. Neutral: Nk10 places a neutral stone on k10.",
    variants: &[
        VariantInfo {
            slug: "standard",
            name: "Pente",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "The rules as above.",
            start: || AnyGame::from_position(&PENTE, "standard", pente::Pente::new(pente::Variant::Standard)),
        },
        VariantInfo {
            slug: "pro",
            name: "Pro-Pente (Torneo)",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "White's second stone must be at least 3 points from k10 (outside the central 5×5).",
            start: || AnyGame::from_position(&PENTE, "pro", pente::Pente::new(pente::Variant::Pro)),
        },
        VariantInfo {
            slug: "keryo",
            name: "Keryo-Pente",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "Two or three enemy stones in a line are captured; fifteen captured stones win.",
            start: || AnyGame::from_position(&PENTE, "keryo", pente::Pente::new(pente::Variant::Keryo)),
        },
        VariantInfo {
            slug: "freestyle",
            name: "Stile Libero (Freestyle)",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "White's first stone may go on any point.",
            start: || AnyGame::from_position(&PENTE, "freestyle", pente::Pente::new(pente::Variant::Freestyle)),
        },
        VariantInfo {
            slug: "five",
            name: "5 in fila (Five in a Row)",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "First stone anywhere; pairs are captured but captures never win: only five in a row.",
            start: || AnyGame::from_position(&PENTE, "five", pente::Pente::new(pente::Variant::Five)),
        },
        VariantInfo {
            slug: "no-capture",
            name: "Senza Cattura (No Capture)",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "First stone anywhere; nothing is ever captured; five or more in a row wins.",
            start: || AnyGame::from_position(&PENTE, "no-capture", pente::Pente::new(pente::Variant::NoCapture)),
        },
        VariantInfo {
            slug: "plus-minus",
            name: "Pente±",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "Each captured pair either adds 1 to the mover's score (+) or takes 1 from the \
                      opponent's (-), never below 0; a score of 5 wins.",
            start: || AnyGame::from_position(&PENTE, "plus-minus", pente::Pente::new(pente::Variant::PlusMinus)),
        },
        VariantInfo {
            slug: "neutral",
            name: "Neutrale (Neutral)",
            seats: &pente::COLOURS,
            drawing: &drawing::PENTE,
            board: "19×19 points, empty at the start",
            summary: "Each player also has 2 neutral stones to place instead of their own, at any time \
                      but white's first move. Neutral stones are never captured, never part of a line \
                      and never close a capture.",
            start: || AnyGame::from_position(&PENTE, "neutral", pente::Pente::new(pente::Variant::Neutral)),
        },
    ],
};

const HUNTSMEN_NOTATION: &str = "A move is the piece's square and where it lands, c1-c2; a capture uses x, c2xc3; \
                        a chain of captures names every landing square, b3xc3xd2. On the empty-board \
                        variants a piece is placed from hand with +b2 (or just b2). A capture may also be \
                        written with -, as the seed does (c2-c3, b3-c3-d2); x on an empty square is refused.";

static HUNTSMEN: GameInfo = GameInfo {
    slug: "huntsmen",
    italian: "Cacciatori",
    english: "Huntsmen",
    summary: "Two players, four pieces each, on a 4×4 board; white starts on rank 1, black on rank 4. \
              A piece moves to any square up to its range away that is empty or holds an enemy piece, \
              which is captured; it may pass over any piece. The range is 1 plus the pieces its owner \
              has lost. A capture made short of the range may go on: each further leg must capture, \
              using up distance from the credit left. Capturing every enemy piece wins, and so does \
              reducing the opponent to one piece without having lost any.",
    notation: HUNTSMEN_NOTATION,
    variants: &[
        VariantInfo {
            slug: "standard",
            name: "Cacciatori",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "4×4 squares, king distance",
            summary: "Distance is counted in king steps, diagonals included.",
            start: || {
                AnyGame::from_position(
                    &HUNTSMEN,
                    "standard",
                    huntsmen::Huntsmen::new(huntsmen::Variant::Standard),
                )
            },
        },
        VariantInfo {
            slug: "orthogonal",
            name: "Cacciatori ortogonale",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "4×4 squares, orthogonal distance",
            summary: "Distance is counted in orthogonal steps only (Manhattan distance).",
            start: || {
                AnyGame::from_position(
                    &HUNTSMEN,
                    "orthogonal",
                    huntsmen::Huntsmen::new(huntsmen::Variant::Orthogonal),
                )
            },
        },
        VariantInfo {
            slug: "empty",
            name: "Cacciatori con tavoliere vuoto",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "4×4 squares, king distance, empty at the start",
            summary: "The board starts empty and each player holds four pieces. A move places a piece \
                      from hand on an empty square or moves one on the board; while a player holds \
                      pieces in hand their range is 1. Pieces in hand count as pieces left.",
            start: || AnyGame::from_position(&HUNTSMEN, "empty", huntsmen::Huntsmen::new(huntsmen::Variant::Empty)),
        },
        VariantInfo {
            slug: "orthogonal-empty",
            name: "Cacciatori ortogonale con tavoliere vuoto",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "4×4 squares, orthogonal distance, empty at the start",
            summary: "The empty-board start with orthogonal distance.",
            start: || {
                AnyGame::from_position(
                    &HUNTSMEN,
                    "orthogonal-empty",
                    huntsmen::Huntsmen::new(huntsmen::Variant::OrthogonalEmpty),
                )
            },
        },
        VariantInfo {
            slug: "hex",
            name: "Cacciatori hex",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_HEXES,
            board: "19 hexagons: a…e × 1…5 with |file − rank| ≤ 2",
            summary: "A board of 19 hexagons; white a1 b1 c1 a2, black c5 d5 e5 e4.",
            start: || AnyGame::from_position(&HUNTSMEN, "hex", huntsmen::Huntsmen::new(huntsmen::Variant::Hex)),
        },
        VariantInfo {
            slug: "hex-empty",
            name: "Cacciatori hex con tavoliere vuoto",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_HEXES,
            board: "19 hexagons, empty at the start",
            summary: "The hexagonal board with the empty-board start.",
            start: || {
                AnyGame::from_position(
                    &HUNTSMEN,
                    "hex-empty",
                    huntsmen::Huntsmen::new(huntsmen::Variant::HexEmpty),
                )
            },
        },
        VariantInfo {
            slug: "eight",
            name: "Cacciatori 8×8",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_SQUARES,
            board: "8×8 squares, king distance",
            summary: "Eight pieces each, white on rank 1 and black on rank 8; range 1 plus pieces lost, up to 8.",
            start: || AnyGame::from_position(&HUNTSMEN, "eight", huntsmen::Huntsmen::new(huntsmen::Variant::Eight)),
        },
    ],
};

static ANNUVIN: GameInfo = GameInfo {
    slug: "annuvin",
    italian: "Annuvin",
    english: "Annuvin",
    summary: "Cacciatori on 37 hexagons (a…g × 1…7 with |file − rank| ≤ 3) with six pieces each: \
              white b1 c1 d1 d2 e2 f3, black b5 c6 d6 d7 e7 f7. The range is 1 plus the pieces \
              lost; captures made short of the range may go on capturing with the credit left. \
              Capturing every enemy piece wins, and so does reducing the opponent to one piece \
              without having lost any.",
    notation: HUNTSMEN_NOTATION,
    variants: &[
        VariantInfo {
            slug: "standard",
            name: "Annuvin",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_HEXES,
            board: "37 hexagons",
            summary: "Six pieces each in their starting corners.",
            start: || {
                AnyGame::from_position(
                    &ANNUVIN,
                    "standard",
                    huntsmen::Huntsmen::new(huntsmen::Variant::Annuvin),
                )
            },
        },
        VariantInfo {
            slug: "empty",
            name: "Annuvin on an empty board",
            seats: &huntsmen::COLOURS,
            drawing: &drawing::WHITE_BLACK_HEXES,
            board: "37 hexagons, empty at the start",
            summary: "The board starts empty, six pieces in hand each; range 1 while holding pieces.",
            start: || {
                AnyGame::from_position(
                    &ANNUVIN,
                    "empty",
                    huntsmen::Huntsmen::new(huntsmen::Variant::AnnuvinEmpty),
                )
            },
        },
    ],
};
