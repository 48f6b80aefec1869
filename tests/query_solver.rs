//! The solver enumerates exactly the satisfying assignments: on random CFGs and corpus
//! functions, every query here gives the same solutions as a brute-force check of every tuple
//! of its variables' domains. This tests the proposals and the dynamic variable order, which
//! must never lose a solution or produce one twice.

use std::collections::BTreeSet;
use std::path::Path;
use zkbc::ir::Function;
use zkbc::query::{Entity, Facts, Kind, Pred, Query, QueryBuilder};
use zkbc_testkit::random_cfg::{random_cfg, random_structured_cfg, CfgConfig, StructuredConfig};

/// A conjunction of (possibly negated) predicates over variables `0..kinds.len()`.
struct Spec {
    kinds: Vec<Kind>,
    preds: Vec<(Pred, Vec<usize>, bool)>,
}

impl Spec {
    fn query(&self) -> Query {
        let mut q = Query::new();
        let vars: Vec<_> = self
            .kinds
            .iter()
            .enumerate()
            .map(|(i, k)| q.var(&format!("x{i}"), *k))
            .collect();
        for (p, args, neg) in &self.preds {
            let args: Vec<_> = args.iter().map(|i| vars[*i]).collect();
            if *neg {
                q.add_not(p.clone(), args);
            } else {
                q.add(p.clone(), args);
            }
        }
        q
    }

    fn brute_force(&self, facts: &Facts<'_>) -> BTreeSet<Vec<Entity>> {
        let domains: Vec<Vec<Entity>> = self.kinds.iter().map(|k| k.domain(facts)).collect();
        let mut out = BTreeSet::new();
        let mut idx = vec![0; domains.len()];
        if domains.iter().any(Vec::is_empty) {
            return out;
        }
        loop {
            let tuple: Vec<Entity> = idx.iter().zip(&domains).map(|(i, d)| d[*i]).collect();
            let ok = self.preds.iter().all(|(p, args, neg)| {
                let a: Vec<Entity> = args.iter().map(|i| tuple[*i]).collect();
                p.holds(facts, &a) != *neg
            });
            if ok {
                out.insert(tuple);
            }
            // Next tuple (odometer).
            let mut k = 0;
            loop {
                if k == idx.len() {
                    return out;
                }
                idx[k] += 1;
                if idx[k] < domains[k].len() {
                    break;
                }
                idx[k] = 0;
                k += 1;
            }
        }
    }
}

fn specs(with_values: bool) -> Vec<Spec> {
    use Kind::*;
    let mut out = vec![
        Spec {
            kinds: vec![Block, Block, Block],
            preds: vec![
                (Pred::ControlEdge, vec![0, 1], false),
                (Pred::ControlEdge, vec![1, 2], false),
                (Pred::Dominates, vec![0, 2], true),
            ],
        },
        Spec {
            kinds: vec![Block, Block],
            preds: vec![
                (Pred::ControlDependent, vec![1, 0], false),
                (Pred::SameLoop, vec![0, 1], true),
            ],
        },
        Spec {
            kinds: vec![Loop, Block, Block],
            preds: vec![
                (Pred::InLoop, vec![1, 0], false),
                (Pred::LoopHeader, vec![0, 2], false),
                (Pred::Distinct, vec![1, 2], false),
                (Pred::PostDominates, vec![1, 2], false),
            ],
        },
        Spec {
            kinds: vec![Node, Node, Node],
            preds: vec![
                (Pred::ExtEdge, vec![0, 1], false),
                (Pred::ExtEdge, vec![1, 2], false),
                (Pred::EdgeDominates, vec![0, 1, 1, 2], false),
                (Pred::CycleEquivalent, vec![0, 1, 1, 2], true),
            ],
        },
        Spec {
            kinds: vec![Block, Block, Loop],
            preds: vec![
                (Pred::Dominates, vec![0, 1], false),
                (Pred::PostDominates, vec![1, 0], false),
                (Pred::InLoop, vec![1, 2], true),
                (Pred::LoopLatch, vec![2, 0], false),
            ],
        },
    ];
    if with_values {
        out.push(Spec {
            kinds: vec![Block, Block, Value, Value],
            preds: vec![
                (Pred::JumpArg, vec![0, 1, 2, 3], false),
                (Pred::Equal, vec![2, 3], true),
            ],
        });
        out.push(Spec {
            kinds: vec![Inst, Value, Block],
            preds: vec![
                (Pred::Operand(None), vec![0, 1], false),
                (Pred::ParamOf, vec![1, 2], false),
                (Pred::InBlock, vec![0, 2], true),
            ],
        });
        out.push(Spec {
            kinds: vec![Inst, Value, Value],
            preds: vec![
                (Pred::Result, vec![0, 1], false),
                (Pred::Operand(Some(0)), vec![0, 2], false),
                (Pred::IsConst, vec![2], true),
                (Pred::SameType, vec![1, 2], false),
            ],
        });
    }
    out
}

