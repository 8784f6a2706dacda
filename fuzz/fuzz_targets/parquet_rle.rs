//! `parquet_rle`: an arbitrary byte string as a QPL `parquet_rle` stream.
//!
//! Input layout: bytes 0..3 give `n`, the rest is the stream itself, bit-width byte first.
//! `n = (m · 2^e) >> 16` with `m` = bytes 0..2 as a little-endian `u16` and `e` = byte 2 mod 21:
//! log-uniform up to 2^20 (a uniform `n` would make nearly every run decode half a million
//! values), and `e = 16` gives `n = m` exactly. So the golden seed "values 0..7 at width 3" is
//! `08 00 10 | 03 03 88 C6 FA`.
//!
//! Checks (the fallback's contract: never panic, every bad input gets a `Status`):
//! 1. `execute` of an extract of all `n` elements into 32-bit array elements does not panic
//!    and writes nothing outside its destination (sentinel bytes around it).
//! 2. `decode_hybrid` over the stream's body with width `stream[0] % 34` (so 0..=33) does not
//!    panic; width 33 must be `BIT_WIDTH_ERR`.
//! 3. When the width byte is 1..=32, extract and `decode_hybrid` agree: same status, same
//!    values (a width-1 forced 0/1 array keeps only bit 0, D15).
//! 4. When decoding succeeded, the values (masked to the width: RLE run values keep all
//!    ⌈w/8⌉ bytes, D5, so they may not fit) re-encoded with `encode_hybrid` /
//!    `encode_parquet_rle` decode back to the same values, by both decoders.
#![no_main]

use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use qpl_fallback::{
    decode_hybrid, encode_hybrid, encode_parquet_rle, execute, Flags, Job, Operation, OutBitWidth,
    Parser, Status,
};

const MAX_N: u32 = 1 << 20;
const GUARD: usize = 64;
const SENTINEL: u8 = 0xA5;

fn width_mask(width: u32) -> u32 {
    match width {
        0 => 0,
        w if w >= 32 => u32::MAX,
        w => (1u32 << w) - 1,
    }
}

/// Buffers reused across runs: with large `n` (up to 4 MiB each), fresh allocations (page
/// faults, and ASan's quarantine) would dominate the run time. libFuzzer runs the target on one
/// thread, so the lock is never contended.
struct Buffers {
    /// Extract destination with `GUARD` sentinel bytes on each side.
    dst: Vec<u8>,
    /// Values extracted by `execute`.
    extracted: Vec<u32>,
    /// Values from `decode_hybrid`.
    decoded: Vec<u32>,
    /// Values from decoding a re-encoded stream.
    again: Vec<u32>,
}

static BUFFERS: Mutex<Buffers> = Mutex::new(Buffers {
    dst: Vec::new(),
    extracted: Vec::new(),
    decoded: Vec::new(),
    again: Vec::new(),
});

/// Extract of all `n` elements as 32-bit array elements (forced array, so width 1 is an
/// array too rather than an index list), inside a sentinel-guarded destination. The values go
/// to `out`.
fn extract_all(dst: &mut Vec<u8>, stream: &[u8], n: u32, out: &mut Vec<u32>) -> Result<(), Status> {
    let job = Job {
        parser: Parser::PARQUET_RLE,
        num_input_elements: n,
        param_low: 0,
        param_high: u32::MAX,
        out_bit_width: OutBitWidth::W32,
        flags: Flags::FORCE_ARRAY_OUTPUT,
        ..Job::new(Operation::Extract)
    };
    let len = n as usize * 4;
    dst.clear();
    dst.resize(len + 2 * GUARD, SENTINEL);
    let result = execute(&job, stream, None, &mut dst[GUARD..GUARD + len]);
    assert!(
        dst[..GUARD].iter().all(|&b| b == SENTINEL),
        "execute wrote before dst"
    );
    assert!(
        dst[GUARD + len..].iter().all(|&b| b == SENTINEL),
        "execute wrote after dst"
    );
    let done = result?;
    assert_eq!(
        done.total_out as usize, len,
        "extract of all n wrote {}",
        done.total_out
    );
    out.clear();
    out.extend(
        dst[GUARD..GUARD + len]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Ok(())
}

fn decode(body: &[u8], width: u32, n: usize, out: &mut Vec<u32>) -> Result<(), Status> {
    out.clear();
    out.resize(n, 0);
    decode_hybrid(body, width, out)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let m = u64::from(u16::from_le_bytes([data[0], data[1]]));
    let e = data[2] % 21;
    let n = ((m << e) >> 16) as u32;
    debug_assert!(n < MAX_N);
    let stream = &data[3..];
    let mut guard = BUFFERS.lock().unwrap_or_else(|e| e.into_inner());
    let Buffers {
        dst,
        extracted,
        decoded,
        again,
    } = &mut *guard;

    // 1. The full engine; the empty stream and n = 0 are SIZE_ERR, not panics.
    let extract_result = extract_all(dst, stream, n, extracted);
    let Some((&width_byte, body)) = stream.split_first() else {
        assert_eq!(extract_result, Err(Status::SIZE_ERR));
        return;
    };

    // 2. decode_hybrid with width 0..=33.
    let width = u32::from(width_byte) % 34;
    let decode_result = decode(body, width, n as usize, decoded);
    if width > 32 {
        assert_eq!(decode_result, Err(Status::BIT_WIDTH_ERR));
        return;
    }

    // 3. Both decoders agree when they see the same width.
    let keep = if width == 1 { 1 } else { u32::MAX };
    if u32::from(width_byte) == width && (1..=32).contains(&width) && n > 0 {
        match (extract_result, decode_result) {
            (Ok(()), Ok(())) => {
                assert_eq!(extracted.len(), decoded.len());
                for (i, (&x, &y)) in extracted.iter().zip(decoded.iter()).enumerate() {
                    assert_eq!(x, y & keep, "element {i}: extract {x} vs decode_hybrid {y}");
                }
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "extract and decode_hybrid fail differently"),
            (a, b) => panic!("extract {a:?} vs decode_hybrid {b:?}"),
        }
    }

    // 4. Round trip through the encoders.
    if decode_result.is_err() {
        return;
    }
    let mask = width_mask(width);
    for v in decoded.iter_mut() {
        *v &= mask;
    }
    let values = &decoded[..];
    let hybrid = encode_hybrid(values, width).expect("masked values fit the width");
    assert_eq!(decode(&hybrid, width, values.len(), again), Ok(()));
    assert!(
        again[..] == values[..],
        "encode_hybrid round trip, width {width}"
    );
    if width >= 1 && n > 0 {
        let parquet = encode_parquet_rle(values, width).expect("masked values fit the width");
        assert_eq!(u32::from(parquet[0]), width);
        assert_eq!(decode(&parquet[1..], width, values.len(), again), Ok(()));
        assert!(
            again[..] == values[..],
            "encode_parquet_rle round trip, width {width}"
        );
        assert_eq!(extract_all(dst, &parquet, n, extracted), Ok(()));
        for (i, (&x, &y)) in extracted.iter().zip(values).enumerate() {
            assert_eq!(
                x,
                y & keep,
                "element {i} of extract of encode_parquet_rle output"
            );
        }
    }
});
