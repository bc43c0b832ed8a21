//! Module descriptions: the sentence a file's docstring or doc comment leads with, as the map
//! shows it and search results name it.

/// The paragraph that says what a description is about: its first, but of a reStructuredText
/// title (`ast` over a `~~~` line, `==== Title ====`), the title without its adornment lines,
/// or — when the title is a single word, most often the module's own name (`ast`,
/// `certifi.py`) — the text after it.
pub(crate) fn lead_paragraph(d: &str) -> String {
    let mut text = d.to_owned();
    let mut title_kept: Option<String> = None;
    // A few titles in a row at most (`==== Name ====` then `Synopsis` / `--------`): bounded,
    // so that no docstring makes this loop long.
    for _ in 0..4 {
        let mut paragraphs = text.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
        let Some(first) = paragraphs.next() else {
            break;
        };
        let lines: Vec<&str> = first.lines().map(str::trim).collect();
        let Some(last_adornment) = lines.iter().rposition(|l| is_adornment(l)) else {
            return first.to_owned();
        };
        let title: Vec<&str> = lines[..last_adornment]
            .iter()
            .copied()
            .filter(|l| !l.is_empty() && !is_adornment(l))
            .collect();
        let title = title.join(" ");
        // A title of several words says what the module is about.
        if title.split_whitespace().nth(1).is_some() {
            return title;
        }
        if title_kept.is_none() && !title.is_empty() {
            title_kept = Some(title);
        }
        // What follows the title: the rest of its paragraph, then the next ones.
        let after = lines[last_adornment + 1..].join("\n");
        let rest: Vec<&str> = std::iter::once(after.as_str())
            .chain(paragraphs)
            .filter(|p| !p.trim().is_empty())
            .collect();
        text = rest.join("\n\n");
    }
    title_kept.unwrap_or_default()
}

/// A reStructuredText section adornment: one punctuation character, at least three times.
fn is_adornment(line: &str) -> bool {
    let mut chars = line.chars();
    let Some(c) = chars.next() else {
        return false;
    };
    "=-~*#^\"+`:._'".contains(c) && line.len() >= 3 && chars.all(|x| x == c)
}

/// Longest first sentence a module description may show; a longer one is left out rather than
/// cut mid-sentence.
const DESCRIPTION_CHARS: usize = 240;

/// A module description: the first sentence of the docstring's first paragraph, on one line,
/// ending where the sentence ends (never cut inside it).
pub(crate) fn short_description(d: &str) -> String {
    let para = lead_paragraph(d)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let chars: Vec<char> = para.chars().collect();
    let mut end = chars.len();
    for i in 0..chars.len() {
        if !matches!(chars[i], '.' | '!' | '?') {
            continue;
        }
        // A sentence ends at . ! ? before a space and a capital, a digit or a quote, or at the
        // end of the paragraph; "e.g. this" and "v1.2" do not end one.
        let next = chars.get(i + 2).copied();
        let ends = match chars.get(i + 1) {
            None => true,
            Some(' ') => {
                next.is_some_and(|c| c.is_uppercase() || c.is_numeric() || "\"'`(".contains(c))
            }
            _ => false,
        };
        if ends {
            end = i + 1;
            break;
        }
    }
    if end > DESCRIPTION_CHARS {
        return String::new();
    }
    chars[..end].iter().collect()
}

#[cfg(test)]
mod tests {
    use super::short_description;

    #[test]
    fn descriptions_end_at_a_sentence_boundary() {
        assert_eq!(
            short_description("Parse and format dates. Also times,\nand zones.\n\nMore."),
            "Parse and format dates."
        );
        assert_eq!(
            short_description("Helpers, e.g. for v1.2 files. Others."),
            "Helpers, e.g. for v1.2 files."
        );
        assert_eq!(
            short_description("No full stop\nat all"),
            "No full stop at all"
        );
        // Too long to show whole: left out, not cut.
        assert_eq!(short_description(&"word ".repeat(80)), "");
    }

    #[test]
    fn a_restructuredtext_title_is_read_without_its_adornment() {
        // A one-word title (the module's name) gives way to the text after it.
        assert_eq!(
            short_description("ast\n~~~\n\nThe `ast` module helps Python applications. The rest."),
            "The `ast` module helps Python applications."
        );
        assert_eq!(
            short_description("AWSCLI\n----\nA Universal Command Line Environment."),
            "A Universal Command Line Environment."
        );
        assert_eq!(
            short_description("**********\nExceptions\n**********\n\nBase exceptions and errors."),
            "Base exceptions and errors."
        );
        // A title of several words is the description.
        assert_eq!(
            short_description("The Python Debugger Pdb\n=======================\n\nTo use it:"),
            "The Python Debugger Pdb"
        );
        // Title after title: the first text.
        assert_eq!(
            short_description(
                "=====\nSmartQuotes\n=====\n\nSynopsis\n========\n\nQuotes made smart."
            ),
            "Quotes made smart."
        );
        // Punctuation inside prose is not an adornment; a lone title stays.
        assert_eq!(
            short_description("Parse... and more."),
            "Parse... and more."
        );
        assert_eq!(short_description("Widgets\n======="), "Widgets");
        // However many titles a docstring stacks, a few are read.
        assert_eq!(short_description(&"x\n===\n\n".repeat(100_000)), "x");
    }
}
