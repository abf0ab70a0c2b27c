//! What the tool asks of the machine it runs on: whether Ctrl-C was pressed ([`interrupt`]),
//! how much memory a run may take ([`memory_share`]), and how the pages of large tables are
//! backed ([`pages`]).

pub mod interrupt;
pub mod memory_share;
pub mod pages;
