//! Random control-flow graphs for property tests of the analyses.
//!
//! Two generators, both deterministic functions of a `u64` seed (drawn from the testkit's one
//! [`Rng`], a SplitMix64):
//!
//! - [`random_cfg`] draws an arbitrary CFG: every block ends in `jmp`, `br` or `return` with
//!   random targets, so the graphs have unreachable blocks, self loops, multiple returns,
//!   infinite loops (blocks that reach no return), irreducible cycles and `br` instructions whose
//!   two arms are the same block. [`CfgConfig::entry_preds`] also lets jumps target the entry
//!   block (which [`zkbc::ir::verify`] rejects, but the graph algorithms must still handle).
//! - [`random_structured_cfg`] expands a small grammar of statements (`seq`, `if`, `if/else`,
//!   `while`, `return`, `call`, plain blocks) into the CFG a front end would emit, so the graphs
//!   look like compiled programs: reducible, with nested loops and early returns.
//!
//! The functions are valid IR apart from reachability: every block has one `u1` parameter, which
//! it uses as its `br` condition and passes to its successors, so definitions dominate uses in
//! any CFG. Functions return nothing; a `call` calls `f1` with no arguments and no results.

use crate::Rng;
use zkbc::ir::{BlockId, FuncId, Function, FunctionBuilder, InstKind, Type, ValueId};

/// The shape of the graphs [`random_cfg`] draws.
#[derive(Clone, Debug)]
pub struct CfgConfig {
    /// The number of blocks is drawn from `1..=max_blocks`.
    pub max_blocks: usize,
    /// Percent chance that a block returns (otherwise it jumps or branches).
    pub return_percent: u64,
    /// Percent chance that a non-returning block branches (otherwise it jumps).
    pub branch_percent: u64,
    /// Percent chance that a target is a later block in the layout (otherwise any block): a
    /// forward bias gives longer paths and fewer unreachable blocks.
    pub forward_percent: u64,
    /// Whether jumps may target the entry block.
    pub entry_preds: bool,
}

impl Default for CfgConfig {
    fn default() -> CfgConfig {
        CfgConfig {
            max_blocks: 12,
            return_percent: 20,
            branch_percent: 60,
            forward_percent: 65,
            entry_preds: false,
        }
    }
}

/// A function with a random CFG drawn from `seed` (see the module doc).
pub fn random_cfg(seed: u64, config: &CfgConfig) -> Function {
    let mut rng = Rng::new(seed);
    let n = rng.range(1, config.max_blocks.max(1));
    let mut func = Function::new(format!("cfg{seed}"), Vec::new());
    let mut b = FunctionBuilder::new(&mut func);
    let mut blocks = vec![b.func().entry];
    for _ in 1..n {
        blocks.push(b.create_block());
    }
    let conds: Vec<ValueId> = blocks
        .iter()
        .map(|&blk| b.add_block_param(blk, Type::BOOL))
        .collect();
    let first_target = if config.entry_preds { 0 } else { 1 };
    for i in 0..n {
        b.switch_to_block(blocks[i]);
        let cond = conds[i];
        let target = |rng: &mut Rng| {
            if first_target >= n {
                return None;
            }
            let lo = if i + 1 < n && rng.chance(config.forward_percent) {
                i + 1
            } else {
                first_target
            };
            Some(blocks[rng.range(lo, n - 1)])
        };
        if rng.chance(config.return_percent) {
            b.ret(Vec::new());
            continue;
        }
        match (target(&mut rng), target(&mut rng)) {
            (Some(t), Some(e)) if rng.chance(config.branch_percent) => {
                b.br(cond, t, vec![cond], e, vec![cond]);
            }
            (Some(t), _) => b.jmp(t, vec![cond]),
            _ => b.ret(Vec::new()),
        }
    }
    func
}

/// The shape of the programs [`random_structured_cfg`] draws.
#[derive(Clone, Debug)]
pub struct StructuredConfig {
    /// Roughly how many statements the program has (each is at least one block).
    pub size: usize,
    /// Maximum nesting depth of `if` and `while`.
    pub max_depth: usize,
    /// Percent chance that a statement is an early `return`.
    pub return_percent: u64,
    /// Percent chance that a plain statement calls a function.
    pub call_percent: u64,
    /// Percent chance that a `while` loop has no exit (`while true`).
    pub infinite_percent: u64,
}

