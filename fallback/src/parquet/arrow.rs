//! The decoders' outputs as arrow-rs arrays (feature `arrow`), without copying the bytes:
//! [`ByteArrays`] is already Arrow's offsets-and-values layout, and value vectors become
//! Arrow buffers as they are.

use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, FixedSizeBinaryArray, PrimitiveArray, StringArray,
};
use arrow_buffer::{ArrowNativeType, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::{ByteArrays, ErrorKind, ParquetError};

impl ByteArrays {
    /// The values as an Arrow `BinaryArray` (no nulls), moving the buffers.
    pub fn into_binary_array(self) -> BinaryArray {
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets));
        BinaryArray::new(offsets, Buffer::from_vec(self.values), None)
    }

    /// The values as an Arrow `StringArray`; an error naming the first value that is not
    /// UTF-8 (Parquet's STRING logical type promises UTF-8, the bytes may not keep it).
    pub fn into_string_array(self) -> Result<StringArray, ParquetError> {
        if let Some(index) = self.iter().position(|v| std::str::from_utf8(v).is_err()) {
            return Err(ParquetError::new(
                "BYTE_ARRAY",
                ErrorKind::Corrupt,
                format!("value {index} is not UTF-8"),
            ));
        }
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets));
        StringArray::try_new(offsets, Buffer::from_vec(self.values), None)
            .map_err(|e| ParquetError::new("BYTE_ARRAY", ErrorKind::Corrupt, e.to_string()))
    }

    /// The values as an Arrow `FixedSizeBinaryArray` of `width` bytes each; an error when a
    /// value has another length.
    pub fn into_fixed_size_binary_array(
        self,
        width: usize,
    ) -> Result<FixedSizeBinaryArray, ParquetError> {
        let wrong = self
            .offsets
            .windows(2)
            .position(|w| (w[1] - w[0]) as usize != width);
        let size = i32::try_from(width).ok().filter(|_| wrong.is_none());
        let Some(size) = size else {
            return Err(ParquetError::invalid_argument(
                "FIXED_LEN_BYTE_ARRAY",
                format!("value {} is not {width} bytes long", wrong.unwrap_or(0)),
            ));
        };
        FixedSizeBinaryArray::try_new(size, Buffer::from_vec(self.values), None)
            .map_err(|e| ParquetError::invalid_argument("FIXED_LEN_BYTE_ARRAY", e.to_string()))
    }
}

/// Decoded fixed-size values (`i32`, `i64`, `f32`, `f64`, …) as an Arrow primitive array of
/// the matching type, moving the vector: `primitive_array::<Int32Type>(values)`.
pub fn primitive_array<T: arrow_array::ArrowPrimitiveType>(
    values: Vec<T::Native>,
) -> PrimitiveArray<T>
where
    T::Native: ArrowNativeType,
{
    PrimitiveArray::new(ScalarBuffer::from(values), None)
}

/// Decoded booleans as an Arrow `BooleanArray` (packed to bits).
pub fn boolean_array(values: &[bool]) -> BooleanArray {
    BooleanArray::from(values.to_vec())
}

/// The validity of a column's slots from its definition levels (a slot is valid where its
/// level is `max_def_level`), as an Arrow null buffer; `None` when every slot is valid.
pub fn validity(def_levels: &[i16], max_def_level: i16) -> Option<NullBuffer> {
    let valid = NullBuffer::from_iter(def_levels.iter().map(|&l| l == max_def_level));
    (valid.null_count() > 0).then_some(valid)
}

/// Any array behind Arc, for callers that collect columns of several types.
pub fn into_array_ref<A: arrow_array::Array + 'static>(array: A) -> ArrayRef {
    std::sync::Arc::new(array)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::types::Int64Type;
    use arrow_array::Array;

    #[test]
    fn byte_arrays_move_into_arrow_arrays_value_for_value() {
        let values: ByteArrays = [&b"axis"[..], b"", b"babyhood"].into_iter().collect();
        let binary = values.clone().into_binary_array();
        assert_eq!(binary.len(), 3);
        assert_eq!(binary.value(2), b"babyhood");
        assert_eq!(binary.value(1), b"");
        let strings = values.clone().into_string_array().unwrap();
        assert_eq!(strings.value(0), "axis");
        let not_utf8: ByteArrays = [&b"ok"[..], &[0xFF, 0xFE][..]].into_iter().collect();
        assert!(not_utf8
            .into_string_array()
            .unwrap_err()
            .message
            .contains("value 1"));
        assert!(values.into_fixed_size_binary_array(4).is_err());
        let fixed: ByteArrays = [&b"ab"[..], b"cd"].into_iter().collect();
        let fixed = fixed.into_fixed_size_binary_array(2).unwrap();
        assert_eq!(fixed.value(1), b"cd");
    }

    #[test]
    fn primitives_booleans_and_validity() {
        let ints = primitive_array::<Int64Type>(vec![i64::MIN, 0, i64::MAX]);
        assert_eq!(ints.value(0), i64::MIN);
        assert!(!boolean_array(&[true, false]).value(1));
        let nulls = validity(&[1, 0, 1], 1).unwrap();
        assert!(nulls.is_valid(0) && nulls.is_null(1));
        assert!(validity(&[2, 2], 2).is_none());
        assert_eq!(into_array_ref(ints).len(), 3);
    }
}
