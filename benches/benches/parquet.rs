//! The Parquet encodings' suite: one criterion group `parquet/<case>` per case of
//! [`qpl_benches::PARQUET_CASES`], each decoding one page of [`qpl_benches::elements`] values.
//!
//! Function ids:
//! - `fallback`: `qpl_fallback::parquet`'s decoder of the encoding, the whole page into a
//!   caller buffer reused from one iteration to the next (a `ByteArrays` is cleared, keeping
//!   its capacity);
//! - `arrow_rs`: arrow-rs's decoder of the same encoding on the same bytes (`get_decoder`,
//!   `DictDecoder`, or `RleDecoder` for levels), its decoder and output buffer also reused,
//!   `set_data` then `get` per iteration; absent for GroupVarInt, which arrow-rs lacks;
//! - `memory`: [`qpl_benches::memory_reference`] reading the page's encoded bytes and
//!   writing as many bytes as the fallback's output holds (for byte arrays: the values' bytes
//!   and the 4-byte offsets): the rate at which a plain loop moves a decode's bytes.
//!
//! Pages are written by arrow-rs's encoder where arrow-rs has one (so both decoders read the
//! bytes a real writer produces), else by ours. Before anything is timed, every decoder's
//! output is checked against the values the page was built from: a case where the fallback
//! or arrow-rs decodes other values stops the suite.
//!
//! Environment: `QPL_BENCH_ELEMENTS` (default 1M = 2^20 values per page).

use std::fmt::Debug;
mod common;

use std::hint::black_box;
use std::sync::Arc;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Bencher, Criterion, Throughput};
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FloatType, Int32Type, Int64Type,
};
use parquet::encodings::decoding::{get_decoder, Decoder, DictDecoder};
use parquet::encodings::encoding::{get_encoder, DictEncoder, Encoder};
use parquet::encodings::levels::LevelEncoder;
use parquet::encodings::rle::RleDecoder;
use parquet::schema::types::{ColumnDescPtr, ColumnDescriptor, ColumnPath, Type};
use qpl_benches::{memory_reference, Rng, PARQUET_CASES};
use qpl_fallback::parquet::delta_binary_packed::DeltaInt;
use qpl_fallback::parquet::delta_byte_array::DeltaByteArrayDecoder;
use qpl_fallback::parquet::delta_length_byte_array::DeltaLengthByteArrayDecoder;
use qpl_fallback::parquet::dictionary::DictionaryByteArrayDecoder;
use qpl_fallback::parquet::group_varint::GroupVarIntType;
use qpl_fallback::parquet::hybrid::HybridDecoder;
use qpl_fallback::parquet::plain::PlainByteArrayDecoder;
use qpl_fallback::parquet::{
    byte_stream_split, delta_binary_packed, dictionary, group_varint, plain, ByteArrayDecoder,
    ByteArrays, ValueDecoder,
};

/// A benchmarked implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Fallback,
    ArrowRs,
    Memory,
}

impl Engine {
    fn id(self) -> &'static str {
        match self {
            Engine::Fallback => "fallback",
            Engine::ArrowRs => "arrow_rs",
            Engine::Memory => "memory",
        }
    }
}

