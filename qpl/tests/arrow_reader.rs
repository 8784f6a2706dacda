//! The Arrow reader (`qpl_rs::parquet::arrow`) against arrow-rs's, on files arrow-rs's writer
//! makes: every flat type the reader converts, required and nullable, dictionary and PLAIN,
//! pages v1 and v2, several pages and row groups; with batch sizes that cut pages, selections,
//! offsets, limits, projections, row groups and filters. Every batch must equal arrow-rs's.

use std::sync::Arc;

use arrow_array::builder::{
    Int32Builder, LargeListBuilder, ListBuilder, MapBuilder, StringBuilder,
};
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::LargeListArray;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Decimal128Array, Decimal256Array,
    FixedSizeBinaryArray, Float16Array, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, Int8Array, IntervalDayTimeArray, IntervalYearMonthArray, ListArray, RecordBatch,
    StringArray, StructArray, TimestampMicrosecondArray, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_buffer::{i256, IntervalDayTime};
use arrow_schema::{DataType, Field};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
    RowFilter as ArrowRsFilter, RowSelection, RowSelector,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use qpl_rs::parquet::arrow::{ParquetRecordBatchReaderBuilder, RowFilter};
use qpl_rs::parquet::query::{Predicate, Scalar};
use qpl_rs::Path;

/// A small deterministic generator (xorshift), so that files are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn null(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const ROWS: usize = 5_000;

type F16 = <arrow_array::types::Float16Type as arrow_array::ArrowPrimitiveType>::Native;

