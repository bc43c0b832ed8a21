//! Compact binary encodings for the per-file blobs in the index: imports, references, resolved
//! edges and import dependencies. Each blob starts with a table of the distinct strings it uses;
//! records then refer to strings by number. Numbers are LEB128 varints. A blob that does not
//! decode is reported as `None` and the file is re-parsed, never trusted.

use cast_parser::{Import, RefKind, Reference, TypeFact, TypeSource};
use rustc_hash::FxHashMap as HashMap;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Writes sorted strings front-coded: each as the length of the prefix it shares with the one
/// before and the rest (paths in walk order share most of their bytes with their neighbour).
/// [`Reader::front_coded`] reads them back.
pub(crate) fn put_front_coded<'s>(
    out: &mut Vec<u8>,
    strings: impl ExactSizeIterator<Item = &'s str>,
) {
    put_varint(out, strings.len() as u64);
    let mut prev: &[u8] = &[];
    for s in strings {
        let s = s.as_bytes();
        let shared = prev.iter().zip(s).take_while(|(a, b)| a == b).count();
        put_varint(out, shared as u64);
        put_varint(out, (s.len() - shared) as u64);
        out.extend_from_slice(&s[shared..]);
        prev = s;
    }
}

/// Reads back what [`put_varint`], [`put_str`] and [`put_front_coded`] wrote.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0 }
    }

    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub(crate) fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0;
        loop {
            let b = *self.data.get(self.pos)?;
            self.pos += 1;
            if shift >= 64 {
                return None;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
            shift += 7;
        }
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.varint()?).ok()
    }

    pub(crate) fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    pub(crate) fn f32(&mut self) -> Option<f32> {
        let bytes = self.data.get(self.pos..self.pos + 4)?;
        self.pos += 4;
        Some(f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    /// The next `len` bytes, borrowed.
    pub(crate) fn bytes(&mut self, len: usize) -> Option<&'a [u8]> {
        let bytes = self.data.get(self.pos..self.pos.checked_add(len)?)?;
        self.pos += len;
        Some(bytes)
    }

    pub(crate) fn str(&mut self) -> Option<&'a str> {
        let len = self.varint()? as usize;
        std::str::from_utf8(self.bytes(len)?).ok()
    }

    /// Strings written by [`put_front_coded`]; `None` if they do not read (a shared prefix
    /// longer than the string before, bytes that are not UTF-8, the data ending early).
    pub(crate) fn front_coded(&mut self) -> Option<Vec<String>> {
        let count = self.varint()? as usize;
        // Each string takes at least two bytes: a corrupt count cannot allocate beyond the data.
        let mut out: Vec<String> = Vec::with_capacity(count.min(self.data.len() / 2));
        for _ in 0..count {
            let shared = self.varint()? as usize;
            let len = self.varint()? as usize;
            let rest = self.bytes(len)?;
            let prev = out.last().map_or(&[][..], |p| p.as_bytes());
            let mut s = Vec::with_capacity(shared.checked_add(len)?);
            s.extend_from_slice(prev.get(..shared)?);
            s.extend_from_slice(rest);
            out.push(String::from_utf8(s).ok()?);
        }
        Some(out)
    }
}

/// Strings of one blob, numbered from 1 (0 means "none").
#[derive(Default)]
struct Strings<'s> {
    index: HashMap<&'s str, u64>,
    list: Vec<&'s str>,
}

impl<'s> Strings<'s> {
    /// Room for about `n` distinct strings (growing the table as a blob is encoded rehashed
    /// it several times a file).
    fn with_capacity(n: usize) -> Strings<'s> {
        Strings {
            index: HashMap::with_capacity_and_hasher(n, Default::default()),
            list: Vec::with_capacity(n),
        }
    }

    fn id(&mut self, s: Option<&'s str>) -> u64 {
        let Some(s) = s else { return 0 };
        let next = self.list.len() as u64 + 1;
        *self.index.entry(s).or_insert_with(|| {
            self.list.push(s);
            next
        })
    }

    fn finish(self, records: Vec<u8>) -> Vec<u8> {
        let mut out = Vec::with_capacity(records.len() + self.list.len() * 8);
        put_varint(&mut out, self.list.len() as u64);
        for s in &self.list {
            put_varint(&mut out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        out.extend_from_slice(&records);
        out
    }
}

fn read_strings<'a>(r: &mut Reader<'a>) -> Option<Vec<&'a str>> {
    let n = r.varint()? as usize;
    let mut list = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        list.push(r.str()?);
    }
    Some(list)
}

