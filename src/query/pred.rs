//! The entities queries range over and the predicates that relate them.
//!
//! These are the seed's simple predicates (`../shared/seeds/ssa-structure-model.tex`, in the
//! design notes folder beside the repository, "Formulating Constraint Problems":
//! `is_branch_inst`, `is_control_edge`, `is_control_dom`, ...) over the
//! model `F = (T, I, C, P, G, CDG, DFG)` of its section "Deriving a Mathematical Model", read
//! on block IR: instruction properties (opcode, type, constants: `T`, `I`, `C`), the control
//! flow graph `G` between blocks, the data flow graph `DFG` (a value used by an instruction, a
//! jump binding a block parameter — the phi — to an argument), the control dependence graph
//! `CDG` ([`crate::analysis::cdg`], post-dominance form), dominance and post-dominance
//! (Definition "Dominator"), and natural loops ([`crate::analysis::loops`]).
//!
//! SESE regions need the *extended* CFG of [`crate::analysis::regions`] (live blocks, virtual
//! `start` and `end`): its nodes are the [`Kind::Node`] entities, and the edge predicates
//! [`Pred::ExtEdge`], [`Pred::EdgeDominates`], [`Pred::EdgePostDominates`] and
//! [`Pred::CycleEquivalent`] take an edge as its two end nodes, as the seed's SESE tuple
//! `a, b, c, d` does.

use crate::fxhash::HashSet;

use super::facts::Facts;
use crate::analysis::regions::RegionNode;
use crate::analysis::LoopId;
use crate::ir::{BlockId, InstId, InstKind, Terminator, Type, ValueDef, ValueId};

/// What a variable ranges over.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    /// A laid-out block.
    Block,
    /// A node of the extended CFG: a live block, `start` or `end`.
    Node,
    /// A laid-out instruction.
    Inst,
    /// A value: a block parameter, an instruction result, or a constant used as an operand.
    Value,
    /// A natural loop.
    Loop,
}

impl Kind {
    /// The kind's name (`block`, `node`, `inst`, `value`, `loop`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Block => "block",
            Kind::Node => "node",
            Kind::Inst => "inst",
            Kind::Value => "value",
            Kind::Loop => "loop",
        }
    }

    /// Every entity of this kind in the function of `facts`.
    pub fn domain(self, facts: &Facts<'_>) -> Vec<Entity> {
        match self {
            Kind::Block => facts
                .func
                .layout
                .iter()
                .map(|b| Entity::Block(*b))
                .collect(),
            Kind::Node => facts.ext_nodes().into_iter().map(Entity::Node).collect(),
            Kind::Inst => facts.insts.iter().map(|i| Entity::Inst(*i)).collect(),
            Kind::Value => facts.values.iter().map(|v| Entity::Value(*v)).collect(),
            Kind::Loop => facts.loops.ids().map(Entity::Loop).collect(),
        }
    }
}

/// A thing a variable can be bound to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Entity {
    /// A block.
    Block(BlockId),
    /// A node of the extended CFG.
    Node(RegionNode),
    /// An instruction.
    Inst(InstId),
    /// A value.
    Value(ValueId),
    /// A natural loop.
    Loop(LoopId),
}

impl Entity {
    /// The entity's kind.
    pub fn kind(self) -> Kind {
        match self {
            Entity::Block(_) => Kind::Block,
            Entity::Node(_) => Kind::Node,
            Entity::Inst(_) => Kind::Inst,
            Entity::Value(_) => Kind::Value,
            Entity::Loop(_) => Kind::Loop,
        }
    }

    /// The block, if this is one (panics otherwise: a solution binds variables to their kind).
    pub fn block(self) -> BlockId {
        match self {
            Entity::Block(b) => b,
            other => panic!("bug: {other:?} is not a block"),
        }
    }

    /// The extended-CFG node, if this is one.
    pub fn node(self) -> RegionNode {
        match self {
            Entity::Node(n) => n,
            other => panic!("bug: {other:?} is not a node"),
        }
    }

