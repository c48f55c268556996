//! Work spread over the machine's cores with deterministic results: each item's answer lands
//! at its own index, whichever thread computed it and whenever.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f` applied to every item, on up to as many threads as the machine has cores. The largest
/// items (by `cost`) start first, so one big file does not finish alone at the end. A panic
/// in `f` is raised again here, after the other threads stop.
pub(crate) fn map_parallel<T, R, C, F>(items: &[T], cost: C, f: F) -> Vec<R>
where
    T: Sync,
    R: Send,
    C: Fn(&T) -> usize,
    F: Fn(&T) -> R + Sync,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(&items[i])));
    let next = AtomicUsize::new(0);
    let done: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&i) = order.get(k) else { break };
                        mine.push((i, f(&items[i])));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    for (i, r) in done.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_order_of_the_items() {
        let items: Vec<usize> = (0..200).collect();
        let out = map_parallel(&items, |&i| i % 7, |&i| i * 2);
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
    }
}
