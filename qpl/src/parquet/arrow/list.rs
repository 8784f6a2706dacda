//! Lists of a converted type, from one repeated leaf: the three-level list
//! (`optional group l (LIST) { repeated group list { optional T element } }`), the legacy
//! two-level list (`group l (LIST) { repeated T element }`) and a repeated field without
//! annotation (`repeated T l`). Offsets and the lists' validity come from the repetition and
//! definition levels in one pass; the elements are converted as a flat column's values.

use std::sync::Arc;

use arrow_array::{ArrayRef, GenericListArray, OffsetSizeTrait};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef};
use parquet::basic::Repetition;
use parquet::schema::types::{SchemaDescriptor, Type};

use super::convert::{converts, is_offset_bytes, take_array, take_values};
use crate::parquet::query::column_of;
use crate::parquet::{ByteArrays, ColumnData, Values};

/// Where a list column's definition levels say what.
#[derive(Clone, Debug)]
pub(crate) struct ListShape {
    /// A row's list is non-null from this level on (0: never null).
    list_defined: i16,
    /// A level at or above this is an element (below it, a null or empty list).
    element: i16,
    /// The leaf's highest level: a non-null element.
    max: i16,
    /// The element field of the Arrow type.
    child: FieldRef,
    large: bool,
}

impl ListShape {
    /// Whether the elements are byte arrays behind offsets (Utf8, Binary, their large forms).
    pub fn holds_offset_bytes(&self) -> bool {
        is_offset_bytes(self.child.data_type())
    }
}

/// The list shape of leaf `leaf` read as `data_type`, when it is one converted here.
pub(crate) fn list_shape(
    schema: &SchemaDescriptor,
    leaf: usize,
    data_type: &DataType,
) -> Option<ListShape> {
    let (child, large) = match data_type {
        DataType::List(child) => (child, false),
        DataType::LargeList(child) => (child, true),
        _ => return None,
    };
    let descr = schema.column(leaf);
    if descr.max_rep_level() != 1 {
        return None;
    }
    let physical = column_of(&descr).ok()?.physical_type;
    if !converts(physical, child.data_type()) {
        return None;
    }
    // The nodes from the top-level field down to the leaf.
    let mut nodes: Vec<&Type> = Vec::new();
    let mut fields = schema.root_schema().get_fields();
    for part in descr.path().parts() {
        let node = fields.iter().find(|f| f.name() == part)?;
        nodes.push(node.as_ref());
        fields = if node.is_group() {
            node.get_fields()
        } else {
            &[]
        };
    }
    let repetition = |t: &Type| t.get_basic_info().repetition();
    let optional = |t: &Type| i16::from(repetition(t) == Repetition::OPTIONAL);
    let (list_defined, element_nullable) = match nodes[..] {
        // repeated T l
        [leaf] if repetition(leaf) == Repetition::REPEATED => (0, false),
        // group l (LIST) { repeated T element }
        [list, repeated]
            if repetition(list) != Repetition::REPEATED
                && repetition(repeated) == Repetition::REPEATED =>
        {
            (optional(list), false)
        }
        // group l (LIST) { repeated group list { T element } }
        [list, repeated, element]
            if repetition(list) != Repetition::REPEATED
                && repetition(repeated) == Repetition::REPEATED
                && repeated.get_fields().len() == 1
                && repetition(element) != Repetition::REPEATED =>
        {
            (optional(list), repetition(element) == Repetition::OPTIONAL)
        }
        _ => return None,
    };
    let element = list_defined + 1;
    let max = element + i16::from(element_nullable);
    if descr.max_def_level() != max || (element_nullable && !child.is_nullable()) {
        return None;
    }
    Some(ListShape {
        list_defined,
        element,
        max,
        child: Arc::clone(child),
        large,
    })
}

/// Takes the rows of `data` (one page's levels and values, emptied) as a list array, and the
/// rows' count. The page must start a row (its first repetition level is 0).
pub(crate) fn take_list(
    data: &mut ColumnData,
    shape: &ListShape,
) -> Result<(ArrayRef, usize), ArrowError> {
    let def = std::mem::take(&mut data.def_levels);
    let rep = std::mem::take(&mut data.rep_levels);
    check_levels(&def, &rep)?;
    let rows = rep.iter().filter(|&&r| r == 0).count();
    let element_nullable = shape.max > shape.element;
    // Without a branch a level: each level writes the next row's start (overwritten until
    // that row starts) and, for a nullable element, the next element's validity (overwritten
    // until a level defines an element); each slot counts what came before it.
    let mut offsets = vec![0usize; rows + 1];
    let mut element_levels = vec![0i16; if element_nullable { def.len() + 1 } else { 0 }];
    let (mut row, mut elements) = (0, 0);
    for (&d, &r) in def.iter().zip(&rep) {
        offsets[row] = elements;
        row += usize::from(r == 0);
        if element_nullable {
            element_levels[elements] = i16::from(d == shape.max);
        }
        elements += usize::from(d >= shape.element);
    }
    offsets[rows] = elements;
    element_levels.truncate(elements);
    let nulls = (shape.list_defined > 0).then(|| {
        let mut starts = def.iter().zip(&rep).filter(|(_, &r)| r == 0);
        NullBuffer::new(BooleanBuffer::collect_bool(rows, |_| {
            starts.next().is_some_and(|(&d, _)| d >= shape.list_defined)
        }))
    });
    let nulls = nulls.filter(|n| n.null_count() > 0);
    let mut elements_data = ColumnData {
        def_levels: element_levels,
        rep_levels: Vec::new(),
        values: std::mem::replace(&mut data.values, crate::parquet::Values::Int32(Vec::new())),
    };
    let child = take_array(
        &mut elements_data,
        i16::from(element_nullable),
        elements,
        shape.child.data_type(),
    )?;
    data.values = elements_data.values;
    let array: ArrayRef = if shape.large {
        let offsets = offsets.into_iter().map(|o| o as i64).collect();
        list_array::<i64>(shape, offsets, child, nulls)?
    } else {
        if i32::try_from(elements).is_err() {
            return Err(ArrowError::ParquetError(
                "a page's list offsets pass i32".into(),
            ));
        }
        // Each offset is at most `elements`, which fits.
        let offsets = offsets.into_iter().map(|o| o as i32).collect();
        list_array::<i32>(shape, offsets, child, nulls)?
    };
    Ok((array, rows))
}