/// One batch with a column per flat type (required and nullable), plus nested columns (one,
/// a map of lists, that arrow-rs's reader reads for ours).
fn batch(seed: u64) -> RecordBatch {
    let mut r = Rng(seed);
    let n = ROWS;
    let opt = |r: &mut Rng, p: u64| !r.null(p);
    let i64s: Vec<i64> = (0..n as i64).map(|i| i * 3 + 1_000_000_000_000).collect();
    let keys: Vec<Option<i32>> = (0..n)
        .map(|_| opt(&mut r, 10).then(|| r.below(50) as i32))
        .collect();
    let words = ["alpha", "beta", "gamma", "", "delta epsilon zeta", "ω"];
    let strings: Vec<Option<&str>> = (0..n)
        .map(|_| opt(&mut r, 15).then(|| words[r.below(6) as usize]))
        .collect();
    let unique: Vec<String> = (0..n)
        .map(|i| format!("value-{}", i * 7919 % 10007))
        .collect();
    let binary: Vec<Option<Vec<u8>>> = (0..n)
        .map(|i| opt(&mut r, 5).then(|| vec![i as u8; i % 9]))
        .collect();
    let doubles: Vec<Option<f64>> = (0..n)
        .map(|_| opt(&mut r, 20).then(|| r.below(1000) as f64 / 7.0))
        .collect();
    let floats: Vec<f32> = (0..n).map(|_| r.below(100) as f32 - 50.5).collect();
    let bools: Vec<Option<bool>> = (0..n)
        .map(|_| opt(&mut r, 30).then(|| r.below(3) == 0))
        .collect();
    let bools_required: Vec<bool> = (0..n).map(|i| i % 7 < 3).collect();
    let small: Vec<Option<i8>> = (0..n)
        .map(|_| opt(&mut r, 10).then(|| r.below(256) as u8 as i8))
        .collect();
    let shorts: Vec<i16> = (0..n).map(|i| (i as i16).wrapping_mul(31)).collect();
    let bytes: Vec<u8> = (0..n).map(|i| (i * 13) as u8).collect();
    let u32s: Vec<Option<u32>> = (0..n)
        .map(|_| opt(&mut r, 5).then(|| r.next() as u32))
        .collect();
    let u64s: Vec<u64> = (0..n).map(|_| r.next()).collect();
    let dates: Vec<Option<i32>> = (0..n)
        .map(|_| opt(&mut r, 5).then(|| 18_000 + r.below(400) as i32))
        .collect();
    let stamps: Vec<Option<i64>> = (0..n)
        .map(|_| opt(&mut r, 5).then(|| 1_700_000_000_000_000 + r.below(1 << 40) as i64))
        .collect();
    let all_null: Vec<Option<i32>> = vec![None; n];
    let lists: Vec<Option<Vec<Option<i32>>>> = (0..n)
        .map(|_| opt(&mut r, 10).then(|| (0..r.below(4)).map(|v| Some(v as i32)).collect()))
        .collect();
    let list = ListArray::from_iter_primitive::<Int32Type, _, _>(lists);
    let mut names = ListBuilder::new(StringBuilder::new());
    for _ in 0..n {
        match r.below(10) {
            0 => names.append_null(),
            k => {
                for j in 0..k % 4 {
                    if r.null(10) {
                        names.values().append_null();
                    } else {
                        names.values().append_value(words[(j + k) as usize % 6]);
                    }
                }
                names.append(true);
            }
        }
    }
    let names = names.finish();
    let large = LargeListArray::from_iter_primitive::<Int64Type, _, _>((0..n).map(|i| {
        Some(
            (0..i % 3)
                .map(|v| Some(v as i64 * 1_000))
                .collect::<Vec<_>>(),
        )
    }));
    let inner = Arc::new(Int32Array::from_iter(
        (0..n).map(|i| (i % 3 != 0).then_some(i as i32)),
    ));
    let structs = StructArray::from(vec![(
        Arc::new(Field::new("x", DataType::Int32, true)),
        inner as ArrayRef,
    )]);
    let pair_valid: Vec<bool> = (0..n).map(|_| !r.null(20)).collect();
    let pair = StructArray::try_new(
        vec![
            Arc::new(Field::new("a", DataType::Int64, true)),
            Arc::new(Field::new("b", DataType::Utf8, false)),
        ]
        .into(),
        vec![
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 5 != 0).then_some(i as i64)),
            )),
            Arc::new(StringArray::from_iter_values((0..n).map(|i| words[i % 6]))),
        ],
        Some(pair_valid.into()),
    )
    .unwrap();
    // Stored as FIXED_LEN_BYTE_ARRAY: FLOAT16, a decimal too wide for INT64 (16 bytes) and a
    // 256-bit one, intervals (12 bytes).
    let halves = Float16Array::from_iter(
        (0..n).map(|i| (i % 9 != 0).then(|| F16::from_f32(i as f32 / 8.0 - 300.0))),
    );
    let wide = Decimal128Array::from_iter((0..n).map(|i| {
        (i % 13 != 0).then(|| (i as i128 - 2_500) * 1_000_000_000_000_000_007 * (i as i128 % 7))
    }))
    .with_precision_and_scale(38, 6)
    .unwrap();
    let huge = Decimal256Array::from_iter((0..n).map(|i| {
        (i % 4 != 1).then(|| i256::from_i128(i as i128 * 7_919 - 10_000_000) * i256::from(i64::MAX))
    }))
    .with_precision_and_scale(60, 10)
    .unwrap();
    let day_time = IntervalDayTimeArray::from_iter(
        (0..n)
            .map(|i| (i % 6 != 0).then(|| IntervalDayTime::new(i as i32 % 400, i as i32 * 1_000))),
    );
    let year_month: IntervalYearMonthArray = (0..n).map(|i| Some(i as i32 % 240)).collect();
    // Decimals stored as INT32 (precision 9) and INT64 (18), read as Decimal128: few
    // distinct values (dictionary pages) with nulls, and many.
    let cents = Decimal128Array::from_iter(
        (0..n).map(|_| opt(&mut r, 10).then(|| r.below(60) as i128 * 25 - 700)),
    )
    .with_precision_and_scale(9, 2)
    .unwrap();
    let prices = Decimal128Array::from_iter_values(
        (0..n).map(|i| (i as i128 * 7_919 % 1_000_003) * 1_000_000_007 - 3),
    )
    .with_precision_and_scale(18, 4)
    .unwrap();
    // Required decimals of few values stored as INT64 (precision 15, TPC-H's) and INT32 (9):
    // dictionary pages of 11 and 40 entries, whose rows come in long runs without nulls
    // (widened through a table of the dictionary's entries).
    let discount = Decimal128Array::from_iter_values((0..n).map(|_| r.below(11) as i128 - 3))
        .with_precision_and_scale(15, 2)
        .unwrap();
    let rate = Decimal128Array::from_iter_values((0..n).map(|_| r.below(40) as i128 * -1_234))
        .with_precision_and_scale(9, 3)
        .unwrap();
    // FixedSizeBinary: 16 random bytes with nulls (UUIDs), and 5 bytes of few values
    // (dictionary pages where the file has them).
    let uuids = FixedSizeBinaryArray::try_from_sparse_iter_with_size(
        (0..n).map(|_| {
            let (a, b) = (r.next(), r.next());
            (!r.null(10)).then(|| [a.to_le_bytes(), b.to_le_bytes()].concat())
        }),
        16,
    )
    .unwrap();
    let codes = FixedSizeBinaryArray::try_from_iter(
        (0..n).map(|_| (r.below(30) as u8..).take(5).collect::<Vec<u8>>()),
    )
    .unwrap();
    // Long runs of dictionary indices (a constant column, sorted ones with runs of nulls):
    // pieces inside one RLE run are filled with its entry, pieces across runs gathered.
    let constant = Int32Array::from(vec![0; n]);
    let sorted = Int64Array::from_iter(
        (0..n).map(|i| ((i / 2_100) % 3 != 1).then_some((i / 1_500) as i64 * 1_000_003)),
    );
    let sorted_cents = Decimal128Array::from_iter_values((0..n).map(|i| (i / 900) as i128 * 25))
        .with_precision_and_scale(15, 2)
        .unwrap();
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for i in 0..n {
        for (j, word) in words.iter().enumerate().take(i % 3) {
            map.keys().append_value(word);
            map.values().append_value((i * j) as i32);
        }
        map.append(i % 11 != 0).unwrap();
    }
    let map = map.finish();
    // Lists of lists: null and empty lists at both levels, null strings in large ones.
    let mut grid = LargeListBuilder::new(LargeListBuilder::new(StringBuilder::new()));
    for i in 0..n {
        for j in 0..(i + 1) % 4 {
            for k in 0..(i * j) % 3 {
                match (i + k) % 5 {
                    0 => grid.values().values().append_null(),
                    _ => grid.values().values().append_value(words[(i + k) % 6]),
                }
            }
            grid.values().append(j != 2 || i % 3 != 0);
        }
        grid.append(i % 9 != 4);
    }
    // A map inside a struct, null at both levels.
    let mut inner_map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for i in 0..n {
        for word in words.iter().take(i % 4) {
            inner_map.keys().append_value(word);
            inner_map.values().append_value(i as i32);
        }
        inner_map.append(i % 6 != 0).unwrap();
    }
    let inner_map = inner_map.finish();
    let holder = StructArray::try_new(
        vec![Arc::new(Field::new(
            "m",
            arrow_array::Array::data_type(&inner_map).clone(),
            true,
        ))]
        .into(),
        vec![Arc::new(inner_map) as ArrayRef],
        Some((0..n).map(|i| i % 8 != 0).collect()),
    )
    .unwrap();
    // Lists of three levels.
    let mut cube = ListBuilder::new(ListBuilder::new(ListBuilder::new(Int32Builder::new())));
    for i in 0..n {
        for j in 0..i % 3 {
            for k in 0..(i + j) % 3 {
                cube.values()
                    .values()
                    .values()
                    .append_value((i + j + k) as i32);
            }
            cube.values().values().append(i % 5 != j);
            cube.values().append(true);
        }
        cube.append(i % 4 != 0);
    }
    let mut nested = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
    for i in 0..n {
        for j in 0..i % 3 {
            for k in 0..(i + j) % 4 {
                nested.values().values().append_value((i * k) as i32);
            }
            nested.values().append(j != 1 || i % 5 != 0);
        }
        nested.append(i % 7 != 0);
    }
    // Lists of structs, read here a field at a time: nulls at the list, the struct and the
    // field levels; a required field in a nullable struct; a large list of required structs.
    let mut item_offsets = vec![0i32];
    let (mut skus, mut labels, mut item_valid) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        for j in 0..(i + 1) % 4 {
            skus.push((j != 2).then_some((i * 10 + j) as i32));
            labels.push(words[(i + j) % 6]);
            item_valid.push((i + j) % 5 != 1);
        }
        item_offsets.push(skus.len() as i32);
    }
    let item_fields: arrow_schema::Fields = vec![
        Arc::new(Field::new("sku", DataType::Int32, true)),
        Arc::new(Field::new("label", DataType::Utf8, false)),
    ]
    .into();
    let item_structs = StructArray::try_new(
        item_fields.clone(),
        vec![
            Arc::new(Int32Array::from(skus)),
            Arc::new(StringArray::from(labels)),
        ],
        Some(item_valid.into()),
    )
    .unwrap();
    let items = ListArray::try_new(
        Arc::new(Field::new("item", DataType::Struct(item_fields), true)),
        arrow_buffer::OffsetBuffer::new(item_offsets.into()),
        Arc::new(item_structs),
        Some((0..n).map(|i| i % 9 != 4).collect::<Vec<_>>().into()),
    )
    .unwrap();
    let point_fields: arrow_schema::Fields = vec![
        Arc::new(Field::new("x", DataType::Float64, false)),
        Arc::new(Field::new("y", DataType::Float64, true)),
    ]
    .into();
    let point_count = (0..n).map(|i| i % 3).sum::<usize>();
    let path = LargeListArray::try_new(
        Arc::new(Field::new(
            "item",
            DataType::Struct(point_fields.clone()),
            false,
        )),
        arrow_buffer::OffsetBuffer::from_lengths((0..n).map(|i| i % 3)),
        Arc::new(
            StructArray::try_new(
                point_fields,
                vec![
                    Arc::new(Float64Array::from_iter_values(
                        (0..point_count).map(|k| k as f64 * 0.5),
                    )),
                    Arc::new(Float64Array::from_iter(
                        (0..point_count).map(|k| (k % 4 != 0).then_some(-(k as f64))),
                    )),
                ],
                None,
            )
            .unwrap(),
        ),
        None,
    )
    .unwrap();
    // A struct holding lists, read here a field at a time: a nullable list of nullable
    // strings and a required list of required doubles beside a flat field, the struct null
    // in some rows.
    let mut notes = ListBuilder::new(StringBuilder::new());
    for i in 0..n {
        for j in 0..i % 3 {
            notes
                .values()
                .append_option((j != 1).then(|| words[(i + j) % 6]));
        }
        notes.append(i % 4 != 2);
    }
    let notes = notes.finish();
    let scores =
        ListArray::from_iter_primitive::<arrow_array::types::Float64Type, _, _>((0..n).map(|i| {
            Some(
                (0..(i + 2) % 3)
                    .map(|k| Some(k as f64 + 0.25))
                    .collect::<Vec<_>>(),
            )
        }));
    let scores_field = Arc::new(Field::new(
        "scores",
        DataType::List(Arc::new(Field::new("item", DataType::Float64, false))),
        false,
    ));
    let record = StructArray::try_new(
        vec![
            Arc::new(Field::new("n", DataType::Int32, true)),
            Arc::new(Field::new(
                "notes",
                arrow_array::Array::data_type(&notes).clone(),
                true,
            )),
            scores_field,
        ]
        .into(),
        vec![
            Arc::new(Int32Array::from_iter(
                (0..n).map(|i| (i % 5 != 3).then_some(i as i32)),
            )),
            Arc::new(notes),
            Arc::new(
                ListArray::try_new(
                    Arc::new(Field::new("item", DataType::Float64, false)),
                    scores.offsets().clone(),
                    scores.values().clone(),
                    None,
                )
                .unwrap(),
            ),
        ],
        Some((0..n).map(|i| i % 6 != 5).collect::<Vec<_>>().into()),
    )
    .unwrap();
    // A struct holding a struct (nulls at both levels, a required field in it) and a list,
    // read here a leaf at a time.
    let inner = StructArray::try_new(
        vec![
            Arc::new(Field::new("a", DataType::Int64, true)),
            Arc::new(Field::new("b", DataType::Utf8, false)),
        ]
        .into(),
        vec![
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 7 != 2).then_some(i as i64 * 3)),
            )),
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| words[(i * 5) % 6]),
            )),
        ],
        Some((0..n).map(|i| i % 8 != 6).collect::<Vec<_>>().into()),
    )
    .unwrap();
    let inner_field = Arc::new(Field::new(
        "inner",
        arrow_array::Array::data_type(&inner).clone(),
        true,
    ));
    let labels = ListArray::from_iter_primitive::<Int32Type, _, _>(
        (0..n)
            .map(|i| (i % 5 != 1).then(|| (0..i % 3).map(|k| Some(k as i32)).collect::<Vec<_>>())),
    );
    let outer = StructArray::try_new(
        vec![
            inner_field,
            Arc::new(Field::new("c", DataType::Int32, false)),
            Arc::new(Field::new(
                "labels",
                arrow_array::Array::data_type(&labels).clone(),
                true,
            )),
        ]
        .into(),
        vec![
            Arc::new(inner),
            Arc::new(Int32Array::from_iter_values((0..n).map(|i| i as i32 % 100))),
            Arc::new(labels),
        ],
        Some((0..n).map(|i| i % 9 != 7).collect::<Vec<_>>().into()),
    )
    .unwrap();
    // A struct holding a list of structs and a struct holding a list: lists inside structs
    // at depth one and two, read here.
    let mut entry_offsets = vec![0i32];
    let (mut ks, mut vs) = (Vec::new(), Vec::new());
    for i in 0..n {
        for j in 0..(i + 2) % 3 {
            ks.push((i + j) as i32);
            vs.push(((i + j) % 4 != 0).then(|| words[j % 6]));
        }
        entry_offsets.push(ks.len() as i32);
    }
    let entry_fields: arrow_schema::Fields = vec![
        Arc::new(Field::new("k", DataType::Int32, false)),
        Arc::new(Field::new("v", DataType::Utf8, true)),
    ]
    .into();
    let entries = ListArray::try_new(
        Arc::new(Field::new(
            "item",
            DataType::Struct(entry_fields.clone()),
            true,
        )),
        arrow_buffer::OffsetBuffer::new(entry_offsets.into()),
        Arc::new(
            StructArray::try_new(
                entry_fields,
                vec![
                    Arc::new(Int32Array::from(ks)),
                    Arc::new(StringArray::from(vs)),
                ],
                None,
            )
            .unwrap(),
        ),
        Some((0..n).map(|i| i % 10 != 3).collect::<Vec<_>>().into()),
    )
    .unwrap();
    let vals = ListArray::from_iter_primitive::<Int32Type, _, _>((0..n).map(|i| {
        (i % 6 != 1).then(|| {
            (0..i % 4)
                .map(|k| (k != 2).then_some(k as i32))
                .collect::<Vec<_>>()
        })
    }));
    let q = StructArray::try_new(
        vec![Arc::new(Field::new(
            "vals",
            arrow_array::Array::data_type(&vals).clone(),
            true,
        ))]
        .into(),
        vec![Arc::new(vals)],
        Some((0..n).map(|i| i % 7 != 4).collect::<Vec<_>>().into()),
    )
    .unwrap();
    let deep = StructArray::try_new(
        vec![
            Arc::new(Field::new(
                "q",
                arrow_array::Array::data_type(&q).clone(),
                true,
            )),
            Arc::new(Field::new(
                "entries",
                arrow_array::Array::data_type(&entries).clone(),
                true,
            )),
        ]
        .into(),
        vec![Arc::new(q), Arc::new(entries)],
        Some((0..n).map(|i| i % 11 != 9).collect::<Vec<_>>().into()),
    )
    .unwrap();
    // A list of nested structs (`list<struct<who: struct<age>>>`), nulls at every level.
    let crowd_count = (0..n).map(|i| i % 3).sum::<usize>();
    let age = Field::new("age", DataType::Int32, true);
    let who = StructArray::try_new(
        vec![Arc::new(age)].into(),
        vec![Arc::new(Int32Array::from_iter(
            (0..crowd_count).map(|k| (k % 5 != 1).then_some(k as i32)),
        ))],
        Some(
            (0..crowd_count)
                .map(|k| k % 7 != 2)
                .collect::<Vec<_>>()
                .into(),
        ),
    )
    .unwrap();
    let who_field = Field::new("who", arrow_array::Array::data_type(&who).clone(), true);
    let person = StructArray::try_new(
        vec![Arc::new(who_field)].into(),
        vec![Arc::new(who)],
        Some(
            (0..crowd_count)
                .map(|k| k % 6 != 3)
                .collect::<Vec<_>>()
                .into(),
        ),
    )
    .unwrap();
    let crowd = ListArray::try_new(
        Arc::new(Field::new(
            "item",
            arrow_array::Array::data_type(&person).clone(),
            true,
        )),
        arrow_buffer::OffsetBuffer::from_lengths((0..n).map(|i| i % 3)),
        Arc::new(person),
        Some(
            (0..n)
                .map(|i| i % 3 != 0 || i % 2 == 0)
                .collect::<Vec<_>>()
                .into(),
        ),
    )
    .unwrap();
    // A map of structs (`map<string, struct<a: int32, b: string>>`), nulls at every level.
    let attr_fields: arrow_schema::Fields = vec![
        Arc::new(Field::new("a", DataType::Int32, true)),
        Arc::new(Field::new("b", DataType::Utf8, true)),
    ]
    .into();
    let attr_count = (0..n).map(|i| i % 4).sum::<usize>();
    let attr_values = StructArray::try_new(
        attr_fields,
        vec![
            Arc::new(Int32Array::from_iter(
                (0..attr_count).map(|k| (k % 3 != 1).then_some(k as i32)),
            )),
            Arc::new(StringArray::from_iter(
                (0..attr_count).map(|k| (k % 5 != 2).then(|| words[k % 6])),
            )),
        ],
        Some(
            (0..attr_count)
                .map(|k| k % 7 != 4)
                .collect::<Vec<_>>()
                .into(),
        ),
    )
    .unwrap();
    let attr_keys = StringArray::from_iter_values((0..attr_count).map(|k| format!("k{}", k % 9)));
    let attr_entries = StructArray::try_new(
        vec![
            Arc::new(Field::new("keys", DataType::Utf8, false)),
            Arc::new(Field::new(
                "values",
                arrow_array::Array::data_type(&attr_values).clone(),
                true,
            )),
        ]
        .into(),
        vec![Arc::new(attr_keys), Arc::new(attr_values)],
        None,
    )
    .unwrap();
    let attrs = arrow_array::MapArray::try_new(
        Arc::new(Field::new(
            "entries",
            arrow_array::Array::data_type(&attr_entries).clone(),
            false,
        )),
        arrow_buffer::OffsetBuffer::from_lengths((0..n).map(|i| i % 4)),
        attr_entries,
        Some(
            (0..n)
                .map(|i| i % 4 != 0 || i % 8 == 0)
                .collect::<Vec<_>>()
                .into(),
        ),
        false,
    )
    .unwrap();
    // Arrow's Null type, and lists of it.
    let voids = ListArray::try_new(
        Arc::new(Field::new("item", DataType::Null, true)),
        arrow_buffer::OffsetBuffer::from_lengths((0..n).map(|i| i % 4)),
        Arc::new(arrow_array::NullArray::new((0..n).map(|i| i % 4).sum())),
        Some(
            (0..n)
                .map(|i| i % 4 != 0 || i % 8 == 0)
                .collect::<Vec<_>>()
                .into(),
        ),
    )
    .unwrap();
    // A map whose values are lists: read by arrow-rs's reader.
    let mut tally = MapBuilder::new(
        None,
        StringBuilder::new(),
        ListBuilder::new(Int32Builder::new()),
    );
    for i in 0..n {
        for j in 0..i % 3 {
            tally.keys().append_value(words[(i + j) % 6]);
            for k in 0..(i + j) % 4 {
                tally.values().values().append_value((i * k) as i32);
            }
            tally.values().append(j != 1);
        }
        tally.append(i % 7 != 3).unwrap();
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(i64s))),
        ("key", Arc::new(Int32Array::from(keys))),
        ("word", Arc::new(StringArray::from(strings))),
        ("unique", Arc::new(StringArray::from(unique))),
        ("binary", Arc::new(BinaryArray::from_iter(binary))),
        ("double", Arc::new(Float64Array::from(doubles))),
        ("float", Arc::new(Float32Array::from(floats))),
        ("flag", Arc::new(BooleanArray::from(bools))),
        (
            "flag_required",
            Arc::new(BooleanArray::from(bools_required)),
        ),
        ("tiny", Arc::new(Int8Array::from(small))),
        ("short", Arc::new(Int16Array::from(shorts))),
        ("byte", Arc::new(UInt8Array::from(bytes))),
        ("u32", Arc::new(UInt32Array::from(u32s))),
        ("u64", Arc::new(UInt64Array::from(u64s))),
        ("date", Arc::new(Date32Array::from(dates))),
        (
            "stamp",
            Arc::new(TimestampMicrosecondArray::from(stamps).with_timezone("Europe/Paris")),
        ),
        ("nothing", Arc::new(Int32Array::from(all_null))),
        ("half", Arc::new(halves)),
        ("wide_decimal", Arc::new(wide)),
        ("huge_decimal", Arc::new(huge)),
        ("day_time", Arc::new(day_time)),
        ("year_month", Arc::new(year_month)),
        ("cents", Arc::new(cents)),
        ("prices", Arc::new(prices)),
        ("list", Arc::new(list)),
        ("names", Arc::new(names)),
        ("large", Arc::new(large)),
        ("point", Arc::new(structs)),
        ("pair", Arc::new(pair)),
        ("map", Arc::new(map)),
        ("nested", Arc::new(nested.finish())),
        ("grid", Arc::new(grid.finish())),
        ("holder", Arc::new(holder)),
        ("cube", Arc::new(cube.finish())),
        ("crowd", Arc::new(crowd)),
        ("tally", Arc::new(tally.finish())),
        ("void", Arc::new(arrow_array::NullArray::new(n))),
        ("attrs", Arc::new(attrs)),
        ("voids", Arc::new(voids)),
        ("items", Arc::new(items)),
        ("path", Arc::new(path)),
        ("record", Arc::new(record)),
        ("outer", Arc::new(outer)),
        ("deep", Arc::new(deep)),
        ("discount", Arc::new(discount)),
        ("rate", Arc::new(rate)),
        ("uuid", Arc::new(uuids)),
        ("code", Arc::new(codes)),
        ("constant", Arc::new(constant)),
        ("sorted", Arc::new(sorted)),
        ("sorted_cents", Arc::new(sorted_cents)),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

