//! Linux: a private mount namespace makes `.git/` and `.cast/` read-only, Landlock limits where
//! the process may write, and a seccomp filter refuses every socket but Unix ones. All three
//! hold for the process and everything it starts, and are applied to the helper process only,
//! never to CAST.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, RulesetStatus,
};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::sys::statvfs::{FsFlags, statvfs};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::{ConfinementError, PROTECTED, WriteScope};

/// Landlock ABI 3 (Linux 6.2) is the first that covers every way of writing a file: ABI 1 and
/// 2 do not handle `truncate(2)`, so a file outside the workspace could still be emptied.
const MIN_ABI: ABI = ABI::V3;
/// The newest rights used when the kernel has them (ABI 5: device ioctls). Later ABIs add
/// rights over Unix socket connections, which the sandbox leaves open on purpose.
const ABI_USED: ABI = ABI::V5;

fn failed(step: &'static str) -> impl Fn(String) -> ConfinementError {
    move |reason| ConfinementError::Confine { step, reason }
}

/// Whether this kernel can confine a process with Landlock ABI 3 or newer. Creating a ruleset
/// (and closing it) restricts nothing.
pub(crate) fn probe() -> Result<(), String> {
    if seccomp_arch().is_none() {
        return Err(format!(
            "the seccomp network filter is not built for the {} architecture",
            std::env::consts::ARCH
        ));
    }
    Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(MIN_ABI))
        .and_then(Ruleset::create)
        .map(drop)
        .map_err(|e| {
            format!(
                "the kernel does not offer Landlock ABI 3 or newer (Linux 6.2+, with landlock among the enabled security modules): {e}"
            )
        })
}

/// Whether an unprivileged process may make a user namespace and mount inside it, judged from
/// the sysctls that forbid it (a disabled `max_user_namespaces`, Debian's
/// `unprivileged_userns_clone`, Ubuntu's AppArmor restriction). When this says yes and the
/// kernel still refuses `unshare`, the helper falls back to [`WriteScope::WorkspaceFolders`].
pub(crate) fn user_namespaces_allowed() -> bool {
    let sysctl = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/{name}"))
            .ok()
            .map(|v| v.trim().to_owned())
    };
    if sysctl("user/max_user_namespaces").as_deref() == Some("0") {
        return false;
    }
    let privileged = nix::unistd::geteuid().is_root();
    privileged
        || (sysctl("kernel/unprivileged_userns_clone").as_deref() != Some("0")
            && sysctl("kernel/apparmor_restrict_unprivileged_userns").as_deref() != Some("1"))
}

/// Confines the calling (single-threaded) process.
pub(crate) fn confine(scope: WriteScope, root: &Path, temp: &Path) -> Result<(), ConfinementError> {
    let root = root
        .canonicalize()
        .map_err(|e| failed("workspace root")(format!("{}: {e}", root.display())))?;
    let scope = match scope {
        WriteScope::Workspace => match protect_with_mount_namespace(&root)? {
            true => WriteScope::Workspace,
            false => WriteScope::WorkspaceFolders,
        },
        other => other,
    };
    let status = ruleset(scope, &root, temp)
        .and_then(|r| r.restrict_self().map_err(|e| e.to_string()))
        .map_err(failed("landlock"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(failed("landlock")(
            "the kernel did not enforce the ruleset".to_owned(),
        ));
    }
    deny_network_sockets()
}

/// Makes `.git` and `.cast` of the root read-only in a private mount namespace (inside a new
/// user namespace, so no privilege is needed). `Ok(false)`: the kernel refused the namespaces
/// and nothing changed; an error after that point leaves the process unusable, so it stops.
fn protect_with_mount_namespace(root: &Path) -> Result<bool, ConfinementError> {
    let protected: Vec<PathBuf> = PROTECTED
        .iter()
        .filter_map(|name| root.join(name).canonicalize().ok())
        .filter(|real| real.starts_with(root) && real != root)
        .collect();
    let (uid, gid) = (nix::unistd::geteuid(), nix::unistd::getegid());
    if unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS).is_err() {
        return Ok(false);
    }
    let err = failed("mount namespace");
    let write = |file: &str, text: String| {
        std::fs::write(file, text).map_err(|e| err(format!("{file}: {e}")))
    };
    write("/proc/self/setgroups", "deny".to_owned())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|e| err(format!("making mounts private: {e}")))?;
    for path in &protected {
        mount(
            Some(path),
            path,
            none,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            none,
        )
        .map_err(|e| err(format!("binding {}: {e}", path.display())))?;
        // A remount must keep the flags the kernel locked on the original mount.
        let kept = statvfs(path)
            .map(|s| locked_flags(s.flags()))
            .map_err(|e| err(format!("{}: {e}", path.display())))?;
        mount(
            none,
            path,
            none,
            MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | kept,
            none,
        )
        .map_err(|e| err(format!("making {} read-only: {e}", path.display())))?;
    }
    Ok(true)
}

