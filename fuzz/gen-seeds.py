#!/usr/bin/env python3
"""Writes the committed seed corpora in fuzz/seeds/<target>/ (run from anywhere).

Each seed is a golden vector from the fallback's unit tests or QPL-SEMANTICS, laid out as its
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
