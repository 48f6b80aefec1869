//! Every shipped query, text in, text out: the matches `zkbc query` prints for small IR and
//! ZoKrates programs, including programs with no match. Refresh with `UPDATE_EXPECT=1`.

use expect_test::{expect, Expect};
use zkbc::query::{find_matches, find_pattern, format_matches};

/// The matches of `pattern` in `source`: ZoKrates when it has a `def`, else IR text.
fn check(pattern: &str, source: &str, expected: Expect) {
    let pattern = find_pattern(pattern).expect("a shipped pattern");
    let zok = source.contains("def ");
    let program = if zok {
        zkbc::front::compile_source("test.zok", source)
            .unwrap_or_else(|d| panic!("{}", d.render("test.zok", source)))
            .0
    } else {
        let p = zkbc::ir::parse_program(source).expect("IR parses");
        zkbc::ir::verify::verify_program(&p).expect("IR verifies");
        p
    };
    let mut program = program;
    if !pattern.before.is_empty() {
        let pipeline = zkbc::opt::Pipeline::from_names(pattern.before).expect("shipped passes");
        zkbc::opt::optimize(&mut program, &pipeline, &zkbc::opt::Options::default())
            .expect("the passes run");
    }
    let matches = find_matches(&program, &pattern);
    let file = zok.then_some("test.zok");
    expected.assert_eq(&format_matches(&program, pattern.name, &matches, file));
}

const IF_ELSE: &str = "
fn main f0 -> u32 {
b0(v0: u1, v1: u32):
    br v0, b1(), b2()
b1():
    v2 = add v1, u32 1
    jmp b3(v2)
b2():
    jmp b3(v1)
b3(v3: u32):
    return v3
}
";

const INFINITE: &str = "
fn main f0 {
b0():
    jmp b1()
b1():
    jmp b1()
}
";

const STRAIGHT: &str = "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = mul v0, v0
    return v1
}
";

