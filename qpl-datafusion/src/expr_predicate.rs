//! DataFusion expressions as the reader's Arrow predicates: evaluated on batches of the
//! expression's own columns, before the rest of a row group is decoded (late
//! materialization, as DataFusion's scan does with `pushdown_filters`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use datafusion::arrow::array::{Array, BooleanArray, RecordBatch};
use datafusion::arrow::datatypes::Schema;
use datafusion::arrow::error::ArrowError;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::Result;
use datafusion::parquet::arrow::arrow_reader::ArrowPredicate;
use datafusion::parquet::arrow::ProjectionMask;
use datafusion::parquet::schema::types::SchemaDescriptor;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::PhysicalExpr;

/// Rows an [`ExprPredicate`] was asked about, and the rows it kept.
#[derive(Debug, Default)]
pub(crate) struct Selectivity {
    seen: AtomicUsize,
    kept: AtomicUsize,
}

impl Selectivity {
    /// Whether the predicate has kept more than half of at least `rows` rows seen.
    pub fn keeps_most_of(&self, rows: usize) -> bool {
        let seen = self.seen.load(Ordering::Relaxed);
        seen >= rows && 2 * self.kept.load(Ordering::Relaxed) > seen
    }
}

/// A boolean expression over a file's columns, as the reader's Arrow predicate: a row is
/// kept where it is true.
pub(crate) struct ExprPredicate {
    /// In terms of the batches the reader gives it (its columns, in file order).
    expr: Arc<dyn PhysicalExpr>,
    projection: ProjectionMask,
    selectivity: Arc<Selectivity>,
    /// Rows after which, if it kept most of them, the expression is no longer evaluated
    /// and every row is kept (an optional filter: an operator above applies it again).
    give_up_after: Option<usize>,
}

impl ExprPredicate {
    /// `expr` (in terms of `file_schema`, the file's Arrow schema as read, whose Parquet
    /// schema is `parquet`), or `None` when it refers to no column of the file (a constant).
    pub fn new(
        expr: &Arc<dyn PhysicalExpr>,
        file_schema: &Schema,
        parquet: &SchemaDescriptor,
        selectivity: Arc<Selectivity>,
    ) -> Result<Option<ExprPredicate>> {
        let columns = root_columns(expr, file_schema)?;
        if columns.is_empty() {
            return Ok(None);
        }
        let read = file_schema.project(&columns)?;
        let expr = reindex(Arc::clone(expr), &read)?;
        Ok(Some(ExprPredicate {
            expr,
            projection: ProjectionMask::roots(parquet, columns),
            selectivity,
            give_up_after: None,
        }))
    }

    /// This predicate as an optional one: once it has seen `rows` rows (counted in its
    /// [`Selectivity`], shared with others) and kept most of them, it keeps every row
    /// without evaluating.
    pub fn optional(mut self, rows: usize) -> ExprPredicate {
        self.give_up_after = Some(rows);
        self
    }
}

impl ArrowPredicate for ExprPredicate {
    fn projection(&self) -> &ProjectionMask {
        &self.projection
    }

    fn evaluate(&mut self, batch: RecordBatch) -> Result<BooleanArray, ArrowError> {
        let rows = batch.num_rows();
        if let Some(after) = self.give_up_after {
            if self.selectivity.keeps_most_of(after) {
                return Ok(BooleanArray::from(vec![true; rows]));
            }
        }
        let result = self
            .expr
            .evaluate(&batch)
            .and_then(|v| v.into_array(rows))
            .map_err(|e| ArrowError::ComputeError(format!("a pushed filter: {e}")))?;
        let keep = result
            .as_any()
            .downcast_ref::<BooleanArray>()
            .ok_or_else(|| {
                ArrowError::ComputeError(format!(
                    "a pushed filter gave {} values, not booleans",
                    result.data_type()
                ))
            })?
            .clone();
        self.selectivity.seen.fetch_add(rows, Ordering::Relaxed);
        self.selectivity
            .kept
            .fetch_add(keep.true_count(), Ordering::Relaxed);
        Ok(keep)
    }
}

/// The columns of `file_schema` that `expr` reads, sorted, each once.
pub(crate) fn root_columns(
    expr: &Arc<dyn PhysicalExpr>,
    file_schema: &Schema,
) -> Result<Vec<usize>> {
    let mut columns = Vec::new();
    expr.apply(|e| {
        if let Some(c) = e.downcast_ref::<Column>() {
            columns.push(file_schema.index_of(c.name())?);
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    columns.sort_unstable();
    columns.dedup();
    Ok(columns)
}

/// `expr`'s columns re-pointed, by name, at `schema`.
pub(crate) fn reindex(
    expr: Arc<dyn PhysicalExpr>,
    schema: &Schema,
) -> Result<Arc<dyn PhysicalExpr>> {
    expr.transform(|e| {
        if let Some(c) = e.downcast_ref::<Column>() {
            let index = schema.index_of(c.name())?;
            return Ok(Transformed::yes(Arc::new(Column::new(c.name(), index)) as _));
        }
        Ok(Transformed::no(e))
    })
    .data()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Int32Array;
    use datafusion::arrow::datatypes::{DataType, Field};
    use datafusion::logical_expr::Operator;
    use datafusion::parquet::arrow::ArrowSchemaConverter;
    use datafusion::physical_expr::expressions::{binary, col, lit};

    /// `a < 80` over batches of `a` = 0..100.
    fn predicate(schema: &Schema, selectivity: Arc<Selectivity>) -> ExprPredicate {
        let expr = binary(col("a", schema).unwrap(), Operator::Lt, lit(80), schema).unwrap();
        let parquet = ArrowSchemaConverter::new().convert(schema).unwrap();
        ExprPredicate::new(&expr, schema, &parquet, selectivity)
            .unwrap()
            .unwrap()
    }

    #[test]
    fn an_optional_predicate_stops_once_it_kept_most_rows() {
        let schema = Schema::new(vec![Field::new("a", DataType::Int32, false)]);
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![Arc::new(Int32Array::from_iter_values(0..100))],
        )
        .unwrap();
        let kept = |p: &mut ExprPredicate| p.evaluate(batch.clone()).unwrap().true_count();

        let mut optional = predicate(&schema, Arc::default()).optional(150);
        // 100 rows seen (under 150): evaluated again; 200 seen, 160 kept: no longer.
        assert_eq!(kept(&mut optional), 80);
        assert_eq!(kept(&mut optional), 80);
        assert_eq!(kept(&mut optional), 100);

        let mut required = predicate(&schema, Arc::default());
        for _ in 0..3 {
            assert_eq!(kept(&mut required), 80);
        }
        assert!(required.selectivity.keeps_most_of(300));
        assert!(!required.selectivity.keeps_most_of(301));
    }

    #[test]
    fn a_constant_is_no_predicate() {
        let schema = Schema::new(vec![Field::new("a", DataType::Int32, false)]);
        let parquet = ArrowSchemaConverter::new().convert(&schema).unwrap();
        let constant = lit(true);
        assert!(
            ExprPredicate::new(&constant, &schema, &parquet, Arc::default())
                .unwrap()
                .is_none()
        );
    }
}