/// The rows `mask` selects of a list page whose elements are dictionary-encoded byte arrays
/// (Utf8, Binary and their large forms): `data` holds the page's levels (emptied here),
/// `indices` the dictionary index of each element present. Offsets, validity and elements are
/// made for the selected rows only, and only their elements' bytes gathered from
/// `dictionary` (`limit`: the executor's `max_output_bytes`). Returns the array of the
/// selected rows. The page must start a row.
pub(crate) fn take_list_selected(
    data: &mut ColumnData,
    indices: &[u32],
    dictionary: &ByteArrays,
    mask: &BooleanBuffer,
    shape: &ListShape,
    limit: u64,
) -> Result<ArrayRef, ArrowError> {
    let def = std::mem::take(&mut data.def_levels);
    let rep = std::mem::take(&mut data.rep_levels);
    check_levels(&def, &rep)?;
    let rows = rep.iter().filter(|&&r| r == 0).count();
    if rows != mask.len() {
        return Err(ArrowError::ParquetError(format!(
            "the page holds {rows} rows, {} were looked up",
            mask.len()
        )));
    }
    let selected = mask.count_set_bits();
    let element_nullable = shape.max > shape.element;
    let mut offsets = Vec::with_capacity(selected + 1);
    let mut list_valid = BooleanBufferBuilder::new(selected);
    let mut element_valid = BooleanBufferBuilder::new(if element_nullable { selected } else { 0 });
    let mut ids = Vec::with_capacity(selected);
    let (mut row, mut take, mut elements, mut value) = (0, false, 0usize, 0usize);
    for (&d, &r) in def.iter().zip(&rep) {
        if r == 0 {
            // `row` counts the rows started so far: this row's index is `row`.
            take = mask.value(row);
            row += 1;
            if take {
                offsets.push(elements);
                list_valid.append(d >= shape.list_defined);
            }
        }
        if take && d >= shape.element {
            elements += 1;
            if element_nullable {
                element_valid.append(d == shape.max);
            }
            if d == shape.max {
                let id = *indices.get(value).ok_or_else(|| {
                    ArrowError::ParquetError(format!(
                        "{} dictionary indices for more values present",
                        indices.len()
                    ))
                })?;
                ids.push(id);
            }
        }
        value += usize::from(d == shape.max);
    }
    if value != indices.len() {
        return Err(ArrowError::ParquetError(format!(
            "{} dictionary indices for {value} values present",
            indices.len()
        )));
    }
    offsets.push(elements);
    let mut values = Values::Bytes(super::convert::gather_bytes(&ids, dictionary, limit)?);
    let validity = element_nullable.then(|| element_valid.finish());
    let child = take_values(&mut values, validity, elements, shape.child.data_type())?;
    let nulls = (shape.list_defined > 0)
        .then(|| NullBuffer::new(list_valid.finish()))
        .filter(|n| n.null_count() > 0);
    if shape.large {
        let offsets = offsets.into_iter().map(|o| o as i64).collect();
        list_array::<i64>(shape, offsets, child, nulls)
    } else {
        let offsets = offsets
            .into_iter()
            .map(i32::try_from)
            .collect::<Result<_, _>>()
            .map_err(|_| ArrowError::ParquetError("a page's list offsets pass i32".into()))?;
        list_array::<i32>(shape, offsets, child, nulls)
    }
}

/// A page's levels: as many repetition as definition levels, the first row starting on it.
fn check_levels(def: &[i16], rep: &[i16]) -> Result<(), ArrowError> {
    if def.len() != rep.len() {
        return Err(ArrowError::ParquetError(format!(
            "{} repetition levels for {} definition levels",
            rep.len(),
            def.len()
        )));
    }
    if rep.first().is_some_and(|&r| r != 0) {
        return Err(ArrowError::NotYetImplemented(
            "a page that continues the previous page's row".into(),
        ));
    }
    Ok(())
}

fn list_array<O: OffsetSizeTrait>(
    shape: &ListShape,
    offsets: Vec<O>,
    child: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef, ArrowError> {
    Ok(Arc::new(GenericListArray::<O>::try_new(
        Arc::clone(&shape.child),
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        child,
        nulls,
    )?))
}
