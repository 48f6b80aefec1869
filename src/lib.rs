//! zkbc placeholder
pub mod diagnostics;
pub mod front;
pub mod ir;
