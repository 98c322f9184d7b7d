//! The board as an SVG picture, drawn by the kind of board the catalogue
//! describes ([`Drawing`]): squares chequered with coordinates on the edges,
//! the points of an intersection board (Pente: grid lines, star points,
//! stones on the points), or hexagons labelled inside. Stacks of games where
//! pieces pile up are drawn side-on, one band per piece bottom to top, so
//! every piece's colour shows in order. The web client's `web/render/`
//! draws the same description the same way.

use std::fmt::Write;

use super::{changed, escape, seat_lines, split_name, Caption};
use crate::rules::catalogue::drawing::NEUTRAL;
use crate::rules::catalogue::{BoardKind, Drawing};
use crate::rules::{CellView, View};

/// The side of a cell, and the margin around the board (room for edge
/// coordinates).
const UNIT: f32 = 48.0;
const MARGIN: f32 = 30.0;
/// Caption lines: their height, and a generous width per character so a
/// line is never cut off.
const LINE: f32 = 18.0;
const CHAR: f32 = 7.4;

/// Where a cell's centre lands in the picture.
struct Frame {
    left: f32,
    top: f32,
}

impl Frame {
    fn centre(&self, cell: &CellView) -> (f32, f32) {
        (
            MARGIN + (cell.x - self.left) * UNIT,
            MARGIN + (cell.y - self.top) * UNIT,
        )
    }
}

/// The board as an SVG picture with its caption below.
pub fn svg(view: &View, previous: Option<&View>, caption: &Caption, drawing: &Drawing) -> String {
    let marked = changed(view, previous);
    let cells = &view.board.cells;
    // Cell centres come in cell widths from the board's top-left corner;
    // the board reaches half a cell beyond the extreme centres.
    let fold = |f: fn(&CellView) -> f32, min: bool| {
        cells
            .iter()
            .map(f)
            .fold(if min { f32::INFINITY } else { f32::NEG_INFINITY }, |a, b| {
                if min {
                    a.min(b)
                } else {
                    a.max(b)
                }
            })
    };
    let frame = Frame {
        left: fold(|c| c.x, true) - 0.5,
        top: fold(|c| c.y, true) - 0.5,
    };
    let board_width = (fold(|c| c.x, false) + 0.5 - frame.left) * UNIT + 2.0 * MARGIN;
    let board_height = (fold(|c| c.y, false) + 0.5 - frame.top) * UNIT + 2.0 * MARGIN;
    let mut lines = vec![
        caption.title.to_owned(),
        format!("{}, move {}", caption.status, caption.ply),
    ];
    if let Some(last) = &caption.last_move {
        lines.push(format!("last move: {last}"));
    }
    lines.extend(seat_lines(view, caption));
    let longest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f32;
    let width = board_width.max(longest * CHAR + 2.0 * MARGIN);
    let height = board_height + 10.0 + lines.len() as f32 * LINE + 8.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0} {height:.0}" width="{width:.0}" height="{height:.0}" font-family="sans-serif">"#
    );
    let _ = write!(out, r##"<rect width="100%" height="100%" fill="#f4ecd8"/>"##);
    match drawing.kind {
        BoardKind::Squares => squares(&mut out, view, &frame, &marked, drawing),
        BoardKind::Points => points(&mut out, view, &frame, &marked, drawing),
        BoardKind::Hexes => hexes(&mut out, view, &frame, &marked, drawing),
    }
    // Below the file letters.
    let mut y = board_height + 10.0;
    for text in &lines {
        let _ = write!(
            out,
            r#"<text x="{MARGIN:.1}" y="{y:.1}" font-size="13">{}</text>"#,
            escape(text)
        );
        y += LINE;
    }
    out.push_str("</svg>\n");
    out
}

/// File letters below the board and rank numbers at its left, one per
/// column and row of cell centres.
fn edge_coordinates(out: &mut String, view: &View, frame: &Frame) {
    let cells = &view.board.cells;
    let bottom = cells.iter().map(|c| c.y).fold(f32::NEG_INFINITY, f32::max);
    let mut files: Vec<(i64, &str, f32)> = Vec::new();
    let mut ranks: Vec<(i64, &str, f32)> = Vec::new();
    for cell in cells {
        let (file, rank) = split_name(&cell.name);
        let (cx, cy) = frame.centre(cell);
        let column = (cell.x * 100.0).round() as i64;
        let row = (cell.y * 100.0).round() as i64;
        if !files.iter().any(|f| f.0 == column) {
            files.push((column, file, cx));
        }
        if !ranks.iter().any(|r| r.0 == row) {
            ranks.push((row, rank, cy));
        }
    }
    let below = MARGIN + (bottom + 0.5 - frame.top) * UNIT + 16.0;
    for (_, file, x) in files {
        let _ = write!(
            out,
            r##"<text x="{x:.1}" y="{below:.1}" font-size="12" fill="#554" text-anchor="middle">{}</text>"##,
            escape(file)
        );
    }
    for (_, rank, y) in ranks {
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" font-size="12" fill="#554" text-anchor="end">{}</text>"##,
            MARGIN - 6.0,
            y + 4.0,
            escape(rank)
        );
    }
}

