//! One test (or a few, same prefix) per decision of `docs/semantics.md`, D1–D21.
//! Expected values are written by hand from the document, or computed by plain code here.

mod common;

use common::{run_guarded, GUARD, SENTINEL};
use qpl_fallback::{
    encode_parquet_rle, pack_be, pack_le, Completion, Flags, Job, Operation, OutBitWidth, Parser,
    Status,
};

const MAX: u32 = u32::MAX;

fn job(op: Operation, bw: u32, n: u32) -> Job {
    Job {
        src1_bit_width: bw,
        src2_bit_width: 1,
        num_input_elements: n,
        ..Job::new(op)
    }
}

fn parquet(op: Operation, n: u32) -> Job {
    Job {
        parser: Parser::PARQUET_RLE,
        ..job(op, 0, n)
    }
}

fn extract_all(bw: u32, n: u32) -> Job {
    Job {
        param_high: n - 1,
        ..job(Operation::Extract, bw, n)
    }
}

/// Runs with a guarded destination; returns the status or (written bytes, completion).
fn run(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
) -> Result<(Vec<u8>, Completion), Status> {
    let (result, buf) = run_guarded(job, src1, src2, dst_len);
    result.map(|c| {
        let dst = &buf[GUARD..GUARD + dst_len];
        assert!(
            dst[c.total_out as usize..].iter().all(|&b| b == SENTINEL),
            "bytes written past total_out"
        );
        (dst[..c.total_out as usize].to_vec(), c)
    })
}

fn status(job: &Job, src1: &[u8], src2: Option<&[u8]>, dst_len: usize) -> Status {
    match run(job, src1, src2, dst_len) {
        Ok(_) => Status::OK,
        Err(s) => s,
    }
}

fn aggregates(c: &Completion) -> (u32, u32, u32) {
    (c.first_index_min_value, c.last_index_max_value, c.sum_value)
}

/// RLE run header + value for the hybrid (count < 2^21 here: header in ≤ 3 bytes).
fn rle(count: u32, value: u32, bw: u32) -> Vec<u8> {
    let mut out = common::varint(
        u64::from(count) << 1,
        common::varint_len(u64::from(count) << 1),
    );
    out.extend(&value.to_le_bytes()[..bw.div_ceil(8) as usize]);
    out
}

/// Bit-packed run of `values.len() / 8` groups.
fn bit_packed(values: &[u32], bw: u32) -> Vec<u8> {
    assert_eq!(values.len() % 8, 0);
    let h = ((values.len() as u64 / 8) << 1) | 1;
    let mut out = common::varint(h, common::varint_len(h));
    out.extend(pack_le(values, bw).unwrap());
    out
}

