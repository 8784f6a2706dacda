//! Every kernel of the tier this machine runs, through the dispatch functions, against the
//! portable kernel or a plain loop.

use super::*;

/// Whether `kernels` has a SIMD kernel behind every dispatch function (AVX-512), which these
/// tests compare; on the other tiers they return early (the AVX2 kernels have their own tests
/// beside them, and the portable ones are the reference).
fn has_every_kernel(kernels: Kernels) -> bool {
    #[cfg(target_arch = "x86_64")]
    if kernels == Kernels::Avx512Vbmi {
        return true;
    }
    let _ = kernels;
    false
}

/// Whether `kernels` has SIMD kernels for unpacking to `u32`, scans, select's and expand's
/// inner loops (every tier but the portable one), which those tests compare.
fn has_avx2_kernels(kernels: Kernels) -> bool {
    kernels != Kernels::Portable
}

/// Deterministic bytes for the kernels to chew on.
fn noise(len: usize, seed: u32) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_add(seed).wrapping_mul(0x9E37_79B9) >> 11) as u8)
        .collect()
}

/// Every tier: each has this kernel.
#[test]
fn simd_scans_match_a_plain_comparison_for_every_width_order_and_tail() {
    type Plain = fn(u32, u32, u32) -> bool;
    let cases: [(Compare, Plain); 8] = [
        (Compare::Eq, |x, l, _| x == l),
        (Compare::Ne, |x, l, _| x != l),
        (Compare::Lt, |x, l, _| x < l),
        (Compare::Le, |x, l, _| x <= l),
        (Compare::Gt, |x, l, _| x > l),
        (Compare::Ge, |x, l, _| x >= l),
        (Compare::Range, |x, l, h| l <= x && x <= h),
        (Compare::NotRange, |x, l, h| x < l || x > h),
    ];
    let src = noise(4 * 1000, 7);
    for width in 1..=32u32 {
        let mask = u32::MAX >> (32 - width);
        for be in [false, true] {
            let count = 1000;
            let mut values = vec![0u32; count];
            portable::unpack(BitWidth::new(width).unwrap(), be, &src, &mut values);
            // Parameters: a present value, the extremes, and an empty range (low > high).
            let (a, b) = (values[5], values[60]);
            let params = [
                (a.min(b), a.max(b)),
                (0, mask),
                (a.max(b), a.min(b)),
                (mask, 0),
            ];
            for (compare, plain) in cases {
                for (l, h) in params {
                    // Tails of every lane size, and (from 64 elements of up to 8 bits,
                    // from 128 of any width) whole 64-element iterations before them.
                    for n in [0usize, 1, 8, 15, 16, 17, 31, 32, 33, 64, 97, 128, 200, 1000] {
                        let bytes = (n * width as usize).div_ceil(8);
                        let mut bits = vec![0x5Au8; n.div_ceil(8) + 1];
                        assert!(scan_packed(
                            kernels(),
                            width,
                            be,
                            &src[..bytes],
                            n,
                            compare,
                            l,
                            h,
                            &mut bits[..n.div_ceil(8)]
                        ));
                        for (i, &x) in values[..n].iter().enumerate() {
                            assert_eq!(
                                (bits[i / 8] >> (i % 8)) & 1 == 1,
                                plain(x, l, h),
                                "{compare:?} w{width} be{be} n{n} i{i} l{l} h{h}"
                            );
                        }
                        if n % 8 != 0 {
                            assert_eq!(bits[n / 8] >> (n % 8), 0, "bits above n are set");
                        }
                        assert_eq!(bits[n.div_ceil(8)], 0x5A, "wrote past the bits");
                    }
                }
            }
        }
    }
}

/// Mask words with every shape the kernels treat apart: empty, full, single bits, 16-bit
/// quarters, bits at both ends.
const WORDS: [u64; 6] = [
    0u64,
    1,
    u64::MAX,
    0x8000_0000_0000_0001,
    0x0123_4567_89AB_CDEF,
    0xFFFF_0000_FFFF_0000,
];

#[test]
fn simd_compress_matches_a_plain_loop_in_every_lane_type() {
    if !has_avx2_kernels(kernels()) {
        return;
    }
    let values: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let bytes: Vec<u8> = values.iter().map(|&v| (v >> 24) as u8).collect();
    let halves: Vec<u16> = values.iter().map(|&v| (v >> 16) as u16).collect();
    for word in WORDS {
        for len in [1usize, 15, 16, 17, 33, 63, 64] {
            let word = word & (u64::MAX >> (64 - len));
            let kept: Vec<usize> = (0..len).filter(|&j| (word >> j) & 1 == 1).collect();
            let room = len.next_multiple_of(16);
            let mut out = vec![0xDEAD_BEEFu32; room + 1];
            let k = compress(kernels(), &values[..len], &[word], &mut out[..room]);
            assert_eq!(k, Some(kept.len()));
            for (o, &j) in out.iter().zip(&kept) {
                assert_eq!(*o, values[j], "compress {word:x} {len}");
            }
            assert_eq!(out[room], 0xDEAD_BEEF);

            let room = len.next_multiple_of(64);
            let mut out = vec![0xA5u8; room + 1];
            let k = compress_bytes(kernels(), &bytes[..len], &[word], &mut out[..room]);
            assert_eq!(k, Some(kept.len()));
            for (o, &j) in out.iter().zip(&kept) {
                assert_eq!(*o, bytes[j], "compress_bytes {word:x} {len}");
            }
            assert_eq!(out[room], 0xA5);

            let room = len.next_multiple_of(32);
            let mut out = vec![0xA5A5u16; room + 1];
            let k = compress_halves(kernels(), &halves[..len], &[word], &mut out[..room]);
            assert_eq!(k, Some(kept.len()));
            for (o, &j) in out.iter().zip(&kept) {
                assert_eq!(*o, halves[j], "compress_halves {word:x} {len}");
            }
            assert_eq!(out[room], 0xA5A5);
        }
    }
}

#[test]
fn simd_unpack_compress_keeps_the_selected_elements_and_writes_nothing_past_its_room() {
    if !has_avx2_kernels(kernels()) {
        return;
    }
    let src = noise(4 * 1024, 3);
    for width in 2..=32u32 {
        for be in [false, true] {
            let mut values = vec![0u32; 1024];
            portable::unpack(BitWidth::new(width).unwrap(), be, &src, &mut values);
            // Tails of every length past whole mask words, each mask pattern in turn.
            for count in [0usize, 1, 15, 16, 17, 63, 64, 65, 100, 191, 1000, 1024] {
                let words: Vec<u64> = (0..count.div_ceil(64))
                    .map(|i| WORDS[(i + width as usize) % WORDS.len()])
                    .collect();
                let selected: Vec<u32> = (0..count)
                    .filter(|&j| (words[j / 64] >> (j % 64)) & 1 == 1)
                    .map(|j| values[j])
                    .collect();
                // Exactly the bytes that hold `count` elements: the last windows are
                // read short.
                let bytes = (count * width as usize).div_ceil(8);
                let room = count.next_multiple_of(16);
                let mut out = vec![0xDEAD_BEEFu32; room + 16];
                let kept = unpack_compress(
                    kernels(),
                    width,
                    be,
                    &src[..bytes],
                    count,
                    &words,
                    &mut out[..room],
                );
                assert_eq!(kept, Some(selected.len()), "w{width} be{be} n{count}");
                assert_eq!(
                    out[..selected.len()],
                    selected[..],
                    "w{width} be{be} n{count}"
                );
                assert!(
                    out[room..].iter().all(|&o| o == 0xDEAD_BEEF),
                    "wrote past the room"
                );
            }
        }
    }
}

