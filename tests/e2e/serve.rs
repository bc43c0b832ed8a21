//! `cast serve`, and `cast find` asking it.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{cast, project};

/// A `cast serve` of `root`, stopped when dropped.
struct Server(Child);

impl Server {
    fn start(root: &Path) -> Server {
        Server::start_with(root, &[])
    }

    /// `cast serve --root ROOT ARGS…`, once it listens.
    fn start_with(root: &Path, args: &[&str]) -> Server {
        let child = Command::new(env!("CARGO_BIN_EXE_cast-under-test"))
            .args(["serve", "--root"])
            .arg(root)
            .args(args)
            .env("XDG_RUNTIME_DIR", slots(root))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server(child);
        wait_for_socket(root);
        server
    }

    /// Waits (a minute at most) for the server to stop on its own: its exit status.
    fn stops(&mut self) -> std::process::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the server did not stop"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Where the servers that the tests' commands start count themselves (`XDG_RUNTIME_DIR`): the
/// tree's own, so a user's servers do not fill the slots a test needs.
fn slots(root: &Path) -> std::path::PathBuf {
    root.join(".cast/test-slots")
}

/// Sends `request` to the server of `root` as one line of JSON: its reply line.
fn send(root: &Path, request: serde_json::Value) -> String {
    let stream = std::os::unix::net::UnixStream::connect(root.join(".cast/serve.sock")).unwrap();
    (&stream)
        .write_all(format!("{request}\n").as_bytes())
        .unwrap();
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply).unwrap();
    reply
}

/// Waits (a minute at most) until a server listens on ROOT/.cast/serve.sock.
fn wait_for_socket(root: &Path) {
    let socket = root.join(".cast/serve.sock");
    let start = Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no server listened on {}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Lets `cmd` ask a running server, or keeps it from asking (`CAST_NO_SERVER`).
fn asking_a_server(cmd: &mut assert_cmd::Command, ask: bool) {
    if ask {
        cmd.env_remove("CAST_NO_SERVER");
    } else {
        cmd.env("CAST_NO_SERVER", "1");
    }
}

/// `cast find QUERY --root ROOT --json`, asking a server unless `alone`: stdout and exit code.
fn find(root: &Path, query: &str, alone: bool) -> (String, i32) {
    let mut cmd = cast();
    cmd.args(["find", query, "--json", "--root"])
        .arg(root)
        .env("XDG_RUNTIME_DIR", slots(root))
        // Where CI is set no server is started; these tests start them.
        .env_remove("CI");
    asking_a_server(&mut cmd, !alone);
    let out = cmd.output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap(),
    )
}

