#!/usr/bin/env python3
"""Writes the committed seed corpora in fuzz/seeds/<target>/ (run from anywhere).

Each seed is a golden vector from the fallback's unit tests or docs/semantics.md, laid out as its
target reads input (see the doc comment at the top of each fuzz_targets/*.rs):

- parquet_rle: n as 3 bytes (u16 LE n, then 16: see the target), then the parquet_rle stream
  (width byte first).
- job: the `JobInput` layout `arbitrary` 1.x derives: eleven u32 LE job fields in Job order
  (operation index, parser, src1_bit_width, src2_bit_width, num_input_elements, param_low,
  param_high, flags, out_bit_width, drop_initial_bytes, initial_output_index), dst_len u16 LE,
  src2_len u16 LE, has_src2 (1 byte), then source-2 followed by source-1.
- replay_line: one qpl-replay JSON line, UTF-8.
- differential: a mode byte, then the rest. Mode 1 (raw): the `job` layout above, here the
  golden vectors (values 0..7 at width 3 as LE, BE and Parquet streams) through every
  operation, plus the `job` seeds' special cases and two known divergences. Mode 0
  (structured): bytes the generator `qpl_difftest::gen_case` reads as its choices; these
  choose the operation (byte 1: index mod 11), the parser (byte 2: 0 LE, 4 BE, 6 Parquet),
  width 3 (bytes 3-4) and n = 8 (bytes 5-6), and leave everything else at the generator's
  first branch (zeros).
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

OPS = ["extract", "select", "expand", "scan_eq", "scan_ne", "scan_lt", "scan_le", "scan_gt",
       "scan_ge", "scan_range", "scan_not_range"]
PARSERS = {"le_packed": 0, "be_packed": 1, "parquet_rle": 2}
FLAG_CRC32C, FLAG_SRC2_BE, FLAG_OUT_BE = 0x4, 0x80, 0x100
FLAG_FORCE_ARRAY = 0x0080_0000

# values 0..7 at width 3
LE_0_7 = bytes([0x88, 0xC6, 0xFA])
BE_0_7 = bytes([0x05, 0x39, 0x77])
PRLE_0_7 = bytes([3, 0x03, 0x88, 0xC6, 0xFA])
# [1, 5, 3, 5, 7, 5, 0, 5] at width 3, LE (the crate doc's scan_eq example)
LE_DOC = None


def pack_le(values, width):
    acc = bits = 0
    out = bytearray()
    for v in values:
        acc |= v << bits
        bits += width
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    return bytes(out)


LE_DOC = pack_le([1, 5, 3, 5, 7, 5, 0, 5], 3)


def job(op, parser, src1, *, w1=0, w2=0, n=0, low=0, high=0, flags=0, out=0, drop=0, iidx=0,
        dst_len=64, src2=None):
    header = struct.pack("<11I", OPS.index(op), PARSERS[parser] if isinstance(parser, str)
                         else parser, w1, w2, n, low, high, flags, out, drop, iidx)
    header += struct.pack("<HHB", dst_len, len(src2 or b""), 1 if src2 is not None else 0)
    return header + (src2 or b"") + src1


def write(target, seeds):
    folder = os.path.join(HERE, "seeds", target)
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        if isinstance(data, str):
            data = data.encode()
        assert len(data) < 1024, name
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def n3(n):
    """The parquet_rle target's n prefix: m = n, e = 16 gives exactly n (< 65536)."""
    return struct.pack("<HB", n, 16)


write("parquet_rle", {
    "values_0_to_7_w3": n3(8) + PRLE_0_7,
    "rle_run_8x5_w3": n3(8) + bytes([3, 0x10, 0x05]),
    "header_4_bytes": n3(1) + bytes([3, 0x82, 0x80, 0x80, 0x00, 0x05]),
    "header_5_bytes_220": n3(1) + bytes([3, 0x82, 0x80, 0x80, 0x80, 0x00, 0x05]),
    "short_stream_232": n3(9) + PRLE_0_7,
    "w32_rle_then_packed": n3(12) + bytes([32, 0x08, 0x78, 0x56, 0x34, 0x12, 0x03])
    + bytes(range(32)),
    "w0_width_byte": n3(4) + bytes([0, 0x08]),
    "w1_rle_then_packed": n3(24) + bytes([1, 0x20, 0x01, 0x05, 0xAA, 0x55]),
})

