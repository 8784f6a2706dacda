//! The structs a nested leaf's arrays are wrapped in: each struct's validity from the
//! definition levels of the rows (or list elements) it holds, one level per slot.

use std::sync::Arc;

use arrow_array::{ArrayRef, StructArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef};

use crate::parquet::validity::{level_word, LevelTest};

/// A struct a leaf is inside: the struct is non-null from level `defined` on (0: never
/// null); `child` is its field on the leaf's path (the leaf's own field, or a struct holding
/// only the leaf's path).
#[derive(Clone, Debug)]
pub(crate) struct StructParent {
    pub defined: i16,
    pub child: FieldRef,
}

/// Each of `parents`' validity over `slots` slots whose definition levels are `levels`
/// (`None` where none is null). A struct never null (level 0) reads no level: a column
/// without definition levels has none.
pub(crate) fn struct_nulls(
    parents: &[StructParent],
    levels: &[i16],
    slots: usize,
) -> Vec<Option<NullBuffer>> {
    parents
        .iter()
        .map(|parent| {
            (parent.defined > 0)
                .then(|| NullBuffer::new(levels_at_least(&levels[..slots], parent.defined)))
                .filter(|n| n.null_count() > 0)
        })
        .collect()
}

/// A bit per level of `levels`, set where it is `min` or more (64 levels to a word:
/// [`level_word`]).
fn levels_at_least(levels: &[i16], min: i16) -> BooleanBuffer {
    let at_least = LevelTest::AtLeast(min);
    let chunks = levels.chunks_exact(64);
    let tail = chunks.remainder();
    let mut words: Vec<u64> = chunks.map(|chunk| level_word(chunk, at_least)).collect();
    if !tail.is_empty() {
        let mut last = [0i16; 64];
        last[..tail.len()].copy_from_slice(tail);
        words.push(level_word(&last, at_least) & (u64::MAX >> (64 - tail.len())));
    }
    BooleanBuffer::new(Buffer::from_vec(words), 0, levels.len())
}

/// `array` wrapped in `parents` (outermost first) with their validity `nulls`
/// ([`struct_nulls`]), from the innermost struct out.
pub(crate) fn wrap_in_structs(
    mut array: ArrayRef,
    parents: &[StructParent],
    nulls: Vec<Option<NullBuffer>>,
) -> Result<ArrayRef, ArrowError> {
    for (parent, nulls) in parents.iter().zip(nulls).rev() {
        array = Arc::new(StructArray::try_new(
            vec![Arc::clone(&parent.child)].into(),
            vec![array],
            nulls,
        )?);
    }
    Ok(array)
}

/// The structs a flat leaf of field `field` is wrapped in, outermost first. `outer` holds,
/// from the top-level struct down, each struct's defined level and its field on the leaf's
/// path (a struct); the innermost struct, non-null from `defined` on, holds `field`. Each
/// wrapper holds only the leaf's path: `{p: {x}}` for leaf `x` of struct `p` in `s`.
pub(crate) fn chain(
    outer: &[(i16, arrow_schema::FieldRef)],
    defined: i16,
    field: &arrow_schema::FieldRef,
) -> Vec<StructParent> {
    let mut parents = vec![StructParent {
        defined,
        child: Arc::clone(field),
    }];
    for (defined, struct_field) in outer.iter().rev() {
        let narrowed = arrow_schema::Field::new(
            struct_field.name(),
            DataType::Struct(vec![Arc::clone(&parents[0].child)].into()),
            struct_field.is_nullable(),
        );
        parents.insert(
            0,
            StructParent {
                defined: *defined,
                child: Arc::new(narrowed),
            },
        );
    }
    parents
}
