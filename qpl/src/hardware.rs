//! Whether the IAA accelerator is usable, probed once per process, and why not.

use std::fmt;
use std::sync::OnceLock;

use qpl_fallback::Status;

/// Why the hardware path cannot run here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// This build has no QPL (qpl-sys found none at build time).
    NotLinked,
    /// QPL could not load libaccel-config, the IAA driver library (status 501).
    LibaccelMissing,
    /// IAA device files exist but this process may not open them (status 503).
    NoPermission {
        /// The device directory, e.g. `/dev/iax`.
        devices: String,
    },
    /// No enabled IAA shared work queue (status 503): no device, or none configured.
    NoWorkQueues,
    /// QPL's hardware path failed to initialise with another status.
    InitFailed(Status),
}

impl Unavailable {
    /// The status a job on the hardware path reports for this reason.
    pub fn status(&self) -> Status {
        match self {
            Unavailable::NotLinked => Status::INIT_HW_NOT_SUPPORTED,
            Unavailable::LibaccelMissing => Status::INIT_LIBACCEL_NOT_FOUND,
            Unavailable::NoPermission { .. } | Unavailable::NoWorkQueues => {
                Status::INIT_WORK_QUEUES_NOT_AVAILABLE
            }
            Unavailable::InitFailed(status) => *status,
        }
    }
}

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unavailable::NotLinked => f.write_str(
                "QPL is not linked into this build: install Intel QPL and rebuild with QPL_DIR set",
            ),
            Unavailable::LibaccelMissing => f.write_str(
                "libaccel-config (the IAA driver library) is not installed (status 501): install accel-config",
            ),
            Unavailable::NoPermission { devices } => write!(
                f,
                "no permission to open the IAA work queues in {devices} (status 503): run with access to those device files"
            ),
            Unavailable::NoWorkQueues => f.write_str(
                "no enabled IAA shared work queue (status 503): this host has no IAA device, or none is configured (accel-config)",
            ),
            Unavailable::InitFailed(status) => {
                write!(f, "QPL's hardware path failed to initialise: {status}")
            }
        }
    }
}

/// The result of the one-time hardware probe.
#[derive(Clone, Debug)]
pub struct HardwareInfo {
    /// `None` when the accelerator is usable.
    pub unavailable: Option<Unavailable>,
    /// The largest input one descriptor may carry, in bytes (device GENCAP, from sysfs when
    /// present; 2 MiB otherwise).
    pub max_transfer_size: u64,
}

/// Default IAA transfer limit when sysfs does not say.
pub const DEFAULT_MAX_TRANSFER_SIZE: u64 = 2 << 20;

/// The accelerator's state, probed on first use by initialising one hardware job.
pub fn hardware_info() -> &'static HardwareInfo {
    static INFO: OnceLock<HardwareInfo> = OnceLock::new();
    INFO.get_or_init(|| HardwareInfo {
        unavailable: probe().err(),
        max_transfer_size: sysfs_max_transfer_size().unwrap_or(DEFAULT_MAX_TRANSFER_SIZE),
    })
}

#[cfg(qpl_linked)]
fn probe() -> Result<(), Unavailable> {
    match crate::ffi::QplJob::new(crate::ffi::Engine::Hardware) {
        Ok(_) => Ok(()),
        Err(status) => Err(classify(status, iax_device_dir())),
    }
}

#[cfg(not(qpl_linked))]
fn probe() -> Result<(), Unavailable> {
    Err(Unavailable::NotLinked)
}

/// Turns an init status into a reason, telling "no permission" from "no queues" by whether
/// device files exist.
#[cfg_attr(not(qpl_linked), allow(dead_code))]
pub(crate) fn classify(status: Status, devices: Option<String>) -> Unavailable {
    match status {
        Status::INIT_LIBACCEL_NOT_FOUND => Unavailable::LibaccelMissing,
        Status::INIT_WORK_QUEUES_NOT_AVAILABLE => match devices {
            Some(devices) => Unavailable::NoPermission { devices },
            None => Unavailable::NoWorkQueues,
        },
        other => Unavailable::InitFailed(other),
    }
}

/// `/dev/iax` when it holds work-queue files.
#[cfg_attr(not(qpl_linked), allow(dead_code))]
fn iax_device_dir() -> Option<String> {
    let dir = std::path::Path::new("/dev/iax");
    let mut entries = std::fs::read_dir(dir).ok()?;
    entries.next().is_some().then(|| dir.display().to_string())
}

/// The smallest `max_transfer_size` over the IAA devices in sysfs.
fn sysfs_max_transfer_size() -> Option<u64> {
    std::fs::read_dir("/sys/bus/dsa/devices")
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("iax"))
        .filter_map(|e| std::fs::read_to_string(e.path().join("max_transfer_size")).ok())
        .filter_map(|s| s.trim().parse::<u64>().ok())
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_statuses_become_plain_reasons() {
        assert_eq!(classify(Status(501), None), Unavailable::LibaccelMissing);
        assert_eq!(classify(Status(503), None), Unavailable::NoWorkQueues);
        let no_access = classify(Status(503), Some("/dev/iax".into()));
        assert!(no_access.to_string().contains("no permission"));
        assert_eq!(no_access.status(), Status(503));
        assert_eq!(
            classify(Status(502), None),
            Unavailable::InitFailed(Status(502))
        );
    }

    #[test]
    fn the_probe_gives_a_reason_or_a_linked_device() {
        let info = hardware_info();
        match &info.unavailable {
            Some(reason) => {
                assert!(!reason.to_string().is_empty());
                if !cfg!(qpl_linked) {
                    assert_eq!(reason, &Unavailable::NotLinked);
                }
            }
            None if !cfg!(qpl_linked) => panic!("usable hardware without QPL linked"),
            None => {}
        }
        assert!(info.max_transfer_size > 0);
    }
}