write("job", {
    "scan_eq_doc_example": job("scan_eq", "le_packed", LE_DOC, w1=3, n=8, low=5, dst_len=1),
    "extract_be_0_7": job("extract", "be_packed", BE_0_7, w1=3, n=8, low=2, high=5),
    "extract_prle_0_7_u32": job("extract", "parquet_rle", PRLE_0_7, n=8, high=7, out=3),
    "extract_rle_run_d2": job("extract", "parquet_rle", bytes([3, 0x10, 0x05]), n=8, low=5,
                              high=2),
    "scan_range_index_list": job("scan_range", "le_packed", LE_0_7, w1=3, n=8, low=2, high=5,
                                 out=1, iidx=250),
    "select_src2_be": job("select", "le_packed", LE_0_7, w1=3, w2=1, n=8, src2=b"\xA5",
                          flags=FLAG_SRC2_BE),
    "expand_out_be_crc32c": job("expand", "le_packed", LE_0_7, w1=3, w2=1, n=16,
                                src2=b"\x0F\xF0", flags=FLAG_OUT_BE | FLAG_CRC32C),
    "scan_ge_force_array_drop": job("scan_ge", "le_packed", b"\xFF\xFF" + LE_0_7, w1=3, n=8,
                                    low=4, out=1, drop=2, flags=FLAG_FORCE_ARRAY),
    "scan_lt_prle_4byte_header": job("scan_lt", "parquet_rle",
                                     bytes([3, 0x82, 0x80, 0x80, 0x00, 0x05]), n=1, low=6),
})

BASE = '"op":"scan_eq","parser":"le_packed","src1_bit_width":3,"num_input_elements":8'
write("replay_line", {
    "scan_eq": '{' + BASE + ',"param_low":5,"src1":"' + LE_DOC.hex() + '"}',
    "extract_prle_u32": json.dumps({"op": "extract", "parser": "parquet_rle",
                                    "num_input_elements": 8, "param_high": 7,
                                    "out_bit_width": 3, "src1": PRLE_0_7.hex()}),
    "select_src2": json.dumps({"op": "select", "parser": "le_packed", "src1_bit_width": 3,
                               "src2_bit_width": 1, "num_input_elements": 8,
                               "src1": LE_0_7.hex().upper(), "src2": "a5",
                               "available_out": 16}),
    "expand_null_src2": '{"op":"expand","parser":"be_packed","src1_bit_width":3,'
                        '"src2_bit_width":1,"num_input_elements":8,"src1":"' + BE_0_7.hex()
                        + '","src2":null}',
    "bad_field": '{' + BASE + ',"param_hi":5,"src1":"00"}',
    "negative_int": '{' + BASE + ',"param_low":-1,"src1":"00"}',
    "big_available_out": '{' + BASE + ',"available_out":1073741825,"src1":"00"}',
    "bad_hex": '{' + BASE + ',"src1":"0g"}',
})

DIFF_RAW, DIFF_STRUCTURED = b"\x01", b"\x00"
GOLDEN = {"le_packed": LE_0_7, "be_packed": BE_0_7, "parquet_rle": PRLE_0_7}
FLAG_OMIT_AGGREGATES = 0x0020_0000
differential = {}
for i, op in enumerate(OPS):
    for j, (parser, src1) in enumerate(GOLDEN.items()):
        # Output widths and flags rotate as in qpl/tests/differential.rs's golden test.
        out = (i + j) % 4
        flags = [0, FLAG_OUT_BE | FLAG_CRC32C, FLAG_SRC2_BE][(i + j) % 3]
        mask = None
        if op in ("select", "expand"):
            flags |= FLAG_OMIT_AGGREGATES
            mask = bytes([0b1010_0110])
        low, high = (1, 6) if op == "extract" else (3, 5)
        differential[f"raw_{op}_{parser}_ow{out}"] = DIFF_RAW + job(
            op, parser, src1, w1=3, w2=1, n=8, low=low, high=high, flags=flags, out=out,
            src2=mask)
        parser_byte = {"le_packed": 0, "be_packed": 4, "parquet_rle": 6}[parser]
        differential[f"gen_{op}_{parser}"] = DIFF_STRUCTURED + bytes([i, parser_byte, 0, 2, 0, 7])