fn string_at(list: &[&str], id: u64) -> Option<Option<String>> {
    if id == 0 {
        return Some(None);
    }
    list.get(id as usize - 1).map(|s| Some((*s).to_owned()))
}

fn opt_index(v: Option<usize>) -> u64 {
    v.map_or(0, |i| i as u64 + 1)
}

fn read_opt_index(v: u64) -> Option<usize> {
    (v > 0).then(|| v as usize - 1)
}

pub(crate) fn encode_imports(imports: &[Import]) -> Vec<u8> {
    let mut strings = Strings::default();
    let mut rec = Vec::with_capacity(imports.len() * 8);
    put_varint(&mut rec, imports.len() as u64);
    for i in imports {
        put_varint(&mut rec, strings.id(Some(&i.module)));
        put_varint(&mut rec, strings.id(i.name.as_deref()));
        put_varint(&mut rec, strings.id(i.alias.as_deref()));
        put_varint(&mut rec, u64::from(i.level));
        put_varint(&mut rec, u64::from(i.line));
        put_varint(&mut rec, opt_index(i.scope));
    }
    strings.finish(rec)
}

pub(crate) fn decode_imports(data: &[u8]) -> Option<Vec<Import>> {
    let mut r = Reader::new(data);
    let strings = read_strings(&mut r)?;
    let n = r.varint()? as usize;
    let mut out = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        out.push(Import {
            module: string_at(&strings, r.varint()?)?.unwrap_or_default(),
            name: string_at(&strings, r.varint()?)?,
            alias: string_at(&strings, r.varint()?)?,
            level: r.u32()?,
            line: r.u32()?,
            scope: read_opt_index(r.varint()?),
        });
    }
    Some(out)
}

/// A reference kind as the blobs store it (references and resolved edges alike).
pub(crate) fn ref_kind_code(kind: RefKind) -> u8 {
    match kind {
        RefKind::Call => 0,
        RefKind::Attribute => 1,
        RefKind::Decorator => 2,
        RefKind::Inherit => 3,
        RefKind::Type => 4,
    }
}

/// The reference kind [`ref_kind_code`] stored as `code`.
pub(crate) fn ref_kind_of(code: u8) -> Option<RefKind> {
    Some(match code {
        0 => RefKind::Call,
        1 => RefKind::Attribute,
        2 => RefKind::Decorator,
        3 => RefKind::Inherit,
        4 => RefKind::Type,
        _ => return None,
    })
}

/// A file's references and the type facts resolution reads them with, as stored together.
/// The references name their strings by number in the file's table of strings, read once into
/// one buffer: an owned name and receiver per reference were most of the decoding's time.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FileRefs {
    pub refs: Vec<StoredRef>,
    pub facts: Vec<TypeFact>,
    /// The table's strings, end to end.
    texts: String,
    /// Where each string of the table ends in `texts`.
    ends: Vec<u32>,
}

/// One stored reference ([`Reference`]), its name and receiver read through its [`FileRefs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoredRef {
    pub kind: RefKind,
    /// The name's number in the table, counted from 1; 0 for none.
    name: u32,
    /// The receiver's, likewise.
    receiver: u32,
    pub line: u32,
    pub scope: Option<usize>,
}

impl FileRefs {
    /// The last name of the reference's chain ([`Reference::name`]).
    pub(crate) fn name(&self, r: &StoredRef) -> &str {
        self.text(r.name).unwrap_or_default()
    }

    /// The expression before the last dot, if any ([`Reference::receiver`]).
    pub(crate) fn receiver(&self, r: &StoredRef) -> Option<&str> {
        self.text(r.receiver)
    }

    fn text(&self, number: u32) -> Option<&str> {
        let i = (number as usize).checked_sub(1)?;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        self.texts.get(start..*self.ends.get(i)? as usize)
    }

    /// The references as the parser gave them.
    #[cfg(test)]
    pub(crate) fn references(&self) -> Vec<Reference> {
        self.refs
            .iter()
            .map(|r| Reference {
                kind: r.kind,
                name: self.name(r).to_owned(),
                receiver: self.receiver(r).map(str::to_owned),
                line: r.line,
                scope: r.scope,
            })
            .collect()
    }
}

