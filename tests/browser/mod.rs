//! A small Chrome DevTools Protocol client for the browser tests: starts
//! headless Chromium, opens pages in separate browser contexts (separate
//! storage, so two players can sign in at once), evaluates JavaScript,
//! clicks with real mouse events at an element's centre, takes screenshots.

#![allow(dead_code)]

use std::collections::HashMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// How long a `wait` polls before the test fails.
const WAIT: Duration = Duration::from_secs(15);

/// The Chromium binary: `$CHROMIUM`, else Debian's `/usr/bin/chromium`.
pub fn chromium_path() -> PathBuf {
    std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

pub struct Browser {
    child: Child,
    profile: PathBuf,
    outgoing: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next_id: AtomicU64,
}

impl Browser {
    pub async fn launch() -> Browser {
        let binary = chromium_path();
        assert!(
            binary.exists(),
            "no Chromium at {} (apt-get install chromium, or set CHROMIUM)",
            binary.display()
        );
        let profile = std::env::temp_dir().join(format!(
            "tavoliere-chromium-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ));
        std::fs::create_dir_all(&profile).expect("create the browser profile directory");
        // The networking flags keep Chromium from calling home on a closed
        // network; port 0 lets it choose and write DevToolsActivePort.
        let child = Command::new(&binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                "--window-size=1200,900",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            // Its helpers (zygote, renderers, GPU) join this group, so that
            // dropping the browser ends them all.
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start Chromium");
        let port_file = profile.join("DevToolsActivePort");
        let started = Instant::now();
        let endpoint = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    break format!("ws://127.0.0.1:{port}{path}");
                }
            }
            assert!(started.elapsed() < Duration::from_secs(30), "Chromium did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let (socket, _) = tokio_tungstenite::connect_async(&endpoint)
            .await
            .expect("connect to Chromium's DevTools");
        let (mut sink, mut stream) = socket.split();
        let (outgoing, mut queue) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(message) = queue.recv().await {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
        });
        let pending: Pending = Arc::default();
        let answers = pending.clone();
        tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                let Message::Text(text) = message else { continue };
                let Ok(value) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                // Events (no id) are not needed by these tests.
                if let Some(id) = value["id"].as_u64() {
                    if let Some(tx) = answers.lock().expect("pending lock").remove(&id) {
                        let _ = tx.send(value);
                    }
                }
            }
        });
        Browser {
            child,
            profile,
            outgoing,
            pending,
            next_id: AtomicU64::new(1),
        }
    }

    /// One protocol command; the `result`, or a panic with the error.
    pub async fn call(&self, session: Option<&str>, method: &str, params: Value) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, tx);
        let mut request = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            request["sessionId"] = json!(session);
        }
        self.outgoing
            .send(Message::Text(request.to_string().into()))
            .expect("the DevTools connection is open");
        let answer = tokio::time::timeout(Duration::from_secs(30), rx)
            .await
            .unwrap_or_else(|_| panic!("{method}: no answer from Chromium"))
            .expect("an answer");
        if let Some(error) = answer.get("error") {
            panic!("{method}: {error}");
        }
        answer["result"].clone()
    }

    /// A new page in its own browser context (its own localStorage).
    pub async fn page(&self) -> Page<'_> {
        let context = self.call(None, "Target.createBrowserContext", json!({})).await;
        let context = context["browserContextId"].as_str().expect("a context").to_owned();
        let target = self
            .call(
                None,
                "Target.createTarget",
                json!({ "url": "about:blank", "browserContextId": context }),
            )
            .await;
        let target = target["targetId"].as_str().expect("a target").to_owned();
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target, "flatten": true }),
            )
            .await;
        let session = attached["sessionId"].as_str().expect("a session").to_owned();
        let page = Page { browser: self, session };
        page.command("Page.enable", json!({})).await;
        page
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The whole group: a helper left running would write into the
        // profile after it is removed.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A killed Chromium leaves its singleton socket's directory in /tmp.
        if let Some(socket_dir) = std::fs::read_link(self.profile.join("SingletonSocket"))
            .ok()
            .and_then(|socket| socket.parent().map(Path::to_path_buf))
            .filter(|dir| {
                dir.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("org.chromium.Chromium."))
            })
        {
            let _ = std::fs::remove_dir_all(socket_dir);
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

pub struct Page<'a> {
    browser: &'a Browser,
    session: String,
}

