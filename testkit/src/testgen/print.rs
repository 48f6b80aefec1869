//! Source text of a generated program, with the fewest parentheses the parser's precedence table
//! allows, and the feature counts of a program.

use super::{BinOp, Cast, Expr, Features, Func, Program, Stmt, Ty, UnOp, Value};
use std::fmt::{self, Write as _};

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Field => f.write_str("field"),
            Ty::Bool => f.write_str("bool"),
            Ty::U(w) => write!(f, "u{w}"),
            Ty::Array(elem, n) => write!(f, "{elem}[{n}]"),
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, func) in self.funcs.iter().enumerate() {
            if k > 0 {
                writeln!(f)?;
            }
            write_func(f, func)?;
        }
        Ok(())
    }
}

fn write_func(f: &mut fmt::Formatter<'_>, func: &Func) -> fmt::Result {
    let params: Vec<String> = func
        .params
        .iter()
        .map(|(ty, name, m)| format!("{ty} {}{name}", if *m { "mut " } else { "" }))
        .collect();
    let ret = match func.ret.as_slice() {
        [one] => one.to_string(),
        many => {
            let tys: Vec<String> = many.iter().map(Ty::to_string).collect();
            format!("({})", tys.join(", "))
        }
    };
    writeln!(f, "def {}({}) -> {ret} {{", func.name, params.join(", "))?;
    let mut out = String::new();
    stmts(&mut out, &func.body, 1);
    f.write_str(&out)?;
    writeln!(f, "}}")
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

fn stmts(out: &mut String, body: &[Stmt], level: usize) {
    for s in body {
        stmt(out, s, level);
    }
}

fn stmt(out: &mut String, s: &Stmt, level: usize) {
    indent(out, level);
    match s {
        Stmt::Decl {
            ty,
            name,
            mutable,
            init,
        } => {
            let m = if *mutable { "mut " } else { "" };
            let _ = writeln!(out, "{ty} {m}{name} = {};", expr(init, 0));
        }
        Stmt::Assign(name, value) => {
            let _ = writeln!(out, "{name} = {};", expr(value, 0));
        }
        Stmt::AssignIndex(name, index, value) => {
            let _ = writeln!(out, "{name}[{}] = {};", expr(index, 0), expr(value, 0));
        }
        Stmt::If(arms, els) => {
            for (k, (cond, body)) in arms.iter().enumerate() {
                if k > 0 {
                    out.push_str(" else ");
                }
                let _ = writeln!(out, "if {} {{", expr(cond, 1));
                stmts(out, body, level + 1);
                indent(out, level);
                out.push('}');
            }
            if let Some(body) = els {
                out.push_str(" else {\n");
                stmts(out, body, level + 1);
                indent(out, level);
                out.push('}');
            }
            out.push('\n');
        }
        Stmt::For {
            ty,
            var,
            from,
            to,
            body,
        } => {
            let _ = writeln!(
                out,
                "for {ty} {var} in {}..{} {{",
                expr(from, 1),
                expr(to, 1)
            );
            stmts(out, body, level + 1);
            indent(out, level);
            out.push_str("}\n");
        }
        Stmt::While(cond, body) => {
            let _ = writeln!(out, "while {} {{", expr(cond, 1));
            stmts(out, body, level + 1);
            indent(out, level);
            out.push_str("}\n");
        }
        Stmt::Return(values) => match values.as_slice() {
            [one] => {
                let _ = writeln!(out, "return {};", expr(one, 0));
            }
            many => {
                let vs: Vec<String> = many.iter().map(|e| expr(e, 0)).collect();
                let _ = writeln!(out, "return ({});", vs.join(", "));
            }
        },
        Stmt::Assert(cond) => {
            let _ = writeln!(out, "assert({});", expr(cond, 0));
        }
    }
}

/// The parser's binding strength of each operator (see `front::parser`).
fn bin_prec(op: BinOp) -> u32 {
    use BinOp::*;
    match op {
        Or => 1,
        And => 2,
        Eq | Ne => 3,
        Lt | Le | Gt | Ge => 4,
        BitOr => 5,
        BitXor => 6,
        BitAnd => 7,
        Shl | Shr => 8,
        Add | Sub => 9,
        Mul | Div | Rem => 10,
    }
}

fn bin_str(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Add => "+",
        Sub => "-",
        Mul => "*",
        Div => "/",
        Rem => "%",
        BitAnd => "&",
        BitOr => "|",
        BitXor => "^",
        Shl => "<<",
        Shr => ">>",
        Eq => "==",
        Ne => "!=",
        Lt => "<",
        Le => "<=",
        Gt => ">",
        Ge => ">=",
        And => "&&",
        Or => "||",
    }
}

const ATOM: u32 = 13;

fn prec(e: &Expr) -> u32 {
    match e {
        Expr::Ternary(..) => 0,
        Expr::Bin(op, ..) => bin_prec(*op),
        Expr::Un(..) => 11,
        Expr::Pow(..) => 12,
        // An if-expression is always parenthesized inside another expression.
        Expr::IfExpr(..) => 0,
        _ => ATOM,
    }
}

fn lit(ty: &Ty, v: &Value) -> String {
    match (ty, v) {
        (_, Value::Field(x)) => zkbc::field::to_dec(x),
        (Ty::U(w), Value::U(n)) => format!("{n}u{w}"),
        (_, Value::Bool(b)) => b.to_string(),
        _ => panic!("bug: literal {v:?} of type {ty:?}"),
    }
}

