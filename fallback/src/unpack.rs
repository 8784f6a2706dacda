//! The bit-unpacking kernel under the name the Parquet decoders call it by:
//! `crate::unpack::unpack(BitWidth::new(w).unwrap(), big_endian, src, out)` (and `pack`). The kernels
//! themselves are in `crate::kernels` (`portable`, `avx512`).

// Not every name is used inside the crate on every branch: the Parquet decoders use them.
#[allow(unused_imports)]
pub(crate) use crate::kernels::{pack, unpack, BitWidth};
