//! The floor under `cast symbols`: what tree-sitter alone costs on the files CAST parses.
//!
//! ```text
//! floor MODE LANG ROOT
//! ```
//!
//! * MODE `parse`: read each file and parse it with tree-sitter, nothing else (the tree is
//!   dropped unread): the floor for any extractor built on these grammars.
//! * MODE `walk`: parse, then visit every node once with a tree cursor: what reading the
//!   whole tree costs over the parse.
//! * MODE `query` (with a fourth argument, a query file): parse, then run that query over
//!   the whole tree with one query cursor, every match consumed: what a query costs (the
//!   query compiles before the clock starts).
//! * MODE `tags`: the tree-sitter tagger, `tree_sitter_tags::TagsContext::generate_tags` with
//!   the grammar crate's own tags and locals queries, every tag consumed (counted). This is
//!   the library behind `tree-sitter tags`.
//!
//! LANG is one of rust go javascript typescript java c cpp csharp ruby php. ROOT is walked
//! recursively for CAST's extensions of that language, hidden files and folders skipped and
//! symbolic links not followed, as `cast symbols` walks (ignore files aside: languages.py runs
//! cast with --no-ignore). Files are processed on all cores with rayon, one parser or tagging
//! context per thread, as CAST parses on all cores. Prints one line to stdout:
//!
//! ```text
//! floor tags rust: files=110 bytes=1902104 tags=18724 definitions=3584 failed=0 seconds=0.297
//! ```
//!
//! `seconds` is the wall time from the start of the walk to the end of the last file; `failed`
//! counts files that could not be read, parsed or tagged. `tags` counts every tag (definitions
//! and references), `definitions` those marked `@definition.*`; both are 0 in parse mode. In
//! walk mode they count the nodes visited and those of kind id 1; in query mode the matches
//! and their captures.
//!
//! Build (its own target folder; this crate is outside CAST's workspace):
//!
//! ```text
//! CARGO_TARGET_DIR=target/floor cargo build --release --manifest-path bench/floor/Cargo.toml
//! target/floor/release/cast-bench-floor tags rust /path/to/ripgrep
//! ```
//!
//! `bench/languages.py` runs both modes beside `cast symbols` and ctags.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use rayon::prelude::*;
use tree_sitter::{Language, Parser, Query, QueryCursor, StreamingIterator, Tree};
use tree_sitter_tags::{TagsConfiguration, TagsContext};

/// One grammar of a language, the file name endings it takes, and its tagging queries.
struct Grammar {
    endings: &'static [&'static str],
    language: Language,
    tags: String,
    locals: String,
}

fn grammar(
    endings: &'static [&'static str],
    language: Language,
    tags: &str,
    locals: &str,
) -> Grammar {
    Grammar {
        endings,
        language,
        tags: tags.to_owned(),
        locals: locals.to_owned(),
    }
}