fn write(properties: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let first = batch(0x9E37_79B9_7F4A_7C15);
    let mut writer = ArrowWriter::try_new(&mut out, first.schema(), Some(properties)).unwrap();
    writer.write(&first).unwrap();
    writer.flush().unwrap(); // a second row group
    writer.write(&batch(0x1234_5678_9ABC_DEF1)).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

fn files() -> Vec<(&'static str, Bytes)> {
    let small_pages = || {
        WriterProperties::builder()
            .set_data_page_row_count_limit(700)
            .set_write_batch_size(100)
            .set_statistics_enabled(EnabledStatistics::Page)
    };
    vec![
        ("v1 dictionary", write(small_pages().build())),
        (
            "v2 plain snappy",
            write(
                small_pages()
                    .set_writer_version(WriterVersion::PARQUET_2_0)
                    .set_dictionary_enabled(false)
                    .set_compression(Compression::SNAPPY)
                    .build(),
            ),
        ),
        (
            "v2 dictionary fallback zstd",
            write(
                small_pages()
                    .set_writer_version(WriterVersion::PARQUET_2_0)
                    .set_dictionary_page_size_limit(256)
                    .set_compression(Compression::ZSTD(Default::default()))
                    .build(),
            ),
        ),
        ("defaults", write(WriterProperties::builder().build())),
    ]
}

fn ours_all(file: &Bytes, batch_size: usize) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .with_path(Path::Fallback)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn theirs_all(file: &Bytes, batch_size: usize) -> Vec<RecordBatch> {
    ArrowRsBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `file` read by this reader in batches of `batch_size`, every column read here (none handed
/// to arrow-rs), errors as text.
fn read_here(file: &Bytes, batch_size: usize) -> Result<Vec<RecordBatch>, String> {
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(file.clone()).map_err(|e| e.to_string())?;
    let reader = reader
        .with_batch_size(batch_size)
        .build()
        .map_err(|e| e.to_string())?;
    assert!(reader.columns_read_by_arrow_rs().is_empty());
    reader.collect::<Result<_, _>>().map_err(|e| e.to_string())
}

fn assert_same(name: &str, ours: &[RecordBatch], theirs: &[RecordBatch]) {
    assert_eq!(ours.len(), theirs.len(), "{name}: batches");
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(a.schema(), b.schema(), "{name}: batch {i}: schema");
        assert_eq!(a.num_rows(), b.num_rows(), "{name}: batch {i}: rows");
        for (c, field) in a.schema().fields().iter().enumerate() {
            assert_eq!(
                a.column(c).as_ref(),
                b.column(c).as_ref(),
                "{name}: batch {i}: column {}",
                field.name()
            );
        }
    }
}

#[test]
fn whole_files_equal_arrow_rs_at_every_batch_size() {
    for (name, file) in files() {
        for batch_size in [333, 1024, 8192, 20_000] {
            let ours = ours_all(&file, batch_size);
            let theirs = theirs_all(&file, batch_size);
            assert_same(&format!("{name}, batch {batch_size}"), &ours, &theirs);
            // Arrays built without their constructors' checks (strings gathered from a
            // dictionary checked once) pass them all.
            for (i, batch) in ours.iter().enumerate() {
                for (c, column) in batch.columns().iter().enumerate() {
                    column.to_data().validate_full().unwrap_or_else(|e| {
                        panic!("{name}, batch {batch_size}: batch {i}, column {c}: {e}")
                    });
                }
            }
        }
    }
}

/// A file of decimals stored as BYTE_ARRAY (arrow-rs writes them as FIXED_LEN_BYTE_ARRAY;
/// other writers do not): an optional DECIMAL(30, 3) and a required DECIMAL(60, 2) of
/// big-endian two's complement values of every length from 0 (zero) to the type's width,
/// in dictionary and PLAIN pages; plus `too_wide`, a DECIMAL(20, 0) of 17-byte values.
fn byte_array_decimals(dictionary: bool, too_wide: bool) -> Bytes {
    use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::types::Type;
    let decimal = |name: &str, precision: i32, scale: i32, repetition: Repetition| {
        Arc::new(
            Type::primitive_type_builder(name, PhysicalType::BYTE_ARRAY)
                .with_repetition(repetition)
                .with_logical_type(Some(LogicalType::decimal(scale, precision)))
                .with_precision(precision)
                .with_scale(scale)
                .build()
                .unwrap(),
        )
    };
    let mut fields = vec![
        decimal("small", 30, 3, Repetition::OPTIONAL),
        decimal("large", 60, 2, Repetition::REQUIRED),
    ];
    if too_wide {
        fields.push(decimal("too_wide", 20, 0, Repetition::REQUIRED));
    }
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .unwrap();
    let properties = WriterProperties::builder()
        .set_dictionary_enabled(dictionary)
        .set_data_page_row_count_limit(100)
        .set_write_batch_size(50)
        .build();
    let mut out = Vec::new();
    let mut writer =
        SerializedFileWriter::new(&mut out, Arc::new(schema), Arc::new(properties)).unwrap();
    let rows = 1_000usize;
    // Value i: `i % (width + 1)` bytes (0 bytes: zero), negative for odd i, few distinct
    // values so that the dictionary holds.
    let value = |i: usize, width: usize| -> Vec<u8> {
        let len = i % (width + 1);
        let mut v: Vec<u8> = (0..len).map(|j| (i * 31 + j * 7) as u8 % 97).collect();
        if i % 2 == 1 && len > 0 {
            v[0] |= 0x80;
        }
        v
    };
    let mut group = writer.next_row_group().unwrap();
    for (width, optional) in [(13, true), (26, false)] {
        let def: Vec<i16> = (0..rows).map(|i| i16::from(i % 5 != 2)).collect();
        let values: Vec<ByteArray> = (0..rows)
            .filter(|&i| !optional || def[i] == 1)
            .map(|i| ByteArray::from(value(i % 40, width)))
            .collect();
        write_column::<ByteArrayType>(&mut group, &values, optional.then_some(&def[..]));
    }
    if too_wide {
        // DECIMAL(20, 0) is arrow-rs's Decimal128: 16 bytes at most, and these are 17.
        let values: Vec<ByteArray> = (0..rows)
            .map(|i| ByteArray::from(vec![(i % 3) as u8; 17]))
            .collect();
        write_column::<ByteArrayType>(&mut group, &values, None);
    }
    group.close().unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

/// Writes `values` (their definition levels `def`, for an optional column) as the row group's
/// next column.
fn write_column<T: parquet::data_type::DataType>(
    group: &mut parquet::file::writer::SerializedRowGroupWriter<'_, &mut Vec<u8>>,
    values: &[T::T],
    def: Option<&[i16]>,
) {
    let mut column = group.next_column().unwrap().unwrap();
    column.typed::<T>().write_batch(values, def, None).unwrap();
    column.close().unwrap();
}

#[test]
fn byte_array_decimals_equal_arrow_rs() {
    for dictionary in [false, true] {
        let file = byte_array_decimals(dictionary, false);
        let schema = ArrowRsBuilder::try_new(file.clone())
            .unwrap()
            .schema()
            .clone();
        assert_eq!(
            schema.field(0).data_type(),
            &DataType::Decimal128(30, 3),
            "arrow-rs's type"
        );
        assert_eq!(schema.field(1).data_type(), &DataType::Decimal256(60, 2));
        let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .build()
            .unwrap();
        assert!(reader.columns_read_by_arrow_rs().is_empty());
        for batch_size in [7, 1024] {
            let name = format!("dictionary {dictionary}, batch {batch_size}");
            assert_same(
                &name,
                &ours_all(&file, batch_size),
                &theirs_all(&file, batch_size),
            );
        }
    }
}

/// A file of decimals stored as FIXED_LEN_BYTE_ARRAY of 1, 2, 3, 7 (pyarrow's for a
/// precision of 15), 8, 9, 12 and 16 bytes, each at the largest precision its width holds
/// (all read as Decimal128), optional with nulls, plus a required one of 7 bytes; the values
/// random bytes (any sign) with the extremes of each width among them; `distinct` values a
/// column (`None`: a new one a row), written with `properties`.
fn fixed_len_decimals(properties: WriterProperties, distinct: Option<u64>) -> Bytes {
    use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
    use parquet::data_type::{FixedLenByteArray, FixedLenByteArrayType};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::types::Type;
    let columns: [(i32, i32, bool); 9] = [
        (1, 2, true),
        (2, 4, true),
        (3, 6, true),
        (7, 16, true),
        (8, 18, true),
        (9, 21, true),
        (12, 28, true),
        (16, 38, true),
        (7, 15, false),
    ];
    let fields = columns
        .iter()
        .enumerate()
        .map(|(i, &(width, precision, optional))| {
            let repetition = if optional {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            };
            Arc::new(
                Type::primitive_type_builder(&format!("d{i}"), PhysicalType::FIXED_LEN_BYTE_ARRAY)
                    .with_repetition(repetition)
                    .with_length(width)
                    .with_logical_type(Some(LogicalType::decimal(2, precision)))
                    .with_precision(precision)
                    .with_scale(2)
                    .build()
                    .unwrap(),
            )
        })
        .collect();
    let schema = Type::group_type_builder("schema")
        .with_fields(fields)
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut writer =
        SerializedFileWriter::new(&mut out, Arc::new(schema), Arc::new(properties)).unwrap();
    let rows = 3_000usize;
    let mut r = Rng(0xD1B5_4A32_D192_ED03);
    let mut group = writer.next_row_group().unwrap();
    for &(width, _, optional) in &columns {
        let width = width as usize;
        let extremes = [
            vec![0u8; width],
            vec![0xff; width],
            [vec![0x80], vec![0; width - 1]].concat(),
            [vec![0x7f], vec![0xff; width - 1]].concat(),
        ];
        let mut value = |row: usize| -> Vec<u8> {
            let seed = match distinct {
                Some(n) => ((row as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7) % n,
                None => r.next(),
            };
            match seed % 50 {
                k @ 0..=3 => extremes[k as usize].clone(),
                _ => (0..width)
                    .map(|j| (seed.rotate_left(8 * j as u32 + 3) ^ seed >> 5) as u8)
                    .collect(),
            }
        };
        let def: Vec<i16> = (0..rows).map(|i| i16::from(i % 7 != 3)).collect();
        let values: Vec<FixedLenByteArray> = (0..rows)
            .filter(|&i| !optional || def[i] == 1)
            .map(|i| FixedLenByteArray::from(value(i)))
            .collect();
        write_column::<FixedLenByteArrayType>(&mut group, &values, optional.then_some(&def[..]));
    }
    group.close().unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

#[test]
fn fixed_len_decimals_of_every_width_equal_arrow_rs() {
    use parquet::basic::Encoding;
    let pages = || {
        WriterProperties::builder()
            .set_data_page_row_count_limit(500)
            .set_write_batch_size(100)
    };
    let files = [
        ("dictionary", pages().build(), Some(30)),
        (
            "dictionary falling back to PLAIN",
            pages().set_dictionary_page_size_limit(200).build(),
            None,
        ),
        ("PLAIN", pages().set_dictionary_enabled(false).build(), None),
        (
            "BYTE_STREAM_SPLIT",
            pages()
                .set_dictionary_enabled(false)
                .set_encoding(Encoding::BYTE_STREAM_SPLIT)
                .build(),
            None,
        ),
        (
            "DELTA_BYTE_ARRAY",
            pages()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .set_dictionary_enabled(false)
                .set_encoding(Encoding::DELTA_BYTE_ARRAY)
                .build(),
            Some(300),
        ),
    ];
    // Runs of a few rows (gathered first) and long ones (appended a run at a time).
    let mut selectors = vec![RowSelector::skip(5)];
    for i in 0..200 {
        selectors.push(RowSelector::select(1 + i % 3));
        selectors.push(RowSelector::skip(2 + i % 4));
    }
    selectors.extend([RowSelector::select(900), RowSelector::skip(40)]);
    let selection = RowSelection::from(selectors);
    for (name, properties, distinct) in files {
        let file = fixed_len_decimals(properties, distinct);
        let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
        for field in theirs.schema().fields() {
            assert!(
                matches!(field.data_type(), DataType::Decimal128(_, 2)),
                "{name}: arrow-rs's type of {}: {}",
                field.name(),
                field.data_type()
            );
        }
        for batch_size in [7, 1024] {
            let ours = read_here(&file, batch_size).unwrap();
            let theirs = theirs_all(&file, batch_size);
            assert_same(&format!("{name}, batch {batch_size}"), &ours, &theirs);
        }
        let (ours, theirs) = selected_reads(&file, 500, &selection);
        assert_same(&format!("{name}, selection"), &ours, &theirs);
    }
}

#[test]
fn a_decimal_wider_than_its_arrow_type_is_an_error() {
    // 17 bytes read as Decimal128 (arrow-rs's reader panics on this file).
    let schema = ArrowRsBuilder::try_new(byte_array_decimals(false, true))
        .unwrap()
        .schema()
        .clone();
    assert_eq!(schema.field(2).data_type(), &DataType::Decimal128(20, 0));
    let file = byte_array_decimals(false, true);
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let error = reader
        .collect::<Result<Vec<_>, _>>()
        .expect_err("17-byte decimals as Decimal128");
    assert!(
        error.to_string().contains("does not fit 16 bytes"),
        "{error}"
    );
}

#[test]
fn the_footer_is_read_as_arrow_rs_reads_it_with_and_without_the_page_index() {
    use parquet::arrow::arrow_reader::ArrowReaderOptions;
    use parquet::file::metadata::PageIndexPolicy;
    // The first file has page statistics: a column and an offset index.
    let (_, file) = &files()[0];
    for policy in [
        PageIndexPolicy::Skip,
        PageIndexPolicy::Optional,
        PageIndexPolicy::Required,
    ] {
        let options = || ArrowReaderOptions::new().with_page_index_policy(policy);
        let ours =
            ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), options()).unwrap();
        let theirs = ArrowRsBuilder::try_new_with_options(file.clone(), options()).unwrap();
        assert_eq!(
            ours.metadata().column_index().is_some(),
            policy != PageIndexPolicy::Skip,
            "{policy:?}"
        );
        assert_eq!(
            ours.metadata().as_ref(),
            theirs.metadata().as_ref(),
            "{policy:?}"
        );
        assert_eq!(ours.schema(), theirs.schema(), "{policy:?}");
    }
}

#[test]
fn dictionaries_of_other_keys_equal_arrow_rs() {
    use arrow_array::types::{Int16Type, Int8Type, UInt16Type, UInt8Type};
    use arrow_array::DictionaryArray;
    // Pandas' categoricals have Int8 keys; other key types too, over strings and binary, with
    // nulls; in dictionary pages, PLAIN pages, and dictionaries that fall back to PLAIN
    // mid-chunk (whose batches' entries are then made distinct to fit the keys).
    let mut r = Rng(0xD1C7_0000_0000_0008);
    let n = 20_000;
    let words: Vec<String> = (0..100).map(|i| format!("category {i}")).collect();
    let word_values = Arc::new(StringArray::from(
        words.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let mut keys = |distinct: u64| -> Vec<Option<u64>> {
        (0..n)
            .map(|_| (!r.null(8)).then(|| r.below(distinct)))
            .collect()
    };
    let int8 = DictionaryArray::<Int8Type>::try_new(
        keys(100).into_iter().map(|k| k.map(|k| k as i8)).collect(),
        word_values.clone(),
    )
    .unwrap();
    let uint8 = DictionaryArray::<UInt8Type>::try_new(
        keys(100).into_iter().map(|k| k.map(|k| k as u8)).collect(),
        word_values.clone(),
    )
    .unwrap();
    let int16 = DictionaryArray::<Int16Type>::try_new(
        keys(3).into_iter().map(|k| k.map(|k| k as i16)).collect(),
        Arc::new(BinaryArray::from_iter_values([
            b"a".as_slice(),
            b"",
            b"\xff\x00",
        ])),
    )
    .unwrap();
    let uint16 = DictionaryArray::<UInt16Type>::try_new(
        keys(100).into_iter().map(|k| k.map(|k| k as u16)).collect(),
        Arc::new(arrow_array::LargeStringArray::from(
            words.iter().map(String::as_str).collect::<Vec<_>>(),
        )),
    )
    .unwrap();
    let batch = RecordBatch::try_from_iter([
        ("int8", Arc::new(int8) as ArrayRef),
        ("uint8", Arc::new(uint8) as ArrayRef),
        ("int16", Arc::new(int16) as ArrayRef),
        ("uint16", Arc::new(uint16) as ArrayRef),
    ])
    .unwrap();
    let small_pages = || WriterProperties::builder().set_data_page_row_count_limit(3_000);
    for (name, properties) in [
        ("dictionary", small_pages().build()),
        ("plain", small_pages().set_dictionary_enabled(false).build()),
        (
            "fallback",
            small_pages().set_dictionary_page_size_limit(600).build(),
        ),
    ] {
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let file = Bytes::from(out);
        for batch_size in [1_000, 8192] {
            let ours = read_here(&file, batch_size).unwrap();
            assert_eq!(ours[0].schema(), batch.schema(), "{name}");
            assert_same(
                &format!("{name}, batch {batch_size}"),
                &ours,
                &theirs_all(&file, batch_size),
            );
        }
    }
}

#[test]
fn batches_of_one_row() {
    let (name, file) = &files()[0];
    let mask = |b: &parquet::schema::types::SchemaDescriptor| {
        ProjectionMask::columns(b, ["word", "names", "flag", "pair.a", "pair.b"])
    };
    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let ours_mask = mask(ours.parquet_schema());
    let ours = ours.with_projection(ours_mask).with_batch_size(1);
    let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
    let theirs_mask = mask(theirs.parquet_schema());
    let theirs = theirs.with_projection(theirs_mask).with_batch_size(1);
    let (ours, theirs) = collect(ours, theirs);
    assert_same(name, &ours, &theirs);
}

#[test]
fn every_column_but_a_map_of_lists_is_read_here() {
    let (_, file) = &files()[0];
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(reader.columns_read_by_arrow_rs(), ["tally"]);
}

#[test]
fn a_page_handed_to_arrow_rs_above_the_executors_limit_is_refused() {
    let (_, file) = &files()[0];
    let tally_only = |builder: ParquetRecordBatchReaderBuilder<Bytes>| {
        let mask = ProjectionMask::columns(builder.parquet_schema(), ["tally"]);
        builder.with_projection(mask)
    };
    // arrow-rs's reader would trust the pages' claimed sizes: they are checked before.
    let small = qpl_rs::Executor::with_config(qpl_rs::Config {
        path: Path::Fallback,
        max_output_bytes: 64,
        ..qpl_rs::Config::default()
    });
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let e = tally_only(builder)
        .with_executor(small)
        .build()
        .err()
        .expect("a page of maps of lists above 64 bytes")
        .to_string();
    assert!(e.contains("tally") && e.contains("max_output_bytes"), "{e}");
    // Within the default limit the same column reads as arrow-rs reads it.
    let ours: Vec<RecordBatch> =
        tally_only(ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap())
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
    let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
    let mask = ProjectionMask::columns(theirs.parquet_schema(), ["tally"]);
    let theirs: Vec<RecordBatch> = theirs
        .with_projection(mask)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_same("tally", &ours, &theirs);
}

#[test]
fn selections_offsets_limits_projections_and_row_groups() {
    for (name, file) in files() {
        let selection = RowSelection::from(vec![
            RowSelector::skip(17),
            RowSelector::select(700),
            RowSelector::skip(4_000),
            RowSelector::select(1_500),
            RowSelector::skip(3),
            RowSelector::select(2_000),
        ]);
        let cases: Vec<(&str, Box<Reads<'_>>)> = vec![
            (
                "selection",
                Box::new(|file: &Bytes| selected_reads(file, 1000, &selection)),
            ),
            (
                "offset and limit",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(999)
                        .with_offset(4_321)
                        .with_limit(3_210);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(999)
                        .with_offset(4_321)
                        .with_limit(3_210);
                    collect(ours, theirs)
                }),
            ),
            (
                "selection, offset and limit",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_row_selection(selection.clone())
                        .with_offset(500)
                        .with_limit(2_500);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_row_selection(selection.clone())
                        .with_offset(500)
                        .with_limit(2_500);
                    collect(ours, theirs)
                }),
            ),
            (
                "projection and row groups",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
                    let mask = ProjectionMask::roots(ours.parquet_schema(), [2, 0, 7, 17]);
                    let ours = ours
                        .with_projection(mask.clone())
                        .with_row_groups(vec![1, 0]);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_projection(mask)
                        .with_row_groups(vec![1, 0]);
                    collect(ours, theirs)
                }),
            ),
            (
                "threads",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(777)
                        .with_threads(2);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(777);
                    collect(ours, theirs)
                }),
            ),
        ];
        for (case, run) in cases {
            let (ours, theirs) = run(&file);
            assert_same(&format!("{name}, {case}"), &ours, &theirs);
        }
    }
}

