//! Boards for people, drawn from the rules' [`View`] and the catalogue's
//! [`Drawing`](crate::rules::catalogue::Drawing) so every game family gets
//! one: SVG by board kind ([`svg`]) and text in the spirit of pbmserv's
//! mails. The last move is marked generically: every cell whose
//! stack differs from the position before it.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::domain::{GameStatus, Seat};
use crate::rules::{CellView, UnknownGame, View};

mod svg;

pub use svg::svg;

/// What the board's caption says.
pub struct Caption<'a> {
    pub title: &'a str,
    pub status: &'a str,
    pub ply: i64,
    /// `(colour, player)` per seat.
    pub players: Vec<(&'a str, Option<&'a str>)>,
    pub to_move: Option<Seat>,
    pub last_move: Option<String>,
    pub message: Option<&'a str>,
}

/// The board of a snapshot with its caption, as SVG or text; `ply` is the
/// move asked for (`None`: now). Shared by the board routes and the mails.
pub fn render(snapshot: &super::Snapshot, ply: Option<i64>, svg: bool) -> Result<String, UnknownGame> {
    let record = &snapshot.record;
    let (info, variant) = super::variant_info(&record.row)?;
    let title = format!("{} #{}", super::title(info, variant), record.row.id);
    let players = record
        .seats
        .iter()
        .map(|s| {
            (
                variant.seats.get(s.seat.index()).copied().unwrap_or("?"),
                s.player.as_ref().map(|(_, n)| n.as_str()),
            )
        })
        .collect();
    let last_move = snapshot.last_move.as_ref().map(|m| {
        let mut text = format!("{}. {} {}", m.ply, m.player_name, m.notation);
        if let Some(effect) = &m.effect {
            text.push_str(&format!(" ({effect})"));
        }
        text
    });
    let status = if ply.is_some_and(|p| p != record.row.ply) {
        format!("{} (shown at move {})", record.row.status, snapshot.game.ply())
    } else {
        record.row.status.to_string()
    };
    let caption = Caption {
        title: &title,
        status: &status,
        ply: i64::from(snapshot.game.ply()),
        players,
        to_move: snapshot
            .game
            .to_move()
            .map(Seat::from)
            .filter(|_| record.row.status == GameStatus::Active),
        last_move,
        message: snapshot.last_move.as_ref().and_then(|m| m.message.as_deref()),
    };
    Ok(if svg {
        self::svg(&snapshot.view, snapshot.previous.as_ref(), &caption, variant.drawing)
    } else {
        text(&snapshot.view, snapshot.previous.as_ref(), &caption)
    })
}

