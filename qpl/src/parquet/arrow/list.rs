//! Lists of a converted type, from one repeated leaf: the three-level list
//! (`optional group l (LIST) { repeated group list { optional T element } }`), the legacy
//! two-level list (`group l (LIST) { repeated T element }`) and a repeated field without
//! annotation (`repeated T l`). Offsets and the lists' validity come from the repetition and
//! definition levels in one pass; the elements are converted as a flat column's values.
//!
//! A list of structs of flat fields (or of structs of them, at any depth) is read a leaf at a
//! time: each leaf as a list of the struct narrowed to its path ([`list_struct_shapes`]), the
//! structs' validity from the same levels, and the leaves' lists joined per batch
//! ([`join_list_struct`](super::join::join_list_struct)).

use std::sync::Arc;

use arrow_array::{ArrayRef, GenericListArray, OffsetSizeTrait};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef};
use parquet::basic::Repetition;
use parquet::schema::types::{SchemaDescriptor, Type};

use super::convert::{converts, is_offset_bytes, take_array, take_values};
use super::structs::{chain, struct_nulls, wrap_in_structs, StructParent};
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
    /// For a leaf of a list of structs: the structs on the leaf's path from the element down
    /// (`child` is the element's struct narrowed to that path), each non-null from its
    /// `defined` level on (`element` for a struct never null), each one's `child` the next
    /// one's field and the last one's the leaf's. Empty for a list of another element.
    members: Vec<StructParent>,
    /// For a list inside structs: the structs it is wrapped in, outermost first, each
    /// holding only its field on the list's path.
    parents: Vec<StructParent>,
    /// For a list of lists: the shape of the lists that are its elements (`child`'s type),
    /// its levels those of the whole column.
    inner: Option<Box<ListShape>>,
}

impl ListShape {
    /// Whether the leaf's values are byte arrays behind offsets (Utf8, Binary, their large
    /// forms): the elements', or a list of structs' field's (not for a list of lists, read a
    /// page at a time).
    pub fn holds_offset_bytes(&self) -> bool {
        self.inner.is_none() && is_offset_bytes(self.leaf().data_type())
    }

    /// Whether a dictionary-encoded list page of this shape is decoded a piece at a time
    /// (levels, indices, then the piece's elements gathered): one list level over byte
    /// arrays read as Utf8/Binary, or over INT32, INT64, FLOAT or DOUBLE values (`physical`).
    pub fn streams_pieces(&self, physical: crate::parquet::PhysicalType) -> bool {
        use crate::parquet::PhysicalType as P;
        self.holds_offset_bytes()
            || (self.inner.is_none()
                && matches!(physical, P::Int32 | P::Int64 | P::Float | P::Double))
    }

    /// The field of the leaf's values: the element's, or a list of structs' field.
    fn leaf(&self) -> &FieldRef {
        self.members
            .last()
            .map_or(&self.child, |member| &member.child)
    }

    /// Whether the elements' levels are kept for the structs on a list of structs' leaf:
    /// where one of them can be null ([`element_of`]).
    fn keeps_struct_levels(&self) -> bool {
        self.members.iter().any(|m| m.defined > self.element)
    }

    /// The element field of the Arrow type.
    pub fn child(&self) -> &FieldRef {
        &self.child
    }

    /// Sets the structs the list is wrapped in (outermost first: each one's defined level and
    /// its field on the list's path).
    pub fn set_parents(&mut self, parents: Vec<StructParent>) {
        self.parents = parents;
    }

    /// The list type this shape reads: a `List`, or a `LargeList`.
    pub fn data_type(&self) -> DataType {
        match self.large {
            false => DataType::List(Arc::clone(&self.child)),
            true => DataType::LargeList(Arc::clone(&self.child)),
        }
    }
}

/// A list type's element field, and whether it is a `LargeList` (`None`: not a list).
fn list_element(data_type: &DataType) -> Option<(&FieldRef, bool)> {
    match data_type {
        DataType::List(child) => Some((child, false)),
        DataType::LargeList(child) => Some((child, true)),
        _ => None,
    }
}

/// The list shape of leaf `leaf` read as `data_type`, when it is one converted here.
pub(crate) fn list_shape(
    schema: &SchemaDescriptor,
    leaf: usize,
    data_type: &DataType,
) -> Option<ListShape> {
    let (child, large) = list_element(data_type)?;
    let nodes = nodes_to(schema, leaf)?;
    list_shape_at(schema, leaf, &nodes, 0, child, large)
}

/// The list shape of leaf `leaf` read as `field`'s type (a list) when the list is inside
/// structs: its path's first `depth` nodes are the structs, `parents` the structs it is
/// wrapped in (outermost first; the innermost's level is the list's base, its field `field`).
pub(crate) fn struct_list_shape(
    schema: &SchemaDescriptor,
    leaf: usize,
    depth: usize,
    parents: Vec<StructParent>,
    field: &FieldRef,
) -> Option<ListShape> {
    let (child, large) = list_element(field.data_type())?;
    let nodes = nodes_to(schema, leaf)?;
    let (base, below) = (parents.last()?.defined, nodes.get(depth..)?);
    let mut shape = list_shape_at(schema, leaf, below, base, child, large)?;
    shape.parents = parents;
    Some(shape)
}