fn fill(drawing: &Drawing, piece: Option<u8>) -> &'static str {
    piece
        .and_then(|seat| drawing.pieces.get(usize::from(seat)).copied())
        .unwrap_or(NEUTRAL)
}

/// A chequered board of squares; pieces as discs, or side-on stacks.
fn squares(out: &mut String, view: &View, frame: &Frame, marked: &[String], drawing: &Drawing) {
    let mut marks = String::new();
    for cell in &view.board.cells {
        let (cx, cy) = frame.centre(cell);
        let dark = (cell.x.floor() + cell.y.floor()) as i64 % 2 == 1;
        let ground = if dark { "#c9a46a" } else { "#ecdcb9" };
        let (x, y) = (cx - UNIT / 2.0, cy - UNIT / 2.0);
        let _ = write!(
            out,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{UNIT:.1}" height="{UNIT:.1}" fill="{ground}" stroke="#a78a5a"/>"##
        );
        if marked.contains(&cell.name) {
            let _ = write!(
                marks,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#e0452b" stroke-width="3"/>"##,
                x + 1.5,
                y + 1.5,
                UNIT - 3.0,
                UNIT - 3.0
            );
        }
        if drawing.stacks {
            side_on(out, &cell.stack, (cx, cy), drawing);
        } else if let Some(&top) = cell.stack.last() {
            disc(out, (cx, cy), UNIT * 0.36, fill(drawing, top), top.is_none());
        }
    }
    out.push_str(&marks);
    edge_coordinates(out, view, frame);
}

/// An intersection board: lines through the centres, star points, stones
/// on the points; the last stone gets a dot.
fn points(out: &mut String, view: &View, frame: &Frame, marked: &[String], drawing: &Drawing) {
    let cells = &view.board.cells;
    let (mut xs, mut ys): (Vec<f32>, Vec<f32>) = cells.iter().map(|c| frame.centre(c)).unzip();
    xs.sort_by(f32::total_cmp);
    xs.dedup();
    ys.sort_by(f32::total_cmp);
    ys.dedup();
    let (Some(&x0), Some(&x1), Some(&y0), Some(&y1)) = (xs.first(), xs.last(), ys.first(), ys.last()) else {
        return;
    };
    let _ = write!(
        out,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#dcb36a" rx="4"/>"##,
        x0 - UNIT / 2.0,
        y0 - UNIT / 2.0,
        x1 - x0 + UNIT,
        y1 - y0 + UNIT
    );
    for &x in &xs {
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{y0:.1}" x2="{x:.1}" y2="{y1:.1}" stroke="#3b2a14"/>"##
        );
    }
    for &y in &ys {
        let _ = write!(
            out,
            r##"<line x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}" stroke="#3b2a14"/>"##
        );
    }
    for cell in cells.iter().filter(|c| drawing.stars.contains(&c.name.as_str())) {
        let (cx, cy) = frame.centre(cell);
        let _ = write!(
            out,
            r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="#3b2a14"/>"##,
            UNIT * 0.09
        );
    }
    for cell in cells {
        let Some(&top) = cell.stack.last() else { continue };
        let (cx, cy) = frame.centre(cell);
        disc(out, (cx, cy), UNIT * 0.46, fill(drawing, top), top.is_none());
        if marked.contains(&cell.name) {
            let _ = write!(
                out,
                r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{:.1}" fill="#e0452b"/>"##,
                UNIT * 0.12
            );
        }
    }
    edge_coordinates(out, view, frame);
}

