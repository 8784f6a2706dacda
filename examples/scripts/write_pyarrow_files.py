#!/usr/bin/env python3
"""Writes Parquet files with pyarrow (Arrow C++'s writer, an implementation other than the
arrow-rs crate the Rust tests use) into OUTDIR, for `qpl-parquet verify` to check.

Usage: python3 examples/scripts/write_pyarrow_files.py OUTDIR

Covers: dictionary (RLE_DICTIONARY; PLAIN_DICTIONARY in a format-1.0 file) and PLAIN; `column_encoding` with DELTA_BINARY_PACKED,
DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT (and RLE booleans); data pages
'1.0' and '2.0'; several compressions; required, nullable and list columns; a small
`data_page_size` so chunks have several pages. Prints one line per file written. Deterministic
(fixed seed), a few thousand rows per file.

Also (`extra_files`): every Arrow logical type pyarrow writes (ints of every width and sign,
date32/64, time32/64, timestamps s/ms/us/ns with and without a time zone, INT96 timestamps,
decimal128 in INT32, INT64 and FIXED_LEN_BYTE_ARRAY, float16, uuid, fixed_size_binary,
string/large_string/binary/large_binary, string_view/binary_view, dictionary<int32, string>,
dictionary<int8, string> (pandas' categoricals),
boolean), each nullable with an all-null twin, in v1 and v2 pages and every codec; nested
columns (structs in structs, lists of lists and of lists of lists, lists of structs and of
structs holding structs, maps, nulls at every level) with
compliant and non-compliant (`use_compliant_nested_type=False`) list names; a table of 0 rows;
a file whose first row group has 0 rows; dictionaries that fall back to PLAIN mid-chunk (a
small `dictionary_pagesize_limit`).
"""

import datetime
import decimal
import math
import os
import random
import sys
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 3000


