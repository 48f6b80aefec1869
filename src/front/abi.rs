//! The interface of `main` at the source level: parameter names and types, and result types.
//!
//! The driver reads inputs as a JSON object keyed by `main`'s parameter names, and prints
//! outputs as `{"outputs": [...]}` with one entry per returned value (a tuple gives one entry per
//! element, `()` gives none). Encoding: `field` and `uN` as decimal strings (JSON integers are
//! accepted on input), `bool` as `true`/`false`, arrays as JSON arrays, structs as objects keyed
//! by member name, tuples as arrays. [`Abi`] converts between this and the flattened IR values
//! (see `lower`: a struct is its members' leaves, an array of structs is one IR array per leaf).

use super::irgen::ir_leaves;
use super::typed::{Program, Type};
use crate::ir::interp::{array_from_json, Val};
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

    /// The IR input values (flattened leaves, in parameter order) for a JSON object of inputs,
    /// or for a JSON array with one value per parameter in order (ZoKrates' `--abi` form).
    /// `null` counts as `{}` (for programs without parameters).
    pub fn inputs_from_json(&self, json: &J) -> Result<Vec<Val>, String> {
        let empty = Map::new();
        let positional: Map<String, J>;
        let obj = match json {
            J::Object(o) => o,
            J::Null => &empty,
            J::Array(items) => {
                if items.len() != self.params.len() {
                    return Err(format!(
                        "main takes {} argument(s), the inputs array has {}",
                        self.params.len(),
                        items.len()
                    ));
                }
                positional = self
                    .params
                    .iter()
                    .map(|p| p.name.clone())
                    .zip(items.iter().cloned())
                    .collect();
                &positional
            }
            _ => {
                return Err(
                    "inputs must be a JSON object keyed by the parameter names of main, \
                     or an array with one value per parameter"
                        .into(),
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

impl Abi {
    /// The inputs of ZoKrates' `compute-witness -a`: main's parameters flattened to scalars in
    /// order (an array element by element, a struct member by member), each a decimal or `0x`
    /// hexadecimal integer (a bool `0`/`1` or `true`/`false`), as the JSON object of
    /// [`Abi::inputs_from_json`].
    pub fn inputs_from_args(&self, args: &[String]) -> Result<J, String> {
        let mut rest = args;
        let mut obj = Map::new();
        for p in &self.params {
            let v = take_scalars(&p.ty, &mut rest)
                .map_err(|e| format!("argument for `{}`: {e}", p.name))?;
            obj.insert(p.name.clone(), v);
        }
        if !rest.is_empty() {
            let wanted = args.len() - rest.len();
            return Err(format!(
                "main takes {wanted} scalar argument(s), {} were given",
                args.len()
            ));
        }
        Ok(J::Object(obj))
    }

    /// The ABI in ZoKrates' `abi.json` shape: `inputs` (name, public, type, components) and
    /// `output`.
    pub fn to_zokrates_json(&self) -> J {
        let inputs: Vec<J> = self
            .params
            .iter()
            .map(|p| {
                let mut entry = Map::new();
                entry.insert("name".into(), J::String(p.name.clone()));
                entry.insert("public".into(), J::Bool(p.public));
                if let J::Object(ty) = type_json(&p.ty) {
                    entry.extend(ty);
                }
                J::Object(entry)
            })
            .collect();
        let output = match &self.outputs[..] {
            [single] => type_json(single),
            many => type_json(&Type::Tuple(many.to_vec())),
        };
        serde_json::json!({ "inputs": inputs, "output": output })
    }
}

/// A source type in ZoKrates' ABI form: `{"type": "field"}`, `{"type": "array", "components":
/// {"size": N, "type": ..}}`, structs with `members`, tuples with `elements`.
fn type_json(ty: &Type) -> J {
    use serde_json::json;
    match ty {
        Type::Field => json!({ "type": "field" }),
        Type::Bool => json!({ "type": "bool" }),
        Type::Uint(w) => json!({ "type": format!("u{w}") }),
        Type::Array(elem, n) => {
            let mut components = Map::new();
            components.insert("size".into(), json!(n));
            if let J::Object(e) = type_json(elem) {
                components.extend(e);
            }
            json!({ "type": "array", "components": components })
        }
        Type::Struct(s) => {
            let members: Vec<J> = s
                .fields
                .iter()
                .map(|(name, t)| {
                    let mut m = Map::new();
                    m.insert("name".into(), J::String(name.clone()));
                    if let J::Object(e) = type_json(t) {
                        m.extend(e);
                    }
                    J::Object(m)
                })
                .collect();
            json!({ "type": "struct", "components": { "name": s.name, "members": members } })
        }
        Type::Tuple(ts) => {
            let elements: Vec<J> = ts.iter().map(type_json).collect();
            json!({ "type": "tuple", "components": { "elements": elements } })
        }
    }
}

/// The JSON value of type `ty` from the front of `rest` (one scalar per leaf, in order).
fn take_scalars(ty: &Type, rest: &mut &[String]) -> Result<J, String> {
    Ok(match ty {
        Type::Field | Type::Bool | Type::Uint(_) => {
            let Some((first, tail)) = rest.split_first() else {
                return Err(format!("missing a `{ty}`"));
            };
            *rest = tail;
            match (ty, first.as_str()) {
                (Type::Bool, "0" | "false") => J::Bool(false),
                (Type::Bool, "1" | "true") => J::Bool(true),
                (Type::Bool, other) => return Err(format!("`{other}` is not a bool (0 or 1)")),
                (_, text) => J::String(text.to_string()),
            }
        }
        Type::Array(elem, n) => J::Array(
            (0..*n)
                .map(|_| take_scalars(elem, rest))
                .collect::<Result<_, _>>()?,
        ),
        Type::Struct(s) => {
            let mut obj = Map::new();
            for (name, t) in &s.fields {
                obj.insert(name.clone(), take_scalars(t, rest)?);
            }
            J::Object(obj)
        }
        Type::Tuple(ts) => J::Array(
            ts.iter()
                .map(|t| take_scalars(t, rest))
                .collect::<Result<_, _>>()?,
        ),
    })
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
            // Element by element, then one IR array per leaf (column) of the element type.
            let rows = array_from_json(json, *n, |item| flatten(elem, item))?;
            let k = ir_leaves(elem).len();
            let mut columns: Vec<Vec<Val>> = vec![Vec::with_capacity(rows.len()); k];
            for leaves in rows {
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
