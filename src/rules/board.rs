//! Squares, bitboards and coordinate notation shared by the games on boards
//! of at most 8×8 (square, with holes, or hexagonal cells on a rhombic grid).

use std::fmt;
use std::str::FromStr;

/// A move string that does not follow the game's notation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{input:?} is not a move: expected {expected}")]
pub struct NotationError {
    input: String,
    expected: &'static str,
}

impl NotationError {
    /// Longest part of the offending input echoed back: hostile input must not
    /// turn into a huge error message.
    const ECHO: usize = 24;

    pub fn new(input: &str, expected: &'static str) -> NotationError {
        NotationError {
            input: Self::echo(input),
            expected,
        }
    }

    /// `input` cut to a length fit for an error message.
    pub fn echo(input: &str) -> String {
        match input.char_indices().nth(Self::ECHO) {
            Some((cut, _)) => format!("{}…", &input[..cut]),
            None => input.to_string(),
        }
    }
}

/// Reads a coordinate (`e4`, `K10`) from the front of `text`: a file letter
/// and a rank number from 1, both 0-based in the result, and the rest of the
/// text. `skip_i` leaves out the letter `i` (Pente's files `a`…`t`).
pub fn parse_coordinate(text: &str, skip_i: bool) -> Option<(u8, u8, &str)> {
    let bytes = text.as_bytes();
    let letter = bytes.first()?.to_ascii_lowercase();
    if !letter.is_ascii_lowercase() || (skip_i && letter == b'i') {
        return None;
    }
    let mut file = letter - b'a';
    if skip_i && letter > b'i' {
        file -= 1;
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 2 || bytes[1] == b'0' {
        return None;
    }
    let rank: u8 = text[1..1 + digits].parse().ok()?;
    Some((file, rank - 1, &text[1 + digits..]))
}

/// Writes a 0-based coordinate as notation, a character at a time: into a
/// `String` that is a push each, where `write!` with two arguments goes
/// through the formatting machinery (a position's legal moves are written
/// in every answer that lists them; issue 26).
pub fn write_coordinate(out: &mut impl fmt::Write, file: u8, rank: u8, skip_i: bool) -> fmt::Result {
    let mut letter = b'a' + file;
    if skip_i && letter >= b'i' {
        letter += 1;
    }
    out.write_char(char::from(letter))?;
    let number = u16::from(rank) + 1;
    for divisor in [100, 10, 1] {
        if number >= divisor || divisor == 1 {
            out.write_char(char::from(b'0' + (number / divisor % 10) as u8))?;
        }
    }
    Ok(())
}

/// A square of a grid of at most 8×8: `rank * 8 + file`, `a1` = 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    pub const fn new(file: u8, rank: u8) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square(rank * 8 + file)
    }

    pub const fn from_index(index: u8) -> Square {
        debug_assert!(index < 64);
        Square(index)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    pub const fn bit(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    /// The square `(df, dr)` away, if it is still on the 8×8 grid.
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let file = self.file() as i8 + df;
        let rank = self.rank() as i8 + dr;
        ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| Square::new(file as u8, rank as u8))
    }

    /// Reads a square from the front of `text`, returning the rest.
    pub fn parse_prefix(text: &str) -> Option<(Square, &str)> {
        let (file, rank, rest) = parse_coordinate(text, false)?;
        (file < 8 && rank < 8).then(|| (Square::new(file, rank), rest))
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl super::Notation for Square {
    fn write_notation(&self, out: &mut impl fmt::Write) -> fmt::Result {
        write_coordinate(out, self.file(), self.rank(), false)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::Notation::write_notation(self, f)
    }
}

impl FromStr for Square {
    type Err = NotationError;

    fn from_str(s: &str) -> Result<Square, NotationError> {
        match Square::parse_prefix(s) {
            Some((square, "")) => Ok(square),
            _ => Err(NotationError::new(s, "a square such as e4")),
        }
    }
}

/// The eight directions as `(file, rank)` steps: the four orthogonal first.
pub const DIRECTIONS: [(i8, i8); 8] = [(0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, -1), (-1, 1)];

/// A set of squares of an 8×8 grid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);

    #[inline]
    pub const fn contains(self, square: Square) -> bool {
        self.0 & (1 << square.0) != 0
    }

    #[inline]
    pub fn set(&mut self, square: Square) {
        self.0 |= 1 << square.0;
    }

    #[inline]
    pub fn clear(&mut self, square: Square) {
        self.0 &= !(1 << square.0);
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The `n`-th square of the set in index order (`n < count()`).
    #[inline]
    pub fn nth(self, n: u32) -> Option<Square> {
        let mut bits = self.0;
        let mut skip = n;
        // Skip whole bytes first: a playout picks among up to 64 squares.
        let mut base = 0;
        loop {
            if bits == 0 {
                return None;
            }
            let in_byte = (bits & 0xff).count_ones();
            if skip < in_byte {
                break;
            }
            skip -= in_byte;
            bits >>= 8;
            base += 8;
        }
        for _ in 0..skip {
            bits &= bits - 1;
        }
        Some(Square((base + bits.trailing_zeros()) as u8))
    }
}

impl std::ops::BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl std::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let square = Square(self.0.trailing_zeros() as u8);
        self.0 &= self.0 - 1;
        Some(square)
    }
}

