//! `parquet_encodings`: every decoder of `qpl_fallback::parquet`, incrementally and whole-page.
//!
//! Input layout (all of it fuzzed):
//!
//! | bytes | meaning |
//! |---|---|
//! | 0 | the case: encoding and physical type, `byte % CASES.len()` (see [`CASES`]) |
//! | 1 | the parameter: bit width (`% 34`, so 0..=33) or FIXED_LEN_BYTE_ARRAY length (0..=255) |
//! | 2..5 | the count passed as `num_values` / `max_values`: `n = (m · 2^e) >> 16` with `m` = bytes 2..4 as a little-endian `u16` and `e` = byte 4 mod 33, so log-uniform up to 2^32 (to catch allocations sized by a count); `m m 10` gives `n = m` |
//! | 5 | how many batch operations follow (`% 17`) |
//! | 6.. | the operations, one byte each: bit 7 = `skip` (else `next_batch`), bit 6 = large, bits 0..6 = `k`; the size is `k` (0..=63) or `64 · (k + 1)` when large |
//! | then | dictionary cases only: the dictionary's length (1 byte), then its values (PLAIN for fixed-width types; for byte arrays, value `i` has `(7i + param) % 9` bytes), padded with zeros where the input runs out |
//! | rest | the page |
//!
//! Checks:
//! 1. No decoder panics, and none allocates by a count (libFuzzer's `-rss_limit_mb` and
//!    `-malloc_limit_mb` turn that into a crash); a decoder's `remaining()` never exceeds the
//!    count the caller passed.
//! 2. `next_batch` returns exactly `min(asked, remaining)` and leaves the rest of the caller's
//!    slice untouched (sentinel values); `skip(n)` returns `min(n, remaining)`; `remaining()`
//!    drops by the count returned. Byte-array decoders append exactly that many values.
//! 3. When the count is at most [`CAP`] (byte arrays: [`CAP_BYTE_ARRAYS`]), the page decoded
//!    whole and decoded with `next_batch` calls of the fuzzed sizes (skips ignored) agree: the
//!    same values (compared bitwise: NaNs too), or both fail with the same `ErrorKind`.
//!    Decoded with the fuzzed `next_batch`/`skip` sequence, the values decoded match the
//!    whole page's at their positions, and a page that decodes whole never fails
//!    incrementally. With larger counts, values both decoded are compared.
//! 4. When the whole page decodes, its values re-encoded by our encoder decode back to the
//!    same values (hybrid and BIT_PACKED: masked to the bit width first).
#![no_main]

use libfuzzer_sys::fuzz_target;
use qpl_fallback::parquet::{
    bit_packed, byte_stream_split, delta_binary_packed, delta_byte_array, delta_length_byte_array,
    dictionary, group_varint, hybrid, plain, ByteArrayDecoder, ByteArrays, FixedWidth, Int96,
    ParquetError, ValueDecoder,
};

/// Most values a run decodes (and the largest whole-page buffer).
const CAP: usize = 1 << 16;
/// Most byte arrays a run decodes: DELTA_BYTE_ARRAY values can each repeat the previous one's
/// bytes, so a few KiB of input may describe `count × input` bytes.
const CAP_BYTE_ARRAYS: usize = 1 << 12;
/// Most decoder calls per run, so that runs of `skip(0)` stay short.
const MAX_CALLS: usize = 1 << 17;

/// `PARQUET_ENCODINGS_VERBOSE=1` prints each input's case and whole-page result (to check
/// that the seeds decode).
fn verbose() -> bool {
    static VERBOSE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VERBOSE.get_or_init(|| std::env::var_os("PARQUET_ENCODINGS_VERBOSE").is_some())
}

/// One call of the fuzzed sequence.
#[derive(Clone, Copy, Debug)]
enum Op {
    Next(usize),
    Skip(usize),
}

impl Op {
    fn from_byte(b: u8) -> Op {
        let k = usize::from(b & 0x3F);
        let size = if b & 0x40 != 0 { 64 * (k + 1) } else { k };
        if b & 0x80 != 0 {
            Op::Skip(size)
        } else {
            Op::Next(size)
        }
    }

    fn size(self) -> usize {
        match self {
            Op::Next(n) | Op::Skip(n) => n,
        }
    }
}

/// What the fuzz input asks of every case.
struct Plan {
    /// `num_values` / `max_values` as passed to the decoders.
    count: usize,
    /// The call sequence, repeated until the decoder is exhausted (or the run's cap).
    ops: Vec<Op>,
}

/// Bitwise equality (NaN = NaN) and a sentinel to detect writes past a batch's count.
trait Value: Copy + Default + std::fmt::Debug {
    fn same(&self, other: &Self) -> bool;
    /// A value to prefill output slices with; `None` when every bit pattern is a valid value
    /// the decoder may legitimately write (booleans).
    fn sentinel() -> Option<Self>;
}