    /// The instruction, if this is one.
    pub fn inst(self) -> InstId {
        match self {
            Entity::Inst(i) => i,
            other => panic!("bug: {other:?} is not an instruction"),
        }
    }

    /// The value, if this is one.
    pub fn value(self) -> ValueId {
        match self {
            Entity::Value(v) => v,
            other => panic!("bug: {other:?} is not a value"),
        }
    }

    /// The loop, if this is one.
    pub fn loop_id(self) -> LoopId {
        match self {
            Entity::Loop(l) => l,
            other => panic!("bug: {other:?} is not a loop"),
        }
    }

    /// The entity as text: `b3`, `start`, `v7`, `u32 1` (a constant), `loop0`, and an
    /// instruction as `v9:lt@b1` (first result, opcode, block) or `store#2@b4` (position in its
    /// block) when it has no result, followed by ` (LINE:COL)` when it carries a source location.
    pub fn describe(self, facts: &Facts<'_>) -> String {
        let func = facts.func;
        match self {
            Entity::Block(b) => b.to_string(),
            Entity::Node(n) => n.to_string(),
            Entity::Value(v) => crate::ir::print::operand(func, v),
            Entity::Loop(l) => l.to_string(),
            Entity::Inst(i) => {
                let data = func.inst(i);
                let block = facts.inst_block.get(&i).copied();
                let at = block.map_or(String::new(), |b| format!("@{b}"));
                let head = match data.results.first() {
                    Some(r) => format!("{r}:{}", data.kind.opcode()),
                    None => {
                        let pos = block
                            .and_then(|b| func.block(b).insts.iter().position(|x| *x == i))
                            .unwrap_or(0);
                        format!("{}#{pos}", data.kind.opcode())
                    }
                };
                match data.loc() {
                    Some(loc) => format!("{head}{at} ({loc})"),
                    None => format!("{head}{at}"),
                }
            }
        }
    }
}

/// A predicate over entities (see the module doc). Arguments are listed with each variant.
#[derive(Clone, Debug, PartialEq)]
pub enum Pred {
    /// `(inst)`: the instruction's opcode is one of these (`add`, `to_bits`, ...).
    Opcode(Vec<String>),
    /// `(value)`: the value has this type.
    HasType(Type),
    /// `(value)`: the value is a `uN` (`u8` to `u64`, not `u1`).
    IsUInt,
    /// `(value)`: the value is a constant.
    IsConst,
    /// `(value)`: the value is a block parameter (a phi).
    IsBlockParam,
    /// `(block)`: the block ends in `br` (the seed's `is_branch_inst`).
    EndsInBranch,
    /// `(block)`: the block ends in `return`.
    EndsInReturn,
    /// `(inst, value)`: the value is a result of the instruction.
    Result,
    /// `(inst, value)`: a data-flow edge: the instruction reads the value (at this operand
    /// position, in text order, if given; `store v at p` reads `v` at 0 and `p` at 1).
    Operand(Option<usize>),
    /// `(inst, block)`: the instruction is in the block.
    InBlock,
    /// `(value, block)`: the value is a parameter of the block.
    ParamOf,
    /// `(a, b)`: a CFG edge from block `a` to block `b` (the seed's `is_control_edge`).
    ControlEdge,
    /// `(a, b)`: block `a` dominates block `b` (reflexive; the seed's `is_control_dom`).
    Dominates,
    /// `(a, b)`: block `a` post-dominates block `b` (reflexive; `is_control_postdom`).
    PostDominates,
    /// `(b, a)`: block `b` is control dependent on the branch ending block `a` (the CDG).
    ControlDependent,
    /// `(a, b)`: the blocks have the same innermost natural loop (or are both in none).
    SameLoop,
    /// `(block, loop)`: the loop contains the block.
    InLoop,
    /// `(loop, block)`: the block is the loop's header.
    LoopHeader,
    /// `(loop, block)`: the block is a latch of the loop (the source of a back edge).
    LoopLatch,
    /// `(from, to, param, arg)`: the terminator of `from` jumps to `to` binding its parameter
    /// `param` to `arg` (the data flow into a phi).
    JumpArg,
    /// `(block, value)`: the block ends in `br` on this condition.
    BranchCond,
    /// `(value, loop)`: the value is a constant or is defined outside the loop.
    LoopInvariant,
    /// `(inst, value)`: the instruction is an `array_get` whose index is the value, or whose
    /// array is the result of such an `array_get` (an element of a nested array selected by the
    /// value at some level).
    IndexedBy,
    /// `(value, value)`: the values have the same type.
    SameType,
    /// `(x, y)`: two entities of one kind differ.
    Distinct,
    /// `(x, y)`: two entities of one kind are the same.
    Equal,
    /// `(node, block)`: the extended-CFG node is this block.
    NodeBlock,
    /// `(a, b)`: an edge of the extended CFG (virtual `start` and `end` included).
    ExtEdge,
    /// `(a, b, c, d)`: edge `a->b` dominates edge `c->d` (reflexive): every path from `start`
    /// through `c->d` passes through `a->b` first.
    EdgeDominates,
    /// `(c, d, a, b)`: edge `c->d` post-dominates edge `a->b` (reflexive): every path from
    /// `a->b` to `end` passes through `c->d`.
    EdgePostDominates,
    /// `(a, b, c, d)`: edges `a->b` and `c->d` are cycle equivalent: in the extended CFG with
    /// an edge `end -> start`, every cycle through one passes through the other.
    CycleEquivalent,
}

