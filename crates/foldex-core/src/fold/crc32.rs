//! CRC-32 (the IEEE polynomial, reflected, as zlib, PNG and Ethernet compute it): the checksum
//! that closes an encoded partial, so that a flipped or lost byte anywhere is an error.
//!
//! It detects every error burst of up to 32 bits and every odd number of flipped bits, and
//! lets through a random corruption with a chance of 2^-32. It guards against damage, not
//! against a forger. Byte-at-a-time with a table: partials are a few bytes to a few
//! kilobytes, and this is not where a distributed fold spends its time.

/// The table of the remainders of every byte, computed at compile time.
const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut crc = byte as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[byte] = crc;
        byte += 1;
    }
    table
};

/// The CRC-32 of `bytes`.
pub(super) fn crc32(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| {
        TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn matches_the_standard_check_values() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }
}
