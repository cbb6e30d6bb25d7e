//! Cosine similarity between embeddings and its printable matrix.

/// Cosine similarity of two vectors (0 when either is all zeros).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        (dot / (na * nb)) as f32
    }
}

/// The `n × n` matrix of pairwise cosine similarities, as text with `[i]` headers.
pub fn similarity_table(embeddings: &[Vec<f32>]) -> String {
    let mut out = String::from("      ");
    for j in 0..embeddings.len() {
        out += &format!("{:>7}", format!("[{j}]"));
    }
    out.push('\n');
    for (i, a) in embeddings.iter().enumerate() {
        out += &format!("{:>6}", format!("[{i}]"));
        for b in embeddings {
            out += &format!("{:>7.3}", cosine(a, b));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_of_known_vectors() {
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 2.0]), 0.0);
        assert!((cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-7);
        assert!((cosine(&[1.0, 0.0], &[-1.0, 0.0]) + 1.0).abs() < 1e-7);
    }

    #[test]
    fn table_layout() {
        let t = similarity_table(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(
            t,
            "          [0]    [1]\n   [0]  1.000  0.000\n   [1]  0.000  1.000\n"
        );
    }
}
