//! Hand-made deflate streams at the edges of the format, through decompress-enabled jobs: the
//! statuses zlib-rs gives them (DZ6), including the streams another inflater (zune-inflate
//! 0.2.54, libdeflate's rules) accepts and zlib refuses (`docs/decompress.md`, "The inflate
//! crate"): a faster inflater in front of zlib-rs must keep every one of these results.

use qpl_fallback::{execute, Flags, Job, Operation, Status};

/// Deflate's code-length alphabet order (RFC 1951 3.2.7).
const PRECODE_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Deflate bits, least significant first, for hand-made streams.
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn new() -> BitWriter {
        BitWriter {
            out: Vec::new(),
            acc: 0,
            n: 0,
        }
    }

    fn put(&mut self, value: u32, n: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += n;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code: most significant bit first.
    fn code(&mut self, code: u32, len: u8) {
        for i in (0..u32::from(len)).rev() {
            self.put((code >> i) & 1, 1);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

fn codes_of(lens: &[u8]) -> Vec<u32> {
    let mut count = [0u32; 16];
    for &l in lens {
        count[usize::from(l)] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; 16];
    for b in 1..16 {
        next[b] = (next[b - 1] + count[b - 1]) << 1;
    }
    lens.iter()
        .map(|&l| {
            let c = next[usize::from(l)];
            next[usize::from(l)] += u32::from(l != 0);
            c
        })
        .collect()
}

/// A dynamic block header: `nlit`, `ndist` codes, then the code-length sequence as
/// (precode symbol, extra bits, extra bit count) under the precode lengths `pre`.
fn dynamic_header(
    w: &mut BitWriter,
    last: bool,
    (nlit, ndist): (usize, usize),
    pre: &[u8; 19],
    sequence: &[(usize, u32, u32)],
) {
    w.put(u32::from(last), 1);
    w.put(2, 2);
    w.put((nlit - 257) as u32, 5);
    w.put((ndist - 1) as u32, 5);
    w.put(15, 4);
    for &s in &PRECODE_ORDER {
        w.put(u32::from(pre[s]), 3);
    }
    let codes = codes_of(pre);
    for &(s, extra, n) in sequence {
        w.code(codes[s], pre[s]);
        w.put(extra, n);
    }
}

/// `lens` written one by one under a precode giving 0..=15 four bits each.
fn plain_lengths(lens: &[u8]) -> ([u8; 19], Vec<(usize, u32, u32)>) {
    let mut pre = [0u8; 19];
    pre[..16].fill(4);
    (pre, lens.iter().map(|&l| (usize::from(l), 0, 0)).collect())
}

/// A final dynamic block with `lens` (literal/length then distance), then `body`
/// written with its codes: (symbol, is a distance symbol) or raw bits.
fn dynamic_block(nlit: usize, lens: &[u8], body: &[Body]) -> Vec<u8> {
    let (pre, seq) = plain_lengths(lens);
    let mut w = BitWriter::new();
    dynamic_header(&mut w, true, (nlit, lens.len() - nlit), &pre, &seq);
    let (lit, dist) = lens.split_at(nlit);
    let (lit_codes, dist_codes) = (codes_of(lit), codes_of(dist));
    for b in body {
        match *b {
            Body::Lit(s) => w.code(lit_codes[s], lit[s]),
            Body::Dist(s) => w.code(dist_codes[s], dist[s]),
            Body::Bits(v, n) => w.put(v, n),
        }
    }
    w.finish()
}

enum Body {
    Lit(usize),
    Dist(usize),
    Bits(u32, u32),
}

/// Streams zune-inflate 0.2.54 accepts and zlib-rs refuses (each checked to differ when
/// the fast path was written), streams both refuse, and valid ones.
fn edge_streams() -> Vec<(&'static str, Vec<u8>)> {
    use Body::*;
    let mut cases = Vec::new();
    let mut l = vec![0u8; 289];
    (l[97], l[256], l[286], l[287], l[288]) = (1, 2, 2, 1, 1);
    cases.push((
        "287 literal/length codes",
        dynamic_block(287, &l, &[Lit(97), Lit(97), Lit(256)]),
    ));
    let mut l = vec![0u8; 257 + 31];
    (l[97], l[256], l[257], l[258]) = (1, 1, 1, 1);
    cases.push((
        "31 distance codes",
        dynamic_block(257, &l, &[Lit(97), Lit(97), Lit(256)]),
    ));
    {
        let mut pre = [0u8; 19];
        (pre[0], pre[1], pre[16], pre[18]) = (2, 2, 2, 2);
        let seq = [
            (18, 86, 7),
            (1, 0, 0),
            (18, 127, 7),
            (18, 9, 7),
            (1, 0, 0),
            (1, 0, 0),
            (16, 0, 2),
        ];
        let mut w = BitWriter::new();
        dynamic_header(&mut w, true, (257, 2), &pre, &seq);
        w.put(0, 1); // 'a' (code 0), then end of block (code 1)
        w.put(1, 1);
        cases.push(("a code-length repeat past the last code", w.finish()));
    }
    let mut l = vec![0u8; 259];
    (l[97], l[98], l[256], l[257]) = (2, 2, 2, 2);
    cases.push((
        "a match under an empty distance code",
        dynamic_block(258, &l, &[Lit(97), Lit(257), Bits(0, 1), Lit(256)]),
    ));
    l[258] = 1;
    cases.push((
        "the unused half of a one-code distance code",
        dynamic_block(258, &l, &[Lit(97), Lit(257), Bits(1, 1), Lit(256)]),
    ));
    cases.push((
        "the used half of a one-code distance code (valid)",
        dynamic_block(258, &l, &[Lit(97), Lit(257), Bits(0, 1), Lit(256)]),
    ));
    let mut l = vec![0u8; 260];
    (l[97], l[98], l[256], l[257], l[258], l[259]) = (2, 2, 2, 2, 1, 1);
    cases.push((
        "a match under a two-code distance code (valid)",
        dynamic_block(258, &l, &[Lit(97), Lit(257), Dist(0), Lit(256)]),
    ));
    let mut l = vec![0u8; 258];
    (l[256], l[257]) = (1, 1);
    cases.push((
        "the unused half of an end-of-block-only code",
        dynamic_block(257, &l, &[Bits(1, 1)]),
    ));
    {
        let mut pre = [0u8; 19];
        pre[8] = 1;
        let mut w = BitWriter::new();
        dynamic_header(&mut w, true, (257, 1), &pre, &[(8, 0, 0); 258]);
        w.put(0, 8);
        cases.push(("a one-code precode", w.finish()));
    }
    let fixed = |body: &dyn Fn(&mut BitWriter)| {
        let mut w = BitWriter::new();
        w.put(1, 1);
        w.put(1, 2);
        body(&mut w);
        w.finish()
    };
    cases.push((
        "fixed literal/length symbol 286",
        fixed(&|w| {
            w.code(0x30 + 97, 8);
            w.code(0xC0 + 6, 8);
            w.code(0, 5);
            w.code(0, 7);
        }),
    ));
    cases.push((
        "fixed distance symbol 30",
        fixed(&|w| {
            w.code(0x30 + 97, 8);
            for _ in 0..100 {
                w.code(0xC0 + 5, 8);
                w.code(0, 5);
            }
            w.code(1, 7);
            w.code(30, 5);
            w.put(0, 13);
            w.code(0, 7);
        }),
    ));
    cases.push((
        "fixed distance too far back",
        fixed(&|w| {
            w.code(0x30 + 97, 8);
            w.code(1, 7);
            w.code(1, 5);
            w.code(0, 7);
        }),
    ));
    let stored = |len: u32, nlen: u32, data: &[u8], last: u32| {
        let mut w = BitWriter::new();
        w.put(last, 1);
        w.put(0, 2);
        w.put(0, 5);
        w.put(len, 16);
        w.put(nlen, 16);
        for &b in data {
            w.put(u32::from(b), 8);
        }
        w.finish()
    };
    cases.push(("stored, wrong NLEN", stored(3, 0xFFFB, b"abc", 1)));
    cases.push(("stored (valid)", stored(3, 0xFFFC, b"abc", 1)));
    cases.push(("stored, cut", stored(5, 0xFFFA, b"abc", 1)));
    cases.push((
        "stored, not final, then nothing",
        stored(3, 0xFFFC, b"abc", 0),
    ));
    let mut trailing = stored(3, 0xFFFC, b"abc", 1);
    trailing.extend_from_slice(&[0xFF; 9]);
    cases.push(("stored, then bytes after the final block", trailing));
    cases.push(("empty final fixed block", fixed(&|w| w.code(0, 7))));
    cases.push(("reserved block type", vec![0b111, 0, 0]));
    cases.push(("nothing", vec![]));
    cases
}

/// Extract of every inflated byte (8-bit elements) with checksums: the whole stream is read.
fn run(stream: &[u8], n: u32) -> Result<Vec<u8>, Status> {
    let job = Job {
        operation: Operation::Extract,
        src1_bit_width: 8,
        num_input_elements: n,
        param_low: 0,
        param_high: n - 1,
        flags: Flags::DECOMPRESS_ENABLE,
        ..Job::default()
    };
    let mut dst = vec![0u8; n as usize];
    execute(&job, stream, None, &mut dst).map(|done| dst[..done.total_out as usize].to_vec())
}

fn stream(name: &str) -> Vec<u8> {
    edge_streams()
        .into_iter()
        .find(|c| c.0 == name)
        .unwrap_or_else(|| panic!("no stream {name}"))
        .1
}

#[test]
fn streams_another_inflater_accepts_get_zlibs_statuses() {
    let refused = [
        ("287 literal/length codes", Status::WRONG_NUM_LL_CODES_ERR),
        ("31 distance codes", Status::WRONG_NUM_LL_CODES_ERR),
        (
            "a code-length repeat past the last code",
            Status::FIRST_LL_CODE_16_ERR,
        ),
        (
            "a match under an empty distance code",
            Status::BAD_D_CODE_ERR,
        ),
        (
            "the unused half of a one-code distance code",
            Status::BAD_D_CODE_ERR,
        ),
        (
            "the unused half of an end-of-block-only code",
            Status::BAD_LL_CODE_ERR,
        ),
        ("fixed literal/length symbol 286", Status::BAD_LL_CODE_ERR),
        ("fixed distance symbol 30", Status::BAD_D_CODE_ERR),
    ];
    for (name, status) in refused {
        assert_eq!(run(&stream(name), 1), Err(status), "{name}");
    }
}

#[test]
fn streams_at_the_edges() {
    assert_eq!(
        run(
            &stream("the used half of a one-code distance code (valid)"),
            4
        ),
        Ok(b"aaaa".to_vec())
    );
    assert_eq!(
        run(&stream("a match under a two-code distance code (valid)"), 4),
        Ok(b"aaaa".to_vec())
    );
    assert_eq!(run(&stream("stored (valid)"), 3), Ok(b"abc".to_vec()));
    assert_eq!(
        run(&stream("stored, then bytes after the final block"), 3),
        Ok(b"abc".to_vec())
    );
    assert_eq!(
        run(&stream("fixed distance too far back"), 1),
        Err(Status::REF_BEFORE_START_ERR)
    );
    assert_eq!(
        run(&stream("stored, wrong NLEN"), 1),
        Err(Status::INVALID_STORED_LEN_ERR)
    );
    assert_eq!(
        run(&stream("a one-code precode"), 1),
        Err(Status::BAD_CL_CODE_LEN_ERR)
    );
    // An empty source-1 is refused before inflating (DZ3).
    assert_eq!(run(&stream("nothing"), 1), Err(Status::SIZE_ERR));
    for cut in ["stored, cut", "stored, not final, then nothing"] {
        assert_eq!(run(&stream(cut), 1), Err(Status::SRC_IS_SHORT_ERR), "{cut}");
    }
    // With checksums the whole page is read: every cut of a valid stream fails.
    for (name, whole) in edge_streams() {
        if name.ends_with("(valid)") {
            for cut in 0..whole.len() {
                assert!(run(&whole[..cut], 1).is_err(), "{name} cut at {cut}");
            }
        }
    }
}