/// The shape of a list whose schema nodes, from the list down to leaf `leaf`, are `nodes`,
/// under fields that are defined from level `base` on.
fn list_shape_at(
    schema: &SchemaDescriptor,
    leaf: usize,
    nodes: &[&Type],
    base: i16,
    child: &FieldRef,
    large: bool,
) -> Option<ListShape> {
    let descr = schema.column(leaf);
    // The lists on the path from here down: this one, or this one and its elements.
    match nodes
        .iter()
        .filter(|n| repetition(n) == Repetition::REPEATED)
        .count()
    {
        0 => return None,
        1 => {}
        _ => return list_of_lists_shape(schema, leaf, nodes, base, child, large),
    }
    let physical = column_of(&descr).ok()?.physical_type;
    if !converts(physical, child.data_type()) {
        return None;
    }
    let (list_defined, element_nullable) = match nodes[..] {
        // repeated T l
        [leaf] if repetition(leaf) == Repetition::REPEATED => (base, false),
        // group l (LIST) { repeated T element }
        [list, repeated]
            if repetition(list) != Repetition::REPEATED
                && repetition(repeated) == Repetition::REPEATED =>
        {
            (base + optional(list), false)
        }
        // group l (LIST) { repeated group list { T element } }
        [list, repeated, element]
            if repetition(list) != Repetition::REPEATED
                && repetition(repeated) == Repetition::REPEATED
                && repeated.get_fields().len() == 1
                && repetition(element) != Repetition::REPEATED =>
        {
            (
                base + optional(list),
                repetition(element) == Repetition::OPTIONAL,
            )
        }
        _ => return None,
    };
    shape_of(
        list_defined,
        element_nullable,
        descr.max_def_level(),
        child,
        large,
    )
}

/// The shape of a list of lists (`nodes` from the outer list down to leaf `leaf`, under fields
/// defined from level `base` on): the outer list three-level (`group l (LIST) { repeated group
/// list { element } }`, its element the inner list's group, optional or required), the inner
/// list any form [`list_shape_at`] reads (itself a list of lists, at any depth), its elements
/// of a type converted here.
fn list_of_lists_shape(
    schema: &SchemaDescriptor,
    leaf: usize,
    nodes: &[&Type],
    base: i16,
    child: &FieldRef,
    large: bool,
) -> Option<ListShape> {
    let [list, repeated, ref below @ ..] = nodes[..] else {
        return None;
    };
    let element_node = below.first()?;
    let three_level = repetition(list) != Repetition::REPEATED
        && repetition(repeated) == Repetition::REPEATED
        && repeated.get_fields().len() == 1
        && repetition(element_node) != Repetition::REPEATED
        && element_node.is_group();
    let (inner_child, inner_large) = list_element(child.data_type())?;
    // A null inner list needs a nullable element field.
    if !three_level || (optional(element_node) == 1 && !child.is_nullable()) {
        return None;
    }
    let list_defined = base + optional(list);
    let element = list_defined + 1;
    // The lists below: one (its shape has no inner list) or lists of lists again.
    let inner = list_shape_at(schema, leaf, below, element, inner_child, inner_large)?;
    Some(ListShape {
        list_defined,
        element,
        max: inner.max,
        child: Arc::clone(child),
        large,
        members: Vec::new(),
        parents: Vec::new(),
        inner: Some(Box::new(inner)),
    })
}

/// The shape of a list non-null from level `list_defined` on, of elements of field `child`
/// (`element_nullable` in the file), when the leaf's highest level `max_def_level` agrees.
fn shape_of(
    list_defined: i16,
    element_nullable: bool,
    max_def_level: i16,
    child: &FieldRef,
    large: bool,
) -> Option<ListShape> {
    let element = list_defined + 1;
    let max = element + i16::from(element_nullable);
    if max_def_level != max || (element_nullable && !child.is_nullable()) {
        return None;
    }
    Some(ListShape {
        list_defined,
        element,
        max,
        child: Arc::clone(child),
        large,
        members: Vec::new(),
        parents: Vec::new(),
        inner: None,
    })
}

/// A list of structs read as `data_type` (a `List` or `LargeList` of a `Struct`) from the
/// struct's leaves `leaves`, one list of the struct narrowed to one leaf's path per leaf, when
/// every field is a leaf of a type converted here or a struct of such fields, at any depth. The list is three-level (`group l (LIST) { repeated group
/// list { optional group element { fields } } }`), two-level (`group l (LIST) { repeated group
/// element { fields } }`) or an unannotated repeated group; the struct may be optional, its
/// fields optional or required.
pub(crate) fn list_struct_shapes(
    schema: &SchemaDescriptor,
    leaves: &[usize],
    data_type: &DataType,
) -> Option<Vec<ListShape>> {
    list_struct_shapes_in(schema, leaves, data_type, 0, 0)
}

