//! DELTA_BINARY_PACKED on the AVX2 tier, a run of whole blocks per call
//! (`kernels::encodings::delta_blocks_i32` / `_i64`): each block's header is read and
//! checked by the portable tier's `block_header` and its miniblocks decoded by the AVX2
//! miniblock kernels of `avx2::encodings` (a block whose miniblocks share a width as one
//! stream of that width, in one group loop), the running sum (INT32: in every lane of a vector)
//! and the unpack plan's registers kept from block to block.

use std::arch::x86_64::*;

use super::encodings::{miniblock_i32, miniblock_i64, narrow_miniblock_i64, scan_words_i64};
use crate::kernels::encodings::portable::walk_blocks;

/// [`crate::kernels::encodings::delta_blocks_i32`] with AVX2.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(in crate::kernels) unsafe fn delta_blocks_i32(
    data: &[u8],
    pos: usize,
    miniblocks: usize,
    per_miniblock: usize,
    acc: u32,
    out: &mut [i32],
) -> (usize, usize, u32) {
    let mut cache = None;
    let acc_v = _mm256_set1_epi32(acc as i32);
    let step = per_miniblock / 8;
    let (blocks, pos, acc_v) = walk_blocks(
        data,
        pos,
        (miniblocks, per_miniblock),
        32,
        acc_v,
        out,
        |widths, src, min, mut acc_v, out| {
            let min = min as u32;
            let min_v = _mm256_set1_epi32(min as i32);
            if widths.windows(2).all(|w| w[0] == w[1]) {
                // Equal widths: the bodies are one stream of the block's deltas at that
                // width, decoded in one group loop (4 times longer than a miniblock's with
                // arrow-rs's 32-value miniblocks, so more groups overlap).
                let width = widths.first().copied().unwrap_or(0);
                return miniblock_i32(width, src, min, min_v, acc_v, out, &mut cache);
            }
            let mut at = 0;
            for (chunk, &width) in out.chunks_exact_mut(per_miniblock).zip(widths) {
                acc_v = miniblock_i32(width, &src[at..], min, min_v, acc_v, chunk, &mut cache);
                at += step * usize::from(width);
            }
            acc_v
        },
    );
    (blocks, pos, _mm256_cvtsi256_si32(acc_v) as u32)
}

/// [`crate::kernels::encodings::delta_blocks_i64`] with AVX2.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(in crate::kernels) unsafe fn delta_blocks_i64(
    data: &[u8],
    pos: usize,
    miniblocks: usize,
    per_miniblock: usize,
    acc: u64,
    out: &mut [i64],
) -> (usize, usize, u64) {
    let mut cache = None;
    let step = per_miniblock / 8;
    walk_blocks(
        data,
        pos,
        (miniblocks, per_miniblock),
        64,
        acc,
        out,
        |widths, src, min, mut acc, out| {
            let min_v = _mm256_set1_epi64x(min as i64);
            if widths.windows(2).all(|w| w[0] == w[1]) {
                // Equal widths: one stream, one group loop (as for INT32).
                let width = widths.first().copied().unwrap_or(0);
                if width == 64 && out.len() % 4 == 0 && src.len() / 8 >= out.len() {
                    // Random values: every block is words, scanned by a loop inlined here
                    // (the miniblock kernel's call and frame were a fifth of its time).
                    let acc_v = scan_words_i64(src, min_v, _mm256_set1_epi64x(acc as i64), out);
                    return _mm256_extract_epi64::<0>(acc_v) as u64;
                }
                // Sorted values: narrow widths, inlined here as the words above.
                // SAFETY: AVX2 and BMI2 are available (this function's target features).
                let narrow = unsafe { narrow_miniblock_i64(width, src, min, acc, out, &mut cache) };
                if let Some(acc) = narrow {
                    return acc;
                }
                return miniblock_i64(width, src, min, min_v, acc, out, &mut cache);
            }
            let mut at = 0;
            for (chunk, &width) in out.chunks_exact_mut(per_miniblock).zip(widths) {
                acc = miniblock_i64(width, &src[at..], min, min_v, acc, chunk, &mut cache);
                at += step * usize::from(width);
            }
            acc
        },
    )
}
