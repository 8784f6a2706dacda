//! Tells the crate whether `qpl-sys` found QPL (its `links = "qpl"` metadata `found`), as
//! `cfg(qpl_linked)`, so the raw-QPL code is compiled only where QPL's bindings exist.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(qpl_linked)");
    println!("cargo::rerun-if-env-changed=DEP_QPL_FOUND");
    if std::env::var("DEP_QPL_FOUND").as_deref() == Ok("true") {
        println!("cargo::rustc-cfg=qpl_linked");
    }
}