#[test]
fn sese_if_else() {
    check(
        "sese",
        IF_ELSE,
        expect![[r#"
        f0 main: a=start b=b0 c=b3 d=end; blocks {b0, b1, b2, b3}
        f0 main: a=b0 b=b1 c=b1 d=b3; blocks {b1}
        f0 main: a=b0 b=b2 c=b2 d=b3; blocks {b2}
    "#]],
    );
}

#[test]
fn sese_no_match_without_a_return() {
    check(
        "sese",
        INFINITE,
        expect![[r#"
        no match of sese
    "#]],
    );
}

#[test]
fn sese_canonical_if_else() {
    check(
        "sese-canonical",
        IF_ELSE,
        expect![[r#"
        f0 main: a=start b=b0 c=b3 d=end; blocks {b0, b1, b2, b3}
        f0 main: a=b0 b=b1 c=b1 d=b3; blocks {b1}
        f0 main: a=b0 b=b2 c=b2 d=b3; blocks {b2}
    "#]],
    );
}

#[test]
fn sese_canonical_no_match_without_a_return() {
    check(
        "sese-canonical",
        INFINITE,
        expect![[r#"
        no match of sese-canonical
    "#]],
    );
}

#[test]
fn sese_canonical_while_loop_zok() {
    check(
        "sese-canonical",
        "
def main(u32 n) -> u32 {
    u32 mut i = 0;
    while i < n {
        i = i + 2;
    }
    return i;
}
",
        expect![[r#"
            f0 main: a=start b=b0 c=b0 d=b1; blocks {b0}
            f0 main: a=b0 b=b1 c=b1 d=b3; blocks {b1, b2}
            f0 main: a=b1 b=b2 c=b2 d=b1; blocks {b2}
            f0 main: a=b1 b=b3 c=b3 d=end; blocks {b3}
        "#]],
    );
}

#[test]
fn natural_loop_nested() {
    check(
        "natural-loop",
        "
def main(field x) -> field {
    field mut s = x;
    for u32 i in 0..3 {
        for u32 j in 0..i {
            s = s * x;
        }
    }
    return s;
}
",
        expect![[r#"
            f0 main: header=b1 latch=b6
            f0 main: header=b4 latch=b5
        "#]],
    );
}

#[test]
fn natural_loop_no_match_in_straight_line_code() {
    check(
        "natural-loop",
        STRAIGHT,
        expect![[r#"
        no match of natural-loop
    "#]],
    );
}

#[test]
fn counted_loop_constant_and_runtime_bounds() {
    check(
        "counted-loop",
        "
def main(field x, u32 n) -> field {
    field mut s = x;
    for u32 i in 0..10 {
        s = s + x;
    }
    for u32 j in 3..n {
        s = s * x;
    }
    return s;
}
",
        expect![[r#"
            f0 main: loop=loop0 header=b1 latch=b2 iv=v5 init=u32 0 step=u32 1 cmp=v6:lt@b1 (4:5) bound=u32 10; trips=10
                at test.zok:4:5
            f0 main: loop=loop1 header=b4 latch=b5 iv=v12 init=u32 3 step=u32 1 cmp=v13:lt@b4 (7:5) bound=v1; trips=? (runtime bound)
                at test.zok:7:5
        "#]],
    );
}

#[test]
fn counted_loop_le_step_two_and_wrapping() {
    // `le` against 10 stepping by 2 from 1: 1 3 5 7 9 -> 5 trips. The u8 counter steps 200,
    // 230, then wraps to 4, 34, ... and runs until it lands in 250..=255: 53 trips (the
    // interpreter's wrapping arithmetic, checked against the interpreter below).
    check(
        "counted-loop",
        "
fn main f0 -> u32 {
b0():
    jmp b1(u32 1)
b1(v1: u32):
    v2 = le v1, u32 10
    br v2, b2(), b3()
b2():
    v3 = add v1, u32 2
    jmp b1(v3)
b3():
    jmp b4(u8 200)
b4(v4: u8):
    v5 = lt v4, u8 250
    br v5, b5(), b6()
b5():
    v6 = add u8 30, v4
    jmp b4(v6)
b6():
    return v1
}
",
        expect![[r#"
            f0 main: loop=loop0 header=b1 latch=b2 iv=v1 init=u32 1 step=u32 2 cmp=v2:le@b1 bound=u32 10; trips=5
            f0 main: loop=loop1 header=b4 latch=b5 iv=v4 init=u8 200 step=u8 30 cmp=v5:lt@b4 bound=u8 250; trips=53
        "#]],
    );
}

#[test]
fn counted_loop_no_match_for_a_memory_counter() {
    // A `while` loop keeps its counter in memory until mem2reg: no block parameter to match.
    check(
        "counted-loop",
        "
def main(u32 n) -> u32 {
    u32 mut i = 0;
    while i < n {
        i = i + 1;
    }
    return i;
}
",
        expect![[r#"
            no match of counted-loop
        "#]],
    );
}

#[test]
fn counted_loop_no_match_when_the_step_is_not_constant() {
    check(
        "counted-loop",
        "
fn main f0 -> u32 {
b0(v0: u32):
    jmp b1(u32 0)
b1(v1: u32):
    v2 = lt v1, u32 100
    br v2, b2(), b3()
b2():
    v3 = add v1, v0
    jmp b1(v3)
b3():
    return v1
}
",
        expect![[r#"
            no match of counted-loop
        "#]],
    );
}

#[test]
fn dot_product_memory_accumulator_zok() {
    check(
        "dot-product",
        "
def main(field[4] a, field[4] b) -> field {
    field mut s = 0;
    for u32 i in 0..4 {
        s = s + a[i] * b[i];
    }
    return s;
}
",
        expect![[r#"
            f0 main: loop=loop0 iv=v6 mul=v11:mul@b2 (5:9) get_x=v9:array_get@b2 (5:17) get_y=v10:array_get@b2 (5:24) add=v12:add@b2 (5:9) acc=v8 cell=v3; trips=4
                at test.zok:4:5, test.zok:5:9, test.zok:5:17, test.zok:5:24
        "#]],
    );
}

#[test]
fn dot_product_register_accumulator_ir() {
    // The form after mem2reg: the accumulator is a parameter of the header.
    check(
        "dot-product",
        "
fn main f0 -> field {
b0(v0: [field; 3], v1: [field; 3]):
    jmp b1(u32 0, field 0)
b1(v2: u32, v3: field):
    v4 = lt v2, u32 3
    br v4, b2(), b3()
b2():
    v5 = array_get v0, v2 @4:17
    v6 = array_get v1, v2 @4:24
    v7 = mul v5, v6
    v8 = add v3, v7
    v9 = add v2, u32 1
    jmp b1(v9, v8)
b3():
    return v3
}
",
        expect![[r#"
            f0 main: loop=loop0 iv=v2 mul=v7:mul@b2 get_x=v5:array_get@b2 (4:17) get_y=v6:array_get@b2 (4:24) add=v8:add@b2 acc=v3; trips=3
                at 4:17, 4:24
        "#]],
    );
}

#[test]
fn dot_product_matrix_multiplication() {
    check(
        "dot-product",
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/circuits/matmul.zok"))
            .unwrap(),
        expect![[r#"
            f0 mul: loop=loop2 iv=v18 mul=v25:mul@b8 (10:17) get_x=v22:array_get@b8 (10:25) get_y=v24:array_get@b8 (10:35) add=v26:add@b8 (10:17) acc=v20 cell=v15; trips=3
                at test.zok:9:13, test.zok:10:17, test.zok:10:25, test.zok:10:35
        "#]],
    );
}

#[test]
fn dot_product_no_match_for_a_plain_sum_or_a_fixed_factor() {
    check(
        "dot-product",
        "
def main(field[4] a, field[4] b) -> (field, field) {
    field mut s = 0;
    field mut t = 0;
    for u32 i in 0..4 {
        s = s + a[i];
        t = t + a[i] * b[0];
    }
    return (s, t);
}
",
        expect![[r#"
            no match of dot-product
        "#]],
    );
}

#[test]
fn bits_round_trip_zok() {
    check(
        "bits-round-trip",
        "
import \"utils/casts/u32_to_bits\" as to_bits;
import \"utils/casts/u32_from_bits\" as from_bits;
def main(u32 x, u32 y) -> u32 {
    u32 z = from_bits(to_bits(x + y));
    return z * 2;
}
",
        expect![[r#"
            f0 main: to_bits=v3:to_bits@b0 (5:13) from_bits=v4:from_bits@b0 (5:13) x=v2 bits=v3 y=v4
                at test.zok:5:13
        "#]],
    );
}

#[test]
fn bits_round_trip_field_ir() {
    check(
        "bits-round-trip",
        "
fn main f0 -> field {
b0(v0: field):
    v1 = to_bits v0
    v2 = from_bits v1 to field
    return v2
}
",
        expect![[r#"
            f0 main: to_bits=v1:to_bits@b0 from_bits=v2:from_bits@b0 x=v0 bits=v1 y=v2
        "#]],
    );
}

#[test]
fn bits_round_trip_no_match_for_changed_or_reversed_bits() {
    // A bit changed between decomposition and recomposition, and the bit-reversal of
    // circuits/bits.zok.
    check(
        "bits-round-trip",
        "
fn main f0 -> u32 {
b0(v0: u32):
    v1 = to_bits v0
    v2 = array_set v1, u32 0, u1 0
    v3 = from_bits v2 to u32
    return v3
}
",
        expect![[r#"
            no match of bits-round-trip
        "#]],
    );
    check(
        "bits-round-trip",
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/circuits/bits.zok"))
            .unwrap(),
        expect![[r#"
            no match of bits-round-trip
        "#]],
    );
}

/// A Merkle path written out level by level: each level (two selects by the direction bit, as
/// branches at this level, and the hash) is one copy; the running hash is carried from the
/// copy before, the level's index is the one constant that differs.
const MERKLE_LEVELS: &str = "
def h(field a, field b) -> field {
    field t = a * b + a;
    return t * t + b;
}

def main(field root, private field leaf, private field[3] path, private bool[3] dir) -> bool {
    field h0 = leaf;
    field l0 = dir[0] ? path[0] : h0;
    field r0 = dir[0] ? h0 : path[0];
    field h1 = h(l0, r0);
    field l1 = dir[1] ? path[1] : h1;
    field r1 = dir[1] ? h1 : path[1];
    field h2 = h(l1, r1);
    field l2 = dir[2] ? path[2] : h2;
    field r2 = dir[2] ? h2 : path[2];
    field h3 = h(l2, r2);
    return h3 == root;
}
";

#[test]
fn interface_merkle_levels() {
    check(
        "interface",
        MERKLE_LEVELS,
        expect![[r#"
            f1 main: 3 copies of 17 statements (5 instructions, 6 blocks); interface: 4 inputs (1 carried from the copy before, 1 constant) -> 1 output; the first copy reads [v3, u32 0, v1, v2] and defines [v14]; copies from v5, v16, v27
                at test.zok:9:16, test.zok:12:16, test.zok:15:16
        "#]],
    );
}

/// Rounds written out with their constants inline, through a `mut` local (promoted by the
/// pattern's mem2reg): the round constant differs, the state is carried.
#[test]
fn interface_rounds_with_constants() {
    check(
        "interface",
        "
def main(field x) -> field {
    field mut s = x;
    s = s + 3;
    s = s * s * s;
    s = s * 5 + x;
    s = s + 7;
    s = s * s * s;
    s = s * 5 + x;
    s = s + 11;
    s = s * s * s;
    s = s * 5 + x;
    return s;
}
",
        expect![[r#"
            f0 main: 3 copies of 5 statements (5 instructions, 0 blocks); interface: 3 inputs (1 carried from the copy before, 1 constant) -> 1 output; the first copy reads [v0, field 3, v0] and defines [v13]; copies from v4, v16, v28
                at test.zok:4:5, test.zok:7:5, test.zok:10:5
        "#]],
    );
}

#[test]
fn interface_no_match_in_code_written_once() {
    check(
        "interface",
        STRAIGHT,
        expect![[r#"
            no match of interface
        "#]],
    );
}

/// A local cell written by every copy is promoted by the pattern's mem2reg first, so the copies
/// are pure: each reads the value the copy before stored and `v0` (which the first copy reads
/// for both).
#[test]
fn interface_sees_through_a_local_cell() {
    check(
        "interface",
        "
fn main f0 -> field {
b0(v0: field):
    v1 = allocate field
    v2 = mul v0, v0
    v3 = add v2, v0
    v4 = mul v3, v3
    v5 = add v4, v0
    store v5 at v1
    v6 = mul v5, v5
    v7 = add v6, v0
    v8 = mul v7, v7
    v9 = add v8, v0
    store v9 at v1
    v10 = mul v9, v9
    v11 = add v10, v0
    v12 = mul v11, v11
    v13 = add v12, v0
    store v13 at v1
    v14 = load v1
    return v14
}
",
        expect![[r#"
            f0 main: 3 copies of 4 statements (4 instructions, 0 blocks); interface: 2 inputs (1 carried from the copy before, 0 constants) -> 1 output; the first copy reads [v0, v0] and defines [v5]; copies from v2, v6, v10
        "#]],
    );
}
