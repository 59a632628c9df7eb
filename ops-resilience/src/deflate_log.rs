//! A raw deflate stream of a log that only grows, compressed as it grows.
//!
//! Every checkpoint stores the call log whole, deflated. Deflating it whole each time made a
//! checkpoint's cost grow with the run (and a run's with the square of its length). Here each
//! checkpoint compresses only the records added since the last one: the compressor is kept,
//! each piece of input ends with a sync flush (the stream so far stops at a byte boundary and
//! the next piece still refers back into the window), and a checkpoint's stream is the stream
//! so far followed by an empty final block. Any inflater reads it as one stream.

use std::borrow::Cow;

use miniz_oxide::deflate::core::{
    compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus,
};

/// Compression level (miniz's scale, 0-10).
const LEVEL: i32 = 6;

/// An empty stored block marked final: ends a stream that stopped at a byte boundary.
const FINAL_BLOCK: [u8; 5] = [0x01, 0x00, 0x00, 0xff, 0xff];

/// The deflate stream of the first `fed` bytes of a log, and the compressor to go on with. A
/// clone keeps the stream but not the compressor: fed more, it starts again from the log's
/// first byte (the compressor's state is large and a clone is a snapshot that is only read).
#[derive(Default)]
pub(crate) struct GrowingDeflate {
    compressor: Option<Box<CompressorOxide>>,
    fed: usize,
    /// The stream of `log[..fed]`, ending with a sync flush.
    stream: Vec<u8>,
}

impl Clone for GrowingDeflate {
    fn clone(&self) -> Self {
        GrowingDeflate {
            compressor: None,
            fed: self.fed,
            stream: self.stream.clone(),
        }
    }
}

impl std::fmt::Debug for GrowingDeflate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GrowingDeflate({} -> {} bytes)",
            self.fed,
            self.stream.len()
        )
    }
}

impl GrowingDeflate {
    /// Brings the stream up to `log`, which must begin with the bytes fed before (the log only
    /// grows); a log shorter than what was fed starts the stream again.
    pub fn feed(&mut self, log: &[u8]) {
        if log.len() < self.fed || (self.compressor.is_none() && self.fed > 0) {
            *self = GrowingDeflate::default();
        }
        if log.len() == self.fed && self.compressor.is_some() {
            return;
        }
        let c = self.compressor.get_or_insert_with(|| {
            Box::new(CompressorOxide::new(create_comp_flags_from_zip_params(
                LEVEL, 0, 0,
            )))
        });
        let mut input = &log[self.fed..];
        let mut out = [0u8; 16 << 10];
        loop {
            let (status, used, written) = compress(c, input, &mut out, TDEFLFlush::Sync);
            self.stream.extend_from_slice(&out[..written]);
            input = &input[used..];
            match status {
                // Done with the input once it is all taken and the flush fit in `out`.
                TDEFLStatus::Okay if input.is_empty() && written < out.len() => break,
                TDEFLStatus::Okay => {}
                other => unreachable!("deflating into memory cannot fail ({other:?})"),
            }
        }
        self.fed = log.len();
    }

    /// The complete stream of `log`: the stream kept when it was fed exactly `log`, else `log`
    /// deflated whole.
    pub fn stream_of<'a>(&'a self, log: &[u8]) -> Cow<'a, [u8]> {
        if self.fed == log.len() && !self.stream.is_empty() {
            let mut s = Vec::with_capacity(self.stream.len() + FINAL_BLOCK.len());
            s.extend_from_slice(&self.stream);
            s.extend_from_slice(&FINAL_BLOCK);
            Cow::Owned(s)
        } else {
            Cow::Owned(miniz_oxide::deflate::compress_to_vec(log, LEVEL as u8))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use miniz_oxide::inflate::decompress_to_vec;

    /// A log like the call log: a pattern repeating with variations, plus some noise.
    fn log(n: usize) -> Vec<u8> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if state.is_multiple_of(17) {
                    state as u8
                } else {
                    (i % 23) as u8
                }
            })
            .collect()
    }

    #[test]
    fn the_stream_fed_piece_by_piece_inflates_to_the_log_at_every_point() {
        let all = log(300_000);
        let mut d = GrowingDeflate::default();
        let mut whole_sizes = 0;
        let mut grown_sizes = 0;
        for end in [0, 1, 2, 1000, 1001, 40_000, 40_000, 200_000, 300_000] {
            d.feed(&all[..end]);
            let s = d.stream_of(&all[..end]);
            assert_eq!(decompress_to_vec(&s).unwrap(), &all[..end], "at {end}");
            grown_sizes += s.len();
            whole_sizes += miniz_oxide::deflate::compress_to_vec(&all[..end], 6).len();
        }
        // Sync flushes cost a few bytes each, not the compression.
        assert!(
            grown_sizes < whole_sizes + whole_sizes / 10 + 200,
            "{grown_sizes} vs {whole_sizes}"
        );
    }

    #[test]
    fn a_log_it_was_not_fed_is_deflated_whole() {
        let all = log(50_000);
        let mut d = GrowingDeflate::default();
        d.feed(&all[..30_000]);
        // Not fed up to here: deflated whole.
        let s = d.stream_of(&all);
        assert_eq!(decompress_to_vec(&s).unwrap(), all);
        // A clone has the stream but no compressor: fed more, it starts again.
        let mut c = d.clone();
        assert_eq!(
            decompress_to_vec(&c.stream_of(&all[..30_000])).unwrap(),
            &all[..30_000]
        );
        c.feed(&all);
        assert_eq!(decompress_to_vec(&c.stream_of(&all)).unwrap(), all);
        // A shorter log starts again too.
        d.feed(&all[..10]);
        assert_eq!(
            decompress_to_vec(&d.stream_of(&all[..10])).unwrap(),
            &all[..10]
        );
    }
}
