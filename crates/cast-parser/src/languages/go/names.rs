//! The names of the language's standard library that code bases often define too, which
//! resolution does not resolve by name alone (see [`crate::modules::CommonNames`]). Sorted, for
//! binary search.

pub(crate) const METHODS: &[&str] = &[
    "Bytes",
    "Close",
    "Done",
    "Err",
    "Error",
    "Flush",
    "Format",
    "Len",
    "Lock",
    "Milliseconds",
    "RLock",
    "RUnlock",
    "Read",
    "Scan",
    "Seconds",
    "String",
    "Sub",
    "Text",
    "Unix",
    "Unlock",
    "Wait",
    "Write",
    "WriteString",
];

pub(crate) const TYPES: &[&str] = &[
    "Context", "Duration", "Mutex", "Reader", "Time", "Writer", "any", "bool", "byte", "error",
    "float32", "float64", "int", "int16", "int32", "int64", "int8", "rune", "string", "uint",
    "uint16", "uint32", "uint64", "uint8", "uintptr",
];