/// A case built and checked: measures each of its engines.
trait Prepared {
    /// The engines this case has.
    fn engines(&self) -> Vec<Engine>;
    /// Times `engine`; everything but the decode itself is set up outside the timed closure.
    fn measure(&mut self, b: &mut Bencher<'_>, engine: Engine);
}

/// Decodes a page into a slice of values, returning how many it decoded.
type SliceDecode<T> = Box<dyn FnMut(&Bytes, &mut [T]) -> usize>;

/// Decodes a page appending to a `ByteArrays`, returning how many values it decoded.
type BytesDecode = Box<dyn FnMut(&Bytes, &mut ByteArrays) -> usize>;

/// A case whose output is fixed-size values (`i32`, `f64`, `bool`, levels as `u32`...).
struct FixedCase<T> {
    encoded: Bytes,
    fallback: SliceDecode<T>,
    arrow: Option<SliceDecode<T>>,
    out: Vec<T>,
    memory_out: Vec<u32>,
}

impl<T: Copy + Default + PartialEq + Debug + 'static> FixedCase<T> {
    /// Checks that `fallback` and `arrow` decode `encoded` to `values`.
    ///
    /// # Panics
    /// When either does not.
    fn prepare(
        name: &str,
        values: &[T],
        encoded: impl Into<Bytes>,
        mut fallback: SliceDecode<T>,
        mut arrow: Option<SliceDecode<T>>,
    ) -> Box<dyn Prepared> {
        let encoded = encoded.into();
        let mut out = vec![T::default(); values.len()];
        let mut decoders: Vec<(&str, &mut SliceDecode<T>)> = vec![("fallback", &mut fallback)];
        if let Some(arrow) = arrow.as_mut() {
            decoders.push(("arrow_rs", arrow));
        }
        for (id, decode) in decoders {
            // Poisoned with another value first, so a decoder that writes nothing fails.
            out.fill(
                values
                    .iter()
                    .copied()
                    .find(|v| *v != values[0])
                    .unwrap_or_default(),
            );
            let decoded = decode(&encoded, &mut out);
            assert_eq!(decoded, values.len(), "{name}/{id}: values decoded");
            if let Some(at) = out.iter().zip(values).position(|(a, b)| a != b) {
                panic!(
                    "{name}/{id}: value {at} is {:?}, the page holds {:?}",
                    out[at], values[at]
                );
            }
        }
        let out_bytes = std::mem::size_of_val(values);
        eprintln!(
            "verified parquet/{name}: {} values from {} bytes",
            values.len(),
            encoded.len()
        );
        Box::new(FixedCase {
            memory_out: vec![0; out_bytes.div_ceil(4)],
            encoded,
            fallback,
            arrow,
            out,
        })
    }
}

impl<T> Prepared for FixedCase<T> {
    fn engines(&self) -> Vec<Engine> {
        let mut engines = vec![Engine::Fallback];
        if self.arrow.is_some() {
            engines.push(Engine::ArrowRs);
        }
        engines.push(Engine::Memory);
        engines
    }

    fn measure(&mut self, b: &mut Bencher<'_>, engine: Engine) {
        let encoded = &self.encoded;
        let out = &mut self.out;
        match engine {
            Engine::Fallback => b.iter(|| (self.fallback)(black_box(encoded), out)),
            Engine::ArrowRs => {
                let arrow = self.arrow.as_mut().expect("an arrow-rs decoder");
                b.iter(|| arrow(black_box(encoded), out))
            }
            Engine::Memory => b.iter(|| memory_reference(black_box(encoded), &mut self.memory_out)),
        }
    }
}

/// A case whose output is byte arrays: ours append to a `ByteArrays` (cleared first),
/// arrow-rs's write `ByteArray`s (reference-counted slices of its page or dictionary).
struct BytesCase {
    encoded: Bytes,
    fallback: BytesDecode,
    arrow: SliceDecode<ByteArray>,
    out: ByteArrays,
    arrow_out: Vec<ByteArray>,
    memory_out: Vec<u32>,
}

impl BytesCase {
    /// Checks that `fallback` and `arrow` decode `encoded` to `values`.
    ///
    /// # Panics
    /// When either does not.
    fn prepare(
        name: &str,
        values: &ByteArrays,
        encoded: impl Into<Bytes>,
        mut fallback: BytesDecode,
        mut arrow: SliceDecode<ByteArray>,
    ) -> Box<dyn Prepared> {
        let encoded = encoded.into();
        let n = values.len();
        let mut out = ByteArrays::new();
        out.push(b"poison").expect("a short value");
        let decoded = fallback(&encoded, &mut out);
        assert_eq!(decoded, n, "{name}/fallback: values decoded");
        if let Some(at) = (0..n).find(|&i| out.get(i) != values.get(i)) {
            panic!(
                "{name}/fallback: value {at} is {:?}, the page holds {:?}",
                out.get(at),
                values.get(at)
            );
        }
        assert_eq!(out.len(), n, "{name}/fallback: output values");
        let mut arrow_out = vec![ByteArray::from(b"poison".to_vec()); n];
        let decoded = arrow(&encoded, &mut arrow_out);
        assert_eq!(decoded, n, "{name}/arrow_rs: values decoded");
        if let Some(at) = (0..n).find(|&i| arrow_out[i].data() != values.get(i)) {
            panic!(
                "{name}/arrow_rs: value {at} is {:?}, the page holds {:?}",
                arrow_out[at].data(),
                values.get(at)
            );
        }
        let out_bytes = values.values.len() + 4 * values.offsets.len();
        eprintln!(
            "verified parquet/{name}: {n} values ({} bytes) from {} bytes",
            values.values.len(),
            encoded.len()
        );
        Box::new(BytesCase {
            memory_out: vec![0; out_bytes.div_ceil(4)],
            encoded,
            fallback,
            arrow,
            out,
            arrow_out,
        })
    }
}

