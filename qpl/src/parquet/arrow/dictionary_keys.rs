//! Dictionary columns of other integer keys than Int32 (pandas' categoricals are written with
//! Int8 keys): read as dictionaries of Int32 keys, as the reader reads pyarrow's, and each
//! batch's keys then converted to the field's key type.
//!
//! A batch whose dictionary has more entries than the key type can tell apart (PLAIN pages
//! give each row an entry of its own; a chunk's dictionary page may be larger) has its
//! entries made distinct first. More distinct values in a batch than the key type holds are
//! an error, as arrow-rs's reader's "dictionary key overflow" is. Example: Int8 keys over a
//! batch of 300 PLAIN strings of 4 distinct values give 4 entries and keys 0..=3; 200
//! distinct values give an error.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::GenericByteBuilder;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, DictionaryArray, GenericByteArray, PrimitiveArray};
use arrow_buffer::ArrowNativeType;
use arrow_schema::{ArrowError, DataType};

use super::convert::is_dictionary_of_bytes;

/// The type a dictionary column of `data_type` is read as when its keys are other integers
/// than Int32 over byte arrays: the same dictionary with Int32 keys (`None`: any other type).
pub(crate) fn read_with_int32_keys(data_type: &DataType) -> Option<DataType> {
    match data_type {
        DataType::Dictionary(key, value)
            if key.is_dictionary_key_type()
                && **key != DataType::Int32
                && is_dictionary_of_bytes(&DataType::Int32, value) =>
        {
            Some(DataType::Dictionary(
                Box::new(DataType::Int32),
                value.clone(),
            ))
        }
        _ => None,
    }
}

/// `array` as `target`: a dictionary of Int32 keys given `target`'s keys (see the module
/// docs); any other array as it is.
pub(crate) fn with_keys_of(array: &ArrayRef, target: &DataType) -> Result<ArrayRef, ArrowError> {
    let DataType::Dictionary(key, _) = target else {
        return Ok(Arc::clone(array));
    };
    if array.data_type() == target {
        return Ok(Arc::clone(array));
    }
    let Some(dictionary) = array.as_any().downcast_ref::<DictionaryArray<Int32Type>>() else {
        return Err(ArrowError::ParquetError(format!(
            "a dictionary of {} read for {target}",
            array.data_type()
        )));
    };
    match key.as_ref() {
        DataType::Int8 => narrowed::<Int8Type>(dictionary),
        DataType::Int16 => narrowed::<Int16Type>(dictionary),
        DataType::Int64 => narrowed::<Int64Type>(dictionary),
        DataType::UInt8 => narrowed::<UInt8Type>(dictionary),
        DataType::UInt16 => narrowed::<UInt16Type>(dictionary),
        DataType::UInt32 => narrowed::<UInt32Type>(dictionary),
        DataType::UInt64 => narrowed::<UInt64Type>(dictionary),
        other => Err(ArrowError::ParquetError(format!(
            "dictionary keys of {other}"
        ))),
    }
}

/// `dictionary` with keys of `K`: its entries made distinct first where `K` cannot index them
/// all.
fn narrowed<K: ArrowDictionaryKeyType>(
    dictionary: &DictionaryArray<Int32Type>,
) -> Result<ArrayRef, ArrowError> {
    let fits = |entries: usize| entries == 0 || K::Native::from_usize(entries - 1).is_some();
    let distinct;
    let dictionary = if fits(dictionary.values().len()) {
        dictionary
    } else {
        distinct = distinct_entries(dictionary)?;
        if !fits(distinct.values().len()) {
            return Err(ArrowError::DictionaryKeyOverflowError);
        }
        &distinct
    };
    // Every key indexes the dictionary (a `DictionaryArray` checks them), which `K` indexes.
    let keys: PrimitiveArray<K> = dictionary
        .keys()
        .unary(|k| K::Native::from_usize(k.as_usize()).unwrap_or_default());
    Ok(Arc::new(DictionaryArray::<K>::try_new(
        keys,
        Arc::clone(dictionary.values()),
    )?))
}

/// `dictionary` with each of its values once (in the order of their first entries).
fn distinct_entries(
    dictionary: &DictionaryArray<Int32Type>,
) -> Result<DictionaryArray<Int32Type>, ArrowError> {
    let values = dictionary.values();
    match values.data_type() {
        DataType::Utf8 => distinct_of::<Utf8Type>(dictionary),
        DataType::LargeUtf8 => distinct_of::<LargeUtf8Type>(dictionary),
        DataType::Binary => distinct_of::<BinaryType>(dictionary),
        DataType::LargeBinary => distinct_of::<LargeBinaryType>(dictionary),
        other => Err(ArrowError::ParquetError(format!(
            "a dictionary of {other} values"
        ))),
    }
}

