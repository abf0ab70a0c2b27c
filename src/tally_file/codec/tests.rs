//! Tests of the tally file codec: every part written and read back, and damaged files rejected.

use super::*;
use crate::engine::deal_stream::{Repeats, RepeatsSkipped};
use crate::tally_file::Counts;
use crate::tally_file::header::TallyHeader;
use std::path::Path;
use std::sync::atomic::AtomicBool;

#[test]
fn varints_take_one_byte_below_128_and_ten_for_the_largest_u64() {
    for (value, bytes) in [(0u64, 1u64), (127, 1), (128, 2), (16_383, 2), (16_384, 3)] {
        let mut encoded = Vec::new();
        leb128::write::unsigned(&mut encoded, value).unwrap();
        assert_eq!(encoded.len() as u64, bytes, "{value}");
        assert_eq!(varint_bytes(value), bytes, "{value}");
    }
    assert_eq!(varint_bytes(u64::MAX), 10);
}

#[test]
fn varints_of_every_length_up_to_ten_bytes_decode_across_buffer_refills() {
    // A file's counts add up to at most 2^53, so no sound file has a varint of 9 or 10 bytes;
    // the decoder still reads them (the sums are u128 and the caller refuses the total). Each
    // length from 1 to 10 bytes, about 9 MB in all, so that varints straddle the refills of
    // the decoder's buffer of CHUNK_BYTES (4 MiB).
    let lengths: Vec<u64> = (0..10).map(|k| 1u64 << (7 * k)).collect();
    let mut values: Vec<u64> = (0..1_600_000u64)
        .map(|i| lengths[(i % 10) as usize] + i % 97)
        .collect();
    values.push(u64::MAX);
    let mut bytes = Vec::new();
    for &value in &values {
        leb128::write::unsigned(&mut bytes, value).unwrap();
    }
    for (k, &value) in lengths.iter().enumerate() {
        assert_eq!(varint_bytes(value), k as u64 + 1);
    }
    assert!(bytes.len() > 2 * CHUNK_BYTES);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("varints");
    std::fs::write(&path, &bytes).unwrap();
    let mut reader = read::BodyReader::of_file(std::fs::File::open(&path).unwrap());
    let (first, second) = values.split_at(1000);
    let mut parts = (vec![0u64; first.len()], vec![0u64; second.len()]);
    let sums = read::add_varints(
        &mut reader,
        bytes.len() as u64,
        vec![&mut parts.0, &mut parts.1],
    )
    .unwrap()
    .unwrap();
    assert_eq!((parts.0.as_slice(), parts.1.as_slice()), (first, second));
    let total = |v: &[u64]| v.iter().map(|&x| u128::from(x)).sum::<u128>();
    assert_eq!(sums, vec![total(first), total(second)]);
}

fn header(mode: TallyMode, deck: usize, trials: u64) -> TallyHeader {
    TallyHeader {
        tool: "shuffle-bias".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: "check".into(),
        mode: super::super::header::mode_name(mode).into(),
        deck,
        trials,
        interrupted: false,
        elapsed_seconds: 1.5,
        against: "uniform".into(),
        alpha: 0.001,
        max_paths: 1,
        run: None,
        check: Some(super::super::CheckPart {
            sources: vec!["a.txt".into()],
            lines: trials,
            numbering: "zero-based".into(),
            labels: None,
            invalid_lines: 0,
            invalid_examples: Vec::new(),
            state_bits: None,
            model: None,
            contents: Vec::new(),
            prefixes: Vec::new(),
        }),
        cells: 0,
        encoding: String::new(),
        counts_bytes: 0,
        deal_stream: None,
        body_bytes: 0,
    }
}

