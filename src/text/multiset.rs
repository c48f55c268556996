//! Counting what two sequences share as multisets: the likeness tests of renamed documents
//! and elements compare lines or leaves this way, repeats counted as often as both hold them.

use std::collections::HashMap;
use std::hash::Hash;

/// How many items `a` and `b` share, each counted as often as the one that holds it fewer
/// times holds it.
pub(crate) fn shared_count<T: Eq + Hash>(
    a: impl IntoIterator<Item = T>,
    b: impl IntoIterator<Item = T>,
) -> usize {
    let mut pool: HashMap<T, usize> = HashMap::new();
    for item in b {
        *pool.entry(item).or_default() += 1;
    }
    a.into_iter()
        .filter(|item| match pool.get_mut(item) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::shared_count;

    #[test]
    fn repeats_count_as_often_as_both_hold_them() {
        assert_eq!(shared_count(["a", "a", "b", "c"], ["a", "b", "b", "d"]), 2);
        assert_eq!(shared_count(["a", "a"], ["a", "a", "a"]), 2);
        assert_eq!(shared_count(Vec::<&str>::new(), ["a"]), 0);
    }
}
