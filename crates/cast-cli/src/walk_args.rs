//! The walk flags every command that walks a tree shares.

use cast_searcher::WalkOptions;

/// Which files a command walks: ripgrep's rules (see `cast_workspace`), the same for every
/// command, so `cast index` and `cast grep` see the same files.
#[derive(Debug, Clone, clap::Args)]
pub struct WalkArgs {
    /// Include hidden files and folders.
    #[arg(long)]
    pub hidden: bool,
    /// Do not respect .gitignore, .ignore, .rgignore and git excludes, nor (outside a git
    /// repository) the default excludes: virtualenvs, node_modules/, __pycache__/ and tool caches.
    #[arg(long)]
    pub no_ignore: bool,
    /// Follow symbolic links.
    #[arg(long, short = 'L')]
    pub follow: bool,
}

impl WalkArgs {
    /// The walk these flags ask for, with no size limit.
    pub fn options(&self) -> WalkOptions {
        WalkOptions {
            hidden: self.hidden,
            no_ignore: self.no_ignore,
            follow_links: self.follow,
            ..WalkOptions::default()
        }
    }
}