impl Prepared for BytesCase {
    fn engines(&self) -> Vec<Engine> {
        vec![Engine::Fallback, Engine::ArrowRs, Engine::Memory]
    }

    fn measure(&mut self, b: &mut Bencher<'_>, engine: Engine) {
        let encoded = &self.encoded;
        match engine {
            Engine::Fallback => b.iter(|| (self.fallback)(black_box(encoded), &mut self.out)),
            Engine::ArrowRs => b.iter(|| (self.arrow)(black_box(encoded), &mut self.arrow_out)),
            Engine::Memory => b.iter(|| memory_reference(black_box(encoded), &mut self.memory_out)),
        }
    }
}

/// A required column of physical type `physical`, as arrow-rs's encoders and decoders take.
fn column(physical: PhysicalType) -> ColumnDescPtr {
    let ty = Type::primitive_type_builder("c", physical)
        .build()
        .expect("a primitive column");
    Arc::new(ColumnDescriptor::new(
        Arc::new(ty),
        0,
        0,
        ColumnPath::new(vec!["c".into()]),
    ))
}

/// arrow-rs's encoding of `values` with `encoding`.
fn arrow_encode<A: DataType>(physical: PhysicalType, encoding: Encoding, values: &[A::T]) -> Bytes {
    let mut encoder = get_encoder::<A>(encoding, &column(physical)).expect("an arrow-rs encoder");
    encoder.put(values).expect("arrow-rs encodes");
    encoder.flush_buffer().expect("arrow-rs flushes")
}

/// arrow-rs's decoder of `encoding`, as a closure decoding a page of `n` values: `set_data`
/// then `get`, the decoder reused.
fn arrow_decoder<A: DataType>(
    physical: PhysicalType,
    encoding: Encoding,
    n: usize,
) -> SliceDecode<A::T> {
    let decoder = get_decoder::<A>(column(physical), encoding).expect("an arrow-rs decoder");
    reuse(decoder, n)
}

/// `decoder` as a closure decoding a page of `n` values.
fn reuse<A: DataType>(mut decoder: Box<dyn Decoder<A>>, n: usize) -> SliceDecode<A::T> {
    Box::new(move |data, out| {
        decoder.set_data(data.clone(), n).expect("set_data");
        decoder.get(out).expect("get")
    })
}

/// `n` random lowercase strings of 4 to 20 bytes.
fn random_strings(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = rng.range(4, 20) as usize;
            (0..len).map(|_| b'a' + rng.range(0, 25) as u8).collect()
        })
        .collect()
}

/// `n` URLs, sorted: a few dozen hosts and sections, numeric ids and a slug, so neighbours
/// share long prefixes as in a sorted column of links.
fn sorted_urls(rng: &mut Rng, n: usize) -> Vec<Vec<u8>> {
    const HOSTS: [&str; 8] = [
        "example.com",
        "news.example.org",
        "shop.example.net",
        "www.wikipedia.org",
        "docs.rs",
        "github.com",
        "blog.example.io",
        "maps.example.com",
    ];
    const SECTIONS: [&str; 8] = [
        "articles", "products", "users", "wiki", "search", "images", "tags", "issues",
    ];
    let mut urls: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let host = HOSTS[rng.range(0, 7) as usize];
            let section = SECTIONS[rng.range(0, 7) as usize];
            let id = rng.range(0, 9_999_999);
            let slug: String = (0..rng.range(0, 12))
                .map(|_| char::from(b'a' + rng.range(0, 25) as u8))
                .collect();
            format!("https://{host}/{section}/{id}/{slug}").into_bytes()
        })
        .collect();
    urls.sort_unstable();
    urls
}

fn to_arrow(values: &[Vec<u8>]) -> Vec<ByteArray> {
    values.iter().map(|v| ByteArray::from(v.clone())).collect()
}

fn to_byte_arrays(values: &[Vec<u8>]) -> ByteArrays {
    values.iter().map(Vec::as_slice).collect()
}