macro_rules! value_int {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn same(&self, other: &Self) -> bool { self == other }
            fn sentinel() -> Option<Self> { Some(0xA5A5_A5A5u32 as $t) }
        }
    )*};
}
value_int!(u32, i32, i64);

impl Value for bool {
    fn same(&self, other: &Self) -> bool {
        self == other
    }
    fn sentinel() -> Option<Self> {
        None
    }
}
impl Value for f32 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
    fn sentinel() -> Option<Self> {
        Some(f32::from_bits(0xA5A5_A5A5))
    }
}
impl Value for f64 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
    fn sentinel() -> Option<Self> {
        Some(f64::from_bits(0xA5A5_A5A5_A5A5_A5A5))
    }
}
impl Value for Int96 {
    fn same(&self, other: &Self) -> bool {
        self == other
    }
    fn sentinel() -> Option<Self> {
        Some(Int96([0xA5A5_A5A5; 3]))
    }
}

/// What one kind of decoder (fixed-size values, byte arrays) does in an incremental run: its
/// calls, and the checks and bookkeeping of what `next_batch` produced.
trait Kind {
    type Decoder;
    fn remaining(decoder: &Self::Decoder) -> usize;
    fn skip(decoder: &mut Self::Decoder, n: usize) -> Result<usize, ParquetError>;
    /// One `next_batch` of `ask` values.
    fn next_batch(
        &mut self,
        decoder: &mut Self::Decoder,
        ask: usize,
    ) -> Result<usize, ParquetError>;
    /// Checks and keeps the `n` values the last `next_batch` of `ask` returned, the first at
    /// page position `position`.
    fn keep(&mut self, ask: usize, n: usize, position: usize);
}

/// The values of a value decoder's run.
struct Values<T, D> {
    /// `(position, value)` of every value `next_batch` produced.
    decoded: Vec<(usize, T)>,
    buf: Vec<T>,
    sentinel: Option<T>,
    _decoder: std::marker::PhantomData<D>,
}

impl<T: Value, D: ValueDecoder<Value = T>> Kind for Values<T, D> {
    type Decoder = D;

    fn remaining(decoder: &D) -> usize {
        decoder.remaining()
    }

    fn skip(decoder: &mut D, n: usize) -> Result<usize, ParquetError> {
        decoder.skip(n)
    }

    fn next_batch(&mut self, decoder: &mut D, ask: usize) -> Result<usize, ParquetError> {
        self.buf.clear();
        self.buf.resize(ask, self.sentinel.unwrap_or_default());
        decoder.next_batch(&mut self.buf)
    }

    fn keep(&mut self, ask: usize, n: usize, position: usize) {
        if let Some(s) = self.sentinel {
            if let Some(i) = self.buf[n..].iter().position(|v| !v.same(&s)) {
                panic!(
                    "next_batch of {ask} returned {n} but wrote slot {} ({:?})",
                    n + i,
                    self.buf[n + i]
                );
            }
        }
        self.decoded.extend(
            self.buf[..n]
                .iter()
                .enumerate()
                .map(|(i, &v)| (position + i, v)),
        );
    }
}

/// The values of a byte-array decoder's run.
struct Arrays<D> {
    /// Positions of the values in `values`.
    positions: Vec<usize>,
    values: ByteArrays,
    /// `values.len()` and the last offset before the last `next_batch`.
    before: usize,
    last_offset: i32,
    _decoder: std::marker::PhantomData<D>,
}

impl<D: ByteArrayDecoder> Kind for Arrays<D> {
    type Decoder = D;

    fn remaining(decoder: &D) -> usize {
        decoder.remaining()
    }

    fn skip(decoder: &mut D, n: usize) -> Result<usize, ParquetError> {
        decoder.skip(n)
    }

    fn next_batch(&mut self, decoder: &mut D, ask: usize) -> Result<usize, ParquetError> {
        self.before = self.values.len();
        self.last_offset = *self.values.offsets.last().unwrap();
        decoder.next_batch(&mut self.values, ask)
    }

    fn keep(&mut self, _ask: usize, n: usize, position: usize) {
        let (before, values) = (self.before, &self.values);
        assert_eq!(
            values.len(),
            before + n,
            "next_batch returned {n} but appended {}",
            values.len().wrapping_sub(before)
        );
        assert_eq!(
            values.offsets[before], self.last_offset,
            "next_batch changed the last offset before its values"
        );
        let offsets = &values.offsets[before..];
        assert!(
            offsets.windows(2).all(|w| w[0] <= w[1])
                && *offsets.last().unwrap() as usize == values.values.len(),
            "next_batch appended offsets that do not fit the values: {offsets:?}"
        );
        self.positions.extend(position..position + n);
    }
}

/// One incremental run of a decoder.
struct Run<K> {
    /// What `next_batch` produced.
    kept: K,
    /// Positions passed (decoded or skipped).
    position: usize,
    /// The error that ended the run (from the constructor or a call).
    error: Option<ParquetError>,
    /// Stopped after [`MAX_CALLS`] calls (many of size 0) before the page's end.
    gave_up: bool,
}