#[test]
fn find_and_map_answered_by_the_server_are_as_answered_alone_and_as_current() {
    let dir = project();
    let root = dir.path();
    let _server = Server::start(root);
    for query in ["apply a discount code", "zzz nothing like this"] {
        let alone = find(root, query, true);
        assert_eq!(find(root, query, false), alone, "{query}");
    }
    // A search limited with --in is limited by the server too.
    let within = |alone: bool| {
        let mut cmd = cast();
        cmd.args([
            "find",
            "discount code",
            "--json",
            "--in",
            "shop/cart.py",
            "--root",
        ])
        .arg(root);
        asking_a_server(&mut cmd, !alone);
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    let alone = within(true);
    assert!(
        alone.contains("shop/cart.py") && !alone.contains("shop/pricing.py"),
        "{alone}"
    );
    assert_eq!(within(false), alone);
    // What `cast find` says on stderr when nothing matched, the server says too.
    let said = |alone: bool| {
        let mut cmd = cast();
        cmd.args(["find", "zzz nothing like this", "--root"])
            .arg(root);
        asking_a_server(&mut cmd, !alone);
        String::from_utf8_lossy(&cmd.output().unwrap().stderr).into_owned()
    };
    let alone = said(true);
    assert!(alone.contains("nothing matches"), "{alone}");
    assert_eq!(said(false), alone);
    // And `cast map`, focused or not, its header naming the root as given.
    for args in [
        &["map", "."][..],
        &[
            "map",
            ".",
            "--focus",
            "apply a discount code",
            "--budget",
            "300",
        ],
        &["map", ".", "--json"],
        &["map", ".", "--in", "shop", "--in", "!shop/pricing.py"],
    ] {
        let run = |alone: bool| {
            let mut cmd = cast();
            cmd.current_dir(root).args(args);
            asking_a_server(&mut cmd, !alone);
            cmd.output().unwrap()
        };
        let (served, alone) = (run(false), run(true));
        assert_eq!(served.status.code(), Some(0), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&served.stdout),
            String::from_utf8_lossy(&alone.stdout),
            "{args:?}"
        );
    }
    // Changes made while it runs are seen, as `cast find` alone sees them.
    std::fs::write(
        root.join("widgets.py"),
        "def frobnicate_widgets():\n    \"\"\"Frobnicate the widgets.\"\"\"\n    return 1\n",
    )
    .unwrap();
    let (served, code) = find(root, "frobnicate the widgets", false);
    assert_eq!(code, 0);
    assert!(served.contains("frobnicate_widgets"), "{served}");
    std::fs::remove_file(root.join("widgets.py")).unwrap();
    let (served, _) = find(root, "frobnicate the widgets", false);
    assert!(!served.contains("frobnicate_widgets"), "{served}");
    // A question from another build of cast is declined, not answered.
    let reply = send(
        root,
        serde_json::json!({
            "version": "0.0.0",
            "root": std::fs::canonicalize(root).unwrap(),
            "asked": {"Find": {"query": "apply a discount code", "top": 5, "mode": "Symbols", "scope": []}},
        }),
    );
    assert!(reply.starts_with("{\"Declined\""), "{reply}");
    // A second server of the same tree is refused.
    cast()
        .args(["serve", "--root"])
        .arg(root)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already answers"));
}

/// A client that connects and says nothing holds only itself: a `cast find` asked meanwhile is
/// answered by the server while that client is still connected (the server gives it 10 s).
#[test]
fn a_silent_client_does_not_hold_the_server() {
    let dir = project();
    let root = dir.path();
    let _server = Server::start(root);
    let silent = std::os::unix::net::UnixStream::connect(root.join(".cast/serve.sock")).unwrap();
    let alone = find(root, "apply a discount code", true);
    assert_eq!(find(root, "apply a discount code", false), alone);
    // Still connected: a read finds no data and no end of stream.
    silent.set_nonblocking(true).unwrap();
    let mut byte = [0u8; 1];
    let read = std::io::Read::read(&mut &silent, &mut byte);
    assert!(
        matches!(&read, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "the silent client was already let go: {read:?}"
    );
}

/// Clients that connect and hold their connections take at most 64 of the server's threads: the
/// next is declined at once ("busy"), so its command answers on its own, and once they leave the
/// server reads requests again.
#[test]
fn clients_that_hold_their_connections_get_declined_past_the_limit() {
    let dir = project();
    let root = dir.path();
    let _server = Server::start(root);
    let socket = root.join(".cast/serve.sock");
    let holding: Vec<std::os::unix::net::UnixStream> = (0..64)
        .map(|_| std::os::unix::net::UnixStream::connect(&socket).unwrap())
        .collect();
    let reply = |stream: std::os::unix::net::UnixStream| {
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line).unwrap();
        serde_json::from_str::<serde_json::Value>(&line).unwrap()
    };
    // The 65th: declined without a word from it, long before the held ones time out (10 s).
    let started = std::time::Instant::now();
    let extra = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let declined = reply(extra);
    assert!(
        declined["Declined"]["why"]
            .as_str()
            .unwrap()
            .contains("busy"),
        "{declined}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // A command asked now answers on its own, as it would with no server.
    let alone = find(root, "apply a discount code", true);
    assert_eq!(find(root, "apply a discount code", false), alone);
    // Once they are gone, requests are read again (this one is not a request).
    drop(holding);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(b"not json\n").unwrap();
        let why = reply(stream)["Declined"]["why"]
            .as_str()
            .unwrap()
            .to_owned();
        if why.starts_with("not a request") {
            break;
        }
        assert!(why.contains("busy"), "{why}");
        assert!(
            std::time::Instant::now() < deadline,
            "still busy after the clients left"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// What a stand-in server answers a search with: one symbol found.
const SERVED_FOUND: &str = concat!(
    r#"{"Found":{"symbols":[{"kind":"symbol","path":"from/the_server.py","line":3,"end_line":4,"#,
    r#""symbol_kind":"function","qualname":"served","full_name":"the_server.served","signature":"def served()","#,
    r#""doc":null,"matches":[],"past_commit":null,"score":0.5,"scores":{"text":0.5,"path":0.0,"symbols":0.0,"#,
    r#""ident":0.0,"graph":0.0,"rank":0.0,"history":0.0,"churn":0.0,"cover":0.0,"factor":1.0,"total":0.5}}],"#,
    r#""files":[],"searched":{"files":1,"symbols":1}}}"#,
    "\n"
);

/// A stand-in server on the tree's socket: replies `reply` to one request and gives it back.
fn stand_in(root: &Path, reply: &'static str) -> std::thread::JoinHandle<serde_json::Value> {
    std::fs::create_dir_all(root.join(".cast")).unwrap();
    let listener = UnixListener::bind(root.join(".cast/serve.sock")).unwrap();
    std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line).unwrap();
        (&stream).write_all(reply.as_bytes()).unwrap();
        serde_json::from_str(&line).unwrap()
    })
}