/// The grammars of LANG, with CAST's extensions. Where a crate exports no LOCALS_QUERY (it
/// ships no locals.scm), the tagger gets "": no local-variable filtering.
fn grammars(lang: &str) -> Option<Vec<Grammar>> {
    Some(match lang {
        // No LOCALS_QUERY in tree-sitter-rust.
        "rust" => vec![grammar(
            &[".rs"],
            tree_sitter_rust::LANGUAGE.into(),
            tree_sitter_rust::TAGS_QUERY,
            "",
        )],
        // No LOCALS_QUERY in tree-sitter-go.
        "go" => vec![grammar(
            &[".go"],
            tree_sitter_go::LANGUAGE.into(),
            tree_sitter_go::TAGS_QUERY,
            "",
        )],
        "javascript" => vec![grammar(
            &[".js", ".mjs", ".cjs", ".jsx"],
            tree_sitter_javascript::LANGUAGE.into(),
            tree_sitter_javascript::TAGS_QUERY,
            tree_sitter_javascript::LOCALS_QUERY,
        )],
        // tree-sitter-typescript's tags.scm and locals.scm hold only what TypeScript adds
        // (interfaces, signatures, abstract classes, modules): its repository's tree-sitter.json
        // (not in the crate) has the tagger read them followed by JavaScript's, and for TSX
        // JavaScript's locals.scm alone. Done the same here; with TypeScript's tags.scm alone
        // no function or class declaration would be tagged.
        "typescript" => {
            use {tree_sitter_javascript as js, tree_sitter_typescript as ts};
            let tags = format!("{}\n{}", ts::TAGS_QUERY, js::TAGS_QUERY);
            let locals = format!("{}\n{}", ts::LOCALS_QUERY, js::LOCALS_QUERY);
            vec![
                grammar(
                    &[".ts", ".mts", ".cts"],
                    ts::LANGUAGE_TYPESCRIPT.into(),
                    &tags,
                    &locals,
                ),
                grammar(&[".tsx"], ts::LANGUAGE_TSX.into(), &tags, js::LOCALS_QUERY),
            ]
        }
        // No LOCALS_QUERY in tree-sitter-java, -c, -cpp, -c-sharp (0.23.5 ships no
        // locals.scm, so the crate's cfg-gated constant is absent) or -php.
        "java" => vec![grammar(
            &[".java"],
            tree_sitter_java::LANGUAGE.into(),
            tree_sitter_java::TAGS_QUERY,
            "",
        )],
        "c" => vec![grammar(
            &[".c", ".h"],
            tree_sitter_c::LANGUAGE.into(),
            tree_sitter_c::TAGS_QUERY,
            "",
        )],
        "cpp" => vec![grammar(
            // `.h` too: CAST reads a header as C++ when it holds C++ (fmt's do), and the
            // floor gives `.h` to whichever of C and C++ it is asked for.
            &[
                ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h++", ".c++", ".ipp", ".h",
            ],
            tree_sitter_cpp::LANGUAGE.into(),
            tree_sitter_cpp::TAGS_QUERY,
            "",
        )],
        // tree-sitter-c-sharp 0.23.5's tags.scm ends with a pattern that captures `@module`,
        // which the tagger rejects ("Invalid capture @module"; tree-sitter-c-sharp issue 342);
        // it repeats the `@definition.module` pattern above it, so it is cut out.
        "csharp" => {
            let bad = "(namespace_declaration name: (identifier) @name) @module";
            let tags = tree_sitter_c_sharp::TAGS_QUERY.replace(bad, "");
            vec![grammar(
                &[".cs"],
                tree_sitter_c_sharp::LANGUAGE.into(),
                &tags,
                "",
            )]
        }
        "ruby" => vec![grammar(
            &[".rb", ".rake", ".gemspec"],
            tree_sitter_ruby::LANGUAGE.into(),
            tree_sitter_ruby::TAGS_QUERY,
            tree_sitter_ruby::LOCALS_QUERY,
        )],
        // LANGUAGE_PHP: PHP files with their inline HTML, as .php files are.
        "php" => vec![grammar(
            &[".php"],
            tree_sitter_php::LANGUAGE_PHP.into(),
            tree_sitter_php::TAGS_QUERY,
            "",
        )],
        _ => return None,
    })
}

/// Files under `dir` whose names end with one of a grammar's endings, with that grammar's index.
fn walk(dir: &Path, grammars: &[Grammar], out: &mut Vec<(PathBuf, usize)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if kind.is_dir() {
            walk(&entry.path(), grammars, out);
        } else if kind.is_file()
            && let Some(g) = grammars
                .iter()
                .position(|g| g.endings.iter().any(|e| name.ends_with(e)))
        {
            out.push((entry.path(), g));
        }
    }
}

/// Per file: (bytes, tags, definitions among them, failed).
type Count = (u64, u64, u64, u64);

fn add(a: Count, b: Count) -> Count {
    (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3 + b.3)
}

fn parse(files: &[(PathBuf, usize)], grammars: &[Grammar]) -> Count {
    files
        .par_iter()
        .map_init(Parser::new, |parser, (path, g)| {
            let Ok(source) = std::fs::read(path) else {
                return (0, 0, 0, 1);
            };
            let parsed = parser.set_language(&grammars[*g].language).is_ok()
                && parser.parse(&source, None).is_some();
            (source.len() as u64, 0, 0, u64::from(!parsed))
        })
        .reduce(|| (0, 0, 0, 0), add)
}

/// A file's bytes and tree, or the count of a file that failed.
fn read_and_parse(
    parser: &mut Parser,
    path: &Path,
    grammar: &Grammar,
) -> Result<(Vec<u8>, Tree), Count> {
    let Ok(source) = std::fs::read(path) else {
        return Err((0, 0, 0, 1));
    };
    let failed = (source.len() as u64, 0, 0, 1);
    if parser.set_language(&grammar.language).is_err() {
        return Err(failed);
    }
    match parser.parse(&source, None) {
        Some(tree) => Ok((source, tree)),
        None => Err(failed),
    }
}

/// Parse, then visit every node once with a tree cursor (kind id read, nothing else): the
/// least any extractor that looks at the whole tree can cost.
fn walk_nodes(files: &[(PathBuf, usize)], grammars: &[Grammar]) -> Count {
    files
        .par_iter()
        .map_init(Parser::new, |parser, (path, g)| {
            let (source, tree) = match read_and_parse(parser, path, &grammars[*g]) {
                Ok(parsed) => parsed,
                Err(failed) => return failed,
            };
            let mut cursor = tree.walk();
            let (mut nodes, mut kinds) = (0u64, 0u64);
            'walk: loop {
                nodes += 1;
                kinds += u64::from(cursor.node().kind_id() == 1);
                if cursor.goto_first_child() {
                    continue;
                }
                while !cursor.goto_next_sibling() {
                    if !cursor.goto_parent() {
                        break 'walk;
                    }
                }
            }
            (source.len() as u64, nodes, kinds, 0)
        })
        .reduce(|| (0, 0, 0, 0), add)
}

