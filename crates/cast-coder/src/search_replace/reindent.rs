//! Re-applying the file's indentation to REPLACE lines when SEARCH was indented differently.

/// How SEARCH indentation maps to the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reindent {
    /// The same indentation.
    Same,
    /// The file has this much more in front of every line.
    Add(String),
    /// The file has this much less in front of every line.
    Remove(String),
    /// Level by level: (SEARCH indentation, file indentation), longest SEARCH first.
    Map(Vec<(String, String)>),
}

/// Learns the mapping from (file line, SEARCH line) pairs; blank lines are ignored.
pub(crate) fn learn<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Reindent, String> {
    let pairs: Vec<(&str, &str)> = pairs
        .into_iter()
        .filter(|(f, s)| !f.trim().is_empty() && !s.trim().is_empty())
        .map(|(f, s)| (crate::text::indent_of(f), crate::text::indent_of(s)))
        .collect();
    if pairs.iter().all(|(f, s)| f == s) {
        return Ok(Reindent::Same);
    }
    let (f0, s0) = pairs[0];
    if let Some(prefix) = f0.strip_suffix(s0)
        && pairs.iter().all(|(f, s)| f.strip_suffix(s) == Some(prefix))
    {
        return Ok(Reindent::Add(prefix.to_owned()));
    }
    if let Some(prefix) = s0.strip_suffix(f0)
        && pairs.iter().all(|(f, s)| s.strip_suffix(f) == Some(prefix))
    {
        return Ok(Reindent::Remove(prefix.to_owned()));
    }
    let mut map: Vec<(String, String)> = Vec::new();
    for (f, s) in pairs {
        match map.iter().find(|(ks, _)| ks == s) {
            Some((_, kf)) if kf != f => {
                return Err(format!(
                    "SEARCH lines indented {} correspond to file lines indented both {} and {}",
                    describe(s),
                    describe(kf),
                    describe(f)
                ));
            }
            Some(_) => {}
            None => map.push((s.to_owned(), f.to_owned())),
        }
    }
    map.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
    // Deeper SEARCH levels must stay deeper in the file.
    for a in &map {
        for b in &map {
            if a.0.len() < b.0.len() && a.1.len() >= b.1.len() {
                return Err(format!(
                    "SEARCH indentation {} and {} do not keep their nesting in the file",
                    describe(&a.0),
                    describe(&b.0)
                ));
            }
        }
    }
    Ok(Reindent::Map(map))
}

fn describe(indent: &str) -> String {
    let tabs = indent.chars().filter(|&c| c == '\t').count();
    let spaces = indent.chars().count() - tabs;
    match (tabs, spaces) {
        (0, 0) => "not at all".to_owned(),
        (0, n) => format!("{n} spaces"),
        (t, 0) => format!("{t} tabs"),
        (t, n) => format!("{t} tabs and {n} spaces"),
    }
}

impl Reindent {
    /// The REPLACE line with the file's indentation. Blank lines are kept as written.
    pub(crate) fn apply(&self, line: &str) -> Result<String, String> {
        if line.trim().is_empty() {
            return Ok(line.to_owned());
        }
        match self {
            Reindent::Same => Ok(line.to_owned()),
            Reindent::Add(prefix) => Ok(format!("{prefix}{line}")),
            Reindent::Remove(prefix) => line
                .strip_prefix(prefix.as_str())
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!(
                        "the REPLACE line {:?} is indented less than the SEARCH lines",
                        line.trim()
                    )
                }),
            Reindent::Map(map) => {
                let indent = crate::text::indent_of(line);
                let body = &line[indent.len()..];
                if let Some((_, f)) = map.iter().find(|(s, _)| s == indent) {
                    return Ok(format!("{f}{body}"));
                }
                // Deeper than any SEARCH level: keep the extra relative to the closest level.
                if let Some((s, f)) = map.iter().find(|(s, _)| indent.starts_with(s.as_str())) {
                    return Ok(format!("{f}{}{body}", &indent[s.len()..]));
                }
                Err(format!(
                    "the REPLACE line {:?} is indented {}, a level the SEARCH lines do not use",
                    body,
                    describe(indent)
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_shift_is_added_or_removed() {
        let add = learn([("        a", "    a"), ("            b", "        b")]).unwrap();
        assert_eq!(add, Reindent::Add("    ".into()));
        assert_eq!(add.apply("  c").unwrap(), "      c");
        assert_eq!(add.apply("").unwrap(), "");
        let remove = learn([("a", "  a"), ("  b", "    b")]).unwrap();
        assert_eq!(remove.apply("    c").unwrap(), "  c");
        assert!(remove.apply("c").is_err());
    }

    #[test]
    fn tabs_map_level_by_level() {
        let map = learn([("\tif x:", "    if x:"), ("\t\ty()", "        y()")]).unwrap();
        assert_eq!(map.apply("        z()").unwrap(), "\t\tz()");
        assert_eq!(map.apply("            w()").unwrap(), "\t\t    w()");
        assert!(map.apply("x").is_err());
    }

    #[test]
    fn inconsistent_indentation_is_an_error() {
        assert!(learn([("  a", "a"), ("    b", "a")]).is_err());
    }
}