/// Names of the cells the last move changed.
pub fn changed(view: &View, previous: Option<&View>) -> Vec<String> {
    let Some(previous) = previous else { return Vec::new() };
    let before: BTreeMap<&str, &CellView> = previous.board.cells.iter().map(|c| (c.name.as_str(), c)).collect();
    view.board
        .cells
        .iter()
        .filter(|c| before.get(c.name.as_str()).is_none_or(|b| b.stack != c.stack))
        .map(|c| c.name.clone())
        .collect()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One line per seat: colour, player, reserves, whose turn.
fn seat_lines(view: &View, caption: &Caption) -> Vec<String> {
    view.seats
        .iter()
        .enumerate()
        .map(|(seat, s)| {
            let player = caption.players.get(seat).and_then(|(_, p)| *p).unwrap_or("(open)");
            let mut text = format!("{} {}: {player}", symbol(view, seat), s.colour);
            let mut extra = |label: &str, value: Option<String>| {
                if let Some(value) = value {
                    let _ = write!(text, ", {label} {value}");
                }
            };
            extra("in hand", s.in_hand.map(|v| v.to_string()));
            extra("captured", s.captured.map(|v| v.to_string()));
            extra("score", s.score.map(|v| v.to_string()));
            extra("range", s.range.map(|v| v.to_string()));
            extra("neutral stones", s.neutral_stones.map(|v| v.to_string()));
            if s.out {
                text.push_str(", out");
            }
            if caption.to_move.map(Seat::index) == Some(seat) {
                text.push_str("  <- to move");
            }
            text
        })
        .collect()
}

/// The letter of a seat: its colour's initial, or the seat number when two
/// colours share an initial.
fn symbol(view: &View, seat: usize) -> char {
    let initial = |s: usize| {
        view.seats
            .get(s)
            .and_then(|v| v.colour.chars().next())
            .map_or('?', |c| c.to_ascii_uppercase())
    };
    let mine = initial(seat);
    let clash = (0..view.seats.len()).any(|other| other != seat && initial(other) == mine);
    if clash {
        char::from_digit(seat as u32, 10).unwrap_or('?')
    } else {
        mine
    }
}

/// The token of one cell: `.` empty, the top piece's letter, and the height
/// when above one (`R3`); marked cells of the last move get a `*`.
fn token(view: &View, cell: &CellView, marked: bool) -> String {
    let mut token = match cell.stack.last() {
        None => ".".to_owned(),
        Some(None) => "n".to_owned(),
        Some(Some(seat)) => symbol(view, usize::from(*seat)).to_string(),
    };
    if cell.stack.len() > 1 {
        token.push_str(&cell.stack.len().to_string());
    }
    if marked {
        token.push('*');
    }
    token
}

/// Splits `k10` into `("k", "10")`.
fn split_name(name: &str) -> (&str, &str) {
    let at = name.find(|c: char| c.is_ascii_digit()).unwrap_or(name.len());
    name.split_at(at)
}

/// The board as text: one line per row of cells, rank labels on the left,
/// file labels below, then the seats.
pub fn text(view: &View, previous: Option<&View>, caption: &Caption) -> String {
    let marked = changed(view, previous);
    let cells = &view.board.cells;
    let tokens: Vec<String> = cells.iter().map(|c| token(view, c, marked.contains(&c.name))).collect();
    let layout = TextLayout {
        min_x: cells.iter().map(|c| c.x).fold(f32::INFINITY, f32::min),
        width: tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1).max(2) + 1,
        label_width: cells.iter().map(|c| split_name(&c.name).1.len()).max().unwrap_or(1),
    };
    let mut out = String::new();
    let _ = writeln!(out, "{} — {} — move {}", caption.title, caption.status, caption.ply);
    if let Some(last) = &caption.last_move {
        let _ = writeln!(out, "Last move: {last}");
    }
    if let Some(message) = caption.message {
        let _ = writeln!(out, "Message: {message}");
    }
    out.push('\n');
    // Rows by y to a hundredth of a cell: hex rows sit at fractional heights.
    let mut rows: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, cell) in cells.iter().enumerate() {
        rows.entry((cell.y * 100.0).round() as i64).or_default().push(i);
    }
    for indices in rows.values() {
        out.push_str(layout.row(cells, indices, &tokens).trim_end());
        out.push('\n');
    }
    if let Some(line) = layout.files(cells) {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push('\n');
    for text in seat_lines(view, caption) {
        out.push_str(&text);
        out.push('\n');
    }
    out
}

/// Where the text board puts things: each line starts with the rank labels,
/// `label_width` wide, and a space; then columns by x scaled to the token
/// `width` (half-cell offsets of hex boards land between columns).
struct TextLayout {
    min_x: f32,
    width: usize,
    label_width: usize,
}

impl TextLayout {
    fn column(&self, x: f32) -> usize {
        ((x - self.min_x) * self.width as f32).round().max(0.0) as usize
    }

    /// Extends `line` with spaces to where board column `column` starts.
    fn pad_to(&self, line: &mut String, column: usize) {
        let at = self.label_width + 1 + column;
        while line.chars().count() < at {
            line.push(' ');
        }
    }