/// How many squares of `board` lie in a row from each square in each of
/// `directions` before the first one off it (the square itself not
/// counted); all 0 for a square off the board. The move tables of the games
/// whose pieces slide along rays.
pub const fn reach<const D: usize>(board: Bitboard, directions: [(i8, i8); D]) -> [[u8; D]; 64] {
    let mut table = [[0u8; D]; 64];
    let mut index = 0;
    while index < 64 {
        if board.0 & (1 << index) != 0 {
            let mut dir = 0;
            while dir < D {
                let (df, dr) = directions[dir];
                let (mut file, mut rank) = ((index % 8) as i8, (index / 8) as i8);
                let mut steps = 0;
                loop {
                    file += df;
                    rank += dr;
                    if file < 0 || file > 7 || rank < 0 || rank > 7 || board.0 & (1 << (rank * 8 + file)) == 0 {
                        break;
                    }
                    steps += 1;
                }
                table[index][dir] = steps;
                dir += 1;
            }
        }
        index += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_and_accept_upper_case() {
        for square in Square::all() {
            assert_eq!(square.to_string().parse::<Square>(), Ok(square));
        }
        assert_eq!("E4".parse::<Square>(), Ok(Square::new(4, 3)));
        for bad in ["", "e", "e0", "e9", "i1", "e44", "4e", "é4", "e4 "] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn pente_coordinates_skip_i() {
        assert_eq!(parse_coordinate("k10", true), Some((9, 9, "")));
        assert_eq!(parse_coordinate("t19+", true), Some((18, 18, "+")));
        assert_eq!(parse_coordinate("i5", true), None);
    }

    #[test]
    fn coordinates_are_written_as_they_are_read() {
        struct Coordinate(u8, u8, bool);
        impl fmt::Display for Coordinate {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_coordinate(f, self.0, self.1, self.2)
            }
        }
        let written = |file, rank, skip_i| Coordinate(file, rank, skip_i).to_string();
        assert_eq!(written(0, 0, false), "a1");
        assert_eq!(written(7, 7, false), "h8");
        assert_eq!(written(8, 9, true), "j10");
        assert_eq!(written(18, 18, true), "t19");
        assert_eq!(written(2, 99, false), "c100");
        assert_eq!(written(25, 254, false), "z255");
        for skip_i in [false, true] {
            for file in 0..19 {
                for rank in 0..19 {
                    let text = written(file, rank, skip_i);
                    assert_eq!(parse_coordinate(&text, skip_i), Some((file, rank, "")), "{text}");
                }
            }
        }
    }

    #[test]
    fn nth_picks_in_index_order() {
        let set = Bitboard(0b1011_0000_0000_0101);
        let picked: Vec<_> = (0..set.count()).map(|n| set.nth(n)).collect();
        assert_eq!(picked, set.map(Some).collect::<Vec<_>>());
        assert_eq!(set.nth(set.count()), None);
        let wide = Bitboard(0x8100_0000_0000_0001);
        assert_eq!(wide.nth(2), Some(Square::from_index(63)));
    }
}