/// Decodes with the plan's calls (`with_skips`: as given; else every call a `next_batch`)
/// until the decoder is exhausted, it errs, or `cap` values are passed.
fn run<K: Kind>(
    decoder: Result<K::Decoder, ParquetError>,
    kept: K,
    plan: &Plan,
    with_skips: bool,
    cap: usize,
) -> Run<K> {
    let mut run = Run {
        kept,
        position: 0,
        error: None,
        gave_up: false,
    };
    let mut decoder = match decoder {
        Ok(d) => d,
        Err(e) => {
            run.error = Some(e);
            return run;
        }
    };
    let initial = K::remaining(&decoder);
    assert!(
        initial <= plan.count,
        "remaining() = {initial} at the start, above the count {} the caller passed",
        plan.count
    );
    for (calls, op) in plan.ops.iter().cycle().enumerate() {
        let remaining = K::remaining(&decoder);
        assert_eq!(
            remaining,
            initial - run.position,
            "remaining() does not follow the counts returned"
        );
        if remaining == 0 || run.position >= cap {
            break;
        }
        if calls >= MAX_CALLS {
            run.gave_up = true;
            break;
        }
        let op = if with_skips { *op } else { Op::Next(op.size()) };
        let result = match op {
            Op::Next(ask) => run.kept.next_batch(&mut decoder, ask),
            Op::Skip(n) => K::skip(&mut decoder, n),
        };
        let done = match result {
            Ok(done) => done,
            Err(e) => {
                run.error = Some(e);
                return run;
            }
        };
        match op {
            Op::Next(ask) => {
                assert_eq!(
                    done,
                    ask.min(remaining),
                    "next_batch of {ask} with {remaining} remaining returned {done}"
                );
                run.kept.keep(ask, done, run.position);
            }
            Op::Skip(n) => assert_eq!(
                done,
                n.min(remaining),
                "skip({n}) with {remaining} remaining returned {done}"
            ),
        }
        run.position += done;
    }
    run
}

fn run_values<T: Value, D: ValueDecoder<Value = T>>(
    decoder: Result<D, ParquetError>,
    plan: &Plan,
    with_skips: bool,
) -> Run<Values<T, D>> {
    let kept = Values {
        decoded: Vec::new(),
        buf: Vec::new(),
        sentinel: T::sentinel(),
        _decoder: std::marker::PhantomData,
    };
    run(decoder, kept, plan, with_skips, CAP)
}

fn run_byte_arrays<D: ByteArrayDecoder>(
    decoder: Result<D, ParquetError>,
    plan: &Plan,
    with_skips: bool,
) -> Run<Arrays<D>> {
    let kept = Arrays {
        positions: Vec::new(),
        values: ByteArrays::new(),
        before: 0,
        last_offset: 0,
        _decoder: std::marker::PhantomData,
    };
    run(decoder, kept, plan, with_skips, CAP_BYTE_ARRAYS)
}

/// The checks of a page's whole-page result against its two runs: with a count the runs
/// cover, both decode the same count or fail with the same kind, and a page that decodes
/// whole never fails incrementally. False (nothing checked) when a run gave up.
fn check_runs_agree<K>(
    what: &str,
    whole_result: &Result<usize, ParquetError>,
    plain_run: &Run<K>,
    skip_run: &Run<K>,
) -> bool {
    if plain_run.gave_up || skip_run.gave_up {
        return false;
    }
    match (whole_result, &plain_run.error) {
        (Ok(n), None) => assert_eq!(
            plain_run.position, *n,
            "{what}: next_batch decoded {} values, the whole page {n}",
            plain_run.position
        ),
        (Err(w), Some(i)) => assert_eq!(
            w.kind, i.kind,
            "{what}: whole page failed with {w:?}, next_batch with {i:?}"
        ),
        (w, i) => panic!("{what}: whole page gave {w:?}, next_batch {i:?}"),
    }
    if let (Ok(_), Some(e)) = (whole_result, &skip_run.error) {
        panic!("{what}: the whole page decodes, but next_batch/skip failed: {e:?}");
    }
    true
}

