//! Which of DataFusion's filters the scan evaluates itself, and how they become the reader's
//! [`RowFilter`] for one file.
//!
//! A filter is *pushed* (DataFusion drops its `FilterExec` for it) when it is one comparison
//! of a file column with a literal of the column's own type: `=`, `<>`, `<`, `<=`, `>`, `>=`,
//! `IN (…)` and `NOT IN (…)` of literals. Conjunctions arrive split (`a = 1 AND b < 2` is two
//! filters; `BETWEEN` is two comparisons). Column types: signed integers, `UInt8`/`UInt16`,
//! `Date32`, times and timestamps in ms/µs/ns, decimals, strings and binary (every Arrow flavour),
//! booleans (`=`, `<>`, `IN` only). Not pushed: types whose stored value is not the Arrow
//! value (`Date64`, seconds timestamps and times, which arrow-rs stores as milliseconds),
//! floats (the query API treats `-0.0` as
//! `0.0` and `NaN` as unequal to itself, Arrow's kernels order them totally), `UInt32`/
//! `UInt64` (stored as signed Parquet integers, so their order differs), partition columns,
//! nested fields, anything with a function or a cast on the column.
//!
//! For each file, a pushed filter becomes a query-API [`Predicate`] on its Parquet leaf
//! ([`file_row_filter`]), evaluated by `query::filter` before any other column is decoded
//! (dictionary chunks by index scans on the `Path`). Comparisons on one column merge into
//! one `Range` (`x >= 5 AND x <= 7` is one pass over the chunk); `x < v` on integers is
//! `x <= v - 1`. A pushed filter that cannot be said that way for this file (its column
//! stored in another physical type, a string `>`, a literal out of the stored type's range)
//! is still evaluated inside the scan, on the decoded batch, with DataFusion's own kernels
//! ([`FileRowFilter::residual`]): the rows are the same either way.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Schema, TimeUnit};
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Operator;
use datafusion::parquet::basic::{Repetition, Type as PhysicalType};
use datafusion::parquet::schema::types::SchemaDescriptor;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, InListExpr, Literal};
use datafusion::physical_expr::utils::split_disjunction;
use datafusion::physical_expr::{split_conjunction, PhysicalExpr};
use qpl_rs::parquet::arrow::RowFilter;
use qpl_rs::parquet::query::{Predicate, Scalar};

/// `NOT IN` lists longer than this are not pushed: each value is one more pass.
const MAX_NOT_IN: usize = 4;

/// A comparison of a column with literals, as the scan understands it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Comparison {
    /// The column's index in the schema the expression was written against.
    pub column: usize,
    /// The column's name.
    pub name: String,
    /// What is compared.
    pub test: Test,
}

/// The comparison itself; the values are of the column's type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Test {
    /// `=`, `<>`, `<`, `<=`, `>`, `>=` with the column on the left.
    Compare(Operator, ScalarValue),
    /// `IN (…)`, or `NOT IN (…)` when `negated`.
    In(Vec<ScalarValue>, bool),
    /// Within a range (from an `OR` of ranges: [`disjunction`]).
    Between(Between),
}