#[test]
fn find_prints_what_the_server_answers_and_runs_alone_when_it_declines_or_is_gone() {
    let dir = project();
    let root = dir.path();
    let (alone, _) = find(root, "apply a discount code", true);
    assert!(!alone.is_empty());

    // The server sends back the search's result as data; the command prints it as it prints
    // its own (here one hit, as a JSON line, with --json).
    let server = stand_in(root, SERVED_FOUND);
    let (served, code) = find(root, "apply a discount code", false);
    assert_eq!(code, 0);
    let hit: serde_json::Value = serde_json::from_str(served.trim_end()).unwrap();
    assert_eq!(served.lines().count(), 1, "{served}");
    assert_eq!(hit["path"], "from/the_server.py");
    assert_eq!(hit["scores"]["total"], 0.5);
    let request = server.join().unwrap();
    assert_eq!(request["asked"]["Find"]["query"], "apply a discount code");
    assert_eq!(request["asked"]["Find"]["mode"], "Symbols");
    assert_eq!(request["asked"]["Find"]["top"], 10);
    assert_eq!(
        request["root"].as_str().unwrap(),
        std::fs::canonicalize(root).unwrap().to_str().unwrap()
    );
    std::fs::remove_file(root.join(".cast/serve.sock")).unwrap();

    // Declined (another version, say): answered alone.
    let server = stand_in(root, "{\"Declined\":{\"why\":\"another version\"}}\n");
    assert_eq!(
        find(root, "apply a discount code", false),
        (alone.clone(), 0)
    );
    server.join().unwrap();
    // The server is gone but its socket stayed: answered alone.
    assert!(root.join(".cast/serve.sock").exists());
    assert_eq!(find(root, "apply a discount code", false), (alone, 0));
    // A server's failure is the command's.
    std::fs::remove_file(root.join(".cast/serve.sock")).unwrap();
    let server = stand_in(
        root,
        "{\"Failed\":{\"message\":\"cannot index: disk full\"}}\n",
    );
    let out = cast()
        .args(["find", "apply a discount code", "--root"])
        .arg(root)
        .env_remove("CAST_NO_SERVER")
        .output()
        .unwrap();
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("disk full"));
}