/// Checks a value decoder: `make` builds it, `whole` decodes the page whole into a buffer of
/// `min(count, CAP)` values and returns how many it decoded, `roundtrip` re-encodes decoded
/// values and decodes them again (it asserts by itself).
fn check_values<T: Value, D: ValueDecoder<Value = T>>(
    what: &str,
    plan: &Plan,
    make: impl Fn() -> Result<D, ParquetError>,
    whole: impl FnOnce(&mut [T]) -> Result<usize, ParquetError>,
    roundtrip: impl FnOnce(&[T]),
) {
    let full = plan.count <= CAP;
    let mut page = vec![T::default(); plan.count.min(CAP)];
    let whole_result = whole(&mut page);
    if verbose() {
        eprintln!("{what}: count {}, whole page: {whole_result:?}", plan.count);
    }
    if let Ok(n) = whole_result {
        assert!(
            n <= page.len(),
            "{what}: whole-page decode into {} slots says it decoded {n}",
            page.len()
        );
        page.truncate(n);
    }
    let plain_run = run_values(make(), plan, false);
    let skip_run = run_values(make(), plan, true);

    for (name, run) in [("next_batch", &plain_run), ("next_batch/skip", &skip_run)] {
        if whole_result.is_ok() {
            for &(i, v) in &run.kept.decoded {
                if let Some(w) = page.get(i) {
                    assert!(
                        v.same(w),
                        "{what}: value {i}: {name} decoded {v:?}, the whole page {w:?}"
                    );
                }
            }
        }
    }
    if full {
        check_runs_agree(what, &whole_result, &plain_run, &skip_run);
    }
    if whole_result.is_ok() && full {
        roundtrip(&page);
    }
}

/// Checks a byte-array decoder like [`check_values`]; `whole` is a decode of up to
/// `min(count, CAP_BYTE_ARRAYS)` values into an empty `ByteArrays`.
fn check_byte_arrays<D: ByteArrayDecoder>(
    what: &str,
    plan: &Plan,
    make: impl Fn() -> Result<D, ParquetError>,
    whole: impl FnOnce(&mut ByteArrays, usize) -> Result<usize, ParquetError>,
    roundtrip: impl FnOnce(&ByteArrays),
) {
    let full = plan.count <= CAP_BYTE_ARRAYS;
    let mut page = ByteArrays::new();
    let whole_result = whole(&mut page, plan.count.min(CAP_BYTE_ARRAYS));
    if verbose() {
        eprintln!("{what}: count {}, whole page: {whole_result:?}", plan.count);
    }
    if let Ok(n) = whole_result {
        assert_eq!(
            page.len(),
            n,
            "{what}: whole page says {n} values, holds {}",
            page.len()
        );
    }
    let plain_run = run_byte_arrays(make(), plan, false);
    let skip_run = run_byte_arrays(make(), plan, true);
    for (name, run) in [("next_batch", &plain_run), ("next_batch/skip", &skip_run)] {
        if whole_result.is_ok() {
            let kept = &run.kept;
            for (k, &i) in kept.positions.iter().enumerate() {
                if i < page.len() {
                    assert!(
                        kept.values.get(k) == page.get(i),
                        "{what}: value {i}: {name} decoded {:02x?}, the whole page {:02x?}",
                        kept.values.get(k),
                        page.get(i)
                    );
                }
            }
        }
    }
    if full && check_runs_agree(what, &whole_result, &plain_run, &skip_run) && whole_result.is_ok()
    {
        roundtrip(&page);
    }
}

/// A decoder's single call for the whole page: `next_batch(out, max)`.
fn one_batch<D: ByteArrayDecoder>(
    decoder: Result<D, ParquetError>,
    out: &mut ByteArrays,
    max: usize,
) -> Result<usize, ParquetError> {
    let mut decoder = decoder?;
    let n = decoder.next_batch(out, max)?;
    Ok(n)
}

/// Checks a byte-array decoder whose whole-page decode is one `next_batch` of a fresh decoder:
/// `make` builds it; the round trip is `encode` of the decoded values, then `decode_again` of
/// that many values from those bytes (it asserts that they decode), compared with them.
fn check_byte_array_codec<D: ByteArrayDecoder>(
    what: &str,
    plan: &Plan,
    make: impl Fn() -> Result<D, ParquetError>,
    encode: impl FnOnce(&ByteArrays, &mut Vec<u8>),
    decode_again: impl FnOnce(&[u8], &mut ByteArrays, usize),
) {
    check_byte_arrays(
        what,
        plan,
        &make,
        |out, max| one_batch(make(), out, max),
        |values| {
            let mut bytes = Vec::new();
            encode(values, &mut bytes);
            let mut again = ByteArrays::new();
            decode_again(&bytes, &mut again, values.len());
            assert_same_arrays(what, values, &again);
        },
    );
}

/// A round trip of fixed-size values: `encode`, then `decode` of the bytes into as many values
/// (it asserts that they decode), compared with them.
fn values_roundtrip<T: Value>(
    what: &str,
    values: &[T],
    encode: impl FnOnce(&[T], &mut Vec<u8>),
    decode: impl FnOnce(&[u8], &mut [T]),
) {
    let mut bytes = Vec::new();
    encode(values, &mut bytes);
    let mut again = vec![T::default(); values.len()];
    decode(&bytes, &mut again);
    assert_same_values(what, values, &again);
}

fn assert_same_values<T: Value>(what: &str, expected: &[T], got: &[T]) {
    assert_eq!(expected.len(), got.len(), "{what}: round trip length");
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        assert!(
            e.same(g),
            "{what}: round trip value {i}: {e:?} became {g:?}"
        );
    }
}

