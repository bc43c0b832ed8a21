//! Reading, hashing and parsing one file on a parse thread, with what is stored for it encoded
//! there too (the writer thread only writes).

use cast_parser::roles::FileRoles;
use cast_parser::{ParsedFile, Registry, SourceText};

use crate::codec;
use crate::listing::Listed;
use crate::store::kind_code;
use crate::text::{FileTerms, SymbolTerms};

pub(super) struct OldFile {
    pub(super) id: i64,
    /// Listed by this walk (an indexed file that is not is deleted).
    pub(super) listed: bool,
    pub(super) size: u64,
    pub(super) mtime_ns: i64,
    pub(super) hash: Vec<u8>,
    pub(super) iface: Option<Vec<u8>>,
}

/// What is stored for a parsed file, encoded on the parsing thread.
pub(super) struct Blobs {
    pub(super) iface: Vec<u8>,
    pub(super) imports: Vec<u8>,
    pub(super) refs: Vec<u8>,
    /// The full-text fields of the file and of each symbol, in the parse's order.
    pub(super) file_terms: FileTerms,
    pub(super) symbol_terms: Vec<SymbolTerms>,
    /// What the file is for, by its path and its opening lines.
    pub(super) roles: FileRoles,
}

pub(super) enum Outcome {
    /// Same content as indexed: only the stat changed.
    Touched,
    Parsed {
        hash: Vec<u8>,
        file: Box<ParsedFile>,
        blobs: Box<Blobs>,
    },
    Skipped {
        hash: Vec<u8>,
        reason: String,
    },
}

pub(super) fn read_and_parse(
    registry: &Registry,
    item: &Listed,
    old_hash: Option<&[u8]>,
    max_size: u64,
) -> Outcome {
    if item.size > max_size {
        return Outcome::Skipped {
            hash: Vec::new(),
            reason: format!(
                "{} bytes, over the {max_size}-byte limit for parsing",
                item.size
            ),
        };
    }
    let bytes = match std::fs::read(&item.path) {
        Ok(b) => b,
        Err(err) => {
            return Outcome::Skipped {
                hash: Vec::new(),
                reason: format!("cannot read: {err}"),
            };
        }
    };
    let hash = blake3::hash(&bytes).as_bytes().to_vec();
    if old_hash == Some(hash.as_slice()) {
        return Outcome::Touched;
    }
    let Some(language) = registry.for_path(&item.path) else {
        return Outcome::Skipped {
            hash,
            reason: "no parser for this file type".into(),
        };
    };
    let parsed = SourceText::from_bytes(&item.path, bytes).and_then(|source| {
        let mut parsed = language.parse(&source.text)?;
        parsed.lossy_utf8 = source.lossy;
        let terms = crate::text::search_terms(&item.rel, &source.text, &parsed);
        let roles = FileRoles::of_file(&item.rel, &source.text);
        Ok((parsed, terms, roles))
    });
    match parsed {
        Ok((file, (file_terms, symbol_terms), roles)) => {
            let imports = codec::encode_imports(&file.imports);
            Outcome::Parsed {
                hash,
                blobs: Box::new(Blobs {
                    iface: interface_hash(&file, &imports),
                    imports,
                    refs: codec::encode_refs(&file.references, &file.type_facts),
                    file_terms,
                    symbol_terms,
                    roles,
                }),
                file: Box::new(file),
            }
        }
        Err(err) => Outcome::Skipped {
            hash,
            reason: err.to_string(),
        },
    }
}

/// The shape of a file other files can see: its definitions and its imports. When it is the
/// same after an edit, references elsewhere resolve as before and only this file is re-resolved.
/// `imports` is the file's imports as stored ([`codec::encode_imports`]).
pub(super) fn interface_hash(file: &ParsedFile, imports: &[u8]) -> Vec<u8> {
    let mut h = blake3::Hasher::new();
    for s in &file.symbols {
        h.update(s.qualname.as_bytes());
        h.update(&[kind_code(s.kind) as u8, 0]);
        h.update(&s.parent.map_or(0u64, |p| p as u64 + 1).to_le_bytes());
        h.update(&s.decorated_line.to_le_bytes());
        h.update(&s.header_end_line.to_le_bytes());
        // What a call of it returns decides how calls on the result resolve elsewhere.
        h.update(s.returns.as_deref().unwrap_or("").as_bytes());
        h.update(&[0]);
    }
    h.update(b"\x01imports");
    h.update(imports);
    h.finalize().as_bytes().to_vec()
}