/// Parse, then run one query over the tree, every match and capture consumed (counted).
fn query(files: &[(PathBuf, usize)], grammars: &[Grammar], queries: &[Query]) -> Count {
    files
        .par_iter()
        .map_init(
            || (Parser::new(), QueryCursor::new()),
            |(parser, cursor), (path, g)| {
                let (source, tree) = match read_and_parse(parser, path, &grammars[*g]) {
                    Ok(parsed) => parsed,
                    Err(failed) => return failed,
                };
                let (mut found, mut captures) = (0u64, 0u64);
                let mut matches = cursor.matches(&queries[*g], tree.root_node(), source.as_slice());
                while let Some(m) = matches.next() {
                    found += 1;
                    captures += m.captures().len() as u64;
                }
                (source.len() as u64, found, captures, 0)
            },
        )
        .reduce(|| (0, 0, 0, 0), add)
}

fn tags(files: &[(PathBuf, usize)], configs: &[TagsConfiguration]) -> Count {
    files
        .par_iter()
        .map_init(TagsContext::new, |context, (path, g)| {
            let Ok(source) = std::fs::read(path) else {
                return (0, 0, 0, 1);
            };
            let bytes = source.len() as u64;
            match context.generate_tags(&configs[*g], &source, None) {
                Ok((tags, _)) => {
                    let (mut ok, mut definitions, mut failed) = (0, 0, 0);
                    for tag in tags {
                        match tag {
                            Ok(tag) => {
                                ok += 1;
                                definitions += u64::from(tag.is_definition);
                            }
                            Err(_) => failed = 1,
                        }
                    }
                    (bytes, ok, definitions, failed)
                }
                Err(_) => (bytes, 0, 0, 1),
            }
        })
        .reduce(|| (0, 0, 0, 0), add)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, lang, root, query_file) = match args.as_slice() {
        [mode, lang, root] => (mode, lang, root, None),
        [mode, lang, root, file] if mode == "query" => (mode, lang, root, Some(file)),
        _ => {
            eprintln!(
                "usage: floor parse|walk|tags LANG ROOT, or floor query LANG ROOT QUERY.scm  (LANG: rust go javascript typescript java c cpp csharp ruby php)"
            );
            return ExitCode::from(2);
        }
    };
    let Some(grammars) = grammars(lang) else {
        eprintln!("floor: unknown language {lang:?}");
        return ExitCode::from(2);
    };
    // The tagger's queries are compiled before the clock starts, once per grammar, as a
    // long-running tagger would hold them.
    let configs = if mode == "tags" {
        let mut configs = Vec::new();
        for g in &grammars {
            match TagsConfiguration::new(g.language.clone(), &g.tags, &g.locals) {
                Ok(config) => configs.push(config),
                Err(e) => {
                    eprintln!("floor: the {lang} tags query does not compile: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        configs
    } else if mode == "parse" || mode == "walk" || mode == "query" {
        Vec::new()
    } else {
        eprintln!("floor: unknown mode {mode:?}; expected parse, walk, tags or query");
        return ExitCode::from(2);
    };
    // A query file is compiled before the clock starts, for every grammar of the language.
    let mut queries = Vec::new();
    if let Some(file) = query_file {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("floor: cannot read {file}: {e}");
                return ExitCode::FAILURE;
            }
        };
        for g in &grammars {
            let compiling = Instant::now();
            match Query::new(&g.language, &text) {
                Ok(q) => {
                    eprintln!(
                        "floor: {file} compiled in {:.3} s",
                        compiling.elapsed().as_secs_f64()
                    );
                    queries.push(q)
                }
                Err(e) => {
                    eprintln!("floor: {file} does not compile: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let start = Instant::now();
    let mut files = Vec::new();
    walk(Path::new(root), &grammars, &mut files);
    let (bytes, tags, definitions, failed) = if mode == "tags" {
        tags(&files, &configs)
    } else if mode == "walk" {
        walk_nodes(&files, &grammars)
    } else if mode == "query" {
        query(&files, &grammars, &queries)
    } else {
        parse(&files, &grammars)
    };
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "floor {mode} {lang}: files={} bytes={bytes} tags={tags} definitions={definitions} failed={failed} seconds={seconds:.3}",
        files.len()
    );
    ExitCode::SUCCESS
}
