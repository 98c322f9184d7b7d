//! Boards for people, drawn from the rules' [`View`] alone so every game
//! family gets one: SVG (hex boards as hexagons) and text in the spirit of
//! pbmserv's mails. The last move is marked generically: every cell whose
//! stack differs from the position before it.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::domain::GameStatus;
use crate::rules::{BoardShape, CellView, View};

/// What the board's caption says.
pub struct Caption<'a> {
    pub title: &'a str,
    pub status: &'a str,
    pub ply: i64,
    /// `(colour, player)` per seat.
    pub players: Vec<(&'a str, Option<&'a str>)>,
    pub to_move: Option<i64>,
    pub last_move: Option<String>,
    pub message: Option<&'a str>,
}

/// The board of a snapshot with its caption, as SVG or text; `ply` is the
/// move asked for (`None`: now). Shared by the board routes and the mails.
pub fn render(snapshot: &super::Snapshot, ply: Option<i64>, svg: bool) -> crate::error::Result<String> {
    let record = &snapshot.record;
    let (info, variant) = crate::games::variant_info(&record.row)?;
    let title = format!("{} #{}", crate::games::title(info, variant), record.row.id);
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
            .map(i64::from)
            .filter(|_| record.row.status == GameStatus::Active),
        last_move,
        message: snapshot.last_move.as_ref().and_then(|m| m.message.as_deref()),
    };
    Ok(if svg {
        self::svg(&snapshot.view, snapshot.previous.as_ref(), &caption)
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

const PALETTE: [&str; 6] = ["#d7263d", "#1b998b", "#2e294e", "#f46036", "#c5d86d", "#8d6a9f"];

/// A fill for a seat: its colour name when SVG knows it, else a palette entry.
fn fill(colour: &str, seat: usize) -> String {
    const NAMED: [&str; 14] = [
        "black", "white", "red", "yellow", "green", "blue", "orange", "purple", "brown", "grey", "gray", "pink",
        "cyan", "magenta",
    ];
    let lower = colour.to_ascii_lowercase();
    if NAMED.contains(&lower.as_str()) {
        lower
    } else {
        PALETTE[seat % PALETTE.len()].to_owned()
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The board as an SVG picture.
pub fn svg(view: &View, previous: Option<&View>, caption: &Caption) -> String {
    const UNIT: f32 = 48.0;
    const MARGIN: f32 = 32.0;
    let marked = changed(view, previous);
    let cells = &view.board.cells;
    // Cell centres come in cell widths from the board's top-left corner;
    // the board reaches half a cell beyond the extreme centres.
    let left = cells.iter().map(|c| c.x - 0.5).fold(0.0f32, f32::min);
    let top = cells.iter().map(|c| c.y - 0.5).fold(0.0f32, f32::min);
    let right = cells.iter().map(|c| c.x + 0.5).fold(0.0f32, f32::max);
    let bottom = cells.iter().map(|c| c.y + 0.5).fold(0.0f32, f32::max);
    let lines = 3 + view.seats.len();
    let width = (right - left) * UNIT + 2.0 * MARGIN;
    let board_height = (bottom - top) * UNIT + 2.0 * MARGIN;
    let height = board_height + lines as f32 * 18.0 + 8.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0} {height:.0}" width="{width:.0}" height="{height:.0}" font-family="sans-serif">"#
    );
    let _ = write!(out, r##"<rect width="100%" height="100%" fill="#f4ecd8"/>"##);
    let mut marks = String::new();
    for cell in cells {
        let cx = MARGIN + (cell.x - left) * UNIT;
        let cy = MARGIN + (cell.y - top) * UNIT;
        let shape = |attributes: &str| match view.board.shape {
            BoardShape::Square => format!(
                r#"<rect x="{:.1}" y="{:.1}" width="{UNIT:.1}" height="{UNIT:.1}" {attributes}/>"#,
                cx - UNIT / 2.0,
                cy - UNIT / 2.0
            ),
            BoardShape::Hex => {
                // Pointy-top hexagon inscribed in the cell.
                let r = UNIT / 3f32.sqrt();
                let points: Vec<String> = (0..6)
                    .map(|i| {
                        let a = std::f32::consts::PI / 3.0 * i as f32 + std::f32::consts::PI / 6.0;
                        format!("{:.1},{:.1}", cx + r * a.cos(), cy + r * a.sin())
                    })
                    .collect();
                format!(r#"<polygon points="{}" {attributes}/>"#, points.join(" "))
            }
        };
        out.push_str(&shape(r##"fill="#e8d9b0" stroke="#555" stroke-width="1""##));
        if marked.contains(&cell.name) {
            // Drawn after every cell so no neighbour's outline covers it.
            marks.push_str(&shape(r##"fill="none" stroke="#e00" stroke-width="3""##));
        }
        let _ = write!(
            out,
            r##"<text x="{:.1}" y="{:.1}" font-size="9" fill="#776">{}</text>"##,
            cx - UNIT / 2.0 + 3.0,
            cy - UNIT / 2.0 + 10.0,
            escape(&cell.name)
        );
        // The stack, bottom to top, as discs offset upward; the height when
        // above one.
        let shown = cell.stack.len().min(5);
        let skip = cell.stack.len() - shown;
        for (i, piece) in cell.stack.iter().skip(skip).enumerate() {
            let y = cy + 4.0 - i as f32 * 5.0;
            let colour = match piece {
                Some(seat) => {
                    let seat = usize::from(*seat);
                    fill(view.seats.get(seat).map_or("", |s| s.colour), seat)
                }
                None => "#999".to_owned(),
            };
            let _ = write!(
                out,
                r##"<ellipse cx="{cx:.1}" cy="{y:.1}" rx="{:.1}" ry="{:.1}" fill="{colour}" stroke="#222"/>"##,
                UNIT * 0.34,
                UNIT * 0.22
            );
        }
        if cell.stack.len() > 1 {
            let _ = write!(
                out,
                r##"<text x="{:.1}" y="{:.1}" font-size="11" font-weight="bold" fill="#000">{}</text>"##,
                cx + UNIT / 2.0 - 12.0,
                cy + UNIT / 2.0 - 4.0,
                cell.stack.len()
            );
        }
    }
    out.push_str(&marks);
    let mut y = board_height;
    let mut line = |text: &str, out: &mut String| {
        let _ = write!(
            out,
            r#"<text x="{MARGIN:.1}" y="{y:.1}" font-size="13">{}</text>"#,
            escape(text)
        );
        y += 18.0;
    };
    line(
        &format!("{} — {} — move {}", caption.title, caption.status, caption.ply),
        &mut out,
    );
    if let Some(last) = &caption.last_move {
        line(&format!("last move: {last}"), &mut out);
    }
    for text in seat_lines(view, caption) {
        line(&text, &mut out);
    }
    out.push_str("</svg>\n");
    out
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
            if caption.to_move == Some(seat as i64) {
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
    let width = tokens.iter().map(|t| t.chars().count()).max().unwrap_or(1).max(2) + 1;
    // Rows by y, columns by x scaled to the token width (half-cell offsets of
    // hex boards land between columns).
    let key = |v: f32| (v * 100.0).round() as i64;
    let mut rows: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (i, cell) in cells.iter().enumerate() {
        rows.entry(key(cell.y)).or_default().push(i);
    }
    let min_x = cells.iter().map(|c| c.x).fold(f32::INFINITY, f32::min);
    let column = |x: f32| ((x - min_x) * width as f32).round().max(0.0) as usize;
    let label_width = cells.iter().map(|c| split_name(&c.name).1.len()).max().unwrap_or(1);
    let mut out = String::new();
    let _ = writeln!(out, "{} — {} — move {}", caption.title, caption.status, caption.ply);
    if let Some(last) = &caption.last_move {
        let _ = writeln!(out, "Last move: {last}");
    }
    if let Some(message) = caption.message {
        let _ = writeln!(out, "Message: {message}");
    }
    out.push('\n');
    for indices in rows.values() {
        let rank = split_name(&cells[indices[0]].name).1;
        let same_rank = indices.iter().all(|&i| split_name(&cells[i].name).1 == rank);
        let label = if same_rank { rank } else { "" };
        let mut line = format!("{label:>label_width$} ");
        let mut items: Vec<usize> = indices.clone();
        items.sort_by(|a, b| cells[*a].x.total_cmp(&cells[*b].x));
        for i in items {
            let at = label_width + 1 + column(cells[i].x);
            while line.chars().count() < at {
                line.push(' ');
            }
            line.push_str(&tokens[i]);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    // File letters under the columns where every cell shares one, when each
    // file keeps to one column (not on boards whose files run diagonally).
    let mut columns_of: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for cell in cells {
        let columns = columns_of.entry(split_name(&cell.name).0).or_default();
        if !columns.contains(&column(cell.x)) {
            columns.push(column(cell.x));
        }
    }
    let straight_files = columns_of.values().all(|c| c.len() == 1);
    let mut files: BTreeMap<usize, Option<&str>> = BTreeMap::new();
    for cell in cells {
        let file = split_name(&cell.name).0;
        files
            .entry(column(cell.x))
            .and_modify(|f| {
                if *f != Some(file) {
                    *f = None;
                }
            })
            .or_insert(Some(file));
    }
    let mut line = " ".repeat(label_width + 1);
    for (col, file) in files {
        if let Some(file) = file {
            let at = label_width + 1 + col;
            while line.chars().count() < at {
                line.push(' ');
            }
            line.push_str(file);
        }
    }
    if straight_files && !line.trim().is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{BoardView, SeatView};

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
            to_move: Some(1),
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
        let svg = svg(&after, Some(&before), &caption());
        assert_eq!(svg.matches("<polygon").count(), 4 + 1, "four cells and the mark");
        assert!(!svg.contains("<rect x="));
        assert_eq!(svg.matches(r##"stroke="#e00""##).count(), 1);
        assert!(svg.contains("Test &lt;game&gt;"), "captions are escaped");
        assert!(svg.contains("in hand 3") && svg.contains("captured 1"));
        // Two pieces on b1: its height is written.
        assert!(svg.contains(">2</text>"));
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