    /// One row of cells (`indices` into `cells`, which share a y), labelled
    /// with their rank when they all have the same.
    fn row(&self, cells: &[CellView], indices: &[usize], tokens: &[String]) -> String {
        let rank = split_name(&cells[indices[0]].name).1;
        let same_rank = indices.iter().all(|&i| split_name(&cells[i].name).1 == rank);
        let label = if same_rank { rank } else { "" };
        let mut line = format!("{label:>width$} ", width = self.label_width);
        let mut items: Vec<usize> = indices.to_vec();
        items.sort_by(|a, b| cells[*a].x.total_cmp(&cells[*b].x));
        for i in items {
            self.pad_to(&mut line, self.column(cells[i].x));
            line.push_str(&tokens[i]);
        }
        line
    }

    /// File letters under the columns where every cell shares one, when each
    /// file keeps to one column (not on boards whose files run diagonally);
    /// `None` when there are none.
    fn files(&self, cells: &[CellView]) -> Option<String> {
        let mut columns_of: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for cell in cells {
            let columns = columns_of.entry(split_name(&cell.name).0).or_default();
            if !columns.contains(&self.column(cell.x)) {
                columns.push(self.column(cell.x));
            }
        }
        let straight_files = columns_of.values().all(|c| c.len() == 1);
        let mut files: BTreeMap<usize, Option<&str>> = BTreeMap::new();
        for cell in cells {
            let file = split_name(&cell.name).0;
            files
                .entry(self.column(cell.x))
                .and_modify(|f| {
                    if *f != Some(file) {
                        *f = None;
                    }
                })
                .or_insert(Some(file));
        }
        let mut line = " ".repeat(self.label_width + 1);
        for (col, file) in files {
            if let Some(file) = file {
                self.pad_to(&mut line, col);
                line.push_str(file);
            }
        }
        (straight_files && !line.trim().is_empty()).then_some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::catalogue::drawing;
    use crate::rules::{BoardShape, BoardView, SeatView};

    fn cell(name: &str, x: f32, y: f32, stack: &[Option<u8>]) -> CellView {
        CellView {
            name: name.to_owned(),
            x,
            y,
            stack: stack.to_vec(),
        }
    }

    /// A small hex board: two rows offset by half a cell, stacks and a
    /// neutral piece.
    fn hex(stack_on_b1: &[Option<u8>]) -> View {
        View {
            board: BoardView {
                shape: BoardShape::Hex,
                files: 3,
                ranks: 2,
                cells: vec![
                    cell("a2", 0.0, 0.0, &[]),
                    cell("b2", 1.0, 0.0, &[None]),
                    cell("a1", 0.5, 0.866, &[Some(0)]),
                    cell("b1", 1.5, 0.866, stack_on_b1),
                ],
            },
            seats: vec![
                SeatView {
                    colour: "black",
                    in_hand: Some(3),
                    ..SeatView::default()
                },
                SeatView {
                    colour: "blue",
                    captured: Some(1),
                    ..SeatView::default()
                },
            ],
            phase: None,
        }
    }

    fn caption() -> Caption<'static> {
        Caption {
            title: "Test <game>",
            status: "active",
            ply: 7,
            players: vec![("black", Some("alice")), ("blue", None)],
            to_move: Some(Seat::from(1)),
            last_move: Some("7. alice b1".to_owned()),
            message: Some("hi"),
        }
    }

    #[test]
    fn the_last_move_marks_every_changed_cell() {
        let before = hex(&[Some(1)]);
        let after = hex(&[Some(1), Some(0)]);
        assert_eq!(changed(&after, Some(&before)), ["b1"]);
        assert!(changed(&after, None).is_empty());
        assert!(changed(&after, Some(&after)).is_empty());
    }

