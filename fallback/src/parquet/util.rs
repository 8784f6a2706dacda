//! Helpers the codecs share: the byte view of primitive values, the check of Arrow's 32-bit
//! offsets, and the naming of an inner stream in an error.

use super::{ErrorKind, FixedWidth, ParquetError};
use std::mem::MaybeUninit;

/// The error of byte arrays whose offsets would pass `i32::MAX` (Arrow's 32-bit offsets), the
/// one [`ByteArrays::push`](super::ByteArrays::push) reports.
pub(crate) fn offsets_overflow(end: usize) -> ParquetError {
    ParquetError::new(
        "BYTE_ARRAY",
        ErrorKind::TooMany,
        format!("byte arrays of {end} bytes in all do not fit Arrow's 32-bit offsets"),
    )
}

/// The error `error` of an inner decoder as the outer `encoding`'s, its message led by the
/// stream it came from (e.g. `the lengths (DELTA_BINARY_PACKED): ...`).
pub(crate) fn in_stream(encoding: &'static str, stream: &str, error: ParquetError) -> ParquetError {
    ParquetError::new(encoding, error.kind, format!("{stream}: {}", error.message))
}

/// The Arrow offset `end`, or [`offsets_overflow`] past `i32::MAX` bytes.
pub(crate) fn arrow_offset(end: usize) -> Result<i32, ParquetError> {
    i32::try_from(end).map_err(|_| offsets_overflow(end))
}

/// The values' memory as bytes when `T` is a primitive integer or float (no padding, every
/// bit pattern valid) on a little-endian target, where that memory is the values'
/// little-endian bytes: the byte kernels then write straight into the caller's values.
pub(crate) fn as_bytes_mut<T: FixedWidth>(values: &mut [T]) -> Option<&mut [u8]> {
    if !is_primitive::<T>() {
        return None;
    }
    // SAFETY: `T` is one of i32/u32/f32/i64/u64/f64 (checked by TypeId): its size is
    // `T::SIZE`, it has no padding and every bit pattern is a valid value, so its memory
    // may be viewed and written as `len * T::SIZE` bytes for the borrow's lifetime.
    Some(unsafe {
        std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<u8>(), values.len() * T::SIZE)
    })
}

/// [`as_bytes_mut`] for reading.
pub(crate) fn as_bytes<T: FixedWidth>(values: &[T]) -> Option<&[u8]> {
    if !is_primitive::<T>() {
        return None;
    }
    // SAFETY: as in `as_bytes_mut`; every byte of these types is initialised.
    Some(unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len() * T::SIZE)
    })
}

/// An unsigned integer type that the primitive [`FixedWidth`] types of its size may be viewed
/// as: `u32` (for `i32`, `u32`, `f32`) and `u64` (for `i64`, `u64`, `f64`).
pub(crate) trait Word: Copy + 'static {}
impl Word for u32 {}
impl Word for u64 {}

/// The values' memory as words of `W` when `T` is a primitive integer or float of `W`'s size
/// (every bit pattern of either type valid as the other): the dictionary gathers then move
/// entries as plain words, whatever the type.
pub(crate) fn as_words<T: FixedWidth, W: Word>(values: &[T]) -> Option<&[W]> {
    if !is_primitive::<T>()
        || std::mem::size_of::<T>() != std::mem::size_of::<W>()
        || values.as_ptr().align_offset(std::mem::align_of::<W>()) != 0
    {
        return None;
    }
    // SAFETY: `T` is a primitive of `W`'s size without padding (checked above), the pointer
    // is aligned for `W`, and every bit pattern is a valid `W`.
    Some(unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<W>(), values.len()) })
}

/// [`as_words`] for writing: every bit pattern written as a `W` is a valid `T`.
pub(crate) fn as_words_mut<T: FixedWidth, W: Word>(values: &mut [T]) -> Option<&mut [W]> {
    if !is_primitive::<T>()
        || std::mem::size_of::<T>() != std::mem::size_of::<W>()
        || values.as_ptr().align_offset(std::mem::align_of::<W>()) != 0
    {
        return None;
    }
    // SAFETY: as in `as_words`; `T` is a primitive integer or float, so any `W` written is
    // a valid `T`, and the borrow is exclusive for its lifetime.
    Some(unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast::<W>(), values.len()) })
}

/// [`as_words_mut`] for a `Vec`'s spare room: slots of `T` as slots of `W`, which a gather
/// fills (every bit pattern written as a `W` is a valid `T`).
pub(crate) fn as_uninit_words_mut<T: FixedWidth, W: Word>(
    slots: &mut [MaybeUninit<T>],
) -> Option<&mut [MaybeUninit<W>]> {
    if !is_primitive::<T>()
        || std::mem::size_of::<T>() != std::mem::size_of::<W>()
        || slots.as_ptr().align_offset(std::mem::align_of::<W>()) != 0
    {
        return None;
    }
    // SAFETY: as in `as_words_mut`: same size, aligned for `W`, no padding; the slots stay
    // possibly uninitialised either way, and the borrow is exclusive for its lifetime.
    Some(unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), slots.len()) })
}

/// Whether `T` is a primitive integer or float (of `T::SIZE` bytes) on a little-endian target:
/// its memory is then its little-endian bytes, and every bit pattern is a valid value.
pub(crate) fn is_primitive<T: FixedWidth>() -> bool {
    use std::any::TypeId;
    let id = TypeId::of::<T>();
    cfg!(target_endian = "little")
        && std::mem::size_of::<T>() == T::SIZE
        && [
            TypeId::of::<i32>(),
            TypeId::of::<u32>(),
            TypeId::of::<f32>(),
            TypeId::of::<i64>(),
            TypeId::of::<u64>(),
            TypeId::of::<f64>(),
        ]
        .contains(&id)
}

/// Reads `out.len()` values from `bytes`, their `SIZE`-byte little-endian chunks back to back:
/// one `memcpy` for the primitive types on little-endian targets, else value by value
/// (`chunks_exact` lets LLVM drop the per-value bounds checks).
#[inline]
pub(crate) fn read_le_values<T: FixedWidth>(bytes: &[u8], out: &mut [T]) {
    if let Some(out_bytes) = as_bytes_mut(out) {
        out_bytes.copy_from_slice(bytes);
        return;
    }
    for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
        *value = T::from_le_slice(chunk);
    }
}
