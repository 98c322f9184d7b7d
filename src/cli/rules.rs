//! `tavoliere rules`: the rules as a JSON-lines filter, for bot authors and
//! rule checkers.

use std::io::{self, BufRead, Read, Write};

use serde::Serialize;

use crate::rules::analysis::{self, Refusal, Request};

/// Longest request line read; longer ones are answered with an error and
/// skipped, so a hostile line cannot exhaust memory.
pub const MAX_LINE: usize = 1 << 20;

/// Answers every line of `input` on `output`, flushing after each answer.
pub fn run(input: impl BufRead, mut output: impl Write) -> io::Result<()> {
    let mut input = input;
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut input).take(MAX_LINE as u64 + 1).read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(());
        }
        let answer = if line.len() > MAX_LINE && line.last() != Some(&b'\n') {
            skip_rest_of_line(&mut input)?;
            Some(
                Refusal {
                    error: format!("request longer than {MAX_LINE} bytes"),
                    index: None,
                }
                .to_line(),
            )
        } else {
            answer(&line)
        };
        if let Some(answer) = answer {
            output.write_all(answer.as_bytes())?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
}

fn skip_rest_of_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&b| b == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let all = buffer.len();
                input.consume(all);
            }
        }
    }
}

/// The answer to one line, or `None` for a blank line.
pub fn answer(line: &[u8]) -> Option<String> {
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let answer = match serde_json::from_slice::<Request>(line) {
        Ok(request) => match analysis::standing(&request) {
            Ok(standing) => to_line(&standing),
            Err(refusal) => refusal.to_line(),
        },
        Err(e) => Refusal {
            error: format!("malformed request: {e}"),
            index: None,
        }
        .to_line(),
    };
    Some(answer)
}

trait ToLine {
    fn to_line(&self) -> String;
}

impl ToLine for Refusal {
    fn to_line(&self) -> String {
        to_line(self)
    }
}

fn to_line(value: &impl Serialize) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|e| format!(r#"{{"error":"cannot encode the answer: {e}","index":null}}"#))
}
