//! Hand-built pages.
