//! QPL status codes as a `u32` newtype.
//!
//! A newtype, not a Rust enum: a newer QPL can return codes an older header lacks, and an
//! out-of-range Rust enum would be undefined behaviour at the FFI boundary.

use std::fmt;

/// A QPL status code (`qpl_status`). `Status::OK` is success; every other value is an error or
/// an in-progress state. The constants carry QPL's names without the `QPL_STS_` prefix.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Status(pub u32);

/// What a status means for the caller, coarsely: enough to decide whether to retry, fall back,
/// fix the job or fix the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StatusKind {
    /// Success.
    Ok,
    /// The job has not finished yet (asynchronous use).
    Pending,
    /// The accelerator's work queues are full: retry later or run on the CPU.
    Busy,
    /// A job field or buffer length is invalid: the job itself must be fixed.
    InvalidJob,
    /// The mode or operation is not supported here (by this path, device or work queue).
    Unsupported,
    /// The source data is malformed or too short for the job.
    InvalidInput,
    /// The destination is too small, or an output value does not fit the output format.
    OutputOverflow,
    /// The accelerator or its driver reported a fault.
    Device,
    /// The hardware path could not be initialised (driver library or work queues missing).
    Init,
    /// Any other code (compression statuses, codes unknown to this version).
    Other,
}

