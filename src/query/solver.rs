//! Queries and the backtracking solver, after the seed's "Formulating Constraint Problems"
//! (`../shared/seeds/ssa-structure-model.tex`, in the design notes folder beside the
//! repository): a structure is a tuple of variables — blocks, nodes of the
//! extended CFG, instructions, values, loops — constrained by a conjunction of predicates, and
//! every tuple that satisfies them all is a match.
//!
//! **Queries.** [`QueryBuilder::var`] declares a variable of a [`Kind`]; [`QueryBuilder::add`]
//! adds a predicate ([`Pred`]) over variables and constants ([`Term`]);
//! [`QueryBuilder::add_not`] adds its negation; [`QueryBuilder::not_exists`] adds a negated existential sub-query over fresh variables
//! (which may read the outer ones): "no tuple of these variables satisfies those constraints".
//!
//! **Solver.** [`Query::solve`] enumerates *every* solution by backtracking search, as CAnDL /
//! IDL do for LLVM IR:
//! 1. Each variable starts with the domain of its kind in the function ([`Facts`]), filtered by
//!    the unary constraints on it.
//! 2. At each step the solver picks the unbound variable with the fewest candidates, where a
//!    positive constraint whose other arguments are bound may *propose* candidates (the
//!    successors of a bound block, the operands of a bound instruction, ...): so variables
//!    connected to bound ones are bound next and prune early (dynamic variable ordering).
//! 3. After binding a variable it checks every constraint whose arguments are now all bound,
//!    cheapest first (a negated sub-query, a search of its own, last), and backtracks on the
//!    first that fails.
//!
//! Proposals are supersets of the values that satisfy their constraint, and every constraint is
//! checked once bound, so the solutions are exactly the satisfying tuples, each once.

use super::facts::Facts;
use super::pred::{Entity, Kind, Pred};
use std::fmt;

/// A variable of a [`Query`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Var(pub u32);

impl Var {
    fn index(self) -> usize {
        self.0 as usize
    }
}

/// An argument of a predicate: a variable or a fixed entity.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// A variable.
    Var(Var),
    /// A fixed entity.
    Fixed(Entity),
}

impl From<Var> for Term {
    fn from(v: Var) -> Term {
        Term::Var(v)
    }
}

impl From<Entity> for Term {
    fn from(e: Entity) -> Term {
        Term::Fixed(e)
    }
}

/// One conjunct of a query.
#[derive(Clone, Debug)]
pub enum Constraint {
    /// `pred(args)` holds, or with `negated`, does not.
    Pred {
        /// The predicate.
        pred: Pred,
        /// Its arguments.
        args: Vec<Term>,
        /// Whether the predicate must be false.
        negated: bool,
    },
    /// No assignment of `vars` satisfies `constraints` (which may read outer variables).
    NotExists {
        /// The sub-query's own variables.
        vars: Vec<Var>,
        /// Its constraints.
        constraints: Vec<Constraint>,
    },
}

#[derive(Clone, Debug)]
struct VarInfo {
    name: String,
    kind: Kind,
    /// Whether the variable belongs to a `not_exists` sub-query (not part of a solution).
    inner: bool,
}

/// A conjunction of constraints over typed variables (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct Query {
    vars: Vec<VarInfo>,
    constraints: Vec<Constraint>,
}

/// One solution: an entity for each (outer) variable of the query, in declaration order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Solution(pub Vec<Entity>);

impl Solution {
    /// The entity bound to `v`.
    pub fn get(&self, v: Var) -> Entity {
        self.0[v.index()]
    }
}

/// A sub-query under construction, handed to the closure of [`QueryBuilder::not_exists`].
pub struct SubQuery<'q> {
    query: &'q mut Query,
    vars: Vec<Var>,
    constraints: Vec<Constraint>,
}

/// Building a query or a sub-query: variables, constraints, negations.
pub trait QueryBuilder {
    /// The query the variables are declared in.
    fn root(&mut self) -> &mut Query;

    /// Appends a constraint.
    fn push(&mut self, c: Constraint);

    /// Declares a variable named `name` (the name only labels matches).
    fn var(&mut self, name: &str, kind: Kind) -> Var;

    /// Adds the constraint `pred(args)`. Panics (a bug in the caller) when the arguments do
    /// not have the kinds the predicate takes.
    fn add(&mut self, pred: Pred, args: impl IntoIterator<Item = impl Into<Term>>) {
        let c = self.root().make_pred(pred, args, false);
        self.push(c);
    }

    /// Adds the constraint `not pred(args)`.
    fn add_not(&mut self, pred: Pred, args: impl IntoIterator<Item = impl Into<Term>>) {
        let c = self.root().make_pred(pred, args, true);
        self.push(c);
    }