def columns(rng):
    """The table: one column per (physical type, shape) this script writes."""
    n = ROWS

    def nullable(values, percent=12):
        return [None if rng.randrange(100) < percent else v for v in values]

    def skewed(k):
        return min(rng.randrange(k), rng.randrange(k))

    i32_edges = [-(2**31), 2**31 - 1, 0, -1]
    i64_edges = [-(2**63), 2**63 - 1, 0, -1]
    cities = ["Paris", "London", "Berlin", "", "Zürich", "Oslo", "Rome", "Riga"]
    floats = [float("nan"), float("inf"), float("-inf"), -0.0, 5e-324]

    ints32 = [i32_edges[i % 4] if i % 9 == 0 else rng.randrange(-(2**31), 2**31) for i in range(n)]
    ints64 = [i64_edges[i % 4] if i % 9 == 0 else rng.randrange(-(2**63), 2**63) for i in range(n)]
    ts32 = [1_600_000_000 + 3 * i + rng.randrange(5) for i in range(n)]
    ts64 = [1_700_000_000_000_000 + 1_000_000 * i + rng.randrange(1000) for i in range(n)]
    small = [skewed(40) * 10 - 100 for _ in range(n)]
    doubles = [floats[i % 101] if i % 101 < 5 else 20 + 5 * math.sin(i / 100) + rng.random() / 1e3 for i in range(n)]
    singles = [floats[i % 97] if i % 97 < 4 else rng.randrange(100000) / 100 for i in range(n)]
    words = ["".join(chr(97 + skewed(26)) for _ in range(rng.randrange(13))) for _ in range(n)]
    urls = [f"https://shop.example.com/catalogue/category-{i // 250:03}/item-{i:07}" for i in range(n)]
    blobs = [bytes(rng.randrange(256) for _ in range(rng.randrange(30))) for _ in range(n)]
    fixed = [(1_000_000_000 + 97 * i).to_bytes(8, "big") for i in range(n)]
    lists = [
        None if rng.randrange(20) == 0
        else [None if rng.randrange(10) == 0 else skewed(30) for _ in range(rng.randrange(6))]
        for _ in range(n)
    ]
    string_lists = [
        None if rng.randrange(20) == 0 else [rng.choice(cities) for _ in range(rng.randrange(4))]
        for _ in range(n)
    ]

    return {
        # name: (array, encoding or None for dictionary)
        "plain_bool": (pa.array([rng.randrange(10) > 0 for _ in range(n)]), "PLAIN"),
        "rle_bool": (pa.array(nullable([(i // 50) % 2 == 0 for i in range(n)])), "RLE"),
        "plain_int32": (pa.array(nullable(ints32), pa.int32()), "PLAIN"),
        "plain_int64": (pa.array(ints64, pa.int64()), "PLAIN"),
        "plain_float": (pa.array(singles, pa.float32()), "PLAIN"),
        "plain_double": (pa.array(nullable(doubles), pa.float64()), "PLAIN"),
        "plain_binary": (pa.array(nullable(blobs), pa.binary()), "PLAIN"),
        "plain_fixed8": (pa.array(fixed, pa.binary(8)), "PLAIN"),
        "dict_int32": (pa.array(nullable(small), pa.int32()), None),
        "dict_int64": (pa.array([small[i] * 1_000_003 for i in range(n)], pa.int64()), None),
        "dict_double": (pa.array([x / 4 for x in small], pa.float64()), None),
        "dict_string": (pa.array(nullable([rng.choice(cities) for _ in range(n)]), pa.string()), None),
        "dict_fixed8": (pa.array([fixed[skewed(20)] for _ in range(n)], pa.binary(8)), None),
        "delta_int32": (pa.array(ts32, pa.int32()), "DELTA_BINARY_PACKED"),
        "delta_int64": (pa.array(nullable(ts64), pa.int64()), "DELTA_BINARY_PACKED"),
        "delta_int64_edges": (pa.array(ints64, pa.int64()), "DELTA_BINARY_PACKED"),
        "dlba_string": (pa.array(nullable(words), pa.string()), "DELTA_LENGTH_BYTE_ARRAY"),
        "dba_string": (pa.array(urls, pa.string()), "DELTA_BYTE_ARRAY"),
        "dba_fixed8": (pa.array(nullable(fixed), pa.binary(8)), "DELTA_BYTE_ARRAY"),
        "bss_float": (pa.array(singles, pa.float32()), "BYTE_STREAM_SPLIT"),
        "bss_double": (pa.array(nullable(doubles), pa.float64()), "BYTE_STREAM_SPLIT"),
        "bss_int32": (pa.array(ts32, pa.int32()), "BYTE_STREAM_SPLIT"),
        "bss_int64": (pa.array(nullable(ints64), pa.int64()), "BYTE_STREAM_SPLIT"),
        "bss_fixed8": (pa.array(fixed, pa.binary(8)), "BYTE_STREAM_SPLIT"),
        "list_dict_int32": (pa.array(lists, pa.list_(pa.int32())), None),
        "list_plain_string": (pa.array(string_lists, pa.list_(pa.string())), "PLAIN"),
        "list_delta_int64": (pa.array(lists, pa.list_(pa.int64())), "DELTA_BINARY_PACKED"),
    }


def leaf(table, name):
    """The dotted path of column `name`'s leaf, as `column_encoding` wants it."""
    if pa.types.is_list(table.schema.field(name).type):
        return f"{name}.list.element"
    return name


def write(path, cols, version, compression, dictionary, page_size=2048, format_version="2.6"):
    """One file: `dictionary` columns dictionary-encoded, the others with their encoding.
    Format version "1.0" makes Arrow C++ label dictionary pages PLAIN_DICTIONARY (2)."""
    names = [name for name in cols if (cols[name][1] is None) == dictionary]
    table = pa.table({name: cols[name][0] for name in names})
    kwargs = {}
    if not dictionary:
        # `column_encoding` needs dictionary encoding off for those columns; it is keyed by the
        # leaf's dotted path (`tags.list.element` for a list).
        kwargs["column_encoding"] = {leaf(table, name): cols[name][1] for name in names}
    pq.write_table(
        table,
        path,
        use_dictionary=dictionary,
        data_page_version=version,
        compression=compression,
        data_page_size=page_size,
        row_group_size=ROWS // 2,
        write_batch_size=256,
        version=format_version,
        **kwargs,
    )
    return path


def typed_columns(rng, n):
    """One nullable column per logical type, and an all-null column per physical type."""

    def nullable(values, percent=15):
        return [None if rng.randrange(100) < percent else v for v in values]

    def ints(lo, hi):
        edges = [lo, hi, 0] if lo < 0 else [lo, hi]
        return nullable([edges[i % len(edges)] if i % 11 == 0 else rng.randrange(lo, hi + 1) for i in range(n)])

    epoch = datetime.datetime(1970, 1, 1)
    days = nullable([rng.randrange(-40000, 40000) for _ in range(n)])
    words = nullable(["".join(chr(97 + rng.randrange(26)) for _ in range(rng.randrange(12))) for _ in range(n)])
    blobs = nullable([bytes(rng.randrange(256) for _ in range(rng.randrange(20))) for _ in range(n)])
    micros = nullable([rng.randrange(-(2**50), 2**50) for _ in range(n)])
    cols = {
        "int8": pa.array(ints(-128, 127), pa.int8()),
        "int16": pa.array(ints(-(2**15), 2**15 - 1), pa.int16()),
        "uint8": pa.array(ints(0, 255), pa.uint8()),
        "uint16": pa.array(ints(0, 2**16 - 1), pa.uint16()),
        "uint32": pa.array(ints(0, 2**32 - 1), pa.uint32()),
        "uint64": pa.array(ints(0, 2**64 - 1), pa.uint64()),
        "bool": pa.array(nullable([rng.randrange(3) > 0 for _ in range(n)]), pa.bool_()),
        "date32": pa.array(days, pa.date32()),
        "date64": pa.array([None if d is None else d * 86_400_000 for d in days], pa.date64()),
        "time32_s": pa.array(nullable([rng.randrange(86400) for _ in range(n)]), pa.time32("s")),
        "time32_ms": pa.array(nullable([rng.randrange(86_400_000) for _ in range(n)]), pa.time32("ms")),
        "time64_us": pa.array(nullable([rng.randrange(86_400_000_000) for _ in range(n)]), pa.time64("us")),
        "time64_ns": pa.array(nullable([rng.randrange(86_400_000_000_000) for _ in range(n)]), pa.time64("ns")),
        "ts_s": pa.array([None if m is None else m // 1_000_000 for m in micros], pa.timestamp("s")),
        "ts_ms": pa.array([None if m is None else m // 1000 for m in micros], pa.timestamp("ms")),
        "ts_us_utc": pa.array(micros, pa.timestamp("us", tz="UTC")),
        "ts_ns_tz": pa.array([None if m is None else m * 1000 // 7 for m in micros], pa.timestamp("ns", tz="Europe/Paris")),
        "dec_5_2": pa.array(nullable([decimal.Decimal(rng.randrange(-99999, 100000)).scaleb(-2) for _ in range(n)]), pa.decimal128(5, 2)),
        "dec_15_3": pa.array(nullable([decimal.Decimal(rng.randrange(-(10**15) + 1, 10**15)).scaleb(-3) for _ in range(n)]), pa.decimal128(15, 3)),
        "dec_38_10": pa.array(nullable([decimal.Decimal(rng.randrange(-(10**38) + 1, 10**38)).scaleb(-10) for _ in range(n)]), pa.decimal128(38, 10)),
        "float16": pa.array(nullable([rng.uniform(-1000, 1000) for _ in range(n)]), pa.float16()),
        "uuid": pa.array(nullable([uuid.UUID(int=rng.getrandbits(128)).bytes for _ in range(n)]), pa.uuid()),
        "fixed3": pa.array(nullable([bytes(rng.randrange(256) for _ in range(3)) for _ in range(n)]), pa.binary(3)),
        "string": pa.array(words, pa.string()),
        "large_string": pa.array(words, pa.large_string()),
        "binary": pa.array(blobs, pa.binary()),
        "large_binary": pa.array(blobs, pa.large_binary()),
        "string_view": pa.array(words, pa.string_view()),
        "binary_view": pa.array(blobs, pa.binary_view()),
        "dict_string": pa.array(nullable([rng.choice(["a", "bb", "", "ccc"]) for _ in range(n)])).dictionary_encode(),
        # pandas' categoricals: Int8 keys.
        "dict_int8": pa.array(nullable([rng.choice(["x", "yy", "zzz"]) for _ in range(n)])).dictionary_encode().cast(pa.dictionary(pa.int8(), pa.string())),
        "float32": pa.array(nullable([rng.random() for _ in range(n)]), pa.float32()),
    }
    for name, t in [("bool", pa.bool_()), ("int32", pa.int32()), ("int64", pa.int64()), ("double", pa.float64()),
                    ("string", pa.string()), ("fixed3", pa.binary(3)), ("list", pa.list_(pa.int32()))]:
        cols[f"null_{name}"] = pa.nulls(n, t)
    cols["null_type"] = pa.nulls(n)
    return pa.table(cols)


def nested_table(rng, n):
    """Structs, lists (of three levels too), lists of structs (of structs too), maps (of
    structs too); a null possible at every level."""

    def maybe(v, percent=10):
        return None if rng.randrange(100) < percent else v

    def point():
        return maybe({"x": maybe(rng.randrange(100)), "y": maybe(rng.random()), "label": maybe(rng.choice(["a", "b", ""]))})

    rows = {
        "s": [maybe({"p": point(), "id": rng.randrange(1000), "tags": maybe([maybe("t%d" % rng.randrange(5)) for _ in range(rng.randrange(3))])}) for _ in range(n)],
        "ll": [maybe([maybe([maybe(rng.randrange(50)) for _ in range(rng.randrange(4))]) for _ in range(rng.randrange(4))]) for _ in range(n)],
        "ls": [maybe([point() for _ in range(rng.randrange(4))]) for _ in range(n)],
        "m": [maybe([("k%d" % k, maybe(rng.randrange(100))) for k in range(rng.randrange(4))]) for _ in range(n)],
        "flat": [maybe(rng.randrange(10**6)) for _ in range(n)],
        "lll": [maybe([maybe([maybe([maybe(rng.randrange(50)) for _ in range(rng.randrange(3))]) for _ in range(rng.randrange(3))]) for _ in range(rng.randrange(3))]) for _ in range(n)],
        "lsn": [maybe([maybe({"name": maybe("n%d" % rng.randrange(20)), "at": point()}) for _ in range(rng.randrange(3))]) for _ in range(n)],
        "ms": [maybe([("k%d" % k, point()) for k in range(rng.randrange(3))]) for _ in range(n)],
    }
    point_t = pa.struct([("x", pa.int32()), ("y", pa.float64()), ("label", pa.string())])
    schema = pa.schema([
        ("s", pa.struct([("p", point_t), ("id", pa.int64(), False), ("tags", pa.list_(pa.string()))])),
        ("ll", pa.list_(pa.list_(pa.int16()))),
        ("ls", pa.list_(point_t)),
        ("m", pa.map_(pa.string(), pa.int64())),
        ("flat", pa.int64()),
        ("lll", pa.list_(pa.list_(pa.list_(pa.int32())))),
        ("lsn", pa.list_(pa.struct([("name", pa.string()), ("at", point_t)]))),
        ("ms", pa.map_(pa.string(), point_t)),
    ])
    return pa.table(rows, schema=schema)


def extra_files(out):
    """The logical-type, nested, empty and dictionary-fallback files (see the module docs)."""
    rng = random.Random(30)
    written = []
    types = typed_columns(rng, 700)
    for version, compression in [("1.0", "NONE"), ("2.0", "SNAPPY"), ("2.0", "GZIP"), ("1.0", "BROTLI"),
                                 ("1.0", "ZSTD"), ("2.0", "LZ4"), ("2.0", "NONE")]:
        path = os.path.join(out, f"pyarrow_types_v{version[0]}_{compression.lower()}.parquet")
        pq.write_table(types, path, data_page_version=version, compression=compression,
                       row_group_size=300, data_page_size=1024, store_schema=True)
        written.append(path)
    path = os.path.join(out, "pyarrow_types_int96.parquet")
    pq.write_table(types.select(["ts_s", "ts_ms", "ts_us_utc", "ts_ns_tz", "date32"]), path,
                   use_deprecated_int96_timestamps=True, row_group_size=400)
    written.append(path)
    nested = nested_table(rng, 900)
    for version in ("1.0", "2.0"):
        path = os.path.join(out, f"pyarrow_nested_v{version[0]}.parquet")
        pq.write_table(nested, path, data_page_version=version, compression="SNAPPY",
                       row_group_size=400, data_page_size=512, write_batch_size=128)
        written.append(path)
    path = os.path.join(out, "pyarrow_nested_noncompliant.parquet")
    pq.write_table(nested, path, use_compliant_nested_type=False, row_group_size=500)
    written.append(path)
    path = os.path.join(out, "pyarrow_empty_table.parquet")
    pq.write_table(types.slice(0, 0), path)
    written.append(path)
    path = os.path.join(out, "pyarrow_empty_row_group.parquet")
    with pq.ParquetWriter(path, nested.schema) as writer:
        writer.write_table(nested.slice(0, 0))
        writer.write_table(nested.slice(0, 50))
    written.append(path)
    distinct = pa.table({
        "s": pa.array(["value-%05d" % rng.randrange(4000) for _ in range(3000)]),
        "i": pa.array([rng.randrange(-(2**40), 2**40) for _ in range(3000)], pa.int64()),
    })
    for version in ("1.0", "2.0"):
        path = os.path.join(out, f"pyarrow_fallback_v{version[0]}.parquet")
        pq.write_table(distinct, path, data_page_version=version, dictionary_pagesize_limit=2048,
                       data_page_size=1024, row_group_size=3000)
        written.append(path)
    return written


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cols = columns(random.Random(2026))
    written = []
    plan = [
        ("1.0", "NONE"),
        ("2.0", "NONE"),
        ("1.0", "SNAPPY"),
        ("2.0", "ZSTD"),
        ("1.0", "GZIP"),
        ("2.0", "BROTLI"),
        ("1.0", "LZ4"),  # pyarrow's LZ4 is LZ4_RAW in the file
    ]
    for version, compression in plan:
        for dictionary in (True, False):
            kind = "dict" if dictionary else "encodings"
            name = f"pyarrow_{kind}_v{version[0]}_{compression.lower()}.parquet"
            written.append(write(os.path.join(out, name), cols, version, compression, dictionary))
    # The Parquet 1 dictionary encoding's number: PLAIN_DICTIONARY in data and dictionary pages.
    written.append(
        write(os.path.join(out, "pyarrow_dict_format1_v1_snappy.parquet"), cols, "1.0", "SNAPPY", True, format_version="1.0")
    )
    # Pages of a few values each.
    written.append(write(os.path.join(out, "pyarrow_tiny_pages_v2.parquet"), cols, "2.0", "NONE", False, page_size=64))
    written.extend(extra_files(out))
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
