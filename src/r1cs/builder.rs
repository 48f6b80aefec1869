//! The constraint builder the gadgets write to. It runs in one of two modes with the same
//! sequence of calls: *structure* mode records constraints (flat arenas of sorted terms) and
//! *witness* mode records only variable values. Gadgets never branch on values, so both modes
//! allocate the same variables in the same order. Every allocation names its value by a
//! [`Recipe`]: witness mode evaluates it at once (re-running the lowering per execution, the
//! reference), *recording* mode (structure mode with a [`Recorder`]) stores it on the block's
//! tape, which computes the witness of every later execution without lowering again.

use super::fxhash::FxMap;
use super::lc::{Lc, Var, ONE};
use super::products::{Held, Products};
use super::recipe::Recipe;
use super::tape::Recorder;
use crate::field::Fr;
use ark_ff::{Field, One};

/// The distinct coefficients of a block's constraints, each stored once: a term names its
/// coefficient by index (4 bytes instead of a 32-byte field element). Index 0 is 1 and index 1
/// is -1, the two most common.
#[derive(Clone, Debug)]
pub(crate) struct Coeffs {
    pub values: Vec<Fr>,
    index: FxMap<CoeffKey, u32>,
}

/// A coefficient as a hash key: hashed on one 64-bit limb of its internal representation
/// (equality still compares all four), a quarter of the hashing of `Fr`'s own `Hash`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CoeffKey(Fr);

impl std::hash::Hash for CoeffKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0 .0 .0[0]);
    }
}

impl Default for Coeffs {
    fn default() -> Coeffs {
        Coeffs {
            values: vec![Fr::one(), -Fr::one()],
            index: FxMap::default(),
        }
    }
}

impl Coeffs {
    /// The index of `c`, adding it when new.
    pub fn id(&mut self, c: Fr) -> u32 {
        if c.is_one() {
            return 0;
        }
        if c == self.values[1] {
            return 1;
        }
        let next = self.values.len() as u32;
        let id = *self.index.entry(CoeffKey(c)).or_insert(next);
        if id == next {
            self.values.push(c);
        }
        id
    }

    /// The coefficient with index `id`.
    pub fn get(&self, id: u32) -> Fr {
        self.values[id as usize]
    }
}

/// One term of a stored row: a variable and the index of its coefficient in [`Coeffs`].
pub(crate) type Packed = (Var, u32);

/// `acc` plus the value of `terms` at `z`, `coeffs` the values of their coefficient indices
/// ([`Coeffs`]: index 0 is 1 and index 1 is -1, added without a multiplication). The witness
/// tape and the satisfaction check evaluate every execution's combinations with it.
#[inline]
pub(crate) fn add_packed(mut acc: Fr, terms: &[Packed], z: &[Fr], coeffs: &[Fr]) -> Fr {
    for &(v, c) in terms {
        let x = z[v as usize];
        match c {
            0 => acc += x,
            1 => acc -= x,
            _ => acc += x * coeffs[c as usize],
        }
    }
    acc
}

/// Rows of linear combinations stored back to back: row `k` is `terms[ends[k-1]..ends[k]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    pub terms: Vec<Packed>,
    pub ends: Vec<u32>,
}

impl Rows {
    /// Appends a row given with its coefficients.
    pub fn push(&mut self, row: &[(Var, Fr)], coeffs: &mut Coeffs) {
        self.terms
            .extend(row.iter().map(|&(v, c)| (v, coeffs.id(c))));
        self.ends.push(self.terms.len() as u32);
    }

