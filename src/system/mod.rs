//! What the tool asks of the machine it runs on: whether Ctrl-C was pressed ([`interrupt`]),
//! and how much memory a run may take ([`memory_share`]).

pub mod pages;
pub mod interrupt;
pub mod memory_share;