/// A one-off `cast find` starts no server; the second question about the tree within two
/// minutes starts one in the background (after answering on its own), and the server answers
/// what follows, as the command would. `cast serve --stop` stops it.
#[test]
fn a_tree_asked_about_again_gets_a_server_and_a_one_off_question_none() {
    let dir = project();
    let root = dir.path();
    let state = root.join(".cast");
    let query = "apply a discount code";
    // CAST_NO_SERVER: not even the time is noted.
    let (alone, code) = find(root, query, true);
    assert_eq!(code, 0);
    assert!(!state.join("serve.asked").exists());
    // The first question: answered alone, the time noted, nothing started.
    assert_eq!(find(root, query, false), (alone.clone(), 0));
    assert!(state.join("serve.asked").exists());
    assert!(
        !state.join("serve.log").exists(),
        "a one-off question started a server"
    );
    // The second: answered alone, and a server started.
    assert_eq!(find(root, query, false), (alone.clone(), 0));
    assert!(state.join("serve.log").exists(), "no server started");
    wait_for_socket(root);
    assert_eq!(find(root, query, false), (alone, 0));
    let log = std::fs::read_to_string(state.join("serve.log")).unwrap();
    assert!(log.contains("stops after 10m without a question"), "{log}");
    // It answered that question (the two before it were answered alone).
    let status = cast()
        .args(["serve", "--status", "--root"])
        .arg(root)
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&status.stdout).into_owned();
    assert!(
        status.contains("started by a command, 1 question answered"),
        "{status}"
    );
    cast()
        .args(["serve", "--stop", "--root"])
        .arg(root)
        .assert()
        .success()
        .stderr(predicates::str::contains("stopped the server"));
    assert!(!state.join("serve.sock").exists());
    cast()
        .args(["serve", "--stop", "--root"])
        .arg(root)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no server runs"));
    cast()
        .args(["serve", "--status", "--root"])
        .arg(root)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("no server runs"));
    // --stop forgot the last question: the next one starts nothing.
    assert_eq!(find(root, query, false).1, 0);
    assert!(!state.join("serve.sock").exists());
    assert!(
        !lock_is_held(root),
        "a question right after --stop started a server"
    );
}

#[test]
fn no_server_answers_alone_and_starts_none_however_often_asked() {
    let dir = project();
    let root = dir.path();
    let state = root.join(".cast");
    let (alone, code) = find(root, "apply a discount code", true);
    assert_eq!(code, 0);
    let find_args: &[&str] = &[
        "find",
        "apply a discount code",
        "--json",
        "--no-server",
        "--root",
    ];
    let map_args: &[&str] = &["map", "--focus", "apply a discount code", "--no-server"];
    // Each twice: a second question within two minutes is what starts a server otherwise.
    for args in [find_args, find_args, map_args, map_args] {
        let out = cast()
            .args(args)
            .arg(root)
            .env("XDG_RUNTIME_DIR", slots(root))
            .env_remove("CI")
            .env_remove("CAST_NO_SERVER")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        if args[0] == "find" {
            assert_eq!(String::from_utf8_lossy(&out.stdout), alone);
        }
    }
    // Neither the time of the question noted nor a server started.
    assert!(!state.join("serve.asked").exists());
    assert!(!state.join("serve.log").exists());
    assert!(!state.join("serve.sock").exists());
}

/// A request names its tree in JSON (UTF-8 only): a tree whose path is not UTF-8 gets no
/// server, its commands answer on their own, and `cast serve` says why.
#[test]
fn a_tree_whose_path_is_not_utf8_is_answered_alone_and_never_served() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(std::ffi::OsStr::from_bytes(b"tree-\xff"));
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("a.py"), "def alpha():\n    return 1\n").unwrap();
    for _ in 0..2 {
        cast()
            .args(["find", "alpha", "--root"])
            .arg(&root)
            .env("XDG_RUNTIME_DIR", dir.path())
            .env_remove("CI")
            .env_remove("CAST_NO_SERVER")
            .assert()
            .success()
            .stdout(predicates::str::contains("a.alpha"));
    }
    assert!(!root.join(".cast/serve.asked").exists());
    assert!(!root.join(".cast/serve.log").exists());
    for args in [
        &["serve", "--status", "--root"][..],
        &["serve", "--root"][..],
    ] {
        cast()
            .args(args)
            .arg(&root)
            .env("XDG_RUNTIME_DIR", dir.path())
            .assert()
            .code(2)
            .stderr(predicates::str::contains("not UTF-8 has no server"));
    }
}

