//! RLE (3), the RLE/bit-packing hybrid: the seed's golden vector, round trips and hand-built
//! streams of random run structure (header lengths up to 5 bytes, zero-length runs, a short
//! final group) against a bit-at-a-time model, batches and skips of random sizes, arrow-rs in
//! both directions, the accelerator-semantics `decode_hybrid`, and hostile streams.

mod common;

use bytes::Bytes;
use common::arrow_rs;
use parquet::encodings::rle::{RleDecoder, RleEncoder};
use proptest::prelude::*;
use qpl_fallback::parquet::hybrid::{
    self, encode_booleans, encode_with_length_prefix, BooleanHybridDecoder, HybridDecoder,
};
use qpl_fallback::parquet::{ErrorKind, ValueDecoder};

/// A run of a hand-built stream.
#[derive(Clone, Debug)]
enum Run {
    /// `len` copies of `value` (`len` may be 0).
    Rle { value: u32, len: u32 },
    /// Bit-packed values (a multiple of 8, possibly 0).
    Packed { values: Vec<u32> },
}

fn mask(width: u32) -> u32 {
    if width == 0 {
        0
    } else {
        u32::MAX >> (32 - width)
    }
}

/// ULEB128 of `value`, padded with continuation bytes to `len` bytes when it is shorter.
fn uleb_padded(out: &mut Vec<u8>, mut value: u64, len: usize) {
    let mut written = 0;
    loop {
        let byte = (value & 0x7F) as u8;
        value >>= 7;
        written += 1;
        if value == 0 && written >= len {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Packs `values` LSB first at `width` bits, bit by bit (independent of the crate's packers).
fn pack_lsb(values: &[u32], width: u32) -> Vec<u8> {
    let mut out = vec![0u8; (values.len() * width as usize).div_ceil(8)];
    for (i, &v) in values.iter().enumerate() {
        for b in 0..width as usize {
            if v >> b & 1 != 0 {
                let bit = i * width as usize + b;
                out[bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    out
}

/// The stream of `runs`, each header `header_len[i]` bytes long at least, and the values it
/// holds.
fn build(runs: &[Run], width: u32, header_len: &[usize]) -> (Vec<u8>, Vec<u32>) {
    let mut out = Vec::new();
    let mut values = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let pad = header_len.get(i).copied().unwrap_or(1);
        match run {
            Run::Rle { value, len } => {
                uleb_padded(&mut out, u64::from(*len) << 1, pad);
                out.extend_from_slice(&value.to_le_bytes()[..width.div_ceil(8) as usize]);
                values.extend(std::iter::repeat_n(*value, *len as usize));
            }
            Run::Packed { values: v } => {
                assert_eq!(v.len() % 8, 0);
                uleb_padded(&mut out, ((v.len() as u64 / 8) << 1) | 1, pad);
                out.extend(pack_lsb(v, width));
                values.extend_from_slice(v);
            }
        }
    }
    (out, values)
}

fn run_strategy(width: u32) -> impl Strategy<Value = Run> {
    let m = mask(width);
    prop_oneof![
        (any::<u32>(), 1u32..=700).prop_map(move |(v, len)| Run::Rle { value: v & m, len }),
        (1usize..=88).prop_flat_map(move |groups| {
            prop::collection::vec(any::<u32>(), groups * 8).prop_map(move |v| Run::Packed {
                values: v.into_iter().map(|x| x & m).collect(),
            })
        }),
        // Zero-length runs now and then.
        Just(Run::Rle { value: 0, len: 0 }),
        Just(Run::Packed { values: vec![] }),
    ]
}

/// A width, runs of random structure, header lengths 1..=5 and a count of values to drop
/// from the end (a last bit-packed run's pad).
fn stream_strategy() -> impl Strategy<Value = (u32, Vec<Run>, Vec<usize>, usize)> {
    (0u32..=32).prop_flat_map(|width| {
        (
            Just(width),
            prop::collection::vec(run_strategy(width), 0..12),
            prop::collection::vec(1usize..=5, 12),
            0usize..8,
        )
    })
}

/// The number of values of the stream the test decodes: all but `drop` (the last run goes
/// past the page's end), and the stream cut after the last wanted value's byte when the last
/// run is bit-packed (a final group cut short).
fn wanted(runs: &[Run], width: u32, stream: &mut Vec<u8>, total: usize, drop: usize) -> usize {
    let n = total - drop.min(total);
    if let Some(Run::Packed { values }) = runs.last() {
        let kept = values.len() - drop.min(values.len());
        let run_bytes = values.len() * width as usize / 8;
        let needed = (kept * width as usize).div_ceil(8);
        stream.truncate(stream.len() - (run_bytes - needed));
    }
    n
}

/// Decodes through `decoder` in batches and skips whose sizes come from `sizes`, writing
/// skipped positions as `u32::MAX`.
fn incremental<D: ValueDecoder<Value = u32>>(
    decoder: &mut D,
    sizes: &[(bool, usize)],
) -> Result<Vec<u32>, qpl_fallback::parquet::ParquetError> {
    let mut out = Vec::new();
    let mut i = 0;
    while decoder.remaining() > 0 {
        let (skip, size) = sizes[i % sizes.len()];
        i += 1;
        if skip {
            let n = decoder.skip(size)?;
            out.extend(std::iter::repeat_n(u32::MAX, n));
        } else {
            let mut buf = vec![7u32; size];
            let before = decoder.remaining();
            let n = decoder.next_batch(&mut buf)?;
            assert_eq!(n, size.min(before), "batch size");
            assert_eq!(decoder.remaining(), before - n);
            out.extend_from_slice(&buf[..n]);
        }
    }
    Ok(out)
}

#[test]
fn seed_golden_vector_in_a_bit_packed_run() {
    // The seed: 0..=7 at width 3, LSB first, is 10001000 11000110 11111010.
    let packed = [0b1000_1000, 0b1100_0110, 0b1111_1010];
    let values: Vec<u32> = (0..8).collect();
    let mut stream = vec![0x03]; // one group, bit-packed
    stream.extend_from_slice(&packed);
    let mut out = [0u32; 8];
    assert_eq!(hybrid::decode(&stream, 3, &mut out), Ok(4));
    assert_eq!(out.to_vec(), values);
    let mut encoded = Vec::new();
    hybrid::encode(&values, 3, &mut encoded).unwrap();
    assert_eq!(encoded, stream);
}

#[test]
fn five_byte_headers_are_legal_six_are_corrupt() {
    // An RLE run of 2^31 - 1 values needs a 5-byte header (2^32 - 2).
    let mut stream = Vec::new();
    uleb_padded(&mut stream, (i32::MAX as u64) << 1, 1);
    assert_eq!(stream.len(), 5);
    stream.push(5);
    let mut d = HybridDecoder::new(&stream, 3, i32::MAX as usize).unwrap();
    let mut out = [0u32; 10];
    assert_eq!(d.next_batch(&mut out), Ok(10));
    assert_eq!(out, [5; 10]);
    // Skipping the rest is O(1): two billion values at once.
    assert_eq!(d.skip(usize::MAX), Ok(i32::MAX as usize - 10));
    assert_eq!(d.remaining(), 0);

    // 2^31 values is one too many; so is a bit-packed run of 2^28 groups.
    for header in [1u64 << 32, (1u64 << 29) | 1] {
        let mut s = Vec::new();
        uleb_padded(&mut s, header, 1);
        s.extend_from_slice(&[0; 8]);
        let e = hybrid::decode(&s, 3, &mut [0; 4]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Corrupt, "{header:#x}: {e}");
        assert!(e.message.contains("2^31"), "{e}");
    }

    // Headers of 6, 7 and 10 bytes, even when their value is small.
    for len in [6, 7, 10] {
        let mut s = Vec::new();
        uleb_padded(&mut s, 2, len);
        s.push(1);
        let e = hybrid::decode(&s, 3, &mut [0; 1]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Corrupt, "{len}: {e}");
        assert!(e.message.contains("longer than 5 bytes"), "{e}");
    }
}

#[test]
fn zero_length_runs_are_skipped_and_a_stream_of_them_ends() {
    // RLE of 0, bit-packed of 0 groups, then RLE 1 x 5.
    let mut out = [0u32; 1];
    assert_eq!(
        hybrid::decode(&[0x00, 0x01, 0x02, 0x05], 3, &mut out),
        Ok(4)
    );
    assert_eq!(out, [5]);
    // 100 000 zero-length runs and nothing else: the stream ends, Truncated.
    let zeros: Vec<u8> = (0..100_000).map(|i| (i % 2) as u8).collect();
    let e = hybrid::decode(&zeros, 3, &mut [0; 1]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
}

#[test]
fn short_final_group_accepted_when_it_holds_the_wanted_values() {
    // One group of 0..=7 at width 3 declared, 5 values wanted: 15 bits, 2 bytes suffice.
    let stream = [0x03, 0b1000_1000, 0b1100_0110];
    let mut out = [0u32; 5];
    assert_eq!(hybrid::decode(&stream, 3, &mut out), Ok(3));
    assert_eq!(out, [0, 1, 2, 3, 4]);
    // Six values need 18 bits: the third byte.
    let e = hybrid::decode(&stream, 3, &mut [0; 6]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    assert!(e.message.contains("byte 0"), "{e}");
}

#[test]
fn rle_values_wider_than_the_width_are_corrupt() {
    let e = hybrid::decode(&[0x04, 0x08], 3, &mut [0; 2]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Corrupt);
    assert!(
        e.message.contains('8') && e.message.contains("3 bits"),
        "{e}"
    );
    // At width 9 the value has two bytes; 511 fits, 512 does not.
    assert_eq!(hybrid::decode(&[0x02, 0xFF, 0x01], 9, &mut [0; 1]), Ok(3));
    let e = hybrid::decode(&[0x02, 0x00, 0x02], 9, &mut [0; 1]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Corrupt);
}

#[test]
fn width_zero_reads_runs_present_and_fills_the_rest_with_zeros() {
    let mut out = [9u32; 5];
    assert_eq!(hybrid::decode(&[], 0, &mut out), Ok(0));
    assert_eq!(out, [0; 5]);
    let mut out = [9u32; 5];
    // RLE 3 (no value bytes), then the data ends: the other two are 0 too.
    assert_eq!(hybrid::decode(&[0x06], 0, &mut out), Ok(1));
    assert_eq!(out, [0; 5]);
    // A header cut short is still an error.
    let e = hybrid::decode(&[0x06, 0x86], 0, &mut [0; 5]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
}

#[test]
fn arguments_and_prefixes_out_of_range() {
    let e = HybridDecoder::new(&[], 33, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("33"));
    for width in [33u8, 255] {
        let e = HybridDecoder::with_width_byte(&[width, 0x02, 0x00], 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Corrupt, "{width}");
        assert!(e.message.contains(&width.to_string()), "{e}");
    }
    assert_eq!(
        HybridDecoder::with_width_byte(&[], 1).unwrap_err().kind,
        ErrorKind::Truncated
    );
    assert!(HybridDecoder::with_width_byte(&[], 0).is_ok());
    // Prefix cut short, and a prefix claiming more bytes than follow.
    for data in [&[1u8, 0, 0][..], &[5, 0, 0, 0, 0x02, 0x01]] {
        let e = HybridDecoder::with_length_prefix(data, 1, 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{data:?}");
    }
    let e = HybridDecoder::with_length_prefix(&[0xFF, 0xFF, 0xFF, 0xFF, 0], 1, 1).unwrap_err();
    assert!(e.message.contains("4294967295"), "{e}");
    let e = hybrid::encode(&[1, 8], 3, &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("index 1"), "{e}");
    assert_eq!(
        hybrid::encode(&[1], 33, &mut Vec::new()).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
}

#[test]
fn lying_counts_error_without_allocating() {
    // 2^31 values claimed of a 3-byte stream: a bit-packed group cut short.
    let mut d = HybridDecoder::new(&[0x03, 0x88, 0xC6], 3, 1 << 31).unwrap();
    let e = d.next_batch(&mut [0; 64]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    // RLE of 3 values, an empty RLE run, then the end: the first batch gets 3 values and fails.
    let mut d = HybridDecoder::new(&[0x06, 0x05, 0x00, 0x00], 3, 1 << 31).unwrap();
    let mut out = [0u32; 64];
    let e = d.next_batch(&mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    assert_eq!(out[..3], [5, 5, 5]);
    assert!(e.message.contains("after 3 of 2147483648"), "{e}");
    let mut d = HybridDecoder::new(&[0x06, 0x05, 0x00], 3, usize::MAX).unwrap();
    assert_eq!(d.skip(usize::MAX).unwrap_err().kind, ErrorKind::Truncated);
}

#[test]
fn every_truncation_of_valid_streams_errors_or_still_holds_the_values() {
    let mut values: Vec<u32> = (0..40).map(|i| (i * 7) % 13).collect();
    values.extend([3; 300]);
    values.extend((0..21).map(|i| i % 16));
    for width in [4u32, 9, 17, 32] {
        let mut stream = Vec::new();
        hybrid::encode(&values, width, &mut stream).unwrap();
        let mut full = vec![0u32; values.len()];
        hybrid::decode(&stream, width, &mut full).unwrap();
        assert_eq!(full, values);
        for cut in 0..stream.len() {
            let mut out = vec![0u32; values.len()];
            match hybrid::decode(&stream[..cut], width, &mut out) {
                Err(e) => assert_eq!(e.kind, ErrorKind::Truncated, "w{width} cut {cut}: {e}"),
                // Only the last group's pad may go.
                Ok(_) => {
                    assert_eq!(out, values, "w{width} cut {cut}");
                    let last = values.len() % 8;
                    assert!(stream.len() - cut < width as usize && last != 0);
                }
            }
        }
    }
}

#[test]
fn booleans_round_trip_and_match_arrow_rs_both_ways() {
    use parquet::basic::Encoding;
    use parquet::data_type::BoolType;

    let values: Vec<bool> = (0..1000u32)
        .map(|i| (i / 37) % 2 == 0 || i.wrapping_mul(2_654_435_761) % 5 == 0)
        .collect();

    // Ours -> arrow-rs.
    let mut ours = Vec::new();
    encode_booleans(&values, &mut ours);
    let back = arrow_rs::decode::<BoolType>(Encoding::RLE, &ours, values.len(), -1);
    assert_eq!(back, values);

    // arrow-rs -> ours.
    let theirs = arrow_rs::encode::<BoolType>(Encoding::RLE, &values, -1);
    for data in [&ours[..], &theirs[..]] {
        let (mut d, used) = BooleanHybridDecoder::new(data, values.len()).unwrap();
        assert_eq!(used, data.len());
        let mut out = vec![false; values.len()];
        let mut at = 0;
        // Odd batches and skips.
        while d.remaining() > 0 {
            let end = (at + 13).min(values.len());
            let n = d.next_batch(&mut out[at..end]).unwrap();
            assert_eq!(n, end - at);
            at += n;
            let s = d.skip(3).unwrap();
            // Skipped positions hold the expected values, so the comparison is of the rest.
            out[at..at + s].copy_from_slice(&values[at..at + s]);
            at += s;
        }
        assert_eq!(out, values);
    }
}

#[test]
fn length_prefixed_levels_match_arrow_rs_v1_level_encoder() {
    use parquet::encodings::levels::LevelEncoder;
    let levels: Vec<i16> = (0..777).map(|i| ((i / 11) % 4) as i16).collect();
    let mut enc = LevelEncoder::v1_streaming(3);
    enc.put_with_observer(&levels, |_, _| {});
    let theirs = enc.consume();
    let (mut d, used) = HybridDecoder::with_length_prefix(&theirs, 2, levels.len()).unwrap();
    assert_eq!(used, theirs.len());
    let mut out = vec![0u32; levels.len()];
    assert_eq!(d.next_batch(&mut out), Ok(levels.len()));
    assert!(out.iter().zip(&levels).all(|(&a, &b)| a == b as u32));

    let mut ours = Vec::new();
    let as_u32: Vec<u32> = levels.iter().map(|&l| l as u32).collect();
    encode_with_length_prefix(&as_u32, 2, &mut ours).unwrap();
    let len = u32::from_le_bytes(ours[..4].try_into().unwrap()) as usize;
    assert_eq!(len + 4, ours.len());
    let mut dec = RleDecoder::new(2);
    dec.set_data(Bytes::from(ours[4..].to_vec())).unwrap();
    let mut back = vec![0i16; levels.len()];
    assert_eq!(dec.get_batch(&mut back).unwrap(), levels.len());
    assert_eq!(back, levels);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Hand-built streams decode to their values, whole and in random batches and skips,
    /// and every prefix of the values can be decoded with a smaller count.
    #[test]
    fn hand_built_streams_decode_to_their_values(
        (width, runs, header_len, drop) in stream_strategy(),
        sizes in prop::collection::vec((any::<bool>(), 1usize..300), 1..10),
    ) {
        let (mut stream, all) = build(&runs, width, &header_len);
        let n = wanted(&runs, width, &mut stream, all.len(), drop);
        let expected = &all[..n];
        let mut out = vec![u32::MAX; n];
        let used = hybrid::decode(&stream, width, &mut out);
        prop_assert!(used.is_ok(), "{:?}", used);
        prop_assert_eq!(&out[..], expected);

        let mut d = HybridDecoder::new(&stream, width, n).unwrap();
        let got = incremental(&mut d, &sizes).unwrap();
        for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
            prop_assert!(g == u32::MAX || g == e, "value {} got {} want {}", i, g, e);
        }
        prop_assert_eq!(got.len(), n);
    }

    /// The crate's encoder round-trips, arrow-rs decodes it, and it decodes what arrow-rs's
    /// RleEncoder writes.
    #[test]
    fn encode_round_trips_and_matches_arrow_rs(
        (width, runs, _, _) in stream_strategy(),
    ) {
        let (_, values) = build(&runs, width, &[]);
        let mut ours = Vec::new();
        hybrid::encode(&values, width, &mut ours).unwrap();
        let mut out = vec![0u32; values.len()];
        prop_assert_eq!(hybrid::decode(&ours, width, &mut out), Ok(ours.len()));
        prop_assert_eq!(&out, &values);

        let mut dec = RleDecoder::new(width as u8);
        dec.set_data(Bytes::from(ours.clone())).unwrap();
        let mut back = vec![0u32; values.len()];
        prop_assert_eq!(dec.get_batch(&mut back).unwrap(), values.len());
        prop_assert_eq!(&back, &values);

        let mut enc = RleEncoder::new(width as u8, 1024);
        for &v in &values {
            enc.put(u64::from(v));
        }
        let theirs = enc.consume();
        let mut out = vec![0u32; values.len()];
        prop_assert!(hybrid::decode(&theirs, width, &mut out).is_ok());
        prop_assert_eq!(&out, &values);
    }

    /// arrow-rs's RleDecoder reads hand-built streams (5-byte headers, a final group cut
    /// short) as we do, once zero-length runs (which it takes as the end) are left out.
    #[test]
    fn hand_built_streams_match_arrow_rs(
        (width, runs, header_len, drop) in stream_strategy(),
    ) {
        let runs: Vec<Run> = runs
            .into_iter()
            .filter(|r| match r {
                Run::Rle { len, .. } => *len > 0,
                Run::Packed { values } => !values.is_empty(),
            })
            .collect();
        let (mut stream, all) = build(&runs, width, &header_len);
        let n = wanted(&runs, width, &mut stream, all.len(), drop);
        let mut ours = vec![0u32; n];
        prop_assert!(hybrid::decode(&stream, width, &mut ours).is_ok());
        let mut dec = RleDecoder::new(width as u8);
        dec.set_data(Bytes::from(stream)).unwrap();
        let mut theirs = vec![0u32; n];
        prop_assert_eq!(dec.get_batch(&mut theirs).unwrap(), n);
        prop_assert_eq!(ours, theirs);
    }

    /// Where the accelerator's parser reads the stream (headers of at most 4 bytes), it
    /// decodes the same values.
    #[test]
    fn agrees_with_the_accelerator_semantics_decoder(
        (width, runs, header_len, drop) in stream_strategy(),
    ) {
        let short: Vec<usize> = header_len.iter().map(|&l| l.min(4)).collect();
        let (stream, all) = build(&runs, width, &short);
        // Whole final groups: the accelerator refuses a group cut short (232).
        let n = all.len() - drop.min(all.len());
        let mut ours = vec![0u32; n];
        let mut qpl = vec![0u32; n];
        prop_assert!(hybrid::decode(&stream, width, &mut ours).is_ok());
        prop_assert_eq!(qpl_fallback::decode_hybrid(&stream, width, &mut qpl), Ok(()));
        prop_assert_eq!(ours, qpl);
    }

    /// Random bytes: never a panic; an error is one of the decoder's kinds.
    #[test]
    fn random_bytes_never_panic(
        data in prop::collection::vec(any::<u8>(), 0..64),
        width in 0u32..=32,
        n in 0usize..200,
    ) {
        let mut out = vec![0u32; n];
        if let Err(e) = hybrid::decode(&data, width, &mut out) {
            prop_assert!(matches!(e.kind, ErrorKind::Truncated | ErrorKind::Corrupt), "{}", e);
        }
        let mut d = HybridDecoder::new(&data, width, n).unwrap();
        let _ = d.skip(n / 2).and_then(|_| d.next_batch(&mut out));
    }
}

proptest! {
    /// `append_width1_levels` against `next_batch`, in steps of random sizes (runs entered
    /// mid-byte and mid-run), after what `out` held; its count of 1s.
    #[test]
    fn width1_levels_match_next_batch(
        values in prop::collection::vec(prop::bool::weighted(0.85), 0..700),
        steps in prop::collection::vec(1usize..70, 1..40),
    ) {
        let values: Vec<u32> = values.into_iter().map(u32::from).collect();
        let mut data = Vec::new();
        hybrid::encode(&values, 1, &mut data).unwrap();
        let mut expected = vec![0u32; values.len()];
        HybridDecoder::new(&data, 1, values.len()).unwrap().next_batch(&mut expected).unwrap();
        let mut decoder = HybridDecoder::new(&data, 1, values.len()).unwrap();
        let mut out = vec![7i16];
        let mut ones = 0;
        for &step in steps.iter().cycle() {
            let k = step.min(decoder.remaining());
            if k == 0 {
                break;
            }
            ones += decoder.append_width1_levels(k, &mut out).unwrap();
        }
        prop_assert_eq!(out[0], 7);
        let got: Vec<u32> = out[1..].iter().map(|&l| l as u32).collect();
        prop_assert_eq!(&got, &expected);
        prop_assert_eq!(ones, values.iter().filter(|&&v| v == 1).count());
    }
}

/// `append_width1_levels` refuses other widths and counts past the stream, and on a bad stream
/// (truncated, an RLE value of 2) reports the error `next_batch` does, leaving `out` as it was.
#[test]
fn width1_levels_errors_leave_out_untouched() {
    let values: Vec<u32> = (0..100).map(|i| u32::from(i % 3 != 0)).collect();
    let mut data = Vec::new();
    hybrid::encode(&values, 1, &mut data).unwrap();
    let mut out = vec![1i16, 0];
    let mut wide = HybridDecoder::new(&data, 2, 10).unwrap();
    assert_eq!(
        wide.append_width1_levels(10, &mut out).unwrap_err().kind,
        ErrorKind::InvalidArgument
    );
    let mut decoder = HybridDecoder::new(&data, 1, 100).unwrap();
    assert_eq!(
        decoder
            .append_width1_levels(101, &mut out)
            .unwrap_err()
            .kind,
        ErrorKind::InvalidArgument
    );
    for cut in 0..data.len() {
        let mut decoder = HybridDecoder::new(&data[..cut], 1, 100).unwrap();
        let mut model = vec![0u32; 100];
        let expected = HybridDecoder::new(&data[..cut], 1, 100)
            .unwrap()
            .next_batch(&mut model)
            .unwrap_err();
        let e = decoder.append_width1_levels(100, &mut out).unwrap_err();
        assert_eq!((e.kind, &e.message), (expected.kind, &expected.message));
        assert_eq!(out, [1, 0]);
    }
    // An RLE run of 5 copies of 2: corrupt at width 1.
    let bad = [5 << 1, 2];
    let e = HybridDecoder::new(&bad, 1, 5)
        .unwrap()
        .append_width1_levels(5, &mut out)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Corrupt);
    assert_eq!(out, [1, 0]);
}