impl Page<'_> {
    pub async fn command(&self, method: &str, params: Value) -> Value {
        self.browser.call(Some(&self.session), method, params).await
    }

    pub async fn goto(&self, url: &str) {
        // The old document answers until the new one commits: mark it.
        self.eval("window.__leaving = true").await;
        self.command("Page.navigate", json!({ "url": url })).await;
        self.wait(
            "!window.__leaving && document.readyState === 'complete' && !!document.getElementById('nav')",
            "the page loads",
        )
        .await;
    }

    /// Evaluates an expression (promises awaited); its JSON value.
    pub async fn eval(&self, expression: &str) -> Value {
        let answer = self
            .command(
                "Runtime.evaluate",
                json!({ "expression": expression, "awaitPromise": true, "returnByValue": true }),
            )
            .await;
        if let Some(exception) = answer.get("exceptionDetails") {
            panic!("{expression}: {exception}");
        }
        answer["result"]["value"].clone()
    }

    /// Polls `condition` until it is truthy; fails the test with `what`
    /// and the page's visible message otherwise.
    pub async fn wait(&self, condition: &str, what: &str) {
        let started = Instant::now();
        let probe = format!("(() => {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }})()");
        loop {
            if self.eval(&probe).await == Value::Bool(true) {
                return;
            }
            if started.elapsed() > WAIT {
                let shown = self
                    .eval("(document.querySelector('.notice') || {}).textContent || document.body.innerText.slice(0, 400)")
                    .await;
                panic!("timed out waiting for {what}; the page shows: {shown}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks the element like a mouse: scrolls it into view and presses at
    /// its centre, so an element covered by another is not clicked.
    pub async fn click(&self, selector: &str) {
        let quoted = serde_json::to_string(selector).expect("a selector");
        self.wait(&format!("document.querySelector({quoted})"), selector).await;
        // The page may still be rendering a state that arrived meanwhile and
        // shifts the layout: press only where the element itself is on top
        // (else a click meant for b2 lands on b3).
        let started = Instant::now();
        let (x, y) = loop {
            let found = self
                .eval(&format!(
                    "(() => {{ const e = document.querySelector({quoted}); if (!e) return null; \
                     e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
                     const x = r.x + r.width / 2, y = r.y + r.height / 2; const top = document.elementFromPoint(x, y); \
                     return top && (top === e || e.contains(top)) ? [x, y] : null; }})()"
                ))
                .await;
            if let (Some(x), Some(y)) = (found[0].as_f64(), found[1].as_f64()) {
                break (x, y);
            }
            if started.elapsed() > WAIT {
                panic!("{selector} never came to the top of the page to be clicked");
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.command(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            )
            .await;
        }
    }

    /// Types into an input (focus, then real key input of the text).
    pub async fn fill(&self, selector: &str, text: &str) {
        let quoted = serde_json::to_string(selector).expect("a selector");
        self.wait(&format!("document.querySelector({quoted})"), selector).await;
        self.eval(&format!(
            "(() => {{ const e = document.querySelector({quoted}); e.focus(); e.value = ''; }})()"
        ))
        .await;
        self.command("Input.insertText", json!({ "text": text })).await;
    }

    /// Chooses an option of a <select> and fires its change event.
    pub async fn select(&self, selector: &str, value: &str) {
        let quoted = serde_json::to_string(selector).expect("a selector");
        let value = serde_json::to_string(value).expect("a value");
        self.wait(&format!("document.querySelector({quoted})"), selector).await;
        self.eval(&format!(
            "(() => {{ const e = document.querySelector({quoted}); e.value = {value}; \
             e.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"
        ))
        .await;
    }

    pub async fn text(&self, selector: &str) -> String {
        let quoted = serde_json::to_string(selector).expect("a selector");
        self.eval(&format!("(document.querySelector({quoted}) || {{}}).textContent || ''"))
            .await
            .as_str()
            .unwrap_or("")
            .to_owned()
    }

    pub async fn set_viewport(&self, width: u32, height: u32, mobile: bool) {
        self.command(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        )
        .await;
    }

    /// Saves a PNG of the whole page.
    pub async fn screenshot(&self, path: &Path) {
        let shot = self
            .command(
                "Page.captureScreenshot",
                json!({ "format": "png", "captureBeyondViewport": true }),
            )
            .await;
        let data = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("screenshot data"))
            .expect("base64 PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create the screenshot directory");
        }
        std::fs::write(path, data).expect("write the screenshot");
    }
}
