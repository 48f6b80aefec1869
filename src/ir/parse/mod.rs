//! The parser of the text format (grammar in the [`crate::ir`] module doc).
//!
//! Parsing is line-oriented and in two steps per function: a first scan declares every block
//! label, block parameter and instruction result, so that uses may precede definitions in the
//! text (the verifier, not the parser, rejects a use that its definition does not dominate); the
//! second step builds the instructions. Result types are then inferred from operand types.

use crate::fxhash::HashMap;

use super::entities::{BlockId, FuncId, InstId, ValueId};
use super::function::{Function, InstData, Program, ValueDef};
use super::instructions::{BlockCall, Const, InstKind, Terminator};
use super::types::Type;
use crate::field;
use std::fmt;

mod lex;

use lex::{tokenize, Cursor, Line, Tok};

/// A syntax error in IR text, with its 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

type Result<T> = std::result::Result<T, ParseError>;

/// Parses a whole program. `main` is the function named `main`, or the first one.
pub fn parse_program(text: &str) -> Result<Program> {
    let lines = tokenize(text)?;
    let funcs = split_functions(&lines)?;
    if funcs.is_empty() {
        return Err(ParseError {
            line: 1,
            col: 1,
            message: "expected at least one function (`fn NAME fN { ... }`)".into(),
        });
    }
    let mut func_ids = HashMap::default();
    let mut signatures = Vec::new();
    for (i, f) in funcs.iter().enumerate() {
        let header = parse_header(f.header)?;
        if func_ids
            .insert(header.label.clone(), FuncId::new(i))
            .is_some()
        {
            return Err(f
                .header
                .err_at(1, format!("function `{}` defined twice", header.label)));
        }
        signatures.push(header);
    }
    let returns: Vec<Vec<Type>> = signatures.iter().map(|s| s.returns.clone()).collect();
    let mut program = Program {
        funcs: Vec::new(),
        main: FuncId(0),
        files: Vec::new(),
        frames: Default::default(),
    };
    for (f, sig) in funcs.iter().zip(&signatures) {
        let ctx = FuncParser {
            func_ids: &func_ids,
            returns: &returns,
        };
        program.funcs.push(ctx.parse_body(sig, &f.body)?);
    }
    if let Some(i) = signatures.iter().position(|s| s.name == "main") {
        program.main = FuncId::new(i);
    }
    Ok(program)
}

// ---------------------------------------------------------------------------------------------
// Functions

struct RawFunction<'a> {
    header: &'a Line,
    body: Vec<&'a Line>,
}

fn split_functions(lines: &[Line]) -> Result<Vec<RawFunction<'_>>> {
    let mut funcs = Vec::new();
    let mut current: Option<RawFunction> = None;
    for line in lines {
        let first = &line.toks[0].0;
        match (&mut current, first) {
            (None, Tok::Ident(kw)) if kw == "fn" => {
                current = Some(RawFunction {
                    header: line,
                    body: Vec::new(),
                })
            }
            (None, _) => return Err(line.err_at(line.toks[0].1, "expected `fn`")),
            (Some(_), Tok::Punct('}')) if line.toks.len() == 1 => {
                funcs.push(current.take().expect("checked above"));
            }
            (Some(f), _) => f.body.push(line),
        }
    }
    if let Some(f) = current {
        return Err(f.header.err_at(1, "function is not closed by a `}` line"));
    }
    Ok(funcs)
}

struct Header {
    name: String,
    label: String,
    returns: Vec<Type>,
}

fn parse_header(line: &Line) -> Result<Header> {
    let mut c = Cursor::new(line);
    c.keyword("fn")?;
    let name = c.ident("a function name")?;
    let label = c.ident("a function id such as `f0`")?;
    if !is_label(&label, 'f') {
        return Err(c.err_prev(format!(
            "expected a function id such as `f0`, found `{label}`"
        )));
    }
    let mut returns = Vec::new();
    if c.eat(&Tok::Arrow) {
        loop {
            returns.push(c.ty()?);
            if !c.eat(&Tok::Punct(',')) {
                break;
            }
        }
    }
    c.expect(&Tok::Punct('{'))?;
    c.end()?;
    Ok(Header {
        name,
        label,
        returns,
    })
}

fn is_label(s: &str, prefix: char) -> bool {
    s.len() > 1 && s.starts_with(prefix) && s[1..].bytes().all(|b| b.is_ascii_digit())
}