fn distinct_of<T: ByteArrayType>(
    dictionary: &DictionaryArray<Int32Type>,
) -> Result<DictionaryArray<Int32Type>, ArrowError> {
    let values = dictionary
        .values()
        .as_any()
        .downcast_ref::<GenericByteArray<T>>()
        .ok_or_else(|| ArrowError::ParquetError("a dictionary's values of another type".into()))?;
    // Each entry's new key, from its value's first entry.
    let mut first: HashMap<&[u8], i32> = HashMap::new();
    let mut distinct = GenericByteBuilder::<T>::new();
    let mut renumbered = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        let value = values.value(i);
        let next = first.len() as i32;
        let key = *first.entry(value.as_ref()).or_insert_with(|| {
            distinct.append_value(value);
            next
        });
        renumbered.push(key);
    }
    let keys = dictionary
        .keys()
        .unary::<_, Int32Type>(|k| renumbered.get(k.as_usize()).copied().unwrap_or(0));
    DictionaryArray::<Int32Type>::try_new(keys, Arc::new(distinct.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::{Int32Array, StringArray};

    fn strings(keys: Vec<Option<i32>>, values: Vec<&str>) -> ArrayRef {
        Arc::new(
            DictionaryArray::<Int32Type>::try_new(
                Int32Array::from(keys),
                Arc::new(StringArray::from(values)),
            )
            .unwrap(),
        )
    }

    /// Each row's string (any key type).
    fn rows(array: &ArrayRef) -> Vec<Option<String>> {
        let dictionary = array.as_any_dictionary();
        let values = dictionary.values().as_string::<i32>();
        let keys = dictionary.normalized_keys();
        (0..array.len())
            .map(|i| array.is_valid(i).then(|| values.value(keys[i]).to_string()))
            .collect()
    }

    fn int8_strings() -> DataType {
        DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8))
    }

    #[test]
    fn keys_are_narrowed_and_entries_made_distinct_only_where_needed() {
        // A small dictionary: the keys converted, the entries kept.
        let small = strings(vec![Some(1), None, Some(0), Some(1)], vec!["a", "b"]);
        let out = with_keys_of(&small, &int8_strings()).unwrap();
        assert_eq!(out.data_type(), &int8_strings());
        assert_eq!(rows(&out), rows(&small));
        let dictionary = out.as_dictionary::<Int8Type>();
        assert_eq!(dictionary.values().len(), 2);
        assert_eq!(dictionary.keys().values(), &[1, 0, 0, 1]);
        // 300 rows of their own entries (PLAIN values), 3 distinct, and a null.
        let words = ["x", "yy", ""];
        let values: Vec<&str> = (0..300).map(|i| words[i % 3]).collect();
        let keys = (0..300).map(|i| (i != 7).then_some(i)).collect();
        let plain = strings(keys, values);
        let out = with_keys_of(&plain, &int8_strings()).unwrap();
        assert_eq!(rows(&out), rows(&plain));
        assert_eq!(out.as_dictionary::<Int8Type>().values().len(), 3);
        // 200 distinct values do not fit Int8 keys; UInt8 keys hold them.
        let many: Vec<String> = (0..200).map(|i| format!("v{i}")).collect();
        let many = strings(
            (0..200).map(Some).collect(),
            many.iter().map(String::as_str).collect(),
        );
        let e = with_keys_of(&many, &int8_strings()).unwrap_err();
        assert!(matches!(e, ArrowError::DictionaryKeyOverflowError), "{e}");
        let uint8 = DataType::Dictionary(Box::new(DataType::UInt8), Box::new(DataType::Utf8));
        assert_eq!(rows(&with_keys_of(&many, &uint8).unwrap()), rows(&many));
    }

    #[test]
    fn only_dictionaries_of_other_keys_over_byte_arrays_are_read_with_int32_keys() {
        assert_eq!(
            read_with_int32_keys(&int8_strings()),
            Some(DataType::Dictionary(
                Box::new(DataType::Int32),
                Box::new(DataType::Utf8)
            ))
        );
        let int32 = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let of_ints = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64));
        for other in [int32, of_ints, DataType::Utf8] {
            assert_eq!(read_with_int32_keys(&other), None, "{other}");
        }
    }
}
