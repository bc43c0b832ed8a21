//! Strings held once each and named by number: the symbol names and the import texts that
//! resolution looks up ([`super::resolve::Catalog`]).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Interned strings, numbered in the order they came. They lie end to end in one buffer, and
/// the table that finds a string's number holds the number only: about the string's length
/// plus 13 bytes each, where a map from owned strings with a list beside it takes about 75 (a
/// catalog of three copies of the standard library holds 317,000 strings).
#[derive(Debug, Default)]
pub(crate) struct Texts {
    /// Every string, one after another.
    bytes: String,
    /// Where each string ends in `bytes`; each starts where the one before it ends.
    ends: Vec<usize>,
    /// The numbers, found by their strings' hashes.
    table: HashTable<u32>,
}

impl Texts {
    /// The number [`Self::intern_opt`] gives no string.
    pub(crate) const NONE: u32 = u32::MAX;

    /// The number of `s`, given it when it is new.
    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        let hash = FxBuildHasher.hash_one(s);
        let Texts { bytes, ends, table } = self;
        let text = |id: u32| text_of(bytes, ends, id);
        if let Some(&id) = table.find(hash, |&id| text(id) == s) {
            return id;
        }
        let id = u32::try_from(ends.len()).unwrap_or(Self::NONE - 1);
        bytes.push_str(s);
        ends.push(bytes.len());
        table.insert_unique(hash, id, |&id| {
            FxBuildHasher.hash_one(text_of(bytes, ends, id))
        });
        id
    }

    /// [`Self::intern`] of a string, or [`Self::NONE`] for none.
    pub(crate) fn intern_opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(Self::NONE, |s| self.intern(s))
    }

    /// The number of `s`, if it was interned.
    pub(crate) fn id(&self, s: &str) -> Option<u32> {
        let hash = FxBuildHasher.hash_one(s);
        self.table.find(hash, |&id| self.get(id) == s).copied()
    }

    /// The string numbered `id` (empty for a number never given).
    pub(crate) fn get(&self, id: u32) -> &str {
        text_of(&self.bytes, &self.ends, id)
    }

    /// [`Self::get`], or `None` for [`Self::NONE`].
    pub(crate) fn get_opt(&self, id: u32) -> Option<&str> {
        (id != Self::NONE).then(|| self.get(id))
    }
}

fn text_of<'a>(bytes: &'a str, ends: &[usize], id: u32) -> &'a str {
    let id = id as usize;
    let Some(&end) = ends.get(id) else {
        return "";
    };
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &bytes[start..end]
}

#[cfg(test)]
mod tests {
    use super::Texts;

    #[test]
    fn each_string_is_numbered_once_in_the_order_it_came() {
        let mut texts = Texts::default();
        let words = ["os", "path", "", "join", "os.path", "path", "os", "é"];
        let ids: Vec<u32> = words.iter().map(|w| texts.intern(w)).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 1, 0, 5]);
        assert_eq!(texts.get(6), "");
        for (word, id) in words.iter().zip(&ids) {
            assert_eq!(texts.get(*id), *word);
            assert_eq!(texts.id(word), Some(*id));
        }
        assert_eq!(texts.id("sep"), None);
        assert_eq!(texts.get(99), "");
        assert_eq!(texts.get_opt(Texts::NONE), None);
        assert_eq!(texts.intern_opt(None), Texts::NONE);
    }

    #[test]
    fn many_strings_survive_the_table_growing() {
        let mut texts = Texts::default();
        for i in 0..10_000 {
            assert_eq!(texts.intern(&format!("name{i}")), i);
        }
        for i in (0..10_000).rev() {
            assert_eq!(texts.id(&format!("name{i}")), Some(i));
            assert_eq!(texts.get(i), format!("name{i}"));
        }
    }
}
