//! Exact statistics for shuffle-bias: p-values that stay meaningful far below
//! 1e−300 ([`pvalue::PValue`]), null probabilities that stay meaningful below f64's
//! range ([`probability::Probability`]), the chi-square survival function and Pearson's
//! test for up to 11! − 1 degrees of freedom ([`chi_square`]), the exact two-sided
//! binomial test for single orderings ([`binomial`]), Holm's multiple-testing
//! adjustment ([`holm`]), and the power analysis that says how many trials are
//! needed to detect a given bias ([`power`]), the confidence bounds that say what a pass
//! rules out ([`confidence`]), on one compensated summation
//! ([`summation`]). Every figure is computed from the
//! exact law (no normal approximations) and tested against mpmath.

pub mod binomial;
pub mod chi_square;
pub mod confidence;
pub mod holm;
pub mod normal;
pub mod poisson;
pub mod power;
pub mod probability;
pub mod pvalue;
mod special;
pub mod summation;