struct FuncParser<'a> {
    func_ids: &'a HashMap<String, FuncId>,
    returns: &'a [Vec<Type>],
}

/// What a body line is, found by its first tokens.
enum LineKind {
    Block,
    Inst { n_results: usize },
}

fn classify(line: &Line) -> LineKind {
    let toks = &line.toks;
    if let Some((Tok::Ident(s), _)) = toks.first() {
        if is_label(s, 'b') && toks.get(1).map(|t| &t.0) == Some(&Tok::Punct('(')) {
            return LineKind::Block;
        }
    }
    // `v1, v2 = ...`: count the results before `=`.
    let mut n = 0;
    let mut i = 0;
    while let Some((Tok::Ident(_), _)) = toks.get(i) {
        n += 1;
        match toks.get(i + 1).map(|t| &t.0) {
            Some(Tok::Punct(',')) => i += 2,
            Some(Tok::Punct('=')) => return LineKind::Inst { n_results: n },
            _ => break,
        }
    }
    LineKind::Inst { n_results: 0 }
}

impl FuncParser<'_> {
    fn parse_body(&self, sig: &Header, body: &[&Line]) -> Result<Function> {
        let mut func = Function::without_blocks(sig.name.clone(), sig.returns.clone());
        let mut blocks: HashMap<String, BlockId> = HashMap::default();
        let mut values: HashMap<String, ValueId> = HashMap::default();
        // First scan: blocks, parameters and result names.
        let mut pending_results: Vec<Vec<ValueId>> = Vec::new();
        for line in body {
            match classify(line) {
                LineKind::Block => {
                    let mut c = Cursor::new(line);
                    let label = c.ident("a block label")?;
                    // `classify` saw `bN(`, so the label is well formed.
                    let block = numbered_block(&mut func, &label, line)?;
                    if blocks.insert(label.clone(), block).is_some() {
                        return Err(line.err_at(1, format!("block `{label}` defined twice")));
                    }
                    c.expect(&Tok::Punct('('))?;
                    if !c.eat(&Tok::Punct(')')) {
                        loop {
                            let (name, col) = c.ident_at("a parameter name such as `v0`")?;
                            if !is_label(&name, 'v') {
                                return Err(line.err_at(
                                    col,
                                    format!("expected a value name such as `v0`, found `{name}`"),
                                ));
                            }
                            c.expect(&Tok::Punct(':'))?;
                            let ty = c.ty()?;
                            let v = numbered_value(&mut func, &name, line, col)?;
                            let index = func.block(block).params.len() as u32;
                            func.set_value_type(v, ty);
                            func.values[v.index()].def = ValueDef::Param(block, index);
                            func.block_mut(block).params.push(v);
                            define(&mut values, name, v, line, col)?;
                            if c.eat(&Tok::Punct(')')) {
                                break;
                            }
                            c.expect(&Tok::Punct(','))?;
                        }
                    }
                    c.expect(&Tok::Punct(':'))?;
                    c.end()?;
                }
                LineKind::Inst { n_results } => {
                    let mut results = Vec::new();
                    for k in 0..n_results {
                        let (tok, col) = &line.toks[2 * k];
                        let Tok::Ident(name) = tok else {
                            unreachable!("classify counted identifiers")
                        };
                        if !is_label(name, 'v') {
                            return Err(line.err_at(
                                *col,
                                format!("expected a value name such as `v3`, found `{name}`"),
                            ));
                        }
                        let v = numbered_value(&mut func, name, line, *col)?;
                        func.values[v.index()].def = ValueDef::Result(InstId(u32::MAX), k as u32);
                        define(&mut values, name.clone(), v, line, *col)?;
                        results.push(v);
                    }
                    pending_results.push(results);
                }
            }
        }
        let Some(&entry) = func.layout.first() else {
            return Err(ParseError {
                line: body.first().map_or(1, |l| l.number),
                col: 1,
                message: format!("function `{}` has no blocks", sig.name),
            });
        };
        func.entry = entry;
        // Second scan: instructions and terminators.
        let mut current: Option<BlockId> = None;
        let mut pending = pending_results.into_iter();
        let scope = Scope {
            blocks: &blocks,
            values: &values,
            funcs: self.func_ids,
            returns: self.returns,
        };
        for line in body {
            match classify(line) {
                LineKind::Block => {
                    let Tok::Ident(label) = &line.toks[0].0 else {
                        unreachable!("classified as a block")
                    };
                    current = Some(blocks[label]);
                }
                LineKind::Inst { n_results } => {
                    let results = pending.next().expect("one entry per instruction line");
                    let Some(block) = current else {
                        return Err(line.err_at(
                            line.toks[0].1,
                            "instruction outside a block (expected a label such as `b0():`)",
                        ));
                    };
                    let mut c = Cursor::new(line);
                    c.pos = if n_results > 0 { 2 * n_results } else { 0 };
                    let (opcode, col) = c.ident_at("an opcode")?;
                    if func.block(block).term.is_some() {
                        return Err(line.err_at(
                            col,
                            format!("`{opcode}` after the terminator of block {block}"),
                        ));
                    }
                    if let Some(term) = scope.terminator(&mut func, &mut c, &opcode, col)? {
                        if n_results > 0 {
                            return Err(line.err_at(1, format!("`{opcode}` has no results")));
                        }
                        c.end()?;
                        func.block_mut(block).term = Some(term);
                        continue;
                    }
                    let no_wrap = c.eat(&Tok::Ident("nuw".into()));
                    let kind = scope.inst(&mut func, &mut c, &opcode, col)?;
                    let loc = c.loc()?;
                    c.end()?;
                    let expected = match &kind {
                        InstKind::Call { func: callee, .. } => self.returns[callee.index()].len(),
                        other => func.result_types(other).len(),
                    };
                    if expected != results.len() {
                        return Err(line.err_at(
                            col,
                            format!(
                                "`{opcode}` defines {expected} value(s), but {} are named",
                                results.len()
                            ),
                        ));
                    }
                    let id = InstId::new(func.insts.len());
                    for (k, v) in results.iter().enumerate() {
                        func.values[v.index()].def = ValueDef::Result(id, k as u32);
                    }
                    let mut data = InstData::new(kind, results.into(), loc);
                    data.set_no_wrap(no_wrap);
                    func.insts.push(data);
                    func.block_mut(block).insts.push(id);
                }
            }
        }
        infer_types(&mut func, self.returns);
        Ok(func)
    }
}

