//! IR types: the field, unsigned integers `u1` (bool) to `u64`, fixed-size arrays and references.

use std::fmt;

/// The type of an IR value.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// An element of the BN254 scalar field.
    Field,
    /// An unsigned integer of the given width: 1 (bool), 8, 16, 32 or 64 bits.
    UInt(u32),
    /// A fixed-size array `[T; N]`.
    Array(Box<Type>, u32),
    /// A reference `&T` to a memory cell created by `allocate`.
    Ref(Box<Type>),
}

/// Integer widths the IR accepts.
pub const UINT_WIDTHS: [u32; 5] = [1, 8, 16, 32, 64];

impl Type {
    /// `u1`, the boolean type.
    pub const BOOL: Type = Type::UInt(1);
    /// `u32`, the type of array indices and loop counters.
    pub const U32: Type = Type::UInt(32);

    /// An array type.
    pub fn array(elem: Type, len: u32) -> Type {
        Type::Array(Box::new(elem), len)
    }

    /// A reference type.
    pub fn reference(pointee: Type) -> Type {
        Type::Ref(Box::new(pointee))
    }

    /// The width of an unsigned integer type.
    pub fn uint_width(&self) -> Option<u32> {
        match self {
            Type::UInt(w) => Some(*w),
            _ => None,
        }
    }

    /// Whether this is `field` or some `uN`.
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Field | Type::UInt(_))
    }

    /// Whether this is `u1`.
    pub fn is_bool(&self) -> bool {
        *self == Type::BOOL
    }

    /// The element type of an array.
    pub fn elem(&self) -> Option<&Type> {
        match self {
            Type::Array(elem, _) => Some(elem),
            _ => None,
        }
    }

    /// The pointee of a reference.
    pub fn pointee(&self) -> Option<&Type> {
        match self {
            Type::Ref(t) => Some(t),
            _ => None,
        }
    }

    /// Whether a value of this type contains a reference anywhere (a reference, or an array of them).
    pub fn contains_ref(&self) -> bool {
        match self {
            Type::Ref(_) => true,
            Type::Array(elem, _) => elem.contains_ref(),
            _ => false,
        }
    }

    /// Number of scalar leaves (field elements or integers) a value of this type holds.
    pub fn leaf_count(&self) -> u64 {
        match self {
            Type::Field | Type::UInt(_) | Type::Ref(_) => 1,
            Type::Array(elem, n) => elem.leaf_count().saturating_mul(u64::from(*n)),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Field => write!(f, "field"),
            Type::UInt(w) => write!(f, "u{w}"),
            Type::Array(elem, n) => write!(f, "[{elem}; {n}]"),
            Type::Ref(t) => write!(f, "&{t}"),
        }
    }
}