    /// Adds "no assignment of the sub-query's variables satisfies its constraints"; `build`
    /// declares the variables and constraints of the sub-query, which may read the outer
    /// variables.
    fn not_exists(&mut self, build: impl FnOnce(&mut SubQuery<'_>)) {
        let mut sub = SubQuery {
            query: self.root(),
            vars: Vec::new(),
            constraints: Vec::new(),
        };
        build(&mut sub);
        let (vars, constraints) = (sub.vars, sub.constraints);
        self.push(Constraint::NotExists { vars, constraints });
    }
}

impl QueryBuilder for SubQuery<'_> {
    fn root(&mut self) -> &mut Query {
        self.query
    }

    fn push(&mut self, c: Constraint) {
        self.constraints.push(c);
    }

    fn var(&mut self, name: &str, kind: Kind) -> Var {
        let v = self.query.new_var(name, kind, true);
        self.vars.push(v);
        v
    }
}

impl QueryBuilder for Query {
    fn root(&mut self) -> &mut Query {
        self
    }

    fn push(&mut self, c: Constraint) {
        self.constraints.push(c);
    }

    fn var(&mut self, name: &str, kind: Kind) -> Var {
        self.new_var(name, kind, false)
    }
}

impl Query {
    /// An empty query (every function matches it once, with no variables).
    pub fn new() -> Query {
        Query::default()
    }

    fn new_var(&mut self, name: &str, kind: Kind, inner: bool) -> Var {
        let v = Var(self.vars.len() as u32);
        self.vars.push(VarInfo {
            name: name.to_string(),
            kind,
            inner,
        });
        v
    }

    fn make_pred(
        &self,
        pred: Pred,
        args: impl IntoIterator<Item = impl Into<Term>>,
        negated: bool,
    ) -> Constraint {
        let args: Vec<Term> = args.into_iter().map(Into::into).collect();
        let kinds: Vec<Kind> = args
            .iter()
            .map(|t| match t {
                Term::Var(v) => self.vars[v.index()].kind,
                Term::Fixed(e) => e.kind(),
            })
            .collect();
        // A mistyped query is a bug in the code that built it, not a user error.
        if let Err(e) = pred.check_kinds(&kinds) {
            panic!("bug: ill-typed query constraint {pred:?}: {e}");
        }
        Constraint::Pred {
            pred,
            args,
            negated,
        }
    }

    /// The outer variables in declaration order, with their names.
    pub fn vars(&self) -> Vec<(Var, &str)> {
        self.vars
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.inner)
            .map(|(i, v)| (Var(i as u32), v.name.as_str()))
            .collect()
    }

    /// Every solution of the query on `facts`, sorted.
    pub fn solve(&self, facts: &Facts<'_>) -> Vec<Solution> {
        let outer: Vec<Var> = self.vars().into_iter().map(|(v, _)| v).collect();
        let mut solver = Solver {
            facts,
            query: self,
            bindings: vec![None; self.vars.len()],
            domains: vec![None; self.vars.len()],
            fixed_proposals: crate::fxhash::HashMap::default(),
        };
        let mut out = Vec::new();
        solver.search(&outer, &self.constraints, &mut |b| {
            out.push(Solution(
                outer
                    .iter()
                    .map(|v| b[v.index()].expect("bug: solution with an unbound variable"))
                    .collect(),
            ));
            true
        });
        out.sort();
        out
    }
}

impl fmt::Display for Query {
    /// The query as text: `vars a:node, b:node; ext_edge(a, b), not dominates(..), ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |t: &Term| match t {
            Term::Var(v) => self.vars[v.index()].name.clone(),
            Term::Fixed(e) => format!("{e:?}"),
        };
        fn write_constraints(
            q: &Query,
            cs: &[Constraint],
            name: &dyn Fn(&Term) -> String,
            f: &mut fmt::Formatter<'_>,
        ) -> fmt::Result {
            for (i, c) in cs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                match c {
                    Constraint::Pred {
                        pred,
                        args,
                        negated,
                    } => {
                        let args: Vec<String> = args.iter().map(name).collect();
                        let not = if *negated { "not " } else { "" };
                        write!(f, "{not}{}({})", pred.name(), args.join(", "))?;
                    }
                    Constraint::NotExists { vars, constraints } => {
                        let vs: Vec<&str> = vars
                            .iter()
                            .map(|v| q.vars[v.index()].name.as_str())
                            .collect();
                        if vs.is_empty() {
                            f.write_str("not (")?;
                        } else {
                            write!(f, "not exists {}: (", vs.join(", "))?;
                        }
                        write_constraints(q, constraints, name, f)?;
                        f.write_str(")")?;
                    }
                }
            }
            Ok(())
        }
        let vars: Vec<String> = self
            .vars
            .iter()
            .filter(|v| !v.inner)
            .map(|v| format!("{}:{}", v.name, v.kind.name()))
            .collect();
        write!(f, "vars {}; ", vars.join(", "))?;
        write_constraints(self, &self.constraints, &name, f)
    }
}

