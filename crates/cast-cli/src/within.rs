//! `--in` of `cast find` and `cast map`: the part of the tree a question is about.

use std::path::Path;

/// `--in` patterns as [`Scope::new`] reads them, from the root: an absolute path (after `!` or
/// not) is made relative to `root`, or refused when it is outside it.
pub(crate) fn scope_patterns(root: &Path, within: &[String]) -> anyhow::Result<Vec<String>> {
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    within
        .iter()
        .map(|p| {
            cast_workspace::relative_pattern(p, |path| {
                // A path that exists is compared with links resolved; one that does not, as
                // written.
                let rel = match std::fs::canonicalize(path) {
                    Ok(real) => real.strip_prefix(&real_root).map(Path::to_path_buf).ok(),
                    Err(_) => path
                        .strip_prefix(&real_root)
                        .or_else(|_| path.strip_prefix(root))
                        .map(Path::to_path_buf)
                        .ok(),
                };
                let Some(rel) = rel else {
                    anyhow::bail!(
                        "--in {p}: outside the root {}; name a folder, file or glob inside it",
                        root.display()
                    );
                };
                Ok(rel
                    .to_string_lossy()
                    .replace(std::path::MAIN_SEPARATOR, "/"))
            })
        })
        .collect()
}
