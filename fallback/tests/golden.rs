//! Golden vectors taken from the seeds (Parquet's encoding spec and QPL's parser document) and
//! from `docs/semantics.md`'s measurements of QPL, run through `execute`.

use qpl_fallback::{
    decode_hybrid, execute, Completion, Flags, Job, Operation, OutBitWidth, Parser, Status,
};

/// Values 0..7 at width 3, LSB-first (the hybrid's bit-packed order): 10001000 11000110 11111010.
const LE_0_TO_7: [u8; 3] = [0x88, 0xC6, 0xFA];
/// Values 0..7 at width 3, MSB-first (deprecated BIT_PACKED): 00000101 00111001 01110111.
const BE_0_TO_7: [u8; 3] = [0x05, 0x39, 0x77];

fn extract_u8(
    parser: Parser,
    bw: u32,
    n: u32,
    src: &[u8],
) -> Result<(Vec<u8>, Completion), Status> {
    let job = Job {
        parser,
        src1_bit_width: bw,
        num_input_elements: n,
        param_low: 0,
        param_high: n - 1,
        out_bit_width: OutBitWidth::W8,
        ..Job::new(Operation::Extract)
    };
    let mut dst = vec![0xEEu8; n as usize + 4];
    let done = execute(&job, src, None, &mut dst)?;
    dst.truncate(done.total_out as usize);
    Ok((dst, done))
}

#[test]
fn seed_le_packed_width_3_decodes_0_to_7() {
    let (out, done) = extract_u8(Parser::LE_PACKED, 3, 8, &LE_0_TO_7).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(done.total_out, 8);
    // D16: array aggregates are min/max/sum of the values.
    assert_eq!(
        (
            done.first_index_min_value,
            done.last_index_max_value,
            done.sum_value
        ),
        (0, 7, 28)
    );
}

