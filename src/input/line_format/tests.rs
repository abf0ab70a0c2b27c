//! Tests of the line formats: every print of a list, every wrapper, and the near misses that
//! stay refused.

use super::*;

/// The tokens of `record` and its shape, or the problem.
fn shaped(record: &str) -> Result<(Vec<String>, Shape), String> {
    let mut found = Vec::new();
    let mut scratch = Vec::new();
    split(record.as_bytes(), &mut scratch, &mut |token| {
        found.push(String::from_utf8(token.to_vec()).unwrap());
        Ok(())
    })
    .map(|shape| (found, shape))
    .map_err(|rejection| rejection.problem)
}

/// The tokens of `record` and its format, or the problem.
fn tokens(record: &str) -> Result<(Vec<String>, LineFormat), String> {
    shaped(record).map(|(found, shape)| (found, shape.format))
}

/// The shape of a list of numbers wrapped in `wrapping`, its items NumPy scalars of the
/// type named `scalars`, if any.
fn numbers(wrapping: Wrapping, scalars: Option<&str>) -> Shape {
    Shape {
        format: LineFormat::Brackets,
        wrapping,
        scalars: scalars.map(numpy_type),
    }
}

fn numpy_type(name: &str) -> NumpyScalar {
    let place = NUMPY_SCALARS.iter().position(|&known| known == name);
    NumpyScalar(place.unwrap() as u8)
}

fn typed_array_named(name: &str) -> TypedArray {
    let place = TYPED_ARRAYS.iter().position(|&known| known == name);
    TypedArray(place.unwrap() as u8)
}

/// `record` reads as the cards 3 1 0 2 in `shape`.
#[track_caller]
fn reads_3_1_0_2(record: &str, shape: Shape) {
    assert_eq!(
        shaped(record),
        Ok((words(&["3", "1", "0", "2"]), shape)),
        "{record}"
    );
}

/// `record` is refused with a problem that holds `problem`.
#[track_caller]
fn refused(record: &str, problem: &str) {
    match shaped(record) {
        Err(found) => assert!(found.contains(problem), "{record}: {found}"),
        Ok(read) => panic!("{record} was read: {read:?}"),
    }
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|word| word.to_string()).collect()
}

#[test]
fn every_print_of_a_list_of_numbers_gives_the_same_tokens() {
    for record in [
        "[3,0,1,2]",
        "[3, 0, 1, 2]",
        "[ 3, 0, 1, 2 ]",
        "[3 0 1 2]",
        "[ 3  0  1  2]",
        "[3,0,1,2]  ",
    ] {
        assert_eq!(
            tokens(record),
            Ok((words(&["3", "0", "1", "2"]), LineFormat::Brackets)),
            "{record}"
        );
    }
    for record in ["3 0 1 2", "3,0,1,2", "3, 0 ,1\t2"] {
        assert_eq!(
            tokens(record),
            Ok((words(&["3", "0", "1", "2"]), LineFormat::Plain)),
            "{record}"
        );
    }
}