/// [`list_struct_shapes`] of a list inside structs: its path's first `depth` nodes are the
/// structs, the innermost defined from level `base` on (the shapes' wrapping structs are the
/// caller's to set, [`ListShape::set_parents`]).
pub(crate) fn list_struct_shapes_in(
    schema: &SchemaDescriptor,
    leaves: &[usize],
    data_type: &DataType,
    depth: usize,
    base: i16,
) -> Option<Vec<ListShape>> {
    let (element, large) = list_element(data_type)?;
    let DataType::Struct(fields) = element.data_type() else {
        return None;
    };
    // Each leaf's fields from the element's down (structs in the element at any depth).
    let field_paths = leaf_field_paths(fields);
    if fields.is_empty() || field_paths.len() != leaves.len() {
        return None;
    }
    let mut shapes = Vec::with_capacity(leaves.len());
    for (&leaf, fields_down) in leaves.iter().zip(field_paths) {
        let field = fields_down.last()?;
        let descr = schema.column(leaf);
        let physical = column_of(&descr).ok()?.physical_type;
        if descr.max_rep_level() != 1 || !converts(physical, field.data_type()) {
            return None;
        }
        let path = nodes_to(schema, leaf)?;
        let nodes = path.get(depth..)?;
        let repeated = nodes
            .iter()
            .position(|n| repetition(n) == Repetition::REPEATED)?;
        let list_defined = match repeated {
            0 => base,
            1 => base + optional(nodes[0]),
            _ => return None,
        };
        // The struct: the repeated group itself, or its one field; below it a node per
        // field down to the leaf.
        let below_list = &nodes[repeated..];
        let (structure, struct_optional, below) =
            match below_list.len().checked_sub(fields_down.len())? {
                1 => (below_list[0], 0, &below_list[1..]),
                2 if below_list[0].get_fields().len() == 1
                    && repetition(below_list[1]) != Repetition::REPEATED =>
                {
                    (below_list[1], optional(below_list[1]), &below_list[2..])
                }
                _ => return None,
            };
        let element_level = list_defined + 1;
        let mut defined = element_level + struct_optional;
        let mut members = Vec::with_capacity(fields_down.len());
        let mut nullable_agrees = struct_optional == 0 || element.is_nullable();
        let mut shaped = structure.is_group() && structure.get_fields().len() == fields.len();
        for (at, (node, field)) in below.iter().zip(&fields_down).enumerate() {
            let last = at + 1 == fields_down.len();
            shaped &= node.is_group() != last
                && repetition(node) != Repetition::REPEATED
                && node.name() == field.name();
            nullable_agrees &= optional(node) == 0 || field.is_nullable();
            members.push((defined, Arc::clone(field)));
            defined += optional(node);
        }
        if !shaped || !nullable_agrees || descr.max_def_level() != defined {
            return None;
        }
        // The element's struct and the ones below, each narrowed to the leaf's path.
        let (leaf_defined, leaf_field) = members.pop()?;
        let members = chain(&members, leaf_defined, &leaf_field);
        let narrowed = DataType::Struct(vec![Arc::clone(&members[0].child)].into());
        shapes.push(ListShape {
            list_defined,
            element: element_level,
            max: defined,
            child: Arc::new(arrow_schema::Field::new(
                element.name(),
                narrowed,
                element.is_nullable(),
            )),
            large,
            members,
            parents: Vec::new(),
            inner: None,
        });
    }
    Some(shapes)
}

/// The fields from each of `fields` down to each flat leaf below it, in the leaves' order:
/// `[[a], [b, x], [b, y]]` for `{a, b: {x, y}}`.
pub(crate) fn leaf_field_paths(fields: &arrow_schema::Fields) -> Vec<Vec<FieldRef>> {
    let mut paths = Vec::new();
    for field in fields {
        match field.data_type() {
            DataType::Struct(inner) => {
                for mut below in leaf_field_paths(inner) {
                    below.insert(0, Arc::clone(field));
                    paths.push(below);
                }
            }
            _ => paths.push(vec![Arc::clone(field)]),
        }
    }
    paths
}

fn repetition(t: &Type) -> Repetition {
    t.get_basic_info().repetition()
}

fn optional(t: &Type) -> i16 {
    i16::from(repetition(t) == Repetition::OPTIONAL)
}

/// The schema's nodes from leaf `leaf`'s top-level field down to the leaf.
fn nodes_to(schema: &SchemaDescriptor, leaf: usize) -> Option<Vec<&Type>> {
    let descr = schema.column(leaf);
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
    Some(nodes)
}

/// A map read as `data_type` (a `Map` of a key and a value field) from its two leaves
/// `leaves` (`optional group m (MAP) { repeated group key_value { required K key; V value } }`):
/// the keys and the values each read as a list (the same offsets and nulls, which
/// [`join_map`] checks), when both are of types converted here.
pub(crate) fn map_shapes(
    schema: &SchemaDescriptor,
    leaves: &[usize],
    data_type: &DataType,
) -> Option<[ListShape; 2]> {
    map_shapes_in(schema, leaves, data_type, 0, 0)
}