    /// Appends a row already packed.
    pub fn push_packed(&mut self, row: &[Packed]) {
        self.terms.extend_from_slice(row);
        self.ends.push(self.terms.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn row(&self, k: usize) -> &[Packed] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.terms[start..self.ends[k] as usize]
    }
}

/// A packed row as a combination.
pub(crate) fn unpack(row: &[Packed], coeffs: &Coeffs) -> Lc {
    Lc::from_sorted(row.iter().map(|&(v, c)| (v, coeffs.get(c))).collect())
}

/// Below this many instructions a block's rows grow as they go (see
/// [`Builder::reserve_for_block`]).
const RESERVE_MIN_INSTS: usize = 1 << 16;

/// Records variables and either constraints (structure mode) or values (witness mode).
pub(crate) struct Builder {
    witness_mode: bool,
    /// Values by variable (witness mode only); `values[0] = 1`.
    pub values: Vec<Fr>,
    /// Whether each variable is an instance variable; index 0 (the constant) is `false`.
    pub is_instance: Vec<bool>,
    /// How many instance variables were allocated so far.
    pub n_instance: usize,
    /// Quadratic constraints `A · B = C`, three rows each (structure mode only).
    pub quad: Rows,
    /// Linear constraints `L = 0`, one row each (structure mode only).
    pub linear: Rows,
    /// The coefficients the rows refer to.
    pub coeffs: Coeffs,
    /// Products already constrained: [`Builder::mul`] (or [`Builder::mul_affine`]) of the same
    /// two combinations again reuses the product (both modes build it alike).
    products: Products,
    /// Canonical bit decompositions already built, by combination: a second comparison of the
    /// same value reuses them (see `Builder::canonical_bits`).
    pub(crate) canonical: FxMap<Lc, Vec<Lc>>,
    /// `[d == 0]` flags already built, by `d` up to sign (see `Builder::is_zero`).
    pub(crate) zeros: FxMap<Lc, Lc>,
    /// The recipes of every allocation, in order (recording mode only).
    pub(crate) recorder: Option<Recorder>,
    /// The last factor [`Builder::mul_affine`] inverted, with its inverse (it is −2 or −1
    /// nearly always; an inversion costs as much as a few hundred products).
    last_inverse: Option<(Fr, Fr)>,
    /// Where the constraints come from, when asked ([`Builder::attributing`], for `zkbc
    /// profile`): the lowering names the origin of what follows ([`Builder::set_origin`]).
    pub(crate) origins: Option<Origins>,
}

/// The origin of a constraint: the position of the instruction in its block that emitted it,
/// or one of the `ORIGIN_*` pseudo-origins.
pub(crate) type Origin = u32;
/// The transition state: its input leaves, the label check, the output state.
pub(crate) const ORIGIN_TRANSITION: Origin = u32::MAX;
/// Spilled scalars and `main`'s input arrays written to memory.
pub(crate) const ORIGIN_MEMORY: Origin = u32::MAX - 1;
/// The range checks of `main`'s inputs (in `main`'s entry block).
pub(crate) const ORIGIN_INPUTS: Origin = u32::MAX - 2;

/// The origins of a builder's constraints as runs: each mark says that the constraints from
/// its counts on come from its origin. One mark per instruction, none per constraint, so
/// attributing costs the lowering next to nothing; [`Origins::expand`] gives one origin per
/// constraint after lowering.
#[derive(Clone, Debug, Default)]
pub(crate) struct Origins {
    /// `(quadratic constraints, linear constraints, origin)` at each change of origin.
    marks: Vec<(u32, u32, Origin)>,
}

impl Origins {
    /// The origin of every quadratic and of every linear constraint (constraints before the
    /// first mark are [`ORIGIN_TRANSITION`]).
    pub(crate) fn expand(&self, n_quad: usize, n_linear: usize) -> (Vec<Origin>, Vec<Origin>) {
        let mut quad = Vec::with_capacity(n_quad);
        let mut linear = Vec::with_capacity(n_linear);
        let mut current = ORIGIN_TRANSITION;
        for &(q, l, origin) in &self.marks {
            quad.resize((q as usize).min(n_quad), current);
            linear.resize((l as usize).min(n_linear), current);
            current = origin;
        }
        quad.resize(n_quad, current);
        linear.resize(n_linear, current);
        (quad, linear)
    }
}

impl Builder {
    pub fn new(witness_mode: bool) -> Builder {
        Builder {
            witness_mode,
            values: if witness_mode {
                vec![Fr::one()]
            } else {
                Vec::new()
            },
            is_instance: vec![false],
            n_instance: 0,
            quad: Rows::default(),
            linear: Rows::default(),
            coeffs: Coeffs::default(),
            products: Products::default(),
            canonical: FxMap::default(),
            zeros: FxMap::default(),
            recorder: None,
            last_inverse: None,
            origins: None,
        }
    }

    /// Structure mode that also records where each constraint comes from (`zkbc profile`).
    pub fn attributing() -> Builder {
        Builder {
            origins: Some(Origins::default()),
            ..Builder::new(false)
        }
    }

