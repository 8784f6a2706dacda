//! The job description: every analytics field of QPL's `qpl_job`, and the fields a completed job
//! reports. Defined once here and re-exported by the safe `qpl-rs` crate, which converts them to
//! `qpl_job` fields at the FFI boundary only.

use std::fmt;
use std::ops::{BitOr, BitOrAssign};

/// An analytics operation. `code()` is QPL's `qpl_operation` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Operation {
    /// Copy the elements with index `param_low..=param_high`.
    #[default]
    Extract,
    /// Keep the source-1 elements whose source-2 mask bit is 1.
    Select,
    /// Place successive source-1 elements where the source-2 mask bit is 1, zeros elsewhere.
    Expand,
    /// One bit per element: `x == param_low`.
    ScanEq,
    /// One bit per element: `x != param_low`.
    ScanNe,
    /// One bit per element: `x < param_low`.
    ScanLt,
    /// One bit per element: `x <= param_low`.
    ScanLe,
    /// One bit per element: `x > param_low`.
    ScanGt,
    /// One bit per element: `x >= param_low`.
    ScanGe,
    /// One bit per element: `param_low <= x <= param_high`.
    ScanRange,
    /// One bit per element: `x < param_low || x > param_high`.
    ScanNotRange,
}

impl Operation {
    /// Every operation, in QPL's code order.
    pub const ALL: [Operation; 11] = [
        Operation::Extract,
        Operation::Select,
        Operation::Expand,
        Operation::ScanEq,
        Operation::ScanNe,
        Operation::ScanLt,
        Operation::ScanLe,
        Operation::ScanGt,
        Operation::ScanGe,
        Operation::ScanRange,
        Operation::ScanNotRange,
    ];

    /// QPL's `qpl_operation` code.
    pub fn code(self) -> u32 {
        match self {
            Operation::Extract => 0x11,
            Operation::Select => 0x12,
            Operation::Expand => 0x15,
            Operation::ScanEq => 0x20,
            Operation::ScanNe => 0x21,
            Operation::ScanLt => 0x22,
            Operation::ScanLe => 0x23,
            Operation::ScanGt => 0x24,
            Operation::ScanGe => 0x25,
            Operation::ScanRange => 0x26,
            Operation::ScanNotRange => 0x27,
        }
    }

    /// The operation with QPL code `code`, if it is an analytics operation.
    pub fn from_code(code: u32) -> Option<Operation> {
        Operation::ALL.into_iter().find(|op| op.code() == code)
    }

    /// The name used by `qpl-replay` and in messages: `extract`, `scan_eq`, ...
    pub fn name(self) -> &'static str {
        match self {
            Operation::Extract => "extract",
            Operation::Select => "select",
            Operation::Expand => "expand",
            Operation::ScanEq => "scan_eq",
            Operation::ScanNe => "scan_ne",
            Operation::ScanLt => "scan_lt",
            Operation::ScanLe => "scan_le",
            Operation::ScanGt => "scan_gt",
            Operation::ScanGe => "scan_ge",
            Operation::ScanRange => "scan_range",
            Operation::ScanNotRange => "scan_not_range",
        }
    }

    /// The operation called `name` (see [`Operation::name`]).
    pub fn from_name(name: &str) -> Option<Operation> {
        Operation::ALL.into_iter().find(|op| op.name() == name)
    }

    /// True for the eight scans.
    pub fn is_scan(self) -> bool {
        !matches!(
            self,
            Operation::Extract | Operation::Select | Operation::Expand
        )
    }

    /// True for select and expand, the operations that read a source-2 mask.
    pub fn uses_mask(self) -> bool {
        matches!(self, Operation::Select | Operation::Expand)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How source-1 is parsed (QPL's `qpl_parser`). A `u32` newtype so that every value a
/// `qpl_job` can hold is expressible (an unknown one is status 71).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Parser(pub u32);

impl Parser {
    /// Little-endian bit-packed array: element bits LSB first.
    pub const LE_PACKED: Parser = Parser(0);
    /// Big-endian bit-packed array: element bits MSB first (Parquet's deprecated BIT_PACKED).
    pub const BE_PACKED: Parser = Parser(1);
    /// Parquet's RLE/bit-packing hybrid with its bit-width byte in front.
    pub const PARQUET_RLE: Parser = Parser(2);

    /// `le_packed`, `be_packed` or `parquet_rle`; `None` for an unknown value.
    pub fn name(self) -> Option<&'static str> {
        match self.0 {
            0 => Some("le_packed"),
            1 => Some("be_packed"),
            2 => Some("parquet_rle"),
            _ => None,
        }
    }

    /// The parser called `name` (see [`Parser::name`]).
    pub fn from_name(name: &str) -> Option<Parser> {
        [Parser::LE_PACKED, Parser::BE_PACKED, Parser::PARQUET_RLE]
            .into_iter()
            .find(|p| p.name() == Some(name))
    }
}

impl fmt::Debug for Parser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "Parser({})", self.0),
        }
    }
}

/// The output element format (QPL's `qpl_out_format`, the job's `out_bit_width`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OutBitWidth(pub u32);

impl OutBitWidth {
    /// The operation's nominal output: a bit vector for scans, elements packed at the source
    /// bit width otherwise.
    pub const NOMINAL: OutBitWidth = OutBitWidth(0);
    /// 8-bit array elements or indices.
    pub const W8: OutBitWidth = OutBitWidth(1);
    /// 16-bit array elements or indices.
    pub const W16: OutBitWidth = OutBitWidth(2);
    /// 32-bit array elements or indices.
    pub const W32: OutBitWidth = OutBitWidth(3);

