//! The random CFG generators draw valid IR with the shapes the property tests rely on.

use zkbc::analysis::LoopForest;
use zkbc::ir::verify::verify_function;
use zkbc::ir::Terminator;
use zkbc_testkit::random_cfg::{
    random_cfg, random_structured_cfg, remove_unreachable, CfgConfig, StructuredConfig,
};

#[test]
fn random_cfgs_are_valid_ir_once_unreachable_blocks_are_removed() {
    let mut n_removed = 0;
    for seed in 0..300 {
        let mut func = random_cfg(seed, &CfgConfig::default());
        let before = func.layout.len();
        remove_unreachable(&mut func);
        n_removed += before - func.layout.len();
        verify_function(&func, None).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
    assert!(n_removed > 100, "{n_removed}");
}

#[test]
fn structured_cfgs_are_valid_reducible_ir_with_returns_calls_and_loops() {
    let (mut n_returns, mut n_calls, mut n_loops) = (0, 0, 0);
    for seed in 0..300 {
        let func = random_structured_cfg(seed, &StructuredConfig::default());
        verify_function(&func, None).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let forest = LoopForest::new(&func);
        assert!(forest.is_reducible());
        n_loops += forest.loops().len();
        let returns = func
            .layout
            .iter()
            .filter(|b| matches!(func.block(**b).term, Some(Terminator::Return(_))))
            .count();
        // An early return besides the final one.
        n_returns += usize::from(returns > 1);
        n_calls += usize::from(func.has_calls());
    }
    assert!(
        n_returns > 40 && n_calls > 30 && n_loops > 150,
        "{n_returns} {n_calls} {n_loops}"
    );
}