/// What `expand_words` promises, one position at a time: (output, values used, positions
/// passed).
fn plain_expand(values: &[u32], words: &[u64]) -> (Vec<u32>, usize, usize) {
    let mut out = vec![0u32; 64 * words.len()];
    let mut used = 0;
    for (i, &word) in words.iter().enumerate() {
        if used == values.len() {
            return (out, used, 64 * i);
        }
        for j in 0..64 {
            if (word >> j) & 1 == 1 {
                out[64 * i + j] = values[used];
                used += 1;
                if used == values.len() && word >> j >> 1 != 0 {
                    return (out, used, 64 * i + j + 1);
                }
            }
        }
    }
    (out, used, 64 * words.len())
}

#[test]
fn simd_expand_matches_a_plain_loop_in_every_lane_type() {
    if !has_avx2_kernels(kernels()) {
        return;
    }
    let values: Vec<u32> = (0..300u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    let bytes: Vec<u8> = values.iter().map(|&v| (v >> 24) as u8).collect();
    let halves: Vec<u16> = values.iter().map(|&v| (v >> 16) as u16).collect();
    // Every pair of word shapes, with values running out everywhere (and lasting).
    for a in WORDS {
        for b in WORDS {
            let words = [a, b, a & !b];
            let ones: usize = words.iter().map(|w| w.count_ones() as usize).sum();
            for available in [0, 1, 2, 15, 16, 17, 33, 63, 64, 65, 100, 129, ones, 300] {
                let available = available.min(ones + 10);
                let (plain, used, passed) = plain_expand(&values[..available], &words);
                let mut out = vec![0xDEAD_BEEFu32; 64 * words.len() + 1];
                let (u, p) =
                    expand(kernels(), &values[..available], &words, &mut out[..192]).unwrap();
                assert_eq!((u, p), (used, passed), "{words:x?} {available}");
                assert_eq!(out[..passed], plain[..passed], "{words:x?} {available}");
                assert_eq!(out[192], 0xDEAD_BEEF);

                let mut out = vec![0xA5u8; 64 * words.len() + 1];
                let (u, p) =
                    expand_bytes(kernels(), &bytes[..available], &words, &mut out[..192]).unwrap();
                assert_eq!((u, p), (used, passed), "bytes {words:x?} {available}");
                for (k, (&o, &v)) in out[..passed].iter().zip(&plain).enumerate() {
                    let expected = if v == 0 { 0 } else { (v >> 24) as u8 };
                    assert_eq!(o, expected, "bytes {words:x?} {available} {k}");
                }
                assert_eq!(out[192], 0xA5);

                let mut out = vec![0xA5A5u16; 64 * words.len() + 1];
                let (u, p) =
                    expand_halves(kernels(), &halves[..available], &words, &mut out[..192])
                        .unwrap();
                assert_eq!((u, p), (used, passed), "halves {words:x?} {available}");
                for (k, (&o, &v)) in out[..passed].iter().zip(&plain).enumerate() {
                    let expected = if v == 0 { 0 } else { (v >> 16) as u16 };
                    assert_eq!(o, expected, "halves {words:x?} {available} {k}");
                }
                assert_eq!(out[192], 0xA5A5);
            }
        }
    }
}

#[test]
fn simd_narrow_lanes_unpack_and_pack_like_the_portable_kernels() {
    if !has_every_kernel(kernels()) {
        return;
    }
    let src = noise(1200, 3);
    for width in 1..=16u32 {
        let bw = BitWidth::new(width).unwrap();
        for be in [false, true] {
            for count in [0usize, 1, 7, 8, 31, 32, 33, 63, 64, 65, 128, 200, 513] {
                let bytes = (count * width as usize).div_ceil(8);
                let mut plain = vec![0u32; count];
                portable::unpack(bw, be, &src, &mut plain);
                let unpacked: Vec<u32> = if width <= 8 {
                    let mut out = vec![0xA5u8; count + 1];
                    assert!(unpack_bytes(
                        kernels(),
                        width,
                        be,
                        &src[..bytes],
                        &mut out[..count]
                    ));
                    assert_eq!(out[count], 0xA5);
                    out[..count].iter().map(|&v| u32::from(v)).collect()
                } else {
                    let mut out = vec![0xA5A5u16; count + 1];
                    assert!(unpack_halves(
                        kernels(),
                        width,
                        be,
                        &src[..bytes],
                        &mut out[..count]
                    ));
                    assert_eq!(out[count], 0xA5A5);
                    out[..count].iter().map(|&v| u32::from(v)).collect()
                };
                assert_eq!(unpacked, plain, "unpack w{width} be{be} n{count}");
            }
        }
        if width == 8 || width == 16 {
            continue;
        }
        // Packing: unmasked noise; the writer's masks (the width's, and a forced 0/1
        // array's 1) and one in between.
        let full = u32::MAX >> (32 - width);
        for mask in [full, 1, 0x1A5 & full] {
            for count in [0usize, 8, 16, 24, 32, 56, 64, 72, 200] {
                let halves: Vec<u16> = src[..2 * count]
                    .chunks(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect();
                let wide: Vec<u32> = if width <= 8 {
                    src[..count].iter().map(|&v| u32::from(v)).collect()
                } else {
                    halves.iter().map(|&v| u32::from(v)).collect()
                };
                let len = count / 8 * width as usize;
                let mut plain = vec![0u8; len];
                portable::pack(bw, false, mask, &wide, &mut plain);
                // A vector of canaries: the packers store whole vectors while they fit.
                let mut out = vec![0xA5u8; len + 64];
                if width <= 8 {
                    assert!(pack_bytes_le(
                        kernels(),
                        width,
                        mask as u8,
                        &src[..count],
                        &mut out[..len]
                    ));
                } else {
                    assert!(pack_halves_le(
                        kernels(),
                        width,
                        mask as u16,
                        &halves,
                        &mut out[..len]
                    ));
                }
                assert_eq!(out[..len], plain[..], "pack w{width} mask{mask:x} n{count}");
                assert!(
                    out[len..].iter().all(|&b| b == 0xA5),
                    "wrote past the output"
                );
            }
        }
    }
}

#[test]
fn simd_packing_matches_the_portable_kernel() {
    if !has_every_kernel(kernels()) {
        return;
    }
    let values: Vec<u32> = (0..200u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    for width in 1..=32u32 {
        for count in [0usize, 8, 16, 24, 200] {
            let bytes = count / 8 * width as usize;
            // A vector of canaries: the packer stores whole vectors while they fit.
            let mut simd = vec![0xA5u8; bytes + 64];
            let mut portable = vec![0u8; bytes];
            let mask = u32::MAX >> (32 - width);
            let used = pack_le(kernels(), width, mask, &values[..count], &mut simd[..bytes]);
            assert_eq!(used, (4..=28).contains(&width));
            if used {
                portable::pack(
                    BitWidth::new(width).unwrap(),
                    false,
                    mask,
                    &values[..count],
                    &mut portable,
                );
                assert_eq!(simd[..bytes], portable[..], "w{width} n{count}");
                assert!(
                    simd[bytes..].iter().all(|&b| b == 0xA5),
                    "wrote past the output"
                );
            }
        }
    }
}

#[test]
fn simd_narrowing_keeps_the_low_bytes_and_writes_nothing_else() {
    if !has_every_kernel(kernels()) {
        return;
    }
    let values: Vec<u32> = (0..40u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    for bytes in [1usize, 2] {
        for count in [0usize, 1, 16, 17, 40] {
            let mut out = vec![0xA5u8; bytes * count + 2];
            assert!(narrow(
                kernels(),
                &values[..count],
                0x0FFF,
                &mut out[..bytes * count]
            ));
            for (i, v) in values[..count].iter().enumerate() {
                let expected = (v & 0x0FFF).to_le_bytes();
                assert_eq!(
                    out[i * bytes..(i + 1) * bytes],
                    expected[..bytes],
                    "{bytes} {i}"
                );
            }
            assert_eq!(out[bytes * count..], [0xA5; 2], "wrote past the output");
        }
    }
    let mut odd = [0u8; 3];
    assert!(
        !narrow(kernels(), &values[..2], 1, &mut odd),
        "3 bytes for 2 values"
    );
}

/// The value aggregates by three separate folds.
fn plain_aggregates(v: &[u32]) -> MinMaxSum {
    MinMaxSum {
        min: v.iter().copied().min().unwrap_or(u32::MAX),
        max: v.iter().copied().max().unwrap_or(0),
        sum: v.iter().fold(0u32, |a, &x| a.wrapping_add(x)),
    }
}

/// What a kernel asked for aggregates (or not) should return with `values`.
fn aggregates_if(aggregate: bool, values: &[u32]) -> MinMaxSum {
    if aggregate {
        plain_aggregates(values)
    } else {
        MinMaxSum::NONE
    }
}

#[test]
fn simd_aggregates_match_plain_folds() {
    if !has_every_kernel(kernels()) {
        return;
    }
    let values: Vec<u32> = (0..100u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
    for count in [0usize, 1, 15, 16, 17, 100] {
        let v = &values[..count];
        assert_eq!(
            min_max_sum(kernels(), v),
            Some(plain_aggregates(v)),
            "{count}"
        );
        let bytes: Vec<u8> = v.iter().map(|&x| x as u8).collect();
        let ones = bytes.iter().map(|b| u64::from(b.count_ones())).sum::<u64>();
        assert_eq!(count_ones(kernels(), &bytes), ones, "{count}");
        assert_eq!(count_ones(Kernels::Portable, &bytes), ones, "{count}");
    }
}

/// Offsets into a buffer that put a slice at every 4-byte position of a 64-byte line
/// (the kernels align their stores to lines), and at three unaligned ones.
fn line_offsets(buffer: &[u8]) -> Vec<usize> {
    let base = buffer.as_ptr().align_offset(64);
    (0..16)
        .map(|k| base + 4 * k)
        .chain([base + 1, base + 2, base + 67])
        .collect()
}

#[test]
fn simd_fill_writes_the_pattern_at_every_alignment_and_nothing_else() {
    if !has_every_kernel(kernels()) {
        return;
    }
    let mut buffer = vec![0u8; 4 * 1100 + 256];
    for at in line_offsets(&buffer) {
        for count in [
            0usize, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1000,
        ] {
            buffer.fill(0xA5);
            let end = at + 4 * count;
            assert!(fill4(kernels(), [1, 2, 3, 4], &mut buffer[at..end]));
            assert!(
                buffer[at..end].chunks_exact(4).all(|c| c == [1, 2, 3, 4]),
                "at {at} count {count}"
            );
            assert!(buffer[..at].iter().all(|&b| b == 0xA5), "wrote before");
            assert!(buffer[end..].iter().all(|&b| b == 0xA5), "wrote past");
        }
    }
}

/// Every tier: each has this kernel.
#[test]
fn simd_unpacking_matches_the_portable_kernel_at_every_alignment_and_length() {
    let counts = [
        0usize, 1, 7, 8, 15, 16, 17, 33, 63, 64, 65, 79, 80, 81, 95, 127, 128, 129, 200, 1000, 1027,
    ];
    let src = noise(32 * 1027 / 8 + 200, 11);
    let mut buffer = vec![0u8; 4 * 1027 + 256];
    let offsets = line_offsets(&buffer);
    for width in 1..=32u32 {
        for be in [false, true] {
            let mut portable = vec![0u32; 1027];
            portable::unpack(BitWidth::new(width).unwrap(), be, &src, &mut portable);
            for count in counts {
                let bytes = (count * width as usize).div_ceil(8);
                // Exactly the bytes holding the values, and with bytes after them.
                for src in [&src[..bytes], &src[..]] {
                    for (k, &at) in offsets.iter().enumerate() {
                        buffer.fill(0xA5);
                        let end = at + 4 * count;
                        let out = &mut buffer[at..end];
                        // With and without aggregates, at alternate offsets.
                        let aggregate = k % 2 == 1;
                        let aggregates =
                            unpack_to_le_bytes(kernels(), width, be, src, out, aggregate);
                        assert_eq!(
                            aggregates,
                            Some(aggregates_if(aggregate, &portable[..count])),
                            "w{width} be{be} n{count} at{at}: aggregates"
                        );
                        let got: Vec<u32> = out
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                            .collect();
                        assert_eq!(
                            got,
                            portable[..count],
                            "w{width} be{be} n{count} at{at} src{}",
                            src.len()
                        );
                        assert!(buffer[..at].iter().all(|&b| b == 0xA5), "wrote before");
                        assert!(buffer[end..].iter().all(|&b| b == 0xA5), "wrote past");
                    }
                }
            }
        }
    }
}

/// Every tier: each has this kernel.
#[test]
fn simd_hybrid_decoding_matches_the_checking_decoder() {
    // Runs of every kind: long and short repeats (RLE runs, or bit-packed when they do
    // not start a group), single values, a long bit-packed stretch.
    let mut mixed = vec![1usize, 8, 9, 3, 200, 7, 16, 1, 1, 1, 64, 130, 5, 8, 300, 2];
    mixed.extend(std::iter::repeat_n(1, 150));
    // A run whose header takes 3 bytes (over 2^14 / 2 values).
    mixed.extend([40, 8, 12, 9000, 20]);
    // RLE runs from the first value on, of 8..=80 values, and the end of the stream
    // inside one.
    let repeats: Vec<usize> = (0..60).map(|i| 8 + (i * 37) % 73).collect();
    let mut buffer = vec![0u8; 4 * 11000 + 256];
    for (width, lengths) in (1..=32u32).flat_map(|w| [(w, &mixed), (w, &repeats)]) {
        let max = u32::MAX >> (32 - width);
        let mut values = Vec::new();
        for (i, &length) in lengths.iter().enumerate() {
            let v = (i as u32).wrapping_mul(0x9E37_79B9) & max;
            values.extend(std::iter::repeat_n(v, length));
        }
        let stream = crate::encode_hybrid(&values, width).unwrap();
        // RLE runs whose value bytes have bits above the width (kept unless masked),
        // then a 5-byte header: the kernel stops before it.
        let mut dirty = stream.clone();
        let value_bytes = width.div_ceil(8) as usize;
        dirty.push(10 << 1);
        dirty.extend(std::iter::repeat_n(0xFF, value_bytes));
        dirty.extend([0x80, 0x80, 0x80, 0x80, 0x00]);
        let total = values.len() + 10;
        let masks = [u32::MAX, max];
        for (data, count) in [
            (&stream[..], values.len()),
            (&stream[..], values.len() - 5),
            (&stream[..], 17),
            (&stream[..stream.len() / 2], values.len()),
            (&stream[..3], values.len()),
            (&dirty[..], total + 7),
        ] {
            for mask in masks {
                // On a line boundary, inside a line, and not 4-byte aligned.
                let offsets = line_offsets(&buffer);
                for (k, at) in [offsets[0], offsets[3], offsets[16]]
                    .into_iter()
                    .enumerate()
                {
                    buffer.fill(0xA5);
                    let end = at + 4 * count;
                    let out = &mut buffer[at..end];
                    let aggregate = k != 1;
                    let (done, used, aggregates) =
                        hybrid_to_le_bytes(kernels(), width, data, mask, out, aggregate).unwrap();
                    // The checking decoder agrees on the values decoded, and goes on
                    // from `used` with the rest (or the error).
                    let mut expected = vec![0u32; count];
                    let whole = crate::decode_hybrid(data, width, &mut expected);
                    let prefix = crate::decode_hybrid(data, width, &mut expected[..done]);
                    assert_eq!(prefix, Ok(()), "w{width} prefix of {done}");
                    let mut rest = vec![0u32; count - done];
                    let after = crate::decode_hybrid(&data[used..], width, &mut rest);
                    assert_eq!(after, whole, "w{width} n{count}: resumed at {used}");
                    if whole.is_ok() {
                        assert_eq!(done, count, "w{width}: stopped early");
                        assert_eq!(expected[done..], rest[..]);
                    }
                    let got: Vec<u32> = out[..4 * done]
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    let want: Vec<u32> = expected[..done].iter().map(|v| v & mask).collect();
                    assert_eq!(got, want, "w{width} n{count} mask{mask:x}");
                    assert_eq!(
                        aggregates,
                        aggregates_if(aggregate, &want),
                        "w{width} n{count} mask{mask:x}: aggregates"
                    );
                    // A fill writes whole lines, at least FILL_LINES of them.
                    let past = (4 * done + 64 * FILL_LINES - 1).min(out.len());
                    assert!(
                        out[past..].iter().all(|&b| b == 0xA5),
                        "wrote more than {FILL_LINES} lines past done"
                    );
                    assert!(buffer[..at].iter().all(|&b| b == 0xA5), "wrote before");
                    assert!(buffer[end..].iter().all(|&b| b == 0xA5), "wrote past");
                }
            }
        }
    }
}

/// Every tier: each has this kernel.
#[test]
fn simd_hybrid_fills_of_short_runs_stay_inside_out_at_every_end() {
    // RLE runs of 8..=12 values, whose fills reach furthest past them: `out` ending at
    // each of the last 120 values, and the stream at each of its last 60 bytes, puts
    // every run's fill next to an end.
    let mut buffer = vec![0u8; 4 * 2600 + 256];
    let offsets = line_offsets(&buffer);
    for width in [1u32, 8, 13, 32] {
        let max = u32::MAX >> (32 - width);
        let values: Vec<u32> = (0..250u32)
            .flat_map(|i| {
                std::iter::repeat_n(i.wrapping_mul(0x9E37_79B9) & max, 8 + i as usize % 5)
            })
            .collect();
        let stream = crate::encode_hybrid(&values, width).unwrap();
        let ends = (values.len() - 120..=values.len()).map(|count| (count, stream.len()));
        let cuts = (stream.len() - 60..stream.len()).map(|cut| (values.len(), cut));
        for (count, cut) in ends.chain(cuts) {
            for at in [offsets[0], offsets[3], offsets[16]] {
                buffer.fill(0xA5);
                let out = &mut buffer[at..at + 4 * count];
                let (done, _, _) =
                    hybrid_to_le_bytes(kernels(), width, &stream[..cut], max, out, false).unwrap();
                assert!(done <= count && (done == count) == (cut == stream.len()));
                let got: Vec<u32> = out[..4 * done]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                assert_eq!(got, values[..done], "w{width} n{count} cut{cut} at{at}");
                let past = (4 * done + 64 * FILL_LINES - 1).min(out.len());
                assert!(
                    out[past..].iter().all(|&b| b == 0xA5),
                    "w{width} cut{cut}: past"
                );
                assert!(buffer[..at].iter().all(|&b| b == 0xA5), "wrote before");
                assert!(
                    buffer[at + 4 * count..].iter().all(|&b| b == 0xA5),
                    "wrote past"
                );
            }
        }
    }
}

/// Every tier: each has this kernel.
#[test]
fn simd_fill_writes_whole_elements_and_nothing_else() {
    for count in [0usize, 1, 15, 16, 17, 100] {
        let mut out = vec![0xA5u8; 4 * count + 4];
        assert!(fill4(kernels(), [1, 2, 3, 4], &mut out[..4 * count]));
        assert!(out[..4 * count].chunks_exact(4).all(|c| c == [1, 2, 3, 4]));
        assert_eq!(out[4 * count..], [0xA5; 4], "wrote past the output");
    }
}

/// Every tier: each has this kernel.
#[test]
fn simd_unpack_to_bytes_writes_little_endian_values_and_nothing_else() {
    let src = noise(300, 3);
    for width in 1..=32u32 {
        for be in [false, true] {
            for count in [0usize, 1, 16, 31, 32, 33, 64, 65] {
                let bytes = (count * width as usize).div_ceil(8);
                let mut portable = vec![0u32; count];
                portable::unpack(
                    BitWidth::new(width).unwrap(),
                    be,
                    &src[..bytes],
                    &mut portable,
                );
                let mut out = vec![0xA5u8; 4 * count + 3];
                let aggregate = count % 2 == 1;
                let to = &mut out[..4 * count];
                let aggregates =
                    unpack_to_le_bytes(kernels(), width, be, &src[..bytes], to, aggregate);
                assert_eq!(aggregates, Some(aggregates_if(aggregate, &portable)));
                let got: Vec<u32> = out[..4 * count]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                assert_eq!(got, portable, "w{width} be{be} n{count}");
                assert_eq!(out[4 * count..], [0xA5; 3], "wrote past the output");
            }
        }
    }
}

#[test]
fn simd_kernels_match_the_portable_kernel_for_every_width_and_order() {
    if !has_avx2_kernels(kernels()) {
        return; // No SIMD kernel on this CPU (or forced off): nothing to compare.
    }
    let src = noise(600, 0);
    for width in 1..=32u32 {
        for be in [false, true] {
            for count in [
                0usize, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129,
            ] {
                let bytes = (count * width as usize).div_ceil(8);
                let mut simd = vec![0xDEAD_BEEF; count + 1];
                let mut portable = vec![0u32; count];
                assert!(unpack_with(
                    kernels(),
                    width,
                    be,
                    &src[..bytes],
                    &mut simd[..count]
                ));
                portable::unpack(
                    BitWidth::new(width).unwrap(),
                    be,
                    &src[..bytes],
                    &mut portable,
                );
                assert_eq!(simd[..count], portable[..], "w{width} be{be} n{count}");
                assert_eq!(simd[count], 0xDEAD_BEEF, "wrote past the output");
            }
        }
    }
}

/// Every tier: the portable kernel's table, pair-table and copy paths (widths 1, 2, 4, 3,
/// 5, 32) and its general one, against the element-by-element decoder, with and without
/// bytes after the elements and with and without aggregates.
#[test]
fn portable_unpacking_to_le_bytes_matches_the_element_decoder() {
    let src = noise(32 * 300 / 8 + 40, 5);
    for width in 1..=32u32 {
        let w = BitWidth::new(width).unwrap();
        for be in [false, true] {
            let mut expected = vec![0u32; 300];
            portable::unpack(w, be, &src, &mut expected);
            for count in [0usize, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 130, 257, 300] {
                let bytes = (count * width as usize).div_ceil(8);
                for src in [&src[..bytes], &src[..]] {
                    for aggregate in [false, true] {
                        let mut out = vec![0xA5u8; 4 * count + 5];
                        let got = portable::unpack_to_le_bytes(
                            w,
                            be,
                            src,
                            &mut out[..4 * count],
                            aggregate,
                        );
                        let values: Vec<u32> = out[..4 * count]
                            .chunks_exact(4)
                            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                            .collect();
                        let what = format!("w{width} be{be} n{count} src{}", src.len());
                        assert_eq!(values, expected[..count], "{what}");
                        assert_eq!(got, aggregates_if(aggregate, &expected[..count]), "{what}");
                        assert_eq!(out[4 * count..], [0xA5; 5], "{what}: wrote past");
                    }
                }
            }
        }
    }
}

/// The RLE fill of the portable and AVX2 hybrid walks: at every alignment of its output and
/// every length, the copies up to `len`, then only bytes that further copies would hold,
/// and nothing past the room it was handed (exactly `len` bytes when short of room).
#[test]
fn rle_fills_store_copies_and_nothing_past_their_room() {
    let mut buffer = vec![0u8; 600];
    for at in 0..64 {
        for len in (0..=300).step_by(4) {
            for room in [len, len + 4, len + 30, len + 31, len + 32] {
                buffer.fill(0xA5);
                portable::fill_le(0x0403_0201, &mut buffer[at..at + room], len);
                let to = &buffer[at..];
                assert!(
                    to[..len].chunks_exact(4).all(|c| c == [1, 2, 3, 4]),
                    "at{at} len{len} room{room}"
                );
                for (i, &b) in to[len..room].iter().enumerate() {
                    let copy = [1, 2, 3, 4][(len + i) % 4];
                    assert!(
                        b == 0xA5 || b == copy,
                        "at{at} len{len} room{room}: byte {i}"
                    );
                }
                assert!(
                    to[room..].iter().all(|&b| b == 0xA5),
                    "at{at} len{len}: past"
                );
                assert!(buffer[..at].iter().all(|&b| b == 0xA5), "at{at}: before");
            }
        }
    }
}

/// The SSSE3 GroupVarInt kernel (which the portable tier runs on x86-64) against the
/// portable loop directly, whichever tier runs: random bytes (every control byte) from every
/// start up to 40, for every group count up to 130, so that the span loop, the one-group
/// tail and the stop before the data's last 17 bytes are all crossed.
#[cfg(target_arch = "x86_64")]
#[test]
fn ssse3_group_varint_matches_the_portable_loop() {
    use super::encodings::group_varint::decode_fast_portable_32;
    if !std::arch::is_x86_feature_detected!("ssse3") {
        return;
    }
    for len in [0usize, 16, 17, 18, 127, 128, 129, 600, 1500] {
        let data = noise(len, len as u32);
        for start in (0..40).filter(|&s| s <= len) {
            for groups in [0usize, 1, 2, 3, 7, 64, 130] {
                let mut want = vec![-1i32; 4 * groups];
                let mut got = vec![-1i32; 4 * groups];
                let stop = decode_fast_portable_32(&data, start, &mut want);
                // SAFETY: the CPU supports SSSE3, just checked.
                let got_stop = unsafe { ssse3::group_varint::decode_32(&data, start, &mut got) };
                assert_eq!(got_stop, stop, "len {len} start {start} groups {groups}");
                assert_eq!(got, want, "len {len} start {start} groups {groups}");
            }
        }
    }
}

/// GroupVarInt INT32 bytes of `groups` groups whose lengths follow `mix` (each int's byte
/// length from the mix's `pick`), values random within their length.
fn group_varint_bytes(groups: usize, seed: u32, pick: impl Fn(usize, u32) -> usize) -> Vec<u8> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let values: Vec<i32> = (0..4 * groups)
        .map(|i| {
            let r = next();
            let len = pick(i, r);
            // At least one high byte set, so the encoder uses `len` bytes.
            let top = 1 | (r >> 8);
            (if len == 4 {
                r | 0x0100_0000
            } else {
                (r & ((1u32 << (8 * len)) - 1)) | (top & 0xFF) << (8 * (len - 1))
            }) as i32
        })
        .collect();
    let mut data = Vec::new();
    crate::parquet::group_varint::encode(&values, &mut data);
    data
}

/// A GroupVarInt INT32 kernel: `(data, pos, out)` → `(byte after, values decoded)`.
#[cfg(target_arch = "x86_64")]
type GroupVarIntKernel = unsafe fn(&[u8], usize, &mut [i32]) -> (usize, usize);

/// The GroupVarInt INT32 kernels with fixed-stride blocks this CPU can run: AVX2 and, with
/// its tier's features, AVX-512.
#[cfg(target_arch = "x86_64")]
fn wide_group_varint_kernels() -> Vec<(&'static str, GroupVarIntKernel)> {
    let mut kernels: Vec<(&str, GroupVarIntKernel)> = Vec::new();
    if std::arch::is_x86_feature_detected!("avx2") {
        kernels.push(("avx2", avx2::encodings::group_varint::decode_32));
    }
    if Tier::Avx512.is_available() {
        kernels.push(("avx512", avx512::encodings::group_varint::decode_32));
    }
    kernels
}

/// Asserts that every kernel of `kernels` decodes `groups` groups from byte `start` of
/// `data` as the portable loop does, stopping at the same group and byte.
#[cfg(target_arch = "x86_64")]
fn assert_group_varint_kernels_match_the_portable_loop(
    kernels: &[(&str, GroupVarIntKernel)],
    what: &str,
    data: &[u8],
    start: usize,
    groups: usize,
) {
    let mut want = vec![-1i32; 4 * groups];
    let stop = super::encodings::group_varint::decode_fast_portable_32(data, start, &mut want);
    for &(kernel_name, kernel) in kernels {
        let mut got = vec![-1i32; 4 * groups];
        // SAFETY: each kernel is in the list only when the CPU has its features.
        let got_stop = unsafe { kernel(data, start, &mut got) };
        let at = format!("{kernel_name}: {what} start {start} groups {groups}");
        assert_eq!(got_stop, stop, "{at}");
        assert_eq!(got, want, "{at}");
    }
}

/// Every GroupVarInt INT32 kernel this machine has (the dispatched one, SSSE3, AVX2 and
/// AVX-512) against the portable loop: on random bytes (every control byte) and on
/// encoded groups of every length mix (all 1-, 2-, 3- or 4-byte ints, random lengths, runs
/// of each length, one long int in four), from every start up to 40 bytes, for group counts
/// that end inside the kernels' blocks and steps, and data lengths that end at and around
/// the block boundaries (so that the one-group tail and the stop 17 bytes before the end are
/// crossed); every kernel stops at the same group and byte.
#[cfg(target_arch = "x86_64")]
#[test]
fn group_varint_kernels_match_the_portable_loop() {
    use super::encodings::group_varint_32;
    let mut kernels: Vec<(&str, GroupVarIntKernel)> =
        vec![("dispatched", |d, p, o| group_varint_32(d, p, o))];
    if std::arch::is_x86_feature_detected!("ssse3") {
        kernels.push(("ssse3", ssse3::group_varint::decode_32));
    }
    kernels.extend(wide_group_varint_kernels());
    type Pick = fn(usize, u32) -> usize;
    let mixes: [(&str, Pick); 8] = [
        ("1", |_, _| 1),
        ("2", |_, _| 2),
        ("3", |_, _| 3),
        ("4", |_, _| 4),
        ("random", |_, r| 1 + (r >> 30) as usize),
        ("runs", |i, _| 1 + (i / 37) % 4),
        ("one long in four", |i, _| if i % 4 == 3 { 4 } else { 1 }),
        ("mostly short", |_, r| if r % 16 == 0 { 4 } else { 1 }),
    ];
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for len in [
        0usize, 16, 17, 18, 127, 128, 129, 159, 160, 161, 600, 608, 609, 640, 1500, 5000,
    ] {
        inputs.push((format!("noise {len}"), noise(len, len as u32)));
    }
    for (name, pick) in mixes {
        for groups in [40usize, 300, 1000] {
            inputs.push((
                format!("{name} ×{groups}"),
                group_varint_bytes(groups, groups as u32, pick),
            ));
        }
    }
    for (name, data) in &inputs {
        for start in (0..40).filter(|&s| s <= data.len()) {
            for groups in [0usize, 1, 2, 3, 4, 5, 7, 8, 9, 64, 130, 499, 1001, 1500] {
                assert_group_varint_kernels_match_the_portable_loop(
                    &kernels, name, data, start, groups,
                );
            }
        }
    }
}

/// GroupVarInt INT32 decoding of encoded data cut anywhere inside its groups is a
/// `Truncated` error, never a panic, whichever kernel runs (the cut can fall in a kernel's
/// block, its tail, or its last group).
#[test]
fn group_varint_truncated_input_is_an_error() {
    use crate::parquet::group_varint::decode;
    use crate::parquet::ErrorKind;
    let data = group_varint_bytes(200, 7, |_, r| 1 + (r >> 30) as usize);
    let mut full = vec![0i32; 800];
    decode(&data, &mut full).unwrap();
    for cut in (0..data.len())
        .step_by(7)
        .chain(data.len() - 20..data.len())
    {
        let mut out = vec![0i32; 800];
        let err = decode(&data[..cut], &mut out).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "cut at {cut}");
    }
}

/// A run of DELTA_BINARY_PACKED blocks kernel (`(data, pos, miniblocks, per_miniblock, acc,
/// out) -> (blocks, pos, acc)`).
type Blocks<A, O> = fn(&[u8], usize, usize, usize, A, &mut [O]) -> (usize, usize, A);

/// The INT32 and INT64 implementations of [`Blocks`].
type BlocksKernels = (Vec<Blocks<u32, i32>>, Vec<Blocks<u64, i64>>);

/// Every implementation of the runs-of-blocks kernels: dispatched, portable and (on a CPU
/// with AVX2 and BMI2) the AVX2 ones directly.
fn delta_blocks_kernels() -> BlocksKernels {
    // Off x86-64 nothing is pushed.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut all: BlocksKernels = (
        vec![
            encodings::delta_blocks_i32,
            encodings::portable::delta_blocks_i32,
        ],
        vec![
            encodings::delta_blocks_i64,
            encodings::portable::delta_blocks_i64,
        ],
    );
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: pushed only on a CPU with AVX2 and BMI2.
        all.0
            .push(|d, p, m, v, a, o| unsafe { avx2::delta::delta_blocks_i32(d, p, m, v, a, o) });
        // SAFETY: pushed only on a CPU with AVX2 and BMI2.
        all.1
            .push(|d, p, m, v, a, o| unsafe { avx2::delta::delta_blocks_i64(d, p, m, v, a, o) });
    }
    all
}

fn push_uleb128(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Blocks of DELTA_BINARY_PACKED data, each `(min delta, widths)`, the bodies noise; returns
/// the bytes and where each block starts (and the end).
fn delta_blocks_page(
    blocks: &[(i64, Vec<u8>)],
    per_miniblock: usize,
    seed: u32,
) -> (Vec<u8>, Vec<usize>) {
    let mut data = vec![0xEE; 3];
    let mut starts = vec![];
    for (k, (min, widths)) in blocks.iter().enumerate() {
        starts.push(data.len());
        push_uleb128(&mut data, ((min << 1) ^ (min >> 63)) as u64);
        data.extend_from_slice(widths);
        let body: usize = widths
            .iter()
            .map(|&w| per_miniblock / 8 * usize::from(w))
            .sum();
        data.extend(noise(body, seed + k as u32));
    }
    starts.push(data.len());
    (data, starts)
}

/// The reference: each block by the portable one-block kernel (itself held to a bit-by-bit
/// serial sum in `encodings::tests`), its min delta and widths as given.
fn delta_blocks_reference(
    blocks: &[(i64, Vec<u8>)],
    data: &[u8],
    starts: &[usize],
    per_miniblock: usize,
    acc: u64,
) -> (Vec<i64>, Vec<i32>) {
    let block_size = per_miniblock * blocks.first().map_or(0, |b| b.1.len());
    let mut want64 = vec![0i64; block_size * blocks.len()];
    let mut want32 = vec![0i32; block_size * blocks.len()];
    let (mut acc64, mut acc32) = (acc, acc as u32);
    for (k, (min, widths)) in blocks.iter().enumerate() {
        let body = &data[starts[k + 1]
            - widths
                .iter()
                .map(|&w| per_miniblock / 8 * usize::from(w))
                .sum::<usize>()..];
        let range = k * block_size..(k + 1) * block_size;
        if widths.iter().all(|&w| w <= 64) {
            acc64 = encodings::portable::delta_block_i64(
                widths,
                per_miniblock,
                body,
                *min as u64,
                acc64,
                &mut want64[range.clone()],
            );
        }
        if widths.iter().all(|&w| w <= 32) {
            acc32 = encodings::portable::delta_block_i32(
                widths,
                per_miniblock,
                body,
                *min as u32,
                acc32,
                &mut want32[range],
            );
        }
    }
    (want64, want32)
}

/// Runs of whole DELTA_BINARY_PACKED blocks with their headers read inside the kernel, on
/// every tier this CPU has: every width 0..=64 (INT32 0..=32) in turn, mixed widths (the
/// AVX2 plan kept and changed), block layouts of 1, 4 and 8 miniblocks of 8..=64 values,
/// min deltas at the extremes (wrapping), against the one-block kernels; and each reason to
/// stop early (a width above the type's, an INT32 min delta out of range, a min delta
/// over 64 bits, widths or bodies past the data or within 32 bytes of its end, `out` shorter) stops
/// before that block, with the blocks before it decoded, the position after them returned and
/// nothing written for the rest.
#[test]
fn delta_block_runs_match_the_one_block_kernels_and_stop_where_they_must() {
    let (k32, k64) = delta_blocks_kernels();
    let mins = [
        0i64,
        -4,
        1000,
        i64::from(i32::MIN),
        i64::from(i32::MAX),
        -(1 << 62),
        // 10-byte ULEB128s (zigzag 2^64 − 1 and 2^64 − 2): every block of random INT64s.
        i64::MIN,
        i64::MAX,
    ];
    for (miniblocks, per_miniblock) in [(4usize, 32usize), (1, 8), (8, 16), (2, 64)] {
        let mut layouts: Vec<Vec<(i64, Vec<u8>)>> = (0..=64u8)
            .map(|w| {
                (0..3)
                    .map(|k| (mins[(w as usize + k) % mins.len()], vec![w; miniblocks]))
                    .collect()
            })
            .collect();
        layouts.push(
            (0..7)
                .map(|k| {
                    let widths = (0..miniblocks)
                        .map(|m| [10u8, 32, 0, 1, 31, 26, 10, 17, 64, 33][(k * 3 + m) % 10])
                        .collect();
                    (mins[k % mins.len()], widths)
                })
                .collect(),
        );
        for (case, blocks) in layouts.iter().enumerate() {
            let (mut data, starts) = delta_blocks_page(blocks, per_miniblock, case as u32);
            data.extend_from_slice(&[0xAB; 32]);
            let acc = 0xFFFF_FFF0_u64 << 20;
            let (want64, want32) =
                delta_blocks_reference(blocks, &data, &starts, per_miniblock, acc);
            let block_size = miniblocks * per_miniblock;
            let n = block_size * blocks.len();
            let what = format!("case {case} layout {miniblocks}×{per_miniblock}");
            // INT64: every block decodes.
            for f in &k64 {
                let mut got = vec![7i64; n + 1];
                let (done, pos, last) = f(
                    &data,
                    starts[0],
                    miniblocks,
                    per_miniblock,
                    acc,
                    &mut got[..n],
                );
                assert_eq!((done, pos), (blocks.len(), starts[blocks.len()]), "{what}");
                assert_eq!(&got[..n], &want64[..], "{what}");
                assert_eq!(last, want64[n - 1] as u64, "{what}");
                assert_eq!(got[n], 7, "{what}");
            }
            // INT32: stops at the first block with a width above 32 or a min delta out of
            // range.
            let good = blocks
                .iter()
                .position(|(min, w)| w.iter().any(|&w| w > 32) || i32::try_from(*min).is_err())
                .unwrap_or(blocks.len());
            for f in &k32 {
                let mut got = vec![7i32; n + 1];
                let (done, pos, last) = f(
                    &data,
                    starts[0],
                    miniblocks,
                    per_miniblock,
                    acc as u32,
                    &mut got[..n],
                );
                assert_eq!((done, pos), (good, starts[good]), "{what}");
                assert_eq!(
                    &got[..good * block_size],
                    &want32[..good * block_size],
                    "{what}"
                );
                assert!(got[good * block_size..].iter().all(|&v| v == 7), "{what}");
                let want_last = if good == 0 {
                    acc as u32
                } else {
                    want32[good * block_size - 1] as u32
                };
                assert_eq!(last, want_last, "{what}");
            }
            // Cut the data at every 7th byte from the last block's start: the blocks
            // whose bodies end 32 bytes or more before the cut are decoded, the others left
            // to the caller. `out` one value short of the blocks: the last is not decoded.
            let last_start = starts[blocks.len() - 1];
            for cut in (last_start..data.len()).step_by(7) {
                let fits = (1..=blocks.len())
                    .take_while(|&k| starts[k] + 32 <= cut)
                    .count();
                for f in &k64 {
                    let mut got = vec![7i64; n];
                    let (done, pos, _) = f(
                        &data[..cut],
                        starts[0],
                        miniblocks,
                        per_miniblock,
                        acc,
                        &mut got,
                    );
                    assert_eq!((done, pos), (fits, starts[fits]), "{what} cut {cut}");
                    assert_eq!(&got[..fits * block_size], &want64[..fits * block_size]);
                    assert!(got[fits * block_size..].iter().all(|&v| v == 7));
                }
            }
            for f in &k64 {
                let mut got = vec![7i64; n - 1];
                let (done, ..) = f(&data, starts[0], miniblocks, per_miniblock, acc, &mut got);
                assert_eq!(done, blocks.len() - 1, "{what}");
            }
        }
    }
    // A min delta over 64 bits (i64::MIN's 10-byte zigzag with a 10th byte of 2, which the
    // codec refuses) and a width of 65: left to the caller.
    for (min, width) in [(i64::MIN, 3u8), (5, 65)] {
        let blocks = vec![(1, vec![3u8; 4]), (min, vec![width; 4])];
        let (mut data, starts) = delta_blocks_page(&blocks, 32, 9);
        if min == i64::MIN {
            assert_eq!(
                data[starts[1]..starts[1] + 10],
                [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]
            );
            data[starts[1] + 9] = 0x02;
        }
        data.extend_from_slice(&[0; 300]);
        for f in &k64 {
            let mut got = vec![7i64; 256];
            let (done, pos, _) = f(&data, starts[0], 4, 32, 0, &mut got);
            assert_eq!((done, pos), (1, starts[1]), "min {min} width {width}");
            assert!(got[128..].iter().all(|&v| v == 7));
        }
    }
}

/// The AVX2 and AVX-512 GroupVarInt kernels' fixed-stride blocks (each block's sizes
/// computed while the block before it is decoded, from a few hundred groups asked for)
/// against the portable loop: encoded data of every length mix over several blocks, from
/// starts up to 40, with group counts around the threshold and ending anywhere, and the
/// data cut so that the last fixed-stride block, the switch back to variable blocks and the
/// one-group tail fall at every byte near the end (no read past the slice; every kernel
/// stops at the same group and byte).
#[cfg(target_arch = "x86_64")]
#[test]
fn simd_group_varint_fixed_stride_blocks_match_the_portable_loop() {
    use super::encodings::group_varint_32;
    if !std::arch::is_x86_feature_detected!("avx2") {
        return;
    }
    type Pick = fn(usize, u32) -> usize;
    let mixes: [(&str, Pick); 6] = [
        ("1", |_, _| 1),
        ("4", |_, _| 4),
        ("random", |_, r| 1 + (r >> 30) as usize),
        ("runs", |i, _| 1 + (i / 301) % 4),
        ("one long in four", |i, _| if i % 4 == 3 { 4 } else { 1 }),
        ("mostly short", |_, r| if r % 16 == 0 { 4 } else { 1 }),
    ];
    let mut kernels: Vec<(&str, GroupVarIntKernel)> =
        vec![("dispatched", |d, p, o| group_varint_32(d, p, o))];
    kernels.extend(wide_group_varint_kernels());
    let check = |what: &str, data: &[u8], start: usize, groups: usize| {
        assert_group_varint_kernels_match_the_portable_loop(&kernels, what, data, start, groups);
    };
    for (name, pick) in mixes {
        let data = group_varint_bytes(1500, 11, pick);
        for start in [0usize, 1, 5, 17, 31, 32, 39] {
            for groups in [408usize, 409, 410, 411, 500, 777, 1024, 1499, 1500, 1600] {
                check(name, &data, start, groups);
            }
        }
        // Cuts near the end (the kernels stop 17 bytes before it) and at every byte around
        // the multiples of the block size.
        let mut cuts: Vec<usize> = (data.len().saturating_sub(200)..=data.len()).collect();
        for k in 2..(data.len() / 1024).min(6) {
            cuts.extend(k * 1024 - 40..k * 1024 + 100);
        }
        for cut in cuts.into_iter().filter(|&c| c <= data.len()) {
            check(&format!("{name} cut {cut}"), &data[..cut], 3, 1500);
        }
    }
}

/// The hybrid stream of RLE runs `(value, length)` (headers as ULEB128, zero-length runs
/// kept), as the kernels' fast path and the encoder's runs of 8 or more read them.
fn rle_runs_stream(runs: &[(u32, usize)], width: u32) -> Vec<u8> {
    let mut stream = Vec::new();
    for &(value, length) in runs {
        let mut header = (length as u64) << 1;
        while header >= 0x80 {
            stream.push(header as u8 | 0x80);
            header >>= 7;
        }
        stream.push(header as u8);
        stream.extend_from_slice(&value.to_le_bytes()[..width.div_ceil(8) as usize]);
    }
    stream
}

/// Every tier: each has this kernel.
#[test]
fn simd_hybrid_fills_of_every_run_length_stay_inside_out_near_its_end() {
    // An RLE run of each length 0..=300 (AVX2 fills store 256-byte blocks, up to 252
    // bytes past a run) between two others, `out` ending after the last run, at the end of
    // the run, one value into it, or in the middle of the first run, at a line boundary
    // and not 4-byte aligned: the values are right, nothing is written outside `out`, and
    // no more than 64 · FILL_LINES − 1 bytes past the values when the stream ends first.
    let mut buffer = vec![0u8; 4 * 400 + 512];
    let offsets = line_offsets(&buffer);
    for width in [1u32, 8, 17, 32] {
        let max = u32::MAX >> (32 - width);
        for length in 0..=300usize {
            let (a, b, c) = (0x5A5A_5A5A & max, 0x3C3C_3C3C & max, 0x0F0F_0F0F & max);
            let runs = [(a, 37), (b, length), (c, 9)];
            let values: Vec<u32> = runs
                .iter()
                .flat_map(|&(value, n)| std::iter::repeat_n(value, n))
                .collect();
            let stream = rle_runs_stream(&runs, width);
            let total = values.len();
            for count in [total, total + 5, 37 + length, 37 + length.min(1), 20] {
                for at in [offsets[0], offsets[3], offsets[16]] {
                    buffer.fill(0xA5);
                    let out = &mut buffer[at..at + 4 * count];
                    let (done, used, _) =
                        hybrid_to_le_bytes(kernels(), width, &stream, max, out, false).unwrap();
                    let what = format!("w{width} run {length} n{count} at{at}");
                    assert_eq!(done, count.min(total), "{what}");
                    if count >= total {
                        assert_eq!(used, stream.len(), "{what}");
                    }
                    let got: Vec<u32> = out[..4 * done]
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect();
                    assert_eq!(got, values[..done], "{what}");
                    let past = (4 * done + 64 * FILL_LINES - 1).min(out.len());
                    assert!(out[past..].iter().all(|&b| b == 0xA5), "{what}: past done");
                    assert!(buffer[..at].iter().all(|&b| b == 0xA5), "{what}: before");
                    assert!(
                        buffer[at + 4 * count..].iter().all(|&b| b == 0xA5),
                        "{what}: past out"
                    );
                }
            }
        }
    }
}

/// The `i`th value of `width` bits packed LSB-first in `src`, bit by bit.
fn packed_bits(src: &[u8], width: u32, i: usize) -> u64 {
    (0..width as usize).fold(0, |v, b| {
        let bit = i * width as usize + b;
        v | (u64::from(src[bit / 8] >> (bit % 8) & 1) << b)
    })
}

/// The min deltas at the edge of the AVX2 INT64 path that adds `min` in 32-bit lanes (taken
/// when `min + 2^width − 1 < 2^29`): the largest that takes it, one past it, 0, 1 and −1.
fn folding_edge_mins(width: u32) -> [i64; 5] {
    let edge = ((1i64 << 29) - (1i64 << width.min(62))).max(0);
    [edge, edge + 1, 0, 1, -1]
}

/// INT64 miniblocks at the edge of the AVX2 path that adds `min` in 32-bit lanes: every
/// width 0..=64, the min deltas of [`folding_edge_mins`], deltas all ones (each group's sum
/// at its largest) and noise, every length tail up to 4 groups, the deltas alone and
/// followed by the rest of a page, on every tier this CPU has: against a bit-by-bit serial
/// sum, with nothing written past `out`.
#[test]
fn delta_i64_miniblocks_at_the_min_folding_edge_match_a_bitwise_sum() {
    type Mini64 = fn(u32, &[u8], u64, u64, &mut [i64]) -> u64;
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut kernels: Vec<Mini64> = vec![encodings::delta_i64, encodings::portable::delta_i64];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: pushed only on a CPU with AVX2 and BMI2.
        kernels.push(|w, s, m, a, o| unsafe { avx2::encodings::delta_i64(w, s, m, a, o) });
    }
    for width in 0..=64u32 {
        for fill in [None, Some(0xFF)] {
            let bytes = match fill {
                Some(b) => vec![b; 4 * 64 + 40],
                None => noise(4 * 64 + 40, width),
            };
            for min in folding_edge_mins(width) {
                for n in 0..=32usize {
                    let need = n.div_ceil(8) * width as usize;
                    for src in [&bytes[..need], &bytes[..need + 40]] {
                        let acc = 0xFFFF_FFFF_0000_0007u64;
                        let mut want = vec![];
                        let mut sum = acc;
                        for i in 0..n {
                            sum = sum
                                .wrapping_add(packed_bits(src, width, i))
                                .wrapping_add(min as u64);
                            want.push(sum as i64);
                        }
                        for f in &kernels {
                            let mut got = vec![3i64; n + 2];
                            let last = f(width, src, min as u64, acc, &mut got[..n]);
                            let what = format!("width {width} min {min} n {n} fill {fill:?}");
                            assert_eq!(&got[..n], &want[..], "{what}");
                            assert_eq!(last, sum, "{what}");
                            assert_eq!(&got[n..], &[3, 3], "{what}");
                        }
                    }
                }
            }
        }
    }
}

/// Whole INT64 pages through the codec at the same edge: values whose deltas span
/// `min ..= min + 2^width − 1` in every block (so, below 63 bits, each block's width is
/// `width` and its min delta `min`), every width 0..=64, 3 blocks and a tail of 37 values: decoded exactly on
/// this tier; every cut of the page is an error, never a panic, as is `out` one value short.
#[test]
fn delta_i64_pages_at_the_min_folding_edge_decode_and_fail_cleanly() {
    use crate::parquet::delta_binary_packed::{decode, encode};
    for width in 0..=64u32 {
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        for min in folding_edge_mins(width) {
            let n = 3 * 128 + 37 + 1;
            let bytes = noise(8 * n, width ^ min as u32);
            let mut values = vec![-5i64];
            for i in 1..n {
                let spread = match i % 128 {
                    1 => 0,
                    2 => mask,
                    _ => u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().unwrap()) & mask,
                };
                let delta = (min as u64).wrapping_add(spread);
                values.push(values[i - 1].wrapping_add(delta as i64));
            }
            let mut page = vec![];
            encode(&values, &mut page);
            let what = format!("width {width} min {min}");
            let mut got = vec![0i64; n];
            assert_eq!(decode(&page, &mut got).unwrap(), (n, page.len()), "{what}");
            assert_eq!(got, values, "{what}");
            assert!(decode(&page, &mut got[..n - 1]).is_err(), "{what}");
            for cut in (0..page.len()).step_by(11) {
                let mut got = vec![0i64; n];
                assert!(decode(&page[..cut], &mut got).is_err(), "{what} cut {cut}");
            }
        }
    }
}
