//! Report models: plain, serialisable data that every exporter reads — one run or check
//! ([`run`]), and a comparison of several algorithms ([`comparison`]).

pub mod comparison;
pub mod run;
