//! `cast chat` in a real terminal: tmux runs it, the test types into the pane (send-keys) and
//! reads the screen (capture-pane). A question, an approved edit, `/undo`. Skips when tmux is
//! not installed (`.ci/run` installs it).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use cast_test_support::{Reply, ScriptedServer, skip_test};
use serde_json::json;

use crate::support::project;

/// A tmux server of our own, killed when the test ends.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, text: &str) {
        self.run(&["send-keys", "-t", "chat", "-l", text]);
        self.run(&["send-keys", "-t", "chat", "Enter"]);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-t", "chat", "-S", "-300"])
    }

    /// Waits until the screen shows `text` `times` times.
    fn wait_for(&self, text: &str, times: usize) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.screen();
            if screen.matches(text).count() >= times {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {text:?}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn chat_in_a_terminal_answers_applies_an_approved_edit_and_undoes_it() {
    if Command::new("tmux")
        .arg("-V")
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        skip_test("tmux is not installed; apt-get install tmux");
        return;
    }
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let pricing = dir.path().join("shop/pricing.py");
    let before = std::fs::read_to_string(&pricing).unwrap();
    let server = ScriptedServer::start(vec![
        // The question: read the file, then a streamed answer.
        Reply::openai_stream_call(
            "q1",
            "Let me look.",
            "read_file",
            json!({"target_file": "shop/pricing.py", "explanation": "answer the question"}),
        ),
        Reply::openai_stream_text(&["apply_discount takes ", "10% off ", "with the code SAVE10."]),
        // The edit: shown for approval, applied on y.
        Reply::openai_stream_call(
            "e1",
            "Accept WELCOME too.",
            "search_replace",
            json!({"target_file": "shop/pricing.py", "diff": "------- SEARCH\n    if code == \"SAVE10\":\n=======\n    if code in (\"SAVE10\", \"WELCOME\"):\n+++++++ REPLACE\n"}),
        ),
        Reply::openai_stream_call(
            "e2",
            "Done.",
            "finish",
            json!({"response": "WELCOME is accepted too."}),
        ),
        // A slow answer, cancelled with Ctrl-C.
        Reply::Delay(
            Duration::from_secs(3),
            Box::new(Reply::openai_stream_text(&["too late"])),
        ),
        // The session goes on after the cancel.
        Reply::openai_stream_text(&["Still here."]),
    ]);
    let tmux = Tmux {
        socket: format!("cast-test-{}", std::process::id()),
    };
    let command = format!(
        "env HOME={} OPENAI_BASE_URL={} CAST_MODEL=scripted OPENAI_API_KEY=test {} chat --root {}",
        shell_quote(&home.path().to_string_lossy()),
        server.base_url(),
        shell_quote(env!("CARGO_BIN_EXE_cast-under-test")),
        shell_quote(&dir.path().to_string_lossy()),
    );
    tmux.run(&[
        "new-session",
        "-d",
        "-s",
        "chat",
        "-x",
        "160",
        "-y",
        "50",
        &command,
    ]);
    tmux.wait_for("you> ", 1);

    tmux.keys("What does apply_discount do?");
    let screen = tmux.wait_for("with the code SAVE10.", 1);
    assert!(screen.contains("read_file"), "{screen}");
    tmux.wait_for("you> ", 2);

    tmux.keys("Accept the WELCOME code too.");
    let screen = tmux.wait_for("Apply? [y/N", 1);
    assert!(
        screen.contains("+    if code in (\"SAVE10\", \"WELCOME\"):"),
        "the diff is shown: {screen}"
    );
    assert_eq!(
        std::fs::read_to_string(&pricing).unwrap(),
        before,
        "nothing before approval"
    );
    tmux.keys("y");
    tmux.wait_for("WELCOME is accepted too.", 1);
    tmux.wait_for("you> ", 3);
    assert!(
        std::fs::read_to_string(&pricing)
            .unwrap()
            .contains("if code in (\"SAVE10\", \"WELCOME\"):")
    );

    tmux.keys("/undo");
    let screen = tmux.wait_for("undid #", 1);
    if std::env::var_os("CAST_SHOW_SCREEN").is_some() {
        eprintln!("{screen}");
    }
    assert!(screen.contains("shop/pricing.py"), "{screen}");
    assert_eq!(std::fs::read_to_string(&pricing).unwrap(), before);

    tmux.keys("Take your time with this one.");
    tmux.wait_for("you> Take your time", 1);
    std::thread::sleep(Duration::from_millis(500));
    tmux.run(&["send-keys", "-t", "chat", "C-c"]);
    tmux.wait_for("(cancelled; the session is kept)", 1);
    tmux.wait_for("you> ", 5);
    tmux.keys("Are you there?");
    tmux.wait_for("Still here.", 1);

    tmux.keys("/exit");
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.run(&["has-session", "-t", "chat"]).is_empty()
        && Command::new("tmux")
            .args(["-L", &tmux.socket, "has-session", "-t", "chat"])
            .status()
            .is_ok_and(|s| s.success())
    {
        assert!(Instant::now() < deadline, "chat did not exit");
        std::thread::sleep(Duration::from_millis(100));
    }
    let requests = server.requests();
    assert_eq!(requests.len(), 6);
    // The cancelled turn was forgotten; the earlier turns were kept.
    let last = serde_json::to_string(&requests[5].body["messages"]).unwrap();
    assert!(
        last.contains("Accept the WELCOME code too.") && !last.contains("Take your time"),
        "{last}"
    );
    assert!(
        Path::new(&dir.path().join(".cast/sessions")).is_dir(),
        "the session was saved"
    );
}
