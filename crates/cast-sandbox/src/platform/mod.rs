//! What each operating system offers. Linux: Landlock, seccomp and a mount namespace. Elsewhere
//! nothing yet (macOS Seatbelt is the next step), so confined modes refuse to run commands.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) use linux::{confine, probe, user_namespaces_allowed};

#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(not(target_os = "linux"))]
pub(crate) use other::{confine, probe, user_namespaces_allowed};