    /// Names the origin of the constraints that follow (nothing unless attributing).
    #[inline]
    pub fn set_origin(&mut self, origin: Origin) {
        if let Some(o) = &mut self.origins {
            let at = (self.quad.len() / 3) as u32;
            o.marks.push((at, self.linear.len() as u32, origin));
        }
    }

    /// Structure mode that also records every allocation's recipe (the block's tape).
    pub fn recording() -> Builder {
        Builder {
            recorder: Some(Recorder::default()),
            ..Builder::new(false)
        }
    }

    fn alloc(&mut self, instance: bool, recipe: Recipe<'_>) -> Var {
        let v = self.is_instance.len() as Var;
        if self.witness_mode {
            let mut xs = Vec::with_capacity(1);
            recipe.eval_into(&self.values, &mut xs);
            self.values.extend(xs);
        } else if let Some(r) = &mut self.recorder {
            r.record(v, &recipe);
        }
        self.is_instance.push(instance);
        self.n_instance += usize::from(instance);
        v
    }

    /// Reserves room for the constraints of a block of `n_insts` instructions, when it is large
    /// (structure mode). A vector that grows by doubling copies itself, and for a moment holds
    /// the old copy and the new (at a million constraints the rows alone are 40 MB): reserved
    /// once, generously, it never does for most blocks. What is reserved and never written costs
    /// address space only: the allocator commits memory (and the kernel makes it resident) as it
    /// is touched. A block that needs more grows as before.
    pub fn reserve_for_block(&mut self, n_insts: usize) {
        if self.witness_mode || n_insts < RESERVE_MIN_INSTS {
            return;
        }
        self.quad.terms.reserve(8 * n_insts);
        self.quad.ends.reserve(3 * n_insts);
        self.is_instance.reserve(2 * n_insts);
        self.products.reserve(n_insts / 2);
    }

    /// The system alone — allocation kinds, quadratic rows, linear rows, coefficients — with
    /// everything else (the caches of products, bits and flags, the recorder) dropped here, so
    /// that elimination does not hold them too.
    pub(crate) fn into_system(self) -> (Vec<bool>, Rows, Rows, Coeffs) {
        (self.is_instance, self.quad, self.linear, self.coeffs)
    }

    /// Constraints recorded so far, before elimination (structure mode; 0 in witness mode).
    pub fn n_constraints(&self) -> usize {
        self.quad.len() / 3 + self.linear.len()
    }

    /// A new witness variable whose value is `recipe`'s.
    pub fn witness(&mut self, recipe: Recipe<'_>) -> Var {
        self.alloc(false, recipe)
    }

    /// `recipe.arity()` new witness variables with the recipe's values.
    pub fn witnesses(&mut self, recipe: Recipe<'_>) -> Vec<Var> {
        let first = self.is_instance.len() as Var;
        let n = recipe.arity();
        if self.witness_mode {
            let before = self.values.len();
            let mut xs = Vec::with_capacity(n);
            recipe.eval_into(&self.values, &mut xs);
            self.values.extend(xs);
            assert_eq!(
                self.values.len() - before,
                n,
                "bug: a recipe gave the wrong number of values"
            );
        } else if let Some(r) = &mut self.recorder {
            r.record(first, &recipe);
        }
        self.is_instance.extend(std::iter::repeat_n(false, n));
        (first..first + n as Var).collect()
    }

    /// A new instance variable whose value is `recipe`'s.
    pub fn instance(&mut self, recipe: Recipe<'_>) -> Var {
        self.alloc(true, recipe)
    }

    /// Enforces `a · b = c`. When `a` or `b` is constant the constraint is linear and goes to
    /// the linear rows, where elimination can remove it.
    pub fn enforce(&mut self, a: &Lc, b: &Lc, c: &Lc) {
        if self.witness_mode {
            return;
        }
        if let Some(k) = a.as_constant() {
            self.enforce_zero(&b.scale(k).sub(c));
        } else if let Some(k) = b.as_constant() {
            self.enforce_zero(&a.scale(k).sub(c));
        } else {
            self.quad.push(a.terms(), &mut self.coeffs);
            self.quad.push(b.terms(), &mut self.coeffs);
            self.quad.push(c.terms(), &mut self.coeffs);
        }
    }

    /// Enforces `lc = 0`. A zero combination is dropped; a nonzero constant is kept (the block
    /// can then never be satisfied, which is right for a block that always fails).
    pub fn enforce_zero(&mut self, lc: &Lc) {
        if self.witness_mode || lc.is_zero() {
            return;
        }
        self.linear.push(lc.terms(), &mut self.coeffs);
    }