fn assert_same_arrays(what: &str, expected: &ByteArrays, got: &ByteArrays) {
    assert_eq!(expected.len(), got.len(), "{what}: round trip length");
    for (i, (e, g)) in expected.iter().zip(got.iter()).enumerate() {
        assert_eq!(e, g, "{what}: round trip value {i}");
    }
}

/// `ByteArrays::iter` is not `Clone`, which the DELTA byte-array encoders ask for.
fn clonable(values: &ByteArrays) -> impl Iterator<Item = &[u8]> + Clone {
    (0..values.len()).map(|i| values.get(i))
}

fn width_mask(width: u32) -> u32 {
    match width {
        0 => 0,
        w if w >= 32 => u32::MAX,
        w => (1u32 << w) - 1,
    }
}

// ---------------------------------------------------------------------------------------------
// The cases.

fn plain_fixed<T: Value + FixedWidth>(what: &str, plan: &Plan, data: &[u8]) {
    check_values(
        what,
        plan,
        || plain::PlainDecoder::<T>::new(data, plan.count),
        |out| plain::decode(data, out).map(|_| out.len()),
        |values| {
            values_roundtrip(what, values, plain::encode, |bytes, again| {
                plain::decode(bytes, again).expect("PLAIN round trip decodes");
            });
        },
    );
}

fn plain_boolean(plan: &Plan, data: &[u8]) {
    check_values(
        "PLAIN BOOLEAN",
        plan,
        || plain::PlainBooleanDecoder::new(data, plan.count),
        |out| plain::decode_booleans(data, out).map(|_| out.len()),
        |values| {
            values_roundtrip(
                "PLAIN BOOLEAN",
                values,
                plain::encode_booleans,
                |bytes, again| {
                    plain::decode_booleans(bytes, again).expect("PLAIN BOOLEAN round trip");
                },
            );
        },
    );
}

fn plain_byte_array(plan: &Plan, data: &[u8]) {
    check_byte_array_codec(
        "PLAIN BYTE_ARRAY",
        plan,
        || plain::PlainByteArrayDecoder::new(data, plan.count),
        |values, bytes| plain::encode_byte_arrays(values.iter(), bytes).expect("PLAIN encodes"),
        |bytes, again, n| {
            one_batch(plain::PlainByteArrayDecoder::new(bytes, n), again, n)
                .expect("PLAIN BYTE_ARRAY round trip");
        },
    );
}

fn plain_fixed_len(plan: &Plan, type_length: usize, data: &[u8]) {
    check_byte_array_codec(
        "PLAIN FIXED_LEN_BYTE_ARRAY",
        plan,
        || plain::PlainFixedLenDecoder::new(data, type_length, plan.count),
        |values, bytes| {
            plain::encode_fixed_len(values.iter(), type_length, bytes).expect("FLBA encodes");
        },
        |bytes, again, n| {
            one_batch(
                plain::PlainFixedLenDecoder::new(bytes, type_length, n),
                again,
                n,
            )
            .expect("PLAIN FLBA round trip");
        },
    );
}

/// Splits off the dictionary of a dictionary case: its length, then `len * SIZE` bytes.
fn take_dictionary<T: FixedWidth>(input: &[u8]) -> (Vec<T>, &[u8]) {
    let Some((&len, rest)) = input.split_first() else {
        return (Vec::new(), input);
    };
    let len = usize::from(len);
    let need = len * T::SIZE;
    let mut bytes = rest[..need.min(rest.len())].to_vec();
    bytes.resize(need, 0);
    let dict = bytes.chunks_exact(T::SIZE).map(T::from_le_slice).collect();
    (dict, &rest[need.min(rest.len())..])
}

fn take_byte_array_dictionary(input: &[u8], param: u8) -> (ByteArrays, &[u8]) {
    let Some((&len, mut rest)) = input.split_first() else {
        return (ByteArrays::new(), input);
    };
    let mut dict = ByteArrays::new();
    let mut value = Vec::new();
    for i in 0..usize::from(len) {
        let n = (7 * i + usize::from(param)) % 9;
        value.clear();
        let take = n.min(rest.len());
        value.extend_from_slice(&rest[..take]);
        value.resize(n, 0);
        rest = &rest[take..];
        dict.push(&value).expect("tiny dictionary");
    }
    (dict, rest)
}

fn dictionary_fixed<T: Value + FixedWidth>(what: &str, plan: &Plan, input: &[u8]) {
    let (dict, data) = take_dictionary::<T>(input);
    check_values(
        what,
        plan,
        || dictionary::DictionaryDecoder::<T>::new(data, &dict, plan.count),
        |out| dictionary::decode(data, &dict, out).map(|_| out.len()),
        |values| {
            let (dict, indices) = dictionary::build_dictionary(values);
            let mut bytes = Vec::new();
            dictionary::encode_indices(&indices, dict.len(), &mut bytes)
                .expect("dictionary indices encode");
            let mut again = vec![T::default(); values.len()];
            dictionary::decode(&bytes, &dict, &mut again).expect("dictionary round trip");
            assert_same_values(what, values, &again);
        },
    );
}

