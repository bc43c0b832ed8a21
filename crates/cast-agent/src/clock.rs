//! The time as every record of a run writes it.

use std::time::SystemTime;

/// The current time in RFC 3339 with milliseconds (UTC): the timestamp of history entries,
/// sessions, memory and traces.
pub fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}
