//! Nested columns put together from the arrays of their leaves, each read on its own and
//! narrowed to its path: structs from structs of one field each, lists of structs from lists
//! of such structs, maps from their keys' and values' lists. Every part must agree with the
//! first on what they share (offsets, nulls): a file whose leaves disagree is an error.

use std::sync::Arc;

use arrow_array::{Array, ArrayRef, GenericListArray, OffsetSizeTrait, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef};

/// One struct of `data_type` from structs of one field each, in the order of its fields
/// (the same rows, the same validity: checked, as each leaf's levels gave it). Consecutive
/// parts of a field that is itself a struct are joined into it the same way.
pub(crate) fn join_struct(
    data_type: &DataType,
    parts: &[&ArrayRef],
) -> Result<StructArray, ArrowError> {
    let error = |m: &str| ArrowError::ParquetError(m.into());
    let DataType::Struct(fields) = data_type else {
        return Err(error("a struct column of another type"));
    };
    let mut nulls = None;
    let mut narrowed = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let part = part
            .as_any()
            .downcast_ref::<StructArray>()
            .ok_or_else(|| error("a struct field's part is no struct"))?;
        let part_nulls = part.nulls().filter(|n| n.null_count() > 0).cloned();
        if i == 0 {
            nulls = part_nulls;
        } else if part_nulls != nulls {
            return Err(error("a struct's fields differ in the struct's nulls"));
        }
        let [field] = &part.fields()[..] else {
            return Err(error("a struct field's part holds other than one field"));
        };
        narrowed.push((field.name().clone(), part.column(0)));
    }
    let mut children = Vec::with_capacity(fields.len());
    let mut at = 0;
    for field in fields {
        let end = at
            + narrowed[at..]
                .iter()
                .take_while(|(name, _)| name == field.name())
                .count();
        let group: Vec<&ArrayRef> = narrowed[at..end].iter().map(|(_, c)| *c).collect();
        let list_of_structs = matches!(
            field.data_type(),
            DataType::List(e) | DataType::LargeList(e) if matches!(e.data_type(), DataType::Struct(_))
        );
        children.push(match (field.data_type(), &group[..]) {
            (DataType::Struct(_), [_, ..]) => Arc::new(join_struct(field.data_type(), &group)?),
            (_, [_, ..]) if list_of_structs => join_list_struct(field.data_type(), &group)?,
            (DataType::Map(..), [keys, values]) => join_map(field.data_type(), keys, values)?,
            (_, [child]) => Arc::clone(child),
            _ => return Err(error("a struct's parts do not match its fields")),
        });
        at = end;
    }
    if at != narrowed.len() {
        return Err(error("a struct's parts do not match its fields"));
    }
    StructArray::try_new(fields.clone(), children, nulls)
}

/// A batch of a list of structs of `data_type` from its leaves' lists (as
/// [`list_struct_shapes`](super::list::list_struct_shapes) reads them, each of the struct
/// narrowed to one leaf's path): the first one's offsets and list nulls, which every other
/// leaf's must equal, over the structs joined as a struct column's parts are. A `Map` is
/// read so too (a list of its entries' structs), and made a `MapArray`.
pub(crate) fn join_list_struct(
    data_type: &DataType,
    parts: &[&ArrayRef],
) -> Result<ArrayRef, ArrowError> {
    match data_type {
        DataType::List(element) => join_list_struct_as::<i32>(element, parts),
        DataType::LargeList(element) => join_list_struct_as::<i64>(element, parts),
        // A map read as a list of its entries' structs.
        DataType::Map(entries, sorted) => {
            let (offsets, values, nulls) = joined_list_parts::<i32>(entries, parts)?;
            Ok(Arc::new(arrow_array::MapArray::try_new(
                Arc::clone(entries),
                offsets,
                values,
                nulls,
                *sorted,
            )?))
        }
        _ => Err(ArrowError::ParquetError(
            "a list of structs of another type".into(),
        )),
    }
}

fn join_list_struct_as<O: OffsetSizeTrait>(
    element: &FieldRef,
    parts: &[&ArrayRef],
) -> Result<ArrayRef, ArrowError> {
    let (offsets, values, nulls) = joined_list_parts::<O>(element, parts)?;
    Ok(Arc::new(GenericListArray::<O>::try_new(
        Arc::clone(element),
        offsets,
        Arc::new(values),
        nulls,
    )?))
}