#[allow(missing_docs)] // Each constant's doc is QPL's own description, generated from status.h.
impl Status {
    /// 0: Operation completed successfully.
    pub const OK: Status = Status(0);
    /// 1: The job is still being processed.
    pub const BEING_PROCESSED: Status = Status(1);
    /// 2: Compression/Decompression operation filled output buffer before finishing input.
    pub const MORE_OUTPUT_NEEDED: Status = Status(2);
    /// 3: Compress/Decompress operation need more input.
    pub const MORE_INPUT_NEEDED: Status = Status(3);
    /// 4: A job after a LAST job was not marked as FIRST.
    pub const JOB_NOT_CONTINUABLE_ERR: Status = Status(4);
    /// 5: Descriptor can't be submitted into filled work queue.
    pub const QUEUES_ARE_BUSY_ERR: Status = Status(5);
    /// 6: Unexpected internal error condition.
    pub const LIBRARY_INTERNAL_ERR: Status = Status(6);
    /// 7: The job being checked/waited has not been submitted.
    pub const JOB_NOT_SUBMITTED: Status = Status(7);
    /// 8: Work queue not configured to support operation.
    pub const NOT_SUPPORTED_BY_WQ: Status = Status(8);
    /// 50: Null pointer error.
    pub const NULL_PTR_ERR: Status = Status(50);
    /// 51: Non-supported value in the qpl_job operation field.
    pub const OPERATION_ERR: Status = Status(51);
    /// 52: Indicates an error if the requested mode is not supported.
    pub const NOT_SUPPORTED_MODE_ERR: Status = Status(52);
    /// 53: Indicates that the qpl_job structure does not match the operation.
    pub const BAD_JOB_STRUCT_ERR: Status = Status(53);
    /// 54: Incorrect value for the qpl_path input parameter.
    pub const PATH_ERR: Status = Status(54);
    /// 55: Invalid combination of fields in the qpl_job structure.
    pub const INVALID_PARAM_ERR: Status = Status(55);
    /// 56: qpl_job flags field contains conflicted values.
    pub const FLAG_CONFLICT_ERR: Status = Status(56);
    /// 57: Incorrect size error.
    pub const SIZE_ERR: Status = Status(57);
    /// 58: Buffer exceeds max size supported by library.
    pub const BUFFER_TOO_LARGE_ERR: Status = Status(58);
    /// 59: Buffers overlap.
    pub const BUFFER_OVERLAP_ERR: Status = Status(59);
    /// 60: Incorrect polynomial value for CRC64.
    pub const CRC64_BAD_POLYNOM: Status = Status(60);
    /// 70: Set is too large for operation.
    pub const SET_TOO_LARGE_ERR: Status = Status(70);
    /// 71: Non-supported value in the qpl_job parser field.
    pub const PARSER_ERR: Status = Status(71);
    /// 72: qpl_job out_bit_width field contains invalid value or QPL_FLAG_FORCE_ARRAY_OUTPUT is set with nominal out_bit_width.
    pub const OUT_FORMAT_ERR: Status = Status(72);
    /// 73: Incorrect dropBits value (param_low + param_high must be beyond 0..32).
    pub const DROP_BITS_OVERFLOW_ERR: Status = Status(73);
    /// 74: qpl_job bit-width field contains an invalid value for current output format.
    pub const BIT_WIDTH_OUT_EXTENDED_ERR: Status = Status(74);
    /// 75: qpl_job drop_initial_bytes field contains an invalid value.
    pub const DROP_BYTES_ERR: Status = Status(75);
    /// 80: Flags specify NO_HDRS and DYNAMIC_HUFFMAN, but no Huffman table provided.
    pub const MISSING_HUFFMAN_TABLE_ERR: Status = Status(80);
    /// 81: Invalid Huffman table data.
    pub const INVALID_HUFFMAN_TABLE_ERR: Status = Status(81);
    /// 82: Indexing enabled but Indexing table is not set.
    pub const MISSING_INDEX_TABLE_ERR: Status = Status(82);
    /// 83: The style of a compression job does not match the style of the previous related job.
    pub const INVALID_COMPRESS_STYLE_ERR: Status = Status(83);
    /// 84: Inflate needs dictionary to perform decompression.
    pub const INFLATE_NEED_DICT_ERR: Status = Status(84);
    /// 85: The qpl_job field for decompression manipulation is incorrect.
    pub const INVALID_DECOMP_END_PROC_ERR: Status = Status(85);
    /// 86: Invalid block size used during indexing.
    pub const INVALID_BLOCK_SIZE_ERR: Status = Status(86);
    /// 87: Compression level is not supported.
    pub const UNSUPPORTED_COMPRESSION_LEVEL: Status = Status(87);
    /// 88: Incorrect table type used.
    pub const HUFFMAN_TABLE_TYPE_ERROR: Status = Status(88);
    /// 90: Unsupported Serialization format.
    pub const SERIALIZATION_FORMAT_ERROR: Status = Status(90);
    /// 91: Deserialization can't re-create the table from the input stream.
    pub const SERIALIZATION_CORRUPTED_DUMP: Status = Status(91);
    /// 95: Limitation in IAA 1.0, Huffman only BE16 decompression cannot work if ignore_end_bits is greater than 7.
    pub const HUFFMAN_BE_IGNORE_MORE_THAN_7_BITS_ERR: Status = Status(95);
    /// 96: Huffman only BE16 decompression input has an odd number of bytes.
    pub const HUFFMAN_BE_ODD_INPUT_SIZE_ERR: Status = Status(96);
    /// 100: Currently unused.
    pub const INVALID_DEFLATE_DATA_ERR: Status = Status(100);
    /// 101: Not enough memory for the operation.
    pub const NO_MEM_ERR: Status = Status(101);
    /// 102: Indexing buffer is too small.
    pub const INDEX_ARRAY_TOO_SMALL: Status = Status(102);
    /// 103: Mini-block creation error.
    pub const INDEX_GENERATION_ERR: Status = Status(103);
    /// 104: Invalid GZIP/Zlib header.
    pub const ARCHIVE_HEADER_ERR: Status = Status(104);
    /// 105: Gzip/Zlib header specifies unsupported compress method.
    pub const ARCHIVE_UNSUP_METHOD_ERR: Status = Status(105);
    /// 106: Not able to allocate Huffman table object.
    pub const OBJECT_ALLOCATION_ERR: Status = Status(106);
    /// 201: Reached the end of the input stream before decoding header and header is too big to fit in input buffer.
    pub const BIG_HEADER_ERR: Status = Status(201);
    /// 202: Bad CL code.
    pub const UNDEF_CL_CODE_ERR: Status = Status(202);
    /// 203: First code in LL tree is 16.
    pub const FIRST_LL_CODE_16_ERR: Status = Status(203);
    /// 204: First code in D tree is 16.
    pub const FIRST_D_CODE_16_ERR: Status = Status(204);
    /// 205: All LL codes are specified with 0 length.
    pub const NO_LL_CODE_ERR: Status = Status(205);
    /// 206: After parsing LL code lengths, total codes != expected value.
    pub const WRONG_NUM_LL_CODES_ERR: Status = Status(206);
    /// 207: After parsing D code lengths, total codes != expected value.
    pub const WRONG_NUM_DIST_CODES_ERR: Status = Status(207);
    /// 208: First CL code of length N is greater than 2^N-1.
    pub const BAD_CL_CODE_LEN_ERR: Status = Status(208);
    /// 209: First LL code of length N is greater than 2^N-1.
    pub const BAD_LL_CODE_LEN_ERR: Status = Status(209);
    /// 210: First D code of length N is greater than 2^N-1.
    pub const BAD_DIST_CODE_LEN_ERR: Status = Status(210);
    /// 211: Incorrect LL code.
    pub const BAD_LL_CODE_ERR: Status = Status(211);
    /// 212: Incorrect D code.
    pub const BAD_D_CODE_ERR: Status = Status(212);
    /// 213: Invalid type of deflate block.
    pub const INVALID_BLOCK_TYPE: Status = Status(213);
    /// 214: Length of stored block doesn't match inverse length.
    pub const INVALID_STORED_LEN_ERR: Status = Status(214);
    /// 215: EOB flag was set but last token was not EOB.
    pub const BAD_EOF_ERR: Status = Status(215);
    /// 216: Decoded Length code is 0 or greater 258.
    pub const BAD_LEN_ERR: Status = Status(216);
    /// 217: Decoded Distance is 0 or greater than History Buffer.
    pub const BAD_DIST_ERR: Status = Status(217);
    /// 218: Distance of reference is before start of file.
    pub const REF_BEFORE_START_ERR: Status = Status(218);
    /// 219: Library has input data, but is not making forward progress.
    pub const TIMEOUT_ERR: Status = Status(219);
    /// 220: PRLE format is incorrect or is truncated.
    pub const PRLE_FORMAT_ERR: Status = Status(220);
    /// 221: Output index value is greater than max available for current output data type.
    pub const OUTPUT_OVERFLOW_ERR: Status = Status(221);
    /// 222: Internal Error Code.
    pub const INTL_AECS_ERR: Status = Status(222);
    /// 223: Source 1 contained fewer than expected elements/bytes.
    pub const SRC1_TOO_SMALL_ERR: Status = Status(223);
    /// 224: Source 2 contained fewer than expected elements/bytes.
    pub const SRC2_IS_SHORT_ERR: Status = Status(224);
    /// 225: qpl_job destination buffer has less bytes than required to process num_input_elements/bytes.
    pub const DST_IS_SHORT_ERR: Status = Status(225);
    /// 226: Internal Error Code.
    pub const INTL_DIST_SPANS_MINI_BLOCKS: Status = Status(226);
    /// 227: Internal Error Code.
    pub const INTL_LEN_SPANS_MINI_BLOCKS: Status = Status(227);
    /// 228: Internal Error Code.
    pub const INTL_VERIF_INVALID_BLOCK_SIZE: Status = Status(228);
    /// 229: Internal Error Code.
    pub const INTL_VERIFY_ERR: Status = Status(229);
    /// 230: Compressor tried to use an invalid huffman code.
    pub const INVALID_HUFFCODE_ERR: Status = Status(230);
    /// 231: Bit width is out of range [1..32].
    pub const BIT_WIDTH_ERR: Status = Status(231);
    /// 232: The input stream ended before specified Number of input Element was seen.
    pub const SRC_IS_SHORT_ERR: Status = Status(232);
    /// 233: Internal Error Code.
    pub const INTL_INVALID_COUNT: Status = Status(233);
    /// 235: The number of LL codes specified in the DEFLATE header exceed 286.
    pub const TOO_MANY_LL_CODES_ERR: Status = Status(235);
    /// 236: The number of D codes specified in the DEFLATE header exceed 30.
    pub const TOO_MANY_D_CODES_ERR: Status = Status(236);
    /// 300: Internal Status Code.
    pub const INTL_INPROG: Status = Status(300);
    /// 301: Internal Status Code.
    pub const INTL_SUCCESS: Status = Status(301);
    /// 303: Page Fault occurred on Read.
    pub const INTL_PAGE_FAULT: Status = Status(303);
    /// 304: Internal Status Code.
    pub const INTL_INVALID_PAGE_REQ: Status = Status(304);
    /// 310: Internal Status Code.
    pub const INTL_ANALYTIC_ERROR: Status = Status(310);
    /// 311: Internal Status Code.
    pub const INTL_OUTPUT_OVERFLOW: Status = Status(311);
    /// 316: Internal Status Code.
    pub const INTL_UNSUPPORTED_OPCODE: Status = Status(316);
    /// 317: Internal Status Code.
    pub const INTL_INVALID_OP_FLAG: Status = Status(317);
    /// 318: Internal Status Code.
    pub const INTL_NONZERO_RESERVED_FIELD: Status = Status(318);
    /// 319: Invalid value for transfer size or maximum destination size.
    pub const TRANSFER_SIZE_INVALID: Status = Status(319);
    /// 322: Internal Status Code.
    pub const INTL_OVERLAPPING_BUFFERS: Status = Status(322);
    /// 325: Internal Status Code.
    pub const INTL_INVALID_COMP_HANDLE: Status = Status(325);
    /// 326: Internal Status Code.
    pub const INTL_TRANSLATION_PAGE_FAULT: Status = Status(326);
    /// 327: Internal Status Code.
    pub const INTL_COMPL_RECORD_UNALIGN: Status = Status(327);
    /// 328: Internal Status Code.
    pub const INTL_MISALIGNED_ADDRESS: Status = Status(328);
    /// 329: Internal Status Code.
    pub const INTL_PRIVILIGE_ERROR: Status = Status(329);
    /// 330: Internal Status Code.
    pub const INTL_TRAFFIC_CLASS_ERROR: Status = Status(330);
    /// 331: Internal Status Code.
    pub const INTL_DRAIN_PAGE_FAULT: Status = Status(331);
    /// 332: Internal Status Code.
    pub const INTL_INVALID_UR_CA_RESPONSE: Status = Status(332);
    /// 333: Internal Status Code.
    pub const INTL_READBACK_TIMEOUT: Status = Status(333);
    /// 334: Internal Status Code.
    pub const INTL_HARDWARE_TIMEOUT: Status = Status(334);
    /// 335: Internal Status Code.
    pub const INTL_PAGE_REQUEST_TIMEOUT: Status = Status(335);
    /// 336: Internal Status Code.
    pub const INTL_WATCHDOG_TIMER_EXPIRE: Status = Status(336);
    /// 340: Internal Status Code.
    pub const INTL_PASID_ERROR: Status = Status(340);
    /// 341: Internal Status Code.
    pub const INTL_INVALID_IDPTE_HANDLE: Status = Status(341);
    /// 342: Internal Status Code.
    pub const INTL_IDTPE_PERMISSION_ERROR: Status = Status(342);
    /// 343: Internal Status Code.
    pub const INTL_ID_WINDOW_ERROR: Status = Status(343);
    /// 344: Internal Status Code.
    pub const INTL_UPDATE_INVALID_IDPTE: Status = Status(344);
    /// 345: Internal Status Code.
    pub const INTL_INVALID_WINDOW_CONTROL: Status = Status(345);
    /// 346: Internal Status Code.
    pub const INTL_INACCESSIBLE_DOMAIN: Status = Status(346);
    /// 348: Internal Status Code.
    pub const INTL_INVALID_DECOMP_FLAG: Status = Status(348);
    /// 349: Internal Status Code.
    pub const INTL_INVALID_FILTER_FLAG: Status = Status(349);
    /// 350: Internal Status Code.
    pub const INTL_INVALID_INPUT_SIZE: Status = Status(350);
    /// 351: Number Elements for Filter operation is 0.
    pub const INVALID_NUM_ELEM: Status = Status(351);
    /// 352: Invalid source-1 bit-width.
    pub const INVALID_SRC1_WIDTH: Status = Status(352);
    /// 353: Invert Output flag was used when the output was not a bit-vector.
    pub const INV_OUTPUT: Status = Status(353);
    /// 431: Page Fault occurred on Write.
    pub const INTL_W_PAGE_FAULT: Status = Status(431);
    /// 432: Internal Status Code.
    pub const INTL_W_INVALID_PAGE_REQ: Status = Status(432);
    /// 454: Internal Status Code.
    pub const INTL_W_TRANSLATION_PF: Status = Status(454);
    /// 500: Executing using qpl_path_hardware is not supported, check library System Requirements.
    pub const INIT_HW_NOT_SUPPORTED: Status = Status(500);
    /// 501: libaccel is not found or not compatible.
    pub const INIT_LIBACCEL_NOT_FOUND: Status = Status(501);
    /// 502: libaccel internal error.
    pub const INIT_LIBACCEL_ERROR: Status = Status(502);
    /// 503: Supported and enabled work queues are not found (May be due to lack of privileges e.g. lack of sudo on linux).
    pub const INIT_WORK_QUEUES_NOT_AVAILABLE: Status = Status(503);
}

