//! Standard output and exit codes shared by every subcommand.
//!
//! Results go to stdout, progress and warnings to stderr. A closed pipe (`cast symbols . | head`)
//! ends the command quietly with success, as ripgrep does.

use std::io::{self, BufWriter, IsTerminal, Stdout, Write};
use std::process::ExitCode;

/// How a command ended when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Exit 0.
    Success,
    /// Exit 1: nothing found, or the action was refused.
    NothingOrRefused,
    /// Exit 2: bad usage, already reported.
    BadUsage,
}

/// Buffered standard output. It does not hold stdout's lock between writes, so a command that
/// hands stdout to something else (the MCP server) is not blocked by it. `cast serve` writes a
/// command's output into memory instead, to send it to the `cast` that asked.
pub struct Out {
    inner: Sink,
}

enum Sink {
    Stdout(BufWriter<Stdout>),
    Buffer(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::Buffer(v) => v.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::Buffer(v) => v.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::Buffer(_) => Ok(()),
        }
    }
}

impl Out {
    pub fn stdout() -> Self {
        Out {
            inner: Sink::Stdout(BufWriter::with_capacity(64 * 1024, io::stdout())),
        }
    }

    /// Output kept in memory; [`Out::into_bytes`] gives it.
    pub fn buffer() -> Self {
        Out {
            inner: Sink::Buffer(Vec::new()),
        }
    }

    /// What was written to a [`Out::buffer`] (nothing for standard output).
    pub fn into_bytes(self) -> Vec<u8> {
        match self.inner {
            Sink::Stdout(_) => Vec::new(),
            Sink::Buffer(v) => v,
        }
    }

    /// Writes bytes as they are (another process's output, relayed).
    pub fn bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all(bytes)
    }

    /// Writes one line (a newline is added).
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.inner.write_all(text.as_bytes())?;
        self.inner.write_all(b"\n")
    }

    /// Writes text as it is (no newline), e.g. a streamed answer.
    pub fn text(&mut self, text: &str) -> io::Result<()> {
        self.inner.write_all(text.as_bytes())
    }

    /// Sends what was written to the terminal now (interactive commands).
    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }

    /// Writes one JSON value on its own line.
    pub fn json<T: serde::Serialize>(&mut self, value: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.inner, value).map_err(io::Error::from)?;
        self.inner.write_all(b"\n")
    }
}

/// Whether progress and summaries should be drawn (only for a person watching a terminal).
pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// Prints a warning on stderr, prefixed with `cast: `.
pub fn warn(message: impl std::fmt::Display) {
    let _ = writeln!(io::stderr().lock(), "cast: {message}");
}

/// Flushes stdout and turns the command's result into the process exit code.
pub fn finish(result: anyhow::Result<Exit>, mut out: Out) -> ExitCode {
    let flushed = out.inner.flush();
    let result = result.and_then(|exit| flushed.map(|()| exit).map_err(anyhow::Error::from));
    match result {
        Ok(Exit::Success) => ExitCode::SUCCESS,
        Ok(Exit::NothingOrRefused) => ExitCode::from(1),
        Ok(Exit::BadUsage) => ExitCode::from(2),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(io::stderr().lock(), "cast: error: {}", error_text(&err));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, leaving out a cause its parent already says (an error
/// written as `{path}: {source}` that also names `source` as its cause).
fn error_text(err: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in err.chain() {
        let said = cause.to_string();
        if text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}