/// `file`'s rows that `selection` selects, in batches of `batch_size`, read by both readers.
fn selected_reads(
    file: &Bytes,
    batch_size: usize,
    selection: &RowSelection,
) -> (Vec<RecordBatch>, Vec<RecordBatch>) {
    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .with_row_selection(selection.clone());
    let theirs = ArrowRsBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .with_row_selection(selection.clone());
    collect(ours, theirs)
}

/// A case: reads a file with both readers.
type Reads<'a> = dyn Fn(&Bytes) -> (Vec<RecordBatch>, Vec<RecordBatch>) + 'a;

fn collect(
    ours: ParquetRecordBatchReaderBuilder<Bytes>,
    theirs: ArrowRsBuilder<Bytes>,
) -> (Vec<RecordBatch>, Vec<RecordBatch>) {
    (
        ours.build().unwrap().collect::<Result<_, _>>().unwrap(),
        theirs.build().unwrap().collect::<Result<_, _>>().unwrap(),
    )
}

#[test]
fn row_filters_keep_the_rows_arrow_rs_keeps() {
    for (name, file) in files() {
        // A selection with the filter (as DataFusion's page pruning gives): ending before the
        // file does, and with and without a limit.
        let selection = RowSelection::from(vec![
            RowSelector::skip(130),
            RowSelector::select(3_000),
            RowSelector::skip(2_222),
            RowSelector::select(3_500),
        ]);
        let cases = [
            (7, None, None),
            (49, Some(30), None),
            (1_000, None, None),
            (7, None, Some(&selection)),
            // A limit above the rows kept: rows past the selection's end stay unselected.
            (3, Some(40), Some(&selection)),
            (3, Some(20), Some(&selection)),
        ];
        for (key, limit, selection) in cases {
            let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_batch_size(100)
                .with_row_filter(
                    RowFilter::new()
                        .and("key", Predicate::Eq(Scalar::Int32(key)))
                        .and("flag", Predicate::Eq(Scalar::Boolean(true))),
                );
            let ours = match limit {
                Some(limit) => ours.with_limit(limit),
                None => ours,
            };
            let ours = match selection {
                Some(selection) => ours.with_row_selection(selection.clone()),
                None => ours,
            };
            let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
            let theirs = match selection {
                Some(selection) => theirs.with_row_selection(selection.clone()),
                None => theirs,
            };
            let mask = ProjectionMask::columns(theirs.parquet_schema(), ["key", "flag"]);
            let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
                let keys = batch
                    .column(0)
                    .as_any()
                    .downcast_ref::<Int32Array>()
                    .unwrap();
                let flags = batch
                    .column(1)
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .unwrap();
                Ok(BooleanArray::from_iter(
                    keys.iter()
                        .zip(flags.iter())
                        .map(|(k, f)| Some(k == Some(key) && f == Some(true))),
                ))
            });
            let theirs = theirs
                .with_batch_size(100)
                .with_row_filter(ArrowRsFilter::new(vec![Box::new(predicate)]));
            let theirs = match limit {
                Some(limit) => theirs.with_limit(limit),
                None => theirs,
            };
            let (ours, theirs) = collect(ours, theirs);
            let case = format!(
                "{name}, key = {key}, limit {limit:?}, selection {}",
                selection.is_some()
            );
            assert_same(&case, &ours, &theirs);
            let rows: usize = ours.iter().map(|b| b.num_rows()).sum();
            if key == 1_000 {
                assert_eq!(rows, 0, "{case}: no key is 1000");
            } else {
                assert!(rows > 0, "{case}: key {key} is in the file");
            }
        }
    }
}

