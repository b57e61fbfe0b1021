//! [`ByteSize`]: how many bytes a batch holds, for a loader's byte cap
//! ([`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes)).

use std::mem::size_of;

/// The bytes a value holds: its own size plus the heap memory it owns. A loader with a byte
/// cap ([`Loader::max_buffer_bytes`](crate::Loader::max_buffer_bytes)) measures each batch
/// (the collate's output) with it.
///
/// Implemented for the primitive types, `String`, `Vec`, `Box`, `Option`, arrays and tuples
/// of up to four elements. A `Vec` counts its capacity, not its length: the memory it holds.
/// A `Vec` (or array) of [plain](ByteSize::PLAIN) elements is measured in O(1); one of
/// elements that own memory visits each element.
///
/// A batch type of your own implements [`byte_size`](ByteSize::byte_size), usually by adding
/// up its fields':
///
/// ```
/// use foldex_loader::ByteSize;
///
/// struct Images {
///     pixels: Vec<f32>,
///     labels: Vec<u16>,
/// }
///
/// impl ByteSize for Images {
///     fn byte_size(&self) -> usize {
///         self.pixels.byte_size() + self.labels.byte_size()
///     }
/// }
///
/// let batch = Images { pixels: vec![0.0; 1024], labels: vec![0; 4] };
/// assert!(batch.byte_size() >= 1024 * 4 + 4 * 2);
/// ```
pub trait ByteSize {
    /// `true` when a value owns no memory beyond `size_of::<Self>()` (plain data: numbers,
    /// arrays and tuples of them), so that a collection of them is measured without visiting
    /// its elements. Leave it `false` for a type that owns memory.
    const PLAIN: bool = false;

    /// The bytes this value holds: `size_of::<Self>()` plus the heap memory it owns.
    fn byte_size(&self) -> usize;
}

/// The heap memory `value` owns: its bytes beyond its own size.
fn heap<T: ByteSize>(value: &T) -> usize {
    value.byte_size().saturating_sub(size_of::<T>())
}

/// The heap memory a slice's elements own, beyond the slots they take.
fn owned_by<T: ByteSize>(items: &[T]) -> usize {
    if T::PLAIN {
        0
    } else {
        items.iter().map(heap).fold(0, usize::saturating_add)
    }
}

macro_rules! plain {
    ($($t:ty),*) => {$(
        impl ByteSize for $t {
            const PLAIN: bool = true;
            fn byte_size(&self) -> usize {
                size_of::<$t>()
            }
        }
    )*};
}

plain!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    bool,
    char,
    ()
);

impl<T: ByteSize> ByteSize for Vec<T> {
    fn byte_size(&self) -> usize {
        size_of::<Self>()
            .saturating_add(size_of::<T>().saturating_mul(self.capacity()))
            .saturating_add(owned_by(self))
    }
}

impl<T: ByteSize> ByteSize for Box<[T]> {
    fn byte_size(&self) -> usize {
        size_of::<Self>()
            .saturating_add(size_of::<T>().saturating_mul(self.len()))
            .saturating_add(owned_by(self))
    }
}

impl<T: ByteSize> ByteSize for Box<T> {
    fn byte_size(&self) -> usize {
        size_of::<Self>().saturating_add((**self).byte_size())
    }
}

impl ByteSize for String {
    fn byte_size(&self) -> usize {
        size_of::<Self>().saturating_add(self.capacity())
    }
}

impl<T: ByteSize> ByteSize for Option<T> {
    const PLAIN: bool = T::PLAIN;
    fn byte_size(&self) -> usize {
        size_of::<Self>().saturating_add(self.as_ref().map_or(0, heap))
    }
}

impl<T: ByteSize, const N: usize> ByteSize for [T; N] {
    const PLAIN: bool = T::PLAIN;
    fn byte_size(&self) -> usize {
        size_of::<Self>().saturating_add(owned_by(self))
    }
}

macro_rules! tuple {
    ($($name:ident),+) => {
        impl<$($name: ByteSize),+> ByteSize for ($($name,)+) {
            const PLAIN: bool = true $(&& $name::PLAIN)+;
            #[allow(non_snake_case)]
            fn byte_size(&self) -> usize {
                let ($($name,)+) = self;
                size_of::<Self>()$(.saturating_add(heap($name)))+
            }
        }
    };
}

tuple!(A);
tuple!(A, B);
tuple!(A, B, C);
tuple!(A, B, C, D);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vecs_count_their_capacity_and_what_their_elements_own() {
        let mut bytes = Vec::<u8>::with_capacity(1 << 20);
        bytes.push(1);
        assert_eq!(bytes.byte_size(), 24 + (1 << 20));
        let nested = vec![vec![0f32; 10], vec![0f32; 5]];
        assert_eq!(nested.byte_size(), 24 + 2 * 24 + 15 * 4);
        assert_eq!(String::with_capacity(7).byte_size(), 24 + 7);
        assert_eq!(7u64.byte_size(), 8);
        assert_eq!([1u16; 3].byte_size(), 6);
        assert_eq!([vec![1u8; 3]].byte_size(), 24 + 3);
        let pair = (vec![0u8; 100], 3u32);
        assert_eq!(pair.byte_size(), size_of::<(Vec<u8>, u32)>() + 100);
        const { assert!(<(u8, f64)>::PLAIN && !<(u8, String)>::PLAIN) };
        assert_eq!(Some(vec![0u8; 9]).byte_size(), 24 + 9);
        assert_eq!(Box::new(5u32).byte_size(), 8 + 4);
        let boxed: Box<[u16]> = vec![0; 4].into_boxed_slice();
        assert_eq!(boxed.byte_size(), 16 + 8);
    }
}