/// Largest block or value number the parser accepts, so that a typo cannot allocate gigabytes.
const MAX_NUMBER: usize = 1 << 20;

/// The number `N` of a label `bN`/`vN`, checked against [`MAX_NUMBER`].
fn label_number(label: &str, line: &Line, col: u32) -> Result<usize> {
    match label[1..].parse::<usize>() {
        Ok(n) if n <= MAX_NUMBER => Ok(n),
        _ => Err(line.err_at(
            col,
            format!("`{label}`: numbers above {MAX_NUMBER} are not supported"),
        )),
    }
}

/// The block numbered as its label (`b7` is `BlockId(7)`), so that messages about parsed text use
/// the text's own names. Arena slots below it that no label claims stay empty and unlaid.
fn numbered_block(func: &mut Function, label: &str, line: &Line) -> Result<BlockId> {
    let n = label_number(label, line, 1)?;
    while func.blocks.len() <= n {
        func.blocks.push(Default::default());
    }
    let id = BlockId::new(n);
    if func.layout.contains(&id) {
        return Err(line.err_at(1, format!("block `{label}` defined twice")));
    }
    func.layout.push(id);
    Ok(id)
}

/// The value numbered as its name (`v7` is `ValueId(7)`); free slots hold unused placeholders.
fn numbered_value(func: &mut Function, name: &str, line: &Line, col: u32) -> Result<ValueId> {
    let n = label_number(name, line, col)?;
    while func.values.len() <= n {
        func.make_const(Type::Field, Const::Field(field::Fr::from(0u64)));
    }
    Ok(ValueId::new(n))
}

fn define(
    values: &mut HashMap<String, ValueId>,
    name: String,
    v: ValueId,
    line: &Line,
    col: u32,
) -> Result<()> {
    if values.insert(name.clone(), v).is_some() {
        return Err(line.err_at(col, format!("value `{name}` defined twice")));
    }
    Ok(())
}

