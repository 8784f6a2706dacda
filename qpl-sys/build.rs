//! Build script for `qpl-sys`: finds Intel QPL, generates the bindings with
//! bindgen and tells Cargo how to link.
//!
//! # Where QPL is looked for (first match wins)
//!
//! 1. `QPL_DIR`: an install prefix holding `include/qpl/qpl.h` and the library
//!    in `lib64/`, `lib/` or `lib/<arch>-linux-gnu/`.
//! 2. `QPL_INCLUDE_DIR` + `QPL_LIB_DIR`: the two halves of an install given
//!    separately (both must be set).
//! 3. pkg-config package `qpl` (QPL installs `qpl.pc` only for shared builds).
//! 4. The prefixes `/usr/local`, then `/usr`.
//!
//! A location named explicitly (1 or 2) that does not hold QPL is a build
//! error: the user asked for that location, so silently building without
//! bindings would hide the mistake.
//!
//! # Environment variables
//!
//! * `QPL_DIR`: install prefix of QPL (see above).
//! * `QPL_INCLUDE_DIR`: directory holding `qpl/qpl.h` (the `qpl/` directory
//!   itself is accepted too). Needs `QPL_LIB_DIR`.
//! * `QPL_LIB_DIR`: directory holding `libqpl.a` and/or `libqpl.so`. Needs
//!   `QPL_INCLUDE_DIR`.
//! * `QPL_STATIC`: `1` links `libqpl.a` (plus `stdc++` and `dl`), `0` links
//!   `libqpl.so`. Unset: whichever exists, the shared one if both do.
//! * `QPL_REQUIRED`: `1` makes "QPL not found" a build error, like the
//!   `required` Cargo feature.
//! * `QPL_DISABLE`: `1` builds without bindings even if QPL is installed. It
//!   wins over `QPL_REQUIRED` and the `required` feature.
//! * `DOCS_RS`: set by docs.rs; builds without bindings, without a warning.
//! * `LIBCLANG_PATH`: read by bindgen (clang-sys) to find `libclang.so` when
//!   it is not in a default location.
//! * `QPL_NO_PKG_CONFIG`: read by the `pkg-config` crate (which also asks
//!   Cargo to watch it and the `PKG_CONFIG_*` variables): skips step 3.
//!
//! Boolean variables accept `1`/`true`/`yes`/`on` and `0`/`false`/`no`/`off`;
//! an empty value counts as unset.
//!
//! # What dependents see
//!
//! Because of `links = "qpl"`, a crate depending directly on `qpl-sys` reads
//! in its own build script: `DEP_QPL_FOUND` (`true`/`false`), and when found
//! `DEP_QPL_INCLUDE` (directory holding `qpl/qpl.h`), `DEP_QPL_LIB` (library
//! directory), `DEP_QPL_STATIC` (`true`/`false`) and `DEP_QPL_VERSION` (when
//! known). Without QPL, `qpl-sys` itself is compiled with `cfg(qpl_absent)`.

use std::env;
use std::fmt;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use bindgen::callbacks::{IntKind, ParseCallbacks};

/// Every environment variable that changes what this script does.
const ENV_VARS: &[&str] = &[
    "QPL_DIR",
    "QPL_INCLUDE_DIR",
    "QPL_LIB_DIR",
    "QPL_STATIC",
    "QPL_REQUIRED",
    "QPL_DISABLE",
    "DOCS_RS",
    "LIBCLANG_PATH",
];

/// Prefixes searched when nothing else names QPL's location.
const DEFAULT_PREFIXES: &[&str] = &["/usr/local", "/usr"];

/// How the QPL library is linked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LinkKind {
    /// `libqpl.a`, which needs the C++ runtime and `dl` linked after it.
    Static,
    /// `libqpl.so`.
    Dylib,
}

impl fmt::Display for LinkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LinkKind::Static => "libqpl.a",
            LinkKind::Dylib => "libqpl.so",
        })
    }
}

/// A QPL installation that was found.
#[derive(Debug)]
struct Qpl {
    /// Directory holding `qpl/qpl.h` (QPL's headers include `"qpl/c_api/..."`).
    include_dir: PathBuf,
    /// Directory holding the library file.
    lib_dir: PathBuf,
    /// Which of the library files is linked.
    link: LinkKind,
    /// QPL's version, when the install tells it.
    version: Option<String>,
    /// How it was found, for messages.
    source: String,
}

impl Qpl {
    /// Path of the library file that is linked.
    fn lib_file(&self) -> PathBuf {
        self.lib_dir.join(self.link.to_string())
    }
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    for var in ENV_VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(qpl_absent)");

    let required =
        env::var_os("CARGO_FEATURE_REQUIRED").is_some() || env_bool("QPL_REQUIRED") == Some(true);