fn dictionary_byte_array(plan: &Plan, param: u8, input: &[u8]) {
    let (dict, data) = take_byte_array_dictionary(input, param);
    let make = || dictionary::DictionaryByteArrayDecoder::new(data, &dict, plan.count);
    // Not `check_byte_array_codec`: the round trip decodes over the dictionary its encoder built.
    check_byte_arrays(
        "RLE_DICTIONARY BYTE_ARRAY",
        plan,
        make,
        |out, max| one_batch(make(), out, max),
        |values| {
            let (dict, indices) = dictionary::build_byte_array_dictionary(values.iter());
            let mut bytes = Vec::new();
            dictionary::encode_indices(&indices, dict.len(), &mut bytes)
                .expect("dictionary indices encode");
            let mut again = ByteArrays::new();
            one_batch(
                dictionary::DictionaryByteArrayDecoder::new(&bytes, &dict, values.len()),
                &mut again,
                values.len(),
            )
            .expect("dictionary BYTE_ARRAY round trip");
            assert_same_arrays("RLE_DICTIONARY BYTE_ARRAY", values, &again);
        },
    );
}

/// Re-encodes hybrid values (masked to the width) and checks they decode back.
fn hybrid_roundtrip(what: &str, values: &[u32], width: u32) -> Vec<u32> {
    let mask = width_mask(width);
    let masked: Vec<u32> = values.iter().map(|v| v & mask).collect();
    let mut bytes = Vec::new();
    hybrid::encode(&masked, width, &mut bytes).expect("masked values fit the width");
    let mut again = vec![0; masked.len()];
    hybrid::decode(&bytes, width, &mut again).expect("hybrid round trip decodes");
    assert_same_values(what, &masked, &again);
    masked
}

fn rle_hybrid(plan: &Plan, width: u32, data: &[u8]) {
    check_values(
        "RLE hybrid",
        plan,
        || hybrid::HybridDecoder::new(data, width, plan.count),
        |out| hybrid::decode(data, width, out).map(|_| out.len()),
        |values| {
            hybrid_roundtrip("RLE hybrid", values, width);
        },
    );
}

fn rle_hybrid_length_prefix(plan: &Plan, width: u32, data: &[u8]) {
    check_values(
        "RLE hybrid with length prefix",
        plan,
        || hybrid::HybridDecoder::with_length_prefix(data, width, plan.count).map(|(d, _)| d),
        |out| {
            let (mut decoder, _) =
                hybrid::HybridDecoder::with_length_prefix(data, width, out.len())?;
            decoder.next_batch(out)
        },
        |values| {
            let masked = hybrid_roundtrip("RLE hybrid with length prefix", values, width);
            let mut bytes = Vec::new();
            hybrid::encode_with_length_prefix(&masked, width, &mut bytes)
                .expect("masked values fit the width");
            let (mut decoder, used) =
                hybrid::HybridDecoder::with_length_prefix(&bytes, width, masked.len())
                    .expect("length-prefixed round trip");
            assert_eq!(
                used,
                bytes.len(),
                "length prefix round trip: bytes consumed"
            );
            let mut again = vec![0; masked.len()];
            assert_eq!(decoder.next_batch(&mut again), Ok(masked.len()));
            assert_same_values("RLE hybrid with length prefix", &masked, &again);
        },
    );
}

fn rle_hybrid_width_byte(plan: &Plan, data: &[u8]) {
    check_values(
        "RLE hybrid with width byte",
        plan,
        || hybrid::HybridDecoder::with_width_byte(data, plan.count),
        |out| {
            let mut decoder = hybrid::HybridDecoder::with_width_byte(data, out.len())?;
            decoder.next_batch(out)
        },
        |values| {
            // An empty page of no values has no width byte.
            let width_byte = data.first().copied().unwrap_or(0);
            let width = u32::from(width_byte);
            let masked = hybrid_roundtrip("RLE hybrid with width byte", values, width);
            let mut bytes = vec![width_byte];
            hybrid::encode(&masked, width, &mut bytes).expect("masked values fit the width");
            let mut decoder = hybrid::HybridDecoder::with_width_byte(&bytes, masked.len())
                .expect("width-byte round trip");
            let mut again = vec![0; masked.len()];
            assert_eq!(decoder.next_batch(&mut again), Ok(masked.len()));
            assert_same_values("RLE hybrid with width byte", &masked, &again);
        },
    );
}