/// arrow-rs predicates that both readers take: words starting with `g` or empty (a null word
/// gives a null, which drops the row), and ids (`3i + 10^12`) with `i` not divisible by 3
/// whose double is not null (two columns).
fn arrow_predicates(
    schema: &parquet::schema::types::SchemaDescriptor,
) -> [ArrowPredicateFn<impl FnMut(RecordBatch) -> Result<BooleanArray, arrow_schema::ArrowError>>; 2]
{
    fn words(batch: RecordBatch) -> Result<BooleanArray, arrow_schema::ArrowError> {
        let words = batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .unwrap();
        Ok(words
            .iter()
            .map(|w| w.map(|w| w.starts_with('g') || w.is_empty()))
            .collect())
    }
    fn ids(batch: RecordBatch) -> Result<BooleanArray, arrow_schema::ArrowError> {
        let ids = batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let doubles = batch
            .column(1)
            .as_any()
            .downcast_ref::<Float64Array>()
            .unwrap();
        Ok(ids
            .iter()
            .zip(doubles.iter())
            .map(|(i, d)| Some(i? / 3 % 3 != 0 && d.is_some()))
            .collect())
    }
    let pick = |f: fn(RecordBatch) -> _| f;
    [
        ArrowPredicateFn::new(ProjectionMask::columns(schema, ["word"]), pick(words)),
        ArrowPredicateFn::new(ProjectionMask::columns(schema, ["id", "double"]), pick(ids)),
    ]
}

#[test]
fn arrow_predicates_keep_the_rows_arrow_rs_keeps() {
    let selection = RowSelection::from(vec![
        RowSelector::skip(77),
        RowSelector::select(4_000),
        RowSelector::skip(1_500),
        RowSelector::select(2_000),
    ]);
    for (name, file) in files() {
        // (with the query API's `flag = true` first, selection, limit, offset)
        let cases = [
            (false, None, None, None),
            (true, None, None, None),
            (true, Some(&selection), Some(25), None),
            (false, Some(&selection), None, Some(9)),
        ];
        for (flag, selection, limit, offset) in cases {
            let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
            let [words, ids] = arrow_predicates(ours.parquet_schema());
            let mut filter = RowFilter::new();
            if flag {
                filter = filter.and("flag", Predicate::Eq(Scalar::Boolean(true)));
            }
            let filter = filter.and_predicate(words).and_predicate(ids);
            assert_eq!(filter.arrow_predicate_count(), 2);
            let mut ours = ours.with_batch_size(300).with_row_filter(filter);
            let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
            let [words, ids] = arrow_predicates(theirs.parquet_schema());
            let mut predicates: Vec<Box<dyn parquet::arrow::arrow_reader::ArrowPredicate>> =
                Vec::new();
            if flag {
                let mask = ProjectionMask::columns(theirs.parquet_schema(), ["flag"]);
                predicates.push(Box::new(ArrowPredicateFn::new(
                    mask,
                    |batch: RecordBatch| {
                        let flags = batch.column(0).as_any().downcast_ref::<BooleanArray>();
                        Ok(flags
                            .unwrap()
                            .iter()
                            .map(|f| Some(f == Some(true)))
                            .collect())
                    },
                )));
            }
            predicates.push(Box::new(words));
            predicates.push(Box::new(ids));
            let mut theirs = theirs
                .with_batch_size(300)
                .with_row_filter(ArrowRsFilter::new(predicates));
            if let Some(selection) = selection {
                ours = ours.with_row_selection(selection.clone());
                theirs = theirs.with_row_selection(selection.clone());
            }
            if let Some(limit) = limit {
                ours = ours.with_limit(limit);
                theirs = theirs.with_limit(limit);
            }
            if let Some(offset) = offset {
                ours = ours.with_offset(offset);
                theirs = theirs.with_offset(offset);
            }
            let (ours, theirs) = collect(ours, theirs);
            let case = format!(
                "{name}: flag {flag}, selection {}, limit {limit:?}, offset {offset:?}",
                selection.is_some()
            );
            assert_same(&case, &ours, &theirs);
            let rows: usize = ours.iter().map(|b| b.num_rows()).sum();
            let total = file_rows(&file);
            assert!(
                rows > 0 && rows < total / 4,
                "{case}: {rows} rows of {total}"
            );
        }
    }
}

/// The rows of a file.
/// A file of `qpl/tests/data/` (hostile files the fuzz target found, and the like).
fn data_file(name: &str) -> Bytes {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
}

fn file_rows(file: &Bytes) -> usize {
    let builder = ArrowRsBuilder::try_new(file.clone()).unwrap();
    builder.metadata().file_metadata().num_rows() as usize
}

#[test]
fn an_arrow_predicate_of_the_wrong_length_is_an_error() {
    let (_, file) = &files()[0];
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let mask = ProjectionMask::columns(builder.parquet_schema(), ["key"]);
    let short = ArrowPredicateFn::new(mask, |batch: RecordBatch| {
        Ok(BooleanArray::from(vec![true; batch.num_rows() / 2]))
    });
    let result = builder
        .with_row_filter(RowFilter::new().and_predicate(short))
        .build();
    let message = result.err().expect("an error").to_string();
    assert!(message.contains("gave"), "{message}");
}

#[test]
fn a_filter_on_a_missing_column_is_an_error() {
    let (_, file) = &files()[0];
    let result = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_row_filter(RowFilter::new().and("nope", Predicate::Eq(Scalar::Int32(1))))
        .build();
    let message = result.err().expect("an error").to_string();
    assert!(message.contains("nope"), "{message}");
}

#[test]
fn damaged_files_are_errors_not_panics() {
    let (_, file) = &files()[1];
    // Overwrite bytes inside the first column chunk's pages, one region at a time.
    let mut errors = 0;
    for at in (4..file.len() / 2).step_by(file.len() / 50) {
        let mut bad = file.to_vec();
        for b in &mut bad[at..(at + 40).min(file.len())] {
            *b = b.wrapping_mul(31).wrapping_add(7);
        }
        let bad = Bytes::from(bad);
        // Whether a read on `threads` threads fails: an error in a column decoded by a
        // helper thread is the read's error as it is on one thread.
        let fails = |threads: usize| {
            let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(bad.clone()) else {
                return true;
            };
            match builder.with_threads(threads).build() {
                Ok(reader) => reader.into_iter().any(|b| b.is_err()),
                Err(_) => true,
            }
        };
        let failed = fails(1);
        assert_eq!(fails(2), failed, "damage at {at}: two threads as one");
        errors += usize::from(failed);
    }
    assert!(errors > 0, "some damage is noticed");
}

/// A file the reader's fuzz target found: a data page whose type says v2 without a v2 header,
/// on which the parquet crate's `peek_next_page` panics. Read without a selection (no peek)
/// and with one (a peek; the panic is caught): an error either way.
#[test]
fn a_footer_declaring_more_elements_than_bytes_is_refused() {
    // Found by the `reader` fuzz target: the footer's Thrift holds a list header claiming
    // billions of booleans in a 2 KB file; the parquet crate's skip of it reads no byte per
    // element and took 6.7 s (release) to refuse the file. This reader refuses it before.
    let file = data_file("footer-list-of-booleans.parquet");
    let error = ParquetRecordBatchReaderBuilder::try_new(file)
        .err()
        .expect("a hostile footer")
        .to_string();
    assert!(error.contains("the footer's metadata"), "{error}");
    assert!(error.contains("elements declared"), "{error}");
}

#[test]
fn a_footer_field_declared_with_another_type_is_skipped_not_looped_on() {
    // Found by the `reader` fuzz target (2 KB): a ColumnChunk's meta_data (field 3, a struct)
    // declared a double. The parquet crate read a struct there anyway, out of step with the
    // bytes, and met a list header claiming billions of booleans its skip loops over: 6.3 s
    // (release) to an error. Skipped as pyarrow skips it, the footer is read at once (and
    // found to lack a required field).
    let file = data_file("footer-known-field-of-another-type.parquet");
    let started = std::time::Instant::now();
    let error = ParquetRecordBatchReaderBuilder::try_new(file)
        .err()
        .expect("a damaged footer")
        .to_string();
    assert!(error.contains("Required field encodings"), "{error}");
    // Generous for a debug build on a loaded machine; the crate's loop took 6.3 s in release.
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
}

#[test]
fn a_page_header_the_parquet_crate_would_loop_on_is_an_error() {
    // Found by the `reader` fuzz target (11 KB): column dict_string's first page header holds
    // a list claiming 266 million booleans, which the parquet crate's skip loops over reading
    // nothing (2.5 s in release, to an unrelated error). The chunk's headers are walked first.
    let file = data_file("page-header-list-of-booleans.parquet");
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let mask = ProjectionMask::columns(builder.parquet_schema(), ["dict_string"]);
    let error = builder
        .with_projection(mask)
        .build()
        .and_then(|reader| {
            reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| parquet::errors::ParquetError::General(e.to_string()))
        })
        .expect_err("a hostile page header")
        .to_string();
    assert!(error.contains("column dict_string"), "{error}");
    assert!(
        error.contains("266072061 elements declared in 843 bytes"),
        "{error}"
    );
}

#[test]
fn a_negative_chunk_offset_of_a_column_handed_to_arrow_rs_is_an_error() {
    use parquet::file::metadata::{ParquetMetaDataReader, ParquetMetaDataWriter, RowGroupMetaData};
    // Found by the `reader` fuzz target: a nested column whose chunk offset is negative; the
    // parquet crate's `byte_range` panics on it, and the walk of the pages handed to arrow-rs
    // asked it first. Now the chunk's range is checked as this reader's own chunks are. The
    // fuzz target's file (below) has its nested columns read here since; the same damage is
    // made here to the map of lists, which arrow-rs reads.
    let (_, file) = &files()[0];
    let metadata = ParquetMetaDataReader::new().parse_and_finish(file).unwrap();
    let schema = metadata.file_metadata().schema_descr_ptr();
    let groups: Vec<RowGroupMetaData> = metadata
        .row_groups()
        .iter()
        .map(|group| {
            let columns = group
                .columns()
                .iter()
                .map(|chunk| match chunk.column_path().parts()[0] == "tally" {
                    true => chunk
                        .clone()
                        .into_builder()
                        .set_data_page_offset(-4096)
                        .set_dictionary_page_offset(None)
                        .build()
                        .unwrap(),
                    false => chunk.clone(),
                })
                .collect();
            RowGroupMetaData::builder(schema.clone())
                .set_num_rows(group.num_rows())
                .set_total_byte_size(group.total_byte_size())
                .set_column_metadata(columns)
                .build()
                .unwrap()
        })
        .collect();
    let damaged = metadata
        .into_builder()
        .set_row_groups(groups)
        .set_column_index(None)
        .set_offset_index(None)
        .build();
    let footer = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
    let mut out = file[..file.len() - 8 - footer as usize].to_vec();
    ParquetMetaDataWriter::new(&mut out, &damaged)
        .finish()
        .unwrap();
    let read = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(out)).and_then(|b| b.build());
    let error = read.err().expect("a negative chunk offset").to_string();
    assert!(error.contains("not inside the file"), "{error}");
    // The fuzz target's file: its columns (lists, a struct of lists) read here, the damaged
    // chunks an error while reading.
    let file = data_file("negative-chunk-offset-map.parquet");
    let read = ParquetRecordBatchReaderBuilder::try_new(file)
        .and_then(|b| b.build())
        .map_err(|e| e.to_string())
        .and_then(|reader| {
            reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())
        });
    assert!(read.is_err(), "the damaged file read");
}

