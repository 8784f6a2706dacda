//! `Flags::DECOMPRESS_ENABLE` (docs/decompress.md): every analytics operation on every parser,
//! with source-1 deflate-compressed (raw, gzip, zlib; stored, fixed and dynamic blocks), gives
//! exactly the uncompressed job's result; hostile streams get statuses, never a panic.

use std::io::Write;

use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
use flate2::Compression;
use qpl_fallback::{
    encode_parquet_rle, execute, pack_be, pack_le, Completion, Flags, Job, Operation, OutBitWidth,
    Parser, Status,
};

#[derive(Clone, Copy, Debug)]
enum Framing {
    Raw,
    Gzip,
    Zlib,
}

impl Framing {
    fn flags(self) -> Flags {
        match self {
            Framing::Raw => Flags::DECOMPRESS_ENABLE,
            Framing::Gzip => Flags::DECOMPRESS_ENABLE | Flags::GZIP_MODE,
            Framing::Zlib => Flags::DECOMPRESS_ENABLE | Flags::ZLIB_MODE,
        }
    }
}

fn compress(data: &[u8], framing: Framing, level: u32) -> Vec<u8> {
    let level = Compression::new(level);
    match framing {
        Framing::Raw => {
            let mut e = DeflateEncoder::new(Vec::new(), level);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Framing::Gzip => {
            let mut e = GzEncoder::new(Vec::new(), level);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Framing::Zlib => {
            let mut e = ZlibEncoder::new(Vec::new(), level);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

/// Values with runs and noise, so that deflate finds matches and literals.
fn values(n: usize, bw: u32, seed: u64) -> Vec<u32> {
    let mask = if bw == 32 { u32::MAX } else { (1 << bw) - 1 };
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let run = if x.is_multiple_of(3) {
            (x >> 50) as usize % 40 + 1
        } else {
            1
        };
        out.extend(std::iter::repeat_n(
            (x >> 8) as u32 & mask,
            run.min(n - out.len()),
        ));
    }
    out
}

fn run(
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    dst_len: usize,
) -> (Result<Completion, Status>, Vec<u8>) {
    let mut dst = vec![0x5A; dst_len];
    let result = execute(job, src1, src2, &mut dst);
    let bytes = match &result {
        Ok(c) => dst[..c.total_out as usize].to_vec(),
        Err(_) => Vec::new(),
    };
    (result, bytes)
}

fn source(parser: Parser, vals: &[u32], bw: u32) -> Vec<u8> {
    match parser {
        Parser::LE_PACKED => pack_le(vals, bw).unwrap(),
        Parser::BE_PACKED => pack_be(vals, bw).unwrap(),
        _ => encode_parquet_rle(vals, bw).unwrap(),
    }
}

fn job_for(op: Operation, parser: Parser, bw: u32, n: usize) -> Job {
    let mut job = Job {
        parser,
        src1_bit_width: bw,
        src2_bit_width: 1,
        num_input_elements: n as u32,
        param_low: 3,
        param_high: 9,
        ..Job::new(op)
    };
    if op == Operation::Extract {
        job.param_low = 5;
        job.param_high = n as u32 - 7;
    }
    job
}

#[test]
fn every_operation_parser_and_framing_matches_the_uncompressed_job() {
    let mut checked = 0;
    for (i, &bw) in [1u32, 3, 8, 13, 16, 32].iter().enumerate() {
        let n = 3000 + 37 * i;
        let vals = values(n, bw, 11 + i as u64);
        let mask: Vec<u8> = values(n.div_ceil(8), 8, 99 + i as u64)
            .iter()
            .map(|&v| v as u8)
            .collect();
        for parser in [Parser::LE_PACKED, Parser::BE_PACKED, Parser::PARQUET_RLE] {
            let plain_src = source(parser, &vals, bw);
            for (framing, level) in [
                (Framing::Raw, 0),
                (Framing::Raw, 1),
                (Framing::Raw, 6),
                (Framing::Gzip, 9),
                (Framing::Zlib, 6),
            ] {
                let compressed = compress(&plain_src, framing, level);
                for op in Operation::ALL {
                    for (out, extra) in [
                        (OutBitWidth::NOMINAL, Flags::NONE),
                        (OutBitWidth::W32, Flags::CRC32C | Flags::OUT_BE),
                    ] {
                        let mut job = job_for(op, parser, bw, n);
                        job.out_bit_width = out;
                        job.flags = extra;
                        let src2 = op.uses_mask().then_some(mask.as_slice());
                        let expected = run(&job, &plain_src, src2, 4 * n + 64);
                        job.flags = extra | framing.flags();
                        let got = run(&job, &compressed, src2, 4 * n + 64);
                        assert_eq!(
                            got, expected,
                            "{op} {parser:?} bw {bw} {framing:?} level {level} {out:?}"
                        );
                        assert!(expected.0.is_ok() || out != OutBitWidth::NOMINAL);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 6 * 3 * 5 * 11 * 2);
}

#[test]
fn dropped_bytes_and_fewer_elements_than_the_page_holds() {
    let bw = 7;
    let vals = values(5000, bw, 5);
    let prologue = [0xEEu8; 11];
    for parser in [Parser::LE_PACKED, Parser::PARQUET_RLE] {
        let encoded = source(parser, &vals, bw);
        let mut plain = encoded.clone();
        let at = usize::from(parser == Parser::PARQUET_RLE);
        plain.splice(at..at, prologue);
        let compressed = compress(&plain, Framing::Raw, 6);
        for n in [1usize, 100, 4999, 5000] {
            for omit in [Flags::NONE, Flags::OMIT_CHECKSUMS] {
                let mut job = job_for(Operation::ScanRange, parser, bw, n);
                job.drop_initial_bytes = prologue.len() as u32;
                job.flags = omit;
                let expected = run(&job, &plain, None, n);
                job.flags = omit | Flags::DECOMPRESS_ENABLE;
                assert_eq!(
                    run(&job, &compressed, None, n),
                    expected,
                    "{parser:?} n {n}"
                );
            }
        }
    }
}

#[test]
fn short_pages_fail_as_short_sources() {
    let bw = 5;
    let vals = values(1000, bw, 3);
    for parser in [Parser::LE_PACKED, Parser::PARQUET_RLE] {
        let plain = source(parser, &vals, bw);
        let compressed = compress(&plain, Framing::Raw, 6);
        let mut job = job_for(Operation::ScanEq, parser, bw, 1100);
        let expected = run(&job, &plain, None, 1000).0;
        assert_eq!(expected, Err(Status::SRC_IS_SHORT_ERR));
        job.flags = Flags::DECOMPRESS_ENABLE;
        assert_eq!(run(&job, &compressed, None, 1000).0, expected, "{parser:?}");
    }
}

#[test]
fn bytes_after_the_final_block_are_ignored() {
    let vals = values(2000, 9, 8);
    let plain = pack_le(&vals, 9).unwrap();
    let mut compressed = compress(&plain, Framing::Raw, 6);
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE,
        ..job_for(Operation::ScanLt, Parser::LE_PACKED, 9, 2000)
    };
    let before = run(&job, &compressed, None, 250);
    compressed.extend_from_slice(&[0xFF; 40]);
    assert_eq!(run(&job, &compressed, None, 250), before);
    assert!(before.0.is_ok());
}

#[test]
fn truncated_streams() {
    let bw = 6;
    let vals = values(4000, bw, 21);
    let plain = pack_le(&vals, bw).unwrap();
    let compressed = compress(&plain, Framing::Raw, 6);
    let n = 4000;
    for cut in [1usize, 2, 5, 50, compressed.len() / 2, compressed.len() - 1] {
        let part = &compressed[..compressed.len() - cut];
        // The page's checksums need the whole page.
        let job = Job {
            flags: Flags::DECOMPRESS_ENABLE,
            ..job_for(Operation::ScanEq, Parser::LE_PACKED, bw, n)
        };
        assert_eq!(
            run(&job, part, None, n).0,
            Err(Status::SRC_IS_SHORT_ERR),
            "cut {cut}"
        );
    }
    // Without checksums only what the job reads must be there.
    let part = &compressed[..compressed.len() - 1];
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE | Flags::OMIT_CHECKSUMS,
        ..job_for(Operation::ScanEq, Parser::LE_PACKED, bw, 10)
    };
    let expected = run(
        &Job {
            flags: Flags::OMIT_CHECKSUMS,
            ..job
        },
        &plain,
        None,
        10,
    );
    assert_eq!(run(&job, part, None, 10), expected);
}

#[test]
fn corrupt_streams_get_inflate_statuses() {
    let vals = values(4000, 6, 21);
    let plain = pack_le(&vals, 6).unwrap();
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE,
        ..job_for(Operation::ScanEq, Parser::LE_PACKED, 6, 4000)
    };
    // BTYPE 11.
    assert_eq!(
        run(&job, &[0x07, 0, 0, 0], None, 500).0,
        Err(Status::INVALID_BLOCK_TYPE)
    );
    // A stored block whose NLEN is not ~LEN.
    let mut stored = vec![0x01, 0x10, 0x00, 0x00, 0x00];
    stored.extend_from_slice(&plain[..16]);
    assert_eq!(
        run(&job, &stored, None, 500).0,
        Err(Status::INVALID_STORED_LEN_ERR)
    );
    // Every single-byte corruption: a status or a result, never a panic.
    let compressed = compress(&plain, Framing::Raw, 6);
    for at in 0..compressed.len().min(300) {
        let mut bad = compressed.clone();
        bad[at] ^= 0x5A;
        let _ = run(&job, &bad, None, 500);
    }
    // Headers.
    let gzip_job = Job {
        flags: Flags::DECOMPRESS_ENABLE | Flags::GZIP_MODE,
        ..job
    };
    assert_eq!(
        run(&gzip_job, &compressed, None, 500).0,
        Err(Status::ARCHIVE_HEADER_ERR)
    );
    let zlib_job = Job {
        flags: Flags::DECOMPRESS_ENABLE | Flags::ZLIB_MODE,
        ..job
    };
    assert_eq!(
        run(&zlib_job, &[0x78], None, 500).0,
        Err(Status::SRC_IS_SHORT_ERR)
    );
}

#[test]
fn a_deflate_bomb_is_read_only_as_far_as_the_job_needs() {
    // 64 MiB of zeros in ~64 KiB: a job over 16 values reads 16 bytes of it (with checksums
    // omitted nothing else is inflated), and the destination is never overrun.
    let zeros = vec![0u8; 64 << 20];
    let bomb = compress(&zeros, Framing::Raw, 9);
    assert!(bomb.len() < 128 << 10);
    drop(zeros);
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE | Flags::OMIT_CHECKSUMS,
        ..job_for(Operation::Extract, Parser::LE_PACKED, 8, 16)
    };
    let job = Job {
        param_low: 0,
        param_high: u32::MAX,
        ..job
    };
    let (result, bytes) = run(&job, &bomb, None, 16);
    assert_eq!(result.map(|c| c.total_out), Ok(16));
    assert_eq!(bytes, vec![0u8; 16]);
    // A destination one byte short: the status, not a write past it.
    assert_eq!(run(&job, &bomb, None, 15).0, Err(Status::DST_IS_SHORT_ERR));
    // A Parquet page of one long run: the RLE run covers every value in a few bytes.
    let rle = encode_parquet_rle(&vec![3u32; 1 << 20], 2).unwrap();
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE | Flags::OMIT_CHECKSUMS,
        ..job_for(Operation::ScanEq, Parser::PARQUET_RLE, 2, 1 << 20)
    };
    let (result, bytes) = run(&job, &compress(&rle, Framing::Raw, 6), None, 1 << 17);
    assert_eq!(result.map(|c| c.sum_value), Ok(1 << 20));
    assert!(bytes.iter().all(|&b| b == 0xFF));
}

#[test]
fn parameter_errors_come_before_the_stream_is_read() {
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE,
        ..job_for(Operation::ScanEq, Parser(7), 5, 10)
    };
    assert_eq!(run(&job, &[0x07], None, 10).0, Err(Status::PARSER_ERR));
    let job = Job {
        flags: Flags::DECOMPRESS_ENABLE,
        drop_initial_bytes: 70000,
        ..job_for(Operation::ScanEq, Parser::LE_PACKED, 5, 10)
    };
    assert_eq!(run(&job, &[0x07], None, 10).0, Err(Status::DROP_BYTES_ERR));
}
