//! zkbc placeholder
pub mod ir;
