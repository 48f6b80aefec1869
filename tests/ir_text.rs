//! The text format round-trips: for one program per instruction kind (and per terminator), the
//! printer writes back exactly the text the parser read, the verifier accepts it, and parsing
//! the printed text gives the same normalized program.

use zkbc::ir::{self, verify};

/// Parses `text` (written in the printer's own layout), checks that printing gives it back
/// byte for byte, that it verifies, and that normalization is stable under a second round trip.
fn round_trip(text: &str) {
    let program = ir::parse_program(text).unwrap_or_else(|e| panic!("parse error {e} in\n{text}"));
    let printed = program.to_string();
    assert_eq!(printed, text, "printer output differs from the parsed text");
    verify::verify_program(&program).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let again = ir::parse_program(&printed).expect("printed text parses");
    assert_eq!(again.normalized_text(), program.normalized_text());
    // Normalizing twice is the identity.
    let normal = ir::parse_program(&program.normalized_text()).expect("normalized text parses");
    assert_eq!(normal.normalized_text(), program.normalized_text());
}

macro_rules! round_trip_tests {
    ($($name:ident: $text:expr;)*) => {
        $(
            #[test]
            fn $name() {
                round_trip($text);
            }
        )*
    };
}

round_trip_tests! {
    binary_ops: "fn main f0 -> field, u32, u1 {
b0(v0: field, v1: field, v2: u32, v3: u32):
    v4 = add v0, v1
    v5 = sub v4, field -1
    v6 = mul v5, v0
    v7 = div v6, v1 @3:7
    v8 = udiv v2, v3 @4:1
    v9 = urem v8, u32 7 @4:9
    v10 = and v9, v3
    v11 = or v10, u32 1
    v12 = xor v11, v2
    v13 = shl v12, u32 3
    v14 = shr v13, u8 2
    v15 = eq v7, v0
    v16 = lt v0, v1
    v17 = le v2, v14
    v18 = and v15, v16
    v19 = or v18, v17
    return v7, v14, v19
}
";
    not: "fn main f0 -> u8, u1 {
b0(v0: u8, v1: u1):
    v2 = not v0
    v3 = not v1
    return v2, v3
}
";
    cast_and_trunc: "fn main f0 -> u8, field, u16 {
b0(v0: field, v1: u64):
    v2 = cast v0 to u8 @2:3
    v3 = cast v1 to field
    v4 = trunc v1 to u16
    return v2, v3, v4
}
";
    select: "fn main f0 -> field {
b0(v0: u1, v1: field):
    v2 = select v0, v1, field 0
    return v2
}
";
    assert_with_and_without_message: "fn main f0 {
b0(v0: u1, v1: u1):
    assert v0
    assert v1, \"inputs must be \\\"ok\\\"; really\" @7:5
    return
}
";
    memory: "fn main f0 -> field {
b0(v0: field):
    v1 = allocate field
    store v0 at v1
    v2 = allocate &field
    store v1 at v2
    v3 = load v2
    v4 = load v3
    return v4
}
";
    arrays: "fn main f0 -> [u32; 3], u32 {
b0(v0: u32, v1: u32):
    v2 = make_array [v0, u32 2, u32 3] : u32
    v3 = array_set v2, v1, u32 9 @5:1
    v4 = array_get v3, u32 0 @6:1
    v5 = make_array [] : field
    v6 = make_array [v2, v3] : [u32; 3]
    v7 = array_get v6, v1
    return v7, v4
}
";
    bits: "fn main f0 -> u8, field {
b0(v0: u8, v1: field):
    v2 = to_bits v0
    v3 = from_bits v2 to u8
    v4 = to_bits v1
    v5 = from_bits v4 to field
    return v3, v5
}
";
    call_with_several_results: "fn main f0 -> field, field {
b0(v0: field):
    v1, v2 = call f1(v0, field 3)
    call f2()
    return v1, v2
}

fn helper f1 -> field, field {
b0(v0: field, v1: field):
    v2 = mul v0, v1
    return v2, v0
}

fn nothing f2 {
b0():
    return
}
";
    hint_and_bound: "fn main f0 -> field {
b0(v0: field):
    v1 = hint f1(v0)
    v2 = bound v1, 252 @3:4
    return v2
}

fn asm_hint f1 -> field {
b0(v0: field):
    v1 = mul v0, v0
    return v1
}
";
    guarded_hint_and_log: r#"fn main f0 -> field {
b0(v0: field, v1: u1):
    v2 = hint f1(v0) if v1
    log "square {} of {}", v2, v0 if v1
    log "always"
    log "never" if u1 0
    return v2
}

fn asm_hint f1 -> field {
b0(v0: field):
    v1 = mul v0, v0
    return v1
}
"#;
    jmp_br_return: "fn main f0 -> field {
b0(v0: field, v1: u32):
    jmp b1(field 0, u32 0)
b1(v2: field, v3: u32):
    v4 = lt v3, v1
    br v4, b2(), b3(v2)
b2():
    v5 = add v2, v0
    v6 = add v3, u32 1
    jmp b1(v5, v6)