/// Values that DELTA_BINARY_PACKED sees in practice: sorted with gaps of 0..=1000 from
/// `start` (ids, timestamps), or random over the whole type.
fn delta_values<T: DeltaInt>(
    rng: &mut Rng,
    n: usize,
    sorted: bool,
    start: i64,
    from_u64: fn(u64) -> T,
) -> Vec<T> {
    let mut next = start;
    (0..n)
        .map(|_| {
            if sorted {
                next = next.wrapping_add(i64::from(rng.range(0, 1000)));
                from_u64(next as u64)
            } else {
                from_u64(rng.next_u64())
            }
        })
        .collect()
}

/// A DELTA_BINARY_PACKED case written by arrow-rs.
fn delta_case<T, A>(name: &str, physical: PhysicalType, values: Vec<T>) -> Box<dyn Prepared>
where
    T: DeltaInt,
    A: DataType<T = T>,
{
    let n = values.len();
    let encoded = arrow_encode::<A>(physical, Encoding::DELTA_BINARY_PACKED, &values);
    FixedCase::prepare(
        name,
        &values,
        encoded,
        Box::new(|data, out| delta_binary_packed::decode(data, out).expect("fallback").0),
        Some(arrow_decoder::<A>(
            physical,
            Encoding::DELTA_BINARY_PACKED,
            n,
        )),
    )
}

/// A BYTE_STREAM_SPLIT case written by arrow-rs.
fn byte_stream_split_case<T, A>(
    name: &str,
    physical: PhysicalType,
    values: Vec<T>,
) -> Box<dyn Prepared>
where
    T: qpl_fallback::parquet::FixedWidth,
    A: DataType<T = T>,
{
    let n = values.len();
    let encoded = arrow_encode::<A>(physical, Encoding::BYTE_STREAM_SPLIT, &values);
    FixedCase::prepare(
        name,
        &values,
        encoded,
        Box::new(|data, out| byte_stream_split::decode(data, out).expect("fallback")),
        Some(arrow_decoder::<A>(physical, Encoding::BYTE_STREAM_SPLIT, n)),
    )
}

/// A GroupVarInt case written by our encoder (arrow-rs has none), without an arrow_rs id.
fn group_varint_case<T: GroupVarIntType>(name: &str, values: Vec<T>) -> Box<dyn Prepared> {
    let mut encoded = Vec::new();
    group_varint::encode(&values, &mut encoded);
    FixedCase::prepare(
        name,
        &values,
        encoded,
        Box::new(|data, out| {
            group_varint::decode(data, out).expect("fallback");
            out.len()
        }),
        None,
    )
}

/// A random value of a random byte length (1 to `T`'s size), as GroupVarInt's lengths vary.
fn varied_length(rng: &mut Rng, bits: u32) -> u64 {
    let keep = rng.range(1, bits / 8) * 8;
    rng.next_u64() >> (64 - keep)
}