#[test]
fn an_embedded_arrow_schema_arrow_rs_panics_on_is_an_error() {
    // Found by the `reader` fuzz target: an `ARROW:schema` naming a type arrow-ipc does not
    // know; arrow-rs's footer load panics ("not implemented"), this builder gives an error.
    let file = data_file("unknown-type-in-arrow-schema.parquet");
    let error = ParquetRecordBatchReaderBuilder::try_new(file)
        .err()
        .expect("a damaged embedded schema")
        .to_string();
    assert!(error.contains("ARROW:schema"), "{error}");
}

#[test]
fn a_v2_page_without_its_header_is_an_error() {
    let file = data_file("v2-page-without-v2-header.parquet");
    for selection in [None, Some(RowSelection::from(vec![RowSelector::select(1)]))] {
        let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(file.clone()) else {
            continue;
        };
        let builder = match selection {
            Some(selection) => builder.with_row_selection(selection),
            None => builder,
        };
        let failed = match builder.build() {
            Ok(reader) => reader.into_iter().any(|batch| batch.is_err()),
            Err(_) => true,
        };
        assert!(failed, "the damaged page reads?");
    }
}

// ---- Utf8View and BinaryView ------------------------------------------------------------

mod views {
    use super::*;
    use arrow_array::builder::{BinaryViewBuilder, StringViewBuilder};
    use arrow_array::{Array, BinaryViewArray, StringViewArray};
    use parquet::arrow::arrow_reader::ArrowReaderOptions;
    use parquet::basic::Encoding;
    use parquet::schema::types::ColumnPath;

    const VIEW_ROWS: usize = 6_000;

    /// Strings of every length class: empty, inline (≤ 12 bytes), 13 bytes and more, multibyte
    /// characters, and some of 128 bytes and more (their PLAIN length prefix is not ASCII).
    fn text(r: &mut Rng, distinct: u64) -> String {
        let k = r.below(distinct);
        match k % 7 {
            0 => String::new(),
            1 => format!("s{k}"),
            2 => format!("twelve-{:05}", k % 100_000),
            3 => format!("thirteen-{k:04}+"),
            4 => format!("ωmega-{k}-äöü-€-{}", "x".repeat((k % 20) as usize)),
            5 => format!("long-{k}-{}", "ab".repeat(70 + (k % 9) as usize)),
            _ => format!("{k}-{}", "é".repeat((k % 80) as usize)),
        }
    }

    /// Columns of view types: dictionary-friendly and unique, nullable and required, all null,
    /// binary, a list and a struct of them.
    pub(super) fn view_batch(seed: u64) -> RecordBatch {
        let mut r = Rng(seed);
        let n = VIEW_ROWS;
        let few: Vec<Option<String>> = (0..n)
            .map(|_| (!r.null(12)).then(|| text(&mut r, 40)))
            .collect();
        let required: Vec<String> = (0..n).map(|_| text(&mut r, 200)).collect();
        let unique: Vec<Option<String>> = (0..n)
            .map(|i| (!r.null(3)).then(|| format!("{}-{i}", text(&mut r, 1 << 40))))
            .collect();
        let all_null: Vec<Option<String>> = vec![None; n];
        let mut binary = BinaryViewBuilder::new();
        for i in 0..n {
            if r.null(10) {
                binary.append_null();
            } else {
                let len = [0, 3, 12, 13, 40, 200][r.below(6) as usize];
                binary.append_value(vec![(i % 251) as u8; len]);
            }
        }
        let mut list = ListBuilder::new(StringViewBuilder::new());
        for _ in 0..n {
            match r.below(9) {
                0 => list.append_null(),
                k => {
                    for _ in 0..k % 4 {
                        if r.null(10) {
                            list.values().append_null();
                        } else {
                            list.values().append_value(text(&mut r, 30));
                        }
                    }
                    list.append(true);
                }
            }
        }
        let struct_valid: Vec<bool> = (0..n).map(|_| !r.null(15)).collect();
        let inner_s: StringViewArray = (0..n)
            .map(|i| (i % 4 != 0).then(|| text(&mut r, 25)))
            .collect();
        let inner_b: BinaryViewArray = (0..n)
            .map(|i| Some(vec![b'q'; i % 17]))
            .collect::<Vec<Option<Vec<u8>>>>()
            .into_iter()
            .collect();
        let pair = StructArray::try_new(
            vec![
                Arc::new(Field::new("s", DataType::Utf8View, true)),
                Arc::new(Field::new("b", DataType::BinaryView, false)),
            ]
            .into(),
            vec![Arc::new(inner_s), Arc::new(inner_b)],
            Some(struct_valid.into()),
        )
        .unwrap();
        let columns: Vec<(&str, ArrayRef)> = vec![
            ("id", Arc::new(Int64Array::from_iter_values(0..n as i64))),
            ("few", Arc::new(StringViewArray::from(few))),
            (
                "required",
                Arc::new(StringViewArray::from_iter_values(required)),
            ),
            ("unique", Arc::new(StringViewArray::from(unique))),
            ("all_null", Arc::new(StringViewArray::from(all_null))),
            ("binary", Arc::new(binary.finish())),
            ("list", Arc::new(list.finish())),
            ("pair", Arc::new(pair)),
        ];
        RecordBatch::try_from_iter_with_nullable(
            columns
                .into_iter()
                .map(|(name, array)| (name, array, name != "required" && name != "id")),
        )
        .unwrap()
    }