b3(v7: field):
    return v7
}
";
    nested_types: "fn main f0 -> [[u1; 2]; 2] {
b0(v0: [[u1; 2]; 2], v1: &[field; 4]):
    v2 = load v1
    return v0
}
";
}

#[test]
fn comments_and_forward_references_parse() {
    // Blocks and values may be used before the line that defines them; `;` inside brackets is
    // part of a type, elsewhere it starts a comment. Parsed names keep their numbers.
    let text = "; a comment line
fn main f0 -> [field; 2] { ; trailing comment
b0(v0: field):
    jmp b2(v0)   ; forward block
b2(v1: field):
    v2 = make_array [v1, v1] : field ; two copies
    return v2
}
";
    let program = ir::parse_program(text).unwrap();
    verify::verify_program(&program).unwrap();
    assert_eq!(
        program.to_string(),
        "fn main f0 -> [field; 2] {
b0(v0: field):
    jmp b2(v0)
b2(v1: field):
    v2 = make_array [v1, v1] : field
    return v2
}
"
    );
}

#[test]
fn normalization_renumbers_blocks_in_reverse_post_order_and_values_in_definition_order() {
    let text = "fn main f0 -> u32 {
b7(v40: u32):
    br u1 1, b3(), b9(v40)
b9(v3: u32):
    v1 = add v3, u32 1
    return v1
b3():
    jmp b9(u32 5)
}
";
    let program = ir::parse_program(text).unwrap();
    assert_eq!(
        program.normalized_text(),
        "fn main f0 -> u32 {
b0(v0: u32):
    br u1 1, b1(), b2(v0)
b1():
    jmp b2(u32 5)
b2(v1: u32):
    v2 = add v1, u32 1
    return v2
}
"
    );
}

/// Each malformed input gives an error naming its line and column.
#[test]
fn parse_errors_are_located() {
    let cases: &[(&str, &str)] = &[
        (
            "fn main f0 {\nb0():\n    v1 = frob v0\n    return\n}\n",
            "3:10: unknown opcode `frob`",
        ),
        (
            "fn main f0 {\nb0():\n    return v9\n}\n",
            "3:12: unknown value `v9`",
        ),
        (
            "fn main f0 {\nb0():\n    jmp b4()\n}\n",
            "3:9: unknown block `b4`",
        ),
        (
            "fn main f0 {\nb0(v0: u7):\n    return\n}\n",
            "2:8: unknown type `u7`",
        ),
        (
            "fn main f0 {\nb0():\n    v1 = add u8 300, u8 1\n    return\n}\n",
            "3:17: `300` does not fit in u8",
        ),
        (
            "fn main f0 {\nb0(v0: u1):\n    v0 = not v0\n    return\n}\n",
            "3:5: value `v0` defined twice",
        ),
        (
            "fn main f0 {\nb0():\n    return\n    v1 = add u8 1, u8 1\n}\n",
            "4:10: `add` after the terminator of block b0",
        ),
        (
            "fn main f0 {\nb0():\n    assert u1 1, \"open\n}\n",
            "3:18: unterminated string",
        ),
        (
            "fn main f0 {\nb0():\n    return\n",
            "1:1: function is not closed by a `}` line",
        ),
        (
            "fn main f0 {\nb0(v0: field):\n    v1, v2 = add v0, v0\n    return\n}\n",
            "3:14: `add` defines 1 value(s), but 2 are named",
        ),
        ("block\n", "1:1: expected `fn`"),
        (
            "",
            "1:1: expected at least one function (`fn NAME fN { ... }`)",
        ),
    ];
    for (text, expected) in cases {
        let err = ir::parse_program(text).expect_err(text);
        assert_eq!(err.to_string(), *expected, "for input:\n{text}");
    }
}

/// Every `.ir` file shipped with the crate (tests and examples) prints and re-parses to the same
/// normalized program.
#[test]
fn every_shipped_program_round_trips() {
    fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                collect(&path, out);
            } else if path.extension().is_some_and(|e| e == "ir") {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["tests", "examples", "circuits"] {
        if std::path::Path::new(dir).is_dir() {
            collect(std::path::Path::new(dir), &mut files);
        }
    }
    assert!(files.len() >= 15, "found only {} .ir files", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // A pass test (`tests/opt/`, read by `tests/filetests.rs`) holds the program and, after
        // `; expect:`, the one the passes leave: each round-trips.
        let mut programs = text.split("\n; expect:\n");
        let text = programs.next().unwrap_or_default();
        let expected = programs.next();
        for text in std::iter::once(text).chain(expected) {
            round_trips_as_shipped(&path, text);
        }
    }
}

/// `text` (from `path`) prints and re-parses to the same normalized program.
fn round_trips_as_shipped(path: &std::path::Path, text: &str) {
    let program = ir::parse_program(text).unwrap_or_else(|e| panic!("{}:{e}", path.display()));
    let reparsed = ir::parse_program(&program.to_string()).unwrap();
    assert_eq!(
        reparsed.normalized_text(),
        program.normalized_text(),
        "{}",
        path.display()
    );
}
