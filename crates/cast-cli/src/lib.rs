//! The `cast` command line: one module per subcommand. Each parses its flags with clap, calls
//! one library entry point (the same cast-tools, cast-analyzer, cast-coder or cast-agent API an
//! agent uses), prints the result on stdout (text, or JSON lines with `--json`) and maps it to
//! an exit status. This is the only crate that prints or decides exit codes.
//!
//! `src/main.rs` is the `cast` binary; it only installs the allocator and calls [`main`].

mod allocator;
mod apply;
mod chat;
mod files;
mod find;
mod glob;
mod grep;
mod index;
mod ls;
mod map;
mod mcp;
mod output;
mod pending;
mod read;
mod run;
mod sandbox;
mod serve;
mod sessions;
mod show;
mod skeleton;
mod skill;
mod symbols;
mod tool;
mod tools;
mod trace;
mod undo;
mod walk_args;
mod within;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use output::{Exit, Out};

/// CAST — a code assistant toolkit for language-model agents.
///
/// It indexes code (Python with Ruff's parser; Rust, Go, JavaScript, TypeScript, Java, C, C++,
/// C#, Ruby, PHP and HTML with tree-sitter), shows it at three levels of detail, searches it, and applies model-written
/// edits exactly or refuses them.
///
/// Exit status: 0 on success, 1 when an action was refused or nothing was found, 2 on bad usage
/// or an error.
#[derive(Debug, Parser)]
#[command(name = "cast", version, about, long_about, propagate_version = true)]
#[command(after_help = "Run `cast <command> --help` for a command's options.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Symbols(symbols::Args),
    Tools(tools::Args),
    Tool(tool::Args),
    Mcp(mcp::Args),
    Run(run::Args),
    Chat(chat::Args),
    #[command(name = "text2agent")]
    Text2Agent(skill::Text2AgentArgs),
    Optimize(skill::OptimizeArgs),
    Sessions(sessions::Args),
    Pending(pending::Args),
    Trace(trace::Args),
    Grep(grep::Args),
    Glob(glob::Args),
    Files(files::Args),
    Read(read::Args),
    Ls(ls::Args),
    Apply(apply::Args),
    Undo(undo::Args),
    Index(index::Args),
    Map(map::Args),
    Skeleton(skeleton::Args),
    Show(show::Args),
    Find(find::Args),
    Serve(serve::Args),
}

pub use allocator::set_up as set_up_allocation;

pub fn main() -> ExitCode {
    if let Some(code) = sandbox::dispatch_helper() {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2).
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    // SAFETY: still the only thread: the arguments are parsed and nothing else has run.
    #[allow(unsafe_code)]
    unsafe {
        allocator::hold_freed_pages(matches!(cli.command, Command::Symbols(_)))
    };
    let mut out = Out::stdout();
    let result = match cli.command {
        Command::Symbols(args) => symbols::run(args, &mut out),
        Command::Tools(args) => tools::run(args, &mut out),
        Command::Tool(args) => tool::run(args, &mut out),
        Command::Mcp(args) => mcp::run(args, &mut out),
        Command::Run(args) => run::run(args, &mut out),
        Command::Chat(args) => chat::run(args, &mut out),
        Command::Text2Agent(args) => skill::text2agent(args, &mut out),
        Command::Optimize(args) => skill::optimize(args, &mut out),
        Command::Sessions(args) => sessions::run(args, &mut out),
        Command::Pending(args) => pending::run(args, &mut out),
        Command::Trace(args) => trace::run(args, &mut out),
        Command::Grep(args) => grep::run(args, &mut out),
        Command::Glob(args) => glob::run(args, &mut out),
        Command::Files(args) => files::run(args, &mut out),
        Command::Read(args) => read::run(args, &mut out),
        Command::Ls(args) => ls::run(args, &mut out),
        Command::Apply(args) => apply::run(args, &mut out),
        Command::Undo(args) => undo::run(args, &mut out),
        Command::Index(args) => index::run(args, &mut out),
        Command::Map(args) => map::run(args, &mut out),
        Command::Skeleton(args) => skeleton::run(args, &mut out),
        Command::Show(args) => show::run(args, &mut out),
        Command::Find(args) => find::run(args, &mut out),
        Command::Serve(args) => serve::run(args, &mut out),
    };
    output::finish(result, out)
}
