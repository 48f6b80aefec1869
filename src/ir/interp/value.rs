//! Interpreter values (`Val`), their JSON encoding for inputs and outputs, and the text of
//! `log` lines.

use crate::field::{self, Fr};
use crate::ir::function::{wrap, Program};
use crate::ir::types::Type;
use ark_ff::Zero;
use std::rc::Rc;

/// A run-time value.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Val {
    /// A field element.
    Field(Fr),
    /// An unsigned integer (its width is the static type's).
    UInt(u64),
    /// An array (shared; `array_set` copies).
    Array(Rc<Vec<Val>>),
    /// A reference: an index into the interpreter's memory.
    Ref(usize),
}

impl Val {
    /// The zero value of a type (what a fresh `allocate` holds).
    pub fn zero(ty: &Type) -> Val {
        match ty {
            Type::Field => Val::Field(Fr::zero()),
            Type::UInt(_) => Val::UInt(0),
            Type::Array(elem, n) => Val::Array(Rc::new(vec![Val::zero(elem); *n as usize])),
            Type::Ref(_) => Val::Ref(usize::MAX),
        }
    }

    /// The field element, for a `Field`.
    pub fn as_field(&self) -> Option<Fr> {
        match self {
            Val::Field(x) => Some(*x),
            _ => None,
        }
    }

    /// The integer, for a `UInt`.
    pub fn as_uint(&self) -> Option<u64> {
        match self {
            Val::UInt(n) => Some(*n),
            _ => None,
        }
    }

    /// A scalar as a field element (integers embed); `None` for arrays and references.
    pub fn to_field(&self) -> Option<Fr> {
        match self {
            Val::Field(x) => Some(*x),
            Val::UInt(n) => Some(Fr::from(*n)),
            _ => None,
        }
    }

    /// Reads a value of type `ty` from JSON: field and `uN` as decimal strings or JSON integers,
    /// `u1` as `true`/`false` (or 0/1), arrays as JSON arrays. The message names what is wrong.
    pub fn from_json(ty: &Type, json: &serde_json::Value) -> Result<Val, String> {
        use serde_json::Value as J;
        let text = match json {
            J::String(s) => Some(s.trim().to_string()),
            J::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
            _ => None,
        };
        match ty {
            Type::Field => {
                let t = text.ok_or_else(|| {
                    format!("expected a field element (decimal string), found {json}")
                })?;
                field::parse_dec(&t).map(Val::Field).ok_or_else(|| {
                    format!("`{t}` is not a field element (a decimal integer in [0, p))")
                })
            }
            Type::UInt(1) => match json {
                J::Bool(b) => Ok(Val::UInt(u64::from(*b))),
                _ => match text.as_deref() {
                    Some("0") | Some("false") => Ok(Val::UInt(0)),
                    Some("1") | Some("true") => Ok(Val::UInt(1)),
                    _ => Err(format!("expected a bool (true or false), found {json}")),
                },
            },
            Type::UInt(w) => {
                let t = text.ok_or_else(|| {
                    format!("expected a u{w} (decimal or 0x hexadecimal string), found {json}")
                })?;
                let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => t.parse(),
                };
                let n: u64 = parsed.map_err(|_| format!("`{t}` is not a u{w} value"))?;
                if *w < 64 && n >> w != 0 {
                    return Err(format!("{n} does not fit in u{w}"));
                }
                Ok(Val::UInt(n))
            }
            Type::Array(elem, n) => {
                let vals = array_from_json(json, *n, |item| Val::from_json(elem, item))?;
                Ok(Val::Array(Rc::new(vals)))
            }
            Type::Ref(_) => Err("references cannot be inputs".into()),
        }
    }

    /// The JSON encoding of a value of type `ty` (the inverse of [`Val::from_json`]).
    pub fn to_json(&self, ty: &Type) -> serde_json::Value {
        use serde_json::Value as J;
        match (self, ty) {
            (Val::Field(x), _) => J::String(field::to_dec(x)),
            (Val::UInt(n), Type::UInt(1)) => J::Bool(*n != 0),
            (Val::UInt(n), _) => J::String(n.to_string()),
            (Val::Array(items), Type::Array(elem, _)) => {
                J::Array(items.iter().map(|v| v.to_json(elem)).collect())
            }
            (Val::Array(items), _) => {
                J::Array(items.iter().map(|v| v.to_json(&Type::Field)).collect())
            }
            (Val::Ref(r), _) => J::String(format!("&{r}")),
        }
    }
}