/// Whether a server (running or starting) holds the tree's lock.
fn lock_is_held(root: &Path) -> bool {
    let lock = std::fs::File::open(root.join(".cast/serve.lock")).unwrap();
    matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

/// A server stops on its own: after --idle-exit without a question, and when its socket is
/// removed (with `.cast/` or the whole tree), so one started in the background does not outlive
/// its use.
#[test]
fn a_server_stops_when_idle_or_when_its_socket_is_gone() {
    let dir = project();
    let root = dir.path();
    // Not waited for to listen: on a loaded machine it may be idle for a second before this
    // thread looks.
    let idle = Command::new(env!("CARGO_BIN_EXE_cast-under-test"))
        .args(["serve", "--idle-exit", "1s", "--root"])
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let said = idle.wait_with_output().unwrap();
    assert!(said.status.success());
    let said = String::from_utf8_lossy(&said.stderr).into_owned();
    assert!(said.contains("stopped: no question for 1s"), "{said}");
    assert!(!root.join(".cast/serve.sock").exists());

    let mut server = Server::start(root);
    drop(dir);
    assert!(server.stops().success());
}

/// Asking for the status is not a question: a server polled for it still stops when idle.
#[test]
fn asking_for_the_status_does_not_keep_a_server_up() {
    let dir = project();
    let root = dir.path();
    let mut server = Server::start_with(root, &["--idle-exit", "2s"]);
    let start = Instant::now();
    while server.0.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "polled for its status, the server never went idle"
        );
        let _ = cast()
            .args(["serve", "--status", "--root"])
            .arg(root)
            .output()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// A server started by a command gives way to its own executable rebuilt: it declines the
/// question (which is then answered alone) and stops, so that build's next question starts its
/// own. It declines another executable's build and stays (or the two would take turns), and so
/// does a server a person started.
#[test]
fn a_server_started_by_a_command_gives_way_to_its_executable_rebuilt() {
    let dir = project();
    let root = dir.path();
    let exe = std::fs::canonicalize(env!("CARGO_BIN_EXE_cast-under-test")).unwrap();
    let ask_as_another_build = |exe: &Path| {
        send(
            root,
            serde_json::json!({
                "version": "0.0.0",
                "exe": exe,
                "root": std::fs::canonicalize(root).unwrap(),
                "asked": {"Find": {"query": "discount", "top": 5, "mode": "Symbols", "scope": []}},
            }),
        )
    };
    let mut server = Server::start(root);
    assert!(ask_as_another_build(&exe).starts_with("{\"Declined\""));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "a person's server stopped"
    );
    drop(server);

    let mut server = Server::start_with(root, &["--started-by-command"]);
    assert!(ask_as_another_build(Path::new("/elsewhere/cast")).starts_with("{\"Declined\""));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        server.0.try_wait().unwrap().is_none(),
        "it gave way to another executable"
    );
    assert!(ask_as_another_build(&exe).starts_with("{\"Declined\""));
    assert!(server.stops().success());
}

/// `cast serve --status --all` lists the servers the commands started, whatever their trees,
/// and `--stop --all` stops them; a server a person started is neither listed nor stopped.
#[test]
fn all_lists_and_stops_every_server_the_commands_started() {
    let (one, two, mine) = (project(), project(), project());
    let runtime = tempfile::tempdir().unwrap();
    let spawn = |root: &Path, by_command: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_cast-under-test"));
        cmd.args(["serve", "--root"])
            .arg(root)
            .env("XDG_RUNTIME_DIR", runtime.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if by_command {
            cmd.args(["--idle-exit", "10m", "--started-by-command"]);
        }
        let server = Server(cmd.spawn().unwrap());
        wait_for_socket(root);
        server
    };
    let mut started = [spawn(one.path(), true), spawn(two.path(), true)];
    let mut persons = spawn(mine.path(), false);
    // A slot held by a server that names another's tree (left by one that was killed, the
    // slot taken since by a build that names none): neither trusted nor acted on.
    let slots = runtime.path().join("cast/servers");
    let stale = std::fs::File::create(slots.join("slot-7.lock")).unwrap();
    stale.try_lock().unwrap();
    let mine_named = std::fs::canonicalize(mine.path()).unwrap();
    std::fs::write(
        slots.join("slot-7.root"),
        format!("{}\n{}", std::process::id(), mine_named.display()),
    )
    .unwrap();
    let serve_all = |what: &str| {
        cast()
            .args(["serve", what, "--all"])
            .env("XDG_RUNTIME_DIR", runtime.path())
            .output()
            .unwrap()
    };
    let named = |root: &Path| {
        format!(
            "a server answers for {}:",
            std::fs::canonicalize(root).unwrap().display()
        )
    };

    let out = serve_all("--status");
    assert_eq!(out.status.code(), Some(0));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(listed.contains(&named(one.path())), "{listed}");
    assert!(listed.contains(&named(two.path())), "{listed}");
    assert!(!listed.contains(&named(mine.path())), "{listed}");
    assert!(listed.contains("cannot be asked"), "{listed}");

    // The two are stopped; the one that cannot be told is reported, and the stop fails.
    let out = serve_all("--stop");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("1 server(s) started by commands were not stopped"),
        "{out:?}"
    );
    for server in &mut started {
        assert!(server.stops().success());
    }
    assert!(
        persons.0.try_wait().unwrap().is_none(),
        "a person's server was stopped"
    );
    // A server that ended no longer names itself beside its slot.
    let named_slots: Vec<_> = std::fs::read_dir(&slots)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".root"))
        .collect();
    assert_eq!(named_slots, ["slot-7.root"]);
    drop(stale);
    let out = serve_all("--status");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no server started by a command runs"),
        "{out:?}"
    );
    // --all names no tree: given one as well, it is refused.
    cast()
        .args(["serve", "--status", "--all", "--root"])
        .arg(one.path())
        .assert()
        .code(2);
}

