//! `cast show`: L3, the exact source of a symbol with its references.

use std::path::PathBuf;

use cast_analyzer::{AnalyzerError, Queries};

use crate::output::warn;
use crate::{Exit, Out};

/// Show the exact source of a symbol (L3), where it is defined, what it references and who
/// references it (resolved through imports, or by name).
///
/// SYMBOL is a qualified name (`Cart.add`, `shop.cart.Cart.add`, `quote`) or FILE:LINE for the
/// innermost definition enclosing that line. When several symbols match, the best (exact name,
/// not a stub, not a test, highest PageRank) is shown and the others are listed.
///
/// The index is built or refreshed first (with --no-refresh, only built when there is none).
/// Exits 1 when nothing matches, naming on stderr up to five symbols with the name SYMBOL ends
/// in when only its qualifier did not fit (`fzf.Reader` when Go's names go by folder:
/// `src.Reader`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast show Cart.add\n  cast show shop/cart.py:15 --root .\n  cast show --json json.loads --root /usr/lib/python3.11"
)]
pub struct Args {
    /// A qualified name, or FILE:LINE.
    #[arg(value_name = "SYMBOL|FILE:LINE")]
    target: String,
    /// The root of the code base.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    #[command(flatten)]
    index: crate::index::IndexArgs,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    // The symbol's absence is an answer, not a failure of the query.
    let shown = crate::index::query(&args.root, args.index, |index| Ok(index.show(&args.target)))?;
    match shown {
        Ok(shown) => {
            if args.json {
                out.json(&shown)?;
            } else {
                out.line(shown.render().trim_end())?;
            }
            Ok(Exit::Success)
        }
        Err(err @ AnalyzerError::SymbolNotFound { .. }) => {
            warn(err);
            Ok(Exit::NothingOrRefused)
        }
        Err(err) => Err(err.into()),
    }
}