/// `expr` as a comparison of a column of `schema` with literals of its type, if it is one
/// (an `OR` of one column's comparisons included: [`disjunction`]).
pub(crate) fn comparison(expr: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Option<Comparison> {
    match expr.downcast_ref::<BinaryExpr>() {
        Some(binary) if *binary.op() == Operator::Or => disjunction(expr, schema),
        _ => single(expr, schema),
    }
}

/// An `OR` of comparisons of one column, said as one comparison where that is exact: equalities
/// only as `IN` (DataFusion writes a short `IN` list so: TPC-H Q19's `l_shipmode IN ('AIR',
/// 'AIR REG')` reaches the scan as `l_shipmode = AIR OR l_shipmode = AIR REG`), and ranges
/// whose union is one range as that range (Q19's `l_quantity >= 1 AND l_quantity <= 11 OR
/// l_quantity >= 10 AND l_quantity <= 20 OR l_quantity >= 20 AND l_quantity <= 30` is
/// `l_quantity BETWEEN 1 AND 30`). Ranges with a gap between them, a union without either end
/// (it would keep every non-null row, which a range cannot say), and terms on other columns
/// or of other kinds (`<>`, `IN`) give none.
fn disjunction(expr: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Option<Comparison> {
    let mut column: Option<(usize, String)> = None;
    let mut ranges: Vec<Between> = Vec::new();
    for term in split_disjunction(expr) {
        let mut range = Between::default();
        for part in split_conjunction(term) {
            let c = single(part, schema)?;
            match &column {
                None => column = Some((c.column, c.name.clone())),
                Some((index, _)) if *index == c.column => {}
                Some(_) => return None,
            }
            let Test::Compare(op, v) = c.test else {
                return None;
            };
            range.narrow(op, v)?;
        }
        ranges.push(range);
    }
    let (column, name) = column?;
    let points: Option<Vec<ScalarValue>> = ranges.iter().map(Between::point).collect();
    let test = match points {
        Some(values) => Test::In(values, false),
        None => Test::Between(union(ranges)?),
    };
    Some(Comparison { column, name, test })
}

/// A range of one column: each end a value and whether it is included, `None` unbounded.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Between {
    /// The lower end.
    pub low: Option<(ScalarValue, bool)>,
    /// The upper end.
    pub high: Option<(ScalarValue, bool)>,
}

impl Between {
    /// The range narrowed by `column op v` (`=`, `<`, `<=`, `>`, `>=`); none for other
    /// operators or values that do not compare.
    fn narrow(&mut self, op: Operator, v: ScalarValue) -> Option<()> {
        let (low, high) = match op {
            Operator::Eq => (Some((v.clone(), true)), Some((v, true))),
            Operator::GtEq => (Some((v, true)), None),
            Operator::Gt => (Some((v, false)), None),
            Operator::LtEq => (None, Some((v, true))),
            Operator::Lt => (None, Some((v, false))),
            _ => return None,
        };
        for (end, kept, inward) in [(low, &mut self.low, LOWER), (high, &mut self.high, UPPER)] {
            if let Some(end) = end {
                *kept = Some(match kept.take() {
                    Some(old) if tighter(&old, &end, inward)? => old,
                    _ => end,
                });
            }
        }
        Some(())
    }

    /// The one value the range holds, when it is `= v`.
    fn point(&self) -> Option<ScalarValue> {
        match (&self.low, &self.high) {
            (Some((low, true)), Some((high, true))) if low == high => Some(low.clone()),
            _ => None,
        }
    }
}

/// The way a lower end moves to keep less: up.
const LOWER: std::cmp::Ordering = std::cmp::Ordering::Greater;
/// The way an upper end moves to keep less: down.
const UPPER: std::cmp::Ordering = std::cmp::Ordering::Less;

/// Whether the range end `a` keeps no more than `b` does, both lower ends (`inward` is
/// [`LOWER`]) or both upper ends ([`UPPER`]); at one value, an excluded end keeps less.
fn tighter(
    a: &(ScalarValue, bool),
    b: &(ScalarValue, bool),
    inward: std::cmp::Ordering,
) -> Option<bool> {
    let order = a.0.partial_cmp(&b.0)?;
    Some(match order {
        std::cmp::Ordering::Equal => !a.1 || b.1,
        _ => order == inward,
    })
}

/// The union of `ranges` when it is one range with at least one end; none when two of them
/// leave a gap between them. An empty range (`x >= 5 AND x <= 3`) never joins a gap-free
/// union it does not belong to: sorted by lower end, it either lies inside the range before
/// it or leaves a gap.
fn union(mut ranges: Vec<Between>) -> Option<Between> {
    // Unbounded lower ends first, then by value (an included end before an excluded one).
    let mut failed = false;
    ranges.sort_by(|a, b| match (&a.low, &b.low) {
        (None, None) => std::cmp::Ordering::Equal,
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (Some(x), Some(y)) => match x.0.partial_cmp(&y.0) {
            Some(std::cmp::Ordering::Equal) => y.1.cmp(&x.1),
            Some(order) => order,
            None => {
                failed = true;
                std::cmp::Ordering::Equal
            }
        },
    });
    if failed {
        return None;
    }
    let mut ranges = ranges.into_iter();
    let mut joined = ranges.next()?;
    for next in ranges {
        // `next` starts no lower than `joined`: they join when `next` starts inside it or
        // where it ends, that point kept by one of them.
        let touches = match (&joined.high, &next.low) {
            (None, _) => true,
            (Some(_), None) => true,
            (Some((end, kept_end)), Some((start, kept_start))) => match end.partial_cmp(start)? {
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Equal => *kept_end || *kept_start,
                std::cmp::Ordering::Less => false,
            },
        };
        if !touches {
            return None;
        }
        joined.high = match (joined.high.take(), next.high) {
            (None, _) | (_, None) => None,
            (Some(a), Some(b)) => Some(if tighter(&a, &b, UPPER)? { b } else { a }),
        };
    }
    (joined.low.is_some() || joined.high.is_some()).then_some(joined)
}

/// `expr` as one comparison (not an `OR`) of a column of `schema` with literals of its type.
fn single(expr: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Option<Comparison> {
    let (column, test) = if let Some(binary) = expr.downcast_ref::<BinaryExpr>() {
        let (column, literal, op) = match (
            binary.left().downcast_ref::<Column>(),
            binary.right().downcast_ref::<Literal>(),
            binary.left().downcast_ref::<Literal>(),
            binary.right().downcast_ref::<Column>(),
        ) {
            (Some(column), Some(literal), _, _) => (column, literal, *binary.op()),
            (_, _, Some(literal), Some(column)) => (column, literal, binary.op().swap()?),
            _ => return None,
        };
        use Operator::*;
        if !matches!(op, Eq | NotEq | Lt | LtEq | Gt | GtEq) {
            return None;
        }
        (column, Test::Compare(op, literal.value().clone()))
    } else if let Some(in_list) = expr.downcast_ref::<InListExpr>() {
        let column = in_list.expr().downcast_ref::<Column>()?;
        let values = in_list
            .list()
            .iter()
            .map(|e| e.downcast_ref::<Literal>().map(|l| l.value().clone()))
            .collect::<Option<Vec<_>>>()?;
        if in_list.negated() && values.len() > MAX_NOT_IN {
            return None;
        }
        (column, Test::In(values, in_list.negated()))
    } else {
        return None;
    };
    let field = schema.fields().get(column.index())?;
    if field.name() != column.name() {
        return None;
    }
    let data_type = field.data_type();
    let ordered = match data_type {
        DataType::Boolean => false,
        t if pushable_ordered(t) => true,
        _ => return None,
    };
    let values: Vec<&ScalarValue> = match &test {
        Test::Compare(op, v) => {
            if !ordered && !matches!(op, Operator::Eq | Operator::NotEq) {
                return None;
            }
            vec![v]
        }
        Test::In(vs, _) => vs.iter().collect(),
        Test::Between(range) => {
            if !ordered {
                return None;
            }
            range
                .low
                .iter()
                .chain(&range.high)
                .map(|(v, _)| v)
                .collect()
        }
    };
    if values.is_empty()
        || values
            .iter()
            .any(|v| v.is_null() || &v.data_type() != data_type)
    {
        return None;
    }
    Some(Comparison {
        column: column.index(),
        name: column.name().to_string(),
        test,
    })
}

/// Ordered types whose order is their stored Parquet type's.
fn pushable_ordered(data_type: &DataType) -> bool {
    use DataType as D;
    matches!(
        data_type,
        D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::Date32
            | D::Time32(TimeUnit::Millisecond)
            | D::Time64(_)
            | D::Timestamp(
                TimeUnit::Millisecond | TimeUnit::Microsecond | TimeUnit::Nanosecond,
                _
            )
            | D::Decimal32(_, _)
            | D::Decimal64(_, _)
            | D::Decimal128(_, _)
            | D::Utf8
            | D::LargeUtf8
            | D::Utf8View
            | D::Binary
            | D::LargeBinary
            | D::BinaryView
    )
}

/// The pushed filters for one file: what the reader's [`RowFilter`] evaluates, and what is
/// left to evaluate on the decoded rows.
#[derive(Debug, Default)]
pub(crate) struct FileRowFilter {
    /// Evaluated by the reader before decoding.
    pub row_filter: RowFilter,
    /// Evaluated on each batch (in terms of the file's schema).
    pub residual: Vec<Arc<dyn PhysicalExpr>>,
}

/// Lower and upper bounds (inclusive) of one column, as stored values.
#[derive(Clone, Default)]
struct Bounds {
    low: Option<Scalar>,
    high: Option<Scalar>,
}

/// The pushed `filters` (written against `file_schema`, the file's Arrow schema as read)
/// for one file whose Parquet schema is `parquet`: a [`RowFilter`] for those the query API
/// can say, the rest as residual expressions.
pub(crate) fn file_row_filter(
    filters: &[Arc<dyn PhysicalExpr>],
    file_schema: &Schema,
    parquet: &SchemaDescriptor,
) -> FileRowFilter {
    let mut out = FileRowFilter::default();
    let mut bounds: BTreeMap<String, Bounds> = BTreeMap::new();
    for filter in filters {
        let said = comparison(filter, file_schema).and_then(|c| {
            let physical = root_leaf(parquet, c.column, &c.name)?;
            let data_type = file_schema.field(c.column).data_type();
            say(&c, data_type, physical, &mut bounds).map(|predicates| (c.name.clone(), predicates))
        });
        match said {
            Some((name, predicates)) => {
                for p in predicates {
                    out.row_filter = std::mem::take(&mut out.row_filter).and(name.clone(), p);
                }
            }
            None => out.residual.push(Arc::clone(filter)),
        }
    }
    for (name, Bounds { low, high }) in bounds {
        let predicate = match (low, high) {
            (Some(low), Some(high)) => Predicate::Range(low, high),
            (Some(low), None) => Predicate::Range(low.clone(), max_of(&low)),
            (None, Some(high)) => Predicate::Range(min_of(&high), high),
            (None, None) => continue,
        };
        out.row_filter = std::mem::take(&mut out.row_filter).and(name, predicate);
    }
    out
}

/// The physical type of the file column at root `index`, when it is one primitive leaf
/// named `name` (not a group, not repeated).
fn root_leaf(parquet: &SchemaDescriptor, index: usize, name: &str) -> Option<PhysicalType> {
    let root = parquet.root_schema().get_fields().get(index)?;
    let info = root.get_basic_info();
    let repeated = info.has_repetition() && info.repetition() == Repetition::REPEATED;
    if !root.is_primitive() || root.name() != name || repeated {
        return None;
    }
    let leaves: Vec<usize> = (0..parquet.num_columns())
        .filter(|&i| parquet.get_column_root_idx(i) == index)
        .collect();
    match leaves[..] {
        [leaf] => Some(parquet.column(leaf).physical_type()),
        _ => None,
    }
}

/// `c` as predicates on the stored values, or `None` when the query API cannot say it
/// exactly for this storage. Bounds (`<`, `<=`, `>`, `>=`) go to `bounds` instead.
fn say(
    c: &Comparison,
    data_type: &DataType,
    physical: PhysicalType,
    bounds: &mut BTreeMap<String, Bounds>,
) -> Option<Vec<Predicate>> {
    let stored = |v: &ScalarValue| stored(v, data_type, physical);
    match &c.test {
        Test::Compare(op, v) => {
            let v = stored(v)?;
            match op {
                Operator::Eq => return Some(vec![Predicate::Eq(v)]),
                Operator::NotEq => return Some(vec![Predicate::Ne(v)]),
                _ => bound(*op, v, bounds.entry(c.name.clone()).or_default())?,
            }
            Some(Vec::new())
        }
        Test::Between(range) => {
            // Both ends said before either narrows the column's bounds.
            let mut ends = Vec::new();
            if let Some((v, kept)) = &range.low {
                ends.push((
                    if *kept { Operator::GtEq } else { Operator::Gt },
                    stored(v)?,
                ));
            }
            if let Some((v, kept)) = &range.high {
                ends.push((
                    if *kept { Operator::LtEq } else { Operator::Lt },
                    stored(v)?,
                ));
            }
            let mut narrowed = bounds.get(&c.name).cloned().unwrap_or_default();
            for (op, v) in ends {
                bound(op, v, &mut narrowed)?;
            }
            bounds.insert(c.name.clone(), narrowed);
            Some(Vec::new())
        }
        Test::In(values, negated) => {
            let values = values.iter().map(stored).collect::<Option<Vec<_>>>()?;
            Some(if *negated {
                values.into_iter().map(Predicate::Ne).collect()
            } else {
                vec![Predicate::In(values)]
            })
        }
    }
}

/// `bounds` narrowed by `column op v` (`<`, `<=`, `>`, `>=`); none when the query API cannot
/// say it (a byte string's `<`, `>` or lower bound alone, an end past the stored type's).
fn bound(op: Operator, v: Scalar, bounds: &mut Bounds) -> Option<()> {
    let tighten_low = |b: &mut Bounds, v: Scalar| {
        b.low = Some(match b.low.take() {
            Some(old) if greater(&old, &v)? => old,
            _ => v,
        });
        Some(())
    };
    let tighten_high = |b: &mut Bounds, v: Scalar| {
        b.high = Some(match b.high.take() {
            Some(old) if greater(&v, &old)? => old,
            _ => v,
        });
        Some(())
    };
    match op {
        Operator::LtEq => tighten_high(bounds, v),
        Operator::GtEq => {
            // Byte strings have no largest value to close the range with.
            max_of_checked(&v)?;
            tighten_low(bounds, v)
        }
        Operator::Lt => tighten_high(bounds, step(&v, -1)?),
        Operator::Gt => tighten_low(bounds, step(&v, 1)?),
        _ => None,
    }
}

/// `v` as the value stored for a column of `data_type` in `physical`, when the stored
/// order and equality are the column's.
fn stored(v: &ScalarValue, data_type: &DataType, physical: PhysicalType) -> Option<Scalar> {
    use ScalarValue as S;
    if &v.data_type() != data_type {
        return None;
    }
    let int = |x: i128| match physical {
        PhysicalType::INT32 => i32::try_from(x).ok().map(Scalar::Int32),
        PhysicalType::INT64 => i64::try_from(x).ok().map(Scalar::Int64),
        _ => None,
    };
    match v {
        S::Int8(Some(x)) => int((*x).into()),
        S::Int16(Some(x)) => int((*x).into()),
        S::Int32(Some(x)) | S::Date32(Some(x)) => int((*x).into()),
        S::Time32Millisecond(Some(x)) => int((*x).into()),
        S::UInt8(Some(x)) => int((*x).into()),
        S::UInt16(Some(x)) => int((*x).into()),
        S::Int64(Some(x)) => int((*x).into()),
        S::Time64Microsecond(Some(x)) | S::Time64Nanosecond(Some(x)) => int((*x).into()),
        S::TimestampMillisecond(Some(x), _)
        | S::TimestampMicrosecond(Some(x), _)
        | S::TimestampNanosecond(Some(x), _) => int((*x).into()),
        S::Decimal32(Some(x), _, _) => int((*x).into()),
        S::Decimal64(Some(x), _, _) => int((*x).into()),
        S::Decimal128(Some(x), _, _) => int(*x),
        S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s)) => {
            (physical == PhysicalType::BYTE_ARRAY).then(|| Scalar::Bytes(s.as_bytes().to_vec()))
        }
        S::Binary(Some(b)) | S::LargeBinary(Some(b)) | S::BinaryView(Some(b)) => {
            (physical == PhysicalType::BYTE_ARRAY).then(|| Scalar::Bytes(b.clone()))
        }
        S::Boolean(Some(b)) => (physical == PhysicalType::BOOLEAN).then_some(Scalar::Boolean(*b)),
        _ => None,
    }
}

