#!/usr/bin/env python3
"""Writes Parquet files with pyarrow (Arrow C++'s writer, an implementation other than the
arrow-rs crate the Rust tests use) into OUTDIR, for `qpl-parquet verify` to check.

Usage: python3 examples/scripts/write_pyarrow_files.py OUTDIR

Covers: dictionary (RLE_DICTIONARY; PLAIN_DICTIONARY in a format-1.0 file) and PLAIN; `column_encoding` with DELTA_BINARY_PACKED,
DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT (and RLE booleans); data pages
'1.0' and '2.0'; several compressions; required, nullable and list columns; a small
`data_page_size` so chunks have several pages. Prints one line per file written. Deterministic
(fixed seed), a few thousand rows per file.
"""

import math
import os
import random
import sys

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
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
