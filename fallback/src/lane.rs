//! The element types select and expand carry values in between the decoder and the writer:
//! one byte each for sources of up to 8 bits (64 values per AVX-512 instruction rather than
//! 16), a `u16` for up to 16 bits (32), `u32` otherwise. Their kernels are
//! [`LaneKernels`]; this adds where their values are unpacked to and how they are written.

use crate::kernels::lanes::LaneKernels;
use crate::kernels::{self, BitWidth, LazyBlock};
use crate::output::Writer;
use crate::status::Status;

/// A lane type; [`lane_bits`] says which one a job uses.
pub(crate) trait Lane: LaneKernels {
    /// Where [`Lane::unpack`] puts values the decoder's `u32` block cannot hold: a block of
    /// narrow lanes, nothing for `u32`.
    type Unpacked;

    /// An empty [`Lane::Unpacked`].
    fn new_unpacked() -> Self::Unpacked;

    /// The `count` (≤ [`BLOCK`](kernels::BLOCK)) elements packed at `width` bits from the
    /// start of `src`, unpacked into `scratch` or `lanes` (whichever the lane type uses), or
    /// found in `src` itself.
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        count: usize,
        scratch: &'a mut LazyBlock<u32>,
        lanes: &'a mut Self::Unpacked,
    ) -> &'a [Self];

    /// Appends `values` to the output.
    fn write(out: &mut Writer, values: &[Self]) -> Result<(), Status>;
}

/// The lane size (8, 16 or 32 bits) for source elements of `width` bits.
pub(crate) fn lane_bits(width: u32) -> u32 {
    match width {
        0..=8 => 8,
        9..=16 => 16,
        _ => 32,
    }
}

impl Lane for u32 {
    type Unpacked = ();

    fn new_unpacked() {}

    #[inline]
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        count: usize,
        scratch: &'a mut LazyBlock<u32>,
        _lanes: &'a mut (),
    ) -> &'a [u32] {
        scratch.unpack(width, big_endian, src, count)
    }

    fn write(out: &mut Writer, values: &[u32]) -> Result<(), Status> {
        out.values(values)
    }
}

/// Unpacks `count` elements into narrow lanes with `simd_unpack`, or through the portable
/// kernel into `scratch` and then narrowing.
fn unpack_narrow<'a, T: Lane>(
    simd_unpack: fn(kernels::Kernels, u32, bool, &[u8], &mut [T]) -> bool,
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    scratch: &mut LazyBlock<u32>,
    lanes: &'a mut LazyBlock<T>,
) -> &'a [T] {
    let out = lanes.first(count);
    if !simd_unpack(kernels::kernels(), width.get(), big_endian, src, out) {
        let values = scratch.unpack(width, big_endian, src, count);
        for (o, &v) in out.iter_mut().zip(values) {
            *o = T::from_u32(v);
        }
    }
    out
}

/// The byte and 16-bit lanes: the same steps with their own kernels.
macro_rules! narrow_lane {
    ($t:ty, $unpack:expr) => {
        impl Lane for $t {
            type Unpacked = LazyBlock<$t>;

            fn new_unpacked() -> LazyBlock<$t> {
                LazyBlock::new()
            }

            #[inline]
            fn unpack<'a>(
                width: BitWidth,
                big_endian: bool,
                src: &'a [u8],
                count: usize,
                scratch: &'a mut LazyBlock<u32>,
                lanes: &'a mut LazyBlock<$t>,
            ) -> &'a [$t] {
                $unpack(width, big_endian, src, count, scratch, lanes)
            }

            fn write(out: &mut Writer, values: &[$t]) -> Result<(), Status> {
                out.narrow(values)
            }
        }
    };
}

/// Byte lanes unpack through their kernel, except 8-bit elements, which are the bytes.
fn unpack_bytes<'a>(
    width: BitWidth,
    big_endian: bool,
    src: &'a [u8],
    count: usize,
    scratch: &mut LazyBlock<u32>,
    lanes: &'a mut LazyBlock<u8>,
) -> &'a [u8] {
    if width.get() == 8 {
        return &src[..count];
    }
    unpack_narrow(
        kernels::unpack_bytes,
        width,
        big_endian,
        src,
        count,
        scratch,
        lanes,
    )
}

/// 16-bit lanes unpack through their kernel.
fn unpack_halves<'a>(
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    scratch: &mut LazyBlock<u32>,
    lanes: &'a mut LazyBlock<u16>,
) -> &'a [u16] {
    unpack_narrow(
        kernels::unpack_halves,
        width,
        big_endian,
        src,
        count,
        scratch,
        lanes,
    )
}

narrow_lane!(u8, unpack_bytes);
narrow_lane!(u16, unpack_halves);