fn locked_flags(flags: FsFlags) -> MsFlags {
    [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ]
    .into_iter()
    .filter(|(st, _)| flags.contains(*st))
    .fold(MsFlags::empty(), |acc, (_, ms)| acc | ms)
}

/// Read and execute everywhere; write in the temporary folder, `/dev/null` and what the scope
/// grants. Landlock only grants, and a grant on a folder covers everything beneath it.
fn ruleset(scope: WriteScope, root: &Path, temp: &Path) -> Result<RulesetCreated, String> {
    let all = AccessFs::from_all(ABI_USED);
    let file = AccessFs::from_file(ABI_USED);
    let text = |e: landlock::RulesetError| e.to_string();
    let path_fd = |path: &Path| PathFd::new(path).map_err(|e| format!("{}: {e}", path.display()));
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(MIN_ABI))
        .map_err(text)?
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(text)?
        .create()
        .map_err(text)?
        .add_rule(PathBeneath::new(
            path_fd(Path::new("/"))?,
            AccessFs::from_read(ABI_USED),
        ))
        .map_err(text)?
        .add_rule(PathBeneath::new(path_fd(temp)?, all))
        .map_err(text)?;
    if let Ok(null) = PathFd::new("/dev/null") {
        ruleset = ruleset
            .add_rule(PathBeneath::new(null, file))
            .map_err(text)?;
    }
    match scope {
        WriteScope::TempOnly => {}
        WriteScope::Workspace => {
            ruleset = ruleset
                .add_rule(PathBeneath::new(path_fd(root)?, all))
                .map_err(text)?;
        }
        WriteScope::WorkspaceFolders => {
            for (entry, is_dir) in workspace_entries(root) {
                let access = if is_dir { all } else { file };
                ruleset = ruleset
                    .add_rule(PathBeneath::new(entry, access))
                    .map_err(text)?;
            }
        }
    }
    Ok(ruleset)
}

/// The root's entries but `.git` and `.cast`, each opened without following a symbolic link
/// (a link is skipped: a grant on it would land on its target, possibly outside the root).
fn workspace_entries(root: &Path) -> Vec<(File, bool)> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| !PROTECTED.iter().any(|p| e.file_name() == *p))
        .filter_map(|e| {
            let opened = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH | libc::O_NOFOLLOW)
                .open(e.path())
                .ok()?;
            let kind = opened.metadata().ok()?.file_type();
            (!kind.is_symlink()).then_some((opened, kind.is_dir()))
        })
        .collect()
}

fn seccomp_arch() -> Option<TargetArch> {
    if cfg!(target_arch = "x86_64") {
        Some(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Some(TargetArch::aarch64)
    } else if cfg!(target_arch = "riscv64") {
        Some(TargetArch::riscv64)
    } else {
        None
    }
}

/// `socket` and `socketpair` fail with EPERM for every family but `AF_UNIX`, and io_uring
/// (which can open sockets without those calls) is refused, as in Codex's filter. Another
/// architecture's calls (i386 on x86_64) kill the process; x32's numbers get the same rules.
fn deny_network_sockets() -> Result<(), ConfinementError> {
    let err = failed("seccomp");
    let arch = seccomp_arch().ok_or_else(|| err("unsupported architecture".to_owned()))?;
    let not_unix = SeccompRule::new(vec![
        SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Ne,
            libc::AF_UNIX as u64,
        )
        .map_err(|e| err(e.to_string()))?,
    ])
    .map_err(|e| err(e.to_string()))?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let mut deny = |nr: i64, rule: Option<&SeccompRule>| {
        rules.insert(nr, rule.into_iter().cloned().collect());
    };
    for offset in syscall_number_offsets() {
        deny(offset + libc::SYS_socket, Some(&not_unix));
        deny(offset + libc::SYS_socketpair, Some(&not_unix));
        for nr in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            deny(offset + nr, None);
        }
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(|e| err(e.to_string()))?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| err(e.to_string()))?;
    seccompiler::apply_filter(&program).map_err(|e| err(e.to_string()))
}

/// x86_64 also accepts x32 system calls: the same numbers with bit 30 set.
fn syscall_number_offsets() -> &'static [i64] {
    if cfg!(target_arch = "x86_64") {
        &[0, 0x4000_0000]
    } else {
        &[0]
    }
}