    fn write_views(properties: WriterProperties) -> Bytes {
        let mut out = Vec::new();
        let first = view_batch(0xDEAD_BEEF_1234_5678);
        let mut writer = ArrowWriter::try_new(&mut out, first.schema(), Some(properties)).unwrap();
        writer.write(&first).unwrap();
        writer.flush().unwrap(); // a second row group
        writer.write(&view_batch(0x0BAD_CAFE_8765_4321)).unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    pub(super) fn view_files() -> Vec<(&'static str, Bytes)> {
        let small_pages = || {
            WriterProperties::builder()
                .set_data_page_row_count_limit(700)
                .set_write_batch_size(100)
        };
        let delta = |encoding| {
            let mut p = small_pages()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .set_dictionary_enabled(false);
            for column in ["few", "required", "unique", "binary"] {
                p = p.set_column_encoding(ColumnPath::from(column), encoding);
            }
            p.build()
        };
        vec![
            ("views, v1 dictionary", write_views(small_pages().build())),
            (
                "views, v1 plain",
                write_views(small_pages().set_dictionary_enabled(false).build()),
            ),
            (
                "views, v2 dictionary fallback snappy",
                write_views(
                    small_pages()
                        .set_writer_version(WriterVersion::PARQUET_2_0)
                        .set_dictionary_page_size_limit(512)
                        .set_compression(Compression::SNAPPY)
                        .build(),
                ),
            ),
            (
                "views, delta length",
                write_views(delta(Encoding::DELTA_LENGTH_BYTE_ARRAY)),
            ),
            (
                "views, delta",
                write_views(delta(Encoding::DELTA_BYTE_ARRAY)),
            ),
            (
                "views, defaults",
                write_views(WriterProperties::builder().build()),
            ),
        ]
    }

    /// Our batches are valid arrays (every view checked against its buffers, UTF-8
    /// included), a null row's view is zero, and a flat view column's batch holds views of its
    /// own rows only (not of its page's: at most twice its rows' room).
    fn assert_valid(name: &str, batches: &[RecordBatch]) {
        for (i, batch) in batches.iter().enumerate() {
            for (c, column) in batch.columns().iter().enumerate() {
                column
                    .to_data()
                    .validate_full()
                    .unwrap_or_else(|e| panic!("{name}: batch {i}, column {c}: {e}"));
                let views = match column.data_type() {
                    DataType::Utf8View => Some(
                        column
                            .as_any()
                            .downcast_ref::<StringViewArray>()
                            .unwrap()
                            .views()
                            .clone(),
                    ),
                    DataType::BinaryView => Some(
                        column
                            .as_any()
                            .downcast_ref::<BinaryViewArray>()
                            .unwrap()
                            .views()
                            .clone(),
                    ),
                    _ => None,
                };
                if let Some(views) = views {
                    for row in 0..column.len() {
                        assert!(
                            column.is_valid(row) || views[row] == 0,
                            "{name}: batch {i}, column {c}: the view of null row {row} is not zero"
                        );
                    }
                    assert!(
                        views.inner().capacity() <= 16 * (2 * batch.num_rows()).max(4),
                        "{name}: batch {i}, column {c}: {} bytes of views for {} rows",
                        views.inner().capacity(),
                        batch.num_rows()
                    );
                }
            }
        }
    }

    #[test]
    fn view_columns_equal_arrow_rs_at_every_batch_size() {
        for (name, file) in view_files() {
            let schema = ArrowRsBuilder::try_new(file.clone())
                .unwrap()
                .schema()
                .clone();
            assert_eq!(
                schema.field_with_name("few").unwrap().data_type(),
                &DataType::Utf8View
            );
            for batch_size in [1, 333, 1024, 8192, 20_000] {
                if batch_size == 1 && !name.ends_with("dictionary") {
                    continue;
                }
                let ours = ours_all(&file, batch_size);
                let theirs = theirs_all(&file, batch_size);
                let name = format!("{name}, batch {batch_size}");
                assert_same(&name, &ours, &theirs);
                assert_valid(&name, &ours);
            }
        }
    }

    #[test]
    fn view_columns_are_read_here() {
        for (name, file) in view_files() {
            let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .build()
                .unwrap();
            assert!(
                reader.columns_read_by_arrow_rs().is_empty(),
                "{name}: {:?}",
                reader.columns_read_by_arrow_rs()
            );
        }
    }

    #[test]
    fn view_columns_under_selections_offsets_limits_filters_and_threads() {
        let selection = RowSelection::from(vec![
            RowSelector::skip(5),
            RowSelector::select(900),
            RowSelector::skip(2_500),
            RowSelector::select(1),
            RowSelector::skip(600),
            RowSelector::select(3_333),
            RowSelector::skip(1_000),
            RowSelector::select(2_000),
        ]);
        for (name, file) in view_files() {
            let ours = || ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
            let theirs = || ArrowRsBuilder::try_new(file.clone()).unwrap();
            let cases = vec![
                (
                    "selection",
                    collect(
                        ours()
                            .with_batch_size(1000)
                            .with_row_selection(selection.clone()),
                        theirs()
                            .with_batch_size(1000)
                            .with_row_selection(selection.clone()),
                    ),
                ),
                (
                    "offset and limit",
                    collect(
                        ours()
                            .with_batch_size(999)
                            .with_offset(4_321)
                            .with_limit(5_210),
                        theirs()
                            .with_batch_size(999)
                            .with_offset(4_321)
                            .with_limit(5_210),
                    ),
                ),
                (
                    "selection, offset and limit",
                    collect(
                        ours()
                            .with_row_selection(selection.clone())
                            .with_offset(500)
                            .with_limit(2_500),
                        theirs()
                            .with_row_selection(selection.clone())
                            .with_offset(500)
                            .with_limit(2_500),
                    ),
                ),
                (
                    "threads",
                    collect(
                        ours().with_batch_size(777).with_threads(2),
                        theirs().with_batch_size(777),
                    ),
                ),
            ];
            for (case, (ours, theirs)) in cases {
                let name = format!("{name}, {case}");
                assert_same(&name, &ours, &theirs);
                assert_valid(&name, &ours);
            }
            // A filter on the view column itself: rows whose `few` is "s1".
            let wanted = "s1";
            let ours = ours().with_batch_size(100).with_row_filter(
                RowFilter::new().and("few", Predicate::Eq(Scalar::Bytes(wanted.into()))),
            );
            let builder = theirs();
            let mask = ProjectionMask::columns(builder.parquet_schema(), ["few"]);
            let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
                let few = batch
                    .column(0)
                    .as_any()
                    .downcast_ref::<StringViewArray>()
                    .unwrap();
                Ok(BooleanArray::from_iter(
                    few.iter().map(|s| Some(s == Some(wanted))),
                ))
            });
            let theirs = builder
                .with_batch_size(100)
                .with_row_filter(ArrowRsFilter::new(vec![Box::new(predicate)]));
            let (ours, theirs) = collect(ours, theirs);
            let name = format!("{name}, filter");
            assert_same(&name, &ours, &theirs);
            assert_valid(&name, &ours);
            assert!(
                ours.iter().map(|b| b.num_rows()).sum::<usize>() > 0,
                "{name}"
            );
        }
    }

    /// A file of one BYTE_ARRAY column of `values` (annotated UTF8 or not), dictionary-encoded
    /// or PLAIN, written by the parquet crate's low-level writer (which writes any bytes).
    fn raw_file(values: &[&[u8]], utf8: bool, dictionary: bool) -> Bytes {
        use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
        use parquet::data_type::{ByteArray, ByteArrayType};
        use parquet::file::writer::SerializedFileWriter;
        use parquet::schema::types::Type;
        let mut field = Type::primitive_type_builder("s", PhysicalType::BYTE_ARRAY)
            .with_repetition(Repetition::REQUIRED);
        if utf8 {
            field = field.with_logical_type(Some(LogicalType::String));
        }
        let schema = Type::group_type_builder("schema")
            .with_fields(vec![Arc::new(field.build().unwrap())])
            .build()
            .unwrap();
        let properties = WriterProperties::builder()
            .set_dictionary_enabled(dictionary)
            .build();
        let mut out = Vec::new();
        let mut writer =
            SerializedFileWriter::new(&mut out, Arc::new(schema), Arc::new(properties)).unwrap();
        let mut group = writer.next_row_group().unwrap();
        let mut column = group.next_column().unwrap().unwrap();
        let values: Vec<ByteArray> = values.iter().map(|v| ByteArray::from(v.to_vec())).collect();
        column
            .typed::<ByteArrayType>()
            .write_batch(&values, None, None)
            .unwrap();
        column.close().unwrap();
        group.close().unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    }

    /// The file read with `s` as `data_type` (a supplied schema), by one of the readers.
    fn read_as(file: &Bytes, data_type: DataType, ours: bool) -> Result<Vec<RecordBatch>, String> {
        let schema = Arc::new(arrow_schema::Schema::new(vec![Field::new(
            "s", data_type, false,
        )]));
        let options = ArrowReaderOptions::new().with_schema(schema);
        if ours {
            ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), options)
                .map_err(|e| e.to_string())?
                .with_batch_size(3)
                .build()
                .map_err(|e| e.to_string())?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())
        } else {
            ArrowRsBuilder::try_new_with_options(file.clone(), options)
                .map_err(|e| e.to_string())?
                .with_batch_size(3)
                .build()
                .map_err(|e| e.to_string())?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())
        }
    }

    #[test]
    fn invalid_utf8_read_as_utf8_or_utf8_view_is_an_error() {
        let long = [b'a'; 200];
        let cases: [&[&[u8]]; 4] = [
            // A lone continuation byte, inline.
            &[b"ok", b"\x80", b"fine"],
            // A value that ends inside a character, followed by one that starts with its
            // continuation (valid only read together).
            &[b"abc\xC3", b"\xA9def", b"x"],
            // Invalid bytes in a value of 13 bytes and more.
            &[b"0123456789abcdef\xFF", b"y"],
            // After a value of 128 bytes and more (its length prefix is not ASCII).
            &[&long, b"\xE2\x82"],
        ];
        // Utf8 from a dictionary is checked once per dictionary, entry by entry (not value
        // by value): an entry that is UTF-8 only with the next one is still refused.
        let types = [
            (DataType::Utf8View, DataType::BinaryView),
            (DataType::Utf8, DataType::Binary),
        ];
        for (i, values) in cases.iter().enumerate() {
            for (dictionary, (text, binary)) in [false, true]
                .into_iter()
                .flat_map(|d| types.iter().map(move |t| (d, t)))
            {
                let name = format!("case {i}, dictionary {dictionary}, {text}");
                // Annotated UTF8: both readers refuse it.
                let file = raw_file(values, true, dictionary);
                assert!(read_as(&file, text.clone(), true).is_err(), "{name}: ours");
                assert!(
                    read_as(&file, text.clone(), false).is_err(),
                    "{name}: arrow-rs"
                );
                // Not annotated: arrow-rs checks only UTF8 columns; ours checks every
                // Utf8View (never an array of invalid strings).
                let file = raw_file(values, false, dictionary);
                let ours = read_as(&file, text.clone(), true);
                assert!(ours.is_err(), "{name}, not annotated: ours read {ours:?}");
                // As binary, the bytes as they are, in both.
                let ours = read_as(&file, binary.clone(), true).unwrap();
                let theirs = read_as(&file, binary.clone(), false).unwrap();
                assert_same(&name, &ours, &theirs);
                assert_valid(&name, &ours);
            }
        }
        // Valid UTF-8 of every kind reads in both.
        let values: [&[u8]; 4] = [b"", "é€😀".as_bytes(), &long, "long-ωωωωωωωωωωω".as_bytes()];
        for dictionary in [false, true] {
            for (text, _) in &types {
                let file = raw_file(&values, true, dictionary);
                let ours = read_as(&file, text.clone(), true).unwrap();
                let theirs = read_as(&file, text.clone(), false).unwrap();
                assert_same("valid", &ours, &theirs);
                assert_valid("valid", &ours);
            }
        }
    }
}

// ---- Dictionary(Int32, Utf8) and Dictionary(Int32, Binary) -------------------------------

mod dictionaries {
    use super::*;
    use arrow_array::types::Int32Type;
    use arrow_array::{Array, DictionaryArray};

    fn dictionary_batch(seed: u64) -> RecordBatch {
        let mut r = Rng(seed);
        let n = 4_000;
        let words: Vec<String> = (0..60)
            .map(|i| format!("word-{i}-{}", "z".repeat(i % 15)))
            .collect();
        let strings: DictionaryArray<Int32Type> = (0..n)
            .map(|_| (!r.null(10)).then(|| words[r.below(60) as usize].as_str()))
            .collect();
        let required: DictionaryArray<Int32Type> =
            (0..n).map(|i| words[(i * 7) % 13].as_str()).collect();
        let binary_values = BinaryArray::from_iter_values((0..20).map(|i| vec![i as u8; i]));
        let keys = Int32Array::from_iter((0..n).map(|_| (!r.null(5)).then(|| r.below(20) as i32)));
        let binary = DictionaryArray::<Int32Type>::try_new(keys, Arc::new(binary_values)).unwrap();
        let all_null: DictionaryArray<Int32Type> = (0..n).map(|_| None::<&str>).collect();
        RecordBatch::try_from_iter_with_nullable([
            ("strings", Arc::new(strings) as ArrayRef, true),
            ("required", Arc::new(required) as ArrayRef, false),
            ("binary", Arc::new(binary) as ArrayRef, true),
            ("all_null", Arc::new(all_null) as ArrayRef, true),
        ])
        .unwrap()
    }

    fn dictionary_files() -> Vec<(&'static str, Bytes)> {
        let write = |properties: WriterProperties| {
            let mut out = Vec::new();
            let first = dictionary_batch(0x5EED_0001);
            let mut writer =
                ArrowWriter::try_new(&mut out, first.schema(), Some(properties)).unwrap();
            writer.write(&first).unwrap();
            writer.flush().unwrap();
            writer.write(&dictionary_batch(0x5EED_0002)).unwrap();
            writer.close().unwrap();
            Bytes::from(out)
        };
        let small_pages = || {
            WriterProperties::builder()
                .set_data_page_row_count_limit(500)
                .set_write_batch_size(100)
        };
        vec![
            ("dictionary pages", write(small_pages().build())),
            (
                "plain pages",
                write(small_pages().set_dictionary_enabled(false).build()),
            ),
            (
                "dictionary fallback, v2",
                write(
                    small_pages()
                        .set_writer_version(WriterVersion::PARQUET_2_0)
                        .set_dictionary_page_size_limit(64)
                        .build(),
                ),
            ),
        ]
    }

    #[test]
    fn dictionary_columns_equal_arrow_rs_and_are_read_here() {
        for (name, file) in dictionary_files() {
            let schema = ArrowRsBuilder::try_new(file.clone())
                .unwrap()
                .schema()
                .clone();
            assert!(
                matches!(
                    schema.field_with_name("strings").unwrap().data_type(),
                    DataType::Dictionary(_, _)
                ),
                "{name}: {schema:?}"
            );
            let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .build()
                .unwrap();
            assert!(
                reader.columns_read_by_arrow_rs().is_empty(),
                "{name}: {:?}",
                reader.columns_read_by_arrow_rs()
            );
            for batch_size in [1, 300, 1024, 10_000] {
                let ours = ours_all(&file, batch_size);
                let theirs = theirs_all(&file, batch_size);
                let name = format!("{name}, batch {batch_size}");
                assert_same(&name, &ours, &theirs);
                for batch in &ours {
                    for column in batch.columns() {
                        column.to_data().validate_full().unwrap();
                    }
                }
            }
            let selection = RowSelection::from(vec![
                RowSelector::skip(33),
                RowSelector::select(1_200),
                RowSelector::skip(2_000),
                RowSelector::select(3_000),
            ]);
            let (ours, theirs) = collect(
                ParquetRecordBatchReaderBuilder::try_new(file.clone())
                    .unwrap()
                    .with_batch_size(700)
                    .with_row_selection(selection.clone())
                    .with_offset(100)
                    .with_limit(3_500),
                ArrowRsBuilder::try_new(file.clone())
                    .unwrap()
                    .with_batch_size(700)
                    .with_row_selection(selection)
                    .with_offset(100)
                    .with_limit(3_500),
            );
            assert_same(&format!("{name}, selection"), &ours, &theirs);
            assert!(ours
                .iter()
                .all(|b| b.column(0).as_any().is::<DictionaryArray<Int32Type>>()));
        }
    }
}

/// `ChunkDecoder::decode_dictionary_indices_only`, which the view and dictionary columns'
/// pages go through: the same indices on the CPU path and as jobs (the fallback's model of
/// QPL), and the same refusal of a damaged stream.
#[test]
fn dictionary_indices_only_on_every_path() {
    use qpl_rs::parquet::codecs::hybrid;
    use qpl_rs::parquet::{ChunkDecoder, Column, Encoding, PhysicalType};
    let column = Column {
        physical_type: PhysicalType::ByteArray,
        max_def_level: 1,
        max_rep_level: 0,
    };
    let mut r = Rng(0xD1C7);
    // Runs (RLE) and noise (bit-packed), 1000 values of 7 bits.
    let indices: Vec<u32> = (0..1000)
        .map(|i| if i % 100 < 30 { 5 } else { r.below(100) as u32 })
        .collect();
    let mut section = vec![7u8];
    hybrid::encode(&indices, 7, &mut section).unwrap();
    let decoders = [
        ChunkDecoder::new(column, Path::Fallback),
        ChunkDecoder::new(column, Path::Fallback).force_jobs(),
    ];
    for mut decoder in decoders {
        let mut out = vec![1, 2, 3];
        decoder
            .decode_dictionary_indices_only(Encoding::RleDictionary, &section, 1000, &mut out)
            .unwrap();
        assert_eq!(out, indices);
        // Fewer values than asked for: an error, and nothing kept.
        let short = &section[..section.len() / 2];
        let result =
            decoder.decode_dictionary_indices_only(Encoding::RleDictionary, short, 1000, &mut out);
        assert!(result.is_err(), "a cut stream decodes?");
        assert!(out.is_empty());
        // Not a dictionary encoding.
        assert!(decoder
            .decode_dictionary_indices_only(Encoding::Plain, &section, 1000, &mut out)
            .is_err());
    }
}

