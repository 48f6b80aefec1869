//! The interface of `main` at the source level: parameter names and types, and result types.
//!
//! The driver reads inputs as a JSON object keyed by `main`'s parameter names, and prints
//! outputs as `{"outputs": [...]}` with one entry per returned value (a tuple gives one entry per
//! element, `()` gives none). Encoding: `field` and `uN` as decimal strings (JSON integers are
//! accepted on input), `bool` as `true`/`false`, arrays as JSON arrays, structs as objects keyed
//! by member name, tuples as arrays. [`Abi`] converts between this and the flattened IR values
//! (see `lower`: a struct is its members' leaves, an array of structs is one IR array per leaf).

use super::lower::ir_leaves;
use super::typed::{Program, Type};
use crate::ir::interp::Val;
use crate::ir::{self};
use serde_json::{Map, Value as J};
use std::rc::Rc;

/// One parameter of `main`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbiParam {
    /// The source name.
    pub name: String,
    /// The source type.
    pub ty: Type,
    /// Declared public (the default) rather than `private`: its wires are public inputs of
    /// an exported circuit.
    pub public: bool,
}

/// `main`'s source-level signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abi {
    /// Parameters in order.
    pub params: Vec<AbiParam>,
    /// One type per output entry (the elements of a returned tuple, or the single result).
    pub outputs: Vec<Type>,
}

impl Abi {
    /// The ABI of `program`'s `main`.
    pub fn of(program: &Program) -> Abi {
        let main = program.function(program.main);
        Abi {
            params: main
                .params
                .iter()
                .map(|&p| {
                    let info = main.local(p);
                    AbiParam {
                        name: info.name.clone(),
                        ty: info.ty.clone(),
                        public: true,
                    }
                })
                .collect(),
            outputs: match &main.ret {
                Type::Tuple(ts) => ts.clone(),
                t => vec![t.clone()],
            },
        }
    }

    /// The IR input values (flattened leaves, in parameter order) for a JSON object of inputs.
    /// `null` counts as `{}` (for programs without parameters).
    pub fn inputs_from_json(&self, json: &J) -> Result<Vec<Val>, String> {
        let empty = Map::new();
        let obj = match json {
            J::Object(o) => o,
            J::Null => &empty,
            _ => {
                return Err(
                    "inputs must be a JSON object keyed by the parameter names of main".into(),
                )
            }
        };
        if let Some(unknown) = obj
            .keys()
            .find(|k| !self.params.iter().any(|p| p.name == **k))
        {
            return Err(format!("main has no parameter `{unknown}`"));
        }
        let mut out = Vec::new();
        for p in &self.params {
            let v = obj
                .get(&p.name)
                .ok_or_else(|| format!("missing input `{}` of type `{}`", p.name, p.ty))?;
            out.extend(flatten(&p.ty, v).map_err(|e| format!("input `{}`: {e}", p.name))?);
        }
        Ok(out)
    }

    /// The JSON output object `{"outputs": [...]}` for main's flattened IR results.
    pub fn outputs_to_json(&self, outputs: &[Val]) -> J {
        let mut rest = outputs;
        let mut entries = Vec::new();
        for ty in &self.outputs {
            let n = ir_leaves(ty).len().min(rest.len());
            entries.push(unflatten(ty, &rest[..n]));
            rest = &rest[n..];
        }
        serde_json::json!({ "outputs": entries })
    }
}

/// The leaves of a JSON value of source type `ty`.
fn flatten(ty: &Type, json: &J) -> Result<Vec<Val>, String> {
    Ok(match ty {
        Type::Field | Type::Bool | Type::Uint(_) => {
            let leaf = &ir_leaves(ty)[0];
            vec![Val::from_json(leaf, json)?]
        }
        Type::Struct(s) => {
            let J::Object(obj) = json else {
                return Err(format!(
                    "expected an object for struct `{}`, found {json}",
                    s.name
                ));
            };
            let mut out = Vec::new();
            for (name, t) in &s.fields {
                let v = obj
                    .get(name)
                    .ok_or_else(|| format!("missing member `{name}` of struct `{}`", s.name))?;
                out.extend(flatten(t, v).map_err(|e| format!("member `{name}`: {e}"))?);
            }
            out
        }
        Type::Tuple(ts) => {
            let J::Array(items) = json else {
                return Err(format!("expected an array for tuple `{ty}`, found {json}"));
            };
            if items.len() != ts.len() {
                return Err(format!(
                    "expected {} tuple elements, found {}",
                    ts.len(),
                    items.len()
                ));
            }
            let mut out = Vec::new();
            for (t, v) in ts.iter().zip(items) {
                out.extend(flatten(t, v)?);
            }
            out
        }
        Type::Array(elem, n) => {
            let J::Array(items) = json else {
                return Err(format!("expected an array of {n} elements, found {json}"));
            };
            if items.len() != *n as usize {
                return Err(format!(
                    "expected an array of {n} elements, found {}",
                    items.len()
                ));
            }
            let k = ir_leaves(elem).len();
            let mut columns: Vec<Vec<Val>> = vec![Vec::with_capacity(items.len()); k];
            for (i, item) in items.iter().enumerate() {
                let leaves = flatten(elem, item).map_err(|e| format!("element {i}: {e}"))?;
                for (col, v) in columns.iter_mut().zip(leaves) {
                    col.push(v);
                }
            }
            columns
                .into_iter()
                .map(|c| Val::Array(Rc::new(c)))
                .collect()
        }
    })
}

/// The JSON value of source type `ty` from its leaves.
fn unflatten(ty: &Type, leaves: &[Val]) -> J {
    match ty {
        Type::Field | Type::Bool | Type::Uint(_) => match leaves.first() {
            Some(v) => v.to_json(&ir_leaves(ty)[0]),
            None => J::Null,
        },
        Type::Struct(s) => {
            let mut obj = Map::new();
            let mut rest = leaves;
            for (name, t) in &s.fields {
                let n = ir_leaves(t).len().min(rest.len());
                obj.insert(name.clone(), unflatten(t, &rest[..n]));
                rest = &rest[n..];
            }
            J::Object(obj)
        }
        Type::Tuple(ts) => {
            let mut rest = leaves;
            let mut out = Vec::new();
            for t in ts {
                let n = ir_leaves(t).len().min(rest.len());
                out.push(unflatten(t, &rest[..n]));
                rest = &rest[n..];
            }
            J::Array(out)
        }
        Type::Array(elem, n) => {
            let out = (0..*n as usize)
                .map(|i| {
                    let column: Vec<Val> = leaves
                        .iter()
                        .map(|leaf| match leaf {
                            Val::Array(items) => items.get(i).cloned().unwrap_or(Val::UInt(0)),
                            other => other.clone(),
                        })
                        .collect();
                    unflatten(elem, &column)
                })
                .collect();
            J::Array(out)
        }
    }
}

/// The IR types of main's parameters, for checking that lowering and ABI agree.
pub fn ir_param_types(abi: &Abi) -> Vec<ir::Type> {
    abi.params.iter().flat_map(|p| ir_leaves(&p.ty)).collect()
}