/// [`map_shapes`] of a map inside structs: its path's first `depth` nodes are the structs, the
/// innermost defined from level `base` on (the shapes' wrapping structs are the caller's to
/// set, [`ListShape::set_parents`]).
pub(crate) fn map_shapes_in(
    schema: &SchemaDescriptor,
    leaves: &[usize],
    data_type: &DataType,
    depth: usize,
    base: i16,
) -> Option<[ListShape; 2]> {
    let DataType::Map(entries, _) = data_type else {
        return None;
    };
    let DataType::Struct(fields) = entries.data_type() else {
        return None;
    };
    let ([key, value], [key_leaf, value_leaf]) = (&fields[..], leaves) else {
        return None;
    };
    let shape = |leaf: usize, field: &FieldRef, position: usize| {
        let descr = schema.column(leaf);
        let physical = column_of(&descr).ok()?.physical_type;
        if descr.max_rep_level() != 1 || !converts(physical, field.data_type()) {
            return None;
        }
        let path = nodes_to(schema, leaf)?;
        let [map, key_value, entry] = path.get(depth..)?[..] else {
            return None;
        };
        let parts = key_value.get_fields();
        let shaped = repetition(map) != Repetition::REPEATED
            && repetition(key_value) == Repetition::REPEATED
            && parts.len() == 2
            && std::ptr::eq(parts[position].as_ref(), entry)
            && repetition(entry) != Repetition::REPEATED;
        let element_nullable = repetition(entry) == Repetition::OPTIONAL;
        let max_def_level = descr.max_def_level();
        shaped
            .then(|| {
                let list_defined = base + optional(map);
                shape_of(list_defined, element_nullable, max_def_level, field, false)
            })
            .flatten()
    };
    // Arrow's map keys are never null.
    let keys = shape(*key_leaf, key, 0).filter(|s| s.max == s.element)?;
    let values = shape(*value_leaf, value, 1)?;
    Some([keys, values])
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
    let array = list_of_levels(&def, &rep, rows, &mut data.values, shape)?;
    Ok((array, rows))
}

/// The `rows` rows whose levels are `def` and `rep` (starting a row) as a list array over
/// `values` (the elements present, taken).
fn list_of_levels(
    def: &[i16],
    rep: &[i16],
    rows: usize,
    values: &mut Values,
    shape: &ListShape,
) -> Result<ArrayRef, ArrowError> {
    // The elements are at most the levels.
    if !shape.large && i32::try_from(def.len()).is_err() {
        return Err(ArrowError::ParquetError(
            "a page's list offsets pass i32".into(),
        ));
    }
    let array = match (&shape.inner, shape.large) {
        (Some(inner), false) => list_of_lists_as::<i32>(def, rep, rows, values, shape, inner)?,
        (Some(inner), true) => list_of_lists_as::<i64>(def, rep, rows, values, shape, inner)?,
        (None, false) => list_of_levels_as::<i32>(def, rep, rows, values, shape)?,
        (None, true) => list_of_levels_as::<i64>(def, rep, rows, values, shape)?,
    };
    if shape.parents.is_empty() {
        return Ok(array);
    }
    // Inside structs: each struct's validity from each row's first level.
    let row_levels: Vec<i16> = def
        .iter()
        .zip(rep)
        .filter(|(_, &r)| r == 0)
        .map(|(&d, _)| d)
        .collect();
    let nulls = struct_nulls(&shape.parents, &row_levels, rows);
    wrap_in_structs(array, &shape.parents, nulls)
}

/// [`list_of_levels`] of a list of lists (`inner` the elements' shape), with offsets of
/// `O`: each row's lists start at levels of repetition 0 or 1 that define an element; the
/// inner lists are read from those levels alone, as rows of their own (repetition 1 becoming
/// 0, 2 becoming 1).
fn list_of_lists_as<O: OffsetSizeTrait>(
    def: &[i16],
    rep: &[i16],
    rows: usize,
    values: &mut Values,
    shape: &ListShape,
    inner: &ListShape,
) -> Result<ArrayRef, ArrowError> {
    let mut offsets = Vec::with_capacity(rows + 1);
    let mut row_nulls = BooleanBufferBuilder::new(rows);
    let mut inner_def = Vec::with_capacity(def.len());
    let mut inner_rep = Vec::with_capacity(def.len());
    let mut lists = 0usize;
    for (&d, &r) in def.iter().zip(rep) {
        if r == 0 {
            offsets.push(O::usize_as(lists));
            row_nulls.append(d >= shape.list_defined);
        }
        if d >= shape.element {
            lists += usize::from(r <= 1);
            inner_def.push(d);
            inner_rep.push((r - 1).max(0));
        } else if r != 0 {
            return Err(ArrowError::ParquetError(format!(
                "a level of repetition {r} defines no element of the outer list (level {d})"
            )));
        }
    }
    if offsets.len() != rows {
        return Err(ArrowError::ParquetError(format!(
            "{} rows start, {rows} were counted",
            offsets.len()
        )));
    }
    offsets.push(O::usize_as(lists));
    let child = list_of_levels(&inner_def, &inner_rep, lists, values, inner)?;
    let nulls = (shape.list_defined > 0)
        .then(|| NullBuffer::new(row_nulls.finish()))
        .filter(|n| n.null_count() > 0);
    list_array::<O>(shape, offsets, child, nulls)
}