    #[test]
    fn hex_boards_are_drawn_as_hexagons() {
        let before = hex(&[Some(1)]);
        let after = hex(&[Some(1), Some(0)]);
        let svg = svg(&after, Some(&before), &caption(), &drawing::WHITE_BLACK_HEXES);
        assert_eq!(svg.matches("<polygon").count(), 4 + 1, "four cells and the mark");
        assert!(!svg.contains("<rect x="));
        assert_eq!(svg.matches(r##"stroke="#e0452b""##).count(), 1);
        // Each cell's name sits inside it, centred under its piece.
        assert!(svg.contains(r#"text-anchor="middle">b1</text>"#), "{svg}");
        assert!(svg.contains("Test &lt;game&gt;"), "captions are escaped");
        assert!(svg.contains("in hand 3") && svg.contains("captured 1"));
    }

    /// A 3×3 corner of squares with a stack of three on b2.
    fn squares(stack: &[Option<u8>]) -> View {
        let mut cells = Vec::new();
        for (i, name) in ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
            .iter()
            .enumerate()
        {
            let stack = if *name == "b2" { stack } else { &[] };
            cells.push(cell(name, (i % 3) as f32 + 0.5, (i / 3) as f32 + 0.5, stack));
        }
        View {
            board: BoardView {
                shape: BoardShape::Square,
                files: 3,
                ranks: 3,
                cells,
            },
            seats: SeatView::colours(&["red", "green"]),
            phase: None,
        }
    }

    #[test]
    fn stacks_are_drawn_side_on_every_piece_in_its_colour() {
        let view = squares(&[Some(0), Some(1), Some(0)]);
        let svg = svg(&view, None, &caption(), &drawing::FOCUS_TWO);
        let red = drawing::FOCUS_TWO.pieces[0];
        let green = drawing::FOCUS_TWO.pieces[1];
        assert_eq!(svg.matches(&format!(r#"rx="2" fill="{red}""#)).count(), 2, "{svg}");
        assert_eq!(svg.matches(&format!(r#"rx="2" fill="{green}""#)).count(), 1, "{svg}");
        // Coordinates on the edges, not in the cells: each file and rank once.
        assert_eq!(svg.matches(">b</text>").count(), 1, "{svg}");
        assert_eq!(svg.matches(">2</text>").count(), 1, "{svg}");
        assert!(!svg.contains(">b2</text>"));
    }

    #[test]
    fn an_intersection_board_has_lines_star_points_and_stones_on_points() {
        let mut view = squares(&[Some(1)]);
        view.seats = SeatView::colours(&["white", "black"]);
        let stars = crate::rules::catalogue::Drawing {
            stars: &["b2", "a1"],
            ..drawing::PENTE
        };
        let svg = svg(&view, None, &caption(), &stars);
        assert_eq!(svg.matches("<line ").count(), 6, "three lines each way: {svg}");
        assert!(!svg.contains(r#"width="48.0" height="48.0""#), "no squares: {svg}");
        assert_eq!(svg.matches(r##"fill="#3b2a14"/>"##).count(), 2, "two star points");
        let black = drawing::PENTE.pieces[1];
        assert_eq!(svg.matches(&format!(r#"fill="{black}""#)).count(), 1, "{svg}");
        // The caption is wide enough for its longest line.
        assert!(svg.contains("Test &lt;game&gt;"));
    }

    #[test]
    fn text_boards_show_stacks_heights_and_the_last_move() {
        let before = hex(&[Some(1)]);
        let after = hex(&[Some(1), Some(0)]);
        let text = text(&after, Some(&before), &caption());
        // Colours share an initial (black, blue): seats are numbered.
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.contains(&"2 .   n"), "{text}");
        assert!(lines.contains(&"1   0   02*"), "{text}");
        assert!(!text.contains("a a"), "diagonal files get no labels: {text}");
        assert!(text.contains("0 black: alice, in hand 3"), "{text}");
        assert!(text.contains("1 blue: (open), captured 1  <- to move"), "{text}");
        assert!(text.contains("Message: hi"));
    }
}