/// `e` as text, parenthesized when it binds more loosely than `min`.
fn expr(e: &Expr, min: u32) -> String {
    let text = match e {
        Expr::Lit(ty, v) => lit(ty, v),
        Expr::Var(name) => name.clone(),
        Expr::Index(a, i) => format!("{}[{}]", expr(a, ATOM), expr(i, 0)),
        Expr::Un(op, _, a) => {
            let inner = expr(a, 11);
            let sym = match op {
                UnOp::Neg => "-",
                UnOp::Not => "!",
            };
            // `- -x` and `-!x` need parentheses (ZoKrates' grammar takes one unary operator).
            if inner.starts_with(['-', '!', '+']) {
                format!("{sym}({inner})")
            } else {
                format!("{sym}{inner}")
            }
        }
        Expr::Bin(op, _, a, b) => {
            let p = bin_prec(*op);
            format!("{} {} {}", expr(a, p), bin_str(*op), expr(b, p + 1))
        }
        Expr::Pow(_, a, k) => format!("{} ** {k}", expr(a, ATOM)),
        Expr::Ternary(c, a, b) => format!("{} ? {} : {}", expr(c, 1), expr(a, 1), expr(b, 0)),
        Expr::IfExpr(c, a, b) => format!(
            "if {} {{ {} }} else {{ {} }}",
            expr(c, 1),
            expr(a, 0),
            expr(b, 0)
        ),
        Expr::Call(name, args) => {
            let args: Vec<String> = args.iter().map(|a| expr(a, 0)).collect();
            format!("{name}({})", args.join(", "))
        }
        Expr::Cast(c, a) => {
            let name = match c {
                Cast::ToField(w) => format!("u{w}_to_field"),
                Cast::FromField(w) => format!("field_to_u{w}"),
            };
            format!("{name}({})", expr(a, 0))
        }
        Expr::Repeat(a, n) => format!("[{}; {n}]", expr(a, 0)),
        Expr::ArrayLit(items) => {
            let items: Vec<String> = items.iter().map(|a| expr(a, 0)).collect();
            format!("[{}]", items.join(", "))
        }
    };
    let needs_parens = prec(e) < min || (matches!(e, Expr::IfExpr(..)) && min > 0);
    if needs_parens {
        format!("({text})")
    } else {
        text
    }
}

pub(super) fn features_of_stmts(body: &[Stmt], f: &mut Features, if_depth: usize) {
    for (k, s) in body.iter().enumerate() {
        match s {
            Stmt::Decl { init, .. } => features_of_expr(init, f),
            Stmt::Assign(_, e) => features_of_expr(e, f),
            Stmt::AssignIndex(_, i, e) => {
                if !matches!(i, Expr::Lit(..)) {
                    f.dynamic_indices += 1;
                }
                features_of_expr(i, f);
                features_of_expr(e, f);
            }
            Stmt::If(arms, els) => {
                f.ifs += 1;
                if if_depth > 0 {
                    f.nested_ifs += 1;
                }
                for (c, b) in arms {
                    features_of_expr(c, f);
                    features_of_stmts(b, f, if_depth + 1);
                }
                if let Some(b) = els {
                    features_of_stmts(b, f, if_depth + 1);
                }
            }
            Stmt::For { from, to, body, .. } => {
                let constant = matches!(from, Expr::Lit(..)) && matches!(to, Expr::Lit(..));
                if constant {
                    f.const_loops += 1;
                } else {
                    f.runtime_loops += 1;
                }
                features_of_expr(from, f);
                features_of_expr(to, f);
                features_of_stmts(body, f, if_depth);
            }
            Stmt::While(c, body) => {
                f.while_loops += 1;
                features_of_expr(c, f);
                features_of_stmts(body, f, if_depth);
            }
            Stmt::Return(es) => {
                if if_depth > 0 || k + 1 < body.len() {
                    f.early_returns += 1;
                }
                es.iter().for_each(|e| features_of_expr(e, f));
            }
            Stmt::Assert(e) => {
                f.asserts += 1;
                features_of_expr(e, f);
            }
        }
    }
}

fn features_of_expr(e: &Expr, f: &mut Features) {
    match e {
        Expr::Lit(..) | Expr::Var(_) => {}
        Expr::Index(a, i) => {
            if !matches!(**i, Expr::Lit(..)) {
                f.dynamic_indices += 1;
            }
            features_of_expr(a, f);
            features_of_expr(i, f);
        }
        Expr::Un(_, _, a) | Expr::Pow(_, a, _) | Expr::Cast(_, a) | Expr::Repeat(a, _) => {
            features_of_expr(a, f)
        }
        Expr::Bin(op, ty, a, b) => {
            match (op, ty) {
                (BinOp::Div, Ty::Field) => f.field_divs += 1,
                (BinOp::Div | BinOp::Rem, _) => f.int_divs += 1,
                (BinOp::Shl | BinOp::Shr, _) => f.shifts += 1,
                _ => {}
            }
            features_of_expr(a, f);
            features_of_expr(b, f);
        }
        Expr::Ternary(c, a, b) | Expr::IfExpr(c, a, b) => {
            f.conditional_exprs += 1;
            features_of_expr(c, f);
            features_of_expr(a, f);
            features_of_expr(b, f);
        }
        Expr::Call(_, args) => {
            f.calls += 1;
            args.iter().for_each(|a| features_of_expr(a, f));
        }
        Expr::ArrayLit(items) => items.iter().for_each(|a| features_of_expr(a, f)),
    }
}
