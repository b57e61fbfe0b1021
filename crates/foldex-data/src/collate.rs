//! Collates into arrays: equal-length observations stacked into one buffer with a leading batch
//! axis, and variable-length sequences padded to the longest with a mask.
//!
//! Both write into a recycled batch with `reuse_buffers(true)`,
//! so that a warm epoch allocates nothing for them.

use foldex_dataset::Collate;

/// A batch of observations of one length, stacked row after row: observation `k`'s values are
/// `data[k * row_len..(k + 1) * row_len]`, a `rows × row_len` row-major array.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stacked<T> {
    /// The values, row after row.
    pub data: Vec<T>,
    /// The observations in the batch.
    pub rows: usize,
    /// The values per observation.
    pub row_len: usize,
}

impl<T> Stacked<T> {
    /// Observation `k`'s values.
    pub fn row(&self, k: usize) -> &[T] {
        &self.data[k * self.row_len..(k + 1) * self.row_len]
    }
}

/// Stacks observations that are `Vec`s of one length into a [`Stacked`] batch (PyTorch's
/// `default_collate` for tensors of one shape); an image as `f32` CHW becomes a row of NCHW.
///
/// A batch whose observations differ in length panics, naming the observation: pad such
/// observations with [`Padded`].
///
/// ```
/// use foldex_data::Stack;
/// use foldex_dataset::from_fn;
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let loader = Loader::new(from_fn(5, |i| vec![i as f32; 3]), ThreadedEx::new().basesize(1)).batch_size(2).collate(Stack);
/// let batches: Vec<_> = loader.iter().collect();
/// assert_eq!((batches[0].rows, batches[0].row_len), (2, 3));
/// assert_eq!(batches[2].row(0), &[4.0, 4.0, 4.0]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Stack;

impl<T: Clone + Send + Sync> Collate<Vec<T>> for Stack {
    type Batch = Stacked<T>;

    fn collate(&self, mut items: Vec<Vec<T>>) -> Stacked<T> {
        let mut out = Stacked {
            data: Vec::new(),
            rows: 0,
            row_len: 0,
        };
        self.collate_into(&mut items, &mut out);
        out
    }

    fn collate_into(&self, items: &mut Vec<Vec<T>>, out: &mut Stacked<T>) {
        let row_len = items.first().map_or(0, Vec::len);
        if let Some((k, odd)) = items.iter().enumerate().find(|(_, x)| x.len() != row_len) {
            panic!(
                "Stack: observation {k} of the batch has {} values, observation 0 has \
                 {row_len}; pad observations of different lengths with Padded",
                odd.len()
            );
        }
        out.data.clear();
        out.data.reserve(items.len() * row_len);
        items.iter().for_each(|x| out.data.extend_from_slice(x));
        (out.rows, out.row_len) = (items.len(), row_len);
    }
}

/// A batch of sequences padded to the longest: row `k` holds sequence `k`, then `pad` values;
/// `mask[k * max_len + t]` is true where a value is the sequence's own.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PaddedBatch<T> {
    /// The values, `lengths.len() × max_len`, row-major.
    pub data: Vec<T>,
    /// Each sequence's own length.
    pub lengths: Vec<usize>,
    /// `true` where a value is the sequence's own, `false` where it is padding.
    pub mask: Vec<bool>,
    /// The longest sequence's length: the row length.
    pub max_len: usize,
}

/// Pads variable-length sequences (`Vec<T>`) with `pad` to the longest in the batch, with
/// their lengths and a mask (PyTorch's `pad_sequence` with `batch_first`).
///
/// ```
/// use foldex_data::Padded;
/// use foldex_dataset::from_fn;
/// use foldex_loader::Loader;
/// use foldex_threaded::ThreadedEx;
/// let sentences = from_fn(3, |i| vec![i as u32 + 1; i + 1]); // lengths 1, 2, 3
/// let loader = Loader::new(sentences, ThreadedEx::new().basesize(1)).batch_size(3).collate(Padded { pad: 0 });
/// let batch = loader.iter().next().unwrap();
/// assert_eq!(batch.data, vec![1, 0, 0, 2, 2, 0, 3, 3, 3]);
/// assert_eq!((batch.lengths, batch.max_len), (vec![1, 2, 3], 3));
/// assert_eq!(&batch.mask[..3], &[true, false, false]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Padded<T> {
    /// The value after a sequence's end.
    pub pad: T,
}

impl<T: Clone + Send + Sync> Collate<Vec<T>> for Padded<T> {
    type Batch = PaddedBatch<T>;

    fn collate(&self, mut items: Vec<Vec<T>>) -> PaddedBatch<T> {
        let mut out = PaddedBatch {
            data: Vec::new(),
            lengths: Vec::new(),
            mask: Vec::new(),
            max_len: 0,
        };
        self.collate_into(&mut items, &mut out);
        out
    }

    fn collate_into(&self, items: &mut Vec<Vec<T>>, out: &mut PaddedBatch<T>) {
        let max_len = items.iter().map(Vec::len).max().unwrap_or(0);
        out.data.clear();
        out.lengths.clear();
        out.mask.clear();
        for item in items.iter() {
            out.data.extend_from_slice(item);
            out.data
                .extend(std::iter::repeat_n(self.pad.clone(), max_len - item.len()));
            out.lengths.push(item.len());
            out.mask.extend((0..max_len).map(|t| t < item.len()));
        }
        out.max_len = max_len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacking_refuses_rows_of_other_lengths_by_position() {
        let caught = std::panic::catch_unwind(|| Stack.collate(vec![vec![1], vec![2], vec![3, 4]]));
        let message = caught.unwrap_err().downcast::<String>().unwrap();
        assert!(
            message.starts_with("Stack: observation 2 of the batch has 2 values"),
            "{message}"
        );
        let empty: Stacked<u8> = Stack.collate(Vec::new());
        assert_eq!((empty.rows, empty.row_len, empty.data.len()), (0, 0, 0));
    }

    #[test]
    fn collating_into_a_used_batch_replaces_it() {
        let mut out = Padded { pad: -1 }.collate(vec![vec![9; 5]; 4]);
        Padded { pad: -1 }.collate_into(&mut vec![vec![1], vec![]], &mut out);
        assert_eq!(out.data, vec![1, -1]);
        assert_eq!(out.mask, vec![true, false]);
        assert_eq!((out.lengths, out.max_len), (vec![1, 0], 1));
        let mut stacked = Stack.collate(vec![vec![7; 6]; 3]);
        Stack.collate_into(&mut vec![vec![1, 2]], &mut stacked);
        assert_eq!(
            (stacked.data, stacked.rows, stacked.row_len),
            (vec![1, 2], 1, 2)
        );
    }
}