    /// The element width in bits (8, 16, 32), `Some(0)` for nominal, `None` if invalid.
    pub fn bits(self) -> Option<u32> {
        match self.0 {
            0 => Some(0),
            1 => Some(8),
            2 => Some(16),
            3 => Some(32),
            _ => None,
        }
    }
}

impl fmt::Debug for OutBitWidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.bits() {
            Some(0) => f.write_str("nominal"),
            Some(bits) => write!(f, "u{bits}"),
            None => write!(f, "OutBitWidth({})", self.0),
        }
    }
}

/// The job's `flags` field: QPL's `QPL_FLAG_*` bits. Bits without meaning for analytics are
/// accepted and ignored, as QPL does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u32);

impl Flags {
    /// No flags.
    pub const NONE: Flags = Flags(0);
    /// `QPL_FLAG_CRC32C`: report CRC-32C instead of CRC-32.
    pub const CRC32C: Flags = Flags(0x0004);
    /// `QPL_FLAG_GZIP_MODE`: with [`Flags::DECOMPRESS_ENABLE`], source-1 starts with a gzip
    /// header (`docs/decompress.md`, DZ2). Ignored otherwise.
    pub const GZIP_MODE: Flags = Flags(0x0008);
    /// `QPL_FLAG_DECOMPRESS_ENABLE`: source-1 is a deflate stream, inflated and then parsed and
    /// operated on as an uncompressed source-1 (`docs/decompress.md`).
    pub const DECOMPRESS_ENABLE: Flags = Flags(0x0040);
    /// `QPL_FLAG_SRC2_BE`: the source-2 mask is read MSB first.
    pub const SRC2_BE: Flags = Flags(0x0080);
    /// `QPL_FLAG_OUT_BE`: packed output MSB first, array elements and indices big-endian.
    pub const OUT_BE: Flags = Flags(0x0100);
    /// `QPL_FLAG_INV_OUT`: ignored by analytics, as on QPL's software path.
    pub const INV_OUT: Flags = Flags(0x0004_0000);
    /// `QPL_FLAG_ZLIB_MODE`: with [`Flags::DECOMPRESS_ENABLE`], source-1 starts with a zlib
    /// header (`docs/decompress.md`, DZ2). Ignored otherwise.
    pub const ZLIB_MODE: Flags = Flags(0x0008_0000);
    /// `QPL_FLAG_OMIT_CHECKSUMS`: report `crc` and `xor_checksum` as 0.
    pub const OMIT_CHECKSUMS: Flags = Flags(0x0010_0000);
    /// `QPL_FLAG_OMIT_AGGREGATES`: report the aggregates as `0xFFFFFFFF`, 0, 0.
    pub const OMIT_AGGREGATES: Flags = Flags(0x0020_0000);
    /// `QPL_FLAG_CANNED_MODE`: compression only; QPL rejects it with 50 without a Huffman table.
    pub const CANNED_MODE: Flags = Flags(0x0040_0000);
    /// `QPL_FLAG_FORCE_ARRAY_OUTPUT`: a 1-bit nominal output written as 0/1 array elements.
    pub const FORCE_ARRAY_OUTPUT: Flags = Flags(0x0080_0000);

    /// True when every bit of `other` is set in `self`.
    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

impl BitOrAssign for Flags {
    fn bitor_assign(&mut self, rhs: Flags) {
        self.0 |= rhs.0;
    }
}

/// The description of one analytics job: the fields of `qpl_job` that analytics reads.
/// Buffers are passed separately to [`crate::execute()`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Job {
    /// What to do.
    pub operation: Operation,
    /// How source-1 is parsed.
    pub parser: Parser,
    /// Source-1 element width, 1..=32 (ignored for Parquet RLE, whose first byte says it).
    pub src1_bit_width: u32,
    /// Source-2 element width: must be 1 for select and expand.
    pub src2_bit_width: u32,
    /// Elements to read from source-1 (expand: mask bits, i.e. output elements).
    pub num_input_elements: u32,
    /// Scan: the compared value (masked to the bit width). Extract: the first element index.
    pub param_low: u32,
    /// Scan range: the upper bound. Extract: the last element index (inclusive).
    pub param_high: u32,
    /// `QPL_FLAG_*` bits.
    pub flags: Flags,
    /// Output element format.
    pub out_bit_width: OutBitWidth,
    /// Bytes of source-1 to skip (Parquet RLE: after the bit-width byte).
    pub drop_initial_bytes: u32,
    /// Added to every index in an index-list output.
    pub initial_output_index: u32,
}

impl Job {
    /// A job for `operation` with every other field 0 (nominal output, LE packed, no flags).
    pub fn new(operation: Operation) -> Job {
        Job {
            operation,
            ..Job::default()
        }
    }
}

/// The result fields of a successful job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Completion {
    /// Bytes written to the destination.
    pub total_out: u32,
    /// Bits used in the last byte of a nominal 1-bit output (0 when that byte is full, or when
    /// the output is not a bit vector).
    pub last_bit_offset: u32,
    /// Bit-vector outputs: index of the first 1 bit. Arrays: the minimum value.
    pub first_index_min_value: u32,
    /// Bit-vector outputs: index of the last 1 bit. Arrays: the maximum value.
    pub last_index_max_value: u32,
    /// Bit-vector outputs: number of 1 bits. Arrays: wrapping sum of the values.
    pub sum_value: u32,
    /// CRC-32 (or CRC-32C with `Flags::CRC32C`) of the whole source-1 buffer (with
    /// `Flags::DECOMPRESS_ENABLE`: of the whole inflated stream).
    pub crc: u32,
    /// XOR of source-1 read as little-endian 16-bit words (inflated, as `crc`).
    pub xor_checksum: u32,
}
