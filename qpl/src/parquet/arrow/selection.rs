//! Which rows of the row groups read are returned: arrow-rs's [`RowSelection`] as runs, with
//! the offset and the limit applied, walked page by page.

use std::collections::VecDeque;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use parquet::arrow::arrow_reader::{RowSelection, RowSelector};

/// The rows to return, as runs over the rows of the row groups read (in order); `None`: all.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub runs: Option<Vec<RowSelector>>,
    /// Rows selected in all.
    pub selected: usize,
    /// Instead of `runs`: one bit a row (a row filter's result, whatever its shape).
    pub mask: Option<BooleanBuffer>,
}

impl Plan {
    /// `selection` (of `total` rows; `None`: all), then `offset` selected rows skipped, then at
    /// most `limit` kept, as arrow-rs's reader applies them.
    pub fn new(
        selection: Option<&RowSelection>,
        total: usize,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Plan {
        if selection.is_none() && offset.unwrap_or(0) == 0 && limit.is_none_or(|l| l >= total) {
            return Plan {
                runs: None,
                selected: total,
                mask: None,
            };
        }
        let runs: Vec<RowSelector> = match selection {
            Some(selection) => selection.iter().copied().collect(),
            None => vec![RowSelector::select(total)],
        };
        let mut to_skip = offset.unwrap_or(0);
        let mut to_take = limit.unwrap_or(usize::MAX);
        let mut out = Vec::with_capacity(runs.len() + 2);
        let mut selected = 0;
        for run in runs {
            if run.skip || run.row_count == 0 {
                out.push(RowSelector::skip(run.row_count));
                continue;
            }
            let skipped = run.row_count.min(to_skip);
            to_skip -= skipped;
            let taken = (run.row_count - skipped).min(to_take);
            to_take -= taken;
            selected += taken;
            if skipped > 0 {
                out.push(RowSelector::skip(skipped));
            }
            if taken > 0 {
                out.push(RowSelector::select(taken));
            }
            let rest = run.row_count - skipped - taken;
            if rest > 0 {
                out.push(RowSelector::skip(rest));
            }
        }
        Plan {
            runs: Some(out),
            selected,
            mask: None,
        }
    }

    /// The runs as arrow-rs's selection (for the columns its reader reads).
    pub fn row_selection(&self) -> Option<RowSelection> {
        match &self.mask {
            Some(mask) => Some(RowSelection::from_filters(&[mask.clone().into()])),
            None => self.runs.clone().map(RowSelection::from),
        }
    }

    /// A cursor at the first row.
    pub fn cursor(&self) -> Cursor {
        Cursor {
            runs: self.runs.clone().map(VecDeque::from),
            mask: self.mask.clone().map(|mask| (mask, 0)),
        }
    }

    /// The rows whose bit is set in `mask` (one bit a row of the row groups read).
    pub fn from_mask(mask: BooleanBuffer) -> Plan {
        Plan {
            runs: None,
            selected: mask.count_set_bits(),
            mask: Some(mask),
        }
    }
}

/// The rows of `total` that `selection` selects, one bit a row: rows past its end are not
/// selected, runs past `total` are cut.
pub(crate) fn selection_mask(selection: &RowSelection, total: usize) -> BooleanBuffer {
    let mut mask = BooleanBufferBuilder::new(total);
    for run in selection.iter() {
        let n = run.row_count.min(total - mask.len());
        mask.append_n(n, !run.skip);
    }
    mask.append_n(total - mask.len(), false);
    mask.finish()
}

/// What of the next rows is selected.
#[derive(Debug)]
pub(crate) enum Take {
    /// Every row.
    All,
    /// No row.
    None,
    /// The rows whose bit is set.
    Some(BooleanBuffer),
}

impl Take {
    /// `None` for no row; else the mask of the rows selected (`None`: every row).
    pub fn selected(self) -> Option<Option<BooleanBuffer>> {
        match self {
            Take::None => None,
            Take::All => Some(None),
            Take::Some(mask) => Some(Some(mask)),
        }
    }
}

/// Walks a [`Plan`] along the rows.
#[derive(Clone, Debug)]
pub(crate) struct Cursor {
    runs: Option<VecDeque<RowSelector>>,
    /// Instead of `runs`: the plan's bits and the next row's position in them.
    mask: Option<(BooleanBuffer, usize)>,
}

impl Cursor {
    /// Whether every row is selected (no selection at all).
    pub fn selects_all(&self) -> bool {
        self.runs.is_none() && self.mask.is_none()
    }