differential.update({
    "raw_extract_d2": DIFF_RAW + job("extract", "parquet_rle", bytes([3, 0x10, 0x05]), n=8,
                                     low=5, high=2),
    "raw_scan_range_index_list": DIFF_RAW + job("scan_range", "le_packed", LE_0_7, w1=3, n=8,
                                                low=2, high=5, out=1, iidx=250),
    "raw_scan_ge_force_array_drop": DIFF_RAW + job("scan_ge", "le_packed", b"\xFF\xFF" + LE_0_7,
                                                   w1=3, n=8, low=4, out=1, drop=2,
                                                   flags=FLAG_FORCE_ARRAY),
    "raw_scan_lt_prle_4byte_header": DIFF_RAW + job("scan_lt", "parquet_rle",
                                                    bytes([3, 0x82, 0x80, 0x80, 0x00, 0x05]),
                                                    n=1, low=6),
    # D4: a 5-byte run header (the fallback 220, QPL reads on).
    "raw_scan_lt_prle_5byte_header_d4": DIFF_RAW + job(
        "scan_lt", "parquet_rle", bytes([3, 0x82, 0x80, 0x80, 0x80, 0x00, 0x05]), n=1, low=6),
    # W0: a Parquet stream of bit width 0 (the wrapper runs it as zeros, the fallback 231).
    "raw_extract_prle_width0_w0": DIFF_RAW + job("extract", "parquet_rle", bytes([0, 0x08]),
                                                 n=4, high=3, out=1),
})
write("differential", differential)

# parquet_encodings: case byte (index into the target's CASES), parameter byte (bit width or
# FIXED_LEN_BYTE_ARRAY length), the count as n3(), the batch operations (a count byte, then one
# byte each: bit 7 skip, bit 6 large, bits 0..6 the size), then (dictionary cases) the
# dictionary, then the page. Each seed is a small valid page.
PE_CASES = [
    "plain_boolean", "plain_int32", "plain_int64", "plain_int96", "plain_float", "plain_double",
    "plain_byte_array", "plain_flba", "dict_int32", "dict_int64", "dict_int96", "dict_float",
    "dict_double", "dict_byte_array", "rle", "rle_length_prefix", "rle_width_byte",
    "rle_boolean", "bit_packed", "dbp_int32", "dbp_int64", "dlba", "dba", "bss_float",
    "bss_double", "bss_int32", "bss_int64", "bss_flba", "gvi_int32", "gvi_int64",
]
# next_batch 3, skip 2, next_batch 5 (repeated by the target until the page ends).
PE_OPS = bytes([3, 0x03, 0x82, 0x05])


def pe(case, n, page, param=0, ops=PE_OPS):
    return bytes([PE_CASES.index(case), param]) + n3(n) + ops + page


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zigzag(v):
    return (v << 1) ^ (v >> 63)


def dbp(values):
    """DELTA_BINARY_PACKED with blocks of 128 values in 4 miniblocks of 32 (full miniblocks
    only: unneeded ones get width 0 and no bytes)."""
    out = bytearray(uleb(128) + uleb(4) + uleb(len(values)))
    out += uleb(zigzag(values[0]) if values else 0)
    deltas = [b - a for a, b in zip(values, values[1:])]
    for start in range(0, len(deltas), 128):
        block = deltas[start:start + 128]
        low = min(block)
        out += uleb(zigzag(low))
        minis = [block[i:i + 32] for i in range(0, 128, 32)]
        widths = [max(d - low for d in m).bit_length() if m else 0 for m in minis]
        out += bytes(widths)
        for m, w in zip(minis, widths):
            if m:
                out += pack_le([d - low for d in m] + [0] * (32 - len(m)), w).ljust(4 * w, b"\0")
    return bytes(out)


def bss(values_bytes, size):
    n = len(values_bytes) // size
    return bytes(values_bytes[i * size + k] for k in range(size) for i in range(n))


def plain(fmt, values):
    return b"".join(struct.pack("<" + fmt, v) for v in values)


