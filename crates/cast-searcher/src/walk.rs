//! Which files a search sees: the workspace's walk (cast-workspace) plus a search's globs.

use std::path::Path;

use cast_workspace::WalkOptions;
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;

use crate::SearchError;

/// A walk builder for `root` with the workspace's rules ([`WalkOptions::builder`]) plus include
/// and exclude globs (matched like ripgrep's `-g GLOB` and `-g '!GLOB'`, relative to `root`).
pub(crate) fn builder(
    walk: &WalkOptions,
    root: &Path,
    include: &[String],
    exclude: &[String],
) -> Result<WalkBuilder, SearchError> {
    let mut builder = walk.builder(root);
    if !include.is_empty() || !exclude.is_empty() {
        let mut overrides = OverrideBuilder::new(root);
        for glob in include {
            overrides.add(glob).map_err(|e| invalid_glob(glob, &e))?;
        }
        for glob in exclude {
            let negated = format!("!{}", glob.strip_prefix('!').unwrap_or(glob));
            overrides
                .add(&negated)
                .map_err(|e| invalid_glob(glob, &e))?;
        }
        let overrides = overrides
            .build()
            .map_err(|e| invalid_glob(&include.join(" "), &e))?;
        builder.overrides(overrides);
    }
    Ok(builder)
}

fn invalid_glob(glob: &str, err: &ignore::Error) -> SearchError {
    SearchError::InvalidGlob {
        glob: glob.to_owned(),
        message: err.to_string(),
    }
}

/// Checks that `root` exists, so a typo gives "no such file or folder" rather than nothing.
pub(crate) fn check_root(root: &Path) -> Result<std::fs::Metadata, SearchError> {
    std::fs::metadata(root).map_err(|e| SearchError::io(root, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_glob_is_an_error_not_a_panic() {
        let err = builder(
            &WalkOptions::default(),
            Path::new("."),
            &["a[".to_owned()],
            &[],
        )
        .err();
        assert!(
            matches!(err, Some(SearchError::InvalidGlob { .. })),
            "{err:?}"
        );
    }
}