impl Pred {
    /// [`Pred::Opcode`] with these names.
    pub fn opcode(names: &[&str]) -> Pred {
        Pred::Opcode(names.iter().map(ToString::to_string).collect())
    }

    /// The predicate's name in query text.
    pub fn name(&self) -> &'static str {
        match self {
            Pred::Opcode(_) => "opcode",
            Pred::HasType(_) => "has_type",
            Pred::IsUInt => "is_uint",
            Pred::IsConst => "is_const",
            Pred::IsBlockParam => "is_block_param",
            Pred::EndsInBranch => "ends_in_branch",
            Pred::EndsInReturn => "ends_in_return",
            Pred::Result => "result",
            Pred::Operand(_) => "operand",
            Pred::InBlock => "in_block",
            Pred::ParamOf => "param_of",
            Pred::ControlEdge => "control_edge",
            Pred::Dominates => "dominates",
            Pred::PostDominates => "post_dominates",
            Pred::ControlDependent => "control_dependent",
            Pred::SameLoop => "same_loop",
            Pred::InLoop => "in_loop",
            Pred::LoopHeader => "loop_header",
            Pred::LoopLatch => "loop_latch",
            Pred::JumpArg => "jump_arg",
            Pred::BranchCond => "branch_cond",
            Pred::LoopInvariant => "loop_invariant",
            Pred::IndexedBy => "indexed_by",
            Pred::SameType => "same_type",
            Pred::Distinct => "distinct",
            Pred::Equal => "equal",
            Pred::NodeBlock => "node_block",
            Pred::ExtEdge => "ext_edge",
            Pred::EdgeDominates => "edge_dominates",
            Pred::EdgePostDominates => "edge_post_dominates",
            Pred::CycleEquivalent => "cycle_equivalent",
        }
    }

    /// The kinds of the arguments; `None` for [`Pred::Distinct`] and [`Pred::Equal`] (two of
    /// any one kind).
    pub fn signature(&self) -> Option<Vec<Kind>> {
        use Kind::*;
        Some(match self {
            Pred::Opcode(_) => vec![Inst],
            Pred::HasType(_) | Pred::IsUInt | Pred::IsConst | Pred::IsBlockParam => vec![Value],
            Pred::EndsInBranch | Pred::EndsInReturn => vec![Block],
            Pred::Result | Pred::Operand(_) | Pred::IndexedBy => vec![Inst, Value],
            Pred::InBlock => vec![Inst, Block],
            Pred::ParamOf => vec![Value, Block],
            Pred::ControlEdge
            | Pred::Dominates
            | Pred::PostDominates
            | Pred::ControlDependent
            | Pred::SameLoop => vec![Block, Block],
            Pred::InLoop => vec![Block, Loop],
            Pred::LoopHeader | Pred::LoopLatch => vec![Loop, Block],
            Pred::JumpArg => vec![Block, Block, Value, Value],
            Pred::BranchCond => vec![Block, Value],
            Pred::LoopInvariant => vec![Value, Loop],
            Pred::SameType => vec![Value, Value],
            Pred::Distinct | Pred::Equal => return None,
            Pred::NodeBlock => vec![Node, Block],
            Pred::ExtEdge => vec![Node, Node],
            Pred::EdgeDominates | Pred::EdgePostDominates | Pred::CycleEquivalent => {
                vec![Node, Node, Node, Node]
            }
        })
    }

    /// Checks that arguments of these kinds fit the predicate.
    pub fn check_kinds(&self, kinds: &[Kind]) -> Result<(), String> {
        match self.signature() {
            Some(sig) if sig == kinds => Ok(()),
            None if kinds.len() == 2 && kinds[0] == kinds[1] => Ok(()),
            Some(sig) => Err(format!(
                "takes ({}), given ({})",
                sig.iter().map(|k| k.name()).collect::<Vec<_>>().join(", "),
                kinds
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => Err("takes two arguments of one kind".to_string()),
        }
    }

    /// A rough cost of checking the predicate, for ordering checks.
    pub fn cost(&self) -> u32 {
        match self {
            Pred::CycleEquivalent => 50,
            Pred::IndexedBy | Pred::LoopInvariant | Pred::InLoop | Pred::SameLoop => 8,
            Pred::Dominates
            | Pred::PostDominates
            | Pred::EdgeDominates
            | Pred::EdgePostDominates
            | Pred::ControlDependent
            | Pred::JumpArg => 5,
            Pred::ControlEdge | Pred::ExtEdge | Pred::Operand(_) => 3,
            _ => 1,
        }
    }

    /// Whether the predicate holds of `args` (of the kinds of [`Pred::signature`]).
    pub fn holds(&self, facts: &Facts<'_>, args: &[Entity]) -> bool {
        let func = facts.func;
        let term = |b: BlockId| func.block(b).term.as_ref();
        match self {
            Pred::Opcode(names) => {
                let op = func.inst(args[0].inst()).kind.opcode();
                names.iter().any(|n| n == op)
            }
            Pred::HasType(t) => func.value_type(args[0].value()) == t,
            Pred::IsUInt => matches!(func.value_type(args[0].value()), Type::UInt(w) if *w > 1),
            Pred::IsConst => func.const_value(args[0].value()).is_some(),
            Pred::IsBlockParam => matches!(func.value(args[0].value()).def, ValueDef::Param(..)),
            Pred::EndsInBranch => matches!(term(args[0].block()), Some(Terminator::Br { .. })),
            Pred::EndsInReturn => matches!(term(args[0].block()), Some(Terminator::Return(_))),
            Pred::Result => func.inst(args[0].inst()).results.contains(&args[1].value()),
            Pred::Operand(pos) => {
                let ops = func.inst(args[0].inst()).kind.operands();
                let v = args[1].value();
                match pos {
                    Some(p) => ops.get(*p) == Some(&v),
                    None => ops.contains(&v),
                }
            }
            Pred::InBlock => facts.inst_block.get(&args[0].inst()) == Some(&args[1].block()),
            Pred::ParamOf => func
                .block(args[1].block())
                .params
                .contains(&args[0].value()),
            Pred::ControlEdge => facts
                .cfg
                .successors(args[0].block())
                .contains(&args[1].block()),
            Pred::Dominates => facts.dom.dominates(args[0].block(), args[1].block()),
            Pred::PostDominates => facts.pdom.dominates(args[0].block(), args[1].block()),
            Pred::ControlDependent => facts.cdg.depends_on(args[0].block(), args[1].block()),
            Pred::SameLoop => {
                facts.loops.innermost(args[0].block()) == facts.loops.innermost(args[1].block())
            }
            Pred::InLoop => facts.loops.contains(args[1].loop_id(), args[0].block()),
            Pred::LoopHeader => facts.loops.get(args[0].loop_id()).header == args[1].block(),
            Pred::LoopLatch => facts
                .loops
                .get(args[0].loop_id())
                .latches
                .contains(&args[1].block()),
            Pred::JumpArg => {
                let (from, to) = (args[0].block(), args[1].block());
                let (param, arg) = (args[2].value(), args[3].value());
                let Some(k) = func.block(to).params.iter().position(|p| *p == param) else {
                    return false;
                };
                term(from).is_some_and(|t| {
                    t.block_calls()
                        .iter()
                        .any(|c| c.block == to && c.args.get(k) == Some(&arg))
                })
            }
            Pred::BranchCond => matches!(
                term(args[0].block()),
                Some(Terminator::Br { cond, .. }) if *cond == args[1].value()
            ),
            Pred::LoopInvariant => {
                let v = args[0].value();
                match facts.def_block(v) {
                    Some(b) => !facts.loops.contains(args[1].loop_id(), b),
                    None => func.const_value(v).is_some(),
                }
            }
            Pred::IndexedBy => indexed_by(facts, args[0].inst(), args[1].value()),
            Pred::SameType => func.value_type(args[0].value()) == func.value_type(args[1].value()),
            Pred::Distinct => args[0] != args[1],
            Pred::Equal => args[0] == args[1],
            Pred::NodeBlock => args[0].node() == RegionNode::Block(args[1].block()),
            Pred::ExtEdge => facts.ext_edge(args[0].node(), args[1].node()).is_some(),
            Pred::EdgeDominates | Pred::EdgePostDominates | Pred::CycleEquivalent => {
                let (Some(e1), Some(e2)) = (
                    facts.ext_edge(args[0].node(), args[1].node()),
                    facts.ext_edge(args[2].node(), args[3].node()),
                ) else {
                    return false;
                };
                match self {
                    Pred::EdgeDominates => facts.edge_dominates(e1, e2),
                    Pred::EdgePostDominates => facts.edge_post_dominates(e1, e2),
                    _ => facts.cycle_equivalent(e1, e2),
                }
            }
        }
    }

    /// Candidates for argument `pos` given the other arguments (all `Some`): a superset of the
    /// entities that make the predicate hold, or `None` when the predicate cannot say.
    pub fn propose(
        &self,
        facts: &Facts<'_>,
        args: &[Option<Entity>],
        pos: usize,
    ) -> Option<Vec<Entity>> {
        let func = facts.func;
        let arg = |i: usize| args[i].expect("bug: proposal with an unbound argument");
        let blocks = |bs: &[BlockId]| bs.iter().map(|b| Entity::Block(*b)).collect();
        let values = |vs: &[ValueId]| vs.iter().map(|v| Entity::Value(*v)).collect();
        Some(match (self, pos) {
            (Pred::Result, 1) => values(&func.inst(arg(0).inst()).results),
            (Pred::Result, 0) => match func.value(arg(1).value()).def {
                ValueDef::Result(i, _) => vec![Entity::Inst(i)],
                _ => Vec::new(),
            },
            (Pred::Operand(_), 1) => values(&func.inst(arg(0).inst()).kind.operands()),
            (Pred::Operand(_), 0) => {
                let v = arg(1).value();
                facts.users_of(v).iter().map(|i| Entity::Inst(*i)).collect()
            }
            (Pred::InBlock, 0) => func
                .block(arg(1).block())
                .insts
                .iter()
                .map(|i| Entity::Inst(*i))
                .collect(),
            (Pred::InBlock, 1) => facts
                .inst_block
                .get(&arg(0).inst())
                .map(|b| Entity::Block(*b))
                .into_iter()
                .collect(),
            (Pred::ParamOf, 0) => values(&func.block(arg(1).block()).params),
            (Pred::ParamOf, 1) => match func.value(arg(0).value()).def {
                ValueDef::Param(b, _) => vec![Entity::Block(b)],
                _ => Vec::new(),
            },
            (Pred::ControlEdge, 1) => blocks(facts.cfg.successors(arg(0).block())),
            (Pred::ControlEdge, 0) => blocks(facts.cfg.predecessors(arg(1).block())),
            (Pred::Dominates, 0) => blocks(&chain(arg(1).block(), |b| facts.dom.idom(b))),
            (Pred::PostDominates, 0) => blocks(&chain(arg(1).block(), |b| facts.pdom.idom(b))),
            (Pred::ControlDependent, 0) => blocks(facts.cdg.controlled_by(arg(1).block())),
            (Pred::ControlDependent, 1) => blocks(&facts.cdg.controllers(arg(0).block())),
            (Pred::InLoop, 0) => blocks(&facts.loops.get(arg(1).loop_id()).blocks),
            (Pred::InLoop, 1) => {
                let b = arg(0).block();
                facts
                    .loops
                    .ids()
                    .filter(|l| facts.loops.contains(*l, b))
                    .map(Entity::Loop)
                    .collect()
            }
            (Pred::LoopHeader, 1) => vec![Entity::Block(facts.loops.get(arg(0).loop_id()).header)],
            (Pred::LoopHeader, 0) => facts
                .loops
                .loop_of_header(arg(1).block())
                .map(Entity::Loop)
                .into_iter()
                .collect(),
            (Pred::LoopLatch, 1) => blocks(&facts.loops.get(arg(0).loop_id()).latches),
            (Pred::JumpArg, 0) => blocks(facts.cfg.predecessors(arg(1).block())),
            (Pred::JumpArg, 1) => blocks(facts.cfg.successors(arg(0).block())),
            (Pred::JumpArg, 2) => values(&func.block(arg(1).block()).params),
            (Pred::JumpArg, 3) => {
                let (from, to) = (arg(0).block(), arg(1).block());
                let param = arg(2).value();
                let k = func.block(to).params.iter().position(|p| *p == param);
                let mut out = Vec::new();
                if let (Some(k), Some(t)) = (k, func.block(from).term.as_ref()) {
                    for c in t.block_calls() {
                        if c.block == to {
                            out.extend(c.args.get(k).map(|v| Entity::Value(*v)));
                        }
                    }
                }
                out
            }
            (Pred::BranchCond, 1) => match func.block(arg(0).block()).term {
                Some(Terminator::Br { cond, .. }) => vec![Entity::Value(cond)],
                _ => Vec::new(),
            },
            (Pred::Equal, p) => vec![arg(1 - p)],
            (Pred::NodeBlock, 0) => vec![Entity::Node(RegionNode::Block(arg(1).block()))],
            (Pred::NodeBlock, 1) => match arg(0).node() {
                RegionNode::Block(b) => vec![Entity::Block(b)],
                _ => Vec::new(),
            },
            (Pred::ExtEdge, 1) => facts
                .ext_successors(arg(0).node())
                .into_iter()
                .map(Entity::Node)
                .collect(),
            (Pred::ExtEdge, 0) => facts
                .ext_predecessors(arg(1).node())
                .into_iter()
                .map(Entity::Node)
                .collect(),
            _ => return None,
        })
    }
}

/// `b` and its ancestors by `up`.
fn chain(b: BlockId, up: impl Fn(BlockId) -> Option<BlockId>) -> Vec<BlockId> {
    let mut out = vec![b];
    let mut cur = b;
    while let Some(p) = up(cur) {
        out.push(p);
        cur = p;
    }
    out
}

/// See [`Pred::IndexedBy`].
fn indexed_by(facts: &Facts<'_>, inst: InstId, index: ValueId) -> bool {
    let func = facts.func;
    let mut seen = HashSet::default();
    let mut cur = inst;
    while seen.insert(cur) {
        let InstKind::ArrayGet { array, index: i } = func.inst(cur).kind else {
            return false;
        };
        if i == index {
            return true;
        }
        match func.value(array).def {
            ValueDef::Result(next, _) => cur = next,
            _ => return false,
        }
    }
    false
}
