//! Mail in tests: a real SMTP receiver on 127.0.0.1 that collects what the
//! server sends, and a raw SMTP client that mails the server's listener.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::until;

/// A minimal SMTP server: enough of RFC 5321 for one client at a time.
/// Returns its port and the messages it accepted (envelope and data).
pub type Mails = Arc<Mutex<Vec<(Vec<String>, String)>>>;

pub async fn smtp_receiver() -> (u16, Mails) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let store = received.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let store = store.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                let _ = write.write_all(b"220 test.local ESMTP ready\r\n").await;
                let mut envelope = Vec::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    let verb = line.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
                    let answer: &[u8] = match verb.as_str() {
                        "EHLO" => b"250-test.local\r\n250 8BITMIME\r\n",
                        "HELO" => b"250 test.local\r\n",
                        "MAIL" | "RCPT" => {
                            envelope.push(line.clone());
                            b"250 OK\r\n"
                        }
                        "DATA" => {
                            let _ = write.write_all(b"354 go ahead\r\n").await;
                            let mut data = String::new();
                            while let Ok(Some(line)) = lines.next_line().await {
                                if line == "." {
                                    break;
                                }
                                data.push_str(line.strip_prefix('.').unwrap_or(&line));
                                data.push('\n');
                            }
                            store.lock().unwrap().push((std::mem::take(&mut envelope), data));
                            b"250 queued\r\n"
                        }
                        "RSET" | "NOOP" => b"250 OK\r\n",
                        "QUIT" => {
                            let _ = write.write_all(b"221 bye\r\n").await;
                            break;
                        }
                        _ => b"502 not implemented\r\n",
                    };
                    if write.write_all(answer).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    (port, received)
}

/// Undoes quoted-printable (soft line breaks and `=XX`).
pub fn unquote(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&joined[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Mails received so far, once one of them satisfies `wanted`.
pub async fn mails_until(
    received: &Mails,
    what: &str,
    wanted: impl Fn(&(Vec<String>, String)) -> bool,
) -> Vec<(Vec<String>, String)> {
    until(what, || async { received.lock().unwrap().iter().any(&wanted) }).await;
    received.lock().unwrap().clone()
}

/// A raw SMTP client session with the server's listener.
pub struct SmtpClient {
    reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    writer: tokio::net::tcp::OwnedWriteHalf,
}

impl SmtpClient {
    /// Connects and reads the greeting.
    pub async fn connect(address: SocketAddr) -> SmtpClient {
        let stream = TcpStream::connect(address).await.expect("connect to the SMTP listener");
        let (read, writer) = stream.into_split();
        let mut client = SmtpClient {
            reader: BufReader::new(read),
            writer,
        };
        let (code, text) = client.response().await;
        assert_eq!(code, 220, "{text}");
        client
    }

    /// Connects and reads the first line the listener says, whatever it
    /// is (a greeting, or a refusal of the session).
    pub async fn greeting(address: SocketAddr) -> String {
        let stream = TcpStream::connect(address).await.expect("connect to the SMTP listener");
        let mut line = String::new();
        BufReader::new(stream)
            .read_line(&mut line)
            .await
            .expect("read the first line");
        line
    }

    /// Reads one (possibly multi-line) response: its code and text.
    pub async fn response(&mut self) -> (u16, String) {
        let mut text = String::new();
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).await.expect("read a response");
            if n == 0 {
                return (0, text);
            }
            text.push_str(&line);
            if line.len() < 4 || line.as_bytes()[3] != b'-' {
                return (line[..3].parse().unwrap_or(0), text);
            }
        }
    }

    /// Sends raw bytes, reading nothing.
    pub async fn write(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.expect("write to the listener");
    }

    /// Sends raw bytes and reads the response.
    pub async fn raw(&mut self, bytes: &[u8]) -> (u16, String) {
        self.write(bytes).await;
        self.response().await
    }

    /// Sends one command line and reads the response.
    pub async fn command(&mut self, line: &str) -> (u16, String) {
        self.raw(format!("{line}\r\n").as_bytes()).await
    }

    /// A whole transaction; the code at the end of DATA (or of the first
    /// step refused).
    pub async fn send(&mut self, from: &str, to: &[&str], message: &str) -> u16 {
        let (code, text) = self.command(&format!("MAIL FROM:<{from}>")).await;
        if code != 250 {
            return code;
        }
        for rcpt in to {
            let (code, _) = self.command(&format!("RCPT TO:<{rcpt}>")).await;
            if code != 250 {
                let _ = self.command("RSET").await;
                return code;
            }
        }
        let (code, _) = self.command("DATA").await;
        assert_eq!(code, 354, "{text}");
        let mut data = String::new();
        for line in message.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.starts_with('.') {
                data.push('.');
            }
            data.push_str(line);
            data.push_str("\r\n");
        }
        data.push_str(".\r\n");
        self.raw(data.as_bytes()).await.0
    }

    /// Whether the server closed the session.
    pub async fn closed(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.reader.read(&mut byte).await, Ok(0) | Err(_))
    }
}

/// Mails one message in a session of its own (EHLO first); the final code.
pub async fn mail(address: SocketAddr, from: &str, to: &[&str], message: &str) -> u16 {
    let mut client = SmtpClient::connect(address).await;
    let (code, text) = client.command("EHLO client.test").await;
    assert_eq!(code, 250, "{text}");
    let code = client.send(from, to, message).await;
    let _ = client.command("QUIT").await;
    code
}