struct Solver<'a, 'f> {
    facts: &'a Facts<'f>,
    query: &'a Query,
    bindings: Vec<Option<Entity>>,
    /// The domain of each variable after its unary constraints, computed on first use.
    domains: Vec<Option<Vec<Entity>>>,
    /// Proposals that depend on no binding (every other argument of the constraint is a
    /// fixed entity: `opcode(add)` proposes every `add`), by constraint address and position:
    /// computed once, not at every node of the search.
    fixed_proposals: crate::fxhash::HashMap<(usize, usize), std::rc::Rc<Vec<Entity>>>,
}

impl<'a> Solver<'a, '_> {
    fn term(&self, t: &Term) -> Option<Entity> {
        match t {
            Term::Var(v) => self.bindings[v.index()],
            Term::Fixed(e) => Some(*e),
        }
    }

    /// Whether every free variable of `c` is bound.
    fn is_bound(&self, free: &[Var]) -> bool {
        free.iter().all(|v| self.bindings[v.index()].is_some())
    }

    /// Whether a constraint whose variables are all bound holds.
    fn holds(&mut self, c: &'a Constraint) -> bool {
        match c {
            Constraint::Pred {
                pred,
                args,
                negated,
            } => {
                let vals: Vec<Entity> = args
                    .iter()
                    .map(|t| self.term(t).expect("bug: checking an unbound constraint"))
                    .collect();
                pred.holds(self.facts, &vals) != *negated
            }
            Constraint::NotExists { vars, constraints } => {
                let mut found = false;
                self.search(vars, constraints, &mut |_| {
                    found = true;
                    false
                });
                !found
            }
        }
    }

    /// The domain of `v` filtered by the unary constraints on it.
    fn domain(&mut self, v: Var, order: &[Bound<'a>]) -> Vec<Entity> {
        if let Some(d) = &self.domains[v.index()] {
            return d.clone();
        }
        let kind = self.query.vars[v.index()].kind;
        let unary: Vec<&Constraint> = order
            .iter()
            .filter(|b| matches!(b.c, Constraint::Pred { .. }) && b.free == [v])
            .map(|b| b.c)
            .collect();
        let mut out = Vec::new();
        for e in kind.domain(self.facts) {
            self.bindings[v.index()] = Some(e);
            if unary.iter().all(|c| self.holds(c)) {
                out.push(e);
            }
        }
        self.bindings[v.index()] = None;
        self.domains[v.index()] = Some(out.clone());
        out
    }

    /// The smallest proposal for unbound `v` of a positive constraint whose other arguments
    /// are bound, if any constraint proposes.
    fn proposal(&mut self, v: Var, order: &[Bound<'a>]) -> Option<std::rc::Rc<Vec<Entity>>> {
        let mut best: Option<std::rc::Rc<Vec<Entity>>> = None;
        for b in order {
            let Constraint::Pred {
                pred,
                args,
                negated: false,
            } = b.c
            else {
                continue;
            };
            let Some(pos) = args.iter().position(|t| *t == Term::Var(v)) else {
                continue;
            };
            let partial: Vec<Option<Entity>> = args.iter().map(|t| self.term(t)).collect();
            if partial
                .iter()
                .enumerate()
                .any(|(i, e)| i != pos && e.is_none())
            {
                continue;
            }
            let fixed = args
                .iter()
                .enumerate()
                .all(|(i, t)| i == pos || matches!(t, Term::Fixed(_)));
            let key = (b.c as *const Constraint as usize, pos);
            let proposed = match fixed.then(|| self.fixed_proposals.get(&key)).flatten() {
                Some(p) => Some(p.clone()),
                None => pred.propose(self.facts, &partial, pos).map(|mut p| {
                    p.sort();
                    p.dedup();
                    let p = std::rc::Rc::new(p);
                    if fixed {
                        self.fixed_proposals.insert(key, p.clone());
                    }
                    p
                }),
            };
            if let Some(p) = proposed {
                if best.as_ref().is_none_or(|b| p.len() < b.len()) {
                    best = Some(p);
                }
            }
        }
        best
    }

    /// The unbound variable of `unbound` with the fewest candidates (its smallest proposal,
    /// else its filtered domain), and its candidates. A variable with at most one candidate is
    /// taken at once, and a domain is copied only when it is the choice.
    fn choose(&mut self, unbound: &[Var], order: &[Bound<'a>]) -> (Var, Vec<Entity>) {
        let owned = |p: std::rc::Rc<Vec<Entity>>| {
            std::rc::Rc::try_unwrap(p).unwrap_or_else(|p| (*p).clone())
        };
        let mut best: Option<(Var, std::rc::Rc<Vec<Entity>>)> = None;
        let mut without: Vec<Var> = Vec::new();
        for &v in unbound {
            match self.proposal(v, order) {
                Some(p) => {
                    if best.as_ref().is_none_or(|(_, b)| p.len() < b.len()) {
                        let done = p.len() <= 1;
                        best = Some((v, p));
                        if done {
                            let (v, p) = best.expect("just set");
                            return (v, owned(p));
                        }
                    }
                }
                None => without.push(v),
            }
        }
        let mut domain: Option<(Var, usize)> = None;
        for v in without {
            let len = self.domain_len(v, order);
            let beats_best = best.as_ref().is_none_or(|(_, b)| len < b.len());
            if beats_best && domain.is_none_or(|(_, l)| len < l) {
                domain = Some((v, len));
            }
        }
        match (domain, best) {
            (Some((v, _)), _) => (v, self.domain(v, order)),
            (None, Some((v, p))) => (v, owned(p)),
            (None, None) => unreachable!("bug: no unbound variable to choose"),
        }
    }

    /// The length of `v`'s filtered domain (computed once, then remembered).
    fn domain_len(&mut self, v: Var, order: &[Bound<'a>]) -> usize {
        if self.domains[v.index()].is_none() {
            self.domain(v, order);
        }
        self.domains[v.index()].as_ref().map_or(0, Vec::len)
    }

    /// Enumerates the assignments of `scope` (outer variables already bound) that satisfy
    /// `constraints`, calling `emit` on each; stops when `emit` returns false. Returns false
    /// when stopped.
    fn search(
        &mut self,
        scope: &[Var],
        constraints: &'a [Constraint],
        emit: &mut dyn FnMut(&[Option<Entity>]) -> bool,
    ) -> bool {
        let mut order: Vec<Bound<'a>> = constraints
            .iter()
            .map(|c| Bound {
                c,
                free: free_vars(c),
                cost: cost(c),
            })
            .collect();
        order.sort_by_key(|b| b.cost);
        // Constraints on outer variables only are checked once, before the search.
        for b in &order {
            if self.is_bound(&b.free) && !self.holds(b.c) {
                return true;
            }
        }
        self.step(scope, &order, emit)
    }

    fn step(
        &mut self,
        scope: &[Var],
        order: &[Bound<'a>],
        emit: &mut dyn FnMut(&[Option<Entity>]) -> bool,
    ) -> bool {
        let unbound: Vec<Var> = scope
            .iter()
            .copied()
            .filter(|v| self.bindings[v.index()].is_none())
            .collect();
        if unbound.is_empty() {
            return emit(&self.bindings);
        }
        let (v, cands) = self.choose(&unbound, order);
        let mut going = true;
        for e in cands {
            self.bindings[v.index()] = Some(e);
            // Check the constraints that `v` completes, cheapest first.
            let mut ok = true;
            for b in order {
                if b.free.contains(&v) && self.is_bound(&b.free) && !self.holds(b.c) {
                    ok = false;
                    break;
                }
            }
            if ok && !self.step(scope, order, emit) {
                going = false;
            }
            self.bindings[v.index()] = None;
            if !going {
                break;
            }
        }
        going
    }
}

/// A constraint with its free variables and cost, as the solver orders them.
struct Bound<'a> {
    c: &'a Constraint,
    free: Vec<Var>,
    cost: u32,
}

/// The variables `c` reads that it does not declare itself.
fn free_vars(c: &Constraint) -> Vec<Var> {
    let mut out: Vec<Var> = match c {
        Constraint::Pred { args, .. } => args
            .iter()
            .filter_map(|t| match t {
                Term::Var(v) => Some(*v),
                Term::Fixed(_) => None,
            })
            .collect(),
        Constraint::NotExists { vars, constraints } => constraints
            .iter()
            .flat_map(free_vars)
            .filter(|v| !vars.contains(v))
            .collect(),
    };
    out.sort();
    out.dedup();
    out
}

/// How expensive a constraint is to check: cheap ones run first.
fn cost(c: &Constraint) -> u32 {
    match c {
        Constraint::Pred { pred, .. } => pred.cost(),
        Constraint::NotExists { .. } => 1000,
    }
}
