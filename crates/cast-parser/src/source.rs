//! Reading a file's bytes as text: binary detection, size limit, a Python file's declared
//! encoding (PEP 263), lossy UTF-8 decoding otherwise.

use std::io::Read;
use std::path::Path;

use crate::{ParseError, SourceEncoding};

/// Files larger than this are skipped unless the caller raises the limit. The largest Python file
/// in a typical standard library plus site-packages is about 4 MB; a 50 MB file is generated data.
pub const DEFAULT_MAX_FILESIZE: u64 = 16 * 1024 * 1024;

/// A file's text, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    pub text: String,
    /// The bytes were not valid UTF-8 (nor in a Python file's declared encoding); bad sequences
    /// became U+FFFD.
    pub lossy: bool,
}

impl SourceText {
    /// Decodes bytes, refusing binary content (any NUL byte, as ripgrep decides).
    /// A UTF-8 byte-order mark is dropped from the text.
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<SourceText, ParseError> {
        if memchr::memchr(0, &bytes).is_some() {
            return Err(ParseError::Binary {
                path: path.to_path_buf(),
            });
        }
        // A Python file that declares its encoding is read in it, as Python reads it.
        let declared = is_python(path)
            .then(|| SourceEncoding::declared(&bytes))
            .flatten()
            .and_then(|encoding| encoding.decode(&bytes));
        let (text, lossy) = match declared {
            Some(text) => (text, false),
            None => match String::from_utf8(bytes) {
                Ok(text) => (text, false),
                Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), true),
            },
        };
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_owned(),
            None => text,
        };
        Ok(SourceText { text, lossy })
    }

    /// Reads a file, refusing it when larger than `max_size` bytes or binary.
    pub fn read(path: &Path, max_size: u64) -> Result<SourceText, ParseError> {
        let io_err = |source| ParseError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io_err)?;
        let size = file.metadata().map_err(io_err)?.len();
        if size > max_size {
            return Err(ParseError::TooLarge {
                path: path.to_path_buf(),
                size,
                limit: max_size,
            });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        // Read at most one byte past the limit: a file that grew since `metadata` is still bounded.
        file.take(max_size + 1)
            .read_to_end(&mut bytes)
            .map_err(io_err)?;
        if bytes.len() as u64 > max_size {
            return Err(ParseError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
                limit: max_size,
            });
        }
        SourceText::from_bytes(path, bytes)
    }
}

fn is_python(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("py" | "pyi" | "pyx")
    )
}

/// Byte offset → 1-based line, by binary search over line starts.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The line holding `byte`.
    pub(crate) fn line(&self, byte: usize) -> u32 {
        self.starts.partition_point(|&s| s <= byte) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_bytes_mean_binary() {
        let err = SourceText::from_bytes(Path::new("x.py"), b"a\0b".to_vec()).unwrap_err();
        assert!(matches!(err, ParseError::Binary { .. }));
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily_and_reported() {
        let src = SourceText::from_bytes(Path::new("x.py"), b"x = '\xff'\n".to_vec()).unwrap();
        assert!(src.lossy);
        assert_eq!(src.text, "x = '\u{fffd}'\n");
    }

    #[test]
    fn bom_is_dropped() {
        let src =
            SourceText::from_bytes(Path::new("x.py"), b"\xef\xbb\xbfx = 1\n".to_vec()).unwrap();
        assert!(!src.lossy);
        assert_eq!(src.text, "x = 1\n");
    }

    #[test]
    fn size_limit_is_enforced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.py");
        std::fs::write(&path, vec![b'#'; 100]).unwrap();
        let err = SourceText::read(&path, 10).unwrap_err();
        assert!(matches!(
            err,
            ParseError::TooLarge {
                size: 100,
                limit: 10,
                ..
            }
        ));
        assert!(SourceText::read(&path, 100).is_ok());
    }
}