/// At most 8 servers started by commands run for a user at once; a ninth says so and ends
/// (its command answered on its own already). A server a person starts is not counted.
#[test]
fn servers_started_by_commands_are_capped_per_user() {
    let dir = project();
    let root = dir.path();
    let held_dir = slots(root).join("cast/servers");
    std::fs::create_dir_all(&held_dir).unwrap();
    let mut held: Vec<std::fs::File> = (0..8)
        .map(|n| {
            let slot = std::fs::File::create(held_dir.join(format!("slot-{n}.lock"))).unwrap();
            slot.try_lock().unwrap();
            slot
        })
        .collect();
    let ninth = Command::new(env!("CARGO_BIN_EXE_cast-under-test"))
        .args(["serve", "--started-by-command", "--root"])
        .arg(root)
        .env("XDG_RUNTIME_DIR", slots(root))
        .output()
        .unwrap();
    assert_eq!(ninth.status.code(), Some(2));
    let said = String::from_utf8_lossy(&ninth.stderr);
    assert!(
        said.contains("8 servers started by commands already run"),
        "{said}"
    );
    assert!(!root.join(".cast/serve.sock").exists());
    // Nor does a command start one that would only fail: asked twice, it starts nothing.
    let query = "apply a discount code";
    assert_eq!(find(root, query, false).1, 0);
    assert_eq!(find(root, query, false).1, 0);
    assert!(
        !root.join(".cast/serve.log").exists(),
        "a server was started with every slot taken"
    );
    drop(Server::start(root));
    drop(held.pop());
    let mut server = Server::start_with(root, &["--started-by-command", "--idle-exit", "1s"]);
    assert!(server.stops().success());
}

/// A server started by a command does not keep the files the command inherited: a caller that
/// reads a pipe it handed the command (`3>&1`) to its end is not held for the server's life.
#[test]
fn a_started_server_does_not_hold_the_commands_inherited_files() {
    use std::io::Read;
    let dir = project();
    let root = dir.path();
    let script = format!(
        "'{}' find 'apply a discount code' --root '{}' 3>&1 >/dev/null 2>&1",
        env!("CARGO_BIN_EXE_cast-under-test"),
        root.display()
    );
    // The second question starts a server.
    for _ in 0..2 {
        let mut shell = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env_remove("CAST_NO_SERVER")
            .env_remove("CI")
            .env("XDG_RUNTIME_DIR", slots(root))
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = shell.stdout.take().unwrap();
        let (ended, end) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = pipe.read_to_end(&mut Vec::new());
            let _ = ended.send(());
        });
        assert!(shell.wait().unwrap().success());
        end.recv_timeout(Duration::from_secs(60))
            .expect("the pipe stayed open after the command ended: a server holds it");
    }
    wait_for_socket(root);
    cast()
        .args(["serve", "--stop", "--root"])
        .arg(root)
        .assert()
        .success();
}