fn rle_boolean(plan: &Plan, data: &[u8]) {
    check_values(
        "RLE BOOLEAN",
        plan,
        || hybrid::BooleanHybridDecoder::new(data, plan.count).map(|(d, _)| d),
        |out| {
            let (mut decoder, _) = hybrid::BooleanHybridDecoder::new(data, out.len())?;
            decoder.next_batch(out)
        },
        |values| {
            let mut bytes = Vec::new();
            hybrid::encode_booleans(values, &mut bytes);
            let (mut decoder, used) = hybrid::BooleanHybridDecoder::new(&bytes, values.len())
                .expect("RLE BOOLEAN round trip");
            assert_eq!(used, bytes.len(), "RLE BOOLEAN round trip: bytes consumed");
            let mut again = vec![false; values.len()];
            assert_eq!(decoder.next_batch(&mut again), Ok(values.len()));
            assert_same_values("RLE BOOLEAN", values, &again);
        },
    );
}

fn bit_packed_levels(plan: &Plan, width: u32, data: &[u8]) {
    check_values(
        "BIT_PACKED",
        plan,
        || bit_packed::BitPackedDecoder::new(data, width, plan.count),
        |out| bit_packed::decode(data, width, out).map(|_| out.len()),
        |values| {
            let mask = width_mask(width);
            let masked: Vec<u32> = values.iter().map(|v| v & mask).collect();
            values_roundtrip(
                "BIT_PACKED",
                &masked,
                |masked, bytes| {
                    bit_packed::encode(masked, width, bytes).expect("masked values fit the width");
                },
                |bytes, again| {
                    bit_packed::decode(bytes, width, again).expect("BIT_PACKED round trip");
                },
            );
        },
    );
}

fn delta_binary<T>(what: &str, plan: &Plan, data: &[u8])
where
    T: Value + delta_binary_packed::DeltaInt,
{
    check_values(
        what,
        plan,
        || delta_binary_packed::DeltaBinaryPackedDecoder::<T>::new(data, plan.count),
        |out| delta_binary_packed::decode(data, out).map(|(values, _)| values),
        |values| {
            values_roundtrip(what, values, delta_binary_packed::encode, |bytes, again| {
                let (n, used) =
                    delta_binary_packed::decode(bytes, again).expect("DELTA round trip");
                assert_eq!(
                    (n, used),
                    (again.len(), bytes.len()),
                    "{what}: round trip sizes"
                );
            });
        },
    );
}

fn delta_length(plan: &Plan, data: &[u8]) {
    check_byte_array_codec(
        "DELTA_LENGTH_BYTE_ARRAY",
        plan,
        || delta_length_byte_array::DeltaLengthByteArrayDecoder::new(data, plan.count),
        |values, bytes| {
            delta_length_byte_array::encode(clonable(values), bytes).expect("DLBA encodes");
        },
        |bytes, again, n| {
            one_batch(
                delta_length_byte_array::DeltaLengthByteArrayDecoder::new(bytes, n),
                again,
                n,
            )
            .expect("DLBA round trip");
        },
    );
}

fn delta_bytes(plan: &Plan, data: &[u8]) {
    check_byte_array_codec(
        "DELTA_BYTE_ARRAY",
        plan,
        || delta_byte_array::DeltaByteArrayDecoder::new(data, plan.count),
        |values, bytes| delta_byte_array::encode(clonable(values), bytes).expect("DBA encodes"),
        |bytes, again, n| {
            one_batch(
                delta_byte_array::DeltaByteArrayDecoder::new(bytes, n),
                again,
                n,
            )
            .expect("DBA round trip");
        },
    );
}

fn byte_stream_split_fixed<T: Value + FixedWidth>(what: &str, plan: &Plan, data: &[u8]) {
    check_values(
        what,
        plan,
        || byte_stream_split::ByteStreamSplitDecoder::<T>::new(data, plan.count),
        |out| byte_stream_split::decode(data, out),
        |values| {
            values_roundtrip(what, values, byte_stream_split::encode, |bytes, again| {
                let n = byte_stream_split::decode(bytes, again).expect("BSS round trip");
                assert_eq!(n, again.len(), "{what}: round trip count");
            });
        },
    );
}

fn byte_stream_split_fixed_len(plan: &Plan, type_length: usize, data: &[u8]) {
    let make =
        || byte_stream_split::ByteStreamSplitFixedLenDecoder::new(data, type_length, plan.count);
    check_byte_arrays(
        "BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY",
        plan,
        make,
        |out, max| {
            // The whole-page decoder writes the values back to back; the count is the page's.
            let mut flat = vec![0u8; max * type_length.max(1)];
            let n = byte_stream_split::decode_fixed_len(data, type_length, &mut flat)?;
            for value in flat[..n * type_length].chunks_exact(type_length) {
                out.push(value).expect("small");
            }
            Ok(n)
        },
        |values| {
            let mut bytes = Vec::new();
            byte_stream_split::encode_fixed_len(&values.values, type_length, &mut bytes)
                .expect("BSS FLBA encodes");
            let mut flat = vec![0u8; values.values.len()];
            let n = byte_stream_split::decode_fixed_len(&bytes, type_length, &mut flat)
                .expect("BSS FLBA round trip");
            assert_eq!(n, values.len(), "BSS FLBA round trip count");
            assert_eq!(flat, values.values, "BSS FLBA round trip values");
        },
    );
}

