//! BIT_PACKED (4): the seed's golden vector, round trips at every width against a bit-at-a-time
//! model and the crate's `pack_be`, batches and skips from any position, and hostile sizes.

mod common;

use common::steps;
use proptest::prelude::*;
use qpl_fallback::parquet::bit_packed::{self, encoded_len, BitPackedDecoder};
use qpl_fallback::parquet::ErrorKind;

/// MSB-first packing, bit by bit, from the seed's description.
fn model_pack(values: &[u32], width: u32) -> Vec<u8> {
    let mut out = vec![0u8; (values.len() * width as usize).div_ceil(8)];
    for (i, &v) in values.iter().enumerate() {
        for b in 0..width as usize {
            // Bit b of the value counted from its most significant bit.
            if v >> (width as usize - 1 - b) & 1 != 0 {
                let bit = i * width as usize + b;
                out[bit / 8] |= 0x80 >> (bit % 8);
            }
        }
    }
    out
}

fn mask(width: u32) -> u32 {
    if width == 0 {
        0
    } else {
        u32::MAX >> (32 - width)
    }
}

#[test]
fn seed_golden_vector() {
    let values: Vec<u32> = (0..8).collect();
    let golden = [0b0000_0101, 0b0011_1001, 0b0111_0111];
    let mut encoded = Vec::new();
    bit_packed::encode(&values, 3, &mut encoded).unwrap();
    assert_eq!(encoded, golden);
    let mut out = [0u32; 8];
    assert_eq!(bit_packed::decode(&golden, 3, &mut out), Ok(3));
    assert_eq!(out.to_vec(), values);
    // The seed's size example: 30 values of 2 bits take 8 bytes.
    assert_eq!(encoded_len(2, 30), 8);
}

#[test]
fn hostile_sizes_and_widths() {
    let e = BitPackedDecoder::new(&[0; 16], 33, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("33"), "{e}");
    // A count whose size overflows: Truncated, no overflow.
    for n in [usize::MAX, 1 << 40, (1 << 31) + 1] {
        let e = BitPackedDecoder::new(&[0; 3], 32, n).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "{n}");
        assert!(e.message.contains(&n.to_string()), "{e}");
    }
    assert_eq!(encoded_len(32, usize::MAX), usize::MAX);
    // Every cut of a page short of its size.
    let values: Vec<u32> = (0..37).map(|i| i % 32).collect();
    let mut page = Vec::new();
    bit_packed::encode(&values, 5, &mut page).unwrap();
    assert_eq!(page.len(), encoded_len(5, 37));
    for cut in 0..page.len() {
        let e = bit_packed::decode(&page[..cut], 5, &mut [0; 37]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated, "cut {cut}");
    }
    // Values too wide to encode, and width 0.
    let e = bit_packed::encode(&[1, 2, 8], 3, &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidArgument);
    assert!(e.message.contains("index 2"), "{e}");
    assert!(bit_packed::encode(&[0, 1], 0, &mut Vec::new()).is_err());
    let mut out = vec![5u32; 9];
    assert_eq!(bit_packed::decode(&[], 0, &mut out), Ok(0));
    assert_eq!(out, [0; 9]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Encoding matches the bitwise model and `pack_be`; decoding, whole or in random batches
    /// and skips, gives the values back.
    #[test]
    fn round_trips_at_every_width(
        width in 0u32..=32,
        raw in prop::collection::vec(any::<u32>(), 0..300),
        sizes in prop::collection::vec((any::<bool>(), 1usize..40), 1..8),
        trailing in prop::collection::vec(any::<u8>(), 0..4),
    ) {
        let values: Vec<u32> = raw.iter().map(|&v| v & mask(width)).collect();
        let mut encoded = vec![0xAA];
        bit_packed::encode(&values, width, &mut encoded).unwrap();
        // Appends after what was there.
        prop_assert_eq!(encoded[0], 0xAA);
        let encoded = encoded.split_off(1);
        prop_assert_eq!(&encoded, &model_pack(&values, width));
        if width > 0 {
            prop_assert_eq!(&encoded, &qpl_fallback::pack_be(&values, width).unwrap());
        }
        prop_assert_eq!(encoded.len(), encoded_len(width, values.len()));

        // Trailing bytes are not part of the page.
        let mut page = encoded.clone();
        page.extend_from_slice(&trailing);
        let mut out = vec![u32::MAX; values.len()];
        prop_assert_eq!(bit_packed::decode(&page, width, &mut out), Ok(encoded.len()));
        prop_assert_eq!(&out, &values);

        let mut d = BitPackedDecoder::new(&page, width, values.len()).unwrap();
        steps::check_values(&mut d, &values, &sizes, u32::MAX, <[u32]>::to_vec);
    }
}