pub(crate) fn encode_refs(refs: &[Reference], facts: &[TypeFact]) -> Vec<u8> {
    // References repeat their names and receivers: room for a third as many strings, grown
    // when a file needs more.
    let mut strings = Strings::with_capacity(refs.len() / 3 + facts.len());
    let mut rec = Vec::with_capacity(refs.len() * 6 + facts.len() * 4);
    put_varint(&mut rec, refs.len() as u64);
    for r in refs {
        rec.push(ref_kind_code(r.kind));
        put_varint(&mut rec, strings.id(Some(&r.name)));
        put_varint(&mut rec, strings.id(r.receiver.as_deref()));
        put_varint(&mut rec, u64::from(r.line));
        put_varint(&mut rec, opt_index(r.scope));
    }
    put_varint(&mut rec, facts.len() as u64);
    for f in facts {
        let (code, name) = match &f.source {
            TypeSource::Annotation(t) => (0, Some(t.as_str())),
            TypeSource::Call(t) => (1, Some(t.as_str())),
            TypeSource::Same(t) => (2, Some(t.as_str())),
            TypeSource::Unknown => (3, None),
        };
        rec.push(code);
        put_varint(&mut rec, strings.id(name));
        put_varint(&mut rec, strings.id(Some(&f.target)));
        put_varint(&mut rec, opt_index(f.scope));
        put_varint(&mut rec, u64::from(f.line));
    }
    strings.finish(rec)
}

#[cfg(test)]
pub(crate) fn decode_refs(data: &[u8]) -> Option<FileRefs> {
    decode_refs_where(data, |_| true)
}

/// [`decode_refs`] keeping only the references whose kind `keep` takes (the others are read
/// past, not built: resolution's first pass wants base classes only); every fact is kept.
pub(crate) fn decode_refs_where(data: &[u8], keep: impl Fn(RefKind) -> bool) -> Option<FileRefs> {
    let mut r = Reader::new(data);
    let strings = read_strings(&mut r)?;
    let mut texts = String::with_capacity(strings.iter().map(|s| s.len()).sum());
    let mut ends = Vec::with_capacity(strings.len());
    for s in &strings {
        texts.push_str(s);
        ends.push(u32::try_from(texts.len()).ok()?);
    }
    // A number past the table is a damaged blob, as before.
    let number = |id: u64| (id <= strings.len() as u64).then_some(id as u32);
    let n = r.varint()? as usize;
    let mut refs = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let kind = ref_kind_of(r.byte()?)?;
        let (name, receiver) = (r.varint()?, r.varint()?);
        let (line, scope) = (r.u32()?, r.varint()?);
        if !keep(kind) {
            continue;
        }
        refs.push(StoredRef {
            kind,
            name: number(name)?,
            receiver: number(receiver)?,
            line,
            scope: read_opt_index(scope),
        });
    }
    let n = r.varint()? as usize;
    let mut facts = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let code = r.byte()?;
        let name = string_at(&strings, r.varint()?)?.unwrap_or_default();
        let source = match code {
            0 => TypeSource::Annotation(name),
            1 => TypeSource::Call(name),
            2 => TypeSource::Same(name),
            3 => TypeSource::Unknown,
            _ => return None,
        };
        facts.push(TypeFact {
            source,
            target: string_at(&strings, r.varint()?)?.unwrap_or_default(),
            scope: read_opt_index(r.varint()?),
            line: r.u32()?,
        });
    }
    Some(FileRefs {
        refs,
        facts,
        texts,
        ends,
    })
}

/// The few symbol fields resolution needs, per file: id, parent (index in the file), kind code,
/// name, first decorator line, last header line.
pub(crate) struct SymtabEntry {
    pub id: i64,
    pub parent: Option<usize>,
    pub kind: i64,
    pub name: String,
    pub decorated_line: u32,
    pub header_end_line: u32,
    /// A signature for a type checker only (Python's `@overload`): calls go to the definition
    /// of the same name that is not one.
    pub overload: bool,
    /// The type its return annotation names, as written (`Client`, `pkg.Client`).
    pub returns: Option<String>,
    /// The type a method declared outside it belongs to (Go's receiver: `Server` for `func (s
    /// *Server) Start()`).
    pub owner: Option<String>,
}

pub(crate) fn encode_symtab(entries: &[SymtabEntry]) -> Vec<u8> {
    let mut strings = Strings::default();
    let mut rec = Vec::with_capacity(entries.len() * 10);
    put_varint(&mut rec, entries.len() as u64);
    for e in entries {
        put_varint(&mut rec, e.id as u64);
        put_varint(&mut rec, opt_index(e.parent));
        put_varint(&mut rec, (e.kind as u64) << 1 | u64::from(e.overload));
        put_varint(&mut rec, strings.id(Some(&e.name)));
        put_varint(&mut rec, u64::from(e.decorated_line));
        put_varint(&mut rec, u64::from(e.header_end_line));
        put_varint(&mut rec, strings.id(e.returns.as_deref()));
        put_varint(&mut rec, strings.id(e.owner.as_deref()));
    }
    strings.finish(rec)
}