fn group_varint_ints<T>(what: &str, plan: &Plan, data: &[u8])
where
    T: Value + group_varint::GroupVarIntType,
{
    check_values(
        what,
        plan,
        || group_varint::GroupVarIntDecoder::<T>::new(data, plan.count),
        |out| group_varint::decode(data, out).map(|_| out.len()),
        |values| {
            values_roundtrip(what, values, group_varint::encode, |bytes, again| {
                group_varint::decode(bytes, again).expect("GroupVarInt round trip");
            });
        },
    );
}

/// The cases byte 0 selects, in order.
const CASES: &[&str] = &[
    "PLAIN BOOLEAN",
    "PLAIN INT32",
    "PLAIN INT64",
    "PLAIN INT96",
    "PLAIN FLOAT",
    "PLAIN DOUBLE",
    "PLAIN BYTE_ARRAY",
    "PLAIN FIXED_LEN_BYTE_ARRAY",
    "RLE_DICTIONARY INT32",
    "RLE_DICTIONARY INT64",
    "RLE_DICTIONARY INT96",
    "RLE_DICTIONARY FLOAT",
    "RLE_DICTIONARY DOUBLE",
    "RLE_DICTIONARY BYTE_ARRAY",
    "RLE hybrid",
    "RLE hybrid with length prefix",
    "RLE hybrid with width byte",
    "RLE BOOLEAN",
    "BIT_PACKED",
    "DELTA_BINARY_PACKED INT32",
    "DELTA_BINARY_PACKED INT64",
    "DELTA_LENGTH_BYTE_ARRAY",
    "DELTA_BYTE_ARRAY",
    "BYTE_STREAM_SPLIT FLOAT",
    "BYTE_STREAM_SPLIT DOUBLE",
    "BYTE_STREAM_SPLIT INT32",
    "BYTE_STREAM_SPLIT INT64",
    "BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY",
    "GroupVarInt INT32",
    "GroupVarInt INT64",
];

fuzz_target!(|input: &[u8]| {
    if input.len() < 6 {
        return;
    }
    let case = usize::from(input[0]) % CASES.len();
    let param = input[1];
    let m = u64::from(u16::from_le_bytes([input[2], input[3]]));
    let e = input[4] % 33;
    let count = ((m << e) >> 16) as usize;
    let op_count = usize::from(input[5] % 17).min(input.len() - 6);
    let mut ops: Vec<Op> = input[6..6 + op_count]
        .iter()
        .map(|&b| Op::from_byte(b))
        .collect();
    if ops.iter().all(|op| op.size() == 0) {
        ops.push(Op::Next(1000));
    }
    let data = &input[6 + op_count..];
    let plan = Plan { count, ops };
    let width = u32::from(param) % 34;
    let type_length = usize::from(param);
    let what = CASES[case];
    match case {
        0 => plain_boolean(&plan, data),
        1 => plain_fixed::<i32>(what, &plan, data),
        2 => plain_fixed::<i64>(what, &plan, data),
        3 => plain_fixed::<Int96>(what, &plan, data),
        4 => plain_fixed::<f32>(what, &plan, data),
        5 => plain_fixed::<f64>(what, &plan, data),
        6 => plain_byte_array(&plan, data),
        7 => plain_fixed_len(&plan, type_length, data),
        8 => dictionary_fixed::<i32>(what, &plan, data),
        9 => dictionary_fixed::<i64>(what, &plan, data),
        10 => dictionary_fixed::<Int96>(what, &plan, data),
        11 => dictionary_fixed::<f32>(what, &plan, data),
        12 => dictionary_fixed::<f64>(what, &plan, data),
        13 => dictionary_byte_array(&plan, param, data),
        14 => rle_hybrid(&plan, width, data),
        15 => rle_hybrid_length_prefix(&plan, width, data),
        16 => rle_hybrid_width_byte(&plan, data),
        17 => rle_boolean(&plan, data),
        18 => bit_packed_levels(&plan, width, data),
        19 => delta_binary::<i32>(what, &plan, data),
        20 => delta_binary::<i64>(what, &plan, data),
        21 => delta_length(&plan, data),
        22 => delta_bytes(&plan, data),
        23 => byte_stream_split_fixed::<f32>(what, &plan, data),
        24 => byte_stream_split_fixed::<f64>(what, &plan, data),
        25 => byte_stream_split_fixed::<i32>(what, &plan, data),
        26 => byte_stream_split_fixed::<i64>(what, &plan, data),
        27 => byte_stream_split_fixed_len(&plan, type_length, data),
        28 => group_varint_ints::<i32>(what, &plan, data),
        29 => group_varint_ints::<i64>(what, &plan, data),
        _ => unreachable!("case is taken modulo CASES.len()"),
    }
});