    if env_set("DOCS_RS") {
        emit_absent();
        return;
    }
    if env_bool("QPL_DISABLE") == Some(true) {
        let note = if required {
            " (this overrides QPL_REQUIRED / the `required` feature)"
        } else {
            ""
        };
        println!(
            "cargo::warning=QPL_DISABLE is set: qpl-sys is built without Intel QPL bindings{note}"
        );
        emit_absent();
        return;
    }

    let mut tried = Vec::new();
    match find_qpl(env_link_kind(), &mut tried) {
        Some(qpl) => {
            generate_bindings(&qpl);
            emit_link(&qpl);
            emit_found(&qpl);
        }
        None if required => panic!(
            "\n\nqpl-sys: Intel QPL is required (feature `required` or QPL_REQUIRED=1) \
             but was not found.\nLooked at:\n{}\nInstall Intel QPL (https://github.com/intel/qpl; \
             `cmake --install` puts it under /usr/local), or set QPL_DIR to its install prefix \
             (holding include/qpl/qpl.h and lib/libqpl.a or lib/libqpl.so), or set both \
             QPL_INCLUDE_DIR and QPL_LIB_DIR.\n\n",
            tried_list(&tried)
        ),
        None => {
            println!(
                "cargo::warning=Intel QPL not found (looked at {}): qpl-sys is built WITHOUT \
                 bindings (cfg qpl_absent). Set QPL_DIR=<install prefix> to use QPL, or \
                 QPL_REQUIRED=1 to make this an error.",
                tried
                    .iter()
                    .map(|(place, _)| place.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            emit_absent();
        }
    }
}

// ---------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------

/// Whether `name` is set to a non-empty value.
fn env_set(name: &str) -> bool {
    env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// `name` as a path, `None` when unset or empty.
fn env_path(name: &str) -> Option<PathBuf> {
    env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `name` as a boolean, `None` when unset or empty; panics on other values.
fn env_bool(name: &str) -> Option<bool> {
    let value = env::var(name).ok()?;
    match value.trim().to_ascii_lowercase().as_str() {
        "" => None,
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => panic!("qpl-sys: {name}={value:?} is not a boolean; use 1 or 0"),
    }
}

/// The link kind forced by `QPL_STATIC`, if any.
fn env_link_kind() -> Option<LinkKind> {
    env_bool("QPL_STATIC").map(|s| if s { LinkKind::Static } else { LinkKind::Dylib })
}

// ---------------------------------------------------------------------------
// Discovery
// ---------------------------------------------------------------------------

/// Runs the search in order; `tried` collects `(place, why not)` for messages.
/// Panics when an explicitly named location does not hold QPL.
fn find_qpl(want: Option<LinkKind>, tried: &mut Vec<(String, String)>) -> Option<Qpl> {
    if let Some(dir) = env_path("QPL_DIR") {
        if env_set("QPL_INCLUDE_DIR") || env_set("QPL_LIB_DIR") {
            println!(
                "cargo::warning=QPL_DIR is set, so QPL_INCLUDE_DIR and QPL_LIB_DIR are ignored"
            );
        }
        return Some(from_prefix(&dir, want).unwrap_or_else(|why| {
            panic!(
                "\n\nqpl-sys: QPL_DIR={} does not hold Intel QPL: {why}\n\n",
                dir.display()
            )
        }));
    }
    if let Some(qpl) = from_split_env(want) {
        return Some(qpl);
    }
    match from_pkg_config(want) {
        Ok(qpl) => return Some(qpl),
        Err(why) => tried.push(("pkg-config qpl".to_owned(), why)),
    }
    for prefix in DEFAULT_PREFIXES {
        match from_prefix(Path::new(prefix), want) {
            Ok(qpl) => return Some(qpl),
            Err(why) => tried.push(((*prefix).to_owned(), why)),
        }
    }
    None
}

/// QPL from `QPL_INCLUDE_DIR` + `QPL_LIB_DIR`; `None` when neither is set.
/// Panics when only one is set or when they do not hold QPL.
fn from_split_env(want: Option<LinkKind>) -> Option<Qpl> {
    let (include, lib) = match (env_path("QPL_INCLUDE_DIR"), env_path("QPL_LIB_DIR")) {
        (None, None) => return None,
        (Some(include), Some(lib)) => (include, lib),
        (Some(_), None) => panic!(
            "\n\nqpl-sys: QPL_INCLUDE_DIR is set but QPL_LIB_DIR is not; set both (or QPL_DIR)\n\n"
        ),
        (None, Some(_)) => panic!(
            "\n\nqpl-sys: QPL_LIB_DIR is set but QPL_INCLUDE_DIR is not; set both (or QPL_DIR)\n\n"
        ),
    };
    let include_dir = header_root(&include).unwrap_or_else(|| {
        panic!(
            "\n\nqpl-sys: QPL_INCLUDE_DIR={} holds no qpl/qpl.h\n\n",
            include.display()
        )
    });
    let link = pick_library(&lib, want)
        .unwrap_or_else(|why| panic!("\n\nqpl-sys: QPL_LIB_DIR={}: {why}\n\n", lib.display()));
    Some(Qpl {
        include_dir,
        version: cmake_version(&lib),
        lib_dir: lib,
        link,
        source: "QPL_INCLUDE_DIR/QPL_LIB_DIR".to_owned(),
    })
}

/// QPL under an install prefix (`<prefix>/include`, `<prefix>/lib*`).
fn from_prefix(prefix: &Path, want: Option<LinkKind>) -> Result<Qpl, String> {
    let include_dir = header_root(&prefix.join("include"))
        .ok_or_else(|| format!("no {}", prefix.join("include/qpl/qpl.h").display()))?;
    let mut reasons = Vec::new();
    for lib_dir in lib_dirs(prefix) {
        match pick_library(&lib_dir, want) {
            Ok(link) => {
                return Ok(Qpl {
                    include_dir,
                    version: cmake_version(&lib_dir),
                    lib_dir,
                    link,
                    source: prefix.display().to_string(),
                })
            }
            Err(why) => reasons.push(format!("{}: {why}", lib_dir.display())),
        }
    }
    Err(reasons.join("; "))
}

/// QPL as pkg-config reports it. pkg-config often drops system directories
/// from its answer, so those fall back to the default prefixes.
fn from_pkg_config(want: Option<LinkKind>) -> Result<Qpl, String> {
    let lib = pkg_config::Config::new()
        .cargo_metadata(false)
        .print_system_libs(false)
        .probe("qpl")
        .map_err(|e| pkg_config_reason(&e))?;
    let default_includes = DEFAULT_PREFIXES
        .iter()
        .map(|p| Path::new(p).join("include"));
    let include_dir = lib
        .include_paths
        .iter()
        .cloned()
        .chain(default_includes)
        .find_map(|dir| header_root(&dir))
        .ok_or("its include paths hold no qpl/qpl.h")?;
    let default_libs = DEFAULT_PREFIXES.iter().flat_map(|p| lib_dirs(Path::new(p)));
    let (lib_dir, link) = lib
        .link_paths
        .iter()
        .cloned()
        .chain(default_libs)
        .find_map(|dir| pick_library(&dir, want).ok().map(|link| (dir, link)))
        .ok_or("its library paths hold no usable libqpl")?;
    Ok(Qpl {
        include_dir,
        lib_dir,
        link,
        version: Some(lib.version),
        source: "pkg-config".to_owned(),
    })
}

/// A one-line reason for a failed pkg-config probe.
fn pkg_config_reason(error: &pkg_config::Error) -> String {
    match error {
        pkg_config::Error::EnvNoPkgConfig(var) => format!("skipped ({var} is set)"),
        pkg_config::Error::CrossCompilation => "skipped when cross-compiling".to_owned(),
        pkg_config::Error::Command { .. } => "pkg-config could not be run".to_owned(),
        pkg_config::Error::Failure { .. } | pkg_config::Error::ProbeFailure { .. } => {
            "no qpl.pc in its search path (PKG_CONFIG_PATH)".to_owned()
        }
        other => other
            .to_string()
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("failed")
            .trim()
            .to_owned(),
    }
}

/// The library directories of a prefix, in search order.
fn lib_dirs(prefix: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![prefix.join("lib64"), prefix.join("lib")];
    if let Ok(arch) = env::var("CARGO_CFG_TARGET_ARCH") {
        dirs.push(prefix.join("lib").join(format!("{arch}-linux-gnu")));
    }
    dirs
}

/// The directory to pass as `-I` given `dir`, which should hold `qpl/qpl.h`
/// (or be the `qpl/` directory itself).
fn header_root(dir: &Path) -> Option<PathBuf> {
    if dir.join("qpl").join("qpl.h").is_file() {
        return Some(dir.to_path_buf());
    }
    let parent = dir.parent()?;
    (dir.file_name()? == "qpl" && dir.join("qpl.h").is_file()).then(|| parent.to_path_buf())
}

/// Which library in `dir` to link, honouring `QPL_STATIC` when set.
fn pick_library(dir: &Path, want: Option<LinkKind>) -> Result<LinkKind, String> {
    let has = |kind: LinkKind| dir.join(kind.to_string()).is_file();
    match want {
        Some(kind) if has(kind) => Ok(kind),
        Some(kind) => Err(format!("no {kind} (QPL_STATIC asks for it)")),
        None if has(LinkKind::Dylib) => Ok(LinkKind::Dylib),
        None if has(LinkKind::Static) => Ok(LinkKind::Static),
        None => Err("no libqpl.a or libqpl.so".to_owned()),
    }
}

/// QPL's version from the CMake package file installed next to the library.
fn cmake_version(lib_dir: &Path) -> Option<String> {
    let text = fs::read_to_string(lib_dir.join("cmake/QPL/QPLConfigVersion.cmake")).ok()?;
    text.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("set(PACKAGE_VERSION \"")?;
        let version = rest.strip_suffix("\")")?;
        (!version.is_empty() && !version.contains('$')).then(|| version.to_owned())
    })
}

/// `tried` as an indented list for error messages.
fn tried_list(tried: &[(String, String)]) -> String {
    tried
        .iter()
        .map(|(place, why)| format!("  - {place}: {why}"))
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/// Builds the crate without bindings.
fn emit_absent() {
    println!("cargo::rustc-cfg=qpl_absent");
    println!("cargo::metadata=found=false");
}

/// Link instructions for the found library.
fn emit_link(qpl: &Qpl) {
    println!("cargo::rerun-if-changed={}", qpl.lib_file().display());
    println!("cargo::rustc-link-search=native={}", qpl.lib_dir.display());
    match qpl.link {
        LinkKind::Static => {
            println!("cargo::rustc-link-lib=static=qpl");
            // libqpl.a is C++ and uses dlopen (for libaccel-config).
            println!("cargo::rustc-link-lib=stdc++");
            println!("cargo::rustc-link-lib=dl");
        }
        LinkKind::Dylib => println!("cargo::rustc-link-lib=dylib=qpl"),
    }
}

/// Metadata for dependents (`DEP_QPL_*`) and the crate's own constants.
fn emit_found(qpl: &Qpl) {
    println!("cargo::metadata=found=true");
    println!("cargo::metadata=include={}", qpl.include_dir.display());
    println!("cargo::metadata=lib={}", qpl.lib_dir.display());
    println!("cargo::metadata=static={}", qpl.link == LinkKind::Static);
    if let Some(version) = &qpl.version {
        println!("cargo::metadata=version={version}");
        println!("cargo::rustc-env=QPL_SYS_QPL_VERSION={version}");
    }
}

// ---------------------------------------------------------------------------
// Bindings
// ---------------------------------------------------------------------------

/// Gives `#define`d integer constants the Rust types QPL's API uses them with.
#[derive(Debug)]
struct MacroTypes;

impl ParseCallbacks for MacroTypes {
    fn int_macro(&self, name: &str, _value: i64) -> Option<IntKind> {
        if name.starts_with("QPL_FLAG_") {
            // `qpl_job::flags` is a `uint32_t`.
            Some(IntKind::U32)
        } else if name.starts_with("QPL_DEVICE_NUMA_ID_") {
            // `qpl_job::numa_id` is an `int32_t`.
            Some(IntKind::I32)
        } else {
            None
        }
    }
}

/// Writes `$OUT_DIR/bindings.rs` from QPL's public C API.
fn generate_bindings(qpl: &Qpl) {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR is set by Cargo"));
    let builder = bindgen::Builder::default()
        .header_contents("qpl_sys_wrapper.h", "#include <qpl/qpl.h>\n")
        .clang_arg(format!("-I{}", qpl.include_dir.display()))
        .allowlist_function("qpl_.*")
        .allowlist_type("qpl_.*")
        .allowlist_var("QPL_.*")
        .default_enum_style(bindgen::EnumVariation::NewType {
            is_bitfield: false,
            is_global: false,
        })
        .use_core()
        .ctypes_prefix("core::ffi")
        .derive_default(true)
        .layout_tests(true)
        .merge_extern_blocks(true)
        .parse_callbacks(Box::new(MacroTypes))
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()));

    // With the `runtime` feature, a missing libclang is a panic inside
    // bindgen; catch it to say what to do about it.
    // The default hook would print that panic (and a backtrace) before ours.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(|| builder.generate()));
    panic::set_hook(hook);
    let bindings = match result {
        Ok(Ok(bindings)) => bindings,
        Ok(Err(e)) => bindgen_failed(qpl, &e.to_string()),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("bindgen panicked");
            bindgen_failed(qpl, msg)
        }
    };
    bindings
        .write_to_file(out.join("bindings.rs"))
        .expect("qpl-sys: cannot write bindings.rs to OUT_DIR");
}

/// Panics explaining why bindgen failed and what to do.
fn bindgen_failed(qpl: &Qpl, msg: &str) -> ! {
    panic!(
        "\n\nqpl-sys: generating bindings for Intel QPL found at {} ({}) failed: {msg}\n\
         bindgen needs libclang: install it (Debian/Ubuntu: libclang-dev) or set LIBCLANG_PATH \
         to the directory holding libclang.so. To build without QPL bindings instead, set \
         QPL_DISABLE=1.\n\n",
        qpl.source,
        qpl.include_dir.display()
    )
}
