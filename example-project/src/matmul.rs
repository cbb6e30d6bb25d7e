//! Matrix products on the host: ndarray's `general_mat_mul`, which runs matrixmultiply's
//! f32 GEMM (blocked, SIMD where the CPU has it). Activations of dtype `T` are widened to
//! f32 for the product and rounded back to `T`, as an f16 kernel pipeline with an f32
//! accumulating GEMM would see them.

use ndarray::{linalg::general_mat_mul, Array2, ArrayView2, ArrayViewMut2};

use crate::ops::Element;

/// Widens `[rows, cols]` elements to an f32 matrix.
pub fn to_f32_matrix<T: Element>(x: &[T], rows: usize, cols: usize) -> Array2<f32> {
    assert_eq!(x.len(), rows * cols, "matrix buffer length");
    Array2::from_shape_vec((rows, cols), x.iter().map(|v| v.to_f32()).collect())
        .expect("length checked")
}

/// Rounds an f32 matrix to elements, row-major.
pub fn from_f32_matrix<T: Element>(m: &Array2<f32>) -> Vec<T> {
    m.iter().map(|&v| T::from_f32(v)).collect()
}

/// `y = x · wᵀ` for a PyTorch linear weight `w: [out, in]`; `x: [rows, in]` → `[rows, out]`.
pub fn linear<T: Element>(x: &[T], rows: usize, w: &Array2<f32>) -> Vec<T> {
    let x = to_f32_matrix(x, rows, w.ncols());
    let mut y = Array2::<f32>::zeros((rows, w.nrows()));
    general_mat_mul(1.0, &x, &w.t(), 0.0, &mut y);
    from_f32_matrix(&y)
}

/// `c = a · bᵀ` into a (possibly strided) view: `a: [m, k]`, `b: [n, k]`, `c: [m, n]`.
pub fn matmul_nt(a: &ArrayView2<f32>, b: &ArrayView2<f32>, c: &mut ArrayViewMut2<f32>) {
    general_mat_mul(1.0, a, &b.t(), 0.0, c);
}

/// `c = a · b` into a (possibly strided) view: `a: [m, k]`, `b: [k, n]`, `c: [m, n]`.
pub fn matmul_nn(a: &ArrayView2<f32>, b: &ArrayView2<f32>, c: &mut ArrayViewMut2<f32>) {
    general_mat_mul(1.0, a, b, 0.0, c);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn linear_uses_pytorch_layout() {
        // w: [out = 2, in = 3]
        let w = array![[1.0f32, 0.0, 2.0], [0.0, 1.0, -1.0]];
        let y: Vec<f32> = linear(&[1.0f32, 2.0, 3.0], 1, &w);
        assert_eq!(y, [7.0, -1.0]);
    }
}
