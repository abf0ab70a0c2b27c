//! The deal-stream tests counted on a thread of their own while the lines are parsed.
//!
//! Reading 52-card decks on one core, the parsing and the marginal tally take about half the
//! time and the deal stream (the slot tables, the Kendall kernel, the fingerprints) the other
//! half. The stream needs every deal in line order, and nothing but the stream reads its counts
//! before the end, so it can run beside the parser: the reader appends each deal to a buffer,
//! full buffers go to the stream's thread, which counts them in order with
//! [`DealStream::add_deals`] and hands them back. The counts are the stream's own, whatever the
//! split into buffers: `add_deals` counts the same as [`DealStream::add`] on each deal. The
//! fingerprints are sorted after the join, by [`DealStream::finish`], on both cores.
//!
//! Memory: [`BUFFERS`] buffers of at most [`BUFFER_CARDS`] cards (64 KiB each) are in use at
//! once, one filling and the others waiting or being counted; when all are taken, the reader
//! waits for one to come back.

use std::panic;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::{self, JoinHandle};

use crate::engine::algorithms::Card;
use crate::engine::deal_stream::DealStream;

/// The buffers made, at most: one being filled, the others queued or being counted.
pub const BUFFERS: usize = 4;

/// Cards a buffer holds before it is sent: 64 KiB of cards, a few hundred 52-card decks, so
/// that a hand-over costs nothing beside the counting and a buffer is still in the cache when
/// the stream's thread reads it.
pub const BUFFER_CARDS: usize = 1 << 15;

/// Most deals in one buffer: the stream's 16-bit slot counters take up to 65,535 pairs
/// between two flushes, and a call of `add_deals` must not exceed them (1-card deals, say).
const MOST_DEALS: usize = 4096;

/// A [`DealStream`] counting on its own thread, fed deal by deal or batch by batch, in order.
pub struct StreamThread {
    /// The deals not yet sent, laid end to end.
    filling: Vec<Card>,
    /// Cards at which `filling` is sent: a whole number of deals.
    capacity: usize,
    /// Buffers made so far (at most [`BUFFERS`]).
    made: usize,
    full: SyncSender<Vec<Card>>,
    empty: Receiver<Vec<Card>>,
    counting: JoinHandle<DealStream>,
}

impl StreamThread {
    /// Move `stream`, of deals of `dealt` cards, to a thread of its own to count there; None
    /// when no thread can be started (the caller makes a stream again and counts in place).
    pub fn start(stream: DealStream, dealt: usize) -> Option<StreamThread> {
        let dealt = dealt.max(1);
        let capacity = (BUFFER_CARDS / dealt).clamp(8, MOST_DEALS) * dealt;
        let (full, queued) = mpsc::sync_channel::<Vec<Card>>(BUFFERS);
        let (give_back, empty) = mpsc::sync_channel::<Vec<Card>>(BUFFERS);
        let counting = thread::Builder::new()
            .name("deal stream".to_string())
            .spawn(move || {
                let mut stream = stream;
                for mut deals in queued {
                    stream.add_deals(&deals);
                    deals.clear();
                    // The reader takes no buffer back after its last: an error is no matter.
                    let _ = give_back.send(deals);
                }
                // The fingerprints are sorted by `DealStream::finish`, one list on two threads.
                stream
            })
            .ok()?;
        Some(StreamThread {
            filling: Vec::with_capacity(capacity),
            capacity,
            made: 1,
            full,
            empty,
            counting,
        })
    }

    /// Count the next deals (one or more, laid end to end), after those added before.
    #[inline]
    pub fn add(&mut self, deals: &[Card]) {
        if !self.filling.is_empty() && self.filling.len() + deals.len() > self.capacity {
            self.send();
        }
        self.filling.extend_from_slice(deals);
    }

    /// Send the buffer being filled and take another: a new one while fewer than [`BUFFERS`]
    /// are made, else the next one given back (waiting for it).
    fn send(&mut self) {
        let next = if self.made < BUFFERS {
            self.made += 1;
            Vec::with_capacity(self.capacity)
        } else {
            // No buffer comes back only when the thread is gone (it panicked): the send below
            // fails, and `finish` passes the panic on.
            self.empty
                .recv()
                .unwrap_or_else(|_| Vec::with_capacity(self.capacity))
        };
        let deals = std::mem::replace(&mut self.filling, next);
        // A failed send leaves the deals uncounted, but `finish` then panics with the thread.
        let _ = self.full.send(deals);
    }

    /// The stream, every deal added counted. A panic of the stream's thread is passed on here.
    pub fn finish(self) -> DealStream {
        let StreamThread {
            filling,
            full,
            counting,
            ..
        } = self;
        if !filling.is_empty() {
            let _ = full.send(filling);
        }
        drop(full);
        match counting.join() {
            Ok(stream) => stream,
            Err(payload) => panic::resume_unwind(payload),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal_stream::{DealStreamOptions, RepeatSource};
    use crate::engine::marginal::LANES;

    /// A Fisher–Yates shuffle of `0..n` from a xorshift64* stream.
    fn shuffled(n: usize, state: &mut u64) -> Vec<Card> {
        let mut deck: Vec<Card> = (0..n as Card).collect();
        for i in (1..n).rev() {
            *state ^= *state >> 12;
            *state ^= *state << 25;
            *state ^= *state >> 27;
            let word = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32;
            deck.swap(i, (word % (i as u64 + 1)) as usize);
        }
        deck
    }

    #[test]
    fn deals_counted_on_the_thread_are_counted_as_in_place() {
        // Groups of eight decks as the marginal batch hands them over, and single decks in
        // between as the careful parser gives them: the stream must count as one fed deck by
        // deck. 3,000 decks fill more buffers than the thread has, so buffers come back and are
        // refilled.
        for n in [20usize, 52, 100] {
            let options = DealStreamOptions {
                deck: n,
                dealt: n,
                repeats: RepeatSource::Fingerprints { limit: 1 << 20 },
                compositions: false,
            };
            let mut thread = StreamThread::start(DealStream::new(options), n).unwrap();
            let mut plain_stream = DealStream::new(options);
            let mut state = 0x9e37_79b9_7f4a_7c15 ^ n as u64;
            for group in 0..375 {
                let decks: Vec<Card> = (0..LANES).flat_map(|_| shuffled(n, &mut state)).collect();
                for deck in decks.chunks_exact(n) {
                    plain_stream.add(deck);
                }
                thread.add(&decks);
                if group % 7 == 0 {
                    // A deck of a line the fast path did not read: streamed and counted alone.
                    let deck = shuffled(n, &mut state);
                    plain_stream.add(&deck);
                    thread.add(&deck);
                }
            }
            let stream = thread.finish();
            assert_eq!(stream.finish(), plain_stream.finish(), "{n} cards");
        }
    }
}
