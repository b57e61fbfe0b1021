//! Turning the observations of one batch into the batch the consumer receives.

/// Builds a batch from its observations, in epoch order. Runs on the executor's threads.
///
/// Any `Fn(Vec<Item>) -> B + Send + Sync` closure is a `Collate`; the default, [`VecCollate`],
/// hands the `Vec` over as it is.
///
/// ```
/// use foldex_loader::Collate;
/// let sum = |items: Vec<u32>| items.iter().sum::<u32>();
/// assert_eq!(sum.collate(vec![1, 2, 3]), 6);
/// ```
pub trait Collate<Item>: Send + Sync {
    /// What the consumer receives per batch.
    type Batch;

    /// The batch made of `items` (never empty).
    fn collate(&self, items: Vec<Item>) -> Self::Batch;

    /// The batch made of one item; override it to skip the `Vec` for batches of one.
    fn collate_one(&self, item: Item) -> Self::Batch {
        self.collate(vec![item])
    }
}

/// The default collate: a batch is the `Vec` of its observations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VecCollate;

impl<Item> Collate<Item> for VecCollate {
    type Batch = Vec<Item>;
    fn collate(&self, items: Vec<Item>) -> Vec<Item> {
        items
    }
}

impl<Item, B, F> Collate<Item> for F
where
    F: Fn(Vec<Item>) -> B + Send + Sync,
{
    type Batch = B;
    fn collate(&self, items: Vec<Item>) -> B {
        self(items)
    }
}

/// Batches of one observation, delivered as the observation itself: what
/// [`eachobsparallel`](crate::eachobsparallel) and [`Loader::unbatched`](crate::Loader::unbatched)
/// use. Only for batches of one: a larger batch fails with a panic that names the problem.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unbatched;

impl<Item> Collate<Item> for Unbatched {
    type Batch = Item;
    fn collate(&self, items: Vec<Item>) -> Item {
        let count = items.len();
        let mut items = items.into_iter();
        match (items.next(), items.next()) {
            (Some(item), None) => item,
            _ => panic!("foldex-loader: Unbatched takes batches of one observation, got {count}"),
        }
    }
    fn collate_one(&self, item: Item) -> Item {
        item
    }
}