/// Pointy-top hexagons, each with its name inside below the piece.
fn hexes(out: &mut String, view: &View, frame: &Frame, marked: &[String], drawing: &Drawing) {
    let mut marks = String::new();
    for cell in &view.board.cells {
        let (cx, cy) = frame.centre(cell);
        let polygon = |attributes: &str| {
            let r = UNIT / 3f32.sqrt();
            let points: Vec<String> = (0..6)
                .map(|i| {
                    let a = std::f32::consts::PI / 3.0 * i as f32 + std::f32::consts::PI / 6.0;
                    format!("{:.1},{:.1}", cx + r * a.cos(), cy + r * a.sin())
                })
                .collect();
            format!(r#"<polygon points="{}" {attributes}/>"#, points.join(" "))
        };
        out.push_str(&polygon(r##"fill="#ead7ae" stroke="#8a7045""##));
        if marked.contains(&cell.name) {
            marks.push_str(&polygon(r##"fill="none" stroke="#e0452b" stroke-width="3""##));
        }
        if let Some(&top) = cell.stack.last() {
            disc(
                out,
                (cx, cy - UNIT * 0.09),
                UNIT * 0.26,
                fill(drawing, top),
                top.is_none(),
            );
        }
        let _ = write!(
            out,
            r##"<text x="{cx:.1}" y="{:.1}" font-size="10" fill="#554" text-anchor="middle">{}</text>"##,
            cy + UNIT * 0.39,
            escape(&cell.name)
        );
    }
    out.push_str(&marks);
}

fn disc(out: &mut String, (cx, cy): (f32, f32), r: f32, fill: &str, neutral: bool) {
    let dash = if neutral { r#" stroke-dasharray="3 2""# } else { "" };
    let _ = write!(
        out,
        r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}" fill="{fill}" stroke="#1a1a1a" stroke-width="1.5"{dash}/>"##
    );
}

/// A stack seen from the side: one band per piece, bottom to top, each in
/// its seat's fill ([`bands`] groups long runs).
fn side_on(out: &mut String, stack: &[Option<u8>], (cx, cy): (f32, f32), drawing: &Drawing) {
    let bands = bands(stack);
    if bands.is_empty() {
        return;
    }
    let room = UNIT * 0.8;
    let band = (room / bands.len() as f32).min(UNIT * 0.2);
    let width = UNIT * 0.7;
    let mut y = cy + room / 2.0;
    for Band { piece, count } in bands {
        y -= band;
        let colour = match piece {
            BandPiece::Seat(seat) => fill(drawing, Some(seat)),
            BandPiece::Neutral => NEUTRAL,
            BandPiece::Hidden => "#ffffff",
        };
        let _ = write!(
            out,
            r##"<rect x="{:.1}" y="{y:.1}" width="{width:.1}" height="{:.1}" rx="2" fill="{colour}" stroke="#1a1a1a"/>"##,
            cx - width / 2.0,
            band - 1.0
        );
        if count > 1 {
            let _ = write!(
                out,
                r##"<text x="{cx:.1}" y="{:.1}" font-size="{:.1}" text-anchor="middle" fill="#000" stroke="#fff" stroke-width="2" paint-order="stroke">{}{count}</text>"##,
                y + band * 0.75,
                (band * 0.8).min(12.0),
                if piece == BandPiece::Hidden { "+" } else { "×" }
            );
        }
    }
}

/// What one band of a side-on stack shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BandPiece {
    Seat(u8),
    Neutral,
    /// The lowest pieces of a stack too varied to show band by band.
    Hidden,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub piece: BandPiece,
    pub count: usize,
}

/// Most bands a stack is drawn with.
const MOST_BANDS: usize = 6;

/// The bands of a stack, bottom to top: one per piece while the stack is at
/// most six high; taller, each run of one colour is one band with its
/// count; still more than six runs, the top five and one band counting the
/// pieces below them.
pub fn bands(stack: &[Option<u8>]) -> Vec<Band> {
    let piece = |p: &Option<u8>| p.map_or(BandPiece::Neutral, BandPiece::Seat);
    if stack.len() <= MOST_BANDS {
        return stack
            .iter()
            .map(|p| Band {
                piece: piece(p),
                count: 1,
            })
            .collect();
    }
    let mut runs: Vec<Band> = Vec::new();
    for p in stack {
        match runs.last_mut() {
            Some(run) if run.piece == piece(p) => run.count += 1,
            _ => runs.push(Band {
                piece: piece(p),
                count: 1,
            }),
        }
    }
    if runs.len() > MOST_BANDS {
        let keep = runs.split_off(runs.len() - (MOST_BANDS - 1));
        let hidden = runs.iter().map(|r| r.count).sum();
        runs = std::iter::once(Band {
            piece: BandPiece::Hidden,
            count: hidden,
        })
        .chain(keep)
        .collect();
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_stacks_are_one_band_per_piece_and_tall_ones_runs() {
        let s = |seat| Some(seat);
        assert_eq!(bands(&[s(0), s(1), s(0)]).len(), 3);
        let tall = [s(0), s(0), s(0), s(1), s(1), None, s(0)];
        let runs = bands(&tall);
        assert_eq!(
            runs,
            [
                Band {
                    piece: BandPiece::Seat(0),
                    count: 3
                },
                Band {
                    piece: BandPiece::Seat(1),
                    count: 2
                },
                Band {
                    piece: BandPiece::Neutral,
                    count: 1
                },
                Band {
                    piece: BandPiece::Seat(0),
                    count: 1
                },
            ]
        );
        let varied: Vec<Option<u8>> = (0..9).map(|i| s(i % 2)).collect();
        let shown = bands(&varied);
        assert_eq!(shown.len(), MOST_BANDS);
        assert_eq!(
            shown[0],
            Band {
                piece: BandPiece::Hidden,
                count: 4
            }
        );
        assert_eq!(shown.iter().map(|b| b.count).sum::<usize>(), 9);
    }
}