/// [`list_of_levels`] with offsets of `O` (which hold as many elements as levels).
fn list_of_levels_as<O: OffsetSizeTrait>(
    def: &[i16],
    rep: &[i16],
    rows: usize,
    values: &mut Values,
    shape: &ListShape,
) -> Result<ArrayRef, ArrowError> {
    let element_nullable = shape.max > shape.element;
    // Without a branch a level: each level writes the next row's start (overwritten until
    // that row starts) and, for a nullable element, the next element's validity (overwritten
    // until a level defines an element); each slot counts what came before it.
    let mut offsets = vec![O::usize_as(0); rows + 1];
    let mut element_levels = vec![0i16; if element_nullable { def.len() + 1 } else { 0 }];
    // A list of structs' leaf: each element's level, the same way.
    let struct_levels_kept = shape.keeps_struct_levels();
    let mut struct_levels = vec![0i16; if struct_levels_kept { def.len() + 1 } else { 0 }];
    let (mut row, mut elements) = (0, 0);
    for (&d, &r) in def.iter().zip(rep) {
        offsets[row] = O::usize_as(elements);
        row += usize::from(r == 0);
        if element_nullable {
            element_levels[elements] = i16::from(d == shape.max);
        }
        if struct_levels_kept {
            struct_levels[elements] = d;
        }
        elements += usize::from(d >= shape.element);
    }
    offsets[rows] = O::usize_as(elements);
    element_levels.truncate(elements);
    let nulls = (shape.list_defined > 0).then(|| {
        let mut starts = def.iter().zip(rep).filter(|(_, &r)| r == 0);
        NullBuffer::new(BooleanBuffer::collect_bool(rows, |_| {
            starts.next().is_some_and(|(&d, _)| d >= shape.list_defined)
        }))
    });
    let nulls = nulls.filter(|n| n.null_count() > 0);
    let mut elements_data = ColumnData {
        def_levels: element_levels,
        rep_levels: Vec::new(),
        values: std::mem::replace(values, Values::Int32(Vec::new())),
    };
    let leaf_type = shape.leaf().data_type();
    let leaf = take_array(
        &mut elements_data,
        i16::from(element_nullable),
        elements,
        leaf_type,
    )?;
    struct_levels.truncate(elements);
    let child = element_of(shape, leaf, &struct_levels)?;
    *values = elements_data.values;
    list_array::<O>(shape, offsets, child, nulls)
}

/// A list's elements from its leaf's values `leaf`: the leaf itself, or for a list of
/// structs the structs on its path around it, each valid where the elements' levels
/// `struct_levels` reach its defined level (empty: every struct is valid everywhere).
fn element_of(
    shape: &ListShape,
    leaf: ArrayRef,
    struct_levels: &[i16],
) -> Result<ArrayRef, ArrowError> {
    if shape.members.is_empty() {
        return Ok(leaf);
    }
    let nulls = match struct_levels.is_empty() {
        true => vec![None; shape.members.len()],
        false => struct_nulls(&shape.members, struct_levels, struct_levels.len()),
    };
    wrap_in_structs(leaf, &shape.members, nulls)
}

/// A list page of dictionary-encoded byte arrays fed a piece at a time: where the next piece
/// starts in its levels and in its dictionary indices (one per element present).
#[derive(Debug, Default)]
pub(crate) struct ListPlace {
    /// The next row, its first level, and the elements present before it.
    pub row: usize,
    pub level: usize,
    pub value: usize,
}

/// The next piece of a list page of dictionary-encoded byte arrays: up to `rows` rows from
/// `place` on, of the page's levels `def` and `rep` (checked with [`check_list_page`]) and
/// `indices` (an index per element present); `gather` gives the byte arrays of the ids it is
/// given. Returns the piece's array; `place` moves past it.
pub(crate) fn list_piece(
    def: &[i16],
    rep: &[i16],
    indices: &[u32],
    place: &mut ListPlace,
    rows: usize,
    gather: impl FnOnce(&[u32]) -> Result<ByteArrays, ArrowError>,
    shape: &ListShape,
) -> Result<ArrayRef, ArrowError> {
    let (def, rep) = (&def[place.level..], &rep[place.level..]);
    let cut = piece_cut(def, rep, rows, shape);
    let ids = indices
        .get(place.value..place.value + cut.present)
        .ok_or_else(|| {
            ArrowError::ParquetError(format!(
                "{} dictionary indices for more values present",
                indices.len()
            ))
        })?;
    let gather = |ids: &[u32]| gather(ids).map(Values::Bytes);
    let array = list_of_ids(
        &def[..cut.levels],
        &rep[..cut.levels],
        cut.rows,
        ids,
        gather,
        shape,
    )?;
    place.row += cut.rows;
    place.level += cut.levels;
    place.value += cut.present;
    Ok(array)
}

/// Where a piece of a list page ends.
#[derive(Debug)]
pub(crate) struct PieceCut {
    /// Its levels, rows and values present.
    pub levels: usize,
    pub rows: usize,
    pub present: usize,
}

/// Where a piece of up to `rows` rows of the levels `def` and `rep` (starting a row) ends:
/// where its `rows + 1`-th row starts, or the levels' end if none does.
pub(crate) fn piece_cut(def: &[i16], rep: &[i16], rows: usize, shape: &ListShape) -> PieceCut {
    // 64 levels at a time, their row starts and values present as bits.
    let (mut taken, mut present) = (0, 0);
    for (block, (r, d)) in rep.chunks(64).zip(def.chunks(64)).enumerate() {
        let (starts, values) = block_bits(r, d, shape.max);
        let started = starts.count_ones() as usize;
        if taken + started <= rows {
            taken += started;
            present += values.count_ones() as usize;
            continue;
        }
        // The (rows - taken)-th start of the block (from 0) starts the next piece.
        let mut later = starts;
        for _ in 0..rows - taken {
            later &= later - 1;
        }
        let at = later.trailing_zeros() as usize;
        present += (values & ((1u64 << at) - 1)).count_ones() as usize;
        return PieceCut {
            levels: 64 * block + at,
            rows,
            present,
        };
    }
    PieceCut {
        levels: rep.len(),
        rows: taken,
        present,
    }
}