fn stream(bw: u32, runs: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![bw as u8];
    for r in runs {
        out.extend(r);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// D1 — validation: §3's checks, in §3's order. Each case fails two checks; the earlier wins.

#[test]
fn d01_validation_order_general_checks() {
    let src = [0u8; 64];
    let mask = [0xFFu8; 8];
    let scan = job(Operation::ScanEq, 8, 16);
    // §1.3: CANNED_MODE → 50 before D2's early return and before 57.
    let canned = Flags::CANNED_MODE;
    let early = Job {
        param_low: 5,
        param_high: 1,
        flags: canned,
        ..job(Operation::Extract, 8, 4)
    };
    assert_eq!(status(&early, &src, None, 8), Status::NULL_PTR_ERR);
    assert_eq!(
        status(
            &Job {
                num_input_elements: 0,
                flags: canned,
                ..scan
            },
            &src,
            None,
            8
        ),
        Status::NULL_PTR_ERR
    );
    // 57 (n = 0, empty dst, empty source) before 75 (drop too large).
    let big_drop = Job {
        drop_initial_bytes: 100,
        ..scan
    };
    assert_eq!(
        status(
            &Job {
                num_input_elements: 0,
                ..big_drop
            },
            &src,
            None,
            8
        ),
        Status::SIZE_ERR
    );
    assert_eq!(status(&big_drop, &src, None, 0), Status::SIZE_ERR);
    assert_eq!(status(&big_drop, &[], None, 8), Status::SIZE_ERR);
    // select/expand: 57 (n = 0) before 50 (missing src2); 50 before 75 (any drop) and 72.
    for op in [Operation::Select, Operation::Expand] {
        let j = Job {
            drop_initial_bytes: 1,
            out_bit_width: OutBitWidth(9),
            ..job(op, 8, 16)
        };
        assert_eq!(
            status(
                &Job {
                    num_input_elements: 0,
                    ..j
                },
                &src,
                None,
                64
            ),
            Status::SIZE_ERR
        );
        assert_eq!(status(&j, &src, None, 64), Status::NULL_PTR_ERR);
        // An empty mask: 57 before 75.
        assert_eq!(status(&j, &src, Some(&[]), 64), Status::SIZE_ERR);
        // 75 for any nonzero drop, before 72.
        assert_eq!(status(&j, &src, Some(&mask), 64), Status::DROP_BYTES_ERR);
    }
    // 75 before 72 (out_bit_width > 3); drop == len passes 75, drop > 65535 fails.
    let ow9 = Job {
        out_bit_width: OutBitWidth(9),
        ..big_drop
    };
    assert_eq!(status(&ow9, &src, None, 8), Status::DROP_BYTES_ERR);
    assert_eq!(
        status(
            &Job {
                drop_initial_bytes: 64,
                ..ow9
            },
            &src,
            None,
            8
        ),
        Status::OUT_FORMAT_ERR
    );
    let long = vec![0u8; 70_000];
    let j = Job {
        drop_initial_bytes: 65_535,
        ..job(Operation::ScanEq, 8, 100)
    };
    assert_eq!(status(&j, &long, None, 64), Status::OK);
    assert_eq!(
        status(
            &Job {
                drop_initial_bytes: 65_536,
                ..j
            },
            &long,
            None,
            64
        ),
        Status::DROP_BYTES_ERR
    );
    // 72 (ow > 3; force-array with nominal width) before 231 (bit width 0).
    let bw0 = job(Operation::ScanEq, 0, 16);
    assert_eq!(
        status(
            &Job {
                out_bit_width: OutBitWidth(4),
                ..bw0
            },
            &src,
            None,
            8
        ),
        Status::OUT_FORMAT_ERR
    );
    assert_eq!(
        status(
            &Job {
                flags: Flags::FORCE_ARRAY_OUTPUT,
                ..bw0
            },
            &src,
            None,
            8
        ),
        Status::OUT_FORMAT_ERR
    );
    // 231 before 71 (parser 7); Parquet's width byte is the width checked.
    assert_eq!(
        status(
            &Job {
                parser: Parser(7),
                ..bw0
            },
            &src,
            None,
            8
        ),
        Status::BIT_WIDTH_ERR
    );
    assert_eq!(
        status(&parquet(Operation::ScanEq, 16), &[33, 0x20, 1], None, 8),
        Status::BIT_WIDTH_ERR
    );
    // 71 before D13's 72 (bw 12 into 8-bit elements).
    let narrow = Job {
        out_bit_width: OutBitWidth::W8,
        ..extract_all(12, 16)
    };
    assert_eq!(
        status(
            &Job {
                parser: Parser(7),
                ..narrow
            },
            &src,
            None,
            64
        ),
        Status::PARSER_ERR
    );
    // D13's 72 before the operation checks (232 short source; 231 src2 width).
    assert_eq!(status(&narrow, &src[..2], None, 64), Status::OUT_FORMAT_ERR);
    let sel = Job {
        out_bit_width: OutBitWidth::W8,
        src2_bit_width: 2,
        ..job(Operation::Select, 12, 16)
    };
    assert_eq!(status(&sel, &src, Some(&mask), 64), Status::OUT_FORMAT_ERR);
}

#[test]
fn d01_validation_order_scan_checks() {
    let src = [0u8; 64];
    // Nominal scan: 225 (⌈n/8⌉ > dst) before 232 (short source).
    let scan = job(Operation::ScanEq, 8, 100);
    assert_eq!(status(&scan, &src[..1], None, 12), Status::DST_IS_SHORT_ERR);
    assert_eq!(status(&scan, &src[..1], None, 13), Status::SRC_IS_SHORT_ERR);
    // 232 (short source, counting the dropped bytes, D12) before 221 (index overflow pre-check).
    let idx = Job {
        out_bit_width: OutBitWidth::W8,
        param_low: 1,
        ..job(Operation::ScanEq, 8, 300)
    };
    assert_eq!(status(&idx, &[0u8; 299], None, 8), Status::SRC_IS_SHORT_ERR);
    assert_eq!(
        status(
            &Job {
                drop_initial_bytes: 1,
                ..idx
            },
            &[0u8; 300],
            None,
            8
        ),
        Status::SRC_IS_SHORT_ERR
    );
    // 221 fires on n alone (no element matches), also through initial_output_index.
    assert_eq!(
        status(&idx, &[0u8; 300], None, 8),
        Status::OUTPUT_OVERFLOW_ERR
    );
    let n257 = Job {
        num_input_elements: 257,
        ..idx
    };
    assert_eq!(
        status(&n257, &[0u8; 300], None, 8),
        Status::OUTPUT_OVERFLOW_ERR
    );
    assert_eq!(
        status(
            &Job {
                num_input_elements: 256,
                ..idx
            },
            &[0u8; 300],
            None,
            8
        ),
        Status::OK
    );
    let shifted = Job {
        num_input_elements: 10,
        initial_output_index: 247,
        ..idx
    };
    assert_eq!(status(&shifted, &src, None, 8), Status::OUTPUT_OVERFLOW_ERR);
    assert_eq!(
        status(
            &Job {
                initial_output_index: 246,
                ..shifted
            },
            &src,
            None,
            8
        ),
        Status::OK
    );
    let w16 = Job {
        out_bit_width: OutBitWidth::W16,
        initial_output_index: 65_530,
        ..shifted
    };
    assert_eq!(status(&w16, &src, None, 8), Status::OUTPUT_OVERFLOW_ERR);
    let w32 = Job {
        out_bit_width: OutBitWidth::W32,
        initial_output_index: MAX - 8,
        ..shifted
    };
    assert_eq!(status(&w32, &src, None, 8), Status::OUTPUT_OVERFLOW_ERR);
    assert_eq!(
        status(
            &Job {
                initial_output_index: MAX - 9,
                ..w32
            },
            &src,
            None,
            8
        ),
        Status::OK
    );
}

#[test]
fn d01_validation_order_extract_select_expand_checks() {
    let src = [0u8; 400];
    // Extract: 232 (short) before 221 (bw 1 index list with n - 1 > 255).
    let ex = Job {
        out_bit_width: OutBitWidth::W8,
        param_high: MAX,
        ..job(Operation::Extract, 1, 300)
    };
    assert_eq!(status(&ex, &src[..37], None, 64), Status::SRC_IS_SHORT_ERR);
    assert_eq!(
        status(&ex, &src[..38], None, 64),
        Status::OUTPUT_OVERFLOW_ERR
    );
    // Select: 231 (src2 width) before 55 (initial index) before 232 (short mask) before 221.
    let mask = [0u8; 38];
    let sel = Job {
        out_bit_width: OutBitWidth::W8,
        src2_bit_width: 2,
        initial_output_index: 1,
        ..job(Operation::Select, 1, 300)
    };
    assert_eq!(
        status(&sel, &src, Some(&mask[..37]), 64),
        Status::BIT_WIDTH_ERR
    );
    let sel = Job {
        src2_bit_width: 1,
        ..sel
    };
    assert_eq!(
        status(&sel, &src, Some(&mask[..37]), 64),
        Status::INVALID_PARAM_ERR
    );
    let sel = Job {
        initial_output_index: 0,
        ..sel
    };
    assert_eq!(
        status(&sel, &src, Some(&mask[..37]), 64),
        Status::SRC_IS_SHORT_ERR
    );
    assert_eq!(
        status(&sel, &src[..37], Some(&mask), 64),
        Status::SRC_IS_SHORT_ERR
    );
    assert_eq!(
        status(&sel, &src, Some(&mask), 64),
        Status::OUTPUT_OVERFLOW_ERR
    );
    // Expand: 231 before 55 before 232 (short mask); no index pre-check (zero mask: OK).
    let exp = Job {
        out_bit_width: OutBitWidth::W8,
        src2_bit_width: 0,
        initial_output_index: 7,
        ..job(Operation::Expand, 1, 300)
    };
    assert_eq!(
        status(&exp, &src, Some(&mask[..37]), 64),
        Status::BIT_WIDTH_ERR
    );
    let exp = Job {
        src2_bit_width: 1,
        ..exp
    };
    assert_eq!(
        status(&exp, &src, Some(&mask[..37]), 64),
        Status::INVALID_PARAM_ERR
    );
    let exp = Job {
        initial_output_index: 0,
        ..exp
    };
    assert_eq!(
        status(&exp, &src, Some(&mask[..37]), 64),
        Status::SRC_IS_SHORT_ERR
    );
    assert_eq!(status(&exp, &src, Some(&mask), 64), Status::OK);
    // ... but a run-time 221 once an index passes 255 (300 ones; dst large enough).
    let ones = [0xFFu8; 38];
    assert_eq!(
        status(&exp, &[0xFF; 38], Some(&ones), 1024),
        Status::OUTPUT_OVERFLOW_ERR
    );
    // Missing src2 for select/expand → 50 even when everything else is valid.
    assert_eq!(
        status(
            &Job {
                out_bit_width: OutBitWidth::NOMINAL,
                ..exp
            },
            &src,
            None,
            64
        ),
        Status::NULL_PTR_ERR
    );
}

// ---------------------------------------------------------------------------------------------

#[test]
fn d02_extract_low_above_high_is_ok_with_nothing_written() {
    let src = [1u8, 2, 3, 4];
    let expected = Completion {
        first_index_min_value: 0,
        ..Completion::default()
    };
    // Even with n 0, bit width 0, parser 7, out_bit_width 9, and an empty destination.
    let odd = Job {
        param_low: 3,
        param_high: 2,
        parser: Parser(7),
        out_bit_width: OutBitWidth(9),
        ..job(Operation::Extract, 0, 0)
    };
    for (j, dst_len) in [
        (
            Job {
                param_low: 1,
                param_high: 0,
                ..extract_all(8, 4)
            },
            4,
        ),
        (odd, 0),
        (odd, 4),
    ] {
        let (result, buf) = run_guarded(&j, &src, None, dst_len);
        assert_eq!(result, Ok(expected));
        assert!(buf.iter().all(|&b| b == SENTINEL), "destination untouched");
    }
}

#[test]
fn d03_parquet_bit_width_byte_must_be_1_to_32() {
    let j = Job {
        param_high: 3,
        ..parquet(Operation::Extract, 4)
    };
    for bw in [0u8, 33, 40, 255] {
        assert_eq!(
            status(&j, &[bw, 0x08, 0, 0, 0, 0], None, 64),
            Status::BIT_WIDTH_ERR,
            "bw {bw}"
        );
    }
    // 1 and 32 are accepted; src1_bit_width is ignored (0, 5, 40 alike).
    for field in [0, 5, 40] {
        let j = Job {
            src1_bit_width: field,
            out_bit_width: OutBitWidth::W8,
            ..j
        };
        let (out, _) = run(&j, &[1, 0x08, 1], None, 4).unwrap();
        assert_eq!(out, [0, 1, 2, 3], "bw 1 RLE 4×1 as an index list");
        let (out, _) = run(
            &Job {
                out_bit_width: OutBitWidth::W32,
                ..j
            },
            &[32, 0x08, 0x78, 0x56, 0x34, 0x12],
            None,
            16,
        )
        .unwrap();
        assert_eq!(out, [0x78, 0x56, 0x34, 0x12].repeat(4));
    }
}

#[test]
fn d04_varint_longer_than_4_bytes_is_prle_format_error() {
    let j = Job {
        param_high: 0,
        out_bit_width: OutBitWidth::W8,
        ..parquet(Operation::Extract, 1)
    };
    // 1..=4-byte headers for "RLE run of 1" are accepted, non-canonical padding included.
    for len in 1..=4 {
        let mut s = vec![3u8];
        s.extend(common::varint(2, len));
        s.push(5);
        assert_eq!(run(&j, &s, None, 1).unwrap().0, [5], "{len}-byte header");
    }
    // A 4th byte still continuing: 220, whatever follows (even nothing).
    assert_eq!(
        status(&j, &[3, 0x82, 0x80, 0x80, 0x80, 0x00, 5], None, 1),
        Status::PRLE_FORMAT_ERR
    );
    assert_eq!(
        status(&j, &[3, 0x82, 0x80, 0x80, 0x80], None, 1),
        Status::PRLE_FORMAT_ERR
    );
    // Bit-packed headers too.
    assert_eq!(
        status(&j, &[3, 0x83, 0x80, 0x80, 0x80, 0x00, 0, 0, 0], None, 1),
        Status::PRLE_FORMAT_ERR
    );
    // A header cut before its 4th byte is a truncation: 232.
    assert_eq!(
        status(&j, &[3, 0x82, 0x80, 0x80], None, 1),
        Status::SRC_IS_SHORT_ERR
    );
    // The long header after the last wanted value is never read.
    let j2 = Job {
        num_input_elements: 1,
        ..j
    };
    assert_eq!(
        run(&j2, &[3, 0x02, 5, 0x82, 0x80, 0x80, 0x80, 0x80], None, 1)
            .unwrap()
            .0,
        [5]
    );
}

#[test]
fn d05_rle_values_are_not_masked_except_in_nominal_packing() {
    // bw 3, RLE 1 × 0xF9 (low 3 bits 001), RLE 7 × 0.
    let s = stream(3, &[rle(1, 0xF9, 3), rle(7, 0, 3)]);
    let ex = extract_all(3, 8);
    let (out, c) = run(
        &Job {
            parser: Parser::PARQUET_RLE,
            out_bit_width: OutBitWidth::W8,
            ..ex
        },
        &s,
        None,
        8,
    )
    .unwrap();
    assert_eq!(out, [0xF9, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(aggregates(&c), (0, 0xF9, 0xF9));
    // Nominal packing masks to 3 bits (no spill into later elements); aggregates stay raw.
    let (out, c) = run(
        &Job {
            parser: Parser::PARQUET_RLE,
            ..ex
        },
        &s,
        None,
        3,
    )
    .unwrap();
    assert_eq!(out, [0x01, 0x00, 0x00]);
    assert_eq!(aggregates(&c), (0, 0xF9, 0xF9));
    let (out, _) = run(
        &Job {
            parser: Parser::PARQUET_RLE,
            flags: Flags::OUT_BE,
            ..ex
        },
        &s,
        None,
        3,
    )
    .unwrap();
    assert_eq!(out, [0b0010_0000, 0, 0]);
    // Scans compare the full value against parameters masked to bw: 0xFF vs 7.
    let s = stream(3, &[rle(4, 0xFF, 3), rle(4, 7, 3)]);
    let scan = |op, low| Job {
        param_low: low,
        ..parquet(op, 8)
    };
    assert_eq!(
        run(&scan(Operation::ScanEq, 7), &s, None, 1).unwrap().0,
        [0xF0]
    );
    assert_eq!(
        run(&scan(Operation::ScanEq, 0xFF), &s, None, 1).unwrap().0,
        [0xF0],
        "param masked to 7"
    );
    assert_eq!(
        run(&scan(Operation::ScanGt, 6), &s, None, 1).unwrap().0,
        [0xFF]
    );
    assert_eq!(
        run(&scan(Operation::ScanLe, 7), &s, None, 1).unwrap().0,
        [0xF0]
    );
    // bw 9: two value bytes, 0xFFFF kept; bw 17: three bytes.
    let s9 = stream(9, &[rle(2, 0xFFFF, 9)]);
    let j9 = Job {
        parser: Parser::PARQUET_RLE,
        out_bit_width: OutBitWidth::W16,
        ..extract_all(0, 2)
    };
    assert_eq!(run(&j9, &s9, None, 4).unwrap().0, [0xFF; 4]);
    let s17 = stream(17, &[rle(1, 0xFF_FFFF, 17)]);
    let j17 = Job {
        out_bit_width: OutBitWidth::W32,
        ..j9
    };
    assert_eq!(
        run(
            &Job {
                num_input_elements: 1,
                param_high: 0,
                ..j17
            },
            &s17,
            None,
            4
        )
        .unwrap()
        .0,
        [0xFF, 0xFF, 0xFF, 0]
    );
    // bw 1 with RLE values 2 and 3: nominal bits and forced 0/1 arrays use bit 0; index lists
    // and bit aggregates count any nonzero value.
    let s1 = stream(1, &[rle(2, 2, 1), rle(2, 3, 1), rle(4, 0, 1)]);
    let j1 = Job {
        parser: Parser::PARQUET_RLE,
        ..extract_all(0, 8)
    };
    let (out, c) = run(&j1, &s1, None, 1).unwrap();
    assert_eq!(out, [0b0000_1100]);
    assert_eq!(aggregates(&c), (0, 3, 4));
    let (out, _) = run(
        &Job {
            out_bit_width: OutBitWidth::W8,
            ..j1
        },
        &s1,
        None,
        8,
    )
    .unwrap();
    assert_eq!(out, [0, 1, 2, 3]);
    let forced = Job {
        out_bit_width: OutBitWidth::W8,
        flags: Flags::FORCE_ARRAY_OUTPUT,
        ..j1
    };
    let (out, c) = run(&forced, &s1, None, 8).unwrap();
    assert_eq!(out, [0, 0, 1, 1, 0, 0, 0, 0]);
    assert_eq!(aggregates(&c), (0, 3, 4));
}

#[test]
fn d06_truncated_streams_are_src_is_short() {
    let j = |n| Job {
        out_bit_width: OutBitWidth::W32,
        ..Job {
            parser: Parser::PARQUET_RLE,
            ..extract_all(0, n)
        }
    };
    let cases: [(&[u8], u32); 8] = [
        (&[3], 1),                            // only the width byte
        (&[3, 0x82], 1),                      // header cut after a continuing byte
        (&[3, 0x02], 1),                      // RLE value missing
        (&[9, 0x02, 0xFF], 1),                // bw 9: second value byte missing
        (&[3, 0x03, 0x88, 0xC6], 1),          // bit-packed group missing its last byte
        (&[3, 0x05, 0x88, 0xC6, 0xFA, 0], 9), // second group incomplete, holds value 8
        (&[3, 0x08, 1], 5),                   // 4 values, 5 wanted
        (&[3, 0x08, 1, 0x00, 2], 5),          // zero-length run does not help
    ];
    for (s, n) in cases {
        assert_eq!(
            status(&j(n), s, None, 64),
            Status::SRC_IS_SHORT_ERR,
            "{s:?} n {n}"
        );
    }
    // The same through scan, select and expand.
    let s = [3u8, 0x08, 1];
    assert_eq!(
        status(&parquet(Operation::ScanEq, 5), &s, None, 8),
        Status::SRC_IS_SHORT_ERR
    );
    assert_eq!(
        status(&parquet(Operation::Select, 5), &s, Some(&[0xFF]), 8),
        Status::SRC_IS_SHORT_ERR
    );
    assert_eq!(
        status(&parquet(Operation::Expand, 8), &s, Some(&[0x1F]), 8),
        Status::SRC_IS_SHORT_ERR
    );
}

#[test]
fn d07_streams_longer_than_n_are_ok() {
    // RLE 20001 × 5 with n = 20000 (QPL's step-boundary 232 is not copied), and the variants.
    for (count, n, junk) in [
        (20_001, 20_000, false),
        (20_000, 20_000, false),
        (20_001, 20_000, true),
        (16_450, 16_449, false),
    ] {
        let mut s = stream(3, &[rle(count, 5, 3)]);
        if junk {
            s.push(0xFF);
        }
        let j = Job {
            param_low: 5,
            ..parquet(Operation::ScanEq, n)
        };
        let (out, c) = run(&j, &s, None, n as usize / 8 + 1).unwrap();
        assert_eq!(c.sum_value, n);
        assert_eq!(
            (c.first_index_min_value, c.last_index_max_value),
            (0, n - 1)
        );
        assert!(out[..n as usize / 8].iter().all(|&b| b == 0xFF));
        assert_eq!(c.total_out as usize, (n as usize).div_ceil(8));
    }
    // Extra values in a bit-packed run and garbage after the last wanted value are ignored.
    let mut s = stream(3, &[bit_packed(&[1, 2, 3, 4, 5, 6, 7, 0], 3)]);
    s.extend([0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    let j = Job {
        parser: Parser::PARQUET_RLE,
        out_bit_width: OutBitWidth::W8,
        ..extract_all(0, 3)
    };
    assert_eq!(run(&j, &s, None, 3).unwrap().0, [1, 2, 3]);
    // Packed sources longer than needed.
    assert_eq!(
        run(
            &Job {
                out_bit_width: OutBitWidth::W8,
                ..extract_all(4, 2)
            },
            &[0x21, 0x43, 0x65],
            None,
            2
        )
        .unwrap()
        .0,
        [1, 2]
    );
}

#[test]
fn d08_bit_packed_run_with_fewer_than_8_values_wanted() {
    // bw 3, one group 0..7, n = 5: OK (QPL gives 225).
    let s = [3u8, 0x03, 0x88, 0xC6, 0xFA];
    for n in 1..=8 {
        let j = Job {
            parser: Parser::PARQUET_RLE,
            out_bit_width: OutBitWidth::W8,
            ..extract_all(0, n)
        };
        let expected: Vec<u8> = (0..n as u8).collect();
        assert_eq!(run(&j, &s, None, 8).unwrap().0, expected);
    }
    let scan = Job {
        param_low: 2,
        ..parquet(Operation::ScanGe, 5)
    };
    assert_eq!(run(&scan, &s, None, 1).unwrap().0, [0b1_1100]);
    // After an RLE run: r:5 b:1, n = 10; and a bit-packed run starting just before n ends at a
    // large count (QPL's step boundary at 16448).
    let s = stream(3, &[rle(5, 7, 3), bit_packed(&[0, 1, 2, 3, 4, 5, 6, 7], 3)]);
    let j = Job {
        parser: Parser::PARQUET_RLE,
        out_bit_width: OutBitWidth::W8,
        ..extract_all(0, 10)
    };
    assert_eq!(
        run(&j, &s, None, 10).unwrap().0,
        [7, 7, 7, 7, 7, 0, 1, 2, 3, 4]
    );
    let s = stream(
        3,
        &[rle(16_446, 7, 3), bit_packed(&[0, 1, 2, 3, 4, 5, 6, 7], 3)],
    );
    let j = Job {
        param_low: 2,
        ..parquet(Operation::ScanEq, 16_449)
    };
    let (_, c) = run(&j, &s, None, 2100).unwrap();
    assert_eq!(aggregates(&c), (16_448, 16_448, 1));
}

#[test]
fn d09_zero_length_runs_are_allowed_anywhere() {
    let empty_rle = rle(0, 6, 3);
    let empty_bp = vec![0x01];
    let body = [
        rle(3, 2, 3),
        bit_packed(&[0, 1, 2, 3, 4, 5, 6, 7], 3),
        rle(2, 5, 3),
    ];
    let expected = [2u8, 2, 2, 0, 1, 2, 3, 4, 5, 6, 7, 5, 5];
    let j = Job {
        parser: Parser::PARQUET_RLE,
        out_bit_width: OutBitWidth::W8,
        ..extract_all(0, 13)
    };
    for at in 0..=body.len() {
        for zero in [&empty_rle, &empty_bp] {
            let mut runs: Vec<Vec<u8>> = body.to_vec();
            runs.insert(at, zero.clone());
            runs.insert(at, zero.clone());
            assert_eq!(
                run(&j, &stream(3, &runs), None, 13).unwrap().0,
                expected,
                "at {at}"
            );
        }
    }
    // A padded zero-length header (4 bytes) too.
    let mut runs = body.to_vec();
    runs.insert(1, vec![0x81, 0x80, 0x80, 0x00]);
    assert_eq!(run(&j, &stream(3, &runs), None, 13).unwrap().0, expected);
}

#[test]
fn d10_select_outputs_every_selected_element() {
    let n = 32_896usize;
    let values: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 24)
        .collect();
    let mask = vec![0xFFu8; n / 8];
    let expected: Vec<u8> = values.iter().map(|&v| v as u8).collect();
    for (parser, src) in [
        (Parser::LE_PACKED, pack_le(&values, 8).unwrap()),
        (Parser::PARQUET_RLE, encode_parquet_rle(&values, 8).unwrap()),
    ] {
        let j = Job {
            parser,
            ..job(Operation::Select, 8, n as u32)
        };
        let (out, c) = run(&j, &src, Some(&mask), n).unwrap();
        assert_eq!(c.total_out as usize, n, "{parser:?}");
        assert_eq!(out, expected);
    }
    // Every other element.
    let j = job(Operation::Select, 8, n as u32);
    let alt = vec![0x55u8; n / 8];
    let (out, _) = run(&j, &pack_le(&values, 8).unwrap(), Some(&alt), n).unwrap();
    let evens: Vec<u8> = expected.iter().step_by(2).copied().collect();
    assert_eq!(out, evens);
}

#[test]
fn d11_expand_outputs_exactly_n_elements() {
    let src = vec![7u8; 3000];
    // Zero mask with spare bytes (QPL overshoots to 20800).
    let j = job(Operation::Expand, 8, 20_000);
    let (out, c) = run(&j, &src, Some(&vec![0u8; 2600]), 21_000).unwrap();
    assert_eq!(c.total_out, 20_000);
    assert!(out.iter().all(|&b| b == 0));
    // Spare mask bytes with ones beyond n are ignored.
    let mut mask = vec![0u8; 2600];
    mask[0] = 0b101;
    mask[2500..].fill(0xFF);
    let (out, c) = run(&j, &src, Some(&mask), 21_000).unwrap();
    assert_eq!(c.total_out, 20_000);
    assert_eq!(&out[..4], [7, 0, 7, 0]);
    assert!(out[4..].iter().all(|&b| b == 0));
    assert_eq!(aggregates(&c), (0, 7, 14));
    // n not a multiple of 8, bw 1 nominal: ⌈n/8⌉ bytes.
    let j = job(Operation::Expand, 1, 13);
    let (out, c) = run(&j, &[0xFF; 2], Some(&[0xFF, 0xFF, 0xFF]), 8).unwrap();
    assert_eq!(out, [0xFF, 0x1F]);
    assert_eq!(c.last_bit_offset, 5);
}

#[test]
fn d12_no_reads_beyond_the_source() {
    // Packed: drop + ⌈n·bw/8⌉ bytes needed (n 10 × bw 5 = 7 bytes).
    for op in [Operation::ScanEq, Operation::Extract] {
        let j = Job {
            drop_initial_bytes: 3,
            param_high: 9,
            ..job(op, 5, 10)
        };
        assert_eq!(
            status(&j, &[0; 9], None, 64),
            Status::SRC_IS_SHORT_ERR,
            "{op}"
        );
        assert_eq!(status(&j, &[0; 10], None, 64), Status::OK, "{op}");
        // drop == len passes 75 but then has no data: 232.
        assert_eq!(
            status(
                &Job {
                    drop_initial_bytes: 10,
                    ..j
                },
                &[0; 10],
                None,
                64
            ),
            Status::SRC_IS_SHORT_ERR
        );
    }
    // Expand: ⌈popcount·bw/8⌉ bytes. Mask with 3 ones among 100 bits, bw 8: 3 bytes.
    let mut mask = [0u8; 13];
    mask[0] = 0b1000_0001;
    mask[12] = 0b1000;
    let j = job(Operation::Expand, 8, 100);
    let (out, _) = run(&j, &[4, 5, 6], Some(&mask), 100).unwrap();
    assert_eq!((out[0], out[7], out[99]), (4, 5, 6));
    assert_eq!(out.iter().map(|&b| u32::from(b)).sum::<u32>(), 15);
    assert_eq!(
        status(&j, &[4, 5], Some(&mask), 100),
        Status::SRC_IS_SHORT_ERR
    );
    // bw 3: ⌈9/8⌉ = 2 bytes for 3 values.
    let j3 = job(Operation::Expand, 3, 100);
    assert_eq!(status(&j3, &[0xFF, 0x01], Some(&mask), 100), Status::OK);
    assert_eq!(
        status(&j3, &[0xFF], Some(&mask), 100),
        Status::SRC_IS_SHORT_ERR
    );
    // Parquet expand: popcount values suffice (QPL wants min(C, n)); fewer → 232.
    let jp = Job {
        parser: Parser::PARQUET_RLE,
        out_bit_width: OutBitWidth::W8,
        ..job(Operation::Expand, 0, 100)
    };
    let (out, _) = run(&jp, &stream(3, &[rle(3, 6, 3)]), Some(&mask), 100).unwrap();
    assert_eq!((out[0], out[7], out[99], out[1]), (6, 6, 6, 0));
    assert_eq!(
        status(&jp, &stream(3, &[rle(2, 6, 3)]), Some(&mask), 100),
        Status::SRC_IS_SHORT_ERR
    );
    // Parquet with drop: runs start after width byte + drop; dropping into the run → short.
    let s = [3u8, 0xEE, 0xEE, 0x08, 5];
    let jd = Job {
        parser: Parser::PARQUET_RLE,
        drop_initial_bytes: 2,
        out_bit_width: OutBitWidth::W8,
        ..extract_all(0, 4)
    };
    assert_eq!(run(&jd, &s, None, 4).unwrap().0, [5; 4]);
    assert_eq!(
        status(
            &Job {
                drop_initial_bytes: 4,
                ..jd
            },
            &s,
            None,
            4
        ),
        Status::SRC_IS_SHORT_ERR
    );
    assert_eq!(
        status(
            &Job {
                drop_initial_bytes: 5,
                ..jd
            },
            &s,
            None,
            4
        ),
        Status::SRC_IS_SHORT_ERR
    );
}

#[test]
fn d13_out_bit_width_narrower_than_elements_is_72() {
    for (bw, ow) in [(9, 1), (12, 1), (16, 1), (17, 1), (17, 2), (20, 2), (32, 2)] {
        for op in [Operation::Extract, Operation::Select, Operation::Expand] {
            let j = Job {
                out_bit_width: OutBitWidth(ow),
                param_high: 3,
                ..job(op, bw, 4)
            };
            let (result, buf) = run_guarded(&j, &[0xFF; 16], Some(&[0xF]), 64);
            assert_eq!(result, Err(Status::OUT_FORMAT_ERR), "bw {bw} ow {ow} {op}");
            assert!(buf.iter().all(|&b| b == SENTINEL), "nothing written");
        }
    }
    // Parquet: the stream's width counts.
    let j = Job {
        parser: Parser::PARQUET_RLE,
        out_bit_width: OutBitWidth::W8,
        src1_bit_width: 8,
        ..extract_all(0, 1)
    };
    assert_eq!(
        status(&j, &[12, 0x02, 1, 0], None, 8),
        Status::OUT_FORMAT_ERR
    );
    // Wide enough is fine; scans (1-bit nominal) are never narrowed.
    let (out, _) = run(
        &Job {
            out_bit_width: OutBitWidth::W16,
            ..extract_all(9, 2)
        },
        &[0xFF, 0xFF, 0xFF],
        None,
        4,
    )
    .unwrap();
    assert_eq!(out, [0xFF, 0x01, 0xFF, 0x01]);
    let scan = Job {
        out_bit_width: OutBitWidth::W8,
        param_low: 0,
        ..job(Operation::ScanNe, 20, 2)
    };
    assert_eq!(run(&scan, &[0, 0, 0x10, 0, 0], None, 4).unwrap().0, [1]);
}

#[test]
fn d14_destination_full_is_225_without_writing_past_it() {
    let bytes = [0xFFu8; 64];
    let mask = [0xFFu8; 8];
    let be = Flags::OUT_BE;
    let force = Flags::FORCE_ARRAY_OUTPUT;
    // (job, src2, bytes the full output needs)
    let mut cases: Vec<(Job, Option<&[u8]>, usize)> = vec![
        (job(Operation::ScanGe, 8, 17), None, 3),
        (
            Job {
                param_high: 7,
                ..job(Operation::Extract, 3, 8)
            },
            None,
            3,
        ),
        (
            Job {
                param_high: 7,
                flags: be,
                ..job(Operation::Extract, 3, 8)
            },
            None,
            3,
        ),
        (
            Job {
                param_high: 20,
                ..job(Operation::Extract, 1, 21)
            },
            None,
            3,
        ),
        (job(Operation::Select, 5, 16), Some(&mask), 10),
        (job(Operation::Expand, 5, 16), Some(&mask), 10),
        (job(Operation::Expand, 8, 16), Some(&mask), 16),
    ];
    for ow in 1..=3u32 {
        let w = 1usize << (ow - 1);
        for flags in [Flags::NONE, be] {
            let scan_idx = Job {
                out_bit_width: OutBitWidth(ow),
                flags,
                ..job(Operation::ScanGe, 8, 3)
            };
            cases.push((scan_idx, None, 3 * w));
            cases.push((
                Job {
                    flags: flags | force,
                    ..scan_idx
                },
                None,
                3 * w,
            ));
            let ex = Job {
                out_bit_width: OutBitWidth(ow),
                flags,
                param_high: 4,
                ..job(Operation::Extract, 8, 5)
            };
            cases.push((ex, None, 5 * w));
            cases.push((
                Job {
                    src1_bit_width: 1,
                    ..ex
                },
                None,
                5 * w,
            ));
            cases.push((
                Job {
                    src1_bit_width: 1,
                    flags: flags | force,
                    ..ex
                },
                None,
                5 * w,
            ));
            cases.push((
                Job {
                    out_bit_width: OutBitWidth(ow),
                    flags,
                    ..job(Operation::Select, 1, 9)
                },
                Some(&mask),
                9 * w,
            ));
            cases.push((
                Job {
                    out_bit_width: OutBitWidth(ow),
                    flags,
                    ..job(Operation::Expand, 1, 9)
                },
                Some(&mask),
                9 * w,
            ));
            cases.push((
                Job {
                    out_bit_width: OutBitWidth(ow),
                    flags,
                    ..job(Operation::Expand, 4, 9)
                },
                Some(&mask),
                9 * w,
            ));
        }
    }
    for (j, src2, needed) in cases {
        assert_eq!(
            status(&j, &bytes, src2, needed),
            Status::OK,
            "{j:?} fits in {needed}"
        );
        for short in 1..needed {
            assert_eq!(
                status(&j, &bytes, src2, short),
                Status::DST_IS_SHORT_ERR,
                "{j:?} in {short}"
            );
        }
    }
    // Parquet RLE runs (the run path of the writer), every output kind.
    let s = stream(8, &[rle(100, 5, 8)]);
    for ow in 0..=3 {
        for flags in [Flags::NONE, be] {
            let j = Job {
                parser: Parser::PARQUET_RLE,
                out_bit_width: OutBitWidth(ow),
                flags,
                ..extract_all(0, 100)
            };
            let needed = if ow == 0 { 100 } else { 100 << (ow - 1) };
            assert_eq!(status(&j, &s, None, needed), Status::OK);
            assert_eq!(status(&j, &s, None, needed - 1), Status::DST_IS_SHORT_ERR);
            let scan = Job {
                param_low: 5,
                ..Job {
                    operation: Operation::ScanEq,
                    ..j
                }
            };
            let needed = if ow == 0 { 13 } else { 100 << (ow - 1) };
            assert_eq!(status(&scan, &s, None, needed), Status::OK);
            assert_eq!(
                status(&scan, &s, None, needed - 1),
                Status::DST_IS_SHORT_ERR
            );
        }
    }
    // §6.7's case: big-endian 32-bit index list, two indices, 5 bytes → 225 (not 8 bytes).
    let j = Job {
        out_bit_width: OutBitWidth::W32,
        flags: be,
        ..job(Operation::ScanGe, 8, 2)
    };
    assert_eq!(status(&j, &[1, 1], None, 5), Status::DST_IS_SHORT_ERR);
}

#[test]
fn d15_force_array_output_writes_0_1_elements() {
    let src = pack_le(&[3, 1, 4, 1, 5, 9, 2, 6, 5, 3], 4).unwrap();
    let matches = [0u8, 1, 0, 1, 0, 0, 0, 0, 0, 0]; // == 1
    for ow in 1..=3u32 {
        let w = 1usize << (ow - 1);
        for be in [false, true] {
            let flags = Flags::FORCE_ARRAY_OUTPUT | if be { Flags::OUT_BE } else { Flags::NONE };
            let j = Job {
                param_low: 1,
                out_bit_width: OutBitWidth(ow),
                flags,
                ..job(Operation::ScanEq, 4, 10)
            };
            let (out, c) = run(&j, &src, None, 40).unwrap();
            let expected: Vec<u8> = matches
                .iter()
                .flat_map(|&m| {
                    let mut e = vec![0u8; w];
                    e[if be { w - 1 } else { 0 }] = m;
                    e
                })
                .collect();
            assert_eq!(out, expected, "ow {ow} be {be}");
            assert_eq!(c.last_bit_offset, 0);
            assert_eq!(aggregates(&c), (1, 3, 2), "bit aggregates");
        }
    }
    // Force skips the index-overflow pre-check: 300 elements into 8-bit 0/1 elements.
    let j = Job {
        out_bit_width: OutBitWidth::W8,
        flags: Flags::FORCE_ARRAY_OUTPUT,
        ..job(Operation::ScanEq, 8, 300)
    };
    let (out, c) = run(&j, &[0u8; 300], None, 300).unwrap();
    assert_eq!(out, vec![1u8; 300]);
    assert_eq!(aggregates(&c), (0, 299, 300));
    // bw-1 extract/select/expand: 0/1 elements, not an index list.
    let bits = [0b1010_0110u8];
    let ex = Job {
        out_bit_width: OutBitWidth::W8,
        flags: Flags::FORCE_ARRAY_OUTPUT,
        param_low: 1,
        param_high: 6,
        ..job(Operation::Extract, 1, 8)
    };
    assert_eq!(run(&ex, &bits, None, 8).unwrap().0, [1, 1, 0, 0, 1, 0]);
    let sel = Job {
        operation: Operation::Select,
        ..ex
    };
    assert_eq!(run(&sel, &bits, Some(&[0xF0]), 8).unwrap().0, [0, 1, 0, 1]);
    let exp = Job {
        operation: Operation::Expand,
        ..ex
    };
    assert_eq!(
        run(&exp, &bits, Some(&[0x0F]), 8).unwrap().0,
        [0, 1, 1, 0, 0, 0, 0, 0]
    );
    // With the nominal width: 72. With a non-1-bit nominal output the flag changes nothing.
    assert_eq!(
        status(
            &Job {
                out_bit_width: OutBitWidth::NOMINAL,
                ..ex
            },
            &bits,
            None,
            8
        ),
        Status::OUT_FORMAT_ERR
    );
    let arr = Job {
        out_bit_width: OutBitWidth::W16,
        param_high: 9,
        ..job(Operation::Extract, 4, 10)
    };
    let plain = run(&arr, &src, None, 20).unwrap();
    assert_eq!(
        run(
            &Job {
                flags: Flags::FORCE_ARRAY_OUTPUT,
                ..arr
            },
            &src,
            None,
            20
        )
        .unwrap(),
        plain
    );
    assert_eq!(&plain.0[..4], [3, 0, 1, 0]);
}

#[test]
fn d16_aggregates() {
    // Scan: first/last/popcount, not offset by initial_output_index (indices are).
    let values = [0u32, 7, 2, 7, 7, 1, 0, 7, 3];
    let src = pack_le(&values, 3).unwrap();
    let scan = Job {
        param_low: 7,
        ..job(Operation::ScanEq, 3, 9)
    };
    let (out, c) = run(&scan, &src, None, 2).unwrap();
    assert_eq!(out, [0b1001_1010, 0]);
    assert_eq!(aggregates(&c), (1, 7, 4));
    let idx = Job {
        out_bit_width: OutBitWidth::W16,
        initial_output_index: 1000,
        ..scan
    };
    let (out, c) = run(&idx, &src, None, 8).unwrap();
    assert_eq!(out, [0xE9, 0x03, 0xEB, 0x03, 0xEC, 0x03, 0xEF, 0x03]);
    assert_eq!(aggregates(&c), (1, 7, 4));
    // No match: 0xFFFFFFFF / 0 / 0.
    let (_, c) = run(
        &Job {
            param_low: 5,
            ..scan
        },
        &src,
        None,
        2,
    )
    .unwrap();
    assert_eq!(aggregates(&c), (MAX, 0, 0));
    // QPL's 64-multiple step bug is not copied: n 16512, one match at 5.
    let mut big = vec![0u8; 16_512];
    big[5] = 9;
    let (_, c) = run(
        &Job {
            param_low: 9,
            ..job(Operation::ScanEq, 8, 16_512)
        },
        &big,
        None,
        2064,
    )
    .unwrap();
    assert_eq!(aggregates(&c), (5, 5, 1));
    // Extract arrays: min / max / wrapping sum of the values, whatever the output width.
    let wide = pack_le(&[MAX, 5, MAX - 1, 9], 32).unwrap();
    for ow in [0, 3] {
        let j = Job {
            out_bit_width: OutBitWidth(ow),
            param_low: 0,
            param_high: 2,
            ..job(Operation::Extract, 32, 4)
        };
        let (_, c) = run(&j, &wide, None, 16).unwrap();
        assert_eq!(aggregates(&c), (5, MAX, 2));
    }
    // Extract of nothing (param_low ≥ n): initial values.
    let j = Job {
        param_low: 9,
        param_high: 20,
        ..job(Operation::Extract, 3, 9)
    };
    let (out, c) = run(&j, &src, None, 4).unwrap();
    assert!(out.is_empty());
    assert_eq!(aggregates(&c), (MAX, 0, 0));
    // Select / expand with bw > 1: value aggregates (not QPL's byte-based quirk).
    let s16 = pack_le(&[1, 0, 3, 4], 16).unwrap();
    let sel = job(Operation::Select, 16, 4);
    let (_, c) = run(&sel, &s16, Some(&[0x0F]), 8).unwrap();
    assert_eq!(aggregates(&c), (0, 4, 8));
    let (_, c) = run(&sel, &s16, Some(&[0x0D]), 8).unwrap();
    assert_eq!(aggregates(&c), (1, 4, 8));
    let exp = job(Operation::Expand, 16, 6);
    let (out, c) = run(&exp, &s16, Some(&[0b10_1101]), 12).unwrap();
    assert_eq!(out, [1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 4, 0]);
    assert_eq!(aggregates(&c), (0, 4, 8));
    let s8 = [0u8, 3, 0, 4, 5, 0, 7, 0];
    let (_, c) = run(&job(Operation::Select, 8, 8), &s8, Some(&[0xFF]), 8).unwrap();
    assert_eq!(aggregates(&c), (0, 7, 19));
    // bw 1: bit aggregates over the output vector.
    let bits = [0b0110_1000u8, 0b1];
    let ex = Job {
        param_low: 2,
        param_high: 8,
        ..job(Operation::Extract, 1, 9)
    };
    let (out, c) = run(&ex, &bits, None, 1).unwrap();
    assert_eq!(out, [0b101_1010]);
    assert_eq!(aggregates(&c), (1, 6, 4));
    let (_, c) = run(
        &Job {
            operation: Operation::Select,
            ..ex
        },
        &bits,
        Some(&[0xF0, 1]),
        4,
    )
    .unwrap();
    assert_eq!(aggregates(&c), (1, 4, 3), "selected 0,1,1,0,1");
    let (_, c) = run(
        &Job {
            operation: Operation::Expand,
            ..ex
        },
        &bits,
        Some(&[0b1010_1010, 0]),
        4,
    )
    .unwrap();
    assert_eq!(
        aggregates(&c),
        (7, 7, 1),
        "expanded 0,0,0,0,0,0,0,1,0 from source 0,0,0,1"
    );
    let (_, c) = run(
        &Job {
            operation: Operation::Expand,
            ..ex
        },
        &bits,
        Some(&[0xFF, 1]),
        4,
    )
    .unwrap();
    assert_eq!(aggregates(&c), (3, 8, 4), "expanded 0,0,0,1,0,1,1,0,1");
    let (_, c) = run(
        &Job {
            operation: Operation::Expand,
            ..ex
        },
        &bits,
        Some(&[0b0111, 0]),
        4,
    )
    .unwrap();
    assert_eq!(
        aggregates(&c),
        (MAX, 0, 0),
        "expanded 0,0,0,0,0,0,0,0,0 from source 0,0,0"
    );
    // OMIT_AGGREGATES: 0xFFFFFFFF / 0 / 0 for every kind.
    for (j, src2) in [
        (scan, None),
        (
            Job {
                param_high: 8,
                ..job(Operation::Extract, 3, 9)
            },
            None,
        ),
        (job(Operation::Select, 3, 9), Some(&[0xFF, 1][..])),
    ] {
        let j = Job {
            flags: Flags::OMIT_AGGREGATES,
            ..j
        };
        let (_, c) = run(&j, &src, src2, 8).unwrap();
        assert_eq!(aggregates(&c), (MAX, 0, 0), "{j:?}");
    }
}

#[test]
fn d17_checksums_cover_the_whole_source_1_buffer() {
    // Parquet with a dropped prologue and trailing garbage: all bytes count, width byte too.
    let s = [3u8, 0xAA, 0xBB, 0x08, 5, 0xCC, 0xDD, 0xEE];
    let j = Job {
        parser: Parser::PARQUET_RLE,
        drop_initial_bytes: 2,
        out_bit_width: OutBitWidth::W8,
        ..extract_all(0, 4)
    };
    let (_, c) = run(&j, &s, None, 4).unwrap();
    assert_eq!(c.crc, crc32fast::hash(&s));
    assert_eq!(c.xor_checksum, 0xAA03 ^ 0x08BB ^ 0xCC05 ^ 0xEEDD);
    let (_, c) = run(
        &Job {
            flags: Flags::CRC32C,
            ..j
        },
        &s,
        None,
        4,
    )
    .unwrap();
    assert_eq!(c.crc, crc32c::crc32c(&s));
    let (_, c) = run(
        &Job {
            flags: Flags::OMIT_CHECKSUMS | Flags::CRC32C,
            ..j
        },
        &s,
        None,
        4,
    )
    .unwrap();
    assert_eq!((c.crc, c.xor_checksum), (0, 0));
    // Packed scan with drop: the dropped bytes count; never source-2.
    let src = [9u8, 9, 1, 2, 3];
    let j = Job {
        drop_initial_bytes: 2,
        ..job(Operation::ScanEq, 8, 3)
    };
    let (_, c) = run(&j, &src, None, 1).unwrap();
    assert_eq!(
        (c.crc, c.xor_checksum),
        (crc32fast::hash(&src), 0x0909 ^ 0x0201 ^ 0x0003)
    );
    let sel = job(Operation::Select, 8, 5);
    let (_, a) = run(&sel, &src, Some(&[0x1F]), 8).unwrap();
    let (_, b) = run(&sel, &src, Some(&[0x03, 0xFF]), 8).unwrap();
    assert_eq!((a.crc, a.xor_checksum), (b.crc, b.xor_checksum));
    assert_eq!(a.crc, crc32fast::hash(&src));
}

#[test]
fn d18_last_bit_offset() {
    let src = [0xFFu8; 8];
    let scan = |n| job(Operation::ScanEq, 1, n);
    assert_eq!(
        run(
            &Job {
                param_low: 1,
                ..scan(13)
            },
            &src,
            None,
            2
        )
        .unwrap()
        .1
        .last_bit_offset,
        5
    );
    assert_eq!(
        run(
            &Job {
                param_low: 1,
                ..scan(16)
            },
            &src,
            None,
            2
        )
        .unwrap()
        .1
        .last_bit_offset,
        0
    );
    let idx = Job {
        param_low: 1,
        out_bit_width: OutBitWidth::W8,
        ..scan(13)
    };
    assert_eq!(run(&idx, &src, None, 13).unwrap().1.last_bit_offset, 0);
    // Extract bw 1: from the elements really written (n 16, lo 1, hi 100 → 15 → 7, not 4).
    let ex = Job {
        param_low: 1,
        param_high: 100,
        ..job(Operation::Extract, 1, 16)
    };
    let (out, c) = run(&ex, &src, None, 2).unwrap();
    assert_eq!((out, c.last_bit_offset), (vec![0xFF, 0x7F], 7));
    // Arrays and packed widths > 1: 0, even ending mid-byte.
    assert_eq!(
        run(
            &Job {
                param_low: 0,
                param_high: 4,
                ..job(Operation::Extract, 3, 5)
            },
            &src,
            None,
            2
        )
        .unwrap()
        .1
        .last_bit_offset,
        0
    );
    // Select bw 1: popcount(mask) mod 8; expand bw 1: n mod 8; forced arrays: 0.
    assert_eq!(
        run(&job(Operation::Select, 1, 16), &src, Some(&[0x07, 0]), 2)
            .unwrap()
            .1
            .last_bit_offset,
        3
    );
    assert_eq!(
        run(&job(Operation::Expand, 1, 11), &src, Some(&[0x01, 0]), 2)
            .unwrap()
            .1
            .last_bit_offset,
        3
    );
    let forced = Job {
        param_low: 1,
        out_bit_width: OutBitWidth::W8,
        flags: Flags::FORCE_ARRAY_OUTPUT,
        ..scan(13)
    };
    assert_eq!(run(&forced, &src, None, 13).unwrap().1.last_bit_offset, 0);
}

#[test]
fn d19_drop_initial_bytes_honoured_by_every_parser() {
    // LE 8/16/32 extract (QPL ignores drop there) — and LE 4, BE 8, BE 16.
    for (bw, parser) in [
        (8, Parser::LE_PACKED),
        (16, Parser::LE_PACKED),
        (32, Parser::LE_PACKED),
        (4, Parser::LE_PACKED),
        (8, Parser::BE_PACKED),
        (16, Parser::BE_PACKED),
    ] {
        let values = [1u32, 2, 3, 4];
        let body = if parser == Parser::LE_PACKED {
            pack_le(&values, bw)
        } else {
            pack_be(&values, bw)
        }
        .unwrap();
        let mut src = vec![0xEE; 3];
        src.extend(&body);
        let j = Job {
            parser,
            drop_initial_bytes: 3,
            out_bit_width: OutBitWidth::W32,
            ..extract_all(bw, 4)
        };
        let (out, _) = run(&j, &src, None, 16).unwrap();
        let expected: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(out, expected, "bw {bw} {parser:?}");
        // And through a scan.
        let scan = Job {
            operation: Operation::ScanGe,
            param_low: 3,
            ..j
        };
        let scan = Job {
            out_bit_width: OutBitWidth::NOMINAL,
            ..scan
        };
        assert_eq!(run(&scan, &src, None, 1).unwrap().0, [0b1100]);
    }
    // Parquet: after the width byte.
    let s = [8u8, 0xEE, 0x08, 0x2A];
    let j = Job {
        parser: Parser::PARQUET_RLE,
        drop_initial_bytes: 1,
        ..extract_all(0, 4)
    };
    assert_eq!(run(&j, &s, None, 4).unwrap().0, [0x2A; 4]);
}

#[test]
fn d20_bit_orders() {
    // Parsers: bw 5 values, LE and BE packings.
    let values = [31u32, 0, 17, 5, 12];
    for (parser, src) in [
        (Parser::LE_PACKED, pack_le(&values, 5).unwrap()),
        (Parser::BE_PACKED, pack_be(&values, 5).unwrap()),
    ] {
        let j = Job {
            parser,
            out_bit_width: OutBitWidth::W8,
            ..extract_all(5, 5)
        };
        assert_eq!(run(&j, &src, None, 5).unwrap().0, [31, 0, 17, 5, 12]);
    }
    // Hand-packed BE: 11111 00000 10001 00101 01100 → 11111000 00100010 01010110 0.......
    assert_eq!(pack_be(&values, 5).unwrap(), [0xF8, 0x22, 0x56, 0x00]);
    // Hand-packed LE: 31 | 0<<5 | 17<<10 | 5<<15 | 12<<20 = 0xC2C41F.
    assert_eq!(pack_le(&values, 5).unwrap(), [0x1F, 0xC4, 0xC2, 0x00]);
    // SRC2_BE: mask 0b1000_0001 selects elements 0 and 7 either way; 0b1100_0000 differs.
    let src: Vec<u8> = (10..18).collect();
    let sel = job(Operation::Select, 8, 8);
    assert_eq!(run(&sel, &src, Some(&[0xC0]), 8).unwrap().0, [16, 17]);
    assert_eq!(
        run(
            &Job {
                flags: Flags::SRC2_BE,
                ..sel
            },
            &src,
            Some(&[0xC0]),
            8
        )
        .unwrap()
        .0,
        [10, 11]
    );
    let exp = job(Operation::Expand, 8, 8);
    assert_eq!(
        run(
            &Job {
                flags: Flags::SRC2_BE,
                ..exp
            },
            &src,
            Some(&[0xA0]),
            8
        )
        .unwrap()
        .0,
        [10, 0, 11, 0, 0, 0, 0, 0]
    );
    // OUT_BE arrays: extract bw 3 → 16-bit BE: 00 02 00 03.
    let s3 = pack_le(&[2, 3], 3).unwrap();
    let j = Job {
        out_bit_width: OutBitWidth::W16,
        flags: Flags::OUT_BE,
        ..extract_all(3, 2)
    };
    assert_eq!(run(&j, &s3, None, 4).unwrap().0, [0, 2, 0, 3]);
    assert_eq!(
        run(
            &Job {
                out_bit_width: OutBitWidth::W32,
                ..j
            },
            &s3,
            None,
            8
        )
        .unwrap()
        .0,
        [0, 0, 0, 2, 0, 0, 0, 3]
    );
    // OUT_BE nominal packing: bit vectors MSB first, bw 5 elements MSB first.
    let scan = Job {
        param_low: 1,
        flags: Flags::OUT_BE,
        ..job(Operation::ScanEq, 8, 10)
    };
    let ones = [1u8, 0, 0, 1, 1, 1, 1, 1, 0, 1];
    assert_eq!(
        run(&scan, &ones, None, 2).unwrap().0,
        [0b1001_1111, 0b0100_0000]
    );
    assert_eq!(
        run(
            &Job {
                flags: Flags::NONE,
                ..scan
            },
            &ones,
            None,
            2
        )
        .unwrap()
        .0,
        [0b1111_1001, 0b10]
    );
    let j = Job {
        flags: Flags::OUT_BE,
        ..extract_all(5, 5)
    };
    assert_eq!(
        run(&j, &pack_le(&values, 5).unwrap(), None, 4).unwrap().0,
        [0xF8, 0x22, 0x56, 0x00]
    );
    // OUT_BE index lists: scan with initial_output_index 1000, 16- and 32-bit.
    let idx = Job {
        out_bit_width: OutBitWidth::W16,
        initial_output_index: 1000,
        ..scan
    };
    assert_eq!(
        run(&idx, &ones, None, 14).unwrap().0[..4],
        [0x03, 0xE8, 0x03, 0xEB]
    );
    let idx = Job {
        out_bit_width: OutBitWidth::W32,
        ..idx
    };
    assert_eq!(
        run(&idx, &ones, None, 28).unwrap().0[..8],
        [0, 0, 0x03, 0xE8, 0, 0, 0x03, 0xEB]
    );
}

#[test]
fn d21_initial_output_index_shifts_index_lists_only() {
    let ones = [1u8, 0, 0, 1];
    let scan = Job {
        param_low: 1,
        ..job(Operation::ScanEq, 8, 4)
    };
    // Nominal output unchanged by it.
    let plain = run(&scan, &ones, None, 1).unwrap();
    assert_eq!(
        run(
            &Job {
                initial_output_index: 77,
                ..scan
            },
            &ones,
            None,
            1
        )
        .unwrap(),
        plain
    );
    let idx = Job {
        out_bit_width: OutBitWidth::W8,
        initial_output_index: 77,
        ..scan
    };
    let (out, c) = run(&idx, &ones, None, 4).unwrap();
    assert_eq!(out, [77, 80]);
    assert_eq!(aggregates(&c), (0, 3, 2));
    // Extract bw 1: positions within the extracted range (param_low 1: element 1 → index 0).
    let ex = Job {
        param_low: 1,
        param_high: 7,
        out_bit_width: OutBitWidth::W8,
        initial_output_index: 10,
        ..job(Operation::Extract, 1, 8)
    };
    assert_eq!(run(&ex, &[0b1000_1010], None, 8).unwrap().0, [10, 12, 16]);
    // Array outputs ignore it.
    let arr = Job {
        param_low: 0,
        param_high: 1,
        out_bit_width: OutBitWidth::W8,
        initial_output_index: 10,
        ..job(Operation::Extract, 4, 2)
    };
    assert_eq!(run(&arr, &[0x21], None, 2).unwrap().0, [1, 2]);
    // Select / expand: must be 0.
    for op in [Operation::Select, Operation::Expand] {
        let j = Job {
            initial_output_index: 1,
            ..job(op, 8, 4)
        };
        assert_eq!(
            status(&j, &ones, Some(&[0xF]), 8),
            Status::INVALID_PARAM_ERR,
            "{op}"
        );
        assert_eq!(
            status(
                &Job {
                    initial_output_index: 0,
                    ..j
                },
                &ones,
                Some(&[0xF]),
                8
            ),
            Status::OK
        );
    }
}

/// Not a Part I row: a job asking to inflate source-1 first inflates it (docs/decompress.md)
/// and runs as the uncompressed job, never on the compressed bytes as if they were values.
#[test]
fn decompress_enable_inflates_source_1_first() {
    let src = pack_le(&[1, 2, 3, 4], 4).unwrap();
    // A stored deflate block holding `src`: BFINAL 1, BTYPE 00, LEN, NLEN, the bytes.
    let mut stored = vec![0x01, 2, 0, !2u8, 0xFF];
    stored.extend_from_slice(&src);
    let job = Job {
        src1_bit_width: 4,
        num_input_elements: 4,
        param_high: 3,
        ..Job::new(Operation::Extract)
    };
    let mut plain = [0u8; 4];
    let expected = qpl_fallback::execute(&job, &src, None, &mut plain);
    let mut inflated = [0u8; 4];
    let compressed = Job {
        flags: Flags::DECOMPRESS_ENABLE,
        ..job
    };
    assert_eq!(
        qpl_fallback::execute(&compressed, &stored, None, &mut inflated),
        expected
    );
    assert_eq!(inflated, plain);
    assert_eq!(expected.map(|c| c.total_out), Ok(2));
    // The stored bytes read as values would be another result.
    assert_ne!(
        qpl_fallback::execute(&job, &stored, None, &mut [0u8; 4]),
        expected
    );
}