    /// Enforces `a = b`.
    pub fn enforce_eq(&mut self, a: &Lc, b: &Lc) {
        if !self.witness_mode {
            self.enforce_zero(&a.sub(b));
        }
    }

    /// A constraint no assignment satisfies (`1 = 0`): the block always fails.
    pub fn enforce_false(&mut self) {
        self.enforce_zero(&Lc::var(ONE));
    }

    /// A witness variable equal to `lc` (one linear constraint), so that long combinations do
    /// not get copied into every later use.
    pub fn materialize(&mut self, lc: &Lc) -> Lc {
        let w = self.witness(Recipe::Lin(lc));
        let w = Lc::var(w);
        self.enforce_eq(&w, lc);
        w
    }

    /// `a · b`: linear when either side is constant, else one constraint (none when the same
    /// product was constrained before).
    pub fn mul(&mut self, a: &Lc, b: &Lc) -> Lc {
        if let Some(k) = a.as_constant() {
            return b.scale(k);
        }
        if let Some(k) = b.as_constant() {
            return a.scale(k);
        }
        let key = self.products.key(a, b, &mut self.coeffs);
        if let Some(p) = self.products.get(&key, &self.quad) {
            return self.products.lc(p, a, b, &self.coeffs);
        }
        // In structure mode the product's constraint `a · b = p` is the next quadratic one,
        // whose rows `A` and `B` are the key.
        let constraint = (!self.witness_mode).then(|| self.quad.len() / 3);
        let p = self.witness(Recipe::Mul(a, b));
        self.enforce(a, b, &Lc::var(p));
        debug_assert!(constraint.is_none_or(|q| self.quad.len() == 3 * (q + 1)));
        self.products
            .insert(&key, Held::var(p), constraint, &self.quad);
        Lc::var(p)
    }

    /// `a + b + k · a · b` as one new variable `r`, with the one constraint
    /// `(k·a) · b = r − a − b` (`k ≠ 0`): a bit operation (`xor` is `x + y − 2xy`, `or` is
    /// `x + y − xy`) whose result is a single variable, so that chains of them keep short
    /// combinations. Linear, with no new variable, when `a` or `b` is constant or the product
    /// `a · b` was constrained before; a later product of `a` and `b` is `(r − a − b) / k`.
    pub fn mul_affine(&mut self, a: &Lc, b: &Lc, k: Fr) -> Lc {
        let c = a.add(b);
        if a.as_constant().is_some() || b.as_constant().is_some() {
            return c.add_scaled(&self.mul(a, b), k);
        }
        let key = self.products.key(a, b, &mut self.coeffs);
        if let Some(p) = self.products.get(&key, &self.quad) {
            return c.add_scaled(&self.products.lc(p, a, b, &self.coeffs), k);
        }
        let ka = a.scale(k);
        let r = self.witness(Recipe::MulAdd(&ka, b, &c));
        let k_inv = match self.last_inverse {
            Some((x, x_inv)) if x == k => x_inv,
            _ => {
                let x_inv = k.inverse().expect("bug: mul_affine by 0");
                self.last_inverse = Some((k, x_inv));
                x_inv
            }
        };
        let held = Held::affine(r, self.coeffs.id(k_inv));
        self.products.insert(&key, held, None, &self.quad);
        let r = Lc::var(r);
        self.enforce(&ka, b, &r.sub(&c));
        r
    }

    /// Enforces `x ∈ {0, 1}`: `x · (x - 1) = 0` (one constraint unless `x` is constant).
    /// When the product `x · (x - 1)` was constrained before (an `asm` block's own
    /// `x * (x - 1) === 0`, say), the check is the linear `p = 0` on it instead.
    pub fn boolean(&mut self, x: &Lc) {
        let x1 = x.add_const(-Fr::one());
        // `x - 1` is never a single variable with coefficient 1, so only a general key can match.
        if self.products.n_general() > 0 {
            let key = self.products.key(x, &x1, &mut self.coeffs);
            if let Some(p) = self.products.get(&key, &self.quad) {
                let p = self.products.lc(p, x, &x1, &self.coeffs);
                self.enforce_zero(&p);
                return;
            }
        }
        self.enforce(x, &x1, &Lc::zero());
    }
}
