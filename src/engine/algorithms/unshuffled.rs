//! The shuffle that does nothing: what `ORDER BY RAND()` gives on SQL Server.
//!
//! SQL Server evaluates `RAND()` (without a seed per row) once per query, not once per row, so
//! every row gets the same sort key and the rows come back in the order the scan read them: the
//! "shuffle" is the identity, every time. It is a built-in so that this failure has an exact law
//! (the identity with probability 1, from one path of zero draws) that reports and `--explain`
//! can name.

use super::Card;
use crate::engine::random_source::RandomSource;

/// `unshuffled`: returns the deck as it is and draws nothing.
#[inline(always)]
pub fn unshuffled<R: RandomSource>(_deck: &mut [Card], _rng: &mut R) {}
