//! Work on every core, results in order: parse files in parallel, yet hand each result on in
//! the order of the paths, holding no more than a window of results.
//!
//! The index writer takes each file's result in the listing's order, so a new index numbers
//! files and symbols by path whatever thread finished first (two cold builds of one tree would
//! otherwise number them differently, and the numbering breaks ties in search); `cast symbols`
//! prints in path order the same way. The window bounds memory: one slow item never makes the
//! others pile up.
//!
//! ```
//! let items = [3, 1, 2];
//! let mut seen = Vec::new();
//! cast_workspace::ordered::for_each_in_order(&items, 2, 4, |n| n * 10, |i, r| {
//!     seen.push((i, r));
//!     Ok::<(), ()>(())
//! })
//! .unwrap();
//! assert_eq!(seen, [(0, 30), (1, 10), (2, 20)]);
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// Runs `work` on each of `items` on `threads` threads and hands the results to `each` on the
/// calling thread in the items' order. A thread takes an item only while fewer than `window`
/// results are ahead of the one `each` waits for, so one slow item never makes the others pile
/// up in memory. The first error of `each` stops the work and is returned.
pub fn for_each_in_order<T, R, E>(
    items: &[T],
    threads: usize,
    window: usize,
    work: impl Fn(&T) -> R + Sync,
    mut each: impl FnMut(usize, R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
{
    let window = window.max(1);
    let next = AtomicUsize::new(0);
    let gate = Gate::default();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::sync_channel::<(usize, R)>(window);
        for _ in 0..threads.max(1) {
            let tx = tx.clone();
            let (next, gate, work) = (&next, &gate, &work);
            scope.spawn(move || {
                // A panic in `work` stops the others (the scope then passes it on) rather than
                // leaving them, and the results waiting for the lost item, waiting for ever.
                let _stop = StopOnPanic(gate);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() || !gate.wait_for_room(i, window) {
                        break;
                    }
                    if tx.send((i, work(&items[i]))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, R> = BTreeMap::new();
        let mut wanted = 0;
        let result = (|| {
            while wanted < items.len() {
                let result = match waiting.remove(&wanted) {
                    Some(r) => r,
                    None => match rx.recv() {
                        Ok((i, r)) if i == wanted => r,
                        Ok((i, r)) => {
                            waiting.insert(i, r);
                            continue;
                        }
                        // Every thread ended early: only a panic does that, and the scope
                        // passes it on.
                        Err(_) => break,
                    },
                };
                each(wanted, result)?;
                wanted += 1;
                gate.handed(wanted);
            }
            Ok(())
        })();
        if result.is_err() {
            gate.stop();
        }
        result
    })
}

/// Stops the gate when dropped by a panicking thread.
struct StopOnPanic<'g>(&'g Gate);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

/// How far the results were handed on, for the threads that wait for room.
#[derive(Default)]
struct Gate {
    handed: Mutex<usize>,
    moved: Condvar,
    stopped: AtomicBool,
}

impl Gate {
    /// Waits until item `i` is fewer than `window` places ahead of the next one to hand on;
    /// false when the work was stopped.
    fn wait_for_room(&self, i: usize, window: usize) -> bool {
        // A poisoned lock means the handing thread panicked: stop.
        let Ok(mut handed) = self.handed.lock() else {
            return false;
        };
        while i >= *handed + window && !self.stopped.load(Ordering::Relaxed) {
            handed = match self.moved.wait(handed) {
                Ok(h) => h,
                Err(_) => return false,
            };
        }
        !self.stopped.load(Ordering::Relaxed)
    }

    fn handed(&self, n: usize) {
        if let Ok(mut handed) = self.handed.lock() {
            *handed = n;
        }
        self.moved.notify_all();
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        // Taken so that no thread is between its check and its wait.
        drop(self.handed.lock());
        self.moved.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn results_come_in_order_whatever_finishes_first() {
        let items: Vec<u64> = (0..300).collect();
        let mut seen = Vec::new();
        let result: Result<(), ()> = for_each_in_order(
            &items,
            4,
            8,
            |&n| {
                // Early items are the slow ones, so later ones finish first.
                std::thread::sleep(Duration::from_micros((300 - n) * 3));
                n * 10
            },
            |i, r| {
                seen.push((i, r));
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        let expected: Vec<(usize, u64)> = items.iter().map(|&n| (n as usize, n * 10)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn no_more_than_the_window_waits_behind_a_slow_item() {
        let items: Vec<usize> = (0..200).collect();
        let started = AtomicUsize::new(0);
        let mut most_ahead = 0;
        let result: Result<(), ()> = for_each_in_order(
            &items,
            3,
            5,
            |&n| {
                started.fetch_max(n, Ordering::SeqCst);
                if n % 50 == 0 {
                    std::thread::sleep(Duration::from_millis(20));
                }
                n
            },
            |i, _| {
                // Items taken so far are at most the window past the one handed now.
                most_ahead = most_ahead.max(started.load(Ordering::SeqCst).saturating_sub(i));
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        assert!(most_ahead < 5 + 3, "{most_ahead} items ahead");
        assert!(most_ahead >= 1, "the threads never ran ahead");
    }

    #[test]
    fn a_panicking_item_is_passed_on_not_waited_for() {
        let items: Vec<usize> = (0..1000).collect();
        let outcome = std::panic::catch_unwind(|| {
            for_each_in_order(
                &items,
                2,
                4,
                |&n| {
                    assert!(n != 10, "item {n} fails");
                    n
                },
                |_, _| Ok::<(), ()>(()),
            )
        });
        assert!(outcome.is_err());
    }

    #[test]
    fn an_error_stops_the_work_and_is_returned() {
        let items: Vec<usize> = (0..10_000).collect();
        let worked = AtomicUsize::new(0);
        let result = for_each_in_order(
            &items,
            2,
            16,
            |&n| {
                worked.fetch_add(1, Ordering::SeqCst);
                n
            },
            |i, _| {
                if i == 100 {
                    Err(format!("failed at {i}"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result, Err("failed at 100".to_owned()));
        assert!(
            worked.load(Ordering::SeqCst) < 100 + 16 + 2 + 1,
            "{} items worked on",
            worked.load(Ordering::SeqCst)
        );
    }
}
