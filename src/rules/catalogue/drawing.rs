//! How each variant is drawn: the kind of board (squares, the points of an
//! intersection board, hexagons), the fill of each seat's pieces and the
//! marked points. One description, served in `GET /rules`, read by both
//! renderers: the server's SVG (`views::board`) and the web client's
//! `web/render/*.js`. The seats' colour names stay what the notation and
//! the rules call them (Torri's `x` and `o`); the fills are what a player
//! sees.

use serde::Serialize;

/// The geometry a renderer draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BoardKind {
    /// A chequered board of squares (holes left out), pieces inside squares,
    /// coordinates on the edges.
    Squares,
    /// An intersection board (Pente): grid lines through the cell centres,
    /// stones on the points, star points, coordinates on the edges.
    Points,
    /// Hexagonal cells, each labelled inside.
    Hexes,
}

#[derive(Debug, Serialize)]
pub struct Drawing {
    pub kind: BoardKind,
    /// The CSS fill of each seat's pieces, seat 0 first; distinct within a
    /// variant, so nobody's pieces look like another's.
    pub pieces: &'static [&'static str],
    /// Whether pieces stack high enough that stacks are drawn side-on, one
    /// band per piece (Focus, Lines of Focus, Torri).
    pub stacks: bool,
    /// Points marked on the board (an intersection board's star points).
    pub stars: &'static [&'static str],
}

const WHITE: &str = "#f6f2e6";
const BLACK: &str = "#232323";
const RED: &str = "#c8322b";
const GREEN: &str = "#2f8a45";
const BLUE: &str = "#2f5fbf";
const YELLOW: &str = "#f0bf1f";

/// A board of squares with these pieces.
const fn squares(pieces: &'static [&'static str], stacks: bool) -> Drawing {
    Drawing {
        kind: BoardKind::Squares,
        pieces,
        stacks,
        stars: &[],
    }
}

pub static GRAVITY: Drawing = squares(&[YELLOW, RED], false);

/// Torri's `x` is drawn dark red, `o` ivory: two sides no one confuses.
pub static TORRI: Drawing = squares(&["#8e1b1b", WHITE], true);

pub static FOCUS_TWO: Drawing = squares(&[RED, GREEN], true);

pub static FOCUS_FOUR: Drawing = squares(&[RED, BLUE, GREEN, YELLOW], true);

/// White and black pieces on squares: Vicini, Cacciatori on squares.
pub static WHITE_BLACK_SQUARES: Drawing = squares(&[WHITE, BLACK], false);

/// Pente's 19×19 points with Go's nine star points.
pub static PENTE: Drawing = Drawing {
    kind: BoardKind::Points,
    pieces: &[WHITE, BLACK],
    stacks: false,
    stars: &["d4", "k4", "q4", "d10", "k10", "q10", "d16", "k16", "q16"],
};

/// Cacciatori hex and Annuvin.
pub static WHITE_BLACK_HEXES: Drawing = Drawing {
    kind: BoardKind::Hexes,
    pieces: &[WHITE, BLACK],
    stacks: false,
    stars: &[],
};

/// The fill of a piece of no seat (Pente's neutral stones).
pub const NEUTRAL: &str = "#9c9686";

#[cfg(test)]
mod tests {
    use super::super::GAMES;
    use super::*;
    use crate::rules::BoardShape;

    /// Every variant's drawing fits its start position: one distinct fill per
    /// seat, hexagons exactly where the rules lay out hexagons, star points
    /// on the board.
    #[test]
    fn every_variant_is_drawn_from_a_description_that_fits_it() {
        for game in GAMES {
            for variant in game.variants {
                let what = format!("{} {}", game.slug, variant.slug);
                let drawing = variant.drawing;
                assert_eq!(drawing.pieces.len(), variant.seats.len(), "{what}");
                for (i, fill) in drawing.pieces.iter().enumerate() {
                    assert!(!drawing.pieces[..i].contains(fill), "{what}: two seats drawn {fill}");
                    assert_ne!(*fill, NEUTRAL, "{what}");
                }
                let view = (variant.start)().view();
                let hex = view.board.shape == BoardShape::Hex;
                assert_eq!(hex, drawing.kind == BoardKind::Hexes, "{what}");
                for star in drawing.stars {
                    assert!(view.board.cells.iter().any(|c| c.name == *star), "{what}: star {star}");
                }
            }
        }
    }
}