I32 = plain("i", [1, -1, 0x7FFFFFFF, -0x80000000])
I64 = plain("q", [1, -1, 0x7FFFFFFFFFFFFFFF])
I96 = bytes(range(24))
F32 = plain("f", [1.0, -2.5, float("nan")]) + plain("I", [0x80000000])
F64 = plain("d", [1.0, float("-inf")]) + plain("Q", [0x7FF8000000000001])
# Dictionary indices: width byte 2, one bit-packed group of 8 (0, 1, 2, 0, 1, 2, 0, 1), and an
# RLE run of 5 twos.
IDX = bytes([2, 0x03]) + pack_le([0, 1, 2, 0, 1, 2, 0, 1], 2) + bytes([0x0A, 0x02])
write("parquet_encodings", {
    "plain_boolean": pe("plain_boolean", 10, bytes([0xA5, 0x02])),
    "plain_int32": pe("plain_int32", 4, I32),
    "plain_int64": pe("plain_int64", 3, I64),
    "plain_int96": pe("plain_int96", 2, I96),
    "plain_float": pe("plain_float", 4, F32),
    "plain_double": pe("plain_double", 3, F64),
    "plain_byte_array": pe("plain_byte_array", 3, plain("I", [1]) + b"a" + plain("I", [0])
                           + plain("I", [5]) + b"hello"),
    "plain_flba_3": pe("plain_flba", 4, bytes(range(12)), param=3),
    "dict_int32": pe("dict_int32", 13, bytes([3]) + I32[:12] + IDX),
    "dict_int64": pe("dict_int64", 13, bytes([3]) + I64 + IDX),
    "dict_int96": pe("dict_int96", 13, bytes([3]) + I96 + bytes(12) + IDX),
    "dict_float": pe("dict_float", 13, bytes([3]) + F32[:12] + IDX),
    "dict_double": pe("dict_double", 13, bytes([3]) + F64 + IDX),
    # Dictionary values of (7i + 2) % 9 bytes: 2, 0, 7.
    "dict_byte_array": pe("dict_byte_array", 13, bytes([3]) + b"ab" + b"defghij" + IDX, param=2),
    "rle_0_7_w3": pe("rle", 8, PRLE_0_7[1:], param=3),
    "rle_run_w3": pe("rle", 8, bytes([0x10, 0x05]), param=3),
    "rle_length_prefix_w3": pe("rle_length_prefix", 8, plain("I", [4]) + PRLE_0_7[1:],
                               param=3),
    "rle_width_byte": pe("rle_width_byte", 8, PRLE_0_7),
    "rle_boolean": pe("rle_boolean", 18, plain("I", [4]) + bytes([0x03, 0xA5, 0x14, 0x01])),
    "bit_packed_w3": pe("bit_packed", 8, BE_0_7, param=3),
    "dbp_int32": pe("dbp_int32", 40, dbp([7, 5, 10, 3, -2**30, 2**30] + list(range(34)))),
    "dbp_int32_one_value": pe("dbp_int32", 1, dbp([-5])),
    "dbp_int64": pe("dbp_int64", 6, dbp([7, 5, 10, 3, -2**40, 2**40])),
    "dlba": pe("dlba", 3, dbp([2, 0, 3]) + b"abxyz"),
    "dba": pe("dba", 3, dbp([0, 4, 0]) + dbp([5, 1, 6]) + b"appleybanana"),
    "bss_float": pe("bss_float", 4, bss(F32, 4)),
    "bss_double": pe("bss_double", 3, bss(F64, 8)),
    "bss_int32": pe("bss_int32", 100, bss(I32, 4)),
    "bss_int64": pe("bss_int64", 3, bss(I64, 8)),
    "bss_flba_3": pe("bss_flba", 4, bss(bytes(range(12)), 3), param=3),
    # GroupVarInt: lengths all 1 byte (lead byte 0) or all 4 bytes (0xFF), the 5th value in a
    # zero-filled second group.
    "gvi_int32": pe("gvi_int32", 5, bytes([0, 1, 2, 3, 4, 0, 5, 0, 0, 0])),
    "gvi_int32_wide": pe("gvi_int32", 4, b"\xFF" + I32),
    "gvi_int64": pe("gvi_int64", 5, bytes([0, 0, 1, 2, 3, 4, 5])),
})
