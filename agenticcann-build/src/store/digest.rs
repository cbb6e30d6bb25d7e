//! File digests: sha256 of a file's bytes, written as 64 lowercase hex digits
//! (docs/store-format.md §3).

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;

use sha2::{Digest as _, Sha256};

/// A sha256 digest of some bytes (a store file, a `manifest.toml`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    /// The sha256 of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(Sha256::digest(bytes).into())
    }

    /// The sha256 of the file at `path`, streamed.
    ///
    /// # Errors
    /// The I/O error of opening or reading the file.
    pub fn of_file(path: &Path) -> std::io::Result<Digest> {
        let mut f = std::fs::File::open(path)?;
        let mut h = Sha256::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        Ok(Digest(h.finalize().into()))
    }

    /// The digest with these raw bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Digest {
        Digest(bytes)
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The 64-hex-digit form (same as `Display`).
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({self})")
    }
}

/// The error of [`Digest::from_str`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a sha256 digest: expected 64 lowercase hex digits")]
pub struct DigestParseError(pub String);

impl FromStr for Digest {
    type Err = DigestParseError;
    /// Parses 64 lowercase hex digits (the store format's spelling; uppercase is rejected so
    /// that one digest has one spelling).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || DigestParseError(s.chars().take(80).collect());
        let b = s.as_bytes();
        if b.len() != 64
            || !b
                .iter()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
        {
            return Err(err());
        }
        let mut out = [0u8; 32];
        for (i, pair) in b.chunks(2).enumerate() {
            let hi = (pair[0] as char).to_digit(16).ok_or_else(err)?;
            let lo = (pair[1] as char).to_digit(16).ok_or_else(err)?;
            out[i] = (hi * 16 + lo) as u8;
        }
        Ok(Digest(out))
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vector_and_round_trip() {
        // sha256("abc"), FIPS 180-2 appendix B.1.
        let d = Digest::of(b"abc");
        assert_eq!(
            d.to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(d.to_string().parse::<Digest>().unwrap(), d);
        assert!(d.to_string().to_uppercase().parse::<Digest>().is_err());
        assert!("abc".parse::<Digest>().is_err());
    }

    #[test]
    fn file_digest_equals_bytes_digest() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        assert_eq!(Digest::of_file(&p).unwrap(), Digest::of(&data));
    }
}