#[test]
fn a_tally_written_and_read_back_twice_is_the_tally_doubled() {
    // Counts of many sizes of varint, up to one of eight bytes (2^50; the 24 counts add up to
    // under 2^53, the most shuffles a file may hold).
    let mut full = Counts::empty(TallyMode::Full, 4);
    let values = [0u64, 1, 127, 128, 300, 1 << 20, 1 << 40, 1 << 50];
    if let Counts::Full(tally) = &mut full {
        for (i, cell) in tally.counts.iter_mut().enumerate() {
            *cell = values[i % values.len()];
        }
        tally.trials = tally.counts.iter().sum();
    }
    let mut marginal = Counts::empty(TallyMode::Marginal, 6);
    if let Counts::Marginal(tally) = &mut marginal {
        tally.add(&[0, 1, 2, 3, 4, 5]);
        tally.add(&[5, 4, 3, 2, 1, 0]);
        tally.add(&[1, 0, 3, 2, 5, 4]);
    }
    let dir = tempfile::tempdir().unwrap();
    for counts in [full, marginal] {
        let path = dir.path().join("t.tally");
        let written = header(
            counts.mode(),
            match &counts {
                Counts::Full(t) => t.deck,
                Counts::Marginal(t) => t.deck,
            },
            counts.trials(),
        );
        let mut bytes = Vec::new();
        write_tally(&written, &counts, None, &mut bytes).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let read = read_header(&path).unwrap();
        assert_eq!(read.cells, counts.cells());
        assert_eq!(read.elapsed_seconds, 1.5);
        let mut total = Counts::empty(counts.mode(), read.deck);
        read_tally_into(&path, &read, &mut total, None).unwrap();
        read_tally_into(&path, &read, &mut total, None).unwrap();
        let doubled: Vec<u64> = counts.parts().concat().iter().map(|v| v * 2).collect();
        assert_eq!(total.parts().concat(), doubled);
        assert_eq!(total.trials(), 2 * counts.trials());
        assert!(total.adds_up());
    }
}

#[test]
fn each_file_takes_the_narrowest_word_unless_varints_are_smaller() {
    // 120 counters of 5 cards, all equal to v: the narrowest word that holds v, unless v's
    // varint is shorter (70,000 takes 3 bytes as a varint, 4 as a u32); a tie keeps the
    // word (300: 2 bytes either way).
    for (value, name, bytes) in [
        (5u64, "u8", 120u64),
        (300, "u16", 240),
        (70_000, "leb128", 360),
        (1 << 31, "u32", 480),
        (1 << 62, "u64", 960),
    ] {
        let (encoding, size) = Encoding::choose(&[&vec![value; 120]]);
        assert_eq!((encoding.name(), size), (name, bytes), "{value}");
    }
    let mut skewed = vec![3u64; 120];
    skewed[7] = 1 << 40;
    // 119 + 6 bytes (41 bits in 7-bit groups) against 120 u64 words.
    assert_eq!(Encoding::choose(&[&skewed]), (Encoding::Leb128, 119 + 6));
    for name in ["u8", "u16", "u32", "u64", "leb128"] {
        assert_eq!(Encoding::parse(name).unwrap().name(), name);
    }
}

