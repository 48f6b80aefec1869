//! Ordinary least squares `y = a + b·x` with the coefficient of determination R², used to check
//! that prover time is linear in sumcheck cells.

/// A fitted line and how well it explains the data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearFit {
    /// Intercept `a`.
    pub intercept: f64,
    /// Slope `b`.
    pub slope: f64,
    /// `R² = 1 − SS_res / SS_tot`; 1 is a perfect line.
    pub r_squared: f64,
}

/// Fits `y = a + b·x` to the points; `None` for fewer than two points or when all `x` are equal.
pub fn linear_fit(points: &[(f64, f64)]) -> Option<LinearFit> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let intercept = mean_y - slope * mean_x;
    let ss_tot: f64 = points.iter().map(|p| (p.1 - mean_y).powi(2)).sum();
    let ss_res: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let r_squared = if ss_tot == 0.0 {
        1.0
    } else {
        1.0 - ss_res / ss_tot
    };
    Some(LinearFit {
        intercept,
        slope,
        r_squared,
    })
}

/// The median of `values` (sorted in place): the middle one, or the mean of the two middle
/// ones. Used by the benches for per-case times.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_line_has_r_squared_one() {
        let fit = linear_fit(&[(1.0, 5.0), (2.0, 7.0), (4.0, 11.0)]).unwrap();
        assert!((fit.slope - 2.0).abs() < 1e-12);
        assert!((fit.intercept - 3.0).abs() < 1e-12);
        assert!((fit.r_squared - 1.0).abs() < 1e-12);
    }

    #[test]
    fn noisy_points_match_hand_computation() {
        // x = 0, 1, 2; y = 0, 2, 1: mean_y = 1, slope = 0.5, intercept = 0.5,
        // residuals -0.5, 1, -0.5 → SS_res = 1.5, SS_tot = 2, R² = 0.25.
        let fit = linear_fit(&[(0.0, 0.0), (1.0, 2.0), (2.0, 1.0)]).unwrap();
        assert!((fit.slope - 0.5).abs() < 1e-12);
        assert!((fit.intercept - 0.5).abs() < 1e-12);
        assert!((fit.r_squared - (1.0 - 1.5 / 2.0)).abs() < 1e-12);
        assert_eq!(linear_fit(&[(1.0, 1.0), (1.0, 2.0)]), None);
        assert_eq!(linear_fit(&[(1.0, 1.0)]), None);
    }
}
