//! A tiny text syntax for ad-hoc queries (`zkbc query FILE --query TEXT`):
//!
//! ```text
//! query      := decl ("," decl)* ":" constraint ("," constraint)*
//! decl       := KIND NAME                  KIND = block node inst value loop
//! constraint := "not"? PRED ("[" PARAM "]")? "(" NAME ("," NAME)* ")"
//! ```
//!
//! `PRED` is a predicate's name ([`Pred::name`]); three take a parameter in brackets:
//! `opcode[add|mul]`, `operand[0]` (the position; `operand` alone is any position) and
//! `has_type[u32]`. For example the back edges of natural loops:
//! `block h, block t: control_edge(t, h), dominates(h, t)`. Negated sub-queries have no text
//! form; the shipped patterns build them in Rust.

use crate::fxhash::HashMap;

use super::pred::{Kind, Pred};
use super::solver::{Query, QueryBuilder, Var};
use crate::ir::Type;

/// Parses query text; the error says what is wrong and where (a 1-based column).
pub fn parse_query(text: &str) -> Result<Query, String> {
    let Some((decls, body)) = text.split_once(':') else {
        return Err(
            "expected `DECLS: CONSTRAINTS`, e.g. `block h, block t: control_edge(t, h)`".into(),
        );
    };
    let col = |s: &str| s.as_ptr() as usize - text.as_ptr() as usize + 1;
    let mut q = Query::new();
    let mut vars: HashMap<String, (Var, Kind)> = HashMap::default();
    for decl in decls.split(',') {
        let words: Vec<&str> = decl.split_whitespace().collect();
        let [kind, name] = words[..] else {
            return Err(format!(
                "column {}: expected `KIND NAME`, found `{}`",
                col(decl),
                decl.trim()
            ));
        };
        let kind = match kind {
            "block" => Kind::Block,
            "node" => Kind::Node,
            "inst" => Kind::Inst,
            "value" => Kind::Value,
            "loop" => Kind::Loop,
            other => {
                return Err(format!(
                    "column {}: unknown kind `{other}` (block, node, inst, value, loop)",
                    col(decl)
                ))
            }
        };
        if vars
            .insert(name.to_string(), (q.var(name, kind), kind))
            .is_some()
        {
            return Err(format!("column {}: `{name}` is declared twice", col(decl)));
        }
    }
    let mut rest = body;
    loop {
        let item = rest.trim_start();
        if item.is_empty() {
            return Err(format!("column {}: expected a constraint", col(rest)));
        }
        let Some(close) = item.find(')') else {
            return Err(format!("column {}: missing `)`", col(item)));
        };
        parse_constraint(&item[..=close], col(item), &vars, &mut q)?;
        rest = item[close + 1..].trim_start();
        if rest.is_empty() {
            return Ok(q);
        }
        let Some(after) = rest.strip_prefix(',') else {
            return Err(format!("column {}: expected `,`", col(rest)));
        };
        rest = after;
    }
}

fn parse_constraint(
    item: &str,
    at: usize,
    vars: &HashMap<String, (Var, Kind)>,
    q: &mut Query,
) -> Result<(), String> {
    let err = |m: String| Err(format!("column {at}: {m}"));
    let (negated, item) = match item.strip_prefix("not ") {
        Some(rest) => (true, rest.trim_start()),
        None => (false, item),
    };
    let Some(open) = item.find('(') else {
        return err("expected `PRED(ARGS)`".into());
    };
    let head = item[..open].trim();
    let (name, param) = match head.split_once('[') {
        Some((n, p)) => match p.strip_suffix(']') {
            Some(p) => (n.trim(), Some(p.trim())),
            None => return err(format!("missing `]` in `{head}`")),
        },
        None => (head, None),
    };
    let pred = match (name, param) {
        ("opcode", Some(p)) => Pred::Opcode(p.split('|').map(|s| s.trim().to_string()).collect()),
        ("operand", p) => match p.map(str::parse::<usize>) {
            None => Pred::Operand(None),
            Some(Ok(k)) => Pred::Operand(Some(k)),
            Some(Err(_)) => {
                return err(format!(
                    "`operand[..]` takes a position, not `{}`",
                    p.unwrap_or("")
                ))
            }
        },
        ("has_type", Some(p)) => match parse_scalar_type(p) {
            Some(t) => Pred::HasType(t),
            None => return err(format!("unknown type `{p}` (field, u1, u8, u16, u32, u64)")),
        },
        (n, None) => match simple_pred(n) {
            Some(p) => p,
            None => return err(format!("unknown predicate `{n}`")),
        },
        (n, Some(_)) => return err(format!("`{n}` takes no parameter")),
    };
    let args_text = &item[open + 1..item.len() - 1];
    let mut args = Vec::new();
    let mut kinds = Vec::new();
    for a in args_text.split(',') {
        let a = a.trim();
        let Some(&(v, k)) = vars.get(a) else {
            return err(format!("`{a}` is not a declared variable"));
        };
        args.push(v);
        kinds.push(k);
    }
    if let Err(e) = pred.check_kinds(&kinds) {
        return err(format!("`{}` {e}", pred.name()));
    }
    if negated {
        q.add_not(pred, args);
    } else {
        q.add(pred, args);
    }
    Ok(())
}

fn parse_scalar_type(t: &str) -> Option<Type> {
    match t {
        "field" => Some(Type::Field),
        _ => t
            .strip_prefix('u')
            .and_then(|w| w.parse::<u32>().ok())
            .filter(|w| crate::ir::UINT_WIDTHS.contains(w))
            .map(Type::UInt),
    }
}

/// The predicates without a parameter, by name.
fn simple_pred(name: &str) -> Option<Pred> {
    let all = [
        Pred::IsUInt,
        Pred::IsConst,
        Pred::IsBlockParam,
        Pred::EndsInBranch,
        Pred::EndsInReturn,
        Pred::Result,
        Pred::InBlock,
        Pred::ParamOf,
        Pred::ControlEdge,
        Pred::Dominates,
        Pred::PostDominates,
        Pred::ControlDependent,
        Pred::SameLoop,
        Pred::InLoop,
        Pred::LoopHeader,
        Pred::LoopLatch,
        Pred::JumpArg,
        Pred::BranchCond,
        Pred::LoopInvariant,
        Pred::IndexedBy,
        Pred::SameType,
        Pred::Distinct,
        Pred::Equal,
        Pred::NodeBlock,
        Pred::ExtEdge,
        Pred::EdgeDominates,
        Pred::EdgePostDominates,
        Pred::CycleEquivalent,
    ];
    all.into_iter().find(|p| p.name() == name)
}
