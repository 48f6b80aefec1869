//! No input makes the front end panic: random token soups and mutated valid programs go through
//! lexer, parser and type checker, which must return `Ok` or a diagnostic whose span lies inside
//! the source. Bounded so that it runs in about a second; raise `ZKBC_RANDOM_CASES` for more.

use proptest::prelude::*;
use zkbc::front::check_source;

const SEEDS: &[&str] = &[
    "def main(private field a, u32 n) -> field {\n  field mut x = a;\n  for u32 i in 0..n { x = x * a + 1; }\n  return x;\n}\n",
    "struct P { field x; u8[2] y; }\nconst u32 N = 2;\ndef f(P p) -> (field, u8) { return (p.x, p.y[1]); }\ndef main(P p) -> field {\n  (field, u8) t = f(p);\n  return t.0 * 2;\n}\n",
    "import \"utils/casts/u32_to_bits\" as to_bits;\ndef main(u32 a) -> bool {\n  bool[32] b = to_bits(a);\n  return b[0] || !b[31] && a < 0x0000ffff ? true : false;\n}\n",
    "def main(field a) -> field {\n  u32 mut i = 0;\n  while i < 10 { i = i + 1; if i == 5 { return a; } else if i == 6 { i = 7; } }\n  assert(a != 0, \"nonzero\");\n  return a ** 3 / a - -a;\n}\n",
    "def main(u64 a, u16 b) -> (u64, u16) {\n  u8[4] mut arr = [1, 2, 3, 4];\n  arr[(b % 4 == 1 ? 2 : 3)] = 0xff;\n  return (a << 3 ^ a >> 2 & 7, b | 1);\n}\n",
];

const TOKENS: &[&str] = &[
    "def", "main", "(", ")", "{", "}", "[", "]", "field", "u32", "u8", "bool", "mut", "x", "y",
    "=", ";", ",", "return", "if", "else", "for", "in", "..", "while", "1", "0x00", "5u32", "+",
    "*", "**", "-", "!", "<", "==", "&&", "?", ":", ".", "0", "struct", "P", "const", "assert",
    "\"s\"", "->", "...", "/*", "*/", "//", "\n", "import", "true",
];

use crate::common;

/// 400 cases per property unless `ZKBC_RANDOM_CASES` asks for another number.
fn cases() -> u32 {
    u32::try_from(common::random_cases(400)).expect("ZKBC_RANDOM_CASES fits in a u32")
}

fn check_no_panic(src: &str) {
    if let Err(d) = check_source(src) {
        assert!(
            d.span.start <= d.span.end && d.span.end <= src.len(),
            "bad span {:?}",
            d.span
        );
        // Rendering must not panic either.
        let _ = d.render("fuzz.zok", src);
    }
}

fn mutate(seed: &str, ops: &[(u8, usize, usize)]) -> String {
    let mut s: Vec<u8> = seed.as_bytes().to_vec();
    for &(kind, a, b) in ops {
        if s.is_empty() {
            break;
        }
        let i = a % s.len();
        match kind % 4 {
            0 => {
                s.remove(i);
            }
            1 => {
                let tok = TOKENS[b % TOKENS.len()].as_bytes();
                for (k, &c) in tok.iter().enumerate() {
                    s.insert(i + k, c);
                }
            }
            2 => {
                let j = b % s.len();
                s.swap(i, j);
            }
            _ => {
                let j = (i + b % 16).min(s.len());
                let chunk: Vec<u8> = s[i..j].to_vec();
                let k = b % s.len();
                for (n, c) in chunk.into_iter().enumerate() {
                    s.insert(k + n, c);
                }
            }
        }
    }
    String::from_utf8_lossy(&s).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn token_soup(toks in prop::collection::vec(0..TOKENS.len(), 0..60)) {
        let src: Vec<&str> = toks.iter().map(|&i| TOKENS[i]).collect();
        check_no_panic(&src.join(" "));
    }

    #[test]
    fn mutated_programs(seed in 0..SEEDS.len(), ops in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 1..6)) {
        check_no_panic(&mutate(SEEDS[seed], &ops));
    }

    #[test]
    fn arbitrary_text(s in "\\PC{0,80}") {
        check_no_panic(&s);
    }
}

#[test]
fn seeds_are_valid() {
    for s in SEEDS {
        if let Err(d) = check_source(s) {
            panic!("{}", d.render("seed.zok", s));
        }
    }
}