#[test]
fn seed_be_packed_width_3_decodes_0_to_7() {
    let (out, _) = extract_u8(Parser::BE_PACKED, 3, 8, &BE_0_TO_7).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    // The two orders are different: each parser on the other's bytes gives other values.
    let (swapped, _) = extract_u8(Parser::LE_PACKED, 3, 8, &BE_0_TO_7).unwrap();
    assert_ne!(swapped, [0, 1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn seed_nominal_extract_reproduces_the_seed_bytes() {
    // Extract at nominal width re-packs: LE in gives LE out; OUT_BE gives the BIT_PACKED bytes.
    for (flags, expected) in [(Flags::NONE, LE_0_TO_7), (Flags::OUT_BE, BE_0_TO_7)] {
        let job = Job {
            src1_bit_width: 3,
            num_input_elements: 8,
            param_high: 7,
            flags,
            ..Job::new(Operation::Extract)
        };
        let mut dst = [0u8; 3];
        let done = execute(&job, &LE_0_TO_7, None, &mut dst).unwrap();
        assert_eq!(dst, expected);
        assert_eq!(done.total_out, 3);
    }
}

#[test]
fn seed_parquet_single_bit_packed_group() {
    // Width byte 3, header (1 << 1) | 1 = one group of 8 values, then the LE bytes.
    let stream = [3, 0x03, 0x88, 0xC6, 0xFA];
    let (out, _) = extract_u8(Parser::PARQUET_RLE, 0, 8, &stream).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
    let mut values = [0u32; 8];
    decode_hybrid(&stream[1..], 3, &mut values).unwrap();
    assert_eq!(values, [0, 1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn seed_hybrid_grammar_rle_then_bit_packed() {
    // RLE run: header 5 << 1 = 0x0A, value 6 in ⌈3/8⌉ = 1 byte; then one bit-packed group.
    let stream = [3, 0x0A, 0x06, 0x03, 0x88, 0xC6, 0xFA];
    let (out, _) = extract_u8(Parser::PARQUET_RLE, 0, 13, &stream).unwrap();
    assert_eq!(out, [6, 6, 6, 6, 6, 0, 1, 2, 3, 4, 5, 6, 7]);
    // Scan over the same stream: value 6 at indices 0..=4 and 11.
    let job = Job {
        parser: Parser::PARQUET_RLE,
        num_input_elements: 13,
        param_low: 6,
        ..Job::new(Operation::ScanEq)
    };
    let mut bits = [0u8; 2];
    let done = execute(&job, &stream, None, &mut bits).unwrap();
    assert_eq!(bits, [0b0001_1111, 0b0000_1000]);
    assert_eq!(
        (
            done.first_index_min_value,
            done.last_index_max_value,
            done.sum_value
        ),
        (0, 11, 6)
    );
    assert_eq!(done.last_bit_offset, 5);
}

#[test]
fn seed_bit_pack_count_above_one() {
    // Two groups: 0..7 then 7..0 at width 3 (header (2 << 1) | 1 = 0x05).
    let second: Vec<u32> = (0..8).rev().collect();
    let mut stream = vec![3, 0x05, 0x88, 0xC6, 0xFA];
    stream.extend(qpl_fallback::pack_le(&second, 3).unwrap());
    let (out, _) = extract_u8(Parser::PARQUET_RLE, 0, 16, &stream).unwrap();
    assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5, 4, 3, 2, 1, 0]);
    // Hand-packed second group: 7 6 5 4 3 2 1 0 LSB-first = 111 011 101 001 110 010 100 000.
    assert_eq!(&stream[5..], [0b0111_0111, 0b0011_1001, 0b0000_0101]);
}

#[test]
fn seed_varint_limit_is_four_bytes() {
    // RLE header 2 (one value) written in 4 bytes (padded, canonical form is 0x02): accepted.
    let padded = [3, 0x82, 0x80, 0x80, 0x00, 0x05];
    let (out, _) = extract_u8(Parser::PARQUET_RLE, 0, 1, &padded).unwrap();
    assert_eq!(out, [5]);
    // The same header in 5 bytes: the accelerator's limit, 220 PRLE_FORMAT_ERR.
    let five = [3, 0x82, 0x80, 0x80, 0x80, 0x00, 0x05];
    assert_eq!(
        extract_u8(Parser::PARQUET_RLE, 0, 1, &five),
        Err(Status::PRLE_FORMAT_ERR)
    );
    let mut v = [0u32; 1];
    assert_eq!(
        decode_hybrid(&five[1..], 3, &mut v),
        Err(Status::PRLE_FORMAT_ERR)
    );
    // A 4-byte header with a large count: (2^27 - 1) << 1 = 0x0FFF_FFFE.
    let big = [3, 0xFE, 0xFF, 0xFF, 0x7F, 0x02];
    let (out, _) = extract_u8(Parser::PARQUET_RLE, 0, 3, &big).unwrap();
    assert_eq!(out, [2, 2, 2]);
}

#[test]
fn xor_checksum_example_from_the_document() {
    // Bytes 01 03 03 04 05 03 07 00 → 0x0400 (§7.4). As a bw-8 LE array through a scan.
    let src = [0x01, 0x03, 0x03, 0x04, 0x05, 0x03, 0x07, 0x00];
    let job = Job {
        src1_bit_width: 8,
        num_input_elements: 8,
        param_low: 3,
        ..Job::new(Operation::ScanEq)
    };
    let mut bits = [0u8; 1];
    let done = execute(&job, &src, None, &mut bits).unwrap();
    assert_eq!(done.xor_checksum, 0x0400);
    assert_eq!(bits, [0b0010_0110]);
    // An odd length: the last byte is a zero-extended word (0x0301 ^ 0x0403 ^ 0x0005).
    let done = execute(
        &Job {
            num_input_elements: 5,
            ..job
        },
        &src[..5],
        None,
        &mut bits,
    )
    .unwrap();
    assert_eq!(done.xor_checksum, 0x0707);
}

#[test]
fn crc_check_values_of_123456789_both_variants() {
    let src = b"123456789";
    let job = Job {
        src1_bit_width: 8,
        num_input_elements: 9,
        param_high: 8,
        ..Job::new(Operation::Extract)
    };
    let mut dst = [0u8; 9];
    let done = execute(&job, src, None, &mut dst).unwrap();
    assert_eq!(&dst, src);
    assert_eq!(done.crc, 0xCBF4_3926, "zlib CRC-32 check value");
    let done = execute(
        &Job {
            flags: Flags::CRC32C,
            ..job
        },
        src,
        None,
        &mut dst,
    )
    .unwrap();
    assert_eq!(done.crc, 0xE306_9283, "CRC-32C check value");
    // The checksums cover the whole buffer even when fewer elements are read.
    let done = execute(
        &Job {
            num_input_elements: 2,
            param_high: 1,
            ..job
        },
        src,
        None,
        &mut dst,
    )
    .unwrap();
    assert_eq!(done.crc, 0xCBF4_3926);
}
