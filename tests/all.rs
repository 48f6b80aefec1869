//! Every integration test in one binary: one link of the library and its dependencies instead
//! of one per file, and the tests of all files scheduled on one pool (the files stay where
//! they were; each is a module here). `cargo test --test all NAME` runs the tests whose path
//! holds NAME (a file's tests: `cargo test --test all apps::`). Two files stay binaries of
//! their own: `formation_budget.rs` observes the process's formation stages, which the other
//! tests' compiles would announce into, and `stats_memory.rs` reads peak memory.

mod common;
#[path = "r1cs_common.rs"]
mod r1cs_common;

#[path = "analysis_cdg.rs"]
mod analysis_cdg;
#[path = "analysis_components.rs"]
mod analysis_components;
#[path = "analysis_dominators.rs"]
mod analysis_dominators;
#[path = "analysis_known_bits.rs"]
mod analysis_known_bits;
#[path = "analysis_liveness.rs"]
mod analysis_liveness;
#[path = "analysis_loops.rs"]
mod analysis_loops;
#[path = "analysis_pdg.rs"]
mod analysis_pdg;
#[path = "analysis_random.rs"]
mod analysis_random;
#[path = "analysis_ranges.rs"]
mod analysis_ranges;
#[path = "analysis_regions.rs"]
mod analysis_regions;
#[path = "analysis_repeats.rs"]
mod analysis_repeats;
#[path = "apps.rs"]
mod apps;
#[path = "binary_allocator.rs"]
mod binary_allocator;
#[path = "calls_formed.rs"]
mod calls_formed;
#[path = "calls_kept.rs"]
mod calls_kept;
#[path = "check_corpus.rs"]
mod check_corpus;
#[path = "cli_common_flags.rs"]
mod cli_common_flags;
#[path = "cli_ir.rs"]
mod cli_ir;
#[path = "corpus.rs"]
mod corpus;
#[path = "cost_counts.rs"]
mod cost_counts;
#[path = "export_iden3.rs"]
mod export_iden3;
#[path = "export_manifest.rs"]
mod export_manifest;
#[path = "export_private.rs"]
mod export_private;
#[path = "export_snarkjs.rs"]
mod export_snarkjs;
#[path = "filetests.rs"]
mod filetests;
#[path = "formation_split.rs"]
mod formation_split;
#[path = "front_cli.rs"]
mod front_cli;
#[path = "front_errors.rs"]
mod front_errors;
#[path = "front_fuzz.rs"]
mod front_fuzz;
#[path = "front_lower.rs"]
mod front_lower;
#[path = "front_modules.rs"]
mod front_modules;
#[path = "front_zokrates_language.rs"]
mod front_zokrates_language;
#[path = "inline_cost.rs"]
mod inline_cost;
#[path = "ir_interp.rs"]
mod ir_interp;
#[path = "ir_robustness.rs"]
mod ir_robustness;
#[path = "ir_text.rs"]
mod ir_text;
#[path = "ir_verify.rs"]
mod ir_verify;
#[path = "memory.rs"]
mod memory;
#[path = "merge_corpus.rs"]
mod merge_corpus;
#[path = "merge_formation.rs"]
mod merge_formation;
#[path = "merge_pass.rs"]
mod merge_pass;
#[path = "merge_regressions.rs"]
mod merge_regressions;
#[path = "opt_cli.rs"]
mod opt_cli;
#[path = "opt_levels_monotone.rs"]
mod opt_levels_monotone;
#[path = "opt_outline.rs"]
mod opt_outline;
#[path = "opt_random.rs"]
mod opt_random;
#[path = "opt_sccp_acyclic.rs"]
mod opt_sccp_acyclic;
#[path = "opt_shared_arms.rs"]
mod opt_shared_arms;
#[path = "profile_cli.rs"]
mod profile_cli;
#[path = "profile_corpus.rs"]
mod profile_corpus;
#[path = "prove_corpus.rs"]
mod prove_corpus;
#[path = "prove_groth16.rs"]
mod prove_groth16;
#[path = "prove_props.rs"]
mod prove_props;
#[path = "prove_spartan.rs"]
mod prove_spartan;
#[path = "prove_spartan_key.rs"]
mod prove_spartan_key;
#[path = "prove_spartan_tamper.rs"]
mod prove_spartan_tamper;
#[path = "prove_sumcheck.rs"]
mod prove_sumcheck;
#[path = "query_cli.rs"]
mod query_cli;
#[path = "query_fold_and_loops.rs"]
mod query_fold_and_loops;
#[path = "query_patterns.rs"]
mod query_patterns;
#[path = "query_sese.rs"]
mod query_sese;
#[path = "query_solver.rs"]
mod query_solver;
#[path = "r1cs_bit_chains.rs"]
mod r1cs_bit_chains;
#[path = "r1cs_cli.rs"]
mod r1cs_cli;
#[path = "r1cs_consuming.rs"]
mod r1cs_consuming;
#[path = "r1cs_programs.rs"]
mod r1cs_programs;
#[path = "r1cs_soundness_corpus.rs"]
mod r1cs_soundness_corpus;
#[path = "reliability_limits.rs"]
mod reliability_limits;
#[path = "reliability_passes.rs"]
mod reliability_passes;
#[path = "reliability_random.rs"]
mod reliability_random;
#[path = "reliability_soundness.rs"]
mod reliability_soundness;
#[path = "report_cli.rs"]
mod report_cli;
#[path = "report_cost.rs"]
mod report_cost;
#[path = "report_output.rs"]
mod report_output;
#[path = "report_pipeline.rs"]
mod report_pipeline;
#[path = "report_predict_prover.rs"]
mod report_predict_prover;
#[path = "stdlib_builtin.rs"]
mod stdlib_builtin;
#[path = "zokrates_examples.rs"]
mod zokrates_examples;
#[path = "zokrates_inputs.rs"]
mod zokrates_inputs;
#[path = "zokrates_parity.rs"]
mod zokrates_parity;
#[path = "zokrates_stdlib.rs"]
mod zokrates_stdlib;
#[path = "zokrates_suite.rs"]
mod zokrates_suite;
