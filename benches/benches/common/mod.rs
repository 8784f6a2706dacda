//! What the three criterion suites share (a module of each bench executable: criterion is a
//! dev-dependency, so the `qpl_benches` library cannot hold it).

use std::time::Duration;

use criterion::Criterion;

/// ~2.5 s per benchmark (0.5 s warm-up, 2 s of 20 samples): the analytics suite runs in about
/// ten minutes on two cores at the default size. Command-line options (`--warm-up-time`,
/// `--measurement-time`) override it.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .without_plots()
}