/// A map whose keys and values disagree (a hand-made file: a row's keys and values differ
/// in number) is an error, not a map of misplaced entries or a panic.
#[test]
fn a_map_whose_keys_and_values_disagree_is_refused() {
    use parquet::data_type::{ByteArray, ByteArrayType, Int32Type as ParquetInt32};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    let schema = parse_message_type(
        "message schema {
            optional group m (MAP) {
                repeated group key_value {
                    required binary key (UTF8);
                    optional int32 value;
                }
            }
        }",
    )
    .unwrap();
    let write = |value_rep: &[i16]| {
        let mut out = Vec::new();
        let properties = Arc::new(WriterProperties::builder().build());
        let mut writer =
            SerializedFileWriter::new(&mut out, Arc::new(schema.clone()), properties).unwrap();
        let mut group = writer.next_row_group().unwrap();
        // Keys: {a, b}, {} (an empty map).
        let mut column = group.next_column().unwrap().unwrap();
        let keys = [ByteArray::from("a"), ByteArray::from("b")];
        column
            .typed::<ByteArrayType>()
            .write_batch(&keys, Some(&[2, 2, 1]), Some(&[0, 1, 0]))
            .unwrap();
        column.close().unwrap();
        let mut column = group.next_column().unwrap().unwrap();
        let def = vec![3; value_rep.len()];
        let values: Vec<i32> = (0..value_rep.len() as i32).collect();
        column
            .typed::<ParquetInt32>()
            .write_batch(&values, Some(&def), Some(value_rep))
            .unwrap();
        column.close().unwrap();
        group.close().unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    };
    let read = |file: Bytes| read_here(&file, 1024);
    // Values {0}, {1, 2}: two entries in the first row and one, then three, in the other.
    let e = read(write(&[0, 0, 1])).expect_err("keys and values disagree");
    assert!(e.contains("keys and values"), "{e}");
    // Values {0, 1}, {2} where the second map is empty: the same offsets, but an entry in
    // an empty map.
    let e = read(write(&[0, 1, 0])).expect_err("a value in an empty map");
    assert!(e.contains("keys and values"), "{e}");
}

#[test]
fn lists_of_structs_of_each_parquet_form_equal_arrow_rs_and_disagreeing_fields_are_refused() {
    use parquet::data_type::{ByteArray, ByteArrayType, Int32Type as ParquetInt32};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    type Levels<'a> = (&'a [i16], &'a [i16]);
    // Writes one row group of `schema` whose first leaf is INT32 and second `second_utf8`
    // or INT32, each with its (definition, repetition) levels; values fill what is present.
    let write = |schema: &str, max: [i16; 2], levels: [Levels; 2], second_utf8: bool| {
        let schema = Arc::new(parse_message_type(schema).unwrap());
        let mut out = Vec::new();
        let properties = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(&mut out, schema, properties).unwrap();
        let mut group = writer.next_row_group().unwrap();
        for (i, (def, rep)) in levels.into_iter().enumerate() {
            let present = def.iter().filter(|&&d| d == max[i]).count();
            let mut column = group.next_column().unwrap().unwrap();
            if i == 1 && second_utf8 {
                let values: Vec<ByteArray> = (0..present)
                    .map(|v| ByteArray::from(format!("s{v}").as_str()))
                    .collect();
                column
                    .typed::<ByteArrayType>()
                    .write_batch(&values, Some(def), Some(rep))
                    .unwrap();
            } else {
                let values: Vec<i32> = (0..present as i32).map(|v| v * 10 + i as i32).collect();
                column
                    .typed::<ParquetInt32>()
                    .write_batch(&values, Some(def), Some(rep))
                    .unwrap();
            }
            column.close().unwrap();
        }
        group.close().unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    };
    let read = |file: &Bytes| read_here(file, 2);
    let three_level = "message schema {
        optional group items (LIST) {
            repeated group list {
                optional group element { optional int32 a; optional int32 b; }
            }
        }
    }";
    // Rows: [{a, b}, null, {a, null}], null, [], [{null, b}]. Levels: 1 the list, 2 an
    // element, 3 its struct, 4 a value.
    let a: Levels = (&[4, 2, 4, 0, 1, 3], &[0, 1, 1, 0, 0, 0]);
    let b: Levels = (&[4, 2, 3, 0, 1, 4], &[0, 1, 1, 0, 0, 0]);
    let file = write(three_level, [4, 4], [a, b], false);
    let theirs = theirs_all(&file, 2);
    assert_same("three-level", &read(&file).unwrap(), &theirs);
    // The same rows with the second row's struct null in one field and present in the other.
    let b_disagrees: Levels = (&[4, 3, 3, 0, 1, 4], &[0, 1, 1, 0, 0, 0]);
    let e = read(&write(three_level, [4, 4], [a, b_disagrees], false)).expect_err("nulls differ");
    assert!(e.contains("differ in lengths or nulls"), "{e}");
    // One element more in the second field.
    let b_longer: Levels = (&[4, 2, 3, 4, 0, 1, 4], &[0, 1, 1, 1, 0, 0, 0]);
    let e = read(&write(three_level, [4, 4], [a, b_longer], false)).expect_err("lengths differ");
    assert!(e.contains("differ in lengths or nulls"), "{e}");
    // A struct in the element: `{a, inner: {s}}`, levels 4 an inner struct, 5 its string.
    let nested = "message schema {
        optional group items (LIST) {
            repeated group list {
                optional group element {
                    optional int32 a;
                    optional group inner { optional binary s (UTF8); }
                }
            }
        }
    }";
    // Rows: [{a, {s}}, null, {a, null}], null, [], [{null, {null}}].
    let s: Levels = (&[5, 2, 3, 0, 1, 4], &[0, 1, 1, 0, 0, 0]);
    let file = write(nested, [4, 5], [a, s], true);
    assert_same("nested", &read(&file).unwrap(), &theirs_all(&file, 2));
    // Its string leaf through a selection (dictionary indices looked up for the rows kept).
    let selection = RowSelection::from(vec![
        RowSelector::skip(1),
        RowSelector::select(2),
        RowSelector::skip(1),
    ]);
    let (ours, theirs) = selected_reads(&file, 1, &selection);
    assert_same("nested, selected", &ours, &theirs);
    // The element null in the string's levels only.
    let s_disagrees: Levels = (&[2, 2, 3, 0, 1, 4], &[0, 1, 1, 0, 0, 0]);
    let e = read(&write(nested, [4, 5], [a, s_disagrees], true)).expect_err("nulls differ");
    assert!(e.contains("differ in lengths or nulls"), "{e}");
    // Two-level (the repeated group is the struct, never null) with a required and an
    // optional string field; and an unannotated repeated group (the list never null).
    let two_level = "message schema {
        optional group items (LIST) {
            repeated group element { required int32 a; optional binary s (UTF8); }
        }
    }";
    let a: Levels = (&[2, 2, 0, 1, 2], &[0, 1, 0, 0, 0]);
    let s: Levels = (&[3, 2, 0, 1, 3], &[0, 1, 0, 0, 0]);
    let file = write(two_level, [2, 3], [a, s], true);
    assert_same("two-level", &read(&file).unwrap(), &theirs_all(&file, 2));
    let bare =
        "message schema { repeated group items { required int32 a; optional binary s (UTF8); } }";
    let a: Levels = (&[1, 1, 0, 1], &[0, 1, 0, 0]);
    let s: Levels = (&[2, 1, 0, 2], &[0, 1, 0, 0]);
    let file = write(bare, [1, 2], [a, s], true);
    assert_same("unannotated", &read(&file).unwrap(), &theirs_all(&file, 2));
}

#[test]
fn lists_of_four_levels_equal_arrow_rs() {
    // `list<large_list<list<list<int32>>>>` with null and empty lists at every level and null
    // elements, alone and inside a struct, over pages of a few rows: read here, level by
    // level, at batch sizes that cut rows' lists apart from their pages.
    let mut r = Rng(0x51ED_2700_1234_0001);
    let mut lists = ListBuilder::new(LargeListBuilder::new(ListBuilder::new(ListBuilder::new(
        Int32Builder::new(),
    ))));
    for _ in 0..3_000 {
        for _ in 0..r.below(3) {
            for _ in 0..r.below(3) {
                for _ in 0..r.below(3) {
                    for _ in 0..r.below(4) {
                        let value = r.below(1000) as i32;
                        let builder = lists.values().values().values().values();
                        builder.append_option((!r.null(10)).then_some(value));
                    }
                    let valid = !r.null(10);
                    lists.values().values().values().append(valid);
                }
                let valid = !r.null(10);
                lists.values().values().append(valid);
            }
            let valid = !r.null(10);
            lists.values().append(valid);
        }
        let valid = !r.null(10);
        lists.append(valid);
    }
    let lists = lists.finish();
    let rows = arrow_array::Array::len(&lists);
    let holder = StructArray::try_new(
        vec![Arc::new(Field::new(
            "lists",
            arrow_array::Array::data_type(&lists).clone(),
            true,
        ))]
        .into(),
        vec![Arc::new(lists.clone()) as ArrayRef],
        Some((0..rows).map(|i| i % 5 != 2).collect::<Vec<_>>().into()),
    )
    .unwrap();
    let batch = RecordBatch::try_from_iter([
        ("lists", Arc::new(lists) as ArrayRef),
        ("holder", Arc::new(holder) as ArrayRef),
    ])
    .unwrap();
    for dictionary in [true, false] {
        let properties = WriterProperties::builder()
            .set_data_page_row_count_limit(50)
            .set_write_batch_size(10)
            .set_dictionary_enabled(dictionary)
            .build();
        let mut out = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut out, batch.schema(), Some(properties)).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let file = Bytes::from(out);
        for batch_size in [1, 7, 1000] {
            let name = format!("dictionary {dictionary}, batch {batch_size}");
            let ours = read_here(&file, batch_size).unwrap();
            assert_same(&name, &ours, &theirs_all(&file, batch_size));
        }
        // A selection of short and long runs.
        let selection = RowSelection::from(vec![
            RowSelector::skip(3),
            RowSelector::select(2),
            RowSelector::skip(700),
            RowSelector::select(1500),
            RowSelector::skip(1),
            RowSelector::select(794),
        ]);
        let (ours, theirs) = selected_reads(&file, 64, &selection);
        assert_same(
            &format!("dictionary {dictionary}, selected"),
            &ours,
            &theirs,
        );
    }
}

#[test]
fn a_struct_whose_fields_disagree_on_its_nulls_is_refused() {
    use parquet::data_type::Int32Type as ParquetInt32;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    // A struct holding a flat field and a list: the struct is level 1 of both.
    let schema = Arc::new(
        parse_message_type(
            "message schema {
                optional group s {
                    optional int32 a;
                    optional group l (LIST) { repeated group list { required int32 element; } }
                }
            }",
        )
        .unwrap(),
    );
    let write = |a_def: &[i16]| {
        let mut out = Vec::new();
        let properties = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(&mut out, schema.clone(), properties).unwrap();
        let mut group = writer.next_row_group().unwrap();
        let mut column = group.next_column().unwrap().unwrap();
        let present = a_def.iter().filter(|&&d| d == 2).count() as i32;
        let values: Vec<i32> = (0..present).collect();
        column
            .typed::<ParquetInt32>()
            .write_batch(&values, Some(a_def), None)
            .unwrap();
        column.close().unwrap();
        // Rows: s.l = [7, 8], s null, s.l = [] (an empty list), s.l null.
        let mut column = group.next_column().unwrap().unwrap();
        column
            .typed::<ParquetInt32>()
            .write_batch(&[7, 8], Some(&[3, 3, 0, 2, 1]), Some(&[0, 1, 0, 0, 0]))
            .unwrap();
        column.close().unwrap();
        group.close().unwrap();
        writer.close().unwrap();
        Bytes::from(out)
    };
    let read = |file: &Bytes| read_here(file, 1024);
    // Agreeing: `a` is 5, the struct null, `a` null, `a` null.
    let file = write(&[2, 0, 1, 1]);
    assert_same("agreeing", &read(&file).unwrap(), &theirs_all(&file, 1024));
    // `a` has the struct present in the second row (null in `l`) and null in the third
    // (present in `l`).
    let e = read(&write(&[2, 1, 0, 1])).expect_err("the fields disagree");
    assert!(e.contains("differ in the struct's nulls"), "{e}");
}
