//! The solver's SESE regions equal the region analysis: every SESE region
//! ([`RegionTree::all_sese_regions`]) and the canonical ones ([`RegionTree::regions`]), on
//! every function of the corpus (circuits/*.zok lowered) and on random CFGs; the natural-loop
//! query finds exactly the loop forest's back edges.

use std::collections::BTreeSet;
use std::path::Path;
use zkbc::analysis::{LoopForest, RegionEdge, RegionTree};
use zkbc::ir::{BlockId, Function};
use zkbc::query::patterns::{natural_loop_query, sese_query};
use zkbc::query::{Facts, Query, Solution};
use zkbc_testkit::random_cfg::{random_cfg, random_structured_cfg, CfgConfig, StructuredConfig};

fn edges(q: &Query, sols: &[Solution]) -> BTreeSet<(RegionEdge, RegionEdge)> {
    let vars: Vec<_> = q.vars().into_iter().map(|(v, _)| v).collect();
    sols.iter()
        .map(|s| {
            let n = |i: usize| s.get(vars[i]).node();
            (
                RegionEdge {
                    from: n(0),
                    to: n(1),
                },
                RegionEdge {
                    from: n(2),
                    to: n(3),
                },
            )
        })
        .collect()
}

/// Checks both SESE queries against the region tree; returns (all, canonical) counts.
fn check(func: &Function) -> (usize, usize) {
    let facts = Facts::new(func);
    let tree = RegionTree::new(func);
    let all_q = sese_query(false);
    let all = edges(&all_q, &all_q.solve(&facts));
    let want: BTreeSet<_> = tree.all_sese_regions().into_iter().collect();
    assert_eq!(all, want, "SESE regions of {}", func.name);
    let can_q = sese_query(true);
    let canonical = edges(&can_q, &can_q.solve(&facts));
    let want: BTreeSet<_> = tree.regions().iter().map(|r| (r.entry, r.exit)).collect();
    assert_eq!(canonical, want, "canonical SESE regions of {}", func.name);
    (all.len(), canonical.len())
}

fn check_loops(func: &Function) {
    let facts = Facts::new(func);
    let q = natural_loop_query();
    let got: BTreeSet<(BlockId, BlockId)> = q
        .solve(&facts)
        .iter()
        .map(|s| (s.0[1].block(), s.0[0].block()))
        .collect();
    let want: BTreeSet<(BlockId, BlockId)> = LoopForest::new(func)
        .loops()
        .iter()
        .flat_map(|l| l.back_edges.iter().copied())
        .collect();
    assert_eq!(got, want, "back edges of {}", func.name);
}

#[test]
fn sese_query_equals_region_analysis_on_the_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("circuits");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "zok"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "corpus has {} programs", files.len());
    let (mut n_funcs, mut n_regions) = (0, 0);
    for path in files {
        let source = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let (program, _) = zkbc::front::compile_source(&name, &source)
            .unwrap_or_else(|d| panic!("{}", d.render(&name, &source)));
        for func in &program.funcs {
            n_regions += check(func).1;
            check_loops(func);
            n_funcs += 1;
        }
    }
    assert!(
        n_funcs >= 28 && n_regions > 100,
        "{n_funcs} functions, {n_regions} regions"
    );
}

#[test]
fn sese_query_equals_region_analysis_on_1000_random_cfgs() {
    let (mut n_all, mut n_canonical) = (0, 0);
    for seed in 0..1000 {
        let func = random_cfg(seed, &CfgConfig::default());
        let (a, c) = check(&func);
        check_loops(&func);
        n_all += a;
        n_canonical += c;
    }
    // Not vacuous: the graphs have many regions, and not all of them are canonical.
    assert!(
        n_all > n_canonical && n_canonical > 1000,
        "{n_all} {n_canonical}"
    );
}

#[test]
fn sese_query_equals_region_analysis_on_random_structured_cfgs() {
    let mut n_canonical = 0;
    for seed in 0..200 {
        let func = random_structured_cfg(seed, &StructuredConfig::default());
        n_canonical += check(&func).1;
        check_loops(&func);
    }
    assert!(n_canonical > 1000, "{n_canonical}");
}