/// Reads a JSON array of exactly `n` elements, each by `read`; a wrong shape or length, or an
/// element's error (prefixed `element {i}: `), is the message. Shared by [`Val::from_json`] and
/// the front end's source-level inputs (`front::abi`), which read arrays the same way.
pub fn array_from_json<T>(
    json: &serde_json::Value,
    n: u32,
    mut read: impl FnMut(&serde_json::Value) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let serde_json::Value::Array(items) = json else {
        return Err(format!("expected an array of {n} elements, found {json}"));
    };
    if items.len() != n as usize {
        return Err(format!(
            "expected an array of {n} elements, found {}",
            items.len()
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| read(item).map_err(|e| format!("element {i}: {e}")))
        .collect()
}

/// Parses JSON inputs for `main`: an array with one entry per parameter, in order.
pub fn inputs_from_json(program: &Program, json: &serde_json::Value) -> Result<Vec<Val>, String> {
    let types = program.main_func().param_types();
    let serde_json::Value::Array(items) = json else {
        return Err(
            "the inputs of an IR program are a JSON array, one entry per parameter of main".into(),
        );
    };
    if items.len() != types.len() {
        return Err(format!(
            "main takes {} input(s), {} given",
            types.len(),
            items.len()
        ));
    }
    types
        .iter()
        .zip(items)
        .enumerate()
        .map(|(k, (ty, item))| Val::from_json(ty, item).map_err(|e| format!("input {k}: {e}")))
        .collect()
}

/// Whether `v` is a value of type `ty` (integers below 2^width, arrays of the right length).
pub fn fits(v: &Val, ty: &Type) -> bool {
    match (v, ty) {
        (Val::Field(_), Type::Field) => true,
        (Val::UInt(n), Type::UInt(w)) => wrap(*n, *w) == *n,
        (Val::Array(items), Type::Array(elem, len)) => {
            items.len() == *len as usize && items.iter().all(|i| fits(i, elem))
        }
        (Val::Ref(_), Type::Ref(_)) => true,
        _ => false,
    }
}

/// The number of `{}` slots of a `log` template, or `None` when a brace is unpaired (`{{` and
/// `}}` are literal braces).
pub fn template_slots(template: &str) -> Option<usize> {
    let mut n = 0;
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
            }
            ('{', Some('}')) => {
                chars.next();
                n += 1;
            }
            ('{' | '}', _) => return None,
            _ => {}
        }
    }
    Some(n)
}

/// A `log` line: the template with each `{}` replaced by the next value, written as ZoKrates'
/// `log` writes it: a field as a quoted decimal (`"42"`), a bool as `true`/`false`, a `uN` as a
/// quoted hexadecimal of N/4 digits (`"0x0000002a"`), an array as `[a,b]`. `None` when the
/// template does not have one slot per value.
pub fn render_log(template: &str, values: &[(Val, Type)]) -> Option<String> {
    if template_slots(template) != Some(values.len()) {
        return None;
    }
    let mut out = String::new();
    let mut values = values.iter();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{')) | ('}', Some('}')) => {
                chars.next();
                out.push(c);
            }
            ('{', Some('}')) => {
                chars.next();
                let (v, ty) = values.next()?;
                log_value(v, ty, &mut out)?;
            }
            _ => out.push(c),
        }
    }
    Some(out)
}

fn log_value(v: &Val, ty: &Type, out: &mut String) -> Option<()> {
    match (v, ty) {
        (Val::UInt(b), Type::UInt(1)) => out.push_str(if *b == 1 { "true" } else { "false" }),
        (Val::UInt(u), Type::UInt(w)) => {
            out.push_str(&format!("\"0x{u:0width$x}\"", width = (*w as usize) / 4))
        }
        (Val::Field(f), _) => out.push_str(&format!("\"{}\"", field::to_dec(f))),
        (Val::Array(items), Type::Array(elem, _)) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                log_value(item, elem, out)?;
            }
            out.push(']');
        }
        _ => return None,
    }
    Some(())
}