    /// Which of the next `n` rows are selected; moves past them. Rows past the selection's
    /// end are not selected (as arrow-rs reads them).
    pub fn take(&mut self, n: usize) -> Take {
        if let Some((mask, at)) = &mut self.mask {
            let start = (*at).min(mask.len());
            let end = start.saturating_add(n).min(mask.len());
            *at = start.saturating_add(n);
            let bits = mask.slice(start, end - start);
            let bits = if end - start < n {
                let mut padded = BooleanBufferBuilder::new(n);
                padded.append_buffer(&bits);
                padded.append_n(n - (end - start), false);
                padded.finish()
            } else {
                bits
            };
            return match bits.count_set_bits() {
                0 => Take::None,
                c if c == n => Take::All,
                _ => Take::Some(bits),
            };
        }
        let Some(runs) = &mut self.runs else {
            return Take::All;
        };
        // One run covering every row: no mask.
        match runs.front_mut() {
            None => return Take::None,
            Some(run) if run.row_count >= n => {
                run.row_count -= n;
                let skip = run.skip;
                if run.row_count == 0 {
                    runs.pop_front();
                }
                return if skip { Take::None } else { Take::All };
            }
            Some(_) => {}
        }
        let mut mask = BooleanBufferBuilder::new(n);
        let mut left = n;
        while left > 0 {
            let Some(run) = runs.front_mut() else {
                mask.append_n(left, false);
                break;
            };
            let k = run.row_count.min(left);
            mask.append_n(k, !run.skip);
            run.row_count -= k;
            left -= k;
            if run.row_count == 0 {
                runs.pop_front();
            }
        }
        let mask = mask.finish();
        match mask.count_set_bits() {
            0 => Take::None,
            c if c == n => Take::All,
            _ => Take::Some(mask),
        }
    }
}

/// Whether `selected`'s runs are short: fewer than 16 rows each on average.
pub(crate) fn fragmented(selected: &BooleanBuffer) -> bool {
    let mut runs = 0;
    let mut previous = 0u64;
    for word in selected.bit_chunks().iter_padded() {
        // A run starts at a set bit whose lower neighbour (the last word's top bit below
        // bit 0) is clear.
        runs += (word & !(word << 1 | previous >> 63)).count_ones() as usize;
        previous = word;
    }
    runs * 16 > selected.count_set_bits()
}

/// For the rows `selected` sets: the positions among the page's values of those with a value
/// (`validity`; `None`: every row), and their validity (`None`: every selected row has one).
pub(crate) fn selected_positions(
    validity: Option<&BooleanBuffer>,
    selected: &BooleanBuffer,
) -> (Vec<u32>, Option<BooleanBuffer>) {
    let mut positions = Vec::with_capacity(selected.count_set_bits());
    let mut base = 0u32;
    let Some(validity) = validity else {
        for (w, mut bits) in selected.bit_chunks().iter_padded().enumerate() {
            while bits != 0 {
                positions.push(64 * w as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        return (positions, None);
    };
    let mut valid = BooleanBufferBuilder::new(positions.capacity());
    let words = selected.bit_chunks().iter_padded();
    for (mut bits, present) in words.zip(validity.bit_chunks().iter_padded()) {
        while bits != 0 {
            let i = bits.trailing_zeros();
            let below = present & ((1u64 << i) - 1);
            let set = present >> i & 1 == 1;
            if set {
                positions.push(base + below.count_ones());
            }
            valid.append(set);
            bits &= bits - 1;
        }
        base += present.count_ones();
    }
    let valid = valid.finish();
    let all = valid.count_set_bits() == valid.len();
    (positions, (!all).then_some(valid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_runs_are_fragmented_long_ones_not() {
        let short = BooleanBuffer::from_iter((0..640).map(|i| i % 3 == 0));
        let long = BooleanBuffer::from_iter((0..640).map(|i| i % 128 < 100));
        assert!(fragmented(&short));
        assert!(!fragmented(&long));
        let (positions, valid) = selected_positions(
            Some(&BooleanBuffer::from_iter((0..70).map(|i| i % 2 == 0))),
            &BooleanBuffer::from_iter((0..70).map(|i| !(3..64).contains(&i))),
        );
        // Rows 0, 2, 64, 66, 68 have values 0, 1, 32, 33, 34; rows 1, 65, 67, 69 are null.
        assert_eq!(positions, [0, 1, 32, 33, 34]);
        let valid: Vec<bool> = valid.unwrap().iter().collect();
        assert_eq!(
            valid,
            [true, false, true, true, false, true, false, true, false]
        );
    }

    fn selected(plan: &Plan, total: usize) -> Vec<usize> {
        let mut cursor = plan.cursor();
        let mut rows = Vec::new();
        for start in (0..total).step_by(3) {
            let n = 3.min(total - start);
            match cursor.take(n) {
                Take::All => rows.extend(start..start + n),
                Take::None => {}
                Take::Some(mask) => rows.extend(mask.set_indices().map(|i| start + i)),
            }
        }
        rows
    }

    #[test]
    fn a_mask_plan_takes_its_set_bits() {
        let bits: Vec<bool> = (0..50)
            .map(|i| i % 7 == 0 || (20..30).contains(&i))
            .collect();
        let plan = Plan::from_mask(BooleanBuffer::from(bits.clone()));
        assert_eq!(plan.selected, bits.iter().filter(|b| **b).count());
        let want: Vec<usize> = (0..50).filter(|&i| bits[i]).collect();
        assert_eq!(selected(&plan, 50), want);
        // The same rows as a run list, for arrow-rs's reader.
        let runs: Vec<usize> = plan
            .row_selection()
            .unwrap()
            .iter()
            .map(|r| r.row_count)
            .collect();
        assert_eq!(runs.iter().sum::<usize>(), 50);
    }

    #[test]
    fn offset_and_limit_apply_to_selected_rows() {
        let plan = Plan::new(None, 10, Some(2), Some(5));
        assert_eq!(plan.selected, 5);
        assert_eq!(selected(&plan, 10), [2, 3, 4, 5, 6]);
        let selection = RowSelection::from(vec![
            RowSelector::skip(1),
            RowSelector::select(3),
            RowSelector::skip(2),
            RowSelector::select(4),
        ]);
        let plan = Plan::new(Some(&selection), 10, Some(2), Some(3));
        assert_eq!(selected(&plan, 10), [3, 6, 7]);
        assert_eq!(plan.selected, 3);
        let plan = Plan::new(Some(&selection), 10, None, None);
        assert_eq!(selected(&plan, 10), [1, 2, 3, 6, 7, 8, 9]);
    }

    #[test]
    fn a_selection_as_bits_cuts_and_pads_to_the_total() {
        let selection = RowSelection::from(vec![
            RowSelector::skip(2),
            RowSelector::select(3),
            RowSelector::skip(1),
            RowSelector::select(10),
        ]);
        let bits = |mask: BooleanBuffer| mask.iter().collect::<Vec<bool>>();
        let want = [false, false, true, true, true, false, true, true];
        assert_eq!(bits(selection_mask(&selection, 8)), want);
        let short = RowSelection::from(vec![RowSelector::select(2)]);
        assert_eq!(bits(selection_mask(&short, 4)), [true, true, false, false]);
        // The same rows as the run-list plan selects.
        let plan = Plan::new(Some(&selection), 20, None, None);
        let mask = selection_mask(&selection, 20);
        assert_eq!(selected(&plan, 20), mask.set_indices().collect::<Vec<_>>());
        assert_eq!(plan.selected, mask.count_set_bits());
    }

    #[test]
    fn rows_past_the_selection_are_not_selected() {
        let selection = RowSelection::from(vec![RowSelector::select(4)]);
        let plan = Plan::new(Some(&selection), 10, None, None);
        assert_eq!(selected(&plan, 10), [0, 1, 2, 3]);
        assert!(Plan::new(None, 10, None, Some(10)).runs.is_none());
    }
}