/// Sets each result's type from its operands', repeating until nothing changes (operands
/// defined later in the text are typed on a later round).
fn infer_types(func: &mut Function, returns: &[Vec<Type>]) {
    for _ in 0..=func.insts.len() {
        let mut changed = false;
        for i in 0..func.insts.len() {
            let types = match &func.insts[i].kind {
                InstKind::Call { func: callee, .. } => returns[callee.index()].clone(),
                kind => func.result_types(kind),
            };
            for (k, ty) in types.into_iter().enumerate() {
                let v = func.insts[i].results[k];
                if *func.value_type(v) != ty {
                    func.set_value_type(v, ty);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

struct Scope<'a> {
    blocks: &'a HashMap<String, BlockId>,
    values: &'a HashMap<String, ValueId>,
    funcs: &'a HashMap<String, FuncId>,
    /// Every function's return types (a `hint`'s result types).
    returns: &'a [Vec<Type>],
}

impl Scope<'_> {
    /// The optional guard `if g` that ends a `log` or a `hint`.
    fn guard(&self, func: &mut Function, c: &mut Cursor) -> Result<Option<ValueId>> {
        if c.eat(&Tok::Ident("if".to_string())) {
            Ok(Some(self.operand(func, c)?))
        } else {
            Ok(None)
        }
    }

    fn operand(&self, func: &mut Function, c: &mut Cursor) -> Result<ValueId> {
        let (tok, col) = c.next("an operand")?;
        match tok {
            Tok::Ident(name) if is_label(&name, 'v') => self
                .values
                .get(&name)
                .copied()
                .ok_or_else(|| c.line.err_at(col, format!("unknown value `{name}`"))),
            _ => {
                c.pos -= 1;
                let ty = c.ty()?;
                let (lit, lcol) = c.next("a constant literal")?;
                let Tok::Int(text) = lit else {
                    return Err(c
                        .line
                        .err_at(lcol, format!("expected a constant literal, found {lit}")));
                };
                let value = match &ty {
                    Type::Field => Const::Field(field::parse_dec(&text).ok_or_else(|| {
                        c.line
                            .err_at(lcol, format!("`{text}` is not a field element"))
                    })?),
                    Type::UInt(w) => {
                        let n: u64 = text.parse().map_err(|_| {
                            c.line
                                .err_at(lcol, format!("`{text}` is not a u{w} constant"))
                        })?;
                        if *w < 64 && n >> w != 0 {
                            return Err(c
                                .line
                                .err_at(lcol, format!("`{text}` does not fit in u{w}")));
                        }
                        Const::UInt(n)
                    }
                    other => {
                        return Err(c.line.err_at(
                            col,
                            format!("constants of type `{other}` are not supported"),
                        ))
                    }
                };
                Ok(func.make_const(ty, value))
            }
        }
    }

    fn operands(&self, func: &mut Function, c: &mut Cursor, close: char) -> Result<Vec<ValueId>> {
        let mut out = Vec::new();
        if c.eat(&Tok::Punct(close)) {
            return Ok(out);
        }
        loop {
            out.push(self.operand(func, c)?);
            if c.eat(&Tok::Punct(close)) {
                return Ok(out);
            }
            c.expect(&Tok::Punct(','))?;
        }
    }

    fn block_call(&self, func: &mut Function, c: &mut Cursor) -> Result<BlockCall> {
        let (label, col) = c.ident_at("a block label")?;
        let block = *self
            .blocks
            .get(&label)
            .ok_or_else(|| c.line.err_at(col, format!("unknown block `{label}`")))?;
        c.expect(&Tok::Punct('('))?;
        let args = self.operands(func, c, ')')?;
        Ok(BlockCall { block, args })
    }

    fn terminator(
        &self,
        func: &mut Function,
        c: &mut Cursor,
        opcode: &str,
        _col: u32,
    ) -> Result<Option<Terminator>> {
        Ok(Some(match opcode {
            "jmp" => Terminator::Jmp(self.block_call(func, c)?),
            "br" => {
                let cond = self.operand(func, c)?;
                c.expect(&Tok::Punct(','))?;
                let then_dest = self.block_call(func, c)?;
                c.expect(&Tok::Punct(','))?;
                let else_dest = self.block_call(func, c)?;
                Terminator::Br {
                    cond,
                    then_dest,
                    else_dest,
                }
            }
            "return" => {
                let mut values = Vec::new();
                if !c.at_end() {
                    loop {
                        values.push(self.operand(func, c)?);
                        if !c.eat(&Tok::Punct(',')) {
                            break;
                        }
                    }
                }
                Terminator::Return(values)
            }
            _ => return Ok(None),
        }))
    }

    /// `fN(a, b, ...)`, the callee and arguments of a `call` or `hint`.
    fn callee_and_args(
        &self,
        func: &mut Function,
        c: &mut Cursor,
    ) -> Result<(FuncId, Vec<ValueId>)> {
        let (label, fcol) = c.ident_at("a function id")?;
        let callee = *self
            .funcs
            .get(&label)
            .ok_or_else(|| c.line.err_at(fcol, format!("unknown function `{label}`")))?;
        c.expect(&Tok::Punct('('))?;
        Ok((callee, self.operands(func, c, ')')?))
    }

    fn inst(
        &self,
        func: &mut Function,
        c: &mut Cursor,
        opcode: &str,
        col: u32,
    ) -> Result<InstKind> {
        // `OPCODE a, b, ...`: a comma before every operand but the first.
        let mut first = true;
        let next = || {
            if !std::mem::take(&mut first) {
                c.expect(&Tok::Punct(','))?;
            }
            self.operand(func, c)
        };
        if let Some(kind) = InstKind::plain(opcode, next) {
            return kind;
        }
        Ok(match opcode {
            "cast" | "trunc" | "from_bits" => {
                let arg = self.operand(func, c)?;
                c.keyword("to")?;
                let to = c.ty()?;
                match opcode {
                    "cast" => InstKind::Cast { arg, to },
                    "trunc" => InstKind::Truncate { arg, to },
                    _ => InstKind::FromBits { arg, to },
                }
            }
            "bound" => {
                let arg = self.operand(func, c)?;
                c.expect(&Tok::Punct(','))?;
                let (tok, bcol) = c.next("a bit count")?;
                let bits = match tok {
                    Tok::Int(digits) => digits.parse::<u32>().ok().filter(|&k| k <= 253),
                    _ => None,
                }
                .ok_or_else(|| c.line.err_at(bcol, "expected a bit count up to 253"))?;
                InstKind::Bound { arg, bits }
            }
            "assert" => {
                let cond = self.operand(func, c)?;
                let msg = if c.eat(&Tok::Punct(',')) {
                    let (tok, scol) = c.next("a message string")?;
                    match tok {
                        Tok::Str(s) => Some(s),
                        other => {
                            return Err(c
                                .line
                                .err_at(scol, format!("expected a message string, found {other}")))
                        }
                    }
                } else {
                    None
                };
                InstKind::Assert { cond, msg }
            }
            "log" => {
                let (tok, scol) = c.next("a template string")?;
                let Tok::Str(template) = tok else {
                    return Err(c
                        .line
                        .err_at(scol, format!("expected a template string, found {tok}")));
                };
                let mut args = Vec::new();
                while c.eat(&Tok::Punct(',')) {
                    args.push(self.operand(func, c)?);
                }
                let guard = self.guard(func, c)?;
                InstKind::Log {
                    template: Box::new(template),
                    args: args.into(),
                    guard,
                }
            }
            "allocate" => InstKind::Allocate { ty: c.ty()? },
            "store" => {
                let value = self.operand(func, c)?;
                c.keyword("at")?;
                let ptr = self.operand(func, c)?;
                InstKind::Store { ptr, value }
            }
            "make_array" => {
                c.expect(&Tok::Punct('['))?;
                let elems = self.operands(func, c, ']')?;
                c.expect(&Tok::Punct(':'))?;
                let elem_ty = c.ty()?;
                InstKind::MakeArray {
                    elems: elems.into(),
                    elem_ty,
                }
            }
            "call" => {
                let (callee, args) = self.callee_and_args(func, c)?;
                InstKind::Call { func: callee, args }
            }
            "hint" => {
                let (callee, args) = self.callee_and_args(func, c)?;
                let ret = self
                    .returns
                    .get(callee.index())
                    .cloned()
                    .unwrap_or_default();
                let guard = self.guard(func, c)?;
                InstKind::Hint {
                    func: callee,
                    args: args.into(),
                    ret: ret.into(),
                    guard,
                }
            }
            other => return Err(c.line.err_at(col, format!("unknown opcode `{other}`"))),
        })
    }
}