pub(crate) fn decode_symtab(data: &[u8]) -> Option<Vec<SymtabEntry>> {
    let mut r = Reader::new(data);
    let strings = read_strings(&mut r)?;
    let n = r.varint()? as usize;
    let mut out = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let id = r.varint()? as i64;
        let parent = read_opt_index(r.varint()?);
        let kind_and_overload = r.varint()?;
        out.push(SymtabEntry {
            id,
            parent,
            kind: (kind_and_overload >> 1) as i64,
            name: string_at(&strings, r.varint()?)?.unwrap_or_default(),
            decorated_line: r.u32()?,
            header_end_line: r.u32()?,
            overload: kind_and_overload & 1 == 1,
            returns: string_at(&strings, r.varint()?)?,
            owner: string_at(&strings, r.varint()?)?,
        });
    }
    r.at_end().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_coded_strings_round_trip_and_refuse_what_does_not_read() {
        let paths = ["a/b/c.py", "a/b/d.py", "a/bé/x.py", "a/bé/y.py", "b.py", ""];
        let mut out = Vec::new();
        put_front_coded(&mut out, paths.iter().copied());
        let plain: usize = paths.iter().map(|p| p.len() + 1).sum();
        assert!(out.len() < plain, "{} bytes for {plain}", out.len());
        let mut r = Reader::new(&out);
        assert_eq!(r.front_coded().unwrap(), paths);
        assert!(r.at_end());
        // A shared prefix longer than the string before, a prefix ending inside a character,
        // a count past the data: refused, not a panic.
        for bad in [
            vec![1, 3, 1, b'x'],
            vec![2, 0, 2, 0xc3, 0xa9, 1, 0],
            vec![200, 0, 0],
        ] {
            assert_eq!(Reader::new(&bad).front_coded(), None, "{bad:?}");
        }
    }

    #[test]
    fn imports_and_refs_round_trip() {
        let imports = vec![
            Import {
                module: "a.b".into(),
                name: Some("c".into()),
                alias: None,
                level: 2,
                line: 7,
                scope: Some(3),
            },
            Import {
                module: "os".into(),
                name: None,
                alias: Some("o".into()),
                level: 0,
                line: 1,
                scope: None,
            },
        ];
        assert_eq!(decode_imports(&encode_imports(&imports)).unwrap(), imports);
        let refs = vec![
            Reference {
                kind: RefKind::Call,
                name: "get".into(),
                receiver: Some("self.cache".into()),
                line: 300,
                scope: Some(0),
            },
            Reference {
                kind: RefKind::Inherit,
                name: "Base".into(),
                receiver: None,
                line: 1,
                scope: None,
            },
        ];
        let facts = vec![
            TypeFact {
                target: "self.cache".into(),
                source: TypeSource::Call("Cache".into()),
                scope: Some(0),
                line: 12,
            },
            TypeFact {
                target: "client".into(),
                source: TypeSource::Annotation("httpx.Client".into()),
                scope: None,
                line: 3,
            },
            TypeFact {
                target: "c".into(),
                source: TypeSource::Unknown,
                scope: Some(3),
                line: 401,
            },
            TypeFact {
                target: "c".into(),
                source: TypeSource::Same("client".into()),
                scope: Some(3),
                line: 400,
            },
        ];
        let data = encode_refs(&refs, &facts);
        // Of one kind only: those references, in order, and every fact.
        let inherits = decode_refs_where(&data, |kind| kind == RefKind::Inherit).unwrap();
        let wanted: Vec<Reference> = refs
            .iter()
            .filter(|r| r.kind == RefKind::Inherit)
            .cloned()
            .collect();
        assert!(!wanted.is_empty() && wanted.len() < refs.len());
        assert_eq!((inherits.references(), &inherits.facts), (wanted, &facts));
        let decoded = decode_refs(&data).unwrap();
        assert_eq!((decoded.references(), decoded.facts), (refs, facts));
    }

    #[test]
    fn truncated_blobs_are_refused_not_trusted() {
        let refs = vec![Reference {
            kind: RefKind::Call,
            name: "x".into(),
            receiver: None,
            line: 1,
            scope: None,
        }];
        let data = encode_refs(&refs, &[]);
        for cut in 0..data.len() {
            assert!(decode_refs(&data[..cut]).is_none(), "cut at {cut}");
        }
        assert!(decode_refs(&[0xff; 12]).is_none());
    }
}