/// The `rows` rows of levels `def` and `rep` (starting a row) as a list array, the elements
/// present being the dictionary entries `ids` (`gather` gives their values).
pub(crate) fn list_of_ids(
    def: &[i16],
    rep: &[i16],
    rows: usize,
    ids: &[u32],
    gather: impl FnOnce(&[u32]) -> Result<Values, ArrowError>,
    shape: &ListShape,
) -> Result<ArrayRef, ArrowError> {
    let mut values = gather(ids)?;
    list_of_levels(def, rep, rows, &mut values, shape)
}

/// A list page's levels, before it is fed a piece at a time: as many repetition as definition
/// levels, a row starting on the page. Returns the page's rows.
pub(crate) fn check_list_page(def: &[i16], rep: &[i16]) -> Result<usize, ArrowError> {
    check_levels(def, rep)?;
    Ok(rep.iter().filter(|&&r| r == 0).count())
}

/// A list page fed whole: its elements present (`place.value`) took all of its `indices`.
pub(crate) fn check_list_page_end(place: &ListPlace, indices: usize) -> Result<(), ArrowError> {
    if place.value != indices {
        return Err(ArrowError::ParquetError(format!(
            "{indices} dictionary indices for {} values present",
            place.value
        )));
    }
    Ok(())
}