/// The offsets, elements and nulls of a list of structs of `element` joined from `parts`
/// (see [`join_list_struct`]).
fn joined_list_parts<O: OffsetSizeTrait>(
    element: &FieldRef,
    parts: &[&ArrayRef],
) -> Result<(OffsetBuffer<O>, StructArray, Option<NullBuffer>), ArrowError> {
    let error = |m: &str| ArrowError::ParquetError(m.into());
    let nulls = |n: Option<&NullBuffer>| n.filter(|n| n.null_count() > 0).cloned();
    let mut elements = Vec::with_capacity(parts.len());
    let mut first: Option<(Vec<O>, Option<NullBuffer>)> = None;
    for part in parts {
        let list = part
            .as_any()
            .downcast_ref::<GenericListArray<O>>()
            .ok_or_else(|| error("a list of structs' part is no list"))?;
        let (offsets, values) = rebased(list);
        let shape = (offsets, nulls(list.nulls()));
        match &first {
            None => first = Some(shape),
            Some(first) if *first == shape => {}
            Some(_) => {
                return Err(error(
                    "a list of structs' fields differ in lengths or nulls",
                ))
            }
        }
        elements.push(values);
    }
    let (offsets, list_nulls) = first.ok_or_else(|| error("a list of structs without fields"))?;
    // The elements: each part's struct narrowed to its leaf's path, joined as a struct
    // column's parts are (their nulls checked alike).
    let elements: Vec<&ArrayRef> = elements.iter().collect();
    let values = join_struct(element.data_type(), &elements).map_err(|e| {
        ArrowError::ParquetError(format!(
            "a list of structs' fields differ in lengths or nulls ({e})"
        ))
    })?;
    Ok((
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        values,
        list_nulls,
    ))
}

/// A list's offsets from 0 and its values cut to them (a batch may be a slice of a page's).
fn rebased<O: OffsetSizeTrait>(list: &GenericListArray<O>) -> (Vec<O>, ArrayRef) {
    let offsets = list.value_offsets();
    let (first, last) = (offsets[0], offsets[offsets.len() - 1]);
    let values = list
        .values()
        .slice(first.as_usize(), (last - first).as_usize());
    (offsets.iter().map(|&o| o - first).collect(), values)
}

/// A batch of a map column of `data_type` from its keys' and values' lists (as
/// [`map_shapes`](super::list::map_shapes) reads them): the keys' offsets and nulls, entries of the two lists' values.
pub(crate) fn join_map(
    data_type: &DataType,
    keys: &ArrayRef,
    values: &ArrayRef,
) -> Result<ArrayRef, ArrowError> {
    let error = |m: &str| ArrowError::ParquetError(m.into());
    let DataType::Map(entries, sorted) = data_type else {
        return Err(error("a map column of another type"));
    };
    let DataType::Struct(fields) = entries.data_type() else {
        return Err(error("a map's entries are no struct"));
    };
    let list = |array: &ArrayRef| {
        array
            .as_any()
            .downcast_ref::<GenericListArray<i32>>()
            .cloned()
            .ok_or_else(|| error("a map's part is no list"))
    };
    let (keys, values) = (list(keys)?, list(values)?);
    let (key_offsets, key_values) = rebased(&keys);
    let (value_offsets, value_values) = rebased(&values);
    // The same nulls, whether or not a part keeps a buffer without nulls.
    let nulls = |list: &GenericListArray<i32>| list.nulls().filter(|n| n.null_count() > 0).cloned();
    let map_nulls = nulls(&keys);
    if key_offsets != value_offsets || map_nulls != nulls(&values) {
        return Err(error("a map's keys and values differ in lengths or nulls"));
    }
    let entries_array = StructArray::try_new(fields.clone(), vec![key_values, value_values], None)?;
    Ok(Arc::new(arrow_array::MapArray::try_new(
        Arc::clone(entries),
        OffsetBuffer::new(ScalarBuffer::from(key_offsets)),
        entries_array,
        map_nulls,
        *sorted,
    )?))
}