/// Builds and checks the case `name` over `n` values.
///
/// # Panics
/// On a name not in [`PARQUET_CASES`], or a decoder that does not give the page's values.
fn prepare(name: &str, n: usize) -> Box<dyn Prepared> {
    let seed = PARQUET_CASES
        .iter()
        .position(|&c| c == name)
        .unwrap_or_else(|| panic!("unknown case {name}"));
    let mut rng = Rng::new(0x5EED_0000_0000_0000 ^ seed as u64);
    match name {
        "plain_i32" => {
            let values: Vec<i32> = (0..n).map(|_| rng.next_u64() as i32).collect();
            let encoded = arrow_encode::<Int32Type>(PhysicalType::INT32, Encoding::PLAIN, &values);
            FixedCase::prepare(
                name,
                &values,
                encoded,
                Box::new(|data, out| {
                    plain::decode(data, out).expect("fallback");
                    out.len()
                }),
                Some(arrow_decoder::<Int32Type>(
                    PhysicalType::INT32,
                    Encoding::PLAIN,
                    n,
                )),
            )
        }
        "plain_boolean" => {
            let values: Vec<bool> = (0..n).map(|_| rng.next_u64() & 1 == 1).collect();
            let encoded = arrow_encode::<BoolType>(PhysicalType::BOOLEAN, Encoding::PLAIN, &values);
            FixedCase::prepare(
                name,
                &values,
                encoded,
                Box::new(|data, out| {
                    plain::decode_booleans(data, out).expect("fallback");
                    out.len()
                }),
                Some(arrow_decoder::<BoolType>(
                    PhysicalType::BOOLEAN,
                    Encoding::PLAIN,
                    n,
                )),
            )
        }
        "dictionary_i32" => {
            // 1,000 distinct values (10-bit indices), drawn at random: bit-packed runs.
            let distinct: Vec<i32> = (0..1000).map(|_| rng.next_u64() as i32).collect();
            let values: Vec<i32> = (0..n)
                .map(|_| distinct[rng.range(0, 999) as usize])
                .collect();
            let mut encoder = DictEncoder::<Int32Type>::new(column(PhysicalType::INT32));
            encoder.put(&values).expect("put");
            let entries = encoder.num_entries();
            let dict_page = encoder.write_dict().expect("dictionary page");
            let encoded = encoder.write_indices().expect("data page");
            assert_eq!(encoded[0], 10, "{name}: index bit width");
            let mut dict = vec![0i32; entries];
            plain::decode(&dict_page, &mut dict).expect("the dictionary page");
            let mut plain_decoder =
                get_decoder::<Int32Type>(column(PhysicalType::INT32), Encoding::PLAIN)
                    .expect("a PLAIN decoder");
            plain_decoder
                .set_data(dict_page, entries)
                .expect("set_data");
            let mut arrow = DictDecoder::<Int32Type>::new();
            arrow.set_dict(plain_decoder).expect("set_dict");
            FixedCase::prepare(
                name,
                &values,
                encoded,
                Box::new(move |data, out| {
                    dictionary::decode(data, &dict, out).expect("fallback");
                    out.len()
                }),
                Some(reuse(Box::new(arrow), n)),
            )
        }
        "dictionary_bytes" => {
            let distinct = random_strings(&mut rng, 1000);
            let values: Vec<Vec<u8>> = (0..n)
                .map(|_| distinct[rng.range(0, 999) as usize].clone())
                .collect();
            let mut encoder = DictEncoder::<ByteArrayType>::new(column(PhysicalType::BYTE_ARRAY));
            encoder.put(&to_arrow(&values)).expect("put");
            let entries = encoder.num_entries();
            let dict_page = encoder.write_dict().expect("dictionary page");
            let encoded = encoder.write_indices().expect("data page");
            let mut dict = ByteArrays::new();
            PlainByteArrayDecoder::new(&dict_page, entries)
                .and_then(|mut d| d.next_batch(&mut dict, entries))
                .expect("the dictionary page");
            let mut plain_decoder =
                get_decoder::<ByteArrayType>(column(PhysicalType::BYTE_ARRAY), Encoding::PLAIN)
                    .expect("a PLAIN decoder");
            plain_decoder
                .set_data(dict_page, entries)
                .expect("set_data");
            let mut arrow = DictDecoder::<ByteArrayType>::new();
            arrow.set_dict(plain_decoder).expect("set_dict");
            BytesCase::prepare(
                name,
                &to_byte_arrays(&values),
                encoded,
                Box::new(move |data, out| {
                    out.clear();
                    DictionaryByteArrayDecoder::new(data, &dict, n)
                        .and_then(|mut d| d.next_batch(out, n))
                        .expect("fallback")
                }),
                reuse(Box::new(arrow), n),
            )
        }
        "delta_binary_packed_i32_sorted" | "delta_binary_packed_i32_random" => {
            let sorted = name.ends_with("sorted");
            let values = delta_values(&mut rng, n, sorted, 1000, |v| v as i32);
            delta_case::<i32, Int32Type>(name, PhysicalType::INT32, values)
        }
        "delta_binary_packed_i64_sorted" | "delta_binary_packed_i64_random" => {
            let sorted = name.ends_with("sorted");
            // Sorted from a microsecond timestamp of 2026.
            let values = delta_values(&mut rng, n, sorted, 1_790_000_000_000_000, |v| v as i64);
            delta_case::<i64, Int64Type>(name, PhysicalType::INT64, values)
        }
        "delta_length_byte_array" => {
            let values = random_strings(&mut rng, n);
            let encoded = arrow_encode::<ByteArrayType>(
                PhysicalType::BYTE_ARRAY,
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                &to_arrow(&values),
            );
            BytesCase::prepare(
                name,
                &to_byte_arrays(&values),
                encoded,
                Box::new(move |data, out| {
                    out.clear();
                    DeltaLengthByteArrayDecoder::new(data, n)
                        .and_then(|mut d| d.next_batch(out, n))
                        .expect("fallback")
                }),
                arrow_decoder::<ByteArrayType>(
                    PhysicalType::BYTE_ARRAY,
                    Encoding::DELTA_LENGTH_BYTE_ARRAY,
                    n,
                ),
            )
        }
        "delta_byte_array" => {
            let values = sorted_urls(&mut rng, n);
            let encoded = arrow_encode::<ByteArrayType>(
                PhysicalType::BYTE_ARRAY,
                Encoding::DELTA_BYTE_ARRAY,
                &to_arrow(&values),
            );
            BytesCase::prepare(
                name,
                &to_byte_arrays(&values),
                encoded,
                Box::new(move |data, out| {
                    out.clear();
                    DeltaByteArrayDecoder::new(data, n)
                        .and_then(|mut d| d.next_batch(out, n))
                        .expect("fallback")
                }),
                arrow_decoder::<ByteArrayType>(
                    PhysicalType::BYTE_ARRAY,
                    Encoding::DELTA_BYTE_ARRAY,
                    n,
                ),
            )
        }
        "byte_stream_split_f32" => {
            // A random walk, like a sensor's readings.
            let mut x = 20.0f32;
            let values: Vec<f32> = (0..n)
                .map(|_| {
                    x += (rng.range(0, 2000) as f32 - 1000.0) / 1000.0;
                    x
                })
                .collect();
            byte_stream_split_case::<f32, FloatType>(name, PhysicalType::FLOAT, values)
        }
        "byte_stream_split_f64" => {
            let mut x = 20.0f64;
            let values: Vec<f64> = (0..n)
                .map(|_| {
                    x += (f64::from(rng.range(0, 2_000_000)) - 1e6) / 1e6;
                    x
                })
                .collect();
            byte_stream_split_case::<f64, DoubleType>(name, PhysicalType::DOUBLE, values)
        }
        "group_varint_i32" => {
            let values: Vec<i32> = (0..n).map(|_| varied_length(&mut rng, 32) as i32).collect();
            group_varint_case(name, values)
        }
        "group_varint_i64" => {
            let values: Vec<i64> = (0..n).map(|_| varied_length(&mut rng, 64) as i64).collect();
            group_varint_case(name, values)
        }
        "levels_v1" => {
            // A nullable column's definition levels (max level 1), one value in 8 null: runs
            // of valid values long enough for RLE runs among bit-packed ones.
            let levels: Vec<i16> = (0..n).map(|_| i16::from(rng.range(0, 7) != 0)).collect();
            let mut encoder = LevelEncoder::v1_streaming(1);
            encoder.put_with_observer(&levels, |_, _| {});
            let encoded = encoder.consume();
            let values: Vec<u32> = levels.iter().map(|&l| l as u32).collect();
            FixedCase::prepare(
                name,
                &values,
                encoded,
                Box::new(|data, out| {
                    HybridDecoder::with_length_prefix(data, 1, out.len())
                        .and_then(|(mut d, _)| d.next_batch(out))
                        .expect("fallback")
                }),
                Some(Box::new(|data, out| {
                    // What arrow-rs's column reader does with a v1 page's levels: read the
                    // length, then an RleDecoder over that many bytes. A new decoder per
                    // iteration (no allocation): `set_data` does not reset its run counters.
                    let prefix: [u8; 4] = data[..4].try_into().expect("4 bytes");
                    let len = u32::from_le_bytes(prefix) as usize;
                    let mut decoder = RleDecoder::new(1);
                    decoder.set_data(data.slice(4..4 + len)).expect("set_data");
                    decoder.get_batch(out).expect("get_batch")
                })),
            )
        }
        _ => unreachable!("{name} is listed in PARQUET_CASES but not built"),
    }
}

fn parquet_encodings(c: &mut Criterion) {
    let n = qpl_benches::elements();
    for name in PARQUET_CASES {
        // Built and checked before anything of this case is measured; dropped before the
        // next one is built.
        let mut case = prepare(name, n);
        let mut group = c.benchmark_group(format!("parquet/{name}"));
        group.throughput(Throughput::Elements(n as u64));
        for engine in case.engines() {
            group.bench_function(engine.id(), |b| case.measure(b, engine));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = parquet_encodings
}
criterion_main!(benches);