#[test]
fn tallies_of_every_encoding_and_their_deal_stream_read_back_exactly() {
    use crate::engine::deal_stream::{
        DealStream, DealStreamOptions, FingerprintBudget, RepeatSource, sampled_at,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tally");
    let mut stream = DealStream::new(DealStreamOptions {
        deck: 4,
        dealt: 4,
        repeats: RepeatSource::Fingerprints { limit: 100 },
        compositions: true,
    });
    stream.start_block(3);
    for deal in [[0, 1, 2, 3], [1, 0, 2, 3], [0, 1, 2, 3]] {
        stream.add(&deal);
    }
    stream.end_block(true);
    let deals = stream.finish();
    // u8, u16, leb128, u32 and u64 in turn (as the test above), the sums within a u64.
    let mut seen = Vec::new();
    for value in [1u64, 300, 70_000, 1 << 31, 1 << 58] {
        let mut counts = Counts::empty(TallyMode::Full, 4);
        if let Counts::Full(tally) = &mut counts {
            for (i, cell) in tally.counts.iter_mut().enumerate() {
                *cell = value + i as u64 % 2;
            }
            tally.trials = tally.counts.iter().sum();
        }
        let mut bytes = Vec::new();
        write_tally(
            &header(TallyMode::Full, 4, counts.trials()),
            &counts,
            Some(&deals),
            &mut bytes,
        )
        .unwrap();
        std::fs::write(&path, &bytes).unwrap();
        // The stream (3 deals) is not that of these counts, which read_header refuses: the
        // header is taken as written, to test the encodings alone.
        let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
        let read: TallyHeader = serde_json::from_slice(&bytes[25..25 + length]).unwrap();
        let mut total = Counts::empty(TallyMode::Full, 4);
        let roomy = FingerprintBudget { level: 0, cap: 100 };
        let back = read_tally_into(&path, &read, &mut total, Some(roomy))
            .unwrap()
            .unwrap();
        assert_eq!(total, counts, "{}", read.encoding);
        seen.push(read.encoding.clone());
        assert_eq!(back.matches, deals.matches);
        assert_eq!(back.slots, deals.slots);
        assert_eq!(back.compositions, deals.compositions);
        assert_eq!(back.ends, deals.ends);
        assert_eq!(back.fingerprints.concat(), deals.fingerprints.concat());
        assert_eq!((back.deals, back.pairs), (3, 2));
        // Room for 2 of the 3 fingerprints: read sampled, at the lowest level that keeps at
        // most 2, exactly the fingerprints sampled at that level.
        let mut total = Counts::empty(TallyMode::Full, 4);
        let tight = FingerprintBudget { level: 0, cap: 2 };
        let tight = read_tally_into(&path, &read, &mut total, Some(tight))
            .unwrap()
            .unwrap();
        let Repeats::Sampled { level, kept, .. } = tight.repeats else {
            panic!("not sampled: {:?}", tight.repeats)
        };
        let sampled = |level| -> Vec<u128> {
            let all = deals.fingerprints.concat();
            all.into_iter().filter(|&p| sampled_at(p, level)).collect()
        };
        assert!(sampled(level - 1).len() > 2);
        assert_eq!(tight.fingerprints.concat(), sampled(level));
        assert_eq!(kept, sampled(level).len() as u64);
        // No budget (the merge does not count them): skipped for memory, not kept.
        let mut total = Counts::empty(TallyMode::Full, 4);
        let none = read_tally_into(&path, &read, &mut total, None)
            .unwrap()
            .unwrap();
        assert!(none.fingerprints.is_empty());
        assert!(matches!(
            none.repeats,
            Repeats::Skipped(RepeatsSkipped::Memory { .. })
        ));
    }
    assert_eq!(seen, ["u8", "u16", "leb128", "u32", "u64"]);
}

#[test]
fn a_sampled_deal_stream_records_its_level_and_files_without_one_read_as_level_0() {
    use crate::engine::deal_stream::{
        DealStream, DealStreamOptions, FingerprintBudget, RepeatSource, sampled_at,
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tally");
    // 24 orderings of 4 cards, 60 deals, at most 5 fingerprints kept: sampled.
    let mut stream = DealStream::new(DealStreamOptions {
        deck: 4,
        dealt: 4,
        repeats: RepeatSource::Fingerprints { limit: 5 },
        compositions: true,
    });
    for i in 0..60usize {
        let mut deal = [0, 1, 2, 3];
        deal.rotate_left(i % 4);
        deal.swap(i % 3, 3);
        stream.add(&deal);
    }
    let deals = stream.finish();
    let Repeats::Sampled { level, kept, .. } = deals.repeats else {
        panic!("not sampled: {:?}", deals.repeats)
    };
    let mut counts = Counts::empty(TallyMode::Full, 4);
    if let Counts::Full(tally) = &mut counts {
        tally.counts[0] = 60;
        tally.trials = 60;
    }
    let mut bytes = Vec::new();
    write_tally(&header(TallyMode::Full, 4, 60), &counts, Some(&deals), &mut bytes).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    let json = &bytes[25..25 + length];
    let read: TallyHeader = serde_json::from_slice(json).unwrap();
    let part = read.deal_stream.as_ref().unwrap();
    assert_eq!((part.sample_level, part.fingerprints), (level, kept));
    // Read back whole: the same level, the same fingerprints, all sampled at it.
    let roomy = FingerprintBudget { level: 0, cap: 100 };
    let back = read_tally_into(&path, &read, &mut Counts::empty(TallyMode::Full, 4), Some(roomy))
        .unwrap()
        .unwrap();
    assert_eq!(back.repeats, Repeats::to_count(level, kept));
    assert_eq!(back.fingerprints.concat(), deals.fingerprints.concat());
    assert!(back.fingerprints[0].iter().all(|&p| sampled_at(p, level)));
    // A file written before sampling has no `sample_level`: it reads as level 0, and a
    // level-0 header is written without it, byte for byte as before.
    let text = String::from_utf8(json.to_vec()).unwrap();
    let old = text.replace(&format!(",\"sample_level\":{level}"), "");
    assert_ne!(old, text);
    let old: TallyHeader = serde_json::from_str(&old).unwrap();
    let old_part = old.deal_stream.as_ref().unwrap();
    assert_eq!(old_part.sample_level, 0);
    assert_eq!(
        old_part.empty_tally(4).repeats,
        Repeats::Counted {
            distinct: 0,
            repeated_pairs: 0
        }
    );
    assert!(!serde_json::to_string(old_part).unwrap().contains("sample_level"));
}

/// A full tally of 9 cards (above [`SPLIT_MIN_CELLS`]) whose counts are `base` plus a
/// pattern of 0..=36, written to `dir/name`; its path and header.
fn nine_card_file(dir: &Path, name: &str, base: u64) -> (PathBuf, TallyHeader, Counts) {
    let mut counts = Counts::empty(TallyMode::Full, 9);
    if let Counts::Full(tally) = &mut counts {
        for (i, cell) in tally.counts.iter_mut().enumerate() {
            *cell = base + (i as u64 * 7919) % 37;
        }
        tally.trials = tally.counts.iter().sum();
    }
    let path = dir.join(name);
    let mut bytes = Vec::new();
    write_tally(
        &header(TallyMode::Full, 9, counts.trials()),
        &counts,
        None,
        &mut bytes,
    )
    .unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let read = read_header(&path).unwrap();
    (path, read, counts)
}

/// Merge `files` as `merge` does: the splittable ones by [`add_counts_split`] on
/// `threads`, the others one at a time, then each finished in order.
fn merge_split(files: &[(PathBuf, TallyHeader)], threads: usize) -> Result<Counts, TallyFileError> {
    let mut total = Counts::empty_unpopulated(TallyMode::Full, 9);
    let mut opened = files
        .iter()
        .filter(|(_, h)| splittable(h))
        .map(|(p, h)| open_tally(p, h))
        .collect::<Result<Vec<_>, _>>()?;
    let sums = add_counts_split(
        &mut opened,
        total.full_counters_mut().unwrap(),
        true,
        threads,
        &AtomicBool::new(false),
    )?
    .expect("not stopped");
    let mut split = opened.into_iter().zip(sums);
    for (path, header) in files {
        if splittable(header) {
            let (open, sum) = split.next().unwrap();
            open.finish(&[sum], &mut total, None)?;
        } else {
            read_tally_into(path, header, &mut total, None)?;
        }
    }
    Ok(total)
}

#[test]
fn tallies_read_by_several_threads_add_up_to_the_same_total_as_read_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    // u8, u16 and u32 words (2^24 takes 4 bytes as a varint too: the word wins the tie),
    // and varints (70,000 + 36 < 2^21: three bytes against a u32's four), which are read in
    // turn.
    let made: Vec<_> = [
        (1u64, "u8"),
        (300, "u16"),
        (1 << 24, "u32"),
        (70_000, "leb128"),
    ]
    .iter()
    .map(|&(base, encoding)| {
        let (path, header, counts) = nine_card_file(dir.path(), encoding, base);
        assert_eq!(header.encoding, encoding);
        assert_eq!(splittable(&header), encoding != "leb128");
        (path, header, counts)
    })
    .collect();
    let files: Vec<_> = made
        .iter()
        .map(|(p, h, _)| (p.clone(), h.clone()))
        .collect();
    let mut sequential = Counts::empty(TallyMode::Full, 9);
    for (path, header) in &files {
        read_tally_into(path, header, &mut sequential, None).unwrap();
    }
    let mut expected = vec![0u64; 362_880];
    for (_, _, counts) in &made {
        for (e, c) in expected.iter_mut().zip(counts.parts()[0]) {
            *e += c;
        }
    }
    assert_eq!(sequential.parts()[0], &expected[..]);
    // One thread, two, a number that does not divide the cells, more threads than pages.
    for threads in [1, 2, 3, 7, 200] {
        assert_eq!(
            merge_split(&files, threads).unwrap(),
            sequential,
            "{threads}"
        );
    }
    // In another order (the varints first, so the total is no longer fresh for them).
    let reversed: Vec<_> = files.iter().rev().cloned().collect();
    assert_eq!(merge_split(&reversed, 2).unwrap(), sequential);
}

#[test]
fn the_crc_of_the_threads_parts_combined_is_the_crc_of_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, header, _) = nine_card_file(dir.path(), "t.tally", 1);
    let bytes = std::fs::read(&path).unwrap();
    let whole = crc32fast::hash(&bytes[..header_end(&bytes) + header.counts_bytes as usize]);
    for threads in [1, 2, 5] {
        let mut opened = vec![open_tally(&path, &header).unwrap()];
        let mut total = vec![0u64; 362_880];
        add_counts_split(
            &mut opened,
            &mut total,
            true,
            threads,
            &AtomicBool::new(false),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            opened[0].reader.hasher.clone().finalize(),
            whole,
            "{threads}"
        );
    }
}