impl Default for StructuredConfig {
    fn default() -> StructuredConfig {
        StructuredConfig {
            size: 10,
            max_depth: 3,
            return_percent: 8,
            call_percent: 10,
            infinite_percent: 5,
        }
    }
}

/// A function whose CFG is generated from a grammar of structured statements, drawn from
/// `seed`:
///
/// ```text
/// stmts := stmt*
/// stmt  := plain | call | return | if stmts | if stmts else stmts | while stmts
/// ```
///
/// `plain` and `call` append to the current block (a `call` is `call f1()`); `if` ends the
/// current block with a `br` to the arms and joins them in a new block; `while` jumps to a
/// header that branches to the body or to the exit, and the body's end jumps back to the header
/// (a `while true` header jumps to the body unconditionally); `return` ends the current block
/// and continues in a new, unreachable one, as a front end does after an early return.
/// Unreachable blocks are removed at the end, so every block is reachable.
pub fn random_structured_cfg(seed: u64, config: &StructuredConfig) -> Function {
    let mut func = Function::new(format!("structured{seed}"), Vec::new());
    let entry = func.entry;
    let mut g = StructuredGen {
        rng: Rng::new(seed),
        config: config.clone(),
        budget: config.size,
        builder: FunctionBuilder::new(&mut func),
        current: entry,
    };
    g.builder.add_block_param(entry, Type::BOOL);
    g.builder.switch_to_block(entry);
    g.stmts(0);
    g.builder.ret(Vec::new());
    remove_unreachable(&mut func);
    func
}

struct StructuredGen<'f> {
    rng: Rng,
    config: StructuredConfig,
    budget: usize,
    builder: FunctionBuilder<'f>,
    current: BlockId,
}

impl StructuredGen<'_> {
    fn cond(&mut self) -> ValueId {
        self.builder.func().block(self.current).params[0]
    }

    fn new_block(&mut self) -> BlockId {
        let b = self.builder.create_block();
        self.builder.add_block_param(b, Type::BOOL);
        b
    }

    fn switch(&mut self, b: BlockId) {
        self.current = b;
        self.builder.switch_to_block(b);
    }

    fn jmp(&mut self, to: BlockId) {
        let c = self.cond();
        self.builder.jmp(to, vec![c]);
    }

    fn br(&mut self, t: BlockId, e: BlockId) {
        let c = self.cond();
        self.builder.br(c, t, vec![c], e, vec![c]);
    }

    fn stmts(&mut self, depth: usize) {
        let n = self.rng.range(1, 3);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: usize) {
        let nested = depth < self.config.max_depth;
        let roll = self.rng.below(100);
        if roll < self.config.return_percent {
            self.builder.ret(Vec::new());
            let dead = self.new_block();
            self.switch(dead);
        } else if roll < 35 && nested {
            let then_block = self.new_block();
            let join = self.new_block();
            let has_else = self.rng.chance(50);
            let else_block = if has_else { self.new_block() } else { join };
            self.br(then_block, else_block);
            self.switch(then_block);
            self.stmts(depth + 1);
            self.jmp(join);
            if has_else {
                self.switch(else_block);
                self.stmts(depth + 1);
                self.jmp(join);
            }
            self.switch(join);
        } else if roll < 60 && nested {
            let header = self.new_block();
            let body = self.new_block();
            let exit = self.new_block();
            self.jmp(header);
            self.switch(header);
            if self.rng.chance(self.config.infinite_percent) {
                self.jmp(body);
            } else {
                self.br(body, exit);
            }
            self.switch(body);
            self.stmts(depth + 1);
            self.jmp(header);
            self.switch(exit);
        } else if self.rng.chance(self.config.call_percent) {
            self.builder.inst(
                InstKind::Call {
                    func: FuncId(1),
                    args: Vec::new(),
                },
                &[],
            );
        } else if self.rng.chance(30) {
            // A statement that ends the block, as a front end splits blocks at labels.
            let next = self.new_block();
            self.jmp(next);
            self.switch(next);
        }
    }
}

/// Removes the blocks unreachable from the entry from `func`'s layout.
pub fn remove_unreachable(func: &mut Function) {
    let reachable: zkbc::fxhash::HashSet<BlockId> = func.reverse_post_order().into_iter().collect();
    func.layout.retain(|b| reachable.contains(b));
}
