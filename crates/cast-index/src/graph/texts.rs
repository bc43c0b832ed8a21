//! Strings held once each and named by number: the symbol names and the import texts that
//! resolution looks up ([`super::resolve::Catalog`]), and the terms a file's text is cut into
//! ([`crate::text`]).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Interned strings, numbered in the order they came. They lie end to end in one buffer, and
/// the table that finds a string's number holds, beside the number, where the string lies and
/// part of its hash: a lookup compares the hash first and then the bytes, without reading the
/// list of ends (resolution looks names up millions of times, and each read of another large
/// array is a cache miss). About the string's length plus 27 bytes each, where a map from owned
/// strings with a list beside it takes about 75 (a catalog of three copies of the standard
/// library holds 317,000 strings).
#[derive(Debug, Default)]
pub(crate) struct Texts {
    /// Every string, one after another.
    bytes: String,
    /// Where each string ends in `bytes`; each starts where the one before it ends.
    ends: Vec<usize>,
    /// The strings, found by their hashes.
    table: HashTable<Slot>,
}

/// A string in [`Texts::table`]: its number, where it lies in the buffer, and the low half of
/// its hash.
#[derive(Debug, Clone, Copy)]
struct Slot {
    id: u32,
    hash: u32,
    start: u32,
    len: u32,
}

impl Slot {
    fn holds(&self, bytes: &str, hash: u64, s: &str) -> bool {
        self.hash == hash as u32
            && self.len as usize == s.len()
            && bytes
                .as_bytes()
                .get(self.start as usize..(self.start + self.len) as usize)
                == Some(s.as_bytes())
    }
}

impl Texts {
    /// The number [`Self::intern_opt`] gives no string.
    pub(crate) const NONE: u32 = u32::MAX;

    /// Room for `count` strings of `bytes` bytes in all.
    pub(crate) fn with_capacity(count: usize, bytes: usize) -> Texts {
        Texts {
            bytes: String::with_capacity(bytes),
            ends: Vec::with_capacity(count),
            table: HashTable::with_capacity(count),
        }
    }

    /// The number of `s`, given it when it is new.
    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        let hash = FxBuildHasher.hash_one(s);
        let Texts { bytes, ends, table } = self;
        if let Some(slot) = table.find(hash, |slot| slot.holds(bytes, hash, s)) {
            return slot.id;
        }
        let id = u32::try_from(ends.len()).unwrap_or(Self::NONE - 1);
        let start = bytes.len();
        bytes.push_str(s);
        ends.push(bytes.len());
        // A buffer past 4 GiB cannot say where its strings lie in 32 bits: such a string is
        // kept (`get` reads it) but not found again by its text.
        if let (Ok(start), Ok(len)) = (u32::try_from(start), u32::try_from(s.len()))
            && start.checked_add(len).is_some()
        {
            let slot = Slot {
                id,
                hash: hash as u32,
                start,
                len,
            };
            table.insert_unique(hash, slot, |slot| {
                FxBuildHasher
                    .hash_one(&bytes[slot.start as usize..(slot.start + slot.len) as usize])
            });
        }
        id
    }

    /// [`Self::intern`] of a string, or [`Self::NONE`] for none.
    pub(crate) fn intern_opt(&mut self, s: Option<&str>) -> u32 {
        s.map_or(Self::NONE, |s| self.intern(s))
    }

    /// The number of `s`, if it was interned.
    pub(crate) fn id(&self, s: &str) -> Option<u32> {
        let hash = FxBuildHasher.hash_one(s);
        self.table
            .find(hash, |slot| slot.holds(&self.bytes, hash, s))
            .map(|slot| slot.id)
    }

    /// How many strings it holds.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
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