/// Bytes before the counters of a tally file's `bytes`.
fn header_end(bytes: &[u8]) -> usize {
    let at = PREFIX_BYTES as usize;
    at + u32::from_le_bytes(bytes[at - 4..at].try_into().unwrap()) as usize
}

#[test]
fn a_corrupted_counter_read_by_threads_is_refused_as_the_sequential_reading_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let (good, good_header, _) = nine_card_file(dir.path(), "good.tally", 1);
    let (path, header, _) = nine_card_file(dir.path(), "bad.tally", 3);
    let mut bytes = std::fs::read(&path).unwrap();
    // A counter in the second thread's half, one more.
    let at = header_end(&bytes) + 300_000;
    bytes[at] = bytes[at].wrapping_add(1);
    std::fs::write(&path, &bytes).unwrap();
    let sequential =
        read_tally_into(&path, &header, &mut Counts::empty(TallyMode::Full, 9), None).unwrap_err();
    let files = vec![(good, good_header), (path.clone(), header)];
    let split = merge_split(&files, 2).unwrap_err();
    assert_eq!(split.to_string(), sequential.to_string());
    assert!(
        matches!(split, TallyFileError::Corrupted { path: ref p, .. } if *p == path),
        "{split}"
    );
}

#[test]
fn a_file_cut_short_after_its_header_was_checked_is_a_read_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, header, _) = nine_card_file(dir.path(), "t.tally", 1);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let error = merge_split(&[(path.clone(), header)], 2).unwrap_err();
    assert!(matches!(error, TallyFileError::Read { path: ref p, .. } if *p == path));
}

#[test]
fn a_stop_request_ends_the_threads_without_a_total() {
    let dir = tempfile::tempdir().unwrap();
    let (path, header, _) = nine_card_file(dir.path(), "t.tally", 1);
    let mut opened = vec![open_tally(&path, &header).unwrap()];
    let mut total = vec![0u64; 362_880];
    let stopped =
        add_counts_split(&mut opened, &mut total, true, 2, &AtomicBool::new(true)).unwrap();
    assert!(stopped.is_none());
}

#[test]
fn the_checksum_is_the_standard_crc_32() {
    // The check value of CRC-32/ISO-HDLC (the CRC of zlib, PNG and Ethernet) is CBF43926
    // for the ASCII string 123456789 (Greg Cook's catalogue of parametrised CRCs).
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(b"123456789");
    assert_eq!(hasher.finalize(), 0xCBF4_3926);
}
