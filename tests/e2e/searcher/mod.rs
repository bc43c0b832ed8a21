//! The searcher's commands: `cast grep`, `cast glob`, `cast files`, `cast read`, `cast ls`.

mod files;
mod grep;
mod ls;
mod read;