/// `a > b` for two stored values of one type.
fn greater(a: &Scalar, b: &Scalar) -> Option<bool> {
    Some(match (a, b) {
        (Scalar::Int32(a), Scalar::Int32(b)) => a > b,
        (Scalar::Int64(a), Scalar::Int64(b)) => a > b,
        (Scalar::Bytes(a), Scalar::Bytes(b)) => a > b,
        _ => return None,
    })
}

/// The next integer after (`by` 1) or before (`by` -1) `v`; none past the type's ends, and
/// none for byte strings (`x < 'b'` has no inclusive form).
fn step(v: &Scalar, by: i64) -> Option<Scalar> {
    match v {
        Scalar::Int32(x) => x.checked_add(by as i32).map(Scalar::Int32),
        Scalar::Int64(x) => x.checked_add(by).map(Scalar::Int64),
        _ => None,
    }
}

/// The smallest value of `v`'s type.
fn min_of(v: &Scalar) -> Scalar {
    match v {
        Scalar::Int32(_) => Scalar::Int32(i32::MIN),
        Scalar::Int64(_) => Scalar::Int64(i64::MIN),
        _ => Scalar::Bytes(Vec::new()),
    }
}

/// The largest value of `v`'s type, where it has one.
fn max_of_checked(v: &Scalar) -> Option<Scalar> {
    match v {
        Scalar::Int32(_) => Some(Scalar::Int32(i32::MAX)),
        Scalar::Int64(_) => Some(Scalar::Int64(i64::MAX)),
        _ => None,
    }
}

/// [`max_of_checked`] for the types a lower bound is accepted for.
fn max_of(v: &Scalar) -> Scalar {
    max_of_checked(v).unwrap_or_else(|| v.clone())
}
