//! The printer of the text format (grammar in the [`crate::ir`] module doc). Parsing what it
//! prints gives back the same program (`tests/ir_text.rs`).

use super::entities::{FuncId, ValueId};
use super::function::{Function, Program};
use super::instructions::{BlockCall, Const, InstKind, Terminator};
use crate::field::{self, Fr};
use std::fmt::{self, Write};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, func) in self.funcs.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            f.write_str(&print_function(func, FuncId::new(i)))?;
        }
        Ok(())
    }
}

/// The text of one function, given its id in the program.
pub fn print_function(func: &Function, id: FuncId) -> String {
    let mut out = String::new();
    let _ = write!(out, "fn {} {}", func.name, id);
    if !func.returns.is_empty() {
        let rets: Vec<String> = func.returns.iter().map(ToString::to_string).collect();
        let _ = write!(out, " -> {}", rets.join(", "));
    }
    out.push_str(" {\n");
    for &b in &func.layout {
        let block = func.block(b);
        let params: Vec<String> = block
            .params
            .iter()
            .map(|p| format!("{p}: {}", func.value_type(*p)))
            .collect();
        let _ = writeln!(out, "{b}({}):", params.join(", "));
        for &i in &block.insts {
            let data = func.inst(i);
            out.push_str("    ");
            if !data.results.is_empty() {
                let results: Vec<String> = data.results.iter().map(ToString::to_string).collect();
                let _ = write!(out, "{} = ", results.join(", "));
            }
            let text = print_inst_kind(func, &data.kind);
            match (data.no_wrap(), text.split_once(' ')) {
                (true, Some((opcode, rest))) => {
                    let _ = write!(out, "{opcode} nuw {rest}");
                }
                _ => out.push_str(&text),
            }
            if let Some(loc) = data.loc().filter(|_| data.kind.can_fail()) {
                let _ = write!(out, " @{loc}");
            }
            out.push('\n');
        }
        match &block.term {
            Some(term) => {
                let _ = writeln!(out, "    {}", print_terminator(func, term));
            }
            None => out.push_str("    ; no terminator\n"),
        }
    }
    out.push_str("}\n");
    out
}

/// An operand: `vN`, or a constant written `TYPE LITERAL` (`u32 5`, `field -1`).
pub fn operand(func: &Function, v: ValueId) -> String {
    match (func.value_type_checked(v), func.const_value_checked(v)) {
        (Some(ty), Some(c)) => format!("{ty} {}", const_literal(&c)),
        _ => v.to_string(),
    }
}

/// The literal of a constant. Field elements above (p-1)/2 are written as negatives, which reads
/// better (`field -1`) and parses back to the same element.
pub fn const_literal(c: &Const) -> String {
    match c {
        Const::UInt(n) => n.to_string(),
        Const::Field(x) => field_literal(x),
    }
}

/// A field element as the shorter of its canonical and negated decimal forms.
pub fn field_literal(x: &Fr) -> String {
    let neg = -*x;
    if field::cmp_canonical(&neg, x).is_lt() {
        format!("-{}", field::to_dec(&neg))
    } else {
        field::to_dec(x)
    }
}

fn list(func: &Function, values: &[ValueId]) -> String {
    values
        .iter()
        .map(|v| operand(func, *v))
        .collect::<Vec<_>>()
        .join(", ")
}

fn block_call(func: &Function, call: &BlockCall) -> String {
    format!("{}({})", call.block, list(func, &call.args))
}

/// The text of an instruction without its results.
pub fn print_inst_kind(func: &Function, kind: &InstKind) -> String {
    let op = |v: &ValueId| operand(func, *v);
    match kind {
        InstKind::Cast { arg, to } => format!("cast {} to {to}", op(arg)),
        InstKind::Truncate { arg, to } => format!("trunc {} to {to}", op(arg)),
        InstKind::Bound { arg, bits } => format!("bound {}, {bits}", op(arg)),
        InstKind::Assert { cond, msg: None } => format!("assert {}", op(cond)),
        InstKind::Assert {
            cond,
            msg: Some(msg),
        } => format!("assert {}, {}", op(cond), quote(msg)),
        InstKind::Log {
            template,
            args,
            guard,
        } => {
            let mut s = format!("log {}", quote(template));
            for a in args {
                s.push_str(", ");
                s.push_str(&op(a));
            }
            s + &guard_suffix(func, guard)
        }
        InstKind::Allocate { ty } => format!("allocate {ty}"),
        InstKind::Store { ptr, value } => format!("store {} at {}", op(value), op(ptr)),
        InstKind::MakeArray { elems, elem_ty } => {
            format!("make_array [{}] : {elem_ty}", list(func, elems))
        }
        InstKind::FromBits { arg, to } => format!("from_bits {} to {to}", op(arg)),
        InstKind::Call { func: callee, args } => format!("call {callee}({})", list(func, args)),
        InstKind::Hint {
            func: callee,
            args,
            guard,
            ..
        } => format!(
            "hint {callee}({}){}",
            list(func, args),
            guard_suffix(func, guard)
        ),
        // The plain form, `OPCODE a, b, ...` (read back by `InstKind::plain`).
        _ => format!("{} {}", kind.opcode(), list(func, &kind.operands())),
    }
}

/// ` if g` for a guarded `log` or `hint`, nothing for an unguarded one.
fn guard_suffix(func: &Function, guard: &Option<ValueId>) -> String {
    guard.map_or(String::new(), |g| format!(" if {}", operand(func, g)))
}

/// The text of a terminator.
pub fn print_terminator(func: &Function, term: &Terminator) -> String {
    match term {
        Terminator::Jmp(dest) => format!("jmp {}", block_call(func, dest)),
        Terminator::Br {
            cond,
            then_dest,
            else_dest,
        } => format!(
            "br {}, {}, {}",
            operand(func, *cond),
            block_call(func, then_dest),
            block_call(func, else_dest)
        ),
        Terminator::Return(values) if values.is_empty() => "return".to_string(),
        Terminator::Return(values) => format!("return {}", list(func, values)),
    }
}

/// A string literal with `"` and `\` escaped, and control characters as `\n`, `\t`, `\u{..}`.
pub fn quote(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

impl Function {
    /// The constant held by `v`, or `None` if `v` is not a constant or not in the arena.
    pub fn const_value_checked(&self, v: ValueId) -> Option<Const> {
        if v.index() < self.values.len() {
            self.const_value(v)
        } else {
            None
        }
    }
}