#[test]
fn quoted_labels_in_either_quotes_lose_their_quotes_and_escapes() {
    for record in [
        r#"["As", "Kd"]"#,
        "['As', 'Kd']",
        "[ 'As', 'Kd' ]",
        r#"["As","Kd"]"#,
        r#"["\u0041s", "K\x64"]"#,
    ] {
        assert_eq!(
            tokens(record),
            Ok((words(&["As", "Kd"]), LineFormat::QuotedBrackets)),
            "{record}"
        );
    }
    // Python's json.dumps writes a spade as an escape, a surrogate pair beyond the plane.
    assert_eq!(
        tokens(r#"["A\u2660", "it's", "\ud83c\udca1", 'a\'b', "]"]"#),
        Ok((
            words(&["A♠", "it's", "🂡", "a'b", "]"]),
            LineFormat::QuotedBrackets
        ))
    );
}

#[test]
fn a_misshapen_list_is_unreadable_with_its_reason() {
    for (record, problem) in [
        ("[3, 0, 1", "no closing ']'"),
        ("[3, 0] 1", "text after the list's closing ']': '1'"),
        (
            "[3,,0]",
            "empty field 2: nothing between two commas after '3'",
        ),
        (
            "[3, 0,]",
            "empty field 3: the list ends with a comma after '0'",
        ),
        ("[, 3]", "empty field 1: the list starts with a comma"),
        ("[[3, 0], [1, 2]]", "a list of lists"),
        ("[3, 0'1', 2]", "is no card"),
        ("['As', 'Kd]", "has no closing '"),
        (
            r#"["As""Kd"]"#,
            "expected a comma or a blank after \\\"As\\\"",
        ),
        (r#"["\q"]"#, "unknown escape '\\\\q'"),
        ("[0, 1, 2, ... 1 more item]", "the list was shortened"),
    ] {
        let found = tokens(record).unwrap_err();
        assert!(found.contains(problem), "{record}: {found}");
    }
}

#[test]
fn a_list_closes_only_at_a_bracket_outside_quotes() {
    assert!(closes_list(b"[ 3, 0 ]"));
    assert!(!closes_list(b"["));
    assert!(!closes_list(b"[ ']', \"]\""));
    assert!(closes_list(b"[ ']', \"\\\"]\" ]"));
}

#[test]
fn a_list_scanned_line_by_line_closes_where_the_whole_record_does() {
    // Every split of each record into two parts: the carried scan closes exactly when the
    // whole record's scan does (quotes and escapes spanning the split included).
    let records: [&[u8]; 6] = [
        b"[ 3, 0 ]",
        b"[ ']', \"]\"",
        b"[ ']', \"\\\"]\" ]",
        b"[ 'a\\'b', ] ",
        b"[ \"x\\\\\" ]",
        b"[ 1,\n 2,\n 3 ]",
    ];
    for record in records {
        for split in 0..=record.len() {
            let mut scan = ListScan::opening(record).unwrap();
            let (first, rest) = record.split_at(split);
            let closed = scan.closes(first) || scan.closes(rest);
            assert_eq!(
                closed,
                closes_list(record),
                "{:?} split at {split}",
                String::from_utf8_lossy(record)
            );
        }
    }
}

#[test]
fn a_python_tuple_reads_as_its_list_with_the_comma_of_a_single_item() {
    reads_3_1_0_2("(3, 1, 0, 2)", numbers(Wrapping::Tuple, None));
    assert_eq!(
        shaped("(3,)"),
        Ok((words(&["3"]), numbers(Wrapping::Tuple, None)))
    );
    assert_eq!(
        shaped("('As', 'K, d')"),
        Ok((
            words(&["As", "K, d"]),
            Shape {
                format: LineFormat::QuotedBrackets,
                ..numbers(Wrapping::Tuple, None)
            }
        ))
    );
    refused("(3, 1] ", "the tuple has no closing ')'");
    refused("(3, 1, 0, 2", "the tuple has no closing ')'");
    refused("(3, 1,)", "the tuple ends with a comma");
    refused("(3)", "a tuple of one item without its comma");
    refused("(3, 1) 0", "text after the tuple's closing ')': '0'");
    refused("((3, 1), (0, 2))", "a list of lists");
}

#[test]
fn numpy_scalars_in_a_list_or_tuple_read_as_their_values() {
    for name in ["int64", "int32", "int8", "uint8", "uint64"] {
        let record = format!("[np.{name}(3), np.{name}(1), np.{name}(0), np.{name}(2)]");
        reads_3_1_0_2(&record, numbers(Wrapping::None, Some(name)));
    }
    reads_3_1_0_2(
        "(np.int64(3), np.int64(1), np.int64(0), np.int64(2))",
        numbers(Wrapping::Tuple, Some("int64")),
    );
    assert_eq!(
        shaped("(np.int64(0),)"),
        Ok((words(&["0"]), numbers(Wrapping::Tuple, Some("int64"))))
    );
    assert_eq!(
        shaped(r"[np.str_('As'), np.str_('K, d'), np.str_('it\'s')]"),
        Ok((
            words(&["As", "K, d", "it's"]),
            Shape {
                format: LineFormat::QuotedBrackets,
                wrapping: Wrapping::None,
                scalars: Some(numpy_type("str_")),
            }
        ))
    );
}

#[test]
fn a_wrapper_not_spelled_exactly_as_numpy_prints_it_is_no_card() {
    // `foo(3)` is not unwrapped: it reaches the reader whole, which no card number reads.
    assert_eq!(
        shaped("[foo(3), 1]"),
        Ok((words(&["foo(3)", "1"]), numbers(Wrapping::None, None)))
    );
    assert_eq!(tokens("np.int64(3) 1").unwrap().0, words(&["np.int64(3)", "1"]));
    refused("[np.int64(3, np.int64(1)]", "the NumPy scalar 'np.int64(3' has no closing ')'");
    refused("[np.int64(3]", "has no closing ')'");
    refused("[np.float64(3.0), np.float64(1.0)]", "'np.float64' is no card");
    refused("[np.int64(-3)]", "the NumPy scalar 'np.int64(-3)' holds no card number");
    refused("[np.int64(3)x, 1]", "expected a comma or a blank after np.int64(3)");
    refused("[np.int64(3), 1]", "item 2 '1' is a bare item but item 1 is a NumPy np.int64");
    refused("[np.int64(3), np.int32(1)]", "item 2 'np.int32(1)' is a NumPy np.int32");
    refused("[np.str_(As)]", "np.str_ holds a quoted label");
    refused("[np.str_('As']", "has no closing ')'");
    // NumPy scalars are Python's print of a list, not of a typed or NumPy array.
    assert_eq!(
        shaped("array([np.int64(3), 1])").unwrap().0[0],
        "np.int64(3)"
    );
}

#[test]
fn numpy_and_python_arrays_read_as_their_lists() {
    let numpy = numbers(Wrapping::NumpyArray, None);
    reads_3_1_0_2("array([3, 1, 0, 2])", numpy);
    reads_3_1_0_2("array([3, 1, 0, 2], dtype=int8)", numpy);
    reads_3_1_0_2("array([3, 1, 0, 2], dtype=uint64)", numpy);
    reads_3_1_0_2("array([3, 1, 0, 2], dtype=object)", numpy);
    // Gathered from lines, the dtype on one of its own.
    reads_3_1_0_2("array([ 3,  1, 0, 2], dtype=int8)", numpy);
    reads_3_1_0_2("array([ 3,  1,  0, 2],  dtype=int16)", numpy);
    assert_eq!(
        shaped("array(['As', 'Kd'], dtype='<U2')"),
        Ok((
            words(&["As", "Kd"]),
            Shape {
                format: LineFormat::QuotedBrackets,
                ..numpy
            }
        ))
    );
    reads_3_1_0_2("array('i', [3, 1, 0, 2])", numbers(Wrapping::PythonArray, None));
    reads_3_1_0_2("array('Q', [3, 1, 0, 2])", numbers(Wrapping::PythonArray, None));
    refused("array([3, 1, 0, 2]", "expected ')' or ', dtype=…)'");
    refused("array([3, 1], dtype=float64)", "expected ', dtype=…)'");
    refused("array([3, 1], dtype=int8", "expected ')' or ', dtype=…)'");
    refused("array([3, 1], dtype=int8) x", "text after the array's closing ')': 'x'");
    refused("array([3, 1], dtype=int8x)", "expected ', dtype=…)'");
    refused("array([3, 1], dtype='<U')", "expected ', dtype=…)'");
    refused("array('d', [3.0, 1.0])", "array('d', …) holds no card numbers");
    refused("array('u', 'ab')", "array('u', …) holds no card numbers");
    refused("array('i')", "expected ', [' after array('i'");
    refused("array('i', 3)", "expected a list after `array('i', `");
    refused("array('i', ['a'])", "a Python array of integers holds no quoted labels");
    refused("array(3, 1)", "neither NumPy's `array([…])` nor Python's");
}

#[test]
fn node_typed_arrays_read_as_their_lists_of_the_length_they_state() {
    for name in TYPED_ARRAYS {
        let items = if name.starts_with("Big") {
            "[ 3n, 1n, 0n, 2n ]"
        } else {
            "[ 3, 1, 0, 2 ]"
        };
        reads_3_1_0_2(
            &format!("{name}(4) {items}"),
            numbers(Wrapping::TypedArray(typed_array_named(name)), None),
        );
    }
    // Gathered from Node's lines of a long one.
    reads_3_1_0_2(
        "Uint8Array(4) [ 3,  1, 0,  2 ]",
        numbers(Wrapping::TypedArray(typed_array_named("Uint8Array")), None),
    );
    assert_eq!(shaped("Uint8Array(0) []").unwrap().0, Vec::<String>::new());
    refused("Uint8Array(5) [ 3, 1, 0, 2 ]", "Uint8Array(5) holds 4 items");
    refused("Uint8Array(4)[ 3, 1, 0, 2 ]", "expected 'Uint8Array(LENGTH) ['");
    refused("Uint8Array(4) 3, 1, 0, 2", "expected 'Uint8Array(LENGTH) ['");
    refused("Uint8Array() [ ]", "expected 'Uint8Array(LENGTH) ['");
    refused("Int16Array(2) [ 'a', 'b' ]", "a Int16Array holds numbers");
    refused("BigInt64Array(2) [ 3, 1 ]", "'3' is no item of a BigInt64Array");
    refused("Uint8Array(2) [ 3, 1 ] x", "text after the list's closing ']'");
    // A name Node does not print is a plain token.
    assert_eq!(shaped("Uint7Array(2) [ 3, 1 ]").unwrap().1, Shape::PLAIN);
}

#[test]
fn an_r_vector_reads_its_items_checking_the_index_heading_each_line() {
    let r = numbers(Wrapping::RVector, None);
    reads_3_1_0_2("[1] 3 1 0 2", r);
    reads_3_1_0_2("[1]  3  1\t0 2", r);
    // A long vector gathered from R's lines.
    reads_3_1_0_2("[1] 3 1 [3] 0 2", r);
    reads_3_1_0_2("[1] 3 [2] 1 [3] 0 [4] 2", r);
    assert_eq!(
        shaped(r#"[1] "As"  "10c" "K\"d""#),
        Ok((
            words(&["As", "10c", "K\"d"]),
            Shape {
                format: LineFormat::QuotedBrackets,
                ..r
            }
        ))
    );
    assert_eq!(r_vector_index(b"[1] 3"), Some(1));
    assert_eq!(r_vector_index(b"[20] 3"), Some(20));
    assert_eq!(r_vector_index(b"[1]"), None, "a JSON list of one number");
    assert_eq!(r_vector_index(b"[1, 2]"), None);
    assert_eq!(r_vector_index(b"[] 3"), None);
    refused("[2] 3 1", "the R vector starts at [2], not [1]");
    refused("[1] 3 1 [4] 0 2", "starts at [4] after 2 items, not [3]");
    refused("[1] 3 1 [3]", "'[3]' is no item of an R vector");
    // A JSON list of one number, blanks after it or not, is no R vector.
    assert_eq!(
        shaped("[3]  "),
        Ok((words(&["3"]), numbers(Wrapping::None, None)))
    );
    refused("[1] 3, 1, 0, 2", "'3,' is no item of an R vector");
    refused("[1] 3 '1' 0 2", r"'\'1\'' is no item of an R vector");
    refused(r#"[1] "As"x "Kd""#, r#"expected a blank after \"As\""#);
    // A JSON list followed by text with no blank between is still that, not a vector; with a
    // blank it reads as a vector whose first line is missing.
    refused("[3]x", "text after the list's closing ']'");
    refused("[3] x", "the R vector starts at [3], not [1]");
}

#[test]
fn each_wrapping_is_its_own_shape_so_that_lines_cannot_mix_them() {
    let shapes: Vec<Shape> = [
        "[3, 1, 0, 2]",
        "3 1 0 2",
        "(3, 1, 0, 2)",
        "[np.int64(3), np.int64(1), np.int64(0), np.int64(2)]",
        "[np.int32(3), np.int32(1), np.int32(0), np.int32(2)]",
        "array([3, 1, 0, 2])",
        "array('i', [3, 1, 0, 2])",
        "Uint8Array(4) [ 3, 1, 0, 2 ]",
        "Int8Array(4) [ 3, 1, 0, 2 ]",
        "[1] 3 1 0 2",
    ]
    .iter()
    .map(|record| shaped(record).unwrap().1)
    .collect();
    for (place, shape) in shapes.iter().enumerate() {
        for other in &shapes[place + 1..] {
            assert_ne!(shape, other);
            assert_ne!(shape.describe(), other.describe());
        }
    }
    // A NumPy dtype shown or not is one shape: NumPy leaves out the default one.
    assert_eq!(
        shaped("array([3, 1], dtype=int8)").unwrap().1,
        shaped("array([3, 1])").unwrap().1
    );
}

#[test]
fn lists_that_may_span_lines_are_scanned_to_their_own_end() {
    assert!(!closes_list(b"Uint8Array(52) ["));
    assert!(closes_list(b"Uint8Array(2) [ 1, 0 ]"));
    assert!(!closes_list(b"array([ 0,  1,"));
    // NumPy may print the dtype on a line of its own: the list ends at the `)`.
    assert!(!closes_list(b"array([ 0,  1],"));
    assert!(closes_list(b"array(['a)', 'b'], dtype='<U2')"));
    assert!(ListScan::opening(b"(3, 1").is_none(), "a tuple is one line");
    assert!(ListScan::opening(b"[1] 3 1").is_none(), "an R vector ends at the next line");
    assert!(opens_list(b"Float64Array(2) [ 1, 0 ]"));
    assert!(!opens_list(b"Floaty(2) [ 1, 0 ]"));
    assert!(!opens_list(b"arrays 1 0"));
}