fn check(func: &Function, with_values: bool) -> usize {
    let facts = Facts::new(func);
    let mut n = 0;
    for (k, spec) in specs(with_values).iter().enumerate() {
        let got: Vec<Vec<Entity>> = spec
            .query()
            .solve(&facts)
            .into_iter()
            .map(|s| s.0)
            .collect();
        let unique: BTreeSet<Vec<Entity>> = got.iter().cloned().collect();
        assert_eq!(
            got.len(),
            unique.len(),
            "spec {k} on {}: a solution twice",
            func.name
        );
        assert_eq!(
            unique,
            spec.brute_force(&facts),
            "spec {k} on {}",
            func.name
        );
        n += got.len();
    }
    n
}

#[test]
fn solver_equals_brute_force_on_random_cfgs() {
    let mut n = 0;
    for seed in 0..150 {
        n += check(&random_cfg(seed, &CfgConfig::default()), true);
        n += check(
            &random_structured_cfg(seed, &StructuredConfig::default()),
            false,
        );
    }
    assert!(n > 2000, "{n} solutions");
}

#[test]
fn solver_equals_brute_force_on_corpus_functions() {
    let mut n = 0;
    for name in ["gcd", "early_return", "nested_loops", "else_if"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("circuits/{name}.zok"));
        let source = std::fs::read_to_string(&path).unwrap();
        let (program, _) = zkbc::front::compile_source(name, &source).unwrap();
        for func in &program.funcs {
            n += check(func, true);
        }
    }
    assert!(n > 50, "{n} solutions");
}

/// A negated sub-query: branches with no successor that post-dominates them, against the
/// same condition written out.
#[test]
fn not_exists_is_negation_of_a_sub_search() {
    let mut n = 0;
    for seed in 0..300 {
        let func = random_cfg(seed, &CfgConfig::default());
        let facts = Facts::new(&func);
        let mut q = Query::new();
        let x = q.var("x", Kind::Block);
        q.add(Pred::EndsInBranch, [x]);
        q.not_exists(|s| {
            let y = s.var("y", Kind::Block);
            s.add(Pred::ControlEdge, [x, y]);
            s.add(Pred::PostDominates, [y, x]);
        });
        let got: Vec<Entity> = q.solve(&facts).into_iter().map(|s| s.0[0]).collect();
        let want: Vec<Entity> = Kind::Block
            .domain(&facts)
            .into_iter()
            .filter(|&b| {
                Pred::EndsInBranch.holds(&facts, &[b])
                    && !Kind::Block.domain(&facts).into_iter().any(|c| {
                        Pred::ControlEdge.holds(&facts, &[b, c])
                            && Pred::PostDominates.holds(&facts, &[c, b])
                    })
            })
            .collect();
        let mut want = want;
        want.sort();
        assert_eq!(got, want, "{}", func.name);
        n += got.len();
    }
    assert!(n > 100, "{n}");
}

#[test]
fn query_text_shows_constraints() {
    let q = zkbc::query::patterns::sese_query(false);
    assert_eq!(
        q.to_string(),
        "vars a:node, b:node, c:node, d:node; ext_edge(a, b), ext_edge(c, d), \
         edge_dominates(a, b, c, d), edge_post_dominates(c, d, a, b), \
         cycle_equivalent(a, b, c, d), not (equal(a, c), equal(b, d))"
    );
}

/// The text syntax builds the same query as the Rust builder.
#[test]
fn text_queries_solve_like_built_ones() {
    let text =
        zkbc::query::parse_query("block h, block t: control_edge(t, h), dominates(h, t)").unwrap();
    let built = zkbc::query::patterns::natural_loop_query();
    let params = zkbc::query::parse_query(
        "inst i, value v, block b: opcode[add|mul](i), operand[0](i, v), has_type[u1](v), \
         not param_of(v, b), in_block(i, b)",
    )
    .unwrap();
    for seed in 0..100 {
        let func = random_structured_cfg(seed, &StructuredConfig::default());
        let facts = Facts::new(&func);
        assert_eq!(text.solve(&facts), built.solve(&facts));
        assert!(
            params.solve(&facts).is_empty(),
            "random CFGs have no add or mul"
        );
    }
}

#[test]
fn text_query_errors_say_where() {
    let err = |t: &str| zkbc::query::parse_query(t).unwrap_err();
    assert_eq!(
        err("block h"),
        "expected `DECLS: CONSTRAINTS`, e.g. `block h, block t: control_edge(t, h)`"
    );
    assert_eq!(
        err("blok h: ends_in_branch(h)"),
        "column 1: unknown kind `blok` (block, node, inst, value, loop)"
    );
    assert_eq!(
        err("block h: ends_in_branch(x)"),
        "column 10: `x` is not a declared variable"
    );
    assert_eq!(
        err("block h, value v: dominates(h, v)"),
        "column 19: `dominates` takes (block, block), given (block, value)"
    );
    assert_eq!(
        err("value v: has_type[u7](v)"),
        "column 10: unknown type `u7` (field, u1, u8, u16, u32, u64)"
    );
    assert_eq!(
        err("block h, block h: ends_in_branch(h)"),
        "column 9: `h` is declared twice"
    );
}