impl Status {
    /// QPL's name for this status without the `QPL_STS_` prefix, or `None` for a code this
    /// version does not know.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "OK",
            1 => "BEING_PROCESSED",
            2 => "MORE_OUTPUT_NEEDED",
            3 => "MORE_INPUT_NEEDED",
            4 => "JOB_NOT_CONTINUABLE_ERR",
            5 => "QUEUES_ARE_BUSY_ERR",
            6 => "LIBRARY_INTERNAL_ERR",
            7 => "JOB_NOT_SUBMITTED",
            8 => "NOT_SUPPORTED_BY_WQ",
            50 => "NULL_PTR_ERR",
            51 => "OPERATION_ERR",
            52 => "NOT_SUPPORTED_MODE_ERR",
            53 => "BAD_JOB_STRUCT_ERR",
            54 => "PATH_ERR",
            55 => "INVALID_PARAM_ERR",
            56 => "FLAG_CONFLICT_ERR",
            57 => "SIZE_ERR",
            58 => "BUFFER_TOO_LARGE_ERR",
            59 => "BUFFER_OVERLAP_ERR",
            60 => "CRC64_BAD_POLYNOM",
            70 => "SET_TOO_LARGE_ERR",
            71 => "PARSER_ERR",
            72 => "OUT_FORMAT_ERR",
            73 => "DROP_BITS_OVERFLOW_ERR",
            74 => "BIT_WIDTH_OUT_EXTENDED_ERR",
            75 => "DROP_BYTES_ERR",
            80 => "MISSING_HUFFMAN_TABLE_ERR",
            81 => "INVALID_HUFFMAN_TABLE_ERR",
            82 => "MISSING_INDEX_TABLE_ERR",
            83 => "INVALID_COMPRESS_STYLE_ERR",
            84 => "INFLATE_NEED_DICT_ERR",
            85 => "INVALID_DECOMP_END_PROC_ERR",
            86 => "INVALID_BLOCK_SIZE_ERR",
            87 => "UNSUPPORTED_COMPRESSION_LEVEL",
            88 => "HUFFMAN_TABLE_TYPE_ERROR",
            90 => "SERIALIZATION_FORMAT_ERROR",
            91 => "SERIALIZATION_CORRUPTED_DUMP",
            95 => "HUFFMAN_BE_IGNORE_MORE_THAN_7_BITS_ERR",
            96 => "HUFFMAN_BE_ODD_INPUT_SIZE_ERR",
            100 => "INVALID_DEFLATE_DATA_ERR",
            101 => "NO_MEM_ERR",
            102 => "INDEX_ARRAY_TOO_SMALL",
            103 => "INDEX_GENERATION_ERR",
            104 => "ARCHIVE_HEADER_ERR",
            105 => "ARCHIVE_UNSUP_METHOD_ERR",
            106 => "OBJECT_ALLOCATION_ERR",
            201 => "BIG_HEADER_ERR",
            202 => "UNDEF_CL_CODE_ERR",
            203 => "FIRST_LL_CODE_16_ERR",
            204 => "FIRST_D_CODE_16_ERR",
            205 => "NO_LL_CODE_ERR",
            206 => "WRONG_NUM_LL_CODES_ERR",
            207 => "WRONG_NUM_DIST_CODES_ERR",
            208 => "BAD_CL_CODE_LEN_ERR",
            209 => "BAD_LL_CODE_LEN_ERR",
            210 => "BAD_DIST_CODE_LEN_ERR",
            211 => "BAD_LL_CODE_ERR",
            212 => "BAD_D_CODE_ERR",
            213 => "INVALID_BLOCK_TYPE",
            214 => "INVALID_STORED_LEN_ERR",
            215 => "BAD_EOF_ERR",
            216 => "BAD_LEN_ERR",
            217 => "BAD_DIST_ERR",
            218 => "REF_BEFORE_START_ERR",
            219 => "TIMEOUT_ERR",
            220 => "PRLE_FORMAT_ERR",
            221 => "OUTPUT_OVERFLOW_ERR",
            222 => "INTL_AECS_ERR",
            223 => "SRC1_TOO_SMALL_ERR",
            224 => "SRC2_IS_SHORT_ERR",
            225 => "DST_IS_SHORT_ERR",
            226 => "INTL_DIST_SPANS_MINI_BLOCKS",
            227 => "INTL_LEN_SPANS_MINI_BLOCKS",
            228 => "INTL_VERIF_INVALID_BLOCK_SIZE",
            229 => "INTL_VERIFY_ERR",
            230 => "INVALID_HUFFCODE_ERR",
            231 => "BIT_WIDTH_ERR",
            232 => "SRC_IS_SHORT_ERR",
            233 => "INTL_INVALID_COUNT",
            235 => "TOO_MANY_LL_CODES_ERR",
            236 => "TOO_MANY_D_CODES_ERR",
            300 => "INTL_INPROG",
            301 => "INTL_SUCCESS",
            303 => "INTL_PAGE_FAULT",
            304 => "INTL_INVALID_PAGE_REQ",
            310 => "INTL_ANALYTIC_ERROR",
            311 => "INTL_OUTPUT_OVERFLOW",
            316 => "INTL_UNSUPPORTED_OPCODE",
            317 => "INTL_INVALID_OP_FLAG",
            318 => "INTL_NONZERO_RESERVED_FIELD",
            319 => "TRANSFER_SIZE_INVALID",
            322 => "INTL_OVERLAPPING_BUFFERS",
            325 => "INTL_INVALID_COMP_HANDLE",
            326 => "INTL_TRANSLATION_PAGE_FAULT",
            327 => "INTL_COMPL_RECORD_UNALIGN",
            328 => "INTL_MISALIGNED_ADDRESS",
            329 => "INTL_PRIVILIGE_ERROR",
            330 => "INTL_TRAFFIC_CLASS_ERROR",
            331 => "INTL_DRAIN_PAGE_FAULT",
            332 => "INTL_INVALID_UR_CA_RESPONSE",
            333 => "INTL_READBACK_TIMEOUT",
            334 => "INTL_HARDWARE_TIMEOUT",
            335 => "INTL_PAGE_REQUEST_TIMEOUT",
            336 => "INTL_WATCHDOG_TIMER_EXPIRE",
            340 => "INTL_PASID_ERROR",
            341 => "INTL_INVALID_IDPTE_HANDLE",
            342 => "INTL_IDTPE_PERMISSION_ERROR",
            343 => "INTL_ID_WINDOW_ERROR",
            344 => "INTL_UPDATE_INVALID_IDPTE",
            345 => "INTL_INVALID_WINDOW_CONTROL",
            346 => "INTL_INACCESSIBLE_DOMAIN",
            348 => "INTL_INVALID_DECOMP_FLAG",
            349 => "INTL_INVALID_FILTER_FLAG",
            350 => "INTL_INVALID_INPUT_SIZE",
            351 => "INVALID_NUM_ELEM",
            352 => "INVALID_SRC1_WIDTH",
            353 => "INV_OUTPUT",
            431 => "INTL_W_PAGE_FAULT",
            432 => "INTL_W_INVALID_PAGE_REQ",
            454 => "INTL_W_TRANSLATION_PF",
            500 => "INIT_HW_NOT_SUPPORTED",
            501 => "INIT_LIBACCEL_NOT_FOUND",
            502 => "INIT_LIBACCEL_ERROR",
            503 => "INIT_WORK_QUEUES_NOT_AVAILABLE",
            _ => return None,
        })
    }

    /// True for `Status::OK`.
    pub fn is_ok(self) -> bool {
        self == Status::OK
    }

    /// The coarse meaning of this status.
    pub fn kind(self) -> StatusKind {
        match self.0 {
            0 => StatusKind::Ok,
            1 | 7 => StatusKind::Pending,
            5 => StatusKind::Busy,
            8 | 52 | 500 => StatusKind::Unsupported,
            50..=99 => StatusKind::InvalidJob,
            220 | 223 | 224 | 231 | 232 => StatusKind::InvalidInput,
            221 | 225 => StatusKind::OutputOverflow,
            6 | 222 | 300..=499 => StatusKind::Device,
            501..=599 => StatusKind::Init,
            _ => StatusKind::Other,
        }
    }

    /// A sentence a user can act on, for the statuses analytics jobs produce.
    pub fn explanation(self) -> &'static str {
        match self.0 {
            0 => "the job completed",
            5 => "the accelerator's work queues are full; retry or run on the CPU",
            8 => "the work queue is not configured for this operation",
            50 => "a required buffer is missing (source-2 for select/expand)",
            51 => "the operation is not an analytics operation",
            52 => "this mode is not supported on this path",
            55 => "select and expand require initial_output_index = 0",
            57 => "a buffer is empty or num_input_elements is 0",
            58 => "a buffer is larger than 4 GiB, which a job cannot describe",
            59 => "source and destination buffers overlap",
            71 => "the parser must be le_packed (0), be_packed (1) or parquet_rle (2)",
            72 => "out_bit_width must be 0..=3 and not narrower than the element width; force-array output needs a non-nominal width",
            75 => "drop_initial_bytes is larger than the source, above 65535, or set for select/expand",
            220 => "the Parquet RLE stream is malformed (a run header longer than 4 bytes)",
            221 => "an output index does not fit the chosen output width",
            224 | 232 => "the source stream ends before num_input_elements values",
            225 => "the destination buffer is too small for the output",
            231 => "the bit width must be 1..=32 (for Parquet RLE: the stream's first byte), and src2_bit_width must be 1 for select/expand",
            501 => "libaccel-config (the IAA driver library) is not installed",
            503 => "no enabled IAA shared work queue is available to this process (none configured, or no permission on /dev/iax)",
            _ if self.0 >= 300 && self.0 < 500 => "the accelerator reported a fault",
            _ => "see QPL's status.h",
        }
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{}({})", name, self.0),
            None => write!(f, "Status({})", self.0),
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self, self.explanation())
    }
}

impl std::error::Error for Status {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds_of_analytics_statuses() {
        assert_eq!(Status::PRLE_FORMAT_ERR, Status(220));
        assert_eq!(Status::SRC_IS_SHORT_ERR.name(), Some("SRC_IS_SHORT_ERR"));
        assert_eq!(Status(232).kind(), StatusKind::InvalidInput);
        assert_eq!(Status(225).kind(), StatusKind::OutputOverflow);
        assert_eq!(Status(5).kind(), StatusKind::Busy);
        assert_eq!(Status(503).kind(), StatusKind::Init);
        assert_eq!(Status(9999).name(), None);
        assert_eq!(format!("{:?}", Status(9999)), "Status(9999)");
        assert!(format!("{}", Status(231)).starts_with("BIT_WIDTH_ERR(231)"));
    }
}
