//! What each indexed file is for, as the build decided it ([`cast_parser::roles::FileRoles`],
//! from the path and the file's opening lines) and stored beside the file. `find`, `map` and
//! `show` read it here rather than judging paths again, so they agree.

use cast_parser::roles::{FileRole, FileRoles};
use serde::Serialize;

/// The stored roles of every file, by file id; read once per state of the database
/// ([`crate::Snapshot::file_roles`]). One byte a file.
#[derive(Debug, Default)]
pub struct FileRolesById {
    /// `bits[id]` is file `id`'s [`FileRoles::bits`]; ids past the end have none.
    pub(crate) bits: Vec<u8>,
}

impl FileRolesById {
    /// The roles of file `id`; a file the index does not hold has none (source).
    pub fn of(&self, id: i64) -> FileRoles {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.bits.get(i))
            .map_or_else(FileRoles::default, |b| FileRoles::from_bits(*b))
    }
}

/// How many indexed files have each role, by [`FileRoles::primary`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RoleCounts {
    pub source: usize,
    pub test: usize,
    pub stub: usize,
    pub example: usize,
    pub installed: usize,
    pub generated: usize,
}

impl RoleCounts {
    pub(crate) fn add(&mut self, role: FileRole, n: usize) {
        *match role {
            FileRole::Source => &mut self.source,
            FileRole::Test => &mut self.test,
            FileRole::Stub => &mut self.stub,
            FileRole::Example => &mut self.example,
            FileRole::Installed => &mut self.installed,
            FileRole::Generated => &mut self.generated,
        } += n;
    }

    /// Each role with its count, in a fixed order, for printing.
    pub fn by_role(&self) -> [(FileRole, usize); 6] {
        [
            (FileRole::Source, self.source),
            (FileRole::Test, self.test),
            (FileRole::Stub, self.stub),
            (FileRole::Example, self.example),
            (FileRole::Installed, self.installed),
            (FileRole::Generated, self.generated),
        ]
    }
}