/// The list array of `shape` over `child`, with `offsets` (non-decreasing, the last one the
/// elements' count) as i64 or i32 ones; offsets past i32 for a List are an error.
fn list_of(
    shape: &ListShape,
    offsets: Vec<usize>,
    child: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef, ArrowError> {
    if shape.large {
        let offsets = offsets.into_iter().map(|o| o as i64).collect();
        return list_array::<i64>(shape, offsets, child, nulls);
    }
    if offsets
        .last()
        .is_some_and(|&last| i32::try_from(last).is_err())
    {
        return Err(ArrowError::ParquetError(
            "a page's list offsets pass i32".into(),
        ));
    }
    // Each offset is at most the last, which fits.
    let offsets = offsets.into_iter().map(|o| o as i32).collect();
    list_array::<i32>(shape, offsets, child, nulls)
}

/// The rows `mask` selects of a list page whose elements are dictionary-encoded byte arrays
/// (Utf8, Binary and their large forms): `data` holds the page's levels (emptied here),
/// `indices` the dictionary index of each element present. Offsets, validity and elements are
/// made for the selected rows only, and only their elements' bytes gathered (`gather` gives
/// the byte arrays of the ids it is given). Returns the array of the selected rows (wrapped in
/// the shape's structs, if any). The page must start a row.
pub(crate) fn take_list_selected(
    data: &mut ColumnData,
    indices: &[u32],
    gather: impl FnOnce(&[u32]) -> Result<ByteArrays, ArrowError>,
    mask: &BooleanBuffer,
    shape: &ListShape,
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
    // A list of structs' leaf: each element's level.
    let struct_levels_kept = shape.keeps_struct_levels();
    let mut struct_levels = Vec::new();
    let mut ids = Vec::with_capacity(selected);
    // Inside structs: each selected row's first level, for the structs' validity.
    let mut row_levels = Vec::new();
    let (mut row, mut take, mut elements, mut value) = (0, false, 0usize, 0usize);
    let (mask_bits, mask_offset) = (mask.values(), mask.offset());
    // Where rows start and values are present, a bit per level.
    let (row_starts, values_present): (Vec<u64>, Vec<u64>) = rep
        .chunks(64)
        .zip(def.chunks(64))
        .map(|(r, d)| block_bits(r, d, shape.max))
        .unzip();
    let mut at = 0;
    while at < def.len() {
        if !take {
            // Outside a selected row: the next levels, to the end of their 64-level word at
            // most, up to the start of the next selected row (most words hold none, and are
            // passed over whole).
            let (word, bit) = (at / 64, at % 64);
            let len = (def.len() - at).min(64 - bit);
            let starts = row_starts[word] >> bit;
            let present = values_present[word] >> bit;
            let started = starts.count_ones() as usize;
            let selected = bits_at(mask_bits, mask_offset + row, started);
            if selected == 0 {
                row += started;
                value += present.count_ones() as usize;
                at += len;
                continue;
            }
            // The first selected row starting in the block: the how-manyth start, and where.
            let nth = selected.trailing_zeros() as usize;
            let mut later = starts;
            for _ in 0..nth {
                later &= later - 1;
            }
            let start = later.trailing_zeros() as usize;
            row += nth;
            value += (present & ((1u64 << start) - 1)).count_ones() as usize;
            at += start;
        }
        let (d, r) = (def[at], rep[at]);
        if r == 0 {
            // `row` counts the rows started so far: this row's index is `row`.
            take = mask.value(row);
            row += 1;
            if take {
                offsets.push(elements);
                list_valid.append(d >= shape.list_defined);
                if !shape.parents.is_empty() {
                    row_levels.push(d);
                }
            }
        }
        if take && d >= shape.element {
            elements += 1;
            if element_nullable {
                element_valid.append(d == shape.max);
            }
            if struct_levels_kept {
                struct_levels.push(d);
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
        at += 1;
    }
    if value != indices.len() {
        return Err(ArrowError::ParquetError(format!(
            "{} dictionary indices for {value} values present",
            indices.len()
        )));
    }
    offsets.push(elements);
    let mut values = Values::Bytes(gather(&ids)?);
    let validity = element_nullable.then(|| element_valid.finish());
    let leaf_type = shape.leaf().data_type();
    let leaf = take_values(&mut values, validity, elements, leaf_type)?;
    let child = element_of(shape, leaf, &struct_levels)?;
    let nulls = (shape.list_defined > 0)
        .then(|| NullBuffer::new(list_valid.finish()))
        .filter(|n| n.null_count() > 0);
    let array = list_of(shape, offsets, child, nulls)?;
    if shape.parents.is_empty() {
        return Ok(array);
    }
    let nulls = struct_nulls(&shape.parents, &row_levels, row_levels.len());
    wrap_in_structs(array, &shape.parents, nulls)
}

/// Of up to 64 levels: a bit per level where a row starts (repetition level 0), and a bit per
/// level where a value is present (definition level `max`).
fn block_bits(rep: &[i16], def: &[i16], max: i16) -> (u64, u64) {
    // A byte of 0 or 1 per level (compares that vectorise over a whole block), then each
    // eight bytes' low bits gathered into one byte by a multiply (level j's bit lands at bit
    // 56 + j): a shift per level did not vectorise.
    fn gather8(bytes: &[u8]) -> u64 {
        let word = u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
        word.wrapping_mul(0x0102_0408_1020_4080) >> 56
    }
    let (mut s, mut p) = ([0u8; 64], [0u8; 64]);
    match (<&[i16; 64]>::try_from(rep), <&[i16; 64]>::try_from(def)) {
        (Ok(rep), Ok(def)) => {
            for j in 0..64 {
                s[j] = u8::from(rep[j] == 0);
                p[j] = u8::from(def[j] == max);
            }
        }
        _ => {
            for (j, (&r, &d)) in rep.iter().zip(def).take(64).enumerate() {
                s[j] = u8::from(r == 0);
                p[j] = u8::from(d == max);
            }
        }
    }
    let (mut starts, mut present) = (0u64, 0u64);
    for group in 0..8 {
        let bytes = 8 * group..8 * group + 8;
        starts |= gather8(&s[bytes.clone()]) << (8 * group);
        present |= gather8(&p[bytes]) << (8 * group);
    }
    (starts, present)
}

/// `n` (at most 64) bits of `bits` from bit `at` on, the first in the lowest bit; bits past
/// the end of `bits` are 0.
fn bits_at(bits: &[u8], at: usize, n: usize) -> u64 {
    let mut window = [0u8; 16];
    let from = (at / 8).min(bits.len());
    let to = (from + 9).min(bits.len());
    window[..to - from].copy_from_slice(&bits[from..to]);
    let all = u128::from_le_bytes(window) >> (at % 8);
    let low = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    (all as u64) & low
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parquet::tests::xorshift;

    #[test]
    fn block_bits_and_bits_at_match_a_bit_at_a_time() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        for len in [0, 1, 7, 8, 9, 63, 64] {
            for _ in 0..50 {
                let rep: Vec<i16> = (0..len).map(|_| (next() % 3) as i16).collect();
                let def: Vec<i16> = (0..len).map(|_| (next() % 4) as i16).collect();
                let (starts, present) = block_bits(&rep, &def, 3);
                for i in 0..64 {
                    assert_eq!(starts >> i & 1 == 1, i < len && rep[i] == 0, "{len} {i}");
                    assert_eq!(present >> i & 1 == 1, i < len && def[i] == 3, "{len} {i}");
                }
            }
        }
        let bytes: Vec<u8> = (0..20).map(|_| next() as u8).collect();
        let bit = |i: usize| i < 160 && bytes[i / 8] >> (i % 8) & 1 == 1;
        for at in [0, 1, 7, 8, 13, 64, 100, 150, 159, 160, 200] {
            for n in [0, 1, 5, 63, 64] {
                let got = bits_at(&bytes, at, n);
                for i in 0..64 {
                    assert_eq!(got >> i & 1 == 1, i < n && bit(at + i), "{at} {n} {i}");
                }
            }
        }
    }

    #[test]
    fn a_page_fed_in_pieces_equals_the_page_taken_whole() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        // optional group l (LIST) { repeated group list { optional binary element (UTF8) } }
        let shape = ListShape {
            list_defined: 1,
            element: 2,
            max: 3,
            child: Arc::new(arrow_schema::Field::new("element", DataType::Utf8, true)),
            large: false,
            members: Vec::new(),
            parents: Vec::new(),
            inner: None,
        };
        let dictionary: ByteArrays = ["a", "bb", "", "dddd", "eeeeeeeeeeeeeeeeeeeee"]
            .iter()
            .map(|w| w.as_bytes())
            .collect();
        let gather = |ids: &[u32]| {
            let mut out = ByteArrays::new();
            qpl_fallback::parquet::dictionary::gather_byte_arrays(ids, &dictionary, &mut out)
                .map_err(|e| ArrowError::ParquetError(e.to_string()))?;
            Ok(out)
        };
        // Rows of a null list, an empty one, or up to 70 elements (null or present): pieces
        // end inside and across 64-level blocks.
        let (mut def, mut rep, mut indices) = (Vec::new(), Vec::new(), Vec::new());
        let rows = 500;
        for _ in 0..rows {
            match next() % 5 {
                0 => (def.push(0), rep.push(0)),
                1 => (def.push(1), rep.push(0)),
                _ => {
                    let n = 1 + next() % if next().is_multiple_of(8) { 70 } else { 3 };
                    for i in 0..n {
                        let present = !next().is_multiple_of(4);
                        def.push(if present { 3 } else { 2 });
                        rep.push(i16::from(i > 0));
                        if present {
                            indices.push((next() % 5) as u32);
                        }
                    }
                    ((), ())
                }
            };
        }
        let mut whole = ColumnData {
            def_levels: def.clone(),
            rep_levels: rep.clone(),
            values: Values::Bytes(gather(&indices).unwrap()),
        };
        let (expected, taken) = take_list(&mut whole, &shape).unwrap();
        assert_eq!(taken, rows);
        assert_eq!(check_list_page(&def, &rep).unwrap(), rows);
        for piece in [1, 2, 5, 63, 64, 65, 200, 499, 500, 8192] {
            let mut place = ListPlace::default();
            let mut pieces = Vec::new();
            while place.row < rows {
                let before = place.row;
                let array = list_piece(&def, &rep, &indices, &mut place, piece, gather, &shape);
                let array = array.unwrap();
                assert_eq!(array.len(), piece.min(rows - before), "piece {piece}");
                assert_eq!(place.row, before + array.len());
                pieces.push(array);
            }
            check_list_page_end(&place, indices.len()).unwrap();
            let refs: Vec<&dyn arrow_array::Array> = pieces.iter().map(|a| a.as_ref()).collect();
            let fed = arrow_select::concat::concat(&refs).unwrap();
            assert_eq!(fed.as_ref(), expected.as_ref(), "pieces of {piece} rows");
        }
        // Indices that lie: too few fail the piece that needs the missing ones, too many the
        // page's end.
        let mut place = ListPlace::default();
        let short = &indices[..indices.len() - 1];
        let mut result = Ok(());
        while place.row < rows && result.is_ok() {
            result = list_piece(&def, &rep, short, &mut place, 100, gather, &shape).map(drop);
        }
        assert!(result.is_err());
        let mut place = ListPlace::default();
        let mut long = indices.clone();
        long.push(0);
        while place.row < rows {
            list_piece(&def, &rep, &long, &mut place, 100, gather, &shape).unwrap();
        }
        assert!(check_list_page_end(&place, long.len()).is_err());
    }

    #[test]
    fn a_list_of_lists_takes_its_inner_lists_from_the_levels_that_start_them() {
        use arrow_array::cast::AsArray;
        use arrow_array::types::Int32Type;
        use arrow_array::Array;
        // optional group ll (LIST) { repeated group list { optional group element (LIST) {
        // repeated group list { optional int32 element } } } }: levels 1 outer list, 2 outer
        // element, 3 inner list, 4 inner element, 5 a value.
        let field =
            |name: &str, data_type| Arc::new(arrow_schema::Field::new(name, data_type, true));
        let inner = ListShape {
            list_defined: 3,
            element: 4,
            max: 5,
            child: field("element", DataType::Int32),
            large: false,
            members: Vec::new(),
            parents: Vec::new(),
            inner: None,
        };
        let outer = ListShape {
            list_defined: 1,
            element: 2,
            max: 5,
            child: field("element", inner.data_type()),
            large: false,
            members: Vec::new(),
            parents: Vec::new(),
            inner: Some(Box::new(inner)),
        };
        // [[1, 2], [], null], null, [], [[null]]
        let def = vec![5, 5, 3, 2, 0, 1, 4];
        let rep = vec![0, 2, 1, 1, 0, 0, 0];
        let mut data = ColumnData {
            def_levels: def.clone(),
            rep_levels: rep.clone(),
            values: Values::Int32(vec![1, 2]),
        };
        let (array, rows) = take_list(&mut data, &outer).unwrap();
        assert_eq!(rows, 4);
        let lists = array.as_list::<i32>();
        assert_eq!(lists.value_offsets(), [0, 3, 3, 3, 4]);
        let valid: Vec<bool> = (0..4).map(|i| lists.is_valid(i)).collect();
        assert_eq!(valid, [true, false, true, true]);
        let inner = lists.values().as_list::<i32>();
        assert_eq!(inner.value_offsets(), [0, 2, 2, 2, 3]);
        let valid: Vec<bool> = (0..4).map(|i| inner.is_valid(i)).collect();
        assert_eq!(valid, [true, true, false, true]);
        let values = inner.values().as_primitive::<Int32Type>();
        let values: Vec<Option<i32>> = values.iter().collect();
        assert_eq!(values, [Some(1), Some(2), None]);
        // A level that repeats the outer list (1) but defines no element of it is refused.
        let mut data = ColumnData {
            def_levels: vec![5, 1],
            rep_levels: vec![0, 1],
            values: Values::Int32(vec![1]),
        };
        let e = take_list(&mut data, &outer).unwrap_err().to_string();
        assert!(e.contains("defines no element"), "{e}");
    }
}
